/*
 * linalg_mm.c — mm and addmm (in place, out=): PyTorch's addmm_impl_cpu_ after its
 * checks, into row-major destinations.
 */
#include <inttypes.h>

#include "core/status.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "linalg.h"
#include "names/infer.h"

/* ------------------------------------------------------------------ addmm family */

/* Fills dst (m x n, row-major) with beta*bias + alpha*(a @ b); `bias` NULL or already in
 * dst means "nothing to copy". Runs PyTorch's addmm_impl_cpu_ after validation: empty
 * shortcuts, then the dtype dispatch and its errors. */
static nt_status addmm_compute(nt_tensor *dst, const nt_tensor *bias, const nt_tensor *a,
                               const nt_tensor *b, nt_scalar beta, nt_scalar alpha,
                               const char *kernel) {
    if (dst->numel == 0) return NT_OK;
    nt_gemm_scalars s;
    int64_t k = a->sizes[1];
    if (k == 0) {
        NT_TRY(nt_la_make_scalars(dst->dtype, beta, alpha, &s));
        if (s.beta_zero) return nt_zero_(dst);
        if (bias && bias != dst) NT_TRY(nt_copy_values(dst, bias));
        nt_la_scale_into(dst, &s);
        return NT_OK;
    }
    bool plain = !bias && beta.kind == NT_SCALAR_INT && beta.v.i == 0 &&
                 alpha.kind == NT_SCALAR_INT && alpha.v.i == 1;
    if (plain && (dst->dtype == NT_FLOAT32 || dst->dtype == NT_FLOAT64) && a->dtype == dst->dtype &&
        b->dtype == dst->dtype && a->is_contiguous && b->is_contiguous && dst->is_contiguous) {
        /* mm of row-major float matrices, the usual case: the very call the route below
         * ends in, without its scalar conversions and layout analysis (a tiny product's
         * per-call cost) */
        s = nt_la_plain_scalars();
        int64_t n = dst->sizes[1];
        nt_gemm_blas(dst->dtype, false, false, dst->sizes[0], n, k, nt_tensor_bytes(a),
                     nt_la_max1(k), nt_tensor_bytes(b), nt_la_max1(n), nt_tensor_bytes(dst),
                     nt_la_max1(n), &s);
        return NT_OK;
    }
    NT_TRY(nt_la_check_dispatch(kernel, dst->dtype));
    NT_TRY(nt_la_check_same(dst->dtype, b->dtype));
    NT_TRY(nt_la_check_same(dst->dtype, a->dtype));
    NT_TRY(nt_la_make_scalars(dst->dtype, beta, alpha, &s));
    if (!s.beta_zero && bias && bias != dst) NT_TRY(nt_copy_values(dst, bias));
    const nt_tensor *ua, *ub;
    nt_tensor *oa = NULL, *ob = NULL;
    nt_status st;
    NT_CHECK(st, nt_la_blas_operand(a, &ua, &oa));
    NT_CHECK(st, nt_la_blas_operand(b, &ub, &ob));
    nt_la_mat ma = nt_la_mat_of(ua, 0, 1), mb = nt_la_mat_of(ub, 0, 1),
              mc = nt_la_mat_of(dst, 0, 1);
    NT_CHECK(st, nt_la_gemm(dst->dtype, 1, &mc, &ma, &mb, &s, false));
fail:
    nt_tensor_release(oa);
    nt_tensor_release(ob);
    return st;
}

nt_status nt_la_mm_check_sizes(const int64_t *a, const int64_t *b) {
    if (a[1] != b[0])
        return nt_fail(NT_ERR_RUNTIME,
                       "mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                       " and %" PRId64 "x%" PRId64 ")",
                       a[0], a[1], b[0], b[1]);
    return NT_OK;
}

nt_status nt_la_mm_check_shapes(const nt_tensor *a, const nt_tensor *b) {
    if (a->ndim != 2) return nt_fail(NT_ERR_RUNTIME, "self must be a matrix");
    if (b->ndim != 2) return nt_fail(NT_ERR_RUNTIME, "mat2 must be a matrix");
    return nt_la_mm_check_sizes(a->sizes, b->sizes);
}

/* mm of checked shapes, whose result gets `names` (NULL: none). */
nt_status nt_la_mm_named(const nt_tensor *a, const nt_tensor *b, nt_tensor *out, nt_tensor **result,
                         const nt_name *names) {
    int64_t shape[2] = {a->sizes[0], b->sizes[1]};
    nt_scalar zero = nt_scalar_int(0), one = nt_scalar_int(1);
    nt_status st;
    if (out) {
        NT_TRY(nt_la_check_out_dtype(out, a->dtype));
        NT_TRY(nt_out_resize(out, 2, shape));
        if (names) NT_TRY(nt_names_check_out(out->names, 2, names, 2));
        nt_tensor *dst;
        NT_TRY(nt_la_pick_dest(out, a, b, &dst));
        st = nt_la_finish_dest(out, dst,
                               addmm_compute(dst, NULL, a, b, zero, one, "addmm_impl_cpu_"));
        if (st == NT_OK && names) nt_tensor_set_names_unchecked(out, names);
        if (st == NT_OK && result) *result = nt_tensor_retain(out);
        return st;
    }
    nt_tensor *r;
    NT_TRY(nt_tensor_alloc(a->dtype, 2, shape, names, &r));
    NT_CHECK(st, addmm_compute(r, NULL, a, b, zero, one, "addmm_impl_cpu_"));
    *result = r;
    return NT_OK;
fail:
    nt_tensor_release(r);
    return st;
}

/* mm(a, b) [into out]: PyTorch's mm meta then addmm_impl_cpu_(result, result, a, b, 0, 1). */
nt_status nt_la_mm_impl(const nt_tensor *a, const nt_tensor *b, nt_tensor *out,
                        nt_tensor **result) {
    NT_TRY(nt_la_mm_check_shapes(a, b));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_matmul(a->names, 2, b->names, 2, buf, &nd, &names));
    return nt_la_mm_named(a, b, out, result, names);
}

/* addmm(bias, a, b) into a new tensor, `out` (out=) or bias itself (inplace). */
/* addmm's checks of its operands (PyTorch's meta function, in its order) */
static nt_status addmm_check(const nt_tensor *bias, const nt_tensor *a, const nt_tensor *b) {
    if (bias->dtype != b->dtype)
        return nt_fail(NT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    if (a->dtype != b->dtype)
        return nt_fail(NT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
    if (a->ndim != 2)
        return nt_fail(NT_ERR_RUNTIME, "mat1 must be a matrix, got %d-D tensor", a->ndim);
    if (b->ndim != 2)
        return nt_fail(NT_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", b->ndim);
    return nt_la_mm_check_sizes(a->sizes, b->sizes);
}

static nt_status addmm_impl(nt_tensor *bias, const nt_tensor *a, const nt_tensor *b, nt_scalar beta,
                            nt_scalar alpha, nt_tensor *out, bool inplace, nt_tensor **result) {
    NT_TRY(addmm_check(bias, a, b));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_addmm(bias->names, bias->ndim, a->names, 2, b->names, 2, buf, &nd, &names));
    int64_t shape[2] = {a->sizes[0], b->sizes[1]};
    nt_tensor *target = inplace ? bias : out;
    if (inplace) NT_TRY(nt_la_check_inplace(bias, 2, shape, a->dtype));
    if (out) {
        NT_TRY(nt_la_check_out_dtype(out, a->dtype));
        NT_TRY(nt_out_resize(out, 2, shape));
    }
    if (target && names) NT_TRY(nt_names_check_out(target->names, 2, names, 2));
    nt_tensor *expanded = NULL, *dst = NULL;
    nt_status st;
    NT_CHECK(st, nt_expand(bias, 2, shape, &expanded));
    if (target) {
        if (inplace && bias->is_contiguous && !nt_extents_overlap(bias, a) &&
            !nt_extents_overlap(bias, b))
            dst = nt_tensor_retain(bias);
        else
            NT_CHECK(st, nt_la_pick_dest(target, a, b, &dst));
        /* a temporary (or out=) starts from the expanded bias; self in place from itself */
        NT_CHECK(st, addmm_compute(dst, dst == bias ? dst : expanded, a, b, beta, alpha,
                                   "addmm_impl_cpu_"));
        st = nt_la_finish_dest(target, dst, NT_OK);
        dst = NULL;
        if (st != NT_OK) goto fail;
        if (names) nt_tensor_set_names_unchecked(target, names);
        if (result) *result = nt_tensor_retain(target);
    } else {
        NT_CHECK(st, nt_tensor_alloc(a->dtype, 2, shape, NULL, &dst));
        NT_CHECK(st, addmm_compute(dst, expanded, a, b, beta, alpha, "addmm_impl_cpu_"));
        if (names) nt_tensor_set_names_unchecked(dst, names);
        *result = dst;
        dst = NULL;
    }
fail:
    nt_tensor_release(dst);
    nt_tensor_release(expanded);
    return st;
}

/* ------------------------------------------------------------------ the rows' functions */

nt_status nt_impl_mm(nt_call *c) {
    return nt_la_mm_impl(c->args[0].v.t, c->args[1].v.t, c->out[0], &c->result[0]);
}

nt_status nt_impl_addmm(nt_call *c) {
    nt_tensor *self = c->args[0].v.t;
    nt_status st = addmm_impl(self, c->args[1].v.t, c->args[2].v.t, nt_la_scalar_arg(c, 3),
                              nt_la_scalar_arg(c, 4), c->out[0], c->inplace, &c->result[0]);
    return st;
}

nt_status nt_shape_mm(const nt_call *c, nt_shape *s) {
    const nt_tensor *a = c->args[0].v.t, *b = c->args[1].v.t;
    NT_TRY(nt_la_mm_check_shapes(a, b));
    int64_t shape[2] = {a->sizes[0], b->sizes[1]};
    nt_shape_set(s, 2, shape);
    return NT_OK;
}

/* addmm: (n, p), into which self expands (self itself in place) */
nt_status nt_shape_addmm(const nt_call *c, nt_shape *s) {
    const nt_tensor *bias = c->args[0].v.t, *a = c->args[1].v.t, *b = c->args[2].v.t;
    NT_TRY(addmm_check(bias, a, b));
    int64_t shape[2] = {a->sizes[0], b->sizes[1]};
    return nt_la_bias_shape(bias, 2, shape, a->dtype, c->inplace, s);
}

/* ------------------------------------------------------------------ public API */

nt_status nt_mm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("mm", a, "self");
    NT_REQUIRE("mm", b, "mat2");
    NT_REQUIRE("mm", out, "out");
    return nt_la_product(NT_OP_MM, a, b, NULL, out);
}

nt_status nt_mm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("mm", a, "self");
    NT_REQUIRE("mm", b, "mat2");
    NT_REQUIRE("mm", out, "out");
    return nt_la_product(NT_OP_MM, a, b, out, NULL);
}

nt_status nt_addmm(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2, nt_scalar beta,
                   nt_scalar alpha, nt_tensor **out) {
    NT_REQUIRE("addmm", self, "input");
    NT_REQUIRE("addmm", mat1, "mat1");
    NT_REQUIRE("addmm", mat2, "mat2");
    NT_REQUIRE("addmm", out, "out");
    return nt_la_addproduct(NT_OP_ADDMM, self, mat1, mat2, beta, alpha, NULL, false, out);
}

nt_status nt_addmm_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat1,
                       const nt_tensor *mat2, nt_scalar beta, nt_scalar alpha) {
    NT_REQUIRE("addmm", self, "input");
    NT_REQUIRE("addmm", mat1, "mat1");
    NT_REQUIRE("addmm", mat2, "mat2");
    NT_REQUIRE("addmm", out, "out");
    return nt_la_addproduct(NT_OP_ADDMM, self, mat1, mat2, beta, alpha, out, false, NULL);
}

nt_status nt_addmm_(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2, nt_scalar beta,
                    nt_scalar alpha) {
    NT_REQUIRE("addmm_", self, "self");
    NT_REQUIRE("addmm_", mat1, "mat1");
    NT_REQUIRE("addmm_", mat2, "mat2");
    return nt_la_addproduct(NT_OP_ADDMM, self, mat1, mat2, beta, alpha, NULL, true, NULL);
}
