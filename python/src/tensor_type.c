/*
 * tensor_type.c — the ntensor.Tensor type: creation, deallocation, printing, attributes,
 * and the fronts of size() and stride() (size(dim), stride(dim), dim, is_contiguous, numel,
 * data_ptr and the other queries are rows of the op table).
 *
 * The methods generated from the op table and those of the other files (names.c,
 * convert.c, ...) are joined into the type's table at import; see nt_py_tensor_type_init.
 */
#include <stddef.h>
#include <string.h>

#include "arglists.h"
#include "bindings.h"
#include "docs.h"
#include "interop.h"
#include "pyntensor.h"
#include "subclass.h"

/* One tensor is one Python object: the wrapper is kept in the tensor's handle while it
 * lives, and a tensor that comes back from C (t.positive(), an in-place op) gets it again. */

/* Tensor objects freed, kept for the next ones (as CPython keeps its floats and tuples): a
 * tensor made and dropped per call (t[i, k], a + b) then skips the allocator and its zeroing.
 * The GIL guards the list; without one (a free-threaded build) there is none. */
#ifdef Py_GIL_DISABLED
#define SPARE_TENSORS 0
#else
#define SPARE_TENSORS 64
#endif
static NtTensorObject *spare_tensors[SPARE_TENSORS + 1];
static int nspare_tensors;

static NtTensorObject *tensor_alloc(void) {
    if (nspare_tensors == 0) return (NtTensorObject *)NtTensor_Type.tp_alloc(&NtTensor_Type, 0);
    NtTensorObject *self = spare_tensors[--nspare_tensors];
    PyObject_Init((PyObject *)self, &NtTensor_Type);
    return self;
}

PyObject *nt_py_wrap(nt_tensor *t) {
    PyObject *existing = nt_tensor_handle(t);
    if (existing) {
        Py_INCREF(existing);
        nt_tensor_release(t);
        return existing;
    }
    NtTensorObject *self = tensor_alloc();
    if (!self) {
        nt_tensor_release(t);
        return NULL;
    }
    self->t = t;
    nt_tensor_set_handle(t, self);
    return (PyObject *)self;
}

PyObject *nt_py_wrap_as(PyTypeObject *type, nt_tensor *t) {
    PyObject *existing = nt_tensor_handle(t);
    if (type == &NtTensor_Type || (existing && Py_TYPE(existing) == type)) return nt_py_wrap(t);
    NtTensorObject *self = (NtTensorObject *)type->tp_alloc(type, 0);
    if (!self) {
        nt_tensor_release(t);
        return NULL;
    }
    self->t = t;
    if (!existing) nt_tensor_set_handle(t, self);
    return (PyObject *)self;
}

static void tensor_dealloc(PyObject *obj) {
    NtTensorObject *self = (NtTensorObject *)obj;
    if (self->weakrefs) PyObject_ClearWeakRefs(obj);
    if (self->t && nt_tensor_handle(self->t) == obj) nt_tensor_set_handle(self->t, NULL);
    nt_tensor_release(self->t);
    Py_CLEAR(self->lenders[0]);
    Py_CLEAR(self->lenders[1]);
    if (Py_TYPE(obj) == &NtTensor_Type && nspare_tensors < SPARE_TENSORS) {
        self->t = NULL;
        self->weakrefs = NULL;
        spare_tensors[nspare_tensors++] = self;
        return;
    }
    Py_TYPE(obj)->tp_free(obj);
}

/* "tensor(...)"; a subclass prints its own name instead ("P([1., 2.])"), as PyTorch's
 * _tensor_str does. */
static PyObject *tensor_repr(PyObject *self) {
    if (nt_tensor_levels(nt_py_tensor(self), NULL)) return nt_py_dims_repr(self);
    PyObject *name = Py_TYPE(self) == &NtTensor_Type
                         ? PyUnicode_FromString("tensor")
                         : PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__name__");
    PyObject *prefix = name ? PyUnicode_FromFormat("%U(", name) : NULL, *result = NULL;
    const char *utf8 = prefix ? PyUnicode_AsUTF8(prefix) : NULL;
    char *text = NULL, grad_fn[160];
    /* autograd's suffix, as PyTorch's: grad_fn=<MulBackward0> or requires_grad=True */
    nt_tensor *t = nt_py_tensor(self);
    const char *fn = nt_grad_fn_name(t), *suffix = NULL;
    if (fn)
        snprintf(grad_fn, sizeof grad_fn, "grad_fn=<%s>", fn), suffix = grad_fn;
    else if (nt_requires_grad(t))
        suffix = "requires_grad=True";
    nt_status st = utf8 ? nt_format_as(t, utf8, suffix ? 1 : 0, &suffix, &text) : NT_OK;
    if (st != NT_OK)
        nt_py_raise(st);
    else if (text)
        result = PyUnicode_FromString(text);
    nt_free(text);
    Py_XDECREF(name);
    Py_XDECREF(prefix);
    return result;
}

/* ---- attributes ---- */

static PyObject *get_names(PyObject *self, void *closure) {
    return nt_py_names_tuple(nt_py_tensor(self));
}

/* t.names = [...] renames in place; t.names = None drops the names. */
static int set_names(PyObject *self, PyObject *value, void *closure) {
    nt_tensor *t = nt_py_tensor(self);
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete the names of a tensor");
        return -1;
    }
    if (value == Py_None) {
        nt_status st = nt_set_names_(t, NULL);
        return st == NT_OK ? 0 : nt_py_raise_int(st);
    }
    nt_name names[NT_MAX_DIMS];
    int count;
    if (!PySequence_Check(value) || PyUnicode_Check(value)) goto not_names;
    if (nt_py_names_from_sequence(value, names, &count, -1) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear(); /* an element that is neither str nor None */
        goto not_names;
    }
    nt_status st = nt_set_names_n_(t, count, names);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
not_names:
    PyErr_SetString(PyExc_RuntimeError, "names must either be None or a tuple of dim names");
    return -1;
}

static PyObject *get_shape(PyObject *self, void *closure) {
    nt_tensor *t = nt_py_tensor(self);
    return nt_py_size_new(nt_tensor_ndim(t), nt_tensor_sizes(t));
}

static PyObject *get_ndim(PyObject *self, void *closure) {
    return PyLong_FromLong(nt_tensor_ndim(nt_py_tensor(self)));
}

static PyObject *get_dtype(PyObject *self, void *closure) {
    PyObject *d = nt_py_dtype_object(nt_tensor_dtype(nt_py_tensor(self)));
    Py_INCREF(d);
    return d;
}

static PyObject *get_layout(PyObject *self, void *closure) {
    PyObject *l = nt_py_strided();
    Py_INCREF(l);
    return l;
}

/* The attributes that have no autograd or device behind them yet: autograd does not exist,
 * so what would need it (requires_grad=True, assigning a gradient) raises
 * NotImplementedError after PyTorch's own checks. */
static PyObject *get_device(PyObject *self, void *closure) {
    PyObject *d = nt_py_cpu_device();
    Py_INCREF(d);
    return d;
}
static PyObject *get_false(PyObject *self, void *closure) {
    Py_RETURN_FALSE;
}
/* .data: a new tensor viewing the same memory, as detach() */
static PyObject *get_data(PyObject *self, void *closure) {
    nt_tensor *t = nt_py_tensor(self), *out = NULL;
    bool was = nt_set_grad_enabled(false);                 /* not recorded */
    nt_status st = nt_rename(t, nt_tensor_names(t), &out); /* before reading `out` */
    nt_set_grad_enabled(was);
    return nt_py_keep_subclass_of(nt_py_result(st, out), self, NULL);
}

/* t.data = other: t views other's memory, dtype, shape and names, and stays the same object
 * with its autograd state (a Parameter converted by Module.to keeps its identity and its
 * requires_grad): nt_tensor_set_data. */
static int set_data(PyObject *self, PyObject *value, void *closure) {
    if (!value) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Deleting tensor data is not allowed. Delete tensor instead!");
        return -1;
    }
    if (!nt_py_is_tensor(value)) {
        PyErr_Format(PyExc_TypeError, "Variable data has to be a tensor, but got %s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    nt_tensor *t = nt_py_tensor(self), *src = nt_py_tensor(value);
    if (nt_requires_grad(t) && !nt_dtype_is_floating(nt_tensor_dtype(src))) {
        PyErr_SetString(PyExc_RuntimeError, "data set to a tensor that requires gradients must be "
                                            "floating point or complex dtype");
        return -1;
    }
    nt_status st = nt_tensor_set_data(t, src);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

/* t.T and t.mT: the C views (nt_numpy_T warns as PyTorch does), their warning raised */
static PyObject *get_view(nt_status (*view)(nt_tensor *, nt_tensor **), PyObject *self) {
    nt_tensor *out = NULL;
    nt_status st = view(nt_py_tensor(self), &out); /* before reading `out` */
    PyObject *r = nt_py_keep_subclass_of(nt_py_result(st, out), self, NULL);
    if (r && nt_py_warn_pending() < 0) Py_CLEAR(r);
    return r;
}

static PyObject *get_T(PyObject *self, void *closure) {
    return get_view(nt_numpy_T, self);
}

static PyObject *get_mT(PyObject *self, void *closure) {
    return get_view(nt_matrix_T, self);
}

static PyGetSetDef tensor_getset[] = {
    {"T", get_T, NULL, "The tensor with its dims reversed (a view).", NULL},
    {"mT", get_mT, NULL, "The tensor with its last two dims swapped (a view).", NULL},
    {"names", get_names, set_names, "The name of each dim (str or None).", NULL},
    {"shape", get_shape, NULL, "The size of each dim, as a Size.", NULL},
    {"ndim", get_ndim, NULL, "The number of dims.", NULL},
    {"dims", nt_py_get_dims, NULL, "The first-class dims (ntensor.dim), a tuple.", NULL},
    {"_levels", nt_py_get_levels, NULL,
     "functorch.dim's levels: the dims and the positional dims (-1 the last) as they print.", NULL},
    {"dtype", get_dtype, NULL, "The element type.", NULL},
    {"layout", get_layout, NULL, "ntensor.strided: every tensor is strided.", NULL},
    {"device", get_device, NULL, "device(type='cpu').", NULL},
    {"is_cuda", get_false, NULL, "False.", NULL},
    {"is_sparse", get_false, NULL, "False.", NULL},
    {"is_quantized", get_false, NULL, "False.", NULL},
    {"is_meta", get_false, NULL, "False.", NULL},
    {"requires_grad", nt_py_get_requires_grad, nt_py_set_requires_grad,
     "Whether gradients are computed for this tensor.", NULL},
    {"is_leaf", nt_py_get_is_leaf, NULL, "Whether the tensor was not made by a recorded op.", NULL},
    {"grad", nt_py_get_grad, nt_py_set_grad, "The accumulated gradient (names as the tensor's).",
     NULL},
    {"grad_fn", nt_py_get_grad_fn, NULL, "The node that made the tensor, or None.", NULL},
    {"retains_grad", nt_py_get_retains_grad, NULL, "Whether a non-leaf keeps its grad.", NULL},
    {"data", get_data, set_data,
     "The tensor viewed without autograd history; assigning replaces what t views.", NULL},
    {"_version", nt_py_get_version, NULL, "The version counter (one per in-place write).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- size, stride ---- */

/* size() -> Size and stride() -> tuple; with a dim, the rows' entries (their one number). */
static PyObject *tensor_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    static fastcall_fn fn;
    nt_tensor *t = nt_py_tensor(self);
    if (nargs || kwnames) return nt_py_call_generated(&fn, "size", self, args, nargs, kwnames);
    return nt_py_size_new(nt_tensor_ndim(t), nt_tensor_sizes(t));
}

static PyObject *tensor_stride(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static fastcall_fn fn;
    nt_tensor *t = nt_py_tensor(self);
    if (nargs || kwnames) return nt_py_call_generated(&fn, "stride", self, args, nargs, kwnames);
    PyObject *strides = nt_py_size_new(nt_tensor_ndim(t), nt_tensor_strides(t));
    Py_XSETREF(strides, strides ? PySequence_Tuple(strides) : NULL);
    return strides;
}

static Py_ssize_t tensor_len(PyObject *self) {
    nt_tensor *t = nt_py_tensor(self);
    if (nt_tensor_ndim(t) == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)nt_tensor_sizes(t)[0];
}

/* copy.deepcopy(t), PyTorch's Tensor.__deepcopy__ for a leaf: a clone (values, dtype, names)
 * of t's own type (a subclass instance gets a deep copy of its __dict__), requiring grad as t
 * does, with t's grad deep-copied; memo maps id(t) to it. */
static PyObject *tensor_deepcopy(PyObject *self, PyObject *memo) {
    PyObject *key = PyLong_FromVoidPtr(self), *copy = NULL, *deepcopy = NULL, *attr = NULL;
    PyObject *module = NULL;
    if (!key) return NULL;
    if (PyDict_Check(memo) && (copy = PyDict_GetItemWithError(memo, key))) {
        Py_INCREF(copy);
        goto done;
    }
    if (PyErr_Occurred()) goto done;
    if (!(attr = PyObject_GetAttrString(self, "is_leaf"))) goto done;
    if (attr == Py_False) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Only Tensors created explicitly by the user (graph leaves) support the "
                        "deepcopy protocol at the moment");
        goto done;
    }
    Py_CLEAR(attr);
    bool was = nt_set_grad_enabled(false); /* a new leaf, not a node of t's graph */
    copy = PyObject_CallMethod(self, "clone", NULL);
    nt_set_grad_enabled(was);
    if (!copy) goto done;
    if (Py_TYPE(self) != &NtTensor_Type) {
        Py_SETREF(copy, PyObject_CallMethod((PyObject *)&NtTensor_Type, "_make_subclass", "OO",
                                            (PyObject *)Py_TYPE(self), copy));
        if (!copy) goto done;
    }
    if (PyDict_Check(memo) && PyDict_SetItem(memo, key, copy) < 0) goto fail;
    if (!(module = PyImport_ImportModule("copy")) ||
        !(deepcopy = PyObject_GetAttrString(module, "deepcopy")))
        goto fail;
    if (!(attr = PyObject_GetAttrString(self, "requires_grad"))) goto fail;
    if (attr == Py_True && PyObject_SetAttrString(copy, "requires_grad", Py_True) < 0) goto fail;
    Py_CLEAR(attr);
    if (!(attr = PyObject_GetAttrString(self, "grad"))) goto fail;
    if (attr != Py_None) {
        Py_SETREF(attr, PyObject_CallFunctionObjArgs(deepcopy, attr, memo, NULL));
        if (!attr || PyObject_SetAttrString(copy, "grad", attr) < 0) goto fail;
    }
    Py_CLEAR(attr);
    if (Py_TYPE(self) != &NtTensor_Type) { /* a subclass instance's attributes */
        PyObject *state = PyObject_GetAttrString(self, "__dict__");
        if (!state) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) goto fail;
            PyErr_Clear(); /* __slots__, no __dict__ */
        } else {
            if (PyDict_GET_SIZE(state))
                Py_SETREF(state, PyObject_CallFunctionObjArgs(deepcopy, state, memo, NULL));
            int rc = state ? PyObject_SetAttrString(copy, "__dict__", state) : -1;
            Py_XDECREF(state);
            if (rc < 0) goto fail;
        }
    }
    goto done;
fail:
    Py_CLEAR(copy);
done:
    Py_XDECREF(attr);
    Py_XDECREF(deepcopy);
    Py_XDECREF(module);
    Py_DECREF(key);
    return copy;
}

PyMethodDef nt_py_tensor_core_methods[] = {
    {"size", (PyCFunction)(void (*)(void))tensor_size, METH_FASTCALL | METH_KEYWORDS | METH_COEXIST,
     "size(dim=None): the Size, or the size of one dim (index or name)."},
    {"stride", (PyCFunction)(void (*)(void))tensor_stride,
     METH_FASTCALL | METH_KEYWORDS | METH_COEXIST,
     "stride(dim=None): the strides, or the stride of one dim (index or name)."},
    {"__deepcopy__", tensor_deepcopy, METH_O,
     "__deepcopy__(memo): a clone of the tensor (a leaf), of its type, with its grad copied."},
    {"_make_subclass", (PyCFunction)(void (*)(void))nt_py_make_subclass,
     METH_VARARGS | METH_KEYWORDS | METH_STATIC,
     "_make_subclass(cls, data, require_grad=False): an instance of cls aliasing data."},
    {NULL, NULL, 0, NULL},
};

/* iter(t): iter(t.unbind(0)), as PyTorch's Tensor.__iter__. */
static PyObject *tensor_iter(PyObject *self) {
    if (nt_tensor_ndim(nt_py_tensor(self)) == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d tensor");
        return NULL;
    }
    PyObject *parts = PyObject_CallMethod(self, "unbind", NULL);
    PyObject *it = parts ? PyObject_GetIter(parts) : NULL;
    Py_XDECREF(parts);
    return it;
}

PyNumberMethods nt_py_tensor_number_methods;

static PySequenceMethods tensor_as_sequence = {.sq_length = tensor_len};

PyTypeObject NtTensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor.Tensor",
    .tp_basicsize = sizeof(NtTensorObject),
    .tp_dealloc = tensor_dealloc,
    .tp_repr = tensor_repr,
    .tp_as_number = &nt_py_tensor_number_methods,
    .tp_as_sequence = &tensor_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A tensor whose dimensions may carry names.",
    .tp_weaklistoffset = offsetof(NtTensorObject, weakrefs),
    .tp_iter = tensor_iter,
    .tp_new = nt_py_tensor_new,
};

/* Joins the methods generated from the op table and the method tables of every family into
 * the type's one table, lets the families set their slots, and readies the type. */
int nt_py_tensor_type_init(PyObject *module) {
    size_t total = 0;
    for (PyMethodDef *m = nt_py_bindings_methods(); m && m->ml_name; m++)
        total++;
    for (const nt_py_family *f = nt_py_families; f->name; f++)
        for (PyMethodDef *m = f->tensor_methods; m && m->ml_name; m++)
            total++;
    PyMethodDef *all = PyMem_Calloc(total + 1, sizeof *all); /* lives as long as the type */
    if (!all) {
        PyErr_NoMemory();
        return -1;
    }
    size_t k = 0;
    for (PyMethodDef *m = nt_py_bindings_methods(); m && m->ml_name; m++)
        all[k++] = *m;
    for (const nt_py_family *f = nt_py_families; f->name; f++) {
        nt_py_fill_docs(f->tensor_methods, true);
        for (PyMethodDef *m = f->tensor_methods; m && m->ml_name; m++)
            all[k++] = *m;
    }
    NtTensor_Type.tp_methods = all;
    NtTensor_Type.tp_getset = tensor_getset;
    for (const nt_py_family *f = nt_py_families; f->name; f++)
        if (f->prepare && f->prepare(&NtTensor_Type) < 0) return -1;
    if (PyType_Ready(&NtTensor_Type) < 0) return -1;
    Py_INCREF(&NtTensor_Type);
    return PyModule_AddObject(module, "Tensor", (PyObject *)&NtTensor_Type);
}
