/*
 * bind_gather.c — binding with index tensors (t[i, idx], t[j, mask], t[i + 1], t[j, True]):
 * PyTorch's indexing of the positional dims run per element of the dims involved, done as
 * one nt_index_get on the bound view laid out [U, positional] (docs/dims.md, "Indexing with
 * dim expressions and index tensors"). The plan (columns, union, broadcast, bounds) is also
 * what assignment through such an index (assign.c) reads.
 */
#include <stdio.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "dims/bind.h"
#include "names/names.h"
#include "ntensor/factory.h"
#include "ntensor/index.h"
#include "ntensor/views.h"
#include "ops/index.h"

typedef nt_bind_gather gather;
typedef nt_bind_columns columns;

static nt_status too_many(void) {
    return nt_fail(NT_ERR_RUNTIME, "a tensor may have at most %d dims", NT_MAX_DIMS);
}

static int positional_ndim(const nt_tensor *e) {
    return e->ndim - nt_tensor_nlevels(e);
}

static void columns_free(columns *c) {
    for (int k = 0; k < c->n; k++)
        nt_tensor_release(c->t[k]);
    c->n = 0;
}

/* The mask m over positional dims at.. of v (PyTorch's size check) as its nonzero() columns. */
static nt_status add_mask(columns *c, const nt_tensor *v, int at, const nt_tensor *m) {
    int vl = nt_tensor_nlevels(v);
    for (int j = 0; j < m->ndim; j++)
        if (m->sizes[j] != v->sizes[vl + at + j]) {
            char ms[512], vs[512];
            nt_ints_repr(m->sizes, m->ndim, ms, sizeof ms);
            nt_ints_repr(v->sizes + vl, v->ndim - vl, vs, sizeof vs);
            return nt_fail(NT_ERR_INDEX,
                           "The shape of the mask %s at index %d does not match the shape of the "
                           "indexed tensor %s at index %d",
                           ms, j, vs, at + j);
        }
    nt_tensor *nz = NULL;
    NT_TRY(nt_index_nonzero(m, &nz));
    nt_status st = NT_OK;
    for (int j = 0; st == NT_OK && j < m->ndim; j++) {
        c->at[c->n] = at + j;
        st = nt_select(nz, 1, j, &c->t[c->n]);
        c->n += st == NT_OK;
    }
    nt_tensor_release(nz);
    return st;
}

/* A bool scalar (True, False, a 0-dim bool or uint8 tensor) as PyTorch's indexing takes it:
 * the new dim of size one it makes (the walk's placeholder at `at`) indexed by [0] or []. */
static nt_status add_bool(columns *c, int at, const nt_tensor *b) {
    int64_t n = nt_scalar_to_f64(nt_load_scalar(nt_tensor_bytes(b), b->dtype)) != 0;
    NT_TRY(nt_zeros(1, &n, NT_INT64, NULL, &c->t[c->n]));
    c->at[c->n++] = at;
    return NT_OK;
}

static nt_status expand_masks(const gather *g, const nt_tensor *v, columns *c) {
    for (int k = 0; k < g->n; k++)
        if (g->index[k]->dtype != NT_INT64 && !nt_bind_is_mask(g->index[k]))
            return nt_fail(NT_ERR_INDEX, "tensors used as indices must be long, byte or bool "
                                         "tensors");
    for (int k = 0; k < g->n; k++) {
        if (nt_bind_is_mask(g->index[k]) && g->index[k]->ndim == 0) {
            NT_TRY(add_bool(c, g->at[k], g->index[k]));
            continue;
        }
        if (nt_bind_is_mask(g->index[k])) {
            NT_TRY(add_mask(c, v, g->at[k], g->index[k]));
            continue;
        }
        c->at[c->n] = g->at[k];
        c->t[c->n++] = nt_tensor_retain(g->index[k]);
    }
    return NT_OK;
}

/* The positional dims of the columns broadcast from the right: their count (*m) and sizes, or
 * PyTorch's error naming the shapes (of the columns with positional dims: one without
 * selects, as an int). */
static nt_status broadcast_positional(const columns *c, int *m, int64_t *bshape) {
    *m = 0;
    for (int k = 0; k < c->n; k++)
        *m = positional_ndim(c->t[k]) > *m ? positional_ndim(c->t[k]) : *m;
    for (int j = 0; j < *m; j++)
        bshape[j] = 1;
    bool ok = true;
    for (int k = 0; k < c->n; k++) {
        const nt_tensor *e = c->t[k];
        int nl = nt_tensor_nlevels(e), pnd = e->ndim - nl;
        for (int j = 0; j < pnd; j++) {
            int64_t *b = &bshape[*m - pnd + j], size = e->sizes[nl + j];
            ok &= *b == 1 || size == 1 || size == *b;
            *b = *b == 1 ? size : *b;
        }
    }
    if (ok) return NT_OK;
    char text[2048];
    size_t len = 0;
    text[0] = 0;
    for (int k = 0; k < c->n && len < sizeof text; k++) {
        const nt_tensor *e = c->t[k];
        if (positional_ndim(e) == 0) continue;
        char one[512];
        nt_ints_repr(e->sizes + nt_tensor_nlevels(e), positional_ndim(e), one, sizeof one);
        int w = snprintf(text + len, sizeof text - len, "%s%s", len ? ", " : "", one);
        len += w > 0 ? (size_t)w : 0;
    }
    return nt_fail(
        NT_ERR_INDEX,
        "shape mismatch: indexing tensors could not be broadcast together with shapes %s", text);
}

/* Whether every element of the int64 tensor e lies in [-size, size); else the first that
 * does not (in its row-major order) in *bad. */
static bool in_range(const nt_tensor *e, int64_t size, int64_t *bad) {
    const int64_t *p = (const int64_t *)nt_tensor_bytes(e);
    int64_t ix[NT_MAX_DIMS] = {0}, at = 0;
    for (int64_t i = 0; i < e->numel; i++) {
        if (p[at] < -size || p[at] >= size) {
            *bad = p[at];
            return false;
        }
        for (int d = e->ndim - 1; d >= 0; d--) { /* the next element, row-major */
            at += e->strides[d];
            if (++ix[d] < e->sizes[d]) break;
            at -= e->strides[d] * e->sizes[d];
            ix[d] = 0;
        }
    }
    return true;
}

/* PyTorch's bounds checks of an indexing that reads something: a column of dim k counts the
 * index tensors, as in the positional indexing. */
static nt_status check_bounds(const columns *c, const nt_tensor *v) {
    int vl = nt_tensor_nlevels(v);
    for (int k = 0; k < c->n; k++)
        if (v->sizes[vl + c->at[k]] == 0)
            return nt_fail(NT_ERR_INDEX, "index is out of bounds for dimension with size 0");
    for (int k = 0; k < c->n; k++) {
        int64_t size = v->sizes[vl + c->at[k]], bad;
        if (!in_range(c->t[k], size, &bad))
            return nt_fail(NT_ERR_INDEX,
                           "index %lld is out of bounds for dimension %d with size %lld",
                           (long long)bad, k, (long long)size);
    }
    return NT_OK;
}

static nt_status union_add_dims(nt_dim_union *u, nt_fcdim *const *dims, int n) {
    for (int i = 0; i < n; i++) {
        if (nt_dims_union_find(u, dims[i]) >= 0) continue;
        if (u->n == NT_MAX_DIMS) return too_many();
        u->dims[u->n++] = dims[i];
    }
    return NT_OK;
}

/* U: v's levels, the columns' dims coming where the first tensor spec was (functorch's order). */
static nt_status index_union(const nt_tensor *v, int nfirst, const columns *c, nt_dim_union *u) {
    u->n = 0;
    nt_fcdim *const *vd = v->levels ? v->levels->dims : NULL;
    NT_TRY(union_add_dims(u, vd, nfirst));
    for (int k = 0; k < c->n; k++)
        NT_TRY(nt_dims_union_add(u, c->t[k]));
    return union_add_dims(u, vd ? vd + nfirst : NULL, nt_tensor_nlevels(v) - nfirst);
}

/* v laid out [U, positional] indexed by U's aranges, [U, m ones] (each along its own dim), and
 * the columns laid out [U, ones, their m or fewer positional dims] at their dims: the result is
 * [U, the m broadcast dims, the other positional dims]. Without U, the columns as they are. */
static nt_status index_aligned(nt_tensor *v, const nt_dim_union *u, const columns *c, int m,
                               nt_tensor **out) {
    int np = positional_ndim(v);
    if (u->n + np > NT_MAX_DIMS) return too_many();
    nt_tensor *views[2 * NT_MAX_DIMS] = {NULL}, *x = NULL;
    nt_index idx[NT_MAX_DIMS];
    nt_status st = nt_dims_align(v, u, 0, 0, &x);
    for (int k = 0; st == NT_OK && k < u->n; k++) {
        nt_tensor *r = NULL;
        st = nt_fcdim_tensor(u->dims[k], &r);
        if (st == NT_OK) st = nt_dims_align(r, u, 0, m, &views[k]);
        nt_tensor_release(r);
        idx[k] = (nt_index){.kind = NT_INDEX_TENSOR, .tensor = views[k]};
    }
    for (int p = 0; p < np; p++)
        idx[u->n + p] =
            (nt_index){.kind = NT_INDEX_SLICE, .start = 0, .stop = NT_SLICE_END, .step = 1};
    for (int k = 0; st == NT_OK && k < c->n; k++) {
        int pad = u->n ? m - positional_ndim(c->t[k]) : 0;
        st = nt_dims_align(c->t[k], u, pad, 0, &views[NT_MAX_DIMS + k]);
        idx[u->n + c->at[k]] =
            (nt_index){.kind = NT_INDEX_TENSOR, .tensor = views[NT_MAX_DIMS + k]};
    }
    if (st == NT_OK) st = nt_index_get(x, u->n + np, idx, out);
    nt_tensor_release(x);
    for (int k = 0; k < 2 * NT_MAX_DIMS; k++)
        nt_tensor_release(views[k]);
    return st;
}

/* Where PyTorch puts the broadcast dims among the other positional dims: where the first
 * column with positional dims is, when no other positional dim lies between those columns,
 * else first. */
static int broadcast_at(const columns *c) {
    int a0 = -1, a1 = -1;
    for (int k = 0; k < c->n; k++)
        if (positional_ndim(c->t[k]) > 0) {
            a0 = a0 < 0 ? k : a0;
            a1 = k;
        }
    if (a0 < 0 || c->at[a1] - c->at[a0] != a1 - a0) return 0;
    return c->at[a0] - a0;
}

/* r, [U (nu), m broadcast dims, other dims], with the broadcast dims moved after `at` of the
 * others (a view). */
static nt_status move_broadcast(nt_tensor *r, int nu, int m, int at, nt_tensor **out) {
    nt_dim perm[NT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < nu; d++)
        perm[n++] = d;
    for (int d = 0; d < at; d++)
        perm[n++] = nu + m + d;
    for (int d = 0; d < m; d++)
        perm[n++] = nu + d;
    for (int d = nu + m + at; d < r->ndim; d++)
        perm[n++] = d;
    return nt_permute(r, n, perm, out);
}

nt_status nt_gather_plan_make(nt_tensor *v, const gather *g, nt_gather_plan *p) {
    p->c.n = 0;
    p->m = p->at = 0;
    NT_TRY(expand_masks(g, v, &p->c));
    NT_TRY(index_union(v, g->nfirst, &p->c, &p->u));
    NT_TRY(broadcast_positional(&p->c, &p->m, p->bshape));
    bool empty = false; /* nothing is read: no bounds to check */
    for (int k = 0; k < p->u.n; k++)
        empty |= p->u.dims[k]->size == 0;
    for (int j = 0; j < p->m; j++)
        empty |= p->bshape[j] == 0;
    if (!empty) NT_TRY(check_bounds(&p->c, v));
    p->at = broadcast_at(&p->c);
    return NT_OK;
}

void nt_gather_plan_free(nt_gather_plan *p) {
    columns_free(&p->c);
}

/* v[..., the columns at their dims, ...] per element of the union U of the dims of v and of
 * the index tensors: the gather runs once on v laid out [U, positional] (index_aligned), its
 * broadcast dims then go where PyTorch's indexing puts them, and the result takes U. */
nt_status nt_bind_gather_run(nt_tensor *v, const gather *g, const nt_bind_layout *l,
                             nt_tensor **out) {
    nt_gather_plan p;
    nt_tensor *r = NULL, *moved = NULL;
    nt_status st = nt_gather_plan_make(v, g, &p);
    if (st == NT_OK) st = index_aligned(v, &p.u, &p.c, p.m, &r);
    int at = p.u.n ? p.at : 0; /* without U, nt_index_get placed them */
    if (st == NT_OK && at && p.m) {
        st = move_broadcast(r, p.u.n, p.m, at, &moved);
        nt_tensor_release(r);
        r = moved;
    }
    uint8_t placed[NT_MAX_DIMS];
    if (st == NT_OK)
        st = nt_levels_attach_at(r, p.u.n, p.u.dims,
                                 nt_bind_printed_at(l, p.u.dims, p.u.n, r->ndim, placed));
    nt_gather_plan_free(&p);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}
