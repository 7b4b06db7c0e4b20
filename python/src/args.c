/*
 * args.c — converting Python arguments (names, dims, sizes, scalars, keywords) to C.
 *
 * Names are interned once per distinct string: a dict maps each str seen to its id, and a
 * growing array maps ids back to the str objects. In front of the dict sits a small cache
 * by address: a name written in the source ('C') is the same str object on every call, so
 * the hot path is one compare, without hashing.
 */
#include <string.h>

#include "interop.h"
#include "pyntensor.h"

static PyObject *name_ids;      /* dict: str -> int id */
static PyObject **name_objects; /* id -> str (owned), grown on demand */
static size_t name_objects_len;

/* The cache by address. Each entry holds a reference to its str, so that its address
 * cannot be taken by another object while the entry stands. Exact str only: a subclass
 * may hash and compare as it likes, and goes through the dict. */
#define NAME_CACHE_SIZE 64
static struct {
    PyObject *str;
    nt_name id;
} name_cache[NAME_CACHE_SIZE];

static size_t name_cache_slot(PyObject *o) {
    return ((uintptr_t)o >> 4) & (NAME_CACHE_SIZE - 1);
}

static void name_cache_put(PyObject *o, nt_name id) {
    if (!PyUnicode_CheckExact(o)) return;
    size_t i = name_cache_slot(o);
    Py_INCREF(o);
    Py_XSETREF(name_cache[i].str, o);
    name_cache[i].id = id;
}

int nt_py_names_init(PyObject *module) {
    name_ids = PyDict_New();
    return name_ids ? 0 : -1;
}

static int remember_name(nt_name id, PyObject *str) {
    if (id >= name_objects_len) {
        size_t len = name_objects_len ? name_objects_len : 64;
        while (len <= id)
            len *= 2;
        PyObject **grown = PyMem_Realloc(name_objects, len * sizeof *grown);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        memset(grown + name_objects_len, 0, (len - name_objects_len) * sizeof *grown);
        name_objects = grown;
        name_objects_len = len;
    }
    if (!name_objects[id]) {
        Py_INCREF(str);
        name_objects[id] = str;
    }
    return 0;
}

int nt_py_name_from_object(PyObject *o, nt_name *out) {
    if (o == Py_None) {
        *out = NT_NAME_NONE;
        return 0;
    }
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "expected None or string for Dimname but got %s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    size_t slot = name_cache_slot(o);
    if (name_cache[slot].str == o) {
        *out = name_cache[slot].id;
        return 0;
    }
    PyObject *cached = PyDict_GetItemWithError(name_ids, o);
    if (cached) {
        *out = (nt_name)PyLong_AsUnsignedLong(cached);
        name_cache_put(o, *out);
        return 0;
    }
    if (PyErr_Occurred()) return -1;
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(o, &len);
    if (!text) return -1;
    nt_name id;
    nt_status st = nt_name_intern_n(text, (size_t)len, &id);
    if (st != NT_OK) return nt_py_raise_int(st);
    PyObject *key = PyUnicode_FromStringAndSize(text, len); /* exact str, not a subclass */
    PyObject *value = PyLong_FromUnsignedLong(id);
    int rc = key && value ? PyDict_SetItem(name_ids, key, value) : -1;
    if (rc == 0) rc = remember_name(id, key);
    Py_XDECREF(key);
    Py_XDECREF(value);
    if (rc < 0) return -1;
    *out = id;
    name_cache_put(o, id);
    return 0;
}

/* The Python str for a name (None for NT_NAME_NONE); a new reference. */
static PyObject *name_object(nt_name name) {
    if (name == NT_NAME_NONE) Py_RETURN_NONE;
    if (name < name_objects_len && name_objects[name]) {
        Py_INCREF(name_objects[name]);
        return name_objects[name];
    }
    const char *text = nt_name_str(name); /* interned from C: learn its str now */
    if (!text) Py_RETURN_NONE;
    PyObject *str = PyUnicode_FromString(text);
    if (!str || remember_name(name, str) < 0) {
        Py_XDECREF(str);
        return NULL;
    }
    return str;
}

PyObject *nt_py_names_tuple(const nt_tensor *t) {
    int n = nt_tensor_ndim(t);
    const nt_name *names = nt_tensor_names(t);
    PyObject *tuple = PyTuple_New(n);
    if (!tuple) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *item = name_object(names ? names[i] : NT_NAME_NONE);
        if (!item) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    return tuple;
}

int nt_py_names_from_items(PyObject *const *items, Py_ssize_t n, nt_name *out, int *count,
                           int skip) {
    if (n > NT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "too many names: %zd (at most %d)", n, NT_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i == skip)
            out[i] = NT_NAME_NONE;
        else if (nt_py_name_from_object(items[i], &out[i]) < 0)
            return -1;
    }
    *count = (int)n;
    return 0;
}

int nt_py_names_from_sequence(PyObject *seq, nt_name *out, int *count, int skip) {
    PyObject *fast = PySequence_Fast(seq, "names must be a sequence of str or None");
    if (!fast) return -1;
    int rc = nt_py_names_from_items(PySequence_Fast_ITEMS(fast), PySequence_Fast_GET_SIZE(fast),
                                    out, count, skip);
    Py_DECREF(fast);
    return rc;
}

int nt_py_int64_from_object(PyObject *o, int64_t *out, const char *what) {
    PyObject *index = o; /* an int, or what __index__ makes of the object */
    if (!PyLong_CheckExact(o)) {
        if (PyBool_Check(o) || PyFloat_Check(o) || !PyIndex_Check(o)) {
            PyErr_Format(PyExc_TypeError, "%s must be int, not %s", what, Py_TYPE(o)->tp_name);
            return -1;
        }
        if (!(index = PyNumber_Index(o))) return -1;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    if (index != o) Py_DECREF(index);
    if (overflow) { /* PyTorch's THPUtils_unpackLong */
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
        return -1;
    }
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

int nt_py_number(PyObject *o, nt_scalar *out) {
    if (PyBool_Check(o)) {
        *out = nt_scalar_bool(o == Py_True);
        return 0;
    }
    if (PyLong_Check(o)) { /* inline: the per-call path of every number argument */
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) {
            PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            return -1;
        }
        *out = nt_scalar_int(v);
        return 0;
    }
    if (PyFloat_Check(o)) {
        *out = nt_scalar_float(PyFloat_AS_DOUBLE(o));
        return 0;
    }
    if (nt_py_is_tensor(o)) {
        nt_status st = nt_item(nt_py_tensor(o), out);
        return st == NT_OK ? 0 : nt_py_raise_int(st);
    }
    PyObject *generic = nt_py_numpy_generic_type();
    if (generic && PyObject_IsInstance(o, generic) == 1) {
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
            if (nt_py_int64_from_object(o, &v, "value") < 0) return -1;
            *out = nt_scalar_int(v);
            return 0;
        }
        double f = PyFloat_AsDouble(o);
        if (f == -1.0 && PyErr_Occurred()) return -1;
        *out = nt_scalar_float(f);
        return 0;
    }
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "expected a number, but got %s", Py_TYPE(o)->tp_name);
    return -1;
}

PyObject *nt_py_scalar_to_object(nt_scalar s) {
    switch (s.kind) {
    case NT_SCALAR_BOOL:
        return PyBool_FromLong(s.v.b);
    case NT_SCALAR_INT:
        return PyLong_FromLongLong(s.v.i);
    default:
        return PyFloat_FromDouble(s.v.f);
    }
}

int nt_py_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     const char *const *kwlist, int max_positional, int required,
                     PyObject **values) {
    int nparams = 0, self = strcmp(kwlist[0], "self") == 0; /* bound already: counted */
    while (kwlist[nparams])
        values[nparams++] = NULL;
    Py_ssize_t given = nargs + self;
    if (given > max_positional) {
        if (required < max_positional)
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %d to %d positional arguments but %zd were given", fname,
                         required, max_positional, given);
        else
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given",
                         fname, max_positional, max_positional == 1 ? "" : "s", given,
                         given == 1 ? "was" : "were");
        return -1;
    }
    if (self) values[0] = Py_None; /* the caller's self: given */
    for (Py_ssize_t i = 0; i < nargs; i++)
        values[self + i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = -1;
        for (int p = 0; p < nparams && found < 0; p++)
            if (PyUnicode_CompareWithASCIIString(key, kwlist[p]) == 0) found = p;
        if (found < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname,
                         key);
            return -1;
        }
        if (values[found]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         kwlist[found]);
            return -1;
        }
        values[found] = args[nargs + k];
    }
    /* Python's text: 'a'; 'a' and 'b'; 'a', 'b', and 'c' */
    char names[256] = "";
    int missing = 0, count = 0;
    for (int p = 0; p < required; p++)
        count += !values[p];
    for (int p = 0; p < required; p++) {
        if (values[p]) continue;
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s'%s'",
                 !missing               ? ""
                 : count == 2           ? " and "
                 : missing == count - 1 ? ", and "
                                        : ", ",
                 kwlist[p]);
        missing++;
    }
    if (missing)
        PyErr_Format(PyExc_TypeError, "%s() missing %d required positional argument%s: %s", fname,
                     missing, missing == 1 ? "" : "s", names);
    return missing ? -1 : 0;
}
