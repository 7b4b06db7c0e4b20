/*
 * ops_index.c — the hand-written entries of the indexing family: Tensor.__getitem__ and
 * __setitem__ (the mapping slots, installed by this family's `prepare` hook), since an
 * index is any Python object, read by PyTorch's own rules rather than a signature; and
 * Tensor.split, which PyTorch writes in Python (see below; torch.split is Python). Every other op
 * of the family (index_fill, masked_fill, masked_select, cat, stack, split_with_sizes, chunk,
 * unbind, resize_, ...) is generated from its rows in ntensor/ops.def (bindings.c).
 *
 * Index objects are turned into an nt_index tuple the way PyTorch's python_variable_indexing
 * reads them: the single-index fast paths (int, slice, None, Ellipsis, bool), a list that
 * holds a sequence, slice, tensor, None or Ellipsis read as a tuple (NumPy's legacy rule),
 * other sequences made into an index tensor (int64 unless bool/uint8), anything with
 * __index__ as an int.
 */
#include "arglists.h"
#include "interop.h"
#include "subclass.h"

/* ------------------------------------------------------------------ index conversion */

/* The index tuple being built: entries plus the tensors made from sequences (owned). */
typedef struct index_tuple {
    int count;
    nt_index idx[NT_MAX_DIMS * 2];
    nt_tensor *owned[NT_MAX_DIMS * 2];
    int nowned;
} index_tuple;

static void tuple_free(index_tuple *t) {
    for (int i = 0; i < t->nowned; i++)
        nt_tensor_release(t->owned[i]);
    t->nowned = 0;
}

static int is_int_like(PyObject *o) {
    return PyLong_Check(o) && !PyBool_Check(o);
}

/* treatSequenceAsTuple */
static int sequence_as_tuple(PyObject *index) {
    if (PyTuple_Check(index)) return 1;
    if (nt_py_is_tensor(index)) return 0;
    if (!PySequence_Check(index)) return 0;
    Py_ssize_t n = PySequence_Size(index);
    if (n < 0) {
        PyErr_Clear();
        return 0;
    }
    if (n >= 32) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *obj = PySequence_GetItem(index, i);
        if (!obj) {
            PyErr_Clear();
            return 0;
        }
        int yes = nt_py_is_tensor(obj) || PySequence_Check(obj) || PySlice_Check(obj) ||
                  obj == Py_Ellipsis || obj == Py_None;
        Py_DECREF(obj);
        if (yes) return 1;
    }
    return 0;
}

static int read_slice(PyObject *o, nt_index *ix) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(o, &start, &stop, &step) < 0) return -1;
    ix->kind = NT_INDEX_SLICE;
    ix->start = start;
    ix->stop = stop == PY_SSIZE_T_MAX ? NT_SLICE_END : stop;
    ix->step = step;
    return 0;
}

/* sequenceToVariable: ntensor.tensor(seq), int64 unless bool or uint8. */
static int sequence_tensor(PyObject *seq, nt_tensor **out) {
    PyObject *t = nt_py_tensor_of(seq);
    if (!t) return -1;
    nt_tensor *x = nt_py_tensor(t);
    nt_dtype d = nt_tensor_dtype(x);
    nt_status st = NT_OK;
    if (d == NT_BOOL || d == NT_UINT8 || d == NT_INT64)
        *out = nt_tensor_retain(x);
    else
        st = nt_to_dtype(x, NT_INT64, out);
    Py_DECREF(t);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

int nt_py_index_entry(PyObject *o, nt_index *ix, nt_tensor **owned) {
    memset(ix, 0, sizeof *ix);
    *owned = NULL;
    if (nt_py_is_tensor(o)) {
        ix->kind = NT_INDEX_TENSOR;
        ix->tensor = nt_py_tensor(o);
    } else if (o == Py_None) {
        ix->kind = NT_INDEX_NONE;
    } else if (o == Py_Ellipsis) {
        ix->kind = NT_INDEX_ELLIPSIS;
    } else if (PyBool_Check(o)) {
        ix->kind = NT_INDEX_BOOL;
        ix->i = o == Py_True;
    } else if (is_int_like(o)) {
        ix->kind = NT_INDEX_INT;
        if (nt_py_int64_from_object(o, &ix->i, "index") < 0) return -1;
    } else if (PySlice_Check(o)) {
        if (read_slice(o, ix) < 0) return -1;
    } else if (PySequence_Check(o)) {
        if (sequence_tensor(o, owned) < 0) return -1;
        ix->kind = NT_INDEX_TENSOR;
        ix->tensor = *owned;
    } else {
        PyObject *index = PyNumber_Index(o);
        if (!index) {
            PyErr_Clear();
            PyErr_Format(PyExc_IndexError,
                         "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         "Variables are valid indices (got %s)",
                         Py_TYPE(o)->tp_name);
            return -1;
        }
        ix->kind = NT_INDEX_INT;
        int rc = nt_py_int64_from_object(index, &ix->i, "index");
        Py_DECREF(index);
        if (rc < 0) return -1;
    }
    return 0;
}

/* One element of an index tuple. */
static int read_item(PyObject *o, index_tuple *t) {
    if (t->count >= NT_MAX_DIMS * 2) {
        PyErr_SetString(PyExc_IndexError, "too many indices");
        return -1;
    }
    nt_tensor *owned;
    if (nt_py_index_entry(o, &t->idx[t->count], &owned) < 0) return -1;
    if (owned) t->owned[t->nowned++] = owned;
    t->count++;
    return 0;
}

/* Reads `index`; *single is set for the non-tuple fast paths (int, slice, None, Ellipsis,
 * bool), where count is 1. */
static int read_index(PyObject *index, index_tuple *t, int *single) {
    t->count = 0;
    t->nowned = 0;
    *single = 0;
    if (index == Py_None || index == Py_Ellipsis || PyBool_Check(index) || is_int_like(index) ||
        PySlice_Check(index)) {
        *single = 1;
        return read_item(index, t);
    }
    if (!nt_py_is_tensor(index) && !PySequence_Check(index) && PyIndex_Check(index)) {
        *single = 1; /* a NumPy integer */
        return read_item(index, t);
    }
    if (!sequence_as_tuple(index)) return read_item(index, t);
    PyObject *fast = PySequence_Fast(index, "index must be a sequence");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_item(PySequence_Fast_GET_ITEM(fast, i), t) < 0) {
            Py_DECREF(fast);
            tuple_free(t);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static PyObject *tensor_getitem(PyObject *self, PyObject *index) {
    if (nt_py_index_has_dims(index)) return nt_py_dims_getitem(self, index);
    if (nt_py_levels_index_fits(self, index) < 0) return NULL;
    index_tuple t;
    int single;
    if (read_index(index, &t, &single) < 0) return NULL;
    nt_tensor *x = nt_py_tensor(self), *out = NULL;
    nt_status st;
    NT_PY_CALL_NOGIL(nt_tensor_numel(x), st,
                     single ? nt_index_get1(x, &t.idx[0], &out)
                            : nt_index_get(x, t.count, t.idx, &out));
    tuple_free(&t);
    return nt_py_keep_subclass_of(nt_py_result(st, out), self, NULL);
}

int nt_py_setitem_scalar(PyObject *value, const nt_tensor *x, nt_scalar *s) {
    if (PyBool_Check(value)) {
        *s = nt_scalar_bool(value == Py_True);
    } else if (PyLong_Check(value) || (PyIndex_Check(value) && !PyFloat_Check(value))) {
        int64_t v;
        if (nt_py_int64_from_object(value, &v, "value") < 0) return -1;
        *s = nt_scalar_int(v);
    } else if (PyFloat_Check(value)) {
        *s = nt_scalar_float(PyFloat_AS_DOUBLE(value));
    } else if (PyComplex_Check(value)) {
        PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                     "float");
        return -1;
    } else {
        PyErr_Format(PyExc_TypeError, "can't assign a %s to a %s", Py_TYPE(value)->tp_name,
                     nt_py_legacy_type_names[nt_tensor_dtype(x)]);
        return -1;
    }
    return 0;
}

static int tensor_setitem(PyObject *self, PyObject *index, PyObject *value) {
    nt_tensor *x = nt_py_tensor(self);
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    if (nt_py_setitem_has_dims(self, index, value)) return nt_py_dims_setitem(self, index, value);
    nt_scalar s;
    int is_tensor = nt_py_is_tensor(value);
    if (!is_tensor && nt_py_setitem_scalar(value, x, &s) < 0) return -1;
    index_tuple t;
    int single;
    if (read_index(index, &t, &single) < 0) return -1;
    nt_status st;
    NT_PY_CALL_NOGIL(nt_tensor_numel(x), st,
                     is_tensor ? nt_index_set_(x, t.count, t.idx, single, nt_py_tensor(value))
                               : nt_index_set_scalar_(x, t.count, t.idx, single, s));
    tuple_free(&t);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

static PyMappingMethods tensor_mapping = {
    .mp_length = NULL,
    .mp_subscript = tensor_getitem,
    .mp_ass_subscript = tensor_setitem,
};

int nt_py_index_prepare(PyTypeObject *type) {
    type->tp_as_mapping = &tensor_mapping;
    return 0;
}

/* ------------------------------------------------------------------ split */

/* Tensor.split and torch.split are Python functions in PyTorch (torch/_tensor.py,
 * torch/functional.py): an int split_size (a tensor one converted by int()) calls
 * _VF.split(self, split_size, dim), anything else _VF.split_with_sizes(self, split_size,
 * dim), whose argument errors then name that function. Here the _VF functions are the
 * generated module functions split and split_with_sizes (their rows in ops.def); torch.split
 * is Python, as in PyTorch (ntensor/functional.py). */
static PyObject *vf_split, *vf_split_with_sizes;

static PyObject *tensor_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"self", "split_size", "dim", NULL};
    PyObject *v[3];
    if (nt_py_parse_args("Tensor.split", args, nargs, kwnames, kwlist, 3, 2, v) < 0) return NULL;
    PyObject *size = v[1], *converted = NULL;
    if (nt_py_is_tensor(size)) {
        if ((converted = PyNumber_Long(size))) {
            size = converted;
        } else if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
        } else {
            return NULL;
        }
    }
    PyObject *zero = v[2] ? NULL : PyLong_FromLong(0);
    PyObject *call[3] = {self, size, v[2] ? v[2] : zero};
    PyObject *r = call[2] ? PyObject_Vectorcall(PyLong_Check(size) ? vf_split : vf_split_with_sizes,
                                                call, 3, NULL)
                          : NULL;
    Py_XDECREF(zero);
    Py_XDECREF(converted);
    return r;
}

PyMethodDef nt_py_tensor_index_methods[] = {
    {"split", (PyCFunction)(void (*)(void))tensor_split, METH_FASTCALL | METH_KEYWORDS,
     "split(split_size, dim=0): views, a tuple; split_size an int or a list of sizes"},
    {NULL, NULL, 0, NULL},
};

int nt_py_index_init(PyObject *module) {
    vf_split = PyObject_GetAttrString(module, "split"); /* kept for the life of the process */
    vf_split_with_sizes = PyObject_GetAttrString(module, "split_with_sizes");
    return vf_split && vf_split_with_sizes ? 0 : -1;
}
