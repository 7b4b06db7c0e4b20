/*
 * search.c — unique and searchsorted (layer L4): the ops that find values in sorted order.
 *
 * unique counts integers of a small range (at most 4n + 1024 values) per value; otherwise
 * it sorts the input's elements (sort's stable merge sort) or, with dim, its slices along
 * dim (compared lexicographically) with their positions, then walks the sorted run once: the
 * first of each group of equal keys is an output, its group number the inverse of every member, the
 * group's length its count. Keys are int64 for int64 inputs and doubles otherwise (exact for every
 * other dtype); NaNs are unequal to everything, so each is its own group, as in PyTorch.
 * searchsorted runs PyTorch's binary searches (its comparisons, so NaNs land where PyTorch puts
 * them), one row of values per row of boundaries, rows in parallel.
 *
 * Names (docs/decisions_ops_everyday.md): unique's output is unnamed without dim and keeps
 * the names with dim, its inverse keeps the input's names without dim; searchsorted's result
 * has the values' names.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "dispatch/dispatch.h"
#include "gather.h"
#include "ops/out.h"
#include "reduce.h"

/* ------------------------------------------------------------------ keys */

/* m keys per row, n rows, as int64 (exact) or double */
typedef struct keys {
    bool exact;
    int64_t n, m;
    int64_t *l;
    double *d;
} keys;

/* The rows of t (contiguous, 2-d (n, m)) as keys. */
static nt_status keys_of(const nt_tensor *t, keys *k) {
    k->exact = t->dtype == NT_INT64;
    k->n = t->sizes[0];
    k->m = t->sizes[1];
    size_t count = (size_t)(k->n * k->m > 0 ? k->n * k->m : 1);
    k->l = NULL;
    k->d = NULL;
    const char *p = nt_tensor_bytes(t);
    size_t esize = nt_dtype_table[t->dtype].size;
    if (k->exact) {
        k->l = malloc(count * sizeof *k->l);
        if (!k->l) return nt_fail_oom(count * sizeof *k->l);
        memcpy(k->l, p, (size_t)(k->n * k->m) * esize);
    } else {
        k->d = malloc(count * sizeof *k->d);
        if (!k->d) return nt_fail_oom(count * sizeof *k->d);
        for (int64_t i = 0; i < k->n * k->m; i++)
            k->d[i] = nt_load_double(p + (size_t)i * esize, t->dtype);
    }
    return NT_OK;
}

/* row a against row b: -1, 0, 1 (NaN above every number; two NaNs compare by position, so
 * they never make one group) */
static int row_cmp(const keys *k, int64_t a, int64_t b) {
    for (int64_t j = 0; j < k->m; j++) {
        if (k->exact) {
            int64_t x = k->l[a * k->m + j], y = k->l[b * k->m + j];
            if (x != y) return x < y ? -1 : 1;
            continue;
        }
        double x = k->d[a * k->m + j], y = k->d[b * k->m + j];
        bool xn = x != x, yn = y != y;
        if (xn || yn) {
            if (xn != yn) return xn ? 1 : -1;
            return a < b ? -1 : a > b;
        }
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

static _Thread_local const keys *sort_keys;

static int order_cmp(const void *pa, const void *pb) {
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    int c = row_cmp(sort_keys, a, b);
    return c ? c : (a > b) - (a < b); /* stable */
}

/* ------------------------------------------------------------------ unique */

static nt_status int64_vector(int64_t n, const int64_t *v, nt_tensor **out) {
    NT_TRY(nt_tensor_alloc(NT_INT64, 1, &n, NULL, out));
    if (n) memcpy(nt_tensor_bytes(*out), v, (size_t)n * sizeof *v);
    return NT_OK;
}

/* unique of n integer keys whose range is small (at most 4n + 1024 values): counted per
 * value, O(n + range), in sorted order; false (nothing written) when it does not apply */
static bool unique_by_counting(const keys *k, nt_dtype dtype, int64_t n, int64_t *reps,
                               int64_t *inv, int64_t *cnt, int64_t *groups) {
    if (nt_dtype_table[dtype].kind == NT_KIND_FLOAT || n == 0 || k->m != 1) return false;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = k->exact ? k->l[i] : (int64_t)k->d[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1;
    if (range == 0 || range > (uint64_t)n * 4 + 1024) return false;
    int64_t *group = malloc(range * sizeof *group), *first = malloc(range * sizeof *first);
    if (!group || !first) {
        free(group), free(first);
        return false;
    }
    memset(group, 0xff, range * sizeof *group); /* -1: no element */
    for (int64_t i = n - 1; i >= 0; i--) {      /* first occurrence of each value */
        uint64_t b = (uint64_t)(k->exact ? k->l[i] : (int64_t)k->d[i]) - (uint64_t)lo;
        first[b] = i;
        group[b] = 0;
    }
    int64_t g = 0;
    for (uint64_t b = 0; b < range; b++)
        if (group[b] == 0) {
            reps[g] = first[b];
            cnt[g] = 0;
            group[b] = g++;
        }
    for (int64_t i = 0; i < n; i++) {
        uint64_t b = (uint64_t)(k->exact ? k->l[i] : (int64_t)k->d[i]) - (uint64_t)lo;
        inv[i] = group[b];
        cnt[group[b]]++;
    }
    *groups = g;
    free(group), free(first);
    return true;
}

/* unique(self, sorted, return_inverse, return_counts, dim): the output alone (result[0])
 * or a list of it and the asked-for inverse and counts */
nt_status nt_impl_unique(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    bool want_inverse = c->args[2].kind == NT_ARG_BOOL && c->args[2].v.b;
    bool want_counts = c->args[3].kind == NT_ARG_BOOL && c->args[3].v.b;
    bool by_dim = c->args[4].kind == NT_ARG_DIM;
    int64_t d = 0;
    if (by_dim) {
        NT_TRY(nt_tensor_dim(t, c->args[4].v.dim, &d));
        if (t->ndim == 0) return nt_fail(NT_ERR_INDEX, "unique(): dim given for a 0-dim tensor");
    }
    nt_status st = NT_OK;
    nt_tensor *moved = NULL, *rows = NULL, *flat = NULL, *out = NULL, *inverse = NULL,
              *counts = NULL, *reps_t = NULL;
    int64_t *order = NULL, *reps = NULL, *inv = NULL, *cnt = NULL;
    keys k = {0};
    /* the rows: slices along dim, or single elements */
    int64_t n = by_dim ? t->sizes[d] : t->numel, m = n ? (by_dim ? t->numel / n : 1) : 0;
    if (by_dim && n == 0) m = 0;
    int64_t shape[2] = {n, m};
    nt_tensor *unnamed = NULL;
    NT_CHECK(st, nt_rename(t, NULL, &unnamed));
    if (by_dim) {
        st = nt_movedim(unnamed, 1, &(nt_dim){d}, &(int64_t){0}, &moved);
        nt_tensor_release(unnamed);
        if (st != NT_OK) goto fail;
    } else {
        moved = unnamed;
    }
    NT_CHECK(st, nt_reshape(moved, 2, shape, &rows));
    nt_tensor_release(moved);
    NT_CHECK(st, nt_contiguous(rows, &moved));
    nt_tensor_release(rows);
    rows = moved;
    moved = NULL;
    NT_CHECK(st, keys_of(rows, &k));
    size_t bytes = (size_t)(n ? n : 1) * sizeof(int64_t);
    order = malloc(bytes), reps = malloc(bytes), inv = malloc(bytes), cnt = malloc(bytes);
    if (!order || !reps || !inv || !cnt) {
        st = nt_fail_oom(4 * bytes);
        goto fail;
    }
    int64_t groups = 0;
    if (!by_dim && unique_by_counting(&k, t->dtype, n, reps, inv, cnt, &groups)) goto output;
    for (int64_t i = 0; i < n; i++)
        order[i] = i;
    if (m == 1 && n > 1) { /* single elements: the sort op's merge sort */
        nt_tensor *col = NULL, *sv = NULL, *si = NULL;
        NT_CHECK(st, nt_reshape(rows, 1, &n, &col));
        st = nt_sort(col, 0, false, true, &sv, &si);
        nt_tensor_release(col);
        nt_tensor_release(sv);
        if (st != NT_OK) goto fail;
        memcpy(order, nt_tensor_bytes(si), (size_t)n * sizeof *order);
        nt_tensor_release(si);
    } else if (n > 1 && m > 0) { /* slices: lexicographic */
        sort_keys = &k;
        qsort(order, (size_t)n, sizeof *order, order_cmp);
    }
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || (m > 0 && row_cmp(&k, order[i - 1], order[i]) != 0)) {
            reps[groups] = order[i];
            cnt[groups++] = 0;
        }
        cnt[groups - 1]++;
        inv[order[i]] = groups - 1;
    }
output: /* the representatives' rows, back in their dim's place */
    NT_CHECK(st, int64_vector(groups, reps, &reps_t));
    if (by_dim) {
        NT_CHECK(st, nt_index_select(t, d, reps_t, &out));
    } else {
        NT_CHECK(st, nt_reshape(rows, 1, &n, &flat));
        NT_CHECK(st, nt_index_select(flat, 0, reps_t, &out));
    }
    if (!want_inverse && !want_counts) {
        c->result[0] = out;
        out = NULL;
        goto fail;
    }
    NT_CHECK(st, int64_vector(n, inv, &inverse));
    if (!by_dim) { /* the input's shape and names */
        nt_tensor *shaped = NULL;
        NT_CHECK(st, nt_reshape(inverse, t->ndim, t->sizes, &shaped));
        nt_tensor_release(inverse);
        inverse = shaped;
        if (t->names) NT_CHECK(st, nt_tensor_set_names(inverse, t->names));
    }
    NT_CHECK(st, int64_vector(groups, cnt, &counts));
    nt_tensor **list = malloc(3 * sizeof *list);
    if (!list) {
        st = nt_fail_oom(3 * sizeof *list);
        goto fail;
    }
    int64_t count = 0;
    list[count++] = out;
    if (want_inverse) list[count++] = inverse, inverse = NULL;
    if (want_counts) list[count++] = counts, counts = NULL;
    out = NULL;
    c->list = list;
    c->nlist = count;
fail:
    free(k.l), free(k.d), free(order), free(reps), free(inv), free(cnt);
    nt_tensor_release(rows);
    nt_tensor_release(flat);
    nt_tensor_release(out);
    nt_tensor_release(inverse);
    nt_tensor_release(counts);
    nt_tensor_release(reps_t);
    return st;
}

/* ------------------------------------------------------------------ searchsorted */

typedef struct search_job {
    const char *bd, *vals, *sorter;
    nt_dtype bdt, vdt;
    bool exact, right, int32, one_row;
    int64_t len, per_row; /* boundaries per row, values per row */
    char *out;
} search_job;

/* PyTorch's cus_lower_bound / cus_upper_bound over boundaries row b, values row r */
static void search_rows(void *ctx, int64_t b, int64_t e) {
    const search_job *j = ctx;
    size_t bsize = nt_dtype_table[j->bdt].size, vsize = nt_dtype_table[j->vdt].size;
    for (int64_t r = b; r < e; r++) {
        int64_t row = j->one_row ? 0 : r;
        const char *bd = j->bd + (size_t)(row * j->len) * bsize;
        const int64_t *so = j->sorter ? (const int64_t *)j->sorter + row * j->len : NULL;
        for (int64_t i = 0; i < j->per_row; i++) {
            const char *v = j->vals + (size_t)(r * j->per_row + i) * vsize;
            double vd = j->exact ? 0 : nt_load_double(v, j->vdt);
            int64_t vl = j->exact ? *(const int64_t *)v : 0;
            int64_t lo = 0, hi = j->len;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2, at = so ? so[mid] : mid;
                const char *p = bd + (size_t)at * bsize;
                bool go_right;
                if (j->exact) {
                    int64_t x = *(const int64_t *)p;
                    go_right = j->right ? !(x > vl) : !(x >= vl);
                } else {
                    double x = nt_load_double(p, j->bdt);
                    go_right = j->right ? !(x > vd) : !(x >= vd);
                }
                if (go_right)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (j->int32)
                ((int32_t *)j->out)[r * j->per_row + i] = (int32_t)lo;
            else
                ((int64_t *)j->out)[r * j->per_row + i] = lo;
        }
    }
}

/* searchsorted(sorted_sequence, self, *, out_int32, right, side, sorter): self a tensor or
 * (SEARCHSORTED_SCALAR) a number */
nt_status nt_impl_searchsorted(nt_call *c) {
    nt_tensor *bd = nt_call_tensor(c, 0), *vals = nt_call_tensor(c, 1),
              *sorter = nt_call_tensor(c, 5);
    bool int32 = c->args[2].kind == NT_ARG_BOOL && c->args[2].v.b;
    bool right = c->args[3].kind == NT_ARG_BOOL && c->args[3].v.b;
    const char *side = c->args[4].kind == NT_ARG_STR ? c->args[4].v.str : NULL;
    if (side) {
        bool is_right = strcmp(side, "right") == 0;
        if (!is_right && strcmp(side, "left") != 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "torch.searchsorted(): side can only be 'left' or 'right' but got %s",
                           side);
        if (right && !is_right)
            return nt_fail(NT_ERR_RUNTIME,
                           "torch.searchsorted(): side and right can't be set to opposites, got "
                           "side of left while right was True");
        right = is_right;
    }
    nt_status st = NT_OK;
    nt_tensor *v = NULL, *b = NULL, *s = NULL, *r = NULL;
    if (!vals) {
        NT_CHECK(st, nt_full(0, NULL, c->args[1].v.s, nt_scalar_dtype(c->args[1].v.s), NULL, &v));
    } else {
        NT_CHECK(st, nt_contiguous(vals, &v));
    }
    if (bd->ndim == 0) {
        st = nt_fail(NT_ERR_RUNTIME, "torch.searchsorted(): boundaries tensor should have positive "
                                     "dimension, but got 0 dimension");
        goto fail;
    }
    if (!vals && bd->ndim != 1) {
        st = nt_fail(NT_ERR_RUNTIME,
                     "torch.searchsorted(): input value can be a scalar only when boundaries "
                     "tensor dimension is 1, but we got boundaries tensor dim(%d) and input "
                     "value's dim(0) numel(1)",
                     bd->ndim);
        goto fail;
    }
    bool one_row = bd->ndim == 1;
    if (!one_row) {
        bool match = bd->ndim == v->ndim && bd->ndim > 0;
        for (int i = 0; match && i < bd->ndim - 1; i++)
            match = bd->sizes[i] == v->sizes[i];
        if (!match) {
            char a[256], x[256];
            nt_shape_text(bd, a, sizeof a);
            nt_shape_text(v, x, sizeof x);
            st = nt_fail(NT_ERR_RUNTIME,
                         "torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                         "first N-1 dimensions of boundaries tensor and input value tensor must "
                         "match, but we got boundaries tensor %s and input value tensor %s",
                         a, x);
            goto fail;
        }
    }
    if (sorter) {
        if (sorter->dtype != NT_INT64) {
            st = nt_fail(NT_ERR_RUNTIME,
                         "torch.searchsorted(): sorter must be a tensor of long dtype but got "
                         "dtype %s",
                         nt_dtype_legacy_name(sorter->dtype));
            goto fail;
        }
        bool same = sorter->ndim == bd->ndim;
        for (int i = 0; same && i < bd->ndim; i++)
            same = sorter->sizes[i] == bd->sizes[i];
        if (!same) {
            char a[256], x[256];
            st = nt_fail(NT_ERR_RUNTIME,
                         "torch.searchsorted(): boundary and sorter must have the same size, but "
                         "got boundary tensor %sand got sorter tensor %s",
                         nt_shape_text(bd, a, sizeof a), nt_shape_text(sorter, x, sizeof x));
            goto fail;
        }
        NT_CHECK(st, nt_contiguous(sorter, &s));
        const int64_t *so = (const int64_t *)nt_tensor_bytes(s);
        int64_t len = bd->sizes[bd->ndim - 1];
        for (int64_t i = 0; i < s->numel; i++)
            if (so[i] < 0 || so[i] >= len) { /* PyTorch 1.13 reads out of bounds here */
                st = nt_fail(NT_ERR_RUNTIME, "torch.searchsorted(): sorter index out of range");
                goto fail;
            }
    }
    NT_CHECK(st, nt_contiguous(bd, &b));
    NT_CHECK(st, nt_tensor_alloc(int32 ? NT_INT32 : NT_INT64, v->ndim, v->sizes,
                                 vals ? vals->names : NULL, &r));
    int64_t len = bd->ndim ? bd->sizes[bd->ndim - 1] : 1;
    int64_t per_row = v->ndim && !one_row ? v->sizes[v->ndim - 1] : v->numel;
    int64_t nrows = per_row ? v->numel / per_row : 0;
    if (one_row && v->numel) per_row = 1, nrows = v->numel;
    search_job j = {.bd = nt_tensor_bytes(b),
                    .vals = nt_tensor_bytes(v),
                    .sorter = s ? nt_tensor_bytes(s) : NULL,
                    .bdt = b->dtype,
                    .vdt = v->dtype,
                    .exact = b->dtype == NT_INT64 && v->dtype == NT_INT64,
                    .right = right,
                    .int32 = int32,
                    .one_row = one_row,
                    .len = len,
                    .per_row = per_row,
                    .out = nt_tensor_bytes(r)};
    if (len > 0 && nrows > 0)
        nt_parallel_for(0, nrows, NT_GRAIN_SIZE / (per_row * 8 + 1) + 1, search_rows, &j);
    else if (r->numel)
        memset(nt_tensor_bytes(r), 0, (size_t)r->numel * (int32 ? 4 : 8));
    if (c->out[0]) {
        nt_tensor *out = c->out[0];
        if (out->dtype != r->dtype) NT_CHECK(st, nt_red_check_out_dtype(out, r->dtype));
        NT_CHECK(st, nt_out_resize(out, r->ndim, r->sizes));
        NT_CHECK(st, nt_copy_values(out, r));
        c->result[0] = nt_tensor_retain(out);
    } else {
        c->result[0] = r;
        r = NULL;
    }
fail:
    nt_tensor_release(v);
    nt_tensor_release(b);
    nt_tensor_release(s);
    nt_tensor_release(r);
    return st;
}

/* the values' shape (a number: 0-dim) */
nt_status nt_shape_searchsorted(const nt_call *c, nt_shape *s) {
    const nt_tensor *v = nt_call_tensor(c, 1);
    s->ndim = 0;
    if (v) nt_shape_of_tensor(s, v);
    return NT_OK;
}

/* ------------------------------------------------------------------ public functions */

nt_status nt_unique(nt_tensor *t, bool sorted, bool return_inverse, bool return_counts,
                    const nt_dim *dim, nt_tensor **output, nt_tensor **inverse,
                    nt_tensor **counts) {
    if (!output) return nt_fail(NT_ERR_VALUE, "unique(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_UNIQUE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_bool(sorted);
    c.args[2] = nt_arg_bool(return_inverse && inverse);
    c.args[3] = nt_arg_bool(return_counts && counts);
    c.args[4] = dim ? nt_arg_dim(*dim) : nt_arg_none();
    NT_TRY(nt_call_op(&c));
    if (!c.list) {
        *output = c.result[0];
        return NT_OK;
    }
    int64_t at = 0;
    *output = c.list[at++];
    if (return_inverse && inverse) *inverse = c.list[at++];
    if (return_counts && counts) *counts = c.list[at++];
    free(c.list);
    return NT_OK;
}

nt_status nt_searchsorted(nt_tensor *sorted_sequence, nt_tensor *values, bool out_int32, bool right,
                          const nt_tensor *sorter, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "searchsorted(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_SEARCHSORTED);
    c.args[0] = nt_arg_tensor(sorted_sequence);
    c.args[1] = nt_arg_tensor(values);
    c.args[2] = nt_arg_bool(out_int32);
    c.args[3] = nt_arg_bool(right);
    c.args[4] = nt_arg_none();
    c.args[5] = nt_arg_tensor((nt_tensor *)sorter);
    NT_TRY(nt_call_op(&c));
    *out = c.result[0];
    return NT_OK;
}
