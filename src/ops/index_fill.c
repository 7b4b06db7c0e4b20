/*
 * index_fill.c — index_fill and index_fill_ (layer L4): the entries `index` (a 0-d or 1-d
 * int64 tensor) along `dim` (an index or a name) set to a value, a Scalar or a 0-dim
 * Tensor. PyTorch's checks in its order (index dtype, overlap of self and index, dim,
 * index rank, the value's fit, every index's bounds), then one fill loop
 * (kernels/convert.h) per selected slice. Out of place, a clone of self is filled. Public
 * calls reach it through the dispatcher.
 */
#include <inttypes.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "dispatch/dispatch.h"
#include "index.h"
#include "iter/iter.h"
#include "kernels/convert.h"

static nt_status index_fill_impl(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                 nt_scalar value) {
    if (index->dtype != NT_INT64)
        return nt_fail(NT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    if (nt_extents_overlap(t, index) && (nt_overlap_status(t, index) == NT_OVERLAP_PARTIAL ||
                                         nt_overlap_status(t, index) == NT_OVERLAP_FULL))
        return nt_fail(NT_ERR_RUNTIME,
                       "unsupported operation: some elements of the input tensor and the "
                       "written-to tensor refer to a single memory location. Please clone() the "
                       "tensor before performing the operation.");
    int nd = t->ndim ? t->ndim : 1;
    int64_t d;
    if (nt_dim_is_name(dim))
        NT_TRY(nt_tensor_dim(t, dim, &d));
    else
        NT_TRY(nt_wrap_dim(dim, nd, &d));
    if (index->ndim > 1) return nt_fail(NT_ERR_RUNTIME, "Index has to be a vector/scalar");
    NT_TRY(nt_scalar_check_fits(value, t->dtype));
    int64_t size = t->ndim ? t->sizes[d] : 1;
    int64_t n = index->numel, stride = index->ndim ? index->strides[0] : 0;
    const int64_t *iv = (const int64_t *)nt_tensor_bytes(index);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = iv[i * stride];
        if (v < -size || v >= size)
            return nt_fail(NT_ERR_INDEX,
                           "index %" PRId64 " is out of bounds for dimension %" PRId64
                           " with size %" PRId64,
                           v, d, size);
    }
    if (t->ndim == 0) {
        if (n > 0) NT_TRY(nt_fill_(t, value));
        return NT_OK;
    }
    uint64_t element = 0;
    nt_store_scalar(&element, t->dtype, value);
    nt_loop2d loop = nt_fill_loop(t->dtype);
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    sizes[d] = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = iv[i * stride];
        if (v < 0) v += size;
        nt_tensor *slice = NULL;
        NT_TRY(nt_index_restride(t, t->ndim, sizes, strides,
                                 nt_offset_moved(t->offset, v, t->strides[d]), NULL, &slice));
        nt_iter_config cfg = nt_iter_defaults();
        cfg.check_mem_overlap = false;
        nt_iter it;
        nt_status st = nt_iter_build(&it, 1, &slice, &cfg);
        if (st == NT_OK) nt_iter_run(&it, loop, &element);
        nt_tensor_release(slice);
        NT_TRY(st);
    }
    return NT_OK;
}

static nt_status value_item(const char *op, const nt_tensor *value, nt_scalar *s) {
    if (value->ndim != 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "%s only supports a 0-dimensional value tensor, but got tensor with %d "
                       "dimension(s).",
                       op, value->ndim);
    *s = nt_load_scalar(nt_tensor_bytes(value), value->dtype);
    return NT_OK;
}

/* index_fill(self, dim, index, value) and index_fill_: value a Scalar or a 0-dim Tensor;
 * out of place, a clone of self filled. */
nt_status nt_impl_index_fill(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *index = nt_call_tensor(c, 2);
    if (!t || !index) return nt_fail(NT_ERR_TYPE, "index_fill(): a tensor argument is NULL");
    nt_scalar s = c->args[3].v.s;
    if (c->args[3].kind == NT_ARG_TENSOR) NT_TRY(value_item("index_fill_", c->args[3].v.t, &s));
    nt_dim dim = c->args[1].v.dim;
    if (c->inplace) {
        NT_TRY(index_fill_impl(t, dim, index, s));
        c->result[0] = nt_tensor_retain(t);
        return NT_OK;
    }
    nt_tensor *r = NULL;
    NT_TRY(nt_clone(t, &r));
    nt_status st = index_fill_impl(r, dim, index, s);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    c->result[0] = r;
    return NT_OK;
}

/* ------------------------------------------------------------------ the public functions */

static nt_status index_fill_call(nt_op op, nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                 nt_arg value, bool inplace, nt_tensor **out) {
    if (!t || (!inplace && !out)) return nt_fail(NT_ERR_VALUE, "index_fill(): NULL argument");
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_tensor((nt_tensor *)index);
    c.args[3] = value;
    NT_TRY(nt_dispatch(&c));
    if (out)
        *out = c.result[0];
    else
        nt_tensor_release(c.result[0]);
    return NT_OK;
}

nt_status nt_index_fill_(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_scalar value) {
    return index_fill_call(NT_OP_INDEX_FILL, t, dim, index, nt_arg_scalar(value), true, NULL);
}

nt_status nt_index_fill(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_scalar value,
                        nt_tensor **out) {
    return index_fill_call(NT_OP_INDEX_FILL, t, dim, index, nt_arg_scalar(value), false, out);
}

nt_status nt_index_fill_tensor_(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                const nt_tensor *value) {
    if (!value) return nt_fail(NT_ERR_TYPE, "index_fill_(): the value tensor is NULL");
    return index_fill_call(NT_OP_INDEX_FILL_TENSOR, t, dim, index,
                           nt_arg_tensor((nt_tensor *)value), true, NULL);
}

nt_status nt_index_fill_tensor(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                               const nt_tensor *value, nt_tensor **out) {
    if (!value) return nt_fail(NT_ERR_TYPE, "index_fill_(): the value tensor is NULL");
    return index_fill_call(NT_OP_INDEX_FILL_TENSOR, t, dim, index,
                           nt_arg_tensor((nt_tensor *)value), false, out);
}
