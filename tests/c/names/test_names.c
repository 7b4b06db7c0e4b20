/*
 * test_names.c — the named-dimension API: rename, rename_map(_), set_names_, refine_names,
 * align_to, align_as, flatten, flatten_names, flatten_dims and unflatten. Results (sizes,
 * strides, names, shared storage) and every error with the status and message PyTorch
 * 1.13 gives (checked against torch), plus the spec's examples and the places where the
 * spec is stricter than PyTorch.
 */
#include <stdarg.h>

#include "core/tensor.h"
#include "names/names.h"
#include "nt_test.h"

#define I(x) ((int64_t)(x))

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
    return ok;
}
#define G(...) geometry_is(__VA_ARGS__)

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
    if (!ok || nt_tensor_has_names(t) != any) {
        char text[512];
        nt_names_repr(nt_tensor_names(t), nt_tensor_ndim(t), text, sizeof text);
        fprintf(stderr, "  names are %s\n", text);
        return false;
    }
    return true;
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

static nt_tensor *named2(const char *a, const char *b) { /* [2, 3] */
    int64_t sizes[2] = {2, 3};
    nt_name names[2] = {a ? N(a) : NT_NAME_NONE, b ? N(b) : NT_NAME_NONE};
    return iota(2, sizes, names);
}

/* ------------------------------------------------------------------ rename */

static void test_rename_positional_is_an_alias(void) {
    nt_tensor *x = named2("N", "C"), *y = NULL;
    nt_name ab[2] = {N("A"), N("B")};
    EXPECT_OK(nt_rename(x, ab, &y));
    EXPECT(names_are(y, "A", "B") && names_are(x, "N", "C"));
    EXPECT(G(y, 2, I(2), I(3), I(3), I(1)) && nt_tensor_shares_storage(x, y));
    EXPECT(nt_tensor_data(x) == nt_tensor_data(y));
    nt_tensor_release(y);
    EXPECT_OK(nt_rename(x, NULL, &y));
    EXPECT(!nt_tensor_has_names(y));
    nt_tensor_release(y);
    nt_name none = NT_NAME_NONE; /* rename(None) drops all names, whatever the ndim */
    EXPECT_OK(nt_rename_n(x, 1, &none, &y));
    EXPECT(!nt_tensor_has_names(y) && nt_tensor_ndim(y) == 2);
    nt_tensor_release(y);
    EXPECT_FAIL(nt_set_names_n_(x, 1, &none), NT_ERR_RUNTIME,
                "Number of names (1) and number of dimensions in tensor (2) do not match. "
                "Attempted to create a tensor with names [None]");
    nt_name partial[2] = {NT_NAME_NONE, N("A")};
    EXPECT_OK(nt_rename_n(x, 2, partial, &y));
    EXPECT(names_are(y, NULL, "A"));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_rename_n(x, 1, ab, &y), NT_ERR_RUNTIME,
                "Number of names (1) and number of dimensions in tensor (2) do not match. "
                "Attempted to create a tensor with names ['A']");
    nt_name dup[2] = {N("A"), N("A")};
    EXPECT_FAIL(nt_rename(x, dup, &y), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['A', 'A'].");
    EXPECT(y == NULL && names_are(x, "N", "C"));
    nt_tensor_release(x);
}

static void test_set_names_in_place(void) {
    nt_tensor *x = named2(NULL, NULL);
    nt_name ab[2] = {N("A"), N("B")};
    EXPECT_OK(nt_set_names_(x, ab));
    EXPECT(names_are(x, "A", "B"));
    nt_name three[3] = {N("A"), N("B"), N("C")};
    EXPECT_FAIL(nt_set_names_n_(x, 3, three), NT_ERR_RUNTIME,
                "Number of names (3) and number of dimensions in tensor (2) do not match. "
                "Attempted to create a tensor with names ['A', 'B', 'C']");
    nt_name dup[2] = {N("B"), N("B")};
    EXPECT_FAIL(nt_set_names_(x, dup), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['B', 'B'].");
    EXPECT(names_are(x, "A", "B")); /* unchanged by the failures */
    EXPECT_OK(nt_set_names_n_(x, 2, NULL));
    EXPECT(!nt_tensor_has_names(x));
    nt_tensor_release(x);
}

static void test_rename_map(void) {
    int64_t sizes[4] = {2, 3, 5, 7};
    nt_name nchw[4] = {N("N"), N("C"), N("H"), N("W")};
    nt_tensor *imgs = iota(4, sizes, nchw), *y = NULL;
    /* the spec: imgs.rename(N='batch', C='channels') */
    nt_name from[2] = {N("N"), N("C")}, to[2] = {N("batch"), N("channels")};
    EXPECT_OK(nt_rename_map(imgs, 2, from, to, &y));
    EXPECT(names_are(y, "batch", "channels", "H", "W") && nt_tensor_shares_storage(imgs, y));
    nt_tensor_release(y);
    nt_name h = N("H"), none = NT_NAME_NONE;
    EXPECT_OK(nt_rename_map(imgs, 1, &h, &none, &y)); /* rename(H=None) */
    EXPECT(names_are(y, "N", "C", NULL, "W"));
    nt_tensor_release(y);
    nt_tensor_release(imgs);

    nt_tensor *x = named2("N", "C");
    nt_name xn = N("X"), a = N("A"), c = N("C");
    y = NULL;
    EXPECT_FAIL(nt_rename_map(x, 1, &xn, &a, &y), NT_ERR_RUNTIME,
                "rename: Tried to rename dim 'X' to dim A in Tensor[('N', 'C')] but dim 'X' "
                "does not exist");
    EXPECT_FAIL(nt_rename_map(x, 1, &xn, &none, &y), NT_ERR_RUNTIME,
                "rename: Tried to rename dim 'X' to dim None in Tensor[('N', 'C')] but dim 'X' "
                "does not exist");
    EXPECT_FAIL(nt_rename_map_(x, 1, &xn, &a), NT_ERR_RUNTIME,
                "rename_: Tried to rename dim 'X' to dim A in Tensor[('N', 'C')] but dim 'X' "
                "does not exist");
    nt_name n = N("N");
    EXPECT_FAIL(nt_rename_map(x, 1, &n, &c, &y), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['C', 'C'].");
    EXPECT(y == NULL);
    /* names are looked up among the originals: swapping works */
    nt_name swap_from[2] = {N("N"), N("C")}, swap_to[2] = {N("C"), N("N")};
    EXPECT_OK(nt_rename_map(x, 2, swap_from, swap_to, &y));
    EXPECT(names_are(y, "C", "N"));
    nt_tensor_release(y);
    EXPECT_OK(nt_rename_map_(x, 1, &n, &a));
    EXPECT(names_are(x, "A", "C"));
    nt_tensor_release(x);

    nt_tensor *u = named2(NULL, NULL), *v = NULL, *s = iota(0, NULL, NULL);
    int64_t two = 2;
    nt_name only_n = N("N");
    nt_tensor *w = iota(1, &two, &only_n);
    EXPECT_FAIL(nt_rename_map(u, 1, &xn, &a, &v), NT_ERR_RUNTIME,
                "rename: Tried to rename dim 'X' to dim A in Tensor[(None, None)] but dim 'X' "
                "does not exist");
    EXPECT_FAIL(nt_rename_map(w, 1, &xn, &a, &v), NT_ERR_RUNTIME,
                "rename: Tried to rename dim 'X' to dim A in Tensor[('N',)] but dim 'X' does "
                "not exist");
    EXPECT_FAIL(nt_rename_map(s, 1, &xn, &a, &v), NT_ERR_RUNTIME,
                "rename: Tried to rename dim 'X' to dim A in Tensor[()] but dim 'X' does not "
                "exist");
    EXPECT(v == NULL);
    nt_tensor_release(w);
    nt_tensor_release(s);
    nt_tensor_release(u);
}

/* ------------------------------------------------------------------ refine_names */

static void test_refine_names_lifts_unnamed_dims(void) {
    int64_t sizes[5] = {2, 3, 5, 7, 11};
    nt_tensor *t = iota(5, sizes, NULL), *y = NULL;
    /* the spec: tensor.refine_names('A', ..., 'B', 'C') */
    nt_name names[4] = {N("A"), NT_NAME_NONE, N("B"), N("C")};
    EXPECT_OK(nt_refine_names(t, 4, names, 1, &y));
    EXPECT(names_are(y, "A", NULL, NULL, "B", "C") && nt_tensor_shares_storage(t, y));
    EXPECT(G(y, 5, I(2), I(3), I(5), I(7), I(11), I(1155), I(385), I(77), I(11), I(1)));
    nt_tensor *z = NULL;
    /* the Ellipsis takes the existing names along; a named dim may be refined to itself */
    nt_name again[4] = {N("A"), N("X"), NT_NAME_NONE, N("C")};
    EXPECT_OK(nt_refine_names(y, 4, again, 2, &z));
    EXPECT(names_are(z, "A", "X", NULL, "B", "C"));
    nt_tensor_release(z);
    nt_tensor_release(y);
    nt_tensor_release(t);

    nt_tensor *x = named2("N", "C");
    y = NULL;
    nt_name nw[2] = {N("N"), N("W")}, none_c[2] = {NT_NAME_NONE, N("C")};
    EXPECT_FAIL(nt_refine_names(x, 2, nw, -1, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor['N', 'C'] to Tensor['N', 'W'] because 'C' "
                "is different from 'W' at index 1");
    nt_name ell_w[2] = {NT_NAME_NONE, N("W")};
    EXPECT_FAIL(nt_refine_names(x, 2, ell_w, 0, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor['N', 'C'] to Tensor['N', 'W'] because 'C' "
                "is different from 'W' at index 1");
    EXPECT_FAIL(nt_refine_names(x, 2, none_c, -1, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor['N', 'C'] to Tensor[None, 'C'] because 'N' "
                "is more specific than None at index 0");
    nt_name ncw[4] = {N("N"), N("C"), N("W"), NT_NAME_NONE};
    EXPECT_FAIL(nt_refine_names(x, 3, ncw, -1, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor['N', 'C'] to Tensor['N', 'C', 'W'] because "
                "they have a different number of dims (2 and 3 respectively).");
    EXPECT_FAIL(nt_refine_names(x, 4, ncw, 3, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor['N', 'C'] to Tensor['N', 'C', 'W'] because "
                "they have a different number of dims (2 and 3 respectively).");
    EXPECT_FAIL(nt_refine_names(x, 1, ncw, -1, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor['N', 'C'] to Tensor['N'] because they have "
                "a different number of dims (2 and 1 respectively).");
    EXPECT_FAIL(nt_refine_names(x, 2, ncw, 2, &y), NT_ERR_VALUE,
                "refine_names: invalid Ellipsis position 2 among 2 names");
    EXPECT(y == NULL);
    nt_tensor_release(x);

    int64_t s3[3] = {2, 3, 4};
    nt_tensor *u = iota(3, s3, NULL);
    nt_name many[5] = {N("A"), NT_NAME_NONE, N("B"), N("C"), N("D")};
    EXPECT_FAIL(nt_refine_names(u, 5, many, 1, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor[None, None, None] to Tensor['A', 'B', 'C', "
                "'D'] because they have a different number of dims (3 and 4 respectively).");
    /* PyTorch slices the Ellipsis' names with Python's rules: names[0 : 3 - 4] is [None, None] */
    nt_name ell_first[5] = {NT_NAME_NONE, N("A"), N("B"), N("C"), N("D")};
    EXPECT_FAIL(nt_refine_names(u, 5, ell_first, 0, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor[None, None, None] to Tensor[None, None, "
                "'A', 'B', 'C', 'D'] because they have a different number of dims (3 and 6 "
                "respectively).");
    nt_name dup[3] = {N("A"), N("A"), N("B")};
    EXPECT_FAIL(nt_refine_names(u, 3, dup, -1, &y), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['A', 'A', 'B'].");
    nt_tensor_release(u);

    nt_tensor *p = named2(NULL, "C");
    nt_name nc[2] = {N("N"), N("C")}, cn[2] = {N("C"), N("N")};
    EXPECT_OK(nt_refine_names(p, 2, nc, -1, &y));
    EXPECT(names_are(y, "N", "C"));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_refine_names(p, 2, cn, -1, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor[None, 'C'] to Tensor['C', 'N'] because 'C' "
                "is different from 'N' at index 1");
    nt_tensor_release(p);

    nt_tensor *s = iota(0, NULL, NULL);
    nt_name ell = NT_NAME_NONE, a = N("A");
    EXPECT_OK(nt_refine_names(s, 1, &ell, 0, &y));
    EXPECT(nt_tensor_ndim(y) == 0 && !nt_tensor_has_names(y));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_refine_names(s, 1, &a, -1, &y), NT_ERR_RUNTIME,
                "refine_names: cannot coerce Tensor[] to Tensor['A'] because they have a "
                "different number of dims (0 and 1 respectively).");
    nt_tensor_release(s);
}

/* ------------------------------------------------------------------ align_to, align_as */

static void test_align_to_permutes_and_adds_dims(void) {
    int64_t sizes[6] = {2, 3, 4, 5, 6, 7};
    nt_name abcdef[6] = {N("A"), N("B"), N("C"), N("D"), N("E"), N("F")};
    nt_tensor *t = iota(6, sizes, abcdef), *y = NULL;
    /* the spec: named_tensor.align_to('F', 'E', ...) */
    nt_name fe[3] = {N("F"), N("E"), NT_NAME_NONE};
    EXPECT_OK(nt_align_to(t, 3, fe, 2, &y));
    EXPECT(names_are(y, "F", "E", "A", "B", "C", "D") && nt_tensor_shares_storage(t, y));
    EXPECT(G(y, 6, I(7), I(6), I(2), I(3), I(4), I(5), I(1), I(7), I(2520), I(840), I(210), I(42)));
    nt_tensor_release(y);
    nt_tensor_release(t);

    nt_tensor *x = named2("N", "C");
    nt_name cxn[3] = {N("C"), N("X"), N("N")};
    EXPECT_OK(nt_align_to(x, 3, cxn, -1, &y));
    EXPECT(names_are(y, "C", "X", "N"));
    EXPECT(G(y, 3, I(3), I(1), I(2), I(1), I(0), I(3)));
    nt_tensor_release(y);
    nt_name x_ell_n[3] = {N("X"), NT_NAME_NONE, N("N")};
    EXPECT_OK(nt_align_to(x, 3, x_ell_n, 1, &y));
    EXPECT(names_are(y, "X", "C", "N") && G(y, 3, I(1), I(3), I(2), I(0), I(1), I(3)));
    nt_tensor_release(y);
    nt_name only_ell = NT_NAME_NONE;
    EXPECT_OK(nt_align_to(x, 1, &only_ell, 0, &y));
    EXPECT(names_are(y, "N", "C") && G(y, 2, I(2), I(3), I(3), I(1)));
    nt_tensor_release(y);
    nt_name nc_none[3] = {N("N"), N("C"), NT_NAME_NONE}; /* no Ellipsis: None is a new dim */
    EXPECT_OK(nt_align_to(x, 3, nc_none, -1, &y));
    EXPECT(names_are(y, "N", "C", NULL) && G(y, 3, I(2), I(3), I(1), I(3), I(1), I(0)));
    nt_tensor_release(y);

    y = NULL;
    nt_name n_only = N("N");
    EXPECT_FAIL(nt_align_to(x, 1, &n_only, -1, &y), NT_ERR_RUNTIME,
                "align_to: Cannot find dim 'C' from Tensor['N'] in desired alignment ['N'].");
    EXPECT_FAIL(nt_align_to(x, 0, NULL, -1, &y), NT_ERR_RUNTIME,
                "align_to: Cannot find dim 'N' from Tensor[] in desired alignment [].");
    nt_name cnc[3] = {N("C"), N("N"), N("C")};
    EXPECT_FAIL(nt_align_to(x, 3, cnc, -1, &y), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['C', 'N', 'C'].");
    nt_name n_ell_n[3] = {N("N"), NT_NAME_NONE, N("N")};
    EXPECT_FAIL(nt_align_to(x, 3, n_ell_n, 1, &y), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['N', 'C', 'N'].");
    nt_name n_ell_none[3] = {N("N"), NT_NAME_NONE, NT_NAME_NONE};
    EXPECT_FAIL(nt_align_to(x, 3, n_ell_none, 1, &y), NT_ERR_RUNTIME,
                "align_to: the desired order of dimensions cannot contain a None name, got "
                "['N', None]");
    EXPECT_FAIL(nt_align_to(x, 3, n_ell_none, 3, &y), NT_ERR_VALUE,
                "align_to: invalid Ellipsis position 3 among 3 names");
    EXPECT(y == NULL);
    nt_tensor_release(x);

    nt_tensor *s = iota(0, NULL, NULL);
    nt_name a = N("A");
    EXPECT_OK(nt_align_to(s, 1, &a, -1, &y));
    EXPECT(names_are(y, "A") && G(y, 1, I(1), I(0)));
    nt_tensor_release(y);
    nt_tensor_release(s);
}

/* The spec requires every input dim to be named, even with an Ellipsis (PyTorch 1.13 lets
 * align_to('C', ...) carry unnamed dims along). */
static void test_align_to_requires_named_inputs(void) {
    nt_tensor *p = named2(NULL, "C"), *u = named2(NULL, NULL), *y = NULL;
    nt_name cn[2] = {N("C"), N("N")}, c_ell[2] = {N("C"), NT_NAME_NONE};
    EXPECT_FAIL(nt_align_to(p, 2, cn, -1, &y), NT_ERR_RUNTIME,
                "align_to: All input dims must be named. Found unnamed dim at index 0 of "
                "Tensor[None, 'C']");
    EXPECT_FAIL(nt_align_to(p, 2, c_ell, 1, &y), NT_ERR_RUNTIME,
                "align_to: All input dims must be named. Found unnamed dim at index 0 of "
                "Tensor[None, 'C']");
    EXPECT_FAIL(nt_align_to(u, 2, c_ell, 1, &y), NT_ERR_RUNTIME,
                "align_to: All input dims must be named. Found unnamed dim at index 0 of "
                "Tensor[None, None]");
    nt_tensor *q = named2("N", NULL);
    nt_name x = N("X");
    /* without an Ellipsis, dims are checked in order as PyTorch does */
    EXPECT_FAIL(nt_align_to(q, 1, &x, -1, &y), NT_ERR_RUNTIME,
                "align_to: Cannot find dim 'N' from Tensor['X'] in desired alignment ['X'].");
    EXPECT(y == NULL);
    nt_tensor_release(q);
    nt_tensor_release(u);
    nt_tensor_release(p);
}

static void test_align_as(void) {
    /* the spec's scale_channels: scale.align_as(imgs) */
    int64_t three = 3, isz[4] = {2, 4, 5, 3};
    nt_name c = N("C"), nhwc[4] = {N("N"), N("H"), N("W"), N("C")};
    nt_tensor *scale = iota(1, &three, &c), *imgs = iota(4, isz, nhwc), *y = NULL;
    EXPECT_OK(nt_align_as(scale, imgs, &y));
    EXPECT(names_are(y, "N", "H", "W", "C") && nt_tensor_shares_storage(scale, y));
    EXPECT(G(y, 4, I(1), I(1), I(1), I(3), I(0), I(0), I(0), I(1)));
    nt_tensor_release(y);

    int64_t osz[3] = {2, 3, 4};
    nt_name nc_none[3] = {N("N"), N("C"), NT_NAME_NONE};
    nt_tensor *partial_other = iota(3, osz, nc_none);
    EXPECT_OK(nt_align_as(scale, partial_other, &y));
    EXPECT(names_are(y, "N", "C", NULL) && G(y, 3, I(1), I(3), I(1), I(0), I(1), I(0)));
    nt_tensor_release(y);

    /* a transposed input keeps its strides */
    int64_t s34[2] = {3, 4};
    nt_name cw[2] = {N("C"), N("W")}, ncw[3] = {N("N"), N("C"), N("W")};
    nt_tensor *m = iota(2, s34, cw), *mt = NULL, *target = iota(3, osz, ncw);
    EXPECT_OK(nt_transpose(m, 0, 1, &mt));
    EXPECT_OK(nt_align_as(mt, target, &y));
    EXPECT(names_are(y, "N", "C", "W") && G(y, 3, I(1), I(3), I(4), I(0), I(4), I(1)));
    nt_tensor_release(y);
    y = NULL;

    nt_tensor *unnamed_other = named2(NULL, NULL), *partial_self = NULL;
    int64_t s32[2] = {3, 2};
    nt_name c_none[2] = {N("C"), NT_NAME_NONE}, c_w[2] = {N("C"), N("W")};
    partial_self = iota(2, s32, c_none);
    EXPECT_FAIL(nt_align_as(partial_self, imgs, &y), NT_ERR_RUNTIME,
                "align_to: All input dims must be named. Found unnamed dim at index 1 of "
                "Tensor['C', None]");
    nt_tensor *missing = iota(2, s32, c_w);
    nt_name nch[3] = {N("N"), N("C"), N("H")};
    nt_tensor *nch_t = iota(3, osz, nch);
    EXPECT_FAIL(nt_align_as(missing, nch_t, &y), NT_ERR_RUNTIME,
                "align_to: Cannot find dim 'W' from Tensor['N', 'C', 'H'] in desired alignment "
                "['N', 'C', 'H'].");
    EXPECT_FAIL(nt_align_as(scale, unnamed_other, &y), NT_ERR_RUNTIME,
                "align_to: Cannot find dim 'C' from Tensor[None, None] in desired alignment "
                "[None, None].");
    EXPECT_FAIL(nt_align_as(unnamed_other, imgs, &y), NT_ERR_RUNTIME,
                "align_to: All input dims must be named. Found unnamed dim at index 0 of "
                "Tensor[None, None]");
    EXPECT(y == NULL);
    nt_tensor *all[] = {scale,  imgs,          partial_other, m,       mt,
                        target, unnamed_other, partial_self,  missing, nch_t};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        nt_tensor_release(all[i]);
}

/* ------------------------------------------------------------------ flatten */

static void test_flatten_names_spec_example(void) {
    int64_t sizes[4] = {32, 3, 128, 128};
    nt_name nchw[4] = {N("N"), N("C"), N("H"), N("W")};
    nt_tensor *imgs = iota(4, sizes, nchw), *y = NULL;
    nt_name chw[3] = {N("C"), N("H"), N("W")};
    EXPECT_OK(nt_flatten_names(imgs, 3, chw, N("features"), &y));
    EXPECT(names_are(y, "N", "features") && G(y, 2, I(32), I(49152), I(49152), I(1)));
    EXPECT(nt_tensor_shares_storage(imgs, y)); /* contiguous: a view */
    /* and back: unflatten('features', (('C', 3), ('H', 128), ('W', 128))) */
    nt_tensor *back = NULL;
    int64_t parts[3] = {3, 128, 128};
    EXPECT_OK(nt_unflatten(y, 1, 3, parts, chw, &back));
    EXPECT(names_are(back, "N", "C", "H", "W"));
    EXPECT(G(back, 4, I(32), I(3), I(128), I(128), I(49152), I(16384), I(128), I(1)));
    EXPECT(nt_tensor_shares_storage(imgs, back));
    nt_tensor_release(back);
    nt_tensor_release(y);
    nt_tensor_release(imgs);
}

static void test_flatten_names_checks_dims(void) {
    int64_t sizes[4] = {2, 3, 4, 5};
    nt_name nchw[4] = {N("N"), N("C"), N("H"), N("W")};
    nt_tensor *x = iota(4, sizes, nchw), *y = NULL;
    nt_name cw[2] = {N("C"), N("W")}, hc[2] = {N("H"), N("C")}, cx[2] = {N("C"), N("X")};
    nt_name ch[2] = {N("C"), N("H")};
    nt_name f = N("f");
    EXPECT_FAIL(nt_flatten_names(x, 2, cw, f, &y), NT_ERR_RUNTIME,
                "flatten(tensor, dims, out_dim): dims ['C', 'W'] must be consecutive in "
                "Tensor['N', 'C', 'H', 'W']");
    EXPECT_FAIL(nt_flatten_names(x, 2, hc, f, &y), NT_ERR_RUNTIME,
                "flatten(tensor, dims, out_dim): dims ['H', 'C'] must be consecutive in "
                "Tensor['N', 'C', 'H', 'W']");
    EXPECT_FAIL(nt_flatten_names(x, 2, cx, f, &y), NT_ERR_RUNTIME,
                "Name 'X' not found in Tensor['N', 'C', 'H', 'W'].");
    EXPECT_FAIL(nt_flatten_names(x, 0, NULL, f, &y), NT_ERR_RUNTIME,
                "flatten(tensor, dims, out_dim): dims cannot be empty");
    EXPECT_FAIL(nt_flatten_names(x, 2, ch, N("N"), &y), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['N', 'N', 'W'].");
    EXPECT(y == NULL);
    /* one dim: only its name changes (PyTorch renames its input in place here; we don't) */
    EXPECT_OK(nt_flatten_names(x, 1, cw, f, &y));
    EXPECT(names_are(y, "N", "f", "H", "W") && names_are(x, "N", "C", "H", "W"));
    EXPECT(G(y, 4, I(2), I(3), I(4), I(5), I(60), I(20), I(5), I(1)));
    nt_tensor_release(y);
    EXPECT_OK(nt_flatten_names(x, 2, ch, NT_NAME_NONE, &y));
    EXPECT(names_are(y, "N", NULL, "W") && G(y, 3, I(2), I(12), I(5), I(60), I(5), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(x);
}

static void test_flatten_copies_when_it_must(void) {
    int64_t sizes[4] = {2, 3, 4, 5};
    nt_name nchw[4] = {N("N"), N("C"), N("H"), N("W")};
    nt_tensor *x = iota(4, sizes, nchw), *tr = NULL, *y = NULL;
    EXPECT_OK(nt_transpose(x, 1, 2, &tr)); /* (N, H, C, W) */
    nt_name hc[2] = {N("H"), N("C")}, cw[2] = {N("C"), N("W")};
    EXPECT_OK(nt_flatten_names(tr, 2, hc, N("f"), &y));
    EXPECT(names_are(y, "N", "f", "W") && G(y, 3, I(2), I(12), I(5), I(60), I(5), I(1)));
    EXPECT(!nt_tensor_shares_storage(x, y));
    /* y[n, h*3 + c, w] == x[n, c, h, w] */
    const float *py = nt_tensor_data(y), *px = nt_tensor_data(x);
    bool same = true;
    for (int n = 0; n < 2; n++)
        for (int h = 0; h < 4; h++)
            for (int c = 0; c < 3; c++)
                for (int w = 0; w < 5; w++)
                    same =
                        same && py[n * 60 + (h * 3 + c) * 5 + w] == px[n * 60 + c * 20 + h * 5 + w];
    EXPECT(same);
    nt_tensor_release(y);
    EXPECT_OK(nt_flatten_names(tr, 2, cw, N("f"), &y));
    EXPECT(names_are(y, "N", "H", "f") && G(y, 3, I(2), I(4), I(15), I(60), I(15), I(1)));
    EXPECT(!nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    /* a non-contiguous input whose dims still merge by strides gives a view */
    nt_tensor *nar = NULL;
    nt_name ch[2] = {N("C"), N("H")};
    EXPECT_OK(nt_narrow(x, 3, 0, 2, &nar)); /* [2, 3, 4, 2] strides (60, 20, 5, 1) */
    EXPECT_OK(nt_flatten_names(nar, 2, ch, N("f"), &y));
    EXPECT(names_are(y, "N", "f", "W") && G(y, 3, I(2), I(12), I(2), I(60), I(5), I(1)));
    EXPECT(nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    nt_tensor_release(nar);
    nt_tensor_release(tr);
    nt_tensor_release(x);
}

static void test_flatten_by_range(void) {
    int64_t sizes[4] = {2, 3, 4, 5};
    nt_name nchw[4] = {N("N"), N("C"), N("H"), N("W")};
    nt_tensor *x = iota(4, sizes, nchw), *y = NULL;
    EXPECT_OK(nt_flatten(x, 1, -2, N("f"), &y));
    EXPECT(names_are(y, "N", "f", "W") && G(y, 3, I(2), I(12), I(5), I(60), I(5), I(1)));
    nt_tensor_release(y);
    y = NULL;
    EXPECT_FAIL(nt_flatten(x, 2, 1, N("f"), &y), NT_ERR_RUNTIME,
                "flatten() has invalid args: start_dim cannot come after end_dim");
    EXPECT_FAIL(nt_flatten(x, 1, 7, N("f"), &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-4, 3], but got 7)");
    EXPECT_FAIL(nt_flatten_dims(x, 2, 1, &y), NT_ERR_RUNTIME,
                "flatten() has invalid args: start_dim cannot come after end_dim");
    EXPECT(y == NULL);
    /* the positional flatten: merged dim unnamed; start == end gives t itself */
    EXPECT_OK(nt_flatten_dims(x, 1, 2, &y));
    EXPECT(names_are(y, "N", NULL, "W") && G(y, 3, I(2), I(12), I(5), I(60), I(5), I(1)));
    nt_tensor_release(y);
    EXPECT_OK(nt_flatten_dims(x, 1, 1, &y));
    EXPECT(y == x);
    nt_tensor_release(y);
    EXPECT_OK(nt_flatten_dims(x, 0, -1, &y));
    EXPECT(!nt_tensor_has_names(y) && G(y, 1, I(120), I(1)));
    nt_tensor_release(y);
    /* empty dims: [0, 1, 3, 0] flattened over 1..2 is [0, 3, 0] */
    int64_t zs[4] = {0, 1, 3, 0};
    nt_tensor *z = iota(4, zs, NULL);
    EXPECT_OK(nt_flatten_dims(z, 1, 2, &y));
    EXPECT(G(y, 3, I(0), I(3), I(0), I(3), I(1), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(z);
    /* a scalar flattens to one element */
    nt_tensor *s = iota(0, NULL, NULL);
    EXPECT_OK(nt_flatten_dims(s, 0, -1, &y));
    EXPECT(G(y, 1, I(1), I(1)) && !nt_tensor_has_names(y) && nt_tensor_shares_storage(s, y));
    nt_tensor_release(y);
    EXPECT_OK(nt_flatten(s, 0, 0, N("A"), &y));
    EXPECT(G(y, 1, I(1), I(1)) && names_are(y, "A"));
    nt_tensor_release(y);
    nt_tensor_release(s);
    nt_tensor_release(x);
}

/* ------------------------------------------------------------------ unflatten */

static void test_unflatten(void) {
    int64_t sizes[2] = {2, 12};
    nt_name ab[2] = {N("A"), N("B")}, b12[2] = {N("B1"), N("B2")};
    nt_tensor *x = iota(2, sizes, ab), *y = NULL;
    int64_t minus[2] = {-1, 4};
    EXPECT_OK(nt_unflatten(x, 1, 2, minus, b12, &y));
    EXPECT(names_are(y, "A", "B1", "B2") && G(y, 3, I(2), I(3), I(4), I(12), I(4), I(1)));
    EXPECT(nt_tensor_shares_storage(x, y));
    nt_tensor_release(y);
    int64_t whole = 12;
    EXPECT_OK(nt_unflatten(x, -1, 1, &whole, b12, &y));
    EXPECT(names_are(y, "A", "B1") && G(y, 2, I(2), I(12), I(12), I(1)));
    nt_tensor_release(y);
    /* none entries give unnamed new dims on a named tensor */
    nt_name nones[2] = {NT_NAME_NONE, NT_NAME_NONE};
    int64_t three_four[2] = {3, 4};
    EXPECT_OK(nt_unflatten(x, 1, 2, three_four, nones, &y));
    EXPECT(names_are(y, "A", NULL, NULL));
    nt_tensor_release(y);

    y = NULL;
    int64_t bad[2] = {5, 4}, two_unknown[2] = {-1, -1}, invalid[2] = {-2, -6};
    EXPECT_FAIL(nt_unflatten(x, 1, 2, bad, b12, &y), NT_ERR_RUNTIME,
                "unflatten: Provided sizes [5, 4] don't multiply up to the size of dim 1 ('B': "
                "12) in Tensor['A', 'B']");
    EXPECT_FAIL(nt_unflatten(x, 1, 2, two_unknown, b12, &y), NT_ERR_RUNTIME,
                "unflatten got an unexpected error:\nonly one dimension can be inferred");
    EXPECT_FAIL(nt_unflatten(x, 1, 2, three_four, NULL, &y), NT_ERR_RUNTIME,
                "unflatten: input is a named tensor but no names were given for unflattened "
                "sizes");
    EXPECT_FAIL(nt_unflatten(x, 1, 0, NULL, NULL, &y), NT_ERR_RUNTIME,
                "unflatten: sizes must be non-empty");
    nt_name a_b2[2] = {N("A"), N("B2")};
    EXPECT_FAIL(nt_unflatten(x, 1, 2, three_four, a_b2, &y), NT_ERR_RUNTIME,
                "Cannot construct a tensor with duplicate names. Got names: ['A', 'A', 'B2'].");
    EXPECT_FAIL(nt_unflatten(x, 2, 2, three_four, b12, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    EXPECT(y == NULL);
    nt_tensor_release(x);

    nt_tensor *u = iota(2, sizes, NULL);
    EXPECT_FAIL(nt_unflatten(u, 1, 2, bad, NULL, &y), NT_ERR_RUNTIME,
                "unflatten: Provided sizes [5, 4] don't multiply up to the size of dim 1 (12) "
                "in the input tensor");
    EXPECT_FAIL(nt_unflatten(u, 1, 2, two_unknown, NULL, &y), NT_ERR_RUNTIME,
                "unflatten got an unexpected error:\nonly one dimension can be inferred");
    EXPECT_FAIL(nt_unflatten(u, 1, 2, invalid, NULL, &y), NT_ERR_RUNTIME,
                "invalid shape dimension -2");
    int64_t three_minus[2] = {3, -1};
    EXPECT_OK(nt_unflatten(u, 1, 2, three_minus, NULL, &y));
    EXPECT(!nt_tensor_has_names(y) && G(y, 3, I(2), I(3), I(4), I(12), I(4), I(1)));
    nt_tensor_release(y);
    EXPECT_OK(nt_unflatten(u, 1, 2, three_four, b12, &y)); /* names on an unnamed tensor */
    EXPECT(names_are(y, NULL, "B1", "B2"));
    nt_tensor_release(y);
    /* splitting a strided dim is always a view: t() of [12, 2] is [2, 12] strides (1, 2) */
    nt_tensor *tt = NULL, *v = iota(2, (int64_t[]){12, 2}, NULL);
    EXPECT_OK(nt_t(v, &tt));
    EXPECT_OK(nt_unflatten(tt, 1, 2, three_four, NULL, &y));
    EXPECT(G(y, 3, I(2), I(3), I(4), I(1), I(8), I(2)) && nt_tensor_shares_storage(v, y));
    nt_tensor_release(y);
    nt_tensor_release(tt);
    nt_tensor_release(v);
    nt_tensor_release(u);

    /* the spec: torch.randn(2, names=('A',)).unflatten('A', (('B1', -1), ('B2', 1))) */
    int64_t two = 2, m1_1[2] = {-1, 1};
    nt_name a = N("A");
    nt_tensor *w = iota(1, &two, &a);
    EXPECT_OK(nt_unflatten(w, 0, 2, m1_1, b12, &y));
    EXPECT(names_are(y, "B1", "B2") && G(y, 2, I(2), I(1), I(1), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(w);

    int64_t z[2] = {2, 0}, zero_minus[2] = {0, -1}, three_minus_z[2] = {3, -1};
    nt_tensor *e = iota(2, z, NULL);
    y = NULL;
    EXPECT_FAIL(nt_unflatten(e, 1, 2, zero_minus, NULL, &y), NT_ERR_RUNTIME,
                "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified "
                "dimension size -1 can be any value and is ambiguous");
    EXPECT_OK(nt_unflatten(e, 1, 2, three_minus_z, NULL, &y));
    EXPECT(G(y, 3, I(2), I(3), I(0), I(3), I(1), I(1)));
    nt_tensor_release(y);
    nt_tensor_release(e);

    nt_tensor *s = iota(0, NULL, NULL);
    int64_t one = 1;
    y = NULL;
    EXPECT_FAIL(nt_unflatten(s, -1, 1, &one, NULL, &y), NT_ERR_INDEX,
                "Dimension specified as 0 but tensor has no dimensions");
    EXPECT_FAIL(nt_unflatten(s, 5, 1, &one, NULL, &y), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-1, 0], but got 5)");
    EXPECT(y == NULL);
    nt_tensor_release(s);
}

/* ------------------------------------------------------------------ helpers */

static void test_name_helpers(void) {
    int64_t sizes[3] = {2, 3, 4};
    nt_name names[3] = {N("N"), NT_NAME_NONE, N("C")};
    nt_tensor *t = iota(3, sizes, names);
    int64_t dims[2];
    nt_name want[2] = {N("C"), N("N")};
    EXPECT_OK(nt_names_resolve_dims(t, 2, want, dims));
    EXPECT(dims[0] == 2 && dims[1] == 0);
    nt_name bad[2] = {N("C"), N("Q")};
    EXPECT_FAIL(nt_names_resolve_dims(t, 2, bad, dims), NT_ERR_RUNTIME,
                "Name 'Q' not found in Tensor['N', None, 'C'].");
    EXPECT(nt_names_find(t, N("C")) == 2 && nt_names_find(t, NT_NAME_NONE) == -1);
    EXPECT(!nt_names_all_named(t));
    char buf[64];
    nt_names_tuple_repr(names, 3, buf, sizeof buf);
    EXPECT(strcmp(buf, "('N', None, 'C')") == 0);
    nt_names_tuple_repr(names, 1, buf, sizeof buf);
    EXPECT(strcmp(buf, "('N',)") == 0);
    nt_names_tuple_repr(names, 0, buf, sizeof buf);
    EXPECT(strcmp(buf, "()") == 0);
    nt_names_repr_skip(names, 3, 1, buf, sizeof buf);
    EXPECT(strcmp(buf, "['N', 'C']") == 0);
    nt_ints_repr(sizes, 3, buf, sizeof buf);
    EXPECT(strcmp(buf, "[2, 3, 4]") == 0);
    nt_ints_repr(sizes, 0, buf, sizeof buf);
    EXPECT(strcmp(buf, "[]") == 0);
    nt_ints_repr(sizes, 3, buf, 5); /* truncated, still terminated */
    EXPECT(strlen(buf) == 4);
    nt_tensor_release(t);
}

/* Found by fuzzing (tests/fuzz/fuzz_views.c): the names API took ids that were never
 * interned (the factories refused them), so a tensor could carry names that print as
 * nothing. Every entry point that takes names now refuses them. */
static void test_unknown_name_ids_are_refused(void) {
    int64_t sizes[2] = {2, 3};
    nt_name good[2] = {N("N"), N("C")}, stray = (nt_name)0x00FFFFF0u;
    nt_name bad[2] = {N("N"), stray};
    nt_tensor *t = NULL, *r = NULL;
    EXPECT_OK(nt_zeros(2, sizes, NT_FLOAT32, good, &t));
    EXPECT_FAIL(nt_rename(t, bad, &r), NT_ERR_VALUE, "invalid name id 16777200 at dim 1");
    EXPECT_ERR(nt_rename_n(t, 2, bad, &r), NT_ERR_VALUE, "invalid name id");
    EXPECT_ERR(nt_set_names_(t, bad), NT_ERR_VALUE, "invalid name id");
    EXPECT_ERR(nt_set_names_n_(t, 2, bad), NT_ERR_VALUE, "invalid name id");
    EXPECT_ERR(nt_rename_map(t, 1, &good[1], &stray, &r), NT_ERR_VALUE, "invalid name id");
    EXPECT_ERR(nt_rename_map_(t, 1, &good[1], &stray), NT_ERR_VALUE, "invalid name id");
    EXPECT_ERR(nt_align_to(t, 3, (nt_name[]){good[0], good[1], stray}, -1, &r), NT_ERR_VALUE,
               "invalid name id");
    EXPECT_ERR(nt_align_to(t, 3, (nt_name[]){stray, good[0], 0}, 2, &r), NT_ERR_VALUE,
               "invalid name id");
    EXPECT_ERR(nt_flatten(t, 0, 1, stray, &r), NT_ERR_VALUE, "invalid name id");
    int64_t parts[2] = {1, 3};
    EXPECT_ERR(nt_unflatten(t, 1, 2, parts, (nt_name[]){stray, 0}, &r), NT_ERR_VALUE,
               "invalid name id");
    EXPECT(r == NULL && nt_tensor_names(t)[1] == good[1]);
    nt_tensor *u = NULL;
    EXPECT_OK(nt_rename(t, NULL, &u));
    EXPECT_ERR(nt_refine_names(u, 2, bad, -1, &r), NT_ERR_VALUE, "invalid name id");
    EXPECT(r == NULL);
    nt_tensor_release(u);
    nt_tensor_release(t);
}

int main(void) {
    NT_RUN(test_rename_positional_is_an_alias);
    NT_RUN(test_set_names_in_place);
    NT_RUN(test_rename_map);
    NT_RUN(test_refine_names_lifts_unnamed_dims);
    NT_RUN(test_align_to_permutes_and_adds_dims);
    NT_RUN(test_align_to_requires_named_inputs);
    NT_RUN(test_align_as);
    NT_RUN(test_flatten_names_spec_example);
    NT_RUN(test_flatten_names_checks_dims);
    NT_RUN(test_flatten_copies_when_it_must);
    NT_RUN(test_flatten_by_range);
    NT_RUN(test_unflatten);
    NT_RUN(test_name_helpers);
    NT_RUN(test_unknown_name_ids_are_refused);
    return nt_test_summary();
}
