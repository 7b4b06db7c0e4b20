/*
 * philox.h — the Philox 4x32-10 counter-based generator (Salmon et al., "Parallel Random
 * Numbers: As Easy as 1, 2, 3", SC11), and the bit-to-float transforms random fills use.
 *
 * Philox is a pure function of a 128-bit counter and a 64-bit key: there is no state to
 * advance, so any element of a random fill can be computed on any thread from its index
 * alone. That is what makes the fills of random.c independent of the thread count.
 * The block function works on PHILOX_LANES counters at once, written lane by lane so that
 * the compiler vectorizes the 32x32->64 multiplies.
 */
#ifndef NT_KERNELS_PHILOX_H
#define NT_KERNELS_PHILOX_H

#include <stdint.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* the golden ratio */
#define PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */
#define PHILOX_ROUNDS 10

/* One Philox 4x32-10 block: ctr (4 words) and key (2 words) in, 4 random words out. The
 * reference against which the lane-parallel version is tested (Random123's known answers). */
static inline void nt_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                    uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < PHILOX_ROUNDS; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* Counters handled per call of nt_philox_block: enough to fill vector registers. */
#define PHILOX_LANES 64

/* Philox outputs for the PHILOX_LANES counters first, first+1, ... (as the low 64 bits of
 * the 128-bit counter; the high words are zero), key = the seed's two halves. Output word w
 * of counter first+j goes to out[w][j]. */
static inline void nt_philox_block(uint64_t first, uint64_t seed,
                                   uint32_t out[4][PHILOX_LANES]) {
    uint32_t c0[PHILOX_LANES], c1[PHILOX_LANES], c2[PHILOX_LANES], c3[PHILOX_LANES];
    for (int j = 0; j < PHILOX_LANES; j++) {
        uint64_t c = first + (uint64_t)j;
        c0[j] = (uint32_t)c;
        c1[j] = (uint32_t)(c >> 32);
        c2[j] = 0;
        c3[j] = 0;
    }
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < PHILOX_ROUNDS; r++) {
        for (int j = 0; j < PHILOX_LANES; j++) {
            uint64_t p0 = (uint64_t)PHILOX_M0 * c0[j];
            uint64_t p1 = (uint64_t)PHILOX_M1 * c2[j];
            uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[j] ^ k0;
            uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3[j] ^ k1;
            c1[j] = (uint32_t)p1;
            c3[j] = (uint32_t)p0;
            c0[j] = n0;
            c2[j] = n2;
        }
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    for (int j = 0; j < PHILOX_LANES; j++) {
        out[0][j] = c0[j];
        out[1][j] = c1[j];
        out[2][j] = c2[j];
        out[3][j] = c3[j];
    }
}

/* A float in [0, 1) from the top 24 bits of x: every value is a multiple of 2^-24. */
static inline float nt_bits_to_unit_f32(uint32_t x) { return (float)(x >> 8) * 0x1.0p-24f; }

/* A double in [0, 1) from 53 bits of two words. */
static inline double nt_bits_to_unit_f64(uint32_t hi, uint32_t lo) {
    uint64_t x = ((uint64_t)hi << 21) | (uint64_t)(lo >> 11); /* 32 + 21 bits */
    return (double)x * 0x1.0p-53;
}

#endif
