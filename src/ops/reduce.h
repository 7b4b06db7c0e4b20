/*
 * reduce.h — what the reduction files share (reduce_shared.c): PyTorch's "not implemented"
 * error, dim arguments resolved, the output of an op with out= (resized, names checked, a
 * temporary when needed); the plan and the engine that folds along it are
 * iter/reduce_engine.h's. The ops: reduce.c (sum, mean, prod, var/std, logsumexp,
 * all/any, amax/amin), reduce_arg.c (max/min with indices, argmax/argmin), reduce_sort.c
 * (median, mode, kthvalue, topk), scan.c (cumsum, cumprod, logcumsumexp, cummax, cummin)
 * and softmax.c.
 */
#ifndef NT_OPS_REDUCE_H
#define NT_OPS_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "iter/reduce_engine.h"
#include "kernels/reduce_kernels.h"

/* '"<kernel>" not implemented for '<dtype>'', NT_ERR_RUNTIME. */
nt_status nt_red_not_implemented(const char *kernel, nt_dtype dtype);

/* The shape of reducing `t` over the dims in `mask` (keepdim: size one instead of gone). */
void nt_red_out_shape(const nt_tensor *t, uint64_t mask, bool keepdim, int *ndim, int64_t *sizes);

/* Resolves `count` dim arguments (indices or names) of t: names to their index, indices
 * kept as given (wrapped later, with the list's checks). */
nt_status nt_red_dims(const nt_tensor *t, int count, const nt_dim *dims, int64_t *out);
/* The mask of the dims a reduction over `count` dims (indices or names; none: every dim)
 * removes, with PyTorch's checks of the list (range, repeats). */
nt_status nt_red_dims_mask(const nt_tensor *t, int count, const nt_dim *dims, uint64_t *mask);
/* One dim argument resolved and wrapped into [0, ndim) (a 0-dim tensor takes 0 and -1). */
nt_status nt_red_dim(const nt_tensor *t, nt_dim dim, int64_t *out);

/* PyTorch's check of an out= tensor's dtype in max/min(dim) and argmax ("Expected out
 * tensor to have dtype float, but got double instead"). */
nt_status nt_red_check_out_dtype(const nt_tensor *out, nt_dtype want);

/* Hands a dispatched call's results to a public function's out pointers (NULL: released);
 * returns st. */
static inline nt_status nt_red_results(nt_status st, nt_call *c, nt_tensor **a, nt_tensor **b) {
    if (st != NT_OK) return st;
    if (a)
        *a = c->result[0];
    else
        nt_tensor_release(c->result[0]);
    if (b)
        *b = c->result[1];
    else
        nt_tensor_release(c->result[1]);
    return NT_OK;
}

/* Where an op writes a result of `dtype` and shape (ndim, sizes) with `names` (NULL:
 * unnamed): a new tensor when `into` is NULL, else `into` itself when its dtype and shape
 * match and it shares no memory with `input` (NULL: nothing to check), else a temporary
 * that nt_red_finish copies into `into`. Applies the out= rules first, in PyTorch's order
 * (the caller checked dtypes): `into` is resized to the result's shape (ops/out.h), then a
 * named `into` must have exactly `names`. */
nt_status nt_red_prepare(nt_tensor *into, const nt_tensor *input, nt_dtype dtype, int ndim,
                         const int64_t *sizes, const nt_name *names, nt_tensor **result);

/* Completes an op that used nt_red_prepare: with `into`, copies a temporary into it,
 * gives an unnamed `into` the computed names, bumps its version and releases the
 * temporary; *out (if not NULL) receives a new reference to the op's tensor. On failure
 * (st != NT_OK), releases what prepare made. Returns st or a later failure. */
nt_status nt_red_finish(nt_status st, nt_tensor *into, nt_tensor *result, const nt_name *names,
                        nt_tensor **out);

#endif
