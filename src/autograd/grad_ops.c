/*
 * grad_ops.c — the ops of the autograd layer itself: requires_grad_ and detach_.
 */
#include "autograd.h"
#include "core/status.h"
#include "dispatch/dispatch.h"

/* t.requires_grad_(requires_grad=True): t itself, marked (a leaf) */
nt_status nt_impl_requires_grad_(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("requires_grad_", "self");
    bool want = c->args[1].kind != NT_ARG_BOOL || c->args[1].v.b;
    if (want && !nt_dtype_is_floating(t->dtype)) /* PyTorch's text here */
        return nt_fail(NT_ERR_RUNTIME,
                       "only Tensors of floating point dtype can require gradients");
    NT_TRY(nt_set_requires_grad(t, want));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

/* t.detach_(): t itself, cut from its history (a leaf that does not require grad) */
nt_status nt_impl_detach_(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("detach_", "self");
    if (t->ag && t->ag->base && nt_ag_requires(t->ag->base))
        return nt_fail(NT_ERR_RUNTIME,
                       "Can't detach views in-place. Use detach() instead. If you are using "
                       "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view "
                       "is set as True, gradients are views of DDP buckets, and hence detach_() "
                       "cannot be called on these gradients. To fix this error, please refer to "
                       "the Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
                       "solution.");
    nt_ag_detach(t);
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}
