/*
 * binary_kernels.h — the inner loops of the pointwise binary family (layer L3): arithmetic,
 * division with rounding, remainder, pow, atan2, maximum/minimum, comparisons, bitwise and
 * logical ops, plus where, clamp and isclose.
 *
 * Every loop is stamped from a scalar kernel by loops.h and indexed by the *compute* dtype
 * (the promoted dtype the op runs in); a NULL entry means PyTorch has no kernel for that
 * dtype. Inputs are in the compute dtype; the output is the compute dtype, or bool for the
 * comparisons, logical ops and isclose. Loops never fail: the callers check integer
 * division by zero and negative integer exponents before running them.
 */
#ifndef NT_KERNELS_BINARY_KERNELS_H
#define NT_KERNELS_BINARY_KERNELS_H

#include "kernels/loops.h"
#include "ntensor/call.h"

/* One value in a dtype's compute type (loops.h's NT_CT_*), for kernel parameters. */
typedef union nt_kparam {
    bool b;
    uint8_t u8;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f;
    double d;
} nt_kparam;

/* `s` converted to dtype's compute type with PyTorch's scalar conversion. */
nt_kparam nt_kparam_make(nt_dtype dtype, nt_scalar s);

/* The three loops of one op and dtype (loops.h's NAME, NAME_s, NAME_r): tensor op tensor,
 * tensor op scalar, scalar op tensor. The scalar sits at nt_binary_ctx.scalar as one
 * element of the compute dtype. */
typedef struct nt_binary_loops {
    nt_loop2d tt, ts, st;
} nt_binary_loops;

/* The loops of op `op` (an op id of ntensor/call.h) in compute dtype `dtype`, or NULL when
 * PyTorch has no such kernel (or the op is not a binary op). */
const nt_binary_loops *nt_binary_kernel(nt_op op, nt_dtype dtype);

/* a + alpha * b: nt_binary_ctx.params points to an nt_kparam (alpha in compute type). */
const nt_binary_loops *nt_binary_add_alpha_kernel(nt_dtype dtype);

/* A faster loop for float `x ** exponent` with a scalar exponent PyTorch special-cases
 * (2, 3, 0.5, -0.5, -1, -2), operands (out, x); NULL otherwise. ctx unused. */
nt_loop2d nt_pow_scalar_special_loop(nt_dtype dtype, double exponent);

/* clamp with scalar bounds, operands (out, x); ctx points to the bounds. */
typedef struct nt_clamp_bounds {
    nt_kparam lo, hi;
} nt_clamp_bounds;
/* The loop (ctx: an nt_clamp_bounds).
 * which: 1 min only, 2 max only, 3 both. NULL for dtypes PyTorch refuses. */
nt_loop2d nt_clamp_scalar_loop(nt_dtype dtype, int which);
/* clamp with both bounds tensors, operands (out, x, min, max); NaN bounds propagate. */
nt_loop2d nt_clamp_tensor_loop(nt_dtype dtype);

/* where: operands (out, cond, a, b); cond is bool or uint8, a/b/out of `dtype`. */
nt_loop2d nt_where_loop(nt_dtype cond, nt_dtype dtype);

/* isclose, operands (out bool, a, b) of `dtype`; ctx is an nt_binary_ctx whose params
 * point to nt_isclose_params. PyTorch's formula, with its rounding to the dtype at each
 * step (for integers the tolerance is computed in float32). */
typedef struct nt_isclose_params {
    double rtol, atol;
    bool equal_nan;
} nt_isclose_params;
nt_loop2d nt_isclose_loop(nt_dtype dtype);

/* threshold, operands (out, x) of `dtype`: x <= threshold ? value : x; ctx points to the
 * parameters (in the compute type). NULL for dtypes PyTorch refuses (bool, float16). */
typedef struct nt_threshold_params {
    nt_kparam threshold, value;
} nt_threshold_params;
nt_loop2d nt_threshold_loop(nt_dtype dtype);

/* addcmul (self + value * t1 * t2) and addcdiv (self + value * t1 / t2), operands (out,
 * self, t1, t2) of `dtype`; ctx points to value, an nt_kparam. NULL for dtypes PyTorch
 * refuses (addcmul: bool, float16; addcdiv: also the integers). */
nt_loop2d nt_addcmul_loop(nt_dtype dtype);
nt_loop2d nt_addcdiv_loop(nt_dtype dtype);

/* lerp of `dtype`: with a tensor weight, operands (out, self, end, weight), ctx unused; with a
 * scalar weight, operands (out, self, end) and ctx an nt_binary_ctx whose params point to
 * the weight (an nt_kparam). NULL for dtypes PyTorch refuses (all but bfloat16, float32,
 * float64). */
nt_loop2d nt_lerp_loop(nt_dtype dtype, bool tensor_weight);

/* True when any element of the integer tensor t is zero (for PyTorch's
 * "ZeroDivisionError" of integer division and remainder). */
bool nt_any_zero(const nt_tensor *t);

#endif
