/*
 * bench_util.h — what the C benchmarks share: a monotonic clock and a check that stops the
 * program with the library's message when a call fails (a benchmark, not a library).
 */
#ifndef NT_BENCH_UTIL_H
#define NT_BENCH_UTIL_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ntensor.h"

static inline double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void check(nt_status st) {
    if (st != NT_OK) {
        fprintf(stderr, "error: %s\n", nt_last_error());
        exit(1);
    }
}

/* The rate of a chain of dependent register adds, one per cycle on any x86-64 core: the
 * clock this thread actually gets, in GHz. On a shared host it drifts (we have seen 2.3
 * and 1.0 within minutes), and per-call figures in ns scale with it. */
static inline double effective_ghz(void) {
    const long loops = 25000000; /* eight adds a loop, so the loop's own count is hidden */
    unsigned long x = 0;
    double start = now();
    for (long i = 0; i < loops; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                         : "+r"(x));
    return 8.0 * (double)loops / (now() - start) / 1e9;
}

#endif
