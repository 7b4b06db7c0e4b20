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
#include "ops/factory_call.h"
#include "ops/out.h"

/* ------------------------------------------------------------------ transforms */

#define LANES PHILOX_LANES
#define TWO_PI 6.283185307179586476925286766559

typedef struct fill_params {
    /* uniform: low, (high - low), and the value to use when rounding reaches high */
    float low_f, range_f, high_f, below_f;
    double low_d, range_d, high_d, below_d;
    /* normal */
    double mean, std;
} fill_params;

/* The float32 values of one block, value k*LANES + j from word k of lane j, for the lanes
 * below `lanes`: uniform on [low, high). */
static void block_uniform_f32(const fill_params *p, uint32_t w[4][LANES], int lanes, float *v) {
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < lanes; j++) {
            float x = nt_bits_to_unit_f32(w[k][j]) * p->range_f + p->low_f;
            v[k * LANES + j] = x < p->high_f ? x : p->below_f;
        }
}

/* The standard normals of one block (lanes below `lanes`), in float: Box-Muller on words
 * (0, 1), (2, 3). */
static void block_normal_f32(uint32_t w[4][LANES], int lanes, float *v) {
    for (int k = 0; k < 4; k += 2)
        for (int j = 0; j < lanes; j++)
            nt_box_muller_f32(w[k][j], w[k + 1][j], &v[k * LANES + j], &v[(k + 1) * LANES + j]);
}

/* Rounds float32 values to float16/bfloat16, keeping uniform values below high: a value
 * that rounds up to high becomes the largest representable value below it. */
#define STORE_HALF(NAME, T, FROM_F32, TO_F32)                                                      \
    static void NAME(const float *v, int64_t n, T *dst, bool below_high, float high, T below) {    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T h = FROM_F32(v[i]);                                                                  \
            dst[i] = below_high && !(TO_F32(h) < high) ? below : h;                                \
        }                                                                                          \
    }
STORE_HALF(store_f16, nt_float16, nt_f32_to_f16, nt_f16_to_f32)
STORE_HALF(store_bf16, nt_bfloat16, nt_f32_to_bf16, nt_bf16_to_f32)

/* The float64 values of one block (lanes below `lanes`): uniform, 53 bits from two words. */
static void block_uniform_f64(const fill_params *p, uint32_t w[4][LANES], int lanes, double *v) {
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < lanes; j++) {
            double x = nt_bits_to_unit_f64(w[2 * k][j], w[2 * k + 1][j]) * p->range_d + p->low_d;
            v[k * LANES + j] = x < p->high_d ? x : p->below_d;
        }
}

/* The standard normals in double (lanes below `lanes`): one Box-Muller pair per counter. */
static void block_normal_f64(uint32_t w[4][LANES], int lanes, double *v) {
    for (int j = 0; j < lanes; j++) {
        double u1 = 1.0 - nt_bits_to_unit_f64(w[0][j], w[1][j]);
        double theta = TWO_PI * nt_bits_to_unit_f64(w[2][j], w[3][j]);
        double r = sqrt(-2.0 * log(u1));
        v[j] = r * cos(theta);
        v[LANES + j] = r * sin(theta);
    }
}

/* ------------------------------------------------------------------ the fill */

typedef enum dist { DIST_UNIFORM, DIST_NORMAL } dist;

typedef struct fill_job {
    char *data; /* contiguous output */
    nt_dtype dtype;
    dist kind;
    int64_t numel, per_block; /* values per block of LANES counters */
    uint64_t seed, first;     /* first counter of block 0 */
    fill_params p;
    nt_float16 below_f16;
    nt_bfloat16 below_bf16;
} fill_job;

/* Writes the values [lo, hi) of block b (element b*per_block + i for value i). Value i comes
 * from lane i % LANES, so only the first min(hi, LANES) lanes need computing. */
static void fill_block(const fill_job *job, int64_t b, int64_t lo, int64_t hi) {
    uint32_t w[4][LANES];
    int lanes = hi < LANES ? (int)hi : LANES;
    nt_philox_lanes(job->first + (uint64_t)b * LANES, job->seed, w, lanes);
    int64_t n = hi - lo, e = b * job->per_block + lo;
    if (job->dtype == NT_FLOAT64) {
        double v[2 * LANES];
        if (job->kind == DIST_UNIFORM)
            block_uniform_f64(&job->p, w, lanes, v);
        else {
            block_normal_f64(w, lanes, v);
            for (int64_t i = lo; i < hi; i++)
                v[i] = v[i] * job->p.std + job->p.mean;
        }
        memcpy((double *)job->data + e, v + lo, (size_t)n * sizeof *v);
        return;
    }
    float v[4 * LANES];
    bool uniform = job->kind == DIST_UNIFORM;
    if (uniform)
        block_uniform_f32(&job->p, w, lanes, v);
    else {
        float mean = (float)job->p.mean, std = (float)job->p.std;
        block_normal_f32(w, lanes, v);
        for (int64_t i = lo; i < hi; i++)
            v[i] = v[i] * std + mean;
    }
    if (job->dtype == NT_FLOAT32)
        memcpy((float *)job->data + e, v + lo, (size_t)n * sizeof *v);
    else if (job->dtype == NT_FLOAT16)
        store_f16(v + lo, n, (nt_float16 *)job->data + e, uniform, job->p.high_f, job->below_f16);
    else
        store_bf16(v + lo, n, (nt_bfloat16 *)job->data + e, uniform, job->p.high_f,
                   job->below_bf16);
}

static void fill_range(void *ctx, int64_t begin, int64_t end) {
    const fill_job *job = ctx;
    for (int64_t b = begin; b < end; b++) {
        int64_t rest = job->numel - b * job->per_block;
        fill_block(job, b, 0, rest < job->per_block ? rest : job->per_block);
    }
}

/* Fills the contiguous tensor t, reserving its counters from the generator. */
static void fill_contiguous(nt_tensor *t, fill_job *job) {
    job->data = nt_tensor_bytes(t);
    job->dtype = t->dtype;
    job->numel = t->numel;
    job->per_block = (t->dtype == NT_FLOAT64 ? 2 : 4) * LANES;
    int64_t blocks = (t->numel + job->per_block - 1) / job->per_block;
    nt_random_reserve((uint64_t)blocks * LANES, &job->seed, &job->first);
    int64_t grain = NT_GRAIN_SIZE / job->per_block;
    nt_parallel_for(0, blocks, grain > 0 ? grain : 1, fill_range, job);
}

/* Fills t, through a contiguous temporary when t is a strided view: element i in row-major
 * order gets the same value either way. */
static nt_status fill(nt_tensor *t, fill_job *job) {
    if (t->numel == 0 || t->is_contiguous) {
        if (t->numel > 0) fill_contiguous(t, job);
        nt_storage_bump_version(t->storage);
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

    fill_job job = {.kind = DIST_UNIFORM};
    fill_params *p = &job.p;
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
    fill_job job = {.kind = DIST_NORMAL};
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
static nt_status filled(nt_tensor *t, nt_status made, dist kind, double a, double b,
                        nt_tensor **out) {
    if (made != NT_OK) return made;
    nt_status st = kind == DIST_UNIFORM ? uniform_(t, a, b) : normal_(t, a, b);
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
    return filled(t, made, DIST_UNIFORM, 0.0, 1.0, &c->result[0]);
}

nt_status nt_impl_randn(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = c->out[0] ? nt_factory_out(c, 0, 2) : sized_empty(c, 0, &t);
    if (c->out[0] && made == NT_OK) t = c->result[0];
    return filled(t, made, DIST_NORMAL, 0.0, 1.0, &c->result[0]);
}

nt_status nt_impl_normal_sized(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = c->out[0] ? nt_factory_out(c, 2, 4) : sized_empty(c, 2, &t);
    if (c->out[0] && made == NT_OK) t = c->result[0];
    return filled(t, made, DIST_NORMAL, c->args[0].v.f, c->args[1].v.f, &c->result[0]);
}

nt_status nt_impl_rand_like(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = nt_result_like(nt_call_tensor(c, 0), nt_call_dtype_or_keep(c, 1), &t);
    return filled(t, made, DIST_UNIFORM, 0.0, 1.0, &c->result[0]);
}

nt_status nt_impl_randn_like(nt_call *c) {
    nt_tensor *t = NULL;
    nt_status made = nt_result_like(nt_call_tensor(c, 0), nt_call_dtype_or_keep(c, 1), &t);
    return filled(t, made, DIST_NORMAL, 0.0, 1.0, &c->result[0]);
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
