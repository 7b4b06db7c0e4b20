/*
 * distance_kernels.c — p-norm distances of rows (distance_kernels.h), rows of the result
 * split over threads.
 */
#include "distance_kernels.h"

#include <math.h>
#include <stdbool.h>

#include "core/parallel.h"

/* Element i of a float32 (f32) or float64 row, as a double. */
static inline double ld(const void *row, int64_t i, bool f32) {
    return f32 ? (double)((const float *)row)[i] : ((const double *)row)[i];
}

/* The p-norm distance of two rows of m elements, accumulated in double (the branch on the
 * dtype is the same for every element, so it predicts perfectly). */
static double dist(const void *a, const void *b, int64_t m, double p, bool f32) {
    double acc = 0;
    if (p == 2) {
        for (int64_t i = 0; i < m; i++) {
            double d = ld(a, i, f32) - ld(b, i, f32);
            acc += d * d;
        }
        return sqrt(acc);
    }
    if (p == 1) {
        for (int64_t i = 0; i < m; i++)
            acc += fabs(ld(a, i, f32) - ld(b, i, f32));
        return acc;
    }
    if (p == 0) {
        for (int64_t i = 0; i < m; i++)
            acc += ld(a, i, f32) != ld(b, i, f32);
        return acc;
    }
    if (isinf(p)) {
        for (int64_t i = 0; i < m; i++) {
            double d = fabs(ld(a, i, f32) - ld(b, i, f32));
            acc = d > acc || isnan(d) ? d : acc;
        }
        return acc;
    }
    for (int64_t i = 0; i < m; i++)
        acc += pow(fabs(ld(a, i, f32) - ld(b, i, f32)), p);
    return pow(acc, 1.0 / p);
}

/* Stores v rounded to the result's dtype. */
static inline void st(void *out, int64_t i, double v, bool f32) {
    if (f32)
        ((float *)out)[i] = (float)v;
    else
        ((double *)out)[i] = v;
}

typedef struct dist_job {
    nt_dtype dtype;
    int64_t rows1, rows2, m, n;
    const char *x, *y;
    char *out;
    double p;
} dist_job;

/* cdist: rows [begin, end) of the batched result (batch * rows1 rows). */
static void cdist_rows(void *ctx, int64_t begin, int64_t end) {
    const dist_job *j = ctx;
    const bool f32 = j->dtype == NT_FLOAT32;
    const int64_t es = f32 ? 4 : 8;
    for (int64_t r = begin; r < end; r++) {
        int64_t b = r / j->rows1;
        for (int64_t c = 0; c < j->rows2; c++) {
            int64_t xi = r * j->m, yi = (b * j->rows2 + c) * j->m;
            st(j->out, r * j->rows2 + c, dist(j->x + xi * es, j->y + yi * es, j->m, j->p, f32),
               f32);
        }
    }
}

void nt_cdist_kernel(nt_dtype dtype, int64_t batch, int64_t rows1, int64_t rows2, int64_t m,
                     const void *x, const void *y, void *out, double p) {
    dist_job j = {dtype, rows1, rows2, m, 0, x, y, out, p};
    int64_t per_row = rows2 * m;
    nt_parallel_for(0, batch * rows1, per_row > 0 ? NT_GRAIN_SIZE / per_row + 1 : 1, cdist_rows,
                    &j);
}

/* pdist: the pairs whose first row is in [begin, end). */
static void pdist_rows(void *ctx, int64_t begin, int64_t end) {
    const dist_job *j = ctx;
    const bool f32 = j->dtype == NT_FLOAT32;
    const int64_t es = f32 ? 4 : 8;
    for (int64_t i = begin; i < end; i++) {
        /* pairs before row i: i*n - i*(i+1)/2 */
        int64_t k = i * j->n - i * (i + 1) / 2;
        for (int64_t c = i + 1; c < j->n; c++, k++) {
            st(j->out, k, dist(j->x + i * j->m * es, j->x + c * j->m * es, j->m, j->p, f32), f32);
        }
    }
}

void nt_pdist_kernel(nt_dtype dtype, int64_t n, int64_t m, const void *x, void *out, double p) {
    dist_job j = {dtype, 0, 0, m, n, x, x, out, p};
    int64_t per_row = n * m;
    nt_parallel_for(0, n, per_row > 0 ? NT_GRAIN_SIZE / per_row + 1 : 1, pdist_rows, &j);
}
