/*
 * distance.c — cdist and pdist (layer L4), PyTorch 1.13's checks and texts in its order.
 *
 * cdist(x1 (B..., P, M), x2 (B..., R, M)) -> (B..., P, R), the batch dims broadcast: the
 * distances are computed directly from the differences, summed in double (PyTorch computes
 * p = 2 through the matmul identity |x|^2 + |y|^2 - 2 x.y when P or R exceed 25, which loses
 * digits for close points; our values are the more accurate, within PyTorch's tolerance).
 * compute_mode is checked (0, 1, 2) and otherwise has no effect. pdist(x (N, M)) -> the
 * N(N-1)/2 distances of the pairs i < j, in row-major order of the pairs.
 *
 * Names: cdist follows PyTorch's compute_cdist_outnames (names/infer.h); pdist, which
 * PyTorch 1.13 refuses for named inputs, is supported with an unnamed result (its one dim
 * lists pairs of rows: neither input dim survives). The loops are in
 * kernels/distance_kernels.c.
 */
#include <inttypes.h>
#include <math.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "kernels/distance_kernels.h"
#include "names/infer.h"

static bool floating(nt_dtype d) {
    return nt_dtype_table[d].kind == NT_KIND_FLOAT;
}

static double float_arg(const nt_call *c, int i, double def) {
    return c->args[i].kind == NT_ARG_FLOAT ? c->args[i].v.f : def;
}

/* PyTorch's AT_DISPATCH_FLOATING_TYPES error: float32 and float64 only. */
static nt_status check_dispatch(const char *kernel, nt_dtype d) {
    if (d != NT_FLOAT32 && d != NT_FLOAT64)
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                       nt_dtype_torch_name(d));
    return NT_OK;
}

/* The batch dims of x1 and x2 broadcast (PyTorch's infer_size). */
static nt_status broadcast_batch(const nt_tensor *a, const nt_tensor *b, int64_t *out, int *n) {
    int na = a->ndim - 2, nb = b->ndim - 2, m = na > nb ? na : nb;
    for (int i = m - 1; i >= 0; i--) {
        int ia = i - (m - na), ib = i - (m - nb);
        int64_t sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? b->sizes[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "The size of tensor a (%" PRId64
                           ") must match the size of tensor b (%" PRId64
                           ") at non-singleton dimension %d",
                           sa, sb, i);
        out[i] = sa == 1 ? sb : sa;
    }
    *n = m;
    return NT_OK;
}

/* t expanded to (batch..., rows, m), then made one contiguous block. */
static nt_status batched(const nt_tensor *t, int nb, const int64_t *batch, nt_tensor **out) {
    int64_t shape[NT_MAX_DIMS];
    for (int i = 0; i < nb; i++)
        shape[i] = batch[i];
    shape[nb] = t->sizes[t->ndim - 2];
    shape[nb + 1] = t->sizes[t->ndim - 1];
    nt_tensor *e = NULL;
    NT_TRY(nt_expand((nt_tensor *)t, nb + 2, shape, &e));
    nt_status st = nt_contiguous(e, out);
    nt_tensor_release(e);
    return st;
}

/* cdist's checks, in PyTorch's order, and its result's shape (nb batch dims, then the rows
 * of x1 and x2) and names. Slots: x1, x2, p, compute_mode. */
static nt_status cdist_plan(const nt_call *c, nt_name *names, int *nnames, int64_t *shape,
                            int *nb) {
    const nt_tensor *x1 = c->args[0].v.t, *x2 = c->args[1].v.t;
    double p = float_arg(c, 2, 2.0);
    if (x1->ndim < 2)
        return nt_fail(NT_ERR_RUNTIME, "cdist only supports at least 2D tensors, X1 got: %dD",
                       x1->ndim);
    if (x2->ndim < 2)
        return nt_fail(NT_ERR_RUNTIME, "cdist only supports at least 2D tensors, X2 got: %dD",
                       x2->ndim);
    int64_t m = x1->sizes[x1->ndim - 1];
    if (m != x2->sizes[x2->ndim - 1])
        return nt_fail(NT_ERR_RUNTIME,
                       "X1 and X2 must have the same number of columns. X1: %" PRId64
                       " X2: %" PRId64,
                       m, x2->sizes[x2->ndim - 1]);
    *nnames = 0;
    if (x1->names || x2->names)
        NT_TRY(nt_names_cdist_slow(x1->names, x1->ndim, x2->names, x2->ndim, names, nnames));
    if (!floating(x1->dtype))
        return nt_fail(NT_ERR_RUNTIME, "cdist only supports floating-point dtypes, X1 got: %s",
                       nt_dtype_torch_name(x1->dtype));
    if (!floating(x2->dtype))
        return nt_fail(NT_ERR_RUNTIME, "cdist only supports floating-point dtypes, X2 got: %s",
                       nt_dtype_torch_name(x2->dtype));
    if (!(p >= 0)) return nt_fail(NT_ERR_RUNTIME, "cdist only supports non-negative p values");
    int64_t mode = c->args[3].kind == NT_ARG_INT ? c->args[3].v.i : 0;
    if (mode < 0 || mode > 2)
        return nt_fail(NT_ERR_RUNTIME, "possible modes: 0, 1, 2, but was: %" PRId64, mode);
    NT_TRY(broadcast_batch(x1, x2, shape, nb));
    shape[*nb] = x1->sizes[x1->ndim - 2];
    shape[*nb + 1] = x2->sizes[x2->ndim - 2];
    return NT_OK;
}

nt_status nt_shape_cdist(const nt_call *c, nt_shape *s) {
    nt_name names[NT_MAX_DIMS];
    int nnames = 0, nb = 0;
    NT_TRY(cdist_plan(c, names, &nnames, s->sizes, &nb));
    s->ndim = nb + 2;
    return NT_OK;
}

nt_status nt_impl_cdist(nt_call *c) {
    const nt_tensor *x1 = c->args[0].v.t, *x2 = c->args[1].v.t;
    double p = float_arg(c, 2, 2.0);
    nt_name names[NT_MAX_DIMS];
    int nnames = 0, nb = 0;
    int64_t shape[NT_MAX_DIMS];
    NT_TRY(cdist_plan(c, names, &nnames, shape, &nb));
    int64_t m = x1->sizes[x1->ndim - 1], r1 = shape[nb], r2 = shape[nb + 1], bprod = 1;
    for (int i = 0; i < nb; i++)
        bprod *= shape[i];
    nt_tensor *r = NULL, *a = NULL, *b = NULL;
    nt_status st = NT_OK;
    NT_CHECK(st, nt_tensor_alloc(x1->dtype, nb + 2, shape, nnames ? names : NULL, &r));
    if (r1 > 0 && r2 > 0 && bprod > 0) {
        if (m == 0) {
            NT_CHECK(st, nt_zero_(r));
        } else {
            NT_CHECK(st, check_dispatch("cdist", x1->dtype));
            if (x2->dtype != x1->dtype) {
                st = nt_fail(NT_ERR_RUNTIME, "expected scalar type %s but found %s",
                             nt_dtype_torch_name(x1->dtype), nt_dtype_torch_name(x2->dtype));
                goto fail;
            }
            NT_CHECK(st, batched(x1, nb, shape, &a));
            NT_CHECK(st, batched(x2, nb, shape, &b));
            nt_cdist_kernel(x1->dtype, bprod, r1, r2, m, nt_tensor_bytes(a), nt_tensor_bytes(b),
                            nt_tensor_bytes(r), p);
        }
    }
    c->result[0] = r;
    r = NULL;
fail:
    nt_tensor_release(r);
    nt_tensor_release(a);
    nt_tensor_release(b);
    return st;
}

/* pdist's checks and its result's length, n (n - 1) / 2. Slots: self, p. */
static nt_status pdist_plan(const nt_call *c, int64_t *count) {
    const nt_tensor *t = c->args[0].v.t;
    double p = float_arg(c, 1, 2.0);
    if (t->ndim != 2)
        return nt_fail(NT_ERR_RUNTIME, "pdist only supports 2D tensors, got: %dD", t->ndim);
    if (!floating(t->dtype))
        return nt_fail(NT_ERR_RUNTIME, "pdist only supports floating-point dtypes");
    if (!(p >= 0)) return nt_fail(NT_ERR_RUNTIME, "pdist only supports non-negative p values");
    int64_t n = t->sizes[0];
    *count = n <= 1 ? 0 : n * (n - 1) / 2;
    return NT_OK;
}

nt_status nt_shape_pdist(const nt_call *c, nt_shape *s) {
    int64_t count = 0;
    NT_TRY(pdist_plan(c, &count));
    nt_shape_set(s, 1, &count);
    return NT_OK;
}

nt_status nt_impl_pdist(nt_call *c) {
    const nt_tensor *t = c->args[0].v.t;
    double p = float_arg(c, 1, 2.0);
    int64_t count = 0;
    NT_TRY(pdist_plan(c, &count));
    int64_t n = t->sizes[0], m = t->sizes[1];
    nt_tensor *r = NULL, *x = NULL;
    nt_status st = NT_OK;
    NT_CHECK(st, nt_tensor_alloc(t->dtype, 1, &count, NULL, &r));
    if (count > 0) {
        if (m == 0) {
            NT_CHECK(st, nt_zero_(r));
        } else {
            NT_CHECK(st, check_dispatch("pdist", t->dtype));
            NT_CHECK(st, nt_contiguous((nt_tensor *)t, &x));
            nt_pdist_kernel(t->dtype, n, m, nt_tensor_bytes(x), nt_tensor_bytes(r), p);
        }
    }
    c->result[0] = r;
    r = NULL;
fail:
    nt_tensor_release(r);
    nt_tensor_release(x);
    return st;
}

/* ------------------------------------------------------------------ public API */

nt_status nt_cdist(const nt_tensor *x1, const nt_tensor *x2, double p, int64_t compute_mode,
                   nt_tensor **out) {
    if (!x1) return nt_fail_null_tensor("cdist", "x1");
    if (!x2) return nt_fail_null_tensor("cdist", "x2");
    if (!out) return nt_fail_null_tensor("cdist", "out");
    nt_call c;
    nt_call_init(&c, NT_OP_CDIST);
    c.args[0] = nt_arg_tensor((nt_tensor *)x1);
    c.args[1] = nt_arg_tensor((nt_tensor *)x2);
    c.args[2] = nt_arg_float(p);
    c.args[3] = compute_mode < 0 ? nt_arg_none() : nt_arg_int(compute_mode);
    NT_TRY(nt_dispatch(&c));
    *out = c.result[0];
    return NT_OK;
}

nt_status nt_pdist(const nt_tensor *input, double p, nt_tensor **out) {
    if (!input) return nt_fail_null_tensor("pdist", "input");
    if (!out) return nt_fail_null_tensor("pdist", "out");
    nt_call c;
    nt_call_init(&c, NT_OP_PDIST);
    c.args[0] = nt_arg_tensor((nt_tensor *)input);
    c.args[1] = nt_arg_float(p);
    NT_TRY(nt_dispatch(&c));
    *out = c.result[0];
    return NT_OK;
}
