/*
 * test_index_family.c — the index family of issue 11 from C: gather, scatter, scatter_add,
 * index_select, index_add, take_along_dim, sort, argsort, unique, searchsorted, nonzero and
 * masked_scatter: values (PyTorch 1.13's, quoted beside each case), an error text, and no
 * leaks on the error paths (run under ASan).
 */
#include <stdlib.h>
#include <string.h>

#include "nt_test.h"

static nt_tensor *vec(nt_dtype dtype, int ndim, const int64_t *sizes, const double *v) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    nt_tensor *f = NULL, *t = NULL;
    EXPECT_OK(nt_from_buffer(v, NT_FLOAT64, ndim, sizes, NULL, &f));
    EXPECT_OK(nt_to_dtype(f, dtype, &t));
    nt_tensor_release(f);
    (void)n;
    return t;
}

/* t's elements in row-major order equal `want` (n of them) */
static void expect_elements(const nt_tensor *t, int64_t n, const double *want) {
    EXPECT(nt_tensor_numel(t) == n);
    int nd = nt_tensor_ndim(t);
    int64_t idx[NT_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n && k < nt_tensor_numel(t); k++) {
        double v = 0;
        EXPECT_OK(nt_get_double(t, idx, &v));
        if (v != want[k]) {
            fprintf(stderr, "  element %lld: got %g, expected %g\n", (long long)k, v, want[k]);
            nt_test_failures_in_current++;
            return;
        }
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < nt_tensor_sizes(t)[d]) break;
            idx[d] = 0;
        }
    }
}

static void test_gather_scatter(void) {
    int64_t s34[2] = {3, 4}, s32[2] = {3, 2}, s23[2] = {2, 3}, s21[2] = {2, 1};
    double x[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    double ix[6] = {0, 3, 1, 1, 2, 0};
    nt_tensor *t = vec(NT_FLOAT32, 2, s34, x), *i = vec(NT_INT64, 2, s32, ix), *r = NULL;
    /* torch.arange(12.).view(3, 4).gather(1, [[0, 3], [1, 1], [2, 0]]) */
    EXPECT_OK(nt_gather(t, 1, i, &r));
    expect_elements(r, 6, (double[]){0, 3, 5, 5, 10, 8});
    nt_tensor_release(r);
    double bad[6] = {0, 5, 1, 1, 2, 0};
    nt_tensor *b = vec(NT_INT64, 2, s32, bad);
    EXPECT_FAIL(nt_gather(t, 1, b, &r), NT_ERR_RUNTIME,
                "index 5 is out of bounds for dimension 1 with size 4");
    /* torch.zeros(2, 3).scatter_add(1, [[0, 0, 2], [1, 1, 1]], torch.ones(2, 3)) */
    double zeros6[6] = {0}, ones6[6] = {1, 1, 1, 1, 1, 1}, sx[6] = {0, 0, 2, 1, 1, 1};
    nt_tensor *z = vec(NT_FLOAT32, 2, s23, zeros6), *o = vec(NT_FLOAT32, 2, s23, ones6);
    nt_tensor *si = vec(NT_INT64, 2, s23, sx);
    EXPECT_OK(nt_scatter_add(z, 1, si, o, &r));
    expect_elements(r, 6, (double[]){2, 0, 1, 0, 3, 0});
    nt_tensor_release(r);
    /* torch.zeros(2, 3).scatter(1, [[2], [0]], 5.0); then reduce='add' in place twice */
    double vx[2] = {2, 0};
    nt_tensor *vi = vec(NT_INT64, 2, s21, vx);
    EXPECT_OK(nt_scatter_value(z, 1, vi, nt_scalar_float(5), NULL, &r));
    expect_elements(r, 6, (double[]){0, 0, 5, 5, 0, 0});
    EXPECT_OK(nt_scatter_value_(r, 1, vi, nt_scalar_float(2), "add"));
    EXPECT_OK(nt_scatter_(r, 1, si, o, "multiply"));
    expect_elements(r, 6, (double[]){0, 0, 7, 7, 0, 0});
    EXPECT_ERR(nt_scatter_value(z, 1, vi, nt_scalar_float(5), "max", &b), NT_ERR_RUNTIME,
               "reduce argument must be either add or multiply.");
    nt_tensor_release(r);
    EXPECT_OK(nt_scatter_add_(z, 1, si, o));
    expect_elements(z, 6, (double[]){2, 0, 1, 0, 3, 0});
    nt_tensor_release(t), nt_tensor_release(i), nt_tensor_release(b), nt_tensor_release(z);
    nt_tensor_release(o), nt_tensor_release(si), nt_tensor_release(vi);
}

static void test_index_select_add_take(void) {
    int64_t s34[2] = {3, 4}, two = 2, three = 3;
    double x[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    nt_tensor *t = vec(NT_FLOAT32, 2, s34, x), *i = vec(NT_INT64, 1, &two, (double[]){2, 0});
    nt_tensor *r = NULL;
    /* x.index_select(0, [2, 0]) */
    EXPECT_OK(nt_index_select(t, 0, i, &r));
    expect_elements(r, 8, (double[]){8, 9, 10, 11, 0, 1, 2, 3});
    nt_tensor_release(r);
    /* torch.zeros(3).index_add(0, [0, 0, 2], [1., 2., 3.], alpha=2) */
    nt_tensor *z = vec(NT_FLOAT32, 1, &three, (double[]){0, 0, 0});
    nt_tensor *j = vec(NT_INT64, 1, &three, (double[]){0, 0, 2});
    nt_tensor *src = vec(NT_FLOAT32, 1, &three, (double[]){1, 2, 3});
    EXPECT_OK(nt_index_add(z, 0, j, src, nt_scalar_int(2), &r));
    expect_elements(r, 3, (double[]){6, 0, 6});
    nt_tensor_release(r);
    EXPECT_OK(nt_index_add_(z, 0, j, src, nt_scalar_int(1)));
    expect_elements(z, 3, (double[]){3, 0, 3});
    /* torch.take_along_dim(x, [11, 0]) (flattened) and along dim 1 with [[3], [0], [1]] */
    nt_tensor *k = vec(NT_INT64, 1, &two, (double[]){11, 0});
    EXPECT_OK(nt_take_along_dim(t, k, NULL, &r));
    expect_elements(r, 2, (double[]){11, 0});
    nt_tensor_release(r);
    int64_t s31[2] = {3, 1};
    nt_tensor *c = vec(NT_INT64, 2, s31, (double[]){3, 0, 1});
    nt_dim one = 1;
    EXPECT_OK(nt_take_along_dim(t, c, &one, &r));
    expect_elements(r, 3, (double[]){3, 4, 9});
    nt_tensor_release(r);
    nt_tensor_release(t), nt_tensor_release(i), nt_tensor_release(z), nt_tensor_release(j);
    nt_tensor_release(src), nt_tensor_release(k), nt_tensor_release(c);
}

static void test_sort_unique_search(void) {
    int64_t four = 4, two = 2;
    nt_tensor *x = vec(NT_FLOAT32, 1, &four, (double[]){3, 1, 3, 2}), *v = NULL, *ix = NULL;
    /* torch.tensor([3., 1, 3, 2]).sort(descending=True, stable=True) */
    EXPECT_OK(nt_sort(x, 0, true, true, &v, &ix));
    expect_elements(v, 4, (double[]){3, 3, 2, 1});
    expect_elements(ix, 4, (double[]){0, 2, 3, 1});
    nt_tensor_release(v), nt_tensor_release(ix);
    EXPECT_OK(nt_argsort(x, -1, false, false, &ix));
    expect_elements(ix, 4, (double[]){1, 3, 0, 2});
    nt_tensor_release(ix);
    /* torch.unique(x, return_inverse=True, return_counts=True) */
    nt_tensor *u = NULL, *inv = NULL, *cnt = NULL;
    EXPECT_OK(nt_unique(x, true, true, true, NULL, &u, &inv, &cnt));
    expect_elements(u, 3, (double[]){1, 2, 3});
    expect_elements(inv, 4, (double[]){2, 0, 2, 1});
    expect_elements(cnt, 3, (double[]){1, 1, 2});
    nt_tensor_release(u), nt_tensor_release(inv), nt_tensor_release(cnt);
    /* torch.searchsorted([1., 3, 5, 7], [3., 6]) and right=True */
    nt_tensor *s = vec(NT_FLOAT32, 1, &four, (double[]){1, 3, 5, 7});
    nt_tensor *q = vec(NT_FLOAT32, 1, &two, (double[]){3, 6}), *r = NULL;
    EXPECT_OK(nt_searchsorted(s, q, false, false, NULL, &r));
    expect_elements(r, 2, (double[]){1, 3});
    nt_tensor_release(r);
    EXPECT_OK(nt_searchsorted(s, q, true, true, NULL, &r));
    EXPECT(nt_tensor_dtype(r) == NT_INT32);
    expect_elements(r, 2, (double[]){2, 3});
    nt_tensor_release(r);
    nt_tensor_release(x), nt_tensor_release(s), nt_tensor_release(q);
}

static void test_nonzero_masked_scatter(void) {
    int64_t s22[2] = {2, 2}, four = 4, three = 3;
    nt_tensor *m = vec(NT_BOOL, 2, s22, (double[]){1, 0, 1, 1}), *r = NULL;
    /* torch.nonzero([[True, False], [True, True]]) */
    EXPECT_OK(nt_nonzero(m, &r));
    expect_elements(r, 6, (double[]){0, 0, 1, 0, 1, 1});
    nt_tensor_release(r);
    nt_tensor **cols = NULL;
    int64_t count = 0;
    EXPECT_OK(nt_nonzero_tuple(m, &cols, &count));
    EXPECT(count == 2);
    if (count == 2) {
        expect_elements(cols[0], 3, (double[]){0, 1, 1});
        expect_elements(cols[1], 3, (double[]){0, 0, 1});
    }
    nt_tensors_release(cols, count);
    /* torch.zeros(4).masked_scatter([True, False, True, False], [1., 2, 3]) */
    nt_tensor *z = vec(NT_FLOAT32, 1, &four, (double[]){0, 0, 0, 0});
    nt_tensor *mm = vec(NT_BOOL, 1, &four, (double[]){1, 0, 1, 0});
    nt_tensor *src = vec(NT_FLOAT32, 1, &three, (double[]){1, 2, 3});
    EXPECT_OK(nt_masked_scatter(z, mm, src, &r));
    expect_elements(r, 4, (double[]){1, 0, 2, 0});
    nt_tensor_release(r);
    nt_tensor *all = vec(NT_BOOL, 1, &four, (double[]){1, 1, 1, 1});
    EXPECT_FAIL(nt_masked_scatter_(z, all, src), NT_ERR_RUNTIME,
                "Number of elements of source < number of ones in mask");
    nt_tensor_release(m), nt_tensor_release(z), nt_tensor_release(mm);
    nt_tensor_release(src), nt_tensor_release(all);
}

int main(void) {
    NT_RUN(test_gather_scatter);
    NT_RUN(test_index_select_add_take);
    NT_RUN(test_sort_unique_search);
    NT_RUN(test_nonzero_masked_scatter);
    return nt_test_summary();
}
