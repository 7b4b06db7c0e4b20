/*
 * test_dims_assign.c — assignment through an index that binds dims (nt_tensor_bind_set_,
 * src/dims/assign.c): values written into the tensor's storage, per element of the dims;
 * a bool scalar in a binding; functorch's errors as statuses and messages.
 */
#include "nt_test.h"

static nt_tensor *zeros2(int64_t a, int64_t b) {
    int64_t s[2] = {a, b};
    nt_tensor *t = NULL;
    nt_zeros(2, s, NT_FLOAT32, NULL, &t);
    return t;
}

static nt_tensor *arange(int64_t n) {
    nt_tensor *t = NULL;
    nt_arange(nt_scalar_int(0), nt_scalar_int(n), nt_scalar_int(1), NT_FLOAT32, &t);
    return t;
}

static bool equals(nt_tensor *t, const float *want) {
    const float *p = nt_tensor_data(t);
    for (int64_t k = 0; k < nt_tensor_numel(t); k++)
        if (p[k] != want[k]) return false;
    return true;
}

/* x[i] = arange(4), x[j, 1:3] = 7, x[i, k] = y[k, i]: per element of the dims. */
static void test_values(void) {
    nt_fcdim *i, *j, *k;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("j", -1, &j);
    nt_fcdim_new("k", -1, &k);
    nt_tensor *x = zeros2(3, 4), *r = arange(4);
    nt_bind_spec si[1] = {{.kind = NT_BIND_DIM, .dim = i}};
    EXPECT_OK(nt_tensor_bind_set_(x, 1, si, r));
    const float rows[12] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    EXPECT(equals(x, rows) && nt_fcdim_size(i) == 3);
    nt_bind_spec sj[2] = {{.kind = NT_BIND_DIM, .dim = j},
                          {.kind = NT_BIND_SLICE, .start = 1, .stop = 3, .step = 1}};
    EXPECT_OK(nt_tensor_bind_set_scalar_(x, 2, sj, nt_scalar_int(7)));
    const float sliced[12] = {0, 7, 7, 3, 0, 7, 7, 3, 0, 7, 7, 3};
    EXPECT(equals(x, sliced));
    /* y (4, 3) = arange(12); x[i, k] = y[k, i] is the transpose */
    nt_tensor *a12 = arange(12), *y = NULL, *yb = NULL;
    int64_t ys[2] = {4, 3};
    EXPECT_OK(nt_reshape(a12, 2, ys, &y));
    nt_bind_spec sy[2] = {{.kind = NT_BIND_DIM, .dim = k}, {.kind = NT_BIND_DIM, .dim = i}};
    EXPECT_OK(nt_tensor_bind(y, 2, sy, &yb));
    nt_bind_spec sx[2] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_DIM, .dim = k}};
    EXPECT_OK(nt_tensor_bind_set_(x, 2, sx, yb));
    const float transposed[12] = {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11};
    EXPECT(equals(x, transposed));
    nt_tensor_release(a12);
    nt_tensor_release(y);
    nt_tensor_release(yb);
    nt_tensor_release(x);
    nt_tensor_release(r);
    nt_fcdim_release(i);
    nt_fcdim_release(j);
    nt_fcdim_release(k);
}

/* x[idx[i], j] = 1 with idx = [2, 0] writes rows 2 and 0; x[r, True] = 5 writes every row. */
static void test_index_tensor_and_bool(void) {
    nt_fcdim *i, *j, *r;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("j", -1, &j);
    nt_fcdim_new("r", -1, &r);
    int64_t iv[2] = {2, 0}, two = 2;
    nt_tensor *x = zeros2(3, 2), *idx = NULL, *ib = NULL, *b = NULL;
    nt_from_buffer(iv, NT_INT64, 1, &two, NULL, &idx);
    nt_bind_spec s1[1] = {{.kind = NT_BIND_DIM, .dim = i}};
    EXPECT_OK(nt_tensor_bind(idx, 1, s1, &ib));
    nt_bind_spec s2[2] = {{.kind = NT_BIND_TENSOR, .tensor = ib}, {.kind = NT_BIND_DIM, .dim = j}};
    EXPECT_OK(nt_tensor_bind_set_scalar_(x, 2, s2, nt_scalar_float(1.0)));
    const float rows[6] = {1, 1, 0, 0, 1, 1};
    EXPECT(equals(x, rows));
    nt_full(0, NULL, nt_scalar_bool(true), NT_BOOL, NULL, &b);
    nt_bind_spec s3[2] = {{.kind = NT_BIND_DIM, .dim = r}, {.kind = NT_BIND_TENSOR, .tensor = b}};
    nt_tensor *got = NULL;
    EXPECT_OK(nt_tensor_bind(x, 2, s3, &got)); /* x[r, True]: per element (1, 2) */
    EXPECT(got && nt_tensor_ndim(got) == 2 && nt_tensor_sizes(got)[0] == 1 &&
           nt_tensor_sizes(got)[1] == 2);
    EXPECT_OK(nt_tensor_bind_set_scalar_(x, 2, s3, nt_scalar_float(5.0)));
    const float fives[6] = {5, 5, 5, 5, 5, 5};
    EXPECT(equals(x, fives));
    nt_tensor_release(got);
    nt_tensor_release(b);
    nt_tensor_release(ib);
    nt_tensor_release(idx);
    nt_tensor_release(x);
    nt_fcdim_release(i);
    nt_fcdim_release(j);
    nt_fcdim_release(r);
}

static void test_errors(void) {
    nt_fcdim *i, *k;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("k", 5, &k);
    nt_tensor *x = zeros2(3, 4), *r5 = arange(5), *rk = NULL, *big = NULL;
    nt_bind_spec sk[1] = {{.kind = NT_BIND_DIM, .dim = k}};
    EXPECT_OK(nt_tensor_bind(r5, 1, sk, &rk));
    nt_bind_spec si[1] = {{.kind = NT_BIND_DIM, .dim = i}};
    EXPECT_FAIL(nt_tensor_bind_set_(x, 1, si, rk), NT_ERR_DIM_BIND,
                "rhs of setitem contains dimension k which is not in the dimension on the left "
                "((i, -1))");
    EXPECT_FAIL(nt_tensor_bind_set_(x, 1, si, r5), NT_ERR_RUNTIME,
                "The size of tensor a (4) must match the size of tensor b (5) at non-singleton "
                "dimension 1");
    int64_t s3[3] = {1, 1, 4};
    nt_zeros(3, s3, NT_FLOAT32, NULL, &big);
    EXPECT_FAIL(nt_tensor_bind_set_(x, 1, si, big), NT_ERR_DIM_BIND,
                "rhs contains too many dimensions (1) compared to indexed value (3)");
    EXPECT_ERR(nt_tensor_bind_set_(x, 1, si, NULL), NT_ERR_VALUE, "NULL");
    nt_tensor_release(big);
    nt_tensor_release(rk);
    nt_tensor_release(r5);
    nt_tensor_release(x);
    nt_fcdim_release(i);
    nt_fcdim_release(k);
}

int main(void) {
    NT_RUN(test_values);
    NT_RUN(test_index_tensor_and_bool);
    NT_RUN(test_errors);
    return nt_test_summary();
}
