/*
 * view.c — the views: transpose, t, permute, expand, squeeze, unsqueeze, select, narrow,
 * view, reshape, as_strided and diagonal; the in-place squeeze_, unsqueeze_ and as_strided_;
 * is_same_size.
 *
 * Each op is a row of ntensor/ops.def whose nt_impl_* function here reads the call record;
 * the public functions at the end only fill a record and go through nt_dispatch. Every dim
 * argument is an nt_dim (an index or a name), resolved by nt_tensor_dim. An in-place form
 * computes the view, then gives its geometry to the tensor itself (take_geometry).
 *
 * Every one of them only computes new sizes, strides, offset and names (on the stack) and
 * makes one tensor over the same storage; no element moves, except in reshape's fallback,
 * which copies when the strides cannot express the new shape. Arguments are checked as
 * PyTorch 1.13 checks them, with its messages. Each delivers its geometry to an
 * nt_view_dest (ops/shape.h): a new view for the op, or only the sizes for its shape rule
 * (nt_shape_*), which so runs the same checks and allocates nothing.
 *
 * Names: transpose and permute move names with their dims; select and squeeze drop the
 * removed dims' names; narrow keeps them; expand leaves new leading dims unnamed;
 * unsqueeze inserts an unnamed dim; view and reshape keep the names of the dims they keep
 * (see kept_names). PyTorch refuses permute, unsqueeze, view and reshape on named tensors;
 * the rules above are the natural ones the spec asks for instead. as_strided gives an
 * unnamed result, as PyTorch does. diagonal drops both dims' names and names the new last
 * dim `outdim` (None in its positional form).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "names/names.h"

/* a*b with wrap-around instead of undefined behaviour; used where PyTorch multiplies
 * strides without checks and the result only feeds a comparison. */
static inline int64_t wrapping_mul(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* a*b, or INT64_MAX when it overflows (products of sizes are non-negative). */
static inline int64_t saturating_mul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* nt_tensor_dim with the common case inline: an index already in [0, ndim). */
static inline nt_status resolve_dim(const nt_tensor *t, nt_dim dim, int64_t *out) {
    if (dim >= 0 && dim < t->ndim) {
        *out = dim;
        return NT_OK;
    }
    return nt_tensor_dim(t, dim, out);
}

/* Copies t's names into `names` (all None when t is unnamed). */
static void names_of(const nt_tensor *t, nt_name *names) {
    for (int i = 0; i < t->ndim; i++)
        names[i] = nt_tensor_name_at(t, i);
}

/* ------------------------------------------------------------------ transpose, permute */

static nt_status transpose(nt_tensor *t, nt_dim dim0, nt_dim dim1, nt_view_dest out) {
    int64_t d0, d1;
    NT_TRY(resolve_dim(t, dim0, &d0));
    NT_TRY(resolve_dim(t, dim1, &d1));
    bool swap = t->ndim > 0 && d0 != d1; /* a 0-dim tensor accepts dims 0 and -1 */
    if (out.shape) {                     /* the shape query: the sizes only */
        NT_TRY(nt_view_deliver(t, t->ndim, t->sizes, t->strides, t->offset, NULL, out));
        if (swap) {
            int64_t s = out.shape->sizes[d0];
            out.shape->sizes[d0] = out.shape->sizes[d1], out.shape->sizes[d1] = s;
        }
        return NT_OK;
    }
    /* a view of t as it is, then two dims swapped in it: no copies through local arrays */
    nt_tensor *v;
    NT_TRY(nt_tensor_view_of(t, t->ndim, t->sizes, t->strides, t->offset, t->names, &v));
    if (swap) {
        int64_t s = v->sizes[d0], st = v->strides[d0];
        v->sizes[d0] = v->sizes[d1], v->strides[d0] = v->strides[d1];
        v->sizes[d1] = s, v->strides[d1] = st;
        if (v->names) {
            nt_name n = v->names[d0];
            v->names[d0] = v->names[d1], v->names[d1] = n;
        }
        v->is_contiguous = nt_strides_are_contiguous(v->ndim, v->sizes, v->strides);
    }
    *out.out = v;
    return NT_OK;
}

static nt_status t_2d(nt_tensor *t, bool inplace, nt_view_dest out) {
    if (t->ndim > 2)
        return nt_fail(NT_ERR_RUNTIME,
                       "%s() expects a tensor with <= 2 dimensions, but self is %dD",
                       inplace ? "t_" : "t", t->ndim);
    return transpose(t, 0, t->ndim < 2 ? 0 : 1, out);
}

static nt_status permute(nt_tensor *t, int count, const nt_dim *dims, nt_view_dest out) {
    if (count != t->ndim)
        return nt_fail(NT_ERR_RUNTIME,
                       "permute(sparse_coo): number of dimensions in the tensor input does not "
                       "match the length of the desired ordering of dimensions i.e. "
                       "input.dim() = %d is not equal to len(dims) = %d",
                       t->ndim, count);
    int64_t wrapped[NT_MAX_DIMS];
    for (int i = 0; i < count; i++)
        NT_TRY(resolve_dim(t, dims[i], &wrapped[i]));
    bool seen[NT_MAX_DIMS] = {false};
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    for (int i = 0; i < count; i++) {
        int64_t d = wrapped[i];
        if (seen[d]) return nt_fail(NT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
        names[i] = nt_tensor_name_at(t, (int)d);
    }
    return nt_view_deliver(t, t->ndim, sizes, strides, t->offset, t->names ? names : NULL, out);
}

/* ------------------------------------------------------------------ expand */

/* PyTorch's legacy type names, which its expand message prints ("torch.FloatTensor"). */
static const char *const legacy_type_name[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "BoolTensor",      [NT_UINT8] = "ByteTensor",        [NT_INT8] = "CharTensor",
    [NT_INT16] = "ShortTensor",    [NT_INT32] = "IntTensor",         [NT_INT64] = "LongTensor",
    [NT_FLOAT16] = "HalfTensor",   [NT_BFLOAT16] = "BFloat16Tensor", [NT_FLOAT32] = "FloatTensor",
    [NT_FLOAT64] = "DoubleTensor",
};

static nt_status expand(nt_tensor *t, int ndim, const int64_t *sizes, nt_view_dest out) {
    char have[512], want[512];
    if (ndim < t->ndim) {
        nt_ints_repr(t->sizes, t->ndim, have, sizeof have);
        nt_ints_repr(sizes, ndim < 0 ? 0 : ndim, want, sizeof want);
        return nt_fail(NT_ERR_RUNTIME,
                       "expand(torch.%s{%s}, size=%s): the number of sizes provided (%d) must "
                       "be greater or equal to the number of dimensions in the tensor (%d)",
                       legacy_type_name[t->dtype], have, want, ndim, t->ndim);
    }
    if (ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    /* PyTorch's inferExpandGeometry, from the last dim to the first. */
    int64_t out_sizes[NT_MAX_DIMS], out_strides[NT_MAX_DIMS];
    for (int i = ndim - 1; i >= 0; i--) {
        int dim = t->ndim - (ndim - i);
        int64_t size = dim >= 0 ? t->sizes[dim] : 1;
        /* a new leading dim gets the stride of an outer dim of the one after it (0 past
         * the end, as PyTorch gives a 0-dim tensor expanded to [1]) */
        int64_t stride = dim >= 0        ? t->strides[dim]
                         : i == ndim - 1 ? 0
                                         : wrapping_mul(out_sizes[i + 1], out_strides[i + 1]);
        int64_t target = sizes[i];
        if (target == -1) {
            if (dim < 0)
                return nt_fail(NT_ERR_RUNTIME,
                               "The expanded size of the tensor (-1) isn't allowed in a "
                               "leading, non-existing dimension %d",
                               i);
            target = size;
        }
        if (size != target) {
            if (size != 1) {
                nt_ints_repr(sizes, ndim, want, sizeof want);
                nt_ints_repr(t->sizes, t->ndim, have, sizeof have);
                return nt_fail(NT_ERR_RUNTIME,
                               "The expanded size of the tensor (%" PRId64
                               ") must match the existing size (%" PRId64
                               ") at non-singleton dimension %d.  Target sizes: %s.  Tensor "
                               "sizes: %s",
                               target, size, i, want, have);
            }
            size = target;
            stride = 0;
        }
        out_sizes[i] = size;
        out_strides[i] = stride;
    }
    /* A negative target on a size-one dim, or a shape too large to count, ends here (PyTorch
     * fails the same way when it makes the strided view). */
    int64_t numel = 1;
    for (int i = 0; i < ndim; i++)
        if (out_sizes[i] < 0 || __builtin_mul_overflow(numel, out_sizes[i], &numel))
            return nt_fail(NT_ERR_RUNTIME, "numel: integer multiplication overflow");
    nt_name names[NT_MAX_DIMS];
    if (t->names) {
        int lead = ndim - t->ndim;
        for (int i = 0; i < lead; i++)
            names[i] = NT_NAME_NONE;
        memcpy(names + lead, t->names, (size_t)t->ndim * sizeof *names);
    }
    return nt_view_deliver(t, ndim, out_sizes, out_strides, t->offset, t->names ? names : NULL,
                           out);
}

/* ------------------------------------------------------------------ squeeze, unsqueeze */

static nt_status squeeze_all(nt_tensor *t, nt_view_dest out) {
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 1) continue;
        sizes[n] = t->sizes[i];
        strides[n] = t->strides[i];
        names[n++] = nt_tensor_name_at(t, i);
    }
    return nt_view_deliver(t, n, sizes, strides, t->offset, t->names ? names : NULL, out);
}

/* PyTorch 1.13 drops every name when squeeze(dim) meets a dim whose size is not one (it
 * returns an as_strided alias before propagating names); we keep them, as the rule
 * "removes dimensions" says for the dims that remain. */
static nt_status squeeze_dim(nt_tensor *t, nt_dim dim, nt_view_dest out) {
    int64_t d;
    NT_TRY(resolve_dim(t, dim, &d));
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d && t->sizes[i] == 1) continue;
        sizes[n] = t->sizes[i];
        strides[n] = t->strides[i];
        names[n++] = nt_tensor_name_at(t, i);
    }
    return nt_view_deliver(t, n, sizes, strides, t->offset, t->names ? names : NULL, out);
}

static nt_status unsqueeze(nt_tensor *t, int64_t dim, nt_view_dest out) {
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim + 1, &d));
    if (t->ndim + 1 > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, t->ndim + 1);
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            /* PyTorch's inferUnsqueezeGeometry: the stride that makes the new dim a
             * harmless outer dim of the one it precedes, 1 at the end */
            sizes[i] = 1;
            strides[i] = d < t->ndim ? wrapping_mul(t->sizes[d], t->strides[d]) : 1;
            names[i] = NT_NAME_NONE;
            continue;
        }
        sizes[i] = t->sizes[j];
        strides[i] = t->strides[j];
        names[i] = nt_tensor_name_at(t, j++);
    }
    return nt_view_deliver(t, t->ndim + 1, sizes, strides, t->offset, t->names ? names : NULL, out);
}

/* ------------------------------------------------------------------ select, narrow */

static nt_status select_(nt_tensor *t, nt_dim dim, int64_t index, nt_view_dest out) {
    if (t->ndim == 0 && !nt_dim_is_name(dim))
        return nt_fail(NT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    int64_t d;
    NT_TRY(resolve_dim(t, dim, &d));
    int64_t size = t->sizes[d];
    if (index < -size || index >= size) {
        char shape[512];
        nt_ints_repr(t->sizes, t->ndim, shape, sizeof shape);
        const char *name = nt_name_str(nt_tensor_name_at(t, (int)d));
        if (name)
            return nt_fail(NT_ERR_INDEX,
                           "select(): index %" PRId64
                           " out of range for tensor of size %s at dimension '%s'",
                           index, shape, name);
        return nt_fail(NT_ERR_INDEX,
                       "select(): index %" PRId64
                       " out of range for tensor of size %s at dimension %" PRId64,
                       index, shape, d);
    }
    if (index < 0) index += size;
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    for (int i = 0, j = 0; i < t->ndim; i++) {
        if (i == d) continue;
        sizes[j] = t->sizes[i];
        strides[j] = t->strides[i];
        names[j++] = nt_tensor_name_at(t, i);
    }
    return nt_view_deliver(t, t->ndim - 1, sizes, strides,
                           nt_offset_moved(t->offset, index, t->strides[d]),
                           t->names ? names : NULL, out);
}

static nt_status narrow(nt_tensor *t, nt_dim dim, int64_t start, int64_t length, nt_view_dest out) {
    if (t->ndim == 0)
        return nt_fail(NT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
    int64_t d;
    NT_TRY(resolve_dim(t, dim, &d));
    int64_t size = t->sizes[d];
    /* PyTorch wraps `start` like a dim index over the dim's size; start == size is the
     * valid empty slice at the end. */
    if (start != size) {
        int64_t n = size > 0 ? size : 1;
        if (start < -n || start >= n)
            return nt_fail(NT_ERR_INDEX,
                           "Dimension out of range (expected to be in range of [%" PRId64
                           ", %" PRId64 "], but got %" PRId64 ")",
                           -n, n - 1, start);
        if (start < 0) start += n;
    }
    if (length < 0 || start > size - length)
        return nt_fail(NT_ERR_RUNTIME,
                       "start (%" PRId64 ") + length (%" PRId64 ") exceeds dimension size (%" PRId64
                       ").",
                       start, length, size);
    int64_t sizes[NT_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    sizes[d] = length;
    return nt_view_deliver(t, t->ndim, sizes, t->strides,
                           nt_offset_moved(t->offset, start, t->strides[d]), t->names, out);
}

/* ------------------------------------------------------------------ view, reshape */

nt_status nt_infer_size(int ndim, const int64_t *shape, int64_t numel, int64_t *out,
                        nt_infer_failure *why) {
    nt_infer_failure failure = NT_INFER_OK;
    char text[512];
    int infer = -1;
    int64_t product = 1;
    bool overflow = false; /* the product passed INT64_MAX (and no 0 came yet) */
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == -1) {
            if (infer >= 0) {
                failure = NT_INFER_TWO_UNKNOWN;
                nt_fail(NT_ERR_RUNTIME, "only one dimension can be inferred");
                goto fail;
            }
            infer = i;
        } else if (shape[i] == 0) {
            product = 0, overflow = false; /* empty, whatever the other sizes */
        } else if (shape[i] > 0) {
            overflow = overflow || __builtin_mul_overflow(product, shape[i], &product);
        } else {
            failure = NT_INFER_BAD_SIZE;
            nt_fail(NT_ERR_RUNTIME, "invalid shape dimension %" PRId64, shape[i]);
            goto fail;
        }
    }
    /* A shape with more elements than int64 counts matches no tensor, not even one of
     * INT64_MAX elements (an expanded one). */
    if (!overflow && (numel == product || (infer >= 0 && product > 0 && numel % product == 0))) {
        for (int i = 0; i < ndim; i++)
            out[i] = shape[i];
        if (infer >= 0) {
            if (product == 0) {
                failure = NT_INFER_AMBIGUOUS;
                nt_ints_repr(shape, ndim, text, sizeof text);
                nt_fail(NT_ERR_RUNTIME,
                        "cannot reshape tensor of 0 elements into shape %s because the "
                        "unspecified dimension size -1 can be any value and is ambiguous",
                        text);
                goto fail;
            }
            out[infer] = numel / product;
        }
        return NT_OK;
    }
    failure = NT_INFER_MISMATCH;
    nt_ints_repr(shape, ndim, text, sizeof text);
    nt_fail(NT_ERR_RUNTIME, "shape '%s' is invalid for input of size %" PRId64, text, numel);
fail:
    if (why) *why = failure;
    return NT_ERR_RUNTIME;
}

/* PyTorch's computeStride: strides that let `ns` view memory laid out as (os, ost), or
 * false when some new dim would have to span two separately strided chunks. It walks the
 * old dims from the last, cutting them into chunks that are contiguous among themselves,
 * and fills each chunk with new dims of the same element count. */
static bool compute_stride(int on, const int64_t *os, const int64_t *ost, int nn, const int64_t *ns,
                           int64_t *nst) {
    if (on == 0) {
        for (int i = 0; i < nn; i++)
            nst[i] = 1;
        return true;
    }
    /* Empty when some size is 0 (the product of the others may overflow); the chunk
     * products below are at most the element count otherwise. */
    bool empty = false;
    for (int i = 0; i < on; i++)
        empty |= os[i] == 0;
    if (empty) {
        /* Any strides would do; match NumPy: keep them for an equal shape, else as if
         * freshly allocated. */
        if (on == nn && memcmp(os, ns, (size_t)on * sizeof *os) == 0) {
            memcpy(nst, ost, (size_t)on * sizeof *nst);
            return true;
        }
        nt_contiguous_strides(nn, ns, nst); /* saturates where the sizes overflow */
        return true;
    }
    int view_d = nn - 1;
    int64_t chunk_base_stride = ost[on - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int td = on - 1; td >= 0; td--) {
        tensor_numel *= os[td];
        if (td == 0 ||
            (os[td - 1] != 1 && ost[td - 1] != wrapping_mul(tensor_numel, chunk_base_stride))) {
            while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) {
                nst[view_d] = wrapping_mul(view_numel, chunk_base_stride);
                view_numel *= ns[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (td > 0) {
                chunk_base_stride = ost[td - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

/* The names view and reshape give their result; PyTorch refuses both on named tensors.
 * A dim keeps its name when the reshape provably keeps the dim. Both shapes are cut, from
 * the left, into minimal groups of equal element count (row-major order):
 *  - a group starts with the next old and the next new dim;
 *  - if their sizes are equal the group is that pair: the dim is kept, with its name;
 *  - otherwise a size-one dim facing a dim of another size is a group by itself (an old
 *    one is dropped, a new one is inserted unnamed);
 *  - otherwise the side with the smaller element count takes its next dim until the two
 *    counts are equal: the old dims were merged and/or split, and the new dims of that
 *    group are unnamed.
 * So [N=2, C=3, H=4] -> [2, 12] is named ('N', None); -> [6, 4] is (None, 'H'); -> [2, 1,
 * 3, 4] is ('N', None, 'C', 'H'). */
static void kept_names(const nt_tensor *t, int nn, const int64_t *ns, nt_name *names) {
    const int on = t->ndim;
    const int64_t *os = t->sizes;
    for (int j = 0; j < nn; j++)
        names[j] = NT_NAME_NONE;
    int i = 0, j = 0;
    while (i < on || j < nn) {
        if (i < on && j < nn && os[i] == ns[j]) {
            names[j++] = t->names[i++];
            continue;
        }
        if (i < on && os[i] == 1) {
            i++;
            continue;
        }
        if (j < nn && ns[j] == 1) {
            j++;
            continue;
        }
        int64_t po = i < on ? os[i++] : 1;
        int64_t pn = j < nn ? ns[j++] : 1;
        while (po != pn) {
            if (i < on && (po < pn || j >= nn))
                po = saturating_mul(po, os[i++]);
            else if (j < nn)
                pn = saturating_mul(pn, ns[j++]);
            else
                break;
        }
    }
}

/* view (allow_copy false) and reshape (true); `names` as given when explicit_names, else
 * the kept names. */
static nt_status reshape_impl(nt_tensor *t, int ndim, const int64_t *sizes, bool explicit_names,
                              const nt_name *names, bool allow_copy, nt_view_dest out) {
    int64_t strides[NT_MAX_DIMS];
    nt_name kept[NT_MAX_DIMS];
    if (!explicit_names && t->names) {
        kept_names(t, ndim, sizes, kept);
        names = kept;
    } else if (!explicit_names) {
        names = NULL;
    }
    if (compute_stride(t->ndim, t->sizes, t->strides, ndim, sizes, strides))
        return nt_view_deliver(t, ndim, sizes, strides, t->offset, names, out);
    if (!allow_copy)
        return nt_fail(NT_ERR_RUNTIME,
                       "view size is not compatible with input tensor's size and stride (at "
                       "least one dimension spans across two contiguous subspaces). Use "
                       ".reshape(...) instead.");
    nt_contiguous_strides(ndim, sizes, strides);
    if (out.shape) return nt_view_deliver(t, ndim, sizes, strides, t->offset, names, out);
    nt_tensor *dense = NULL;
    NT_TRY(nt_contiguous(t, &dense));
    nt_status st = nt_view_deliver(dense, ndim, sizes, strides, dense->offset, names, out);
    nt_tensor_release(dense);
    return st;
}

nt_status nt_view_named(nt_tensor *t, int ndim, const int64_t *sizes, const nt_name *names,
                        bool allow_copy, nt_view_dest out) {
    return reshape_impl(t, ndim, sizes, true, names, allow_copy, out);
}

static nt_status view_or_reshape(nt_tensor *t, int ndim, const int64_t *proposed, bool allow_copy,
                                 nt_view_dest out) {
    if (ndim < 0 || ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    int64_t sizes[NT_MAX_DIMS];
    NT_TRY(nt_infer_size(ndim, proposed, t->numel, sizes, NULL));
    return reshape_impl(t, ndim, sizes, false, NULL, allow_copy, out);
}

/* ------------------------------------------------------------------ as_strided */

/* PyTorch's checks of an as_strided geometry on t's storage. */
static nt_status check_strided(const nt_tensor *t, int ndim, const int64_t *sizes,
                               const int64_t *strides, int64_t offset) {
    char size_text[512], stride_text[512];
    if (ndim < 0 || ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    nt_ints_repr(sizes, ndim, size_text, sizeof size_text);
    nt_ints_repr(strides, ndim, stride_text, sizeof stride_text);
    for (int i = 0; i < ndim; i++)
        if (strides[i] < 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "as_strided: Negative strides are not supported at the moment, got "
                           "strides: %s",
                           stride_text);
    /* The extent: one past the furthest element, in elements from the storage start. */
    int64_t extent = 1;
    bool empty = false, overflow = false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) overflow = true;
        if (sizes[i] == 0) empty = true;
    }
    for (int i = 0; i < ndim && !overflow && !empty; i++) {
        int64_t span;
        overflow = __builtin_mul_overflow(strides[i], sizes[i] - 1, &span) ||
                   __builtin_add_overflow(extent, span, &extent);
    }
    int64_t itemsize = (int64_t)nt_dtype_table[t->dtype].size, need = 0;
    if (!overflow && !empty) overflow = __builtin_mul_overflow(extent, itemsize, &need);
    if (overflow)
        return nt_fail(NT_ERR_RUNTIME,
                       "Storage size calculation overflowed with sizes=%s and strides=%s",
                       size_text, stride_text);
    /* Zero strides let an extent that fits hold more elements than int64 counts. */
    int64_t numel = 1;
    for (int i = 0; i < ndim && !empty; i++)
        if (__builtin_mul_overflow(numel, sizes[i], &numel))
            return nt_fail(NT_ERR_RUNTIME, "numel: integer multiplication overflow");
    /* A tensor with no elements may sit anywhere. */
    if (!empty) {
        int64_t offset_bytes;
        if (__builtin_mul_overflow(offset, itemsize, &offset_bytes) ||
            __builtin_add_overflow(need, offset_bytes, &need))
            return nt_fail(NT_ERR_RUNTIME,
                           "Storage size calculation overflowed with sizes=%s and strides=%s",
                           size_text, stride_text);
        int64_t have = (int64_t)t->storage->nbytes;
        if (need > have)
            return nt_fail(NT_ERR_RUNTIME,
                           "setStorage: sizes %s, strides %s, storage offset %" PRId64
                           ", and itemsize %" PRId64 " requiring a storage size of %" PRId64
                           " are out of bounds for storage of size %" PRId64,
                           size_text, stride_text, offset, itemsize, need, have);
    }
    if (offset < 0)
        return nt_fail(NT_ERR_RUNTIME, "Tensor: invalid storage offset %" PRId64, offset);
    return NT_OK;
}

/* ------------------------------------------------------------------ diagonal */

/* PyTorch's diagonal: dims dim1 and dim2 removed, one dim of the diagonal's length
 * appended, whose stride walks both; `outdim` names it (None for the positional form). */
static nt_status diagonal(nt_tensor *t, int64_t offset, nt_dim dim1, nt_dim dim2, nt_name outdim,
                          nt_view_dest out) {
    int64_t d1, d2;
    NT_TRY(resolve_dim(t, dim1, &d1));
    NT_TRY(resolve_dim(t, dim2, &d2));
    if (d1 == d2) {
        if (nt_dim_is_name(dim1) || nt_dim_is_name(dim2)) dim1 = d1, dim2 = d2;
        return nt_fail(NT_ERR_RUNTIME,
                       "diagonal dimensions cannot be identical %" PRId64 ", %" PRId64, dim1, dim2);
    }
    int64_t n1 = t->sizes[d1], n2 = t->sizes[d2], length;
    int64_t pos = t->offset;
    if (offset >= 0)
        length = n1 < n2 - offset ? n1 : n2 - offset;
    else
        length = n1 + offset < n2 ? n1 + offset : n2;
    if (length < 0) length = 0;
    if (length > 0)
        pos = offset >= 0 ? nt_offset_moved(pos, offset, t->strides[d2])
                          : nt_offset_moved(pos, -offset, t->strides[d1]);
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d1 || i == d2) continue;
        sizes[n] = t->sizes[i];
        strides[n] = t->strides[i];
        names[n++] = nt_tensor_name_at(t, i);
    }
    sizes[n] = length;
    strides[n] = (int64_t)((uint64_t)t->strides[d1] + (uint64_t)t->strides[d2]);
    names[n++] = outdim;
    if (outdim != NT_NAME_NONE) {
        NT_TRY(nt_names_check_known(&outdim, 1));
        NT_TRY(nt_names_check_unique(names, n));
    }
    return nt_view_deliver(t, n, sizes, strides, pos, t->names || outdim ? names : NULL, out);
}

/* ------------------------------------------------------------------ movedim, unfold */

/* "[0, 'C', -1]": dims as PyTorch prints a list of ints, names quoted. */
static void dims_repr(const nt_dim *dims, int n, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i <= n && len < cap; i++) {
        const char *sep = i == 0 ? "[" : ", ";
        int w;
        if (i == n)
            w = snprintf(buf + len, cap - len, "%s]", i == 0 ? "[" : "");
        else if (nt_dim_is_name(dims[i]) && nt_name_str(nt_dim_to_name(dims[i])))
            w = snprintf(buf + len, cap - len, "%s'%s'", sep, nt_name_str(nt_dim_to_name(dims[i])));
        else if (nt_dim_is_name(dims[i]))
            w = snprintf(buf + len, cap - len, "%sNone", sep);
        else
            w = snprintf(buf + len, cap - len, "%s%" PRId64, sep, dims[i]);
        if (w > 0) len += (size_t)w;
    }
}

/* PyTorch's movedim: dims source[i] go to positions destination[i], the others keep their
 * order in the remaining positions; a permute. */
static nt_status movedim(nt_tensor *t, int count, const nt_dim *source, const int64_t *dest,
                         int dcount, nt_view_dest out) {
    char a[512], b[512];
    if (count != dcount) {
        dims_repr(source, count, a, sizeof a);
        nt_ints_repr(dest, dcount, b, sizeof b);
        return nt_fail(NT_ERR_RUNTIME,
                       "movedim: Invalid source or destination dims: source (%s dims) should "
                       "contain the same number of dims as destination (%s dims)",
                       a, b);
    }
    if (count > NT_MAX_DIMS) return nt_fail(NT_ERR_RUNTIME, "movedim: too many dims (%d)", count);
    int64_t src[NT_MAX_DIMS], dst[NT_MAX_DIMS];
    for (int i = 0; i < count; i++)
        NT_TRY(resolve_dim(t, source[i], &src[i]));
    for (int i = 0; i < count; i++)
        NT_TRY(nt_wrap_dim(dest[i], t->ndim, &dst[i]));
    bool src_used[NT_MAX_DIMS] = {false}, dst_used[NT_MAX_DIMS] = {false};
    for (int i = 0; i < count; i++) {
        if (src_used[src[i]]) {
            dims_repr(source, count, a, sizeof a);
            return nt_fail(NT_ERR_RUNTIME, "movedim: repeated dim in `source` (%s)", a);
        }
        src_used[src[i]] = true;
    }
    for (int i = 0; i < count; i++) {
        if (dst_used[dst[i]]) {
            nt_ints_repr(dest, count, a, sizeof a);
            return nt_fail(NT_ERR_RUNTIME, "movedim: repeated dim in `destination` (%s)", a);
        }
        dst_used[dst[i]] = true;
    }
    if (t->ndim == 0) return nt_view_deliver(t, 0, NULL, NULL, t->offset, NULL, out);
    nt_dim order[NT_MAX_DIMS];
    for (int i = 0; i < count; i++)
        order[dst[i]] = src[i];
    for (int d = 0, s = 0; d < t->ndim; d++) {
        if (dst_used[d]) continue;
        while (src_used[s])
            s++;
        order[d] = s++;
    }
    return permute(t, t->ndim, order, out);
}

/* PyTorch's unfold: dim `dimension` becomes (size_d - size) / step + 1 windows, and a new
 * last dim of `size` walks each window; the new dim is unnamed, the others keep theirs. */
static nt_status unfold(nt_tensor *t, nt_dim dimension, int64_t size, int64_t step,
                        nt_view_dest out) {
    int64_t d;
    NT_TRY(resolve_dim(t, dimension, &d));
    int64_t max_size = t->ndim == 0 ? 1 : t->sizes[d];
    if (size > max_size)
        return nt_fail(NT_ERR_RUNTIME,
                       "maximum size for tensor at dimension %" PRId64 " is %" PRId64
                       " but size is %" PRId64,
                       d, max_size, size);
    if (step <= 0) return nt_fail(NT_ERR_RUNTIME, "step is %" PRId64 " but must be > 0", step);
    if (t->ndim + 1 > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, t->ndim + 1);
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    names_of(t, names);
    int n = t->ndim;
    sizes[n] = size;
    strides[n] = t->ndim == 0 ? 1 : t->strides[d];
    names[n] = NT_NAME_NONE;
    if (t->ndim > 0) {
        sizes[d] = (t->sizes[d] - size) / step + 1;
        strides[d] = wrapping_mul(step, t->strides[d]);
    }
    if (size < 0) { /* PyTorch fails when it makes the strided view */
        char a[512], b[512];
        nt_ints_repr(sizes, n + 1, a, sizeof a);
        nt_ints_repr(strides, n + 1, b, sizeof b);
        return nt_fail(NT_ERR_RUNTIME,
                       "Storage size calculation overflowed with sizes=%s and strides=%s", a, b);
    }
    return nt_view_deliver(t, n + 1, sizes, strides, t->offset, t->names ? names : NULL, out);
}

/* ------------------------------------------------------------------ in place */

/* Gives t itself the geometry of view `v` (squeeze_, unsqueeze_, as_strided_): its dims
 * live in t's own allocation, which nt_tensor_reserve_dims grows past the ndim t was made
 * with. */
static nt_status take_geometry(nt_tensor *t, nt_tensor *v) {
    nt_status st = nt_tensor_reserve_dims(t, v->ndim);
    if (st == NT_OK) {
        t->sizes = t->grown ? t->grown : t->dims;
        t->strides = t->grown ? t->grown + NT_MAX_DIMS : t->dims + v->ndim;
        memcpy(t->sizes, v->sizes, (size_t)v->ndim * sizeof *t->sizes);
        memcpy(t->strides, v->strides, (size_t)v->ndim * sizeof *t->strides);
        t->ndim = v->ndim;
        t->offset = v->offset;
        t->numel = v->numel;
        t->is_contiguous = v->is_contiguous;
        nt_tensor_set_names_unchecked(t, v->names);
    }
    nt_tensor_release(v);
    return st;
}

/* The in-place form's result: t itself, given the view's geometry. */
static nt_status inplace_result(nt_call *c, nt_tensor *view) {
    nt_tensor *t = c->args[0].v.t;
    NT_TRY(take_geometry(t, view));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

/* The result of a view op: the view, or for the in-place form t reshaped to it. */
static inline nt_status view_result(nt_call *c, nt_status st, nt_tensor *view) {
    if (st != NT_OK) return st;
    if (c->inplace) return inplace_result(c, view);
    c->result[0] = view;
    return NT_OK;
}

/* ------------------------------------------------------------------ the op table's functions */

/* Slot i as a dim, or `def` when not given. */
static inline nt_dim dim_arg(const nt_call *c, int i, nt_dim def) {
    return c->args[i].kind == NT_ARG_DIM ? c->args[i].v.dim : def;
}

static inline int64_t int_arg(const nt_call *c, int i, int64_t def) {
    return c->args[i].kind == NT_ARG_INT ? c->args[i].v.i : def;
}

/* The tensor of slot 0, which every view op takes. */
#define SELF_OR_FAIL(c, name)                                                                      \
    nt_tensor *t = nt_call_tensor(c, 0);                                                           \
    if (!t) return nt_fail_null_tensor(name, "self")

/* Each view op reads its record once, in a function that delivers to a destination: a new
 * view for the op (its impl), or the sizes for the shape query (its shape rule). */

/* transpose, transpose_, swapaxes(_), swapdims(_): slots 1 and 2 are the dims */
static nt_status transpose_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "transpose");
    return transpose(t, dim_arg(c, 1, 0), dim_arg(c, 2, 1), d);
}

static nt_status t_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "t");
    return t_2d(t, c->inplace, d);
}

static nt_status permute_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "permute");
    return permute(t, c->args[1].n, c->args[1].v.dims, d);
}

/* expand(size), expand_as(other): other's sizes */
static nt_status expand_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, c->op == NT_OP_EXPAND_AS ? "expand_as" : "expand");
    if (c->op == NT_OP_EXPAND) return expand(t, c->args[1].n, c->args[1].v.ints, d);
    const nt_tensor *other = nt_call_tensor(c, 1);
    if (!other) return nt_fail_null_tensor("expand_as", "other");
    return expand(t, other->ndim, other->sizes, d);
}

static nt_status squeeze_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "squeeze");
    return c->op == NT_OP_SQUEEZE_DIM ? squeeze_dim(t, dim_arg(c, 1, 0), d) : squeeze_all(t, d);
}

static nt_status unsqueeze_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "unsqueeze");
    return unsqueeze(t, int_arg(c, 1, 0), d);
}

static nt_status select_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "select");
    return select_(t, dim_arg(c, 1, 0), int_arg(c, 2, 0), d);
}

static nt_status narrow_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "narrow");
    int64_t start = int_arg(c, 2, 0);
    const nt_tensor *s = nt_call_tensor(c, 2);
    if (s) { /* narrow(dim, Tensor start, length) */
        if (s->ndim != 0 || nt_dtype_is_floating(s->dtype) || s->dtype == NT_BOOL)
            return nt_fail(NT_ERR_RUNTIME, "start must be an 0-dim integral Tensor.");
        nt_scalar v;
        NT_TRY(nt_item(s, &v));
        start = v.v.i;
    }
    return narrow(t, dim_arg(c, 1, 0), start, int_arg(c, 3, 0), d);
}

static nt_status view_dtype_call(const nt_call *c, nt_view_dest d) {
    (void)c, (void)d;
    return nt_fail(NT_ERR_NOT_IMPLEMENTED, "view(dtype): reinterpreting the elements as another "
                                           "dtype is not supported");
}

/* view(size), reshape(shape), and view_as(other), reshape_as(other): other's sizes */
static nt_status view_call(const nt_call *c, nt_view_dest d) {
    if (c->op == NT_OP_VIEW_DTYPE) return view_dtype_call(c, d);
    bool allow_copy = c->op == NT_OP_RESHAPE || c->op == NT_OP_RESHAPE_AS;
    SELF_OR_FAIL(c, allow_copy ? "reshape" : "view");
    const nt_tensor *other = nt_call_tensor(c, 1);
    if (other) return view_or_reshape(t, other->ndim, other->sizes, allow_copy, d);
    return view_or_reshape(t, c->args[1].n, c->args[1].v.ints, allow_copy, d);
}

static nt_status as_strided_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "as_strided");
    const nt_arg *size = &c->args[1], *stride = &c->args[2];
    int64_t offset = int_arg(c, 3, t->offset);
    if (size->n != stride->n)
        return nt_fail(NT_ERR_RUNTIME, "mismatch in length of strides and shape");
    NT_TRY(check_strided(t, size->n, size->v.ints, stride->v.ints, offset));
    return nt_view_deliver(t, size->n, size->v.ints, stride->v.ints, offset, NULL, d);
}

/* movedim(source, destination) and moveaxis: one dim each, or lists */
static nt_status movedim_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "movedim");
    if (c->args[1].kind == NT_ARG_DIMS)
        return movedim(t, c->args[1].n, c->args[1].v.dims, c->args[2].v.ints, c->args[2].n, d);
    nt_dim source = dim_arg(c, 1, 0);
    int64_t dest = int_arg(c, 2, 0);
    return movedim(t, 1, &source, &dest, 1, d);
}

static nt_status unfold_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "unfold");
    return unfold(t, dim_arg(c, 1, 0), int_arg(c, 2, 0), int_arg(c, 3, 1), d);
}

static nt_status diagonal_call(const nt_call *c, nt_view_dest d) {
    SELF_OR_FAIL(c, "diagonal");
    if (c->op == NT_OP_DIAGONAL_NAMED) {
        const nt_arg *outdim = &c->args[1];
        nt_name name =
            outdim->kind == NT_ARG_NAMES && outdim->n == 1 ? outdim->v.names[0] : NT_NAME_NONE;
        return diagonal(t, int_arg(c, 4, 0), dim_arg(c, 2, 0), dim_arg(c, 3, 1), name, d);
    }
    return diagonal(t, int_arg(c, 1, 0), dim_arg(c, 2, 0), dim_arg(c, 3, 1), NT_NAME_NONE, d);
}

/* The impl (the view, or self given its geometry for an in-place form) and the shape rule
 * of each. */
#define VIEW_OP(NAME, CALL)                                                                        \
    nt_status nt_impl_##NAME(nt_call *c) {                                                         \
        nt_tensor *v = NULL;                                                                       \
        nt_status st = CALL(c, nt_view_to(&v));                                                    \
        return view_result(c, st, v);                                                              \
    }                                                                                              \
    nt_status nt_shape_##NAME(const nt_call *c, nt_shape *s) {                                     \
        return CALL(c, nt_view_shape(s));                                                          \
    }
VIEW_OP(transpose, transpose_call)
VIEW_OP(t, t_call)
VIEW_OP(permute, permute_call)
VIEW_OP(expand, expand_call)
VIEW_OP(squeeze, squeeze_call)
VIEW_OP(unsqueeze, unsqueeze_call)
VIEW_OP(select, select_call)
VIEW_OP(narrow, narrow_call)
VIEW_OP(view, view_call)
VIEW_OP(as_strided, as_strided_call)
VIEW_OP(movedim, movedim_call)
VIEW_OP(unfold, unfold_call)
VIEW_OP(diagonal, diagonal_call)
#undef VIEW_OP

nt_status nt_expand_shape(const nt_tensor *t, int ndim, const int64_t *sizes, nt_shape *s) {
    return expand((nt_tensor *)t, ndim, sizes, nt_view_shape(s));
}

nt_status nt_impl_expand_as(nt_call *c) {
    return nt_impl_expand(c);
}

nt_status nt_impl_reshape(nt_call *c) {
    return nt_impl_view(c);
}

nt_status nt_impl_view_dtype(nt_call *c) {
    return nt_impl_view(c);
}

nt_status nt_impl_is_same_size(nt_call *c) {
    SELF_OR_FAIL(c, "is_same_size");
    const nt_tensor *other = nt_call_tensor(c, 1);
    if (!other) return nt_fail_null_tensor("is_same_size", "other");
    bool same = t->ndim == other->ndim;
    for (int i = 0; same && i < t->ndim; i++)
        same = t->sizes[i] == other->sizes[i];
    c->value = nt_scalar_bool(same);
    return NT_OK;
}

/* ------------------------------------------------------------------ the public functions */

/* Each fills a call record and goes through the dispatcher. */
static inline nt_status run_view(nt_call *c, nt_tensor **out) {
    NT_TRY(nt_dispatch(c));
    *out = c->result[0];
    return NT_OK;
}

static inline nt_status run_inplace(nt_call *c) {
    c->inplace = true;
    NT_TRY(nt_dispatch(c));
    nt_tensor_release(c->result[0]);
    return NT_OK;
}

nt_status nt_transpose(nt_tensor *t, nt_dim dim0, nt_dim dim1, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_TRANSPOSE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim0);
    c.args[2] = nt_arg_dim(dim1);
    return run_view(&c, out);
}

nt_status nt_transpose_(nt_tensor *t, nt_dim dim0, nt_dim dim1) {
    nt_call c;
    nt_call_init(&c, NT_OP_TRANSPOSE_INPLACE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim0);
    c.args[2] = nt_arg_dim(dim1);
    return run_inplace(&c);
}

nt_status nt_t(nt_tensor *t, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_T);
    c.args[0] = nt_arg_tensor(t);
    return run_view(&c, out);
}

nt_status nt_t_(nt_tensor *t) {
    nt_call c;
    nt_call_init(&c, NT_OP_T);
    c.args[0] = nt_arg_tensor(t);
    return run_inplace(&c);
}

nt_status nt_permute(nt_tensor *t, int count, const nt_dim *dims, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_PERMUTE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dims(count, dims);
    return run_view(&c, out);
}

nt_status nt_expand(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_EXPAND);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(ndim, sizes);
    c.args[2] = nt_arg_bool(false);
    return run_view(&c, out);
}

nt_status nt_expand_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_EXPAND_AS);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)other);
    return run_view(&c, out);
}

nt_status nt_squeeze(nt_tensor *t, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_SQUEEZE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_none();
    return run_view(&c, out);
}

nt_status nt_squeeze_dim(nt_tensor *t, nt_dim dim, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_SQUEEZE_DIM);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    return run_view(&c, out);
}

nt_status nt_squeeze_(nt_tensor *t) {
    nt_call c;
    nt_call_init(&c, NT_OP_SQUEEZE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_none();
    return run_inplace(&c);
}

nt_status nt_squeeze_dim_(nt_tensor *t, nt_dim dim) {
    nt_call c;
    nt_call_init(&c, NT_OP_SQUEEZE_DIM);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    return run_inplace(&c);
}

nt_status nt_unsqueeze(nt_tensor *t, int64_t dim, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_UNSQUEEZE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(dim);
    return run_view(&c, out);
}

nt_status nt_unsqueeze_(nt_tensor *t, int64_t dim) {
    nt_call c;
    nt_call_init(&c, NT_OP_UNSQUEEZE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(dim);
    return run_inplace(&c);
}

nt_status nt_select(nt_tensor *t, nt_dim dim, int64_t index, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_SELECT);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_int(index);
    return run_view(&c, out);
}

nt_status nt_narrow(nt_tensor *t, nt_dim dim, int64_t start, int64_t length, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_NARROW);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_int(start);
    c.args[3] = nt_arg_int(length);
    return run_view(&c, out);
}

nt_status nt_view(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_VIEW);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(ndim, sizes);
    return run_view(&c, out);
}

nt_status nt_reshape(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_RESHAPE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(ndim, sizes);
    return run_view(&c, out);
}

nt_status nt_view_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_VIEW_AS);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)other);
    return run_view(&c, out);
}

nt_status nt_reshape_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_RESHAPE_AS);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)other);
    return run_view(&c, out);
}

nt_status nt_as_strided(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                        int64_t offset, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_AS_STRIDED);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(ndim, sizes);
    c.args[2] = nt_arg_ints(ndim, strides);
    c.args[3] = nt_arg_int(offset);
    return run_view(&c, out);
}

nt_status nt_as_strided_(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset) {
    nt_call c;
    nt_call_init(&c, NT_OP_AS_STRIDED);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(ndim, sizes);
    c.args[2] = nt_arg_ints(ndim, strides);
    c.args[3] = nt_arg_int(offset);
    return run_inplace(&c);
}

nt_status nt_diagonal(nt_tensor *t, int64_t offset, nt_dim dim1, nt_dim dim2, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_DIAGONAL);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(offset);
    c.args[2] = nt_arg_dim(dim1);
    c.args[3] = nt_arg_dim(dim2);
    return run_view(&c, out);
}

nt_status nt_diagonal_named(nt_tensor *t, nt_name outdim, nt_dim dim1, nt_dim dim2, int64_t offset,
                            nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_DIAGONAL_NAMED);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_names(1, &outdim, -1);
    c.args[2] = nt_arg_dim(dim1);
    c.args[3] = nt_arg_dim(dim2);
    c.args[4] = nt_arg_int(offset);
    return run_view(&c, out);
}

nt_status nt_movedim(nt_tensor *t, int count, const nt_dim *source, const int64_t *destination,
                     nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_MOVEDIM_LIST);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dims(count, source);
    c.args[2] = nt_arg_ints(count, destination);
    return run_view(&c, out);
}

nt_status nt_unfold(nt_tensor *t, nt_dim dimension, int64_t size, int64_t step, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_UNFOLD);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dimension);
    c.args[2] = nt_arg_int(size);
    c.args[3] = nt_arg_int(step);
    return run_view(&c, out);
}

nt_status nt_is_same_size(const nt_tensor *t, const nt_tensor *other, bool *out) {
    nt_call c;
    nt_call_init(&c, NT_OP_IS_SAME_SIZE);
    c.args[0] = nt_arg_tensor((nt_tensor *)t);
    c.args[1] = nt_arg_tensor((nt_tensor *)other);
    NT_TRY(nt_dispatch(&c));
    *out = c.value.v.b;
    return NT_OK;
}
