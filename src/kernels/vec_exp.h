/*
 * vec_exp.h — exp of eight floats, inlined into the loops that call it (softmax).
 *
 * Why not SLEEF's Sleef_expf8_u10: it is a call into a shared library, about 30 cycles
 * each with its stack realignment, which is most of the cost of a short softmax row. This
 * one is Cephes' expf in AVX2/FMA: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two for
 * an exact reduction), e^r = 1 + r + r^2 P(r) with Cephes' degree-5 P, then the scale by
 * 2^n applied as two powers of two so that n down to -150 (subnormal results, rounded
 * once) and up to 128 work. Within 1.03 ulp of the exact exp over the whole float range
 * (SLEEF's u10 promises 1.0); tests/c/test_vec_exp.c measures it against double exp.
 * NaN gives NaN, -inf 0, +inf inf.
 */
#ifndef NT_KERNELS_VEC_EXP_H
#define NT_KERNELS_VEC_EXP_H

#include <immintrin.h>

__attribute__((target("avx2,fma"), always_inline)) static inline __m256 nt_expf8(__m256 x) {
    /* _mm256_max_ps/min_ps return their second operand when one is NaN: x, so NaN stays */
    x = _mm256_min_ps(_mm256_set1_ps(89.0f), _mm256_max_ps(_mm256_set1_ps(-104.0f), x));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    /* e^r = 1 + r + r^2 P(r), P of degree 5 evaluated in Estrin's order (a chain of three
     * FMAs instead of Horner's five: the latency of a short softmax row) */
    const __m256 r2 = _mm256_mul_ps(r, r), r4 = _mm256_mul_ps(r2, r2);
    const __m256 p01 =
        _mm256_fmadd_ps(_mm256_set1_ps(1.6666665459e-1f), r, _mm256_set1_ps(5.0000001201e-1f));
    const __m256 p23 =
        _mm256_fmadd_ps(_mm256_set1_ps(8.3334519073e-3f), r, _mm256_set1_ps(4.1665795894e-2f));
    const __m256 p45 =
        _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
    __m256 p = _mm256_fmadd_ps(p45, r4, _mm256_fmadd_ps(p23, r2, p01));
    p = _mm256_add_ps(_mm256_fmadd_ps(p, r2, r), _mm256_set1_ps(1.0f));
    /* 2^n as 2^h * 2^(n - h), h = floor(n / 2): both factors normal floats for n in
     * [-150, 128]; the first product is exact, the second rounds once */
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i h = _mm256_srai_epi32(ni, 1);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, bias), 23));
    const __m256 s2 =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, h), bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

#endif
