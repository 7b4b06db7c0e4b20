/*
 * sort_kernels.c — the per-row work of the order statistics (layer L3); see sort_kernels.h.
 *
 * A row is gathered into (key, index) pairs and sorted; keys are doubles (exact for every
 * dtype but int64, which keeps int64 keys). NaN sorts above every number and ties sort by
 * index, so the order is total and results are reproducible: among equal values the first
 * index is reported (the last for mode, as PyTorch does). Values are copied from the input
 * element itself, so they are exact.
 */
#include <stdlib.h>
#include <string.h>

#include "core/scalar.h"
#include "kernels/sort_kernels.h"

typedef struct pair_d {
    double k;
    int64_t i;
} pair_d;
typedef struct pair_l {
    int64_t k;
    int64_t i;
} pair_l;

/* Ascending, NaN last, ties by index. */
static int cmp_d(const void *a, const void *b) {
    const pair_d *x = a, *y = b;
    bool xn = x->k != x->k, yn = y->k != y->k;
    if (xn != yn) return xn ? 1 : -1;
    if (!xn && x->k != y->k) return x->k < y->k ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}
static int cmp_l(const void *a, const void *b) {
    const pair_l *x = a, *y = b;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}
/* Descending, NaN first, ties by index (topk largest). */
static int cmp_d_desc(const void *a, const void *b) {
    const pair_d *x = a, *y = b;
    bool xn = x->k != x->k, yn = y->k != y->k;
    if (xn != yn) return xn ? -1 : 1;
    if (!xn && x->k != y->k) return x->k > y->k ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}
static int cmp_l_desc(const void *a, const void *b) {
    const pair_l *x = a, *y = b;
    if (x->k != y->k) return x->k > y->k ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static bool equal_keys(const nt_sort_params *j, const void *pairs, int64_t a, int64_t b) {
    if (j->dtype == NT_INT64) return ((const pair_l *)pairs)[a].k == ((const pair_l *)pairs)[b].k;
    double x = ((const pair_d *)pairs)[a].k, y = ((const pair_d *)pairs)[b].k;
    return x == y || (x != x && y != y);
}

static int64_t index_at(const nt_sort_params *j, const void *pairs, int64_t pos) {
    return j->dtype == NT_INT64 ? ((const pair_l *)pairs)[pos].i : ((const pair_d *)pairs)[pos].i;
}

/* The position (in sorted order) an op reports, for the reducing ops. */
static int64_t pick(const nt_sort_params *j, const void *pairs) {
    int64_t n = j->n;
    if (j->op == NT_SORT_KTH) return j->k - 1;
    if (j->op == NT_SORT_MEDIAN) {
        if (j->dtype != NT_INT64) {
            const pair_d *pd = pairs;
            if (pd[n - 1].k != pd[n - 1].k) { /* some NaN: the first NaN (by index) */
                int64_t first = n - 1;
                while (first > 0 && pd[first - 1].k != pd[first - 1].k)
                    first--;
                return first;
            }
        }
        return (n - 1) / 2;
    }
    /* mode: the longest run of equal keys, the first (smallest) on ties; its last index. */
    int64_t best = 0, best_len = 0;
    for (int64_t s = 0; s < n;) {
        int64_t e = s + 1;
        while (e < n && equal_keys(j, pairs, s, e))
            e++;
        if (e - s > best_len) best_len = e - s, best = e - 1;
        s = e;
    }
    return best;
}

size_t nt_sort_pair_size(nt_dtype dtype) {
    return dtype == NT_INT64 ? sizeof(pair_l) : sizeof(pair_d);
}

void nt_sort_row(const nt_sort_params *j, void *pairs, const char *src, char *vout, char *iout) {
    size_t psize = nt_sort_pair_size(j->dtype);
    size_t esize = nt_dtype_table[j->dtype].size;
    int (*cmp)(const void *, const void *) =
        j->dtype == NT_INT64 ? (j->op == NT_SORT_TOPK && j->largest ? cmp_l_desc : cmp_l)
                             : (j->op == NT_SORT_TOPK && j->largest ? cmp_d_desc : cmp_d);
    for (int64_t i = 0; i < j->n; i++) {
        const char *x = src + i * j->stride;
        if (j->dtype == NT_INT64)
            ((pair_l *)pairs)[i] = (pair_l){*(const int64_t *)x, i};
        else
            ((pair_d *)pairs)[i] = (pair_d){nt_load_double(x, j->dtype), i};
    }
    qsort(pairs, (size_t)j->n, psize, cmp);
    if (j->op == NT_SORT_TOPK) {
        for (int64_t r = 0; r < j->k; r++) {
            int64_t idx = index_at(j, pairs, r);
            memcpy(vout + r * j->vstep, src + idx * j->stride, esize);
            *(int64_t *)(iout + r * j->istep) = idx;
        }
        return;
    }
    int64_t idx = index_at(j, pairs, pick(j, pairs));
    memcpy(vout, src + idx * j->stride, esize);
    *(int64_t *)iout = idx;
}
