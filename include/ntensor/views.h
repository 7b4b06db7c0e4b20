/**
 * @file
 * ntensor/views.h — views: transpose, permute, expand, squeeze, unsqueeze, select, narrow, view,
 * reshape, as_strided, diagonal (and squeeze_, unsqueeze_, as_strided_ in place).
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_VIEWS_H
#define NTENSOR_VIEWS_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ views */

/** Every dim argument (nt_dim) is an index or a name (nt_dim_name), as in PyTorch. */
NT_API nt_status nt_transpose(nt_tensor *t, nt_dim dim0, nt_dim dim1, nt_tensor **out);
/** transpose(0, 1) for 2-D, identity for 0-D and 1-D. */
NT_API nt_status nt_t(nt_tensor *t, nt_tensor **out);
/** The same two in place: t itself takes the new strides (names move with their dims). */
NT_API nt_status nt_transpose_(nt_tensor *t, nt_dim dim0, nt_dim dim1);
/** t_: nt_t in place. */
NT_API nt_status nt_t_(nt_tensor *t);
/** A view with the dims in the order `dims` (count == ndim; indices or names); names move with
 * their dims. */
NT_API nt_status nt_permute(nt_tensor *t, int count, const nt_dim *dims, nt_tensor **out);
/** Broadcasts to `sizes` (-1 keeps a size); new leading dims are unnamed. */
NT_API nt_status nt_expand(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/** nt_expand to other's sizes. */
NT_API nt_status nt_expand_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out);
/** Drops every size-one dim. */
NT_API nt_status nt_squeeze(nt_tensor *t, nt_tensor **out);
/** Drops `dim` if its size is one (otherwise returns an equal view). */
NT_API nt_status nt_squeeze_dim(nt_tensor *t, nt_dim dim, nt_tensor **out);
/** The same two in place: t itself takes the new shape (names as for the views). */
NT_API nt_status nt_squeeze_(nt_tensor *t);
/** squeeze_(dim): nt_squeeze_dim in place. */
NT_API nt_status nt_squeeze_dim_(nt_tensor *t, nt_dim dim);
/** Inserts an unnamed size-one dim at `dim` (an index in [-ndim-1, ndim]: a new position,
 * so no name). */
NT_API nt_status nt_unsqueeze(nt_tensor *t, int64_t dim, nt_tensor **out);
/** unsqueeze_: nt_unsqueeze in place. */
NT_API nt_status nt_unsqueeze_(nt_tensor *t, int64_t dim);
/** t.select(dim, index): the view at `index` (negative counts from the end) of dim, which is
 * removed (with its name). */
NT_API nt_status nt_select(nt_tensor *t, nt_dim dim, int64_t index, nt_tensor **out);
/** t.narrow(dim, start, length): the view of `length` entries from `start` along dim (names kept).
 */
NT_API nt_status nt_narrow(nt_tensor *t, nt_dim dim, int64_t start, int64_t length,
                           nt_tensor **out);
/** A view with the new shape (one size may be -1); fails if strides do not allow it.
 * Names (view and reshape): a dim the reshape keeps unchanged keeps its name, merged,
 * split and new dims are unnamed (see kept_names in src/ops/view.c). */
NT_API nt_status nt_view(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/** A view when possible, otherwise a contiguous copy. */
NT_API nt_status nt_reshape(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/** nt_view and nt_reshape to other's sizes. */
NT_API nt_status nt_view_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out);
/** reshape to other's sizes. */
NT_API nt_status nt_reshape_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out);
/** A general, unnamed view of t's storage; `offset` is in elements from the storage's
 * start; strides must be non-negative and the extent must lie inside the storage, except
 * for a view without elements, which may have any non-negative strides and offset (as in
 * PyTorch). */
NT_API nt_status nt_as_strided(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                               int64_t offset, nt_tensor **out);
/** The same in place: t itself takes that geometry (and loses its names). */
NT_API nt_status nt_as_strided_(nt_tensor *t, int ndim, const int64_t *sizes,
                                const int64_t *strides, int64_t offset);
/** The diagonal of dims dim1 and dim2 (offset > 0 above it, < 0 below) as a view: both dims
 * removed, the diagonal appended as the last dim (unnamed; named `outdim`, which may be
 * none, in nt_diagonal_named). */
NT_API nt_status nt_diagonal(nt_tensor *t, int64_t offset, nt_dim dim1, nt_dim dim2,
                             nt_tensor **out);
/** The diagonal view of nt_diagonal, its new last dim named `outdim` (PyTorch's
 * diagonal(outdim=..., dim1=..., dim2=...)). */
NT_API nt_status nt_diagonal_named(nt_tensor *t, nt_name outdim, nt_dim dim1, nt_dim dim2,
                                   int64_t offset, nt_tensor **out);
/** Moves dims source[i] (indices or names) to positions destination[i]; the other dims keep
 * their order (PyTorch's movedim); names move with their dims. */
NT_API nt_status nt_movedim(nt_tensor *t, int count, const nt_dim *source,
                            const int64_t *destination, nt_tensor **out);
/** Windows of `size` every `step` along `dimension`: that dim counts the windows, a new
 * last (unnamed) dim walks each one (PyTorch's Tensor.unfold). */
NT_API nt_status nt_unfold(nt_tensor *t, nt_dim dimension, int64_t size, int64_t step,
                           nt_tensor **out);
/** Whether both tensors have the same sizes (names are not compared). */
NT_API nt_status nt_is_same_size(const nt_tensor *t, const nt_tensor *other, bool *out);

/** The shape and factory family (src/ops/arrange.c). flip: the order of dims `dims` (indices
 * or names) reversed, a new tensor; roll: elements shifted by shifts[i] along dims[i],
 * wrapping around (no dims: the flattened tensor, shape kept); repeat / tile: copies of t
 * laid side by side, count[i] along dim i (tile pads `count` with leading ones, repeat
 * needs at least t's ndim counts); triu / tril: the upper / lower triangle of the last two
 * dims from `diagonal` on, the rest zeroed; outer: a[i] * b[j] of two 1-d tensors. Names
 * are kept (repeat, tile: the new leading dims unnamed; outer: a's then b's). */
NT_API nt_status nt_flip(nt_tensor *t, int count, const nt_dim *dims, nt_tensor **out);
/** roll: elements shifted by shifts[i] along dims[i] (see above). */
NT_API nt_status nt_roll(nt_tensor *t, int nshifts, const int64_t *shifts, int ndims,
                         const nt_dim *dims, nt_tensor **out);
/** repeat: copies of t side by side (see above). */
NT_API nt_status nt_repeat(nt_tensor *t, int count, const int64_t *repeats, nt_tensor **out);
/** tile: repeat with `dims` padded with leading ones (see above). */
NT_API nt_status nt_tile(nt_tensor *t, int count, const int64_t *dims, nt_tensor **out);
/** triu: the upper triangle of the last two dims from `diagonal` on (see above). */
NT_API nt_status nt_triu(nt_tensor *t, int64_t diagonal, nt_tensor **out);
/** tril: the lower triangle of the last two dims up to `diagonal` (see above). */
NT_API nt_status nt_tril(nt_tensor *t, int64_t diagonal, nt_tensor **out);
/** triu_: nt_triu in place. */
NT_API nt_status nt_triu_(nt_tensor *t, int64_t diagonal);
/** tril_: nt_tril in place. */
NT_API nt_status nt_tril_(nt_tensor *t, int64_t diagonal);
/** outer: a[i] * b[j] of two 1-d tensors (see above). */
NT_API nt_status nt_outer(nt_tensor *a, nt_tensor *b, nt_tensor **out);
/** diag: a 1-d t on the `diagonal`-th diagonal of a square matrix, or the `diagonal`-th
 * diagonal of a matrix t as a new 1-d tensor; one_hot: an int64 t's values as one-hot rows
 * of num_classes (-1: t's max + 1) in a new last dim. */
NT_API nt_status nt_diag(nt_tensor *t, int64_t diagonal, nt_tensor **out);
/** diag_embed: zeros of t's shape less its last dim, with two new dims of |offset| + that
 * dim's size inserted at dim1 and dim2 (dims of the result), and t written on the `offset`-th
 * diagonal of each (dim1, dim2) plane (PyTorch's torch.diag_embed; names: t's other dims
 * keep theirs, the two new dims are unnamed). */
NT_API nt_status nt_diag_embed(nt_tensor *t, int64_t offset, int64_t dim1, int64_t dim2,
                               nt_tensor **out);
/** one_hot: t's values as one-hot rows in a new last dim (see above). */
NT_API nt_status nt_one_hot(nt_tensor *t, int64_t num_classes, nt_tensor **out);
/** Python's t.T (all dims reversed: a permute, with PyTorch's deprecation warning once per
 * process for ndim other than 2 and 0) and t.mT (the last two dims swapped; at least 2). */
NT_API nt_status nt_numpy_T(nt_tensor *t, nt_tensor **out);
/** t.mT: the last two dims swapped (see nt_numpy_T). */
NT_API nt_status nt_matrix_T(nt_tensor *t, nt_tensor **out);
/** nn.functional.pad: `count` pads, (left, right) of the last dim, then of the one before,
 * ...; mode "constant" (value; negative pads crop), "reflect", "replicate" or "circular"
 * (the last 1 to 3 dims of a batched or unbatched input). (src/ops/pad.c) */
NT_API nt_status nt_pad(nt_tensor *t, int count, const int64_t *pad, const char *mode, double value,
                        nt_tensor **out);
/** repeat_interleave: each entry of t along dim (has_dim false: of the flattened t) repeated
 * `repeats` times, or counts[i] times (count entries: one per entry, or one for all). */
NT_API nt_status nt_repeat_interleave(nt_tensor *t, int64_t repeats, bool has_dim, nt_dim dim,
                                      nt_tensor **out);
/** The p-norm of t over dims (count 0: all), p = 2, 1, INFINITY, -INFINITY, 0 or any other;
 * dtype -1: t's (a floating dtype). (src/ops/norm.c) */
NT_API nt_status nt_norm(nt_tensor *t, double p, int count, const nt_dim *dims, bool keepdim,
                         int dtype, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_VIEWS_H */
