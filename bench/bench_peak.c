/*
 * bench_peak.c — the machine's float32 fused-multiply-add peak, the yardstick of the matrix
 * products' GFLOP/s (bench/bench_ops.py's linalg rows report their % of it).
 *
 * How it measures: every thread runs a loop of independent vector FMAs on registers only (16
 * accumulators: enough to cover the FMA latency times the FMA pipes of any current x86 core),
 * AVX-512 when the CPU has it, else AVX2 + FMA, else it says so and exits. The threads start
 * together; the time from the first thread's start to the last one's end gives GFLOP/s (2 flops
 * per lane per FMA). The threads read the clock themselves: the main thread, which only
 * waits, may be scheduled late on a machine with as many CPUs as workers. Best of
 * REPEATS runs, for 1 thread and for NT_BENCH_THREADS threads (2 by default, the benchmarks'
 * count). Prints one line per thread count: "peak fp32 <isa> threads=<t>: <x> GFLOP/s".
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPEATS 7
#define ITERS 20000000L /* FMA rounds of 16 vectors per thread per run */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 16 dependency chains of FMAs; the asm barrier keeps the compiler from folding the loop. */
#define FMA_LOOP(NAME, TARGET, VEC, SET1, FMADD, ADD, STORE, LANES)                                \
    __attribute__((target(TARGET))) static float NAME(long iters) {                                \
        VEC a = SET1(1.0000001f), b = SET1(0.9999999f);                                            \
        VEC c0 = SET1(0.f), c1 = SET1(1.f), c2 = SET1(2.f), c3 = SET1(3.f), c4 = SET1(4.f);        \
        VEC c5 = SET1(5.f), c6 = SET1(6.f), c7 = SET1(7.f), c8 = SET1(8.f), c9 = SET1(9.f);        \
        VEC c10 = SET1(10.f), c11 = SET1(11.f), c12 = SET1(12.f), c13 = SET1(13.f);                \
        VEC c14 = SET1(14.f), c15 = SET1(15.f);                                                    \
        for (long i = 0; i < iters; i++) {                                                         \
            c0 = FMADD(a, c0, b), c1 = FMADD(a, c1, b), c2 = FMADD(a, c2, b);                      \
            c3 = FMADD(a, c3, b), c4 = FMADD(a, c4, b), c5 = FMADD(a, c5, b);                      \
            c6 = FMADD(a, c6, b), c7 = FMADD(a, c7, b), c8 = FMADD(a, c8, b);                      \
            c9 = FMADD(a, c9, b), c10 = FMADD(a, c10, b), c11 = FMADD(a, c11, b);                  \
            c12 = FMADD(a, c12, b), c13 = FMADD(a, c13, b), c14 = FMADD(a, c14, b);                \
            c15 = FMADD(a, c15, b);                                                                \
            __asm__ volatile(""                                                                    \
                             : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5),         \
                               "+v"(c6), "+v"(c7));                                                \
            __asm__ volatile(""                                                                    \
                             : "+v"(c8), "+v"(c9), "+v"(c10), "+v"(c11), "+v"(c12), "+v"(c13),     \
                               "+v"(c14), "+v"(c15));                                              \
        }                                                                                          \
        VEC s = ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7)));                 \
        s = ADD(s, ADD(ADD(ADD(c8, c9), ADD(c10, c11)), ADD(ADD(c12, c13), ADD(c14, c15))));       \
        float out[LANES];                                                                          \
        STORE(out, s);                                                                             \
        return out[0];                                                                             \
    }

FMA_LOOP(loop_avx512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps,
         _mm512_storeu_ps, 16)
FMA_LOOP(loop_avx2, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps,
         _mm256_storeu_ps, 8)

typedef struct worker {
    pthread_barrier_t *start;
    int avx512;
    double begin, end;
    float sink;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    pthread_barrier_wait(w->start);
    w->begin = now();
    w->sink = w->avx512 ? loop_avx512(ITERS) : loop_avx2(ITERS);
    w->end = now();
    return NULL;
}

/* GFLOP/s of `threads` threads running the loop at once (best of REPEATS). */
static double peak(int threads, int avx512) {
    double best = 0;
    for (int r = 0; r < REPEATS; r++) {
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
        pthread_t tid[64];
        worker w[64];
        for (int t = 0; t < threads; t++) {
            w[t] = (worker){.start = &start, .avx512 = avx512};
            pthread_create(&tid[t], NULL, work, &w[t]);
        }
        pthread_barrier_wait(&start);
        double t0 = 0, t1 = 0;
        for (int t = 0; t < threads; t++) {
            pthread_join(tid[t], NULL);
            if (t == 0 || w[t].begin < t0) t0 = w[t].begin;
            if (w[t].end > t1) t1 = w[t].end;
            if (w[t].sink == 12345.f) puts(""); /* keep the result alive */
        }
        pthread_barrier_destroy(&start);
        double flops = 2.0 * 16 * (avx512 ? 16 : 8) * (double)ITERS * threads;
        if (flops / (t1 - t0) > best) best = flops / (t1 - t0);
    }
    return best / 1e9;
}

int main(void) {
    __builtin_cpu_init();
    int avx512 = __builtin_cpu_supports("avx512f");
    if (!avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
        puts("peak fp32: this CPU has neither AVX-512 nor AVX2 + FMA");
        return 0;
    }
    const char *env = getenv("NT_BENCH_THREADS");
    int threads = env ? atoi(env) : 2;
    if (threads < 1 || threads > 64) threads = 2;
    const char *isa = avx512 ? "avx512" : "avx2";
    printf("peak fp32 %s threads=1: %.1f GFLOP/s\n", isa, peak(1, avx512));
    if (threads > 1)
        printf("peak fp32 %s threads=%d: %.1f GFLOP/s\n", isa, threads, peak(threads, avx512));
    return 0;
}
