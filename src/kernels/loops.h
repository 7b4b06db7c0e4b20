/*
 * loops.h — stamping macros that turn a scalar kernel into an nt_loop2d (iter.h) (layer L3).
 *
 * A kernel is a plain `static inline` function on compute values, e.g.
 *
 *     static inline float k_add_f(float a, float b) { return a + b; }
 *
 * and one macro line makes the strided 2-D loop the iterator runs:
 *
 *     NT_LOOP_BINARY(add_f32, float, float, float, NT_LD_NT_FLOAT32, NT_LD_NT_FLOAT32,
 *                    NT_ST_NT_FLOAT32, k_add_f)
 *
 * Every stamped loop has, per row of the 2-D block, fast paths written with `restrict` so
 * that -O3 vectorises them, and the general strided loop:
 *   - all operands contiguous (one flat loop; an in-place variant when the output is the
 *     first input, so `restrict` stays truthful),
 *   - one input a broadcast scalar (inner stride 0; loaded once),
 *   - anything else: byte strides.
 * The flat contiguous loops are compiled for the baseline and for AVX2 (GCC's
 * target_clones), the loader picks the one this CPU runs.
 *
 * Element types. Storage types are the C types of NT_DTYPES (nt_bool, uint8_t, ..., nt_float16,
 * nt_bfloat16, float, double). Kernels see *compute* values: integers as themselves, a bool
 * byte as C's bool (any non-zero byte is true), float16/bfloat16 widened to float
 * (PyTorch's opmath). Per dtype enum E:
 *     NT_CT_E        the compute type (NT_CT_NT_FLOAT16 is float)
 *     NT_LD_E(x)     storage element x -> compute value
 *     NT_ST_E(v)     compute value v -> storage element (float16/bfloat16: round to nearest
 *                    even; other types: a plain C conversion, so a kernel must return a value
 *                    of the output's compute type)
 * Macros are keyed by the enum name because `bool` is itself a macro. NT_LD_ID / NT_ST_ID
 * are the identity, NT_LD_F16 / NT_ST_F16 / NT_LD_BF16 / NT_ST_BF16 the 16-bit ones.
 *
 * The loops (NAME is the name of the stamped function, a `static void` nt_loop2d; oc, ac,
 * bc, cc are storage types; LD*, ST are the load/store macros; FN is the kernel — a
 * function or a function-like macro):
 *
 *   NT_LOOP_UNARY(NAME, oc, ic, LD, ST, FN)         out = FN(in)
 *     operands: 0 = out, 1 = in. ctx is unused.
 *   NT_LOOP_UNARY_P(NAME, oc, ic, LD, ST, FN, PT)   out = FN(in, &params)
 *     ctx points to a PT (a parameter struct: clamp bounds, a scalar...), copied once per
 *     call into a local, so FN(x, const PT *p) reads loop invariants.
 *
 *   NT_LOOP_BINARY(NAME, oc, ac, bc, LDA, LDB, ST, FN)        out = FN(a, b)
 *   NT_LOOP_BINARY_P(NAME, oc, ac, bc, LDA, LDB, ST, FN, PT)  out = FN(a, b, &params)
 *     Each stamps three loops:
 *       NAME      operands 0 = out, 1 = a, 2 = b (tensor op tensor)
 *       NAME##_s  operands 0 = out, 1 = a; b is the bc element at ctx->scalar (tensor op
 *                 scalar: the scalar is never materialised as a tensor)
 *       NAME##_r  operands 0 = out, 1 = b; a is the ac element at ctx->scalar (scalar op
 *                 tensor: the reflected form, 2 - x)
 *     ctx is a `const nt_binary_ctx *` for all three (NULL allowed for NAME without
 *     params); ->params points to the PT of the _P form.
 *
 *   NT_LOOP_TERNARY(NAME, oc, ac, bc, cc, LDA, LDB, LDC, ST, FN)       out = FN(a, b, c)
 *   NT_LOOP_TERNARY_P(NAME, oc, ac, bc, cc, LDA, LDB, LDC, ST, FN, PT) out = FN(a, b, c, &p)
 *     operands 0 = out, 1 = a, 2 = b, 3 = c; ctx is the PT for the _P form.
 *
 * Stamping over dtypes: expand NT_DTYPES (core/dtype.h) with a macro of your own, naming
 * everything by the enum E (NT_FLOAT32...), e.g.
 *
 *     #define STAMP_ADD(E, n, c) NT_LOOP_BINARY(add_##E, c, c, c, NT_LD_##E, NT_LD_##E, \
 *                                               NT_ST_##E, k_add_##E)
 *     NT_DTYPES(STAMP_ADD)
 *     static const nt_loop2d add_loops[NT_DTYPE_COUNT] = {[NT_FLOAT32] = add_NT_FLOAT32, ...};
 *
 * (Not by the short name n: `bool` is a macro, so once n is passed on to another macro it
 * becomes _Bool.) The kernels of src/kernels/binary_kernels.c are a full example.
 *
 * Error texts: nt_dtype_torch_name() (ntensor.h) gives PyTorch's scalar-type names for
 * "\"exp_vml_cpu\" not implemented for 'Long'".
 *
 * Loops never fail and never allocate; they may run on several threads at once with the
 * same ctx, which they only read.
 */
#ifndef NT_KERNELS_LOOPS_H
#define NT_KERNELS_LOOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"
#include "core/half.h"
#include "iter/iter.h"

/* ------------------------------------------------------------------ element helpers */

#define NT_LD_ID(x) (x)
#define NT_ST_ID(v) (v)
#define NT_LD_F16(x) nt_f16_to_f32(x)
#define NT_ST_F16(v) nt_f32_to_f16((float)(v))
#define NT_LD_BF16(x) nt_bf16_to_f32(x)
#define NT_ST_BF16(v) nt_f32_to_bf16((float)(v))

#define NT_CT_NT_BOOL bool
#define NT_CT_NT_UINT8 uint8_t
#define NT_CT_NT_INT8 int8_t
#define NT_CT_NT_INT16 int16_t
#define NT_CT_NT_INT32 int32_t
#define NT_CT_NT_INT64 int64_t
#define NT_CT_NT_FLOAT16 float
#define NT_CT_NT_BFLOAT16 float
#define NT_CT_NT_FLOAT32 float
#define NT_CT_NT_FLOAT64 double

#define NT_LD_NT_BOOL(x) ((x) != 0)
#define NT_LD_NT_UINT8(x) (x)
#define NT_LD_NT_INT8(x) (x)
#define NT_LD_NT_INT16(x) (x)
#define NT_LD_NT_INT32(x) (x)
#define NT_LD_NT_INT64(x) (x)
#define NT_LD_NT_FLOAT16(x) nt_f16_to_f32(x)
#define NT_LD_NT_BFLOAT16(x) nt_bf16_to_f32(x)
#define NT_LD_NT_FLOAT32(x) (x)
#define NT_LD_NT_FLOAT64(x) (x)

#define NT_ST_NT_BOOL(v) ((nt_bool)((v) != 0))
#define NT_ST_NT_UINT8(v) ((uint8_t)(v))
#define NT_ST_NT_INT8(v) ((int8_t)(v))
#define NT_ST_NT_INT16(v) ((int16_t)(v))
#define NT_ST_NT_INT32(v) ((int32_t)(v))
#define NT_ST_NT_INT64(v) ((int64_t)(v))
#define NT_ST_NT_FLOAT16(v) nt_f32_to_f16((float)(v))
#define NT_ST_NT_BFLOAT16(v) nt_f32_to_bf16((float)(v))
#define NT_ST_NT_FLOAT32(v) ((float)(v))
#define NT_ST_NT_FLOAT64(v) ((double)(v))
_Static_assert(NT_DTYPE_COUNT == 10, "a new dtype needs its NT_CT_, NT_LD_ and NT_ST_ macros");

/* The scalar operand and parameters of a binary loop (see NT_LOOP_BINARY). */
typedef struct nt_binary_ctx {
    const void *scalar; /* the _s / _r loops' scalar operand, one storage element */
    const void *params; /* the _P forms' parameter struct */
} nt_binary_ctx;

/* Flat loops compiled twice (baseline and AVX2), chosen at load time. */
#ifndef NT_VECTOR_CLONES
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define NT_VECTOR_CLONES __attribute__((noinline, target_clones("avx2", "default")))
#else
#define NT_VECTOR_CLONES
#endif
#endif

/* Stamped functions a table may leave unused. */
#define NT_LOOP_FN static __attribute__((unused))

/* Kernel calls with and without the parameter pointer (N: none, P: &nt_prm_). */
#define NT_LOOP_CALL_N(f, ...) f(__VA_ARGS__)
#define NT_LOOP_CALL_P(f, ...) f(__VA_ARGS__, &nt_prm_)

/* ------------------------------------------------------------------ unary */

#define NT_LOOP_UNARY_IMPL(NAME, oc, ic, LD, ST, FN, PK, PT)                                       \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat(oc *restrict o, const ic *restrict x, int64_t n,  \
                                                 const PT *restrict pp) {                          \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LD(x[i])));                                            \
    }                                                                                              \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat_ip(oc *restrict o, int64_t n,                     \
                                                    const PT *restrict pp) {                       \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LD(((const ic *)o)[i])));                              \
    }                                                                                              \
    NT_LOOP_FN void NAME(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {        \
        static const PT zero = {0};                                                                \
        const PT *pp = ctx ? (const PT *)ctx : &zero;                                              \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        char *o = data[0];                                                                         \
        const char *x = data[1];                                                                   \
        const int64_t os = st[0], xs = st[1], oso = st[2], xso = st[3];                            \
        for (int64_t j = 0; j < m; j++, o += oso, x += xso) {                                      \
            if (os == (int64_t)sizeof(oc) && xs == (int64_t)sizeof(ic)) {                          \
                if ((const char *)o == x && sizeof(oc) == sizeof(ic))                              \
                    NAME##_flat_ip((oc *)o, n, pp);                                                \
                else                                                                               \
                    NAME##_flat((oc *)o, (const ic *)x, n, pp);                                    \
            } else if (xs == 0) {                                                                  \
                const oc v = ST(NT_LOOP_CALL_##PK(FN, LD(*(const ic *)x)));                        \
                for (int64_t i = 0; i < n; i++)                                                    \
                    *(oc *)(o + i * os) = v;                                                       \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++)                                                    \
                    *(oc *)(o + i * os) =                                                          \
                        ST(NT_LOOP_CALL_##PK(FN, LD(*(const ic *)(x + i * xs))));                  \
            }                                                                                      \
        }                                                                                          \
    }

/* A parameter struct for loops that take none. */
typedef struct nt_no_params {
    char unused;
} nt_no_params;

#define NT_LOOP_UNARY(NAME, oc, ic, LD, ST, FN)                                                    \
    NT_LOOP_UNARY_IMPL(NAME, oc, ic, LD, ST, FN, N, nt_no_params)
#define NT_LOOP_UNARY_P(NAME, oc, ic, LD, ST, FN, PT)                                              \
    NT_LOOP_UNARY_IMPL(NAME, oc, ic, LD, ST, FN, P, PT)

/* ------------------------------------------------------------------ binary */

#define NT_LOOP_BINARY_IMPL(NAME, oc, ac, bc, LDA, LDB, ST, FN, PK, PT)                            \
    /* out = a op b, all contiguous */                                                             \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat(oc *restrict o, const ac *restrict a,             \
                                                 const bc *restrict b, int64_t n,                  \
                                                 const PT *restrict pp) {                          \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LDA(a[i]), LDB(b[i])));                                \
    }                                                                                              \
    /* out = out op b (out is a) */                                                                \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat_ip(oc *restrict o, const bc *restrict b,          \
                                                    int64_t n, const PT *restrict pp) {            \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LDA(((const ac *)o)[i]), LDB(b[i])));                  \
    }                                                                                              \
    /* out = a op scalar */                                                                        \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat_s(oc *restrict o, const ac *restrict a,           \
                                                   const bc *restrict sb, int64_t n,               \
                                                   const PT *restrict pp) {                        \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        const bc bv = *sb;                                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LDA(a[i]), LDB(bv)));                                  \
    }                                                                                              \
    /* out = out op scalar (out is a) */                                                           \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat_s_ip(oc *restrict o, const bc *restrict sb,       \
                                                      int64_t n, const PT *restrict pp) {          \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        const bc bv = *sb;                                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LDA(((const ac *)o)[i]), LDB(bv)));                    \
    }                                                                                              \
    /* out = scalar op b */                                                                        \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat_r(oc *restrict o, const ac *restrict sa,          \
                                                   const bc *restrict b, int64_t n,                \
                                                   const PT *restrict pp) {                        \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        const ac av = *sa;                                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LDA(av), LDB(b[i])));                                  \
    }                                                                                              \
    /* One row of n elements: a and b at byte strides as (0: a broadcast scalar). */               \
    NT_LOOP_FN inline void NAME##_row(char *o, const char *a, const char *b, int64_t os,           \
                                      int64_t as, int64_t bs, int64_t n, const PT *pp) {           \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        const int64_t O = (int64_t)sizeof(oc), A = (int64_t)sizeof(ac), B = (int64_t)sizeof(bc);   \
        if (os == O && as == A && bs == B) {                                                       \
            if ((const char *)o == a && O == A)                                                    \
                NAME##_flat_ip((oc *)o, (const bc *)b, n, pp);                                     \
            else if ((const char *)o == b)                                                         \
                goto strided; /* written over b: no restrict */                                    \
            else                                                                                   \
                NAME##_flat((oc *)o, (const ac *)a, (const bc *)b, n, pp);                         \
            return;                                                                                \
        }                                                                                          \
        if (os == O && as == A && bs == 0) {                                                       \
            if ((const char *)o == a && O == A)                                                    \
                NAME##_flat_s_ip((oc *)o, (const bc *)b, n, pp);                                   \
            else                                                                                   \
                NAME##_flat_s((oc *)o, (const ac *)a, (const bc *)b, n, pp);                       \
            return;                                                                                \
        }                                                                                          \
        if (os == O && as == 0 && bs == B && (const char *)o != b) {                               \
            NAME##_flat_r((oc *)o, (const ac *)a, (const bc *)b, n, pp);                           \
            return;                                                                                \
        }                                                                                          \
    strided:                                                                                       \
        for (int64_t i = 0; i < n; i++)                                                            \
            *(oc *)(o + i * os) = ST(NT_LOOP_CALL_##PK(FN, LDA(*(const ac *)(a + i * as)),         \
                                                       LDB(*(const bc *)(b + i * bs))));           \
    }                                                                                              \
    NT_LOOP_FN inline const PT *NAME##_params(const void *ctx) {                                   \
        static const PT zero = {0};                                                                \
        const nt_binary_ctx *c = (const nt_binary_ctx *)ctx;                                       \
        return c && c->params ? (const PT *)c->params : &zero;                                     \
    }                                                                                              \
    NT_LOOP_FN void NAME(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {        \
        const PT *pp = NAME##_params(ctx);                                                         \
        char *o = data[0];                                                                         \
        const char *a = data[1], *b = data[2];                                                     \
        for (int64_t j = 0; j < m; j++, o += st[3], a += st[4], b += st[5])                        \
            NAME##_row(o, a, b, st[0], st[1], st[2], n, pp);                                       \
    }                                                                                              \
    NT_LOOP_FN void NAME##_s(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {    \
        const PT *pp = NAME##_params(ctx);                                                         \
        const char *sb = (const char *)((const nt_binary_ctx *)ctx)->scalar;                       \
        char *o = data[0];                                                                         \
        const char *a = data[1];                                                                   \
        for (int64_t j = 0; j < m; j++, o += st[2], a += st[3])                                    \
            NAME##_row(o, a, sb, st[0], st[1], 0, n, pp);                                          \
    }                                                                                              \
    NT_LOOP_FN void NAME##_r(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {    \
        const PT *pp = NAME##_params(ctx);                                                         \
        const char *sa = (const char *)((const nt_binary_ctx *)ctx)->scalar;                       \
        char *o = data[0];                                                                         \
        const char *b = data[1];                                                                   \
        for (int64_t j = 0; j < m; j++, o += st[2], b += st[3])                                    \
            NAME##_row(o, sa, b, st[0], 0, st[1], n, pp);                                          \
    }

#define NT_LOOP_BINARY(NAME, oc, ac, bc, LDA, LDB, ST, FN)                                         \
    NT_LOOP_BINARY_IMPL(NAME, oc, ac, bc, LDA, LDB, ST, FN, N, nt_no_params)
#define NT_LOOP_BINARY_P(NAME, oc, ac, bc, LDA, LDB, ST, FN, PT)                                   \
    NT_LOOP_BINARY_IMPL(NAME, oc, ac, bc, LDA, LDB, ST, FN, P, PT)

/* ------------------------------------------------------------------ ternary */

#define NT_LOOP_TERNARY_IMPL(NAME, oc, ac, bc, cc, LDA, LDB, LDC, ST, FN, PK, PT)                  \
    NT_VECTOR_CLONES NT_LOOP_FN void NAME##_flat(oc *restrict o, const ac *restrict a,             \
                                                 const bc *restrict b, const cc *restrict c,       \
                                                 int64_t n, const PT *restrict pp) {               \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = ST(NT_LOOP_CALL_##PK(FN, LDA(a[i]), LDB(b[i]), LDC(c[i])));                     \
    }                                                                                              \
    NT_LOOP_FN void NAME(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {        \
        static const PT zero = {0};                                                                \
        const PT *pp = ctx ? (const PT *)ctx : &zero;                                              \
        const PT nt_prm_ = *pp;                                                                    \
        (void)nt_prm_;                                                                             \
        char *o = data[0];                                                                         \
        const char *a = data[1], *b = data[2], *c = data[3];                                       \
        const int64_t os = st[0], as = st[1], bs = st[2], cs = st[3];                              \
        const bool flat = os == (int64_t)sizeof(oc) && as == (int64_t)sizeof(ac) &&                \
                          bs == (int64_t)sizeof(bc) && cs == (int64_t)sizeof(cc);                  \
        for (int64_t j = 0; j < m; j++, o += st[4], a += st[5], b += st[6], c += st[7]) {          \
            if (flat && (const char *)o != a && (const char *)o != b && (const char *)o != c) {    \
                NAME##_flat((oc *)o, (const ac *)a, (const bc *)b, (const cc *)c, n, pp);          \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t i = 0; i < n; i++)                                                        \
                *(oc *)(o + i * os) = ST(NT_LOOP_CALL_##PK(FN, LDA(*(const ac *)(a + i * as)),     \
                                                           LDB(*(const bc *)(b + i * bs)),         \
                                                           LDC(*(const cc *)(c + i * cs))));       \
        }                                                                                          \
    }

#define NT_LOOP_TERNARY(NAME, oc, ac, bc, cc, LDA, LDB, LDC, ST, FN)                               \
    NT_LOOP_TERNARY_IMPL(NAME, oc, ac, bc, cc, LDA, LDB, LDC, ST, FN, N, nt_no_params)
#define NT_LOOP_TERNARY_P(NAME, oc, ac, bc, cc, LDA, LDB, LDC, ST, FN, PT)                         \
    NT_LOOP_TERNARY_IMPL(NAME, oc, ac, bc, cc, LDA, LDB, LDC, ST, FN, P, PT)

#endif
