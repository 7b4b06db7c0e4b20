/*
 * test_iter.c — the strided iterator: broadcasting, layout (reorder, coalesce), running
 * over 0-dim, empty, transposed, negative-stride and 64-dim operands, the parallel split,
 * and PyTorch's memory-overlap rules.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "core/parallel.h"
#include "core/tensor.h"
#include "iter/iter.h"
#include "kernels/convert.h"
#include "nt_test.h"

/* A contiguous int64 tensor holding 0, 1, 2, ... */
static nt_tensor *arange_i64(int ndim, const int64_t *sizes) {
    nt_tensor *t = NULL;
    if (nt_tensor_alloc(NT_INT64, ndim, sizes, NULL, &t) != NT_OK) return NULL;
    int64_t *p = nt_tensor_data(t);
    for (int64_t i = 0; i < t->numel; i++)
        p[i] = i;
    return t;
}

static nt_tensor *view(nt_tensor *base, int ndim, const int64_t *sizes, const int64_t *strides,
                       int64_t offset) {
    nt_tensor *v = NULL;
    if (nt_tensor_view_of(base, ndim, sizes, strides, offset, NULL, &v) != NT_OK) return NULL;
    return v;
}

static int64_t at(const nt_tensor *t, const int64_t *index) {
    const int64_t *p = (const int64_t *)t->storage->data + t->offset;
    for (int d = 0; d < t->ndim; d++)
        p += index[d] * t->strides[d];
    return *p;
}

/* out = 1000 * a + b over int64 operands (out, a, b). */
static void combine_loop(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {
    (void)ctx;
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t a = *(int64_t *)(data[1] + i * st[1] + j * st[4]);
            int64_t b = *(int64_t *)(data[2] + i * st[2] + j * st[5]);
            *(int64_t *)(data[0] + i * st[0] + j * st[3]) = 1000 * a + b;
        }
}

typedef struct counts {
    _Atomic int64_t calls, elements;
} counts;

static void count_loop(char **data, const int64_t *st, int64_t n, int64_t m, void *ctx) {
    (void)data, (void)st;
    counts *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    atomic_fetch_add(&c->elements, n * m);
}

static void test_zero_dim_operands_run_once(void) {
    nt_tensor *a = arange_i64(0, NULL), *b = arange_i64(0, NULL);
    *(int64_t *)nt_tensor_data(b) = 42;
    nt_tensor *ops[2] = {a, b};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.ndim == 0 && it.numel == 1 && it.out_ndim == 0);
    counts c = {0, 0};
    nt_iter_run(&it, count_loop, &c);
    EXPECT(c.calls == 1 && c.elements == 1);
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    EXPECT(*(int64_t *)nt_tensor_data(a) == 42);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

static void test_size_zero_dims_make_no_calls(void) {
    int64_t s[3] = {4, 0, 3};
    nt_tensor *a = arange_i64(3, s), *b = arange_i64(3, s);
    nt_tensor *ops[2] = {a, b};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.numel == 0);
    counts c = {0, 0};
    nt_iter_run(&it, count_loop, &c);
    EXPECT(c.calls == 0 && c.elements == 0);
    /* A size-1 input broadcasts against the empty dim. */
    int64_t s1[3] = {4, 1, 3};
    nt_tensor *one = arange_i64(3, s1);
    ops[1] = one;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.numel == 0);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(one);
}

static void test_broadcast_three_operands(void) {
    int64_t so[2] = {3, 4}, sa[2] = {3, 1}, sb[1] = {4};
    nt_tensor *out = arange_i64(2, so), *a = arange_i64(2, sa), *b = arange_i64(1, sb);
    nt_tensor *ops[3] = {out, a, b};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 3, ops, NULL));
    EXPECT(it.out_ndim == 2 && it.out_shape[0] == 3 && it.out_shape[1] == 4);
    /* a is broadcast along dim 1 and b along dim 0: byte stride 0 there. */
    EXPECT(it.ndim == 2 && it.shape[0] == 4 && it.shape[1] == 3);
    EXPECT(it.strides[1][0] == 0 && it.strides[1][1] == 8);
    EXPECT(it.strides[2][0] == 8 && it.strides[2][1] == 0);
    nt_iter_run(&it, combine_loop, NULL);
    const int64_t *o = nt_tensor_data(out);
    bool ok = true;
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 4; j++)
            ok &= o[i * 4 + j] == 1000 * i + j;
    EXPECT(ok);
    nt_tensor_release(out);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

static void test_broadcast_errors_name_the_dim(void) {
    int64_t so[2] = {2, 3}, sa[2] = {2, 3}, sb[3] = {5, 1, 4}, sc[1] = {3};
    nt_tensor *out = arange_i64(2, so), *a = arange_i64(2, sa), *b = arange_i64(3, sb);
    nt_tensor *c = arange_i64(1, sc);
    nt_tensor *ops[3] = {out, a, b};
    nt_iter it;
    EXPECT_ERR(nt_iter_build(&it, 3, ops, NULL), NT_ERR_RUNTIME,
               "The size of tensor a (3) must match the size of tensor b (4) at "
               "non-singleton dimension 2");
    /* The output takes part in broadcasting; a bigger broadcast shape is its error. */
    ops[0] = c;
    EXPECT_ERR(nt_iter_build(&it, 2, ops, NULL), NT_ERR_RUNTIME,
               "output with shape [3] doesn't match the broadcast shape [2, 3]");
    nt_tensor *ins[2] = {a, b};
    int nd = 0;
    int64_t shape[NT_MAX_DIMS];
    EXPECT_ERR(nt_broadcast_shapes(2, ins, &nd, shape), NT_ERR_RUNTIME,
               "The size of tensor a (3) must match the size of tensor b (4) at "
               "non-singleton dimension 2");
    ins[1] = c;
    EXPECT_OK(nt_broadcast_shapes(2, ins, &nd, shape));
    EXPECT(nd == 2 && shape[0] == 2 && shape[1] == 3);
    nt_tensor_release(out);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(c);
}

static void test_bad_arguments_fail_cleanly(void) {
    int64_t s[1] = {3};
    nt_tensor *a = arange_i64(1, s);
    nt_tensor *ops[NT_ITER_MAX_OPS + 1] = {a, NULL};
    nt_iter it;
    EXPECT_ERR(nt_iter_build(&it, 2, ops, NULL), NT_ERR_TYPE, "operand 1, got NULL");
    EXPECT_ERR(nt_iter_build(&it, 0, ops, NULL), NT_ERR_VALUE, "1 to 8 operands, got 0");
    for (int k = 0; k <= NT_ITER_MAX_OPS; k++)
        ops[k] = a;
    EXPECT_ERR(nt_iter_build(&it, NT_ITER_MAX_OPS + 1, ops, NULL), NT_ERR_VALUE, "got 9");
    nt_iter_config cfg = nt_iter_defaults();
    cfg.noutputs = 3;
    EXPECT_ERR(nt_iter_build(&it, 2, ops, &cfg), NT_ERR_VALUE, "cannot have 3 outputs");
    EXPECT_ERR(nt_iter_build(NULL, 1, ops, NULL), NT_ERR_VALUE, "NULL");
    nt_tensor_release(a);
}

static void test_contiguous_operands_coalesce_to_one_dim(void) {
    int64_t s[3] = {2, 3, 4};
    nt_tensor *a = arange_i64(3, s), *b = arange_i64(3, s);
    nt_tensor *ops[2] = {a, b};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.ndim == 1 && it.shape[0] == 24 && nt_iter_is_flat(&it));
    EXPECT(it.nperm == 3 && it.perm[0] == 2 && it.perm[1] == 1 && it.perm[2] == 0);
    EXPECT(it.first[0] == 0 && it.first[1] == 3);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

static void test_partial_coalescing_keeps_the_gap(void) {
    /* out (2,3,2) contiguous; in = base(2,3,4)[:, :, :2]: dims 0 and 1 merge, not dim 2. */
    int64_t so[3] = {2, 3, 2}, sb[3] = {2, 3, 4}, st[3] = {12, 4, 1};
    nt_tensor *out = arange_i64(3, so), *base = arange_i64(3, sb);
    nt_tensor *in = view(base, 3, so, st, 0);
    nt_tensor *ops[2] = {out, in};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.ndim == 2 && it.shape[0] == 2 && it.shape[1] == 6 && !nt_iter_is_flat(&it));
    EXPECT(it.strides[0][0] == 8 && it.strides[0][1] == 16);
    EXPECT(it.strides[1][0] == 8 && it.strides[1][1] == 32);
    EXPECT(it.first[0] == 0 && it.first[1] == 1 && it.first[2] == 3);
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    bool ok = true;
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++)
            for (int64_t k = 0; k < 2; k++) {
                int64_t idx[3] = {i, j, k};
                ok &= at(out, idx) == 12 * i + 4 * j + k;
            }
    EXPECT(ok);
    nt_tensor_release(out);
    nt_tensor_release(in);
    nt_tensor_release(base);
}

static void test_transposed_input_and_output_order(void) {
    int64_t s[2] = {3, 5}, ts[2] = {5, 3}, tst[2] = {1, 5};
    nt_tensor *base = arange_i64(2, s), *out = arange_i64(2, ts);
    nt_tensor *t = view(base, 2, ts, tst, 0); /* base.t() */
    nt_tensor *ops[2] = {out, t};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    /* The output's smallest stride is innermost. */
    EXPECT(it.ndim == 2 && it.strides[0][0] == 8 && it.strides[1][0] == 40);
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    const int64_t *o = nt_tensor_data(out);
    bool ok = true;
    for (int64_t i = 0; i < 5; i++)
        for (int64_t j = 0; j < 3; j++)
            ok &= o[i * 3 + j] == j * 5 + i;
    EXPECT(ok);
    /* A transposed output is walked in its own memory order. */
    nt_tensor *src = arange_i64(2, ts);
    nt_tensor *tout = view(base, 2, ts, tst, 0);
    ops[0] = tout, ops[1] = src;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.strides[0][0] == 8 && it.strides[1][0] == 24);
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    const int64_t *b = nt_tensor_data(base);
    ok = true;
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 5; j++)
            ok &= b[i * 5 + j] == j * 3 + i;
    EXPECT(ok);
    nt_tensor_release(out);
    nt_tensor_release(t);
    nt_tensor_release(base);
    nt_tensor_release(src);
    nt_tensor_release(tout);
}

static void test_negative_strides_from_mid_storage(void) {
    /* base 0..11; v is base[10:1:-3] viewed as 4 elements 10, 7, 4, 1 (offset 10). */
    int64_t s[1] = {12}, vs[1] = {4}, vst[1] = {-3}, os[1] = {4};
    nt_tensor *base = arange_i64(1, s), *out = arange_i64(1, os);
    nt_tensor *v = view(base, 1, vs, vst, 10);
    nt_tensor *ops[2] = {out, v};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    const int64_t *o = nt_tensor_data(out);
    EXPECT(o[0] == 10 && o[1] == 7 && o[2] == 4 && o[3] == 1);
    /* As the output: writes land at 10, 7, 4, 1. */
    int64_t *p = nt_tensor_data(out);
    for (int i = 0; i < 4; i++)
        p[i] = 100 + i;
    ops[0] = v, ops[1] = out;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    const int64_t *b = nt_tensor_data(base);
    EXPECT(b[10] == 100 && b[7] == 101 && b[4] == 102 && b[1] == 103 && b[0] == 0 && b[2] == 2);
    /* A 2-D reversed view (both strides negative) still coalesces into one dim. */
    int64_t s2[2] = {3, 4}, st2[2] = {-4, -1};
    nt_tensor *r = view(base, 2, s2, st2, 11), *o2 = arange_i64(2, s2);
    ops[0] = o2, ops[1] = r;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.ndim == 1); /* out +8/+32 and in -8/-32 both chain: one dim */
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    const int64_t *q = nt_tensor_data(o2);
    EXPECT(q[0] == b[11] && q[11] == b[0] && q[5] == b[6]);
    nt_tensor *r2 = view(base, 2, s2, st2, 11), *ops2[2] = {r, r2};
    nt_iter_config cfg = nt_iter_defaults();
    cfg.check_mem_overlap = false;
    EXPECT_OK(nt_iter_build(&it, 2, ops2, &cfg));
    EXPECT(it.ndim == 1 && it.shape[0] == 12 && it.strides[0][0] == -8);
    nt_tensor_release(base);
    nt_tensor_release(out);
    nt_tensor_release(v);
    nt_tensor_release(r);
    nt_tensor_release(r2);
    nt_tensor_release(o2);
}

static void test_sixty_four_dims(void) {
    /* 16 dims of size 2 (the first and last 8) among 64; the input is the output's dims in
     * reverse order, so out's linear index is the input's with its 16 bits reversed. */
    int64_t sizes[NT_MAX_DIMS], rsizes[NT_MAX_DIMS], rstrides[NT_MAX_DIMS];
    for (int d = 0; d < NT_MAX_DIMS; d++)
        sizes[d] = d < 8 || d >= 56 ? 2 : 1;
    nt_tensor *base = arange_i64(NT_MAX_DIMS, sizes), *out = arange_i64(NT_MAX_DIMS, sizes);
    for (int d = 0; d < NT_MAX_DIMS; d++) {
        rsizes[d] = base->sizes[NT_MAX_DIMS - 1 - d];
        rstrides[d] = base->strides[NT_MAX_DIMS - 1 - d];
    }
    nt_tensor *rev = view(base, NT_MAX_DIMS, rsizes, rstrides, 0);
    nt_tensor *ops[2] = {out, rev};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.numel == 65536 && it.ndim == 16 && it.nperm == 16);
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    const int64_t *o = nt_tensor_data(out);
    bool ok = true;
    for (int64_t i = 0; i < 65536; i++) {
        int64_t r = 0;
        for (int k = 0; k < 16; k++)
            r |= ((i >> k) & 1) << (15 - k);
        ok &= o[i] == r;
    }
    EXPECT(ok);
    /* Contiguous 64-dim operands coalesce completely. */
    ops[1] = base;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.ndim == 1 && it.shape[0] == 65536);
    nt_tensor_release(base);
    nt_tensor_release(out);
    nt_tensor_release(rev);
}

static void test_parallel_run_matches_serial(void) {
    /* 400 x 1000 transposed copy: 400000 elements, well above NT_GRAIN_SIZE. */
    int64_t s[2] = {400, 1000}, ts[2] = {1000, 400}, tst[2] = {1, 1000};
    nt_tensor *base = arange_i64(2, s), *a = arange_i64(2, ts), *b = arange_i64(2, ts);
    nt_tensor *t = view(base, 2, ts, tst, 0);
    EXPECT(400000 > 2 * NT_GRAIN_SIZE);
    int threads = nt_get_num_threads();
    nt_iter it;
    nt_tensor *ops[2] = {a, t};
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    nt_set_num_threads(1);
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    ops[0] = b;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    nt_set_num_threads(threads > 1 ? threads : 2);
    nt_iter_run(&it, nt_convert_loop(NT_INT64, NT_INT64), NULL);
    counts c = {0, 0};
    nt_iter_run(&it, count_loop, &c);
    EXPECT(c.elements == 400000);
    nt_set_num_threads(threads);
    const int64_t *pa = nt_tensor_data(a), *pb = nt_tensor_data(b);
    bool ok = true;
    for (int64_t i = 0; i < 400000; i++)
        ok &= pa[i] == pb[i] && pa[i] == (i % 400) * 1000 + i / 400;
    EXPECT(ok);
    nt_tensor_release(base);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(t);
}

static void test_ranges_split_anywhere(void) {
    /* Running [0, k) and [k, n) for any k, mid-row included, equals one full run. */
    int64_t s[3] = {3, 5, 7}, ps[3] = {7, 5, 3}, pst[3] = {1, 7, 35};
    nt_tensor *base = arange_i64(3, s), *out = arange_i64(3, ps);
    nt_tensor *p = view(base, 3, ps, pst, 0);
    nt_tensor *ops[2] = {out, p};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    bool ok = true;
    for (int64_t k = 0; k <= 105; k += 8) {
        int64_t *o = nt_tensor_data(out);
        for (int64_t i = 0; i < 105; i++)
            o[i] = -1;
        nt_iter_run_range(&it, 0, k, nt_convert_loop(NT_INT64, NT_INT64), NULL);
        nt_iter_run_range(&it, k, 105, nt_convert_loop(NT_INT64, NT_INT64), NULL);
        for (int64_t i = 0; i < 7; i++)
            for (int64_t j = 0; j < 5; j++)
                for (int64_t l = 0; l < 3; l++)
                    ok &= o[i * 15 + j * 3 + l] == l * 35 + j * 7 + i;
    }
    EXPECT(ok);
    nt_tensor_release(base);
    nt_tensor_release(out);
    nt_tensor_release(p);
}

static void test_overlap_rules_follow_pytorch(void) {
    int64_t s[1] = {8}, s2[2] = {2, 4}, st2[2] = {4, 1}, stt[2] = {1, 2}, e[2] = {3, 8},
            est[2] = {0, 1}, h[1] = {4}, hst[1] = {1}, sk[1] = {2};
    nt_tensor *x = arange_i64(1, s);
    nt_tensor *m = view(x, 2, s2, st2, 0), *tr = view(x, 2, s2, stt, 0); /* tr: permuted */
    nt_tensor *ex = view(x, 2, e, est, 0), *lo = view(x, 1, h, hst, 0), *hi = view(x, 1, h, hst, 4);
    nt_tensor *mid = view(x, 1, h, hst, 2), *step = view(x, 1, sk, (int64_t[]){2}, 0);
    EXPECT(nt_is_non_overlapping_and_dense(m) && nt_is_non_overlapping_and_dense(tr));
    EXPECT(!nt_is_non_overlapping_and_dense(ex) && !nt_is_non_overlapping_and_dense(step));
    EXPECT(nt_internal_overlap(ex) == NT_OVERLAP_PARTIAL);
    EXPECT(nt_internal_overlap(step) == NT_OVERLAP_TOO_HARD);
    EXPECT(nt_internal_overlap(m) == NT_OVERLAP_NO);
    EXPECT(nt_overlap_status(m, m) == NT_OVERLAP_FULL);
    nt_tensor *m2 = view(x, 2, s2, st2, 0);
    EXPECT(nt_overlap_status(m, m2) == NT_OVERLAP_FULL);   /* same bytes, same strides */
    EXPECT(nt_overlap_status(x, m) == NT_OVERLAP_PARTIAL); /* PyTorch compares stride lists */
    nt_tensor_release(m2);
    EXPECT(nt_overlap_status(m, tr) == NT_OVERLAP_PARTIAL);
    EXPECT(nt_overlap_status(lo, hi) == NT_OVERLAP_NO);
    EXPECT(nt_overlap_status(lo, mid) == NT_OVERLAP_PARTIAL);
    EXPECT(nt_overlap_status(step, lo) == NT_OVERLAP_TOO_HARD);
    EXPECT(nt_extents_overlap(step, lo) && !nt_extents_overlap(lo, hi));
    EXPECT_ERR(nt_check_no_internal_overlap(ex), NT_ERR_RUNTIME,
               "unsupported operation: more than one element of the written-to tensor refers "
               "to a single memory location. Please clone() the tensor before performing the "
               "operation.");
    EXPECT_ERR(nt_check_no_partial_overlap(lo, mid), NT_ERR_RUNTIME,
               "unsupported operation: some elements of the input tensor and the written-to "
               "tensor refer to a single memory location. Please clone() the tensor before "
               "performing the operation.");
    /* The iterator applies them unless told not to. */
    nt_tensor *ops[2] = {lo, mid};
    nt_iter it;
    EXPECT_ERR(nt_iter_build(&it, 2, ops, NULL), NT_ERR_RUNTIME, "some elements of the input");
    nt_iter_config cfg = nt_iter_defaults();
    cfg.check_mem_overlap = false;
    EXPECT_OK(nt_iter_build(&it, 2, ops, &cfg));
    nt_tensor *ts[] = {x, m, tr, ex, lo, hi, mid, step};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
        nt_tensor_release(ts[i]);
}

/* Found by fuzzing (tests/fuzz/fuzz_views.c): PyTorch accepts
 * zeros(4).as_strided((0, 4), (1, 2**62)); its byte strides overflow int64. An empty
 * iteration computes none, and an empty operand's address is its storage's start, also
 * when its offset is near INT64_MAX. */
static void test_empty_operands_with_huge_strides_and_offsets(void) {
    int64_t four = 4;
    nt_tensor *base = arange_i64(1, &four), *e = NULL, *far = NULL, *r = NULL;
    int64_t sizes[2] = {0, 4}, strides[2] = {1, (int64_t)1 << 62};
    EXPECT_OK(nt_as_strided(base, 2, sizes, strides, 0, &e));
    EXPECT_OK(nt_binary_scalar(NT_BINARY_ADD, e, nt_scalar_int(1), &r));
    EXPECT(r && nt_tensor_numel(r) == 0 && nt_tensor_sizes(r)[1] == 4);
    nt_tensor_release(r);
    nt_tensor *ops[2] = {e, e};
    nt_iter it;
    EXPECT_OK(nt_iter_build(&it, 2, ops, NULL));
    EXPECT(it.numel == 0 && it.data[0] == (char *)base->storage->data);
    int64_t zero = 0, one = 1;
    EXPECT_OK(nt_as_strided(base, 1, &zero, &one, INT64_MAX - 1, &far));
    EXPECT(nt_tensor_data(far) == base->storage->data);
    EXPECT_OK(nt_binary(NT_BINARY_MUL, far, far, &r));
    nt_tensor_release(r);
    r = NULL;
    EXPECT_OK(nt_clone(far, &r));
    nt_tensor_release(r);
    nt_tensor_release(far);
    nt_tensor_release(e);
    nt_tensor_release(base);
}

/* Found by fuzzing: the dense-layout check multiplied the sizes of an empty tensor, whose
 * product may overflow (zeros(2**62 - 1, 0, 5).clone()). */
static void test_dense_check_of_empty_tensors_with_huge_sizes(void) {
    int64_t sizes[3] = {((int64_t)1 << 62) - 1, 0, 5};
    nt_tensor *t = NULL, *c = NULL;
    EXPECT_OK(nt_zeros(3, sizes, NT_BOOL, NULL, &t));
    EXPECT(nt_tensor_strides(t)[0] == 5);
    EXPECT(nt_is_non_overlapping_and_dense(t));
    EXPECT_OK(nt_clone(t, &c));
    EXPECT(c && nt_tensor_numel(c) == 0);
    nt_tensor_release(c);
    /* contiguity of an empty tensor never looks at its strides */
    int64_t big[3] = {0, (int64_t)1 << 62, 4}, st[3] = {0, 4, 1};
    EXPECT(nt_strides_are_contiguous(3, big, st));
    nt_tensor_release(t);
}

int main(void) {
    NT_RUN(test_zero_dim_operands_run_once);
    NT_RUN(test_size_zero_dims_make_no_calls);
    NT_RUN(test_broadcast_three_operands);
    NT_RUN(test_broadcast_errors_name_the_dim);
    NT_RUN(test_bad_arguments_fail_cleanly);
    NT_RUN(test_contiguous_operands_coalesce_to_one_dim);
    NT_RUN(test_partial_coalescing_keeps_the_gap);
    NT_RUN(test_transposed_input_and_output_order);
    NT_RUN(test_negative_strides_from_mid_storage);
    NT_RUN(test_sixty_four_dims);
    NT_RUN(test_parallel_run_matches_serial);
    NT_RUN(test_ranges_split_anywhere);
    NT_RUN(test_overlap_rules_follow_pytorch);
    NT_RUN(test_empty_operands_with_huge_strides_and_offsets);
    NT_RUN(test_dense_check_of_empty_tensors_with_huge_sizes);
    return nt_test_summary();
}
