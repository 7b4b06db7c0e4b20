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
#include "ntensor/factory.h"
#include "ntensor/index.h"
#include "ntensor/views.h"

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

/* One positional dim kept (size, stride, name), printed next. */
static nt_status keep_positional(layout *l, int64_t size, int64_t stride, nt_name name) {
    if (l->nl + l->np >= NT_MAX_DIMS) return too_many();
    l->psizes[l->np] = size;
    l->pstrides[l->np] = stride;
    l->pnames[l->np++] = name;
    return read_entry(l, NULL, NULL);
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

/* The view t's binding makes; its levels print as the layout says (`gathered`: read from
 * the index as a whole, for a dim used twice) or first (`at_first`: a gather follows). */
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
    nt_tensor *v = NULL;
    NT_TRY(nt_dims_view(t, n, sizes, strides, offset, any ? names : NULL, &v));
    nt_status st;
    if (at_first || !l->gathers) {
        st = nt_levels_attach_at(v, l->nl, l->dims, at_first ? NULL : l->at);
    } else {
        nt_fcdim *seq[NT_FLAT_MAX];
        int len = nt_printed_gathered(l->flat, l->nflat, seq);
        st = nt_levels_attach_seq(v, l->nl, l->dims, len, seq);
    }
    if (st != NT_OK) {
        nt_tensor_release(v);
        return st;
    }
    *out = v;
    return NT_OK;
}

/* The tensor indices of a binding: which positional dims of the bound view they gather. */
typedef struct gather {
    int n;
    int at[NT_MAX_DIMS];
    nt_tensor *index[NT_MAX_DIMS];
} gather;

/* v[..., index at its dim, ...] batched over the dims of v and of the indices: with U their
 * union, v laid out [U, positional] is indexed by U's aranges (each along its own dim) and the
 * indices laid out [U]; the result, [U, the other positional dims], takes U as its levels. */
static nt_status gather_by(nt_tensor *v, const gather *g, const layout *l, nt_tensor **out) {
    nt_dim_union u = {0};
    NT_TRY(nt_dims_union_add(&u, v));
    for (int k = 0; k < g->n; k++) {
        const nt_tensor *e = g->index[k];
        if (e->ndim != nt_tensor_nlevels(e))
            return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                           "indexing with a tensor that has positional dims together with "
                           "first-class dims is not supported yet");
        NT_TRY(nt_dims_union_add(&u, e));
    }
    int np = v->ndim - nt_tensor_nlevels(v), n = u.n + np;
    if (n > NT_MAX_DIMS) return too_many();
    nt_tensor *views[2 * NT_MAX_DIMS] = {NULL}, *x = NULL;
    nt_index idx[NT_MAX_DIMS];
    nt_status st = nt_dims_align(v, &u, 0, 0, &x);
    for (int k = 0; st == NT_OK && k < u.n; k++) { /* U's aranges, [1, .., size, .., 1] */
        nt_fcdim *d = u.dims[k];
        nt_tensor *r = NULL;
        st = nt_fcdim_tensor(d, &r);
        int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
        for (int j = 0; st == NT_OK && j < u.n; j++)
            sizes[j] = j == k ? d->size : 1, strides[j] = j == k ? r->strides[0] : 0;
        if (st == NT_OK) st = nt_tensor_view_of(r, u.n, sizes, strides, r->offset, NULL, &views[k]);
        nt_tensor_release(r);
        idx[k] = (nt_index){.kind = NT_INDEX_TENSOR, .tensor = views[k]};
    }
    for (int p = 0; st == NT_OK && p < np; p++) {
        idx[u.n + p] =
            (nt_index){.kind = NT_INDEX_SLICE, .start = 0, .stop = NT_SLICE_END, .step = 1};
        for (int k = 0; st == NT_OK && k < g->n; k++)
            if (g->at[k] == p) {
                st = nt_dims_align(g->index[k], &u, 0, 0, &views[NT_MAX_DIMS + k]);
                idx[u.n + p] =
                    (nt_index){.kind = NT_INDEX_TENSOR, .tensor = views[NT_MAX_DIMS + k]};
            }
    }
    nt_tensor *r = NULL;
    if (st == NT_OK) st = nt_index_get(x, n, idx, &r);
    if (st == NT_OK) {
        nt_fcdim *seq[NT_FLAT_MAX];
        int len = nt_printed_gathered(l->flat, l->nflat, seq);
        st = nt_levels_attach_seq(r, u.n, u.dims, len, seq);
    }
    nt_tensor_release(x);
    for (int k = 0; k < 2 * NT_MAX_DIMS; k++)
        nt_tensor_release(views[k]);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}

nt_status nt_tensor_bind(nt_tensor *t, int n, const nt_bind_spec *specs, nt_tensor **out) {
    if (!t || !out || (n > 0 && !specs) || n < 0)
        return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: NULL or bad argument");
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
            consumed++;
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
    g.n = 0;
    for (int i = 0; i <= n; i++) {
        /* the ellipsis, or the end without one: keep the dims no spec takes */
        if (i == n ? ellipsis < 0 : specs[i].kind == NT_BIND_ELLIPSIS) {
            int keep = tp - consumed;
            for (int k = 0; k < keep; k++, pos++) {
                NT_TRY(read_own(&l, pos - tl));
                NT_TRY(
                    keep_positional(&l, t->sizes[pos], t->strides[pos], nt_tensor_name_at(t, pos)));
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
        case NT_BIND_TENSOR:
            if (!s->tensor) return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: a NULL tensor");
            if (l.nl + l.np >= NT_MAX_DIMS) return too_many();
            g.at[g.n] = l.np; /* kept as a slice, gathered below */
            g.index[g.n++] = s->tensor;
            l.psizes[l.np] = t->sizes[pos];
            l.pstrides[l.np] = t->strides[pos];
            l.pnames[l.np++] = nt_tensor_name_at(t, pos);
            l.gathers = true;
            NT_TRY(read_entry(&l, NULL, s->tensor));
            pos++;
            break;
        case NT_BIND_SLICE:
            NT_TRY(keep_positional(&l, t->sizes[pos], t->strides[pos], nt_tensor_name_at(t, pos)));
            pos++;
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
    nt_tensor *v = NULL;
    NT_TRY(nt_dims_view(t, n, sizes, strides, t->offset, t->names ? names : NULL, &v));
    if (!flat) {
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
    }
    nt_fcdim *seq[NT_MAX_DIMS];
    int len = nt_printed_ordered(t, used, ngroups, seq);
    nt_status st = nt_levels_attach_seq(v, nkeep, keep, len, seq);
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
    nt_tensor *v = NULL;
    NT_TRY(nt_tensor_view_of(d->range, 1, d->range->sizes, d->range->strides, 0, NULL, &v));
    nt_status st = nt_levels_attach(v, 1, &d);
    if (st != NT_OK) {
        nt_tensor_release(v);
        return st;
    }
    *out = v;
    return NT_OK;
}
