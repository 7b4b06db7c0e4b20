/*
 * index_kernels.c — the indexing family's loops (see index_kernels.h): one set per element
 * size, stamped by a small macro per job, each with its contiguous fast path.
 */
#include "index_kernels.h"

#include <string.h>

#include "core/half.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define NT_MASK_CLONES __attribute__((noinline, target_clones("avx2", "default")))
#else
#define NT_MASK_CLONES
#endif

/* ------------------------------------------------------------------ gather / scatter */

#define NT_INDEX_LOOPS(S, T)                                                                       \
    static void gather_##S(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {      \
        (void)ctx;                                                                                 \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = data[0] + j * st[3];                                                         \
            const char *s = data[1] + j * st[4], *f = data[2] + j * st[5];                         \
            for (int64_t i = 0; i < n; i++)                                                        \
                *(T *)(o + i * st[0]) =                                                            \
                    *(const T *)(s + i * st[1] + *(const int64_t *)(f + i * st[2]));               \
        }                                                                                          \
    }                                                                                              \
    static void scatter_##S(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {     \
        (void)ctx;                                                                                 \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = data[0] + j * st[3];                                                         \
            const char *s = data[1] + j * st[4], *f = data[2] + j * st[5];                         \
            for (int64_t i = 0; i < n; i++)                                                        \
                *(T *)(o + i * st[0] + *(const int64_t *)(f + i * st[2])) =                        \
                    *(const T *)(s + i * st[1]);                                                   \
        }                                                                                          \
    }
NT_INDEX_LOOPS(1, uint8_t)
NT_INDEX_LOOPS(2, uint16_t)
NT_INDEX_LOOPS(4, uint32_t)
NT_INDEX_LOOPS(8, uint64_t)

nt_loop2d nt_index_gather_loop(size_t size, bool scatter) {
    switch (size) {
    case 1:
        return scatter ? scatter_1 : gather_1;
    case 2:
        return scatter ? scatter_2 : gather_2;
    case 4:
        return scatter ? scatter_4 : gather_4;
    default:
        return scatter ? scatter_8 : gather_8;
    }
}

/* Scatter-add (index_put_ with accumulate): operand 0 gets operand 1 added at the offset from
 * operand 2. Offsets may repeat, so it runs on one thread (nt_iter_run_range). Half types add
 * in float, bool is a logical or (PyTorch's sum of bools). */
#define NT_ACCUMULATE_LOOP(NAME, T, LOAD, STORE)                                                   \
    static void NAME(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {            \
        (void)ctx;                                                                                 \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = data[0] + j * st[3];                                                         \
            const char *s = data[1] + j * st[4], *f = data[2] + j * st[5];                         \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T *d = (T *)(o + i * st[0] + *(const int64_t *)(f + i * st[2]));                   \
                T v = *(const T *)(s + i * st[1]);                                                 \
                *d = STORE(LOAD(*d) + LOAD(v));                                                    \
            }                                                                                      \
        }                                                                                          \
    }
#define NT_SAME(x) (x)
#define NT_BOOL_OR(x) ((x) != 0)
NT_ACCUMULATE_LOOP(acc_u8, uint8_t, NT_SAME, (uint8_t))
NT_ACCUMULATE_LOOP(acc_i8, int8_t, NT_SAME, (int8_t))
NT_ACCUMULATE_LOOP(acc_i16, int16_t, NT_SAME, (int16_t))
NT_ACCUMULATE_LOOP(acc_i32, int32_t, NT_SAME, (int32_t))
NT_ACCUMULATE_LOOP(acc_i64, int64_t, NT_SAME, (int64_t))
NT_ACCUMULATE_LOOP(acc_f32, float, NT_SAME, NT_SAME)
NT_ACCUMULATE_LOOP(acc_f64, double, NT_SAME, NT_SAME)
NT_ACCUMULATE_LOOP(acc_f16, nt_float16, nt_f16_to_f32, nt_f32_to_f16)
NT_ACCUMULATE_LOOP(acc_bf16, nt_bfloat16, nt_bf16_to_f32, nt_f32_to_bf16)
NT_ACCUMULATE_LOOP(acc_bool, uint8_t, NT_SAME, NT_BOOL_OR)
#undef NT_SAME
#undef NT_BOOL_OR
#undef NT_ACCUMULATE_LOOP

nt_loop2d nt_index_accumulate_loop(nt_dtype dtype) {
    static const nt_loop2d loops[] = {
        [NT_BOOL] = acc_bool,   [NT_UINT8] = acc_u8,      [NT_INT8] = acc_i8,
        [NT_INT16] = acc_i16,   [NT_INT32] = acc_i32,     [NT_INT64] = acc_i64,
        [NT_FLOAT16] = acc_f16, [NT_BFLOAT16] = acc_bf16, [NT_FLOAT32] = acc_f32,
        [NT_FLOAT64] = acc_f64,
    };
    return loops[dtype];
}

/* ------------------------------------------------------------------ masked_fill */

#define NT_MASK_LOOPS(S, T)                                                                        \
    NT_MASK_CLONES static void fill_contig_##S(T *restrict d, const uint8_t *restrict m,           \
                                               int64_t n, T v) {                                   \
        for (int64_t i = 0; i < n; i++)                                                            \
            if (m[i]) d[i] = v;                                                                    \
    }                                                                                              \
    NT_MASK_CLONES static void blend_contig_##S(T *restrict d, const uint8_t *restrict m,          \
                                                int64_t n, T v) {                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = m[i] ? v : d[i];                                                                \
    }                                                                                              \
    NT_MASK_CLONES static void select_contig_##S(T *restrict o, const T *restrict s,               \
                                                 const uint8_t *restrict m, int64_t n, T v) {      \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = m[i] ? v : s[i];                                                                \
    }                                                                                              \
    /* in place: operand 0 self, 1 mask */                                                         \
    static void fill_##S(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {        \
        const nt_mask_fill_ctx *c = ctx;                                                           \
        T v;                                                                                       \
        memcpy(&v, &c->value, sizeof v);                                                           \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *d = data[0] + j * st[2];                                                         \
            const char *k = data[1] + j * st[3];                                                   \
            if (c->check) {                                                                        \
                for (int64_t i = 0; i < n; i++) {                                                  \
                    uint8_t b = *(const uint8_t *)(k + i * st[1]);                                 \
                    if (b > 1) atomic_store_explicit(c->bad, 1, memory_order_relaxed);             \
                    if (b) *(T *)(d + i * st[0]) = v;                                              \
                }                                                                                  \
            } else if (st[0] == S && st[1] == 1 && c->blend) {                                     \
                blend_contig_##S((T *)d, (const uint8_t *)k, n, v);                                \
            } else if (st[0] == S && st[1] == 1) {                                                 \
                fill_contig_##S((T *)d, (const uint8_t *)k, n, v);                                 \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++)                                                    \
                    if (*(const uint8_t *)(k + i * st[1])) *(T *)(d + i * st[0]) = v;              \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* out of place: operand 0 out, 1 self, 2 mask */                                              \
    static void select_##S(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {      \
        const nt_mask_fill_ctx *c = ctx;                                                           \
        T v;                                                                                       \
        memcpy(&v, &c->value, sizeof v);                                                           \
        for (int64_t j = 0; j < m; j++) {                                                          \
            char *o = data[0] + j * st[3];                                                         \
            const char *s = data[1] + j * st[4], *k = data[2] + j * st[5];                         \
            if (!c->check && st[0] == S && st[1] == S && st[2] == 1) {                             \
                select_contig_##S((T *)o, (const T *)s, (const uint8_t *)k, n, v);                 \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                      \
                uint8_t b = *(const uint8_t *)(k + i * st[2]);                                     \
                if (c->check && b > 1) atomic_store_explicit(c->bad, 1, memory_order_relaxed);     \
                *(T *)(o + i * st[0]) = b ? v : *(const T *)(s + i * st[1]);                       \
            }                                                                                      \
        }                                                                                          \
    }
NT_MASK_LOOPS(1, uint8_t)
NT_MASK_LOOPS(2, uint16_t)
NT_MASK_LOOPS(4, uint32_t)
NT_MASK_LOOPS(8, uint64_t)

nt_loop2d nt_mask_fill_loop(size_t size, bool inplace) {
    switch (size) {
    case 1:
        return inplace ? fill_1 : select_1;
    case 2:
        return inplace ? fill_2 : select_2;
    case 4:
        return inplace ? fill_4 : select_4;
    default:
        return inplace ? fill_8 : select_8;
    }
}

/* ------------------------------------------------------------------ masked_select */

int64_t nt_mask_count_row(const char *mask, int64_t mask_stride, int64_t n) {
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
        count += *(const uint8_t *)(mask + i * mask_stride) != 0;
    return count;
}

char *nt_mask_compact_row(char *dst, const char *src, int64_t src_stride, const char *mask,
                          int64_t mask_stride, int64_t n, size_t elem_size) {
    for (int64_t i = 0; i < n; i++)
        if (*(const uint8_t *)(mask + i * mask_stride)) {
            memcpy(dst, src + i * src_stride, elem_size);
            dst += elem_size;
        }
    return dst;
}

const char *nt_mask_expand_row(char *dst, int64_t dst_stride, const char *mask, int64_t mask_stride,
                               int64_t n, const char *src, size_t elem_size) {
    for (int64_t i = 0; i < n; i++)
        if (*(const uint8_t *)(mask + i * mask_stride)) {
            memcpy(dst + i * dst_stride, src, elem_size);
            src += elem_size;
        }
    return src;
}

/* ------------------------------------------------------------------ nonzero */

/* Whether the element of `size` bytes at p has any of `bits` set: all of them for integers
 * and bool, all but the sign for floats (so -0.0 is zero). */
static inline bool nz_at(const char *p, size_t size, uint64_t bits) {
    switch (size) {
    case 1:
        return (*(const uint8_t *)p & bits) != 0;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return (v & bits) != 0;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return (v & bits) != 0;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return (v & bits) != 0;
    }
    }
}

static inline int64_t nz_count_row(const char *p, int64_t n, int64_t s, size_t size,
                                   uint64_t bits) {
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
        count += nz_at(p + i * s, size, bits);
    return count;
}

/* nt_nonzero_pass for elements of `size` bytes (a constant where it is inlined); contiguous
 * rows count with a constant stride too, which vectorises. */
static inline int64_t nz_pass(const char *base, int nd, const int64_t *sizes,
                              const int64_t *strides, int64_t *dst, size_t size, uint64_t bits) {
    int64_t count = 0, idx[NT_MAX_DIMS] = {0};
    int64_t inner = nd ? sizes[nd - 1] : 1, is = nd ? strides[nd - 1] : 0;
    for (;;) {
        const char *row = base;
        for (int d = 0; d < nd - 1; d++)
            row += idx[d] * strides[d];
        if (!dst) {
            count += is == (int64_t)size ? nz_count_row(row, inner, (int64_t)size, size, bits)
                                         : nz_count_row(row, inner, is, size, bits);
        } else {
            for (int64_t i = 0; i < inner; i++) {
                if (!nz_at(row + i * is, size, bits)) continue;
                for (int d = 0; d < nd - 1; d++)
                    *dst++ = idx[d];
                if (nd) *dst++ = i;
                count++;
            }
        }
        int d = nd - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < sizes[d]) break;
            idx[d] = 0;
        }
        if (d < 0) return count;
    }
}

int64_t nt_nonzero_pass(nt_dtype dtype, const char *base, int ndim, const int64_t *sizes,
                        const int64_t *byte_strides, int64_t *dst) {
    size_t size = nt_dtype_table[dtype].size;
    uint64_t bits = ~0ull >> (64 - 8 * size);
    if (nt_dtype_table[dtype].kind == NT_KIND_FLOAT) bits >>= 1; /* not the sign */
    switch (size) { /* a constant size in each call: the loads compile per size */
    case 1:
        return nz_pass(base, ndim, sizes, byte_strides, dst, 1, bits);
    case 2:
        return nz_pass(base, ndim, sizes, byte_strides, dst, 2, bits);
    case 4:
        return nz_pass(base, ndim, sizes, byte_strides, dst, 4, bits);
    default:
        return nz_pass(base, ndim, sizes, byte_strides, dst, 8, bits);
    }
}
