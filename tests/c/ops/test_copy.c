/*
 * test_copy.c — copy_, fill_, zero_, contiguous, clone, to(dtype), item and get_double:
 * values for every dtype pair checked against PyTorch 1.13, the errors and their texts,
 * overlap handling and names.
 */
#include <stdlib.h>

#include "core/tensor.h"
#include "nt_test.h"

/* ------------------------------------------------------------------ torch's values */

/* The tricky values of each source dtype, and what PyTorch 1.13 (CPU, x86 with AVX2)
 * converts them to, as raw bits (a bool as 0/1). Produced with torch, for each pair:
 *     x = torch.tensor(values, dtype=src)
 *     y = x.repeat(8).to(dst)[:len(x)]       # the long, vectorised path
 *     z = torch.empty(2 * len(x), dtype=dst)[::2]; z.copy_(x)   # a strided path
 *     assert y and z agree (NaN payloads aside); the bits of y are written below
 * (via .view() of an integer dtype of the same size). */
typedef struct source_values {
    nt_dtype dtype;
    int n;
    uint64_t bits[48];
} source_values;

typedef struct converted_values {
    nt_dtype dst, src;
    uint64_t bits[48];
} converted_values;

static const source_values sources[] = {
    /* NT_BOOL: [False, True] */
    {NT_BOOL, 2, {0x0, 0x1}},
    /* NT_UINT8: [0, 1, 127, 128, 200, 255] */
    {NT_UINT8, 6, {0x0, 0x1, 0x7f, 0x80, 0xc8, 0xff}},
    /* NT_INT8: [0, 1, -1, 127, -128, -7] */
    {NT_INT8, 6, {0x0, 0x1, 0xff, 0x7f, 0x80, 0xf9}},
    /* NT_INT16: [0, -1, 255, 256, -129, 32767, -32768, 2049, 2051, 257, 259] */
    {NT_INT16, 11, {0x0, 0xffff, 0xff, 0x100, 0xff7f, 0x7fff, 0x8000, 0x801, 0x803, 0x101, 0x103}},
    /* NT_INT32: [0, -1, 255, 256, 65504, 65519, 65520, 2049, 16777217, 2147483647, -2147483648,
       257, 259, -300] */
    {NT_INT32,
     14,
     {0x0, 0xffffffff, 0xff, 0x100, 0xffe0, 0xffef, 0xfff0, 0x801, 0x1000001, 0x7fffffff,
      0x80000000, 0x101, 0x103, 0xfffffed4}},
    /* NT_INT64: [0, -1, 2049, 65520, 16777217, 9007199254740993, 9223372036854775807,
       -9223372036854775808, 4303355905, 4294967297, -2147483649, 257, 259, -300] */
    {NT_INT64,
     14,
     {0x0, 0xffffffffffffffff, 0x801, 0xfff0, 0x1000001, 0x20000000000001, 0x7fffffffffffffff,
      0x8000000000000000, 0x100800001, 0x100000001, 0xffffffff7fffffff, 0x101, 0x103,
      0xfffffffffffffed4}},
    /* NT_FLOAT16: [0.0, -0.0, 0.5, -1.5, 2.5, 65504.0, -65504.0, inf, -inf, nan, 6e-08, 300.5,
       255.875, -129.5, 1e-05] */
    {NT_FLOAT16,
     15,
     {0x0, 0x8000, 0x3800, 0xbe00, 0x4100, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x1, 0x5cb2,
      0x5bff, 0xd80c, 0xa8}},
    /* NT_BFLOAT16: [0.0, -0.0, 0.5, -1.5, 3e+38, -3e+38, inf, nan, 1e-40, 65536.0, 300.0,
       10000000000.0, 2.5, -129.0, -2100000000.0] */
    {NT_BFLOAT16,
     15,
     {0x0, 0x8000, 0x3f00, 0xbfc0, 0x7f62, 0xff62, 0x7f80, 0x7fc0, 0x1, 0x4780, 0x4396, 0x5015,
      0x4020, 0xc301, 0xcefa}},
    /* NT_FLOAT32: [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -1.7, 255.9, 256.0, 300.7, -129.5, 65504.0,
       65519.0, 65520.0, 3000000000.0, -3000000000.0, 10000000000.0, 1e+20, nan, inf, -inf, 1e-08,
       16777216.0, 2147483648.0, -2147483648.0, -2147483904.0, 2147483520.0, 9.3e+18,
       1e-45, 3.4e+38, 1.00048828125, 1.00146484375, 1.00390625, -1e-07] */
    {NT_FLOAT32, 34, {0x0,        0x80000000, 0x3f000000, 0xbf000000, 0x3fc00000, 0x40200000,
                      0xbfd9999a, 0x437fe666, 0x43800000, 0x4396599a, 0xc3018000, 0x477fe000,
                      0x477fef00, 0x477ff000, 0x4f32d05e, 0xcf32d05e, 0x501502f9, 0x60ad78ec,
                      0x7fc00000, 0x7f800000, 0xff800000, 0x322bcc77, 0x4b800000, 0x4f000000,
                      0xcf000000, 0xcf000001, 0x4effffff, 0x5f01103d, 0x1,        0x7f7fc99e,
                      0x3f801000, 0x3f803000, 0x3f808000, 0xb3d6bf95}},
    /* NT_FLOAT64: [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -1.7, 255.9, 256.0, 300.7, -129.5, 65504.0,
       65519.0, 65520.0, 3000000000.0, -3000000000.0, 10000000000.0, 1e+20, nan, inf, -inf, 1e-08,
       16777216.0, 2147483648.0, -2147483648.0, -2147483904.0, 2147483520.0, 9.3e+18,
       1e-45, 3.4e+38, 1.00048828125, 1.00146484375, 1.00390625, -1e-07, 4294967297.0,
       -2147483649.0, 3000000001.0, 1000000000007.0, 1.0004882821813226, 1.8e+19, -9.3e+18, 1e+300,
       5e-324, 16777217.0, 2049.0] */
    {NT_FLOAT64,
     45,
     {0x0,
      0x8000000000000000,
      0x3fe0000000000000,
      0xbfe0000000000000,
      0x3ff8000000000000,
      0x4004000000000000,
      0xbffb333333333333,
      0x406ffccccccccccd,
      0x4070000000000000,
      0x4072cb3333333333,
      0xc060300000000000,
      0x40effc0000000000,
      0x40effde000000000,
      0x40effe0000000000,
      0x41e65a0bc0000000,
      0xc1e65a0bc0000000,
      0x4202a05f20000000,
      0x4415af1d78b58c40,
      0x7ff8000000000000,
      0x7ff0000000000000,
      0xfff0000000000000,
      0x3e45798ee2308c3a,
      0x4170000000000000,
      0x41e0000000000000,
      0xc1e0000000000000,
      0xc1e0000020000000,
      0x41dfffffe0000000,
      0x43e02207973f6440,
      0x3696d601ad376ab9,
      0x47eff933c78cdfad,
      0x3ff0020000000000,
      0x3ff0060000000000,
      0x3ff0100000000000,
      0xbe7ad7f29abcaf48,
      0x41f0000000100000,
      0xc1e0000000200000,
      0x41e65a0bc0200000,
      0x426d1a94a200e000,
      0x3ff0020000400000,
      0x43ef399b1438a100,
      0xc3e02207973f6440,
      0x7e37e43c8800759c,
      0x1,
      0x4170000010000000,
      0x40a0020000000000}},
};

static const converted_values expected[] = {
    {NT_BOOL, NT_BOOL, {0x0, 0x1}},
    {NT_UINT8, NT_BOOL, {0x0, 0x1}},
    {NT_INT8, NT_BOOL, {0x0, 0x1}},
    {NT_INT16, NT_BOOL, {0x0, 0x1}},
    {NT_INT32, NT_BOOL, {0x0, 0x1}},
    {NT_INT64, NT_BOOL, {0x0, 0x1}},
    {NT_FLOAT16, NT_BOOL, {0x0, 0x3c00}},
    {NT_BFLOAT16, NT_BOOL, {0x0, 0x3f80}},
    {NT_FLOAT32, NT_BOOL, {0x0, 0x3f800000}},
    {NT_FLOAT64, NT_BOOL, {0x0, 0x3ff0000000000000}},
    {NT_BOOL, NT_UINT8, {0x0, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8, NT_UINT8, {0x0, 0x1, 0x7f, 0x80, 0xc8, 0xff}},
    {NT_INT8, NT_UINT8, {0x0, 0x1, 0x7f, 0x80, 0xc8, 0xff}},
    {NT_INT16, NT_UINT8, {0x0, 0x1, 0x7f, 0x80, 0xc8, 0xff}},
    {NT_INT32, NT_UINT8, {0x0, 0x1, 0x7f, 0x80, 0xc8, 0xff}},
    {NT_INT64, NT_UINT8, {0x0, 0x1, 0x7f, 0x80, 0xc8, 0xff}},
    {NT_FLOAT16, NT_UINT8, {0x0, 0x3c00, 0x57f0, 0x5800, 0x5a40, 0x5bf8}},
    {NT_BFLOAT16, NT_UINT8, {0x0, 0x3f80, 0x42fe, 0x4300, 0x4348, 0x437f}},
    {NT_FLOAT32, NT_UINT8, {0x0, 0x3f800000, 0x42fe0000, 0x43000000, 0x43480000, 0x437f0000}},
    {NT_FLOAT64,
     NT_UINT8,
     {0x0, 0x3ff0000000000000, 0x405fc00000000000, 0x4060000000000000, 0x4069000000000000,
      0x406fe00000000000}},
    {NT_BOOL, NT_INT8, {0x0, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8, NT_INT8, {0x0, 0x1, 0xff, 0x7f, 0x80, 0xf9}},
    {NT_INT8, NT_INT8, {0x0, 0x1, 0xff, 0x7f, 0x80, 0xf9}},
    {NT_INT16, NT_INT8, {0x0, 0x1, 0xffff, 0x7f, 0xff80, 0xfff9}},
    {NT_INT32, NT_INT8, {0x0, 0x1, 0xffffffff, 0x7f, 0xffffff80, 0xfffffff9}},
    {NT_INT64,
     NT_INT8,
     {0x0, 0x1, 0xffffffffffffffff, 0x7f, 0xffffffffffffff80, 0xfffffffffffffff9}},
    {NT_FLOAT16, NT_INT8, {0x0, 0x3c00, 0xbc00, 0x57f0, 0xd800, 0xc700}},
    {NT_BFLOAT16, NT_INT8, {0x0, 0x3f80, 0xbf80, 0x42fe, 0xc300, 0xc0e0}},
    {NT_FLOAT32, NT_INT8, {0x0, 0x3f800000, 0xbf800000, 0x42fe0000, 0xc3000000, 0xc0e00000}},
    {NT_FLOAT64,
     NT_INT8,
     {0x0, 0x3ff0000000000000, 0xbff0000000000000, 0x405fc00000000000, 0xc060000000000000,
      0xc01c000000000000}},
    {NT_BOOL, NT_INT16, {0x0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8, NT_INT16, {0x0, 0xff, 0xff, 0x0, 0x7f, 0xff, 0x0, 0x1, 0x3, 0x1, 0x3}},
    {NT_INT8, NT_INT16, {0x0, 0xff, 0xff, 0x0, 0x7f, 0xff, 0x0, 0x1, 0x3, 0x1, 0x3}},
    {NT_INT16,
     NT_INT16,
     {0x0, 0xffff, 0xff, 0x100, 0xff7f, 0x7fff, 0x8000, 0x801, 0x803, 0x101, 0x103}},
    {NT_INT32,
     NT_INT16,
     {0x0, 0xffffffff, 0xff, 0x100, 0xffffff7f, 0x7fff, 0xffff8000, 0x801, 0x803, 0x101, 0x103}},
    {NT_INT64,
     NT_INT16,
     {0x0, 0xffffffffffffffff, 0xff, 0x100, 0xffffffffffffff7f, 0x7fff, 0xffffffffffff8000, 0x801,
      0x803, 0x101, 0x103}},
    {NT_FLOAT16,
     NT_INT16,
     {0x0, 0xbc00, 0x5bf8, 0x5c00, 0xd808, 0x7800, 0xf800, 0x6800, 0x6802, 0x5c04, 0x5c0c}},
    {NT_BFLOAT16,
     NT_INT16,
     {0x0, 0xbf80, 0x437f, 0x4380, 0xc301, 0x4700, 0xc700, 0x4500, 0x4500, 0x4380, 0x4382}},
    {NT_FLOAT32,
     NT_INT16,
     {0x0, 0xbf800000, 0x437f0000, 0x43800000, 0xc3010000, 0x46fffe00, 0xc7000000, 0x45001000,
      0x45003000, 0x43808000, 0x43818000}},
    {NT_FLOAT64,
     NT_INT16,
     {0x0, 0xbff0000000000000, 0x406fe00000000000, 0x4070000000000000, 0xc060200000000000,
      0x40dfffc000000000, 0xc0e0000000000000, 0x40a0020000000000, 0x40a0060000000000,
      0x4070100000000000, 0x4070300000000000}},
    {NT_BOOL, NT_INT32, {0x0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8,
     NT_INT32,
     {0x0, 0xff, 0xff, 0x0, 0xe0, 0xef, 0xf0, 0x1, 0x1, 0xff, 0x0, 0x1, 0x3, 0xd4}},
    {NT_INT8,
     NT_INT32,
     {0x0, 0xff, 0xff, 0x0, 0xe0, 0xef, 0xf0, 0x1, 0x1, 0xff, 0x0, 0x1, 0x3, 0xd4}},
    {NT_INT16,
     NT_INT32,
     {0x0, 0xffff, 0xff, 0x100, 0xffe0, 0xffef, 0xfff0, 0x801, 0x1, 0xffff, 0x0, 0x101, 0x103,
      0xfed4}},
    {NT_INT32,
     NT_INT32,
     {0x0, 0xffffffff, 0xff, 0x100, 0xffe0, 0xffef, 0xfff0, 0x801, 0x1000001, 0x7fffffff,
      0x80000000, 0x101, 0x103, 0xfffffed4}},
    {NT_INT64,
     NT_INT32,
     {0x0, 0xffffffffffffffff, 0xff, 0x100, 0xffe0, 0xffef, 0xfff0, 0x801, 0x1000001, 0x7fffffff,
      0xffffffff80000000, 0x101, 0x103, 0xfffffffffffffed4}},
    {NT_FLOAT16,
     NT_INT32,
     {0x0, 0xbc00, 0x5bf8, 0x5c00, 0x7bff, 0x7bff, 0x7c00, 0x6800, 0x7c00, 0x7c00, 0xfc00, 0x5c04,
      0x5c0c, 0xdcb0}},
    {NT_BFLOAT16,
     NT_INT32,
     {0x0, 0xbf80, 0x437f, 0x4380, 0x4780, 0x4780, 0x4780, 0x4500, 0x4b80, 0x4f00, 0xcf00, 0x4380,
      0x4382, 0xc396}},
    {NT_FLOAT32,
     NT_INT32,
     {0x0, 0xbf800000, 0x437f0000, 0x43800000, 0x477fe000, 0x477fef00, 0x477ff000, 0x45001000,
      0x4b800000, 0x4f000000, 0xcf000000, 0x43808000, 0x43818000, 0xc3960000}},
    {NT_FLOAT64,
     NT_INT32,
     {0x0, 0xbff0000000000000, 0x406fe00000000000, 0x4070000000000000, 0x40effc0000000000,
      0x40effde000000000, 0x40effe0000000000, 0x40a0020000000000, 0x4170000010000000,
      0x41dfffffffc00000, 0xc1e0000000000000, 0x4070100000000000, 0x4070300000000000,
      0xc072c00000000000}},
    {NT_BOOL, NT_INT64, {0x0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8,
     NT_INT64,
     {0x0, 0xff, 0x1, 0xf0, 0x1, 0x1, 0xff, 0x0, 0x1, 0x1, 0xff, 0x1, 0x3, 0xd4}},
    {NT_INT8,
     NT_INT64,
     {0x0, 0xff, 0x1, 0xf0, 0x1, 0x1, 0xff, 0x0, 0x1, 0x1, 0xff, 0x1, 0x3, 0xd4}},
    {NT_INT16,
     NT_INT64,
     {0x0, 0xffff, 0x801, 0xfff0, 0x1, 0x1, 0xffff, 0x0, 0x1, 0x1, 0xffff, 0x101, 0x103, 0xfed4}},
    {NT_INT32,
     NT_INT64,
     {0x0, 0xffffffff, 0x801, 0xfff0, 0x1000001, 0x1, 0xffffffff, 0x0, 0x800001, 0x1, 0x7fffffff,
      0x101, 0x103, 0xfffffed4}},
    {NT_INT64,
     NT_INT64,
     {0x0, 0xffffffffffffffff, 0x801, 0xfff0, 0x1000001, 0x20000000000001, 0x7fffffffffffffff,
      0x8000000000000000, 0x100800001, 0x100000001, 0xffffffff7fffffff, 0x101, 0x103,
      0xfffffffffffffed4}},
    {NT_FLOAT16,
     NT_INT64,
     {0x0, 0xbc00, 0x6800, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0xfc00, 0x7c00, 0x7c00, 0xfc00, 0x5c04,
      0x5c0c, 0xdcb0}},
    {NT_BFLOAT16,
     NT_INT64,
     {0x0, 0xbf80, 0x4500, 0x4780, 0x4b80, 0x5a00, 0x5f00, 0xdf00, 0x4f80, 0x4f80, 0xcf00, 0x4380,
      0x4382, 0xc396}},
    {NT_FLOAT32,
     NT_INT64,
     {0x0, 0xbf800000, 0x45001000, 0x477ff000, 0x4b800000, 0x5a000000, 0x5f000000, 0xdf000000,
      0x4f804000, 0x4f800000, 0xcf000000, 0x43808000, 0x43818000, 0xc3960000}},
    {NT_FLOAT64,
     NT_INT64,
     {0x0, 0xbff0000000000000, 0x40a0020000000000, 0x40effe0000000000, 0x4170000010000000,
      0x4340000000000000, 0x43e0000000000000, 0xc3e0000000000000, 0x41f0080000100000,
      0x41f0000000100000, 0xc1e0000000200000, 0x4070100000000000, 0x4070300000000000,
      0xc072c00000000000}},
    {NT_BOOL,
     NT_FLOAT16,
     {0x0, 0x0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8,
     NT_FLOAT16,
     {0x0, 0x0, 0x0, 0xff, 0x2, 0xe0, 0x20, 0x0, 0x0, 0x0, 0x0, 0x2c, 0xff, 0x7f, 0x0}},
    {NT_INT8,
     NT_FLOAT16,
     {0x0, 0x0, 0x0, 0xff, 0x2, 0xe0, 0x20, 0x0, 0x0, 0x0, 0x0, 0x2c, 0xff, 0x7f, 0x0}},
    {NT_INT16,
     NT_FLOAT16,
     {0x0, 0x0, 0x0, 0xffff, 0x2, 0xffe0, 0x20, 0x0, 0x0, 0x0, 0x0, 0x12c, 0xff, 0xff7f, 0x0}},
    {NT_INT32,
     NT_FLOAT16,
     {0x0, 0x0, 0x0, 0xffffffff, 0x2, 0xffe0, 0xffff0020, 0x80000000, 0x80000000, 0x80000000, 0x0,
      0x12c, 0xff, 0xffffff7f, 0x0}},
    {NT_INT64,
     NT_FLOAT16,
     {0x0, 0x0, 0x0, 0xffffffffffffffff, 0x2, 0xffe0, 0xffffffffffff0020, 0x8000000000000000,
      0x8000000000000000, 0x8000000000000000, 0x0, 0x12c, 0xff, 0xffffffffffffff7f, 0x0}},
    {NT_FLOAT16,
     NT_FLOAT16,
     {0x0, 0x8000, 0x3800, 0xbe00, 0x4100, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x1, 0x5cb2,
      0x5bff, 0xd80c, 0xa8}},
    {NT_BFLOAT16,
     NT_FLOAT16,
     {0x0, 0x8000, 0x3f00, 0xbfc0, 0x4020, 0x4780, 0xc780, 0x7f80, 0xff80, 0x7fc0, 0x3380, 0x4396,
      0x4380, 0xc302, 0x3728}},
    {NT_FLOAT32,
     NT_FLOAT16,
     {0x0, 0x80000000, 0x3f000000, 0xbfc00000, 0x40200000, 0x477fe000, 0xc77fe000, 0x7f800000,
      0xff800000, 0x7fc00000, 0x33800000, 0x43964000, 0x437fe000, 0xc3018000, 0x37280000}},
    {NT_FLOAT64,
     NT_FLOAT16,
     {0x0, 0x8000000000000000, 0x3fe0000000000000, 0xbff8000000000000, 0x4004000000000000,
      0x40effc0000000000, 0xc0effc0000000000, 0x7ff0000000000000, 0xfff0000000000000,
      0x7ff8000000000000, 0x3e70000000000000, 0x4072c80000000000, 0x406ffc0000000000,
      0xc060300000000000, 0x3ee5000000000000}},
    {NT_BOOL,
     NT_BFLOAT16,
     {0x0, 0x0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8,
     NT_BFLOAT16,
     {0x0, 0x0, 0x0, 0xff, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x2c, 0x0, 0x2, 0x7f, 0x0}},
    {NT_INT8,
     NT_BFLOAT16,
     {0x0, 0x0, 0x0, 0xff, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x2c, 0x0, 0x2, 0x7f, 0x0}},
    {NT_INT16,
     NT_BFLOAT16,
     {0x0, 0x0, 0x0, 0xffff, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x12c, 0x0, 0x2, 0xff7f, 0x0}},
    {NT_INT32,
     NT_BFLOAT16,
     {0x0, 0x0, 0x0, 0xffffffff, 0x80000000, 0x80000000, 0x80000000, 0x80000000, 0x0, 0x10000,
      0x12c, 0x80000000, 0x2, 0xffffff7f, 0x83000000}},
    {NT_INT64,
     NT_BFLOAT16,
     {0x0, 0x0, 0x0, 0xffffffffffffffff, 0x8000000000000000, 0x8000000000000000, 0x8000000000000000,
      0x8000000000000000, 0x0, 0x10000, 0x12c, 0x254000000, 0x2, 0xffffffffffffff7f,
      0xffffffff83000000}},
    {NT_FLOAT16,
     NT_BFLOAT16,
     {0x0, 0x8000, 0x3800, 0xbe00, 0x7c00, 0xfc00, 0x7c00, 0x7e00, 0x0, 0x7c00, 0x5cb0, 0x7c00,
      0x4100, 0xd808, 0xfc00}},
    {NT_BFLOAT16,
     NT_BFLOAT16,
     {0x0, 0x8000, 0x3f00, 0xbfc0, 0x7f62, 0xff62, 0x7f80, 0x7fc0, 0x1, 0x4780, 0x4396, 0x5015,
      0x4020, 0xc301, 0xcefa}},
    {NT_FLOAT32,
     NT_BFLOAT16,
     {0x0, 0x80000000, 0x3f000000, 0xbfc00000, 0x7f620000, 0xff620000, 0x7f800000, 0x7fc00000,
      0x10000, 0x47800000, 0x43960000, 0x50150000, 0x40200000, 0xc3010000, 0xcefa0000}},
    {NT_FLOAT64,
     NT_BFLOAT16,
     {0x0, 0x8000000000000000, 0x3fe0000000000000, 0xbff8000000000000, 0x47ec400000000000,
      0xc7ec400000000000, 0x7ff0000000000000, 0x7ff8000000000000, 0x37a0000000000000,
      0x40f0000000000000, 0x4072c00000000000, 0x4202a00000000000, 0x4004000000000000,
      0xc060200000000000, 0xc1df400000000000}},
    {NT_BOOL, NT_FLOAT32, {0x0, 0x0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1,
                           0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1,
                           0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8, NT_FLOAT32, {0x0,  0x0,  0x0,  0x0, 0x1, 0x2, 0xff, 0xff, 0x0, 0x2c, 0x7f, 0xe0,
                            0xef, 0xf0, 0x0,  0x0, 0x0, 0x0, 0x0,  0x0,  0x0, 0x0,  0x0,  0x0,
                            0x0,  0x0,  0x80, 0x0, 0x0, 0x0, 0x1,  0x1,  0x1, 0x0}},
    {NT_INT8, NT_FLOAT32, {0x0,  0x0,  0x0,  0x0, 0x1, 0x2, 0xff, 0xff, 0x0, 0x2c, 0x7f, 0xe0,
                           0xef, 0xf0, 0x0,  0x0, 0x0, 0x0, 0x0,  0x0,  0x0, 0x0,  0x0,  0x0,
                           0x0,  0x0,  0x80, 0x0, 0x0, 0x0, 0x1,  0x1,  0x1, 0x0}},
    {NT_INT16, NT_FLOAT32, {0x0,   0x0,    0x0,    0x0,    0x1,    0x2, 0xffff, 0xff, 0x100,
                            0x12c, 0xff7f, 0xffe0, 0xffef, 0xfff0, 0x0, 0x0,    0x0,  0x0,
                            0x0,   0x0,    0x0,    0x0,    0x0,    0x0, 0x0,    0x0,  0xff80,
                            0x0,   0x0,    0x0,    0x1,    0x1,    0x1, 0x0}},
    {NT_INT32, NT_FLOAT32, {0x0,        0x0,        0x0,        0x0,        0x1,        0x2,
                            0xffffffff, 0xff,       0x100,      0x12c,      0xffffff7f, 0xffe0,
                            0xffef,     0xfff0,     0x80000000, 0x80000000, 0x80000000, 0x80000000,
                            0x80000000, 0x80000000, 0x80000000, 0x0,        0x1000000,  0x80000000,
                            0x80000000, 0x80000000, 0x7fffff80, 0x80000000, 0x0,        0x80000000,
                            0x1,        0x1,        0x1,        0x0}},
    {NT_INT64,
     NT_FLOAT32,
     {0x0,
      0x0,
      0x0,
      0x0,
      0x1,
      0x2,
      0xffffffffffffffff,
      0xff,
      0x100,
      0x12c,
      0xffffffffffffff7f,
      0xffe0,
      0xffef,
      0xfff0,
      0xb2d05e00,
      0xffffffff4d2fa200,
      0x2540be400,
      0x8000000000000000,
      0x8000000000000000,
      0x8000000000000000,
      0x8000000000000000,
      0x0,
      0x1000000,
      0x80000000,
      0xffffffff80000000,
      0xffffffff7fffff00,
      0x7fffff80,
      0x8000000000000000,
      0x0,
      0x8000000000000000,
      0x1,
      0x1,
      0x1,
      0x0}},
    {NT_FLOAT16, NT_FLOAT32, {0x0,    0x8000, 0x3800, 0xb800, 0x3e00, 0x4100, 0xbecd,
                              0x5bff, 0x5c00, 0x5cb3, 0xd80c, 0x7bff, 0x7bff, 0x7c00,
                              0x7c00, 0xfc00, 0x7c00, 0x7c00, 0x7e00, 0x7c00, 0xfc00,
                              0x0,    0x7c00, 0x7c00, 0xfc00, 0xfc00, 0x7c00, 0x7c00,
                              0x0,    0x7c00, 0x3c00, 0x3c02, 0x3c04, 0x8002}},
    {NT_BFLOAT16, NT_FLOAT32, {0x0,    0x8000, 0x3f00, 0xbf00, 0x3fc0, 0x4020, 0xbfda,
                               0x4380, 0x4380, 0x4396, 0xc302, 0x4780, 0x4780, 0x4780,
                               0x4f33, 0xcf33, 0x5015, 0x60ad, 0xffff, 0x7f80, 0xff80,
                               0x322c, 0x4b80, 0x4f00, 0xcf00, 0xcf00, 0x4f00, 0x5f01,
                               0x0,    0x7f80, 0x3f80, 0x3f80, 0x3f80, 0xb3d7}},
    {NT_FLOAT32,
     NT_FLOAT32,
     {0x0,        0x80000000, 0x3f000000, 0xbf000000, 0x3fc00000, 0x40200000, 0xbfd9999a,
      0x437fe666, 0x43800000, 0x4396599a, 0xc3018000, 0x477fe000, 0x477fef00, 0x477ff000,
      0x4f32d05e, 0xcf32d05e, 0x501502f9, 0x60ad78ec, 0x7fc00000, 0x7f800000, 0xff800000,
      0x322bcc77, 0x4b800000, 0x4f000000, 0xcf000000, 0xcf000001, 0x4effffff, 0x5f01103d,
      0x1,        0x7f7fc99e, 0x3f801000, 0x3f803000, 0x3f808000, 0xb3d6bf95}},
    {NT_FLOAT64,
     NT_FLOAT32,
     {0x0,
      0x8000000000000000,
      0x3fe0000000000000,
      0xbfe0000000000000,
      0x3ff8000000000000,
      0x4004000000000000,
      0xbffb333340000000,
      0x406ffcccc0000000,
      0x4070000000000000,
      0x4072cb3340000000,
      0xc060300000000000,
      0x40effc0000000000,
      0x40effde000000000,
      0x40effe0000000000,
      0x41e65a0bc0000000,
      0xc1e65a0bc0000000,
      0x4202a05f20000000,
      0x4415af1d80000000,
      0x7ff8000000000000,
      0x7ff0000000000000,
      0xfff0000000000000,
      0x3e45798ee0000000,
      0x4170000000000000,
      0x41e0000000000000,
      0xc1e0000000000000,
      0xc1e0000020000000,
      0x41dfffffe0000000,
      0x43e02207a0000000,
      0x36a0000000000000,
      0x47eff933c0000000,
      0x3ff0020000000000,
      0x3ff0060000000000,
      0x3ff0100000000000,
      0xbe7ad7f2a0000000}},
    {NT_BOOL, NT_FLOAT64, {0x0, 0x0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1,
                           0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1,
                           0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1,
                           0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1}},
    {NT_UINT8, NT_FLOAT64, {0x0,  0x0,  0x0,  0x0, 0x1, 0x2, 0xff, 0xff, 0x0, 0x2c, 0x7f, 0xe0,
                            0xef, 0xf0, 0x0,  0x0, 0x0, 0x0, 0x0,  0x0,  0x0, 0x0,  0x0,  0x0,
                            0x0,  0x0,  0x80, 0x0, 0x0, 0x0, 0x1,  0x1,  0x1, 0x0,  0x1,  0xff,
                            0x1,  0x7,  0x1,  0x0, 0x0, 0x0, 0x0,  0x1,  0x1}},
    {NT_INT8, NT_FLOAT64, {0x0,  0x0,  0x0,  0x0, 0x1, 0x2, 0xff, 0xff, 0x0, 0x2c, 0x7f, 0xe0,
                           0xef, 0xf0, 0x0,  0x0, 0x0, 0x0, 0x0,  0x0,  0x0, 0x0,  0x0,  0x0,
                           0x0,  0x0,  0x80, 0x0, 0x0, 0x0, 0x1,  0x1,  0x1, 0x0,  0x0,  0x0,
                           0x0,  0x0,  0x1,  0x0, 0x0, 0x0, 0x0,  0x1,  0x1}},
    {NT_INT16, NT_FLOAT64, {0x0,   0x0,    0x0,    0x0,    0x1,    0x2, 0xffff, 0xff, 0x100,
                            0x12c, 0xff7f, 0xffe0, 0xffef, 0xfff0, 0x0, 0x0,    0x0,  0x0,
                            0x0,   0x0,    0x0,    0x0,    0x0,    0x0, 0x0,    0x0,  0xff80,
                            0x0,   0x0,    0x0,    0x1,    0x1,    0x1, 0x0,    0x0,  0x0,
                            0x0,   0x0,    0x1,    0x0,    0x0,    0x0, 0x0,    0x1,  0x801}},
    {NT_INT32, NT_FLOAT64, {0x0,        0x0,        0x0,        0x0,        0x1,        0x2,
                            0xffffffff, 0xff,       0x100,      0x12c,      0xffffff7f, 0xffe0,
                            0xffef,     0xfff0,     0x80000000, 0x80000000, 0x80000000, 0x80000000,
                            0x80000000, 0x80000000, 0x80000000, 0x0,        0x1000000,  0x80000000,
                            0x80000000, 0x80000000, 0x7fffff80, 0x80000000, 0x0,        0x80000000,
                            0x1,        0x1,        0x1,        0x0,        0x80000000, 0x80000000,
                            0x80000000, 0x80000000, 0x1,        0x80000000, 0x80000000, 0x80000000,
                            0x0,        0x1000001,  0x801}},
    {NT_INT64,
     NT_FLOAT64,
     {0x0,
      0x0,
      0x0,
      0x0,
      0x1,
      0x2,
      0xffffffffffffffff,
      0xff,
      0x100,
      0x12c,
      0xffffffffffffff7f,
      0xffe0,
      0xffef,
      0xfff0,
      0xb2d05e00,
      0xffffffff4d2fa200,
      0x2540be400,
      0x8000000000000000,
      0x8000000000000000,
      0x8000000000000000,
      0x8000000000000000,
      0x0,
      0x1000000,
      0x80000000,
      0xffffffff80000000,
      0xffffffff7fffff00,
      0x7fffff80,
      0x8000000000000000,
      0x0,
      0x8000000000000000,
      0x1,
      0x1,
      0x1,
      0x0,
      0x100000001,
      0xffffffff7fffffff,
      0xb2d05e01,
      0xe8d4a51007,
      0x1,
      0x8000000000000000,
      0x8000000000000000,
      0x8000000000000000,
      0x0,
      0x1000001,
      0x801}},
    {NT_FLOAT16, NT_FLOAT64, {0x0,    0x8000, 0x3800, 0xb800, 0x3e00, 0x4100, 0xbecd, 0x5bff,
                              0x5c00, 0x5cb3, 0xd80c, 0x7bff, 0x7bff, 0x7c00, 0x7c00, 0xfc00,
                              0x7c00, 0x7c00, 0x7e00, 0x7c00, 0xfc00, 0x0,    0x7c00, 0x7c00,
                              0xfc00, 0xfc00, 0x7c00, 0x7c00, 0x0,    0x7c00, 0x3c00, 0x3c02,
                              0x3c04, 0x8002, 0x7c00, 0xfc00, 0x7c00, 0x7c00, 0x3c00, 0x7c00,
                              0xfc00, 0x7c00, 0x0,    0x7c00, 0x6800}},
    {NT_BFLOAT16, NT_FLOAT64, {0x0,    0x8000, 0x3f00, 0xbf00, 0x3fc0, 0x4020, 0xbfda, 0x4380,
                               0x4380, 0x4396, 0xc302, 0x4780, 0x4780, 0x4780, 0x4f33, 0xcf33,
                               0x5015, 0x60ad, 0xffff, 0x7f80, 0xff80, 0x322c, 0x4b80, 0x4f00,
                               0xcf00, 0xcf00, 0x4f00, 0x5f01, 0x0,    0x7f80, 0x3f80, 0x3f80,
                               0x3f80, 0xb3d7, 0x4f80, 0xcf00, 0x4f33, 0x5369, 0x3f80, 0x5f7a,
                               0xdf01, 0x7f80, 0x0,    0x4b80, 0x4500}},
    {NT_FLOAT32,
     NT_FLOAT64,
     {0x0,        0x80000000, 0x3f000000, 0xbf000000, 0x3fc00000, 0x40200000, 0xbfd9999a,
      0x437fe666, 0x43800000, 0x4396599a, 0xc3018000, 0x477fe000, 0x477fef00, 0x477ff000,
      0x4f32d05e, 0xcf32d05e, 0x501502f9, 0x60ad78ec, 0x7fc00000, 0x7f800000, 0xff800000,
      0x322bcc77, 0x4b800000, 0x4f000000, 0xcf000000, 0xcf000001, 0x4effffff, 0x5f01103d,
      0x1,        0x7f7fc99e, 0x3f801000, 0x3f803000, 0x3f808000, 0xb3d6bf95, 0x4f800000,
      0xcf000000, 0x4f32d05e, 0x5368d4a5, 0x3f801000, 0x5f79ccd9, 0xdf01103d, 0x7f800000,
      0x0,        0x4b800000, 0x45001000}},
    {NT_FLOAT64,
     NT_FLOAT64,
     {0x0,
      0x8000000000000000,
      0x3fe0000000000000,
      0xbfe0000000000000,
      0x3ff8000000000000,
      0x4004000000000000,
      0xbffb333333333333,
      0x406ffccccccccccd,
      0x4070000000000000,
      0x4072cb3333333333,
      0xc060300000000000,
      0x40effc0000000000,
      0x40effde000000000,
      0x40effe0000000000,
      0x41e65a0bc0000000,
      0xc1e65a0bc0000000,
      0x4202a05f20000000,
      0x4415af1d78b58c40,
      0x7ff8000000000000,
      0x7ff0000000000000,
      0xfff0000000000000,
      0x3e45798ee2308c3a,
      0x4170000000000000,
      0x41e0000000000000,
      0xc1e0000000000000,
      0xc1e0000020000000,
      0x41dfffffe0000000,
      0x43e02207973f6440,
      0x3696d601ad376ab9,
      0x47eff933c78cdfad,
      0x3ff0020000000000,
      0x3ff0060000000000,
      0x3ff0100000000000,
      0xbe7ad7f29abcaf48,
      0x41f0000000100000,
      0xc1e0000000200000,
      0x41e65a0bc0200000,
      0x426d1a94a200e000,
      0x3ff0020000400000,
      0x43ef399b1438a100,
      0xc3e02207973f6440,
      0x7e37e43c8800759c,
      0x1,
      0x4170000010000000,
      0x40a0020000000000}},
};

/* ------------------------------------------------------------------ helpers */

static size_t esize(nt_dtype d) {
    return nt_dtype_size(d);
}

static uint64_t read_bits(const void *p, nt_dtype d) {
    uint64_t b = 0;
    memcpy(&b, p, esize(d)); /* little endian: the low bytes */
    return b;
}

static void write_bits(void *p, nt_dtype d, uint64_t b) {
    memcpy(p, &b, esize(d));
}

static bool is_nan_bits(nt_dtype d, uint64_t b) {
    switch (d) {
    case NT_FLOAT16:
        return (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
    case NT_BFLOAT16:
        return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
    case NT_FLOAT32:
        return (b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff);
    case NT_FLOAT64:
        return (b >> 52 & 0x7ff) == 0x7ff && (b & 0xfffffffffffffull);
    default:
        return false;
    }
}

/* NaN payloads are not values: any NaN matches a NaN. */
static bool same_value(nt_dtype d, uint64_t got, uint64_t want) {
    return got == want || (is_nan_bits(d, want) && is_nan_bits(d, got));
}

/* Element i of a 1-D tensor. */
static uint64_t elem(const nt_tensor *t, int64_t i) {
    return read_bits((const char *)nt_tensor_data(t) + i * t->strides[0] * (int64_t)esize(t->dtype),
                     t->dtype);
}

static nt_tensor *tensor_1d(nt_dtype d, int64_t n) {
    nt_tensor *t = NULL;
    nt_tensor_alloc(d, 1, &n, NULL, &t);
    return t;
}

static nt_tensor *view_1d(nt_tensor *base, int64_t n, int64_t stride, int64_t offset) {
    nt_tensor *v = NULL;
    nt_tensor_view_of(base, 1, &n, &stride, offset, NULL, &v);
    return v;
}

static nt_tensor *floats(int ndim, const int64_t *sizes, const double *values) {
    nt_tensor *t = NULL;
    nt_tensor_alloc(NT_FLOAT32, ndim, sizes, NULL, &t);
    for (int64_t i = 0; t && i < t->numel; i++)
        ((float *)nt_tensor_data(t))[i] = (float)values[i];
    return t;
}

static bool floats_are(const nt_tensor *t, const double *values) {
    bool ok = true;
    for (int64_t i = 0; i < t->numel; i++)
        ok &= ((const float *)nt_tensor_data(t))[i] == values[i];
    return ok;
}

static const source_values *source_of(nt_dtype d) {
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++)
        if (sources[i].dtype == d) return &sources[i];
    return NULL;
}

/* ------------------------------------------------------------------ conversions */

/* Checks one (dst, src) pair through each loop path: contiguous (repeated 9 times so that
 * vector blocks start at every alignment), strided source, strided destination, and a
 * broadcast (stride-0) source. Returns the number of mismatches. */
static int check_pair(const converted_values *c) {
    const source_values *s = source_of(c->src);
    int n = s->n, bad = 0;
    nt_tensor *src = tensor_1d(c->src, 9 * n), *out = NULL;
    for (int64_t i = 0; i < 9 * n; i++)
        write_bits((char *)nt_tensor_data(src) + i * esize(c->src), c->src, s->bits[i % n]);
    if (nt_to_dtype(src, c->dst, &out) != NT_OK) return 1000;
    for (int64_t i = 0; i < 9 * n; i++)
        bad += !same_value(c->dst, elem(out, i), c->bits[i % n]);
    nt_tensor_release(out);

    nt_tensor *strided = view_1d(src, n, 2, 1), *dst = tensor_1d(c->dst, n);
    for (int64_t i = 0; i < n; i++)
        write_bits((char *)nt_tensor_data(strided) + 2 * i * esize(c->src), c->src, s->bits[i]);
    if (nt_copy_(dst, strided) != NT_OK) bad += 1000;
    for (int64_t i = 0; i < n; i++)
        bad += !same_value(c->dst, elem(dst, i), c->bits[i]);

    nt_tensor *wide = tensor_1d(c->dst, 3 * n), *dview = view_1d(wide, n, 3, 0);
    if (nt_copy_(dview, strided) != NT_OK) bad += 1000;
    for (int64_t i = 0; i < n; i++)
        bad += !same_value(c->dst, elem(dview, i), c->bits[i]);

    nt_tensor *five = tensor_1d(c->dst, 5);
    for (int64_t i = 0; i < n; i++) {
        nt_tensor *bcast = view_1d(src, 5, 0, 1 + 2 * i); /* strided[i] */
        if (nt_copy_(five, bcast) != NT_OK) bad += 1000;
        for (int64_t k = 0; k < 5; k++)
            bad += !same_value(c->dst, elem(five, k), c->bits[i]);
        nt_tensor_release(bcast);
    }
    nt_tensor *ts[] = {src, strided, dst, wide, dview, five};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
        nt_tensor_release(ts[i]);
    return bad;
}

static void test_every_dtype_pair_matches_torch(void) {
    int pairs = 0;
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        int bad = check_pair(&expected[i]);
        if (bad)
            fprintf(stderr, "  %s -> %s: %d mismatches\n", nt_dtype_name(expected[i].src),
                    nt_dtype_name(expected[i].dst), bad);
        EXPECT(bad == 0);
        pairs++;
    }
    EXPECT(pairs == NT_DTYPE_COUNT * NT_DTYPE_COUNT);
}

static void test_transposed_copies_of_every_element_size(void) {
    const nt_dtype dts[4] = {NT_UINT8, NT_INT16, NT_FLOAT32, NT_INT64};
    for (int k = 0; k < 4; k++) {
        /* base (45, 70) holding i*70+j; copy base.t() into a contiguous (70, 45). */
        int64_t s[2] = {45, 70}, ts[2] = {70, 45}, tst[2] = {1, 70};
        nt_tensor *base = NULL, *out = NULL, *t = NULL;
        EXPECT_OK(nt_tensor_alloc(dts[k], 2, s, NULL, &base));
        EXPECT_OK(nt_tensor_alloc(dts[k], 2, ts, NULL, &out));
        for (int64_t i = 0; i < 45 * 70; i++)
            write_bits((char *)nt_tensor_data(base) + i * esize(dts[k]), dts[k], (uint64_t)i);
        EXPECT_OK(nt_tensor_view_of(base, 2, ts, tst, 0, NULL, &t));
        EXPECT_OK(nt_copy_(out, t));
        bool ok = true;
        uint64_t mask = esize(dts[k]) == 8 ? ~0ull : (1ull << (8 * esize(dts[k]))) - 1;
        for (int64_t i = 0; i < 70; i++)
            for (int64_t j = 0; j < 45; j++)
                ok &= read_bits((char *)nt_tensor_data(out) + (i * 45 + j) * esize(dts[k]),
                                dts[k]) == ((uint64_t)(j * 70 + i) & mask);
        EXPECT(ok);
        nt_tensor_release(base);
        nt_tensor_release(out);
        nt_tensor_release(t);
    }
}

/* ------------------------------------------------------------------ fill_ */

static void test_fill_converts_like_torch(void) {
    nt_tensor *t = NULL;
    int64_t two = 2;
    EXPECT_OK(nt_tensor_alloc(NT_UINT8, 1, &two, NULL, &t));
    EXPECT_OK(nt_fill_(t, nt_scalar_int(-1)));
    EXPECT(elem(t, 0) == 255 && elem(t, 1) == 255);
    EXPECT_OK(nt_fill_(t, nt_scalar_int(-255)));
    EXPECT(elem(t, 1) == 1);
    EXPECT_OK(nt_fill_(t, nt_scalar_bool(true)));
    EXPECT(elem(t, 0) == 1);
    EXPECT_OK(nt_fill_(t, nt_scalar_float(5.0)));
    EXPECT(elem(t, 0) == 5);
    nt_tensor_release(t);

    /* float16 2049 -> 2048 (nearest even), bfloat16 257 -> 256, 65505 -> 65536. */
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT16, 1, &two, NULL, &t));
    EXPECT_OK(nt_fill_(t, nt_scalar_int(2049)));
    EXPECT(elem(t, 0) == 0x6800);
    EXPECT_OK(nt_fill_(t, nt_scalar_float(INFINITY)));
    EXPECT(elem(t, 1) == 0x7c00);
    EXPECT_OK(nt_fill_(t, nt_scalar_float(NAN)));
    EXPECT(is_nan_bits(NT_FLOAT16, elem(t, 0)));
    nt_tensor_release(t);
    EXPECT_OK(nt_tensor_alloc(NT_BFLOAT16, 1, &two, NULL, &t));
    EXPECT_OK(nt_fill_(t, nt_scalar_int(257)));
    EXPECT(elem(t, 0) == 0x4380);
    EXPECT_OK(nt_fill_(t, nt_scalar_int(65505)));
    EXPECT(elem(t, 0) == 0x4780);
    nt_tensor_release(t);

    /* int64: 2^63 as a double passes the check (it compares in double) and truncates. */
    EXPECT_OK(nt_tensor_alloc(NT_INT64, 1, &two, NULL, &t));
    EXPECT_OK(nt_fill_(t, nt_scalar_float(9223372036854775808.0)));
    EXPECT(elem(t, 0) == 0x8000000000000000ull);
    EXPECT_OK(nt_fill_(t, nt_scalar_int(INT64_MIN)));
    EXPECT(elem(t, 1) == 0x8000000000000000ull);
    EXPECT_OK(nt_fill_(t, nt_scalar_float(65504.5)));
    EXPECT(elem(t, 1) == 65504);
    nt_tensor_release(t);

    /* bool: NaN is true, -0.0 is false, nothing overflows. */
    EXPECT_OK(nt_tensor_alloc(NT_BOOL, 1, &two, NULL, &t));
    EXPECT_OK(nt_fill_(t, nt_scalar_float(NAN)));
    EXPECT(elem(t, 0) == 1);
    EXPECT_OK(nt_fill_(t, nt_scalar_float(-0.0)));
    EXPECT(elem(t, 0) == 0);
    EXPECT_OK(nt_fill_(t, nt_scalar_float(1e300)));
    EXPECT(elem(t, 1) == 1);
    nt_tensor_release(t);
    /* float32: tiny values round to zero without complaint. */
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT32, 1, &two, NULL, &t));
    EXPECT_OK(nt_fill_(t, nt_scalar_float(1e-50)));
    EXPECT(elem(t, 0) == 0);
    nt_tensor_release(t);
}

static void test_fill_rejects_overflow_with_torchs_text(void) {
    static const struct {
        nt_dtype dtype;
        nt_scalar value;
        const char *type;
    } cases[] = {
        {NT_UINT8, {NT_SCALAR_INT, {.i = 256}}, "uint8_t"},
        {NT_UINT8, {NT_SCALAR_INT, {.i = -256}}, "uint8_t"},
        {NT_UINT8, {NT_SCALAR_FLOAT, {.f = 255.7}}, "uint8_t"},
        {NT_UINT8, {NT_SCALAR_FLOAT, {.f = -0.5}}, "uint8_t"},
        {NT_UINT8, {NT_SCALAR_FLOAT, {.f = -255.0}}, "uint8_t"},
        {NT_UINT8, {NT_SCALAR_FLOAT, {.f = NAN}}, "uint8_t"},
        {NT_INT8, {NT_SCALAR_INT, {.i = 200}}, "int8_t"},
        {NT_INT8, {NT_SCALAR_INT, {.i = -255}}, "int8_t"},
        {NT_INT8, {NT_SCALAR_FLOAT, {.f = -128.9}}, "int8_t"},
        {NT_INT16, {NT_SCALAR_INT, {.i = 65505}}, "int16_t"},
        {NT_INT32, {NT_SCALAR_FLOAT, {.f = 3e9}}, "int"},
        {NT_INT32, {NT_SCALAR_FLOAT, {.f = 2147483647.9}}, "int"},
        {NT_INT32, {NT_SCALAR_INT, {.i = (int64_t)1 << 40}}, "int"},
        {NT_INT64, {NT_SCALAR_FLOAT, {.f = 1e30}}, "int64_t"},
        {NT_INT64, {NT_SCALAR_FLOAT, {.f = INFINITY}}, "int64_t"},
        {NT_INT64, {NT_SCALAR_FLOAT, {.f = NAN}}, "int64_t"},
        {NT_FLOAT16, {NT_SCALAR_INT, {.i = 65505}}, "at::Half"},
        {NT_FLOAT16, {NT_SCALAR_FLOAT, {.f = 65504.5}}, "at::Half"},
        {NT_FLOAT16, {NT_SCALAR_FLOAT, {.f = -1e6}}, "at::Half"},
        {NT_BFLOAT16, {NT_SCALAR_FLOAT, {.f = 3.39e38}}, "at::BFloat16"},
        {NT_FLOAT32, {NT_SCALAR_FLOAT, {.f = 1e40}}, "float"},
        {NT_FLOAT32, {NT_SCALAR_FLOAT, {.f = 3.4028235e38}}, "float"},
    };
    int64_t two = 2;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        nt_tensor *t = NULL;
        EXPECT_OK(nt_tensor_alloc(cases[i].dtype, 1, &two, NULL, &t));
        EXPECT_OK(nt_zero_(t));
        uint64_t version = nt_tensor_version(t);
        char text[128];
        snprintf(text, sizeof text, "value cannot be converted to type %s without overflow",
                 cases[i].type);
        EXPECT_ERR(nt_fill_(t, cases[i].value), NT_ERR_RUNTIME, text);
        EXPECT(!nt_scalar_fits(cases[i].value, cases[i].dtype));    /* the same rule, as a query */
        EXPECT(elem(t, 0) == 0 && nt_tensor_version(t) == version); /* nothing written */
        nt_tensor_release(t);
    }
    /* The largest finite values themselves fit. */
    nt_tensor *t = NULL;
    EXPECT_OK(nt_tensor_alloc(NT_BFLOAT16, 1, &two, NULL, &t));
    EXPECT_OK(nt_fill_(t, nt_scalar_float(3.3895313892515355e+38)));
    EXPECT(nt_scalar_fits(nt_scalar_int(-255), NT_UINT8) &&
           nt_scalar_fits(nt_scalar_int(1 << 20), NT_BOOL));
    EXPECT(!nt_scalar_fits(nt_scalar_int(0), (nt_dtype)NT_DTYPE_COUNT));
    EXPECT(elem(t, 0) == 0x7f7f);
    nt_tensor_release(t);
}

static void test_fill_strided_expanded_and_empty(void) {
    double zeros[6] = {0};
    int64_t s[2] = {2, 3};
    nt_tensor *x = floats(2, s, zeros), *col = NULL, *ex = NULL, *e = NULL;
    /* column 1 of x: a strided view */
    int64_t cs[1] = {2}, cst[1] = {3};
    EXPECT_OK(nt_tensor_view_of(x, 1, cs, cst, 1, NULL, &col));
    uint64_t v0 = nt_tensor_version(x);
    EXPECT_OK(nt_fill_(col, nt_scalar_float(7.5)));
    EXPECT(floats_are(x, (double[]){0, 7.5, 0, 0, 7.5, 0}));
    EXPECT(nt_tensor_version(x) == v0 + 1);
    /* PyTorch fills an expanded view (stride 0) without an overlap error. */
    int64_t es[2] = {4, 3}, est[2] = {0, 1};
    EXPECT_OK(nt_tensor_view_of(x, 2, es, est, 0, NULL, &ex));
    EXPECT_OK(nt_fill_(ex, nt_scalar_int(2)));
    EXPECT(floats_are(x, (double[]){2, 2, 2, 0, 7.5, 0}));
    EXPECT_OK(nt_zero_(x));
    EXPECT(floats_are(x, zeros));
    int64_t z[2] = {0, 3};
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT64, 2, z, NULL, &e));
    EXPECT_OK(nt_fill_(e, nt_scalar_float(1.0)));
    EXPECT_ERR(nt_fill_(NULL, nt_scalar_int(0)), NT_ERR_TYPE, "must be Tensor");
    EXPECT_ERR(nt_zero_(NULL), NT_ERR_TYPE, "must be Tensor");
    nt_tensor_release(x);
    nt_tensor_release(col);
    nt_tensor_release(ex);
    nt_tensor_release(e);
}

/* ------------------------------------------------------------------ copy_ */

static void test_copy_broadcasts_and_converts(void) {
    int64_t s[2] = {2, 3}, r[1] = {3}, c[2] = {2, 1};
    double zeros[6] = {0};
    nt_tensor *x = floats(2, s, zeros), *row = floats(1, r, (double[]){1, 2, 3});
    nt_tensor *col = floats(2, c, (double[]){10, 20}), *i = NULL;
    uint64_t v0 = nt_tensor_version(x);
    EXPECT_OK(nt_copy_(x, row));
    EXPECT(floats_are(x, (double[]){1, 2, 3, 1, 2, 3}));
    EXPECT_OK(nt_copy_(x, col));
    EXPECT(floats_are(x, (double[]){10, 10, 10, 20, 20, 20}));
    EXPECT(nt_tensor_version(x) == v0 + 2);
    EXPECT_OK(nt_tensor_alloc(NT_INT32, 1, r, NULL, &i));
    int32_t *ip = nt_tensor_data(i);
    ip[0] = -4, ip[1] = 5, ip[2] = 1 << 30;
    EXPECT_OK(nt_copy_(x, i));
    EXPECT(floats_are(x, (double[]){-4, 5, 1073741824.0, -4, 5, 1073741824.0}));
    nt_tensor_release(x);
    nt_tensor_release(row);
    nt_tensor_release(col);
    nt_tensor_release(i);
}

/* copy_'s name rule, in C (checked against torch): names unify from the right; an unnamed
 * self takes them, a named one must already have them; a shape error comes first. */
static void test_copy_follows_its_name_rule(void) {
    int64_t s[2] = {2, 3}, r[1] = {3}, w[2] = {3, 2};
    double zeros[6] = {0};
    nt_name nc[2] = {N("N"), N("C")}, ac[2] = {N("A"), N("C")}, nn[2] = {N("N"), NT_NAME_NONE};
    nt_name c1[1] = {N("C")};
    nt_tensor *x = floats(2, s, zeros), *named = floats(2, s, zeros), *row = floats(1, r, zeros);
    nt_tensor *other = floats(2, s, zeros), *wide = floats(2, w, zeros);
    EXPECT_OK(nt_set_names_(named, nc));
    EXPECT_OK(nt_set_names_(row, c1));
    EXPECT_OK(nt_copy_(x, row)); /* z().copy_(z('C', shape=(3,))).names == (None, 'C') */
    EXPECT(x->names && x->names[0] == NT_NAME_NONE && x->names[1] == N("C"));
    EXPECT_OK(nt_copy_(named, row));
    EXPECT(named->names[0] == N("N") && named->names[1] == N("C"));
    EXPECT_OK(nt_set_names_(other, ac));
    EXPECT_ERR(nt_copy_(named, other), NT_ERR_RUNTIME, "Error when attempting to broadcast dims");
    EXPECT_OK(nt_set_names_(other, nn));
    EXPECT_OK(nt_set_names_(x, nn));
    EXPECT_ERR(nt_copy_(x, named), NT_ERR_RUNTIME, /* z('N', None).copy_(z('N', 'C')) */
               "Name mismatch: specified out tensor with names ['N', None] are not the same as "
               "the computed output names ['N', 'C'].");
    EXPECT_OK(nt_set_names_(wide, nc));
    EXPECT_ERR(nt_copy_(x, wide), NT_ERR_RUNTIME, /* the shape error comes first */
               "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
               "dimension 1");
    nt_tensor *t = NULL;
    EXPECT_OK(nt_full(0, NULL, nt_scalar_float(1.5), NT_FLOAT64, NULL, &t));
    EXPECT_OK(nt_copy_(named, t)); /* a 0-dim source broadcasts and names nothing */
    EXPECT(floats_are(named, (double[]){1.5, 1.5, 1.5, 1.5, 1.5, 1.5}));
    nt_tensor_release(t);
    nt_tensor_release(x);
    nt_tensor_release(named);
    nt_tensor_release(row);
    nt_tensor_release(other);
    nt_tensor_release(wide);
}

static void test_copy_shape_errors_match_torch(void) {
    int64_t s3[1] = {3}, s4[1] = {4}, s23[2] = {2, 3}, s41[2] = {4, 1}, s113[3] = {1, 1, 3},
            s1[1] = {1}, s0[2] = {0, 3}, s5[2] = {5, 3}, s13[2] = {1, 3};
    double v[15] = {0};
    nt_tensor *a3 = floats(1, s3, v), *a4 = floats(1, s4, v), *a23 = floats(2, s23, v);
    nt_tensor *a41 = floats(2, s41, v), *a113 = floats(3, s113, v), *a1 = floats(1, s1, v);
    nt_tensor *scalar = floats(0, NULL, v), *e0 = floats(2, s0, v), *e5 = floats(2, s5, v);
    nt_tensor *e13 = floats(2, s13, v);
    EXPECT_ERR(nt_copy_(a3, a4), NT_ERR_RUNTIME,
               "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
               "dimension 0");
    EXPECT_ERR(nt_copy_(a3, a23), NT_ERR_RUNTIME,
               "output with shape [3] doesn't match the broadcast shape [2, 3]");
    EXPECT_ERR(nt_copy_(a23, a41), NT_ERR_RUNTIME,
               "The size of tensor a (2) must match the size of tensor b (4) at non-singleton "
               "dimension 0");
    EXPECT_ERR(nt_copy_(a23, a113), NT_ERR_RUNTIME,
               "output with shape [2, 3] doesn't match the broadcast shape [1, 2, 3]");
    EXPECT_ERR(nt_copy_(scalar, a1), NT_ERR_RUNTIME,
               "output with shape [] doesn't match the broadcast shape [1]");
    EXPECT_ERR(nt_copy_(e5, e0), NT_ERR_RUNTIME,
               "The size of tensor a (5) must match the size of tensor b (0) at non-singleton "
               "dimension 0");
    EXPECT_OK(nt_copy_(e0, e13)); /* (0, 3) <- (1, 3) broadcasts to nothing */
    EXPECT_OK(nt_copy_(a1, scalar));
    EXPECT_ERR(nt_copy_(NULL, a3), NT_ERR_TYPE, "copy_(): argument 'self' must be Tensor");
    EXPECT_ERR(nt_copy_(a3, NULL), NT_ERR_TYPE, "copy_(): argument 'src' must be Tensor");
    nt_tensor *ts[] = {a3, a4, a23, a41, a113, a1, scalar, e0, e5, e13};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
        nt_tensor_release(ts[i]);
}

static void test_copy_overlap_errors_and_safe_cases(void) {
    int64_t n4[1] = {4}, n3[1] = {3}, n8[1] = {8}, one = 1, st1 = 1;
    nt_tensor *x = floats(1, n4, (double[]){0, 1, 2, 3}), *hi = NULL, *lo = NULL, *first = NULL;
    EXPECT_OK(nt_tensor_view_of(x, 1, n3, &st1, 1, NULL, &hi));
    EXPECT_OK(nt_tensor_view_of(x, 1, n3, &st1, 0, NULL, &lo));
    EXPECT_OK(nt_tensor_view_of(x, 1, &one, &st1, 0, NULL, &first));
    const char *partial = "unsupported operation: some elements of the input tensor and the "
                          "written-to tensor refer to a single memory location. Please clone() "
                          "the tensor before performing the operation.";
    EXPECT_ERR(nt_copy_(hi, lo), NT_ERR_RUNTIME, partial);   /* x[1:] <- x[:-1] */
    EXPECT_ERR(nt_copy_(x, first), NT_ERR_RUNTIME, partial); /* x <- x[:1] */
    EXPECT(floats_are(x, (double[]){0, 1, 2, 3}));
    /* Into an expanded tensor: the written-to tensor overlaps itself. */
    int64_t es[2] = {2, 4}, est[2] = {0, 1};
    nt_tensor *ex = NULL, *s0 = floats(0, NULL, (double[]){5});
    EXPECT_OK(nt_tensor_view_of(x, 2, es, est, 0, NULL, &ex));
    EXPECT_ERR(nt_copy_(ex, s0), NT_ERR_RUNTIME,
               "unsupported operation: more than one element of the written-to tensor refers "
               "to a single memory location. Please clone() the tensor before performing the "
               "operation.");
    /* x.copy_(x) and a same-bytes reinterpretation are fine element by element. */
    EXPECT_OK(nt_copy_(x, x));
    EXPECT(floats_are(x, (double[]){0, 1, 2, 3}));
    nt_tensor *as_int = NULL;
    EXPECT_OK(nt_tensor_make(x->storage, NT_INT32, 1, n4, &st1, 0, NULL, &as_int));
    EXPECT_OK(nt_copy_(as_int, x));
    const int32_t *ip = nt_tensor_data(as_int);
    EXPECT(ip[0] == 0 && ip[1] == 1 && ip[2] == 2 && ip[3] == 3);

    /* Overlaps PyTorch cannot see (non-dense views) are copied through a temporary:
     * y[2:6:2] <- y[0:4:2] reads 0, 2 before writing (PyTorch itself would give 0, 0). */
    nt_tensor *y = floats(1, n8, (double[]){0, 1, 2, 3, 4, 5, 6, 7}), *a = NULL, *b = NULL;
    int64_t two = 2, st2 = 2;
    EXPECT_OK(nt_tensor_view_of(y, 1, &two, &st2, 2, NULL, &a));
    EXPECT_OK(nt_tensor_view_of(y, 1, &two, &st2, 0, NULL, &b));
    EXPECT_OK(nt_copy_(a, b));
    EXPECT(floats_are(y, (double[]){0, 1, 0, 3, 2, 5, 6, 7}));
    EXPECT_OK(nt_copy_(b, a)); /* y[0:4:2] <- y[2:6:2], as PyTorch: 0 2 */
    EXPECT(floats_are(y, (double[]){0, 1, 2, 3, 2, 5, 6, 7}));
    /* x.view(2,3)[:, :2] <- x.view(2,3)[:, 1:] gives PyTorch's [[1, 2], [4, 5]]. */
    nt_tensor *z = floats(1, (int64_t[]){6}, (double[]){0, 1, 2, 3, 4, 5}), *l = NULL, *r = NULL;
    int64_t vs[2] = {2, 2}, vst[2] = {3, 1};
    EXPECT_OK(nt_tensor_view_of(z, 2, vs, vst, 0, NULL, &l));
    EXPECT_OK(nt_tensor_view_of(z, 2, vs, vst, 1, NULL, &r));
    EXPECT_OK(nt_copy_(l, r));
    EXPECT(floats_are(z, (double[]){1, 2, 2, 4, 5, 5}));
    nt_tensor *ts[] = {x, hi, lo, first, ex, s0, as_int, y, a, b, z, l, r};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
        nt_tensor_release(ts[i]);
}

static void test_large_copies_run_in_parallel(void) {
    /* 300 x 1000 float32 -> float16 and -> float32 transposed; above the grain size. */
    int64_t s[2] = {300, 1000}, ts[2] = {1000, 300}, tst[2] = {1, 1000};
    nt_tensor *x = NULL, *t = NULL, *h = NULL, *f = NULL;
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT32, 2, s, NULL, &x));
    float *xp = nt_tensor_data(x);
    for (int64_t i = 0; i < 300000; i++)
        xp[i] = (float)i * 0.25f;
    EXPECT_OK(nt_tensor_view_of(x, 2, ts, tst, 0, NULL, &t));
    EXPECT_OK(nt_to_dtype(x, NT_FLOAT16, &h));
    EXPECT_OK(nt_contiguous(t, &f));
    bool ok = true;
    for (int64_t i = 0; i < 300000; i++) {
        nt_float16 want = nt_f32_to_f16(xp[i]);
        ok &= ((const nt_float16 *)nt_tensor_data(h))[i].bits == want.bits;
        ok &= ((const float *)nt_tensor_data(f))[i] == xp[(i % 300) * 1000 + i / 300];
    }
    EXPECT(ok);
    nt_tensor_release(x);
    nt_tensor_release(t);
    nt_tensor_release(h);
    nt_tensor_release(f);
}

/* ------------------------------------------------------------------ new tensors */

static void test_contiguous_clone_and_to_keep_names(void) {
    int64_t s[2] = {2, 3}, ts[2] = {3, 2}, tst[2] = {1, 3};
    nt_name names[2] = {N("N"), N("C")}, tnames[2] = {N("C"), N("N")};
    nt_tensor *x = NULL, *t = NULL, *c = NULL, *same = NULL, *cl = NULL, *d = NULL, *d2 = NULL;
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT32, 2, s, names, &x));
    for (int i = 0; i < 6; i++)
        ((float *)nt_tensor_data(x))[i] = (float)i + 0.5f;
    EXPECT_OK(nt_tensor_view_of(x, 2, ts, tst, 0, tnames, &t));
    EXPECT_OK(nt_contiguous(x, &same));
    EXPECT(same == x && x->refcount == 2);
    EXPECT_OK(nt_contiguous(t, &c));
    EXPECT(c != t && c->is_contiguous && !nt_tensor_shares_storage(c, x));
    EXPECT(floats_are(c, (double[]){0.5, 3.5, 1.5, 4.5, 2.5, 5.5}));
    EXPECT(c->names && c->names[0] == N("C") && c->names[1] == N("N"));
    EXPECT_OK(nt_clone(x, &cl));
    EXPECT(cl != x && !nt_tensor_shares_storage(cl, x) && cl->names[1] == N("C"));
    EXPECT(floats_are(cl, (double[]){0.5, 1.5, 2.5, 3.5, 4.5, 5.5}));
    EXPECT_OK(nt_to_dtype(t, NT_INT64, &d));
    const int64_t *dp = nt_tensor_data(d);
    /* to() keeps a dense input's layout, as PyTorch's memory_format=preserve does: the
     * conversion of a transpose is a transpose (strides {1, 3}). */
    EXPECT(d->dtype == NT_INT64 && d->strides[0] == 1 && d->strides[1] == 3);
    EXPECT(dp[0] == 0 && dp[1] == 1 && dp[3] == 3 && dp[5] == 5);
    EXPECT(d->names && d->names[0] == N("C"));
    EXPECT_OK(nt_to_dtype(x, NT_FLOAT32, &d2));
    EXPECT(d2 == x);
    EXPECT_ERR(nt_to_dtype(x, (nt_dtype)42, &d2), NT_ERR_TYPE, "invalid dtype 42");
    EXPECT_ERR(nt_clone(NULL, &d2), NT_ERR_TYPE, "clone(): argument 'self' must be Tensor");
    EXPECT_ERR(nt_contiguous(NULL, &d2), NT_ERR_TYPE, "must be Tensor");
    EXPECT_ERR(nt_to_dtype(NULL, NT_INT8, &d2), NT_ERR_TYPE, "must be Tensor");
    EXPECT_ERR(nt_clone(x, NULL), NT_ERR_VALUE, "NULL");
    nt_tensor_release(same); /* the extra reference from nt_contiguous */
    nt_tensor_release(d2);   /* and from nt_to_dtype */
    nt_tensor *ts2[] = {x, t, c, cl, d};
    for (size_t i = 0; i < sizeof ts2 / sizeof *ts2; i++)
        nt_tensor_release(ts2[i]);
}

static void test_clone_of_negative_strides_and_empty(void) {
    nt_tensor *x = floats(1, (int64_t[]){5}, (double[]){0, 1, 2, 3, 4}), *r = NULL, *c = NULL;
    int64_t n = 5, st = -1;
    EXPECT_OK(nt_tensor_view_of(x, 1, &n, &st, 4, NULL, &r));
    EXPECT_OK(nt_clone(r, &c));
    EXPECT(floats_are(c, (double[]){4, 3, 2, 1, 0}) && c->strides[0] == 1);
    nt_tensor_release(c);
    int64_t z[2] = {3, 0};
    nt_tensor *e = floats(2, z, NULL), *ec = NULL;
    EXPECT_OK(nt_clone(e, &ec));
    EXPECT(ec->numel == 0 && ec->ndim == 2 && ec->sizes[0] == 3);
    nt_tensor_release(x);
    nt_tensor_release(r);
    nt_tensor_release(e);
    nt_tensor_release(ec);
}

/* ------------------------------------------------------------------ reading elements */

static void test_item_reads_one_element(void) {
    int64_t s111[3] = {1, 1, 1}, s2 = 2, s0 = 0;
    nt_tensor *f = floats(3, s111, (double[]){2.5}), *i = NULL, *b = NULL, *h = NULL, *u = NULL;
    nt_scalar v;
    EXPECT_OK(nt_item(f, &v));
    EXPECT(v.kind == NT_SCALAR_FLOAT && v.v.f == 2.5);
    EXPECT_OK(nt_tensor_alloc(NT_INT64, 0, NULL, NULL, &i));
    *(int64_t *)nt_tensor_data(i) = INT64_MIN;
    EXPECT_OK(nt_item(i, &v));
    EXPECT(v.kind == NT_SCALAR_INT && v.v.i == INT64_MIN);
    EXPECT_OK(nt_tensor_alloc(NT_BOOL, 0, NULL, NULL, &b));
    EXPECT_OK(nt_fill_(b, nt_scalar_bool(true)));
    EXPECT_OK(nt_item(b, &v));
    EXPECT(v.kind == NT_SCALAR_BOOL && v.v.b);
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT16, 0, NULL, NULL, &h));
    EXPECT_OK(nt_fill_(h, nt_scalar_float(-1.5)));
    EXPECT_OK(nt_item(h, &v));
    EXPECT(v.kind == NT_SCALAR_FLOAT && v.v.f == -1.5);
    EXPECT_OK(nt_tensor_alloc(NT_UINT8, 0, NULL, NULL, &u));
    EXPECT_OK(nt_fill_(u, nt_scalar_int(200)));
    EXPECT_OK(nt_item(u, &v));
    EXPECT(v.kind == NT_SCALAR_INT && v.v.i == 200);
    nt_tensor *two = floats(1, &s2, (double[]){1, 2}), *none = floats(1, &s0, NULL);
    EXPECT_ERR(nt_item(two, &v), NT_ERR_VALUE,
               "only one element tensors can be converted to Python scalars");
    EXPECT_ERR(nt_item(none, &v), NT_ERR_VALUE,
               "only one element tensors can be converted to Python scalars");
    EXPECT_ERR(nt_item(NULL, &v), NT_ERR_TYPE, "must be Tensor");
    EXPECT_ERR(nt_item(f, NULL), NT_ERR_VALUE, "NULL");
    nt_tensor *ts[] = {f, i, b, h, u, two, none};
    for (size_t k = 0; k < sizeof ts / sizeof *ts; k++)
        nt_tensor_release(ts[k]);
}

static void test_get_double_checks_the_index(void) {
    int64_t s[2] = {2, 3}, ts[2] = {3, 2}, tst[2] = {1, 3};
    nt_tensor *x = floats(2, s, (double[]){0, 1, 2, 3, 4, 5}), *t = NULL;
    EXPECT_OK(nt_tensor_view_of(x, 2, ts, tst, 0, NULL, &t));
    double v = -1;
    EXPECT_OK(nt_get_double(t, (int64_t[]){2, 1}, &v));
    EXPECT(v == 5);
    EXPECT_ERR(nt_get_double(x, (int64_t[]){1, 3}, &v), NT_ERR_INDEX,
               "index 3 is out of bounds for dimension 1 with size 3");
    EXPECT_ERR(nt_get_double(x, (int64_t[]){-1, 0}, &v), NT_ERR_INDEX,
               "index -1 is out of bounds for dimension 0 with size 2");
    EXPECT_ERR(nt_get_double(x, NULL, &v), NT_ERR_VALUE, "the index is NULL");
    EXPECT_ERR(nt_get_double(NULL, NULL, &v), NT_ERR_TYPE, "must be Tensor");
    nt_tensor *s0 = floats(0, NULL, (double[]){7});
    EXPECT_OK(nt_get_double(s0, NULL, &v));
    EXPECT(v == 7);
    nt_tensor_release(x);
    nt_tensor_release(t);
    nt_tensor_release(s0);
}

int main(void) {
    NT_RUN(test_every_dtype_pair_matches_torch);
    NT_RUN(test_transposed_copies_of_every_element_size);
    NT_RUN(test_fill_converts_like_torch);
    NT_RUN(test_fill_rejects_overflow_with_torchs_text);
    NT_RUN(test_fill_strided_expanded_and_empty);
    NT_RUN(test_copy_broadcasts_and_converts);
    NT_RUN(test_copy_shape_errors_match_torch);
    NT_RUN(test_copy_follows_its_name_rule);
    NT_RUN(test_copy_overlap_errors_and_safe_cases);
    NT_RUN(test_large_copies_run_in_parallel);
    NT_RUN(test_contiguous_clone_and_to_keep_names);
    NT_RUN(test_clone_of_negative_strides_and_empty);
    NT_RUN(test_item_reads_one_element);
    NT_RUN(test_get_double_checks_the_index);
    return nt_test_summary();
}
