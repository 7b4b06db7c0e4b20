/*
 * optim_kernels.h — the element updates of the fused optimizer steps (layer L3), for
 * ops/optim.c: one SGD or Adam step of one parameter, all its elements, in place.
 *
 * Each element follows PyTorch 1.13's single-tensor formula (torch/optim/sgd.py, adam.py,
 * adamw.py with foreach=False) op by op, in the same order and with the same roundings:
 * a Python float meets a float32 tensor as a float32 (PyTorch casts the scalar to the
 * element type), `a.add_(b, alpha=s)` is fma(b, s, a) and `a.addcmul_(b, c, value=s)` is
 * fma(s * b, c, a) as PyTorch's vectorised CPU kernels compute them, so float32 and float64
 * results agree with torch.optim to the bit. float16 and bfloat16 elements compute in float32
 * and round once when stored (PyTorch rounds after each of its ops).
 *
 * The loops are nt_loop2d functions (iter/iter.h) over the operands listed below, so a
 * strided parameter goes through the iterator, a large contiguous one through
 * nt_optim_run_flat, small ones (ops/optim.c splits a group by parameter) call them directly.
 * Never fail, never allocate.
 */
#ifndef NT_KERNELS_OPTIM_KERNELS_H
#define NT_KERNELS_OPTIM_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"

/* How an SGD step treats the momentum buffer. */
typedef enum nt_sgd_mode {
    NT_SGD_PLAIN,   /* momentum 0: no buffer */
    NT_SGD_FIRST,   /* the first step: buf = d_p (PyTorch's clone) */
    NT_SGD_RUNNING, /* buf = buf * momentum + (1 - dampening) * d_p */
} nt_sgd_mode;

/* One SGD step's constants, as the caller's doubles (the loops round them to the compute
 * type, as PyTorch does). Operands: param, [buf], grad (buf absent in NT_SGD_PLAIN). */
typedef struct nt_sgd_consts {
    double lr, momentum, dampening, weight_decay;
    bool nesterov, maximize;
    nt_sgd_mode mode;
} nt_sgd_consts;

/* One Adam step's constants for one parameter (its own step count). Operands: param,
 * exp_avg, exp_avg_sq, [max_exp_avg_sq when amsgrad], grad. */
typedef struct nt_adam_consts {
    double lr, beta1, beta2, weight_decay, eps;
    double step; /* the step count after this step's increment */
    bool amsgrad, maximize;
    bool decoupled; /* AdamW: param *= 1 - lr * weight_decay, no decay in the gradient */
} nt_adam_consts;

/* The number of operands of a step (outputs first, the grad last). */
static inline int nt_sgd_nops(const nt_sgd_consts *k) {
    return k->mode == NT_SGD_PLAIN ? 2 : 3;
}
static inline int nt_adam_nops(const nt_adam_consts *k) {
    return k->amsgrad ? 5 : 4;
}

/* The 2-D loops (ctx: the consts), by dtype: NULL for dtypes other than float16, bfloat16,
 * float32 and float64. */
typedef void (*nt_optim_loop)(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                              void *ctx);
extern const nt_optim_loop nt_sgd_loops[NT_DTYPE_COUNT];
extern const nt_optim_loop nt_adam_loops[NT_DTYPE_COUNT];

/* Runs `loop` over n contiguous elements of every operand (data[k] each operand's first
 * element), in parallel when large (fixed chunks: the result does not depend on the thread
 * count, and elements are independent anyway). */
void nt_optim_run_flat(nt_optim_loop loop, int nops, char **data, nt_dtype dtype, int64_t n,
                       void *ctx);

#endif
