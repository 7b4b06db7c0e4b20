/*
 * alloc.h — the one place tensor memory comes from.
 *
 * Blocks are 64-byte aligned (a cache line, and enough for any vector load). Every data
 * allocation goes through here so that the caching policy lives in one place:
 *  - blocks under NT_LARGE_BLOCK bytes come from aligned_alloc (glibc serves them well);
 *  - larger ones are mmap'd, 2 MiB aligned and advised MADV_HUGEPAGE, and on free go to a
 *    bounded cache keyed by size class, so that the next request of the same class gets them
 *    back with their pages already faulted in (no page faults, no kernel zeroing).
 * A block from the cache is not zeroed. In AddressSanitizer builds every block comes from
 * aligned_alloc and nothing is cached, so ASan sees every allocation and every free.
 * The public controls (nt_empty_cache, nt_set_cache_limit, nt_get_memory_stats) are in the
 * "memory" section of ntensor.h; docs/allocator.md has the design and measurements.
 */
#ifndef NT_CORE_ALLOC_H
#define NT_CORE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#define NT_ALIGNMENT 64
/* Requests of at least this many bytes are "large": mmap'd and cached. */
#define NT_LARGE_BLOCK ((size_t)1 << 20)

/* A block of at least `nbytes` (a zero-size request gives a valid, unique block), or NULL. */
void *nt_alloc_data(size_t nbytes);
/* Returns a block from nt_alloc_data; `nbytes` must be the size asked for. NULL is ignored. */
void nt_free_data(void *p, size_t nbytes);

/* The bytes a large request (nbytes >= NT_LARGE_BLOCK) maps, its size class: `nbytes`
 * rounded up to one of four steps per power of two (1, 1.25, 1.5, 1.75 x 2^k), so at most
 * 25% over and always whole pages. Any block of a class serves any request of that class.
 * 0 when the class would overflow. */
size_t nt_alloc_class_size(size_t nbytes);

/* Whether new large mappings are advised MADV_HUGEPAGE (true by default). A knob for
 * measurements and tests: blocks already cached keep the advice they were mapped with. */
void nt_alloc_set_huge_pages(bool enabled);

#endif
