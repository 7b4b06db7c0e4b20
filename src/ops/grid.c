/*
 * grid.c — factories (layer L4): eye, linspace, logspace (regular values), t.new_empty /
 * new_zeros / new_ones / new_full, randint and randperm (docs/decisions_ops_everyday.md).
 * eye, linspace and logspace take names= (the factory rule), which PyTorch's do not.
 *
 * linspace follows PyTorch's CPU kernel: step = (end - start) / (steps - 1) in the element
 * type (double for integer dtypes), the first half counted up from start and the second half
 * down from end, so both ends are exact; logspace raises base to those values. The values
 * are computed in float for float32, float16 and bfloat16 (PyTorch's half types round each
 * step: ours round once), in double otherwise, by the threads of nt_parallel_for (PyTorch
 * splits its vector loop per thread chunk: past 32768 steps its values may differ by an ulp).
 */
#include <inttypes.h>
#include <math.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "factory_call.h"
#include "op_table.h"
#include "out.h"

/* An out= factory's result r: out (its dtype r's) resized to r's shape without a warning,
 * as PyTorch's factories resize, and given r's values; r released. */
static nt_status factory_deliver(nt_call *c, nt_tensor *r) {
    nt_tensor *out = c->out[0];
    if (!out) {
        c->result[0] = r;
        return NT_OK;
    }
    nt_status st = nt_resize_(out, r->ndim, r->sizes);
    if (st == NT_OK) st = nt_copy_values(out, r);
    nt_tensor_release(r);
    if (st == NT_OK) c->result[0] = nt_tensor_retain(out);
    return st;
}

/* The dtype of a factory's result: slot `slot`'s, out's (which must then agree), else the
 * default dtype */
static nt_status factory_dtype(const nt_call *c, int slot, nt_dtype *dtype) {
    const nt_tensor *out = c->out[0];
    bool given = c->args[slot].kind == NT_ARG_DTYPE;
    if (out && given && c->args[slot].v.dtype != out->dtype)
        return nt_fail(NT_ERR_RUNTIME, "dtype %s does not match dtype of out parameter (%s)",
                       nt_dtype_torch_name(c->args[slot].v.dtype), nt_dtype_torch_name(out->dtype));
    *dtype = given ? c->args[slot].v.dtype : out ? out->dtype : nt_default_dtype();
    return NT_OK;
}

/* ------------------------------------------------------------------ eye */

static nt_status eye_sizes(const nt_call *c, int64_t *sizes) {
    sizes[0] = c->args[0].v.i;
    sizes[1] = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : sizes[0];
    if (sizes[0] < 0)
        return nt_fail(NT_ERR_RUNTIME, "n must be greater or equal to 0, got %" PRId64, sizes[0]);
    if (sizes[1] < 0)
        return nt_fail(NT_ERR_RUNTIME, "m must be greater or equal to 0, got %" PRId64, sizes[1]);
    return NT_OK;
}

nt_status nt_shape_eye(const nt_call *c, nt_shape *s) {
    s->ndim = 2;
    return eye_sizes(c, s->sizes);
}

nt_status nt_impl_eye(nt_call *c) {
    int64_t sizes[2];
    nt_dtype dtype = NT_FLOAT32;
    const nt_name *names = NULL;
    NT_TRY(eye_sizes(c, sizes));
    NT_TRY(factory_dtype(c, 3, &dtype));
    if (!c->out[0]) NT_TRY(nt_call_names_for(c, 2, 2, &names));
    nt_tensor *r = NULL, *diagonal = NULL;
    int64_t n = sizes[0] < sizes[1] ? sizes[0] : sizes[1];
    nt_status st = nt_tensor_alloc(dtype, 2, sizes, names, &r);
    if (st == NT_OK) st = nt_fill_values(r, nt_scalar_int(0));
    if (st == NT_OK) {
        int64_t stride = r->strides[0] + r->strides[1];
        st = nt_tensor_view_of(r, 1, &n, &stride, r->offset, NULL, &diagonal);
    }
    if (st == NT_OK) st = nt_fill_values(diagonal, nt_scalar_int(1));
    nt_tensor_release(diagonal);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    return factory_deliver(c, r);
}

/* ------------------------------------------------------------------ linspace, logspace */

typedef struct grid_job {
    char *data;
    nt_dtype dtype;
    int64_t steps, halfway, lanes, vec_end;
    double start, end, step, base; /* base 0: linspace */
    float start_f, end_f, step_f;
    bool in_float, integral;
} grid_job;

/* The lane count of PyTorch's AVX2 Vectorized<T> for linspace's vector loop */
static const int64_t grid_lanes[NT_DTYPE_COUNT] = {
    [NT_UINT8] = 32,   [NT_INT8] = 32,     [NT_INT16] = 16,  [NT_INT32] = 8,   [NT_INT64] = 4,
    [NT_FLOAT16] = 16, [NT_BFLOAT16] = 16, [NT_FLOAT32] = 8, [NT_FLOAT64] = 4,
};

/* Element i as PyTorch's kernels compute it. linspace's loop runs over pairs of vectors
 * first: in [0, vec_end) lane k of the vector starting at i0 is base + k * step (not fused),
 * base the scalar formula at i0 (which half: decided at i0) converted to the element type;
 * the tail is the scalar formula, whose multiply-add is fused (-mfma). Checked against torch
 * 1.13 for float32, float64 and the integer types: no element differs; float16 and bfloat16
 * compute in float here (Half arithmetic there): within an ulp. logspace's loop is scalar:
 * pow(base, exponent) in double, the exponent in the step type. */
static void grid_range(void *ctx, int64_t begin, int64_t end) {
    const grid_job *j = ctx;
    size_t elsize = nt_dtype_table[j->dtype].size;
    for (int64_t i = begin; i < end; i++) {
        char *p = j->data + (size_t)i * elsize;
        int64_t k = i < j->vec_end ? i % j->lanes : 0, i0 = i - k;
        double v;
        if (j->in_float) {
            float b = i0 < j->halfway ? fmaf(j->step_f, (float)i0, j->start_f)
                                      : fmaf(-j->step_f, (float)(j->steps - i0 - 1), j->end_f);
            v = k ? b + (float)k * j->step_f : b; /* not fused (x86-64-v2 has no FMA) */
        } else {
            double b = i0 < j->halfway ? fma(j->step, (double)i0, j->start)
                                       : fma(-j->step, (double)(j->steps - i0 - 1), j->end);
            if (k && j->integral) b = trunc(b);
            v = k ? b + (double)k * j->step : b;
        }
        if (j->base != 0.0) v = pow(j->base, v);
        if (j->dtype == NT_FLOAT32)
            *(float *)p = (float)v;
        else if (j->dtype == NT_FLOAT64)
            *(double *)p = v;
        else
            nt_store_scalar(p, j->dtype, nt_scalar_float(v));
    }
}

/* the slots: start, end, steps, [base,] names, dtype */
static nt_status linspace_steps(const nt_call *c, int64_t *steps) {
    *steps = c->args[2].v.i;
    if (*steps < 0) return nt_fail(NT_ERR_RUNTIME, "number of steps must be non-negative");
    return NT_OK;
}

nt_status nt_shape_linspace(const nt_call *c, nt_shape *s) {
    s->ndim = 1;
    return linspace_steps(c, &s->sizes[0]);
}

nt_status nt_impl_linspace(nt_call *c) {
    bool log = c->op == NT_OP_LOGSPACE;
    int names_slot = log ? 4 : 3;
    grid_job j;
    const nt_name *names = NULL;
    NT_TRY(linspace_steps(c, &j.steps));
    NT_TRY(factory_dtype(c, names_slot + 1, &j.dtype));
    if (!c->out[0]) NT_TRY(nt_call_names_for(c, names_slot, 1, &names));
    nt_tensor *r = NULL;
    NT_TRY(nt_tensor_alloc(j.dtype, 1, &j.steps, names, &r));
    j.integral = nt_dtype_table[j.dtype].kind == NT_KIND_INT || j.dtype == NT_BOOL;
    j.start = nt_scalar_to_f64(c->args[0].v.s);
    j.end = nt_scalar_to_f64(c->args[1].v.s);
    if (j.integral) j.start = trunc(j.start), j.end = trunc(j.end);
    j.base = log ? (c->args[3].kind == NT_ARG_FLOAT ? c->args[3].v.f : 10.0) : 0.0;
    j.in_float = j.dtype == NT_FLOAT32 || j.dtype == NT_FLOAT16 || j.dtype == NT_BFLOAT16;
    j.start_f = (float)j.start, j.end_f = (float)j.end;
    j.step = j.steps > 1 ? (j.end - j.start) / (double)(j.steps - 1) : 0.0;
    j.step_f = j.steps > 1 ? (j.end_f - j.start_f) / (float)(j.steps - 1) : 0.0f;
    j.halfway = j.steps / 2;
    if (j.steps == 1) j.halfway = 1; /* the one value is start */
    j.lanes = log ? 0 : grid_lanes[j.dtype];
    j.vec_end = j.lanes ? j.steps - j.steps % (2 * j.lanes) : 0; /* two vectors a turn */
    j.data = nt_tensor_bytes(r);
    nt_parallel_for(0, j.steps, NT_GRAIN_SIZE, grid_range, &j);
    return factory_deliver(c, r);
}

/* ------------------------------------------------------------------ the public functions */

nt_status nt_eye(int64_t n, int64_t m, int dtype, const nt_name *names, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_EYE);
    c.args[0] = nt_arg_int(n);
    c.args[1] = m >= 0 ? nt_arg_int(m) : nt_arg_none();
    c.args[2] = names ? nt_arg_names(2, names, -1) : nt_arg_none();
    c.args[3] = nt_arg_dtype(dtype);
    return nt_dispatch_result(&c, out);
}

static nt_status grid_call(nt_op op, nt_scalar start, nt_scalar end, int64_t steps, double base,
                           int dtype, const nt_name *names, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, op);
    int k = 0;
    c.args[k++] = nt_arg_scalar(start);
    c.args[k++] = nt_arg_scalar(end);
    c.args[k++] = nt_arg_int(steps);
    if (op == NT_OP_LOGSPACE) c.args[k++] = nt_arg_float(base);
    c.args[k++] = names ? nt_arg_names(1, names, -1) : nt_arg_none();
    c.args[k] = nt_arg_dtype(dtype);
    return nt_dispatch_result(&c, out);
}

nt_status nt_linspace(nt_scalar start, nt_scalar end, int64_t steps, int dtype,
                      const nt_name *names, nt_tensor **out) {
    return grid_call(NT_OP_LINSPACE, start, end, steps, 0.0, dtype, names, out);
}

nt_status nt_logspace(nt_scalar start, nt_scalar end, int64_t steps, double base, int dtype,
                      const nt_name *names, nt_tensor **out) {
    return grid_call(NT_OP_LOGSPACE, start, end, steps, base, dtype, names, out);
}

/* ------------------------------------------------------------------ new_empty, new_zeros, ... */

nt_status nt_shape_new_sized(const nt_call *c, nt_shape *s) {
    int64_t numel;
    NT_TRY(nt_shape_check(c->args[1].n, c->args[1].v.ints, &numel));
    nt_shape_set(s, c->args[1].n, c->args[1].v.ints);
    return NT_OK;
}

/* the sized factory of each new_* row (slots: self, size, [fill_value,] dtype) */
nt_status nt_impl_new_sized(nt_call *c) {
    static const nt_op sized[] = {NT_OP_EMPTY, NT_OP_ZEROS, NT_OP_ONES};
    bool full = c->op == NT_OP_NEW_FULL;
    nt_dtype dtype = nt_call_dtype(c, full ? 3 : 2, nt_call_tensor(c, 0)->dtype);
    int n = c->args[1].n;
    const int64_t *sizes = c->args[1].v.ints;
    if (full) return nt_full(n, sizes, c->args[2].v.s, dtype, NULL, &c->result[0]);
    return nt_sized_call(sized[c->op - NT_OP_NEW_EMPTY], n, sizes, dtype, NULL, &c->result[0]);
}

/* ------------------------------------------------------------------ randint, randperm */

nt_status nt_shape_randint(const nt_call *c, nt_shape *s) {
    int64_t numel;
    NT_TRY(nt_shape_check(c->args[2].n, c->args[2].v.ints, &numel));
    nt_shape_set(s, c->args[2].n, c->args[2].v.ints);
    return NT_OK;
}

/* an empty tensor of `size` (or out resized), filled by random_(low, high)'s own function
 * (not the dispatcher: a fresh result starts at version 0) */
nt_status nt_impl_randint(nt_call *c) {
    int64_t low = c->args[0].kind == NT_ARG_INT ? c->args[0].v.i : 0, high = c->args[1].v.i;
    nt_tensor *t = NULL;
    if (c->out[0]) {
        NT_TRY(nt_factory_out(c, 2, 3));
        t = c->result[0];
    } else {
        NT_TRY(nt_empty(c->args[2].n, c->args[2].v.ints, nt_call_dtype(c, 3, NT_INT64), NULL, &t));
        c->result[0] = t;
    }
    nt_call fill;
    nt_call_init(&fill, NT_OP_RANDOM_);
    fill.inplace = true;
    fill.args[0] = nt_arg_tensor(t);
    fill.args[1] = nt_arg_int(low);
    fill.args[2] = nt_arg_int(high);
    nt_status st = nt_impl_random_(&fill);
    nt_tensor_release(fill.result[0]);
    if (st != NT_OK) {
        nt_tensor_release(c->result[0]);
        c->result[0] = NULL;
    }
    return st;
}

nt_status nt_shape_randperm(const nt_call *c, nt_shape *s) {
    s->ndim = 1;
    s->sizes[0] = c->args[0].v.i;
    return nt_shape_check(1, s->sizes, &(int64_t){0});
}

/* Fisher-Yates over 0 .. n-1, swapping entry i with one of 0 .. i drawn from the uniforms u
 * (one float64 rand(n) call: the generator's stream advances as for rand) */
nt_status nt_impl_randperm(nt_call *c) {
    int64_t n = c->args[0].v.i;
    nt_dtype dtype = NT_FLOAT32;
    NT_TRY(nt_shape_check(1, &n, &(int64_t){0}));
    NT_TRY(factory_dtype(c, 1, &dtype));
    if (c->args[1].kind != NT_ARG_DTYPE && !c->out[0]) dtype = NT_INT64;
    nt_tensor *u = NULL, *perm = NULL, *r = NULL;
    nt_status st = nt_rand(1, &n, NT_FLOAT64, NULL, &u);
    if (st == NT_OK) st = nt_tensor_alloc(NT_INT64, 1, &n, NULL, &perm);
    if (st == NT_OK) {
        const double *uv = (const double *)nt_tensor_bytes(u);
        int64_t *p = (int64_t *)nt_tensor_bytes(perm);
        for (int64_t i = 0; i < n; i++)
            p[i] = i;
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = (int64_t)(uv[i] * (double)(i + 1)), v = p[i];
            j = j > i ? i : j;
            p[i] = p[j];
            p[j] = v;
        }
        st = dtype == NT_INT64 ? NT_OK : nt_tensor_alloc(dtype, 1, &n, NULL, &r);
        if (st == NT_OK && r) st = nt_copy_values(r, perm);
    }
    nt_tensor_release(u);
    if (st == NT_OK && !r) r = nt_tensor_retain(perm);
    nt_tensor_release(perm);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    return factory_deliver(c, r);
}

nt_status nt_new_sized(int op, nt_tensor *t, int ndim, const int64_t *sizes, nt_scalar value,
                       int dtype, nt_tensor **out) {
    if (op != NT_OP_NEW_EMPTY && op != NT_OP_NEW_ZEROS && op != NT_OP_NEW_ONES &&
        op != NT_OP_NEW_FULL)
        return nt_fail(NT_ERR_VALUE, "nt_new_sized(): op %d is not a new_* op", op);
    nt_call c;
    nt_call_init(&c, (nt_op)op);
    int k = 0;
    c.args[k++] = nt_arg_tensor(t);
    c.args[k++] = nt_arg_ints(ndim, sizes);
    if (op == NT_OP_NEW_FULL) c.args[k++] = nt_arg_scalar(value);
    c.args[k] = nt_arg_dtype(dtype);
    return nt_dispatch_result(&c, out);
}

nt_status nt_randint(int64_t low, int64_t high, int ndim, const int64_t *sizes, int dtype,
                     nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_RANDINT);
    c.args[0] = nt_arg_int(low);
    c.args[1] = nt_arg_int(high);
    c.args[2] = nt_arg_ints(ndim, sizes);
    c.args[3] = nt_arg_dtype(dtype);
    return nt_dispatch_result(&c, out);
}

nt_status nt_randperm(int64_t n, int dtype, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_RANDPERM);
    c.args[0] = nt_arg_int(n);
    c.args[1] = nt_arg_dtype(dtype);
    return nt_dispatch_result(&c, out);
}
