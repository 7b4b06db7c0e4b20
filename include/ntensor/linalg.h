/*
 * ntensor/linalg.h — the matrix products: mm, mv, dot, bmm, matmul, addmm, addmv.
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
/* PyTorch 1.13's mm, mv, dot, bmm, matmul, addmm, addmv: float32/float64 through CBLAS
 * (OpenBLAS), the integer dtypes and bfloat16 through our own loops (bool and float16 fail
 * as in PyTorch: "\"addmm_impl_cpu_\" not implemented for 'Half'"). Names contract away
 * dims (mm: (a[-2], b[-1]); matmul: batch dims unified); dot's result is unnamed. The _out
 * forms write into `out`, which must have the result's dtype; an out of another shape is
 * resized as PyTorch resizes it (with its deprecation warning, nt_take_warning, when it had
 * elements; a named one refuses); an unnamed out takes the computed names, a named one must
 * match them (checked only when some input is named, except bmm, as PyTorch does). Every
 * function here fills a call record (ntensor/call.h: NT_OP_MM, ...) for the dispatcher. */
NT_API nt_status nt_mm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_mm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* Matrix (n x m) times vector (m). */
NT_API nt_status nt_mv(const nt_tensor *mat, const nt_tensor *vec, nt_tensor **out);
NT_API nt_status nt_mv_out(nt_tensor *out, const nt_tensor *mat, const nt_tensor *vec);
/* Inner product of two 1-d tensors of one dtype: a 0-dim tensor. */
NT_API nt_status nt_dot(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_dot_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* Batched mm of (B, n, m) and (B, m, p); the result has b's dtype. */
NT_API nt_status nt_bmm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_bmm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* torch.matmul: dot, mv, mm, or a batched product with broadcast batch dims (x @ y). */
NT_API nt_status nt_matmul(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_matmul_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape; beta 0
 * ignores self (NaN included). Integer dtypes truncate beta and alpha, as PyTorch does. */
NT_API nt_status nt_addmm(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2,
                          nt_scalar beta, nt_scalar alpha, nt_tensor **out);
NT_API nt_status nt_addmm_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat1,
                              const nt_tensor *mat2, nt_scalar beta, nt_scalar alpha);
/* In place: self must have the product's shape and dtype; it takes the computed names. */
NT_API nt_status nt_addmm_(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2,
                           nt_scalar beta, nt_scalar alpha);
/* beta * self + alpha * (mat @ vec); the result has vec's dtype. */
NT_API nt_status nt_addmv(nt_tensor *self, const nt_tensor *mat, const nt_tensor *vec,
                          nt_scalar beta, nt_scalar alpha, nt_tensor **out);
NT_API nt_status nt_addmv_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat,
                              const nt_tensor *vec, nt_scalar beta, nt_scalar alpha);
NT_API nt_status nt_addmv_(nt_tensor *self, const nt_tensor *mat, const nt_tensor *vec,
                           nt_scalar beta, nt_scalar alpha);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_LINALG_H */
