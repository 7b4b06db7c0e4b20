/*
 * index.c — t[...] and t[...] = v: PyTorch 1.13's Python indexing (applySlicing, then
 * advanced indexing through at::index / index_put_).
 *
 * Basic indices (ints, slices, None, Ellipsis) only change a layout `plan` (sizes, strides,
 * offset, names), so without tensor indices the result is a view. Tensor indices (and the
 * Python bools, which PyTorch turns into [0] / [] index tensors) are recorded per dim, as
 * PyTorch records them: a multi-dim bool tensor advances the dim counter by one only, a
 * PyTorch quirk kept so that the same calls fail the same way. Advanced indexing then
 * expands masks into nonzero() columns, broadcasts the index tensors, and computes one byte
 * offset per broadcast position (checking bounds, serially, so the first bad index is the
 * one reported). The gather and the scatter are a 3-operand iterator run (out, source
 * restrided with stride 0 along the broadcast dims, offsets restrided with stride 0 along
 * the others) with one loop per element size (kernels/index_kernels.c), in parallel.
 *
 * Names: an int-indexed dim loses its name, a sliced dim keeps it, a new dim is unnamed,
 * the broadcast dims of advanced indexing are unnamed (PyTorch refuses named tensors for
 * None and tensor indices; see docs/decisions_ops_index.md).
 */
#include "index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "dispatch/dispatch.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "kernels/index_kernels.h"
#include "names/infer.h"
#include "names/names.h"
#include "ntensor/autograd.h"

nt_status nt_index_restride(const nt_tensor *t, int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, const nt_name *names,
                            nt_tensor **out) {
    return nt_tensor_make(t->storage, t->dtype, ndim, sizes, strides, offset, names, out);
}

/* ------------------------------------------------------------------ nonzero */

nt_status nt_index_nonzero(const nt_tensor *t, nt_tensor **out) {
    int nd = t->ndim;
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size, strides[NT_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        strides[d] = t->strides[d] * esize;
    const char *base = nt_tensor_bytes(t);
    /* count, allocate, then write the coordinates */
    int64_t count = t->numel ? nt_nonzero_pass(t->dtype, base, nd, t->sizes, strides, NULL) : 0;
    int64_t sizes[2] = {count, nd};
    NT_TRY(nt_tensor_alloc(NT_INT64, 2, sizes, NULL, out));
    if (count)
        nt_nonzero_pass(t->dtype, base, nd, t->sizes, strides, (int64_t *)nt_tensor_bytes(*out));
    return NT_OK;
}

/* ------------------------------------------------------------------ the layout plan */

typedef struct plan {
    const nt_tensor *base;
    int ndim;
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int64_t offset;
    int nidx;                    /* entries of idx[] in use */
    nt_tensor *idx[NT_MAX_DIMS]; /* owned; NULL: dim not indexed by a tensor */
} plan;

static void plan_init(plan *p, const nt_tensor *t) {
    p->base = t;
    p->ndim = t->ndim;
    memcpy(p->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    memcpy(p->strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    for (int i = 0; i < t->ndim; i++)
        p->names[i] = nt_tensor_name_at(t, i);
    p->offset = t->offset;
    p->nidx = 0;
}

static void plan_free(plan *p) {
    for (int i = 0; i < p->nidx; i++)
        nt_tensor_release(p->idx[i]);
    p->nidx = 0;
}

static bool plan_named(const plan *p) {
    if (!p->base->names) return false;
    for (int i = 0; i < p->ndim; i++)
        if (p->names[i] != NT_NAME_NONE) return true;
    return false;
}

static nt_status dim_range_error(int64_t dim, int ndim) {
    int64_t n = ndim > 0 ? ndim : 1;
    return nt_fail(NT_ERR_INDEX,
                   "Dimension out of range (expected to be in range of [%" PRId64 ", %" PRId64
                   "], but got %" PRId64 ")",
                   -n, n - 1, dim);
}

/* PyTorch's applySelect: t.select(dim, index) with the indexing texts. */
static nt_status plan_select(plan *p, int64_t dim, int64_t index, int64_t real_dim) {
    if (index == 0 && dim == 0 && p->ndim == 0)
        return nt_fail(NT_ERR_INDEX, "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                                     "Python or `tensor.item<T>()` in C++ to convert a 0-dim "
                                     "tensor to a number");
    /* Only two Ellipses reach past the last dim. PyTorch reads the size there from its
     * inline size array: 0 just past the last dim (so the bounds check fails), a stride
     * beyond it (so its select fails on the dim instead). */
    if (dim > p->ndim) return dim_range_error(dim, p->ndim);
    int64_t size = dim < p->ndim ? p->sizes[dim] : 0;
    if (index < -size || index >= size)
        return nt_fail(NT_ERR_INDEX,
                       "index %" PRId64 " is out of bounds for dimension %" PRId64
                       " with size %" PRId64,
                       index, real_dim, size);
    if (index < 0) index += size;
    p->offset = nt_offset_moved(p->offset, index, p->strides[dim]);
    for (int i = (int)dim; i < p->ndim - 1; i++) {
        p->sizes[i] = p->sizes[i + 1];
        p->strides[i] = p->strides[i + 1];
        p->names[i] = p->names[i + 1];
    }
    p->ndim--;
    return NT_OK;
}

void nt_index_slice_dim(int64_t start, int64_t stop, int64_t step, int64_t *size, int64_t *stride,
                        int64_t *offset) {
    int64_t n = *size;
    if (start < 0) start = start < -n ? 0 : start + n;
    if (stop < 0) stop = stop < -n ? 0 : stop + n;
    if (start > n) start = n;
    if (stop < start) stop = start;
    if (stop > n) stop = n;
    *offset = nt_offset_moved(*offset, start, *stride);
    int64_t len = stop - start;
    *size = len == 0 ? 0 : (len - 1) / step + 1;
    /* Fits when the dim keeps two elements of a non-empty tensor; otherwise the stride is
     * never used to address anything and wraps around, as PyTorch's does. */
    *stride = (int64_t)((uint64_t)*stride * (uint64_t)step);
}

/* PyTorch's applySlice then at::slice (clamping start and stop like Python). */
static nt_status plan_slice(plan *p, int64_t dim, int64_t start, int64_t stop, int64_t step) {
    if (step <= 0) return nt_fail(NT_ERR_VALUE, "step must be greater than zero");
    if (p->ndim == 0) return nt_fail(NT_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
    if (dim >= p->ndim) {
        /* Only two Ellipses reach past the last dim. PyTorch reads that dim's size as 0 and
         * skips a slice whose raw bounds are exactly (0, size, 1) — here `:0` — before
         * at::slice could fail; every other slice fails there. */
        if (start == 0 && stop == 0 && step == 1) return NT_OK;
        return dim_range_error(dim, p->ndim);
    }
    nt_index_slice_dim(start, stop, step, &p->sizes[dim], &p->strides[dim], &p->offset);
    return NT_OK;
}

static nt_status plan_unsqueeze(plan *p, int64_t dim) {
    if (p->ndim >= NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "indexing would give more than %d dims", NT_MAX_DIMS);
    if (dim > p->ndim) return dim_range_error(dim, p->ndim + 1);
    /* wraps around like view.c's unsqueeze (only an empty tensor's can overflow) */
    int64_t stride =
        dim >= p->ndim ? 1 : (int64_t)((uint64_t)p->sizes[dim] * (uint64_t)p->strides[dim]);
    for (int i = p->ndim; i > dim; i--) {
        p->sizes[i] = p->sizes[i - 1];
        p->strides[i] = p->strides[i - 1];
        p->names[i] = p->names[i - 1];
    }
    p->sizes[dim] = 1;
    p->strides[dim] = stride;
    p->names[dim] = NT_NAME_NONE;
    p->ndim++;
    return NT_OK;
}

/* recordTensorIndex: indices.resize(dim + 1); indices[dim] = t; takes over `t`. */
static nt_status plan_record(plan *p, int64_t dim, nt_tensor *t) {
    if (dim >= NT_MAX_DIMS) {
        nt_tensor_release(t);
        return nt_fail(NT_ERR_INDEX, "too many indices");
    }
    for (int i = (int)dim + 1; i < p->nidx; i++) {
        nt_tensor_release(p->idx[i]);
        p->idx[i] = NULL;
    }
    for (int i = p->nidx; i <= dim; i++)
        p->idx[i] = NULL;
    nt_tensor_release(p->idx[dim]);
    p->idx[dim] = t;
    p->nidx = (int)dim + 1;
    return NT_OK;
}

/* boolToIndexingTensor: [0] for true, [] for false (int64). */
static nt_status bool_index(bool b, nt_tensor **out) {
    int64_t size = b ? 1 : 0;
    return nt_zeros(1, &size, NT_INT64, NULL, out);
}

static bool is_mask_dtype(nt_dtype d) {
    return d == NT_BOOL || d == NT_UINT8;
}

/* count_specified_dimensions of the index tuple. */
static int64_t specified_dims(int count, const nt_index *idx) {
    int64_t n = 0;
    for (int i = 0; i < count; i++) {
        switch (idx[i].kind) {
        case NT_INDEX_INT:
        case NT_INDEX_SLICE:
            n++;
            break;
        case NT_INDEX_TENSOR:
            n += is_mask_dtype(idx[i].tensor->dtype) ? idx[i].tensor->ndim : 1;
            break;
        default:
            break;
        }
    }
    return n;
}

static nt_status check_index_args(int count, const nt_index *idx) {
    if (count < 0 || (count > 0 && !idx)) return nt_fail(NT_ERR_VALUE, "invalid index list");
    for (int i = 0; i < count; i++) {
        if ((int)idx[i].kind < NT_INDEX_INT || idx[i].kind > NT_INDEX_TENSOR)
            return nt_fail(NT_ERR_VALUE, "invalid index kind %d", (int)idx[i].kind);
        if (idx[i].kind == NT_INDEX_TENSOR && !idx[i].tensor)
            return nt_fail(NT_ERR_TYPE, "index %d: the tensor is NULL", i);
    }
    return NT_OK;
}

/* One index of applySlicing at *dim; real_dim is its position in the tuple. */
static nt_status apply_one(plan *p, const nt_index *ix, int64_t *dim, int64_t real_dim,
                           int64_t ellipsis_dims) {
    switch (ix->kind) {
    case NT_INDEX_INT:
        return plan_select(p, *dim, ix->i, real_dim);
    case NT_INDEX_SLICE:
        NT_TRY(plan_slice(p, *dim, ix->start, ix->stop, ix->step));
        (*dim)++;
        return NT_OK;
    case NT_INDEX_ELLIPSIS:
        *dim += ellipsis_dims;
        return NT_OK;
    case NT_INDEX_NONE:
        NT_TRY(plan_unsqueeze(p, *dim));
        (*dim)++;
        return NT_OK;
    case NT_INDEX_BOOL: {
        NT_TRY(plan_unsqueeze(p, *dim));
        nt_tensor *b;
        NT_TRY(bool_index(ix->i != 0, &b));
        NT_TRY(plan_record(p, *dim, b));
        (*dim)++;
        return NT_OK;
    }
    case NT_INDEX_TENSOR: {
        const nt_tensor *t = ix->tensor;
        if (t->ndim == 0 && nt_dtype_table[t->dtype].kind != NT_KIND_FLOAT) {
            nt_scalar s = nt_load_scalar(nt_tensor_bytes(t), t->dtype);
            if (!is_mask_dtype(t->dtype)) return plan_select(p, *dim, s.v.i, real_dim);
            NT_TRY(plan_unsqueeze(p, *dim));
            bool b = s.kind == NT_SCALAR_BOOL ? s.v.b : s.v.i != 0;
            nt_tensor *bt;
            NT_TRY(bool_index(b, &bt));
            NT_TRY(plan_record(p, *dim, bt));
            (*dim)++;
            return NT_OK;
        }
        NT_TRY(plan_record(p, *dim, nt_tensor_retain((nt_tensor *)t)));
        (*dim)++;
        return NT_OK;
    }
    }
    return nt_fail(NT_ERR_VALUE, "invalid index kind");
}

/* applySlicing over the whole tuple. */
static nt_status apply_slicing(plan *p, int count, const nt_index *idx) {
    int64_t specified = specified_dims(count, idx);
    if (specified > p->base->ndim)
        return nt_fail(NT_ERR_INDEX, "too many indices for tensor of dimension %d", p->base->ndim);
    int64_t dim = 0;
    for (int i = 0; i < count; i++)
        NT_TRY(apply_one(p, &idx[i], &dim, i, p->base->ndim - specified));
    return NT_OK;
}

static nt_status plan_view(const plan *p, nt_tensor **out) {
    return nt_index_restride(p->base, p->ndim, p->sizes, p->strides, p->offset,
                             plan_named(p) ? p->names : NULL, out);
}

/* ------------------------------------------------------------------ advanced indexing */

typedef struct advanced {
    int ndim; /* the result */
    int64_t sizes[NT_MAX_DIMS];
    int64_t src_strides[NT_MAX_DIMS]; /* elements; 0 along the broadcast dims */
    int64_t off_strides[NT_MAX_DIMS]; /* int64 elements of offsets; 0 elsewhere */
    nt_name names[NT_MAX_DIMS];
    bool named;
    int64_t numel;
    nt_tensor *offsets; /* byte offsets, contiguous over the broadcast shape; NULL if numel 0 */
    /* the expanded, broadcast index tensors */
    int nk;
    int pos[NT_MAX_DIMS]; /* the dim each indexes */
    nt_tensor *k[NT_MAX_DIMS];
    int bndim;
    int64_t bshape[NT_MAX_DIMS];
} advanced;

static void advanced_free(advanced *a) {
    for (int i = 0; i < a->nk; i++)
        nt_tensor_release(a->k[i]);
    a->nk = 0;
    nt_tensor_release(a->offsets);
    a->offsets = NULL;
}

static void shape_text(int n, const int64_t *s, char *buf, size_t cap) {
    nt_ints_repr(s, n, buf, cap);
}

/* make_info: type checks, masks to nonzero columns, broadcast; then the result layout and
 * the byte offsets (bounds checked) when the result is not empty. */
static nt_status make_advanced(const plan *p, advanced *a) {
    nt_status st = NT_OK;
    nt_tensor *list[2 * NT_MAX_DIMS]; /* entries after expansion (borrowed or owned) */
    bool owned[2 * NT_MAX_DIMS];
    int n = 0;
    nt_tensor *nz = NULL;
    a->nk = 0;
    a->offsets = NULL;
    if (p->nidx > p->ndim)
        return nt_fail(NT_ERR_INDEX, "too many indices for tensor of dimension %d (got %d)",
                       p->ndim, p->nidx);
    for (int q = 0; q < p->nidx; q++) {
        nt_tensor *t = p->idx[q];
        if (t && t->dtype != NT_INT64 && !is_mask_dtype(t->dtype))
            return nt_fail(NT_ERR_INDEX, "tensors used as indices must be long, byte or bool "
                                         "tensors");
    }
    for (int q = 0; q < p->nidx; q++) {
        nt_tensor *t = p->idx[q];
        if (!t || !is_mask_dtype(t->dtype)) {
            list[n] = t;
            owned[n++] = false;
            continue;
        }
        for (int j = 0; j < t->ndim; j++) {
            int64_t src = n + j;
            if (src >= p->ndim) {
                st = dim_range_error(src, p->ndim);
                goto fail;
            }
            if (t->sizes[j] != p->sizes[src]) {
                char m[512], s[512];
                shape_text(t->ndim, t->sizes, m, sizeof m);
                shape_text(p->ndim, p->sizes, s, sizeof s);
                st = nt_fail(NT_ERR_INDEX,
                             "The shape of the mask %s at index %d does not match the shape of "
                             "the indexed tensor %s at index %" PRId64,
                             m, j, s, src);
                goto fail;
            }
        }
        NT_CHECK(st, nt_index_nonzero(t, &nz));
        for (int j = 0; j < t->ndim; j++) {
            if (n >= 2 * NT_MAX_DIMS) {
                st = nt_fail(NT_ERR_INDEX, "too many indices");
                goto fail;
            }
            NT_CHECK(st, nt_select(nz, 1, j, &list[n]));
            owned[n++] = true;
        }
        nt_tensor_release(nz);
        nz = NULL;
    }
    if (n > p->ndim) {
        st = nt_fail(NT_ERR_INDEX, "too many indices for tensor of dimension %d (got %d)", p->ndim,
                     n);
        goto fail;
    }
    /* broadcast the defined ones */
    nt_tensor *defined[NT_MAX_DIMS];
    int nd = 0;
    for (int q = 0; q < n; q++)
        if (list[q]) {
            a->pos[nd] = q;
            defined[nd++] = list[q];
        }
    if (nt_broadcast_shapes(nd, defined, &a->bndim, a->bshape) != NT_OK) {
        char text[2048];
        size_t len = 0;
        text[0] = 0;
        for (int q = 0; q < nd && len < sizeof text; q++) {
            char s[512];
            shape_text(defined[q]->ndim, defined[q]->sizes, s, sizeof s);
            int w = snprintf(text + len, sizeof text - len, "%s%s", q ? ", " : "", s);
            len += w > 0 ? (size_t)w : 0;
        }
        st = nt_fail(NT_ERR_INDEX,
                     "shape mismatch: indexing tensors could not be broadcast together with "
                     "shapes %s",
                     text);
        goto fail;
    }
    for (int q = 0; q < nd; q++) {
        NT_CHECK(st, nt_expand(defined[q], a->bndim, a->bshape, &a->k[q]));
        a->nk = q + 1;
    }
    /* the result layout */
    bool contiguous = true;
    for (int q = 1; q < nd; q++)
        if (a->pos[q] != a->pos[q - 1] + 1) contiguous = false;
    bool indexed[NT_MAX_DIMS] = {false};
    for (int q = 0; q < nd; q++)
        indexed[a->pos[q]] = true;
    /* The result has the broadcast index dims plus the dims not indexed: both may be up to
     * NT_MAX_DIMS, their sum need not fit. */
    int rest = 0;
    for (int d = 0; d < p->ndim; d++)
        rest += !indexed[d];
    if (rest + a->bndim > NT_MAX_DIMS) {
        st = nt_fail(NT_ERR_RUNTIME, "indexing would give more than %d dims", NT_MAX_DIMS);
        goto fail;
    }
    int r = 0;
    int64_t bstrides[NT_MAX_DIMS];
    nt_contiguous_strides(a->bndim, a->bshape, bstrides);
    int first = contiguous ? a->pos[0] : 0;
    for (int d = 0; d < first; d++) { /* non-indexed dims before the subspace */
        a->sizes[r] = p->sizes[d];
        a->src_strides[r] = p->strides[d];
        a->off_strides[r] = 0;
        a->names[r++] = p->names[d];
    }
    for (int d = 0; d < a->bndim; d++) {
        a->sizes[r] = a->bshape[d];
        a->src_strides[r] = 0;
        a->off_strides[r] = bstrides[d];
        a->names[r++] = NT_NAME_NONE;
    }
    for (int d = first; d < p->ndim; d++) {
        if (indexed[d]) continue;
        a->sizes[r] = p->sizes[d];
        a->src_strides[r] = p->strides[d];
        a->off_strides[r] = 0;
        a->names[r++] = p->names[d];
    }
    a->ndim = r;
    a->named = false;
    for (int d = 0; d < r; d++)
        if (a->names[d] != NT_NAME_NONE) a->named = true;
    NT_CHECK(st, nt_shape_check(r, a->sizes, &a->numel));
    /* an empty indexed dim with a non-empty index: no index can be valid (checked before
     * the kernel, as PyTorch's AdvancedIndex does) */
    bool empty_indexed = false, empty_index = false;
    for (int q = 0; q < nd; q++)
        empty_indexed = empty_indexed || p->sizes[a->pos[q]] == 0;
    for (int d = 0; d < a->bndim; d++)
        empty_index = empty_index || a->bshape[d] == 0;
    if (empty_indexed && !empty_index) {
        st = nt_fail(NT_ERR_INDEX, "index is out of bounds for dimension with size 0");
        goto fail;
    }
    if (a->numel > 0) {
        /* the byte offsets, bounds checked in row-major order */
        NT_CHECK(st, nt_tensor_alloc(NT_INT64, a->bndim, a->bshape, NULL, &a->offsets));
        int64_t *off = (int64_t *)nt_tensor_bytes(a->offsets);
        int64_t bn = a->offsets->numel, esize = (int64_t)nt_dtype_table[p->base->dtype].size;
        for (int64_t i = 0; i < bn; i++)
            off[i] = 0;
        /* element by element, each index in order: PyTorch's kernel reports the first bad
         * index it meets that way */
        int64_t idx[NT_MAX_DIMS] = {0}, size[NT_MAX_DIMS], stride[NT_MAX_DIMS];
        const int64_t *kd[NT_MAX_DIMS];
        for (int q = 0; q < nd; q++) {
            kd[q] = (const int64_t *)nt_tensor_bytes(a->k[q]);
            size[q] = p->sizes[a->pos[q]];
            stride[q] = p->strides[a->pos[q]] * esize;
        }
        for (int64_t i = 0; i < bn; i++) {
            for (int q = 0; q < nd; q++) {
                const nt_tensor *k = a->k[q];
                int64_t e = 0;
                for (int d = 0; d < k->ndim; d++)
                    e += idx[d] * k->strides[d];
                int64_t v = kd[q][e];
                if (v < -size[q] || v >= size[q]) {
                    st = nt_fail(NT_ERR_INDEX,
                                 "index %" PRId64 " is out of bounds for dimension %d with size "
                                 "%" PRId64,
                                 v, q, size[q]);
                    goto fail;
                }
                off[i] += (v < 0 ? v + size[q] : v) * stride[q];
            }
            for (int d = a->bndim - 1; d >= 0; d--) {
                if (++idx[d] < a->bshape[d]) break;
                idx[d] = 0;
            }
        }
    }
fail:
    nt_tensor_release(nz);
    for (int q = 0; q < n; q++)
        if (owned[q]) nt_tensor_release(list[q]);
    if (st != NT_OK) advanced_free(a);
    return st;
}

/* Runs the gather (value NULL: into a new *out) or the scatter of value into p's tensor
 * (added to what is there with `accumulate`: serially, since positions may repeat). */
static nt_status run_advanced(const plan *p, const advanced *a, const nt_tensor *value,
                              bool accumulate, nt_tensor **out) {
    nt_status st = NT_OK;
    nt_tensor *src = NULL, *off = NULL, *res = NULL;
    if (!value)
        NT_TRY(
            nt_tensor_alloc(p->base->dtype, a->ndim, a->sizes, a->named ? a->names : NULL, &res));
    if (a->numel > 0) {
        NT_CHECK(st, nt_index_restride(p->base, a->ndim, a->sizes, a->src_strides, p->offset, NULL,
                                       &src));
        NT_CHECK(st, nt_tensor_make(a->offsets->storage, NT_INT64, a->ndim, a->sizes,
                                    a->off_strides, 0, NULL, &off));
        nt_tensor *ops[3] = {value ? src : res, value ? (nt_tensor *)value : src, off};
        nt_iter_config cfg = nt_iter_defaults();
        cfg.check_mem_overlap = false;
        nt_iter it;
        NT_CHECK(st, nt_iter_build(&it, 3, ops, &cfg));
        if (accumulate)
            nt_iter_run_range(&it, 0, it.numel, nt_index_accumulate_loop(p->base->dtype), NULL);
        else
            nt_iter_run(&it,
                        nt_index_gather_loop(nt_dtype_table[p->base->dtype].size, value != NULL),
                        NULL);
    }
    if (out) {
        *out = res;
        res = NULL;
    }
fail:
    nt_tensor_release(res);
    nt_tensor_release(src);
    nt_tensor_release(off);
    return st;
}

/* ------------------------------------------------------------------ getitem */

static nt_status finish_get(plan *p, nt_tensor **out) {
    if (p->nidx == 0) return plan_view(p, out);
    advanced a;
    NT_TRY(make_advanced(p, &a));
    nt_status st = run_advanced(p, &a, NULL, false, out);
    advanced_free(&a);
    return st;
}

static nt_status get_tuple(nt_tensor *t, int count, const nt_index *idx, nt_tensor **out) {
    NT_TRY(check_index_args(count, idx));
    plan p;
    plan_init(&p, t);
    nt_status st = apply_slicing(&p, count, idx);
    if (st == NT_OK) st = finish_get(&p, out);
    plan_free(&p);
    return st;
}

static nt_status get_single(nt_tensor *t, const nt_index *idx, nt_tensor **out) {
    NT_TRY(check_index_args(1, idx));
    plan p;
    plan_init(&p, t);
    nt_status st = NT_OK;
    switch (idx->kind) {
    case NT_INDEX_INT:
        st = plan_select(&p, 0, idx->i, 0);
        break;
    case NT_INDEX_SLICE:
        st = plan_slice(&p, 0, idx->start, idx->stop, idx->step);
        break;
    case NT_INDEX_NONE:
        st = plan_unsqueeze(&p, 0);
        break;
    case NT_INDEX_ELLIPSIS:
        break;
    default: {
        int64_t dim = 0;
        if (idx->kind == NT_INDEX_TENSOR && specified_dims(1, idx) > t->ndim) {
            st = nt_fail(NT_ERR_INDEX, "too many indices for tensor of dimension %d", t->ndim);
            break;
        }
        st = apply_one(&p, idx, &dim, 0, t->ndim - specified_dims(1, idx));
        break;
    }
    }
    if (st == NT_OK) st = finish_get(&p, out);
    plan_free(&p);
    return st;
}

/* ------------------------------------------------------------------ setitem */

/* copy_'s name check (unify self with src) for a write into a view. */
static nt_status check_copy_names(const nt_name *dst, int dst_ndim, const nt_tensor *src) {
    if (!dst && !src->names) return NT_OK;
    nt_name tmp[NT_MAX_DIMS];
    int nd;
    const nt_name *r;
    return nt_names_unify_from_right(dst, dst_ndim, src->names, src->ndim, tmp, &nd, &r);
}

/* The sizes of `t` without its leading size-one dims (slicePrefix1sSize). */
static int strip_leading_ones(const nt_tensor *t) {
    int k = 0;
    while (k < t->ndim && t->sizes[k] == 1)
        k++;
    return k;
}

static nt_status view_stripped(const nt_tensor *v, nt_tensor **out) {
    int k = strip_leading_ones(v);
    const nt_name *names = v->names ? v->names + k : NULL;
    return nt_tensor_make(v->storage, v->dtype, v->ndim - k, v->sizes + k, v->strides + k,
                          v->offset, names, out);
}

/* at::indexing::copy_to(dst, src). */
static nt_status copy_to(nt_tensor *dst, const nt_tensor *src) {
    bool same = dst->ndim == src->ndim;
    for (int i = 0; same && i < dst->ndim; i++)
        same = dst->sizes[i] == src->sizes[i];
    if (same) {
        NT_TRY(check_copy_names(dst->names, dst->ndim, src));
        return nt_copy_(dst, src);
    }
    if (src->ndim == 0) {
        nt_scalar s = nt_load_scalar(nt_tensor_bytes(src), src->dtype);
        return nt_fill_(dst, s);
    }
    nt_tensor *stripped = NULL, *expanded = NULL;
    nt_status st;
    NT_CHECK(st, view_stripped(src, &stripped));
    NT_CHECK(st, nt_expand(stripped, dst->ndim, dst->sizes, &expanded));
    NT_CHECK(st, check_copy_names(dst->names, dst->ndim, stripped));
    NT_CHECK(st, nt_copy_(dst, expanded));
fail:
    nt_tensor_release(stripped);
    nt_tensor_release(expanded);
    return st;
}

/* index_put_(sliced, indices, value, accumulate) for setitem. */
static nt_status index_put(plan *p, const nt_tensor *value_in, bool accumulate) {
    nt_status st = NT_OK;
    nt_tensor *value = NULL, *self = NULL, *mask = NULL;
    advanced a;
    a.nk = 0;
    a.offsets = NULL;
    if (p->nidx > p->ndim)
        return nt_fail(NT_ERR_INDEX, "too many indices for tensor of dimension %d (got %d)",
                       p->ndim, p->nidx);
    NT_CHECK(st, view_stripped(value_in, &value));
    NT_CHECK(st, plan_view(p, &self));
    /* canDispatchToMaskedFill: one mask and a one-element value */
    if (value->numel == 1 && !accumulate) {
        int64_t num_ind = 0;
        const nt_tensor *m = NULL;
        bool ok = true;
        for (int q = 0; q < p->nidx && ok; q++) {
            const nt_tensor *t = p->idx[q];
            if (!t) {
                num_ind++;
            } else if (!is_mask_dtype(t->dtype) || m) {
                ok = false;
            } else {
                m = t;
                for (int j = 0; j < t->ndim; j++) {
                    int64_t src = num_ind + j;
                    if (src >= p->ndim || t->sizes[j] != p->sizes[src]) {
                        if (src >= p->ndim) {
                            st = dim_range_error(src, p->ndim);
                            goto fail;
                        }
                        char ms[512], ss[512];
                        shape_text(t->ndim, t->sizes, ms, sizeof ms);
                        shape_text(p->ndim, p->sizes, ss, sizeof ss);
                        st = nt_fail(NT_ERR_INDEX,
                                     "The shape of the mask %s at index %d does not match the "
                                     "shape of the indexed tensor %s at index %" PRId64,
                                     ms, j, ss, src);
                        goto fail;
                    }
                }
                num_ind += t->ndim;
            }
        }
        if (ok && m) {
            /* the mask with a trailing size-one dim per dim of self after it */
            int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
            int extra = p->ndim > num_ind ? (int)(p->ndim - num_ind) : 0, nd = m->ndim + extra;
            for (int d = 0; d < nd; d++) {
                sizes[d] = d < m->ndim ? m->sizes[d] : 1;
                strides[d] = d < m->ndim ? m->strides[d] : 1;
            }
            NT_CHECK(st, nt_tensor_make(m->storage, m->dtype, nd, sizes, strides, m->offset, NULL,
                                        &mask));
            nt_scalar s = nt_load_scalar(nt_tensor_bytes(value), value->dtype);
            NT_CHECK(st, nt_masked_fill_unchecked_(self, mask, s));
            goto fail;
        }
    }
    if (nt_overlap_status(self, value) == NT_OVERLAP_PARTIAL ||
        nt_overlap_status(self, value) == NT_OVERLAP_FULL) {
        st = nt_fail(NT_ERR_RUNTIME,
                     "unsupported operation: some elements of the input tensor and the "
                     "written-to tensor refer to a single memory location. Please clone() the "
                     "tensor before performing the operation.");
        goto fail;
    }
    NT_CHECK(st, make_advanced(p, &a));
    /* the value must broadcast to the indexing result, with self's dtype */
    bool expandable = value->ndim <= a.ndim;
    for (int i = 0; expandable && i < value->ndim; i++) {
        int64_t vs = value->sizes[value->ndim - 1 - i], rs = a.sizes[a.ndim - 1 - i];
        expandable = vs == rs || vs == 1;
    }
    if (!expandable) {
        char vs[512], rs[512];
        shape_text(value->ndim, value->sizes, vs, sizeof vs);
        shape_text(a.ndim, a.sizes, rs, sizeof rs);
        st = nt_fail(NT_ERR_RUNTIME,
                     "shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                     "result of shape %s",
                     vs, rs);
        goto fail;
    }
    if (value->dtype != p->base->dtype) {
        st = nt_fail(NT_ERR_RUNTIME,
                     "Index put requires the source and destination dtypes match, got %s for the "
                     "destination and %s for the source.",
                     nt_dtype_torch_name(p->base->dtype), nt_dtype_torch_name(value->dtype));
        goto fail;
    }
    if (a.named || value->names)
        NT_CHECK(st, check_copy_names(a.named ? a.names : NULL, a.ndim, value));
    NT_CHECK(st, run_advanced(p, &a, value, accumulate, NULL));
    nt_storage_bump_version(p->base->storage);
fail:
    advanced_free(&a);
    nt_tensor_release(value);
    nt_tensor_release(self);
    nt_tensor_release(mask);
    return st;
}

/* view += value, value's leading size-one dims dropped first (index_put_ with accumulate and
 * no tensor index). */
static nt_status add_to(nt_tensor *view, const nt_tensor *value) {
    nt_tensor *stripped = NULL;
    NT_TRY(view_stripped(value, &stripped));
    nt_status st = check_copy_names(view->names, view->ndim, stripped);
    if (st == NT_OK) st = nt_binary_(NT_BINARY_ADD, view, stripped);
    nt_tensor_release(stripped);
    return st;
}

static nt_status set_(nt_tensor *t, int count, const nt_index *idx, bool single,
                      const nt_tensor *value, bool accumulate) {
    plan p;
    plan_init(&p, t);
    nt_status st = NT_OK;
    nt_tensor *view = NULL;
    if (single && count == 1 && idx->kind != NT_INDEX_TENSOR) {
        switch (idx->kind) {
        case NT_INDEX_BOOL:
            if (!idx->i) goto done;
            st = plan_unsqueeze(&p, 0);
            break;
        case NT_INDEX_NONE:
            st = plan_unsqueeze(&p, 0);
            break;
        case NT_INDEX_INT:
            st = plan_select(&p, 0, idx->i, 0);
            break;
        case NT_INDEX_SLICE:
            st = plan_slice(&p, 0, idx->start, idx->stop, idx->step);
            break;
        default:
            break;
        }
    } else {
        st = apply_slicing(&p, count, idx);
    }
    if (st != NT_OK) goto done;
    if (p.nidx == 0) {
        NT_CHECK(st, plan_view(&p, &view));
        st = accumulate ? add_to(view, value) : copy_to(view, value);
    } else {
        st = index_put(&p, value, accumulate);
    }
done:
fail:
    nt_tensor_release(view);
    plan_free(&p);
    return st;
}

nt_status nt_index_set_scalar_(nt_tensor *t, int count, const nt_index *idx, bool single,
                               nt_scalar value) {
    if (!t) return nt_fail(NT_ERR_VALUE, "index_put: NULL argument");
    nt_tensor *v = NULL;
    NT_TRY(nt_scalar_check_fits(value, t->dtype));
    NT_TRY(nt_full(0, NULL, value, t->dtype, NULL, &v));
    nt_status st = nt_index_set_(t, count, idx, single, v);
    nt_tensor_release(v);
    return st;
}

/* ------------------------------------------------------------------ the op rows
 *
 * t[...] and t[...] = v are the rows INDEX and INDEX_PUT of the op list, so that autograd
 * records them as it records every op. A call record holds the index tuple as its tensor
 * indices (a Tensor[], in order) and a `spec` (an int[]): `single`, then five ints per entry
 * (kind, i, start, stop, step). The public functions build the record only when autograd
 * records the call (t or the written value requires grad, in grad mode); otherwise they
 * index directly, at the old per-call cost (one more test of the live count). */

#define SPEC_WIDTH 5
#define MAX_ENTRIES NT_INDEX_MAX_ENTRIES

typedef struct index_record {
    int64_t spec[1 + SPEC_WIDTH * MAX_ENTRIES];
    nt_tensor *tensors[MAX_ENTRIES];
    int nspec, ntensors;
} index_record;

static nt_status encode(int count, const nt_index *idx, bool single, index_record *r) {
    if (count > MAX_ENTRIES) return nt_fail(NT_ERR_INDEX, "too many indices");
    r->spec[0] = single;
    r->ntensors = 0;
    for (int i = 0; i < count; i++) {
        int64_t *e = &r->spec[1 + SPEC_WIDTH * i];
        e[0] = idx[i].kind, e[1] = idx[i].i, e[2] = idx[i].start, e[3] = idx[i].stop;
        e[4] = idx[i].step;
        if (idx[i].kind == NT_INDEX_TENSOR) r->tensors[r->ntensors++] = (nt_tensor *)idx[i].tensor;
    }
    r->nspec = 1 + SPEC_WIDTH * count;
    return NT_OK;
}

/* The index tuple of a record (slots 1 and 2); `single` only holds for one entry. */
nt_status nt_index_decode(const nt_call *c, nt_index *idx, int *count, bool *single) {
    const nt_arg *list = &c->args[1], *spec = &c->args[2];
    int n = spec->kind == NT_ARG_INTS ? spec->n : 0;
    int ntensors = list->kind == NT_ARG_TENSORS ? list->n : 0, used = 0;
    if (n > 0 && (n - 1) % SPEC_WIDTH)
        return nt_fail(NT_ERR_VALUE, "index: a spec of %d ints is not 1 + 5 per index", n);
    *count = n > 0 ? (n - 1) / SPEC_WIDTH : 0;
    if (*count > MAX_ENTRIES) return nt_fail(NT_ERR_INDEX, "too many indices");
    *single = *count == 1 && spec->v.ints[0] != 0;
    for (int i = 0; i < *count; i++) {
        const int64_t *e = &spec->v.ints[1 + SPEC_WIDTH * i];
        idx[i] = (nt_index){.kind = (nt_index_kind)e[0],
                            .i = e[1],
                            .start = e[2],
                            .stop = e[3],
                            .step = e[4],
                            .tensor = NULL};
        if (e[0] == NT_INDEX_TENSOR) {
            if (used == ntensors)
                return nt_fail(NT_ERR_VALUE, "index: more tensor indices than tensors given");
            idx[i].tensor = list->v.tensors[used++];
        }
    }
    if (used != ntensors)
        return nt_fail(NT_ERR_VALUE, "index: %d tensors given for %d tensor indices", ntensors,
                       used);
    return check_index_args(*count, idx);
}

bool nt_index_is_basic(int count, const nt_index *idx, bool single) {
    for (int i = 0; i < count; i++) {
        const nt_tensor *t = idx[i].tensor;
        if (idx[i].kind == NT_INDEX_BOOL && !single) return false;
        if (idx[i].kind == NT_INDEX_TENSOR &&
            (t->ndim != 0 || nt_dtype_table[t->dtype].kind != NT_KIND_INT ||
             is_mask_dtype(t->dtype)))
            return false;
    }
    return true;
}

/* Whether a tensor of the call has first-class dims (the dispatcher batches it). */
static bool has_levels(const nt_tensor *t, const nt_tensor *value, int count, const nt_index *idx) {
    if (!atomic_load_explicit(&nt_levels_made, memory_order_relaxed)) return false;
    bool any = t->levels || (value && value->levels);
    for (int i = 0; i < count; i++)
        any = any || (idx[i].kind == NT_INDEX_TENSOR && idx[i].tensor->levels);
    return any;
}

/* Whether the call goes through the op rows: autograd records it (t or the written value
 * requires grad, in grad mode), or a tensor has first-class dims. Otherwise the call indexes
 * directly. */
static bool recording(const nt_tensor *t, const nt_tensor *value, int count, const nt_index *idx) {
    return (atomic_load_explicit(&nt_ag_live, memory_order_relaxed) != 0 && nt_is_grad_enabled() &&
            (nt_requires_grad(t) || (value && nt_requires_grad(value)))) ||
           has_levels(t, value, count, idx);
}

/* The INDEX or INDEX_PUT row called with this index; `physical`: past the dispatcher's levels
 * step, t's levels read as ordinary dims (the dims layer's own calls). */
static nt_status index_row(nt_tensor *t, int count, const nt_index *idx, bool single,
                           const nt_tensor *value, bool accumulate, bool physical,
                           nt_tensor **out) {
    index_record *r = malloc(sizeof *r);
    if (!r) return nt_fail(NT_ERR_MEMORY, "out of memory");
    nt_status st = encode(count, idx, single, r);
    nt_call c;
    nt_call_init(&c, value ? NT_OP_INDEX_PUT : NT_OP_INDEX);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensors(r->ntensors, r->tensors);
    c.args[2] = nt_arg_ints(r->nspec, r->spec);
    if (value) {
        c.inplace = true;
        c.args[3] = nt_arg_tensor((nt_tensor *)value);
        c.args[4] = nt_arg_bool(accumulate);
    }
    if (st == NT_OK) st = physical ? nt_dispatch_row(&c, nt_op_row_of(c.op)) : nt_dispatch(&c);
    free(r);
    if (st != NT_OK) return st;
    if (out)
        *out = c.result[0];
    else
        nt_tensor_release(c.result[0]);
    return NT_OK;
}

static nt_status index_call(nt_tensor *t, int count, const nt_index *idx, bool single,
                            const nt_tensor *value, bool accumulate, nt_tensor **out) {
    return index_row(t, count, idx, single, value, accumulate, false, out);
}

nt_status nt_index_put_physical_(nt_tensor *t, int count, const nt_index *idx,
                                 const nt_tensor *value) {
    NT_TRY(check_index_args(count, idx));
    return index_row(t, count, idx, false, value, false, true, NULL);
}

nt_status nt_index_get(nt_tensor *t, int count, const nt_index *idx, nt_tensor **out) {
    if (!t || !out) return nt_fail(NT_ERR_VALUE, "index: NULL argument");
    if (recording(t, NULL, count, idx)) {
        NT_TRY(check_index_args(count, idx));
        return index_call(t, count, idx, false, NULL, false, out);
    }
    return get_tuple(t, count, idx, out);
}

nt_status nt_index_get1(nt_tensor *t, const nt_index *idx, nt_tensor **out) {
    if (!t || !out) return nt_fail(NT_ERR_VALUE, "index: NULL argument");
    if (recording(t, NULL, 1, idx)) {
        NT_TRY(check_index_args(1, idx));
        return index_call(t, 1, idx, true, NULL, false, out);
    }
    return get_single(t, idx, out);
}

nt_status nt_index_set_(nt_tensor *t, int count, const nt_index *idx, bool single,
                        const nt_tensor *value) {
    if (!t || !value) return nt_fail(NT_ERR_VALUE, "index_put: NULL argument");
    NT_TRY(check_index_args(count, idx));
    if (recording(t, value, count, idx)) {
        /* PyTorch writes a basic index through a view of t: its text for a leaf */
        if (nt_is_grad_enabled() && nt_requires_grad(t) && nt_is_leaf(t) &&
            nt_index_is_basic(count, idx, single && count == 1))
            return nt_fail(NT_ERR_RUNTIME, "a view of a leaf Variable that requires grad is being "
                                           "used in an in-place operation.");
        return index_call(t, count, idx, single, value, false, NULL);
    }
    return set_(t, count, idx, single, value, false);
}

nt_status nt_index_put_(nt_tensor *t, int count, const nt_index *idx, const nt_tensor *value,
                        bool accumulate) {
    if (!t || !value) return nt_fail(NT_ERR_VALUE, "index_put: NULL argument");
    NT_TRY(check_index_args(count, idx));
    if (recording(t, value, count, idx))
        return index_call(t, count, idx, false, value, accumulate, NULL);
    return set_(t, count, idx, false, value, accumulate);
}

/* INDEX: t[spec] */
nt_status nt_impl_index(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("index", "self");
    nt_index idx[MAX_ENTRIES];
    int count;
    bool single;
    NT_TRY(nt_index_decode(c, idx, &count, &single));
    return single ? get_single(t, idx, &c->result[0]) : get_tuple(t, count, idx, &c->result[0]);
}

/* INDEX_PUT: t[spec] = values (added with accumulate); out of place on a clone */
nt_status nt_impl_index_put(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *value = nt_call_tensor(c, 3), *self = NULL;
    if (!t) return nt_fail_null_tensor("index_put", "self");
    if (!value) return nt_fail_null_tensor("index_put", "values");
    nt_index idx[MAX_ENTRIES];
    int count;
    bool single;
    NT_TRY(nt_index_decode(c, idx, &count, &single));
    bool accumulate = c->args[4].kind == NT_ARG_BOOL && c->args[4].v.b;
    if (c->inplace)
        self = nt_tensor_retain(t);
    else
        NT_TRY(nt_clone(t, &self));
    nt_status st = set_(self, count, idx, single, value, accumulate);
    if (st != NT_OK) {
        nt_tensor_release(self);
        return st;
    }
    c->result[0] = self;
    return NT_OK;
}
