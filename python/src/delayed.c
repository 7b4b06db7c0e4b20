/*
 * delayed.c — the delayed product of ntensor.dim: `a * b` of two tensors with first-class
 * dims and no positional dims is not computed at once (functorch.dim's delayed_mul_tensor):
 * its `.sum(dims)` is one matrix product (nt_dims_dot), and any other use computes the
 * product first. The type is made here for its per-call cost (the mm pattern
 * `(A[i, k] * B[k, j]).sum(k)` is a few hundred nanoseconds); it is a heap type, so
 * ntensor.dim adds the forwarding of every other attribute and operator in Python.
 */
#include "pyntensor.h"

typedef struct {
    PyObject_HEAD PyObject *a, *b; /* the factors (Tensors) */
    PyObject *value;               /* a * b once computed, else NULL */
} NtDelayedObject;

static PyTypeObject *delayed_type; /* ntensor._C._DelayedMul */

PyObject *nt_py_delayed_mul(PyObject *a, PyObject *b) {
    NtDelayedObject *o = PyObject_GC_New(NtDelayedObject, delayed_type);
    if (!o) return NULL;
    o->a = Py_NewRef(a);
    o->b = Py_NewRef(b);
    o->value = NULL;
    PyObject_GC_Track(o);
    return (PyObject *)o;
}

/* The product's value (computed once): a borrowed reference, or NULL with an exception. */
static PyObject *value_of(NtDelayedObject *self) {
    if (!self->value) {
        nt_tensor *out = NULL;
        nt_tensor *a = nt_py_tensor(self->a), *b = nt_py_tensor(self->b);
        nt_status st;
        NT_PY_CALL_NOGIL(nt_tensor_numel(a) * nt_tensor_numel(b), st, nt_mul(a, b, &out));
        self->value = nt_py_result(st, out);
    }
    return self->value;
}

int nt_py_is_delayed(PyObject *o) {
    return delayed_type && Py_TYPE(o) == delayed_type;
}

PyObject *nt_py_delayed_value(PyObject *o) {
    return value_of((NtDelayedObject *)o);
}

static PyObject *delayed_now(PyObject *self, PyObject *unused) {
    PyObject *v = value_of((NtDelayedObject *)self);
    return v ? Py_NewRef(v) : NULL;
}

/* The dims of a sum's dim argument (a Dim, or a tuple or list of Dims) into dims; their
 * count, or -1 when the argument is anything else. */
static int sum_dims(PyObject *arg, nt_fcdim **dims) {
    PyObject *one[1] = {arg};
    bool seq = PyTuple_Check(arg) || PyList_Check(arg);
    Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(arg) : 1;
    PyObject *const *items = seq ? PySequence_Fast_ITEMS(arg) : one;
    if (n < 1 || n > NT_MAX_DIMS) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!nt_py_is_dim(items[i])) return -1;
        dims[i] = nt_py_fcdim(items[i]);
    }
    return (int)n;
}

/* sum(dim=None, keepdim=False, dtype=None): over Dims, one matrix product; otherwise the
 * product's own sum with the same arguments. */
static PyObject *delayed_sum(PyObject *o, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    NtDelayedObject *self = (NtDelayedObject *)o;
    nt_fcdim *dims[NT_MAX_DIMS];
    int n = nargs == 1 && !kwnames && !self->value ? sum_dims(args[0], dims) : -1;
    if (n > 0) {
        nt_tensor *a = nt_py_tensor(self->a), *b = nt_py_tensor(self->b), *out = NULL;
        nt_status st;
        NT_PY_CALL_NOGIL(nt_tensor_numel(a) * nt_tensor_numel(b), st,
                         nt_dims_dot(a, b, n, dims, &out));
        return nt_py_result(st, out);
    }
    PyObject *v = value_of(self), *name = NULL, *r = NULL;
    if (v && (name = PyUnicode_InternFromString("sum"))) {
        Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
        PyObject *call[1 + NT_CALL_MAX_ARGS + 8];
        if (total > NT_CALL_MAX_ARGS + 8) {
            PyErr_SetString(PyExc_TypeError, "sum(): too many arguments");
        } else {
            call[0] = v;
            memcpy(call + 1, args, (size_t)total * sizeof *args);
            r = PyObject_VectorcallMethod(name, call, (size_t)(nargs + 1), kwnames);
        }
    }
    Py_XDECREF(name);
    return r;
}

static PyObject *delayed_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyErr_Format(PyExc_TypeError, "cannot create '%s' instances", type->tp_name);
    return NULL;
}

static int delayed_traverse(PyObject *o, visitproc visit, void *arg) {
    NtDelayedObject *self = (NtDelayedObject *)o;
    Py_VISIT(Py_TYPE(o));
    Py_VISIT(self->a);
    Py_VISIT(self->b);
    Py_VISIT(self->value);
    return 0;
}

static int delayed_clear(PyObject *o) {
    NtDelayedObject *self = (NtDelayedObject *)o;
    Py_CLEAR(self->a);
    Py_CLEAR(self->b);
    Py_CLEAR(self->value);
    return 0;
}

static void delayed_dealloc(PyObject *o) {
    PyTypeObject *type = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    delayed_clear(o);
    PyObject_GC_Del(o);
    Py_DECREF(type); /* a heap type's instances hold it */
}

static PyMethodDef delayed_methods[] = {
    {"sum", (PyCFunction)(void (*)(void))delayed_sum, METH_FASTCALL | METH_KEYWORDS,
     "sum(dim=None, keepdim=False, dtype=None): over first-class dims, one matrix product"},
    {"_now", delayed_now, METH_NOARGS, "the product's value (computed once)"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot delayed_slots[] = {
    {Py_tp_doc, "a * b of two tensors with first-class dims, not computed yet: its sum over "
                "dims is one matrix product; any other use computes the product"},
    {Py_tp_new, delayed_new}, /* made only by Tensor.__mul__ */
    {Py_tp_dealloc, delayed_dealloc},
    {Py_tp_traverse, delayed_traverse},
    {Py_tp_clear, delayed_clear},
    {Py_tp_methods, delayed_methods},
    {0, NULL},
};

static PyType_Spec delayed_spec = {
    .name = "ntensor.dim._DelayedMul",
    .basicsize = sizeof(NtDelayedObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = delayed_slots,
};

int nt_py_delayed_init(PyObject *module) {
    delayed_type = (PyTypeObject *)PyType_FromSpec(&delayed_spec);
    if (!delayed_type) return -1;
    Py_INCREF(delayed_type);
    return PyModule_AddObject(module, "_DelayedMul", (PyObject *)delayed_type);
}
