/*
 * reduce_engine.h — the reduce engine (layer L2): the plan that splits a tensor's dims into
 * kept and reduced ones, and nt_red_run, which folds a tensor over its reduced dims with a
 * reduction kernel (kernels/reduce_kernels.h) on threads. The reductions, order statistics,
 * scans and softmax (src/ops) walk their outputs with the plan.
 */
#ifndef NT_ITER_REDUCE_ENGINE_H
#define NT_ITER_REDUCE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"
#include "kernels/reduce_kernels.h"

/* The dims of `t` split into kept and reduced ones (size-one dims dropped), each group
 * sorted by the input's absolute stride and coalesced; strides in bytes. Dims of the
 * output (which has the kept dims, keepdim or not) come with their output strides in up
 * to two outputs (out2 may be NULL). Innermost first. */
typedef struct nt_red_plan {
    int nk, nr;
    int64_t ks[NT_MAX_DIMS], kin[NT_MAX_DIMS], kout[NT_MAX_DIMS], kout2[NT_MAX_DIMS];
    int64_t rs[NT_MAX_DIMS], rin[NT_MAX_DIMS];
    int64_t nout, nred;
    const char *in;
    char *out, *out2;
} nt_red_plan;

void nt_red_plan_build(nt_red_plan *p, const nt_tensor *t, uint64_t mask, bool keepdim,
                       const nt_tensor *out, const nt_tensor *out2);

/* The offsets (bytes) of kept-space index `o` in the input, out and out2. */
void nt_red_plan_offsets(const nt_red_plan *p, int64_t o, int64_t *in, int64_t *out, int64_t *out2);

/* |x|, for comparing byte strides. */
static inline int64_t nt_red_abs64(int64_t x) {
    return x < 0 ? -x : x;
}

/* Folds `t` over the dims in `mask` into `out` (allocated with the reduction's shape and
 * dtype) with kernel k. */
nt_status nt_red_run(const nt_red_kernel *k, const nt_tensor *t, uint64_t mask, bool keepdim,
                     nt_tensor *out, const nt_red_params *prm);

#endif
