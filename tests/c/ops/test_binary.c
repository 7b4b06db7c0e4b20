/*
 * test_binary.c — the kernel-stamping framework (loops.h) and the pointwise binary family:
 * stamped loops against a plain reference on every path (contiguous, in place, scalar on
 * either side, strided), PyTorch's result_type, a few ops with values, names and errors
 * checked against PyTorch 1.13, and a per-call timing of a small named add.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tensor.h"
#include "kernels/loops.h"
#include "nt_test.h"

/* ------------------------------------------------------------------ the framework */

static inline float k_axpb(float a, float b) {
    return 2.0f * a - b;
}
typedef struct {
    float s;
} scale_params;
static inline float k_scaled(float a, float b, const scale_params *p) {
    return p->s * a + b;
}
static inline float k_half_sum(float a, float b) {
    return a + b;
}
static inline int64_t k_sel(bool c, int64_t a, int64_t b) {
    return c ? a : b;
}

NT_LOOP_BINARY(t_axpb, float, float, float, NT_LD_ID, NT_LD_ID, NT_ST_ID, k_axpb)
NT_LOOP_BINARY_P(t_scaled, float, float, float, NT_LD_ID, NT_LD_ID, NT_ST_ID, k_scaled,
                 scale_params)
NT_LOOP_BINARY(t_hsum, nt_float16, nt_float16, nt_float16, NT_LD_F16, NT_LD_F16, NT_ST_F16,
               k_half_sum)
NT_LOOP_UNARY(t_neg, double, double, NT_LD_ID, NT_ST_ID, -)
NT_LOOP_TERNARY(t_sel, int64_t, bool, int64_t, int64_t, NT_LD_ID, NT_LD_ID, NT_LD_ID, NT_ST_ID,
                k_sel)

static void test_loops_every_path(void) {
    enum { LEN = 37, M = 3 };
    float a[M * LEN * 2], b[M * LEN * 2], o[M * LEN * 2];
    for (int i = 0; i < M * LEN * 2; i++) {
        a[i] = (float)(i % 11) - 3.5f;
        b[i] = (float)(i % 7) * 0.25f;
    }
    /* contiguous rows, outer stride = row */
    char *d[3] = {(char *)o, (char *)a, (char *)b};
    int64_t st[6] = {4, 4, 4, 4 * LEN, 4 * LEN, 4 * LEN};
    t_axpb(d, st, LEN, M, NULL);
    for (int i = 0; i < LEN * M; i++)
        EXPECT(o[i] == 2.0f * a[i] - b[i]);
    /* b a broadcast scalar along rows (stride 0) */
    int64_t st_b0[6] = {4, 4, 0, 4 * LEN, 4 * LEN, 4};
    t_axpb(d, st_b0, LEN, M, NULL);
    for (int j = 0; j < M; j++)
        for (int i = 0; i < LEN; i++)
            EXPECT(o[j * LEN + i] == 2.0f * a[j * LEN + i] - b[j]);
    /* strided: every second element */
    int64_t st_s[6] = {4, 8, 8, 4 * LEN, 8 * LEN, 8 * LEN};
    t_axpb(d, st_s, LEN, M, NULL);
    for (int j = 0; j < M; j++)
        for (int i = 0; i < LEN; i++)
            EXPECT(o[j * LEN + i] == 2.0f * a[2 * (j * LEN + i)] - b[2 * (j * LEN + i)]);
    /* in place (out is a) */
    float ip[LEN];
    for (int i = 0; i < LEN; i++)
        ip[i] = a[i];
    char *di[3] = {(char *)ip, (char *)ip, (char *)b};
    t_axpb(di, st, LEN, 1, NULL);
    for (int i = 0; i < LEN; i++)
        EXPECT(ip[i] == 2.0f * a[i] - b[i]);
    /* scalar operands through ctx, and parameters */
    float s = 1.5f;
    scale_params p = {3.0f};
    nt_binary_ctx c = {&s, &p};
    int64_t st2[4] = {4, 4, 4 * LEN, 4 * LEN};
    t_scaled_s(d, st2, LEN, 1, &c);
    for (int i = 0; i < LEN; i++)
        EXPECT(o[i] == 3.0f * a[i] + 1.5f);
    t_scaled_r(d, st2, LEN, 1, &c);
    for (int i = 0; i < LEN; i++)
        EXPECT(o[i] == 3.0f * 1.5f + a[i]);
    t_axpb_s(d, st2, LEN, 1, &c); /* params NULL-free loop ignores them */
    for (int i = 0; i < LEN; i++)
        EXPECT(o[i] == 2.0f * a[i] - 1.5f);
    /* float16 computes in float and rounds once: 1 + 2^-11 rounds to 1 (ties to even) */
    nt_float16 h1 = nt_f32_to_f16(1.0f), h2 = nt_f32_to_f16(0x1p-11f), ho;
    char *dh[3] = {(char *)&ho, (char *)&h1, (char *)&h2};
    int64_t sth[6] = {2, 2, 2, 0, 0, 0};
    t_hsum(dh, sth, 1, 1, NULL);
    EXPECT(nt_f16_to_f32(ho) == 1.0f);
    /* unary with an operator as the kernel, ternary */
    double x[4] = {1, -2, 3, -4}, y[4];
    char *du[2] = {(char *)y, (char *)x};
    int64_t stu[4] = {8, 8, 32, 32};
    t_neg(du, stu, 4, 1, NULL);
    EXPECT(y[0] == -1 && y[1] == 2 && y[3] == 4);
    bool cond[3] = {true, false, true};
    int64_t ta[3] = {1, 2, 3}, tb[3] = {10, 20, 30}, to[3];
    char *dt[4] = {(char *)to, (char *)cond, (char *)ta, (char *)tb};
    int64_t stt[8] = {8, 1, 8, 8, 0, 0, 0, 0};
    t_sel(dt, stt, 3, 1, NULL);
    EXPECT(to[0] == 1 && to[1] == 20 && to[2] == 3);
}

/* ------------------------------------------------------------------ result_type */

static nt_tensor *make(nt_dtype dtype, int ndim) {
    int64_t sizes[2] = {2, 3};
    nt_tensor *t = NULL;
    EXPECT_OK(nt_zeros(ndim, sizes, dtype, NULL, &t));
    return t;
}

static void test_result_type(void) {
    nt_tensor *i32 = make(NT_INT32, 2), *u8 = make(NT_UINT8, 2), *i64_0 = make(NT_INT64, 0),
              *f64_0 = make(NT_FLOAT64, 0), *b = make(NT_BOOL, 2), *f16 = make(NT_FLOAT16, 2);
    nt_scalar f = nt_scalar_float(2.5), i = nt_scalar_int(2);
    EXPECT(nt_result_type(1, &i32, 1, &f) == NT_FLOAT32);
    nt_tensor *pair[2] = {u8, i64_0};
    EXPECT(nt_result_type(2, pair, 0, NULL) == NT_UINT8);
    nt_tensor *pair2[2] = {i32, f64_0};
    EXPECT(nt_result_type(2, pair2, 0, NULL) == NT_FLOAT64);
    EXPECT(nt_result_type(1, &b, 1, &i) == NT_INT64);
    nt_tensor *pair3[2] = {f16, f64_0};
    EXPECT(nt_result_type(2, pair3, 0, NULL) == NT_FLOAT16);
    EXPECT(nt_result_type(1, &f64_0, 1, &i) == NT_FLOAT64);
    EXPECT(nt_result_type(0, NULL, 1, &f) == NT_FLOAT32);
    EXPECT(!nt_can_cast(NT_FLOAT32, NT_INT64) && nt_can_cast(NT_INT64, NT_FLOAT16) &&
           !nt_can_cast(NT_INT8, NT_BOOL) && nt_can_cast(NT_BOOL, NT_UINT8));
    EXPECT(strcmp(nt_dtype_torch_name(NT_INT64), "Long") == 0);
    nt_tensor_release(i32);
    nt_tensor_release(u8);
    nt_tensor_release(i64_0);
    nt_tensor_release(f64_0);
    nt_tensor_release(b);
    nt_tensor_release(f16);
}

/* ------------------------------------------------------------------ ops */

static nt_tensor *from(nt_dtype dtype, int ndim, const int64_t *sizes, const void *data,
                       const char *n0, const char *n1) {
    nt_name names[2] = {0, 0};
    if (n0) EXPECT_OK(nt_name_intern(n0, &names[0]));
    if (n1) EXPECT_OK(nt_name_intern(n1, &names[1]));
    nt_tensor *t = NULL;
    EXPECT_OK(nt_from_buffer(data, dtype, ndim, sizes, (n0 || n1) ? names : NULL, &t));
    return t;
}

static void test_ops_values_from_torch(void) {
    /* torch.tensor([[5, -5, 7], [-7, 0, 9]]) with [2, 3, -2]: //, %, trunc, pow */
    int64_t s23[2] = {2, 3}, s3[1] = {3};
    int64_t av[6] = {5, -5, 7, -7, 0, 9}, bv[3] = {2, 3, -2};
    nt_tensor *a = from(NT_INT64, 2, s23, av, NULL, NULL),
              *b = from(NT_INT64, 1, s3, bv, NULL, NULL);
    nt_tensor *r = NULL;
    EXPECT_OK(nt_binary(NT_BINARY_DIV_FLOOR, a, b, &r));
    const int64_t floor_want[6] = {2, -2, -4, -4, 0, -5};
    for (int k = 0; k < 6; k++)
        EXPECT(((int64_t *)nt_tensor_data(r))[k] == floor_want[k]);
    nt_tensor_release(r);
    EXPECT_OK(nt_binary(NT_BINARY_REMAINDER, a, b, &r));
    const int64_t rem_want[6] = {1, 1, -1, 1, 0, -1};
    for (int k = 0; k < 6; k++)
        EXPECT(((int64_t *)nt_tensor_data(r))[k] == rem_want[k]);
    nt_tensor_release(r);
    EXPECT_OK(nt_binary(NT_BINARY_DIV, a, b, &r)); /* true division: float32 */
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT32);
    EXPECT(((float *)nt_tensor_data(r))[1] == (float)-5 / 3);
    nt_tensor_release(r);
    EXPECT_OK(nt_binary_rscalar(NT_BINARY_SUB, nt_scalar_float(2.5), a, &r)); /* 2.5 - a */
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT32 && ((float *)nt_tensor_data(r))[0] == -2.5f);
    nt_tensor_release(r);
    EXPECT_OK(nt_binary_scalar(NT_BINARY_LT, a, nt_scalar_float(0.5), &r));
    EXPECT(nt_tensor_dtype(r) == NT_BOOL && ((bool *)nt_tensor_data(r))[1] &&
           ((bool *)nt_tensor_data(r))[4] && !((bool *)nt_tensor_data(r))[0]);
    nt_tensor_release(r);
    /* errors with PyTorch's texts */
    EXPECT_FAIL(nt_binary_scalar(NT_BINARY_DIV_FLOOR, a, nt_scalar_int(0), &r), NT_ERR_RUNTIME,
                "ZeroDivisionError");
    EXPECT_FAIL(nt_binary_scalar(NT_BINARY_POW, a, nt_scalar_int(-1), &r), NT_ERR_RUNTIME,
                "Integers to negative integer powers are not allowed.");
    EXPECT_FAIL(nt_binary_scalar_(NT_BINARY_ADD, a, nt_scalar_float(1.5)), NT_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Long");
    nt_tensor *f = make(NT_FLOAT32, 2), *bo = make(NT_BOOL, 2);
    EXPECT_FAIL(nt_binary(NT_BINARY_BITWISE_AND, f, f, &r), NT_ERR_RUNTIME,
                "\"bitwise_and_cpu\" not implemented for 'Float'");
    EXPECT_FAIL(nt_binary(NT_BINARY_SUB, bo, bo, &r), NT_ERR_RUNTIME,
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                "`^` or `logical_xor()` operator instead.");
    nt_scalar alpha = nt_scalar_float(0.5);
    EXPECT_FAIL(nt_binary_ex(NT_BINARY_ADD, nt_operand_tensor(a), nt_operand_tensor(a), &alpha,
                             NULL, false, &r),
                NT_ERR_RUNTIME,
                "For integral input tensors, argument alpha must not be a floating point number.");
    int64_t s4[1] = {4};
    nt_tensor *w = NULL;
    EXPECT_OK(nt_zeros(1, s4, NT_FLOAT32, NULL, &w));
    EXPECT_FAIL(nt_binary(NT_BINARY_ADD, f, w, &r), NT_ERR_RUNTIME,
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                "dimension 1");
    nt_tensor_release(w);
    nt_tensor_release(f);
    nt_tensor_release(bo);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

static void test_names(void) {
    int64_t s23[2] = {2, 3}, s3[1] = {3};
    float av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {10, 20, 30};
    nt_tensor *a = from(NT_FLOAT32, 2, s23, av, "N", "C"),
              *b = from(NT_FLOAT32, 1, s3, bv, "C", NULL),
              *bad = from(NT_FLOAT32, 1, s3, bv, "N", NULL), *r = NULL;
    EXPECT_OK(nt_binary(NT_BINARY_ADD, a, b, &r));
    EXPECT(strcmp(nt_name_str(nt_tensor_names(r)[0]), "N") == 0 &&
           strcmp(nt_name_str(nt_tensor_names(r)[1]), "C") == 0);
    EXPECT(((float *)nt_tensor_data(r))[5] == 36.0f);
    nt_tensor_release(r);
    EXPECT_FAIL(nt_binary(NT_BINARY_MUL, a, bad, &r), NT_ERR_RUNTIME,
                "Error when attempting to broadcast dims ['N', 'C'] and dims ['N']: dim 'C' and "
                "dim 'N' are at the same position from the right but do not match.");
    /* in place: an unnamed self takes the unified names */
    nt_tensor *u = NULL;
    EXPECT_OK(nt_zeros(2, s23, NT_FLOAT32, NULL, &u));
    EXPECT_OK(nt_binary_(NT_BINARY_ADD, u, a));
    EXPECT(nt_tensor_has_names(u) && ((float *)nt_tensor_data(u))[4] == 5.0f);
    nt_tensor_release(u);
    /* where keeps working on named tensors and unifies its three inputs */
    bool cv[3] = {true, false, true};
    nt_tensor *c = from(NT_BOOL, 1, s3, cv, "C", NULL);
    EXPECT_OK(nt_where(c, nt_operand_tensor(a), nt_operand_scalar(nt_scalar_float(-1)), NULL, &r));
    EXPECT(nt_tensor_has_names(r) && ((float *)nt_tensor_data(r))[1] == -1.0f &&
           ((float *)nt_tensor_data(r))[2] == 3.0f);
    nt_tensor_release(r);
    /* clamp with scalar bounds keeps names */
    nt_operand lo = nt_operand_scalar(nt_scalar_int(2)), hi = nt_operand_scalar(nt_scalar_int(4));
    EXPECT_OK(nt_clamp(a, &lo, &hi, NULL, false, &r));
    EXPECT(nt_tensor_has_names(r) && ((float *)nt_tensor_data(r))[0] == 2.0f &&
           ((float *)nt_tensor_data(r))[5] == 4.0f);
    nt_tensor_release(r);
    EXPECT_FAIL(nt_clamp(a, NULL, NULL, NULL, false, &r), NT_ERR_RUNTIME,
                "torch.clamp: At least one of 'min' or 'max' must not be None");
    bool all = false;
    EXPECT_OK(nt_allclose(a, a, 1e-5, 1e-8, false, &all));
    EXPECT(all);
    nt_tensor_release(c);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(bad);
}

/* Integer extremes wrap without undefined behaviour (run under UBSan in the sanitizer
 * build): overflowing add/sub/mul/pow/alpha, min / -1, min % -1, floor division. */
static void test_integer_extremes_wrap(void) {
    int64_t s4[1] = {4};
    int64_t av[4] = {INT64_MIN, INT64_MAX, -7, 3}, bv[4] = {-1, -1, 2, 62};
    int32_t cv[4] = {INT32_MIN, INT32_MAX, -7, 31}, dv[4] = {-1, 2, -2, 3};
    nt_tensor *a = from(NT_INT64, 1, s4, av, NULL, NULL),
              *b = from(NT_INT64, 1, s4, bv, NULL, NULL);
    nt_tensor *c = from(NT_INT32, 1, s4, cv, NULL, NULL),
              *d = from(NT_INT32, 1, s4, dv, NULL, NULL);
    static const nt_binary_op ops[] = {
        NT_BINARY_ADD,       NT_BINARY_SUB,       NT_BINARY_MUL, NT_BINARY_DIV_TRUNC,
        NT_BINARY_DIV_FLOOR, NT_BINARY_REMAINDER, NT_BINARY_POW};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        nt_tensor *r = NULL;
        EXPECT_OK(nt_binary(ops[k], a, b, &r));
        nt_tensor_release(r);
        EXPECT_OK(nt_binary(ops[k], c, d, &r));
        nt_tensor_release(r);
    }
    nt_tensor *r = NULL;
    EXPECT_OK(nt_binary(NT_BINARY_DIV_TRUNC, a, b, &r));
    EXPECT(((int64_t *)nt_tensor_data(r))[0] == INT64_MIN &&
           ((int64_t *)nt_tensor_data(r))[1] == -INT64_MAX);
    nt_tensor_release(r);
    EXPECT_OK(nt_binary(NT_BINARY_ADD, a, b, &r)); /* INT64_MIN + -1 wraps to INT64_MAX */
    EXPECT(((int64_t *)nt_tensor_data(r))[0] == INT64_MAX);
    nt_tensor_release(r);
    EXPECT_OK(nt_binary(NT_BINARY_POW, c, d, &r)); /* 31**3 = 29791; INT32_MAX**2 wraps to 1 */
    EXPECT(((int32_t *)nt_tensor_data(r))[3] == 29791 && ((int32_t *)nt_tensor_data(r))[1] == 1);
    nt_tensor_release(r);
    nt_scalar alpha = nt_scalar_int(INT64_MAX);
    EXPECT_OK(nt_binary_ex(NT_BINARY_ADD, nt_operand_tensor(a), nt_operand_tensor(b), &alpha, NULL,
                           false, &r));
    nt_tensor_release(r);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(c);
    nt_tensor_release(d);
}

/* The ops through the generic entry (nt_call_op), as a binding calls them: div's rounding
 * modes, alpha, clamp_min/clamp_max, out= resized as PyTorch does. */
static void test_calls_from_rows(void) {
    int64_t s4[1] = {4};
    float av[4] = {7, -7, 5.5f, -0.5f}, bv[4] = {2, 2, -2, 4};
    nt_tensor *a = from(NT_FLOAT32, 1, s4, av, NULL, NULL),
              *b = from(NT_FLOAT32, 1, s4, bv, NULL, NULL);
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = NT_OP_DIV;
    c.args[0] = nt_arg_tensor(a);
    c.args[1] = nt_arg_tensor(b);
    c.args[2] = nt_arg_str("floor");
    EXPECT_OK(nt_call_op(&c));
    const float floor_want[4] = {3, -4, -3, -1};
    for (int k = 0; k < 4; k++)
        EXPECT(((float *)nt_tensor_data(c.result[0]))[k] == floor_want[k]);
    nt_tensor_release(c.result[0]);
    c.args[2] = nt_arg_str("trunc");
    EXPECT_OK(nt_call_op(&c));
    EXPECT(((float *)nt_tensor_data(c.result[0]))[1] == -3.0f);
    nt_tensor_release(c.result[0]);
    c.args[2] = nt_arg_str("round");
    EXPECT_FAIL(nt_call_op(&c), NT_ERR_RUNTIME,
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                "'round'");
    /* add with alpha: a + 2 * b */
    c.op = NT_OP_ADD;
    c.args[2] = nt_arg_scalar(nt_scalar_int(2));
    EXPECT_OK(nt_call_op(&c));
    EXPECT(((float *)nt_tensor_data(c.result[0]))[2] == 1.5f);
    nt_tensor_release(c.result[0]);
    /* clamp_max(a, 1): one bound */
    c.op = NT_OP_CLAMP_MAX;
    c.args[1] = nt_arg_scalar(nt_scalar_int(1));
    c.args[2] = nt_arg_none();
    EXPECT_OK(nt_call_op(&c));
    EXPECT(((float *)nt_tensor_data(c.result[0]))[0] == 1.0f &&
           ((float *)nt_tensor_data(c.result[0]))[1] == -7.0f);
    nt_tensor_release(c.result[0]);
    /* out= of another shape is resized (an empty one without a warning) */
    nt_tensor *out = NULL;
    int64_t s0[1] = {0};
    EXPECT_OK(nt_zeros(1, s0, NT_FLOAT32, NULL, &out));
    EXPECT_OK(nt_binary_out(NT_BINARY_MUL, a, b, out));
    EXPECT(nt_tensor_numel(out) == 4 && ((float *)nt_tensor_data(out))[3] == -2.0f);
    nt_tensor_release(out);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

/* The ops added from the op table, with values, names and errors from PyTorch 1.13. */
static void test_new_ops(void) {
    int64_t s4[1] = {4};
    float av[4] = {-1, 0, 1, NAN}, one[4] = {1, 1, 1, 1}, two[4] = {2, 2, 2, 2};
    nt_tensor *a = from(NT_FLOAT32, 1, s4, av, "N", NULL),
              *o = from(NT_FLOAT32, 1, s4, one, NULL, NULL),
              *t = from(NT_FLOAT32, 1, s4, two, NULL, NULL), *r = NULL;
    /* torch.threshold(a, 0., 5.): [5, 5, 1, nan], names kept */
    EXPECT_OK(nt_threshold(a, nt_scalar_float(0), nt_scalar_float(5), NULL, false, &r));
    EXPECT(((float *)nt_tensor_data(r))[0] == 5.0f && ((float *)nt_tensor_data(r))[2] == 1.0f &&
           isnan(((float *)nt_tensor_data(r))[3]) && nt_tensor_has_names(r));
    nt_tensor_release(r);
    nt_tensor *bo = make(NT_BOOL, 2);
    EXPECT_FAIL(nt_threshold(bo, nt_scalar_int(0), nt_scalar_int(1), NULL, false, &r),
                NT_ERR_RUNTIME, "\"threshold_cpu\" not implemented for 'Bool'");
    /* torch.addcmul(1, 2, 2, value=0.5) = 3; addcdiv(1, 2, 2, value=0.5) = 1.5 */
    EXPECT_OK(nt_addcmul(o, t, t, nt_scalar_float(0.5), NULL, false, &r));
    EXPECT(((float *)nt_tensor_data(r))[0] == 3.0f);
    nt_tensor_release(r);
    EXPECT_OK(nt_addcdiv(o, t, t, nt_scalar_float(0.5), NULL, false, &r));
    EXPECT(((float *)nt_tensor_data(r))[0] == 1.5f);
    nt_tensor_release(r);
    nt_tensor *i = make(NT_INT64, 2);
    EXPECT_ERR(nt_addcdiv(i, i, i, nt_scalar_int(1), NULL, false, &r), NT_ERR_RUNTIME,
               "Integer division with addcdiv is no longer supported");
    /* equal: values, and names must match */
    bool eq = true;
    EXPECT_OK(nt_equal(o, o, &eq));
    EXPECT(eq);
    EXPECT_OK(nt_equal(o, t, &eq));
    EXPECT(!eq);
    EXPECT_OK(nt_equal(a, a, &eq)); /* NaN */
    EXPECT(!eq);
    EXPECT_OK(nt_equal(o, a, &eq)); /* names differ */
    EXPECT(!eq);
    /* isnan, lgamma, polygamma */
    EXPECT_OK(nt_unary(NT_OP_ISNAN, a, &r));
    EXPECT(nt_tensor_dtype(r) == NT_BOOL && ((bool *)nt_tensor_data(r))[3] &&
           !((bool *)nt_tensor_data(r))[0] && nt_tensor_has_names(r));
    nt_tensor_release(r);
    EXPECT_OK(nt_unary(NT_OP_LGAMMA, t, &r)); /* lgamma(2) = 0 */
    EXPECT(((float *)nt_tensor_data(r))[0] == 0.0f);
    nt_tensor_release(r);
    EXPECT_OK(nt_polygamma(1, o, NULL, false, &r)); /* trigamma(1) = pi^2 / 6 */
    EXPECT_NEAR(((float *)nt_tensor_data(r))[0], 1.6449341, 1e-6);
    nt_tensor_release(r);
    EXPECT_FAIL(nt_polygamma(-1, o, NULL, false, &r), NT_ERR_RUNTIME,
                "polygamma(n, x) does not support negative n.");
    nt_tensor_release(i);
    nt_tensor_release(bo);
    nt_tensor_release(a);
    nt_tensor_release(o);
    nt_tensor_release(t);
}

/* x + y on 8x8 named tensors: the per-call cost from C (printed; the target is < 150 ns). */
static void test_report_small_add_cost(void) {
    int64_t s[2] = {8, 8};
    nt_name names[2];
    EXPECT_OK(nt_name_intern("N", &names[0]));
    EXPECT_OK(nt_name_intern("C", &names[1]));
    nt_tensor *x = NULL, *y = NULL;
    EXPECT_OK(nt_ones(2, s, NT_FLOAT32, names, &x));
    EXPECT_OK(nt_ones(2, s, NT_FLOAT32, names, &y));
    enum { REPS = 200000 };
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < REPS; i++) {
            nt_tensor *r = NULL;
            nt_add(x, y, &r);
            nt_tensor_release(r);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns =
            ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / REPS;
        if (ns < best) best = ns;
    }
    printf("  x + y on 8x8 named float32: %.0f ns per call (best of 5)\n", best);
    nt_tensor_release(x);
    nt_tensor_release(y);
}

int main(void) {
    NT_RUN(test_loops_every_path);
    NT_RUN(test_result_type);
    NT_RUN(test_ops_values_from_torch);
    NT_RUN(test_names);
    NT_RUN(test_integer_extremes_wrap);
    NT_RUN(test_calls_from_rows);
    NT_RUN(test_new_ops);
    NT_RUN(test_report_small_add_cost);
    return nt_test_summary();
}
