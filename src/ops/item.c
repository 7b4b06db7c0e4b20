/*
 * item.c — a tensor's one value as a truth: is_nonzero (bool(t) in Python), with PyTorch's
 * errors for a tensor of no or several values (layer L4).
 */
#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "ops/factory_call.h"

nt_status nt_impl_is_nonzero(nt_call *c) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("is_nonzero", "input");
    if (t->numel == 0)
        return nt_fail(NT_ERR_RUNTIME, "Boolean value of Tensor with no values is ambiguous");
    if (t->numel > 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "Boolean value of Tensor with more than one value is ambiguous");
    /* NaN is true, -0.0 false: a compare with zero in the element's own kind */
    nt_scalar v = nt_load_scalar(nt_tensor_bytes(t), t->dtype);
    c->value = nt_scalar_bool(v.kind == NT_SCALAR_FLOAT ? v.v.f != 0.0
                              : v.kind == NT_SCALAR_INT ? v.v.i != 0
                                                        : v.v.b);
    return NT_OK;
}

nt_status nt_is_nonzero(const nt_tensor *t, bool *out) {
    if (!t) return nt_fail_null_tensor("is_nonzero", "input");
    if (!out) return nt_fail(NT_ERR_VALUE, "is_nonzero(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_IS_NONZERO);
    c.args[0] = nt_arg_tensor((nt_tensor *)t);
    NT_TRY(nt_dispatch(&c));
    *out = c.value.v.b;
    return NT_OK;
}
