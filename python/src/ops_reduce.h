/*
 * ops_reduce.h — the reductions family of the Python extension (ops_reduce.c): its Tensor
 * methods, torch.* functions and the init hook that creates torch.return_types.
 */
#ifndef NT_PY_OPS_REDUCE_H
#define NT_PY_OPS_REDUCE_H

#include <string.h>

#include "pyntensor.h"

#endif
