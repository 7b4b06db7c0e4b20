/*
 * vjp_select.h — more expression helpers (vjp.h) for the formulas of reductions, scans,
 * order statistics, pooling and distances: the reductions and scans as steps, and the
 * scatter of a gradient to chosen positions.
 *
 * A gradient goes to the positions an index tensor names through scatter_add (vj_scatter_dim):
 * a recorded op, so the result is differentiable again (create_graph), in time and memory of
 * the size of the gradient and its input.
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

/* the index ops as steps (gather, scatter_add, scatter of a value, index_select, index_add
 * with alpha 1) */
nt_tensor *vj_gather(vj *v, nt_tensor *a, int64_t dim, nt_tensor *index);
nt_tensor *vj_scatter_add(vj *v, nt_tensor *base, int64_t dim, nt_tensor *index, nt_tensor *src);
nt_tensor *vj_scatter_value(vj *v, nt_tensor *a, int64_t dim, nt_tensor *index, double value);
nt_tensor *vj_index_select(vj *v, nt_tensor *a, int64_t dim, nt_tensor *index);
nt_tensor *vj_index_add(vj *v, nt_tensor *base, int64_t dim, nt_tensor *index, nt_tensor *src);

/* g (size k along dim) sent to the positions idx (the same shape, int64) along dim
 * of a tensor with size n there, gradients that meet at one position summed: the scatter_add
 * of PyTorch's value-selecting and cummax formulas. */
nt_tensor *vj_scatter_dim(vj *v, nt_tensor *g, nt_tensor *idx, int64_t dim, int64_t n);
#endif
