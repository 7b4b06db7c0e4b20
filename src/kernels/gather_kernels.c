/*
 * gather_kernels.c — the rows of the gather and scatter ops (gather_kernels.h).
 *
 * Copies move elements by their size (a gather or a plain scatter does not look at values);
 * adds and products are typed, half-precision ones computed in float and rounded once per
 * element. A row runs its elements in order, so a scatter that reaches one element twice
 * in a row combines them in a fixed order.
 */
#include "gather_kernels.h"

#include "core/half.h"

/* the element k of the row on side s, and where the index sends it */
#define AT(r, s, k) ((r)->p[s] + (k) * (r)->step[s])
#define IDX(r, k) (*(const int64_t *)AT(r, 2, k))

#define GATHER_COPY(NAME, T)                                                                       \
    static void NAME(const nt_gather_row *r) {                                                     \
        for (int64_t k = 0; k < r->n; k++)                                                         \
            *(T *)AT(r, 0, k) = *(const T *)(AT(r, 1, k) + IDX(r, k) * r->jump);                   \
    }
#define SCATTER_STEP(NAME, T, STEP)                                                                \
    static void NAME(const nt_gather_row *r) {                                                     \
        for (int64_t k = 0; k < r->n; k++) {                                                       \
            T *d = (T *)(AT(r, 0, k) + IDX(r, k) * r->jump);                                       \
            const T s = *(const T *)AT(r, 1, k);                                                   \
            STEP;                                                                                  \
        }                                                                                          \
    }

GATHER_COPY(gather1, uint8_t)
GATHER_COPY(gather2, uint16_t)
GATHER_COPY(gather4, uint32_t)
GATHER_COPY(gather8, uint64_t)

SCATTER_STEP(set1, uint8_t, *d = s)
SCATTER_STEP(set2, uint16_t, *d = s)
SCATTER_STEP(set4, uint32_t, *d = s)
SCATTER_STEP(set8, uint64_t, *d = s)

SCATTER_STEP(add_bool, uint8_t, *d = *d || s)
SCATTER_STEP(add_u8, uint8_t, *d = (uint8_t)(*d + s))
SCATTER_STEP(add_i8, int8_t, *d = (int8_t)(*d + s))
SCATTER_STEP(add_i16, int16_t, *d = (int16_t)(*d + s))
SCATTER_STEP(add_i32, int32_t, *d = (int32_t)((uint32_t)*d + (uint32_t)s))
SCATTER_STEP(add_i64, int64_t, *d = (int64_t)((uint64_t)*d + (uint64_t)s))
SCATTER_STEP(add_f16, nt_float16, *d = nt_f32_to_f16(nt_f16_to_f32(*d) + nt_f16_to_f32(s)))
SCATTER_STEP(add_bf16, nt_bfloat16, *d = nt_f32_to_bf16(nt_bf16_to_f32(*d) + nt_bf16_to_f32(s)))
SCATTER_STEP(add_f32, float, *d += s)
SCATTER_STEP(add_f64, double, *d += s)

SCATTER_STEP(mul_bool, uint8_t, *d = *d && s)
SCATTER_STEP(mul_u8, uint8_t, *d = (uint8_t)(*d * s))
SCATTER_STEP(mul_i8, int8_t, *d = (int8_t)(*d * s))
SCATTER_STEP(mul_i16, int16_t, *d = (int16_t)(*d * s))
SCATTER_STEP(mul_i32, int32_t, *d = (int32_t)((uint32_t)*d * (uint32_t)s))
SCATTER_STEP(mul_i64, int64_t, *d = (int64_t)((uint64_t)*d * (uint64_t)s))
SCATTER_STEP(mul_f16, nt_float16, *d = nt_f32_to_f16(nt_f16_to_f32(*d) * nt_f16_to_f32(s)))
SCATTER_STEP(mul_bf16, nt_bfloat16, *d = nt_f32_to_bf16(nt_bf16_to_f32(*d) * nt_bf16_to_f32(s)))
SCATTER_STEP(mul_f32, float, *d *= s)
SCATTER_STEP(mul_f64, double, *d *= s)

nt_gather_row_fn nt_gather_kernel(size_t esize) {
    return esize == 1 ? gather1 : esize == 2 ? gather2 : esize == 4 ? gather4 : gather8;
}

static const nt_gather_row_fn scatter_kernels[NT_SCATTER_MODE_COUNT][NT_DTYPE_COUNT] = {
    [NT_SCATTER_ADD] =
        {
            [NT_BOOL] = add_bool,
            [NT_UINT8] = add_u8,
            [NT_INT8] = add_i8,
            [NT_INT16] = add_i16,
            [NT_INT32] = add_i32,
            [NT_INT64] = add_i64,
            [NT_FLOAT16] = add_f16,
            [NT_BFLOAT16] = add_bf16,
            [NT_FLOAT32] = add_f32,
            [NT_FLOAT64] = add_f64,
        },
    [NT_SCATTER_MUL] =
        {
            [NT_BOOL] = mul_bool,
            [NT_UINT8] = mul_u8,
            [NT_INT8] = mul_i8,
            [NT_INT16] = mul_i16,
            [NT_INT32] = mul_i32,
            [NT_INT64] = mul_i64,
            [NT_FLOAT16] = mul_f16,
            [NT_BFLOAT16] = mul_bf16,
            [NT_FLOAT32] = mul_f32,
            [NT_FLOAT64] = mul_f64,
        },
};

nt_gather_row_fn nt_scatter_kernel(nt_scatter_mode mode, nt_dtype dtype) {
    if (mode == NT_SCATTER_SET) {
        size_t esize = nt_dtype_table[dtype].size;
        return esize == 1 ? set1 : esize == 2 ? set2 : esize == 4 ? set4 : set8;
    }
    return scatter_kernels[mode][dtype];
}
