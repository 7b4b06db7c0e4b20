/*
 * arglists.c — argument helpers of names.c and views.c: name lists with an Ellipsis, int
 * lists, and PyTorch's argument-parser error texts (see arglists.h).
 *
 * PyTorch parses Tensor methods with a generic signature matcher; when no overload fits,
 * its TypeError lists the overloads and, for those whose argument count fits, why they
 * did not match. The helpers here rebuild those texts from a small signature table, so the
 * methods can parse their arguments directly (fast) and still fail like PyTorch.
 */
#include <string.h>

#include "arglists.h"

const char *nt_py_type_name(PyObject *o) {
    if (nt_py_is_tensor(o)) return "Tensor";
    return Py_TYPE(o)->tp_name;
}

int nt_py_is_int(PyObject *o) {
    if (PyLong_CheckExact(o)) return 1;
    if (PyBool_Check(o) || PyFloat_Check(o)) return 0;
    return PyLong_Check(o) || (PyIndex_Check(o) && !nt_py_is_tensor(o));
}

static int is_name_or_none(PyObject *o) {
    return o == Py_None || PyUnicode_Check(o);
}

/* Whether PyTorch's message marks `o` as fitting a parameter of this type. Its message
 * never counts a str or list as fitting a name or a list of names, so neither do we. */
static int param_accepts(nt_py_param_type type, PyObject *o) {
    switch (type) {
    case NT_PY_ARG_INT:
        return nt_py_is_int(o);
    case NT_PY_ARG_NAME:
        return 0;
    case NT_PY_ARG_NAMES:
        return 0;
    case NT_PY_ARG_TENSOR:
        return nt_py_is_tensor(o);
    case NT_PY_ARG_DTYPE:
        return PyObject_TypeCheck(o, &NtDtype_Type);
    case NT_PY_ARG_SYMINTS:
        if (!PyList_Check(o) && !PyTuple_Check(o)) return 0;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); i++)
            if (!nt_py_is_int(PySequence_Fast_GET_ITEM(o, i))) return 0;
        return 1;
    }
    return 0;
}

static const char *const param_type_text[] = {
    [NT_PY_ARG_INT] = "int",       [NT_PY_ARG_NAME] = "name",         [NT_PY_ARG_NAMES] = "tuple of names",
    [NT_PY_ARG_TENSOR] = "Tensor", [NT_PY_ARG_DTYPE] = "torch.dtype", [NT_PY_ARG_SYMINTS] = "tuple of SymInts",
};

/* Appends `text` to the list of parts; returns 0 or -1. */
static int add(PyObject *parts, PyObject *text) {
    if (!text) return -1;
    int rc = PyList_Append(parts, text);
    Py_DECREF(text);
    return rc;
}

static int add_str(PyObject *parts, const char *text) {
    return add(parts, PyUnicode_FromString(text));
}

/* "(int, !float!, k=str)": the arguments' types, marked with ! where `sig` (if given)
 * rejects them. Keywords come in the signature's order when marking, as PyTorch does. */
static int add_arg_types(PyObject *parts, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames, const nt_py_signature *sig) {
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (add_str(parts, "(") < 0) return -1;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        int bad = sig && (i >= sig->nparams || !param_accepts(sig->params[i].type, args[i]));
        if (add(parts, PyUnicode_FromFormat("%s%s%s%s", i ? ", " : "", bad ? "!" : "",
                                            nt_py_type_name(args[i]), bad ? "!" : "")) < 0)
            return -1;
    }
    int order[8];
    int count = 0;
    if (sig) {
        for (int p = 0; p < sig->nparams; p++)
            for (Py_ssize_t k = 0; k < nkw && count < 8; k++)
                if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k),
                                                     sig->params[p].name) == 0)
                    order[count++] = (int)k;
    } else {
        for (Py_ssize_t k = 0; k < nkw && count < 8; k++)
            order[count++] = (int)k;
    }
    for (int j = 0; j < count; j++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, order[j]);
        PyObject *value = args[nargs + order[j]];
        int bad = 0;
        if (sig)
            for (int p = 0; p < sig->nparams; p++)
                if (PyUnicode_CompareWithASCIIString(key, sig->params[p].name) == 0)
                    bad = !param_accepts(sig->params[p].type, value);
        if (add(parts,
                PyUnicode_FromFormat("%s%s%U=%s%s%s", nargs ? ", " : "", bad ? "!" : "", key,
                                     nt_py_type_name(value), bad ? "!" : "", nargs ? "" : ", ")) < 0)
            return -1;
    }
    return add_str(parts, ")");
}

static int add_signature(PyObject *parts, const nt_py_signature *sig) {
    if (add_str(parts, " * (") < 0) return -1;
    for (int p = 0; p < sig->nparams; p++)
        if (add(parts,
                PyUnicode_FromFormat("%s%s %s", p ? ", " : "", param_type_text[sig->params[p].type],
                                     sig->params[p].name)) < 0)
            return -1;
    return add_str(parts, ")\n");
}

/* The keywords of the call that `sig` has no free parameter for. */
static PyObject *bad_keywords(const nt_py_signature *sig, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *bad = PyList_New(0);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; bad && k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = 0;
        for (int p = (int)nargs; p < sig->nparams; p++)
            if (PyUnicode_CompareWithASCIIString(key, sig->params[p].name) == 0) found = 1;
        if (!found && PyList_Append(bad, key) < 0) Py_CLEAR(bad);
    }
    return bad;
}

PyObject *nt_py_invalid_combination(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames, const nt_py_signature *sigs, int nsigs) {
    PyObject *parts = PyList_New(0);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (!parts) return NULL;
    if (add(parts, PyUnicode_FromFormat("%s() received an invalid combination of arguments - got ",
                                        fname)) < 0 ||
        add_arg_types(parts, args, nargs, kwnames, NULL) < 0 ||
        add_str(parts, ", but expected one of:\n") < 0)
        goto fail;
    for (int s = 0; s < nsigs; s++) {
        const nt_py_signature *sig = &sigs[s];
        if (add_signature(parts, sig) < 0) goto fail;
        Py_ssize_t got = nargs + nkw;
        /* PyTorch explains a mismatch when the count fits (an empty signature: one arg) */
        if (got < sig->min_args || got > (sig->nparams ? sig->nparams : 1)) continue;
        PyObject *bad = bad_keywords(sig, nargs, kwnames);
        if (!bad) goto fail;
        if (PyList_GET_SIZE(bad) > 0) {
            PyObject *sep = PyUnicode_FromString(", ");
            PyObject *joined = sep ? PyUnicode_Join(sep, bad) : NULL;
            Py_XDECREF(sep);
            Py_DECREF(bad);
            if (add(parts,
                    PyUnicode_FromFormat("      didn't match because some of the keywords were "
                                         "incorrect: %U\n",
                                         joined ? joined : Py_None)) < 0) {
                Py_XDECREF(joined);
                goto fail;
            }
            Py_XDECREF(joined);
            continue;
        }
        Py_DECREF(bad);
        if (add_str(parts, "      didn't match because some of the arguments have invalid "
                           "types: ") < 0 ||
            add_arg_types(parts, args, nargs, kwnames, sig) < 0 || add_str(parts, "\n") < 0)
            goto fail;
    }
    PyObject *empty = PyUnicode_FromString("");
    PyObject *text = empty ? PyUnicode_Join(empty, parts) : NULL;
    Py_XDECREF(empty);
    if (text) {
        PyErr_SetObject(PyExc_TypeError, text);
        Py_DECREF(text);
    }
fail:
    Py_DECREF(parts);
    return NULL;
}

PyObject *nt_py_missing_args(const char *fname, int n, const char *const *names) {
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s\"%s\"", i ? ", " : "", names[i]);
    PyErr_Format(PyExc_TypeError, "%s() missing %d required positional arguments: %s", fname, n,
                 list);
    return NULL;
}

/* ---- name lists ---- */

static int is_ellipsis(PyObject *o) {
    if (o == Py_Ellipsis) return 1;
    return PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, "...") == 0;
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

int nt_py_expand_ellipsis(const nt_tensor *t, PyObject *const *items, Py_ssize_t n, int ellipsis,
                       nt_py_name_item *out) {
    if (n > NT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "too many names: %zd (at most %d)", n, NT_MAX_DIMS);
        return -1;
    }
    int count = 0;
    if (ellipsis < 0) {
        for (Py_ssize_t i = 0; i < n; i++)
            out[count++] = (nt_py_name_item){items[i], 0};
        return count;
    }
    /* tensor_names[ellipsis : len - post], a Python slice */
    const nt_name *names = nt_tensor_names(t);
    int64_t len = nt_tensor_ndim(t), post = n - ellipsis - 1;
    int64_t start = ellipsis < len ? ellipsis : len, end = len - post;
    if (end < 0) end += len;
    if (end < 0) end = 0;
    for (int i = 0; i < ellipsis; i++)
        out[count++] = (nt_py_name_item){items[i], 0};
    for (int64_t i = start; i < end; i++)
        out[count++] = (nt_py_name_item){NULL, names ? names[i] : NT_NAME_NONE};
    for (Py_ssize_t i = ellipsis + 1; i < n; i++)
        out[count++] = (nt_py_name_item){items[i], 0};
    return count;
}

int nt_py_convert_names(const char *fname, const char *arg, const char *container,
                     const nt_py_name_item *items, int n, nt_name *out) {
    if (n > 0 && items[0].obj && !is_name_or_none(items[0].obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument '%s' (position 1) must be tuple of names, not %s", fname, arg,
                     container);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (!items[i].obj)
            out[i] = items[i].name;
        else if (nt_py_name_from_object(items[i].obj, &out[i]) < 0)
            return -1;
    }
    return 0;
}

PyObject *nt_py_names_list(const nt_name *names, int n) {
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *item = nt_py_name_object(names[i]);
        if (!item)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
    }
    return list;
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
        if (!nt_py_is_int(items[i])) {
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

/* ---- module-level functions ---- */

PyObject *nt_py_call_as_function(const char *fname, nt_py_method method, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs > 0) {
        if (!nt_py_is_tensor(args[0])) {
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument 'input' (position 1) must be Tensor, not %s", fname,
                         nt_py_type_name(args[0]));
            return NULL;
        }
        return method(args[0], args + 1, nargs - 1, kwnames);
    }
    /* input=... among the keywords: call without it */
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0, at = -1;
    for (Py_ssize_t k = 0; k < nkw && at < 0; k++)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "input") == 0) at = k;
    if (at < 0) return nt_py_missing_args(fname, 1, (const char *const[]){"input"});
    PyObject *self = args[at];
    if (!nt_py_is_tensor(self)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be Tensor, not %s", fname,
                     nt_py_type_name(self));
        return NULL;
    }
    PyObject *rest[16];
    if (nkw > 16) {
        PyErr_Format(PyExc_TypeError, "%s(): too many arguments", fname);
        return NULL;
    }
    PyObject *names = nkw > 1 ? PyTuple_New(nkw - 1) : NULL;
    if (nkw > 1 && !names) return NULL;
    Py_ssize_t j = 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        if (k == at) continue;
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        Py_INCREF(key);
        PyTuple_SET_ITEM(names, j, key);
        rest[j++] = args[k];
    }
    PyObject *result = method(self, rest, 0, names);
    Py_XDECREF(names);
    return result;
}
