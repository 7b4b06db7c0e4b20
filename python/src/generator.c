/*
 * generator.c — ntensor.Generator (PyTorch's torch.Generator) over the C generators of
 * ntensor/generator.h, the default one (ntensor.default_generator), and the module's seed
 * functions: manual_seed, seed, initial_seed, get_rng_state, set_rng_state.
 *
 * A Generator's state is a uint8 tensor of NT_GENERATOR_STATE_SIZE bytes, ntensor's own layout
 * (generator.h), not PyTorch's 5056-byte Mersenne Twister state. The generator= argument of
 * the random ops (bindings.c) makes the op draw from the given generator (nt_use_generator).
 */
#include "generator.h"

#include <string.h>

#include "interop.h"

typedef struct {
    PyObject_HEAD nt_generator *g;
} NtGeneratorObject;

static PyObject *default_object; /* ntensor.default_generator */

nt_generator *nt_py_generator_of(PyObject *o) {
    return ((NtGeneratorObject *)o)->g;
}

static PyObject *generator_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device", NULL};
    PyObject *device = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", kwlist, &device)) return NULL;
    if (nt_py_check_device(device) < 0) return NULL;
    NtGeneratorObject *self = (NtGeneratorObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    nt_status st = nt_generator_new(&self->g);
    if (st != NT_OK) {
        Py_DECREF(self);
        return nt_py_raise(st);
    }
    return (PyObject *)self;
}

static void generator_dealloc(PyObject *obj) {
    nt_generator_free(nt_py_generator_of(obj)); /* the default one is never freed */
    Py_TYPE(obj)->tp_free(obj);
}

/* A seed as PyTorch's unpack_uint64 reads it: int(seed), a negative value wraps to uint64. */
static int seed_of(PyObject *arg, uint64_t *out) {
    PyObject *as_int = PyNumber_Long(arg);
    if (!as_int) return -1;
    unsigned long long seed = PyLong_AsUnsignedLongLong(as_int);
    int64_t negative;
    if (seed == (unsigned long long)-1 && PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        if (nt_py_int64_from_object(as_int, &negative, "seed") == 0)
            seed = (unsigned long long)negative;
    }
    Py_DECREF(as_int);
    if (PyErr_Occurred()) return -1;
    *out = (uint64_t)seed;
    return 0;
}

static PyObject *generator_manual_seed(PyObject *self, PyObject *arg) {
    uint64_t seed;
    if (seed_of(arg, &seed) < 0) return NULL;
    nt_generator_manual_seed(nt_py_generator_of(self), seed);
    return Py_NewRef(self);
}

static PyObject *generator_seed(PyObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong(nt_generator_seed(nt_py_generator_of(self)));
}

static PyObject *generator_initial_seed(PyObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong(nt_generator_initial_seed(nt_py_generator_of(self)));
}

static PyObject *generator_get_state(PyObject *self, PyObject *unused) {
    int64_t size = NT_GENERATOR_STATE_SIZE;
    nt_tensor *t = NULL;
    nt_status st = nt_empty(1, &size, NT_UINT8, NULL, &t);
    if (st != NT_OK) return nt_py_raise(st);
    nt_generator_get_state(nt_py_generator_of(self), nt_tensor_data(t));
    return nt_py_wrap(t);
}

static PyObject *generator_set_state(PyObject *self, PyObject *arg) {
    if (!nt_py_is_tensor(arg)) {
        PyErr_Format(PyExc_TypeError, "expected a torch.ByteTensor, but got %s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    nt_tensor *t = nt_py_tensor(arg), *dense = NULL;
    if (nt_tensor_dtype(t) != NT_UINT8) {
        PyErr_SetString(PyExc_TypeError, "RNG state must be a torch.ByteTensor");
        return NULL;
    }
    nt_status st = nt_contiguous(t, &dense); /* the bytes in order, whatever the strides */
    if (st == NT_OK)
        st = nt_generator_set_state(nt_py_generator_of(self), nt_tensor_data(dense),
                                    nt_tensor_numel(dense));
    nt_tensor_release(dense);
    if (st != NT_OK) return nt_py_raise(st);
    return Py_NewRef(self);
}

static PyObject *generator_get_device(PyObject *self, void *closure) {
    return Py_NewRef(nt_py_cpu_device());
}

static PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O,
     "manual_seed($self, seed, /)\n--\n\n"
     "Sets the seed for generating random numbers and restarts the sequence; returns the "
     "generator."},
    {"seed", generator_seed, METH_NOARGS,
     "seed($self, /)\n--\n\n"
     "Seeds the generator from the operating system's entropy and returns the seed."},
    {"initial_seed", generator_initial_seed, METH_NOARGS,
     "initial_seed($self, /)\n--\n\nThe seed the generator was last seeded with."},
    {"get_state", generator_get_state, METH_NOARGS,
     "get_state($self, /)\n--\n\n"
     "The generator's state as a uint8 tensor of 24 bytes: \"NTRG\", version 1, the seed and "
     "the counter offset (little-endian uint64s)."},
    {"set_state", generator_set_state, METH_O,
     "set_state($self, new_state, /)\n--\n\n"
     "Restores a state from get_state (a uint8 tensor; RuntimeError for a bad size or magic); "
     "returns the generator."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef generator_getset[] = {
    {"device", generator_get_device, NULL, "device(type='cpu').", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject NtGenerator_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor.Generator",
    .tp_basicsize = sizeof(NtGeneratorObject),
    .tp_dealloc = generator_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Generator(device='cpu')\n--\n\n"
              "A random generator (Philox 4x32-10: a seed and a counter), for the generator= "
              "argument of the random ops; new ones start at PyTorch's default seed.",
    .tp_methods = generator_methods,
    .tp_getset = generator_getset,
    .tp_new = generator_new,
};

/* ---- the module's functions, on the default generator ---- */

static PyObject *py_manual_seed(PyObject *m, PyObject *arg) {
    return generator_manual_seed(default_object, arg);
}

static PyObject *py_seed(PyObject *m, PyObject *unused) {
    return generator_seed(default_object, NULL);
}

static PyObject *py_initial_seed(PyObject *m, PyObject *unused) {
    return generator_initial_seed(default_object, NULL);
}

static PyObject *py_get_rng_state(PyObject *m, PyObject *unused) {
    return generator_get_state(default_object, NULL);
}

static PyObject *py_set_rng_state(PyObject *m, PyObject *arg) {
    PyObject *r = generator_set_state(default_object, arg);
    if (!r) return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

PyMethodDef nt_py_module_generator_functions[] = {
    {"manual_seed", py_manual_seed, METH_O,
     "manual_seed(seed, /)\n--\n\n"
     "Seeds the default generator and returns it (ntensor.default_generator)."},
    {"seed", py_seed, METH_NOARGS,
     "seed()\n--\n\nSeeds the default generator from the operating system's entropy and "
     "returns the seed."},
    {"initial_seed", py_initial_seed, METH_NOARGS,
     "initial_seed()\n--\n\nThe seed the default generator was last seeded with."},
    {"get_rng_state", py_get_rng_state, METH_NOARGS,
     "get_rng_state()\n--\n\nThe default generator's state (a uint8 tensor; "
     "Generator.get_state)."},
    {"set_rng_state", py_set_rng_state, METH_O,
     "set_rng_state(new_state, /)\n--\n\nRestores the default generator's state "
     "(Generator.set_state)."},
    {NULL, NULL, 0, NULL},
};

int nt_py_generator_init(PyObject *module) {
    if (PyType_Ready(&NtGenerator_Type) < 0) return -1;
    Py_INCREF(&NtGenerator_Type);
    if (PyModule_AddObject(module, "Generator", (PyObject *)&NtGenerator_Type) < 0) return -1;
    NtGeneratorObject *d = PyObject_New(NtGeneratorObject, &NtGenerator_Type);
    if (!d) return -1;
    d->g = nt_default_generator();
    default_object = (PyObject *)d; /* kept for the life of the process */
    Py_INCREF(default_object);
    return PyModule_AddObject(module, "default_generator", default_object);
}
