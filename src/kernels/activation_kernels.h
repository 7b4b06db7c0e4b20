/*
 * activation_kernels.h — the loops of gelu and silu and of their backward ops (layer L3),
 * by compute dtype (float32, float64, bfloat16 computed in float; NULL elsewhere).
 *
 *   gelu, 'none':  x/2 (1 + erf(x / sqrt 2))
 *   gelu, 'tanh':  x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 *   silu:          x / (1 + exp(-x))
 * and the backward ops grad_output * f'(x), PyTorch's formulas (GeluBackwardKernelImpl,
 * silu_backward). Transcendentals go through SLEEF's vector functions (sleef_loops.h) a
 * chunk at a time. Forward loops: operand 0 = out, 1 = x; backward: 0 = grad_input,
 * 1 = grad_output, 2 = x. They never fail and never allocate.
 */
#ifndef NT_KERNELS_ACTIVATION_KERNELS_H
#define NT_KERNELS_ACTIVATION_KERNELS_H

#include "core/dtype.h"
#include "iter/iter.h"

/* [approximate: 0 'none', 1 'tanh'][compute dtype] */
extern const nt_loop2d nt_gelu_loops[2][NT_DTYPE_COUNT];
extern const nt_loop2d nt_gelu_backward_loops[2][NT_DTYPE_COUNT];
extern const nt_loop2d nt_silu_loops[NT_DTYPE_COUNT];
extern const nt_loop2d nt_silu_backward_loops[NT_DTYPE_COUNT];

#endif
