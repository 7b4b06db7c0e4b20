/*
 * convert.c — Tensor methods that read values or change the dtype: tolist, to, type, numpy
 * and __array__ (item, float/double/..., type_as, detach and cpu are rows), the number protocol
 * (__float__, __int__, __index__, __bool__), the buffer protocol, and register_hook, which
 * fails as PyTorch does on a tensor that does not require grad (no autograd yet).
 *
 * A conversion to the tensor's own dtype returns the same Python object, as in PyTorch.
 */
#include <string.h>

#include "arglists.h"
#include "interop.h"
#include "signature.h"

/* Wraps the result of a conversion; `out` == self's tensor gives self back. */
static PyObject *convert_result(PyObject *self, nt_status st, nt_tensor *out) {
    if (st != NT_OK) return nt_py_raise(st);
    if (out == nt_py_tensor(self)) {
        nt_tensor_release(out);
        Py_INCREF(self);
        return self;
    }
    return nt_py_wrap(out);
}

/* t converted to `dtype`; a new copy whatever the dtype when `copy`. */
static PyObject *convert(PyObject *self, nt_dtype dtype, int copy) {
    nt_tensor *t = nt_py_tensor(self), *out = NULL;
    nt_status st;
    NT_PY_CALL_NOGIL(nt_tensor_numel(t), st,
                     copy && dtype == nt_tensor_dtype(t) ? nt_clone(t, &out)
                                                         : nt_to_dtype(t, dtype, &out));
    return convert_result(self, st, out);
}

/* ---- values out ---- */

static PyObject *tolist_at(const char *p, nt_dtype dtype, int dim, int ndim, const int64_t *sizes,
                           const int64_t *byte_strides) {
    if (dim == ndim) return nt_py_scalar_to_object(nt_scalar_load(p, dtype));
    PyObject *list = PyList_New((Py_ssize_t)sizes[dim]);
    if (!list) return NULL;
    for (int64_t i = 0; i < sizes[dim]; i++) {
        PyObject *item =
            tolist_at(p + i * byte_strides[dim], dtype, dim + 1, ndim, sizes, byte_strides);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* tolist(): nested lists of bool/int/float; a 0-dim tensor gives the scalar itself. */
static PyObject *tensor_tolist(PyObject *self, PyObject *unused) {
    nt_tensor *t = nt_py_tensor(self);
    if (nt_py_refuse_levels(t, "tolist()") < 0) return NULL;
    nt_dtype dtype = nt_tensor_dtype(t);
    int ndim = nt_tensor_ndim(t);
    int64_t byte_strides[NT_MAX_DIMS];
    /* Only a dim of two or more elements is ever stepped along, and there the stride is
     * bounded by the storage; other strides may be anything (an empty view's). */
    for (int i = 0; i < ndim; i++)
        byte_strides[i] =
            nt_tensor_sizes(t)[i] > 1 ? nt_tensor_strides(t)[i] * (int64_t)nt_dtype_size(dtype) : 0;
    return tolist_at(nt_tensor_data(t), dtype, 0, ndim, nt_tensor_sizes(t), byte_strides);
}

/* The one value of a tensor for float()/int(), with PyTorch's error. */
static int one_value(PyObject *self, nt_scalar *out) {
    nt_tensor *t = nt_py_tensor(self);
    if (nt_tensor_numel(t) != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "only one element tensors can be converted to Python scalars");
        return -1;
    }
    nt_status st = nt_item(t, out);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

static PyObject *tensor_float_value(PyObject *self) {
    nt_scalar s;
    if (one_value(self, &s) < 0) return NULL;
    double v = s.kind == NT_SCALAR_FLOAT ? s.v.f : s.kind == NT_SCALAR_INT ? (double)s.v.i : s.v.b;
    return PyFloat_FromDouble(v);
}

static PyObject *tensor_int_value(PyObject *self) {
    nt_scalar s;
    if (one_value(self, &s) < 0) return NULL;
    if (s.kind == NT_SCALAR_FLOAT) return PyLong_FromDouble(s.v.f); /* NaN/inf: Python's errors */
    return PyLong_FromLongLong(s.kind == NT_SCALAR_INT ? s.v.i : s.v.b);
}

static PyObject *tensor_index_value(PyObject *self) {
    nt_tensor *t = nt_py_tensor(self);
    if (nt_tensor_numel(t) != 1 || nt_dtype_is_floating(nt_tensor_dtype(t))) {
        PyErr_SetString(PyExc_TypeError,
                        "only integer tensors of a single element can be converted to an index");
        return NULL;
    }
    return tensor_int_value(self);
}

/* bool(t): is_nonzero's truth and errors (src/ops/item.c). */
static int tensor_bool_value(PyObject *self) {
    bool b;
    nt_status st = nt_is_nonzero(nt_py_tensor(self), &b);
    return st == NT_OK ? b : nt_py_raise_int(st);
}

/* ---- dtype conversions ---- */

/* t.float(), t.double(), ... are generated from their rows (src/ops/to_dtype.c). */

/* to(device=None, dtype=None, non_blocking=False, copy=False) / to(dtype, ...) /
 * to(tensor, ...), bound by PyTorch's own signatures (so its texts); memory_format=None is
 * accepted. */
static PyObject *tensor_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    static const char *const texts[3] = {
        "to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, "
        "*, MemoryFormat? memory_format=None)",
        "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? "
        "memory_format=None)",
        "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, MemoryFormat? "
        "memory_format=None)"};
    static py_sig sigs[3];
    PyObject *v[NT_SIG_MAX_PARAMS], *owned;
    int which = py_sigs_bind_texts(sigs, 3, texts, args, nargs, kwnames, v, &owned);
    if (which < 0) return NULL;
    Py_XDECREF(owned);
    nt_dtype dtype = nt_tensor_dtype(nt_py_tensor(self));
    nt_scalar number;
    if (which == 2 && nt_py_is_tensor(v[0])) {
        dtype = nt_tensor_dtype(nt_py_tensor(v[0]));
    } else if (which == 2) { /* a number, which PyTorch wraps: float64, int64 or bool */
        if (nt_py_number(v[0], &number) < 0) return NULL;
        dtype = number.kind == NT_SCALAR_BOOL  ? NT_BOOL
                : number.kind == NT_SCALAR_INT ? NT_INT64
                                               : NT_FLOAT64;
    } else if ((which == 0 && nt_py_check_device(v[0]) < 0) || /* dtype: to(device, dtype) */
               nt_py_dtype_from_object(which == 0 ? v[1] : v[0], dtype, &dtype) < 0) {
        return NULL;
    }
    return convert(self, dtype, v[which == 0 ? 3 : 2] == Py_True);
}

const char *const nt_py_legacy_type_names[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "torch.BoolTensor",     [NT_UINT8] = "torch.ByteTensor",
    [NT_INT8] = "torch.CharTensor",     [NT_INT16] = "torch.ShortTensor",
    [NT_INT32] = "torch.IntTensor",     [NT_INT64] = "torch.LongTensor",
    [NT_FLOAT16] = "torch.HalfTensor",  [NT_BFLOAT16] = "torch.BFloat16Tensor",
    [NT_FLOAT32] = "torch.FloatTensor", [NT_FLOAT64] = "torch.DoubleTensor",
};

/* type() -> 'torch.FloatTensor'; type(dtype or 'torch.DoubleTensor') -> converted. */
static PyObject *tensor_type(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    static const char *const kwlist[] = {"dtype", "non_blocking", NULL};
    PyObject *kw[2];
    if (nt_py_parse_args("type", args, nargs, kwnames, kwlist, 2, 0, kw) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self);
    if (!kw[0] || kw[0] == Py_None)
        return PyUnicode_FromString(nt_py_legacy_type_names[nt_tensor_dtype(t)]);
    if (PyUnicode_Check(kw[0])) {
        for (int d = 0; d < NT_DTYPE_COUNT; d++)
            if (PyUnicode_CompareWithASCIIString(kw[0], nt_py_legacy_type_names[d]) == 0)
                return convert(self, (nt_dtype)d, 0);
        PyErr_Format(PyExc_ValueError, "invalid type: %R", kw[0]);
        return NULL;
    }
    nt_dtype dtype;
    if (nt_py_dtype_from_object(kw[0], NT_FLOAT32, &dtype) < 0) return NULL;
    return convert(self, dtype, 0);
}

/* ---- identity-like methods ---- */

/* ---- NumPy ---- */

/* numpy(force=False): an ndarray sharing the tensor's memory (names are dropped). */
static PyObject *tensor_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"force", NULL};
    PyObject *kw[1];
    if (nt_py_parse_args("numpy", args, nargs, kwnames, kwlist, 0, 0, kw) < 0) return NULL;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return NULL;
    PyObject *view = PyMemoryView_FromObject(self); /* our buffer; errors for bfloat16 */
    PyObject *array = view ? PyObject_CallMethod(np, "asarray", "O", view) : NULL;
    Py_XDECREF(view);
    Py_DECREF(np);
    return array;
}

/* __array__(dtype=None): what numpy.asarray falls back to. */
static PyObject *tensor_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"dtype", NULL};
    PyObject *kw[1];
    if (nt_py_parse_args("__array__", args, nargs, kwnames, kwlist, 1, 0, kw) < 0) return NULL;
    PyObject *array = tensor_numpy(self, NULL, 0, NULL);
    if (!array || !kw[0] || kw[0] == Py_None) return array;
    PyObject *kwargs = Py_BuildValue("{s:O}", "copy", Py_False);
    PyObject *astype = PyObject_GetAttrString(array, "astype");
    PyObject *targs = PyTuple_Pack(1, kw[0]);
    PyObject *result = kwargs && astype && targs ? PyObject_Call(astype, targs, kwargs) : NULL;
    Py_XDECREF(kwargs);
    Py_XDECREF(astype);
    Py_XDECREF(targs);
    Py_DECREF(array);
    return result;
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_tensor_convert_methods[] = {
    {"tolist", tensor_tolist, METH_NOARGS, "The values as nested lists (a scalar for 0-dim)."},
    {"to", FASTKW(tensor_to),
     "to(dtype) / to(device, dtype) / to(other): converted (self when nothing changes)."},
    {"type", FASTKW(tensor_type),
     "type(): 'torch.FloatTensor' etc.; type(dtype or type name): converted."},
    {"numpy", FASTKW(tensor_numpy), "numpy(force=False): an ndarray sharing the memory."},
    {"__array__", FASTKW(tensor_array), "__array__(dtype=None): for numpy.asarray."},
    {NULL, NULL, 0, NULL},
};

/* The buffer protocol and the number slots of float()/int()/bool()/operator.index; before
 * PyType_Ready(Tensor), which makes __float__, __int__, __index__ and __bool__ of them. */
int nt_py_convert_prepare(PyTypeObject *type) {
    type->tp_as_buffer = &nt_py_tensor_buffer_procs;
    type->tp_as_number->nb_float = tensor_float_value;
    type->tp_as_number->nb_int = tensor_int_value;
    type->tp_as_number->nb_index = tensor_index_value;
    type->tp_as_number->nb_bool = tensor_bool_value;
    return 0;
}
