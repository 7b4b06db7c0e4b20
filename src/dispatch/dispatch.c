/*
 * dispatch.c — nt_call_op, the public generic entry of the dispatcher (dispatch.h): the
 * record is checked against the op's schema (a binding gets a clear error, never a crash,
 * for a malformed call), then dispatched like any other call.
 */
#include "dispatch.h"

#include <string.h>

#include "core/status.h"
#include "core/storage.h"
#include "core/tensor.h"

static const char *kind_name(int kind) {
    static const char *const names[] = {
        [NT_ARG_NONE] = "nothing",          [NT_ARG_TENSOR] = "a tensor",
        [NT_ARG_SCALAR] = "a number",       [NT_ARG_INT] = "an int",
        [NT_ARG_FLOAT] = "a float",         [NT_ARG_BOOL] = "a bool",
        [NT_ARG_DTYPE] = "a dtype",         [NT_ARG_DIM] = "a dim",
        [NT_ARG_DIMS] = "a list of dims",   [NT_ARG_INTS] = "a list of ints",
        [NT_ARG_NAMES] = "a list of names", [NT_ARG_TENSORS] = "a list of tensors",
        [NT_ARG_STR] = "a string",
    };
    return kind < 0 ? "a tensor or a number" : names[kind];
}

nt_status nt_call_check(const nt_call *c) {
    if (!c) return nt_fail(NT_ERR_VALUE, "a NULL call record");
    if ((unsigned)c->op >= NT_OP_COUNT) return nt_fail(NT_ERR_VALUE, "invalid op %d", (int)c->op);
    const nt_op_row *row = nt_op_row_of(c->op);
    const nt_op_slots *si = nt_op_slots_of(c->op);
    if (!si->ok) return nt_fail(NT_ERR_RUNTIME, "%s: the op's schema does not parse", row->name);
    unsigned flags = row->flags | row->extra_flags;
    if (c->inplace && !(flags & (NT_OPF_INPLACE | NT_OPF_INPLACE_FUNCTION)))
        return nt_fail(NT_ERR_VALUE, "%s has no in-place form", row->name);
    if ((c->out[0] || c->out[1]) && !(flags & NT_OPF_OUT))
        return nt_fail(NT_ERR_VALUE, "%s has no out= form", row->name);
    if (c->inplace && (c->out[0] || c->out[1]))
        return nt_fail(NT_ERR_VALUE, "%s_(): an in-place op takes no out tensor", row->name);
    for (int i = 0; i < si->nslots; i++) {
        const nt_arg *a = &c->args[i];
        int want = si->slots[i].kind;
        bool fits = (a->kind == NT_ARG_NONE && si->slots[i].allow_none) || (int)a->kind == want ||
                    (want < 0 && (a->kind == NT_ARG_TENSOR || a->kind == NT_ARG_SCALAR));
        if (!fits)
            return nt_fail(NT_ERR_TYPE, "%s(): argument %d must be %s, not %s", row->name, i,
                           kind_name(want), kind_name((int)a->kind));
        if (a->kind == NT_ARG_TENSOR && !a->v.t)
            return nt_fail(NT_ERR_TYPE, "%s(): argument %d is a NULL tensor", row->name, i);
        if ((a->kind == NT_ARG_DIMS || a->kind == NT_ARG_INTS || a->kind == NT_ARG_NAMES ||
             a->kind == NT_ARG_TENSORS) &&
            (a->n < 0 || (a->n > 0 && !a->v.ints)))
            return nt_fail(NT_ERR_VALUE, "%s(): argument %d: a list of %d entries at NULL",
                           row->name, i, (int)a->n);
    }
    return NT_OK;
}

nt_status nt_call_op(nt_call *c) {
    NT_TRY(nt_call_check(c));
    c->result[0] = c->result[1] = NULL;
    c->list = NULL;
    c->nlist = 0;
    return nt_dispatch(c);
}

nt_status nt_call_run(nt_call *c) {
    c->result[0] = c->result[1] = NULL;
    c->list = NULL;
    c->nlist = 0;
    return nt_dispatch(c);
}

int64_t nt_call_numel(const nt_call *c) {
    int64_t most = 0;
    for (unsigned m = nt_op_slots_of(c->op)->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        int64_t n = a->kind == NT_ARG_TENSOR ? a->v.t->numel : 0;
        for (int k = 0; a->kind == NT_ARG_TENSORS && k < a->n; k++)
            n += a->v.tensors[k]->numel;
        most = n > most ? n : most;
    }
    return most;
}

nt_status nt_dispatch_out(nt_call *c, const nt_op_row *row) {
    int nslots = nt_op_slots_of(c->op)->nslots; /* the slots a record fills */
    nt_tensor *given[NT_CALL_MAX_ARGS] = {NULL}, *views[NT_CALL_MAX_ARGS] = {NULL};
    nt_status st = NT_OK;
    for (int i = 0; i < nslots && st == NT_OK; i++) {
        nt_tensor *t = c->args[i].kind == NT_ARG_TENSOR ? c->args[i].v.t : NULL;
        if (!t || (t != c->out[0] && t != c->out[1])) continue;
        st = nt_tensor_view_of(t, t->ndim, t->sizes, t->strides, t->offset, t->names, &views[i]);
        if (st == NT_OK) {
            given[i] = t;
            c->args[i].v.t = views[i];
        }
    }
    if (st == NT_OK) st = row->impl(c);
    for (int i = 0; i < nslots; i++)
        if (views[i]) {
            c->args[i].v.t = given[i];
            nt_tensor_release(views[i]);
        }
    return st;
}

/* Whether t is one of c's tensor arguments (a result that is an input: x.contiguous()). */
static bool is_call_input(const nt_call *c, const nt_tensor *t) {
    for (unsigned m = nt_op_slots_of(c->op)->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        if (a->kind == NT_ARG_TENSOR && a->v.t == t) return true;
        for (int i = 0; a->kind == NT_ARG_TENSORS && i < a->n; i++)
            if (a->v.tensors[i] == t) return true;
    }
    return false;
}

static void fresh_version(const nt_call *c, nt_tensor *r) {
    if (r && atomic_load(&r->storage->refcount) == 1 && !is_call_input(c, r))
        atomic_store(&r->storage->version, 0);
}

void nt_call_fresh_versions(nt_call *c) {
    fresh_version(c, c->result[0]);
    fresh_version(c, c->result[1]);
    for (int64_t i = 0; c->list && i < c->nlist; i++)
        fresh_version(c, c->list[i]);
}

/* The tensor an in-place or out= call writes in its result slot i, or NULL. */
static nt_tensor *written(const nt_call *c, int i) {
    return c->out[i] ? c->out[i] : i == 0 && c->inplace ? nt_call_tensor(c, 0) : NULL;
}

nt_status nt_dispatch_written(nt_call *c, const nt_op_row *row) {
    if (c->inplace && row->flags & NT_OPF_METADATA) return row->impl(c);
    nt_tensor *w[2] = {written(c, 0), written(c, 1)};
    uint64_t before[2];
    for (int i = 0; i < 2; i++)
        before[i] = w[i] ? atomic_load(&w[i]->storage->version) : 0;
    nt_status st = c->out[0] ? nt_dispatch_out(c, row) : row->impl(c);
    for (int i = 0; st == NT_OK && i < 2; i++)
        if (w[i] && (i == 0 || w[1]->storage != w[0]->storage))
            atomic_store(&w[i]->storage->version, before[i] + 1);
    return st;
}
