/*
 * ops_random.c — the "random" family's entries that are not generated from the op table
 * (bindings.c makes uniform_, normal_, cauchy_, exponential_, geometric_, log_normal_,
 * bernoulli_, bernoulli and random_ from their rows): torch.normal
 * with tensor arguments, dropout (F.dropout's and torch.dropout's arguments in one), and the Tensor
 * rows of the coverage table with no name rule that no other file provides (requires_grad_,
 * register_hook, the requires_grad and grad setters, and the rows with no name rule that no other
 * file provides).
 *
 * Argument errors reproduce PyTorch 1.13's parser texts; autograd does not exist yet, so
 * the calls that would need it (requires_grad_(True), assigning a gradient) raise
 * NotImplementedError, and register_hook fails as PyTorch does on a tensor that does not
 * require grad.
 */
#include <string.h>

#include "arglists.h"
#include "interop.h"
#include "ops_random.h"

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* ---- argument helpers ---- */

static PyObject *self_result(PyObject *self, nt_status st) {
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(self);
    return self;
}

/* nt_py_parse_args with Python's text for too many positional arguments. */
static int parse(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                 const char *const *kwlist, int min_pos, int max_pos, PyObject **v) {
    if (nargs > max_pos) {
        if (min_pos == max_pos)
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given",
                         fname, max_pos, max_pos == 1 ? "" : "s", nargs);
        else
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %d to %d positional arguments but %zd were given", fname,
                         min_pos, max_pos, nargs);
        return -1;
    }
    return nt_py_parse_args(fname, args, nargs, kwnames, kwlist, max_pos, v);
}

/* PyTorch's "got (int, float)" list: positional types, then name=type for keywords. */
static PyObject *format_got(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *parts = PyList_New(0);
    if (!parts) return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *s = PyUnicode_FromString(nt_py_type_name(args[i]));
        if (!s || PyList_Append(parts, s) < 0) goto fail;
        Py_DECREF(s);
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *v = args[nargs + k];
        const char *tn = Py_TYPE(v) == &NtDtype_Type ? "torch.dtype" : nt_py_type_name(v);
        PyObject *s = PyUnicode_FromFormat("%U=%s", PyTuple_GET_ITEM(kwnames, k), tn);
        if (!s || PyList_Append(parts, s) < 0) goto fail;
        Py_DECREF(s);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    if (joined && nargs == 0 && nkw > 0) { /* PyTorch ends a keyword-only list with ", " */
        PyObject *r = PyUnicode_FromFormat("%U, ", joined);
        Py_DECREF(joined);
        return r;
    }
    return joined;
fail:
    Py_DECREF(parts);
    return NULL;
}

/* "f() received an invalid combination of arguments - got (...), but expected one of:\n" +
 * `expected` (the overload lines). Returns NULL. */
static PyObject *invalid_combination(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames, const char *expected) {
    PyObject *got = format_got(args, nargs, kwnames);
    if (!got) return NULL;
    PyErr_Format(PyExc_TypeError,
                 "%s() received an invalid combination of arguments - got (%U), but expected one "
                 "of:\n%s",
                 fname, got, expected);
    Py_DECREF(got);
    return NULL;
}

static int is_number(PyObject *o) {
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o)) return 1;
    PyObject *generic = nt_py_numpy_generic_type();
    return generic && PyObject_IsInstance(o, generic) == 1 && !PyUnicode_Check(o) &&
           !PyBytes_Check(o);
}

/* A `float` parameter: a Python number, a NumPy scalar or a one-element tensor. */
static int float_arg(PyObject *o, const char *fname, const char *arg, int pos, double fallback,
                     double *out) {
    if (!o) {
        *out = fallback;
        return 0;
    }
    if (is_number(o) || (nt_py_is_tensor(o) && nt_tensor_numel(nt_py_tensor(o)) == 1)) {
        nt_scalar s;
        if (nt_py_number_arg(o, fname, arg, pos, &s) < 0) return -1;
        *out = s.kind == NT_SCALAR_FLOAT ? s.v.f : s.kind == NT_SCALAR_INT ? (double)s.v.i : s.v.b;
        return 0;
    }
    if (pos > 0)
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be float, not %s",
                     fname, arg, pos, nt_py_type_name(o));
    else
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be float, not %s", fname, arg,
                     nt_py_type_name(o));
    return -1;
}

/* ---- torch.normal with tensors ---- */

static const char NORMAL_SIGS[] =
    " * (Tensor mean, Tensor std, *, torch.Generator generator, Tensor out)\n"
    " * (Tensor mean, float std, *, torch.Generator generator, Tensor out)\n"
    " * (float mean, Tensor std, *, torch.Generator generator, Tensor out)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator, Tensor out, "
    "torch.dtype dtype, torch.layout layout, torch.device device, bool pin_memory, bool "
    "requires_grad)\n";

/* The argument called `name`: positional index `pos` or the keyword. */
static PyObject *find_arg(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                          const char *name, Py_ssize_t pos) {
    if (pos < nargs) return args[pos];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), name) == 0)
            return args[nargs + k];
    return NULL;
}

PyObject *nt_py_normal_tensor_forms(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                    int *handled) {
    PyObject *mean_o = find_arg(args, nargs, kwnames, "mean", 0);
    PyObject *std_o = find_arg(args, nargs, kwnames, "std", 1);
    *handled = (mean_o && nt_py_is_tensor(mean_o)) || (std_o && nt_py_is_tensor(std_o));
    if (!*handled) return NULL;
    static const char *const kwlist[] = {"mean", "std", "generator", "out", NULL};
    PyObject *v[4];
    if (nargs > 2 || parse("normal", args, nargs, kwnames, kwlist, 0, 2, v) < 0) {
        PyErr_Clear();
        return invalid_combination("normal", args, nargs, kwnames, NORMAL_SIGS);
    }
    if (!v[0]) return nt_py_missing_args("normal", 1, (const char *const[]){"mean"});
    int mean_t = nt_py_is_tensor(v[0]), std_t = v[1] && nt_py_is_tensor(v[1]);
    double mean = 0.0, std = 1.0;
    if ((!mean_t && !is_number(v[0])) || (v[1] && !std_t && !is_number(v[1])) ||
        (v[3] && v[3] != Py_None && !nt_py_is_tensor(v[3])) || (v[2] && v[2] != Py_None))
        return invalid_combination("normal", args, nargs, kwnames, NORMAL_SIGS);
    if ((!mean_t && float_arg(v[0], "normal", "mean", 1, 0.0, &mean) < 0) ||
        (v[1] && !std_t && float_arg(v[1], "normal", "std", 2, 1.0, &std) < 0))
        return NULL;
    const nt_tensor *mt = mean_t ? nt_py_tensor(v[0]) : NULL;
    const nt_tensor *sd = std_t ? nt_py_tensor(v[1]) : NULL;
    int64_t numel = nt_tensor_numel(mt ? mt : sd);
    nt_status st;
    if (v[3] && v[3] != Py_None) {
        NT_PY_CALL_NOGIL(numel, st, nt_normal_out(nt_py_tensor(v[3]), mt, mean, sd, std));
        if (st != NT_OK) return nt_py_raise(st);
        if (nt_py_warn_pending() < 0) return NULL; /* out= resized */
        Py_INCREF(v[3]);
        return v[3];
    }
    nt_tensor *r = NULL;
    if (mt && sd)
        NT_PY_CALL_NOGIL(numel, st, nt_normal_tensors(mt, sd, &r));
    else if (mt)
        NT_PY_CALL_NOGIL(numel, st, nt_normal_mean_tensor(mt, std, &r));
    else
        NT_PY_CALL_NOGIL(numel, st, nt_normal_std_tensor(mean, sd, &r));
    return nt_py_result(st, r);
}

/* ---- dropout ---- */

/* dropout(input, p=0.5, training=True, inplace=False), also torch.dropout's (input, p,
 * train) with `train` as a keyword alias of `training`. */
static PyObject *dropout_impl(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                              const char *fname, int force_inplace) {
    static const char *const kwlist[] = {"input", "p", "training", "inplace", "train", NULL};
    PyObject *v[5];
    if (parse(fname, args, nargs, kwnames, kwlist, 1, 4, v) < 0) return NULL;
    if (v[4]) {
        if (v[2]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument 'training'",
                         fname);
            return NULL;
        }
        v[2] = v[4];
    }
    if (!v[0]) return nt_py_missing_args(fname, 1, (const char *const[]){"input"});
    if (!nt_py_is_tensor(v[0])) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'input' (position 1) must be Tensor, not %s",
                     fname, nt_py_type_name(v[0]));
        return NULL;
    }
    /* p: F.dropout's Python check `p < 0.0 or p > 1.0` and its message */
    PyObject *p_obj = v[1] ? v[1] : NULL;
    double p = 0.5;
    if (p_obj) {
        PyObject *zero = PyFloat_FromDouble(0.0), *one = PyFloat_FromDouble(1.0);
        int lt = zero ? PyObject_RichCompareBool(p_obj, zero, Py_LT) : -1;
        int gt = (lt == 0 && one) ? PyObject_RichCompareBool(p_obj, one, Py_GT) : 0;
        Py_XDECREF(zero);
        Py_XDECREF(one);
        if (lt < 0 || gt < 0) return NULL;
        if (lt || gt) {
            PyErr_Format(PyExc_ValueError,
                         "dropout probability has to be between 0 and 1, but got %S", p_obj);
            return NULL;
        }
        if (float_arg(p_obj, fname, "p", 2, 0.5, &p) < 0) return NULL;
    }
    int train = 1;
    if (v[2]) {
        if (!PyBool_Check(v[2])) {
            PyErr_Format(PyExc_TypeError,
                         "dropout(): argument 'train' (position 3) must be bool, "
                         "not %s",
                         nt_py_type_name(v[2]));
            return NULL;
        }
        train = v[2] == Py_True;
    }
    int inplace = force_inplace;
    if (v[3] && !inplace) {
        inplace = PyObject_IsTrue(v[3]);
        if (inplace < 0) return NULL;
    }
    nt_tensor *t = nt_py_tensor(v[0]), *r = NULL;
    nt_status st;
    if (inplace) {
        NT_PY_CALL_NOGIL(nt_tensor_numel(t), st, nt_dropout_(t, p, train));
        return self_result(v[0], st);
    }
    NT_PY_CALL_NOGIL(nt_tensor_numel(t), st, nt_dropout(t, p, train, &r));
    return nt_py_result_self(v[0], st, &r);
}

static PyObject *py_dropout(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return dropout_impl(args, nargs, kwnames, "dropout", 0);
}

static PyObject *py_dropout_(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    return dropout_impl(args, nargs, kwnames, "dropout_", 1);
}

/* ---- autograd placeholders ---- */

static int requires_grad_value(nt_tensor *t, int value) {
    if (!value) return 0;
    if (!nt_dtype_is_floating(nt_tensor_dtype(t))) {
        PyErr_SetString(PyExc_RuntimeError,
                        "only Tensors of floating point and complex dtype can require gradients");
        return -1;
    }
    PyErr_SetString(PyExc_NotImplementedError,
                    "requires_grad=True: ntensor has no autograd yet (tensors never require grad)");
    return -1;
}

static PyObject *tensor_requires_grad_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                       PyObject *kwnames) {
    static const char *const kwlist[] = {"requires_grad", NULL};
    PyObject *v[1];
    if (parse("requires_grad_", args, nargs, kwnames, kwlist, 0, 1, v) < 0) return NULL;
    if (v[0] && !PyBool_Check(v[0])) {
        PyErr_Format(PyExc_TypeError,
                     "requires_grad_(): argument 'requires_grad'%s must be bool, not %s",
                     nargs ? " (position 1)" : "", nt_py_type_name(v[0]));
        return NULL;
    }
    nt_tensor *t = nt_py_tensor(self);
    if (!v[0] || v[0] == Py_True) {
        if (!nt_dtype_is_floating(nt_tensor_dtype(t))) {
            PyErr_SetString(PyExc_RuntimeError,
                            "only Tensors of floating point dtype can require gradients");
            return NULL;
        }
        if (requires_grad_value(t, 1) < 0) return NULL;
    }
    Py_INCREF(self);
    return self;
}

static PyObject *tensor_register_hook(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames) {
    static const char *const kwlist[] = {"hook", NULL};
    PyObject *v[1];
    if (parse("register_hook", args, nargs, kwnames, kwlist, 1, 1, v) < 0) return NULL;
    if (!v[0]) {
        PyErr_SetString(PyExc_TypeError,
                        "Tensor.register_hook() missing 1 required positional argument: 'hook'");
        return NULL;
    }
    /* no tensor requires grad before autograd exists: PyTorch's error for such tensors */
    PyErr_SetString(PyExc_RuntimeError,
                    "cannot register a hook on a tensor that doesn't require gradient");
    return NULL;
}

static PyObject *get_false(PyObject *self, void *closure) {
    Py_RETURN_FALSE;
}
static PyObject *get_none(PyObject *self, void *closure) {
    Py_RETURN_NONE;
}

static int set_requires_grad(PyObject *self, PyObject *value, void *closure) {
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete requires_grad");
        return -1;
    }
    if (!PyBool_Check(value)) {
        PyErr_SetString(PyExc_RuntimeError, "requires_grad must be a bool");
        return -1;
    }
    return requires_grad_value(nt_py_tensor(self), value == Py_True);
}

static int set_grad(PyObject *self, PyObject *value, void *closure) {
    if (!value || value == Py_None) return 0; /* deleting or clearing: there is none */
    if (!nt_py_is_tensor(value)) {
        PyErr_Format(PyExc_TypeError,
                     "assigned grad expected to be a Tensor or None but got grad of type%s",
                     nt_py_type_name(value));
        return -1;
    }
    nt_tensor *t = nt_py_tensor(self), *g = nt_py_tensor(value);
    if (nt_tensor_dtype(t) != nt_tensor_dtype(g)) {
        PyErr_SetString(PyExc_RuntimeError, "assigned grad has data of a different type");
        return -1;
    }
    int same = nt_tensor_ndim(t) == nt_tensor_ndim(g);
    for (int i = 0; same && i < nt_tensor_ndim(t); i++)
        same = nt_tensor_sizes(t)[i] == nt_tensor_sizes(g)[i];
    if (!same) {
        PyErr_SetString(PyExc_RuntimeError, "assigned grad has data of a different size");
        return -1;
    }
    PyErr_SetString(PyExc_NotImplementedError,
                    "assigning .grad: ntensor has no autograd yet (.grad is always None)");
    return -1;
}

static PyGetSetDef random_getset[] = {
    {"requires_grad", get_false, set_requires_grad,
     "False: no autograd yet (setting True raises NotImplementedError).", NULL},
    {"grad", get_none, set_grad, "None: no autograd yet.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* Replaces the read-only requires_grad and grad attributes with ones that have setters. */
int nt_py_random_init(PyObject *module) {
    PyTypeObject *type = &NtTensor_Type;
    for (PyGetSetDef *g = random_getset; g->name; g++) {
        PyObject *descr = PyDescr_NewGetSet(type, g);
        if (!descr || PyDict_SetItemString(type->tp_dict, g->name, descr) < 0) {
            Py_XDECREF(descr);
            return -1;
        }
        Py_DECREF(descr);
    }
    PyType_Modified(type);
    return 0;
}

/* ---- tables ---- */

PyMethodDef nt_py_tensor_random_methods[] = {
    {"requires_grad_", FASTKW(tensor_requires_grad_),
     "requires_grad_(requires_grad=True): False only until autograd exists."},
    {"register_hook", FASTKW(tensor_register_hook),
     "register_hook(hook): fails as on a tensor that does not require grad."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_random_functions[] = {
    {"dropout", FASTKW(py_dropout),
     "dropout(input, p=0.5, training=True, inplace=False); torch.dropout's (input, p, train)."},
    {"dropout_", FASTKW(py_dropout_), "dropout_(input, p=0.5, train=True): in place."},
    {NULL, NULL, 0, NULL},
};
