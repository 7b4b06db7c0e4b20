/*
 * small_alloc.c — per-thread free lists of small blocks (see small_alloc.h).
 *
 * Each block carries a header of one max_align_t in front of what the caller sees, with
 * its size class (or NO_CLASS for a block straight from malloc), so that free needs no
 * size. A thread's lists are plain thread-local arrays: no locks, no atomics. A pthread
 * key's destructor empties them when the thread exits (OpenMP workers included).
 */
#include "small_alloc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define SMALL_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMALL_BYPASS 1
#endif
#endif
#ifndef SMALL_BYPASS
#define SMALL_BYPASS 0
#endif

#define SMALL_CLASSES 4
#define SMALL_MIN_BYTES 256 /* class c holds SMALL_MIN_BYTES << c bytes */
#define SMALL_CACHE_BLOCKS 32
#define NO_CLASS 0xff

typedef union block_header {
    unsigned char size_class;
    max_align_t align;
} block_header;

typedef struct thread_lists {
    int count[SMALL_CLASSES];
    bool registered; /* with the exit destructor */
    block_header *blocks[SMALL_CLASSES][SMALL_CACHE_BLOCKS];
} thread_lists;

static _Thread_local thread_lists lists;

/* This thread's lists, their address taken once per call: in a shared library it is a
 * call (__tls_get_addr), which the compiler would otherwise repeat at every use rather
 * than keep the address (the empty asm hides where it came from). */
static inline thread_lists *my_lists(void) {
    thread_lists *l = &lists;
    __asm__("" : "+r"(l));
    return l;
}
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void empty_lists(void *unused) {
    (void)unused;
    for (int c = 0; c < SMALL_CLASSES; c++) {
        while (lists.count[c] > 0)
            free(lists.blocks[c][--lists.count[c]]);
    }
}

static void make_exit_key(void) {
    if (pthread_key_create(&exit_key, empty_lists) != 0) exit_key = (pthread_key_t)-1;
}

/* The destructor runs only for threads that set the key: set it on a thread's first
 * free into its lists. Without a key (creation failed) blocks are not cached at all. */
static bool register_thread(thread_lists *l) {
    pthread_once(&exit_key_once, make_exit_key);
    if (exit_key == (pthread_key_t)-1 || pthread_setspecific(exit_key, l) != 0) return false;
    l->registered = true;
    return true;
}

static int class_of(size_t bytes) {
    for (int c = 0; c < SMALL_CLASSES; c++)
        if (bytes <= ((size_t)SMALL_MIN_BYTES << c) - sizeof(block_header)) return c;
    return NO_CLASS;
}

void *nt_small_alloc(size_t bytes) {
    int c = SMALL_BYPASS ? NO_CLASS : class_of(bytes);
    block_header *h;
    thread_lists *l = my_lists();
    if (c != NO_CLASS && l->count[c] > 0) {
        h = l->blocks[c][--l->count[c]];
    } else {
        size_t total = c != NO_CLASS ? (size_t)SMALL_MIN_BYTES << c : sizeof *h + bytes;
        if (total < bytes) return NULL; /* overflow */
        h = malloc(total);
        if (!h) return NULL;
        h->size_class = (unsigned char)c;
    }
    return h + 1;
}

void nt_small_free(void *block) {
    if (!block) return;
    block_header *h = (block_header *)block - 1;
    int c = h->size_class;
    thread_lists *l = my_lists();
    if (c != NO_CLASS && l->count[c] < SMALL_CACHE_BLOCKS &&
        (l->registered || register_thread(l))) {
        l->blocks[c][l->count[c]++] = h;
        return;
    }
    free(h);
}
