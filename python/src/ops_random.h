/*
 * ops_random.h — what ops_random.c (the "random" family: in-place distributions, dropout,
 * torch.normal's tensor forms and the Tensor rows with no name rule) offers the other files.
 */
#ifndef NT_PY_OPS_RANDOM_H
#define NT_PY_OPS_RANDOM_H

#include "pyntensor.h"

/* torch.normal when mean or std is a Tensor: normal(mean, std), normal(mean, std=1.0),
 * normal(mean: float, std), each with out=. Sets *handled to 0 (and returns NULL without an
 * error) when neither mean nor std is a Tensor, so the caller parses the other form. */
PyObject *nt_py_normal_tensor_forms(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                    int *handled);

#endif
