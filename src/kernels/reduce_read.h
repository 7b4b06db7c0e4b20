/*
 * reduce_read.h — the functions of var/std, logsumexp and argmax/argmin that read elements
 * of one dtype: plain functions, written once, compiled once per dtype by reduce_dtypes.h
 * for reduce_kernels.c, which holds the rest of those kernels (accumulators, merges,
 * stores). Not a header of its own (no include guard).
 *
 * Parameters (reduce_dtypes.h's): RK_E, RK_C the dtype's enum name and storage type,
 * RK_FLOATING defined for floating dtypes (var/std takes only those). Elements are read
 * with loops.h's NT_LD_<E>; argmax/argmin compare in MAXACC_<E> and find the extreme of a
 * contiguous run with max's and min's folds (max_pairwise_<E>).
 */

#define RK_FN(f) RK_CAT3(f, _, RK_E)
#define RK_LD RK_CAT(NT_LD_, RK_E)
#define RK_M RK_CAT(MAXACC_, RK_E)

/* ---- var / std */

#ifdef RK_FLOATING
/* A run: mean, then the sum of squared deviations (two passes over data in cache), merged
 * into the accumulator. Runs longer than a block are merged block by block. */
static void RK_FN(var_run)(void *acc, const char *p, int64_t n, int64_t s) {
    for (int64_t b = 0; b < n; b += RK_BLOCK) {
        int64_t m = n - b < RK_BLOCK ? n - b : RK_BLOCK;
        const char *q = p + b * s;
        double sum = 0, m2 = 0;
        for (int64_t i = 0; i < m; i++)
            sum += (double)RK_LD(*(const RK_C *)(q + i * s));
        double mean = sum / (double)m;
        for (int64_t i = 0; i < m; i++) {
            double d = (double)RK_LD(*(const RK_C *)(q + i * s)) - mean;
            m2 += d * d;
        }
        var_acc part = {(double)m, mean, m2};
        var_merge(acc, &part);
    }
}

/* One element per accumulator: Welford's update. */
static void RK_FN(var_rows)(void *acc, const char *p, int64_t n, int64_t s) {
    var_acc *a = acc;
    for (int64_t i = 0; i < n; i++) {
        double x = (double)RK_LD(*(const RK_C *)(p + i * s));
        double cnt = a[i].n + 1, d = x - a[i].mean;
        a[i].mean += d / cnt;
        a[i].m2 += d * (x - a[i].mean);
        a[i].n = cnt;
    }
}

static const nt_red_kernel RK_FN(var_kernel) = {
    sizeof(var_acc), var_init, RK_FN(var_run), RK_FN(var_rows), var_combine, var_store, NULL,
};
#endif

/* ---- logsumexp */

static void RK_FN(lse_run)(void *acc, const char *p, int64_t n, int64_t s) {
    lse_acc *a = acc;
    for (int64_t i = 0; i < n; i++)
        lse_push(a, (double)RK_LD(*(const RK_C *)(p + i * s)));
}

static void RK_FN(lse_rows)(void *acc, const char *p, int64_t n, int64_t s) {
    lse_acc *a = acc;
    for (int64_t i = 0; i < n; i++)
        lse_push(&a[i], (double)RK_LD(*(const RK_C *)(p + i * s)));
}

static const nt_red_kernel RK_FN(lse_kernel) = {
    sizeof(lse_acc), lse_init, RK_FN(lse_run), RK_FN(lse_rows), lse_combine, lse_store, NULL,
};

/* ---- argmax / argmin */

/* x replaces the best so far b: NaN wins over any number, and a later NaN does not replace
 * an earlier one (x != x: x is NaN; always false for integers, which GCC would point out). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
static inline bool RK_FN(better)(bool is_max, RK_M x, RK_M b) {
    return !(b != b) && ((is_max ? x > b : x < b) || x != x);
}

/* The first extreme of n elements: with a contiguous run of 32 or more, the vector extreme
 * (max's or min's fold) and then its first place; else one scan with better(). */
__attribute__((always_inline)) static inline void
RK_FN(arg_run)(bool is_max, const char *p, int64_t n, int64_t s, char *value, int64_t *index) {
    if (s == (int64_t)sizeof(RK_C) && n >= 32) {
        RK_M m =
            is_max ? RK_CAT(max_pairwise_, RK_E)(p, n, s) : RK_CAT(min_pairwise_, RK_E)(p, n, s);
        const RK_C *q = (const RK_C *)p;
        int64_t i = 0;
        if (m != m) {
            while (i < n - 1 && !(RK_LD(q[i]) != RK_LD(q[i])))
                i++;
        } else {
            while (i < n - 1 && !(RK_LD(q[i]) == m))
                i++;
        }
        memcpy(value, q + i, sizeof(RK_C));
        *index = i;
        return;
    }
    int64_t bi = 0;
    RK_M b = RK_LD(*(const RK_C *)p);
    for (int64_t i = 1; i < n; i++) {
        RK_M x = RK_LD(*(const RK_C *)(p + i * s));
        if (RK_FN(better)(is_max, x, b)) b = x, bi = i;
    }
    memcpy(value, p + bi * s, sizeof(RK_C));
    *index = bi;
}
#pragma GCC diagnostic pop

/* Lane i of the row at p against the best so far (best[i]): the row number where better. */
__attribute__((always_inline)) static inline void
RK_FN(arg_rows)(bool is_max, char *best, int64_t bs, int64_t *idx, int64_t is, const char *p,
                int64_t n, int64_t s, int64_t row) {
    for (int64_t i = 0; i < n; i++) {
        RK_M x = RK_LD(*(const RK_C *)(p + i * s));
        RK_M b = RK_LD(*(const RK_C *)(best + i * bs));
        if (RK_FN(better)(is_max, x, b)) {
            memcpy(best + i * bs, p + i * s, sizeof(RK_C));
            idx[i * is] = row;
        }
    }
}

static void RK_FN(argmax_run)(const char *p, int64_t n, int64_t s, char *value, int64_t *index) {
    RK_FN(arg_run)(true, p, n, s, value, index);
}

static void RK_FN(argmin_run)(const char *p, int64_t n, int64_t s, char *value, int64_t *index) {
    RK_FN(arg_run)(false, p, n, s, value, index);
}

static void RK_FN(argmax_rows)(char *best, int64_t bs, int64_t *idx, int64_t is, const char *p,
                               int64_t n, int64_t s, int64_t row) {
    RK_FN(arg_rows)(true, best, bs, idx, is, p, n, s, row);
}

static void RK_FN(argmin_rows)(char *best, int64_t bs, int64_t *idx, int64_t is, const char *p,
                               int64_t n, int64_t s, int64_t row) {
    RK_FN(arg_rows)(false, best, bs, idx, is, p, n, s, row);
}

#undef RK_FN
#undef RK_LD
#undef RK_M
#undef RK_E
#undef RK_C
#undef RK_FLOATING
