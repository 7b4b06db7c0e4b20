/*
 * ops_index.h — the indexing family's hand-written Python part (ops_index.c): the hook that
 * installs __getitem__/__setitem__, Tensor.split and torch.split.
 */
#ifndef NT_PY_OPS_INDEX_H
#define NT_PY_OPS_INDEX_H

#include "pyntensor.h"

#endif
