/*
 * bench_util.h — what the C benchmarks share: a monotonic clock and a check that stops the
 * program with the library's message when a call fails (a benchmark, not a library).
 */
#ifndef NT_BENCH_UTIL_H
#define NT_BENCH_UTIL_H

#define _POSIX_C_SOURCE 199309L
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

#endif
