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
#include "ntensor/index.h"

struct nt_fcdim {
    _Atomic int64_t refcount;
    int64_t size;     /* -1 while unbound */
    void *handle;     /* the binding's object (nt_fcdim_set_handle), borrowed */
    nt_tensor *range; /* arange(size) without levels (nt_fcdim_tensor), made once, or NULL */
    uint64_t serial;  /* creation order: functorch.dim's level, which orders vmap's results */
    char name[64];
};

/* nt_fcdim_retain and nt_fcdim_release of n dims (none NULL) at once (dim.c: a thread defers
 * the references it drops). */
void nt_fcdims_retain(nt_fcdim *const *dims, int n);
void nt_fcdims_release(nt_fcdim *const *dims, int n);

/* Whether a tensor with levels or a first-class dim was ever made: until then, the
 * dispatcher never looks for levels or dim arguments (dispatch.h). */
extern _Atomic bool nt_levels_made;

/* Gives t (a fresh tensor without levels, its leading n physical dims being these dims) the
 * levels dims[0..n-1], retaining them, printed first (nt_levels_at). n == 0 leaves t
 * ordinary. */
nt_status nt_levels_attach(nt_tensor *t, int n, nt_fcdim *const *dims);

/* A view of t with this geometry (as nt_dims_view's) whose leading n dims are the levels
 * dims[0..n-1] (retained), level i printed at at[i] (NULL: first, in order): one allocation
 * for the tensor and its levels when nothing is recorded. */
nt_status nt_levels_view(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset, const nt_name *names, int n, nt_fcdim *const *dims,
                         const uint8_t *at, nt_tensor **out);
/* t (no levels) with its n dims all bound to dims[0..n-1], in order, borrowing t's storage
 * and the dims when nothing is recorded (nt_tensor_bind_borrowing). */
nt_status nt_levels_view_borrowing(nt_tensor *t, int n, nt_fcdim *const *dims, nt_tensor **out);

/* Where a tensor's dims print. Our physical layout puts the levels first; functorch.dim keeps
 * its own order of "levels" (first-class and positional dims mixed: the order they were bound
 * in, or what its vmap produced), which its repr prints and Tensor.dims lists. The levels
 * block holds, after dims[n], one byte per level: the printed position of physical dim i,
 * 0 .. ndim-1; the positional dims take the other positions, in their order. */
static inline const uint8_t *nt_levels_at(const struct nt_levels *lv) {
    return (const uint8_t *)(lv->dims + lv->n);
}

/* nt_levels_attach, level i printed at at[i] (NULL: printed first, in order). */
nt_status nt_levels_attach_at(nt_tensor *t, int n, nt_fcdim *const *dims, const uint8_t *at);

/* A printed order as a sequence: seq[p] the dim printed at position p, NULL where a
 * positional dim prints. nt_levels_seq writes t's (t->ndim entries). */
void nt_levels_seq(const nt_tensor *t, nt_fcdim **seq);

/* at[i] = the index of dims[i] in seq[0..len-1]: false when a dim is missing there. */
bool nt_levels_at_of_seq(int n, nt_fcdim *const *dims, int len, nt_fcdim *const *seq, uint8_t *at);

/* nt_levels_attach, printed as seq[0..len-1] (every dim once); a seq that does not fit t
 * (len is not t's rank, or lacks a dim) prints the dims first. */
nt_status nt_levels_attach_seq(nt_tensor *t, int n, nt_fcdim *const *dims, int len,
                               nt_fcdim *const *seq);

/* at[] printing dims[0..n-1] first, oldest first (functorch's vmap results). */
void nt_levels_at_by_age(int n, nt_fcdim *const *dims, uint8_t *at);

/* ---- functorch's printed order of each way a tensor with dims is made (printed.c) ---- */

/* One entry of an index as functorch reads it: a dim (bound there, or one the tensor
 * already has, in its place), an index tensor (gathering), or neither: a positional dim of
 * the result. */
typedef struct nt_flat_entry {
    nt_fcdim *dim;
    const nt_tensor *tensor;
} nt_flat_entry;
#define NT_FLAT_MAX (3 * NT_MAX_DIMS)

/* The printed order of an index read as flat[0..n-1] (functorch's getitem): dims read once
 * and positional dims in their places; the gathered ones (the dims read twice, the index
 * tensors' levels, their positional dims aligned from the right, a boolean one's as one)
 * together where the first gathering entry is, or first when the gathering entries are not
 * adjacent (NumPy's rule). Writes seq (see nt_levels_seq) and returns its length. */
int nt_printed_gathered(const nt_flat_entry *flat, int n, nt_fcdim **seq);

/* The printed order of t.order(...) (nt_tensor_order): t's order less the dims used (used[i]
 * for physical dim i), the ngroups new positional dims put where the first positional dim
 * left is (or last). Returns the length of seq. */
int nt_printed_ordered(const nt_tensor *t, const bool *used, int ngroups, nt_fcdim **seq);

/* How the results of one batched call print: a sequence (len entries, see nt_levels_seq), or
 * len -1: the dims first, oldest first (what functorch's vmap makes). */
typedef struct nt_print_plan {
    int len;
    nt_fcdim *seq[NT_FLAT_MAX];
} nt_print_plan;

/* How functorch.dim orders an op's results. */
typedef enum nt_print_class {
    NT_PRINT_VMAP,    /* its vmap: the dims first, oldest first (len -1) */
    NT_PRINT_UNION,   /* its pointwise ops: the union of the arguments' levels (nt_plan_union) */
    NT_PRINT_SELF,    /* its methods given a dim: self's levels less the ones that go; the
                         vmap rules that keep self's layout (type_as, zeros_like) */
    NT_PRINT_PERMUTE, /* permute is its order(): self's dims, then the positional ones */
    NT_PRINT_INDEX,   /* t[...]: its getitem (nt_plan_index) */
} nt_print_class;

/* The class of an op batched by `rule` (nt_batch_rule); dim_given: the call gave its dim
 * slot (functorch's wrapped methods without their dim run under vmap). */
nt_print_class nt_print_class_of(nt_op op, int rule, bool dim_given);
/* Whether the op is one of functorch's wrapped methods that drop the dim they are given
 * (sum, max, unbind; not sort or cumsum). */
bool nt_print_drops_dim(nt_op op);

/* The union of the levels of c's tensors, in order of first appearance, the positional dims
 * aligned from the right (functorch's pointwise results). */
void nt_plan_union(nt_print_plan *plan, const nt_call *c);
/* self's order less the physical dims with gone[i]. */
void nt_plan_self_less(nt_print_plan *plan, const nt_tensor *self, const bool *gone);
/* self's dims in their order, then npos positional dims. */
void nt_plan_dims_first(nt_print_plan *plan, const nt_tensor *self, int npos);
/* self[idx] (count entries), read as functorch's getitem. */
void nt_plan_index(nt_print_plan *plan, const nt_tensor *self, int count, const nt_index *idx);
/* nt_levels_attach printed as the plan says (dims first, oldest first, where it does not fit
 * t). */
nt_status nt_levels_attach_plan(nt_tensor *t, int n, nt_fcdim *const *dims,
                                const nt_print_plan *plan);

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
 * dim of its tensors), on their positional parts, the results stacked and printed as the
 * plan says. */
struct nt_op_row;
nt_status nt_dims_loop(nt_call *c, const struct nt_op_row *row, const nt_dim_union *u,
                       const nt_print_plan *plan);

/* An in-place call's self has every dim of u, else an error naming the op. */
nt_status nt_dims_check_written(const nt_call *c, const char *op, const nt_dim_union *u);

/* The dispatcher's levels step (nt_dispatch_levels, nt_call_has_levels) is declared in
 * dispatch/dispatch.h and written in batch.c. */

#endif
