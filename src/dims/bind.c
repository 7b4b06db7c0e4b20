/*
 * bind.c — making and unmaking tensors with first-class dims: binding by an index
 * (t[i, (j, k), :, 0]), order (back to positional dims, groups flattened) and a dim used as a
 * tensor. All three are views of their input (order copies only to flatten a group whose
 * strides cannot merge), recorded by autograd as views.
 */
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "dims/bind.h"
#include "names/names.h"
#include "ntensor/factory.h"
#include "ntensor/index.h"
#include "ntensor/views.h"
#include "ops/index.h"

typedef nt_bind_layout layout;

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

const uint8_t *nt_bind_printed_at(const layout *l, nt_fcdim *const *dims, int n, int ndim,
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

nt_status nt_bind_view(nt_tensor *t, const layout *l, int64_t offset, bool named, bool at_first,
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
    const uint8_t *printed = at_first ? NULL : nt_bind_printed_at(l, l->dims, l->nl, n, at);
    return nt_levels_view(t, n, sizes, strides, offset, any ? names : NULL, l->nl, l->dims, printed,
                          out);
}

/* A tensor spec is set, and a mask has no first-class dims (a count of true elements that
 * could differ along a dim has no batched form): the positional dims it takes in *width (a
 * bool scalar none: it makes a new dim). */
static nt_status check_tensor_spec(const nt_tensor *e, int *width) {
    if (!e) return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: a NULL tensor");
    *width = 1;
    if (!nt_bind_is_mask(e)) return NT_OK;
    if (nt_tensor_nlevels(e))
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "indexing with a bool tensor that has first-class dims is not supported "
                       "(its count of true elements could differ along them)");
    *width = e->ndim;
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

/* Binds dims[i] to the size of t's dim i, for binds_every_dim's bindings. */
static nt_status bind_sizes(const nt_tensor *t, int n, nt_fcdim *const *dims) {
    for (int i = 0; i < n; i++)
        NT_TRY(nt_fcdim_set_size(dims[i], t->sizes[i]));
    return NT_OK;
}

nt_status nt_tensor_bind_borrowing(nt_tensor *t, int n, nt_fcdim *const *dims, nt_tensor **out) {
    if (!t || !out || n < 0 || n > NT_MAX_DIMS || (n > 0 && !dims))
        return nt_fail(NT_ERR_VALUE, "nt_tensor_bind_borrowing: NULL or bad argument");
    if (binds_every_dim(t, n, dims)) {
        NT_TRY(bind_sizes(t, n, dims));
        return nt_levels_view_borrowing(t, n, dims, out);
    }
    nt_bind_spec specs[NT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        specs[i] = (nt_bind_spec){.kind = NT_BIND_DIM, .dim = dims[i]};
    return nt_tensor_bind(t, n, specs, out);
}

nt_status nt_bind_walk_index(nt_tensor *t, int n, const nt_bind_spec *specs, nt_bind_walk *w) {
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
    layout *const l = &w->l;
    nt_bind_gather *const g = &w->g; /* not zeroed: only its first n entries are read */
    own_levels(l, t, tl);
    int64_t offset = t->offset;
    int pos = tl; /* the physical dim of t the next spec takes */
    g->n = g->nfirst = g->mark = g->width = 0;
    for (int i = 0; i <= n; i++) {
        /* the ellipsis, or the end without one: keep the dims no spec takes */
        if (i == n ? ellipsis < 0 : specs[i].kind == NT_BIND_ELLIPSIS) {
            int keep = tp - consumed;
            for (int k = 0; k < keep; k++) {
                NT_TRY(read_own(l, pos - tl));
                NT_TRY(keep_dim(l, t, pos++));
            }
            consumed = tp; /* taken: the trailing keep runs once */
            continue;
        }
        if (i == n) break;
        const nt_bind_spec *s = &specs[i];
        NT_TRY(read_own(l, pos - tl));
        switch (s->kind) {
        case NT_BIND_DIM:
            NT_TRY(bind_one(l, s->dim, t->sizes[pos], t->strides[pos]));
            pos++;
            break;
        case NT_BIND_PACK:
            if (!s->pack) return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: a NULL dim pack");
            NT_TRY(bind_pack(l, s->pack, s->n, t->sizes[pos], t->strides[pos]));
            pos++;
            break;
        case NT_BIND_TENSOR: /* its dims kept as they are, gathered below */
            if (g->n == 0) {
                g->nfirst = l->nl;
                g->mark = l->nl + l->np;
            }
            if (l->nl + l->np - g->width != g->mark) g->nfirst = 0;
            g->at[g->n] = l->np;
            g->index[g->n++] = s->tensor;
            if (nt_bind_is_mask(s->tensor) && s->tensor->ndim == 0) { /* a new dim of size one */
                NT_TRY(keep_unread(l, 1, 0, NT_NAME_NONE));
                g->width++;
            }
            for (int k = nt_bind_is_mask(s->tensor) ? s->tensor->ndim : 1; k > 0;
                 k--, g->width++, pos++)
                NT_TRY(keep_unread(l, t->sizes[pos], t->strides[pos], nt_tensor_name_at(t, pos)));
            l->gathers = true;
            NT_TRY(read_entry(l, NULL, s->tensor));
            break;
        case NT_BIND_SLICE:
            NT_TRY(keep_dim(l, t, pos++));
            if (s->step) NT_TRY(slice_kept(l, s, &offset));
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
            NT_TRY(keep_positional(l, 1, 0, NT_NAME_NONE));
            break;
        default:
            break;
        }
    }
    NT_TRY(read_own(l, tp));
    w->offset = offset;
    return NT_OK;
}

nt_status nt_tensor_bind(nt_tensor *t, int n, const nt_bind_spec *specs, nt_tensor **out) {
    if (!t || !out || (n > 0 && !specs) || n < 0)
        return nt_fail(NT_ERR_VALUE, "nt_tensor_bind: NULL or bad argument");
    if (n == t->ndim && !t->levels) {
        nt_fcdim *dims[NT_MAX_DIMS];
        int k = 0;
        for (; k < n && specs[k].kind == NT_BIND_DIM; k++)
            dims[k] = specs[k].dim;
        if (k == n && binds_every_dim(t, n, dims)) {
            NT_TRY(bind_sizes(t, n, dims));
            return nt_levels_view(t, n, t->sizes, t->strides, t->offset, NULL, n, dims, NULL, out);
        }
    }
    nt_bind_walk w;
    NT_TRY(nt_bind_walk_index(t, n, specs, &w));
    if (w.g.n == 0) return nt_bind_view(t, &w.l, w.offset, t->names != NULL, false, out);
    nt_tensor *v = NULL;
    NT_TRY(nt_bind_view(t, &w.l, w.offset, false, true, &v));
    nt_status st = nt_bind_gather_run(v, &w.g, &w.l, out);
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
