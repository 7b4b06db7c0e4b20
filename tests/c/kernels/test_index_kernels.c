/*
 * test_index_kernels.c — nonzero's kernel (kernels/index_kernels.h): which elements count
 * (-0.0 does not, NaN and subnormals do, any non-zero bool byte does), the coordinates in
 * row-major order of a strided view, a 0-dim tensor, and every dtype against a plain loop
 * that reads each element as a double.
 */
#include <stdint.h>
#include <string.h>

#include "core/scalar.h"
#include "kernels/index_kernels.h"
#include "nt_test.h"

static void test_floats_count_all_but_zeros(void) {
    float v[6] = {0.0f, -0.0f, 1.0f, NAN, -INFINITY, 1e-45f};
    int64_t sizes[2] = {2, 3}, strides[2] = {3 * 4, 4}, dst[8];
    const char *p = (const char *)v;
    EXPECT(nt_nonzero_pass(NT_FLOAT32, p, 2, sizes, strides, NULL) == 4);
    EXPECT(nt_nonzero_pass(NT_FLOAT32, p, 2, sizes, strides, dst) == 4);
    int64_t want[8] = {0, 2, 1, 0, 1, 1, 1, 2};
    EXPECT(memcmp(dst, want, sizeof want) == 0);
    uint16_t h[4] = {0x8000, 0x0000, 0x0001, 0x7e00}; /* -0, 0, the least subnormal, NaN */
    int64_t n4[1] = {4}, s2[1] = {2};
    EXPECT(nt_nonzero_pass(NT_FLOAT16, (const char *)h, 1, n4, s2, NULL) == 2);
    EXPECT(nt_nonzero_pass(NT_BFLOAT16, (const char *)h, 1, n4, s2, NULL) == 2);
}

static void test_bool_counts_any_nonzero_byte(void) {
    uint8_t b[5] = {0, 1, 2, 0, 255};
    int64_t n[1] = {5}, s[1] = {1}, dst[3];
    EXPECT(nt_nonzero_pass(NT_BOOL, (const char *)b, 1, n, s, dst) == 3);
    EXPECT(dst[0] == 1 && dst[1] == 2 && dst[2] == 4);
}

static void test_strided_view_in_row_major_order(void) {
    /* x = [[1, 0, 2], [0, 3, 0]] (int16); its transpose is 3x2 with byte strides (2, 6) */
    int16_t x[6] = {1, 0, 2, 0, 3, 0};
    int64_t sizes[2] = {3, 2}, strides[2] = {2, 6}, dst[6];
    EXPECT(nt_nonzero_pass(NT_INT16, (const char *)x, 2, sizes, strides, dst) == 3);
    int64_t want[6] = {0, 0, 1, 1, 2, 0};
    EXPECT(memcmp(dst, want, sizeof want) == 0);
}

static void test_zero_dims(void) {
    double one = 1, zero = 0;
    int64_t dst[1] = {-7};
    EXPECT(nt_nonzero_pass(NT_FLOAT64, (const char *)&one, 0, NULL, NULL, dst) == 1);
    EXPECT(dst[0] == -7); /* no coordinates to write */
    EXPECT(nt_nonzero_pass(NT_FLOAT64, (const char *)&zero, 0, NULL, NULL, NULL) == 0);
}

static void test_every_dtype_matches_a_plain_loop(void) {
    enum { ROWS = 7, COLS = 37 };
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (int dt = 0; dt < NT_DTYPE_COUNT; dt++) {
        size_t size = nt_dtype_table[dt].size;
        unsigned char data[ROWS * COLS * 8];
        for (size_t i = 0; i < sizeof data; i++) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            unsigned r = (unsigned)(state >> 59); /* zero bytes often, so that zeros occur */
            data[i] = r < 20 ? 0 : r < 24 ? 0x80 : (unsigned char)(state >> 33);
        }
        if (dt == NT_BOOL)
            for (size_t i = 0; i < ROWS * COLS; i++)
                data[i] &= 3;
        /* both the rows and the transposed view, which reads with strides */
        for (int t = 0; t < 2; t++) {
            int64_t sizes[2] = {t ? COLS : ROWS, t ? ROWS : COLS};
            int64_t strides[2] = {t ? (int64_t)size : COLS * (int64_t)size,
                                  t ? COLS * (int64_t)size : (int64_t)size};
            int64_t want[2 * ROWS * COLS], got[2 * ROWS * COLS], n = 0;
            for (int64_t i = 0; i < sizes[0]; i++)
                for (int64_t j = 0; j < sizes[1]; j++)
                    if (nt_load_double(data + i * strides[0] + j * strides[1], dt) != 0.0)
                        want[2 * n] = i, want[2 * n + 1] = j, n++;
            EXPECT(nt_nonzero_pass(dt, (const char *)data, 2, sizes, strides, NULL) == n);
            EXPECT(nt_nonzero_pass(dt, (const char *)data, 2, sizes, strides, got) == n);
            EXPECT(memcmp(got, want, (size_t)(2 * n) * sizeof(int64_t)) == 0);
        }
    }
}

int main(void) {
    NT_RUN(test_floats_count_all_but_zeros);
    NT_RUN(test_bool_counts_any_nonzero_byte);
    NT_RUN(test_strided_view_in_row_major_order);
    NT_RUN(test_zero_dims);
    NT_RUN(test_every_dtype_matches_a_plain_loop);
    return nt_test_summary();
}
