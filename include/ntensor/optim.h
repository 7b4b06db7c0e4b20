/**
 * @file
 * ntensor/optim.h — fused optimizer steps: one call updates every parameter of a group, and
 * the optimizer's state for it, in place (what ntensor.optim's SGD, Adam and AdamW run).
 *
 * The arrays are parallel: entry i of each belongs to params[i], with its shape, dtype
 * (float16, bfloat16, float32 or float64; the halves compute in float32) and names (a dim
 * named in both must carry one name). Each element follows PyTorch 1.13's single-tensor
 * formula (torch.optim with foreach=False) operation by operation, so float32 and float64
 * results agree with torch.optim to the last bit. The functions record nothing for autograd
 * and bump the version of every tensor they write. A call that fails changes nothing.
 * Each is one op of the op table (ntensor/call.h). Part of the public C API; include
 * <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_OPTIM_H
#define NTENSOR_OPTIM_H

#include "ntensor/call.h"
#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One SGD step (torch.optim.SGD): with momentum != 0, momentum_buffers (n tensors) are the
 * buffers, and is_first_step says they are new (PyTorch's buffer-is-None case: buf = d_p);
 * with momentum 0 they are not read (may be NULL). */
NT_API nt_status nt_fused_sgd_(int n, nt_tensor *const *params, nt_tensor *const *grads,
                               nt_tensor *const *momentum_buffers, double weight_decay,
                               double momentum, double lr, double dampening, bool nesterov,
                               bool maximize, bool is_first_step);

/** One Adam step (torch.optim.Adam): each parameter's state_steps[i], a one-element float
 * tensor (PyTorch keeps a float32 0-dim one), is incremented, and its value is that
 * parameter's step count. max_exp_avg_sqs non-NULL is amsgrad. */
NT_API nt_status nt_fused_adam_(int n, nt_tensor *const *params, nt_tensor *const *grads,
                                nt_tensor *const *exp_avgs, nt_tensor *const *exp_avg_sqs,
                                nt_tensor *const *max_exp_avg_sqs, nt_tensor *const *state_steps,
                                double lr, double beta1, double beta2, double weight_decay,
                                double eps, bool maximize);

/** The same with AdamW's decoupled weight decay (params *= 1 - lr * weight_decay). */
NT_API nt_status nt_fused_adamw_(int n, nt_tensor *const *params, nt_tensor *const *grads,
                                 nt_tensor *const *exp_avgs, nt_tensor *const *exp_avg_sqs,
                                 nt_tensor *const *max_exp_avg_sqs, nt_tensor *const *state_steps,
                                 double lr, double beta1, double beta2, double weight_decay,
                                 double eps, bool maximize);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_OPTIM_H */
