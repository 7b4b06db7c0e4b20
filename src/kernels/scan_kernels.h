/*
 * scan_kernels.h — the line kernels of the scans (layer L3): cumsum, cumprod,
 * logcumsumexp, cummax and cummin, for the ops in ops/scan.c.
 *
 * A scan walks a line of n elements (input byte stride `is`, output byte stride `os`) and
 * writes each running value. Sums and products also have a lanes form, for a dim that is
 * not the input's fastest: `w` lanes side by side advance one step of the dim per call,
 * their accumulators (8 bytes each: double or uint64) kept by the caller, so the loop runs
 * across contiguous memory and vectorises. As in PyTorch's CPU kernels, floats accumulate
 * in double and integers wrap (accumulated as uint64); the kernels read and write one dtype
 * (the op converts first). cummax/cummin also write the int64 index of the running extreme
 * (index byte stride `xs`): the latest of equal values, and a NaN once met stays (at the
 * latest NaN's index), as PyTorch's >= / <= comparison with its NaN rule gives.
 * Kernels never fail and never allocate; a NULL entry is a dtype PyTorch does not take.
 */
#ifndef NT_KERNELS_SCAN_KERNELS_H
#define NT_KERNELS_SCAN_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"

typedef enum nt_scan_kind {
    NT_SCAN_SUM,
    NT_SCAN_PROD,
    NT_SCAN_LOGSUMEXP,
    NT_SCAN_KIND_COUNT
} nt_scan_kind;

typedef void (*nt_scan_line_fn)(const char *in, int64_t is, char *out, int64_t os, int64_t n);
/* acc[i] op= in[i]; out[i] = acc[i], for w lanes */
typedef void (*nt_scan_lanes_fn)(void *acc, const char *in, int64_t is, char *out, int64_t os,
                                 int64_t w);
typedef void (*nt_scan_init_fn)(void *acc, int64_t w);

typedef struct nt_scan_kernel {
    nt_scan_line_fn line;
    nt_scan_lanes_fn lanes; /* NULL: lines only */
    nt_scan_init_fn init;
} nt_scan_kernel;

/* The kernel of `kind` for `dtype`, or NULL when the op does not take the dtype. */
const nt_scan_kernel *nt_scan_kernel_for(nt_scan_kind kind, nt_dtype dtype);

typedef void (*nt_cumext_line_fn)(const char *in, int64_t is, char *out, int64_t os, int64_t *idx,
                                  int64_t xs, int64_t n);
/* cummax (is_max) / cummin's line for `dtype`, or NULL. */
nt_cumext_line_fn nt_cumext_line_for(bool is_max, nt_dtype dtype);

#endif
