/*
 * derivatives_gather.c — backward formulas of the index family: gather, scatter (src and
 * value), scatter_add, index_select, index_add, take_along_dim, sort and masked_scatter.
 *
 * A gather's gradient is a scatter_add of g into zeros (repeated indices add up); a scatter's
 * is g with the written entries zeroed for self and g gathered at them for src. Every step is
 * a public op, so the formulas are recorded themselves under create_graph.
 */
#include "core/status.h"
#include "derivatives.h"
#include "vjp_select.h"

#define G gout[0]

/* the op's dim (slot 1: gather, scatter, index_select, index_add) */
static nt_status dim_of(const nt_node *n, int slot, int *d) {
    *d = 0;
    if (n->in[0].ndim == 0) return NT_OK;
    return nt_ag_resolve_dim(&n->in[0], n->call.args[slot].v.dim, d);
}

static nt_tensor *zeros_unnamed(vj *v, const nt_tmeta *m) {
    nt_tmeta u = *m;
    u.names = NULL;
    return vj_zeros(v, &u);
}

/* gather(self, dim, index): zeros with g added at index */
nt_status nt_vjp_gather(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    int d;
    NT_TRY(dim_of(n, 1, &d));
    vj v = VJ_INIT;
    nt_tensor *index = nt_node_saved(n, 2);
    vj_give(&v, vj_scatter_add(&v, zeros_unnamed(&v, &n->in[0]), d, index, vj_unnamed(&v, G)),
            &gin[0]);
    return vj_end(&v);
}

/* scatter(self, dim, index, src|value) and scatter_add: self gets g with the written entries
 * zeroed (all of g for scatter_add), src g gathered at index */
nt_status nt_vjp_scatter(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    if (n->call.args[4].kind == NT_ARG_STR)
        return nt_fail(NT_ERR_RUNTIME,
                       "the derivative for 'scatter' with reduce is not implemented.");
    int d;
    NT_TRY(dim_of(n, 1, &d));
    int s = nt_node_input(n, 0), src = nt_node_input(n, 3);
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G), *index = nt_node_saved(n, 2);
    if (s >= 0 && nt_node_wants(n, s))
        vj_give(&v, n->call.op == NT_OP_SCATTER_ADD ? g : vj_scatter_value(&v, g, d, index, 0.0),
                &gin[s]);
    if (src >= 0 && nt_node_wants(n, src)) vj_give(&v, vj_gather(&v, g, d, index), &gin[src]);
    return vj_end(&v);
}

/* index_select(self, dim, index): zeros with g added at index along dim */
nt_status nt_vjp_index_select(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    int d;
    NT_TRY(dim_of(n, 1, &d));
    vj v = VJ_INIT;
    vj_give(
        &v,
        vj_index_add(&v, zeros_unnamed(&v, &n->in[0]), d, nt_node_saved(n, 2), vj_unnamed(&v, G)),
        &gin[0]);
    return vj_end(&v);
}

/* index_add(self, dim, index, source, alpha): g for self, alpha * g at index for source */
nt_status nt_vjp_index_add(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    int d;
    NT_TRY(dim_of(n, 1, &d));
    int s = nt_node_input(n, 0), src = nt_node_input(n, 3);
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G);
    if (s >= 0 && nt_node_wants(n, s)) vj_give(&v, g, &gin[s]);
    if (src >= 0 && nt_node_wants(n, src)) {
        const nt_arg *alpha = &n->call.args[4];
        double a = alpha->kind != NT_ARG_SCALAR         ? 1.0
                   : alpha->v.s.kind == NT_SCALAR_FLOAT ? alpha->v.s.v.f
                                                        : (double)alpha->v.s.v.i;
        nt_tensor *part = vj_index_select(&v, g, d, nt_node_saved(n, 2));
        if (a != 1.0) part = vj_scale(&v, part, a);
        const nt_tmeta *m = &n->in[src];
        if (part && m->ndim != part->ndim) part = vj_reshape(&v, part, m->ndim, m->sizes);
        vj_give(&v, part, &gin[src]);
    }
    return vj_end(&v);
}

/* take_along_dim(self, indices, dim): the gather's gradient over the broadcast shapes (the
 * engine sums a broadcast self back); without dim, over the flattened self */
nt_status nt_vjp_take_along_dim(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    const nt_tmeta *m = &n->in[0];
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G), *index = vj_unnamed(&v, nt_node_saved(n, 1));
    if (!vj_ok(&v)) return vj_end(&v);
    if (n->call.args[2].kind != NT_ARG_DIM) {
        int64_t numel = 1, count = index->numel;
        for (int i = 0; i < m->ndim; i++)
            numel *= m->sizes[i];
        nt_tmeta flat = {.dtype = m->dtype, .ndim = 1, .sizes = &numel, .names = NULL};
        nt_tensor *sum =
            vj_scatter_add(&v, vj_zeros(&v, &flat), 0, vj_reshape(&v, index, 1, &count),
                           vj_reshape(&v, g, 1, &count));
        vj_give(&v, vj_reshape(&v, sum, m->ndim, m->sizes), &gin[0]);
        return vj_end(&v);
    }
    int d;
    NT_TRY(nt_ag_resolve_dim(m, n->call.args[2].v.dim, &d));
    int64_t sa[NT_MAX_DIMS], sb[NT_MAX_DIMS];
    for (int i = 0; i < m->ndim; i++) {
        int64_t both = m->sizes[i] == 1 ? index->sizes[i] : m->sizes[i];
        sa[i] = i == d ? m->sizes[i] : both;
        sb[i] = i == d ? index->sizes[i] : both;
    }
    nt_tmeta wide = {.dtype = m->dtype, .ndim = m->ndim, .sizes = sa, .names = NULL};
    vj_give(&v, vj_scatter_add(&v, vj_zeros(&v, &wide), d, vj_expand(&v, index, m->ndim, sb), g),
            &gin[0]);
    return vj_end(&v);
}

/* masked_scatter(self, mask, source): self gets g where the mask is false; source's first
 * elements (as many as the mask's ones) get g where it is true, in order, the rest 0 */
nt_status nt_vjp_masked_scatter(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    int s = nt_node_input(n, 0), src = nt_node_input(n, 2);
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G), *mask = vj_unnamed(&v, nt_node_saved(n, 1));
    if (!vj_ok(&v)) return vj_end(&v);
    if (s >= 0 && nt_node_wants(n, s)) {
        nt_tensor *kept = NULL;
        nt_status st = nt_masked_fill(g, mask, nt_scalar_int(0), &kept);
        vj_give(&v, vj_keep(&v, st, kept), &gin[s]);
    }
    if (src >= 0 && nt_node_wants(n, src)) {
        const nt_tmeta *m = &n->in[src];
        int64_t numel = 1;
        for (int i = 0; i < m->ndim; i++)
            numel *= m->sizes[i];
        nt_tensor *picked = NULL, *joined = NULL;
        nt_status st = nt_masked_select(g, mask, &picked);
        picked = vj_keep(&v, st, picked);
        if (picked) {
            int64_t rest = numel - picked->numel;
            nt_tmeta tail = {.dtype = g->dtype, .ndim = 1, .sizes = &rest, .names = NULL};
            nt_tensor *parts[2] = {picked, vj_zeros(&v, &tail)};
            if (parts[1]) {
                st = nt_cat(2, parts, 0, NULL, &joined);
                joined = vj_keep(&v, st, joined);
            }
        }
        vj_give(&v, vj_reshape(&v, joined, m->ndim, m->sizes), &gin[src]);
    }
    return vj_end(&v);
}
