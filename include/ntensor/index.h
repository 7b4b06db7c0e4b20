/**
 * @file
 * ntensor/index.h — indexing, masks, joining and splitting, resize_.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_INDEX_H
#define NTENSOR_INDEX_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ indexing and joining */
/* Names: an int-indexed dim loses its name, a sliced dim keeps it, a new (None/True/False)
 * dim is unnamed, and the dims an advanced (tensor) index produces are unnamed. Every dim
 * argument below is an nt_dim: an index or a name (nt_dim_name), resolved with PyTorch's
 * texts; the ops are rows of the op table (NT_OP_INDEX_FILL, NT_OP_CAT, ...), which
 * nt_call_op also calls (masked_select and cat with out=, for example). */

/** The kinds of entry of an index tuple (nt_index). */
typedef enum nt_index_kind {
    NT_INDEX_INT,      /**< `i`: selects (removes) the dim */
    NT_INDEX_SLICE,    /**< start:stop:step (Python's clamping; step must be > 0) */
    NT_INDEX_NONE,     /**< a new size-one dim */
    NT_INDEX_ELLIPSIS, /**< as many full slices as needed */
    NT_INDEX_BOOL,     /**< Python True/False: a new size-one dim indexed by [0] or [] */
    NT_INDEX_TENSOR,   /**< an int64, uint8 or bool tensor (advanced indexing) */
} nt_index_kind;

/** One entry of an index tuple. For a slice, NT_SLICE_END as stop means "to the end". */
typedef struct nt_index {
    /** What the entry is: the fields read follow from it. */
    nt_index_kind kind;
    int64_t i; /**< INT: the index; BOOL: 0 or 1 */
    /** @{ */
    /** SLICE: Python's start, stop (NT_SLICE_END: to the end) and step (> 0). */
    int64_t start, stop, step;
    /** @} */
    const nt_tensor *tensor; /**< TENSOR (borrowed) */
} nt_index;
/** A slice's stop meaning "to the end" (Python's omitted stop). */
#define NT_SLICE_END INT64_MAX

/** t[idx_0, ..., idx_{count-1}] (PyTorch's tuple indexing): a view when no tensor index is
 * given, otherwise a gather (a new tensor).
 * @param t the tensor indexed (borrowed)
 * @param count the number of entries in idx
 * @param idx the index entries; their tensors are borrowed
 * @param[out] out the result, a new reference (a view or a new tensor)
 * @return NT_OK; NT_ERR_INDEX for an index out of range; another status with PyTorch's text
 *         for other bad indices */
NT_API nt_status nt_index_get(nt_tensor *t, int count, const nt_index *idx, nt_tensor **out);
/** t[idx] with one index that is not a tuple (PyTorch's single-index fast paths and texts). */
NT_API nt_status nt_index_get1(nt_tensor *t, const nt_index *idx, nt_tensor **out);
/** t[idx...] = value: `value` broadcasts to the indexed shape (leading size-one dims of value
 * are dropped first); tensor indices scatter (value must then have t's dtype). `single` is
 * true for a non-tuple index. Bumps the version. */
NT_API nt_status nt_index_set_(nt_tensor *t, int count, const nt_index *idx, bool single,
                               const nt_tensor *value);
/** t.index_put_(idx, value, accumulate): nt_index_set_ with a tuple index, the value added to
 * what is there with `accumulate` (repeated positions add up; PyTorch's index_put_). */
NT_API nt_status nt_index_put_(nt_tensor *t, int count, const nt_index *idx, const nt_tensor *value,
                               bool accumulate);
/** The same with a scalar value (converted to t's dtype with PyTorch's overflow check). */
NT_API nt_status nt_index_set_scalar_(nt_tensor *t, int count, const nt_index *idx, bool single,
                                      nt_scalar value);

/** index_fill: the entries `index` (a 0-d or 1-d int64 tensor) along `dim` set to value.
 * The _tensor forms take a 0-dim value tensor. Names are kept. */
NT_API nt_status nt_index_fill(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_scalar value,
                               nt_tensor **out);
/** index_fill_: nt_index_fill in place (t written; bumps the version). */
NT_API nt_status nt_index_fill_(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_scalar value);
/** index_fill with a 0-dim value tensor. */
NT_API nt_status nt_index_fill_tensor(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                      const nt_tensor *value, nt_tensor **out);
/** index_fill_ with a 0-dim value tensor, in place. */
NT_API nt_status nt_index_fill_tensor_(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                       const nt_tensor *value);

/** masked_fill: value where `mask` (bool; broadcast) is true. The out-of-place result has the
 * broadcast shape of mask and t; the in-place form writes only where the mask is true. */
NT_API nt_status nt_masked_fill(nt_tensor *t, const nt_tensor *mask, nt_scalar value,
                                nt_tensor **out);
/** masked_fill_: value written into t where mask is true (mask broadcasts to t). */
NT_API nt_status nt_masked_fill_(nt_tensor *t, const nt_tensor *mask, nt_scalar value);
/** The same with a 0-dim value tensor. */
NT_API nt_status nt_masked_fill_tensor(nt_tensor *t, const nt_tensor *mask, const nt_tensor *value,
                                       nt_tensor **out);
/** masked_fill_ with a 0-dim value tensor, in place. */
NT_API nt_status nt_masked_fill_tensor_(nt_tensor *t, const nt_tensor *mask,
                                        const nt_tensor *value);
/** The elements of t (broadcast with mask) where mask is true, as an unnamed 1-d tensor. */
NT_API nt_status nt_masked_select(nt_tensor *t, const nt_tensor *mask, nt_tensor **out);

/* ------------------------------------------------------------------ the index family */
/** gather: out[i][j] = t[index[i][j]][j] along dim (0) and so on; index is int64 with t's rank
 * and no larger than t apart from dim; out has index's shape, names unified from t and index. */
NT_API nt_status nt_gather(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_tensor **out);
/** scatter: a copy of t with src's elements (the _value forms: value) written where index sends
 * them along dim; reduce NULL, "add" or "multiply". The _ forms write t. Names: t's. */
NT_API nt_status nt_scatter(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *src,
                            const char *reduce, nt_tensor **out);
/** scatter_: nt_scatter in place (t written). */
NT_API nt_status nt_scatter_(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *src,
                             const char *reduce);
/** scatter with one value instead of src's elements. */
NT_API nt_status nt_scatter_value(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_scalar value,
                                  const char *reduce, nt_tensor **out);
/** scatter_ with one value, in place. */
NT_API nt_status nt_scatter_value_(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                   nt_scalar value, const char *reduce);
/** scatter_add: src's elements added where index sends them (in a fixed order, whatever the
 * thread count). */
NT_API nt_status nt_scatter_add(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                const nt_tensor *src, nt_tensor **out);
/** scatter_add_: nt_scatter_add in place (t written). */
NT_API nt_status nt_scatter_add_(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                                 const nt_tensor *src);
/** index_select: the entries `index` (1-d, int32 or int64) of t along dim; names kept. */
NT_API nt_status nt_index_select(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_tensor **out);
/** index_add: alpha * source's slices along dim added to t's entries `index`. */
NT_API nt_status nt_index_add(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                              const nt_tensor *source, nt_scalar alpha, nt_tensor **out);
/** index_add_: nt_index_add in place (t written). */
NT_API nt_status nt_index_add_(nt_tensor *t, nt_dim dim, const nt_tensor *index,
                               const nt_tensor *source, nt_scalar alpha);
/** take_along_dim: gather after broadcasting t and indices apart from *dim; dim NULL: from the
 * flattened t (an unnamed 1-d result). */
NT_API nt_status nt_take_along_dim(nt_tensor *t, const nt_tensor *indices, const nt_dim *dim,
                                   nt_tensor **out);
/** masked_scatter: source's elements, in order, where mask (bool or uint8) is true; out of
 * place the result has the broadcast shape of t and mask. */
NT_API nt_status nt_masked_scatter(nt_tensor *t, const nt_tensor *mask, const nt_tensor *source,
                                   nt_tensor **out);
/** masked_scatter_: nt_masked_scatter in place (t written; mask broadcasts to t). */
NT_API nt_status nt_masked_scatter_(nt_tensor *t, const nt_tensor *mask, const nt_tensor *source);
/** nonzero: the positions of t's non-zero elements, an unnamed (n, ndim) int64 matrix; the
 * _tuple form: its ndim columns (one for a 0-dim t), an array of *count tensors to release
 * with nt_tensors_release (where(condition) is this form). */
NT_API nt_status nt_nonzero(nt_tensor *t, nt_tensor **out);
/** nonzero(as_tuple=True) (see nt_nonzero): *out a new array of *count new references, released
 * with nt_tensors_release. */
NT_API nt_status nt_nonzero_tuple(nt_tensor *t, nt_tensor ***out, int64_t *count);
/** unique: t's distinct elements (with *dim: its distinct slices along dim), sorted; the
 * inverse (each element's or slice's position in the output) and the counts when asked for
 * (inverse/counts not NULL and return_* true). NaNs are each their own value. */
NT_API nt_status nt_unique(nt_tensor *t, bool sorted, bool return_inverse, bool return_counts,
                           const nt_dim *dim, nt_tensor **output, nt_tensor **inverse,
                           nt_tensor **counts);
/** searchsorted: for each value, the position in sorted_sequence (1-d, or rows matching the
 * values' leading dims) that keeps it sorted: before equal entries (after with right);
 * sorter (optional) the int64 order of an unsorted sequence; int64 (or int32) positions. */
NT_API nt_status nt_searchsorted(nt_tensor *sorted_sequence, nt_tensor *values, bool out_int32,
                                 bool right, const nt_tensor *sorter, nt_tensor **out);

/** torch.cat along `dim` (dtypes promoted, names unified; legacy 1-d empty tensors skipped).
 * `out` may be NULL (a new tensor in *result) or an existing tensor, resized in place as
 * PyTorch resizes out= tensors (a warning through nt_take_warning when it had elements; a
 * named one of another shape refuses) and written: then *result is a new reference to it.
 * A named dim is looked up in the first tensor. */
NT_API nt_status nt_cat(int count, nt_tensor *const *tensors, nt_dim dim, nt_tensor *out,
                        nt_tensor **result);
/** torch.stack: cat of the tensors each unsqueezed at `dim` (the new dim is unnamed; by
 * name, it goes before that dim of the first tensor). */
NT_API nt_status nt_stack(int count, nt_tensor *const *tensors, nt_dim dim, nt_tensor *out,
                          nt_tensor **result);
/** split / split_with_sizes / chunk / unbind: views, returned as a new array of *count
 * tensors; release them all and the array with nt_tensors_release. */
NT_API nt_status nt_split(nt_tensor *t, int64_t split_size, nt_dim dim, nt_tensor ***out,
                          int64_t *count);
/** split_with_sizes: views of the given `nsizes` sizes along dim (they must add up to its size);
 * released as nt_split's. */
NT_API nt_status nt_split_with_sizes(nt_tensor *t, int nsizes, const int64_t *sizes, nt_dim dim,
                                     nt_tensor ***out, int64_t *count);
/** chunk: `chunks` views along dim of equal size (the last smaller); released as nt_split's. */
NT_API nt_status nt_chunk(nt_tensor *t, int64_t chunks, nt_dim dim, nt_tensor ***out,
                          int64_t *count);
/** unbind: the views t.select(dim, i) for each i; released as nt_split's. */
NT_API nt_status nt_unbind(nt_tensor *t, nt_dim dim, nt_tensor ***out, int64_t *count);
/** Releases `count` tensors and the array that holds them (NULL is allowed). */
NT_API void nt_tensors_release(nt_tensor **tensors, int64_t count);

/** resize_: contiguous strides for the new shape, storage grown (data prefix kept) when too
 * small; the same shape leaves t untouched. A named t only accepts its own shape. */
NT_API nt_status nt_resize_(nt_tensor *t, int ndim, const int64_t *sizes);
/** resize_ to template's shape; then template's names as for an out= tensor. */
NT_API nt_status nt_resize_as_(nt_tensor *t, const nt_tensor *the_template);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_INDEX_H */
