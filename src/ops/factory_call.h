/*
 * factory_call.h — what the public functions and the row functions of the factory, random
 * and conversion ops share: reading a call record's optional slots and handing back its
 * result. Internal; static inline, so the public path stays a struct fill and a dispatch.
 */
#ifndef NT_OPS_FACTORY_CALL_H
#define NT_OPS_FACTORY_CALL_H

#include "core/status.h"
#include "dispatch/dispatch.h"
#include "names/names.h"

/* Dispatches c; on success its tensor result goes to *out (released when out is NULL). */
static inline nt_status nt_dispatch_result(nt_call *c, nt_tensor **out) {
    nt_status st = nt_dispatch(c);
    if (st != NT_OK) return st;
    if (out)
        *out = c->result[0];
    else
        nt_tensor_release(c->result[0]);
    return NT_OK;
}

/* A dtype slot that always holds `d`, valid or not (the op reports an invalid one). */
static inline nt_arg nt_arg_dtype_given(nt_dtype d) {
    nt_arg a;
    a.kind = NT_ARG_DTYPE;
    a.n = 0;
    a.ellipsis = -1;
    a.v.dtype = d;
    return a;
}

/* A call of a sized row (size, names, dtype: empty, zeros, ones, rand, randn) into *out. */
static inline nt_status nt_sized_call(nt_op op, int ndim, const int64_t *sizes, nt_dtype dtype,
                                      const nt_name *names, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_ints(ndim, sizes);
    c.args[1] = names ? nt_arg_names(ndim, names, -1) : nt_arg_none();
    c.args[2] = nt_arg_dtype_given(dtype);
    return nt_dispatch_result(&c, out);
}

/* Slot values, or the default when the slot was not given. */
static inline const nt_name *nt_call_names(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_NAMES ? c->args[i].v.names : NULL;
}
static inline nt_dtype nt_call_dtype(const nt_call *c, int i, nt_dtype fallback) {
    return c->args[i].kind == NT_ARG_DTYPE ? c->args[i].v.dtype : fallback;
}
/* -1 (keep the input's) when not given, as the *_like functions take it. */
static inline int nt_call_dtype_or_keep(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_DTYPE ? (int)c->args[i].v.dtype : -1;
}
static inline double nt_call_float(const nt_call *c, int i, double fallback) {
    return c->args[i].kind == NT_ARG_FLOAT ? c->args[i].v.f : fallback;
}
/* A names slot: the names, their count checked against the tensor's ndim (PyTorch's
 * text) when given. */
static inline nt_status nt_call_names_for(const nt_call *c, int i, int ndim, const nt_name **out) {
    *out = nt_call_names(c, i);
    if (*out && c->args[i].n != ndim) return nt_names_check_for(ndim, c->args[i].n, *out);
    return NT_OK;
}

/* The out= of a sized factory (factory.c): a dtype given in slot `dtype` must be out's
 * ("dtype Float does not match dtype of out parameter (Int)"); out is resized to slot
 * `size` (resize_, no warning, as PyTorch's factories do) and becomes the result. */
nt_status nt_factory_out(nt_call *c, int size, int dtype);

#endif
