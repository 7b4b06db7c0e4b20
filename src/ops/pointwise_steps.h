/*
 * pointwise_steps.h — the steps the pointwise ops with several operands share (layer L4,
 * internal): operands converted to the compute dtype, the checks on the tensor an op writes
 * (PyTorch's order: an out= tensor is resized, an in-place self is not), running a loop into
 * it, and filling and finishing a call record. Defined in binary.c; used by binary.c (the
 * binary ops) and ternary.c (where, clamp, threshold, addcmul/addcdiv, lerp).
 */
#ifndef NT_OPS_POINTWISE_STEPS_H
#define NT_OPS_POINTWISE_STEPS_H

#include "iter/iter.h"
#include "ntensor.h"

/* An operand prepared for the loop: a tensor of the compute dtype (owned: released by the
 * caller), or a scalar element of the compute dtype. */
typedef struct nt_pw_prepared {
    nt_tensor *tensor; /* NULL: scalar */
    bool owned;
    uint64_t element[2]; /* the scalar as one element of the compute dtype (16 aligned bytes) */
} nt_pw_prepared;

void nt_pw_prepared_release(nt_pw_prepared *p);
/* A tensor `t` read as `dtype` for writing into `target`: itself when it already is that
 * dtype and cannot be corrupted by the writes, else a converted private copy. */
nt_status nt_pw_prepare_tensor(nt_tensor *t, nt_dtype dtype, const nt_tensor *target,
                               nt_pw_prepared *p);

/* "\"<kernel>\" not implemented for '<dtype>'". */
nt_status nt_pw_not_implemented(const char *kernel, nt_dtype dtype);
/* The checks on the tensor an op writes against the result of shape bndim/shape, names
 * and dtype `result`: an out= tensor (is_out) castability, resize, names; an in-place self
 * shape, names, castability. */
nt_status nt_pw_check_target(nt_tensor *target, bool is_out, int bndim, const int64_t *shape,
                             const nt_name *names, int ndim, nt_dtype result);
/* Gives an unnamed target the computed names. */
nt_status nt_pw_name_target(nt_tensor *target, const nt_name *names);
/* The last step of an op that wrote `target` (*fresh: the new tensor it made, or NULL when it
 * wrote out= or self): an out= or self target takes the names, and *result gets the
 * written tensor (a new reference; *fresh is handed over and cleared). */
nt_status nt_pw_hand_back(nt_tensor *target, nt_tensor **fresh, const nt_name *names,
                          nt_tensor **result);
/* Runs `loop` over ops[0..nops) (ops[0] the output, set here) with ctx into target, through
 * a temporary when target's dtype is not loop_out. */
nt_status nt_pw_run_into(nt_tensor *target, nt_dtype loop_out, int nops, nt_tensor **ops,
                         nt_loop2d loop, void *ctx);
/* The broadcast shape of up to four optional tensors. */
nt_status nt_pw_broadcast_of(int n, nt_tensor *const *ts, int *ndim, int64_t *shape);

/* A call slot as an operand, an operand as a call slot. */
nt_operand nt_pw_operand_of(const nt_arg *a);
nt_arg nt_pw_operand_arg(nt_operand o);
/* Hands back the call's result (result NULL: released) after a dispatch. */
nt_status nt_pw_finish(nt_status st, nt_call *c, nt_tensor **result);

#endif
