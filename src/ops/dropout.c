/*
 * dropout.c — functional dropout and its in-place form (layer L4).
 *
 * PyTorch 1.13 computes dropout on the CPU as input * (bernoulli(1 - p) / (1 - p)): a noise
 * tensor, a division and a product, three passes and an allocation. Here it is one pass on
 * the block engine of iter/random.h: each element reads its own Philox word and becomes
 * x * scale or x * 0 (so NaN and infinities give NaN where dropped, as in PyTorch). The
 * scale is PyTorch's: 1 / (1 - p) rounded as the dtype divides, 1 and 1 - p being in the
 * dtype first. The result has the input's names and, for a dense input, its strides (the
 * elements are processed in memory order); a strided input is made contiguous first.
 *
 * What PyTorch does without randomness is kept exactly: training off, p = 0 or no elements
 * return the input itself; p = 1 multiplies by zero (integer inputs too); other p need a
 * float dtype other than float16, with PyTorch's errors.
 */
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "core/status.h"
#include "core/tensor.h"
#include "iter/iter.h"
#include "iter/random.h"
#include "kernels/random_kernels.h"
#include "ops/factory_call.h"

/* Runs dropout from the dense memory of x into the dense memory of y (same layout). */
static void run_dense(const nt_tensor *x, nt_tensor *y, double p) {
    int64_t n = x->numel;
    nt_dropout_job job = {.dtype = x->dtype, .x = nt_tensor_bytes(x), .y = nt_tensor_bytes(y)};
    if (p == 1.0) {
        nt_zero_times(x->dtype, job.x, job.y, n);
    } else {
        double q = 1.0 - p;
        double thr = floor(q * 4294967296.0 + 0.5); /* keep when w < thr; thr in [1, 2^32] */
        job.keep_max = thr >= 1.0 ? (uint32_t)(thr - 1.0) : 0;
        if (x->dtype == NT_FLOAT64) {
            job.scale_d = 1.0 / q;
        } else if (x->dtype == NT_FLOAT32) {
            job.scale_f = 1.0f / (float)q;
        } else { /* bfloat16: 1 / bf16(1 - p), rounded to bfloat16 */
            float qb = nt_bf16_to_f32(nt_f32_to_bf16((float)q));
            job.scale_f = nt_bf16_to_f32(nt_f32_to_bf16(1.0f / qb));
        }
        nt_random_run(n, 1, nt_dropout_block, &job);
    }
}

/* Validates p and the dtype; *identity is set when the input comes back unchanged. */
static nt_status check_dropout(const nt_tensor *t, double p, bool train, bool *identity) {
    if (!t) return nt_fail_null_tensor("dropout", "input");
    if (!(p >= 0.0 && p <= 1.0))
        return nt_fail(NT_ERR_VALUE, "dropout probability has to be between 0 and 1, but got %g",
                       p);
    *identity = p == 0.0 || !train || t->numel == 0;
    if (*identity || p == 1.0) return NT_OK;
    if (t->dtype == NT_FLOAT16)
        return nt_fail(NT_ERR_RUNTIME, "\"bernoulli_scalar_cpu_\" not implemented for 'Half'");
    if (nt_dtype_table[t->dtype].kind != NT_KIND_FLOAT)
        return nt_fail(NT_ERR_RUNTIME,
                       "result type Float can't be cast to the desired output "
                       "type %s",
                       nt_dtype_torch_name(t->dtype));
    return NT_OK;
}

/* A new tensor with t's sizes, strides (t is dense) and names, over fresh memory. */
static nt_status empty_same_layout(const nt_tensor *t, nt_tensor **out) {
    nt_tensor *flat = NULL;
    int64_t n = t->numel;
    NT_TRY(nt_tensor_alloc(t->dtype, 1, &n, NULL, &flat));
    nt_status st = nt_tensor_view_of(flat, t->ndim, t->sizes, t->strides, 0, t->names, out);
    nt_tensor_release(flat);
    return st;
}

static nt_status dropout(nt_tensor *input, double p, bool train, nt_tensor **out) {
    bool identity = false;
    NT_TRY(check_dropout(input, p, train, &identity));
    if (identity) {
        *out = nt_tensor_retain(input);
        return NT_OK;
    }
    nt_tensor *r = NULL;
    if (nt_is_non_overlapping_and_dense(input)) {
        NT_TRY(empty_same_layout(input, &r));
        run_dense(input, r, p);
    } else { /* a private contiguous copy, processed in place */
        NT_TRY(nt_clone(input, &r));
        run_dense(r, r, p);
    }
    *out = r;
    return NT_OK;
}

static nt_status dropout_(nt_tensor *t, double p, bool train) {
    bool identity = false;
    NT_TRY(check_dropout(t, p, train, &identity));
    if (identity) return NT_OK;
    NT_TRY(nt_check_no_internal_overlap(t));
    if (nt_is_non_overlapping_and_dense(t)) {
        run_dense(t, t, p);
        return NT_OK;
    }
    nt_tensor *tmp = NULL;
    NT_TRY(nt_clone(t, &tmp));
    run_dense(tmp, tmp, p);
    nt_status st = nt_copy_(t, tmp);
    nt_tensor_release(tmp);
    return st;
}

nt_status nt_impl_dropout(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    double p = c->args[1].v.f;
    bool train = c->args[2].v.b;
    if (!c->inplace) return dropout(t, p, train, &c->result[0]);
    NT_TRY(dropout_(t, p, train));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

static nt_status dropout_call(nt_tensor *t, double p, bool train, bool inplace, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_DROPOUT);
    c.inplace = inplace;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_float(p);
    c.args[2] = nt_arg_bool(train);
    return nt_dispatch_result(&c, out);
}

nt_status nt_dropout(nt_tensor *input, double p, bool train, nt_tensor **out) {
    if (!input) return nt_fail_null_tensor("dropout", "input");
    if (!out) return nt_fail(NT_ERR_VALUE, "dropout(): the output pointer is NULL");
    return dropout_call(input, p, train, false, out);
}

nt_status nt_dropout_(nt_tensor *t, double p, bool train) {
    if (!t) return nt_fail_null_tensor("dropout", "input");
    return dropout_call(t, p, train, true, NULL);
}
