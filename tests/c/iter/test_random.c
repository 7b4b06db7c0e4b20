/*
 * test_random.c — Philox 4x32-10 and the random fills: known answers, reproducibility,
 * independence from the thread count, ranges, moments, strided views, errors (PyTorch's
 * texts) and a generator shared by several threads.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/scalar.h"
#include "core/tensor.h"
#include "kernels/philox.h"
#include "nt_test.h"

static const nt_dtype float_dtypes[] = {NT_FLOAT16, NT_BFLOAT16, NT_FLOAT32, NT_FLOAT64};

static double at(const nt_tensor *t, int64_t i) {
    return nt_load_double((const char *)nt_tensor_data(t) + i * (int64_t)nt_dtype_size(t->dtype),
                          t->dtype);
}

static nt_tensor *make(int64_t n, nt_dtype dtype, bool normal) {
    nt_tensor *t = NULL;
    EXPECT_OK(normal ? nt_randn(1, &n, dtype, NULL, &t) : nt_rand(1, &n, dtype, NULL, &t));
    return t;
}

static bool same_bytes(const nt_tensor *a, const nt_tensor *b) {
    return a && b && a->numel == b->numel && a->dtype == b->dtype &&
           memcmp(nt_tensor_data(a), nt_tensor_data(b),
                  (size_t)a->numel * nt_dtype_size(a->dtype)) == 0;
}

/* ------------------------------------------------------------------ Philox */

static void test_philox_known_answers(void) {
    /* Random123's kat_vectors: "philox4x32 10" counter, key -> output */
    const struct {
        uint32_t ctr[4], key[2], out[4];
    } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
         {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
         {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (int k = 0; k < 3; k++) {
        uint32_t out[4];
        nt_philox4x32_10(kat[k].ctr, kat[k].key, out);
        EXPECT(memcmp(out, kat[k].out, sizeof out) == 0);
    }
}

static void test_philox_block_matches_the_reference(void) {
    static uint32_t w[4][PHILOX_LANES];
    uint64_t seed = UINT64_C(0x0123456789abcdef), first = UINT64_C(0xfffffffffffffff0);
    nt_philox_block(first, seed, w); /* the counter crosses 2^64 - 1 -> 0 in the block */
    for (int j = 0; j < PHILOX_LANES; j++) {
        uint64_t c = first + (uint64_t)j;
        uint32_t ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), 0, 0};
        uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        uint32_t out[4];
        nt_philox4x32_10(ctr, key, out);
        EXPECT(w[0][j] == out[0] && w[1][j] == out[1] && w[2][j] == out[2] && w[3][j] == out[3]);
    }
}

static void test_unit_transforms_stay_below_one(void) {
    EXPECT(nt_bits_to_unit_f32(0) == 0.0f);
    EXPECT(nt_bits_to_unit_f32(0xffffffffu) == 1.0f - 0x1p-24f);
    EXPECT(nt_bits_to_unit_f64(0, 0) == 0.0);
    EXPECT(nt_bits_to_unit_f64(0xffffffffu, 0xffffffffu) == 1.0 - 0x1p-53);
    EXPECT(nt_bits_to_unit_f64(0x80000000u, 0) == 0.5);
}

static double ulp_of(double x) {
    float f = fabsf((float)x);
    return (double)nextafterf(f, INFINITY) - (double)f;
}

/* The vectorizable math of the float Box-Muller transform against double-precision libm:
 * log over the u the transform can see (k / 2^24: every one below 2^-8, then every 7th), sqrt over
 * its whole input range, and the normals themselves over angles all around the circle. */
static void test_box_muller_math_is_accurate(void) {
    double worst_log = 0, worst_sqrt = 0, worst_bm = 0;
    for (uint32_t k = 1; k <= 0x1000000u; k += k < 0x10000u ? 1 : 7) { /* small u: all */
        float u = (float)k * 0x1p-24f;
        double ref = log((double)u);
        double err = fabs((double)nt_logf_approx(u) - ref);
        if (ref == 0.0)
            EXPECT(err == 0.0);
        else if (err / ulp_of(ref) > worst_log)
            worst_log = err / ulp_of(ref);
    }
    EXPECT(nt_sqrtf_approx(0.0f) == 0.0f);
    for (uint32_t k = 1; k <= 0x100000u; k++) {
        float y = (float)k * (34.0f / 1048576.0f); /* -2 log(2^-24) < 34 */
        double ref = sqrt((double)y);
        double err = fabs((double)nt_sqrtf_approx(y) - ref) / ulp_of(ref);
        worst_sqrt = err > worst_sqrt ? err : worst_sqrt;
    }
    for (uint32_t b = 0; b < 0x1000000u; b += 61) {
        for (uint32_t a = 0x00000000u; a < 0xffffffffu - 0x3fffffffu; a += 0x3fffffffu) {
            float z0, z1;
            nt_box_muller_f32(a, b << 8, &z0, &z1);
            double r = sqrt(-2.0 * log(1.0 - (double)(a >> 8) * 0x1p-24));
            double theta = 6.283185307179586 * (double)b * 0x1p-24;
            double e0 = fabs(z0 - r * cos(theta)), e1 = fabs(z1 - r * sin(theta));
            double err = (e0 > e1 ? e0 : e1) / ulp_of(r > 1 ? r : 1);
            worst_bm = err > worst_bm ? err : worst_bm;
        }
    }
    EXPECT(worst_log <= 1.0 && worst_sqrt <= 1.0 && worst_bm <= 2.0);
    if (!(worst_log <= 1.0 && worst_sqrt <= 1.0 && worst_bm <= 2.0))
        fprintf(stderr, "  log %.2f ulp, sqrt %.2f ulp, box-muller %.2f ulp\n", worst_log,
                worst_sqrt, worst_bm);
}

/* ------------------------------------------------------------------ reproducibility */

static void test_same_seed_same_numbers(void) {
    for (int normal = 0; normal < 2; normal++) {
        for (int d = 0; d < 4; d++) {
            nt_manual_seed(1234);
            nt_tensor *a = make(1001, float_dtypes[d], normal);
            nt_tensor *b = make(1001, float_dtypes[d], normal); /* the offset moved on */
            nt_manual_seed(1234);
            nt_tensor *c = make(1001, float_dtypes[d], normal);
            nt_manual_seed(1235);
            nt_tensor *e = make(1001, float_dtypes[d], normal);
            EXPECT(same_bytes(a, c));
            EXPECT(!same_bytes(a, b) && !same_bytes(a, e));
            nt_tensor_release(a);
            nt_tensor_release(b);
            nt_tensor_release(c);
            nt_tensor_release(e);
        }
    }
}

/* The documented scheme: after manual_seed(s), the first fill's value w*64 + j comes from
 * word w of Philox(counter j, key s); a second fill starts at the next unused block. */
static void test_values_come_from_the_documented_counters(void) {
    uint64_t seed = UINT64_C(0xdeadbeef00000042);
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    nt_manual_seed(seed);
    nt_tensor *a = make(300, NT_FLOAT32, false); /* 300 values: two blocks of 64 counters */
    nt_tensor *b = make(5, NT_FLOAT32, false);
    const float *fa = nt_tensor_data(a), *fb = nt_tensor_data(b);
    for (int i = 0; i < 300; i++) {
        int64_t block = i / 256, w = (i % 256) / 64, j = i % 64;
        uint32_t ctr[4] = {(uint32_t)(block * 64 + j), 0, 0, 0}, out[4];
        nt_philox4x32_10(ctr, key, out);
        EXPECT(fa[i] == nt_bits_to_unit_f32(out[w]));
    }
    uint32_t ctr[4] = {128 + 3, 0, 0, 0}, out[4]; /* b's value 3: counter 128 + 3, word 0 */
    nt_philox4x32_10(ctr, key, out);
    EXPECT(fb[3] == nt_bits_to_unit_f32(out[0]));
    nt_tensor_release(a);
    nt_tensor_release(b);

    /* float64: value w*64 + j takes words (2w, 2w+1) of counter j */
    nt_manual_seed(seed);
    nt_tensor *d = make(100, NT_FLOAT64, false);
    uint32_t c70[4] = {70 - 64, 0, 0, 0};
    nt_philox4x32_10(c70, key, out);
    EXPECT(((const double *)nt_tensor_data(d))[70] == nt_bits_to_unit_f64(out[2], out[3]));
    nt_tensor_release(d);
}

static void test_thread_count_does_not_change_the_numbers(void) {
    int saved = nt_get_num_threads();
    int64_t n = (INT64_C(1) << 20) + 12345;
    for (int normal = 0; normal < 2; normal++) {
        for (int d = 0; d < 4; d++) {
            nt_set_num_threads(1);
            nt_manual_seed(7);
            nt_tensor *one = make(n, float_dtypes[d], normal);
            nt_set_num_threads(2);
            nt_manual_seed(7);
            nt_tensor *two = make(n, float_dtypes[d], normal);
            nt_set_num_threads(3);
            nt_manual_seed(7);
            nt_tensor *three = make(n, float_dtypes[d], normal);
            EXPECT(same_bytes(one, two) && same_bytes(one, three));
            nt_tensor_release(one);
            nt_tensor_release(two);
            nt_tensor_release(three);
        }
    }
    nt_set_num_threads(saved);
}

/* ------------------------------------------------------------------ distributions */

static void test_uniform_respects_low_and_high(void) {
    nt_manual_seed(99);
    const int64_t n = 1000000;
    /* (low, high) pairs where rounding to the dtype often reaches high: 1 - 2^-12 already
     * rounds to 1.0 in float16, and u + 1e6 to 1e6 + 1 in float32 */
    const struct {
        double low, high;
    } ranges[] = {{0.0, 1.0}, {-2.0, 3.0}, {1e6, 1e6 + 1}, {1e15, 1e15 + 1}, {-1e-3, 0.0}};
    for (int d = 0; d < 4; d++) {
        nt_dtype dtype = float_dtypes[d];
        for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
            double low = ranges[r].low, high = ranges[r].high;
            if (dtype != NT_FLOAT64 && high > 1e9) continue; /* not representable apart */
            if (dtype != NT_FLOAT32 && dtype != NT_FLOAT64 && high > 1e5) continue;
            nt_tensor *t = NULL;
            EXPECT_OK(nt_empty(1, &n, dtype, NULL, &t));
            uint64_t version = nt_tensor_version(t);
            EXPECT_OK(nt_uniform_(t, low, high));
            EXPECT(nt_tensor_version(t) > version);
            /* compare with the bounds as the dtype stores them */
            nt_tensor *bounds = NULL;
            int64_t two = 2;
            EXPECT_OK(nt_empty(1, &two, dtype, NULL, &bounds));
            void *bp = nt_tensor_data(bounds);
            size_t es = nt_dtype_size(dtype);
            nt_store_scalar(bp, dtype, nt_scalar_float(low));
            nt_store_scalar((char *)bp + es, dtype, nt_scalar_float(high));
            double lo = at(bounds, 0), hi = at(bounds, 1), mn = hi, mx = lo;
            for (int64_t i = 0; i < n; i++) {
                double v = at(t, i);
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
            EXPECT(mn >= lo && mx < hi);
            if (!(mn >= lo && mx < hi))
                fprintf(stderr, "  %s [%g, %g): min %.17g max %.17g\n", nt_dtype_name(dtype), low,
                        high, mn, mx);
            /* and the values spread over the range (up to the dtype's spacing near 1e15) */
            EXPECT(mn <= lo + (hi - lo) * 0.2 && mx >= hi - (hi - lo) * 0.2);
            nt_tensor_release(bounds);
            nt_tensor_release(t);
        }
    }
    /* low == high: every value is low (torch.empty(2).uniform_(1, 1)) */
    for (int d = 0; d < 4; d++) {
        nt_tensor *t = NULL;
        int64_t m = 100;
        EXPECT_OK(nt_empty(1, &m, float_dtypes[d], NULL, &t));
        EXPECT_OK(nt_uniform_(t, 1.5, 1.5));
        bool all = true;
        for (int64_t i = 0; i < m; i++)
            all &= at(t, i) == 1.5;
        EXPECT(all);
        nt_tensor_release(t);
    }
}

static void moments(const nt_tensor *t, double *mean, double *std) {
    double s = 0, s2 = 0;
    int64_t n = nt_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        double v = at(t, i);
        s += v;
        s2 += v * v;
    }
    *mean = s / (double)n;
    *std = sqrt(s2 / (double)n - *mean * *mean);
}

static void test_moments(void) {
    nt_manual_seed(2024);
    const int64_t n = 1000000;
    for (int d = 0; d < 4; d++) {
        double mean, std;
        /* standard normal: the mean's standard error is 0.001 */
        nt_tensor *t = make(n, float_dtypes[d], true);
        moments(t, &mean, &std);
        EXPECT_NEAR(mean, 0.0, 0.005);
        EXPECT_NEAR(std, 1.0, 0.005);
        /* tails: P(|z| > 3) = 0.0027 */
        int64_t tail = 0;
        for (int64_t i = 0; i < n; i++)
            tail += fabs(at(t, i)) > 3.0;
        EXPECT(tail > 2300 && tail < 3100);
        nt_tensor_release(t);
        /* normal(3, 2) */
        int64_t sizes[2] = {1000, 1000};
        EXPECT_OK(nt_normal(3.0, 2.0, 2, sizes, float_dtypes[d], NULL, &t));
        moments(t, &mean, &std);
        EXPECT_NEAR(mean, 3.0, 0.01);
        EXPECT_NEAR(std, 2.0, 0.01);
        nt_tensor_release(t);
        /* uniform [0, 1): mean 1/2, std 1/sqrt(12) */
        t = make(n, float_dtypes[d], false);
        moments(t, &mean, &std);
        EXPECT_NEAR(mean, 0.5, 0.002);
        EXPECT_NEAR(std, 0.28867513, 0.002);
        nt_tensor_release(t);
    }
}

static void test_normal_with_zero_std_is_the_mean(void) {
    int64_t n = 1000;
    nt_tensor *t = NULL;
    EXPECT_OK(nt_normal(-4.25, 0.0, 1, &n, NT_FLOAT32, NULL, &t));
    bool all = true;
    for (int64_t i = 0; i < n; i++)
        all &= at(t, i) == -4.25;
    EXPECT(all);
    EXPECT_OK(nt_normal_(t, 2.0, 0.0));
    EXPECT(at(t, 0) == 2.0 && at(t, 999) == 2.0);
    nt_tensor_release(t);
}

/* ------------------------------------------------------------------ tensors */

static void test_factories_keep_shape_names_and_dtype(void) {
    int64_t sizes[3] = {2, 3, 4};
    nt_name names[3] = {N("N"), NT_NAME_NONE, N("C")};
    nt_tensor *t = NULL, *like = NULL;
    EXPECT_OK(nt_rand(3, sizes, NT_FLOAT64, names, &t));
    EXPECT(t && nt_tensor_numel(t) == 24 && nt_tensor_dtype(t) == NT_FLOAT64);
    EXPECT(nt_tensor_names(t)[0] == N("N") && nt_tensor_names(t)[2] == N("C"));
    EXPECT_OK(nt_randn_like(t, -1, &like));
    EXPECT(like && nt_tensor_dtype(like) == NT_FLOAT64 && nt_tensor_names(like)[2] == N("C"));
    nt_tensor_release(like);
    EXPECT_OK(nt_rand_like(t, NT_FLOAT16, &like));
    EXPECT(like && nt_tensor_dtype(like) == NT_FLOAT16 && nt_tensor_sizes(like)[2] == 4);
    nt_tensor_release(like);
    EXPECT_OK(nt_randn(3, sizes, NT_BFLOAT16, names, &like));
    EXPECT(like && nt_tensor_names(like)[0] == N("N"));
    nt_tensor_release(like);
    like = NULL;
    EXPECT_ERR(nt_rand(3, sizes, NT_FLOAT32, (nt_name[]){N("N"), N("N"), 0}, &like), NT_ERR_RUNTIME,
               "duplicate names");
    EXPECT_ERR(nt_randn_like(t, 42, &like), NT_ERR_TYPE, "invalid dtype 42");
    EXPECT(like == NULL);
    nt_tensor_release(t);
    /* empty tensors are fine */
    int64_t zero[2] = {0, 3};
    EXPECT_OK(nt_randn(2, zero, NT_FLOAT32, NULL, &t));
    EXPECT(nt_tensor_numel(t) == 0);
    nt_tensor_release(t);
}

/* A fill of a strided view writes, in row-major order, the values a contiguous tensor of
 * the same shape would get. */
static void test_fills_of_strided_views(void) {
    int64_t sizes[2] = {48, 64};
    for (int normal = 0; normal < 2; normal++) {
        for (int d = 0; d < 4; d++) {
            nt_dtype dtype = float_dtypes[d];
            nt_tensor *base = NULL, *view = NULL, *ref = NULL;
            EXPECT_OK(nt_zeros(2, sizes, dtype, NULL, &base));
            /* the transpose of base's top-left 48x32 block: sizes (32, 48), strides (1, 64) */
            int64_t vs[2] = {32, 48}, vst[2] = {1, 64};
            EXPECT_OK(nt_tensor_view_of(base, 2, vs, vst, 0, NULL, &view));
            uint64_t version = nt_tensor_version(base);
            nt_manual_seed(5);
            EXPECT_OK(normal ? nt_normal_(view, 1.0, 3.0) : nt_uniform_(view, -1.0, 1.0));
            EXPECT(nt_tensor_version(base) > version);
            EXPECT_OK(nt_empty(2, vs, dtype, NULL, &ref));
            nt_manual_seed(5);
            EXPECT_OK(normal ? nt_normal_(ref, 1.0, 3.0) : nt_uniform_(ref, -1.0, 1.0));
            bool same = true, untouched = true;
            for (int64_t i = 0; i < 32; i++)
                for (int64_t j = 0; j < 48; j++) {
                    same &= at(base, j * 64 + i) == at(ref, i * 48 + j);
                    untouched &= at(base, j * 64 + 32 + i) == 0.0;
                }
            EXPECT(same && untouched);
            nt_tensor_release(ref);
            nt_tensor_release(view);
            nt_tensor_release(base);
        }
    }
}

/* ------------------------------------------------------------------ errors */

static void test_errors_match_pytorch(void) {
    int64_t n = 2;
    nt_tensor *t = NULL;
    /* torch.rand(2, dtype=torch.int64), torch.rand(2, dtype=torch.bool) */
    EXPECT_ERR(nt_rand(1, &n, NT_INT64, NULL, &t), NT_ERR_RUNTIME,
               "\"check_uniform_bounds\" not implemented for 'Long'");
    EXPECT_ERR(nt_rand(1, &n, NT_BOOL, NULL, &t), NT_ERR_RUNTIME,
               "\"check_uniform_bounds\" not implemented for 'Bool'");
    /* torch.randn(2, dtype=torch.int32), torch.normal(0., 1., size=(2,), dtype=torch.uint8) */
    EXPECT_ERR(nt_randn(1, &n, NT_INT32, NULL, &t), NT_ERR_RUNTIME,
               "\"normal_kernel_cpu\" not implemented for 'Int'");
    EXPECT_ERR(nt_normal(0.0, 1.0, 1, &n, NT_UINT8, NULL, &t), NT_ERR_RUNTIME,
               "\"normal_kernel_cpu\" not implemented for 'Byte'");
    /* torch.rand(-1) */
    int64_t neg = -1;
    EXPECT_ERR(nt_rand(1, &neg, NT_FLOAT32, NULL, &t), NT_ERR_RUNTIME, "negative dimension");
    EXPECT(t == NULL);

    nt_tensor *f = NULL, *h = NULL, *b = NULL, *d = NULL, *i8 = NULL;
    EXPECT_OK(nt_zeros(1, &n, NT_FLOAT32, NULL, &f));
    EXPECT_OK(nt_zeros(1, &n, NT_FLOAT16, NULL, &h));
    EXPECT_OK(nt_zeros(1, &n, NT_BFLOAT16, NULL, &b));
    EXPECT_OK(nt_zeros(1, &n, NT_FLOAT64, NULL, &d));
    EXPECT_OK(nt_zeros(1, &n, NT_INT8, NULL, &i8));
    uint64_t version = nt_tensor_version(f);
    /* torch.empty(2).normal_(0, -1), .normal_(0, nan); the std check comes first:
     * torch.empty(2, dtype=torch.int64).normal_(0, -1) reports the std too */
    EXPECT_ERR(nt_normal_(f, 0.0, -1.0), NT_ERR_RUNTIME,
               "normal expects std >= 0.0, but found std -1");
    EXPECT_ERR(nt_normal_(f, 0.0, NAN), NT_ERR_RUNTIME,
               "normal expects std >= 0.0, but found std nan");
    EXPECT_ERR(nt_normal_(i8, 0.0, -1.0), NT_ERR_RUNTIME, "but found std -1");
    EXPECT_ERR(nt_normal(0.0, -1.0, 1, &n, NT_FLOAT32, NULL, &t), NT_ERR_RUNTIME,
               "normal expects std >= 0.0, but found std -1");
    EXPECT_ERR(nt_uniform_(i8, 0, 1), NT_ERR_RUNTIME,
               "\"check_uniform_bounds\" not implemented for 'Char'");
    /* torch.empty(2).uniform_(1, 0) */
    EXPECT_ERR(nt_uniform_(f, 1.0, 0.0), NT_ERR_RUNTIME,
               "uniform_ expects to return a [from, to) range, but found from=1 > to=0");
    /* torch.empty(2).uniform_(0, inf), (-3.5e38, 3.5e38), (nan, 1) */
    EXPECT_ERR(nt_uniform_(f, 0.0, INFINITY), NT_ERR_RUNTIME, "to is out of bounds for float");
    EXPECT_ERR(nt_uniform_(f, -3.5e38, 3.5e38), NT_ERR_RUNTIME, "from is out of bounds for float");
    EXPECT_ERR(nt_uniform_(f, NAN, 1.0), NT_ERR_RUNTIME, "from is out of bounds for float");
    /* torch.empty(2, dtype=torch.float16).uniform_(0, 70000) and bfloat16 (0, 1e39) */
    EXPECT_ERR(nt_uniform_(h, 0.0, 70000.0), NT_ERR_RUNTIME, "to is out of bounds for c10::Half");
    EXPECT_ERR(nt_uniform_(b, 0.0, 1e39), NT_ERR_RUNTIME, "to is out of bounds for c10::BFloat16");
    /* torch.empty(2, dtype=torch.float16).uniform_(-60000, 60000) */
    EXPECT_ERR(nt_uniform_(h, -60000.0, 60000.0), NT_ERR_RUNTIME,
               "uniform_ expects to-from <= std::numeric_limits<Half>::max(), but found "
               "to=60000 and from=-60000 which result in to-from to exceed the limit");
    /* torch.empty(2, dtype=torch.float64).uniform_(-1e308, 1e308) */
    EXPECT_ERR(nt_uniform_(d, -1e308, 1e308), NT_ERR_RUNTIME,
               "uniform_ expects to-from <= std::numeric_limits<Double>::max(), but found "
               "to=1e+308 and from=-1e+308 which result in to-from to exceed the limit");
    /* failed fills change nothing */
    EXPECT(nt_tensor_version(f) == version && at(f, 0) == 0.0 && at(f, 1) == 0.0);
    /* the widest legal float16 range works */
    EXPECT_OK(nt_uniform_(h, -30000.0, 30000.0));
    nt_tensor_release(f);
    nt_tensor_release(h);
    nt_tensor_release(b);
    nt_tensor_release(d);
    nt_tensor_release(i8);
}

/* ------------------------------------------------------------------ threads */

#define FILLS_PER_THREAD 200

static void *fill_many(void *arg) {
    float *firsts = arg;
    for (int k = 0; k < FILLS_PER_THREAD; k++) {
        int64_t n = 3;
        nt_tensor *t = NULL;
        if (nt_rand(1, &n, NT_FLOAT32, NULL, &t) != NT_OK) return NULL;
        firsts[k] = ((const float *)nt_tensor_data(t))[0];
        nt_tensor_release(t);
    }
    return NULL;
}

static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Fills from several threads at once each reserve their own counters: 800 first values
 * from 800 fills (each a different counter block) are all distinct. */
static void test_concurrent_fills_use_distinct_counters(void) {
    static float firsts[4][FILLS_PER_THREAD];
    pthread_t threads[4];
    nt_manual_seed(11);
    for (int i = 0; i < 4; i++)
        pthread_create(&threads[i], NULL, fill_many, firsts[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    float *all = &firsts[0][0];
    qsort(all, 4 * FILLS_PER_THREAD, sizeof *all, compare_floats);
    int repeats = 0;
    for (int i = 1; i < 4 * FILLS_PER_THREAD; i++)
        repeats += all[i] == all[i - 1];
    EXPECT(repeats <= 1); /* 24-bit values: a chance collision has probability ~2% */
    /* and the same 800 fills made serially reserve the same counters: same multiset */
    static float serial[4 * FILLS_PER_THREAD];
    nt_manual_seed(11);
    fill_many(serial);
    fill_many(serial + FILLS_PER_THREAD);
    fill_many(serial + 2 * FILLS_PER_THREAD);
    fill_many(serial + 3 * FILLS_PER_THREAD);
    qsort(serial, 4 * FILLS_PER_THREAD, sizeof *serial, compare_floats);
    EXPECT(memcmp(serial, all, sizeof serial) == 0);
}

/* A generator's state restores its sequence; nt_use_generator routes a thread's fills to a
 * generator of its own and leaves the default one where it was; bad states are refused. */
static void test_generators_and_their_state(void) {
    nt_generator *g = NULL;
    EXPECT_OK(nt_generator_new(&g));
    EXPECT(nt_generator_initial_seed(g) == NT_GENERATOR_DEFAULT_SEED);
    nt_generator_manual_seed(g, 5);
    uint8_t state[NT_GENERATOR_STATE_SIZE];
    nt_generator_get_state(g, state);
    EXPECT(memcmp(state, "NTRG\1\0\0\0", 8) == 0 && state[8] == 5);
    nt_manual_seed(9);
    nt_tensor *plain = make(16, NT_FLOAT32, false), *a, *b;
    nt_manual_seed(9);
    nt_generator *before = nt_use_generator(g);
    EXPECT(before == nt_default_generator());
    a = make(16, NT_FLOAT32, true);
    EXPECT(nt_use_generator(before) == g);
    EXPECT_OK(nt_generator_set_state(g, state, NT_GENERATOR_STATE_SIZE));
    nt_use_generator(g);
    b = make(16, NT_FLOAT32, true);
    nt_use_generator(NULL);
    EXPECT(same_bytes(a, b));
    nt_tensor *again = make(16, NT_FLOAT32, false); /* the default generator did not move */
    EXPECT(same_bytes(plain, again));
    EXPECT_ERR(nt_generator_set_state(g, state, 10), NT_ERR_RUNTIME,
               "Expected an ntensor generator state of size 24 but found the input RNG state "
               "size to be 10");
    state[0] = 'X';
    EXPECT_ERR(nt_generator_set_state(g, state, NT_GENERATOR_STATE_SIZE), NT_ERR_RUNTIME,
               "not an ntensor generator state");
    nt_tensor_release(plain);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(again);
    nt_generator_free(g);
    nt_generator_free(nt_default_generator()); /* ignored */
}

int main(void) {
    NT_RUN(test_philox_known_answers);
    NT_RUN(test_philox_block_matches_the_reference);
    NT_RUN(test_unit_transforms_stay_below_one);
    NT_RUN(test_box_muller_math_is_accurate);
    NT_RUN(test_same_seed_same_numbers);
    NT_RUN(test_values_come_from_the_documented_counters);
    NT_RUN(test_thread_count_does_not_change_the_numbers);
    NT_RUN(test_uniform_respects_low_and_high);
    NT_RUN(test_moments);
    NT_RUN(test_normal_with_zero_std_is_the_mean);
    NT_RUN(test_factories_keep_shape_names_and_dtype);
    NT_RUN(test_fills_of_strided_views);
    NT_RUN(test_errors_match_pytorch);
    NT_RUN(test_concurrent_fills_use_distinct_counters);
    NT_RUN(test_generators_and_their_state);
    return nt_test_summary();
}
