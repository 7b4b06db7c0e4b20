/*
 * batch.c — implicit batching over first-class dims (functorch.dim's rule 1 and rule 2), the
 * dispatcher's levels step (dispatch.h).
 *
 * A call some of whose tensors have levels runs as one positional call: the union of the
 * tensors' dims, in order of first appearance, leads every tensor argument (a view: a dim a
 * tensor lacks gets stride 0, so nothing is copied), each tensor's positional dims padded
 * with size-one dims to the call's largest positional rank; dim arguments are moved past the
 * union (an index i becomes nU + i, a first-class dim its place in the union) and a reduction
 * over every dim (dim=None) reduces the positional ones only; the op runs on the views and
 * the results' leading dims, the union less the dims a reduction removed, become their
 * levels. How an op batches is its row's rule (.batch, else its kind): pointwise, reduce,
 * scan, the matrix products; other ops fail with an error naming the op.
 */
#include <string.h>

#include "core/status.h"
#include "dims/dims.h"
#include "dispatch/dispatch.h"

bool nt_call_has_levels(const nt_call *c) {
    for (unsigned m = nt_op_slots_of(c->op)->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        if (a->kind == NT_ARG_TENSOR && a->v.t->levels) return true;
        for (int i = 0; a->kind == NT_ARG_TENSORS && i < a->n; i++)
            if (a->v.tensors[i]->levels) return true;
    }
    return false;
}

/* Moves one dim argument of a tensor with np positional dims past the union: a first-class
 * dim to its place in the union (*level set), an index i to nU + i, a name unchanged. */
static nt_status move_dim(nt_dim d, const nt_dim_union *u, int np, const char *op, nt_dim *out,
                          int *level) {
    *level = -1;
    if (nt_dim_is_fc(d)) {
        nt_fcdim *fd = nt_dim_to_fc(d);
        int at = nt_dims_union_find(u, fd);
        if (at < 0) {
            char buf[512];
            nt_dims_repr(u->dims, u->n, buf, sizeof buf);
            return nt_fail(NT_ERR_VALUE, "%s(): tensor of dimensions %s does not contain dim %s",
                           op, buf, fd->name);
        }
        *out = at;
        *level = at;
        return NT_OK;
    }
    if (nt_dim_is_name(d)) {
        *out = d;
        return NT_OK;
    }
    int64_t w;
    NT_TRY(nt_wrap_dim(d, np, &w));
    *out = u->n + w;
    return NT_OK;
}

typedef struct batch_state {
    nt_dim dims[NT_MAX_DIMS];
    bool removed[NT_MAX_DIMS]; /* union dims a reduction removes */
    nt_tensor *views[NT_CALL_MAX_ARGS];
    int pad_before; /* reductions of a tensor without positional dims: a size-one dim */
} batch_state;

/* The dim slot of a reduction or scan of self (np positional dims) moved past the union. */
static nt_status move_dim_slot(nt_call *c, const nt_op_row *row, const nt_op_slots *si,
                               const nt_dim_union *u, int np, batch_state *b) {
    int s = si->dim;
    if (s < 0) {
        if (row->kind != NT_OPK_REDUCE) return NT_OK;
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "%s(): a reduction of every dim is not batched over first-class dims; "
                       "give the dims to reduce",
                       row->name);
    }
    nt_arg *a = &c->args[s];
    bool keepdim =
        si->keepdim >= 0 && c->args[si->keepdim].kind == NT_ARG_BOOL && c->args[si->keepdim].v.b;
    int level;
    if (a->kind == NT_ARG_NONE && row->kind == NT_OPK_REDUCE && si->slots[s].kind == NT_ARG_DIMS) {
        /* every positional dim; none: a size-one dim made for it, so nothing is summed */
        int n = np > 0 ? np : 1;
        b->pad_before = np > 0 ? 0 : 1;
        for (int i = 0; i < n; i++)
            b->dims[i] = u->n + i;
        *a = nt_arg_dims(n, b->dims);
        return NT_OK;
    }
    if (a->kind == NT_ARG_NONE) {
        if (!si->dim_has_default)
            return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                           "%s(): dim=None is not batched over first-class dims", row->name);
        *a = nt_arg_dim(si->dim_default);
    }
    int n = a->kind == NT_ARG_DIMS ? a->n : 1;
    if (n > NT_MAX_DIMS) return nt_fail(NT_ERR_RUNTIME, "%s(): too many dims", row->name);
    const nt_dim *given = a->kind == NT_ARG_DIMS ? a->v.dims : &a->v.dim;
    for (int i = 0; i < n; i++) {
        NT_TRY(move_dim(given[i], u, np, row->name, &b->dims[i], &level));
        if (level >= 0 && row->kind == NT_OPK_REDUCE) {
            if (keepdim)
                return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                               "%s(): keepdim=True with a first-class dim is not supported",
                               row->name);
            b->removed[level] = true;
        }
    }
    *a = a->kind == NT_ARG_DIMS ? nt_arg_dims(n, b->dims) : nt_arg_dim(b->dims[0]);
    return NT_OK;
}

/* The levels of a result: the union less the removed dims, which lead it. */
static nt_status give_levels(nt_tensor *r, const nt_dim_union *u, const batch_state *b) {
    if (!r) return NT_OK;
    nt_fcdim *keep[NT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < u->n; i++)
        if (!b->removed[i]) keep[n++] = u->dims[i];
    if (r->ndim < n || r->levels)
        return nt_fail(NT_ERR_RUNTIME, "internal: a batched result lacks its first-class dims");
    return nt_levels_attach(r, n, keep);
}

/* The matrix products: operands [union, batch pads, matrix dims], a vector as a row (left)
 * or a column (right) matrix, run as matmul; the vector's dim is then dropped again. */
static nt_status run_matmul(nt_call *c, const nt_dim_union *u, batch_state *b) {
    nt_tensor *x = c->args[0].v.t, *y = c->args[1].v.t;
    int px = x->ndim - nt_tensor_nlevels(x), py = y->ndim - nt_tensor_nlevels(y);
    if (px == 0 || py == 0)
        return nt_fail(NT_ERR_RUNTIME, "%s: both arguments need at least 1 positional dim",
                       nt_op_name(c->op));
    int bx = px > 2 ? px - 2 : 0, by = py > 2 ? py - 2 : 0, nb = bx > by ? bx : by;
    NT_TRY(nt_dims_align(x, u, nb - bx + (px == 1), 0, &b->views[0]));
    NT_TRY(nt_dims_align(y, u, nb - by, py == 1, &b->views[1]));
    nt_call inner = *c;
    inner.op = NT_OP_MATMUL;
    inner.args[0] = nt_arg_tensor(b->views[0]);
    inner.args[1] = nt_arg_tensor(b->views[1]);
    NT_TRY(nt_dispatch_row(&inner, nt_op_row_of(NT_OP_MATMUL)));
    nt_tensor *r = inner.result[0];
    if (px == 1 || py == 1) { /* drop the vector's unit dim(s) */
        int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
        int n = 0, last = r->ndim - 1;
        for (int i = 0; i < r->ndim; i++) {
            if ((py == 1 && i == last) || (px == 1 && i == last - 1)) continue;
            sizes[n] = r->sizes[i];
            strides[n++] = r->strides[i];
        }
        nt_tensor *v = NULL;
        nt_status st = nt_dims_view(r, n, sizes, strides, r->offset, NULL, &v);
        nt_tensor_release(r);
        NT_TRY(st);
        r = v;
    }
    c->result[0] = r;
    return NT_OK;
}

nt_status nt_dispatch_levels(nt_call *c, const nt_op_row *row) {
    if (c->inplace || c->out[0] || c->out[1])
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "%s: the in-place and out= forms do not take tensors with first-class "
                       "dims",
                       row->name);
    const nt_op_slots *si = nt_op_slots_of(c->op);
    int rule = row->batch != NT_BATCH_BY_KIND                           ? row->batch
               : row->kind == NT_OPK_POINTWISE                          ? NT_BATCH_POINTWISE
               : row->kind == NT_OPK_REDUCE || row->kind == NT_OPK_SCAN ? NT_BATCH_BY_KIND
                                                                        : NT_BATCH_NONE;
    if (rule == NT_BATCH_NONE)
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "%s: batching over first-class dims is not implemented for this op",
                       row->name);
    nt_dim_union u = {0};
    int np = 0; /* the largest positional rank */
    for (unsigned m = si->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        if (a->kind == NT_ARG_TENSORS)
            return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                           "%s: batching over first-class dims is not implemented for this op",
                           row->name);
        if (a->kind != NT_ARG_TENSOR) continue;
        NT_TRY(nt_dims_union_add(&u, a->v.t));
        int p = a->v.t->ndim - nt_tensor_nlevels(a->v.t);
        np = p > np ? p : np;
    }
    batch_state b;
    memset(b.removed, 0, sizeof b.removed);
    memset(b.views, 0, sizeof b.views);
    b.pad_before = 0;
    nt_call inner = *c;
    nt_status st = NT_OK;
    if (rule == NT_BATCH_MATMUL) {
        st = run_matmul(&inner, &u, &b);
    } else {
        if (rule == NT_BATCH_BY_KIND) st = move_dim_slot(&inner, row, si, &u, np, &b);
        for (unsigned m = si->tensor_slots; st == NT_OK && m; m &= m - 1) {
            int i = __builtin_ctz(m);
            nt_arg *a = &inner.args[i];
            if (a->kind != NT_ARG_TENSOR) continue;
            int p = a->v.t->ndim - nt_tensor_nlevels(a->v.t);
            st = nt_dims_align(a->v.t, &u, np - p + b.pad_before, 0, &b.views[i]);
            if (st == NT_OK) a->v.t = b.views[i];
        }
        if (st == NT_OK) st = nt_dispatch_row(&inner, row);
    }
    for (int i = 0; i < NT_CALL_MAX_ARGS; i++)
        nt_tensor_release(b.views[i]);
    if (st != NT_OK) return st;
    c->result[0] = inner.result[0];
    c->result[1] = inner.result[1];
    c->list = inner.list;
    c->nlist = inner.nlist;
    c->value = inner.value;
    st = give_levels(c->result[0], &u, &b);
    if (st == NT_OK) st = give_levels(c->result[1], &u, &b);
    for (int64_t i = 0; st == NT_OK && i < c->nlist; i++)
        st = give_levels(c->list[i], &u, &b);
    if (st != NT_OK) {
        nt_tensor_release(c->result[0]);
        nt_tensor_release(c->result[1]);
        c->result[0] = c->result[1] = NULL;
    }
    return st;
}
