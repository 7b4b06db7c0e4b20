/*
 * batch_loop.c — the batching rule every op has (dims/batch.c's LOOP): one call per element
 * of the union of the call's first-class dims, on the positional parts of its tensors at that
 * element (views), the results stacked and given the union as their leading dims.
 *
 * It is functorch's (and vmap's) slow fallback: right for any op whose results have one shape
 * at every element (others fail with stack's own text), at the cost of one call per element.
 * The rules of batch.c cover the common ops in one call; this one covers the rest, and the
 * cases those rules leave (a None dim that means "every dim", dims on more than one tensor of
 * a view, index tensors with dims). An in-place call writes self's element views (self must
 * have every dim of the call) and adds one to its version, as any in-place call; out= is not
 * taken (an out= view cannot be resized). Autograd records the views and the stack like any
 * op, so gradients flow.
 */
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "dims/dims.h"
#include "dispatch/dispatch.h"
#include "ntensor/index.h"

nt_status nt_dims_check_written(const nt_call *c, const char *op, const nt_dim_union *u) {
    const nt_tensor *self = c->args[0].kind == NT_ARG_TENSOR ? c->args[0].v.t : NULL;
    for (int i = 0; self && i < u->n; i++)
        if (nt_levels_find(self, u->dims[i]) < 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s_: the tensor written in place lacks the first-class dim %s of "
                           "the other arguments",
                           op, u->dims[i]->name);
    return NT_OK;
}

/* t's positional part at element `at` of the union (its index along each union dim), a view;
 * t itself (a new reference) when it has no dims. */
static nt_status element_view(nt_tensor *t, const nt_dim_union *u, const int64_t *at,
                              nt_tensor **out) {
    int nl = nt_tensor_nlevels(t);
    if (nl == 0) {
        *out = nt_tensor_retain(t);
        return NT_OK;
    }
    int64_t offset = t->offset;
    for (int l = 0; l < nl; l++)
        offset += at[nt_dims_union_find(u, t->levels->dims[l])] * t->strides[l];
    return nt_dims_view(t, t->ndim - nl, t->sizes + nl, t->strides + nl, offset,
                        t->names ? t->names + nl : NULL, out);
}

/* parts[0..n-1] (one shape) stacked into one tensor whose leading dims are the union's. */
static nt_status stack_parts(nt_tensor **parts, int64_t n, const nt_dim_union *u,
                             const nt_print_plan *plan, nt_tensor **out) {
    nt_call s;
    nt_call_init(&s, NT_OP_STACK);
    for (int i = 0; i < NT_CALL_MAX_ARGS; i++)
        s.args[i] = nt_arg_none();
    s.args[0] = nt_arg_tensors((int)n, parts);
    s.args[1] = nt_arg_dim(0);
    NT_TRY(nt_dispatch(&s));
    nt_tensor *r = s.result[0];
    int ndim = u->n + r->ndim - 1;
    nt_status st = nt_dims_check_rank(ndim);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS] = {0};
    int64_t step = r->strides[0];
    for (int i = u->n - 1; i >= 0; i--) {
        sizes[i] = u->dims[i]->size;
        strides[i] = step;
        step *= sizes[i];
    }
    for (int i = 1; i < r->ndim; i++) {
        sizes[u->n + i - 1] = r->sizes[i];
        strides[u->n + i - 1] = r->strides[i];
        names[u->n + i - 1] = nt_tensor_name_at(r, i);
    }
    nt_tensor *v = NULL;
    st = nt_dims_view(r, ndim, sizes, strides, r->offset, r->names ? names : NULL, &v);
    nt_tensor_release(r);
    if (st == NT_OK) st = nt_levels_attach_plan(v, u->n, u->dims, plan);
    if (st != NT_OK) {
        nt_tensor_release(v);
        return st;
    }
    *out = v;
    return NT_OK;
}

typedef struct loop_state {
    int64_t count;      /* elements run */
    nt_tensor **res[2]; /* per element, the call's tensor results */
    nt_tensor ***lists; /* per element, its Tensor[] result */
    int64_t *nlists;
    nt_tensor **slot_list[NT_CALL_MAX_ARGS]; /* the element views of a Tensor[] argument */
} loop_state;

static void loop_free(loop_state *L, int64_t ran) {
    for (int k = 0; k < 2; k++) {
        for (int64_t e = 0; L->res[k] && e < ran; e++)
            nt_tensor_release(L->res[k][e]);
        free(L->res[k]);
    }
    for (int64_t e = 0; L->lists && e < ran; e++)
        nt_tensors_release(L->lists[e], L->nlists[e]);
    free(L->lists);
    free(L->nlists);
    for (int s = 0; s < NT_CALL_MAX_ARGS; s++)
        free(L->slot_list[s]);
}

/* One element: the call on the element views of every tensor argument. */
static nt_status run_element(const nt_call *c, const nt_op_row *row, const nt_op_slots *si,
                             const nt_dim_union *u, const int64_t *at, loop_state *L, int64_t e,
                             nt_scalar *value) {
    nt_call inner = *c;
    nt_tensor *views[NT_CALL_MAX_ARGS] = {0};
    int nviews[NT_CALL_MAX_ARGS] = {0};
    nt_status st = NT_OK;
    for (unsigned m = si->tensor_slots; st == NT_OK && m; m &= m - 1) {
        int s = __builtin_ctz(m);
        nt_arg *a = &inner.args[s];
        if (a->kind == NT_ARG_TENSOR) {
            st = element_view(a->v.t, u, at, &views[s]);
            if (st == NT_OK) a->v.t = views[s];
        } else if (a->kind == NT_ARG_TENSORS) {
            for (int i = 0; st == NT_OK && i < a->n; i++, nviews[s]++)
                st = element_view(a->v.tensors[i], u, at, &L->slot_list[s][i]);
            if (st == NT_OK) a->v.tensors = L->slot_list[s];
        }
    }
    if (st == NT_OK) st = nt_dispatch_row(&inner, row);
    for (int s = 0; s < NT_CALL_MAX_ARGS; s++) {
        nt_tensor_release(views[s]);
        for (int i = 0; i < nviews[s]; i++)
            nt_tensor_release(L->slot_list[s][i]);
    }
    if (st != NT_OK) return st;
    L->res[0][e] = inner.result[0];
    L->res[1][e] = inner.result[1];
    L->lists[e] = inner.list;
    L->nlists[e] = inner.nlist;
    *value = inner.value;
    if (inner.nlist != L->nlists[0])
        return nt_fail(NT_ERR_RUNTIME,
                       "%s: its results over first-class dims have different "
                       "lengths (%lld and %lld)",
                       row->name, (long long)L->nlists[0], (long long)inner.nlist);
    return NT_OK;
}

/* The stacked results of the loop into c. */
static nt_status gather_results(nt_call *c, const nt_dim_union *u, const nt_print_plan *plan,
                                loop_state *L) {
    for (int k = 0; k < 2; k++)
        if (L->res[k][0]) NT_TRY(stack_parts(L->res[k], L->count, u, plan, &c->result[k]));
    int64_t n = L->nlists[0];
    if (!L->lists[0]) return NT_OK;
    nt_tensor **parts = malloc((size_t)L->count * sizeof *parts);
    c->list = calloc((size_t)(n > 0 ? n : 1), sizeof *c->list);
    nt_status st = parts && c->list ? NT_OK : nt_fail_oom((size_t)L->count * sizeof *parts);
    for (int64_t j = 0; st == NT_OK && j < n; j++) {
        for (int64_t e = 0; e < L->count; e++)
            parts[e] = L->lists[e][j];
        st = stack_parts(parts, L->count, u, plan, &c->list[j]);
        c->nlist = j + 1;
    }
    free(parts);
    return st;
}

nt_status nt_dims_loop(nt_call *c, const nt_op_row *row, const nt_dim_union *u,
                       const nt_print_plan *plan) {
    const nt_op_slots *si = nt_op_slots_of(c->op);
    for (int s = 0; s < si->nslots; s++) {
        const nt_arg *a = &c->args[s];
        bool fc = a->kind == NT_ARG_DIM && nt_dim_is_fc(a->v.dim);
        for (int i = 0; a->kind == NT_ARG_DIMS && i < a->n; i++)
            fc = fc || nt_dim_is_fc(a->v.dims[i]);
        if (fc)
            return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                           "%s: a first-class dim as its dim argument is not supported", row->name);
    }
    if (c->out[0])
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "%s: the out= form does not take tensors with first-class dims", row->name);
    if (c->inplace) NT_TRY(nt_dims_check_written(c, row->name, u));
    int64_t total = 1;
    for (int i = 0; i < u->n; i++)
        if (__builtin_mul_overflow(total, u->dims[i]->size, &total))
            return nt_fail(NT_ERR_RUNTIME, "the sizes of the first-class dims overflow");
    if (total == 0)
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "%s: batching over a first-class dim of size 0 is not supported for this "
                       "op",
                       row->name);
    bool no_tensor = nt_op_shape_rule(c->op) == NT_SHAPE_NO_TENSOR;
    loop_state L;
    memset(&L, 0, sizeof L);
    L.count = no_tensor ? 1 : total; /* a query (numel, dim, ...) reads one element's part */
    size_t n = (size_t)L.count;
    L.res[0] = calloc(n, sizeof *L.res[0]);
    L.res[1] = calloc(n, sizeof *L.res[1]);
    L.lists = calloc(n, sizeof *L.lists);
    L.nlists = calloc(n, sizeof *L.nlists);
    nt_status st = L.res[0] && L.res[1] && L.lists && L.nlists ? NT_OK : nt_fail_oom(n * 8);
    for (int s = 0; st == NT_OK && s < si->nslots; s++)
        if (c->args[s].kind == NT_ARG_TENSORS && c->args[s].n > 0) {
            L.slot_list[s] = calloc((size_t)c->args[s].n, sizeof *L.slot_list[s]);
            if (!L.slot_list[s]) st = nt_fail_oom((size_t)c->args[s].n * sizeof(void *));
        }
    nt_tensor *self = c->inplace ? c->args[0].v.t : NULL;
    int64_t version = self ? atomic_load(&self->storage->version) : 0;
    int64_t at[NT_MAX_DIMS] = {0}, ran = 0;
    nt_scalar value = {0};
    for (int64_t e = 0; st == NT_OK && e < L.count; e++) {
        st = run_element(c, row, si, u, at, &L, e, &value);
        ran = e + 1;
        for (int i = u->n - 1; i >= 0; i--) { /* the next element, row-major */
            if (++at[i] < u->dims[i]->size) break;
            at[i] = 0;
        }
    }
    if (st == NT_OK && self) {
        atomic_store(&self->storage->version, version + 1);
        c->result[0] = nt_tensor_retain(self);
    } else if (st == NT_OK && no_tensor) {
        c->value = value;
    } else if (st == NT_OK) {
        st = gather_results(c, u, plan, &L);
        if (st != NT_OK) nt_call_results_clear(c);
    }
    loop_free(&L, ran);
    return st;
}
