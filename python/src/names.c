/*
 * names.c — the Python-level fronts of the named-dimension methods PyTorch writes in Python
 * (torch/_tensor.py, _namedtensor_internals.py): rename(*names, **rename_map), rename_,
 * align_to(*names) and unflatten(dim, sizes) with a namedshape. Each does only what
 * PyTorch's Python does with Python objects — a map's keys looked up among the tensor's
 * names ("Tried to rename dim 'X' to dim 1 ...", which prints the objects given), align_to's
 * names checked without their Ellipsis, a namedshape unzipped — and passes on to the method
 * generated from the op's rows (bindings.c), which it replaces (METH_COEXIST): that method
 * checks the arguments with PyTorch's texts, and C expands the Ellipsis and does the work.
 * refine_names and every other op of the family are generated whole.
 */
#include <string.h>

#include "arglists.h"
#include "bindings.h"

/* ---- rename, rename_ ---- */

/* rename(**rename_map): the tensor's names (str or None) with the mapped dims' replaced by
 * the objects given, a new tuple; PyTorch looks every key up before converting any value. */
static PyObject *names_from_map(const char *api, nt_tensor *t, PyObject *const *values,
                                PyObject *kwnames) {
    const nt_name *cur = nt_tensor_names(t);
    PyObject *names = nt_py_names_tuple(t);
    for (Py_ssize_t k = 0; names && k < PyTuple_GET_SIZE(kwnames); k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        nt_name id;
        int dim = -1;
        if (nt_py_name_from_object(key, &id) < 0)
            PyErr_Clear(); /* not a valid name: absent */
        else
            for (int i = 0; cur && i < nt_tensor_ndim(t) && dim < 0; i++)
                if (cur[i] == id) dim = i;
        if (dim < 0) {
            PyObject *dims = nt_py_names_tuple(t);
            if (dims)
                PyErr_Format(PyExc_RuntimeError,
                             "%s: Tried to rename dim '%U' to dim %S in Tensor[%R] but dim "
                             "'%U' does not exist",
                             api, key, values[k], dims, key);
            Py_XDECREF(dims);
            Py_CLEAR(names);
            break;
        }
        Py_INCREF(values[k]);
        PyTuple_SetItem(names, dim, values[k]);
    }
    return names;
}

/* rename(*names, **rename_map) and rename_: by names, by map (as the names it gives), or
 * rename(None), which drops them. */
static PyObject *rename_front(fastcall_fn *fn, const char *api, PyObject *self,
                              PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    nt_tensor *t = nt_py_tensor(self), *out = NULL;
    bool inplace = api[strlen(api) - 1] == '_';
    if (nargs > 0 && kwnames) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s: This function takes either positional args or keyword args, but not "
                     "both. Use tensor.%s(*names) to name dims and tensor.%s(**rename_map) to "
                     "rename dims.",
                     api, api, api);
        return NULL;
    }
    if (nargs == 1 && args[0] == Py_None) {
        nt_status st = inplace ? nt_set_names_(t, NULL) : nt_rename(t, NULL, &out);
        if (st != NT_OK || !inplace) return nt_py_result(st, out);
        Py_INCREF(self);
        return self;
    }
    if (!kwnames) return nt_py_call_generated(fn, api, self, args, nargs, NULL);
    PyObject *names = names_from_map(api, t, args, kwnames);
    PyObject *result = names ? nt_py_call_generated(fn, api, self, &PyTuple_GET_ITEM(names, 0),
                                                    PyTuple_GET_SIZE(names), NULL)
                             : NULL;
    Py_XDECREF(names);
    return result;
}

static PyObject *tensor_rename(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static fastcall_fn fn;
    return rename_front(&fn, "rename", self, args, nargs, kwnames);
}

static PyObject *tensor_rename_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    static fastcall_fn fn;
    return rename_front(&fn, "rename_", self, args, nargs, kwnames);
}

/* ---- align_to ---- */

/* align_to(*names): with an Ellipsis, PyTorch passes the other names on as a list
 * ("argument 'order'"), so their first is checked there. */
static PyObject *tensor_align_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    static fastcall_fn fn;
    int ellipsis = nt_py_find_ellipsis("align_to", args, nargs);
    if (ellipsis == -2) return NULL;
    PyObject *first = nargs > (ellipsis == 0) ? args[ellipsis == 0] : NULL;
    if (ellipsis >= 0 && first && first != Py_None && !PyUnicode_Check(first)) {
        PyErr_SetString(
            PyExc_TypeError,
            "align_to(): argument 'order' (position 1) must be tuple of names, not list");
        return NULL;
    }
    return nt_py_call_generated(&fn, "align_to", self, args, nargs, NULL);
}

/* ---- unflatten ---- */

/* PyTorch's `names, sizes = zip(*namedshape)` (an OrderedDict: its items), by Python's own
 * zip, so its errors too. Returns 0 with two new references, or -1. */
static int unzip_namedshape(PyObject *shape, PyObject **names_out, PyObject **sizes_out) {
    PyObject *items = PyDict_Check(shape) ? PyDict_Items(shape) : (Py_INCREF(shape), shape);
    PyObject *entries = items ? PySequence_Tuple(items) : NULL;
    PyObject *zipped = entries ? PyObject_CallObject((PyObject *)&PyZip_Type, entries) : NULL;
    PyObject *both = zipped ? PySequence_Tuple(zipped) : NULL;
    Py_XDECREF(items);
    Py_XDECREF(entries);
    Py_XDECREF(zipped);
    if (both && PyTuple_GET_SIZE(both) != 2) {
        if (PyTuple_GET_SIZE(both) < 2)
            PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected 2, got %zd)",
                         PyTuple_GET_SIZE(both));
        else
            PyErr_SetString(PyExc_ValueError, "too many values to unpack (expected 2)");
        Py_CLEAR(both);
    }
    if (!both) return -1;
    *names_out = PyTuple_GET_ITEM(both, 0);
    *sizes_out = PyTuple_GET_ITEM(both, 1);
    Py_INCREF(*names_out);
    Py_INCREF(*sizes_out);
    Py_DECREF(both);
    return 0;
}

/* Whether o is a collections.OrderedDict (a namedshape; PyTorch takes no plain dict). */
static int is_ordered_dict(PyObject *o) {
    static PyObject *ordered_dict;
    if (!PyDict_Check(o)) return 0;
    if (!ordered_dict) {
        PyObject *collections = PyImport_ImportModule("collections");
        ordered_dict = collections ? PyObject_GetAttrString(collections, "OrderedDict") : NULL;
        Py_XDECREF(collections);
        if (!ordered_dict) {
            PyErr_Clear();
            return 0;
        }
    }
    return PyObject_IsInstance(o, ordered_dict) == 1;
}

/* unflatten(dim, sizes): PyTorch's Python wrapper (torch/_tensor.py) in front of the method
 * generated from the rows (bindings.c; replaced here, METH_COEXIST): a namedshape is unzipped
 * into sizes and names, and that method checks the arguments and calls the op. */
static PyObject *tensor_unflatten(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    static const char *const kwlist[] = {"self", "dim", "sizes", NULL};
    static fastcall_fn fn;
    PyObject *all[4], **v = all + 1; /* v: dim, sizes, names */
    if (nt_py_parse_args("Tensor.unflatten", args, nargs, kwnames, kwlist, 3, 3, all) < 0)
        return NULL;
    int truth = nt_py_is_tensor(v[1]) ? 1 : PyObject_IsTrue(v[1]);
    if (truth < 0) return NULL;
    if (!truth) {
        PyErr_SetString(PyExc_RuntimeError, "unflatten: sizes must be non-empty");
        return NULL;
    }
    int named = is_ordered_dict(v[1]) || ((PyTuple_Check(v[1]) || PyList_Check(v[1])) &&
                                          (PyTuple_Check(PySequence_Fast_GET_ITEM(v[1], 0)) ||
                                           PyList_Check(PySequence_Fast_GET_ITEM(v[1], 0))));
    if (!named && PyUnicode_Check(v[0])) { /* a name needs a namedshape, as in PyTorch */
        PyErr_SetString(PyExc_TypeError,
                        "unflatten(): argument 'dim' (position 1) must be int, not str");
        return NULL;
    }
    if (!named) return nt_py_call_generated(&fn, "unflatten", self, v, 2, NULL);
    if (unzip_namedshape(v[1], &v[2], &v[1]) < 0) return NULL;
    PyObject *result = nt_py_call_generated(&fn, "unflatten", self, v, 3, NULL);
    Py_DECREF(v[1]);
    Py_DECREF(v[2]);
    return result;
}

#define FRONT(f, flags) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_COEXIST | (flags)

PyMethodDef nt_py_tensor_names_methods[] = {
    {"rename", FRONT(tensor_rename, METH_KEYWORDS),
     "rename(*names, **rename_map): a view with new names (rename(None) drops them)."},
    {"rename_", FRONT(tensor_rename_, METH_KEYWORDS),
     "rename_(*names, **rename_map): renames in place."},
    {"align_to", FRONT(tensor_align_to, 0),
     "align_to(*names): permutes dims into this order, adding size-one dims for new names."},
    {"unflatten", FRONT(tensor_unflatten, METH_KEYWORDS),
     "unflatten(dim, sizes): splits a dim into sizes or a namedshape ((name, size), ...)."},
    {NULL, NULL, 0, NULL},
};
