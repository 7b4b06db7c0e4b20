/*
 * views.c — the view methods of Tensor (transpose, t, permute, expand, expand_as, squeeze,
 * unsqueeze, select, narrow, view, reshape, as_strided) and contiguous/clone, plus the
 * module functions PyTorch has for them (torch.transpose, torch.permute, ...).
 *
 * Every dim argument accepts an index or a name. Arguments are parsed directly (no generic
 * matcher on the hot path); a call that fits no form fails with PyTorch's parser text,
 * rebuilt by arglists.c. Copies (contiguous, clone, a reshape that cannot be a view) run
 * without the GIL when they are large.
 */
#include "arglists.h"

/* A dim argument: an int (wrapped) or a name (resolved). None is PyTorch's "look up by
 * name" error. Returns 0 or -1. */
static int view_dim(nt_tensor *t, PyObject *o, int64_t *out) {
    if (o == Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "Please look up dimensions by name, got: name = None.");
        return -1;
    }
    return nt_py_dim_from_object(t, o, out);
}

static int is_dim(PyObject *o) {
    return nt_py_is_int(o) || PyUnicode_Check(o);
}

/* An int argument that may also come as a one-element integral Tensor. */
static int int_or_tensor(PyObject *o, int64_t *out) {
    if (nt_py_is_tensor(o)) {
        nt_scalar s;
        nt_tensor *t = nt_py_tensor(o);
        nt_status st = nt_tensor_ndim(t) == 0 ? nt_item(t, &s) : NT_OK;
        if (st != NT_OK) return nt_py_raise_int(st);
        if (nt_tensor_ndim(t) != 0 || s.kind != NT_SCALAR_INT) {
            PyErr_SetString(PyExc_RuntimeError, "start must be an 0-dim integral Tensor.");
            return -1;
        }
        *out = s.v.i;
        return 0;
    }
    return nt_py_int64_from_object(o, out, "index");
}

static int is_int_or_tensor(PyObject *o) {
    return nt_py_is_int(o) || (nt_py_is_tensor(o) && nt_tensor_numel(nt_py_tensor(o)) == 1);
}

static PyObject *positional_only(const char *fname, Py_ssize_t nargs, PyObject *kwnames,
                                 PyObject *const *args) {
    if (nargs > 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes 0 positional arguments but %zd %s given", fname,
                     nargs, nargs == 1 ? "was" : "were");
        return NULL;
    }
    static const char *const kwlist[] = {"memory_format", NULL};
    PyObject *v[1];
    if (nt_py_parse_args(fname, args, 0, kwnames, kwlist, 0, v) < 0) return NULL;
    return Py_None; /* borrowed: only a success marker */
}

/* ---- transpose, t, permute ---- */

static const nt_py_signature transpose_sigs[] = {
    {2, 2, {{NT_PY_ARG_INT, "dim0"}, {NT_PY_ARG_INT, "dim1"}}},
    {2, 2, {{NT_PY_ARG_NAME, "dim0"}, {NT_PY_ARG_NAME, "dim1"}}},
};

static PyObject *tensor_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    static const char *const kwlist[] = {"dim0", "dim1", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("transpose", args, nargs, kwnames, kwlist, 2, v) < 0 || !v[0] || !v[1] ||
        !(is_dim(v[0]) || v[0] == Py_None) || !(is_dim(v[1]) || v[1] == Py_None) ||
        (v[0] == Py_None && !PyUnicode_Check(v[1])) ||
        (v[1] == Py_None && !PyUnicode_Check(v[0]))) {
        PyErr_Clear();
        return nt_py_invalid_combination("transpose", args, nargs, kwnames, transpose_sigs, 2);
    }
    nt_tensor *t = nt_py_tensor(self), *out;
    int64_t d0, d1;
    if (view_dim(t, v[0], &d0) < 0 || view_dim(t, v[1], &d1) < 0) return NULL;
    return nt_py_result_of(nt_transpose(t, d0, d1, &out), &out);
}

static PyObject *tensor_t(PyObject *self, PyObject *unused) {
    nt_tensor *out;
    return nt_py_result_of(nt_t(nt_py_tensor(self), &out), &out);
}

/* permute(*dims) or permute(dims): ints (wrapped by the C API, which checks the count
 * first, as PyTorch does) or names. */
static PyObject *tensor_permute(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    nt_tensor *t = nt_py_tensor(self), *out;
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    PyObject *container = nargs > 0 ? args[0] : NULL;
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
        static const char *const kwlist[] = {"dims", NULL};
        PyObject *v[1];
        if (nt_py_parse_args("permute", args, nargs, kwnames, kwlist, nargs ? 1 : 0, v) < 0)
            return NULL;
        if (nargs > 0) {
            PyErr_SetString(PyExc_TypeError, "permute() got multiple values for argument 'dims'");
            return NULL;
        }
        container = v[0];
        items = &container;
        n = 1;
    }
    if (n == 0) return nt_py_missing_args("permute", 1, (const char *const[]){"dims"});
    if (n == 1 && (PyTuple_Check(items[0]) || PyList_Check(items[0]))) {
        container = items[0];
        n = PySequence_Fast_GET_SIZE(container);
        items = PySequence_Fast_ITEMS(container);
    }
    if (n > NT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "permute(): too many dims: %zd", n);
        return NULL;
    }
    int64_t dims[NT_MAX_DIMS];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_Check(items[i])) {
            if (view_dim(t, items[i], &dims[i]) < 0) return NULL;
            continue;
        }
        if (!nt_py_is_int(items[i])) {
            if (i == 0)
                PyErr_Format(PyExc_TypeError,
                             "permute(): argument 'dims' (position 1) must be tuple of ints, not "
                             "%s",
                             nt_py_type_name(container));
            else
                PyErr_Format(PyExc_TypeError,
                             "permute(): argument 'dims' must be tuple of ints, but found element "
                             "of type %s at pos %zd",
                             nt_py_type_name(items[i]), i + 1);
            return NULL;
        }
        if (nt_py_int64_from_object(items[i], &dims[i], "dims") < 0) return NULL;
    }
    return nt_py_result_of(nt_permute(t, (int)n, dims, &out), &out);
}

/* ---- expand, expand_as ---- */

static PyObject *tensor_expand(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    PyObject *size_kw = NULL;
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
        static const char *const kwlist[] = {"size", "implicit", NULL};
        PyObject *v[2];
        if (nt_py_parse_args("expand", args + nargs, 0, kwnames, kwlist, 0, v) < 0) return NULL;
        if (v[0] && nargs > 0) {
            PyErr_SetString(PyExc_TypeError, "expand() got multiple values for argument 'size'");
            return NULL;
        }
        size_kw = v[0];
    }
    if (nargs == 0 && !size_kw) return nt_py_missing_args("expand", 1, (const char *const[]){"size"});
    int64_t sizes[NT_MAX_DIMS];
    int n = size_kw ? nt_py_int_list("expand", "size", 1, "SymInts", &size_kw, 1, sizes)
                    : nt_py_int_list("expand", "size", 1, "SymInts", args, nargs, sizes);
    if (n < 0) return NULL;
    nt_tensor *out;
    return nt_py_result_of(nt_expand(nt_py_tensor(self), n, sizes, &out), &out);
}

static PyObject *tensor_expand_as(PyObject *self, PyObject *other) {
    if (!nt_py_is_tensor(other)) {
        PyErr_Format(PyExc_TypeError,
                     "expand_as(): argument 'other' (position 1) must be Tensor, not %s",
                     nt_py_type_name(other));
        return NULL;
    }
    nt_tensor *out;
    return nt_py_result_of(nt_expand_as(nt_py_tensor(self), nt_py_tensor(other), &out), &out);
}

/* ---- squeeze, unsqueeze ---- */

static const nt_py_signature squeeze_sigs[] = {
    {0, 0, {{NT_PY_ARG_INT, ""}}},
    {1, 1, {{NT_PY_ARG_INT, "dim"}}},
    {1, 1, {{NT_PY_ARG_NAME, "dim"}}},
};

static PyObject *tensor_squeeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", NULL};
    PyObject *v[1];
    if (nt_py_parse_args("squeeze", args, nargs, kwnames, kwlist, 1, v) < 0 ||
        (v[0] && v[0] != Py_None && !is_dim(v[0]))) {
        PyErr_Clear();
        return nt_py_invalid_combination("squeeze", args, nargs, kwnames, squeeze_sigs, 3);
    }
    nt_tensor *t = nt_py_tensor(self), *out;
    if (!v[0]) return nt_py_result_of(nt_squeeze(t, &out), &out);
    int64_t dim;
    if (view_dim(t, v[0], &dim) < 0) return NULL;
    return nt_py_result_of(nt_squeeze_dim(t, dim, &out), &out);
}

static PyObject *tensor_unsqueeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", NULL};
    PyObject *v[1];
    if (nt_py_parse_args("unsqueeze", args, nargs, kwnames, kwlist, 1, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args("unsqueeze", 1, (const char *const[]){"dim"});
    if (!nt_py_is_int(v[0])) {
        PyErr_Format(PyExc_TypeError,
                     "unsqueeze(): argument 'dim' (position 1) must be int, not %s",
                     nt_py_type_name(v[0]));
        return NULL;
    }
    int64_t dim;
    if (nt_py_int64_from_object(v[0], &dim, "dim") < 0) return NULL;
    nt_tensor *out;
    return nt_py_result_of(nt_unsqueeze(nt_py_tensor(self), dim, &out), &out);
}

/* ---- select, narrow ---- */

static const nt_py_signature select_sigs[] = {
    {2, 2, {{NT_PY_ARG_INT, "dim"}, {NT_PY_ARG_INT, "index"}}},
    {2, 2, {{NT_PY_ARG_NAME, "dim"}, {NT_PY_ARG_INT, "index"}}},
};

static PyObject *tensor_select(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "index", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("select", args, nargs, kwnames, kwlist, 2, v) < 0 || !v[0] || !v[1] ||
        !(is_dim(v[0]) || v[0] == Py_None) || !is_int_or_tensor(v[1])) {
        PyErr_Clear();
        return nt_py_invalid_combination("select", args, nargs, kwnames, select_sigs, 2);
    }
    nt_tensor *t = nt_py_tensor(self), *out;
    int64_t dim, index;
    if (view_dim(t, v[0], &dim) < 0 || int_or_tensor(v[1], &index) < 0) return NULL;
    return nt_py_result_of(nt_select(t, dim, index, &out), &out);
}

static const nt_py_signature narrow_sigs[] = {
    {3, 3, {{NT_PY_ARG_INT, "dim"}, {NT_PY_ARG_TENSOR, "start"}, {NT_PY_ARG_INT, "length"}}},
    {3, 3, {{NT_PY_ARG_INT, "dim"}, {NT_PY_ARG_INT, "start"}, {NT_PY_ARG_INT, "length"}}},
};

static PyObject *tensor_narrow(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "start", "length", NULL};
    PyObject *v[3];
    if (nt_py_parse_args("narrow", args, nargs, kwnames, kwlist, 3, v) < 0 || !v[0] || !v[1] ||
        !v[2] || !(is_dim(v[0]) || v[0] == Py_None) || !is_int_or_tensor(v[1]) ||
        !nt_py_is_int(v[2])) {
        PyErr_Clear();
        return nt_py_invalid_combination("narrow", args, nargs, kwnames, narrow_sigs, 2);
    }
    nt_tensor *t = nt_py_tensor(self), *out;
    int64_t dim, start, length;
    if (nt_tensor_ndim(t) == 0) { /* checked before the dim, as in PyTorch */
        PyErr_SetString(PyExc_RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (view_dim(t, v[0], &dim) < 0 || int_or_tensor(v[1], &start) < 0 ||
        nt_py_int64_from_object(v[2], &length, "length") < 0)
        return NULL;
    return nt_py_result_of(nt_narrow(t, dim, start, length, &out), &out);
}

/* ---- view, reshape, as_strided ---- */

static const nt_py_signature view_sigs[] = {
    {1, 1, {{NT_PY_ARG_DTYPE, "dtype"}}},
    {1, 1, {{NT_PY_ARG_SYMINTS, "size"}}},
};

static PyObject *tensor_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    PyObject *size_kw = NULL;
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
        static const char *const kwlist[] = {"size", NULL};
        if (nargs > 0 || nt_py_parse_args("view", args, 0, kwnames, kwlist, 0, &size_kw) < 0) {
            PyErr_Clear();
            return nt_py_invalid_combination("view", args, nargs, kwnames, view_sigs, 2);
        }
        items = &size_kw;
        n = 1;
    }
    if (n == 1 && PyObject_TypeCheck(items[0], &NtDtype_Type)) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "view(dtype): reinterpreting the elements as another dtype is not "
                        "supported");
        return NULL;
    }
    if (n == 1 && (PyTuple_Check(items[0]) || PyList_Check(items[0]))) {
        n = PySequence_Fast_GET_SIZE(items[0]);
        items = PySequence_Fast_ITEMS(items[0]);
    }
    int64_t sizes[NT_MAX_DIMS];
    int ok = (n > 0 || nargs > 0 || size_kw) && n <= NT_MAX_DIMS;
    for (Py_ssize_t i = 0; ok && i < n; i++)
        ok = nt_py_is_int(items[i]);
    if (!ok) return nt_py_invalid_combination("view", args, nargs, kwnames, view_sigs, 2);
    for (Py_ssize_t i = 0; i < n; i++)
        if (nt_py_int64_from_object(items[i], &sizes[i], "size") < 0) return NULL;
    nt_tensor *out;
    return nt_py_result_of(nt_view(nt_py_tensor(self), (int)n, sizes, &out), &out);
}

static PyObject *tensor_reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    PyObject *shape_kw = NULL;
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
        static const char *const kwlist[] = {"shape", NULL};
        if (nt_py_parse_args("reshape", args, 0, kwnames, kwlist, 0, &shape_kw) < 0) return NULL;
        if (nargs > 0) {
            PyErr_SetString(PyExc_TypeError, "reshape() got multiple values for argument 'shape'");
            return NULL;
        }
    }
    if (nargs == 0 && !shape_kw)
        return nt_py_missing_args("reshape", 1, (const char *const[]){"shape"});
    int64_t sizes[NT_MAX_DIMS];
    PyObject *const *src = shape_kw ? &shape_kw : args;
    Py_ssize_t nsrc = shape_kw ? 1 : nargs;
    if (nsrc == 1 && !nt_py_is_int(src[0]) && !PyTuple_Check(src[0]) && !PyList_Check(src[0])) {
        PyErr_Format(PyExc_TypeError,
                     "reshape(): argument 'shape' (position 1) must be tuple of SymInts, not %s",
                     nt_py_type_name(src[0]));
        return NULL;
    }
    int n = nt_py_int_list("reshape", "shape", 1, "SymInts", src, nsrc, sizes);
    if (n < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *out;
    nt_status st;
    if (nt_tensor_numel(t) > NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_reshape(t, n, sizes, &out);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_reshape(t, n, sizes, &out);
    }
    return nt_py_result_of(st, &out);
}

/* A size/stride argument of as_strided: a list or tuple of ints. */
static int strided_list(PyObject *o, const char *arg, int position, int64_t *out) {
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        PyErr_Format(PyExc_TypeError,
                     "as_strided(): argument '%s' (position %d) must be tuple of SymInts, not %s",
                     arg, position, nt_py_type_name(o));
        return -1;
    }
    return nt_py_int_list("as_strided", arg, position, "SymInts", &o, 1, out);
}

static PyObject *tensor_as_strided(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    static const char *const kwlist[] = {"size", "stride", "storage_offset", NULL};
    PyObject *v[3];
    if (nt_py_parse_args("as_strided", args, nargs, kwnames, kwlist, 3, v) < 0) return NULL;
    if (!v[0] && !v[1])
        return nt_py_missing_args("as_strided", 2, (const char *const[]){"size", "stride"});
    if (!v[0] || !v[1])
        return nt_py_missing_args("as_strided", 1, (const char *const[]){v[0] ? "stride" : "size"});
    nt_tensor *t = nt_py_tensor(self), *out;
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS], offset = nt_tensor_offset(t);
    int n = strided_list(v[0], "size", 1, sizes);
    if (n < 0) return NULL;
    int m = strided_list(v[1], "stride", 2, strides);
    if (m < 0) return NULL;
    if (v[2] && v[2] != Py_None) {
        if (!nt_py_is_int(v[2])) {
            PyErr_Format(PyExc_TypeError,
                         "as_strided(): argument 'storage_offset' (position 3) must be SymInt, "
                         "not %s",
                         nt_py_type_name(v[2]));
            return NULL;
        }
        if (nt_py_int64_from_object(v[2], &offset, "storage_offset") < 0) return NULL;
    }
    if (n != m) {
        PyErr_SetString(PyExc_RuntimeError, "mismatch in length of strides and shape");
        return NULL;
    }
    return nt_py_result_of(nt_as_strided(t, n, sizes, strides, offset, &out), &out);
}

/* ---- contiguous, clone ---- */

static PyObject *tensor_contiguous(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    if (!positional_only("contiguous", nargs, kwnames, args)) return NULL;
    nt_tensor *t = nt_py_tensor(self), *out;
    nt_status st;
    if (nt_tensor_is_contiguous(t)) { /* PyTorch returns the very same object */
        Py_INCREF(self);
        return self;
    }
    if (nt_tensor_numel(t) > NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_contiguous(t, &out);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_contiguous(t, &out);
    }
    return nt_py_result_of(st, &out);
}

static PyObject *tensor_clone(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    if (!positional_only("clone", nargs, kwnames, args)) return NULL;
    nt_tensor *t = nt_py_tensor(self), *out;
    nt_status st;
    if (nt_tensor_numel(t) > NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_clone(t, &out);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_clone(t, &out);
    }
    return nt_py_result_of(st, &out);
}

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_tensor_view_methods[] = {
    {"transpose", FASTCALL_KW(tensor_transpose),
     "transpose(dim0, dim1): swaps two dims (indices or names)."},
    {"t", tensor_t, METH_NOARGS, "t(): transpose(0, 1) for 2-D, the tensor itself below."},
    {"permute", FASTCALL_KW(tensor_permute),
     "permute(*dims): reorders the dims (indices or names); names move with their dims."},
    {"expand", FASTCALL_KW(tensor_expand),
     "expand(*sizes): broadcasts size-one dims without copying (-1 keeps a size)."},
    {"expand_as", tensor_expand_as, METH_O, "expand_as(other): expand(*other.shape)."},
    {"squeeze", FASTCALL_KW(tensor_squeeze),
     "squeeze(dim=None): drops size-one dims (all, or the one given)."},
    {"unsqueeze", FASTCALL_KW(tensor_unsqueeze),
     "unsqueeze(dim): inserts an unnamed size-one dim at dim."},
    {"select", FASTCALL_KW(tensor_select), "select(dim, index): the slice at index along dim."},
    {"narrow", FASTCALL_KW(tensor_narrow),
     "narrow(dim, start, length): the elements [start, start + length) along dim."},
    {"view", FASTCALL_KW(tensor_view), "view(*shape): the same data with a new shape."},
    {"reshape", FASTCALL_KW(tensor_reshape),
     "reshape(*shape): view(*shape) when possible, else a contiguous copy."},
    {"as_strided", FASTCALL_KW(tensor_as_strided),
     "as_strided(size, stride, storage_offset=None): a general view of the storage."},
    {"contiguous", FASTCALL_KW(tensor_contiguous),
     "contiguous(): the tensor itself if row-major, else a row-major copy."},
    {"clone", FASTCALL_KW(tensor_clone), "clone(): a copy that shares nothing."},
    {NULL, NULL, 0, NULL},
};

/* ---- module functions: torch.transpose(input, ...) and friends ---- */

static PyObject *method_t(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    if (nargs > 0 || (kwnames && PyTuple_GET_SIZE(kwnames) > 0)) {
        PyErr_Format(PyExc_TypeError, "t() takes 1 positional argument but %zd were given",
                     nargs + 1 + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0));
        return NULL;
    }
    return tensor_t(self, NULL);
}

#define MODULE_FUNCTION(name, method)                                                              \
    static PyObject *py_##name(PyObject *module, PyObject *const *args, Py_ssize_t nargs,          \
                               PyObject *kwnames) {                                                \
        return nt_py_call_as_function(#name, method, args, nargs, kwnames);                           \
    }

MODULE_FUNCTION(transpose, tensor_transpose)
MODULE_FUNCTION(t, method_t)
MODULE_FUNCTION(permute, tensor_permute)
MODULE_FUNCTION(squeeze, tensor_squeeze)
MODULE_FUNCTION(unsqueeze, tensor_unsqueeze)
MODULE_FUNCTION(select, tensor_select)
MODULE_FUNCTION(narrow, tensor_narrow)
MODULE_FUNCTION(reshape, tensor_reshape)
MODULE_FUNCTION(flatten, nt_py_tensor_flatten)
MODULE_FUNCTION(unflatten, nt_py_tensor_unflatten)
MODULE_FUNCTION(clone, tensor_clone)

PyMethodDef nt_py_module_view_functions[] = {
    {"transpose", FASTCALL_KW(py_transpose), "transpose(input, dim0, dim1)."},
    {"t", FASTCALL_KW(py_t), "t(input)."},
    {"permute", FASTCALL_KW(py_permute), "permute(input, dims)."},
    {"squeeze", FASTCALL_KW(py_squeeze), "squeeze(input, dim=None)."},
    {"unsqueeze", FASTCALL_KW(py_unsqueeze), "unsqueeze(input, dim)."},
    {"select", FASTCALL_KW(py_select), "select(input, dim, index)."},
    {"narrow", FASTCALL_KW(py_narrow), "narrow(input, dim, start, length)."},
    {"reshape", FASTCALL_KW(py_reshape), "reshape(input, shape)."},
    {"flatten", FASTCALL_KW(py_flatten),
     "flatten(input, start_dim=0, end_dim=-1[, out_dim]) or flatten(input, dims, out_dim)."},
    {"unflatten", FASTCALL_KW(py_unflatten), "unflatten(input, dim, sizes)."},
    {"clone", FASTCALL_KW(py_clone), "clone(input)."},
    {NULL, NULL, 0, NULL},
};
