/*
 * embedding_kernels.h — embedding's row gather and its dense backward's row sums (layer
 * L3). Indices are int64 or int32 (`idx64`), already checked to lie in [0, rows of the
 * table); tables and gradients are contiguous rows of d elements. They never fail and never
 * allocate.
 */
#ifndef NT_KERNELS_EMBEDDING_KERNELS_H
#define NT_KERNELS_EMBEDDING_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The index at position i of an int64 or int32 index array. */
static inline int64_t nt_embedding_index(const void *idx, bool idx64, int64_t i) {
    return idx64 ? ((const int64_t *)idx)[i] : (int64_t)((const int32_t *)idx)[i];
}

/* out row i = table row idx[i], for i in [begin, end); a row is row_bytes bytes. */
void nt_embedding_gather(char *out, const char *table, size_t row_bytes, const void *idx,
                         bool idx64, int64_t begin, int64_t end);

/* out (num_weights x d, zeroed by the caller) += grad row i at row idx[i], for every i < n
 * whose index is not padding_idx, in order of i; scaled by 1 / count[idx[i]] when `count`
 * (occurrences per row) is given. float32 or float64 (`f64`). */
void nt_embedding_backward_rows(void *out, const void *grad, const void *idx, bool idx64, int64_t n,
                                int64_t d, int64_t padding_idx, const int64_t *count, bool f64);

#endif
