/*
 * gemm.h — the inner loops of the matrix products (layer L3): oneDNN's sgemm for float32,
 * OpenBLAS for float64, gemv and dot, and our own loops for tiny products and integers.
 *
 * Operands are described by a base pointer and element strides (a matrix: rs along its
 * rows' index, cs along its columns'; a vector: inc). The ops layer (ops/linalg_*.c) does
 * all validation and chooses layouts; these functions never fail and never allocate (a few
 * KiB of stack at most). Threads: large products are cut into pieces fixed by the shape
 * (NT_GEMM_PARALLEL), each computed on one thread with the library running single-threaded
 * (nt_parallel_for_leaf; OpenBLAS's global thread count is held at one meanwhile), so
 * results are the same for any thread count.
 *
 * Every product computes  C = beta * C + alpha * (A @ B)  (gemv: y = beta*y + alpha*A@x)
 * where `beta_zero` means C's previous contents are ignored (not even NaN propagates), as
 * PyTorch does. The scalars come in nt_gemm_scalars, already converted the way PyTorch
 * converts them for the dtype (truncated for integers).
 *
 * Rounding:
 *  - float32/float64 products are sums of k products in float32/float64 (the order is the
 *    library's and the CPU's: oneDNN and OpenBLAS pick kernels by CPU); tiny float32
 *    products use a loop of fused multiply-adds in order of k (see NT_GEMM_SMALL), and
 *    PyTorch's small bmm kernel (plain sums in order) is nt_gemm_small;
 *  - integers wrap around (two's complement): the result is exact modulo 2^bits whatever
 *    the order, so they accumulate in 32-bit lanes (64-bit for int64) and vectorise;
 *  - bfloat16 accumulates in float32 and rounds once: the ops layer widens the operands
 *    to float32 and runs the float32 product (ops/linalg_common.c); dot sums in float32
 *    here.
 */
#ifndef NT_KERNELS_GEMM_H
#define NT_KERNELS_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"

/* alpha and beta, as the kernels of each dtype want them. */
typedef struct nt_gemm_scalars {
    double alpha, beta;     /* floating dtypes (bfloat16 computes in float32) */
    uint64_t ialpha, ibeta; /* integer dtypes: the values converted to the dtype, wrapped */
    bool beta_zero;         /* C's contents are ignored */
    bool beta_one;          /* C is added unscaled */
} nt_gemm_scalars;

/* Below this many multiply-adds (and k up to NT_GEMM_SMALL_K), float32 products use a loop
 * of fused multiply-adds in order of k instead of a library call (which costs ~0.6 us).
 * float64 always goes to BLAS. */
#define NT_GEMM_SMALL 4096
#define NT_GEMM_SMALL_K 256

/* Threads: products of at least this many multiply-adds are cut into square tiles of C
 * (512, 256, 128 or 64 on a side, chosen from the shape alone) that threads share; gemv
 * into blocks of NT_GEMV_BLOCK rows. Each piece runs its BLAS call on one thread, so a
 * result never depends on the thread count. */
#define NT_GEMM_PARALLEL ((int64_t)1 << 20)

/* A batch of at least this many large products runs one whole product per piece of work
 * instead of tiles (the pieces still depend on the shape alone). */
#define NT_GEMM_TASKS 16
#define NT_GEMV_BLOCK 512

/* float32 (oneDNN) and float64 (OpenBLAS), row-major C (ldc >= n, unit column stride). A is
 * m x k stored row-major with leading dim lda (trans_a: stored as its k x m transpose), same
 * for B (k x n). Small products use the fused multiply-add loop. */
void nt_gemm_blas(nt_dtype dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                  const void *a, int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc,
                  const nt_gemm_scalars *s);

/* The same for `batch` products at element strides sa, sb and sc from one to the next; the
 * tiles of all of them are shared by the threads at once. */
void nt_gemm_blas_batched(nt_dtype dtype, bool trans_a, bool trans_b, int64_t batch, int64_t m,
                          int64_t n, int64_t k, const void *a, int64_t lda, int64_t sa,
                          const void *b, int64_t ldb, int64_t sb, void *c, int64_t ldc, int64_t sc,
                          const nt_gemm_scalars *s);

/* A batch of products in two levels: `outer` groups of `inner` products; product (o, i) of
 * A starts at element o * sa_outer + i * sa (the same for B and C). Batch dims of a view that
 * do not merge into one stride (the heads of q.view(N, T, H, Dh).transpose(1, 2)) are read in
 * place this way. */
typedef struct nt_gemm_batch {
    int64_t outer, inner;
    int64_t sa_outer, sb_outer, sc_outer;
    int64_t sa, sb, sc;
} nt_gemm_batch;

/* nt_gemm_blas_batched over a two-level batch. */
void nt_gemm_blas_batched2(nt_dtype dtype, bool trans_a, bool trans_b, const nt_gemm_batch *bt,
                           int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                           const void *b, int64_t ldb, void *c, int64_t ldc,
                           const nt_gemm_scalars *s);

/* The plain loop for any strides of A and B (float32/float64: sequential float sums, the
 * order of PyTorch's small bmm kernel; integers: wrapped). C row-major (unit column
 * stride, row stride ldc). Runs on the calling thread. */
void nt_gemm_small(nt_dtype dtype, int64_t m, int64_t n, int64_t k, const void *a, int64_t a_rs,
                   int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, void *c, int64_t ldc,
                   const nt_gemm_scalars *s);

/* Integer dtypes (uint8, int8, int16, int32, int64): blocked i-k-j loops that vectorise
 * when B's rows are contiguous, parallel over rows of C for large products. */
void nt_gemm_int(nt_dtype dtype, int64_t m, int64_t n, int64_t k, const void *a, int64_t a_rs,
                 int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, void *c, int64_t ldc,
                 const nt_gemm_scalars *s);

/* y[m] (stride incy) = beta*y + alpha * A[m x n] @ x[n] (stride incx), any dtype the
 * products support. float32/float64 call CBLAS when A is row- or column-major with a valid
 * leading dim and incx != 0 (the caller ensures it: `blas_ok`; `col_major` says which), a
 * loop otherwise. Not for bfloat16 (the ops layer runs it as a float32 product). */
void nt_gemv_kernel(nt_dtype dtype, int64_t m, int64_t n, const void *a, int64_t a_rs, int64_t a_cs,
                    const void *x, int64_t incx, void *y, int64_t incy, const nt_gemm_scalars *s,
                    bool blas_ok, bool col_major);

/* *out = sum_i x[i] * y[i] in the dtype (float32/float64 through CBLAS when strides are
 * nonzero, integers wrapped, bfloat16 summed in float32 in order and rounded once). */
void nt_dot_kernel(nt_dtype dtype, int64_t n, const void *x, int64_t incx, const void *y,
                   int64_t incy, void *out);

/* c[n] (contiguous) *= beta in the dtype: C = beta * C of a product with k = 0 (PyTorch's
 * `result.mul_(beta)`); integers wrap, bfloat16 computes in float32. */
void nt_gemm_scale(nt_dtype dtype, void *c, int64_t n, const nt_gemm_scalars *s);

#endif
