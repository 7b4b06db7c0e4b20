/*
 * names.c — the named-dimension methods of Tensor: rename, rename_, refine_names,
 * align_to, align_as, flatten, unflatten (thin wrappers over src/names/).
 */
#include "pyntensor.h"

/* refine_names(*names): names may hold one Ellipsis. */
static PyObject *tensor_refine_names(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    nt_name names[NT_MAX_DIMS];
    int ellipsis = -1;
    if (nargs > NT_MAX_DIMS) {
        PyErr_SetString(PyExc_RuntimeError, "refine_names: too many names");
        return NULL;
    }
    PyObject *tuple = PyTuple_New(nargs);
    if (!tuple) return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(tuple, i, args[i]);
    }
    int count;
    int rc = nt_py_names_from_sequence(tuple, names, &count, &ellipsis);
    Py_DECREF(tuple);
    if (rc < 0) return NULL;
    nt_tensor *out;
    nt_status st = nt_refine_names(nt_py_tensor(self), count, names, ellipsis, &out);
    return nt_py_result(st, out);
}

PyMethodDef nt_py_tensor_names_methods[] = {
    {"refine_names", (PyCFunction)(void (*)(void))tensor_refine_names, METH_FASTCALL,
     "refine_names(*names): lifts unnamed dims to the given names (one ... allowed)."},
    {NULL, NULL, 0, NULL},
};
