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
#include "bindings.h"
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

int nt_py_factory_flags(PyObject *requires_grad, PyObject *pin_memory, int *grad) {
    int rg = requires_grad ? PyObject_IsTrue(requires_grad) : 0;
    int pin = pin_memory ? PyObject_IsTrue(pin_memory) : 0;
    if (rg < 0 || pin < 0) return -1;
    *grad = rg;
    if (pin) {
        PyErr_SetString(PyExc_RuntimeError, "pin_memory=True needs a CUDA device");
        return -1;
    }
    return 0;
}

PyObject *nt_py_requires_grad(PyObject *result, int grad) {
    if (!result || !grad) return result;
    if (!nt_dtype_is_floating(nt_tensor_dtype(nt_py_tensor(result)))) { /* PyTorch's text here */
        Py_DECREF(result);
        PyErr_SetString(PyExc_RuntimeError,
                        "Only Tensors of floating point and complex dtype can require gradients");
        return NULL;
    }
    nt_status st = nt_set_requires_grad(nt_py_tensor(result), true);
    if (st == NT_OK) return result;
    Py_DECREF(result);
    return nt_py_raise(st);
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
    int grad;
    if (nt_py_check_device(kw[2]) < 0 || nt_py_factory_flags(kw[3], kw[4], &grad) < 0) return NULL;
    nt_name names[NT_MAX_DIMS];
    const nt_name *names_arg;
    nt_dtype dtype;
    nt_tensor *out = NULL;
    nt_status st;

    /* A tensor, an array or an object with __dlpack__ or __array__: one converting copy. */
    nt_tensor *src = NULL;
    int foreign = nt_py_is_tensor(data) ? 0 : nt_py_tensor_from_foreign(data, 0, &src);
    if (foreign < 0) return NULL;
    if (nt_py_is_tensor(data) || foreign) {
        if (!src) src = nt_tensor_retain(nt_py_tensor(data));
        if (nt_py_dtype_from_object(kw[1], nt_tensor_dtype(src), &dtype) < 0 ||
            named_data_names(src, kw[5], names, &names_arg) < 0) {
            nt_tensor_release(src);
            return NULL;
        }
        if (!names_arg) names_arg = nt_tensor_names(src);
        NT_PY_CALL_NOGIL(nt_tensor_numel(src), st, copy_as(src, dtype, names_arg, &out));
        nt_tensor_release(src);
        return nt_py_requires_grad(nt_py_result(st, out), grad);
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
    return nt_py_requires_grad(nt_py_wrap(out), grad);
}

PyObject *nt_py_tensor_of(PyObject *data) {
    return py_tensor(NULL, &data, 1, NULL);
}

PyObject *nt_py_tensor_of_dtype(PyObject *data, PyObject *dtype) {
    PyObject *args[2] = {data, dtype ? dtype : Py_None};
    PyObject *kwnames = Py_BuildValue("(s)", "dtype");
    PyObject *result = kwnames ? py_tensor(NULL, args, 1, kwnames) : NULL;
    Py_XDECREF(kwnames);
    return result;
}

/* ---- Tensor(...): PyTorch's legacy constructor, and Tensor._make_subclass ---- */

/* A view of t sharing its storage, sizes, strides and names (PyTorch's alias()). */
static nt_status alias_of(nt_tensor *t, nt_tensor **out) {
    return nt_rename(t, nt_tensor_names(t), out); /* a new view, names as they are */
}

/* Tensor(), Tensor(*sizes), Tensor(Size), Tensor(other), Tensor(data), each with device=
 * (the cpu): PyTorch's legacy constructor (legacy_tensor_ctor), bound by its signatures, for
 * Tensor and its subclasses. Sizes give an uninitialised tensor of the default dtype, other
 * an alias (dtype, names and memory kept), data (a sequence or an array; one tuple is data
 * unless a Size) a copy in the default dtype. */
PyObject *nt_py_tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static const char *const texts[] = {
        "new(*, Device? device=None)",
        "new(Storage storage)",
        "new(Tensor other)",
        "new(Tensor other, *, Device? device=None)|hidden",
        "new(IntArrayRef size, *, Device? device=None)",
        "new(PyObject* data, *, Device? device=None)",
    };
    static py_sig sigs[6];
    Py_ssize_t nargs = PyTuple_GET_SIZE(args), nkw = kwargs ? PyDict_GET_SIZE(kwargs) : 0, at = 0;
    PyObject **call = PyMem_Malloc((size_t)(nargs + nkw + 1) * sizeof *call);
    PyObject *kwnames = nkw ? PyTuple_New(nkw) : NULL, *key, *value, *v[2], *owned = NULL;
    PyObject *data = NULL, *result = NULL;
    if (!call || (nkw && !kwnames)) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) /* the vectorcall form the parser reads */
        call[i] = PyTuple_GET_ITEM(args, i);
    for (Py_ssize_t k = 0; kwargs && PyDict_Next(kwargs, &at, &key, &value); k++) {
        Py_INCREF(key);
        PyTuple_SET_ITEM(kwnames, k, key);
        call[nargs + k] = value;
    }
    int which = py_sigs_bind_texts(sigs, 6, texts, call, nargs, kwnames, v, &owned);
    int64_t sizes[NT_MAX_DIMS] = {0};
    int ndim = 1; /* new(): an empty tensor */
    nt_tensor *t = NULL;
    nt_status st = NT_OK;
    if (which < 0 || (which != 2 && nt_py_check_device(v[which == 0 ? 0 : 1]) < 0)) goto done;
    if (which == 2) {
        st = alias_of(nt_py_tensor(v[0]), &t);
    } else if (which == 3) {
        PyErr_SetString(
            PyExc_RuntimeError,
            "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) "
            "is not supported.  Use torch.tensor(...) or torch.as_tensor(...) instead.");
        goto done;
    } else if (which == 5 || (which == 4 && v[0] == call[0] && Py_TYPE(v[0]) != &NtSize_Type)) {
        data = v[0]; /* a sequence binds to sizes, yet is data unless a Size */
    } else if (which == 4 &&
               py_int_list(&sigs[4], &sigs[4].params[0], v[0], sizes, &ndim, NULL) < 0) {
        goto done;
    }
    if (which == 0 || (which == 4 && !data))
        st = nt_empty(ndim, sizes, nt_default_dtype(), NULL, &t);
    if (st != NT_OK) {
        nt_py_raise(st);
    } else if (t) {
        result = nt_py_wrap_as(type, t);
    } else if (!PySequence_Check(data) && !is_numpy(data)) { /* str: tensor()'s own error */
        PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)",
                     Py_TYPE(data)->tp_name);
    } else { /* tensor(data, dtype=<the default dtype>), as an object of `type` */
        PyObject *targs[2] = {data, nt_py_dtype_object(nt_default_dtype())};
        PyObject *dtype_kw = Py_BuildValue("(s)", "dtype");
        PyObject *made = dtype_kw ? py_tensor(NULL, targs, 1, dtype_kw) : NULL;
        Py_XDECREF(dtype_kw);
        if (!made || type == &NtTensor_Type) {
            result = made;
        } else { /* its wrapper goes first, then t is handed to an object of `type` */
            t = nt_tensor_retain(nt_py_tensor(made));
            Py_DECREF(made);
            result = nt_py_wrap_as(type, t);
        }
    }
done:
    PyMem_Free(call);
    Py_XDECREF(kwnames);
    Py_XDECREF(owned);
    return result;
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
    int grad;
    if (nt_py_factory_flags(require_grad, NULL, &grad) < 0) return NULL;
    nt_tensor *t = NULL;
    bool was = nt_set_grad_enabled(false); /* an alias without history, as detach() */
    nt_status st = alias_of(nt_py_tensor(data), &t);
    nt_set_grad_enabled(was);
    return st == NT_OK ? nt_py_requires_grad(nt_py_wrap_as((PyTypeObject *)cls, t), grad)
                       : nt_py_raise(st);
}

/* from_numpy(ndarray): a tensor sharing the array's memory. */
static PyObject *py_from_numpy(PyObject *m, PyObject *arg) {
    PyObject *ndarray = nt_py_numpy_ndarray_type();
    if (!ndarray || PyObject_IsInstance(arg, ndarray) != 1) {
        PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    nt_tensor *out;
    if (nt_py_tensor_from_buffer(arg, 1, &out) < 0) return NULL;
    return nt_py_wrap(out);
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_module_factory_functions[] = {
    {"tensor", FASTKW(py_tensor),
     "tensor(data, dtype=None, names=None): a copy of nested lists, a scalar, an array or a "
     "tensor."},
    {"from_numpy", py_from_numpy, METH_O,
     "from_numpy(ndarray): a tensor sharing the array's memory."},
    {NULL, NULL, 0, NULL},
};
