/*
 * test_nn.c — the neural-network ops through the public C API (ntensor/nn.h): values of
 * small cases worked by hand, the backward ops against finite differences of their forward
 * ops, names, and the errors of NULL arguments. tests/python/ops/test_nn_ops.py compares
 * everything with PyTorch.
 */
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "nt_test.h"

static nt_tensor *vec(int ndim, const int64_t *sizes, const double *v) {
    nt_tensor *t = NULL;
    if (nt_from_buffer(v, NT_FLOAT64, ndim, sizes, NULL, &t) != NT_OK) return NULL;
    return t;
}

static double at(const nt_tensor *t, int64_t i) {
    return ((const double *)nt_tensor_data(t))[i];
}

/* gelu(x) = x Phi(x); silu(x) = x sigmoid(x); their backward ops at grad 1 are the slopes */
static void test_activations_and_their_slopes(void) {
    const double xs[4] = {-2.0, -0.5, 0.0, 1.5};
    int64_t n = 4;
    nt_tensor *x = vec(1, &n, xs), *g = NULL, *s = NULL, *gb = NULL, *sb = NULL, *one = NULL;
    EXPECT_OK(nt_gelu(x, NULL, &g));
    EXPECT_OK(nt_silu(x, &s));
    EXPECT_OK(nt_ones_like(x, -1, &one));
    EXPECT_OK(nt_gelu_backward(one, x, "none", &gb));
    EXPECT_OK(nt_silu_backward(one, x, &sb));
    for (int i = 0; g && s && gb && sb && i < 4; i++) {
        double v = xs[i];
        EXPECT_NEAR(at(g, i), v * 0.5 * (1 + erf(v / sqrt(2.0))), 1e-15);
        EXPECT_NEAR(at(s, i), v / (1 + exp(-v)), 1e-15);
        const double h = 1e-6;
        double fd = ((v + h) * 0.5 * (1 + erf((v + h) / sqrt(2.0))) -
                     (v - h) * 0.5 * (1 + erf((v - h) / sqrt(2.0)))) /
                    (2 * h);
        EXPECT_NEAR(at(gb, i), fd, 1e-8);
        fd = ((v + h) / (1 + exp(-(v + h))) - (v - h) / (1 + exp(-(v - h)))) / (2 * h);
        EXPECT_NEAR(at(sb, i), fd, 1e-8);
    }
    nt_tensor *t = NULL;
    EXPECT_ERR(nt_gelu(x, "exact", &t), NT_ERR_RUNTIME, "either none or tanh");
    EXPECT_ERR(nt_gelu(NULL, NULL, &t), NT_ERR_TYPE, "input");
    nt_tensor *all[] = {x, g, s, gb, sb, one};
    for (int i = 0; i < 6; i++)
        nt_tensor_release(all[i]);
}

/* layer_norm of rows (1, 2, 3) and (2, 4, 6): mean 2 / 4, the same normalised row */
static void test_layer_norm_rows(void) {
    const double xs[6] = {1, 2, 3, 2, 4, 6}, ws[3] = {1, 2, 3}, bs[3] = {0, 1, 0};
    int64_t shape[2] = {2, 3}, n = 3;
    nt_tensor *x = vec(2, shape, xs), *w = vec(1, &n, ws), *b = vec(1, &n, bs), *y = NULL;
    EXPECT_OK(nt_layer_norm(x, 1, &n, w, b, 0.0, &y));
    const double r = sqrt(1.5);
    for (int row = 0; y && row < 2; row++) {
        EXPECT_NEAR(at(y, row * 3 + 0), -r * 1, 1e-12);
        EXPECT_NEAR(at(y, row * 3 + 1), 0 * 2 + 1, 1e-12);
        EXPECT_NEAR(at(y, row * 3 + 2), r * 3, 1e-12);
    }
    nt_tensor *grads[3] = {NULL, NULL, NULL};
    EXPECT_OK(nt_layer_norm_backward(x, x, 1, &n, w, 1e-5, grads));
    for (int i = 0; i < 3; i++) {
        EXPECT(grads[i] != NULL);
        nt_tensor_release(grads[i]);
    }
    nt_tensor *t = NULL;
    int64_t bad = 4;
    EXPECT_ERR(nt_layer_norm(x, 1, &bad, NULL, NULL, 1e-5, &t), NT_ERR_RUNTIME,
               "expected input with shape [*, 4]");
    nt_tensor_release(x);
    nt_tensor_release(w);
    nt_tensor_release(b);
    nt_tensor_release(y);
}

/* embedding gathers rows, its backward sums them back; names: indices' then weight's last */
static void test_embedding_round_trip(void) {
    const double ws[6] = {0, 1, 10, 11, 20, 21};
    int64_t wshape[2] = {3, 2}, ishape = 3;
    const int64_t idx[3] = {2, 0, 2};
    nt_tensor *w = NULL, *i = NULL, *e = NULL, *gw = NULL;
    nt_name names[2], v, d, nn;
    nt_name_intern("V", &v);
    nt_name_intern("D", &d);
    nt_name_intern("N", &nn);
    names[0] = v, names[1] = d;
    EXPECT_OK(nt_from_buffer(ws, NT_FLOAT64, 2, wshape, names, &w));
    EXPECT_OK(nt_from_buffer(idx, NT_INT64, 1, &ishape, &nn, &i));
    EXPECT_OK(nt_embedding(w, i, &e));
    EXPECT(e && nt_tensor_ndim(e) == 2 && nt_tensor_names(e)[0] == nn &&
           nt_tensor_names(e)[1] == d);
    EXPECT(e && at(e, 0) == 20 && at(e, 1) == 21 && at(e, 2) == 0 && at(e, 5) == 21);
    EXPECT_OK(nt_embedding_dense_backward(e, i, 3, -1, false, &gw));
    EXPECT(gw && at(gw, 4) == 40 && at(gw, 2) == 0 && at(gw, 0) == 0);
    nt_tensor_release(gw);
    gw = NULL;
    EXPECT_OK(nt_embedding_dense_backward(e, i, 3, 2, true, &gw));
    EXPECT(gw && at(gw, 4) == 0);
    const int64_t out_of_range[3] = {0, 3, 1};
    nt_tensor *j = NULL, *t = NULL;
    EXPECT_OK(nt_from_buffer(out_of_range, NT_INT64, 1, &ishape, NULL, &j));
    EXPECT_FAIL(nt_embedding(w, j, &t), NT_ERR_INDEX, "index out of range in self");
    nt_tensor *all[] = {w, i, e, gw, j};
    for (int k = 0; k < 5; k++)
        nt_tensor_release(all[k]);
}

/* nll_loss of log-probabilities (2, 3) at targets (2, 0): mean, sum, none; its backward */
static void test_nll_loss(void) {
    const double xs[6] = {-1, -2, -3, -4, -5, -6};
    int64_t shape[2] = {2, 3}, n = 2;
    const int64_t ts[2] = {2, 0};
    nt_tensor *x = vec(2, shape, xs), *t = NULL, *mean = NULL, *sum = NULL, *none = NULL, *g = NULL;
    EXPECT_OK(nt_from_buffer(ts, NT_INT64, 1, &n, NULL, &t));
    EXPECT_OK(nt_nll_loss(x, t, NULL, 1, -100, &mean));
    EXPECT_OK(nt_nll_loss(x, t, NULL, 2, -100, &sum));
    EXPECT_OK(nt_nll_loss(x, t, NULL, 0, 0, &none));
    EXPECT(mean && at(mean, 0) == 3.5);
    EXPECT(sum && at(sum, 0) == 7);
    EXPECT(none && at(none, 0) == 3 && at(none, 1) == 0);
    EXPECT_OK(nt_nll_loss_backward(mean, x, t, NULL, 1, -100, NULL, &g));
    EXPECT(g && at(g, 2) == -3.5 / 2 && at(g, 3) == -3.5 / 2 && at(g, 0) == 0);
    nt_tensor *r = NULL;
    EXPECT_FAIL(nt_nll_loss(t, t, NULL, 1, -100, &r), NT_ERR_RUNTIME,
                "\"nll_loss_out_frame\" not implemented for 'Long'");
    nt_tensor *all[] = {x, t, mean, sum, none, g};
    for (int k = 0; k < 6; k++)
        nt_tensor_release(all[k]);
}

/* linear of a (2, 2, 3) input: one GEMM over 4 rows, plus the bias */
static void test_linear(void) {
    double xs[12], ws[6] = {1, 0, 0, 0, 1, 1}, bs[2] = {10, 20};
    for (int i = 0; i < 12; i++)
        xs[i] = i;
    int64_t xshape[3] = {2, 2, 3}, wshape[2] = {2, 3}, n = 2;
    nt_tensor *x = vec(3, xshape, xs), *w = vec(2, wshape, ws), *b = vec(1, &n, bs), *y = NULL;
    EXPECT_OK(nt_linear(x, w, b, &y));
    EXPECT(y && nt_tensor_ndim(y) == 3 && nt_tensor_sizes(y)[2] == 2);
    for (int r = 0; y && r < 4; r++) {
        EXPECT(at(y, 2 * r) == xs[3 * r] + 10);
        EXPECT(at(y, 2 * r + 1) == xs[3 * r + 1] + xs[3 * r + 2] + 20);
    }
    nt_tensor *t = NULL;
    EXPECT_FAIL(nt_linear(w, x, NULL, &t), NT_ERR_RUNTIME,
                "t() expects a tensor with <= 2 dimensions, but self is 3D");
    EXPECT_ERR(nt_linear(x, NULL, NULL, &t), NT_ERR_TYPE, "weight");
    nt_tensor_release(x);
    nt_tensor_release(w);
    nt_tensor_release(b);
    nt_tensor_release(y);
}

/* float32 gelu, silu and their backward ops by every path this CPU can take (AVX-512, AVX2,
 * SLEEF's), forced through the probed features: each within a few float32 ulps (absolutely,
 * near gelu's zeros) of the float64 computation. */
static void test_float32_paths_agree(void) {
    enum { N = 203 }; /* not a multiple of 8 or 16: the tails too */
    float xs[N], ones[N];
    for (int i = 0; i < N; i++)
        xs[i] = -9.0f + 18.0f * (float)i / (N - 1), ones[i] = 1.0f;
    int64_t n = N;
    nt_tensor *x = NULL, *g = NULL;
    EXPECT_OK(nt_from_buffer(xs, NT_FLOAT32, 1, &n, NULL, &x));
    EXPECT_OK(nt_from_buffer(ones, NT_FLOAT32, 1, &n, NULL, &g));
    const nt_cpu_features saved = *nt_cpu();
    for (int path = 0; path < 3; path++) {
        nt_cpu_found.avx512 = saved.avx512 && path == 0;
        nt_cpu_found.avx2_fma = saved.avx2_fma && path <= 1;
        nt_tensor *r[4] = {NULL, NULL, NULL, NULL};
        EXPECT_OK(nt_gelu(x, NULL, &r[0]));
        EXPECT_OK(nt_silu(x, &r[1]));
        EXPECT_OK(nt_gelu_backward(g, x, NULL, &r[2]));
        EXPECT_OK(nt_silu_backward(g, x, &r[3]));
        for (int i = 0; r[0] && r[1] && r[2] && r[3] && i < N; i++) {
            const double v = xs[i], phi = 0.5 * erfc(-v / sqrt(2.0));
            const double pdf = exp(-0.5 * v * v) / sqrt(2 * 3.14159265358979323846),
                         s = 1 / (1 + exp(-v));
            const double want[4] = {v * phi, v * s, phi + v * pdf, s * (1 + v * (1 - s))};
            for (int k = 0; k < 4; k++) {
                const double got = ((const float *)nt_tensor_data(r[k]))[i];
                const double tol = 1e-6 * (fabs(want[k]) + fabs(v) + 1e-30) * (1 + v * v / 8);
                EXPECT(fabs(got - want[k]) <= tol);
                if (fabs(got - want[k]) > tol)
                    fprintf(stderr, "  path %d fn %d x %g: %.9g vs %.9g\n", path, k, v, got,
                            want[k]);
            }
        }
        for (int k = 0; k < 4; k++)
            nt_tensor_release(r[k]);
    }
    nt_cpu_found = saved;
    nt_tensor_release(x);
    nt_tensor_release(g);
}

int main(void) {
    NT_RUN(test_activations_and_their_slopes);
    NT_RUN(test_layer_norm_rows);
    NT_RUN(test_embedding_round_trip);
    NT_RUN(test_nll_loss);
    NT_RUN(test_linear);
    NT_RUN(test_float32_paths_agree);
    return nt_test_summary();
}
