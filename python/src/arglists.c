/*
 * arglists.c — argument helpers outside the signature parser (see arglists.h).
 */
#include "arglists.h"

const char *nt_py_type_name(PyObject *o) {
    PyTypeObject *t = Py_TYPE(o);
    return t == &NtTensor_Type  ? "Tensor"
           : t == &NtDtype_Type ? "torch.dtype"
           : t == &NtSize_Type  ? "torch.Size"
                                : t->tp_name;
}

PyObject *nt_py_tuple_of(PyObject *const *items, Py_ssize_t n) {
    PyObject *tuple = PyTuple_New(n);
    for (Py_ssize_t k = 0; tuple && k < n; k++) {
        Py_INCREF(items[k]);
        PyTuple_SET_ITEM(tuple, k, items[k]);
    }
    return tuple;
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
        PyObject *tuple = nt_py_tuple_of(items, n);
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
