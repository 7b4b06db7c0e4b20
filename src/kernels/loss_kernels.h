/*
 * loss_kernels.h — nll_loss's loops (layer L3). The input is (N, C, S) contiguous (S the
 * product of the dims after the class dim, 1 for (N, C) and (C) inputs), the target (N, S)
 * contiguous int64 or uint8, checked in range by the ops layer. Element type float32,
 * float64 or bfloat16; sums in float64 in order. They never fail and never allocate.
 */
#ifndef NT_KERNELS_LOSS_KERNELS_H
#define NT_KERNELS_LOSS_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"

typedef struct nt_nll_args {
    nt_dtype dtype;     /* of input, weight, out */
    const void *input;  /* (N, C, S) */
    const void *target; /* (N, S) */
    bool target_u8;     /* uint8 targets, else int64 */
    const void *weight; /* (C) or NULL */
    int64_t n, c, s;
    int64_t ignore_index;
} nt_nll_args;

/* The target at position i. */
static inline int64_t nt_nll_target(const nt_nll_args *a, int64_t i) {
    return a->target_u8 ? (int64_t)((const uint8_t *)a->target)[i]
                        : ((const int64_t *)a->target)[i];
}

/* Reduction none: out[i] = -w[t] x[n, t, s] (0 where t is ignore_index), i = n * S + s. */
void nt_nll_none_kernel(const nt_nll_args *a, void *out);

/* The sums of -w[t] x[n, t, s] and of w[t] over the targets not ignored. */
void nt_nll_sums_kernel(const nt_nll_args *a, double *loss, double *total_weight);

/* grad_input (N, C, S, zeroed by the caller)[n, t, s] = -w[t] * g_i, g_i = grad[i] when
 * `per_element` (reduction none), else scale (grad / total_weight, or grad). */
void nt_nll_backward_kernel(const nt_nll_args *a, void *grad_input, const void *grad,
                            bool per_element, double scale);

#endif
