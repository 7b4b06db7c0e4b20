/*
 * factory_args.c — argument readers for the factories, with PyTorch's error texts: names=,
 * and the autograd-related flags
 * that ntensor cannot honour yet.
 */
#include "interop.h"

int nt_py_names_arg(PyObject *o, const char *fname, int ndim, nt_name *buf, const nt_name **out) {
    *out = NULL;
    if (!o || o == Py_None) return 0;
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'names' must be tuple of names, not %s",
                     fname, Py_TYPE(o)->tp_name);
        return -1;
    }
    int count;
    if (nt_py_names_from_sequence(o, buf, &count) < 0) return -1;
    if (count != ndim) {
        nt_py_set_names_count_error(count, ndim, o);
        return -1;
    }
    *out = buf;
    return 0;
}

int nt_py_check_no_grad(PyObject *requires_grad, PyObject *pin_memory) {
    int rg = requires_grad ? PyObject_IsTrue(requires_grad) : 0;
    int pin = pin_memory ? PyObject_IsTrue(pin_memory) : 0;
    if (rg < 0 || pin < 0) return -1;
    if (rg) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "requires_grad=True: ntensor has no autograd yet");
        return -1;
    }
    if (pin) {
        PyErr_SetString(PyExc_RuntimeError, "pin_memory=True needs a CUDA device");
        return -1;
    }
    return 0;
}
