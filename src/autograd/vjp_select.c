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

nt_tensor *vj_gather(vj *v, nt_tensor *a, int64_t dim, nt_tensor *index) {
    VJ_STEP(nt_gather(a, dim, index, &out));
}
nt_tensor *vj_scatter_add(vj *v, nt_tensor *base, int64_t dim, nt_tensor *index, nt_tensor *src) {
    VJ_STEP(nt_scatter_add(base, dim, index, src, &out));
}
nt_tensor *vj_scatter_value(vj *v, nt_tensor *a, int64_t dim, nt_tensor *index, double value) {
    VJ_STEP(nt_scatter_value(a, dim, index, nt_scalar_float(value), NULL, &out));
}
nt_tensor *vj_index_select(vj *v, nt_tensor *a, int64_t dim, nt_tensor *index) {
    VJ_STEP(nt_index_select(a, dim, index, &out));
}
nt_tensor *vj_index_add(vj *v, nt_tensor *base, int64_t dim, nt_tensor *index, nt_tensor *src) {
    VJ_STEP(nt_index_add(base, dim, index, src, nt_scalar_int(1), &out));
}

/* zeros of g's shape but n along dim, with g added at idx: one scatter_add, O(g's size) */
nt_tensor *vj_scatter_dim(vj *v, nt_tensor *g, nt_tensor *idx, int64_t dim, int64_t n) {
    if (!vj_ok(v)) return NULL;
    g = vj_unnamed(v, g);
    if (!g) return NULL;
    int64_t sizes[NT_MAX_DIMS];
    for (int d = 0; d < g->ndim; d++)
        sizes[d] = d == dim ? n : g->sizes[d];
    nt_tmeta m = {.dtype = g->dtype, .ndim = g->ndim, .sizes = sizes, .names = NULL};
    return vj_scatter_add(v, vj_zeros(v, &m), dim, vj_unnamed(v, idx), g);
}
