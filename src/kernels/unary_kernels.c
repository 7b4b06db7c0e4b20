/*
 * unary_kernels.c — the scalar functions and 2-D loops of the pointwise unary ops, and
 * their loops by op id and dtype (see unary_kernels.h).
 *
 * Three kinds of loops, each stamped by one macro:
 *  - integer and bool loops: a static inline scalar function stamped by loops.h's
 *    NT_LOOP_UNARY (contiguous, in-place and broadcast fast paths the compiler vectorises);
 *  - float32/float64 loops (FLOAT_LOOPS): an array function (out, in, n, ctx) runs on each
 *    contiguous row directly, and on strided rows through a small stack buffer; the array
 *    functions are SLEEF's (sleef_loops.c) or plain loops over a scalar function;
 *  - bfloat16/float16 loops: chunks of a row are widened to float, go through the float32
 *    array function, and are rounded back, as PyTorch computes them.
 */
#include "unary_kernels.h"

#include <math.h>
#include <string.h>

#include "kernels/loops.h"
#include "kernels/sleef_loops.h"

/* Elements per chunk of a strided or 16-bit float row (stack buffers of 1-2 KiB). */
#define CHUNK 256

/* ------------------------------------------------------------------ special functions */

/* erfinv: a rational first guess (the central/tail approximations of Pavlis' erfinv,
 * accurate to about 1e-7), then two Newton steps on erf(x) - y, which make it exact to the
 * last bits of the type. |y| > 1 (and NaN) give NaN, y = +-1 gives +-inf. */
#define ERFINV_BODY(T, ERF, EXP, SQRT, LOG, COPYSIGN)                                              \
    const T a0 = (T)0.886226899, a1 = (T)-1.645349621, a2 = (T)0.914624893, a3 = (T)-0.140543331;  \
    const T b0 = (T)-2.118377725, b1 = (T)1.442710462, b2 = (T)-0.329097515, b3 = (T)0.012229801;  \
    const T c0 = (T)-1.970840454, c1 = (T)-1.624906493, c2 = (T)3.429567803, c3 = (T)1.641345311;  \
    const T d0 = (T)3.543889200, d1 = (T)1.637067800;                                              \
    const T two_over_sqrt_pi = (T)1.1283791670955126;                                              \
    T ay = y < 0 ? -y : y;                                                                         \
    if (ay > 1) return (T)NAN;                                                                     \
    if (ay == 1) return COPYSIGN((T)INFINITY, y);                                                  \
    T x;                                                                                           \
    if (ay <= (T)0.7) {                                                                            \
        T z = y * y;                                                                               \
        T num = ((a3 * z + a2) * z + a1) * z + a0;                                                 \
        T den = (((b3 * z + b2) * z + b1) * z + b0) * z + 1;                                       \
        x = y * num / den;                                                                         \
    } else {                                                                                       \
        T z = SQRT(-LOG((1 - ay) / 2));                                                            \
        T num = ((c3 * z + c2) * z + c1) * z + c0;                                                 \
        T den = (d1 * z + d0) * z + 1;                                                             \
        x = COPYSIGN(num, y) / den;                                                                \
    }                                                                                              \
    x = x - (ERF(x) - y) / (two_over_sqrt_pi * EXP(-x * x));                                       \
    x = x - (ERF(x) - y) / (two_over_sqrt_pi * EXP(-x * x));                                       \
    return x;

float nt_erfinv_f32(float y) {
    ERFINV_BODY(float, erff, expf, sqrtf, logf, copysignf)
}
double nt_erfinv_f64(double y) {
    ERFINV_BODY(double, erf, exp, sqrt, log, copysign)
}

/* digamma: psi(+-0) = -+inf, NaN at the negative integers; the reflection
 * psi(x) = psi(1 - x) - pi / tan(pi x) for other negative x (with pi times the fractional
 * part, which keeps tan accurate); then psi(x) = psi(x + 1) - 1/x up to x >= 10, and the
 * asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k) (k = 1..7) from there. */
#define DIGAMMA_BODY(T, SELF, LOG, TRUNC, COPYSIGN)                                                \
    const double pi_d = 3.14159265358979323846;                                                    \
    const T psi10 = (T)2.25175258906672110764;                                                     \
    if (x == 0) return COPYSIGN((T)INFINITY, -x);                                                  \
    if (x < 0) {                                                                                   \
        T whole = TRUNC(x);                                                                        \
        if (x == whole) return (T)NAN;                                                             \
        /* pi / tan(pi r) in double, as PyTorch does for both types */                             \
        return SELF(1 - x) - (T)(pi_d / tan(pi_d * (double)(x - whole)));                          \
    }                                                                                              \
    T acc = 0;                                                                                     \
    while (x < 10) {                                                                               \
        acc -= 1 / x;                                                                              \
        x += 1;                                                                                    \
    }                                                                                              \
    if (x == 10) return acc + psi10;                                                               \
    T series = 0;                                                                                  \
    if (x < (T)1e17) {                                                                             \
        T z = 1 / (x * x);                                                                         \
        T p = (T)(1.0 / 12);                                                                       \
        p = p * z + (T)(-691.0 / 32760);                                                           \
        p = p * z + (T)(1.0 / 132);                                                                \
        p = p * z + (T)(-1.0 / 240);                                                               \
        p = p * z + (T)(1.0 / 252);                                                                \
        p = p * z + (T)(-1.0 / 120);                                                               \
        p = p * z + (T)(1.0 / 12);                                                                 \
        series = z * p;                                                                            \
    }                                                                                              \
    return acc + LOG(x) - (T)0.5 / x - series;

float nt_digamma_f32(float x) {
    DIGAMMA_BODY(float, nt_digamma_f32, logf, truncf, copysignf)
}
double nt_digamma_f64(double x) {
    DIGAMMA_BODY(double, nt_digamma_f64, log, trunc, copysign)
}

/* trigamma (PyTorch's calc_trigamma): reflection below 1/2, six recurrence steps, then the
 * asymptotic series. */
#define TRIGAMMA_BODY(T, SIN)                                                                      \
    const T pi = (T)3.14159265358979323846;                                                        \
    T sign = 1, result = 0;                                                                        \
    if (x < (T)0.5) {                                                                              \
        sign = -1;                                                                                 \
        const T s = SIN(pi * x);                                                                   \
        result -= (pi * pi) / (s * s);                                                             \
        x = 1 - x;                                                                                 \
    }                                                                                              \
    for (int i = 0; i < 6; ++i) {                                                                  \
        result += 1 / (x * x);                                                                     \
        x += 1;                                                                                    \
    }                                                                                              \
    const T ixx = 1 / (x * x);                                                                     \
    result +=                                                                                      \
        (1 + 1 / (2 * x) + ixx * ((T)(1. / 6) - ixx * ((T)(1. / 30) - ixx * (T)(1. / 42)))) / x;   \
    return sign * result;

float nt_trigamma_f32(float x) {
    TRIGAMMA_BODY(float, sinf)
}
double nt_trigamma_f64(double x) {
    TRIGAMMA_BODY(double, sin)
}

/* The Hurwitz zeta function zeta(x, q) (Cephes, as PyTorch's zeta), in double. */
static double hurwitz_zeta(double x, double q) {
    static const double A[] = {12.0,
                               -720.0,
                               30240.0,
                               -1209600.0,
                               47900160.0,
                               -1.8924375803183791606e9,
                               7.47242496e10,
                               -2.950130727918164224e12,
                               1.1646782814350067249e14,
                               -4.5979787224074726105e15,
                               1.8152105401943546773e17,
                               -7.1661652561756670113e18};
    const double machep = 1.11022302462515654042E-16;
    if (x == 1) return INFINITY;
    if (x < 1) return NAN;
    if (q <= 0) {
        if (q == floor(q)) return INFINITY;
        if (x != floor(x)) return NAN;
    }
    double s = pow(q, -x), a = q, b = 0;
    int i = 0;
    while (i < 9 || a <= 9.0) {
        i += 1;
        a += 1;
        b = pow(a, -x);
        s += b;
        if (-machep * s < b && b < machep * s) return s;
    }
    const double w = a;
    s += b * w / (x - 1);
    s -= 0.5 * b;
    a = 1;
    double k = 0;
    for (int j = 0; j < 12; j++) {
        a *= x + k;
        b /= w;
        double t = a * b / A[j];
        s = s + t;
        t = fabs(t / s);
        if (t < machep) return s;
        k += 1;
        a *= x + k;
        b /= w;
        k += 1;
    }
    return s;
}

/* polygamma(n, x) for n >= 2: (-1)^(n+1) n! zeta(n + 1, x) (PyTorch's calc_polygamma, its
 * factorial as exp(lgamma(n + 1)) in the type). */
float nt_polygamma_f32(int64_t n, float x) {
    int sg;
    const float fact = expf(lgammaf_r((float)n + 1.0f, &sg));
    return ((n % 2) ? 1.0f : -1.0f) * fact * (float)hurwitz_zeta((double)(n + 1), (double)x);
}
double nt_polygamma_f64(int64_t n, double x) {
    int sg;
    const double fact = exp(lgamma_r((double)n + 1.0, &sg));
    return ((n % 2) ? 1.0 : -1.0) * fact * hurwitz_zeta((double)(n + 1), x);
}

/* lgamma without glibc's global signgam (the loops run on several threads). */
static inline float lgamma_f32(float x) {
    int sg;
    return lgammaf_r(x, &sg);
}
static inline double lgamma_f64(double x) {
    int sg;
    return lgamma_r(x, &sg);
}

/* ------------------------------------------------------------------ float array functions */

/* Array functions: out[i] = f(in[i]) for i < n; out may equal in. */
typedef void (*arr_f32)(float *out, const float *in, int64_t n, const void *ctx);
typedef void (*arr_f64)(double *out, const double *in, int64_t n, const void *ctx);

/* A plain loop over a scalar expression in x (GCC vectorises the simple ones). */
#define PLAIN_ARRAYS(op, EXPR32, EXPR64)                                                           \
    static void op##_arr_f32(float *out, const float *in, int64_t n, const void *ctx) {            \
        (void)ctx;                                                                                 \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const float x = in[i];                                                                 \
            out[i] = (EXPR32);                                                                     \
        }                                                                                          \
    }                                                                                              \
    static void op##_arr_f64(double *out, const double *in, int64_t n, const void *ctx) {          \
        (void)ctx;                                                                                 \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const double x = in[i];                                                                \
            out[i] = (EXPR64);                                                                     \
        }                                                                                          \
    }

PLAIN_ARRAYS(abs, fabsf(x), fabs(x))
PLAIN_ARRAYS(ceil, ceilf(x), ceil(x))
PLAIN_ARRAYS(floor, floorf(x), floor(x))
PLAIN_ARRAYS(round, rintf(x), rint(x)) /* half to even, the default rounding mode */
PLAIN_ARRAYS(trunc, truncf(x), trunc(x))
PLAIN_ARRAYS(frac, x - truncf(x), x - trunc(x))
PLAIN_ARRAYS(reciprocal, 1.0f / x, 1.0 / x)
PLAIN_ARRAYS(neg, -x, -x)
/* sign: NaN gives 0, as PyTorch's (0 < x) - (x < 0). */
PLAIN_ARRAYS(sign, (float)((0.0f < x) - (x < 0.0f)), (double)((0.0 < x) - (x < 0.0)))
/* relu: max(x, 0) keeping NaN; -0 gives +0. */
PLAIN_ARRAYS(relu, (x > 0.0f || x != x) ? x : 0.0f, (x > 0.0 || x != x) ? x : 0.0)
PLAIN_ARRAYS(erfinv, nt_erfinv_f32(x), nt_erfinv_f64(x))
PLAIN_ARRAYS(digamma, nt_digamma_f32(x), nt_digamma_f64(x))
PLAIN_ARRAYS(lgamma, lgamma_f32(x), lgamma_f64(x))
PLAIN_ARRAYS(trigamma, nt_trigamma_f32(x), nt_trigamma_f64(x))

/* polygamma(n, x), n >= 2 at ctx (an int64_t). */
static void polygamma_arr_f32(float *out, const float *in, int64_t n, const void *ctx) {
    const int64_t order = *(const int64_t *)ctx;
    for (int64_t i = 0; i < n; i++)
        out[i] = nt_polygamma_f32(order, in[i]);
}
static void polygamma_arr_f64(double *out, const double *in, int64_t n, const void *ctx) {
    const int64_t order = *(const int64_t *)ctx;
    for (int64_t i = 0; i < n; i++)
        out[i] = nt_polygamma_f64(order, in[i]);
}

static void round_decimals_arr_f32(float *out, const float *in, int64_t n, const void *ctx) {
    const nt_round_ctx *c = ctx;
    const float s = c->scale32;
    if (c->negative) {
        for (int64_t i = 0; i < n; i++)
            out[i] = rintf(in[i] / s) * s;
    } else {
        for (int64_t i = 0; i < n; i++)
            out[i] = rintf(in[i] * s) / s;
    }
}
static void round_decimals_arr_f64(double *out, const double *in, int64_t n, const void *ctx) {
    const nt_round_ctx *c = ctx;
    const double s = c->scale64;
    if (c->negative) {
        for (int64_t i = 0; i < n; i++)
            out[i] = rint(in[i] / s) * s;
    } else {
        for (int64_t i = 0; i < n; i++)
            out[i] = rint(in[i] * s) / s;
    }
}
/* bfloat16: the quotient (product) is rounded to bfloat16 before rint, as PyTorch's
 * BFloat16 arithmetic does; the final rounding happens when the row is stored. */
static float bf16_round(float x) {
    return nt_bf16_to_f32(nt_f32_to_bf16(x));
}
static void round_decimals_arr_bf16(float *out, const float *in, int64_t n, const void *ctx) {
    const nt_round_ctx *c = ctx;
    const float s = c->scale_bf16;
    if (c->negative) {
        for (int64_t i = 0; i < n; i++)
            out[i] = rintf(bf16_round(in[i] / s)) * s;
    } else {
        for (int64_t i = 0; i < n; i++)
            out[i] = rintf(bf16_round(in[i] * s)) / s;
    }
}

/* The SLEEF functions in the array-function shape. */
#define SLEEF_ARRAYS(op)                                                                           \
    static void op##_arr_f32(float *out, const float *in, int64_t n, const void *ctx) {            \
        (void)ctx;                                                                                 \
        nt_vec_##op##_f32(out, in, n);                                                             \
    }                                                                                              \
    static void op##_arr_f64(double *out, const double *in, int64_t n, const void *ctx) {          \
        (void)ctx;                                                                                 \
        nt_vec_##op##_f64(out, in, n);                                                             \
    }
NT_SLEEF_OPS(SLEEF_ARRAYS)

/* ------------------------------------------------------------------ float 2-D loops */

/* Rows of T: contiguous rows go straight to f; others are gathered into a buffer, computed
 * in place there and scattered (a broadcast input has stride 0 and is gathered the same). */
#define ROWS_FN(NAME, T, ARR)                                                                      \
    static inline void NAME(char **data, const int64_t *st, int64_t n, int64_t m, ARR f,           \
                            const void *ctx) {                                                     \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = data[0] + j * st[2];                                                         \
            const char *in = data[1] + j * st[3];                                                  \
            if (st[0] == (int64_t)sizeof(T) && st[1] == (int64_t)sizeof(T)) {                      \
                f((T *)(void *)o, (const T *)(const void *)in, n, ctx);                            \
                continue;                                                                          \
            }                                                                                      \
            T buf[CHUNK];                                                                          \
            for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {                                            \
                const int64_t len = n - i0 < CHUNK ? n - i0 : CHUNK;                               \
                for (int64_t i = 0; i < len; i++)                                                  \
                    buf[i] = *(const T *)(const void *)(in + (i0 + i) * st[1]);                    \
                f(buf, buf, len, ctx);                                                             \
                for (int64_t i = 0; i < len; i++)                                                  \
                    *(T *)(void *)(o + (i0 + i) * st[0]) = buf[i];                                 \
            }                                                                                      \
        }                                                                                          \
    }
ROWS_FN(rows_f32, float, arr_f32)
ROWS_FN(rows_f64, double, arr_f64)

/* Rows of a 16-bit float type H: widened to float a chunk at a time, rounded back. */
#define ROWS16_FN(NAME, H, TO32, FROM32)                                                           \
    static inline void NAME(char **data, const int64_t *st, int64_t n, int64_t m, arr_f32 f,       \
                            const void *ctx) {                                                     \
        float buf[CHUNK];                                                                          \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = data[0] + j * st[2];                                                         \
            const char *in = data[1] + j * st[3];                                                  \
            for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {                                            \
                const int64_t len = n - i0 < CHUNK ? n - i0 : CHUNK;                               \
                for (int64_t i = 0; i < len; i++)                                                  \
                    buf[i] = TO32(*(const H *)(const void *)(in + (i0 + i) * st[1]));              \
                f(buf, buf, len, ctx);                                                             \
                for (int64_t i = 0; i < len; i++)                                                  \
                    *(H *)(void *)(o + (i0 + i) * st[0]) = FROM32(buf[i]);                         \
            }                                                                                      \
        }                                                                                          \
    }
ROWS16_FN(rows_bf16, nt_bfloat16, nt_bf16_to_f32, nt_f32_to_bf16)
ROWS16_FN(rows_f16, nt_float16, nt_f16_to_f32, nt_f32_to_f16)

/* The four float loops of an op (float16 ones are only listed for the ops that have them). */
#define FLOAT_LOOPS(op)                                                                            \
    static void op##_loop_f32(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {       \
        rows_f32(d, s, n, m, op##_arr_f32, ctx);                                                   \
    }                                                                                              \
    static void op##_loop_f64(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {       \
        rows_f64(d, s, n, m, op##_arr_f64, ctx);                                                   \
    }                                                                                              \
    static void op##_loop_bf16(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {      \
        rows_bf16(d, s, n, m, op##_arr_f32, ctx);                                                  \
    }                                                                                              \
    static void op##_loop_f16(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {       \
        rows_f16(d, s, n, m, op##_arr_f32, ctx);                                                   \
    }

// clang-format off
#define NT_FLOAT_KERNEL_OPS(X)                                                                     \
    X(abs) X(ceil) X(floor) X(round) X(trunc) X(frac) X(reciprocal) X(neg) X(sign) X(relu)         \
    X(erfinv) X(digamma) X(lgamma) X(trigamma) X(polygamma) NT_SLEEF_OPS(X)
// clang-format on

/* Not every op uses its float16 loop. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
NT_FLOAT_KERNEL_OPS(FLOAT_LOOPS)
#pragma GCC diagnostic pop

static void round_decimals_loop_f32(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {
    rows_f32(d, s, n, m, round_decimals_arr_f32, ctx);
}
static void round_decimals_loop_f64(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {
    rows_f64(d, s, n, m, round_decimals_arr_f64, ctx);
}
static void round_decimals_loop_bf16(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {
    rows_bf16(d, s, n, m, round_decimals_arr_bf16, ctx);
}

/* ------------------------------------------------------------------ integer and bool loops */

/* The loop applying scalar function FN (TI -> TO) along rows (loops.h); ENUM names the
 * dtype. */
#define MAP_LOOP(op, ENUM, TI, TO, FN)                                                             \
    NT_LOOP_UNARY(op##_loop_##ENUM, TO, TI, NT_LD_ID, NT_ST_ID, FN)

/* Integer arithmetic that wraps like PyTorch's (two's complement), without signed overflow:
 * through uint64_t, then back (GCC converts modulo 2^N). */
#define WRAP_NEG(T)                                                                                \
    static inline T neg_##T(T x) {                                                                 \
        return (T)(0u - (uint64_t)x);                                                              \
    }
#define WRAP_ABS(T)                                                                                \
    static inline T abs_##T(T x) {                                                                 \
        return x < 0 ? (T)(0u - (uint64_t)x) : x;                                                  \
    }
#define SIGNED_SIGN(T)                                                                             \
    static inline T sign_##T(T x) {                                                                \
        return (T)((0 < x) - (x < 0));                                                             \
    }
#define SIGNED_RELU(T)                                                                             \
    static inline T relu_##T(T x) {                                                                \
        return x < 0 ? (T)0 : x;                                                                   \
    }
#define BITNOT(T)                                                                                  \
    static inline T bitnot_##T(T x) {                                                              \
        return (T)~x;                                                                              \
    }
#define IDENTITY(T)                                                                                \
    static inline T same_##T(T x) {                                                                \
        return x;                                                                                  \
    }
#define SIGNED_INTS(X) X(int8_t) X(int16_t) X(int32_t) X(int64_t)
#define ALL_INTS(X) X(uint8_t) SIGNED_INTS(X)
ALL_INTS(WRAP_NEG)
SIGNED_INTS(WRAP_ABS)
SIGNED_INTS(SIGNED_SIGN)
SIGNED_INTS(SIGNED_RELU)
ALL_INTS(BITNOT)
ALL_INTS(IDENTITY)
static inline uint8_t sign_uint8_t(uint8_t x) {
    return x != 0;
}
static inline bool same_bool(bool x) {
    return x;
}
static inline bool bitnot_bool(bool x) {
    return !x;
}

/* An op's loops for the five integer dtypes, from its scalar functions FN_<ctype>. */
#define INT_LOOPS(op, U8, I8, I16, I32, I64)                                                       \
    MAP_LOOP(op, NT_UINT8, uint8_t, uint8_t, U8)                                                   \
    MAP_LOOP(op, NT_INT8, int8_t, int8_t, I8)                                                      \
    MAP_LOOP(op, NT_INT16, int16_t, int16_t, I16)                                                  \
    MAP_LOOP(op, NT_INT32, int32_t, int32_t, I32)                                                  \
    MAP_LOOP(op, NT_INT64, int64_t, int64_t, I64)
#define INT_LOOPS_OF(op, fn)                                                                       \
    INT_LOOPS(op, fn##_uint8_t, fn##_int8_t, fn##_int16_t, fn##_int32_t, fn##_int64_t)

INT_LOOPS(abs, same_uint8_t, abs_int8_t, abs_int16_t, abs_int32_t, abs_int64_t)
INT_LOOPS_OF(neg, neg)
INT_LOOPS(sign, sign_uint8_t, sign_int8_t, sign_int16_t, sign_int32_t, sign_int64_t)
INT_LOOPS(relu, same_uint8_t, relu_int8_t, relu_int16_t, relu_int32_t, relu_int64_t)
INT_LOOPS_OF(bitwise_not, bitnot)
INT_LOOPS_OF(copy, same) /* ceil, floor, round and trunc of an integer */
MAP_LOOP(sign, NT_BOOL, nt_bool, nt_bool, same_bool)
MAP_LOOP(bitwise_not, NT_BOOL, nt_bool, nt_bool, bitnot_bool)

/* logical_not: any dtype to bool. */
#define NOT_PLAIN(x) (!(x))
MAP_LOOP(logical_not, NT_BOOL, nt_bool, nt_bool, NOT_PLAIN)
MAP_LOOP(logical_not, NT_UINT8, uint8_t, nt_bool, NOT_PLAIN)
MAP_LOOP(logical_not, NT_INT8, int8_t, nt_bool, NOT_PLAIN)
MAP_LOOP(logical_not, NT_INT16, int16_t, nt_bool, NOT_PLAIN)
MAP_LOOP(logical_not, NT_INT32, int32_t, nt_bool, NOT_PLAIN)
MAP_LOOP(logical_not, NT_INT64, int64_t, nt_bool, NOT_PLAIN)
NT_LOOP_UNARY(logical_not_loop_NT_FLOAT16, nt_bool, nt_float16, NT_LD_F16, NT_ST_ID, NOT_PLAIN)
NT_LOOP_UNARY(logical_not_loop_NT_BFLOAT16, nt_bool, nt_bfloat16, NT_LD_BF16, NT_ST_ID, NOT_PLAIN)
MAP_LOOP(logical_not, NT_FLOAT32, float, nt_bool, NOT_PLAIN)
MAP_LOOP(logical_not, NT_FLOAT64, double, nt_bool, NOT_PLAIN)

/* isnan, isinf, isfinite: any dtype to bool; integers and bool are never NaN or infinite. */
#define IS_NAN(x) ((x) != (x))
#define IS_INF(x) (isinf(x) != 0)
#define IS_FINITE(x) (isfinite(x) != 0)
#define ALWAYS(x) ((void)(x), true)
#define NEVER(x) ((void)(x), false)
#define PREDICATE_LOOPS(op, FN, INTFN)                                                             \
    MAP_LOOP(op, NT_BOOL, nt_bool, nt_bool, INTFN)                                                 \
    MAP_LOOP(op, NT_UINT8, uint8_t, nt_bool, INTFN)                                                \
    MAP_LOOP(op, NT_INT8, int8_t, nt_bool, INTFN)                                                  \
    MAP_LOOP(op, NT_INT16, int16_t, nt_bool, INTFN)                                                \
    MAP_LOOP(op, NT_INT32, int32_t, nt_bool, INTFN)                                                \
    MAP_LOOP(op, NT_INT64, int64_t, nt_bool, INTFN)                                                \
    NT_LOOP_UNARY(op##_loop_NT_FLOAT16, nt_bool, nt_float16, NT_LD_F16, NT_ST_ID, FN)              \
    NT_LOOP_UNARY(op##_loop_NT_BFLOAT16, nt_bool, nt_bfloat16, NT_LD_BF16, NT_ST_ID, FN)           \
    MAP_LOOP(op, NT_FLOAT32, float, nt_bool, FN)                                                   \
    MAP_LOOP(op, NT_FLOAT64, double, nt_bool, FN)
PREDICATE_LOOPS(isnan, IS_NAN, NEVER)
PREDICATE_LOOPS(isinf, IS_INF, NEVER)
PREDICATE_LOOPS(isfinite, IS_FINITE, ALWAYS)
#define L_ALL(op)                                                                                  \
    [NT_BOOL] = op##_loop_NT_BOOL,                                                                 \
    L_INTS(op), [NT_FLOAT16] = op##_loop_NT_FLOAT16, [NT_BFLOAT16] = op##_loop_NT_BFLOAT16,        \
    [NT_FLOAT32] = op##_loop_NT_FLOAT32, [NT_FLOAT64] = op##_loop_NT_FLOAT64

/* ------------------------------------------------------------------ the loops by op */

/* Designators for the loops table of one op. */
#define L_INTS(op)                                                                                 \
    [NT_UINT8] = op##_loop_NT_UINT8, [NT_INT8] = op##_loop_NT_INT8,                                \
    [NT_INT16] = op##_loop_NT_INT16, [NT_INT32] = op##_loop_NT_INT32,                              \
    [NT_INT64] = op##_loop_NT_INT64
#define L_FLOATS(op)                                                                               \
    [NT_BFLOAT16] = op##_loop_bf16, [NT_FLOAT32] = op##_loop_f32, [NT_FLOAT64] = op##_loop_f64
#define L_HALF(op) [NT_FLOAT16] = op##_loop_f16

/* A floating function: bfloat16, float32 and float64 (integers promote in the ops layer). */
#define FLOATING(E, op) [E] = {L_FLOATS(op)}

const nt_loop2d nt_unary_loops[NT_OP_COUNT][NT_DTYPE_COUNT] = {
    [NT_OP_ABS] = {L_INTS(abs), L_FLOATS(abs), L_HALF(abs)},
    FLOATING(NT_OP_ACOS, acos),
    FLOATING(NT_OP_ASIN, asin),
    FLOATING(NT_OP_ATAN, atan),
    [NT_OP_CEIL] = {L_INTS(copy), L_FLOATS(ceil)},
    [NT_OP_FLOOR] = {L_INTS(copy), L_FLOATS(floor)},
    [NT_OP_ROUND] = {L_INTS(copy), L_FLOATS(round)},
    [NT_OP_TRUNC] = {L_INTS(copy), L_FLOATS(trunc)},
    [NT_OP_FRAC] = {L_FLOATS(frac), L_HALF(frac)},
    FLOATING(NT_OP_COS, cos),
    FLOATING(NT_OP_COSH, cosh),
    FLOATING(NT_OP_SIN, sin),
    FLOATING(NT_OP_SINH, sinh),
    FLOATING(NT_OP_TAN, tan),
    FLOATING(NT_OP_TANH, tanh),
    FLOATING(NT_OP_EXP, exp),
    FLOATING(NT_OP_EXPM1, expm1),
    FLOATING(NT_OP_LOG, log),
    FLOATING(NT_OP_LOG2, log2),
    FLOATING(NT_OP_LOG10, log10),
    FLOATING(NT_OP_LOG1P, log1p),
    FLOATING(NT_OP_SQRT, sqrt),
    FLOATING(NT_OP_RSQRT, rsqrt),
    [NT_OP_RECIPROCAL] = {L_FLOATS(reciprocal), L_HALF(reciprocal)},
    [NT_OP_NEG] = {L_INTS(neg), L_FLOATS(neg), L_HALF(neg)},
    [NT_OP_SIGN] = {[NT_BOOL] = sign_loop_NT_BOOL, L_INTS(sign), L_FLOATS(sign), L_HALF(sign)},
    FLOATING(NT_OP_SIGMOID, sigmoid),
    FLOATING(NT_OP_ERF, erf),
    FLOATING(NT_OP_ERFC, erfc),
    FLOATING(NT_OP_ERFINV, erfinv),
    FLOATING(NT_OP_DIGAMMA, digamma),
    [NT_OP_BITWISE_NOT] = {[NT_BOOL] = bitwise_not_loop_NT_BOOL, L_INTS(bitwise_not)},
    [NT_OP_LOGICAL_NOT] = {[NT_BOOL] = logical_not_loop_NT_BOOL,
                           L_INTS(logical_not),
                           [NT_FLOAT16] = logical_not_loop_NT_FLOAT16,
                           [NT_BFLOAT16] = logical_not_loop_NT_BFLOAT16,
                           [NT_FLOAT32] = logical_not_loop_NT_FLOAT32,
                           [NT_FLOAT64] = logical_not_loop_NT_FLOAT64},
    [NT_OP_RELU] = {L_INTS(relu), L_FLOATS(relu)},
    FLOATING(NT_OP_ROUND_DECIMALS, round_decimals),
    [NT_OP_ISNAN] = {L_ALL(isnan)},
    [NT_OP_ISINF] = {L_ALL(isinf)},
    [NT_OP_ISFINITE] = {L_ALL(isfinite)},
    FLOATING(NT_OP_LGAMMA, lgamma),
    FLOATING(NT_OP_POLYGAMMA, polygamma),
};

const nt_loop2d nt_trigamma_loops[NT_DTYPE_COUNT] = {L_FLOATS(trigamma)};

const nt_loop2d nt_round_decimals0_loops[NT_DTYPE_COUNT] = {L_FLOATS(round)};
