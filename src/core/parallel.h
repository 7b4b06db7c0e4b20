/*
 * parallel.h — the one place that uses OpenMP.
 *
 * nt_parallel_for splits [begin, end) into contiguous chunks, one per thread, when the
 * range holds at least `grain` items per thread; smaller work runs serially on the calling
 * thread. Never nested: a call from inside a parallel region runs serially.
 */
#ifndef NT_CORE_PARALLEL_H
#define NT_CORE_PARALLEL_H

#include <stdint.h>

#include "ntensor.h"

/* Work below this many elements is not worth waking threads for. */
#define NT_GRAIN_SIZE 32768

typedef void (*nt_range_fn)(void *ctx, int64_t begin, int64_t end);

void nt_parallel_for(int64_t begin, int64_t end, int64_t grain, nt_range_fn fn, void *ctx);

/* nt_parallel_for for work that calls a library which parallelises itself with OpenMP
 * (oneDNN): inside every chunk, OpenMP regions the library opens run on the calling thread
 * alone. Our chunks are fixed by [begin, end) and grain, so the result does not depend on
 * the thread count, which a library free to split its own work (oneDNN splits a long sum
 * across threads) would not promise. */
void nt_parallel_for_leaf(int64_t begin, int64_t end, int64_t grain, nt_range_fn fn, void *ctx);

#endif
