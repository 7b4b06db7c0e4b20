/*
 * activation_kernels.c — gelu, silu and their backward ops (activation_kernels.h).
 *
 * Each function is written once per compute type on contiguous arrays (the *_arr
 * functions: the transcendental of a chunk through SLEEF, then the arithmetic around it);
 * the 2-D loops hand them contiguous rows directly and gather other rows (strided,
 * broadcast, bfloat16) a chunk at a time into a buffer of the compute type.
 */
#include "activation_kernels.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <immintrin.h>

#include "core/cpu.h"
#include "core/half.h"
#include "kernels/sleef_loops.h"
#include "kernels/vec_exp.h"

#define CHUNK 256

/* GCC cannot see that the vector functions read only the n elements of a chunk's buffer
 * written before them (it warns where the array functions are inlined into the loops) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* sqrt(2/pi), the tanh form's factor, and 1/sqrt(2 pi), the normal density's */
#define K_BETA (M_SQRT2 * M_2_SQRTPI * 0.5)
#define K_KAPPA 0.044715
#define K_ALPHA (M_2_SQRTPI * M_SQRT1_2 * 0.5)

/* ------------------------------------------------------------------ arrays */

/* y = f(x) over n <= CHUNK elements (y may be x); and gi = dy * f'(x) (gi may be dy or x). */
typedef void (*fwd_f32)(float *y, const float *x, int64_t n);
typedef void (*fwd_f64)(double *y, const double *x, int64_t n);
typedef void (*bwd_f32)(float *gi, const float *dy, const float *x, int64_t n);
typedef void (*bwd_f64)(double *gi, const double *dy, const double *x, int64_t n);

#define ACTIVATION_ARRAYS(SUF, T, VEC)                                                             \
    static void gelu_erf_##SUF(T *y, const T *x, int64_t n) {                                      \
        T t[CHUNK];                                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            t[i] = x[i] * (T)M_SQRT1_2;                                                            \
        nt_vec_erf_##VEC(t, t, n);                                                                 \
        for (int64_t i = 0; i < n; i++)                                                            \
            y[i] = x[i] * (T)0.5 * ((T)1 + t[i]);                                                  \
    }                                                                                              \
    static void gelu_tanh_##SUF(T *y, const T *x, int64_t n) {                                     \
        T t[CHUNK];                                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            t[i] = (T)K_BETA * (x[i] + (T)K_KAPPA * x[i] * x[i] * x[i]);                           \
        nt_vec_tanh_##VEC(t, t, n);                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            y[i] = (T)0.5 * x[i] * ((T)1 + t[i]);                                                  \
    }                                                                                              \
    static void silu_##SUF(T *y, const T *x, int64_t n) {                                          \
        T t[CHUNK];                                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            t[i] = -x[i];                                                                          \
        nt_vec_exp_##VEC(t, t, n);                                                                 \
        for (int64_t i = 0; i < n; i++)                                                            \
            y[i] = x[i] / ((T)1 + t[i]);                                                           \
    }                                                                                              \
    static void gelu_erf_bwd_##SUF(T *gi, const T *dy, const T *x, int64_t n) {                    \
        T cdf[CHUNK], pdf[CHUNK];                                                                  \
        for (int64_t i = 0; i < n; i++) {                                                          \
            cdf[i] = x[i] * (T)M_SQRT1_2;                                                          \
            pdf[i] = (T)-0.5 * x[i] * x[i];                                                        \
        }                                                                                          \
        nt_vec_erf_##VEC(cdf, cdf, n);                                                             \
        nt_vec_exp_##VEC(pdf, pdf, n);                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            gi[i] = dy[i] * ((T)0.5 * ((T)1 + cdf[i]) + x[i] * pdf[i] * (T)K_ALPHA);               \
    }                                                                                              \
    static void gelu_tanh_bwd_##SUF(T *gi, const T *dy, const T *x, int64_t n) {                   \
        T th[CHUNK];                                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            th[i] = (T)K_BETA * (x[i] + (T)K_KAPPA * x[i] * x[i] * x[i]);                          \
        nt_vec_tanh_##VEC(th, th, n);                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T left = (T)0.5 * x[i], right = (T)1 + th[i];                                    \
            const T inner_d = (T)K_BETA * ((T)1 + (T)3 * (T)K_KAPPA * x[i] * x[i]);                \
            const T right_d = left * ((T)1 - th[i] * th[i]) * inner_d;                             \
            gi[i] = dy[i] * ((T)0.5 * right + right_d);                                            \
        }                                                                                          \
    }                                                                                              \
    static void silu_bwd_##SUF(T *gi, const T *dy, const T *x, int64_t n) {                        \
        T s[CHUNK];                                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            s[i] = -x[i];                                                                          \
        nt_vec_exp_##VEC(s, s, n);                                                                 \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T sig = (T)1 / ((T)1 + s[i]);                                                    \
            gi[i] = dy[i] * sig * ((T)1 + x[i] * ((T)1 - sig));                                    \
        }                                                                                          \
    }
ACTIVATION_ARRAYS(f32_sleef, float, f32)
ACTIVATION_ARRAYS(f64, double, f64)

/* ------------------------------------------------------------------ float32 with AVX2 */

/* gelu's erf form and silu in float32 are one pass over the chunk with an inlined exp
 * (vec_exp.h) instead of SLEEF's erf and exp calls: SLEEF's erff is several times the cost of
 * the whole op in PyTorch (which uses its own erf polynomial).
 *
 * gelu(x) = x Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2, erfc by Numerical Recipes' erfcc:
 * erfc(z) = t exp(-z^2 + P(t)) with t = 1 / (1 + |z| / 2) and a degree-9 P, fractional error
 * below 1.2e-7 for z >= 0, and erfc(z) = 2 - erfc(-z) for z < 0. Computing erfc rather than
 * 1 + erf keeps the relative accuracy where Phi is small (x < 0): PyTorch's 1 + erf cancels
 * there. silu(x) = x / (1 + exp(-x)), exp(-x) taken as +inf past float's range as libm does
 * (so silu(-100) is -0 and silu(-inf) NaN, PyTorch's). */
#define ACT_AVX2 __attribute__((target("avx2,fma")))

ACT_AVX2 static inline __m256 phi8(__m256 x) {
    const __m256 z = _mm256_mul_ps(x, _mm256_set1_ps((float)-M_SQRT1_2));
    const __m256 az = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), az, one));
    /* P(t) of degree 9 in Estrin's order (a chain of four steps instead of Horner's nine) */
#define C(v) _mm256_set1_ps(v)
    const __m256 t2 = _mm256_mul_ps(t, t), t4 = _mm256_mul_ps(t2, t2), t8 = _mm256_mul_ps(t4, t4);
    const __m256 p01 = _mm256_fmadd_ps(C(1.00002368f), t, C(-1.26551223f));
    const __m256 p23 = _mm256_fmadd_ps(C(0.09678418f), t, C(0.37409196f));
    const __m256 p45 = _mm256_fmadd_ps(C(0.27886807f), t, C(-0.18628806f));
    const __m256 p67 = _mm256_fmadd_ps(C(1.48851587f), t, C(-1.13520398f));
    const __m256 p89 = _mm256_fmadd_ps(C(0.17087277f), t, C(-0.82215223f));
#undef C
    const __m256 p03 = _mm256_fmadd_ps(p23, t2, p01), p47 = _mm256_fmadd_ps(p67, t2, p45);
    const __m256 p = _mm256_fmadd_ps(p89, t8, _mm256_fmadd_ps(p47, t4, p03));
    const __m256 e = _mm256_mul_ps(t, nt_expf8(_mm256_fnmadd_ps(az, az, p)));
    const __m256 erfc = _mm256_blendv_ps(e, _mm256_sub_ps(_mm256_set1_ps(2.0f), e),
                                         _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_LT_OQ));
    return _mm256_mul_ps(_mm256_set1_ps(0.5f), erfc);
}

ACT_AVX2 static inline __m256 silu8(__m256 x) {
    __m256 e = nt_expf8(_mm256_sub_ps(_mm256_setzero_ps(), x));
    e = _mm256_blendv_ps(e, _mm256_set1_ps(INFINITY),
                         _mm256_cmp_ps(x, _mm256_set1_ps(-88.72283f), _CMP_LT_OQ));
    return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

/* y = f8(x) over n floats; the tail through a padded copy, so an element's value does not
 * depend on where it sits */
#define AVX2_ARRAY(NAME, F8)                                                                       \
    ACT_AVX2 static void NAME(float *y, const float *x, int64_t n) {                               \
        int64_t i = 0;                                                                             \
        for (; i + 16 <= n; i += 16) { /* two independent chains */                                \
            const __m256 a = F8(_mm256_loadu_ps(x + i)), b = F8(_mm256_loadu_ps(x + i + 8));       \
            _mm256_storeu_ps(y + i, a);                                                            \
            _mm256_storeu_ps(y + i + 8, b);                                                        \
        }                                                                                          \
        for (; i + 8 <= n; i += 8)                                                                 \
            _mm256_storeu_ps(y + i, F8(_mm256_loadu_ps(x + i)));                                   \
        if (i < n) {                                                                               \
            float buf[8] = {0};                                                                    \
            memcpy(buf, x + i, (size_t)(n - i) * sizeof *buf);                                     \
            _mm256_storeu_ps(buf, F8(_mm256_loadu_ps(buf)));                                       \
            memcpy(y + i, buf, (size_t)(n - i) * sizeof *buf);                                     \
        }                                                                                          \
    }
#define GELU8(v) _mm256_mul_ps(v, phi8(v))
AVX2_ARRAY(gelu_erf_f32_avx2, GELU8)
AVX2_ARRAY(silu_f32_avx2, silu8)

/* The backward ops: gelu' = Phi(x) + x phi(x), phi the normal density; silu' = s (1 + x (1 - s)),
 * s = sigmoid(x) (PyTorch's formulas) */
ACT_AVX2 static inline __m256 gelu_bwd8(__m256 dy, __m256 x) {
    const __m256 pdf =
        _mm256_mul_ps(nt_expf8(_mm256_mul_ps(_mm256_mul_ps(x, x), _mm256_set1_ps(-0.5f))),
                      _mm256_set1_ps((float)K_ALPHA));
    return _mm256_mul_ps(dy, _mm256_fmadd_ps(x, pdf, phi8(x)));
}

ACT_AVX2 static inline __m256 silu_bwd8(__m256 dy, __m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 e = nt_expf8(_mm256_sub_ps(_mm256_setzero_ps(), x));
    e = _mm256_blendv_ps(e, _mm256_set1_ps(INFINITY),
                         _mm256_cmp_ps(x, _mm256_set1_ps(-88.72283f), _CMP_LT_OQ));
    const __m256 sig = _mm256_div_ps(one, _mm256_add_ps(one, e));
    return _mm256_mul_ps(_mm256_mul_ps(dy, sig), _mm256_fmadd_ps(x, _mm256_sub_ps(one, sig), one));
}

#define AVX2_BWD_ARRAY(NAME, F8)                                                                   \
    ACT_AVX2 static void NAME(float *gi, const float *dy, const float *x, int64_t n) {             \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8)                                                                 \
            _mm256_storeu_ps(gi + i, F8(_mm256_loadu_ps(dy + i), _mm256_loadu_ps(x + i)));         \
        if (i < n) {                                                                               \
            float bd[8] = {0}, bx[8] = {0};                                                        \
            memcpy(bd, dy + i, (size_t)(n - i) * sizeof *bd);                                      \
            memcpy(bx, x + i, (size_t)(n - i) * sizeof *bx);                                       \
            _mm256_storeu_ps(bd, F8(_mm256_loadu_ps(bd), _mm256_loadu_ps(bx)));                    \
            memcpy(gi + i, bd, (size_t)(n - i) * sizeof *bd);                                      \
        }                                                                                          \
    }
AVX2_BWD_ARRAY(gelu_erf_bwd_f32_avx2, gelu_bwd8)
AVX2_BWD_ARRAY(silu_bwd_f32_avx2, silu_bwd8)

/* ------------------------------------------------------------------ float32 with AVX-512 */

/* The same functions sixteen lanes at a time (tails through masks), where the CPU has
 * AVX-512: PyTorch's own kernels run at that width on such CPUs. exp as vec_exp.h's (Cephes'
 * expf, the scale by 2^n with one scalef). */
#define ACT_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,fma")))

ACT_AVX512 static inline __m512 expf16(__m512 x) {
    x = _mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    const __m512 r2 = _mm512_mul_ps(r, r), r4 = _mm512_mul_ps(r2, r2);
    const __m512 p01 =
        _mm512_fmadd_ps(_mm512_set1_ps(1.6666665459e-1f), r, _mm512_set1_ps(5.0000001201e-1f));
    const __m512 p23 =
        _mm512_fmadd_ps(_mm512_set1_ps(8.3334519073e-3f), r, _mm512_set1_ps(4.1665795894e-2f));
    const __m512 p45 =
        _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500e-4f), r, _mm512_set1_ps(1.3981999507e-3f));
    __m512 p = _mm512_fmadd_ps(p45, r4, _mm512_fmadd_ps(p23, r2, p01));
    p = _mm512_add_ps(_mm512_fmadd_ps(p, r2, r), _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n); /* p 2^n in one step, to inf or 0 past float's range */
}

ACT_AVX512 static inline __m512 phi16(__m512 x) {
#define C(v) _mm512_set1_ps(v)
    const __m512 z = _mm512_mul_ps(x, C((float)-M_SQRT1_2));
    /* |z| capped at 20, past which erfc is 0 or 2 in float anyway (so that d stays finite) */
    const __m512 az = _mm512_min_ps(_mm512_abs_ps(z), C(20.0f));
    /* t = 1 / d, d = 1 + |z| / 2 in [1, 11]: the 14-bit reciprocal and one Newton step
     * (float's precision, a few times cheaper than a division) */
    const __m512 d = _mm512_fmadd_ps(C(0.5f), az, C(1.0f)), r = _mm512_rcp14_ps(d);
    const __m512 t = _mm512_mul_ps(r, _mm512_fnmadd_ps(d, r, C(2.0f)));
    const __m512 t2 = _mm512_mul_ps(t, t), t4 = _mm512_mul_ps(t2, t2), t8 = _mm512_mul_ps(t4, t4);
    const __m512 p01 = _mm512_fmadd_ps(C(1.00002368f), t, C(-1.26551223f));
    const __m512 p23 = _mm512_fmadd_ps(C(0.09678418f), t, C(0.37409196f));
    const __m512 p45 = _mm512_fmadd_ps(C(0.27886807f), t, C(-0.18628806f));
    const __m512 p67 = _mm512_fmadd_ps(C(1.48851587f), t, C(-1.13520398f));
    const __m512 p89 = _mm512_fmadd_ps(C(0.17087277f), t, C(-0.82215223f));
    const __m512 p03 = _mm512_fmadd_ps(p23, t2, p01), p47 = _mm512_fmadd_ps(p67, t2, p45);
    const __m512 p = _mm512_fmadd_ps(p89, t8, _mm512_fmadd_ps(p47, t4, p03));
    const __m512 e = _mm512_mul_ps(t, expf16(_mm512_fnmadd_ps(az, az, p)));
    const __mmask16 neg = _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_LT_OQ);
    return _mm512_mul_ps(C(0.5f), _mm512_mask_sub_ps(e, neg, C(2.0f), e));
#undef C
}

ACT_AVX512 static inline __m512 silu16(__m512 x) {
    __m512 e = expf16(_mm512_sub_ps(_mm512_setzero_ps(), x));
    const __mmask16 big = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-88.72283f), _CMP_LT_OQ);
    e = _mm512_mask_mov_ps(e, big, _mm512_set1_ps(INFINITY));
    return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

#define AVX512_ARRAY(NAME, F16)                                                                    \
    ACT_AVX512 static void NAME(float *y, const float *x, int64_t n) {                             \
        int64_t i = 0;                                                                             \
        for (; i + 16 <= n; i += 16)                                                               \
            _mm512_storeu_ps(y + i, F16(_mm512_loadu_ps(x + i)));                                  \
        if (i < n) {                                                                               \
            const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                  \
            _mm512_mask_storeu_ps(y + i, m, F16(_mm512_maskz_loadu_ps(m, x + i)));                 \
        }                                                                                          \
    }
#define GELU16(v) _mm512_mul_ps(v, phi16(v))
AVX512_ARRAY(gelu_erf_f32_avx512, GELU16)
AVX512_ARRAY(silu_f32_avx512, silu16)

ACT_AVX512 static inline __m512 gelu_bwd16(__m512 dy, __m512 x) {
    const __m512 pdf =
        _mm512_mul_ps(expf16(_mm512_mul_ps(_mm512_mul_ps(x, x), _mm512_set1_ps(-0.5f))),
                      _mm512_set1_ps((float)K_ALPHA));
    return _mm512_mul_ps(dy, _mm512_fmadd_ps(x, pdf, phi16(x)));
}

ACT_AVX512 static inline __m512 silu_bwd16(__m512 dy, __m512 x) {
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 e = expf16(_mm512_sub_ps(_mm512_setzero_ps(), x));
    const __mmask16 big = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-88.72283f), _CMP_LT_OQ);
    e = _mm512_mask_mov_ps(e, big, _mm512_set1_ps(INFINITY));
    const __m512 sig = _mm512_div_ps(one, _mm512_add_ps(one, e));
    return _mm512_mul_ps(_mm512_mul_ps(dy, sig), _mm512_fmadd_ps(x, _mm512_sub_ps(one, sig), one));
}

#define AVX512_BWD_ARRAY(NAME, F16)                                                                \
    ACT_AVX512 static void NAME(float *gi, const float *dy, const float *x, int64_t n) {           \
        int64_t i = 0;                                                                             \
        for (; i + 16 <= n; i += 16)                                                               \
            _mm512_storeu_ps(gi + i, F16(_mm512_loadu_ps(dy + i), _mm512_loadu_ps(x + i)));        \
        if (i < n) {                                                                               \
            const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                  \
            _mm512_mask_storeu_ps(                                                                 \
                gi + i, m,                                                                         \
                F16(_mm512_maskz_loadu_ps(m, dy + i), _mm512_maskz_loadu_ps(m, x + i)));           \
        }                                                                                          \
    }
AVX512_BWD_ARRAY(gelu_erf_bwd_f32_avx512, gelu_bwd16)
AVX512_BWD_ARRAY(silu_bwd_f32_avx512, silu_bwd16)

static bool use_avx512(void) {
    return nt_cpu()->avx512;
}

static bool use_avx2(void) {
    return nt_cpu()->avx2_fma;
}

/* the float32 array functions: AVX-512 or AVX2 where the CPU has them, SLEEF's otherwise */
static void gelu_erf_f32(float *y, const float *x, int64_t n) {
    if (use_avx512())
        gelu_erf_f32_avx512(y, x, n);
    else if (use_avx2())
        gelu_erf_f32_avx2(y, x, n);
    else
        gelu_erf_f32_sleef(y, x, n);
}
static void silu_f32(float *y, const float *x, int64_t n) {
    if (use_avx512())
        silu_f32_avx512(y, x, n);
    else if (use_avx2())
        silu_f32_avx2(y, x, n);
    else
        silu_f32_sleef(y, x, n);
}
/* the tanh form stays SLEEF's in float32 (already faster than PyTorch's) */
#define gelu_tanh_f32 gelu_tanh_f32_sleef
#define gelu_tanh_bwd_f32 gelu_tanh_bwd_f32_sleef
static void gelu_erf_bwd_f32(float *gi, const float *dy, const float *x, int64_t n) {
    if (use_avx512())
        gelu_erf_bwd_f32_avx512(gi, dy, x, n);
    else if (use_avx2())
        gelu_erf_bwd_f32_avx2(gi, dy, x, n);
    else
        gelu_erf_bwd_f32_sleef(gi, dy, x, n);
}
static void silu_bwd_f32(float *gi, const float *dy, const float *x, int64_t n) {
    if (use_avx512())
        silu_bwd_f32_avx512(gi, dy, x, n);
    else if (use_avx2())
        silu_bwd_f32_avx2(gi, dy, x, n);
    else
        silu_bwd_f32_sleef(gi, dy, x, n);
}

/* ------------------------------------------------------------------ 2-D loops */

/* Loads and stores of one element of storage type S as compute type T. */
#define LD_PLAIN(p, S) (*(const S *)(const void *)(p))
#define ST_PLAIN(p, S, v) (*(S *)(void *)(p) = (v))
#define LD_BF16(p, S) nt_bf16_to_f32(*(const nt_bfloat16 *)(const void *)(p))
#define ST_BF16(p, S, v) (*(nt_bfloat16 *)(void *)(p) = nt_f32_to_bf16(v))

/* A forward loop over rows: contiguous rows of T straight to f (when `direct`), others a
 * chunk at a time through a buffer. */
#define FWD_DRIVER(NAME, T, S, FN_T, DIRECT, LD, ST)                                               \
    static inline void NAME(char **d, const int64_t *st, int64_t n, int64_t m, FN_T f) {           \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = d[0] + j * st[2];                                                            \
            const char *in = d[1] + j * st[3];                                                     \
            if (DIRECT && st[0] == (int64_t)sizeof(S) && st[1] == (int64_t)sizeof(S)) {            \
                for (int64_t i0 = 0; i0 < n; i0 += CHUNK)                                          \
                    f((T *)(void *)o + i0, (const T *)(const void *)in + i0,                       \
                      n - i0 < CHUNK ? n - i0 : CHUNK);                                            \
                continue;                                                                          \
            }                                                                                      \
            T buf[CHUNK];                                                                          \
            for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {                                            \
                const int64_t len = n - i0 < CHUNK ? n - i0 : CHUNK;                               \
                for (int64_t i = 0; i < len; i++)                                                  \
                    buf[i] = LD(in + (i0 + i) * st[1], S);                                         \
                f(buf, buf, len);                                                                  \
                for (int64_t i = 0; i < len; i++)                                                  \
                    ST(o + (i0 + i) * st[0], S, buf[i]);                                           \
            }                                                                                      \
        }                                                                                          \
    }
FWD_DRIVER(fwd_rows_f32, float, float, fwd_f32, true, LD_PLAIN, ST_PLAIN)
FWD_DRIVER(fwd_rows_f64, double, double, fwd_f64, true, LD_PLAIN, ST_PLAIN)
FWD_DRIVER(fwd_rows_bf16, float, nt_bfloat16, fwd_f32, false, LD_BF16, ST_BF16)

#define BWD_DRIVER(NAME, T, S, FN_T, DIRECT, LD, ST)                                               \
    static inline void NAME(char **d, const int64_t *st, int64_t n, int64_t m, FN_T f) {           \
        const int64_t es = (int64_t)sizeof(S);                                                     \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = d[0] + j * st[3];                                                            \
            const char *dy = d[1] + j * st[4], *x = d[2] + j * st[5];                              \
            if (DIRECT && st[0] == es && st[1] == es && st[2] == es) {                             \
                for (int64_t i0 = 0; i0 < n; i0 += CHUNK)                                          \
                    f((T *)(void *)o + i0, (const T *)(const void *)dy + i0,                       \
                      (const T *)(const void *)x + i0, n - i0 < CHUNK ? n - i0 : CHUNK);           \
                continue;                                                                          \
            }                                                                                      \
            T bdy[CHUNK], bx[CHUNK];                                                               \
            for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {                                            \
                const int64_t len = n - i0 < CHUNK ? n - i0 : CHUNK;                               \
                for (int64_t i = 0; i < len; i++) {                                                \
                    bdy[i] = LD(dy + (i0 + i) * st[1], S);                                         \
                    bx[i] = LD(x + (i0 + i) * st[2], S);                                           \
                }                                                                                  \
                f(bdy, bdy, bx, len);                                                              \
                for (int64_t i = 0; i < len; i++)                                                  \
                    ST(o + (i0 + i) * st[0], S, bdy[i]);                                           \
            }                                                                                      \
        }                                                                                          \
    }
BWD_DRIVER(bwd_rows_f32, float, float, bwd_f32, true, LD_PLAIN, ST_PLAIN)
BWD_DRIVER(bwd_rows_f64, double, double, bwd_f64, true, LD_PLAIN, ST_PLAIN)
BWD_DRIVER(bwd_rows_bf16, float, nt_bfloat16, bwd_f32, false, LD_BF16, ST_BF16)

/* The three loops (float32, float64, bfloat16) of a forward or backward function. */
#define LOOPS(OP, KIND)                                                                            \
    static void OP##_loop_f32(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {       \
        (void)ctx;                                                                                 \
        KIND##_rows_f32(d, s, n, m, OP##_f32);                                                     \
    }                                                                                              \
    static void OP##_loop_f64(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {       \
        (void)ctx;                                                                                 \
        KIND##_rows_f64(d, s, n, m, OP##_f64);                                                     \
    }                                                                                              \
    static void OP##_loop_bf16(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {      \
        (void)ctx;                                                                                 \
        KIND##_rows_bf16(d, s, n, m, OP##_f32);                                                    \
    }
LOOPS(gelu_erf, fwd)
LOOPS(gelu_tanh, fwd)
LOOPS(silu, fwd)
LOOPS(gelu_erf_bwd, bwd)
LOOPS(gelu_tanh_bwd, bwd)
LOOPS(silu_bwd, bwd)

#define L_FLOATS(OP)                                                                               \
    { [NT_BFLOAT16] = OP##_loop_bf16, [NT_FLOAT32] = OP##_loop_f32, [NT_FLOAT64] = OP##_loop_f64 }

const nt_loop2d nt_gelu_loops[2][NT_DTYPE_COUNT] = {L_FLOATS(gelu_erf), L_FLOATS(gelu_tanh)};
const nt_loop2d nt_gelu_backward_loops[2][NT_DTYPE_COUNT] = {L_FLOATS(gelu_erf_bwd),
                                                             L_FLOATS(gelu_tanh_bwd)};
const nt_loop2d nt_silu_loops[NT_DTYPE_COUNT] = L_FLOATS(silu);
const nt_loop2d nt_silu_backward_loops[NT_DTYPE_COUNT] = L_FLOATS(silu_bwd);
