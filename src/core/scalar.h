/*
 * scalar.h — reading and writing one element of any dtype, with PyTorch's conversions.
 *
 * Floating values convert to integers the way PyTorch does on x86: to int64 and uint8
 * through a 64-bit truncation, to int32, int16 and int8 through a 32-bit truncation, then
 * wrap-around; NaN and out-of-range values give the truncation's "indefinite" value
 * (INT64_MIN or INT32_MIN). Written without undefined behaviour; src/kernels/convert.c
 * applies the same rules in bulk (and its tests check them against PyTorch).
 * These are for single elements (scalars, item(), printing); bulk loops live in kernels/.
 */
#ifndef NT_CORE_SCALAR_H
#define NT_CORE_SCALAR_H

#include <stdint.h>

#include "dtype.h"

static inline int64_t nt_double_to_i64(double x) {
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
static inline int32_t nt_double_to_i32(double x) {
    return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}

/* The element at p as a double (int64 values beyond 2^53 round). */
static inline double nt_load_double(const void *p, nt_dtype dtype) {
    switch (dtype) {
    case NT_BOOL:
        return *(const nt_bool *)p ? 1.0 : 0.0;
    case NT_UINT8:
        return *(const uint8_t *)p;
    case NT_INT8:
        return *(const int8_t *)p;
    case NT_INT16:
        return *(const int16_t *)p;
    case NT_INT32:
        return *(const int32_t *)p;
    case NT_INT64:
        return (double)*(const int64_t *)p;
    case NT_FLOAT16:
        return nt_f16_to_f32(*(const nt_float16 *)p);
    case NT_BFLOAT16:
        return nt_bf16_to_f32(*(const nt_bfloat16 *)p);
    case NT_FLOAT32:
        return *(const float *)p;
    case NT_FLOAT64:
        return *(const double *)p;
    default:
        return 0.0;
    }
}

/* The element at p as a scalar of its dtype's kind (bool, int64 or double). */
static inline nt_scalar nt_load_scalar(const void *p, nt_dtype dtype) {
    switch (nt_dtype_table[dtype].kind) {
    case NT_KIND_BOOL:
        return nt_scalar_bool(*(const nt_bool *)p != 0);
    case NT_KIND_INT:
        if (dtype == NT_INT64) return nt_scalar_int(*(const int64_t *)p);
        return nt_scalar_int((int64_t)nt_load_double(p, dtype));
    default:
        return nt_scalar_float(nt_load_double(p, dtype));
    }
}

/* s's value as a double (bool as 0 or 1). */
static inline double nt_scalar_to_f64(nt_scalar s) {
    return s.kind == NT_SCALAR_FLOAT ? s.v.f : s.kind == NT_SCALAR_INT ? (double)s.v.i : s.v.b;
}

/* Writes scalar s into the element at p, converted to dtype. */
static inline void nt_store_scalar(void *p, nt_dtype dtype, nt_scalar s) {
    if (s.kind == NT_SCALAR_FLOAT) {
        double x = s.v.f;
        switch (dtype) {
        case NT_BOOL:
            *(nt_bool *)p = x != 0.0;
            return;
        case NT_UINT8:
            *(uint8_t *)p = (uint8_t)nt_double_to_i64(x);
            return;
        case NT_INT8:
            *(int8_t *)p = (int8_t)nt_double_to_i32(x);
            return;
        case NT_INT16:
            *(int16_t *)p = (int16_t)nt_double_to_i32(x);
            return;
        case NT_INT32:
            *(int32_t *)p = nt_double_to_i32(x);
            return;
        case NT_INT64:
            *(int64_t *)p = nt_double_to_i64(x);
            return;
        case NT_FLOAT16:
            *(nt_float16 *)p = nt_f32_to_f16((float)x);
            return;
        case NT_BFLOAT16:
            *(nt_bfloat16 *)p = nt_f32_to_bf16((float)x);
            return;
        case NT_FLOAT32:
            *(float *)p = (float)x;
            return;
        case NT_FLOAT64:
            *(double *)p = x;
            return;
        default:
            return;
        }
    }
    int64_t i = s.kind == NT_SCALAR_BOOL ? (int64_t)s.v.b : s.v.i;
    switch (dtype) {
    case NT_BOOL:
        *(nt_bool *)p = i != 0;
        return;
    case NT_UINT8:
        *(uint8_t *)p = (uint8_t)i;
        return;
    case NT_INT8:
        *(int8_t *)p = (int8_t)i;
        return;
    case NT_INT16:
        *(int16_t *)p = (int16_t)i;
        return;
    case NT_INT32:
        *(int32_t *)p = (int32_t)i;
        return;
    case NT_INT64:
        *(int64_t *)p = i;
        return;
    case NT_FLOAT16:
        *(nt_float16 *)p = nt_f32_to_f16((float)i);
        return;
    case NT_BFLOAT16:
        *(nt_bfloat16 *)p = nt_f32_to_bf16((float)i);
        return;
    case NT_FLOAT32:
        *(float *)p = (float)i;
        return;
    case NT_FLOAT64:
        *(double *)p = (double)i;
        return;
    default:
        return;
    }
}

#endif
