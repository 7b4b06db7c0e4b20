/*
 * arglists.h — argument helpers outside the signature parser: the one Ellipsis of *names
 * (names.c's fronts and the generated *names entries), the type name PyTorch prints for an
 * argument, and arguments as a tuple.
 */
#ifndef NT_PY_ARGLISTS_H
#define NT_PY_ARGLISTS_H

#include "pyntensor.h"

/* The type name PyTorch prints for an argument: its type's tp_name ("int", "NoneType"; a
 * subclass's own), or PyTorch's for ours ("Tensor", "torch.dtype", "torch.Size"). */
const char *nt_py_type_name(PyObject *o);

/* A new tuple of items[0..n) (positional arguments taken as one). */
PyObject *nt_py_tuple_of(PyObject *const *items, Py_ssize_t n);

/* The index of the one Ellipsis (Ellipsis or "...") among items, -1 if there is none;
 * -2 with PyTorch's RuntimeError ("f: More than one Ellipsis ('...') found in names
 * (...)") if there are several. */
int nt_py_find_ellipsis(const char *fname, PyObject *const *items, Py_ssize_t n);

#endif
