/*
 * test_reduce.c — reductions, order statistics, scans and softmax from C: values checked
 * against PyTorch 1.13's (computed with torch and written here), names removed/kept,
 * dtypes, errors and their texts, the three schedules of the engine (full, inner, outer)
 * against a double-precision reference on strided inputs, and results that do not depend
 * on the thread count.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "nt_test.h"

static nt_tensor *make_f32(int ndim, const int64_t *sizes, const float *v, const nt_name *names) {
    nt_tensor *t = NULL;
    if (nt_from_buffer(v, NT_FLOAT32, ndim, sizes, names, &t) != NT_OK) return NULL;
    return t;
}

static double at(const nt_tensor *t, int64_t i) { /* element i of a contiguous tensor */
    double v = 0;
    int64_t idx[NT_MAX_DIMS];
    int64_t rest = i;
    for (int d = nt_tensor_ndim(t) - 1; d >= 0; d--) {
        idx[d] = rest % nt_tensor_sizes(t)[d];
        rest /= nt_tensor_sizes(t)[d];
    }
    nt_get_double(t, idx, &v);
    return v;
}

/* [[1, 2, 3], [4, 5, 6]] named (N, C). */
static nt_tensor *small(void) {
    static const float v[] = {1, 2, 3, 4, 5, 6};
    int64_t s[] = {2, 3};
    nt_name names[] = {N("N"), N("C")};
    return make_f32(2, s, v, names);
}

static void test_sum_dims_and_names(void) {
    nt_tensor *x = small(), *r = NULL;
    int64_t c = 1;
    EXPECT_OK(nt_sum(x, 1, &c, false, -1, &r));
    EXPECT(nt_tensor_ndim(r) == 1 && nt_tensor_sizes(r)[0] == 2);
    EXPECT(nt_tensor_names(r) && nt_tensor_names(r)[0] == N("N"));
    EXPECT(at(r, 0) == 6 && at(r, 1) == 15);
    nt_tensor_release(r);

    nt_name cn = N("C");
    int64_t dim;
    EXPECT_OK(nt_dims_from_names(x, 1, &cn, &dim));
    EXPECT(dim == 1);
    EXPECT_OK(nt_sum(x, 1, &dim, true, -1, &r)); /* keepdim keeps the names */
    EXPECT(nt_tensor_ndim(r) == 2 && nt_tensor_sizes(r)[1] == 1);
    EXPECT(nt_tensor_names(r)[0] == N("N") && nt_tensor_names(r)[1] == N("C"));
    nt_tensor_release(r);

    EXPECT_OK(nt_sum(x, 0, NULL, false, -1, &r)); /* full: 0-dim, unnamed */
    EXPECT(nt_tensor_ndim(r) == 0 && !nt_tensor_names(r) && at(r, 0) == 21);
    nt_tensor_release(r);

    int64_t both[] = {0, -1};
    EXPECT_OK(nt_sum(x, 2, both, false, NT_FLOAT64, &r));
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT64 && at(r, 0) == 21);
    nt_tensor_release(r);

    int64_t dup[] = {0, -2};
    EXPECT_ERR(nt_sum(x, 2, dup, false, -1, &r), NT_ERR_RUNTIME,
               "dim 0 appears multiple times in the list of dims");
    int64_t bad = 5;
    EXPECT_ERR(nt_sum(x, 1, &bad, false, -1, &r), NT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    nt_name w = N("W");
    EXPECT_ERR(nt_dims_from_names(x, 1, &w, &dim), NT_ERR_RUNTIME,
               "Name 'W' not found in Tensor['N', 'C'].");
    nt_tensor_release(x);
}

static void test_dtypes(void) {
    int32_t v[] = {1, -2, 3, 4};
    int64_t s[] = {4};
    nt_tensor *x = NULL, *r = NULL;
    EXPECT_OK(nt_from_buffer(v, NT_INT32, 1, s, NULL, &x));
    EXPECT_OK(nt_sum(x, 0, NULL, false, -1, &r));
    EXPECT(nt_tensor_dtype(r) == NT_INT64 && at(r, 0) == 6);
    nt_tensor_release(r);
    EXPECT_OK(nt_prod(x, 0, NULL, false, -1, &r));
    EXPECT(nt_tensor_dtype(r) == NT_INT64 && at(r, 0) == -24);
    nt_tensor_release(r);
    EXPECT_ERR(nt_mean(x, 0, NULL, false, -1, &r), NT_ERR_RUNTIME,
               "mean(): could not infer output dtype. Input dtype must be either a floating "
               "point or complex dtype. Got: Int");
    EXPECT_OK(nt_mean(x, 0, NULL, false, NT_FLOAT64, &r));
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT64 && at(r, 0) == 1.5);
    nt_tensor_release(r);
    EXPECT_ERR(nt_var(x, 0, NULL, 1, false, &r), NT_ERR_RUNTIME,
               "std and var only support floating point and complex dtypes");
    EXPECT_OK(nt_logsumexp(x, 0, NULL, false, &r)); /* ints: the default float dtype */
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT32);
    EXPECT_NEAR(at(r, 0), 4.3508, 1e-4); /* torch.tensor([1,-2,3,4]).logsumexp(0) */
    nt_tensor_release(r);
    EXPECT_OK(nt_all(x, 0, NULL, false, &r));
    EXPECT(nt_tensor_dtype(r) == NT_BOOL && at(r, 0) == 1);
    nt_tensor_release(r);
    EXPECT_OK(nt_argmax(x, NULL, false, &r));
    EXPECT(nt_tensor_dtype(r) == NT_INT64 && at(r, 0) == 3);
    nt_tensor_release(r);
    nt_tensor_release(x);

    uint8_t u[] = {1, 0, 3};
    int64_t s3[] = {3};
    EXPECT_OK(nt_from_buffer(u, NT_UINT8, 1, s3, NULL, &x));
    EXPECT_OK(nt_any(x, 0, NULL, false, &r)); /* uint8 in, uint8 out (PyTorch 1.13) */
    EXPECT(nt_tensor_dtype(r) == NT_UINT8 && at(r, 0) == 1);
    nt_tensor_release(r);
    nt_tensor_release(x);

    nt_tensor *h = NULL;
    EXPECT_OK(nt_ones(1, s3, NT_FLOAT16, NULL, &h));
    EXPECT_ERR(nt_prod(h, 0, NULL, false, -1, &r), NT_ERR_RUNTIME,
               "\"prod_cpu\" not implemented for 'Half'");
    EXPECT_OK(nt_sum(h, 0, NULL, false, -1, &r));
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT16 && at(r, 0) == 3);
    nt_tensor_release(r);
    nt_tensor_release(h);
}

static void test_var_std(void) {
    static const float v[] = {1, 2, 3, 4};
    int64_t s[] = {4};
    nt_tensor *x = make_f32(1, s, v, NULL), *r = NULL, *m = NULL;
    EXPECT_OK(nt_var(x, 0, NULL, 1, false, &r));
    EXPECT_NEAR(at(r, 0), 5.0 / 3.0, 1e-6);
    nt_tensor_release(r);
    EXPECT_OK(nt_std(x, 0, NULL, 0, false, &r));
    EXPECT_NEAR(at(r, 0), sqrt(1.25), 1e-6);
    nt_tensor_release(r);
    EXPECT_OK(nt_var_mean(x, 0, NULL, 1, false, &r, &m));
    EXPECT_NEAR(at(r, 0), 5.0 / 3.0, 1e-6);
    EXPECT(at(m, 0) == 2.5);
    nt_tensor_release(r);
    nt_tensor_release(m);
    int64_t one[] = {1};
    nt_tensor *single = make_f32(1, one, v, NULL);
    EXPECT_OK(nt_std(single, 0, NULL, 1, false, &r)); /* one element, unbiased: NaN */
    EXPECT(isnan(at(r, 0)));
    nt_tensor_release(r);
    nt_tensor_release(single);
    nt_tensor_release(x);
}

static void test_max_min_arg(void) {
    static const float v[] = {1, NAN, 3, NAN, 5, 7, 7, 2};
    int64_t s[] = {2, 4};
    nt_tensor *x = make_f32(2, s, v, NULL), *val = NULL, *idx = NULL, *r = NULL;
    EXPECT_OK(nt_max_dim(x, 1, false, &val, &idx));
    EXPECT(isnan(at(val, 0)) && at(idx, 0) == 1); /* the first NaN */
    EXPECT(at(val, 1) == 7 && at(idx, 1) == 1);   /* the first maximum */
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_OK(nt_min_dim(x, 0, true, &val, &idx)); /* the outer schedule */
    EXPECT(nt_tensor_ndim(val) == 2 && at(val, 0) == 1 && at(idx, 0) == 0);
    EXPECT(isnan(at(val, 1)) && at(idx, 1) == 0);
    EXPECT(at(val, 2) == 3 && at(idx, 2) == 0 && isnan(at(val, 3)) && at(idx, 3) == 0);
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_OK(nt_max_all(x, &r));
    EXPECT(isnan(at(r, 0)));
    nt_tensor_release(r);
    EXPECT_OK(nt_argmax(x, NULL, false, &r));
    EXPECT(at(r, 0) == 1);
    nt_tensor_release(r);
    int64_t d1 = 1;
    EXPECT_OK(nt_argmin(x, &d1, false, &r));
    EXPECT(at(r, 0) == 1 && at(r, 1) == 3);
    nt_tensor_release(r);
    nt_tensor_release(x);

    int64_t es[] = {0, 3};
    nt_tensor *e = NULL;
    EXPECT_OK(nt_zeros(2, es, NT_FLOAT32, NULL, &e));
    EXPECT_ERR(nt_max_all(e, &r), NT_ERR_RUNTIME,
               "max(): Expected reduction dim to be specified for input.numel() == 0. Specify "
               "the reduction dim with the 'dim' argument.");
    EXPECT_ERR(nt_max_dim(e, 0, false, &val, &idx), NT_ERR_INDEX,
               "max(): Expected reduction dim 0 to have non-zero size.");
    EXPECT_OK(nt_max_dim(e, 1, false, &val, &idx));
    EXPECT(nt_tensor_numel(val) == 0);
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_OK(nt_sum(e, 1, (int64_t[]){0}, false, -1, &r)); /* sum of nothing is 0 */
    EXPECT(nt_tensor_numel(r) == 3 && at(r, 0) == 0 && at(r, 2) == 0);
    nt_tensor_release(r);
    EXPECT_OK(nt_mean(e, 1, (int64_t[]){0}, false, -1, &r)); /* 0/0 */
    EXPECT(isnan(at(r, 1)));
    nt_tensor_release(r);
    nt_tensor_release(e);
}

static void test_order_statistics(void) {
    static const float v[] = {4, 1, 2, 3, 3, 1, 2, 3, 1, 2, 2, 1};
    int64_t s[] = {3, 4};
    nt_name names[] = {N("N"), N("C")};
    nt_tensor *x = make_f32(2, s, v, names), *val = NULL, *idx = NULL;
    EXPECT_OK(nt_median_dim(x, 1, false, &val, &idx));
    /* torch: values [2, 2, 1], indices [2, 2, 3]... lower median of each row */
    EXPECT(at(val, 0) == 2 && at(idx, 0) == 2);
    EXPECT(at(val, 1) == 2 && at(idx, 1) == 2);
    EXPECT(at(val, 2) == 1);
    EXPECT(nt_tensor_names(val)[0] == N("N"));
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_OK(nt_mode(x, 1, false, &val, &idx));
    /* row 1 [3, 1, 2, 3] -> 3 at 3; row 2 [1, 2, 2, 1]: tie, the smaller value, last index */
    EXPECT(at(val, 1) == 3 && at(idx, 1) == 3);
    EXPECT(at(val, 2) == 1 && at(idx, 2) == 3);
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_OK(nt_kthvalue(x, 4, 1, true, &val, &idx));
    EXPECT(at(val, 0) == 4 && at(idx, 0) == 0 && nt_tensor_ndim(val) == 2);
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_ERR(nt_kthvalue(x, 5, 1, false, &val, &idx), NT_ERR_RUNTIME,
               "kthvalue(): selected number k out of range for dimension 1");
    EXPECT_OK(nt_topk(x, 2, 1, true, true, &val, &idx));
    EXPECT(nt_tensor_sizes(val)[1] == 2 && nt_tensor_names(val)[1] == N("C"));
    EXPECT(at(val, 0) == 4 && at(val, 1) == 3 && at(idx, 0) == 0 && at(idx, 1) == 3);
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_OK(nt_topk(x, 1, 0, false, true, &val, &idx)); /* smallest along N */
    EXPECT(at(val, 0) == 1 && at(idx, 0) == 2 && at(val, 1) == 1 && at(idx, 1) == 0);
    nt_tensor_release(val);
    nt_tensor_release(idx);
    EXPECT_ERR(nt_topk(x, 5, 1, true, true, &val, &idx), NT_ERR_RUNTIME,
               "selected index k out of range");
    nt_tensor *m = NULL;
    EXPECT_OK(nt_median_all(x, &m));
    EXPECT(nt_tensor_ndim(m) == 0 && at(m, 0) == 2);
    nt_tensor_release(m);
    nt_tensor_release(x);
}

static void test_scans(void) {
    int64_t v[] = {1, 2, 3, 4, 5, 6};
    int64_t s[] = {2, 3};
    nt_name names[] = {N("N"), N("C")};
    nt_tensor *x = NULL, *r = NULL, *xt = NULL;
    EXPECT_OK(nt_from_buffer(v, NT_INT64, 2, s, names, &x));
    EXPECT_OK(nt_cumsum(x, 1, -1, &r));
    EXPECT(at(r, 2) == 6 && at(r, 5) == 15 && nt_tensor_names(r)[1] == N("C"));
    nt_tensor_release(r);
    EXPECT_OK(nt_cumprod(x, 0, NT_FLOAT64, &r)); /* the lanes schedule */
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT64 && at(r, 3) == 4 && at(r, 5) == 18);
    nt_tensor_release(r);
    EXPECT_OK(nt_transpose(x, 0, 1, &xt));
    EXPECT_OK(nt_cumsum(xt, 1, -1, &r)); /* strided input: [[1, 5], [2, 7], [3, 9]] */
    EXPECT(at(r, 1) == 5 && at(r, 3) == 7 && at(r, 5) == 9);
    nt_tensor_release(r);
    nt_tensor *h = NULL;
    EXPECT_OK(nt_ones(2, s, NT_FLOAT16, NULL, &h));
    EXPECT_ERR(nt_cumsum(h, 0, -1, &r), NT_ERR_RUNTIME,
               "\"cumsum_out_cpu\" not implemented for 'Half'");
    nt_tensor_release(h);
    nt_tensor_release(xt);
    nt_tensor_release(x);
}

static void test_softmax(void) {
    static const float v[] = {1, 2, 3, 0, 0, 0};
    int64_t s[] = {2, 3};
    nt_name names[] = {N("N"), N("C")};
    nt_tensor *x = make_f32(2, s, v, names), *r = NULL;
    EXPECT_OK(nt_softmax(x, 1, -1, &r));
    /* torch.tensor([1., 2., 3.]).softmax(0) = [0.0900, 0.2447, 0.6652] */
    EXPECT_NEAR(at(r, 0), 0.09003057, 1e-7);
    EXPECT_NEAR(at(r, 2), 0.66524096, 1e-7);
    EXPECT_NEAR(at(r, 4), 1.0 / 3.0, 1e-7);
    EXPECT(nt_tensor_names(r)[0] == N("N") && nt_tensor_names(r)[1] == N("C"));
    nt_tensor_release(r);
    EXPECT_OK(nt_log_softmax(x, 0, NT_FLOAT64, &r)); /* a strided dim */
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT64);
    EXPECT_NEAR(at(r, 0), 1 - log(exp(1.0) + 1), 1e-12);
    EXPECT_NEAR(at(r, 3), -log(exp(1.0) + 1), 1e-12);
    nt_tensor_release(r);
    int64_t iv[] = {1, 2};
    int64_t s2[] = {2};
    nt_tensor *xi = NULL;
    EXPECT_OK(nt_from_buffer(iv, NT_INT64, 1, s2, NULL, &xi));
    EXPECT_ERR(nt_softmax(xi, 0, -1, &r), NT_ERR_RUNTIME,
               "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
    nt_tensor_release(xi);
    EXPECT_ERR(nt_log_softmax(x, 0, NT_INT32, &r), NT_ERR_RUNTIME,
               "\"softmax_kernel_impl\" not implemented for 'Int'");
    nt_tensor_release(x);
}

/* Every schedule against a double reference, on contiguous and transposed inputs of
 * several sizes; and the same bits with one thread and with two. */
static void test_schedules_against_reference(void) {
    int64_t shapes[][2] = {{3, 5}, {37, 1000}, {1000, 37}, {2, 200000}, {200000, 2}, {1, 1}};
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
        nt_tensor *x = NULL, *xt = NULL;
        nt_manual_seed(7 + c);
        EXPECT_OK(nt_randn(2, shapes[c], NT_FLOAT32, NULL, &x));
        EXPECT_OK(nt_transpose(x, 0, 1, &xt));
        const float *p = nt_tensor_data(x);
        int64_t rows = shapes[c][0], cols = shapes[c][1];
        for (int which = 0; which < 2; which++) {
            nt_tensor *in = which ? xt : x;
            for (int64_t dim = 0; dim < 2; dim++) {
                nt_tensor *r = NULL;
                EXPECT_OK(nt_sum(in, 1, &dim, false, -1, &r));
                /* reduced over the original dim `od` of x */
                int od = which ? (int)(1 - dim) : (int)dim;
                int64_t nout = od == 0 ? cols : rows, nred = od == 0 ? rows : cols;
                double worst = 0;
                for (int64_t o = 0; o < nout; o++) {
                    double ref = 0, mag = 0;
                    for (int64_t k = 0; k < nred; k++) {
                        float e = od == 0 ? p[k * cols + o] : p[o * cols + k];
                        ref += e;
                        mag += fabs(e);
                    }
                    double err = fabs(at(r, o) - ref) / (mag + 1e-30);
                    if (err > worst) worst = err;
                }
                EXPECT(worst < 1e-5);
                nt_tensor_release(r);
            }
        }
        nt_tensor *full1 = NULL, *full2 = NULL, *v1 = NULL, *v2 = NULL;
        int saved = nt_get_num_threads();
        nt_set_num_threads(1);
        EXPECT_OK(nt_sum(xt, 0, NULL, false, -1, &full1));
        EXPECT_OK(nt_var(xt, 0, NULL, 1, false, &v1));
        nt_set_num_threads(2);
        EXPECT_OK(nt_sum(xt, 0, NULL, false, -1, &full2));
        EXPECT_OK(nt_var(xt, 0, NULL, 1, false, &v2));
        nt_set_num_threads(saved);
        EXPECT(at(full1, 0) == at(full2, 0));
        /* the outer schedule (chunks of rows, tiles of lanes) and the inner one */
        for (int64_t dim = 0; dim < 2; dim++) {
            nt_tensor *o1 = NULL, *o2 = NULL;
            nt_set_num_threads(1);
            EXPECT_OK(nt_sum(x, 1, &dim, false, -1, &o1));
            nt_set_num_threads(2);
            EXPECT_OK(nt_sum(x, 1, &dim, false, -1, &o2));
            nt_set_num_threads(saved);
            bool same = true;
            for (int64_t i = 0; i < nt_tensor_numel(o1); i++)
                same = same && at(o1, i) == at(o2, i);
            EXPECT(same);
            nt_tensor_release(o1);
            nt_tensor_release(o2);
        }
        EXPECT(at(v1, 0) == at(v2, 0) || (isnan(at(v1, 0)) && isnan(at(v2, 0))));
        nt_tensor_release(full1);
        nt_tensor_release(full2);
        nt_tensor_release(v1);
        nt_tensor_release(v2);
        nt_tensor_release(xt);
        nt_tensor_release(x);
    }
}

/* A long float32 sum stays accurate (pairwise), where naive accumulation would not. */
static void test_sum_accuracy(void) {
    int64_t n = 1 << 24;
    nt_tensor *x = NULL, *r = NULL;
    EXPECT_OK(nt_full(1, &n, nt_scalar_float(0.1), NT_FLOAT32, NULL, &x));
    EXPECT_OK(nt_sum(x, 0, NULL, false, -1, &r));
    double want = (double)0.1f * (double)n;
    EXPECT(fabs(at(r, 0) - want) / want < 1e-6);
    nt_tensor_release(r);
    EXPECT_OK(nt_mean(x, 0, NULL, false, -1, &r));
    EXPECT(fabs(at(r, 0) - 0.1) < 1e-6);
    nt_tensor_release(r);
    nt_tensor_release(x);
}

static void test_out_names(void) {
    nt_tensor *x = small(), *o = NULL, *named = NULL;
    int64_t c = 1, two = 2;
    EXPECT_OK(nt_empty(1, &two, NT_FLOAT64, NULL, &o));
    EXPECT_OK(nt_reduce_out(NT_OP_SUM, x, 1, &c, false, -1, 0, o)); /* takes the names */
    EXPECT(nt_tensor_names(o) && nt_tensor_names(o)[0] == N("N") && at(o, 1) == 15);
    nt_name cn = N("C");
    EXPECT_OK(nt_empty(1, &two, NT_FLOAT32, &cn, &named));
    EXPECT_ERR(nt_reduce_out(NT_OP_SUM, x, 1, &c, false, -1, 0, named), NT_ERR_RUNTIME,
               "Name mismatch: specified out tensor with names ['C'] are not the same as the "
               "computed output names ['N']. Please rename the out tensor's dims with "
               "`Tensor.rename`.");
    nt_tensor *vals = NULL, *idx = NULL;
    EXPECT_OK(nt_empty(1, &two, NT_FLOAT32, NULL, &vals));
    EXPECT_OK(nt_empty(1, &two, NT_INT64, NULL, &idx));
    EXPECT_OK(nt_max_dim_out(x, 1, false, vals, idx));
    EXPECT(at(vals, 1) == 6 && at(idx, 1) == 2 && nt_tensor_names(idx)[0] == N("N"));
    nt_tensor_release(vals);
    nt_tensor_release(idx);
    nt_tensor_release(named);
    nt_tensor_release(o);
    nt_tensor_release(x);
}

/* Found by fuzzing (tests/fuzz/fuzz_ops.c): the reduction plan and the order statistics
 * turned the strides of an empty input into byte strides, which overflow for the strides
 * PyTorch accepts on empty views (and its sizes multiplied past int64 before reaching the
 * 0). Such inputs reduce to empty results, or to identities for the kept dims. */
static void test_empty_inputs_with_huge_strides(void) {
    static const float v[4] = {0};
    int64_t four = 4, big = (int64_t)1 << 62;
    nt_tensor *base = make_f32(1, &four, v, NULL), *e = NULL, *w = NULL, *r = NULL, *i = NULL;
    int64_t sizes[2] = {3, 0}, strides[2] = {big, 1};
    EXPECT_OK(nt_as_strided(base, 2, sizes, strides, 0, &e)); /* [3, 0], stride 2^62 */
    int64_t wide[3] = {big, 4, 0}, zeros[3] = {0, 0, 0};
    EXPECT_OK(nt_as_strided(base, 3, wide, zeros, 0, &w)); /* [2^62, 4, 0] */
    int64_t d1 = 1, d01[2] = {0, 1};
    EXPECT_OK(nt_sum(e, 1, &d1, false, -1, &r)); /* [3] zeros */
    EXPECT(r && nt_tensor_numel(r) == 3 && at(r, 2) == 0.0);
    nt_tensor_release(r);
    EXPECT_OK(nt_mean(w, 2, d01, false, -1, &r));
    EXPECT(r && nt_tensor_numel(r) == 0);
    nt_tensor_release(r);
    EXPECT_OK(nt_amax(e, 1, (int64_t[]){0}, false, &r));
    nt_tensor_release(r);
    EXPECT_OK(nt_max_dim(e, 0, true, &r, &i));
    nt_tensor_release(r);
    nt_tensor_release(i);
    EXPECT_OK(nt_topk(e, 0, 1, true, true, &r, &i));
    EXPECT(r && nt_tensor_numel(r) == 0);
    nt_tensor_release(r);
    nt_tensor_release(i);
    EXPECT_OK(nt_kthvalue(w, 1, 1, false, &r, &i));
    nt_tensor_release(r);
    nt_tensor_release(i);
    EXPECT_OK(nt_cumsum(e, 0, -1, &r));
    nt_tensor_release(r);
    EXPECT_OK(nt_softmax(e, 0, -1, &r));
    nt_tensor_release(r);
    nt_tensor_release(w);
    nt_tensor_release(e);
    nt_tensor_release(base);
}

/* Dims by name wherever a dim goes (nt_dim_name), with PyTorch's texts for a bad one. */
static void test_dims_by_name(void) {
    nt_tensor *x = small(), *r = NULL, *i = NULL;
    nt_dim c = nt_dim_name(N("C")), both[] = {nt_dim_name(N("N")), 1};
    EXPECT_OK(nt_sum(x, 1, &c, false, -1, &r));
    EXPECT(at(r, 0) == 6 && at(r, 1) == 15 && nt_tensor_names(r)[0] == N("N"));
    nt_tensor_release(r);
    EXPECT_OK(nt_amax(x, 2, both, false, &r));
    EXPECT(nt_tensor_ndim(r) == 0 && at(r, 0) == 6);
    nt_tensor_release(r);
    EXPECT_OK(nt_max_dim(x, c, false, &r, &i));
    EXPECT(at(r, 1) == 6 && at(i, 1) == 2);
    nt_tensor_release(r);
    nt_tensor_release(i);
    EXPECT_OK(nt_argmin(x, &c, true, &r));
    EXPECT(nt_tensor_ndim(r) == 2 && at(r, 1) == 0);
    nt_tensor_release(r);
    EXPECT_OK(nt_cumsum(x, c, -1, &r));
    EXPECT(at(r, 5) == 15 && nt_tensor_names(r)[1] == N("C"));
    nt_tensor_release(r);
    EXPECT_OK(nt_softmax(x, c, -1, &r));
    nt_tensor_release(r);
    nt_dim bad = nt_dim_name(N("X")), none = nt_dim_name(NT_NAME_NONE);
    EXPECT_ERR(nt_sum(x, 1, &bad, false, -1, &r), NT_ERR_RUNTIME,
               "Name 'X' not found in Tensor['N', 'C'].");
    EXPECT_ERR(nt_cumsum(x, none, -1, &r), NT_ERR_RUNTIME,
               "Please look up dimensions by name, got: name = None.");
    EXPECT_ERR(nt_reduce_out(NT_OP_CUMSUM, x, 0, NULL, false, -1, 0, x), NT_ERR_VALUE,
               "is not a reduction");
    nt_tensor_release(x);
}

/* cummax / cummin / logcumsumexp, values from PyTorch 1.13. */
static void test_new_scans(void) {
    static const float v[] = {1, 0, 3, 3, 2, 5, 5, -1};
    int64_t s[] = {2, 4};
    nt_name names[] = {N("N"), N("C")};
    nt_tensor *x = make_f32(2, s, v, names), *r = NULL, *i = NULL;
    EXPECT_OK(nt_cummax(x, nt_dim_name(N("C")), &r, &i));
    /* torch.cummax: values [[1,1,3,3],[2,5,5,5]], indices [[0,0,2,3],[0,1,2,2]] */
    static const double cv[] = {1, 1, 3, 3, 2, 5, 5, 5}, ci[] = {0, 0, 2, 3, 0, 1, 2, 2};
    for (int k = 0; k < 8; k++)
        EXPECT(at(r, k) == cv[k] && at(i, k) == ci[k]);
    EXPECT(nt_tensor_names(r)[1] == N("C") && nt_tensor_names(i)[0] == N("N"));
    EXPECT(nt_tensor_dtype(i) == NT_INT64);
    nt_tensor_release(r);
    nt_tensor_release(i);
    EXPECT_OK(nt_cummin(x, 0, &r, &i));
    /* torch.cummin(dim=0): values [[1,0,3,3],[1,0,3,-1]], indices [[0,0,0,0],[0,0,0,1]] */
    static const double mv[] = {1, 0, 3, 3, 1, 0, 3, -1}, mi[] = {0, 0, 0, 0, 0, 0, 0, 1};
    for (int k = 0; k < 8; k++)
        EXPECT(at(r, k) == mv[k] && at(i, k) == mi[k]);
    nt_tensor_release(r);
    nt_tensor_release(i);
    EXPECT_OK(nt_logcumsumexp(x, -1, &r));
    /* torch.logcumsumexp(dim=-1), row 0: [1, 1.3132616, 3.1698461, 3.7816718] */
    static const double lv[] = {1, 1.3132616, 3.1698461, 3.7816718};
    for (int k = 0; k < 4; k++)
        EXPECT(fabs(at(r, k) - lv[k]) < 1e-6);
    EXPECT(nt_tensor_names(r)[1] == N("C"));
    nt_tensor_release(r);
    nt_tensor *h = NULL, *l = NULL;
    EXPECT_OK(nt_to_dtype(x, NT_FLOAT16, &h));
    EXPECT_ERR(nt_cummax(h, 0, &r, &i), NT_ERR_RUNTIME,
               "\"cummax_cpu\" not implemented for 'Half'");
    EXPECT_OK(nt_to_dtype(x, NT_INT64, &l));
    EXPECT_ERR(nt_logcumsumexp(l, 0, &r), NT_ERR_RUNTIME,
               "\"logcumsumexp_out_cpu\" not implemented for 'Long'");
    nt_tensor_release(h);
    nt_tensor_release(l);
    nt_tensor_release(x);
}

int main(void) {
    NT_RUN(test_sum_dims_and_names);
    NT_RUN(test_dtypes);
    NT_RUN(test_var_std);
    NT_RUN(test_max_min_arg);
    NT_RUN(test_order_statistics);
    NT_RUN(test_scans);
    NT_RUN(test_softmax);
    NT_RUN(test_schedules_against_reference);
    NT_RUN(test_sum_accuracy);
    NT_RUN(test_out_names);
    NT_RUN(test_empty_inputs_with_huge_strides);
    NT_RUN(test_dims_by_name);
    NT_RUN(test_new_scans);
    return nt_test_summary();
}
