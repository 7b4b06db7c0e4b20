/*
 * generator.h — ntensor.Generator (generator.c) as the binding's generator= argument sees it.
 */
#ifndef NT_PY_GENERATOR_H
#define NT_PY_GENERATOR_H

#include "pyntensor.h"

extern PyTypeObject NtGenerator_Type;

/* The C generator of a Generator object. */
nt_generator *nt_py_generator_of(PyObject *o);

#endif
