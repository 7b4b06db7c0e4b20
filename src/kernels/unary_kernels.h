/*
 * unary_kernels.h — the loops of the pointwise unary ops (layer L3), indexed by op id and
 * compute dtype: nt_unary_loops[op][dtype].
 *
 * A loop reads operand 1 and writes operand 0, both of the op's compute dtype, except the
 * ops with a bool result (logical_not), which write bool. What an op is (its dtype rule, its
 * names, PyTorch's kernel name) is the op table's (ops/op_table.h); the ops layer
 * (ops/unary.c) converts inputs to the compute dtype and outputs from it. Loops never fail
 * and never allocate. Float32 and float64 transcendentals run through SLEEF
 * (sleef_loops.h); bfloat16 and float16 are computed in float, a chunk at a time.
 */
#ifndef NT_KERNELS_UNARY_KERNELS_H
#define NT_KERNELS_UNARY_KERNELS_H

#include <stdbool.h>

#include "core/dtype.h"
#include "iter/iter.h"
#include "ntensor/call.h"

/* One loop per (op, compute dtype); NULL: the op does not support the dtype. The row of
 * NT_OP_ROUND_DECIMALS takes a `const nt_round_ctx *` as ctx (d != 0); for d = 0 round's
 * kernel without its integer shortcut is nt_round_decimals0_loops. */
extern const nt_loop2d nt_unary_loops[NT_OP_COUNT][NT_DTYPE_COUNT];
extern const nt_loop2d nt_round_decimals0_loops[NT_DTYPE_COUNT];
/* polygamma: NT_OP_POLYGAMMA's loops compute n >= 2 (ctx: a `const int64_t *`, n); n = 1 is
 * nt_trigamma_loops, n = 0 digamma's. */
extern const nt_loop2d nt_trigamma_loops[NT_DTYPE_COUNT];

/* round(decimals=d), as PyTorch computes it in the element type itself (bfloat16
 * arithmetic rounds after each step): with s = 10^|d| in that type, rint(x * s) / s for
 * d > 0 and rint(x / s) * s for d < 0. */
typedef struct nt_round_ctx {
    double scale64;
    float scale32;
    float scale_bf16; /* s rounded to bfloat16 */
    bool negative;
} nt_round_ctx;

/* The scalar special functions behind erfinv, digamma and polygamma (float and double versions
 * computed in their own precision, as PyTorch does), exposed for tests. */
float nt_erfinv_f32(float y);
double nt_erfinv_f64(double y);
float nt_digamma_f32(float x);
double nt_digamma_f64(double x);
float nt_trigamma_f32(float x);
double nt_trigamma_f64(double x);
float nt_polygamma_f32(int64_t n, float x);
double nt_polygamma_f64(int64_t n, double x);

#endif
