/*
 * subclass.c — Tensor subclasses from Python (class P(ntensor.Tensor)), as PyTorch 1.13 has
 * them: ops on a P return P (PyTorch's default Tensor.__torch_function__ converts the results
 * with as_subclass), a class may opt out (__torch_function__ =
 * ntensor._C._disabled_torch_function_impl, as nn.Parameter does) or override
 * __torch_function__(cls, func, types, args=(), kwargs=None) to see every op of the op table
 * that one of its instances takes part in.
 *
 * The plain path costs one type compare per tensor argument (Py_TYPE(o) == &NtTensor_Type);
 * all the rest runs only when a subclass instance is among the arguments. Results keep the
 * subclass without a new autograd node: the result's own tensor is wrapped as the subclass
 * (PyTorch's as_subclass adds an AliasBackward0 node in between); docs/python_ergonomics.md.
 */
#include "subclass.h"

/* Set while Tensor.__torch_function__ runs its func (PyTorch's DisableTorchFunction): ops
 * then ignore subclasses, and the default converts once at the end. Per thread, as
 * PyTorch's: func may release the GIL. */
static _Thread_local int torch_function_disabled;

static PyObject *str_torch_function; /* "__torch_function__", interned */
static PyObject *default_impl;       /* Tensor.__dict__["__torch_function__"] */
static PyObject *disabled_impl;      /* _C._disabled_torch_function_impl */

PyTypeObject *nt_py_pick_subclass(PyTypeObject *best, PyObject *o) {
    PyTypeObject *type = Py_TYPE(o);
    if (type == &NtTensor_Type || torch_function_disabled || !nt_py_is_tensor(o)) return best;
    /* PyTorch's order: a subclass of the type found first goes before it */
    return !best || PyType_IsSubtype(type, best) ? type : best;
}

/* The __torch_function__ that `type` finds on its MRO (borrowed), as attribute lookup does. */
static PyObject *lookup_torch_function(PyTypeObject *type) {
    PyObject *mro = type->tp_mro;
    for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *dict = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_dict;
        PyObject *found = dict ? PyDict_GetItemWithError(dict, str_torch_function) : NULL;
        if (found || PyErr_Occurred()) return found;
    }
    return NULL;
}

int nt_py_subclass_policy(PyTypeObject *type, PyObject **override) {
    *override = NULL;
    if (!type) return NT_PY_SUB_PLAIN;
    PyObject *fn = lookup_torch_function(type);
    if (!fn) return PyErr_Occurred() ? -1 : NT_PY_SUB_KEEP;
    if (fn == disabled_impl) return NT_PY_SUB_PLAIN;
    if (fn == default_impl) return NT_PY_SUB_KEEP;
    *override = fn;
    return NT_PY_SUB_OVERRIDE;
}

/* `obj` (a tensor) as an instance of `type`: itself when it is one, else a new object of
 * `type` over the same tensor, which becomes the tensor's object when `obj` was its only
 * reference (a fresh result). Steals obj. */
static PyObject *as_type(PyObject *obj, PyTypeObject *type) {
    if (PyObject_TypeCheck(obj, type)) return obj;
    nt_tensor *t = nt_tensor_retain(nt_py_tensor(obj));
    Py_DECREF(obj); /* a fresh wrapper goes, and leaves the handle free */
    return nt_py_wrap_as(type, t);
}

PyObject *nt_py_keep_subclass(PyObject *result, PyTypeObject *type) {
    if (!result || !type || type == &NtTensor_Type) return result;
    if (nt_py_is_tensor(result)) return as_type(result, type);
    if (!PyTuple_Check(result) && !PyList_Check(result)) return result;
    /* tuples (struct sequences too: their items are slots of a tuple) and lists, in place
     * when the container is not shared (a fresh result), otherwise in a plain copy */
    bool tuple = PyTuple_Check(result);
    Py_ssize_t n = tuple ? PyTuple_GET_SIZE(result) : PyList_GET_SIZE(result);
    if (Py_REFCNT(result) != 1) { /* shared: a plain copy */
        PyObject *copy = tuple ? PySequence_Tuple(result) : PySequence_List(result);
        Py_DECREF(result);
        if (!copy) return NULL;
        result = copy;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject **slot = tuple ? &PyTuple_GET_ITEM(result, i) : &PyList_GET_ITEM(result, i);
        PyObject *item = nt_py_keep_subclass(*slot, type); /* steals the slot's reference */
        *slot = item;
        if (!item) {
            Py_DECREF(result); /* a NULL item is skipped by both deallocators */
            return NULL;
        }
    }
    return result;
}

PyObject *nt_py_keep_subclass_of(PyObject *result, PyObject *a, PyObject *b) {
    PyTypeObject *type = nt_py_pick_subclass(NULL, a);
    if (b) type = nt_py_pick_subclass(type, b);
    if (!type || !result) return result;
    PyObject *override;
    int policy = nt_py_subclass_policy(type, &override);
    if (policy < 0) Py_CLEAR(result);
    return policy == NT_PY_SUB_PLAIN ? result : nt_py_keep_subclass(result, type);
}

PyObject *nt_py_call_torch_function(PyObject *override, PyTypeObject *type, PyObject *func,
                                    PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    Py_ssize_t shift = self ? 1 : 0, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *tuple = PyTuple_New(nargs + shift), *kwargs = PyDict_New(), *result = NULL;
    PyObject *types = PyTuple_Pack(1, (PyObject *)type), *bound = NULL;
    if (!tuple || !kwargs || !types) goto done;
    if (self) PyTuple_SET_ITEM(tuple, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(tuple, i + shift, Py_NewRef(args[i]));
    for (Py_ssize_t k = 0; k < nkw; k++)
        if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0) goto done;
    /* the class attribute as Python binds it: a classmethod gets the class */
    descrgetfunc get = Py_TYPE(override)->tp_descr_get;
    bound = get ? get(override, NULL, (PyObject *)type) : Py_NewRef(override);
    if (bound) result = PyObject_CallFunctionObjArgs(bound, func, types, tuple, kwargs, NULL);
done:
    Py_XDECREF(bound);
    Py_XDECREF(types);
    Py_XDECREF(tuple);
    Py_XDECREF(kwargs);
    return result;
}

/* func(*args, **kwargs) of a __torch_function__ call (func, types, args=(), kwargs=None) with
 * subclasses ignored. */
static PyObject *run_disabled(const char *name, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"func", "types", "args", "kwargs", NULL};
    PyObject *v[4] = {NULL, NULL, NULL, NULL};
    if (nt_py_parse_args(name, args, nargs, kwnames, kwlist, 4, 2, v) < 0) return NULL;
    PyObject *call_args = v[2] && v[2] != Py_None ? PySequence_Tuple(v[2]) : PyTuple_New(0);
    if (!call_args) return NULL;
    int was = torch_function_disabled;
    torch_function_disabled = 1;
    PyObject *result = PyObject_Call(v[0], call_args, v[3] && v[3] != Py_None ? v[3] : NULL);
    torch_function_disabled = was;
    Py_DECREF(call_args);
    return result;
}

/* Whether cls derives from every type in types: 1, 0 or -1. */
static int derives_from_all(PyObject *cls, PyObject *types) {
    PyObject *fast = PySequence_Fast(types, "types must be a sequence of types");
    if (!fast) return -1;
    int all = 1;
    for (Py_ssize_t i = 0; all == 1 && i < PySequence_Fast_GET_SIZE(fast); i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(fast, i);
        all = PyType_Check(t) ? PyObject_IsSubclass(cls, t) : 0;
    }
    Py_DECREF(fast);
    return all;
}

/* Tensor.__torch_function__(cls, func, types, args=(), kwargs=None): PyTorch's default, a
 * classmethod: NotImplemented unless cls derives from every type in types, else func run
 * with subclasses ignored and its tensors converted to cls. */
static PyObject *tensor_torch_function(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                       PyObject *kwnames) {
    PyObject *types = nargs > 1 ? args[1] : NULL;
    for (Py_ssize_t k = 0; !types && kwnames && k < PyTuple_GET_SIZE(kwnames); k++)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "types") == 0)
            types = args[nargs + k];
    int all = types ? derives_from_all(cls, types) : 1; /* missing: the parser says so */
    if (all < 0) return NULL;
    if (!all) Py_RETURN_NOTIMPLEMENTED;
    PyObject *result = run_disabled("__torch_function__", args, nargs, kwnames);
    return nt_py_keep_subclass(result, (PyTypeObject *)cls);
}

/* t.as_subclass(cls): an object of cls over t's tensor (the same memory, names and autograd
 * history). */
static PyObject *tensor_as_subclass(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    static const char *const kwlist[] = {"self", "cls", NULL};
    PyObject *v[2] = {self, NULL};
    if (nt_py_parse_args("as_subclass", args, nargs, kwnames, kwlist, 2, 2, v) < 0) return NULL;
    if (!PyType_Check(v[1]) || !PyType_IsSubtype((PyTypeObject *)v[1], &NtTensor_Type)) {
        PyErr_Format(PyExc_TypeError, "as_subclass(): argument 'cls' must be a subclass of "
                                      "Tensor");
        return NULL;
    }
    return nt_py_wrap_as((PyTypeObject *)v[1], nt_tensor_retain(nt_py_tensor(self)));
}

/* _C._disabled_torch_function_impl(func, types, args=(), kwargs=None): func run as it is,
 * its results plain tensors (a class that sets it as its __torch_function__ opts out). */
static PyObject *disabled_torch_function(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                         PyObject *kwnames) {
    return run_disabled("_disabled_torch_function_impl", args, nargs, kwnames);
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_tensor_subclass_methods[] = {
    {"__torch_function__", FASTKW(tensor_torch_function) | METH_CLASS,
     "__torch_function__($cls, func, types, args=(), kwargs=None)\n--\n\n"
     "Called for every op an instance of a subclass takes part in: runs func and returns its "
     "tensors as instances of the class (override it to change what ops do)."},
    {"as_subclass", FASTKW(tensor_as_subclass),
     "as_subclass($self, cls, /)\n--\n\n"
     "An instance of cls over the same tensor: the same memory, names and autograd history."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_subclass_functions[] = {
    {"_disabled_torch_function_impl", FASTKW(disabled_torch_function),
     "_disabled_torch_function_impl($module, func, types, args=(), kwargs=None)\n--\n\n"
     "A __torch_function__ that runs func as it is: ops on instances of a class that sets it "
     "return plain tensors (nn.Parameter)."},
    {NULL, NULL, 0, NULL},
};

int nt_py_subclass_init(PyObject *module) {
    if (!(str_torch_function = PyUnicode_InternFromString("__torch_function__"))) return -1;
    default_impl = PyDict_GetItemWithError(NtTensor_Type.tp_dict, str_torch_function);
    disabled_impl = PyObject_GetAttrString(module, "_disabled_torch_function_impl");
    if (!default_impl || !disabled_impl) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "ntensor: Tensor.__torch_function__ is missing");
        return -1;
    }
    Py_INCREF(default_impl);
    return 0;
}
