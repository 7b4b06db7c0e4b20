/*
 * test_optim.c — the fused optimizer steps (ntensor/optim.h): two steps of SGD (nesterov,
 * weight decay), Adam (amsgrad, weight decay) and AdamW (maximize) against torch.optim's
 * float64 values (PyTorch 1.13, to the bit), the AVX2 and baseline loops alike, the step
 * counter, a strided parameter, and the errors, after which nothing has changed.
 */
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "nt_test.h"

static nt_tensor *vec(const double *v, int64_t n) {
    nt_tensor *t = NULL;
    EXPECT_OK(nt_from_buffer(v, NT_FLOAT64, 1, &n, NULL, &t));
    return t;
}

static nt_tensor *zeros3(void) {
    int64_t n = 3;
    nt_tensor *t = NULL;
    EXPECT_OK(nt_full(1, &n, nt_scalar_float(0), NT_FLOAT64, NULL, &t));
    return t;
}

static double at(const nt_tensor *t, int64_t i) {
    double v = NAN;
    EXPECT_OK(nt_get_double(t, &i, &v));
    return v;
}

static void expect_values(const nt_tensor *t, const double *want) {
    for (int64_t i = 0; i < 3; i++) {
        EXPECT(at(t, i) == want[i]);
        if (at(t, i) != want[i])
            fprintf(stderr, "  [%lld] %.17g, want %.17g\n", (long long)i, at(t, i), want[i]);
    }
}

static const double p0[3] = {1.0, -2.0, 0.5};
static const double g0[2][3] = {{0.1, 0.2, -0.3}, {-0.4, 0.25, 0.05}};

/* torch.optim.SGD(lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True), two steps */
static void test_sgd_matches_torch(void) {
    nt_tensor *p = vec(p0, 3), *buf = zeros3();
    for (int s = 0; s < 2; s++) {
        nt_tensor *g = vec(g0[s], 3);
        EXPECT_OK(nt_fused_sgd_(1, &p, &g, &buf, 0.01, 0.9, 0.1, 0.0, true, false, s == 0));
        nt_tensor_release(g);
    }
    expect_values(p, (const double[]){1.04432971, -2.09241502, 0.569388505});
    expect_values(buf, (const double[]){-0.29120900000000005, 0.39165800000000006, -0.2099395});
    nt_tensor_release(p);
    nt_tensor_release(buf);
}

/* Adam(lr=0.1, betas=(0.9, 0.99), weight_decay=0.01, amsgrad=True) and AdamW(lr=0.1,
 * betas=(0.9, 0.99), weight_decay=0.01, maximize=True), two steps each */
static void test_adam_matches_torch(void) {
    for (int w = 0; w < 2; w++) {
        nt_tensor *p = vec(p0, 3), *m = zeros3(), *v = zeros3(), *vmax = zeros3(), *step = NULL;
        EXPECT_OK(nt_full(0, NULL, nt_scalar_float(0), NT_FLOAT32, NULL, &step));
        for (int s = 0; s < 2; s++) {
            nt_tensor *g = vec(g0[s], 3);
            if (w == 0)
                EXPECT_OK(nt_fused_adam_(1, &p, &g, &m, &v, &vmax, &step, 0.1, 0.9, 0.99, 0.01,
                                         1e-8, false));
            else
                EXPECT_OK(nt_fused_adamw_(1, &p, &g, &m, &v, NULL, &step, 0.1, 0.9, 0.99, 0.01,
                                          1e-8, true));
            nt_tensor_release(g);
        }
        double steps = NAN;
        EXPECT_OK(nt_get_double(step, NULL, &steps));
        EXPECT(steps == 2.0);
        if (w == 0) {
            expect_values(
                p, (const double[]){0.9533947060247498, -2.199856792713884, 0.6520539487825707});
            expect_values(m, (const double[]){-0.029199999990909088, 0.039100000005555545,
                                              -0.020950000003389826});
            expect_values(vmax, (const double[]){0.0016485999992890928, 0.0008451700002544452,
                                                 0.0008929074999620346});
        } else {
            expect_values(
                p, (const double[]){1.0420619521162553, -1.7961875088537231, 0.3451310696361477});
            expect_values(v, (const double[]){0.0016990000000000015, 0.001021000000000001,
                                              0.0009160000000000008});
        }
        nt_tensor *all[] = {p, m, v, vmax, step};
        for (int k = 0; k < 5; k++)
            nt_tensor_release(all[k]);
    }
}

/* The baseline loops (libm's fma, no vectors) give the AVX2 loops' bits, float32 and the
 * halves, over lengths that leave vector tails. */
static void test_baseline_loops_match_avx2(void) {
    if (!nt_cpu()->avx2_fma) return; /* only the baseline here: nothing to compare */
    nt_dtype dtypes[3] = {NT_FLOAT32, NT_BFLOAT16, NT_FLOAT16};
    for (int d = 0; d < 3; d++) {
        int64_t n = 37;
        double pv[37], gv[37];
        for (int i = 0; i < n; i++) {
            pv[i] = sin(i * 0.7) * 3;
            gv[i] = cos(i * 1.3) * 0.01;
        }
        nt_tensor *p64 = NULL, *g64 = NULL, *runs[2][5] = {{NULL}};
        EXPECT_OK(nt_from_buffer(pv, NT_FLOAT64, 1, &n, NULL, &p64));
        EXPECT_OK(nt_from_buffer(gv, NT_FLOAT64, 1, &n, NULL, &g64));
        for (int r = 0; r < 2; r++) {
            nt_tensor **t = runs[r];
            EXPECT_OK(nt_to_dtype(p64, dtypes[d], &t[0]));
            EXPECT_OK(nt_to_dtype(g64, dtypes[d], &t[1]));
            for (int k = 2; k < 4; k++)
                EXPECT_OK(nt_full(1, &n, nt_scalar_float(0), dtypes[d], NULL, &t[k]));
            EXPECT_OK(nt_full(0, NULL, nt_scalar_float(0), NT_FLOAT32, NULL, &t[4]));
            nt_cpu_found.avx2_fma = r == 0; /* run 0 with AVX2, run 1 without */
            for (int s = 0; s < 3; s++) {
                EXPECT_OK(nt_fused_adam_(1, &t[0], &t[1], &t[2], &t[3], NULL, &t[4], 0.01, 0.9,
                                         0.999, 0.1, 1e-8, s == 1));
                EXPECT_OK(nt_fused_sgd_(1, &t[0], &t[1], &t[2], 0.01, 0.9, 0.1, 0.0, true, false,
                                        s == 0));
            }
            nt_cpu_found.avx2_fma = true;
        }
        for (int k = 0; k < 4; k++) {
            size_t bytes = (size_t)n * nt_dtype_size(dtypes[d]);
            EXPECT(memcmp(nt_tensor_data(runs[0][k]), nt_tensor_data(runs[1][k]), bytes) == 0);
        }
        nt_tensor_release(p64);
        nt_tensor_release(g64);
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 5; k++)
                nt_tensor_release(runs[r][k]);
    }
}

/* A transposed (strided) parameter takes the iterator's path: the same values as a
 * contiguous copy, element by element. */
static void test_strided_param(void) {
    double data[6] = {1, 2, 3, 4, 5, 6}, grad[6] = {0.5, -1, 2, 0.25, -0.75, 3};
    int64_t sizes[2] = {2, 3};
    nt_tensor *a = NULL, *at_ = NULL, *b = NULL, *g = NULL, *gt = NULL, *gc = NULL;
    EXPECT_OK(nt_from_buffer(data, NT_FLOAT64, 2, sizes, NULL, &a));
    EXPECT_OK(nt_transpose(a, 0, 1, &at_));
    EXPECT_OK(nt_contiguous(at_, &b));
    EXPECT_OK(nt_from_buffer(grad, NT_FLOAT64, 2, sizes, NULL, &g));
    EXPECT_OK(nt_transpose(g, 0, 1, &gt));
    EXPECT_OK(nt_contiguous(gt, &gc));
    uint64_t before = nt_tensor_version(at_);
    EXPECT_OK(nt_fused_sgd_(1, &at_, &gt, NULL, 0.1, 0.0, 0.5, 0.0, false, false, false));
    EXPECT_OK(nt_fused_sgd_(1, &b, &gc, NULL, 0.1, 0.0, 0.5, 0.0, false, false, false));
    EXPECT(nt_tensor_version(at_) > before);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++) {
            int64_t ix[2] = {i, j};
            double x = NAN, y = NAN;
            EXPECT_OK(nt_get_double(at_, ix, &x));
            EXPECT_OK(nt_get_double(b, ix, &y));
            EXPECT(x == y);
            EXPECT_NEAR(x, data[j * 3 + i] - 0.5 * (grad[j * 3 + i] + 0.1 * data[j * 3 + i]),
                        1e-12);
        }
    nt_tensor *all[] = {a, at_, b, g, gt, gc};
    for (int k = 0; k < 6; k++)
        nt_tensor_release(all[k]);
}

/* Errors name the lists and entries; a failed call writes nothing. */
static void test_errors_change_nothing(void) {
    int64_t n3 = 3, n2 = 2;
    nt_tensor *p = vec(p0, 3), *p2 = vec(p0, 3), *g = vec(g0[0], 3), *m = zeros3(), *v = zeros3();
    nt_tensor *short_g = NULL, *ints = NULL, *step = NULL, *named = NULL, *named_g = NULL;
    EXPECT_OK(nt_from_buffer(p0, NT_FLOAT64, 1, &n2, NULL, &short_g));
    EXPECT_OK(nt_full(1, &n3, nt_scalar_int(1), NT_INT64, NULL, &ints));
    EXPECT_OK(nt_full(0, NULL, nt_scalar_float(0), NT_FLOAT32, NULL, &step));
    nt_name a = N("A"), b = N("B");
    EXPECT_OK(nt_from_buffer(p0, NT_FLOAT64, 1, &n3, &a, &named));
    EXPECT_OK(nt_from_buffer(g0[0], NT_FLOAT64, 1, &n3, &b, &named_g));
    nt_tensor *ps[2] = {p, p2}, *gs[2] = {g, short_g};
    EXPECT_FAIL(nt_fused_sgd_(2, ps, gs, NULL, 0, 0, 0.1, 0, false, false, false), NT_ERR_RUNTIME,
                "_fused_sgd_(): grads[1] has size [2] but its parameter self[1] has size [3]");
    gs[1] = ints;
    EXPECT_FAIL(nt_fused_sgd_(2, ps, gs, NULL, 0, 0, 0.1, 0, false, false, false), NT_ERR_RUNTIME,
                "_fused_sgd_(): grads[1] has dtype Long but its parameter self[1] has dtype "
                "Double");
    EXPECT_FAIL(nt_fused_sgd_(1, &ints, &ints, NULL, 0, 0, 0.1, 0, false, false, false),
                NT_ERR_RUNTIME,
                "_fused_sgd_(): expected floating-point parameters, but self[0] has dtype Long");
    EXPECT_FAIL(nt_fused_sgd_(1, &named, &named_g, NULL, 0, 0, 0.1, 0, false, false, false),
                NT_ERR_RUNTIME,
                "_fused_sgd_(): grads[0] has names ['B'] but its parameter self[0] has ['A']");
    EXPECT_FAIL(nt_fused_sgd_(1, &p, &g, NULL, 0, 0.9, 0.1, 0, false, false, false), NT_ERR_RUNTIME,
                "_fused_sgd_(): Tensor lists must have the same number of tensors, got 1 (self) "
                "and 0 (momentum_buffer_list)");
    EXPECT_FAIL(nt_fused_sgd_(1, &p, &g, &p, 0, 0.9, 0.1, 0, false, false, false), NT_ERR_RUNTIME,
                "_fused_sgd_(): self[0] and momentum_buffer_list[0] share memory");
    EXPECT_FAIL(nt_fused_adam_(1, &p, &g, &m, &v, NULL, &p, 0.1, 0.9, 0.99, 0, 1e-8, false),
                NT_ERR_RUNTIME,
                "_fused_adam_(): state_steps[0] must be a floating-point tensor of one element "
                "(PyTorch's float32 step count), got Double of 3 elements");
    /* a good first parameter, a bad second: neither is written, no step counted */
    nt_tensor *ms[2] = {m, m}, *vs[2] = {v, v}, *steps[2] = {step, step};
    gs[1] = short_g;
    EXPECT_ERR(nt_fused_adam_(2, ps, gs, ms, vs, NULL, steps, 0.1, 0.9, 0.99, 0, 1e-8, false),
               NT_ERR_RUNTIME, "grads[1] has size [2]");
    expect_values(p, p0);
    expect_values(m, (const double[]){0, 0, 0});
    double s = NAN;
    EXPECT_OK(nt_get_double(step, NULL, &s));
    EXPECT(s == 0.0);
    /* named alike, or one side unnamed: fine, and the names stay */
    EXPECT_OK(nt_fused_sgd_(1, &named, &g, NULL, 0, 0, 0.1, 0, false, false, false));
    EXPECT(nt_tensor_names(named) && nt_tensor_names(named)[0] == a);
    /* no parameters: nothing to do */
    EXPECT_OK(
        nt_fused_adam_(0, NULL, NULL, NULL, NULL, NULL, NULL, 0.1, 0.9, 0.99, 0, 1e-8, false));
    nt_tensor *all[] = {p, p2, g, m, v, short_g, ints, step, named, named_g};
    for (int k = 0; k < 10; k++)
        nt_tensor_release(all[k]);
}

int main(void) {
    NT_RUN(test_sgd_matches_torch);
    NT_RUN(test_adam_matches_torch);
    NT_RUN(test_baseline_loops_match_avx2);
    NT_RUN(test_strided_param);
    NT_RUN(test_errors_change_nothing);
    return nt_test_summary();
}
