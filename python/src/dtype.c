/*
 * dtype.c — ntensor.dtype: one singleton object per dtype (ntensor.float32, ...), and
 * ntensor.layout with its one object, ntensor.strided (every tensor's t.layout).
 *
 * They print as "torch.float32" and "torch.strided" so that code written for PyTorch (`import
 * ntensor as torch`) prints the same text; see docs/python.md.
 */
#include "pyntensor.h"

static NtDtypeObject dtype_objects[NT_DTYPE_COUNT];

static PyObject *dtype_repr(PyObject *self) {
    return PyUnicode_FromFormat("torch.%s", nt_dtype_name(((NtDtypeObject *)self)->dtype));
}

static PyObject *dtype_is_floating_point(PyObject *self, void *closure) {
    return PyBool_FromLong(nt_dtype_is_floating(((NtDtypeObject *)self)->dtype));
}

static PyObject *dtype_is_signed(PyObject *self, void *closure) {
    return PyBool_FromLong(nt_dtype_is_signed(((NtDtypeObject *)self)->dtype));
}

static PyObject *dtype_itemsize(PyObject *self, void *closure) {
    return PyLong_FromSize_t(nt_dtype_size(((NtDtypeObject *)self)->dtype));
}

static PyObject *dtype_reduce(PyObject *self, PyObject *unused) {
    return PyUnicode_FromString(nt_dtype_name(((NtDtypeObject *)self)->dtype));
}

static PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, NULL, NULL, NULL},
    {"is_signed", dtype_is_signed, NULL, NULL, NULL},
    {"itemsize", dtype_itemsize, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject NtDtype_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor.dtype",
    .tp_doc = "An element type (torch.dtype): ntensor.float32, ntensor.int64, ...",
    .tp_basicsize = sizeof(NtDtypeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_repr = dtype_repr,
    .tp_getset = dtype_getset,
    .tp_methods = dtype_methods,
};

PyObject *nt_py_dtype_object(nt_dtype dtype) {
    return (PyObject *)&dtype_objects[dtype];
}

int nt_py_dtype_from_object(PyObject *o, nt_dtype fallback, nt_dtype *out) {
    if (!o || o == Py_None) {
        *out = fallback;
        return 0;
    }
    if (Py_TYPE(o) == &NtDtype_Type) {
        *out = ((NtDtypeObject *)o)->dtype;
        return 0;
    }
    if (o == (PyObject *)&PyFloat_Type) { /* dtype=float, like PyTorch */
        *out = NT_FLOAT64;
        return 0;
    }
    if (o == (PyObject *)&PyLong_Type) {
        *out = NT_INT64;
        return 0;
    }
    if (o == (PyObject *)&PyBool_Type) {
        *out = NT_BOOL;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "dtype must be ntensor.dtype, not %s", Py_TYPE(o)->tp_name);
    return -1;
}

/* The attribute names PyTorch gives each dtype, aliases included. */
static const struct {
    const char *attr;
    nt_dtype dtype;
} dtype_attrs[] = {
    {"bool", NT_BOOL},       {"uint8", NT_UINT8},   {"int8", NT_INT8},
    {"int16", NT_INT16},     {"short", NT_INT16},   {"int32", NT_INT32},
    {"int", NT_INT32},       {"int64", NT_INT64},   {"long", NT_INT64},
    {"float16", NT_FLOAT16}, {"half", NT_FLOAT16},  {"bfloat16", NT_BFLOAT16},
    {"float32", NT_FLOAT32}, {"float", NT_FLOAT32}, {"float64", NT_FLOAT64},
    {"double", NT_FLOAT64},
};

/* ---- layout ---- */

static PyObject strided_object;

static PyObject *layout_repr(PyObject *self) {
    return PyUnicode_FromString("torch.strided");
}

/* pickled as the module attribute ntensor.strided */
static PyObject *layout_reduce(PyObject *self, PyObject *unused) {
    return PyUnicode_FromString("strided");
}

static PyMethodDef layout_methods[] = {
    {"__reduce__", layout_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject NtLayout_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor.layout",
    .tp_doc = "A memory layout (torch.layout): ntensor.strided, the only one.",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_repr = layout_repr,
    .tp_methods = layout_methods,
};

PyObject *nt_py_strided(void) {
    return &strided_object;
}

static int layout_init(PyObject *module) {
    if (PyType_Ready(&NtLayout_Type) < 0) return -1;
    Py_SET_TYPE(&strided_object, &NtLayout_Type);
    Py_SET_REFCNT(&strided_object, 1); /* a static object: never freed */
    Py_INCREF(&strided_object);
    if (PyModule_AddObject(module, "strided", &strided_object) < 0) {
        Py_DECREF(&strided_object);
        return -1;
    }
    Py_INCREF(&NtLayout_Type);
    return PyModule_AddObject(module, "layout", (PyObject *)&NtLayout_Type);
}

int nt_py_dtypes_init(PyObject *module) {
    if (PyType_Ready(&NtDtype_Type) < 0 || layout_init(module) < 0) return -1;
    for (int d = 0; d < NT_DTYPE_COUNT; d++) {
        PyObject *o = (PyObject *)&dtype_objects[d];
        Py_SET_TYPE(o, &NtDtype_Type);
        Py_SET_REFCNT(o, 1); /* static objects: never freed */
        dtype_objects[d].dtype = (nt_dtype)d;
    }
    for (size_t i = 0; i < sizeof dtype_attrs / sizeof dtype_attrs[0]; i++) {
        PyObject *o = nt_py_dtype_object(dtype_attrs[i].dtype);
        Py_INCREF(o);
        if (PyModule_AddObject(module, dtype_attrs[i].attr, o) < 0) {
            Py_DECREF(o);
            return -1;
        }
    }
    Py_INCREF(&NtDtype_Type);
    return PyModule_AddObject(module, "dtype", (PyObject *)&NtDtype_Type);
}
