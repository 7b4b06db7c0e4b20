/*
 * reduce_dtypes.h — includes the template RK_BODY (a file name: reduce_fold.h, reduce_read.h)
 * once for every dtype of NT_DTYPES, in its order, with the dtype's enum name (RK_E), storage
 * type (RK_C) and, for floating dtypes, RK_FLOATING defined; the body undefines those three.
 * At the end it undefines the bodies' own parameters (RK_FOLD, RK_OP, RK_ACC, RK_MEAN), so
 * that reduce_kernels.c can define the next ones.
 */

#define RK_E NT_BOOL
#define RK_C nt_bool
#include RK_BODY

#define RK_E NT_UINT8
#define RK_C uint8_t
#include RK_BODY

#define RK_E NT_INT8
#define RK_C int8_t
#include RK_BODY

#define RK_E NT_INT16
#define RK_C int16_t
#include RK_BODY

#define RK_E NT_INT32
#define RK_C int32_t
#include RK_BODY

#define RK_E NT_INT64
#define RK_C int64_t
#include RK_BODY

#define RK_E NT_FLOAT16
#define RK_C nt_float16
#define RK_FLOATING
#include RK_BODY

#define RK_E NT_BFLOAT16
#define RK_C nt_bfloat16
#define RK_FLOATING
#include RK_BODY

#define RK_E NT_FLOAT32
#define RK_C float
#define RK_FLOATING
#include RK_BODY

#define RK_E NT_FLOAT64
#define RK_C double
#define RK_FLOATING
#include RK_BODY

#undef RK_FOLD
#undef RK_OP
#undef RK_ACC
#undef RK_MEAN
