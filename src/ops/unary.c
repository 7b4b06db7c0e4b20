/*
 * unary.c — the pointwise unary ops (layer L4): abs ... relu, round(decimals=), positive,
 * isnan/isinf/isfinite, lgamma, polygamma.
 *
 * Every op goes through run(): validate (PyTorch's checks in PyTorch's order: overlap of
 * the written tensor, names, shape, dtypes, then the kernel's dtype) -> pick the compute
 * dtype by the op's dtype rule (op table) -> allocate the result (empty_like: a dense
 * input's layout is kept, as PyTorch's memory_format=preserve does) -> nt_iter -> the op's
 * loop (kernels/unary_kernels.c). Public calls reach it through the dispatcher.
 * An input of another dtype than the compute dtype is converted first, and an out= tensor
 * of another dtype than the result's receives a converted copy: both are rare (integer
 * inputs of floating functions, out= of a wider type) and keep the loops single-typed.
 * Names: "keeps input names"; an out= tensor follows nt_names_check_out (infer.h).
 */
#include <math.h>
#include <stdbool.h>

#include "core/parallel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "iter/iter.h"
#include "kernels/unary_kernels.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/nn.h"
#include "ops/out.h"

/* The checks on a written tensor (out=, or self in place), in PyTorch's order; an out= of
 * another shape is resized (out.h). */
static nt_status check_out(const nt_op_row *row, const nt_tensor *t, nt_tensor *out,
                           nt_dtype compute) {
    NT_TRY(nt_check_no_internal_overlap(out));
    if (out != t) NT_TRY(nt_check_no_partial_overlap(out, t));
    switch (row->dtypes) {
    case NT_DT_SAME:
        if (out->dtype != t->dtype)
            return nt_fail(NT_ERR_RUNTIME, "Found dtype %s but expected %s",
                           nt_dtype_torch_name(out->dtype), nt_dtype_torch_name(t->dtype));
        break;
    case NT_DT_FLOAT:
        if (nt_dtype_table[out->dtype].kind != NT_KIND_FLOAT)
            return nt_fail(NT_ERR_RUNTIME,
                           "result type %s can't be cast to the desired output type %s",
                           nt_dtype_torch_name(compute), nt_dtype_torch_name(out->dtype));
        break;
    default:
        break;
    }
    if (out != t) NT_TRY(nt_out_resize(out, t->ndim, t->sizes));
    return nt_names_check_out(out->names, out->ndim, t->names, t->ndim);
}

/* Runs `loops` (by compute dtype) of op row `row` on t into out (NULL: a new tensor); ctx
 * goes to the loop. */
static nt_status run(const nt_op_row *row, const nt_loop2d *loops, nt_tensor *t, nt_tensor *out,
                     const void *ctx, nt_tensor **result) {
    if (!t) return nt_fail_null_tensor(row->name, "input");
    nt_dtype compute = t->dtype;
    if (row->dtypes == NT_DT_FLOAT && nt_dtype_table[compute].kind != NT_KIND_FLOAT)
        compute = nt_default_dtype();
    const nt_dtype rdtype = row->dtypes == NT_DT_BOOL ? NT_BOOL : compute;
    if (out) NT_TRY(check_out(row, t, out, compute));
    const nt_loop2d loop = loops[compute];
    if (!loop)
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", row->kernel,
                       nt_dtype_torch_name(compute));

    nt_status st = NT_OK;
    nt_tensor *in = t, *converted = NULL, *dst = out, *fresh = NULL;
    if (t->dtype != compute) {
        NT_CHECK(st, nt_to_dtype(t, compute, &converted));
        in = converted;
    }
    if (!out || out->dtype != rdtype) {
        NT_CHECK(st, nt_result_like(t, (int)rdtype, &fresh));
        dst = fresh;
    }
    if (in->is_contiguous && dst->is_contiguous && in->numel < NT_GRAIN_SIZE) {
        /* Small and flat (the common case of a per-call op): one row, no iterator. */
        char *data[2] = {nt_tensor_bytes(dst), nt_tensor_bytes(in)};
        const int64_t strides[4] = {(int64_t)nt_dtype_table[dst->dtype].size,
                                    (int64_t)nt_dtype_table[in->dtype].size, 0, 0};
        if (in->numel > 0) loop(data, strides, in->numel, 1, (void *)ctx);
    } else {
        nt_tensor *ops[2] = {dst, in};
        nt_iter_config cfg = nt_iter_defaults();
        cfg.check_mem_overlap = false; /* check_out did PyTorch's checks; fresh is private */
        nt_iter it;
        NT_CHECK(st, nt_iter_build(&it, 2, ops, &cfg));
        nt_iter_run(&it, loop, (void *)ctx);
    }
    if (out) {
        if (dst != out) NT_CHECK(st, nt_copy_(out, dst));
        if (!out->names && t->names) NT_CHECK(st, nt_tensor_set_names(out, t->names));
        *result = nt_tensor_retain(out);
    } else {
        *result = fresh;
        fresh = NULL;
    }
fail:
    nt_tensor_release(converted);
    nt_tensor_release(fresh);
    return st;
}

/* The tensor a call writes: self in place, the out= tensor, or none. */
static nt_tensor *written(const nt_call *c) {
    return c->inplace ? c->args[0].v.t : c->out[0];
}

nt_status nt_impl_unary(nt_call *c) {
    const nt_op_row *row = nt_op_row_of(c->op);
    return run(row, nt_unary_loops[c->op], nt_call_tensor(c, 0), written(c), NULL, &c->result[0]);
}

nt_status nt_impl_round_decimals(nt_call *c) {
    const nt_op_row *row = nt_op_row_of(c->op);
    int64_t decimals = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0;
    nt_tensor *t = nt_call_tensor(c, 0);
    if (decimals == 0) {
        /* round's own kernel name and loops, without its integer shortcut */
        nt_op_row r0 = *row;
        r0.kernel = "round_vml_cpu";
        return run(&r0, nt_round_decimals0_loops, t, written(c), NULL, &c->result[0]);
    }
    /* PyTorch: 10^|decimals| as a double, converted to the element type. */
    nt_round_ctx ctx;
    ctx.negative = decimals < 0;
    ctx.scale64 = pow(10.0, fabs((double)decimals)); /* -INT64_MIN would overflow */
    ctx.scale32 = (float)ctx.scale64;
    ctx.scale_bf16 = nt_bf16_to_f32(nt_f32_to_bf16(ctx.scale32));
    return run(row, nt_unary_loops[c->op], t, written(c), &ctx, &c->result[0]);
}

/* polygamma(n, self) (the function's and the method's rows): n = 0 is digamma, n = 1
 * trigamma, each with its own kernel name. */
nt_status nt_impl_polygamma(nt_call *c) {
    int64_t n = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0;
    if (n < 0) return nt_fail(NT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    nt_op_row r = *nt_op_row_of(NT_OP_POLYGAMMA);
    const nt_loop2d *loops = nt_unary_loops[NT_OP_POLYGAMMA];
    if (n == 0) {
        r.kernel = "digamma";
        loops = nt_unary_loops[NT_OP_DIGAMMA];
    } else if (n == 1) {
        r.kernel = "trigamma";
        loops = nt_trigamma_loops;
    }
    return run(&r, loops, nt_call_tensor(c, 0), written(c), &n, &c->result[0]);
}

nt_status nt_impl_positive(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("positive", "input");
    if (t->dtype == NT_BOOL)
        return nt_fail(NT_ERR_RUNTIME, "The `+` operator, on a bool tensor is not supported.");
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

nt_status nt_check_neg(const nt_call *c) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    if (t && t->dtype == NT_BOOL)
        return nt_fail(NT_ERR_RUNTIME,
                       "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                       "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    return NT_OK;
}

nt_status nt_check_relu(const nt_call *c) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    if (t && t->dtype == NT_BOOL)
        return nt_fail(NT_ERR_RUNTIME, "Boolean inputs not supported for relu");
    return NT_OK;
}

/* ------------------------------------------------------------------ the public functions */

static bool is_unary(nt_op op) {
    return (unsigned)op < NT_OP_COUNT && nt_op_rows[op].impl == nt_impl_unary;
}

/* A call of a unary row on t with its second slot (none, or decimals / n), into a new
 * tensor, `out`, or t itself (inplace); the result goes to *result (released if NULL). */
static nt_status unary_call(nt_op op, nt_tensor *t, nt_arg second, nt_tensor *out, bool inplace,
                            nt_tensor **result) {
    const char *name = nt_op_rows[op].name;
    if (!t) return nt_fail_null_tensor(name, inplace ? "self" : "input");
    if (inplace && out && out != t)
        return nt_fail(NT_ERR_VALUE, "%s_(): an in-place op takes no out tensor", name);
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.out[0] = inplace ? NULL : out;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = second;
    nt_status st = nt_dispatch(&c);
    if (st != NT_OK) return st;
    if (result)
        *result = c.result[0];
    else
        nt_tensor_release(c.result[0]);
    return NT_OK;
}

nt_status nt_unary_ex(nt_op op, nt_tensor *t, nt_tensor *out, bool inplace, nt_tensor **result) {
    if (!is_unary(op)) return nt_fail(NT_ERR_VALUE, "nt_unary_ex(): invalid op %d", (int)op);
    return unary_call(op, t, nt_arg_none(), out, inplace, result);
}

nt_status nt_unary(nt_op op, nt_tensor *t, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "nt_unary(): the output pointer is NULL");
    return nt_unary_ex(op, t, NULL, false, out);
}

nt_status nt_unary_(nt_op op, nt_tensor *t) {
    return nt_unary_ex(op, t, NULL, true, NULL);
}

nt_status nt_unary_out(nt_op op, nt_tensor *t, nt_tensor *out) {
    if (!out) return nt_fail_null_tensor(is_unary(op) ? nt_op_rows[op].name : "unary", "out");
    return nt_unary_ex(op, t, out, false, NULL);
}

nt_status nt_round_decimals(nt_tensor *t, int64_t decimals, nt_tensor *out, bool inplace,
                            nt_tensor **result) {
    return unary_call(NT_OP_ROUND_DECIMALS, t, nt_arg_int(decimals), out, inplace, result);
}

nt_status nt_polygamma(int64_t n, nt_tensor *t, nt_tensor *out, bool inplace, nt_tensor **result) {
    return unary_call(NT_OP_POLYGAMMA, t, nt_arg_int(n), out, inplace, result);
}

nt_status nt_positive(nt_tensor *t, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "positive(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_POSITIVE);
    c.args[0] = nt_arg_tensor(t);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}

#define SHORTHAND(fn, OP)                                                                          \
    nt_status nt_##fn(nt_tensor *t, nt_tensor **out) {                                             \
        return nt_unary(OP, t, out);                                                               \
    }
SHORTHAND(abs, NT_OP_ABS)
SHORTHAND(neg, NT_OP_NEG)
SHORTHAND(exp, NT_OP_EXP)
SHORTHAND(log, NT_OP_LOG)
SHORTHAND(sqrt, NT_OP_SQRT)
SHORTHAND(tanh, NT_OP_TANH)
SHORTHAND(sigmoid, NT_OP_SIGMOID)
SHORTHAND(relu, NT_OP_RELU)

/* ------------------------------------------------------------------ for other families */

nt_status nt_unary_run(const nt_op_row *row, const nt_loop2d *loops, nt_tensor *t, nt_tensor *out,
                       const void *ctx, nt_tensor **result) {
    return run(row, loops, t, out, ctx, result);
}
