/*
 * linalg_matmul.c — matmul (out=), dispatched like PyTorch's _matmul_impl (see
 * linalg.h).
 */
#include <inttypes.h>

#include "core/status.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "linalg.h"
#include "names/infer.h"

/* ------------------------------------------------------------------ matmul */

/* A view of t with the given shape and strides (names dropped). */
static nt_status raw_view(const nt_tensor *t, int ndim, const int64_t *sizes,
                          const int64_t *strides, nt_tensor **out) {
    return nt_tensor_view_of(t, ndim, sizes, strides, t->offset, NULL, out);
}

/* squeeze_(0) of a (1, p) tensor: in place, as PyTorch squeezes an out= tensor. */
static void squeeze0_(nt_tensor *t) {
    if (t->ndim != 2 || t->sizes[0] != 1) return;
    nt_name name = t->names ? t->names[1] : 0;
    t->sizes[0] = t->sizes[1];
    t->strides[0] = t->strides[1];
    t->ndim = 1;
    t->is_contiguous = t->sizes[0] <= 1 || t->strides[0] == 1;
    if (t->names) nt_tensor_set_names_unchecked(t, &name);
}

/* PyTorch 1.13's should_fold(tensor1, dim_tensor2): a batched operand against a vector or
 * matrix becomes one mm/mv, unless it is a 3-d tensor whose matrices are transposed in
 * place (permute(0, 2, 1)), which bmm handles without a copy. */
static bool should_fold(const nt_tensor *t, int other_ndim) {
    if (t->ndim >= 3 && (other_ndim == 1 || other_ndim == 2)) {
        if (t->ndim == 3 && other_ndim == 2 && t->strides[2] != 1 &&
            t->strides[0] == t->sizes[1] * t->sizes[2])
            return false;
        return true;
    }
    return false;
}

/* The batch dims of a (all but its last two) broadcast with b's, PyTorch's infer_size. */
static nt_status broadcast_batch(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out,
                                 int *nout) {
    int n = na > nb ? na : nb;
    for (int i = n - 1; i >= 0; i--) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "The size of tensor a (%" PRId64
                           ") must match the size of tensor b (%" PRId64
                           ") at non-singleton dimension %d",
                           sa, sb, i);
        out[i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    return NT_OK;
}

/* t (of rank >= 1) with its batch dims broadcast to `batch` (nb dims), then its matrix dims
 * (rows, cols): sizes and strides of nb + 2 dims. A vector is a row, or a column
 * (vector_as_col). */
static void batched_layout(const nt_tensor *t, int nb, const int64_t *batch, int64_t rows,
                           int64_t cols, bool vector_as_col, int64_t *sizes, int64_t *strides) {
    int tb = t->ndim > 2 ? t->ndim - 2 : 0;
    for (int i = 0; i < nb; i++) {
        int j = i - (nb - tb);
        sizes[i] = batch[i];
        strides[i] = (j >= 0 && t->sizes[j] != 1) ? t->strides[j] : 0;
    }
    sizes[nb] = rows;
    sizes[nb + 1] = cols;
    if (t->ndim == 1) {
        strides[nb] = vector_as_col ? t->strides[0] : 0;
        strides[nb + 1] = vector_as_col ? 0 : t->strides[0];
    } else {
        strides[nb] = t->strides[t->ndim - 2];
        strides[nb + 1] = t->strides[t->ndim - 1];
    }
}

/* Whether dims [lo, hi) merge into one: each of size > 1 steps over the next one of size
 * > 1. Their product in *count, the innermost one's stride in *stride (0 if none). */
static bool merges(const int64_t *sizes, const int64_t *strides, int lo, int hi, int64_t *count,
                   int64_t *stride) {
    int last = -1;
    *count = 1, *stride = 0;
    for (int i = hi - 1; i >= lo; i--) {
        *count *= sizes[i];
        if (sizes[i] == 1) continue;
        if (last < 0)
            *stride = strides[i];
        else if (strides[i] != strides[last] * sizes[last])
            return false;
        last = i;
    }
    return true;
}

/* The first split of the nb batch dims into outer [0, split) and inner [split, nb) runs that
 * both operands' dims merge in (0: one run), or -1. */
static int batch_split(int nb, const int64_t *sz1, const int64_t *st1, const int64_t *sz2,
                       const int64_t *st2) {
    int64_t c, s;
    for (int split = 0; split < (nb > 1 ? nb : 1); split++)
        if (merges(sz1, st1, 0, split, &c, &s) && merges(sz1, st1, split, nb, &c, &s) &&
            merges(sz2, st2, 0, split, &c, &s) && merges(sz2, st2, split, nb, &c, &s))
            return split;
    return -1;
}

/* The (nb + 2)-d layout as a view with its batch dims merged at `split`: (batch, rows, cols)
 * for split 0, else (outer, inner, rows, cols), the two-level batch the kernels read in
 * place. */
static nt_status merged_view(const nt_tensor *t, int nb, const int64_t *sizes,
                             const int64_t *strides, int split, nt_tensor **out) {
    int64_t s4[4], st4[4];
    int d = 0;
    if (split > 0) {
        merges(sizes, strides, 0, split, &s4[d], &st4[d]);
        d++;
    }
    merges(sizes, strides, split, nb, &s4[d], &st4[d]);
    d++;
    s4[d] = sizes[nb], st4[d++] = strides[nb];
    s4[d] = sizes[nb + 1], st4[d++] = strides[nb + 1];
    return raw_view(t, d, s4, st4, out);
}

/* t (of rank >= 1) as a 3-d (batch, rows, cols) contiguous copy of its layout broadcast to
 * the batch shape: for batch dims that merge in no split. */
static nt_status batched_copy(const nt_tensor *t, int nb, const int64_t *sizes,
                              const int64_t *strides, nt_tensor **out) {
    int64_t total = 1;
    for (int i = 0; i < nb; i++)
        total *= sizes[i];
    int64_t rows = sizes[nb], cols = sizes[nb + 1];
    int64_t s3[3] = {total, rows, cols}, st3[3] = {rows * cols, cols, 1};
    int64_t c, s;
    if (merges(sizes, strides, 0, nb, &c, &s)) {
        int64_t sv[3] = {s, strides[nb], strides[nb + 1]};
        return raw_view(t, 3, s3, sv, out);
    }
    nt_tensor *full = NULL, *copy = NULL;
    NT_TRY(raw_view(t, nb + 2, sizes, strides, &full));
    nt_status st = nt_contiguous(full, &copy);
    nt_tensor_release(full);
    if (st != NT_OK) return st;
    st = raw_view(copy, 3, s3, st3, out);
    nt_tensor_release(copy);
    return st;
}

/* The batched product's plan (and the transposed fold's): t1 (batch1, n, m1) and t2 (batch2,
 * m2, p) broadcast over the batch dims, with PyTorch's checks and texts; the result's shape
 * (on, oshape). */
typedef struct batched_plan {
    int64_t batch[NT_MAX_DIMS], oshape[NT_MAX_DIMS];
    int nb, on;
    int64_t n, m1, m2, p, bprod;
} batched_plan;

static nt_status plan_batched(const nt_tensor *t1, const nt_tensor *t2, bool fold_t,
                              batched_plan *bp) {
    int d1 = t1->ndim, d2 = t2->ndim;
    int64_t n = d1 > 1 ? t1->sizes[d1 - 2] : 1, m1 = t1->sizes[d1 - 1];
    int64_t m2 = d2 > 1 ? t2->sizes[d2 - 2] : t2->sizes[0], p = d2 > 1 ? t2->sizes[d2 - 1] : 1;
    int64_t *batch = bp->batch;
    int nb = 0;
    if (fold_t) {
        /* PyTorch folds t2^T (batch*p, m2) against t1^T: its errors speak of that product */
        int64_t rows = p;
        for (int i = 0; i < d2 - 2; i++)
            rows *= t2->sizes[i];
        if (d1 == 2 && m2 != t1->sizes[1])
            return nt_fail(NT_ERR_RUNTIME,
                           "mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                           " and %" PRId64 "x%" PRId64 ")",
                           rows, m2, t1->sizes[1], t1->sizes[0]);
        if (d1 == 1 && m2 != t1->sizes[0])
            return nt_fail(NT_ERR_RUNTIME,
                           "size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64, rows,
                           rows, m2, t1->sizes[0]);
        nb = d2 - 2;
        for (int i = 0; i < nb; i++)
            batch[i] = t2->sizes[i];
    } else {
        NT_TRY(broadcast_batch(t1->sizes, d1 > 2 ? d1 - 2 : 0, t2->sizes, d2 > 2 ? d2 - 2 : 0,
                               batch, &nb));
    }
    int64_t bprod = 1;
    for (int i = 0; i < nb; i++)
        bprod *= batch[i];
    if (!fold_t && m1 != m2)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected size for first two dimensions of batch2 tensor to be: [%" PRId64
                       ", %" PRId64 "] but got: [%" PRId64 ", %" PRId64 "].",
                       bprod, m1, bprod, m2);
    int on = nb;
    for (int i = 0; i < nb; i++)
        bp->oshape[i] = batch[i];
    if (d1 > 1) bp->oshape[on++] = n;
    if (d2 > 1) bp->oshape[on++] = p;
    bp->nb = nb, bp->on = on;
    bp->n = n, bp->m1 = m1, bp->m2 = m2, bp->p = p, bp->bprod = bprod;
    return NT_OK;
}

/* matmul of unnamed operands, PyTorch's _matmul_impl: a new result in *result, or written
 * into `out` (then *result is a new reference to it). Each path checks out= as the
 * sub-op PyTorch calls there would. */
static nt_status matmul_nonames(const nt_tensor *t1, const nt_tensor *t2, nt_tensor *out,
                                nt_tensor **result) {
    int d1 = t1->ndim, d2 = t2->ndim;
    nt_tensor *v1 = NULL, *v2 = NULL, *r = NULL, *tmp = NULL;
    nt_status st = NT_OK;
    if (d1 == 1 && d2 == 1) return nt_la_dot_impl(t1, t2, out, result);
    if (d1 == 2 && d2 == 1) return nt_la_mv_impl(t1, t2, out, result);
    if (d1 == 2 && d2 == 2) return nt_la_mm_impl(t1, t2, out, result);
    if (d1 == 1 && d2 == 2) {
        int64_t s[2] = {1, t1->sizes[0]}, str[2] = {t1->sizes[0] * t1->strides[0], t1->strides[0]};
        NT_TRY(raw_view(t1, 2, s, str, &v1));
        if (out) {
            /* PyTorch: mm_out(out, t1.unsqueeze(0), t2).squeeze_(0): out is resized to
             * (1, p), then squeezed in place */
            NT_CHECK(st, nt_la_mm_impl(v1, t2, out, NULL));
            squeeze0_(out);
            *result = nt_tensor_retain(out);
        } else {
            NT_CHECK(st, nt_la_mm_impl(v1, t2, NULL, &r));
            int64_t s1[1] = {r->sizes[1]}, st1[1] = {1};
            NT_CHECK(st, raw_view(r, 1, s1, st1, result));
        }
        goto fail;
    }
    if (should_fold(t1, d2)) {
        /* (batch..., n, m) folded to (batch*n, m) @ t2 */
        int64_t m = t1->sizes[d1 - 1], rows = 1;
        for (int i = 0; i < d1 - 1; i++)
            rows *= t1->sizes[i];
        int64_t fold[2] = {rows, m};
        NT_TRY(nt_reshape((nt_tensor *)t1, 2, fold, &v1));
        const nt_tensor *folded = v1;
        int64_t oshape[NT_MAX_DIMS];
        int on = d1 - 1;
        for (int i = 0; i < d1 - 1; i++)
            oshape[i] = t1->sizes[i];
        if (d2 == 2) oshape[on++] = t2->sizes[1];
        if (out) NT_CHECK(st, nt_out_resize(out, on, oshape)); /* before any dtype check */
        nt_tensor *dst = NULL;
        if (out && out->is_contiguous && !nt_extents_overlap(out, t1) &&
            !nt_extents_overlap(out, t2)) {
            int64_t os[2] = {rows, d2 == 2 ? t2->sizes[1] : 1}, ostr[2];
            nt_contiguous_strides(d2 == 2 ? 2 : 1, os, ostr);
            NT_CHECK(st, nt_tensor_view_of(out, d2 == 2 ? 2 : 1, os, ostr, out->offset, NULL, &v2));
            dst = v2;
        }
        if (out && dst) {
            NT_CHECK(st, d2 == 2 ? nt_la_mm_impl(folded, t2, dst, NULL)
                                 : nt_la_mv_impl(folded, t2, dst, NULL));
            *result = nt_tensor_retain(out);
        } else {
            if (out) {
                /* PyTorch checks the out dtype of the folded product first */
                NT_CHECK(st, nt_la_check_out_dtype(out, d2 == 2 ? folded->dtype : t2->dtype));
            }
            NT_CHECK(st, d2 == 2 ? nt_la_mm_impl(folded, t2, NULL, &r)
                                 : nt_la_mv_impl(folded, t2, NULL, &r));
            int64_t ostr[NT_MAX_DIMS];
            nt_contiguous_strides(on, oshape, ostr);
            nt_tensor *shaped = NULL;
            NT_CHECK(st, raw_view(r, on, oshape, ostr, &shaped));
            if (out) {
                st = nt_copy_(out, shaped);
                nt_tensor_release(shaped);
                if (st != NT_OK) goto fail;
                *result = nt_tensor_retain(out);
            } else {
                *result = shaped;
            }
        }
        goto fail;
    }
    bool fold_t = should_fold(t2, d1);
    batched_plan bp;
    NT_TRY(plan_batched(t1, t2, fold_t, &bp));
    int64_t n = bp.n, m1 = bp.m1, m2 = bp.m2, p = bp.p, bprod = bp.bprod;
    int nb = bp.nb, on = bp.on;
    const int64_t *batch = bp.batch, *oshape = bp.oshape;
    /* the dtype PyTorch's sub-op gives its result, and the errors of that sub-op */
    nt_dtype rdt = fold_t && d1 == 1 ? t1->dtype : t2->dtype;
    if (out) {
        NT_TRY(nt_out_resize(out, on, oshape)); /* before bmm's checks, as PyTorch */
        NT_TRY(nt_la_check_out_dtype(out, rdt));
    }
    if (fold_t) {
        NT_TRY(nt_la_check_dispatch(d1 == 2 ? "addmm_impl_cpu_" : "addmv_impl_cpu", t2->dtype));
        NT_TRY(nt_la_check_same(t2->dtype, t1->dtype));
    }
    int64_t sz1[NT_MAX_DIMS + 2], st1[NT_MAX_DIMS + 2], sz2[NT_MAX_DIMS + 2], st2[NT_MAX_DIMS + 2];
    batched_layout(t1, nb, batch, n, m1, false, sz1, st1);
    batched_layout(t2, nb, batch, m2, p, true, sz2, st2);
    int split = batch_split(nb, sz1, st1, sz2, st2);
    if (split >= 0) {
        NT_CHECK(st, merged_view(t1, nb, sz1, st1, split, &v1));
        NT_CHECK(st, merged_view(t2, nb, sz2, st2, split, &v2));
    } else {
        NT_CHECK(st, batched_copy(t1, nb, sz1, st1, &v1));
        NT_CHECK(st, batched_copy(t2, nb, sz2, st2, &v2));
    }
    int64_t s3[3] = {bprod, n, p};
    NT_CHECK(st, nt_tensor_alloc(rdt, 3, s3, NULL, &r));
    if (v1->ndim == 4) {
        int64_t s4[4] = {v1->sizes[0], v1->sizes[1], n, p},
                st4[4] = {v1->sizes[1] * n * p, n * p, p, 1};
        NT_CHECK(st, raw_view(r, 4, s4, st4, &tmp));
        NT_CHECK(st, nt_la_bmm_compute(tmp, v1, v2));
        nt_tensor_release(tmp);
        tmp = NULL;
    } else {
        NT_CHECK(st, nt_la_bmm_compute(r, v1, v2));
    }
    int64_t ostr[NT_MAX_DIMS];
    nt_contiguous_strides(on, oshape, ostr);
    NT_CHECK(st, raw_view(r, on, oshape, ostr, &tmp));
    if (out) {
        NT_CHECK(st, nt_copy_(out, tmp));
        *result = nt_tensor_retain(out);
    } else {
        *result = tmp;
        tmp = NULL;
    }
fail:
    nt_tensor_release(v1);
    nt_tensor_release(v2);
    nt_tensor_release(r);
    nt_tensor_release(tmp);
    return st;
}

static nt_status check_ranks(const nt_tensor *t1, const nt_tensor *t2) {
    if (t1->ndim == 0 || t2->ndim == 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                       t1->ndim, t2->ndim);
    return NT_OK;
}

static nt_status matmul_impl(const nt_tensor *t1, const nt_tensor *t2, nt_tensor *out,
                             nt_tensor **result) {
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names = NULL;
    int nd;
    /* compute_matmul_outnames runs first (it rejects 0-d inputs when names are involved),
     * then _matmul_impl's own rank check. */
    if (t1->names || t2->names)
        NT_TRY(nt_names_matmul(t1->names, t1->ndim, t2->names, t2->ndim, buf, &nd, &names));
    NT_TRY(check_ranks(t1, t2));
    nt_tensor *u1 = NULL, *u2 = NULL, *r = NULL;
    nt_status st;
    if (!t1->names && !t2->names) return matmul_nonames(t1, t2, out, result);
    if (!out && t1->ndim == 2 && t2->ndim == 2) { /* mm's names are matmul's */
        NT_TRY(nt_la_mm_check_shapes(t1, t2));
        return nt_la_mm_named(t1, t2, NULL, result, names);
    }
    /* The sub-ops run without names (NoNamesGuard): unname views of the operands. */
    NT_CHECK(st, nt_tensor_view_of(t1, t1->ndim, t1->sizes, t1->strides, t1->offset, NULL, &u1));
    NT_CHECK(st, nt_tensor_view_of(t2, t2->ndim, t2->sizes, t2->strides, t2->offset, NULL, &u2));
    if (out && names) {
        /* the out= check happens after the product in PyTorch; its shape must be right */
        NT_CHECK(st, matmul_nonames(u1, u2, out, &r));
        NT_CHECK(st, nt_names_check_out(out->names, out->ndim, names, nd));
        nt_tensor_set_names_unchecked(out, names);
    } else {
        NT_CHECK(st, matmul_nonames(u1, u2, out, &r));
        if (names && !out) nt_tensor_set_names_unchecked(r, names);
    }
    *result = r;
    r = NULL;
fail:
    nt_tensor_release(u1);
    nt_tensor_release(u2);
    nt_tensor_release(r);
    return st;
}

/* ------------------------------------------------------------------ the row's function */

nt_status nt_impl_matmul(nt_call *c) {
    return matmul_impl(c->args[0].v.t, c->args[1].v.t, c->out[0], &c->result[0]);
}

/* ------------------------------------------------------------------ public API */

nt_status nt_matmul(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("matmul", a, "input");
    NT_REQUIRE("matmul", b, "other");
    NT_REQUIRE("matmul", out, "out");
    return nt_la_product(NT_OP_MATMUL, a, b, NULL, out);
}

nt_status nt_matmul_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("matmul", a, "input");
    NT_REQUIRE("matmul", b, "other");
    NT_REQUIRE("matmul", out, "out");
    return nt_la_product(NT_OP_MATMUL, a, b, out, NULL);
}

/* The shape rule: the shape of each path of matmul_nonames, with the checks of the sub-op
 * it calls (dot, mv, mm, the folds, the batched product). */
nt_status nt_shape_matmul(const nt_call *c, nt_shape *s) {
    const nt_tensor *t1 = c->args[0].v.t, *t2 = c->args[1].v.t;
    int d1 = t1->ndim, d2 = t2->ndim;
    NT_TRY(check_ranks(t1, t2));
    if (d1 == 1 && d2 == 1) {
        NT_TRY(nt_la_dot_check(t1, t2));
        s->ndim = 0;
        return NT_OK;
    }
    if (d1 == 2 && d2 == 1) {
        NT_TRY(nt_la_addmv_check(1, t1->sizes[0], t1->sizes[0], t1, t2));
        nt_shape_set(s, 1, t1->sizes);
        return NT_OK;
    }
    if (d1 <= 2 && d2 == 2) { /* mm, a vector as a row */
        int64_t a[2] = {d1 == 2 ? t1->sizes[0] : 1, t1->sizes[d1 - 1]};
        NT_TRY(nt_la_mm_check_sizes(a, t2->sizes));
        s->ndim = 0;
        if (d1 == 2) s->sizes[s->ndim++] = a[0];
        s->sizes[s->ndim++] = t2->sizes[1];
        return NT_OK;
    }
    if (should_fold(t1, d2)) { /* (batch..., n, m) folded to (batch*n, m) @ t2 */
        int64_t fold[2] = {1, t1->sizes[d1 - 1]};
        for (int i = 0; i < d1 - 1; i++)
            fold[0] *= t1->sizes[i];
        if (d2 == 2)
            NT_TRY(nt_la_mm_check_sizes(fold, t2->sizes));
        else
            NT_TRY(nt_la_addmv_check_sizes(1, fold[0], fold[0], 2, fold, 1, t2->sizes));
        nt_shape_set(s, d1 - 1, t1->sizes);
        if (d2 == 2) s->sizes[s->ndim++] = t2->sizes[1];
        return NT_OK;
    }
    batched_plan bp;
    NT_TRY(plan_batched(t1, t2, should_fold(t2, d1), &bp));
    nt_shape_set(s, bp.on, bp.oshape);
    return NT_OK;
}
