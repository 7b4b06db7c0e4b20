/*
 * errors.c — turning a failed nt_status into the exception PyTorch raises, and a warning the
 * C library left into a UserWarning.
 */
#include "pyntensor.h"

PyObject *nt_py_raise(nt_status st) {
    PyObject *type;
    switch (st) {
    case NT_ERR_INDEX: type = PyExc_IndexError; break;
    case NT_ERR_TYPE: type = PyExc_TypeError; break;
    case NT_ERR_VALUE: type = PyExc_ValueError; break;
    case NT_ERR_MEMORY: type = PyExc_MemoryError; break;
    case NT_ERR_NOT_IMPLEMENTED: type = PyExc_NotImplementedError; break;
    default: type = PyExc_RuntimeError; break;
    }
    /* a warning the op gave before it failed comes first, as PyTorch's does */
    if (nt_py_warn_pending() < 0) return NULL;
    PyErr_SetString(type, nt_last_error());
    return NULL;
}

int nt_py_raise_int(nt_status st) {
    nt_py_raise(st);
    return -1;
}

int nt_py_warn_pending(void) {
    const char *w = nt_take_warning();
    return w ? PyErr_WarnEx(PyExc_UserWarning, w, 1) : 0;
}
