/*
 * pyntensor.h — what the files of the Python extension share.
 *
 * The extension is a thin layer: it parses Python arguments (names, dims, sizes, dtypes),
 * calls the C API, and wraps the result. Every file contributes a PyMethodDef table (for
 * Tensor methods or module functions); tensor_type.c and module.c join them at import.
 */
#ifndef NT_PYNTENSOR_H
#define NT_PYNTENSOR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ntensor.h"

/* ---- the Tensor object ---- */

typedef struct {
    PyObject_HEAD nt_tensor *t; /* owned reference, never NULL after construction */
    PyObject *weakrefs;
    PyObject *lenders[2]; /* NULL, or what t may borrow from (nt_tensor_bind_borrowing): the
                             indexed tensor and the index, dropped after t */
} NtTensorObject;

extern PyTypeObject NtTensor_Type;
/* The Tensor's number slots (tp_as_number). Families fill the slots they own (operators in
 * their `prepare` hooks, conversions such as nb_float in theirs). */
extern PyNumberMethods nt_py_tensor_number_methods;

static inline int nt_py_is_tensor(PyObject *o) {
    return PyObject_TypeCheck(o, &NtTensor_Type);
}
static inline nt_tensor *nt_py_tensor(PyObject *o) {
    return ((NtTensorObject *)o)->t;
}

/* Wraps `t` in a new Tensor object, taking over the caller's reference (released on
 * failure). Returns NULL with a Python error set on failure. */
PyObject *nt_py_wrap(nt_tensor *t);
/* The same as an instance of `type` (Tensor or a subclass): the tensor's object when it is
 * of that type, else a new object of `type` (the tensor's object when it has none). */
PyObject *nt_py_wrap_as(PyTypeObject *type, nt_tensor *t);

/* Converts a failed nt_status into the Python exception PyTorch raises for it; returns
 * NULL so callers can `return nt_py_raise(st);`. */
PyObject *nt_py_raise(nt_status st);
/* Raises the warning a successful call left (nt_take_warning) as a UserWarning; -1 when the
 * warning filters turned it into an exception. */
int nt_py_warn_pending(void);
/* The same for functions returning int (-1). */
int nt_py_raise_int(nt_status st);

/* Wraps the result of a C call: on NT_OK wraps `out`, otherwise raises. Call the C function
 * first (`nt_status st = nt_x(..., &out); return nt_py_result(st, out);`): C leaves the
 * order of argument evaluation open, so `nt_py_result(nt_x(..., &out), out)` may read out
 * before the call sets it. */
static inline PyObject *nt_py_result(nt_status st, nt_tensor *out) {
    return st == NT_OK ? nt_py_wrap(out) : nt_py_raise(st);
}

/* ---- the GIL ---- */

/* Work below this many elements keeps the GIL: releasing it costs more than it frees. */
#define NT_PY_NOGIL_NUMEL 65536

/* Runs `expr` (assigning its status to st), with the GIL released when `big` is true. */
#define NT_PY_CALL_NOGIL_IF(big, st, expr)                                                         \
    do {                                                                                           \
        if (big) {                                                                                 \
            PyThreadState *nt_save_ = PyEval_SaveThread();                                         \
            (st) = (expr);                                                                         \
            PyEval_RestoreThread(nt_save_);                                                        \
        } else {                                                                                   \
            (st) = (expr);                                                                         \
        }                                                                                          \
    } while (0)

/* The same for work over `numel` elements. */
#define NT_PY_CALL_NOGIL(numel, st, expr) NT_PY_CALL_NOGIL_IF((numel) > NT_PY_NOGIL_NUMEL, st, expr)

/* ---- dtypes ---- */

typedef struct {
    PyObject_HEAD nt_dtype dtype;
} NtDtypeObject;

extern PyTypeObject NtDtype_Type;
/* ntensor.layout and its one object, ntensor.strided (a borrowed reference). */
extern PyTypeObject NtLayout_Type;
PyObject *nt_py_strided(void);
/* The dtype object for `dtype` (a borrowed reference). */
PyObject *nt_py_dtype_object(nt_dtype dtype);
/* Converts a dtype object (or None -> `fallback`) into *out; 0 on success, -1 with a
 * TypeError otherwise. */
int nt_py_dtype_from_object(PyObject *o, nt_dtype fallback, nt_dtype *out);
int nt_py_dtypes_init(PyObject *module);

/* ---- torch.Size ---- */

extern PyTypeObject NtSize_Type;
/* A Size (tuple subclass) holding n int64 values. */
PyObject *nt_py_size_new(int n, const int64_t *values);

/* ---- names ---- */

/* Converts one name argument (str or None) into an interned id; -1 with TypeError
 * ("expected None or string for Dimname but got int") or RuntimeError otherwise. Strings
 * are cached, so converting a name seen before costs one dict lookup. */
int nt_py_name_from_object(PyObject *o, nt_name *out);
/* t.names as a tuple of str/None. */
PyObject *nt_py_names_tuple(const nt_tensor *t);
/* Converts a sequence of names (str or None; at most NT_MAX_DIMS) into out[]; *count
 * receives its length. The entry at `skip` (-1: none) is a placeholder (None), unread.
 * Returns 0 or -1. */
int nt_py_names_from_sequence(PyObject *seq, nt_name *out, int *count, int skip);
/* The same for items[0..n). */
int nt_py_names_from_items(PyObject *const *items, Py_ssize_t n, nt_name *out, int *count,
                           int skip);

/* ---- arguments ---- */

/* Reads an int64 from a Python int (or an object with __index__); 0 or -1 (TypeError). */
int nt_py_int64_from_object(PyObject *o, int64_t *out, const char *what);
/* PyTorch's Number: a bool, int or float, a NumPy scalar, or a one-element tensor (its
 * item); the one meaning of a number argument everywhere. 0 or -1 (TypeError). */
int nt_py_number(PyObject *o, nt_scalar *out);
/* Converts a scalar into a Python bool/int/float. */
PyObject *nt_py_scalar_to_object(nt_scalar s);

/* Binds a METH_FASTCALL | METH_KEYWORDS call as Python binds a function written in Python,
 * with its TypeErrors: `kwlist` names every parameter (NULL-terminated), the first
 * `max_positional` may come by position and the first `required` must be given. A first
 * parameter "self" is a method's, bound already and counted as Python counts it
 * ("Tensor.split() takes from 2 to 3 positional arguments"); the caller sets values[0].
 * values[] receives borrowed references (NULL when not given). Returns 0 or -1. */
int nt_py_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     const char *const *kwlist, int max_positional, int required,
                     PyObject **values);

/* ---- what each file contributes ----
 *
 * A file that adds Tensor methods or module functions exports NULL-terminated tables and,
 * when it must set type slots (numbers, mapping, comparison), a `prepare` hook that runs
 * before PyType_Ready. nt_py_families (module.c) lists every file's contribution once. */
typedef struct nt_py_family {
    const char *name;
    PyMethodDef *tensor_methods;               /* may be NULL */
    PyMethodDef *module_functions;             /* may be NULL */
    int (*prepare)(PyTypeObject *tensor_type); /* may be NULL; before PyType_Ready */
    int (*init)(PyObject *module);             /* may be NULL; after the type is ready */
} nt_py_family;

extern const nt_py_family nt_py_families[];

extern PyMethodDef nt_py_tensor_core_methods[];      /* tensor_type.c */
extern PyMethodDef nt_py_tensor_names_methods[];     /* names.c */
extern PyMethodDef nt_py_tensor_convert_methods[];   /* convert.c */
extern PyMethodDef nt_py_module_factory_functions[]; /* factories.c */
extern PyMethodDef nt_py_tensor_index_methods[];     /* ops_index.c */
int nt_py_index_prepare(PyTypeObject *type);         /* ops_index.c */
int nt_py_index_init(PyObject *module);              /* ops_index.c */
/* ops_index.c: one entry of an index, read as PyTorch reads it (a sequence becomes an index
 * tensor, a new reference in *owned, else *owned is NULL); -1 with the exception set */
int nt_py_index_entry(PyObject *o, nt_index *ix, nt_tensor **owned);
/* ops_index.c: a number given as t[...] = value, read as PyTorch's setitem reads it (TypeError
 * "can't assign a str to a torch.FloatTensor" for what is not one); -1 with the exception set */
int nt_py_setitem_scalar(PyObject *value, const nt_tensor *t, nt_scalar *s);

int nt_py_operators_prepare(PyTypeObject *tensor_type); /* operators.c */
extern PyMethodDef nt_py_tensor_io_methods[];           /* io.c */
extern PyMethodDef nt_py_module_io_functions[];         /* io.c */

/* dims.c: first-class dims (ntensor.dim) */
extern PyMethodDef nt_py_tensor_dims_methods[];
extern PyObject *nt_py_dimension_bind_error; /* DimensionBindError (NT_ERR_DIM_BIND) */
int nt_py_dims_init(PyObject *module);
int nt_py_is_dim(PyObject *o);
nt_fcdim *nt_py_fcdim(PyObject *o);      /* a Dim's C dim (borrowed) */
nt_dim nt_py_dim_arg(PyObject *o);       /* a Dim as a dim argument (nt_dim_fc) */
PyObject *nt_py_dim_tensor(PyObject *o); /* a Dim as a Tensor: borrowed, NULL if unbound */
int nt_py_index_has_dims(PyObject *index);
PyObject *nt_py_dims_getitem(PyObject *self, PyObject *index);
/* Whether t[index] = value takes the dims path: the index holds a Dim, a pack or a tensor with
 * dims, or self or value has dims (a Dim or a delayed product as the value too). */
int nt_py_setitem_has_dims(PyObject *self, PyObject *index, PyObject *value);
/* t[index] = value on that path (nt_tensor_bind_set_); -1 with the exception set. */
int nt_py_dims_setitem(PyObject *self, PyObject *index, PyObject *value);
/* -1 with functorch's ValueError when an index without dims names more dims than a tensor
 * with first-class dims has positional ones, else 0 */
int nt_py_levels_index_fits(PyObject *self, PyObject *index);
PyObject *nt_py_get_dims(PyObject *self, void *closure);
PyObject *nt_py_get_levels(PyObject *self, void *closure);
PyObject *nt_py_dims_repr(PyObject *self);
/* delayed.c: a * b of two tensors with dims and no positional dims, a delayed product whose
 * sum over dims is one matrix product (ntensor.dim._DelayedMul) */
static inline int nt_py_is_delayable(const nt_tensor *t) {
    return nt_tensor_levels(t, NULL) && nt_tensor_ndim(t) == 0;
}
PyObject *nt_py_delayed_mul(PyObject *a, PyObject *b);
int nt_py_delayed_init(PyObject *module);
/* Whether o is a delayed product, and its value (computed once and kept by o: borrowed), for
 * a delayed product given where a Tensor goes. */
int nt_py_is_delayed(PyObject *o);
PyObject *nt_py_delayed_value(PyObject *o);
/* -1 with ValueError when t has first-class dims: what reads its memory by its positional
 * geometry (tolist, the buffer protocol, pickling) would see one slice of it. */
int nt_py_refuse_levels(const nt_tensor *t, const char *what);
extern PyMethodDef nt_py_module_dims_functions[];

/* generator.c: ntensor.Generator, default_generator and the seed functions */
extern PyMethodDef nt_py_module_generator_functions[];
int nt_py_generator_init(PyObject *module);

/* subclass.c: Tensor subclasses (subclass.h has the binding's helpers) */
extern PyMethodDef nt_py_tensor_subclass_methods[];
extern PyMethodDef nt_py_module_subclass_functions[];
int nt_py_subclass_init(PyObject *module);

/* autograd.c: the Tensor's autograd attributes, methods and module functions */
extern PyMethodDef nt_py_tensor_autograd_methods[];
extern PyMethodDef nt_py_module_autograd_functions[];
int nt_py_autograd_init(PyObject *module);
PyObject *nt_py_get_requires_grad(PyObject *self, void *closure);
int nt_py_set_requires_grad(PyObject *self, PyObject *value, void *closure);
PyObject *nt_py_get_is_leaf(PyObject *self, void *closure);
PyObject *nt_py_get_retains_grad(PyObject *self, void *closure);
PyObject *nt_py_get_version(PyObject *self, void *closure);
PyObject *nt_py_get_grad(PyObject *self, void *closure);
int nt_py_set_grad(PyObject *self, PyObject *value, void *closure);
PyObject *nt_py_get_grad_fn(PyObject *self, void *closure);

/* Initialisation hooks of the files that need one. */
int nt_py_tensor_type_init(PyObject *module);
int nt_py_size_init(PyObject *module);
int nt_py_names_init(PyObject *module);
int nt_py_convert_prepare(PyTypeObject *type); /* convert.c */

#endif
