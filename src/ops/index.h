/*
 * index.h — what the indexing files (index.c, index_fill.c, mask.c, join.c, resize.c)
 * share: small strided helpers and the out= resize of masked_select; dims/bind.c slices and
 * expands masks with them too.
 */
#ifndef NT_OPS_INDEX_H
#define NT_OPS_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"
#include "ntensor/call.h"
#include "ntensor/index.h"

/* The positions of the non-zero elements of `t` (any dtype; row-major order) as an
 * int64 tensor of shape (n, ndim). */
nt_status nt_index_nonzero(const nt_tensor *t, nt_tensor **out);

/* A tensor over t's storage with the given layout and names (stride 0 allowed). */
nt_status nt_index_restride(const nt_tensor *t, int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, const nt_name *names,
                            nt_tensor **out);

/* One dim (size, stride) of a layout at *offset sliced start:stop:step (step > 0; stop may be
 * NT_SLICE_END), start and stop clamped as Python's and at::slice clamp them: the new size,
 * stride and offset. */
void nt_index_slice_dim(int64_t start, int64_t stop, int64_t step, int64_t *size, int64_t *stride,
                        int64_t *offset);

/* masked_fill_ without name inference or the partial-overlap check (setitem's mask path). */
nt_status nt_masked_fill_unchecked_(nt_tensor *t, const nt_tensor *mask, nt_scalar value);

/* nt_out_resize (out.h) under PyTorch's NoNamesGuard, for the ops that resize out= that
 * way (masked_select): a named out is resized too, its names cut to the new dims. */
nt_status nt_out_resize_ignoring_names(nt_tensor *out, int ndim, const int64_t *sizes);

/* The index tuple of an INDEX or INDEX_PUT call record (its slots 1 and 2: tensor indices and
 * spec, see index.c), up to NT_INDEX_MAX_ENTRIES entries, checked; `single` says the record
 * is of a non-tuple index. */
#define NT_INDEX_MAX_ENTRIES (2 * NT_MAX_DIMS)
nt_status nt_index_decode(const nt_call *c, nt_index *idx, int *count, bool *single);

/* t[idx] = value (a tuple index) on t's physical dims, its levels read as ordinary dims: the
 * INDEX_PUT row in place, past the dispatcher's levels step (autograd records it as it
 * records every in-place op). The tensors of idx and value have no levels. */
nt_status nt_index_put_physical_(nt_tensor *t, int count, const nt_index *idx,
                                 const nt_tensor *value);

/* Whether the index tuple only makes a view (ints, slices, None, Ellipsis, 0-dim integer
 * tensors; a bool only as a single index): t[...] = v then writes through a view. */
bool nt_index_is_basic(int count, const nt_index *idx, bool single);

#endif
