/*
 * ops_random.c — the Tensor entries of the autograd placeholders: requires_grad_,
 * register_hook and the requires_grad and grad setters. The random family itself (the
 * in-place distributions, random_, bernoulli, torch.normal's forms, torch.dropout) is generated
 * from its rows (bindings.c); F.dropout is Python (nn/functional.py).
 *
 * Argument errors reproduce PyTorch 1.13's parser texts; autograd does not exist yet, so
 * the calls that would need it (requires_grad_(True), assigning a gradient) raise
 * NotImplementedError, and register_hook fails as PyTorch does on a tensor that does not
 * require grad.
 */
#include <string.h>

#include "arglists.h"
#include "interop.h"

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* ---- argument helpers ---- */

/* nt_py_parse_args with Python's text for too many positional arguments. */
static int parse(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                 const char *const *kwlist, int min_pos, int max_pos, PyObject **v) {
    if (nargs > max_pos) {
        if (min_pos == max_pos)
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given",
                         fname, max_pos, max_pos == 1 ? "" : "s", nargs);
        else
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %d to %d positional arguments but %zd were given", fname,
                         min_pos, max_pos, nargs);
        return -1;
    }
    return nt_py_parse_args(fname, args, nargs, kwnames, kwlist, max_pos, v);
}

/* ---- autograd placeholders ---- */

static int requires_grad_value(nt_tensor *t, int value) {
    if (!value) return 0;
    if (!nt_dtype_is_floating(nt_tensor_dtype(t))) {
        PyErr_SetString(PyExc_RuntimeError,
                        "only Tensors of floating point and complex dtype can require gradients");
        return -1;
    }
    PyErr_SetString(PyExc_NotImplementedError,
                    "requires_grad=True: ntensor has no autograd yet (tensors never require grad)");
    return -1;
}

static PyObject *tensor_register_hook(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames) {
    static const char *const kwlist[] = {"hook", NULL};
    PyObject *v[1];
    if (parse("register_hook", args, nargs, kwnames, kwlist, 1, 1, v) < 0) return NULL;
    if (!v[0]) {
        PyErr_SetString(PyExc_TypeError,
                        "Tensor.register_hook() missing 1 required positional argument: 'hook'");
        return NULL;
    }
    /* no tensor requires grad before autograd exists: PyTorch's error for such tensors */
    PyErr_SetString(PyExc_RuntimeError,
                    "cannot register a hook on a tensor that doesn't require gradient");
    return NULL;
}

static PyObject *get_false(PyObject *self, void *closure) {
    Py_RETURN_FALSE;
}
static PyObject *get_none(PyObject *self, void *closure) {
    Py_RETURN_NONE;
}

static int set_requires_grad(PyObject *self, PyObject *value, void *closure) {
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete requires_grad");
        return -1;
    }
    if (!PyBool_Check(value)) {
        PyErr_SetString(PyExc_RuntimeError, "requires_grad must be a bool");
        return -1;
    }
    return requires_grad_value(nt_py_tensor(self), value == Py_True);
}

static int set_grad(PyObject *self, PyObject *value, void *closure) {
    if (!value || value == Py_None) return 0; /* deleting or clearing: there is none */
    if (!nt_py_is_tensor(value)) {
        PyErr_Format(PyExc_TypeError,
                     "assigned grad expected to be a Tensor or None but got grad of type%s",
                     nt_py_type_name(value));
        return -1;
    }
    nt_tensor *t = nt_py_tensor(self), *g = nt_py_tensor(value);
    if (nt_tensor_dtype(t) != nt_tensor_dtype(g)) {
        PyErr_SetString(PyExc_RuntimeError, "assigned grad has data of a different type");
        return -1;
    }
    int same = nt_tensor_ndim(t) == nt_tensor_ndim(g);
    for (int i = 0; same && i < nt_tensor_ndim(t); i++)
        same = nt_tensor_sizes(t)[i] == nt_tensor_sizes(g)[i];
    if (!same) {
        PyErr_SetString(PyExc_RuntimeError, "assigned grad has data of a different size");
        return -1;
    }
    PyErr_SetString(PyExc_NotImplementedError,
                    "assigning .grad: ntensor has no autograd yet (.grad is always None)");
    return -1;
}

static PyGetSetDef random_getset[] = {
    {"requires_grad", get_false, set_requires_grad,
     "False: no autograd yet (setting True raises NotImplementedError).", NULL},
    {"grad", get_none, set_grad, "None: no autograd yet.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* Replaces the read-only requires_grad and grad attributes with ones that have setters. */
int nt_py_random_init(PyObject *module) {
    PyTypeObject *type = &NtTensor_Type;
    for (PyGetSetDef *g = random_getset; g->name; g++) {
        PyObject *descr = PyDescr_NewGetSet(type, g);
        if (!descr || PyDict_SetItemString(type->tp_dict, g->name, descr) < 0) {
            Py_XDECREF(descr);
            return -1;
        }
        Py_DECREF(descr);
    }
    PyType_Modified(type);
    return 0;
}

/* ---- tables ---- */

PyMethodDef nt_py_tensor_random_methods[] = {
    {"register_hook", FASTKW(tensor_register_hook),
     "register_hook(hook): fails as on a tensor that does not require grad."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_random_functions[] = {
    {NULL, NULL, 0, NULL},
};
