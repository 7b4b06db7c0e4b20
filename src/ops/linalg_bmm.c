/*
 * linalg_bmm.c — bmm (out=): one 2-D product per batch entry.
 */
#include <inttypes.h>

#include "core/status.h"
#include "linalg.h"
#include "names/infer.h"

/* ------------------------------------------------------------------ bmm */

/* Multiplies the batches of a (B, n, m) and b (B, m, p) into dst (B, n, p), contiguous:
 * PyTorch's bmm_out_or_baddbmm_ (its small kernel below 400 multiply-adds per matrix,
 * else one GEMM per batch). Validation is the caller's. */
nt_status nt_la_bmm_compute(nt_tensor *dst, const nt_tensor *a, const nt_tensor *b) {
    if (dst->numel == 0) return NT_OK;
    const int d = a->ndim; /* 3, or 4 for a two-level batch */
    int64_t outer = d == 4 ? a->sizes[0] : 1, bs = a->sizes[d - 3], n = a->sizes[d - 2],
            k = a->sizes[d - 1], p = b->sizes[d - 1];
    if (k == 0) return nt_zero_(dst);
    bool small = k * n * p < 400;
    if (small) {
        NT_TRY(nt_la_check_dispatch("bmm", a->dtype));
        NT_TRY(nt_la_check_same(a->dtype, dst->dtype));
        NT_TRY(nt_la_check_same(a->dtype, b->dtype));
    } else {
        NT_TRY(nt_la_check_dispatch("addmm_impl_cpu_", dst->dtype));
        NT_TRY(nt_la_check_same(dst->dtype, b->dtype));
        NT_TRY(nt_la_check_same(dst->dtype, a->dtype));
    }
    nt_gemm_scalars s = nt_la_plain_scalars();
    const nt_tensor *ua = a, *ub = b;
    nt_tensor *oa = NULL, *ob = NULL;
    nt_status st = NT_OK;
    if (!small) {
        NT_CHECK(st, nt_la_blas_operand(a, &ua, &oa));
        NT_CHECK(st, nt_la_blas_operand(b, &ub, &ob));
    }
    nt_la_mat ma = nt_la_batch_of(ua), mb = nt_la_batch_of(ub), mc = nt_la_batch_of(dst);
    NT_CHECK(st, nt_la_gemm2(dst->dtype, outer, bs, &mc, &ma, &mb, &s, small));
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
        NT_TRY(nt_la_check_out_dtype(out, b->dtype));
        NT_TRY(nt_out_resize(out, 3, shape));
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
        NT_TRY(nt_la_pick_dest(out, a, b, &dst));
        st = nt_la_finish_dest(out, dst, nt_la_bmm_compute(dst, a, b));
        if (st == NT_OK && names) nt_tensor_set_names_unchecked(out, names);
        if (st == NT_OK && result) *result = nt_tensor_retain(out);
        return st;
    }
    nt_tensor *r;
    NT_TRY(nt_tensor_alloc(b->dtype, 3, shape, NULL, &r));
    NT_CHECK(st, nt_la_bmm_compute(r, a, b));
    if (names) nt_tensor_set_names_unchecked(r, names);
    *result = r;
    return NT_OK;
fail:
    nt_tensor_release(r);
    return st;
}

/* ------------------------------------------------------------------ the row's function */

nt_status nt_impl_bmm(nt_call *c) {
    return bmm_impl(c->args[0].v.t, c->args[1].v.t, c->out[0], &c->result[0]);
}

nt_status nt_shape_bmm(const nt_call *c, nt_shape *s) {
    const nt_tensor *a = c->args[0].v.t, *b = c->args[1].v.t;
    NT_TRY(bmm_check(a, b));
    int64_t shape[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
    nt_shape_set(s, 3, shape);
    return NT_OK;
}

/* ------------------------------------------------------------------ public API */

nt_status nt_bmm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out) {
    NT_REQUIRE("bmm", a, "self");
    NT_REQUIRE("bmm", b, "mat2");
    NT_REQUIRE("bmm", out, "out");
    return nt_la_product(NT_OP_BMM, a, b, NULL, out);
}

nt_status nt_bmm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b) {
    NT_REQUIRE("bmm", a, "self");
    NT_REQUIRE("bmm", b, "mat2");
    NT_REQUIRE("bmm", out, "out");
    return nt_la_product(NT_OP_BMM, a, b, out, NULL);
}
