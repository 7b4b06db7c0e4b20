/*
 * sleef_loops.c — SLEEF's vector functions applied to contiguous arrays (see
 * sleef_loops.h).
 *
 * The library is compiled for x86-64-v2, so the AVX2 code lives in functions with their
 * own target attribute (sleef_avx2.h declares SLEEF's AVX2 functions for them). Each op is written
 * once as a vector expression per width (v8_ / v4d_ for AVX2, v4_ / v2d_ for SSE4) and stamped into
 * array loops by ARRAY_FNS.
 */
#include "sleef_loops.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"
#include "sleef_avx2.h"

#define NT_AVX2 __attribute__((target("avx2,fma")))

static _Atomic int avx2_allowed = 1;

int nt_sleef_uses_avx2(void) {
    return nt_cpu()->avx2_fma && atomic_load_explicit(&avx2_allowed, memory_order_relaxed);
}

void nt_sleef_allow_avx2(int allow) {
    atomic_store_explicit(&avx2_allowed, allow != 0, memory_order_relaxed);
}

/* ------------------------------------------------------------------ the vector ops */

/* An op that is one SLEEF function of accuracy `acc` (u10, u15). */
#define SLEEF_OP(op, acc)                                                                          \
    NT_AVX2 static inline __m256 v8_##op(__m256 x) {                                               \
        return Sleef_##op##f8_##acc##avx2(x);                                                      \
    }                                                                                              \
    NT_AVX2 static inline __m256d v4d_##op(__m256d x) {                                            \
        return Sleef_##op##d4_##acc##avx2(x);                                                      \
    }                                                                                              \
    static inline __m128 v4_##op(__m128 x) {                                                       \
        return Sleef_##op##f4_##acc##sse4(x);                                                      \
    }                                                                                              \
    static inline __m128d v2d_##op(__m128d x) {                                                    \
        return Sleef_##op##d2_##acc##sse4(x);                                                      \
    }

SLEEF_OP(acos, u10)
SLEEF_OP(asin, u10)
SLEEF_OP(atan, u10)
SLEEF_OP(cos, u10)
SLEEF_OP(sin, u10)
SLEEF_OP(tan, u10)

/* cosh and sinh: float64 is SLEEF's. SLEEF's float32 versions compute exp(|x|) and so
 * overflow to inf for 88.72 < |x| <= 89.41, where the result (up to 3.4e38) is finite: lanes
 * with |x| above 88.7 are recomputed in float64 (libm) and rounded to float32. */
#define F32_BIG_ARG 88.7f
#define HYPERBOLIC_OP(op)                                                                          \
    NT_AVX2 static inline __m256 v8_##op(__m256 x) {                                               \
        __m256 r = Sleef_##op##f8_u10avx2(x);                                                      \
        __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);                                    \
        int big = _mm256_movemask_ps(_mm256_cmp_ps(ax, _mm256_set1_ps(F32_BIG_ARG), _CMP_GT_OQ));  \
        if (!big) return r;                                                                        \
        float xs[8], rs[8];                                                                        \
        _mm256_storeu_ps(xs, x);                                                                   \
        _mm256_storeu_ps(rs, r);                                                                   \
        for (int l = 0; l < 8; l++)                                                                \
            if (big & (1 << l)) rs[l] = (float)op((double)xs[l]);                                  \
        return _mm256_loadu_ps(rs);                                                                \
    }                                                                                              \
    static inline __m128 v4_##op(__m128 x) {                                                       \
        __m128 r = Sleef_##op##f4_u10sse4(x);                                                      \
        __m128 ax = _mm_andnot_ps(_mm_set1_ps(-0.0f), x);                                          \
        int big = _mm_movemask_ps(_mm_cmpgt_ps(ax, _mm_set1_ps(F32_BIG_ARG)));                     \
        if (!big) return r;                                                                        \
        float xs[4], rs[4];                                                                        \
        _mm_storeu_ps(xs, x);                                                                      \
        _mm_storeu_ps(rs, r);                                                                      \
        for (int l = 0; l < 4; l++)                                                                \
            if (big & (1 << l)) rs[l] = (float)op((double)xs[l]);                                  \
        return _mm_loadu_ps(rs);                                                                   \
    }                                                                                              \
    NT_AVX2 static inline __m256d v4d_##op(__m256d x) {                                            \
        return Sleef_##op##d4_u10avx2(x);                                                          \
    }                                                                                              \
    static inline __m128d v2d_##op(__m128d x) {                                                    \
        return Sleef_##op##d2_u10sse4(x);                                                          \
    }
HYPERBOLIC_OP(cosh)
HYPERBOLIC_OP(sinh)

SLEEF_OP(exp, u10)
SLEEF_OP(expm1, u10)
SLEEF_OP(log, u10)
SLEEF_OP(log2, u10)
SLEEF_OP(log10, u10)
SLEEF_OP(log1p, u10)
SLEEF_OP(erf, u10)
SLEEF_OP(erfc, u15)

/* tanh: float64 is SLEEF's; float32 is computed here, three times faster than
 * Sleef_tanhf8_u10 and within 1.3 ulp (measured against double tanh on 4M points; SLEEF's
 * is within 1): below |x| = 0.625 the odd polynomial x + x^3 P(x^2) (a degree-4 weighted
 * least-squares fit, 0.77 ulp), above it 1 - 2 / (exp(2|x|) + 1) with SLEEF's exp and
 * the sign put back. NaN and +-inf come out as NaN and +-1, -0 as -0. */
#define TANH_C0 -0.3333328068256378f
#define TANH_C1 0.13331443071365356f
#define TANH_C2 -0.05373980477452278f
#define TANH_C3 0.020639389753341675f
#define TANH_C4 -0.005705338902771473f
#define TANH_SMALL 0.625f

NT_AVX2 static inline __m256 v8_tanh(__m256 x) {
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    const __m256 ax = _mm256_andnot_ps(sign, x), z = _mm256_mul_ps(x, x);
    __m256 p = _mm256_set1_ps(TANH_C4);
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(TANH_C3));
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(TANH_C2));
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(TANH_C1));
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(TANH_C0));
    const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(ax, z), p, ax);
    const __m256 e = Sleef_expf8_u10avx2(_mm256_add_ps(ax, ax));
    const __m256 large =
        _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
    const __m256 r =
        _mm256_blendv_ps(large, small, _mm256_cmp_ps(ax, _mm256_set1_ps(TANH_SMALL), _CMP_LT_OQ));
    return _mm256_or_ps(r, _mm256_and_ps(x, sign));
}
static inline __m128 v4_tanh(__m128 x) {
    const __m128 sign = _mm_set1_ps(-0.0f), one = _mm_set1_ps(1.0f);
    const __m128 ax = _mm_andnot_ps(sign, x), z = _mm_mul_ps(x, x);
    __m128 p = _mm_set1_ps(TANH_C4);
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(TANH_C3));
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(TANH_C2));
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(TANH_C1));
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(TANH_C0));
    const __m128 small = _mm_add_ps(_mm_mul_ps(_mm_mul_ps(ax, z), p), ax);
    const __m128 e = Sleef_expf4_u10sse4(_mm_add_ps(ax, ax));
    const __m128 large = _mm_sub_ps(one, _mm_div_ps(_mm_set1_ps(2.0f), _mm_add_ps(e, one)));
    const __m128 r = _mm_blendv_ps(large, small, _mm_cmplt_ps(ax, _mm_set1_ps(TANH_SMALL)));
    return _mm_or_ps(r, _mm_and_ps(x, sign));
}
NT_AVX2 static inline __m256d v4d_tanh(__m256d x) {
    return Sleef_tanhd4_u10avx2(x);
}
static inline __m128d v2d_tanh(__m128d x) {
    return Sleef_tanhd2_u10sse4(x);
}

/* sqrt is the exact instruction; rsqrt is 1 / sqrt(x) (not the approximate rsqrtps). */
NT_AVX2 static inline __m256 v8_sqrt(__m256 x) {
    return _mm256_sqrt_ps(x);
}
NT_AVX2 static inline __m256d v4d_sqrt(__m256d x) {
    return _mm256_sqrt_pd(x);
}
static inline __m128 v4_sqrt(__m128 x) {
    return _mm_sqrt_ps(x);
}
static inline __m128d v2d_sqrt(__m128d x) {
    return _mm_sqrt_pd(x);
}

NT_AVX2 static inline __m256 v8_rsqrt(__m256 x) {
    return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(x));
}
NT_AVX2 static inline __m256d v4d_rsqrt(__m256d x) {
    return _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(x));
}
static inline __m128 v4_rsqrt(__m128 x) {
    return _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(x));
}
static inline __m128d v2d_rsqrt(__m128d x) {
    return _mm_div_pd(_mm_set1_pd(1.0), _mm_sqrt_pd(x));
}

/* sigmoid(x) = 1 / (1 + exp(-x)): exp(-x) overflows to inf for very negative x, giving
 * exactly 0, and underflows to 0 for large x, giving exactly 1; no NaN appears except from
 * a NaN input. */
NT_AVX2 static inline __m256 v8_sigmoid(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 e = Sleef_expf8_u10avx2(_mm256_xor_ps(x, _mm256_set1_ps(-0.0f)));
    return _mm256_div_ps(one, _mm256_add_ps(one, e));
}
NT_AVX2 static inline __m256d v4d_sigmoid(__m256d x) {
    const __m256d one = _mm256_set1_pd(1.0);
    __m256d e = Sleef_expd4_u10avx2(_mm256_xor_pd(x, _mm256_set1_pd(-0.0)));
    return _mm256_div_pd(one, _mm256_add_pd(one, e));
}
static inline __m128 v4_sigmoid(__m128 x) {
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 e = Sleef_expf4_u10sse4(_mm_xor_ps(x, _mm_set1_ps(-0.0f)));
    return _mm_div_ps(one, _mm_add_ps(one, e));
}
static inline __m128d v2d_sigmoid(__m128d x) {
    const __m128d one = _mm_set1_pd(1.0);
    __m128d e = Sleef_expd2_u10sse4(_mm_xor_pd(x, _mm_set1_pd(-0.0)));
    return _mm_div_pd(one, _mm_add_pd(one, e));
}

/* ------------------------------------------------------------------ array loops */

/* Rows of at least this many bytes are written with streaming (non-temporal) stores: a
 * result that large would not stay in cache anyway, and streaming skips reading each
 * destination line before writing it, a third of the memory traffic. */
#define NT_STREAM_BYTES (4 << 20)

/* One array loop for element type T, W lanes, vector type V with load L, store S,
 * streaming store SS (aligned) and the vector op F: whole vectors, two per step (two
 * independent SLEEF calls for the out-of-order core to overlap), then a part vector
 * through a zero-padded copy. Long rows first bring `out` to the vector alignment, then
 * stream. */
#define ARRAY_LOOP(ATTR, NAME, T, W, V, L, S, SS, F)                                               \
    ATTR static inline void NAME##_part(T *out, const T *in, int64_t n) {                          \
        T buf[W];                                                                                  \
        memset(buf, 0, sizeof buf);                                                                \
        memcpy(buf, in, (size_t)n * sizeof(T));                                                    \
        S(buf, F(L(buf)));                                                                         \
        memcpy(out, buf, (size_t)n * sizeof(T));                                                   \
    }                                                                                              \
    ATTR static void NAME(T *out, const T *in, int64_t n) {                                        \
        int64_t i = 0;                                                                             \
        const size_t vbytes = W * sizeof(T), mis = (uintptr_t)out % vbytes;                        \
        if (n * (int64_t)sizeof(T) >= NT_STREAM_BYTES && mis % sizeof(T) == 0) {                   \
            const int64_t head = mis ? (int64_t)((vbytes - mis) / sizeof(T)) : 0;                  \
            if (head) NAME##_part(out, in, head);                                                  \
            for (i = head; i + 2 * W <= n; i += 2 * W) {                                           \
                V a = F(L(in + i)), b = F(L(in + i + W));                                          \
                SS(out + i, a);                                                                    \
                SS(out + i + W, b);                                                                \
            }                                                                                      \
            _mm_sfence();                                                                          \
        }                                                                                          \
        for (; i + 2 * W <= n; i += 2 * W) {                                                       \
            V a = F(L(in + i)), b = F(L(in + i + W));                                              \
            S(out + i, a);                                                                         \
            S(out + i + W, b);                                                                     \
        }                                                                                          \
        for (; i + W <= n; i += W)                                                                 \
            S(out + i, F(L(in + i)));                                                              \
        if (i < n) NAME##_part(out + i, in + i, n - i);                                            \
    }

#define ARRAY_FNS(op)                                                                              \
    ARRAY_LOOP(NT_AVX2, op##_f32_avx2, float, 8, __m256, _mm256_loadu_ps, _mm256_storeu_ps,        \
               _mm256_stream_ps, v8_##op)                                                          \
    ARRAY_LOOP(NT_AVX2, op##_f64_avx2, double, 4, __m256d, _mm256_loadu_pd, _mm256_storeu_pd,      \
               _mm256_stream_pd, v4d_##op)                                                         \
    ARRAY_LOOP(, op##_f32_sse, float, 4, __m128, _mm_loadu_ps, _mm_storeu_ps, _mm_stream_ps,       \
               v4_##op)                                                                            \
    ARRAY_LOOP(, op##_f64_sse, double, 2, __m128d, _mm_loadu_pd, _mm_storeu_pd, _mm_stream_pd,     \
               v2d_##op)                                                                           \
    void nt_vec_##op##_f32(float *out, const float *in, int64_t n) {                               \
        if (nt_sleef_uses_avx2())                                                                  \
            op##_f32_avx2(out, in, n);                                                             \
        else                                                                                       \
            op##_f32_sse(out, in, n);                                                              \
    }                                                                                              \
    void nt_vec_##op##_f64(double *out, const double *in, int64_t n) {                             \
        if (nt_sleef_uses_avx2())                                                                  \
            op##_f64_avx2(out, in, n);                                                             \
        else                                                                                       \
            op##_f64_sse(out, in, n);                                                              \
    }

NT_SLEEF_OPS(ARRAY_FNS)
