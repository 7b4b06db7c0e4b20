/*
 * ops_linalg.c — the "linalg" family of the Python extension: the matrix products mm, mv,
 * dot, bmm, matmul, addmm, addmv (methods and module functions, out=), the in-place
 * addmm_/addmv_, and the `@` operator (nb_matrix_multiply, set in this family's prepare
 * hook; `x @= y` rebinds x to a new tensor, as in PyTorch, which has no in-place matmul).
 *
 * Arguments are parsed by position or keyword with PyTorch 1.13's parameter names and its
 * parser's texts ("mm(): argument 'mat2' (position 2) must be Tensor, not int"). The GIL is
 * released around products that are not tiny.
 */
#include "ops_linalg.h"
#include "arglists.h"

#include <stdbool.h>

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* Products with at least this many multiply-adds run without the GIL. */
#define LINALG_NOGIL_WORK 32768

#define LINALG_CALL(work, st, expr) NT_PY_CALL_NOGIL_IF((work) >= LINALG_NOGIL_WORK, st, expr)

/* An estimate of the multiply-adds of a @ b. */
static int64_t work_of(const nt_tensor *a, const nt_tensor *b) {
    int nb = nt_tensor_ndim(b);
    int64_t last = nb >= 2 ? nt_tensor_sizes(b)[nb - 1] : 1;
    return nt_tensor_numel(a) * (last > 0 ? last : 1);
}

/* A Tensor argument: PyTorch's "mm(): argument 'mat2' (position 2) must be Tensor, not
 * int" (the position is omitted for one given by keyword). */
static int tensor_arg(const char *fname, PyObject *o, const char *name, int position,
                      int by_keyword, nt_tensor **out) {
    if (nt_py_is_tensor(o)) {
        *out = nt_py_tensor(o);
        return 0;
    }
    if (by_keyword)
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s", fname, name,
                     nt_py_type_name(o));
    else
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be Tensor, not %s",
                     fname, name, position, nt_py_type_name(o));
    return -1;
}

/* A Number argument (beta, alpha): bool, int, float or a one-element tensor. */
static int number_arg(const char *fname, PyObject *o, const char *name, nt_scalar *out) {
    if (!o) return 0; /* keeps the default */
    if (nt_py_is_tensor(o) && nt_tensor_numel(nt_py_tensor(o)) == 1) {
        nt_status st = nt_item(nt_py_tensor(o), out);
        return st == NT_OK ? 0 : nt_py_raise_int(st);
    }
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o))
        return nt_py_scalar_from_object(o, out);
    if (PyComplex_Check(o)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "value cannot be converted to type float without overflow");
        return -1;
    }
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Number, not %s", fname, name,
                 nt_py_type_name(o));
    return -1;
}

/* The "got (Tensor, Tensor, beta=int)" list of PyTorch's invalid-combination message. */
static PyObject *invalid_combination(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames, const char *expected) {
    char got[512];
    size_t len = 0;
    got[0] = '\0';
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nargs + nkw && len < sizeof got - 64; i++) {
        const char *sep = i ? ", " : "";
        if (i < nargs)
            len +=
                (size_t)snprintf(got + len, sizeof got - len, "%s%s", sep, nt_py_type_name(args[i]));
        else
            len += (size_t)snprintf(got + len, sizeof got - len, "%s%s=%s", sep,
                                    PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i - nargs)),
                                    nt_py_type_name(args[i]));
    }
    PyErr_Format(PyExc_TypeError,
                 "%s() received an invalid combination of arguments - got (%s), but expected (%s)",
                 fname, got, expected);
    return NULL;
}

/* Whether keyword `name` was given (so an error names no position). */
static int given_by_keyword(PyObject *kwnames, const char *name) {
    if (!kwnames) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), name) == 0) return 1;
    return 0;
}

/* ---- the two-operand products: mm, mv, dot, bmm, matmul ---- */

typedef nt_status (*product_fn)(const nt_tensor *, const nt_tensor *, nt_tensor **);
typedef nt_status (*product_out_fn)(nt_tensor *, const nt_tensor *, const nt_tensor *);

typedef struct product {
    const char *name;  /* "mm" */
    const char *other; /* the second parameter: "mat2", "vec", "tensor", "other" */
    product_fn fn;
    product_out_fn out_fn;
} product;

static const product P_MM = {"mm", "mat2", nt_mm, nt_mm_out};
static const product P_MV = {"mv", "vec", nt_mv, nt_mv_out};
static const product P_DOT = {"dot", "tensor", nt_dot, nt_dot_out};
static const product P_BMM = {"bmm", "mat2", nt_bmm, nt_bmm_out};
static const product P_MATMUL = {"matmul", "other", nt_matmul, nt_matmul_out};

static PyObject *run_product(const product *p, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *v[3] = {NULL, NULL, NULL};
    nt_tensor *a, *b, *r;
    if (self) {
        const char *const kwlist[] = {p->other, NULL};
        /* PyTorch's parser reports a missing argument before an unknown keyword */
        if (nargs < 1 && !given_by_keyword(kwnames, p->other))
            return nt_py_missing_args(p->name, 1, (const char *const[]){p->other});
        if (nt_py_parse_args(p->name, args, nargs, kwnames, kwlist, 1, v) < 0) return NULL;
        if (!v[0]) return nt_py_missing_args(p->name, 1, (const char *const[]){p->other});
        a = nt_py_tensor(self);
        if (tensor_arg(p->name, v[0], p->other, 1, given_by_keyword(kwnames, p->other), &b) < 0)
            return NULL;
    } else {
        const char *const kwlist[] = {"input", p->other, "out", NULL};
        bool have_input = nargs >= 1 || given_by_keyword(kwnames, "input");
        bool have_other = nargs >= 2 || given_by_keyword(kwnames, p->other);
        if (nargs <= 2 && (!have_input || !have_other)) {
            const char *missing[2];
            int n = 0;
            if (!have_input) missing[n++] = "input";
            if (!have_other) missing[n++] = p->other;
            return nt_py_missing_args(p->name, n, missing);
        }
        if (nt_py_parse_args(p->name, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
        if (!v[0] || !v[1]) {
            const char *missing[2];
            int n = 0;
            if (!v[0]) missing[n++] = "input";
            if (!v[1]) missing[n++] = p->other;
            return nt_py_missing_args(p->name, n, missing);
        }
        if (tensor_arg(p->name, v[0], "input", 1, given_by_keyword(kwnames, "input"), &a) < 0 ||
            tensor_arg(p->name, v[1], p->other, 2, given_by_keyword(kwnames, p->other), &b) < 0)
            return NULL;
        if (v[2] && v[2] != Py_None) {
            nt_tensor *o;
            if (tensor_arg(p->name, v[2], "out", 3, 1, &o) < 0) return NULL;
            nt_status st;
            LINALG_CALL(work_of(a, b), st, p->out_fn(o, a, b));
            if (st != NT_OK) return nt_py_raise(st);
            Py_INCREF(v[2]);
            return v[2];
        }
    }
    nt_status st;
    LINALG_CALL(work_of(a, b), st, p->fn(a, b, &r));
    return nt_py_result_of(st, &r);
}

#define PRODUCT_WRAPPERS(NAME, P)                                                                  \
    static PyObject *tensor_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,        \
                                   PyObject *kwnames) {                                            \
        return run_product(&P, self, args, nargs, kwnames);                                        \
    }                                                                                              \
    static PyObject *module_##NAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,      \
                                   PyObject *kwnames) {                                            \
        return run_product(&P, NULL, args, nargs, kwnames);                                        \
    }

PRODUCT_WRAPPERS(mm, P_MM)
PRODUCT_WRAPPERS(mv, P_MV)
PRODUCT_WRAPPERS(dot, P_DOT)
PRODUCT_WRAPPERS(bmm, P_BMM)
PRODUCT_WRAPPERS(matmul, P_MATMUL)

/* ---- addmm, addmv and their in-place forms ---- */

typedef struct fused {
    const char *name;                    /* "addmm" */
    const char *p1, *p2;                 /* "mat1", "mat2" */
    const char *method_sig, *module_sig; /* the expected lists of the invalid-combination text */
    nt_status (*fn)(nt_tensor *, const nt_tensor *, const nt_tensor *, nt_scalar, nt_scalar,
                    nt_tensor **);
    nt_status (*out_fn)(nt_tensor *, nt_tensor *, const nt_tensor *, const nt_tensor *, nt_scalar,
                        nt_scalar);
    nt_status (*inplace_fn)(nt_tensor *, const nt_tensor *, const nt_tensor *, nt_scalar,
                            nt_scalar);
} fused;

static const fused F_ADDMM = {
    "addmm",
    "mat1",
    "mat2",
    "Tensor mat1, Tensor mat2, *, Number beta, Number alpha",
    "Tensor input, Tensor mat1, Tensor mat2, *, Number beta, Number alpha, Tensor out",
    nt_addmm,
    nt_addmm_out,
    nt_addmm_,
};
static const fused F_ADDMV = {
    "addmv",
    "mat",
    "vec",
    "Tensor mat, Tensor vec, *, Number beta, Number alpha",
    "Tensor input, Tensor mat, Tensor vec, *, Number beta, Number alpha, Tensor out",
    nt_addmv,
    nt_addmv_out,
    nt_addmv_,
};

static PyObject *run_fused(const fused *f, PyObject *self, bool inplace, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames) {
    char fname[16];
    snprintf(fname, sizeof fname, "%s%s", f->name, inplace ? "_" : "");
    PyObject *v[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    nt_tensor *bias, *m1, *m2, *out = NULL, *r;
    nt_scalar beta = nt_scalar_int(1), alpha = nt_scalar_int(1);
    if (self) {
        const char *const kwlist[] = {f->p1, f->p2, "beta", "alpha", NULL};
        if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
        if (!v[0] || !v[1]) return invalid_combination(fname, args, nargs, kwnames, f->method_sig);
        bias = nt_py_tensor(self);
        if (tensor_arg(fname, v[0], f->p1, 1, given_by_keyword(kwnames, f->p1), &m1) < 0 ||
            tensor_arg(fname, v[1], f->p2, 2, given_by_keyword(kwnames, f->p2), &m2) < 0 ||
            number_arg(fname, v[2], "beta", &beta) < 0 ||
            number_arg(fname, v[3], "alpha", &alpha) < 0)
            return NULL;
    } else {
        const char *const kwlist[] = {"input", f->p1, f->p2, "beta", "alpha", "out", NULL};
        if (nt_py_parse_args(fname, args, nargs, kwnames, kwlist, 3, v) < 0) return NULL;
        if (!v[0] || !v[1] || !v[2])
            return invalid_combination(fname, args, nargs, kwnames, f->module_sig);
        if (tensor_arg(fname, v[0], "input", 1, given_by_keyword(kwnames, "input"), &bias) < 0 ||
            tensor_arg(fname, v[1], f->p1, 2, given_by_keyword(kwnames, f->p1), &m1) < 0 ||
            tensor_arg(fname, v[2], f->p2, 3, given_by_keyword(kwnames, f->p2), &m2) < 0 ||
            number_arg(fname, v[3], "beta", &beta) < 0 ||
            number_arg(fname, v[4], "alpha", &alpha) < 0)
            return NULL;
        if (v[5] && v[5] != Py_None && tensor_arg(fname, v[5], "out", 6, 1, &out) < 0) return NULL;
    }
    nt_status st;
    int64_t work = work_of(m1, m2);
    if (inplace) {
        LINALG_CALL(work, st, f->inplace_fn(bias, m1, m2, beta, alpha));
        if (st != NT_OK) return nt_py_raise(st);
        Py_INCREF(self);
        return self;
    }
    if (out) {
        LINALG_CALL(work, st, f->out_fn(out, bias, m1, m2, beta, alpha));
        if (st != NT_OK) return nt_py_raise(st);
        Py_INCREF(v[5]);
        return v[5];
    }
    LINALG_CALL(work, st, f->fn(bias, m1, m2, beta, alpha, &r));
    return nt_py_result_of(st, &r);
}

static PyObject *tensor_addmm(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    return run_fused(&F_ADDMM, self, false, args, nargs, kwnames);
}
static PyObject *tensor_addmm_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    return run_fused(&F_ADDMM, self, true, args, nargs, kwnames);
}
static PyObject *tensor_addmv(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    return run_fused(&F_ADDMV, self, false, args, nargs, kwnames);
}
static PyObject *tensor_addmv_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    return run_fused(&F_ADDMV, self, true, args, nargs, kwnames);
}
static PyObject *module_addmm(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    return run_fused(&F_ADDMM, NULL, false, args, nargs, kwnames);
}
static PyObject *module_addmv(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    return run_fused(&F_ADDMV, NULL, false, args, nargs, kwnames);
}

/* ---- the @ operator ---- */

/* Whether Python will try another `@` for this operand (its type has the slot). */
static int has_matmul_slot(PyObject *o) {
    PyNumberMethods *nb = Py_TYPE(o)->tp_as_number;
    return nb && nb->nb_matrix_multiply &&
           nb->nb_matrix_multiply != nt_py_tensor_number_methods.nb_matrix_multiply;
}

static PyObject *nb_matmul(PyObject *a, PyObject *b) {
    if (!nt_py_is_tensor(a) || !nt_py_is_tensor(b)) {
        PyObject *other = nt_py_is_tensor(a) ? b : a;
        if (has_matmul_slot(other)) Py_RETURN_NOTIMPLEMENTED;
        /* Python's own text, with PyTorch's class name */
        PyErr_Format(PyExc_TypeError, "unsupported operand type(s) for @: '%s' and '%s'",
                     nt_py_is_tensor(a) ? "Tensor" : Py_TYPE(a)->tp_name,
                     nt_py_is_tensor(b) ? "Tensor" : Py_TYPE(b)->tp_name);
        return NULL;
    }
    nt_tensor *x = nt_py_tensor(a), *y = nt_py_tensor(b), *r;
    nt_status st;
    LINALG_CALL(work_of(x, y), st, nt_matmul(x, y, &r));
    return nt_py_result_of(st, &r);
}

/* PyTorch has no in-place matmul: `x @= y` binds x to a new tensor. The in-place slot does
 * the same, so that it also holds when another family's Tensor subclass defines none. */
static int linalg_prepare(PyTypeObject *type) {
    (void)type;
    nt_py_tensor_number_methods.nb_matrix_multiply = nb_matmul;
    nt_py_tensor_number_methods.nb_inplace_matrix_multiply = nb_matmul;
    return 0;
}

PyMethodDef nt_py_tensor_linalg_methods[] = {
    {"mm", FASTKW(tensor_mm), "Matrix product with mat2."},
    {"mv", FASTKW(tensor_mv), "Matrix-vector product."},
    {"dot", FASTKW(tensor_dot), "Inner product of two 1-d tensors."},
    {"bmm", FASTKW(tensor_bmm), "Batched matrix product."},
    {"matmul", FASTKW(tensor_matmul), "torch.matmul(self, other)."},
    {"addmm", FASTKW(tensor_addmm), "beta * self + alpha * (mat1 @ mat2)."},
    {"addmm_", FASTKW(tensor_addmm_), "addmm in place."},
    {"addmv", FASTKW(tensor_addmv), "beta * self + alpha * (mat @ vec)."},
    {"addmv_", FASTKW(tensor_addmv_), "addmv in place."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_linalg_functions[] = {
    {"mm", FASTKW(module_mm), "torch.mm(input, mat2, *, out=None)."},
    {"mv", FASTKW(module_mv), "torch.mv(input, vec, *, out=None)."},
    {"dot", FASTKW(module_dot), "torch.dot(input, tensor, *, out=None)."},
    {"bmm", FASTKW(module_bmm), "torch.bmm(input, mat2, *, out=None)."},
    {"matmul", FASTKW(module_matmul), "torch.matmul(input, other, *, out=None)."},
    {"addmm", FASTKW(module_addmm),
     "torch.addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None)."},
    {"addmv", FASTKW(module_addmv), "torch.addmv(input, mat, vec, *, beta=1, alpha=1, out=None)."},
    {NULL, NULL, 0, NULL},
};

int nt_py_linalg_prepare(PyTypeObject *type) {
    return linalg_prepare(type);
}
