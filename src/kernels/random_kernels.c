/*
 * random_kernels.c — the per-element loops of the random fills (layer L3); see
 * random_kernels.h.
 *
 * uniform_/normal_: counters go in blocks of PHILOX_LANES; within block b, value
 * w*PHILOX_LANES + j comes from counter first + b*PHILOX_LANES + j, so the transforms run
 * over contiguous lanes and vectorize. Uniform float32 (and float16/bfloat16, rounded from
 * float32) use 24 random bits, float64 53 bits; results are kept strictly below `high` as
 * stored in the dtype. Normals come from Box-Muller on pairs of such uniforms.
 */
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "core/scalar.h"
#include "kernels/philox.h"
#include "kernels/random_kernels.h"

#define LANES PHILOX_LANES
#define TWO_PI 6.283185307179586476925286766559
#define PI 3.14159265358979323846

/* ------------------------------------------------------------------ uniform_ and normal_ */

/* The float32 values of one block, value k*LANES + j from word k of lane j, for the lanes
 * below `lanes`: uniform on [low, high). */
static void block_uniform_f32(const nt_fill_params *p, uint32_t w[4][LANES], int lanes, float *v) {
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
static void block_uniform_f64(const nt_fill_params *p, uint32_t w[4][LANES], int lanes, double *v) {
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

/* Writes the values [lo, hi) of block b (element b*per_block + i for value i). Value i comes
 * from lane i % LANES, so only the first min(hi, LANES) lanes need computing. */
void nt_random_fill_block(const nt_fill_job *job, int64_t b, int64_t lo, int64_t hi) {
    uint32_t w[4][LANES];
    int lanes = hi < LANES ? (int)hi : LANES;
    nt_philox_lanes(job->first + (uint64_t)b * LANES, job->seed, w, lanes);
    int64_t n = hi - lo, e = b * job->per_block + lo;
    if (job->dtype == NT_FLOAT64) {
        double v[2 * LANES];
        if (job->kind == NT_FILL_UNIFORM)
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
    bool uniform = job->kind == NT_FILL_UNIFORM;
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
/* ------------------------------------------------------------------ stores */

/* Writes n values computed in float (float32, float16, bfloat16 targets). */
static void store_f32(nt_dtype dt, const float *v, int64_t n, char *dst) {
    if (dt == NT_FLOAT32) {
        memcpy(dst, v, (size_t)n * sizeof *v);
    } else if (dt == NT_FLOAT16) {
        nt_float16 *d = (nt_float16 *)dst;
        for (int64_t i = 0; i < n; i++)
            d[i] = nt_f32_to_f16(v[i]);
    } else {
        nt_bfloat16 *d = (nt_bfloat16 *)dst;
        for (int64_t i = 0; i < n; i++)
            d[i] = nt_f32_to_bf16(v[i]);
    }
}

/* Writes n values computed in double, converted as PyTorch's static_cast does. */
static void store_f64(nt_dtype dt, const double *v, int64_t n, char *dst) {
    switch (dt) {
    case NT_FLOAT64:
        memcpy(dst, v, (size_t)n * sizeof *v);
        return;
    case NT_FLOAT32:
        for (int64_t i = 0; i < n; i++)
            ((float *)dst)[i] = (float)v[i];
        return;
    default:
        for (int64_t i = 0; i < n; i++)
            nt_store_scalar(dst + i * (int64_t)nt_dtype_table[dt].size, dt, nt_scalar_float(v[i]));
        return;
    }
}

#define STORE_INT_LOOP(T)                                                                          \
    for (int64_t i = 0; i < n; i++)                                                                \
        ((T *)dst)[i] = (T)v[i];                                                                   \
    return;

/* Writes n integer values (already in the dtype's range). */
static void store_i64(nt_dtype dt, const int64_t *v, int64_t n, char *dst) {
    switch (dt) {
    case NT_BOOL:
        for (int64_t i = 0; i < n; i++)
            ((nt_bool *)dst)[i] = v[i] != 0;
        return;
    case NT_UINT8:
        STORE_INT_LOOP(uint8_t)
    case NT_INT8:
        STORE_INT_LOOP(int8_t)
    case NT_INT16:
        STORE_INT_LOOP(int16_t)
    case NT_INT32:
        STORE_INT_LOOP(int32_t)
    case NT_INT64:
        memcpy(dst, v, (size_t)n * sizeof *v);
        return;
    case NT_FLOAT16:
        for (int64_t i = 0; i < n; i++)
            ((nt_float16 *)dst)[i] = nt_f32_to_f16((float)v[i]);
        return;
    case NT_BFLOAT16:
        for (int64_t i = 0; i < n; i++)
            ((nt_bfloat16 *)dst)[i] = nt_f32_to_bf16((float)v[i]);
        return;
    case NT_FLOAT32:
        STORE_INT_LOOP(float)
    case NT_FLOAT64:
        STORE_INT_LOOP(double)
    default:
        return;
    }
}

/* Writes n zeros and ones. */
static void store_u8(nt_dtype dt, const uint8_t *v, int64_t n, char *dst) {
    switch (dt) {
    case NT_BOOL:
    case NT_UINT8:
    case NT_INT8:
        memcpy(dst, v, (size_t)n);
        return;
    case NT_INT16:
        STORE_INT_LOOP(int16_t)
    case NT_INT32:
        STORE_INT_LOOP(int32_t)
    case NT_INT64:
        STORE_INT_LOOP(int64_t)
    case NT_FLOAT16:
        for (int64_t i = 0; i < n; i++)
            ((nt_float16 *)dst)[i].bits = v[i] ? 0x3c00u : 0u;
        return;
    case NT_BFLOAT16:
        for (int64_t i = 0; i < n; i++)
            ((nt_bfloat16 *)dst)[i].bits = v[i] ? 0x3f80u : 0u;
        return;
    case NT_FLOAT32:
        STORE_INT_LOOP(float)
    case NT_FLOAT64:
        STORE_INT_LOOP(double)
    default:
        return;
    }
}

/* Words per value for a distribution on a dtype. */
int nt_dist_words(nt_dist_kind kind, nt_dtype dt) {
    switch (kind) {
    case NT_DIST_EXPONENTIAL:
    case NT_DIST_CAUCHY:
    case NT_DIST_LOG_NORMAL:
        return dt == NT_FLOAT64 ? 2 : 1;
    case NT_DIST_GEOMETRIC:
    case NT_DIST_RANDOM:
        return 2;
    default:
        return 1;
    }
}

/* A uniform in (0, 1] from the top 24 bits of x. */
static inline float unit_open0_f32(uint32_t x) {
    return (float)(0x1000000u - (x >> 8)) * 0x1.0p-24f;
}

static void exponential_block(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base,
                              int64_t n) {
    char *dst = job->data + base * (int64_t)nt_dtype_table[job->dtype].size;
    if (job->dtype == NT_FLOAT64) {
        double v[2 * LANES];
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < LANES; j++) {
                double u = 1.0 - nt_bits_to_unit_f64(w[2 * k][j], w[2 * k + 1][j]); /* (0, 1] */
                v[k * LANES + j] = (0.0 - log(u)) / job->a;
            }
        store_f64(NT_FLOAT64, v, n, dst);
        return;
    }
    float v[4 * LANES], lambda = (float)job->a;
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < LANES; j++)
            v[k * LANES + j] = (0.0f - nt_logf_approx(unit_open0_f32(w[k][j]))) / lambda;
    store_f32(job->dtype, v, n, dst);
}

static void cauchy_block(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base, int64_t n) {
    char *dst = job->data + base * (int64_t)nt_dtype_table[job->dtype].size;
    if (job->dtype == NT_FLOAT64) {
        double v[2 * LANES];
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < LANES; j++) {
                double u = nt_bits_to_unit_f64(w[2 * k][j], w[2 * k + 1][j]);
                v[k * LANES + j] = job->a + job->b * tan(PI * (u - 0.5));
            }
        store_f64(NT_FLOAT64, v, n, dst);
        return;
    }
    float v[4 * LANES];
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < LANES; j++) {
            double u = nt_bits_to_unit_f32(w[k][j]);
            v[k * LANES + j] = (float)(job->a + job->b * tan(PI * (u - 0.5)));
        }
    store_f32(job->dtype, v, n, dst);
}

static void log_normal_block(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base,
                             int64_t n) {
    char *dst = job->data + base * (int64_t)nt_dtype_table[job->dtype].size;
    if (job->dtype == NT_FLOAT64) {
        double v[2 * LANES];
        for (int j = 0; j < LANES; j++) {
            double u1 = 1.0 - nt_bits_to_unit_f64(w[0][j], w[1][j]);
            double theta = 2.0 * PI * nt_bits_to_unit_f64(w[2][j], w[3][j]);
            double r = sqrt(-2.0 * log(u1));
            v[j] = exp(job->a + job->b * r * cos(theta));
            v[LANES + j] = exp(job->a + job->b * r * sin(theta));
        }
        store_f64(NT_FLOAT64, v, n, dst);
        return;
    }
    float v[4 * LANES], mean = (float)job->a, std = (float)job->b;
    for (int k = 0; k < 4; k += 2)
        for (int j = 0; j < LANES; j++)
            nt_box_muller_f32(w[k][j], w[k + 1][j], &v[k * LANES + j], &v[(k + 1) * LANES + j]);
    for (int i = 0; i < 4 * LANES; i++)
        v[i] = expf(mean + std * v[i]);
    store_f32(job->dtype, v, n, dst);
}

/* The number of Bernoulli(p) trials up to the first success: ceil(log(u) / log(1 - p)) with
 * u uniform in (0, 1), so the support is 1, 2, ... */
static void geometric_block(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base, int64_t n) {
    double v[2 * LANES], denom = log1p(-job->a);
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < LANES; j++) {
            uint64_t x = ((uint64_t)w[2 * k][j] << 21) | (uint64_t)(w[2 * k + 1][j] >> 11);
            double u = ((double)x + 0.5) * 0x1.0p-53;
            double g = ceil(log(u) / denom);
            v[k * LANES + j] = g < 1.0 ? 1.0 : g;
        }
    store_f64(job->dtype, v, n, job->data + base * (int64_t)nt_dtype_table[job->dtype].size);
}

static void bernoulli_block(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base, int64_t n) {
    uint8_t v[4 * LANES];
    uint32_t keep_max = job->keep_max;
    uint8_t any = job->keep_any;
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < LANES; j++)
            v[k * LANES + j] = (uint8_t)(any & (w[k][j] <= keep_max));
    store_u8(job->dtype, v, n, job->data + base * (int64_t)nt_dtype_table[job->dtype].size);
}

static void random_block(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base, int64_t n) {
    int64_t v[2 * LANES];
    uint64_t range = job->range, from = (uint64_t)job->from;
    if (range == 0) {
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < LANES; j++)
                v[k * LANES + j] = (int64_t)(((uint64_t)w[2 * k][j] << 32) | w[2 * k + 1][j]);
    } else if ((range & (range - 1)) == 0) {
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < LANES; j++) {
                uint64_t r = ((uint64_t)w[2 * k][j] << 32) | w[2 * k + 1][j];
                v[k * LANES + j] = (int64_t)(from + (r & (range - 1)));
            }
    } else {
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < LANES; j++) {
                uint64_t r = ((uint64_t)w[2 * k][j] << 32) | w[2 * k + 1][j];
                v[k * LANES + j] = (int64_t)(from + r % range);
            }
    }
    store_i64(job->dtype, v, n, job->data + base * (int64_t)nt_dtype_table[job->dtype].size);
}

static void words_block(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base, int64_t n) {
    uint32_t *dst = (uint32_t *)job->data + base;
    for (int64_t i = 0; i < n; i++)
        dst[i] = w[i / LANES][i % LANES];
}

typedef void (*dist_block_fn)(const nt_dist_job *job, uint32_t w[4][LANES], int64_t base,
                              int64_t n);

static const dist_block_fn dist_blocks[] = {
    [NT_DIST_EXPONENTIAL] = exponential_block,
    [NT_DIST_CAUCHY] = cauchy_block,
    [NT_DIST_LOG_NORMAL] = log_normal_block,
    [NT_DIST_GEOMETRIC] = geometric_block,
    [NT_DIST_BERNOULLI] = bernoulli_block,
    [NT_DIST_RANDOM] = random_block,
    [NT_DIST_WORDS] = words_block,
};

void nt_dist_block(void *ctx, uint32_t w[4][LANES], int64_t base, int64_t n) {
    const nt_dist_job *job = ctx;
    dist_blocks[job->kind](job, w, base, n);
}

/* ------------------------------------------------------------------ element loops */

void nt_bernoulli_tensor_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                              void *arg) {
    const nt_bernoulli_tensor_ctx *c = arg;
    size_t size = nt_dtype_table[c->out_dtype].size;
    uint64_t one = 0, zero = 0;
    nt_store_scalar(&one, c->out_dtype, nt_scalar_int(1));
    for (int64_t o = 0; o < n_outer; o++) {
        char *out = data[0] + o * strides[3], *p = data[1] + o * strides[4];
        const char *w = data[2] + o * strides[5];
        for (int64_t i = 0; i < n_inner; i++) {
            double pv = nt_load_double(p + i * strides[1], c->p_dtype);
            uint32_t word;
            memcpy(&word, w + i * strides[2], sizeof word);
            memcpy(out + i * strides[0], (double)word * 0x1.0p-32 < pv ? &one : &zero, size);
        }
    }
}

void nt_prob_range_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                        void *arg) {
    nt_random_check_ctx *c = arg;
    int bad = 0;
    for (int64_t o = 0; o < n_outer; o++)
        for (int64_t i = 0; i < n_inner; i++) {
            double v = nt_load_double(data[0] + o * strides[1] + i * strides[0], c->dtype);
            bad |= !(v >= 0.0 && v <= 1.0);
        }
    if (bad) c->bad = 1;
}

void nt_normal_affine_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                           void *arg) {
    const nt_normal_affine_ctx *c = arg;
    int nops = 1 + (c->mean_op > 0) + (c->std_op > 0);
    for (int64_t o = 0; o < n_outer; o++)
        for (int64_t i = 0; i < n_inner; i++) {
            char *po = data[0] + o * strides[nops] + i * strides[0];
            double z = nt_load_double(po, c->out_dtype), m = c->mean, s = c->std;
            if (c->mean_op) {
                int k = c->mean_op;
                m = nt_load_double(data[k] + o * strides[nops + k] + i * strides[k], c->mean_dtype);
            }
            if (c->std_op) {
                int k = c->std_op;
                s = nt_load_double(data[k] + o * strides[nops + k] + i * strides[k], c->std_dtype);
            }
            nt_store_scalar(po, c->out_dtype, nt_scalar_float(z * s + m));
        }
}

/* Whether some element of std is negative or NaN. */
void nt_negative_loop(char **data, const int64_t *strides, int64_t n_inner, int64_t n_outer,
                      void *arg) {
    nt_random_check_ctx *c = arg;
    int bad = 0;
    for (int64_t o = 0; o < n_outer; o++)
        for (int64_t i = 0; i < n_inner; i++)
            bad |= !(nt_load_double(data[0] + o * strides[1] + i * strides[0], c->dtype) >= 0.0);
    if (bad) c->bad = 1;
}

/* ------------------------------------------------------------------ dropout */

/* nt_random_run's block function for an nt_dropout_job (ctx): y = x * scale where the
 * element's word keeps it, x * 0 elsewhere. */
void nt_dropout_block(void *ctx, uint32_t w[4][LANES], int64_t base, int64_t n) {
    const nt_dropout_job *job = ctx;
    uint32_t keep_max = job->keep_max;
    int64_t full = n / LANES, rest = n % LANES;
    if (job->dtype == NT_FLOAT32) {
        const float *restrict x = (const float *)job->x + base;
        float *restrict y = (float *)job->y + base;
        float s = job->scale_f;
        for (int64_t k = 0; k < full; k++)
            for (int j = 0; j < LANES; j++)
                y[k * LANES + j] = x[k * LANES + j] * (w[k][j] <= keep_max ? s : 0.0f);
        for (int j = 0; j < rest; j++)
            y[full * LANES + j] = x[full * LANES + j] * (w[full][j] <= keep_max ? s : 0.0f);
    } else if (job->dtype == NT_FLOAT64) {
        const double *x = (const double *)job->x + base;
        double *y = (double *)job->y + base;
        double s = job->scale_d;
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] * (w[i / LANES][i % LANES] <= keep_max ? s : 0.0);
    } else { /* bfloat16, computed in float */
        const nt_bfloat16 *x = (const nt_bfloat16 *)job->x + base;
        nt_bfloat16 *y = (nt_bfloat16 *)job->y + base;
        float s = job->scale_f;
        for (int64_t i = 0; i < n; i++)
            y[i] = nt_f32_to_bf16(nt_bf16_to_f32(x[i]) *
                                  (w[i / LANES][i % LANES] <= keep_max ? s : 0.0f));
    }
}

/* y = x * 0 over n elements of any dtype (p = 1). */
void nt_zero_times(nt_dtype dt, const char *x, char *y, int64_t n) {
    switch (dt) {
    case NT_FLOAT32:
        for (int64_t i = 0; i < n; i++)
            ((float *)y)[i] = ((const float *)x)[i] * 0.0f;
        return;
    case NT_FLOAT64:
        for (int64_t i = 0; i < n; i++)
            ((double *)y)[i] = ((const double *)x)[i] * 0.0;
        return;
    case NT_FLOAT16:
        for (int64_t i = 0; i < n; i++)
            ((nt_float16 *)y)[i] = nt_f32_to_f16(nt_f16_to_f32(((const nt_float16 *)x)[i]) * 0.0f);
        return;
    case NT_BFLOAT16:
        for (int64_t i = 0; i < n; i++)
            ((nt_bfloat16 *)y)[i] =
                nt_f32_to_bf16(nt_bf16_to_f32(((const nt_bfloat16 *)x)[i]) * 0.0f);
        return;
    default:
        memset(y, 0, (size_t)n * nt_dtype_table[dt].size);
        return;
    }
}
