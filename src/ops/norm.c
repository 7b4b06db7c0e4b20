/*
 * norm.c — torch.norm(input, p, dim, keepdim, dtype) (layer L4): the p-norm over dims,
 * written with public ops, so autograd records it as those ops (its row in derivatives.c is
 * composite) and the reductions' names, dims by name and fixed summation order hold:
 *
 *     p = 2: sqrt(sum(x * x))      p = 1: sum(|x|)        p = +-inf: amax / amin(|x|)
 *     p = 0: sum(x != 0)           else: sum(|x|^p)^(1/p)
 *
 * One difference from PyTorch's own backward: the gradient of the 2-norm of an all-zero
 * slice is NaN here (sqrt's), 0 in PyTorch (docs/decisions_ops_everyday.md).
 */
#include <math.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "factory_call.h"
#include "op_table.h"
#include "out.h"

typedef struct norm_args {
    double p;
    int count;
    const nt_dim *dims;
    bool keepdim;
} norm_args;

/* |x|^p summed over the dims, then the 1/p-th root, or the cases of p that need no powers */
static nt_status norm_of(nt_tensor *x, const norm_args *a, nt_tensor **out) {
    nt_tensor *t1 = NULL, *t2 = NULL;
    double p = a->p;
    nt_status st = NT_OK;
    if (p == 2.0) {
        st = nt_mul(x, x, &t1);
        if (st == NT_OK) st = nt_sum(t1, a->count, a->dims, a->keepdim, -1, &t2);
        if (st == NT_OK) st = nt_sqrt(t2, out);
    } else if (p == 0.0) {
        st = nt_binary_scalar(NT_BINARY_NE, x, nt_scalar_int(0), &t1);
        if (st == NT_OK) st = nt_sum(t1, a->count, a->dims, a->keepdim, (int)x->dtype, out);
    } else {
        st = nt_abs(x, &t1);
        if (st == NT_OK && p == 1.0)
            st = nt_sum(t1, a->count, a->dims, a->keepdim, -1, out);
        else if (st == NT_OK && isinf(p))
            st = (p > 0 ? nt_amax : nt_amin)(t1, a->count, a->dims, a->keepdim, out);
        else if (st == NT_OK) {
            nt_tensor *t3 = NULL;
            st = nt_binary_scalar(NT_BINARY_POW, t1, nt_scalar_float(p), &t2);
            if (st == NT_OK) st = nt_sum(t2, a->count, a->dims, a->keepdim, -1, &t3);
            if (st == NT_OK)
                st = nt_binary_scalar(NT_BINARY_POW, t3, nt_scalar_float(1.0 / p), out);
            nt_tensor_release(t3);
        }
    }
    nt_tensor_release(t1);
    nt_tensor_release(t2);
    return st;
}

/* p as a string (torch.norm's): 'fro' is the 2-norm, over all dims or at most two; 'nuc' (the
 * sum of singular values) needs an SVD, which ntensor does not have */
static nt_status norm_string(const nt_call *c) {
    const char *p = c->args[1].v.str;
    int count = c->args[2].kind == NT_ARG_DIMS ? c->args[2].n : 0;
    if (strcmp(p, "fro") == 0) {
        if (count > 2)
            return nt_fail(NT_ERR_RUNTIME,
                           "Expected at most 2 dimensions, but got %d dimensions "
                           "instead.",
                           count);
        return NT_OK;
    }
    if (strcmp(p, "nuc") == 0)
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "norm(): p='nuc' (the nuclear norm) needs a singular value decomposition, "
                       "which ntensor does not have");
    return nt_fail(NT_ERR_RUNTIME, "only valid string values are 'fro' and 'nuc', found %s", p);
}

/* slots: self, p, dim, keepdim, dtype */
nt_status nt_impl_norm(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *x = NULL, *r = NULL;
    if (c->args[1].kind == NT_ARG_STR) NT_TRY(norm_string(c));
    norm_args a = {
        .p = c->args[1].kind == NT_ARG_SCALAR ? nt_scalar_to_f64(c->args[1].v.s) : 2.0,
        .count = c->args[2].kind == NT_ARG_DIMS ? c->args[2].n : 0,
        .dims = c->args[2].kind == NT_ARG_DIMS ? c->args[2].v.dims : NULL,
        .keepdim = c->args[3].kind == NT_ARG_BOOL && c->args[3].v.b,
    };
    nt_dtype dtype = c->args[4].kind == NT_ARG_DTYPE ? c->args[4].v.dtype : t->dtype;
    if (!nt_dtype_is_floating(dtype))
        return nt_fail(NT_ERR_RUNTIME,
                       "norm(): input dtype should be either floating point or complex. Got %s "
                       "instead.",
                       nt_dtype_torch_name(dtype));
    /* float16 and bfloat16 are computed in float32, as PyTorch's accumulate type, and
     * rounded once */
    bool half = dtype == NT_FLOAT16 || dtype == NT_BFLOAT16;
    nt_dtype compute = half ? NT_FLOAT32 : dtype;
    nt_tensor *wide = NULL;
    nt_status st = compute == t->dtype ? NT_OK : nt_to_dtype(t, compute, &x);
    if (st == NT_OK) st = norm_of(x ? x : t, &a, half ? &wide : &r);
    if (st == NT_OK && half) st = nt_to_dtype(wide, dtype, &r);
    nt_tensor_release(x);
    nt_tensor_release(wide);
    return st == NT_OK ? nt_out_deliver(c, r) : st;
}

nt_status nt_norm(nt_tensor *t, double p, int count, const nt_dim *dims, bool keepdim, int dtype,
                  nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_NORM);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_scalar(nt_scalar_float(p));
    c.args[2] = count > 0 ? nt_arg_dims(count, dims) : nt_arg_none();
    c.args[3] = nt_arg_bool(keepdim);
    c.args[4] = nt_arg_dtype(dtype);
    return nt_dispatch_result(&c, out);
}
