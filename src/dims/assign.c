/*
 * assign.c — t[i, (j, k), 1:3, idx] = value: assignment through an index that binds dims
 * (functorch.dim's __setitem__). Its meaning is the per-element one: for each element of the
 * union U of the dims involved, PyTorch's positional t_e[index_e] = value_e.
 *
 * It is one index_put_ on t's physical dims (t's levels read as ordinary dims), so that it
 * writes t's storage and autograd records it on t: each dim that t has or the index binds
 * becomes its arange (a pack, its dims' aranges combined row-major; a dim bound twice, the
 * same arange twice: the diagonal), the index tensors keep their dims, and all of them are
 * laid out [U, M ones] or [U, ones, their positional dims] (M: the broadcast positional dims
 * of the index tensors), so that the advanced indices broadcast to [U, M] and each element of
 * U writes its own positions. The value, laid out [U, one element's result] (stride 0 where
 * it lacks a dim of U), is permuted to where index_put_ puts those dims.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "dims/bind.h"
#include "kernels/convert.h"
#include "names/names.h"
#include "ntensor/convert.h"
#include "ntensor/factory.h"
#include "ntensor/pointwise.h"
#include "ntensor/views.h"
#include "ops/index.h"

/* t[specs] as one element of U sees it: U, the positional shape P in PyTorch's order (the
 * kept dims, the m broadcast dims of the index tensors after `at` of them) and the order the
 * whole prints in (functorch's levels: seq[p] a dim, or NULL for a positional dim). */
typedef struct lhs {
    nt_dim_union u;
    int np, m, at, len;
    bool gathers; /* tensor specs */
    int64_t psizes[NT_MAX_DIMS];
    nt_fcdim *seq[NT_FLAT_MAX];
} lhs;

/* seq from where the dims print (at[i] for u's dim i; NULL: the dims first, in order). */
static void lhs_seq(lhs *h, const uint8_t *at) {
    h->len = h->u.n + h->np;
    for (int p = 0; p < h->len; p++)
        h->seq[p] = NULL;
    for (int i = 0; i < h->u.n; i++)
        h->seq[at ? at[i] : i] = h->u.dims[i];
}

/* The left side of a binding without tensor specs: the view's dims and positional dims. */
static void lhs_of_view(lhs *h, const nt_bind_layout *l) {
    h->u.n = l->nl;
    memcpy(h->u.dims, l->dims, (size_t)l->nl * sizeof *l->dims);
    h->np = l->np;
    memcpy(h->psizes, l->psizes, (size_t)l->np * sizeof *h->psizes);
    h->m = h->at = 0;
    h->gathers = false;
    uint8_t at[NT_MAX_DIMS];
    lhs_seq(h, nt_bind_printed_at(l, l->dims, l->nl, l->nl + l->np, at));
}

/* The left side of a binding with tensor specs: the gather's plan p over the view's layout l
 * (the view's positional dims less the columns' placeholders are the kept dims). */
static nt_status lhs_of_gather(lhs *h, const nt_bind_layout *l, const nt_gather_plan *p) {
    bool placeholder[NT_MAX_DIMS] = {false};
    for (int k = 0; k < p->c.n; k++)
        placeholder[p->c.at[k]] = true;
    int64_t kept[NT_MAX_DIMS];
    int nkept = 0;
    for (int j = 0; j < l->np; j++)
        if (!placeholder[j]) kept[nkept++] = l->psizes[j];
    h->u = p->u;
    h->m = p->m;
    h->at = p->at;
    h->np = nkept + p->m;
    if (h->u.n + h->np > NT_MAX_DIMS) return nt_dims_check_rank(h->u.n + h->np);
    for (int j = 0, q = 0; j < h->np; j++)
        h->psizes[j] = j >= h->at && j < h->at + h->m ? p->bshape[j - h->at] : kept[q++];
    h->gathers = true;
    uint8_t at[NT_MAX_DIMS];
    lhs_seq(h, nt_bind_printed_at(l, h->u.dims, h->u.n, h->u.n + h->np, at));
    return NT_OK;
}

/* "(i, -1, j)": the left side as functorch prints its levels (a tuple's repr). */
static void lhs_repr(const lhs *h, char *buf, size_t cap) {
    size_t at = (size_t)snprintf(buf, cap, "(");
    for (int p = 0, q = 0; p < h->len && at < cap; p++) {
        const char *sep = p ? ", " : "";
        at += (size_t)(h->seq[p] ? snprintf(buf + at, cap - at, "%s%s", sep, h->seq[p]->name)
                                 : snprintf(buf + at, cap - at, "%s%d", sep, -(h->np - q++)));
    }
    if (at < cap) snprintf(buf + at, cap - at, h->len == 1 ? ",)" : ")");
}

/* Where positional dim j of the left side prints. */
static int printed_position(const lhs *h, int j) {
    for (int p = 0, q = 0; p < h->len; p++)
        if (!h->seq[p] && q++ == j) return p;
    return j;
}

/* ------------------------------------------------------------------ the physical index */

enum { REMOVED, KEPT, ADVANCED };

typedef struct phys {
    int n, nowned;
    nt_index idx[NT_INDEX_MAX_ENTRIES];
    uint8_t role[NT_INDEX_MAX_ENTRIES];
    nt_tensor *owned[NT_INDEX_MAX_ENTRIES];
} phys;

static void phys_free(phys *ph) {
    for (int k = 0; k < ph->nowned; k++)
        nt_tensor_release(ph->owned[k]);
}

static nt_status push(phys *ph, nt_index ix, int role) {
    if (ph->n == NT_INDEX_MAX_ENTRIES) {
        if (ix.kind == NT_INDEX_TENSOR) nt_tensor_release((nt_tensor *)ix.tensor);
        return nt_fail(NT_ERR_INDEX, "too many indices");
    }
    if (ix.kind == NT_INDEX_TENSOR) ph->owned[ph->nowned++] = (nt_tensor *)ix.tensor;
    ph->role[ph->n] = (uint8_t)role;
    ph->idx[ph->n++] = ix;
    return NT_OK;
}

static nt_status push_tensor(phys *ph, nt_tensor *t) { /* takes the reference */
    return push(ph, (nt_index){.kind = NT_INDEX_TENSOR, .tensor = t}, ADVANCED);
}

static nt_status push_full_slice(phys *ph) {
    return push(ph, (nt_index){.kind = NT_INDEX_SLICE, .stop = NT_SLICE_END, .step = 1}, KEPT);
}

/* d's arange laid out [U, m ones]. */
static nt_status push_arange(phys *ph, nt_fcdim *d, const lhs *h) {
    nt_tensor *r = NULL, *a = NULL;
    NT_TRY(nt_fcdim_tensor(d, &r));
    nt_status st = nt_dims_align(r, &h->u, 0, h->m, &a);
    nt_tensor_release(r);
    NT_TRY(st);
    return push_tensor(ph, a);
}

/* The dim a pack splits, indexed by its dims' aranges combined row-major:
 * sum over k of arange(pack[k]) * (the product of the later sizes), laid out [U, m ones]. */
static nt_status push_pack(phys *ph, nt_fcdim *const *pack, int n, const lhs *h) {
    nt_tensor *acc = NULL;
    nt_status st = NT_OK;
    int64_t stride = 1;
    for (int k = n - 1; k >= 0 && st == NT_OK; k--) {
        nt_tensor *r = NULL, *a = NULL, *s = NULL, *prod = NULL, *sum = NULL;
        st = nt_fcdim_tensor(pack[k], &r);
        if (st == NT_OK) st = nt_dims_align(r, &h->u, 0, h->m, &a);
        if (st == NT_OK) st = nt_full(0, NULL, nt_scalar_int(stride), NT_INT64, NULL, &s);
        if (st == NT_OK) st = nt_mul(a, s, &prod);
        if (st == NT_OK && acc) st = nt_add(acc, prod, &sum);
        if (st == NT_OK) {
            nt_tensor_release(acc);
            acc = sum ? sum : nt_tensor_retain(prod);
        }
        stride *= pack[k]->size;
        nt_tensor_release(r);
        nt_tensor_release(a);
        nt_tensor_release(s);
        nt_tensor_release(prod);
        if (st != NT_OK) nt_tensor_release(sum);
    }
    if (st != NT_OK) {
        nt_tensor_release(acc);
        return st;
    }
    return push_tensor(ph, acc);
}

/* Column k of the plan laid out [U, ones, its positional dims] (m in all). */
static nt_status push_column(phys *ph, const nt_gather_plan *p, int k, const lhs *h) {
    const nt_tensor *c = p->c.t[k];
    nt_tensor *a = NULL;
    int pad = h->m - (c->ndim - nt_tensor_nlevels(c));
    NT_TRY(nt_dims_align((nt_tensor *)c, &h->u, pad, 0, &a));
    return push_tensor(ph, a);
}

/* How many of t's positional dims the spec takes (a mask: its dims; a bool scalar none). */
static int spec_width(const nt_bind_spec *s) {
    switch (s->kind) {
    case NT_BIND_NONE:
    case NT_BIND_ELLIPSIS:
        return 0;
    case NT_BIND_TENSOR:
        return nt_bind_is_mask(s->tensor) ? s->tensor->ndim : 1;
    default:
        return 1;
    }
}

/* The index over t's physical dims (see the top of the file); p is the gather's plan when the
 * specs have tensors (its columns come in the specs' order). */
static nt_status build_index(const nt_tensor *t, int n, const nt_bind_spec *specs, const lhs *h,
                             const nt_gather_plan *p, phys *ph) {
    int tl = nt_tensor_nlevels(t), tp = t->ndim - tl, consumed = 0, col = 0;
    bool ellipsis = false;
    for (int i = 0; i < tl; i++)
        NT_TRY(push_arange(ph, t->levels->dims[i], h));
    for (int i = 0; i < n; i++)
        consumed += spec_width(&specs[i]);
    for (int i = 0; i < n; i++) {
        const nt_bind_spec *s = &specs[i];
        switch (s->kind) {
        case NT_BIND_DIM:
            NT_TRY(push_arange(ph, s->dim, h));
            break;
        case NT_BIND_PACK:
            NT_TRY(push_pack(ph, s->pack, s->n, h));
            break;
        case NT_BIND_SLICE:
            if (!s->step) {
                NT_TRY(push_full_slice(ph));
                break;
            }
            NT_TRY(push(
                ph,
                (nt_index){
                    .kind = NT_INDEX_SLICE, .start = s->start, .stop = s->stop, .step = s->step},
                KEPT));
            break;
        case NT_BIND_INT:
            NT_TRY(push(ph, (nt_index){.kind = NT_INDEX_INT, .i = s->index}, REMOVED));
            break;
        case NT_BIND_NONE:
            NT_TRY(push(ph, (nt_index){.kind = NT_INDEX_NONE}, KEPT));
            break;
        case NT_BIND_ELLIPSIS:
            ellipsis = true;
            for (int k = 0; k < tp - consumed; k++)
                NT_TRY(push_full_slice(ph));
            break;
        case NT_BIND_TENSOR:
            if (nt_bind_is_mask(s->tensor) && s->tensor->ndim == 0) {
                /* True / False: PyTorch's own new dim indexed by [0] or [] */
                int64_t truth = p->c.t[col++]->numel;
                NT_TRY(push(ph, (nt_index){.kind = NT_INDEX_BOOL, .i = truth}, ADVANCED));
                break;
            }
            for (int k = spec_width(s); k > 0; k--)
                NT_TRY(push_column(ph, p, col++, h));
            break;
        }
    }
    for (int k = 0; !ellipsis && k < tp - consumed; k++)
        NT_TRY(push_full_slice(ph));
    return NT_OK;
}

/* Where index_put_ puts the broadcast dims [U, M] among the kept dims: after the kept dims
 * before the first advanced index when the advanced indices are adjacent (ints do not
 * count: they are gone), else first. */
static int block_at(const phys *ph) {
    int first = -1, kept_before = 0, last = -1;
    for (int k = 0; k < ph->n; k++) {
        if (ph->role[k] == ADVANCED) {
            if (first < 0) first = k;
            last = k;
        } else if (ph->role[k] == KEPT && first < 0) {
            kept_before++;
        }
    }
    bool split = false; /* a kept dim between two advanced indices */
    for (int k = first + 1; first >= 0 && k < last; k++)
        split |= ph->role[k] == KEPT;
    return first < 0 || split ? 0 : kept_before;
}

/* ------------------------------------------------------------------ the value */

/* value's dims are dims of the left side, its positional dims broadcast to P (functorch's
 * texts; with tensor specs index_put_'s, its shapes as functorch's physical ones). */
static nt_status check_value(const lhs *h, const nt_tensor *value, int q) {
    int vl = nt_tensor_nlevels(value), vp = value->ndim - vl;
    for (int i = 0; i < vl; i++)
        if (nt_dims_union_find(&h->u, value->levels->dims[i]) < 0) {
            char buf[1024];
            lhs_repr(h, buf, sizeof buf);
            return nt_fail(NT_ERR_DIM_BIND,
                           "rhs of setitem contains dimension %s which is not in the dimension "
                           "on the left (%s)",
                           value->levels->dims[i]->name, buf);
        }
    if (vp > h->np)
        return nt_fail(NT_ERR_DIM_BIND,
                       "rhs contains too many dimensions (%d) compared to indexed value (%d)",
                       h->np, vp);
    for (int j = 1; j <= vp; j++) {
        int64_t vs = value->sizes[value->ndim - j], ps = h->psizes[h->np - j];
        if (vs == ps || vs == 1) continue;
        if (!h->gathers)
            return nt_fail(NT_ERR_RUNTIME,
                           "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                           "non-singleton dimension %d",
                           (long long)ps, (long long)vs, printed_position(h, h->np - j));
        int64_t vshape[NT_MAX_DIMS], rshape[NT_MAX_DIMS];
        int nv = 0, nr = 0, nu = h->u.n;
        for (int k = 0; k < nu; k++)
            vshape[nv++] = h->u.dims[k]->size;
        for (int k = 0; k < vp; k++)
            vshape[nv++] = value->sizes[vl + k];
        /* index_put_'s result: kept dims before q, U, M, the other kept dims */
        int64_t kept[NT_MAX_DIMS];
        int nkept = 0;
        for (int k = 0; k < h->np; k++)
            if (k < h->at || k >= h->at + h->m) kept[nkept++] = h->psizes[k];
        for (int k = 0; k < q; k++)
            rshape[nr++] = kept[k];
        for (int k = 0; k < nu; k++)
            rshape[nr++] = h->u.dims[k]->size;
        for (int k = 0; k < h->m; k++)
            rshape[nr++] = h->psizes[h->at + k];
        for (int k = q; k < nkept; k++)
            rshape[nr++] = kept[k];
        char vs_text[512], rs_text[512];
        nt_ints_repr(vshape, nv, vs_text, sizeof vs_text);
        nt_ints_repr(rshape, nr, rs_text, sizeof rs_text);
        return nt_fail(NT_ERR_RUNTIME,
                       "shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                       "result of shape %s",
                       vs_text, rs_text);
    }
    return NT_OK;
}

/* value (of t's dtype) laid out as index_put_'s result: [U, P] by alignment (size-one dims
 * where value lacks a positional dim), then the dims moved to [kept < q, U, M, kept >= q]. */
static nt_status value_laid_out(const lhs *h, nt_tensor *value, int q, nt_tensor **out) {
    int vp = value->ndim - nt_tensor_nlevels(value), nu = h->u.n;
    nt_tensor *a = NULL;
    NT_TRY(nt_dims_align(value, &h->u, h->np - vp, 0, &a));
    /* P position of kept dim k */
    int pos_of_kept[NT_MAX_DIMS], nkept = 0;
    for (int k = 0; k < h->np; k++)
        if (k < h->at || k >= h->at + h->m) pos_of_kept[nkept++] = k;
    nt_dim perm[NT_MAX_DIMS];
    int n = 0;
    for (int k = 0; k < q; k++)
        perm[n++] = nu + pos_of_kept[k];
    for (int k = 0; k < nu; k++)
        perm[n++] = k;
    for (int k = 0; k < h->m; k++)
        perm[n++] = nu + h->at + k;
    for (int k = q; k < nkept; k++)
        perm[n++] = nu + pos_of_kept[k];
    nt_status st = nt_permute(a, n, perm, out);
    nt_tensor_release(a);
    return st;
}

/* ------------------------------------------------------------------ the entry points */

nt_status nt_tensor_bind_set_(nt_tensor *t, int n, const nt_bind_spec *specs,
                              const nt_tensor *value) {
    if (!t || !value || (n > 0 && !specs) || n < 0)
        return nt_fail(NT_ERR_VALUE, "nt_tensor_bind_set_: NULL or bad argument");
    nt_bind_walk *w = malloc(sizeof *w);
    lhs *h = malloc(sizeof *h);
    phys *ph = malloc(sizeof *ph);
    nt_gather_plan *p = malloc(sizeof *p);
    nt_tensor *v = NULL, *conv = NULL, *laid = NULL;
    nt_status st = NT_OK;
    if (!w || !h || !ph || !p) {
        free(w), free(h), free(ph), free(p);
        return nt_fail(NT_ERR_MEMORY, "out of memory");
    }
    ph->n = ph->nowned = 0;
    p->c.n = 0;
    NT_CHECK(st, nt_bind_walk_index(t, n, specs, w));
    if (w->g.n == 0) {
        lhs_of_view(h, &w->l);
    } else {
        NT_CHECK(st, nt_bind_view(t, &w->l, w->offset, false, true, &v));
        NT_CHECK(st, nt_gather_plan_make(v, &w->g, p));
        NT_CHECK(st, lhs_of_gather(h, &w->l, p));
    }
    NT_CHECK(st, build_index(t, n, specs, h, p, ph));
    int q = block_at(ph);
    NT_CHECK(st, check_value(h, value, q));
    if (value->dtype != t->dtype) NT_CHECK(st, nt_to_dtype((nt_tensor *)value, t->dtype, &conv));
    NT_CHECK(st, value_laid_out(h, conv ? conv : (nt_tensor *)value, q, &laid));
    NT_CHECK(st, nt_index_put_physical_(t, ph->n, ph->idx, laid));
fail:
    nt_tensor_release(v);
    nt_tensor_release(conv);
    nt_tensor_release(laid);
    nt_gather_plan_free(p);
    phys_free(ph);
    free(w), free(h), free(ph), free(p);
    return st;
}

nt_status nt_tensor_bind_set_scalar_(nt_tensor *t, int n, const nt_bind_spec *specs,
                                     nt_scalar value) {
    if (!t) return nt_fail(NT_ERR_VALUE, "nt_tensor_bind_set_scalar_: NULL argument");
    nt_tensor *v = NULL;
    NT_TRY(nt_scalar_check_fits(value, t->dtype));
    NT_TRY(nt_full(0, NULL, value, t->dtype, NULL, &v));
    nt_status st = nt_tensor_bind_set_(t, n, specs, v);
    nt_tensor_release(v);
    return st;
}
