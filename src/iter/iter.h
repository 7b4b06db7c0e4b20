/*
 * iter.h — the strided iterator (layer L2): the one engine under every elementwise op.
 *
 * An iterator is built once from N operands (outputs first, then inputs), each with its
 * own dtype, base pointer and strides. Building does all the validation an op needs —
 * PyTorch's memory-overlap errors, broadcasting, the outputs' shapes — so that running
 * never fails. The layout is then simplified the way NumPy's nditer and PyTorch's
 * TensorIterator do it:
 *
 *   broadcast -> byte strides (0 for broadcast dims) -> drop size-1 dims
 *   -> reorder (smallest output stride innermost, ties broken by the inputs)
 *   -> coalesce dims that are contiguous with each other for every operand
 *
 * and run calls a 2-D inner loop, NumPy-style:
 *
 *   loop(data, strides, n_inner, n_outer, ctx)
 *     data[k]            operand k's pointer at the block's first element
 *     strides[k]         operand k's byte stride along the inner dim
 *     strides[nops + k]  operand k's byte stride along the outer dim
 *
 * Large iterations are split by linear index across threads (nt_parallel_for); a block
 * never crosses a thread's range, and each element is visited exactly once, so results do
 * not depend on the thread count. The loop may run on several threads at once with the
 * same ctx: it must treat ctx as read-only.
 */
#ifndef NT_ITER_ITER_H
#define NT_ITER_ITER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"

/* The most operands one iterator takes (outputs and inputs together). */
#define NT_ITER_MAX_OPS 8

typedef void (*nt_loop2d)(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                          void *ctx);

typedef struct nt_iter_config {
    int noutputs;           /* the first `noutputs` operands are written */
    bool check_mem_overlap; /* PyTorch's "unsupported operation: ..." checks on outputs */
} nt_iter_config;

/* One output, overlap checks on: what most ops want. */
static inline nt_iter_config nt_iter_defaults(void) {
    nt_iter_config c = {.noutputs = 1, .check_mem_overlap = true};
    return c;
}

typedef struct nt_iter {
    int nops;
    int noutputs;
    int64_t numel; /* elements visited (0: run calls nothing) */

    /* The broadcast shape, in the operands' dim order (what an op allocates its output
     * with). The outputs have exactly this shape. */
    int out_ndim;
    int64_t out_shape[NT_MAX_DIMS];

    /* The simplified layout, innermost dim first: `ndim` dims of size shape[d], operand k
     * advancing strides[k][d] bytes along dim d. ndim is 0 for a single element. */
    int ndim;
    int64_t shape[NT_MAX_DIMS];
    int64_t strides[NT_ITER_MAX_OPS][NT_MAX_DIMS];
    char *data[NT_ITER_MAX_OPS];
    nt_dtype dtypes[NT_ITER_MAX_OPS];

    /* Where the layout came from, so that a caller (a reduction) can tell which broadcast
     * dims ended up where: perm[0..nperm) lists the broadcast dims of size > 1, innermost
     * first, and coalesced dim d is made of perm[first[d]] .. perm[first[d + 1] - 1]. */
    int nperm;
    int perm[NT_MAX_DIMS];
    int first[NT_MAX_DIMS + 1];
} nt_iter;

/* Validates the operands and computes the layout. `ops` has `nops` tensors, outputs first;
 * `cfg` may be NULL (nt_iter_defaults()). Errors, in PyTorch's order and words: memory
 * overlap of an output, shapes that do not broadcast, an output whose shape is not the
 * broadcast shape. */
nt_status nt_iter_build(nt_iter *it, int nops, nt_tensor *const *ops, const nt_iter_config *cfg);

/* Visits every element once, in parallel when large. Never fails. */
void nt_iter_run(const nt_iter *it, nt_loop2d loop, void *ctx);

/* Visits the linear indices [begin, end) of the layout (dim 0 fastest), on this thread. */
void nt_iter_run_range(const nt_iter *it, int64_t begin, int64_t end, nt_loop2d loop, void *ctx);

/* True when every operand is contiguous in the layout (at most one dim, each inner stride
 * its element size): the whole iteration is one flat run of numel elements. */
bool nt_iter_is_flat(const nt_iter *it);

/* The broadcast of n shapes (PyTorch's infer_size, from the right), with its error text
 * "The size of tensor a (3) must match the size of tensor b (4) at non-singleton
 * dimension 1". `shape` receives up to NT_MAX_DIMS sizes. */
nt_status nt_broadcast_shapes(int n, nt_tensor *const *ts, int *ndim, int64_t *shape);

/* An output written in place must have the broadcast shape (ndim, shape): "output with
 * shape [2, 1] doesn't match the broadcast shape [2, 3]". */
nt_status nt_fail_output_shape(const nt_tensor *t, int ndim, const int64_t *shape);
static inline nt_status nt_check_output_shape(const nt_tensor *t, int ndim, const int64_t *shape) {
    bool same = t->ndim == ndim;
    for (int d = 0; same && d < ndim; d++)
        same = t->sizes[d] == shape[d];
    return same ? NT_OK : nt_fail_output_shape(t, ndim, shape);
}

/* ---- memory overlap, with PyTorch's rules (ATen's MemOverlap) ---- */

/* NO: they share no element; FULL: same elements in the same order; PARTIAL: some shared;
 * TOO_HARD: cannot tell cheaply (a tensor is not dense), which PyTorch lets pass. */
typedef enum nt_overlap {
    NT_OVERLAP_NO,
    NT_OVERLAP_FULL,
    NT_OVERLAP_PARTIAL,
    NT_OVERLAP_TOO_HARD
} nt_overlap;

/* PyTorch's is_non_overlapping_and_dense: some permutation of the dims is contiguous. */
bool nt_is_non_overlapping_and_dense(const nt_tensor *t);
/* NO, YES (PARTIAL: a size>1 dim of stride 0) or TOO_HARD. */
nt_overlap nt_internal_overlap(const nt_tensor *t);
nt_overlap nt_overlap_status(const nt_tensor *a, const nt_tensor *b);
/* The errors PyTorch raises for a written tensor ("more than one element of the written-to
 * tensor refers to a single memory location") and for an output/input pair ("some
 * elements of the input tensor and the written-to tensor refer to a single memory
 * location"). */
nt_status nt_check_no_internal_overlap(const nt_tensor *t);
nt_status nt_check_no_partial_overlap(const nt_tensor *out, const nt_tensor *in);
/* True when the byte ranges the two tensors can touch intersect (same storage only):
 * a cheap, conservative test; false means they certainly share no byte. */
bool nt_extents_overlap(const nt_tensor *a, const nt_tensor *b);

#endif
