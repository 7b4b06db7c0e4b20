/*
 * softmax.c — softmax and log_softmax along a dim (layer L4), names kept.
 *
 * A row is done in three passes while it sits in cache: its maximum m, then exp(x - m)
 * (SLEEF's 1-ulp vector exp) written out and summed, then a scale by 1/sum (softmax) or
 * x - m - log(sum) (log_softmax) — PyTorch's vectorised algorithm, so values agree to a
 * few ulps, and NaN and infinities give its results (a NaN or +inf in a row makes the
 * whole row NaN). float32 and float64 rows that are contiguous in input and output run
 * in place; other rows (a strided dim, bfloat16) are gathered into a float/double buffer,
 * computed there, and scattered back. Rows run in parallel.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include <sleef.h>
#pragma GCC pop_options

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "reduce.h"

#define SM_AVX2 __attribute__((target("avx2,fma")))

static bool use_avx2(void) {
    static _Atomic int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}

/* ------------------------------------------------------------------ row kernels */

/* y = softmax(x) (or log_softmax) of n contiguous floats; y may equal x. */
SM_AVX2 static void row_f32_avx2(const float *x, float *y, int64_t n, bool log_out) {
    __m256 vm = _mm256_set1_ps(-INFINITY);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        vm = _mm256_max_ps(_mm256_loadu_ps(x + i), vm);
    float lanes[8];
    _mm256_storeu_ps(lanes, vm);
    float m = -INFINITY;
    for (int l = 0; l < 8; l++)
        m = lanes[l] > m ? lanes[l] : m;
    for (int64_t t = i; t < n; t++)
        m = x[t] > m ? x[t] : m;
    const __m256 mm = _mm256_set1_ps(m);
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 e0 = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), mm));
        __m256 e1 = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), mm));
        if (!log_out) {
            _mm256_storeu_ps(y + i, e0);
            _mm256_storeu_ps(y + i + 8, e1);
        }
        s0 = _mm256_add_ps(s0, e0);
        s1 = _mm256_add_ps(s1, e1);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 e0 = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), mm));
        if (!log_out) _mm256_storeu_ps(y + i, e0);
        s0 = _mm256_add_ps(s0, e0);
    }
    if (i < n) { /* the tail through the same vector exp, padded with -inf (exp = 0) */
        float pad[8];
        for (int l = 0; l < 8; l++)
            pad[l] = i + l < n ? x[i + l] : -INFINITY;
        __m256 e0 = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(pad), mm));
        _mm256_storeu_ps(pad, e0);
        if (!log_out)
            for (int64_t l = 0; i + l < n; l++)
                y[i + l] = pad[l];
        __m256 mask = _mm256_castsi256_ps(_mm256_cmpgt_epi32(
            _mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
        s1 = _mm256_add_ps(s1, _mm256_and_ps(e0, mask));
    }
    s0 = _mm256_add_ps(s0, s1);
    _mm256_storeu_ps(lanes, s0);
    float sum = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
                ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
    if (!log_out) {
        const __m256 inv = _mm256_set1_ps(1.0f / sum);
        i = 0;
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), inv));
        for (; i < n; i++)
            y[i] = y[i] * (1.0f / sum);
    } else {
        const __m256 ls = _mm256_set1_ps(logf(sum));
        i = 0;
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), mm), ls));
        for (; i < n; i++)
            y[i] = (x[i] - m) - logf(sum);
    }
}

SM_AVX2 static void row_f64_avx2(const double *x, double *y, int64_t n, bool log_out) {
    double m = -INFINITY;
    for (int64_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    const __m256d mm = _mm256_set1_pd(m);
    __m256d s0 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d e = Sleef_expd4_u10avx2(_mm256_sub_pd(_mm256_loadu_pd(x + i), mm));
        if (!log_out) _mm256_storeu_pd(y + i, e);
        s0 = _mm256_add_pd(s0, e);
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, s0);
    double sum = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
    for (; i < n; i++) {
        double e = Sleef_exp_u10(x[i] - m);
        if (!log_out) y[i] = e;
        sum += e;
    }
    if (!log_out) {
        double inv = 1.0 / sum;
        for (i = 0; i < n; i++)
            y[i] *= inv;
    } else {
        double ls = log(sum);
        for (i = 0; i < n; i++)
            y[i] = (x[i] - m) - ls;
    }
}

/* Portable forms for CPUs without AVX2 (scalar SLEEF). */
static void row_f32_plain(const float *x, float *y, int64_t n, bool log_out) {
    float m = -INFINITY, sum = 0;
    for (int64_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    for (int64_t i = 0; i < n; i++) {
        float e = Sleef_expf_u10(x[i] - m);
        if (!log_out) y[i] = e;
        sum += e;
    }
    for (int64_t i = 0; i < n; i++)
        y[i] = log_out ? (x[i] - m) - logf(sum) : y[i] * (1.0f / sum);
}

static void row_f64_plain(const double *x, double *y, int64_t n, bool log_out) {
    double m = -INFINITY, sum = 0;
    for (int64_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    for (int64_t i = 0; i < n; i++) {
        double e = Sleef_exp_u10(x[i] - m);
        if (!log_out) y[i] = e;
        sum += e;
    }
    for (int64_t i = 0; i < n; i++)
        y[i] = log_out ? (x[i] - m) - log(sum) : y[i] * (1.0 / sum);
}

/* NaN anywhere makes the row NaN, as PyTorch's NaN-propagating maximum does. The vector
 * maximum above skips NaN, but exp(NaN - m) then puts NaN in the sum, and so everywhere. */
static void row_f32(const float *x, float *y, int64_t n, bool log_out) {
    if (use_avx2())
        row_f32_avx2(x, y, n, log_out);
    else
        row_f32_plain(x, y, n, log_out);
}

static void row_f64(const double *x, double *y, int64_t n, bool log_out) {
    if (use_avx2())
        row_f64_avx2(x, y, n, log_out);
    else
        row_f64_plain(x, y, n, log_out);
}

/* ------------------------------------------------------------------ rows in parallel */

typedef struct sm_job {
    const nt_red_plan *p;
    nt_dtype dtype;
    int64_t n, is, os; /* the row: length, input and output byte strides */
    bool log_out;
    bool direct; /* rows contiguous in input and output, float32/float64 */
    _Atomic int failed;
} sm_job;

static void sm_task(void *ctx, int64_t b, int64_t e) {
    sm_job *j = ctx;
    const nt_red_plan *p = j->p;
    void *buf = NULL;
    if (!j->direct) {
        buf = malloc((size_t)j->n * sizeof(double));
        if (!buf) {
            atomic_store(&j->failed, 1);
            return;
        }
    }
    for (int64_t o = b; o < e; o++) {
        int64_t in, out;
        nt_red_plan_offsets(p, o, &in, &out, NULL);
        const char *x = p->in + in;
        char *y = p->out + out;
        if (j->direct) {
            if (j->dtype == NT_FLOAT64)
                row_f64((const double *)x, (double *)y, j->n, j->log_out);
            else
                row_f32((const float *)x, (float *)y, j->n, j->log_out);
            continue;
        }
        if (j->dtype == NT_FLOAT64) {
            double *d = buf;
            for (int64_t i = 0; i < j->n; i++)
                d[i] = *(const double *)(x + i * j->is);
            row_f64(d, d, j->n, j->log_out);
            for (int64_t i = 0; i < j->n; i++)
                *(double *)(y + i * j->os) = d[i];
        } else {
            float *f = buf;
            for (int64_t i = 0; i < j->n; i++)
                f[i] = (float)nt_load_double(x + i * j->is, j->dtype);
            row_f32(f, f, j->n, j->log_out);
            for (int64_t i = 0; i < j->n; i++)
                nt_store_scalar(y + i * j->os, j->dtype, nt_scalar_float(f[i]));
        }
    }
    free(buf);
}

static nt_status softmax_impl(bool log_out, nt_tensor *t, int64_t dim, int dtype, nt_tensor **out) {
    const char *fname = log_out ? "log_softmax" : "softmax";
    if (!t) return nt_fail(NT_ERR_TYPE, "%s(): argument 'input' must be Tensor, not NULL", fname);
    if (!out) return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", fname);
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
    nt_dtype target = dtype >= 0 ? (nt_dtype)dtype : t->dtype;
    if (target != NT_FLOAT32 && target != NT_FLOAT64 && target != NT_BFLOAT16) {
        bool last = t->ndim == 0 || d == t->ndim - 1;
        char kernel[64];
        /* PyTorch names the lastdim kernels per op, the other one "softmax" for both */
        snprintf(kernel, sizeof kernel, "%s_kernel_impl",
                 last ? (log_out ? "log_softmax_lastdim" : "softmax_lastdim") : "softmax");
        return nt_red_not_implemented(kernel, target);
    }
    nt_tensor *src = NULL, *result = NULL;
    nt_status st;
    NT_CHECK(st, nt_to_dtype(t, target, &src));
    NT_CHECK(st, nt_tensor_alloc(target, t->ndim, t->sizes, t->names, &result));
    if (t->numel > 0) {
        nt_red_plan p;
        nt_red_plan_build(&p, src, t->ndim ? (uint64_t)1 << d : 0, true, result, NULL);
        int64_t es = (int64_t)nt_dtype_table[target].size;
        sm_job j = {.p = &p, .dtype = target, .log_out = log_out};
        j.n = t->ndim ? t->sizes[d] : 1;
        j.is = t->ndim ? src->strides[d] * es : es;
        j.os = t->ndim ? result->strides[d] * es : es;
        j.direct = target != NT_BFLOAT16 && (j.is == es || j.n == 1) && (j.os == es || j.n == 1);
        atomic_store(&j.failed, 0);
        nt_parallel_for(0, p.nout, NT_GRAIN_SIZE / (4 * j.n) + 1, sm_task, &j);
        if (atomic_load(&j.failed)) {
            st = nt_fail_oom((size_t)j.n * sizeof(double));
            goto fail;
        }
    }
    nt_tensor_release(src);
    *out = result;
    return NT_OK;
fail:
    nt_tensor_release(src);
    nt_tensor_release(result);
    return st;
}

nt_status nt_softmax(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out) {
    return softmax_impl(false, t, dim, dtype, out);
}

nt_status nt_log_softmax(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out) {
    return softmax_impl(true, t, dim, dtype, out);
}
