/*
 * philox.h — the Philox 4x32-10 counter-based generator (Salmon et al., "Parallel Random
 * Numbers: As Easy as 1, 2, 3", SC11), and the bit-to-float transforms random fills use.
 *
 * Philox is a pure function of a 128-bit counter and a 64-bit key: there is no state to
 * advance, so any element of a random fill can be computed on any thread from its index
 * alone. That is what makes the fills of random.c independent of the thread count.
 * The block function works on PHILOX_LANES counters at once, written lane by lane so that
 * the compiler vectorizes the 32x32->64 multiplies. The float Box-Muller transform is
 * branch-free polynomial code (Cephes' logf, sinf and cosf kernels) for the same reason:
 * libm's scalar calls would cost more than the generator itself.
 */
#ifndef NT_KERNELS_PHILOX_H
#define NT_KERNELS_PHILOX_H

#include <stdint.h>
#include <string.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* the golden ratio */
#define PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */
#define PHILOX_ROUNDS 10

/* One Philox 4x32-10 block: ctr (4 words) and key (2 words) in, 4 random words out. The
 * reference against which the lane-parallel version is tested (Random123's known answers). */
static inline void nt_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
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

/* Philox outputs for the counters first, first+1, ..., first+lanes-1 (lanes <= PHILOX_LANES;
 * the counter's low 64 bits, its high words zero), key = the seed's two halves. Output word
 * w of counter first+j goes to out[w][j]; lanes past `lanes` are left alone, so a small fill
 * pays for the counters it uses only. */
static inline void nt_philox_lanes(uint64_t first, uint64_t seed, uint32_t out[4][PHILOX_LANES],
                                   int lanes) {
    uint32_t c0[PHILOX_LANES], c1[PHILOX_LANES], c2[PHILOX_LANES], c3[PHILOX_LANES];
    for (int j = 0; j < lanes; j++) {
        uint64_t c = first + (uint64_t)j;
        c0[j] = (uint32_t)c;
        c1[j] = (uint32_t)(c >> 32);
        c2[j] = 0;
        c3[j] = 0;
    }
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < PHILOX_ROUNDS; r++) {
        for (int j = 0; j < lanes; j++) {
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
    for (int j = 0; j < lanes; j++) {
        out[0][j] = c0[j];
        out[1][j] = c1[j];
        out[2][j] = c2[j];
        out[3][j] = c3[j];
    }
}

/* All PHILOX_LANES counters from first. */
static inline void nt_philox_block(uint64_t first, uint64_t seed, uint32_t out[4][PHILOX_LANES]) {
    nt_philox_lanes(first, seed, out, PHILOX_LANES);
}

/* A float in [0, 1) from the top 24 bits of x: every value is a multiple of 2^-24. */
static inline float nt_bits_to_unit_f32(uint32_t x) {
    return (float)(x >> 8) * 0x1.0p-24f;
}

/* A double in [0, 1) from 53 bits of two words. */
static inline double nt_bits_to_unit_f64(uint32_t hi, uint32_t lo) {
    uint64_t x = ((uint64_t)hi << 21) | (uint64_t)(lo >> 11); /* 32 + 21 bits */
    return (double)x * 0x1.0p-53;
}

/* log(x) for a normal float x > 0, within 1 ulp: Cephes' logf, written without branches. */
static inline float nt_logf_approx(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    /* x = m * 2^e with m in [sqrt(1/2), sqrt(2)), found with integer operations only (the
     * compiler vectorizes integer selects, but not branches on floats) */
    uint32_t mbits = (bits & 0x007fffffu) | 0x3f000000u; /* m in [0.5, 1) */
    int32_t small = mbits < 0x3f3504f3u;                 /* m < sqrt(1/2): double it */
    float e = (float)((int32_t)(bits >> 23) - 126 - small);
    mbits += (uint32_t)small << 23;
    float m;
    memcpy(&m, &mbits, sizeof m);
    float t = m - 1.0f;
    float z = t * t;
    float y = 7.0376836292e-2f;
    y = y * t - 1.1514610310e-1f;
    y = y * t + 1.1676998740e-1f;
    y = y * t - 1.2420140846e-1f;
    y = y * t + 1.4249322787e-1f;
    y = y * t - 1.6668057665e-1f;
    y = y * t + 2.0000714765e-1f;
    y = y * t - 2.4999993993e-1f;
    y = y * t + 3.3333331174e-1f;
    y = y * t * z;
    y += -2.12194440e-4f * e; /* log(2) split in two parts for accuracy */
    y += -0.5f * z;
    return t + y + 0.693359375f * e;
}

/* sqrt(y) for y = 0 or a normal float, within 1 ulp: Newton steps on the classic bit-trick
 * estimate of 1/sqrt(y). libm's sqrtf would do, but its errno path (a call for y < 0)
 * keeps the compiler from vectorizing the loop around it. */
static inline float nt_sqrtf_approx(float y) {
    uint32_t bits;
    memcpy(&bits, &y, sizeof bits);
    bits = 0x5f3759dfu - (bits >> 1);
    float g;
    memcpy(&g, &bits, sizeof g);
    float h = 0.5f * y;
    g = g * (1.5f - h * g * g);
    g = g * (1.5f - h * g * g);
    float r = y * g;                     /* 0 for y = 0: g stays finite */
    return r + (0.5f * g) * (y - r * r); /* a last Newton step on sqrt itself */
}

/* A pair of independent standard normals from two random words (Box-Muller):
 * r = sqrt(-2 log u1) with u1 = 1 - a/2^32 in (0, 1], angle 2 pi * b/2^32 from 24 bits of b.
 * The angle is reduced exactly with integers: b's top 24 bits k give the quadrant
 * j = round(k / 2^22) and the remainder (k - j 2^22) * 2 pi / 2^24 in [-pi/4, pi/4). */
static inline void nt_box_muller_f32(uint32_t a, uint32_t b, float *z0, float *z1) {
    float u1 = (float)(0x1000000u - (a >> 8)) * 0x1.0p-24f;
    float r = nt_sqrtf_approx(-2.0f * nt_logf_approx(u1));
    int32_t k = (int32_t)(b >> 8);
    int32_t j = (k + 0x200000) >> 22;
    float x = (float)(k - (j << 22)) * (float)(6.283185307179586 / 16777216.0);
    float z = x * x;
    float s = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * x + x;
    float c =
        ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z -
        0.5f * z + 1.0f;
    /* sin and cos of j * pi/2 + x */
    float sin_v = (j & 1) ? c : s, cos_v = (j & 1) ? s : c;
    sin_v *= (j & 2) ? -1.0f : 1.0f;
    cos_v *= ((j + 1) & 2) ? -1.0f : 1.0f;
    *z0 = r * cos_v;
    *z1 = r * sin_v;
}

#endif
