/*
 * pool.c — max pooling (layer L4): torch.max_pool1d, max_pool2d, max_pool3d and their
 * _with_indices forms (F.max_pool*d(return_indices=True)), with PyTorch 1.13's checks and
 * texts, which differ by entry point: max_pool1d has its own (check_max_pool1d),
 * max_pool1d_with_indices checks its lists then runs the 2-d pooling of the input with a
 * dim of size one inserted (its errors speak of that 2-d input), max_pool2d is
 * max_pool2d_with_indices' values, and 3-d has its own texts.
 *
 * The input is pooled over its last 1, 2 or 3 dims, the dims before them being planes
 * (batch and channels); the results are contiguous, the indices (int64) are flat within an
 * input plane. Names: every name is kept, on values and indices alike, as PyTorch 1.13 does
 * (the pooled dims keep their names too: a pooled 'H' is still 'H'). The loops are in
 * kernels/pool_kernels.c.
 */
#include <inttypes.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "kernels/pool_kernels.h"
#include "linalg.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/out.h"

/* A list argument: its entries, or the default (`def`, one entry) when not given. */
typedef struct int_list {
    int n;
    const int64_t *v;
} int_list;

static int_list list_arg(const nt_call *c, int i, const int64_t *def, int ndef) {
    int_list l = {ndef, def};
    if (c->args[i].kind == NT_ARG_INTS) {
        l.n = c->args[i].n;
        l.v = c->args[i].v.ints;
    }
    return l;
}

/* Entry i of a list of one or `dims` entries. */
static int64_t at(int_list l, int i) {
    return l.n == 1 ? l.v[0] : l.v[i];
}

/* Division rounding toward negative infinity (PyTorch's div_rtn). */
static int64_t div_rtn(int64_t x, int64_t y) {
    int64_t q = x / y, r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) q--;
    return q;
}

/* PyTorch's pooling_output_shape_pad_lr. */
static int64_t out_size_lr(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                           bool ceil_mode) {
    int64_t o =
        div_rtn(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
    if (ceil_mode && (o - 1) * stride >= in + pad) o--;
    return o;
}

/* PyTorch's pooling_output_shape, with its checks. */
static nt_status out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                          bool ceil_mode, int64_t *o) {
    if (stride == 0) return nt_fail(NT_ERR_RUNTIME, "stride should not be zero");
    if (pad < 0)
        return nt_fail(NT_ERR_RUNTIME, "pad must be non-negative, but got pad: %" PRId64, pad);
    if (pad > k / 2)
        return nt_fail(NT_ERR_RUNTIME,
                       "pad should be at most half of kernel size, but got pad=%" PRId64
                       " and kernel_size=%" PRId64,
                       pad, k);
    *o = out_size_lr(in, k, pad, stride, dil, ceil_mode);
    return NT_OK;
}

static const int64_t ZERO[1] = {0}, ONE[1] = {1};

/* A pooling to run: its geometry, the planes, the result's shape and the kernel name of
 * the dtype dispatch. */
typedef struct pool_plan {
    nt_pool_geom g;
    int64_t planes;
    int ndim;
    int64_t shape[NT_MAX_DIMS];
    const char *kernel;
    bool bf16; /* the kernel takes bfloat16 */
} pool_plan;

/* The result's shape: the input's leading dims, then the pooled sizes. */
static void plan_shape(pool_plan *p, const nt_tensor *t, int dims) {
    p->ndim = t->ndim;
    p->planes = 1;
    for (int i = 0; i < t->ndim - dims; i++) {
        p->shape[i] = t->sizes[i];
        p->planes *= t->sizes[i];
    }
    for (int i = 0; i < dims; i++)
        p->shape[t->ndim - dims + i] = p->g.out[3 - dims + i];
}

/* max_pool2d_with_indices' checks on an input of shape (ndim, sizes) (the real input, or
 * max_pool1d_with_indices' with a dim of size one inserted): geometry in p->g[1..2]. */
static nt_status plan2d(int ndim, const int64_t *sizes, int_list k, int_list s, int_list pad,
                        int_list dil, bool ceil_mode, pool_plan *p) {
    if (k.n != 1 && k.n != 2)
        return nt_fail(
            NT_ERR_RUNTIME,
            "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
    if (s.n != 0 && s.n != 1 && s.n != 2)
        return nt_fail(NT_ERR_RUNTIME, "max_pool2d: stride must either be omitted, a single int, "
                                       "or a tuple of two ints");
    if (s.n == 0) s = k;
    if (pad.n != 1 && pad.n != 2)
        return nt_fail(
            NT_ERR_RUNTIME,
            "max_pool2d: padding must be either be a single int, or a tuple of two ints");
    if (dil.n != 1 && dil.n != 2)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool2d: dilation must be either a single int, or a tuple of two ints");
    if (ndim != 3 && ndim != 4)
        return nt_fail(NT_ERR_RUNTIME, "non-empty 3D or 4D (batch mode) tensor expected for input");
    nt_pool_geom *g = &p->g;
    g->in[0] = g->out[0] = g->k[0] = g->s[0] = g->d[0] = 1;
    g->p[0] = 0;
    for (int i = 0; i < 2; i++) {
        g->in[1 + i] = sizes[ndim - 2 + i];
        g->k[1 + i] = at(k, i);
        g->s[1 + i] = at(s, i);
        g->p[1 + i] = at(pad, i);
        g->d[1 + i] = at(dil, i);
        NT_TRY(out_size(g->in[1 + i], g->k[1 + i], g->p[1 + i], g->s[1 + i], g->d[1 + i], ceil_mode,
                        &g->out[1 + i]));
    }
    if (g->k[1] <= 0 || g->k[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "kernel size should be greater than zero, but got kH: %" PRId64
                       " kW: %" PRId64,
                       g->k[1], g->k[2]);
    if (g->s[1] <= 0 || g->s[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "stride should be greater than zero, but got dH: %" PRId64 " dW: %" PRId64,
                       g->s[1], g->s[2]);
    if (g->d[1] <= 0 || g->d[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "dilation should be greater than zero, but got dilationH: %" PRId64
                       " dilationW: %" PRId64,
                       g->d[1], g->d[2]);
    bool valid = sizes[ndim - 3] != 0 && sizes[ndim - 2] != 0;
    if (!((ndim == 3 && sizes[0] != 0 && valid) || (ndim == 4 && valid && sizes[3] != 0))) {
        char have[256];
        nt_ints_repr(sizes, ndim, have, sizeof have);
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                       "input, but got:%s",
                       have);
    }
    if (g->out[1] < 1 || g->out[2] < 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "Given input size: (%" PRId64 "x%" PRId64 "x%" PRId64
                       "). Calculated output size: (%" PRId64 "x%" PRId64 "x%" PRId64
                       "). Output size is too small",
                       sizes[ndim - 3], g->in[1], g->in[2], sizes[ndim - 3], g->out[1], g->out[2]);
    p->kernel = "max_pool2d";
    p->bf16 = true;
    return NT_OK;
}

/* max_pool3d_with_indices' checks. */
static nt_status plan3d(const nt_tensor *t, int_list k, int_list s, int_list pad, int_list dil,
                        bool ceil_mode, pool_plan *p) {
    if (k.n != 1 && k.n != 3)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool3d: kernel_size must either be a single int, or a tuple of three "
                       "ints");
    if (s.n != 0 && s.n != 1 && s.n != 3)
        return nt_fail(NT_ERR_RUNTIME, "max_pool3d: stride must either be omitted, a single int, "
                                       "or a tuple of three ints");
    if (s.n == 0) s = k;
    if (pad.n != 1 && pad.n != 3)
        return nt_fail(NT_ERR_RUNTIME, "max_pool3d: padding must be either be a single int, or a "
                                       "tuple of three ints");
    if (dil.n != 1 && dil.n != 3)
        return nt_fail(
            NT_ERR_RUNTIME,
            "max_pool3d: dilation must be either a single int, or a tuple of three ints");
    if (t->ndim != 4 && t->ndim != 5)
        return nt_fail(NT_ERR_RUNTIME, "non-empty 4D or 5D (batch mode) tensor expected for input");
    nt_pool_geom *g = &p->g;
    for (int i = 0; i < 3; i++) {
        g->in[i] = t->sizes[t->ndim - 3 + i];
        g->k[i] = at(k, i);
        g->s[i] = at(s, i);
        g->p[i] = at(pad, i);
        g->d[i] = at(dil, i);
        NT_TRY(out_size(g->in[i], g->k[i], g->p[i], g->s[i], g->d[i], ceil_mode, &g->out[i]));
    }
    if (g->k[0] <= 0 || g->k[1] <= 0 || g->k[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "kernel size should be greater than zero, but got kT: %" PRId64
                       " kH: %" PRId64 " kW: %" PRId64,
                       g->k[0], g->k[1], g->k[2]);
    if (g->s[0] <= 0 || g->s[1] <= 0 || g->s[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "stride should be greater than zero, but got dT: %" PRId64 " dH: %" PRId64
                       " dW: %" PRId64,
                       g->s[0], g->s[1], g->s[2]);
    if (g->d[0] <= 0 || g->d[1] <= 0 || g->d[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "dilation should be greater than zero, but got dilationT: %" PRId64
                       " dilationH: %" PRId64 " dilationW: %" PRId64,
                       g->d[0], g->d[1], g->d[2]);
    for (int i = t->ndim == 5 ? 1 : 0; i < t->ndim; i++)
        if (t->sizes[i] <= 0) {
            char have[256];
            nt_ints_repr(t->sizes, t->ndim, have, sizeof have);
            return nt_fail(NT_ERR_RUNTIME,
                           "max_pool3d_with_indices_out_cpu_template(): Expected input's "
                           "non-batch dimensions to have positive length, but input has a shape "
                           "of %s and non-batch dimension %" PRId64 " has length zero!",
                           have, t->sizes[i]);
        }
    int64_t planes = t->sizes[t->ndim - 4];
    if (g->out[0] < 1 || g->out[1] < 1 || g->out[2] < 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "Given input size: (%" PRId64 "x%" PRId64 "x%" PRId64 "x%" PRId64
                       "). Calculated output size: (%" PRId64 "x%" PRId64 "x%" PRId64 "x%" PRId64
                       "). Output size is too small",
                       planes, g->in[0], g->in[1], g->in[2], planes, g->out[0], g->out[1],
                       g->out[2]);
    p->kernel = "max_pool3d_with_indices_cpu";
    p->bf16 = false;
    return NT_OK;
}

/* torch.max_pool1d's own checks (check_max_pool1d). */
static nt_status plan1d(const nt_tensor *t, int_list k, int_list s, int_list pad, int_list dil,
                        bool ceil_mode, pool_plan *p) {
    int n = t->ndim;
    if (!((n == 2 && t->sizes[0] != 0 && t->sizes[1] != 0) ||
          (n == 3 && t->sizes[1] != 0 && t->sizes[2] != 0))) {
        char have[256];
        nt_ints_repr(t->sizes, t->ndim, have, sizeof have);
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                       "batch size for input, but got:%s",
                       have);
    }
    if (k.n != 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of "
                       "size 1 but got size %d",
                       k.n);
    if (s.n != 0 && s.n != 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() stride must be None, an int, list of ints, or tuple of ints "
                       "of size 1 but got size %d",
                       s.n);
    if (pad.n != 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() padding must be an int, list of ints, or tuple of ints of "
                       "size 1 but got size %d",
                       pad.n);
    if (dil.n != 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() dilation must be an int, list of ints or tuple of ints of "
                       "size 1 but got size %d",
                       dil.n);
    if (s.n == 0) s = k;
    nt_pool_geom *g = &p->g;
    for (int i = 0; i < 2; i++) {
        g->in[i] = g->out[i] = g->k[i] = g->s[i] = g->d[i] = 1;
        g->p[i] = 0;
    }
    g->in[2] = t->sizes[n - 1];
    g->k[2] = k.v[0];
    g->s[2] = s.v[0];
    g->p[2] = pad.v[0];
    g->d[2] = dil.v[0];
    if (g->k[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() kernel_size must be greater than zero, but got %" PRId64,
                       g->k[2]);
    if (g->s[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() stride must be greater than zero, but got %" PRId64, g->s[2]);
    if (g->p[2] < 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() padding must be non-negative, but got %" PRId64, g->p[2]);
    if (g->p[2] > g->k[2] / 2)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() padding should be at most half of kernel size, but got "
                       "padding=%" PRId64 " and kernel_size=%" PRId64,
                       g->p[2], g->k[2]);
    if (g->d[2] <= 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "max_pool1d() dilation must be greater than zero, but got %" PRId64,
                       g->d[2]);
    g->out[2] = out_size_lr(g->in[2], g->k[2], g->p[2], g->s[2], g->d[2], ceil_mode);
    if (g->out[2] < 0)
        return nt_fail(NT_ERR_RUNTIME, "max_pool1d() Invalid computed output size: %" PRId64,
                       g->out[2]);
    p->kernel = "max_pool1d_impl";
    p->bf16 = true;
    return NT_OK;
}

/* max_pool1d_with_indices: its list checks, then max_pool2d_with_indices of the input with a
 * dim of size one before the last. */
static nt_status plan1d_indices(const nt_tensor *t, int_list k, int_list s, int_list pad,
                                int_list dil, bool ceil_mode, pool_plan *p) {
    if (s.n == 0) s = k;
    if (t->ndim < 2 || t->ndim > 3)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 "
                       "'self' (while checking arguments for max_pool1d)",
                       t->ndim);
    const char *what[4] = {"kernel_size", "stride", "padding", "dilation"};
    const int_list *lists[4] = {&k, &s, &pad, &dil};
    for (int i = 0; i < 4; i++)
        if (lists[i]->n != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "max_pool1d() argument '%s' should contain one int (got %d)", what[i],
                           lists[i]->n);
    int64_t sizes[4], k2[2] = {1, k.v[0]}, s2[2] = {1, s.v[0]}, p2[2] = {0, pad.v[0]},
                      d2[2] = {1, dil.v[0]};
    for (int i = 0; i < t->ndim - 1; i++)
        sizes[i] = t->sizes[i];
    sizes[t->ndim - 1] = 1;
    sizes[t->ndim] = t->sizes[t->ndim - 1];
    int_list lk = {2, k2}, ls = {2, s2}, lp = {2, p2}, ld = {2, d2};
    return plan2d(t->ndim + 1, sizes, lk, ls, lp, ld, ceil_mode, p);
}

/* Runs the plan: values (and indices) into new tensors, named as the input. */
static nt_status run(const pool_plan *plan, int dims, const nt_tensor *t, bool with_indices,
                     nt_tensor **values, nt_tensor **indices) {
    nt_dtype dt = t->dtype;
    if (dt != NT_FLOAT32 && dt != NT_FLOAT64 && !(dt == NT_BFLOAT16 && plan->bf16))
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", plan->kernel,
                       nt_dtype_torch_name(dt));
    pool_plan p = *plan;
    plan_shape(&p, t, dims);
    nt_tensor *in = NULL, *v = NULL, *ix = NULL;
    nt_status st;
    NT_CHECK(st, nt_tensor_alloc(dt, p.ndim, p.shape, t->names, &v));
    if (with_indices) NT_CHECK(st, nt_tensor_alloc(NT_INT64, p.ndim, p.shape, t->names, &ix));
    if (v->numel > 0) {
        NT_CHECK(st, nt_contiguous((nt_tensor *)t, &in));
        nt_max_pool_kernel(dt, p.planes, &p.g, nt_tensor_bytes(in), nt_tensor_bytes(v),
                           ix ? (int64_t *)nt_tensor_bytes(ix) : NULL);
    }
    *values = v;
    if (indices) *indices = ix;
    nt_tensor_release(in);
    return NT_OK;
fail:
    nt_tensor_release(in);
    nt_tensor_release(v);
    nt_tensor_release(ix);
    return st;
}

/* Writes a result into an out= tensor: dtype, resize, names, copy (PyTorch's order). */
static nt_status write_out(nt_tensor *out, nt_tensor *r) {
    NT_TRY(nt_la_check_out_dtype(out, r->dtype));
    NT_TRY(nt_out_resize(out, r->ndim, r->sizes));
    NT_TRY(nt_names_check_out(out->names, out->ndim, r->names, r->ndim));
    NT_TRY(nt_copy_(out, r));
    if (!out->names && r->names) NT_TRY(nt_tensor_set_names(out, r->names));
    return NT_OK;
}

/* The dims each pooling op pools, and whether it returns indices. */
static int op_dims(nt_op op, bool *with_indices) {
    *with_indices = op == NT_OP_MAX_POOL1D_WITH_INDICES || op == NT_OP_MAX_POOL2D_WITH_INDICES ||
                    op == NT_OP_MAX_POOL3D_WITH_INDICES;
    if (op == NT_OP_MAX_POOL1D || op == NT_OP_MAX_POOL1D_WITH_INDICES) return 1;
    if (op == NT_OP_MAX_POOL2D || op == NT_OP_MAX_POOL2D_WITH_INDICES) return 2;
    return 3;
}

/* The plan of a call. Slots: self, kernel_size, stride, padding, dilation, ceil_mode. */
static nt_status plan_call(const nt_call *c, int dims, bool with_indices, pool_plan *plan) {
    const nt_tensor *t = c->args[0].v.t;
    int_list k = list_arg(c, 1, NULL, 0), s = list_arg(c, 2, NULL, 0),
             pad = list_arg(c, 3, ZERO, 1), dil = list_arg(c, 4, ONE, 1);
    bool ceil_mode = c->args[5].kind == NT_ARG_BOOL && c->args[5].v.b;
    memset(plan, 0, sizeof *plan);
    if (dims == 1 && !with_indices) return plan1d(t, k, s, pad, dil, ceil_mode, plan);
    if (dims == 1) return plan1d_indices(t, k, s, pad, dil, ceil_mode, plan);
    if (dims == 2) return plan2d(t->ndim, t->sizes, k, s, pad, dil, ceil_mode, plan);
    return plan3d(t, k, s, pad, dil, ceil_mode, plan);
}

/* The shape rule: the plan's shape (values and indices alike). */
nt_status nt_shape_max_pool(const nt_call *c, nt_shape *s) {
    bool with_indices;
    int dims = op_dims(c->op, &with_indices);
    pool_plan plan;
    NT_TRY(plan_call(c, dims, with_indices, &plan));
    plan_shape(&plan, c->args[0].v.t, dims);
    nt_shape_set(s, plan.ndim, plan.shape);
    return NT_OK;
}

nt_status nt_impl_max_pool(nt_call *c) {
    bool with_indices;
    int dims = op_dims(c->op, &with_indices);
    const nt_tensor *t = c->args[0].v.t;
    pool_plan plan;
    NT_TRY(plan_call(c, dims, with_indices, &plan));
    nt_tensor *v = NULL, *ix = NULL;
    NT_TRY(run(&plan, dims, t, with_indices, &v, &ix));
    nt_status st = NT_OK;
    if (c->out[0] || c->out[1]) {
        if (!c->out[0] || !c->out[1]) {
            st = nt_fail(NT_ERR_VALUE, "%s(): out= takes two tensors", nt_op_name(c->op));
            goto done;
        }
        NT_CHECK(st, write_out(c->out[0], v));
        NT_CHECK(st, write_out(c->out[1], ix));
        c->result[0] = nt_tensor_retain(c->out[0]);
        c->result[1] = nt_tensor_retain(c->out[1]);
        goto done;
    }
    c->result[0] = v;
    c->result[1] = ix;
    return NT_OK;
fail:
done:
    nt_tensor_release(v);
    nt_tensor_release(ix);
    return st;
}

/* ------------------------------------------------------------------ public API */

nt_status nt_max_pool(int dims, const nt_tensor *input, int nkernel, const int64_t *kernel_size,
                      int nstride, const int64_t *stride, int npadding, const int64_t *padding,
                      int ndilation, const int64_t *dilation, bool ceil_mode, nt_tensor **out,
                      nt_tensor **indices) {
    static const nt_op plain[3] = {NT_OP_MAX_POOL1D, NT_OP_MAX_POOL2D, NT_OP_MAX_POOL3D};
    static const nt_op with[3] = {NT_OP_MAX_POOL1D_WITH_INDICES, NT_OP_MAX_POOL2D_WITH_INDICES,
                                  NT_OP_MAX_POOL3D_WITH_INDICES};
    if (dims < 1 || dims > 3)
        return nt_fail(NT_ERR_VALUE, "nt_max_pool(): dims must be 1, 2 or 3, got %d", dims);
    const char *name = nt_op_name(indices ? with[dims - 1] : plain[dims - 1]);
    if (!input) return nt_fail_null_tensor(name, "input");
    if (!out) return nt_fail_null_tensor(name, "out");
    if ((nkernel > 0 && !kernel_size) || (nstride > 0 && !stride) || (npadding > 0 && !padding) ||
        (ndilation > 0 && !dilation) || nkernel < 0 || nstride < 0 || npadding < 0 || ndilation < 0)
        return nt_fail(NT_ERR_VALUE, "%s(): a list of sizes is NULL", name);
    nt_call c;
    nt_call_init(&c, indices ? with[dims - 1] : plain[dims - 1]);
    c.args[0] = nt_arg_tensor((nt_tensor *)input);
    c.args[1] = nt_arg_ints(nkernel, kernel_size);
    c.args[2] = nt_arg_ints(nstride, stride);
    c.args[3] = npadding ? nt_arg_ints(npadding, padding) : nt_arg_none();    /* none: 0 */
    c.args[4] = ndilation ? nt_arg_ints(ndilation, dilation) : nt_arg_none(); /* none: 1 */
    c.args[5] = nt_arg_bool(ceil_mode);
    NT_TRY(nt_dispatch(&c));
    *out = c.result[0];
    if (indices)
        *indices = c.result[1];
    else
        nt_tensor_release(c.result[1]);
    return NT_OK;
}
