/*
 * reduce_fold.h — the kernel of one scalar fold (sum, prod, max, min, all, any) for one
 * input dtype: plain functions, written once, compiled once per (fold, dtype) that
 * reduce_kernels.c lists. Not a header of its own (no include guard): reduce_dtypes.h
 * includes it once per dtype, for the fold reduce_kernels.c has defined.
 *
 * Parameters, defined by the includer:
 *   RK_FOLD   the fold's name, the prefix of every function here (sum: sum_run_NT_INT8,
 *             the kernel sum_kernel_NT_INT8)
 *   RK_OP     its op, an rk_op of reduce_kernels.c (RK_ADD, RK_MUL, RK_MAX, RK_MIN, RK_AND,
 *             RK_OR). The op, its identity, how an element enters the fold and whether NaN
 *             needs care are the inline functions right below, which switch on this constant:
 *             each instantiation compiles to its own op only
 *   RK_ACC(E) the fold's compute (accumulator) type for dtype E (sum's: SUMACC_E, uint64_t
 *             for NT_INT8)
 *   RK_E, RK_C  the dtype's enum name (NT_INT8) and storage type (int8_t); elements are read
 *             with loops.h's NT_LD_<E>
 *   RK_MEAN   (sum only) with RK_FLOATING (a floating dtype): also the mean kernel, sum's
 *             folding with a division in store
 *   RK_E, RK_C and RK_FLOATING are undefined at the end, ready for the next dtype.
 *
 * What the functions do (the fold's nt_red_kernel, reduce_kernels.h): contiguous blocks
 * keep 16 independent accumulators (an array, so that -O3 turns them into vector registers:
 * the order of the ops is fixed, so no fast-math is needed to vectorise), each fed 16
 * elements per partial of 256 that is then folded in (a two-level cascade), and fold them
 * as a tree at the end; runs longer than a block are split in halves on block boundaries
 * (pairwise). max/min vectorise as a plain compare-select and check for NaN alongside; a
 * block that saw one is redone exactly.
 */

#define RK_A RK_ACC(RK_E)
#define RK_FN(f) RK_CAT3(RK_FOLD, _##f##_, RK_E)
#define RK_LD RK_CAT(NT_LD_, RK_E)

/* The fold's identity: what init sets and every fold starts from. */
static inline RK_A RK_FN(ident)(void) {
    switch (RK_OP) {
    case RK_MUL:
    case RK_AND:
        return (RK_A)1;
    case RK_MAX:
        return (RK_A)RK_CAT(LOWEST_, RK_E);
    case RK_MIN:
        return (RK_A)RK_CAT(HIGHEST_, RK_E);
    default:
        return (RK_A)0;
    }
}

/* Element x as a value of the fold: its truth for all/any, else the value in the
 * accumulator's type (integers wrap into uint64 for sum and prod). */
static inline RK_A RK_FN(load)(RK_C x) {
    return RK_OP == RK_AND || RK_OP == RK_OR ? (RK_A)(RK_LD(x) != 0) : (RK_A)RK_LD(x);
}

/* a op b. max/min propagate NaN: once the accumulator is NaN it stays NaN. Every case
 * compiles for every compute type, though each fold takes one: GCC would point out that
 * b != b (b is NaN) is false for integers and a * b odd for bool.
 * Callers whose operands are both reads from memory read them into locals first, left to
 * right: GCC evaluates a call's arguments right to left, and the order of the reads decides
 * which operand an add or multiply instruction takes first, so which NaN (its sign) the op
 * returns when two NaNs meet; read in this order, results are those of the macro
 * kernels these functions replaced, bit for bit. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
static inline RK_A RK_FN(op)(RK_A a, RK_A b) {
    switch (RK_OP) {
    case RK_ADD:
        return a + b;
    case RK_MUL:
        return a * b;
    case RK_MAX:
        return (b > a || b != b) ? b : a;
    case RK_MIN:
        return (b < a || b != b) ? b : a;
    case RK_AND: /* truth bytes (as unsigned: floats have no &) */
        return (RK_A)((unsigned)a & (unsigned)b);
    default:
        return (RK_A)((unsigned)a | (unsigned)b);
    }
}
#pragma GCC diagnostic pop

/* Whether a NaN needs the exact op: the vector blocks fold with vop and check alongside. */
#define RK_NANP (RK_OP == RK_MAX || RK_OP == RK_MIN)

/* The op without NaN propagation: a plain compare-select, which the vectoriser takes. */
static inline RK_A RK_FN(vop)(RK_A a, RK_A b) {
    switch (RK_OP) {
    case RK_MAX:
        return b > a ? b : a;
    case RK_MIN:
        return b < a ? b : a;
    default:
        return RK_FN(op)(a, b);
    }
}

/* The AVX2 extreme of a contiguous block, when this fold and dtype have one (false: none,
 * or it declined). */
static inline bool RK_FN(fast)(const RK_C *q, int64_t n, RK_A *out) {
    switch (RK_OP) {
    case RK_MAX:
        return RK_CAT(FASTMAX_, RK_E)(q, n, out);
    case RK_MIN:
        return RK_CAT(FASTMIN_, RK_E)(q, n, out);
    default:
        return false;
    }
}

static void RK_FN(init)(void *acc, int64_t n) {
    RK_A *a = acc;
    for (int64_t i = 0; i < n; i++)
        a[i] = RK_FN(ident)();
}

static void RK_FN(combine)(void *acc, const void *other, int64_t n) {
    RK_A *restrict a = acc;
    const RK_A *restrict b = other;
    for (int64_t i = 0; i < n; i++) {
        RK_A x = a[i], y = b[i];
        a[i] = RK_FN(op)(x, y);
    }
}

RK_CLONES static void RK_FN(rows_contig)(RK_A *restrict a, const RK_C *restrict q, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        RK_A x = a[i], y = RK_FN(load)(q[i]);
        a[i] = RK_FN(op)(x, y);
    }
}

static void RK_FN(rows)(void *acc, const char *p, int64_t n, int64_t s) {
    RK_A *a = acc;
    if (s == (int64_t)sizeof(RK_C)) {
        RK_FN(rows_contig)(a, (const RK_C *)p, n);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        RK_A x = a[i], y = RK_FN(load)(*(const RK_C *)(p + i * s));
        a[i] = RK_FN(op)(x, y);
    }
}

static RK_A RK_FN(block_strided)(const char *p, int64_t n, int64_t s);

RK_CLONES static RK_A RK_FN(block_contig)(const RK_C *restrict q, int64_t n) {
    RK_A fast;
    if (RK_FN(fast)(q, n, &fast)) return fast;
    if (n < 16) {
        RK_A a = RK_FN(ident)();
        for (int64_t i = 0; i < n; i++)
            a = RK_FN(op)(a, RK_FN(load)(q[i]));
        return a;
    }
    RK_A v[16], w[16];
    RK_A isn[16]; /* x - x: 0, or NaN for NaN and inf (then the exact redo) */
    for (int j = 0; j < 16; j++)
        v[j] = RK_FN(ident)(), isn[j] = (RK_A)0;
    int64_t i = 0;
    for (; i + 256 <= n; i += 256) { /* 16 steps per partial, then into v: a cascade */
        for (int j = 0; j < 16; j++)
            w[j] = RK_FN(ident)();
        for (int k = 0; k < 256; k += 16)
            for (int j = 0; j < 16; j++) {
                RK_A x = RK_FN(load)(q[i + k + j]);
                w[j] = RK_FN(vop)(w[j], x);
                if (RK_NANP) isn[j] = isn[j] + (RK_A)(x - x);
            }
        for (int j = 0; j < 16; j++) {
            RK_A x = v[j], y = w[j];
            v[j] = RK_FN(vop)(x, y);
        }
    }
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++) {
            RK_A x = RK_FN(load)(q[i + j]);
            v[j] = RK_FN(vop)(v[j], x);
            if (RK_NANP) isn[j] = isn[j] + (RK_A)(x - x);
        }
    for (; i < n; i++) {
        RK_A x = v[0], y = RK_FN(load)(q[i]);
        v[0] = RK_FN(op)(x, y);
    }
    if (RK_NANP) {
        bool any = false;
        for (int j = 0; j < 16; j++)
            any |= isn[j] != 0;
        if (any) return RK_FN(block_strided)((const char *)q, n, (int64_t)sizeof(RK_C));
    }
    for (int h = 8; h > 0; h /= 2)
        for (int j = 0; j < h; j++) {
            RK_A x = v[j], y = v[j + h];
            v[j] = RK_FN(op)(x, y);
        }
    return v[0];
}

static RK_A RK_FN(block_strided)(const char *p, int64_t n, int64_t s) {
    RK_A v[4] = {RK_FN(ident)(), RK_FN(ident)(), RK_FN(ident)(), RK_FN(ident)()};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int j = 0; j < 4; j++) {
            RK_A x = v[j], y = RK_FN(load)(*(const RK_C *)(p + (i + j) * s));
            v[j] = RK_FN(op)(x, y);
        }
    for (; i < n; i++) {
        RK_A x = v[0], y = RK_FN(load)(*(const RK_C *)(p + i * s));
        v[0] = RK_FN(op)(x, y);
    }
    RK_A x0 = v[0], x2 = v[2];
    v[0] = RK_FN(op)(x0, x2);
    RK_A x1 = v[1], x3 = v[3];
    v[1] = RK_FN(op)(x1, x3);
    x0 = v[0], x1 = v[1];
    return RK_FN(op)(x0, x1);
}

static RK_A RK_FN(pairwise)(const char *p, int64_t n, int64_t s) {
    if (n <= RK_BLOCK)
        return s == (int64_t)sizeof(RK_C) ? RK_FN(block_contig)((const RK_C *)p, n)
                                          : RK_FN(block_strided)(p, n, s);
    int64_t h = ((n / 2 + RK_BLOCK - 1) / RK_BLOCK) * RK_BLOCK;
    RK_A x = RK_FN(pairwise)(p, h, s);
    RK_A y = RK_FN(pairwise)(p + h * s, n - h, s);
    return RK_FN(op)(x, y);
}

static void RK_FN(run)(void *acc, const char *p, int64_t n, int64_t s) {
    RK_A *a = acc;
    RK_A r = RK_FN(pairwise)(p, n, s);
    *a = RK_FN(op)(*a, r);
}

/* Out of line: inlined, its setup would be paid by every short row too. */
__attribute__((noinline)) static RK_A RK_FN(long_row)(const RK_C *q, int64_t n) {
    return RK_FN(pairwise)((const char *)q, n, (int64_t)sizeof(RK_C));
}

/* init + run per row, without a call per row: short rows (under 16, where the block folds
 * one by one from the identity) are folded here the same way, four rows side by side so
 * that their four chains of dependent ops overlap. */
static inline void RK_FN(fold_rows)(RK_A *a, const char *p, int64_t rows, int64_t rs, int64_t n) {
    const RK_A id = RK_FN(ident)();
    int64_t r = 0;
    if (n < 16)
        for (; r + 4 <= rows; r += 4) {
            const RK_C *q = (const RK_C *)(p + r * rs);
            const RK_C *q1 = (const RK_C *)((const char *)q + rs);
            const RK_C *q2 = (const RK_C *)((const char *)q1 + rs);
            const RK_C *q3 = (const RK_C *)((const char *)q2 + rs);
            RK_A v0 = id, v1 = id, v2 = id, v3 = id;
            for (int64_t i = 0; i < n; i++) {
                v0 = RK_FN(op)(v0, RK_FN(load)(q[i]));
                v1 = RK_FN(op)(v1, RK_FN(load)(q1[i]));
                v2 = RK_FN(op)(v2, RK_FN(load)(q2[i]));
                v3 = RK_FN(op)(v3, RK_FN(load)(q3[i]));
            }
            a[r] = RK_FN(op)(id, v0), a[r + 1] = RK_FN(op)(id, v1);
            a[r + 2] = RK_FN(op)(id, v2), a[r + 3] = RK_FN(op)(id, v3);
        }
    for (; r < rows; r++) {
        const RK_C *q = (const RK_C *)(p + r * rs);
        RK_A v = id;
        if (n < 16) {
            for (int64_t i = 0; i < n; i++)
                v = RK_FN(op)(v, RK_FN(load)(q[i]));
        } else {
            v = RK_FN(long_row)(q, n);
        }
        a[r] = RK_FN(op)(id, v);
    }
}

/* The accumulator written as dtype dt; the mean divides it by the count first, in the
 * accumulator's type (float32 sums divide in float, as PyTorch's sum().div_() does; the
 * float16/bfloat16 quotient is rounded once). */
__attribute__((always_inline)) static inline void
RK_FN(put)(char *out, nt_dtype dt, const void *acc, const nt_red_params *prm, bool mean) {
    RK_A v = *(const RK_A *)acc;
    if (mean) v = (RK_A)(v / (RK_A)prm->count);
    STORE_VALUE(out, dt, RK_A, v);
}

static void RK_FN(store)(char *out, nt_dtype dt, const void *acc, const nt_red_params *prm) {
    RK_FN(put)(out, dt, acc, prm, false);
}

/* runs(): the rows folded in batches of 64, then stored; inlined into runs (and mean's), as
 * the store is, so that `mean` is a constant there. */
__attribute__((always_inline)) static inline void
RK_FN(fold_runs)(char *out, int64_t os, nt_dtype dt, const char *p, int64_t rows, int64_t rs,
                 int64_t n, const nt_red_params *prm, bool mean) {
    RK_A acc[64];
    for (int64_t r0 = 0; r0 < rows; r0 += 64) {
        int64_t m = rows - r0 < 64 ? rows - r0 : 64;
        RK_FN(fold_rows)(acc, p + r0 * rs, m, rs, n);
        for (int64_t r = 0; r < m; r++)
            RK_FN(put)(out + (r0 + r) * os, dt, &acc[r], prm, mean);
    }
}

static void RK_FN(runs)(char *out, int64_t os, nt_dtype dt, const char *p, int64_t rows, int64_t rs,
                        int64_t n, const nt_red_params *prm) {
    RK_FN(fold_runs)(out, os, dt, p, rows, rs, n, prm, false);
}

static const nt_red_kernel RK_FN(kernel) = {
    sizeof(RK_A), RK_FN(init), RK_FN(run), RK_FN(rows), RK_FN(combine), RK_FN(store), RK_FN(runs),
};

#if defined(RK_MEAN) && defined(RK_FLOATING)
static void RK_CAT(mean_store_, RK_E)(char *out, nt_dtype dt, const void *acc,
                                      const nt_red_params *prm) {
    RK_FN(put)(out, dt, acc, prm, true);
}

static void RK_CAT(mean_runs_, RK_E)(char *out, int64_t os, nt_dtype dt, const char *p,
                                     int64_t rows, int64_t rs, int64_t n,
                                     const nt_red_params *prm) {
    RK_FN(fold_runs)(out, os, dt, p, rows, rs, n, prm, true);
}

static const nt_red_kernel RK_CAT(mean_kernel_, RK_E) = {
    sizeof(RK_A),
    RK_FN(init),
    RK_FN(run),
    RK_FN(rows),
    RK_FN(combine),
    RK_CAT(mean_store_, RK_E),
    RK_CAT(mean_runs_, RK_E),
};
#endif

#undef RK_A
#undef RK_FN
#undef RK_LD
#undef RK_NANP
#undef RK_E
#undef RK_C
#undef RK_FLOATING
