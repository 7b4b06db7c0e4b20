/*
 * alloc.h — the one place tensor memory comes from.
 *
 * Blocks are 64-byte aligned (a cache line, and enough for any vector load). Every data
 * allocation goes through here so that a caching policy can be added in one place.
 */
#ifndef NT_CORE_ALLOC_H
#define NT_CORE_ALLOC_H

#include <stddef.h>

#define NT_ALIGNMENT 64

/* A block of at least `nbytes` (a zero-size request gives a valid, unique block), or NULL. */
void *nt_alloc_data(size_t nbytes);
/* Returns a block from nt_alloc_data; `nbytes` must be the size asked for. */
void nt_free_data(void *p, size_t nbytes);

#endif
