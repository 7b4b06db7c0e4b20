/*
 * interop.h — helpers shared by factories.c and convert.c: the device class, NumPy and
 * buffer-protocol exchange, PyTorch-style argument checks, and the Tensor attributes that
 * have no autograd behind them yet (device, is_cuda, requires_grad, ...).
 */
#ifndef NT_PY_INTEROP_H
#define NT_PY_INTEROP_H

#include "pyntensor.h"

/* ---- ntensor.device (device.c; the class is ntensor/_device.py's) ---- */

/* The device class, and the one cpu device object (borrowed references). */
PyObject *nt_py_device_class(void);
PyObject *nt_py_cpu_device(void);
/* Checks a device= argument: NULL, None, "cpu", "cpu:N" or a cpu device pass (0); other
 * valid devices raise PyTorch's "Torch not compiled with CUDA enabled" AssertionError (or a
 * RuntimeError for the other types), a bad string PyTorch's RuntimeError (-1). */
int nt_py_check_device(PyObject *o);
int nt_py_device_init(PyObject *module);

/* ---- NumPy and the buffer protocol (numpy_buffer.c) ---- */

/* numpy.ndarray and numpy.generic, or NULL when NumPy cannot be imported (no error set). */
PyObject *nt_py_numpy_ndarray_type(void);
PyObject *nt_py_numpy_generic_type(void);
/* The dtype of a NumPy array or scalar (its dtype.char); -1 with PyTorch's TypeError
 * ("can't convert np.ndarray of type numpy.uint16. ...") when no dtype matches. */
int nt_py_numpy_dtype_of(PyObject *array_or_scalar, nt_dtype *out);
/* A tensor over the memory of `obj` (an object with the buffer protocol, e.g. a NumPy
 * array), without a copy; the buffer is released when the last view goes away. Errors are
 * PyTorch's from_numpy errors. A read-only buffer is shared too, with PyTorch's warning
 * (once per process) when `warn_readonly`. 0 or -1. */
int nt_py_tensor_from_buffer(PyObject *obj, int warn_readonly, nt_tensor **out);
/* The buffer protocol of Tensor (format, shape, strides in bytes, writable). */
extern PyBufferProcs nt_py_tensor_buffer_procs;

/* ---- argument checks (factories.c) ---- */

/* Reads requires_grad= into *grad and rejects pin_memory=True. 0 or -1. */
int nt_py_factory_flags(PyObject *requires_grad, PyObject *pin_memory, int *grad);
/* A factory's result marked as requiring grad when `grad` (result NULL passes through). */
PyObject *nt_py_requires_grad(PyObject *result, int grad);

/* ---- tensor() and the Tensor constructor (factories.c) ---- */

/* tensor(data): a new tensor with data's values (PyTorch's torch.tensor). */
PyObject *nt_py_tensor_of(PyObject *data);
/* tensor(data, dtype=dtype) (dtype NULL or None: inferred). */
PyObject *nt_py_tensor_of_dtype(PyObject *data, PyObject *dtype);

/* ---- exchange (io.c) ---- */

/* PyTorch's UserWarning for a read-only NumPy array shared by a tensor, once per process.
 * 0, or -1 when the warning was turned into an exception. */
int nt_py_warn_readonly_array(void);
/* A tensor sharing the memory of a foreign object: a NumPy array (its buffer), an object
 * with __dlpack__ (a PyTorch tensor), or one with __array__ (the array it returns). 1 when
 * made, 0 when obj is none of these (an ntensor Tensor, a NumPy scalar, Python data), -1 on
 * error. */
int nt_py_tensor_from_foreign(PyObject *obj, int warn_readonly, nt_tensor **out);

/* Tensor.__new__: PyTorch's legacy constructor, for Tensor and its subclasses. */
PyObject *nt_py_tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs);
/* Tensor._make_subclass(cls, data, require_grad=False) (a static method). */
PyObject *nt_py_make_subclass(PyObject *unused, PyObject *args, PyObject *kwargs);

/* ---- conversions (convert.c) ---- */

/* PyTorch's legacy type names, by dtype ("torch.FloatTensor"). */
extern const char *const nt_py_legacy_type_names[NT_DTYPE_COUNT];

#endif
