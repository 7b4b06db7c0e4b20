/*
 * small_alloc.h — the blocks that tensor and storage structs (with a small tensor's data
 * inline) live in, from a free list per thread.
 *
 * A small tensor is made and dropped once per operator call, so its block is the hottest
 * allocation there is: glibc's malloc and free cost about 15 ns a pair here, a per-thread
 * free list about 2. Blocks come in four size classes (256 B to 2 KiB); a thread keeps at
 * most SMALL_CACHE_BLOCKS of each, and gives them back to malloc when it exits. A block
 * freed on another thread than the one that took it joins the freeing thread's list.
 * Bigger blocks go to malloc directly. In AddressSanitizer builds nothing is cached, so
 * that ASan sees every allocation and every free.
 */
#ifndef NT_CORE_SMALL_ALLOC_H
#define NT_CORE_SMALL_ALLOC_H

#include <stddef.h>

/* A block of at least `bytes`, aligned as malloc's, or NULL. */
void *nt_small_alloc(size_t bytes);
/* Gives back a block of nt_small_alloc. NULL is ignored. */
void nt_small_free(void *block);

#endif
