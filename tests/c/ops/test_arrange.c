/*
 * test_arrange.c — the shape and factory family from C (ops/arrange.c, ops/grid.c,
 * ops/norm.c): flip, roll, repeat, tile, triu / tril (in place), outer, diag, diag_embed,
 * one_hot, T / mT, eye, linspace, logspace, randint, randperm and norm through their public
 * functions: values (PyTorch 1.13's), shapes, names and error texts.
 */
#include <math.h>
#include <stdint.h>

#include "nt_test.h"
#include "ntensor.h"

/* 0, 1, ..., n-1 as float32 of the given shape */
static nt_tensor *iota(int ndim, const int64_t *sizes) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= sizes[d];
    nt_tensor *a = NULL, *r = NULL;
    EXPECT_OK(nt_arange(nt_scalar_int(0), nt_scalar_int(n), nt_scalar_int(1), NT_FLOAT32, &a));
    EXPECT_OK(nt_reshape(a, ndim, sizes, &r));
    nt_tensor_release(a);
    return r;
}

static void expect_values(nt_tensor *t, int n, const double *want) {
    nt_tensor *c = NULL, *d = NULL;
    EXPECT(nt_tensor_numel(t) == n);
    EXPECT_OK(nt_to_dtype(t, NT_FLOAT64, &d));
    EXPECT_OK(nt_contiguous(d, &c));
    const double *v = nt_tensor_data(c);
    for (int i = 0; i < n && i < nt_tensor_numel(t); i++)
        EXPECT_NEAR(v[i], want[i], 1e-6 * (1 + fabs(want[i])));
    nt_tensor_release(c);
    nt_tensor_release(d);
}

static void test_flip_roll(void) {
    int64_t sizes[2] = {2, 3};
    nt_tensor *x = iota(2, sizes), *r = NULL;
    nt_dim d1 = 1, both[2] = {0, 1};
    EXPECT_OK(nt_flip(x, 1, &d1, &r));
    expect_values(r, 6, (double[]){2, 1, 0, 5, 4, 3});
    nt_tensor_release(r);
    EXPECT_OK(nt_flip(x, 2, both, &r));
    expect_values(r, 6, (double[]){5, 4, 3, 2, 1, 0});
    nt_tensor_release(r);
    nt_dim twice[2] = {1, -1};
    EXPECT_FAIL(nt_flip(x, 2, twice, &r), NT_ERR_RUNTIME,
                "dim 1 appears multiple times in the list of dims");
    int64_t shift = 1;
    EXPECT_OK(nt_roll(x, 1, &shift, 1, &d1, &r));
    expect_values(r, 6, (double[]){2, 0, 1, 5, 3, 4});
    nt_tensor_release(r);
    EXPECT_OK(nt_roll(x, 1, &shift, 0, NULL, &r)); /* flattened */
    expect_values(r, 6, (double[]){5, 0, 1, 2, 3, 4});
    EXPECT(nt_tensor_ndim(r) == 2);
    nt_tensor_release(r);
    nt_tensor_release(x);
}

static void test_repeat_triangle_outer(void) {
    int64_t sizes[2] = {2, 2}, reps[3] = {2, 1, 2};
    nt_tensor *x = iota(2, sizes), *r = NULL;
    EXPECT_OK(nt_repeat(x, 3, reps, &r));
    EXPECT(nt_tensor_ndim(r) == 3 && nt_tensor_sizes(r)[0] == 2 && nt_tensor_sizes(r)[2] == 4);
    expect_values(r, 16, (double[]){0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3});
    nt_tensor_release(r);
    EXPECT_FAIL(nt_repeat(x, 1, reps, &r), NT_ERR_RUNTIME,
                "Number of dimensions of repeat dims can not be smaller than number of dimensions "
                "of tensor");
    EXPECT_OK(nt_tile(x, 1, reps, &r)); /* (1, 2): each row twice */
    expect_values(r, 8, (double[]){0, 1, 0, 1, 2, 3, 2, 3});
    nt_tensor_release(r);
    EXPECT_OK(nt_triu(x, 0, &r));
    expect_values(r, 4, (double[]){0, 1, 0, 3});
    nt_tensor_release(r);
    EXPECT_OK(nt_tril_(x, -1));
    expect_values(x, 4, (double[]){0, 0, 2, 0});
    int64_t n3 = 3, n2 = 2;
    nt_tensor *a = iota(1, &n3), *b = iota(1, &n2);
    EXPECT_OK(nt_outer(a, b, &r));
    expect_values(r, 6, (double[]){0, 0, 0, 1, 0, 2});
    nt_tensor_release(r);
    EXPECT_FAIL(nt_outer(x, b, &r), NT_ERR_RUNTIME,
                "outer: Expected 1-D argument self, but got 2-D");
    EXPECT_OK(nt_diag(a, 1, &r));
    EXPECT(nt_tensor_sizes(r)[0] == 4);
    nt_tensor_release(r);
    EXPECT_OK(nt_diag_embed(a, -1, 0, 1, &r)); /* a = (0, 1, 2) below the diagonal of 4x4 */
    EXPECT(nt_tensor_ndim(r) == 2 && nt_tensor_sizes(r)[0] == 4 && nt_tensor_sizes(r)[1] == 4);
    expect_values(r, 16, (double[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0});
    nt_tensor_release(r);
    EXPECT_OK(nt_diag_embed(x, 0, -1, 0, &r)); /* x = ((0, 0), (2, 0)): r[j, i, j] = x[i, j] */
    expect_values(r, 8, (double[]){0, 0, 2, 0, 0, 0, 0, 0});
    nt_tensor_release(r);
    EXPECT_FAIL(nt_diag_embed(x, 0, 1, -2, &r), NT_ERR_RUNTIME,
                "diagonal dimensions cannot be identical 1, -2");
    EXPECT_FAIL(nt_diag_embed(x, 0, 3, 0, &r), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(x);
}

static void test_factories(void) {
    nt_tensor *r = NULL;
    EXPECT_OK(nt_eye(2, 3, -1, NULL, &r));
    expect_values(r, 6, (double[]){1, 0, 0, 0, 1, 0});
    nt_tensor_release(r);
    EXPECT_FAIL(nt_eye(-1, -1, -1, NULL, &r), NT_ERR_RUNTIME,
                "n must be greater or equal to 0, got -1");
    nt_name t;
    EXPECT_OK(nt_name_intern("T", &t));
    EXPECT_OK(nt_linspace(nt_scalar_int(0), nt_scalar_int(10), 5, NT_INT64, &t, &r));
    expect_values(r, 5, (double[]){0, 2, 5, 7, 10});
    EXPECT(nt_tensor_names(r) && nt_tensor_names(r)[0] == t);
    nt_tensor_release(r);
    EXPECT_OK(nt_logspace(nt_scalar_int(0), nt_scalar_int(2), 3, 2.0, NT_FLOAT64, NULL, &r));
    expect_values(r, 3, (double[]){1, 2, 4});
    nt_tensor_release(r);
    int64_t size = 100;
    EXPECT_OK(nt_randint(-2, 2, 1, &size, -1, &r));
    EXPECT(nt_tensor_dtype(r) == NT_INT64);
    nt_tensor_release(r);
    EXPECT_OK(nt_randperm(50, -1, &r));
    nt_tensor *s = NULL;
    EXPECT_OK(nt_sum(r, 0, NULL, false, -1, &s));
    expect_values(s, 1, (double[]){49 * 50 / 2});
    nt_tensor_release(s);
    nt_tensor_release(r);
}

static void test_norm_and_T(void) {
    int64_t sizes[2] = {2, 2};
    nt_tensor *x = iota(2, sizes), *r = NULL;
    EXPECT_OK(nt_norm(x, 2.0, 0, NULL, false, -1, &r));
    expect_values(r, 1, (double[]){sqrt(14.0)});
    nt_tensor_release(r);
    nt_dim d = 1;
    EXPECT_OK(nt_norm(x, INFINITY, 1, &d, false, -1, &r));
    expect_values(r, 2, (double[]){1, 3});
    nt_tensor_release(r);
    EXPECT_OK(nt_matrix_T(x, &r));
    expect_values(r, 4, (double[]){0, 2, 1, 3});
    nt_tensor_release(r);
    EXPECT_OK(nt_numpy_T(x, &r));
    expect_values(r, 4, (double[]){0, 2, 1, 3});
    nt_tensor_release(r);
    nt_tensor_release(x);
}

int main(void) {
    NT_RUN(test_flip_roll);
    NT_RUN(test_repeat_triangle_outer);
    NT_RUN(test_factories);
    NT_RUN(test_norm_and_T);
    return nt_test_summary();
}
