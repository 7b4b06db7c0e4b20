/*
 * layer_norm.c — layer_norm and layer_norm_backward (layer L4), names kept.
 *
 * The input is seen as rows x n (n: the product of normalized_shape, the trailing dims),
 * made contiguous when it is not; rows run in parallel through kernels/norm_kernels.c.
 * float32 and float64 compute in their own type (float32's moments in float64 sums);
 * bfloat16 converts its operands to float32, computes and rounds the results once, as
 * PyTorch's opmath does. The backward op recomputes each row's mean and rstd, then the input
 * gradient (parallel over rows) and the weight and bias gradients (parallel over columns:
 * each column sums its rows in order, so the result does not depend on the thread count).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "kernels/norm_kernels.h"
#include "names/infer.h"
#include "ops/nn.h"

/* "[2, 3]" */
static void shape_text(int n, const int64_t *sizes, char *buf, size_t cap) {
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%" PRId64, i ? ", " : "", sizes[i]);
    if (len < cap) snprintf(buf + len, cap - len, "]");
}

static bool same_sizes(const nt_tensor *t, int n, const int64_t *sizes) {
    if (t->ndim != n) return false;
    for (int i = 0; i < n; i++)
        if (t->sizes[i] != sizes[i]) return false;
    return true;
}

/* PyTorch's _check_layer_norm_inputs, its order and texts */
nt_status nt_layer_norm_check(const nt_tensor *input, int nshape, const int64_t *shape,
                              const nt_tensor *weight, const nt_tensor *bias, int64_t *rows,
                              int64_t *cols) {
    char ns[512], got[512];
    shape_text(nshape, shape, ns, sizeof ns);
    if (nshape < 1)
        return nt_fail(
            NT_ERR_RUNTIME,
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            "least one element, but got normalized_shape = %s",
            ns);
    if (weight && !same_sizes(weight, nshape, shape)) {
        shape_text(weight->ndim, weight->sizes, got, sizeof got);
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected weight to be of same shape as normalized_shape, but got weight of "
                       "shape %s and normalized_shape = %s",
                       got, ns);
    }
    if (bias && !same_sizes(bias, nshape, shape)) {
        shape_text(bias->ndim, bias->sizes, got, sizeof got);
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected bias to be of same shape as normalized_shape, but got bias of "
                       "shape %s and normalized_shape = %s",
                       got, ns);
    }
    bool fits = input->ndim >= nshape;
    for (int i = 0; fits && i < nshape; i++)
        fits = input->sizes[input->ndim - nshape + i] == shape[i];
    if (!fits) {
        char want[520];
        snprintf(want, sizeof want, "[*");
        for (int i = 0; i < nshape; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), ", %" PRId64, shape[i]);
        shape_text(input->ndim, input->sizes, got, sizeof got);
        return nt_fail(NT_ERR_RUNTIME,
                       "Given normalized_shape=%s, expected input with shape %s], but got input of "
                       "size%s",
                       ns, want, got);
    }
    int64_t n = 1;
    for (int i = 0; i < nshape; i++)
        n *= shape[i];
    *cols = n;
    *rows = n ? input->numel / n : 0;
    return NT_OK;
}

/* The compute dtype of a layer norm of t (and its weight, bias): PyTorch's dispatch error
 * for others, then its check that weight and bias have the input's dtype. */
static nt_status check_dtypes(const char *kernel, const nt_tensor *t, const nt_tensor *w,
                              const nt_tensor *b) {
    if (t->dtype != NT_FLOAT32 && t->dtype != NT_FLOAT64 && t->dtype != NT_BFLOAT16)
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                       nt_dtype_torch_name(t->dtype));
    const nt_tensor *ops[2] = {w, b};
    for (int i = 0; i < 2; i++)
        if (ops[i] && ops[i]->dtype != t->dtype)
            return nt_fail(NT_ERR_RUNTIME, "expected scalar type %s but found %s",
                           nt_dtype_torch_name(t->dtype), nt_dtype_torch_name(ops[i]->dtype));
    return NT_OK;
}

/* t as a contiguous tensor of dtype `dtype` (t itself, retained, when it is one). */
static nt_status operand(nt_tensor *t, nt_dtype dtype, nt_tensor **out) {
    if (!t) {
        *out = NULL;
        return NT_OK;
    }
    if (t->dtype != dtype) {
        nt_tensor *c;
        NT_TRY(nt_to_dtype(t, dtype, &c));
        if (c->is_contiguous) return *out = c, NT_OK;
        nt_status st = nt_contiguous(c, out);
        nt_tensor_release(c);
        return st;
    }
    return nt_contiguous(t, out);
}

/* ------------------------------------------------------------------ forward */

typedef struct ln_job {
    const char *x, *w, *b;
    char *y;
    nt_dtype dtype; /* float32 or float64 */
    int64_t n;
    double eps;
} ln_job;

static void ln_task(void *ctx, int64_t r0, int64_t r1) {
    const ln_job *j = ctx;
    if (j->dtype == NT_FLOAT32)
        nt_layer_norm_rows_f32((const float *)j->x + r0 * j->n, (float *)j->y + r0 * j->n, r1 - r0,
                               j->n, (const float *)j->w, (const float *)j->b, j->eps);
    else
        nt_layer_norm_rows_f64((const double *)j->x + r0 * j->n, (double *)j->y + r0 * j->n,
                               r1 - r0, j->n, (const double *)j->w, (const double *)j->b, j->eps);
}

static nt_status layer_norm(nt_tensor *input, int nshape, const int64_t *shape, nt_tensor *weight,
                            nt_tensor *bias, double eps, nt_tensor **result) {
    if (!input) return nt_fail_null_tensor("layer_norm", "input");
    int64_t rows, n;
    NT_TRY(nt_layer_norm_check(input, nshape, shape, weight, bias, &rows, &n));
    NT_TRY(check_dtypes("LayerNormKernelImpl", input, weight, bias));
    nt_dtype compute = input->dtype == NT_FLOAT64 ? NT_FLOAT64 : NT_FLOAT32;
    nt_tensor *x = NULL, *w = NULL, *b = NULL, *y = NULL, *out = NULL;
    nt_status st;
    NT_CHECK(st, operand(input, compute, &x));
    NT_CHECK(st, operand(weight, compute, &w));
    NT_CHECK(st, operand(bias, compute, &b));
    NT_CHECK(st, nt_tensor_alloc(compute, input->ndim, input->sizes, input->names, &y));
    if (rows > 0 && n > 0) {
        ln_job j = {.x = nt_tensor_bytes(x),
                    .w = w ? nt_tensor_bytes(w) : NULL,
                    .b = b ? nt_tensor_bytes(b) : NULL,
                    .y = nt_tensor_bytes(y),
                    .dtype = compute,
                    .n = n,
                    .eps = eps};
        nt_parallel_for(0, rows, NT_GRAIN_SIZE / n + 1, ln_task, &j);
    }
    if (compute != input->dtype) {
        NT_CHECK(st, nt_to_dtype(y, input->dtype, &out));
        nt_tensor_release(y);
        y = NULL;
    } else {
        out = y;
        y = NULL;
    }
    *result = out;
    st = NT_OK;
fail:
    nt_tensor_release(x);
    nt_tensor_release(w);
    nt_tensor_release(b);
    nt_tensor_release(y);
    return st;
}

/* ------------------------------------------------------------------ backward */

typedef struct ln_bwd_job {
    const char *dy, *x, *w;
    char *dx, *dw, *db;
    double *mean, *rstd;
    nt_dtype dtype;
    int64_t rows, n;
    double eps;
} ln_bwd_job;

static void ln_bwd_rows(void *ctx, int64_t r0, int64_t r1) {
    const ln_bwd_job *j = ctx;
    const int64_t off = r0 * j->n;
    if (j->dtype == NT_FLOAT32)
        nt_layer_norm_backward_rows_f32((const float *)j->dy + off, (const float *)j->x + off,
                                        (const float *)j->w, (float *)j->dx + off, r1 - r0, j->n,
                                        j->eps, j->mean + r0, j->rstd + r0);
    else
        nt_layer_norm_backward_rows_f64((const double *)j->dy + off, (const double *)j->x + off,
                                        (const double *)j->w, (double *)j->dx + off, r1 - r0, j->n,
                                        j->eps, j->mean + r0, j->rstd + r0);
}

static void ln_bwd_cols(void *ctx, int64_t c0, int64_t c1) {
    const ln_bwd_job *j = ctx;
    if (j->dtype == NT_FLOAT32)
        nt_layer_norm_backward_cols_f32((const float *)j->dy, (const float *)j->x, j->mean, j->rstd,
                                        j->rows, j->n, c0, c1, (float *)j->dw, (float *)j->db);
    else
        nt_layer_norm_backward_cols_f64((const double *)j->dy, (const double *)j->x, j->mean,
                                        j->rstd, j->rows, j->n, c0, c1, (double *)j->dw,
                                        (double *)j->db);
}

/* [grad_input, grad_weight, grad_bias] into res[3] */
static nt_status layer_norm_backward(nt_tensor *grad, nt_tensor *input, int nshape,
                                     const int64_t *shape, nt_tensor *weight, double eps,
                                     nt_tensor **res) {
    if (!grad) return nt_fail_null_tensor("layer_norm_backward", "grad_out");
    if (!input) return nt_fail_null_tensor("layer_norm_backward", "input");
    int64_t rows, n;
    NT_TRY(nt_layer_norm_check(input, nshape, shape, weight, NULL, &rows, &n));
    NT_TRY(check_dtypes("LayerNormBackwardKernelImpl", input, weight, grad));
    if (!same_sizes(grad, input->ndim, input->sizes)) {
        char a[512], b[512];
        shape_text(grad->ndim, grad->sizes, a, sizeof a);
        shape_text(input->ndim, input->sizes, b, sizeof b);
        return nt_fail(NT_ERR_RUNTIME,
                       "layer_norm_backward(): grad_out of shape %s, expected the input's %s", a,
                       b);
    }
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_unify_from_right(grad->names, grad->ndim, input->names, input->ndim, buf, &nd,
                                     &names));
    /* the weight's gradients carry the weight's names, else the input's trailing ones */
    const nt_name *wnames = weight ? weight->names : names ? names + input->ndim - nshape : NULL;
    nt_dtype compute = input->dtype == NT_FLOAT64 ? NT_FLOAT64 : NT_FLOAT32;
    nt_tensor *dy = NULL, *x = NULL, *w = NULL, *out[3] = {NULL, NULL, NULL};
    double *stats = NULL;
    nt_status st;
    NT_CHECK(st, operand(grad, compute, &dy));
    NT_CHECK(st, operand(input, compute, &x));
    NT_CHECK(st, operand(weight, compute, &w));
    NT_CHECK(st, nt_tensor_alloc(compute, input->ndim, input->sizes, names, &out[0]));
    NT_CHECK(st, nt_tensor_alloc(compute, nshape, shape, NULL, &out[1]));
    NT_CHECK(st, nt_tensor_alloc(compute, nshape, shape, NULL, &out[2]));
    if (wnames) {
        nt_tensor_set_names_unchecked(out[1], wnames);
        nt_tensor_set_names_unchecked(out[2], wnames);
    }
    if (rows == 0 || n == 0) {
        NT_CHECK(st, nt_zero_(out[1]));
        NT_CHECK(st, nt_zero_(out[2]));
    } else {
        stats = malloc(2 * (size_t)rows * sizeof *stats);
        if (!stats) {
            st = nt_fail_oom(2 * (size_t)rows * sizeof *stats);
            goto fail;
        }
        ln_bwd_job j = {.dy = nt_tensor_bytes(dy),
                        .x = nt_tensor_bytes(x),
                        .w = w ? nt_tensor_bytes(w) : NULL,
                        .dx = nt_tensor_bytes(out[0]),
                        .dw = nt_tensor_bytes(out[1]),
                        .db = nt_tensor_bytes(out[2]),
                        .mean = stats,
                        .rstd = stats + rows,
                        .dtype = compute,
                        .rows = rows,
                        .n = n,
                        .eps = eps};
        nt_parallel_for(0, rows, NT_GRAIN_SIZE / n + 1, ln_bwd_rows, &j);
        nt_parallel_for(0, n, NT_GRAIN_SIZE / rows + 64, ln_bwd_cols, &j);
    }
    for (int i = 0; compute != input->dtype && i < 3; i++) {
        nt_tensor *r;
        NT_CHECK(st, nt_to_dtype(out[i], input->dtype, &r));
        nt_tensor_release(out[i]);
        out[i] = r;
    }
    for (int i = 0; i < 3; i++)
        res[i] = out[i], out[i] = NULL;
    st = NT_OK;
fail:
    free(stats);
    nt_tensor_release(dy);
    nt_tensor_release(x);
    nt_tensor_release(w);
    for (int i = 0; i < 3; i++)
        nt_tensor_release(out[i]);
    return st;
}

/* ------------------------------------------------------------------ the rows' functions */

static int ints_n(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_INTS ? c->args[i].n : 0;
}

static const int64_t *ints_v(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_INTS ? c->args[i].v.ints : NULL;
}

static double eps_arg(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_FLOAT ? c->args[i].v.f : 1e-5;
}

/* layer_norm(input, normalized_shape, weight, bias, eps) */
nt_status nt_impl_layer_norm(nt_call *c) {
    return layer_norm(nt_call_tensor(c, 0), ints_n(c, 1), ints_v(c, 1), nt_call_tensor(c, 2),
                      nt_call_tensor(c, 3), eps_arg(c, 4), &c->result[0]);
}

/* layer_norm_backward(grad_out, input, normalized_shape, weight, eps) -> Tensor[3] */
nt_status nt_impl_layer_norm_backward(nt_call *c) {
    nt_tensor **list = malloc(3 * sizeof *list);
    if (!list) return nt_fail_oom(3 * sizeof *list);
    nt_status st = layer_norm_backward(nt_call_tensor(c, 0), nt_call_tensor(c, 1), ints_n(c, 2),
                                       ints_v(c, 2), nt_call_tensor(c, 3), eps_arg(c, 4), list);
    if (st != NT_OK) {
        free(list);
        return st;
    }
    c->list = list;
    c->nlist = 3;
    return NT_OK;
}

nt_status nt_shape_layer_norm(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    int64_t rows, n;
    NT_TRY(nt_layer_norm_check(t, ints_n(c, 1), ints_v(c, 1), nt_call_tensor(c, 2),
                               nt_call_tensor(c, 3), &rows, &n));
    NT_TRY(check_dtypes("LayerNormKernelImpl", t, nt_call_tensor(c, 2), nt_call_tensor(c, 3)));
    nt_shape_of_tensor(s, t);
    return NT_OK;
}

/* entry 0: the input's shape; 1 and 2: normalized_shape */
nt_status nt_shape_layer_norm_backward(const nt_call *c, nt_shape *s) {
    const nt_tensor *g = nt_call_tensor(c, 0), *t = nt_call_tensor(c, 1);
    int64_t rows, n;
    NT_TRY(
        nt_layer_norm_check(t, ints_n(c, 2), ints_v(c, 2), nt_call_tensor(c, 3), NULL, &rows, &n));
    NT_TRY(check_dtypes("LayerNormBackwardKernelImpl", t, nt_call_tensor(c, 3), g));
    if (!same_sizes(g, t->ndim, t->sizes))
        return nt_fail(NT_ERR_RUNTIME, "layer_norm_backward(): grad_out of another shape");
    s->count = 3;
    if (s->index == 0)
        nt_shape_of_tensor(s, t);
    else
        nt_shape_set(s, ints_n(c, 2), ints_v(c, 2));
    return NT_OK;
}

/* ------------------------------------------------------------------ public API */

nt_status nt_layer_norm(nt_tensor *input, int nshape, const int64_t *normalized_shape,
                        nt_tensor *weight, nt_tensor *bias, double eps, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "layer_norm(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_LAYER_NORM);
    c.args[0] = nt_arg_tensor(input);
    c.args[1] = nt_arg_ints(nshape, normalized_shape);
    c.args[2] = nt_arg_tensor(weight);
    c.args[3] = nt_arg_tensor(bias);
    c.args[4] = nt_arg_float(eps);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}

nt_status nt_layer_norm_backward(nt_tensor *grad_out, nt_tensor *input, int nshape,
                                 const int64_t *normalized_shape, nt_tensor *weight, double eps,
                                 nt_tensor **grads) {
    if (!grads) return nt_fail(NT_ERR_VALUE, "layer_norm_backward(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_LAYER_NORM_BACKWARD);
    c.args[0] = nt_arg_tensor(grad_out);
    c.args[1] = nt_arg_tensor(input);
    c.args[2] = nt_arg_ints(nshape, normalized_shape);
    c.args[3] = nt_arg_tensor(weight);
    c.args[4] = nt_arg_float(eps);
    nt_status st = nt_dispatch(&c);
    if (st != NT_OK) return st;
    for (int i = 0; i < 3; i++)
        grads[i] = c.list[i];
    free(c.list);
    return NT_OK;
}
