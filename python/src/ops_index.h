/*
 * ops_index.h — the indexing family's Python contribution (ops_index.c): Tensor methods,
 * module functions and the hook that installs __getitem__/__setitem__.
 */
#ifndef NT_PY_OPS_INDEX_H
#define NT_PY_OPS_INDEX_H

#include "pyntensor.h"

#endif
