/*
 * views.c — the view methods of Tensor (transpose, permute, expand, squeeze, unsqueeze,
 * select, narrow, view, reshape, ...): every dim argument accepts an index or a name.
 */
#include "pyntensor.h"

static PyObject *tensor_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    static const char *const kwlist[] = {"dim0", "dim1", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("transpose", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0] || !v[1]) {
        PyErr_SetString(PyExc_TypeError, "transpose() missing required arguments dim0, dim1");
        return NULL;
    }
    nt_tensor *t = nt_py_tensor(self), *out;
    int64_t d0, d1;
    if (nt_py_dim_from_object(t, v[0], &d0) < 0 || nt_py_dim_from_object(t, v[1], &d1) < 0)
        return NULL;
    return nt_py_result(nt_transpose(t, d0, d1, &out), out);
}

PyMethodDef nt_py_tensor_view_methods[] = {
    {"transpose", (PyCFunction)(void (*)(void))tensor_transpose, METH_FASTCALL | METH_KEYWORDS,
     "transpose(dim0, dim1): swaps two dims (indices or names)."},
    {NULL, NULL, 0, NULL},
};
