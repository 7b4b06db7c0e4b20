/*
 * view.c — the views: transpose, t, permute, expand, squeeze, unsqueeze, select, narrow,
 * view, reshape and as_strided.
 *
 * Every one of them only computes new sizes, strides, offset and names (on the stack) and
 * makes one tensor over the same storage; no element moves, except in reshape's fallback,
 * which copies when the strides cannot express the new shape. Arguments are checked as
 * PyTorch 1.13 checks them, with its messages.
 *
 * Names: transpose and permute move names with their dims; select and squeeze drop the
 * removed dims' names; narrow keeps them; expand leaves new leading dims unnamed;
 * unsqueeze inserts an unnamed dim; view and reshape keep the names of the dims they keep
 * (see kept_names). PyTorch refuses permute, unsqueeze, view and reshape on named tensors;
 * the rules above are the natural ones the spec asks for instead. as_strided gives an
 * unnamed result, as PyTorch does.
 */
#include <inttypes.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
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

/* Copies t's names into `names` (all None when t is unnamed). */
static void names_of(const nt_tensor *t, nt_name *names) {
    for (int i = 0; i < t->ndim; i++)
        names[i] = nt_tensor_name_at(t, i);
}

/* ------------------------------------------------------------------ transpose, permute */

nt_status nt_transpose(nt_tensor *t, int64_t dim0, int64_t dim1, nt_tensor **out) {
    int64_t d0, d1;
    NT_TRY(nt_wrap_dim(dim0, t->ndim, &d0));
    NT_TRY(nt_wrap_dim(dim1, t->ndim, &d1));
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    names_of(t, names);
    if (t->ndim > 0) { /* a 0-dim tensor accepts dims 0 and -1 and stays as it is */
        int64_t s = sizes[d0], st = strides[d0];
        nt_name n = names[d0];
        sizes[d0] = sizes[d1], strides[d0] = strides[d1], names[d0] = names[d1];
        sizes[d1] = s, strides[d1] = st, names[d1] = n;
    }
    return nt_tensor_view_of(t, t->ndim, sizes, strides, t->offset, t->names ? names : NULL, out);
}

nt_status nt_t(nt_tensor *t, nt_tensor **out) {
    if (t->ndim > 2)
        return nt_fail(NT_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is %dD",
                       t->ndim);
    return nt_transpose(t, 0, t->ndim < 2 ? 0 : 1, out);
}

nt_status nt_permute(nt_tensor *t, int count, const int64_t *dims, nt_tensor **out) {
    if (count != t->ndim)
        return nt_fail(NT_ERR_RUNTIME,
                       "permute(sparse_coo): number of dimensions in the tensor input does not "
                       "match the length of the desired ordering of dimensions i.e. "
                       "input.dim() = %d is not equal to len(dims) = %d",
                       t->ndim, count);
    int64_t wrapped[NT_MAX_DIMS];
    for (int i = 0; i < count; i++)
        NT_TRY(nt_wrap_dim(dims[i], t->ndim, &wrapped[i]));
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
    return nt_tensor_view_of(t, t->ndim, sizes, strides, t->offset, t->names ? names : NULL, out);
}

/* ------------------------------------------------------------------ expand */

/* PyTorch's legacy type names, which its expand message prints ("torch.FloatTensor"). */
static const char *const legacy_type_name[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "BoolTensor",      [NT_UINT8] = "ByteTensor",        [NT_INT8] = "CharTensor",
    [NT_INT16] = "ShortTensor",    [NT_INT32] = "IntTensor",         [NT_INT64] = "LongTensor",
    [NT_FLOAT16] = "HalfTensor",   [NT_BFLOAT16] = "BFloat16Tensor", [NT_FLOAT32] = "FloatTensor",
    [NT_FLOAT64] = "DoubleTensor",
};

nt_status nt_expand(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out) {
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
    return nt_tensor_view_of(t, ndim, out_sizes, out_strides, t->offset, t->names ? names : NULL,
                             out);
}

nt_status nt_expand_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out) {
    return nt_expand(t, other->ndim, other->sizes, out);
}

/* ------------------------------------------------------------------ squeeze, unsqueeze */

nt_status nt_squeeze(nt_tensor *t, nt_tensor **out) {
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 1) continue;
        sizes[n] = t->sizes[i];
        strides[n] = t->strides[i];
        names[n++] = nt_tensor_name_at(t, i);
    }
    return nt_tensor_view_of(t, n, sizes, strides, t->offset, t->names ? names : NULL, out);
}

/* PyTorch 1.13 drops every name when squeeze(dim) meets a dim whose size is not one (it
 * returns an as_strided alias before propagating names); we keep them, as the rule
 * "removes dimensions" says for the dims that remain. */
nt_status nt_squeeze_dim(nt_tensor *t, int64_t dim, nt_tensor **out) {
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d && t->sizes[i] == 1) continue;
        sizes[n] = t->sizes[i];
        strides[n] = t->strides[i];
        names[n++] = nt_tensor_name_at(t, i);
    }
    return nt_tensor_view_of(t, n, sizes, strides, t->offset, t->names ? names : NULL, out);
}

nt_status nt_unsqueeze(nt_tensor *t, int64_t dim, nt_tensor **out) {
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
    return nt_tensor_view_of(t, t->ndim + 1, sizes, strides, t->offset, t->names ? names : NULL,
                             out);
}

/* ------------------------------------------------------------------ select, narrow */

nt_status nt_select(nt_tensor *t, int64_t dim, int64_t index, nt_tensor **out) {
    if (t->ndim == 0) return nt_fail(NT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
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
    return nt_tensor_view_of(t, t->ndim - 1, sizes, strides,
                             nt_offset_moved(t->offset, index, t->strides[d]),
                             t->names ? names : NULL, out);
}

nt_status nt_narrow(nt_tensor *t, int64_t dim, int64_t start, int64_t length, nt_tensor **out) {
    if (t->ndim == 0)
        return nt_fail(NT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
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
    return nt_tensor_view_of(t, t->ndim, sizes, t->strides,
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
                              const nt_name *names, bool allow_copy, nt_tensor **out) {
    int64_t strides[NT_MAX_DIMS];
    nt_name kept[NT_MAX_DIMS];
    if (!explicit_names && t->names) {
        kept_names(t, ndim, sizes, kept);
        names = kept;
    } else if (!explicit_names) {
        names = NULL;
    }
    if (compute_stride(t->ndim, t->sizes, t->strides, ndim, sizes, strides))
        return nt_tensor_view_of(t, ndim, sizes, strides, t->offset, names, out);
    if (!allow_copy)
        return nt_fail(NT_ERR_RUNTIME,
                       "view size is not compatible with input tensor's size and stride (at "
                       "least one dimension spans across two contiguous subspaces). Use "
                       ".reshape(...) instead.");
    nt_tensor *dense = NULL;
    NT_TRY(nt_contiguous(t, &dense));
    nt_contiguous_strides(ndim, sizes, strides);
    nt_status st = nt_tensor_view_of(dense, ndim, sizes, strides, dense->offset, names, out);
    nt_tensor_release(dense);
    return st;
}

nt_status nt_view_named(nt_tensor *t, int ndim, const int64_t *sizes, const nt_name *names,
                        bool allow_copy, nt_tensor **out) {
    return reshape_impl(t, ndim, sizes, true, names, allow_copy, out);
}

static nt_status view_or_reshape(nt_tensor *t, int ndim, const int64_t *proposed, bool allow_copy,
                                 nt_tensor **out) {
    if (ndim < 0 || ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    int64_t sizes[NT_MAX_DIMS];
    NT_TRY(nt_infer_size(ndim, proposed, t->numel, sizes, NULL));
    return reshape_impl(t, ndim, sizes, false, NULL, allow_copy, out);
}

nt_status nt_view(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out) {
    return view_or_reshape(t, ndim, sizes, false, out);
}

nt_status nt_reshape(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out) {
    return view_or_reshape(t, ndim, sizes, true, out);
}

/* ------------------------------------------------------------------ as_strided */

nt_status nt_as_strided(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                        int64_t offset, nt_tensor **out) {
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
    return nt_tensor_view_of(t, ndim, sizes, strides, offset, NULL, out);
}
