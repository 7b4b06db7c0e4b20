/*
 * test_linalg.c — the matrix products from C: values against a plain reference (exact for
 * integers, close for floats) on contiguous, transposed, sliced and expanded operands (the
 * BLAS transpose-flag paths and the copies), bmm and matmul's rank combinations and batch
 * broadcasting, addmm/addmv with beta and alpha, in-place and out= forms, names (the spec's
 * examples, the duplicate rule, out= rules) and PyTorch 1.13's error texts. Also reports the
 * per-call time of an 8x8 named product.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tensor.h"
#include "nt_test.h"

/* ------------------------------------------------------------------ helpers */

/* A tensor of `dtype` filled with small pseudo-random integers (exact in every dtype). */
static nt_tensor *filled(nt_dtype dtype, int ndim, const int64_t *sizes, unsigned seed) {
    nt_tensor *t = NULL;
    EXPECT_OK(nt_empty(ndim, sizes, dtype, NULL, &t));
    int64_t n = nt_tensor_numel(t);
    char *p = nt_tensor_data(t);
    unsigned s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        int v = (int)((s >> 16) % 13) - 6;
        if (dtype == NT_UINT8) v += 6;
        switch (dtype) {
        case NT_FLOAT32:
            ((float *)p)[i] = (float)v;
            break;
        case NT_FLOAT64:
            ((double *)p)[i] = v;
            break;
        case NT_INT64:
            ((int64_t *)p)[i] = v;
            break;
        case NT_INT32:
            ((int32_t *)p)[i] = v;
            break;
        case NT_INT16:
            ((int16_t *)p)[i] = (int16_t)v;
            break;
        case NT_INT8:
            ((int8_t *)p)[i] = (int8_t)v;
            break;
        case NT_UINT8:
            ((uint8_t *)p)[i] = (uint8_t)v;
            break;
        case NT_BFLOAT16:
            ((nt_bfloat16 *)p)[i] = nt_f32_to_bf16((float)v);
            break;
        default:
            break;
        }
    }
    return t;
}

static nt_tensor *mat(nt_dtype dtype, int64_t r, int64_t c, unsigned seed) {
    int64_t s[2] = {r, c};
    return filled(dtype, 2, s, seed);
}

static double at2(const nt_tensor *t, int64_t i, int64_t j) {
    int64_t idx[2] = {i, j};
    double v = 0;
    EXPECT_OK(nt_get_double(t, idx, &v));
    return v;
}

/* `want` as the dtype holds it: integers wrap around as in PyTorch. */
static double wrap_to(nt_dtype dt, double want) {
    int64_t i = (int64_t)want;
    switch (dt) {
    case NT_UINT8:
        return (uint8_t)i;
    case NT_INT8:
        return (int8_t)i;
    case NT_INT16:
        return (int16_t)i;
    case NT_INT32:
        return (int32_t)i;
    default:
        return want;
    }
}

/* Expects r == beta*bias + alpha*(a @ b) (bias NULL: 0), computed here in double (integers
 * wrapped to r's dtype; bfloat16 within its rounding). */
static void expect_product(const nt_tensor *r, const nt_tensor *a, const nt_tensor *b,
                           const nt_tensor *bias, double beta, double alpha) {
    int64_t m = nt_tensor_sizes(a)[0], k = nt_tensor_sizes(a)[1], n = nt_tensor_sizes(b)[1];
    EXPECT(nt_tensor_ndim(r) == 2 && nt_tensor_sizes(r)[0] == m && nt_tensor_sizes(r)[1] == n);
    int bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double want = 0;
            for (int64_t l = 0; l < k; l++)
                want += at2(a, i, l) * at2(b, l, j);
            want *= alpha;
            if (bias) {
                int bd = nt_tensor_ndim(bias);
                int64_t idx[2] = {bd == 2 ? i : j, j};
                double bv = 0;
                if (bd == 2 && nt_tensor_sizes(bias)[0] == 1) idx[0] = 0;
                EXPECT_OK(nt_get_double(bias, bd == 2 ? idx : idx + 1, &bv));
                want += beta * bv;
            }
            nt_dtype dt = nt_tensor_dtype(r);
            double tol = dt == NT_BFLOAT16 ? 2e-2 * (1 + fabs(want)) : 1e-6 * (1 + fabs(want));
            if (fabs(at2(r, i, j) - wrap_to(dt, want)) > tol) bad++;
        }
    EXPECT(bad == 0);
}

/* ------------------------------------------------------------------ values */

static const nt_dtype DTYPES[] = {NT_UINT8, NT_INT8,     NT_INT16,   NT_INT32,
                                  NT_INT64, NT_BFLOAT16, NT_FLOAT32, NT_FLOAT64};

static void test_mm_layouts_every_dtype(void) {
    for (size_t d = 0; d < sizeof DTYPES / sizeof *DTYPES; d++) {
        nt_dtype dt = DTYPES[d];
        int64_t sizes[][3] = {{5, 7, 3}, {1, 9, 4}, {6, 1, 2}, {4, 5, 1}, {33, 20, 41}};
        for (int s = 0; s < 5; s++) {
            int64_t m = sizes[s][0], k = sizes[s][1], n = sizes[s][2];
            nt_tensor *a = mat(dt, m, k, 1), *at_base = mat(dt, k, m, 2), *at = NULL;
            nt_tensor *b = mat(dt, k, n, 3), *big = mat(dt, 2 * k, 3 * n, 4), *sl = NULL;
            nt_tensor *r = NULL;
            EXPECT_OK(nt_t(at_base, &at)); /* column-major: BLAS's transpose flag */
            int64_t st[2] = {2 * nt_tensor_strides(big)[0], 3};
            int64_t sz[2] = {k, n};
            EXPECT_OK(nt_as_strided(big, 2, sz, st, 1, &sl)); /* neither layout: a copy */
            const nt_tensor *lhs[2] = {a, at}, *rhs[2] = {b, sl};
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) {
                    EXPECT_OK(nt_mm(lhs[i], rhs[j], &r));
                    EXPECT(nt_tensor_dtype(r) == dt);
                    expect_product(r, lhs[i], rhs[j], NULL, 0, 1);
                    nt_tensor_release(r);
                }
            nt_tensor_release(a);
            nt_tensor_release(at_base);
            nt_tensor_release(at);
            nt_tensor_release(b);
            nt_tensor_release(big);
            nt_tensor_release(sl);
        }
    }
}

static void test_addmm_beta_alpha_and_inplace(void) {
    for (size_t d = 0; d < sizeof DTYPES / sizeof *DTYPES; d++) {
        nt_dtype dt = DTYPES[d];
        nt_tensor *a = mat(dt, 4, 6, 5), *b = mat(dt, 6, 3, 6), *bias = mat(dt, 4, 3, 7);
        int64_t rs[1] = {3};
        nt_tensor *row = filled(dt, 1, rs, 8), *r = NULL;
        EXPECT_OK(nt_addmm(bias, a, b, nt_scalar_int(2), nt_scalar_int(3), &r));
        expect_product(r, a, b, bias, 2, 3);
        nt_tensor_release(r);
        EXPECT_OK(nt_addmm(row, a, b, nt_scalar_int(1), nt_scalar_int(1), &r));
        nt_tensor_release(r);
        /* beta 0 ignores the bias entirely */
        EXPECT_OK(nt_addmm(bias, a, b, nt_scalar_int(0), nt_scalar_int(1), &r));
        expect_product(r, a, b, NULL, 0, 1);
        nt_tensor_release(r);
        /* in place keeps the object */
        nt_tensor *c = NULL;
        EXPECT_OK(nt_clone(bias, &c));
        EXPECT_OK(nt_addmm_(c, a, b, nt_scalar_int(1), nt_scalar_int(2)));
        expect_product(c, a, b, bias, 1, 2);
        nt_tensor_release(c);
        nt_tensor_release(a);
        nt_tensor_release(b);
        nt_tensor_release(bias);
        nt_tensor_release(row);
    }
    /* integer alpha truncates like PyTorch: 0.5 -> 0 */
    nt_tensor *a = mat(NT_INT64, 2, 3, 9), *b = mat(NT_INT64, 3, 2, 10),
              *c = mat(NT_INT64, 2, 2, 11);
    nt_tensor *r = NULL;
    EXPECT_OK(nt_addmm(c, a, b, nt_scalar_float(1.5), nt_scalar_float(0.5), &r));
    EXPECT(at2(r, 0, 0) == at2(c, 0, 0) && at2(r, 1, 1) == at2(c, 1, 1));
    nt_tensor_release(r);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(c);
}

static void test_integer_wraparound(void) {
    int64_t sa[2] = {1, 3}, sb[2] = {3, 1};
    nt_tensor *a = NULL, *b = NULL, *r = NULL;
    EXPECT_OK(nt_full(2, sa, nt_scalar_int(100), NT_INT8, NULL, &a));
    EXPECT_OK(nt_full(2, sb, nt_scalar_int(-3), NT_INT8, NULL, &b));
    EXPECT_OK(nt_mm(a, b, &r));
    EXPECT(at2(r, 0, 0) == 124); /* PyTorch: -900 wraps to 124 */
    nt_tensor_release(r);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

static void test_mv_dot_bmm(void) {
    nt_tensor *a = mat(NT_FLOAT32, 5, 4, 12), *v = NULL, *r = NULL,
              *col = mat(NT_FLOAT32, 4, 1, 13);
    int64_t vs[1] = {4};
    EXPECT_OK(nt_view(col, 1, vs, &v));
    EXPECT_OK(nt_mv(a, v, &r));
    for (int64_t i = 0; i < 5; i++) {
        double want = 0;
        for (int64_t l = 0; l < 4; l++)
            want += at2(a, i, l) * at2(col, l, 0);
        int64_t idx[1] = {i};
        double got;
        EXPECT_OK(nt_get_double(r, idx, &got));
        EXPECT_NEAR(got, want, 1e-5);
    }
    nt_tensor_release(r);
    /* dot of a row (contiguous) and a column view (stride 4) */
    nt_tensor *row = NULL, *colv = NULL;
    EXPECT_OK(nt_select(a, 0, 0, &row));
    EXPECT_OK(nt_select(a, 1, 1, &colv)); /* 5 elements, stride 4 */
    nt_tensor *row5 = NULL;
    EXPECT_OK(nt_narrow(colv, 0, 0, 4, &row5));
    EXPECT_OK(nt_dot(row, row5, &r));
    double want = 0;
    for (int64_t l = 0; l < 4; l++)
        want += at2(a, 0, l) * at2(a, l, 1);
    nt_scalar s;
    EXPECT_OK(nt_item(r, &s));
    EXPECT_NEAR(s.v.f, want, 1e-5);
    nt_tensor_release(r);
    /* bmm: each batch is an mm; small (PyTorch's loop) and large (a GEMM per batch) */
    int64_t bsz[][4] = {{3, 4, 5, 6}, {2, 20, 30, 10}};
    for (int c = 0; c < 2; c++) {
        int64_t s1[3] = {bsz[c][0], bsz[c][1], bsz[c][2]},
                s2[3] = {bsz[c][0], bsz[c][2], bsz[c][3]};
        nt_tensor *x = filled(NT_FLOAT64, 3, s1, 14), *y = filled(NT_INT64, 3, s2, 15), *yd = NULL;
        EXPECT_OK(nt_to_dtype(y, NT_FLOAT64, &yd));
        EXPECT_OK(nt_bmm(x, yd, &r));
        for (int64_t bi = 0; bi < bsz[c][0]; bi++) {
            nt_tensor *xb = NULL, *yb = NULL, *rb = NULL;
            EXPECT_OK(nt_select(x, 0, bi, &xb));
            EXPECT_OK(nt_select(yd, 0, bi, &yb));
            EXPECT_OK(nt_select(r, 0, bi, &rb));
            expect_product(rb, xb, yb, NULL, 0, 1);
            nt_tensor_release(xb);
            nt_tensor_release(yb);
            nt_tensor_release(rb);
        }
        nt_tensor_release(r);
        nt_tensor_release(x);
        nt_tensor_release(y);
        nt_tensor_release(yd);
    }
    nt_tensor_release(a);
    nt_tensor_release(col);
    nt_tensor_release(v);
    nt_tensor_release(row);
    nt_tensor_release(colv);
    nt_tensor_release(row5);
}

static void test_matmul_shapes(void) {
    struct {
        int na, nb;
        int64_t a[4], b[4];
        int nr;
        int64_t r[4];
    } cases[] = {
        {1, 1, {3}, {3}, 0, {0}},
        {2, 1, {2, 3}, {3}, 1, {2}},
        {1, 2, {3}, {3, 4}, 1, {4}},
        {3, 1, {5, 2, 3}, {3}, 2, {5, 2}},
        {1, 3, {3}, {5, 3, 4}, 2, {5, 4}},
        {3, 2, {5, 2, 3}, {3, 4}, 3, {5, 2, 4}},
        {2, 3, {2, 3}, {5, 3, 4}, 3, {5, 2, 4}},
        {4, 3, {6, 1, 2, 3}, {5, 3, 4}, 4, {6, 5, 2, 4}},
        {4, 4, {4, 1, 2, 3}, {1, 6, 3, 2}, 4, {4, 6, 2, 2}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        nt_tensor *a = filled(NT_FLOAT32, cases[c].na, cases[c].a, 16);
        nt_tensor *b = filled(NT_FLOAT32, cases[c].nb, cases[c].b, 17), *r = NULL;
        EXPECT_OK(nt_matmul(a, b, &r));
        if (r) {
            EXPECT(nt_tensor_ndim(r) == cases[c].nr);
            for (int i = 0; i < cases[c].nr && i < nt_tensor_ndim(r); i++)
                EXPECT(nt_tensor_sizes(r)[i] == cases[c].r[i]);
        }
        nt_tensor_release(r);
        nt_tensor_release(a);
        nt_tensor_release(b);
    }
    /* a broadcast batch: every batch of (6, 1, 2, 3) @ (5, 3, 4) equals the plain mm */
    int64_t sa[4] = {6, 1, 2, 3}, sb[3] = {5, 3, 4};
    nt_tensor *a = filled(NT_INT32, 4, sa, 18), *b = filled(NT_INT32, 3, sb, 19), *r = NULL;
    EXPECT_OK(nt_matmul(a, b, &r));
    nt_tensor *a3 = NULL, *a2 = NULL, *b2 = NULL, *r3 = NULL, *r2 = NULL;
    EXPECT_OK(nt_select(a, 0, 4, &a3));
    EXPECT_OK(nt_select(a3, 0, 0, &a2));
    EXPECT_OK(nt_select(b, 0, 3, &b2));
    EXPECT_OK(nt_select(r, 0, 4, &r3));
    EXPECT_OK(nt_select(r3, 0, 3, &r2));
    expect_product(r2, a2, b2, NULL, 0, 1);
    nt_tensor *list[] = {a, b, r, a3, a2, b2, r3, r2};
    for (int i = 0; i < 8; i++)
        nt_tensor_release(list[i]);
}

static void test_out_forms(void) {
    nt_tensor *a = mat(NT_FLOAT32, 3, 4, 20), *b = mat(NT_FLOAT32, 4, 2, 21), *o = NULL, *ot = NULL;
    int64_t s[2] = {3, 2}, st[2] = {2, 3};
    EXPECT_OK(nt_zeros(2, s, NT_FLOAT32, NULL, &o));
    EXPECT_OK(nt_mm_out(o, a, b));
    expect_product(o, a, b, NULL, 0, 1);
    nt_tensor *base = NULL;
    EXPECT_OK(nt_zeros(2, st, NT_FLOAT32, NULL, &base));
    EXPECT_OK(nt_t(base, &ot)); /* a transposed out: written through a temporary */
    EXPECT_OK(nt_matmul_out(ot, a, b));
    expect_product(ot, a, b, NULL, 0, 1);
    nt_tensor *wrong = NULL;
    int64_t ws[2] = {3, 3};
    EXPECT_OK(nt_zeros(2, ws, NT_FLOAT32, NULL, &wrong));
    /* an out of another shape is resized, with PyTorch's warning */
    (void)nt_take_warning();
    EXPECT_OK(nt_mm_out(wrong, a, b));
    EXPECT(nt_tensor_ndim(wrong) == 2 && nt_tensor_sizes(wrong)[0] == 3 &&
           nt_tensor_sizes(wrong)[1] == 2);
    expect_product(wrong, a, b, NULL, 0, 1);
    const char *warning = nt_take_warning();
    EXPECT(warning && strstr(warning, "had shape [3, 3], which does not match the required "
                                      "output shape [3, 2]"));
    nt_tensor *od = NULL;
    EXPECT_OK(nt_zeros(2, s, NT_FLOAT64, NULL, &od));
    EXPECT_FAIL(nt_mm_out(od, a, b), NT_ERR_RUNTIME,
                "Expected out tensor to have dtype float, but got double instead");
    nt_tensor *list[] = {a, b, o, ot, base, wrong, od};
    for (int i = 0; i < 7; i++)
        nt_tensor_release(list[i]);
}

/* ------------------------------------------------------------------ names */

static void test_names(void) {
    int64_t s33[2] = {3, 3};
    nt_name nd[2] = {N("N"), N("D")}, io[2] = {N("in"), N("out")};
    nt_tensor *x = NULL, *y = NULL, *r = NULL;
    EXPECT_OK(nt_randn(2, s33, NT_FLOAT32, nd, &x));
    EXPECT_OK(nt_randn(2, s33, NT_FLOAT32, io, &y));
    EXPECT_OK(nt_mm(x, y, &r));
    EXPECT(nt_tensor_names(r) && nt_tensor_names(r)[0] == N("N") &&
           nt_tensor_names(r)[1] == N("out"));
    nt_tensor_release(r);
    /* matmul(x(A,B,C,D), y(B,E,F)) -> (A, B, C, F) */
    int64_t s4[4] = {3, 3, 3, 3}, s3[3] = {3, 3, 3};
    nt_name abcd[4] = {N("A"), N("B"), N("C"), N("D")}, bef[3] = {N("B"), N("E"), N("F")};
    nt_tensor *p = NULL, *q = NULL;
    EXPECT_OK(nt_randn(4, s4, NT_FLOAT32, abcd, &p));
    EXPECT_OK(nt_randn(3, s3, NT_FLOAT32, bef, &q));
    EXPECT_OK(nt_matmul(p, q, &r));
    const nt_name *rn = nt_tensor_names(r);
    EXPECT(rn && rn[0] == N("A") && rn[1] == N("B") && rn[2] == N("C") && rn[3] == N("F"));
    nt_tensor_release(r);
    /* the duplicate rule */
    nt_name ca[2] = {N("C"), N("A")}, ab[2] = {N("A"), N("B")};
    nt_tensor *u = NULL, *w = NULL;
    EXPECT_OK(nt_randn(2, s33, NT_FLOAT32, ab, &u));
    EXPECT_OK(nt_randn(2, s33, NT_FLOAT32, ca, &w));
    EXPECT_FAIL(nt_mm(u, w, &r), NT_ERR_RUNTIME,
                "Matrix multiplying Tensor['A', 'B'] with Tensor['C', 'A'] would produce output "
                "tensor with duplicate names ['A', 'A']. Please rename the input tensors with "
                "`Tensor.rename` to prevent this.");
    /* in place: an unnamed self takes the computed names */
    nt_tensor *c = NULL;
    EXPECT_OK(nt_zeros(2, s33, NT_FLOAT32, NULL, &c));
    EXPECT_OK(nt_addmm_(c, x, y, nt_scalar_int(1), nt_scalar_int(1)));
    EXPECT(nt_tensor_names(c) && nt_tensor_names(c)[1] == N("out"));
    /* an out= with other names fails */
    nt_tensor *o = NULL;
    EXPECT_OK(nt_zeros(2, s33, NT_FLOAT32, ab, &o));
    EXPECT_FAIL(nt_mm_out(o, x, y), NT_ERR_RUNTIME,
                "Name mismatch: specified out tensor with names ['A', 'B'] are not the same as "
                "the computed output names ['N', 'out']. Please rename the out tensor's dims "
                "with `Tensor.rename`.");
    /* dot's result is unnamed */
    nt_tensor *r0 = NULL, *r1 = NULL;
    EXPECT_OK(nt_select(x, 0, 0, &r0));
    EXPECT_OK(nt_select(y, 1, 0, &r1));
    EXPECT_OK(nt_dot(r0, r1, &r));
    EXPECT(nt_tensor_names(r) == NULL);
    nt_tensor_release(r);
    nt_tensor *list[] = {x, y, p, q, u, w, c, o, r0, r1};
    for (int i = 0; i < 10; i++)
        nt_tensor_release(list[i]);
}

/* ------------------------------------------------------------------ errors */

static void test_errors(void) {
    int64_t s23[2] = {2, 3}, s45[2] = {4, 5}, s3[1] = {3}, s34[2] = {3, 4}, s4[1] = {4};
    nt_tensor *a = NULL, *b = NULL, *v = NULL, *w = NULL, *d = NULL, *h = NULL, *h2 = NULL;
    nt_tensor *r = NULL, *v4 = NULL;
    EXPECT_OK(nt_ones(2, s23, NT_FLOAT32, NULL, &a));
    EXPECT_OK(nt_ones(2, s45, NT_FLOAT32, NULL, &b));
    EXPECT_OK(nt_ones(1, s3, NT_FLOAT32, NULL, &v));
    EXPECT_OK(nt_ones(1, s4, NT_FLOAT32, NULL, &v4));
    EXPECT_OK(nt_ones(2, s34, NT_FLOAT32, NULL, &w));
    EXPECT_OK(nt_ones(2, s34, NT_FLOAT64, NULL, &d));
    EXPECT_OK(nt_ones(2, s23, NT_FLOAT16, NULL, &h));
    EXPECT_OK(nt_ones(2, s34, NT_FLOAT16, NULL, &h2));
    EXPECT_FAIL(nt_mm(v, w, &r), NT_ERR_RUNTIME, "self must be a matrix");
    EXPECT_FAIL(nt_mm(a, v, &r), NT_ERR_RUNTIME, "mat2 must be a matrix");
    EXPECT_FAIL(nt_mm(a, b, &r), NT_ERR_RUNTIME,
                "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    EXPECT_FAIL(nt_mm(a, d, &r), NT_ERR_RUNTIME, "expected scalar type Float but found Double");
    EXPECT_FAIL(nt_mm(h, h2, &r), NT_ERR_RUNTIME, "\"addmm_impl_cpu_\" not implemented for 'Half'");
    EXPECT_FAIL(nt_mv(a, v4, &r), NT_ERR_RUNTIME, "size mismatch, got 2, 2x3,4");
    EXPECT_FAIL(nt_mv(v, v, &r), NT_ERR_RUNTIME, "vector + matrix @ vector expected, got 1, 1, 1");
    EXPECT_FAIL(nt_dot(a, a, &r), NT_ERR_RUNTIME, "1D tensors expected, but got 2D and 2D tensors");
    EXPECT_FAIL(nt_dot(v, v4, &r), NT_ERR_RUNTIME,
                "inconsistent tensor size, expected tensor [3] and src [4] to have the same "
                "number of elements, but got 3 and 4 elements respectively");
    EXPECT_FAIL(nt_bmm(a, w, &r), NT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    EXPECT_FAIL(nt_matmul(v, v4, &r), NT_ERR_RUNTIME,
                "inconsistent tensor size, expected tensor [3] and src [4] to have the same "
                "number of elements, but got 3 and 4 elements respectively");
    EXPECT_FAIL(nt_addmm(w, a, v, nt_scalar_int(1), nt_scalar_int(1), &r), NT_ERR_RUNTIME,
                "mat2 must be a matrix, got 1-D tensor");
    EXPECT_FAIL(nt_addmm(d, a, w, nt_scalar_int(1), nt_scalar_int(1), &r), NT_ERR_RUNTIME,
                "self and mat2 must have the same dtype");
    EXPECT_FAIL(nt_addmm_(v, a, w, nt_scalar_int(1), nt_scalar_int(1)), NT_ERR_RUNTIME,
                "Bad in-place call: input tensor size [3] and output tensor size [2, 4] should "
                "match");
    nt_tensor *scalar = NULL;
    EXPECT_OK(nt_full(0, NULL, nt_scalar_float(1.0), NT_FLOAT32, NULL, &scalar));
    EXPECT_FAIL(nt_matmul(scalar, v, &r), NT_ERR_RUNTIME,
                "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
    EXPECT_FAIL(nt_mm(NULL, a, &r), NT_ERR_TYPE, "mm(): argument 'self' must be Tensor, not NULL");
    nt_tensor *list[] = {a, b, v, w, d, h, h2, v4, scalar};
    for (int i = 0; i < 9; i++)
        nt_tensor_release(list[i]);
}

/* ------------------------------------------------------------------ cost */

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Prints the per-call time of an 8x8 named matmul (a report, not an assertion: the
 * machine is shared). */
/* ------------------------------------------------------------------ pooling, distances */

static void test_max_pool_and_distances(void) {
    /* a 1 x 1 x 4 x 4 plane of 0..15: 2x2 windows take their bottom-right element */
    int64_t s4[4] = {1, 1, 4, 4};
    nt_tensor *x = NULL, *v = NULL, *ix = NULL, *d = NULL;
    EXPECT_OK(nt_arange(nt_scalar_int(0), nt_scalar_int(16), nt_scalar_int(1), NT_FLOAT32, &x));
    nt_tensor *x4 = NULL;
    EXPECT_OK(nt_reshape(x, 4, s4, &x4));
    int64_t k[1] = {2};
    EXPECT_OK(nt_max_pool(2, x4, 1, k, 0, NULL, 0, NULL, 0, NULL, false, &v, &ix));
    EXPECT(nt_tensor_ndim(v) == 4 && nt_tensor_sizes(v)[2] == 2 && nt_tensor_sizes(v)[3] == 2);
    const float *pv = nt_tensor_data(v);
    const int64_t *pi = nt_tensor_data(ix);
    EXPECT(pv[0] == 5 && pv[1] == 7 && pv[2] == 13 && pv[3] == 15);
    EXPECT(pi[0] == 5 && pi[1] == 7 && pi[2] == 13 && pi[3] == 15);
    nt_tensor_release(v);
    nt_tensor_release(ix);
    v = NULL;
    EXPECT_FAIL(nt_max_pool(2, x, 1, k, 0, NULL, 0, NULL, 0, NULL, false, &v, NULL), NT_ERR_RUNTIME,
                "non-empty 3D or 4D (batch mode) tensor expected for input");
    int64_t k3[3] = {2, 2, 2};
    EXPECT_FAIL(nt_max_pool(1, x4, 3, k3, 0, NULL, 0, NULL, 0, NULL, false, &v, NULL),
                NT_ERR_RUNTIME,
                "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
                "for input, but got:[1, 1, 4, 4]");
    /* distances of the rows of a 4 x 4 matrix of 0..15: rows i and j are 4|i-j| apart per
     * entry, so 8|i-j| apart in the 2-norm and 16|i-j| in the 1-norm */
    nt_tensor *m = NULL;
    int64_t s2[2] = {4, 4};
    EXPECT_OK(nt_reshape(x, 2, s2, &m));
    EXPECT_OK(nt_cdist(m, m, 2.0, -1, &d));
    const float *pd = nt_tensor_data(d);
    EXPECT(nt_tensor_ndim(d) == 2 && pd[1] == 8 && pd[3] == 24 && pd[4] == 8 && pd[0] == 0);
    nt_tensor_release(d);
    EXPECT_OK(nt_pdist(m, 1.0, &d));
    pd = nt_tensor_data(d);
    EXPECT(nt_tensor_numel(d) == 6 && pd[0] == 16 && pd[2] == 48 && pd[5] == 16);
    nt_tensor_release(d);
    d = NULL;
    EXPECT_FAIL(nt_cdist(m, m, -1.0, -1, &d), NT_ERR_RUNTIME,
                "cdist only supports non-negative p values");
    EXPECT_FAIL(nt_pdist(x, 2.0, &d), NT_ERR_RUNTIME, "pdist only supports 2D tensors, got: 1D");
    nt_tensor_release(m);
    nt_tensor_release(x4);
    nt_tensor_release(x);
}

static void test_report_small_matmul_cost(void) {
    int64_t s[2] = {8, 8};
    nt_name nc[2] = {N("N"), N("C")}, co[2] = {N("C"), N("O")};
    nt_tensor *x = NULL, *y = NULL, *r = NULL;
    EXPECT_OK(nt_randn(2, s, NT_FLOAT32, nc, &x));
    EXPECT_OK(nt_randn(2, s, NT_FLOAT32, co, &y));
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        int n = 20000;
        double t0 = now_ns();
        for (int i = 0; i < n; i++) {
            nt_matmul(x, y, &r);
            nt_tensor_release(r);
        }
        double per = (now_ns() - t0) / n;
        if (per < best) best = per;
    }
    printf("8x8 named matmul from C: %.0f ns per call (best of 5)\n", best);
    nt_tensor_release(x);
    nt_tensor_release(y);
}

int main(void) {
    NT_RUN(test_mm_layouts_every_dtype);
    NT_RUN(test_addmm_beta_alpha_and_inplace);
    NT_RUN(test_integer_wraparound);
    NT_RUN(test_mv_dot_bmm);
    NT_RUN(test_matmul_shapes);
    NT_RUN(test_out_forms);
    NT_RUN(test_names);
    NT_RUN(test_errors);
    NT_RUN(test_max_pool_and_distances);
    NT_RUN(test_report_small_matmul_cost);
    return nt_test_summary();
}
