/*
 * reduce_engine.c — the reduce engine (reduce_engine.h): the plan, and folding a tensor over
 * some of its dims with a reduction kernel (nt_red_run), for the reductions of ops/reduce.c.
 *
 * The plan (nt_red_plan) splits the input's dims into kept dims K and
 * reduced dims R, each sorted by stride and coalesced. Then one of three schedules:
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
#include "reduce_engine.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"

/* Elements per chunk of a full reduction (fixed: the result must not depend on threads). */
#define RED_CHUNK 65536
/* Accumulator bytes per level of a tile of the outer schedule, and the cascade's depth. */
#define RED_TILE_BYTES 16384
/* Rows per chunk of the outer schedule (at least). */
#define RED_ROW_CHUNK 512
#define RED_LEVELS 4

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
nt_status nt_red_run(const nt_red_kernel *k, const nt_tensor *t, uint64_t mask, bool keepdim,
                     nt_tensor *out, const nt_red_params *prm) {
    nt_red_plan p;
    int last = t->ndim - 1;
    int64_t n = last >= 0 ? t->sizes[last] : 0;
    if (k->runs && t->is_contiguous && out->is_contiguous && last >= 0 &&
        mask == (uint64_t)1 << last && n >= 2 && t->numel / n >= 2 && chunk_count(n) <= 1) {
        /* contiguous rows over the last dim, the usual call: the plan nt_red_plan_build
         * makes for it (one kept run, one reduced run), without building it */
        p.nk = p.nr = 1;
        p.nout = t->numel / n, p.nred = p.rs[0] = n;
        p.rin[0] = (int64_t)nt_dtype_table[t->dtype].size, p.kin[0] = n * p.rin[0];
        p.kout[0] = (int64_t)nt_dtype_table[out->dtype].size;
        p.in = nt_tensor_bytes(t), p.out = nt_tensor_bytes(out), p.out2 = NULL;
    } else {
        nt_red_plan_build(&p, t, mask, keepdim, out, NULL);
    }
    red_job j = {.k = k, .p = &p, .prm = *prm, .out_dtype = out->dtype};
    j.prm.count = p.nred;
    if (p.nout == 0) return NT_OK;
    if (p.nred == 0) {
        nt_parallel_for(0, p.nout, NT_GRAIN_SIZE, empty_task, &j);
        return NT_OK;
    }
    bool inner = p.nk == 0 || (p.nr > 0 && nt_red_abs64(p.rin[0]) < nt_red_abs64(p.kin[0]));
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

/* ------------------------------------------------------------------ the plan */

/* Sorts n dims (sizes s, strides a, b, c: b and c may be NULL) by |a| and coalesces. */
static int sort_coalesce(int n, int64_t *s, int64_t *a, int64_t *b, int64_t *c) {
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && nt_red_abs64(a[j]) < nt_red_abs64(a[j - 1]); j--) {
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
    if (!t->is_contiguous || out2 || (out && !out->is_contiguous) || t->ndim >= 64 || t->numel == 0)
        return false;
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

/* a * b for element counts: 0 once b is 0, else saturated at INT64_MAX, since an empty
 * tensor's sizes may multiply past int64 before its 0 is reached. */
static int64_t count_mul(int64_t a, int64_t b) {
    int64_t r;
    if (a == 0 || b == 0) return 0;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

void nt_red_plan_build(nt_red_plan *p, const nt_tensor *t, uint64_t mask, bool keepdim,
                       const nt_tensor *out, const nt_tensor *out2) {
    if (plan_packed(p, t, mask, out, out2)) return;
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size;
    int64_t o1 = out ? (int64_t)nt_dtype_table[out->dtype].size : 0;
    int64_t o2 = out2 ? (int64_t)nt_dtype_table[out2->dtype].size : 0;
    p->nk = p->nr = 0;
    p->nout = p->nred = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (mask >> d & 1u)
            p->nred = count_mul(p->nred, t->sizes[d]);
        else
            p->nout = count_mul(p->nout, t->sizes[d]);
    }
    p->in = nt_tensor_bytes(t);
    p->out = out ? nt_tensor_bytes(out) : NULL;
    p->out2 = out2 ? nt_tensor_bytes(out2) : NULL;
    /* No output: nothing runs, and the strides (an empty tensor may have any) are left
     * alone. With outputs but an empty input (nred == 0), only the outputs are addressed:
     * no reduced dim is walked and the input's byte strides, which may not fit, count as
     * 0. Otherwise every operand is non-empty and its byte strides fit. */
    if (p->nout == 0) return;
    bool empty = t->numel == 0;
    int j = 0; /* the output dim of input dim d */
    for (int d = 0; d < t->ndim; d++) {
        bool reduced = mask >> d & 1u;
        int64_t size = t->sizes[d];
        if (reduced) {
            if (size != 1 && !empty) {
                p->rs[p->nr] = size;
                p->rin[p->nr++] = t->strides[d] * esize;
            }
            if (keepdim) j++;
            continue;
        }
        if (size != 1) {
            p->ks[p->nk] = size;
            p->kin[p->nk] = empty ? 0 : t->strides[d] * esize;
            p->kout[p->nk] = out ? out->strides[j] * o1 : 0;
            p->kout2[p->nk++] = out2 ? out2->strides[j] * o2 : 0;
        }
        j++;
    }
    p->nk = sort_coalesce(p->nk, p->ks, p->kin, p->kout, p->kout2);
    p->nr = sort_coalesce(p->nr, p->rs, p->rin, NULL, NULL);
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
