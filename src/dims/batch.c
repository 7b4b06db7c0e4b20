/*
 * batch.c — implicit batching over first-class dims (functorch.dim's rule 1 and rule 2), the
 * dispatcher's levels step (dispatch.h).
 *
 * A call some of whose tensors have levels runs as one positional call: the union of the
 * tensors' dims, in order of first appearance, leads every tensor argument (a view: a dim a
 * tensor lacks gets stride 0, so nothing is copied). How the other arguments follow is the
 * row's rule (.batch, else its kind; op_table.h):
 *   POINTWISE  each tensor's positional dims padded with size-one dims to the call's largest
 *              positional rank (broadcasting aligns from the right);
 *   reductions and scans (by kind): the dim argument moved past the union (an index i
 *              becomes nU + i, a first-class dim its place in the union; dim=None reduces
 *              the positional dims only); the union less the dims reduced leads the result;
 *   MATMUL     operands [union, batch pads, matrix dims] run as matmul;
 *   SHIFT      views, splits and ops on the trailing dims of self (the only tensor with
 *              dims): dim arguments shift past the union, a size gets the union's sizes in
 *              front (PERMUTE: the permutation too);
 *   JOIN/STACK the Tensor[] aligned to the union, the dim shifted;
 *   INDEX      t[...]: full slices over the union in front of the index;
 *   LOOP       (batch_loop.c) one call per element of the union, the results stacked: every
 *              other op, and every case the rules above do not cover.
 * In-place calls write through the aligned view of self (which must have every dim of the
 * call); out= tensors must have the result's dims and shape (no resize through a view). A
 * first-class dim given as a dim argument must be one of the call's dims (x.max(j) of an x
 * without j is an error, also when x has no dims at all).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "dims/dims.h"
#include "dispatch/dispatch.h"
#include "ntensor/index.h"
#include "ops/index.h"

/* The first first-class dim among c's dim arguments, or NULL. */
static nt_fcdim *first_fc_dim(const nt_call *c, const nt_op_slots *si) {
    for (unsigned m = si->dim_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        if (a->kind == NT_ARG_DIM && nt_dim_is_fc(a->v.dim)) return nt_dim_to_fc(a->v.dim);
        for (int i = 0; a->kind == NT_ARG_DIMS && i < a->n; i++)
            if (nt_dim_is_fc(a->v.dims[i])) return nt_dim_to_fc(a->v.dims[i]);
    }
    return NULL;
}

bool nt_call_has_levels(const nt_call *c) {
    const nt_op_slots *si = nt_op_slots_of(c->op);
    for (unsigned m = si->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        if (a->kind == NT_ARG_TENSOR && a->v.t->levels) return true;
        for (int i = 0; a->kind == NT_ARG_TENSORS && i < a->n; i++)
            if (a->v.tensors[i]->levels) return true;
    }
    for (int k = 0; k < 2; k++)
        if (c->out[k] && c->out[k]->levels) return true;
    return si->dim_slots && first_fc_dim(c, si); /* x.max(i) of an x without dims */
}

/* "max(): tensor of dimensions (i,) does not contain dim j" (ValueError): a first-class dim
 * argument that no tensor of the call has. */
static nt_status dim_not_found(const char *op, const nt_dim_union *u, const nt_fcdim *d) {
    char buf[512];
    nt_dims_repr(u->dims, u->n, buf, sizeof buf);
    return nt_fail(NT_ERR_VALUE, "%s(): tensor of dimensions %s does not contain dim %s", op, buf,
                   d->name);
}

/* Every first-class dim among c's dim arguments is one of the union's (of its tensors). */
static nt_status check_fc_dims(const nt_call *c, const nt_op_slots *si, const nt_dim_union *u) {
    for (unsigned m = si->dim_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        int n = a->kind == NT_ARG_DIM ? 1 : a->kind == NT_ARG_DIMS ? a->n : 0;
        for (int i = 0; i < n; i++) {
            nt_dim d = a->kind == NT_ARG_DIM ? a->v.dim : a->v.dims[i];
            if (nt_dim_is_fc(d) && nt_dims_union_find(u, nt_dim_to_fc(d)) < 0)
                return dim_not_found(nt_op_name(c->op), u, nt_dim_to_fc(d));
        }
    }
    return NT_OK;
}

/* ------------------------------------------------------------------ slot facts */

/* What SHIFT reads of a schema beyond nt_op_slots: the int / int[] slots that are dims
 * ("dim" of unsqueeze and "dim1" / "dim2" of diag_embed, which index a result of one more
 * dim, and "destination" of movedim), the slot that is a whole shape ("size" of view and
 * expand, "shape" of reshape), and the defaults of dim slots, which must be shifted too when
 * not given. Parsed once, on first use. */
typedef struct shift_facts {
    unsigned int_dims; /* bit s: an int or int[] slot that is a dim */
    unsigned insert;   /* bit s: a dim that indexes the result (one more dim) */
    unsigned defaults; /* bit s: a Dim slot with an integer default, dflt[s] */
    int8_t shape;      /* the int[] slot that is a whole shape, or -1 */
    int64_t dflt[NT_CALL_MAX_ARGS];
} shift_facts;

static shift_facts facts_table[NT_OP_COUNT];
static pthread_once_t facts_once = PTHREAD_ONCE_INIT;

static void facts_parse(void) {
    for (int op = 0; op < NT_OP_COUNT; op++) {
        shift_facts *f = &facts_table[op];
        f->shape = -1;
        const char *text = nt_op_schema((nt_op)op);
        nt_sig sig;
        if (!text || nt_sig_parse(text, strlen(text), &sig) != NT_OK) continue;
        for (int s = 0; s < sig.nparams && s < NT_CALL_MAX_ARGS; s++) {
            const nt_param *p = &sig.params[s];
            int kind = nt_sig_kind_of(p->type);
            bool ints = kind == NT_ARG_INT || kind == NT_ARG_INTS;
            bool result_dim =
                kind == NT_ARG_INT &&
                (!strcmp(p->name, "dim") || !strcmp(p->name, "dim1") || !strcmp(p->name, "dim2"));
            if (result_dim ||
                (ints && (!strcmp(p->name, "dim") || !strcmp(p->name, "destination"))))
                f->int_dims |= 1u << s;
            if (result_dim) f->insert |= 1u << s;
            if (kind == NT_ARG_INTS && (!strcmp(p->name, "size") || !strcmp(p->name, "shape")))
                f->shape = (int8_t)s;
            nt_arg d = nt_sig_default(p);
            if (kind == NT_ARG_DIM && d.kind == NT_ARG_DIM) {
                f->defaults |= 1u << s;
                f->dflt[s] = d.v.dim;
            }
        }
    }
    nt_clear_error();
}

static const shift_facts *facts_of(nt_op op) {
    pthread_once(&facts_once, facts_parse);
    return &facts_table[op];
}

/* ------------------------------------------------------------------ shared state */

typedef struct batch_state {
    nt_dim_union u;
    int np;                    /* the largest positional rank among the tensor slots */
    bool removed[NT_MAX_DIMS]; /* union dims a reduction removes */
    nt_tensor *views[NT_CALL_MAX_ARGS];
    nt_tensor *outs[2];
    nt_tensor **list; /* JOIN: the aligned Tensor[] (owned) */
    int nlist;
    int pad_before; /* reductions of a tensor without positional dims: a size-one dim */
    int64_t pool[4 * NT_MAX_DIMS]; /* the rewritten dim and size lists */
    int used;
} batch_state;

static int64_t *pool_take(batch_state *b, int n) {
    if (n < 0 || b->used + n > (int)(sizeof b->pool / sizeof b->pool[0])) return NULL;
    int64_t *p = &b->pool[b->used];
    b->used += n;
    return p;
}

static int positional_rank(const nt_tensor *t) {
    return t->ndim - nt_tensor_nlevels(t);
}

static nt_status not_implemented(const char *op, const char *what) {
    return nt_fail(NT_ERR_NOT_IMPLEMENTED, "%s: %s", op, what);
}

/* A dim argument of a tensor with np positional dims moved past the union's nU dims: an
 * index i to nU + i (checked against np, PyTorch's text), a name unchanged. */
static nt_status shift_dim(nt_dim d, int nU, int np, nt_dim *out) {
    if (nt_dim_is_name(d)) {
        *out = d;
        return NT_OK;
    }
    int64_t w;
    NT_TRY(nt_wrap_dim(d, np, &w));
    *out = nU + w;
    return NT_OK;
}

/* Moves one dim argument of a reduction or scan past the union: a first-class dim to its
 * place in the union (*level set), others as shift_dim. */
static nt_status move_dim(nt_dim d, const nt_dim_union *u, int np, const char *op, nt_dim *out,
                          int *level) {
    *level = -1;
    if (nt_dim_is_fc(d)) {
        nt_fcdim *fd = nt_dim_to_fc(d);
        int at = nt_dims_union_find(u, fd);
        if (at < 0) return dim_not_found(op, u, fd);
        *out = at;
        *level = at;
        return NT_OK;
    }
    return shift_dim(d, u->n, np, out);
}

/* ------------------------------------------------------------------ reductions and scans */

/* Whether the dim-slot rule covers the call: the op has a dim slot, and a dim=None is a
 * reduction over Dim[] (the positional dims) or has a default. */
static bool reduce_applies(const nt_call *c, const nt_op_row *row, const nt_op_slots *si) {
    if (si->dim < 0) return false;
    if (c->args[si->dim].kind != NT_ARG_NONE) return true;
    return (row->kind == NT_OPK_REDUCE && si->slots[si->dim].kind == NT_ARG_DIMS) ||
           si->dim_has_default;
}

/* The dim slot of a reduction or scan of self (np positional dims) moved past the union. */
static nt_status move_dim_slot(nt_call *c, const nt_op_row *row, const nt_op_slots *si,
                               batch_state *b) {
    const nt_dim_union *u = &b->u;
    int np = b->np, s = si->dim;
    nt_arg *a = &c->args[s];
    bool keepdim =
        si->keepdim >= 0 && c->args[si->keepdim].kind == NT_ARG_BOOL && c->args[si->keepdim].v.b;
    int level;
    if (a->kind == NT_ARG_NONE && row->kind == NT_OPK_REDUCE && si->slots[s].kind == NT_ARG_DIMS) {
        /* every positional dim; none: a size-one dim made for it, so nothing is summed */
        int n = np > 0 ? np : 1;
        int64_t *dims = pool_take(b, n);
        b->pad_before = np > 0 ? 0 : 1;
        for (int i = 0; i < n; i++)
            dims[i] = u->n + i;
        *a = nt_arg_dims(n, dims);
        return NT_OK;
    }
    if (a->kind == NT_ARG_NONE) *a = nt_arg_dim(si->dim_default);
    int n = a->kind == NT_ARG_DIMS ? a->n : 1;
    int64_t *dims = pool_take(b, n);
    if (!dims) return nt_fail(NT_ERR_RUNTIME, "%s(): too many dims", row->name);
    const nt_dim *given = a->kind == NT_ARG_DIMS ? a->v.dims : &a->v.dim;
    for (int i = 0; i < n; i++) {
        NT_TRY(move_dim(given[i], u, np, row->name, &dims[i], &level));
        if (level >= 0 && row->kind == NT_OPK_REDUCE) {
            if (keepdim)
                return nt_fail(NT_ERR_VALUE,
                               "cannot preserve first-class dimensions with keepdim=True");
            b->removed[level] = true;
        }
    }
    *a = a->kind == NT_ARG_DIMS ? nt_arg_dims(n, dims) : nt_arg_dim(dims[0]);
    return NT_OK;
}

/* The levels of a result: the union less the removed dims, which lead it, printed as the
 * plan says. */
static nt_status give_levels(nt_tensor *r, const batch_state *b, const nt_print_plan *plan) {
    if (!r) return NT_OK;
    nt_fcdim *keep[NT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < b->u.n; i++)
        if (!b->removed[i]) keep[n++] = b->u.dims[i];
    if (r->ndim < n || r->levels)
        return nt_fail(NT_ERR_RUNTIME, "internal: a batched result lacks its first-class dims");
    return nt_levels_attach_plan(r, n, keep, plan);
}

/* ------------------------------------------------------------------ matrix products */

/* The matrix products: operands [union, batch pads, matrix dims], a vector as a row (left)
 * or a column (right) matrix, run as matmul; the vector's dim is then dropped again. */
static nt_status run_matmul(nt_call *c, batch_state *b) {
    nt_tensor *x = c->args[0].v.t, *y = c->args[1].v.t;
    int px = positional_rank(x), py = positional_rank(y);
    if (px == 0 || py == 0)
        return nt_fail(NT_ERR_RUNTIME, "%s: both arguments need at least 1 positional dim",
                       nt_op_name(c->op));
    int bx = px > 2 ? px - 2 : 0, by = py > 2 ? py - 2 : 0, nb = bx > by ? bx : by;
    NT_TRY(nt_dims_align(x, &b->u, nb - bx + (px == 1), 0, &b->views[0]));
    NT_TRY(nt_dims_align(y, &b->u, nb - by, py == 1, &b->views[1]));
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

/* ------------------------------------------------------------------ views and splits */

/* Whether SHIFT covers the call: self (slot 0) is the only tensor with dims and has
 * positional dims, no dim argument is a first-class dim, and no dim slot is left None
 * without a default (a None there means "every dim": flattened, which LOOP does). */
static bool shift_applies(const nt_call *c, const nt_op_slots *si, const shift_facts *f) {
    if (c->args[0].kind != NT_ARG_TENSOR || positional_rank(c->args[0].v.t) == 0) return false;
    for (int s = 1; s < si->nslots; s++) {
        const nt_arg *a = &c->args[s];
        if (a->kind == NT_ARG_TENSOR && a->v.t->levels) return false;
        for (int i = 0; a->kind == NT_ARG_TENSORS && i < a->n; i++)
            if (a->v.tensors[i]->levels) return false;
        if (a->kind == NT_ARG_DIM && nt_dim_is_fc(a->v.dim)) return false;
        for (int i = 0; a->kind == NT_ARG_DIMS && i < a->n; i++)
            if (nt_dim_is_fc(a->v.dims[i])) return false;
        int kind = si->slots[s].kind;
        if (a->kind == NT_ARG_NONE && (kind == NT_ARG_DIM || kind == NT_ARG_DIMS) &&
            !(f->defaults & (1u << s)))
            return false;
    }
    return true;
}

/* SHIFT and PERMUTE: self aligned [union, positional], its dim arguments shifted past the
 * union, a whole shape given the union's sizes in front. */
static nt_status shift_args(nt_call *c, const nt_op_slots *si, const shift_facts *f, int rule,
                            batch_state *b) {
    int nU = b->u.n, np = positional_rank(c->args[0].v.t);
    for (int s = 1; s < si->nslots; s++) {
        nt_arg *a = &c->args[s];
        int kind = si->slots[s].kind;
        bool dim = kind == NT_ARG_DIM || kind == NT_ARG_DIMS || (f->int_dims & (1u << s));
        int range = np + ((f->insert >> s) & 1);
        if (a->kind == NT_ARG_NONE && kind == NT_ARG_DIM && (f->defaults & (1u << s)))
            *a = nt_arg_dim(f->dflt[s]);
        if (dim && (a->kind == NT_ARG_DIM || a->kind == NT_ARG_INT)) {
            nt_dim d;
            NT_TRY(shift_dim(a->v.i, nU, range, &d));
            a->v.i = d;
        } else if (dim && (a->kind == NT_ARG_DIMS || a->kind == NT_ARG_INTS)) {
            int lead = rule == NT_BATCH_PERMUTE && a->kind == NT_ARG_DIMS ? nU : 0;
            int64_t *d = pool_take(b, lead + a->n);
            if (!d) return nt_fail(NT_ERR_RUNTIME, "%s: too many dims", nt_op_name(c->op));
            for (int i = 0; i < lead; i++)
                d[i] = i;
            for (int i = 0; i < a->n; i++)
                NT_TRY(shift_dim(a->kind == NT_ARG_DIMS ? a->v.dims[i] : a->v.ints[i], nU, range,
                                 &d[lead + i]));
            a->v.ints = d;
            a->n += lead;
        } else if (s == f->shape && a->kind == NT_ARG_INTS) {
            int64_t *d = pool_take(b, nU + a->n);
            if (!d) return nt_fail(NT_ERR_RUNTIME, "%s: too many dims", nt_op_name(c->op));
            for (int i = 0; i < nU; i++)
                d[i] = b->u.dims[i]->size;
            memcpy(d + nU, a->v.ints, (size_t)a->n * sizeof *d);
            /* a longer shape adds dims in front of self's (expand): size-one dims there */
            b->pad_before = a->n > np ? a->n - np : 0;
            a->v.ints = d;
            a->n += nU;
        }
    }
    return NT_OK;
}

/* A failed SHIFT or PERMUTE call: the error the op gives on self's positional part (a plain
 * view), whose text counts the positional dims as the op's own does (functorch runs the op
 * per example: "the number of sizes provided (1) must be greater or equal to the number of
 * dimensions in the tensor (3)", not (2) and (4) with a union of one dim); the batched error
 * stands where that view takes the call (a failure of the batching itself). Runs on failure
 * only. */
static nt_status positional_error(const nt_call *c, const nt_op_row *row, nt_status failed) {
    nt_tensor *self = c->args[0].v.t, *part = NULL;
    int nl = nt_tensor_nlevels(self), np = self->ndim - nl;
    for (int i = 0; i < nl; i++)
        if (self->sizes[i] == 0) return failed; /* no element to view */
    char text[1024];
    snprintf(text, sizeof text, "%s", nt_last_error());
    nt_name names[NT_MAX_DIMS];
    for (int i = 0; i < np; i++)
        names[i] = nt_tensor_name_at(self, nl + i);
    if (nt_tensor_view_of(self, np, self->sizes + nl, self->strides + nl, self->offset,
                          self->names ? names : NULL, &part) != NT_OK)
        return nt_fail(failed, "%s", text);
    nt_call plain = *c;
    plain.args[0] = nt_arg_tensor(part);
    nt_status st = nt_dispatch_row(&plain, row);
    nt_tensor_release(part);
    if (st != NT_OK) return st;
    nt_call_results_clear(&plain);
    return nt_fail(failed, "%s", text);
}

/* ------------------------------------------------------------------ joins */

/* JOIN and STACK: whether they cover the call (every tensor of the list has positional dims:
 * cat's own error for a 0-dim one comes from LOOP; no first-class dim as the dim). */
static bool join_applies(const nt_call *c, const nt_op_slots *si) {
    const nt_arg *a = &c->args[0];
    if (a->kind != NT_ARG_TENSORS || a->n == 0) return false;
    for (int i = 0; i < a->n; i++)
        if (positional_rank(a->v.tensors[i]) == 0) return false;
    return !(si->dim >= 0 && c->args[si->dim].kind == NT_ARG_DIM &&
             nt_dim_is_fc(c->args[si->dim].v.dim));
}

static nt_status join_args(nt_call *c, const nt_op_slots *si, int rule, batch_state *b) {
    nt_arg *a = &c->args[0];
    b->list = calloc((size_t)a->n, sizeof *b->list);
    if (!b->list) return nt_fail_oom((size_t)a->n * sizeof *b->list);
    b->nlist = a->n;
    for (int i = 0; i < a->n; i++)
        NT_TRY(nt_dims_align(a->v.tensors[i], &b->u, 0, 0, &b->list[i]));
    *a = nt_arg_tensors(a->n, b->list);
    if (si->dim < 0) return NT_OK;
    nt_arg *d = &c->args[si->dim];
    if (d->kind == NT_ARG_NONE) *d = nt_arg_dim(si->dim_has_default ? si->dim_default : 0);
    nt_dim moved;
    NT_TRY(shift_dim(d->v.dim, b->u.n, b->np + (rule == NT_BATCH_STACK), &moved));
    *d = nt_arg_dim(moved);
    return NT_OK;
}

/* ------------------------------------------------------------------ t[...] */

/* INDEX with dims on self only and its advanced entries (tensors, bools) adjacent, so that
 * their result dims stay in place behind the union. */
static bool index_applies(const nt_call *c) {
    const nt_arg *list = &c->args[1], *spec = &c->args[2];
    for (int i = 0; list->kind == NT_ARG_TENSORS && i < list->n; i++)
        if (list->v.tensors[i]->levels) return false;
    if (spec->kind != NT_ARG_INTS || spec->n < 1) return false;
    int count = (spec->n - 1) / 5, first = -1, last = -1, nadv = 0;
    for (int i = 0; i < count; i++) {
        int64_t kind = spec->v.ints[1 + 5 * i];
        if (kind == NT_INDEX_TENSOR || kind == NT_INDEX_BOOL) {
            if (first < 0) first = i;
            last = i;
            nadv++;
        }
    }
    return nadv == 0 || last - first + 1 == nadv;
}

static nt_status index_args(nt_call *c, batch_state *b) {
    const nt_arg *spec = &c->args[2];
    int nU = b->u.n;
    int64_t *s = pool_take(b, spec->n + 5 * nU);
    if (!s) return nt_fail(NT_ERR_INDEX, "too many indices");
    s[0] = 0; /* a tuple now */
    for (int i = 0; i < nU; i++) {
        int64_t *e = &s[1 + 5 * i];
        e[0] = NT_INDEX_SLICE, e[1] = 0, e[2] = 0, e[3] = NT_SLICE_END, e[4] = 1;
    }
    memcpy(s + 1 + 5 * nU, spec->v.ints + 1, (size_t)(spec->n - 1) * sizeof *s);
    c->args[2] = nt_arg_ints(spec->n + 5 * nU, s);
    return NT_OK;
}

/* ------------------------------------------------------------------ how results print */

/* SELF: the physical dims of self (the only tensor with dims) that its results lack: the
 * dims reduced, first-class ones and, for functorch's methods that drop their dim (without
 * keepdim), the positional ones named in the rewritten dim slot. */
static void gone_dims(const nt_call *c, const nt_call *inner, const nt_op_slots *si,
                      const batch_state *b, bool *gone) {
    const nt_tensor *self = c->args[0].v.t;
    int nl = nt_tensor_nlevels(self);
    memset(gone, 0, NT_MAX_DIMS * sizeof *gone);
    for (int k = 0; k < b->u.n; k++) {
        int at = b->removed[k] ? nt_levels_find(self, b->u.dims[k]) : -1;
        if (at >= 0) gone[at] = true;
    }
    bool keepdim =
        si->keepdim >= 0 && c->args[si->keepdim].kind == NT_ARG_BOOL && c->args[si->keepdim].v.b;
    if (!nt_print_drops_dim(c->op) || keepdim || si->dim < 0) return;
    const nt_arg *a = &inner->args[si->dim];
    int n = a->kind == NT_ARG_DIMS || a->kind == NT_ARG_INTS ? a->n : 1;
    for (int i = 0; i < n; i++) {
        int64_t d = a->kind == NT_ARG_DIMS || a->kind == NT_ARG_INTS ? a->v.ints[i] : a->v.i;
        if (d >= b->u.n && d - b->u.n < self->ndim - nl) gone[nl + d - b->u.n] = true;
    }
}

/* INDEX: self[the call's index], as functorch's getitem reads it. */
static void plan_index(const nt_call *c, nt_print_plan *plan) {
    nt_index idx[NT_INDEX_MAX_ENTRIES];
    int count;
    bool single;
    if (nt_index_decode(c, idx, &count, &single) == NT_OK)
        nt_plan_index(plan, c->args[0].v.t, count, idx);
    else
        nt_clear_error(); /* the rule decodes it too, and says why */
}

/* How the results of c print when the loop rule runs it: self's order (the vmap rules that
 * keep self's layout), functorch's getitem for an index, else the dims first. */
static void plan_loop(const nt_call *c, nt_print_class cls, nt_print_plan *plan) {
    plan->len = -1;
    if (cls == NT_PRINT_SELF && c->args[0].kind == NT_ARG_TENSOR) {
        bool gone[NT_MAX_DIMS] = {false};
        nt_plan_self_less(plan, c->args[0].v.t, gone);
    }
    if (cls == NT_PRINT_INDEX) plan_index(c, plan);
}

/* How the results of c (run as `inner`) print: functorch's order for its class. */
static void plan_results(const nt_call *c, const nt_call *inner, const nt_op_slots *si,
                         nt_print_class cls, const batch_state *b, nt_print_plan *plan) {
    plan->len = -1;
    const nt_tensor *self = c->args[0].kind == NT_ARG_TENSOR ? c->args[0].v.t : NULL;
    const nt_tensor *r = inner->result[0] ? inner->result[0] : inner->nlist ? inner->list[0] : NULL;
    int npos = r ? r->ndim - b->u.n : 0;
    if (cls == NT_PRINT_UNION) {
        nt_plan_union(plan, c);
    } else if (cls == NT_PRINT_SELF && self) {
        bool gone[NT_MAX_DIMS];
        gone_dims(c, inner, si, b, gone);
        nt_plan_self_less(plan, self, gone);
    } else if (cls == NT_PRINT_PERMUTE && self && r) {
        nt_plan_dims_first(plan, self, npos);
    } else if (cls == NT_PRINT_INDEX && self) {
        plan_index(c, plan);
    }
}

/* ------------------------------------------------------------------ the levels step */

static int rule_of(const nt_call *c, const nt_op_row *row, const nt_op_slots *si) {
    if (row->batch != NT_BATCH_BY_KIND) return row->batch;
    switch (row->kind) {
    case NT_OPK_POINTWISE:
        return NT_BATCH_POINTWISE;
    case NT_OPK_REDUCE:
    case NT_OPK_SCAN:
        return reduce_applies(c, row, si) ? NT_BATCH_BY_KIND : NT_BATCH_LOOP;
    case NT_OPK_VIEW:
        return NT_BATCH_SHIFT;
    case NT_OPK_JOIN:
        return si->slots[0].kind == NT_ARG_TENSORS ? NT_BATCH_JOIN : NT_BATCH_SHIFT;
    default:
        return NT_BATCH_LOOP;
    }
}

/* An out= tensor aligned to the result's dims, checked to have the result's shape (a view
 * cannot be resized). */
static nt_status align_out(nt_call *inner, const nt_op_row *row, batch_state *b) {
    nt_dim_union kept = {0};
    for (int i = 0; i < b->u.n; i++)
        if (!b->removed[i]) kept.dims[kept.n++] = b->u.dims[i];
    nt_call probe = *inner;
    probe.out[0] = probe.out[1] = NULL;
    int ndim;
    int64_t sizes[NT_MAX_DIMS];
    NT_TRY(nt_op_result_shape(&probe, &ndim, sizes));
    for (int k = 0; k < 2 && inner->out[k]; k++) {
        nt_tensor *o = inner->out[k];
        for (int i = 0; i < kept.n; i++)
            if (nt_levels_find(o, kept.dims[i]) < 0)
                return nt_fail(NT_ERR_RUNTIME, "%s: the out= tensor lacks the result's dim %s",
                               row->name, kept.dims[i]->name);
        if (nt_tensor_nlevels(o) != kept.n)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s: the out= tensor has first-class dims the result does not have",
                           row->name);
        NT_TRY(nt_dims_align(o, &kept, 0, 0, &b->outs[k]));
        if (b->outs[k]->ndim != ndim ||
            memcmp(b->outs[k]->sizes, sizes, (size_t)ndim * sizeof *sizes) != 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s: an out= tensor with first-class dims must have the result's "
                           "shape (it cannot be resized)",
                           row->name);
        inner->out[k] = b->outs[k];
    }
    return NT_OK;
}

/* PHYSICAL: the call on the tensors as they are; a new result takes self's dims, printed as
 * self's. */
static nt_status run_physical(nt_call *c, const nt_op_row *row) {
    NT_TRY(nt_dispatch_row(c, row));
    nt_tensor *self = c->args[0].v.t, *r = c->result[0];
    if (!r || r == self || r->levels) return NT_OK;
    nt_status st =
        nt_levels_attach_at(r, self->levels->n, self->levels->dims, nt_levels_at(self->levels));
    if (st != NT_OK) {
        nt_tensor_release(r);
        c->result[0] = NULL;
    }
    return st;
}

static nt_status run_rule(nt_call *inner, const nt_op_row *row, const nt_op_slots *si, int rule,
                          batch_state *b) {
    if (rule == NT_BATCH_MATMUL) {
        if (inner->inplace || inner->out[0])
            return not_implemented(row->name, "the in-place and out= forms do not take tensors "
                                              "with first-class dims");
        return run_matmul(inner, b);
    }
    if (rule == NT_BATCH_BY_KIND) NT_TRY(move_dim_slot(inner, row, si, b));
    if (rule == NT_BATCH_SHIFT || rule == NT_BATCH_PERMUTE)
        NT_TRY(shift_args(inner, si, facts_of(inner->op), rule, b));
    if (rule == NT_BATCH_JOIN || rule == NT_BATCH_STACK) NT_TRY(join_args(inner, si, rule, b));
    if (rule == NT_BATCH_INDEX) NT_TRY(index_args(inner, b));
    int pad_to = rule == NT_BATCH_POINTWISE || rule == NT_BATCH_BY_KIND ? b->np : -1;
    for (unsigned m = si->tensor_slots; m; m &= m - 1) {
        int i = __builtin_ctz(m);
        nt_arg *a = &inner->args[i];
        if (a->kind != NT_ARG_TENSOR) continue;
        if (rule != NT_BATCH_POINTWISE && rule != NT_BATCH_BY_KIND && i != 0) continue;
        int p = positional_rank(a->v.t);
        NT_TRY(nt_dims_align(a->v.t, &b->u, (pad_to >= 0 ? pad_to - p : 0) + b->pad_before, 0,
                             &b->views[i]));
        a->v.t = b->views[i];
    }
    if (inner->out[0]) NT_TRY(align_out(inner, row, b));
    return nt_dispatch_row(inner, row);
}

nt_status nt_dispatch_levels(nt_call *c, const nt_op_row *row) {
    const nt_op_slots *si = nt_op_slots_of(c->op);
    int rule = rule_of(c, row, si);
    if (rule == NT_BATCH_NONE)
        return not_implemented(row->name, "batching over first-class dims is not implemented "
                                          "for this op");
    if (rule == NT_BATCH_PHYSICAL) return run_physical(c, row);
    batch_state b;
    b.u.n = 0;
    b.np = 0;
    for (unsigned m = si->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        int n = a->kind == NT_ARG_TENSOR ? 1 : a->kind == NT_ARG_TENSORS ? a->n : 0;
        for (int i = 0; i < n; i++) {
            const nt_tensor *t = a->kind == NT_ARG_TENSOR ? a->v.t : a->v.tensors[i];
            NT_TRY(nt_dims_union_add(&b.u, t));
            int p = positional_rank(t);
            b.np = p > b.np ? p : b.np;
        }
    }
    if (si->dim_slots) NT_TRY(check_fc_dims(c, si, &b.u));
    bool written = c->inplace || c->out[0];
    bool dim_given = si->dim >= 0 && c->args[si->dim].kind != NT_ARG_NONE;
    nt_print_class cls = nt_print_class_of(c->op, rule, dim_given); /* before LOOP takes over */
    if ((rule == NT_BATCH_SHIFT || rule == NT_BATCH_PERMUTE) &&
        !shift_applies(c, si, facts_of(c->op)))
        rule = NT_BATCH_LOOP;
    if ((rule == NT_BATCH_JOIN || rule == NT_BATCH_STACK) && !join_applies(c, si))
        rule = NT_BATCH_LOOP;
    if (rule == NT_BATCH_INDEX && !index_applies(c)) rule = NT_BATCH_LOOP;
    nt_print_plan plan;
    if (rule == NT_BATCH_LOOP) {
        plan_loop(c, cls, &plan);
        return nt_dims_loop(c, row, &b.u, &plan);
    }
    if (written && (rule == NT_BATCH_SHIFT || rule == NT_BATCH_PERMUTE || rule == NT_BATCH_INDEX))
        return not_implemented(row->name, "the in-place form of a view does not take tensors "
                                          "with first-class dims");
    if (c->inplace) NT_TRY(nt_dims_check_written(c, row->name, &b.u));
    memset(b.removed, 0, sizeof b.removed);
    memset(b.views, 0, sizeof b.views);
    b.outs[0] = b.outs[1] = NULL;
    b.list = NULL;
    b.nlist = 0;
    b.pad_before = 0;
    b.used = 0;
    nt_call inner = *c;
    nt_status st = run_rule(&inner, row, si, rule, &b);
    for (int i = 0; i < NT_CALL_MAX_ARGS; i++)
        nt_tensor_release(b.views[i]);
    for (int i = 0; i < 2; i++)
        nt_tensor_release(b.outs[i]);
    for (int i = 0; i < b.nlist; i++)
        nt_tensor_release(b.list[i]);
    free(b.list);
    if (st != NT_OK)
        return rule == NT_BATCH_SHIFT || rule == NT_BATCH_PERMUTE ? positional_error(c, row, st)
                                                                  : st;
    if (written) { /* the results are views of self or out: return those */
        nt_tensor *w[2] = {c->inplace ? c->args[0].v.t : c->out[0], c->out[1]};
        for (int k = 0; k < 2; k++) {
            nt_tensor_release(inner.result[k]);
            c->result[k] = inner.result[k] && w[k] ? nt_tensor_retain(w[k]) : NULL;
        }
        c->value = inner.value;
        return NT_OK;
    }
    plan_results(c, &inner, si, cls, &b, &plan);
    c->result[0] = inner.result[0];
    c->result[1] = inner.result[1];
    c->list = inner.list;
    c->nlist = inner.nlist;
    c->value = inner.value;
    st = give_levels(c->result[0], &b, &plan);
    if (st == NT_OK) st = give_levels(c->result[1], &b, &plan);
    for (int64_t i = 0; st == NT_OK && i < c->nlist; i++)
        st = give_levels(c->list[i], &b, &plan);
    if (st != NT_OK) nt_call_results_clear(c);
    return st;
}
