/*
 * ops_linalg.c — the `@` operator (nb_matrix_multiply, set by this family's prepare hook).
 * The matrix products' functions and methods (mm, mv, dot, bmm, matmul, addmm, addmv,
 * in-place, out=) are generated from their rows (bindings.c); an operator slot has no
 * arguments to parse, so it calls nt_matmul directly, as PyTorch's slot does. `x @= y`
 * rebinds x to a new tensor, as in PyTorch, which has no in-place matmul.
 */
#include "pyntensor.h"

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
    return nt_py_result(st, r);
}

/* PyTorch has no in-place matmul: `x @= y` binds x to a new tensor. The in-place slot does
 * the same, so that it also holds when another family's Tensor subclass defines none. */
int nt_py_linalg_prepare(PyTypeObject *type) {
    (void)type;
    nt_py_tensor_number_methods.nb_matrix_multiply = nb_matmul;
    nt_py_tensor_number_methods.nb_inplace_matrix_multiply = nb_matmul;
    return 0;
}
