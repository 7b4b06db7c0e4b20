/*
 * operators.c — Python's operators on tensors that are not method calls (the number slots
 * and tp_richcompare, installed by this family's `prepare` hook): -t, +t, abs(t), ~t;
 * a + b, a - b, a * b, a / b, a // b, a % b, a ** b, a & b, a | b, a ^ b, a << b, a >> b,
 * their in-place forms (a += b, ...), a @ b and the comparisons; and identity hashing.
 *
 * Each builds the call of its op (the op table's row: add, sub, ..., eq) directly, without
 * argument parsing, as PyTorch's slots do, and runs it through nt_call_run: a Python number
 * travels as a scalar operand (the reflected forms, 2 - t, have the number first). An
 * operand that is neither a tensor nor a number gives NotImplemented, so Python can try the
 * other operand or raise its "unsupported operand type(s)".
 */
#include "interop.h"
#include "pyntensor.h"
#include "subclass.h"

static PyObject *unary(PyObject *self, nt_op op) {
    nt_tensor *out = NULL;
    nt_status st;
    NT_PY_CALL_NOGIL(nt_tensor_numel(nt_py_tensor(self)), st,
                     nt_unary(op, nt_py_tensor(self), &out));
    return nt_py_keep_subclass_of(nt_py_result(st, out), self, NULL);
}

static PyObject *nb_negative(PyObject *self) {
    return unary(self, NT_OP_NEG);
}

static PyObject *nb_positive(PyObject *self) {
    nt_tensor *out = NULL;
    nt_status st = nt_positive(nt_py_tensor(self), &out);
    return nt_py_result(st, out);
}

static PyObject *nb_absolute(PyObject *self) {
    return unary(self, NT_OP_ABS);
}

static PyObject *nb_invert(PyObject *self) {
    if (nt_dtype_is_floating(nt_tensor_dtype(nt_py_tensor(self)))) {
        PyErr_SetString(PyExc_TypeError,
                        "~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors");
        return NULL;
    }
    return unary(self, NT_OP_BITWISE_NOT);
}

/* ------------------------------------------------------------------ binary operators */

/* o as an operand slot: a tensor or a Python number. 0; 1 when it is neither (nothing
 * raised); -1 with an error. */
static int operand(PyObject *o, nt_arg *a) {
    if (nt_py_is_tensor(o)) {
        *a = nt_arg_tensor(nt_py_tensor(o));
        return 0;
    }
    if (!PyBool_Check(o) && !PyLong_Check(o) && !PyFloat_Check(o)) {
        PyObject *generic = nt_py_numpy_generic_type(); /* NumPy scalars are numbers too */
        if (!generic || PyObject_IsInstance(o, generic) != 1 || !PyNumber_Check(o)) return 1;
    }
    *a = nt_arg_scalar(nt_scalar_int(0));
    return nt_py_number(o, &a->v.s);
}

/* a op b (in place: a op= b, a must be the tensor). */
static PyObject *binary(nt_op op, PyObject *a, PyObject *b, bool inplace) {
    nt_call c;
    int ra = operand(a, &c.args[0]), rb = ra ? ra : operand(b, &c.args[1]);
    if (ra < 0 || rb < 0) return NULL;
    if (ra || rb ||
        (c.args[0].kind != NT_ARG_TENSOR && (inplace || c.args[1].kind != NT_ARG_TENSOR)))
        Py_RETURN_NOTIMPLEMENTED;
    if (op == NT_OP_MUL && !inplace && c.args[0].kind == NT_ARG_TENSOR &&
        c.args[1].kind == NT_ARG_TENSOR && nt_py_is_delayable(c.args[0].v.t) &&
        nt_py_is_delayable(c.args[1].v.t))
        return nt_py_delayed_mul(a, b); /* a sum may follow: one GEMM (ntensor.dim) */
    c.op = op;
    c.inplace = inplace;
    c.out[0] = c.out[1] = NULL;
    c.args[2] = nt_arg_none(); /* alpha, rounding_mode: the default */
    nt_status st;
    NT_PY_CALL_NOGIL(nt_call_numel(&c), st, nt_call_run(&c)); /* well-formed by construction */
    if (st != NT_OK) return nt_py_raise(st);
    if (inplace) {
        nt_tensor_release(c.result[0]);
        Py_INCREF(a);
        return a;
    }
    return nt_py_keep_subclass_of(nt_py_result(st, c.result[0]), a, b);
}

#define SLOT(NAME, OP)                                                                             \
    static PyObject *nb_##NAME(PyObject *a, PyObject *b) {                                         \
        return binary(OP, a, b, false);                                                            \
    }                                                                                              \
    static PyObject *nb_inplace_##NAME(PyObject *a, PyObject *b) {                                 \
        return binary(OP, a, b, true);                                                             \
    }
SLOT(add, NT_OP_ADD)
SLOT(subtract, NT_OP_SUB)
SLOT(multiply, NT_OP_MUL)
SLOT(true_divide, NT_OP_DIV)
SLOT(floor_divide, NT_OP_FLOOR_DIVIDE)
SLOT(remainder, NT_OP_REMAINDER)
SLOT(and, NT_OP_BITWISE_AND)
SLOT(or, NT_OP_BITWISE_OR)
SLOT(xor, NT_OP_BITWISE_XOR)
SLOT(lshift, NT_OP_BITWISE_LEFT_SHIFT)
SLOT(rshift, NT_OP_BITWISE_RIGHT_SHIFT)

static PyObject *nb_power(PyObject *a, PyObject *b, PyObject *mod) {
    if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return binary(NT_OP_POW, a, b, false);
}
static PyObject *nb_inplace_power(PyObject *a, PyObject *b, PyObject *mod) {
    if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return binary(NT_OP_POW, a, b, true);
}

/* ------------------------------------------------------------------ a @ b */

/* Products with at least this many multiply-adds run without the GIL. */
#define LINALG_NOGIL_WORK 32768

/* An estimate of the multiply-adds of a @ b. */
static int64_t work_of(const nt_tensor *a, const nt_tensor *b) {
    int nb = nt_tensor_ndim(b);
    int64_t last = nb >= 2 ? nt_tensor_sizes(b)[nb - 1] : 1;
    return nt_tensor_numel(a) * (last > 0 ? last : 1);
}

/* Whether Python will try another `@` for this operand (its type has the slot). */
static int has_matmul_slot(PyObject *o) {
    PyNumberMethods *nb = Py_TYPE(o)->tp_as_number;
    return nb && nb->nb_matrix_multiply &&
           nb->nb_matrix_multiply != nt_py_tensor_number_methods.nb_matrix_multiply;
}

/* a @ b: nt_matmul directly, as PyTorch's slot does; a number is no operand of `@`. */
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
    NT_PY_CALL_NOGIL_IF(work_of(x, y) >= LINALG_NOGIL_WORK, st, nt_matmul(x, y, &r));
    return nt_py_keep_subclass_of(nt_py_result(st, r), a, b);
}

static PyObject *tensor_richcompare(PyObject *a, PyObject *b, int op) {
    static const nt_op ops[6] = {[Py_LT] = NT_OP_LT, [Py_LE] = NT_OP_LE, [Py_EQ] = NT_OP_EQ,
                                 [Py_NE] = NT_OP_NE, [Py_GT] = NT_OP_GT, [Py_GE] = NT_OP_GE};
    if (op < 0 || op > Py_GE) Py_RETURN_NOTIMPLEMENTED;
    return binary(ops[op], a, b, false);
}

/* Tensors hash by identity, as PyTorch's do (a type with tp_richcompare and no tp_hash
 * would be unhashable). */
static Py_hash_t tensor_hash(PyObject *self) {
    uintptr_t p = (uintptr_t)self;
    Py_hash_t h = (Py_hash_t)((p >> 4) | (p << (8 * sizeof(void *) - 4)));
    return h == -1 ? -2 : h;
}

int nt_py_operators_prepare(PyTypeObject *tensor_type) {
    PyNumberMethods *nb = &nt_py_tensor_number_methods;
    nb->nb_negative = nb_negative;
    nb->nb_positive = nb_positive;
    nb->nb_absolute = nb_absolute;
    nb->nb_invert = nb_invert;
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
    nb->nb_lshift = nb_lshift;
    nb->nb_rshift = nb_rshift;
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
    nb->nb_inplace_lshift = nb_inplace_lshift;
    nb->nb_inplace_rshift = nb_inplace_rshift;
    nb->nb_matrix_multiply = nb_matmul;
    /* PyTorch has no in-place matmul: `x @= y` binds x to a new tensor, as `x = x @ y` */
    nb->nb_inplace_matrix_multiply = nb_matmul;
    tensor_type->tp_richcompare = tensor_richcompare;
    tensor_type->tp_hash = tensor_hash;
    return 0;
}
