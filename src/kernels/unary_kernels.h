/*
 * unary_kernels.h — the op table of the pointwise unary family (layer L3): for each op its
 * name, the kernel name PyTorch prints when a dtype is unsupported, its dtype rule and
 * one nt_loop2d per supported dtype.
 *
 * A loop reads operand 1 and writes operand 0, both of the op's compute dtype (the loop's
 * index in `loops`), except NT_UNARY_TO_BOOL ops, which write bool. The ops layer
 * (ops/unary.c) converts inputs to the compute dtype and outputs from it; loops never
 * fail and never allocate. Float32 and float64 transcendentals run through SLEEF
 * (sleef_loops.h); bfloat16 and float16 are computed in float, a chunk at a time.
 */
#ifndef NT_KERNELS_UNARY_KERNELS_H
#define NT_KERNELS_UNARY_KERNELS_H

#include <stdbool.h>

#include "core/dtype.h"
#include "iter/iter.h"
#include "names/infer.h"

/* The table's rows: the public ops (nt_unary_op, ntensor.h), then round(decimals=d) for
 * d != 0, whose loops take a `const nt_round_ctx *` as ctx, and for d = 0 (PyTorch's
 * round.decimals overload: round's kernel without its integer shortcut). */
#define NT_UNARY_ROUND_DECIMALS NT_UNARY_OP_COUNT
#define NT_UNARY_ROUND_DECIMALS0 (NT_UNARY_OP_COUNT + 1)
#define NT_UNARY_TABLE_SIZE (NT_UNARY_OP_COUNT + 2)

/* How an op's result dtype follows from its input's (PyTorch 1.13's rules). */
typedef enum nt_unary_kind {
    NT_UNARY_SAME,     /* the input's dtype; an out= tensor must have exactly that dtype */
    NT_UNARY_FLOATING, /* integers and bool compute in the default float dtype; an out=
                          tensor may be any floating dtype (the result is cast to it) */
    NT_UNARY_TO_BOOL,  /* a bool result; an out= tensor may have any dtype */
} nt_unary_kind;

typedef struct nt_unary_def {
    const char *name;       /* "exp" */
    const char *kernel;     /* "exp_vml_cpu", for "\"exp_vml_cpu\" not implemented for 'Half'" */
    const char *bool_error; /* non-NULL: a bool input fails with this text before anything */
    nt_name_rule name_rule; /* NT_NAME_RULE_KEEP for all of them */
    nt_unary_kind kind;
    nt_loop2d loops[NT_DTYPE_COUNT]; /* by compute dtype; NULL: not implemented */
} nt_unary_def;

extern const nt_unary_def nt_unary_defs[NT_UNARY_TABLE_SIZE];

/* round(decimals=d), as PyTorch computes it in the element type itself (bfloat16
 * arithmetic rounds after each step): with s = 10^|d| in that type, rint(x * s) / s for
 * d > 0 and rint(x / s) * s for d < 0. */
typedef struct nt_round_ctx {
    double scale64;
    float scale32;
    float scale_bf16; /* s rounded to bfloat16 */
    bool negative;
} nt_round_ctx;

/* The scalar special functions behind erfinv and digamma (float and double versions
 * computed in their own precision, as PyTorch does), exposed for tests. */
float nt_erfinv_f32(float y);
double nt_erfinv_f64(double y);
float nt_digamma_f32(float x);
double nt_digamma_f64(double x);

#endif
