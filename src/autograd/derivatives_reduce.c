/*
 * derivatives_reduce.c — backward formulas of reductions and softmax.
 *
 * A reduction's gradient is spread back over the reduced dims: unsqueezed where keepdim was
 * false, then expanded to the input's shape. Dims (indices or names) are resolved against the
 * recorded input's metadata; the arithmetic runs on unnamed tensors and the engine names the
 * result as the input.
 */
#include <math.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"
#include "derivatives.h"
#include "kernels/softmax_kernels.h"
#include "vjp_select.h"

#define G gout[0]

nt_status nt_ag_resolve_dim(const nt_tmeta *m, nt_dim d, int *out) {
    if (nt_dim_is_name(d)) {
        nt_name name = nt_dim_to_name(d);
        for (int i = 0; m->names && i < m->ndim; i++)
            if (m->names[i] == name) return *out = i, NT_OK;
        return nt_fail(NT_ERR_RUNTIME, "backward: name '%s' not found", nt_name_str(name));
    }
    int ndim = m->ndim > 0 ? m->ndim : 1;
    int64_t i = d < 0 ? d + ndim : d;
    if (i < 0 || i >= ndim)
        return nt_fail(NT_ERR_INDEX, "backward: dim %lld out of range", (long long)d);
    *out = (int)i;
    return NT_OK;
}

nt_status nt_ag_reduced_mask(const nt_node *n, int slot, uint64_t *mask) {
    const nt_tmeta *m = &n->in[0];
    const nt_arg *a = &n->call.args[slot];
    *mask = 0;
    if (a->kind == NT_ARG_NONE || (a->kind == NT_ARG_DIMS && a->n == 0)) {
        *mask = m->ndim >= 64 ? ~0ull : (1ull << m->ndim) - 1;
        return NT_OK;
    }
    int count = a->kind == NT_ARG_DIMS ? a->n : 1;
    for (int i = 0; i < count; i++) {
        int d = 0;
        NT_TRY(nt_ag_resolve_dim(m, a->kind == NT_ARG_DIMS ? a->v.dims[i] : a->v.dim, &d));
        *mask |= 1ull << d;
    }
    return NT_OK;
}

nt_tensor *vj_unreduce(vj *v, const nt_node *n, nt_tensor *g, uint64_t mask, bool keepdim) {
    const nt_tmeta *m = &n->in[0];
    nt_tensor *t = vj_unnamed(v, g);
    if (!keepdim && vj_ok(v) && t->ndim != m->ndim) { /* the reduced dims back, of size one */
        int64_t sizes[NT_MAX_DIMS];
        for (int d = 0; d < m->ndim; d++)
            sizes[d] = mask >> d & 1 ? 1 : m->sizes[d];
        t = vj_reshape(v, t, m->ndim, sizes);
    }
    return vj_expand(v, t, m->ndim, m->sizes);
}

static bool keepdim_of(const nt_node *n, int slot) {
    return n->call.args[slot].kind == NT_ARG_BOOL && n->call.args[slot].v.b;
}

static int64_t reduced_count(const nt_tmeta *m, uint64_t mask) {
    int64_t count = 1;
    for (int d = 0; d < m->ndim; d++)
        if (mask >> d & 1) count *= m->sizes[d];
    return count;
}

/* sum/mean(self, dim, keepdim, dtype) */
static nt_status sum_mean(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, bool mean) {
    vj v = VJ_INIT;
    uint64_t mask;
    NT_TRY(nt_ag_reduced_mask(n, 1, &mask));
    nt_tensor *g = G;
    if (mean) g = vj_scale(&v, g, 1.0 / (double)reduced_count(&n->in[0], mask));
    vj_give(&v, vj_unreduce(&v, n, g, mask, keepdim_of(n, 2)), &gin[0]);
    return vj_end(&v);
}
nt_status nt_vjp_sum(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return sum_mean(n, gout, gin, false);
}
nt_status nt_vjp_mean(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return sum_mean(n, gout, gin, true);
}

/* logsumexp(self, dim, keepdim): g exp(x - y) */
nt_status nt_vjp_logsumexp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    uint64_t mask;
    NT_TRY(nt_ag_reduced_mask(n, 1, &mask));
    bool keepdim = keepdim_of(n, 2);
    nt_tensor *y = vj_unreduce(&v, n, nt_node_result(n, 0), mask, keepdim);
    nt_tensor *p = vj_un(&v, NT_OP_EXP, vj_sub(&v, vj_unnamed(&v, nt_node_saved(n, 0)), y));
    vj_give(&v, vj_mul(&v, vj_unreduce(&v, n, G, mask, keepdim), p), &gin[0]);
    return vj_end(&v);
}

typedef struct softmax_bw_job {
    nt_dtype dtype;
    const char *y, *g;
    char *out;
    int64_t n, es;
} softmax_bw_job;

static void softmax_bw_rows(void *ctx, int64_t r0, int64_t r1) {
    const softmax_bw_job *j = ctx;
    int64_t at = r0 * j->n * j->es;
    nt_softmax_backward_rows(j->dtype, j->y + at, j->g + at, j->out + at, r1 - r0, j->n);
}

/* Softmax's gradient in one kernel (two passes over each row instead of four ops) when no
 * graph is being built: y and g contiguous float32/float64 of one shape, over the last dim.
 * *out stays NULL when the case does not apply. */
static nt_status softmax_fused(const nt_tensor *y, const nt_tensor *g, int d, nt_tensor **out) {
    *out = NULL;
    if (nt_ag_grad_mode() || !y || !g || y->dtype != g->dtype ||
        (y->dtype != NT_FLOAT32 && y->dtype != NT_FLOAT64) || d != y->ndim - 1 ||
        g->ndim != y->ndim || !y->is_contiguous || !g->is_contiguous || y->numel == 0 ||
        memcmp(y->sizes, g->sizes, (size_t)y->ndim * sizeof(int64_t)))
        return NT_OK;
    NT_TRY(nt_tensor_alloc(y->dtype, y->ndim, y->sizes, NULL, out));
    int64_t n = y->sizes[d], es = (int64_t)nt_dtype_table[y->dtype].size;
    softmax_bw_job job = {
        y->dtype, nt_tensor_bytes(y), nt_tensor_bytes(g), nt_tensor_bytes(*out), n, es};
    nt_parallel_for(0, y->numel / n, NT_GRAIN_SIZE / n + 1, softmax_bw_rows, &job);
    return NT_OK;
}

/* softmax(self, dim): y (g - sum(g y)); log_softmax: g - exp(y) sum(g) */
static nt_status softmax_vjp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, bool log) {
    vj v = VJ_INIT;
    int d = 0;
    NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[1].v.dim, &d));
    if (!log) {
        NT_TRY(softmax_fused(nt_node_result(n, 0), G, d, &gin[0]));
        if (gin[0]) return NT_OK;
    }
    nt_dim dim = d;
    nt_tensor *y = vj_unnamed(&v, nt_node_result(n, 0)), *g = vj_unnamed(&v, G);
    if (log) {
        nt_tensor *s = vj_sum(&v, g, 1, &dim, true);
        vj_give(&v, vj_sub(&v, g, vj_mul(&v, vj_un(&v, NT_OP_EXP, y), s)), &gin[0]);
    } else {
        nt_tensor *s = vj_sum(&v, vj_mul(&v, g, y), 1, &dim, true);
        vj_give(&v, vj_mul(&v, y, vj_sub(&v, g, s)), &gin[0]);
    }
    return vj_end(&v);
}
nt_status nt_vjp_softmax(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return softmax_vjp(n, gout, gin, false);
}
nt_status nt_vjp_log_softmax(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return softmax_vjp(n, gout, gin, true);
}

/* ------------------------------------------------------------------ prod, var, std */

/* The dims of mask as a list (every reduced dim of input 0). */
static int mask_dims(const nt_tmeta *m, uint64_t mask, nt_dim *dims) {
    int count = 0;
    for (int d = 0; d < m->ndim; d++)
        if (mask >> d & 1) dims[count++] = d;
    return count;
}

/* prod(self, dim, keepdim, dtype): each element's gradient is the product of the others in its
 * group. Without a zero in the group that is y / x; with exactly one zero, the zero's is the
 * product of the nonzero elements and each other's is that product times the zero over itself
 * (0, written so that its derivative by the zero is right); with more, 0 (PyTorch's values). */
nt_status nt_vjp_prod(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    uint64_t mask;
    NT_TRY(nt_ag_reduced_mask(n, 1, &mask));
    bool keepdim = keepdim_of(n, 2);
    nt_dim dims[NT_MAX_DIMS];
    int count = mask_dims(&n->in[0], mask, dims);
    nt_tensor *x = vj_unnamed(&v, nt_node_saved(n, 0));
    nt_tensor *y = vj_unreduce(&v, n, nt_node_result(n, 0), mask, keepdim);
    nt_tensor *g = vj_unreduce(&v, n, G, mask, keepdim);
    nt_tensor *zero = vj_cmp(&v, NT_BINARY_EQ, x, 0.0);
    nt_tensor *safe = vj_where_s(&v, vj_cmp(&v, NT_BINARY_NE, x, 0.0), x, 1.0);
    nt_tensor *zeros = vj_sum(&v, zero, count, dims, true);
    nt_tensor *nonzero_prod = vj_prod(&v, safe, count, dims, true);
    nt_tensor *the_zero = vj_sum(&v, vj_where_s(&v, zero, x, 0.0), count, dims, true);
    nt_tensor *lone =
        vj_where(&v, zero, nonzero_prod, vj_div(&v, vj_mul(&v, nonzero_prod, the_zero), safe));
    nt_tensor *with_zero = vj_where_s(&v, vj_cmp(&v, NT_BINARY_EQ, zeros, 1.0), lone, 0.0);
    nt_tensor *others =
        vj_where(&v, vj_cmp(&v, NT_BINARY_EQ, zeros, 0.0), vj_div(&v, y, safe), with_zero);
    vj_give(&v, vj_mul(&v, g, others), &gin[0]);
    return vj_end(&v);
}

/* var/std's correction: slot 4 (an int or a float), else 1 or 0 by `unbiased` (slot 3) */
static double correction_of(const nt_node *n) {
    const nt_arg *a = &n->call.args[4], *u = &n->call.args[3];
    if (a->kind == NT_ARG_INT) return (double)a->v.i;
    if (a->kind == NT_ARG_FLOAT) return a->v.f;
    return u->kind == NT_ARG_BOOL && !u->v.b ? 0.0 : 1.0;
}

/* var's gradient from g spread over the input: 2 g (x - mean(x)) / (N - correction); of every
 * element (no dims, or a 0-dim input) with N == correction, PyTorch's inf g */
static nt_tensor *var_grad(vj *v, const nt_node *n, nt_tensor *g, uint64_t mask) {
    nt_dim dims[NT_MAX_DIMS];
    int count = mask_dims(&n->in[0], mask, dims);
    double dof = (double)reduced_count(&n->in[0], mask) - correction_of(n);
    bool every = n->in[0].ndim == 0 || n->call.args[1].kind == NT_ARG_NONE;
    if (every && dof == 0) return vj_scale(v, g, INFINITY);
    nt_tensor *x = vj_unnamed(v, nt_node_saved(n, 0));
    nt_tensor *centered = vj_sub(v, x, vj_mean(v, x, count, dims, true));
    return vj_mul(v, vj_scale(v, g, 2.0 / dof), centered);
}

/* std = sqrt(var): var's gradient of g / (2 std), 0 where std is 0 */
static nt_tensor *std_to_var(vj *v, nt_tensor *g, nt_tensor *std) {
    nt_tensor *scaled = vj_div(v, g, vj_scale(v, std, 2.0));
    return vj_where_s(v, vj_cmp(v, NT_BINARY_NE, std, 0.0), scaled, 0.0);
}

/* var/std(self, dim, keepdim, unbiased, correction); var_mean/std_mean: the same with the mean
 * as a second result */
static nt_status moments_vjp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, bool sqrt,
                             bool with_mean) {
    vj v = VJ_INIT;
    uint64_t mask;
    NT_TRY(nt_ag_reduced_mask(n, 1, &mask));
    bool keepdim = keepdim_of(n, 2);
    nt_tensor *g = vj_unreduce(&v, n, G, mask, keepdim);
    if (sqrt) g = std_to_var(&v, g, vj_unreduce(&v, n, nt_node_result(n, 0), mask, keepdim));
    nt_tensor *grad = var_grad(&v, n, g, mask);
    if (with_mean) {
        double count = (double)reduced_count(&n->in[0], mask);
        grad =
            vj_add(&v, grad, vj_unreduce(&v, n, vj_scale(&v, gout[1], 1.0 / count), mask, keepdim));
    }
    vj_give(&v, grad, &gin[0]);
    return vj_end(&v);
}
nt_status nt_vjp_var(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return moments_vjp(n, gout, gin, false, false);
}
nt_status nt_vjp_std(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return moments_vjp(n, gout, gin, true, false);
}
nt_status nt_vjp_var_mean(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return moments_vjp(n, gout, gin, false, true);
}
nt_status nt_vjp_std_mean(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return moments_vjp(n, gout, gin, true, true);
}
