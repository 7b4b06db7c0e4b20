/*
 * reduce.c — the reductions (layer L4): sum, mean, prod, var, std, var_mean, std_mean,
 * logsumexp, all, any, amax/amin (max()/min() of all elements).
 *
 * Each op: validate -> pick the result dtype (PyTorch's rules, converting the input when a
 * dtype= asks for it) -> names ("removes dimensions", nt_names_remove_dims) -> allocate
 * (or check out=) -> fold with a kernel of kernels/reduce_kernels.c through the engine
 * (reduce_engine.c).
 */
#include "reduce.h"

#include "core/status.h"
#include "names/infer.h"
#include "names/names.h"

/* ------------------------------------------------------------------ the ops' facts */

/* How a reduction picks its dtypes (pick_dtypes). */
typedef enum red_rule {
    RULE_ACCUM = 1, /* sum, prod: the input's float dtype, else int64; dtype= converts */
    RULE_MEAN,      /* float only; dtype= must be a float */
    RULE_MOMENT,    /* var, std: float only */
    RULE_LOGSUMEXP, /* integers compute in the default float dtype */
    RULE_LOGICAL,   /* all, any: bool (uint8 for uint8) */
    RULE_EXTREME,   /* amax, amin, max(), min(): the input's dtype, no empty dim */
} red_rule;

/* What the reductions run by nt_impl_reduce differ in, by op id. `fname` names the op in
 * PyTorch's errors (max() and min() share amax's kernel but not its name). */
typedef struct red_fact {
    red_rule rule;
    nt_red_op kernel;
    bool take_sqrt;
    const char *fname;
} red_fact;

static const red_fact facts[NT_OP_COUNT] = {
    [NT_OP_SUM] = {RULE_ACCUM, NT_RED_SUM, false, "sum"},
    [NT_OP_MEAN] = {RULE_MEAN, NT_RED_MEAN, false, "mean"},
    [NT_OP_PROD] = {RULE_ACCUM, NT_RED_PROD, false, "prod"},
    [NT_OP_VAR] = {RULE_MOMENT, NT_RED_VAR, false, "var"},
    [NT_OP_STD] = {RULE_MOMENT, NT_RED_VAR, true, "std"},
    [NT_OP_VAR_MEAN] = {RULE_MOMENT, NT_RED_VAR, false, "var_mean"},
    [NT_OP_STD_MEAN] = {RULE_MOMENT, NT_RED_VAR, true, "std_mean"},
    [NT_OP_LOGSUMEXP] = {RULE_LOGSUMEXP, NT_RED_LOGSUMEXP, false, "logsumexp"},
    [NT_OP_ALL] = {RULE_LOGICAL, NT_RED_ALL, false, "all"},
    [NT_OP_ANY] = {RULE_LOGICAL, NT_RED_ANY, false, "any"},
    [NT_OP_AMAX] = {RULE_EXTREME, NT_RED_MAX, false, "amax"},
    [NT_OP_AMIN] = {RULE_EXTREME, NT_RED_MIN, false, "amin"},
    [NT_OP_MAX_ALL] = {RULE_EXTREME, NT_RED_MAX, false, "max"},
    [NT_OP_MIN_ALL] = {RULE_EXTREME, NT_RED_MIN, false, "min"},
};

/* The slots every reduction's schema begins with, and the ops' own after them. */
enum { SLOT_SELF, SLOT_DIM, SLOT_KEEPDIM, SLOT_DTYPE = 3, SLOT_UNBIASED = 3, SLOT_CORRECTION };

/* ------------------------------------------------------------------ dims and dtypes */

nt_status nt_dims_from_names(const nt_tensor *t, int count, const nt_name *names, int64_t *dims) {
    if (!t) return nt_fail_null_tensor("dims_from_names", "self");
    if (count > 0 && (!names || !dims))
        return nt_fail(NT_ERR_VALUE, "dims_from_names(): NULL names or dims");
    return nt_names_resolve_dims(t, count, names, dims);
}

/* The dtype a reduction computes in and returns, and the dtype its input is converted to
 * first (PyTorch converts the input when dtype= is given). */
static nt_status pick_dtypes(const red_fact *f, const nt_tensor *t, int dtype, nt_dtype *in_dtype,
                             nt_dtype *out_dtype) {
    nt_dtype d = t->dtype;
    bool is_float = nt_dtype_table[d].kind == NT_KIND_FLOAT;
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    *in_dtype = d;
    switch (f->rule) {
    case RULE_ACCUM:
        if (dtype >= 0) {
            *in_dtype = *out_dtype = (nt_dtype)dtype;
        } else {
            *out_dtype = is_float ? d : NT_INT64;
        }
        if (f->kernel == NT_RED_PROD && !nt_red_kernel_for(NT_RED_PROD, *in_dtype))
            return nt_red_not_implemented("prod_cpu", *in_dtype);
        return NT_OK;
    case RULE_MEAN:
        if (dtype >= 0) {
            if (nt_dtype_table[dtype].kind != NT_KIND_FLOAT)
                return nt_fail(NT_ERR_RUNTIME,
                               "mean(): could not infer output dtype. Optional dtype must be "
                               "either a floating point or complex dtype. Got: %s",
                               nt_dtype_torch_name((nt_dtype)dtype));
            *in_dtype = *out_dtype = (nt_dtype)dtype;
            return NT_OK;
        }
        if (!is_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype. Got: %s",
                           nt_dtype_torch_name(d));
        *out_dtype = d;
        return NT_OK;
    case RULE_MOMENT:
        if (!is_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "std and var only support floating point and complex dtypes");
        *out_dtype = d;
        return NT_OK;
    case RULE_LOGSUMEXP:
        if (d == NT_FLOAT16) return nt_red_not_implemented("exp_vml_cpu", d);
        if (dtype == NT_FLOAT16) return nt_red_not_implemented("log_vml_cpu", (nt_dtype)dtype);
        *in_dtype = *out_dtype = dtype >= 0 ? (nt_dtype)dtype : is_float ? d : nt_default_dtype();
        return NT_OK;
    case RULE_LOGICAL:
        *out_dtype = d == NT_UINT8 ? NT_UINT8 : NT_BOOL;
        return NT_OK;
    case RULE_EXTREME:
        *out_dtype = d;
        return NT_OK;
    default:
        return nt_fail(NT_ERR_VALUE, "not a reduction");
    }
}

/* PyTorch computes sum, prod, mean and logsumexp into an out= tensor in the out's dtype
 * when no dtype= is given (the input is converted first); var and std compute in the
 * input's dtype and convert. Sets *dtype, or fails with PyTorch's texts. */
static nt_status dtype_from_out(const red_fact *f, const nt_tensor *t, const nt_tensor *into,
                                int *dtype) {
    bool out_float = nt_dtype_table[into->dtype].kind == NT_KIND_FLOAT;
    switch (f->rule) {
    case RULE_ACCUM:
        *dtype = (int)into->dtype;
        return NT_OK;
    case RULE_MEAN:
        if (nt_dtype_table[t->dtype].kind != NT_KIND_FLOAT) return NT_OK; /* mean's own text */
        if (!out_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "result type %s can't be cast to the desired output type %s",
                           nt_dtype_torch_name(t->dtype), nt_dtype_torch_name(into->dtype));
        *dtype = (int)into->dtype;
        return NT_OK;
    case RULE_LOGSUMEXP:
        if (!out_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "logsumexp(): Expected floating point type for result tensor, but "
                           "got: %s",
                           nt_dtype_torch_name(into->dtype));
        *dtype = (int)into->dtype;
        return NT_OK;
    default:
        return NT_OK;
    }
}

/* Folds t over `count` dims (0: all) into `into` (out=; NULL: a new tensor, *out). */
static nt_status reduce(const red_fact *f, nt_tensor *t, int count, const nt_dim *dims,
                        bool keepdim, int dtype, double correction, nt_tensor *into,
                        nt_tensor **out) {
    if (!t) return nt_fail_null_tensor(f->fname, "self");
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    uint64_t mask;
    NT_TRY(nt_red_dims_mask(t, count, dims, &mask));
    nt_dtype in_dtype = t->dtype, out_dtype = t->dtype;
    if (into && dtype < 0) NT_TRY(dtype_from_out(f, t, into, &dtype));
    NT_TRY(pick_dtypes(f, t, dtype, &in_dtype, &out_dtype));
    const nt_red_kernel *k = nt_red_kernel_for(f->kernel, in_dtype);
    if (!k) return nt_red_not_implemented(f->fname, in_dtype);
    if (f->rule == RULE_EXTREME && t->numel == 0) {
        if (count == 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.",
                           f->fname);
        for (int d = 0; d < t->ndim; d++)
            if ((mask >> d & 1u) && t->sizes[d] == 0)
                return nt_fail(NT_ERR_INDEX,
                               "%s(): Expected reduction dim %d to have non-zero size.", f->fname,
                               d);
    }
    nt_name buf[NT_MAX_DIMS];
    int ndim;
    const nt_name *names = nt_names_remove_dims(t->names, t->ndim, mask, keepdim, buf, &ndim);
    int64_t sizes[NT_MAX_DIMS];
    nt_red_out_shape(t, mask, keepdim, &ndim, sizes);

    /* `t` itself, or its conversion to dtype=: the caller's reference keeps `t` alive, so
     * taking one (two atomic operations) is not needed */
    nt_tensor *converted = NULL, *result = NULL;
    const nt_tensor *src = t;
    nt_status st = NT_OK;
    if (in_dtype != t->dtype) {
        NT_CHECK(st, nt_to_dtype(t, in_dtype, &converted));
        src = converted;
    }
    /* PyTorch's logsumexp checks an out='s names before resizing it */
    if (into && f->rule == RULE_LOGSUMEXP)
        NT_CHECK(st, nt_names_check_out(into->names, into->ndim, names, ndim));
    NT_CHECK(st, nt_red_prepare(into, t, out_dtype, ndim, sizes, names, &result));
    nt_red_params prm = {.count = 0, .correction = correction, .take_sqrt = f->take_sqrt};
    st = nt_red_run(k, src, mask, keepdim, result, &prm);
    nt_tensor_release(converted);
    return nt_red_finish(st, into, result, names, out);
fail:
    nt_tensor_release(converted);
    return st;
}

/* ------------------------------------------------------------------ the ops (call records) */

/* The dims of a call's dim slot: none (all), or a list. */
static void call_dims(const nt_call *c, int *count, const nt_dim **dims) {
    const nt_arg *a = &c->args[SLOT_DIM];
    *count = a->kind == NT_ARG_DIMS ? (int)a->n : 0;
    *dims = a->kind == NT_ARG_DIMS ? a->v.dims : NULL;
}

static bool call_bool(const nt_call *c, int slot, bool fallback) {
    return c->args[slot].kind == NT_ARG_BOOL ? c->args[slot].v.b : fallback;
}

/* var/std's correction: `correction` (an int from Python, a double from C), else 1 or 0 by
 * `unbiased` (default: unbiased). */
static double call_correction(const nt_call *c) {
    const nt_arg *a = &c->args[SLOT_CORRECTION];
    if (a->kind == NT_ARG_INT) return (double)a->v.i;
    if (a->kind == NT_ARG_FLOAT) return a->v.f;
    return call_bool(c, SLOT_UNBIASED, true) ? 1.0 : 0.0;
}

nt_status nt_impl_reduce(nt_call *c) {
    const red_fact *f = &facts[c->op];
    int count;
    const nt_dim *dims;
    call_dims(c, &count, &dims);
    bool keepdim = call_bool(c, SLOT_KEEPDIM, false);
    int dtype = -1;
    double correction = 0;
    if (f->rule == RULE_ACCUM || f->rule == RULE_MEAN)
        dtype = c->args[SLOT_DTYPE].kind == NT_ARG_DTYPE ? (int)c->args[SLOT_DTYPE].v.dtype : -1;
    else if (f->rule == RULE_MOMENT)
        correction = call_correction(c);
    return reduce(f, nt_call_tensor(c, SLOT_SELF), count, dims, keepdim, dtype, correction,
                  c->out[0], &c->result[0]);
}

nt_status nt_impl_extreme_all(nt_call *c) {
    return reduce(&facts[c->op], nt_call_tensor(c, SLOT_SELF), 0, NULL, false, -1, 0, NULL,
                  &c->result[0]);
}

/* var_mean / std_mean: both results from the same input (the mean is the Welford mean,
 * written in the input dtype). */
nt_status nt_impl_moments(nt_call *c) {
    const red_fact *f = &facts[c->op];
    int count;
    const nt_dim *dims;
    call_dims(c, &count, &dims);
    bool keepdim = call_bool(c, SLOT_KEEPDIM, false);
    nt_tensor *t = nt_call_tensor(c, SLOT_SELF);
    NT_TRY(reduce(f, t, count, dims, keepdim, -1, call_correction(c), NULL, &c->result[0]));
    nt_status st = reduce(&facts[NT_OP_MEAN], t, count, dims, keepdim, -1, 0, NULL, &c->result[1]);
    if (st != NT_OK) {
        nt_tensor_release(c->result[0]);
        c->result[0] = NULL;
    }
    return st;
}

/* ------------------------------------------------------------------ public reductions */

__attribute__((always_inline)) static inline nt_status
run_reduction(nt_op op, nt_tensor *t, int count, const nt_dim *dims, bool keepdim, int dtype,
              double correction, nt_tensor *into, nt_tensor **out) {
    if (!into && !out)
        return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.out[0] = into;
    c.args[SLOT_SELF] = nt_arg_tensor(t);
    c.args[SLOT_DIM] = count != 0 ? nt_arg_dims(count, dims) : nt_arg_none(); /* < 0: refused */
    c.args[SLOT_KEEPDIM] = nt_arg_bool(keepdim);
    const red_fact *f = &facts[op];
    if (f->rule == RULE_ACCUM || f->rule == RULE_MEAN) {
        c.args[SLOT_DTYPE] = nt_arg_dtype(dtype);
    } else if (f->rule == RULE_MOMENT) {
        c.args[SLOT_UNBIASED] = nt_arg_none();
        c.args[SLOT_CORRECTION] = nt_arg_float(correction);
    }
    return nt_red_results(nt_dispatch(&c), &c, out, NULL);
}

nt_status nt_reduce_out(nt_op op, nt_tensor *t, int count, const nt_dim *dims, bool keepdim,
                        int dtype, double correction, nt_tensor *out) {
    bool valid = (unsigned)op < NT_OP_COUNT && nt_op_rows[op].impl == nt_impl_reduce;
    if (!valid) return nt_fail(NT_ERR_VALUE, "nt_reduce_out(): op %d is not a reduction", (int)op);
    if (!out) return nt_fail_null_tensor(nt_op_rows[op].name, "out");
    return run_reduction(op, t, count, dims, keepdim, dtype, correction, out, NULL);
}

nt_status nt_sum(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, int dtype,
                 nt_tensor **out) {
    return run_reduction(NT_OP_SUM, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_mean(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, int dtype,
                  nt_tensor **out) {
    return run_reduction(NT_OP_MEAN, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_prod(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, int dtype,
                  nt_tensor **out) {
    return run_reduction(NT_OP_PROD, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_var(nt_tensor *t, int count, const nt_dim *dims, double correction, bool keepdim,
                 nt_tensor **out) {
    return run_reduction(NT_OP_VAR, t, count, dims, keepdim, -1, correction, NULL, out);
}

nt_status nt_std(nt_tensor *t, int count, const nt_dim *dims, double correction, bool keepdim,
                 nt_tensor **out) {
    return run_reduction(NT_OP_STD, t, count, dims, keepdim, -1, correction, NULL, out);
}

nt_status nt_logsumexp(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, nt_tensor **out) {
    return run_reduction(NT_OP_LOGSUMEXP, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_all(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, nt_tensor **out) {
    return run_reduction(NT_OP_ALL, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_any(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, nt_tensor **out) {
    return run_reduction(NT_OP_ANY, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_amax(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, nt_tensor **out) {
    return run_reduction(NT_OP_AMAX, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_amin(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, nt_tensor **out) {
    return run_reduction(NT_OP_AMIN, t, count, dims, keepdim, -1, 0, NULL, out);
}

static nt_status extreme_all(nt_op op, nt_tensor *t, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.args[SLOT_SELF] = nt_arg_tensor(t);
    return nt_red_results(nt_dispatch(&c), &c, out, NULL);
}

nt_status nt_max_all(nt_tensor *t, nt_tensor **out) {
    return extreme_all(NT_OP_MAX_ALL, t, out);
}

nt_status nt_min_all(nt_tensor *t, nt_tensor **out) {
    return extreme_all(NT_OP_MIN_ALL, t, out);
}

static nt_status moments(nt_op op, nt_tensor *t, int count, const nt_dim *dims, double correction,
                         bool keepdim, nt_tensor **var, nt_tensor **mean) {
    if (!var || !mean)
        return nt_fail(NT_ERR_VALUE, "%s(): NULL output pointer", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.args[SLOT_SELF] = nt_arg_tensor(t);
    c.args[SLOT_DIM] = count != 0 ? nt_arg_dims(count, dims) : nt_arg_none();
    c.args[SLOT_KEEPDIM] = nt_arg_bool(keepdim);
    c.args[SLOT_UNBIASED] = nt_arg_none();
    c.args[SLOT_CORRECTION] = nt_arg_float(correction);
    return nt_red_results(nt_dispatch(&c), &c, var, mean);
}

nt_status nt_var_mean(nt_tensor *t, int count, const nt_dim *dims, double correction, bool keepdim,
                      nt_tensor **var, nt_tensor **mean) {
    return moments(NT_OP_VAR_MEAN, t, count, dims, correction, keepdim, var, mean);
}

nt_status nt_std_mean(nt_tensor *t, int count, const nt_dim *dims, double correction, bool keepdim,
                      nt_tensor **std, nt_tensor **mean) {
    return moments(NT_OP_STD_MEAN, t, count, dims, correction, keepdim, std, mean);
}
