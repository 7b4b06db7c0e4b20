/*
 * softmax.c — softmax and log_softmax along a dim (layer L4), names kept.
 *
 * The row kernels are kernels/softmax_kernels.c's (PyTorch's three-pass algorithm).
 * float32 and float64 rows that are contiguous in input and output run in place; other
 * rows (a strided dim, bfloat16) go through nt_softmax_row_strided with a float/double
 * buffer per task. Rows run in parallel.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"
#include "kernels/softmax_kernels.h"
#include "reduce.h"

/* ------------------------------------------------------------------ rows in parallel */

typedef struct sm_job {
    const nt_red_plan *p; /* NULL for packed rows */
    const char *in;       /* packed rows: row o at in + o * n elements, out likewise */
    char *out;
    nt_dtype dtype;
    int64_t n, is, os; /* the row: length, input and output byte strides */
    bool log_out;
    bool direct; /* rows contiguous in input and output, float32/float64 */
    _Atomic int failed;
} sm_job;

/* Rows [b, e) of a softmax over the last dim of contiguous float32 or float64 tensors. */
static void packed_task(void *ctx, int64_t b, int64_t e) {
    const sm_job *j = ctx;
    if (j->dtype == NT_FLOAT32) {
        const float *x = (const float *)j->in + b * j->n;
        nt_softmax_rows_f32(x, (float *)j->out + b * j->n, e - b, j->n, j->log_out);
        return;
    }
    size_t es = nt_dtype_table[j->dtype].size;
    for (int64_t o = b; o < e; o++) {
        const char *x = j->in + (size_t)(o * j->n) * es;
        char *y = j->out + (size_t)(o * j->n) * es;
        if (j->dtype == NT_FLOAT64)
            nt_softmax_row_f64((const double *)x, (double *)y, j->n, j->log_out);
        else
            nt_softmax_row_f32((const float *)x, (float *)y, j->n, j->log_out);
    }
}

static void sm_task(void *ctx, int64_t b, int64_t e) {
    sm_job *j = ctx;
    const nt_red_plan *p = j->p;
    void *buf = NULL;
    if (!j->direct) {
        buf = malloc((size_t)j->n * sizeof(double));
        if (!buf) {
            atomic_store(&j->failed, 1);
            return;
        }
    }
    for (int64_t o = b; o < e; o++) {
        int64_t in, out;
        nt_red_plan_offsets(p, o, &in, &out, NULL);
        const char *x = p->in + in;
        char *y = p->out + out;
        if (j->direct) {
            if (j->dtype == NT_FLOAT64)
                nt_softmax_row_f64((const double *)x, (double *)y, j->n, j->log_out);
            else
                nt_softmax_row_f32((const float *)x, (float *)y, j->n, j->log_out);
            continue;
        }
        nt_softmax_row_strided(x, j->is, y, j->os, j->n, j->dtype, j->log_out, buf);
    }
    free(buf);
}

static nt_status softmax_impl(bool log_out, nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out) {
    const char *fname = log_out ? "log_softmax" : "softmax";
    if (!t) return nt_fail_null_tensor(fname, "input");
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    int64_t d;
    NT_TRY(nt_red_dim(t, dim, &d));
    nt_dtype target = dtype >= 0 ? (nt_dtype)dtype : t->dtype;
    if (target != NT_FLOAT32 && target != NT_FLOAT64 && target != NT_BFLOAT16) {
        bool last = t->ndim == 0 || d == t->ndim - 1;
        char kernel[64];
        /* PyTorch names the lastdim kernels per op, the other one "softmax" for both */
        snprintf(kernel, sizeof kernel, "%s_kernel_impl",
                 last ? (log_out ? "log_softmax_lastdim" : "softmax_lastdim") : "softmax");
        return nt_red_not_implemented(kernel, target);
    }
    /* `t` itself, or its conversion: the caller's reference keeps `t` alive, so taking
     * one (two atomic operations) is not needed */
    nt_tensor *converted = NULL, *result = NULL;
    const nt_tensor *src = t;
    nt_status st;
    if (target != t->dtype) {
        NT_CHECK(st, nt_to_dtype(t, target, &converted));
        src = converted;
    }
    NT_CHECK(st, nt_tensor_alloc(target, t->ndim, t->sizes, t->names, &result));
    int64_t n = t->ndim ? t->sizes[d] : 1;
    if (t->numel > 0 && target != NT_BFLOAT16 && src->is_contiguous && d == t->ndim - 1) {
        /* packed rows, the common case: no plan to build */
        sm_job j = {.in = nt_tensor_bytes(src),
                    .out = nt_tensor_bytes(result),
                    .dtype = target,
                    .n = n,
                    .log_out = log_out};
        nt_parallel_for(0, t->numel / n, NT_GRAIN_SIZE / (4 * n) + 1, packed_task, &j);
    } else if (t->numel > 0) {
        nt_red_plan p;
        nt_red_plan_build(&p, src, t->ndim ? (uint64_t)1 << d : 0, true, result, NULL);
        int64_t es = (int64_t)nt_dtype_table[target].size;
        sm_job j = {.p = &p, .dtype = target, .log_out = log_out};
        j.n = n;
        j.is = t->ndim ? src->strides[d] * es : es;
        j.os = t->ndim ? result->strides[d] * es : es;
        j.direct = target != NT_BFLOAT16 && (j.is == es || j.n == 1) && (j.os == es || j.n == 1);
        atomic_store(&j.failed, 0);
        nt_parallel_for(0, p.nout, NT_GRAIN_SIZE / (4 * j.n) + 1, sm_task, &j);
        if (atomic_load(&j.failed)) {
            st = nt_fail_oom((size_t)j.n * sizeof(double));
            goto fail;
        }
    }
    nt_tensor_release(converted);
    *out = result;
    return NT_OK;
fail:
    nt_tensor_release(converted);
    nt_tensor_release(result);
    return st;
}

/* ------------------------------------------------------------------ the op and its functions */

/* softmax / log_softmax: (self, dim, dtype) */
nt_status nt_impl_softmax(nt_call *c) {
    nt_dim dim = c->args[1].kind == NT_ARG_DIM ? c->args[1].v.dim : 0;
    int dtype = c->args[2].kind == NT_ARG_DTYPE ? (int)c->args[2].v.dtype : -1;
    return softmax_impl(c->op == NT_OP_LOG_SOFTMAX, nt_call_tensor(c, 0), dim, dtype,
                        &c->result[0]);
}

static nt_status softmax_call(nt_op op, nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_dtype(dtype);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0]; /* the one result */
    return st;
}

nt_status nt_softmax(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out) {
    return softmax_call(NT_OP_SOFTMAX, t, dim, dtype, out);
}

nt_status nt_log_softmax(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out) {
    return softmax_call(NT_OP_LOG_SOFTMAX, t, dim, dtype, out);
}
