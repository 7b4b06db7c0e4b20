/*
 * iter/random.h — the random engine (layer L2, iter/random.c): the global generator's
 * counter reservation and the block engine that every random op (ops/random.c,
 * random_ops.c, dropout.c) runs on.
 *
 * The engine numbers the values of a fill 0, 1, ... and gives value v the Philox words of
 * its block alone, so a fill's values depend on the seed, the generator's offset and v,
 * never on how the blocks are split across threads. A block is PHILOX_LANES counters
 * (4 * PHILOX_LANES words). With one word per value, value v of a block uses word
 * w[v / PHILOX_LANES][v % PHILOX_LANES]; with two words per value, value k * PHILOX_LANES + j
 * (k < 2) uses words w[2k][j] and w[2k + 1][j].
 */
#ifndef NT_ITER_RANDOM_H
#define NT_ITER_RANDOM_H

#include <stdint.h>

#include "kernels/philox.h"
#include "ntensor.h"

/* Reserves `counters` Philox counters from the thread's generator (nt_use_generator): its seed and
 * the first. */
void nt_random_reserve(uint64_t counters, uint64_t *seed, uint64_t *first);

/* Fills block values [0, n) whose first value has number `base`. Called on several
 * threads at once with the same ctx, which it must only read (and write through). */
typedef void (*nt_random_block_fn)(void *ctx, uint32_t w[4][PHILOX_LANES], int64_t base, int64_t n);

/* Values per block for `words` (1 or 2) words per value. */
static inline int64_t nt_random_block_values(int words) {
    return (words == 1 ? 4 : 2) * PHILOX_LANES;
}

/* Reserves the counters of `numel` values of `words` words each and calls fn on every
 * block, in parallel when large. Never fails. */
void nt_random_run(int64_t numel, int words, nt_random_block_fn fn, void *ctx);

#endif
