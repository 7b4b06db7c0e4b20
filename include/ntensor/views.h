/*
 * ntensor/views.h — views: transpose, permute, expand, squeeze, unsqueeze, select, narrow, view,
 * reshape, as_strided.
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

NT_API nt_status nt_transpose(nt_tensor *t, int64_t dim0, int64_t dim1, nt_tensor **out);
/* transpose(0, 1) for 2-D, identity for 0-D and 1-D. */
NT_API nt_status nt_t(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_permute(nt_tensor *t, int count, const int64_t *dims, nt_tensor **out);
/* Broadcasts to `sizes` (-1 keeps a size); new leading dims are unnamed. */
NT_API nt_status nt_expand(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/* nt_expand to other's sizes. */
NT_API nt_status nt_expand_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out);
/* Drops every size-one dim. */
NT_API nt_status nt_squeeze(nt_tensor *t, nt_tensor **out);
/* Drops `dim` if its size is one (otherwise returns an equal view). */
NT_API nt_status nt_squeeze_dim(nt_tensor *t, int64_t dim, nt_tensor **out);
/* Inserts an unnamed size-one dim at `dim` (in [-ndim-1, ndim]). */
NT_API nt_status nt_unsqueeze(nt_tensor *t, int64_t dim, nt_tensor **out);
NT_API nt_status nt_select(nt_tensor *t, int64_t dim, int64_t index, nt_tensor **out);
NT_API nt_status nt_narrow(nt_tensor *t, int64_t dim, int64_t start, int64_t length,
                           nt_tensor **out);
/* A view with the new shape (one size may be -1); fails if strides do not allow it.
 * Names (view and reshape): a dim the reshape keeps unchanged keeps its name, merged,
 * split and new dims are unnamed (see kept_names in src/ops/view.c). */
NT_API nt_status nt_view(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/* A view when possible, otherwise a contiguous copy. */
NT_API nt_status nt_reshape(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/* A general, unnamed view of t's storage; `offset` is in elements from the storage's
 * start; strides must be non-negative and the extent must lie inside the storage, except
 * for a view without elements, which may have any non-negative strides and offset (as in
 * PyTorch). */
NT_API nt_status nt_as_strided(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                               int64_t offset, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_VIEWS_H */
