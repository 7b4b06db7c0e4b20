/*
 * io.c — exchange and persistence from Python: DLPack (Tensor.__dlpack__,
 * __dlpack_device__, ntensor.from_dlpack), ntensor.as_tensor and the foreign objects that
 * tensor() accepts, pickle and copy (__reduce_ex__, __copy__), and ntensor.save / load.
 *
 * The work is the C API's (include/ntensor/io.h); this file moves capsules, bytes and paths.
 * DLPack capsules follow the protocol: named "dltensor" ("dltensor_versioned" for DLPack
 * 1.x's struct) until a consumer takes the tensor and renames it "used_dltensor"
 * ("used_dltensor_versioned"); the capsule's destructor deletes only an unconsumed one.
 */
#include <dlpack/dlpack.h>
#include <stddef.h>
#include <string.h>

#include "ntensor/dlpack_versioned.h"

#include "interop.h"

/* ---- DLPack ---- */

static const char CAPSULE_NAME[] = "dltensor";
static const char USED_CAPSULE_NAME[] = "used_dltensor";
static const char VERSIONED_NAME[] = "dltensor_versioned";
static const char USED_VERSIONED_NAME[] = "used_dltensor_versioned";

/* A capsule that nobody consumed deletes its tensor (keeping any exception in flight). */
static void capsule_destructor(PyObject *capsule) {
    bool versioned = PyCapsule_IsValid(capsule, VERSIONED_NAME);
    if (!versioned && !PyCapsule_IsValid(capsule, CAPSULE_NAME)) return; /* consumed */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (versioned) {
        nt_dlpack_versioned *m = PyCapsule_GetPointer(capsule, VERSIONED_NAME);
        if (m && m->deleter) m->deleter(m);
    } else {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, CAPSULE_NAME);
        if (m && m->deleter) m->deleter(m);
    }
    PyErr_Restore(type, value, tb);
}

/* Tensor.__dlpack__(stream=None, max_version=None, dl_device=None, copy=None): a capsule
 * sharing the tensor's memory, "dltensor_versioned" (DLPack 1.0) when the consumer's
 * max_version allows 1.x, else "dltensor". On the CPU a stream has no meaning; PyTorch
 * accepts None or an int, and so does ntensor. copy=True exports a copy (flagged so). */
static PyObject *tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$OOO:__dlpack__", kwlist, &stream,
                                     &max_version, &device, &copy))
        return NULL;
    if (stream != Py_None && !PyLong_Check(stream)) {
        PyErr_SetString(PyExc_TypeError, "stream must be ``int`` or ``none``");
        return NULL;
    }
    long major = 0;
    if (max_version != Py_None) {
        if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) != 2) {
            PyErr_SetString(PyExc_TypeError, "max_version must be a (major, minor) tuple");
            return NULL;
        }
        major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
        if (major == -1 && PyErr_Occurred()) return NULL;
    }
    if (device != Py_None) {
        long type = -1, id = -1;
        if (PyTuple_Check(device) && PyTuple_GET_SIZE(device) == 2) {
            type = PyLong_AsLong(PyTuple_GET_ITEM(device, 0));
            id = PyLong_AsLong(PyTuple_GET_ITEM(device, 1));
        }
        if (PyErr_Occurred()) return NULL;
        if (type != kDLCPU || id != 0) {
            PyErr_SetString(PyExc_BufferError, "__dlpack__: ntensor exports to the CPU "
                                               "(dl_device (1, 0)) only");
            return NULL;
        }
    }
    int copied = copy == Py_None ? 0 : PyObject_IsTrue(copy);
    if (copied < 0) return NULL;
    nt_tensor *t = nt_py_tensor(self), *dup = NULL;
    nt_status st = copied ? nt_clone(t, &dup) : NT_OK;
    if (st != NT_OK) return nt_py_raise(st);
    PyObject *capsule = NULL;
    if (major >= 1) {
        nt_dlpack_versioned *m = NULL;
        st = nt_to_dlpack_versioned(dup ? dup : t, copied, &m);
        capsule = st == NT_OK ? PyCapsule_New(m, VERSIONED_NAME, capsule_destructor) : NULL;
        if (st == NT_OK && !capsule) m->deleter(m);
    } else {
        DLManagedTensor *m = NULL;
        st = nt_to_dlpack(dup ? dup : t, &m);
        capsule = st == NT_OK ? PyCapsule_New(m, CAPSULE_NAME, capsule_destructor) : NULL;
        if (st == NT_OK && !capsule) m->deleter(m);
    }
    nt_tensor_release(dup);
    return st == NT_OK ? capsule : nt_py_raise(st);
}

/* Tensor.__dlpack_device__(): (kDLCPU, 0). */
static PyObject *tensor_dlpack_device(PyObject *self, PyObject *unused) {
    return Py_BuildValue("(ii)", (int)kDLCPU, 0);
}

/* An imported DLPack tensor behind one of ours, whose deleter takes the GIL before calling
 * the producer's: a storage may die on any thread, and NumPy's deleter needs the GIL. */
typedef struct gil_managed {
    DLManagedTensor m;
    nt_dlpack_versioned v;
    DLManagedTensor *inner;       /* the producer's, or NULL */
    nt_dlpack_versioned *inner_v; /* the producer's versioned one, or NULL */
} gil_managed;

static void gil_release(gil_managed *g) {
    if (Py_IsInitialized()) { /* at exit the interpreter freed it all */
        PyGILState_STATE s = PyGILState_Ensure();
        if (g->inner && g->inner->deleter) g->inner->deleter(g->inner);
        if (g->inner_v && g->inner_v->deleter) g->inner_v->deleter(g->inner_v);
        PyGILState_Release(s);
    }
    PyMem_RawFree(g);
}

static void gil_deleter(DLManagedTensor *m) {
    gil_release((gil_managed *)m); /* m is the first member */
}

static void gil_versioned_deleter(nt_dlpack_versioned *v) {
    gil_release((gil_managed *)((char *)v - offsetof(gil_managed, v)));
}

/* obj.__dlpack__(), asking for DLPack 1.x first: producers that do not know max_version
 * (NumPy 1.24, PyTorch 1.13) raise TypeError, and are asked again without it. */
static PyObject *dlpack_capsule_of(PyObject *obj) {
    PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
    if (!method) return NULL;
    PyObject *args = PyTuple_New(0), *kwargs = Py_BuildValue("{s(ii)}", "max_version", 1, 0);
    PyObject *capsule = args && kwargs ? PyObject_Call(method, args, kwargs) : NULL;
    if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        capsule = PyObject_CallObject(method, NULL);
    }
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_DECREF(method);
    return capsule;
}

/* from_dlpack(ext_tensor): a tensor sharing the memory of an object with __dlpack__ (a
 * PyTorch tensor, a NumPy array, an ntensor tensor) or of a "dltensor" or
 * "dltensor_versioned" capsule. Names do not travel through DLPack. */
static PyObject *py_from_dlpack(PyObject *module, PyObject *obj) {
    PyObject *capsule = NULL, *result = NULL;
    if (!PyCapsule_CheckExact(obj) && PyObject_HasAttrString(obj, "__dlpack__")) {
        PyObject *device = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
        if (!device) return NULL;
        long type = -1;
        if (PyTuple_Check(device) && PyTuple_GET_SIZE(device) == 2)
            type = PyLong_AsLong(PyTuple_GET_ITEM(device, 0));
        Py_DECREF(device);
        if (type == -1 && PyErr_Occurred()) return NULL;
        if (type != kDLCPU) {
            PyErr_Format(PyExc_RuntimeError,
                         "from_dlpack: the tensor is on device type %ld; ntensor imports CPU "
                         "memory only",
                         type);
            return NULL;
        }
        if (!(capsule = dlpack_capsule_of(obj))) return NULL;
    } else {
        capsule = obj;
        Py_INCREF(capsule);
    }
    bool versioned = PyCapsule_IsValid(capsule, VERSIONED_NAME);
    if (!versioned && !PyCapsule_IsValid(capsule, CAPSULE_NAME)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "from_dlpack received an invalid capsule. Note that DLTensor capsules "
                        "can be consumed only once, so you might have already constructed a "
                        "tensor from it once.");
        goto done;
    }
    gil_managed *g = PyMem_RawCalloc(1, sizeof *g);
    if (!g) {
        PyErr_NoMemory();
        goto done;
    }
    nt_tensor *t = NULL;
    nt_status st;
    if (versioned) {
        g->inner_v = PyCapsule_GetPointer(capsule, VERSIONED_NAME);
        g->v = *g->inner_v;
        g->v.manager_ctx = g;
        g->v.deleter = gil_versioned_deleter;
        st = nt_from_dlpack_versioned(&g->v, &t);
    } else {
        g->inner = PyCapsule_GetPointer(capsule, CAPSULE_NAME);
        g->m = (DLManagedTensor){
            .dl_tensor = g->inner->dl_tensor, .manager_ctx = g, .deleter = gil_deleter};
        st = nt_from_dlpack(&g->m, &t);
    }
    if (st != NT_OK) { /* refused: the capsule stays unconsumed, its producer deletes it */
        PyMem_RawFree(g);
        nt_py_raise(st);
        goto done;
    }
    if (PyCapsule_SetName(capsule, versioned ? USED_VERSIONED_NAME : USED_CAPSULE_NAME) < 0) {
        nt_tensor_release(t);
        goto done;
    }
    result = nt_py_wrap(t);
done:
    Py_DECREF(capsule);
    return result;
}

/* ---- foreign objects: as_tensor, tensor ---- */

#define READONLY_WARNING                                                                           \
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "   \
    "This means writing to this tensor will result in undefined behavior. You may want to copy "   \
    "the array to protect its data or make it writable before converting it to a tensor. This "    \
    "type of warning will be suppressed for the rest of this program."

int nt_py_warn_readonly_array(void) {
    static int warned; /* once per process, as PyTorch's TORCH_WARN_ONCE */
    if (warned) return 0;
    warned = 1;
    return PyErr_WarnEx(PyExc_UserWarning, READONLY_WARNING, 1);
}

/* The names of a tensor imported through DLPack, which cannot carry them, from the producer's
 * `names` attribute (a PyTorch tensor's) when it has one entry per dim: 0, or -1 with the
 * names error (and t released). */
static int take_names(PyObject *obj, nt_tensor *t) {
    PyObject *names = PyObject_GetAttrString(obj, "names");
    if (!names) {
        PyErr_Clear();
        return 0;
    }
    nt_name ids[NT_MAX_DIMS];
    int count = 0, rc = 0;
    if (PyTuple_Check(names) && PyTuple_GET_SIZE(names) == nt_tensor_ndim(t)) {
        rc = nt_py_names_from_sequence(names, ids, &count, -1);
        nt_status st = rc == 0 ? nt_set_names_n_(t, count, ids) : NT_OK;
        if (st != NT_OK) rc = nt_py_raise_int(st);
    }
    Py_DECREF(names);
    if (rc < 0) nt_tensor_release(t);
    return rc;
}

int nt_py_tensor_from_foreign(PyObject *obj, int warn_readonly, nt_tensor **out) {
    PyObject *ndarray = nt_py_numpy_ndarray_type(), *generic = nt_py_numpy_generic_type();
    if (ndarray && PyObject_IsInstance(obj, ndarray) == 1)
        return nt_py_tensor_from_buffer(obj, warn_readonly, out) < 0 ? -1 : 1;
    if (nt_py_is_tensor(obj) || (generic && PyObject_IsInstance(obj, generic) == 1)) return 0;
    bool has_array = PyObject_HasAttrString(obj, "__array__");
    if (PyObject_HasAttrString(obj, "__dlpack__")) {
        PyObject *t = py_from_dlpack(NULL, obj);
        if (t) {
            *out = nt_tensor_retain(nt_py_tensor(t));
            Py_DECREF(t);
            return take_names(obj, *out) < 0 ? -1 : 1;
        }
        /* DLPack refused (a PyTorch bool tensor): __array__ may share it (tensor.numpy()) */
        if (!has_array) return -1;
        PyErr_Clear();
    }
    if (has_array) {
        PyObject *array = PyObject_CallMethod(obj, "__array__", NULL);
        if (!array) return -1;
        int rc = ndarray && PyObject_IsInstance(array, ndarray) == 1
                     ? nt_py_tensor_from_buffer(array, warn_readonly, out)
                     : (PyErr_Format(PyExc_TypeError, "%s.__array__() returned %s, not an array",
                                     Py_TYPE(obj)->tp_name, Py_TYPE(array)->tp_name),
                        -1);
        Py_DECREF(array);
        return rc < 0 ? -1 : 1;
    }
    return 0;
}

/* as_tensor(data, dtype=None, device=None): data itself when it is a tensor of that dtype;
 * a tensor sharing the memory of an array or an object with __dlpack__ or __array__; else
 * (or for another dtype) a converted copy, as tensor(). */
static PyObject *py_as_tensor(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const kwlist[] = {"data", "dtype", "device", NULL};
    PyObject *kw[3];
    if (nt_py_parse_args("as_tensor", args, nargs, kwnames, kwlist, 1, 1, kw) < 0) return NULL;
    if (nt_py_check_device(kw[2]) < 0) return NULL;
    nt_tensor *t = NULL;
    if (nt_py_is_tensor(kw[0])) {
        t = nt_tensor_retain(nt_py_tensor(kw[0]));
    } else {
        int rc = nt_py_tensor_from_foreign(kw[0], 1, &t);
        if (rc < 0) return NULL;
        if (rc == 0) return nt_py_tensor_of_dtype(kw[0], kw[1]); /* Python data: a copy */
    }
    nt_dtype dtype;
    if (nt_py_dtype_from_object(kw[1], nt_tensor_dtype(t), &dtype) < 0) {
        nt_tensor_release(t);
        return NULL;
    }
    if (dtype == nt_tensor_dtype(t)) return nt_py_wrap(t);
    nt_tensor *converted = NULL;
    nt_status st = nt_to_dtype(t, dtype, &converted);
    nt_tensor_release(t);
    return nt_py_result(st, converted);
}

/* ---- pickle and copy ---- */

/* The elements t spans from its first element (strides are never negative). */
static int64_t span_of(const nt_tensor *t) {
    int64_t last = 0;
    if (nt_tensor_numel(t) == 0) return 0;
    for (int i = 0; i < nt_tensor_ndim(t); i++)
        last += (nt_tensor_sizes(t)[i] - 1) * nt_tensor_strides(t)[i];
    return last + 1;
}

/* Tensor.__reduce_ex__(protocol): (_rebuild_tensor, (type, bytes, dtype, sizes, strides,
 * names, requires_grad), __dict__ of a subclass). The bytes are the elements the tensor spans
 * from its first one, so strides (a transpose, an expand) come back as they were; the
 * storage's other elements and the offset do not (PyTorch pickles the whole storage). A
 * gradient is not pickled, as in PyTorch; nor is the graph: the result is a leaf. */
static PyObject *tensor_reduce_ex(PyObject *self, PyObject *protocol) {
    nt_tensor *t = nt_py_tensor(self);
    if (nt_py_refuse_levels(t, "pickle") < 0) return NULL;
    int ndim = nt_tensor_ndim(t);
    PyObject *rebuild = NULL, *data = NULL, *sizes = NULL, *strides = NULL, *names = NULL;
    PyObject *state = NULL, *result = NULL;
    PyObject *module = PyImport_ImportModule("ntensor._C");
    if (!module || !(rebuild = PyObject_GetAttrString(module, "_rebuild_tensor"))) goto done;
    data = PyBytes_FromStringAndSize(
        nt_tensor_data(t), (Py_ssize_t)(span_of(t) * (int64_t)nt_dtype_size(nt_tensor_dtype(t))));
    sizes = nt_py_size_new(ndim, nt_tensor_sizes(t));
    strides = PyTuple_New(ndim);
    names = nt_tensor_has_names(t) ? nt_py_names_tuple(t) : Py_NewRef(Py_None);
    if (!data || !sizes || !strides || !names) goto done;
    for (int i = 0; i < ndim; i++) {
        PyObject *s = PyLong_FromLongLong(nt_tensor_strides(t)[i]);
        if (!s) goto done;
        PyTuple_SET_ITEM(strides, i, s);
    }
    if (Py_TYPE(self) != &NtTensor_Type) {
        state = PyObject_GetAttrString(self, "__dict__");
        if (!state) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) goto done;
            PyErr_Clear();
        }
    }
    /* the dtype by its name: pickling a dtype object makes pickle search every module */
    result = Py_BuildValue("(O(OOsOOOO)O)", rebuild, (PyObject *)Py_TYPE(self), data,
                           nt_dtype_name(nt_tensor_dtype(t)), sizes, strides, names,
                           nt_requires_grad(t) ? Py_True : Py_False, state ? state : Py_None);
done:
    Py_XDECREF(module);
    Py_XDECREF(rebuild);
    Py_XDECREF(data);
    Py_XDECREF(sizes);
    Py_XDECREF(strides);
    Py_XDECREF(names);
    Py_XDECREF(state);
    return result;
}

/* `t` (owned) as an instance of cls requiring grad as asked: _make_subclass for a subclass. */
static PyObject *wrap_leaf(PyObject *cls, nt_tensor *t, int requires_grad) {
    PyObject *plain = nt_py_wrap(t), *result;
    if (!plain) return NULL;
    if (cls == (PyObject *)&NtTensor_Type) {
        result = nt_py_requires_grad(plain, requires_grad);
    } else {
        result = PyObject_CallMethod((PyObject *)&NtTensor_Type, "_make_subclass", "OOO", cls,
                                     plain, requires_grad ? Py_True : Py_False);
        Py_DECREF(plain);
    }
    return result;
}

/* _rebuild_tensor(cls, data, dtype, sizes, strides, names, requires_grad): what
 * __reduce_ex__ saved, as a new leaf. */
static PyObject *py_rebuild_tensor(PyObject *module, PyObject *args) {
    PyObject *cls, *data, *sizes_obj, *strides_obj, *names_obj;
    const char *dtype_name;
    int requires_grad;
    if (!PyArg_ParseTuple(args, "OSsOOOp:_rebuild_tensor", &cls, &data, &dtype_name, &sizes_obj,
                          &strides_obj, &names_obj, &requires_grad))
        return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &NtTensor_Type)) {
        PyErr_SetString(PyExc_TypeError, "_rebuild_tensor: cls must be a Tensor type");
        return NULL;
    }
    nt_dtype dtype;
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int count = 0;
    int d = 0;
    while (d < NT_DTYPE_COUNT && strcmp(nt_dtype_name((nt_dtype)d), dtype_name) != 0)
        d++;
    if (d == NT_DTYPE_COUNT) {
        PyErr_Format(PyExc_ValueError, "_rebuild_tensor: unknown dtype '%s'", dtype_name);
        return NULL;
    }
    dtype = (nt_dtype)d;
    PyObject *seqs[2] = {sizes_obj, strides_obj};
    int64_t *dst[2] = {sizes, strides};
    Py_ssize_t ndim = PySequence_Check(sizes_obj) ? PySequence_Size(sizes_obj) : -1;
    if (ndim < 0 || ndim > NT_MAX_DIMS || !PySequence_Check(strides_obj) ||
        PySequence_Size(strides_obj) != ndim) {
        PyErr_SetString(PyExc_ValueError, "_rebuild_tensor: sizes and strides do not match");
        return NULL;
    }
    for (int k = 0; k < 2; k++)
        for (Py_ssize_t i = 0; i < ndim; i++) {
            PyObject *item = PySequence_GetItem(seqs[k], i);
            int rc = item ? nt_py_int64_from_object(item, &dst[k][i], "size") : -1;
            Py_XDECREF(item);
            if (rc < 0) return NULL;
        }
    if (names_obj != Py_None && nt_py_names_from_sequence(names_obj, names, &count, -1) < 0)
        return NULL;
    /* One contiguous block of the saved span, then the view with the saved strides. */
    Py_ssize_t nbytes = PyBytes_GET_SIZE(data);
    int64_t elsize = (int64_t)nt_dtype_size(dtype), span = nbytes / elsize;
    nt_tensor *block = NULL, *t = NULL;
    nt_status st = NT_OK;
    if (nbytes % elsize != 0) {
        PyErr_SetString(PyExc_ValueError, "_rebuild_tensor: the data is not whole elements");
        return NULL;
    }
    st = nt_from_buffer(PyBytes_AS_STRING(data), dtype, 1, &span, NULL, &block);
    if (st == NT_OK) st = nt_as_strided(block, (int)ndim, sizes, strides, 0, &t);
    nt_tensor_release(block);
    if (st == NT_OK && count) st = nt_set_names_n_(t, count, names);
    if (st != NT_OK) {
        nt_tensor_release(t);
        return nt_py_raise(st);
    }
    return wrap_leaf(cls, t, requires_grad);
}

/* copy.copy(t): as PyTorch's (through its __reduce_ex__), a new leaf sharing t's memory,
 * sizes, strides and names, requiring grad as t does, without its grad; a subclass instance
 * gets t's attributes (the same objects). */
static PyObject *tensor_copy(PyObject *self, PyObject *unused) {
    nt_tensor *t = nt_py_tensor(self), *alias = NULL;
    bool was = nt_set_grad_enabled(false); /* an alias without history */
    nt_status st = nt_rename(t, nt_tensor_names(t), &alias);
    nt_set_grad_enabled(was);
    if (st != NT_OK) return nt_py_raise(st);
    PyObject *copy = wrap_leaf((PyObject *)Py_TYPE(self), alias, nt_requires_grad(t));
    if (copy && Py_TYPE(self) != &NtTensor_Type) {
        PyObject *state = PyObject_GetAttrString(self, "__dict__");
        PyObject *into = state ? PyObject_GetAttrString(copy, "__dict__") : NULL;
        int rc = into && PyDict_Check(into) ? PyDict_Update(into, state) : 0;
        if (!state && PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
        Py_XDECREF(state);
        Py_XDECREF(into);
        if (rc < 0 || PyErr_Occurred()) Py_CLEAR(copy);
    }
    return copy;
}

/* ---- save, load ---- */

/* save(obj, path): a tensor, or a dict of str to tensors, to a safetensors file. */
static PyObject *py_save(PyObject *module, PyObject *args) {
    PyObject *obj, *path;
    if (!PyArg_ParseTuple(args, "OO&:save", &obj, PyUnicode_FSConverter, &path)) return NULL;
    Py_ssize_t n = nt_py_is_tensor(obj) ? 1 : PyDict_Check(obj) ? PyDict_GET_SIZE(obj) : -1;
    PyObject *result = NULL;
    const char **keys = NULL;
    nt_tensor **tensors = NULL;
    if (n < 0) {
        PyErr_Format(PyExc_TypeError,
                     "save(): expected a Tensor or a dict of str to Tensor, got %s",
                     Py_TYPE(obj)->tp_name);
        goto done;
    }
    keys = PyMem_Calloc((size_t)n + 1, sizeof *keys);
    tensors = PyMem_Calloc((size_t)n + 1, sizeof *tensors);
    if (!keys || !tensors) {
        PyErr_NoMemory();
        goto done;
    }
    if (nt_py_is_tensor(obj)) {
        tensors[0] = nt_py_tensor(obj);
    } else {
        Py_ssize_t at = 0, i = 0;
        PyObject *key, *value;
        while (PyDict_Next(obj, &at, &key, &value)) {
            if (!PyUnicode_Check(key) || !nt_py_is_tensor(value)) {
                PyErr_Format(PyExc_TypeError,
                             "save(): expected a dict of str to Tensor, got an item %s: %s",
                             Py_TYPE(key)->tp_name, Py_TYPE(value)->tp_name);
                goto done;
            }
            Py_ssize_t len;
            if (!(keys[i] = PyUnicode_AsUTF8AndSize(key, &len))) goto done;
            if ((size_t)len != strlen(keys[i])) {
                PyErr_SetString(PyExc_ValueError, "save(): a key holds a null character");
                goto done;
            }
            tensors[i++] = nt_py_tensor(value);
        }
    }
    nt_status st;
    Py_BEGIN_ALLOW_THREADS st =
        nt_save(PyBytes_AS_STRING(path), n, nt_py_is_tensor(obj) ? NULL : keys, tensors);
    Py_END_ALLOW_THREADS result = st == NT_OK ? Py_NewRef(Py_None) : nt_py_raise(st);
done:
    PyMem_Free(keys);
    PyMem_Free(tensors);
    Py_DECREF(path);
    return result;
}

/* load(path): the tensor, or the dict of tensors (in the file's order), of a safetensors
 * file, with the names nt_save stored. */
static PyObject *py_load(PyObject *module, PyObject *args) {
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&:load", PyUnicode_FSConverter, &path)) return NULL;
    int64_t n = 0;
    char **keys = NULL;
    nt_tensor **tensors = NULL;
    nt_status st;
    Py_BEGIN_ALLOW_THREADS st = nt_load(PyBytes_AS_STRING(path), &n, &keys, &tensors);
    Py_END_ALLOW_THREADS Py_DECREF(path);
    if (st != NT_OK) return nt_py_raise(st);
    PyObject *result = keys ? PyDict_New() : NULL;
    if (!keys) { /* one tensor saved without a key */
        result = nt_py_wrap(tensors[0]);
        tensors[0] = NULL;
    }
    for (int64_t i = 0; keys && result && i < n; i++) {
        PyObject *value = nt_py_wrap(tensors[i]);
        tensors[i] = NULL;
        if (!value || PyDict_SetItemString(result, keys[i], value) < 0) Py_CLEAR(result);
        Py_XDECREF(value);
    }
    nt_load_free(n, keys, tensors);
    return result;
}

PyMethodDef nt_py_tensor_io_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))tensor_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None): a DLPack "
     "capsule sharing the tensor's memory (DLPack 1.0's versioned one when max_version "
     "allows it; names are dropped)."},
    {"__dlpack_device__", tensor_dlpack_device, METH_NOARGS,
     "__dlpack_device__(): (1, 0), the CPU as DLPack numbers it."},
    {"__reduce_ex__", tensor_reduce_ex, METH_O,
     "__reduce_ex__(protocol): pickle's recipe (values, dtype, sizes, strides, names, "
     "requires_grad)."},
    {"__copy__", tensor_copy, METH_NOARGS,
     "__copy__(): a leaf sharing the tensor's memory, as copy.copy does in PyTorch."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_module_io_functions[] = {
    {"from_dlpack", py_from_dlpack, METH_O,
     "from_dlpack(ext_tensor): a tensor sharing the memory of an object with __dlpack__ or of "
     "a DLPack capsule."},
    {"as_tensor", (PyCFunction)(void (*)(void))py_as_tensor, METH_FASTCALL | METH_KEYWORDS,
     "as_tensor(data, dtype=None, device=None): data as a tensor, sharing memory when it can."},
    {"_rebuild_tensor", py_rebuild_tensor, METH_VARARGS,
     "_rebuild_tensor(cls, data, dtype, sizes, strides, names, requires_grad): unpickling."},
    {"save", py_save, METH_VARARGS,
     "save(obj, path): a tensor or a dict of str to tensors, to a safetensors file (names "
     "kept)."},
    {"load", py_load, METH_VARARGS,
     "load(path): the tensor or dict of tensors of a safetensors file (names restored)."},
    {NULL, NULL, 0, NULL},
};
