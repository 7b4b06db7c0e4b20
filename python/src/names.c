/*
 * names.c — the named-dimension methods whose Python form no signature describes, so they
 * are written by hand: rename(*names, **rename_map), rename_, refine_names(*names),
 * align_to(*names), and the front of Tensor.unflatten(dim, sizes) that unzips a namedshape.
 * Every other op of the family (views, flatten, align_as, unflatten's checks, copies) is
 * generated from its rows.
 *
 * PyTorch implements these in Python (torch/_tensor.py, _namedtensor_internals.py). Here
 * they only turn the Python arguments into names and the index of the one Ellipsis (its
 * entry a placeholder), with the texts of PyTorch's own checks on Python objects ("More
 * than one Ellipsis", a zip for namedshapes); the C functions expand the Ellipsis, check
 * the names and do the work.
 */
#include <string.h>

#include "arglists.h"
#include "bindings.h"

/* ---- rename, rename_ ---- */

/* rename(**rename_map): the tensor's names with the mapped dims replaced. */
static int names_from_map(const char *api, nt_tensor *t, PyObject *const *values, PyObject *kwnames,
                          nt_name *out) {
    int ndim = nt_tensor_ndim(t);
    const nt_name *cur = nt_tensor_names(t);
    nt_py_name_item items[NT_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        items[i] = (nt_py_name_item){NULL, cur ? cur[i] : NT_NAME_NONE};
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        nt_name id;
        int dim = -1;
        if (nt_py_name_from_object(key, &id) < 0)
            PyErr_Clear(); /* not a valid name: absent */
        else
            for (int i = 0; cur && i < ndim && dim < 0; i++)
                if (cur[i] == id) dim = i;
        if (dim < 0) {
            PyObject *names = nt_py_names_tuple(t);
            if (names)
                PyErr_Format(PyExc_RuntimeError,
                             "%s: Tried to rename dim '%U' to dim %S in Tensor[%R] but dim "
                             "'%U' does not exist",
                             api, key, values[k], names, key);
            Py_XDECREF(names);
            return -1;
        }
        items[dim] = (nt_py_name_item){values[k], 0};
    }
    return nt_py_convert_names(api, "names", "tuple", items, ndim, out);
}

/* Converts *names, one of which may be an Ellipsis (its entry a placeholder; its index in
 * *ellipsis, else -1), for rename and refine_names. Returns the count or -1. */
static int names_with_ellipsis(const char *api, PyObject *const *args, Py_ssize_t nargs,
                               nt_name *out, int *ellipsis) {
    *ellipsis = nt_py_find_ellipsis(api, args, nargs);
    if (*ellipsis == -2) return -1;
    if (nargs > 2 * NT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "too many names: %zd (at most %d)", nargs,
                     2 * NT_MAX_DIMS);
        return -1;
    }
    nt_py_name_item items[2 * NT_MAX_DIMS];
    for (Py_ssize_t i = 0; i < nargs; i++)
        items[i] =
            i == *ellipsis ? (nt_py_name_item){NULL, NT_NAME_NONE} : (nt_py_name_item){args[i], 0};
    if (nt_py_convert_names(api, "names", "tuple", items, (int)nargs, out) < 0) return -1;
    return (int)nargs;
}

/* rename(*names, **rename_map) and rename_: by map, by names (which C expands and checks),
 * or rename(None). */
static PyObject *rename_impl(const char *api, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames, bool inplace) {
    nt_tensor *t = nt_py_tensor(self), *out = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    nt_name buf[2 * NT_MAX_DIMS];
    nt_status st;
    if (nargs > 0 && nkw > 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s: This function takes either positional args or keyword args, but not "
                     "both. Use tensor.%s(*names) to name dims and tensor.%s(**rename_map) to "
                     "rename dims.",
                     api, api, api);
        return NULL;
    }
    if (nkw > 0) {
        if (names_from_map(api, t, args + nargs, kwnames, buf) < 0) return NULL;
        st = inplace ? nt_set_names_(t, buf) : nt_rename(t, buf, &out);
    } else if (nargs == 1 && args[0] == Py_None) {
        st = inplace ? nt_set_names_(t, NULL) : nt_rename(t, NULL, &out);
    } else {
        int ellipsis, count = names_with_ellipsis(api, args, nargs, buf, &ellipsis);
        if (count < 0) return NULL;
        nt_call c;
        memset(&c, 0, sizeof c);
        c.op = NT_OP_RENAME;
        c.inplace = inplace;
        c.args[0] = nt_arg_tensor(t);
        c.args[1] = nt_arg_names(count, buf, ellipsis);
        st = nt_call_op(&c);
        out = c.result[0];
        if (inplace && st == NT_OK) nt_tensor_release(out);
    }
    if (st != NT_OK) return nt_py_raise(st);
    if (inplace) {
        Py_INCREF(self);
        return self;
    }
    return nt_py_wrap(out);
}

static PyObject *tensor_rename(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    return rename_impl("rename", self, args, nargs, kwnames, false);
}

static PyObject *tensor_rename_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    return rename_impl("rename_", self, args, nargs, kwnames, true);
}

/* ---- refine_names, align_to ---- */

/* refine_names(*names): one Ellipsis, expanded by C as PyTorch does. */
static PyObject *tensor_refine_names(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    nt_tensor *t = nt_py_tensor(self), *out;
    nt_name names[2 * NT_MAX_DIMS];
    int ellipsis, count = names_with_ellipsis("refine_names", args, nargs, names, &ellipsis);
    if (count < 0) return NULL;
    return nt_py_result_of(nt_refine_names(t, count, names, ellipsis, &out), &out);
}

/* align_to(*names): one Ellipsis stands for the dims not mentioned, in their order. */
static PyObject *tensor_align_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    nt_tensor *t = nt_py_tensor(self), *out;
    int ellipsis = nt_py_find_ellipsis("align_to", args, nargs);
    if (ellipsis == -2) return NULL;
    if (nargs > NT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "align_to: too many names: %zd (at most %d)", nargs,
                     NT_MAX_DIMS);
        return NULL;
    }
    /* PyTorch checks the names without the Ellipsis (a list then, a tuple otherwise) */
    nt_py_name_item items[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int n = 0;
    for (Py_ssize_t i = 0; i < nargs; i++)
        if (i != ellipsis) items[n++] = (nt_py_name_item){args[i], 0};
    nt_name converted[NT_MAX_DIMS];
    if (nt_py_convert_names("align_to", ellipsis >= 0 ? "order" : "names",
                            ellipsis >= 0 ? "list" : "tuple", items, n, converted) < 0)
        return NULL;
    /* the C API takes the Ellipsis as a placeholder entry at its position */
    for (int i = 0, j = 0; i < (int)nargs; i++)
        names[i] = i == ellipsis ? NT_NAME_NONE : converted[j++];
    return nt_py_result_of(nt_align_to(t, (int)nargs, names, ellipsis, &out), &out);
}

/* ---- unflatten ---- */

/* Splits a namedshape ((name, size), ...) or an OrderedDict into names and sizes, as
 * PyTorch's `zip(*namedshape)` does. Returns the count or -1. */
static int unzip_namedshape(PyObject *shape, PyObject **names_out, PyObject **sizes_out) {
    PyObject *seq = PyDict_Check(shape) ? PyDict_Items(shape) : PySequence_List(shape);
    if (!seq) return -1;
    Py_ssize_t n = PyList_GET_SIZE(seq);
    Py_ssize_t width = -1; /* zip stops at the shortest entry */
    PyObject *entries = PyList_New(n);
    for (Py_ssize_t i = 0; entries && i < n; i++) {
        PyObject *entry = PySequence_Tuple(PyList_GET_ITEM(seq, i));
        if (!entry) {
            Py_CLEAR(entries);
            break;
        }
        if (width < 0 || PyTuple_GET_SIZE(entry) < width) width = PyTuple_GET_SIZE(entry);
        PyList_SET_ITEM(entries, i, entry);
    }
    Py_DECREF(seq);
    if (!entries) return -1;
    if (width < 2) {
        PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected 2, got %zd)",
                     width < 0 ? 0 : width);
        Py_DECREF(entries);
        return -1;
    }
    PyObject *names = PyTuple_New(n), *sizes = PyTuple_New(n);
    for (Py_ssize_t i = 0; names && sizes && i < n; i++) {
        PyObject *entry = PyList_GET_ITEM(entries, i);
        Py_INCREF(PyTuple_GET_ITEM(entry, 0));
        PyTuple_SET_ITEM(names, i, PyTuple_GET_ITEM(entry, 0));
        Py_INCREF(PyTuple_GET_ITEM(entry, 1));
        PyTuple_SET_ITEM(sizes, i, PyTuple_GET_ITEM(entry, 1));
    }
    Py_DECREF(entries);
    if (!names || !sizes) {
        Py_XDECREF(names);
        Py_XDECREF(sizes);
        return -1;
    }
    *names_out = names;
    *sizes_out = sizes;
    return (int)n;
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

typedef PyObject *(*fastcall_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

/* unflatten(dim, sizes): PyTorch's Python wrapper (torch/_tensor.py) in front of the method
 * generated from the rows (bindings.c; replaced here, METH_COEXIST): a namedshape is unzipped
 * into sizes and names, and that method checks the arguments and calls the op. */
static PyObject *tensor_unflatten(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "sizes", NULL};
    static fastcall_fn generated;
    for (PyMethodDef *m = nt_py_bindings_methods(); !generated && m->ml_name; m++)
        if (strcmp(m->ml_name, "unflatten") == 0)
            generated = (fastcall_fn)(void (*)(void))m->ml_meth;
    PyObject *v[3];
    if (nt_py_parse_args("Tensor.unflatten", args, nargs, kwnames, kwlist, 2, v) < 0) return NULL;
    if (!v[0] || !v[1]) {
        if (!v[0] && !v[1])
            PyErr_SetString(PyExc_TypeError, "Tensor.unflatten() missing 2 required positional "
                                             "arguments: 'dim' and 'sizes'");
        else
            PyErr_Format(PyExc_TypeError,
                         "Tensor.unflatten() missing 1 required positional argument: '%s'",
                         v[0] ? "sizes" : "dim");
        return NULL;
    }
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
    if (!named) return generated(self, v, 2, NULL);
    if (unzip_namedshape(v[1], &v[2], &v[1]) < 0) return NULL;
    PyObject *result = generated(self, v, 3, NULL);
    Py_DECREF(v[1]);
    Py_DECREF(v[2]);
    return result;
}

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_tensor_names_methods[] = {
    {"rename", FASTCALL_KW(tensor_rename),
     "rename(*names, **rename_map): a view with new names (rename(None) drops them)."},
    {"rename_", FASTCALL_KW(tensor_rename_), "rename_(*names, **rename_map): renames in place."},
    {"refine_names", (PyCFunction)(void (*)(void))tensor_refine_names, METH_FASTCALL,
     "refine_names(*names): lifts unnamed dims to the given names (one ... allowed)."},
    {"align_to", (PyCFunction)(void (*)(void))tensor_align_to, METH_FASTCALL,
     "align_to(*names): permutes dims into this order, adding size-one dims for new names."},
    {"unflatten", (PyCFunction)(void (*)(void))tensor_unflatten,
     METH_FASTCALL | METH_KEYWORDS | METH_COEXIST,
     "unflatten(dim, sizes): splits a dim into sizes or a namedshape ((name, size), ...)."},
    {NULL, NULL, 0, NULL},
};
