/*
 * vjp_select.c — the expression helpers of vjp_select.h.
 */
#include "vjp_select.h"

#include "core/status.h"

/* skip when failed, run one public op, keep its result (as vjp.c's steps) */
#define VJ_STEP(call)                                                                              \
    nt_tensor *out = NULL;                                                                         \
    if (!vj_ok(v)) return NULL;                                                                    \
    nt_status st = (call);                                                                         \
    return vj_keep(v, st, out)

nt_tensor *vj_prod(vj *v, nt_tensor *a, int count, const nt_dim *dims, bool keepdim) {
    VJ_STEP(nt_prod(a, count, dims, keepdim, -1, &out));
}
nt_tensor *vj_mean(vj *v, nt_tensor *a, int count, const nt_dim *dims, bool keepdim) {
    VJ_STEP(nt_mean(a, count, dims, keepdim, -1, &out));
}
nt_tensor *vj_cumsum(vj *v, nt_tensor *a, int64_t dim) {
    VJ_STEP(nt_cumsum(a, dim, -1, &out));
}
nt_tensor *vj_cumprod(vj *v, nt_tensor *a, int64_t dim) {
    VJ_STEP(nt_cumprod(a, dim, -1, &out));
}
nt_tensor *vj_arange(vj *v, int64_t n) {
    VJ_STEP(nt_arange(nt_scalar_int(0), nt_scalar_int(n), nt_scalar_int(1), NT_INT64, &out));
}
nt_tensor *vj_cmp(vj *v, nt_binary_op op, nt_tensor *a, double s) {
    return vj_bins(v, op, a, s);
}

nt_tensor *vj_revcumsum(vj *v, nt_tensor *a, int64_t dim) {
    nt_dim d = dim;
    return vj_add(v, vj_sub(v, vj_sum(v, a, 1, &d, true), vj_cumsum(v, a, dim)), a);
}

/* out[..., i, ...] = sum over j of g[..., j, ...] where idx[..., j, ...] == i: the pairs (j, i)
 * as a new dim after `dim`, compared with arange(n) there, then summed over j */
nt_tensor *vj_scatter_dim(vj *v, nt_tensor *g, nt_tensor *idx, int64_t dim, int64_t n) {
    if (!vj_ok(v)) return NULL;
    int ndim = g->ndim;
    int64_t sizes[NT_MAX_DIMS + 1];
    for (int d = 0; d <= ndim; d++)
        sizes[d] = d == dim + 1 ? n : 1;
    nt_tensor *positions = vj_reshape(v, vj_arange(v, n), ndim + 1, sizes);
    nt_tensor *hit =
        vj_bin(v, NT_BINARY_EQ, vj_unsqueeze(v, vj_unnamed(v, idx), dim + 1), positions);
    nt_tensor *spread = vj_where_s(v, hit, vj_unsqueeze(v, vj_unnamed(v, g), dim + 1), 0.0);
    nt_dim d = dim;
    return vj_sum(v, spread, 1, &d, false);
}
