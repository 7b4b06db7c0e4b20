/*
 * arglists.h — argument helpers outside the signature parser: the one Ellipsis of *names
 * (names.c's fronts and the generated *names entries), int lists read as PyTorch reads a
 * "tuple of ints" (Tensor(*sizes)), and the type name PyTorch prints for an argument.
 */
#ifndef NT_PY_ARGLISTS_H
#define NT_PY_ARGLISTS_H

#include "pyntensor.h"

/* The type name PyTorch prints for an argument: its type's tp_name ("int", "NoneType"; a
 * subclass's own), or PyTorch's for ours ("Tensor", "torch.dtype", "torch.Size"). */
const char *nt_py_type_name(PyObject *o);

/* The index of the one Ellipsis (Ellipsis or "...") among items, -1 if there is none;
 * -2 with PyTorch's RuntimeError ("f: More than one Ellipsis ('...') found in names
 * (...)") if there are several. */
int nt_py_find_ellipsis(const char *fname, PyObject *const *items, Py_ssize_t n);

/* Reads a list of ints given as varargs or as one list/tuple/Size, the way PyTorch reads a
 * "tuple of SymInts"/"tuple of ints" argument, with its TypeErrors. `what` is "SymInts" or
 * "ints", `arg` the parameter name and `position` its (1-based) position. Returns the count or -1.
 */
int nt_py_int_list(const char *fname, const char *arg, int position, const char *what,
                   PyObject *const *args, Py_ssize_t nargs, int64_t *out);

#endif
