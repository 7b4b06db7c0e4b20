/*
 * resize.c — resize_ and resize_as_ with PyTorch 1.13's semantics.
 *
 * The same shape leaves the tensor untouched (strides included). Another shape gives
 * contiguous strides (offset kept) and grows the storage, keeping its bytes, when it is
 * too small — in place on the shared nt_storage, so every view of it sees the new buffer,
 * as PyTorch's views see their resized storage. A named tensor only accepts its own shape.
 *
 * A tensor's sizes and strides live in its own allocation, sized for the dims it was
 * made with; a resize to more dims moves them to one of NT_MAX_DIMS (nt_tensor_reserve_dims),
 * so the tensor object stays the same (an out= tensor is resized in place).
 * Public calls reach resize_ through the dispatcher; out= tensors (out.h) and cat are
 * resized directly.
 */
#include <inttypes.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "index.h"
#include "names/infer.h"
#include "names/names.h"
#include "out.h"

static nt_status check_named(const nt_tensor *t, int ndim, const int64_t *sizes) {
    bool same = ndim == t->ndim;
    for (int i = 0; same && i < ndim; i++)
        same = sizes[i] == t->sizes[i];
    if (same || !t->names) return NT_OK;
    char names[512], have[512], want[512];
    nt_names_repr(t->names, t->ndim, names, sizeof names);
    nt_ints_repr(t->sizes, t->ndim, have, sizeof have);
    nt_ints_repr(sizes, ndim, want, sizeof want);
    return nt_fail(NT_ERR_RUNTIME,
                   "Cannot resize named tensor with resize_ or resize_as_ (tried to resize "
                   "Tensor%s with size %s to %s). This may be caused by passing a named tensor as "
                   "an `out=` argument; please ensure that the sizes are the same. ",
                   names, have, want);
}

/* Checks the shape t is to take; *same when nothing needs to change. */
static nt_status check(const nt_tensor *t, int ndim, const int64_t *sizes, bool *same,
                       int64_t *numel) {
    if (!t) return nt_fail(NT_ERR_TYPE, "resize_(): the tensor is NULL");
    if (ndim < 0 || ndim > NT_MAX_DIMS || (ndim > 0 && !sizes))
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    NT_TRY(check_named(t, ndim, sizes));
    *same = ndim == t->ndim;
    for (int i = 0; *same && i < ndim; i++)
        *same = sizes[i] == t->sizes[i];
    if (*same) return NT_OK;
    /* PyTorch multiplies the sizes as unsigned values: a negative size overflows */
    uint64_t n = 1;
    for (int i = 0; i < ndim; i++)
        if (sizes[i] < 0 || __builtin_mul_overflow(n, (uint64_t)sizes[i], &n) || n > INT64_MAX)
            return nt_fail(NT_ERR_RUNTIME, "numel: integer multiplication overflow");
    *numel = (int64_t)n;
    return NT_OK;
}

/* Checks the shape and grows the storage for it; *same when nothing needs to change. */
static nt_status prepare(nt_tensor *t, int ndim, const int64_t *sizes, bool *same, int64_t *numel) {
    NT_TRY(check(t, ndim, sizes, same, numel));
    uint64_t n = (uint64_t)*numel;
    if (*same || n == 0) return NT_OK;
    /* The offset is kept, and an empty view's may be as large as int64 allows. */
    size_t esize = nt_dtype_table[t->dtype].size, need;
    int64_t end;
    if (__builtin_add_overflow(t->offset, (int64_t)n, &end) ||
        __builtin_mul_overflow((size_t)end, esize, &need))
        return nt_fail(NT_ERR_RUNTIME,
                       "resize_: the storage size for storage offset %" PRId64 " and %" PRIu64
                       " elements overflows",
                       t->offset, n);
    nt_storage *s = t->storage;
    if (need <= s->nbytes) return NT_OK;
    return nt_storage_grow(s, need);
}

static nt_status set_geometry(nt_tensor *t, int ndim, const int64_t *sizes, int64_t numel) {
    NT_TRY(nt_tensor_reserve_dims(t, ndim));
    t->sizes = t->grown ? t->grown : t->dims;
    t->strides = t->grown ? t->grown + NT_MAX_DIMS : t->dims + ndim;
    if (ndim > 0) memmove(t->sizes, sizes, (size_t)ndim * sizeof *sizes); /* sizes: NULL for 0 */
    nt_contiguous_strides(ndim, t->sizes, t->strides);
    t->ndim = ndim;
    t->numel = numel;
    t->is_contiguous = true;
    return NT_OK;
}

/* resize_ without the dispatcher (out= tensors, cat). */
static nt_status resize(nt_tensor *t, int ndim, const int64_t *sizes) {
    bool same = false;
    int64_t numel = 0;
    int64_t copy[NT_MAX_DIMS];
    if (ndim > 0 && sizes && ndim <= NT_MAX_DIMS) {
        memcpy(copy, sizes, (size_t)ndim * sizeof *copy);
        sizes = copy;
    }
    NT_TRY(prepare(t, ndim, sizes, &same, &numel));
    return same ? NT_OK : set_geometry(t, ndim, sizes, numel);
}

/* resize to the template's shape, then its names as for an out= tensor */
static nt_status names_as(nt_tensor *t, const nt_tensor *tmpl) {
    NT_TRY(nt_names_check_out(t->names, t->ndim, tmpl->names, tmpl->ndim));
    if (tmpl->names && !t->names) NT_TRY(nt_tensor_set_names(t, tmpl->names));
    return NT_OK;
}

/* resize_(self, size) and resize_as_(self, the_template): self, resized, is the result. */
nt_status nt_impl_resize(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (c->op == NT_OP_RESIZE_AS) {
        const nt_tensor *tmpl = nt_call_tensor(c, 1);
        if (!tmpl) return nt_fail(NT_ERR_TYPE, "resize_as_(): the template is NULL");
        NT_TRY(resize(t, tmpl->ndim, tmpl->sizes));
        NT_TRY(names_as(t, tmpl));
    } else {
        NT_TRY(resize(t, c->args[1].n, c->args[1].v.ints));
    }
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

/* The shape rule: the size, or the template's (the same checks, no storage grown). */
nt_status nt_shape_resize(const nt_call *c, nt_shape *s) {
    const nt_tensor *tmpl = nt_call_tensor(c, 1);
    int ndim = tmpl ? tmpl->ndim : c->args[1].n;
    const int64_t *sizes = tmpl ? tmpl->sizes : c->args[1].v.ints;
    bool same;
    int64_t numel;
    NT_TRY(check(nt_call_tensor(c, 0), ndim, sizes, &same, &numel));
    nt_shape_set(s, ndim, sizes);
    return NT_OK;
}

nt_status nt_resize_(nt_tensor *t, int ndim, const int64_t *sizes) {
    nt_call c;
    nt_call_init(&c, NT_OP_RESIZE);
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(ndim, sizes);
    NT_TRY(nt_dispatch(&c));
    nt_tensor_release(c.result[0]);
    return NT_OK;
}

nt_status nt_resize_as_(nt_tensor *t, const nt_tensor *the_template) {
    nt_call c;
    nt_call_init(&c, NT_OP_RESIZE_AS);
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)the_template);
    NT_TRY(nt_dispatch(&c));
    nt_tensor_release(c.result[0]);
    return NT_OK;
}

/* resize_output: out's shape made the result's, with PyTorch's warning when it had
 * elements; `names` says whether a named out refuses (resize_'s named-tensor error). */
static nt_status out_resize(nt_tensor *out, int ndim, const int64_t *sizes, bool names) {
    bool same = ndim == out->ndim;
    for (int i = 0; same && i < ndim; i++)
        same = sizes[i] == out->sizes[i];
    if (same) return NT_OK;
    char have[256], want[256];
    bool had_elements = out->numel > 0;
    nt_ints_repr(out->sizes, out->ndim, have, sizeof have);
    nt_ints_repr(sizes, ndim, want, sizeof want);
    if (names || !out->names) {
        NT_TRY(resize(out, ndim, sizes));
    } else {
        /* PyTorch's NoNamesGuard: resized as unnamed, its names then cut or padded with
         * None to the new dims */
        nt_name kept[NT_MAX_DIMS] = {0};
        memcpy(kept, out->names, (size_t)(out->ndim < ndim ? out->ndim : ndim) * sizeof *kept);
        NT_TRY(nt_tensor_set_names(out, NULL));
        NT_TRY(resize(out, ndim, sizes));
        NT_TRY(nt_tensor_set_names(out, kept));
    }
    if (had_elements)
        nt_warn("An output with one or more elements was resized since it had shape %s, which "
                "does not match the required output shape %s. This behavior is deprecated, and "
                "in a future PyTorch release outputs will not be resized unless they have zero "
                "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
                "zero elements with t.resize_(0).",
                have, want);
    return NT_OK;
}

nt_status nt_out_resize(nt_tensor *out, int ndim, const int64_t *sizes) {
    return out_resize(out, ndim, sizes, true);
}

nt_status nt_out_resize_ignoring_names(nt_tensor *out, int ndim, const int64_t *sizes) {
    return out_resize(out, ndim, sizes, false);
}
