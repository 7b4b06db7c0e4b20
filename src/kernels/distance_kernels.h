/*
 * distance_kernels.h — the inner loops of cdist and pdist (layer L3): the p-norm distance
 * of two rows, summed in double whatever the dtype (float32 and float64 inputs) and rounded
 * once to the result. p = 0 counts the differing entries, p = inf takes the largest
 * difference; p = 1 and p = 2 have their own loops. Never fail, never allocate.
 */
#ifndef NT_KERNELS_DISTANCE_KERNELS_H
#define NT_KERNELS_DISTANCE_KERNELS_H

#include <stdint.h>

#include "ntensor.h"

/* out (rows1 x rows2, row-major) = dist(x[i], y[j]) for `batch` pairs of contiguous row
 * blocks x (rows1 x m) and y (rows2 x m), one block after another. */
void nt_cdist_kernel(nt_dtype dtype, int64_t batch, int64_t rows1, int64_t rows2, int64_t m,
                     const void *x, const void *y, void *out, double p);

/* out[k] = dist(x[i], x[j]) for i < j in row-major order of the pairs, x (n x m) contiguous. */
void nt_pdist_kernel(nt_dtype dtype, int64_t n, int64_t m, const void *x, void *out, double p);

#endif
