/*
 * sort_kernels.c — the per-row work of the order statistics (layer L3); see sort_kernels.h.
 *
 * A row is gathered into (key, index) pairs and sorted by a stable merge sort; keys are
 * doubles (exact for every dtype but int64, which keeps int64 keys). NaN sorts above every
 * number and ties keep their index order, so results are reproducible: among equal values
 * the first index is reported (the last for mode, as PyTorch does). Values are copied from
 * the input element itself, so they are exact.
 */
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

/* Whether x goes before y in the op's order (ascending with NaN last, or descending with NaN
 * first); equal keys are left in place, so a stable sort of pairs in index order puts ties
 * in index order. */
static inline bool before_d(double x, double y, bool desc) {
    bool xn = x != x, yn = y != y;
    if (xn || yn) return desc ? xn && !yn : yn && !xn;
    return desc ? x > y : x < y;
}
static inline bool before_l(int64_t x, int64_t y, bool desc) {
    return desc ? x > y : x < y;
}

/* A stable merge sort of n pairs (insertion-sorted runs of 16, then merges through tmp),
 * comparisons inline: one per pair type. */
#define MERGE_SORT(NAME, PAIR, BEFORE)                                                             \
    static void NAME(PAIR *a, PAIR *tmp, int64_t n, bool desc) {                                   \
        for (int64_t s = 0; s < n; s += 16) {                                                      \
            int64_t e = s + 16 < n ? s + 16 : n;                                                   \
            for (int64_t i = s + 1; i < e; i++) {                                                  \
                PAIR v = a[i];                                                                     \
                int64_t k = i;                                                                     \
                for (; k > s && BEFORE(v.k, a[k - 1].k, desc); k--)                                \
                    a[k] = a[k - 1];                                                               \
                a[k] = v;                                                                          \
            }                                                                                      \
        }                                                                                          \
        PAIR *src = a, *dst = tmp;                                                                 \
        for (int64_t w = 16; w < n; w *= 2) {                                                      \
            for (int64_t s = 0; s < n; s += 2 * w) {                                               \
                int64_t m = s + w < n ? s + w : n, e = s + 2 * w < n ? s + 2 * w : n;              \
                int64_t i = s, j = m, o = s;                                                       \
                while (i < m && j < e)                                                             \
                    dst[o++] = BEFORE(src[j].k, src[i].k, desc) ? src[j++] : src[i++];             \
                while (i < m)                                                                      \
                    dst[o++] = src[i++];                                                           \
                while (j < e)                                                                      \
                    dst[o++] = src[j++];                                                           \
            }                                                                                      \
            PAIR *t = src;                                                                         \
            src = dst, dst = t;                                                                    \
        }                                                                                          \
        if (src != a) memcpy(a, src, (size_t)n * sizeof *a);                                       \
    }
MERGE_SORT(sort_pairs_d, pair_d, before_d)
MERGE_SORT(sort_pairs_l, pair_l, before_l)
#undef MERGE_SORT

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
    return 2 * (dtype == NT_INT64 ? sizeof(pair_l) : sizeof(pair_d)); /* the pairs and a copy */
}

void nt_sort_row(const nt_sort_params *j, void *pairs, const char *src, char *vout, char *iout) {
    size_t esize = nt_dtype_table[j->dtype].size;
    bool desc = j->op == NT_SORT_TOPK && j->largest;
    for (int64_t i = 0; i < j->n; i++) {
        const char *x = src + i * j->stride;
        if (j->dtype == NT_INT64)
            ((pair_l *)pairs)[i] = (pair_l){*(const int64_t *)x, i};
        else
            ((pair_d *)pairs)[i] = (pair_d){nt_load_double(x, j->dtype), i};
    }
    if (j->dtype == NT_INT64)
        sort_pairs_l(pairs, (pair_l *)pairs + j->n, j->n, desc);
    else
        sort_pairs_d(pairs, (pair_d *)pairs + j->n, j->n, desc);
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
