/*
 * device.c — ntensor.device, the small object that `tensor.device` returns and that
 * device= arguments accept. ntensor runs on the CPU only; the other device types exist so
 * that code written for PyTorch parses, and fail the way a CPU-only PyTorch fails.
 *
 * Unlike torch.device, a device compares equal to its string form (device('cpu') == 'cpu').
 */
#include <string.h>

#include "interop.h"

typedef struct {
    PyObject_HEAD PyObject *type; /* str */
    long index;                   /* -1: none */
} NtDeviceObject;

/* PyTorch's device types, in the order of its error message. */
static const char *const device_types[] = {
    "cpu",  "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl", "ideep", "hip",           "ve",
    "fpga", "ort",  "xla", "lazy", "vulkan", "mps",    "meta",   "hpu",   "privateuseone", NULL,
};

static PyObject *cpu_device;

static int known_type(const char *text, size_t len) {
    for (int i = 0; device_types[i]; i++)
        if (strlen(device_types[i]) == len && memcmp(device_types[i], text, len) == 0) return 1;
    return 0;
}

static void bad_device_string(const char *text) {
    char list[256] = "";
    for (int i = 0; device_types[i]; i++) {
        strcat(list, device_types[i]);
        strcat(list, ", ");
    }
    list[strlen(list) - 2] = '\0';
    PyErr_Format(PyExc_RuntimeError, "Expected one of %s device type at start of device string: %s",
                 list, text);
}

/* Parses "type" or "type:index" into a new device object. */
static PyObject *device_from_string(PyObject *str, PyObject *index_arg) {
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(str, &len);
    if (!text) return NULL;
    const char *colon = memchr(text, ':', (size_t)len);
    size_t type_len = colon ? (size_t)(colon - text) : (size_t)len;
    if (!known_type(text, type_len)) {
        bad_device_string(text);
        return NULL;
    }
    long index = -1;
    if (colon) {
        char *end;
        if (colon[1] == '\0' || colon[1] == '-' || colon[1] == '+') goto bad_index;
        index = strtol(colon + 1, &end, 10);
        if (*end != '\0') goto bad_index;
        if (index_arg && index_arg != Py_None) {
            PyErr_Format(PyExc_RuntimeError,
                         "type (string) must not include an index because index was passed "
                         "explicitly: %s",
                         text);
            return NULL;
        }
    } else if (index_arg && index_arg != Py_None) {
        index = PyLong_AsLong(index_arg);
        if (index == -1 && PyErr_Occurred()) return NULL;
        if (index < 0) {
            PyErr_Format(PyExc_RuntimeError, "Device index must not be negative");
            return NULL;
        }
    }
    NtDeviceObject *d = PyObject_New(NtDeviceObject, &NtDevice_Type);
    if (!d) return NULL;
    d->type = PyUnicode_FromStringAndSize(text, (Py_ssize_t)type_len);
    d->index = index;
    if (!d->type) {
        Py_DECREF(d);
        return NULL;
    }
    return (PyObject *)d;
bad_index:
    PyErr_Format(PyExc_RuntimeError, "Invalid device string: '%s'", text);
    return NULL;
}

static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"type", "index", NULL};
    PyObject *arg, *index = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", kwlist, &arg, &index)) return NULL;
    if (Py_TYPE(arg) == &NtDevice_Type && !index) {
        Py_INCREF(arg);
        return arg;
    }
    if (PyLong_Check(arg)) { /* device(0): a CUDA ordinal, as in PyTorch */
        PyObject *cuda = PyUnicode_FromString("cuda");
        PyObject *d = cuda ? device_from_string(cuda, arg) : NULL;
        Py_XDECREF(cuda);
        return d;
    }
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "device(): argument 'type' must be str, not %s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    return device_from_string(arg, index);
}

static void device_dealloc(PyObject *self) {
    Py_XDECREF(((NtDeviceObject *)self)->type);
    PyObject_Free(self);
}

static PyObject *device_repr(PyObject *self) {
    NtDeviceObject *d = (NtDeviceObject *)self;
    if (d->index < 0) return PyUnicode_FromFormat("device(type='%U')", d->type);
    return PyUnicode_FromFormat("device(type='%U', index=%ld)", d->type, d->index);
}

static PyObject *device_str(PyObject *self) {
    NtDeviceObject *d = (NtDeviceObject *)self;
    if (d->index < 0) {
        Py_INCREF(d->type);
        return d->type;
    }
    return PyUnicode_FromFormat("%U:%ld", d->type, d->index);
}

static Py_hash_t device_hash(PyObject *self) {
    PyObject *s = device_str(self);
    if (!s) return -1;
    Py_hash_t h = PyObject_Hash(s); /* equal to its string, so hash like it */
    Py_DECREF(s);
    return h;
}

static PyObject *device_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) ||
        (Py_TYPE(other) != &NtDevice_Type && !PyUnicode_Check(other)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *a = device_str(self);
    PyObject *b = Py_TYPE(other) == &NtDevice_Type ? device_str(other) : (Py_INCREF(other), other);
    PyObject *result = a && b ? PyObject_RichCompare(a, b, op) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    return result;
}

static PyObject *device_get_type(PyObject *self, void *closure) {
    PyObject *t = ((NtDeviceObject *)self)->type;
    Py_INCREF(t);
    return t;
}

static PyObject *device_get_index(PyObject *self, void *closure) {
    long index = ((NtDeviceObject *)self)->index;
    if (index < 0) Py_RETURN_NONE;
    return PyLong_FromLong(index);
}

static PyGetSetDef device_getset[] = {
    {"type", device_get_type, NULL, "The device type ('cpu').", NULL},
    {"index", device_get_index, NULL, "The device index, or None.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject NtDevice_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor.device",
    .tp_basicsize = sizeof(NtDeviceObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "device(type, index=None): where a tensor lives (always the CPU here).",
    .tp_new = device_new,
    .tp_dealloc = device_dealloc,
    .tp_repr = device_repr,
    .tp_str = device_str,
    .tp_hash = device_hash,
    .tp_richcompare = device_richcompare,
    .tp_getset = device_getset,
};

PyObject *nt_py_cpu_device(void) {
    return cpu_device;
}

int nt_py_check_device(PyObject *o) {
    if (!o || o == Py_None) return 0;
    if (Py_TYPE(o) != &NtDevice_Type && !PyUnicode_Check(o) &&
        (!PyLong_Check(o) || PyBool_Check(o))) {
        PyErr_Format(PyExc_TypeError, "device must be str or ntensor.device, not %s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *d = PyObject_CallOneArg((PyObject *)&NtDevice_Type, o); /* device_new's parse */
    if (!d) return -1;
    int rc = 0;
    if (PyUnicode_CompareWithASCIIString(((NtDeviceObject *)d)->type, "cpu") != 0) {
        if (PyUnicode_CompareWithASCIIString(((NtDeviceObject *)d)->type, "cuda") == 0)
            PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
        else
            PyErr_Format(PyExc_RuntimeError, "ntensor runs on the cpu only, not on %S", d);
        rc = -1;
    }
    Py_DECREF(d);
    return rc;
}

int nt_py_device_init(PyObject *module) {
    if (PyType_Ready(&NtDevice_Type) < 0) return -1;
    PyObject *cpu = PyUnicode_FromString("cpu");
    cpu_device = cpu ? device_from_string(cpu, NULL) : NULL;
    Py_XDECREF(cpu);
    if (!cpu_device) return -1;
    Py_INCREF(&NtDevice_Type);
    if (PyModule_AddObject(module, "device", (PyObject *)&NtDevice_Type) < 0) {
        Py_DECREF(&NtDevice_Type);
        return -1;
    }
    return 0;
}
