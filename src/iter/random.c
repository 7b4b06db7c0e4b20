/*
 * random.c — the random engine (layer L2): the global generator and the block engine every
 * random op runs on (iter/random.h).
 *
 * The generator is a (seed, offset) pair behind a mutex. A fill reserves a range of Philox
 * counters (advancing the offset) and then computes its elements from (seed, counter)
 * alone, so any split across threads gives the same numbers, and two fills never share
 * counters. The distributions themselves (uniform, normal, cauchy, bernoulli, dropout, ...)
 * are ops: src/ops/random.c, random_ops.c, dropout.c.
 */
#include "iter/random.h"

#include <pthread.h>

#include "core/parallel.h"

/* ------------------------------------------------------------------ the generator */

/* PyTorch's default CPU seed (default_rng_seed_val), so an unseeded program is repeatable. */
#define NT_DEFAULT_SEED UINT64_C(67280421310721)

static struct {
    pthread_mutex_t lock;
    uint64_t seed;
    uint64_t offset; /* the next unused Philox counter */
} generator = {PTHREAD_MUTEX_INITIALIZER, NT_DEFAULT_SEED, 0};

void nt_manual_seed(uint64_t seed) {
    pthread_mutex_lock(&generator.lock);
    generator.seed = seed;
    generator.offset = 0;
    pthread_mutex_unlock(&generator.lock);
}

void nt_random_reserve(uint64_t counters, uint64_t *seed, uint64_t *first) {
    pthread_mutex_lock(&generator.lock);
    *seed = generator.seed;
    *first = generator.offset;
    generator.offset += counters;
    pthread_mutex_unlock(&generator.lock);
}

/* ------------------------------------------------------------------ the block engine */

typedef struct run_job {
    nt_random_block_fn fn;
    void *ctx;
    int64_t numel, per_block;
    uint64_t seed, first;
} run_job;

static void run_range(void *arg, int64_t begin, int64_t end) {
    const run_job *job = arg;
    uint32_t w[4][PHILOX_LANES];
    for (int64_t b = begin; b < end; b++) {
        nt_philox_block(job->first + (uint64_t)b * PHILOX_LANES, job->seed, w);
        int64_t base = b * job->per_block, rest = job->numel - base;
        job->fn(job->ctx, w, base, rest < job->per_block ? rest : job->per_block);
    }
}

void nt_random_run(int64_t numel, int words, nt_random_block_fn fn, void *ctx) {
    if (numel <= 0) return;
    run_job job = {
        .fn = fn, .ctx = ctx, .numel = numel, .per_block = nt_random_block_values(words)};
    int64_t blocks = (numel + job.per_block - 1) / job.per_block;
    nt_random_reserve((uint64_t)blocks * PHILOX_LANES, &job.seed, &job.first);
    int64_t grain = NT_GRAIN_SIZE / job.per_block;
    nt_parallel_for(0, blocks, grain > 0 ? grain : 1, run_range, &job);
}
