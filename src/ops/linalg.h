/*
 * linalg.h — what the files of the matrix products share (layer L4). The products: mm and
 * addmm (linalg_mm.c), mv, addmv and dot (linalg_mv.c), bmm (linalg_bmm.c) and matmul
 * (linalg_matmul.c), with their in-place and out= forms and the "contracts away dims" name
 * rule; PyTorch's checks, alpha/beta, matrices and destinations are in linalg_common.c.
 *
 * Each op follows PyTorch 1.13 step by step, because its error texts and even its rounding
 * depend on the path: validate (ranks, shapes, in PyTorch's order and words) -> names
 * (names/infer.h) -> the out= / in-place checks -> the empty shortcuts -> dtype dispatch
 * (whose errors PyTorch raises only when it computes) -> kernels/gemm.c.
 *
 * Results are always computed into a row-major destination: a fresh tensor, or the out= /
 * in-place tensor itself when it is contiguous and shares no memory with the operands
 * (otherwise a temporary that is copied into it at the end). float32/float64 operands whose
 * matrices are row- or column-major go to BLAS as they are (the transpose flags replace
 * copies); any other layout is copied to contiguous first. Integer and bfloat16 loops take
 * any strides.
 *
 * matmul dispatches like PyTorch's _matmul_impl: dot, mv, mm for ranks up to two; a
 * batched operand against a vector or matrix is folded into one mm/mv (one big GEMM instead
 * of many small ones), and the rest goes through bmm with the batch dims broadcast (stride
 * 0, never materialised unless BLAS needs a copy).
 *
 * An out= tensor of another shape is resized as PyTorch resizes it (ops/out.h), at the point
 * of PyTorch's path where it does (after the dtype check for the structured kernels, before
 * it in dot and matmul's batched paths). Deliberate difference from PyTorch
 * (docs/decisions_ops_linalg.md): results are always contiguous.
 */
#ifndef NT_OPS_LINALG_H
#define NT_OPS_LINALG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/scalar.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "kernels/gemm.h"
#include "ops/out.h"

/* A matrix as the kernels see it: element pointer, sizes and element strides; in a batch of
 * matrices, bs elements from one to the next (and in a two-level batch, bo elements from one
 * group of them to the next). */
typedef struct nt_la_mat {
    char *data;
    int64_t rows, cols, rs, cs, bs, bo;
} nt_la_mat;

/* Returns PyTorch's "argument ... must be Tensor, not NULL" from a public entry point. */
#define NT_REQUIRE(fn, x, name)                                                                    \
    do {                                                                                           \
        if (!(x)) return nt_fail_null_tensor(fn, name);                                            \
    } while (0)

/* PyTorch's AT_DISPATCH error: the products support every dtype but bool and float16. */
nt_status nt_la_check_dispatch(const char *kernel, nt_dtype dtype);

/* data_ptr<scalar_t>()'s error for an operand of another dtype. */
nt_status nt_la_check_same(nt_dtype expected, nt_dtype found);

/* "Expected out tensor to have dtype float, but got double". */
nt_status nt_la_check_out_dtype(const nt_tensor *out, nt_dtype expected);

/* The structured-kernel check of an in-place call (shape, then dtype). */
nt_status nt_la_check_inplace(const nt_tensor *self, int ndim, const int64_t *sizes,
                              nt_dtype dtype);

/* alpha/beta converted as PyTorch's Scalar::to<T>() does for the kernels of `dtype`
 * (checked: "value cannot be converted to type int8_t without overflow"). */
nt_status nt_la_make_scalars(nt_dtype dtype, nt_scalar beta, nt_scalar alpha, nt_gemm_scalars *s);

/* alpha 1 and beta 0, as make_scalars gives them for every dtype. */
nt_gemm_scalars nt_la_plain_scalars(void);

/* The matrix of dims (d0, d1) of t (bs 0). */
nt_la_mat nt_la_mat_of(const nt_tensor *t, int d0, int d1);

/* The batch of matrices of a 3-d t: dims (1, 2), one per index of dim 0. */
nt_la_mat nt_la_batch_of(const nt_tensor *t);

/* max(x, 1): a leading dimension BLAS accepts. */
int64_t nt_la_max1(int64_t x);

/* C = beta*C + alpha*(A @ B) for `batch` matrices (C row-major: unit column stride).
 * `small_bmm`: PyTorch's small bmm kernel (float sums in order of k). bfloat16 accumulates
 * in float32 and rounds once, through a float32 copy of the operands (so it may fail for
 * want of memory). */
nt_status nt_la_gemm(nt_dtype dtype, int64_t batch, const nt_la_mat *c, const nt_la_mat *a,
                     const nt_la_mat *b, const nt_gemm_scalars *s, bool small_bmm);

/* The same over a two-level batch: `outer` groups (bo apart) of `inner` matrices (bs apart). */
nt_status nt_la_gemm2(nt_dtype dtype, int64_t outer, int64_t inner, const nt_la_mat *c,
                      const nt_la_mat *a, const nt_la_mat *b, const nt_gemm_scalars *s,
                      bool small_bmm);

/* For float32/float64 BLAS: `t` itself when the matrices of its last two dims are row- or
 * column-major, else a contiguous copy (what PyTorch does). *owned gets the copy. */
nt_status nt_la_blas_operand(const nt_tensor *t, const nt_tensor **use, nt_tensor **owned);

/* Scales dst (contiguous) by beta, in its dtype: PyTorch's `result.mul_(beta)` of an empty
 * contraction. */
void nt_la_scale_into(nt_tensor *dst, const nt_gemm_scalars *s);

/* Where a product writes: `out` itself when it is contiguous and shares no memory with the
 * operands, else a fresh contiguous tensor of its shape and dtype. */
nt_status nt_la_pick_dest(nt_tensor *out, const nt_tensor *x, const nt_tensor *y, nt_tensor **dst);

/* Copies dst into out when they differ, and releases dst. */
nt_status nt_la_finish_dest(nt_tensor *out, nt_tensor *dst, nt_status st);

/* mm's rank and shape checks, in PyTorch's order and words. */
nt_status nt_la_mm_check_shapes(const nt_tensor *a, const nt_tensor *b);
/* mm's size check of (a[0] x a[1]) @ (b[0] x b[1]), with its text */
nt_status nt_la_mm_check_sizes(const int64_t *a, const int64_t *b);
/* addmv's shape checks: mv (bias NULL, PyTorch's 1-d result as self) and addmv */
nt_status nt_la_addmv_check(int self_ndim, int64_t self_size0, int64_t self_numel,
                            const nt_tensor *mat_, const nt_tensor *vec);
nt_status nt_la_addmv_check_sizes(int self_ndim, int64_t self_size0, int64_t self_numel,
                                  int mat_ndim, const int64_t *mat_sizes, int vec_ndim,
                                  const int64_t *vec_sizes);
/* dot's checks of two vectors (ranks, dtypes, sizes) */
nt_status nt_la_dot_check(const nt_tensor *a, const nt_tensor *b);
/* The shape rule of addmm/addmv: the product's shape (ndim, sizes), which self must have in
 * place and into which it must expand. */
nt_status nt_la_bias_shape(const nt_tensor *bias, int ndim, const int64_t *sizes, nt_dtype dtype,
                           bool inplace, nt_shape *s);

/* mm of checked shapes, whose result gets `names` (NULL: none). */
nt_status nt_la_mm_named(const nt_tensor *a, const nt_tensor *b, nt_tensor *out, nt_tensor **result,
                         const nt_name *names);

/* mm(a, b) [into out]: PyTorch's mm meta then addmm_impl_cpu_(result, result, a, b, 0, 1). */
nt_status nt_la_mm_impl(const nt_tensor *a, const nt_tensor *b, nt_tensor *out, nt_tensor **result);

/* mv(mat, vec) [into out]: addmv with beta 0 into PyTorch's fresh 1-d result. */
nt_status nt_la_mv_impl(const nt_tensor *mat_, const nt_tensor *vec, nt_tensor *out,
                        nt_tensor **result);

/* dot(a, b) [into out]: the 0-d sum of products of two 1-d tensors. */
nt_status nt_la_dot_impl(const nt_tensor *a, const nt_tensor *b, nt_tensor *out,
                         nt_tensor **result);

/* Multiplies the batches of a (B, n, m) and b (B, m, p) into dst (B, n, p), contiguous:
 * PyTorch's bmm_out_or_baddbmm_ (its small kernel below 400 multiply-adds per matrix,
 * else one GEMM per batch). Validation is the caller's. 4-d operands (B1, B2, ., .) are a
 * two-level batch: matmul's batch dims that do not merge into one stride, read in place. */
nt_status nt_la_bmm_compute(nt_tensor *dst, const nt_tensor *a, const nt_tensor *b);

/* ---- the public functions: a call record through the dispatcher ---- */

/* Runs c and hands back its tensor: into *result, or released when result is NULL (the
 * out= and in-place forms, whose result is the written tensor). */
static inline nt_status nt_la_run(nt_call *c, nt_tensor **result) {
    nt_status st = nt_dispatch(c);
    if (st != NT_OK) return st;
    if (result)
        *result = c->result[0];
    else
        nt_tensor_release(c->result[0]);
    return NT_OK;
}

/* op(a, b) [into out]. */
static inline nt_status nt_la_product(nt_op op, const nt_tensor *a, const nt_tensor *b,
                                      nt_tensor *out, nt_tensor **result) {
    nt_call c;
    nt_call_init(&c, op);
    c.out[0] = out;
    c.args[0] = nt_arg_tensor((nt_tensor *)a);
    c.args[1] = nt_arg_tensor((nt_tensor *)b);
    return nt_la_run(&c, result);
}

/* op(self, m1, m2, beta=, alpha=) [into out, or in place]. */
static inline nt_status nt_la_addproduct(nt_op op, nt_tensor *self, const nt_tensor *m1,
                                         const nt_tensor *m2, nt_scalar beta, nt_scalar alpha,
                                         nt_tensor *out, bool inplace, nt_tensor **result) {
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.out[0] = out;
    c.args[0] = nt_arg_tensor(self);
    c.args[1] = nt_arg_tensor((nt_tensor *)m1);
    c.args[2] = nt_arg_tensor((nt_tensor *)m2);
    c.args[3] = nt_arg_scalar(beta);
    c.args[4] = nt_arg_scalar(alpha);
    return nt_la_run(&c, result);
}

/* Slot i of c as a scalar: beta= and alpha= default to 1. */
static inline nt_scalar nt_la_scalar_arg(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_SCALAR ? c->args[i].v.s : nt_scalar_int(1);
}

#endif
