/*
 * flatten.c — flatten (a range of dims, or consecutive dims given by name) and unflatten.
 *
 * flatten merges consecutive dims into one. Like PyTorch's it goes through reshape: a view
 * when the strides allow it, otherwise a contiguous copy. unflatten splits one dim into
 * several, which strides can always express, so it is always a view.
 *
 * Names: the named flatten gives the merged dim `out_name` (None allowed) and keeps the
 * others; the positional flatten (nt_flatten_dims) leaves the merged dim unnamed, since
 * PyTorch refuses it on named tensors; unflatten gives the new dims the names it is given
 * and keeps the others. Messages are PyTorch 1.13's. Dims are nt_dim (indices or names).
 * The rows FLATTEN_OUT, FLATTEN, FLATTEN_NAMED_RANGE, FLATTEN_NAMES (PyTorch's overloads,
 * in its order), UNFLATTEN_NAMED and UNFLATTEN run nt_impl_flatten / nt_impl_unflatten;
 * their shape rules (nt_shape_flatten, nt_shape_unflatten) run the same steps into an
 * nt_view_dest that keeps only the sizes (ops/shape.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "dispatch/dispatch.h"
#include "names/names.h"

/* Wraps [start, end] into t's dims and checks their order. */
static nt_status wrap_range(const nt_tensor *t, nt_dim start, nt_dim end, int64_t *s, int64_t *e) {
    NT_TRY(nt_tensor_dim(t, start, s));
    NT_TRY(nt_tensor_dim(t, end, e));
    if (*s > *e)
        return nt_fail(NT_ERR_RUNTIME,
                       "flatten() has invalid args: start_dim cannot come after end_dim");
    return NT_OK;
}

/* t's shape with dims [s, e] merged into one (ndim - (e - s) dims). The product is checked
 * because a zero elsewhere lets the other sizes be as large as they like. */
static nt_status merged_shape(const nt_tensor *t, int64_t s, int64_t e, int64_t *sizes) {
    int64_t merged = 1;
    for (int64_t i = s; i <= e; i++)
        if (__builtin_mul_overflow(merged, t->sizes[i], &merged))
            return nt_fail(NT_ERR_RUNTIME, "the number of elements overflows int64");
    int n = 0;
    for (int i = 0; i < s; i++)
        sizes[n++] = t->sizes[i];
    sizes[n++] = merged;
    for (int i = (int)e + 1; i < t->ndim; i++)
        sizes[n++] = t->sizes[i];
    return NT_OK;
}

/* t's names with dims [s, e] replaced by `merged` (NULL when t is unnamed and so is
 * `merged`). */
static const nt_name *merged_names(const nt_tensor *t, int64_t s, int64_t e, nt_name merged,
                                   nt_name *names) {
    if (!t->names && merged == NT_NAME_NONE) return NULL;
    int n = 0;
    for (int i = 0; i < s; i++)
        names[n++] = nt_tensor_name_at(t, i);
    names[n++] = merged;
    for (int i = (int)e + 1; i < t->ndim; i++)
        names[n++] = nt_tensor_name_at(t, i);
    return names;
}

static nt_status flatten(nt_tensor *t, nt_dim start, nt_dim end, nt_name out_name,
                         nt_view_dest out) {
    int64_t s, e;
    NT_TRY(wrap_range(t, start, end, &s, &e));
    NT_TRY(nt_names_check_known(&out_name, 1));
    if (t->ndim == 0) { /* a scalar flattens to one element (PyTorch: reshape({1})) */
        int64_t one = 1;
        return nt_view_named(t, 1, &one, out_name ? &out_name : NULL, false, out);
    }
    int ndim = t->ndim - (int)(e - s);
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names = merged_names(t, s, e, out_name, buf);
    if (names) NT_TRY(nt_names_check_unique(names, ndim));
    if (s == e) /* nothing to merge: only the dim's name changes */
        return nt_view_deliver(t, t->ndim, t->sizes, t->strides, t->offset, names, out);
    int64_t sizes[NT_MAX_DIMS];
    NT_TRY(merged_shape(t, s, e, sizes));
    return nt_view_named(t, ndim, sizes, names, true, out);
}

static nt_status flatten_dims(nt_tensor *t, nt_dim start, nt_dim end, nt_view_dest out) {
    int64_t s, e;
    NT_TRY(wrap_range(t, start, end, &s, &e));
    if (t->ndim == 0) {
        int64_t one = 1;
        return nt_view_named(t, 1, &one, NULL, false, out);
    }
    if (s == e) { /* PyTorch returns the input itself */
        if (out.shape)
            return nt_view_deliver(t, t->ndim, t->sizes, t->strides, t->offset, NULL, out);
        *out.out = nt_tensor_retain(t);
        return NT_OK;
    }
    nt_name buf[NT_MAX_DIMS];
    int64_t sizes[NT_MAX_DIMS];
    NT_TRY(merged_shape(t, s, e, sizes));
    return nt_view_named(t, t->ndim - (int)(e - s), sizes, merged_names(t, s, e, NT_NAME_NONE, buf),
                         true, out);
}

static nt_status flatten_names(nt_tensor *t, int count, const nt_name *dims, nt_name out_name,
                               nt_view_dest out) {
    int64_t first = 0, prev = 0, at;
    for (int i = 0; i < count; i++)
        NT_TRY(nt_tensor_dim_of(t, dims[i], &at));
    if (count <= 0)
        return nt_fail(NT_ERR_RUNTIME, "flatten(tensor, dims, out_dim): dims cannot be empty");
    for (int i = 0; i < count; i++) {
        at = nt_names_find(t, dims[i]);
        if (i == 0) {
            first = at;
        } else if (at != prev + 1) {
            char want[512], have[512];
            nt_names_repr(dims, count, want, sizeof want);
            nt_names_repr(t->names, t->ndim, have, sizeof have);
            return nt_fail(NT_ERR_RUNTIME,
                           "flatten(tensor, dims, out_dim): dims %s must be consecutive in "
                           "Tensor%s",
                           want, have);
        }
        prev = at;
    }
    return flatten(t, first, prev, out_name, out);
}

/* ------------------------------------------------------------------ unflatten */

/* Rewrites nt_infer_size's failure the way PyTorch's unflatten does. */
static nt_status unflatten_size_error(const nt_tensor *t, int64_t d, int count,
                                      const int64_t *sizes, nt_infer_failure why) {
    char want[512], have[512];
    if (why == NT_INFER_TWO_UNKNOWN)
        return nt_fail(NT_ERR_RUNTIME,
                       "unflatten got an unexpected error:\nonly one dimension can be inferred");
    if (why != NT_INFER_MISMATCH) return NT_ERR_RUNTIME; /* its own message stands */
    nt_ints_repr(sizes, count, want, sizeof want);
    if (!t->names)
        return nt_fail(NT_ERR_RUNTIME,
                       "unflatten: Provided sizes %s don't multiply up to the size of dim "
                       "%" PRId64 " (%" PRId64 ") in the input tensor",
                       want, d, t->sizes[d]);
    const char *name = nt_name_str(t->names[d]);
    char dim_name[300];
    snprintf(dim_name, sizeof dim_name, name ? "'%s'" : "%s", name ? name : "None");
    nt_names_repr(t->names, t->ndim, have, sizeof have);
    return nt_fail(NT_ERR_RUNTIME,
                   "unflatten: Provided sizes %s don't multiply up to the size of dim %" PRId64
                   " (%s: %" PRId64 ") in Tensor%s",
                   want, d, dim_name, t->sizes[d], have);
}

static nt_status unflatten(nt_tensor *t, nt_dim dim, int count, const int64_t *sizes,
                           const nt_name *names, nt_view_dest out) {
    int64_t d;
    NT_TRY(nt_tensor_dim(t, dim, &d));
    if (t->ndim == 0)
        return nt_fail(NT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    if (count <= 0) return nt_fail(NT_ERR_RUNTIME, "unflatten: sizes must be non-empty");
    if (t->names && !names)
        return nt_fail(NT_ERR_RUNTIME, "unflatten: input is a named tensor but no names were "
                                       "given for unflattened sizes");
    int ndim = t->ndim - 1 + count;
    if (ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    int64_t shape[NT_MAX_DIMS];
    nt_infer_failure why = NT_INFER_OK;
    if (nt_infer_size(count, sizes, t->sizes[d], shape + d, &why) != NT_OK)
        return unflatten_size_error(t, d, count, sizes, why);
    memcpy(shape, t->sizes, (size_t)d * sizeof *shape);
    memcpy(shape + d + count, t->sizes + d + 1, (size_t)(t->ndim - d - 1) * sizeof *shape);
    nt_name out_names[NT_MAX_DIMS];
    if (names) {
        NT_TRY(nt_names_check_known(names, count));
        for (int i = 0; i < d; i++)
            out_names[i] = nt_tensor_name_at(t, i);
        memcpy(out_names + d, names, (size_t)count * sizeof *names);
        for (int i = (int)d + 1; i < t->ndim; i++)
            out_names[i - 1 + count] = nt_tensor_name_at(t, i);
        NT_TRY(nt_names_check_unique(out_names, ndim));
    }
    return nt_view_named(t, ndim, shape, names ? out_names : NULL, false, out);
}

/* ------------------------------------------------------------------ the op table's functions */

/* The one name of a Dimname slot, or None. */
static nt_name name_arg(const nt_arg *a) {
    return a->kind == NT_ARG_NAMES && a->n == 1 ? a->v.names[0] : NT_NAME_NONE;
}

static nt_dim dim_arg(const nt_call *c, int i, nt_dim def) {
    return c->args[i].kind == NT_ARG_DIM ? c->args[i].v.dim : def;
}

/* flatten(start, end, out_dim) by index or name, flatten(start=0, end=-1), flatten(dims,
 * out_dim): the view (the impl) or its shape (the shape rule). */
static nt_status flatten_call(const nt_call *c, nt_view_dest d) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("flatten", "self");
    switch (c->op) {
    case NT_OP_FLATTEN:
        return flatten_dims(t, dim_arg(c, 1, 0), dim_arg(c, 2, -1), d);
    case NT_OP_FLATTEN_NAMES:
        return flatten_names(t, c->args[1].n, c->args[1].v.names, name_arg(&c->args[2]), d);
    default:
        return flatten(t, dim_arg(c, 1, 0), dim_arg(c, 2, -1), name_arg(&c->args[3]), d);
    }
}

nt_status nt_impl_flatten(nt_call *c) {
    return flatten_call(c, nt_view_to(&c->result[0]));
}

nt_status nt_shape_flatten(const nt_call *c, nt_shape *s) {
    return flatten_call(c, nt_view_shape(s));
}

/* unflatten(dim, sizes) and unflatten(dim, sizes, names). */
static nt_status unflatten_call(const nt_call *c, nt_view_dest d) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("unflatten", "self");
    const nt_arg *names = &c->args[3];
    if (c->op == NT_OP_UNFLATTEN_NAMED && names->kind == NT_ARG_NAMES && names->n != c->args[2].n)
        return nt_fail(NT_ERR_RUNTIME,
                       "unflatten: %d sizes but %d names were given for the unflattened dims",
                       (int)c->args[2].n, (int)names->n);
    return unflatten(
        t, dim_arg(c, 1, 0), c->args[2].n, c->args[2].v.ints,
        c->op == NT_OP_UNFLATTEN_NAMED && names->kind == NT_ARG_NAMES ? names->v.names : NULL, d);
}

nt_status nt_impl_unflatten(nt_call *c) {
    return unflatten_call(c, nt_view_to(&c->result[0]));
}

nt_status nt_shape_unflatten(const nt_call *c, nt_shape *s) {
    return unflatten_call(c, nt_view_shape(s));
}

static nt_status run(nt_call *c, nt_tensor **out) {
    NT_TRY(nt_dispatch(c));
    *out = c->result[0];
    return NT_OK;
}

nt_status nt_flatten(nt_tensor *t, nt_dim start, nt_dim end, nt_name out_name, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_FLATTEN_OUT);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(start);
    c.args[2] = nt_arg_dim(end);
    c.args[3] = nt_arg_names(1, &out_name, -1);
    return run(&c, out);
}

nt_status nt_flatten_dims(nt_tensor *t, nt_dim start, nt_dim end, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_FLATTEN);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(start);
    c.args[2] = nt_arg_dim(end);
    return run(&c, out);
}

nt_status nt_flatten_names(nt_tensor *t, int count, const nt_name *dims, nt_name out_name,
                           nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_FLATTEN_NAMES);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_names(count, dims, -1);
    c.args[2] = nt_arg_names(1, &out_name, -1);
    return run(&c, out);
}

nt_status nt_unflatten(nt_tensor *t, nt_dim dim, int count, const int64_t *sizes,
                       const nt_name *names, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, names ? NT_OP_UNFLATTEN_NAMED : NT_OP_UNFLATTEN);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_ints(count, sizes);
    c.args[3] = names ? nt_arg_names(count, names, -1) : nt_arg_none();
    return run(&c, out);
}
