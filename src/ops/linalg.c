/*
 * linalg.c — the matrix products: mm, mv, dot, bmm, matmul, addmm, addmv, their in-place
 * and out= forms (layer L4, with the "contracts away dims" name rule).
 *
 * Each op follows PyTorch 1.13 step by step, because its error texts and even its rounding
 * depend on the path: validate (ranks, shapes, in PyTorch's order and words) -> names
 * (names/infer.h) -> the out= / in-place checks -> the empty shortcuts -> dtype dispatch
 * (whose errors PyTorch raises only when it computes) -> kernels/gemm.c.
 *
 * Results are always computed into a row-major destination: a fresh tensor, or the out= /
 * in-place tensor itself when it is contiguous and shares no memory with the operands
 * (otherwise a temporary that is copied into it at the end). float32/float64 operands whose
 * matrices are row- or column-major go to BLAS as they are (the transpose flags replace
 * copies); any other layout is copied to contiguous first. Integer and bfloat16 loops take
 * any strides.
 *
 * matmul dispatches like PyTorch's _matmul_impl: dot, mv, mm for ranks up to two; a
 * batched operand against a vector or matrix is folded into one mm/mv (one big GEMM instead
 * of many small ones), and the rest goes through bmm with the batch dims broadcast (stride
 * 0, never materialised unless BLAS needs a copy).
 *
 * Deliberate differences from PyTorch (docs/decisions_ops_linalg.md): an out= tensor must
 * already have the result's shape (PyTorch resizes it); results are always contiguous.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "kernels/gemm.h"
#include "names/infer.h"
#include "names/names.h"

/* ------------------------------------------------------------------ PyTorch's texts */

/* c10::ScalarType names ("expected scalar type Float but found Double"). */
static const char *const scalar_name[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "Bool",      [NT_UINT8] = "Byte",        [NT_INT8] = "Char",
    [NT_INT16] = "Short",    [NT_INT32] = "Int",         [NT_INT64] = "Long",
    [NT_FLOAT16] = "Half",   [NT_BFLOAT16] = "BFloat16", [NT_FLOAT32] = "Float",
    [NT_FLOAT64] = "Double",
};

/* caffe2::TypeMeta names ("Expected out tensor to have dtype float, but got double"). */
static const char *const meta_name[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "bool",         [NT_UINT8] = "unsigned char",
    [NT_INT8] = "signed char",  [NT_INT16] = "short int",
    [NT_INT32] = "int",         [NT_INT64] = "long int",
    [NT_FLOAT16] = "c10::Half", [NT_BFLOAT16] = "c10::BFloat16",
    [NT_FLOAT32] = "float",     [NT_FLOAT64] = "double",
};

static nt_status null_arg(const char *fn, const char *arg) {
    return nt_fail(NT_ERR_TYPE, "%s(): argument '%s' must be Tensor, not NULL", fn, arg);
}

/* PyTorch's AT_DISPATCH error: the products support every dtype but bool and float16. */
static nt_status check_dispatch(const char *kernel, nt_dtype dtype) {
    if (dtype == NT_BOOL || dtype == NT_FLOAT16)
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                       scalar_name[dtype]);
    return NT_OK;
}

/* data_ptr<scalar_t>()'s error for an operand of another dtype. */
static nt_status check_same(nt_dtype expected, nt_dtype found) {
    if (expected != found)
        return nt_fail(NT_ERR_RUNTIME, "expected scalar type %s but found %s",
                       scalar_name[expected], scalar_name[found]);
    return NT_OK;
}

static nt_status check_out_dtype(const nt_tensor *out, nt_dtype expected) {
    if (out->dtype != expected)
        return nt_fail(NT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                       meta_name[expected], meta_name[out->dtype]);
    return NT_OK;
}

static bool same_shape(const nt_tensor *t, int ndim, const int64_t *sizes) {
    if (t->ndim != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (t->sizes[i] != sizes[i]) return false;
    return true;
}

/* ntensor does not resize out= tensors (PyTorch does): the shape must be the result's. */
static nt_status check_out_shape(const nt_tensor *out, int ndim, const int64_t *sizes) {
    if (same_shape(out, ndim, sizes)) return NT_OK;
    char have[256], want[256];
    nt_ints_repr(out->sizes, out->ndim, have, sizeof have);
    nt_ints_repr(sizes, ndim, want, sizeof want);
    return nt_fail(NT_ERR_RUNTIME,
                   "out= tensor has shape %s but the result has shape %s (ntensor does not "
                   "resize out= tensors)",
                   have, want);
}

/* The structured-kernel check of an in-place call (shape, then dtype). */
static nt_status check_inplace(const nt_tensor *self, int ndim, const int64_t *sizes,
                               nt_dtype dtype) {
    char have[256], want[256];
    if (!same_shape(self, ndim, sizes)) {
        nt_ints_repr(self->sizes, self->ndim, have, sizeof have);
        nt_ints_repr(sizes, ndim, want, sizeof want);
        return nt_fail(NT_ERR_RUNTIME,
                       "Bad in-place call: input tensor size %s and output tensor size %s should "
                       "match",
                       have, want);
    }
    if (self->dtype != dtype)
        return nt_fail(NT_ERR_RUNTIME,
                       "Bad in-place call: input tensor dtype %s and output tensor dtype %s "
                       "should match",
                       meta_name[self->dtype], meta_name[dtype]);
    return NT_OK;
}

/* ------------------------------------------------------------------ names */

/* ------------------------------------------------------------------ scalars */

static double scalar_double(nt_scalar s) {
    return s.kind == NT_SCALAR_FLOAT ? s.v.f : s.kind == NT_SCALAR_INT ? (double)s.v.i : s.v.b;
}

/* alpha/beta converted as PyTorch's Scalar::to<T>() does for the kernels of `dtype`
 * (checked: "value cannot be converted to type int8_t without overflow"). */
static nt_status make_scalars(nt_dtype dtype, nt_scalar beta, nt_scalar alpha, nt_gemm_scalars *s) {
    NT_TRY(nt_scalar_check_fits(alpha, dtype));
    NT_TRY(nt_scalar_check_fits(beta, dtype));
    memset(s, 0, sizeof *s);
    s->alpha = scalar_double(alpha);
    s->beta = scalar_double(beta);
    s->bf_alpha = nt_bf16_to_f32(nt_f32_to_bf16((float)s->alpha));
    s->bf_beta = nt_bf16_to_f32(nt_f32_to_bf16((float)s->beta));
    if (nt_dtype_table[dtype].kind == NT_KIND_INT) {
        int64_t ia = alpha.kind == NT_SCALAR_FLOAT ? nt_double_to_i64(alpha.v.f)
                     : alpha.kind == NT_SCALAR_INT ? alpha.v.i
                                                   : alpha.v.b;
        int64_t ib = beta.kind == NT_SCALAR_FLOAT ? nt_double_to_i64(beta.v.f)
                     : beta.kind == NT_SCALAR_INT ? beta.v.i
                                                  : beta.v.b;
        int bits = 8 * (int)nt_dtype_table[dtype].size;
        uint64_t mask = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
        s->ialpha = (uint64_t)ia;
        s->ibeta = (uint64_t)ib;
        s->beta_zero = ((uint64_t)ib & mask) == 0;
        s->beta_one = ((uint64_t)ib & mask) == 1;
    } else if (dtype == NT_FLOAT64) {
        s->beta_zero = s->beta == 0.0;
        s->beta_one = s->beta == 1.0;
    } else {
        s->beta_zero = (float)s->beta == 0.0f;
        s->beta_one = (float)s->beta == 1.0f;
    }
    return NT_OK;
}

static nt_gemm_scalars plain_scalars(void) {
    nt_gemm_scalars s = {.alpha = 1,
                         .beta = 0,
                         .ialpha = 1,
                         .ibeta = 0,
                         .bf_alpha = 1,
                         .bf_beta = 0,
                         .beta_zero = true,
                         .beta_one = false};
    return s;
}

/* ------------------------------------------------------------------ matrices */

/* A matrix as the kernels see it: element pointer and strides. */
typedef struct mat {
    char *data;
    int64_t rows, cols, rs, cs;
} mat;

/* The matrix of dims (d0, d1) of t, at element offset `at` from t's first element. */
static mat mat_of(const nt_tensor *t, int d0, int d1, int64_t at) {
    mat m = {nt_tensor_bytes(t) + at * (int64_t)nt_dtype_table[t->dtype].size, t->sizes[d0],
             t->sizes[d1], t->strides[d0], t->strides[d1]};
    return m;
}

static int64_t max1(int64_t x) {
    return x > 1 ? x : 1;
}

/* Whether BLAS can read m as it is: row-major (trans false) or column-major (trans true)
 * with a leading dim >= its row length; strides of size-one dims do not matter. */
static bool blas_layout(const mat *m, bool *trans, int64_t *ld) {
    int64_t cs = m->cols <= 1 ? 1 : m->cs, rs = m->rows <= 1 ? max1(m->cols) : m->rs;
    if (cs == 1 && rs >= max1(m->cols)) {
        *trans = false;
        *ld = rs;
        return true;
    }
    rs = m->rows <= 1 ? 1 : m->rs;
    cs = m->cols <= 1 ? max1(m->rows) : m->cs;
    if (rs == 1 && cs >= max1(m->rows)) {
        *trans = true;
        *ld = cs;
        return true;
    }
    return false;
}

/* PyTorch's choice among its bfloat16 gemm variants (addmm_impl_cpu_ with a row-major
 * result, which it treats as a transposed column-major one unless n == 1). */
static nt_bf16_plan bf16_plan(const mat *a, const mat *b, int64_t m, int64_t n, int64_t k) {
    bool swap = n != 1;
    /* the first and second operands of PyTorch's column-major call, and its m and n */
    const mat *x = swap ? b : a, *y = swap ? a : b;
    int64_t gm = swap ? n : m, gn = swap ? m : n;
    int64_t xs_in = swap ? x->cs : x->rs, xs_out = swap ? x->rs : x->cs;
    int64_t ys_in = swap ? y->cs : y->rs, ys_out = swap ? y->rs : y->cs;
    bool ta, tb;
    if (xs_in == 1 && xs_out >= max1(gm))
        ta = false;
    else if (xs_out == 1 && xs_in >= max1(k))
        ta = true;
    else
        ta = !swap;
    if (ys_in == 1 && ys_out >= max1(k))
        tb = false;
    else if (ys_out == 1 && ys_in >= max1(gn))
        tb = true;
    else
        tb = !swap;
    nt_bf16_plan plan = {.dot_variant = ta && !tb, .both_trans = ta && tb, .alpha_on_a = swap};
    return plan;
}

/* C = beta*C + alpha*(A @ B) for one matrix. `small_bmm`: PyTorch's small bmm kernel. */
static void gemm2d(nt_dtype dtype, const mat *c, const mat *a, const mat *b,
                   const nt_gemm_scalars *s, bool small_bmm) {
    int64_t m = a->rows, k = a->cols, n = b->cols;
    if (m == 0 || n == 0) return;
    switch (dtype) {
    case NT_FLOAT32:
    case NT_FLOAT64: {
        bool ta, tb;
        int64_t lda, ldb;
        if (!small_bmm && blas_layout(a, &ta, &lda) && blas_layout(b, &tb, &ldb))
            nt_gemm_blas(dtype, ta, tb, m, n, k, a->data, lda, b->data, ldb, c->data, c->rs, s);
        else
            nt_gemm_small(dtype, m, n, k, a->data, a->rs, a->cs, b->data, b->rs, b->cs, c->data,
                          c->rs, s);
        return;
    }
    case NT_BFLOAT16:
        if (small_bmm)
            nt_gemm_bf16_small(m, n, k, a->data, a->rs, a->cs, b->data, b->rs, b->cs, c->data,
                               c->rs, s);
        else
            nt_gemm_bf16(m, n, k, a->data, a->rs, a->cs, b->data, b->rs, b->cs, c->data, c->rs, s,
                         bf16_plan(a, b, m, n, k));
        return;
    default:
        nt_gemm_int(dtype, m, n, k, a->data, a->rs, a->cs, b->data, b->rs, b->cs, c->data, c->rs,
                    s);
        return;
    }
}

/* For float32/float64 BLAS: `t` itself when the matrices of its last two dims are row- or
 * column-major, else a contiguous copy (what PyTorch does). *owned gets the copy. */
static nt_status blas_operand(const nt_tensor *t, const nt_tensor **use, nt_tensor **owned) {
    *use = t;
    *owned = NULL;
    if (t->dtype != NT_FLOAT32 && t->dtype != NT_FLOAT64) return NT_OK;
    mat m = mat_of(t, t->ndim - 2, t->ndim - 1, 0);
    bool trans;
    int64_t ld;
    if (blas_layout(&m, &trans, &ld)) return NT_OK;
    NT_TRY(nt_contiguous((nt_tensor *)t, owned));
    *use = *owned;
    return NT_OK;
}

/* Scales dst (contiguous) by beta, in its dtype: PyTorch's `result.mul_(beta)` of an empty
 * contraction. */
static void scale_into(nt_tensor *dst, const nt_gemm_scalars *s) {
    char *p = nt_tensor_bytes(dst);
    for (int64_t i = 0; i < dst->numel; i++) {
        switch (dst->dtype) {
        case NT_FLOAT32:
            ((float *)p)[i] = (float)(((float *)p)[i] * s->beta);
            break;
        case NT_FLOAT64:
            ((double *)p)[i] *= s->beta;
            break;
        case NT_BFLOAT16:
            ((nt_bfloat16 *)p)[i] =
                nt_f32_to_bf16(nt_bf16_to_f32(((nt_bfloat16 *)p)[i]) * (float)s->beta);
            break;
        case NT_UINT8:
            ((uint8_t *)p)[i] = (uint8_t)(((uint8_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT8:
            ((int8_t *)p)[i] = (int8_t)((uint32_t)((int8_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT16:
            ((int16_t *)p)[i] = (int16_t)((uint32_t)((int16_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT32:
            ((int32_t *)p)[i] = (int32_t)((uint32_t)((int32_t *)p)[i] * (uint32_t)s->ibeta);
            break;
        case NT_INT64:
            ((int64_t *)p)[i] = (int64_t)((uint64_t)((int64_t *)p)[i] * s->ibeta);
            break;
        default:
            break;
        }
    }
}

/* ------------------------------------------------------------------ destinations */

/* Where a product writes: `out` itself when it is contiguous and shares no memory with the
 * operands, else a fresh contiguous tensor of its shape and dtype. */
static nt_status pick_dest(nt_tensor *out, const nt_tensor *x, const nt_tensor *y,
                           nt_tensor **dst) {
    if (out->is_contiguous && !nt_extents_overlap(out, x) && !nt_extents_overlap(out, y)) {
        *dst = nt_tensor_retain(out);
        return NT_OK;
    }
    return nt_tensor_alloc(out->dtype, out->ndim, out->sizes, NULL, dst);
}

/* Copies dst into out when they differ, and releases dst. */
static nt_status finish_dest(nt_tensor *out, nt_tensor *dst, nt_status st) {
    if (st == NT_OK && dst != out) st = nt_copy_(out, dst);
    nt_tensor_release(dst);
    return st;
}

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
        NT_TRY(make_scalars(dst->dtype, beta, alpha, &s));
        if (s.beta_zero) return nt_zero_(dst);
        if (bias && bias != dst) NT_TRY(nt_copy_(dst, bias));
        scale_into(dst, &s);
        return NT_OK;
    }
    bool plain = !bias && beta.kind == NT_SCALAR_INT && beta.v.i == 0 &&
                 alpha.kind == NT_SCALAR_INT && alpha.v.i == 1;
    if (plain && (dst->dtype == NT_FLOAT32 || dst->dtype == NT_FLOAT64) && a->dtype == dst->dtype &&
        b->dtype == dst->dtype && a->is_contiguous && b->is_contiguous && dst->is_contiguous) {
        /* mm of row-major float matrices, the usual case: the very call the route below
         * ends in, without its scalar conversions and layout analysis (a tiny product's
         * per-call cost) */
        s = plain_scalars();
        int64_t n = dst->sizes[1];
        nt_gemm_blas(dst->dtype, false, false, dst->sizes[0], n, k, nt_tensor_bytes(a), max1(k),
                     nt_tensor_bytes(b), max1(n), nt_tensor_bytes(dst), max1(n), &s);
        nt_storage_bump_version(dst->storage);
        return NT_OK;
    }
    NT_TRY(check_dispatch(kernel, dst->dtype));
    NT_TRY(check_same(dst->dtype, b->dtype));
    NT_TRY(check_same(dst->dtype, a->dtype));
    NT_TRY(make_scalars(dst->dtype, beta, alpha, &s));
    if (!s.beta_zero && bias && bias != dst) NT_TRY(nt_copy_(dst, bias));
    const nt_tensor *ua, *ub;
    nt_tensor *oa = NULL, *ob = NULL;
    nt_status st;
    NT_CHECK(st, blas_operand(a, &ua, &oa));
    NT_CHECK(st, blas_operand(b, &ub, &ob));
    mat ma = mat_of(ua, 0, 1, 0), mb = mat_of(ub, 0, 1, 0), mc = mat_of(dst, 0, 1, 0);
    gemm2d(dst->dtype, &mc, &ma, &mb, &s, false);
    nt_storage_bump_version(dst->storage);
fail:
    nt_tensor_release(oa);
    nt_tensor_release(ob);
    return st;
}

static nt_status mm_check_shapes(const nt_tensor *a, const nt_tensor *b) {
    if (a->ndim != 2) return nt_fail(NT_ERR_RUNTIME, "self must be a matrix");
    if (b->ndim != 2) return nt_fail(NT_ERR_RUNTIME, "mat2 must be a matrix");
    if (a->sizes[1] != b->sizes[0])
        return nt_fail(NT_ERR_RUNTIME,
                       "mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                       " and %" PRId64 "x%" PRId64 ")",
                       a->sizes[0], a->sizes[1], b->sizes[0], b->sizes[1]);
    return NT_OK;
}

/* mm of checked shapes, whose result gets `names` (NULL: none). */
static nt_status mm_named(const nt_tensor *a, const nt_tensor *b, nt_tensor *out,
                          nt_tensor **result, const nt_name *names) {
    int64_t shape[2] = {a->sizes[0], b->sizes[1]};
    nt_scalar zero = nt_scalar_int(0), one = nt_scalar_int(1);
    nt_status st;
    if (out) {
        NT_TRY(check_out_shape(out, 2, shape));
        NT_TRY(check_out_dtype(out, a->dtype));
        if (names) NT_TRY(nt_names_check_out(out->names, 2, names, 2));
        nt_tensor *dst;
        NT_TRY(pick_dest(out, a, b, &dst));
        st = finish_dest(out, dst, addmm_compute(dst, NULL, a, b, zero, one, "addmm_impl_cpu_"));
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
static nt_status mm_impl(const nt_tensor *a, const nt_tensor *b, nt_tensor *out,
                         nt_tensor **result) {
    NT_TRY(mm_check_shapes(a, b));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_matmul(a->names, 2, b->names, 2, buf, &nd, &names));
    return mm_named(a, b, out, result, names);
}

/* addmm(bias, a, b) into a new tensor, `out` (out=) or bias itself (inplace). */
static nt_status addmm_impl(nt_tensor *bias, const nt_tensor *a, const nt_tensor *b, nt_scalar beta,
                            nt_scalar alpha, nt_tensor *out, bool inplace, nt_tensor **result) {
    if (bias->dtype != b->dtype)
        return nt_fail(NT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    if (a->dtype != b->dtype)
        return nt_fail(NT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
    if (a->ndim != 2)
        return nt_fail(NT_ERR_RUNTIME, "mat1 must be a matrix, got %d-D tensor", a->ndim);
    if (b->ndim != 2)
        return nt_fail(NT_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", b->ndim);
    if (a->sizes[1] != b->sizes[0])
        return nt_fail(NT_ERR_RUNTIME,
                       "mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                       " and %" PRId64 "x%" PRId64 ")",
                       a->sizes[0], a->sizes[1], b->sizes[0], b->sizes[1]);
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_addmm(bias->names, bias->ndim, a->names, 2, b->names, 2, buf, &nd, &names));
    int64_t shape[2] = {a->sizes[0], b->sizes[1]};
    nt_tensor *target = inplace ? bias : out;
    if (inplace) NT_TRY(check_inplace(bias, 2, shape, a->dtype));
    if (out) {
        NT_TRY(check_out_shape(out, 2, shape));
        NT_TRY(check_out_dtype(out, a->dtype));
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
            NT_CHECK(st, pick_dest(target, a, b, &dst));
        /* a temporary (or out=) starts from the expanded bias; self in place from itself */
        NT_CHECK(st, addmm_compute(dst, dst == bias ? dst : expanded, a, b, beta, alpha,
                                   "addmm_impl_cpu_"));
        st = finish_dest(target, dst, NT_OK);
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

/* ------------------------------------------------------------------ addmv family */

/* Fills dst (m) with beta*bias + alpha*(mat @ vec): PyTorch's addmv_out_cpu impl. */
static nt_status addmv_compute(nt_tensor *dst, const nt_tensor *bias, const nt_tensor *mat_,
                               const nt_tensor *vec, nt_scalar beta, nt_scalar alpha) {
    nt_gemm_scalars s;
    if (mat_->numel == 0) {
        NT_TRY(make_scalars(dst->dtype, beta, alpha, &s));
        if (s.beta_zero) return nt_zero_(dst);
        if (bias && bias != dst) NT_TRY(nt_copy_(dst, bias));
        scale_into(dst, &s);
        return NT_OK;
    }
    if (dst->numel == 0) return NT_OK;
    NT_TRY(check_dispatch("addmv_impl_cpu", mat_->dtype));
    NT_TRY(check_same(mat_->dtype, vec->dtype));
    NT_TRY(check_same(mat_->dtype, dst->dtype));
    NT_TRY(make_scalars(dst->dtype, beta, alpha, &s));
    if (!s.beta_zero && bias && bias != dst) NT_TRY(nt_copy_(dst, bias));
    mat a = mat_of(mat_, 0, 1, 0);
    int64_t m = a.rows, n = a.cols;
    /* PyTorch's layouts: column-major -> gemv 'n', row-major -> 't', else a contiguous copy
     * ('t'). lda_cond(m, n, lda) = n == 1 || lda >= max(1, m). */
    bool col = a.rs == 1 && (n == 1 || a.cs >= max1(m));
    bool row = !col && a.cs == 1 && (m == 1 || a.rs >= max1(n));
    nt_tensor *copy = NULL;
    if (!col && !row) {
        NT_TRY(nt_contiguous((nt_tensor *)mat_, &copy));
        a = mat_of(copy, 0, 1, 0);
    }
    int64_t incx = vec->strides[0], incy = dst->strides[0];
    bool blas_ok = incx > 0 && incy > 0 && m <= INT32_MAX && n <= INT32_MAX && incx <= INT32_MAX &&
                   incy <= INT32_MAX && (col ? a.cs : a.rs) <= INT32_MAX;
    if (n == 1 && col) a.cs = m; /* gemv's `if (n == 1) lda = m;` */
    if (blas_ok && col && a.cs < max1(m)) a.cs = max1(m);
    if (blas_ok && !col && a.rs < max1(n)) a.rs = max1(n);
    nt_gemv_kernel(dst->dtype, m, n, a.data, a.rs, a.cs, nt_tensor_bytes(vec), incx,
                   nt_tensor_bytes(dst), incy, &s, blas_ok, col);
    nt_storage_bump_version(dst->storage);
    nt_tensor_release(copy);
    return NT_OK;
}

/* addmv's shape checks (the meta function), for addmv and mv (mv passes bias NULL and
 * PyTorch's 1-d result as self). */
static nt_status addmv_check(int self_ndim, int64_t self_size0, int64_t self_numel,
                             const nt_tensor *mat_, const nt_tensor *vec) {
    if (!(mat_->ndim == 2 && vec->ndim == 1 && self_ndim <= 1))
        return nt_fail(NT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d",
                       self_ndim, mat_->ndim, vec->ndim);
    if (!(mat_->sizes[1] == vec->sizes[0] && (mat_->sizes[0] == self_numel || self_numel == 1))) {
        if (self_ndim == 0)
            return nt_fail(NT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
        return nt_fail(NT_ERR_RUNTIME,
                       "size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64,
                       self_size0, mat_->sizes[0], mat_->sizes[1], vec->sizes[0]);
    }
    return NT_OK;
}

static nt_status addmv_impl(nt_tensor *bias, const nt_tensor *mat_, const nt_tensor *vec,
                            nt_scalar beta, nt_scalar alpha, nt_tensor *out, bool inplace,
                            nt_tensor **result) {
    NT_TRY(addmv_check(bias->ndim, bias->ndim ? bias->sizes[0] : 0, bias->numel, mat_, vec));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(
        nt_names_addmm(bias->names, bias->ndim, mat_->names, 2, vec->names, 1, buf, &nd, &names));
    int64_t shape[1] = {mat_->sizes[0]};
    nt_tensor *target = inplace ? bias : out;
    if (inplace) NT_TRY(check_inplace(bias, 1, shape, vec->dtype));
    if (out) {
        NT_TRY(check_out_shape(out, 1, shape));
        NT_TRY(check_out_dtype(out, vec->dtype));
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
            NT_CHECK(st, pick_dest(target, mat_, vec, &dst));
        NT_CHECK(st, addmv_compute(dst, dst == bias ? dst : expanded, mat_, vec, beta, alpha));
        st = finish_dest(target, dst, NT_OK);
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
static nt_status mv_impl(const nt_tensor *mat_, const nt_tensor *vec, nt_tensor *out,
                         nt_tensor **result) {
    if (mat_->ndim == 0)
        return nt_fail(NT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    NT_TRY(addmv_check(1, mat_->sizes[0], mat_->sizes[0], mat_, vec));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_matmul(mat_->names, 2, vec->names, 1, buf, &nd, &names));
    int64_t shape[1] = {mat_->sizes[0]};
    nt_scalar zero = nt_scalar_int(0), one = nt_scalar_int(1);
    nt_status st;
    if (out) {
        NT_TRY(check_out_shape(out, 1, shape));
        NT_TRY(check_out_dtype(out, vec->dtype));
        if (names) NT_TRY(nt_names_check_out(out->names, 1, names, 1));
        nt_tensor *dst;
        NT_TRY(pick_dest(out, mat_, vec, &dst));
        st = finish_dest(out, dst, addmv_compute(dst, NULL, mat_, vec, zero, one));
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

static nt_status dot_check(const nt_tensor *a, const nt_tensor *b) {
    if (a->ndim != 1 || b->ndim != 1)
        return nt_fail(NT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors", a->ndim,
                       b->ndim);
    if (a->dtype != b->dtype)
        return nt_fail(NT_ERR_RUNTIME,
                       "dot : expected both vectors to have same dtype, but found %s and %s",
                       scalar_name[a->dtype], scalar_name[b->dtype]);
    if (a->numel != b->numel)
        return nt_fail(NT_ERR_RUNTIME,
                       "inconsistent tensor size, expected tensor [%" PRId64 "] and src [%" PRId64
                       "] to have the same number of elements, but got %" PRId64 " and %" PRId64
                       " elements respectively",
                       a->numel, b->numel, a->numel, b->numel);
    return check_dispatch("dot", a->dtype);
}

static nt_status dot_impl(const nt_tensor *a, const nt_tensor *b, nt_tensor *out,
                          nt_tensor **result) {
    NT_TRY(dot_check(a, b));
    if (out) {
        NT_TRY(check_out_shape(out, 0, NULL));
        if (out->dtype != a->dtype)
            return nt_fail(NT_ERR_RUNTIME, "result dtype %s does not match input dtype %s",
                           scalar_name[out->dtype], scalar_name[a->dtype]);
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

/* ------------------------------------------------------------------ bmm */

/* Multiplies the batches of a (B, n, m) and b (B, m, p) into dst (B, n, p), contiguous:
 * PyTorch's bmm_out_or_baddbmm_ (its small kernel below 400 multiply-adds per matrix,
 * else one GEMM per batch). Validation is the caller's. */
static nt_status bmm_compute(nt_tensor *dst, const nt_tensor *a, const nt_tensor *b) {
    if (dst->numel == 0) return NT_OK;
    int64_t bs = a->sizes[0], n = a->sizes[1], k = a->sizes[2], p = b->sizes[2];
    if (k == 0) return nt_zero_(dst);
    bool small = k * n * p < 400;
    if (small) {
        NT_TRY(check_dispatch("bmm", a->dtype));
        NT_TRY(check_same(a->dtype, dst->dtype));
        NT_TRY(check_same(a->dtype, b->dtype));
    } else {
        NT_TRY(check_dispatch("addmm_impl_cpu_", dst->dtype));
        NT_TRY(check_same(dst->dtype, b->dtype));
        NT_TRY(check_same(dst->dtype, a->dtype));
    }
    nt_gemm_scalars s = plain_scalars();
    const nt_tensor *ua = a, *ub = b;
    nt_tensor *oa = NULL, *ob = NULL;
    nt_status st = NT_OK;
    if (!small) {
        NT_CHECK(st, blas_operand(a, &ua, &oa));
        NT_CHECK(st, blas_operand(b, &ub, &ob));
    }
    for (int64_t i = 0; i < bs; i++) {
        mat ma = mat_of(ua, 1, 2, i * ua->strides[0]), mb = mat_of(ub, 1, 2, i * ub->strides[0]);
        mat mc = mat_of(dst, 1, 2, i * dst->strides[0]);
        gemm2d(dst->dtype, &mc, &ma, &mb, &s, small);
    }
    nt_storage_bump_version(dst->storage);
fail:
    nt_tensor_release(oa);
    nt_tensor_release(ob);
    return st;
}

static nt_status bmm_check(const nt_tensor *a, const nt_tensor *b) {
    if (a->ndim != 3) return nt_fail(NT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b->ndim != 3) return nt_fail(NT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b->sizes[0] != a->sizes[0] || b->sizes[1] != a->sizes[2])
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected size for first two dimensions of batch2 tensor to be: [%" PRId64
                       ", %" PRId64 "] but got: [%" PRId64 ", %" PRId64 "].",
                       a->sizes[0], a->sizes[2], b->sizes[0], b->sizes[1]);
    return NT_OK;
}

static nt_status bmm_impl(const nt_tensor *a, const nt_tensor *b, nt_tensor *out,
                          nt_tensor **result) {
    NT_TRY(bmm_check(a, b));
    int64_t shape[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
    if (out) {
        NT_TRY(check_out_shape(out, 3, shape));
        NT_TRY(check_out_dtype(out, b->dtype));
    }
    /* compute_bmm_outnames: inference runs when the out tensor is named too, so a named
     * out is checked even against unnamed inputs. */
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names = NULL;
    int nd;
    if (a->names || b->names || (out && out->names)) {
        NT_TRY(nt_names_matmul_slow(a->names, 3, b->names, 3, buf, &nd));
        names = buf;
    }
    nt_status st;
    if (out) {
        if (names) NT_TRY(nt_names_check_out(out->names, 3, names, 3));
        nt_tensor *dst;
        NT_TRY(pick_dest(out, a, b, &dst));
        st = finish_dest(out, dst, bmm_compute(dst, a, b));
        if (st == NT_OK && names) nt_tensor_set_names_unchecked(out, names);
        if (st == NT_OK && result) *result = nt_tensor_retain(out);
        return st;
    }
    nt_tensor *r;
    NT_TRY(nt_tensor_alloc(b->dtype, 3, shape, NULL, &r));
    NT_CHECK(st, bmm_compute(r, a, b));
    if (names) nt_tensor_set_names_unchecked(r, names);
    *result = r;
    return NT_OK;
fail:
    nt_tensor_release(r);
    return st;
}

/* ------------------------------------------------------------------ matmul */

/* A view of t with the given shape and strides (names dropped). */
static nt_status raw_view(const nt_tensor *t, int ndim, const int64_t *sizes,
                          const int64_t *strides, nt_tensor **out) {
    return nt_tensor_view_of(t, ndim, sizes, strides, t->offset, NULL, out);
}

/* PyTorch 1.13's should_fold(tensor1, dim_tensor2): a batched operand against a vector or
 * matrix becomes one mm/mv, unless it is a 3-d tensor whose matrices are transposed in
 * place (permute(0, 2, 1)), which bmm handles without a copy. */
static bool should_fold(const nt_tensor *t, int other_ndim) {
    if (t->ndim >= 3 && (other_ndim == 1 || other_ndim == 2)) {
        if (t->ndim == 3 && other_ndim == 2 && t->strides[2] != 1 &&
            t->strides[0] == t->sizes[1] * t->sizes[2])
            return false;
        return true;
    }
    return false;
}

/* The batch dims of a (all but its last two) broadcast with b's, PyTorch's infer_size. */
static nt_status broadcast_batch(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out,
                                 int *nout) {
    int n = na > nb ? na : nb;
    for (int i = n - 1; i >= 0; i--) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "The size of tensor a (%" PRId64
                           ") must match the size of tensor b (%" PRId64
                           ") at non-singleton dimension %d",
                           sa, sb, i);
        out[i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    return NT_OK;
}

/* t (of rank >= 1) as a 3-d (batch, rows, cols) view broadcast to the batch shape `batch`
 * (nb dims): a vector is a row (as_row) or a column. Batch dims that merge into one stride
 * stay views; otherwise a contiguous copy of the broadcast tensor is made. */
static nt_status as_batched(const nt_tensor *t, int nb, const int64_t *batch, int64_t rows,
                            int64_t cols, bool vector_as_col, nt_tensor **out) {
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    int tb = t->ndim > 2 ? t->ndim - 2 : 0;
    for (int i = 0; i < nb; i++) {
        int j = i - (nb - tb);
        sizes[i] = batch[i];
        strides[i] = (j >= 0 && t->sizes[j] != 1) ? t->strides[j] : 0;
    }
    if (t->ndim == 1) {
        sizes[nb] = rows;
        sizes[nb + 1] = cols;
        strides[nb] = vector_as_col ? t->strides[0] : 0;
        strides[nb + 1] = vector_as_col ? 0 : t->strides[0];
    } else {
        sizes[nb] = rows;
        sizes[nb + 1] = cols;
        strides[nb] = t->strides[t->ndim - 2];
        strides[nb + 1] = t->strides[t->ndim - 1];
    }
    /* the batch dims merge into one when each (of size > 1) steps over the next one */
    int64_t total = 1;
    bool mergeable = true;
    int last = -1, inner = -1; /* the previous and the innermost batch dims of size > 1 */
    for (int i = nb - 1; i >= 0; i--) {
        total *= sizes[i];
        if (sizes[i] == 1) continue;
        if (last >= 0 && strides[i] != strides[last] * sizes[last]) mergeable = false;
        if (inner < 0) inner = i;
        last = i;
    }
    int64_t s3[3] = {total, rows, cols};
    if (mergeable) {
        int64_t st3[3] = {inner >= 0 ? strides[inner] : 0, strides[nb], strides[nb + 1]};
        return raw_view(t, 3, s3, st3, out);
    }
    nt_tensor *full = NULL, *copy = NULL;
    NT_TRY(raw_view(t, nb + 2, sizes, strides, &full));
    nt_status st = nt_contiguous(full, &copy);
    nt_tensor_release(full);
    if (st != NT_OK) return st;
    int64_t st3[3] = {rows * cols, cols, 1};
    st = raw_view(copy, 3, s3, st3, out);
    nt_tensor_release(copy);
    return st;
}

/* matmul of unnamed operands, PyTorch's _matmul_impl: a new result in *result, or written
 * into `out` (then *result is a new reference to it). Each path checks out= as the
 * sub-op PyTorch calls there would. */
static nt_status matmul_nonames(const nt_tensor *t1, const nt_tensor *t2, nt_tensor *out,
                                nt_tensor **result) {
    int d1 = t1->ndim, d2 = t2->ndim;
    nt_tensor *v1 = NULL, *v2 = NULL, *r = NULL, *tmp = NULL;
    nt_status st = NT_OK;
    if (d1 == 1 && d2 == 1) return dot_impl(t1, t2, out, result);
    if (d1 == 2 && d2 == 1) return mv_impl(t1, t2, out, result);
    if (d1 == 2 && d2 == 2) return mm_impl(t1, t2, out, result);
    if (d1 == 1 && d2 == 2) {
        int64_t s[2] = {1, t1->sizes[0]}, str[2] = {t1->sizes[0] * t1->strides[0], t1->strides[0]};
        NT_TRY(raw_view(t1, 2, s, str, &v1));
        if (out) {
            int64_t s1[1] = {t2->sizes[1]};
            NT_CHECK(st, check_out_shape(out, 1, s1));
            int64_t os[2] = {1, out->sizes[0]},
                    ostr[2] = {out->sizes[0] * out->strides[0], out->strides[0]};
            NT_CHECK(st, nt_tensor_view_of(out, 2, os, ostr, out->offset, NULL, &v2));
            NT_CHECK(st, mm_impl(v1, t2, v2, NULL));
            *result = nt_tensor_retain(out);
        } else {
            NT_CHECK(st, mm_impl(v1, t2, NULL, &r));
            int64_t s1[1] = {r->sizes[1]}, st1[1] = {1};
            NT_CHECK(st, raw_view(r, 1, s1, st1, result));
        }
        goto fail;
    }
    if (should_fold(t1, d2)) {
        /* (batch..., n, m) folded to (batch*n, m) @ t2 */
        int64_t m = t1->sizes[d1 - 1], rows = 1;
        for (int i = 0; i < d1 - 1; i++)
            rows *= t1->sizes[i];
        int64_t fold[2] = {rows, m};
        NT_TRY(nt_reshape((nt_tensor *)t1, 2, fold, &v1));
        const nt_tensor *folded = v1;
        int64_t oshape[NT_MAX_DIMS];
        int on = d1 - 1;
        for (int i = 0; i < d1 - 1; i++)
            oshape[i] = t1->sizes[i];
        if (d2 == 2) oshape[on++] = t2->sizes[1];
        if (out) NT_CHECK(st, check_out_shape(out, on, oshape));
        nt_tensor *dst = NULL;
        if (out && out->is_contiguous && !nt_extents_overlap(out, t1) &&
            !nt_extents_overlap(out, t2)) {
            int64_t os[2] = {rows, d2 == 2 ? t2->sizes[1] : 1}, ostr[2];
            nt_contiguous_strides(d2 == 2 ? 2 : 1, os, ostr);
            NT_CHECK(st, nt_tensor_view_of(out, d2 == 2 ? 2 : 1, os, ostr, out->offset, NULL, &v2));
            dst = v2;
        }
        if (out && dst) {
            NT_CHECK(st, d2 == 2 ? mm_impl(folded, t2, dst, NULL) : mv_impl(folded, t2, dst, NULL));
            *result = nt_tensor_retain(out);
        } else {
            if (out) {
                /* PyTorch checks the out dtype of the folded product first */
                NT_CHECK(st, check_out_dtype(out, d2 == 2 ? folded->dtype : t2->dtype));
            }
            NT_CHECK(st, d2 == 2 ? mm_impl(folded, t2, NULL, &r) : mv_impl(folded, t2, NULL, &r));
            int64_t ostr[NT_MAX_DIMS];
            nt_contiguous_strides(on, oshape, ostr);
            nt_tensor *shaped = NULL;
            NT_CHECK(st, raw_view(r, on, oshape, ostr, &shaped));
            if (out) {
                st = nt_copy_(out, shaped);
                nt_tensor_release(shaped);
                if (st != NT_OK) goto fail;
                *result = nt_tensor_retain(out);
            } else {
                *result = shaped;
            }
        }
        goto fail;
    }
    bool fold_t = should_fold(t2, d1);
    /* The batched path (and the transposed fold, computed the same way): t1 (batch1, n, m1)
     * and t2 (batch2, m2, p) broadcast over the batch dims. */
    int64_t n = d1 > 1 ? t1->sizes[d1 - 2] : 1, m1 = t1->sizes[d1 - 1];
    int64_t m2 = d2 > 1 ? t2->sizes[d2 - 2] : t2->sizes[0], p = d2 > 1 ? t2->sizes[d2 - 1] : 1;
    int64_t batch[NT_MAX_DIMS];
    int nb = 0;
    if (fold_t) {
        /* PyTorch folds t2^T (batch*p, m2) against t1^T: its errors speak of that product */
        int64_t rows = p;
        for (int i = 0; i < d2 - 2; i++)
            rows *= t2->sizes[i];
        if (d1 == 2 && m2 != t1->sizes[1])
            return nt_fail(NT_ERR_RUNTIME,
                           "mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                           " and %" PRId64 "x%" PRId64 ")",
                           rows, m2, t1->sizes[1], t1->sizes[0]);
        if (d1 == 1 && m2 != t1->sizes[0])
            return nt_fail(NT_ERR_RUNTIME,
                           "size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64, rows,
                           rows, m2, t1->sizes[0]);
        nb = d2 - 2;
        for (int i = 0; i < nb; i++)
            batch[i] = t2->sizes[i];
    } else {
        NT_TRY(broadcast_batch(t1->sizes, d1 > 2 ? d1 - 2 : 0, t2->sizes, d2 > 2 ? d2 - 2 : 0,
                               batch, &nb));
    }
    int64_t bprod = 1;
    for (int i = 0; i < nb; i++)
        bprod *= batch[i];
    if (!fold_t && m1 != m2)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected size for first two dimensions of batch2 tensor to be: [%" PRId64
                       ", %" PRId64 "] but got: [%" PRId64 ", %" PRId64 "].",
                       bprod, m1, bprod, m2);
    int64_t oshape[NT_MAX_DIMS];
    int on = nb;
    for (int i = 0; i < nb; i++)
        oshape[i] = batch[i];
    if (d1 > 1) oshape[on++] = n;
    if (d2 > 1) oshape[on++] = p;
    /* the dtype PyTorch's sub-op gives its result, and the errors of that sub-op */
    nt_dtype rdt = fold_t && d1 == 1 ? t1->dtype : t2->dtype;
    if (out) {
        NT_TRY(check_out_shape(out, on, oshape));
        NT_TRY(check_out_dtype(out, rdt));
    }
    if (fold_t) {
        NT_TRY(check_dispatch(d1 == 2 ? "addmm_impl_cpu_" : "addmv_impl_cpu", t2->dtype));
        NT_TRY(check_same(t2->dtype, t1->dtype));
    }
    NT_CHECK(st, as_batched(t1, nb, batch, n, m1, false, &v1));
    NT_CHECK(st, as_batched(t2, nb, batch, m2, p, true, &v2));
    int64_t s3[3] = {bprod, n, p};
    NT_CHECK(st, nt_tensor_alloc(rdt, 3, s3, NULL, &r));
    NT_CHECK(st, bmm_compute(r, v1, v2));
    int64_t ostr[NT_MAX_DIMS];
    nt_contiguous_strides(on, oshape, ostr);
    NT_CHECK(st, raw_view(r, on, oshape, ostr, &tmp));
    if (out) {
        NT_CHECK(st, nt_copy_(out, tmp));
        *result = nt_tensor_retain(out);
    } else {
        *result = tmp;
        tmp = NULL;
    }
fail:
    nt_tensor_release(v1);
    nt_tensor_release(v2);
    nt_tensor_release(r);
    nt_tensor_release(tmp);
    return st;
}

static nt_status matmul_impl(const nt_tensor *t1, const nt_tensor *t2, nt_tensor *out,
                             nt_tensor **result) {
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names = NULL;
    int nd;
    /* compute_matmul_outnames runs first (it rejects 0-d inputs when names are involved),
     * then _matmul_impl's own rank check. */
    if (t1->names || t2->names)
        NT_TRY(nt_names_matmul(t1->names, t1->ndim, t2->names, t2->ndim, buf, &nd, &names));
    if (t1->ndim == 0 || t2->ndim == 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                       t1->ndim, t2->ndim);
    nt_tensor *u1 = NULL, *u2 = NULL, *r = NULL;
    nt_status st;
    if (!t1->names && !t2->names) return matmul_nonames(t1, t2, out, result);
    if (!out && t1->ndim == 2 && t2->ndim == 2) { /* mm's names are matmul's */
        NT_TRY(mm_check_shapes(t1, t2));
        return mm_named(t1, t2, NULL, result, names);
    }
    /* The sub-ops run without names (NoNamesGuard): unname views of the operands. */
    NT_CHECK(st, nt_tensor_view_of(t1, t1->ndim, t1->sizes, t1->strides, t1->offset, NULL, &u1));
    NT_CHECK(st, nt_tensor_view_of(t2, t2->ndim, t2->sizes, t2->strides, t2->offset, NULL, &u2));
    if (out && names) {
        /* the out= check happens after the product in PyTorch; its shape must be right */
        NT_CHECK(st, matmul_nonames(u1, u2, out, &r));
        NT_CHECK(st, nt_names_check_out(out->names, out->ndim, names, nd));
        nt_tensor_set_names_unchecked(out, names);
    } else {
        NT_CHECK(st, matmul_nonames(u1, u2, out, &r));
        if (names && !out) nt_tensor_set_names_unchecked(r, names);
    }
    *result = r;
    r = NULL;
fail:
    nt_tensor_release(u1);
    nt_tensor_release(u2);
    nt_tensor_release(r);
    return st;
}

/* ------------------------------------------------------------------ public API */

#define NT_REQUIRE(fn, x, name)                                                                    \
    do {                                                                                           \
        if (!(x)) return null_arg(fn, name);                                                       \
    } while (0)

nt_status nt_mm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("mm", a, "self");
    NT_REQUIRE("mm", b, "mat2");
    NT_REQUIRE("mm", out, "out");
    return mm_impl(a, b, NULL, out);
}

nt_status nt_mm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("mm", a, "self");
    NT_REQUIRE("mm", b, "mat2");
    NT_REQUIRE("mm", out, "out");
    return mm_impl(a, b, out, NULL);
}

nt_status nt_mv(const nt_tensor *mat_, const nt_tensor *vec, nt_tensor **out) {
    NT_REQUIRE("mv", mat_, "self");
    NT_REQUIRE("mv", vec, "vec");
    NT_REQUIRE("mv", out, "out");
    return mv_impl(mat_, vec, NULL, out);
}

nt_status nt_mv_out(nt_tensor *out, const nt_tensor *mat_, const nt_tensor *vec) {
    NT_REQUIRE("mv", mat_, "self");
    NT_REQUIRE("mv", vec, "vec");
    NT_REQUIRE("mv", out, "out");
    return mv_impl(mat_, vec, out, NULL);
}

nt_status nt_dot(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("dot", a, "self");
    NT_REQUIRE("dot", b, "tensor");
    NT_REQUIRE("dot", out, "out");
    return dot_impl(a, b, NULL, out);
}

nt_status nt_dot_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("dot", a, "self");
    NT_REQUIRE("dot", b, "tensor");
    NT_REQUIRE("dot", out, "out");
    return dot_impl(a, b, out, NULL);
}

nt_status nt_bmm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("bmm", a, "self");
    NT_REQUIRE("bmm", b, "mat2");
    NT_REQUIRE("bmm", out, "out");
    return bmm_impl(a, b, NULL, out);
}

nt_status nt_bmm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("bmm", a, "self");
    NT_REQUIRE("bmm", b, "mat2");
    NT_REQUIRE("bmm", out, "out");
    return bmm_impl(a, b, out, NULL);
}

nt_status nt_matmul(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("matmul", a, "input");
    NT_REQUIRE("matmul", b, "other");
    NT_REQUIRE("matmul", out, "out");
    return matmul_impl(a, b, NULL, out);
}

nt_status nt_matmul_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("matmul", a, "input");
    NT_REQUIRE("matmul", b, "other");
    NT_REQUIRE("matmul", out, "out");
    nt_tensor *r = NULL;
    nt_status st = matmul_impl(a, b, out, &r);
    nt_tensor_release(r);
    return st;
}

nt_status nt_addmm(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2, nt_scalar beta,
                   nt_scalar alpha, nt_tensor **out) {
    NT_REQUIRE("addmm", self, "input");
    NT_REQUIRE("addmm", mat1, "mat1");
    NT_REQUIRE("addmm", mat2, "mat2");
    NT_REQUIRE("addmm", out, "out");
    return addmm_impl(self, mat1, mat2, beta, alpha, NULL, false, out);
}

nt_status nt_addmm_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat1,
                       const nt_tensor *mat2, nt_scalar beta, nt_scalar alpha) {
    NT_REQUIRE("addmm", self, "input");
    NT_REQUIRE("addmm", mat1, "mat1");
    NT_REQUIRE("addmm", mat2, "mat2");
    NT_REQUIRE("addmm", out, "out");
    return addmm_impl(self, mat1, mat2, beta, alpha, out, false, NULL);
}

nt_status nt_addmm_(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2, nt_scalar beta,
                    nt_scalar alpha) {
    NT_REQUIRE("addmm_", self, "self");
    NT_REQUIRE("addmm_", mat1, "mat1");
    NT_REQUIRE("addmm_", mat2, "mat2");
    return addmm_impl(self, mat1, mat2, beta, alpha, NULL, true, NULL);
}

nt_status nt_addmv(nt_tensor *self, const nt_tensor *mat_, const nt_tensor *vec, nt_scalar beta,
                   nt_scalar alpha, nt_tensor **out) {
    NT_REQUIRE("addmv", self, "input");
    NT_REQUIRE("addmv", mat_, "mat");
    NT_REQUIRE("addmv", vec, "vec");
    NT_REQUIRE("addmv", out, "out");
    return addmv_impl(self, mat_, vec, beta, alpha, NULL, false, out);
}

nt_status nt_addmv_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat_, const nt_tensor *vec,
                       nt_scalar beta, nt_scalar alpha) {
    NT_REQUIRE("addmv", self, "input");
    NT_REQUIRE("addmv", mat_, "mat");
    NT_REQUIRE("addmv", vec, "vec");
    NT_REQUIRE("addmv", out, "out");
    return addmv_impl(self, mat_, vec, beta, alpha, out, false, NULL);
}

nt_status nt_addmv_(nt_tensor *self, const nt_tensor *mat_, const nt_tensor *vec, nt_scalar beta,
                    nt_scalar alpha) {
    NT_REQUIRE("addmv_", self, "self");
    NT_REQUIRE("addmv_", mat_, "mat");
    NT_REQUIRE("addmv_", vec, "vec");
    return addmv_impl(self, mat_, vec, beta, alpha, NULL, true, NULL);
}
