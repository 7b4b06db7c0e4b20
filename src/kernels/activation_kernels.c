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

#include "core/half.h"
#include "kernels/sleef_loops.h"

#define CHUNK 256

/* GCC cannot see that the vector functions read only the n elements of a chunk's buffer
 * written before them (it warns where the array functions are inlined into the loops) */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

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
ACTIVATION_ARRAYS(f32, float, f32)
ACTIVATION_ARRAYS(f64, double, f64)

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
