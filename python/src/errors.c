/*
 * errors.c — turning a failed nt_status into the exception PyTorch raises, and a warning the
 * C library left into a UserWarning.
 */
#include "pyntensor.h"

PyObject *nt_py_raise(nt_status st) {
    PyObject *type = st == NT_ERR_INDEX             ? PyExc_IndexError
                     : st == NT_ERR_TYPE            ? PyExc_TypeError
                     : st == NT_ERR_VALUE           ? PyExc_ValueError
                     : st == NT_ERR_MEMORY          ? PyExc_MemoryError
                     : st == NT_ERR_NOT_IMPLEMENTED ? PyExc_NotImplementedError
                     : st == NT_ERR_DIM_BIND        ? nt_py_dimension_bind_error
                                                    : PyExc_RuntimeError;
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
    int rc = 0;
    for (const char *w; (w = nt_take_warning());) /* all of them, in order; an error stops */
        if (rc == 0 && PyErr_WarnEx(PyExc_UserWarning, w, 1) < 0) rc = -1;
    return rc;
}
