/*
 * random_kernels.h — the per-element loops of the random fills (layer L3): the Philox-word
 * transforms of uniform_/normal_ (for ops/random.c) and of the other distributions,
 * bernoulli with tensor probabilities, torch.normal's affine step and the value checks
 * that walk elements (for ops/random_ops.c); dropout's block and its p = 1 loop (for
 * ops/dropout.c).
 *
 * A block kernel turns the words of one block of PHILOX_LANES counters (w[k][j]: word k of
 * lane j) into values and stores them, in the target's dtype, into a contiguous buffer;
 * the engine that numbers the counters and splits the blocks across threads is
 * iter/random.c, and the ops own the checks, the job's parameters and the strided copy.
 * The element loops are nt_loop2d loops for nt_iter_run. Kernels never fail and never
 * allocate; the check loops flag a bad element in their context and the op raises the
 * error after the run.
 */
#ifndef NT_KERNELS_RANDOM_KERNELS_H
#define NT_KERNELS_RANDOM_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"
#include "core/half.h"
#include "kernels/philox.h"

/* ------------------------------------------------------------------ uniform_ and normal_ */

typedef enum nt_fill_kind { NT_FILL_UNIFORM, NT_FILL_NORMAL } nt_fill_kind;

typedef struct nt_fill_params {
    /* uniform: low, (high - low), and the value to use when rounding reaches high */
    float low_f, range_f, high_f, below_f;
    double low_d, range_d, high_d, below_d;
    /* normal */
    double mean, std;
} nt_fill_params;

typedef struct nt_fill_job {
    char *data; /* contiguous output */
    nt_dtype dtype;
    nt_fill_kind kind;
    int64_t numel, per_block; /* values per block of PHILOX_LANES counters */
    uint64_t seed, first;     /* first counter of block 0 */
    nt_fill_params p;
    nt_float16 below_f16;
    nt_bfloat16 below_bf16;
} nt_fill_job;

/* Writes the values [lo, hi) of block b (element b*per_block + i for value i), computing
 * the block's Philox words itself. The dtype is float16, bfloat16, float32 or float64. */
void nt_random_fill_block(const nt_fill_job *job, int64_t b, int64_t lo, int64_t hi);

/* ------------------------------------------------------------------ other distributions */

typedef enum nt_dist_kind {
    NT_DIST_EXPONENTIAL,
    NT_DIST_CAUCHY,
    NT_DIST_LOG_NORMAL,
    NT_DIST_GEOMETRIC,
    NT_DIST_BERNOULLI,
    NT_DIST_RANDOM,
    NT_DIST_WORDS /* the raw 32-bit words, for bernoulli with tensor probabilities */
} nt_dist_kind;

typedef struct nt_dist_job {
    nt_dist_kind kind;
    nt_dtype dtype;
    char *data;        /* contiguous target */
    double a, b;       /* lambda; median, sigma; mean, std; p */
    uint32_t keep_max; /* bernoulli: a word w gives 1 when w <= keep_max (and keep_any) */
    bool keep_any;
    uint64_t range; /* random_: values from + [0, range); 0 means all 2^64 */
    int64_t from;
} nt_dist_job;

/* Words per value for a distribution on a dtype (nt_random_run's `words`). */
int nt_dist_words(nt_dist_kind kind, nt_dtype dt);

/* nt_random_run's block function for an nt_dist_job (ctx): values base .. base + n. */
void nt_dist_block(void *ctx, uint32_t w[4][PHILOX_LANES], int64_t base, int64_t n);

/* ------------------------------------------------------------------ element loops */

/* bernoulli_(p tensor): out = (word * 2^-32 < p). Operands: out, p, words (int32). */
typedef struct nt_bernoulli_tensor_ctx {
    nt_dtype out_dtype, p_dtype;
} nt_bernoulli_tensor_ctx;

void nt_bernoulli_tensor_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                              void *arg);

/* The value checks over one operand of `dtype`: bad becomes 1 when an element fails. */
typedef struct nt_random_check_ctx {
    nt_dtype dtype;
    _Atomic int bad;
} nt_random_check_ctx;

/* Fails an element of p outside [0, 1] (NaN included). */
void nt_prob_range_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                        void *arg);

/* Fails an element of std that is negative or NaN. */
void nt_negative_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                      void *arg);

/* torch.normal's out = out * std + mean, with mean and std read from tensors (broadcast)
 * or constants. Operands: out, then mean and/or std at their indices. */
typedef struct nt_normal_affine_ctx {
    nt_dtype out_dtype, mean_dtype, std_dtype;
    int mean_op, std_op; /* operand index, or 0 for the constant */
    double mean, std;
} nt_normal_affine_ctx;

void nt_normal_affine_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                           void *arg);

/* ------------------------------------------------------------------ dropout */

/* dropout over n elements in memory order (for ops/dropout.c): float32, float64, bfloat16. */
typedef struct nt_dropout_job {
    nt_dtype dtype;
    const char *x; /* n elements in memory order */
    char *y;
    uint32_t keep_max; /* a word w keeps its element when w <= keep_max */
    float scale_f;
    double scale_d;
} nt_dropout_job;

void nt_dropout_block(void *ctx, uint32_t w[4][PHILOX_LANES], int64_t base, int64_t n);

/* y = x * 0 over n elements of any dtype (dropout with p = 1). */
void nt_zero_times(nt_dtype dt, const char *x, char *y, int64_t n);

#endif
