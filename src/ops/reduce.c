/*
 * reduce.c — the reductions (layer L4): sum, mean, prod, var, std, var_mean, std_mean,
 * logsumexp, all, any, amax/amin (max()/min() of all elements), max/min along a dim with
 * indices, argmax/argmin; and the engine under them.
 *
 * Each op: validate -> pick the result dtype (PyTorch's rules, converting the input when a
 * dtype= asks for it) -> names ("removes dimensions", nt_names_remove_dims) -> allocate
 * (or check out=) -> plan -> fold with a kernel of kernels/reduce_kernels.c.
 *
 * The engine. The plan (nt_red_plan) splits the input's dims into kept dims K and reduced
 * dims R, each sorted by stride and coalesced. Then one of three schedules:
 *   - full (one output): R is cut into fixed chunks of RED_CHUNK elements, folded in
 *     parallel and combined as a binary tree;
 *   - inner (the input's fastest dim is reduced: sum over 'C' of a row-major [N, C]): each
 *     output folds its own R space (a contiguous run when R coalesces), outputs in
 *     parallel; few outputs with long runs use the chunked fold per output instead;
 *   - outer (the fastest dim is kept: sum over 'N'): the fastest kept dim becomes vector
 *     lanes; a tile of lanes accumulates every R row, with a 16-way cascade of partial
 *     rows for accuracy; tiles in parallel.
 * Every schedule fixes its chunking from the shapes alone, so results never depend on the
 * thread count. All validation and allocation happens before any parallel region.
 */
#include "reduce.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "iter/iter.h"
#include "kernels/reduce_kernels.h"
#include "names/infer.h"
#include "names/names.h"

/* Elements per chunk of a full reduction (fixed: the result must not depend on threads). */
#define RED_CHUNK 65536
/* Accumulator bytes per level of a tile of the outer schedule, and the cascade's depth. */
#define RED_TILE_BYTES 16384
/* Rows per chunk of the outer schedule (at least). */
#define RED_ROW_CHUNK 512
#define RED_LEVELS 4

/* ------------------------------------------------------------------ shared helpers */

const char *nt_red_dtype_text(nt_dtype dtype) {
    static const char *const names[NT_DTYPE_COUNT] = {
        [NT_BOOL] = "Bool",      [NT_UINT8] = "Byte",        [NT_INT8] = "Char",
        [NT_INT16] = "Short",    [NT_INT32] = "Int",         [NT_INT64] = "Long",
        [NT_FLOAT16] = "Half",   [NT_BFLOAT16] = "BFloat16", [NT_FLOAT32] = "Float",
        [NT_FLOAT64] = "Double",
    };
    return nt_dtype_valid((int)dtype) ? names[dtype] : "Undefined";
}

nt_status nt_red_not_implemented(const char *kernel, nt_dtype dtype) {
    return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                   nt_red_dtype_text(dtype));
}

void nt_red_out_shape(const nt_tensor *t, uint64_t mask, bool keepdim, int *ndim, int64_t *sizes) {
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (!(mask >> d & 1u))
            sizes[n++] = t->sizes[d];
        else if (keepdim)
            sizes[n++] = 1;
    }
    *ndim = n;
}

static void shape_text(int ndim, const int64_t *sizes, char *buf, size_t cap) {
    nt_ints_repr(sizes, ndim, buf, cap);
}

nt_status nt_red_prepare(nt_tensor *into, const nt_tensor *input, nt_dtype dtype, int ndim,
                         const int64_t *sizes, const nt_name *names, nt_tensor **result) {
    if (!into) return nt_tensor_alloc(dtype, ndim, sizes, names, result);
    NT_TRY(nt_names_check_out(into->names, into->ndim, names, ndim));
    bool same = into->ndim == ndim;
    for (int d = 0; same && d < ndim; d++)
        same = into->sizes[d] == sizes[d];
    if (!same) {
        char have[256], want[256];
        shape_text(into->ndim, into->sizes, have, sizeof have);
        shape_text(ndim, sizes, want, sizeof want);
        return nt_fail(NT_ERR_RUNTIME,
                       "the out= tensor has shape %s but the result has shape %s (ntensor does "
                       "not resize out= tensors)",
                       have, want);
    }
    NT_TRY(nt_check_no_internal_overlap(into));
    if (into->dtype == dtype && !(input && nt_extents_overlap(into, input))) {
        *result = nt_tensor_retain(into);
        return NT_OK;
    }
    return nt_tensor_alloc(dtype, ndim, sizes, NULL, result);
}

nt_status nt_red_finish(nt_status st, nt_tensor *into, nt_tensor *result, const nt_name *names,
                        nt_tensor **out) {
    if (st == NT_OK && into) {
        if (result != into) st = nt_copy_(into, result);
        if (st == NT_OK && names && !into->names) st = nt_tensor_set_names(into, names);
        if (st == NT_OK) nt_storage_bump_version(into->storage);
    }
    if (st == NT_OK && out) {
        *out = into ? nt_tensor_retain(into) : result;
        if (into) nt_tensor_release(result);
        return NT_OK;
    }
    nt_tensor_release(result);
    return st;
}

/* ------------------------------------------------------------------ the plan */

static int64_t abs64(int64_t x) {
    return x < 0 ? -x : x;
}

/* Sorts n dims (sizes s, strides a, b, c: b and c may be NULL) by |a| and coalesces. */
static int sort_coalesce(int n, int64_t *s, int64_t *a, int64_t *b, int64_t *c) {
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && abs64(a[j]) < abs64(a[j - 1]); j--) {
            int64_t t;
            t = s[j], s[j] = s[j - 1], s[j - 1] = t;
            t = a[j], a[j] = a[j - 1], a[j - 1] = t;
            if (b) t = b[j], b[j] = b[j - 1], b[j - 1] = t;
            if (c) t = c[j], c[j] = c[j - 1], c[j - 1] = t;
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && s[m - 1] * a[m - 1] == a[i] && (!b || s[m - 1] * b[m - 1] == b[i]) &&
            (!c || s[m - 1] * c[m - 1] == c[i])) {
            s[m - 1] *= s[i];
            continue;
        }
        s[m] = s[i], a[m] = a[i];
        if (b) b[m] = b[i];
        if (c) c[m] = c[i];
        m++;
    }
    return m;
}

/* The plan of reducing the trailing dims of a contiguous tensor into a contiguous output
 * (sum over 'C' of [N, C]): one kept and one reduced dim, as the general build would give
 * too when both hold more than one element, without its sorting. False for other cases. */
static bool plan_packed(nt_red_plan *p, const nt_tensor *t, uint64_t mask, const nt_tensor *out,
                        const nt_tensor *out2) {
    if (!t->is_contiguous || out2 || (out && !out->is_contiguous) || t->ndim >= 64) return false;
    uint64_t all = ((uint64_t)1 << t->ndim) - 1;
    if (mask == 0 || mask == all || ((mask + (mask & -mask)) & all) != 0) return false;
    int64_t nout = 1, nred = 1;
    for (int d = 0; d < t->ndim; d++)
        *(mask >> d & 1u ? &nred : &nout) *= t->sizes[d];
    if (nout <= 1 || nred <= 1) return false;
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size;
    p->nk = p->nr = 1;
    p->nout = p->ks[0] = nout;
    p->nred = p->rs[0] = nred;
    p->kin[0] = nred * esize;
    /* out's kept dims lead it whether the reduced ones are gone, size one or (softmax,
     * scans) whole: the last one's stride steps from output to output */
    int last_kept = __builtin_ctzll(mask) - 1;
    p->kout[0] = out ? out->strides[last_kept] * (int64_t)nt_dtype_table[out->dtype].size : 0;
    p->kout2[0] = 0;
    p->rin[0] = esize;
    p->in = nt_tensor_bytes(t);
    p->out = out ? nt_tensor_bytes(out) : NULL;
    p->out2 = NULL;
    return true;
}

void nt_red_plan_build(nt_red_plan *p, const nt_tensor *t, uint64_t mask, bool keepdim,
                       const nt_tensor *out, const nt_tensor *out2) {
    if (plan_packed(p, t, mask, out, out2)) return;
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size;
    int64_t o1 = out ? (int64_t)nt_dtype_table[out->dtype].size : 0;
    int64_t o2 = out2 ? (int64_t)nt_dtype_table[out2->dtype].size : 0;
    p->nk = p->nr = 0;
    p->nout = p->nred = 1;
    int j = 0; /* the output dim of input dim d */
    for (int d = 0; d < t->ndim; d++) {
        bool reduced = mask >> d & 1u;
        int64_t size = t->sizes[d];
        if (reduced) {
            p->nred *= size;
            if (size != 1) {
                p->rs[p->nr] = size;
                p->rin[p->nr++] = t->strides[d] * esize;
            }
            if (keepdim) j++;
            continue;
        }
        p->nout *= size;
        if (size != 1) {
            p->ks[p->nk] = size;
            p->kin[p->nk] = t->strides[d] * esize;
            p->kout[p->nk] = out ? out->strides[j] * o1 : 0;
            p->kout2[p->nk++] = out2 ? out2->strides[j] * o2 : 0;
        }
        j++;
    }
    p->nk = sort_coalesce(p->nk, p->ks, p->kin, p->kout, p->kout2);
    p->nr = sort_coalesce(p->nr, p->rs, p->rin, NULL, NULL);
    p->in = nt_tensor_bytes(t);
    p->out = out ? nt_tensor_bytes(out) : NULL;
    p->out2 = out2 ? nt_tensor_bytes(out2) : NULL;
}

void nt_red_plan_offsets(const nt_red_plan *p, int64_t o, int64_t *in, int64_t *out,
                         int64_t *out2) {
    int64_t a = 0, b = 0, c = 0;
    for (int d = 0; d < p->nk; d++) {
        /* the outermost dim takes what is left, without a division (~40 cycles): a plan
         * with one kept dim, the usual case, divides nothing */
        int64_t i = o;
        if (d + 1 < p->nk) {
            i = o % p->ks[d];
            o /= p->ks[d];
        }
        a += i * p->kin[d];
        b += i * p->kout[d];
        c += i * p->kout2[d];
    }
    *in = a;
    *out = b;
    if (out2) *out2 = c;
}

/* ------------------------------------------------------------------ folding */

typedef struct red_job {
    const nt_red_kernel *k;
    const nt_red_plan *p;
    nt_red_params prm;
    nt_dtype out_dtype;
    const char *base; /* input base of the output being folded (chunked schedules) */
    char *partials;   /* one accumulator per chunk */
    int64_t nchunks;  /* chunks of the inner schedule's parallel fold */
    bool contig_runs; /* inner schedule: one kept dim, one contiguous run per output */
} red_job;

/* Folds the R-space linear range [b, e) at `base` into acc (already initialised): runs
 * along the innermost R dim, 16 runs per cascade level. */
static void fold_range(const nt_red_kernel *k, const nt_red_plan *p, const char *base, int64_t b,
                       int64_t e, char *acc) {
    if (p->nr == 0) {
        k->run(acc, base, 1, 0);
        return;
    }
    if (p->nr == 1) {
        k->run(acc, base + b * p->rin[0], e - b, p->rin[0]);
        return;
    }
    int64_t cnt[NT_MAX_DIMS], rest = b, off = 0;
    for (int d = 0; d < p->nr; d++) {
        cnt[d] = rest % p->rs[d];
        rest /= p->rs[d];
        off += cnt[d] * p->rin[d];
    }
    char lv[RED_LEVELS][NT_RED_MAX_ACC];
    int fill[RED_LEVELS] = {0};
    for (int l = 0; l < RED_LEVELS; l++)
        k->init(lv[l], 1);
    for (int64_t pos = b; pos < e;) {
        int64_t n = p->rs[0] - cnt[0];
        if (n > e - pos) n = e - pos;
        k->run(lv[0], base + off, n, p->rin[0]);
        pos += n;
        for (int l = 0; l < RED_LEVELS - 1 && ++fill[l] == 16; l++) {
            k->combine(lv[l + 1], lv[l], 1);
            k->init(lv[l], 1);
            fill[l] = 0;
        }
        cnt[0] += n;
        off += n * p->rin[0];
        for (int d = 0; d < p->nr - 1 && cnt[d] == p->rs[d]; d++) {
            off -= cnt[d] * p->rin[d];
            cnt[d] = 0;
            cnt[d + 1]++;
            off += p->rin[d + 1];
        }
    }
    for (int l = 0; l < RED_LEVELS - 1; l++)
        k->combine(lv[l + 1], lv[l], 1);
    k->combine(acc, lv[RED_LEVELS - 1], 1);
}

static int64_t chunk_count(int64_t nred) {
    return (nred + RED_CHUNK - 1) / RED_CHUNK;
}

/* Folds chunks [lo, hi) into acc as a binary tree (split at the midpoint), serially. The
 * tree is the same as combine_tree's, so serial and parallel folds agree bit for bit. */
static void fold_chunks(const nt_red_kernel *k, const nt_red_plan *p, const char *base, int64_t lo,
                        int64_t hi, char *acc) {
    if (hi - lo == 1) {
        int64_t e = (lo + 1) * RED_CHUNK;
        fold_range(k, p, base, lo * RED_CHUNK, e < p->nred ? e : p->nred, acc);
        return;
    }
    int64_t mid = lo + (hi - lo) / 2;
    char right[NT_RED_MAX_ACC];
    k->init(right, 1);
    fold_chunks(k, p, base, lo, mid, acc);
    fold_chunks(k, p, base, mid, hi, right);
    k->combine(acc, right, 1);
}

static void combine_tree(const nt_red_kernel *k, char *parts, int64_t lo, int64_t hi) {
    if (hi - lo == 1) return;
    int64_t mid = lo + (hi - lo) / 2;
    combine_tree(k, parts, lo, mid);
    combine_tree(k, parts, mid, hi);
    k->combine(parts + lo * (int64_t)k->acc_size, parts + mid * (int64_t)k->acc_size, 1);
}

static void chunk_task(void *ctx, int64_t b, int64_t e) {
    red_job *j = ctx;
    for (int64_t c = b; c < e; c++) {
        char *acc = j->partials + c * (int64_t)j->k->acc_size;
        int64_t hi = (c + 1) * RED_CHUNK;
        j->k->init(acc, 1);
        fold_range(j->k, j->p, j->base, c * RED_CHUNK, hi < j->p->nred ? hi : j->p->nred, acc);
    }
}

/* One output folded with its chunks in parallel; `parts` holds nchunks accumulators. */
static void fold_output_parallel(red_job *j, const char *base, char *acc) {
    j->base = base;
    nt_parallel_for(0, j->nchunks, 1, chunk_task, j);
    if (j->nchunks > 1) {
        /* fold_chunks' tree: left half into [0], right half into [mid], then combined. */
        combine_tree(j->k, j->partials, 0, j->nchunks);
    }
    memcpy(acc, j->partials, j->k->acc_size);
}

static void fold_output(const nt_red_kernel *k, const nt_red_plan *p, const char *base, char *acc) {
    int64_t nc = chunk_count(p->nred);
    if (nc <= 1)
        fold_range(k, p, base, 0, p->nred, acc);
    else
        fold_chunks(k, p, base, 0, nc, acc);
}

/* Inner schedule: outputs [b, e), each folded whole. */
static void inner_task(void *ctx, int64_t b, int64_t e) {
    const red_job *j = ctx;
    const nt_red_plan *p = j->p;
    if (j->contig_runs) { /* the kernel folds and stores the runs itself */
        j->k->runs(p->out + b * p->kout[0], p->kout[0], j->out_dtype, p->in + b * p->kin[0], e - b,
                   p->kin[0], p->nred, &j->prm);
        return;
    }
    char acc[NT_RED_MAX_ACC];
    /* One run per output (the usual case): no cascade, no chunks. */
    bool one_run = p->nr <= 1 && p->nred <= RED_CHUNK;
    int64_t n = p->nr ? p->rs[0] : 1, s = p->nr ? p->rin[0] : 0;
    for (int64_t o = b; o < e; o++) {
        int64_t in, out;
        nt_red_plan_offsets(p, o, &in, &out, NULL);
        j->k->init(acc, 1);
        if (one_run)
            j->k->run(acc, p->in + in, n, s);
        else
            fold_output(j->k, p, p->in + in, acc);
        j->k->store(p->out + out, j->out_dtype, acc, &j->prm);
    }
}

/* Outer schedule. The R rows are cut into chunks of `rchunk` rows (fixed by the shape);
 * work item w covers row chunk c, kept-space row `row` and lane tile `tile`, chunk-major,
 * so a thread streams whole consecutive rows. A lane's value depends only on its column
 * and the chunking, never on the tile width, so tiles may follow the thread count. With
 * several chunks, each item leaves its partial accumulators in `partials` and a second
 * pass combines them per lane as a fixed binary tree over chunks. */
typedef struct outer_job {
    const nt_red_kernel *k;
    const nt_red_plan *p;
    nt_red_plan rest; /* the plan without its lane dim: the other kept dims */
    nt_red_params prm;
    nt_dtype out_dtype;
    int64_t lanes, width, tiles, rows_k, rchunk, nrc;
    char *partials; /* [chunk][row][lane] accumulators when nrc > 1 */
    _Atomic int failed;
} outer_job;

static char *outer_part(const outer_job *j, int64_t c, int64_t row, int64_t lane) {
    return j->partials + ((c * j->rows_k + row) * j->lanes + lane) * (int64_t)j->k->acc_size;
}

static void outer_store(const outer_job *j, int64_t row, int64_t l0, int64_t n, const char *acc) {
    int64_t in, out;
    nt_red_plan_offsets(&j->rest, row, &in, &out, NULL);
    char *o = j->p->out + out + l0 * j->p->kout[0];
    for (int64_t i = 0; i < n; i++)
        j->k->store(o + i * j->p->kout[0], j->out_dtype, acc + (size_t)i * j->k->acc_size, &j->prm);
}

static void outer_fold_task(void *ctx, int64_t b, int64_t e) {
    outer_job *j = ctx;
    const nt_red_plan *p = j->p;
    const nt_red_kernel *k = j->k;
    size_t as = k->acc_size, level = (size_t)j->width * as;
    char *buf = malloc(RED_LEVELS * level);
    if (!buf) {
        atomic_store(&j->failed, 1);
        return;
    }
    char *lv[RED_LEVELS];
    for (int l = 0; l < RED_LEVELS; l++)
        lv[l] = buf + (size_t)l * level;
    for (int64_t w = b; w < e; w++) {
        int64_t c = w / (j->rows_k * j->tiles), rem = w % (j->rows_k * j->tiles);
        int64_t row = rem / j->tiles, l0 = (rem % j->tiles) * j->width;
        int64_t n = j->lanes - l0 < j->width ? j->lanes - l0 : j->width;
        int64_t r0 = c * j->rchunk, r1 = r0 + j->rchunk < p->nred ? r0 + j->rchunk : p->nred;
        int64_t in, out;
        nt_red_plan_offsets(&j->rest, row, &in, &out, NULL);
        const char *base = p->in + in + l0 * p->kin[0];
        int fill[RED_LEVELS] = {0};
        for (int l = 0; l < RED_LEVELS; l++)
            k->init(lv[l], n);
        int64_t cnt[NT_MAX_DIMS], off = 0, rest = r0;
        for (int d = 0; d < p->nr; d++) {
            cnt[d] = rest % p->rs[d];
            rest /= p->rs[d];
            off += cnt[d] * p->rin[d];
        }
        for (int64_t r = r0; r < r1; r++) {
            k->rows(lv[0], base + off, n, p->kin[0]);
            for (int l = 0; l < RED_LEVELS - 1 && ++fill[l] == 16; l++) {
                k->combine(lv[l + 1], lv[l], n);
                k->init(lv[l], n);
                fill[l] = 0;
            }
            for (int d = 0; d < p->nr; d++) {
                off += p->rin[d];
                if (++cnt[d] < p->rs[d]) break;
                off -= cnt[d] * p->rin[d];
                cnt[d] = 0;
            }
        }
        for (int l = 0; l < RED_LEVELS - 1; l++)
            k->combine(lv[l + 1], lv[l], n);
        if (j->nrc == 1)
            outer_store(j, row, l0, n, lv[RED_LEVELS - 1]);
        else
            memcpy(outer_part(j, c, row, l0), lv[RED_LEVELS - 1], (size_t)n * as);
    }
    free(buf);
}

/* Chunks [lo, hi) of lanes [l0, l0 + n) of `row` combined into chunk lo's accumulators. */
static void outer_tree(const outer_job *j, int64_t row, int64_t l0, int64_t n, int64_t lo,
                       int64_t hi) {
    if (hi - lo == 1) return;
    int64_t mid = lo + (hi - lo) / 2;
    outer_tree(j, row, l0, n, lo, mid);
    outer_tree(j, row, l0, n, mid, hi);
    j->k->combine(outer_part(j, lo, row, l0), outer_part(j, mid, row, l0), n);
}

static void outer_combine_task(void *ctx, int64_t b, int64_t e) {
    const outer_job *j = ctx;
    for (int64_t w = b; w < e; w++) {
        int64_t row = w / j->tiles, l0 = (w % j->tiles) * j->width;
        int64_t n = j->lanes - l0 < j->width ? j->lanes - l0 : j->width;
        outer_tree(j, row, l0, n, 0, j->nrc);
        outer_store(j, row, l0, n, outer_part(j, 0, row, l0));
    }
}

static nt_status run_outer(const nt_red_kernel *k, const nt_red_plan *p, const nt_red_params *prm,
                           nt_dtype out_dtype) {
    outer_job j = {.k = k, .p = p, .rest = *p, .prm = *prm, .out_dtype = out_dtype};
    j.rest.nk = p->nk - 1;
    memmove(j.rest.ks, p->ks + 1, (size_t)j.rest.nk * sizeof *j.rest.ks);
    memmove(j.rest.kin, p->kin + 1, (size_t)j.rest.nk * sizeof *j.rest.kin);
    memmove(j.rest.kout, p->kout + 1, (size_t)j.rest.nk * sizeof *j.rest.kout);
    j.lanes = p->ks[0];
    j.rows_k = p->nout / j.lanes;
    /* Row chunks: fixed by the shape (never by the thread count), at most 256 of them. */
    j.rchunk = (p->nred + 255) / 256;
    if (j.rchunk < RED_ROW_CHUNK) j.rchunk = RED_ROW_CHUNK;
    j.nrc = (p->nred + j.rchunk - 1) / j.rchunk;
    /* Tiles: at most RED_TILE_BYTES of accumulators per level, narrower when that leaves
     * threads idle (at least 16 lanes). */
    int64_t threads = nt_get_num_threads();
    j.width = RED_TILE_BYTES / (int64_t)k->acc_size;
    if (j.width > j.lanes) j.width = j.lanes;
    while (j.width > 16 && j.nrc * j.rows_k * ((j.lanes + j.width - 1) / j.width) < 2 * threads)
        j.width = (j.width / 2 + 15) / 16 * 16;
    j.tiles = (j.lanes + j.width - 1) / j.width;
    size_t pbytes = j.nrc > 1 ? (size_t)j.nrc * (size_t)p->nout * k->acc_size : 0;
    if (pbytes) {
        j.partials = malloc(pbytes);
        if (!j.partials) return nt_fail_oom(pbytes);
    }
    atomic_store(&j.failed, 0);
    int64_t items = j.nrc * j.rows_k * j.tiles;
    int64_t per_item = (j.rchunk < p->nred ? j.rchunk : p->nred) * j.width;
    nt_parallel_for(0, items, NT_GRAIN_SIZE / per_item + 1, outer_fold_task, &j);
    if (j.nrc > 1 && !atomic_load(&j.failed))
        nt_parallel_for(0, j.rows_k * j.tiles, NT_GRAIN_SIZE / (j.nrc * j.width) + 1,
                        outer_combine_task, &j);
    free(j.partials);
    if (atomic_load(&j.failed)) return nt_fail_oom(RED_LEVELS * (size_t)j.width * k->acc_size);
    return NT_OK;
}

static void empty_task(void *ctx, int64_t b, int64_t e) {
    const red_job *j = ctx;
    char acc[NT_RED_MAX_ACC];
    j->k->init(acc, 1);
    for (int64_t o = b; o < e; o++) {
        int64_t in, out;
        nt_red_plan_offsets(j->p, o, &in, &out, NULL);
        j->k->store(j->p->out + out, j->out_dtype, acc, &j->prm);
    }
}

/* Folds `t` over `mask` into `out` (allocated, the right shape) with kernel k. */
static nt_status run_reduction(const nt_red_kernel *k, const nt_tensor *t, uint64_t mask,
                               bool keepdim, nt_tensor *out, const nt_red_params *prm) {
    nt_red_plan p;
    nt_red_plan_build(&p, t, mask, keepdim, out, NULL);
    red_job j = {.k = k, .p = &p, .prm = *prm, .out_dtype = out->dtype};
    j.prm.count = p.nred;
    if (p.nout == 0) return NT_OK;
    if (p.nred == 0) {
        nt_parallel_for(0, p.nout, NT_GRAIN_SIZE, empty_task, &j);
        return NT_OK;
    }
    bool inner = p.nk == 0 || (p.nr > 0 && abs64(p.rin[0]) < abs64(p.kin[0]));
    if (!inner) return run_outer(k, &p, &j.prm, out->dtype);
    int64_t nc = chunk_count(p.nred);
    if (nc > 1 && p.nout < 2 * nt_get_num_threads() + 2) {
        /* Few long outputs: chunks in parallel (same tree as the serial fold). */
        j.nchunks = nc;
        j.partials = malloc((size_t)nc * k->acc_size);
        if (!j.partials) return nt_fail_oom((size_t)nc * k->acc_size);
        char acc[NT_RED_MAX_ACC];
        for (int64_t o = 0; o < p.nout; o++) {
            int64_t in, off;
            nt_red_plan_offsets(&p, o, &in, &off, NULL);
            fold_output_parallel(&j, p.in + in, acc);
            k->store(p.out + off, out->dtype, acc, &j.prm);
        }
        free(j.partials);
        return NT_OK;
    }
    j.contig_runs = k->runs && p.nk == 1 && p.nr == 1 && nc <= 1 &&
                    p.rin[0] == (int64_t)nt_dtype_table[t->dtype].size;
    nt_parallel_for(0, p.nout, NT_GRAIN_SIZE / p.nred + 1, inner_task, &j);
    return NT_OK;
}

/* ------------------------------------------------------------------ dims and dtypes */

static nt_status dims_mask(const nt_tensor *t, int count, const int64_t *dims, uint64_t *mask) {
    if (count < 0) return nt_fail(NT_ERR_VALUE, "a negative number of dims (%d)", count);
    if (count == 0) {
        *mask = t->ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << t->ndim) - 1);
        return NT_OK;
    }
    if (!dims) return nt_fail(NT_ERR_VALUE, "%d dims given but the dims pointer is NULL", count);
    NT_TRY(nt_dim_list_mask(t->ndim, count, dims, mask));
    if (t->ndim == 0) *mask = 0; /* a 0-dim tensor reduced over dim 0 or -1 */
    return NT_OK;
}

nt_status nt_dims_from_names(const nt_tensor *t, int count, const nt_name *names, int64_t *dims) {
    if (!t) return nt_fail_null_tensor("dims_from_names", "self");
    if (count > 0 && (!names || !dims))
        return nt_fail(NT_ERR_VALUE, "dims_from_names(): NULL names or dims");
    return nt_names_resolve_dims(t, count, names, dims);
}

/* The dtype a reduction computes in and returns, and the dtype its input is converted to
 * first (PyTorch converts the input when dtype= is given). */
static nt_status pick_dtypes(nt_reduction op, const nt_tensor *t, int dtype, nt_dtype *in_dtype,
                             nt_dtype *out_dtype) {
    nt_dtype d = t->dtype;
    bool is_float = nt_dtype_table[d].kind == NT_KIND_FLOAT;
    if (dtype >= 0 && !nt_dtype_valid(dtype))
        return nt_fail(NT_ERR_TYPE, "invalid dtype %d", dtype);
    *in_dtype = d;
    switch (op) {
    case NT_REDUCE_SUM:
    case NT_REDUCE_PROD:
        if (dtype >= 0) {
            *in_dtype = *out_dtype = (nt_dtype)dtype;
        } else {
            *out_dtype = is_float ? d : NT_INT64;
        }
        if (op == NT_REDUCE_PROD && !nt_red_kernel_for(NT_RED_PROD, *in_dtype))
            return nt_red_not_implemented("prod_cpu", *in_dtype);
        return NT_OK;
    case NT_REDUCE_MEAN:
        if (dtype >= 0) {
            if (nt_dtype_table[dtype].kind != NT_KIND_FLOAT)
                return nt_fail(NT_ERR_RUNTIME,
                               "mean(): could not infer output dtype. Optional dtype must be "
                               "either a floating point or complex dtype. Got: %s",
                               nt_red_dtype_text((nt_dtype)dtype));
            *in_dtype = *out_dtype = (nt_dtype)dtype;
            return NT_OK;
        }
        if (!is_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype. Got: %s",
                           nt_red_dtype_text(d));
        *out_dtype = d;
        return NT_OK;
    case NT_REDUCE_VAR:
    case NT_REDUCE_STD:
        if (!is_float)
            return nt_fail(NT_ERR_RUNTIME,
                           "std and var only support floating point and complex dtypes");
        *out_dtype = d;
        return NT_OK;
    case NT_REDUCE_LOGSUMEXP:
        if (d == NT_FLOAT16) return nt_red_not_implemented("exp_vml_cpu", d);
        *in_dtype = *out_dtype = is_float ? d : nt_default_dtype();
        return NT_OK;
    case NT_REDUCE_ALL:
    case NT_REDUCE_ANY:
        *out_dtype = d == NT_UINT8 ? NT_UINT8 : NT_BOOL;
        return NT_OK;
    case NT_REDUCE_AMAX:
    case NT_REDUCE_AMIN:
        *out_dtype = d;
        return NT_OK;
    default:
        return nt_fail(NT_ERR_VALUE, "unknown reduction %d", (int)op);
    }
}

static const nt_red_op kernel_op[] = {
    [NT_REDUCE_SUM] = NT_RED_SUM,   [NT_REDUCE_MEAN] = NT_RED_MEAN,
    [NT_REDUCE_PROD] = NT_RED_PROD, [NT_REDUCE_VAR] = NT_RED_VAR,
    [NT_REDUCE_STD] = NT_RED_VAR,   [NT_REDUCE_LOGSUMEXP] = NT_RED_LOGSUMEXP,
    [NT_REDUCE_ALL] = NT_RED_ALL,   [NT_REDUCE_ANY] = NT_RED_ANY,
    [NT_REDUCE_AMAX] = NT_RED_MAX,  [NT_REDUCE_AMIN] = NT_RED_MIN,
};

static const char *const op_names[] = {
    [NT_REDUCE_SUM] = "sum",  [NT_REDUCE_MEAN] = "mean", [NT_REDUCE_PROD] = "prod",
    [NT_REDUCE_VAR] = "var",  [NT_REDUCE_STD] = "std",   [NT_REDUCE_LOGSUMEXP] = "logsumexp",
    [NT_REDUCE_ALL] = "all",  [NT_REDUCE_ANY] = "any",   [NT_REDUCE_AMAX] = "max",
    [NT_REDUCE_AMIN] = "min",
};

static nt_status reduce(nt_reduction op, nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                        int dtype, double correction, nt_tensor *into, nt_tensor **out) {
    if ((int)op < 0 || op > NT_REDUCE_AMIN) return nt_fail(NT_ERR_VALUE, "unknown reduction");
    if (!t) return nt_fail_null_tensor(op_names[op], "self");
    if (!out && !into)
        return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", op_names[op]);
    uint64_t mask;
    NT_TRY(dims_mask(t, count, dims, &mask));
    nt_dtype in_dtype = t->dtype, out_dtype = t->dtype;
    NT_TRY(pick_dtypes(op, t, dtype, &in_dtype, &out_dtype));
    const nt_red_kernel *k = nt_red_kernel_for(kernel_op[op], in_dtype);
    if (!k) return nt_red_not_implemented(op_names[op], in_dtype);
    if ((op == NT_REDUCE_AMAX || op == NT_REDUCE_AMIN) && t->numel == 0) {
        if (count == 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.",
                           op_names[op]);
        for (int d = 0; d < t->ndim; d++)
            if ((mask >> d & 1u) && t->sizes[d] == 0)
                return nt_fail(NT_ERR_INDEX,
                               "%s(): Expected reduction dim %d to have non-zero size.",
                               op_names[op], d);
    }
    nt_name buf[NT_MAX_DIMS];
    int ndim;
    const nt_name *names = nt_names_remove_dims(t->names, t->ndim, mask, keepdim, buf, &ndim);
    int64_t sizes[NT_MAX_DIMS];
    nt_red_out_shape(t, mask, keepdim, &ndim, sizes);

    /* `t` itself, or its conversion to dtype=: the caller's reference keeps `t` alive, so
     * taking one (two atomic operations) is not needed */
    nt_tensor *converted = NULL, *result = NULL;
    const nt_tensor *src = t;
    nt_status st = NT_OK;
    if (in_dtype != t->dtype) {
        NT_CHECK(st, nt_to_dtype(t, in_dtype, &converted));
        src = converted;
    }
    NT_CHECK(st, nt_red_prepare(into, t, out_dtype, ndim, sizes, names, &result));
    nt_red_params prm = {.count = 0, .correction = correction, .take_sqrt = op == NT_REDUCE_STD};
    st = run_reduction(k, src, mask, keepdim, result, &prm);
    nt_tensor_release(converted);
    return nt_red_finish(st, into, result, names, out);
fail:
    nt_tensor_release(converted);
    return st;
}

/* ------------------------------------------------------------------ public reductions */

nt_status nt_reduce_out(nt_reduction op, nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                        int dtype, double correction, nt_tensor *out) {
    if (!out)
        return nt_fail_null_tensor(op >= 0 && op <= NT_REDUCE_AMIN ? op_names[op] : "reduce",
                                   "out");
    return reduce(op, t, count, dims, keepdim, dtype, correction, out, NULL);
}

nt_status nt_sum(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                 nt_tensor **out) {
    return reduce(NT_REDUCE_SUM, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_mean(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                  nt_tensor **out) {
    return reduce(NT_REDUCE_MEAN, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_prod(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                  nt_tensor **out) {
    return reduce(NT_REDUCE_PROD, t, count, dims, keepdim, dtype, 0, NULL, out);
}

nt_status nt_var(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                 nt_tensor **out) {
    return reduce(NT_REDUCE_VAR, t, count, dims, keepdim, -1, correction, NULL, out);
}

nt_status nt_std(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                 nt_tensor **out) {
    return reduce(NT_REDUCE_STD, t, count, dims, keepdim, -1, correction, NULL, out);
}

nt_status nt_logsumexp(nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                       nt_tensor **out) {
    return reduce(NT_REDUCE_LOGSUMEXP, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_all(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_ALL, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_any(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_ANY, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_amax(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_AMAX, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_amin(nt_tensor *t, int count, const int64_t *dims, bool keepdim, nt_tensor **out) {
    return reduce(NT_REDUCE_AMIN, t, count, dims, keepdim, -1, 0, NULL, out);
}

nt_status nt_max_all(nt_tensor *t, nt_tensor **out) {
    return reduce(NT_REDUCE_AMAX, t, 0, NULL, false, -1, 0, NULL, out);
}

nt_status nt_min_all(nt_tensor *t, nt_tensor **out) {
    return reduce(NT_REDUCE_AMIN, t, 0, NULL, false, -1, 0, NULL, out);
}

/* var_mean / std_mean: both results from the same folding (the mean is the Welford mean,
 * written in the input dtype). */
static nt_status moments(nt_tensor *t, int count, const int64_t *dims, double correction,
                         bool keepdim, bool take_sqrt, nt_tensor **var, nt_tensor **mean) {
    if (!var || !mean) return nt_fail(NT_ERR_VALUE, "var_mean(): NULL output pointer");
    nt_tensor *v = NULL, *m = NULL;
    NT_TRY(reduce(take_sqrt ? NT_REDUCE_STD : NT_REDUCE_VAR, t, count, dims, keepdim, -1,
                  correction, NULL, &v));
    nt_status st = reduce(NT_REDUCE_MEAN, t, count, dims, keepdim, -1, 0, NULL, &m);
    if (st != NT_OK) {
        nt_tensor_release(v);
        return st;
    }
    *var = v;
    *mean = m;
    return NT_OK;
}

nt_status nt_var_mean(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                      nt_tensor **var, nt_tensor **mean) {
    return moments(t, count, dims, correction, keepdim, false, var, mean);
}

nt_status nt_std_mean(nt_tensor *t, int count, const int64_t *dims, double correction, bool keepdim,
                      nt_tensor **std, nt_tensor **mean) {
    return moments(t, count, dims, correction, keepdim, true, std, mean);
}

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
static nt_status arg_reduce(const char *fname, bool is_max, nt_tensor *t, int64_t dim, bool keepdim,
                            nt_tensor *into_v, nt_tensor *into_i, nt_tensor **values,
                            nt_tensor **indices) {
    if (!t) return nt_fail_null_tensor(fname, "self");
    int64_t d;
    NT_TRY(nt_wrap_dim(dim, t->ndim, &d));
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
        bool inner = p.nk == 0 || p.nr == 0 || abs64(p.rin[0]) < abs64(p.kin[0]);
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

nt_status nt_max_dim(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor **values,
                     nt_tensor **indices) {
    if (!values || !indices) return nt_fail(NT_ERR_VALUE, "max(): NULL output pointer");
    nt_tensor *v = NULL;
    NT_TRY(arg_reduce("max", true, t, dim, keepdim, NULL, NULL, &v, indices));
    *values = v;
    return NT_OK;
}

nt_status nt_min_dim(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor **values,
                     nt_tensor **indices) {
    if (!values || !indices) return nt_fail(NT_ERR_VALUE, "min(): NULL output pointer");
    nt_tensor *v = NULL;
    NT_TRY(arg_reduce("min", false, t, dim, keepdim, NULL, NULL, &v, indices));
    *values = v;
    return NT_OK;
}

nt_status nt_max_dim_out(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor *values,
                         nt_tensor *indices) {
    if (!values || !indices) return nt_fail_null_tensor("max", "out");
    return arg_reduce("max", true, t, dim, keepdim, values, indices, NULL, NULL);
}

nt_status nt_min_dim_out(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor *values,
                         nt_tensor *indices) {
    if (!values || !indices) return nt_fail_null_tensor("min", "out");
    return arg_reduce("min", false, t, dim, keepdim, values, indices, NULL, NULL);
}

static nt_status argmaxmin(const char *fname, bool is_max, nt_tensor *t, const int64_t *dim,
                           bool keepdim, nt_tensor **out) {
    if (!t) return nt_fail_null_tensor(fname, "self");
    if (!out) return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", fname);
    if (t->dtype == NT_BOOL)
        return nt_red_not_implemented(is_max ? "argmax_cpu" : "argmin_cpu", t->dtype);
    nt_tensor *values = NULL, *flat = NULL, *r = NULL;
    nt_status st;
    if (dim) {
        st = arg_reduce(fname, is_max, t, *dim, keepdim, NULL, NULL, &values, out);
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
    NT_CHECK(st, arg_reduce(fname, is_max, r, 0, false, NULL, NULL, &values, out));
    if (keepdim) {
        /* All dims kept with size one, names kept (argmax(keepdim=True) of a tensor). */
        int64_t ones[NT_MAX_DIMS];
        for (int i = 0; i < t->ndim; i++)
            ones[i] = 1;
        nt_tensor *shaped = NULL;
        st = nt_tensor_view_of(*out, t->ndim, ones, ones, 0, t->names, &shaped);
        nt_tensor_release(*out);
        *out = NULL;
        if (st != NT_OK) goto fail;
        *out = shaped;
    }
fail:
    nt_tensor_release(values);
    nt_tensor_release(flat);
    nt_tensor_release(r);
    return st;
}

nt_status nt_argmax(nt_tensor *t, const int64_t *dim, bool keepdim, nt_tensor **out) {
    return argmaxmin("argmax", true, t, dim, keepdim, out);
}

nt_status nt_argmin(nt_tensor *t, const int64_t *dim, bool keepdim, nt_tensor **out) {
    return argmaxmin("argmin", false, t, dim, keepdim, out);
}
