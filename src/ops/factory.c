/*
 * factory.c — tensors made from nothing: empty, zeros, ones, full, arange, from a buffer
 * (copied) or over external memory (wrapped), and the *_like variants.
 *
 * Names follow the spec's factory rule: the given names, validated (known ids, no
 * duplicates) by nt_tensor_alloc. Filling with a value goes through nt_fill_ (copy.c), so
 * scalar conversion is the same everywhere. nt_arange reproduces PyTorch 1.13's CPU kernel
 * to the bit, including the way its vectorized loop rounds (see arange_value).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "iter/iter.h"
#include "names/names.h"
#include "ops/factory_call.h"
#include "ops/out.h"

/* ------------------------------------------------------------------ helpers */

typedef struct memset_job {
    char *data;
} memset_job;

static void memset_range(void *ctx, int64_t begin, int64_t end) {
    memset(((memset_job *)ctx)->data + begin, 0, (size_t)(end - begin));
}

/* Zeroes the whole storage of a fresh tensor: all-bits-zero is 0 (or false) in every dtype. */
static void zero_storage(nt_tensor *t) {
    const int64_t grain = (int64_t)1 << 18; /* bytes: below this, threads cost more */
    if ((int64_t)t->storage->nbytes < grain) {
        memset(t->storage->data, 0, t->storage->nbytes);
        return;
    }
    memset_job job = {t->storage->data};
    nt_parallel_for(0, (int64_t)t->storage->nbytes, grain, memset_range, &job);
}

/* ------------------------------------------------------------------ empty, zeros, ones, full */

static nt_status empty(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                       nt_tensor **out) {
    NT_TRY(nt_names_check_known(names, ndim));
    return nt_tensor_alloc(dtype, ndim, sizes, names, out);
}

/* Allocates with empty(), then fills with `value`; releases the tensor if filling fails. */
static nt_status empty_filled(int ndim, const int64_t *sizes, nt_scalar value, nt_dtype dtype,
                              const nt_name *names, nt_tensor **out) {
    nt_tensor *t = NULL;
    nt_status st;
    NT_CHECK(st, empty(ndim, sizes, dtype, names, &t));
    NT_CHECK(st, nt_fill_values(t, value));
    *out = t;
    return NT_OK;
fail:
    nt_tensor_release(t);
    return st;
}

/* The slots of a sized row: size, names, dtype (none: the default dtype). */
static nt_status sized_args(const nt_call *c, int first, const nt_name **names, nt_dtype *dtype) {
    *dtype =
        c->args[first + 2].kind == NT_ARG_DTYPE ? c->args[first + 2].v.dtype : nt_default_dtype();
    return nt_call_names_for(c, first + 1, c->args[first].n, names);
}

nt_status nt_factory_out(nt_call *c, int size, int dtype) {
    nt_tensor *out = c->out[0];
    if (c->args[dtype].kind == NT_ARG_DTYPE && c->args[dtype].v.dtype != out->dtype)
        return nt_fail(NT_ERR_RUNTIME, "dtype %s does not match dtype of out parameter (%s)",
                       nt_dtype_torch_name(c->args[dtype].v.dtype),
                       nt_dtype_torch_name(out->dtype));
    NT_TRY(nt_resize_(out, c->args[size].n, c->args[size].v.ints));
    c->result[0] = nt_tensor_retain(out);
    return NT_OK;
}

/* The sized rows into an out= tensor: resized, then filled with `value` (none: left as is). */
static nt_status fill_out(nt_call *c, int dtype, const nt_scalar *value) {
    NT_TRY(nt_factory_out(c, 0, dtype));
    nt_status st = value ? nt_fill_(c->out[0], *value) : NT_OK;
    if (st != NT_OK) { /* the value does not fit out's dtype: out's reference given back */
        nt_tensor_release(c->result[0]);
        c->result[0] = NULL;
    }
    return st;
}

nt_status nt_impl_empty(nt_call *c) {
    if (c->out[0]) return fill_out(c, 2, NULL);
    const nt_name *names;
    nt_dtype dtype;
    NT_TRY(sized_args(c, 0, &names, &dtype));
    return empty(c->args[0].n, c->args[0].v.ints, dtype, names, &c->result[0]);
}

nt_status nt_impl_zeros(nt_call *c) {
    if (c->out[0]) return fill_out(c, 2, &(nt_scalar){.kind = NT_SCALAR_INT, .v.i = 0});
    const nt_name *names;
    nt_dtype dtype;
    NT_TRY(sized_args(c, 0, &names, &dtype));
    NT_TRY(empty(c->args[0].n, c->args[0].v.ints, dtype, names, &c->result[0]));
    zero_storage(c->result[0]);
    return NT_OK;
}

nt_status nt_impl_ones(nt_call *c) {
    nt_scalar one = nt_scalar_int(1);
    if (c->out[0]) return fill_out(c, 2, &one);
    const nt_name *names;
    nt_dtype dtype;
    NT_TRY(sized_args(c, 0, &names, &dtype));
    return empty_filled(c->args[0].n, c->args[0].v.ints, one, dtype, names, &c->result[0]);
}

/* full(size, fill_value): the fill value's dtype when none is given */
nt_status nt_impl_full(nt_call *c) {
    nt_scalar value = c->args[1].v.s;
    if (c->out[0]) return fill_out(c, 3, &value);
    const nt_name *names;
    NT_TRY(nt_call_names_for(c, 2, c->args[0].n, &names));
    nt_dtype dtype = nt_call_dtype(c, 3, nt_scalar_dtype(value));
    return empty_filled(c->args[0].n, c->args[0].v.ints, value, dtype, names, &c->result[0]);
}

nt_status nt_empty(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                   nt_tensor **out) {
    return nt_sized_call(NT_OP_EMPTY, ndim, sizes, dtype, names, out);
}

nt_status nt_zeros(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                   nt_tensor **out) {
    return nt_sized_call(NT_OP_ZEROS, ndim, sizes, dtype, names, out);
}

nt_status nt_ones(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                  nt_tensor **out) {
    return nt_sized_call(NT_OP_ONES, ndim, sizes, dtype, names, out);
}

nt_status nt_full(int ndim, const int64_t *sizes, nt_scalar value, nt_dtype dtype,
                  const nt_name *names, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_FULL);
    c.args[0] = nt_arg_ints(ndim, sizes);
    c.args[1] = nt_arg_scalar(value);
    c.args[2] = names ? nt_arg_names(ndim, names, -1) : nt_arg_none();
    c.args[3] = nt_arg_dtype_given(dtype);
    return nt_dispatch_result(&c, out);
}

/* ------------------------------------------------------------------ *_like */

nt_status nt_result_like(const nt_tensor *like, int dtype, nt_tensor **out) {
    if (!like) return nt_fail_null_tensor("empty_like", "input");
    if (dtype == -1) dtype = (int)like->dtype;
    if (!nt_dtype_valid(dtype)) return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    /* contiguous (the common case) or not dense: a fresh contiguous tensor, one block */
    if (like->is_contiguous || !nt_is_non_overlapping_and_dense(like))
        return nt_tensor_alloc((nt_dtype)dtype, like->ndim, like->sizes, like->names, out);
    /* PyTorch's memory_format=preserve: a dense tensor's layout (a transpose, say) is kept.
     * Dense strides starting at offset 0 span exactly numel elements. */
    nt_storage *storage = NULL;
    NT_TRY(nt_storage_new((size_t)like->numel * nt_dtype_table[dtype].size, &storage));
    nt_status st = nt_tensor_make(storage, (nt_dtype)dtype, like->ndim, like->sizes, like->strides,
                                  0, like->names, out);
    nt_storage_release(storage); /* the tensor holds its own reference */
    return st;
}

static nt_status full_like(const nt_tensor *like, nt_scalar value, int dtype, nt_tensor **out) {
    nt_tensor *t = NULL;
    nt_status st;
    NT_CHECK(st, nt_result_like(like, dtype, &t));
    NT_CHECK(st, nt_fill_values(t, value));
    *out = t;
    return NT_OK;
fail:
    nt_tensor_release(t);
    return st;
}

nt_status nt_impl_empty_like(nt_call *c) {
    return nt_result_like(nt_call_tensor(c, 0), nt_call_dtype_or_keep(c, 1), &c->result[0]);
}

nt_status nt_impl_zeros_like(nt_call *c) {
    NT_TRY(nt_result_like(nt_call_tensor(c, 0), nt_call_dtype_or_keep(c, 1), &c->result[0]));
    zero_storage(c->result[0]);
    return NT_OK;
}

nt_status nt_impl_ones_like(nt_call *c) {
    return full_like(nt_call_tensor(c, 0), nt_scalar_int(1), nt_call_dtype_or_keep(c, 1),
                     &c->result[0]);
}

nt_status nt_impl_full_like(nt_call *c) {
    return full_like(nt_call_tensor(c, 0), c->args[1].v.s, nt_call_dtype_or_keep(c, 2),
                     &c->result[0]);
}

/* A *_like call of op `op`. */
static nt_status like_call(nt_op op, const nt_tensor *like, int dtype, nt_tensor **out) {
    if (!like) return nt_fail_null_tensor(nt_op_name(op), "input");
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_tensor((nt_tensor *)like);
    c.args[1] = dtype == -1 ? nt_arg_none() : nt_arg_dtype_given((nt_dtype)dtype);
    return nt_dispatch_result(&c, out);
}

nt_status nt_empty_like(const nt_tensor *like, int dtype, nt_tensor **out) {
    return like_call(NT_OP_EMPTY_LIKE, like, dtype, out);
}

nt_status nt_zeros_like(const nt_tensor *like, int dtype, nt_tensor **out) {
    return like_call(NT_OP_ZEROS_LIKE, like, dtype, out);
}

nt_status nt_ones_like(const nt_tensor *like, int dtype, nt_tensor **out) {
    return like_call(NT_OP_ONES_LIKE, like, dtype, out);
}

nt_status nt_full_like(const nt_tensor *like, nt_scalar value, int dtype, nt_tensor **out) {
    if (!like) return nt_fail_null_tensor("full_like", "input");
    nt_call c;
    nt_call_init(&c, NT_OP_FULL_LIKE);
    c.args[0] = nt_arg_tensor((nt_tensor *)like);
    c.args[1] = nt_arg_scalar(value);
    c.args[2] = dtype == -1 ? nt_arg_none() : nt_arg_dtype_given((nt_dtype)dtype);
    return nt_dispatch_result(&c, out);
}

/* ------------------------------------------------------------------ buffers */

nt_status nt_from_buffer(const void *data, nt_dtype dtype, int ndim, const int64_t *sizes,
                         const nt_name *names, nt_tensor **out) {
    nt_tensor *t = NULL;
    NT_TRY(empty(ndim, sizes, dtype, names, &t));
    size_t nbytes = (size_t)t->numel * nt_dtype_table[dtype].size;
    if (nbytes > 0 && !data) {
        int64_t numel = t->numel;
        nt_tensor_release(t);
        return nt_fail(NT_ERR_VALUE,
                       "from_buffer: data is NULL but %" PRId64 " elements were asked for", numel);
    }
    if (nbytes > 0) memcpy(t->storage->data, data, nbytes);
    *out = t;
    return NT_OK;
}

nt_status nt_from_external(void *data, size_t nbytes, nt_dtype dtype, int ndim,
                           const int64_t *sizes, const int64_t *strides, nt_release_fn release,
                           void *ctx, nt_tensor **out) {
    if (!nt_dtype_valid((int)dtype)) return nt_fail(NT_ERR_TYPE, "invalid dtype %d", (int)dtype);
    int64_t numel;
    NT_TRY(nt_shape_check(ndim, sizes, &numel));
    size_t elsize = nt_dtype_table[dtype].size;
    int64_t contiguous[NT_MAX_DIMS];
    if (!strides) {
        nt_contiguous_strides(ndim, sizes, contiguous);
        strides = contiguous;
    }
    int64_t span, bytes;
    NT_TRY(nt_view_extent("from_external", ndim, sizes, strides, &span));
    if (__builtin_mul_overflow(span, (int64_t)elsize, &bytes) || (uint64_t)bytes > nbytes)
        return nt_fail(NT_ERR_VALUE,
                       "from_external: the view needs %" PRId64
                       " elements of %zu bytes but the buffer holds %zu bytes",
                       span, elsize, nbytes);
    if (numel > 0 && !data) return nt_fail(NT_ERR_VALUE, "from_external: data is NULL");
    if ((uintptr_t)data % elsize != 0) /* kernels load elements with aligned accesses */
        return nt_fail(NT_ERR_VALUE,
                       "from_external: data at %p is not aligned to its %zu-byte elements", data,
                       elsize);
    nt_storage *storage = NULL;
    NT_TRY(nt_storage_wrap(data, nbytes, release, ctx, &storage));
    nt_status st = nt_tensor_make(storage, dtype, ndim, sizes, strides, 0, NULL, out);
    if (st != NT_OK) storage->release = NULL; /* on failure the memory stays the caller's */
    nt_storage_release(storage);
    return st;
}

/* ------------------------------------------------------------------ arange */

/* How PyTorch 1.13's arange_cpu computes each dtype: the accumulate type its Scalars are
 * converted to (at::acc_type on CPU: int64 for integers, double for float and double,
 * float for half and bfloat16), and the lane count of its AVX2 Vectorized<T>. Bool has no
 * kernel (acc == ACC_NONE). */
typedef enum arange_acc { ACC_NONE, ACC_I64, ACC_F32, ACC_F64 } arange_acc;
static const struct {
    arange_acc acc;
    int64_t lanes;
} arange_info[NT_DTYPE_COUNT] = {
    [NT_BOOL] = {ACC_NONE, 0},    [NT_UINT8] = {ACC_I64, 32},    [NT_INT8] = {ACC_I64, 32},
    [NT_INT16] = {ACC_I64, 16},   [NT_INT32] = {ACC_I64, 8},     [NT_INT64] = {ACC_I64, 4},
    [NT_FLOAT16] = {ACC_F32, 16}, [NT_BFLOAT16] = {ACC_F32, 16}, [NT_FLOAT32] = {ACC_F64, 8},
    [NT_FLOAT64] = {ACC_F64, 4},
};

/* A Scalar's value in an accumulate type, with c10's checked_convert errors. */
static nt_status scalar_to_i64(nt_scalar s, int64_t *out) {
    if (s.kind == NT_SCALAR_BOOL) *out = s.v.b;
    if (s.kind == NT_SCALAR_INT) *out = s.v.i;
    if (s.kind == NT_SCALAR_FLOAT) {
        if (!(s.v.f >= -0x1p63 && s.v.f < 0x1p63))
            return nt_fail(NT_ERR_RUNTIME,
                           "value cannot be converted to type int64_t without overflow");
        *out = (int64_t)s.v.f;
    }
    return NT_OK;
}

static double scalar_to_f64(nt_scalar s) {
    return s.kind == NT_SCALAR_FLOAT ? s.v.f
           : s.kind == NT_SCALAR_INT ? (double)s.v.i
                                     : (double)s.v.b;
}

static nt_status scalar_to_f32(nt_scalar s, float *out) {
    double x = scalar_to_f64(s);
    if (s.kind == NT_SCALAR_FLOAT && isfinite(x) && (x < -0x1.fffffep127 || x > 0x1.fffffep127))
        return nt_fail(NT_ERR_RUNTIME, "value cannot be converted to type float without overflow");
    *out = (float)x;
    return NT_OK;
}

typedef struct arange_job {
    nt_tensor *t;
    arange_acc acc;
    int64_t n, lanes, vec_end;
    int64_t start_i, step_i;
    double start_d, step_d;
    float start_f, step_f;
} arange_job;

static float round_to_dtype_f(float x, nt_dtype dtype) {
    return dtype == NT_FLOAT16 ? nt_f16_to_f32(nt_f32_to_f16(x))
                               : nt_bf16_to_f32(nt_f32_to_bf16(x));
}

/* Element i of arange as PyTorch's kernel computes it. Its loop runs over pairs of vectors
 * first: in [0, vec_end) lane k of the vector starting at i0 is
 * T(T(start + step * i0) + k * step), and the tail is T(start + step * i); the arithmetic is
 * in the accumulate type, and the kernel (built with -mfma) fuses each multiply-add except
 * the lane step of float16/bfloat16, which goes through their operator+. So values can
 * differ from start + i * step by an ulp, exactly where PyTorch's do (checked against
 * torch 1.13 on 14,000 random ranges: no element differs). */
static void arange_store(const arange_job *job, int64_t i, char *p) {
    nt_dtype dtype = job->t->dtype;
    int64_t k = i < job->vec_end ? i % job->lanes : 0, i0 = i - k;
    if (job->acc == ACC_I64) {
        /* integers: exact, wrapping like the kernel's int64 arithmetic */
        uint64_t v = (uint64_t)job->start_i + (uint64_t)job->step_i * (uint64_t)i;
        nt_store_scalar(p, dtype, nt_scalar_int((int64_t)v));
    } else if (job->acc == ACC_F64) {
        double base = fma(job->step_d, (double)i0, job->start_d);
        if (dtype == NT_FLOAT32) {
            float b = (float)base;
            *(float *)p = k ? (float)fma((double)k, job->step_d, (double)b) : b;
        } else {
            *(double *)p = k ? fma((double)k, job->step_d, base) : base;
        }
    } else {
        float v = round_to_dtype_f(fmaf(job->step_f, (float)i0, job->start_f), dtype);
        if (k) v = v + (float)k * job->step_f; /* Half's operator+: not fused */
        if (dtype == NT_FLOAT16)
            *(nt_float16 *)p = nt_f32_to_f16(v);
        else
            *(nt_bfloat16 *)p = nt_f32_to_bf16(v);
    }
}

static void arange_range(void *ctx, int64_t begin, int64_t end) {
    const arange_job *job = ctx;
    size_t elsize = nt_dtype_table[job->t->dtype].size;
    char *data = nt_tensor_bytes(job->t);
    for (int64_t i = begin; i < end; i++)
        arange_store(job, i, data + (size_t)i * elsize);
}

/* The checks and the length of PyTorch's arange_out, in its order. */
static nt_status arange_setup(nt_scalar start, nt_scalar end, nt_scalar step, nt_dtype dtype,
                              arange_job *job) {
    /* The length is computed in double, except for int64, which keeps its precision (the
     * difference is taken in wrapping int64 arithmetic, as the kernel's does). */
    double size_d = ceil((scalar_to_f64(end) - scalar_to_f64(start)) / scalar_to_f64(step));
    double range_start = 0, range_end = 0; /* for the message */
    bool step_zero, finite = true, ascending, descending;
    if (job->acc == ACC_I64) {
        int64_t xend = 0;
        NT_TRY(scalar_to_i64(start, &job->start_i));
        NT_TRY(scalar_to_i64(end, &xend));
        NT_TRY(scalar_to_i64(step, &job->step_i));
        if (dtype == NT_INT64) {
            int64_t diff = (int64_t)((uint64_t)xend - (uint64_t)job->start_i);
            size_d = ceil((double)diff / (double)job->step_i);
        }
        step_zero = job->step_i == 0;
        ascending = job->step_i > 0 && xend >= job->start_i;
        descending = job->step_i < 0 && xend <= job->start_i;
    } else {
        double xstart, xend, xstep;
        if (job->acc == ACC_F32) {
            float fend = 0;
            NT_TRY(scalar_to_f32(start, &job->start_f));
            NT_TRY(scalar_to_f32(end, &fend));
            NT_TRY(scalar_to_f32(step, &job->step_f));
            xstart = job->start_f, xend = fend, xstep = job->step_f;
        } else {
            xstart = job->start_d = scalar_to_f64(start);
            xend = scalar_to_f64(end);
            xstep = job->step_d = scalar_to_f64(step);
        }
        step_zero = !(xstep > 0 || xstep < 0);
        finite = isfinite(xstart) && isfinite(xend);
        ascending = xstep > 0 && xend >= xstart;
        descending = xstep < 0 && xend <= xstart;
        range_start = xstart, range_end = xend;
    }
    if (step_zero) return nt_fail(NT_ERR_RUNTIME, "step must be nonzero");
    if (!finite)
        return nt_fail(NT_ERR_RUNTIME, "unsupported range: %g -> %g", range_start, range_end);
    if (!ascending && !descending)
        return nt_fail(NT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
    if (!(size_d >= 0 && size_d < 0x1p63))
        return nt_fail(NT_ERR_RUNTIME, "invalid size, possible overflow?");
    job->n = (int64_t)size_d;
    return NT_OK;
}

/* The out= of arange: PyTorch resizes it to the length when its element count differs (a
 * warning when it had elements); a tensor of that count keeps its shape. A non-contiguous
 * out receives the values through a contiguous temporary. */
static nt_status arange_out(nt_tensor *out, arange_job *job, nt_tensor **tmp) {
    if (out->numel != job->n) {
        char have[256];
        nt_ints_repr(out->sizes, out->ndim, have, sizeof have);
        bool warn = out->numel > 0;
        int64_t had = out->numel;
        NT_TRY(nt_resize_(out, 1, &job->n));
        if (warn)
            nt_warn("The number of elements in the out tensor of shape %s is %" PRId64
                    " which does not match the computed number of elements %" PRId64
                    ". Note that this may occur as a result of rounding error. The out tensor "
                    "will be resized to a tensor of shape (%" PRId64 ",).",
                    have, had, job->n, job->n);
    }
    if (out->is_contiguous) {
        job->t = out;
        return NT_OK;
    }
    NT_TRY(nt_tensor_alloc(out->dtype, out->ndim, out->sizes, NULL, tmp)); /* row-major */
    job->t = *tmp;
    return NT_OK;
}

/* arange(start=0, end, step=1): the dtype given (out's with out=), else int64 for integer
 * bounds and the default dtype when one is a float; its checks and length. From the record,
 * for the op and its shape rule. */
static nt_status arange_plan(const nt_call *c, arange_job *job, nt_dtype *dtype_out) {
    nt_scalar start = c->args[0].kind == NT_ARG_SCALAR ? c->args[0].v.s : nt_scalar_int(0);
    nt_scalar end = c->args[1].v.s;
    nt_scalar step = c->args[2].kind == NT_ARG_SCALAR ? c->args[2].v.s : nt_scalar_int(1);
    const nt_tensor *out = c->out[0];
    nt_dtype dtype;
    if (c->args[3].kind == NT_ARG_DTYPE) {
        dtype = c->args[3].v.dtype;
        if (out && out->dtype != dtype)
            return nt_fail(NT_ERR_RUNTIME, "dtype %s does not match dtype of out parameter (%s)",
                           nt_dtype_torch_name(dtype), nt_dtype_torch_name(out->dtype));
    } else if (out) {
        dtype = out->dtype;
    } else {
        bool floating = start.kind == NT_SCALAR_FLOAT || end.kind == NT_SCALAR_FLOAT ||
                        step.kind == NT_SCALAR_FLOAT;
        dtype = floating ? nt_default_dtype() : NT_INT64;
    }
    if (!nt_dtype_valid((int)dtype)) return nt_fail(NT_ERR_TYPE, "invalid dtype %d", (int)dtype);
    *job = (arange_job){.acc = arange_info[dtype].acc, .lanes = arange_info[dtype].lanes};
    if (job->acc == ACC_NONE)
        return nt_fail(NT_ERR_RUNTIME, "\"arange_cpu\" not implemented for 'Bool'");
    *dtype_out = dtype;
    return arange_setup(start, end, step, dtype, job);
}

/* The shape rule: n elements, in out's shape when out= has n (arange_out keeps it, as
 * PyTorch does), else 1-d. */
nt_status nt_shape_arange(const nt_call *c, nt_shape *s) {
    arange_job job;
    nt_dtype dtype;
    NT_TRY(arange_plan(c, &job, &dtype));
    const nt_tensor *out = c->out[0];
    if (out && out->numel == job.n)
        nt_shape_of_tensor(s, out);
    else
        nt_shape_set(s, 1, &job.n);
    return NT_OK;
}

nt_status nt_impl_arange(nt_call *c) {
    nt_tensor *out = c->out[0], *tmp = NULL;
    arange_job job;
    nt_dtype dtype;
    NT_TRY(arange_plan(c, &job, &dtype));
    if (out)
        NT_TRY(arange_out(out, &job, &tmp));
    else
        NT_TRY(nt_tensor_alloc(dtype, 1, &job.n, NULL, &job.t));
    job.vec_end = job.n - job.n % (2 * job.lanes); /* the kernel does two vectors a turn */
    nt_parallel_for(0, job.n, NT_GRAIN_SIZE, arange_range, &job);
    if (!out) {
        c->result[0] = job.t;
        return NT_OK;
    }
    nt_status st = tmp ? nt_copy_(out, tmp) : NT_OK;
    nt_tensor_release(tmp);
    if (st != NT_OK) return st;
    c->result[0] = nt_tensor_retain(out);
    return NT_OK;
}

nt_status nt_arange(nt_scalar start, nt_scalar end, nt_scalar step, nt_dtype dtype,
                    nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_ARANGE);
    c.args[0] = nt_arg_scalar(start);
    c.args[1] = nt_arg_scalar(end);
    c.args[2] = nt_arg_scalar(step);
    c.args[3] = nt_arg_dtype_given(dtype);
    return nt_dispatch_result(&c, out);
}
