/*
 * arglists.c — argument helpers outside the signature parser (see arglists.h).
 */
#include <string.h>

#include "arglists.h"

const char *nt_py_type_name(PyObject *o) {
    PyTypeObject *t = Py_TYPE(o);
    return t == &NtTensor_Type  ? "Tensor"
           : t == &NtDtype_Type ? "torch.dtype"
           : t == &NtSize_Type  ? "torch.Size"
                                : t->tp_name;
}

/* True for an int argument as PyTorch's parser takes one (bool excluded). */
static int is_int(PyObject *o) {
    if (PyLong_CheckExact(o)) return 1;
    if (PyBool_Check(o) || PyFloat_Check(o)) return 0;
    return PyLong_Check(o) || (PyIndex_Check(o) && !nt_py_is_tensor(o));
}

/* ---- name lists ---- */

static int is_ellipsis(PyObject *o) {
    if (o == Py_Ellipsis) return 1;
    return PyUnicode_Check(o) && PyUnicode_GET_LENGTH(o) == 3 && /* names: one compare */
           PyUnicode_CompareWithASCIIString(o, "...") == 0;
}

int nt_py_find_ellipsis(const char *fname, PyObject *const *items, Py_ssize_t n) {
    int found = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_ellipsis(items[i])) continue;
        if (found < 0) {
            found = (int)i;
            continue;
        }
        PyObject *tuple = PyTuple_New(n);
        for (Py_ssize_t j = 0; tuple && j < n; j++) {
            Py_INCREF(items[j]);
            PyTuple_SET_ITEM(tuple, j, items[j]);
        }
        if (tuple)
            PyErr_Format(PyExc_RuntimeError,
                         "%s: More than one Ellipsis ('...') found in names (%R). This "
                         "function supports up to one Ellipsis.",
                         fname, tuple);
        Py_XDECREF(tuple);
        return -2;
    }
    return found;
}

/* ---- int lists ---- */

int nt_py_int_list(const char *fname, const char *arg, int position, const char *what,
                   PyObject *const *args, Py_ssize_t nargs, int64_t *out) {
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    PyObject *container = nargs > 0 ? args[0] : NULL;
    if (nargs == 1 && (PyTuple_Check(args[0]) || PyList_Check(args[0]))) {
        items = PySequence_Fast_ITEMS(args[0]);
        n = PySequence_Fast_GET_SIZE(args[0]);
    }
    if (n > NT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "%s(): too many dimensions: %zd (at most %d)", fname, n,
                     NT_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_int(items[i])) {
            if (i == 0)
                PyErr_Format(PyExc_TypeError,
                             "%s(): argument '%s' (position %d) must be tuple of %s, not %s", fname,
                             arg, position, what, nt_py_type_name(container));
            else
                PyErr_Format(PyExc_TypeError,
                             "%s(): argument '%s' must be tuple of %s, but found element of "
                             "type %s at pos %zd",
                             fname, arg, what, nt_py_type_name(items[i]), i + 1);
            return -1;
        }
        if (nt_py_int64_from_object(items[i], &out[i], arg) < 0) return -1;
    }
    return (int)n;
}
