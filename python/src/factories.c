/*
 * factories.c — the module's tensor factories: empty, zeros, ones, full, arange, tensor,
 * the *_like forms, rand, randn, normal, manual_seed, from_numpy.
 */
#include "pyntensor.h"

typedef nt_status (*shape_factory)(int, const int64_t *, nt_dtype, const nt_name *,
                                   nt_tensor **);

/* f(*size, names=None, dtype=None): the shape of the zeros/ones/empty/rand/randn family. */
static PyObject *call_shape_factory(const char *fname, shape_factory make, PyObject *const *args,
                                    Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const kwlist[] = {"names", "dtype", "device", "requires_grad", NULL};
    PyObject *kw[4];
    if (nt_py_parse_args(fname, args + nargs, 0, kwnames, kwlist, 0, kw) < 0) return NULL;
    int64_t sizes[NT_MAX_DIMS];
    int ndim = nt_py_sizes_from_args(args, nargs, sizes, fname);
    if (ndim < 0) return NULL;
    nt_dtype dtype;
    if (nt_py_dtype_from_object(kw[1], nt_default_dtype(), &dtype) < 0) return NULL;
    nt_name names[NT_MAX_DIMS];
    const nt_name *names_arg = NULL;
    if (kw[0] && kw[0] != Py_None) {
        int count;
        if (nt_py_names_from_sequence(kw[0], names, &count, NULL) < 0) return NULL;
        if (count != ndim) {
            nt_py_set_names_count_error(count, ndim, kw[0]);
            return NULL;
        }
        names_arg = names;
    }
    nt_tensor *out;
    return nt_py_result(make(ndim, sizes, dtype, names_arg, &out), out);
}

static PyObject *py_zeros(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
    return call_shape_factory("zeros", nt_zeros, args, nargs, kw);
}

PyMethodDef nt_py_module_factory_functions[] = {
    {"zeros", (PyCFunction)(void (*)(void))py_zeros, METH_FASTCALL | METH_KEYWORDS,
     "zeros(*size, names=None, dtype=None): a tensor of zeros."},
    {NULL, NULL, 0, NULL},
};
