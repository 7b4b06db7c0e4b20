/*
 * ops_index.c — the Python face of the indexing family: Tensor.__getitem__/__setitem__
 * (the mapping slots, installed by this family's `prepare` hook), index_fill, masked_fill,
 * masked_select, split, split_with_sizes, chunk, unbind, resize_, resize_as_ and the
 * module functions torch.cat/concat/stack/split/chunk/unbind/masked_select/masked_fill/
 * index_fill.
 *
 * Index objects are turned into an nt_index tuple the way PyTorch's python_variable_indexing
 * reads them: the single-index fast paths (int, slice, None, Ellipsis, bool), a list that
 * holds a sequence, slice, tensor, None or Ellipsis read as a tuple (NumPy's legacy rule),
 * other sequences made into an index tensor (int64 unless bool/uint8), anything with
 * __index__ as an int. Every dim argument also accepts a name.
 */
#include "ops_index.h"

#include "arglists.h"

static const char *const legacy_names[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "torch.BoolTensor",       [NT_UINT8] = "torch.ByteTensor",
    [NT_INT8] = "torch.CharTensor",       [NT_INT16] = "torch.ShortTensor",
    [NT_INT32] = "torch.IntTensor",       [NT_INT64] = "torch.LongTensor",
    [NT_FLOAT16] = "torch.HalfTensor",    [NT_BFLOAT16] = "torch.BFloat16Tensor",
    [NT_FLOAT32] = "torch.FloatTensor",   [NT_FLOAT64] = "torch.DoubleTensor",
};

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

static int read_int(PyObject *o, int64_t *out) {
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
        return -1;
    }
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
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
    if (PyUnicode_Check(seq) || PyBytes_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(seq)->tp_name);
        return -1;
    }
    static PyObject *factory;
    if (!factory) {
        PyObject *m = PyImport_ImportModule("ntensor._C");
        if (!m) return -1;
        factory = PyObject_GetAttrString(m, "tensor");
        Py_DECREF(m);
        if (!factory) return -1;
    }
    PyObject *t = PyObject_CallOneArg(factory, seq);
    if (!t) return -1;
    if (!nt_py_is_tensor(t)) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_TypeError, "tensor() did not return a Tensor");
        return -1;
    }
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

/* One element of an index tuple. */
static int read_item(PyObject *o, index_tuple *t) {
    if (t->count >= NT_MAX_DIMS * 2) {
        PyErr_SetString(PyExc_IndexError, "too many indices");
        return -1;
    }
    nt_index *ix = &t->idx[t->count];
    memset(ix, 0, sizeof *ix);
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
        if (read_int(o, &ix->i) < 0) return -1;
    } else if (PySlice_Check(o)) {
        if (read_slice(o, ix) < 0) return -1;
    } else if (PySequence_Check(o)) {
        nt_tensor *x;
        if (sequence_tensor(o, &x) < 0) return -1;
        t->owned[t->nowned++] = x;
        ix->kind = NT_INDEX_TENSOR;
        ix->tensor = x;
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
        int rc = read_int(index, &ix->i);
        Py_DECREF(index);
        if (rc < 0) return -1;
    }
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
    index_tuple t;
    int single;
    if (read_index(index, &t, &single) < 0) return NULL;
    nt_tensor *x = nt_py_tensor(self), *out = NULL;
    nt_status st;
    bool big = nt_tensor_numel(x) > NT_PY_NOGIL_NUMEL;
    if (big) {
        Py_BEGIN_ALLOW_THREADS;
        st = single ? nt_index_get1(x, &t.idx[0], &out) : nt_index_get(x, t.count, t.idx, &out);
        Py_END_ALLOW_THREADS;
    } else {
        st = single ? nt_index_get1(x, &t.idx[0], &out) : nt_index_get(x, t.count, t.idx, &out);
    }
    tuple_free(&t);
    return nt_py_result_of(st, &out);
}

static int tensor_setitem(PyObject *self, PyObject *index, PyObject *value) {
    nt_tensor *x = nt_py_tensor(self);
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    nt_scalar s;
    int is_tensor = nt_py_is_tensor(value);
    if (!is_tensor) {
        if (PyBool_Check(value)) {
            s = nt_scalar_bool(value == Py_True);
        } else if (PyLong_Check(value) || (PyIndex_Check(value) && !PyFloat_Check(value))) {
            int64_t v;
            if (nt_py_int64_from_object(value, &v, "value") < 0) return -1;
            s = nt_scalar_int(v);
        } else if (PyFloat_Check(value)) {
            s = nt_scalar_float(PyFloat_AS_DOUBLE(value));
        } else if (PyComplex_Check(value)) {
            PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                         "float");
            return -1;
        } else {
            PyErr_Format(PyExc_TypeError, "can't assign a %s to a %s", Py_TYPE(value)->tp_name,
                         legacy_names[nt_tensor_dtype(x)]);
            return -1;
        }
    }
    index_tuple t;
    int single;
    if (read_index(index, &t, &single) < 0) return -1;
    nt_status st;
    bool big = nt_tensor_numel(x) > NT_PY_NOGIL_NUMEL;
    PyThreadState *ts = big ? PyEval_SaveThread() : NULL;
    if (is_tensor)
        st = nt_index_set_(x, t.count, t.idx, single, nt_py_tensor(value));
    else
        st = nt_index_set_scalar_(x, t.count, t.idx, single, s);
    if (ts) PyEval_RestoreThread(ts);
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

/* ------------------------------------------------------------------ helpers */

/* A dim argument: int or name (None is PyTorch's look-up-by-name error). */
static int dim_arg(const nt_tensor *t, PyObject *o, int64_t *out) {
    if (o == Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "Please look up dimensions by name, got: name = None.");
        return -1;
    }
    return nt_py_dim_from_object(t, o, out);
}

/* A dim that the C call wraps itself (so its messages are the op's): ints pass unwrapped,
 * names resolve to their index. */
static int raw_dim_arg(const nt_tensor *t, PyObject *o, int64_t *out) {
    if (!o) {
        *out = 0;
        return 0;
    }
    if (PyUnicode_Check(o) || o == Py_None) return dim_arg(t, o, out);
    return nt_py_int64_from_object(o, out, "dim");
}

static PyObject *tensor_tuple(nt_tensor **list, int64_t count) {
    PyObject *tuple = PyTuple_New(count);
    if (!tuple) {
        nt_tensors_release(list, count);
        return NULL;
    }
    for (int64_t i = 0; i < count; i++) {
        PyObject *w = nt_py_wrap(list[i]);
        list[i] = NULL;
        if (!w) {
            for (int64_t j = i + 1; j < count; j++)
                nt_tensor_release(list[j]);
            nt_tensors_release(list, 0);
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, w);
    }
    nt_tensors_release(list, 0);
    return tuple;
}

static PyObject *list_result(nt_status st, nt_tensor **list, int64_t count) {
    if (st != NT_OK) return nt_py_raise(st);
    return tensor_tuple(list, count);
}

/* A number or a 0-dim... tensor value: *is_tensor tells which. */
static int value_arg(const char *fname, PyObject *o, nt_scalar *s, nt_tensor **t) {
    *t = NULL;
    if (nt_py_is_tensor(o)) {
        *t = nt_py_tensor(o);
        return 0;
    }
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) ||
        (PyIndex_Check(o) && !PyUnicode_Check(o)))
        return nt_py_scalar_from_object(o, s);
    PyObject *f = PyNumber_Check(o) && !PyUnicode_Check(o) ? PyNumber_Float(o) : NULL;
    if (f) {
        *s = nt_scalar_float(PyFloat_AS_DOUBLE(f));
        Py_DECREF(f);
        return 0;
    }
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "%s() received an invalid combination of arguments - got (Tensor, %s), but "
                 "expected one of:\n * (Tensor mask, Tensor value)\n      didn't match because "
                 "some of the arguments have invalid types: (Tensor, !%s!)\n * (Tensor mask, "
                 "Number value)\n      didn't match because some of the arguments have invalid "
                 "types: (Tensor, !%s!)\n",
                 fname, nt_py_type_name(o), nt_py_type_name(o), nt_py_type_name(o));
    return -1;
}

static int tensor_arg(const char *fname, const char *arg, int pos, PyObject *o, nt_tensor **out) {
    if (!o) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", fname, arg,
                     pos);
        return -1;
    }
    if (!nt_py_is_tensor(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be Tensor, not %s",
                     fname, arg, pos, nt_py_type_name(o));
        return -1;
    }
    *out = nt_py_tensor(o);
    return 0;
}

/* ------------------------------------------------------------------ index_fill */

static PyObject *index_fill_common(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames, int inplace) {
    const char *fname = inplace ? "index_fill_" : "index_fill";
    static const char *const kwlist[] = {"dim", "index", "value", NULL};
    PyObject *v[3];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 3, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *index, *vt, *out = NULL;
    nt_scalar s;
    int64_t dim;
    if (!v[0] || !v[2]) {
        PyErr_Format(PyExc_TypeError, "%s() missing required arguments", fname);
        return NULL;
    }
    if (raw_dim_arg(t, v[0], &dim) < 0 || tensor_arg(fname, "index", 2, v[1], &index) < 0 ||
        value_arg(fname, v[2], &s, &vt) < 0)
        return NULL;
    nt_status st;
    if (inplace) {
        st = vt ? nt_index_fill_tensor_(t, dim, index, vt) : nt_index_fill_(t, dim, index, s);
        if (st != NT_OK) return nt_py_raise(st);
        Py_INCREF(self);
        return self;
    }
    st = vt ? nt_index_fill_tensor(t, dim, index, vt, &out) : nt_index_fill(t, dim, index, s, &out);
    return nt_py_result_of(st, &out);
}

static PyObject *tensor_index_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    return index_fill_common(self, args, nargs, kwnames, 0);
}
static PyObject *tensor_index_fill_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    return index_fill_common(self, args, nargs, kwnames, 1);
}

/* ------------------------------------------------------------------ masked_fill / select */

static PyObject *masked_fill_common(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames, int inplace) {
    const char *fname = inplace ? "masked_fill_" : "masked_fill";
    static const char *const kwlist[] = {"mask", "value", NULL};
    PyObject *v[2];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *mask, *vt, *out = NULL;
    nt_scalar s;
    if (tensor_arg(fname, "mask", 1, v[0], &mask) < 0) return NULL;
    if (!v[1]) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument 'value' (pos 2)", fname);
        return NULL;
    }
    if (value_arg(fname, v[1], &s, &vt) < 0) return NULL;
    nt_status st;
    bool big = nt_tensor_numel(t) > NT_PY_NOGIL_NUMEL;
    PyThreadState *ts = big ? PyEval_SaveThread() : NULL;
    if (inplace)
        st = vt ? nt_masked_fill_tensor_(t, mask, vt) : nt_masked_fill_(t, mask, s);
    else
        st = vt ? nt_masked_fill_tensor(t, mask, vt, &out) : nt_masked_fill(t, mask, s, &out);
    if (ts) PyEval_RestoreThread(ts);
    if (st != NT_OK) return nt_py_raise(st);
    if (inplace) {
        Py_INCREF(self);
        return self;
    }
    return nt_py_wrap(out);
}

static PyObject *tensor_masked_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    return masked_fill_common(self, args, nargs, kwnames, 0);
}
static PyObject *tensor_masked_fill_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames) {
    return masked_fill_common(self, args, nargs, kwnames, 1);
}

static PyObject *tensor_masked_select(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames) {
    static const char *const kwlist[] = {"mask", NULL};
    PyObject *v[1];
    if (nt_py_parse_args("masked_select", args, nargs, kwnames, kwlist, 1, v) < 0) return NULL;
    nt_tensor *mask, *out = NULL;
    if (tensor_arg("masked_select", "mask", 1, v[0], &mask) < 0) return NULL;
    nt_status st = nt_masked_select(nt_py_tensor(self), mask, &out);
    return nt_py_result_of(st, &out);
}

/* ------------------------------------------------------------------ split, chunk, unbind */

static PyObject *tensor_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"split_size", "dim", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("split", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args("split", 1, (const char *const[]){"split_size"});
    nt_tensor *t = nt_py_tensor(self), **list = NULL;
    int64_t dim, count = 0;
    if (raw_dim_arg(t, v[1], &dim) < 0) return NULL;
    nt_status st;
    if (nt_py_is_int(v[0])) {
        int64_t size;
        if (nt_py_int64_from_object(v[0], &size, "split_size") < 0) return NULL;
        st = nt_split(t, size, dim, &list, &count);
    } else {
        int64_t sizes[1024];
        if (!PyTuple_Check(v[0]) && !PyList_Check(v[0])) {
            PyErr_Format(PyExc_TypeError,
                         "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple "
                         "of ints, not %s",
                         nt_py_type_name(v[0]));
            return NULL;
        }
        Py_ssize_t n = PySequence_Fast_GET_SIZE(v[0]);
        if (n > 1024) {
            PyErr_SetString(PyExc_RuntimeError, "split_with_sizes: too many sizes");
            return NULL;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(v[0], i);
            if (!nt_py_is_int(item)) {
                PyErr_Format(PyExc_TypeError,
                             "split_with_sizes(): argument 'split_sizes' must be tuple of ints, "
                             "but found element of type %s at pos %zd",
                             nt_py_type_name(item), i + 1);
                return NULL;
            }
            if (nt_py_int64_from_object(item, &sizes[i], "split_sizes") < 0) return NULL;
        }
        st = nt_split_with_sizes(t, (int)n, sizes, dim, &list, &count);
    }
    return list_result(st, list, count);
}

static PyObject *tensor_split_with_sizes(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                         PyObject *kwnames) {
    static const char *const kwlist[] = {"split_sizes", "dim", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("split_with_sizes", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args("split_with_sizes", 1, (const char *const[]){"split_sizes"});
    if (nt_py_is_int(v[0]) || (!PyTuple_Check(v[0]) && !PyList_Check(v[0]))) {
        PyErr_Format(PyExc_TypeError,
                     "split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of "
                     "ints, not %s",
                     nt_py_type_name(v[0]));
        return NULL;
    }
    return tensor_split(self, v, v[1] ? 2 : 1, NULL);
}

static PyObject *tensor_chunk(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"chunks", "dim", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("chunk", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args("chunk", 1, (const char *const[]){"chunks"});
    nt_tensor *t = nt_py_tensor(self), **list = NULL;
    int64_t chunks, dim, count = 0;
    if (nt_py_int64_from_object(v[0], &chunks, "chunks") < 0 || raw_dim_arg(t, v[1], &dim) < 0)
        return NULL;
    nt_status st = nt_chunk(t, chunks, dim, &list, &count);
    return list_result(st, list, count);
}

static PyObject *tensor_unbind(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", NULL};
    PyObject *v[1];
    if (nt_py_parse_args("unbind", args, nargs, kwnames, kwlist, 1, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), **list = NULL;
    int64_t dim, count = 0;
    if (raw_dim_arg(t, v[0], &dim) < 0) return NULL;
    nt_status st = nt_unbind(t, dim, &list, &count);
    return list_result(st, list, count);
}

/* ------------------------------------------------------------------ resize_ */

static PyObject *tensor_resize_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    PyObject *size_kw = NULL;
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
        static const char *const kwlist[] = {"size", "memory_format", NULL};
        PyObject *v[2];
        if (nt_py_parse_args("resize_", args + nargs, 0, kwnames, kwlist, 0, v) < 0) return NULL;
        size_kw = v[0];
        if (v[1] && v[1] != Py_None) {
            PyObject *r = PyObject_Repr(v[1]);
            int ok = r && PyUnicode_CompareWithASCIIString(r, "torch.contiguous_format") == 0;
            Py_XDECREF(r);
            if (!ok) {
                PyErr_SetString(PyExc_RuntimeError,
                                "resize_: only memory_format=torch.contiguous_format is "
                                "supported");
                return NULL;
            }
        }
    }
    if (nargs == 0 && !size_kw) return nt_py_missing_args("resize_", 1, (const char *const[]){"size"});
    int64_t sizes[NT_MAX_DIMS];
    int n = size_kw ? nt_py_int_list("resize_", "size", 1, "SymInts", &size_kw, 1, sizes)
                    : nt_py_int_list("resize_", "size", 1, "SymInts", args, nargs, sizes);
    if (n < 0) return NULL;
    nt_status st = nt_resize_(nt_py_tensor(self), n, sizes);
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(self);
    return self;
}

static PyObject *tensor_resize_as_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    static const char *const kwlist[] = {"the_template", "memory_format", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("resize_as_", args, nargs, kwnames, kwlist, 1, v) < 0) return NULL;
    nt_tensor *tmpl;
    if (tensor_arg("resize_as_", "the_template", 1, v[0], &tmpl) < 0) return NULL;
    nt_status st = nt_resize_as_(nt_py_tensor(self), tmpl);
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(self);
    return self;
}

/* ------------------------------------------------------------------ cat, stack */

/* Reads a tuple/list of tensors into a new array (borrowed entries). */
static int tensor_list(const char *fname, PyObject *o, nt_tensor ***out, int *count) {
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument 'tensors' (position 1) must be tuple of Tensors, not %s",
                     fname, nt_py_type_name(o));
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    nt_tensor **list = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *list);
    if (!list) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(o, i);
        if (!nt_py_is_tensor(item)) {
            PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd in argument 0, but got %s",
                         i, nt_py_type_name(item));
            PyMem_Free(list);
            return -1;
        }
        list[i] = nt_py_tensor(item);
    }
    *out = list;
    *count = (int)n;
    return 0;
}

static PyObject *join_common(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames, int stack) {
    static const char *const kwlist[] = {"tensors", "dim", "out", NULL};
    PyObject *v[3];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args(fname, 1, (const char *const[]){"tensors"});
    nt_tensor **list, *out = NULL, *result = NULL;
    int count;
    if (v[2] == Py_None) v[2] = NULL;
    if (v[2] && !nt_py_is_tensor(v[2])) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s", fname,
                     nt_py_type_name(v[2]));
        return NULL;
    }
    if (v[2]) out = nt_py_tensor(v[2]);
    if (tensor_list(fname, v[0], &list, &count) < 0) return NULL;
    int64_t dim = 0;
    int rc = 0;
    if (v[1]) {
        if (PyUnicode_Check(v[1]) || v[1] == Py_None) {
            if (count == 0) {
                PyErr_Format(PyExc_RuntimeError, "%s(): expected a non-empty list of Tensors",
                             fname);
                rc = -1;
            } else {
                rc = dim_arg(list[0], v[1], &dim);
            }
        } else {
            rc = nt_py_int64_from_object(v[1], &dim, "dim");
        }
    }
    if (rc < 0) {
        PyMem_Free(list);
        return NULL;
    }
    nt_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = stack ? nt_stack(count, list, dim, out, &result) : nt_cat(count, list, dim, out, &result);
    Py_END_ALLOW_THREADS;
    PyMem_Free(list);
    if (st != NT_OK) return nt_py_raise(st);
    if (!out) return nt_py_wrap(result);
    nt_tensor_release(result); /* out itself */
    Py_INCREF(v[2]);
    return v[2];
}

static PyObject *py_cat(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return join_common("cat", args, nargs, kwnames, 0);
}
static PyObject *py_concat(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    return join_common("concat", args, nargs, kwnames, 0);
}
static PyObject *py_stack(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return join_common("stack", args, nargs, kwnames, 1);
}

#define AS_FUNCTION(NAME, METHOD)                                                                  \
    static PyObject *py_##NAME(PyObject *m, PyObject *const *args, Py_ssize_t nargs,               \
                               PyObject *kwnames) {                                                \
        return nt_py_call_as_function(#NAME, METHOD, args, nargs, kwnames);                           \
    }
AS_FUNCTION(split, tensor_split)
AS_FUNCTION(chunk, tensor_chunk)
AS_FUNCTION(unbind, tensor_unbind)
AS_FUNCTION(masked_select, tensor_masked_select)
AS_FUNCTION(masked_fill, tensor_masked_fill)
AS_FUNCTION(index_fill, tensor_index_fill)

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_tensor_index_methods[] = {
    {"index_fill", FASTKW(tensor_index_fill), "index_fill(dim, index, value)"},
    {"index_fill_", FASTKW(tensor_index_fill_), "index_fill_(dim, index, value)"},
    {"masked_fill", FASTKW(tensor_masked_fill), "masked_fill(mask, value)"},
    {"masked_fill_", FASTKW(tensor_masked_fill_), "masked_fill_(mask, value)"},
    {"masked_select", FASTKW(tensor_masked_select), "masked_select(mask)"},
    {"split", FASTKW(tensor_split), "split(split_size_or_sections, dim=0): a tuple of views"},
    {"split_with_sizes", FASTKW(tensor_split_with_sizes), "split_with_sizes(split_sizes, dim=0)"},
    {"chunk", FASTKW(tensor_chunk), "chunk(chunks, dim=0): a tuple of views"},
    {"unbind", FASTKW(tensor_unbind), "unbind(dim=0): a tuple of views"},
    {"resize_", FASTKW(tensor_resize_), "resize_(*sizes)"},
    {"resize_as_", FASTKW(tensor_resize_as_), "resize_as_(the_template)"},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_index_functions[] = {
    {"cat", FASTKW(py_cat), "cat(tensors, dim=0, *, out=None)"},
    {"concat", FASTKW(py_concat), "concat(tensors, dim=0, *, out=None)"},
    {"stack", FASTKW(py_stack), "stack(tensors, dim=0, *, out=None)"},
    {"split", FASTKW(py_split), "split(tensor, split_size_or_sections, dim=0)"},
    {"chunk", FASTKW(py_chunk), "chunk(input, chunks, dim=0)"},
    {"unbind", FASTKW(py_unbind), "unbind(input, dim=0)"},
    {"masked_select", FASTKW(py_masked_select), "masked_select(input, mask)"},
    {"masked_fill", FASTKW(py_masked_fill), "masked_fill(input, mask, value)"},
    {"index_fill", FASTKW(py_index_fill), "index_fill(input, dim, index, value)"},
    {NULL, NULL, 0, NULL},
};

