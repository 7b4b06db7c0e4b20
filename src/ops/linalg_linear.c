/*
 * linalg_linear.c — linear(input, weight, bias) = input @ weight.T + bias (layer L4), as
 * torch.nn.functional.linear.
 *
 * The usual case, input of two or more dims and a 2-d weight, is one GEMM: input's leading
 * dims flattened into rows (a view of a contiguous input: no copy), weight read transposed
 * through the GEMM's transpose flag, the bias broadcast into the result first and added by
 * the product's beta = 1 (PyTorch's addmm; a bias of any shape that broadcasts to the
 * result). Other ranks (a 1-d input or weight) are PyTorch's matmul(input, weight.t()) then
 * `+= bias`, with its texts.
 *
 * Names (docs/name_inference.md): matmul's rule on (input, weight.T): input's leading names,
 * then weight's first name (the output features: None for an unnamed weight), which must not
 * repeat one of them; unified from the right with the bias's names.
 */
#include <inttypes.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "linalg.h"
#include "names/infer.h"
#include "ops/nn.h"

static bool gemm_case(const nt_tensor *x, const nt_tensor *w) {
    return x->ndim >= 2 && w->ndim == 2;
}

/* The GEMM case's checks (addmm's with a bias, mm's without, in their orders) and shape. */
static nt_status gemm_shape(const nt_tensor *x, const nt_tensor *w, const nt_tensor *b,
                            nt_shape *s) {
    const int64_t d = x->sizes[x->ndim - 1];
    if (b && b->dtype != w->dtype)
        return nt_fail(NT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    if (b && x->dtype != w->dtype)
        return nt_fail(NT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
    int64_t flat = 1;
    for (int i = 0; i < x->ndim - 1; i++)
        flat *= x->sizes[i];
    if (d != w->sizes[1])
        return nt_fail(NT_ERR_RUNTIME,
                       "mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                       " and %" PRId64 "x%" PRId64 ")",
                       flat, d, w->sizes[1], w->sizes[0]);
    NT_TRY(nt_la_check_dispatch("addmm_impl_cpu_", x->dtype));
    if (x->dtype != w->dtype) NT_TRY(nt_la_check_same(x->dtype, w->dtype));
    nt_shape_set(s, x->ndim, x->sizes);
    s->sizes[x->ndim - 1] = w->sizes[0];
    if (b) {
        nt_shape e;
        NT_TRY(nt_expand_shape(b, s->ndim, s->sizes, &e));
    }
    return NT_OK;
}

/* weight.T as a view (1-d and 0-d weights are their own transpose; t()'s error beyond) */
static nt_status weight_t(nt_tensor *w, nt_tensor **out) {
    if (w->ndim > 2)
        return nt_fail(NT_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is %dD",
                       w->ndim);
    if (w->ndim < 2) return *out = nt_tensor_retain(w), NT_OK;
    int64_t sizes[2] = {w->sizes[1], w->sizes[0]}, strides[2] = {w->strides[1], w->strides[0]};
    nt_name names[2] = {nt_tensor_name_at(w, 1), nt_tensor_name_at(w, 0)};
    return nt_tensor_view_of(w, 2, sizes, strides, w->offset, w->names ? names : NULL, out);
}

/* The result's names: matmul's of (x, w.T), then unified with the bias's. */
static nt_status linear_names(const nt_tensor *x, const nt_tensor *w, const nt_tensor *b,
                              nt_name *buf, const nt_name **names) {
    *names = NULL;
    if (!x->names && !w->names && (!b || !b->names)) return NT_OK;
    nt_name wt[2] = {nt_tensor_name_at(w, 1), nt_tensor_name_at(w, 0)};
    nt_name mm[NT_MAX_DIMS];
    int nd;
    NT_TRY(nt_names_matmul_slow(x->names, x->ndim, w->names ? wt : NULL, 2, mm, &nd));
    if (b) {
        NT_TRY(nt_names_unify_from_right_slow("broadcast", mm, nd, b->names, b->ndim, buf));
    } else {
        for (int i = 0; i < nd; i++)
            buf[i] = mm[i];
    }
    *names = buf;
    return NT_OK;
}

static nt_status linear_gemm(nt_tensor *x, nt_tensor *w, nt_tensor *b, nt_tensor **result) {
    nt_shape s;
    NT_TRY(gemm_shape(x, w, b, &s));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    NT_TRY(linear_names(x, w, b, buf, &names));
    const int64_t d = x->sizes[x->ndim - 1], o = w->sizes[0];
    nt_tensor *xc = NULL, *x2 = NULL, *wt = NULL, *ub_own = NULL, *out = NULL, *eb = NULL;
    nt_status st;
    NT_CHECK(st, nt_tensor_alloc(x->dtype, s.ndim, s.sizes, names, &out));
    if (b) {
        NT_CHECK(st, nt_expand(b, s.ndim, s.sizes, &eb));
        NT_CHECK(st, nt_copy_(out, eb));
    }
    if (out->numel == 0) goto done;
    if (d == 0) {
        if (!b) NT_CHECK(st, nt_zero_(out));
        goto done;
    }
    NT_CHECK(st, nt_contiguous(x, &xc));
    const int64_t rows = xc->numel / d;
    int64_t xs[2] = {rows, d}, xst[2] = {d, 1};
    NT_CHECK(st, nt_tensor_view_of(xc, 2, xs, xst, xc->offset, NULL, &x2));
    NT_CHECK(st, weight_t(w, &wt));
    nt_gemm_scalars sc;
    NT_CHECK(st, nt_la_make_scalars(x->dtype, nt_scalar_int(b ? 1 : 0), nt_scalar_int(1), &sc));
    const nt_tensor *ub = wt;
    NT_CHECK(st, nt_la_blas_operand(wt, &ub, &ub_own));
    nt_la_mat ma = nt_la_mat_of(x2, 0, 1), mb = nt_la_mat_of(ub, 0, 1);
    nt_la_mat mc = {.data = nt_tensor_bytes(out), .rows = rows, .cols = o, .rs = o, .cs = 1};
    NT_CHECK(st, nt_la_gemm(x->dtype, 1, &mc, &ma, &mb, &sc, false));
done:
    *result = out;
    out = NULL;
    st = NT_OK;
fail:
    nt_tensor_release(xc);
    nt_tensor_release(x2);
    nt_tensor_release(wt);
    nt_tensor_release(ub_own);
    nt_tensor_release(eb);
    nt_tensor_release(out);
    return st;
}

/* Other ranks: matmul(x, w.t()), then the bias added in place (PyTorch's output.add_). */
static nt_status linear_matmul(nt_tensor *x, nt_tensor *w, nt_tensor *b, nt_tensor **result) {
    nt_tensor *wt = NULL, *r = NULL;
    nt_status st;
    NT_CHECK(st, weight_t(w, &wt));
    NT_CHECK(st, nt_matmul(x, wt, &r));
    if (b) NT_CHECK(st, nt_binary_(NT_OP_ADD, r, b));
    *result = r;
    r = NULL;
fail:
    nt_tensor_release(wt);
    nt_tensor_release(r);
    return st;
}

/* PyTorch's addmm path takes a 2-d input with a bias whatever the weight's rank */
static nt_status check_addmm_rank(const nt_tensor *x, const nt_tensor *w, const nt_tensor *b) {
    if (x->ndim == 2 && b && w->ndim < 2)
        return nt_fail(NT_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", w->ndim);
    return NT_OK;
}

static nt_status linear(nt_tensor *x, nt_tensor *w, nt_tensor *b, nt_tensor **result) {
    if (!x) return nt_fail_null_tensor("linear", "input");
    if (!w) return nt_fail_null_tensor("linear", "weight");
    if (gemm_case(x, w)) return linear_gemm(x, w, b, result);
    NT_TRY(check_addmm_rank(x, w, b));
    return linear_matmul(x, w, b, result);
}

/* ------------------------------------------------------------------ the row's functions */

nt_status nt_impl_linear(nt_call *c) {
    return linear(nt_call_tensor(c, 0), nt_call_tensor(c, 1), nt_call_tensor(c, 2), &c->result[0]);
}

nt_status nt_shape_linear(const nt_call *c, nt_shape *s) {
    nt_tensor *x = nt_call_tensor(c, 0), *w = nt_call_tensor(c, 1), *b = nt_call_tensor(c, 2);
    if (gemm_case(x, w)) return gemm_shape(x, w, b, s);
    NT_TRY(check_addmm_rank(x, w, b));
    /* matmul's rule on (x, w.t()), then the bias must broadcast into that shape */
    nt_tensor *wt;
    NT_TRY(weight_t(w, &wt));
    nt_call m;
    nt_call_init(&m, NT_OP_MATMUL);
    m.args[0] = nt_arg_tensor(x);
    m.args[1] = nt_arg_tensor(wt);
    nt_status st = nt_shape_rule_of(NT_OP_MATMUL)(&m, s);
    nt_tensor_release(wt);
    if (st != NT_OK || !b) return st;
    nt_shape e;
    return nt_expand_shape(b, s->ndim, s->sizes, &e);
}

/* ------------------------------------------------------------------ public API */

nt_status nt_linear(nt_tensor *input, nt_tensor *weight, nt_tensor *bias, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "linear(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_LINEAR);
    c.args[0] = nt_arg_tensor(input);
    c.args[1] = nt_arg_tensor(weight);
    c.args[2] = nt_arg_tensor(bias);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}
