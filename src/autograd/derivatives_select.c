/*
 * derivatives_select.c — backward formulas of the reductions that select elements: amax/amin,
 * max/min/median of every element (the gradient split evenly among the elements equal to the
 * result, as PyTorch), max/min/median/mode/kthvalue along a dim, topk, sort and cummax/cummin (the
 * gradient sent to the positions of the saved indices).
 */
#include "core/status.h"
#include "derivatives.h"
#include "vjp_select.h"

#define G gout[0]

static bool keepdim_at(const nt_node *n, int slot) {
    return n->call.args[slot].kind == NT_ARG_BOOL && n->call.args[slot].v.b;
}

/* amax/amin(self, dim, keepdim): g / (the count of x equal to y in the group) at those x */
nt_status nt_vjp_amax(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    uint64_t mask;
    NT_TRY(nt_ag_reduced_mask(n, 1, &mask));
    bool keepdim = keepdim_at(n, 2);
    nt_dim dims[NT_MAX_DIMS];
    int count = 0;
    for (int d = 0; d < n->in[0].ndim; d++)
        if (mask >> d & 1) dims[count++] = d;
    nt_tensor *x = vj_unnamed(&v, nt_node_saved(n, 0));
    nt_tensor *y = vj_unreduce(&v, n, nt_node_result(n, 0), mask, keepdim);
    nt_tensor *hit = vj_bin(&v, NT_BINARY_EQ, x, y);
    nt_tensor *share =
        vj_div(&v, vj_unreduce(&v, n, G, mask, keepdim), vj_sum(&v, hit, count, dims, true));
    vj_give(&v, vj_mul(&v, share, hit), &gin[0]);
    return vj_end(&v);
}

/* max()/min()/median() of every element: g / count at the elements equal to y (the NaNs when
 * y is NaN) */
nt_status nt_vjp_evenly(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    nt_tensor *x = vj_unnamed(&v, nt_node_saved(n, 0)), *y = vj_unnamed(&v, nt_node_result(n, 0));
    nt_tensor *nan =
        vj_bin(&v, NT_BINARY_LOGICAL_AND, vj_un(&v, NT_OP_ISNAN, x), vj_un(&v, NT_OP_ISNAN, y));
    nt_tensor *hit = vj_bin(&v, NT_BINARY_LOGICAL_OR, vj_bin(&v, NT_BINARY_EQ, x, y), nan);
    nt_tensor *share = vj_div(&v, vj_unnamed(&v, G), vj_sum(&v, hit, 0, NULL, false));
    vj_give(&v, vj_where_s(&v, hit, share, 0.0), &gin[0]);
    return vj_end(&v);
}

/* g to the positions of the saved indices (result 1) along the dim in `dim_slot`; keep_slot
 * -1: the dim is kept (topk, cummax) */
static nt_status select_vjp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, int dim_slot,
                            int keep_slot) {
    const nt_tmeta *m = &n->in[0];
    vj v = VJ_INIT;
    if (m->ndim == 0) { /* one element: it is the one selected */
        vj_give(&v, G, &gin[0]);
        return vj_end(&v);
    }
    int d = 0;
    const nt_arg *a = &n->call.args[dim_slot];
    NT_TRY(nt_ag_resolve_dim(m, a->kind == NT_ARG_DIM ? a->v.dim : -1, &d));
    nt_tensor *g = vj_unnamed(&v, G), *idx = vj_unnamed(&v, nt_node_result(n, 1));
    if (keep_slot >= 0 && !keepdim_at(n, keep_slot)) {
        g = vj_unsqueeze(&v, g, d);
        idx = vj_unsqueeze(&v, idx, d);
    }
    vj_give(&v, vj_scatter_dim(&v, g, idx, d, m->sizes[d]), &gin[0]);
    return vj_end(&v);
}

/* max/min/median/mode(self, dim, keepdim) */
nt_status nt_vjp_select_dim(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return select_vjp(n, gout, gin, 1, 2);
}
/* kthvalue(self, k, dim, keepdim) */
nt_status nt_vjp_kthvalue(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return select_vjp(n, gout, gin, 2, 3);
}
/* topk(self, k, dim, largest, sorted) */
nt_status nt_vjp_topk(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return select_vjp(n, gout, gin, 2, -1);
}
/* sort(self, dim, descending): g to where each value came from */
nt_status nt_vjp_sort(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return select_vjp(n, gout, gin, 1, -1);
}
/* cummax/cummin(self, dim): g to where each running extreme was reached, summed */
nt_status nt_vjp_cumextreme(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return select_vjp(n, gout, gin, 1, -1);
}
