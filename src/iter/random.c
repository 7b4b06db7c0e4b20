/*
 * random.c — the random engine (layer L2): the global generator and the block engine every
 * random op runs on (iter/random.h).
 *
 * A generator (ntensor/generator.h) is a (seed, offset) pair behind a mutex; the ops of a
 * thread draw from the default one or the one nt_use_generator set. A fill reserves a range of
 * Philox counters (advancing the offset) and then computes its elements from (seed, counter) alone,
 * so any split across threads gives the same numbers, and two fills never share counters. The
 * distributions themselves (uniform, normal, cauchy, bernoulli, dropout, ...) are ops:
 * src/ops/random.c, random_ops.c, dropout.c.
 */
#include "iter/random.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "core/status.h"

#include "core/parallel.h"

/* ------------------------------------------------------------------ the generator */

struct nt_generator {
    pthread_mutex_t lock;
    uint64_t seed;
    uint64_t offset; /* the next unused Philox counter */
};

static nt_generator default_generator = {PTHREAD_MUTEX_INITIALIZER, NT_GENERATOR_DEFAULT_SEED, 0};
/* The generator this thread's random ops draw from (nt_use_generator), NULL: the default. */
static _Thread_local nt_generator *current;

static const uint8_t state_magic[8] = {'N', 'T', 'R', 'G', 1, 0, 0, 0};

nt_status nt_generator_new(nt_generator **out) {
    nt_generator *g = malloc(sizeof *g);
    if (!g) return nt_fail_oom(sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    g->seed = NT_GENERATOR_DEFAULT_SEED;
    g->offset = 0;
    *out = g;
    return NT_OK;
}

void nt_generator_free(nt_generator *g) {
    if (!g || g == &default_generator) return;
    pthread_mutex_destroy(&g->lock);
    free(g);
}

nt_generator *nt_default_generator(void) {
    return &default_generator;
}

nt_generator *nt_use_generator(nt_generator *g) {
    nt_generator *before = current;
    current = g == &default_generator ? NULL : g;
    return before ? before : &default_generator;
}

void nt_generator_manual_seed(nt_generator *g, uint64_t seed) {
    g = g ? g : &default_generator;
    pthread_mutex_lock(&g->lock);
    g->seed = seed;
    g->offset = 0;
    pthread_mutex_unlock(&g->lock);
}

void nt_manual_seed(uint64_t seed) {
    nt_generator_manual_seed(&default_generator, seed);
}

uint64_t nt_generator_seed(nt_generator *g) {
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) /* no entropy: the clock */
        seed = (uint64_t)time(NULL) * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)clock();
    nt_generator_manual_seed(g, seed);
    return seed;
}

uint64_t nt_generator_initial_seed(nt_generator *g) {
    g = g ? g : &default_generator;
    pthread_mutex_lock(&g->lock);
    uint64_t seed = g->seed;
    pthread_mutex_unlock(&g->lock);
    return seed;
}

static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void nt_generator_get_state(nt_generator *g, uint8_t state[NT_GENERATOR_STATE_SIZE]) {
    g = g ? g : &default_generator;
    memcpy(state, state_magic, sizeof state_magic);
    pthread_mutex_lock(&g->lock);
    put_u64(state + 8, g->seed);
    put_u64(state + 16, g->offset);
    pthread_mutex_unlock(&g->lock);
}

nt_status nt_generator_set_state(nt_generator *g, const uint8_t *state, int64_t size) {
    g = g ? g : &default_generator;
    if (size != NT_GENERATOR_STATE_SIZE)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected an ntensor generator state of size %d but found the input RNG "
                       "state size to be %" PRId64,
                       NT_GENERATOR_STATE_SIZE, size);
    if (memcmp(state, state_magic, sizeof state_magic) != 0)
        return nt_fail(NT_ERR_RUNTIME, "The RNG state is not an ntensor generator state (its "
                                       "first bytes are not \"NTRG\" version 1)");
    pthread_mutex_lock(&g->lock);
    g->seed = get_u64(state + 8);
    g->offset = get_u64(state + 16);
    pthread_mutex_unlock(&g->lock);
    return NT_OK;
}

void nt_random_reserve(uint64_t counters, uint64_t *seed, uint64_t *first) {
    nt_generator *g = current ? current : &default_generator;
    pthread_mutex_lock(&g->lock);
    *seed = g->seed;
    *first = g->offset;
    g->offset += counters;
    pthread_mutex_unlock(&g->lock);
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
