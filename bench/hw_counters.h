/*
 * hw_counters.h — this thread's user-space instructions and cycles, from the CPU's
 * counters (perf_event_open). Instructions per call do not depend on the host's mood;
 * cycles per instruction show how much of the core the thread got. Include first: it
 * needs _GNU_SOURCE for syscall().
 */
#ifndef NT_BENCH_HW_COUNTERS_H
#define NT_BENCH_HW_COUNTERS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct hw_counters {
    int instructions, cycles; /* file descriptors, -1 when unavailable */
} hw_counters;

typedef struct hw_reading {
    uint64_t instructions, cycles;
} hw_reading;

static inline int hw_open(uint64_t config) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = config;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/* Opens both counters for the calling thread; false when the kernel or the VM refuses. */
static inline bool hw_counters_open(hw_counters *c) {
    c->instructions = hw_open(PERF_COUNT_HW_INSTRUCTIONS);
    c->cycles = hw_open(PERF_COUNT_HW_CPU_CYCLES);
    return c->instructions >= 0 && c->cycles >= 0;
}

static inline hw_reading hw_read(const hw_counters *c) {
    hw_reading r = {0, 0};
    if (read(c->instructions, &r.instructions, sizeof r.instructions) != sizeof r.instructions)
        r.instructions = 0;
    if (read(c->cycles, &r.cycles, sizeof r.cycles) != sizeof r.cycles) r.cycles = 0;
    return r;
}

static inline void hw_counters_close(hw_counters *c) {
    if (c->instructions >= 0) close(c->instructions);
    if (c->cycles >= 0) close(c->cycles);
}

#endif
