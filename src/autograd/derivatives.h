/*
 * derivatives.h — the backward formulas the vjp table (derivatives.c) names, by family:
 * derivatives_pointwise.c, derivatives_reduce.c, derivatives_linalg.c, derivatives_shape.c,
 * derivatives_select.c, derivatives_scan.c, derivatives_pool.c, derivatives_gather.c.
 */
#ifndef NT_AUTOGRAD_DERIVATIVES_H
#define NT_AUTOGRAD_DERIVATIVES_H

#include "core/status.h"
#include "vjp.h"

#define NT_VJP(name) nt_status name(nt_node *n, nt_tensor *const *gout, nt_tensor **gin)

/* pointwise */
NT_VJP(nt_vjp_identity); /* the gradient passes unchanged (names, dtype, layout ops) */
NT_VJP(nt_vjp_zero);     /* a zero gradient (floor, round, sign, ...) */
NT_VJP(nt_vjp_neg);
NT_VJP(nt_vjp_abs);
NT_VJP(nt_vjp_exp);
NT_VJP(nt_vjp_expm1);
NT_VJP(nt_vjp_log);
NT_VJP(nt_vjp_log2);
NT_VJP(nt_vjp_log10);
NT_VJP(nt_vjp_log1p);
NT_VJP(nt_vjp_sqrt);
NT_VJP(nt_vjp_rsqrt);
NT_VJP(nt_vjp_reciprocal);
NT_VJP(nt_vjp_sin);
NT_VJP(nt_vjp_cos);
NT_VJP(nt_vjp_tan);
NT_VJP(nt_vjp_sinh);
NT_VJP(nt_vjp_cosh);
NT_VJP(nt_vjp_tanh);
NT_VJP(nt_vjp_sigmoid);
NT_VJP(nt_vjp_asin);
NT_VJP(nt_vjp_acos);
NT_VJP(nt_vjp_atan);
NT_VJP(nt_vjp_erf);
NT_VJP(nt_vjp_erfc);
NT_VJP(nt_vjp_erfinv);
NT_VJP(nt_vjp_relu);
NT_VJP(nt_vjp_lgamma);
NT_VJP(nt_vjp_digamma);
NT_VJP(nt_vjp_polygamma);
NT_VJP(nt_vjp_add);
NT_VJP(nt_vjp_sub);
NT_VJP(nt_vjp_mul);
NT_VJP(nt_vjp_div);
NT_VJP(nt_vjp_div_rounding);
NT_VJP(nt_vjp_not_implemented); /* recorded, fails in backward as PyTorch's */
NT_VJP(nt_vjp_pow);
NT_VJP(nt_vjp_atan2);
NT_VJP(nt_vjp_maximum);
NT_VJP(nt_vjp_minimum);
NT_VJP(nt_vjp_remainder);
NT_VJP(nt_vjp_fmod);
NT_VJP(nt_vjp_where);
NT_VJP(nt_vjp_where_method);
NT_VJP(nt_vjp_clamp);
NT_VJP(nt_vjp_clamp_min);
NT_VJP(nt_vjp_clamp_max);
NT_VJP(nt_vjp_threshold);
NT_VJP(nt_vjp_addcmul);
NT_VJP(nt_vjp_addcdiv);
NT_VJP(nt_vjp_lerp);

/* reductions and softmax */
NT_VJP(nt_vjp_sum);
NT_VJP(nt_vjp_mean);
NT_VJP(nt_vjp_logsumexp);
NT_VJP(nt_vjp_softmax);
NT_VJP(nt_vjp_log_softmax);
NT_VJP(nt_vjp_prod);
NT_VJP(nt_vjp_var);
NT_VJP(nt_vjp_std);
NT_VJP(nt_vjp_var_mean);
NT_VJP(nt_vjp_std_mean);

/* selecting reductions, scans, pooling, distances (derivatives_select.c, derivatives_scan.c,
 * derivatives_pool.c) */
NT_VJP(nt_vjp_amax);       /* amax, amin */
NT_VJP(nt_vjp_evenly);     /* max(), min(), median() */
NT_VJP(nt_vjp_select_dim); /* max/min/median/mode along a dim */
NT_VJP(nt_vjp_kthvalue);
NT_VJP(nt_vjp_topk);
NT_VJP(nt_vjp_sort);
NT_VJP(nt_vjp_cumextreme); /* cummax, cummin */
NT_VJP(nt_vjp_cumsum);
NT_VJP(nt_vjp_cumprod);
NT_VJP(nt_vjp_logcumsumexp);
NT_VJP(nt_vjp_max_pool); /* max_pool1d/2d/3d and the _with_indices forms */
NT_VJP(nt_vjp_cdist);
NT_VJP(nt_vjp_pdist);

/* matrix products */
NT_VJP(nt_vjp_matmul); /* mm, mv, dot, bmm, matmul */
NT_VJP(nt_vjp_addmm);  /* addmm, addmv */

/* neural-network ops (derivatives_nn.c) */
NT_VJP(nt_vjp_gelu);
NT_VJP(nt_vjp_silu);
NT_VJP(nt_vjp_layer_norm);
NT_VJP(nt_vjp_embedding);
NT_VJP(nt_vjp_nll_loss);
NT_VJP(nt_vjp_linear);

/* views, names, joins, masks */
NT_VJP(nt_vjp_reshape);
NT_VJP(nt_vjp_rename);
NT_VJP(nt_vjp_transpose);
NT_VJP(nt_vjp_t);
NT_VJP(nt_vjp_permute);
NT_VJP(nt_vjp_flip);
NT_VJP(nt_vjp_triangle);
NT_VJP(nt_vjp_diag_embed);
NT_VJP(nt_vjp_align);
NT_VJP(nt_vjp_select);
NT_VJP(nt_vjp_narrow);
NT_VJP(nt_vjp_masked_fill);
NT_VJP(nt_vjp_cat);
NT_VJP(nt_vjp_stack);
NT_VJP(nt_vjp_split);
NT_VJP(nt_vjp_unbind);
NT_VJP(nt_vjp_diagonal);
NT_VJP(nt_vjp_narrow_tensor);
NT_VJP(nt_vjp_movedim);
NT_VJP(nt_vjp_unfold);
NT_VJP(nt_vjp_as_strided); /* reads the input's geometry: .geometry */

/* indexing and writes (derivatives_index.c) */
NT_VJP(nt_vjp_index);
NT_VJP(nt_vjp_index_put);
NT_VJP(nt_vjp_index_fill);
NT_VJP(nt_vjp_masked_select);
/* derivatives_gather.c */
NT_VJP(nt_vjp_gather);
NT_VJP(nt_vjp_scatter);
NT_VJP(nt_vjp_index_select);
NT_VJP(nt_vjp_index_add);
NT_VJP(nt_vjp_take_along_dim);
NT_VJP(nt_vjp_masked_scatter);
NT_VJP(nt_vjp_copy);
NT_VJP(nt_vjp_fill); /* fill_, zero_ */
/* the rows named by the form called (nt_vjp_row.pick) */
const nt_vjp_row *nt_vjp_pick_index(const nt_call *c);
const nt_vjp_row *nt_vjp_pick_index_put(const nt_call *c);
const nt_vjp_row *nt_vjp_pick_fill(const nt_call *c);

/* helpers shared by the families */
/* Resolves a dim (index or name) against recorded metadata. */
nt_status nt_ag_resolve_dim(const nt_tmeta *m, nt_dim d, int *out);
/* The dims a reduction reduced (slot: its Dim[]? or Dim argument) as a bit mask. */
nt_status nt_ag_reduced_mask(const nt_node *n, int slot, uint64_t *mask);
/* A reduction's gradient spread back over input 0's shape (unnamed). */
nt_tensor *vj_unreduce(vj *v, const nt_node *n, nt_tensor *g, uint64_t mask, bool keepdim);

/* composite forms: ops recorded as the ops they are made of */
nt_status nt_composite_dropout(nt_call *c);
/* an op whose impl is written with public ops (roll, repeat, triu, outer, ...), run with grad
 * mode on so that those ops record themselves */
nt_status nt_composite_ops(nt_call *c);

#endif
