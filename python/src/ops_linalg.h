/*
 * ops_linalg.h — the Python family "linalg" (ops_linalg.c): matrix products and `@`.
 */
#ifndef NT_PY_OPS_LINALG_H
#define NT_PY_OPS_LINALG_H

#include "pyntensor.h"

#endif
