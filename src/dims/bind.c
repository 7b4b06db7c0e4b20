/*
 * bind.c — making and unmaking tensors with first-class dims: binding by an index
 * (t[i, (j, k), :, 0]), order (back to positional dims, groups flattened) and a dim used as a
 * tensor. All three are views of their input (order copies only to flatten a group whose
 * strides cannot merge), recorded by autograd as views.
 */
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "dims/dims.h"
#include "names/names.h"
#include "ntensor/factory.h"
#include "ntensor/index.h"
#include "ntensor/views.h"
#include "ops/index.h"

/* The dims being built: first-class ones (levels) then positional ones; and where they print
 * (functorch's order: as the index reads them, t's own dims in their places). */
typedef struct layout {
    int nl, np;
    nt_fcdim *dims[NT_MAX_DIMS];
    int64_t lsizes[NT_MAX_DIMS], lstrides[NT_MAX_DIMS];
    int64_t psizes[NT_MAX_DIMS], pstrides[NT_MAX_DIMS];
    nt_name pnames[NT_MAX_DIMS];
    uint8_t at[NT_MAX_DIMS]; /* where level i prints, while `gathers` is false */
    int printed;             /* the entries printed so far */
    bool gathers;            /* a dim used twice or a tensor index: nt_printed_gathered */
    int nflat;
    nt_flat_entry flat[NT_FLAT_MAX]; /* the index as functorch reads it */
    /* t's own dims in the order they print, and how many positional dims print before each */
    int nown, own_next;
    int own[NT_MAX_DIMS], own_before[NT_MAX_DIMS];
} layout;

static nt_status too_many(void) {
    return nt_fail(NT_ERR_RUNTIME, "a tensor may have at most %d dims", NT_MAX_DIMS);
}

/* One more entry of the index as functorch reads it: a dim, an index tensor, or (both NULL)
 * a positional dim; a dim or a positional dim prints next. */
static nt_status read_entry(layout *l, nt_fcdim *d, const nt_tensor *index) {
    if (l->nflat == NT_FLAT_MAX) return too_many();
    l->flat[l->nflat++] = (nt_flat_entry){.dim = d, .tensor = index};
    if (!index) l->printed++;
    return NT_OK;
}

/* t's own dims that print before its positional dim p: read in their places. */
static nt_status read_own(layout *l, int p) {
    for (; l->own_next < l->nown && l->own_before[l->own_next] <= p; l->own_next++) {
        int i = l->own[l->own_next];
        l->at[i] = (uint8_t)l->printed;
        NT_TRY(read_entry(l, l->dims[i], NULL));
    }
    return NT_OK;
}

/* The levels of t (tl of them) start the layout, read in the order they print. */
static void own_levels(layout *l, const nt_tensor *t, int tl) {
    l->nl = tl;
    l->np = 0;
    l->printed = l->nflat = l->nown = l->own_next = 0;
    l->gathers = false;
    for (int i = 0; i < tl; i++) {
        l->dims[i] = t->levels->dims[i];
        l->lsizes[i] = t->sizes[i];
        l->lstrides[i] = t->strides[i];
    }
    if (tl == 0) return;
    nt_fcdim *seq[NT_MAX_DIMS];
    nt_levels_seq(t, seq);
    for (int p = 0, before = 0; p < t->ndim; p++) {
        if (!seq[p]) {
            before++;
            continue;
        }
        l->own[l->nown] = nt_levels_find(t, seq[p]);
        l->own_before[l->nown++] = before;
    }
}

/* Binds d to one physical dim (size, stride): a new level, or the diagonal with the level d
 * already is (the strides add). */
static nt_status bind_one(layout *l, nt_fcdim *d, int64_t size, int64_t stride) {
    NT_TRY(nt_fcdim_set_size(d, size));
    for (int i = 0; i < l->nl; i++)
        if (l->dims[i] == d) {
            l->lstrides[i] += stride;
            l->gathers = true;
            return read_entry(l, d, NULL);
        }
    if (l->nl + l->np >= NT_MAX_DIMS) return too_many();
    l->dims[l->nl] = d;
    l->lsizes[l->nl] = size;
    l->at[l->nl] = (uint8_t)l->printed;
    l->lstrides[l->nl++] = stride;
    return read_entry(l, d, NULL);
}

static void pack_repr(nt_fcdim *const *pack, int n, char *buf, size_t cap) {
    nt_dims_repr(pack, n, buf, cap);
}

/* A pack splitting one dim of `size` at `stride`: one unbound dim inferred, then row-major. */
static nt_status bind_pack(layout *l, nt_fcdim *const *pack, int n, int64_t size, int64_t stride) {
    if (n < 1 || n > NT_MAX_DIMS) return nt_fail(NT_ERR_VALUE, "a dim pack needs 1 to 64 dims");
    int64_t known = 1;
    int unbound = -1;
    for (int i = 0; i < n; i++) {
        if (!pack[i]) return nt_fail(NT_ERR_VALUE, "a NULL dim in a dim pack");
        if (pack[i]->size >= 0) {
            if (__builtin_mul_overflow(known, pack[i]->size, &known))
                return nt_fail(NT_ERR_RUNTIME, "the sizes of a dim pack overflow");
        } else if (unbound >= 0) {
            return nt_fail(NT_ERR_DIM_BIND,
                           "cannot infer the sizes of two dimensions at once %s and %s",
                           pack[unbound]->name, pack[i]->name);
        } else {
            unbound = i;
        }
    }
    int64_t sizes[NT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        sizes[i] = pack[i]->size;
    if (unbound >= 0) {
        if (known == 0 || size % known != 0) {
            char buf[512];
            size_t at = (size_t)snprintf(buf, sizeof buf, "(");
            for (int i = 0; i < n && at < sizeof buf; i++)
                at += (size_t)(pack[i]->size >= 0
                                   ? snprintf(buf + at, sizeof buf - at, "%s%lld", i ? ", " : "",
                                              (long long)pack[i]->size)
                                   : snprintf(buf + at, sizeof buf - at, "%s'?'", i ? ", " : ""));
            if (at < sizeof buf) snprintf(buf + at, sizeof buf - at, n == 1 ? ",)" : ")");
            return nt_fail(NT_ERR_DIM_BIND,
                           "inferred dimension does not evenly fit into larger dimension: %lld "
                           "vs %s",
                           (long long)size, buf);
        }
        sizes[unbound] = size / known;
    } else if (known != size) {
        char buf[512];
        pack_repr(pack, n, buf, sizeof buf);
        return nt_fail(NT_ERR_DIM_BIND,
                       "Dimension sizes to do not match (%lld != %lld) when matching dimension "
                       "pack %s",
                       (long long)size, (long long)known, buf);
    }
    int64_t st = stride;
    int64_t strides[NT_MAX_DIMS];
    for (int i = n - 1; i >= 0; i--) {
        strides[i] = st;
        st *= sizes[i];
    }
    for (int i = 0; i < n; i++)
        NT_TRY(bind_one(l, pack[i], sizes[i], strides[i]));
    return NT_OK;
}

/* One positional dim kept (size, stride, name), not read as an entry (a tensor index's). */
static nt_status keep_unread(layout *l, int64_t size, int64_t stride, nt_name name) {
    if (l->nl + l->np >= NT_MAX_DIMS) return too_many();
    l->psizes[l->np] = size;
    l->pstrides[l->np] = stride;
    l->pnames[l->np++] = name;
    return NT_OK;
}

/* One positional dim kept, printed next. */
static nt_status keep_positional(layout *l, int64_t size, int64_t stride, nt_name name) {
    NT_TRY(keep_unread(l, size, stride, name));
    return read_entry(l, NULL, NULL);
}

/* t's physical dim pos kept as the next positional dim, printed next. */
static nt_status keep_dim(layout *l, const nt_tensor *t, int pos) {
    return keep_positional(l, t->sizes[pos], t->strides[pos], nt_tensor_name_at(t, pos));
}

/* Where the levels of a binding print (`gathered`: read from the index as a whole, for a
 * dim used twice or an index tensor; `ndim` the result's rank): into at, or NULL for
 * "first, in order". */
static const uint8_t *printed_at(const layout *l, nt_fcdim *const *dims, int n, int ndim,
                                 uint8_t *at) {
    if (!l->gathers) return l->at;
    nt_fcdim *seq[NT_FLAT_MAX];
    int len = nt_printed_gathered(l->flat, l->nflat, seq);
    return len == ndim && nt_levels_at_of_seq(n, dims, len, seq, at) ? at : NULL;
}

/* The positional dim kept last, sliced by s (start:stop:step, clamped as PyTorch's). */
static nt_status slice_kept(layout *l, const nt_bind_spec *s, int64_t *offset) {
    if (s->step < 0) return nt_fail(NT_ERR_VALUE, "step must be greater than zero");
    int k = l->np - 1;
    nt_index_slice_dim(s->start, s->stop, s->step, &l->psizes[k], &l->pstrides[k], offset);
    return NT_OK;
}

/* The view t's binding makes; its levels print as the layout says, or first (`at_first`: a
 * gather follows). */
static nt_status make_view(nt_tensor *t, const layout *l, int64_t offset, bool named, bool at_first,
                           nt_tensor **out) {
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int n = l->nl + l->np;
    if (n > NT_MAX_DIMS) return too_many();
    memcpy(sizes, l->lsizes, (size_t)l->nl * sizeof *sizes);
    memcpy(strides, l->lstrides, (size_t)l->nl * sizeof *strides);
    memcpy(sizes + l->nl, l->psizes, (size_t)l->np * sizeof *sizes);
    memcpy(strides + l->nl, l->pstrides, (size_t)l->np * sizeof *strides);
    bool any = false;
    for (int i = 0; named && i < l->np; i++)
        any |= l->pnames[i] != NT_NAME_NONE;
    if (any) {
        memset(names, 0, (size_t)l->nl * sizeof *names);
        memcpy(names + l->nl, l->pnames, (size_t)l->np * sizeof *names);
    }
    uint8_t at[NT_MAX_DIMS];
    const uint8_t *printed = at_first ? NULL : printed_at(l, l->dims, l->nl, n, at);
    return nt_levels_view(t, n, sizes, strides, offset, any ? names : NULL, l->nl, l->dims, printed,
                          out);
}

/* The tensor specs of a binding: spec k gathers in the positional dims at[k] .. of the bound
 * view (one, or a mask's count of dims). */
typedef struct gather {
    int n;
    /* The indices' dims come after the view's first nfirst levels: those it had when the first
     * tensor spec came, or none when a dim was bound or kept between two tensor specs
     * (functorch's order). `mark` counts the dims bound or kept before the first. */
    int nfirst, mark, width;
    int at[NT_MAX_DIMS];
    nt_tensor *index[NT_MAX_DIMS];
} gather;

static bool is_mask(const nt_tensor *e) {
    return e->dtype == NT_BOOL || e->dtype == NT_UINT8;
}

static int positional_ndim(const nt_tensor *e) {
    return e->ndim - nt_tensor_nlevels(e);
}

/* A tensor spec is set, and a mask has positional dims and no first-class dims (a count of
 * true elements that could differ along a dim has no batched form): the positional dims
 * it takes in *width. */
static nt_status check_tensor_spec(const nt_tensor *e, int *width) {
    if (!e) return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: a NULL tensor");
    *width = 1;
    if (!is_mask(e)) return NT_OK;
    if (nt_tensor_nlevels(e))
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "indexing with a bool tensor that has first-class dims is not supported "
                       "(its count of true elements could differ along them)");
    if (e->ndim == 0)
        return nt_fail(NT_ERR_NOT_IMPLEMENTED, "indexing with dims and a bool scalar (True, "
                                               "False or a 0-dim bool tensor) is not supported");
    *width = e->ndim;
    return NT_OK;
}

/* The index tensors as PyTorch's indexing takes them, masks expanded into their nonzero()
 * columns: column k indexes positional dim at[k] of the bound view. */
typedef struct columns {
    int n;
    int at[NT_MAX_DIMS];
    nt_tensor *t[NT_MAX_DIMS]; /* new references */
} columns;

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

static nt_status expand_masks(const gather *g, const nt_tensor *v, columns *c) {
    for (int k = 0; k < g->n; k++)
        if (g->index[k]->dtype != NT_INT64 && !is_mask(g->index[k]))
            return nt_fail(NT_ERR_INDEX, "tensors used as indices must be long, byte or bool "
                                         "tensors");
    for (int k = 0; k < g->n; k++) {
        if (is_mask(g->index[k])) {
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

/* v[..., the columns at their dims, ...] per element of the union U of the dims of v and of
 * the index tensors: the gather runs once on v laid out [U, positional] (index_aligned), its
 * broadcast dims then go where PyTorch's indexing puts them, and the result takes U. */
static nt_status gather_by(nt_tensor *v, const gather *g, const layout *l, nt_tensor **out) {
    columns c = {0};
    nt_dim_union u;
    int64_t bshape[NT_MAX_DIMS];
    int m = 0;
    nt_tensor *r = NULL, *moved = NULL;
    nt_status st = expand_masks(g, v, &c);
    if (st == NT_OK) st = index_union(v, g->nfirst, &c, &u);
    if (st == NT_OK) st = broadcast_positional(&c, &m, bshape);
    bool empty = false; /* nothing is read: no bounds to check */
    for (int k = 0; st == NT_OK && k < u.n; k++)
        empty |= u.dims[k]->size == 0;
    for (int j = 0; st == NT_OK && j < m; j++)
        empty |= bshape[j] == 0;
    if (st == NT_OK && !empty) st = check_bounds(&c, v);
    if (st == NT_OK) st = index_aligned(v, &u, &c, m, &r);
    int at = u.n ? broadcast_at(&c) : 0; /* without U, nt_index_get placed them */
    if (st == NT_OK && at && m) {
        st = move_broadcast(r, u.n, m, at, &moved);
        nt_tensor_release(r);
        r = moved;
    }
    uint8_t placed[NT_MAX_DIMS];
    if (st == NT_OK)
        st = nt_levels_attach_at(r, u.n, u.dims, printed_at(l, u.dims, u.n, r->ndim, placed));
    columns_free(&c);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}

/* Whether the binding is the common one: every dim of an ordinary tensor bound, in order, to
 * a distinct dim (A[i, k]), so that the view keeps t's geometry and only the levels are new. */
static bool binds_every_dim(const nt_tensor *t, int n, nt_fcdim *const *dims) {
    if (t->levels || n != t->ndim) return false;
    for (int i = 0; i < n; i++) {
        if (!dims[i]) return false;
        for (int j = 0; j < i; j++)
            if (dims[j] == dims[i]) return false;
    }
    return true;
}

static nt_status bind_every_dim(nt_tensor *t, int n, nt_fcdim *const *dims, bool borrow,
                                nt_tensor **out) {
    for (int i = 0; i < n; i++)
        NT_TRY(nt_fcdim_set_size(dims[i], t->sizes[i]));
    if (borrow) return nt_levels_view_borrowing(t, n, dims, out);
    return nt_levels_view(t, n, t->sizes, t->strides, t->offset, NULL, n, dims, NULL, out);
}

nt_status nt_tensor_bind_borrowing(nt_tensor *t, int n, nt_fcdim *const *dims, nt_tensor **out) {
    if (!t || !out || n < 0 || n > NT_MAX_DIMS || (n > 0 && !dims))
        return nt_fail(NT_ERR_VALUE, "nt_tensor_bind_borrowing: NULL or bad argument");
    if (binds_every_dim(t, n, dims)) return bind_every_dim(t, n, dims, true, out);
    nt_bind_spec specs[NT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        specs[i] = (nt_bind_spec){.kind = NT_BIND_DIM, .dim = dims[i]};
    return nt_tensor_bind(t, n, specs, out);
}

nt_status nt_tensor_bind(nt_tensor *t, int n, const nt_bind_spec *specs, nt_tensor **out) {
    if (!t || !out || (n > 0 && !specs) || n < 0)
        return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: NULL or bad argument");
    if (n == t->ndim && !t->levels) {
        nt_fcdim *dims[NT_MAX_DIMS];
        int k = 0;
        for (; k < n && specs[k].kind == NT_BIND_DIM; k++)
            dims[k] = specs[k].dim;
        if (k == n && binds_every_dim(t, n, dims)) return bind_every_dim(t, n, dims, false, out);
    }
    int tl = nt_tensor_nlevels(t), tp = t->ndim - tl;
    int consumed = 0, ellipsis = -1;
    for (int i = 0; i < n; i++) {
        if (specs[i].kind == NT_BIND_ELLIPSIS) {
            if (ellipsis >= 0)
                return nt_fail(NT_ERR_INDEX, "an index can only have a single ellipsis ('...')");
            ellipsis = i;
        } else if (specs[i].kind != NT_BIND_NONE) {
            if ((unsigned)specs[i].kind > NT_BIND_TENSOR)
                return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: bad spec kind %d",
                               (int)specs[i].kind);
            if (specs[i].kind == NT_BIND_DIM && !specs[i].dim)
                return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: a NULL dim");
            int width = 1;
            if (specs[i].kind == NT_BIND_TENSOR) NT_TRY(check_tensor_spec(specs[i].tensor, &width));
            consumed += width;
        }
    }
    if (consumed > tp)
        return nt_fail(NT_ERR_VALUE,
                       "at least %d indices were supplied but the tensor only has %d dimensions",
                       consumed, tp);
    layout l;
    own_levels(&l, t, tl);
    int64_t offset = t->offset;
    int pos = tl; /* the physical dim of t the next spec takes */
    gather g;     /* not zeroed: 768 bytes, and only its first n entries are read */
    g.n = g.nfirst = g.mark = g.width = 0;
    for (int i = 0; i <= n; i++) {
        /* the ellipsis, or the end without one: keep the dims no spec takes */
        if (i == n ? ellipsis < 0 : specs[i].kind == NT_BIND_ELLIPSIS) {
            int keep = tp - consumed;
            for (int k = 0; k < keep; k++) {
                NT_TRY(read_own(&l, pos - tl));
                NT_TRY(keep_dim(&l, t, pos++));
            }
            consumed = tp; /* taken: the trailing keep runs once */
            continue;
        }
        if (i == n) break;
        const nt_bind_spec *s = &specs[i];
        NT_TRY(read_own(&l, pos - tl));
        switch (s->kind) {
        case NT_BIND_DIM:
            NT_TRY(bind_one(&l, s->dim, t->sizes[pos], t->strides[pos]));
            pos++;
            break;
        case NT_BIND_PACK:
            if (!s->pack) return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: a NULL dim pack");
            NT_TRY(bind_pack(&l, s->pack, s->n, t->sizes[pos], t->strides[pos]));
            pos++;
            break;
        case NT_BIND_TENSOR: /* its dims kept as they are, gathered below */
            if (g.n == 0) {
                g.nfirst = l.nl;
                g.mark = l.nl + l.np;
            }
            if (l.nl + l.np - g.width != g.mark) g.nfirst = 0;
            g.at[g.n] = l.np;
            g.index[g.n++] = s->tensor;
            for (int w = is_mask(s->tensor) ? s->tensor->ndim : 1; w > 0; w--, g.width++, pos++)
                NT_TRY(keep_unread(&l, t->sizes[pos], t->strides[pos], nt_tensor_name_at(t, pos)));
            l.gathers = true;
            NT_TRY(read_entry(&l, NULL, s->tensor));
            break;
        case NT_BIND_SLICE:
            NT_TRY(keep_dim(&l, t, pos++));
            if (s->step) NT_TRY(slice_kept(&l, s, &offset));
            break;
        case NT_BIND_INT: {
            int64_t size = t->sizes[pos], ix = s->index;
            if (ix < -size || ix >= size)
                return nt_fail(NT_ERR_INDEX,
                               "index %lld is out of bounds for dimension %d with size %lld",
                               (long long)ix, pos - tl, (long long)size);
            if (ix < 0) ix += size;
            offset = nt_offset_moved(offset, ix, t->strides[pos]);
            pos++;
            break;
        }
        case NT_BIND_NONE:
            NT_TRY(keep_positional(&l, 1, 0, NT_NAME_NONE));
            break;
        default:
            break;
        }
    }
    NT_TRY(read_own(&l, tp));
    if (g.n == 0) return make_view(t, &l, offset, t->names != NULL, false, out);
    nt_tensor *v = NULL;
    NT_TRY(make_view(t, &l, offset, false, true, &v));
    nt_status st = gather_by(v, &g, &l, out);
    nt_tensor_release(v);
    return st;
}

static nt_status not_contained(const nt_tensor *t, nt_dim d) {
    char buf[512], what[96];
    nt_dims_repr(t->levels ? t->levels->dims : NULL, nt_tensor_nlevels(t), buf, sizeof buf);
    if (nt_dim_is_fc(d))
        snprintf(what, sizeof what, "%s", nt_dim_to_fc(d)->name);
    else
        snprintf(what, sizeof what, "%lld", (long long)d);
    return nt_fail(NT_ERR_VALUE,
                   "tensor of dimensions %s does not contain dim %s or it was specified twice", buf,
                   what);
}

nt_status nt_tensor_order(nt_tensor *t, int ngroups, const int *counts, const nt_dim *dims,
                          nt_tensor **out) {
    if (!t || !out || ngroups < 0 || (ngroups > 0 && (!counts || !dims)))
        return nt_fail(NT_ERR_VALUE, "nt_tensor_order: NULL or bad argument");
    int tl = nt_tensor_nlevels(t), tp = t->ndim - tl;
    bool used[NT_MAX_DIMS] = {false};
    int order[NT_MAX_DIMS], total = 0;
    for (int g = 0; g < ngroups; g++) {
        if (counts[g] < 1) return nt_fail(NT_ERR_VALUE, "nt_tensor_order: an empty group");
        for (int k = 0; k < counts[g]; k++, total++) {
            if (total >= NT_MAX_DIMS) return too_many();
            nt_dim d = dims[total];
            int at = -1;
            if (nt_dim_is_fc(d)) {
                at = nt_levels_find(t, nt_dim_to_fc(d));
            } else if (!nt_dim_is_name(d)) {
                int64_t w;
                if (d >= -tp && d < tp && nt_wrap_dim(d, tp, &w) == NT_OK) at = tl + (int)w;
            } else {
                int64_t w;
                NT_TRY(nt_tensor_dim(t, d, &w)); /* a name: positional names of t */
                at = (int)w;
            }
            if (at < 0 || used[at]) return not_contained(t, d);
            used[at] = true;
            order[total] = at;
        }
    }
    /* the permuted view: kept levels, the groups' dims, the other positional dims */
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS] = {0};
    nt_fcdim *keep[NT_MAX_DIMS];
    int n = 0, nkeep = 0;
    for (int i = 0; i < tl; i++)
        if (!used[i]) {
            keep[nkeep++] = t->levels->dims[i];
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    for (int i = 0; i < total; i++) {
        sizes[n] = t->sizes[order[i]];
        strides[n] = t->strides[order[i]];
        names[n++] = nt_tensor_name_at(t, order[i]);
    }
    for (int i = tl; i < t->ndim; i++)
        if (!used[i]) {
            sizes[n] = t->sizes[i];
            strides[n] = t->strides[i];
            names[n++] = nt_tensor_name_at(t, i);
        }
    bool flat = true; /* every group of one dim */
    for (int g = 0; g < ngroups; g++)
        flat &= counts[g] == 1;
    nt_fcdim *seq[NT_MAX_DIMS]; /* where the kept dims print */
    int len = nt_printed_ordered(t, used, ngroups, seq);
    if (flat) {
        uint8_t at[NT_MAX_DIMS];
        bool fits = len == n && nt_levels_at_of_seq(nkeep, keep, len, seq, at);
        return nt_levels_view(t, n, sizes, strides, t->offset, t->names ? names : NULL, nkeep, keep,
                              fits ? at : NULL, out);
    }
    nt_tensor *v = NULL;
    NT_TRY(nt_dims_view(t, n, sizes, strides, t->offset, t->names ? names : NULL, &v));
    int64_t rsizes[NT_MAX_DIMS];
    int m = 0, k = nkeep;
    for (int i = 0; i < nkeep; i++)
        rsizes[m++] = sizes[i];
    for (int g = 0; g < ngroups; g++) {
        int64_t prod = 1;
        for (int j = 0; j < counts[g]; j++)
            prod *= sizes[k++];
        rsizes[m++] = prod;
    }
    for (; k < n; k++)
        rsizes[m++] = sizes[k];
    nt_tensor *r = NULL;
    if (v->names) nt_tensor_set_names_unchecked(v, NULL);
    nt_status st = nt_reshape(v, m, rsizes, &r);
    nt_tensor_release(v);
    NT_TRY(st);
    v = r;
    st = nt_levels_attach_seq(v, nkeep, keep, len, seq);
    if (st != NT_OK) {
        nt_tensor_release(v);
        return st;
    }
    *out = v;
    return NT_OK;
}

nt_status nt_fcdim_tensor(nt_fcdim *d, nt_tensor **out) {
    if (!d || !out) return nt_fail(NT_ERR_VALUE, "nt_fcdim_tensor: NULL argument");
    int64_t size;
    NT_TRY(nt_fcdim_get_size(d, &size));
    if (!d->range)
        NT_TRY(nt_arange(nt_scalar_int(0), nt_scalar_int(size), nt_scalar_int(1), NT_INT64,
                         &d->range));
    return nt_levels_view(d->range, 1, d->range->sizes, d->range->strides, 0, NULL, 1, &d, NULL,
                          out);
}
