/*
 * pool_kernels.h — the inner loops of max pooling (layer L3), for ops/pool.c.
 *
 * One kernel serves 1-d, 2-d and 3-d pooling: a plane is (T, H, W) (1-d and 2-d pooling have
 * T = H = 1 or T = 1). Each output element is the maximum of its window, PyTorch's way: the
 * window's first in-range element is the starting index, a value wins when it is greater
 * than the current maximum or NaN (so the last NaN of a window wins), and its index is the
 * flat index within the input plane (t * H * W + h * W + w). The result is the input element
 * itself (its bits), so no rounding happens. Never fails, never allocates.
 */
#ifndef NT_KERNELS_POOL_KERNELS_H
#define NT_KERNELS_POOL_KERNELS_H

#include <stdint.h>

#include "ntensor.h"

/* The geometry of a pooling, per dim (T, H, W): input and output sizes, kernel, stride,
 * padding and dilation. */
typedef struct nt_pool_geom {
    int64_t in[3], out[3], k[3], s[3], p[3], d[3];
} nt_pool_geom;

/* Pools `planes` contiguous input planes of float32, float64 or bfloat16 into contiguous
 * output planes (and their indices, when `indices` is not NULL). */
void nt_max_pool_kernel(nt_dtype dtype, int64_t planes, const nt_pool_geom *g, const void *in,
                        void *out, int64_t *indices);

#endif
