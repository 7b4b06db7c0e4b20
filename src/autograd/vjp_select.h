/*
 * vjp_select.h — more expression helpers (vjp.h) for the formulas of reductions, scans,
 * order statistics, pooling and distances: the reductions and scans as steps, and the
 * scatter of a gradient to chosen positions.
 *
 * The library has no scatter/gather op, so a gradient goes to the positions an index tensor
 * names through a one-hot comparison with arange (vj_scatter_dim): recorded ops, so the result is
 * differentiable again (create_graph), at the cost of a temporary of (index count x positions)
 * elements per row.
 */
#ifndef NT_AUTOGRAD_VJP_SELECT_H
#define NT_AUTOGRAD_VJP_SELECT_H

#include "vjp.h"

/* reductions over `count` dims (count 0: every dim), as the public ops */
nt_tensor *vj_prod(vj *v, nt_tensor *a, int count, const nt_dim *dims, bool keepdim);
nt_tensor *vj_mean(vj *v, nt_tensor *a, int count, const nt_dim *dims, bool keepdim);
/* scans along dim */
nt_tensor *vj_cumsum(vj *v, nt_tensor *a, int64_t dim);
nt_tensor *vj_cumprod(vj *v, nt_tensor *a, int64_t dim);
/* sum over j >= i along dim: sum(a) - cumsum(a) + a */
nt_tensor *vj_revcumsum(vj *v, nt_tensor *a, int64_t dim);
/* int64 0, 1, ..., n - 1 */
nt_tensor *vj_arange(vj *v, int64_t n);
/* a as a bool, by a comparison with a scalar: a op s */
nt_tensor *vj_cmp(vj *v, nt_binary_op op, nt_tensor *a, double s);

/* g (unnamed, size k along dim) sent to the positions idx (the same shape, int64) along dim
 * of a tensor with size n there, gradients that meet at one position summed: the scatter_add
 * of PyTorch's value-selecting and cummax formulas. */
nt_tensor *vj_scatter_dim(vj *v, nt_tensor *g, nt_tensor *idx, int64_t dim, int64_t n);
#endif
