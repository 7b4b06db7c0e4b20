/*
 * nn.h — what the neural-network ops (activation.c, layer_norm.c, embedding.c, loss.c,
 * linalg_linear.c) share with the other families (layer L4).
 */
#ifndef NT_OPS_NN_H
#define NT_OPS_NN_H

#include "iter/iter.h"
#include "ops/op_table.h"

/* unary.c's runner: op row `row` with `loops` (by compute dtype) and their ctx, on t into a
 * new tensor or `out` (out=); PyTorch's checks of a unary op, names kept. */
nt_status nt_unary_run(const nt_op_row *row, const nt_loop2d *loops, nt_tensor *t, nt_tensor *out,
                       const void *ctx, nt_tensor **result);

/* gelu's approximate= argument (NULL: 'none') as 0 ('none') or 1 ('tanh'), with PyTorch's
 * error for any other string. */
nt_status nt_gelu_approximate(const char *s, int *out);

/* The row count and length of `ndim` trailing dims of t: layer_norm's M x N split, after its
 * checks of normalized_shape against input, weight and bias (PyTorch's texts and order). */
nt_status nt_layer_norm_check(const nt_tensor *input, int nshape, const int64_t *shape,
                              const nt_tensor *weight, const nt_tensor *bias, int64_t *rows,
                              int64_t *cols);

#endif
