/*
 * pool_kernels.c — max pooling's loops (pool_kernels.h): one output element at a time,
 * planes split over threads.
 */
#include "pool_kernels.h"

#include <math.h>
#include <string.h>

#include "core/dtype.h"
#include "core/half.h"
#include "core/parallel.h"

typedef struct pool_job {
    nt_dtype dtype;
    const nt_pool_geom *g;
    const char *in;
    char *out;
    int64_t *indices;
} pool_job;

static inline double load(nt_dtype dtype, const char *base, int64_t i) {
    switch (dtype) {
    case NT_FLOAT32:
        return ((const float *)base)[i];
    case NT_FLOAT64:
        return ((const double *)base)[i];
    default:
        return nt_bf16_to_f32(((const nt_bfloat16 *)base)[i]);
    }
}

/* The first in-range position of a window along one dim, and its end (exclusive). */
static inline void window(const nt_pool_geom *g, int dim, int64_t o, int64_t *start, int64_t *end) {
    int64_t s0 = o * g->s[dim] - g->p[dim];
    int64_t e = s0 + (g->k[dim] - 1) * g->d[dim] + 1;
    *end = e < g->in[dim] ? e : g->in[dim];
    while (s0 < 0)
        s0 += g->d[dim];
    *start = s0;
}

static void pool_planes(void *ctx, int64_t begin, int64_t end) {
    const pool_job *j = ctx;
    const nt_pool_geom *g = j->g;
    const size_t es = nt_dtype_table[j->dtype].size;
    const int64_t in_plane = g->in[0] * g->in[1] * g->in[2];
    const int64_t out_plane = g->out[0] * g->out[1] * g->out[2];
    const int64_t hw = g->in[1] * g->in[2];
    for (int64_t p = begin; p < end; p++) {
        const char *in = j->in + (size_t)(p * in_plane) * es;
        char *out = j->out + (size_t)(p * out_plane) * es;
        int64_t *ind = j->indices ? j->indices + p * out_plane : NULL;
        int64_t o = 0;
        for (int64_t ot = 0; ot < g->out[0]; ot++) {
            int64_t t0, t1;
            window(g, 0, ot, &t0, &t1);
            for (int64_t oh = 0; oh < g->out[1]; oh++) {
                int64_t h0, h1;
                window(g, 1, oh, &h0, &h1);
                for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {
                    int64_t w0, w1;
                    window(g, 2, ow, &w0, &w1);
                    int64_t best = t0 * hw + h0 * g->in[2] + w0;
                    double max = -INFINITY;
                    for (int64_t t = t0; t < t1; t += g->d[0])
                        for (int64_t h = h0; h < h1; h += g->d[1])
                            for (int64_t w = w0; w < w1; w += g->d[2]) {
                                int64_t i = t * hw + h * g->in[2] + w;
                                double v = load(j->dtype, in, i);
                                if (v > max || isnan(v)) {
                                    max = v;
                                    best = i;
                                }
                            }
                    memcpy(out + (size_t)o * es, in + (size_t)best * es, es);
                    if (ind) ind[o] = best;
                }
            }
        }
    }
}

void nt_max_pool_kernel(nt_dtype dtype, int64_t planes, const nt_pool_geom *g, const void *in,
                        void *out, int64_t *indices) {
    pool_job j = {dtype, g, in, out, indices};
    int64_t work = g->out[0] * g->out[1] * g->out[2] * g->k[0] * g->k[1] * g->k[2];
    int64_t grain = work > 0 ? NT_GRAIN_SIZE / work + 1 : planes + 1;
    nt_parallel_for(0, planes, grain, pool_planes, &j);
}
