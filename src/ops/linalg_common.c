/*
 * linalg_common.c — what the matrix products share (linalg.h): PyTorch's checks and
 * texts, alpha and beta for the kernels, matrices and their BLAS layouts, the 2-D product
 * dispatch to kernels/gemm.c, and out= destinations.
 */

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "linalg.h"
#include "names/names.h"

/* ------------------------------------------------------------------ PyTorch's texts */

/* caffe2::TypeMeta names ("Expected out tensor to have dtype float, but got double"). */
static const char *const meta_name[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "bool",         [NT_UINT8] = "unsigned char",
    [NT_INT8] = "signed char",  [NT_INT16] = "short int",
    [NT_INT32] = "int",         [NT_INT64] = "long int",
    [NT_FLOAT16] = "c10::Half", [NT_BFLOAT16] = "c10::BFloat16",
    [NT_FLOAT32] = "float",     [NT_FLOAT64] = "double",
};

/* PyTorch's AT_DISPATCH error: the products support every dtype but bool and float16. */
nt_status nt_la_check_dispatch(const char *kernel, nt_dtype dtype) {
    if (dtype == NT_BOOL || dtype == NT_FLOAT16)
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                       nt_dtype_torch_name(dtype));
    return NT_OK;
}

/* data_ptr<scalar_t>()'s error for an operand of another dtype. */
nt_status nt_la_check_same(nt_dtype expected, nt_dtype found) {
    if (expected != found)
        return nt_fail(NT_ERR_RUNTIME, "expected scalar type %s but found %s",
                       nt_dtype_torch_name(expected), nt_dtype_torch_name(found));
    return NT_OK;
}

nt_status nt_la_check_out_dtype(const nt_tensor *out, nt_dtype expected) {
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

/* The structured-kernel check of an in-place call (shape, then dtype). */
nt_status nt_la_check_inplace(const nt_tensor *self, int ndim, const int64_t *sizes,
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

nt_status nt_la_bias_shape(const nt_tensor *bias, int ndim, const int64_t *sizes, nt_dtype dtype,
                           bool inplace, nt_shape *s) {
    if (inplace) NT_TRY(nt_la_check_inplace(bias, ndim, sizes, dtype));
    return nt_expand_shape(bias, ndim, sizes, s);
}

/* ------------------------------------------------------------------ scalars */

static double scalar_double(nt_scalar s) {
    return s.kind == NT_SCALAR_FLOAT ? s.v.f : s.kind == NT_SCALAR_INT ? (double)s.v.i : s.v.b;
}

/* alpha/beta converted as PyTorch's Scalar::to<T>() does for the kernels of `dtype`
 * (checked: "value cannot be converted to type int8_t without overflow"). */
nt_status nt_la_make_scalars(nt_dtype dtype, nt_scalar beta, nt_scalar alpha, nt_gemm_scalars *s) {
    NT_TRY(nt_scalar_check_fits(alpha, dtype));
    NT_TRY(nt_scalar_check_fits(beta, dtype));
    memset(s, 0, sizeof *s);
    s->alpha = scalar_double(alpha);
    s->beta = scalar_double(beta);
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

nt_gemm_scalars nt_la_plain_scalars(void) {
    nt_gemm_scalars s = {
        .alpha = 1, .beta = 0, .ialpha = 1, .ibeta = 0, .beta_zero = true, .beta_one = false};
    return s;
}

/* ------------------------------------------------------------------ matrices */

nt_la_mat nt_la_mat_of(const nt_tensor *t, int d0, int d1) {
    nt_la_mat m = {
        nt_tensor_bytes(t), t->sizes[d0], t->sizes[d1], t->strides[d0], t->strides[d1], 0, 0};
    return m;
}

nt_la_mat nt_la_batch_of(const nt_tensor *t) {
    int d = t->ndim;
    nt_la_mat m = nt_la_mat_of(t, d - 2, d - 1);
    m.bs = t->sizes[d - 3] > 1 ? t->strides[d - 3] : 0;
    if (d == 4) m.bo = t->sizes[0] > 1 ? t->strides[0] : 0;
    return m;
}

int64_t nt_la_max1(int64_t x) {
    return x > 1 ? x : 1;
}

/* Whether BLAS can read m as it is: row-major (trans false) or column-major (trans true)
 * with a leading dim >= its row length; strides of size-one dims do not matter. */
static bool blas_layout(const nt_la_mat *m, bool *trans, int64_t *ld) {
    int64_t cs = m->cols <= 1 ? 1 : m->cs, rs = m->rows <= 1 ? nt_la_max1(m->cols) : m->rs;
    if (cs == 1 && rs >= nt_la_max1(m->cols)) {
        *trans = false;
        *ld = rs;
        return true;
    }
    rs = m->rows <= 1 ? 1 : m->rs;
    cs = m->cols <= 1 ? nt_la_max1(m->rows) : m->cs;
    if (rs == 1 && cs >= nt_la_max1(m->rows)) {
        *trans = true;
        *ld = cs;
        return true;
    }
    return false;
}

/* Converts `batch` rows x cols matrices into another dtype through the copy loops (layer
 * L3). A stride along a dim of size one is never applied (it may be anything). */
static void convert_mats(nt_dtype to, const nt_la_mat *dst, nt_dtype from, const nt_la_mat *src,
                         int64_t batch) {
    int64_t rows = src->rows, cols = src->cols;
    if (rows == 0 || cols == 0) return;
    int64_t ts = (int64_t)nt_dtype_table[to].size, fs = (int64_t)nt_dtype_table[from].size;
    int64_t st[4] = {cols > 1 ? dst->cs * ts : 0, cols > 1 ? src->cs * fs : 0,
                     rows > 1 ? dst->rs * ts : 0, rows > 1 ? src->rs * fs : 0};
    nt_loop2d loop = nt_convert_loop(to, from);
    for (int64_t p = 0; p < batch; p++) {
        char *data[2] = {dst->data + p * dst->bs * ts, src->data + p * src->bs * fs};
        loop(data, st, cols, rows, NULL);
    }
}

/* bfloat16: the operands widened to float32 (exactly), one float32 product, and the result
 * alpha*sum + beta*C, computed in float32, rounded once to bfloat16. The product of two
 * bfloat16 values is exact in float32 (8 + 8 significant bits), so only the float32 sums
 * round: the result is the correctly rounded float32 sum. */
static nt_status gemm_bf16(int64_t batch, const nt_la_mat *c, const nt_la_mat *a,
                           const nt_la_mat *b, const nt_gemm_scalars *s) {
    int64_t m = a->rows, k = a->cols, n = b->cols, per, floats;
    if (__builtin_mul_overflow(m + n, k, &per) || __builtin_add_overflow(per, m * n, &per) ||
        __builtin_mul_overflow(per, batch, &floats) || floats > (int64_t)(SIZE_MAX / sizeof(float)))
        return nt_fail(NT_ERR_MEMORY,
                       "bfloat16 product of %" PRId64 " x %" PRId64 "x%" PRId64 " and %" PRId64
                       "x%" PRId64 " is too large",
                       batch, m, k, k, n);
    size_t bytes = (size_t)floats * sizeof(float);
    float *buf = nt_alloc_data(bytes);
    if (!buf)
        return nt_fail(NT_ERR_MEMORY, "out of memory (%zu bytes for a bfloat16 product)", bytes);
    /* row-major float32 copies, one after another */
    nt_la_mat fa = {(char *)buf, m, k, k, 1, m * k, 0};
    nt_la_mat fb = {(char *)(buf + batch * m * k), k, n, n, 1, k * n, 0};
    nt_la_mat fc = {(char *)(buf + batch * (m * k + k * n)), m, n, n, 1, m * n, 0};
    convert_mats(NT_FLOAT32, &fa, NT_BFLOAT16, a, batch);
    convert_mats(NT_FLOAT32, &fb, NT_BFLOAT16, b, batch);
    if (!s->beta_zero) convert_mats(NT_FLOAT32, &fc, NT_BFLOAT16, c, batch);
    nt_gemm_blas_batched(NT_FLOAT32, false, false, batch, m, n, k, fa.data, nt_la_max1(k), fa.bs,
                         fb.data, nt_la_max1(n), fb.bs, fc.data, nt_la_max1(n), fc.bs, s);
    convert_mats(NT_BFLOAT16, c, NT_FLOAT32, &fc, batch);
    nt_free_data(buf, bytes);
    return NT_OK;
}

nt_status nt_la_gemm2(nt_dtype dtype, int64_t outer, int64_t inner, const nt_la_mat *c,
                      const nt_la_mat *a, const nt_la_mat *b, const nt_gemm_scalars *s,
                      bool small_bmm) {
    int64_t m = a->rows, n = b->cols;
    if (m == 0 || n == 0 || outer == 0 || inner == 0) return NT_OK;
    bool ta, tb;
    int64_t lda, ldb;
    if ((dtype == NT_FLOAT32 || dtype == NT_FLOAT64) && !small_bmm && blas_layout(a, &ta, &lda) &&
        blas_layout(b, &tb, &ldb)) {
        nt_gemm_batch bt = {.outer = outer,
                            .inner = inner,
                            .sa_outer = a->bo,
                            .sb_outer = b->bo,
                            .sc_outer = c->bo,
                            .sa = a->bs,
                            .sb = b->bs,
                            .sc = c->bs};
        nt_gemm_blas_batched2(dtype, ta, tb, &bt, m, n, a->cols, a->data, lda, b->data, ldb,
                              c->data, c->rs, s);
        return NT_OK;
    }
    const int64_t es = (int64_t)nt_dtype_table[dtype].size;
    for (int64_t o = 0; o < outer; o++) {
        nt_la_mat oa = *a, ob = *b, oc = *c;
        oa.data += o * a->bo * es, ob.data += o * b->bo * es, oc.data += o * c->bo * es;
        NT_TRY(nt_la_gemm(dtype, inner, &oc, &oa, &ob, s, small_bmm));
    }
    return NT_OK;
}

nt_status nt_la_gemm(nt_dtype dtype, int64_t batch, const nt_la_mat *c, const nt_la_mat *a,
                     const nt_la_mat *b, const nt_gemm_scalars *s, bool small_bmm) {
    int64_t m = a->rows, k = a->cols, n = b->cols;
    if (m == 0 || n == 0 || batch == 0) return NT_OK;
    const int64_t es = (int64_t)nt_dtype_table[dtype].size;
    bool ta, tb;
    int64_t lda, ldb;
    switch (dtype) {
    case NT_FLOAT32:
    case NT_FLOAT64:
        if (!small_bmm && blas_layout(a, &ta, &lda) && blas_layout(b, &tb, &ldb)) {
            nt_gemm_blas_batched(dtype, ta, tb, batch, m, n, k, a->data, lda, a->bs, b->data, ldb,
                                 b->bs, c->data, c->rs, c->bs, s);
            return NT_OK;
        }
        for (int64_t p = 0; p < batch; p++)
            nt_gemm_small(dtype, m, n, k, a->data + p * a->bs * es, a->rs, a->cs,
                          b->data + p * b->bs * es, b->rs, b->cs, c->data + p * c->bs * es, c->rs,
                          s);
        return NT_OK;
    case NT_BFLOAT16:
        return gemm_bf16(batch, c, a, b, s);
    default:
        for (int64_t p = 0; p < batch; p++)
            nt_gemm_int(dtype, m, n, k, a->data + p * a->bs * es, a->rs, a->cs,
                        b->data + p * b->bs * es, b->rs, b->cs, c->data + p * c->bs * es, c->rs, s);
        return NT_OK;
    }
}

/* For float32/float64 BLAS: `t` itself when the matrices of its last two dims are row- or
 * column-major, else a contiguous copy (what PyTorch does). *owned gets the copy. */
nt_status nt_la_blas_operand(const nt_tensor *t, const nt_tensor **use, nt_tensor **owned) {
    *use = t;
    *owned = NULL;
    if (t->dtype != NT_FLOAT32 && t->dtype != NT_FLOAT64) return NT_OK;
    nt_la_mat m = nt_la_mat_of(t, t->ndim - 2, t->ndim - 1);
    bool trans;
    int64_t ld;
    if (blas_layout(&m, &trans, &ld)) return NT_OK;
    NT_TRY(nt_contiguous((nt_tensor *)t, owned));
    *use = *owned;
    return NT_OK;
}

/* Scales dst (contiguous) by beta, in its dtype: PyTorch's `result.mul_(beta)` of an empty
 * contraction. */
void nt_la_scale_into(nt_tensor *dst, const nt_gemm_scalars *s) {
    nt_gemm_scale(dst->dtype, nt_tensor_bytes(dst), dst->numel, s);
}

/* ------------------------------------------------------------------ destinations */

/* Where a product writes: `out` itself when it is contiguous and shares no memory with the
 * operands, else a fresh contiguous tensor of its shape and dtype. */
nt_status nt_la_pick_dest(nt_tensor *out, const nt_tensor *x, const nt_tensor *y, nt_tensor **dst) {
    if (out->is_contiguous && !nt_extents_overlap(out, x) && !nt_extents_overlap(out, y)) {
        *dst = nt_tensor_retain(out);
        return NT_OK;
    }
    return nt_tensor_alloc(out->dtype, out->ndim, out->sizes, NULL, dst);
}

/* Copies dst into out when they differ, and releases dst. */
nt_status nt_la_finish_dest(nt_tensor *out, nt_tensor *dst, nt_status st) {
    if (st == NT_OK && dst != out) st = nt_copy_(out, dst);
    nt_tensor_release(dst);
    return st;
}
