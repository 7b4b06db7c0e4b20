/*
 * test_alloc.c — the data allocator: alignment, size classes, reuse through the cache, the
 * bound on cached bytes, nt_empty_cache, and concurrent use from several threads.
 *
 * Run with `--measure` it instead times allocate + first-touch write + free of a 64 MiB
 * block with and without the cache and huge pages, and counts page faults per iteration
 * (the figures in docs/allocator.md).
 */
#define _GNU_SOURCE /* mincore */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "nt_test.h"

#define MiB ((size_t)1 << 20)

static nt_memory_stats stats(void) {
    nt_memory_stats s;
    nt_get_memory_stats(&s);
    return s;
}

static long minor_faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* Whether [p, p + n) is mapped at all (mincore fails with ENOMEM on unmapped memory). */
static bool is_mapped(void *p, size_t n) {
    unsigned char vec[64];
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (n > 64 * page) n = 64 * page;
    return mincore(p, n, vec) == 0 || errno != ENOMEM;
}

static void test_blocks_are_aligned_and_writable(void) {
    const size_t sizes[] = {0, 1, 63, 64, 65, MiB - 1, MiB, MiB + 1, 3 * MiB, 64 * MiB + 1};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = nt_alloc_data(sizes[i]);
        EXPECT(p != NULL);
        if (!p) continue;
        EXPECT((uintptr_t)p % NT_ALIGNMENT == 0);
        /* Large blocks of a class of 2 MiB or more start on a huge-page boundary. */
        if (stats().caching && sizes[i] >= 2 * MiB) EXPECT((uintptr_t)p % (2 * MiB) == 0);
        memset(p, 0xA5, sizes[i]);
        if (sizes[i]) EXPECT(p[sizes[i] - 1] == 0xA5);
        nt_free_data(p, sizes[i]);
    }
    /* Zero-size blocks are valid and distinct. */
    void *a = nt_alloc_data(0), *b = nt_alloc_data(0);
    EXPECT(a && b && a != b);
    nt_free_data(a, 0);
    nt_free_data(b, 0);
    nt_free_data(NULL, 64 * MiB); /* ignored, like free(NULL) */
    nt_empty_cache();
}

static void test_impossible_sizes_give_null(void) {
    EXPECT(nt_alloc_data(SIZE_MAX) == NULL);
    EXPECT(nt_alloc_data(SIZE_MAX - 63) == NULL);
    EXPECT(nt_alloc_data(SIZE_MAX / 2 + 1) == NULL);
    EXPECT(nt_alloc_data((size_t)1 << 62) == NULL); /* 4 EiB: no such mapping */
    EXPECT(stats().active_bytes == 0);
}

static void test_size_classes_have_four_steps_per_octave(void) {
    EXPECT(nt_alloc_class_size(MiB) == MiB);
    EXPECT(nt_alloc_class_size(MiB + 1) == MiB + MiB / 4);
    EXPECT(nt_alloc_class_size(2 * MiB - 64) == 2 * MiB);
    EXPECT(nt_alloc_class_size(3 * MiB) == 3 * MiB);
    EXPECT(nt_alloc_class_size(5 * MiB + 1) == 6 * MiB);
    EXPECT(nt_alloc_class_size(60 * MiB) == 64 * MiB);
    EXPECT(nt_alloc_class_size(64 * MiB) == 64 * MiB);
    EXPECT(nt_alloc_class_size(64 * MiB + 1) == 80 * MiB);
    EXPECT(nt_alloc_class_size(100 * MiB) == 112 * MiB);
    EXPECT(nt_alloc_class_size(SIZE_MAX) == 0);
    /* Never more than 25% over the request. */
    for (size_t n = MiB; n < 4096 * MiB; n = n * 9 / 8 + 12345) {
        size_t c = nt_alloc_class_size(n);
        EXPECT(c >= n && c - n <= n / 4);
    }
}

static void test_freed_block_is_reused_without_faults(void) {
    nt_empty_cache();
    nt_memory_stats before = stats();
    size_t n = 64 * MiB;
    unsigned char *p = nt_alloc_data(n);
    EXPECT(p != NULL);
    if (!p) return;
    memset(p, 7, n);
    if (before.caching) EXPECT(stats().active_bytes == before.active_bytes + (int64_t)n);
    nt_free_data(p, n);
    EXPECT(stats().active_bytes == before.active_bytes);
    long faults = minor_faults();
    unsigned char *q = nt_alloc_data(n);
    EXPECT(q != NULL);
    if (!q) return;
    memset(q, 9, n);
    faults = minor_faults() - faults;
    if (stats().caching) {
        EXPECT(q == p);
        EXPECT(faults < 64); /* 16,384 with fresh 4 KiB pages */
        EXPECT(stats().hits == before.hits + 1);
        EXPECT(stats().misses == before.misses + 1);
        EXPECT(stats().cached_bytes == 0);
    }
    /* A request of the same class (60 MiB rounds to 64 MiB) takes the same block... */
    nt_free_data(q, n);
    unsigned char *r = nt_alloc_data(60 * MiB);
    if (stats().caching) EXPECT(r == p);
    /* ...and one of another class does not, even though the cache holds nothing else. */
    nt_free_data(r, 60 * MiB);
    unsigned char *s = nt_alloc_data(n + 1);
    EXPECT(s != NULL);
    if (stats().caching) {
        EXPECT(s != p);
        EXPECT(stats().cached_bytes == (int64_t)n);
    }
    nt_free_data(s, n + 1);
    nt_empty_cache();
}

static void test_block_in_use_is_never_handed_out(void) {
    nt_empty_cache();
    size_t n = 4 * MiB;
    unsigned char *a = nt_alloc_data(n), *b = nt_alloc_data(n);
    EXPECT(a && b && a != b);
    if (!a || !b) return;
    memset(a, 1, n);
    memset(b, 2, n);
    nt_free_data(a, n);
    unsigned char *c = nt_alloc_data(n), *d = nt_alloc_data(n);
    EXPECT(c && d && c != b && d != b && c != d);
    if (stats().caching) EXPECT(c == a); /* the one free block */
    if (c && d) {
        memset(c, 3, n);
        memset(d, 4, n);
    }
    /* b was never freed, so nothing written to c or d reached it. */
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += b[i] != 2;
    EXPECT(wrong == 0);
    nt_free_data(b, n);
    nt_free_data(c, n);
    nt_free_data(d, n);
    nt_empty_cache();
}

static void test_cache_stays_within_its_bound(void) {
    nt_empty_cache();
    int64_t old_limit = nt_get_cache_limit();
    EXPECT(old_limit > 0 && old_limit <= ((int64_t)1 << 30));
    EXPECT_OK(nt_set_cache_limit(10 * (int64_t)MiB));
    EXPECT(nt_get_cache_limit() == 10 * (int64_t)MiB);
    nt_memory_stats before = stats();

    enum { COUNT = 8 };
    unsigned char *blocks[COUNT];
    for (int i = 0; i < COUNT; i++) {
        blocks[i] = nt_alloc_data(4 * MiB);
        EXPECT(blocks[i] != NULL);
        if (blocks[i]) blocks[i][0] = (unsigned char)i; /* fault one page in */
    }
    for (int i = 0; i < COUNT; i++) {
        nt_free_data(blocks[i], 4 * MiB);
        EXPECT(stats().cached_bytes <= 10 * (int64_t)MiB);
    }
    nt_memory_stats after = stats();
    if (after.caching) {
        /* Two 4 MiB blocks fit under 10 MiB: the last two freed; the six older went back. */
        EXPECT(after.cached_bytes == 8 * (int64_t)MiB);
        EXPECT(after.cached_blocks == 2);
        EXPECT(after.releases == before.releases + 6);
        EXPECT(!is_mapped(blocks[0], 4 * MiB));
        EXPECT(is_mapped(blocks[COUNT - 1], 4 * MiB));
        void *p = nt_alloc_data(4 * MiB);
        EXPECT(p == blocks[COUNT - 1]); /* the most recently freed */
        nt_free_data(p, 4 * MiB);
    }

    /* Lowering the bound releases the oldest blocks at once. */
    EXPECT_OK(nt_set_cache_limit(5 * (int64_t)MiB));
    EXPECT(stats().cached_bytes <= 5 * (int64_t)MiB);
    if (after.caching) EXPECT(stats().cached_bytes == 4 * (int64_t)MiB);

    /* A block bigger than the bound is never cached. */
    void *big = nt_alloc_data(8 * MiB);
    EXPECT(big != NULL);
    nt_free_data(big, 8 * MiB);
    EXPECT(stats().cached_bytes <= 5 * (int64_t)MiB);
    if (after.caching) EXPECT(!is_mapped(big, 8 * MiB));

    /* A bound of zero caches nothing. */
    EXPECT_OK(nt_set_cache_limit(0));
    EXPECT(stats().cached_bytes == 0 && stats().cached_blocks == 0);
    void *z = nt_alloc_data(4 * MiB);
    nt_free_data(z, 4 * MiB);
    EXPECT(stats().cached_bytes == 0);

    EXPECT_ERR(nt_set_cache_limit(-1), NT_ERR_VALUE, "cache limit must be non-negative, got -1");
    EXPECT(nt_get_cache_limit() == 0); /* unchanged by the failed call */
    EXPECT_OK(nt_set_cache_limit(old_limit));
    EXPECT(stats().active_bytes == before.active_bytes);
}

static void test_empty_cache_releases_everything(void) {
    nt_empty_cache();
    size_t sizes[] = {MiB, 3 * MiB, 7 * MiB, 16 * MiB};
    enum { COUNT = sizeof sizes / sizeof *sizes };
    void *blocks[COUNT];
    for (int i = 0; i < COUNT; i++) {
        blocks[i] = nt_alloc_data(sizes[i]);
        EXPECT(blocks[i] != NULL);
        if (blocks[i]) memset(blocks[i], i, sizes[i]);
    }
    void *live = nt_alloc_data(2 * MiB);
    EXPECT(live != NULL);
    if (live) memset(live, 0x5A, 2 * MiB);
    for (int i = 0; i < COUNT; i++)
        nt_free_data(blocks[i], sizes[i]);
    nt_memory_stats full = stats();
    if (full.caching) {
        EXPECT(full.cached_blocks == COUNT);
        EXPECT(full.cached_bytes == (int64_t)(27 * MiB));
        EXPECT(full.active_bytes == (int64_t)(2 * MiB));
    }
    nt_empty_cache();
    nt_memory_stats empty = stats();
    EXPECT(empty.cached_bytes == 0 && empty.cached_blocks == 0);
    EXPECT(empty.active_bytes == full.active_bytes);
    if (full.caching) {
        EXPECT(empty.releases == full.releases + COUNT);
        for (int i = 0; i < COUNT; i++)
            EXPECT(!is_mapped(blocks[i], sizes[i]));
    }
    /* The block in use was left alone. */
    if (live) {
        EXPECT(is_mapped(live, 2 * MiB));
        EXPECT(((unsigned char *)live)[2 * MiB - 1] == 0x5A);
    }
    nt_free_data(live, 2 * MiB);
    nt_empty_cache();
}

/* Each thread holds two blocks at a time, writes a pattern of its own into one word per
 * 4 KiB (and the last word), and checks the pattern just before freeing. A block handed to
 * two threads at once shows up as a mismatch. */
enum { THREADS = 4, ROUNDS = 150 };

typedef struct worker {
    int id;
    size_t mismatches;
} worker;

static uint64_t pattern(int id, int round, size_t word) {
    return ((uint64_t)id << 56) ^ ((uint64_t)round << 32) ^ (uint64_t)word;
}

static void fill(uint64_t *p, size_t n, int id, int round) {
    size_t words = n / 8;
    for (size_t w = 0; w < words; w += 512)
        p[w] = pattern(id, round, w);
    p[words - 1] = pattern(id, round, words - 1);
}

static size_t check(const uint64_t *p, size_t n, int id, int round) {
    size_t words = n / 8, bad = 0;
    for (size_t w = 0; w < words; w += 512)
        bad += p[w] != pattern(id, round, w);
    bad += p[words - 1] != pattern(id, round, words - 1);
    return bad;
}

static void *work(void *arg) {
    worker *me = arg;
    const size_t sizes[] = {4096, MiB, MiB + 4096, 3 * MiB, 8 * MiB};
    uint64_t *held[2] = {NULL, NULL};
    size_t held_size[2] = {0, 0};
    int held_round[2] = {0, 0};
    unsigned seed = (unsigned)me->id * 2654435761u + 1;
    for (int round = 0; round < ROUNDS; round++) {
        int slot = round & 1;
        if (held[slot]) {
            me->mismatches += check(held[slot], held_size[slot], me->id, held_round[slot]);
            nt_free_data(held[slot], held_size[slot]);
        }
        seed = seed * 1103515245u + 12345u;
        size_t n = sizes[(seed >> 16) % (sizeof sizes / sizeof *sizes)];
        held[slot] = nt_alloc_data(n);
        held_size[slot] = n;
        held_round[slot] = round;
        if (!held[slot]) {
            me->mismatches++;
            continue;
        }
        fill(held[slot], n, me->id, round);
    }
    for (int slot = 0; slot < 2; slot++) {
        if (!held[slot]) continue;
        me->mismatches += check(held[slot], held_size[slot], me->id, held_round[slot]);
        nt_free_data(held[slot], held_size[slot]);
    }
    return NULL;
}

static void test_concurrent_alloc_and_free(void) {
    nt_empty_cache();
    int64_t old_limit = nt_get_cache_limit();
    /* A small bound so that eviction and unmapping race with allocation too. */
    EXPECT_OK(nt_set_cache_limit(24 * (int64_t)MiB));
    nt_memory_stats before = stats();
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (worker){.id = i};
        EXPECT(pthread_create(&threads[i], NULL, work, &workers[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        EXPECT(workers[i].mismatches == 0);
    }
    nt_memory_stats after = stats();
    EXPECT(after.active_bytes == before.active_bytes);
    EXPECT(after.cached_bytes <= 24 * (int64_t)MiB);
    if (after.caching) EXPECT(after.hits > before.hits); /* the cache was in play */
    EXPECT_OK(nt_set_cache_limit(old_limit));
    nt_empty_cache();
}

static void test_storage_round_trip_through_the_cache(void) {
    /* Tensors of 64 MiB made and dropped in a loop reuse one block. */
    nt_empty_cache();
    nt_memory_stats before = stats();
    int64_t sizes[1] = {(int64_t)1 << 24};
    for (int i = 0; i < 4; i++) {
        nt_tensor *t = NULL;
        EXPECT_OK(nt_tensor_alloc(NT_FLOAT32, 1, sizes, NULL, &t));
        nt_tensor_release(t);
    }
    nt_memory_stats after = stats();
    if (after.caching) {
        EXPECT(after.misses == before.misses + 1);
        EXPECT(after.hits == before.hits + 3);
        EXPECT(after.cached_bytes == (int64_t)(64 * MiB));
    }
    EXPECT(after.active_bytes == before.active_bytes);
    nt_empty_cache();
}

/* ------------------------------------------------------------------ measurements */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill_range(void *ctx, int64_t begin, int64_t end) {
    memset((char *)ctx + begin, 1, (size_t)(end - begin));
}

/* Allocate + write every byte + free, `iters` times: ms and minor faults per iteration. */
static void measure(const char *label, bool use_nt, int threads) {
    const size_t n = 64 * MiB;
    const int iters = 50;
    nt_set_num_threads(threads);
    for (int warm = 0; warm < 2; warm++) {
        void *p = use_nt ? nt_alloc_data(n) : aligned_alloc(64, n);
        nt_parallel_for(0, (int64_t)n, 1 << 20, fill_range, p);
        use_nt ? nt_free_data(p, n) : free(p);
    }
    long faults = minor_faults();
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        void *p = use_nt ? nt_alloc_data(n) : aligned_alloc(64, n);
        nt_parallel_for(0, (int64_t)n, 1 << 20, fill_range, p);
        use_nt ? nt_free_data(p, n) : free(p);
    }
    double ms = (now_s() - t0) * 1e3 / iters;
    printf("%-34s threads=%d  %8.3f ms/iter  %8.1f faults/iter\n", label, threads, ms,
           (double)(minor_faults() - faults) / iters);
}

static int run_measurements(void) {
    int64_t limit = nt_get_cache_limit();
    for (int threads = 1; threads <= 2; threads++) {
        measure("aligned_alloc (no cache, 4K pages)", false, threads);
        nt_alloc_set_huge_pages(false);
        EXPECT_OK(nt_set_cache_limit(0));
        measure("nt: no cache, 4K pages", true, threads);
        nt_alloc_set_huge_pages(true);
        measure("nt: no cache, MADV_HUGEPAGE", true, threads);
        EXPECT_OK(nt_set_cache_limit(limit));
        measure("nt: cache, MADV_HUGEPAGE", true, threads);
        nt_empty_cache();
        nt_alloc_set_huge_pages(false);
        measure("nt: cache, 4K pages", true, threads);
        nt_empty_cache();
        nt_alloc_set_huge_pages(true);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--measure") == 0) return run_measurements();
    NT_RUN(test_blocks_are_aligned_and_writable);
    NT_RUN(test_impossible_sizes_give_null);
    NT_RUN(test_size_classes_have_four_steps_per_octave);
    NT_RUN(test_freed_block_is_reused_without_faults);
    NT_RUN(test_block_in_use_is_never_handed_out);
    NT_RUN(test_cache_stays_within_its_bound);
    NT_RUN(test_empty_cache_releases_everything);
    NT_RUN(test_concurrent_alloc_and_free);
    NT_RUN(test_storage_round_trip_through_the_cache);
    return nt_test_summary();
}
