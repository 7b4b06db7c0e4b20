/*
 * reduce_shared.c — what the reduction files share (reduce.h): PyTorch's "not implemented"
 * error, dim arguments resolved, and the out= handling of an op's result.
 */
#include "reduce.h"

#include "core/status.h"
#include "iter/iter.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/out.h"

/* ------------------------------------------------------------------ shared helpers */

nt_status nt_red_not_implemented(const char *kernel, nt_dtype dtype) {
    return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                   nt_dtype_torch_name(dtype));
}

void nt_red_out_shape(const nt_tensor *t, uint64_t mask, bool keepdim, int *ndim, int64_t *sizes) {
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (!(mask >> d & 1u))
            sizes[n++] = t->sizes[d];
        else if (keepdim)
            sizes[n++] = 1;
    }
    *ndim = n;
}

nt_status nt_red_prepare(nt_tensor *into, const nt_tensor *input, nt_dtype dtype, int ndim,
                         const int64_t *sizes, const nt_name *names, nt_tensor **result) {
    if (!into) return nt_tensor_alloc(dtype, ndim, sizes, names, result);
    NT_TRY(nt_out_resize(into, ndim, sizes));
    NT_TRY(nt_names_check_out(into->names, into->ndim, names, ndim));
    NT_TRY(nt_check_no_internal_overlap(into));
    if (into->dtype == dtype && !(input && nt_extents_overlap(into, input))) {
        *result = nt_tensor_retain(into);
        return NT_OK;
    }
    return nt_tensor_alloc(dtype, ndim, sizes, NULL, result);
}

/* c10's name of a dtype ("float", "long int"), as PyTorch's out= dtype errors print it. */
static const char *const cpp_names[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "bool",         [NT_UINT8] = "unsigned char",
    [NT_INT8] = "signed char",  [NT_INT16] = "short int",
    [NT_INT32] = "int",         [NT_INT64] = "long int",
    [NT_FLOAT16] = "c10::Half", [NT_BFLOAT16] = "c10::BFloat16",
    [NT_FLOAT32] = "float",     [NT_FLOAT64] = "double",
};

nt_status nt_red_check_out_dtype(const nt_tensor *out, nt_dtype want) {
    if (out->dtype == want) return NT_OK;
    return nt_fail(NT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                   cpp_names[want], cpp_names[out->dtype]);
}

nt_status nt_red_dims(const nt_tensor *t, int count, const nt_dim *dims, int64_t *out) {
    if (count < 0) return nt_fail(NT_ERR_VALUE, "a negative number of dims (%d)", count);
    if (count > 0 && !dims)
        return nt_fail(NT_ERR_VALUE, "%d dims given but the dims pointer is NULL", count);
    if (count > NT_MAX_DIMS) return nt_fail(NT_ERR_VALUE, "too many dims (%d)", count);
    for (int i = 0; i < count; i++) {
        if (nt_dim_is_name(dims[i]))
            NT_TRY(nt_tensor_dim(t, dims[i], &out[i]));
        else
            out[i] = dims[i];
    }
    return NT_OK;
}

nt_status nt_red_dims_mask(const nt_tensor *t, int count, const nt_dim *dims, uint64_t *mask) {
    if (count == 0) {
        *mask = t->ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << t->ndim) - 1);
        return NT_OK;
    }
    if (count == 1 && dims) { /* the common call: one dim, an index or a name */
        int64_t d;
        NT_TRY(nt_tensor_dim(t, dims[0], &d));
        *mask = t->ndim ? (uint64_t)1 << d : 0; /* a 0-dim tensor reduced over dim 0 or -1 */
        return NT_OK;
    }
    bool named = false;
    for (int i = 0; i < count && dims; i++)
        named |= nt_dim_is_name(dims[i]);
    if (named) { /* names resolved to indices first (the common case has none) */
        int64_t idx[NT_MAX_DIMS];
        NT_TRY(nt_red_dims(t, count, dims, idx));
        NT_TRY(nt_dim_list_mask(t->ndim, count, idx, mask));
    } else {
        if (count < 0 || !dims) NT_TRY(nt_red_dims(t, count, dims, NULL)); /* its texts */
        NT_TRY(nt_dim_list_mask(t->ndim, count, dims, mask));
    }
    if (t->ndim == 0) *mask = 0; /* a 0-dim tensor reduced over dim 0 or -1 */
    return NT_OK;
}

nt_status nt_red_dim(const nt_tensor *t, nt_dim dim, int64_t *out) {
    return nt_tensor_dim(t, dim, out);
}

nt_status nt_red_finish(nt_status st, nt_tensor *into, nt_tensor *result, const nt_name *names,
                        nt_tensor **out) {
    if (st == NT_OK && into) {
        if (result != into) st = nt_copy_(into, result);
        if (st == NT_OK && names && !into->names) st = nt_tensor_set_names(into, names);
    }
    if (st == NT_OK && out) {
        *out = into ? nt_tensor_retain(into) : result;
        if (into) nt_tensor_release(result);
        return NT_OK;
    }
    nt_tensor_release(result);
    return st;
}
