/*
 * scan.c — cumsum and cumprod along a dim (layer L4), names kept.
 *
 * Integer and bool inputs are converted to int64 first (PyTorch's default result), or to
 * the dtype= given; the kernels then read and write the same dtype. As in PyTorch's CPU
 * kernels, floats accumulate in double (acc_type<float, false>) and integers wrap
 * (accumulated as uint64). Two schedules: the dim is the input's fastest one (each line a
 * sequential loop, lines in parallel), or it is not (a tile of lanes across the fastest
 * kept dim advances one step of the dim at a time: vectorised, cache-friendly).
 */
#include <inttypes.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"
#include "kernels/loops.h"
#include "names/infer.h"
#include "reduce.h"

#define SCAN_LANES 256

typedef void (*scan_line_fn)(const char *in, int64_t is, char *out, int64_t os, int64_t n,
                             bool prod);
/* Lanes: acc[i] op= in[i]; out[i] = acc[i], for w lanes. */
typedef void (*scan_lanes_fn)(void *acc, const char *in, int64_t is, char *out, int64_t os,
                              int64_t w, bool prod);
typedef void (*scan_init_fn)(void *acc, int64_t w, bool prod);

#define STAMP_SCAN(E, c, A)                                                                        \
    static void scan_line_##E(const char *in, int64_t is, char *out, int64_t os, int64_t n,        \
                              bool prod) {                                                         \
        A acc = prod ? (A)1 : (A)0;                                                                \
        if (prod) {                                                                                \
            for (int64_t i = 0; i < n; i++) {                                                      \
                acc = acc * (A)NT_LD_##E(*(const c *)(in + i * is));                               \
                *(c *)(out + i * os) = NT_ST_##E(acc);                                             \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                acc = acc + (A)NT_LD_##E(*(const c *)(in + i * is));                               \
                *(c *)(out + i * os) = NT_ST_##E(acc);                                             \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void scan_init_##E(void *acc, int64_t w, bool prod) {                                   \
        A *a = acc;                                                                                \
        for (int64_t i = 0; i < w; i++)                                                            \
            a[i] = prod ? (A)1 : (A)0;                                                             \
    }                                                                                              \
    static void scan_lanes_##E(void *acc, const char *in, int64_t is, char *out, int64_t os,       \
                               int64_t w, bool prod) {                                             \
        A *restrict a = acc;                                                                       \
        if (is == (int64_t)sizeof(c) && os == (int64_t)sizeof(c)) {                                \
            const c *restrict x = (const c *)in;                                                   \
            c *restrict y = (c *)out;                                                              \
            if (prod)                                                                              \
                for (int64_t i = 0; i < w; i++)                                                    \
                    y[i] = NT_ST_##E(a[i] = a[i] * (A)NT_LD_##E(x[i]));                            \
            else                                                                                   \
                for (int64_t i = 0; i < w; i++)                                                    \
                    y[i] = NT_ST_##E(a[i] = a[i] + (A)NT_LD_##E(x[i]));                            \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < w; i++) {                                                          \
            A x = (A)NT_LD_##E(*(const c *)(in + i * is));                                         \
            a[i] = prod ? a[i] * x : a[i] + x;                                                     \
            *(c *)(out + i * os) = NT_ST_##E(a[i]);                                                \
        }                                                                                          \
    }

STAMP_SCAN(NT_BOOL, nt_bool, uint64_t)
STAMP_SCAN(NT_UINT8, uint8_t, uint64_t)
STAMP_SCAN(NT_INT8, int8_t, uint64_t)
STAMP_SCAN(NT_INT16, int16_t, uint64_t)
STAMP_SCAN(NT_INT32, int32_t, uint64_t)
STAMP_SCAN(NT_INT64, int64_t, uint64_t)
STAMP_SCAN(NT_BFLOAT16, nt_bfloat16, double)
STAMP_SCAN(NT_FLOAT32, float, double)
STAMP_SCAN(NT_FLOAT64, double, double)

#define SCAN_ROW(E)                                                                                \
    { scan_line_##E, scan_lanes_##E, scan_init_##E }
typedef struct scan_kernel {
    scan_line_fn line;
    scan_lanes_fn lanes;
    scan_init_fn init;
} scan_kernel;
/* float16 is missing, as in PyTorch 1.13 ("cumsum_out_cpu" not implemented for 'Half'). */
static const scan_kernel scan_kernels[NT_DTYPE_COUNT] = {
    [NT_BOOL] = SCAN_ROW(NT_BOOL),         [NT_UINT8] = SCAN_ROW(NT_UINT8),
    [NT_INT8] = SCAN_ROW(NT_INT8),         [NT_INT16] = SCAN_ROW(NT_INT16),
    [NT_INT32] = SCAN_ROW(NT_INT32),       [NT_INT64] = SCAN_ROW(NT_INT64),
    [NT_BFLOAT16] = SCAN_ROW(NT_BFLOAT16), [NT_FLOAT32] = SCAN_ROW(NT_FLOAT32),
    [NT_FLOAT64] = SCAN_ROW(NT_FLOAT64),
};

typedef struct scan_job {
    const nt_red_plan *p;
    const scan_kernel *k;
    bool prod;
    int64_t n, is, os; /* the scanned dim: length, input and output byte strides */
} scan_job;

static void line_task(void *ctx, int64_t b, int64_t e) {
    const scan_job *j = ctx;
    for (int64_t o = b; o < e; o++) {
        int64_t in, out;
        nt_red_plan_offsets(j->p, o, &in, &out, NULL);
        j->k->line(j->p->in + in, j->is, j->p->out + out, j->os, j->n, j->prod);
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
        j->k->init(acc, n, j->prod);
        for (int64_t r = 0; r < j->n; r++)
            j->k->lanes(acc, src + r * j->is, p->kin[0], dst + r * j->os, p->kout[0], n, j->prod);
    }
}

static nt_status scan(bool prod, nt_tensor *t, int64_t dim, int dtype, nt_tensor *into,
                      nt_tensor **out) {
    const char *fname = prod ? "cumprod" : "cumsum";
    if (!t) return nt_fail_null_tensor(fname, "self");
    if (!into && !out) return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", fname);
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
    /* without dtype=, an out= tensor's dtype is the one PyTorch computes in */
    nt_dtype target = dtype >= 0                                       ? (nt_dtype)dtype
                      : into                                           ? into->dtype
                      : nt_dtype_table[t->dtype].kind == NT_KIND_FLOAT ? t->dtype
                                                                       : NT_INT64;
    const scan_kernel *k = &scan_kernels[target];
    if (!k->line)
        return nt_red_not_implemented(prod ? "cumprod_out_cpu" : "cumsum_out_cpu", target);
    nt_tensor *src = NULL, *result = NULL;
    nt_status st;
    NT_CHECK(st, nt_to_dtype(t, target, &src));
    NT_CHECK(st, nt_red_prepare(into, t, target, t->ndim, t->sizes, t->names, &result));
    if (t->numel > 0) {
        nt_red_plan p;
        uint64_t mask = t->ndim ? (uint64_t)1 << d : 0;
        nt_red_plan_build(&p, src, mask, true, result, NULL);
        int64_t esize = (int64_t)nt_dtype_table[target].size;
        scan_job j = {&p,
                      k,
                      prod,
                      t->ndim ? t->sizes[d] : 1,
                      t->ndim ? src->strides[d] * esize : 0,
                      t->ndim ? result->strides[d] * esize : 0};
        int64_t abs_is = j.is < 0 ? -j.is : j.is;
        bool lines = p.nk == 0 || j.n == 1 || abs_is < (p.kin[0] < 0 ? -p.kin[0] : p.kin[0]);
        if (lines) {
            nt_parallel_for(0, p.nout, NT_GRAIN_SIZE / j.n + 1, line_task, &j);
        } else {
            int64_t tiles = (p.ks[0] + SCAN_LANES - 1) / SCAN_LANES;
            int64_t w = p.ks[0] < SCAN_LANES ? p.ks[0] : SCAN_LANES;
            nt_parallel_for(0, p.nout / p.ks[0] * tiles, NT_GRAIN_SIZE / (j.n * w) + 1, lanes_task,
                            &j);
        }
    }
    nt_tensor_release(src);
    return nt_red_finish(NT_OK, into, result, t->names, out);
fail:
    nt_tensor_release(src);
    nt_tensor_release(result);
    return st;
}

nt_status nt_cumsum(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out) {
    return scan(false, t, dim, dtype, NULL, out);
}

nt_status nt_cumprod(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out) {
    return scan(true, t, dim, dtype, NULL, out);
}

nt_status nt_cumsum_out(nt_tensor *t, int64_t dim, int dtype, nt_tensor *out) {
    if (!out) return nt_fail_null_tensor("cumsum", "out");
    return scan(false, t, dim, dtype, out, NULL);
}

nt_status nt_cumprod_out(nt_tensor *t, int64_t dim, int dtype, nt_tensor *out) {
    if (!out) return nt_fail_null_tensor("cumprod", "out");
    return scan(true, t, dim, dtype, out, NULL);
}
