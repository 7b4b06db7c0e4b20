/*
 * docs.h — one-line summaries of the module's functions and Tensor methods (docs.c).
 */
#ifndef NT_PY_DOCS_H
#define NT_PY_DOCS_H

#include <stdbool.h>

#include "pyntensor.h"

/* The summary of a Tensor method (`method`) or module function called `name`, or NULL. A
 * method with no summary of its own gets its function's. */
const char *nt_py_op_doc(bool method, const char *name);
/* Gives the entries of defs (NULL-terminated) without a docstring their summary, if any. */
void nt_py_fill_docs(PyMethodDef *defs, bool method);

#endif
