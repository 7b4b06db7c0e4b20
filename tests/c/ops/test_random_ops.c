/*
 * test_random_ops.c — the distributions of random_ops.c and dropout.c from C: moments and
 * support, reproducibility and independence from the thread count, strided targets (values
 * by row-major position, gaps untouched), names kept, storage versions bumped, PyTorch's
 * error texts, torch.normal's tensor forms (shape, names, out=) and dropout's identities.
 * Run under ASan/UBSan too: every error path must free what it allocated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/scalar.h"
#include "core/tensor.h"
#include "nt_test.h"

static double at(const nt_tensor *t, int64_t i) { /* contiguous element i */
    return nt_load_double((const char *)nt_tensor_data(t) + i * (int64_t)nt_dtype_size(t->dtype),
                          t->dtype);
}

static nt_tensor *empty1(int64_t n, nt_dtype dtype) {
    nt_tensor *t = NULL;
    EXPECT_OK(nt_empty(1, &n, dtype, NULL, &t));
    return t;
}

static void moments(const nt_tensor *t, double *mean, double *var) {
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < t->numel; i++) {
        double v = at(t, i);
        s += v;
        s2 += v * v;
    }
    *mean = s / (double)t->numel;
    *var = s2 / (double)t->numel - *mean * *mean;
}

#define N 400000

static void test_exponential_and_log_normal_moments(void) {
    const nt_dtype dts[] = {NT_FLOAT16, NT_BFLOAT16, NT_FLOAT32, NT_FLOAT64};
    for (int k = 0; k < 4; k++) {
        nt_tensor *t = empty1(N, dts[k]);
        double m, v;
        nt_manual_seed(1);
        EXPECT_OK(nt_exponential_(t, 2.0));
        moments(t, &m, &v);
        EXPECT_NEAR(m, 0.5, 0.005);
        EXPECT_NEAR(v, 0.25, 0.01);
        bool nonneg = true;
        for (int64_t i = 0; i < t->numel; i++)
            nonneg &= at(t, i) >= 0.0;
        EXPECT(nonneg);
        EXPECT_OK(nt_log_normal_(t, 0.0, 0.5));
        moments(t, &m, &v);
        EXPECT_NEAR(m, exp(0.125), 0.01);
        EXPECT_NEAR(v, (exp(0.25) - 1) * exp(0.25), 0.02);
        nt_tensor_release(t);
    }
}

static void test_geometric_bernoulli_random_integers(void) {
    const nt_dtype dts[] = {NT_UINT8, NT_INT16, NT_INT32, NT_INT64, NT_FLOAT32};
    for (int k = 0; k < 5; k++) {
        nt_tensor *t = empty1(N, dts[k]);
        double m, v;
        EXPECT_OK(nt_geometric_(t, 0.5));
        moments(t, &m, &v);
        EXPECT_NEAR(m, 2.0, 0.02);
        EXPECT_NEAR(v, 2.0, 0.05);
        EXPECT_OK(nt_bernoulli_(t, 0.25));
        moments(t, &m, &v);
        EXPECT_NEAR(m, 0.25, 0.005);
        EXPECT_OK(nt_random_to_(t, 10));
        double lo = 1e9, hi = -1e9;
        moments(t, &m, &v);
        for (int64_t i = 0; i < t->numel; i++) {
            lo = fmin(lo, at(t, i));
            hi = fmax(hi, at(t, i));
        }
        EXPECT(lo == 0.0 && hi == 9.0);
        EXPECT_NEAR(m, 4.5, 0.03);
        nt_tensor_release(t);
    }
    nt_tensor *b = empty1(1000, NT_BOOL);
    EXPECT_OK(nt_random_(b));
    EXPECT_OK(nt_bernoulli_(b, 1.0));
    EXPECT(at(b, 0) == 1.0 && at(b, 999) == 1.0);
    nt_tensor_release(b);
}

static void test_cauchy_median(void) {
    nt_tensor *t = empty1(N, NT_FLOAT64);
    EXPECT_OK(nt_cauchy_(t, 3.0, 0.5));
    int64_t inside = 0;
    for (int64_t i = 0; i < t->numel; i++)
        inside += fabs(at(t, i) - 3.0) < 0.5;
    EXPECT_NEAR((double)inside / N, 0.5, 0.005);
    nt_tensor_release(t);
}

/* Each fill, run twice from the same seed with 1 and 2 threads, gives the same bytes. */
static void test_thread_count_independence(void) {
    int threads = nt_get_num_threads();
    nt_tensor *a = empty1(300001, NT_FLOAT32), *b = empty1(300001, NT_FLOAT32);
    for (int f = 0; f < 6; f++) {
        nt_tensor *out[2] = {a, b};
        for (int r = 0; r < 2; r++) {
            nt_set_num_threads(r + 1);
            nt_manual_seed(42);
            nt_tensor *t = out[r];
            switch (f) {
            case 0:
                EXPECT_OK(nt_exponential_(t, 1.0));
                break;
            case 1:
                EXPECT_OK(nt_cauchy_(t, 0.0, 1.0));
                break;
            case 2:
                EXPECT_OK(nt_log_normal_(t, 1.0, 2.0));
                break;
            case 3:
                EXPECT_OK(nt_geometric_(t, 0.1));
                break;
            case 4:
                EXPECT_OK(nt_bernoulli_(t, 0.7));
                break;
            default:
                EXPECT_OK(nt_random_(t));
                break;
            }
        }
        EXPECT(memcmp(nt_tensor_data(a), nt_tensor_data(b), 300001 * sizeof(float)) == 0);
    }
    nt_set_num_threads(threads);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

/* A transposed target gets, at each row-major position, what a contiguous one gets; the
 * fill bumps the version and keeps the names. */
static void test_strided_target_names_version(void) {
    int64_t sizes[2] = {30, 40};
    nt_name names[2];
    EXPECT_OK(nt_name_intern("N", &names[0]));
    EXPECT_OK(nt_name_intern("C", &names[1]));
    nt_tensor *ref = NULL, *base = NULL, *view = NULL;
    EXPECT_OK(nt_empty(2, sizes, NT_FLOAT64, NULL, &ref));
    int64_t tsizes[2] = {40, 30};
    EXPECT_OK(nt_zeros(2, tsizes, NT_FLOAT64, NULL, &base));
    EXPECT_OK(nt_transpose(base, 0, 1, &view));
    EXPECT_OK(nt_set_names_(view, names));
    nt_manual_seed(9);
    EXPECT_OK(nt_exponential_(ref, 1.5));
    uint64_t version = nt_tensor_version(view);
    nt_manual_seed(9);
    EXPECT_OK(nt_exponential_(view, 1.5));
    EXPECT(nt_tensor_version(view) > version);
    EXPECT(nt_tensor_names(view) && nt_tensor_names(view)[0] == names[0]);
    bool same = true;
    for (int64_t i = 0; i < 30; i++)
        for (int64_t j = 0; j < 40; j++) {
            int64_t idx[2] = {i, j};
            double v;
            EXPECT_OK(nt_get_double(view, idx, &v));
            same &= v == at(ref, i * 40 + j);
        }
    EXPECT(same);
    nt_tensor_release(ref);
    nt_tensor_release(base);
    nt_tensor_release(view);
}

static void test_errors_have_torch_texts(void) {
    nt_tensor *f = empty1(3, NT_FLOAT32), *l = empty1(3, NT_INT64), *h = empty1(3, NT_FLOAT16);
    nt_tensor *i8 = empty1(3, NT_INT8);
    EXPECT_FAIL(nt_cauchy_(l, 0, 1), NT_ERR_RUNTIME, "\"cauchy_cpu\" not implemented for 'Long'");
    EXPECT_FAIL(nt_exponential_(f, -1), NT_ERR_RUNTIME,
                "exponential_ expects lambda >= 0.0, but found lambda=-1");
    EXPECT_FAIL(nt_geometric_(f, 1.5), NT_ERR_RUNTIME,
                "geometric_ expects p to be in (0, 1), but got p=1.5");
    EXPECT_FAIL(nt_log_normal_(f, 1, 0), NT_ERR_RUNTIME,
                "log_normal_ expects std > 0.0, but found std=0");
    EXPECT_FAIL(nt_bernoulli_(f, -0.5), NT_ERR_RUNTIME,
                "bernoulli_ expects p to be in [0, 1], but got p=-0.5");
    EXPECT_FAIL(nt_bernoulli_(h, 0.5), NT_ERR_RUNTIME,
                "\"bernoulli_scalar_cpu_\" not implemented for 'Half'");
    EXPECT_FAIL(nt_bernoulli_tensor_(f, l), NT_ERR_RUNTIME,
                "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'");
    EXPECT_FAIL(nt_random_to_(i8, 200), NT_ERR_RUNTIME, "to - 1 is out of bounds for signed char");
    int64_t to = 5;
    EXPECT_FAIL(nt_random_from_to_(f, 10, &to), NT_ERR_RUNTIME,
                "random_ expects 'from' to be less than 'to', but got from=10 >= to=5");
    EXPECT_FAIL(nt_random_from_to_(h, INT64_MIN, NULL), NT_ERR_RUNTIME,
                "\"random_full_64_bits_range_kernel_cpu\" not implemented for 'Half'");
    nt_tensor *bad = NULL;
    EXPECT(nt_tensor_alloc(NT_FLOAT32, 1, (int64_t[]){3}, NULL, &bad) == NT_OK);
    float vals[3] = {0.5f, 1.5f, 0.0f};
    memcpy(nt_tensor_data(bad), vals, sizeof vals);
    nt_tensor *r = NULL;
    EXPECT_ERR(nt_bernoulli(bad, &r), NT_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1");
    EXPECT(r == NULL);
    EXPECT_OK(nt_normal_std_tensor(0.0, bad, &r)); /* std 0.5, 1.5, 0: fine */
    nt_tensor_release(r);
    r = NULL;
    vals[1] = -1.0f;
    memcpy(nt_tensor_data(bad), vals, sizeof vals);
    EXPECT_FAIL(nt_normal_std_tensor(0.0, bad, &r), NT_ERR_RUNTIME,
                "normal expects all elements of std >= 0.0");
    EXPECT_FAIL(nt_normal_mean_tensor(l, 1.0, &r), NT_ERR_RUNTIME,
                "\"normal_kernel_cpu\" not implemented for 'Long'");
    EXPECT_FAIL(nt_dropout(f, 1.5, true, &r), NT_ERR_VALUE,
                "dropout probability has to be between 0 and 1, but got 1.5");
    EXPECT_FAIL(nt_dropout(l, 0.5, true, &r), NT_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Long");
    EXPECT_FAIL(nt_dropout_(h, 0.5, true), NT_ERR_RUNTIME,
                "\"bernoulli_scalar_cpu_\" not implemented for 'Half'");
    nt_tensor *e = NULL, *x = empty1(3, NT_FLOAT32);
    EXPECT_OK(nt_expand(x, 2, (int64_t[]){2, 3}, &e));
    EXPECT_ERR(nt_bernoulli_(e, 0.5), NT_ERR_RUNTIME, "more than one element of the written-to");
    EXPECT_ERR(nt_dropout_(e, 0.5, true), NT_ERR_RUNTIME,
               "more than one element of the written-to");
    nt_tensor *tensors[] = {f, l, h, i8, bad, e, x};
    for (size_t k = 0; k < sizeof tensors / sizeof *tensors; k++)
        nt_tensor_release(tensors[k]);
}

static void test_normal_tensor_forms(void) {
    nt_name n, c;
    EXPECT_OK(nt_name_intern("N", &n));
    EXPECT_OK(nt_name_intern("C", &c));
    nt_tensor *mean = NULL, *std = NULL, *r = NULL;
    int64_t ms[2] = {N / 4, 1}, ss[1] = {4};
    EXPECT_OK(nt_full(2, ms, nt_scalar_float(5.0), NT_FLOAT64, (nt_name[]){n, 0}, &mean));
    EXPECT_OK(nt_full(1, ss, nt_scalar_float(2.0), NT_FLOAT32, (nt_name[]){c}, &std));
    EXPECT_OK(nt_normal_tensors(mean, std, &r));
    EXPECT(r->ndim == 2 && r->sizes[0] == N / 4 && r->sizes[1] == 4 && r->dtype == NT_FLOAT64);
    EXPECT(r->names && r->names[0] == n && r->names[1] == c);
    double m, v;
    moments(r, &m, &v);
    EXPECT_NEAR(m, 5.0, 0.02);
    EXPECT_NEAR(v, 4.0, 0.08);
    nt_tensor *out = NULL;
    EXPECT_OK(nt_empty(2, (int64_t[]){N / 4, 4}, NT_FLOAT32, NULL, &out));
    EXPECT_OK(nt_normal_out(out, mean, 0.0, NULL, 0.5));
    EXPECT(out->names && out->names[0] == n && out->names[1] == 0);
    moments(out, &m, &v);
    EXPECT_NEAR(m, 5.0, 0.01);
    EXPECT_NEAR(v, 0.25, 0.01);
    nt_tensor *bad_out = NULL;
    EXPECT_OK(nt_empty(1, (int64_t[]){3}, NT_FLOAT32, NULL, &bad_out));
    /* an out= of another shape is resized, with PyTorch's warning (it had elements) */
    (void)nt_take_warning();
    EXPECT_OK(nt_normal_out(bad_out, mean, 0.0, std, 0.0));
    EXPECT(bad_out->ndim == r->ndim && bad_out->numel == r->numel);
    const char *warning = nt_take_warning();
    EXPECT(warning && strstr(warning, "An output with one or more elements was resized"));
    nt_tensor_release(bad_out);
    nt_tensor_release(out);
    nt_tensor_release(r);
    nt_tensor_release(mean);
    nt_tensor_release(std);
}

static void test_dropout_identities_and_scale(void) {
    nt_tensor *x = NULL, *y = NULL;
    int64_t n = 100000;
    EXPECT_OK(nt_ones(1, &n, NT_FLOAT32, NULL, &x));
    EXPECT_OK(nt_dropout(x, 0.5, false, &y));
    EXPECT(y == x);
    nt_tensor_release(y);
    EXPECT_OK(nt_dropout(x, 0.0, true, &y));
    EXPECT(y == x);
    nt_tensor_release(y);
    EXPECT_OK(nt_dropout(x, 0.2, true, &y));
    int64_t kept = 0;
    bool values_ok = true;
    for (int64_t i = 0; i < n; i++) {
        double v = at(y, i);
        kept += v != 0.0;
        values_ok &= v == 0.0 || v == (double)(1.0f / 0.8f);
    }
    EXPECT(values_ok);
    EXPECT_NEAR((double)kept / (double)n, 0.8, 0.01);
    nt_tensor_release(y);
    EXPECT_OK(nt_dropout(x, 1.0, true, &y));
    EXPECT(at(y, 0) == 0.0 && at(y, n - 1) == 0.0 && y != x);
    nt_tensor_release(y);
    uint64_t version = nt_tensor_version(x);
    EXPECT_OK(nt_dropout_(x, 0.5, true));
    EXPECT(nt_tensor_version(x) > version);
    nt_tensor_release(x);
}

int main(void) {
    NT_RUN(test_exponential_and_log_normal_moments);
    NT_RUN(test_geometric_bernoulli_random_integers);
    NT_RUN(test_cauchy_median);
    NT_RUN(test_thread_count_independence);
    NT_RUN(test_strided_target_names_version);
    NT_RUN(test_errors_have_torch_texts);
    NT_RUN(test_normal_tensor_forms);
    NT_RUN(test_dropout_identities_and_scale);
    return nt_test_summary();
}
