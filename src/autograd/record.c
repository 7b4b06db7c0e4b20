/*
 * record.c — the dispatcher's autograd path: runs a call whose inputs may require grad and
 * records its node.
 *
 * The op itself always runs with grad mode off, so that an op built from other public ops is
 * recorded once, as itself. An in-place op on a recorded view rewrites the history of the
 * view's base (copy_slices.c). A result that is one of the inputs (x.cpu(), x.contiguous() of a
 * contiguous x) keeps that input's history.
 */
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "core/status.h"
#include "dispatch/dispatch.h"

/* Runs the op with grad mode off (dispatch.c keeps the versions). */
static nt_status run(nt_call *c, const nt_op_row *row) {
    bool was = nt_set_grad_enabled(false);
    nt_status st = c->inplace || c->out[0] ? nt_dispatch_written(c, row) : row->impl(c);
    if (st == NT_OK && !c->inplace && !c->out[0]) nt_call_fresh_versions(c);
    nt_set_grad_enabled(was);
    return st;
}

/* The flat inputs of c (tensor slots in order, lists expanded), into in[0..*n) when it fits
 * (cap), and whether any requires grad. */
static bool flat_inputs(const nt_call *c, nt_tensor **in, int cap, int *n) {
    bool any = false;
    int k = 0;
    for (unsigned m = nt_op_slots_of(c->op)->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        int count = a->kind == NT_ARG_TENSOR ? 1 : a->kind == NT_ARG_TENSORS ? a->n : 0;
        for (int i = 0; i < count; i++, k++) {
            nt_tensor *t = a->kind == NT_ARG_TENSOR ? a->v.t : a->v.tensors[i];
            any |= nt_ag_requires(t);
            if (k < cap) in[k] = t;
        }
    }
    *n = k;
    return any;
}

static size_t list_bytes(const nt_arg *a) {
    switch (a->kind) {
    case NT_ARG_DIMS:
        return (size_t)a->n * sizeof(nt_dim);
    case NT_ARG_INTS:
        return (size_t)a->n * sizeof(int64_t);
    case NT_ARG_NAMES:
        return (size_t)a->n * sizeof(nt_name);
    case NT_ARG_TENSORS:
        return (size_t)a->n * sizeof(nt_tensor *);
    case NT_ARG_STR:
        return strlen(a->v.str) + 1;
    default:
        return 0;
    }
}

/* Copies c into the node: lists and strings into one owned block, tensor slots cleared (the
 * saved ones are set by save_inputs). */
static nt_status copy_call(nt_node *n, const nt_call *c) {
    n->call = *c;
    n->call.out[0] = n->call.out[1] = NULL;
    n->call.result[0] = n->call.result[1] = NULL;
    n->call.list = NULL;
    size_t bytes = 0;
    int nslots = nt_op_slots_of(c->op)->nslots;
    for (int i = 0; i < nslots; i++)
        bytes += (list_bytes(&c->args[i]) + 7) & ~(size_t)7;
    char *p = bytes ? malloc(bytes) : NULL;
    if (bytes && !p) return nt_fail(NT_ERR_MEMORY, "out of memory");
    n->lists = p;
    for (int i = 0, k = 0; i < nslots; i++) {
        nt_arg *a = &n->call.args[i];
        size_t b = list_bytes(a);
        if (a->kind == NT_ARG_TENSOR) {
            n->first[i] = (int8_t)k;
            n->slot_of[k++] = i;
            a->v.t = NULL;
        } else if (b) {
            memcpy(p, a->kind == NT_ARG_STR ? (const void *)a->v.str : (const void *)a->v.ints, b);
            if (a->kind == NT_ARG_TENSORS) {
                memset(p, 0, b);
                n->first[i] = (int8_t)k;
                for (int j = 0; j < a->n; j++)
                    n->slot_of[k++] = i;
            }
            a->v.ints = (const int64_t *)p; /* the union's pointer members share the bytes */
            p += (b + 7) & ~(size_t)7;
        } else if (a->kind == NT_ARG_TENSORS) {
            n->first[i] = (int8_t)k;
        }
    }
    return NT_OK;
}

/* Saves the inputs the formula reads (a clone of self for an in-place op: the op overwrites
 * it) and records their versions. */
static nt_status save_inputs(nt_node *n, nt_tensor *const *in, bool inplace) {
    for (int k = 0; k < n->ninputs; k++) {
        int slot = n->slot_of[k];
        if (!(n->vjp->saves & (1u << slot))) continue;
        nt_tensor *t = in[k];
        if (inplace && slot == 0) {
            bool was = nt_set_grad_enabled(false);
            nt_status st = nt_clone(t, &n->saved[k]);
            nt_set_grad_enabled(was);
            NT_TRY(st);
        } else {
            n->saved[k] = nt_tensor_retain(t);
        }
        n->saved_version[k] = atomic_load(&n->saved[k]->storage->version);
        nt_arg *a = &n->call.args[slot];
        if (a->kind == NT_ARG_TENSOR)
            a->v.t = n->saved[k];
        else
            ((nt_tensor **)a->v.tensors)[k - n->first[slot]] = n->saved[k];
        n->had_saved = true;
    }
    return NT_OK;
}

/* The tensor a recorded view of t is a view of: t's own base, or t. */
static nt_tensor *view_root(nt_tensor *t) {
    return t->ag && t->ag->base ? t->ag->base : t;
}

/* Gives the outputs their history (and, for views, their base); saves the results the formula
 * reads. */
static nt_status attach(nt_node *n, nt_call *c, nt_tensor *const *in, int nout,
                        nt_tensor *const *outs) {
    nt_tensor *fl[nout > 0 ? nout : 1];
    for (int j = 0; j < nout; j++)
        fl[j] = outs[j] && nt_dtype_is_floating(outs[j]->dtype) ? outs[j] : NULL;
    NT_TRY(nt_node_set_outputs(n, nout, fl));
    for (int j = 0; j < nout; j++) {
        /* every result is saved, indices too (max(dim), topk, pooling read them) */
        if (n->vjp->saves_result && outs[j]) {
            nt_tensor *r = outs[j];
            NT_TRY(nt_tensor_view_of(r, r->ndim, r->sizes, r->strides, r->offset, r->names,
                                     &n->saved_out[j]));
            n->saved_out_version[j] = atomic_load(&r->storage->version);
            n->had_saved = true;
        }
        if (!fl[j]) continue;
        NT_TRY(nt_ag_set_history(fl[j], n, j));
        if (c->inplace) {
            /* a write into a view rewrites its base's history; an in-place view op (t_,
             * unsqueeze_, as_strided_) writes nothing: the view stays a view of its base,
             * its history the op's node */
            if (fl[j]->ag->base && nt_op_row_of(c->op)->kind != NT_OPK_VIEW)
                NT_TRY(nt_ag_rebase_view(fl[j], n));
        } else if (n->ninputs > 0 && in[0] && fl[j]->storage == in[0]->storage) {
            nt_tensor *root = view_root(in[0]);
            if (fl[j]->ag->base != root) {
                nt_tensor_release(fl[j]->ag->base);
                fl[j]->ag->base = nt_tensor_retain(root);
            }
        }
    }
    return NT_OK;
}

static bool any_floating(const nt_call *c) {
    bool any = (c->result[0] && nt_dtype_is_floating(c->result[0]->dtype)) ||
               (c->result[1] && nt_dtype_is_floating(c->result[1]->dtype));
    for (int64_t j = 0; j < c->nlist; j++)
        any |= nt_dtype_is_floating(c->list[j]->dtype);
    return any;
}

/* An op without a formula: its results have no history when none is a float tensor (x.long(),
 * an integer-valued result: not differentiable), and it fails when one is. */
static nt_status run_without_formula(nt_call *c, const nt_op_row *row) {
    nt_status st = c->inplace ? NT_OK : run(c, row);
    if (st != NT_OK || (!c->inplace && !any_floating(c))) return st;
    nt_tensors_release(c->list, c->nlist);
    nt_tensor_release(c->result[0]);
    nt_tensor_release(c->result[1]);
    c->list = NULL, c->nlist = 0, c->result[0] = c->result[1] = NULL;
    return nt_fail(NT_ERR_NOT_IMPLEMENTED, "the derivative for '%s' is not implemented.",
                   row->name);
}

static bool is_input(nt_tensor *t, nt_tensor *const *in, int nin) {
    for (int k = 0; k < nin; k++)
        if (in[k] == t) return true;
    return false;
}

static nt_status check_inplace(const nt_call *c) {
    nt_tensor *self = nt_call_tensor(c, 0);
    if (!self || !nt_ag_requires(self)) return NT_OK;
    if (nt_is_leaf(self))
        return nt_fail(
            NT_ERR_RUNTIME,
            "a leaf Variable that requires grad is being used in an in-place operation.");
    nt_tensor *base = self->ag->base;
    if (base && nt_ag_requires(base) && nt_is_leaf(base))
        return nt_fail(NT_ERR_RUNTIME, "a view of a leaf Variable that requires grad is being used "
                                       "in an in-place operation.");
    return NT_OK;
}

nt_status nt_dispatch_grad(nt_call *c, const nt_op_row *row) {
    nt_tensor *small[16], **in = small;
    int nin;
    if (!flat_inputs(c, small, 16, &nin) || !nt_ag_grad_mode()) return run(c, row);
    if (c->out[0])
        return nt_fail(NT_ERR_RUNTIME,
                       "%s(): functions with out=... arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad.",
                       row->name);
    if ((row->flags | row->extra_flags) & NT_OPF_NO_GRAD || row->dtypes == NT_DT_BOOL)
        return run(c, row);
    /* rename_ changes a tensor's names, not its data: as in PyTorch, nothing is recorded
     * (the history and grad_fn stay, a leaf stays a leaf) and the gradients take the names
     * the tensor has when it is used. */
    if (c->inplace && row->flags & NT_OPF_METADATA) return run(c, row);
    const nt_vjp_row *v = &nt_vjp_rows[c->op];
    if (v->composite) return v->composite(c);
    if (!v->fn) return run_without_formula(c, row);
    if (v->pick) v = v->pick(c);
    if (c->inplace) NT_TRY(check_inplace(c));
    if (nin > 16) {
        in = malloc((size_t)nin * sizeof *in);
        if (!in) return nt_fail(NT_ERR_MEMORY, "out of memory");
        flat_inputs(c, in, nin, &nin);
    }
    nt_status st = NT_ERR_MEMORY;
    nt_node *n = nt_node_alloc(v, nin, in);
    if (n && (st = copy_call(n, c)) == NT_OK && (st = save_inputs(n, in, c->inplace)) == NT_OK &&
        (!v->geometry || (st = nt_node_save_geometry(n, in[0])) == NT_OK))
        st = run(c, row);
    if (st == NT_OK) {
        int nout = c->list ? (int)c->nlist : c->result[1] ? 2 : 1;
        nt_tensor *const *outs = c->list ? c->list : c->result;
        bool passthrough = !c->inplace && nout == 1 && is_input(outs[0], in, nin);
        if (!passthrough) st = attach(n, c, in, nout, outs);
        if (st != NT_OK) { /* the results exist but cannot be recorded: give them back */
            nt_tensors_release(c->list, c->nlist);
            nt_tensor_release(c->result[0]);
            nt_tensor_release(c->result[1]);
            c->list = NULL, c->nlist = 0, c->result[0] = c->result[1] = NULL;
        }
    }
    nt_node_release(n);
    if (in != small) free(in);
    return st;
}
