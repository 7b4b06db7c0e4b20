/*
 * reduce_arg.c — max/min along a dim with their indices, and argmax/argmin: the first
 * extreme (a NaN beats everything and the first NaN wins, as in PyTorch), inner or outer
 * dim, outputs in parallel.
 */
#include "reduce.h"

#include <inttypes.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"
#include "names/infer.h"
#include "ntensor/pointwise.h"

/* ------------------------------------------------------------------ max/min with indices */

typedef struct arg_job {
    const nt_red_plan *p;
    nt_arg_run_fn run;
    nt_arg_rows_fn rows;
    size_t esize;
} arg_job;

static void arg_inner_task(void *ctx, int64_t b, int64_t e) {
    const arg_job *j = ctx;
    const nt_red_plan *p = j->p;
    int64_t n = p->nr ? p->rs[0] : 1, s = p->nr ? p->rin[0] : 0;
    for (int64_t o = b; o < e; o++) {
        int64_t in, out, out2;
        nt_red_plan_offsets(p, o, &in, &out, &out2);
        j->run(p->in + in, n, s, p->out + out, (int64_t *)(p->out2 + out2));
    }
}

static void arg_outer_task(void *ctx, int64_t b, int64_t e) {
    const arg_job *j = ctx;
    const nt_red_plan *p = j->p;
    nt_red_plan rest = *p;
    rest.nk = p->nk - 1;
    memmove(rest.ks, p->ks + 1, (size_t)rest.nk * sizeof *rest.ks);
    memmove(rest.kin, p->kin + 1, (size_t)rest.nk * sizeof *rest.kin);
    memmove(rest.kout, p->kout + 1, (size_t)rest.nk * sizeof *rest.kout);
    memmove(rest.kout2, p->kout2 + 1, (size_t)rest.nk * sizeof *rest.kout2);
    int64_t lanes = p->ks[0], ist = p->kout2[0] / (int64_t)sizeof(int64_t);
    for (int64_t row = b; row < e; row++) {
        int64_t in, out, out2;
        nt_red_plan_offsets(&rest, row, &in, &out, &out2);
        char *best = p->out + out;
        int64_t *idx = (int64_t *)(p->out2 + out2);
        const char *src = p->in + in;
        for (int64_t i = 0; i < lanes; i++) {
            memcpy(best + i * p->kout[0], src + i * p->kin[0], j->esize);
            idx[i * ist] = 0;
        }
        for (int64_t r = 1; r < p->rs[0]; r++)
            j->rows(best, p->kout[0], idx, ist, src + r * p->rin[0], lanes, p->kin[0], r);
    }
}

/* values/indices of the max (min) of `t` along `dim`; `into_v`/`into_i` are out= tensors
 * (NULL: allocate). `fname` names the op in errors (max, min, argmax, argmin). */
static nt_status arg_reduce(const char *fname, bool is_max, nt_tensor *t, nt_dim dim, bool keepdim,
                            nt_tensor *into_v, nt_tensor *into_i, nt_tensor **values,
                            nt_tensor **indices) {
    if (!t) return nt_fail_null_tensor(fname, "self");
    int64_t d;
    NT_TRY(nt_red_dim(t, dim, &d));
    if (into_v) NT_TRY(nt_red_check_out_dtype(into_v, t->dtype));
    if (into_i) NT_TRY(nt_red_check_out_dtype(into_i, NT_INT64));
    uint64_t mask = t->ndim ? (uint64_t)1 << d : 0;
    if (t->ndim && t->sizes[d] == 0)
        return nt_fail(NT_ERR_INDEX,
                       "%s(): Expected reduction dim %" PRId64 " to have non-zero size.", fname, d);
    nt_name buf[NT_MAX_DIMS];
    int ndim;
    const nt_name *names = nt_names_remove_dims(t->names, t->ndim, mask, keepdim, buf, &ndim);
    int64_t sizes[NT_MAX_DIMS];
    nt_red_out_shape(t, mask, keepdim, &ndim, sizes);
    nt_tensor *v = NULL, *ix = NULL;
    nt_status st;
    NT_CHECK(st, nt_red_prepare(into_v, t, t->dtype, ndim, sizes, names, &v));
    NT_CHECK(st, nt_red_prepare(into_i, t, NT_INT64, ndim, sizes, names, &ix));
    nt_red_plan p;
    nt_red_plan_build(&p, t, mask, keepdim, v, ix);
    arg_job j = {&p, nt_arg_run_for(is_max, t->dtype), nt_arg_rows_for(is_max, t->dtype),
                 nt_dtype_table[t->dtype].size};
    if (p.nout > 0) {
        bool inner = p.nk == 0 || p.nr == 0 || nt_red_abs64(p.rin[0]) < nt_red_abs64(p.kin[0]);
        if (inner) {
            nt_parallel_for(0, p.nout, NT_GRAIN_SIZE / p.nred + 1, arg_inner_task, &j);
        } else {
            int64_t items = p.nout / p.ks[0];
            nt_parallel_for(0, items, NT_GRAIN_SIZE / (p.nred * p.ks[0]) + 1, arg_outer_task, &j);
        }
    }
    st = nt_red_finish(NT_OK, into_v, v, names, values);
    v = NULL;
    if (st != NT_OK) goto fail;
    st = nt_red_finish(NT_OK, into_i, ix, names, indices);
    if (st != NT_OK && values) {
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

static bool is_max_op(nt_op op) {
    return op == NT_OP_MAX_DIM || op == NT_OP_MAX_OTHER || op == NT_OP_ARGMAX;
}

/* max(dim) / min(dim): (self, dim, keepdim) */
nt_status nt_impl_extreme_dim(nt_call *c) {
    bool keepdim = c->args[2].kind == NT_ARG_BOOL && c->args[2].v.b;
    nt_dim dim = c->args[1].kind == NT_ARG_DIM ? c->args[1].v.dim : 0;
    bool both = c->out[0] && c->out[1];
    if ((c->out[0] || c->out[1]) && !both)
        return nt_fail(NT_ERR_VALUE, "%s(): out= takes two tensors", nt_op_rows[c->op].name);
    bool is_max = is_max_op(c->op);
    return arg_reduce(is_max ? "max" : "min", is_max, nt_call_tensor(c, 0), dim, keepdim, c->out[0],
                      c->out[1], &c->result[0], &c->result[1]);
}

/* max(other) / min(other): PyTorch's maximum / minimum */
nt_status nt_impl_extreme_other(nt_call *c) {
    nt_binary_op op = is_max_op(c->op) ? NT_BINARY_MAXIMUM : NT_BINARY_MINIMUM;
    nt_tensor *a = nt_call_tensor(c, 0), *b = nt_call_tensor(c, 1);
    if (!c->out[0]) return nt_binary(op, a, b, &c->result[0]);
    NT_TRY(nt_binary_out(op, a, b, c->out[0]));
    c->result[0] = nt_tensor_retain(c->out[0]);
    return NT_OK;
}

/* argmax / argmin: (self, dim?, keepdim) */
nt_status nt_impl_argextreme(nt_call *c) {
    bool is_max = is_max_op(c->op);
    const char *fname = is_max ? "argmax" : "argmin";
    nt_tensor *t = nt_call_tensor(c, 0), *into = c->out[0];
    bool keepdim = c->args[2].kind == NT_ARG_BOOL && c->args[2].v.b;
    if (!t) return nt_fail_null_tensor(fname, "self");
    if (t->dtype == NT_BOOL)
        return nt_red_not_implemented(is_max ? "argmax_cpu" : "argmin_cpu", t->dtype);
    if (into) NT_TRY(nt_red_check_out_dtype(into, NT_INT64));
    nt_tensor *values = NULL, *flat = NULL, *r = NULL, *idx = NULL;
    nt_status st;
    if (c->args[1].kind == NT_ARG_DIM) {
        st = arg_reduce(fname, is_max, t, c->args[1].v.dim, keepdim, NULL, into, &values,
                        &c->result[0]);
        nt_tensor_release(values);
        return st;
    }
    if (t->numel == 0)
        return nt_fail(NT_ERR_INDEX,
                       "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                       fname);
    int64_t n = t->numel;
    NT_CHECK(st, nt_reshape(t, 1, &n, &flat));
    NT_CHECK(st, nt_rename(flat, NULL, &r)); /* the flattened dim has no name */
    NT_CHECK(st, arg_reduce(fname, is_max, r, 0, false, NULL, NULL, &values, &idx));
    if (keepdim) {
        /* All dims kept with size one, names kept (argmax(keepdim=True) of a tensor). */
        int64_t ones[NT_MAX_DIMS];
        for (int i = 0; i < t->ndim; i++)
            ones[i] = 1;
        nt_tensor *shaped = NULL;
        NT_CHECK(st, nt_tensor_view_of(idx, t->ndim, ones, ones, 0, t->names, &shaped));
        nt_tensor_release(idx);
        idx = shaped;
    }
    if (into) {
        nt_tensor *dst = NULL;
        NT_CHECK(st, nt_red_prepare(into, NULL, NT_INT64, idx->ndim, idx->sizes, idx->names, &dst));
        st = nt_red_finish(nt_copy_(dst, idx), into, dst, idx->names, &c->result[0]);
        if (st != NT_OK) goto fail;
    } else {
        c->result[0] = idx;
        idx = NULL;
    }
fail:
    nt_tensor_release(values);
    nt_tensor_release(flat);
    nt_tensor_release(r);
    nt_tensor_release(idx);
    return st;
}

/* ------------------------------------------------------------------ public functions */

static nt_status extreme_dim(nt_op op, nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor *ov,
                             nt_tensor *oi, nt_tensor **values, nt_tensor **indices) {
    nt_call c;
    nt_call_init(&c, op);
    c.out[0] = ov;
    c.out[1] = oi;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_bool(keepdim);
    return nt_red_results(nt_dispatch(&c), &c, values, indices);
}

nt_status nt_max_dim(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values,
                     nt_tensor **indices) {
    if (!values || !indices) return nt_fail(NT_ERR_VALUE, "max(): NULL output pointer");
    return extreme_dim(NT_OP_MAX_DIM, t, dim, keepdim, NULL, NULL, values, indices);
}

nt_status nt_min_dim(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values,
                     nt_tensor **indices) {
    if (!values || !indices) return nt_fail(NT_ERR_VALUE, "min(): NULL output pointer");
    return extreme_dim(NT_OP_MIN_DIM, t, dim, keepdim, NULL, NULL, values, indices);
}

nt_status nt_max_dim_out(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor *values,
                         nt_tensor *indices) {
    if (!values || !indices) return nt_fail_null_tensor("max", "out");
    return extreme_dim(NT_OP_MAX_DIM, t, dim, keepdim, values, indices, NULL, NULL);
}

nt_status nt_min_dim_out(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor *values,
                         nt_tensor *indices) {
    if (!values || !indices) return nt_fail_null_tensor("min", "out");
    return extreme_dim(NT_OP_MIN_DIM, t, dim, keepdim, values, indices, NULL, NULL);
}

static nt_status argextreme(nt_op op, nt_tensor *t, const nt_dim *dim, bool keepdim,
                            nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = dim ? nt_arg_dim(*dim) : nt_arg_none();
    c.args[2] = nt_arg_bool(keepdim);
    return nt_red_results(nt_dispatch(&c), &c, out, NULL);
}

nt_status nt_argmax(nt_tensor *t, const nt_dim *dim, bool keepdim, nt_tensor **out) {
    return argextreme(NT_OP_ARGMAX, t, dim, keepdim, out);
}

nt_status nt_argmin(nt_tensor *t, const nt_dim *dim, bool keepdim, nt_tensor **out) {
    return argextreme(NT_OP_ARGMIN, t, dim, keepdim, out);
}
