/*
 * size.c — ntensor.Size, the tuple subclass that `tensor.shape` returns. It prints as
 * "torch.Size([2, 3])", like PyTorch's.
 */
#include "pyntensor.h"

static PyObject *size_repr(PyObject *self) {
    PyObject *list = PySequence_List(self);
    if (!list) return NULL;
    PyObject *text = PyUnicode_FromFormat("torch.Size(%R)", list);
    Py_DECREF(list);
    return text;
}

static PyObject *size_numel(PyObject *self, PyObject *unused) {
    int64_t n = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); i++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
        if (v == -1 && PyErr_Occurred()) return NULL;
        n *= v;
    }
    return PyLong_FromLongLong(n);
}

static PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS, "The number of elements a tensor of this size holds."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject NtSize_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor.Size",
    .tp_doc = "The sizes of a tensor's dims (torch.Size): a tuple of ints.",
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_repr = size_repr,
    .tp_methods = size_methods,
};

PyObject *nt_py_size_new(int n, const int64_t *values) {
    PyObject *size = NtSize_Type.tp_alloc(&NtSize_Type, n);
    if (!size) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (!v) {
            Py_DECREF(size);
            return NULL;
        }
        PyTuple_SET_ITEM(size, i, v);
    }
    return size;
}

int nt_py_size_init(PyObject *module) {
    NtSize_Type.tp_base = &PyTuple_Type;
    if (PyType_Ready(&NtSize_Type) < 0) return -1;
    Py_INCREF(&NtSize_Type);
    return PyModule_AddObject(module, "Size", (PyObject *)&NtSize_Type);
}
