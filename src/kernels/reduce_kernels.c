/*
 * reduce_kernels.c — folding kernels for the reductions (see reduce_kernels.h), for every
 * dtype from NT_DTYPES.
 *
 * The "scalar" family (sum, prod, max, min, all, any, and mean as sum's folding) has one
 * compute (accumulator) type per (fold, dtype) and a binary op. Its functions are written
 * once, in reduce_fold.h, and compiled once per (fold, dtype) from the list under "the
 * scalar family" below: each fold names its op and its compute type per dtype; the op is a
 * constant that reduce_fold.h's inline functions switch on, so every instantiation compiles
 * to the code a kernel written for that one pair would be. Contiguous blocks keep 16
 * independent accumulators in a two-level cascade and fold them as a tree; runs longer than
 * a block are split in halves on block boundaries (pairwise summation). The error of a
 * float32 sum of n elements is then about (32 + log2(n/BLOCK)) ulps, independent of the
 * thread count. var/std (Chan's parallel formula over two-pass runs, Welford across rows)
 * and logsumexp (a running maximum with a rescaled sum) accumulate in double.
 */
#include "reduce_kernels.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "core/scalar.h"
#include "loops.h"

/* Contiguous blocks compiled for the baseline and for AVX2 (loops.h). */
#define RK_CLONES NT_VECTOR_CLONES

/* Elements per block of the pairwise split. */
#define RK_BLOCK 4096

/* ------------------------------------------------------------------ accumulators */

/* Elements are read with loops.h's NT_LD_<ENUM>. Sum and product accumulators: integers wrap in
 * uint64 (no signed overflow). */
#define SUMACC_NT_BOOL uint64_t
#define SUMACC_NT_UINT8 uint64_t
#define SUMACC_NT_INT8 uint64_t
#define SUMACC_NT_INT16 uint64_t
#define SUMACC_NT_INT32 uint64_t
#define SUMACC_NT_INT64 uint64_t
#define SUMACC_NT_FLOAT16 float
#define SUMACC_NT_BFLOAT16 float
#define SUMACC_NT_FLOAT32 float
#define SUMACC_NT_FLOAT64 double

/* Max/min accumulators: the element itself, 16-bit floats widened (exactly) to float, bool
 * as its truth byte (0 or 1: GCC vectorises a byte max, not a _Bool one). */
#define MAXACC_NT_BOOL uint8_t
#define MAXACC_NT_UINT8 uint8_t
#define MAXACC_NT_INT8 int8_t
#define MAXACC_NT_INT16 int16_t
#define MAXACC_NT_INT32 int32_t
#define MAXACC_NT_INT64 int64_t
#define MAXACC_NT_FLOAT16 float
#define MAXACC_NT_BFLOAT16 float
#define MAXACC_NT_FLOAT32 float
#define MAXACC_NT_FLOAT64 double

#define LOWEST_NT_BOOL false
#define LOWEST_NT_UINT8 0
#define LOWEST_NT_INT8 INT8_MIN
#define LOWEST_NT_INT16 INT16_MIN
#define LOWEST_NT_INT32 INT32_MIN
#define LOWEST_NT_INT64 INT64_MIN
#define LOWEST_NT_FLOAT16 (-INFINITY)
#define LOWEST_NT_BFLOAT16 (-INFINITY)
#define LOWEST_NT_FLOAT32 (-INFINITY)
#define LOWEST_NT_FLOAT64 (-INFINITY)
#define HIGHEST_NT_BOOL true
#define HIGHEST_NT_UINT8 UINT8_MAX
#define HIGHEST_NT_INT8 INT8_MAX
#define HIGHEST_NT_INT16 INT16_MAX
#define HIGHEST_NT_INT32 INT32_MAX
#define HIGHEST_NT_INT64 INT64_MAX
#define HIGHEST_NT_FLOAT16 INFINITY
#define HIGHEST_NT_BFLOAT16 INFINITY
#define HIGHEST_NT_FLOAT32 INFINITY
#define HIGHEST_NT_FLOAT64 INFINITY

/* ------------------------------------------------------------------ stores */

static void store_float(char *out, nt_dtype dt, double v) {
    nt_store_scalar(out, dt, nt_scalar_float(v));
}
static void store_int(char *out, nt_dtype dt, int64_t v) {
    nt_store_scalar(out, dt, nt_scalar_int(v));
}

/* The dtype whose elements are the accumulator's C type (-1: none). */
// clang-format off
#define NATIVE_DTYPE(v) _Generic((v), float: (int)NT_FLOAT32, double: (int)NT_FLOAT64, \
                                 uint64_t: (int)NT_INT64, default: -1)
// clang-format on

/* A value of accumulator type A written as dtype dt (integers as int64, floats as double;
 * bool accumulators as int). */
#define STORE_VALUE(out, dt, A, v)                                                                 \
    do {                                                                                           \
        if ((int)(dt) == NATIVE_DTYPE(v)) { /* the accumulator's own dtype: its bits */            \
            memcpy(out, &(v), sizeof(v));                                                          \
        } else if ((A)0.5 != 0)                                                                    \
            store_float(out, dt, (double)(v));                                                     \
        else                                                                                       \
            store_int(out, dt, (int64_t)(v));                                                      \
    } while (0)

/* ------------------------------------------------------------------ AVX2 max/min */

/* GCC does not vectorise a NaN-propagating max, so float32/float64 blocks have an AVX2
 * form: vmaxps/vminps over 4 registers, with an unordered compare collecting NaNs. They
 * return false (the caller then runs the exact scalar block) without AVX2, for short
 * blocks, or when a NaN is present. */
static bool rk_avx2(void) {
    return nt_cpu()->avx2_fma;
}

static inline bool no_fast(const void *q, int64_t n, void *out) {
    (void)q, (void)n, (void)out;
    return false;
}

#define RK_AVX2 __attribute__((target("avx2")))

/* The largest (is_max) or smallest of n floats: 4 registers of running extremes and an
 * unordered compare that collects NaNs (false: there was one). Written once per type; each
 * caller below passes a constant is_max. */
RK_AVX2 __attribute__((always_inline)) static inline bool extreme_f32(bool is_max, const float *q,
                                                                      int64_t n, float *out) {
    __m256 a = _mm256_set1_ps(is_max ? -INFINITY : INFINITY), b = a, c = a, d = a;
    __m256 bad = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 x0 = _mm256_loadu_ps(q + i), x1 = _mm256_loadu_ps(q + i + 8);
        __m256 x2 = _mm256_loadu_ps(q + i + 16), x3 = _mm256_loadu_ps(q + i + 24);
        a = is_max ? _mm256_max_ps(a, x0) : _mm256_min_ps(a, x0);
        b = is_max ? _mm256_max_ps(b, x1) : _mm256_min_ps(b, x1);
        c = is_max ? _mm256_max_ps(c, x2) : _mm256_min_ps(c, x2);
        d = is_max ? _mm256_max_ps(d, x3) : _mm256_min_ps(d, x3);
        bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(x0, x0, _CMP_UNORD_Q),
                                                          _mm256_cmp_ps(x1, x1, _CMP_UNORD_Q)),
                                             _mm256_or_ps(_mm256_cmp_ps(x2, x2, _CMP_UNORD_Q),
                                                          _mm256_cmp_ps(x3, x3, _CMP_UNORD_Q))));
    }
    if (_mm256_movemask_ps(bad)) return false;
    a = is_max ? _mm256_max_ps(_mm256_max_ps(a, b), _mm256_max_ps(c, d))
               : _mm256_min_ps(_mm256_min_ps(a, b), _mm256_min_ps(c, d));
    float lanes[8];
    _mm256_storeu_ps(lanes, a);
    float m = lanes[0];
    for (int l = 1; l < 8; l++)
        m = (is_max ? lanes[l] > m : lanes[l] < m) ? lanes[l] : m;
    for (; i < n; i++) {
        if (q[i] != q[i]) return false;
        m = (is_max ? q[i] > m : q[i] < m) ? q[i] : m;
    }
    *out = m;
    return true;
}

/* extreme_f32 for doubles. */
RK_AVX2 __attribute__((always_inline)) static inline bool extreme_f64(bool is_max, const double *q,
                                                                      int64_t n, double *out) {
    __m256d a = _mm256_set1_pd(is_max ? -INFINITY : INFINITY), b = a, c = a, d = a;
    __m256d bad = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256d x0 = _mm256_loadu_pd(q + i), x1 = _mm256_loadu_pd(q + i + 4);
        __m256d x2 = _mm256_loadu_pd(q + i + 8), x3 = _mm256_loadu_pd(q + i + 12);
        a = is_max ? _mm256_max_pd(a, x0) : _mm256_min_pd(a, x0);
        b = is_max ? _mm256_max_pd(b, x1) : _mm256_min_pd(b, x1);
        c = is_max ? _mm256_max_pd(c, x2) : _mm256_min_pd(c, x2);
        d = is_max ? _mm256_max_pd(d, x3) : _mm256_min_pd(d, x3);
        bad = _mm256_or_pd(bad, _mm256_or_pd(_mm256_or_pd(_mm256_cmp_pd(x0, x0, _CMP_UNORD_Q),
                                                          _mm256_cmp_pd(x1, x1, _CMP_UNORD_Q)),
                                             _mm256_or_pd(_mm256_cmp_pd(x2, x2, _CMP_UNORD_Q),
                                                          _mm256_cmp_pd(x3, x3, _CMP_UNORD_Q))));
    }
    if (_mm256_movemask_pd(bad)) return false;
    a = is_max ? _mm256_max_pd(_mm256_max_pd(a, b), _mm256_max_pd(c, d))
               : _mm256_min_pd(_mm256_min_pd(a, b), _mm256_min_pd(c, d));
    double lanes[4];
    _mm256_storeu_pd(lanes, a);
    double m = lanes[0];
    for (int l = 1; l < 4; l++)
        m = (is_max ? lanes[l] > m : lanes[l] < m) ? lanes[l] : m;
    for (; i < n; i++) {
        if (q[i] != q[i]) return false;
        m = (is_max ? q[i] > m : q[i] < m) ? q[i] : m;
    }
    *out = m;
    return true;
}

RK_AVX2 static bool max_f32_avx2(const float *q, int64_t n, float *out) {
    return extreme_f32(true, q, n, out);
}
RK_AVX2 static bool min_f32_avx2(const float *q, int64_t n, float *out) {
    return extreme_f32(false, q, n, out);
}
RK_AVX2 static bool max_f64_avx2(const double *q, int64_t n, double *out) {
    return extreme_f64(true, q, n, out);
}
RK_AVX2 static bool min_f64_avx2(const double *q, int64_t n, double *out) {
    return extreme_f64(false, q, n, out);
}

/* The blocks' entry: the AVX2 form for blocks of 64 or more on a CPU that has it. */
static bool fast_max_f32(const void *q, int64_t n, void *out) {
    return n >= 64 && rk_avx2() && max_f32_avx2(q, n, out);
}
static bool fast_min_f32(const void *q, int64_t n, void *out) {
    return n >= 64 && rk_avx2() && min_f32_avx2(q, n, out);
}
static bool fast_max_f64(const void *q, int64_t n, void *out) {
    return n >= 64 && rk_avx2() && max_f64_avx2(q, n, out);
}
static bool fast_min_f64(const void *q, int64_t n, void *out) {
    return n >= 64 && rk_avx2() && min_f64_avx2(q, n, out);
}

#define FASTMAX_NT_FLOAT32 fast_max_f32
#define FASTMIN_NT_FLOAT32 fast_min_f32
#define FASTMAX_NT_FLOAT64 fast_max_f64
#define FASTMIN_NT_FLOAT64 fast_min_f64
#define FASTMAX_NT_BOOL no_fast
#define FASTMIN_NT_BOOL no_fast
#define FASTMAX_NT_UINT8 no_fast
#define FASTMIN_NT_UINT8 no_fast
#define FASTMAX_NT_INT8 no_fast
#define FASTMIN_NT_INT8 no_fast
#define FASTMAX_NT_INT16 no_fast
#define FASTMIN_NT_INT16 no_fast
#define FASTMAX_NT_INT32 no_fast
#define FASTMIN_NT_INT32 no_fast
#define FASTMAX_NT_INT64 no_fast
#define FASTMIN_NT_INT64 no_fast
#define FASTMAX_NT_FLOAT16 no_fast
#define FASTMIN_NT_FLOAT16 no_fast
#define FASTMAX_NT_BFLOAT16 no_fast
#define FASTMIN_NT_BFLOAT16 no_fast

/* ------------------------------------------------------------------ the scalar family */

/* Token pasting for the templates (reduce_fold.h, reduce_read.h), arguments expanded first. */
#define RK_CAT_(a, b) a##b
#define RK_CAT(a, b) RK_CAT_(a, b)
#define RK_CAT3_(a, b, c) a##b##c
#define RK_CAT3(a, b, c) RK_CAT3_(a, b, c)

/* The ops of the scalar folds (reduce_fold.h switches on them). */
typedef enum rk_op { RK_ADD, RK_MUL, RK_MAX, RK_MIN, RK_AND, RK_OR } rk_op;

/* Each fold's kernel for every dtype: reduce_fold.h's functions (sum_run_NT_INT8, ...) and
 * its table sum_kernel_NT_INT8, from the fold's op and its compute type for a dtype E,
 * RK_ACC(E): sums, products and means accumulate in SUMACC_E, max/min in MAXACC_E, all/any
 * in truth bytes (0 or 1). */
#define RK_BODY "reduce_fold.h"

#define RK_FOLD sum
#define RK_OP RK_ADD
#define RK_ACC(E) RK_CAT(SUMACC_, E)
#define RK_MEAN /* and mean_kernel_<float dtype>: sum's folding, divided in store */
#include "reduce_dtypes.h"

#define RK_FOLD prod
#define RK_OP RK_MUL
#define RK_ACC(E) RK_CAT(SUMACC_, E)
#include "reduce_dtypes.h"

#define RK_FOLD max
#define RK_OP RK_MAX
#define RK_ACC(E) RK_CAT(MAXACC_, E)
#include "reduce_dtypes.h"

#define RK_FOLD min
#define RK_OP RK_MIN
#define RK_ACC(E) RK_CAT(MAXACC_, E)
#include "reduce_dtypes.h"

#define RK_FOLD all
#define RK_OP RK_AND
#define RK_ACC(E) uint8_t
#include "reduce_dtypes.h"

#define RK_FOLD any
#define RK_OP RK_OR
#define RK_ACC(E) uint8_t
#include "reduce_dtypes.h"

/* ------------------------------------------------------------------ var / std */

typedef struct var_acc {
    double n, mean, m2;
} var_acc;

static void var_init(void *acc, int64_t n) {
    var_acc *a = acc;
    for (int64_t i = 0; i < n; i++)
        a[i] = (var_acc){0, 0, 0};
}

/* Chan et al.'s combination of two partial (count, mean, M2). */
static inline void var_merge(var_acc *a, const var_acc *b) {
    if (b->n == 0) return;
    if (a->n == 0) {
        *a = *b;
        return;
    }
    double n = a->n + b->n, delta = b->mean - a->mean, nb_n = b->n / n;
    a->mean += delta * nb_n;
    a->m2 += b->m2 + delta * delta * a->n * nb_n;
    a->n = n;
}

static void var_combine(void *acc, const void *other, int64_t n) {
    var_acc *a = acc;
    const var_acc *b = other;
    for (int64_t i = 0; i < n; i++)
        var_merge(&a[i], &b[i]);
}

static void var_store(char *out, nt_dtype dt, const void *acc, const nt_red_params *prm) {
    const var_acc *a = acc;
    double denom = a->n - prm->correction;
    if (denom < 0) denom = 0;
    double v = a->m2 / denom;
    store_float(out, dt, prm->take_sqrt ? sqrt(v) : v);
}

/* ------------------------------------------------------------------ logsumexp */

/* The running pair (m, s) stands for log(s) + m: m the largest element so far, s the sum
 * of exp(x - m). Infinite m and NaN follow PyTorch's results (see lse_push). */
typedef struct lse_acc {
    double m, s;
} lse_acc;

static void lse_init(void *acc, int64_t n) {
    lse_acc *a = acc;
    for (int64_t i = 0; i < n; i++)
        a[i] = (lse_acc){-INFINITY, 0};
}

static inline void lse_push(lse_acc *a, double x) {
    if (x == a->m) /* also +-inf meeting itself: exp(0) */
        a->s += 1;
    else if (x > a->m) {
        a->s = a->s * exp(a->m - x) + 1;
        a->m = x;
    } else {
        a->s += exp(x - a->m); /* NaN x makes s NaN for good */
    }
}

static inline void lse_merge(lse_acc *a, const lse_acc *b) {
    if (b->m == a->m)
        a->s += b->s;
    else if (b->m > a->m) {
        a->s = a->s * exp(a->m - b->m) + b->s;
        a->m = b->m;
    } else {
        a->s += b->s * exp(b->m - a->m);
    }
}

static void lse_combine(void *acc, const void *other, int64_t n) {
    lse_acc *a = acc;
    const lse_acc *b = other;
    for (int64_t i = 0; i < n; i++)
        lse_merge(&a[i], &b[i]);
}

static void lse_store(char *out, nt_dtype dt, const void *acc, const nt_red_params *prm) {
    (void)prm;
    const lse_acc *a = acc;
    double v = isinf(a->m) && !isnan(a->s) ? a->m : a->m + log(a->s);
    store_float(out, dt, v);
}

/* ------------------------------------------------------------------ per-dtype readers */

/* var/std's and logsumexp's run and rows for every dtype (var_kernel_NT_FLOAT32,
 * lse_kernel_NT_INT8, ...), argmax's and argmin's run and rows (argmax_run_NT_INT8, ...). */
#undef RK_BODY
#define RK_BODY "reduce_read.h"
#include "reduce_dtypes.h"

/* ------------------------------------------------------------------ the table */

#define ROW(NAME)                                                                                  \
    {                                                                                              \
        [NT_BOOL] = &NAME##_kernel_NT_BOOL, [NT_UINT8] = &NAME##_kernel_NT_UINT8,                  \
        [NT_INT8] = &NAME##_kernel_NT_INT8, [NT_INT16] = &NAME##_kernel_NT_INT16,                  \
        [NT_INT32] = &NAME##_kernel_NT_INT32, [NT_INT64] = &NAME##_kernel_NT_INT64,                \
        [NT_FLOAT16] = &NAME##_kernel_NT_FLOAT16, [NT_BFLOAT16] = &NAME##_kernel_NT_BFLOAT16,      \
        [NT_FLOAT32] = &NAME##_kernel_NT_FLOAT32, [NT_FLOAT64] = &NAME##_kernel_NT_FLOAT64,        \
    }
#define FLOAT_ROW(NAME)                                                                            \
    {                                                                                              \
        [NT_FLOAT16] = &NAME##_kernel_NT_FLOAT16, [NT_BFLOAT16] = &NAME##_kernel_NT_BFLOAT16,      \
        [NT_FLOAT32] = &NAME##_kernel_NT_FLOAT32, [NT_FLOAT64] = &NAME##_kernel_NT_FLOAT64,        \
    }

/* Which dtypes each op takes is PyTorch 1.13's CPU dispatch: prod refuses float16 and
 * bfloat16; mean and var only floats (the ops turn other dtypes into their errors);
 * logsumexp is computed on integer inputs converted to float by the op. */
static const nt_red_kernel *const kernels[NT_RED_OP_COUNT][NT_DTYPE_COUNT] = {
    [NT_RED_SUM] = ROW(sum),
    [NT_RED_PROD] = {[NT_BOOL] = &prod_kernel_NT_BOOL,
                     [NT_UINT8] = &prod_kernel_NT_UINT8,
                     [NT_INT8] = &prod_kernel_NT_INT8,
                     [NT_INT16] = &prod_kernel_NT_INT16,
                     [NT_INT32] = &prod_kernel_NT_INT32,
                     [NT_INT64] = &prod_kernel_NT_INT64,
                     [NT_FLOAT32] = &prod_kernel_NT_FLOAT32,
                     [NT_FLOAT64] = &prod_kernel_NT_FLOAT64},
    [NT_RED_MAX] = ROW(max),
    [NT_RED_MIN] = ROW(min),
    [NT_RED_ALL] = ROW(all),
    [NT_RED_ANY] = ROW(any),
    [NT_RED_VAR] = FLOAT_ROW(var),
    [NT_RED_LOGSUMEXP] = ROW(lse),
    [NT_RED_MEAN] = FLOAT_ROW(mean),
};

/* Unused kernels of the stamped families (prod for 16-bit floats) stay out of the build. */
static const nt_red_kernel *const unused_kernels[] = {&prod_kernel_NT_FLOAT16,
                                                      &prod_kernel_NT_BFLOAT16};

const nt_red_kernel *nt_red_kernel_for(nt_red_op op, nt_dtype dtype) {
    (void)unused_kernels;
    if ((int)op < 0 || op >= NT_RED_OP_COUNT || !nt_dtype_valid((int)dtype)) return NULL;
    return kernels[op][dtype];
}

/* ------------------------------------------------------------------ index reductions */

#define ARG_ENTRY(E, n_, c) [E] = {argmin_run_##E, argmax_run_##E},
#define ARG_ROWS_ENTRY(E, n_, c) [E] = {argmin_rows_##E, argmax_rows_##E},
static const nt_arg_run_fn arg_runs[NT_DTYPE_COUNT][2] = {NT_DTYPES(ARG_ENTRY)};
static const nt_arg_rows_fn arg_rows[NT_DTYPE_COUNT][2] = {NT_DTYPES(ARG_ROWS_ENTRY)};

nt_arg_run_fn nt_arg_run_for(bool is_max, nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? arg_runs[dtype][is_max] : NULL;
}

nt_arg_rows_fn nt_arg_rows_for(bool is_max, nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? arg_rows[dtype][is_max] : NULL;
}
