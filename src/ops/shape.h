/*
 * shape.h — shape rules (layer L4): the shape of a call's result, computed from the call
 * record alone, without running the op or allocating (ntensor/call.h: nt_op_result_shape).
 *
 * Every row of the op table has a rule: the rule of its kind (shape_rules.c: pointwise
 * broadcasts its tensors, a reduction removes or keeps its dims, a scan, a names op, a
 * *_like factory and an in-place fill keep the input's shape, a sized factory makes its
 * size slot), or a function of its own named by the row's `.shape` (the views, joins,
 * products, pooling, ...), or one of two markers: the result's shape depends on the data
 * (masked_select), or the op returns no tensor (item, equal, numel). The kind rules read
 * the slots they need from the schema by name ("dim", "keepdim", "size"), so a row of a
 * regular kind needs nothing more.
 *
 * An op's rule shares its code with the op: a view step delivers its geometry to an
 * nt_view_dest, either a new tensor or only the sizes (nt_view_deliver); cat, stack and
 * split take a destination for their shape the same way; the products, pooling, cdist,
 * pdist, topk, arange and resize_ keep their checks and sizes in a function of their own
 * that the op and its rule both call. So the query runs the op's own checks, with its own
 * texts, and stops before the work.
 *
 * The query is separate from the op call path: ops compute their own shapes as before.
 */
#ifndef NT_OPS_SHAPE_H
#define NT_OPS_SHAPE_H

#include <stdint.h>
#include <string.h>

#include "core/tensor.h"
#include "ntensor/call.h"

/* A result's shape. For an op that returns a list of tensors (split, chunk, unbind),
 * `index` says which one the rule describes, and the rule sets `count`, the list's length
 * (the rules of other ops leave it alone). */
typedef struct nt_shape {
    int ndim;
    int64_t sizes[NT_MAX_DIMS];
    int64_t index; /* in: the list entry asked for */
    int64_t count; /* out: the list's length */
} nt_shape;

/* A shape rule: the shape of c's (first) result into s, or the error the op would give for
 * arguments that cannot make one. The record has been checked against the op's schema. */
typedef nt_status (*nt_op_shape)(const nt_call *c, nt_shape *s);

/* The two markers a row may name instead of a rule; both fail with a message saying why. */
nt_status nt_shape_data_dependent(const nt_call *c, nt_shape *s);
nt_status nt_shape_no_tensor(const nt_call *c, nt_shape *s);

/* The rule of an op's kind (NULL for the kinds without one: contract, view, index, join,
 * other), and the rule a row follows (its own function, else its kind's). */
nt_op_shape nt_shape_rule_of_kind(nt_op_kind kind);
nt_op_shape nt_shape_rule_of(nt_op op);

/* s = (ndim, sizes) / t's shape. */
static inline void nt_shape_set(nt_shape *s, int ndim, const int64_t *sizes) {
    s->ndim = ndim;
    if (ndim > 0) memcpy(s->sizes, sizes, (size_t)ndim * sizeof *sizes);
}

static inline void nt_shape_of_tensor(nt_shape *s, const nt_tensor *t) {
    nt_shape_set(s, t->ndim, t->sizes);
}

/* Where a view step delivers its result: a new view into *out, or, when `shape` is set
 * (the shape query), only its sizes. */
typedef struct nt_view_dest {
    nt_tensor **out;
    nt_shape *shape;
} nt_view_dest;

static inline nt_view_dest nt_view_to(nt_tensor **out) {
    nt_view_dest d = {out, NULL};
    return d;
}

static inline nt_view_dest nt_view_shape(nt_shape *s) {
    nt_view_dest d = {NULL, s};
    return d;
}

/* nt_tensor_view_of into d.out, or the sizes into d.shape (nothing allocated). Inline: it
 * is on every view's path. */
static inline nt_status nt_view_deliver(const nt_tensor *t, int ndim, const int64_t *sizes,
                                        const int64_t *strides, int64_t offset,
                                        const nt_name *names, nt_view_dest d) {
    if (!d.shape) return nt_tensor_view_of(t, ndim, sizes, strides, offset, names, d.out);
    nt_shape_set(d.shape, ndim, sizes);
    return NT_OK;
}

/* ---- the rules the rows name, by family ---- */

/* shape_rules.c: shapes several families use, and rules of rows of regular kinds with a
 * twist */
nt_status nt_shape_self(const nt_call *c, nt_shape *s);      /* slot 0's shape */
nt_status nt_shape_broadcast(const nt_call *c, nt_shape *s); /* the tensor slots' broadcast */
nt_status nt_shape_normal_tensors(const nt_call *c, nt_shape *s);
nt_status nt_shape_index_fill(const nt_call *c, nt_shape *s);
nt_status nt_shape_copy(const nt_call *c, nt_shape *s);

/* reduce_sort.c, factory.c, resize.c */
nt_status nt_shape_topk(const nt_call *c, nt_shape *s);
nt_status nt_shape_arange(const nt_call *c, nt_shape *s);
nt_status nt_shape_resize(const nt_call *c, nt_shape *s);

/* gather.c */
nt_status nt_shape_gather(const nt_call *c, nt_shape *s);
nt_status nt_shape_index_select(const nt_call *c, nt_shape *s);
nt_status nt_shape_take_along_dim(const nt_call *c, nt_shape *s);
/* search.c, mask.c */
nt_status nt_shape_searchsorted(const nt_call *c, nt_shape *s);
nt_status nt_shape_masked_scatter(const nt_call *c, nt_shape *s);
/* view.c */
nt_status nt_shape_transpose(const nt_call *c, nt_shape *s);
nt_status nt_shape_t(const nt_call *c, nt_shape *s);
nt_status nt_shape_permute(const nt_call *c, nt_shape *s);
nt_status nt_shape_expand(const nt_call *c, nt_shape *s);
nt_status nt_shape_squeeze(const nt_call *c, nt_shape *s);
nt_status nt_shape_unsqueeze(const nt_call *c, nt_shape *s);
nt_status nt_shape_select(const nt_call *c, nt_shape *s);
nt_status nt_shape_narrow(const nt_call *c, nt_shape *s);
nt_status nt_shape_view(const nt_call *c, nt_shape *s);
nt_status nt_shape_as_strided(const nt_call *c, nt_shape *s);
nt_status nt_shape_diagonal(const nt_call *c, nt_shape *s);
nt_status nt_shape_movedim(const nt_call *c, nt_shape *s);
nt_status nt_shape_unfold(const nt_call *c, nt_shape *s);
/* t expanded to (ndim, sizes): expand's checks, and the shape */
nt_status nt_expand_shape(const nt_tensor *t, int ndim, const int64_t *sizes, nt_shape *s);

/* names/flatten.c, names/names_api.c */
nt_status nt_shape_flatten(const nt_call *c, nt_shape *s);
nt_status nt_shape_unflatten(const nt_call *c, nt_shape *s);
nt_status nt_shape_align_to(const nt_call *c, nt_shape *s);

/* join.c */
nt_status nt_shape_cat(const nt_call *c, nt_shape *s);
nt_status nt_shape_stack(const nt_call *c, nt_shape *s);
nt_status nt_shape_split(const nt_call *c, nt_shape *s);

/* linalg_*.c, distance.c, pool.c */
nt_status nt_shape_mm(const nt_call *c, nt_shape *s);
nt_status nt_shape_mv(const nt_call *c, nt_shape *s);
nt_status nt_shape_dot(const nt_call *c, nt_shape *s);
nt_status nt_shape_bmm(const nt_call *c, nt_shape *s);
nt_status nt_shape_matmul(const nt_call *c, nt_shape *s);
nt_status nt_shape_addmm(const nt_call *c, nt_shape *s);
nt_status nt_shape_addmv(const nt_call *c, nt_shape *s);
nt_status nt_shape_cdist(const nt_call *c, nt_shape *s);
nt_status nt_shape_pdist(const nt_call *c, nt_shape *s);
nt_status nt_shape_max_pool(const nt_call *c, nt_shape *s);

/* layer_norm.c, embedding.c, loss.c, linalg_linear.c */
nt_status nt_shape_layer_norm(const nt_call *c, nt_shape *s);
nt_status nt_shape_layer_norm_backward(const nt_call *c, nt_shape *s);
nt_status nt_shape_embedding(const nt_call *c, nt_shape *s);
nt_status nt_shape_embedding_dense_backward(const nt_call *c, nt_shape *s);
nt_status nt_shape_nll_loss(const nt_call *c, nt_shape *s);
nt_status nt_shape_nll_loss_backward(const nt_call *c, nt_shape *s);
nt_status nt_shape_linear(const nt_call *c, nt_shape *s);

#endif
