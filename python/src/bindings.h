/*
 * bindings.h — the Python entries generated from the op table (bindings.c).
 */
#ifndef NT_PY_BINDINGS_H
#define NT_PY_BINDINGS_H

#include "signature.h"

/* Builds every op's entries: adds the module functions to `module` and prepares the
 * Tensor methods (nt_py_bindings_methods) for the type. Runs before the Tensor type is
 * readied. Returns 0 or -1 with a Python error. */
int nt_py_bindings_init(PyObject *module);

/* An int list bound to parameter p of sig (a sequence, or one int for IntArrayRef[N]) into
 * out[], with PyTorch's text for an item that is no int; a list longer than NT_MAX_DIMS
 * (split_with_sizes' sizes) into *longer, allocated (else NULL: too many dims). 0 or -1. */
int py_int_list(const py_sig *sig, const py_param *p, PyObject *o, int64_t *out, int *n,
                int64_t **longer);

typedef PyObject *(*fastcall_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

/* Calls the generated method `name` (found on the first call, kept in *fn) for a
 * hand-written front that replaces it, as PyTorch's Python methods call its C ones. */
PyObject *nt_py_call_generated(fastcall_fn *fn, const char *name, PyObject *self,
                               PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* _C._binding_table(): the generated entries and their signature texts (scripts/gen_stubs.py). */
PyObject *nt_py_binding_table(PyObject *module, PyObject *unused);

/* The Tensor methods built by nt_py_bindings_init (NULL-terminated). */
PyMethodDef *nt_py_bindings_methods(void);

#endif
