/*
 * bindings.h — the Python entries generated from the op table (bindings.c).
 */
#ifndef NT_PY_BINDINGS_H
#define NT_PY_BINDINGS_H

#include "pyntensor.h"

/* Builds every op's entries: adds the module functions to `module` and prepares the
 * Tensor methods (nt_py_bindings_methods) for the type. Runs before the Tensor type is
 * readied. Returns 0 or -1 with a Python error. */
int nt_py_bindings_init(PyObject *module);

/* The Tensor methods built by nt_py_bindings_init (NULL-terminated). */
PyMethodDef *nt_py_bindings_methods(void);

#endif
