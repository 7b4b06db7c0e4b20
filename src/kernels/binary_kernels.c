/*
 * binary_kernels.c — scalar kernels of the pointwise binary family and their stamped loops
 * (see binary_kernels.h for what each table holds).
 *
 * Kernels come in three classes, each a macro stamped once per dtype of the class:
 *   - floating (float16, bfloat16, float32, float64), computing in float or double with
 *     <tgmath.h>'s type-generic functions; PyTorch's formulas for floor division and the
 *     Python remainder, NaN-propagating maximum/minimum;
 *   - integer (uint8 .. int64), with wrap-around arithmetic done in an unsigned type (no
 *     signed overflow), division guarded against x / -1 overflow;
 *   - bool, where PyTorch defines add as or, mul as and.
 * The op tables are filled with designated initializers; a missing entry is a dtype PyTorch
 * has no kernel for.
 */
#include "binary_kernels.h"

#include <string.h>
#include <tgmath.h>

#include "core/scalar.h"
#include "core/tensor.h"

nt_kparam nt_kparam_make(nt_dtype dtype, nt_scalar s) {
    nt_kparam p;
    memset(&p, 0, sizeof p);
    union {
        uint64_t u;
        double d;
    } element = {0};
    if (dtype == NT_FLOAT16 || dtype == NT_BFLOAT16) { /* computes in float, no rounding */
        p.f = (float)(s.kind == NT_SCALAR_FLOAT ? s.v.f
                      : s.kind == NT_SCALAR_INT ? (double)s.v.i
                                                : (double)s.v.b);
        return p;
    }
    nt_store_scalar(&element, dtype, s);
    memcpy(&p, &element, nt_dtype_table[dtype].size);
    return p;
}

/* Read the parameter member of the compute type of dtype E. */
#define KP_NT_BOOL b
#define KP_NT_UINT8 u8
#define KP_NT_INT8 i8
#define KP_NT_INT16 i16
#define KP_NT_INT32 i32
#define KP_NT_INT64 i64
#define KP_NT_FLOAT16 f
#define KP_NT_BFLOAT16 f
#define KP_NT_FLOAT32 f
#define KP_NT_FLOAT64 d
#define KP(E) KP_##E
#define KPX(E) KP(E)

/* Unsigned types for wrap-around arithmetic (at least unsigned int, so that nothing is
 * promoted back to a signed int). */
#define UT_NT_UINT8 uint32_t
#define UT_NT_INT8 uint32_t
#define UT_NT_INT16 uint32_t
#define UT_NT_INT32 uint32_t
#define UT_NT_INT64 uint64_t
/* The signed types of the same widths (a right shift in C++'s promoted int). */
#define ST_NT_UINT8 int32_t
#define ST_NT_INT8 int32_t
#define ST_NT_INT16 int32_t
#define ST_NT_INT32 int32_t
#define ST_NT_INT64 int64_t

/* Sign tests through int64_t so that unsigned types do not draw "always false" warnings. */
static inline bool is_neg(int64_t x) {
    return x < 0;
}

/* ------------------------------------------------------------------ floating kernels */

#define FLOAT_KERNELS(E, n, CT)                                                                    \
    static inline CT k_add_##E(CT a, CT b) {                                                       \
        return a + b;                                                                              \
    }                                                                                              \
    static inline CT k_sub_##E(CT a, CT b) {                                                       \
        return a - b;                                                                              \
    }                                                                                              \
    static inline CT k_mul_##E(CT a, CT b) {                                                       \
        return a * b;                                                                              \
    }                                                                                              \
    static inline CT k_div_##E(CT a, CT b) {                                                       \
        return a / b;                                                                              \
    }                                                                                              \
    static inline CT k_add_alpha_##E(CT a, CT b, const nt_kparam *p) {                             \
        return a + p->KPX(E) * b;                                                                  \
    }                                                                                              \
    static inline CT k_div_trunc_##E(CT a, CT b) {                                                 \
        return trunc(a / b);                                                                       \
    }                                                                                              \
    /* c10's div_floor_floating */                                                                 \
    static inline CT k_div_floor_##E(CT a, CT b) {                                                 \
        if (b == 0) return a / b;                                                                  \
        CT mod = fmod(a, b);                                                                       \
        CT div = (a - mod) / b;                                                                    \
        if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;                                            \
        CT fl;                                                                                     \
        if (div != 0) {                                                                            \
            fl = floor(div);                                                                       \
            if (div - fl > (CT)0.5) fl += 1;                                                       \
        } else {                                                                                   \
            fl = copysign((CT)0, a / b);                                                           \
        }                                                                                          \
        return fl;                                                                                 \
    }                                                                                              \
    static inline CT k_remainder_##E(CT a, CT b) {                                                 \
        CT mod = fmod(a, b);                                                                       \
        if (mod != 0 && (b < 0) != (mod < 0)) mod += b;                                            \
        return mod;                                                                                \
    }                                                                                              \
    static inline CT k_fmod_##E(CT a, CT b) {                                                      \
        return fmod(a, b);                                                                         \
    }                                                                                              \
    static inline CT k_pow_##E(CT a, CT b) {                                                       \
        return pow(a, b);                                                                          \
    }                                                                                              \
    static inline CT k_atan2_##E(CT a, CT b) {                                                     \
        return atan2(a, b);                                                                        \
    }                                                                                              \
    static inline CT k_maximum_##E(CT a, CT b) {                                                   \
        return a != a ? a : b != b ? b : a > b ? a : b;                                            \
    }                                                                                              \
    static inline CT k_minimum_##E(CT a, CT b) {                                                   \
        return a != a ? a : b != b ? b : a < b ? a : b;                                            \
    }                                                                                              \
    static inline bool k_logical_and_##E(CT a, CT b) {                                             \
        return a != 0 && b != 0;                                                                   \
    }                                                                                              \
    static inline bool k_logical_or_##E(CT a, CT b) {                                              \
        return a != 0 || b != 0;                                                                   \
    }                                                                                              \
    static inline bool k_logical_xor_##E(CT a, CT b) {                                             \
        return (a != 0) != (b != 0);                                                               \
    }

/* ------------------------------------------------------------------ integer kernels */

#define INT_KERNELS(E, n, CT)                                                                      \
    static inline CT k_add_##E(CT a, CT b) {                                                       \
        return (CT)((UT_##E)a + (UT_##E)b);                                                        \
    }                                                                                              \
    static inline CT k_sub_##E(CT a, CT b) {                                                       \
        return (CT)((UT_##E)a - (UT_##E)b);                                                        \
    }                                                                                              \
    static inline CT k_mul_##E(CT a, CT b) {                                                       \
        return (CT)((UT_##E)a * (UT_##E)b);                                                        \
    }                                                                                              \
    static inline CT k_add_alpha_##E(CT a, CT b, const nt_kparam *p) {                             \
        return (CT)((UT_##E)a + (UT_##E)p->KPX(E) * (UT_##E)b);                                    \
    }                                                                                              \
    /* b == 0 never reaches here (ZeroDivisionError first); -1 would overflow x86's idiv */        \
    static inline CT k_div_trunc_##E(CT a, CT b) {                                                 \
        if (b == 0) return 0;                                                                      \
        if (is_neg(b) && b == (CT)-1) return (CT)(0u - (UT_##E)a);                                 \
        return (CT)(a / b);                                                                        \
    }                                                                                              \
    static inline CT k_div_floor_##E(CT a, CT b) {                                                 \
        if (b == 0) return 0;                                                                      \
        if (is_neg(b) && b == (CT)-1) return (CT)(0u - (UT_##E)a);                                 \
        CT q = (CT)(a / b), r = (CT)(a % b);                                                       \
        if (r != 0 && is_neg(a) != is_neg(b)) q = (CT)(q - 1);                                     \
        return q;                                                                                  \
    }                                                                                              \
    static inline CT k_remainder_##E(CT a, CT b) {                                                 \
        if (b == 0 || (is_neg(b) && b == (CT)-1)) return 0;                                        \
        CT r = (CT)(a % b);                                                                        \
        if (r != 0 && is_neg(r) != is_neg(b)) r = (CT)(r + b);                                     \
        return r;                                                                                  \
    }                                                                                              \
    /* C's remainder (the sign of a); b == 0 never reaches here */                                 \
    static inline CT k_fmod_##E(CT a, CT b) {                                                      \
        if (b == 0 || (is_neg(b) && b == (CT)-1)) return 0;                                        \
        return (CT)(a % b);                                                                        \
    }                                                                                              \
    /* shifts as PyTorch's compiled C++ runs them on x86: in a 32-bit int (64-bit for int64),      \
     * the count taken modulo the width (a negative count too) */                                  \
    static inline CT k_lshift_##E(CT a, CT b) {                                                    \
        return (CT)((UT_##E)a << ((UT_##E)b & (sizeof(UT_##E) * 8 - 1)));                          \
    }                                                                                              \
    static inline CT k_rshift_##E(CT a, CT b) {                                                    \
        return (CT)((ST_##E)a >> ((UT_##E)b & (sizeof(UT_##E) * 8 - 1)));                          \
    }                                                                                              \
    /* c10's powi: negative exponents give 1, +-1 or 0 */                                          \
    static inline CT k_pow_##E(CT a, CT b) {                                                       \
        if (is_neg(b)) {                                                                           \
            if (a == 1) return 1;                                                                  \
            if (is_neg(a) && a == (CT)-1) return (b & 1) ? (CT)-1 : (CT)1;                         \
            return 0;                                                                              \
        }                                                                                          \
        UT_##E result = 1, base = (UT_##E)a;                                                       \
        for (uint64_t e = (uint64_t)b; e; e >>= 1) {                                               \
            if (e & 1) result *= base;                                                             \
            base *= base;                                                                          \
        }                                                                                          \
        return (CT)result;                                                                         \
    }                                                                                              \
    static inline CT k_maximum_##E(CT a, CT b) {                                                   \
        return a > b ? a : b;                                                                      \
    }                                                                                              \
    static inline CT k_minimum_##E(CT a, CT b) {                                                   \
        return a < b ? a : b;                                                                      \
    }                                                                                              \
    static inline CT k_bitwise_and_##E(CT a, CT b) {                                               \
        return (CT)(a & b);                                                                        \
    }                                                                                              \
    static inline CT k_bitwise_or_##E(CT a, CT b) {                                                \
        return (CT)(a | b);                                                                        \
    }                                                                                              \
    static inline CT k_bitwise_xor_##E(CT a, CT b) {                                               \
        return (CT)(a ^ b);                                                                        \
    }                                                                                              \
    static inline bool k_logical_and_##E(CT a, CT b) {                                             \
        return a != 0 && b != 0;                                                                   \
    }                                                                                              \
    static inline bool k_logical_or_##E(CT a, CT b) {                                              \
        return a != 0 || b != 0;                                                                   \
    }                                                                                              \
    static inline bool k_logical_xor_##E(CT a, CT b) {                                             \
        return (a != 0) != (b != 0);                                                               \
    }

/* ------------------------------------------------------------------ bool kernels */

static inline bool k_add_NT_BOOL(bool a, bool b) {
    return a || b;
}
static inline bool k_add_alpha_NT_BOOL(bool a, bool b, const nt_kparam *p) {
    return a || (p->b && b);
}
static inline bool k_mul_NT_BOOL(bool a, bool b) {
    return a && b;
}
static inline bool k_maximum_NT_BOOL(bool a, bool b) {
    return a || b;
}
static inline bool k_minimum_NT_BOOL(bool a, bool b) {
    return a && b;
}
static inline bool k_bitwise_and_NT_BOOL(bool a, bool b) {
    return a && b;
}
static inline bool k_bitwise_or_NT_BOOL(bool a, bool b) {
    return a || b;
}
static inline bool k_bitwise_xor_NT_BOOL(bool a, bool b) {
    return a != b;
}
static inline bool k_logical_and_NT_BOOL(bool a, bool b) {
    return a && b;
}
static inline bool k_logical_or_NT_BOOL(bool a, bool b) {
    return a || b;
}
static inline bool k_logical_xor_NT_BOOL(bool a, bool b) {
    return a != b;
}

/* Comparisons, every dtype. */
#define CMP_KERNELS(E, n, CT)                                                                      \
    static inline bool k_eq_##E(CT a, CT b) {                                                      \
        return a == b;                                                                             \
    }                                                                                              \
    static inline bool k_ne_##E(CT a, CT b) {                                                      \
        return a != b;                                                                             \
    }                                                                                              \
    static inline bool k_lt_##E(CT a, CT b) {                                                      \
        return a < b;                                                                              \
    }                                                                                              \
    static inline bool k_le_##E(CT a, CT b) {                                                      \
        return a <= b;                                                                             \
    }                                                                                              \
    static inline bool k_gt_##E(CT a, CT b) {                                                      \
        return a > b;                                                                              \
    }                                                                                              \
    static inline bool k_ge_##E(CT a, CT b) {                                                      \
        return a >= b;                                                                             \
    }

FLOAT_KERNELS(NT_FLOAT16, float16, float)
FLOAT_KERNELS(NT_BFLOAT16, bfloat16, float)
FLOAT_KERNELS(NT_FLOAT32, float32, float)
FLOAT_KERNELS(NT_FLOAT64, float64, double)
INT_KERNELS(NT_UINT8, uint8, uint8_t)
INT_KERNELS(NT_INT8, int8, int8_t)
INT_KERNELS(NT_INT16, int16, int16_t)
INT_KERNELS(NT_INT32, int32, int32_t)
INT_KERNELS(NT_INT64, int64, int64_t)
#define STAMP_CMP_KERNELS(E, n, c) CMP_KERNELS(E, n, NT_CT_##E)
NT_DTYPES(STAMP_CMP_KERNELS)

/* ------------------------------------------------------------------ stamped loops */

/* An op whose output is the compute dtype, and one whose output is bool. */
#define SAME(op, E, n, c)                                                                          \
    NT_LOOP_BINARY(op##_##E, c, c, c, NT_LD_##E, NT_LD_##E, NT_ST_##E, k_##op##_##E)
#define TO_BOOL(op, E, n, c)                                                                       \
    NT_LOOP_BINARY(op##_##E, nt_bool, c, c, NT_LD_##E, NT_LD_##E, NT_ST_NT_BOOL, k_##op##_##E)
#define ALPHA(E, n, c)                                                                             \
    NT_LOOP_BINARY_P(add_alpha_##E, c, c, c, NT_LD_##E, NT_LD_##E, NT_ST_##E, k_add_alpha_##E,     \
                     nt_kparam)

#define ALL_DTYPES_LOOPS(E, n, c)                                                                  \
    SAME(add, E, n, c)                                                                             \
    SAME(mul, E, n, c)                                                                             \
    SAME(maximum, E, n, c)                                                                         \
    SAME(minimum, E, n, c)                                                                         \
    ALPHA(E, n, c)                                                                                 \
    TO_BOOL(eq, E, n, c)                                                                           \
    TO_BOOL(ne, E, n, c)                                                                           \
    TO_BOOL(lt, E, n, c)                                                                           \
    TO_BOOL(le, E, n, c)                                                                           \
    TO_BOOL(gt, E, n, c)                                                                           \
    TO_BOOL(ge, E, n, c)                                                                           \
    TO_BOOL(logical_and, E, n, c)                                                                  \
    TO_BOOL(logical_or, E, n, c)                                                                   \
    TO_BOOL(logical_xor, E, n, c)
NT_DTYPES(ALL_DTYPES_LOOPS)

/* Numbers (not bool). */
#define NUMBER_LOOPS(E, n, c)                                                                      \
    SAME(sub, E, n, c)                                                                             \
    SAME(div_trunc, E, n, c)                                                                       \
    SAME(div_floor, E, n, c)                                                                       \
    SAME(remainder, E, n, c)                                                                       \
    SAME(fmod, E, n, c)                                                                            \
    SAME(pow, E, n, c)
#define FLOAT_LOOPS(E, n, c)                                                                       \
    NUMBER_LOOPS(E, n, c)                                                                          \
    SAME(div, E, n, c)                                                                             \
    SAME(atan2, E, n, c)
#define INT_LOOPS(E, n, c)                                                                         \
    NUMBER_LOOPS(E, n, c)                                                                          \
    SAME(bitwise_and, E, n, c)                                                                     \
    SAME(bitwise_or, E, n, c)                                                                      \
    SAME(bitwise_xor, E, n, c)                                                                     \
    SAME(lshift, E, n, c)                                                                          \
    SAME(rshift, E, n, c)

FLOAT_LOOPS(NT_FLOAT16, float16, nt_float16)
FLOAT_LOOPS(NT_BFLOAT16, bfloat16, nt_bfloat16)
FLOAT_LOOPS(NT_FLOAT32, float32, float)
FLOAT_LOOPS(NT_FLOAT64, float64, double)
INT_LOOPS(NT_UINT8, uint8, uint8_t)
INT_LOOPS(NT_INT8, int8, int8_t)
INT_LOOPS(NT_INT16, int16, int16_t)
INT_LOOPS(NT_INT32, int32, int32_t)
INT_LOOPS(NT_INT64, int64, int64_t)
SAME(bitwise_and, NT_BOOL, bool, nt_bool)
SAME(bitwise_or, NT_BOOL, bool, nt_bool)
SAME(bitwise_xor, NT_BOOL, bool, nt_bool)

/* ------------------------------------------------------------------ the op table */

#define ENTRY(op, E)                                                                               \
    { op##_##E, op##_##E##_s, op##_##E##_r }
#define ROW_ALL(op)                                                                                \
    {                                                                                              \
        [NT_BOOL] = ENTRY(op, NT_BOOL), [NT_UINT8] = ENTRY(op, NT_UINT8),                          \
        [NT_INT8] = ENTRY(op, NT_INT8), [NT_INT16] = ENTRY(op, NT_INT16),                          \
        [NT_INT32] = ENTRY(op, NT_INT32), [NT_INT64] = ENTRY(op, NT_INT64),                        \
        [NT_FLOAT16] = ENTRY(op, NT_FLOAT16), [NT_BFLOAT16] = ENTRY(op, NT_BFLOAT16),              \
        [NT_FLOAT32] = ENTRY(op, NT_FLOAT32), [NT_FLOAT64] = ENTRY(op, NT_FLOAT64),                \
    }
#define ROW_NUMBERS(op)                                                                            \
    {                                                                                              \
        [NT_UINT8] = ENTRY(op, NT_UINT8), [NT_INT8] = ENTRY(op, NT_INT8),                          \
        [NT_INT16] = ENTRY(op, NT_INT16), [NT_INT32] = ENTRY(op, NT_INT32),                        \
        [NT_INT64] = ENTRY(op, NT_INT64), [NT_FLOAT16] = ENTRY(op, NT_FLOAT16),                    \
        [NT_BFLOAT16] = ENTRY(op, NT_BFLOAT16), [NT_FLOAT32] = ENTRY(op, NT_FLOAT32),              \
        [NT_FLOAT64] = ENTRY(op, NT_FLOAT64),                                                      \
    }
#define ROW_FLOATS(op)                                                                             \
    {                                                                                              \
        [NT_FLOAT16] = ENTRY(op, NT_FLOAT16), [NT_BFLOAT16] = ENTRY(op, NT_BFLOAT16),              \
        [NT_FLOAT32] = ENTRY(op, NT_FLOAT32), [NT_FLOAT64] = ENTRY(op, NT_FLOAT64),                \
    }
#define ROW_INTEGRAL(op)                                                                           \
    {                                                                                              \
        [NT_BOOL] = ENTRY(op, NT_BOOL), [NT_UINT8] = ENTRY(op, NT_UINT8),                          \
        [NT_INT8] = ENTRY(op, NT_INT8), [NT_INT16] = ENTRY(op, NT_INT16),                          \
        [NT_INT32] = ENTRY(op, NT_INT32), [NT_INT64] = ENTRY(op, NT_INT64),                        \
    }

#define ROW_INTS(op)                                                                               \
    {                                                                                              \
        [NT_UINT8] = ENTRY(op, NT_UINT8), [NT_INT8] = ENTRY(op, NT_INT8),                          \
        [NT_INT16] = ENTRY(op, NT_INT16), [NT_INT32] = ENTRY(op, NT_INT32),                        \
        [NT_INT64] = ENTRY(op, NT_INT64),                                                          \
    }

/* A NULL tt marks an unsupported dtype. atan2 has no float16 kernel in PyTorch 1.13. */
static const nt_binary_loops table[NT_OP_COUNT][NT_DTYPE_COUNT] = {
    [NT_OP_ADD] = ROW_ALL(add),
    [NT_OP_SUB] = ROW_NUMBERS(sub),
    [NT_OP_MUL] = ROW_ALL(mul),
    [NT_OP_DIV] = ROW_FLOATS(div),
    [NT_OP_DIV_TRUNC] = ROW_NUMBERS(div_trunc),
    [NT_OP_FLOOR_DIVIDE] = ROW_NUMBERS(div_floor),
    [NT_OP_REMAINDER] = ROW_NUMBERS(remainder),
    [NT_OP_POW] = ROW_NUMBERS(pow),
    [NT_OP_ATAN2] = {[NT_BFLOAT16] = ENTRY(atan2, NT_BFLOAT16),
                     [NT_FLOAT32] = ENTRY(atan2, NT_FLOAT32),
                     [NT_FLOAT64] = ENTRY(atan2, NT_FLOAT64)},
    [NT_OP_MAXIMUM] = ROW_ALL(maximum),
    [NT_OP_MINIMUM] = ROW_ALL(minimum),
    [NT_OP_EQ] = ROW_ALL(eq),
    [NT_OP_NE] = ROW_ALL(ne),
    [NT_OP_LT] = ROW_ALL(lt),
    [NT_OP_LE] = ROW_ALL(le),
    [NT_OP_GT] = ROW_ALL(gt),
    [NT_OP_GE] = ROW_ALL(ge),
    [NT_OP_BITWISE_AND] = ROW_INTEGRAL(bitwise_and),
    [NT_OP_BITWISE_OR] = ROW_INTEGRAL(bitwise_or),
    [NT_OP_BITWISE_XOR] = ROW_INTEGRAL(bitwise_xor),
    [NT_OP_LOGICAL_AND] = ROW_ALL(logical_and),
    [NT_OP_LOGICAL_OR] = ROW_ALL(logical_or),
    [NT_OP_LOGICAL_XOR] = ROW_ALL(logical_xor),
    [NT_OP_FMOD] = ROW_NUMBERS(fmod),
    [NT_OP_BITWISE_LEFT_SHIFT] = ROW_INTS(lshift),
    [NT_OP_BITWISE_RIGHT_SHIFT] = ROW_INTS(rshift),
};

static const nt_binary_loops add_alpha_table[NT_DTYPE_COUNT] = ROW_ALL(add_alpha);

const nt_binary_loops *nt_binary_kernel(nt_op op, nt_dtype dtype) {
    if ((unsigned)op >= NT_OP_COUNT || !nt_dtype_valid((int)dtype)) return NULL;
    const nt_binary_loops *l = &table[op][dtype];
    return l->tt ? l : NULL;
}

const nt_binary_loops *nt_binary_add_alpha_kernel(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? &add_alpha_table[dtype] : NULL;
}

/* ------------------------------------------------------------------ pow by a scalar */

/* PyTorch's pow_tensor_scalar_optimized_kernel (float, double, bfloat16). */
#define POW_SPECIAL(E, n, c, CT)                                                                   \
    static inline CT k_sq_##E(CT x) {                                                              \
        return x * x;                                                                              \
    }                                                                                              \
    static inline CT k_cube_##E(CT x) {                                                            \
        return x * x * x;                                                                          \
    }                                                                                              \
    static inline CT k_sqrt_##E(CT x) {                                                            \
        return sqrt(x);                                                                            \
    }                                                                                              \
    static inline CT k_rsqrt_##E(CT x) {                                                           \
        return (CT)1 / sqrt(x);                                                                    \
    }                                                                                              \
    static inline CT k_recip_##E(CT x) {                                                           \
        return (CT)1 / x;                                                                          \
    }                                                                                              \
    static inline CT k_rsq_##E(CT x) {                                                             \
        return (CT)1 / (x * x);                                                                    \
    }                                                                                              \
    NT_LOOP_UNARY(pow_sq_##E, c, c, NT_LD_##E, NT_ST_##E, k_sq_##E)                                \
    NT_LOOP_UNARY(pow_cube_##E, c, c, NT_LD_##E, NT_ST_##E, k_cube_##E)                            \
    NT_LOOP_UNARY(pow_sqrt_##E, c, c, NT_LD_##E, NT_ST_##E, k_sqrt_##E)                            \
    NT_LOOP_UNARY(pow_rsqrt_##E, c, c, NT_LD_##E, NT_ST_##E, k_rsqrt_##E)                          \
    NT_LOOP_UNARY(pow_recip_##E, c, c, NT_LD_##E, NT_ST_##E, k_recip_##E)                          \
    NT_LOOP_UNARY(pow_rsq_##E, c, c, NT_LD_##E, NT_ST_##E, k_rsq_##E)                              \
    static nt_loop2d pow_special_##E(double e) {                                                   \
        if (e == 2) return pow_sq_##E;                                                             \
        if (e == 3) return pow_cube_##E;                                                           \
        if (e == 0.5) return pow_sqrt_##E;                                                         \
        if (e == -0.5) return pow_rsqrt_##E;                                                       \
        if (e == -1) return pow_recip_##E;                                                         \
        if (e == -2) return pow_rsq_##E;                                                           \
        return NULL;                                                                               \
    }
POW_SPECIAL(NT_BFLOAT16, bfloat16, nt_bfloat16, float)
POW_SPECIAL(NT_FLOAT32, float32, float, float)
POW_SPECIAL(NT_FLOAT64, float64, double, double)

nt_loop2d nt_pow_scalar_special_loop(nt_dtype dtype, double exponent) {
    switch (dtype) {
    case NT_BFLOAT16:
        return pow_special_NT_BFLOAT16(exponent);
    case NT_FLOAT32:
        return pow_special_NT_FLOAT32(exponent);
    case NT_FLOAT64:
        return pow_special_NT_FLOAT64(exponent);
    default:
        return NULL;
    }
}

/* ------------------------------------------------------------------ clamp */

/* Scalar bounds: std::min(std::max(x, lo), hi), so a NaN x stays NaN (NaN bounds are the
 * caller's: PyTorch fills with NaN when both are given and one is NaN). Tensor bounds
 * propagate NaN from any operand. */
#define CLAMP_KERNELS(E, n, c, CT)                                                                 \
    static inline CT k_clamp_min_##E(CT x, const nt_clamp_bounds *p) {                             \
        CT lo = p->lo.KPX(E);                                                                      \
        return x < lo ? lo : x;                                                                    \
    }                                                                                              \
    static inline CT k_clamp_max_##E(CT x, const nt_clamp_bounds *p) {                             \
        CT hi = p->hi.KPX(E);                                                                      \
        return hi < x ? hi : x;                                                                    \
    }                                                                                              \
    static inline CT k_clamp_both_##E(CT x, const nt_clamp_bounds *p) {                            \
        CT lo = p->lo.KPX(E), hi = p->hi.KPX(E);                                                   \
        CT y = x < lo ? lo : x;                                                                    \
        return hi < y ? hi : y;                                                                    \
    }                                                                                              \
    static inline CT k_clamp_t_##E(CT x, CT lo, CT hi) {                                           \
        return k_minimum_##E(k_maximum_##E(x, lo), hi);                                            \
    }                                                                                              \
    NT_LOOP_UNARY_P(clamp_min_##E, c, c, NT_LD_##E, NT_ST_##E, k_clamp_min_##E, nt_clamp_bounds)   \
    NT_LOOP_UNARY_P(clamp_max_##E, c, c, NT_LD_##E, NT_ST_##E, k_clamp_max_##E, nt_clamp_bounds)   \
    NT_LOOP_UNARY_P(clamp_both_##E, c, c, NT_LD_##E, NT_ST_##E, k_clamp_both_##E, nt_clamp_bounds) \
    NT_LOOP_TERNARY(clamp_t_##E, c, c, c, c, NT_LD_##E, NT_LD_##E, NT_LD_##E, NT_ST_##E,           \
                    k_clamp_t_##E)
#define STAMP_CLAMP(E, n, c) CLAMP_KERNELS(E, n, c, NT_CT_##E)
NT_DTYPES(STAMP_CLAMP)

#define CLAMP_ROW(kind)                                                                            \
    {                                                                                              \
        [NT_BOOL] = clamp_##kind##_NT_BOOL, [NT_UINT8] = clamp_##kind##_NT_UINT8,                  \
        [NT_INT8] = clamp_##kind##_NT_INT8, [NT_INT16] = clamp_##kind##_NT_INT16,                  \
        [NT_INT32] = clamp_##kind##_NT_INT32, [NT_INT64] = clamp_##kind##_NT_INT64,                \
        [NT_FLOAT16] = clamp_##kind##_NT_FLOAT16, [NT_BFLOAT16] = clamp_##kind##_NT_BFLOAT16,      \
        [NT_FLOAT32] = clamp_##kind##_NT_FLOAT32, [NT_FLOAT64] = clamp_##kind##_NT_FLOAT64,        \
    }
static const nt_loop2d clamp_scalar_table[4][NT_DTYPE_COUNT] = {
    [1] = CLAMP_ROW(min), [2] = CLAMP_ROW(max), [3] = CLAMP_ROW(both)};
static const nt_loop2d clamp_tensor_table[NT_DTYPE_COUNT] = CLAMP_ROW(t);

nt_loop2d nt_clamp_scalar_loop(nt_dtype dtype, int which) {
    /* PyTorch 1.13: all types and bfloat16 (no bool, no float16). */
    if (which < 1 || which > 3 || !nt_dtype_valid((int)dtype) || dtype == NT_BOOL ||
        dtype == NT_FLOAT16)
        return NULL;
    return clamp_scalar_table[which][dtype];
}

nt_loop2d nt_clamp_tensor_loop(nt_dtype dtype) {
    /* PyTorch 1.13: all types and bfloat16 (no bool, no float16). */
    if (!nt_dtype_valid((int)dtype) || dtype == NT_BOOL || dtype == NT_FLOAT16) return NULL;
    return clamp_tensor_table[dtype];
}

/* ------------------------------------------------------------------ where */

#define WHERE_LOOPS(E, n, c)                                                                       \
    static inline c k_where_##E(bool cond, c a, c b) {                                             \
        return cond ? a : b;                                                                       \
    }                                                                                              \
    static inline c k_where_u8_##E(uint8_t cond, c a, c b) {                                       \
        return cond ? a : b;                                                                       \
    }                                                                                              \
    NT_LOOP_TERNARY(where_##E, c, nt_bool, c, c, NT_LD_NT_BOOL, NT_LD_ID, NT_LD_ID, NT_ST_ID,      \
                    k_where_##E)                                                                   \
    NT_LOOP_TERNARY(where_u8_##E, c, uint8_t, c, c, NT_LD_ID, NT_LD_ID, NT_LD_ID, NT_ST_ID,        \
                    k_where_u8_##E)
NT_DTYPES(WHERE_LOOPS)
#define WHERE_ENTRY(E, n, c) [E] = where_##E,
#define WHERE_U8_ENTRY(E, n, c) [E] = where_u8_##E,
static const nt_loop2d where_table[NT_DTYPE_COUNT] = {NT_DTYPES(WHERE_ENTRY)};
static const nt_loop2d where_u8_table[NT_DTYPE_COUNT] = {NT_DTYPES(WHERE_U8_ENTRY)};

nt_loop2d nt_where_loop(nt_dtype cond, nt_dtype dtype) {
    if (!nt_dtype_valid((int)dtype)) return NULL;
    if (cond == NT_BOOL) return where_table[dtype];
    if (cond == NT_UINT8) return where_u8_table[dtype];
    return NULL;
}

/* ------------------------------------------------------------------ isclose */

/* PyTorch's isclose: close = a == b, or both NaN with equal_nan, or finite |a - b| <=
 * atol + |rtol * b|, each step rounded to the dtype (R), the tolerances converted to it. */
#define ISCLOSE_FLOAT(E, n, c, CT)                                                                 \
    static inline CT r_##E(CT x) {                                                                 \
        return NT_LD_##E(NT_ST_##E(x));                                                            \
    }                                                                                              \
    static inline bool k_isclose_##E(CT a, CT b, const nt_isclose_params *p) {                     \
        if (a == b) return true;                                                                   \
        if (p->equal_nan && a != a && b != b) return true;                                         \
        if (p->rtol == 0 && p->atol == 0) return false;                                            \
        CT rt = r_##E((CT)p->rtol), at = r_##E((CT)p->atol);                                       \
        CT allowed = r_##E(at + fabs(r_##E(rt * b)));                                              \
        CT actual = fabs(r_##E(a - b));                                                            \
        return isfinite(actual) && actual <= allowed;                                              \
    }                                                                                              \
    NT_LOOP_BINARY_P(isclose_##E, nt_bool, c, c, NT_LD_##E, NT_LD_##E, NT_ST_NT_BOOL,              \
                     k_isclose_##E, nt_isclose_params)
ISCLOSE_FLOAT(NT_FLOAT16, float16, nt_float16, float)
ISCLOSE_FLOAT(NT_BFLOAT16, bfloat16, nt_bfloat16, float)
ISCLOSE_FLOAT(NT_FLOAT32, float32, float, float)
ISCLOSE_FLOAT(NT_FLOAT64, float64, double, double)

/* Integers (and bool): PyTorch converts both to the default float dtype (float32) first. */
#define ISCLOSE_INT(E, n, c)                                                                       \
    static inline bool k_isclose_##E(NT_CT_##E a, NT_CT_##E b, const nt_isclose_params *p) {       \
        return k_isclose_NT_FLOAT32((float)a, (float)b, p);                                        \
    }                                                                                              \
    NT_LOOP_BINARY_P(isclose_##E, nt_bool, c, c, NT_LD_##E, NT_LD_##E, NT_ST_NT_BOOL,              \
                     k_isclose_##E, nt_isclose_params)
ISCLOSE_INT(NT_UINT8, uint8, uint8_t)
ISCLOSE_INT(NT_INT8, int8, int8_t)
ISCLOSE_INT(NT_INT16, int16, int16_t)
ISCLOSE_INT(NT_INT32, int32, int32_t)
ISCLOSE_INT(NT_INT64, int64, int64_t)

ISCLOSE_INT(NT_BOOL, bool, nt_bool)

#define ISCLOSE_ENTRY(E, n, c) [E] = isclose_##E,
static const nt_loop2d isclose_table[NT_DTYPE_COUNT] = {NT_DTYPES(ISCLOSE_ENTRY)};

nt_loop2d nt_isclose_loop(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? isclose_table[dtype] : NULL;
}

/* ------------------------------------------------------------------ zero test */

/* The element size to test and the flag set by any thread that meets a zero. */
typedef struct zero_scan {
    size_t size;
    _Atomic int found;
} zero_scan;

static void any_zero_loop(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {
    zero_scan *z = ctx;
    const char *p = data[0];
    for (int64_t j = 0; j < m; j++, p += st[1]) {
        for (int64_t i = 0; i < n; i++) {
            const char *e = p + i * st[0];
            bool zero;
            switch (z->size) {
            case 1:
                zero = *(const uint8_t *)e == 0;
                break;
            case 2:
                zero = *(const uint16_t *)e == 0;
                break;
            case 4:
                zero = *(const uint32_t *)e == 0;
                break;
            default:
                zero = *(const uint64_t *)e == 0;
                break;
            }
            if (zero) {
                z->found = 1;
                return;
            }
        }
    }
}

bool nt_any_zero(const nt_tensor *t) {
    zero_scan z = {nt_dtype_table[t->dtype].size, 0};
    nt_iter_config cfg = {.noutputs = 0, .check_mem_overlap = false};
    nt_iter it;
    nt_tensor *ops[1] = {(nt_tensor *)t};
    if (nt_iter_build(&it, 1, ops, &cfg) != NT_OK) return false;
    nt_iter_run(&it, any_zero_loop, &z);
    return z.found != 0;
}

/* ------------------------------------------------------------------ threshold */

/* x <= threshold ? value : x (a NaN x stays), parameters in the compute type. */
#define THRESHOLD_KERNELS(E, n, c, CT)                                                             \
    static inline CT k_threshold_##E(CT x, const nt_threshold_params *p) {                         \
        return x <= p->threshold.KPX(E) ? p->value.KPX(E) : x;                                     \
    }                                                                                              \
    NT_LOOP_UNARY_P(threshold_##E, c, c, NT_LD_##E, NT_ST_##E, k_threshold_##E, nt_threshold_params)
#define STAMP_THRESHOLD(E, n, c) THRESHOLD_KERNELS(E, n, c, NT_CT_##E)
NT_DTYPES(STAMP_THRESHOLD)

/* PyTorch 1.13: all types and bfloat16 (no bool, no float16). */
static const nt_loop2d threshold_table[NT_DTYPE_COUNT] = {
    [NT_UINT8] = threshold_NT_UINT8,     [NT_INT8] = threshold_NT_INT8,
    [NT_INT16] = threshold_NT_INT16,     [NT_INT32] = threshold_NT_INT32,
    [NT_INT64] = threshold_NT_INT64,     [NT_BFLOAT16] = threshold_NT_BFLOAT16,
    [NT_FLOAT32] = threshold_NT_FLOAT32, [NT_FLOAT64] = threshold_NT_FLOAT64,
};

nt_loop2d nt_threshold_loop(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? threshold_table[dtype] : NULL;
}

/* ------------------------------------------------------------------ addcmul, addcdiv */

/* self + value * t1 * t2 and self + value * t1 / t2, evaluated left to right as PyTorch
 * does; bfloat16 rounds after each step (PyTorch computes in BFloat16 itself). */
#define ROUND_NT_BFLOAT16(x) nt_bf16_to_f32(nt_f32_to_bf16(x))
#define ROUND_NT_FLOAT32(x) (x)
#define ROUND_NT_FLOAT64(x) (x)
#define ADDC_FLOAT(E, c, CT)                                                                       \
    static inline CT k_addcmul_##E(CT s, CT a, CT b, const nt_kparam *v) {                         \
        return ROUND_##E(ROUND_##E(ROUND_##E(v->KPX(E) * a) * b) + s);                             \
    }                                                                                              \
    static inline CT k_addcdiv_##E(CT s, CT a, CT b, const nt_kparam *v) {                         \
        return ROUND_##E(ROUND_##E(ROUND_##E(v->KPX(E) * a) / b) + s);                             \
    }                                                                                              \
    NT_LOOP_TERNARY_P(addcmul_##E, c, c, c, c, NT_LD_##E, NT_LD_##E, NT_LD_##E, NT_ST_##E,         \
                      k_addcmul_##E, nt_kparam)                                                    \
    NT_LOOP_TERNARY_P(addcdiv_##E, c, c, c, c, NT_LD_##E, NT_LD_##E, NT_LD_##E, NT_ST_##E,         \
                      k_addcdiv_##E, nt_kparam)
ADDC_FLOAT(NT_BFLOAT16, nt_bfloat16, float)
ADDC_FLOAT(NT_FLOAT32, float, float)
ADDC_FLOAT(NT_FLOAT64, double, double)

/* Integers wrap (addcdiv refuses integer divisions before reaching a loop). */
#define ADDC_INT(E, c)                                                                             \
    static inline c k_addcmul_##E(c s, c a, c b, const nt_kparam *v) {                             \
        return (c)((UT_##E)v->KPX(E) * (UT_##E)a * (UT_##E)b + (UT_##E)s);                         \
    }                                                                                              \
    NT_LOOP_TERNARY_P(addcmul_##E, c, c, c, c, NT_LD_ID, NT_LD_ID, NT_LD_ID, NT_ST_ID,             \
                      k_addcmul_##E, nt_kparam)
ADDC_INT(NT_UINT8, uint8_t)
ADDC_INT(NT_INT8, int8_t)
ADDC_INT(NT_INT16, int16_t)
ADDC_INT(NT_INT32, int32_t)
ADDC_INT(NT_INT64, int64_t)

/* PyTorch 1.13: all types and bfloat16 (no bool, no float16). */
static const nt_loop2d addcmul_table[NT_DTYPE_COUNT] = {
    [NT_UINT8] = addcmul_NT_UINT8,     [NT_INT8] = addcmul_NT_INT8,
    [NT_INT16] = addcmul_NT_INT16,     [NT_INT32] = addcmul_NT_INT32,
    [NT_INT64] = addcmul_NT_INT64,     [NT_BFLOAT16] = addcmul_NT_BFLOAT16,
    [NT_FLOAT32] = addcmul_NT_FLOAT32, [NT_FLOAT64] = addcmul_NT_FLOAT64,
};
static const nt_loop2d addcdiv_table[NT_DTYPE_COUNT] = {
    [NT_BFLOAT16] = addcdiv_NT_BFLOAT16,
    [NT_FLOAT32] = addcdiv_NT_FLOAT32,
    [NT_FLOAT64] = addcdiv_NT_FLOAT64,
};

nt_loop2d nt_addcmul_loop(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? addcmul_table[dtype] : NULL;
}

nt_loop2d nt_addcdiv_loop(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? addcdiv_table[dtype] : NULL;
}

/* ------------------------------------------------------------------ lerp */

/* PyTorch 1.13's lerp: self + w * (end - self) for w < 0.5, else end - (end - self) * (1 - w),
 * in the compute type (float for bfloat16), each multiply-add rounded once as PyTorch's
 * kernels (compiled with FMA contraction) do. */
#define LERP_KERNELS(E, c, CT)                                                                     \
    static inline CT k_lerp_##E(CT s, CT e, CT w) {                                                \
        return w < (CT)0.5 ? fma(w, e - s, s) : fma(-(e - s), (CT)1 - w, e);                       \
    }                                                                                              \
    static inline CT k_lerp_s_##E(CT s, CT e, const nt_kparam *w) {                                \
        return k_lerp_##E(s, e, w->KPX(E));                                                        \
    }                                                                                              \
    NT_LOOP_TERNARY(lerp_t_##E, c, c, c, c, NT_LD_##E, NT_LD_##E, NT_LD_##E, NT_ST_##E,            \
                    k_lerp_##E)                                                                    \
    NT_LOOP_BINARY_P(lerp_s_##E, c, c, c, NT_LD_##E, NT_LD_##E, NT_ST_##E, k_lerp_s_##E, nt_kparam)
LERP_KERNELS(NT_BFLOAT16, nt_bfloat16, float)
LERP_KERNELS(NT_FLOAT32, float, float)
LERP_KERNELS(NT_FLOAT64, double, double)

/* PyTorch 1.13: bfloat16, float32, float64. */
nt_loop2d nt_lerp_loop(nt_dtype dtype, bool tensor_weight) {
    switch (dtype) {
    case NT_BFLOAT16:
        return tensor_weight ? lerp_t_NT_BFLOAT16 : lerp_s_NT_BFLOAT16;
    case NT_FLOAT32:
        return tensor_weight ? lerp_t_NT_FLOAT32 : lerp_s_NT_FLOAT32;
    case NT_FLOAT64:
        return tensor_weight ? lerp_t_NT_FLOAT64 : lerp_s_NT_FLOAT64;
    default:
        return NULL;
    }
}
