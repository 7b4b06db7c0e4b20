/*
 * device.c — the C side of ntensor.device (ntensor/_device.py, a Python class): the class
 * for the Device parameters of signatures, the one cpu device that `tensor.device` returns,
 * and the check of device= arguments, which takes "cpu" at once and leaves every other
 * value to the module's check().
 */
#include "interop.h"

static PyObject *device_class, *cpu_device, *device_check;

PyObject *nt_py_device_class(void) {
    return device_class;
}

PyObject *nt_py_cpu_device(void) {
    return cpu_device;
}

int nt_py_check_device(PyObject *o) {
    if (!o || o == Py_None || o == cpu_device ||
        (PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, "cpu") == 0))
        return 0;
    PyObject *r = PyObject_CallOneArg(device_check, o);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

int nt_py_device_init(PyObject *module) {
    PyObject *m = PyImport_ImportModule("ntensor._device");
    if (!m) return -1;
    device_class = PyObject_GetAttrString(m, "device");
    device_check = PyObject_GetAttrString(m, "check");
    Py_DECREF(m);
    if (!device_class || !device_check) return -1;
    cpu_device = PyObject_CallFunction(device_class, "s", "cpu");
    return cpu_device ? 0 : -1;
}
