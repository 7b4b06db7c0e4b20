/*
 * test_views.c — transpose, t, permute, expand, squeeze, unsqueeze, select, narrow, view,
 * reshape, as_strided, diagonal, is_same_size, the in-place squeeze_/unsqueeze_/as_strided_ and
 * dims by name: result metadata, names, shared storage, values, and every error
 * with PyTorch 1.13's status and message (checked against torch).
 */
#include <stdarg.h>

#include "core/tensor.h"
#include "nt_test.h"

/* True when t has `ndim` dims with these sizes then these strides. */
static bool geometry_is(const nt_tensor *t, int ndim, ...) {
    va_list ap;
    va_start(ap, ndim);
    bool ok = nt_tensor_ndim(t) == ndim;
    for (int i = 0; i < ndim; i++)
        ok = ok && nt_tensor_sizes(t)[i] == va_arg(ap, int64_t);
    for (int i = 0; i < ndim; i++)
        ok = ok && nt_tensor_strides(t)[i] == va_arg(ap, int64_t);
    va_end(ap);
    if (!ok) {
        fprintf(stderr, "  geometry: sizes");
        for (int i = 0; i < nt_tensor_ndim(t); i++)
            fprintf(stderr, " %lld", (long long)nt_tensor_sizes(t)[i]);
        fprintf(stderr, ", strides");
        for (int i = 0; i < nt_tensor_ndim(t); i++)
            fprintf(stderr, " %lld", (long long)nt_tensor_strides(t)[i]);
        fprintf(stderr, "\n");
    }
    return ok;
}
#define G(...) geometry_is(__VA_ARGS__)
#define I(x) ((int64_t)(x))

/* True when t's names are these texts (NULL for None), or t is unnamed and all are NULL. */
static bool names_are(const nt_tensor *t, ...) {
    va_list ap;
    va_start(ap, t);
    bool ok = true, any = false;
    for (int i = 0; i < nt_tensor_ndim(t); i++) {
        const char *want = va_arg(ap, const char *);
        const char *have = nt_tensor_names(t) ? nt_name_str(nt_tensor_names(t)[i]) : NULL;
        any = any || want;
        ok = ok && (want && have ? strcmp(want, have) == 0 : want == have);
    }
    va_end(ap);
    return ok && nt_tensor_has_names(t) == any;
}

/* A float32 tensor holding 0, 1, 2, ... in row-major order. */
static nt_tensor *iota(int ndim, const int64_t *sizes, const nt_name *names) {
    nt_tensor *t = NULL;
    if (nt_tensor_alloc(NT_FLOAT32, ndim, sizes, names, &t) != NT_OK) return NULL;
    float *p = nt_tensor_data(t);
    for (int64_t i = 0; i < nt_tensor_numel(t); i++)
        p[i] = (float)i;
    return t;
}

/* The element of a float32 tensor at the given index (ndim entries). */
static float at(const nt_tensor *t, ...) {
    va_list ap;
    va_start(ap, t);
    int64_t off = 0;
    for (int i = 0; i < nt_tensor_ndim(t); i++)
        off += va_arg(ap, int64_t) * t->strides[i];
    va_end(ap);
    return ((const float *)nt_tensor_data(t))[off];
}

static nt_tensor *base3(bool named) { /* [2, 3, 4], named (N, C, H) or not */
    int64_t sizes[3] = {2, 3, 4};
    nt_name names[3] = {N("N"), N("C"), N("H")};
    return iota(3, sizes, named ? names : NULL);
}

static void test_transpose_swaps_dims_and_names(void) {
    nt_tensor *x = base3(true), *y = NULL;
    EXPECT_OK(nt_transpose(x, 0, -1, &y));
    EXPECT(G(y, 3, I(4), I(3), I(2), I(1), I(4), I(12)));
    EXPECT(names_are(y, "H", "C", "N"));
    EXPECT(nt_tensor_shares_storage(x, y) && nt_tensor_offset(y) == 0);
    EXPECT(!nt_tensor_is_contiguous(y));
    EXPECT(at(y, I(3), I(1), I(1)) == at(x, I(1), I(1), I(3)));
    nt_tensor_release(y);
    EXPECT_OK(nt_transpose(x, 1, 1, &y));
    EXPECT(G(y, 3, I(2), I(3), I(4), I(12), I(4), I(1)) && names_are(y, "N", "C", "H"));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_transpose(x, 0, 3, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    EXPECT(y == NULL);
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_OK(nt_transpose(s, 0, -1, &y));
    EXPECT(nt_tensor_ndim(y) == 0);
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(x);
}

static void test_t_handles_up_to_two_dims(void) {
    nt_tensor *x = base3(true), *y = NULL;
    EXPECT_FAIL(nt_t(x, &y), NT_ERR_RUNTIME,
                "t() expects a tensor with <= 2 dimensions, but self is 3D");
    int64_t sizes[2] = {2, 3};
    nt_name ab[2] = {N("A"), N("B")};
    nt_tensor *m = iota(2, sizes, ab);
    EXPECT_OK(nt_t(m, &y));
    EXPECT(G(y, 2, I(3), I(2), I(1), I(3)) && names_are(y, "B", "A"));
    nt_tensor_release(y);
    nt_tensor *v = iota(1, sizes, ab);
    EXPECT_OK(nt_t(v, &y));
    EXPECT(G(y, 1, I(2), I(1)) && names_are(y, "A"));
    nt_tensor_release(y);
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_OK(nt_t(s, &y));
    EXPECT(nt_tensor_ndim(y) == 0 && nt_tensor_shares_storage(s, y));
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(v);
    nt_tensor_release(m);
    nt_tensor_release(x);
}

static void test_permute_moves_names_with_dims(void) {
    nt_tensor *x = base3(true), *y = NULL;
    int64_t order[3] = {2, 0, -2};
    EXPECT_OK(nt_permute(x, 3, order, &y));
    EXPECT(G(y, 3, I(4), I(2), I(3), I(1), I(12), I(4)));
    EXPECT(names_are(y, "H", "N", "C") && nt_tensor_shares_storage(x, y));
    EXPECT(at(y, I(2), I(1), I(0)) == at(x, I(1), I(0), I(2)));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_permute(x, 2, order, &y), NT_ERR_RUNTIME,
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = 3 is not "
                "equal to len(dims) = 2");
    int64_t dup[3] = {2, 0, 0}, oob[3] = {2, 0, 3};
    EXPECT_FAIL(nt_permute(x, 3, dup, &y), NT_ERR_RUNTIME,
                "permute(): duplicate dims are not allowed.");
    EXPECT_FAIL(nt_permute(x, 3, oob, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    EXPECT(y == NULL);
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_OK(nt_permute(s, 0, NULL, &y));
    EXPECT(nt_tensor_ndim(y) == 0);
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(x);
}

static void test_expand_broadcasts_with_zero_strides(void) {
    int64_t sizes[2] = {3, 1};
    nt_name cw[2] = {N("C"), N("W")};
    nt_tensor *x = iota(2, sizes, cw), *y = NULL;
    int64_t to[3] = {2, 3, 4};
    EXPECT_OK(nt_expand(x, 3, to, &y));
    EXPECT(G(y, 3, I(2), I(3), I(4), I(0), I(1), I(0)));
    EXPECT(names_are(y, NULL, "C", "W") && nt_tensor_shares_storage(x, y));
    EXPECT(at(y, I(1), I(2), I(3)) == 2.0f);
    nt_tensor_release(y);
    int64_t keep[2] = {-1, 4};
    EXPECT_OK(nt_expand(x, 2, keep, &y));
    EXPECT(G(y, 2, I(3), I(4), I(1), I(0)) && names_are(y, "C", "W"));
    nt_tensor_release(y);
    nt_tensor *other = iota(3, to, NULL);
    EXPECT_OK(nt_expand_as(x, other, &y));
    EXPECT(G(y, 3, I(2), I(3), I(4), I(0), I(1), I(0)) && names_are(y, NULL, "C", "W"));
    nt_tensor_release(y);
    nt_tensor_release(other);
    nt_tensor_release(x);

    /* new leading size-one dims take the stride of an outer dim (PyTorch's geometry) */
    int64_t s34[2] = {3, 4}, sl[2] = {3, 2}, st[2] = {4, 1}, lead[3] = {1, 3, 2};
    nt_tensor *m = iota(2, s34, NULL), *slice = NULL;
    EXPECT_OK(nt_as_strided(m, 2, sl, st, 0, &slice));
    EXPECT_OK(nt_expand(slice, 3, lead, &y));
    EXPECT(G(y, 3, I(1), I(3), I(2), I(12), I(4), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(slice);
    nt_tensor_release(m);

    int64_t three = 3;
    nt_tensor *v = iota(1, &three, NULL);
    y = NULL;
    int64_t bad[2] = {2, 4}, lead_unknown[2] = {-1, 3}, neg[2] = {2, -2};
    EXPECT_FAIL(nt_expand(v, 2, bad, &y), NT_ERR_RUNTIME,
                "The expanded size of the tensor (4) must match the existing size (3) at "
                "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]");
    EXPECT_FAIL(nt_expand(v, 2, lead_unknown, &y), NT_ERR_RUNTIME,
                "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                "dimension 0");
    EXPECT_FAIL(nt_expand(v, 2, neg, &y), NT_ERR_RUNTIME,
                "The expanded size of the tensor (-2) must match the existing size (3) at "
                "non-singleton dimension 1.  Target sizes: [2, -2].  Tensor sizes: [3]");
    int64_t one = 1, minus_two = -2;
    nt_tensor *u = iota(1, &one, NULL);
    EXPECT_FAIL(nt_expand(u, 1, &minus_two, &y), NT_ERR_RUNTIME,
                "numel: integer multiplication overflow");
    int64_t s23[2] = {2, 3};
    nt_tensor *d = NULL;
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT64, 2, s23, NULL, &d));
    EXPECT_FAIL(nt_expand(d, 1, &three, &y), NT_ERR_RUNTIME,
                "expand(torch.DoubleTensor{[2, 3]}, size=[3]): the number of sizes provided (1) "
                "must be greater or equal to the number of dimensions in the tensor (2)");
    EXPECT(y == NULL);
    nt_tensor_release(d);
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_OK(nt_expand(s, 2, s23, &y));
    EXPECT(G(y, 2, I(2), I(3), I(0), I(0)));
    nt_tensor_release(y);
    EXPECT_OK(nt_expand(s, 1, &one, &y));
    EXPECT(G(y, 1, I(1), I(0)));
    nt_tensor_release(y);
    int64_t zero = 0;
    EXPECT_OK(nt_expand(u, 1, &zero, &y));
    EXPECT(G(y, 1, I(0), I(0)) && nt_tensor_numel(y) == 0);
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(u);
    nt_tensor_release(v);
}

static void test_squeeze_removes_size_one_dims_and_their_names(void) {
    int64_t sizes[3] = {1, 3, 1};
    nt_name abc[3] = {N("A"), N("B"), N("C")};
    nt_tensor *x = iota(3, sizes, abc), *y = NULL;
    EXPECT_OK(nt_squeeze(x, &y));
    EXPECT(G(y, 1, I(3), I(1)) && names_are(y, "B") && nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    EXPECT_OK(nt_squeeze_dim(x, -1, &y));
    EXPECT(G(y, 2, I(1), I(3), I(3), I(1)) && names_are(y, "A", "B"));
    nt_tensor_release(y);
    /* a dim that is not size one stays; unlike PyTorch 1.13 the names stay too */
    EXPECT_OK(nt_squeeze_dim(x, 1, &y));
    EXPECT(G(y, 3, I(1), I(3), I(1), I(3), I(1), I(1)) && names_are(y, "A", "B", "C"));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_squeeze_dim(x, 3, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_OK(nt_squeeze_dim(s, 0, &y));
    EXPECT(nt_tensor_ndim(y) == 0);
    nt_tensor_release(y);
    EXPECT_OK(nt_squeeze(s, &y));
    EXPECT(nt_tensor_ndim(y) == 0);
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(x);
}

static void test_unsqueeze_inserts_an_unnamed_dim(void) {
    nt_tensor *x = base3(true), *y = NULL;
    EXPECT_OK(nt_unsqueeze(x, 1, &y));
    EXPECT(G(y, 4, I(2), I(1), I(3), I(4), I(12), I(12), I(4), I(1)));
    EXPECT(names_are(y, "N", NULL, "C", "H") && nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    EXPECT_OK(nt_unsqueeze(x, -1, &y));
    EXPECT(G(y, 4, I(2), I(3), I(4), I(1), I(12), I(4), I(1), I(1)));
    EXPECT(names_are(y, "N", "C", "H", NULL));
    nt_tensor_release(y);
    /* strides on a transposed input follow PyTorch's inferUnsqueezeGeometry */
    nt_tensor *u = base3(false), *tr = NULL;
    EXPECT_OK(nt_transpose(u, 0, 2, &tr));
    EXPECT_OK(nt_unsqueeze(tr, 1, &y));
    EXPECT(G(y, 4, I(4), I(1), I(3), I(2), I(1), I(12), I(4), I(12)) && !nt_tensor_has_names(y));
    nt_tensor_release(y);
    EXPECT_OK(nt_unsqueeze(tr, 3, &y));
    EXPECT(G(y, 4, I(4), I(3), I(2), I(1), I(1), I(4), I(12), I(1)));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_unsqueeze(x, 4, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_FAIL(nt_unsqueeze(s, 1, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    EXPECT_OK(nt_unsqueeze(s, 0, &y));
    EXPECT(G(y, 1, I(1), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(tr);
    nt_tensor_release(u);
    nt_tensor_release(x);
}

static void test_select_drops_the_dim(void) {
    nt_tensor *x = base3(true), *y = NULL;
    EXPECT_OK(nt_select(x, 1, 2, &y));
    EXPECT(G(y, 2, I(2), I(4), I(12), I(1)) && nt_tensor_offset(y) == 8);
    EXPECT(names_are(y, "N", "H") && nt_tensor_shares_storage(x, y));
    EXPECT(at(y, I(1), I(3)) == at(x, I(1), I(2), I(3)));
    nt_tensor_release(y);
    EXPECT_OK(nt_select(x, -2, -1, &y));
    EXPECT(nt_tensor_offset(y) == 8);
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_select(x, 1, 7, &y), NT_ERR_INDEX,
                "select(): index 7 out of range for tensor of size [2, 3, 4] at dimension 'C'");
    nt_tensor *u = base3(false);
    EXPECT_FAIL(nt_select(u, 0, 5, &y), NT_ERR_INDEX,
                "select(): index 5 out of range for tensor of size [2, 3, 4] at dimension 0");
    EXPECT_FAIL(nt_select(u, 0, -3, &y), NT_ERR_INDEX,
                "select(): index -3 out of range for tensor of size [2, 3, 4] at dimension 0");
    EXPECT_FAIL(nt_select(u, 3, 0, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_FAIL(nt_select(s, 0, 0, &y), NT_ERR_INDEX,
                "select() cannot be applied to a 0-dim tensor.");
    EXPECT(y == NULL);
    /* selecting the only named dim leaves an unnamed tensor */
    int64_t sizes[2] = {2, 3};
    nt_name n_only[2] = {N("N"), NT_NAME_NONE};
    nt_tensor *p = iota(2, sizes, n_only);
    EXPECT_OK(nt_select(p, 0, 1, &y));
    EXPECT(G(y, 1, I(3), I(1)) && nt_tensor_offset(y) == 3 && !nt_tensor_has_names(y));
    nt_tensor_release(y);
    nt_tensor_release(p);
    nt_tensor_release(s);
    nt_tensor_release(u);
    nt_tensor_release(x);
}

static void test_narrow_keeps_names(void) {
    nt_tensor *x = base3(true), *y = NULL;
    EXPECT_OK(nt_narrow(x, 2, 1, 2, &y));
    EXPECT(G(y, 3, I(2), I(3), I(2), I(12), I(4), I(1)) && nt_tensor_offset(y) == 1);
    EXPECT(names_are(y, "N", "C", "H") && nt_tensor_shares_storage(x, y));
    EXPECT(at(y, I(1), I(2), I(1)) == at(x, I(1), I(2), I(2)));
    nt_tensor_release(y);
    EXPECT_OK(nt_narrow(x, 1, -2, 2, &y));
    EXPECT(G(y, 3, I(2), I(2), I(4), I(12), I(4), I(1)) && nt_tensor_offset(y) == 4);
    nt_tensor_release(y);
    EXPECT_OK(nt_narrow(x, 1, 3, 0, &y)); /* the empty slice at the end */
    EXPECT(nt_tensor_sizes(y)[1] == 0 && nt_tensor_offset(y) == 12);
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_narrow(x, 1, 2, 2, &y), NT_ERR_RUNTIME,
                "start (2) + length (2) exceeds dimension size (3).");
    EXPECT_FAIL(nt_narrow(x, 1, 0, -1, &y), NT_ERR_RUNTIME,
                "start (0) + length (-1) exceeds dimension size (3).");
    EXPECT_FAIL(nt_narrow(x, 1, -4, 2, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got -4)");
    EXPECT_FAIL(nt_narrow(x, 1, 4, 0, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 4)");
    EXPECT_FAIL(nt_narrow(x, 5, 0, 1, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 5)");
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_FAIL(nt_narrow(s, 0, 0, 1, &y), NT_ERR_RUNTIME,
                "narrow() cannot be applied to a 0-dim tensor.");
    EXPECT(y == NULL);
    int64_t zero = 0;
    nt_tensor *e = iota(1, &zero, NULL);
    EXPECT_OK(nt_narrow(e, 0, -1, 0, &y));
    EXPECT(G(y, 1, I(0), I(1)) && nt_tensor_offset(y) == 0);
    nt_tensor_release(y);
    nt_tensor_release(e);
    nt_tensor_release(s);
    nt_tensor_release(x);
}

static void test_view_infers_sizes_and_checks_them(void) {
    nt_tensor *x = base3(false), *y = NULL;
    int64_t s1[2] = {-1, 4};
    EXPECT_OK(nt_view(x, 2, s1, &y));
    EXPECT(G(y, 2, I(6), I(4), I(4), I(1)) && nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    y = NULL;
    int64_t five = 5, two_unknown[2] = {-1, -1}, bad_dim[2] = {-2, 12};
    EXPECT_FAIL(nt_view(x, 1, &five, &y), NT_ERR_RUNTIME,
                "shape '[5]' is invalid for input of size 24");
    EXPECT_FAIL(nt_reshape(x, 1, &five, &y), NT_ERR_RUNTIME,
                "shape '[5]' is invalid for input of size 24");
    EXPECT_FAIL(nt_view(x, 2, two_unknown, &y), NT_ERR_RUNTIME,
                "only one dimension can be inferred");
    EXPECT_FAIL(nt_view(x, 2, bad_dim, &y), NT_ERR_RUNTIME, "invalid shape dimension -2");
    int64_t huge[3] = {INT64_MAX, 4, 2};
    EXPECT_FAIL(nt_view(x, 3, huge, &y), NT_ERR_RUNTIME,
                "shape '[9223372036854775807, 4, 2]' is invalid for input of size 24");
    int64_t s03[2] = {0, 3}, ambiguous[2] = {-1, 0}, s30[2] = {3, 0};
    nt_tensor *e = iota(2, s03, NULL);
    EXPECT_FAIL(nt_view(e, 2, ambiguous, &y), NT_ERR_RUNTIME,
                "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified "
                "dimension size -1 can be any value and is ambiguous");
    EXPECT(y == NULL);
    EXPECT_OK(nt_view(e, 2, s30, &y)); /* empty: strides as if freshly allocated */
    EXPECT(G(y, 2, I(3), I(0), I(1), I(1)));
    nt_tensor_release(y);
    EXPECT_OK(nt_view(e, 2, s03, &y)); /* empty, same shape: strides kept */
    EXPECT(G(y, 2, I(0), I(3), I(3), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(e);
    /* to and from 0-dim */
    nt_tensor *s = iota(0, NULL, NULL), *back = NULL;
    int64_t ones[2] = {1, 1};
    EXPECT_OK(nt_view(s, 2, ones, &y));
    EXPECT(G(y, 2, I(1), I(1), I(1), I(1)));
    EXPECT_OK(nt_view(y, 0, NULL, &back));
    EXPECT(nt_tensor_ndim(back) == 0 && nt_tensor_shares_storage(s, back));
    nt_tensor_release(back);
    nt_tensor_release(y);
    int64_t minus_one = -1;
    EXPECT_OK(nt_reshape(s, 1, &minus_one, &y));
    EXPECT(G(y, 1, I(1), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(x);
}

static void test_view_of_non_contiguous_follows_compute_stride(void) {
    nt_tensor *x = base3(false), *tr = NULL, *y = NULL;
    EXPECT_OK(nt_transpose(x, 0, 1, &tr)); /* [3, 2, 4] strides (4, 12, 1) */
    int64_t split[4] = {3, 2, 2, 2}, flat = 24;
    EXPECT_OK(nt_view(tr, 4, split, &y));
    EXPECT(G(y, 4, I(3), I(2), I(2), I(2), I(4), I(12), I(2), I(1)));
    EXPECT(nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_view(tr, 1, &flat, &y), NT_ERR_RUNTIME,
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    EXPECT(y == NULL);
    /* every other element of the last dim: [2, 3, 2] strides (12, 4, 2) */
    int64_t ss[3] = {2, 3, 2}, sst[3] = {12, 4, 2}, s62[2] = {6, 2}, s34[2] = {3, 4};
    nt_tensor *sl = NULL;
    EXPECT_OK(nt_as_strided(x, 3, ss, sst, 0, &sl));
    EXPECT_OK(nt_view(sl, 2, s62, &y));
    EXPECT(G(y, 2, I(6), I(2), I(4), I(2)));
    nt_tensor_release(y);
    EXPECT_OK(nt_reshape(sl, 2, s34, &y)); /* a view: strides (8, 2) */
    EXPECT(G(y, 2, I(3), I(4), I(8), I(2)) && nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    /* size-one dims with odd strides do not break a chunk: [4, 1, 2] of a [4, 1, 3] */
    int64_t s413[3] = {4, 1, 3}, s412[3] = {4, 1, 2}, st[3] = {3, 3, 1}, s42[2] = {4, 2};
    nt_tensor *b = iota(3, s413, NULL), *c = NULL;
    EXPECT_OK(nt_as_strided(b, 3, s412, st, 0, &c));
    EXPECT_OK(nt_view(c, 2, s42, &y));
    EXPECT(G(y, 2, I(4), I(2), I(3), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(c);
    nt_tensor_release(b);
    nt_tensor_release(sl);
    nt_tensor_release(tr);
    nt_tensor_release(x);
}

static void test_reshape_copies_when_strides_do_not_allow_a_view(void) {
    nt_tensor *x = base3(false), *tr = NULL, *y = NULL;
    EXPECT_OK(nt_transpose(x, 0, 1, &tr));
    int64_t flat = 24;
    EXPECT_OK(nt_reshape(tr, 1, &flat, &y));
    EXPECT(G(y, 1, I(24), I(1)) && nt_tensor_is_contiguous(y));
    EXPECT(!nt_tensor_shares_storage(x, y));
    /* the copy holds tr's elements in row-major order */
    bool same = true;
    int64_t k = 0;
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++)
            for (int64_t l = 0; l < 4; l++)
                same = same && at(y, k++) == at(tr, i, j, l);
    EXPECT(same);
    nt_tensor_release(y);
    int64_t s64[2] = {6, 4};
    EXPECT_OK(nt_reshape(x, 2, s64, &y)); /* contiguous input: a view */
    EXPECT(G(y, 2, I(6), I(4), I(4), I(1)) && nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    nt_tensor_release(tr);
    nt_tensor_release(x);
}

static void test_view_and_reshape_keep_names_of_kept_dims(void) {
    nt_tensor *x = base3(true), *y = NULL;
    int64_t a[2] = {2, 12}, b[2] = {6, 4}, c[4] = {2, 1, 3, 4}, d[3] = {2, 3, 4};
    int64_t e[4] = {2, 3, 2, 2};
    EXPECT_OK(nt_view(x, 2, a, &y));
    EXPECT(names_are(y, "N", NULL));
    nt_tensor_release(y);
    EXPECT_OK(nt_view(x, 2, b, &y));
    EXPECT(names_are(y, NULL, "H"));
    nt_tensor_release(y);
    EXPECT_OK(nt_view(x, 4, c, &y));
    EXPECT(names_are(y, "N", NULL, "C", "H"));
    nt_tensor_release(y);
    EXPECT_OK(nt_reshape(x, 3, d, &y));
    EXPECT(names_are(y, "N", "C", "H"));
    nt_tensor_release(y);
    EXPECT_OK(nt_reshape(x, 4, e, &y)); /* H split in two */
    EXPECT(names_are(y, "N", "C", NULL, NULL));
    nt_tensor_release(y);
    int64_t f = 24;
    EXPECT_OK(nt_reshape(x, 1, &f, &y));
    EXPECT(!nt_tensor_has_names(y));
    nt_tensor_release(y);
    /* a dropped size-one dim loses nothing else: [A=2, B=1, C=3] -> [2, 3] */
    int64_t s213[3] = {2, 1, 3}, s23[2] = {2, 3};
    nt_name abc[3] = {N("A"), N("B"), N("C")};
    nt_tensor *z = iota(3, s213, abc);
    EXPECT_OK(nt_view(z, 2, s23, &y));
    EXPECT(names_are(y, "A", "C"));
    nt_tensor_release(y);
    nt_tensor_release(z);
    /* names survive the copying path too */
    nt_tensor *tr = NULL;
    EXPECT_OK(nt_transpose(x, 0, 1, &tr)); /* (C, N, H) */
    int64_t g[2] = {6, 4};
    EXPECT_OK(nt_reshape(tr, 2, g, &y));
    EXPECT(!nt_tensor_shares_storage(x, y) && names_are(y, NULL, "H"));
    nt_tensor_release(y);
    nt_tensor_release(tr);
    nt_tensor_release(x);
}

static void test_as_strided_checks_the_extent(void) {
    nt_tensor *x = base3(true), *y = NULL;
    int64_t sizes[2] = {2, 2}, strides[2] = {1, 2};
    EXPECT_OK(nt_as_strided(x, 2, sizes, strides, 3, &y));
    EXPECT(G(y, 2, I(2), I(2), I(1), I(2)) && nt_tensor_offset(y) == 3);
    EXPECT(!nt_tensor_has_names(y) && nt_tensor_shares_storage(x, y));
    EXPECT(at(y, I(1), I(1)) == 6.0f);
    nt_tensor_release(y);
    /* exactly the whole storage: 1 + 23 elements */
    int64_t all = 24, one = 1;
    EXPECT_OK(nt_as_strided(x, 1, &all, &one, 0, &y));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_as_strided(x, 1, &all, &one, 1, &y), NT_ERR_RUNTIME,
                "setStorage: sizes [24], strides [1], storage offset 1, and itemsize 4 requiring "
                "a storage size of 100 are out of bounds for storage of size 96");
    int64_t s55[2] = {5, 5}, st51[2] = {5, 1}, neg[2] = {-1, 1}, s22[2] = {2, 2};
    int64_t negsize[2] = {-2, 2}, st11[2] = {1, 1};
    EXPECT_FAIL(nt_as_strided(x, 2, s55, st51, 0, &y), NT_ERR_RUNTIME,
                "setStorage: sizes [5, 5], strides [5, 1], storage offset 0, and itemsize 4 "
                "requiring a storage size of 100 are out of bounds for storage of size 96");
    EXPECT_FAIL(nt_as_strided(x, 2, s22, neg, 5, &y), NT_ERR_RUNTIME,
                "as_strided: Negative strides are not supported at the moment, got strides: "
                "[-1, 1]");
    EXPECT_FAIL(nt_as_strided(x, 2, s22, st11, -1, &y), NT_ERR_RUNTIME,
                "Tensor: invalid storage offset -1");
    EXPECT_FAIL(nt_as_strided(x, 2, negsize, st11, 0, &y), NT_ERR_RUNTIME,
                "Storage size calculation overflowed with sizes=[-2, 2] and strides=[1, 1]");
    int64_t big[2] = {3, 3}, bigst[2] = {INT64_MAX / 2, 1};
    EXPECT_FAIL(nt_as_strided(x, 2, big, bigst, 0, &y), NT_ERR_RUNTIME,
                "Storage size calculation overflowed with sizes=[3, 3] and "
                "strides=[4611686018427387903, 1]");
    EXPECT(y == NULL);
    /* no elements: any offset and strides */
    int64_t s02[2] = {0, 2}, st100[2] = {100, 1};
    EXPECT_OK(nt_as_strided(x, 2, s02, st100, 1000, &y));
    EXPECT(G(y, 2, I(0), I(2), I(100), I(1)) && nt_tensor_offset(y) == 1000);
    nt_tensor_release(y);
    nt_tensor_release(x);
}

static void test_views_of_views_track_offsets(void) {
    nt_tensor *x = base3(false), *a = NULL, *b = NULL, *c = NULL;
    EXPECT_OK(nt_select(x, 0, 1, &a));    /* [3, 4] offset 12 */
    EXPECT_OK(nt_narrow(a, 1, 1, 2, &b)); /* [3, 2] offset 13 */
    EXPECT_OK(nt_transpose(b, 0, 1, &c)); /* [2, 3] */
    EXPECT(G(c, 2, I(2), I(3), I(1), I(4)) && nt_tensor_offset(c) == 13);
    EXPECT(at(c, I(1), I(2)) == at(x, I(1), I(2), I(2)));
    nt_tensor_release(x); /* views keep the storage alive */
    EXPECT(at(c, I(0), I(0)) == 13.0f);
    nt_tensor_release(c);
    nt_tensor_release(b);
    nt_tensor_release(a);
}

/* Found by fuzzing (tests/fuzz/fuzz_views.c): zero strides let sizes whose product passes
 * int64 fit any storage; such a shape has no element count and is refused. */
static void test_as_strided_refuses_an_element_count_past_int64(void) {
    nt_tensor *x = base3(false), *y = NULL;
    int64_t sizes[2] = {I(1) << 62, 4}, zeros[2] = {0, 0};
    EXPECT_FAIL(nt_as_strided(x, 2, sizes, zeros, 0, &y), NT_ERR_RUNTIME,
                "numel: integer multiplication overflow");
    EXPECT(y == NULL);
    int64_t fits[2] = {I(1) << 31, I(1) << 31}; /* 2^62 elements, all at one address */
    EXPECT_OK(nt_as_strided(x, 2, fits, zeros, 0, &y));
    EXPECT(nt_tensor_numel(y) == I(1) << 62);
    nt_tensor_release(y);
    nt_tensor_release(x);
}

/* Found by fuzzing: an empty view may have any strides and offset (PyTorch accepts
 * zeros(4).as_strided((0, 4), (1, 2**62))), so select, narrow and the views after them
 * must not overflow computing offsets; the offset then stays where it was. */
static void test_views_of_empty_views_with_huge_strides(void) {
    nt_tensor *x = base3(false), *e = NULL, *y = NULL;
    int64_t sizes[2] = {0, 4}, strides[2] = {1, I(1) << 62};
    EXPECT_OK(nt_as_strided(x, 2, sizes, strides, 5, &e));
    EXPECT_OK(nt_select(e, 1, 3, &y));
    EXPECT(G(y, 1, I(0), I(1)) && nt_tensor_offset(y) == 5);
    nt_tensor_release(y);
    EXPECT_OK(nt_narrow(e, 1, 2, 2, &y));
    EXPECT(G(y, 2, I(0), I(2), I(1), I(1) << 62) && nt_tensor_offset(y) == 5);
    nt_tensor_release(y);
    /* without overflow the offset moves as in PyTorch */
    EXPECT_OK(nt_select(e, 1, 1, &y));
    EXPECT(nt_tensor_offset(y) == 5 + (I(1) << 62));
    nt_tensor_release(y);
    EXPECT_OK(nt_unsqueeze(e, 2, &y));
    nt_tensor_release(y);
    nt_tensor_release(e);
    nt_tensor_release(x);
}

/* Found by fuzzing: view and reshape of an empty tensor multiplied its sizes (which may
 * overflow when one is 0) and computed the new strides without a check. */
static void test_view_of_empty_tensors_with_huge_sizes(void) {
    nt_tensor *x = base3(false), *e = NULL, *y = NULL;
    int64_t big[3] = {I(1) << 62, 4, 0}, zeros[3] = {0, 0, 0};
    EXPECT_OK(nt_as_strided(x, 3, big, zeros, 0, &e));
    EXPECT(nt_tensor_numel(e) == 0 && nt_tensor_is_contiguous(e));
    int64_t flat = 0;
    EXPECT_OK(nt_view(e, 1, &flat, &y));
    EXPECT(G(y, 1, I(0), I(1)));
    nt_tensor_release(y);
    int64_t wide[4] = {2, I(1) << 62, 4, 0};
    EXPECT_OK(nt_reshape(e, 4, wide, &y));
    EXPECT(nt_tensor_numel(y) == 0 && nt_tensor_sizes(y)[1] == I(1) << 62);
    nt_tensor_release(y);
    nt_tensor_release(e);
    nt_tensor_release(x);
}

/* Found by fuzzing: a shape whose element count passes int64 saturated to INT64_MAX in
 * view's size check, so it "matched" a tensor of INT64_MAX elements (an expanded one), and
 * computing its strides overflowed. */
static void test_view_to_a_shape_past_int64(void) {
    nt_tensor *x = base3(false), *one = NULL, *wide = NULL, *y = NULL;
    int64_t first = 1, zero = 0, max = INT64_MAX;
    EXPECT_OK(nt_as_strided(x, 1, &first, &zero, 0, &one));
    EXPECT_OK(nt_expand(one, 1, &max, &wide));
    int64_t past[2] = {I(1) << 62, I(1) << 31};
    EXPECT_FAIL(nt_view(wide, 2, past, &y), NT_ERR_RUNTIME,
                "shape '[4611686018427387904, 2147483648]' is invalid for input of size "
                "9223372036854775807");
    EXPECT_ERR(nt_reshape(wide, 2, past, &y), NT_ERR_RUNTIME, "is invalid for input of size");
    int64_t inferred[3] = {I(1) << 62, I(1) << 31, -1};
    EXPECT_ERR(nt_view(wide, 3, inferred, &y), NT_ERR_RUNTIME, "is invalid for input of size");
    int64_t empty[3] = {I(1) << 62, I(1) << 31, 0}; /* a 0 makes any shape empty */
    EXPECT_ERR(nt_view(wide, 3, empty, &y), NT_ERR_RUNTIME, "is invalid for input of size");
    EXPECT(y == NULL);
    nt_tensor_release(wide);
    nt_tensor_release(one);
    nt_tensor_release(x);
}

/* Every dim argument takes a name as well as an index (nt_dim_name). */
static void test_dims_by_name(void) {
    nt_name a, b, c, x;
    EXPECT_OK(nt_name_intern("A", &a));
    EXPECT_OK(nt_name_intern("B", &b));
    EXPECT_OK(nt_name_intern("C", &c));
    EXPECT_OK(nt_name_intern("X", &x));
    nt_name names[3] = {a, b, c};
    nt_tensor *t = iota(3, (int64_t[]){2, 3, 4}, names), *y = NULL;
    EXPECT_OK(nt_transpose(t, nt_dim_name(a), nt_dim_name(c), &y));
    EXPECT(G(y, 3, I(4), I(3), I(2), I(1), I(4), I(12)) && names_are(y, "C", "B", "A"));
    nt_tensor_release(y);
    nt_dim order[3] = {2, nt_dim_name(a), nt_dim_name(b)};
    EXPECT_OK(nt_permute(t, 3, order, &y));
    EXPECT(G(y, 3, I(4), I(2), I(3), I(1), I(12), I(4)) && names_are(y, "C", "A", "B"));
    nt_tensor_release(y);
    EXPECT_OK(nt_select(t, nt_dim_name(b), 1, &y));
    EXPECT(G(y, 2, I(2), I(4), I(12), I(1)) && names_are(y, "A", "C"));
    nt_tensor_release(y);
    EXPECT_OK(nt_narrow(t, nt_dim_name(c), 1, 2, &y));
    EXPECT(G(y, 3, I(2), I(3), I(2), I(12), I(4), I(1)) && nt_tensor_offset(y) == 1);
    nt_tensor_release(y);
    EXPECT_OK(nt_flatten_dims(t, nt_dim_name(b), nt_dim_name(c), &y));
    EXPECT(G(y, 2, I(2), I(12), I(12), I(1)) && names_are(y, "A", NULL));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_ERR(nt_transpose(t, nt_dim_name(x), 0, &y), NT_ERR_RUNTIME,
               "Name 'X' not found in Tensor['A', 'B', 'C'].");
    EXPECT_ERR(nt_squeeze_dim(t, nt_dim_name(NT_NAME_NONE), &y), NT_ERR_RUNTIME,
               "Please look up dimensions by name, got: name = None.");
    EXPECT(y == NULL);
    nt_tensor_release(t);
}

/* diagonal: values checked against torch.arange(24.).reshape(2, 3, 4). */
static void test_diagonal(void) {
    nt_name a, b, c, d;
    EXPECT_OK(nt_name_intern("A", &a));
    EXPECT_OK(nt_name_intern("B", &b));
    EXPECT_OK(nt_name_intern("C", &c));
    EXPECT_OK(nt_name_intern("D", &d));
    nt_name names[3] = {a, b, c};
    nt_tensor *t = iota(3, (int64_t[]){2, 3, 4}, names), *y = NULL;
    EXPECT_OK(
        nt_diagonal(t, 0, 0, 1, &y)); /* torch: size [4, 2], stride (1, 16), names ('C', None) */
    EXPECT(G(y, 2, I(4), I(2), I(1), I(16)) && names_are(y, "C", NULL));
    nt_tensor_release(y);
    EXPECT_OK(nt_diagonal(t, 1, 0, 2, &y)); /* [3, 2], (4, 13), offset 1 */
    EXPECT(G(y, 2, I(3), I(2), I(4), I(13)) && nt_tensor_offset(y) == 1);
    EXPECT(at(y, I(1), I(0)) == 5.0f && at(y, I(2), I(1)) == 22.0f);
    nt_tensor_release(y);
    EXPECT_OK(nt_diagonal_named(t, d, nt_dim_name(a), nt_dim_name(c), -1, &y));
    EXPECT(G(y, 2, I(3), I(1), I(4), I(13)) && nt_tensor_offset(y) == 12);
    EXPECT(names_are(y, "B", "D"));
    nt_tensor_release(y);
    EXPECT_OK(nt_diagonal(t, 9, 1, 2, &y)); /* empty, offset untouched */
    EXPECT(G(y, 2, I(2), I(0), I(12), I(5)) && nt_tensor_offset(y) == 0);
    nt_tensor_release(y);
    y = NULL;
    EXPECT_ERR(nt_diagonal(t, 0, -1, 2, &y), NT_ERR_RUNTIME,
               "diagonal dimensions cannot be identical -1, 2");
    EXPECT_ERR(nt_diagonal_named(t, a, nt_dim_name(b), nt_dim_name(c), 0, &y), NT_ERR_RUNTIME,
               "duplicate");
    EXPECT_ERR(nt_diagonal(t, 0, 0, 3, &y), NT_ERR_INDEX, "Dimension out of range");
    EXPECT(y == NULL);
    bool same = false;
    EXPECT_OK(nt_is_same_size(t, t, &same));
    EXPECT(same);
    nt_tensor *u = iota(2, (int64_t[]){2, 3}, NULL);
    EXPECT_OK(nt_is_same_size(t, u, &same));
    EXPECT(!same);
    nt_tensor_release(u);
    nt_tensor_release(t);
}

/* squeeze_, unsqueeze_, as_strided_ reshape the tensor itself, even past the dims it was
 * made with. */
static void test_inplace_views(void) {
    nt_tensor *t = iota(3, (int64_t[]){2, 1, 3}, NULL), *y = NULL;
    EXPECT_OK(nt_select(t, 0, 1, &y)); /* a view made before */
    EXPECT_OK(nt_squeeze_(t));
    EXPECT(G(t, 2, I(2), I(3), I(3), I(1)) && nt_tensor_is_contiguous(t));
    for (int i = 0; i < 8; i++)
        EXPECT_OK(nt_unsqueeze_(t, 1));
    EXPECT(nt_tensor_ndim(t) == 10 && nt_tensor_sizes(t)[9] == 3 && nt_tensor_strides(t)[1] == 3);
    EXPECT_OK(nt_squeeze_dim_(t, 1));
    EXPECT(nt_tensor_ndim(t) == 9);
    EXPECT_OK(nt_as_strided_(t, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 0));
    EXPECT(G(t, 2, I(3), I(2), I(1), I(3)) && !nt_tensor_is_contiguous(t));
    EXPECT(at(t, I(2), I(1)) == 5.0f && at(y, I(0), I(2)) == 5.0f);
    EXPECT_ERR(nt_as_strided_(t, 2, (int64_t[]){3, 3}, (int64_t[]){1, 3}, 0), NT_ERR_RUNTIME,
               "out of bounds for storage of size 24");
    EXPECT(G(t, 2, I(3), I(2), I(1), I(3))); /* unchanged by the failed call */
    nt_tensor_release(y);
    nt_tensor_release(t);
}

/* The generic entry runs a view op from its schema. */
static void test_call_op_runs_views(void) {
    nt_tensor *t = iota(2, (int64_t[]){2, 3}, NULL);
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = NT_OP_DIAGONAL;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_none(); /* the defaults: offset 0, dims 0 and 1 */
    c.args[2] = nt_arg_none();
    c.args[3] = nt_arg_none();
    EXPECT_OK(nt_call_op(&c));
    EXPECT(G(c.result[0], 1, I(2), I(4)));
    nt_tensor_release(c.result[0]);
    memset(&c, 0, sizeof c);
    c.op = NT_OP_SQUEEZE;
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    EXPECT_OK(nt_call_op(&c));
    EXPECT(c.result[0] == t);
    nt_tensor_release(c.result[0]);
    nt_tensor_release(t);
}

/* transpose_, t_, view_as, reshape_as */
static void test_inplace_transpose_and_as_forms(void) {
    nt_tensor *t = iota(3, (int64_t[]){2, 3, 4}, NULL), *u = iota(1, (int64_t[]){6}, NULL);
    nt_tensor *y = NULL, *shape = iota(2, (int64_t[]){3, 2}, NULL);
    nt_tensor *flat = iota(1, (int64_t[]){24}, NULL);
    EXPECT_OK(nt_transpose_(t, 0, -1));
    EXPECT(G(t, 3, I(4), I(3), I(2), I(1), I(4), I(12)) && !nt_tensor_is_contiguous(t));
    EXPECT_ERR(nt_t_(t), NT_ERR_RUNTIME,
               "t_() expects a tensor with <= 2 dimensions, but self is 3D");
    EXPECT_OK(nt_t_(u)); /* 1-D: unchanged */
    EXPECT(G(u, 1, I(6), I(1)));
    EXPECT_OK(nt_view_as(u, shape, &y));
    EXPECT(G(y, 2, I(3), I(2), I(2), I(1)));
    nt_tensor_release(y);
    EXPECT_OK(nt_reshape_as(t, flat, &y)); /* t is transposed: a copy */
    EXPECT(G(y, 1, I(24), I(1)) && !nt_tensor_shares_storage(y, t) && at(y, I(1)) == 12.0f);
    nt_tensor_release(y);
    y = NULL;
    EXPECT_ERR(nt_view_as(t, flat, &y), NT_ERR_RUNTIME, "view size is not compatible");
    EXPECT(y == NULL);
    nt_tensor_release(flat);
    nt_tensor_release(shape);
    nt_tensor_release(u);
    nt_tensor_release(t);
}

/* movedim and unfold (checked against torch) */
static void test_movedim_and_unfold(void) {
    nt_name a, c;
    EXPECT_OK(nt_name_intern("A", &a));
    EXPECT_OK(nt_name_intern("C", &c));
    nt_name names[3] = {a, NT_NAME_NONE, c};
    nt_tensor *t = iota(3, (int64_t[]){2, 3, 4}, names), *y = NULL;
    nt_dim src[2] = {nt_dim_name(c), 0};
    EXPECT_OK(nt_movedim(t, 2, src, (int64_t[]){0, 1}, &y)); /* movedim((2, 0), (0, 1)) */
    EXPECT(G(y, 3, I(4), I(2), I(3), I(1), I(12), I(4)) && names_are(y, "C", "A", NULL));
    nt_tensor_release(y);
    EXPECT_OK(nt_unfold(t, 1, 2, 1, &y)); /* torch: [2, 2, 4, 2], (12, 4, 1, 4) */
    EXPECT(G(y, 4, I(2), I(2), I(4), I(2), I(12), I(4), I(1), I(4)));
    EXPECT(names_are(y, "A", NULL, "C", NULL) && at(y, I(1), I(1), I(2), I(1)) == 22.0f);
    nt_tensor_release(y);
    y = NULL;
    EXPECT_ERR(nt_movedim(t, 2, (nt_dim[]){0, 0}, (int64_t[]){1, 2}, &y), NT_ERR_RUNTIME,
               "movedim: repeated dim in `source` ([0, 0])");
    EXPECT_ERR(nt_unfold(t, 2, 5, 1, &y), NT_ERR_RUNTIME,
               "maximum size for tensor at dimension 2 is 4 but size is 5");
    EXPECT_ERR(nt_unfold(t, 2, 2, 0, &y), NT_ERR_RUNTIME, "step is 0 but must be > 0");
    EXPECT(y == NULL);
    nt_tensor_release(t);
}

int main(void) {
    NT_RUN(test_transpose_swaps_dims_and_names);
    NT_RUN(test_t_handles_up_to_two_dims);
    NT_RUN(test_permute_moves_names_with_dims);
    NT_RUN(test_expand_broadcasts_with_zero_strides);
    NT_RUN(test_squeeze_removes_size_one_dims_and_their_names);
    NT_RUN(test_unsqueeze_inserts_an_unnamed_dim);
    NT_RUN(test_select_drops_the_dim);
    NT_RUN(test_narrow_keeps_names);
    NT_RUN(test_view_infers_sizes_and_checks_them);
    NT_RUN(test_view_of_non_contiguous_follows_compute_stride);
    NT_RUN(test_reshape_copies_when_strides_do_not_allow_a_view);
    NT_RUN(test_view_and_reshape_keep_names_of_kept_dims);
    NT_RUN(test_as_strided_checks_the_extent);
    NT_RUN(test_views_of_views_track_offsets);
    NT_RUN(test_as_strided_refuses_an_element_count_past_int64);
    NT_RUN(test_views_of_empty_views_with_huge_strides);
    NT_RUN(test_view_of_empty_tensors_with_huge_sizes);
    NT_RUN(test_view_to_a_shape_past_int64);
    NT_RUN(test_dims_by_name);
    NT_RUN(test_diagonal);
    NT_RUN(test_inplace_views);
    NT_RUN(test_call_op_runs_views);
    NT_RUN(test_inplace_transpose_and_as_forms);
    NT_RUN(test_movedim_and_unfold);
    return nt_test_summary();
}
