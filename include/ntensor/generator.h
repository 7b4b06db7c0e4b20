/**
 * @file
 * ntensor/generator.h — random generators: the default one every random op draws from, new
 * ones of your own (PyTorch's torch.Generator), their seeds, and their state as bytes.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 *
 * A generator is a Philox 4x32-10 key (the seed) and a counter offset: a fill reserves a range
 * of counters, and element i of it depends only on the seed, the offset and i, never on the
 * thread count. Its state is NT_GENERATOR_STATE_SIZE bytes:
 *
 *     bytes 0..3    "NTRG" (the magic)
 *     byte  4       1 (the layout's version); bytes 5..7 zero
 *     bytes 8..15   the seed, little-endian uint64
 *     bytes 16..23  the offset (the next unused counter), little-endian uint64
 */
#ifndef NTENSOR_GENERATOR_H
#define NTENSOR_GENERATOR_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A random generator; thread-safe (each draw takes its lock once). */
typedef struct nt_generator nt_generator;

/** The size in bytes of a generator's state (see the layout above). */
#define NT_GENERATOR_STATE_SIZE 24

/** PyTorch's default CPU seed, the seed of the default generator and of new ones. */
#define NT_GENERATOR_DEFAULT_SEED UINT64_C(67280421310721)

/** A new generator seeded with NT_GENERATOR_DEFAULT_SEED; release it with
 * nt_generator_free. NT_ERR_MEMORY when out of memory. */
NT_API nt_status nt_generator_new(nt_generator **out);
/** Frees a generator made by nt_generator_new (NULL and the default generator are ignored). */
NT_API void nt_generator_free(nt_generator *g);
/** The process's default generator (nt_manual_seed seeds it), never NULL. */
NT_API nt_generator *nt_default_generator(void);

/** Seeds g (NULL: the default generator) and restarts its counter. */
NT_API void nt_generator_manual_seed(nt_generator *g, uint64_t seed);
/** Seeds g (NULL: the default) from the operating system's entropy; returns the seed. */
NT_API uint64_t nt_generator_seed(nt_generator *g);
/** The seed g (NULL: the default) was last seeded with. */
NT_API uint64_t nt_generator_initial_seed(nt_generator *g);
/** Writes g's state (NULL: the default's), NT_GENERATOR_STATE_SIZE bytes, into state. */
NT_API void nt_generator_get_state(nt_generator *g, uint8_t state[NT_GENERATOR_STATE_SIZE]);
/** Restores a state that nt_generator_get_state wrote. NT_ERR_RUNTIME (PyTorch's
 * RuntimeError) when `size` is not NT_GENERATOR_STATE_SIZE or the magic or version differ;
 * g is unchanged then. */
NT_API nt_status nt_generator_set_state(nt_generator *g, const uint8_t *state, int64_t size);

/** Makes the random ops called on this thread draw from g (NULL: the default generator) and
 * returns the generator they drew from before, to be restored after the calls: the C form of
 * PyTorch's generator= argument. */
NT_API nt_generator *nt_use_generator(nt_generator *g);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_GENERATOR_H */
