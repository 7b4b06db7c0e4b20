/*
 * mask.c — masked_fill, masked_fill_ and masked_select (layer L4; their loops are in
 * kernels/index_kernels.c). Public calls reach them through the dispatcher.
 *
 * masked_fill is one fused pass: out = mask ? value : self, over an iterator of (out, self,
 * mask) — PyTorch clones self and then fills, two passes with a scalar loop. masked_fill_
 * changes only the elements where the mask is true (see run_fill for how it stores). The
 * value is converted to self's dtype first, so the loops only move bits.
 *
 * PyTorch 1.13 reads a mask of any dtype through its first byte, and for a non-bool mask
 * fails with "Mask tensor can take 0 and 1 values only" when that byte is above 1; the
 * loops do the same (bool masks skip the check), flagging the error, which is raised
 * after the loop.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "dispatch/dispatch.h"
#include "index.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "kernels/index_kernels.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/out.h"

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
    nt_mask_fill_ctx c = {.value = 0,
                          .check = mask->dtype != NT_BOOL,
                          .blend = nops == 2 && nt_internal_overlap(ops[0]) == NT_OVERLAP_NO,
                          .bad = &bad};
    nt_store_scalar(&c.value, dtype, value);
    nt_iter_run(&it, nt_mask_fill_loop(nt_dtype_table[dtype].size, nops == 2), &c);
    if (atomic_load(&bad)) return mask_values_error();
    return NT_OK;
}

nt_status nt_masked_fill_unchecked_(nt_tensor *t, const nt_tensor *mask, nt_scalar value) {
    nt_tensor *ops[2] = {t, (nt_tensor *)mask};
    NT_TRY(run_fill(2, ops, t->dtype, mask, value));
    return NT_OK;
}

static nt_status fill_inplace(nt_tensor *t, const nt_tensor *mask, nt_scalar value) {
    nt_name names[NT_MAX_DIMS];
    int ndim;
    const nt_name *computed;
    NT_TRY(
        nt_names_masked_fill_(t->names, t->ndim, mask->names, mask->ndim, names, &ndim, &computed));
    if (computed) NT_TRY(nt_names_check_out(t->names, t->ndim, computed, ndim));
    NT_TRY(nt_check_no_partial_overlap(t, mask));
    NT_TRY(nt_masked_fill_unchecked_(t, mask, value));
    if (computed && !t->names && ndim == t->ndim) NT_TRY(nt_tensor_set_names(t, computed));
    return NT_OK;
}

static nt_status fill_new(nt_tensor *t, const nt_tensor *mask, nt_scalar value, nt_tensor **out) {
    nt_name names[NT_MAX_DIMS];
    int ndim;
    const nt_name *computed;
    NT_TRY(
        nt_names_masked_fill(t->names, t->ndim, mask->names, mask->ndim, names, &ndim, &computed));
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
    if (value->ndim != 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                       "with %d dimension(s).",
                       value->ndim);
    *s = nt_load_scalar(nt_tensor_bytes(value), value->dtype);
    return NT_OK;
}

/* masked_fill(self, mask, value) and masked_fill_: value a Scalar or a 0-dim Tensor. */
nt_status nt_impl_masked_fill(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *mask = nt_call_tensor(c, 1);
    if (!t || !mask)
        return nt_fail(NT_ERR_TYPE, "masked_fill%s(): a tensor argument is NULL",
                       c->inplace ? "_" : "");
    nt_scalar s = c->args[2].v.s;
    if (c->args[2].kind == NT_ARG_TENSOR) NT_TRY(value_of(c->args[2].v.t, &s));
    if (!c->inplace) return fill_new(t, mask, s, &c->result[0]);
    NT_TRY(fill_inplace(t, mask, s));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
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

/* The elements of t where mask (both broadcast) is true, into a new 1-d tensor. */
static nt_status select_masked(nt_tensor *t, const nt_tensor *mask, nt_tensor **out) {
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
    if (numel > 0) do
            count += nt_mask_count_row(mb + row_offset(&r, ms), mi, inner);
        while (rows_next(&r));
    nt_tensor *res = NULL;
    NT_TRY(nt_tensor_alloc(t->dtype, 1, &count, NULL, &res));
    size_t esize = nt_dtype_table[t->dtype].size;
    char *o = nt_tensor_bytes(res);
    memset(r.idx, 0, sizeof r.idx);
    if (count > 0) do
            o = nt_mask_compact_row(o, tb + row_offset(&r, ts), ti, mb + row_offset(&r, ms), mi,
                                    inner, esize);
        while (rows_next(&r));
    *out = res;
    return NT_OK;
}

/* masked_select(self, mask, *, out=None). An out= tensor is resized as PyTorch's
 * masked_select_out does, under its NoNamesGuard: a named out is resized too (its names cut
 * to the result's one dim) and keeps them. */
nt_status nt_impl_masked_select(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *mask = nt_call_tensor(c, 1), *out = c->out[0];
    if (!t || !mask) return nt_fail(NT_ERR_TYPE, "masked_select(): a tensor argument is NULL");
    NT_TRY(nt_names_masked_select(t->names, t->ndim, mask->names, mask->ndim));
    if (mask->dtype != NT_BOOL && mask->dtype != NT_UINT8)
        return nt_fail(NT_ERR_RUNTIME, "masked_select: expected BoolTensor or ByteTensor for mask");
    if (out && out->dtype != t->dtype)
        return nt_fail(NT_ERR_RUNTIME,
                       "masked_select(): self and result must have the same scalar type");
    if (!out) return select_masked(t, mask, &c->result[0]);
    nt_tensor *r = NULL;
    NT_TRY(select_masked(t, mask, &r));
    nt_status st = NT_OK;
    NT_CHECK(st, nt_check_no_internal_overlap(out));
    NT_CHECK(st, nt_out_resize_ignoring_names(out, 1, r->sizes));
    NT_CHECK(st, nt_copy_(out, r));
    c->result[0] = nt_tensor_retain(out);
fail:
    nt_tensor_release(r);
    return st;
}

/* ------------------------------------------------------------------ masked_scatter */

/* self (already holding its values, of the broadcast shape) written where mask is true with
 * source's elements in order (source contiguous, checked to hold enough) */
static void scatter_masked(nt_tensor *self, const nt_tensor *mask, const nt_tensor *source) {
    int nd = self->ndim;
    int64_t ms[NT_MAX_DIMS] = {0}, ss[NT_MAX_DIMS] = {0};
    broadcast_strides(mask, nd, self->sizes, ms);
    broadcast_strides(self, nd, self->sizes, ss);
    int64_t inner = nd ? self->sizes[nd - 1] : 1, mi = nd ? ms[nd - 1] : 0,
            si = nd ? ss[nd - 1] : 0;
    size_t esize = nt_dtype_table[self->dtype].size;
    char *sb = nt_tensor_bytes(self);
    const char *mb = nt_tensor_bytes(mask), *src = nt_tensor_bytes(source);
    rows r = {.ndim = nd, .shape = self->sizes};
    memset(r.idx, 0, sizeof r.idx);
    do
        src = nt_mask_expand_row(sb + row_offset(&r, ss), si, mb + row_offset(&r, ms), mi, inner,
                                 src, esize);
    while (rows_next(&r));
}

/* The true elements of mask broadcast to `shape` */
static int64_t mask_count(const nt_tensor *mask, int nd, const int64_t *shape) {
    int64_t ms[NT_MAX_DIMS] = {0}, count = 0;
    broadcast_strides(mask, nd, shape, ms);
    const char *mb = nt_tensor_bytes(mask);
    rows r = {.ndim = nd, .shape = shape};
    memset(r.idx, 0, sizeof r.idx);
    do
        count +=
            nt_mask_count_row(mb + row_offset(&r, ms), nd ? ms[nd - 1] : 0, nd ? shape[nd - 1] : 1);
    while (rows_next(&r));
    return count;
}

/* masked_scatter(self, mask, source) and masked_scatter_: source's elements, in order, where
 * mask is true; out of place the result has the broadcast shape of self and mask, in place
 * mask broadcasts to self. Names: self's, mask aligned to it as for masked_fill. */
nt_status nt_impl_masked_scatter(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *mask = nt_call_tensor(c, 1),
              *source = nt_call_tensor(c, 2);
    nt_tensor *w = NULL, *src = NULL, *wide = NULL;
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_masked_fill(t->names, t->ndim, mask->names, mask->ndim, buf, &nd, &names));
    if (mask->dtype != NT_BOOL && mask->dtype != NT_UINT8)
        return nt_fail(NT_ERR_RUNTIME,
                       "masked_scatter_ only supports boolean masks, but got mask "
                       "with dtype %s",
                       nt_dtype_torch_name(mask->dtype));
    if (source->dtype != t->dtype)
        return nt_fail(
            NT_ERR_RUNTIME,
            "masked_scatter: expected self and source to have same dtypes but got%s and %s",
            nt_dtype_legacy_name(t->dtype), nt_dtype_legacy_name(source->dtype));
    nt_status st = NT_OK;
    if (c->inplace) {
        NT_CHECK(st, nt_expand(mask, t->ndim, t->sizes, &wide));
        w = nt_tensor_retain(t);
    } else {
        nt_tensor *pair[2] = {mask, t}; /* PyTorch's order in its broadcast text */
        int64_t shape[NT_MAX_DIMS];
        NT_CHECK(st, nt_broadcast_shapes(2, pair, &nd, shape));
        nt_tensor *e = NULL;
        NT_CHECK(st, nt_expand(t, nd, shape, &e));
        st = nt_contiguous(e, &w);
        if (st == NT_OK && w == e) { /* expand of an equal shape: a copy is still needed */
            nt_tensor_release(w);
            w = NULL;
            st = nt_clone(e, &w);
        }
        nt_tensor_release(e);
        if (st != NT_OK) goto fail;
        NT_CHECK(st, nt_expand(mask, nd, shape, &wide));
        if (names) NT_CHECK(st, nt_tensor_set_names(w, names));
    }
    if (w->numel > 0) {
        if (mask_count(wide, w->ndim, w->sizes) > source->numel) {
            st = nt_fail(NT_ERR_RUNTIME, "Number of elements of source < number of ones in mask");
            goto fail;
        }
        NT_CHECK(st, nt_contiguous(source, &src));
        scatter_masked(w, wide, src);
    }
    c->result[0] = w;
    w = NULL;
fail:
    nt_tensor_release(w);
    nt_tensor_release(src);
    nt_tensor_release(wide);
    return st;
}

/* masked_scatter's shape: self's in place, else the broadcast of self and mask (source's
 * shape does not count) */
nt_status nt_shape_masked_scatter(const nt_call *c, nt_shape *s) {
    nt_tensor *pair[2] = {nt_call_tensor(c, 1), nt_call_tensor(c, 0)};
    if (c->inplace) {
        nt_shape_of_tensor(s, pair[1]);
        return NT_OK;
    }
    return nt_broadcast_shapes(2, pair, &s->ndim, s->sizes);
}

/* ------------------------------------------------------------------ nonzero, where(condition) */

/* nonzero(self, *, out=None): an (n, ndim) int64 matrix; nonzero(self, *, as_tuple) and
 * where(condition): with as_tuple (always for where), its columns as a list (a 0-dim
 * input counts as 1-dim). Results are unnamed. */
nt_status nt_impl_nonzero(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *nz = NULL, *out = c->out[0];
    bool tuple = c->op == NT_OP_WHERE_CONDITION ||
                 (c->op == NT_OP_NONZERO_TUPLE && c->args[1].kind == NT_ARG_BOOL && c->args[1].v.b);
    if (out && out->dtype != NT_INT64)
        return nt_fail(
            NT_ERR_RUNTIME,
            "nonzero: Expected out tensor to have scalar type Long but got scalar type%s",
            nt_dtype_legacy_name(out->dtype));
    NT_TRY(nt_index_nonzero(t, &nz));
    nt_status st = NT_OK;
    if (!tuple) {
        if (!out) {
            c->result[0] = nz;
            return NT_OK;
        }
        NT_CHECK(st, nt_out_resize_ignoring_names(out, 2, nz->sizes));
        NT_CHECK(st, nt_copy_values(out, nz));
        c->result[0] = nt_tensor_retain(out);
        goto fail;
    }
    int cols = t->ndim ? t->ndim : 1;
    nt_tensor **list = calloc((size_t)cols, sizeof *list);
    if (!list) {
        st = nt_fail_oom((size_t)cols * sizeof *list);
        goto fail;
    }
    for (int j = 0; j < cols && st == NT_OK; j++)
        st = t->ndim ? nt_select(nz, 1, j, &list[j])
                     : nt_zeros(1, nz->sizes, NT_INT64, NULL, &list[j]);
    if (st != NT_OK) {
        nt_tensors_release(list, cols);
        goto fail;
    }
    c->list = list;
    c->nlist = cols;
fail:
    nt_tensor_release(nz);
    return st;
}

/* ------------------------------------------------------------------ the public functions */

static nt_status run(nt_call *c, nt_tensor **out) {
    NT_TRY(nt_dispatch(c));
    if (out)
        *out = c->result[0];
    else
        nt_tensor_release(c->result[0]);
    return NT_OK;
}

static nt_status fill(nt_op op, nt_tensor *t, const nt_tensor *mask, nt_arg value, bool inplace,
                      nt_tensor **out) {
    if (!inplace && !out) return nt_fail(NT_ERR_VALUE, "masked_fill(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)mask);
    c.args[2] = value;
    return run(&c, out);
}

nt_status nt_masked_fill(nt_tensor *t, const nt_tensor *mask, nt_scalar value, nt_tensor **out) {
    return fill(NT_OP_MASKED_FILL, t, mask, nt_arg_scalar(value), false, out);
}

nt_status nt_masked_fill_(nt_tensor *t, const nt_tensor *mask, nt_scalar value) {
    return fill(NT_OP_MASKED_FILL, t, mask, nt_arg_scalar(value), true, NULL);
}

nt_status nt_masked_fill_tensor(nt_tensor *t, const nt_tensor *mask, const nt_tensor *value,
                                nt_tensor **out) {
    if (!value) return nt_fail(NT_ERR_TYPE, "masked_fill(): the value tensor is NULL");
    return fill(NT_OP_MASKED_FILL_TENSOR, t, mask, nt_arg_tensor((nt_tensor *)value), false, out);
}

nt_status nt_masked_fill_tensor_(nt_tensor *t, const nt_tensor *mask, const nt_tensor *value) {
    if (!value) return nt_fail(NT_ERR_TYPE, "masked_fill(): the value tensor is NULL");
    return fill(NT_OP_MASKED_FILL_TENSOR, t, mask, nt_arg_tensor((nt_tensor *)value), true, NULL);
}

nt_status nt_masked_select(nt_tensor *t, const nt_tensor *mask, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "masked_select(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_MASKED_SELECT);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)mask);
    return run(&c, out);
}

nt_status nt_masked_scatter(nt_tensor *t, const nt_tensor *mask, const nt_tensor *source,
                            nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "masked_scatter(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_MASKED_SCATTER);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)mask);
    c.args[2] = nt_arg_tensor((nt_tensor *)source);
    NT_TRY(nt_call_op(&c));
    *out = c.result[0];
    return NT_OK;
}

nt_status nt_masked_scatter_(nt_tensor *t, const nt_tensor *mask, const nt_tensor *source) {
    nt_call c;
    nt_call_init(&c, NT_OP_MASKED_SCATTER);
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)mask);
    c.args[2] = nt_arg_tensor((nt_tensor *)source);
    NT_TRY(nt_call_op(&c));
    nt_tensor_release(c.result[0]);
    return NT_OK;
}

nt_status nt_nonzero(nt_tensor *t, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "nonzero(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_NONZERO);
    c.args[0] = nt_arg_tensor(t);
    NT_TRY(nt_call_op(&c));
    *out = c.result[0];
    return NT_OK;
}

nt_status nt_nonzero_tuple(nt_tensor *t, nt_tensor ***out, int64_t *count) {
    if (!out || !count) return nt_fail(NT_ERR_VALUE, "nonzero(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_NONZERO_TUPLE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_bool(true);
    NT_TRY(nt_call_op(&c));
    *out = c.list;
    *count = c.nlist;
    return NT_OK;
}
