/*
 * to_dtype.c — conversions to a dtype (layer L4): nt_to_dtype (to(dtype); its row function
 * is copy.c's, beside clone, with which it shares the converting copy) and the conversion
 * methods t.float(), t.double(), ..., t.bool(): one row each, their dtype from the table
 * below. The input itself comes back when it already has the dtype.
 */
#include "core/status.h"
#include "core/tensor.h"
#include "ops/factory_call.h"

/* The dtype of each conversion method, by op (0: not one; else the dtype + 1). */
static const uint8_t method_dtype[NT_OP_COUNT] = {
    [NT_OP_TO_FLOAT] = NT_FLOAT32 + 1, [NT_OP_TO_DOUBLE] = NT_FLOAT64 + 1,
    [NT_OP_TO_HALF] = NT_FLOAT16 + 1,  [NT_OP_TO_BFLOAT16] = NT_BFLOAT16 + 1,
    [NT_OP_TO_INT] = NT_INT32 + 1,     [NT_OP_TO_LONG] = NT_INT64 + 1,
    [NT_OP_TO_SHORT] = NT_INT16 + 1,   [NT_OP_TO_CHAR] = NT_INT8 + 1,
    [NT_OP_TO_BYTE] = NT_UINT8 + 1,    [NT_OP_TO_BOOL] = NT_BOOL + 1,
};

nt_status nt_impl_to_method(nt_call *c) {
    c->args[1] = nt_arg_dtype((int)method_dtype[c->op] - 1);
    return nt_impl_to_dtype(c);
}

nt_status nt_to_dtype(nt_tensor *t, nt_dtype dtype, nt_tensor **out) {
    if (!t) return nt_fail_null_tensor("to", "self");
    if (!out) return nt_fail(NT_ERR_VALUE, "to(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_TO_DTYPE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dtype_given(dtype);
    return nt_dispatch_result(&c, out);
}
