/*
 * softmax_kernels.h — softmax and log_softmax of contiguous rows (layer L3), for
 * ops/softmax.c: y = softmax(x) or log_softmax(x) of each row of n elements (y may be x).
 * AVX2 and FMA when the CPU has them, else portable code; never fail, never allocate.
 */
#ifndef NT_KERNELS_SOFTMAX_KERNELS_H
#define NT_KERNELS_SOFTMAX_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"

void nt_softmax_row_f32(const float *x, float *y, int64_t n, bool log_out);
void nt_softmax_row_f64(const double *x, double *y, int64_t n, bool log_out);
/* `rows` packed rows of n floats (row r at x + r * n). */
void nt_softmax_rows_f32(const float *x, float *y, int64_t rows, int64_t n, bool log_out);
/* A row of n elements of `dtype` (bfloat16, float32, float64) at byte strides `is` (x) and
 * `os` (y): gathered into buf (room for n doubles) as float (double for float64), computed
 * there and scattered back, rounded once to the dtype. */
void nt_softmax_row_strided(const char *x, int64_t is, char *y, int64_t os, int64_t n,
                            nt_dtype dtype, bool log_out, void *buf);

/* Softmax's gradient over `rows` packed rows of n (float32 or float64): out = y * (g - sum(g y))
 * for each row, out a distinct buffer. The sum is in the dtype, in lanes (AVX2: 16, else 4). */
void nt_softmax_backward_rows(nt_dtype dtype, const void *y, const void *g, void *out, int64_t rows,
                              int64_t n);

#endif
