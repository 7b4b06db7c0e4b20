/*
 * norm_kernels.h — the row kernels of layer_norm and its backward (layer L3), float32 and
 * float64 (the ops layer computes bfloat16 in float32).
 *
 * Rows are contiguous, n elements each. A row's mean and variance come from one pass:
 * float32 rows sum x and x^2 in float64 accumulators (each square exact, so the variance
 * E[x^2] - mean^2 keeps float32's precision unless |mean| exceeds the spread by about
 * 2^14); float64 rows take a second pass over the row (in cache) for sum (x - mean)^2.
 * rstd = 1 / sqrt(var + eps), var biased. They never fail and never allocate.
 */
#ifndef NT_KERNELS_NORM_KERNELS_H
#define NT_KERNELS_NORM_KERNELS_H

#include <stdint.h>

/* y[r] = (x[r] - mean) * rstd * w + b for rows r < rows; w and b (n) may be NULL. */
void nt_layer_norm_rows_f32(const float *x, float *y, int64_t rows, int64_t n, const float *w,
                            const float *b, double eps);
void nt_layer_norm_rows_f64(const double *x, double *y, int64_t rows, int64_t n, const double *w,
                            const double *b, double eps);

/* The input gradient of rows r < rows, PyTorch's formula with g = dy * w (w NULL: 1):
 * dx = rstd * g + b' * x + c', b' = (sum(g) mean - sum(g x)) rstd^3 / n,
 * c' = -b' mean - sum(g) rstd / n; each row's mean and rstd go to mean[r], rstd[r]. */
void nt_layer_norm_backward_rows_f32(const float *dy, const float *x, const float *w, float *dx,
                                     int64_t rows, int64_t n, double eps, double *mean,
                                     double *rstd);
void nt_layer_norm_backward_rows_f64(const double *dy, const double *x, const double *w, double *dx,
                                     int64_t rows, int64_t n, double eps, double *mean,
                                     double *rstd);

/* The weight and bias gradients of columns [c0, c1): dw[j] = sum_r dy[r, j] (x[r, j] -
 * mean[r]) rstd[r], db[j] = sum_r dy[r, j], summed in float64 in row order. */
void nt_layer_norm_backward_cols_f32(const float *dy, const float *x, const double *mean,
                                     const double *rstd, int64_t rows, int64_t n, int64_t c0,
                                     int64_t c1, float *dw, float *db);
void nt_layer_norm_backward_cols_f64(const double *dy, const double *x, const double *mean,
                                     const double *rstd, int64_t rows, int64_t n, int64_t c0,
                                     int64_t c1, double *dw, double *db);

#endif
