/*
 * index_kernels.h — the loops of the indexing family (layer L3): the gather and scatter of
 * advanced indexing, masked_fill's fill and select, masked_select's count and compaction,
 * nonzero's count and coordinates.
 *
 * Moving elements only moves bits, so every loop exists per element size (1, 2, 4, 8
 * bytes), picked by nt_index_*_loop(size); the ops (ops/index.c, ops/mask.c) convert values
 * to the tensor's dtype first. Loops never fail and never allocate: masked_fill's loops
 * flag a mask byte above 1 (a non-bool mask, which PyTorch refuses) in ctx->bad, and the
 * op raises the error after the run.
 */
#ifndef NT_KERNELS_INDEX_KERNELS_H
#define NT_KERNELS_INDEX_KERNELS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"
#include "iter/iter.h"

/* Gather (operand 0 written, 1 read at a byte offset from operand 2, an int64 tensor) or
 * scatter (operand 0 written at the offset from operand 2, 1 read). */
nt_loop2d nt_index_gather_loop(size_t elem_size, bool scatter);
/* The scatter with accumulation (operand 0 at the offset += operand 1) for `dtype`: offsets
 * may repeat, so the caller runs it on one thread. */
nt_loop2d nt_index_accumulate_loop(nt_dtype dtype);

/* masked_fill's context: the value's bits in the tensor's dtype. */
typedef struct nt_mask_fill_ctx {
    uint64_t value;
    bool check; /* a non-bool mask: bytes above 1 are an error (flagged in *bad) */
    bool blend; /* in place, self's elements distinct: unmasked ones rewritten with
                   themselves (a plain blend vectorises; masked stores are slow) */
    _Atomic int *bad;
} nt_mask_fill_ctx;

/* In place (operands: self, mask) or out of place (out, self, mask): value where the mask
 * byte is non-zero. ctx is an nt_mask_fill_ctx. */
nt_loop2d nt_mask_fill_loop(size_t elem_size, bool inplace);

/* masked_select's two passes over n elements of a row: the count of non-zero mask bytes
 * (stride mask_stride, in bytes), then the copy of the selected elements of src (stride
 * src_stride) to dst, packed; returns dst past the last one written. */
int64_t nt_mask_count_row(const char *mask, int64_t mask_stride, int64_t n);
char *nt_mask_compact_row(char *dst, const char *src, int64_t src_stride, const char *mask,
                          int64_t mask_stride, int64_t n, size_t elem_size);
/* masked_scatter's row: the packed elements at src written, in order, to the elements of dst
 * (stride dst_stride) whose mask byte is not zero; returns src past the last one read. */
const char *nt_mask_expand_row(char *dst, int64_t dst_stride, const char *mask, int64_t mask_stride,
                               int64_t n, const char *src, size_t elem_size);

/* nonzero's two passes over every element of a tensor of `dtype`: ndim dims of `sizes` at
 * `byte_strides` from `base` (ndim 0: the one element at base; no size is 0). An element
 * counts when it is not zero (floats: neither 0.0 nor -0.0; NaN counts). With dst NULL,
 * returns the count; else also writes each one's coordinates to dst, ndim int64 each, in
 * row-major order. */
int64_t nt_nonzero_pass(nt_dtype dtype, const char *base, int ndim, const int64_t *sizes,
                        const int64_t *byte_strides, int64_t *dst);

#endif
