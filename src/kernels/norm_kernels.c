/*
 * norm_kernels.c — layer_norm's row kernels (norm_kernels.h). Sums use eight partial
 * accumulators so that they vectorise without reassociating by the compiler; the loops are
 * compiled for the baseline and for x86-64-v3 (AVX2 + FMA), the loader picks one.
 */
#include "norm_kernels.h"

#include <math.h>

/* x86-64 levels by GCC's names; clang 14 (the fuzz build) links no clones of external functions */
#if defined(__clang__)
#define LN_CLONES
#else
#define LN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif

/* sum x and sum x^2 of a float row, in double, eight lanes */
static inline void sums_f32(const float *x, int64_t n, double *s, double *ss) {
    double a[8] = {0}, q[8] = {0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) {
            const double v = x[i + k];
            a[k] += v;
            q[k] += v * v;
        }
    for (int k = 0; i < n; i++, k++) {
        const double v = x[i];
        a[k] += v;
        q[k] += v * v;
    }
    *s = ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
    *ss = ((q[0] + q[4]) + (q[1] + q[5])) + ((q[2] + q[6]) + (q[3] + q[7]));
}

static inline void moments_f32(const float *x, int64_t n, double eps, double *mean, double *rstd) {
    double s, ss;
    sums_f32(x, n, &s, &ss);
    const double m = s / (double)n;
    double var = ss / (double)n - m * m;
    if (var < 0) var = 0;
    *mean = m;
    *rstd = 1.0 / sqrt(var + eps);
}

/* the double row: mean, then sum (x - mean)^2 */
static inline void moments_f64(const double *x, int64_t n, double eps, double *mean, double *rstd) {
    double a[4] = {0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            a[k] += x[i + k];
    for (int k = 0; i < n; i++, k++)
        a[k] += x[i];
    const double m = ((a[0] + a[2]) + (a[1] + a[3])) / (double)n;
    double q[4] = {0};
    i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) {
            const double d = x[i + k] - m;
            q[k] += d * d;
        }
    for (int k = 0; i < n; i++, k++) {
        const double d = x[i] - m;
        q[k] += d * d;
    }
    *mean = m;
    *rstd = 1.0 / sqrt(((q[0] + q[2]) + (q[1] + q[3])) / (double)n + eps);
}

/* y = (x * a + c) * w + b with a = rstd, c = -mean * rstd, in the element type T */
#define NORMALIZE(T)                                                                               \
    do {                                                                                           \
        const T a = (T)rstd, c = (T)(-mean * rstd);                                                \
        if (w && b)                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = (x[i] * a + c) * w[i] + b[i];                                               \
        else if (w)                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = (x[i] * a + c) * w[i];                                                      \
        else if (b)                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = (x[i] * a + c) + b[i];                                                      \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = x[i] * a + c;                                                               \
    } while (0)

LN_CLONES void nt_layer_norm_rows_f32(const float *x, float *y, int64_t rows, int64_t n,
                                      const float *w, const float *b, double eps) {
    for (int64_t r = 0; r < rows; r++, x += n, y += n) {
        double mean, rstd;
        moments_f32(x, n, eps, &mean, &rstd);
        NORMALIZE(float);
    }
}

LN_CLONES void nt_layer_norm_rows_f64(const double *x, double *y, int64_t rows, int64_t n,
                                      const double *w, const double *b, double eps) {
    for (int64_t r = 0; r < rows; r++, x += n, y += n) {
        double mean, rstd;
        moments_f64(x, n, eps, &mean, &rstd);
        NORMALIZE(double);
    }
}

/* One row's input gradient in compute type T (float rows sum in double). */
#define BACKWARD_ROWS(NAME, T, MOMENTS)                                                            \
    LN_CLONES void NAME(const T *dy, const T *x, const T *w, T *dx, int64_t rows, int64_t n,       \
                        double eps, double *mean, double *rstd) {                                  \
        for (int64_t r = 0; r < rows; r++, dy += n, x += n, dx += n) {                             \
            double m, rs;                                                                          \
            MOMENTS(x, n, eps, &m, &rs);                                                           \
            mean[r] = m, rstd[r] = rs;                                                             \
            double sg[8] = {0}, sgx[8] = {0};                                                      \
            int64_t i = 0;                                                                         \
            for (; i + 8 <= n; i += 8)                                                             \
                for (int k = 0; k < 8; k++) {                                                      \
                    const double g = (double)dy[i + k] * (w ? (double)w[i + k] : 1.0);             \
                    sg[k] += g;                                                                    \
                    sgx[k] += g * (double)x[i + k];                                                \
                }                                                                                  \
            for (int k = 0; i < n; i++, k++) {                                                     \
                const double g = (double)dy[i] * (w ? (double)w[i] : 1.0);                         \
                sg[k] += g;                                                                        \
                sgx[k] += g * (double)x[i];                                                        \
            }                                                                                      \
            const double db =                                                                      \
                ((sg[0] + sg[4]) + (sg[1] + sg[5])) + ((sg[2] + sg[6]) + (sg[3] + sg[7]));         \
            const double ds =                                                                      \
                ((sgx[0] + sgx[4]) + (sgx[1] + sgx[5])) + ((sgx[2] + sgx[6]) + (sgx[3] + sgx[7])); \
            const double scale = 1.0 / (double)n;                                                  \
            const double bb = (db * m - ds) * rs * rs * rs * scale;                                \
            const double cc = -bb * m - db * rs * scale;                                           \
            const T a = (T)rs, b2 = (T)bb, c2 = (T)cc;                                             \
            if (w)                                                                                 \
                for (int64_t j = 0; j < n; j++)                                                    \
                    dx[j] = a * (dy[j] * w[j]) + b2 * x[j] + c2;                                   \
            else                                                                                   \
                for (int64_t j = 0; j < n; j++)                                                    \
                    dx[j] = a * dy[j] + b2 * x[j] + c2;                                            \
        }                                                                                          \
    }
BACKWARD_ROWS(nt_layer_norm_backward_rows_f32, float, moments_f32)
BACKWARD_ROWS(nt_layer_norm_backward_rows_f64, double, moments_f64)

#define BACKWARD_COLS(NAME, T)                                                                     \
    LN_CLONES void NAME(const T *dy, const T *x, const double *mean, const double *rstd,           \
                        int64_t rows, int64_t n, int64_t c0, int64_t c1, T *dw, T *db) {           \
        double sw[64], sb[64];                                                                     \
        for (int64_t j0 = c0; j0 < c1; j0 += 64) {                                                 \
            const int64_t len = c1 - j0 < 64 ? c1 - j0 : 64;                                       \
            for (int64_t j = 0; j < len; j++)                                                      \
                sw[j] = sb[j] = 0;                                                                 \
            for (int64_t r = 0; r < rows; r++) {                                                   \
                const T *g = dy + r * n + j0, *xr = x + r * n + j0;                                \
                const double m = mean[r], rs = rstd[r];                                            \
                for (int64_t j = 0; j < len; j++) {                                                \
                    sw[j] += (double)g[j] * (((double)xr[j] - m) * rs);                            \
                    sb[j] += (double)g[j];                                                         \
                }                                                                                  \
            }                                                                                      \
            for (int64_t j = 0; j < len; j++) {                                                    \
                dw[j0 + j] = (T)sw[j];                                                             \
                db[j0 + j] = (T)sb[j];                                                             \
            }                                                                                      \
        }                                                                                          \
    }
BACKWARD_COLS(nt_layer_norm_backward_cols_f32, float)
BACKWARD_COLS(nt_layer_norm_backward_cols_f64, double)
