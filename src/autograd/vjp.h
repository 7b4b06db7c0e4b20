/*
 * vjp.h — what backward formulas are written with: the public ops as expressions.
 *
 * A formula keeps its temporaries in a `vj` scope: every helper takes the scope, returns a
 * borrowed tensor that the scope releases at vj_end, and does nothing (returning NULL) once a
 * step has failed, so a formula reads as its mathematics:
 *
 *     vj v = VJ_INIT;
 *     vj_give(&v, vj_mul(&v, g, vj_rsub(&v, 1, vj_mul(&v, y, y))), &gin[0]);  // tanh
 *     return vj_end(&v);
 */
#ifndef NT_AUTOGRAD_VJP_H
#define NT_AUTOGRAD_VJP_H

#include "autograd.h"

#define VJ_MAX_TEMPS 48

typedef struct vj {
    nt_status st;
    int n;
    nt_tensor *temps[VJ_MAX_TEMPS];
} vj;

#define VJ_INIT                                                                                    \
    { .st = NT_OK, .n = 0 }

/* Takes a new reference from a step (st its status) into the scope. */
nt_tensor *vj_keep(vj *v, nt_status st, nt_tensor *t);
/* Hands t to *slot as a new reference (NULL t: nothing). */
void vj_give(vj *v, nt_tensor *t, nt_tensor **slot);
/* Releases the temporaries; the first failure's status. */
nt_status vj_end(vj *v);
/* False once a step failed (the rest of the formula is skipped). */
static inline bool vj_ok(const vj *v) {
    return v->st == NT_OK;
}

/* a op b, a op s, s op a (binary ops of pointwise.h: NT_BINARY_ADD, ...) */
nt_tensor *vj_bin(vj *v, nt_binary_op op, nt_tensor *a, nt_tensor *b);
nt_tensor *vj_bins(vj *v, nt_binary_op op, nt_tensor *a, double s);
nt_tensor *vj_rbins(vj *v, nt_binary_op op, double s, nt_tensor *a);
nt_tensor *vj_mul(vj *v, nt_tensor *a, nt_tensor *b);
nt_tensor *vj_div(vj *v, nt_tensor *a, nt_tensor *b);
nt_tensor *vj_add(vj *v, nt_tensor *a, nt_tensor *b);
nt_tensor *vj_sub(vj *v, nt_tensor *a, nt_tensor *b);
nt_tensor *vj_scale(vj *v, nt_tensor *a, double s); /* a * s */
nt_tensor *vj_neg(vj *v, nt_tensor *a);
/* a unary op by id (NT_OP_EXP, ...) */
nt_tensor *vj_un(vj *v, nt_op op, nt_tensor *a);
/* where(cond, a, b) with tensors, or with a scalar b */
nt_tensor *vj_where(vj *v, nt_tensor *cond, nt_tensor *a, nt_tensor *b);
nt_tensor *vj_where_s(vj *v, nt_tensor *cond, nt_tensor *a, double b);
/* a cast / a sum over dims (keepdim) / sum to one element, as t's dtype */
nt_tensor *vj_to(vj *v, nt_tensor *a, nt_dtype dtype);
nt_tensor *vj_sum(vj *v, nt_tensor *a, int count, const nt_dim *dims, bool keepdim);
/* views and shapes */
nt_tensor *vj_unnamed(vj *v, nt_tensor *a);
nt_tensor *vj_reshape(vj *v, nt_tensor *a, int ndim, const int64_t *sizes); /* names dropped */
nt_tensor *vj_expand(vj *v, nt_tensor *a, int ndim, const int64_t *sizes);  /* names dropped */
nt_tensor *vj_transpose(vj *v, nt_tensor *a, nt_dim d0, nt_dim d1);
nt_tensor *vj_permute(vj *v, nt_tensor *a, int count, const nt_dim *dims);
nt_tensor *vj_unsqueeze(vj *v, nt_tensor *a, int64_t dim);
nt_tensor *vj_mm(vj *v, nt_tensor *a, nt_tensor *b);
nt_tensor *vj_matmul(vj *v, nt_tensor *a, nt_tensor *b);
/* zeros of an input's or output's metadata */
nt_tensor *vj_zeros(vj *v, const nt_tmeta *m);
/* a zeroed tensor like input meta m, with g copied into the part `part` cuts from it (a view
 * function applied to the zeros: select, narrow, diagonal, ...) */
typedef nt_status (*vj_part_fn)(const nt_node *n, nt_tensor *whole, nt_tensor **part);
nt_tensor *vj_scatter_part(vj *v, const nt_node *n, const nt_tmeta *m, nt_tensor *g,
                           vj_part_fn part);
/* The positions 0 .. numel-1 of meta m's elements, an int64 tensor of its shape (unnamed): a
 * view of it says where a view's elements sit in its input. */
nt_tensor *vj_positions(vj *v, const nt_tmeta *m);
/* Zeros like meta m (unnamed) with g written at `positions` (from vj_positions: g's shape),
 * added up where positions repeat with `accumulate`; recorded when g requires grad, so that
 * it has a gradient itself (create_graph). */
nt_tensor *vj_scatter_at(vj *v, const nt_tmeta *m, nt_tensor *g, nt_tensor *positions,
                         bool accumulate);

#endif
