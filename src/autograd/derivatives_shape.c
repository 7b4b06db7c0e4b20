/*
 * derivatives_shape.c — backward formulas of views, names ops, joins and splits, masks and
 * conversions.
 *
 * A view's gradient is the inverse view of the output's gradient (a reshape back, the inverse
 * permutation) or, for a view that cuts part of its input (select, narrow), zeros with the
 * gradient written into that part. Names ops move no data: their gradient is the output's, which
 * the engine renames as the input. Dims are resolved against the recorded input's metadata.
 */
#include <string.h>

#include "core/status.h"
#include "derivatives.h"

#define G gout[0]

/* rename, rename_map, refine_names: the output's gradient, renamed as the input by the engine */
nt_status nt_vjp_rename(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    vj_give(&v, vj_unnamed(&v, G), &gin[0]);
    return vj_end(&v);
}

/* view, reshape, squeeze, unsqueeze, flatten, unflatten, view_as, reshape_as: reshape back */
nt_status nt_vjp_reshape(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    vj_give(&v, vj_reshape(&v, G, n->in[0].ndim, n->in[0].sizes), &gin[0]);
    return vj_end(&v);
}

/* transpose(self, dim0, dim1) */
nt_status nt_vjp_transpose(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int d0 = 0, d1 = 0;
    if (n->in[0].ndim >= 2) {
        NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[1].v.dim, &d0));
        NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[2].v.dim, &d1));
    }
    nt_tensor *g = vj_unnamed(&v, G);
    vj_give(&v, d0 == d1 ? g : vj_transpose(&v, g, d0, d1), &gin[0]);
    return vj_end(&v);
}

/* t(self) */
nt_status nt_vjp_t(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G);
    vj_give(&v, n->in[0].ndim < 2 ? g : vj_transpose(&v, g, 0, 1), &gin[0]);
    return vj_end(&v);
}

/* permute(self, dims): the inverse permutation */
nt_status nt_vjp_permute(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    const nt_arg *a = &n->call.args[1];
    nt_dim inverse[NT_MAX_DIMS];
    for (int i = 0; i < a->n; i++) {
        int d = 0;
        NT_TRY(nt_ag_resolve_dim(&n->in[0], a->v.dims[i], &d));
        inverse[d] = i;
    }
    vj_give(&v, vj_permute(&v, vj_unnamed(&v, G), a->n, inverse), &gin[0]);
    return vj_end(&v);
}

/* flip(self, dims): the gradient flipped back */
nt_status nt_vjp_flip(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    const nt_arg *a = &n->call.args[1];
    nt_dim dims[NT_MAX_DIMS];
    for (int i = 0; i < a->n && i < NT_MAX_DIMS; i++) {
        int d = 0;
        NT_TRY(nt_ag_resolve_dim(&n->in[0], a->v.dims[i], &d));
        dims[i] = d;
    }
    nt_tensor *g = vj_unnamed(&v, G), *r = NULL;
    nt_status st = vj_ok(&v) ? nt_flip(g, a->n, dims, &r) : v.st;
    vj_give(&v, vj_keep(&v, st, r), &gin[0]);
    return vj_end(&v);
}

/* triu / tril(self, diagonal): the gradient's same triangle */
nt_status nt_vjp_triangle(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int64_t k = n->call.args[1].kind == NT_ARG_INT ? n->call.args[1].v.i : 0;
    nt_tensor *g = vj_unnamed(&v, G), *r = NULL;
    nt_status st = !vj_ok(&v)                 ? v.st
                   : n->call.op == NT_OP_TRIU ? nt_triu(g, k, &r)
                                              : nt_tril(g, k, &r);
    vj_give(&v, vj_keep(&v, st, r), &gin[0]);
    return vj_end(&v);
}

/* diag_embed(self, offset, dim1, dim2): the gradient's diagonal (offset, dim1, dim2), whose
 * dims are self's: the others in order, then the diagonal (self's last) */
nt_status nt_vjp_diag_embed(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    const nt_arg *a = n->call.args;
    nt_tensor *g = vj_unnamed(&v, G), *r = NULL;
    nt_status st = vj_ok(&v) ? nt_diagonal(g, a[1].v.i, a[2].v.i, a[3].v.i, &r) : v.st;
    vj_give(&v, vj_keep(&v, st, r), &gin[0]);
    return vj_end(&v);
}

/* align_to / align_as: the output holds the input's dims (matched by name; unnamed ones in
 * order) and new dims of size one: sum those away, then permute back */
nt_status nt_vjp_align(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    const nt_tmeta *in = &n->in[0], *out = &n->out[0];
    int pos[NT_MAX_DIMS];
    bool used[NT_MAX_DIMS] = {false};
    for (int i = 0, next = 0; i < in->ndim; i++) {
        nt_name name = in->names ? in->names[i] : NT_NAME_NONE;
        int p = -1;
        for (int o = 0; name != NT_NAME_NONE && o < out->ndim && out->names; o++)
            if (out->names[o] == name) p = o;
        while (p < 0 && next < out->ndim) { /* the next unnamed dim of the output */
            if (!used[next] && (!out->names || out->names[next] == NT_NAME_NONE)) p = next;
            next++;
        }
        if (p < 0) return nt_fail(NT_ERR_RUNTIME, "align backward: dim %d not found", i);
        pos[i] = p;
        used[p] = true;
    }
    vj v = VJ_INIT;
    nt_dim added[NT_MAX_DIMS], perm[NT_MAX_DIMS];
    int nadded = 0;
    for (int o = 0; o < out->ndim; o++)
        if (!used[o]) added[nadded++] = o;
    nt_tensor *g = vj_unnamed(&v, G);
    if (nadded) g = vj_sum(&v, g, nadded, added, false);
    for (int i = 0; i < in->ndim; i++) { /* the rank of pos[i] among the kept dims */
        int rank = 0;
        for (int j = 0; j < in->ndim; j++)
            rank += pos[j] < pos[i];
        perm[rank] = i;
    }
    nt_dim inverse[NT_MAX_DIMS];
    for (int r = 0; r < in->ndim; r++)
        inverse[perm[r]] = r;
    vj_give(&v, in->ndim ? vj_permute(&v, g, in->ndim, inverse) : g, &gin[0]);
    return vj_end(&v);
}

/* select / narrow: zeros with g written into the part */
static nt_status select_part(const nt_node *n, nt_tensor *whole, nt_tensor **part) {
    return nt_select(whole, n->call.args[1].v.dim, n->call.args[2].v.i, part);
}
static nt_status narrow_part(const nt_node *n, nt_tensor *whole, nt_tensor **part) {
    return nt_narrow(whole, n->call.args[1].v.dim, n->call.args[2].v.i, n->call.args[3].v.i, part);
}
static nt_status cut(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, vj_part_fn part) {
    vj v = VJ_INIT;
    nt_tensor *g = G;
    /* dims may be names: cut the unnamed zeros by index */
    int d = 0;
    NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[1].v.dim, &d));
    nt_dim given = n->call.args[1].v.dim;
    n->call.args[1].v.dim = d;
    vj_give(&v, vj_scatter_part(&v, n, &n->in[0], g, part), &gin[0]);
    n->call.args[1].v.dim = given;
    return vj_end(&v);
}
nt_status nt_vjp_select(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return cut(n, gout, gin, select_part);
}
nt_status nt_vjp_narrow(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return cut(n, gout, gin, narrow_part);
}

/* masked_fill(self, mask, value): g where the mask is false; a tensor value gets the sum of g
 * where it is true */
nt_status nt_vjp_masked_fill(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    nt_tensor *mask = nt_node_saved(n, 1);
    int s = nt_node_input(n, 0), val = nt_node_input(n, 2);
    nt_tensor *zero = vj_scale(&v, G, 0.0);
    if (s >= 0 && nt_node_wants(n, s)) vj_give(&v, vj_where(&v, mask, zero, G), &gin[s]);
    if (val >= 0 && nt_node_wants(n, val))
        vj_give(&v, vj_sum(&v, vj_unnamed(&v, vj_where(&v, mask, G, zero)), 0, NULL, false),
                &gin[val]);
    return vj_end(&v);
}

/* cat(tensors, dim): each input gets its slice; stack(tensors, dim): its index */
nt_status nt_vjp_cat(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int d = 0, k0 = nt_node_input(n, 0);
    int count = n->call.args[0].n;
    for (int k = 0; k < count && n->in[k0 + k].ndim == 1 && n->in[k0 + k].sizes[0] == 0; k++)
        ; /* legacy empty 1-d inputs take no part */
    const nt_tmeta *shaped = NULL;
    for (int k = 0; k < count && !shaped; k++)
        if (!(n->in[k0 + k].ndim == 1 && n->in[k0 + k].sizes[0] == 0)) shaped = &n->in[k0 + k];
    if (shaped) NT_TRY(nt_ag_resolve_dim(shaped, n->call.args[1].v.dim, &d));
    nt_tensor *g = vj_unnamed(&v, G);
    int64_t at = 0;
    for (int k = 0; k < count && vj_ok(&v); k++) {
        const nt_tmeta *m = &n->in[k0 + k];
        if (m->ndim == 1 && m->sizes[0] == 0 && (!shaped || shaped->ndim != 1)) continue;
        int64_t size = m->sizes[d];
        if (nt_node_wants(n, k0 + k)) {
            nt_tensor *part = NULL;
            nt_status st = nt_narrow(g, d, at, size, &part);
            vj_give(&v, vj_keep(&v, st, part), &gin[k0 + k]);
        }
        at += size;
    }
    return vj_end(&v);
}

nt_status nt_vjp_stack(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int k0 = nt_node_input(n, 0), count = n->call.args[0].n;
    nt_tmeta wider = n->out[0];
    int d = 0;
    NT_TRY(nt_ag_resolve_dim(&wider, n->call.args[1].v.dim, &d));
    nt_tensor *g = vj_unnamed(&v, G);
    for (int k = 0; k < count && vj_ok(&v); k++) {
        if (!nt_node_wants(n, k0 + k)) continue;
        nt_tensor *part = NULL;
        nt_status st = nt_select(g, d, k, &part);
        vj_give(&v, vj_keep(&v, st, part), &gin[k0 + k]);
    }
    return vj_end(&v);
}

/* split / split_with_sizes / chunk: cat of the parts' gradients; unbind: their stack */
static nt_status join_parts(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, bool stack) {
    vj v = VJ_INIT;
    int d = 0;
    NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[stack ? 1 : 2].v.dim, &d));
    nt_tensor *parts[n->noutputs > 0 ? n->noutputs : 1];
    for (int j = 0; j < n->noutputs; j++)
        parts[j] = vj_unnamed(&v, gout[j]);
    nt_tensor *out = NULL;
    if (vj_ok(&v)) {
        nt_status st = stack ? nt_stack(n->noutputs, parts, d, NULL, &out)
                             : nt_cat(n->noutputs, parts, d, NULL, &out);
        vj_give(&v, vj_keep(&v, st, out), &gin[0]);
    }
    return vj_end(&v);
}
nt_status nt_vjp_split(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return join_parts(n, gout, gin, false);
}
nt_status nt_vjp_unbind(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return join_parts(n, gout, gin, true);
}

/* diagonal(self, offset, dim1, dim2) / diagonal(self, *, outdim, dim1, dim2, offset): zeros
 * with g written on that diagonal */
static nt_status diagonal_part(const nt_node *n, nt_tensor *whole, nt_tensor **part) {
    const nt_arg *a = n->call.args;
    int64_t offset = n->call.op == NT_OP_DIAGONAL ? a[1].v.i : a[4].v.i;
    return nt_diagonal(whole, offset, a[2].v.dim, a[3].v.dim, part);
}
nt_status nt_vjp_diagonal(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int d1 = 0, d2 = 0;
    NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[2].v.dim, &d1));
    NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[3].v.dim, &d2));
    nt_dim given1 = n->call.args[2].v.dim, given2 = n->call.args[3].v.dim;
    n->call.args[2].v.dim = d1, n->call.args[3].v.dim = d2; /* cut the unnamed zeros by index */
    vj_give(&v, vj_scatter_part(&v, n, &n->in[0], vj_unnamed(&v, G), diagonal_part), &gin[0]);
    n->call.args[2].v.dim = given1, n->call.args[3].v.dim = given2;
    return vj_end(&v);
}

/* narrow(self, dim, Tensor start, length): narrow's, the start read from its saved tensor */
static nt_status narrow_tensor_part(const nt_node *n, nt_tensor *whole, nt_tensor **part) {
    nt_scalar start;
    NT_TRY(nt_item(nt_node_saved(n, 2), &start));
    return nt_narrow(whole, n->call.args[1].v.dim, start.v.i, n->call.args[3].v.i, part);
}
nt_status nt_vjp_narrow_tensor(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return cut(n, gout, gin, narrow_tensor_part);
}

/* movedim / moveaxis, one dim or lists: the inverse permutation (output position of each
 * input dim, found as the op places them: the moved dims first, the others in order) */
nt_status nt_vjp_movedim(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    const nt_tmeta *in = &n->in[0];
    const nt_arg *src = &n->call.args[1], *dst = &n->call.args[2];
    bool list = src->kind == NT_ARG_DIMS;
    int count = list ? src->n : 1, nd = in->ndim;
    int out_of[NT_MAX_DIMS]; /* out_of[o]: the input dim at output position o, or -1 */
    bool moved[NT_MAX_DIMS] = {false};
    for (int o = 0; o < nd; o++)
        out_of[o] = -1;
    for (int i = 0; i < count; i++) {
        int d = 0;
        NT_TRY(nt_ag_resolve_dim(in, list ? src->v.dims[i] : src->v.dim, &d));
        int64_t to = list ? dst->v.ints[i] : dst->v.i;
        if (to < 0) to += nd;
        if (to < 0 || to >= nd) return nt_fail(NT_ERR_RUNTIME, "movedim backward: bad destination");
        out_of[to] = d;
        moved[d] = true;
    }
    for (int o = 0, next = 0; o < nd; o++) {
        if (out_of[o] >= 0) continue;
        while (next < nd && moved[next])
            next++;
        out_of[o] = next++;
    }
    nt_dim inverse[NT_MAX_DIMS];
    for (int o = 0; o < nd; o++)
        inverse[out_of[o]] = o;
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G);
    vj_give(&v, nd ? vj_permute(&v, g, nd, inverse) : g, &gin[0]);
    return vj_end(&v);
}

/* unfold(self, dimension, size, step): windows may overlap, so g adds up at the positions
 * the windows read */
nt_status nt_vjp_unfold(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int d = 0;
    if (n->in[0].ndim) NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[1].v.dim, &d));
    nt_tensor *pos = vj_positions(&v, &n->in[0]), *at = NULL;
    if (pos) {
        nt_status st = nt_unfold(pos, d, n->call.args[2].v.i, n->call.args[3].v.i, &at);
        at = vj_keep(&v, st, at);
    }
    if (at) vj_give(&v, vj_scatter_at(&v, &n->in[0], G, at, true), &gin[0]);
    return vj_end(&v);
}

/* ---- as_strided: PyTorch's as_strided_backward ---- */

static int64_t geom_last(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset) {
    int64_t end = offset + 1; /* one past the last element */
    for (int i = 0; i < ndim; i++)
        if (sizes[i] == 0)
            return offset;
        else
            end += (sizes[i] - 1) * strides[i];
    return end;
}

/* Whether some element of the layout may be reached twice (PyTorch's _maybe_overlapping_memory:
 * dims by stride, each stride past the extent of the smaller ones). */
static bool maybe_overlapping(int ndim, const int64_t *sizes, const int64_t *strides) {
    int order[NT_MAX_DIMS], k = 0;
    for (int i = 0; i < ndim; i++)
        if (sizes[i] > 1) order[k++] = i;
    for (int i = 1; i < k; i++) /* insertion sort by stride */
        for (int j = i; j > 0 && strides[order[j]] < strides[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    int64_t extent = 0;
    for (int i = 0; i < k; i++) {
        int64_t s = strides[order[i]];
        if (s <= extent) return true;
        extent += (sizes[order[i]] - 1) * s;
    }
    return false;
}

/* Without create_graph: g added at the output layout's elements of a zeroed storage buffer
 * by strided copies when that layout reaches no element twice once its stride-0 dims (an
 * expand: g is summed over them) are set aside — every view that binding first-class dims
 * or aligning them makes. NULL (without an error) for a layout that overlaps. */
static nt_tensor *strided_add(vj *v, const nt_tmeta *store, nt_tensor *g, int ndim,
                              const int64_t *osizes, const int64_t *ostrides, int64_t offset) {
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_dim expanded[NT_MAX_DIMS];
    int nexp = 0;
    for (int i = 0; i < ndim; i++) {
        sizes[i] = osizes[i], strides[i] = ostrides[i];
        if (strides[i] == 0 && sizes[i] > 1) expanded[nexp++] = i, sizes[i] = 1;
    }
    if (maybe_overlapping(ndim, sizes, strides)) return NULL;
    nt_tensor *sum = nexp ? vj_sum(v, g, nexp, expanded, true) : g;
    nt_tensor *whole = vj_zeros(v, store), *src = sum ? vj_unnamed(v, sum) : NULL, *at = NULL;
    if (!whole || !src) return NULL;
    nt_status st = nt_as_strided(whole, ndim, sizes, strides, offset, &at);
    if (st == NT_OK) st = nt_copy_(at, src);
    nt_tensor_release(at);
    if (st != NT_OK) vj_keep(v, st, NULL);
    return st == NT_OK ? whole : NULL;
}

/* The gradient of the input's storage: zeros over the elements both layouts touch, g added at
 * the output's elements (repeats add up), read back with the input's layout; an input whose
 * elements repeat shares each storage element's gradient among its copies. */
nt_status nt_vjp_as_strided(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    const nt_ag_geom *in = nt_node_geometry(n);
    const nt_arg *a = n->call.args;
    int ondim = a[1].n;
    const int64_t *osizes = a[1].v.ints, *ostrides = a[2].v.ints;
    int64_t ooff = a[3].kind == NT_ARG_INT ? a[3].v.i : in->offset;
    int64_t lo = in->offset < ooff ? in->offset : ooff;
    int64_t hi = geom_last(in->ndim, in->sizes, in->strides, in->offset);
    int64_t ohi = geom_last(ondim, osizes, ostrides, ooff);
    int64_t extent = (hi > ohi ? hi : ohi) - lo;
    if (extent < 0) extent = 0;
    nt_tmeta store = {.dtype = n->in[0].dtype, .ndim = 1, .sizes = &extent, .names = NULL};
    vj v = VJ_INIT;
    nt_tensor *pos = NULL, *at = NULL, *buf = NULL, *g = NULL;
    if (!(nt_ag_requires(G) && nt_ag_grad_mode()))
        buf = strided_add(&v, &store, G, ondim, osizes, ostrides, ooff - lo);
    if (!buf && v.st == NT_OK) {
        pos = vj_positions(&v, &store);
        if (pos) {
            nt_status st = nt_as_strided(pos, ondim, osizes, ostrides, ooff - lo, &at);
            at = vj_keep(&v, st, at);
        }
        if (at) buf = vj_scatter_at(&v, &store, G, at, true);
    }
    if (buf) {
        nt_status st = nt_as_strided(buf, in->ndim, in->sizes, in->strides, in->offset - lo, &g);
        g = vj_keep(&v, st, g);
    }
    if (g && maybe_overlapping(in->ndim, in->sizes, in->strides)) {
        nt_tensor *ones = NULL, *count = NULL, *inpos = NULL;
        if (!pos) pos = vj_positions(&v, &store);
        nt_status st = nt_ones(in->ndim, in->sizes, store.dtype, NULL, &ones);
        ones = vj_keep(&v, st, ones);
        if (ones) {
            st = nt_as_strided(pos, in->ndim, in->sizes, in->strides, in->offset - lo, &inpos);
            inpos = vj_keep(&v, st, inpos);
        }
        nt_tensor *counts = inpos ? vj_scatter_at(&v, &store, ones, inpos, true) : NULL;
        if (counts) {
            st = nt_as_strided(counts, in->ndim, in->sizes, in->strides, in->offset - lo, &count);
            count = vj_keep(&v, st, count);
        }
        if (count) g = vj_div(&v, g, count);
    }
    vj_give(&v, g, &gin[0]);
    return vj_end(&v);
}
