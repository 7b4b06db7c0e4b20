/*
 * dispatch.h — the one dispatcher every public op goes through (above layer L4).
 *
 * A public operator function (nt_abs, nt_sum, ...) fills an nt_call (ntensor/call.h) and
 * calls nt_dispatch, which runs the op's check and its family's function from the op table
 * (ops/op_table.h). This is the one place where first-class-dim batching and autograd
 * recording attach: with neither in use the path is a table load, an optional check and one
 * indirect call. nt_call_op, the public entry for generic callers (language bindings),
 * first validates the record against the op's schema.
 */
#ifndef NT_DISPATCH_DISPATCH_H
#define NT_DISPATCH_DISPATCH_H

#include "ops/op_table.h"

/* Runs a well-formed call (every slot of the op's schema filled with its kind or
 * NT_ARG_NONE); the typed public functions build such records. */
/* The out= path of nt_dispatch (dispatch.c): an out= tensor that is also an input is
 * resized by the op, so the op reads that input through a view taken before. */
nt_status nt_dispatch_out(nt_call *c, const nt_op_row *row);

/* The path of an in-place or out= call. The version counter is kept here, not by the
 * kernels: the tensor written ends exactly one version higher, as in PyTorch, however the
 * kernel wrote it (none for an NT_OPF_METADATA op: rename_, detach_, resize_). */
nt_status nt_dispatch_written(nt_call *c, const nt_op_row *row);

/* A fresh result starts at version 0, as PyTorch's, however often its op wrote it through
 * nested in-place calls (ones through fill_): memory no other tensor holds (a view or an
 * input shares its storage) has no history to keep. For a call neither in place nor out=. */
void nt_call_fresh_versions(nt_call *c);

/* The autograd layer's path (autograd/record.c), taken while some tensor requires grad:
 * nt_ag_live counts them. */
extern _Atomic int64_t nt_ag_live;
nt_status nt_dispatch_grad(nt_call *c, const nt_op_row *row);

/* The first-class dims layer's path (dims/batch.c), taken once a tensor with levels or a
 * first-class dim was made (nt_levels_made) and the call has such a tensor or a first-class
 * dim argument: it aligns the arguments' dims, calls nt_dispatch_row on ordinary views and
 * gives the results their levels (a dim argument that no tensor has is an error). */
extern _Atomic bool nt_levels_made;
bool nt_call_has_levels(const nt_call *c);
nt_status nt_dispatch_levels(nt_call *c, const nt_op_row *row);

/* nt_dispatch past the levels step: the call's tensors have none. */
static inline nt_status nt_dispatch_row(nt_call *c, const nt_op_row *row) {
    if (row->check) {
        nt_status st = row->check(c);
        if (st != NT_OK) return st;
    }
    if (__builtin_expect(atomic_load_explicit(&nt_ag_live, memory_order_relaxed) != 0, 0))
        return nt_dispatch_grad(c, row);
    if (c->inplace || c->out[0]) return nt_dispatch_written(c, row);
    return row->impl(c);
}

static inline nt_status nt_dispatch(nt_call *c) {
    const nt_op_row *row = nt_op_row_of(c->op);
    if (__builtin_expect(atomic_load_explicit(&nt_levels_made, memory_order_relaxed), 0) &&
        nt_call_has_levels(c))
        return nt_dispatch_levels(c, row);
    return nt_dispatch_row(c, row);
}

/* nt_call_op's check of a record against its op's schema: a valid op, forms the op has,
 * every slot of the kind its schema names (or none where it allows none), no NULL tensor
 * or list. */
nt_status nt_call_check(const nt_call *c);

/* A call record with its results cleared, for op `op`. */
static inline void nt_call_init(nt_call *c, nt_op op) {
    c->op = op;
    c->inplace = false;
    c->out[0] = c->out[1] = NULL;
    c->result[0] = c->result[1] = NULL;
    c->list = NULL;
    c->nlist = 0;
}

/* Slot i of c, or NULL when it was not given. */
static inline nt_tensor *nt_call_tensor(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_TENSOR ? c->args[i].v.t : NULL;
}

#endif
