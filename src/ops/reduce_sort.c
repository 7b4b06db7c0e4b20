/*
 * reduce_sort.c — order statistics along a dim (layer L4): median (lower median, NaN
 * propagates), kthvalue, mode, topk and sort, each giving values and int64 indices, and
 * argsort.
 *
 * Each row along the dim is sorted as (key, index) pairs by kernels/sort_kernels.c (NaN
 * above every number, ties by index: among equal values the first index is reported, the
 * last for mode, as PyTorch does; values are copied from the input element, so they are
 * exact). This file plans the rows and runs them in parallel; each thread's range gathers
 * into its own buffer.
 *
 * Names: median, kthvalue and mode remove the dim; topk keeps it (its size becomes k) with
 * its name — PyTorch 1.13 refuses named tensors in topk (docs/decisions_ops_reduce.md); sort
 * and argsort (topk of the whole dim) keep every name (docs/decisions_ops_everyday.md).
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "kernels/sort_kernels.h"
#include "names/infer.h"
#include "ntensor/pointwise.h"
#include "reduce.h"

typedef struct sort_job {
    const nt_red_plan *p;
    nt_sort_params s;
    _Atomic int failed;
} sort_job;

static void sort_task(void *ctx, int64_t b, int64_t e) {
    sort_job *j = ctx;
    const nt_red_plan *p = j->p;
    void *pairs = malloc((size_t)(j->s.n > 0 ? j->s.n : 1) * nt_sort_pair_size(j->s.dtype));
    if (!pairs) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t o = b; o < e; o++) {
        int64_t in, out, out2;
        nt_red_plan_offsets(p, o, &in, &out, &out2);
        nt_sort_row(&j->s, pairs, p->in + in, p->out + out, p->out2 + out2);
    }
    free(pairs);
}

static nt_status null_arg(const char *fn) {
    return nt_fail_null_tensor(fn, "self");
}

/* Runs op along `dim` of t into values/indices (already shaped; `keepdim` says whether the
 * dim is still there in them, as for topk). */
static nt_status run_sort(sort_job *j, const nt_tensor *t, int64_t d, bool keepdim, nt_tensor *v,
                          nt_tensor *ix) {
    nt_red_plan p;
    uint64_t mask = t->ndim ? (uint64_t)1 << d : 0;
    nt_red_plan_build(&p, t, mask, keepdim, v, ix);
    j->p = &p;
    j->s.dtype = t->dtype;
    j->s.n = t->ndim ? t->sizes[d] : 1;
    atomic_store(&j->failed, 0);
    /* Only a run has byte strides to compute: with no elements in or out, the strides may be
     * anything (PyTorch accepts huge ones on empty views) and need not fit in bytes. */
    bool runs = p.nout > 0 && t->numel > 0 && (j->s.op != NT_SORT_TOPK || j->s.k > 0);
    if (!runs) return NT_OK;
    j->s.stride = t->ndim ? t->strides[d] * (int64_t)nt_dtype_table[t->dtype].size : 0;
    if (j->s.op == NT_SORT_TOPK && t->ndim) {
        j->s.vstep = v->strides[d] * (int64_t)nt_dtype_table[v->dtype].size;
        j->s.istep = ix->strides[d] * (int64_t)sizeof(int64_t);
    }
    nt_parallel_for(0, p.nout, NT_GRAIN_SIZE / (j->s.n * 8 + 1) + 1, sort_task, j);
    if (atomic_load(&j->failed)) return nt_fail_oom((size_t)j->s.n * nt_sort_pair_size(j->s.dtype));
    return NT_OK;
}

/* PyTorch's checks of out= dtypes, each op its own text. */
static nt_status check_out_dtypes(nt_sort_op op, const nt_tensor *t, const nt_tensor *ov,
                                  const nt_tensor *oi) {
    if (!ov || !oi) return NT_OK;
    if (ov->dtype != t->dtype) {
        switch (op) {
        case NT_SORT_MEDIAN:
            return nt_fail(NT_ERR_RUNTIME,
                           "Expected tensor for 'values' to have the same type as tensor for "
                           "argument #2 'self'; but type torch.%sTensor does not equal "
                           "torch.%sTensor (while checking arguments for median)",
                           nt_dtype_legacy_name(ov->dtype), nt_dtype_legacy_name(t->dtype));
        case NT_SORT_KTH:
            return nt_fail(NT_ERR_RUNTIME, "output values must be of same type as input");
        case NT_SORT_MODE:
            return nt_fail(NT_ERR_RUNTIME,
                           "expected scalar type '%s' but got '%s' for values output",
                           nt_dtype_torch_name(t->dtype), nt_dtype_torch_name(ov->dtype));
        default:
            return nt_red_check_out_dtype(ov, t->dtype);
        }
    }
    if (oi->dtype != NT_INT64) {
        if (op == NT_SORT_MEDIAN)
            return nt_fail(NT_ERR_RUNTIME,
                           "Expected tensor for argument #1 'indices' to have scalar type Long; "
                           "but got torch.%sTensor instead (while checking arguments for median)",
                           nt_dtype_legacy_name(oi->dtype));
        return nt_red_check_out_dtype(oi, NT_INT64);
    }
    return NT_OK;
}

/* The reducing ops (median, kthvalue, mode) along one dim, into ov/oi (out=: both or
 * neither; NULL: new tensors). */
static nt_status reduce_sorted(const char *fname, const char *kernel, nt_sort_op op, nt_tensor *t,
                               int64_t k, nt_dim dim, bool keepdim, nt_tensor *ov, nt_tensor *oi,
                               nt_tensor **values, nt_tensor **indices) {
    if (!t) return null_arg(fname);
    if (!values || !indices) return nt_fail(NT_ERR_VALUE, "%s(): NULL output pointer", fname);
    int64_t d;
    NT_TRY(nt_red_dim(t, dim, &d));
    if (kernel && (t->dtype == NT_BOOL || t->dtype == NT_FLOAT16))
        return nt_red_not_implemented(kernel, t->dtype);
    int64_t n = t->ndim ? t->sizes[d] : 1;
    if (op == NT_SORT_KTH && (k < 1 || k > n))
        return nt_fail(NT_ERR_RUNTIME,
                       "kthvalue(): selected number k out of range for dimension %" PRId64, d);
    if (n == 0)
        return nt_fail(NT_ERR_INDEX,
                       "%s(): Expected reduction dim %" PRId64 " to have non-zero size.", fname, d);
    NT_TRY(check_out_dtypes(op, t, ov, oi));
    uint64_t mask = t->ndim ? (uint64_t)1 << d : 0;
    nt_name buf[NT_MAX_DIMS];
    int ndim;
    const nt_name *names = nt_names_remove_dims(t->names, t->ndim, mask, keepdim, buf, &ndim);
    int64_t sizes[NT_MAX_DIMS];
    nt_red_out_shape(t, mask, keepdim, &ndim, sizes);
    nt_tensor *v = NULL, *ix = NULL;
    nt_status st;
    NT_CHECK(st, nt_red_prepare(ov, t, t->dtype, ndim, sizes, names, &v));
    NT_CHECK(st, nt_red_prepare(oi, t, NT_INT64, ndim, sizes, names, &ix));
    sort_job j = {.s = {.op = op, .k = k}};
    NT_CHECK(st, run_sort(&j, t, d, keepdim, v, ix));
    st = nt_red_finish(NT_OK, ov, v, names, values);
    v = NULL;
    if (st != NT_OK) goto fail;
    st = nt_red_finish(NT_OK, oi, ix, names, indices);
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

static nt_status median_all(nt_tensor *t, nt_tensor **out) {
    if (!t) return null_arg("median");
    if (t->dtype == NT_BOOL || t->dtype == NT_FLOAT16)
        return nt_red_not_implemented("median_cpu", t->dtype);
    nt_status st;
    nt_tensor *flat = NULL, *v = NULL, *ix = NULL;
    if (t->numel == 0) { /* PyTorch: NaN for floats */
        NT_TRY(nt_tensor_alloc(t->dtype, 0, NULL, NULL, &v));
        nt_store_scalar(nt_tensor_bytes(v), t->dtype, nt_scalar_float(NAN));
        *out = v;
        return NT_OK;
    }
    int64_t n = t->numel;
    NT_CHECK(st, nt_reshape(t, 1, &n, &flat));
    NT_CHECK(st, nt_rename(flat, NULL, &v));
    nt_tensor_release(flat);
    flat = v;
    v = NULL;
    NT_CHECK(st, reduce_sorted("median", "median_cpu", NT_SORT_MEDIAN, flat, 0, 0, false, NULL,
                               NULL, &v, &ix));
    nt_tensor_release(ix);
    nt_tensor_release(flat);
    *out = v;
    return NT_OK;
fail:
    nt_tensor_release(flat);
    nt_tensor_release(v);
    nt_tensor_release(ix);
    return st;
}

/* topk's result shape: t's with dim d of size k (checked) */
static nt_status topk_shape(const nt_tensor *t, int64_t k, int64_t d, int64_t *sizes) {
    int64_t n = t->ndim ? t->sizes[d] : 1;
    if (k < 0 || k > n) return nt_fail(NT_ERR_RUNTIME, "selected index k out of range");
    for (int i = 0; i < t->ndim; i++)
        sizes[i] = i == d ? k : t->sizes[i];
    return NT_OK;
}

/* topk, and (k = -1: the whole dim; kernel NULL: every dtype) sort */
static nt_status topk(const char *kernel, nt_tensor *t, int64_t k, nt_dim dim, bool largest,
                      nt_tensor *ov, nt_tensor *oi, nt_tensor **values, nt_tensor **indices) {
    if (!t) return null_arg(kernel ? "topk" : "sort");
    int64_t d;
    NT_TRY(nt_red_dim(t, dim, &d));
    if (kernel && (t->dtype == NT_BOOL || t->dtype == NT_FLOAT16))
        return nt_red_not_implemented(kernel, t->dtype);
    if (!kernel)
        k = t->ndim ? t->sizes[d] : 1; /* sort: the whole dim (a user's k < 0 is refused) */
    int64_t sizes[NT_MAX_DIMS];
    NT_TRY(topk_shape(t, k, d, sizes));
    NT_TRY(check_out_dtypes(NT_SORT_TOPK, t, ov, oi));
    nt_tensor *v = NULL, *ix = NULL;
    nt_status st;
    NT_CHECK(st, nt_red_prepare(ov, t, t->dtype, t->ndim, sizes, t->names, &v));
    NT_CHECK(st, nt_red_prepare(oi, t, NT_INT64, t->ndim, sizes, t->names, &ix));
    /* results always come sorted: a valid order for sorted=False too */
    sort_job j = {.s = {.op = NT_SORT_TOPK, .k = t->ndim ? k : (k ? 1 : 0), .largest = largest}};
    NT_CHECK(st, run_sort(&j, t, d, true, v, ix));
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

static nt_status out_pair(const nt_call *c) {
    if ((c->out[0] || c->out[1]) && !(c->out[0] && c->out[1]))
        return nt_fail(NT_ERR_VALUE, "%s(): out= takes two tensors", nt_op_rows[c->op].name);
    return NT_OK;
}

static bool slot_bool(const nt_call *c, int i, bool fallback) {
    return c->args[i].kind == NT_ARG_BOOL ? c->args[i].v.b : fallback;
}

static nt_dim slot_dim(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_DIM ? c->args[i].v.dim : -1;
}

nt_status nt_impl_median_all(nt_call *c) {
    return median_all(nt_call_tensor(c, 0), &c->result[0]);
}

/* median(dim), mode: (self, dim, keepdim); kthvalue: (self, k, dim, keepdim) */
nt_status nt_impl_sorted(nt_call *c) {
    NT_TRY(out_pair(c));
    nt_tensor *t = nt_call_tensor(c, 0);
    nt_tensor **r = c->result;
    switch (c->op) {
    case NT_OP_KTHVALUE: {
        int64_t k = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0;
        return reduce_sorted("kthvalue", "kthvalue_cpu", NT_SORT_KTH, t, k, slot_dim(c, 2),
                             slot_bool(c, 3, false), c->out[0], c->out[1], &r[0], &r[1]);
    }
    case NT_OP_MODE:
        return reduce_sorted("mode", NULL, NT_SORT_MODE, t, 0, slot_dim(c, 1),
                             slot_bool(c, 2, false), c->out[0], c->out[1], &r[0], &r[1]);
    default:
        return reduce_sorted("median", "median_out", NT_SORT_MEDIAN, t, 0, slot_dim(c, 1),
                             slot_bool(c, 2, false), c->out[0], c->out[1], &r[0], &r[1]);
    }
}

/* topk: (self, k, dim, largest, sorted) */
nt_status nt_impl_topk(nt_call *c) {
    NT_TRY(out_pair(c));
    int64_t k = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0;
    return topk("topk_cpu", nt_call_tensor(c, 0), k, slot_dim(c, 2), slot_bool(c, 3, true),
                c->out[0], c->out[1], &c->result[0], &c->result[1]);
}

/* sort(self, dim, descending, stable) and argsort: a stable sort (NaN above every number, ties
 * in index order), so stable=False gives the stable order too; argsort keeps the indices */
nt_status nt_impl_sort(nt_call *c) {
    NT_TRY(out_pair(c));
    nt_tensor *t = nt_call_tensor(c, 0);
    bool descending = slot_bool(c, 2, false);
    if (c->op == NT_OP_SORT)
        return topk(NULL, t, -1, slot_dim(c, 1), descending, c->out[0], c->out[1], &c->result[0],
                    &c->result[1]);
    nt_tensor *values = NULL;
    NT_TRY(topk(NULL, t, -1, slot_dim(c, 1), descending, NULL, NULL, &values, &c->result[0]));
    nt_tensor_release(values);
    return NT_OK;
}

nt_status nt_shape_topk(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return null_arg("topk");
    int64_t d, k = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0;
    NT_TRY(nt_red_dim(t, slot_dim(c, 2), &d));
    s->ndim = t->ndim;
    return topk_shape(t, k, d, s->sizes);
}

/* ------------------------------------------------------------------ public functions */

static nt_status sorted_call(nt_op op, nt_tensor *t, const int64_t *k, nt_dim dim, bool keepdim,
                             nt_tensor **values, nt_tensor **indices) {
    if (!values || !indices)
        return nt_fail(NT_ERR_VALUE, "%s(): NULL output pointer", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    int i = 0;
    c.args[i++] = nt_arg_tensor(t);
    if (k) c.args[i++] = nt_arg_int(*k);
    c.args[i++] = nt_arg_dim(dim);
    c.args[i] = nt_arg_bool(keepdim);
    return nt_red_results(nt_dispatch(&c), &c, values, indices);
}

nt_status nt_median_dim(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values,
                        nt_tensor **indices) {
    return sorted_call(NT_OP_MEDIAN_DIM, t, NULL, dim, keepdim, values, indices);
}

nt_status nt_kthvalue(nt_tensor *t, int64_t k, nt_dim dim, bool keepdim, nt_tensor **values,
                      nt_tensor **indices) {
    return sorted_call(NT_OP_KTHVALUE, t, &k, dim, keepdim, values, indices);
}

nt_status nt_mode(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values, nt_tensor **indices) {
    return sorted_call(NT_OP_MODE, t, NULL, dim, keepdim, values, indices);
}

nt_status nt_median_all(nt_tensor *t, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "median(): NULL output pointer");
    nt_call c;
    nt_call_init(&c, NT_OP_MEDIAN_ALL);
    c.args[0] = nt_arg_tensor(t);
    return nt_red_results(nt_dispatch(&c), &c, out, NULL);
}

nt_status nt_topk(nt_tensor *t, int64_t k, nt_dim dim, bool largest, bool sorted,
                  nt_tensor **values, nt_tensor **indices) {
    if (!values || !indices) return nt_fail(NT_ERR_VALUE, "topk(): NULL output pointer");
    nt_call c;
    nt_call_init(&c, NT_OP_TOPK);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(k);
    c.args[2] = nt_arg_dim(dim);
    c.args[3] = nt_arg_bool(largest);
    c.args[4] = nt_arg_bool(sorted);
    return nt_red_results(nt_dispatch(&c), &c, values, indices);
}

nt_status nt_sort(nt_tensor *t, nt_dim dim, bool descending, bool stable, nt_tensor **values,
                  nt_tensor **indices) {
    if (!values || !indices) return nt_fail(NT_ERR_VALUE, "sort(): NULL output pointer");
    nt_call c;
    nt_call_init(&c, NT_OP_SORT);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_bool(descending);
    c.args[3] = nt_arg_bool(stable);
    return nt_red_results(nt_dispatch(&c), &c, values, indices);
}

nt_status nt_argsort(nt_tensor *t, nt_dim dim, bool descending, bool stable, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "argsort(): NULL output pointer");
    nt_call c;
    nt_call_init(&c, NT_OP_ARGSORT);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_bool(descending);
    c.args[3] = nt_arg_bool(stable);
    return nt_red_results(nt_dispatch(&c), &c, out, NULL);
}
