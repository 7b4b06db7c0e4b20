/*
 * names.c — the named-dimension methods of Tensor: rename, rename_, refine_names,
 * align_to, align_as, flatten, unflatten (thin wrappers over src/names/).
 *
 * PyTorch implements parts of these in Python (torch/_tensor.py, _namedtensor_internals.py):
 * the Ellipsis expansion of rename/refine_names, the rename(**map) form, the namedshape
 * form of unflatten. They are done here in C with the same results and the same error
 * texts, including the odd ones (a list slice for the Ellipsis, a zip for namedshapes).
 */
#include "arglists.h"

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

/* rename(*names) / rename(**rename_map) / rename(None); writes the new names (NULL: drop
 * them all) into *names_out. Returns 0 or -1. */
static int rename_args(const char *api, nt_tensor *t, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames, nt_name *buf, const nt_name **names_out) {
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int ndim = nt_tensor_ndim(t);
    if (nargs > 0 && nkw > 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s: This function takes either positional args or keyword args, but not "
                     "both. Use tensor.%s(*names) to name dims and tensor.%s(**rename_map) to "
                     "rename dims.",
                     api, api, api);
        return -1;
    }
    if (nkw > 0) {
        *names_out = buf;
        return names_from_map(api, t, args + nargs, kwnames, buf);
    }
    if (nargs == 1 && args[0] == Py_None) {
        *names_out = NULL;
        return 0;
    }
    int ellipsis = nt_py_find_ellipsis(api, args, nargs);
    if (ellipsis == -2) return -1;
    nt_py_name_item items[2 * NT_MAX_DIMS];
    int count = nt_py_expand_ellipsis(t, args, nargs, ellipsis, items);
    if (count < 0 || nt_py_convert_names(api, "names", "tuple", items, count, buf) < 0) return -1;
    if (count != ndim) {
        PyObject *list = nt_py_names_list(buf, count);
        if (list) nt_py_set_names_count_error(count, ndim, list);
        Py_XDECREF(list);
        return -1;
    }
    *names_out = ndim > 0 ? buf : NULL;
    return 0;
}

/* rename(*names, **rename_map): a view with new names. */
static PyObject *tensor_rename(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    nt_tensor *t = nt_py_tensor(self), *out;
    nt_name buf[2 * NT_MAX_DIMS];
    const nt_name *names;
    if (rename_args("rename", t, args, nargs, kwnames, buf, &names) < 0) return NULL;
    return nt_py_result_of(nt_rename(t, names, &out), &out);
}

/* rename_(*names, **rename_map): renames in place and returns self. */
static PyObject *tensor_rename_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    nt_tensor *t = nt_py_tensor(self);
    nt_name buf[2 * NT_MAX_DIMS];
    const nt_name *names;
    if (rename_args("rename_", t, args, nargs, kwnames, buf, &names) < 0) return NULL;
    nt_status st = nt_set_names_(t, names);
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(self);
    return self;
}

/* ---- refine_names, align_to, align_as ---- */

/* refine_names(*names): names may hold one Ellipsis, expanded here as PyTorch does. */
static PyObject *tensor_refine_names(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    nt_tensor *t = nt_py_tensor(self), *out;
    int ellipsis = nt_py_find_ellipsis("refine_names", args, nargs);
    if (ellipsis == -2) return NULL;
    nt_py_name_item items[2 * NT_MAX_DIMS];
    nt_name names[2 * NT_MAX_DIMS];
    int count = nt_py_expand_ellipsis(t, args, nargs, ellipsis, items);
    if (count < 0 || nt_py_convert_names("refine_names", "names", "tuple", items, count, names) < 0)
        return NULL;
    return nt_py_result_of(nt_refine_names(t, count, names, -1, &out), &out);
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

static PyObject *tensor_align_as(PyObject *self, PyObject *other) {
    if (!nt_py_is_tensor(other)) {
        PyErr_Format(PyExc_TypeError,
                     "align_as(): argument 'other' (position 1) must be Tensor, not %s",
                     nt_py_type_name(other));
        return NULL;
    }
    nt_tensor *out;
    return nt_py_result_of(nt_align_as(nt_py_tensor(self), nt_py_tensor(other), &out), &out);
}

/* ---- flatten ---- */

static const nt_py_signature flatten_sigs[] = {
    {3, 3, {{NT_PY_ARG_INT, "start_dim"}, {NT_PY_ARG_INT, "end_dim"}, {NT_PY_ARG_NAME, "out_dim"}}},
    {2, 0, {{NT_PY_ARG_INT, "start_dim"}, {NT_PY_ARG_INT, "end_dim"}}},
    {3, 3, {{NT_PY_ARG_NAME, "start_dim"}, {NT_PY_ARG_NAME, "end_dim"}, {NT_PY_ARG_NAME, "out_dim"}}},
    {2, 2, {{NT_PY_ARG_NAMES, "dims"}, {NT_PY_ARG_NAME, "out_dim"}}},
};

/* A start/end dim argument: an int (left for the C API to wrap) or a name (resolved). */
static int flatten_dim(nt_tensor *t, PyObject *o, int64_t *out) {
    if (PyUnicode_Check(o)) return nt_py_dim_from_object(t, o, out);
    return nt_py_int64_from_object(o, out, "dim");
}

/* flatten(start_dim=0, end_dim=-1), flatten(start_dim, end_dim, out_dim) with dims as
 * indices or names, flatten(dims, out_dim) with a list of names. */
PyObject *nt_py_tensor_flatten(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    static const char *const kwlist[] = {"start_dim", "end_dim", "out_dim", "dims", NULL};
    nt_tensor *t = nt_py_tensor(self), *out;
    PyObject *v[4];
    if (nt_py_parse_args("flatten", args, nargs, kwnames, kwlist, 3, v) < 0) {
        if (nargs > 3 && PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            return nt_py_invalid_combination("flatten", args, nargs, kwnames, flatten_sigs, 4);
        }
        return NULL;
    }
    PyObject *dims = v[3];
    if (!dims && v[0] && (PyList_Check(v[0]) || PyTuple_Check(v[0]))) {
        dims = v[0]; /* flatten(dims, out_dim): the 2nd positional is out_dim */
        v[0] = NULL;
        if (nargs >= 2 && !v[2]) {
            v[2] = v[1];
            v[1] = NULL;
        } else if (nargs == 1 && !v[2] && !kwnames) {
            PyErr_Format(PyExc_TypeError,
                         "flatten(): argument 'start_dim' (position 1) must be int, not %s",
                         nt_py_type_name(dims));
            return NULL;
        }
    }
    if (dims) {
        if (v[0] || v[1] || nargs > 2 || !v[2] || !(v[2] == Py_None || PyUnicode_Check(v[2])) ||
            !(PyList_Check(dims) || PyTuple_Check(dims)))
            return nt_py_invalid_combination("flatten", args, nargs, kwnames, flatten_sigs, 4);
        Py_ssize_t n = PySequence_Fast_GET_SIZE(dims);
        if (n > NT_MAX_DIMS) {
            PyErr_SetString(PyExc_RuntimeError, "flatten: too many dims");
            return NULL;
        }
        if (n > 0 && !(PySequence_Fast_GET_ITEM(dims, 0) == Py_None ||
                       PyUnicode_Check(PySequence_Fast_GET_ITEM(dims, 0))))
            return nt_py_invalid_combination("flatten", args, nargs, kwnames, flatten_sigs, 4);
        nt_py_name_item items[NT_MAX_DIMS];
        nt_name names[NT_MAX_DIMS], out_name;
        for (Py_ssize_t i = 0; i < n; i++)
            items[i] = (nt_py_name_item){PySequence_Fast_GET_ITEM(dims, i), 0};
        if (nt_py_convert_names("flatten", "dims", Py_TYPE(dims)->tp_name, items, (int)n, names) < 0 ||
            nt_py_name_from_object(v[2], &out_name) < 0)
            return NULL;
        return nt_py_result_of(nt_flatten_names(t, (int)n, names, out_name, &out), &out);
    }
    /* flatten(start_dim, end_dim[, out_dim]) */
    for (int i = 0; i < 2; i++)
        if (v[i] && !nt_py_is_int(v[i]) && !PyUnicode_Check(v[i])) {
            if (nargs == 1 && !kwnames) {
                PyErr_Format(PyExc_TypeError,
                             "flatten(): argument 'start_dim' (position 1) must be int, not %s",
                             nt_py_type_name(v[i]));
                return NULL;
            }
            return nt_py_invalid_combination("flatten", args, nargs, kwnames, flatten_sigs, 4);
        }
    if (v[2] && v[2] != Py_None && !PyUnicode_Check(v[2]))
        return nt_py_invalid_combination("flatten", args, nargs, kwnames, flatten_sigs, 4);
    if (!v[2] && ((v[0] && PyUnicode_Check(v[0])) || (v[1] && PyUnicode_Check(v[1]))) &&
        !(v[0] && v[1]))
        return nt_py_invalid_combination("flatten", args, nargs, kwnames, flatten_sigs, 4);
    int64_t start = 0, end = -1;
    if ((v[0] && flatten_dim(t, v[0], &start) < 0) || (v[1] && flatten_dim(t, v[1], &end) < 0))
        return NULL;
    if (!v[2]) /* the merged dim is unnamed; one dim alone is the tensor itself */
        return nt_py_result_self(self, nt_flatten_dims(t, start, end, &out), &out);
    nt_name out_name;
    if (nt_py_name_from_object(v[2], &out_name) < 0) return NULL;
    return nt_py_result_of(nt_flatten(t, start, end, out_name, &out), &out);
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

/* unflatten(dim, sizes): sizes are ints (a -1 is inferred) or a namedshape. */
PyObject *nt_py_tensor_unflatten(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"dim", "sizes", NULL};
    nt_tensor *t = nt_py_tensor(self), *out;
    PyObject *v[2];
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
    PyObject *names_obj = NULL, *sizes_obj = v[1];
    int named = is_ordered_dict(v[1]) || ((PyTuple_Check(v[1]) || PyList_Check(v[1])) &&
                                          (PyTuple_Check(PySequence_Fast_GET_ITEM(v[1], 0)) ||
                                           PyList_Check(PySequence_Fast_GET_ITEM(v[1], 0))));
    if (named && unzip_namedshape(v[1], &names_obj, &sizes_obj) < 0) return NULL;
    PyObject *result = NULL;
    int64_t dim, sizes[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    if (!nt_py_is_int(v[0]) && !PyUnicode_Check(v[0])) {
        PyErr_Format(PyExc_TypeError, "unflatten(): argument 'dim' (position 1) must be %s, not %s",
                     named ? "name" : "int", nt_py_type_name(v[0]));
        goto done;
    }
    if (!named && PyUnicode_Check(v[0])) { /* a name needs a namedshape, as in PyTorch */
        PyErr_SetString(PyExc_TypeError,
                        "unflatten(): argument 'dim' (position 1) must be int, not str");
        goto done;
    }
    if (!PyTuple_Check(sizes_obj) && !PyList_Check(sizes_obj)) {
        PyErr_Format(PyExc_TypeError,
                     "unflatten(): argument 'sizes' (position 2) must be tuple of ints, not %s",
                     nt_py_type_name(sizes_obj));
        goto done;
    }
    int count = nt_py_int_list("unflatten", "sizes", 2, "ints", &sizes_obj, 1, sizes);
    if (count < 0) goto done;
    if (names_obj) {
        Py_ssize_t n = PyTuple_GET_SIZE(names_obj);
        nt_py_name_item items[NT_MAX_DIMS];
        for (Py_ssize_t i = 0; i < n; i++)
            items[i] = (nt_py_name_item){PyTuple_GET_ITEM(names_obj, i), 0};
        if (n > 0 && !(PyTuple_GET_ITEM(names_obj, 0) == Py_None ||
                       PyUnicode_Check(PyTuple_GET_ITEM(names_obj, 0)))) {
            PyErr_SetString(PyExc_TypeError, "unflatten(): argument 'names' (position 3) must "
                                             "be tuple of names, not tuple");
            goto done;
        }
        if (nt_py_convert_names("unflatten", "names", "tuple", items, (int)n, names) < 0) goto done;
    }
    if (nt_py_dim_from_object(t, v[0], &dim) < 0) goto done;
    result = nt_py_result_of(nt_unflatten(t, dim, count, sizes, names_obj ? names : NULL, &out), &out);
done:
    if (names_obj) {
        Py_DECREF(names_obj);
        Py_DECREF(sizes_obj);
    }
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
    {"align_as", tensor_align_as, METH_O,
     "align_as(other): align_to(*other.names): permutes and adds dims to match other."},
    {"flatten", FASTCALL_KW(nt_py_tensor_flatten),
     "flatten(start_dim=0, end_dim=-1[, out_dim]) or flatten(dims, out_dim): merges "
     "consecutive dims into one."},
    {"unflatten", FASTCALL_KW(nt_py_tensor_unflatten),
     "unflatten(dim, sizes): splits a dim into sizes or a namedshape ((name, size), ...)."},
    {NULL, NULL, 0, NULL},
};
