/*
 * sleef_loops.h — transcendental functions over contiguous arrays through SLEEF's vector
 * functions (layer L3), for the pointwise unary kernels (unary_kernels.c).
 *
 * Each nt_vec_<op>_f32 / _f64 computes out[i] = op(in[i]) for i < n with SLEEF's 1-ulp
 * (u10) variants (erfc: u15, the most accurate SLEEF has; sqrt: the exact instruction).
 * The instruction set is chosen at run time: AVX2+FMA (8 floats / 4 doubles a step) where
 * the CPU has it, else SSE4 (the library's baseline, x86-64-v2). The tail shorter than a
 * vector goes through the same vector function on a padded copy, so an element's value does
 * not depend on where it sits in the array. `out` may equal `in` (in place); they must not
 * otherwise overlap. They never fail and never allocate.
 */
#ifndef NT_KERNELS_SLEEF_LOOPS_H
#define NT_KERNELS_SLEEF_LOOPS_H

#include <stdint.h>

typedef void (*nt_vec_f32_fn)(float *out, const float *in, int64_t n);
typedef void (*nt_vec_f64_fn)(double *out, const double *in, int64_t n);

/* X(op): every function this file provides, for both float32 and float64. sigmoid is
 * 1 / (1 + exp(-x)) and rsqrt 1 / sqrt(x), as PyTorch computes them. */
// clang-format off
#define NT_SLEEF_OPS(X)                                                                            \
    X(acos) X(asin) X(atan) X(cos) X(sin) X(tan) X(cosh) X(sinh) X(tanh) X(exp) X(expm1) X(log)    \
    X(log2) X(log10) X(log1p) X(erf) X(erfc) X(sqrt) X(rsqrt) X(sigmoid)
// clang-format on

#define NT_SLEEF_DECLARE(op)                                                                       \
    void nt_vec_##op##_f32(float *out, const float *in, int64_t n);                                \
    void nt_vec_##op##_f64(double *out, const double *in, int64_t n);
NT_SLEEF_OPS(NT_SLEEF_DECLARE)
#undef NT_SLEEF_DECLARE

/* True when the AVX2 variants run (the CPU has AVX2 and FMA, and they are not disabled). */
int nt_sleef_uses_avx2(void);
/* For tests: 0 forces the SSE4 variants, 1 restores the choice by CPU. Not thread-safe
 * against concurrent calls of the functions above. */
void nt_sleef_allow_avx2(int allow);

#endif
