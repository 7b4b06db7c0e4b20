/**
 * @file
 * ntensor/nn.h — the neural-network operators: activations (gelu, silu), layer_norm,
 * embedding, nll_loss, linear, and the backward ops an autograd layer calls for them. Each
 * goes through the one dispatcher (ntensor/call.h: NT_OP_GELU, ...). Names: gelu, silu and
 * layer_norm keep their input's; embedding gives the indices' names then the weight's last;
 * nll_loss with reduction 0 (none) the target's; linear matmul's rule on (input, weight.T),
 * unified with the bias's (docs/name_inference.md). Part of the public C API; include
 * <ntensor.h>.
 */
#ifndef NTENSOR_NN_H
#define NTENSOR_NN_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** gelu(t, approximate): "none" (or NULL: the erf form) or "tanh". */
NT_API nt_status nt_gelu(nt_tensor *t, const char *approximate, nt_tensor **out);
/** grad_output * gelu'(self), the two broadcast. */
NT_API nt_status nt_gelu_backward(nt_tensor *grad_output, nt_tensor *self, const char *approximate,
                                  nt_tensor **out);
/** silu(t) = t * sigmoid(t), and grad_output * silu'(self). */
NT_API nt_status nt_silu(nt_tensor *t, nt_tensor **out);
/** grad_output * silu'(self). */
NT_API nt_status nt_silu_backward(nt_tensor *grad_output, nt_tensor *self, nt_tensor **out);

/** layer_norm over the last `nshape` dims of input (of sizes normalized_shape); weight and
 * bias (of those sizes) may be NULL. */
NT_API nt_status nt_layer_norm(nt_tensor *input, int nshape, const int64_t *normalized_shape,
                               nt_tensor *weight, nt_tensor *bias, double eps, nt_tensor **out);
/** grads[0..2] = the gradients of input, weight and bias (weight's and bias's computed even
 * when weight is NULL: they have normalized_shape). */
NT_API nt_status nt_layer_norm_backward(nt_tensor *grad_out, nt_tensor *input, int nshape,
                                        const int64_t *normalized_shape, nt_tensor *weight,
                                        double eps, nt_tensor **grads);

/** Rows of the 2-d weight gathered by int64 or int32 indices of any shape. */
NT_API nt_status nt_embedding(nt_tensor *weight, nt_tensor *indices, nt_tensor **out);
/** The weight's gradient (num_weights, d): grad_output's rows summed by index, skipping
 * padding_idx (-1: none), each scaled by 1 / its index's count when scale_grad_by_freq. */
NT_API nt_status nt_embedding_dense_backward(nt_tensor *grad_output, nt_tensor *indices,
                                             int64_t num_weights, int64_t padding_idx,
                                             bool scale_grad_by_freq, nt_tensor **out);

/** The negative log likelihood of log-probabilities input (N, C), (C) or (N, C, d1, ...) at
 * target (N), () or (N, d1, ...); weight (C) may be NULL; reduction 0 none, 1 mean, 2 sum;
 * targets equal to ignore_index count for nothing. */
NT_API nt_status nt_nll_loss(nt_tensor *input, nt_tensor *target, nt_tensor *weight,
                             int64_t reduction, int64_t ignore_index, nt_tensor **out);
/** Its gradient with respect to input; total_weight (the mean's divisor) may be NULL. */
NT_API nt_status nt_nll_loss_backward(nt_tensor *grad_output, nt_tensor *input, nt_tensor *target,
                                      nt_tensor *weight, int64_t reduction, int64_t ignore_index,
                                      nt_tensor *total_weight, nt_tensor **out);

/** input \@ weight.T + bias (bias may be NULL). */
NT_API nt_status nt_linear(nt_tensor *input, nt_tensor *weight, nt_tensor *bias, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_NN_H */
