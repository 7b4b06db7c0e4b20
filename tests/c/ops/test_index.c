/*
 * test_index.c — the indexing family from C: getitem/setitem through nt_index tuples,
 * index_fill, masked_fill(_), masked_select, cat, stack, split, chunk, unbind, resize_:
 * values, shapes, names and error texts (expected values from PyTorch 1.13, quoted beside
 * each case), no leaks on error paths (run under ASan).
 */
#include <stdlib.h>
#include <string.h>

#include "nt_test.h"

static nt_tensor *arange_f(int ndim, const int64_t *sizes) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    nt_tensor *a = NULL, *r = NULL;
    EXPECT_OK(nt_arange(nt_scalar_int(0), nt_scalar_int(n), nt_scalar_int(1), NT_FLOAT32, &a));
    EXPECT_OK(nt_reshape(a, ndim, sizes, &r));
    nt_tensor_release(a);
    return r;
}

static nt_tensor *long_vec(int n, const int64_t *v) {
    int64_t size = n;
    nt_tensor *t = NULL;
    EXPECT_OK(nt_from_buffer(v, NT_INT64, 1, &size, NULL, &t));
    return t;
}

static nt_tensor *bool_vec(int n, const bool *v) {
    int64_t size = n;
    nt_tensor *t = NULL;
    EXPECT_OK(nt_from_buffer(v, NT_BOOL, 1, &size, NULL, &t));
    return t;
}

/* Checks shape and float values of t (contiguous or not). */
static void expect_values(const nt_tensor *t, int ndim, const int64_t *sizes, const float *values) {
    EXPECT(nt_tensor_ndim(t) == ndim);
    for (int i = 0; i < ndim && i < nt_tensor_ndim(t); i++)
        EXPECT(nt_tensor_sizes(t)[i] == sizes[i]);
    int64_t n = nt_tensor_numel(t), idx[NT_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        double v = 0;
        EXPECT_OK(nt_get_double(t, idx, &v));
        if (v != values[k]) {
            fprintf(stderr, "  element %lld: got %g, expected %g\n", (long long)k, v, values[k]);
            nt_test_failures_in_current++;
            return;
        }
        for (int d = ndim - 1; d >= 0; d--) {
            if (++idx[d] < sizes[d]) break;
            idx[d] = 0;
        }
    }
}

static nt_index I(int64_t i) {
    nt_index x = {.kind = NT_INDEX_INT, .i = i};
    return x;
}
static nt_index SL(int64_t start, int64_t stop, int64_t step) {
    nt_index x = {.kind = NT_INDEX_SLICE, .start = start, .stop = stop, .step = step};
    return x;
}
static nt_index TI(const nt_tensor *t) {
    nt_index x = {.kind = NT_INDEX_TENSOR, .tensor = t};
    return x;
}
static const nt_index NONE_IX = {.kind = NT_INDEX_NONE};
static const nt_index ELL = {.kind = NT_INDEX_ELLIPSIS};

static void test_basic_getitem_names_and_views(void) {
    int64_t s[2] = {3, 4};
    nt_tensor *x = arange_f(2, s), *r = NULL;
    nt_name names[2] = {N("N"), N("C")};
    EXPECT_OK(nt_set_names_(x, names));
    /* x[1] -> [4, 5, 6, 7], names ('C',) */
    nt_index ix[3] = {I(1)};
    EXPECT_OK(nt_index_get1(x, ix, &r));
    expect_values(r, 1, (int64_t[]){4}, (float[]){4, 5, 6, 7});
    EXPECT(nt_tensor_names(r) && nt_tensor_names(r)[0] == N("C"));
    EXPECT(nt_tensor_shares_storage(r, x));
    nt_tensor_release(r);
    /* x[1:, ::2] -> [[4, 6], [8, 10]], names kept */
    ix[0] = SL(1, NT_SLICE_END, 1);
    ix[1] = SL(0, NT_SLICE_END, 2);
    EXPECT_OK(nt_index_get(x, 2, ix, &r));
    expect_values(r, 2, (int64_t[]){2, 2}, (float[]){4, 6, 8, 10});
    EXPECT(nt_tensor_names(r)[0] == N("N") && nt_tensor_names(r)[1] == N("C"));
    nt_tensor_release(r);
    /* x[None, ..., 2] -> shape (1, 3), names (None, 'N') */
    ix[0] = NONE_IX;
    ix[1] = ELL;
    ix[2] = I(2);
    EXPECT_OK(nt_index_get(x, 3, ix, &r));
    expect_values(r, 2, (int64_t[]){1, 3}, (float[]){2, 6, 10});
    EXPECT(nt_tensor_names(r)[0] == NT_NAME_NONE && nt_tensor_names(r)[1] == N("N"));
    nt_tensor_release(r);
    /* errors */
    ix[0] = I(5);
    EXPECT_ERR(nt_index_get1(x, ix, &r), NT_ERR_INDEX,
               "index 5 is out of bounds for dimension 0 with size 3");
    ix[0] = SL(0, NT_SLICE_END, 1);
    ix[1] = I(-5);
    EXPECT_ERR(nt_index_get(x, 2, ix, &r), NT_ERR_INDEX,
               "index -5 is out of bounds for dimension 1 with size 4");
    ix[0] = I(0), ix[1] = I(0), ix[2] = I(0);
    EXPECT_ERR(nt_index_get(x, 3, ix, &r), NT_ERR_INDEX,
               "too many indices for tensor of dimension 2");
    ix[0] = SL(0, NT_SLICE_END, -1);
    EXPECT_ERR(nt_index_get1(x, ix, &r), NT_ERR_VALUE, "step must be greater than zero");
    nt_tensor_release(x);
}

static void test_advanced_getitem(void) {
    int64_t s[3] = {2, 3, 4};
    nt_tensor *x = arange_f(3, s), *r = NULL;
    /* torch: x[:, [2, 0], [1, 3]] -> [[9, 3], [21, 15]] */
    nt_tensor *a = long_vec(2, (int64_t[]){2, 0}), *b = long_vec(2, (int64_t[]){1, 3});
    nt_index ix[3] = {SL(0, NT_SLICE_END, 1), TI(a), TI(b)};
    EXPECT_OK(nt_index_get(x, 3, ix, &r));
    expect_values(r, 2, (int64_t[]){2, 2}, (float[]){9, 3, 21, 15});
    nt_tensor_release(r);
    /* torch: x[[1, 0], :, [3, 0]] -> non-adjacent: [[15, 19, 23], [0, 4, 8]] */
    nt_tensor *c = long_vec(2, (int64_t[]){1, 0}), *d = long_vec(2, (int64_t[]){3, 0});
    nt_index iy[3] = {TI(c), SL(0, NT_SLICE_END, 1), TI(d)};
    EXPECT_OK(nt_index_get(x, 3, iy, &r));
    expect_values(r, 2, (int64_t[]){2, 3}, (float[]){15, 19, 23, 0, 4, 8});
    nt_tensor_release(r);
    /* torch: x[1, [True, False, True]] -> [[12..15], [20..23]] */
    nt_tensor *m = bool_vec(3, (bool[]){true, false, true});
    nt_index iz[2] = {I(1), TI(m)};
    EXPECT_OK(nt_index_get(x, 2, iz, &r));
    expect_values(r, 2, (int64_t[]){2, 4}, (float[]){12, 13, 14, 15, 20, 21, 22, 23});
    nt_tensor_release(r);
    /* errors, PyTorch's texts */
    nt_tensor *bad = long_vec(1, (int64_t[]){9});
    nt_index ie[3] = {SL(0, NT_SLICE_END, 1), SL(0, NT_SLICE_END, 1), TI(bad)};
    EXPECT_ERR(nt_index_get(x, 3, ie, &r), NT_ERR_INDEX,
               "index 9 is out of bounds for dimension 0 with size 4");
    nt_tensor *three = long_vec(3, (int64_t[]){0, 0, 0});
    nt_index ib[2] = {TI(a), TI(three)};
    EXPECT_ERR(nt_index_get(x, 2, ib, &r), NT_ERR_INDEX,
               "shape mismatch: indexing tensors could not be broadcast together with shapes "
               "[2], [3]");
    nt_index im[1] = {TI(m)};
    EXPECT_ERR(nt_index_get(x, 1, im, &r), NT_ERR_INDEX,
               "The shape of the mask [3] at index 0 does not match the shape of the indexed "
               "tensor [2, 3, 4] at index 0");
    nt_tensor *f = NULL;
    EXPECT_OK(nt_to_dtype(a, NT_INT32, &f));
    nt_index it[1] = {TI(f)};
    EXPECT_ERR(nt_index_get(x, 1, it, &r), NT_ERR_INDEX,
               "tensors used as indices must be long, byte or bool tensors");
    nt_tensor_release(f);
    nt_tensor_release(bad);
    nt_tensor_release(three);
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(c);
    nt_tensor_release(d);
    nt_tensor_release(m);
    nt_tensor_release(x);
}

static void test_setitem(void) {
    int64_t s[2] = {3, 4};
    nt_tensor *x = arange_f(2, s);
    uint64_t v0 = nt_tensor_version(x);
    /* x[:, 1] = 7 */
    nt_index ix[2] = {SL(0, NT_SLICE_END, 1), I(1)};
    EXPECT_OK(nt_index_set_scalar_(x, 2, ix, false, nt_scalar_float(7)));
    /* x[[0, 2], 3] = [-1, -2] */
    nt_tensor *rows = long_vec(2, (int64_t[]){0, 2}), *val = NULL;
    EXPECT_OK(nt_from_buffer((float[]){-1, -2}, NT_FLOAT32, 1, (int64_t[]){2}, NULL, &val));
    nt_index iy[2] = {TI(rows), I(3)};
    EXPECT_OK(nt_index_set_(x, 2, iy, false, val));
    expect_values(x, 2, s, (float[]){0, 7, 2, -1, 4, 7, 6, 7, 8, 7, 10, -2});
    EXPECT(nt_tensor_version(x) > v0);
    /* errors */
    nt_tensor *l = long_vec(2, (int64_t[]){1, 2});
    EXPECT_ERR(nt_index_set_(x, 2, iy, false, l), NT_ERR_RUNTIME,
               "Index put requires the source and destination dtypes match, got Float for the "
               "destination and Long for the source.");
    nt_tensor *three = NULL;
    EXPECT_OK(nt_zeros(1, (int64_t[]){3}, NT_FLOAT32, NULL, &three));
    EXPECT_ERR(nt_index_set_(x, 2, iy, false, three), NT_ERR_RUNTIME,
               "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result "
               "of shape [2]");
    nt_index iz[1] = {I(0)};
    EXPECT_ERR(nt_index_set_(x, 1, iz, true, three), NT_ERR_RUNTIME,
               "The expanded size of the tensor (4) must match the existing size (3) at "
               "non-singleton dimension 0.  Target sizes: [4].  Tensor sizes: [3]");
    nt_tensor *u8 = NULL;
    EXPECT_OK(nt_zeros(1, (int64_t[]){3}, NT_UINT8, NULL, &u8));
    EXPECT_ERR(nt_index_set_scalar_(u8, 1, iz, true, nt_scalar_int(300)), NT_ERR_RUNTIME,
               "value cannot be converted to type uint8_t without overflow");
    nt_tensor_release(u8);
    nt_tensor_release(three);
    nt_tensor_release(l);
    nt_tensor_release(rows);
    nt_tensor_release(val);
    nt_tensor_release(x);
}

static void test_index_fill_and_masks(void) {
    int64_t s[2] = {3, 2};
    nt_tensor *x = arange_f(2, s), *r = NULL, *idx = long_vec(2, (int64_t[]){0, 2});
    nt_name names[2] = {N("N"), N("C")};
    EXPECT_OK(nt_set_names_(x, names));
    /* torch: x.index_fill(0, [0, 2], -1) -> [[-1, -1], [2, 3], [-1, -1]], names kept */
    EXPECT_OK(nt_index_fill(x, 0, idx, nt_scalar_int(-1), &r));
    expect_values(r, 2, s, (float[]){-1, -1, 2, 3, -1, -1});
    EXPECT(nt_tensor_names(r) && nt_tensor_names(r)[1] == N("C"));
    nt_tensor_release(r);
    nt_tensor *bad = long_vec(1, (int64_t[]){3});
    EXPECT_ERR(nt_index_fill(x, 0, bad, nt_scalar_int(1), &r), NT_ERR_INDEX,
               "index 3 is out of bounds for dimension 0 with size 3");
    /* masked_fill with a broadcast mask [True, False] -> [[-1, 1], [-1, 3], [-1, 5]] */
    nt_tensor *m = bool_vec(2, (bool[]){true, false});
    EXPECT_OK(nt_masked_fill(x, m, nt_scalar_float(-1), &r));
    expect_values(r, 2, s, (float[]){-1, 1, -1, 3, -1, 5});
    EXPECT(nt_tensor_names(r)[0] == N("N"));
    nt_tensor_release(r);
    /* masked_select -> [0, 2, 4], unnamed */
    EXPECT_OK(nt_masked_select(x, m, &r));
    expect_values(r, 1, (int64_t[]){3}, (float[]){0, 2, 4});
    EXPECT(!nt_tensor_names(r));
    nt_tensor_release(r);
    /* masked_fill_ on the named x with a 1-d mask: PyTorch's in-place quirk */
    EXPECT_ERR(nt_masked_fill_(x, m, nt_scalar_float(0)), NT_ERR_RUNTIME,
               "masked_fill_: attempted to broadcast Tensor['N', 'C'] to Tensor[None] but the "
               "number of dims (2) must be less than or equal to the number of dims in the "
               "tensor (1)");
    nt_tensor *plain = NULL;
    EXPECT_OK(nt_rename(x, NULL, &plain));
    EXPECT_OK(nt_masked_fill_(plain, m, nt_scalar_float(9)));
    expect_values(x, 2, s, (float[]){9, 1, 9, 3, 9, 5});
    nt_tensor *i64 = long_vec(2, (int64_t[]){2, 0});
    EXPECT_ERR(nt_masked_fill_(plain, i64, nt_scalar_float(9)), NT_ERR_RUNTIME,
               "Mask tensor can take 0 and 1 values only");
    nt_tensor_release(i64);
    nt_tensor_release(plain);
    nt_tensor_release(m);
    nt_tensor_release(bad);
    nt_tensor_release(idx);
    nt_tensor_release(x);
}

static void test_join_and_split(void) {
    int64_t s[2] = {2, 3};
    nt_tensor *a = arange_f(2, s), *b = NULL, *r = NULL;
    EXPECT_OK(nt_ones(2, (int64_t[]){1, 3}, NT_INT32, NULL, &b));
    nt_tensor *ts[2] = {a, b};
    /* torch.cat([a, b]) -> float32 (3, 3) */
    EXPECT_OK(nt_cat(2, ts, 0, NULL, &r));
    EXPECT(nt_tensor_dtype(r) == NT_FLOAT32);
    expect_values(r, 2, (int64_t[]){3, 3}, (float[]){0, 1, 2, 3, 4, 5, 1, 1, 1});
    nt_tensor_release(r);
    EXPECT_ERR(nt_cat(2, ts, 1, NULL, &r), NT_ERR_RUNTIME,
               "Sizes of tensors must match except in dimension 1. Expected size 2 but got size "
               "1 for tensor number 1 in the list.");
    EXPECT_ERR(nt_cat(0, ts, 0, NULL, &r), NT_ERR_RUNTIME,
               "torch.cat(): expected a non-empty list of Tensors");
    EXPECT_ERR(nt_stack(2, ts, 0, NULL, &r), NT_ERR_RUNTIME,
               "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [1, 3] "
               "at entry 1");
    nt_tensor *aa[2] = {a, a};
    EXPECT_OK(nt_stack(2, aa, 2, NULL, &r));
    expect_values(r, 3, (int64_t[]){2, 3, 2}, (float[]){0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
    nt_tensor_release(r);
    /* split / chunk / unbind */
    nt_tensor **parts = NULL;
    int64_t count = 0;
    EXPECT_OK(nt_split(a, 2, 1, &parts, &count));
    EXPECT(count == 2);
    if (count == 2) {
        expect_values(parts[0], 2, (int64_t[]){2, 2}, (float[]){0, 1, 3, 4});
        expect_values(parts[1], 2, (int64_t[]){2, 1}, (float[]){2, 5});
        EXPECT(nt_tensor_shares_storage(parts[1], a));
    }
    nt_tensors_release(parts, count);
    EXPECT_OK(nt_chunk(a, 4, 1, &parts, &count));
    EXPECT(count == 3);
    nt_tensors_release(parts, count);
    EXPECT_OK(nt_unbind(a, 0, &parts, &count));
    EXPECT(count == 2);
    if (count == 2) expect_values(parts[1], 1, (int64_t[]){3}, (float[]){3, 4, 5});
    nt_tensors_release(parts, count);
    EXPECT_ERR(nt_split_with_sizes(a, 2, (int64_t[]){1, 1}, 1, &parts, &count), NT_ERR_RUNTIME,
               "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
               "dimension 1), but got split_sizes=[1, 1]");
    EXPECT_ERR(nt_chunk(a, 0, 0, &parts, &count), NT_ERR_RUNTIME,
               "chunk expects `chunks` to be greater than 0, got: 0");
    nt_tensor_release(a);
    nt_tensor_release(b);
}

static void test_resize(void) {
    int64_t s[2] = {3, 2};
    nt_tensor *x = arange_f(2, s);
    EXPECT_OK(nt_resize_(x, 1, (int64_t[]){8})); /* grows: the prefix stays */
    EXPECT(nt_tensor_numel(x) == 8);
    double v = -1;
    EXPECT_OK(nt_get_double(x, (int64_t[]){5}, &v));
    EXPECT(v == 5.0);
    EXPECT_ERR(nt_resize_(x, 1, (int64_t[]){-1}), NT_ERR_RUNTIME,
               "numel: integer multiplication overflow");
    /* more dims than it was made with: in place (its dims move out of its allocation) */
    EXPECT_OK(nt_resize_(x, 5, (int64_t[]){1, 2, 1, 2, 2}));
    EXPECT(nt_tensor_ndim(x) == 5 && nt_tensor_strides(x)[1] == 4);
    EXPECT_OK(nt_get_double(x, (int64_t[]){0, 1, 0, 0, 1}, &v));
    EXPECT(v == 5.0);
    EXPECT_OK(nt_resize_(x, 1, (int64_t[]){8}));
    /* to 0 dims, with no sizes array at all (an out= of dot), and back */
    EXPECT_OK(nt_resize_(x, 0, NULL));
    EXPECT(nt_tensor_ndim(x) == 0 && nt_tensor_numel(x) == 1);
    EXPECT_OK(nt_resize_(x, 1, (int64_t[]){8}));
    nt_name names[1] = {N("N")};
    EXPECT_OK(nt_set_names_(x, names));
    EXPECT_ERR(nt_resize_(x, 1, (int64_t[]){4}), NT_ERR_RUNTIME,
               "Cannot resize named tensor with resize_ or resize_as_ (tried to resize "
               "Tensor['N'] with size [8] to [4]).");
    EXPECT_OK(nt_resize_(x, 1, (int64_t[]){8}));
    nt_tensor_release(x);
}

/* Found by fuzzing (tests/fuzz/fuzz_views.c): an empty view may have strides so large
 * (zeros(4).as_strided((0, 4), (1, 2**62))) that indexing it overflowed computing offsets
 * and strides; the results are empty views, and nothing is ever addressed. */
static void test_indexing_empty_views_with_huge_strides(void) {
    int64_t four = 4, sizes[2] = {0, 4}, strides[2] = {1, (int64_t)1 << 62};
    nt_tensor *base = arange_f(1, &four), *e = NULL, *r = NULL;
    EXPECT_OK(nt_as_strided(base, 2, sizes, strides, 0, &e));
    nt_index idx[2] = {{.kind = NT_INDEX_SLICE, .start = 0, .stop = NT_SLICE_END, .step = 1},
                       {.kind = NT_INDEX_INT, .i = 3}};
    EXPECT_OK(nt_index_get(e, 2, idx, &r));
    EXPECT(r && nt_tensor_ndim(r) == 1 && nt_tensor_numel(r) == 0);
    nt_tensor_release(r);
    idx[1] = (nt_index){.kind = NT_INDEX_SLICE, .start = 3, .stop = NT_SLICE_END, .step = 3};
    EXPECT_OK(nt_index_get(e, 2, idx, &r));
    EXPECT(r && nt_tensor_sizes(r)[1] == 1);
    nt_tensor_release(r);
    idx[1] = (nt_index){.kind = NT_INDEX_NONE};
    EXPECT_OK(nt_index_get(e, 2, idx, &r));
    nt_tensor_release(r);
    EXPECT_OK(nt_index_set_scalar_(e, 2, idx, false, nt_scalar_int(7)));
    int64_t three = 3;
    nt_tensor *where = long_vec(1, &three);
    EXPECT_OK(nt_index_fill_(e, 1, where, nt_scalar_int(1)));
    nt_tensor_release(where);
    nt_tensor_release(e);
    nt_tensor_release(base);
}

/* resize_ keeps the offset, which an empty view may have near INT64_MAX: the storage it
 * needs overflows and resize_ fails instead. */
static void test_resize_of_a_view_at_a_huge_offset(void) {
    int64_t four = 4, zero = 0, one = 1;
    nt_tensor *base = arange_f(1, &four), *e = NULL;
    EXPECT_OK(nt_as_strided(base, 1, &zero, &one, INT64_MAX - 1, &e));
    EXPECT_ERR(nt_resize_(e, 1, &four), NT_ERR_RUNTIME, "overflow");
    EXPECT(nt_tensor_numel(e) == 0);
    nt_tensor_release(e);
    nt_tensor_release(base);
}

/* Found by fuzzing: masked_select and cat turned an empty operand's strides into byte
 * strides or offsets, which overflow for the strides PyTorch accepts on empty views. */
static void test_masks_and_joins_of_empty_views_with_huge_strides(void) {
    int64_t four = 4, big = (int64_t)1 << 62;
    nt_tensor *base = arange_f(1, &four), *e = NULL, *m = NULL, *mask = NULL, *r = NULL;
    int64_t sizes[2] = {3, 0}, strides[2] = {big, 1};
    EXPECT_OK(nt_as_strided(base, 2, sizes, strides, 0, &e));
    EXPECT_OK(nt_zeros(1, &four, NT_BOOL, NULL, &m));
    EXPECT_OK(nt_as_strided(m, 2, sizes, strides, 1, &mask));
    EXPECT_OK(nt_masked_select(e, mask, &r));
    EXPECT(r && nt_tensor_numel(r) == 0);
    nt_tensor_release(r);
    int64_t wide[3] = {0, 3, big}, zeros[3] = {0, 0, 0};
    nt_tensor *w = NULL;
    EXPECT_OK(nt_as_strided(base, 3, wide, zeros, 0, &w)); /* strides of its copy overflow */
    nt_tensor *pair[2] = {w, w};
    EXPECT_OK(nt_cat(2, pair, 1, NULL, &r));
    EXPECT(r && nt_tensor_sizes(r)[1] == 6);
    nt_tensor_release(r);
    nt_tensor_release(w);
    nt_tensor_release(mask);
    nt_tensor_release(m);
    nt_tensor_release(e);
    nt_tensor_release(base);
}

/* Found by fuzzing: split, chunk and unbind of a dim of 2^62 (an expanded one costs no
 * memory) asked calloc for a list of 2^62 tensors, whose size overflowed; a negative count
 * of split sizes gave a negative count of parts. */
static void test_splits_refuse_impossible_part_counts(void) {
    int64_t one = 1, big = (int64_t)1 << 62;
    nt_tensor *x = arange_f(1, &one), *wide = NULL;
    EXPECT_OK(nt_expand(x, 1, &big, &wide));
    nt_tensor **parts = NULL;
    int64_t count = -1;
    EXPECT_FAIL(nt_split(wide, 1, 0, &parts, &count), NT_ERR_RUNTIME,
                "split: cannot make 4611686018427387904 tensors (at most 4294967296)");
    EXPECT_ERR(nt_unbind(wide, 0, &parts, &count), NT_ERR_RUNTIME, "unbind: cannot make");
    nt_tensor *empty = NULL;
    int64_t zero = 0;
    EXPECT_OK(nt_zeros(1, &zero, NT_FLOAT32, NULL, &empty));
    EXPECT_ERR(nt_chunk(empty, big, 0, &parts, &count), NT_ERR_RUNTIME, "chunk: cannot make");
    EXPECT_ERR(nt_split_with_sizes(empty, -1, NULL, 0, &parts, &count), NT_ERR_VALUE,
               "negative number of sizes");
    EXPECT(parts == NULL && count == -1);
    nt_tensor_release(empty);
    nt_tensor_release(wide);
    nt_tensor_release(x);
}

/* Found by fuzzing (tests/fuzz/fuzz_ops.c): cat(out=x) with x, a legacy empty 1-d tensor,
 * among the inputs passed the overlap checks (x has no element), then resizing x made it
 * an input of 27 elements copied past the end of the result. PyTorch 1.13 refuses both
 * calls below with this message. */
static void test_cat_into_one_of_its_inputs(void) {
    int64_t nine = 9, zero = 0, three = 3;
    nt_tensor *b = NULL, *x = NULL, *y = NULL, *r = NULL;
    EXPECT_OK(nt_ones(1, &nine, NT_BOOL, NULL, &b));
    EXPECT_OK(nt_empty(1, &zero, NT_FLOAT32, NULL, &x));
    nt_tensor *parts[4] = {b, b, b, x};
    EXPECT_FAIL(nt_cat(4, parts, 0, x, &r), NT_ERR_RUNTIME,
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.");
    EXPECT(r == NULL && nt_tensor_numel(x) == 0);
    EXPECT_OK(nt_zeros(1, &three, NT_FLOAT32, NULL, &y));
    nt_tensor *twice[2] = {y, y};
    EXPECT_ERR(nt_cat(2, twice, 0, y, &r), NT_ERR_RUNTIME, "refer to a single memory location");
    EXPECT(r == NULL && nt_tensor_numel(y) == 3);
    nt_tensor_release(y);
    nt_tensor_release(x);
    nt_tensor_release(b);
}

/* Found by fuzzing (tests/fuzz/fuzz_ops.c): a tensor index whose broadcast dims, added to
 * the dims before it, pass NT_MAX_DIMS wrote past the result's dim arrays (the limit was
 * checked only for the dims after it). x[..., i] with x of 40 dims and i of 30: 69 dims. */
static void test_advanced_index_past_the_dim_limit(void) {
    int64_t ones[40];
    for (int d = 0; d < 40; d++)
        ones[d] = 1;
    nt_tensor *x = NULL, *i = NULL, *r = NULL;
    EXPECT_OK(nt_zeros(40, ones, NT_FLOAT32, NULL, &x));
    EXPECT_OK(nt_zeros(30, ones, NT_INT64, NULL, &i));
    nt_index idx[2] = {{.kind = NT_INDEX_ELLIPSIS}, {.kind = NT_INDEX_TENSOR, .tensor = i}};
    EXPECT_FAIL(nt_index_get(x, 2, idx, &r), NT_ERR_RUNTIME,
                "indexing would give more than 64 dims");
    EXPECT_ERR(nt_index_set_scalar_(x, 2, idx, false, nt_scalar_int(1)), NT_ERR_RUNTIME,
               "more than 64 dims");
    EXPECT(r == NULL);
    nt_tensor_release(i);
    nt_tensor_release(x);
}

/* Every dim argument of the family takes a name too (nt_dim_name), resolved with PyTorch's
 * texts; the ops are rows of the op table, so nt_call_op calls them as well. */
static void test_dims_by_name_and_generic_calls(void) {
    int64_t s[2] = {2, 3};
    nt_tensor *a = arange_f(2, s), *named = NULL, *r = NULL;
    nt_name n, c, q;
    EXPECT_OK(nt_name_intern("N", &n));
    EXPECT_OK(nt_name_intern("C", &c));
    EXPECT_OK(nt_name_intern("Q", &q));
    EXPECT_OK(nt_refine_names(a, 2, (nt_name[]){n, c}, -1, &named));
    nt_tensor **parts = NULL;
    int64_t count = 0;
    EXPECT_OK(nt_split(named, 2, nt_dim_name(c), &parts, &count));
    EXPECT(count == 2);
    if (count == 2) expect_values(parts[1], 2, (int64_t[]){2, 1}, (float[]){2, 5});
    nt_tensors_release(parts, count);
    EXPECT_OK(nt_unbind(named, nt_dim_name(n), &parts, &count));
    EXPECT(count == 2);
    nt_tensors_release(parts, count);
    EXPECT_ERR(nt_chunk(named, 2, nt_dim_name(q), &parts, &count), NT_ERR_RUNTIME,
               "Name 'Q' not found in Tensor['N', 'C'].");
    nt_tensor *pair[2] = {named, named};
    EXPECT_OK(nt_cat(2, pair, nt_dim_name(c), NULL, &r)); /* torch.cat([x, x], 'C') */
    EXPECT(nt_tensor_sizes(r)[1] == 6);
    nt_tensor_release(r);
    nt_tensor *idx = long_vec(1, (int64_t[]){1});
    EXPECT_OK(nt_index_fill(named, nt_dim_name(c), idx, nt_scalar_int(-1), &r));
    expect_values(r, 2, s, (float[]){0, -1, 2, 3, -1, 5});
    nt_tensor_release(r);
    /* torch.masked_select(a, [False, True, True], out=out): out resized with its warning */
    nt_tensor *mask = bool_vec(3, (bool[]){false, true, true}), *out = NULL;
    EXPECT_OK(nt_zeros(1, (int64_t[]){2}, NT_FLOAT32, NULL, &out));
    nt_call call;
    call.op = NT_OP_MASKED_SELECT;
    call.inplace = false;
    call.out[0] = out;
    call.out[1] = NULL;
    call.args[0] = nt_arg_tensor(a);
    call.args[1] = nt_arg_tensor(mask);
    EXPECT_OK(nt_call_op(&call));
    EXPECT(call.result[0] == out);
    expect_values(out, 1, (int64_t[]){4}, (float[]){1, 2, 4, 5});
    const char *warning = nt_take_warning();
    EXPECT(warning && strstr(warning, "had shape [2], which does not match the required output "
                                      "shape [4]"));
    nt_tensor_release(call.result[0]);
    nt_tensor_release(out);
    nt_tensor_release(mask);
    nt_tensor_release(idx);
    nt_tensor_release(named);
    nt_tensor_release(a);
}

int main(void) {
    NT_RUN(test_basic_getitem_names_and_views);
    NT_RUN(test_advanced_getitem);
    NT_RUN(test_setitem);
    NT_RUN(test_index_fill_and_masks);
    NT_RUN(test_join_and_split);
    NT_RUN(test_resize);
    NT_RUN(test_indexing_empty_views_with_huge_strides);
    NT_RUN(test_resize_of_a_view_at_a_huge_offset);
    NT_RUN(test_masks_and_joins_of_empty_views_with_huge_strides);
    NT_RUN(test_splits_refuse_impossible_part_counts);
    NT_RUN(test_cat_into_one_of_its_inputs);
    NT_RUN(test_advanced_index_past_the_dim_limit);
    NT_RUN(test_dims_by_name_and_generic_calls);
    return nt_test_summary();
}
