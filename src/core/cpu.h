/*
 * cpu.h — what this CPU can run (layer L0), probed once with CPUID and XGETBV.
 *
 * The library is compiled for x86-64-v2; faster loops for AVX2, FMA, F16C or AVX-512 live
 * in functions with their own target attribute and are chosen at run time from these
 * flags. A feature counts only when the operating system saves its registers (XGETBV), as
 * the compilers' own __builtin_cpu_supports checks. The flags are computed on first use
 * and never change; reading them is one load.
 */
#ifndef NT_CORE_CPU_H
#define NT_CORE_CPU_H

#include <stdatomic.h>
#include <stdbool.h>

typedef struct nt_cpu_features {
    bool avx2_fma;    /* AVX2 and FMA3: the "x86-64-v3" loops */
    bool f16c;        /* the float16 conversion instructions (with AVX) */
    bool avx512;      /* AVX-512 F, BW, DQ and VL */
    bool avx512_bf16; /* AVX512_BF16: vdpbf16ps, vcvtne2ps2bf16 */
} nt_cpu_features;

/* The probe's result (cpu.c): nt_cpu_probe fills nt_cpu_found once, then sets
 * nt_cpu_probed. */
extern nt_cpu_features nt_cpu_found;
extern _Atomic bool nt_cpu_probed;
void nt_cpu_probe(void);

/* The features of this CPU, probed on the first call. Inline: kernels ask per call. */
static inline const nt_cpu_features *nt_cpu(void) {
    if (!atomic_load_explicit(&nt_cpu_probed, memory_order_acquire)) nt_cpu_probe();
    return &nt_cpu_found;
}

#endif
