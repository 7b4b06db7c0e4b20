/*
 * random.c — the random fills: uniform_, normal_, rand, randn,
 * normal and their *_like forms.
 *
 * A fill reserves a range of Philox counters from the generator (iter/random.c) and then
 * computes its elements from (seed, counter) alone, so any split across threads gives the
 * same numbers. Counters go in blocks of PHILOX_LANES; within block b, value w*PHILOX_LANES + j
 * (w < per-counter values) comes from counter offset + b*PHILOX_LANES + j, so the transforms
 * run over contiguous lanes and vectorize.
 *
 * Values: uniform float32 (and float16/bfloat16, rounded from float32) use 24 random bits,
 * float64 53 bits; results are kept strictly below `high` as stored in the dtype. Normals
 * come from Box-Muller on pairs of such uniforms. The checks and their texts are PyTorch's.
 */
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "core/parallel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "iter/random.h"
#include "kernels/philox.h"
#include "kernels/random_kernels.h"
#include "ops/factory_call.h"
#include "ops/out.h"

/* ------------------------------------------------------------------ the fill */

static void fill_range(void *ctx, int64_t begin, int64_t end) {
    const nt_fill_job *job = ctx;
    for (int64_t b = begin; b < end; b++) {
        int64_t rest = job->numel - b * job->per_block;
        nt_random_fill_block(job, b, 0, rest < job->per_block ? rest : job->per_block);
    }
}

/* Fills the contiguous tensor t, reserving its counters from the generator. */
static void fill_contiguous(nt_tensor *t, nt_fill_job *job) {
    job->data = nt_tensor_bytes(t);
    job->dtype = t->dtype;
    job->numel = t->numel;
    job->per_block = (t->dtype == NT_FLOAT64 ? 2 : 4) * PHILOX_LANES;
    int64_t blocks = (t->numel + job->per_block - 1) / job->per_block;
    nt_random_reserve((uint64_t)blocks * PHILOX_LANES, &job->seed, &job->first);
    int64_t grain = NT_GRAIN_SIZE / job->per_block;
    nt_parallel_for(0, blocks, grain > 0 ? grain : 1, fill_range, job);
}

/* Fills t, through a contiguous temporary when t is a strided view: element i in row-major
 * order gets the same value either way. */
static nt_status fill(nt_tensor *t, nt_fill_job *job) {
    if (t->numel == 0 || t->is_contiguous) {
        if (t->numel > 0) fill_contiguous(t, job);
        return NT_OK;
    }
    nt_tensor *tmp = NULL;
    NT_TRY(nt_tensor_alloc(t->dtype, t->ndim, t->sizes, NULL, &tmp));
    fill_contiguous(tmp, job);
    nt_status st = nt_copy_(t, tmp);
    nt_tensor_release(tmp);
    return st;
}

/* ------------------------------------------------------------------ checks */

/* Per dtype: PyTorch's ScalarType name (for "not implemented" errors), its C++ type name
 * (for bound errors), and the largest finite value. Integer dtypes have no random floats. */
static const struct {
    const char *torch_name, *cpp_name;
    double max;
} random_dtype[NT_DTYPE_COUNT] = {
    [NT_BOOL] = {"Bool", NULL, 0},
    [NT_UINT8] = {"Byte", NULL, 0},
    [NT_INT8] = {"Char", NULL, 0},
    [NT_INT16] = {"Short", NULL, 0},
    [NT_INT32] = {"Int", NULL, 0},
    [NT_INT64] = {"Long", NULL, 0},
    [NT_FLOAT16] = {"Half", "c10::Half", 65504.0},
    [NT_BFLOAT16] = {"BFloat16", "c10::BFloat16", 0x1.fep127},
    [NT_FLOAT32] = {"Float", "float", 0x1.fffffep127},
    [NT_FLOAT64] = {"Double", "double", 0x1.fffffffffffffp1023},
};

static nt_status check_floating(nt_dtype dtype, const char *kernel) {
    if (!random_dtype[dtype].cpp_name)
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                       random_dtype[dtype].torch_name);
    return NT_OK;
}

/* The largest float16/bfloat16 strictly below the one with bits `h` (h not the lowest). */
static uint16_t half_bits_below(uint16_t h) {
    if (h == 0x0000u) return 0x8001u; /* +0 -> the smallest negative subnormal */
    return (h & 0x8000u) ? (uint16_t)(h + 1u) : (uint16_t)(h - 1u);
}

/* ------------------------------------------------------------------ public fills */

static nt_status uniform_(nt_tensor *t, double low, double high) {
    if (!t) return nt_fail_null_tensor("uniform_", "self");
    NT_TRY(check_floating(t->dtype, "check_uniform_bounds"));
    double max = random_dtype[t->dtype].max;
    const char *cpp = random_dtype[t->dtype].cpp_name;
    if (!(low >= -max && low <= max))
        return nt_fail(NT_ERR_RUNTIME, "from is out of bounds for %s", cpp);
    if (!(high >= -max && high <= max))
        return nt_fail(NT_ERR_RUNTIME, "to is out of bounds for %s", cpp);
    if (low > high)
        return nt_fail(NT_ERR_RUNTIME,
                       "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                       low, high);
    if (high - low > max)
        return nt_fail(NT_ERR_RUNTIME,
                       "uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found "
                       "to=%g and from=%g which result in to-from to exceed the limit",
                       random_dtype[t->dtype].torch_name, high, low);

    nt_fill_job job = {.kind = NT_FILL_UNIFORM};
    nt_fill_params *p = &job.p;
    p->low_d = low, p->high_d = high, p->range_d = high - low;
    /* bounds as the dtype stores them: values are compared against high in that dtype */
    if (t->dtype == NT_FLOAT16) {
        p->low_f = nt_f16_to_f32(nt_f32_to_f16((float)low));
        p->high_f = nt_f16_to_f32(nt_f32_to_f16((float)high));
    } else if (t->dtype == NT_BFLOAT16) {
        p->low_f = nt_bf16_to_f32(nt_f32_to_bf16((float)low));
        p->high_f = nt_bf16_to_f32(nt_f32_to_bf16((float)high));
    } else {
        p->low_f = (float)low;
        p->high_f = (float)high;
    }
    double range_f = (double)p->high_f - (double)p->low_f;
    p->range_f = range_f > 0x1.fffffep127 ? 0x1.fffffep127f : (float)range_f;
    /* When low == high (in the dtype) every value is low. */
    bool empty_f = !(p->low_f < p->high_f);
    p->below_f = empty_f ? p->low_f : nextafterf(p->high_f, -INFINITY);
    p->below_d = p->low_d < p->high_d ? nextafter(p->high_d, -INFINITY) : p->low_d;
    nt_float16 hf = nt_f32_to_f16(p->high_f);
    nt_bfloat16 hb = nt_f32_to_bf16(p->high_f);
    job.below_f16.bits = empty_f ? nt_f32_to_f16(p->low_f).bits : half_bits_below(hf.bits);
    job.below_bf16.bits = empty_f ? nt_f32_to_bf16(p->low_f).bits : half_bits_below(hb.bits);
    return fill(t, &job);
}

static nt_status normal_(nt_tensor *t, double mean, double std) {
    if (!t) return nt_fail_null_tensor("normal_", "self");
    if (!(std >= 0.0))
        return nt_fail(NT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std);
    NT_TRY(check_floating(t->dtype, "normal_kernel_cpu"));
    nt_fill_job job = {.kind = NT_FILL_NORMAL};
    job.p.mean = mean;
    job.p.std = std;
    return fill(t, &job);
}

nt_status nt_impl_uniform_(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    NT_TRY(uniform_(t, nt_call_float(c, 1, 0.0), nt_call_float(c, 2, 1.0)));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

nt_status nt_impl_normal_(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    NT_TRY(normal_(t, nt_call_float(c, 1, 0.0), nt_call_float(c, 2, 1.0)));
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

/* A fill of t in place through op `op` (UNIFORM_ or NORMAL_). */
static nt_status fill_call(nt_op op, nt_tensor *t, double a, double b) {
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_float(a);
    c.args[2] = nt_arg_float(b);
    return nt_dispatch_result(&c, NULL);
}

nt_status nt_uniform_(nt_tensor *t, double low, double high) {
    return fill_call(NT_OP_UNIFORM_, t, low, high);
}

nt_status nt_normal_(nt_tensor *t, double mean, double std) {
    return fill_call(NT_OP_NORMAL_, t, mean, std);
}

/* ------------------------------------------------------------------ factories */

/* Finishes a random factory: given the freshly made tensor (or the status that making it
 * failed with), fills it, releasing it if the fill fails. */
static nt_status filled(nt_tensor *t, nt_status made, nt_fill_kind kind, double a, double b,
                        nt_tensor **out) {
    if (made != NT_OK) return made;
    nt_status st = kind == NT_FILL_UNIFORM ? uniform_(t, a, b) : normal_(t, a, b);
    if (st != NT_OK) {
        nt_tensor_release(t);
        *out = NULL; /* an out= tensor's reference, given back */
        return st;
    }
    *out = t;
    return NT_OK;
}

/* The sized rows: size, names, dtype (none: the default dtype), from slot `first`. */
static nt_status sized_empty(nt_call *c, int first, nt_tensor **t) {
    const nt_name *names;
    NT_TRY(nt_call_names_for(c, first + 1, c->args[first].n, &names));
    return nt_empty(c->args[first].n, c->args[first].v.ints,
                    nt_call_dtype(c, first + 2, nt_default_dtype()), names, t);
}

nt_status nt_impl_rand(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = c->out[0] ? nt_factory_out(c, 0, 2) : sized_empty(c, 0, &t);
    if (c->out[0] && made == NT_OK) t = c->result[0];
    return filled(t, made, NT_FILL_UNIFORM, 0.0, 1.0, &c->result[0]);
}

nt_status nt_impl_randn(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = c->out[0] ? nt_factory_out(c, 0, 2) : sized_empty(c, 0, &t);
    if (c->out[0] && made == NT_OK) t = c->result[0];
    return filled(t, made, NT_FILL_NORMAL, 0.0, 1.0, &c->result[0]);
}

nt_status nt_impl_normal_sized(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = c->out[0] ? nt_factory_out(c, 2, 4) : sized_empty(c, 2, &t);
    if (c->out[0] && made == NT_OK) t = c->result[0];
    return filled(t, made, NT_FILL_NORMAL, c->args[0].v.f, c->args[1].v.f, &c->result[0]);
}

nt_status nt_impl_rand_like(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = nt_result_like(nt_call_tensor(c, 0), nt_call_dtype_or_keep(c, 1), &t);
    return filled(t, made, NT_FILL_UNIFORM, 0.0, 1.0, &c->result[0]);
}

nt_status nt_impl_randn_like(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = nt_result_like(nt_call_tensor(c, 0), nt_call_dtype_or_keep(c, 1), &t);
    return filled(t, made, NT_FILL_NORMAL, 0.0, 1.0, &c->result[0]);
}

nt_status nt_rand(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                  nt_tensor **out) {
    return nt_sized_call(NT_OP_RAND, ndim, sizes, dtype, names, out);
}

nt_status nt_randn(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                   nt_tensor **out) {
    return nt_sized_call(NT_OP_RANDN, ndim, sizes, dtype, names, out);
}

nt_status nt_normal(double mean, double std, int ndim, const int64_t *sizes, nt_dtype dtype,
                    const nt_name *names, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_NORMAL_SIZED);
    c.args[0] = nt_arg_float(mean);
    c.args[1] = nt_arg_float(std);
    c.args[2] = nt_arg_ints(ndim, sizes);
    c.args[3] = names ? nt_arg_names(ndim, names, -1) : nt_arg_none();
    c.args[4] = nt_arg_dtype_given(dtype);
    return nt_dispatch_result(&c, out);
}

static nt_status like_call(nt_op op, const nt_tensor *like, int dtype, nt_tensor **out) {
    if (!like) return nt_fail_null_tensor(nt_op_name(op), "input");
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_tensor((nt_tensor *)like);
    c.args[1] = dtype == -1 ? nt_arg_none() : nt_arg_dtype_given((nt_dtype)dtype);
    return nt_dispatch_result(&c, out);
}

nt_status nt_rand_like(const nt_tensor *like, int dtype, nt_tensor **out) {
    return like_call(NT_OP_RAND_LIKE, like, dtype, out);
}

nt_status nt_randn_like(const nt_tensor *like, int dtype, nt_tensor **out) {
    return like_call(NT_OP_RANDN_LIKE, like, dtype, out);
}
