/*
 * half.h — float16 and bfloat16 as 16-bit storage types, with exact conversions to and from
 * float (round to nearest even, NaN kept a NaN). Written with bit operations so that they
 * need no special instruction set and loops over them vectorize.
 */
#ifndef NT_CORE_HALF_H
#define NT_CORE_HALF_H

#include <stdint.h>
#include <string.h>

typedef struct nt_float16 {
    uint16_t bits;
} nt_float16;
typedef struct nt_bfloat16 {
    uint16_t bits;
} nt_bfloat16;

static inline uint32_t nt_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float nt_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float nt_bf16_to_f32(nt_bfloat16 h) {
    return nt_bits_f32((uint32_t)h.bits << 16);
}

static inline nt_bfloat16 nt_f32_to_bf16(float f) {
    uint32_t u = nt_f32_bits(f);
    nt_bfloat16 h;
    if ((u & 0x7fffffffu) > 0x7f800000u) { /* NaN: keep it quiet and a NaN */
        h.bits = (uint16_t)((u >> 16) | 0x40u);
        return h;
    }
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    h.bits = (uint16_t)(u >> 16);
    return h;
}

/* float16 -> float: the method of Maratea/Giesen, exact for normals, subnormals, inf, NaN. */
static inline float nt_f16_to_f32(nt_float16 h) {
    const uint32_t sign = (uint32_t)(h.bits & 0x8000u) << 16;
    const uint32_t two_w = (uint32_t)h.bits << 17;
    const uint32_t exp_offset = 0xE0u << 23;
    const float exp_scale = 0x1.0p-112f;
    const float normalized = nt_bits_f32((two_w >> 4) + exp_offset) * exp_scale;
    const uint32_t magic_mask = 126u << 23;
    const float magic_bias = 0.5f;
    const float denormalized = nt_bits_f32((two_w >> 17) | magic_mask) - magic_bias;
    const uint32_t denormalized_cutoff = 1u << 27;
    const uint32_t result =
        sign | (two_w < denormalized_cutoff ? nt_f32_bits(denormalized) : nt_f32_bits(normalized));
    return nt_bits_f32(result);
}

/* float -> float16, rounding to nearest even, overflow to inf, NaN kept. */
static inline nt_float16 nt_f32_to_f16(float f) {
    const float scale_to_inf = 0x1.0p+112f;
    const float scale_to_zero = 0x1.0p-110f;
    float base = ((f < 0 ? -f : f) * scale_to_inf) * scale_to_zero;
    const uint32_t w = nt_f32_bits(f);
    const uint32_t shl1_w = w + w;
    const uint32_t sign = w & 0x80000000u;
    uint32_t bias = shl1_w & 0xFF000000u;
    if (bias < 0x71000000u) bias = 0x71000000u;
    base = nt_bits_f32((bias >> 1) + 0x07800000u) + base;
    const uint32_t bits = nt_f32_bits(base);
    const uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
    const uint32_t mantissa_bits = bits & 0x00000FFFu;
    const uint32_t nonsign = exp_bits + mantissa_bits;
    nt_float16 h;
    h.bits = (uint16_t)((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
    return h;
}

#endif
