/*
 * derivatives_pool.c — backward formulas of max pooling and of the distances cdist and pdist.
 *
 * Max pooling sends each window's gradient to the input position its index names (indices
 * are flat within each plane of the pooled dims; overlapping windows add up) with one
 * scatter_add, a recorded op. The plain max_pool*d ops keep no indices: the formula pools the
 * saved input again for them.
 * Distances: the gradient of ||x1_i - x2_j||_p through the difference of the two rows, with
 * PyTorch's per-p forms (0 where the distance is 0).
 */
#include <math.h>
#include <stdlib.h>

#include "core/status.h"
#include "derivatives.h"
#include "vjp_select.h"

#define G gout[0]

static int pool_dims(nt_op op) {
    switch (op) {
    case NT_OP_MAX_POOL1D:
    case NT_OP_MAX_POOL1D_WITH_INDICES:
        return 1;
    case NT_OP_MAX_POOL2D:
    case NT_OP_MAX_POOL2D_WITH_INDICES:
        return 2;
    default:
        return 3;
    }
}

/* the indices of the recorded pooling, run again on the saved input without recording */
static nt_tensor *pool_indices(vj *v, const nt_node *n, int dims) {
    if (!vj_ok(v)) return NULL;
    const nt_arg *a = n->call.args;
    int cnt[4] = {0};
    const int64_t *list[4] = {NULL};
    for (int i = 1; i <= 4; i++)
        if (a[i].kind == NT_ARG_INTS) cnt[i - 1] = a[i].n, list[i - 1] = a[i].v.ints;
    bool ceil_mode = a[5].kind == NT_ARG_BOOL && a[5].v.b;
    nt_tensor *values = NULL, *indices = NULL;
    bool was = nt_set_grad_enabled(false);
    nt_status st = nt_max_pool(dims, nt_node_saved(n, 0), cnt[0], list[0], cnt[1], list[1], cnt[2],
                               list[2], cnt[3], list[3], ceil_mode, &values, &indices);
    nt_set_grad_enabled(was);
    nt_tensor_release(values);
    return vj_keep(v, st, indices);
}

/* max_pool*d(self, kernel_size, stride, padding, dilation, ceil_mode) and the _with_indices
 * forms: each window's gradient added at the input position its index names (flat within
 * its plane of pooled dims), one scatter_add over the planes: O(input + output) */
nt_status nt_vjp_max_pool(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    const nt_tmeta *m = &n->in[0];
    int dims = pool_dims(n->call.op);
    nt_tensor *g = vj_unnamed(&v, G);
    nt_tensor *idx = n->noutputs > 1 ? nt_node_result(n, 1) : NULL;
    if (!idx) idx = pool_indices(&v, n, dims);
    if (!vj_ok(&v)) return vj_end(&v);
    int lead = m->ndim - dims;
    int64_t planes = 1, in_plane = 1, out_plane = 1;
    for (int i = 0; i < lead; i++)
        planes *= m->sizes[i];
    for (int i = lead; i < m->ndim; i++) {
        in_plane *= m->sizes[i];
        out_plane *= g->sizes[i];
    }
    int64_t flat_out[2] = {planes, out_plane}, flat_in[2] = {planes, in_plane};
    nt_tmeta whole = {.dtype = m->dtype, .ndim = 2, .sizes = flat_in, .names = NULL};
    nt_tensor *sum = vj_scatter_add(&v, vj_zeros(&v, &whole), 1,
                                    vj_reshape(&v, vj_unnamed(&v, idx), 2, flat_out),
                                    vj_reshape(&v, g, 2, flat_out));
    vj_give(&v, vj_reshape(&v, sum, m->ndim, m->sizes), &gin[0]);
    return vj_end(&v);
}

/* ------------------------------------------------------------------ distances */

/* d ||diff||_p / d diff, given the distance d (broadcast to diff): PyTorch's cases */
static nt_tensor *dist_factor(vj *v, nt_tensor *diff, nt_tensor *d, double p) {
    if (p == 0) return vj_scale(v, diff, 0.0);
    nt_tensor *sign = vj_un(v, NT_OP_SIGN, diff);
    if (p == 1) return sign;
    nt_tensor *adiff = vj_un(v, NT_OP_ABS, diff);
    if (isinf(p)) return vj_mul(v, sign, vj_bin(v, NT_BINARY_EQ, adiff, d));
    nt_tensor *nonzero = vj_cmp(v, NT_BINARY_NE, d, 0.0);
    nt_tensor *safe = vj_where_s(v, nonzero, d, 1.0);
    nt_tensor *f;
    if (p == 2) {
        f = vj_div(v, diff, safe);
    } else {
        nt_tensor *den = vj_bins(v, NT_BINARY_POW, safe, p - 1);
        if (p < 2) {
            /* |diff|^(p - 1) with 0 where diff is 0 and p < 1 */
            nt_tensor *zero_diff = vj_cmp(v, NT_BINARY_EQ, diff, 0.0);
            nt_tensor *num = vj_mul(v, sign, vj_bins(v, NT_BINARY_POW, adiff, p - 1));
            if (p < 1) num = vj_where_s(v, vj_un(v, NT_OP_LOGICAL_NOT, zero_diff), num, 0.0);
            f = vj_div(v, num, den);
        } else {
            f = vj_div(v, vj_mul(v, diff, vj_bins(v, NT_BINARY_POW, adiff, p - 2)), den);
        }
    }
    return vj_where_s(v, nonzero, f, 0.0);
}

static double p_of(const nt_node *n, int slot) {
    const nt_arg *a = &n->call.args[slot];
    if (a->kind == NT_ARG_FLOAT) return a->v.f;
    if (a->kind == NT_ARG_INT) return (double)a->v.i;
    return 2.0;
}

/* cdist(x1 (..., P, M), x2 (..., R, M), p): the pairs' terms g_ij f(x1_i - x2_j) summed over j
 * for x1 and over i (negated) for x2 */
nt_status nt_vjp_cdist(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    nt_tensor *x1 = vj_unnamed(&v, nt_node_saved(n, 0)), *x2 = vj_unnamed(&v, nt_node_saved(n, 1));
    nt_tensor *y = vj_unnamed(&v, nt_node_result(n, 0)), *g = vj_unnamed(&v, G);
    if (!vj_ok(&v)) return vj_end(&v);
    nt_tensor *diff =
        vj_sub(&v, vj_unsqueeze(&v, x1, x1->ndim - 1), vj_unsqueeze(&v, x2, x2->ndim - 2));
    nt_tensor *f = dist_factor(&v, diff, vj_unsqueeze(&v, y, y->ndim), p_of(n, 2));
    nt_tensor *term = vj_mul(&v, vj_unsqueeze(&v, g, g->ndim), f); /* (..., P, R, M) */
    nt_dim rows1 = -2, rows2 = -3;
    if (nt_node_wants(n, 0)) vj_give(&v, vj_sum(&v, term, 1, &rows1, false), &gin[0]);
    if (nt_node_wants(n, 1)) vj_give(&v, vj_neg(&v, vj_sum(&v, term, 1, &rows2, false)), &gin[1]);
    return vj_end(&v);
}

/* pdist's pairs i < j (row-major) of a vector a of N (N - 1) / 2 entries, as the upper
 * triangle of an (N x N) matrix (zeros elsewhere): the rows' parts of a, each after i + 1
 * zeros, joined and reshaped (recorded ops: narrow, cat, reshape) */
static nt_tensor *upper_triangle(vj *v, nt_tensor *a, int64_t rows) {
    if (!vj_ok(v)) return NULL;
    int64_t count = 2 * rows, at = 0, square[2] = {rows, rows};
    if (rows == 0) return vj_reshape(v, a, 2, square);
    nt_tensor **parts = calloc((size_t)count, sizeof *parts), *joined = NULL;
    nt_tmeta zm = {.dtype = a->dtype, .ndim = 1, .sizes = &rows, .names = NULL};
    nt_tensor *z = vj_zeros(v, &zm);
    nt_status st = parts && z ? NT_OK : NT_ERR_MEMORY;
    if (!parts && vj_ok(v)) v->st = nt_fail(NT_ERR_MEMORY, "out of memory");
    for (int64_t i = 0; i < rows && st == NT_OK; i++) {
        st = nt_narrow(z, 0, 0, i + 1, &parts[2 * i]);
        if (st == NT_OK) st = nt_narrow(a, 0, at, rows - 1 - i, &parts[2 * i + 1]);
        at += rows - 1 - i;
    }
    if (st == NT_OK) st = nt_cat((int)count, parts, 0, NULL, &joined);
    for (int64_t i = 0; parts && i < count; i++)
        nt_tensor_release(parts[i]);
    free(parts);
    if (!vj_ok(v)) {
        nt_tensor_release(joined);
        return NULL;
    }
    return vj_reshape(v, vj_keep(v, st, joined), 2, square);
}

/* pdist(self (N, M), p): cdist's terms for the pairs i < j (the others' weights are 0), summed
 * over j for row i and, negated, over i for row j */
nt_status nt_vjp_pdist(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    nt_tensor *x = vj_unnamed(&v, nt_node_saved(n, 0)), *y = vj_unnamed(&v, nt_node_result(n, 0));
    nt_tensor *g = vj_unnamed(&v, G);
    if (!vj_ok(&v)) return vj_end(&v);
    int64_t rows = x->sizes[0];
    nt_tensor *weight = upper_triangle(&v, g, rows), *dist = upper_triangle(&v, y, rows);
    /* (N, N, M), 1 off the pairs (their weights are 0; no |0|^(p - 2) in second derivatives) */
    int64_t col[3] = {rows, 1, 1};
    nt_tensor *ar = vj_arange(&v, rows);
    nt_tensor *pair = vj_bin(&v, NT_BINARY_LT, vj_reshape(&v, ar, 3, col), vj_unsqueeze(&v, ar, 1));
    nt_tensor *diff =
        vj_where_s(&v, pair, vj_sub(&v, vj_unsqueeze(&v, x, 1), vj_unsqueeze(&v, x, 0)), 1.0);
    nt_tensor *f = dist_factor(&v, diff, vj_unsqueeze(&v, dist, 2), p_of(n, 1));
    nt_tensor *term = vj_mul(&v, vj_unsqueeze(&v, weight, 2), f);
    nt_dim first = 1, second = 0;
    nt_tensor *grad =
        vj_sub(&v, vj_sum(&v, term, 1, &first, false), vj_sum(&v, term, 1, &second, false));
    vj_give(&v, grad, &gin[0]);
    return vj_end(&v);
}
