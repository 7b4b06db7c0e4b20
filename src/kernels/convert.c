/*
 * convert.c — copy, conversion and fill loops for every dtype (see convert.h for the
 * value rules), and PyTorch's overflow check for scalars written into a tensor.
 *
 * One loop per (dst, src) pair, 100 in all, stamped from NT_DTYPES: an element is read
 * into a C value with loops.h's NT_LD_<ENUM>, and each dtype supplies how to turn any C
 * value into an element (TO_<ENUM>, choosing the float, double or integer rule with
 * _Generic). Macros
 * are keyed by the enum name because `bool` is itself a macro.
 * Every loop has a contiguous fast path written with `restrict` so that -O3 vectorises
 * it, a broadcast-source path, and a general strided path. Same-dtype pairs use the copy
 * loops instead, which only care about the element size.
 */
#include "convert.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <xmmintrin.h> /* SSE: baseline on x86-64 */

#include "core/cpu.h"
#include "core/scalar.h"
#include "core/status.h"
#include "loops.h"

/* ------------------------------------------------------------------ element rules */

static inline int32_t f32_to_i32(float x) {
    return (x >= -2147483648.0f && x < 2147483648.0f) ? (int32_t)x : INT32_MIN;
}
static inline int64_t f32_to_i64(float x) {
    return (x >= -9223372036854775808.0f && x < 9223372036854775808.0f) ? (int64_t)x : INT64_MIN;
}

/* A C value (bool, integer, float or double) as an element of the dtype; NT_BY_TYPE picks
 * the float, double or integer rule by the C type of v. */
// clang-format off
#define NT_BY_TYPE(v, f, d, i) _Generic((v), float: f, double: d, default: i)
// clang-format on
#define TO_NT_BOOL(v) ((v) != 0)
#define TO_NT_UINT8(v)                                                                             \
    NT_BY_TYPE(v, (uint8_t)f32_to_i64((float)(v)), (uint8_t)nt_double_to_i64((double)(v)),         \
               (uint8_t)(v))
#define TO_NT_INT8(v)                                                                              \
    NT_BY_TYPE(v, (int8_t)f32_to_i32((float)(v)), (int8_t)nt_double_to_i32((double)(v)),           \
               (int8_t)(v))
#define TO_NT_INT16(v)                                                                             \
    NT_BY_TYPE(v, (int16_t)f32_to_i32((float)(v)), (int16_t)nt_double_to_i32((double)(v)),         \
               (int16_t)(v))
#define TO_NT_INT32(v)                                                                             \
    NT_BY_TYPE(v, f32_to_i32((float)(v)), nt_double_to_i32((double)(v)), (int32_t)(v))
#define TO_NT_INT64(v)                                                                             \
    NT_BY_TYPE(v, f32_to_i64((float)(v)), nt_double_to_i64((double)(v)), (int64_t)(v))
#define TO_NT_FLOAT16(v) nt_f32_to_f16((float)(v))
#define TO_NT_BFLOAT16(v) nt_f32_to_bf16((float)(v))
#define TO_NT_FLOAT32(v) ((float)(v))
#define TO_NT_FLOAT64(v) ((double)(v))

/* ------------------------------------------------------------------ conversion loops */

/* The contiguous loops are compiled twice, for the baseline and for AVX2 (twice the
 * lanes): loops.h's NT_VECTOR_CLONES. */
/* The loop converting src (enum SE, C type sc) into dst (DE, dc). Operand 0 is dst. */
#define NT_CONVERT_LOOP(DE, dc, SE, sc)                                                            \
    NT_VECTOR_CLONES static void contig_##DE##_from_##SE(dc *restrict d, const sc *restrict s,     \
                                                         int64_t n) {                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = TO_##DE(NT_LD_##SE(s[i]));                                                      \
    }                                                                                              \
    static void cvt_##DE##_from_##SE(char **data, const int64_t *st, int64_t n, int64_t m,         \
                                     void *ctx) {                                                  \
        (void)ctx;                                                                                 \
        char *d = data[0];                                                                         \
        const char *s = data[1];                                                                   \
        const int64_t ds = st[0], ss = st[1], dso = st[2], sso = st[3];                            \
        for (int64_t j = 0; j < m; j++, d += dso, s += sso) {                                      \
            if (ds == (int64_t)sizeof(dc) && ss == (int64_t)sizeof(sc)) {                          \
                contig_##DE##_from_##SE((dc *)d, (const sc *)s, n);                                \
            } else if (ss == 0) {                                                                  \
                const dc v = TO_##DE(NT_LD_##SE(*(const sc *)s));                                  \
                for (int64_t i = 0; i < n; i++)                                                    \
                    *(dc *)(d + i * ds) = v;                                                       \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++)                                                    \
                    *(dc *)(d + i * ds) = TO_##DE(NT_LD_##SE(*(const sc *)(s + i * ss)));          \
            }                                                                                      \
        }                                                                                          \
    }

/* The preprocessor cannot expand NT_DTYPES inside itself, so each destination names its
 * row once here (ROW_<ENUM> binds the destination), and the rows are expanded one scan
 * later through NT_DEFER / NT_EVAL. NT_CELL is defined twice below: once to stamp the
 * loops, once to fill the table. */
#define ROW_NT_BOOL(SE, sn, sc) NT_CELL(NT_BOOL, nt_bool, SE, sc)
#define ROW_NT_UINT8(SE, sn, sc) NT_CELL(NT_UINT8, uint8_t, SE, sc)
#define ROW_NT_INT8(SE, sn, sc) NT_CELL(NT_INT8, int8_t, SE, sc)
#define ROW_NT_INT16(SE, sn, sc) NT_CELL(NT_INT16, int16_t, SE, sc)
#define ROW_NT_INT32(SE, sn, sc) NT_CELL(NT_INT32, int32_t, SE, sc)
#define ROW_NT_INT64(SE, sn, sc) NT_CELL(NT_INT64, int64_t, SE, sc)
#define ROW_NT_FLOAT16(SE, sn, sc) NT_CELL(NT_FLOAT16, nt_float16, SE, sc)
#define ROW_NT_BFLOAT16(SE, sn, sc) NT_CELL(NT_BFLOAT16, nt_bfloat16, SE, sc)
#define ROW_NT_FLOAT32(SE, sn, sc) NT_CELL(NT_FLOAT32, float, SE, sc)
#define ROW_NT_FLOAT64(SE, sn, sc) NT_CELL(NT_FLOAT64, double, SE, sc)
_Static_assert(NT_DTYPE_COUNT == 10, "a new dtype needs its TO_ and ROW_ macros");

#define NT_EMPTY()
#define NT_DEFER(m) m NT_EMPTY()
#define NT_EVAL(...) __VA_ARGS__
#define NT_DTYPES_AGAIN() NT_DTYPES
#define NT_ROW(DE, dn, dc) NT_DEFER(NT_DTYPES_AGAIN)()(ROW_##DE)

#define NT_CELL(DE, dc, SE, sc) NT_CONVERT_LOOP(DE, dc, SE, sc)
NT_EVAL(NT_DTYPES(NT_ROW))
#undef NT_CELL

#define NT_CELL(DE, dc, SE, sc) [DE][SE] = cvt_##DE##_from_##SE,
static const nt_loop2d convert_table[NT_DTYPE_COUNT][NT_DTYPE_COUNT] = {NT_EVAL(NT_DTYPES(NT_ROW))};
#undef NT_CELL

/* float32 -> float16 is the one conversion without a vectorisable bit trick (its rounding
 * needs a branch per element), so on CPUs with F16C it uses the hardware instruction,
 * which rounds the same way (to nearest even). Only NaNs differ — F16C keeps payload bits —
 * so a block holding a NaN is redone with the exact scalar rule. */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2,f16c"))) static void
contig_f16_from_f32_f16c(nt_float16 *restrict d, const float *restrict s, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(s + i);
        if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))) {
            for (int k = 0; k < 8; k++)
                d[i + k] = nt_f32_to_f16(s[i + k]);
        } else {
            _mm_storeu_si128((__m128i *)(void *)(d + i),
                             _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        }
    }
    for (; i < n; i++)
        d[i] = nt_f32_to_f16(s[i]);
}

static void cvt_f16_from_f32_f16c(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {
    if (st[0] != (int64_t)sizeof(nt_float16) || st[1] != (int64_t)sizeof(float)) {
        cvt_NT_FLOAT16_from_NT_FLOAT32(data, st, n, m, ctx);
        return;
    }
    for (int64_t j = 0; j < m; j++)
        contig_f16_from_f32_f16c((nt_float16 *)(data[0] + j * st[2]),
                                 (const float *)(data[1] + j * st[3]), n);
}

static bool have_f16c(void) {
    return nt_cpu()->avx2_fma && nt_cpu()->f16c;
}
#else
static bool have_f16c(void) {
    return false;
}
#define cvt_f16_from_f32_f16c cvt_NT_FLOAT16_from_NT_FLOAT32
#endif

/* ------------------------------------------------------------------ copy and fill loops */

/* A transposed copy moves square tiles through a 16 KiB buffer on the stack, as PyTorch's
 * transpose copy does: rows of the source tile are read contiguously into the buffer,
 * then rows of the destination tile are written contiguously from it. Walking either side
 * directly with its large stride would keep hitting the same cache sets (power-of-two
 * strides map many lines onto one L1 set). */
#define NT_TILE_BYTES 16384
#define NT_TILE(S) ((S) <= 4 ? 64 : 32) /* elements per tile side */

/* Writes the tile held in buf (4-byte elements, row i of the source tile at buf + i*tb) to
 * the destination rows j0.. (row j at d + (j0 + j)*dso, element i at +4*i), four rows and
 * four columns at a time with SSE 4x4 register transposes. Handles the first
 * (nj & ~3) rows and, in them, the first (ni & ~3) columns; returns the rows done. */
static int64_t tile_out_4x4(const void *buf, int tb, char *d, int64_t dso, int64_t j0, int64_t ni,
                            int64_t nj) {
    const float *b = buf;
    int64_t nj4 = nj & ~(int64_t)3, ni4 = ni & ~(int64_t)3;
    for (int64_t j = 0; j < nj4; j += 4) {
        char *r0 = d + (j0 + j) * dso;
        for (int64_t i = 0; i < ni4; i += 4) {
            __m128 a0 = _mm_loadu_ps(b + (i + 0) * tb + j), a1 = _mm_loadu_ps(b + (i + 1) * tb + j);
            __m128 a2 = _mm_loadu_ps(b + (i + 2) * tb + j), a3 = _mm_loadu_ps(b + (i + 3) * tb + j);
            _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
            _mm_storeu_ps((float *)(r0 + 0 * dso) + i, a0);
            _mm_storeu_ps((float *)(r0 + 1 * dso) + i, a1);
            _mm_storeu_ps((float *)(r0 + 2 * dso) + i, a2);
            _mm_storeu_ps((float *)(r0 + 3 * dso) + i, a3);
        }
    }
    return nj4;
}

/* Same-dtype copies only move bytes, so one loop per element size S (type T) serves all
 * dtypes: memcpy when contiguous, a broadcast path, the tiled transpose (dst contiguous
 * along the inner dim, src along the outer), and the general strided loop. */
#define NT_COPY_LOOP(S, T)                                                                         \
    static void transpose_##S(char *d, const char *s, int64_t ss, int64_t dso, int64_t n,          \
                              int64_t m) {                                                         \
        enum { TB = NT_TILE(S) };                                                                  \
        T buf[TB * TB]; /* buf[i * TB + j] = src element (i, j) of the tile */                     \
        for (int64_t j0 = 0; j0 < m; j0 += TB) {                                                   \
            int64_t nj = m - j0 < TB ? m - j0 : TB;                                                \
            for (int64_t i0 = 0; i0 < n; i0 += TB) {                                               \
                int64_t ni = n - i0 < TB ? n - i0 : TB;                                            \
                for (int64_t i = 0; i < ni; i++)                                                   \
                    memcpy(buf + i * TB, s + (i0 + i) * ss + j0 * S, (size_t)(nj * S));            \
                int64_t done =                                                                     \
                    S == 4 ? tile_out_4x4((const void *)buf, TB, d + i0 * S, dso, j0, ni, nj) : 0; \
                for (int64_t j = done; j < nj; j++) {                                              \
                    T *restrict dr = (T *)(d + (j0 + j) * dso) + i0;                               \
                    for (int64_t i = 0; i < ni; i++)                                               \
                        dr[i] = buf[i * TB + j];                                                   \
                }                                                                                  \
                for (int64_t j = 0; j < done; j++) { /* rows the 4x4 blocks left short */          \
                    T *restrict dr = (T *)(d + (j0 + j) * dso) + i0;                               \
                    for (int64_t i = ni & ~(int64_t)3; i < ni; i++)                                \
                        dr[i] = buf[i * TB + j];                                                   \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void copy_##S(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {        \
        (void)ctx;                                                                                 \
        char *d = data[0];                                                                         \
        const char *s = data[1];                                                                   \
        const int64_t ds = st[0], ss = st[1], dso = st[2], sso = st[3];                            \
        if (ds == S && ss == S) {                                                                  \
            if (d == s && dso == sso) return; /* copying onto itself */                            \
            if (dso == n * S && sso == n * S) {                                                    \
                memcpy(d, s, (size_t)(n * m * S));                                                 \
                return;                                                                            \
            }                                                                                      \
            for (int64_t j = 0; j < m; j++)                                                        \
                memcpy(d + j * dso, s + j * sso, (size_t)(n * S));                                 \
            return;                                                                                \
        }                                                                                          \
        if (ds == S && sso == S && n >= 8 && m >= 8) {                                             \
            transpose_##S(d, s, ss, dso, n, m);                                                    \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < m; j++, d += dso, s += sso) {                                      \
            if (ss == 0) {                                                                         \
                const T v = *(const T *)s;                                                         \
                for (int64_t i = 0; i < n; i++)                                                    \
                    *(T *)(d + i * ds) = v;                                                        \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++)                                                    \
                    *(T *)(d + i * ds) = *(const T *)(s + i * ss);                                 \
            }                                                                                      \
        }                                                                                          \
    }
_Static_assert(64 * 64 * 4 <= NT_TILE_BYTES && 32 * 32 * 8 <= NT_TILE_BYTES, "tile too big");

/* Fills operand 0 (strides st[0] inner, st[1] outer) with the S-byte value at ctx. */
#define NT_FILL_LOOP(S, T)                                                                         \
    static void fill_##S(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {        \
        T v;                                                                                       \
        memcpy(&v, ctx, S);                                                                        \
        char *d = data[0];                                                                         \
        for (int64_t j = 0; j < m; j++, d += st[1]) {                                              \
            if (st[0] == S) {                                                                      \
                T *restrict p = (T *)d;                                                            \
                for (int64_t i = 0; i < n; i++)                                                    \
                    p[i] = v;                                                                      \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++)                                                    \
                    *(T *)(d + i * st[0]) = v;                                                     \
            }                                                                                      \
        }                                                                                          \
    }

NT_COPY_LOOP(1, uint8_t)
NT_COPY_LOOP(2, uint16_t)
NT_COPY_LOOP(4, uint32_t)
NT_COPY_LOOP(8, uint64_t)
NT_FILL_LOOP(1, uint8_t)
NT_FILL_LOOP(2, uint16_t)
NT_FILL_LOOP(4, uint32_t)
NT_FILL_LOOP(8, uint64_t)

/* Indexed by element size. */
static const nt_loop2d copy_by_size[9] = {[1] = copy_1, [2] = copy_2, [4] = copy_4, [8] = copy_8};
static const nt_loop2d fill_by_size[9] = {[1] = fill_1, [2] = fill_2, [4] = fill_4, [8] = fill_8};

nt_loop2d nt_convert_loop(nt_dtype dst, nt_dtype src) {
    if (dst == src) return copy_by_size[nt_dtype_table[dst].size];
    if (dst == NT_FLOAT16 && src == NT_FLOAT32 && have_f16c()) return cvt_f16_from_f32_f16c;
    return convert_table[dst][src];
}

nt_loop2d nt_fill_loop(nt_dtype dtype) {
    return fill_by_size[nt_dtype_table[dtype].size];
}

/* ------------------------------------------------------------------ checked scalars */

/* Each dtype's range and the C++ type name PyTorch's message uses. */
static const struct {
    const char *cname;
    int64_t imin, imax; /* integer dtypes */
    double fmax;        /* floating dtypes: the largest finite value */
} limits[NT_DTYPE_COUNT] = {
    [NT_BOOL] = {"bool", 0, 1, 0},
    [NT_UINT8] = {"uint8_t", 0, UINT8_MAX, 0},
    [NT_INT8] = {"int8_t", INT8_MIN, INT8_MAX, 0},
    [NT_INT16] = {"int16_t", INT16_MIN, INT16_MAX, 0},
    [NT_INT32] = {"int", INT32_MIN, INT32_MAX, 0},
    [NT_INT64] = {"int64_t", INT64_MIN, INT64_MAX, 0},
    [NT_FLOAT16] = {"at::Half", 0, 0, 65504.0},
    [NT_BFLOAT16] = {"at::BFloat16", 0, 0, 0x1.fep127},
    [NT_FLOAT32] = {"float", 0, 0, FLT_MAX},
    [NT_FLOAT64] = {"double", 0, 0, DBL_MAX},
};

/* c10's overflows<To, From>(), which PyTorch applies through checked_convert. */
static bool overflows(nt_scalar v, nt_dtype dtype) {
    nt_dtype_kind kind = nt_dtype_table[dtype].kind;
    if (kind == NT_KIND_BOOL || v.kind == NT_SCALAR_BOOL) return false;
    if (kind == NT_KIND_FLOAT) {
        double max = limits[dtype].fmax;
        double x = v.kind == NT_SCALAR_INT ? (double)v.v.i : v.v.f;
        if (v.kind == NT_SCALAR_FLOAT && (isinf(x) || isnan(x))) return false;
        return x < -max || x > max;
    }
    int64_t lo = limits[dtype].imin, hi = limits[dtype].imax;
    if (v.kind == NT_SCALAR_INT) {
        int64_t i = v.v.i;
        if (lo == 0) /* unsigned: negative values down to -max wrap around */
            return i > hi || (i < 0 && (uint64_t)0 - (uint64_t)i > (uint64_t)hi);
        return i < lo || i > hi;
    }
    double x = v.v.f;
    return isnan(x) || x < (double)lo || x > (double)hi;
}

bool nt_scalar_fits(nt_scalar value, nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) && !overflows(value, dtype);
}

nt_status nt_scalar_check_fits(nt_scalar value, nt_dtype dtype) {
    if (!nt_dtype_valid((int)dtype)) return nt_fail(NT_ERR_TYPE, "invalid dtype %d", (int)dtype);
    if (overflows(value, dtype))
        return nt_fail(NT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                       limits[dtype].cname);
    return NT_OK;
}
