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

/* ------------------------------------------------------------------ dims and dtypes */

static nt_status dims_mask(const nt_tensor *t, int count, const int64_t *dims, uint64_t *mask) {
    if (count < 0) return nt_fail(NT_ERR_VALUE, "a negative number of dims (%d)", count);
    if (count == 0) {
        *mask = t->ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << t->ndim) - 1);
        return NT_OK;
    }
    if (!dims) return nt_fail(NT_ERR_VALUE, "%d dims given but the dims pointer is NULL", count);
    NT_TRY(nt_dim_list_mask(t->ndim, count, dims, mask));
    if (t->ndim == 0) *mask = 0; /* a 0-dim tensor reduced over dim 0 or -1 */
    return NT_OK;
}

nt_status nt_dims_from_names(const nt_tensor *t, int count, const nt_name *names, int64_t *dims) {
    if (!t) return nt_fail_null_tensor("dims_from_names", "self");
    if (count > 0 && (!names || !dims))
        return nt_fail(NT_ERR_VALUE, "dims_from_names(): NULL names or dims");
    return nt_names_resolve_dims(t, count, names, dims);
}

/* The dtype a reduction computes in and returns, and the dtype its input is converted to
 * first (PyTorch converts the input when dtype= is given). */
static nt_status pick_dtypes(nt_reduction op, const nt_tensor *t, int dtype, nt_dtype *in_dtype,
                             nt_dtype *out_dtype) {
    nt_dtype d = t->dtype;
    bool is_float = nt_dtype_table[d].kind == NT_KIND_FLOAT;
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    *in_dtype = d;
    switch (op) {
    case NT_REDUCE_SUM:
    case NT_REDUCE_PROD:
        if (dtype >= 0) {
            *in_dtype = *out_dtype = (nt_dtype)dtype;
        } else {
            *out_dtype = is_float ? d : NT_INT64;
        }
        if (op == NT_REDUCE_PROD && !nt_red_kernel_for(NT_RED_PROD, *in_dtype))
            return nt_red_not_implemented("prod_cpu", *in_dtype);
        return NT_OK;
    case NT_REDUCE_MEAN:
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
    case NT_REDUCE_VAR:
    case NT_REDUCE_STD:
        if (!is_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "std and var only support floating point and complex dtypes");
        *out_dtype = d;
        return NT_OK;
    case NT_REDUCE_LOGSUMEXP:
        if (d == NT_FLOAT16) return nt_red_not_implemented("exp_vml_cpu", d);
        if (dtype == NT_FLOAT16) return nt_red_not_implemented("log_vml_cpu", (nt_dtype)dtype);
        *in_dtype = *out_dtype = dtype >= 0 ? (nt_dtype)dtype : is_float ? d : nt_default_dtype();
        return NT_OK;
    case NT_REDUCE_ALL:
    case NT_REDUCE_ANY:
        *out_dtype = d == NT_UINT8 ? NT_UINT8 : NT_BOOL;
        return NT_OK;
    case NT_REDUCE_AMAX:
    case NT_REDUCE_AMIN:
        *out_dtype = d;
        return NT_OK;
    default:
        return nt_fail(NT_ERR_VALUE, "unknown reduction %d", (int)op);
    }
}

static const nt_red_op kernel_op[] = {
    [NT_REDUCE_SUM] = NT_RED_SUM,   [NT_REDUCE_MEAN] = NT_RED_MEAN,
    [NT_REDUCE_PROD] = NT_RED_PROD, [NT_REDUCE_VAR] = NT_RED_VAR,
    [NT_REDUCE_STD] = NT_RED_VAR,   [NT_REDUCE_LOGSUMEXP] = NT_RED_LOGSUMEXP,
    [NT_REDUCE_ALL] = NT_RED_ALL,   [NT_REDUCE_ANY] = NT_RED_ANY,
    [NT_REDUCE_AMAX] = NT_RED_MAX,  [NT_REDUCE_AMIN] = NT_RED_MIN,
};

static const char *const op_names[] = {
    [NT_REDUCE_SUM] = "sum",  [NT_REDUCE_MEAN] = "mean", [NT_REDUCE_PROD] = "prod",
    [NT_REDUCE_VAR] = "var",  [NT_REDUCE_STD] = "std",   [NT_REDUCE_LOGSUMEXP] = "logsumexp",
    [NT_REDUCE_ALL] = "all",  [NT_REDUCE_ANY] = "any",   [NT_REDUCE_AMAX] = "max",
    [NT_REDUCE_AMIN] = "min",
};

/* PyTorch computes sum, prod, mean and logsumexp into an out= tensor in the out's dtype
 * when no dtype= is given (the input is converted first); var and std compute in the
 * input's dtype and convert. Sets *dtype, or fails with PyTorch's texts. */
static nt_status dtype_from_out(nt_reduction op, const nt_tensor *t, const nt_tensor *into,
                                int *dtype) {
    bool out_float = nt_dtype_table[into->dtype].kind == NT_KIND_FLOAT;
    switch (op) {
    case NT_REDUCE_SUM:
    case NT_REDUCE_PROD: *dtype = (int)into->dtype; return NT_OK;
    case NT_REDUCE_MEAN:
        if (nt_dtype_table[t->dtype].kind != NT_KIND_FLOAT) return NT_OK; /* mean's own text */
        if (!out_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "result type %s can't be cast to the desired output type %s",
                           nt_dtype_torch_name(t->dtype), nt_dtype_torch_name(into->dtype));
        *dtype = (int)into->dtype;
        return NT_OK;
    case NT_REDUCE_LOGSUMEXP:
        if (!out_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "logsumexp(): Expected floating point type for result tensor, but "
                           "got: %s",
                           nt_dtype_torch_name(into->dtype));
        *dtype = (int)into->dtype;
        return NT_OK;
    default: return NT_OK;
    }
}

static nt_status reduce(nt_reduction op, nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                        int dtype, double correction, nt_tensor *into, nt_tensor **out) {
    if ((int)op < 0 || op > NT_REDUCE_AMIN) return nt_fail(NT_ERR_VALUE, "unknown reduction");
    if (!t) return nt_fail_null_tensor(op_names[op], "self");
    if (!out && !into)
        return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", op_names[op]);
    uint64_t mask;
    NT_TRY(dims_mask(t, count, dims, &mask));
    nt_dtype in_dtype = t->dtype, out_dtype = t->dtype;
    if (into && dtype < 0) NT_TRY(dtype_from_out(op, t, into, &dtype));
    NT_TRY(pick_dtypes(op, t, dtype, &in_dtype, &out_dtype));
    const nt_red_kernel *k = nt_red_kernel_for(kernel_op[op], in_dtype);
    if (!k) return nt_red_not_implemented(op_names[op], in_dtype);
    if ((op == NT_REDUCE_AMAX || op == NT_REDUCE_AMIN) && t->numel == 0) {
        if (count == 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.",
                           op_names[op]);
        for (int d = 0; d < t->ndim; d++)
            if ((mask >> d & 1u) && t->sizes[d] == 0)
                return nt_fail(NT_ERR_INDEX,
                               "%s(): Expected reduction dim %d to have non-zero size.",
                               op_names[op], d);
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
    NT_CHECK(st, nt_red_prepare(into, t, out_dtype, ndim, sizes, names, &result));
    nt_red_params prm = {.count = 0, .correction = correction, .take_sqrt = op == NT_REDUCE_STD};
    st = nt_red_run(k, src, mask, keepdim, result, &prm);
    nt_tensor_release(converted);
    return nt_red_finish(st, into, result, names, out);
fail:
    nt_tensor_release(converted);
    return st;
}

/* ------------------------------------------------------------------ public reductions */

nt_status nt_reduce_out(nt_reduction op, nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                        int dtype, double correction, nt_tensor *out) {
    if (!out)
        return nt_fail_null_tensor(op >= 0 && op <= NT_REDUCE_AMIN ? op_names[op] : "reduce",
                                   "out");
    return reduce(op, t, count, dims, keepdim, dtype, correction, out, NULL);
}

nt_status nt_sum(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                 nt_tensor **out) {
    return reduce(NT_REDUCE_SUM, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_mean(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                  nt_tensor **out) {
    return reduce(NT_REDUCE_MEAN, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_prod(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                  nt_tensor **out) {
    return reduce(NT_REDUCE_PROD, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_var(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                 nt_tensor **out) {
    return reduce(NT_REDUCE_VAR, t, count, dims, keepdim, -1, correction, NULL, out);
}

nt_status nt_std(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                 nt_tensor **out) {
    return reduce(NT_REDUCE_STD, t, count, dims, keepdim, -1, correction, NULL, out);
}

nt_status nt_logsumexp(nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                       nt_tensor **out) {
    return reduce(NT_REDUCE_LOGSUMEXP, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_all(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_ALL, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_any(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_ANY, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_amax(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_AMAX, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_amin(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_AMIN, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_max_all(nt_tensor *t, nt_tensor **out) {
    return reduce(NT_REDUCE_AMAX, t, 0, NULL, false, -1, 0, NULL, out);
}

nt_status nt_min_all(nt_tensor *t, nt_tensor **out) {
    return reduce(NT_REDUCE_AMIN, t, 0, NULL, false, -1, 0, NULL, out);
}

/* var_mean / std_mean: both results from the same folding (the mean is the Welford mean,
 * written in the input dtype). */
static nt_status moments(nt_tensor *t, int count, const int64_t *dims, double correction,
                         bool keepdim, bool take_sqrt, nt_tensor **var, nt_tensor **mean) {
    if (!var || !mean) return nt_fail(NT_ERR_VALUE, "var_mean(): NULL output pointer");
    nt_tensor *v = NULL, *m = NULL;
    NT_TRY(reduce(take_sqrt ? NT_REDUCE_STD : NT_REDUCE_VAR, t, count, dims, keepdim, -1,
                  correction, NULL, &v));
    nt_status st = reduce(NT_REDUCE_MEAN, t, count, dims, keepdim, -1, 0, NULL, &m);
    if (st != NT_OK) {
        nt_tensor_release(v);
        return st;
    }
    *var = v;
    *mean = m;
    return NT_OK;
}

nt_status nt_var_mean(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                      nt_tensor **var, nt_tensor **mean) {
    return moments(t, count, dims, correction, keepdim, false, var, mean);
}

nt_status nt_std_mean(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                      nt_tensor **std, nt_tensor **mean) {
    return moments(t, count, dims, correction, keepdim, true, std, mean);
}
