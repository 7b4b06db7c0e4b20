/*
 * factory_args.c — argument readers for the factories, with PyTorch's error texts: Number
 * arguments (fill_value, start/end/step, mean/std), names=, and the autograd-related flags
 * that ntensor cannot honour yet.
 */
#include "interop.h"

int nt_py_number_arg(PyObject *o, const char *fname, const char *argname, int pos, nt_scalar *out) {
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) ||
        (nt_py_is_tensor(o) && nt_tensor_numel(nt_py_tensor(o)) == 1))
        return nt_py_scalar_from_object(o, out);
    PyObject *generic = nt_py_numpy_generic_type();
    if (generic && PyObject_IsInstance(o, generic) == 1 && !PyUnicode_Check(o) &&
        !PyBytes_Check(o)) {
        nt_dtype d;
        if (nt_py_numpy_dtype_of(o, &d) < 0) return -1;
        if (d == NT_BOOL) {
            int truth = PyObject_IsTrue(o);
            if (truth < 0) return -1;
            *out = nt_scalar_bool(truth);
            return 0;
        }
        if (!nt_dtype_is_floating(d)) {
            int64_t v;
            if (nt_py_int64_from_object(o, &v, argname) < 0) return -1;
            *out = nt_scalar_int(v);
            return 0;
        }
        double f = PyFloat_AsDouble(o);
        if (f == -1.0 && PyErr_Occurred()) return -1;
        *out = nt_scalar_float(f);
        return 0;
    }
    if (pos > 0)
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be Number, not %s",
                     fname, argname, pos, Py_TYPE(o)->tp_name);
    else
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Number, not %s", fname, argname,
                     Py_TYPE(o)->tp_name);
    return -1;
}

int nt_py_names_arg(PyObject *o, const char *fname, int ndim, nt_name *buf, const nt_name **out) {
    *out = NULL;
    if (!o || o == Py_None) return 0;
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'names' must be tuple of names, not %s",
                     fname, Py_TYPE(o)->tp_name);
        return -1;
    }
    int count;
    if (nt_py_names_from_sequence(o, buf, &count, NULL) < 0) return -1;
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
