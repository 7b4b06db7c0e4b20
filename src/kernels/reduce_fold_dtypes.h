/*
 * reduce_fold_dtypes.h — instantiates reduce_fold.h, one scalar fold's kernel, for every
 * dtype of NT_DTYPES: the dtype's enum name (RK_E), storage type (RK_C) and, for floating
 * dtypes, RK_FLOATING, which reduce_fold.h undefines after use. Included by reduce_kernels.c
 * once per fold, after it has defined RK_FOLD, RK_OP, RK_ACC (and for sum RK_MEAN); they are
 * undefined at the end.
 */

#define RK_E NT_BOOL
#define RK_C nt_bool
#include "reduce_fold.h"

#define RK_E NT_UINT8
#define RK_C uint8_t
#include "reduce_fold.h"

#define RK_E NT_INT8
#define RK_C int8_t
#include "reduce_fold.h"

#define RK_E NT_INT16
#define RK_C int16_t
#include "reduce_fold.h"

#define RK_E NT_INT32
#define RK_C int32_t
#include "reduce_fold.h"

#define RK_E NT_INT64
#define RK_C int64_t
#include "reduce_fold.h"

#define RK_E NT_FLOAT16
#define RK_C nt_float16
#define RK_FLOATING
#include "reduce_fold.h"

#define RK_E NT_BFLOAT16
#define RK_C nt_bfloat16
#define RK_FLOATING
#include "reduce_fold.h"

#define RK_E NT_FLOAT32
#define RK_C float
#define RK_FLOATING
#include "reduce_fold.h"

#define RK_E NT_FLOAT64
#define RK_C double
#define RK_FLOATING
#include "reduce_fold.h"

#undef RK_FOLD
#undef RK_OP
#undef RK_ACC
#undef RK_MEAN
