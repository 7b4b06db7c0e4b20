/*
 * shape_rules.c — the shape rules of the op kinds, in one place (ops/shape.h), the two
 * markers, and the rules several families share.
 *
 * A kind's rule reads the slots it needs from the op's schema by their names, found once:
 *   pointwise  the broadcast of every tensor slot (Operand slots holding tensors too); an
 *              in-place call keeps self's shape, which must be the broadcast shape
 *   reduce     the "dim" slot (Dim[], Dim or Dim?; not given: its default, else every dim)
 *              removed, or kept as size one when "keepdim" is true; no "dim" slot: a 0-dim
 *              result (max(), median())
 *   scan       the input's shape (its "dim" slot checked)
 *   factory,   the "size" slot (zeros, rand, normal(mean, std, size)), or, without one, the
 *   random     input's shape (*_like, the in-place distributions, bernoulli, dropout)
 *   names      the input's shape
 * The other kinds (contract, view, index, join, other) have no regular rule: their rows
 * name a function of their own, written next to the op in its family file where the op's
 * steps can be shared (views, joins, products, pooling), or here.
 */
#include <string.h>

#include "core/status.h"
#include "dispatch/dispatch.h"
#include "iter/iter.h"
#include "ops/reduce.h"
#include "ops/shape.h"

/* ------------------------------------------------------------------ markers, helpers */

nt_status nt_shape_data_dependent(const nt_call *c, nt_shape *s) {
    (void)s;
    return nt_fail(NT_ERR_RUNTIME, "%s: the result's shape depends on the data",
                   nt_op_rows[c->op].name);
}

nt_status nt_shape_no_tensor(const nt_call *c, nt_shape *s) {
    (void)s;
    return nt_fail(NT_ERR_RUNTIME, "%s: the op returns no tensor", nt_op_rows[c->op].name);
}

/* Slot 0, the tensor every op of a kind with an input takes. */
static nt_status self_of(const nt_call *c, const nt_tensor **t) {
    *t = nt_call_tensor(c, 0);
    if (!*t) return nt_fail_null_tensor(nt_op_rows[c->op].name, "self");
    return NT_OK;
}

nt_status nt_shape_self(const nt_call *c, nt_shape *s) {
    const nt_tensor *t;
    NT_TRY(self_of(c, &t));
    nt_shape_of_tensor(s, t);
    return NT_OK;
}

/* ------------------------------------------------------------------ the kinds' rules */

/* The broadcast of every tensor slot. */
static nt_status broadcast(const nt_call *c, nt_shape *s) {
    nt_tensor *ts[NT_CALL_MAX_ARGS];
    int n = 0;
    for (int i = 0; i < nt_op_slots_of(c->op)->nslots; i++)
        if (c->args[i].kind == NT_ARG_TENSOR) ts[n++] = c->args[i].v.t;
    return nt_broadcast_shapes(n, ts, &s->ndim, s->sizes);
}

/* The broadcast, which self, written in place, must have. */
static nt_status broadcast_into_self(const nt_call *c, nt_shape *s) {
    const nt_tensor *t;
    NT_TRY(self_of(c, &t));
    NT_TRY(broadcast(c, s));
    return nt_check_output_shape(t, s->ndim, s->sizes);
}

nt_status nt_shape_broadcast(const nt_call *c, nt_shape *s) {
    return c->inplace ? broadcast_into_self(c, s) : broadcast(c, s);
}

static nt_status reduce_rule(const nt_call *c, nt_shape *s) {
    const nt_tensor *t;
    NT_TRY(self_of(c, &t));
    const nt_op_slots *r = nt_op_slots_of(c->op);
    /* no dim slot (max(), median()): every dim, no keepdim */
    const nt_arg *dim = r->dim >= 0 ? &c->args[r->dim] : NULL;
    bool keepdim =
        r->keepdim >= 0 && c->args[r->keepdim].kind == NT_ARG_BOOL && c->args[r->keepdim].v.b;
    uint64_t mask = 0;
    if (dim && dim->kind == NT_ARG_DIMS) {
        NT_TRY(nt_red_dims_mask(t, dim->n, dim->v.dims, &mask));
    } else if (dim && (dim->kind == NT_ARG_DIM || r->dim_has_default)) {
        int64_t d;
        NT_TRY(nt_red_dim(t, dim->kind == NT_ARG_DIM ? dim->v.dim : r->dim_default, &d));
        mask = t->ndim ? (uint64_t)1 << d : 0;
    } else { /* None: every dim */
        NT_TRY(nt_red_dims_mask(t, 0, NULL, &mask));
    }
    nt_red_out_shape(t, mask, keepdim, &s->ndim, s->sizes);
    return NT_OK;
}

static nt_status scan_rule(const nt_call *c, nt_shape *s) {
    const nt_tensor *t;
    NT_TRY(self_of(c, &t));
    const nt_op_slots *r = nt_op_slots_of(c->op);
    if (r->dim >= 0 && c->args[r->dim].kind == NT_ARG_DIM) {
        int64_t d;
        NT_TRY(nt_red_dim(t, c->args[r->dim].v.dim, &d));
    }
    nt_shape_of_tensor(s, t);
    return NT_OK;
}

/* A sized factory's size slot, else the input's shape. */
static nt_status made_rule(const nt_call *c, nt_shape *s) {
    const nt_op_slots *r = nt_op_slots_of(c->op);
    if (r->size < 0 || c->args[r->size].kind != NT_ARG_INTS) return nt_shape_self(c, s);
    const nt_arg *size = &c->args[r->size];
    NT_TRY(nt_shape_check(size->n, size->v.ints, &(int64_t){0}));
    nt_shape_set(s, size->n, size->v.ints);
    return NT_OK;
}

static const nt_op_shape kind_rules[NT_OPK_OTHER + 1] = {
    [NT_OPK_POINTWISE] = nt_shape_broadcast,
    [NT_OPK_REDUCE] = reduce_rule,
    [NT_OPK_SCAN] = scan_rule,
    [NT_OPK_FACTORY] = made_rule,
    [NT_OPK_RANDOM] = made_rule,
    [NT_OPK_NAMES] = nt_shape_self,
};

nt_op_shape nt_shape_rule_of_kind(nt_op_kind kind) {
    return (unsigned)kind <= NT_OPK_OTHER ? kind_rules[kind] : NULL;
}

nt_op_shape nt_shape_rule_of(nt_op op) {
    const nt_op_row *row = nt_op_row_of(op);
    return row->shape ? row->shape : nt_shape_rule_of_kind(row->kind);
}

/* ------------------------------------------------------------------ rows with a twist */

/* normal(mean, std, size=None): the broadcast of the tensors given (a tensor mean with a
 * number std broadcasts with out=, as PyTorch's), else the size */
nt_status nt_shape_normal_tensors(const nt_call *c, nt_shape *s) {
    nt_tensor *mean = nt_call_tensor(c, 0), *std = nt_call_tensor(c, 1);
    if (mean && !std && c->out[0]) {
        nt_tensor *pair[2] = {mean, c->out[0]};
        return nt_broadcast_shapes(2, pair, &s->ndim, s->sizes);
    }
    if (mean || std) return broadcast(c, s);
    return made_rule(c, s);
}

/* index_fill(dim, index, value): self's shape, its dim checked */
nt_status nt_shape_index_fill(const nt_call *c, nt_shape *s) {
    const nt_tensor *t;
    NT_TRY(self_of(c, &t));
    int64_t d;
    NT_TRY(nt_tensor_dim(t, c->args[1].kind == NT_ARG_DIM ? c->args[1].v.dim : 0, &d));
    nt_shape_of_tensor(s, t);
    return NT_OK;
}

/* copy_(other): self, into which other broadcasts */
nt_status nt_shape_copy(const nt_call *c, nt_shape *s) {
    return broadcast_into_self(c, s);
}
