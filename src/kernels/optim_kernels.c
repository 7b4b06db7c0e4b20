/*
 * optim_kernels.c — SGD and Adam element updates (optim_kernels.h).
 *
 * One scalar function per step and compute type (float for float16, bfloat16 and float32;
 * double for float64) holds the formula; always-inlined rows call it over contiguous or
 * strided elements with the storage type and the step's shape (momentum mode, amsgrad)
 * fixed, so each row compiles to its own loop. Every loop exists twice: for AVX2 with FMA,
 * where GCC vectorises the contiguous rows and fma is one instruction, and for the
 * x86-64-v2 baseline (fma from libm: the same values, slower). This file is compiled with
 * -fno-math-errno (CMakeLists.txt), without which sqrt keeps a branch to set errno and no
 * row vectorises; the values are the same.
 */
#include "optim_kernels.h"

#include <math.h>

#include "core/cpu.h"
#include "core/half.h"
#include "core/parallel.h"

#define OPT_AVX2 __attribute__((target("avx2,fma")))
#define OPT_INLINE static inline __attribute__((always_inline))

/* ------------------------------------------------------------------ storage types */

/* The element at p of a float16, bfloat16 or float32 tensor, as a float. */
OPT_INLINE float load_f(const char *p, nt_dtype dt) {
    if (dt == NT_FLOAT32) return *(const float *)p;
    if (dt == NT_BFLOAT16) return nt_bf16_to_f32(*(const nt_bfloat16 *)p);
    return nt_f16_to_f32(*(const nt_float16 *)p);
}

OPT_INLINE void store_f(char *p, nt_dtype dt, float v) {
    if (dt == NT_FLOAT32)
        *(float *)p = v;
    else if (dt == NT_BFLOAT16)
        *(nt_bfloat16 *)p = nt_f32_to_bf16(v);
    else
        *(nt_float16 *)p = nt_f32_to_f16(v);
}

/* torch.maximum: a NaN in either wins. */
OPT_INLINE float max_nan_f(float a, float b) {
    return (a > b || a != a) ? a : b;
}
OPT_INLINE double max_nan_d(double a, double b) {
    return (a > b || a != a) ? a : b;
}

/* ------------------------------------------------------------------ SGD */

/* The constants in the compute type: PyTorch casts each Python float it meets. */
typedef struct sgd_f {
    float gsign, wd, mom, omd, nlr; /* -1 when maximizing; weight_decay; momentum;
                                       1 - dampening; -lr */
    bool wd_on, nesterov;
} sgd_f;
typedef struct sgd_d {
    double gsign, wd, mom, omd, nlr;
    bool wd_on, nesterov;
} sgd_d;

/* _single_tensor_sgd for one element:
 *   d_p = -grad if maximize else grad
 *   d_p = d_p.add(param, alpha=weight_decay)            (when weight_decay != 0)
 *   buf = clone(d_p)  or  buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
 *   d_p = d_p.add(buf, alpha=momentum) if nesterov else buf   (when momentum != 0)
 *   param.add_(d_p, alpha=-lr)                                                      */
OPT_INLINE float sgd_elem_f(float p, float g, float *buf, nt_sgd_mode mode, const sgd_f *k) {
    float d = g * k->gsign;
    d = k->wd_on ? fmaf(p, k->wd, d) : d;
    if (mode != NT_SGD_PLAIN) {
        float b = mode == NT_SGD_FIRST ? d : fmaf(d, k->omd, *buf * k->mom);
        *buf = b;
        d = k->nesterov ? fmaf(b, k->mom, d) : b;
    }
    return fmaf(d, k->nlr, p);
}

OPT_INLINE double sgd_elem_d(double p, double g, double *buf, nt_sgd_mode mode, const sgd_d *k) {
    double d = g * k->gsign;
    d = k->wd_on ? fma(p, k->wd, d) : d;
    if (mode != NT_SGD_PLAIN) {
        double b = mode == NT_SGD_FIRST ? d : fma(d, k->omd, *buf * k->mom);
        *buf = b;
        d = k->nesterov ? fma(b, k->mom, d) : b;
    }
    return fma(d, k->nlr, p);
}

/* n elements; x[k] operand k's first element, s[k] its byte stride (the element size for a
 * contiguous row: then the compiler sees unit strides and vectorises). Operands: param,
 * [buf], grad. */
OPT_INLINE void sgd_row_f(char *restrict *x, const int64_t *s, int64_t n, nt_dtype dt,
                          nt_sgd_mode mode, const sgd_f *k) {
    char *restrict p = x[0], *restrict b = x[1], *restrict g = x[mode == NT_SGD_PLAIN ? 1 : 2];
    int64_t sp = s[0], sb = s[1], sg = s[mode == NT_SGD_PLAIN ? 1 : 2];
    for (int64_t i = 0; i < n; i++) {
        float buf = mode == NT_SGD_RUNNING ? load_f(b + i * sb, dt) : 0.0f;
        float pv = sgd_elem_f(load_f(p + i * sp, dt), load_f(g + i * sg, dt), &buf, mode, k);
        if (mode != NT_SGD_PLAIN) store_f(b + i * sb, dt, buf);
        store_f(p + i * sp, dt, pv);
    }
}

OPT_INLINE void sgd_row_d(char *restrict *x, const int64_t *s, int64_t n, nt_sgd_mode mode,
                          const sgd_d *k) {
    char *restrict p = x[0], *restrict b = x[1], *restrict g = x[mode == NT_SGD_PLAIN ? 1 : 2];
    int64_t sp = s[0], sb = s[1], sg = s[mode == NT_SGD_PLAIN ? 1 : 2];
    for (int64_t i = 0; i < n; i++) {
        double buf = mode == NT_SGD_RUNNING ? *(double *)(b + i * sb) : 0.0;
        double pv = sgd_elem_d(*(double *)(p + i * sp), *(double *)(g + i * sg), &buf, mode, k);
        if (mode != NT_SGD_PLAIN) *(double *)(b + i * sb) = buf;
        *(double *)(p + i * sp) = pv;
    }
}

/* A row with its strides known to be the element size, or not: two loops of one body. */
OPT_INLINE void sgd_rows_f(char *restrict *x, const int64_t *s, int64_t n, bool flat, nt_dtype dt,
                           nt_sgd_mode mode, const sgd_f *k) {
    int64_t es = (int64_t)nt_dtype_table[dt].size;
    const int64_t unit[3] = {es, es, es};
    if (flat)
        sgd_row_f(x, unit, n, dt, mode, k);
    else
        sgd_row_f(x, s, n, dt, mode, k);
}

OPT_INLINE void sgd_rows_d(char *restrict *x, const int64_t *s, int64_t n, bool flat,
                           nt_sgd_mode mode, const sgd_d *k) {
    const int64_t unit[3] = {8, 8, 8};
    if (flat)
        sgd_row_d(x, unit, n, mode, k);
    else
        sgd_row_d(x, s, n, mode, k);
}

/* The 2-D loop of one storage dtype: constants rounded once, then row by row. */
OPT_INLINE void sgd_loop(char **data, const int64_t *strides, int64_t n, int64_t m,
                         const nt_sgd_consts *c, nt_dtype dt) {
    int nops = nt_sgd_nops(c);
    int64_t es = (int64_t)nt_dtype_table[dt].size;
    bool flat = true;
    for (int k = 0; k < nops; k++)
        flat &= strides[k] == es;
    sgd_f kf = {(float)(c->maximize ? -1.0 : 1.0),
                (float)c->weight_decay,
                (float)c->momentum,
                (float)(1.0 - c->dampening),
                (float)(-c->lr),
                c->weight_decay != 0,
                c->nesterov};
    sgd_d kd = {c->maximize ? -1.0 : 1.0, c->weight_decay, c->momentum, 1.0 - c->dampening, -c->lr,
                c->weight_decay != 0,     c->nesterov};
    for (int64_t o = 0; o < m; o++) {
        char *x[3];
        for (int k = 0; k < nops; k++)
            x[k] = data[k] + o * strides[nops + k];
        if (nops == 2) x[2] = x[1];
        if (dt == NT_FLOAT64) {
            if (c->mode == NT_SGD_PLAIN) sgd_rows_d(x, strides, n, flat, NT_SGD_PLAIN, &kd);
            if (c->mode == NT_SGD_FIRST) sgd_rows_d(x, strides, n, flat, NT_SGD_FIRST, &kd);
            if (c->mode == NT_SGD_RUNNING) sgd_rows_d(x, strides, n, flat, NT_SGD_RUNNING, &kd);
        } else {
            if (c->mode == NT_SGD_PLAIN) sgd_rows_f(x, strides, n, flat, dt, NT_SGD_PLAIN, &kf);
            if (c->mode == NT_SGD_FIRST) sgd_rows_f(x, strides, n, flat, dt, NT_SGD_FIRST, &kf);
            if (c->mode == NT_SGD_RUNNING) sgd_rows_f(x, strides, n, flat, dt, NT_SGD_RUNNING, &kf);
        }
    }
}

/* ------------------------------------------------------------------ Adam, AdamW */

typedef struct adam_f {
    float gsign, wd, b1, omb1, b2, omb2, bc2s, eps, nss, pmul; /* see adam_consts */
    bool wd_on;
} adam_f;
typedef struct adam_d {
    double gsign, wd, b1, omb1, b2, omb2, bc2s, eps, nss, pmul;
    bool wd_on;
} adam_d;

/* _single_tensor_adam / _single_tensor_adamw for one element (step > 0 already counted):
 *   grad = -grad if maximize else grad
 *   param.mul_(1 - lr * weight_decay)                          (AdamW: pmul, else 1)
 *   grad = grad.add(param, alpha=weight_decay)                 (Adam, weight_decay != 0)
 *   exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
 *   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
 *   max_exp_avg_sq = maximum(max_exp_avg_sq, exp_avg_sq)      (amsgrad)
 *   denom = (sqrt(exp_avg_sq or max) / sqrt(1 - beta2 ** step)).add_(eps)
 *   param.addcdiv_(exp_avg, denom, value=-lr / (1 - beta1 ** step))               */
OPT_INLINE float adam_elem_f(float p, float g, float *m, float *v, float *vmax, bool amsgrad,
                             const adam_f *k) {
    g = g * k->gsign;
    float p0 = p * k->pmul;
    g = k->wd_on ? fmaf(p, k->wd, g) : g;
    float mv = fmaf(g, k->omb1, *m * k->b1);
    float vv = fmaf(k->omb2 * g, g, *v * k->b2);
    *m = mv;
    *v = vv;
    if (amsgrad) vv = *vmax = max_nan_f(*vmax, vv);
    float denom = sqrtf(vv) / k->bc2s + k->eps;
    return p0 + (k->nss * mv) / denom;
}

OPT_INLINE double adam_elem_d(double p, double g, double *m, double *v, double *vmax, bool amsgrad,
                              const adam_d *k) {
    g = g * k->gsign;
    double p0 = p * k->pmul;
    g = k->wd_on ? fma(p, k->wd, g) : g;
    double mv = fma(g, k->omb1, *m * k->b1);
    double vv = fma(k->omb2 * g, g, *v * k->b2);
    *m = mv;
    *v = vv;
    if (amsgrad) vv = *vmax = max_nan_d(*vmax, vv);
    double denom = sqrt(vv) / k->bc2s + k->eps;
    return p0 + (k->nss * mv) / denom;
}

/* Operands: param, exp_avg, exp_avg_sq, [max_exp_avg_sq], grad. */
OPT_INLINE void adam_row_f(char *restrict *x, const int64_t *s, int64_t n, nt_dtype dt,
                           bool amsgrad, const adam_f *k) {
    char *restrict p = x[0], *restrict m = x[1], *restrict v = x[2], *restrict vx = x[3],
                   *restrict g = x[amsgrad ? 4 : 3];
    int64_t sp = s[0], sm = s[1], sv = s[2], sx = s[3], sg = s[amsgrad ? 4 : 3];
    for (int64_t i = 0; i < n; i++) {
        float mv = load_f(m + i * sm, dt), vv = load_f(v + i * sv, dt);
        float xv = amsgrad ? load_f(vx + i * sx, dt) : 0.0f;
        float pv =
            adam_elem_f(load_f(p + i * sp, dt), load_f(g + i * sg, dt), &mv, &vv, &xv, amsgrad, k);
        store_f(m + i * sm, dt, mv);
        store_f(v + i * sv, dt, vv);
        if (amsgrad) store_f(vx + i * sx, dt, xv);
        store_f(p + i * sp, dt, pv);
    }
}

OPT_INLINE void adam_row_d(char *restrict *x, const int64_t *s, int64_t n, bool amsgrad,
                           const adam_d *k) {
    char *restrict p = x[0], *restrict m = x[1], *restrict v = x[2], *restrict vx = x[3],
                   *restrict g = x[amsgrad ? 4 : 3];
    int64_t sp = s[0], sm = s[1], sv = s[2], sx = s[3], sg = s[amsgrad ? 4 : 3];
    for (int64_t i = 0; i < n; i++) {
        double mv = *(double *)(m + i * sm), vv = *(double *)(v + i * sv);
        double xv = amsgrad ? *(double *)(vx + i * sx) : 0.0;
        double pv = adam_elem_d(*(double *)(p + i * sp), *(double *)(g + i * sg), &mv, &vv, &xv,
                                amsgrad, k);
        *(double *)(m + i * sm) = mv;
        *(double *)(v + i * sv) = vv;
        if (amsgrad) *(double *)(vx + i * sx) = xv;
        *(double *)(p + i * sp) = pv;
    }
}

OPT_INLINE void adam_rows_f(char *restrict *x, const int64_t *s, int64_t n, bool flat, nt_dtype dt,
                            bool amsgrad, const adam_f *k) {
    int64_t es = (int64_t)nt_dtype_table[dt].size;
    const int64_t unit[5] = {es, es, es, es, es};
    if (flat)
        adam_row_f(x, unit, n, dt, amsgrad, k);
    else
        adam_row_f(x, s, n, dt, amsgrad, k);
}

OPT_INLINE void adam_rows_d(char *restrict *x, const int64_t *s, int64_t n, bool flat, bool amsgrad,
                            const adam_d *k) {
    const int64_t unit[5] = {8, 8, 8, 8, 8};
    if (flat)
        adam_row_d(x, unit, n, amsgrad, k);
    else
        adam_row_d(x, s, n, amsgrad, k);
}

OPT_INLINE void adam_loop(char **data, const int64_t *strides, int64_t n, int64_t m,
                          const nt_adam_consts *c, nt_dtype dt) {
    int nops = nt_adam_nops(c);
    int64_t es = (int64_t)nt_dtype_table[dt].size;
    bool flat = true;
    for (int k = 0; k < nops; k++)
        flat &= strides[k] == es;
    /* PyTorch's Python arithmetic on the step's doubles, then each value cast */
    double bc1 = 1.0 - pow(c->beta1, c->step), bc2 = 1.0 - pow(c->beta2, c->step);
    double step_size = c->lr / bc1, bc2s = sqrt(bc2);
    double pmul = c->decoupled ? 1.0 - c->lr * c->weight_decay : 1.0;
    bool wd_on = !c->decoupled && c->weight_decay != 0;
    adam_d kd = {c->maximize ? -1.0 : 1.0,
                 c->weight_decay,
                 c->beta1,
                 1.0 - c->beta1,
                 c->beta2,
                 1.0 - c->beta2,
                 bc2s,
                 c->eps,
                 -step_size,
                 pmul,
                 wd_on};
    adam_f kf = {(float)kd.gsign, (float)kd.wd,   (float)kd.b1,   (float)kd.omb1,
                 (float)kd.b2,    (float)kd.omb2, (float)kd.bc2s, (float)kd.eps,
                 (float)kd.nss,   (float)kd.pmul, wd_on};
    for (int64_t o = 0; o < m; o++) {
        char *x[5];
        for (int k = 0; k < nops; k++)
            x[k] = data[k] + o * strides[nops + k];
        if (nops == 4) x[4] = x[3];
        if (dt == NT_FLOAT64) {
            if (c->amsgrad)
                adam_rows_d(x, strides, n, flat, true, &kd);
            else
                adam_rows_d(x, strides, n, flat, false, &kd);
        } else if (c->amsgrad) {
            adam_rows_f(x, strides, n, flat, dt, true, &kf);
        } else {
            adam_rows_f(x, strides, n, flat, dt, false, &kf);
        }
    }
}

/* ------------------------------------------------------------------ the loops by dtype */

/* Each loop twice: AVX2 + FMA, and the baseline; the entry chooses by the CPU. */
#define OPT_LOOPS(STEP, CONSTS, DT, SUFFIX)                                                        \
    OPT_AVX2 static void STEP##_##SUFFIX##_avx2(char **d, const int64_t *s, int64_t n, int64_t m,  \
                                                const CONSTS *c) {                                 \
        STEP##_loop(d, s, n, m, c, DT);                                                            \
    }                                                                                              \
    static void STEP##_##SUFFIX##_base(char **d, const int64_t *s, int64_t n, int64_t m,           \
                                       const CONSTS *c) {                                          \
        STEP##_loop(d, s, n, m, c, DT);                                                            \
    }                                                                                              \
    static void STEP##_##SUFFIX(char **d, const int64_t *s, int64_t n, int64_t m, void *ctx) {     \
        if (nt_cpu()->avx2_fma)                                                                    \
            STEP##_##SUFFIX##_avx2(d, s, n, m, ctx);                                               \
        else                                                                                       \
            STEP##_##SUFFIX##_base(d, s, n, m, ctx);                                               \
    }

OPT_LOOPS(sgd, nt_sgd_consts, NT_FLOAT32, f32)
OPT_LOOPS(sgd, nt_sgd_consts, NT_FLOAT64, f64)
OPT_LOOPS(sgd, nt_sgd_consts, NT_BFLOAT16, bf16)
OPT_LOOPS(sgd, nt_sgd_consts, NT_FLOAT16, f16)
OPT_LOOPS(adam, nt_adam_consts, NT_FLOAT32, f32)
OPT_LOOPS(adam, nt_adam_consts, NT_FLOAT64, f64)
OPT_LOOPS(adam, nt_adam_consts, NT_BFLOAT16, bf16)
OPT_LOOPS(adam, nt_adam_consts, NT_FLOAT16, f16)
#undef OPT_LOOPS

const nt_optim_loop nt_sgd_loops[NT_DTYPE_COUNT] = {[NT_FLOAT32] = sgd_f32,
                                                    [NT_FLOAT64] = sgd_f64,
                                                    [NT_BFLOAT16] = sgd_bf16,
                                                    [NT_FLOAT16] = sgd_f16};
const nt_optim_loop nt_adam_loops[NT_DTYPE_COUNT] = {[NT_FLOAT32] = adam_f32,
                                                     [NT_FLOAT64] = adam_f64,
                                                     [NT_BFLOAT16] = adam_bf16,
                                                     [NT_FLOAT16] = adam_f16};

/* ------------------------------------------------------------------ flat runs */

typedef struct flat_job {
    nt_optim_loop loop;
    int nops;
    char **data;
    int64_t es;
    void *ctx;
} flat_job;

static void flat_task(void *ctx, int64_t b, int64_t e) {
    const flat_job *j = ctx;
    char *x[5];
    int64_t s[10];
    for (int k = 0; k < j->nops; k++) {
        x[k] = j->data[k] + b * j->es;
        s[k] = j->es;
        s[j->nops + k] = 0;
    }
    j->loop(x, s, e - b, 1, j->ctx);
}

void nt_optim_run_flat(nt_optim_loop loop, int nops, char **data, nt_dtype dtype, int64_t n,
                       void *ctx) {
    flat_job j = {loop, nops, data, (int64_t)nt_dtype_table[dtype].size, ctx};
    nt_parallel_for(0, n, NT_GRAIN_SIZE, flat_task, &j);
}
