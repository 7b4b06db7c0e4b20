/**
 * @file
 * ntensor/memory.h — the caching allocator's controls and statistics.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_MEMORY_H
#define NTENSOR_MEMORY_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ memory */

/** Tensor data of 1 MiB and more is mapped with huge pages and, when freed, kept in a cache
 * for reuse by the next request of its size class, up to a bound on the bytes cached (by
 * default 1 GiB or an eighth of physical memory, whichever is less). A block from the cache
 * is not zeroed. Builds with AddressSanitizer cache nothing. See docs/allocator.md. */
typedef struct nt_memory_stats {
    int64_t cached_bytes;  /**< bytes held by the cache: freed, kept for reuse */
    int64_t cached_blocks; /**< blocks held by the cache */
    int64_t cache_limit;   /**< the bound on cached_bytes */
    int64_t active_bytes;  /**< bytes of large blocks in use (size classes, not requests) */
    int64_t hits;          /**< large requests served from the cache */
    int64_t misses;        /**< large requests that mapped new memory */
    int64_t releases;      /**< large blocks given back to the OS */
    bool caching;          /**< false in sanitizer builds: every block comes from malloc */
} nt_memory_stats;

/** Gives every cached block back to the OS (blocks in use are untouched). */
NT_API void nt_empty_cache(void);
/** Sets the bound on cached bytes (0 disables caching), releasing the oldest cached blocks
 * beyond it at once. NT_ERR_VALUE when `bytes` is negative. */
NT_API nt_status nt_set_cache_limit(int64_t bytes);
/** The bound on cached bytes. */
NT_API int64_t nt_get_cache_limit(void);
/** A snapshot of the allocator's counters (taken under its lock, so consistent). */
NT_API void nt_get_memory_stats(nt_memory_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_MEMORY_H */
