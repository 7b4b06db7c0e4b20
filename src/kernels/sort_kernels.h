/*
 * sort_kernels.h — the per-row work of median, kthvalue, mode and topk (layer L3), for the
 * ops in ops/reduce_sort.c: gathering a row into (key, index) pairs, sorting them, and
 * picking the value and index each op reports (topk: the first k).
 *
 * The op plans the rows and runs them in parallel, giving each thread its scratch of
 * n * nt_sort_pair_size(dtype) bytes (the pairs and the merge sort's copy). Kernels never
 * fail and never allocate.
 */
#ifndef NT_KERNELS_SORT_KERNELS_H
#define NT_KERNELS_SORT_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"

typedef enum nt_sort_op { NT_SORT_MEDIAN, NT_SORT_KTH, NT_SORT_MODE, NT_SORT_TOPK } nt_sort_op;

typedef struct nt_sort_params {
    nt_sort_op op;
    nt_dtype dtype;
    int64_t n, stride;    /* the row: elements and input byte stride */
    int64_t k;            /* kthvalue (1-based) / topk count */
    bool largest;         /* topk */
    int64_t vstep, istep; /* topk: output byte strides along the dim */
} nt_sort_params;

/* Bytes of scratch per row element. */
size_t nt_sort_pair_size(nt_dtype dtype);

/* One row: the n elements at src (byte stride `stride`) sorted in `pairs` (scratch), the
 * op's value written to vout and its int64 index to iout (topk: k of each, at vstep/istep). */
void nt_sort_row(const nt_sort_params *s, void *pairs, const char *src, char *vout, char *iout);

#endif
