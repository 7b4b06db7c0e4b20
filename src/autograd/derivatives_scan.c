/*
 * derivatives_scan.c — backward formulas of the scans along a dim: cumsum, cumprod (zeros
 * included) and logcumsumexp. (cummax/cummin are in derivatives_select.c.)
 *
 * A scan's gradient runs backwards along the dim: the sum over j >= i, written as
 * sum - cumsum + a (vj_revcumsum), or with a reversal (logcumsumexp's log-space sum).
 */
#include <float.h>

#include "core/status.h"
#include "derivatives.h"
#include "vjp_select.h"

#define G gout[0]

static nt_status scan_dim(const nt_node *n, int *d) {
    const nt_arg *a = &n->call.args[1];
    return nt_ag_resolve_dim(&n->in[0], a->kind == NT_ARG_DIM ? a->v.dim : 0, d);
}

/* cumsum(self, dim, dtype): the sums of g over j >= i */
nt_status nt_vjp_cumsum(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int d = 0;
    NT_TRY(scan_dim(n, &d));
    vj_give(&v, vj_revcumsum(&v, vj_unnamed(&v, G), d), &gin[0]);
    return vj_end(&v);
}

/* cumprod(self, dim, dtype): y_j = x_0 ... x_j. Before the first zero of a row the gradient is
 * sum_{j >= i} g_j y_j / x_i; at the first zero k it is sum_{j >= k} g_j prod_{l <= j, l != k}
 * x_l, the cumprod with x_k replaced by 1; after it 0 (every y_j that depends on x_i there
 * also has the factor x_k). */
nt_status nt_vjp_cumprod(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int d = 0;
    NT_TRY(scan_dim(n, &d));
    nt_tensor *x = vj_unnamed(&v, nt_node_saved(n, 0)), *y = vj_unnamed(&v, nt_node_result(n, 0));
    nt_tensor *g = vj_unnamed(&v, G);
    nt_tensor *nonzero = vj_cmp(&v, NT_BINARY_NE, x, 0.0);
    nt_tensor *zeros_so_far = vj_cumsum(&v, vj_cmp(&v, NT_BINARY_EQ, x, 0.0), d);
    nt_tensor *before = vj_cmp(&v, NT_BINARY_EQ, zeros_so_far, 0.0);
    nt_tensor *not_first =
        vj_bin(&v, NT_BINARY_LOGICAL_OR, nonzero, vj_cmp(&v, NT_BINARY_NE, zeros_so_far, 1.0));
    nt_tensor *safe = vj_where_s(&v, nonzero, x, 1.0);
    nt_tensor *plain = vj_div(&v, vj_revcumsum(&v, vj_mul(&v, g, y), d), safe);
    nt_tensor *skip_zero = vj_cumprod(&v, vj_where_s(&v, not_first, x, 1.0), d);
    nt_tensor *at_zero = vj_revcumsum(&v, vj_mul(&v, g, skip_zero), d);
    nt_tensor *first = vj_un(&v, NT_OP_LOGICAL_NOT, not_first);
    nt_tensor *grad = vj_where(&v, before, plain, vj_where_s(&v, first, at_zero, 0.0));
    vj_give(&v, grad, &gin[0]);
    return vj_end(&v);
}

/* the (n x n) exchange matrix of dtype: ones on the anti-diagonal */
static nt_tensor *exchange_matrix(vj *v, int64_t size, nt_dtype dtype) {
    int64_t col[2] = {size, 1};
    nt_tensor *ar = vj_arange(v, size);
    nt_tensor *sum = vj_add(v, vj_reshape(v, ar, 2, col), ar);
    return vj_to(v, vj_cmp(v, NT_BINARY_EQ, sum, (double)(size - 1)), dtype);
}

/* a reversed along dim d: a times the exchange matrix, so that the reversal is a recorded op
 * (the library has no flip); exact for finite values */
static nt_tensor *flip(vj *v, nt_tensor *a, int d, nt_tensor *exchange) {
    int last = a ? a->ndim - 1 : 0;
    return vj_transpose(v, vj_matmul(v, vj_transpose(v, a, d, last), exchange), d, last);
}

static nt_tensor *logcumsumexp(vj *v, nt_tensor *a, int d) {
    nt_tensor *out = NULL;
    if (!vj_ok(v)) return NULL;
    nt_status st = nt_logcumsumexp(a, d, &out);
    return vj_keep(v, st, out);
}

/* log(sum over j >= i of exp(a_j)) */
static nt_tensor *reverse_logcumsumexp(vj *v, nt_tensor *a, int d, nt_tensor *exchange) {
    return flip(v, logcumsumexp(v, flip(v, a, d, exchange), d), d, exchange);
}

/* logcumsumexp(self, dim): sum_{j >= i} g_j exp(x_i - y_j), summed in log space for the
 * positive and the negative parts of g apart (PyTorch's formula) */
nt_status nt_vjp_logcumsumexp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int d = 0;
    NT_TRY(scan_dim(n, &d));
    nt_tensor *x = vj_unnamed(&v, nt_node_saved(n, 0)), *y = vj_unnamed(&v, nt_node_result(n, 0));
    nt_tensor *g = vj_unnamed(&v, G);
    if (n->in[0].ndim == 0) {
        vj_give(&v, g, &gin[0]);
        return vj_end(&v);
    }
    nt_tensor *exchange = exchange_matrix(&v, n->in[0].sizes[d], x->dtype);
    double lowest = g->dtype == NT_FLOAT64 ? -DBL_MAX : -FLT_MAX;
    nt_tensor *log_abs = vj_un(&v, NT_OP_LOG, vj_un(&v, NT_OP_ABS, g));
    nt_tensor *part[2];
    for (int sign = 0; sign < 2; sign++) {
        nt_tensor *which = vj_cmp(&v, sign ? NT_BINARY_LT : NT_BINARY_GT, g, 0.0);
        nt_tensor *log_g = vj_where_s(&v, which, log_abs, lowest);
        part[sign] =
            vj_un(&v, NT_OP_EXP,
                  vj_add(&v, reverse_logcumsumexp(&v, vj_sub(&v, log_g, y), d, exchange), x));
    }
    vj_give(&v, vj_sub(&v, part[0], part[1]), &gin[0]);
    return vj_end(&v);
}
