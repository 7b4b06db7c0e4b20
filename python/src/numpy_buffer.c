/*
 * numpy_buffer.c — zero-copy exchange with NumPy through the buffer protocol, both ways.
 *
 * In: a buffer (a NumPy array) becomes a tensor over the same memory with
 * nt_from_external; the Py_buffer is kept until the storage's last view goes away and then
 * released under the GIL. Out: Tensor exports its memory (format, shape, strides in bytes,
 * writable), so numpy.asarray(t) and t.numpy() share memory with t.
 *
 * NumPy itself is only imported (lazily) to tell arrays from other buffers and to name
 * dtypes in error messages; the module works without it.
 */
#include <string.h>

#include "interop.h"

#define SUPPORTED_TYPES                                                                            \
    "The only supported types are: float64, float32, float16, complex64, complex128, int64, "      \
    "int32, int16, int8, uint8, and bool."

static PyObject *np_ndarray, *np_generic;
static int np_tried;

static void import_numpy(void) {
    if (np_tried) return;
    np_tried = 1;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) {
        PyErr_Clear();
        return;
    }
    np_ndarray = PyObject_GetAttrString(np, "ndarray");
    np_generic = PyObject_GetAttrString(np, "generic");
    Py_DECREF(np);
    if (!np_ndarray || !np_generic) {
        PyErr_Clear();
        Py_CLEAR(np_ndarray);
        Py_CLEAR(np_generic);
    }
}

PyObject *nt_py_numpy_ndarray_type(void) {
    import_numpy();
    return np_ndarray;
}

PyObject *nt_py_numpy_generic_type(void) {
    import_numpy();
    return np_generic;
}

/* The struct-module format of each dtype that NumPy and Python know (bfloat16: none). */
static const char formats[NT_DTYPE_COUNT][2] = {
    [NT_BOOL] = "?",  [NT_UINT8] = "B",   [NT_INT8] = "b",    [NT_INT16] = "h",   [NT_INT32] = "i",
    [NT_INT64] = "l", [NT_FLOAT16] = "e", [NT_FLOAT32] = "f", [NT_FLOAT64] = "d",
};

/* The dtype for a format character of `itemsize` bytes; -1 if none. */
static int dtype_of_char(char c, Py_ssize_t itemsize) {
    if (c == 'q' || c == 'l') c = itemsize == 4 ? 'i' : 'l'; /* long long, long: by size */
    for (int d = 0; d < NT_DTYPE_COUNT; d++)
        if (formats[d][0] == c && (Py_ssize_t)nt_dtype_size((nt_dtype)d) == itemsize) return d;
    return -1;
}

/* PyTorch's TypeError for a NumPy dtype it cannot hold: it names dtype.type. */
static void unsupported_numpy_type(PyObject *obj) {
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    PyObject *type = dtype ? PyObject_GetAttrString(dtype, "type") : NULL;
    PyErr_Clear();
    const char *name = type && PyType_Check(type) ? ((PyTypeObject *)type)->tp_name : "unknown";
    PyErr_Format(PyExc_TypeError, "can't convert np.ndarray of type %s. " SUPPORTED_TYPES, name);
    Py_XDECREF(type);
    Py_XDECREF(dtype);
}

int nt_py_numpy_dtype_of(PyObject *obj, nt_dtype *out) {
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    PyObject *ch = dtype ? PyObject_GetAttrString(dtype, "char") : NULL;
    PyObject *size = dtype ? PyObject_GetAttrString(dtype, "itemsize") : NULL;
    int d = -1;
    if (ch && size && PyUnicode_Check(ch) && PyUnicode_GetLength(ch) == 1) {
        Py_ssize_t itemsize = PyLong_AsSsize_t(size);
        d = dtype_of_char((char)PyUnicode_READ_CHAR(ch, 0), itemsize);
    }
    Py_XDECREF(ch);
    Py_XDECREF(size);
    Py_XDECREF(dtype);
    PyErr_Clear();
    if (d < 0) {
        unsupported_numpy_type(obj);
        return -1;
    }
    *out = (nt_dtype)d;
    return 0;
}

/* Runs when the storage over an imported buffer dies; may come from any thread. */
static void release_buffer(void *ctx, void *data) {
    if (!Py_IsInitialized()) return; /* at exit: the interpreter has freed it all */
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release((Py_buffer *)ctx);
    PyMem_Free(ctx);
    PyGILState_Release(g);
}

int nt_py_tensor_from_buffer(PyObject *obj, int warn_readonly, nt_tensor **out) {
    Py_buffer *view = PyMem_Calloc(1, sizeof *view);
    if (!view) {
        PyErr_NoMemory();
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS) < 0) {
        PyErr_Clear(); /* a read-only array: share it anyway, as PyTorch does (with a warning) */
        int shared = PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) == 0;
        if (shared && warn_readonly && nt_py_warn_readonly_array() < 0) {
            PyBuffer_Release(view);
            PyMem_Free(view);
            return -1;
        }
        if (!shared) {
            PyMem_Free(view);
            PyObject *ndarray = nt_py_numpy_ndarray_type();
            if (ndarray && PyObject_IsInstance(obj, ndarray) == 1) {
                PyErr_Clear(); /* e.g. datetime64, which NumPy does not export */
                unsupported_numpy_type(obj);
            }
            return -1;
        }
    }
    int ndim = view->ndim;
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    Py_ssize_t itemsize = view->itemsize;
    size_t extent = itemsize > 0 ? (size_t)itemsize : 0;
    int64_t numel = 1;
    const char *fmt = view->format ? view->format : "B";
    int d = -1;
    if (ndim > NT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "too many dimensions: %d (at most %d)", ndim, NT_MAX_DIMS);
        goto fail;
    }
    for (int i = 0; i < ndim; i++) {
        sizes[i] = view->shape[i];
        numel *= sizes[i];
    }
    for (int i = ndim - 1; i >= 0; i--) { /* strides: in bytes from the buffer, else C order */
        Py_ssize_t s = view->strides
                           ? view->strides[i]
                           : (i == ndim - 1 ? itemsize : strides[i + 1] * itemsize * sizes[i + 1]);
        if (itemsize == 0 || s % itemsize != 0) {
            PyErr_SetString(PyExc_ValueError,
                            "given numpy array strides not a multiple of the element byte "
                            "size. Copy the numpy array to reallocate the memory.");
            goto fail;
        }
        strides[i] = s / itemsize;
    }
    for (int i = 0; i < ndim; i++) {
        if (strides[i] < 0) {
            PyErr_SetString(PyExc_ValueError,
                            "At least one stride in the given numpy array is negative, and "
                            "tensors with negative strides are not currently supported. (You "
                            "can probably work around this by making a copy of your array  "
                            "with array.copy().) ");
            goto fail;
        }
        if (sizes[i] > 0) extent += (size_t)((sizes[i] - 1) * strides[i] * itemsize);
    }
    if (numel == 0) extent = 0;
    if (fmt[0] == '>' || fmt[0] == '!') {
        if (itemsize > 1) {
            PyErr_SetString(PyExc_ValueError,
                            "given numpy array has byte order different from the native byte "
                            "order. Conversion between byte orders is currently not supported.");
            goto fail;
        }
        fmt++;
    } else if (fmt[0] == '@' || fmt[0] == '=' || fmt[0] == '<') {
        fmt++;
    }
    if (fmt[0] != '\0' && fmt[1] == '\0') d = dtype_of_char(fmt[0], itemsize);
    if (d < 0) {
        PyObject *ndarray = nt_py_numpy_ndarray_type();
        if (ndarray && PyObject_IsInstance(obj, ndarray) == 1)
            unsupported_numpy_type(obj);
        else
            PyErr_Format(PyExc_TypeError, "can't convert a buffer of format '%s'. " SUPPORTED_TYPES,
                         view->format ? view->format : "B");
        goto fail;
    }
    nt_status st = nt_from_external(view->buf, extent, (nt_dtype)d, ndim, sizes, strides,
                                    release_buffer, view, out);
    if (st != NT_OK) {
        nt_py_raise(st);
        goto fail;
    }
    return 0;
fail:
    PyBuffer_Release(view);
    PyMem_Free(view);
    return -1;
}

/* ---- Tensor as a buffer exporter ---- */

static int tensor_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    nt_tensor *t = nt_py_tensor(self);
    if (nt_py_refuse_levels(t, "the buffer protocol") < 0) return -1;
    nt_dtype dtype = nt_tensor_dtype(t);
    const char *fmt = formats[dtype]; /* "" for bfloat16, which NumPy does not know */
    if (!fmt[0]) {
        PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s",
                     dtype == NT_BFLOAT16 ? "BFloat16" : nt_dtype_name(dtype));
        return -1;
    }
    if (!(flags & PyBUF_STRIDES) && !nt_tensor_is_contiguous(t)) {
        PyErr_SetString(PyExc_BufferError, "the tensor is not contiguous; ask for strides");
        return -1;
    }
    int ndim = nt_tensor_ndim(t);
    Py_ssize_t itemsize = (Py_ssize_t)nt_dtype_size(dtype);
    Py_ssize_t *dims = PyMem_Malloc((size_t)(2 * ndim + 1) * sizeof *dims);
    if (!dims) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < ndim; i++) {
        dims[i] = (Py_ssize_t)nt_tensor_sizes(t)[i];
        dims[ndim + i] = (Py_ssize_t)nt_tensor_strides(t)[i] * itemsize;
    }
    view->buf = nt_tensor_data(t);
    view->obj = self;
    Py_INCREF(self);
    view->len = (Py_ssize_t)nt_tensor_numel(t) * itemsize;
    view->readonly = 0;
    view->itemsize = itemsize;
    view->format = (flags & PyBUF_FORMAT) ? (char *)fmt : NULL;
    view->ndim = ndim;
    view->shape = (flags & PyBUF_ND) ? dims : NULL;
    view->strides = (flags & PyBUF_STRIDES) ? dims + ndim : NULL;
    view->suboffsets = NULL;
    view->internal = dims;
    return 0;
}

static void tensor_releasebuffer(PyObject *self, Py_buffer *view) {
    PyMem_Free(view->internal);
}

PyBufferProcs nt_py_tensor_buffer_procs = {
    .bf_getbuffer = tensor_getbuffer,
    .bf_releasebuffer = tensor_releasebuffer,
};
