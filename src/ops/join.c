/*
 * join.c — joining and splitting: cat, stack, split, split_with_sizes, chunk, unbind.
 *
 * cat follows PyTorch 1.13's checks in order (zero-dim inputs, the legacy skip of 1-d empty
 * tensors, names, the non-empty list, dtype promotion and the out= cast rule, shapes), then
 * copies each input into its narrow of the result (dtype conversion included) with the
 * iterator. stack is cat of views unsqueezed at `dim` (PyTorch refuses named tensors here;
 * we unify the names and leave the new dim unnamed). The splits are narrow/select views,
 * returned as an array the caller releases with nt_tensors_release. Their shape rules
 * (nt_shape_cat, _stack, _split) run the same checks and stop before the result is made.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "index.h"
#include "iter/iter.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/out.h"

void nt_tensors_release(nt_tensor **tensors, int64_t count) {
    if (!tensors) return;
    for (int64_t i = 0; i < count; i++)
        nt_tensor_release(tensors[i]);
    free(tensors);
}

static bool skip_legacy(const nt_tensor *t) {
    return t->ndim == 1 && t->sizes[0] == 0;
}

/* PyTorch's canCast (no complex types here). */
static bool can_cast(nt_dtype from, nt_dtype to) {
    if (nt_dtype_is_floating(from) && !nt_dtype_is_floating(to) && to != NT_BOOL) return false;
    if (nt_dtype_is_floating(from) && to == NT_BOOL) return false;
    if (from != NT_BOOL && to == NT_BOOL) return false;
    return true;
}

/* cat of count tensors along dim into out (NULL: a new tensor) as *result; or, when `shape`
 * is set (the shape query), only the checks and the result's shape. */
static nt_status cat_impl(const char *action, int count, nt_tensor *const *ts, int64_t dim,
                          nt_tensor *out, nt_tensor **result, nt_shape *shape) {
    if (count < 0 || (count > 0 && !ts)) return nt_fail(NT_ERR_VALUE, "cat: invalid tensor list");
    for (int i = 0; i < count; i++) {
        if (!ts[i]) return nt_fail(NT_ERR_TYPE, "expected Tensor as element %d, got NULL", i);
        if (ts[i]->ndim == 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "zero-dimensional tensor (at position %d) cannot be concatenated", i);
    }
    for (int i = 0; i < count; i++)
        if (!skip_legacy(ts[i])) {
            NT_TRY(nt_wrap_dim(dim, ts[i]->ndim, &dim));
            break;
        }
    /* names, before the shapes */
    nt_name names_buf[NT_MAX_DIMS];
    const nt_name *names = NULL;
    bool any_named = false;
    for (int i = 0; i < count; i++)
        any_named = any_named || ts[i]->names;
    if (any_named) {
        const nt_name *lists[256];
        int ndims[256];
        if (count > 256) return nt_fail(NT_ERR_RUNTIME, "cat: too many named tensors");
        for (int i = 0; i < count; i++) {
            if (i > 0 && ts[i]->ndim != ts[0]->ndim)
                return nt_fail(NT_ERR_RUNTIME,
                               "Tensors must have same number of dimensions: got %d and %d",
                               ts[0]->ndim, ts[i]->ndim);
            lists[i] = ts[i]->names;
            ndims[i] = ts[i]->ndim;
        }
        int nd;
        NT_TRY(nt_names_unify_many(action, count, lists, ndims, names_buf, &nd, &names));
    }
    if (count == 0)
        return nt_fail(NT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    nt_dtype dtype = ts[0]->dtype;
    for (int i = 1; i < count; i++)
        dtype = nt_promote_types(dtype, ts[i]->dtype);
    if (out) {
        if (!can_cast(dtype, out->dtype))
            return nt_fail(NT_ERR_RUNTIME,
                           "torch.cat(): input types can't be cast to the desired output type %s",
                           nt_dtype_torch_name(out->dtype));
        dtype = out->dtype;
    }
    int valid = -1;
    for (int i = 0; i < count && valid < 0; i++)
        if (!skip_legacy(ts[i])) valid = i;
    int64_t sizes[NT_MAX_DIMS] = {0};
    int ndim = 1;
    if (valid >= 0) {
        const nt_tensor *v = ts[valid];
        int64_t total = 0;
        for (int i = 0; i < count; i++) {
            const nt_tensor *t = ts[i];
            if (skip_legacy(t)) continue;
            if (t->ndim != v->ndim)
                return nt_fail(NT_ERR_RUNTIME,
                               "Tensors must have same number of dimensions: got %d and %d",
                               v->ndim, t->ndim);
            for (int d = 0; d < v->ndim; d++)
                if (d != dim && t->sizes[d] != v->sizes[d])
                    return nt_fail(NT_ERR_RUNTIME,
                                   "Sizes of tensors must match except in dimension %" PRId64
                                   ". Expected size %" PRId64 " but got size %" PRId64
                                   " for tensor number %d in the list.",
                                   dim, v->sizes[d], t->sizes[d], i);
            if (__builtin_add_overflow(total, t->sizes[dim], &total))
                return nt_fail(NT_ERR_RUNTIME, "cat: the result size overflows");
        }
        ndim = v->ndim;
        memcpy(sizes, v->sizes, (size_t)ndim * sizeof *sizes);
        sizes[dim] = total;
    }
    if (shape) {
        nt_shape_set(shape, ndim, sizes);
        return NT_OK;
    }
    nt_tensor *r = NULL;
    nt_status st = NT_OK;
    if (out) {
        NT_TRY(nt_check_no_internal_overlap(out));
        /* out given as an input too: resizing out would resize that input, even when it
         * holds no element for the overlap checks to see (PyTorch refuses it as well). */
        for (int i = 0; i < count; i++)
            if (ts[i] == out)
                return nt_fail(NT_ERR_RUNTIME,
                               "unsupported operation: some elements of the input tensor and the "
                               "written-to tensor refer to a single memory location. Please "
                               "clone() the tensor before performing the operation.");
        for (int i = 0; i < count; i++)
            if (nt_extents_overlap(out, ts[i]) && nt_overlap_status(out, ts[i]) != NT_OVERLAP_NO)
                return nt_fail(NT_ERR_RUNTIME,
                               "unsupported operation: the input tensors cannot refer to any of "
                               "the output memory locations. Found overlap in input tensor %d",
                               i);
        NT_TRY(nt_out_resize(out, ndim, sizes));
        if (names) NT_TRY(nt_names_check_out(out->names, out->ndim, names, ndim));
        r = nt_tensor_retain(out);
        if (names && !r->names) NT_CHECK(st, nt_tensor_set_names(r, names));
    } else {
        NT_TRY(nt_tensor_alloc(dtype, ndim, sizes, names, &r));
    }
    int64_t at = 0;
    for (int i = 0; i < count && valid >= 0; i++) {
        const nt_tensor *t = ts[i];
        if (skip_legacy(t)) continue;
        int64_t part_sizes[NT_MAX_DIMS];
        memcpy(part_sizes, r->sizes, (size_t)ndim * sizeof *part_sizes);
        part_sizes[dim] = t->sizes[dim];
        nt_tensor *part = NULL;
        NT_CHECK(st,
                 nt_index_restride(r, ndim, part_sizes, r->strides,
                                   nt_offset_moved(r->offset, at, r->strides[dim]), NULL, &part));
        /* copy without names: the result's names were computed above */
        nt_tensor *src = NULL;
        st = nt_index_restride(t, t->ndim, t->sizes, t->strides, t->offset, NULL, &src);
        if (st == NT_OK) st = nt_copy_values(part, src);
        nt_tensor_release(src);
        nt_tensor_release(part);
        if (st != NT_OK) goto fail;
        at += t->sizes[dim];
    }
    *result = r;
    return NT_OK;
fail:
    nt_tensor_release(r);
    return st;
}

/* A dim argument of a tensor list: a name is looked up in the first tensor. */
static nt_status list_dim(const char *fn, int count, nt_tensor *const *ts, nt_dim dim,
                          int64_t *out) {
    *out = dim;
    if (!nt_dim_is_name(dim)) return NT_OK;
    if (count <= 0 || !ts || !ts[0])
        return nt_fail(NT_ERR_RUNTIME, "%s(): expected a non-empty list of Tensors", fn);
    return nt_tensor_dim(ts[0], dim, out);
}

/* cat(tensors, dim=0, *, out=None): the result, or its shape */
static nt_status cat_call(const nt_call *c, nt_tensor **result, nt_shape *shape) {
    int count = c->args[0].n;
    nt_tensor *const *ts = c->args[0].v.tensors;
    int64_t dim;
    NT_TRY(list_dim("cat", count, ts, c->args[1].kind == NT_ARG_DIM ? c->args[1].v.dim : 0, &dim));
    return cat_impl("cat", count, ts, dim, c->out[0], result, shape);
}

nt_status nt_impl_cat(nt_call *c) {
    return cat_call(c, &c->result[0], NULL);
}

nt_status nt_shape_cat(const nt_call *c, nt_shape *s) {
    return cat_call(c, NULL, s);
}

/* stack(tensors, dim=0, *, out=None): cat of the tensors each unsqueezed at dim; the
 * result, or its shape */
static nt_status stack_call(const nt_call *c, nt_tensor **result, nt_shape *shape) {
    int count = c->args[0].n;
    nt_tensor *const *tensors = c->args[0].v.tensors;
    if (count <= 0 || !tensors)
        return nt_fail(NT_ERR_RUNTIME, "stack expects a non-empty TensorList");
    for (int i = 0; i < count; i++)
        if (!tensors[i]) return nt_fail(NT_ERR_TYPE, "expected Tensor as element %d, got NULL", i);
    int64_t dim, d;
    NT_TRY(list_dim("stack", count, tensors, c->args[1].kind == NT_ARG_DIM ? c->args[1].v.dim : 0,
                    &dim));
    NT_TRY(nt_wrap_dim(dim, tensors[0]->ndim + 1, &d));
    for (int i = 1; i < count; i++) {
        bool same = tensors[i]->ndim == tensors[0]->ndim;
        for (int k = 0; same && k < tensors[0]->ndim; k++)
            same = tensors[i]->sizes[k] == tensors[0]->sizes[k];
        if (!same) {
            char a[512], b[512];
            nt_ints_repr(tensors[0]->sizes, tensors[0]->ndim, a, sizeof a);
            nt_ints_repr(tensors[i]->sizes, tensors[i]->ndim, b, sizeof b);
            return nt_fail(NT_ERR_RUNTIME,
                           "stack expects each tensor to be equal size, but got %s at entry 0 and "
                           "%s at entry %d",
                           a, b, i);
        }
    }
    if (shape) { /* the tensors' shape with a dim of `count` inserted at d */
        const nt_tensor *t = tensors[0];
        if (t->ndim + 1 > NT_MAX_DIMS)
            return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                           NT_MAX_DIMS, t->ndim + 1);
        shape->ndim = t->ndim + 1;
        for (int i = 0, j = 0; i < shape->ndim; i++)
            shape->sizes[i] = i == d ? count : t->sizes[j++];
        return NT_OK;
    }
    nt_tensor **views = calloc((size_t)count, sizeof *views);
    if (!views) return nt_fail_oom((size_t)count * sizeof *views);
    nt_status st = NT_OK;
    for (int i = 0; i < count && st == NT_OK; i++)
        st = nt_unsqueeze(tensors[i], d, &views[i]);
    if (st == NT_OK) st = cat_impl("stack", count, views, d, c->out[0], result, NULL);
    for (int i = 0; i < count; i++)
        nt_tensor_release(views[i]);
    free(views);
    return st;
}

nt_status nt_impl_stack(nt_call *c) {
    return stack_call(c, &c->result[0], NULL);
}

nt_status nt_shape_stack(const nt_call *c, nt_shape *s) {
    return stack_call(c, NULL, s);
}

/* ------------------------------------------------------------------ splitting */

/* The most parts split, chunk and unbind make. A dim may hold up to 2^63 - 1 elements (an
 * expanded one costs no memory), but each part is a tensor of its own: a list of more than
 * 2^32 of them needs 32 GiB for its pointers and far more for the tensors, so it is refused
 * up front rather than asked of an allocator that can only fail. */
#define MAX_PARTS ((int64_t)1 << 32)

/* Where the parts go: a new list (*list, *count), or, for the shape query, the length and
 * the shape of entry shape->index. */
typedef struct list_dest {
    nt_tensor ***list;
    int64_t *count;
    nt_shape *shape;
} list_dest;

static nt_status check_parts(const char *fn, int64_t n) {
    if (n > MAX_PARTS)
        return nt_fail(NT_ERR_RUNTIME, "%s: cannot make %" PRId64 " tensors (at most %" PRId64 ")",
                       fn, n, MAX_PARTS);
    return NT_OK;
}

static nt_status new_list(const char *fn, int64_t n, nt_tensor ***out) {
    NT_TRY(check_parts(fn, n));
    *out = calloc(n > 0 ? (size_t)n : 1, sizeof **out);
    return *out ? NT_OK : nt_fail_oom((size_t)n * sizeof **out);
}

/* The shape query's answer for a list of n parts: t's shape with dim d of `size` (d < 0:
 * removed) for the entry asked for. */
static nt_status part_shape(const char *fn, const nt_tensor *t, int64_t d, int64_t n, int64_t size,
                            nt_shape *s) {
    NT_TRY(check_parts(fn, n));
    s->ndim = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != d || size >= 0) s->sizes[s->ndim++] = i == d ? size : t->sizes[i];
    s->count = n;
    return NT_OK;
}

/* narrows of t along d at the given lengths, consecutive from 0 */
static nt_status narrows(const char *fn, nt_tensor *t, int64_t d, int64_t n, const int64_t *lengths,
                         int64_t uniform, int64_t last, list_dest out) {
    if (out.shape) {
        int64_t k = out.shape->index >= 0 && out.shape->index < n ? out.shape->index : 0;
        int64_t len = n == 0 ? 0 : lengths ? lengths[k] : (k < n - 1 ? uniform : last);
        return part_shape(fn, t, d, n, len, out.shape);
    }
    nt_tensor **list;
    NT_TRY(new_list(fn, n, &list));
    int64_t start = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = lengths ? lengths[i] : (i < n - 1 ? uniform : last);
        nt_status st = nt_narrow(t, d, start, len, &list[i]);
        if (st != NT_OK) {
            nt_tensors_release(list, i);
            return st;
        }
        start += len;
    }
    *out.list = list;
    *out.count = n;
    return NT_OK;
}

static nt_status split(nt_tensor *t, int64_t split_size, int64_t dim, list_dest out) {
    if (t->ndim == 0)
        return nt_fail(NT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    if (split_size < 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "split expects split_size be non-negative, but got split_size=%" PRId64,
                       split_size);
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
    int64_t size = t->sizes[d];
    if (split_size == 0 && size != 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "split_size can only be 0 if dimension size is 0, but got dimension size "
                       "of %" PRId64,
                       size);
    int64_t n = split_size == 0 || size == 0 ? 1 : (size - 1) / split_size + 1;
    int64_t last = size - split_size * (n - 1);
    if (split_size == 0) last = 0;
    return narrows("split", t, d, n, NULL, split_size, last, out);
}

static nt_status split_with_sizes(nt_tensor *t, int nsizes, const int64_t *sizes, int64_t dim,
                                  list_dest out) {
    if (nsizes < 0)
        return nt_fail(NT_ERR_VALUE, "split_with_sizes(): negative number of sizes (%d)", nsizes);
    if (t->ndim == 0)
        return nt_fail(NT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
    char text[1024];
    nt_ints_repr(sizes, nsizes, text, sizeof text);
    int64_t total = 0;
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] < 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "split_with_sizes expects split_sizes have only non-negative entries, "
                           "but got split_sizes=%s",
                           text);
        if (__builtin_add_overflow(total, sizes[i], &total)) total = INT64_MAX;
    }
    if (total != t->sizes[d])
        return nt_fail(NT_ERR_RUNTIME,
                       "split_with_sizes expects split_sizes to sum exactly to %" PRId64
                       " (input tensor's size at dimension %" PRId64 "), but got split_sizes=%s",
                       t->sizes[d], dim, text);
    return narrows("split_with_sizes", t, d, nsizes, sizes, 0, 0, out);
}

static nt_status chunk(nt_tensor *t, int64_t chunks, int64_t dim, list_dest out) {
    if (t->ndim == 0)
        return nt_fail(NT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return nt_fail(NT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %" PRId64,
                       chunks);
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
    int64_t size = t->sizes[d];
    if (size == 0) {
        /* as many empty chunks as asked for */
        return narrows("chunk", t, d, chunks, NULL, 0, 0, out);
    }
    return split(t, (size - 1) / chunks + 1, d, out);
}

static nt_status unbind(nt_tensor *t, int64_t dim, list_dest out) {
    if (t->ndim == 0)
        return nt_fail(NT_ERR_INDEX,
                       "Dimension specified as %" PRId64 " but tensor has no dimensions", dim);
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
    int64_t n = t->sizes[d];
    if (out.shape) return part_shape("unbind", t, d, n, -1, out.shape);
    nt_tensor **list;
    NT_TRY(new_list("unbind", n, &list));
    for (int64_t i = 0; i < n; i++) {
        nt_status st = nt_select(t, d, i, &list[i]);
        if (st != NT_OK) {
            nt_tensors_release(list, i);
            return st;
        }
    }
    *out.list = list;
    *out.count = n;
    return NT_OK;
}

/* split, split(sizes), split_with_sizes, chunk, unbind: the parts (into c->list), or their
 * shapes. A dim by name is looked up first; an index is checked by each op in PyTorch's
 * order. */
static nt_status split_parts(const nt_call *c, list_dest out) {
    nt_tensor *t = nt_call_tensor(c, 0);
    const nt_op_row *row = nt_op_row_of(c->op);
    if (!t) return nt_fail_null_tensor(row->name, "input");
    int ds = c->op == NT_OP_UNBIND ? 1 : 2;
    int64_t dim = c->args[ds].kind == NT_ARG_DIM ? c->args[ds].v.dim : 0;
    if (nt_dim_is_name(dim)) NT_TRY(nt_tensor_dim(t, dim, &dim));
    switch (c->op) {
    case NT_OP_SPLIT:
        return split(t, c->args[1].v.i, dim, out);
    case NT_OP_CHUNK:
        return chunk(t, c->args[1].v.i, dim, out);
    case NT_OP_UNBIND:
        return unbind(t, dim, out);
    default:
        if (c->args[1].n < 0)
            return nt_fail(NT_ERR_VALUE, "split_with_sizes(): negative number of sizes (%d)",
                           (int)c->args[1].n);
        return split_with_sizes(t, c->args[1].n, c->args[1].v.ints, dim, out);
    }
}

nt_status nt_impl_split(nt_call *c) {
    list_dest out = {&c->list, &c->nlist, NULL};
    return split_parts(c, out);
}

nt_status nt_shape_split(const nt_call *c, nt_shape *s) {
    list_dest out = {NULL, NULL, s};
    return split_parts(c, out);
}

/* ------------------------------------------------------------------ the public functions */

nt_status nt_cat(int count, nt_tensor *const *tensors, nt_dim dim, nt_tensor *out,
                 nt_tensor **result) {
    if (!result) return nt_fail(NT_ERR_VALUE, "cat(): the result pointer is NULL");
    if (count < 0 || (count > 0 && !tensors))
        return nt_fail(NT_ERR_VALUE, "cat: invalid tensor list");
    nt_call c;
    nt_call_init(&c, NT_OP_CAT);
    c.out[0] = out;
    c.args[0] = nt_arg_tensors(count, tensors);
    c.args[1] = nt_arg_dim(dim);
    NT_TRY(nt_dispatch(&c));
    *result = c.result[0];
    return NT_OK;
}

nt_status nt_stack(int count, nt_tensor *const *tensors, nt_dim dim, nt_tensor *out,
                   nt_tensor **result) {
    if (!result) return nt_fail(NT_ERR_VALUE, "stack(): the result pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_STACK);
    c.out[0] = out;
    c.args[0] = nt_arg_tensors(count, tensors);
    c.args[1] = nt_arg_dim(dim);
    NT_TRY(nt_dispatch(&c));
    *result = c.result[0];
    return NT_OK;
}

/* Runs a split-family call and hands back its list. */
static nt_status split_call(nt_call *c, nt_tensor ***out, int64_t *count) {
    NT_TRY(nt_dispatch(c));
    *out = c->list;
    *count = c->nlist;
    return NT_OK;
}

nt_status nt_split(nt_tensor *t, int64_t split_size, nt_dim dim, nt_tensor ***out, int64_t *count) {
    if (!t || !out || !count) return nt_fail(NT_ERR_VALUE, "split(): NULL argument");
    nt_call c;
    nt_call_init(&c, NT_OP_SPLIT);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(split_size);
    c.args[2] = nt_arg_dim(dim);
    return split_call(&c, out, count);
}

nt_status nt_split_with_sizes(nt_tensor *t, int nsizes, const int64_t *sizes, nt_dim dim,
                              nt_tensor ***out, int64_t *count) {
    if (!t || !out || !count || (nsizes > 0 && !sizes))
        return nt_fail(NT_ERR_VALUE, "split_with_sizes(): NULL argument");
    nt_call c;
    nt_call_init(&c, NT_OP_SPLIT_WITH_SIZES);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(nsizes, sizes);
    c.args[2] = nt_arg_dim(dim);
    return split_call(&c, out, count);
}

nt_status nt_chunk(nt_tensor *t, int64_t chunks, nt_dim dim, nt_tensor ***out, int64_t *count) {
    if (!t || !out || !count) return nt_fail(NT_ERR_VALUE, "chunk(): NULL argument");
    nt_call c;
    nt_call_init(&c, NT_OP_CHUNK);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(chunks);
    c.args[2] = nt_arg_dim(dim);
    return split_call(&c, out, count);
}

nt_status nt_unbind(nt_tensor *t, nt_dim dim, nt_tensor ***out, int64_t *count) {
    if (!t || !out || !count) return nt_fail(NT_ERR_VALUE, "unbind(): NULL argument");
    nt_call c;
    nt_call_init(&c, NT_OP_UNBIND);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    return split_call(&c, out, count);
}
