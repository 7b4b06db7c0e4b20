/*
 * linalg_mv.c — mv, addmv (in place, out=) and dot.
 */
#include <inttypes.h>

#include "core/status.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "linalg.h"
#include "names/infer.h"

/* ------------------------------------------------------------------ addmv family */

/* Fills dst (m) with beta*bias + alpha*(mat @ vec): PyTorch's addmv_out_cpu impl. */
static nt_status addmv_compute(nt_tensor *dst, const nt_tensor *bias, const nt_tensor *mat_,
                               const nt_tensor *vec, nt_scalar beta, nt_scalar alpha) {
    nt_gemm_scalars s;
    if (mat_->numel == 0) {
        NT_TRY(nt_la_make_scalars(dst->dtype, beta, alpha, &s));
        if (s.beta_zero) return nt_zero_(dst);
        if (bias && bias != dst) NT_TRY(nt_copy_values(dst, bias));
        nt_la_scale_into(dst, &s);
        return NT_OK;
    }
    if (dst->numel == 0) return NT_OK;
    NT_TRY(nt_la_check_dispatch("addmv_impl_cpu", mat_->dtype));
    NT_TRY(nt_la_check_same(mat_->dtype, vec->dtype));
    NT_TRY(nt_la_check_same(mat_->dtype, dst->dtype));
    NT_TRY(nt_la_make_scalars(dst->dtype, beta, alpha, &s));
    if (!s.beta_zero && bias && bias != dst) NT_TRY(nt_copy_values(dst, bias));
    nt_la_mat a = nt_la_mat_of(mat_, 0, 1);
    int64_t m = a.rows, n = a.cols;
    if (dst->dtype == NT_BFLOAT16) {
        /* y (m x 1) = beta*y + alpha * A (m x n) @ x (n x 1), accumulated in float32 */
        nt_la_mat x = {nt_tensor_bytes(vec), n, 1, vec->strides[0], 1, 0, 0};
        nt_la_mat y = {nt_tensor_bytes(dst), m, 1, dst->strides[0], 1, 0, 0};
        NT_TRY(nt_la_gemm(NT_BFLOAT16, 1, &y, &a, &x, &s, false));
        return NT_OK;
    }
    /* PyTorch's layouts: column-major -> gemv 'n', row-major -> 't', else a contiguous copy
     * ('t'). lda_cond(m, n, lda) = n == 1 || lda >= max(1, m). */
    bool col = a.rs == 1 && (n == 1 || a.cs >= nt_la_max1(m));
    bool row = !col && a.cs == 1 && (m == 1 || a.rs >= nt_la_max1(n));
    nt_tensor *copy = NULL;
    if (!col && !row) {
        NT_TRY(nt_contiguous((nt_tensor *)mat_, &copy));
        a = nt_la_mat_of(copy, 0, 1);
    }
    int64_t incx = vec->strides[0], incy = dst->strides[0];
    bool blas_ok = incx > 0 && incy > 0 && m <= INT32_MAX && n <= INT32_MAX && incx <= INT32_MAX &&
                   incy <= INT32_MAX && (col ? a.cs : a.rs) <= INT32_MAX;
    if (n == 1 && col) a.cs = m; /* gemv's `if (n == 1) lda = m;` */
    if (blas_ok && col && a.cs < nt_la_max1(m)) a.cs = nt_la_max1(m);
    if (blas_ok && !col && a.rs < nt_la_max1(n)) a.rs = nt_la_max1(n);
    nt_gemv_kernel(dst->dtype, m, n, a.data, a.rs, a.cs, nt_tensor_bytes(vec), incx,
                   nt_tensor_bytes(dst), incy, &s, blas_ok, col);
    nt_tensor_release(copy);
    return NT_OK;
}

/* addmv's shape checks (the meta function), for addmv and mv (mv passes bias NULL and
 * PyTorch's 1-d result as self). */
nt_status nt_la_addmv_check_sizes(int self_ndim, int64_t self_size0, int64_t self_numel,
                                  int mat_ndim, const int64_t *mat_sizes, int vec_ndim,
                                  const int64_t *vec_sizes) {
    if (!(mat_ndim == 2 && vec_ndim == 1 && self_ndim <= 1))
        return nt_fail(NT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d",
                       self_ndim, mat_ndim, vec_ndim);
    if (!(mat_sizes[1] == vec_sizes[0] && (mat_sizes[0] == self_numel || self_numel == 1))) {
        if (self_ndim == 0)
            return nt_fail(NT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
        return nt_fail(NT_ERR_RUNTIME,
                       "size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64,
                       self_size0, mat_sizes[0], mat_sizes[1], vec_sizes[0]);
    }
    return NT_OK;
}

nt_status nt_la_addmv_check(int self_ndim, int64_t self_size0, int64_t self_numel,
                            const nt_tensor *mat_, const nt_tensor *vec) {
    return nt_la_addmv_check_sizes(self_ndim, self_size0, self_numel, mat_->ndim, mat_->sizes,
                                   vec->ndim, vec->sizes);
}

static nt_status addmv_impl(nt_tensor *bias, const nt_tensor *mat_, const nt_tensor *vec,
                            nt_scalar beta, nt_scalar alpha, nt_tensor *out, bool inplace,
                            nt_tensor **result) {
    NT_TRY(nt_la_addmv_check(bias->ndim, bias->ndim ? bias->sizes[0] : 0, bias->numel, mat_, vec));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(
        nt_names_addmm(bias->names, bias->ndim, mat_->names, 2, vec->names, 1, buf, &nd, &names));
    int64_t shape[1] = {mat_->sizes[0]};
    nt_tensor *target = inplace ? bias : out;
    if (inplace) NT_TRY(nt_la_check_inplace(bias, 1, shape, vec->dtype));
    if (out) {
        NT_TRY(nt_la_check_out_dtype(out, vec->dtype));
        NT_TRY(nt_out_resize(out, 1, shape));
    }
    if (target && names) NT_TRY(nt_names_check_out(target->names, 1, names, 1));
    nt_tensor *expanded = NULL, *dst = NULL;
    nt_status st;
    NT_CHECK(st, nt_expand(bias, 1, shape, &expanded));
    if (target) {
        if (inplace && bias->is_contiguous && !nt_extents_overlap(bias, mat_) &&
            !nt_extents_overlap(bias, vec))
            dst = nt_tensor_retain(bias);
        else
            NT_CHECK(st, nt_la_pick_dest(target, mat_, vec, &dst));
        NT_CHECK(st, addmv_compute(dst, dst == bias ? dst : expanded, mat_, vec, beta, alpha));
        st = nt_la_finish_dest(target, dst, NT_OK);
        dst = NULL;
        if (st != NT_OK) goto fail;
        if (names) nt_tensor_set_names_unchecked(target, names);
        if (result) *result = nt_tensor_retain(target);
    } else {
        NT_CHECK(st, nt_tensor_alloc(vec->dtype, 1, shape, NULL, &dst));
        NT_CHECK(st, addmv_compute(dst, expanded, mat_, vec, beta, alpha));
        if (names) nt_tensor_set_names_unchecked(dst, names);
        *result = dst;
        dst = NULL;
    }
fail:
    nt_tensor_release(dst);
    nt_tensor_release(expanded);
    return st;
}

/* mv(mat, vec) [into out]: addmv with beta 0 into PyTorch's fresh 1-d result. */
nt_status nt_la_mv_impl(const nt_tensor *mat_, const nt_tensor *vec, nt_tensor *out,
                        nt_tensor **result) {
    if (mat_->ndim == 0)
        return nt_fail(NT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    NT_TRY(nt_la_addmv_check(1, mat_->sizes[0], mat_->sizes[0], mat_, vec));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_matmul(mat_->names, 2, vec->names, 1, buf, &nd, &names));
    int64_t shape[1] = {mat_->sizes[0]};
    nt_scalar zero = nt_scalar_int(0), one = nt_scalar_int(1);
    nt_status st;
    if (out) {
        NT_TRY(nt_la_check_out_dtype(out, vec->dtype));
        NT_TRY(nt_out_resize(out, 1, shape));
        if (names) NT_TRY(nt_names_check_out(out->names, 1, names, 1));
        nt_tensor *dst;
        NT_TRY(nt_la_pick_dest(out, mat_, vec, &dst));
        st = nt_la_finish_dest(out, dst, addmv_compute(dst, NULL, mat_, vec, zero, one));
        if (st == NT_OK && names) nt_tensor_set_names_unchecked(out, names);
        if (st == NT_OK && result) *result = nt_tensor_retain(out);
        return st;
    }
    nt_tensor *r;
    NT_TRY(nt_tensor_alloc(vec->dtype, 1, shape, NULL, &r));
    NT_CHECK(st, addmv_compute(r, NULL, mat_, vec, zero, one));
    if (names) nt_tensor_set_names_unchecked(r, names);
    *result = r;
    return NT_OK;
fail:
    nt_tensor_release(r);
    return st;
}

/* ------------------------------------------------------------------ dot */

nt_status nt_la_dot_check(const nt_tensor *a, const nt_tensor *b) {
    if (a->ndim != 1 || b->ndim != 1)
        return nt_fail(NT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors", a->ndim,
                       b->ndim);
    if (a->dtype != b->dtype)
        return nt_fail(NT_ERR_RUNTIME,
                       "dot : expected both vectors to have same dtype, but found %s and %s",
                       nt_dtype_torch_name(a->dtype), nt_dtype_torch_name(b->dtype));
    if (a->numel != b->numel)
        return nt_fail(NT_ERR_RUNTIME,
                       "inconsistent tensor size, expected tensor [%" PRId64 "] and src [%" PRId64
                       "] to have the same number of elements, but got %" PRId64 " and %" PRId64
                       " elements respectively",
                       a->numel, b->numel, a->numel, b->numel);
    return nt_la_check_dispatch("dot", a->dtype);
}

nt_status nt_la_dot_impl(const nt_tensor *a, const nt_tensor *b, nt_tensor *out,
                         nt_tensor **result) {
    NT_TRY(nt_la_dot_check(a, b));
    if (out) {
        NT_TRY(nt_out_resize(out, 0, NULL));
        if (out->dtype != a->dtype)
            return nt_fail(NT_ERR_RUNTIME, "result dtype %s does not match input dtype %s",
                           nt_dtype_torch_name(out->dtype), nt_dtype_torch_name(a->dtype));
    }
    nt_tensor *r;
    NT_TRY(nt_tensor_alloc(a->dtype, 0, NULL, NULL, &r));
    nt_dot_kernel(a->dtype, a->numel, nt_tensor_bytes(a), a->strides[0], nt_tensor_bytes(b),
                  b->strides[0], nt_tensor_bytes(r));
    if (!out) {
        *result = r;
        return NT_OK;
    }
    nt_status st = nt_copy_(out, r);
    nt_tensor_release(r);
    if (st == NT_OK && result) *result = nt_tensor_retain(out);
    return st;
}

/* ------------------------------------------------------------------ the rows' functions */

nt_status nt_impl_mv(nt_call *c) {
    return nt_la_mv_impl(c->args[0].v.t, c->args[1].v.t, c->out[0], &c->result[0]);
}

nt_status nt_impl_dot(nt_call *c) {
    return nt_la_dot_impl(c->args[0].v.t, c->args[1].v.t, c->out[0], &c->result[0]);
}

nt_status nt_impl_addmv(nt_call *c) {
    return addmv_impl(c->args[0].v.t, c->args[1].v.t, c->args[2].v.t, nt_la_scalar_arg(c, 3),
                      nt_la_scalar_arg(c, 4), c->out[0], c->inplace, &c->result[0]);
}

nt_status nt_shape_mv(const nt_call *c, nt_shape *s) {
    const nt_tensor *mat_ = c->args[0].v.t, *vec = c->args[1].v.t;
    if (mat_->ndim == 0)
        return nt_fail(NT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    NT_TRY(nt_la_addmv_check(1, mat_->sizes[0], mat_->sizes[0], mat_, vec));
    nt_shape_set(s, 1, mat_->sizes);
    return NT_OK;
}

nt_status nt_shape_dot(const nt_call *c, nt_shape *s) {
    NT_TRY(nt_la_dot_check(c->args[0].v.t, c->args[1].v.t));
    s->ndim = 0;
    return NT_OK;
}

/* addmv: (n), into which self expands (self itself in place) */
nt_status nt_shape_addmv(const nt_call *c, nt_shape *s) {
    const nt_tensor *bias = c->args[0].v.t, *mat_ = c->args[1].v.t, *vec = c->args[2].v.t;
    NT_TRY(nt_la_addmv_check(bias->ndim, bias->ndim ? bias->sizes[0] : 0, bias->numel, mat_, vec));
    return nt_la_bias_shape(bias, 1, mat_->sizes, vec->dtype, c->inplace, s);
}

/* ------------------------------------------------------------------ public API */

nt_status nt_mv(const nt_tensor *mat_, const nt_tensor *vec, nt_tensor **out) {
    NT_REQUIRE("mv", mat_, "self");
    NT_REQUIRE("mv", vec, "vec");
    NT_REQUIRE("mv", out, "out");
    return nt_la_product(NT_OP_MV, mat_, vec, NULL, out);
}

nt_status nt_mv_out(nt_tensor *out, const nt_tensor *mat_, const nt_tensor *vec) {
    NT_REQUIRE("mv", mat_, "self");
    NT_REQUIRE("mv", vec, "vec");
    NT_REQUIRE("mv", out, "out");
    return nt_la_product(NT_OP_MV, mat_, vec, out, NULL);
}

nt_status nt_dot(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("dot", a, "self");
    NT_REQUIRE("dot", b, "tensor");
    NT_REQUIRE("dot", out, "out");
    return nt_la_product(NT_OP_DOT, a, b, NULL, out);
}

nt_status nt_dot_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("dot", a, "self");
    NT_REQUIRE("dot", b, "tensor");
    NT_REQUIRE("dot", out, "out");
    return nt_la_product(NT_OP_DOT, a, b, out, NULL);
}

nt_status nt_addmv(nt_tensor *self, const nt_tensor *mat_, const nt_tensor *vec, nt_scalar beta,
                   nt_scalar alpha, nt_tensor **out) {
    NT_REQUIRE("addmv", self, "input");
    NT_REQUIRE("addmv", mat_, "mat");
    NT_REQUIRE("addmv", vec, "vec");
    NT_REQUIRE("addmv", out, "out");
    return nt_la_addproduct(NT_OP_ADDMV, self, mat_, vec, beta, alpha, NULL, false, out);
}

nt_status nt_addmv_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat_, const nt_tensor *vec,
                       nt_scalar beta, nt_scalar alpha) {
    NT_REQUIRE("addmv", self, "input");
    NT_REQUIRE("addmv", mat_, "mat");
    NT_REQUIRE("addmv", vec, "vec");
    NT_REQUIRE("addmv", out, "out");
    return nt_la_addproduct(NT_OP_ADDMV, self, mat_, vec, beta, alpha, out, false, NULL);
}

nt_status nt_addmv_(nt_tensor *self, const nt_tensor *mat_, const nt_tensor *vec, nt_scalar beta,
                    nt_scalar alpha) {
    NT_REQUIRE("addmv_", self, "self");
    NT_REQUIRE("addmv_", mat_, "mat");
    NT_REQUIRE("addmv_", vec, "vec");
    return nt_la_addproduct(NT_OP_ADDMV, self, mat_, vec, beta, alpha, NULL, true, NULL);
}
