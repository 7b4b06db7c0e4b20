/*
 * loss.c — nll_loss, nll_loss_nd and nll_loss_backward (layer L4); loops in
 * kernels/loss_kernels.c.
 *
 * nll_loss takes input (N, C) or (C) and PyTorch's checks in its order and words;
 * nll_loss_nd (F.nll_loss's entry) also (N, C, d1, ...), with nll_loss_nd's and
 * nll_loss2d's texts. Reductions: 0 none (the target's shape and names; a (C) input gives a
 * 0-dim result), 1 mean (the weighted sum over the total weight of the targets not ignored,
 * NaN when that is 0, as PyTorch's), any other value sum. The sums run in float64 in order
 * of the elements and round once. nll_loss_backward is aten's, for any of those shapes;
 * given no total_weight, it recomputes it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "core/half.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "kernels/loss_kernels.h"
#include "names/infer.h"
#include "ops/nn.h"

enum { REDUCTION_NONE = 0, REDUCTION_MEAN = 1 };

static void sizes_text(int n, const int64_t *sizes, char *buf, size_t cap) {
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%" PRId64, i ? ", " : "", sizes[i]);
    if (len < cap) snprintf(buf + len, cap - len, "]");
}

/* nll_loss's checks of shapes (1-d or 2-d input) */
static nt_status check_2d(const nt_tensor *x, const nt_tensor *t) {
    if (x->ndim < 1 || x->ndim > 2)
        return nt_fail(NT_ERR_RUNTIME, "input tensor should be 1D or 2D");
    if (t->ndim > 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "0D or 1D target tensor expected, multi-target not supported");
    bool no_batch = x->ndim == 1 && t->ndim == 0;
    if (!no_batch && (t->ndim == 0 || x->sizes[0] != t->sizes[0])) {
        char a[256], b[256];
        sizes_text(x->ndim, x->sizes, a, sizeof a);
        sizes_text(t->ndim, t->sizes, b, sizeof b);
        return nt_fail(NT_ERR_RUNTIME, "size mismatch (got input: %s, target: %s)", a, b);
    }
    return NT_OK;
}

/* nll_loss_nd's checks of shapes (and nll_loss2d's for 4-d inputs) */
static nt_status check_nd(const nt_tensor *x, const nt_tensor *t) {
    if (x->ndim < 1)
        return nt_fail(NT_ERR_VALUE, "Expected 1 or more dimensions (got %d)", x->ndim);
    if (x->ndim != 1 && (t->ndim == 0 || x->sizes[0] != t->sizes[0]))
        return nt_fail(NT_ERR_VALUE,
                       "Expected input batch_size (%" PRId64
                       ") to match target batch_size (%" PRId64 ").",
                       x->sizes[0], t->ndim ? t->sizes[0] : (int64_t)1);
    if (x->ndim <= 2) return check_2d(x, t);
    char a[256], b[256];
    sizes_text(x->ndim, x->sizes, a, sizeof a);
    sizes_text(t->ndim, t->sizes, b, sizeof b);
    bool same = t->ndim == x->ndim - 1;
    for (int i = 1; same && i < t->ndim; i++)
        same = t->sizes[i] == x->sizes[i + 1];
    if (x->ndim == 4) {
        if (t->ndim != 3)
            return nt_fail(NT_ERR_RUNTIME,
                           "only batches of spatial targets supported (3D tensors) but got "
                           "targets of dimension: %d",
                           t->ndim);
        if (!same)
            return nt_fail(NT_ERR_RUNTIME, "size mismatch (got input: %s , target: %s", a, b);
        return NT_OK;
    }
    if (!same) {
        int64_t want[NT_MAX_DIMS];
        want[0] = x->sizes[0];
        for (int i = 2; i < x->ndim; i++)
            want[i - 1] = x->sizes[i];
        sizes_text(x->ndim - 1, want, a, sizeof a);
        return nt_fail(NT_ERR_RUNTIME, "Expected target size %s, got %s", a, b);
    }
    return NT_OK;
}

/* Every check before the loops: shapes, weight, dtypes, then each target in range (an
 * IndexError, "Target 4 is out of bounds."); fills the kernel's arguments but pointers. */
static nt_status check(bool nd, const nt_tensor *x, const nt_tensor *t, const nt_tensor *w,
                       const char *kernel, nt_nll_args *a) {
    NT_TRY(nd ? check_nd(x, t) : check_2d(x, t));
    const int64_t classes = x->ndim == 1 ? x->sizes[0] : x->sizes[1];
    if (w && (w->ndim != 1 || w->numel != classes)) {
        char b[256];
        sizes_text(w->ndim, w->sizes, b, sizeof b);
        return nt_fail(NT_ERR_RUNTIME,
                       "weight tensor should be defined either for all %" PRId64
                       " classes or no classes but got weight tensor of shape: %s",
                       classes, b);
    }
    if (x->dtype != NT_FLOAT32 && x->dtype != NT_FLOAT64 && x->dtype != NT_BFLOAT16)
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                       nt_dtype_torch_name(x->dtype));
    if (t->dtype != NT_INT64 && t->dtype != NT_UINT8)
        return nt_fail(NT_ERR_RUNTIME, "expected scalar type Long but found %s",
                       nt_dtype_torch_name(t->dtype));
    if (w && w->dtype != x->dtype)
        return nt_fail(NT_ERR_RUNTIME, "expected scalar type %s but found %s",
                       nt_dtype_torch_name(x->dtype), nt_dtype_torch_name(w->dtype));
    a->dtype = x->dtype;
    a->c = classes;
    a->n = x->ndim == 1 ? 1 : x->sizes[0];
    a->s = 1;
    for (int i = 2; i < x->ndim; i++)
        a->s *= x->sizes[i];
    a->target_u8 = t->dtype == NT_UINT8;
    return NT_OK;
}

/* The targets out of range, after their pointer is set. */
static nt_status check_targets(const nt_nll_args *a) {
    for (int64_t i = 0; i < a->n * a->s; i++) {
        int64_t t = nt_nll_target(a, i);
        if (t != a->ignore_index && (t < 0 || t >= a->c))
            return nt_fail(NT_ERR_INDEX, "Target %" PRId64 " is out of bounds.", t);
    }
    return NT_OK;
}

/* Contiguous views of the operands (the tensors themselves when they are), pointers set. */
typedef struct operands {
    nt_tensor *x, *t, *w;
} operands;

static nt_status prepare(nt_tensor *x, nt_tensor *t, nt_tensor *w, operands *o, nt_nll_args *a) {
    o->x = o->t = o->w = NULL;
    nt_status st;
    NT_CHECK(st, nt_contiguous(x, &o->x));
    NT_CHECK(st, nt_contiguous(t, &o->t));
    if (w) NT_CHECK(st, nt_contiguous(w, &o->w));
    a->input = nt_tensor_bytes(o->x);
    a->target = nt_tensor_bytes(o->t);
    a->weight = w ? nt_tensor_bytes(o->w) : NULL;
    NT_CHECK(st, check_targets(a));
    return NT_OK;
fail:
    nt_tensor_release(o->x);
    nt_tensor_release(o->t);
    nt_tensor_release(o->w);
    return st;
}

static void release(operands *o) {
    nt_tensor_release(o->x);
    nt_tensor_release(o->t);
    nt_tensor_release(o->w);
}

/* A 0-dim tensor of dtype holding v (rounded once). */
static nt_status scalar_tensor(nt_dtype dtype, double v, nt_tensor **out) {
    NT_TRY(nt_tensor_alloc(dtype, 0, NULL, NULL, out));
    if (dtype == NT_FLOAT32)
        *(float *)(void *)nt_tensor_bytes(*out) = (float)v;
    else if (dtype == NT_FLOAT64)
        *(double *)(void *)nt_tensor_bytes(*out) = v;
    else
        *(nt_bfloat16 *)(void *)nt_tensor_bytes(*out) = nt_f32_to_bf16((float)v);
    return NT_OK;
}

static double scalar_value(const nt_tensor *t) {
    const char *p = nt_tensor_bytes(t);
    switch (t->dtype) {
    case NT_FLOAT32:
        return *(const float *)(const void *)p;
    case NT_FLOAT64:
        return *(const double *)(const void *)p;
    case NT_BFLOAT16:
        return nt_bf16_to_f32(*(const nt_bfloat16 *)(const void *)p);
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------ forward */

static bool per_element(int64_t reduction, const nt_tensor *x) {
    return reduction == REDUCTION_NONE && x->ndim >= 2;
}

static nt_status nll_loss(bool nd, nt_tensor *x, nt_tensor *t, nt_tensor *w, int64_t reduction,
                          int64_t ignore_index, nt_tensor **result) {
    const char *fn = nd ? "nll_loss_nd" : "nll_loss";
    if (!x) return nt_fail_null_tensor(fn, "input");
    if (!t) return nt_fail_null_tensor(fn, "target");
    nt_nll_args a = {.ignore_index = ignore_index};
    NT_TRY(check(nd, x, t, w, "nll_loss_out_frame", &a));
    operands o;
    NT_TRY(prepare(x, t, w, &o, &a));
    nt_tensor *out = NULL;
    nt_status st;
    if (per_element(reduction, x)) {
        NT_CHECK(st, nt_tensor_alloc(x->dtype, t->ndim, t->sizes, t->names, &out));
        nt_nll_none_kernel(&a, nt_tensor_bytes(out));
    } else {
        double loss, tw;
        nt_nll_sums_kernel(&a, &loss, &tw);
        if (reduction == REDUCTION_MEAN) loss /= tw; /* NaN for no weight, as PyTorch */
        NT_CHECK(st, scalar_tensor(x->dtype, loss, &out));
    }
    *result = out;
    st = NT_OK;
fail:
    release(&o);
    return st;
}

/* ------------------------------------------------------------------ backward */

static nt_status nll_loss_backward(nt_tensor *g, nt_tensor *x, nt_tensor *t, nt_tensor *w,
                                   int64_t reduction, int64_t ignore_index, nt_tensor *tw,
                                   nt_tensor **result) {
    const char *fn = "nll_loss_backward";
    if (!g) return nt_fail_null_tensor(fn, "grad_output");
    if (!x) return nt_fail_null_tensor(fn, "self");
    if (!t) return nt_fail_null_tensor(fn, "target");
    nt_nll_args a = {.ignore_index = ignore_index};
    NT_TRY(check(true, x, t, w, "nll_loss_backward_out_frame", &a));
    bool each = per_element(reduction, x);
    if (each && x->ndim == 2 && (g->ndim != 1 || g->sizes[0] != x->sizes[0]))
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected a tensor of dimension 1 and tensor.size[0] == %" PRId64
                       " but got: dimension %d and tensor.size[0] = %" PRId64,
                       x->sizes[0], g->ndim, g->ndim ? g->sizes[0] : (int64_t)1);
    if (each && x->ndim > 2) {
        bool same = g->ndim == t->ndim;
        for (int i = 0; same && i < g->ndim; i++)
            same = g->sizes[i] == t->sizes[i];
        if (!same) {
            char a1[256], b1[256];
            sizes_text(g->ndim, g->sizes, a1, sizeof a1);
            sizes_text(t->ndim, t->sizes, b1, sizeof b1);
            return nt_fail(NT_ERR_RUNTIME,
                           "nll_loss_backward(): grad_output of shape %s, expected the target's %s",
                           a1, b1);
        }
    }
    if (!each && g->numel != 1) {
        char b1[256];
        sizes_text(g->ndim, g->sizes, b1, sizeof b1);
        return nt_fail(NT_ERR_RUNTIME, "Expected a single element grad_output tensor, but got: %s",
                       b1);
    }
    if (tw && tw->numel != 1) {
        char b1[256];
        sizes_text(tw->ndim, tw->sizes, b1, sizeof b1);
        return nt_fail(NT_ERR_RUNTIME,
                       "expected total_weight to be a  single element tensor, got: %s (%" PRId64
                       " elements)",
                       b1, tw->numel);
    }
    const nt_tensor *same_dtype[2] = {g, tw};
    for (int i = 0; i < 2; i++)
        if (same_dtype[i] && same_dtype[i]->dtype != x->dtype)
            return nt_fail(NT_ERR_RUNTIME, "expected scalar type %s but found %s",
                           nt_dtype_torch_name(x->dtype),
                           nt_dtype_torch_name(same_dtype[i]->dtype));
    operands o;
    NT_TRY(prepare(x, t, w, &o, &a));
    nt_tensor *gi = NULL, *gc = NULL;
    nt_status st;
    NT_CHECK(st, nt_tensor_alloc(x->dtype, x->ndim, x->sizes, x->names, &gi));
    NT_CHECK(st, nt_zero_(gi));
    double scale = 0;
    if (each) {
        NT_CHECK(st, nt_contiguous(g, &gc));
    } else {
        scale = scalar_value(g);
        if (reduction == REDUCTION_MEAN) {
            double total;
            if (tw) {
                nt_tensor *twc;
                NT_CHECK(st, nt_contiguous(tw, &twc));
                total = scalar_value(twc);
                nt_tensor_release(twc);
            } else {
                double loss;
                nt_nll_sums_kernel(&a, &loss, &total);
            }
            scale /= total;
        }
    }
    nt_nll_backward_kernel(&a, nt_tensor_bytes(gi), gc ? nt_tensor_bytes(gc) : NULL, each, scale);
    *result = gi;
    gi = NULL;
    st = NT_OK;
fail:
    nt_tensor_release(gi);
    nt_tensor_release(gc);
    release(&o);
    return st;
}

/* ------------------------------------------------------------------ the rows' functions */

static int64_t int_arg(const nt_call *c, int i, int64_t def) {
    return c->args[i].kind == NT_ARG_INT ? c->args[i].v.i : def;
}

/* nll_loss / nll_loss_nd(self, target, weight, reduction, ignore_index) */
nt_status nt_impl_nll_loss(nt_call *c) {
    return nll_loss(c->op == NT_OP_NLL_LOSS_ND, nt_call_tensor(c, 0), nt_call_tensor(c, 1),
                    nt_call_tensor(c, 2), int_arg(c, 3, REDUCTION_MEAN), int_arg(c, 4, -100),
                    &c->result[0]);
}

/* nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index,
 * total_weight) */
nt_status nt_impl_nll_loss_backward(nt_call *c) {
    return nll_loss_backward(nt_call_tensor(c, 0), nt_call_tensor(c, 1), nt_call_tensor(c, 2),
                             nt_call_tensor(c, 3), int_arg(c, 4, REDUCTION_MEAN),
                             int_arg(c, 5, -100), nt_call_tensor(c, 6), &c->result[0]);
}

nt_status nt_shape_nll_loss(const nt_call *c, nt_shape *s) {
    const nt_tensor *x = nt_call_tensor(c, 0), *t = nt_call_tensor(c, 1);
    nt_nll_args a;
    NT_TRY(check(c->op == NT_OP_NLL_LOSS_ND, x, t, nt_call_tensor(c, 2), "nll_loss_out_frame", &a));
    if (per_element(int_arg(c, 3, REDUCTION_MEAN), x))
        nt_shape_of_tensor(s, t);
    else
        s->ndim = 0;
    return NT_OK;
}

nt_status nt_shape_nll_loss_backward(const nt_call *c, nt_shape *s) {
    const nt_tensor *x = nt_call_tensor(c, 1);
    nt_nll_args a;
    NT_TRY(check(true, x, nt_call_tensor(c, 2), nt_call_tensor(c, 3), "nll_loss_backward_out_frame",
                 &a));
    nt_shape_of_tensor(s, x);
    return NT_OK;
}

/* ------------------------------------------------------------------ public API */

nt_status nt_nll_loss(nt_tensor *input, nt_tensor *target, nt_tensor *weight, int64_t reduction,
                      int64_t ignore_index, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "nll_loss(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_NLL_LOSS_ND);
    c.args[0] = nt_arg_tensor(input);
    c.args[1] = nt_arg_tensor(target);
    c.args[2] = nt_arg_tensor(weight);
    c.args[3] = nt_arg_int(reduction);
    c.args[4] = nt_arg_int(ignore_index);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}

nt_status nt_nll_loss_backward(nt_tensor *grad_output, nt_tensor *input, nt_tensor *target,
                               nt_tensor *weight, int64_t reduction, int64_t ignore_index,
                               nt_tensor *total_weight, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "nll_loss_backward(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_NLL_LOSS_BACKWARD);
    c.args[0] = nt_arg_tensor(grad_output);
    c.args[1] = nt_arg_tensor(input);
    c.args[2] = nt_arg_tensor(target);
    c.args[3] = nt_arg_tensor(weight);
    c.args[4] = nt_arg_int(reduction);
    c.args[5] = nt_arg_int(ignore_index);
    c.args[6] = nt_arg_tensor(total_weight);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}
