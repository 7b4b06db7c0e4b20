/*
 * factories.c — the module's tensor factories that are not generated from the op table:
 * tensor, manual_seed, from_numpy, and Tensor's
 * legacy constructor (Tensor(...), Tensor._make_subclass). empty, zeros, ones, full, arange,
 * rand, randn, normal and the *_like forms are generated from their rows (bindings.c).
 *
 * Arguments, dtype inference and error texts follow PyTorch 1.13. Fills of more than
 * NT_PY_NOGIL_NUMEL elements run with the GIL released. tensor() reads nested sequences the way
 * PyTorch does: the shape from the first element of each level, the dtype from every
 * element (promoted), then one checked store per element.
 */
#include "arglists.h"
#include "interop.h"

/* Reads names= for a tensor of `ndim` dims: NULL/None gives *out = NULL. 0 or -1. */
static int read_names_arg(PyObject *o, const char *fname, int ndim, nt_name *buf,
                          const nt_name **out) {
    *out = NULL;
    if (!o || o == Py_None) return 0;
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'names' must be tuple of names, not %s",
                     fname, Py_TYPE(o)->tp_name);
        return -1;
    }
    int count;
    if (nt_py_names_from_sequence(o, buf, &count, -1) < 0) return -1;
    nt_status st = nt_names_check_for(ndim, count, buf);
    if (st != NT_OK) return nt_py_raise_int(st);
    *out = buf;
    return 0;
}

int nt_py_check_no_grad(PyObject *requires_grad, PyObject *pin_memory) {
    int rg = requires_grad ? PyObject_IsTrue(requires_grad) : 0;
    int pin = pin_memory ? PyObject_IsTrue(pin_memory) : 0;
    if (rg < 0 || pin < 0) return -1;
    if (rg) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "requires_grad=True: ntensor has no autograd yet");
        return -1;
    }
    if (pin) {
        PyErr_SetString(PyExc_RuntimeError, "pin_memory=True needs a CUDA device");
        return -1;
    }
    return 0;
}

/* ---- tensor(data) ---- */

static int is_text(PyObject *o) {
    return PyUnicode_Check(o) || PyBytes_Check(o);
}

static int is_numpy(PyObject *o) {
    PyObject *generic = nt_py_numpy_generic_type(), *ndarray = nt_py_numpy_ndarray_type();
    return generic &&
           (PyObject_IsInstance(o, generic) == 1 || PyObject_IsInstance(o, ndarray) == 1);
}

/* PyTorch's infer_scalar_type: the dtype of one element, or the promoted dtype of all the
 * elements of a sequence (the default dtype for an empty one). */
static int infer_dtype(PyObject *o, nt_dtype *out, int depth) {
    if (PyFloat_CheckExact(o)) {
        *out = nt_default_dtype();
        return 0;
    }
    if (PyLong_CheckExact(o)) {
        *out = NT_INT64;
        return 0;
    }
    if (PyBool_Check(o)) {
        *out = NT_BOOL;
        return 0;
    }
    if (nt_py_is_tensor(o)) {
        *out = nt_tensor_dtype(nt_py_tensor(o));
        return 0;
    }
    if (is_numpy(o)) return nt_py_numpy_dtype_of(o, out);
    if (PyFloat_Check(o)) {
        *out = nt_default_dtype();
        return 0;
    }
    if (PyLong_Check(o)) {
        *out = NT_INT64;
        return 0;
    }
    if (is_text(o) || PyComplex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(o)->tp_name);
        return -1;
    }
    if (PySequence_Check(o)) {
        if (depth > NT_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "too many dimensions '%s'", Py_TYPE(o)->tp_name);
            return -1;
        }
        PyObject *fast = PySequence_Fast(o, "not a sequence");
        if (!fast) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        PyObject **items = PySequence_Fast_ITEMS(fast);
        int rc = 0;
        *out = nt_default_dtype();
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            nt_dtype d;
            if (items[i] == o) {
                PyErr_SetString(PyExc_TypeError, "new(): self-referential lists are incompatible");
                rc = -1;
            } else if ((rc = infer_dtype(items[i], &d, depth + 1)) == 0) {
                *out = i == 0 ? d : nt_promote_types(*out, d);
            }
        }
        Py_DECREF(fast);
        return rc;
    }
    PyErr_Format(PyExc_RuntimeError, "Could not infer dtype of %s", Py_TYPE(o)->tp_name);
    return -1;
}

/* PyTorch's compute_sizes: follows the first element of each level. Returns ndim or -1. */
static int compute_sizes(PyObject *data, int64_t *sizes) {
    int ndim = 0;
    PyObject *seq = data;
    Py_INCREF(seq);
    while (!nt_py_is_tensor(seq) && PySequence_Check(seq)) {
        Py_ssize_t len = PySequence_Length(seq);
        if (len < 0) goto fail;
        if (ndim == NT_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "too many dimensions '%s'", Py_TYPE(seq)->tp_name);
            goto fail;
        }
        sizes[ndim++] = len;
        if (len == 0) break;
        PyObject *item = PySequence_GetItem(seq, 0);
        if (!item) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "could not determine the shape of object type '%s'",
                         Py_TYPE(seq)->tp_name);
            goto fail;
        }
        Py_DECREF(seq);
        seq = item;
    }
    Py_DECREF(seq);
    return ndim;
fail:
    Py_DECREF(seq);
    return -1;
}

static int overflow_error(nt_dtype d) {
    PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                 nt_dtype_name(d));
    return -1;
}

/* PyTorch's store_scalar: integers are range-checked (a float is truncated; uint8 takes
 * -255..255, wrapping), floats are rounded, bool is truthiness. */
static int store_leaf(char *p, nt_dtype d, PyObject *o) {
    if (d == NT_BOOL) {
        if (PyFloat_Check(o)) {
            *(uint8_t *)p = PyFloat_AS_DOUBLE(o) != 0.0;
            return 0;
        }
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred()) return -1;
        *(uint8_t *)p = overflow || v != 0;
        return 0;
    }
    if (nt_dtype_is_floating(d)) {
        double f = PyFloat_AsDouble(o);
        if (f == -1.0 && PyErr_Occurred()) return -1;
        nt_scalar_store(p, d, nt_scalar_float(f));
        return 0;
    }
    nt_scalar v = nt_scalar_float(PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : 0.0);
    if (!PyFloat_Check(o)) {
        int overflow;
        long long i = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (i == -1 && PyErr_Occurred()) return -1;
        if (overflow) {
            PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            return -1;
        }
        v = nt_scalar_int(i);
    }
    if (!nt_scalar_fits(v, d)) return overflow_error(d); /* c10's checked_convert */
    nt_scalar_store(p, d, v);
    return 0;
}

/* PyTorch's recursive_store into a contiguous buffer. */
static int store_data(PyObject *o, int dim, int ndim, const int64_t *sizes,
                      const int64_t *byte_strides, char *p, nt_dtype d) {
    if (dim == ndim) return store_leaf(p, d, o);
    PyObject *fast = PySequence_Fast(o, "not a sequence");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int rc = 0;
    if (n != sizes[dim]) {
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %lld)",
                     (long long)sizes[dim], dim, (long long)n);
        rc = -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n && rc == 0; i++)
        rc = store_data(items[i], dim + 1, ndim, sizes, byte_strides, p + i * byte_strides[dim], d);
    Py_DECREF(fast);
    return rc;
}

/* A new contiguous tensor of `dtype` with the values of `src` (any dtype and strides). */
static nt_status copy_as(nt_tensor *src, nt_dtype dtype, const nt_name *names, nt_tensor **out) {
    nt_tensor *unnamed = NULL, *dst = NULL;
    nt_status st = nt_rename(src, NULL, &unnamed); /* copy values only: names come after */
    if (st == NT_OK) st = nt_empty(nt_tensor_ndim(src), nt_tensor_sizes(src), dtype, NULL, &dst);
    if (st == NT_OK) st = nt_copy_(dst, unnamed);
    if (st == NT_OK && names) st = nt_set_names_(dst, names);
    nt_tensor_release(unnamed);
    if (st != NT_OK) {
        nt_tensor_release(dst);
        return st;
    }
    *out = dst;
    return NT_OK;
}

/* names= of tensor(data) when data is a tensor: PyTorch propagates them to the copy as to
 * an out= tensor, so a named data tensor must have exactly those names (the "Name mismatch"
 * error, data being the out tensor); an unnamed one takes them (their count checked). */
static int named_data_names(nt_tensor *src, PyObject *o, nt_name *buf, const nt_name **out) {
    int ndim = nt_tensor_ndim(src);
    if (!nt_tensor_has_names(src) || !o || o == Py_None || (!PyTuple_Check(o) && !PyList_Check(o)))
        return read_names_arg(o, "tensor", ndim, buf, out);
    int count;
    if (nt_py_names_from_sequence(o, buf, &count, -1) < 0) return -1;
    nt_status st = nt_names_check_result(nt_tensor_names(src), ndim, buf, count);
    if (st != NT_OK) return nt_py_raise_int(st);
    *out = buf;
    return 0;
}

/* tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False,
 * names=None): always a copy. */
static PyObject *py_tensor(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    static const char *const kwlist[] = {"data",       "dtype", "device", "requires_grad",
                                         "pin_memory", "names", NULL};
    PyObject *kw[6];
    if (nt_py_parse_args("tensor", args, nargs, kwnames, kwlist, 1, 0, kw) < 0) return NULL;
    PyObject *data = kw[0];
    if (!data) {
        PyErr_SetString(PyExc_TypeError, "tensor() missing 1 required positional arguments: "
                                         "\"data\"");
        return NULL;
    }
    if (nt_py_check_device(kw[2]) < 0 || nt_py_check_no_grad(kw[3], kw[4]) < 0) return NULL;
    nt_name names[NT_MAX_DIMS];
    const nt_name *names_arg;
    nt_dtype dtype;
    nt_tensor *out = NULL;
    nt_status st;

    /* A tensor or an array: one converting copy. */
    PyObject *ndarray = nt_py_numpy_ndarray_type();
    if (nt_py_is_tensor(data) || (ndarray && PyObject_IsInstance(data, ndarray) == 1)) {
        nt_tensor *src;
        if (nt_py_is_tensor(data)) {
            src = nt_tensor_retain(nt_py_tensor(data));
        } else if (nt_py_tensor_from_buffer(data, &src) < 0) {
            return NULL;
        }
        if (nt_py_dtype_from_object(kw[1], nt_tensor_dtype(src), &dtype) < 0 ||
            named_data_names(src, kw[5], names, &names_arg) < 0) {
            nt_tensor_release(src);
            return NULL;
        }
        if (!names_arg) names_arg = nt_tensor_names(src);
        NT_PY_CALL_NOGIL(nt_tensor_numel(src), st, copy_as(src, dtype, names_arg, &out));
        nt_tensor_release(src);
        return nt_py_result(st, out);
    }

    /* Python data: shape from the first elements, dtype from all of them. */
    if (is_text(data)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(data)->tp_name);
        return NULL;
    }
    int64_t sizes[NT_MAX_DIMS];
    int ndim = compute_sizes(data, sizes);
    if (ndim < 0) return NULL;
    if (kw[1] && kw[1] != Py_None) {
        if (nt_py_dtype_from_object(kw[1], NT_FLOAT32, &dtype) < 0) return NULL;
    } else if (infer_dtype(data, &dtype, 0) < 0) {
        return NULL;
    }
    if (read_names_arg(kw[5], "tensor", ndim, names, &names_arg) < 0) return NULL;
    st = nt_empty(ndim, sizes, dtype, names_arg, &out);
    if (st != NT_OK) return nt_py_raise(st);
    if (nt_tensor_numel(out) != 0) {
        int64_t byte_strides[NT_MAX_DIMS];
        for (int i = 0; i < ndim; i++)
            byte_strides[i] = nt_tensor_strides(out)[i] * (int64_t)nt_dtype_size(dtype);
        if (store_data(data, 0, ndim, sizes, byte_strides, nt_tensor_data(out), dtype) < 0) {
            nt_tensor_release(out);
            return NULL;
        }
    }
    return nt_py_wrap(out);
}

/* ---- Tensor(...): PyTorch's legacy constructor, and Tensor._make_subclass ---- */

/* `t` (owned) as an instance of `type` (Tensor or a subclass). */
static PyObject *wrap_as(PyTypeObject *type, nt_tensor *t) {
    if (type == &NtTensor_Type) return nt_py_wrap(t);
    NtTensorObject *self = (NtTensorObject *)type->tp_alloc(type, 0);
    if (!self) {
        nt_tensor_release(t);
        return NULL;
    }
    self->t = t;
    if (!nt_tensor_handle(t)) nt_tensor_set_handle(t, self);
    return (PyObject *)self;
}

/* A view of t sharing its storage, sizes, strides and names (PyTorch's alias()). */
static nt_status alias_of(nt_tensor *t, nt_tensor **out) {
    return nt_rename(t, nt_tensor_names(t), out); /* a new view, names as they are */
}

static const char LEGACY_SIGS[] = " * (*, torch.device device)\n"
                                  " * (torch.Storage storage)\n"
                                  " * (Tensor other)\n"
                                  " * (tuple of ints size, *, torch.device device)\n"
                                  " * (object data, *, torch.device device)\n";

static PyObject *legacy_invalid(PyObject *args, PyObject *kwargs) {
    PyObject *parts = PyList_New(0), *key, *value;
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; parts && i < PyTuple_GET_SIZE(args); i++) {
        PyObject *s = PyUnicode_FromString(Py_TYPE(PyTuple_GET_ITEM(args, i))->tp_name);
        if (!s || PyList_Append(parts, s) < 0) Py_CLEAR(parts);
        Py_XDECREF(s);
    }
    while (parts && kwargs && PyDict_Next(kwargs, &pos, &key, &value)) {
        const char *tn = Py_TYPE(value) == &NtDtype_Type ? "torch.dtype" : Py_TYPE(value)->tp_name;
        PyObject *s = PyUnicode_FromFormat("%U=%s", key, tn);
        if (!s || PyList_Append(parts, s) < 0) Py_CLEAR(parts);
        Py_XDECREF(s);
    }
    PyObject *sep = parts ? PyUnicode_FromString(", ") : NULL;
    PyObject *got = sep ? PyUnicode_Join(sep, parts) : NULL;
    if (got)
        PyErr_Format(PyExc_TypeError,
                     "new() received an invalid combination of arguments - got (%U), but "
                     "expected one of:\n%s",
                     got, LEGACY_SIGS);
    Py_XDECREF(got);
    Py_XDECREF(sep);
    Py_XDECREF(parts);
    return NULL;
}

/* Tensor(), Tensor(*sizes), Tensor(Size), Tensor(other), Tensor(data), each with device=
 * (the cpu): torch.Tensor's legacy constructor, for Tensor and its subclasses. Sizes give
 * an uninitialised tensor of the default dtype, other an alias (dtype, names and memory
 * kept), data (a sequence or an array, not a tuple mistaken for sizes) a copy in the
 * default dtype. */
PyObject *nt_py_tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (kwargs && PyDict_GET_SIZE(kwargs) > 0) {
        PyObject *device = PyDict_GetItemString(kwargs, "device");
        if (!device || PyDict_GET_SIZE(kwargs) > 1) return legacy_invalid(args, kwargs);
        if (nargs == 1 && nt_py_is_tensor(PyTuple_GET_ITEM(args, 0)))
            return legacy_invalid(args, kwargs);
        if (nt_py_check_device(device) < 0) return NULL;
    }
    nt_tensor *t = NULL;
    nt_status st;
    PyObject *first = nargs > 0 ? PyTuple_GET_ITEM(args, 0) : NULL;
    if (nargs == 0) {
        int64_t zero = 0;
        st = nt_empty(1, &zero, nt_default_dtype(), NULL, &t);
        return st == NT_OK ? wrap_as(type, t) : nt_py_raise(st);
    }
    if (nargs == 1 && nt_py_is_tensor(first)) {
        st = alias_of(nt_py_tensor(first), &t);
        return st == NT_OK ? wrap_as(type, t) : nt_py_raise(st);
    }
    bool sizes_given = nargs == 1 && PyObject_TypeCheck(first, &NtSize_Type);
    for (Py_ssize_t i = 0; !sizes_given && i < nargs; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if (!PyIndex_Check(a) || PyBool_Check(a) || PySequence_Check(a) || nt_py_is_tensor(a))
            break;
        if (i == nargs - 1) sizes_given = true;
    }
    if (sizes_given) {
        int64_t sizes[NT_MAX_DIMS];
        PyObject *const *items = &PyTuple_GET_ITEM(args, 0);
        int ndim = nt_py_int_list("new", "size", 1, "SymInts", items, nargs, sizes);
        if (ndim < 0) return NULL;
        st = nt_empty(ndim, sizes, nt_default_dtype(), NULL, &t);
        return st == NT_OK ? wrap_as(type, t) : nt_py_raise(st);
    }
    if (nargs != 1) return legacy_invalid(args, kwargs);
    if (is_text(first)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(first)->tp_name);
        return NULL;
    }
    PyObject *ndarray = nt_py_numpy_ndarray_type();
    if (!PySequence_Check(first) && !(ndarray && PyObject_IsInstance(first, ndarray) == 1)) {
        PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)",
                     Py_TYPE(first)->tp_name);
        return NULL;
    }
    /* tensor(data, dtype=<the default dtype>) */
    PyObject *call[2] = {first, nt_py_dtype_object(nt_default_dtype())};
    PyObject *kwnames = Py_BuildValue("(s)", "dtype");
    PyObject *made = kwnames ? py_tensor(NULL, call, 1, kwnames) : NULL;
    Py_XDECREF(kwnames);
    if (!made) return NULL;
    if (type == &NtTensor_Type) return made;
    t = nt_tensor_retain(nt_py_tensor(made));
    Py_DECREF(made); /* its wrapper goes; t is handed to an object of `type` */
    return wrap_as(type, t);
}

/* Tensor._make_subclass(cls, data, require_grad=False): an instance of cls (a subclass of
 * Tensor) aliasing data, as nn.Parameter is made. */
PyObject *nt_py_make_subclass(PyObject *unused, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {
        "cls", "data", "require_grad", "dispatch_strides", "dispatch_device", "dispatch_layout",
        NULL};
    PyObject *cls, *data, *require_grad = NULL, *d1 = NULL, *d2 = NULL, *d3 = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOO:_make_subclass", kwlist, &cls, &data,
                                     &require_grad, &d1, &d2, &d3))
        return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &NtTensor_Type)) {
        PyErr_Format(PyExc_TypeError, "cls must be a type (got %s)", Py_TYPE(cls)->tp_name);
        return NULL;
    }
    if (!nt_py_is_tensor(data)) {
        PyErr_Format(PyExc_TypeError, "data must be a Tensor (got %s)", Py_TYPE(data)->tp_name);
        return NULL;
    }
    if (nt_py_check_no_grad(require_grad, NULL) < 0) return NULL;
    nt_tensor *t = NULL;
    nt_status st = alias_of(nt_py_tensor(data), &t);
    return st == NT_OK ? wrap_as((PyTypeObject *)cls, t) : nt_py_raise(st);
}

/* from_numpy(ndarray): a tensor sharing the array's memory. */
static PyObject *py_from_numpy(PyObject *m, PyObject *arg) {
    PyObject *ndarray = nt_py_numpy_ndarray_type();
    if (!ndarray || PyObject_IsInstance(arg, ndarray) != 1) {
        PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    nt_tensor *out;
    if (nt_py_tensor_from_buffer(arg, &out) < 0) return NULL;
    return nt_py_wrap(out);
}

/* manual_seed(seed): like PyTorch, int(seed), negative values wrap to uint64. Returns None
 * (PyTorch returns its Generator). */
static PyObject *py_manual_seed(PyObject *m, PyObject *arg) {
    PyObject *as_int = PyNumber_Long(arg);
    if (!as_int) return NULL;
    unsigned long long seed = PyLong_AsUnsignedLongLong(as_int);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
            Py_DECREF(as_int);
            return NULL;
        }
        PyErr_Clear();
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(as_int, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            Py_DECREF(as_int);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            return NULL;
        }
        seed = (unsigned long long)v;
    }
    Py_DECREF(as_int);
    nt_manual_seed((uint64_t)seed);
    Py_RETURN_NONE;
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_module_factory_functions[] = {
    {"tensor", FASTKW(py_tensor),
     "tensor(data, dtype=None, names=None): a copy of nested lists, a scalar, an array or a "
     "tensor."},
    {"from_numpy", py_from_numpy, METH_O,
     "from_numpy(ndarray): a tensor sharing the array's memory."},
    {"manual_seed", py_manual_seed, METH_O,
     "manual_seed(seed): seeds the random generator (returns None)."},
    {NULL, NULL, 0, NULL},
};
