/*
 * fill.c — one value and a whole tensor (layer L4): fill_ (a number or a 0-dim tensor),
 * zero_, item, and is_nonzero (bool(t) in Python) with PyTorch's errors for a tensor of no
 * or several values; the queries of a tensor's dtype and device (is_floating_point, numel, ...)
 * and the methods that give the tensor back (type_as, detach, cpu, requires_grad_).
 */
#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "ntensor/names.h"
#include "ops/factory_call.h"
#include "ops/out.h"

/* ------------------------------------------------------------------ fill_, zero_ */

nt_status nt_fill_values(nt_tensor *t, nt_scalar value) {
    NT_TRY(nt_scalar_check_fits(value, t->dtype));
    uint64_t element = 0; /* 8 aligned bytes: room for any dtype */
    nt_store_scalar(&element, t->dtype, value);
    nt_iter_config cfg = nt_iter_defaults();
    cfg.check_mem_overlap = false; /* PyTorch fills expanded tensors without complaint */
    nt_iter it;
    NT_TRY(nt_iter_build(&it, 1, &t, &cfg));
    nt_iter_run(&it, nt_fill_loop(t->dtype), &element);
    return NT_OK;
}

/* fill_(value): value a number or a 0-dim tensor (its element) */
nt_status nt_impl_fill_(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("fill_", "self");
    nt_scalar value = c->args[1].v.s;
    const nt_tensor *v = nt_call_tensor(c, 1);
    if (v) {
        if (v->ndim != 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "fill_ only supports 0-dimension value tensor but got tensor with %d "
                           "dimensions.",
                           v->ndim);
        value = nt_load_scalar(nt_tensor_bytes(v), v->dtype);
    }
    NT_TRY(nt_fill_values(t, value));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

nt_status nt_impl_zero_(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("zero_", "self");
    NT_TRY(nt_fill_values(t, nt_scalar_int(0)));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

nt_status nt_fill_(nt_tensor *t, nt_scalar value) {
    if (!t) return nt_fail_null_tensor("fill_", "self");
    nt_call c;
    nt_call_init(&c, NT_OP_FILL_);
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_scalar(value);
    return nt_dispatch_result(&c, NULL);
}

nt_status nt_zero_(nt_tensor *t) {
    if (!t) return nt_fail_null_tensor("zero_", "self");
    nt_call c;
    nt_call_init(&c, NT_OP_ZERO_);
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    return nt_dispatch_result(&c, NULL);
}

/* ------------------------------------------------------------------ item, is_nonzero */

nt_status nt_impl_item(nt_call *c) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("item", "self");
    if (t->numel != 1)
        return nt_fail(NT_ERR_VALUE, "only one element tensors can be converted to Python "
                                     "scalars");
    c->value = nt_load_scalar(nt_tensor_bytes(t), t->dtype);
    return NT_OK;
}

nt_status nt_item(const nt_tensor *t, nt_scalar *out) {
    if (!t) return nt_fail_null_tensor("item", "self");
    if (!out) return nt_fail(NT_ERR_VALUE, "item(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_ITEM);
    c.args[0] = nt_arg_tensor((nt_tensor *)t);
    NT_TRY(nt_dispatch(&c));
    *out = c.value;
    return NT_OK;
}

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

/* ------------------------------------------------------------------ queries */

static nt_scalar is_floating_point(const nt_tensor *t) {
    return nt_scalar_bool(nt_dtype_is_floating(t->dtype));
}
static nt_scalar is_signed(const nt_tensor *t) {
    return nt_scalar_bool(nt_dtype_is_signed(t->dtype));
}
/* is_complex, is_shared, is_pinned: no complex dtypes, shared or pinned memory */
static nt_scalar never(const nt_tensor *t) {
    (void)t;
    return nt_scalar_bool(false);
}
static nt_scalar numel(const nt_tensor *t) {
    return nt_scalar_int(t->numel);
}
static nt_scalar get_device(const nt_tensor *t) {
    (void)t;
    return nt_scalar_int(-1); /* the CPU */
}

static nt_scalar element_size(const nt_tensor *t) {
    return nt_scalar_int((int64_t)nt_dtype_size(t->dtype));
}
static nt_scalar has_names(const nt_tensor *t) {
    return nt_scalar_bool(nt_tensor_has_names(t));
}
static nt_scalar data_ptr(const nt_tensor *t) {
    return nt_scalar_int((int64_t)(intptr_t)nt_tensor_data(t));
}
static nt_scalar storage_offset(const nt_tensor *t) {
    return nt_scalar_int(t->offset);
}
static nt_scalar dim(const nt_tensor *t) {
    return nt_scalar_int(t->ndim);
}
static nt_scalar is_contiguous(const nt_tensor *t) {
    return nt_scalar_bool(nt_tensor_is_contiguous(t));
}

static nt_scalar (*const queries[NT_OP_COUNT])(const nt_tensor *) = {
    [NT_OP_IS_FLOATING_POINT] = is_floating_point,
    [NT_OP_IS_SIGNED] = is_signed,
    [NT_OP_IS_COMPLEX] = never,
    [NT_OP_NUMEL] = numel,
    [NT_OP_GET_DEVICE] = get_device,
    [NT_OP_NELEMENT] = numel,
    [NT_OP_ELEMENT_SIZE] = element_size,
    [NT_OP_HAS_NAMES] = has_names,
    [NT_OP_DATA_PTR] = data_ptr,
    [NT_OP_STORAGE_OFFSET] = storage_offset,
    [NT_OP_IS_SHARED] = never,
    [NT_OP_IS_PINNED] = never,
    [NT_OP_DIM] = dim,
    [NT_OP_NDIMENSION] = dim,
    [NT_OP_IS_CONTIGUOUS] = is_contiguous,
};

/* A query row: its answer in c->value. */
nt_status nt_impl_query(nt_call *c) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor(nt_op_name(c->op), "self");
    c->value = queries[c->op](t);
    return NT_OK;
}

/* size(dim), stride(dim): a 0-dim tensor has none to give for any index (PyTorch's
 * IndexError, before any wrapping). */
nt_status nt_impl_dim_query(nt_call *c) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor(nt_op_name(c->op), "self");
    if (c->args[1].kind != NT_ARG_DIM)
        return nt_fail(NT_ERR_VALUE, "%s(): no dim given", nt_op_name(c->op));
    nt_dim dim = c->args[1].v.dim;
    if (t->ndim == 0 && !nt_dim_is_name(dim))
        return nt_fail(NT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                       (long long)dim);
    int64_t d;
    NT_TRY(nt_tensor_dim(t, dim, &d));
    c->value = nt_scalar_int(c->op == NT_OP_SIZE ? t->sizes[d] : t->strides[d]);
    return NT_OK;
}

/* ------------------------------------------------------------------ the tensor back */

/* type_as(other): to(other's dtype), the tensor itself when it has it */
nt_status nt_impl_type_as(nt_call *c) {
    const nt_tensor *other = nt_call_tensor(c, 1);
    if (!other) return nt_fail_null_tensor("type_as", "other");
    c->args[1] = nt_arg_dtype((int)other->dtype);
    return nt_impl_to_dtype(c);
}

/* detach(): a new tensor viewing the same memory (there is no graph to cut yet) */
nt_status nt_impl_detach(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("detach", "self");
    return nt_rename(t, t->names, &c->result[0]);
}

/* detach_(), cpu(): the tensor itself */
nt_status nt_impl_same(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor(nt_op_name(c->op), "self");
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

nt_scalar nt_scalar_load(const void *p, nt_dtype dtype) {
    return nt_load_scalar(p, dtype);
}

void nt_scalar_store(void *p, nt_dtype dtype, nt_scalar value) {
    nt_store_scalar(p, dtype, value);
}
