/*
 * operators.c — Python's operators on tensors that are not method calls: -t, +t, abs(t), ~t
 * (the number slots, installed by this family's `prepare` hook). Each builds its call
 * directly (no argument parsing), as PyTorch's slots do.
 */
#include "pyntensor.h"

static PyObject *unary(PyObject *self, nt_op op) {
    nt_tensor *out = NULL;
    nt_status st;
    NT_PY_CALL_NOGIL(nt_tensor_numel(nt_py_tensor(self)), st,
                     nt_unary(op, nt_py_tensor(self), &out));
    return nt_py_result(st, out);
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

int nt_py_operators_prepare(PyTypeObject *tensor_type) {
    (void)tensor_type;
    nt_py_tensor_number_methods.nb_negative = nb_negative;
    nt_py_tensor_number_methods.nb_positive = nb_positive;
    nt_py_tensor_number_methods.nb_absolute = nb_absolute;
    nt_py_tensor_number_methods.nb_invert = nb_invert;
    return 0;
}
