/*
 * scan_kernels.c — the scans' line kernels (scan_kernels.h): running sums and products
 * (lines and lanes), running log-sum-exp, running max/min with indices.
 */
#include "scan_kernels.h"

#include <math.h>

#include "kernels/loops.h"

/* ------------------------------------------------------------------ cumsum, cumprod */

/* One element type E (C type c, accumulator A): the line and lanes loops of a sum (P 0) or
 * a product (P 1). */
#define STAMP_SCAN(E, c, A, P, OP)                                                                 \
    static void line_##OP##_##E(const char *in, int64_t is, char *out, int64_t os, int64_t n) {    \
        A acc = (A)P;                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            acc = P ? acc * (A)NT_LD_##E(*(const c *)(in + i * is))                                \
                    : acc + (A)NT_LD_##E(*(const c *)(in + i * is));                               \
            *(c *)(out + i * os) = NT_ST_##E(acc);                                                 \
        }                                                                                          \
    }                                                                                              \
    static void init_##OP##_##E(void *acc, int64_t w) {                                            \
        A *a = acc;                                                                                \
        for (int64_t i = 0; i < w; i++)                                                            \
            a[i] = (A)P;                                                                           \
    }                                                                                              \
    static void lanes_##OP##_##E(void *acc, const char *in, int64_t is, char *out, int64_t os,     \
                                 int64_t w) {                                                      \
        A *restrict a = acc;                                                                       \
        if (is == (int64_t)sizeof(c) && os == (int64_t)sizeof(c)) {                                \
            const c *restrict x = (const c *)in;                                                   \
            c *restrict y = (c *)out;                                                              \
            for (int64_t i = 0; i < w; i++)                                                        \
                y[i] =                                                                             \
                    NT_ST_##E(a[i] = P ? a[i] * (A)NT_LD_##E(x[i]) : a[i] + (A)NT_LD_##E(x[i]));   \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < w; i++) {                                                          \
            A x = (A)NT_LD_##E(*(const c *)(in + i * is));                                         \
            a[i] = P ? a[i] * x : a[i] + x;                                                        \
            *(c *)(out + i * os) = NT_ST_##E(a[i]);                                                \
        }                                                                                          \
    }

#define STAMP_SUM_PROD(E, c, A)                                                                    \
    STAMP_SCAN(E, c, A, 0, sum)                                                                    \
    STAMP_SCAN(E, c, A, 1, prod)

STAMP_SUM_PROD(NT_BOOL, nt_bool, uint64_t)
STAMP_SUM_PROD(NT_UINT8, uint8_t, uint64_t)
STAMP_SUM_PROD(NT_INT8, int8_t, uint64_t)
STAMP_SUM_PROD(NT_INT16, int16_t, uint64_t)
STAMP_SUM_PROD(NT_INT32, int32_t, uint64_t)
STAMP_SUM_PROD(NT_INT64, int64_t, uint64_t)
STAMP_SUM_PROD(NT_BFLOAT16, nt_bfloat16, double)
STAMP_SUM_PROD(NT_FLOAT32, float, double)
STAMP_SUM_PROD(NT_FLOAT64, double, double)

/* ------------------------------------------------------------------ logcumsumexp */

/* PyTorch's _log_add_exp_helper: log(exp(a) + exp(b)) without overflow; two equal
 * infinities give themselves (-inf + -inf stays -inf, not NaN). */
static inline double log_add_exp(double a, double b) {
    if (isnan(a) || isnan(b)) return NAN;
    double lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo != hi || isfinite(lo)) return log1p(exp(lo - hi)) + hi;
    return a;
}

#define STAMP_LOGCUMSUMEXP(E, c)                                                                   \
    static void line_lse_##E(const char *in, int64_t is, char *out, int64_t os, int64_t n) {       \
        double acc = -INFINITY;                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            acc = log_add_exp((double)NT_LD_##E(*(const c *)(in + i * is)), acc);                  \
            *(c *)(out + i * os) = NT_ST_##E(acc);                                                 \
        }                                                                                          \
    }
STAMP_LOGCUMSUMEXP(NT_BFLOAT16, nt_bfloat16)
STAMP_LOGCUMSUMEXP(NT_FLOAT32, float)
STAMP_LOGCUMSUMEXP(NT_FLOAT64, double)

/* ------------------------------------------------------------------ the table */

#define SUM_ROW(E) [E] = {line_sum_##E, lanes_sum_##E, init_sum_##E}
#define PROD_ROW(E) [E] = {line_prod_##E, lanes_prod_##E, init_prod_##E}
#define LSE_ROW(E) [E] = {line_lse_##E, NULL, NULL}

/* float16 is missing, as in PyTorch 1.13 ("cumsum_out_cpu" not implemented for 'Half');
 * logcumsumexp takes floating types only. */
static const nt_scan_kernel kernels[NT_SCAN_KIND_COUNT][NT_DTYPE_COUNT] = {
    [NT_SCAN_SUM] = {SUM_ROW(NT_BOOL), SUM_ROW(NT_UINT8), SUM_ROW(NT_INT8), SUM_ROW(NT_INT16),
                     SUM_ROW(NT_INT32), SUM_ROW(NT_INT64), SUM_ROW(NT_BFLOAT16),
                     SUM_ROW(NT_FLOAT32), SUM_ROW(NT_FLOAT64)},
    [NT_SCAN_PROD] = {PROD_ROW(NT_BOOL), PROD_ROW(NT_UINT8), PROD_ROW(NT_INT8), PROD_ROW(NT_INT16),
                      PROD_ROW(NT_INT32), PROD_ROW(NT_INT64), PROD_ROW(NT_BFLOAT16),
                      PROD_ROW(NT_FLOAT32), PROD_ROW(NT_FLOAT64)},
    [NT_SCAN_LOGSUMEXP] = {LSE_ROW(NT_BFLOAT16), LSE_ROW(NT_FLOAT32), LSE_ROW(NT_FLOAT64)},
};

const nt_scan_kernel *nt_scan_kernel_for(nt_scan_kind kind, nt_dtype dtype) {
    if ((unsigned)kind >= NT_SCAN_KIND_COUNT || (unsigned)dtype >= NT_DTYPE_COUNT) return NULL;
    const nt_scan_kernel *k = &kernels[kind][dtype];
    return k->line ? k : NULL;
}

/* ------------------------------------------------------------------ cummax, cummin */

/* Comparisons in the element's own type (int64 exactly); x is NaN-free for integers. */
static inline bool is_nan_d(double x) {
    return x != x;
}

#define STAMP_CUMEXT(E, c, NAME, CMP)                                                              \
    static void NAME##_##E(const char *in, int64_t is, char *out, int64_t os, int64_t *idx,        \
                           int64_t xs, int64_t n) {                                                \
        c best = *(const c *)in;                                                                   \
        int64_t at = 0;                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                          \
            c x = *(const c *)(in + i * is);                                                       \
            double xd = (double)NT_LD_##E(x), bd = (double)NT_LD_##E(best);                        \
            if (is_nan_d(xd) || (!is_nan_d(bd) && NT_LD_##E(x) CMP NT_LD_##E(best))) {             \
                best = x;                                                                          \
                at = i;                                                                            \
            }                                                                                      \
            *(c *)(out + i * os) = best;                                                           \
            *(int64_t *)((char *)idx + i * xs) = at;                                               \
        }                                                                                          \
    }
#define STAMP_CUMEXT_BOTH(E, c)                                                                    \
    STAMP_CUMEXT(E, c, cummax, >=)                                                                 \
    STAMP_CUMEXT(E, c, cummin, <=)

STAMP_CUMEXT_BOTH(NT_BOOL, nt_bool)
STAMP_CUMEXT_BOTH(NT_UINT8, uint8_t)
STAMP_CUMEXT_BOTH(NT_INT8, int8_t)
STAMP_CUMEXT_BOTH(NT_INT16, int16_t)
STAMP_CUMEXT_BOTH(NT_INT32, int32_t)
STAMP_CUMEXT_BOTH(NT_INT64, int64_t)
STAMP_CUMEXT_BOTH(NT_BFLOAT16, nt_bfloat16)
STAMP_CUMEXT_BOTH(NT_FLOAT32, float)
STAMP_CUMEXT_BOTH(NT_FLOAT64, double)

/* float16 is missing, as in PyTorch 1.13 ("cummax_cpu" not implemented for 'Half'). */
static const nt_cumext_line_fn cumext[2][NT_DTYPE_COUNT] = {
    {[NT_BOOL] = cummin_NT_BOOL,
     [NT_UINT8] = cummin_NT_UINT8,
     [NT_INT8] = cummin_NT_INT8,
     [NT_INT16] = cummin_NT_INT16,
     [NT_INT32] = cummin_NT_INT32,
     [NT_INT64] = cummin_NT_INT64,
     [NT_BFLOAT16] = cummin_NT_BFLOAT16,
     [NT_FLOAT32] = cummin_NT_FLOAT32,
     [NT_FLOAT64] = cummin_NT_FLOAT64},
    {[NT_BOOL] = cummax_NT_BOOL,
     [NT_UINT8] = cummax_NT_UINT8,
     [NT_INT8] = cummax_NT_INT8,
     [NT_INT16] = cummax_NT_INT16,
     [NT_INT32] = cummax_NT_INT32,
     [NT_INT64] = cummax_NT_INT64,
     [NT_BFLOAT16] = cummax_NT_BFLOAT16,
     [NT_FLOAT32] = cummax_NT_FLOAT32,
     [NT_FLOAT64] = cummax_NT_FLOAT64},
};

nt_cumext_line_fn nt_cumext_line_for(bool is_max, nt_dtype dtype) {
    return (unsigned)dtype < NT_DTYPE_COUNT ? cumext[is_max][dtype] : NULL;
}
