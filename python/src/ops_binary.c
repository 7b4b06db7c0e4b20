/*
 * ops_binary.c — the pointwise binary family in Python: Tensor methods (add, sub, mul,
 * div, ..., their in-place `_` forms), module functions (torch.add(input, other, *,
 * alpha=1, out=None), torch.where, torch.clamp, ...), the arithmetic, bitwise and
 * comparison operators (number slots and tp_richcompare, installed by this family's
 * `prepare` hook) and identity hashing.
 *
 * Every entry point is a thin table-driven wrapper over nt_binary_ex (ntensor.h): the
 * descriptor says which op, whether the other operand may be a Python number, and which
 * keywords exist. Python numbers travel as scalars (PyTorch's "wrapped numbers", the lowest
 * promotion category); a zero-dim tensor stays a tensor. Large work runs without the GIL.
 */
#include <string.h>

#include "pyntensor.h"

enum {
    F_ALPHA = 1,    /* takes alpha= (add, sub) */
    F_SCALAR = 2,   /* the other operand may be a Python number */
    F_ROUNDING = 4, /* takes rounding_mode= (div) */
    F_SELF_NUM = 8, /* the module function accepts a number as its first argument (pow) */
    F_NO_INPLACE = 16,
};

typedef struct binop_desc {
    const char *name; /* the method / function name */
    nt_binary_op op;
    unsigned flags;
    const char *other; /* the second parameter's name */
} binop_desc;

enum {
    B_ADD, B_SUB, B_SUBTRACT, B_MUL, B_MULTIPLY, B_DIV, B_DIVIDE, B_TRUE_DIVIDE, B_FLOOR_DIVIDE,
    B_REMAINDER, B_POW, B_ATAN2, B_MAXIMUM, B_MINIMUM, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE,
    B_BITWISE_AND, B_BITWISE_OR, B_BITWISE_XOR, B_LOGICAL_AND, B_LOGICAL_OR, B_LOGICAL_XOR,
    B_COUNT
};

static const binop_desc binops[B_COUNT] = {
    [B_ADD] = {"add", NT_BINARY_ADD, F_ALPHA | F_SCALAR, "other"},
    [B_SUB] = {"sub", NT_BINARY_SUB, F_ALPHA | F_SCALAR, "other"},
    [B_SUBTRACT] = {"subtract", NT_BINARY_SUB, F_ALPHA | F_SCALAR, "other"},
    [B_MUL] = {"mul", NT_BINARY_MUL, F_SCALAR, "other"},
    [B_MULTIPLY] = {"multiply", NT_BINARY_MUL, F_SCALAR, "other"},
    [B_DIV] = {"div", NT_BINARY_DIV, F_SCALAR | F_ROUNDING, "other"},
    [B_DIVIDE] = {"divide", NT_BINARY_DIV, F_SCALAR | F_ROUNDING, "other"},
    [B_TRUE_DIVIDE] = {"true_divide", NT_BINARY_DIV, F_SCALAR, "other"},
    [B_FLOOR_DIVIDE] = {"floor_divide", NT_BINARY_DIV_FLOOR, F_SCALAR, "other"},
    [B_REMAINDER] = {"remainder", NT_BINARY_REMAINDER, F_SCALAR, "other"},
    [B_POW] = {"pow", NT_BINARY_POW, F_SCALAR | F_SELF_NUM, "exponent"},
    [B_ATAN2] = {"atan2", NT_BINARY_ATAN2, 0, "other"},
    [B_MAXIMUM] = {"maximum", NT_BINARY_MAXIMUM, F_NO_INPLACE, "other"},
    [B_MINIMUM] = {"minimum", NT_BINARY_MINIMUM, F_NO_INPLACE, "other"},
    [B_EQ] = {"eq", NT_BINARY_EQ, F_SCALAR, "other"},
    [B_NE] = {"ne", NT_BINARY_NE, F_SCALAR, "other"},
    [B_LT] = {"lt", NT_BINARY_LT, F_SCALAR, "other"},
    [B_LE] = {"le", NT_BINARY_LE, F_SCALAR, "other"},
    [B_GT] = {"gt", NT_BINARY_GT, F_SCALAR, "other"},
    [B_GE] = {"ge", NT_BINARY_GE, F_SCALAR, "other"},
    [B_BITWISE_AND] = {"bitwise_and", NT_BINARY_BITWISE_AND, F_SCALAR, "other"},
    [B_BITWISE_OR] = {"bitwise_or", NT_BINARY_BITWISE_OR, F_SCALAR, "other"},
    [B_BITWISE_XOR] = {"bitwise_xor", NT_BINARY_BITWISE_XOR, F_SCALAR, "other"},
    [B_LOGICAL_AND] = {"logical_and", NT_BINARY_LOGICAL_AND, 0, "other"},
    [B_LOGICAL_OR] = {"logical_or", NT_BINARY_LOGICAL_OR, 0, "other"},
    [B_LOGICAL_XOR] = {"logical_xor", NT_BINARY_LOGICAL_XOR, 0, "other"},
};

/* ------------------------------------------------------------------ helpers */

static int is_number(PyObject *o) {
    return PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o);
}

/* The type name PyTorch prints for an argument. */
static const char *type_name(PyObject *o) {
    if (nt_py_is_tensor(o)) return "Tensor";
    return Py_TYPE(o)->tp_name;
}

/* o as an operand: a tensor, or (when numbers are allowed) a scalar. Returns 0, 1 when o
 * is neither (nothing raised), or -1 with an error. */
static int operand_from(PyObject *o, int allow_number, nt_operand *out) {
    if (nt_py_is_tensor(o)) {
        *out = nt_operand_tensor(nt_py_tensor(o));
        return 0;
    }
    if (allow_number && is_number(o)) {
        nt_scalar s;
        if (nt_py_scalar_from_object(o, &s) < 0) return -1;
        *out = nt_operand_scalar(s);
        return 0;
    }
    return 1;
}

static int64_t operand_numel(const nt_operand *o) {
    return o->tensor ? nt_tensor_numel(o->tensor) : 0;
}

/* Runs nt_binary_ex, without the GIL when the work is large. */
static nt_status call_binary(nt_binary_op op, nt_operand a, nt_operand b, const nt_scalar *alpha,
                             nt_tensor *out, bool inplace, nt_tensor **result) {
    nt_status st;
    if (operand_numel(&a) > NT_PY_NOGIL_NUMEL || operand_numel(&b) > NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_binary_ex(op, a, b, alpha, out, inplace, result);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_binary_ex(op, a, b, alpha, out, inplace, result);
    }
    return st;
}

/* The result of a call that wrote into `target_obj` (in place or out=): that same object. */
static PyObject *same_object(nt_status st, nt_tensor *result, PyObject *target_obj) {
    if (st != NT_OK) return nt_py_raise(st);
    nt_tensor_release(result);
    Py_INCREF(target_obj);
    return target_obj;
}

static PyObject *must_be_tensor(const char *fname, const char *arg, int position, PyObject *o) {
    if (position > 0)
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be Tensor, not %s",
                     fname, arg, position, type_name(o));
    else
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s", fname, arg,
                     type_name(o));
    return NULL;
}

static int parse_rounding(PyObject *o, nt_binary_op *op) {
    if (!o || o == Py_None) return 0;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "div(): argument 'rounding_mode' must be str, not %s",
                     type_name(o));
        return -1;
    }
    const char *mode = PyUnicode_AsUTF8(o);
    if (!mode) return -1;
    if (strcmp(mode, "trunc") == 0) {
        *op = NT_BINARY_DIV_TRUNC;
    } else if (strcmp(mode, "floor") == 0) {
        *op = NT_BINARY_DIV_FLOOR;
    } else {
        PyErr_Format(PyExc_RuntimeError,
                     "div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                     "found '%s'",
                     mode);
        return -1;
    }
    return 0;
}

static int parse_alpha(const char *fname, PyObject *o, nt_scalar *alpha, const nt_scalar **p) {
    *p = NULL;
    if (!o) return 0;
    if (!is_number(o) && !(nt_py_is_tensor(o) && nt_tensor_ndim(nt_py_tensor(o)) == 0)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'alpha' must be Number, not %s", fname,
                     type_name(o));
        return -1;
    }
    if (nt_py_scalar_from_object(o, alpha) < 0) return -1;
    *p = alpha;
    return 0;
}

/* ------------------------------------------------------------------ the generic call */

/* self.op(other, ...) (self set, module false) or torch.op(input, other, ..., out=None). */
static PyObject *binop_call(const binop_desc *d, PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames, bool inplace) {
    const char *kw_method[4] = {d->other, NULL, NULL, NULL};
    const char *kw_module[5] = {"input", d->other, NULL, NULL, NULL};
    const char *extra = (d->flags & F_ALPHA) ? "alpha" : (d->flags & F_ROUNDING) ? "rounding_mode"
                                                                                : NULL;
    kw_method[1] = extra;
    kw_module[2] = extra;
    if (extra)
        kw_module[3] = "out";
    else
        kw_module[2] = "out";
    PyObject *v[4] = {NULL, NULL, NULL, NULL};
    char fname[64];
    snprintf(fname, sizeof fname, "%s%s", d->name, inplace ? "_" : "");
    PyObject *first, *second, *extra_v, *out_v = NULL;
    if (self) {
        if (nt_py_parse_args(fname, args, nargs, kwnames, kw_method, 1, v) < 0) return NULL;
        first = self;
        second = v[0];
        extra_v = extra ? v[1] : NULL;
    } else {
        if (nt_py_parse_args(fname, args, nargs, kwnames, kw_module, 2, v) < 0) return NULL;
        first = v[0];
        second = v[1];
        extra_v = extra ? v[2] : NULL;
        out_v = extra ? v[3] : v[2];
    }
    if (!first || !second) {
        PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional arguments: \"%s\"",
                     fname, !first ? "input" : d->other);
        return NULL;
    }
    nt_operand a, b;
    int rc = operand_from(first, !self && (d->flags & F_SELF_NUM), &a);
    if (rc < 0) return NULL;
    if (rc > 0) return must_be_tensor(fname, "input", 1, first);
    rc = operand_from(second, (d->flags & F_SCALAR) != 0, &b);
    if (rc < 0) return NULL;
    if (rc > 0) return must_be_tensor(fname, d->other, self ? 1 : 2, second);
    if (!a.tensor && !b.tensor) return must_be_tensor(fname, d->other, 2, second);

    nt_binary_op op = d->op;
    nt_scalar alpha_value;
    const nt_scalar *alpha = NULL;
    if ((d->flags & F_ROUNDING) && parse_rounding(extra_v, &op) < 0) return NULL;
    if ((d->flags & F_ALPHA) && parse_alpha(fname, extra_v, &alpha_value, &alpha) < 0)
        return NULL;
    nt_tensor *out = NULL;
    if (out_v && out_v != Py_None) {
        if (!nt_py_is_tensor(out_v)) return must_be_tensor(fname, "out", 0, out_v);
        out = nt_py_tensor(out_v);
    }
    nt_tensor *result = NULL;
    nt_status st = call_binary(op, a, b, alpha, out, inplace, &result);
    if (inplace) return same_object(st, result, self);
    if (out) return same_object(st, result, out_v);
    return nt_py_result(st, result);
}

#define BINOP_WRAPPERS(ID)                                                                     \
    static PyObject *m_##ID(PyObject *self, PyObject *const *args, Py_ssize_t nargs,           \
                            PyObject *kwnames) {                                               \
        return binop_call(&binops[ID], self, args, nargs, kwnames, false);                     \
    }                                                                                          \
    static __attribute__((unused)) PyObject *mi_##ID(PyObject *self, PyObject *const *args, Py_ssize_t nargs,          \
                             PyObject *kwnames) {                                              \
        return binop_call(&binops[ID], self, args, nargs, kwnames, true);                      \
    }                                                                                          \
    static PyObject *f_##ID(PyObject *module, PyObject *const *args, Py_ssize_t nargs,         \
                            PyObject *kwnames) {                                               \
        (void)module;                                                                          \
        return binop_call(&binops[ID], NULL, args, nargs, kwnames, false);                     \
    }

BINOP_WRAPPERS(B_ADD)
BINOP_WRAPPERS(B_SUB)
BINOP_WRAPPERS(B_SUBTRACT)
BINOP_WRAPPERS(B_MUL)
BINOP_WRAPPERS(B_MULTIPLY)
BINOP_WRAPPERS(B_DIV)
BINOP_WRAPPERS(B_DIVIDE)
BINOP_WRAPPERS(B_TRUE_DIVIDE)
BINOP_WRAPPERS(B_FLOOR_DIVIDE)
BINOP_WRAPPERS(B_REMAINDER)
BINOP_WRAPPERS(B_POW)
BINOP_WRAPPERS(B_ATAN2)
BINOP_WRAPPERS(B_MAXIMUM)
BINOP_WRAPPERS(B_MINIMUM)
BINOP_WRAPPERS(B_EQ)
BINOP_WRAPPERS(B_NE)
BINOP_WRAPPERS(B_LT)
BINOP_WRAPPERS(B_LE)
BINOP_WRAPPERS(B_GT)
BINOP_WRAPPERS(B_GE)
BINOP_WRAPPERS(B_BITWISE_AND)
BINOP_WRAPPERS(B_BITWISE_OR)
BINOP_WRAPPERS(B_BITWISE_XOR)
BINOP_WRAPPERS(B_LOGICAL_AND)
BINOP_WRAPPERS(B_LOGICAL_OR)
BINOP_WRAPPERS(B_LOGICAL_XOR)

/* ------------------------------------------------------------------ where */

/* torch.where(condition, input, other, *, out=None); input/other may be numbers. */
static PyObject *where_impl(PyObject *cond_o, PyObject *a_o, PyObject *b_o, PyObject *out_v,
                            const char *fname, int method) {
    if (!nt_py_is_tensor(cond_o)) return must_be_tensor(fname, "condition", method ? 1 : 1, cond_o);
    nt_operand a, b;
    int rc = operand_from(a_o, 1, &a);
    if (rc < 0) return NULL;
    if (rc > 0) return must_be_tensor(fname, "input", 2, a_o);
    rc = operand_from(b_o, 1, &b);
    if (rc < 0) return NULL;
    if (rc > 0) return must_be_tensor(fname, "other", 3, b_o);
    nt_tensor *out = NULL;
    if (out_v && out_v != Py_None) {
        if (!nt_py_is_tensor(out_v)) return must_be_tensor(fname, "out", 0, out_v);
        out = nt_py_tensor(out_v);
    }
    nt_tensor *result = NULL;
    nt_status st = nt_where(nt_py_tensor(cond_o), a, b, out, &result);
    if (out) return same_object(st, result, out_v);
    return nt_py_result(st, result);
}

static PyObject *f_where(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    static const char *const kwlist[] = {"condition", "input", "other", "out", NULL};
    PyObject *v[4];
    if (nt_py_parse_args("where", args, nargs, kwnames, kwlist, 3, v) < 0) return NULL;
    if (!v[0]) {
        PyErr_SetString(PyExc_TypeError,
                        "where() missing 1 required positional arguments: \"condition\"");
        return NULL;
    }
    if (!v[1] && !v[2]) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "torch.where(condition) (nonzero) is not part of ntensor's binary family");
        return NULL;
    }
    if (!v[1] || !v[2]) {
        PyErr_Format(PyExc_TypeError, "where() missing 1 required positional arguments: \"%s\"",
                     !v[1] ? "input" : "other");
        return NULL;
    }
    return where_impl(v[0], v[1], v[2], v[3], "where", 0);
}

/* self.where(condition, other) == torch.where(condition, self, other). */
static PyObject *m_where(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    static const char *const kwlist[] = {"condition", "other", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("where", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0] || !v[1]) {
        PyErr_Format(PyExc_TypeError, "where() missing 1 required positional arguments: \"%s\"",
                     !v[0] ? "condition" : "other");
        return NULL;
    }
    return where_impl(v[0], self, v[1], NULL, "where", 1);
}

/* ------------------------------------------------------------------ clamp, clip */

/* A bound: None (absent), a number, or a tensor (a zero-dim one counts as a number when the
 * other bound is a number, as PyTorch's parser takes it for a Scalar). */
static PyObject *clamp_impl(const char *fname, PyObject *self, PyObject *min_o, PyObject *max_o,
                            PyObject *out_v, bool inplace) {
    nt_operand lo, hi;
    nt_operand *plo = NULL, *phi = NULL;
    int has_lo = min_o && min_o != Py_None, has_hi = max_o && max_o != Py_None;
    int lo_t = has_lo && nt_py_is_tensor(min_o), hi_t = has_hi && nt_py_is_tensor(max_o);
    /* Mixed tensor/number bounds: a zero-dim tensor reads as a number (PyTorch's Scalar). */
    if (lo_t != hi_t && has_lo && has_hi) {
        PyObject *t = lo_t ? min_o : max_o;
        if (nt_tensor_ndim(nt_py_tensor(t)) == 0) {
            lo_t = hi_t = 0;
        } else {
            PyErr_Format(PyExc_TypeError,
                         "%s() received an invalid combination of arguments - got (Tensor, %s, "
                         "%s), but expected one of:\n * (Tensor input, Tensor min, Tensor max, *, "
                         "Tensor out)\n * (Tensor input, Number min, Number max, *, Tensor out)\n",
                         fname, type_name(min_o), type_name(max_o));
            return NULL;
        }
    }
    if (has_lo) {
        if (lo_t) {
            lo = nt_operand_tensor(nt_py_tensor(min_o));
        } else {
            nt_scalar s;
            if (!is_number(min_o) && !nt_py_is_tensor(min_o)) {
                PyErr_Format(PyExc_TypeError, "%s(): argument 'min' must be Number, not %s",
                             fname, type_name(min_o));
                return NULL;
            }
            if (nt_py_scalar_from_object(min_o, &s) < 0) return NULL;
            lo = nt_operand_scalar(s);
        }
        plo = &lo;
    }
    if (has_hi) {
        if (hi_t) {
            hi = nt_operand_tensor(nt_py_tensor(max_o));
        } else {
            nt_scalar s;
            if (!is_number(max_o) && !nt_py_is_tensor(max_o)) {
                PyErr_Format(PyExc_TypeError, "%s(): argument 'max' must be Number, not %s",
                             fname, type_name(max_o));
                return NULL;
            }
            if (nt_py_scalar_from_object(max_o, &s) < 0) return NULL;
            hi = nt_operand_scalar(s);
        }
        phi = &hi;
    }
    nt_tensor *out = NULL;
    if (out_v && out_v != Py_None) {
        if (!nt_py_is_tensor(out_v)) return must_be_tensor(fname, "out", 0, out_v);
        out = nt_py_tensor(out_v);
    }
    nt_tensor *t = nt_py_tensor(self), *result = NULL;
    nt_status st;
    if (nt_tensor_numel(t) > NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_clamp(t, plo, phi, out, inplace, &result);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_clamp(t, plo, phi, out, inplace, &result);
    }
    if (inplace) return same_object(st, result, self);
    if (out) return same_object(st, result, out_v);
    return nt_py_result(st, result);
}

static PyObject *clamp_method(const char *fname, PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames, bool inplace) {
    static const char *const kwlist[] = {"min", "max", NULL};
    PyObject *v[2];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    return clamp_impl(fname, self, v[0], v[1], NULL, inplace);
}

static PyObject *clamp_function(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    static const char *const kwlist[] = {"input", "min", "max", "out", NULL};
    PyObject *v[4];
    if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 3, v) < 0) return NULL;
    if (!v[0]) {
        PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional arguments: \"input\"",
                     fname);
        return NULL;
    }
    if (!nt_py_is_tensor(v[0])) return must_be_tensor(fname, "input", 1, v[0]);
    return clamp_impl(fname, v[0], v[1], v[2], v[3], false);
}

#define CLAMP_WRAPPERS(NAME)                                                                   \
    static PyObject *m_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,         \
                              PyObject *kwnames) {                                             \
        return clamp_method(#NAME, self, args, nargs, kwnames, false);                         \
    }                                                                                          \
    static PyObject *mi_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,        \
                               PyObject *kwnames) {                                            \
        return clamp_method(#NAME "_", self, args, nargs, kwnames, true);                      \
    }                                                                                          \
    static PyObject *f_##NAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,       \
                              PyObject *kwnames) {                                             \
        (void)module;                                                                          \
        return clamp_function(#NAME, args, nargs, kwnames);                                    \
    }
CLAMP_WRAPPERS(clamp)
CLAMP_WRAPPERS(clip)

/* ------------------------------------------------------------------ isclose, allclose */

static int parse_close(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames, PyObject *self, nt_tensor **a, nt_tensor **b,
                       double *rtol, double *atol, bool *equal_nan) {
    static const char *const kw_module[] = {"input", "other", "rtol", "atol", "equal_nan", NULL};
    PyObject *v[5];
    if (self) {
        if (nt_py_parse_args(fname, args, nargs, kwnames, kw_module + 1, 4, v + 1) < 0)
            return -1;
        v[0] = self;
    } else if (nt_py_parse_args(fname, args, nargs, kwnames, kw_module, 5, v) < 0) {
        return -1;
    }
    if (!v[0] || !v[1]) {
        PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional arguments: \"%s\"",
                     fname, !v[0] ? "input" : "other");
        return -1;
    }
    for (int k = 0; k < 2; k++)
        if (!nt_py_is_tensor(v[k])) {
            must_be_tensor(fname, kw_module[k], self ? k : k + 1, v[k]);
            return -1;
        }
    *a = nt_py_tensor(v[0]);
    *b = nt_py_tensor(v[1]);
    *rtol = 1e-05;
    *atol = 1e-08;
    *equal_nan = false;
    if (v[2] && (*rtol = PyFloat_AsDouble(v[2])) == -1.0 && PyErr_Occurred()) return -1;
    if (v[3] && (*atol = PyFloat_AsDouble(v[3])) == -1.0 && PyErr_Occurred()) return -1;
    if (v[4]) {
        int e = PyObject_IsTrue(v[4]);
        if (e < 0) return -1;
        *equal_nan = e;
    }
    return 0;
}

static PyObject *close_call(const char *fname, PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames, bool all) {
    nt_tensor *a, *b;
    double rtol, atol;
    bool equal_nan;
    if (parse_close(fname, args, nargs, kwnames, self, &a, &b, &rtol, &atol, &equal_nan) < 0)
        return NULL;
    if (all) {
        bool r;
        nt_status st = nt_allclose(a, b, rtol, atol, equal_nan, &r);
        if (st != NT_OK) return nt_py_raise(st);
        return PyBool_FromLong(r);
    }
    nt_tensor *out = NULL;
    nt_status st = nt_isclose(a, b, rtol, atol, equal_nan, &out);
    return nt_py_result(st, out);
}

static PyObject *m_isclose(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    return close_call("isclose", self, args, nargs, kwnames, false);
}
static PyObject *f_isclose(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    return close_call("isclose", NULL, args, nargs, kwnames, false);
}
static PyObject *m_allclose(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return close_call("allclose", self, args, nargs, kwnames, true);
}
static PyObject *f_allclose(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    return close_call("allclose", NULL, args, nargs, kwnames, true);
}

/* ------------------------------------------------------------------ operators */

/* a op b for the number protocol: one side is a Tensor; the other a Tensor or a Python
 * number, else NotImplemented (so Python can try the other operand or raise its
 * "unsupported operand type(s)"). */
static PyObject *slot_binary(nt_binary_op op, PyObject *a, PyObject *b, bool inplace) {
    nt_operand x, y;
    if (operand_from(a, 1, &x) != 0 || operand_from(b, 1, &y) != 0) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (!x.tensor && !y.tensor) Py_RETURN_NOTIMPLEMENTED;
    if (inplace && !x.tensor) Py_RETURN_NOTIMPLEMENTED;
    nt_tensor *result = NULL;
    nt_status st = call_binary(op, x, y, NULL, NULL, inplace, &result);
    if (inplace) return same_object(st, result, a);
    return nt_py_result(st, result);
}

#define SLOT(NAME, OP)                                                                         \
    static PyObject *nb_##NAME(PyObject *a, PyObject *b) { return slot_binary(OP, a, b, false); } \
    static PyObject *nb_inplace_##NAME(PyObject *a, PyObject *b) {                             \
        return slot_binary(OP, a, b, true);                                                    \
    }
SLOT(add, NT_BINARY_ADD)
SLOT(subtract, NT_BINARY_SUB)
SLOT(multiply, NT_BINARY_MUL)
SLOT(true_divide, NT_BINARY_DIV)
SLOT(floor_divide, NT_BINARY_DIV_FLOOR)
SLOT(remainder, NT_BINARY_REMAINDER)
SLOT(and, NT_BINARY_BITWISE_AND)
SLOT(or, NT_BINARY_BITWISE_OR)
SLOT(xor, NT_BINARY_BITWISE_XOR)

static PyObject *nb_power(PyObject *a, PyObject *b, PyObject *mod) {
    if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return slot_binary(NT_BINARY_POW, a, b, false);
}
static PyObject *nb_inplace_power(PyObject *a, PyObject *b, PyObject *mod) {
    if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return slot_binary(NT_BINARY_POW, a, b, true);
}

static PyObject *tensor_richcompare(PyObject *a, PyObject *b, int op) {
    static const nt_binary_op ops[6] = {[Py_LT] = NT_BINARY_LT, [Py_LE] = NT_BINARY_LE,
                                        [Py_EQ] = NT_BINARY_EQ, [Py_NE] = NT_BINARY_NE,
                                        [Py_GT] = NT_BINARY_GT, [Py_GE] = NT_BINARY_GE};
    if (op < 0 || op > Py_GE) Py_RETURN_NOTIMPLEMENTED;
    return slot_binary(ops[op], a, b, false);
}

/* Tensors hash by identity, as PyTorch's do (a type with tp_richcompare and no tp_hash
 * would be unhashable). */
static Py_hash_t tensor_hash(PyObject *self) {
    uintptr_t p = (uintptr_t)self;
    Py_hash_t h = (Py_hash_t)((p >> 4) | (p << (8 * sizeof(void *) - 4)));
    return h == -1 ? -2 : h;
}

static int binary_prepare(PyTypeObject *type) {
    PyNumberMethods *nb = &nt_py_tensor_number_methods;
    nb->nb_add = nb_add;
    nb->nb_subtract = nb_subtract;
    nb->nb_multiply = nb_multiply;
    nb->nb_true_divide = nb_true_divide;
    nb->nb_floor_divide = nb_floor_divide;
    nb->nb_remainder = nb_remainder;
    nb->nb_power = nb_power;
    nb->nb_and = nb_and;
    nb->nb_or = nb_or;
    nb->nb_xor = nb_xor;
    nb->nb_inplace_add = nb_inplace_add;
    nb->nb_inplace_subtract = nb_inplace_subtract;
    nb->nb_inplace_multiply = nb_inplace_multiply;
    nb->nb_inplace_true_divide = nb_inplace_true_divide;
    nb->nb_inplace_floor_divide = nb_inplace_floor_divide;
    nb->nb_inplace_remainder = nb_inplace_remainder;
    nb->nb_inplace_power = nb_inplace_power;
    nb->nb_inplace_and = nb_inplace_and;
    nb->nb_inplace_or = nb_inplace_or;
    nb->nb_inplace_xor = nb_inplace_xor;
    type->tp_richcompare = tensor_richcompare;
    type->tp_hash = tensor_hash;
    return 0;
}

/* ------------------------------------------------------------------ tables */

#define KW (METH_FASTCALL | METH_KEYWORDS)
#define FN(f) (PyCFunction)(void (*)(void))(f)
#define METHOD(name, ID) {name, FN(m_##ID), KW, NULL}, {name "_", FN(mi_##ID), KW, NULL}
#define FUNCTION(name, ID) {name, FN(f_##ID), KW, NULL}

PyMethodDef nt_py_tensor_binary_methods[] = {
    METHOD("add", B_ADD),
    METHOD("sub", B_SUB),
    METHOD("subtract", B_SUBTRACT),
    METHOD("mul", B_MUL),
    METHOD("multiply", B_MULTIPLY),
    METHOD("div", B_DIV),
    METHOD("divide", B_DIVIDE),
    METHOD("true_divide", B_TRUE_DIVIDE),
    METHOD("floor_divide", B_FLOOR_DIVIDE),
    METHOD("remainder", B_REMAINDER),
    METHOD("pow", B_POW),
    METHOD("atan2", B_ATAN2),
    {"maximum", FN(m_B_MAXIMUM), KW, NULL},
    {"minimum", FN(m_B_MINIMUM), KW, NULL},
    METHOD("eq", B_EQ),
    METHOD("ne", B_NE),
    METHOD("lt", B_LT),
    METHOD("le", B_LE),
    METHOD("gt", B_GT),
    METHOD("ge", B_GE),
    METHOD("bitwise_and", B_BITWISE_AND),
    METHOD("bitwise_or", B_BITWISE_OR),
    METHOD("bitwise_xor", B_BITWISE_XOR),
    METHOD("logical_and", B_LOGICAL_AND),
    METHOD("logical_or", B_LOGICAL_OR),
    METHOD("logical_xor", B_LOGICAL_XOR),
    {"where", FN(m_where), KW, NULL},
    {"clamp", FN(m_clamp), KW, NULL},
    {"clamp_", FN(mi_clamp), KW, NULL},
    {"clip", FN(m_clip), KW, NULL},
    {"clip_", FN(mi_clip), KW, NULL},
    {"isclose", FN(m_isclose), KW, NULL},
    {"allclose", FN(m_allclose), KW, NULL},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_binary_functions[] = {
    FUNCTION("add", B_ADD),
    FUNCTION("sub", B_SUB),
    FUNCTION("subtract", B_SUBTRACT),
    FUNCTION("mul", B_MUL),
    FUNCTION("multiply", B_MULTIPLY),
    FUNCTION("div", B_DIV),
    FUNCTION("divide", B_DIVIDE),
    FUNCTION("true_divide", B_TRUE_DIVIDE),
    FUNCTION("floor_divide", B_FLOOR_DIVIDE),
    FUNCTION("remainder", B_REMAINDER),
    FUNCTION("pow", B_POW),
    FUNCTION("atan2", B_ATAN2),
    FUNCTION("maximum", B_MAXIMUM),
    FUNCTION("minimum", B_MINIMUM),
    FUNCTION("eq", B_EQ),
    FUNCTION("ne", B_NE),
    FUNCTION("lt", B_LT),
    FUNCTION("le", B_LE),
    FUNCTION("gt", B_GT),
    FUNCTION("ge", B_GE),
    FUNCTION("bitwise_and", B_BITWISE_AND),
    FUNCTION("bitwise_or", B_BITWISE_OR),
    FUNCTION("bitwise_xor", B_BITWISE_XOR),
    FUNCTION("logical_and", B_LOGICAL_AND),
    FUNCTION("logical_or", B_LOGICAL_OR),
    FUNCTION("logical_xor", B_LOGICAL_XOR),
    {"where", FN(f_where), KW, NULL},
    {"clamp", FN(f_clamp), KW, NULL},
    {"clip", FN(f_clip), KW, NULL},
    {"isclose", FN(f_isclose), KW, NULL},
    {"allclose", FN(f_allclose), KW, NULL},
    {NULL, NULL, 0, NULL},
};

int nt_py_binary_prepare(PyTypeObject *type) {
    return binary_prepare(type);
}
