/*
 * reduce_kernels.h — the folding kernels of the reductions (layer L3), for the engine in
 * ops/reduce_engine.c.
 *
 * A reduction folds many input elements into one accumulator per output. Each (op, input
 * dtype) pair has a kernel: a small table of functions on accumulators of `acc_size` bytes
 * (a float or double or uint64 for sum/prod, a (count, mean, M2) triple for var, a (max,
 * scaled sum) pair for logsumexp, ...):
 *
 *   init(acc, n)                n accumulators := the identity (0 for sum, -inf for max)
 *   run(acc, p, n, stride)      folds n elements at p (byte stride) into ONE accumulator;
 *                               sums are pairwise over fixed blocks, so the result depends
 *                               on the data only, never on where a thread boundary fell
 *   rows(acc, p, n, stride)     acc[i] op= element i: n accumulators, one element each (the
 *                               "reduce the outer dim" case, vectorised across the row)
 *   combine(acc, other, n)      acc[i] op= other[i]
 *   store(out, dtype, acc, prm) the final value (mean divides, std takes the root) written
 *                               as `dtype`
 *   runs(out, os, dtype, p, rows, rs, n, prm)
 *                               for each of `rows` rows: init, run over the n contiguous
 *                               elements at p + r * rs, store at out + r * os: what those
 *                               calls would give, without their cost per row (tiny rows:
 *                               sum over 'C' of an 8x8 tensor). NULL for kernels without it.
 *
 * Kernels never fail and never allocate. Accumulation types follow PyTorch: float for
 * float16/bfloat16/float32 sums, double for float64, int64 (wrapping) for integer and bool
 * inputs; var/std and logsumexp accumulate in double.
 */
#ifndef NT_KERNELS_REDUCE_KERNELS_H
#define NT_KERNELS_REDUCE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"

/* Append-only: indexes the kernel table. */
typedef enum nt_red_op {
    NT_RED_SUM = 0,
    NT_RED_PROD,
    NT_RED_MAX,
    NT_RED_MIN,
    NT_RED_ALL,
    NT_RED_ANY,
    NT_RED_VAR, /* also std (prm->take_sqrt) */
    NT_RED_LOGSUMEXP,
    NT_RED_MEAN, /* sum's kernel with a division in store */
    NT_RED_OP_COUNT
} nt_red_op;

/* What store needs besides the accumulator. */
typedef struct nt_red_params {
    int64_t count;     /* elements folded into each output (mean, var) */
    double correction; /* var: divide by max(0, count - correction) */
    bool take_sqrt;    /* std */
} nt_red_params;

typedef struct nt_red_kernel {
    size_t acc_size; /* bytes per accumulator, at most NT_RED_MAX_ACC */
    void (*init)(void *acc, int64_t n);
    void (*run)(void *acc, const char *p, int64_t n, int64_t stride);
    void (*rows)(void *acc, const char *p, int64_t n, int64_t stride);
    void (*combine)(void *acc, const void *other, int64_t n);
    void (*store)(char *out, nt_dtype out_dtype, const void *acc, const nt_red_params *prm);
    void (*runs)(char *out, int64_t os, nt_dtype out_dtype, const char *p, int64_t rows, int64_t rs,
                 int64_t n, const nt_red_params *prm);
} nt_red_kernel;

#define NT_RED_MAX_ACC 32

/* The kernel of `op` for inputs of `dtype`, or NULL when the op does not take the dtype. */
const nt_red_kernel *nt_red_kernel_for(nt_red_op op, nt_dtype dtype);

/* ---- index reductions (max/min with a dim, argmax/argmin) ----
 * arg_run scans n elements at p (byte stride) and writes the best value (as the input
 * dtype) to *value and its position to *index: the first maximum (minimum); a NaN beats
 * everything and the first NaN wins, as in PyTorch. n >= 1.
 * arg_rows is the outer-dim form: for lane i < n, compares element i of the row at p with
 * best[i] (value storage of the input dtype, lane byte stride `bstride`) and records
 * `row` in idx[i] when it is better; rows come in increasing order. */
typedef void (*nt_arg_run_fn)(const char *p, int64_t n, int64_t stride, char *value,
                              int64_t *index);
typedef void (*nt_arg_rows_fn)(char *best, int64_t bstride, int64_t *idx, int64_t istride,
                               const char *p, int64_t n, int64_t stride, int64_t row);
nt_arg_run_fn nt_arg_run_for(bool is_max, nt_dtype dtype);
nt_arg_rows_fn nt_arg_rows_for(bool is_max, nt_dtype dtype);

#endif
