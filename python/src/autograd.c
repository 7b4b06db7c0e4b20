/*
 * autograd.c — the Python face of the C autograd (ntensor/autograd.h): the Tensor attributes
 * requires_grad, grad, grad_fn, is_leaf, retains_grad; the methods backward, register_hook,
 * retain_grad; grad_fn objects (name(), next_functions); the module functions the
 * ntensor.autograd package is written over. Semantics and texts are the C library's.
 */
#include <string.h>

#include "arglists.h"
#include "interop.h"
#include "pyntensor.h"

/* ---- attributes ---- */

PyObject *nt_py_get_requires_grad(PyObject *self, void *closure) {
    return PyBool_FromLong(nt_requires_grad(nt_py_tensor(self)));
}

int nt_py_set_requires_grad(PyObject *self, PyObject *value, void *closure) {
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete requires_grad");
        return -1;
    }
    if (!PyBool_Check(value)) {
        PyErr_SetString(PyExc_RuntimeError, "requires_grad must be a bool");
        return -1;
    }
    nt_status st = nt_set_requires_grad(nt_py_tensor(self), value == Py_True);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

PyObject *nt_py_get_is_leaf(PyObject *self, void *closure) {
    return PyBool_FromLong(nt_is_leaf(nt_py_tensor(self)));
}

PyObject *nt_py_get_retains_grad(PyObject *self, void *closure) {
    return PyBool_FromLong(nt_retains_grad(nt_py_tensor(self)));
}

PyObject *nt_py_get_grad(PyObject *self, void *closure) {
    nt_tensor *g = nt_grad(nt_py_tensor(self));
    if (!g) Py_RETURN_NONE;
    return nt_py_wrap(g);
}

int nt_py_set_grad(PyObject *self, PyObject *value, void *closure) {
    if (value && value != Py_None && !nt_py_is_tensor(value)) {
        PyErr_Format(PyExc_TypeError,
                     "assigned grad expected to be a Tensor or None but got grad of type%s",
                     nt_py_type_name(value));
        return -1;
    }
    nt_tensor *g = value && value != Py_None ? nt_py_tensor(value) : NULL;
    nt_status st = nt_set_grad(nt_py_tensor(self), g);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

/* _version: the version counter of the tensor's memory (one per in-place write) */
PyObject *nt_py_get_version(PyObject *self, void *closure) {
    return PyLong_FromUnsignedLongLong(nt_tensor_version(nt_py_tensor(self)));
}

/* ---- grad_fn objects ---- */

/* A node of the graph (or, for a leaf input in next_functions, its AccumulateGrad). */
typedef struct {
    PyObject_HEAD nt_grad_fn *fn; /* owned; NULL for an AccumulateGrad */
    PyObject *variable;           /* AccumulateGrad: the leaf */
} NtGradFnObject;

static PyTypeObject NtGradFn_Type;

static void grad_fn_dealloc(PyObject *self) {
    NtGradFnObject *o = (NtGradFnObject *)self;
    nt_grad_fn_release(o->fn);
    Py_XDECREF(o->variable);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *grad_fn_new(nt_grad_fn *fn, nt_tensor *leaf) {
    NtGradFnObject *o = PyObject_New(NtGradFnObject, &NtGradFn_Type);
    if (!o) {
        nt_grad_fn_release(fn);
        nt_tensor_release(leaf);
        return NULL;
    }
    o->fn = fn;
    o->variable = leaf ? nt_py_wrap(leaf) : NULL;
    if (leaf && !o->variable) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

static const char *grad_fn_name_of(NtGradFnObject *o) {
    return o->fn ? nt_grad_fn_name_of(o->fn) : "torch::autograd::AccumulateGrad";
}

static PyObject *grad_fn_name(PyObject *self, PyObject *unused) {
    return PyUnicode_FromString(grad_fn_name_of((NtGradFnObject *)self));
}

static PyObject *grad_fn_repr(PyObject *self) {
    const char *name = grad_fn_name_of((NtGradFnObject *)self);
    if (!((NtGradFnObject *)self)->fn) name = "AccumulateGrad";
    return PyUnicode_FromFormat("<%s object at %p>", name, self);
}

/* ((next node or None, output number), ...) per input, as PyTorch's next_functions */
static PyObject *grad_fn_next(PyObject *self, void *closure) {
    NtGradFnObject *o = (NtGradFnObject *)self;
    int n = o->fn ? nt_grad_fn_num_next(o->fn) : 0;
    PyObject *out = PyTuple_New(n);
    for (int i = 0; out && i < n; i++) {
        int nr = 0;
        nt_tensor *leaf = NULL;
        nt_grad_fn *next = nt_grad_fn_next(o->fn, i, &nr, &leaf);
        PyObject *f = next || leaf ? grad_fn_new(next, leaf) : Py_NewRef(Py_None);
        PyObject *pair = f ? Py_BuildValue("(Ni)", f, nr) : NULL;
        if (!pair)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, i, pair);
    }
    return out;
}

static PyObject *grad_fn_variable(PyObject *self, void *closure) {
    PyObject *v = ((NtGradFnObject *)self)->variable;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "only AccumulateGrad nodes have a variable");
        return NULL;
    }
    return Py_NewRef(v);
}

static PyObject *grad_fn_richcompare(PyObject *a, PyObject *b, int op) {
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &NtGradFn_Type))
        Py_RETURN_NOTIMPLEMENTED;
    NtGradFnObject *x = (NtGradFnObject *)a, *y = (NtGradFnObject *)b;
    bool same = x->fn ? x->fn == y->fn
                      : !y->fn && x->variable && y->variable &&
                            nt_py_tensor(x->variable) == nt_py_tensor(y->variable);
    return PyBool_FromLong(same == (op == Py_EQ));
}

static Py_hash_t grad_fn_hash(PyObject *self) {
    NtGradFnObject *o = (NtGradFnObject *)self;
    return _Py_HashPointer(o->fn ? (void *)o->fn : (void *)nt_py_tensor(o->variable));
}

static PyMethodDef grad_fn_methods[] = {
    {"name", grad_fn_name, METH_NOARGS, "The node's name, as PyTorch prints it."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef grad_fn_getset[] = {
    {"next_functions", grad_fn_next, NULL, "The nodes the inputs' gradients go to.", NULL},
    {"variable", grad_fn_variable, NULL, "AccumulateGrad: the leaf it accumulates into.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject NtGradFn_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor._C._GradFn",
    .tp_basicsize = sizeof(NtGradFnObject),
    .tp_dealloc = grad_fn_dealloc,
    .tp_repr = grad_fn_repr,
    .tp_richcompare = grad_fn_richcompare,
    .tp_hash = grad_fn_hash,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A node of the autograd graph (a tensor's grad_fn).",
    .tp_methods = grad_fn_methods,
    .tp_getset = grad_fn_getset,
};

PyObject *nt_py_get_grad_fn(PyObject *self, void *closure) {
    nt_grad_fn *fn = nt_tensor_grad_fn(nt_py_tensor(self));
    if (!fn) Py_RETURN_NONE;
    return grad_fn_new(fn, NULL);
}

/* ---- hooks ---- */

/* PyTorch's name for a hook in its errors: its __name__, else "<unknown>". */
static PyObject *hook_name(PyObject *hook) {
    PyObject *name =
        PyObject_HasAttrString(hook, "__name__") ? PyObject_GetAttrString(hook, "__name__") : NULL;
    if (name && PyUnicode_Check(name)) return name;
    Py_XDECREF(name);
    PyErr_Clear();
    return PyUnicode_FromString("<unknown>");
}

/* PyTorch's checks of a hook's result r for gradient g (python_hook.cpp): a Tensor of g's type
 * and size. 0, or -1 with the Python error set. */
static int check_hook_result(PyObject *hook, nt_tensor *g, PyObject *r) {
    if (!nt_py_is_tensor(r)) {
        PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'",
                     nt_py_type_name(r));
        return -1;
    }
    nt_tensor *t = nt_py_tensor(r);
    bool same_type = nt_tensor_dtype(t) == nt_tensor_dtype(g);
    bool same_size = nt_tensor_ndim(t) == nt_tensor_ndim(g) &&
                     !memcmp(nt_tensor_sizes(t), nt_tensor_sizes(g),
                             (size_t)nt_tensor_ndim(g) * sizeof(int64_t));
    if (same_type && same_size) return 0;
    PyObject *name = hook_name(hook);
    if (!name) return -1;
    if (!same_type)
        PyErr_Format(PyExc_RuntimeError, "hook '%U' has changed the type of value (was %s got %s)",
                     name, nt_py_legacy_type_names[nt_tensor_dtype(g)],
                     nt_py_legacy_type_names[nt_tensor_dtype(t)]);
    else
        PyErr_Format(PyExc_RuntimeError, "hook '%U' has changed the size of value", name);
    Py_DECREF(name);
    return -1;
}

/* A Python hook: fn(grad) -> Tensor or None. A Python exception stays set and the backward
 * pass stops with NT_ERR_RUNTIME; the caller sees the Python exception (raise_backward). */
static nt_status py_hook(void *ctx, nt_tensor *grad, nt_tensor **replacement) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *g = nt_py_wrap(nt_tensor_retain(grad));
    PyObject *r = g ? PyObject_CallOneArg((PyObject *)ctx, g) : NULL;
    Py_XDECREF(g);
    nt_status st = NT_OK;
    if (!r || (r != Py_None && check_hook_result((PyObject *)ctx, grad, r) < 0))
        st = NT_ERR_RUNTIME;
    else if (r != Py_None)
        *replacement = nt_tensor_retain(nt_py_tensor(r));
    Py_XDECREF(r);
    PyGILState_Release(gil);
    return st;
}

static void py_hook_free(void *ctx) {
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(gil);
}

/* A handle whose remove() takes the hook off its tensor (PyTorch's RemovableHandle). */
typedef struct {
    PyObject_HEAD PyObject *tensor; /* weak: the hook dies with its tensor */
    int64_t id;
} NtHandleObject;

static void handle_dealloc(PyObject *self) {
    Py_XDECREF(((NtHandleObject *)self)->tensor);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *handle_remove(PyObject *self, PyObject *unused) {
    NtHandleObject *h = (NtHandleObject *)self;
    PyObject *t = h->tensor ? PyWeakref_GetObject(h->tensor) : Py_None;
    if (t && t != Py_None) nt_remove_hook(nt_py_tensor(t), h->id);
    Py_RETURN_NONE;
}

static PyObject *handle_enter(PyObject *self, PyObject *unused) {
    return Py_NewRef(self);
}

static PyObject *handle_exit(PyObject *self, PyObject *args) {
    return handle_remove(self, NULL);
}

static PyMethodDef handle_methods[] = {
    {"remove", handle_remove, METH_NOARGS, "Removes the hook."},
    {"__enter__", handle_enter, METH_NOARGS, NULL},
    {"__exit__", handle_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject NtHandle_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor._C.RemovableHandle",
    .tp_basicsize = sizeof(NtHandleObject),
    .tp_dealloc = handle_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A hook's handle: remove() takes the hook off.",
    .tp_methods = handle_methods,
};

static PyObject *tensor_register_hook(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames) {
    static const char *const kwlist[] = {"self", "hook", NULL};
    PyObject *v[2];
    if (nt_py_parse_args("Tensor.register_hook", args, nargs, kwnames, kwlist, 2, 2, v) < 0)
        return NULL;
    PyObject *fn = v[1];
    int64_t id;
    nt_status st = nt_register_hook(nt_py_tensor(self), py_hook, fn, py_hook_free, &id);
    if (st != NT_OK) return nt_py_raise(st);
    Py_INCREF(fn); /* released by py_hook_free */
    NtHandleObject *h = PyObject_New(NtHandleObject, &NtHandle_Type);
    if (!h) return NULL;
    h->id = id;
    h->tensor = PyWeakref_NewRef(self, NULL);
    if (!h->tensor) Py_CLEAR(h);
    return (PyObject *)h;
}

static PyObject *tensor_retain_grad(PyObject *self, PyObject *unused) {
    nt_status st = nt_retain_grad(nt_py_tensor(self));
    if (st != NT_OK) return nt_py_raise(st);
    Py_RETURN_NONE;
}

/* ---- backward and grad ---- */

/* A failed backward: a hook's Python exception as it is, else the C error. */
static PyObject *raise_backward(nt_status st) {
    return PyErr_Occurred() ? NULL : nt_py_raise(st);
}

/* The tensors of a tensor or a sequence of tensors (None entries kept as NULL when allowed),
 * as new list `*out` of borrowed pointers; n receives the count. */
static int tensors_of(PyObject *o, const char *what, bool allow_none, nt_tensor ***out,
                      Py_ssize_t *n) {
    PyObject *seq = nt_py_is_tensor(o) ? PyTuple_Pack(1, o) : PySequence_Tuple(o);
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s must be a Tensor or a sequence of Tensors", what);
        return -1;
    }
    *n = PyTuple_GET_SIZE(seq);
    *out = PyMem_Calloc((size_t)*n + 1, sizeof **out);
    for (Py_ssize_t i = 0; *out && i < *n; i++) {
        PyObject *item = PyTuple_GET_ITEM(seq, i);
        if (nt_py_is_tensor(item)) {
            (*out)[i] = nt_py_tensor(item);
        } else if (!(allow_none && item == Py_None)) {
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be a Tensor, not %s", what, i,
                         Py_TYPE(item)->tp_name);
            PyMem_Free(*out);
            *out = NULL;
        }
    }
    Py_DECREF(seq);
    if (!*out && !PyErr_Occurred()) PyErr_NoMemory();
    return *out ? 0 : -1;
}

/* _run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, allow_unused,
 *               accumulate): backward (accumulate) or autograd.grad (returns the grads) */
static PyObject *py_run_backward(PyObject *m, PyObject *args) {
    PyObject *tensors, *grads, *inputs;
    int retain, create, allow_unused, accumulate;
    if (!PyArg_ParseTuple(args, "OOppOpp:_run_backward", &tensors, &grads, &retain, &create,
                          &inputs, &allow_unused, &accumulate))
        return NULL;
    nt_tensor **outs = NULL, **gs = NULL, **ins = NULL, **results = NULL;
    Py_ssize_t n = 0, ng = 0, ni = 0;
    PyObject *ret = NULL;
    if (tensors_of(tensors, "tensors", false, &outs, &n) < 0 ||
        tensors_of(grads, "grad_tensors", true, &gs, &ng) < 0 ||
        tensors_of(inputs, "inputs", false, &ins, &ni) < 0)
        goto done;
    if (ng != n) {
        PyErr_Format(PyExc_RuntimeError, "got %zd tensors and %zd gradients", n, ng);
        goto done;
    }
    nt_status st;
    if (accumulate && create &&
        PyErr_WarnEx(PyExc_UserWarning,
                     "Using backward() with create_graph=True will create a reference cycle "
                     "between the parameter and its gradient which can cause a memory leak. We "
                     "recommend using autograd.grad when creating the graph to avoid this. If you "
                     "have to use this function, make sure to reset the .grad fields of your "
                     "parameters to None after use to break the cycle and avoid the leak.",
                     1) < 0)
        goto done;
    if (accumulate) {
        Py_BEGIN_ALLOW_THREADS st = nt_backward((int)n, outs, gs, retain, create, (int)ni, ins);
        Py_END_ALLOW_THREADS if (st != NT_OK) goto fail;
        ret = Py_NewRef(Py_None);
        goto done;
    }
    results = PyMem_Calloc((size_t)ni + 1, sizeof *results);
    if (!results) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS st =
        nt_autograd_grad((int)n, outs, gs, (int)ni, ins, retain, create, allow_unused, results);
    Py_END_ALLOW_THREADS if (st != NT_OK) goto fail;
    ret = PyTuple_New(ni);
    for (Py_ssize_t i = 0; i < ni; i++) {
        PyObject *g = results[i] ? nt_py_wrap(results[i]) : Py_NewRef(Py_None);
        results[i] = NULL;
        if (ret && g) {
            PyTuple_SET_ITEM(ret, i, g);
        } else {
            Py_XDECREF(g);
            Py_CLEAR(ret);
        }
    }
    goto done;
fail:
    raise_backward(st);
done:
    for (Py_ssize_t i = 0; results && i < ni; i++)
        nt_tensor_release(results[i]);
    PyMem_Free(results);
    PyMem_Free(outs);
    PyMem_Free(gs);
    PyMem_Free(ins);
    return ret;
}

/* t.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None) */
static PyObject *tensor_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
    static const char *const kwlist[] = {"self",         "gradient", "retain_graph",
                                         "create_graph", "inputs",   NULL};
    if (nargs == 0 && !kwnames) {
        /* t.backward(): the common call, straight to the engine (no argument tuple) */
        nt_tensor *t = nt_py_tensor(self);
        nt_status st;
        Py_BEGIN_ALLOW_THREADS st = nt_backward(1, &t, NULL, false, false, 0, NULL);
        Py_END_ALLOW_THREADS if (st != NT_OK) {
            raise_backward(st);
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *v[5];
    if (nt_py_parse_args("Tensor.backward", args, nargs, kwnames, kwlist, 5, 1, v) < 0) return NULL;
    int create = v[3] ? PyObject_IsTrue(v[3]) : 0;
    int retain = v[2] && v[2] != Py_None ? PyObject_IsTrue(v[2]) : create;
    if (create < 0 || retain < 0) return NULL;
    PyObject *grad = v[1] ? v[1] : Py_None;
    PyObject *inputs = v[4] && v[4] != Py_None ? v[4] : NULL;
    if (inputs && !nt_py_is_tensor(inputs)) {
        Py_ssize_t count = PyObject_Length(inputs);
        if (count < 0) return NULL;
        if (count == 0) {
            PyErr_SetString(PyExc_RuntimeError, "'inputs' argument to backward() cannot be empty.");
            return NULL;
        }
    }
    PyObject *empty = PyTuple_New(0);
    PyObject *call = empty ? Py_BuildValue("((O)(O)iiOii)", self, grad, retain, create,
                                           inputs ? inputs : empty, 0, 1)
                           : NULL;
    PyObject *r = call ? py_run_backward(NULL, call) : NULL;
    Py_XDECREF(call);
    Py_XDECREF(empty);
    return r;
}

/* ---- grad mode ---- */

static PyObject *py_set_grad_enabled(PyObject *m, PyObject *arg) {
    if (!PyBool_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "enabled must be a bool");
        return NULL;
    }
    return PyBool_FromLong(nt_set_grad_enabled(arg == Py_True));
}
static PyObject *py_is_grad_enabled(PyObject *m, PyObject *unused) {
    return PyBool_FromLong(nt_is_grad_enabled());
}
static PyObject *py_set_inference_mode(PyObject *m, PyObject *arg) {
    return PyBool_FromLong(nt_set_inference_mode(PyObject_IsTrue(arg) == 1));
}
static PyObject *py_is_inference_mode_enabled(PyObject *m, PyObject *unused) {
    return PyBool_FromLong(nt_is_inference_mode_enabled());
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef nt_py_tensor_autograd_methods[] = {
    {"backward", FASTKW(tensor_backward),
     "backward(gradient=None, retain_graph=None, create_graph=False, inputs=None): accumulates "
     "the gradients of this tensor into the leaves' grad."},
    {"register_hook", FASTKW(tensor_register_hook),
     "register_hook(hook): hook(grad) runs when the gradient is computed; returns a handle."},
    {"retain_grad", tensor_retain_grad, METH_NOARGS,
     "retain_grad(): a non-leaf keeps its gradient in .grad."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_autograd_functions[] = {
    {"_run_backward", py_run_backward, METH_VARARGS,
     "_run_backward(tensors, grads, retain, create, inputs, allow_unused, accumulate)."},
    {"_set_grad_enabled", py_set_grad_enabled, METH_O,
     "Turns recording on or off on this thread; the previous setting."},
    {"is_grad_enabled", py_is_grad_enabled, METH_NOARGS, "Whether ops record the graph."},
    {"_set_inference_mode", py_set_inference_mode, METH_O,
     "Turns inference mode on or off; the previous setting."},
    {"is_inference_mode_enabled", py_is_inference_mode_enabled, METH_NOARGS,
     "Whether inference mode is on."},
    {NULL, NULL, 0, NULL},
};

int nt_py_autograd_init(PyObject *module) {
    if (PyType_Ready(&NtGradFn_Type) < 0 || PyType_Ready(&NtHandle_Type) < 0) return -1;
    Py_INCREF(&NtHandle_Type);
    return PyModule_AddObject(module, "RemovableHandle", (PyObject *)&NtHandle_Type);
}
