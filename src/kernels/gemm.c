/*
 * gemm.c — the matrix-product loops of gemm.h: CBLAS for float32/float64, our own loops
 * for small products and integers, the bfloat16 dot product (layer L3).
 *
 * The loops are i-k-j: for a row i of C and a block of its columns, an accumulator row is
 * cleared, then for every k the row k of B (times A[i, k]) is added to it. The innermost
 * loop runs along a row of B and of the accumulator, so it vectorises whenever B's rows are
 * contiguous; and each C[i, j] is summed in order of k, which is the order PyTorch's small
 * kernels use (so small float products match PyTorch bit for bit).
 */
#include "kernels/gemm.h"

#include <cblas.h>
#include <dnnl.h>
#include <immintrin.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "core/cpu.h"
#include "core/half.h"
#include "core/parallel.h"

/* ------------------------------------------------------------------ OpenBLAS on one thread */

/* OpenBLAS (a pthreads build, shared with anything else in the process: PyTorch) splits its
 * work by its global thread count, so its results would depend on it. ntensor runs it on
 * one thread inside work split by ntensor itself into pieces fixed by the shape: the count
 * is set to one while any of our calls runs, and put back after the last one. */
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_users, blas_saved_threads;

static void blas_enter(void) {
    pthread_mutex_lock(&blas_lock);
    if (blas_users++ == 0) {
        blas_saved_threads = openblas_get_num_threads();
        if (blas_saved_threads != 1) openblas_set_num_threads(1);
    }
    pthread_mutex_unlock(&blas_lock);
}

static void blas_leave(void) {
    pthread_mutex_lock(&blas_lock);
    if (--blas_users == 0 && blas_saved_threads != 1) openblas_set_num_threads(blas_saved_threads);
    pthread_mutex_unlock(&blas_lock);
}

/* ------------------------------------------------------------------ i-k-j row loops */

/* What a row loop needs; shared read-only by the threads of nt_gemm_int. */
typedef struct gemm_job {
    int64_t n, k;
    const void *a, *b;
    void *c;
    int64_t a_rs, a_cs, b_rs, b_cs, ldc;
    const nt_gemm_scalars *s;
} gemm_job;

/* Columns of C per accumulator block (the block lives on the stack). */
#define NT_GEMM_JB 256

/* Rows [i0, i1) of C = beta*C + alpha*(A @ B), accumulating in ACC (wrapping unsigned
 * arithmetic for integers, the type itself for floats). */
#define NT_GEMM_ROWS(NAME, T, ACC, ALPHA, BETA)                                                    \
    __attribute__((target_clones("avx2", "default"))) static void NAME(void *ctx, int64_t i0,      \
                                                                       int64_t i1) {               \
        const gemm_job *job = ctx;                                                                 \
        const T *a = job->a, *b = job->b;                                                          \
        T *c = job->c;                                                                             \
        const int64_t n = job->n, k = job->k, b_rs = job->b_rs, b_cs = job->b_cs;                  \
        const ACC alpha = (ALPHA), beta = (BETA);                                                  \
        const bool beta_zero = job->s->beta_zero;                                                  \
        ACC acc[NT_GEMM_JB];                                                                       \
        for (int64_t i = i0; i < i1; i++) {                                                        \
            for (int64_t j0 = 0; j0 < n; j0 += NT_GEMM_JB) {                                       \
                const int64_t jn = n - j0 < NT_GEMM_JB ? n - j0 : NT_GEMM_JB;                      \
                for (int64_t j = 0; j < jn; j++)                                                   \
                    acc[j] = 0;                                                                    \
                for (int64_t l = 0; l < k; l++) {                                                  \
                    const ACC av = (ACC)a[i * job->a_rs + l * job->a_cs];                          \
                    const T *brow = b + l * b_rs + j0 * b_cs;                                      \
                    if (b_cs == 1) {                                                               \
                        const T *restrict br = brow;                                               \
                        ACC *restrict ac = acc;                                                    \
                        for (int64_t j = 0; j < jn; j++)                                           \
                            ac[j] += av * (ACC)br[j];                                              \
                    } else {                                                                       \
                        for (int64_t j = 0; j < jn; j++)                                           \
                            acc[j] += av * (ACC)brow[j * b_cs];                                    \
                    }                                                                              \
                }                                                                                  \
                T *restrict crow = c + i * job->ldc + j0;                                          \
                if (beta_zero) {                                                                   \
                    for (int64_t j = 0; j < jn; j++)                                               \
                        crow[j] = (T)(alpha * acc[j]);                                             \
                } else {                                                                           \
                    for (int64_t j = 0; j < jn; j++)                                               \
                        crow[j] = (T)((ACC)crow[j] * beta + alpha * acc[j]);                       \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

NT_GEMM_ROWS(rows_f32, float, float, (float)job->s->alpha, (float)job->s->beta)
NT_GEMM_ROWS(rows_f64, double, double, job->s->alpha, job->s->beta)
NT_GEMM_ROWS(rows_u8, uint8_t, uint32_t, (uint32_t)job->s->ialpha, (uint32_t)job->s->ibeta)
NT_GEMM_ROWS(rows_i8, int8_t, uint32_t, (uint32_t)job->s->ialpha, (uint32_t)job->s->ibeta)
NT_GEMM_ROWS(rows_i16, int16_t, uint32_t, (uint32_t)job->s->ialpha, (uint32_t)job->s->ibeta)
NT_GEMM_ROWS(rows_i32, int32_t, uint32_t, (uint32_t)job->s->ialpha, (uint32_t)job->s->ibeta)
NT_GEMM_ROWS(rows_i64, int64_t, uint64_t, job->s->ialpha, job->s->ibeta)

/* Rows [i0, i1) the way OpenBLAS's kernels compute each element: a fused multiply-add per
 * k in order from zero, then C = fma(alpha, acc, beta*C) (beta*C skipped when beta is one,
 * C ignored when zero). Used for small float products, so they match the BLAS results
 * PyTorch gets. */
#define NT_GEMM_FMA_ROWS(NAME, T, FMA, ALPHA, BETA)                                                \
    __attribute__((target_clones("arch=x86-64-v3", "default"))) static void NAME(                  \
        void *ctx, int64_t i0, int64_t i1) {                                                       \
        const gemm_job *job = ctx;                                                                 \
        const T *a = job->a, *b = job->b;                                                          \
        T *c = job->c;                                                                             \
        const int64_t n = job->n, k = job->k, b_rs = job->b_rs, b_cs = job->b_cs;                  \
        const T alpha = (ALPHA), beta = (BETA);                                                    \
        const bool beta_zero = job->s->beta_zero, beta_one = job->s->beta_one;                     \
        T acc[NT_GEMM_JB];                                                                         \
        for (int64_t i = i0; i < i1; i++) {                                                        \
            for (int64_t j0 = 0; j0 < n; j0 += NT_GEMM_JB) {                                       \
                const int64_t jn = n - j0 < NT_GEMM_JB ? n - j0 : NT_GEMM_JB;                      \
                for (int64_t j = 0; j < jn; j++)                                                   \
                    acc[j] = 0;                                                                    \
                for (int64_t l = 0; l < k; l++) {                                                  \
                    const T av = a[i * job->a_rs + l * job->a_cs];                                 \
                    const T *brow = b + l * b_rs + j0 * b_cs;                                      \
                    if (b_cs == 1) {                                                               \
                        const T *restrict br = brow;                                               \
                        T *restrict ac = acc;                                                      \
                        for (int64_t j = 0; j < jn; j++)                                           \
                            ac[j] = FMA(av, br[j], ac[j]);                                         \
                    } else {                                                                       \
                        for (int64_t j = 0; j < jn; j++)                                           \
                            acc[j] = FMA(av, brow[j * b_cs], acc[j]);                              \
                    }                                                                              \
                }                                                                                  \
                T *restrict crow = c + i * job->ldc + j0;                                          \
                if (beta_zero) {                                                                   \
                    for (int64_t j = 0; j < jn; j++)                                               \
                        crow[j] = alpha * acc[j];                                                  \
                } else {                                                                           \
                    for (int64_t j = 0; j < jn; j++)                                               \
                        crow[j] = FMA(alpha, acc[j], beta_one ? crow[j] : crow[j] * beta);         \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

NT_GEMM_FMA_ROWS(fma_rows_f32, float, __builtin_fmaf, (float)job->s->alpha, (float)job->s->beta)
NT_GEMM_FMA_ROWS(fma_rows_f64, double, __builtin_fma, job->s->alpha, job->s->beta)

/* Columns [j0, j1) of row i of C, one scalar FMA chain each (the tail of the AVX2 loop). */
__attribute__((target("avx2,fma"))) static void fma_cols_f32(const gemm_job *job, int64_t i,
                                                             int64_t j0, int64_t j1) {
    const float *arow = (const float *)job->a + i * job->a_rs, *b = job->b;
    float *crow = (float *)job->c + i * job->ldc;
    const float alpha = (float)job->s->alpha, beta = (float)job->s->beta;
    for (int64_t j = j0; j < j1; j++) {
        float acc = 0;
        for (int64_t l = 0; l < job->k; l++)
            acc = __builtin_fmaf(arow[l * job->a_cs], b[l * job->b_rs + j * job->b_cs], acc);
        crow[j] = job->s->beta_zero
                      ? alpha * acc
                      : __builtin_fmaf(alpha, acc, job->s->beta_one ? crow[j] : crow[j] * beta);
    }
}

/* alpha and beta as the AVX2 loops use them, read once (C's stores could alias the job's
 * flags, so the compiler would otherwise reload them for every store). */
typedef struct scale8 {
    __m256 alpha, beta;
    bool beta_zero, beta_one;
} scale8;

__attribute__((target("avx2,fma"))) static inline scale8 scale8_of(const gemm_job *job) {
    scale8 s = {_mm256_set1_ps((float)job->s->alpha), _mm256_set1_ps((float)job->s->beta),
                job->s->beta_zero, job->s->beta_one};
    return s;
}

/* Writes alpha*acc (+ beta*C) to the eight columns at cp. */
__attribute__((target("avx2,fma"))) static inline void store8_f32(float *cp, __m256 acc,
                                                                  const scale8 *s) {
    if (s->beta_zero) {
        _mm256_storeu_ps(cp, _mm256_mul_ps(s->alpha, acc));
        return;
    }
    __m256 old = _mm256_loadu_ps(cp);
    if (!s->beta_one) old = _mm256_mul_ps(old, s->beta);
    _mm256_storeu_ps(cp, _mm256_fmadd_ps(s->alpha, acc, old));
}

/* Rows [i, i + R) of C (B's rows contiguous), eight columns per register: R independent
 * FMA chains hide the FMA latency. Each element is the same sequential chain over k as
 * fma_cols_f32's, so the row blocking never changes a result. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
rows_block_f32(const gemm_job *job, int64_t i, int R) {
    const float *b = job->b;
    const int64_t n = job->n, k = job->k, b_rs = job->b_rs, a_cs = job->a_cs;
    const float *arow[8];
    float *crow[8];
    for (int r = 0; r < R; r++) {
        arow[r] = (const float *)job->a + (i + r) * job->a_rs;
        crow[r] = (float *)job->c + (i + r) * job->ldc;
    }
    const scale8 scale = scale8_of(job);
    for (int64_t j0 = 0; j0 + 8 <= n; j0 += 8) {
        __m256 acc[8];
        for (int r = 0; r < R; r++)
            acc[r] = _mm256_setzero_ps();
        const float *bp = b + j0;
        for (int64_t l = 0, la = 0; l < k; l++, la += a_cs, bp += b_rs) {
            __m256 bv = _mm256_loadu_ps(bp);
            for (int r = 0; r < R; r++)
                acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(arow[r][la]), bv, acc[r]);
        }
        for (int r = 0; r < R; r++)
            store8_f32(crow[r] + j0, acc[r], &scale);
    }
    for (int64_t r = i; r < i + R && n % 8; r++)
        fma_cols_f32(job, r, n - n % 8, n);
}

/* The same for float32 with AVX2/FMA intrinsics, the accumulators kept in registers (the
 * loop above keeps them in memory, which costs a store-to-load round trip per k; this one
 * is what makes an 8x8 product ~25 ns). */
__attribute__((target("avx2,fma"))) static void fma_rows_f32_avx2(const gemm_job *job, int64_t m) {
    int64_t i = 0;
    if (job->b_cs == 1) {
        for (; i + 8 <= m; i += 8)
            rows_block_f32(job, i, 8);
        for (; i + 4 <= m; i += 4)
            rows_block_f32(job, i, 4);
        for (; i < m; i++)
            rows_block_f32(job, i, 1);
        return;
    }
    for (; i < m; i++)
        fma_cols_f32(job, i, 0, job->n);
}

static nt_range_fn row_loop(nt_dtype dtype) {
    switch (dtype) {
    case NT_FLOAT32:
        return rows_f32;
    case NT_FLOAT64:
        return rows_f64;
    case NT_UINT8:
        return rows_u8;
    case NT_INT8:
        return rows_i8;
    case NT_INT16:
        return rows_i16;
    case NT_INT32:
        return rows_i32;
    case NT_INT64:
        return rows_i64;
    default:
        return NULL; /* the ops layer never asks for another dtype */
    }
}

static gemm_job make_job(int64_t n, int64_t k, const void *a, int64_t a_rs, int64_t a_cs,
                         const void *b, int64_t b_rs, int64_t b_cs, void *c, int64_t ldc,
                         const nt_gemm_scalars *s) {
    gemm_job job = {.n = n,
                    .k = k,
                    .a = a,
                    .b = b,
                    .c = c,
                    .a_rs = a_rs,
                    .a_cs = a_cs,
                    .b_rs = b_rs,
                    .b_cs = b_cs,
                    .ldc = ldc,
                    .s = s};
    return job;
}

void nt_gemm_small(nt_dtype dtype, int64_t m, int64_t n, int64_t k, const void *a, int64_t a_rs,
                   int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, void *c, int64_t ldc,
                   const nt_gemm_scalars *s) {
    gemm_job job = make_job(n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, s);
    nt_range_fn fn = row_loop(dtype);
    if (fn) fn(&job, 0, m);
}

void nt_gemm_int(nt_dtype dtype, int64_t m, int64_t n, int64_t k, const void *a, int64_t a_rs,
                 int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, void *c, int64_t ldc,
                 const nt_gemm_scalars *s) {
    gemm_job job = make_job(n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, s);
    nt_range_fn fn = row_loop(dtype);
    if (!fn) return;
    int64_t per_row = n * (k > 0 ? k : 1);
    int64_t grain = per_row >= NT_GRAIN_SIZE ? 1 : NT_GRAIN_SIZE / (per_row > 0 ? per_row : 1);
    nt_parallel_for(0, m, grain, fn, &job);
}

/* ------------------------------------------------------------------ float32/float64: BLAS */

static bool has_avx2_fma(void) {
    return nt_cpu()->avx2_fma;
}

/* The tiles of a batch of float32/float64 products and what they share. */
typedef struct blas_job {
    nt_dtype dtype;
    bool trans_a, trans_b;
    int64_t m, n, k, lda, ldb, ldc;
    nt_gemm_batch bt;
    const char *a, *b;
    char *c;
    const nt_gemm_scalars *s;
    int64_t tile, tiles_m, tiles_n; /* tile side; tiles down and across one product */
} blas_job;

/* C[i0:i0+mm, j0:j0+nn] of the product at element offsets (oa, ob, oc), on the calling
 * thread: oneDNN's sgemm for float32 (twice OpenBLAS's speed on AVX-512 machines),
 * OpenBLAS's dgemm for float64. A oneDNN failure (it may run out of memory for its
 * buffers) falls back to the FMA loop. */
static void blas_tile(const blas_job *j, int64_t oa, int64_t ob, int64_t oc, int64_t i0, int64_t j0,
                      int64_t mm, int64_t nn) {
    const int64_t es = j->dtype == NT_FLOAT32 ? 4 : 8;
    const char *a = j->a + (oa + (j->trans_a ? i0 : i0 * j->lda)) * es;
    const char *b = j->b + (ob + (j->trans_b ? j0 * j->ldb : j0)) * es;
    char *c = j->c + (oc + i0 * j->ldc + j0) * es;
    double beta = j->s->beta_zero ? 0.0 : j->s->beta;
    if (j->dtype == NT_FLOAT32) {
        if (dnnl_sgemm(j->trans_a ? 'T' : 'N', j->trans_b ? 'T' : 'N', mm, nn, j->k,
                       (float)j->s->alpha, (const float *)a, j->lda, (const float *)b, j->ldb,
                       (float)beta, (float *)c, j->ldc) == dnnl_success)
            return;
        gemm_job job = make_job(nn, j->k, a, j->trans_a ? 1 : j->lda, j->trans_a ? j->lda : 1, b,
                                j->trans_b ? 1 : j->ldb, j->trans_b ? j->ldb : 1, c, j->ldc, j->s);
        fma_rows_f32(&job, 0, mm);
        return;
    }
    cblas_dgemm(CblasRowMajor, j->trans_a ? CblasTrans : CblasNoTrans,
                j->trans_b ? CblasTrans : CblasNoTrans, (int)mm, (int)nn, (int)j->k, j->s->alpha,
                (const double *)a, (int)j->lda, (const double *)b, (int)j->ldb, beta, (double *)c,
                (int)j->ldc);
}

static void blas_tiles(void *ctx, int64_t t0, int64_t t1) {
    const blas_job *j = ctx;
    const int64_t per = j->tiles_m * j->tiles_n;
    for (int64_t t = t0; t < t1; t++) {
        int64_t p = t / per, r = t % per, po = p / j->bt.inner, pi = p % j->bt.inner;
        int64_t i0 = r / j->tiles_n * j->tile, j0 = r % j->tiles_n * j->tile;
        blas_tile(j, po * j->bt.sa_outer + pi * j->bt.sa, po * j->bt.sb_outer + pi * j->bt.sb,
                  po * j->bt.sc_outer + pi * j->bt.sc, i0, j0,
                  j->m - i0 < j->tile ? j->m - i0 : j->tile,
                  j->n - j0 < j->tile ? j->n - j0 : j->tile);
    }
}

/* The side of the square tiles a product is cut into: the largest of 512, 256 and 128 that
 * gives at least four tiles, else 64. It depends on the shape only, and so does the result. */
static int64_t tile_side(int64_t m, int64_t n) {
    for (int64_t t = 512; t > 64; t /= 2)
        if (((m + t - 1) / t) * ((n + t - 1) / t) >= 4) return t;
    return 64;
}

void nt_gemm_blas_batched2(nt_dtype dtype, bool trans_a, bool trans_b, const nt_gemm_batch *bt,
                           int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                           const void *b, int64_t ldb, void *c, int64_t ldc,
                           const nt_gemm_scalars *s) {
    const int64_t batch = bt->outer * bt->inner;
    if (batch <= 0 || m == 0 || n == 0) return;
    bool fits = m <= INT_MAX && n <= INT_MAX && k <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX &&
                ldc <= INT_MAX;
    bool small = dtype == NT_FLOAT32 && k <= NT_GEMM_SMALL_K && m * n <= NT_GEMM_SMALL &&
                 m * n * k <= NT_GEMM_SMALL;
    if (small || (dtype == NT_FLOAT64 && !fits)) {
        const int64_t es = dtype == NT_FLOAT32 ? 4 : 8;
        const bool avx2 = dtype == NT_FLOAT32 && has_avx2_fma();
        for (int64_t po = 0; po < bt->outer; po++)
            for (int64_t pi = 0; pi < bt->inner; pi++) {
                gemm_job job = make_job(
                    n, k, (const char *)a + (po * bt->sa_outer + pi * bt->sa) * es,
                    trans_a ? 1 : lda, trans_a ? lda : 1,
                    (const char *)b + (po * bt->sb_outer + pi * bt->sb) * es, trans_b ? 1 : ldb,
                    trans_b ? ldb : 1, (char *)c + (po * bt->sc_outer + pi * bt->sc) * es, ldc, s);
                if (avx2)
                    fma_rows_f32_avx2(&job, m);
                else if (dtype == NT_FLOAT32)
                    fma_rows_f32(&job, 0, m);
                else
                    fma_rows_f64(&job, 0, m);
            }
        return;
    }
    blas_job job = {.dtype = dtype,
                    .trans_a = trans_a,
                    .trans_b = trans_b,
                    .m = m,
                    .n = n,
                    .k = k,
                    .lda = lda,
                    .ldb = ldb,
                    .ldc = ldc,
                    .bt = *bt,
                    .a = a,
                    .b = b,
                    .c = c,
                    .s = s};
    int64_t macs;
    bool large = __builtin_mul_overflow(m * n, k, &macs) || macs >= NT_GEMM_PARALLEL;
    /* A batch of at least NT_GEMM_TASKS large products keeps the threads busy with one
     * product each: whole products make larger, faster library calls than tiles. */
    bool tiled = fits && large && batch < NT_GEMM_TASKS;
    job.tile = tiled ? tile_side(m, n) : (m > n ? m : n); /* else one tile each */
    job.tiles_m = (m + job.tile - 1) / job.tile;
    job.tiles_n = (n + job.tile - 1) / job.tile;
    /* a small product per batch entry is one piece of work: spread the entries instead */
    int64_t grain = large ? 1 : NT_GEMM_PARALLEL / (macs > 0 ? macs : 1);
    if (dtype == NT_FLOAT64) blas_enter();
    nt_parallel_for_leaf(0, batch * job.tiles_m * job.tiles_n, grain, blas_tiles, &job);
    if (dtype == NT_FLOAT64) blas_leave();
}

void nt_gemm_blas_batched(nt_dtype dtype, bool trans_a, bool trans_b, int64_t batch, int64_t m,
                          int64_t n, int64_t k, const void *a, int64_t lda, int64_t sa,
                          const void *b, int64_t ldb, int64_t sb, void *c, int64_t ldc, int64_t sc,
                          const nt_gemm_scalars *s) {
    nt_gemm_batch bt = {.outer = 1, .inner = batch, .sa = sa, .sb = sb, .sc = sc};
    nt_gemm_blas_batched2(dtype, trans_a, trans_b, &bt, m, n, k, a, lda, b, ldb, c, ldc, s);
}

void nt_gemm_blas(nt_dtype dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                  const void *a, int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc,
                  const nt_gemm_scalars *s) {
    nt_gemm_blas_batched(dtype, trans_a, trans_b, 1, m, n, k, a, lda, 0, b, ldb, 0, c, ldc, 0, s);
}

/* ------------------------------------------------------------------ gemv */

/* The non-BLAS gemv of PyTorch for one scalar type T accumulating in ACC ('t' order: each
 * y[i] is a dot product summed in order). */
#define NT_GEMV_LOOP(NAME, T, ACC, ALPHA, BETA)                                                    \
    static void NAME(int64_t m, int64_t n, const T *a, int64_t a_rs, int64_t a_cs, const T *x,     \
                     int64_t incx, T *y, int64_t incy, const nt_gemm_scalars *s) {                 \
        const ACC alpha = (ALPHA), beta = (BETA);                                                  \
        for (int64_t i = 0; i < m; i++) {                                                          \
            ACC acc = 0;                                                                           \
            for (int64_t l = 0; l < n; l++)                                                        \
                acc += (ACC)a[i * a_rs + l * a_cs] * (ACC)x[l * incx];                             \
            T *yp = y + i * incy;                                                                  \
            *yp = s->beta_zero ? (T)(alpha * acc) : (T)(beta * (ACC)*yp + alpha * acc);            \
        }                                                                                          \
    }

NT_GEMV_LOOP(gemv_f32, float, float, (float)s->alpha, (float)s->beta)
NT_GEMV_LOOP(gemv_f64, double, double, s->alpha, s->beta)
NT_GEMV_LOOP(gemv_u8, uint8_t, uint32_t, (uint32_t)s->ialpha, (uint32_t)s->ibeta)
NT_GEMV_LOOP(gemv_i8, int8_t, uint32_t, (uint32_t)s->ialpha, (uint32_t)s->ibeta)
NT_GEMV_LOOP(gemv_i16, int16_t, uint32_t, (uint32_t)s->ialpha, (uint32_t)s->ibeta)
NT_GEMV_LOOP(gemv_i32, int32_t, uint32_t, (uint32_t)s->ialpha, (uint32_t)s->ibeta)
NT_GEMV_LOOP(gemv_i64, int64_t, uint64_t, s->ialpha, s->ibeta)

/* A BLAS gemv cut into blocks of rows of y, fixed by the shape (each y[i] is one dot
 * product, whichever block holds it). */
typedef struct gemv_job {
    nt_dtype dtype;
    bool col_major;
    int64_t m, n, lda, incx, incy, block;
    const char *a, *x;
    char *y;
    const nt_gemm_scalars *s;
} gemv_job;

static void gemv_blocks(void *ctx, int64_t b0, int64_t b1) {
    const gemv_job *j = ctx;
    const int64_t es = j->dtype == NT_FLOAT32 ? 4 : 8;
    for (int64_t blk = b0; blk < b1; blk++) {
        int64_t i0 = blk * j->block, rows = j->m - i0 < j->block ? j->m - i0 : j->block;
        const char *a = j->a + (j->col_major ? i0 : i0 * j->lda) * es;
        char *y = j->y + i0 * j->incy * es;
        /* row-major A: y = A x ('N'); column-major A is a row-major A^T: y = (A^T)^T x */
        enum CBLAS_TRANSPOSE t = j->col_major ? CblasTrans : CblasNoTrans;
        int r = (int)(j->col_major ? j->n : rows), c = (int)(j->col_major ? rows : j->n);
        double beta = j->s->beta_zero ? 0.0 : j->s->beta;
        if (j->dtype == NT_FLOAT32)
            cblas_sgemv(CblasRowMajor, t, r, c, (float)j->s->alpha, (const float *)a, (int)j->lda,
                        (const float *)j->x, (int)j->incx, (float)beta, (float *)y, (int)j->incy);
        else
            cblas_dgemv(CblasRowMajor, t, r, c, j->s->alpha, (const double *)a, (int)j->lda,
                        (const double *)j->x, (int)j->incx, beta, (double *)y, (int)j->incy);
    }
}

void nt_gemv_kernel(nt_dtype dtype, int64_t m, int64_t n, const void *a, int64_t a_rs, int64_t a_cs,
                    const void *x, int64_t incx, void *y, int64_t incy, const nt_gemm_scalars *s,
                    bool blas_ok, bool col_major) {
    if (blas_ok && (dtype == NT_FLOAT32 || dtype == NT_FLOAT64)) {
        /* The caller checked: a_cs == 1 (row-major, lda = a_rs) or a_rs == 1 (col-major,
         * lda = a_cs), sizes and strides within int, incx and incy positive. */
        size_t esize = dtype == NT_FLOAT32 ? 4 : 8;
        if (s->beta_zero)
            for (int64_t i = 0; i < m; i++)
                memset((char *)y + i * incy * (int64_t)esize, 0, esize);
        gemv_job job = {.dtype = dtype,
                        .col_major = col_major,
                        .m = m,
                        .n = n,
                        .lda = col_major ? a_cs : a_rs,
                        .incx = incx,
                        .incy = incy,
                        .block = m * n >= NT_GRAIN_SIZE * 8 ? NT_GEMV_BLOCK : m,
                        .a = a,
                        .x = x,
                        .y = y,
                        .s = s};
        blas_enter();
        nt_parallel_for(0, (m + job.block - 1) / job.block, 1, gemv_blocks, &job);
        blas_leave();
        return;
    }
    switch (dtype) {
    case NT_FLOAT32:
        gemv_f32(m, n, a, a_rs, a_cs, x, incx, y, incy, s);
        return;
    case NT_FLOAT64:
        gemv_f64(m, n, a, a_rs, a_cs, x, incx, y, incy, s);
        return;
    case NT_UINT8:
        gemv_u8(m, n, a, a_rs, a_cs, x, incx, y, incy, s);
        return;
    case NT_INT8:
        gemv_i8(m, n, a, a_rs, a_cs, x, incx, y, incy, s);
        return;
    case NT_INT16:
        gemv_i16(m, n, a, a_rs, a_cs, x, incx, y, incy, s);
        return;
    case NT_INT32:
        gemv_i32(m, n, a, a_rs, a_cs, x, incx, y, incy, s);
        return;
    case NT_INT64:
        gemv_i64(m, n, a, a_rs, a_cs, x, incx, y, incy, s);
        return;
    default:
        return;
    }
}

/* ------------------------------------------------------------------ dot */

#define NT_DOT_LOOP(NAME, T, ACC)                                                                  \
    static T NAME(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy) {                 \
        ACC acc = 0;                                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            acc += (ACC)x[i * incx] * (ACC)y[i * incy];                                            \
        return (T)acc;                                                                             \
    }

NT_DOT_LOOP(dot_u8, uint8_t, uint32_t)
NT_DOT_LOOP(dot_i8, int8_t, uint32_t)
NT_DOT_LOOP(dot_i16, int16_t, uint32_t)
NT_DOT_LOOP(dot_i32, int32_t, uint32_t)
NT_DOT_LOOP(dot_i64, int64_t, uint64_t)

void nt_dot_kernel(nt_dtype dtype, int64_t n, const void *x, int64_t incx, const void *y,
                   int64_t incy, void *out) {
    /* PyTorch passes unit strides for one element, and calls BLAS when everything fits. */
    if (n == 1) incx = incy = 1;
    bool fits = n <= INT_MAX && incx <= INT_MAX && incy <= INT_MAX;
    switch (dtype) {
    case NT_FLOAT32:
        if (fits) {
            blas_enter();
            *(float *)out = cblas_sdot((int)n, x, (int)incx, y, (int)incy);
            blas_leave();
        } else {
            float acc = 0;
            for (int64_t i = 0; i < n; i++)
                acc += ((const float *)x)[i * incx] * ((const float *)y)[i * incy];
            *(float *)out = acc;
        }
        return;
    case NT_FLOAT64:
        if (fits) {
            blas_enter();
            *(double *)out = cblas_ddot((int)n, x, (int)incx, y, (int)incy);
            blas_leave();
        } else {
            double acc = 0;
            for (int64_t i = 0; i < n; i++)
                acc += ((const double *)x)[i * incx] * ((const double *)y)[i * incy];
            *(double *)out = acc;
        }
        return;
    case NT_UINT8:
        *(uint8_t *)out = dot_u8(n, x, incx, y, incy);
        return;
    case NT_INT8:
        *(int8_t *)out = dot_i8(n, x, incx, y, incy);
        return;
    case NT_INT16:
        *(int16_t *)out = dot_i16(n, x, incx, y, incy);
        return;
    case NT_INT32:
        *(int32_t *)out = dot_i32(n, x, incx, y, incy);
        return;
    case NT_INT64:
        *(int64_t *)out = dot_i64(n, x, incx, y, incy);
        return;
    case NT_BFLOAT16: {
        /* Exact products summed in float32 in order, rounded once. */
        const nt_bfloat16 *xb = x, *yb = y;
        float sum = 0;
        for (int64_t i = 0; i < n; i++)
            sum += nt_bf16_to_f32(xb[i * incx]) * nt_bf16_to_f32(yb[i * incy]);
        *(nt_bfloat16 *)out = nt_f32_to_bf16(sum);
        return;
    }
    default:
        return;
    }
}

void nt_gemm_scale(nt_dtype dtype, void *c, int64_t n, const nt_gemm_scalars *s) {
    char *p = c;
    for (int64_t i = 0; i < n; i++) {
        switch (dtype) {
        case NT_FLOAT32:
            ((float *)p)[i] = (float)(((float *)p)[i] * s->beta);
            break;
        case NT_FLOAT64:
            ((double *)p)[i] *= s->beta;
            break;
        case NT_BFLOAT16:
            ((nt_bfloat16 *)p)[i] =
                nt_f32_to_bf16(nt_bf16_to_f32(((nt_bfloat16 *)p)[i]) * (float)s->beta);
            break;
        case NT_UINT8:
            ((uint8_t *)p)[i] = (uint8_t)(((uint8_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT8:
            ((int8_t *)p)[i] = (int8_t)((uint32_t)((int8_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT16:
            ((int16_t *)p)[i] = (int16_t)((uint32_t)((int16_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT32:
            ((int32_t *)p)[i] = (int32_t)((uint32_t)((int32_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT64:
            ((int64_t *)p)[i] = (int64_t)((uint64_t)((int64_t *)p)[i] * s->ibeta);
            break;
        default:
            break;
        }
    }
}
