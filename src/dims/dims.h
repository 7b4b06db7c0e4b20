/*
 * dims/dims.h — the first-class dims layer (above the ops and the dispatcher): the dim
 * object, the levels a tensor carries, and the helpers the binding, ordering and batching
 * files share. The public API is ntensor/dims.h; docs/dims.md describes the design.
 */
#ifndef NT_DIMS_DIMS_H
#define NT_DIMS_DIMS_H

#include <stdatomic.h>

#include "core/tensor.h"
#include "ntensor/call.h"
#include "ntensor/dims.h"

struct nt_fcdim {
    _Atomic int64_t refcount;
    int64_t size;     /* -1 while unbound */
    void *handle;     /* the binding's object (nt_fcdim_set_handle), borrowed */
    nt_tensor *range; /* arange(size) without levels (nt_fcdim_tensor), made once, or NULL */
    char name[64];
};

/* nt_fcdim_retain and nt_fcdim_release of n dims (none NULL) at once (dim.c: a thread defers
 * the references it drops). */
void nt_fcdims_retain(nt_fcdim *const *dims, int n);
void nt_fcdims_release(nt_fcdim *const *dims, int n);

/* Whether a tensor with levels was ever made: until then, the dispatcher never looks for
 * levels (dispatch.h). */
extern _Atomic bool nt_levels_made;

/* Gives t (a fresh tensor without levels, its leading n physical dims being these dims) the
 * levels dims[0..n-1], retaining them. n == 0 leaves t ordinary. */
nt_status nt_levels_attach(nt_tensor *t, int n, nt_fcdim *const *dims);

/* A view of t with this geometry (as nt_dims_view's) whose leading n dims are the levels
 * dims[0..n-1] (retained): one allocation for the tensor and its levels when nothing is
 * recorded. */
nt_status nt_levels_view(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset, const nt_name *names, int n, nt_fcdim *const *dims,
                         nt_tensor **out);

/* The index of d among t's levels, or -1. */
int nt_levels_find(const nt_tensor *t, const nt_fcdim *d);

/* An ordinary view of t with this geometry (no levels): recorded by autograd (an as_strided
 * call) when t takes part in a graph, else a plain view. `names` as nt_tensor_view_of's. */
nt_status nt_dims_view(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                       int64_t offset, const nt_name *names, nt_tensor **out);

/* The union of several tensors' dims, in order of first appearance. */
typedef struct nt_dim_union {
    int n;
    nt_fcdim *dims[NT_MAX_DIMS];
} nt_dim_union;
int nt_dims_union_find(const nt_dim_union *u, const nt_fcdim *d);
nt_status nt_dims_union_add(nt_dim_union *u, const nt_tensor *t);

/* t as an ordinary view laid out [union..., `before` ones, t's positional dims, `after`
 * ones]: t's own dims at their strides, the union's others at stride 0 (no copy). */
nt_status nt_dims_align(nt_tensor *t, const nt_dim_union *u, int before, int after,
                        nt_tensor **out);

/* NT_OK when a tensor of ndim dims may exist, else the error saying it has too many. */
nt_status nt_dims_check_rank(int ndim);

/* Releases a call's results (result[0..1] and the list) and clears them. */
void nt_call_results_clear(nt_call *c);

/* "(i, j)": the names of n dims, for messages. */
void nt_dims_repr(nt_fcdim *const *dims, int n, char *buf, size_t cap);

/* The loop rule (batch_loop.c): c run once per element of the union u of its dims (every
 * dim of its tensors), on their positional parts, the results stacked. */
struct nt_op_row;
nt_status nt_dims_loop(nt_call *c, const struct nt_op_row *row, const nt_dim_union *u);

/* An in-place call's self has every dim of u, else an error naming the op. */
nt_status nt_dims_check_written(const nt_call *c, const char *op, const nt_dim_union *u);

/* The dispatcher's levels step (nt_dispatch_levels, nt_call_has_levels) is declared in
 * dispatch/dispatch.h and written in batch.c. */

#endif
