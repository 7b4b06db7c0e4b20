/*
 * scan.c — the scans along a dim (layer L4): cumsum, cumprod, logcumsumexp, cummax and
 * cummin, names kept.
 *
 * cumsum/cumprod convert integer and bool inputs to int64 first (PyTorch's default result),
 * or to the dtype= given; logcumsumexp takes floating inputs; the kernels
 * (kernels/scan_kernels.c) then read and write one dtype. Two schedules: the dim is the
 * input's fastest one (each line a sequential loop, lines in parallel), or it is not (a tile
 * of lanes across the fastest kept dim advances one step of the dim at a time: vectorised,
 * cache-friendly; for the kernels that have a lanes form). cummax/cummin run by lines and
 * also write int64 indices.
 */
#include <inttypes.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"
#include "kernels/scan_kernels.h"
#include "names/infer.h"
#include "ntensor/pointwise.h"
#include "reduce.h"

#define SCAN_LANES 256

typedef struct scan_job {
    const nt_red_plan *p;
    const nt_scan_kernel *k;
    nt_cumext_line_fn cumext;
    int64_t n, is, os, xs; /* the scanned dim: length, input, output and index byte strides */
} scan_job;

static void line_task(void *ctx, int64_t b, int64_t e) {
    const scan_job *j = ctx;
    for (int64_t o = b; o < e; o++) {
        int64_t in, out, out2;
        nt_red_plan_offsets(j->p, o, &in, &out, &out2);
        if (j->cumext)
            j->cumext(j->p->in + in, j->is, j->p->out + out, j->os, (int64_t *)(j->p->out2 + out2),
                      j->xs, j->n);
        else
            j->k->line(j->p->in + in, j->is, j->p->out + out, j->os, j->n);
    }
}

static void lanes_task(void *ctx, int64_t b, int64_t e) {
    const scan_job *j = ctx;
    const nt_red_plan *p = j->p;
    nt_red_plan rest = *p;
    rest.nk = p->nk - 1;
    memmove(rest.ks, p->ks + 1, (size_t)rest.nk * sizeof *rest.ks);
    memmove(rest.kin, p->kin + 1, (size_t)rest.nk * sizeof *rest.kin);
    memmove(rest.kout, p->kout + 1, (size_t)rest.nk * sizeof *rest.kout);
    int64_t lanes = p->ks[0], tiles = (lanes + SCAN_LANES - 1) / SCAN_LANES;
    double acc[SCAN_LANES]; /* 8 bytes per lane: double or uint64 */
    for (int64_t w = b; w < e; w++) {
        int64_t row = w / tiles, l0 = (w % tiles) * SCAN_LANES;
        int64_t n = lanes - l0 < SCAN_LANES ? lanes - l0 : SCAN_LANES;
        int64_t in, out;
        nt_red_plan_offsets(&rest, row, &in, &out, NULL);
        const char *src = p->in + in + l0 * p->kin[0];
        char *dst = p->out + out + l0 * p->kout[0];
        j->k->init(acc, n);
        for (int64_t r = 0; r < j->n; r++)
            j->k->lanes(acc, src + r * j->is, p->kin[0], dst + r * j->os, p->kout[0], n);
    }
}

/* Runs job j (kernel set, strides to fill) along dim d of src into result (and indices). */
static void run_scan(scan_job *j, const nt_tensor *src, int64_t d, nt_tensor *result,
                     nt_tensor *indices) {
    const nt_tensor *t = src;
    nt_red_plan p;
    uint64_t mask = t->ndim ? (uint64_t)1 << d : 0;
    nt_red_plan_build(&p, src, mask, true, result, indices);
    int64_t esize = (int64_t)nt_dtype_table[src->dtype].size;
    j->p = &p;
    j->n = t->ndim ? t->sizes[d] : 1;
    j->is = t->ndim ? src->strides[d] * esize : 0;
    j->os = t->ndim ? result->strides[d] * esize : 0;
    j->xs = indices && t->ndim ? indices->strides[d] * (int64_t)sizeof(int64_t) : 0;
    int64_t abs_is = j->is < 0 ? -j->is : j->is;
    bool lines = !j->k || !j->k->lanes || p.nk == 0 || j->n == 1 ||
                 abs_is < (p.kin[0] < 0 ? -p.kin[0] : p.kin[0]);
    if (lines) {
        nt_parallel_for(0, p.nout, NT_GRAIN_SIZE / j->n + 1, line_task, j);
    } else {
        int64_t tiles = (p.ks[0] + SCAN_LANES - 1) / SCAN_LANES;
        int64_t w = p.ks[0] < SCAN_LANES ? p.ks[0] : SCAN_LANES;
        nt_parallel_for(0, p.nout / p.ks[0] * tiles, NT_GRAIN_SIZE / (j->n * w) + 1, lanes_task, j);
    }
}

/* cumsum / cumprod / logcumsumexp of t along dim into `into` (out=; NULL: *out). */
static nt_status scan(nt_scan_kind kind, const char *kernel, nt_tensor *t, nt_dim dim, int dtype,
                      nt_tensor *into, nt_tensor **out) {
    const char *fname = nt_op_rows[kind == NT_SCAN_SUM    ? NT_OP_CUMSUM
                                   : kind == NT_SCAN_PROD ? NT_OP_CUMPROD
                                                          : NT_OP_LOGCUMSUMEXP]
                            .name;
    if (!t) return nt_fail_null_tensor(fname, "self");
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    int64_t d;
    NT_TRY(nt_red_dim(t, dim, &d));
    nt_dtype target;
    if (kind == NT_SCAN_LOGSUMEXP) {
        /* PyTorch's logcumsumexp: the input's dtype, and an out= of exactly that dtype */
        target = t->dtype;
        if (into && into->dtype != target)
            return nt_fail(NT_ERR_RUNTIME, "expected scalar_type %s but found %s",
                           nt_dtype_torch_name(target), nt_dtype_torch_name(into->dtype));
    } else {
        /* without dtype=, an out= tensor's dtype is the one PyTorch computes in */
        target = dtype >= 0                                       ? (nt_dtype)dtype
                 : into                                           ? into->dtype
                 : nt_dtype_table[t->dtype].kind == NT_KIND_FLOAT ? t->dtype
                                                                  : NT_INT64;
    }
    scan_job j = {.k = nt_scan_kernel_for(kind, target)};
    if (!j.k) return nt_red_not_implemented(kernel, target);
    nt_tensor *src = NULL, *result = NULL;
    nt_status st;
    /* PyTorch's logcumsumexp checks an out='s names before resizing it */
    if (into && kind == NT_SCAN_LOGSUMEXP)
        NT_TRY(nt_names_check_out(into->names, into->ndim, t->names, t->ndim));
    NT_CHECK(st, nt_to_dtype(t, target, &src));
    NT_CHECK(st, nt_red_prepare(into, t, target, t->ndim, t->sizes, t->names, &result));
    if (t->numel > 0) run_scan(&j, src, d, result, NULL);
    nt_tensor_release(src);
    return nt_red_finish(NT_OK, into, result, t->names, out);
fail:
    nt_tensor_release(src);
    nt_tensor_release(result);
    return st;
}

/* cummax / cummin of t along dim: values and indices (out=: ov and oi). */
static nt_status cumextreme(bool is_max, nt_tensor *t, nt_dim dim, nt_tensor *ov, nt_tensor *oi,
                            nt_tensor **values, nt_tensor **indices) {
    const char *fname = is_max ? "cummax" : "cummin";
    if (!t) return nt_fail_null_tensor(fname, "self");
    if ((ov || oi) && !(ov && oi))
        return nt_fail(NT_ERR_VALUE, "%s(): out= takes two tensors", fname);
    int64_t d;
    NT_TRY(nt_red_dim(t, dim, &d));
    if (ov && ov->dtype != t->dtype)
        return nt_fail(NT_ERR_RUNTIME, "expected scalar_type %s but found %s",
                       nt_dtype_torch_name(t->dtype), nt_dtype_torch_name(ov->dtype));
    if (oi && oi->dtype != NT_INT64)
        return nt_fail(NT_ERR_RUNTIME, "expected scalar_type Long but found %s",
                       nt_dtype_torch_name(oi->dtype));
    scan_job j = {.cumext = nt_cumext_line_for(is_max, t->dtype)};
    if (!j.cumext) return nt_red_not_implemented(is_max ? "cummax_cpu" : "cummin_cpu", t->dtype);
    nt_tensor *v = NULL, *ix = NULL;
    nt_status st;
    NT_CHECK(st, nt_red_prepare(ov, t, t->dtype, t->ndim, t->sizes, t->names, &v));
    NT_CHECK(st, nt_red_prepare(oi, t, NT_INT64, t->ndim, t->sizes, t->names, &ix));
    if (t->numel > 0) run_scan(&j, t, d, v, ix);
    st = nt_red_finish(NT_OK, ov, v, t->names, values);
    v = NULL;
    if (st != NT_OK) goto fail;
    st = nt_red_finish(NT_OK, oi, ix, t->names, indices);
    ix = NULL;
    if (st != NT_OK) {
        nt_tensor_release(*values);
        *values = NULL;
    }
    return st;
fail:
    nt_tensor_release(v);
    nt_tensor_release(ix);
    return st;
}

/* ------------------------------------------------------------------ the ops (call records) */

/* cumsum / cumprod: (self, dim, dtype); logcumsumexp: (self, dim) */
nt_status nt_impl_scan(nt_call *c) {
    nt_dim dim = c->args[1].kind == NT_ARG_DIM ? c->args[1].v.dim : 0;
    if (c->op == NT_OP_LOGCUMSUMEXP)
        return scan(NT_SCAN_LOGSUMEXP, "logcumsumexp_out_cpu", nt_call_tensor(c, 0), dim, -1,
                    c->out[0], &c->result[0]);
    int dtype = c->args[2].kind == NT_ARG_DTYPE ? (int)c->args[2].v.dtype : -1;
    bool prod = c->op == NT_OP_CUMPROD;
    return scan(prod ? NT_SCAN_PROD : NT_SCAN_SUM, prod ? "cumprod_out_cpu" : "cumsum_out_cpu",
                nt_call_tensor(c, 0), dim, dtype, c->out[0], &c->result[0]);
}

/* cummax / cummin: (self, dim) */
nt_status nt_impl_cumextreme(nt_call *c) {
    nt_dim dim = c->args[1].kind == NT_ARG_DIM ? c->args[1].v.dim : 0;
    return cumextreme(c->op == NT_OP_CUMMAX, nt_call_tensor(c, 0), dim, c->out[0], c->out[1],
                      &c->result[0], &c->result[1]);
}

/* ------------------------------------------------------------------ public functions */

static nt_status scan_call(nt_op op, nt_tensor *t, nt_dim dim, int dtype, nt_tensor *into,
                           nt_tensor **out) {
    if (!into && !out)
        return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.out[0] = into;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    if (op != NT_OP_LOGCUMSUMEXP) c.args[2] = nt_arg_dtype(dtype);
    return nt_red_results(nt_dispatch(&c), &c, out, NULL);
}

nt_status nt_cumsum(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out) {
    return scan_call(NT_OP_CUMSUM, t, dim, dtype, NULL, out);
}

nt_status nt_cumprod(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out) {
    return scan_call(NT_OP_CUMPROD, t, dim, dtype, NULL, out);
}

nt_status nt_cumsum_out(nt_tensor *t, nt_dim dim, int dtype, nt_tensor *out) {
    if (!out) return nt_fail_null_tensor("cumsum", "out");
    return scan_call(NT_OP_CUMSUM, t, dim, dtype, out, NULL);
}

nt_status nt_cumprod_out(nt_tensor *t, nt_dim dim, int dtype, nt_tensor *out) {
    if (!out) return nt_fail_null_tensor("cumprod", "out");
    return scan_call(NT_OP_CUMPROD, t, dim, dtype, out, NULL);
}

nt_status nt_logcumsumexp(nt_tensor *t, nt_dim dim, nt_tensor **out) {
    return scan_call(NT_OP_LOGCUMSUMEXP, t, dim, -1, NULL, out);
}

static nt_status cumextreme_call(nt_op op, nt_tensor *t, nt_dim dim, nt_tensor **values,
                                 nt_tensor **indices) {
    if (!values || !indices)
        return nt_fail(NT_ERR_VALUE, "%s(): NULL output pointer", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    return nt_red_results(nt_dispatch(&c), &c, values, indices);
}

nt_status nt_cummax(nt_tensor *t, nt_dim dim, nt_tensor **values, nt_tensor **indices) {
    return cumextreme_call(NT_OP_CUMMAX, t, dim, values, indices);
}

nt_status nt_cummin(nt_tensor *t, nt_dim dim, nt_tensor **values, nt_tensor **indices) {
    return cumextreme_call(NT_OP_CUMMIN, t, dim, values, indices);
}
