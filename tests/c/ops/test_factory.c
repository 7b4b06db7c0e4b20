/*
 * test_factory.c — empty, zeros, ones, full, arange, from_buffer, from_external and the
 * *_like factories: shapes, strides, dtypes, names, values and errors. Expected values and
 * error texts are PyTorch 1.13's (the expression that produced each is in a comment).
 */
#include <math.h>
#include <stdint.h>

#include "core/scalar.h"
#include "core/tensor.h"
#include "nt_test.h"

static const nt_dtype all_dtypes[] = {NT_BOOL,  NT_UINT8,   NT_INT8,     NT_INT16,   NT_INT32,
                                      NT_INT64, NT_FLOAT16, NT_BFLOAT16, NT_FLOAT32, NT_FLOAT64};
#define N_DTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

/* Element i (row-major, contiguous tensors only) as a double. */
static double at(const nt_tensor *t, int64_t i) {
    return nt_load_double((const char *)nt_tensor_data(t) + i * (int64_t)nt_dtype_size(t->dtype),
                          t->dtype);
}

static bool sizes_are(const nt_tensor *t, int ndim, const int64_t *sizes) {
    if (nt_tensor_ndim(t) != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (nt_tensor_sizes(t)[i] != sizes[i]) return false;
    return true;
}

/* ------------------------------------------------------------------ empty, zeros */

static void test_empty_has_shape_strides_dtype_and_names(void) {
    int64_t sizes[3] = {2, 3, 4};
    nt_name names[3] = {N("N"), NT_NAME_NONE, N("C")};
    nt_tensor *t = NULL;
    EXPECT_OK(nt_empty(3, sizes, NT_INT16, names, &t));
    EXPECT(t && sizes_are(t, 3, sizes));
    EXPECT(nt_tensor_strides(t)[0] == 12 && nt_tensor_strides(t)[1] == 4 &&
           nt_tensor_strides(t)[2] == 1);
    EXPECT(nt_tensor_dtype(t) == NT_INT16 && nt_tensor_numel(t) == 24);
    EXPECT(nt_tensor_is_contiguous(t) && nt_tensor_offset(t) == 0);
    EXPECT(nt_tensor_has_names(t) && nt_tensor_names(t)[0] == N("N") &&
           nt_tensor_names(t)[1] == NT_NAME_NONE && nt_tensor_names(t)[2] == N("C"));
    nt_tensor_release(t);

    /* all-None names make an unnamed tensor; a 0-dim tensor has one element */
    nt_name none[2] = {NT_NAME_NONE, NT_NAME_NONE};
    EXPECT_OK(nt_empty(2, sizes, NT_FLOAT32, none, &t));
    EXPECT(!nt_tensor_has_names(t));
    nt_tensor_release(t);
    EXPECT_OK(nt_empty(0, NULL, NT_FLOAT64, NULL, &t));
    EXPECT(nt_tensor_ndim(t) == 0 && nt_tensor_numel(t) == 1);
    nt_tensor_release(t);
}

static void test_factories_reject_bad_arguments(void) {
    int64_t sizes[2] = {2, 3};
    nt_tensor *t = NULL;
    /* torch.zeros(2, 3, names=('N', 'N')) */
    nt_name dup[2] = {N("N"), N("N")};
    EXPECT_ERR(nt_zeros(2, sizes, NT_FLOAT32, dup, &t), NT_ERR_RUNTIME,
               "Cannot construct a tensor with duplicate names. Got names: ['N', 'N'].");
    EXPECT_ERR(nt_ones(2, sizes, NT_FLOAT32, dup, &t), NT_ERR_RUNTIME, "duplicate names");
    EXPECT_ERR(nt_full(2, sizes, nt_scalar_int(1), NT_FLOAT32, dup, &t), NT_ERR_RUNTIME,
               "duplicate names");
    /* torch.zeros(2, -3) */
    int64_t negative[2] = {2, -3};
    EXPECT_ERR(nt_zeros(2, negative, NT_FLOAT32, NULL, &t), NT_ERR_RUNTIME,
               "Trying to create tensor with negative dimension -3: [2, -3]");
    EXPECT_ERR(nt_empty(2, negative, NT_FLOAT32, NULL, &t), NT_ERR_RUNTIME, "negative dimension");
    EXPECT_ERR(nt_zeros(2, sizes, (nt_dtype)99, NULL, &t), NT_ERR_TYPE, "invalid dtype 99");
    EXPECT_ERR(nt_ones(2, sizes, (nt_dtype)-1, NULL, &t), NT_ERR_TYPE, "invalid dtype -1");
    nt_name stray[2] = {(nt_name)0x7ffffff0u, NT_NAME_NONE};
    EXPECT_ERR(nt_empty(2, sizes, NT_FLOAT32, stray, &t), NT_ERR_VALUE, "invalid name id");
    EXPECT_ERR(nt_empty(65, sizes, NT_FLOAT32, NULL, &t), NT_ERR_RUNTIME, "[0, 64]");
    EXPECT(t == NULL);
}

static void test_zeros_are_zero_in_every_dtype(void) {
    int64_t sizes[2] = {5, 7};
    for (int d = 0; d < N_DTYPES; d++) {
        nt_tensor *t = NULL;
        EXPECT_OK(nt_zeros(2, sizes, all_dtypes[d], NULL, &t));
        EXPECT(t && nt_tensor_dtype(t) == all_dtypes[d] && sizes_are(t, 2, sizes));
        const unsigned char *bytes = nt_tensor_data(t);
        bool all_zero = true;
        for (size_t i = 0; i < 35 * nt_dtype_size(all_dtypes[d]); i++)
            all_zero &= bytes[i] == 0;
        EXPECT(all_zero);
        nt_tensor_release(t);
    }
    /* large enough to be zeroed by several threads */
    int64_t big = 3000001;
    nt_tensor *t = NULL;
    EXPECT_OK(nt_zeros(1, &big, NT_FLOAT64, NULL, &t));
    bool all_zero = true;
    for (int64_t i = 0; i < big; i++)
        all_zero &= ((const double *)nt_tensor_data(t))[i] == 0.0;
    EXPECT(all_zero);
    nt_tensor_release(t);
}

static void test_empty_shapes(void) {
    int64_t sizes[3] = {4, 0, 3};
    nt_tensor *t = NULL;
    EXPECT_OK(nt_zeros(3, sizes, NT_FLOAT32, NULL, &t));
    EXPECT(nt_tensor_numel(t) == 0 && sizes_are(t, 3, sizes));
    nt_tensor_release(t);
    EXPECT_OK(nt_full(3, sizes, nt_scalar_float(2.5), NT_INT8, NULL, &t));
    EXPECT(nt_tensor_numel(t) == 0);
    nt_tensor_release(t);
}

/* ------------------------------------------------------------------ ones, full */

static void test_ones_in_every_dtype(void) {
    int64_t sizes[2] = {3, 4};
    nt_name names[2] = {N("H"), N("W")};
    for (int d = 0; d < N_DTYPES; d++) {
        nt_tensor *t = NULL;
        EXPECT_OK(nt_ones(2, sizes, all_dtypes[d], names, &t));
        EXPECT(t && nt_tensor_dtype(t) == all_dtypes[d] && nt_tensor_names(t)[1] == N("W"));
        for (int64_t i = 0; i < 12; i++)
            EXPECT(at(t, i) == 1.0);
        nt_tensor_release(t);
    }
}

static void test_full_converts_the_value_like_pytorch(void) {
    int64_t n = 3;
    /* torch.full((3,), 2.7, dtype=...): 2 for integers, True, and the nearest half/bfloat16 */
    const struct {
        nt_dtype dtype;
        double expected;
    } cases[] = {
        {NT_BOOL, 1.0},           {NT_UINT8, 2.0},          {NT_INT8, 2.0},
        {NT_INT16, 2.0},          {NT_INT32, 2.0},          {NT_INT64, 2.0},
        {NT_FLOAT16, 0x1.598p+1}, {NT_BFLOAT16, 0x1.5ap+1}, {NT_FLOAT32, (float)2.7},
        {NT_FLOAT64, 2.7},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        nt_tensor *t = NULL;
        EXPECT_OK(nt_full(1, &n, nt_scalar_float(2.7), cases[c].dtype, NULL, &t));
        for (int64_t i = 0; i < n; i++)
            EXPECT(at(t, i) == cases[c].expected);
        nt_tensor_release(t);
    }
    /* torch.full((3,), -2.7, dtype=torch.int64) -> -2; torch.full((3,), 0.0, bool) -> False */
    nt_tensor *t = NULL;
    EXPECT_OK(nt_full(1, &n, nt_scalar_float(-2.7), NT_INT64, NULL, &t));
    EXPECT(((const int64_t *)nt_tensor_data(t))[2] == -2);
    nt_tensor_release(t);
    EXPECT_OK(nt_full(1, &n, nt_scalar_float(0.0), NT_BOOL, NULL, &t));
    EXPECT(at(t, 0) == 0.0 && at(t, 2) == 0.0);
    nt_tensor_release(t);
    /* a big int64 survives exactly; a bool scalar is 1 */
    EXPECT_OK(nt_full(1, &n, nt_scalar_int(INT64_MAX - 5), NT_INT64, NULL, &t));
    EXPECT(((const int64_t *)nt_tensor_data(t))[1] == INT64_MAX - 5);
    nt_tensor_release(t);
    EXPECT_OK(nt_full(1, &n, nt_scalar_bool(true), NT_FLOAT32, NULL, &t));
    EXPECT(at(t, 1) == 1.0);
    nt_tensor_release(t);
}

/* ------------------------------------------------------------------ *_like */

static void test_like_takes_shape_names_and_dtype(void) {
    int64_t sizes[3] = {2, 3, 5};
    nt_name names[3] = {N("A"), NT_NAME_NONE, N("B")};
    nt_tensor *like = NULL, *t = NULL;
    EXPECT_OK(nt_empty(3, sizes, NT_INT32, names, &like));

    EXPECT_OK(nt_empty_like(like, -1, &t));
    EXPECT(sizes_are(t, 3, sizes) && nt_tensor_dtype(t) == NT_INT32);
    EXPECT(nt_tensor_names(t)[0] == N("A") && nt_tensor_names(t)[2] == N("B"));
    EXPECT(!nt_tensor_shares_storage(t, like));
    nt_tensor_release(t);

    EXPECT_OK(nt_zeros_like(like, NT_FLOAT64, &t));
    EXPECT(nt_tensor_dtype(t) == NT_FLOAT64 && at(t, 29) == 0.0 && nt_tensor_has_names(t));
    nt_tensor_release(t);

    EXPECT_OK(nt_ones_like(like, NT_BFLOAT16, &t));
    EXPECT(nt_tensor_dtype(t) == NT_BFLOAT16 && at(t, 0) == 1.0 && at(t, 29) == 1.0);
    nt_tensor_release(t);

    EXPECT_OK(nt_full_like(like, nt_scalar_float(-1.5), -1, &t));
    EXPECT(nt_tensor_dtype(t) == NT_INT32 && at(t, 7) == -1.0);
    nt_tensor_release(t);

    EXPECT_ERR(nt_zeros_like(like, 10, &t), NT_ERR_TYPE, "invalid dtype 10");
    EXPECT_ERR(nt_full_like(like, nt_scalar_int(1), -2, &t), NT_ERR_TYPE, "invalid dtype -2");
    nt_tensor_release(like);
}

static void test_like_preserves_a_dense_layout(void) {
    /* torch.empty_like(torch.zeros(3, 4).t()).stride() == (1, 4) */
    int64_t sizes[2] = {3, 4};
    nt_tensor *base = NULL, *tr = NULL, *t = NULL;
    EXPECT_OK(nt_zeros(2, sizes, NT_FLOAT32, NULL, &base));
    int64_t tsizes[2] = {4, 3}, tstrides[2] = {1, 4};
    nt_name names[2] = {N("b"), N("a")};
    EXPECT_OK(nt_tensor_view_of(base, 2, tsizes, tstrides, 0, names, &tr));
    EXPECT_OK(nt_zeros_like(tr, -1, &t));
    EXPECT(sizes_are(t, 2, tsizes) && nt_tensor_strides(t)[0] == 1 &&
           nt_tensor_strides(t)[1] == 4 && !nt_tensor_is_contiguous(t));
    EXPECT(nt_tensor_names(t)[0] == N("b") && nt_tensor_names(t)[1] == N("a"));
    EXPECT(((const float *)nt_tensor_data(t))[11] == 0.0f);
    nt_tensor_release(t);

    /* torch.empty_like(torch.zeros(4).expand(3, 4)).stride() == (4, 1): not dense */
    int64_t n = 4, esizes[2] = {3, 4}, estrides[2] = {0, 1};
    nt_tensor *row = NULL, *expanded = NULL;
    EXPECT_OK(nt_zeros(1, &n, NT_FLOAT32, NULL, &row));
    EXPECT_OK(nt_tensor_view_of(row, 2, esizes, estrides, 0, NULL, &expanded));
    EXPECT_OK(nt_ones_like(expanded, -1, &t));
    EXPECT(nt_tensor_strides(t)[0] == 4 && nt_tensor_strides(t)[1] == 1);
    EXPECT(at(t, 11) == 1.0);
    nt_tensor_release(t);

    /* torch.empty_like(torch.zeros(3, 4)[:, ::2]).stride() == (2, 1): a gap is not dense */
    int64_t ssizes[2] = {3, 2}, sstrides[2] = {4, 2};
    nt_tensor *sliced = NULL;
    EXPECT_OK(nt_tensor_view_of(base, 2, ssizes, sstrides, 0, NULL, &sliced));
    EXPECT_OK(nt_empty_like(sliced, -1, &t));
    EXPECT(nt_tensor_strides(t)[0] == 2 && nt_tensor_strides(t)[1] == 1);
    nt_tensor_release(t);

    nt_tensor_release(sliced);
    nt_tensor_release(expanded);
    nt_tensor_release(row);
    nt_tensor_release(tr);
    nt_tensor_release(base);
}

/* ------------------------------------------------------------------ arange */

static nt_tensor *arange(nt_scalar start, nt_scalar end, nt_scalar step, nt_dtype dtype) {
    nt_tensor *t = NULL;
    EXPECT_OK(nt_arange(start, end, step, dtype, &t));
    return t;
}

static bool values_are(const nt_tensor *t, int64_t n, const double *expected) {
    if (!t || nt_tensor_numel(t) != n || nt_tensor_ndim(t) != 1) return false;
    for (int64_t i = 0; i < n; i++)
        if (at(t, i) != expected[i]) return false;
    return true;
}

#define I(x) nt_scalar_int(x)
#define F(x) nt_scalar_float(x)

static void test_arange_integers(void) {
    nt_tensor *t;
    /* torch.arange(0, 10, 3) */
    t = arange(I(0), I(10), I(3), NT_INT64);
    EXPECT(values_are(t, 4, (double[]){0, 3, 6, 9}));
    nt_tensor_release(t);
    /* torch.arange(10, 0, -3) */
    t = arange(I(10), I(0), I(-3), NT_INT64);
    EXPECT(values_are(t, 4, (double[]){10, 7, 4, 1}));
    nt_tensor_release(t);
    /* torch.arange(0, 0, 1): empty */
    t = arange(I(0), I(0), I(1), NT_INT64);
    EXPECT(t && nt_tensor_numel(t) == 0 && nt_tensor_ndim(t) == 1);
    nt_tensor_release(t);
    /* torch.arange(0.5, 3.7, 1, dtype=torch.int64) -> [0, 1, 2]: the bounds are truncated
     * first; with int32 the length comes from the doubles: [0, 1, 2, 3] */
    t = arange(F(0.5), F(3.7), I(1), NT_INT64);
    EXPECT(values_are(t, 3, (double[]){0, 1, 2}));
    nt_tensor_release(t);
    t = arange(F(0.5), F(3.7), I(1), NT_INT32);
    EXPECT(values_are(t, 4, (double[]){0, 1, 2, 3}));
    nt_tensor_release(t);
    /* torch.arange(0, 10, 1.5, dtype=torch.int32) -> 7 values, int64 -> 10 values */
    t = arange(I(0), I(10), F(1.5), NT_INT32);
    EXPECT(values_are(t, 7, (double[]){0, 1, 2, 3, 4, 5, 6}));
    nt_tensor_release(t);
    t = arange(I(0), I(10), F(1.5), NT_INT64);
    EXPECT(values_are(t, 10, (double[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    nt_tensor_release(t);
    /* torch.arange(-5, 5, 2, dtype=torch.uint8) wraps: [251, 253, 255, 1, 3] */
    t = arange(I(-5), I(5), I(2), NT_UINT8);
    EXPECT(values_are(t, 5, (double[]){251, 253, 255, 1, 3}));
    nt_tensor_release(t);
    /* torch.arange(True, 3) -> [1, 2] */
    t = arange(nt_scalar_bool(true), I(3), I(1), NT_INT64);
    EXPECT(values_are(t, 2, (double[]){1, 2}));
    nt_tensor_release(t);
    /* torch.arange(-2**63, 2**63 - 1, 2**62): the int64 difference wraps to -1: empty */
    t = arange(I(INT64_MIN), I(INT64_MAX), I(INT64_C(1) << 62), NT_INT64);
    EXPECT(t && nt_tensor_numel(t) == 0);
    nt_tensor_release(t);
    /* exact beyond 2^53 */
    t = arange(I(INT64_MAX - 2), I(INT64_MAX), I(1), NT_INT64);
    EXPECT(t && nt_tensor_numel(t) == 2 &&
           ((const int64_t *)nt_tensor_data(t))[1] == INT64_MAX - 1);
    nt_tensor_release(t);
}

static void test_arange_floats_match_pytorch_bits(void) {
    nt_tensor *t;
    /* torch.arange(0, 10, 0.1): 100 values; PyTorch's vectorized loop makes t[9] one ulp
     * above float(0.9) */
    t = arange(I(0), I(10), F(0.1), NT_FLOAT32);
    EXPECT(t && nt_tensor_numel(t) == 100);
    const float *f = nt_tensor_data(t);
    EXPECT(f[0] == 0.0f && f[1] == (float)0.1);
    EXPECT(f[9] == 0x1.ccccce0p-1f && f[18] == 0x1.ccccce0p+0f && f[26] == 0x1.4cccce0p+1f);
    EXPECT(f[99] == 0x1.3ccccc0p+3f);
    nt_tensor_release(t);
    /* torch.arange(0.1, 1000.3, 0.7, dtype=torch.float64): 1429 values, fused arithmetic */
    t = arange(F(0.1), F(1000.3), F(0.7), NT_FLOAT64);
    EXPECT(t && nt_tensor_numel(t) == 1429);
    const double *d = nt_tensor_data(t);
    EXPECT(d[12] == 0x1.1p+3 && d[13] == 0x1.2666666666666p+3 && d[31] == 0x1.5cccccccccccdp+4);
    EXPECT(d[1428] == 0x1.f3d9999999999p+9);
    nt_tensor_release(t);
    /* torch.arange(0, 1, 0.3, dtype=torch.float16) */
    t = arange(I(0), I(1), F(0.3), NT_FLOAT16);
    EXPECT(values_are(t, 4, (double[]){0, 0x1.334p-2, 0x1.334p-1, 0x1.cccp-1}));
    nt_tensor_release(t);
    /* torch.arange(0, 10, 0.1, dtype=torch.float16 / torch.bfloat16) */
    t = arange(I(0), I(10), F(0.1), NT_FLOAT16);
    EXPECT(t && nt_tensor_numel(t) == 100 && at(t, 17) == 0x1.b3p+0 && at(t, 18) == 0x1.cccp+0 &&
           at(t, 19) == 0x1.e64p+0 && at(t, 99) == 0x1.3ccp+3);
    nt_tensor_release(t);
    t = arange(I(0), I(10), F(0.1), NT_BFLOAT16);
    EXPECT(t && nt_tensor_numel(t) == 100 && at(t, 17) == 0x1.b4p+0 && at(t, 18) == 0x1.cep+0 &&
           at(t, 19) == 0x1.e6p+0 && at(t, 36) == 0x1.cep+1 && at(t, 99) == 0x1.3cp+3);
    nt_tensor_release(t);
    /* torch.arange(-12.077020372257863, 528.6550036665403, 0.48464355105897505,
     * dtype=torch.float16)[26] == 0.5224609375: the lane step is not fused for float16 */
    t = arange(F(-12.077020372257863), F(528.6550036665403), F(0.48464355105897505), NT_FLOAT16);
    EXPECT(t && nt_tensor_numel(t) == 1116 && at(t, 16) == -0x1.14cp+2 && at(t, 26) == 0x1.0b8p-1);
    nt_tensor_release(t);
    /* torch.arange(5, -5, -0.3): 34 values, t[10] == 0x1.fffffep+0, t[33] == -0x1.39999ap+2 */
    t = arange(I(5), I(-5), F(-0.3), NT_FLOAT32);
    EXPECT(t && nt_tensor_numel(t) == 34 && at(t, 10) == 0x1.fffffep+0 &&
           at(t, 33) == -0x1.39999ap+2);
    nt_tensor_release(t);
    /* torch.arange(1, 4, 0.5, dtype=torch.float64) */
    t = arange(I(1), I(4), F(0.5), NT_FLOAT64);
    EXPECT(values_are(t, 6, (double[]){1, 1.5, 2, 2.5, 3, 3.5}));
    nt_tensor_release(t);
    /* torch.arange(0, 1e-30, 1e-31).numel() == 10 */
    t = arange(I(0), F(1e-30), F(1e-31), NT_FLOAT32);
    EXPECT(t && nt_tensor_numel(t) == 10);
    nt_tensor_release(t);
    /* big enough to be split across threads: still exact integers */
    t = arange(I(0), I(100000), I(1), NT_FLOAT32);
    EXPECT(t && nt_tensor_numel(t) == 100000 && at(t, 99999) == 99999.0 && at(t, 65537) == 65537.0);
    nt_tensor_release(t);
}

static void test_arange_errors(void) {
    nt_tensor *t = NULL;
    /* torch.arange(0, 10, 0) */
    EXPECT_ERR(nt_arange(I(0), I(10), I(0), NT_INT64, &t), NT_ERR_RUNTIME, "step must be nonzero");
    EXPECT_ERR(nt_arange(I(0), I(10), F(0.0), NT_FLOAT32, &t), NT_ERR_RUNTIME,
               "step must be nonzero");
    /* torch.arange(0., 1., 0.25, dtype=torch.int64): the step truncates to 0 */
    EXPECT_ERR(nt_arange(F(0), F(1), F(0.25), NT_INT64, &t), NT_ERR_RUNTIME,
               "step must be nonzero");
    /* torch.arange(10, 0, 1) and torch.arange(0, 10, -1) */
    EXPECT_ERR(nt_arange(I(10), I(0), I(1), NT_INT64, &t), NT_ERR_RUNTIME,
               "upper bound and larger bound inconsistent with step sign");
    EXPECT_ERR(nt_arange(I(0), I(10), F(-1), NT_FLOAT64, &t), NT_ERR_RUNTIME,
               "upper bound and larger bound inconsistent with step sign");
    /* torch.arange(0, float('inf'), 1.) and nan */
    EXPECT_ERR(nt_arange(I(0), F(INFINITY), F(1), NT_FLOAT32, &t), NT_ERR_RUNTIME,
               "unsupported range: 0 -> inf");
    EXPECT_ERR(nt_arange(I(0), F(NAN), F(1), NT_FLOAT64, &t), NT_ERR_RUNTIME,
               "unsupported range: 0 -> nan");
    /* torch.arange(0, 5, dtype=torch.bool) */
    EXPECT_ERR(nt_arange(I(0), I(5), I(1), NT_BOOL, &t), NT_ERR_RUNTIME,
               "\"arange_cpu\" not implemented for 'Bool'");
    /* torch.arange(1e20, 1e21, 1e19, dtype=torch.int64); float('nan') too */
    EXPECT_ERR(nt_arange(F(1e20), F(1e21), F(1e19), NT_INT64, &t), NT_ERR_RUNTIME,
               "value cannot be converted to type int64_t without overflow");
    EXPECT_ERR(nt_arange(I(0), F(NAN), I(1), NT_INT64, &t), NT_ERR_RUNTIME,
               "value cannot be converted to type int64_t without overflow");
    /* torch.arange(0, 1e39, 1e38, dtype=torch.float16): float is the accumulate type */
    EXPECT_ERR(nt_arange(I(0), F(1e39), F(1e38), NT_FLOAT16, &t), NT_ERR_RUNTIME,
               "value cannot be converted to type float without overflow");
    /* 2^63 elements: PyTorch's check lets exactly 2^63 through and then fails on the size
     * ("cannot be represented as a SymInt"); here the check itself rejects it */
    EXPECT_ERR(nt_arange(I(0), F(0x1p62), F(0.5), NT_FLOAT64, &t), NT_ERR_RUNTIME,
               "invalid size, possible overflow?");
    EXPECT_ERR(nt_arange(I(0), I(5), I(1), (nt_dtype)12, &t), NT_ERR_TYPE, "invalid dtype 12");
    EXPECT(t == NULL);
}

/* ------------------------------------------------------------------ buffers */

static void test_from_buffer_copies(void) {
    float src[6] = {1, 2, 3, 4, 5, 6};
    int64_t sizes[2] = {2, 3};
    nt_name names[2] = {N("R"), N("C")};
    nt_tensor *t = NULL;
    EXPECT_OK(nt_from_buffer(src, NT_FLOAT32, 2, sizes, names, &t));
    EXPECT(t && sizes_are(t, 2, sizes) && nt_tensor_names(t)[1] == N("C"));
    src[4] = 50;
    EXPECT(at(t, 4) == 5.0 && at(t, 5) == 6.0 && nt_tensor_data(t) != (void *)src);
    nt_tensor_release(t);

    int64_t empty = 0;
    EXPECT_OK(nt_from_buffer(NULL, NT_INT8, 1, &empty, NULL, &t));
    EXPECT(nt_tensor_numel(t) == 0);
    nt_tensor_release(t);
    t = NULL;
    EXPECT_ERR(nt_from_buffer(NULL, NT_INT8, 2, sizes, NULL, &t), NT_ERR_VALUE, "data is NULL");
    EXPECT_ERR(nt_from_buffer(src, NT_FLOAT32, 2, sizes, (nt_name[]){N("R"), N("R")}, &t),
               NT_ERR_RUNTIME, "duplicate names");
    EXPECT(t == NULL);
}

typedef struct release_log {
    int calls;
    void *data;
} release_log;

static void log_release(void *ctx, void *data) {
    release_log *log = ctx;
    log->calls++;
    log->data = data;
}

static void test_from_external_wraps_without_copy(void) {
    int32_t buf[12];
    for (int i = 0; i < 12; i++)
        buf[i] = i;
    release_log log = {0, NULL};
    int64_t sizes[2] = {3, 4};
    nt_tensor *t = NULL, *view = NULL;
    EXPECT_OK(nt_from_external(buf, sizeof buf, NT_INT32, 2, sizes, NULL, log_release, &log, &t));
    EXPECT(t && nt_tensor_data(t) == (void *)buf && nt_tensor_is_contiguous(t));
    EXPECT(nt_tensor_strides(t)[0] == 4 && !nt_tensor_has_names(t));
    buf[5] = 500; /* a write to the buffer shows in the tensor */
    EXPECT(at(t, 5) == 500.0);
    /* a second view keeps the storage alive */
    int64_t vs[1] = {3}, vst[1] = {4};
    EXPECT_OK(nt_tensor_view_of(t, 1, vs, vst, 1, NULL, &view));
    nt_tensor_release(t);
    EXPECT(log.calls == 0);
    EXPECT(((const int32_t *)nt_tensor_data(view))[4] == 500); /* column 1, row 1: buf[5] */
    nt_tensor_release(view);
    EXPECT(log.calls == 1 && log.data == (void *)buf);

    /* explicit strides, a zero stride, and no release callback */
    double d[6] = {0, 1, 2, 3, 4, 5};
    int64_t ts[2] = {3, 2}, tst[2] = {1, 3};
    EXPECT_OK(nt_from_external(d, sizeof d, NT_FLOAT64, 2, ts, tst, NULL, NULL, &t));
    EXPECT(!nt_tensor_is_contiguous(t) && nt_tensor_strides(t)[1] == 3);
    EXPECT(((const double *)nt_tensor_data(t))[3] == 3.0);
    nt_tensor_release(t);
    int64_t bs[2] = {5, 6}, bst[2] = {0, 1};
    EXPECT_OK(nt_from_external(d, sizeof d, NT_FLOAT64, 2, bs, bst, NULL, NULL, &t));
    EXPECT(nt_tensor_numel(t) == 30);
    nt_tensor_release(t);
}

static void test_from_external_checks_the_extent(void) {
    release_log log = {0, NULL};
    float buf[8];
    nt_tensor *t = NULL;
    int64_t sizes[2] = {3, 3};
    EXPECT_ERR(nt_from_external(buf, sizeof buf, NT_FLOAT32, 2, sizes, NULL, log_release, &log, &t),
               NT_ERR_VALUE, "the view needs 9 elements of 4 bytes but the buffer holds 32 bytes");
    int64_t strides[2] = {3, -1};
    EXPECT_ERR(
        nt_from_external(buf, sizeof buf, NT_FLOAT32, 2, sizes, strides, log_release, &log, &t),
        NT_ERR_VALUE, "negative strides are not supported (stride -1 at dim 1)");
    int64_t fit[2] = {2, 2}, gap[2] = {5, 3}; /* the last element is at 5 + 3 = 8 */
    EXPECT_ERR(nt_from_external(buf, sizeof buf, NT_FLOAT32, 2, fit, gap, log_release, &log, &t),
               NT_ERR_VALUE, "needs 9 elements");
    int64_t gap_ok[2] = {4, 3}; /* the last element is at 7: exactly fits */
    EXPECT_OK(nt_from_external(buf, sizeof buf, NT_FLOAT32, 2, fit, gap_ok, log_release, &log, &t));
    nt_tensor_release(t);
    EXPECT(log.calls == 1);
    t = NULL;
    int64_t huge[2] = {INT64_C(1) << 31, INT64_C(1) << 31}, huge_st[2] = {INT64_C(1) << 40, 1};
    EXPECT_ERR(
        nt_from_external(buf, sizeof buf, NT_FLOAT32, 2, huge, huge_st, log_release, &log, &t),
        NT_ERR_VALUE, "overflows");
    EXPECT_ERR(
        nt_from_external((char *)buf + 1, 4, NT_FLOAT32, 0, NULL, NULL, log_release, &log, &t),
        NT_ERR_VALUE, "not aligned to its 4-byte elements");
    EXPECT_ERR(nt_from_external(NULL, 64, NT_FLOAT32, 1, (int64_t[]){2}, NULL, NULL, NULL, &t),
               NT_ERR_VALUE, "data is NULL");
    EXPECT_ERR(nt_from_external(buf, sizeof buf, (nt_dtype)10, 0, NULL, NULL, NULL, NULL, &t),
               NT_ERR_TYPE, "invalid dtype 10");
    int64_t neg = -1;
    EXPECT_ERR(nt_from_external(buf, sizeof buf, NT_FLOAT32, 1, &neg, NULL, NULL, NULL, &t),
               NT_ERR_RUNTIME, "negative dimension");
    /* the callback is not run when wrapping fails: the memory is still the caller's */
    EXPECT(log.calls == 1 && t == NULL);
    /* an empty view needs no bytes at all */
    int64_t zero[2] = {0, 5};
    EXPECT_OK(nt_from_external(NULL, 0, NT_FLOAT32, 2, zero, NULL, NULL, NULL, &t));
    EXPECT(nt_tensor_numel(t) == 0);
    nt_tensor_release(t);
}

/* Found by fuzzing (tests/fuzz/fuzz_views.c): a view whose last element sits at INT64_MAX
 * (size 2, stride INT64_MAX) passed the extent check, then its message computed one past
 * that element with an int64 overflow. */
static void test_from_external_extent_at_int64_max(void) {
    float buf[8];
    nt_tensor *t = NULL;
    int64_t two = 2, far = INT64_MAX;
    EXPECT_FAIL(nt_from_external(buf, sizeof buf, NT_FLOAT32, 1, &two, &far, NULL, NULL, &t),
                NT_ERR_VALUE, "from_external: the view's extent overflows int64");
    int64_t big = INT64_MAX, one = 1; /* the last element at INT64_MAX - 1: its bytes overflow */
    EXPECT_ERR(nt_from_external(buf, sizeof buf, NT_FLOAT32, 1, &big, &one, NULL, NULL, &t),
               NT_ERR_VALUE, "the view needs 9223372036854775807 elements of 4 bytes");
    EXPECT(t == NULL);
}

/* ------------------------------------------------------------------ the op table */

/* The factory rows run from a generic call record (as a language binding calls them), with
 * the schema's defaults for the slots left out. */
static void test_factories_through_nt_call_op(void) {
    int64_t sizes[2] = {2, 3};
    nt_name names[2] = {N("a"), N("b")};
    nt_call c = {.op = NT_OP_ONES};
    c.args[0] = nt_arg_ints(2, sizes);
    c.args[1] = nt_arg_names(2, names, -1);
    c.args[2] = nt_arg_none(); /* the default dtype */
    EXPECT_OK(nt_call_op(&c));
    EXPECT(c.result[0] && sizes_are(c.result[0], 2, sizes) && at(c.result[0], 5) == 1.0);
    EXPECT(nt_tensor_dtype(c.result[0]) == nt_default_dtype());
    EXPECT(c.result[0]->names && c.result[0]->names[1] == N("b"));
    nt_tensor *like = c.result[0];

    /* full: the fill value's dtype when none is given (torch.full((2,), 7).dtype: int64) */
    nt_call f = {.op = NT_OP_FULL};
    f.args[0] = nt_arg_ints(1, sizes);
    f.args[1] = nt_arg_scalar(nt_scalar_int(7));
    f.args[2] = nt_arg_none();
    f.args[3] = nt_arg_none();
    EXPECT_OK(nt_call_op(&f));
    EXPECT(nt_tensor_dtype(f.result[0]) == NT_INT64 && at(f.result[0], 1) == 7.0);
    nt_tensor_release(f.result[0]);

    /* names of the wrong count: PyTorch's text */
    c.result[0] = NULL;
    c.args[1] = nt_arg_names(1, names, -1);
    EXPECT_ERR(nt_call_op(&c), NT_ERR_RUNTIME, "Number of names (1) and number of dimensions");

    /* zeros_like keeps shape and names; dtype given */
    nt_call z = {.op = NT_OP_ZEROS_LIKE};
    z.args[0] = nt_arg_tensor(like);
    z.args[1] = nt_arg_dtype(NT_INT8);
    EXPECT_OK(nt_call_op(&z));
    EXPECT(nt_tensor_dtype(z.result[0]) == NT_INT8 && sizes_are(z.result[0], 2, sizes));
    EXPECT(z.result[0]->names && z.result[0]->names[0] == N("a") && at(z.result[0], 4) == 0.0);
    nt_tensor_release(z.result[0]);

    /* an in-place distribution is only an in-place form; its result is self */
    nt_call u = {.op = NT_OP_UNIFORM_, .inplace = true};
    u.args[0] = nt_arg_tensor(like);
    u.args[1] = nt_arg_float(2.0);
    u.args[2] = nt_arg_float(3.0);
    EXPECT_OK(nt_call_op(&u));
    EXPECT(u.result[0] == like && at(like, 0) >= 2.0 && at(like, 0) < 3.0);
    nt_tensor_release(u.result[0]);
    u.inplace = false;
    u.out[0] = like;
    EXPECT_ERR(nt_call_op(&u), NT_ERR_VALUE, "has no out= form");
    nt_tensor_release(like);
}

/* is_nonzero: the truth of one element, PyTorch's errors otherwise. */
static void test_is_nonzero(void) {
    /* torch.tensor(v).is_nonzero() for v = 0.0, -0.0, nan, 3 */
    const double values[4] = {0.0, -0.0, NAN, 3.0};
    const bool truth[4] = {false, false, true, true};
    for (int i = 0; i < 4; i++)
        for (int d = 0; d < N_DTYPES; d++) {
            nt_dtype dt = all_dtypes[d];
            if (!nt_dtype_is_floating(dt) && isnan(values[i])) continue;
            nt_tensor *t = NULL;
            bool b = !truth[i];
            EXPECT_OK(nt_full(0, NULL, nt_scalar_float(values[i]), dt, NULL, &t));
            EXPECT_OK(nt_is_nonzero(t, &b));
            EXPECT(b == truth[i]);
            nt_tensor_release(t);
        }
    int64_t two = 2, none = 0;
    nt_tensor *t2 = NULL, *t0 = NULL;
    bool b;
    EXPECT_OK(nt_zeros(1, &two, NT_FLOAT32, NULL, &t2));
    EXPECT_OK(nt_zeros(1, &none, NT_FLOAT32, NULL, &t0));
    EXPECT_ERR(nt_is_nonzero(t2, &b), NT_ERR_RUNTIME,
               "Boolean value of Tensor with more than one value is ambiguous");
    EXPECT_ERR(nt_is_nonzero(t0, &b), NT_ERR_RUNTIME,
               "Boolean value of Tensor with no values is ambiguous");
    EXPECT_ERR(nt_is_nonzero(NULL, &b), NT_ERR_TYPE, "must be Tensor");
    nt_tensor_release(t2);
    nt_tensor_release(t0);
}

/* full(size, value, out=) whose value does not fit out's dtype fails and returns nothing
 * (out's reference is given back, not leaked). */
static void test_full_out_that_cannot_hold_the_value(void) {
    int64_t zero = 0, size = 2;
    nt_tensor *out = NULL;
    EXPECT_OK(nt_empty(1, &zero, NT_INT32, NULL, &out));
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = NT_OP_FULL;
    c.args[0] = nt_arg_ints(1, &size);
    c.args[1] = nt_arg_scalar(nt_scalar_float(1e20));
    c.out[0] = out;
    EXPECT_ERR(nt_call_op(&c), NT_ERR_RUNTIME, "cannot be converted to type int");
    EXPECT(c.result[0] == NULL);
    nt_tensor_release(c.result[0]);
    nt_tensor_release(out);
}

int main(void) {
    NT_RUN(test_empty_has_shape_strides_dtype_and_names);
    NT_RUN(test_factories_reject_bad_arguments);
    NT_RUN(test_zeros_are_zero_in_every_dtype);
    NT_RUN(test_empty_shapes);
    NT_RUN(test_ones_in_every_dtype);
    NT_RUN(test_full_converts_the_value_like_pytorch);
    NT_RUN(test_like_takes_shape_names_and_dtype);
    NT_RUN(test_like_preserves_a_dense_layout);
    NT_RUN(test_arange_integers);
    NT_RUN(test_arange_floats_match_pytorch_bits);
    NT_RUN(test_arange_errors);
    NT_RUN(test_from_buffer_copies);
    NT_RUN(test_from_external_wraps_without_copy);
    NT_RUN(test_from_external_checks_the_extent);
    NT_RUN(test_from_external_extent_at_int64_max);
    NT_RUN(test_factories_through_nt_call_op);
    NT_RUN(test_is_nonzero);
    NT_RUN(test_full_out_that_cannot_hold_the_value);
    return nt_test_summary();
}
