/*
 * dims/bind.h — what binding by an index (bind.c) shares with its gather (bind_gather.c) and
 * with assignment through such an index (assign.c): the walk over the index (the view's
 * layout and the index tensors met), the view it makes, and the plan of the gather.
 */
#ifndef NT_DIMS_BIND_H
#define NT_DIMS_BIND_H

#include "dims/dims.h"

/* The dims being built: first-class ones (levels) then positional ones; and where they print
 * (functorch's order: as the index reads them, t's own dims in their places). */
typedef struct nt_bind_layout {
    int nl, np;
    nt_fcdim *dims[NT_MAX_DIMS];
    int64_t lsizes[NT_MAX_DIMS], lstrides[NT_MAX_DIMS];
    int64_t psizes[NT_MAX_DIMS], pstrides[NT_MAX_DIMS];
    nt_name pnames[NT_MAX_DIMS];
    uint8_t at[NT_MAX_DIMS]; /* where level i prints, while `gathers` is false */
    int printed;             /* the entries printed so far */
    bool gathers;            /* a dim used twice or a tensor index: nt_printed_gathered */
    int nflat;
    nt_flat_entry flat[NT_FLAT_MAX]; /* the index as functorch reads it */
    /* t's own dims in the order they print, and how many positional dims print before each */
    int nown, own_next;
    int own[NT_MAX_DIMS], own_before[NT_MAX_DIMS];
} nt_bind_layout;

/* The tensor specs of a binding: spec k gathers in the positional dims at[k] .. of the bound
 * view (one, a mask's count of dims, or a bool scalar's new dim of size one). */
typedef struct nt_bind_gather {
    int n;
    /* The indices' dims come after the view's first nfirst levels: those it had when the first
     * tensor spec came, or none when a dim was bound or kept between two tensor specs
     * (functorch's order). `mark` counts the dims bound or kept before the first. */
    int nfirst, mark, width;
    int at[NT_MAX_DIMS];
    nt_tensor *index[NT_MAX_DIMS];
} nt_bind_gather;

/* What the walk over an index finds: the view's layout and offset, the tensor specs. */
typedef struct nt_bind_walk {
    nt_bind_layout l;
    nt_bind_gather g;
    int64_t offset;
} nt_bind_walk;

/* Reads the n specs against t: checks them (functorch's and PyTorch's texts, see
 * nt_tensor_bind), binds their dims, and lays out the view they make. */
nt_status nt_bind_walk_index(nt_tensor *t, int n, const nt_bind_spec *specs, nt_bind_walk *w);

/* The view of t the walk laid out (its tensor specs' dims kept as placeholders); its levels
 * print as the layout says, or first (`at_first`: a gather follows). */
nt_status nt_bind_view(nt_tensor *t, const nt_bind_layout *l, int64_t offset, bool named,
                       bool at_first, nt_tensor **out);

/* Where the levels dims[0..n-1] of a binding's result of rank ndim print: l->at, the order
 * the index read as a whole gives (for a dim used twice or an index tensor: written into at),
 * or NULL for "first, in order" where that order does not fit. */
const uint8_t *nt_bind_printed_at(const nt_bind_layout *l, nt_fcdim *const *dims, int n, int ndim,
                                  uint8_t *at);

static inline bool nt_bind_is_mask(const nt_tensor *e) {
    return e->dtype == NT_BOOL || e->dtype == NT_UINT8;
}

/* The index tensors as PyTorch's indexing takes them, masks expanded into their nonzero()
 * columns, a bool scalar into [0] or [] (over its new dim): column k indexes positional dim
 * at[k] of the bound view. */
typedef struct nt_bind_columns {
    int n;
    int at[NT_MAX_DIMS];
    nt_tensor *t[NT_MAX_DIMS]; /* new references */
} nt_bind_columns;

/* The plan of a gather by the tensor specs: the columns; U, the union of the view's dims and
 * the columns' dims (functorch's order); the m positional dims the columns broadcast to
 * (bshape) and how many other positional dims go before them in PyTorch's result (`at`). */
typedef struct nt_gather_plan {
    nt_bind_columns c;
    nt_dim_union u;
    int m, at;
    int64_t bshape[NT_MAX_DIMS];
} nt_gather_plan;

/* The plan of v's gather by g (v: the walk's view, levels first): PyTorch's errors (the index
 * dtype, a mask's shape, the broadcast, the bounds). nt_gather_plan_free releases it, also
 * after a failure. */
nt_status nt_gather_plan_make(nt_tensor *v, const nt_bind_gather *g, nt_gather_plan *p);
void nt_gather_plan_free(nt_gather_plan *p);

/* v's gather by g: the result of binding with tensor specs, its levels printed as l says. */
nt_status nt_bind_gather_run(nt_tensor *v, const nt_bind_gather *g, const nt_bind_layout *l,
                             nt_tensor **out);

#endif
