/*
 * softmax_kernels.c — the row kernels of softmax and log_softmax (softmax_kernels.h): AVX2
 * forms (one register for rows of up to 8, an 8x8 transpose for eight such rows at once,
 * a three-pass loop for longer rows) and portable ones for CPUs without AVX2; strided and
 * bfloat16 rows through a buffer in the compute type.
 *
 * A row is done in three passes while it sits in cache: its maximum m, then exp(x - m)
 * (a 1-ulp vector exp: kernels/vec_exp.h for float32 with AVX2, else SLEEF's) written out
 * and summed, then a scale by 1/sum (softmax) or x - m - log(sum) (log_softmax) —
 * PyTorch's vectorised algorithm, so values agree to a few ulps, and NaN and infinities give
 * its results (a NaN or +inf in a row makes the whole row NaN).
 */
#include "softmax_kernels.h"

#include <math.h>

#include <immintrin.h>

#include "kernels/sleef_avx2.h"

#include "core/cpu.h"
#include "core/scalar.h"
#include "kernels/vec_exp.h"

#define SM_AVX2 __attribute__((target("avx2,fma")))

static bool use_avx2(void) {
    return nt_cpu()->avx2_fma;
}

/* ------------------------------------------------------------------ row kernels */

/* The maximum of v's lanes, in every lane. */
SM_AVX2 static inline __m256 hmax8(__m256 v) {
    v = _mm256_max_ps(v, _mm256_permute2f128_ps(v, v, 1));
    v = _mm256_max_ps(v, _mm256_shuffle_ps(v, v, 0x4e));
    return _mm256_max_ps(v, _mm256_shuffle_ps(v, v, 0xb1));
}

/* ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)) of v's lanes l, in every lane. */
SM_AVX2 static inline __m256 hsum8(__m256 v) {
    v = _mm256_add_ps(v, _mm256_permute2f128_ps(v, v, 1));
    v = _mm256_add_ps(v, _mm256_shuffle_ps(v, v, 0xb1));
    return _mm256_add_ps(v, _mm256_shuffle_ps(v, v, 0x4e));
}

/* Lanes below n set (n <= 8). */
SM_AVX2 static inline __m256i lanes_below(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* A row of 1 to 8 floats, all in one register (the rows of a small tensor): the same
 * arithmetic as row_f32_avx2's, without its loops. */
SM_AVX2 static inline void row8_f32_avx2(const float *x, float *y, int64_t n, bool log_out) {
    /* a full row without masks: AMD's masked store is microcoded, a dozen times slower */
    __m256i in_row = lanes_below(n);
    __m256 v = n == 8 ? _mm256_loadu_ps(x)
                      : _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(x, in_row),
                                         _mm256_castsi256_ps(in_row));
    __m256 mm = hmax8(v);
    __m256 d = _mm256_sub_ps(v, mm);
    __m256 e = _mm256_and_ps(nt_expf8(d), _mm256_castsi256_ps(in_row));
    __m256 sum = hsum8(e);
    __m256 r;
    if (!log_out) {
        r = _mm256_mul_ps(e, _mm256_div_ps(_mm256_set1_ps(1.0f), sum));
    } else {
        r = _mm256_sub_ps(d, _mm256_set1_ps(logf(_mm256_cvtss_f32(sum))));
    }
    if (n == 8)
        _mm256_storeu_ps(y, r);
    else
        _mm256_maskstore_ps(y, in_row, r);
}

/* y = softmax(x) (or log_softmax) of n contiguous floats; y may equal x. */
SM_AVX2 static void row_f32_avx2(const float *x, float *y, int64_t n, bool log_out) {
    if (n <= 8) {
        row8_f32_avx2(x, y, n, log_out);
        return;
    }
    __m256 vm = _mm256_set1_ps(-INFINITY);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        vm = _mm256_max_ps(_mm256_loadu_ps(x + i), vm);
    float m = _mm256_cvtss_f32(hmax8(vm));
    for (int64_t t = i; t < n; t++)
        m = x[t] > m ? x[t] : m;
    const __m256 mm = _mm256_set1_ps(m);
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 e0 = nt_expf8(_mm256_sub_ps(_mm256_loadu_ps(x + i), mm));
        __m256 e1 = nt_expf8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), mm));
        if (!log_out) {
            _mm256_storeu_ps(y + i, e0);
            _mm256_storeu_ps(y + i + 8, e1);
        }
        s0 = _mm256_add_ps(s0, e0);
        s1 = _mm256_add_ps(s1, e1);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 e0 = nt_expf8(_mm256_sub_ps(_mm256_loadu_ps(x + i), mm));
        if (!log_out) _mm256_storeu_ps(y + i, e0);
        s0 = _mm256_add_ps(s0, e0);
    }
    if (i < n) { /* the tail through the same vector exp, padded with -inf (exp = 0) */
        __m256i in_row = lanes_below(n - i);
        __m256 pad = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(x + i, in_row),
                                      _mm256_castsi256_ps(in_row));
        __m256 e0 = _mm256_and_ps(nt_expf8(_mm256_sub_ps(pad, mm)), _mm256_castsi256_ps(in_row));
        if (!log_out) _mm256_maskstore_ps(y + i, in_row, e0);
        s1 = _mm256_add_ps(s1, e0);
    }
    float sum = _mm256_cvtss_f32(hsum8(_mm256_add_ps(s0, s1)));
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

/* Transposes the 8x8 block in r0..r7 (row i becomes column i). Named registers, not an
 * array: GCC turns an array of loads into a memcpy to the stack. */
#define TRANSPOSE8(r0, r1, r2, r3, r4, r5, r6, r7)                                                 \
    do {                                                                                           \
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);                   \
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);                   \
        __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);                   \
        __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);                   \
        __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);         \
        __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);         \
        __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);         \
        __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);         \
        r0 = _mm256_permute2f128_ps(u0, u4, 0x20), r4 = _mm256_permute2f128_ps(u0, u4, 0x31);      \
        r1 = _mm256_permute2f128_ps(u1, u5, 0x20), r5 = _mm256_permute2f128_ps(u1, u5, 0x31);      \
        r2 = _mm256_permute2f128_ps(u2, u6, 0x20), r6 = _mm256_permute2f128_ps(u2, u6, 0x31);      \
        r3 = _mm256_permute2f128_ps(u3, u7, 0x20), r7 = _mm256_permute2f128_ps(u3, u7, 0x31);      \
    } while (0)

/* Eight rows of eight floats at once, transposed so that lane r holds row r: every step of
 * row8_f32_avx2 becomes a vertical one (the horizontal max and sum, in the same order,
 * and one division for eight rows) and the eight exps run side by side. */
SM_AVX2 static void rows8x8_f32_avx2(const float *x, float *y, bool log_out) {
    __m256 c0 = _mm256_loadu_ps(x), c1 = _mm256_loadu_ps(x + 8), c2 = _mm256_loadu_ps(x + 16),
           c3 = _mm256_loadu_ps(x + 24), c4 = _mm256_loadu_ps(x + 32), c5 = _mm256_loadu_ps(x + 40),
           c6 = _mm256_loadu_ps(x + 48), c7 = _mm256_loadu_ps(x + 56);
    TRANSPOSE8(c0, c1, c2, c3, c4, c5, c6, c7); /* c_i: element i of every row */
    const __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_max_ps(c0, c4), _mm256_max_ps(c2, c6)),
                                   _mm256_max_ps(_mm256_max_ps(c1, c5), _mm256_max_ps(c3, c7)));
    c0 = _mm256_sub_ps(c0, m), c1 = _mm256_sub_ps(c1, m), c2 = _mm256_sub_ps(c2, m);
    c3 = _mm256_sub_ps(c3, m), c4 = _mm256_sub_ps(c4, m), c5 = _mm256_sub_ps(c5, m);
    c6 = _mm256_sub_ps(c6, m), c7 = _mm256_sub_ps(c7, m);
    __m256 e0 = nt_expf8(c0), e1 = nt_expf8(c1), e2 = nt_expf8(c2), e3 = nt_expf8(c3),
           e4 = nt_expf8(c4), e5 = nt_expf8(c5), e6 = nt_expf8(c6), e7 = nt_expf8(c7);
    const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(e0, e4), _mm256_add_ps(e1, e5)),
                                     _mm256_add_ps(_mm256_add_ps(e2, e6), _mm256_add_ps(e3, e7)));
    if (!log_out) {
        const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), sum);
        e0 = _mm256_mul_ps(e0, inv), e1 = _mm256_mul_ps(e1, inv), e2 = _mm256_mul_ps(e2, inv);
        e3 = _mm256_mul_ps(e3, inv), e4 = _mm256_mul_ps(e4, inv), e5 = _mm256_mul_ps(e5, inv);
        e6 = _mm256_mul_ps(e6, inv), e7 = _mm256_mul_ps(e7, inv);
    } else {
        float s[8];
        _mm256_storeu_ps(s, sum);
        for (int r = 0; r < 8; r++)
            s[r] = logf(s[r]);
        const __m256 ls = _mm256_loadu_ps(s);
        e0 = _mm256_sub_ps(c0, ls), e1 = _mm256_sub_ps(c1, ls), e2 = _mm256_sub_ps(c2, ls);
        e3 = _mm256_sub_ps(c3, ls), e4 = _mm256_sub_ps(c4, ls), e5 = _mm256_sub_ps(c5, ls);
        e6 = _mm256_sub_ps(c6, ls), e7 = _mm256_sub_ps(c7, ls);
    }
    TRANSPOSE8(e0, e1, e2, e3, e4, e5, e6, e7);
    _mm256_storeu_ps(y, e0), _mm256_storeu_ps(y + 8, e1), _mm256_storeu_ps(y + 16, e2);
    _mm256_storeu_ps(y + 24, e3), _mm256_storeu_ps(y + 32, e4), _mm256_storeu_ps(y + 40, e5);
    _mm256_storeu_ps(y + 48, e6), _mm256_storeu_ps(y + 56, e7);
}

/* `rows` rows of n floats, row r at x + r * n and y + r * n: short rows inline, one after
 * another with nothing between them, so that the out-of-order core overlaps them. */
SM_AVX2 static void rows_f32_avx2(const float *x, float *y, int64_t rows, int64_t n, bool log_out) {
    if (n <= 8) {
        int64_t r = 0;
        if (n == 8)
            for (; r + 8 <= rows; r += 8)
                rows8x8_f32_avx2(x + r * n, y + r * n, log_out);
        for (; r < rows; r++)
            row8_f32_avx2(x + r * n, y + r * n, n, log_out);
        return;
    }
    for (int64_t r = 0; r < rows; r++)
        row_f32_avx2(x + r * n, y + r * n, n, log_out);
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
void nt_softmax_row_f32(const float *x, float *y, int64_t n, bool log_out) {
    if (use_avx2())
        row_f32_avx2(x, y, n, log_out);
    else
        row_f32_plain(x, y, n, log_out);
}

void nt_softmax_row_f64(const double *x, double *y, int64_t n, bool log_out) {
    if (use_avx2())
        row_f64_avx2(x, y, n, log_out);
    else
        row_f64_plain(x, y, n, log_out);
}

/* Not inlined: the choice below stays two tail calls, without the loop's register saves. */
__attribute__((noinline)) static void rows_f32_plain(const float *x, float *y, int64_t rows,
                                                     int64_t n, bool log_out) {
    for (int64_t r = 0; r < rows; r++)
        row_f32_plain(x + r * n, y + r * n, n, log_out);
}

void nt_softmax_rows_f32(const float *x, float *y, int64_t rows, int64_t n, bool log_out) {
    if (use_avx2())
        rows_f32_avx2(x, y, rows, n, log_out);
    else
        rows_f32_plain(x, y, rows, n, log_out);
}

void nt_softmax_row_strided(const char *x, int64_t is, char *y, int64_t os, int64_t n,
                            nt_dtype dtype, bool log_out, void *buf) {
    if (dtype == NT_FLOAT64) {
        double *d = buf;
        for (int64_t i = 0; i < n; i++)
            d[i] = *(const double *)(x + i * is);
        nt_softmax_row_f64(d, d, n, log_out);
        for (int64_t i = 0; i < n; i++)
            *(double *)(y + i * os) = d[i];
        return;
    }
    float *f = buf;
    for (int64_t i = 0; i < n; i++)
        f[i] = (float)nt_load_double(x + i * is, dtype);
    nt_softmax_row_f32(f, f, n, log_out);
    for (int64_t i = 0; i < n; i++)
        nt_store_scalar(y + i * os, dtype, nt_scalar_float(f[i]));
}

/* ------------------------------------------------------------------ backward */

/* sum_j a[j] b[j]: 16 lanes of fused multiply-adds, then the tail in order. */
SM_AVX2 static float dot_f32_avx2(const float *a, const float *b, int64_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + j + 8), _mm256_loadu_ps(b + j + 8), s1);
    }
    if (j + 8 <= n) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j), s0);
        j += 8;
    }
    float t[8];
    _mm256_storeu_ps(t, _mm256_add_ps(s0, s1));
    float s = ((t[0] + t[4]) + (t[1] + t[5])) + ((t[2] + t[6]) + (t[3] + t[7]));
    for (; j < n; j++)
        s += a[j] * b[j];
    return s;
}

static float dot_f32(const float *a, const float *b, int64_t n) {
    float s[4] = {0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 4 <= n; j += 4)
        for (int l = 0; l < 4; l++)
            s[l] += a[j + l] * b[j + l];
    float t = (s[0] + s[2]) + (s[1] + s[3]);
    for (; j < n; j++)
        t += a[j] * b[j];
    return t;
}

static double dot_f64(const double *a, const double *b, int64_t n) {
    double s[4] = {0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 4 <= n; j += 4)
        for (int l = 0; l < 4; l++)
            s[l] += a[j + l] * b[j + l];
    double t = (s[0] + s[2]) + (s[1] + s[3]);
    for (; j < n; j++)
        t += a[j] * b[j];
    return t;
}

void nt_softmax_backward_rows(nt_dtype dtype, const void *y, const void *g, void *out, int64_t rows,
                              int64_t n) {
    if (dtype == NT_FLOAT32) {
        bool avx2 = use_avx2();
        for (int64_t r = 0; r < rows; r++) {
            const float *yr = (const float *)y + r * n, *gr = (const float *)g + r * n;
            float *restrict o = (float *)out + r * n;
            float s = avx2 ? dot_f32_avx2(gr, yr, n) : dot_f32(gr, yr, n);
            for (int64_t j = 0; j < n; j++)
                o[j] = yr[j] * (gr[j] - s);
        }
        return;
    }
    for (int64_t r = 0; r < rows; r++) {
        const double *yr = (const double *)y + r * n, *gr = (const double *)g + r * n;
        double *restrict o = (double *)out + r * n;
        double s = dot_f64(gr, yr, n);
        for (int64_t j = 0; j < n; j++)
            o[j] = yr[j] * (gr[j] - s);
    }
}
