/*
 * alloc.c — tensor data: malloc for small blocks, a bounded cache of huge-page mappings for
 * large ones.
 *
 * Why a cache: a fresh 64 MiB output costs 16,384 page faults, each one a trap plus the
 * kernel zeroing 4 KiB, which is more time than adding two 64 MiB inputs. A block kept after
 * its free has its pages resident, so reusing it costs nothing. Why huge pages: a block the
 * cache cannot serve (the first one, or one beyond the bound) then faults 2 MiB at a time,
 * 512x fewer traps. See docs/allocator.md for the measurements.
 *
 * The cache is an array of free blocks in the order they were freed. A request takes the
 * most recently freed block of its size class (warmest in the caches and TLB); a free that
 * would pass the bound evicts the oldest blocks first. One mutex guards it: large
 * allocations are rare next to the work done on them. munmap runs outside the lock, since
 * unmapping a large resident block takes milliseconds.
 */
#include "alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "status.h"

/* AddressSanitizer sees malloc, not mmap, and a cached block would hide a use after free:
 * in such builds every block comes from aligned_alloc and nothing is cached. */
#if defined(__SANITIZE_ADDRESS__)
#define NT_ALLOC_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NT_ALLOC_BYPASS 1
#endif
#endif
#ifndef NT_ALLOC_BYPASS
#define NT_ALLOC_BYPASS 0
#endif

/* ASan's allocator aborts on requests above 1 TiB rather than returning NULL. */
#define BYPASS_MAX ((size_t)1 << 40)

#define HUGE_PAGE ((size_t)2 << 20)
/* At most this many blocks are cached, whatever their bytes (the array is static). */
#define CACHE_SLOTS 512
/* The default bound: 1 GiB, or an eighth of physical memory when that is less. */
#define DEFAULT_LIMIT ((int64_t)1 << 30)

typedef struct cached_block {
    void *p;
    size_t size; /* its size class: the bytes mapped */
} cached_block;

static struct {
    pthread_mutex_t lock;
    cached_block slots[CACHE_SLOTS]; /* oldest first */
    int64_t count;
    int64_t cached_bytes;
    int64_t limit;
    int64_t active_bytes;
    int64_t hits, misses, releases;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static atomic_bool huge_pages = true;

/* fork() copies the lock in whatever state another thread left it: hold it across fork so
 * the child starts with it free and the cache consistent. */
static void lock_for_fork(void) {
    pthread_mutex_lock(&cache.lock);
}
static void unlock_after_fork(void) {
    pthread_mutex_unlock(&cache.lock);
}

static void cache_init(void) {
    int64_t limit = DEFAULT_LIMIT;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (int64_t)pages / 8 < DEFAULT_LIMIT / page)
        limit = (int64_t)pages / 8 * page;
    cache.limit = limit;
    pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);
}

size_t nt_alloc_class_size(size_t nbytes) {
    if (nbytes > SIZE_MAX / 2) return 0; /* the class would overflow: no such mapping */
    int top = 63 - __builtin_clzll((unsigned long long)(nbytes | 1));
    size_t step = top >= 2 ? (size_t)1 << (top - 2) : 1; /* >= 256 KiB: whole pages */
    return (nbytes + step - 1) & ~(step - 1);
}

void nt_alloc_set_huge_pages(bool enabled) {
    atomic_store(&huge_pages, enabled);
}

/* A fresh mapping of `size` bytes, 2 MiB aligned when it is at least that big so that the
 * kernel can back it with huge pages; NULL on failure. */
static void *map_block(size_t size) {
    size_t slack = size >= HUGE_PAGE ? HUGE_PAGE : 0;
    if (size > SIZE_MAX - slack) return NULL;
    char *raw =
        mmap(NULL, size + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *p = raw;
    if (slack) {
        p = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        size_t head = (size_t)(p - raw), tail = slack - head;
        if (head) munmap(raw, head);
        if (tail) munmap(p + size, tail);
    }
#ifdef MADV_HUGEPAGE
    /* Fails harmlessly (EINVAL) on kernels without transparent huge pages. */
    if (slack && atomic_load(&huge_pages)) madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

/* Moves the oldest cached blocks into `out` until at most `keep_bytes` stay cached and
 * `keep_slots` slots are used; returns how many it moved. Call with the lock held. */
static int64_t evict_locked(int64_t keep_bytes, int64_t keep_slots, cached_block *out) {
    int64_t n = 0;
    while (n < cache.count && (cache.cached_bytes > keep_bytes || cache.count - n > keep_slots)) {
        out[n] = cache.slots[n];
        cache.cached_bytes -= (int64_t)cache.slots[n].size;
        n++;
    }
    for (int64_t i = n; i < cache.count; i++)
        cache.slots[i - n] = cache.slots[i];
    cache.count -= n;
    cache.releases += n;
    return n;
}

static void unmap_all(const cached_block *blocks, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        munmap(blocks[i].p, blocks[i].size);
}

/* Takes the most recently freed block of class `size` out of the cache, or NULL. */
static void *take_cached(size_t size) {
    void *p = NULL;
    pthread_mutex_lock(&cache.lock);
    for (int64_t i = cache.count - 1; i >= 0; i--) {
        if (cache.slots[i].size != size) continue;
        p = cache.slots[i].p;
        for (int64_t j = i + 1; j < cache.count; j++)
            cache.slots[j - 1] = cache.slots[j];
        cache.count--;
        cache.cached_bytes -= (int64_t)size;
        break;
    }
    if (p)
        cache.hits++;
    else
        cache.misses++;
    cache.active_bytes += (int64_t)size;
    pthread_mutex_unlock(&cache.lock);
    return p;
}

static void *alloc_large(size_t size) {
    pthread_once(&cache_once, cache_init);
    void *p = take_cached(size);
    if (p) return p;
    p = map_block(size);
    if (!p) {
        /* Out of memory or address space: what the cache holds may be what is missing. */
        cached_block victims[CACHE_SLOTS];
        pthread_mutex_lock(&cache.lock);
        int64_t n = evict_locked(0, 0, victims);
        pthread_mutex_unlock(&cache.lock);
        unmap_all(victims, n);
        p = map_block(size);
    }
    if (!p) {
        pthread_mutex_lock(&cache.lock);
        cache.active_bytes -= (int64_t)size;
        pthread_mutex_unlock(&cache.lock);
    }
    return p;
}

static void free_large(void *p, size_t size) {
    pthread_once(&cache_once, cache_init);
    cached_block victims[CACHE_SLOTS + 1];
    int64_t n = 0;
    pthread_mutex_lock(&cache.lock);
    cache.active_bytes -= (int64_t)size;
    if ((int64_t)size > cache.limit) {
        victims[n++] = (cached_block){p, size};
        cache.releases++;
    } else {
        n = evict_locked(cache.limit - (int64_t)size, CACHE_SLOTS - 1, victims);
        cache.slots[cache.count++] = (cached_block){p, size};
        cache.cached_bytes += (int64_t)size;
    }
    pthread_mutex_unlock(&cache.lock);
    unmap_all(victims, n);
}

/* The 64-byte rounded size of a request, or 0 when it overflows. */
static size_t rounded_size(size_t nbytes) {
    size_t rounded = (nbytes + NT_ALIGNMENT - 1) & ~(size_t)(NT_ALIGNMENT - 1);
    if (rounded < nbytes) return 0;
    return rounded == 0 ? NT_ALIGNMENT : rounded;
}

void *nt_alloc_data(size_t nbytes) {
    size_t rounded = rounded_size(nbytes);
    if (rounded == 0) return NULL;
    if (NT_ALLOC_BYPASS) return rounded <= BYPASS_MAX ? aligned_alloc(NT_ALIGNMENT, rounded) : NULL;
    if (rounded < NT_LARGE_BLOCK) return aligned_alloc(NT_ALIGNMENT, rounded);
    size_t size = nt_alloc_class_size(rounded);
    return size ? alloc_large(size) : NULL;
}

void nt_free_data(void *p, size_t nbytes) {
    if (!p) return;
    size_t rounded = rounded_size(nbytes);
    if (NT_ALLOC_BYPASS || rounded < NT_LARGE_BLOCK) {
        free(p);
        return;
    }
    free_large(p, nt_alloc_class_size(rounded));
}

/* ------------------------------------------------------------------ public controls */

void nt_empty_cache(void) {
    pthread_once(&cache_once, cache_init);
    cached_block victims[CACHE_SLOTS];
    pthread_mutex_lock(&cache.lock);
    int64_t n = evict_locked(0, 0, victims);
    pthread_mutex_unlock(&cache.lock);
    unmap_all(victims, n);
}

nt_status nt_set_cache_limit(int64_t bytes) {
    if (bytes < 0)
        return nt_fail(NT_ERR_VALUE, "cache limit must be non-negative, got %lld",
                       (long long)bytes);
    pthread_once(&cache_once, cache_init);
    cached_block victims[CACHE_SLOTS];
    pthread_mutex_lock(&cache.lock);
    cache.limit = bytes;
    int64_t n = evict_locked(bytes, CACHE_SLOTS, victims);
    pthread_mutex_unlock(&cache.lock);
    unmap_all(victims, n);
    return NT_OK;
}

int64_t nt_get_cache_limit(void) {
    pthread_once(&cache_once, cache_init);
    pthread_mutex_lock(&cache.lock);
    int64_t limit = cache.limit;
    pthread_mutex_unlock(&cache.lock);
    return limit;
}

void nt_get_memory_stats(nt_memory_stats *out) {
    pthread_once(&cache_once, cache_init);
    pthread_mutex_lock(&cache.lock);
    *out = (nt_memory_stats){
        .cached_bytes = cache.cached_bytes,
        .cached_blocks = cache.count,
        .cache_limit = cache.limit,
        .active_bytes = cache.active_bytes,
        .hits = cache.hits,
        .misses = cache.misses,
        .releases = cache.releases,
        .caching = !NT_ALLOC_BYPASS,
    };
    pthread_mutex_unlock(&cache.lock);
}
