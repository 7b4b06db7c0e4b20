/*
 * module.c — the ntensor._C module: its initialisation and the small module-level
 * functions that belong to no other file (threads, type queries).
 */

#include "bindings.h"
#include "docs.h"
#include "interop.h"

static PyObject *py_is_tensor(PyObject *module, PyObject *o) {
    return PyBool_FromLong(nt_py_is_tensor(o));
}

static PyObject *py_get_num_threads(PyObject *module, PyObject *unused) {
    return PyLong_FromLong(nt_get_num_threads());
}

static PyObject *py_set_num_threads(PyObject *module, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n <= 0) {
        PyErr_SetString(PyExc_RuntimeError, "set_num_threads expects a positive integer");
        return NULL;
    }
    nt_set_num_threads((int)n);
    Py_RETURN_NONE;
}

static PyObject *py_promote_types(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    nt_dtype a, b;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "promote_types() takes 2 arguments");
        return NULL;
    }
    if (nt_py_dtype_from_object(args[0], NT_FLOAT32, &a) < 0 ||
        nt_py_dtype_from_object(args[1], NT_FLOAT32, &b) < 0)
        return NULL;
    PyObject *d = nt_py_dtype_object(nt_promote_types(a, b));
    Py_INCREF(d);
    return d;
}

static PyObject *py_get_default_dtype(PyObject *module, PyObject *unused) {
    PyObject *d = nt_py_dtype_object(nt_default_dtype());
    Py_INCREF(d);
    return d;
}

/* set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
 * profile=None, sci_mode=None), with torch/_tensor_str.py's semantics: a profile first, then
 * each given option; sci_mode is always replaced (None means automatic). */
static PyObject *py_set_printoptions(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames) {
    static const char *const kwlist[] = {"precision", "threshold", "edgeitems", "linewidth",
                                         "profile",   "sci_mode",  NULL};
    PyObject *v[6];
    if (nt_py_parse_args("set_printoptions", args, nargs, kwnames, kwlist, 6, 0, v) < 0)
        return NULL;
    nt_print_options opts = nt_get_print_options();
    if (v[4] && v[4] != Py_None) {
        const char *profile = PyUnicode_AsUTF8(v[4]);
        if (!profile) return NULL;
        nt_print_profile(profile, &opts);
    }
    int64_t *ints[4] = {&opts.precision, NULL, &opts.edgeitems, &opts.linewidth};
    for (int i = 0; i < 4; i++) {
        if (!v[i] || v[i] == Py_None) continue;
        if (i == 1) {
            double threshold = PyFloat_AsDouble(v[i]);
            if (threshold == -1.0 && PyErr_Occurred()) return NULL;
            opts.threshold = threshold;
        } else if (nt_py_int64_from_object(v[i], ints[i], kwlist[i]) < 0) {
            return NULL;
        }
    }
    opts.sci_mode = (!v[5] || v[5] == Py_None) ? -1 : PyObject_IsTrue(v[5]);
    if (opts.sci_mode < -1) return NULL;
    nt_status st = nt_set_print_options(&opts);
    if (st != NT_OK) return nt_py_raise(st);
    Py_RETURN_NONE;
}

/* F.softmax and F.log_softmax (nn/functional.py): a call with a Tensor and a dim, by position
 * or as dim=, goes straight to the Tensor method of that name (its C entry, unless a subclass
 * may define its own); any other (no dim: PyTorch's implicit-dim warning; _stacklevel;
 * dtype=) to the Python definition. self: (the method's descriptor, the definition). */
static PyObject *dim_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    PyMethodDescrObject *method = (PyMethodDescrObject *)PyTuple_GET_ITEM(self, 0);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw != 2 || nkw > 1 || !nt_py_is_tensor(args[0]) || args[1] == Py_None ||
        (nkw && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "dim") != 0))
        return PyObject_Vectorcall(PyTuple_GET_ITEM(self, 1), args, (size_t)nargs, kwnames);
    if (Py_IS_TYPE(args[0], &NtTensor_Type))
        return ((fastcall_fn)(void (*)(void))method->d_method->ml_meth)(args[0], args + 1, 1, NULL);
    return PyObject_VectorcallMethod(method->d_common.d_name, args, 2, NULL);
}

/* _dim_call(name, definition): dim_call for the Tensor method `name`, named and documented
 * as the definition (its method entry lives as long as the process, like the module's). */
static PyObject *py_dim_call(PyObject *module, PyObject *args) {
    PyObject *name, *full, *doc = NULL, *method, *self = NULL;
    if (!PyArg_ParseTuple(args, "UO:_dim_call", &name, &full) ||
        !(method = PyObject_GetAttr((PyObject *)&NtTensor_Type, name)))
        return NULL;
    PyMethodDef *def = PyMem_Calloc(1, sizeof *def);
    if (!def)
        PyErr_NoMemory();
    else if (!Py_IS_TYPE(method, &PyMethodDescr_Type) ||
             ((PyMethodDescrObject *)method)->d_method->ml_flags != (METH_FASTCALL | METH_KEYWORDS))
        PyErr_Format(PyExc_TypeError, "_dim_call: Tensor.%U is not a generated method", name);
    else if ((doc = PyObject_GetAttrString(full, "__doc__")) &&
             (self = PyTuple_Pack(2, method, full)))
        *def = (PyMethodDef){PyUnicode_AsUTF8(name), (PyCFunction)(void (*)(void))dim_call,
                             METH_FASTCALL | METH_KEYWORDS,
                             PyUnicode_Check(doc) ? PyUnicode_AsUTF8(doc) : NULL};
    PyObject *f = self ? PyCFunction_New(def, self) : NULL; /* self keeps the doc's text */
    if (!f) PyMem_Free(def);
    Py_XDECREF(self);
    Py_XDECREF(doc);
    Py_DECREF(method);
    return f;
}

static PyMethodDef module_functions[] = {
    {"_binding_table", nt_py_binding_table, METH_NOARGS,
     "_binding_table()\n--\n\nThe generated entries as (name, kind, ((signature, hidden, "
     "deprecated, schema, numbers as tensors), ...)): what scripts/gen_stubs.py makes the type "
     "stubs from."},
    {"_dim_call", py_dim_call, METH_VARARGS, "F.softmax's fast entry (module.c)."},
    {"set_printoptions", (PyCFunction)(void (*)(void))py_set_printoptions,
     METH_FASTCALL | METH_KEYWORDS, "Sets how tensors print, like torch.set_printoptions."},
    {"is_tensor", py_is_tensor, METH_O, "Whether the object is an ntensor Tensor."},
    {"get_num_threads", py_get_num_threads, METH_NOARGS, "Threads used for large work."},
    {"set_num_threads", py_set_num_threads, METH_O, "Sets the threads used for large work."},
    {"promote_types", (PyCFunction)(void (*)(void))py_promote_types, METH_FASTCALL,
     "The smallest dtype both dtypes convert to safely."},
    {"get_default_dtype", py_get_default_dtype, METH_NOARGS, "The default float dtype."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef nt_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ntensor._C",
    .m_doc = "The C core of ntensor: tensors with named dimensions.",
    .m_size = -1,
};

/* Every file's contribution, in the order their methods are joined (see pyntensor.h). */
const nt_py_family nt_py_families[] = {
    {"core", nt_py_tensor_core_methods, module_functions, NULL, NULL},
    {"names", nt_py_tensor_names_methods, NULL, NULL, NULL},
    {"convert", nt_py_tensor_convert_methods, NULL, nt_py_convert_prepare, nt_py_device_init},
    {"factories", NULL, nt_py_module_factory_functions, NULL, NULL},
    {"index", nt_py_tensor_index_methods, NULL, nt_py_index_prepare, nt_py_index_init},
    {"operators", NULL, NULL, nt_py_operators_prepare, NULL},
    {"io", nt_py_tensor_io_methods, nt_py_module_io_functions, NULL, NULL},
    {"autograd", nt_py_tensor_autograd_methods, nt_py_module_autograd_functions, NULL,
     nt_py_autograd_init},
    {"dims", nt_py_tensor_dims_methods, nt_py_module_dims_functions, NULL, nt_py_dims_init},
    {"delayed", NULL, NULL, NULL, nt_py_delayed_init},
    {"generator", NULL, nt_py_module_generator_functions, NULL, nt_py_generator_init},
    {"subclass", nt_py_tensor_subclass_methods, nt_py_module_subclass_functions, NULL,
     nt_py_subclass_init},
    {NULL, NULL, NULL, NULL, NULL},
};

/* The module the first initialisation made. The types, dtype objects and name tables are
 * process-wide statics, made once; a later initialisation in the same process (the
 * extension imported again under another name, or a sub-interpreter that runs PyInit again)
 * gets a new module that shares them: its dict is filled from this one's, keeping its own
 * __name__, __spec__ and the other entries the import system set. */
static PyObject *first_module;

PyMODINIT_FUNC PyInit__C(void) {
    PyObject *m = PyModule_Create(&nt_module);
    if (!m) return NULL;
    if (first_module) {
        if (PyDict_Merge(PyModule_GetDict(m), PyModule_GetDict(first_module), 0) < 0) goto fail;
        return m;
    }
    /* __version__: the headers' NT_VERSION_STRING (the library is linked in statically) */
    if (PyModule_AddStringConstant(m, "__version__", NT_VERSION_STRING) < 0 ||
        nt_py_names_init(m) < 0 || nt_py_dtypes_init(m) < 0 || nt_py_size_init(m) < 0 ||
        nt_py_bindings_init(m) < 0 || nt_py_tensor_type_init(m) < 0)
        goto fail;
    for (const nt_py_family *f = nt_py_families; f->name; f++) {
        nt_py_fill_docs(f->module_functions, false);
        if (f->module_functions && PyModule_AddFunctions(m, f->module_functions) < 0) goto fail;
        if (f->init && f->init(m) < 0) goto fail;
    }
    Py_INCREF(m);
    first_module = m; /* kept for the life of the process, like the statics it holds */
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
