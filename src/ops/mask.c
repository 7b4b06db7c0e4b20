/*
 * mask.c — masked_fill, masked_fill_ and masked_select (layer L4 with their own loops).
 *
 * masked_fill is one fused pass: out = mask ? value : self, over an iterator of (out, self,
 * mask) — PyTorch clones self and then fills, two passes with a scalar loop. masked_fill_
 * changes only the elements where the mask is true (see run_fill for how it stores). Filling only moves bits, so the loops
 * exist per element size (1, 2, 4, 8 bytes), the value converted to self's dtype first.
 *
 * PyTorch 1.13 reads a mask of any dtype through its first byte, and for a non-bool mask
 * fails with "Mask tensor can take 0 and 1 values only" when that byte is above 1; the
 * loops do the same (bool masks skip the check), flagging the error, which is raised
 * after the loop.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "index.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "names/infer.h"
#include "names/names.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define NT_MASK_CLONES __attribute__((noinline, target_clones("avx2", "default")))
#else
#define NT_MASK_CLONES
#endif

typedef struct fill_ctx {
    uint64_t value; /* the value's bits in self's dtype */
    bool check;     /* a non-bool mask: bytes above 1 are an error */
    bool blend;     /* self's elements are distinct: rewrite unmasked ones with themselves */
    _Atomic int *bad;
} fill_ctx;

#define NT_MASK_LOOPS(S, T)                                                                        \
    NT_MASK_CLONES static void fill_contig_##S(T *restrict d, const uint8_t *restrict m, int64_t n, \
                                               T v) {                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            if (m[i]) d[i] = v;                                                                    \
    }                                                                                              \
    NT_MASK_CLONES static void blend_contig_##S(T *restrict d, const uint8_t *restrict m,       \
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
        const fill_ctx *c = ctx;                                                                   \
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
        const fill_ctx *c = ctx;                                                                   \
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

static nt_loop2d mask_loop(size_t size, bool inplace) {
    switch (size) {
    case 1: return inplace ? fill_1 : select_1;
    case 2: return inplace ? fill_2 : select_2;
    case 4: return inplace ? fill_4 : select_4;
    default: return inplace ? fill_8 : select_8;
    }
}

static nt_status mask_values_error(void) {
    return nt_fail(NT_ERR_RUNTIME, "Mask tensor can take 0 and 1 values only");
}

/* Runs the fill over an iterator of `nops` operands (in place: self, mask; else out, self,
 * mask) after the value's overflow check. */
static nt_status run_fill(int nops, nt_tensor **ops, nt_dtype dtype, const nt_tensor *mask,
                          nt_scalar value) {
    nt_iter_config cfg = nt_iter_defaults();
    cfg.check_mem_overlap = false;
    nt_iter it;
    NT_TRY(nt_iter_build(&it, nops, ops, &cfg));
    NT_TRY(nt_scalar_check_fits(value, dtype));
    _Atomic int bad = 0;
    /* AVX2's masked stores are slow on some CPUs (microcoded on AMD Zen), so when no two
     * elements of self share memory the in-place loop writes every element of a contiguous
     * row (the unmasked ones with their own value); an expanded self gets true conditional
     * stores, so that threads writing the same address all write the fill value. */
    fill_ctx c = {.value = 0,
                  .check = mask->dtype != NT_BOOL,
                  .blend = nops == 2 && nt_internal_overlap(ops[0]) == NT_OVERLAP_NO,
                  .bad = &bad};
    nt_store_scalar(&c.value, dtype, value);
    nt_iter_run(&it, mask_loop(nt_dtype_table[dtype].size, nops == 2), &c);
    if (atomic_load(&bad)) return mask_values_error();
    return NT_OK;
}

nt_status nt_masked_fill_unchecked_(nt_tensor *t, const nt_tensor *mask, nt_scalar value) {
    nt_tensor *ops[2] = {t, (nt_tensor *)mask};
    NT_TRY(run_fill(2, ops, t->dtype, mask, value));
    nt_storage_bump_version(t->storage);
    return NT_OK;
}

nt_status nt_masked_fill_(nt_tensor *t, const nt_tensor *mask, nt_scalar value) {
    if (!t || !mask) return nt_fail(NT_ERR_TYPE, "masked_fill_(): a tensor argument is NULL");
    nt_name names[NT_MAX_DIMS];
    int ndim;
    const nt_name *computed;
    NT_TRY(nt_names_masked_fill_(t->names, t->ndim, mask->names, mask->ndim, names, &ndim,
                                 &computed));
    if (computed) NT_TRY(nt_names_check_out(t->names, t->ndim, computed, ndim));
    NT_TRY(nt_check_no_partial_overlap(t, mask));
    NT_TRY(nt_masked_fill_unchecked_(t, mask, value));
    if (computed && !t->names && ndim == t->ndim) NT_TRY(nt_tensor_set_names(t, computed));
    return NT_OK;
}

nt_status nt_masked_fill(nt_tensor *t, const nt_tensor *mask, nt_scalar value, nt_tensor **out) {
    if (!t || !mask) return nt_fail(NT_ERR_TYPE, "masked_fill(): a tensor argument is NULL");
    if (!out) return nt_fail(NT_ERR_VALUE, "masked_fill(): the output pointer is NULL");
    nt_name names[NT_MAX_DIMS];
    int ndim;
    const nt_name *computed;
    NT_TRY(nt_names_masked_fill(t->names, t->ndim, mask->names, mask->ndim, names, &ndim,
                                &computed));
    /* expand_outplace(mask, self): mask is tensor a in the message */
    nt_tensor *pair[2] = {(nt_tensor *)mask, t};
    int64_t shape[NT_MAX_DIMS];
    int nd;
    NT_TRY(nt_broadcast_shapes(2, pair, &nd, shape));
    nt_tensor *r = NULL;
    NT_TRY(nt_tensor_alloc(t->dtype, nd, shape, computed, &r));
    nt_tensor *ops[3] = {r, t, (nt_tensor *)mask};
    nt_status st = run_fill(3, ops, t->dtype, mask, value);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}

static nt_status value_of(const nt_tensor *value, nt_scalar *s) {
    if (!value) return nt_fail(NT_ERR_TYPE, "masked_fill(): the value tensor is NULL");
    if (value->ndim != 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                       "with %d dimension(s).",
                       value->ndim);
    *s = nt_load_scalar(nt_tensor_bytes(value), value->dtype);
    return NT_OK;
}

nt_status nt_masked_fill_tensor_(nt_tensor *t, const nt_tensor *mask, const nt_tensor *value) {
    nt_scalar s;
    NT_TRY(value_of(value, &s));
    return nt_masked_fill_(t, mask, s);
}

nt_status nt_masked_fill_tensor(nt_tensor *t, const nt_tensor *mask, const nt_tensor *value,
                                nt_tensor **out) {
    nt_scalar s;
    NT_TRY(value_of(value, &s));
    return nt_masked_fill(t, mask, s, out);
}

/* ------------------------------------------------------------------ masked_select */

/* Visits the broadcast shape in row-major order, one row (the last dim) at a time. */
typedef struct rows {
    int ndim;
    const int64_t *shape;
    int64_t idx[NT_MAX_DIMS];
} rows;

static int64_t row_offset(const rows *r, const int64_t *strides) {
    int64_t o = 0;
    for (int d = 0; d < r->ndim - 1; d++)
        o += r->idx[d] * strides[d];
    return o;
}

static bool rows_next(rows *r) {
    for (int d = r->ndim - 2; d >= 0; d--) {
        if (++r->idx[d] < r->shape[d]) return true;
        r->idx[d] = 0;
    }
    return false;
}

/* Byte strides of t broadcast to `shape` (nd dims). */
static void broadcast_strides(const nt_tensor *t, int nd, const int64_t *shape, int64_t *out) {
    int64_t size = (int64_t)nt_dtype_table[t->dtype].size;
    for (int d = 0; d < nd; d++) {
        int td = d - (nd - t->ndim);
        out[d] = td >= 0 && t->sizes[td] != 1 ? t->strides[td] * size : 0;
    }
    (void)shape;
}

nt_status nt_masked_select(nt_tensor *t, const nt_tensor *mask, nt_tensor **out) {
    if (!t || !mask) return nt_fail(NT_ERR_TYPE, "masked_select(): a tensor argument is NULL");
    if (!out) return nt_fail(NT_ERR_VALUE, "masked_select(): the output pointer is NULL");
    NT_TRY(nt_names_masked_select(t->names, t->ndim, mask->names, mask->ndim));
    if (mask->dtype != NT_BOOL && mask->dtype != NT_UINT8)
        return nt_fail(NT_ERR_RUNTIME, "masked_select: expected BoolTensor or ByteTensor for mask");
    nt_tensor *pair[2] = {(nt_tensor *)mask, t};
    int64_t shape[NT_MAX_DIMS], ms[NT_MAX_DIMS] = {0}, ts[NT_MAX_DIMS] = {0}, numel;
    int nd;
    NT_TRY(nt_broadcast_shapes(2, pair, &nd, shape));
    NT_TRY(nt_shape_check(nd, shape, &numel));
    /* Nothing is read when the broadcast is empty, and then an operand's strides (an empty
     * view may have any) need not fit in bytes. */
    if (numel > 0) {
        broadcast_strides(mask, nd, shape, ms);
        broadcast_strides(t, nd, shape, ts);
    }
    int64_t inner = nd ? shape[nd - 1] : 1, mi = nd ? ms[nd - 1] : 0, ti = nd ? ts[nd - 1] : 0;
    const char *mb = nt_tensor_bytes(mask), *tb = nt_tensor_bytes(t);
    int64_t count = 0;
    rows r = {.ndim = nd, .shape = shape};
    memset(r.idx, 0, sizeof r.idx);
    if (numel > 0) do {
            const char *m = mb + row_offset(&r, ms);
            for (int64_t i = 0; i < inner; i++)
                count += *(const uint8_t *)(m + i * mi) != 0;
        } while (rows_next(&r));
    nt_tensor *res = NULL;
    NT_TRY(nt_tensor_alloc(t->dtype, 1, &count, NULL, &res));
    size_t esize = nt_dtype_table[t->dtype].size;
    char *o = nt_tensor_bytes(res);
    memset(r.idx, 0, sizeof r.idx);
    if (count > 0) do {
            const char *m = mb + row_offset(&r, ms), *s = tb + row_offset(&r, ts);
            for (int64_t i = 0; i < inner; i++)
                if (*(const uint8_t *)(m + i * mi)) {
                    memcpy(o, s + i * ti, esize);
                    o += esize;
                }
        } while (rows_next(&r));
    *out = res;
    return NT_OK;
}
