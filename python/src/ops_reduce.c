/*
 * ops_reduce.c — the Python face of the reductions family: Tensor methods and torch.*
 * functions for sum, mean, prod, std, var, std_mean, var_mean, logsumexp, all, any, amax,
 * amin, max, min, argmax, argmin, median, mode, kthvalue, topk, cumsum, cumprod, softmax
 * and log_softmax, with PyTorch 1.13's signatures.
 *
 * Every dim argument takes an int, a name, or a list/tuple of them (reductions over
 * several dims: x.sum(['N', 'C'])); dim=None or [] reduces everything. Ops that return
 * (values, indices) return torch.return_types.<op> struct sequences (their repr is
 * PyTorch's). The module functions softmax/log_softmax have nn.functional's signature
 * (input, dim=None, _stacklevel=3, dtype=None), so F.softmax is the same function; an
 * omitted dim picks PyTorch's implicit dim with its deprecation warning. Large inputs run
 * with the GIL released.
 */
#include "ops_reduce.h"

#include "arglists.h"

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* ------------------------------------------------------------------ argument helpers */

static int bad_type(const char *fname, const char *arg, const char *want, PyObject *o) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, not %s", fname, arg, want,
                 nt_py_type_name(o));
    return -1;
}

/* One dim: an int (not wrapped here: the C API wraps with PyTorch's IndexError) or a name
 * (resolved). */
static int one_dim(const char *fname, nt_tensor *t, PyObject *o, int64_t *out) {
    if (PyUnicode_Check(o)) {
        nt_name name;
        if (nt_py_name_from_object(o, &name) < 0) return -1;
        nt_status st = nt_tensor_dim_of(t, name, out);
        return st == NT_OK ? 0 : nt_py_raise_int(st);
    }
    if (o == Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "Please look up dimensions by name, got: name = None.");
        return -1;
    }
    if (!nt_py_is_int(o)) return bad_type(fname, "dim", "int or str", o);
    return nt_py_int64_from_object(o, out, "dim");
}

/* A dim argument of a reduction: None (all), an int, a name, or a list/tuple of them (an
 * empty one: all). Sets *count (0: all). */
static int dim_list(const char *fname, nt_tensor *t, PyObject *o, int64_t *dims, int *count) {
    *count = 0;
    if (!o || o == Py_None) return 0;
    if (PyList_Check(o) || PyTuple_Check(o)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        if (n > NT_MAX_DIMS) {
            PyErr_Format(PyExc_RuntimeError, "%s(): too many dims (%zd)", fname, n);
            return -1;
        }
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; i++)
            if (one_dim(fname, t, items[i], &dims[i]) < 0) return -1;
        *count = (int)n;
        return 0;
    }
    if (one_dim(fname, t, o, &dims[0]) < 0) return -1;
    *count = 1;
    return 0;
}

static int get_bool(const char *fname, const char *arg, PyObject *o, bool fallback, bool *out) {
    if (!o) {
        *out = fallback;
        return 0;
    }
    if (!PyBool_Check(o)) return bad_type(fname, arg, "bool", o);
    *out = o == Py_True;
    return 0;
}

static int get_dtype(PyObject *o, int *out) {
    *out = -1;
    if (!o || o == Py_None) return 0;
    nt_dtype d;
    if (nt_py_dtype_from_object(o, NT_FLOAT32, &d) < 0) return -1;
    *out = (int)d;
    return 0;
}

static int get_out(const char *fname, PyObject *o, nt_tensor **out) {
    *out = NULL;
    if (!o || o == Py_None) return 0;
    if (!nt_py_is_tensor(o)) return bad_type(fname, "out", "Tensor", o);
    *out = nt_py_tensor(o);
    return 0;
}

static int get_int(const char *fname, const char *arg, PyObject *o, int64_t fallback,
                   int64_t *out) {
    if (!o) {
        *out = fallback;
        return 0;
    }
    if (!nt_py_is_int(o)) return bad_type(fname, arg, "int", o);
    return nt_py_int64_from_object(o, out, arg);
}

static bool big(nt_tensor *t) {
    return nt_tensor_numel(t) > NT_PY_NOGIL_NUMEL;
}

/* Runs `call` (a statement setting `st`) with the GIL released when t is large. */
#define RUN(t, call)                                                                               \
    do {                                                                                           \
        if (big(t)) {                                                                              \
            Py_BEGIN_ALLOW_THREADS call;                                                           \
            Py_END_ALLOW_THREADS                                                                   \
        } else {                                                                                   \
            call;                                                                                  \
        }                                                                                          \
    } while (0)

static PyObject *out_result(nt_status st, PyObject *out_obj) {
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(out_obj);
    return out_obj;
}

/* ------------------------------------------------------------------ return types */

static PyTypeObject *values_indices_types[6]; /* max, min, median, mode, kthvalue, topk */
enum { RT_MAX, RT_MIN, RT_MEDIAN, RT_MODE, RT_KTHVALUE, RT_TOPK };
static const char *const rt_names[6] = {
    "torch.return_types.max",  "torch.return_types.min",      "torch.return_types.median",
    "torch.return_types.mode", "torch.return_types.kthvalue", "torch.return_types.topk",
};

static PyStructSequence_Field vi_fields[] = {
    {"values", "the values"}, {"indices", "their indices along the dim"}, {NULL, NULL}};

/* PyTorch's repr: "torch.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))". */
static PyObject *vi_repr(PyObject *self) {
    return PyUnicode_FromFormat("%s(\nvalues=%R,\nindices=%R)", Py_TYPE(self)->tp_name,
                                PyStructSequence_GET_ITEM(self, 0),
                                PyStructSequence_GET_ITEM(self, 1));
}

/* Wraps (values, indices) in the op's return type; takes both references. */
static PyObject *values_indices(int which, nt_status st, nt_tensor *v, nt_tensor *i) {
    if (st != NT_OK) return nt_py_raise(st);
    PyObject *r = PyStructSequence_New(values_indices_types[which]);
    PyObject *pv = nt_py_wrap(v), *pi = nt_py_wrap(i);
    if (!r || !pv || !pi) {
        Py_XDECREF(r);
        Py_XDECREF(pv);
        Py_XDECREF(pi);
        return NULL;
    }
    PyStructSequence_SET_ITEM(r, 0, pv);
    PyStructSequence_SET_ITEM(r, 1, pi);
    return r;
}

static int reduce_init(PyObject *module) {
    PyObject *ns = PyModule_New("ntensor.return_types");
    if (!ns) return -1;
    for (int k = 0; k < 6; k++) {
        PyStructSequence_Desc desc = {(char *)rt_names[k], "(values, indices)", vi_fields, 2};
        PyTypeObject *type = PyStructSequence_NewType(&desc);
        if (!type) goto fail;
        type->tp_repr = vi_repr;
        values_indices_types[k] = type;
        const char *short_name = rt_names[k] + strlen("torch.return_types.");
        Py_INCREF(type);
        if (PyModule_AddObject(ns, short_name, (PyObject *)type) < 0) {
            Py_DECREF(type);
            goto fail;
        }
    }
    if (PyModule_AddObject(module, "return_types", ns) < 0) goto fail;
    return 0;
fail:
    Py_DECREF(ns);
    return -1;
}

/* ------------------------------------------------------------------ sum, mean, prod, ... */

static nt_status reduce_new(nt_reduction op, nt_tensor *t, int count, const int64_t *dims,
                            bool keepdim, int dtype, double correction, nt_tensor **r) {
    switch (op) {
    case NT_REDUCE_SUM:
        return nt_sum(t, count, dims, keepdim, dtype, r);
    case NT_REDUCE_MEAN:
        return nt_mean(t, count, dims, keepdim, dtype, r);
    case NT_REDUCE_PROD:
        return nt_prod(t, count, dims, keepdim, dtype, r);
    case NT_REDUCE_VAR:
        return nt_var(t, count, dims, correction, keepdim, r);
    case NT_REDUCE_STD:
        return nt_std(t, count, dims, correction, keepdim, r);
    case NT_REDUCE_LOGSUMEXP:
        return nt_logsumexp(t, count, dims, keepdim, r);
    case NT_REDUCE_ALL:
        return nt_all(t, count, dims, keepdim, r);
    case NT_REDUCE_ANY:
        return nt_any(t, count, dims, keepdim, r);
    case NT_REDUCE_AMAX:
        return nt_amax(t, count, dims, keepdim, r);
    default:
        return nt_amin(t, count, dims, keepdim, r);
    }
}

static PyObject *run_reduce(nt_reduction op, nt_tensor *t, int count, const int64_t *dims,
                            bool keepdim, int dtype, double correction, PyObject *out_obj) {
    nt_tensor *out = NULL, *r = NULL;
    nt_status st;
    if (get_out("reduce", out_obj, &out) < 0) return NULL;
    if (out) {
        RUN(t, st = nt_reduce_out(op, t, count, dims, keepdim, dtype, correction, out));
        return out_result(st, out_obj);
    }
    RUN(t, st = reduce_new(op, t, count, dims, keepdim, dtype, correction, &r));
    return nt_py_result(st, r);
}

/* sum / mean / prod (dim=None, keepdim=False, *, dtype=None, out=None) */
static PyObject *dtype_reduction(const char *fname, nt_reduction op, PyObject *self,
                                 PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "keepdim", "dtype", "out", NULL};
    PyObject *v[4];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self);
    int64_t dims[NT_MAX_DIMS];
    int count, dtype;
    bool keepdim;
    if (v[0] && PyObject_TypeCheck(v[0], &NtDtype_Type) && !v[2]) { /* sum(torch.float64) */
        v[2] = v[0];
        v[0] = NULL;
    }
    if (dim_list(fname, t, v[0], dims, &count) < 0 ||
        get_bool(fname, "keepdim", v[1], false, &keepdim) < 0 || get_dtype(v[2], &dtype) < 0)
        return NULL;
    return run_reduce(op, t, count, dims, keepdim, dtype, 0, v[3]);
}

static PyObject *tensor_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return dtype_reduction("sum", NT_REDUCE_SUM, self, args, nargs, kwnames);
}
static PyObject *tensor_mean(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    return dtype_reduction("mean", NT_REDUCE_MEAN, self, args, nargs, kwnames);
}
static PyObject *tensor_prod(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    return dtype_reduction("prod", NT_REDUCE_PROD, self, args, nargs, kwnames);
}

/* std / var (dim=None, unbiased=True, keepdim=False, *, correction=None, out=None); a bool
 * first argument is `unbiased` (x.std(False)). */
static int parse_moments(const char *fname, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames, int64_t *dims, int *count, bool *keepdim,
                         double *correction, PyObject **out_obj) {
    static const char *const kwlist[] = {"dim", "unbiased", "keepdim", "correction", "out", NULL};
    PyObject *v[5];
    PyObject *shifted[3];
    if (nargs >= 1 && PyBool_Check(args[0])) { /* std(unbiased, ...) */
        if (nargs > 1) {
            PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of arguments",
                         fname);
            return -1;
        }
        shifted[0] = Py_None;
        shifted[1] = args[0];
        if (nt_py_parse_args(fname, args + 1, 0, kwnames, kwlist, 3, v) < 0) return -1;
        if (v[1]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument 'unbiased'",
                         fname);
            return -1;
        }
        v[1] = shifted[1];
    } else if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 3, v) < 0) {
        return -1;
    }
    nt_tensor *t = nt_py_tensor(self);
    bool unbiased;
    if (dim_list(fname, t, v[0], dims, count) < 0 ||
        get_bool(fname, "unbiased", v[1], true, &unbiased) < 0 ||
        get_bool(fname, "keepdim", v[2], false, keepdim) < 0)
        return -1;
    *correction = unbiased ? 1 : 0;
    if (v[3] && v[3] != Py_None) {
        if (v[1]) {
            PyErr_Format(PyExc_RuntimeError, "%s: can't specify both unbiased and correction",
                         fname);
            return -1;
        }
        int64_t c;
        if (get_int(fname, "correction", v[3], 1, &c) < 0) return -1;
        *correction = (double)c;
    }
    *out_obj = v[4];
    return 0;
}

static PyObject *moments_method(const char *fname, nt_reduction op, PyObject *self,
                                PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    int64_t dims[NT_MAX_DIMS];
    int count;
    bool keepdim;
    double correction;
    PyObject *out_obj;
    if (parse_moments(fname, self, args, nargs, kwnames, dims, &count, &keepdim, &correction,
                      &out_obj) < 0)
        return NULL;
    return run_reduce(op, nt_py_tensor(self), count, dims, keepdim, -1, correction, out_obj);
}

static PyObject *tensor_std(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return moments_method("std", NT_REDUCE_STD, self, args, nargs, kwnames);
}
static PyObject *tensor_var(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return moments_method("var", NT_REDUCE_VAR, self, args, nargs, kwnames);
}

static PyObject *pair_method(const char *fname, bool take_sqrt, PyObject *self,
                             PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    int64_t dims[NT_MAX_DIMS];
    int count;
    bool keepdim;
    double correction;
    PyObject *out_obj;
    if (parse_moments(fname, self, args, nargs, kwnames, dims, &count, &keepdim, &correction,
                      &out_obj) < 0)
        return NULL;
    nt_tensor *t = nt_py_tensor(self), *a = NULL, *b = NULL;
    nt_status st;
    if (take_sqrt)
        RUN(t, st = nt_std_mean(t, count, dims, correction, keepdim, &a, &b));
    else
        RUN(t, st = nt_var_mean(t, count, dims, correction, keepdim, &a, &b));
    if (st != NT_OK) return nt_py_raise(st);
    PyObject *pa = nt_py_wrap(a), *pb = nt_py_wrap(b);
    if (!pa || !pb) {
        Py_XDECREF(pa);
        Py_XDECREF(pb);
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, pa, pb);
    Py_DECREF(pa);
    Py_DECREF(pb);
    return r;
}

static PyObject *tensor_std_mean(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
    return pair_method("std_mean", true, self, args, nargs, kwnames);
}
static PyObject *tensor_var_mean(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
    return pair_method("var_mean", false, self, args, nargs, kwnames);
}

/* logsumexp(dim, keepdim=False, *, out=None): dim is required. */
static PyObject *tensor_logsumexp(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "keepdim", "out", NULL};
    PyObject *v[3];
    if (nt_py_parse_args("logsumexp", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args("logsumexp", 1, (const char *const[]){"dim"});
    nt_tensor *t = nt_py_tensor(self);
    int64_t dims[NT_MAX_DIMS];
    int count;
    bool keepdim;
    if (dim_list("logsumexp", t, v[0], dims, &count) < 0 ||
        get_bool("logsumexp", "keepdim", v[1], false, &keepdim) < 0)
        return NULL;
    return run_reduce(NT_REDUCE_LOGSUMEXP, t, count, dims, keepdim, -1, 0, v[2]);
}

/* all / any / amax / amin (dim=None, keepdim=False, *, out=None) */
static PyObject *plain_reduction(const char *fname, nt_reduction op, PyObject *self,
                                 PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "keepdim", "out", NULL};
    PyObject *v[3];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self);
    int64_t dims[NT_MAX_DIMS];
    int count;
    bool keepdim;
    if (dim_list(fname, t, v[0], dims, &count) < 0 ||
        get_bool(fname, "keepdim", v[1], false, &keepdim) < 0)
        return NULL;
    return run_reduce(op, t, count, dims, keepdim, -1, 0, v[2]);
}

static PyObject *tensor_all(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return plain_reduction("all", NT_REDUCE_ALL, self, args, nargs, kwnames);
}
static PyObject *tensor_any(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return plain_reduction("any", NT_REDUCE_ANY, self, args, nargs, kwnames);
}
static PyObject *tensor_amax(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    return plain_reduction("amax", NT_REDUCE_AMAX, self, args, nargs, kwnames);
}
static PyObject *tensor_amin(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    return plain_reduction("amin", NT_REDUCE_AMIN, self, args, nargs, kwnames);
}

/* ------------------------------------------------------------------ max, min, arg* */

/* max() / max(dim, keepdim=False, *, out=None) / max(other): the last is maximum. */
static PyObject *extreme(const char *fname, bool is_max, PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "keepdim", "out", "other", NULL};
    PyObject *v[4];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *r = NULL;
    nt_status st;
    PyObject *other = v[3] ? v[3] : (v[0] && nt_py_is_tensor(v[0]) ? v[0] : NULL);
    if (other) {
        if (!nt_py_is_tensor(other)) return bad_type(fname, "other", "Tensor", other), NULL;
        nt_tensor *out = NULL;
        if (get_out(fname, v[2], &out) < 0) return NULL;
        nt_binary_op op = is_max ? NT_BINARY_MAXIMUM : NT_BINARY_MINIMUM;
        if (out) {
            RUN(t, st = nt_binary_out(op, t, nt_py_tensor(other), out));
            return out_result(st, v[2]);
        }
        RUN(t, st = nt_binary(op, t, nt_py_tensor(other), &r));
        return nt_py_result(st, r);
    }
    if (!v[0]) {
        if (v[1] || v[2]) {
            PyErr_Format(PyExc_TypeError,
                         "%s() received an invalid combination of arguments: keepdim and out "
                         "need a dim",
                         fname);
            return NULL;
        }
        RUN(t, st = is_max ? nt_max_all(t, &r) : nt_min_all(t, &r));
        return nt_py_result(st, r);
    }
    int64_t dim;
    bool keepdim;
    if (one_dim(fname, t, v[0], &dim) < 0 || get_bool(fname, "keepdim", v[1], false, &keepdim) < 0)
        return NULL;
    if (v[2] && v[2] != Py_None) {
        if (!PyTuple_Check(v[2]) || PyTuple_GET_SIZE(v[2]) != 2 ||
            !nt_py_is_tensor(PyTuple_GET_ITEM(v[2], 0)) ||
            !nt_py_is_tensor(PyTuple_GET_ITEM(v[2], 1)))
            return bad_type(fname, "out", "tuple of Tensors", v[2]), NULL;
        nt_tensor *ov = nt_py_tensor(PyTuple_GET_ITEM(v[2], 0));
        nt_tensor *oi = nt_py_tensor(PyTuple_GET_ITEM(v[2], 1));
        RUN(t, st = is_max ? nt_max_dim_out(t, dim, keepdim, ov, oi)
                           : nt_min_dim_out(t, dim, keepdim, ov, oi));
        if (st != NT_OK) return nt_py_raise(st);
        PyObject *res = PyStructSequence_New(values_indices_types[is_max ? RT_MAX : RT_MIN]);
        if (!res) return NULL;
        for (int k = 0; k < 2; k++) {
            PyObject *item = PyTuple_GET_ITEM(v[2], k);
            Py_INCREF(item);
            PyStructSequence_SET_ITEM(res, k, item);
        }
        return res;
    }
    nt_tensor *vals = NULL, *idx = NULL;
    RUN(t, st = is_max ? nt_max_dim(t, dim, keepdim, &vals, &idx)
                       : nt_min_dim(t, dim, keepdim, &vals, &idx));
    return values_indices(is_max ? RT_MAX : RT_MIN, st, vals, idx);
}

static PyObject *tensor_max(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return extreme("max", true, self, args, nargs, kwnames);
}
static PyObject *tensor_min(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return extreme("min", false, self, args, nargs, kwnames);
}

static PyObject *arg_extreme(const char *fname, bool is_max, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "keepdim", NULL};
    PyObject *v[2];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *r = NULL;
    int64_t dim;
    bool keepdim;
    bool has_dim = v[0] && v[0] != Py_None;
    if ((has_dim && one_dim(fname, t, v[0], &dim) < 0) ||
        get_bool(fname, "keepdim", v[1], false, &keepdim) < 0)
        return NULL;
    nt_status st;
    RUN(t, st = is_max ? nt_argmax(t, has_dim ? &dim : NULL, keepdim, &r)
                       : nt_argmin(t, has_dim ? &dim : NULL, keepdim, &r));
    return nt_py_result(st, r);
}

static PyObject *tensor_argmax(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    return arg_extreme("argmax", true, self, args, nargs, kwnames);
}
static PyObject *tensor_argmin(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    return arg_extreme("argmin", false, self, args, nargs, kwnames);
}

/* ------------------------------------------------------------------ order statistics */

static PyObject *tensor_median(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "keepdim", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("median", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *r = NULL, *idx = NULL;
    nt_status st;
    if (!v[0]) {
        RUN(t, st = nt_median_all(t, &r));
        return nt_py_result(st, r);
    }
    int64_t dim;
    bool keepdim;
    if (one_dim("median", t, v[0], &dim) < 0 ||
        get_bool("median", "keepdim", v[1], false, &keepdim) < 0)
        return NULL;
    RUN(t, st = nt_median_dim(t, dim, keepdim, &r, &idx));
    return values_indices(RT_MEDIAN, st, r, idx);
}

static PyObject *tensor_mode(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "keepdim", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("mode", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *r = NULL, *idx = NULL;
    int64_t dim = -1;
    bool keepdim;
    if ((v[0] && one_dim("mode", t, v[0], &dim) < 0) ||
        get_bool("mode", "keepdim", v[1], false, &keepdim) < 0)
        return NULL;
    nt_status st;
    RUN(t, st = nt_mode(t, dim, keepdim, &r, &idx));
    return values_indices(RT_MODE, st, r, idx);
}

static PyObject *tensor_kthvalue(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
    static const char *const kwlist[] = {"k", "dim", "keepdim", NULL};
    PyObject *v[3];
    if (nt_py_parse_args("kthvalue", args, nargs, kwnames, kwlist, 3, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args("kthvalue", 1, (const char *const[]){"k"});
    nt_tensor *t = nt_py_tensor(self), *r = NULL, *idx = NULL;
    int64_t k, dim = -1;
    bool keepdim;
    if (get_int("kthvalue", "k", v[0], 0, &k) < 0 ||
        (v[1] && one_dim("kthvalue", t, v[1], &dim) < 0) ||
        get_bool("kthvalue", "keepdim", v[2], false, &keepdim) < 0)
        return NULL;
    nt_status st;
    RUN(t, st = nt_kthvalue(t, k, dim, keepdim, &r, &idx));
    return values_indices(RT_KTHVALUE, st, r, idx);
}

static PyObject *tensor_topk(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    static const char *const kwlist[] = {"k", "dim", "largest", "sorted", NULL};
    PyObject *v[4];
    if (nt_py_parse_args("topk", args, nargs, kwnames, kwlist, 4, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args("topk", 1, (const char *const[]){"k"});
    nt_tensor *t = nt_py_tensor(self), *r = NULL, *idx = NULL;
    int64_t k, dim = -1;
    bool largest, sorted;
    if (get_int("topk", "k", v[0], 0, &k) < 0 || (v[1] && one_dim("topk", t, v[1], &dim) < 0) ||
        get_bool("topk", "largest", v[2], true, &largest) < 0 ||
        get_bool("topk", "sorted", v[3], true, &sorted) < 0)
        return NULL;
    nt_status st;
    RUN(t, st = nt_topk(t, k, dim, largest, sorted, &r, &idx));
    return values_indices(RT_TOPK, st, r, idx);
}

/* ------------------------------------------------------------------ scans */

static PyObject *scan_method(const char *fname, bool prod, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "dtype", "out", NULL};
    PyObject *v[3];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 1, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args(fname, 1, (const char *const[]){"dim"});
    nt_tensor *t = nt_py_tensor(self), *r = NULL, *out = NULL;
    int64_t dim;
    int dtype;
    if (one_dim(fname, t, v[0], &dim) < 0 || get_dtype(v[1], &dtype) < 0 ||
        get_out(fname, v[2], &out) < 0)
        return NULL;
    nt_status st;
    if (out) {
        RUN(t, st = prod ? nt_cumprod_out(t, dim, dtype, out) : nt_cumsum_out(t, dim, dtype, out));
        return out_result(st, v[2]);
    }
    RUN(t, st = prod ? nt_cumprod(t, dim, dtype, &r) : nt_cumsum(t, dim, dtype, &r));
    return nt_py_result(st, r);
}

static PyObject *tensor_cumsum(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    return scan_method("cumsum", false, self, args, nargs, kwnames);
}
static PyObject *tensor_cumprod(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    return scan_method("cumprod", true, self, args, nargs, kwnames);
}

/* ------------------------------------------------------------------ softmax */

static PyObject *run_softmax(bool log_out, nt_tensor *t, int64_t dim, int dtype) {
    nt_tensor *r = NULL;
    nt_status st;
    RUN(t, st = log_out ? nt_log_softmax(t, dim, dtype, &r) : nt_softmax(t, dim, dtype, &r));
    return nt_py_result(st, r);
}

/* Tensor.softmax(dim, dtype=None): dim is required. */
static PyObject *softmax_method(const char *fname, bool log_out, PyObject *self,
                                PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "dtype", NULL};
    PyObject *v[2];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args(fname, 1, (const char *const[]){"dim"});
    nt_tensor *t = nt_py_tensor(self);
    int64_t dim;
    int dtype;
    if (one_dim(fname, t, v[0], &dim) < 0 || get_dtype(v[1], &dtype) < 0) return NULL;
    return run_softmax(log_out, t, dim, dtype);
}

static PyObject *tensor_softmax(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    return softmax_method("softmax", false, self, args, nargs, kwnames);
}
static PyObject *tensor_log_softmax(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    return softmax_method("log_softmax", true, self, args, nargs, kwnames);
}

/* softmax(input, dim=None, _stacklevel=3, dtype=None): nn.functional's signature. */
static PyObject *functional_softmax(const char *fname, bool log_out, PyObject *const *args,
                                    Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"input", "dim", "_stacklevel", "dtype", NULL};
    PyObject *v[4];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 4, v) < 0) return NULL;
    if (!v[0]) return nt_py_missing_args(fname, 1, (const char *const[]){"input"});
    if (!nt_py_is_tensor(v[0])) return bad_type(fname, "input", "Tensor", v[0]), NULL;
    nt_tensor *t = nt_py_tensor(v[0]);
    int64_t dim;
    int dtype;
    if (get_dtype(v[3], &dtype) < 0) return NULL;
    if (!v[1] || v[1] == Py_None) {
        int64_t stacklevel = 3;
        if (v[2] && get_int(fname, "_stacklevel", v[2], 3, &stacklevel) < 0) return NULL;
        if (PyErr_WarnFormat(PyExc_UserWarning, (Py_ssize_t)stacklevel - 2,
                             "Implicit dimension choice for %s has been deprecated. Change the "
                             "call to include dim=X as an argument.",
                             fname) < 0)
            return NULL;
        int nd = nt_tensor_ndim(t);
        dim = (nd == 0 || nd == 1 || nd == 3) ? 0 : 1;
    } else if (one_dim(fname, t, v[1], &dim) < 0) {
        return NULL;
    }
    return run_softmax(log_out, t, dim, dtype);
}

static PyObject *py_softmax(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return functional_softmax("softmax", false, args, nargs, kwnames);
}
static PyObject *py_log_softmax(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    return functional_softmax("log_softmax", true, args, nargs, kwnames);
}

/* ------------------------------------------------------------------ tables */

PyMethodDef nt_py_tensor_reduce_methods[] = {
    {"sum", FASTCALL_KW(tensor_sum), "sum(dim=None, keepdim=False, *, dtype=None)."},
    {"mean", FASTCALL_KW(tensor_mean), "mean(dim=None, keepdim=False, *, dtype=None)."},
    {"prod", FASTCALL_KW(tensor_prod), "prod(dim=None, keepdim=False, *, dtype=None)."},
    {"std", FASTCALL_KW(tensor_std), "std(dim=None, unbiased=True, keepdim=False)."},
    {"var", FASTCALL_KW(tensor_var), "var(dim=None, unbiased=True, keepdim=False)."},
    {"logsumexp", FASTCALL_KW(tensor_logsumexp), "logsumexp(dim, keepdim=False)."},
    {"all", FASTCALL_KW(tensor_all), "all(dim=None, keepdim=False)."},
    {"any", FASTCALL_KW(tensor_any), "any(dim=None, keepdim=False)."},
    {"amax", FASTCALL_KW(tensor_amax), "amax(dim=(), keepdim=False)."},
    {"amin", FASTCALL_KW(tensor_amin), "amin(dim=(), keepdim=False)."},
    {"max", FASTCALL_KW(tensor_max), "max(), max(dim, keepdim=False) or max(other)."},
    {"min", FASTCALL_KW(tensor_min), "min(), min(dim, keepdim=False) or min(other)."},
    {"argmax", FASTCALL_KW(tensor_argmax), "argmax(dim=None, keepdim=False)."},
    {"argmin", FASTCALL_KW(tensor_argmin), "argmin(dim=None, keepdim=False)."},
    {"median", FASTCALL_KW(tensor_median), "median() or median(dim, keepdim=False)."},
    {"mode", FASTCALL_KW(tensor_mode), "mode(dim=-1, keepdim=False)."},
    {"kthvalue", FASTCALL_KW(tensor_kthvalue), "kthvalue(k, dim=-1, keepdim=False)."},
    {"topk", FASTCALL_KW(tensor_topk), "topk(k, dim=-1, largest=True, sorted=True)."},
    {"cumsum", FASTCALL_KW(tensor_cumsum), "cumsum(dim, *, dtype=None)."},
    {"cumprod", FASTCALL_KW(tensor_cumprod), "cumprod(dim, *, dtype=None)."},
    {"softmax", FASTCALL_KW(tensor_softmax), "softmax(dim, dtype=None)."},
    {"log_softmax", FASTCALL_KW(tensor_log_softmax), "log_softmax(dim, dtype=None)."},
    {NULL, NULL, 0, NULL},
};

/* torch.f(input, ...) for each method: the tensor comes first. */
#define AS_FUNCTION(name)                                                                          \
    static PyObject *py_##name(PyObject *m, PyObject *const *args, Py_ssize_t nargs,               \
                               PyObject *kwnames) {                                                \
        return nt_py_call_as_function(#name, tensor_##name, args, nargs, kwnames);                    \
    }
AS_FUNCTION(sum)
AS_FUNCTION(mean)
AS_FUNCTION(prod)
AS_FUNCTION(std)
AS_FUNCTION(var)
AS_FUNCTION(std_mean)
AS_FUNCTION(var_mean)
AS_FUNCTION(logsumexp)
AS_FUNCTION(all)
AS_FUNCTION(any)
AS_FUNCTION(amax)
AS_FUNCTION(amin)
AS_FUNCTION(max)
AS_FUNCTION(min)
AS_FUNCTION(argmax)
AS_FUNCTION(argmin)
AS_FUNCTION(median)
AS_FUNCTION(mode)
AS_FUNCTION(kthvalue)
AS_FUNCTION(topk)
AS_FUNCTION(cumsum)
AS_FUNCTION(cumprod)

PyMethodDef nt_py_module_reduce_functions[] = {
    {"sum", FASTCALL_KW(py_sum), "sum(input, dim=None, keepdim=False, *, dtype=None, out=None)."},
    {"mean", FASTCALL_KW(py_mean), "mean(input, dim=None, keepdim=False, *, dtype=None)."},
    {"prod", FASTCALL_KW(py_prod), "prod(input, dim=None, keepdim=False, *, dtype=None)."},
    {"std", FASTCALL_KW(py_std), "std(input, dim=None, unbiased=True, keepdim=False)."},
    {"var", FASTCALL_KW(py_var), "var(input, dim=None, unbiased=True, keepdim=False)."},
    {"std_mean", FASTCALL_KW(py_std_mean), "std_mean(input, dim=None, unbiased=True, ...)."},
    {"var_mean", FASTCALL_KW(py_var_mean), "var_mean(input, dim=None, unbiased=True, ...)."},
    {"logsumexp", FASTCALL_KW(py_logsumexp), "logsumexp(input, dim, keepdim=False)."},
    {"all", FASTCALL_KW(py_all), "all(input, dim=None, keepdim=False)."},
    {"any", FASTCALL_KW(py_any), "any(input, dim=None, keepdim=False)."},
    {"amax", FASTCALL_KW(py_amax), "amax(input, dim=(), keepdim=False)."},
    {"amin", FASTCALL_KW(py_amin), "amin(input, dim=(), keepdim=False)."},
    {"max", FASTCALL_KW(py_max), "max(input), max(input, dim, keepdim=False), max(input, other)."},
    {"min", FASTCALL_KW(py_min), "min(input), min(input, dim, keepdim=False), min(input, other)."},
    {"argmax", FASTCALL_KW(py_argmax), "argmax(input, dim=None, keepdim=False)."},
    {"argmin", FASTCALL_KW(py_argmin), "argmin(input, dim=None, keepdim=False)."},
    {"median", FASTCALL_KW(py_median), "median(input) or median(input, dim, keepdim=False)."},
    {"mode", FASTCALL_KW(py_mode), "mode(input, dim=-1, keepdim=False)."},
    {"kthvalue", FASTCALL_KW(py_kthvalue), "kthvalue(input, k, dim=-1, keepdim=False)."},
    {"topk", FASTCALL_KW(py_topk), "topk(input, k, dim=-1, largest=True, sorted=True)."},
    {"cumsum", FASTCALL_KW(py_cumsum), "cumsum(input, dim, *, dtype=None, out=None)."},
    {"cumprod", FASTCALL_KW(py_cumprod), "cumprod(input, dim, *, dtype=None, out=None)."},
    {"softmax", FASTCALL_KW(py_softmax), "softmax(input, dim=None, _stacklevel=3, dtype=None)."},
    {"log_softmax", FASTCALL_KW(py_log_softmax),
     "log_softmax(input, dim=None, _stacklevel=3, dtype=None)."},
    {NULL, NULL, 0, NULL},
};

int nt_py_reduce_init(PyObject *module) {
    return reduce_init(module);
}
