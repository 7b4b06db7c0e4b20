/*
 * ops_unary.c — the pointwise unary ops from Python (family "unary"): Tensor methods
 * (x.exp(), x.exp_()), module functions (torch.exp(input, *, out=None), torch.exp_),
 * round(decimals=), positive/negative, relu (torch.relu also takes nn.functional's
 * `inplace`), and the number slots -x, +x, abs(x), ~x.
 *
 * Each op is one row of OPS below; the methods and functions of a row are stamped from
 * it. Methods take no arguments (METH_NOARGS: the per-call cost is the C op's plus one
 * wrapper). Large inputs run with the GIL released.
 */
#include "p2_util.h"

/* nt_unary_ex with the GIL released for large work. */
static nt_status call_unary(nt_op op, nt_tensor *t, nt_tensor *out, bool inplace,
                            nt_tensor **result) {
    nt_status st;
    if (nt_tensor_numel(t) >= NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_unary_ex(op, t, out, inplace, result);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_unary_ex(op, t, out, inplace, result);
    }
    return st;
}

static PyObject *method_op(PyObject *self, nt_op op) {
    nt_tensor *r = NULL;
    nt_status st = call_unary(op, nt_py_tensor(self), NULL, false, &r);
    return nt_py_result(st, r);
}

static PyObject *method_op_(PyObject *self, nt_op op) {
    nt_status st = call_unary(op, nt_py_tensor(self), NULL, true, NULL);
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(self);
    return self;
}

/* The tensor argument `input` of a module function (position 1). */
static int input_tensor(const char *fname, PyObject *o, nt_tensor **out) {
    if (!o) {
        p2_missing_args(fname, 1, (const char *const[]){"input"});
        return -1;
    }
    if (!nt_py_is_tensor(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'input' (position 1) must be Tensor, not %s",
                     fname, p2_type_name(o));
        return -1;
    }
    *out = nt_py_tensor(o);
    return 0;
}

/* An optional out= argument: NULL for None or absent. */
static int out_tensor(const char *fname, PyObject *o, nt_tensor **out) {
    *out = NULL;
    if (!o || o == Py_None) return 0;
    if (!nt_py_is_tensor(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s", fname,
                     p2_type_name(o));
        return -1;
    }
    *out = nt_py_tensor(o);
    return 0;
}

/* torch.f(input, *, out=None): returns the out object itself when given. */
static PyObject *function_op(const char *fname, nt_op op, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"input", "out", NULL};
    PyObject *v[2];
    nt_tensor *t, *out, *r = NULL;
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 1, v) < 0 ||
        input_tensor(fname, v[0], &t) < 0 || out_tensor(fname, v[1], &out) < 0)
        return NULL;
    nt_status st = call_unary(op, t, out, false, out ? NULL : &r);
    if (st != NT_OK) return nt_py_raise(st);
    if (out) {
        Py_INCREF(v[1]);
        return v[1];
    }
    return nt_py_wrap(r);
}

/* torch.f_(input): in place, returns input. */
static PyObject *function_op_(const char *fname, nt_op op, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"input", NULL};
    PyObject *v[1];
    nt_tensor *t;
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 1, v) < 0 ||
        input_tensor(fname, v[0], &t) < 0)
        return NULL;
    return method_op_(v[0], op);
}

/* ---- the ops ---- */

/* X(python name, op, has torch.f_): every op with a method, an in-place method, torch.f
 * (with out=) and, where PyTorch has one, torch.f_. round and relu have their own argument
 * lists and are written out below. */
#define OPS(X)                                                                                     \
    X(abs, NT_OP_ABS, 1)                                                                        \
    X(acos, NT_OP_ACOS, 1)                                                                      \
    X(asin, NT_OP_ASIN, 1)                                                                      \
    X(atan, NT_OP_ATAN, 1)                                                                      \
    X(ceil, NT_OP_CEIL, 1)                                                                      \
    X(floor, NT_OP_FLOOR, 1)                                                                    \
    X(trunc, NT_OP_TRUNC, 1)                                                                    \
    X(frac, NT_OP_FRAC, 1)                                                                      \
    X(cos, NT_OP_COS, 1)                                                                        \
    X(cosh, NT_OP_COSH, 1)                                                                      \
    X(sin, NT_OP_SIN, 1)                                                                        \
    X(sinh, NT_OP_SINH, 1)                                                                      \
    X(tan, NT_OP_TAN, 1)                                                                        \
    X(tanh, NT_OP_TANH, 1)                                                                      \
    X(exp, NT_OP_EXP, 1)                                                                        \
    X(expm1, NT_OP_EXPM1, 1)                                                                    \
    X(log, NT_OP_LOG, 1)                                                                        \
    X(log2, NT_OP_LOG2, 1)                                                                      \
    X(log10, NT_OP_LOG10, 1)                                                                    \
    X(log1p, NT_OP_LOG1P, 1)                                                                    \
    X(sqrt, NT_OP_SQRT, 1)                                                                      \
    X(rsqrt, NT_OP_RSQRT, 1)                                                                    \
    X(reciprocal, NT_OP_RECIPROCAL, 1)                                                          \
    X(neg, NT_OP_NEG, 1)                                                                        \
    X(negative, NT_OP_NEG, 1)                                                                   \
    X(sign, NT_OP_SIGN, 0)                                                                      \
    X(sigmoid, NT_OP_SIGMOID, 1)                                                                \
    X(erf, NT_OP_ERF, 1)                                                                        \
    X(erfc, NT_OP_ERFC, 1)                                                                      \
    X(erfinv, NT_OP_ERFINV, 0)                                                                  \
    X(digamma, NT_OP_DIGAMMA, 0)                                                                \
    X(bitwise_not, NT_OP_BITWISE_NOT, 0)                                                        \
    X(logical_not, NT_OP_LOGICAL_NOT, 0)

#define STAMP(name, OP, F)                                                                         \
    static PyObject *m_##name(PyObject *self, PyObject *unused) {                                  \
        return method_op(self, OP);                                                                \
    }                                                                                              \
    static PyObject *m_##name##_(PyObject *self, PyObject *unused) {                               \
        return method_op_(self, OP);                                                               \
    }                                                                                              \
    static PyObject *f_##name(PyObject *module, PyObject *const *args, Py_ssize_t nargs,           \
                              PyObject *kwnames) {                                                 \
        return function_op(#name, OP, args, nargs, kwnames);                                       \
    }                                                                                              \
    __attribute__((unused)) static PyObject *f_##name##_(PyObject *module, PyObject *const *args,  \
                                                         Py_ssize_t nargs, PyObject *kwnames) {    \
        return function_op_(#name "_", OP, args, nargs, kwnames);                                  \
    }
OPS(STAMP)

/* ---- round(decimals=0) ---- */

/* The decimals= keyword (keyword-only, as in PyTorch). */
static int parse_decimals(const char *fname, PyObject *o, int64_t *decimals) {
    *decimals = 0;
    if (!o) return 0;
    if (!p2_is_int(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'decimals' must be int, not %s", fname,
                     p2_type_name(o));
        return -1;
    }
    return nt_py_int64_from_object(o, decimals, "decimals");
}

/* round() is the plain op (integers allowed); round(decimals=d), d = 0 included, is
 * PyTorch's round.decimals overload (floating dtypes only). */
static nt_status call_round(nt_tensor *t, PyObject *given, int64_t decimals, nt_tensor *out,
                            bool inplace, nt_tensor **result) {
    if (!given) return call_unary(NT_OP_ROUND, t, out, inplace, result);
    nt_status st;
    if (nt_tensor_numel(t) >= NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_round_decimals(t, decimals, out, inplace, result);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_round_decimals(t, decimals, out, inplace, result);
    }
    return st;
}

static PyObject *m_round(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    static const char *const kwlist[] = {"decimals", NULL};
    PyObject *v[1];
    int64_t decimals;
    if (nt_py_parse_args("round", args, nargs, kwnames, kwlist, 0, v) < 0 ||
        parse_decimals("round", v[0], &decimals) < 0)
        return NULL;
    nt_tensor *r = NULL;
    nt_status st = call_round(nt_py_tensor(self), v[0], decimals, NULL, false, &r);
    return nt_py_result(st, r);
}

static PyObject *m_round_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    static const char *const kwlist[] = {"decimals", NULL};
    PyObject *v[1];
    int64_t decimals;
    if (nt_py_parse_args("round_", args, nargs, kwnames, kwlist, 0, v) < 0 ||
        parse_decimals("round_", v[0], &decimals) < 0)
        return NULL;
    nt_status st = call_round(nt_py_tensor(self), v[0], decimals, NULL, true, NULL);
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(self);
    return self;
}

/* PyTorch's parser text for a torch.round call that fits neither overload. */
static PyObject *round_invalid_combination(PyObject *const *args, Py_ssize_t nargs,
                                           PyObject *kwnames) {
    PyObject *got = PyUnicode_FromString("");
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; got && i < nargs + nkw; i++) {
        PyObject *part =
            i < nargs
                ? PyUnicode_FromFormat("%s%s", i ? ", " : "", p2_type_name(args[i]))
                : PyUnicode_FromFormat("%s%U=%s", i ? ", " : "",
                                       PyTuple_GET_ITEM(kwnames, i - nargs), p2_type_name(args[i]));
        PyObject *joined = part ? PyUnicode_Concat(got, part) : NULL;
        Py_XDECREF(part);
        Py_SETREF(got, joined);
    }
    if (!got) return NULL;
    PyErr_Format(PyExc_TypeError,
                 "round() received an invalid combination of arguments - got (%U), but expected "
                 "one of:\n * (Tensor input, *, Tensor out)\n * (Tensor input, *, int decimals, "
                 "Tensor out)\n",
                 got);
    Py_DECREF(got);
    return NULL;
}

/* torch.round(input, *, decimals=0, out=None) */
static PyObject *f_round(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    static const char *const kwlist[] = {"input", "decimals", "out", NULL};
    PyObject *v[3];
    nt_tensor *t, *out, *r = NULL;
    int64_t decimals = 0;
    if (nargs > 1 || (nargs == 1 && !nt_py_is_tensor(args[0]))) {
        if (nargs == 1) return input_tensor("round", args[0], &t) < 0 ? NULL : NULL;
        return round_invalid_combination(args, nargs, kwnames);
    }
    if (nt_py_parse_args("round", args, nargs, kwnames, kwlist, 1, v) < 0 ||
        input_tensor("round", v[0], &t) < 0)
        return NULL;
    if (v[1] && !p2_is_int(v[1])) return round_invalid_combination(args, nargs, kwnames);
    if (parse_decimals("round", v[1], &decimals) < 0 || out_tensor("round", v[2], &out) < 0)
        return NULL;
    nt_status st = call_round(t, v[1], decimals, out, false, out ? NULL : &r);
    if (st != NT_OK) return nt_py_raise(st);
    if (out) {
        Py_INCREF(v[2]);
        return v[2];
    }
    return nt_py_wrap(r);
}

/* torch.round_(input, *, decimals=0) */
static PyObject *f_round_(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    static const char *const kwlist[] = {"input", "decimals", NULL};
    PyObject *v[2];
    nt_tensor *t;
    int64_t decimals;
    if (nt_py_parse_args("round_", args, nargs, kwnames, kwlist, 1, v) < 0 ||
        input_tensor("round_", v[0], &t) < 0 || parse_decimals("round_", v[1], &decimals) < 0)
        return NULL;
    nt_status st = call_round(t, v[1], decimals, NULL, true, NULL);
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(v[0]);
    return v[0];
}

/* ---- relu, positive ---- */

static PyObject *m_relu(PyObject *self, PyObject *unused) {
    return method_op(self, NT_OP_RELU);
}
static PyObject *m_relu_(PyObject *self, PyObject *unused) {
    return method_op_(self, NT_OP_RELU);
}

/* torch.relu(input, inplace=False): nn.functional.relu's signature (PyTorch's torch.relu
 * has no `inplace`; accepting it lets nn.functional re-export this one). */
static PyObject *f_relu(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames) {
    static const char *const kwlist[] = {"input", "inplace", NULL};
    PyObject *v[2];
    nt_tensor *t;
    if (nt_py_parse_args("relu", args, nargs, kwnames, kwlist, 2, v) < 0 ||
        input_tensor("relu", v[0], &t) < 0)
        return NULL;
    int inplace = v[1] ? PyObject_IsTrue(v[1]) : 0;
    if (inplace < 0) return NULL;
    return inplace ? method_op_(v[0], NT_OP_RELU) : method_op(v[0], NT_OP_RELU);
}

static PyObject *f_relu_(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    return function_op_("relu_", NT_OP_RELU, args, nargs, kwnames);
}

/* positive returns its input itself. */
static PyObject *positive_of(PyObject *self) {
    nt_tensor *r = NULL;
    nt_status st = nt_positive(nt_py_tensor(self), &r);
    if (st != NT_OK) return nt_py_raise(st);
    nt_tensor_release(r);
    Py_INCREF(self);
    return self;
}

static PyObject *m_positive(PyObject *self, PyObject *unused) {
    return positive_of(self);
}

static PyObject *f_positive(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    static const char *const kwlist[] = {"input", NULL};
    PyObject *v[1];
    nt_tensor *t;
    if (nt_py_parse_args("positive", args, nargs, kwnames, kwlist, 1, v) < 0 ||
        input_tensor("positive", v[0], &t) < 0)
        return NULL;
    return positive_of(v[0]);
}

/* ---- number slots ---- */

static PyObject *nb_negative(PyObject *self) {
    return method_op(self, NT_OP_NEG);
}
static PyObject *nb_positive(PyObject *self) {
    return positive_of(self);
}
static PyObject *nb_absolute(PyObject *self) {
    return method_op(self, NT_OP_ABS);
}
static PyObject *nb_invert(PyObject *self) {
    if (nt_dtype_is_floating(nt_tensor_dtype(nt_py_tensor(self)))) {
        PyErr_SetString(PyExc_TypeError,
                        "~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors");
        return NULL;
    }
    return method_op(self, NT_OP_BITWISE_NOT);
}

int nt_py_unary_prepare(PyTypeObject *tensor_type) {
    nt_py_tensor_number_methods.nb_negative = nb_negative;
    nt_py_tensor_number_methods.nb_positive = nb_positive;
    nt_py_tensor_number_methods.nb_absolute = nb_absolute;
    nt_py_tensor_number_methods.nb_invert = nb_invert;
    return 0;
}

/* ---- tables ---- */

#define FASTCALL_KW METH_FASTCALL | METH_KEYWORDS
#define METHOD_ROWS(name, OP, F)                                                                   \
    {#name, m_##name, METH_NOARGS, "Tensor." #name "(): elementwise, names kept."},                \
        {#name "_", m_##name##_, METH_NOARGS, "Tensor." #name "_(): in place."},
#define IF_1(...) __VA_ARGS__
#define IF_0(...)
#define FUNCTION_ROWS(name, OP, F)                                                                 \
    {#name, (PyCFunction)(void (*)(void))f_##name, FASTCALL_KW,                                    \
     "torch." #name "(input, *, out=None): elementwise, names kept."},                             \
        IF_##F({#name "_", (PyCFunction)(void (*)(void))f_##name##_, FASTCALL_KW,                  \
                "torch." #name "_(input): in place."}, )

PyMethodDef nt_py_tensor_unary_methods[] = {
    OPS(METHOD_ROWS){"round", (PyCFunction)(void (*)(void))m_round, FASTCALL_KW,
                     "Tensor.round(*, decimals=0): half to even."},
    {"round_", (PyCFunction)(void (*)(void))m_round_, FASTCALL_KW,
     "Tensor.round_(*, decimals=0): in place."},
    {"relu", m_relu, METH_NOARGS, "Tensor.relu(): max(x, 0)."},
    {"relu_", m_relu_, METH_NOARGS, "Tensor.relu_(): in place."},
    {"positive", m_positive, METH_NOARGS, "Tensor.positive(): the tensor itself."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_unary_functions[] = {
    OPS(FUNCTION_ROWS){"round", (PyCFunction)(void (*)(void))f_round, FASTCALL_KW,
                       "torch.round(input, *, decimals=0, out=None): half to even."},
    {"round_", (PyCFunction)(void (*)(void))f_round_, FASTCALL_KW,
     "torch.round_(input, *, decimals=0): in place."},
    {"relu", (PyCFunction)(void (*)(void))f_relu, FASTCALL_KW,
     "torch.relu(input, inplace=False): max(x, 0) (nn.functional's signature)."},
    {"relu_", (PyCFunction)(void (*)(void))f_relu_, FASTCALL_KW, "torch.relu_(input): in place."},
    {"positive", (PyCFunction)(void (*)(void))f_positive, FASTCALL_KW,
     "torch.positive(input): input itself."},
    {NULL, NULL, 0, NULL},
};
