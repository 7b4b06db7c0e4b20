/*
 * cpu.c — the CPU feature probe of cpu.h: CPUID leaves 1 and 7, and XGETBV for the
 * register state the operating system saves.
 */
#include "core/cpu.h"

#include <cpuid.h>
#include <pthread.h>
#include <stdint.h>

nt_cpu_features nt_cpu_found;
_Atomic bool nt_cpu_probed;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static uint64_t xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void probe_features(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    bool osxsave = c & (1u << 27), avx = c & (1u << 28), fma = c & (1u << 12);
    bool f16c = c & (1u << 29);
    if (!osxsave) return;
    uint64_t xcr0 = xgetbv0();
    bool ymm = (xcr0 & 0x6) == 0x6;   /* SSE and AVX state */
    bool zmm = (xcr0 & 0xe6) == 0xe6; /* plus opmask and the upper ZMM registers */
    if (!ymm || !avx) return;
    nt_cpu_found.f16c = f16c;
    if (__get_cpuid_max(0, NULL) < 7) return;
    __cpuid_count(7, 0, a, b, c, d);
    bool avx2 = b & (1u << 5);
    nt_cpu_found.avx2_fma = avx2 && fma;
    nt_cpu_found.avx512 = zmm && (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) &&
                          (b & (1u << 31)); /* F, DQ, BW, VL */
    if (nt_cpu_found.avx512) {
        __cpuid_count(7, 1, a, b, c, d);
        nt_cpu_found.avx512_bf16 = a & (1u << 5);
    }
}

static void probe(void) {
    probe_features();
    atomic_store_explicit(&nt_cpu_probed, true, memory_order_release);
}

void nt_cpu_probe(void) {
    pthread_once(&probe_once, probe);
}
