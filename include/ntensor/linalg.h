/**
 * @file
 * ntensor/linalg.h — the matrix products (mm, mv, dot, bmm, matmul, addmm, addmv), the
 * distances cdist and pdist, and max pooling.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_LINALG_H
#define NTENSOR_LINALG_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ matrix products */
/** PyTorch 1.13's mm, mv, dot, bmm, matmul, addmm, addmv: float32/float64 through CBLAS
 * (OpenBLAS), the integer dtypes and bfloat16 through our own loops (bool and float16 fail
 * as in PyTorch: "\"addmm_impl_cpu_\" not implemented for 'Half'"). Names contract away
 * dims (mm: (a[-2], b[-1]); matmul: batch dims unified); dot's result is unnamed. The _out
 * forms write into `out`, which must have the result's dtype; an out of another shape is
 * resized as PyTorch resizes it (with its deprecation warning, nt_take_warning, when it had
 * elements; a named one refuses); an unnamed out takes the computed names, a named one must
 * match them (checked only when some input is named, except bmm, as PyTorch does). Every
 * function here fills a call record (ntensor/call.h: NT_OP_MM, ...) for the dispatcher. */
NT_API nt_status nt_mm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
/** mm into `out` (see the out= rules above). */
NT_API nt_status nt_mm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/** Matrix (n x m) times vector (m). */
NT_API nt_status nt_mv(const nt_tensor *mat, const nt_tensor *vec, nt_tensor **out);
/** mv into `out`. */
NT_API nt_status nt_mv_out(nt_tensor *out, const nt_tensor *mat, const nt_tensor *vec);
/** Inner product of two 1-d tensors of one dtype: a 0-dim tensor. */
NT_API nt_status nt_dot(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
/** dot into `out`. */
NT_API nt_status nt_dot_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/** Batched mm of (B, n, m) and (B, m, p); the result has b's dtype. */
NT_API nt_status nt_bmm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
/** torch.einsum over `count` tensors: PyTorch's equation ('ij,jk->ik'), or ours with
 * space-separated names ('N C, C D -> N D': named operands' dims taken by name, the result
 * named). Each pair of operands is one bmm. (src/ops/einsum.c) */
NT_API nt_status nt_einsum(const char *equation, int count, nt_tensor *const *tensors,
                           nt_tensor **out);
/** bmm into `out`. */
NT_API nt_status nt_bmm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/** torch.matmul: dot, mv, mm, or a batched product with broadcast batch dims (x \@ y). */
NT_API nt_status nt_matmul(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
/** matmul into `out`. */
NT_API nt_status nt_matmul_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/** beta * self + alpha * (mat1 \@ mat2), self broadcast to the product's shape; beta 0
 * ignores self (NaN included). Integer dtypes truncate beta and alpha, as PyTorch does. */
NT_API nt_status nt_addmm(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2,
                          nt_scalar beta, nt_scalar alpha, nt_tensor **out);
/** addmm into `out`. */
NT_API nt_status nt_addmm_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat1,
                              const nt_tensor *mat2, nt_scalar beta, nt_scalar alpha);
/** In place: self must have the product's shape and dtype; it takes the computed names. */
NT_API nt_status nt_addmm_(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2,
                           nt_scalar beta, nt_scalar alpha);
/** beta * self + alpha * (mat \@ vec); the result has vec's dtype. */
NT_API nt_status nt_addmv(nt_tensor *self, const nt_tensor *mat, const nt_tensor *vec,
                          nt_scalar beta, nt_scalar alpha, nt_tensor **out);
/** addmv into `out`. */
NT_API nt_status nt_addmv_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat,
                              const nt_tensor *vec, nt_scalar beta, nt_scalar alpha);
/** addmv in place: self must have the product's shape and dtype. */
NT_API nt_status nt_addmv_(nt_tensor *self, const nt_tensor *mat, const nt_tensor *vec,
                           nt_scalar beta, nt_scalar alpha);

/* ------------------------------------------------------------------ distances */
/** torch.cdist(x1, x2, p, compute_mode): the p-norm distances of the rows of x1 (..., P, M)
 * and x2 (..., R, M), batch dims broadcast, as (..., P, R); float32/float64. compute_mode
 * -1 is None (PyTorch's 0, 1, 2 are accepted; results are always computed directly). Names:
 * the batch dims unified, then x1's and x2's row dims. */
NT_API nt_status nt_cdist(const nt_tensor *x1, const nt_tensor *x2, double p, int64_t compute_mode,
                          nt_tensor **out);
/** torch.pdist(input, p): the distances of the pairs of rows i < j of a 2-d input, 1-d and
 * unnamed. */
NT_API nt_status nt_pdist(const nt_tensor *input, double p, nt_tensor **out);

/* ------------------------------------------------------------------ pooling */
/** torch.max_pool1d / max_pool2d / max_pool3d (dims 1, 2, 3; indices NULL) and their
 * _with_indices forms (indices not NULL: int64 flat indices within each input plane): max
 * pooling over the last `dims` dims of input, with PyTorch's list arguments (each of one
 * entry or `dims` entries; no stride means kernel_size, no padding 0, no dilation 1) and
 * its texts. float32,
 * float64 and bfloat16 (3-d: float32 and float64). Every name is kept. */
NT_API nt_status nt_max_pool(int dims, const nt_tensor *input, int nkernel,
                             const int64_t *kernel_size, int nstride, const int64_t *stride,
                             int npadding, const int64_t *padding, int ndilation,
                             const int64_t *dilation, bool ceil_mode, nt_tensor **out,
                             nt_tensor **indices);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_LINALG_H */
