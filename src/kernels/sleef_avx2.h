/*
 * sleef_avx2.h — sleef.h, plus the AVX2 functions of SLEEF this library calls (layer L3).
 *
 * The library is compiled for x86-64-v2 and keeps its AVX2 code in functions with their
 * own target attribute. sleef.h declares its __m256 functions only when __AVX__ is
 * defined, which a target attribute does not do (GCC's target pragma did, clang's has no
 * equivalent), so the functions we call are declared here with the AVX2 target: clang
 * then accepts their __m256 arguments in AVX2 functions, and GCC sees a compatible
 * redeclaration.
 */
#ifndef NT_KERNELS_SLEEF_AVX2_H
#define NT_KERNELS_SLEEF_AVX2_H

#include <immintrin.h>
#include <sleef.h>

#define NT_SLEEF_AVX2_DECLARE(op, acc)                                                             \
    __attribute__((target("avx2,fma"))) __m256 Sleef_##op##f8_##acc##avx2(__m256);                 \
    __attribute__((target("avx2,fma"))) __m256d Sleef_##op##d4_##acc##avx2(__m256d);

NT_SLEEF_AVX2_DECLARE(acos, u10)
NT_SLEEF_AVX2_DECLARE(asin, u10)
NT_SLEEF_AVX2_DECLARE(atan, u10)
NT_SLEEF_AVX2_DECLARE(cos, u10)
NT_SLEEF_AVX2_DECLARE(sin, u10)
NT_SLEEF_AVX2_DECLARE(tan, u10)
NT_SLEEF_AVX2_DECLARE(cosh, u10)
NT_SLEEF_AVX2_DECLARE(sinh, u10)
NT_SLEEF_AVX2_DECLARE(tanh, u10)
NT_SLEEF_AVX2_DECLARE(exp, u10)
NT_SLEEF_AVX2_DECLARE(expm1, u10)
NT_SLEEF_AVX2_DECLARE(log, u10)
NT_SLEEF_AVX2_DECLARE(log2, u10)
NT_SLEEF_AVX2_DECLARE(log10, u10)
NT_SLEEF_AVX2_DECLARE(log1p, u10)
NT_SLEEF_AVX2_DECLARE(erf, u10)
NT_SLEEF_AVX2_DECLARE(erfc, u15)

#endif
