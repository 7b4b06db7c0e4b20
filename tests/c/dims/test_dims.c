/*
 * test_dims.c — the first-class dims C API (ntensor/dims.h): dims and their sizes, binding
 * (with slices and index tensors), order, expand by dims, batching through the dispatcher
 * (a dim as a reduction's dim), and bad input giving a status and a message.
 */
#include "nt_test.h"

static nt_tensor *rand2(int64_t a, int64_t b) {
    int64_t s[2] = {a, b};
    nt_tensor *t = NULL;
    nt_rand(2, s, NT_FLOAT32, NULL, &t);
    return t;
}

static bool close(nt_tensor *a, nt_tensor *b) {
    bool r = false;
    return nt_allclose(a, b, 1e-5, 1e-6, false, &r) == NT_OK && r;
}

/* Releases the tensors and the dims of a test. */
static void release_all(nt_tensor **objs, size_t n, nt_fcdim **dims, size_t ndims) {
    for (size_t k = 0; k < n; k++)
        nt_tensor_release(objs[k]);
    for (size_t k = 0; k < ndims; k++)
        nt_fcdim_release(dims[k]);
}

static void test_dim_sizes(void) {
    nt_fcdim *i = NULL;
    EXPECT_OK(nt_fcdim_new("i", -1, &i));
    EXPECT(!nt_fcdim_is_bound(i));
    int64_t s;
    EXPECT_FAIL(nt_fcdim_get_size(i, &s), NT_ERR_VALUE, "dimension i is unbound");
    EXPECT_OK(nt_fcdim_set_size(i, 3));
    EXPECT_OK(nt_fcdim_set_size(i, 3));
    EXPECT_FAIL(nt_fcdim_set_size(i, 4), NT_ERR_DIM_BIND,
                "Dim 'i' previously bound to a dimension of size 3 cannot bind to a dimension of "
                "size 4");
    EXPECT(nt_fcdim_size(i) == 3 && strcmp(nt_fcdim_name(i), "i") == 0);
    EXPECT(nt_dim_is_fc(nt_dim_fc(i)) && !nt_dim_is_name(nt_dim_fc(i)) &&
           nt_dim_to_fc(nt_dim_fc(i)) == i);
    nt_fcdim_release(i);
}

/* (A[i, k] * B[k, j]).sum(k).order(i, j) == mm(A, B), and the positional queries. */
static void test_mm_by_dims(void) {
    nt_fcdim *i, *j, *k;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("j", -1, &j);
    nt_fcdim_new("k", -1, &k);
    nt_tensor *a = rand2(3, 4), *b = rand2(4, 5), *ab = NULL, *bb = NULL, *p = NULL, *s = NULL,
              *r = NULL, *want = NULL;
    nt_bind_spec sa[2] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_DIM, .dim = k}};
    nt_bind_spec sb[2] = {{.kind = NT_BIND_DIM, .dim = k}, {.kind = NT_BIND_DIM, .dim = j}};
    EXPECT_OK(nt_tensor_bind(a, 2, sa, &ab));
    EXPECT_OK(nt_tensor_bind(b, 2, sb, &bb));
    EXPECT(nt_tensor_ndim(ab) == 0 && nt_tensor_levels(ab, NULL) == 2);
    EXPECT(nt_fcdim_size(i) == 3 && nt_fcdim_size(k) == 4 && nt_fcdim_size(j) == 5);
    EXPECT_OK(nt_mul(ab, bb, &p));
    nt_fcdim *lv[NT_MAX_DIMS];
    EXPECT(nt_tensor_levels(p, lv) == 3 && lv[0] == i && lv[1] == k && lv[2] == j);
    nt_dim kd = nt_dim_fc(k);
    EXPECT_OK(nt_sum(p, 1, &kd, false, -1, &s));
    EXPECT(nt_tensor_levels(s, lv) == 2 && lv[0] == i && lv[1] == j);
    int counts[2] = {1, 1};
    nt_dim ij[2] = {nt_dim_fc(i), nt_dim_fc(j)};
    EXPECT_OK(nt_tensor_order(s, 2, counts, ij, &r));
    EXPECT(nt_tensor_levels(r, NULL) == 0 && nt_tensor_ndim(r) == 2);
    EXPECT_OK(nt_mm(a, b, &want));
    EXPECT(close(r, want));
    nt_tensor *objs[] = {a, b, ab, bb, p, s, r, want};
    nt_fcdim *ds[] = {i, j, k};
    release_all(objs, sizeof objs / sizeof *objs, ds, 3);
}

/* nt_tensor_bind_borrowing: a view that takes no references until it is retained. Once
 * retained it outlives the tensor and the dims it borrowed (AddressSanitizer checks every
 * read below); set_data on it takes its storage reference before dropping one. Other
 * bindings (a repeated dim: the diagonal) are nt_tensor_bind's, errors included. */
static void test_bind_borrowing(void) {
    nt_fcdim *i, *k;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("k", -1, &k);
    nt_tensor *a = rand2(3, 4), *want = NULL, *v = NULL, *got = NULL;
    EXPECT_OK(nt_clone(a, &want));
    nt_fcdim *ik[2] = {i, k};
    EXPECT_OK(nt_tensor_bind_borrowing(a, 2, ik, &v));
    EXPECT(nt_tensor_ndim(v) == 0 && nt_tensor_levels(v, NULL) == 2 && nt_fcdim_size(i) == 3 &&
           nt_fcdim_size(k) == 4);
    nt_tensor *kept = nt_tensor_retain(v);
    nt_tensor_release(v); /* the borrowed first reference */
    nt_tensor_release(a);
    nt_fcdim_release(i);
    nt_fcdim_release(k);
    EXPECT_OK(nt_tensor_unlevel(kept, &got));
    EXPECT(close(got, want));
    nt_fcdim *lv[2];
    EXPECT(nt_tensor_levels(kept, lv) == 2 && strcmp(nt_fcdim_name(lv[0]), "i") == 0 &&
           nt_fcdim_size(lv[1]) == 4);
    nt_tensor_release(kept);
    nt_tensor_release(got);

    nt_fcdim *j;
    nt_fcdim_new("j", -1, &j);
    nt_tensor *b = rand2(3, 3), *diag = NULL, *w = NULL, *other = rand2(2, 2);
    nt_fcdim *jj[2] = {j, j};
    EXPECT_OK(nt_tensor_bind_borrowing(b, 2, jj, &diag));
    EXPECT(nt_tensor_ndim(diag) == 0 && nt_tensor_levels(diag, NULL) == 1);
    nt_fcdim *three[3] = {j, j, j};
    EXPECT_FAIL(nt_tensor_bind_borrowing(b, 3, three, &w), NT_ERR_VALUE,
                "at least 3 indices were supplied but the tensor only has 2 dimensions");
    EXPECT_FAIL(nt_tensor_bind_borrowing(NULL, 2, jj, &w), NT_ERR_VALUE,
                "nt_tensor_bind_borrowing: NULL or bad argument");
    nt_fcdim *jk[2] = {j, NULL};
    EXPECT_FAIL(nt_tensor_bind_borrowing(b, 2, jk, &w), NT_ERR_VALUE, "nt_tensor_bind: a NULL dim");
    nt_tensor *c = rand2(4, 5), *cv = NULL;
    nt_fcdim *m, *n;
    nt_fcdim_new("m", -1, &m);
    nt_fcdim_new("n", -1, &n);
    nt_fcdim *mn[2] = {m, n};
    EXPECT_OK(nt_tensor_bind_borrowing(c, 2, mn, &cv));
    EXPECT_OK(nt_tensor_set_data(cv, other));
    nt_tensor_release(c);
    EXPECT(nt_tensor_data(cv) == nt_tensor_data(other));
    /* a lending tensor moved to another storage keeps the one its views borrow */
    nt_tensor *big = rand2(64, 64), *bigv = NULL, *bigwant = NULL, *bigread = NULL;
    EXPECT_OK(nt_clone(big, &bigwant));
    nt_fcdim *p, *q;
    nt_fcdim_new("p", -1, &p);
    nt_fcdim_new("q", -1, &q);
    nt_fcdim *pq[2] = {p, q};
    EXPECT_OK(nt_tensor_bind_borrowing(big, 2, pq, &bigv));
    EXPECT_OK(nt_tensor_set_data(big, other));
    EXPECT_OK(nt_tensor_set_data(big, bigwant));
    EXPECT_OK(nt_tensor_unlevel(bigv, &bigread));
    EXPECT(close(bigread, bigwant));
    nt_tensor_release(bigread);
    nt_tensor_release(bigv);
    nt_tensor_release(big);
    nt_tensor_release(bigwant);
    nt_fcdim_release(p);
    nt_fcdim_release(q);
    nt_tensor *objs[] = {b, diag, other, cv, want};
    nt_fcdim *ds[] = {j, m, n};
    release_all(objs, sizeof objs / sizeof *objs, ds, 3);
}

static void test_bind_errors(void) {
    nt_fcdim *i, *j, *k;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("j", -1, &j);
    nt_fcdim_new("k", -1, &k);
    nt_tensor *a = rand2(6, 4), *v = NULL;
    nt_bind_spec three[3] = {{.kind = NT_BIND_DIM, .dim = i},
                             {.kind = NT_BIND_DIM, .dim = j},
                             {.kind = NT_BIND_DIM, .dim = k}};
    EXPECT_FAIL(nt_tensor_bind(a, 3, three, &v), NT_ERR_VALUE,
                "at least 3 indices were supplied but the tensor only has 2 dimensions");
    nt_fcdim *pack[2] = {i, j};
    nt_bind_spec sp[1] = {{.kind = NT_BIND_PACK, .n = 2, .pack = pack}};
    EXPECT_FAIL(nt_tensor_bind(a, 1, sp, &v), NT_ERR_DIM_BIND,
                "cannot infer the sizes of two dimensions at once i and j");
    nt_fcdim_set_size(j, 4);
    EXPECT_FAIL(nt_tensor_bind(a, 1, sp, &v), NT_ERR_DIM_BIND,
                "inferred dimension does not evenly fit into larger dimension: 6 vs ('?', 4)");
    nt_fcdim_release(j);
    nt_fcdim_new("j", 2, &j);
    pack[1] = j;
    EXPECT_OK(nt_tensor_bind(a, 1, sp, &v));
    EXPECT(nt_fcdim_size(i) == 3 && nt_tensor_ndim(v) == 1);
    int counts[1] = {1};
    nt_dim kd = nt_dim_fc(k);
    nt_tensor *r = NULL;
    EXPECT_FAIL(nt_tensor_order(v, 1, counts, &kd, &r), NT_ERR_VALUE,
                "tensor of dimensions (i, j) does not contain dim k or it was specified twice");
    EXPECT_ERR(nt_tensor_bind(NULL, 1, sp, &v), NT_ERR_VALUE, "NULL");
    nt_bind_spec bad[1] = {{.kind = 99}};
    EXPECT_ERR(nt_tensor_bind(a, 1, bad, &r), NT_ERR_VALUE, "bad spec kind");
    nt_tensor_release(v);
    nt_tensor_release(a);
    nt_fcdim_release(i);
    nt_fcdim_release(j);
    nt_fcdim_release(k);
}

/* A dim twice is the diagonal; a dim as a tensor is its arange. */
static void test_diag_and_range(void) {
    nt_fcdim *i;
    nt_fcdim_new("i", -1, &i);
    nt_tensor *a = rand2(3, 3), *d = NULL, *r = NULL, *want = NULL, *ix = NULL;
    nt_bind_spec s[2] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_DIM, .dim = i}};
    EXPECT_OK(nt_tensor_bind(a, 2, s, &d));
    int one = 1;
    nt_dim id = nt_dim_fc(i);
    EXPECT_OK(nt_tensor_order(d, 1, &one, &id, &r));
    EXPECT_OK(nt_diagonal(a, 0, 0, 1, &want));
    EXPECT(close(r, want));
    EXPECT_OK(nt_fcdim_tensor(i, &ix));
    nt_tensor *ro = NULL;
    EXPECT_OK(nt_tensor_order(ix, 1, &one, &id, &ro));
    EXPECT(nt_tensor_ndim(ro) == 1 && ((int64_t *)nt_tensor_data(ro))[2] == 2);
    nt_tensor *objs[] = {a, d, r, want, ix, ro};
    nt_fcdim *ds[] = {i};
    release_all(objs, sizeof objs / sizeof *objs, ds, 1);
}

static nt_tensor *ints(int64_t n, const int64_t *v) {
    nt_tensor *t = NULL;
    nt_from_buffer(v, NT_INT64, 1, &n, NULL, &t);
    return t;
}

/* t bound by the specs and ordered by `dims` (every dim of the result) is close to want. */
static bool bound_is(nt_tensor *t, int n, const nt_bind_spec *specs, int nd, nt_fcdim **dims,
                     nt_tensor *want) {
    nt_tensor *b = NULL, *r = NULL;
    int counts[NT_MAX_DIMS];
    nt_dim ds[NT_MAX_DIMS];
    for (int k = 0; k < nd; k++)
        counts[k] = 1, ds[k] = nt_dim_fc(dims[k]);
    bool ok = nt_tensor_bind(t, n, specs, &b) == NT_OK && nt_tensor_levels(b, NULL) == nd &&
              nt_tensor_order(b, nd, counts, ds, &r) == NT_OK && close(r, want);
    if (!ok) fprintf(stderr, "  bound_is: %s\n", nt_last_error());
    nt_tensor_release(b);
    nt_tensor_release(r);
    return ok;
}

#define ALL                                                                                        \
    { .kind = NT_INDEX_SLICE, .start = 0, .stop = NT_SLICE_END, .step = 1 }

/* Slices with bounds and steps beside dims: views sliced as PyTorch slices (clamped bounds,
 * negative ones from the end); a zeroed slice spec is ':'. */
static void test_bind_slices(void) {
    nt_fcdim *i, *j;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("j", -1, &j);
    nt_tensor *a = rand2(4, 6), *want = NULL, *w = NULL, *v = NULL;
    nt_bind_spec s1[2] = {{.kind = NT_BIND_DIM, .dim = i},
                          {.kind = NT_BIND_SLICE, .start = 1, .stop = 3, .step = 1}};
    nt_index i1[2] = {ALL, {.kind = NT_INDEX_SLICE, .start = 1, .stop = 3, .step = 1}};
    EXPECT_OK(nt_index_get(a, 2, i1, &want));
    EXPECT(bound_is(a, 2, s1, 1, &i, want));
    nt_tensor_release(want);
    want = NULL;
    nt_bind_spec s2[2] = {{.kind = NT_BIND_DIM, .dim = i},
                          {.kind = NT_BIND_SLICE, .start = -5, .stop = NT_SLICE_END, .step = 2}};
    nt_index i2[2] = {ALL, {.kind = NT_INDEX_SLICE, .start = 1, .stop = 6, .step = 2}};
    EXPECT_OK(nt_index_get(a, 2, i2, &want));
    EXPECT(bound_is(a, 2, s2, 1, &i, want));
    nt_tensor_release(want);
    want = NULL;
    nt_bind_spec s3[2] = {{.kind = NT_BIND_SLICE, .start = 1, .stop = 100, .step = 1},
                          {.kind = NT_BIND_DIM, .dim = j}};
    nt_index i3[1] = {{.kind = NT_INDEX_SLICE, .start = 1, .stop = 4, .step = 1}};
    EXPECT_OK(nt_index_get(a, 1, i3, &w));
    EXPECT_OK(nt_transpose(w, 0, 1, &want));
    EXPECT(bound_is(a, 2, s3, 1, &j, want));
    nt_bind_spec s4[2] = {{.kind = NT_BIND_SLICE}, {.kind = NT_BIND_DIM, .dim = j}};
    EXPECT_OK(nt_tensor_bind(a, 2, s4, &v));
    EXPECT(nt_tensor_ndim(v) == 1 && nt_tensor_sizes(v)[0] == 4);
    nt_tensor_release(v);
    v = NULL;
    nt_bind_spec s5[2] = {{.kind = NT_BIND_DIM, .dim = i},
                          {.kind = NT_BIND_SLICE, .start = 7, .stop = 9, .step = 1}};
    EXPECT_OK(nt_tensor_bind(a, 2, s5, &v));
    EXPECT(nt_tensor_ndim(v) == 1 && nt_tensor_sizes(v)[0] == 0);
    nt_bind_spec s6[2] = {{.kind = NT_BIND_DIM, .dim = i},
                          {.kind = NT_BIND_SLICE, .start = 0, .stop = 4, .step = -1}};
    EXPECT_FAIL(nt_tensor_bind(a, 2, s6, &w), NT_ERR_VALUE, "step must be greater than zero");
    nt_tensor *objs[] = {a, want, w, v};
    nt_fcdim *ds[] = {i, j};
    release_all(objs, sizeof objs / sizeof *objs, ds, 2);
}

/* Index tensors beside dims: a plain one, one with a first-class dim (the result has both
 * dims), a mask, and one whose broadcast dims go after a kept dim; PyTorch's errors. */
static void test_bind_index_tensors(void) {
    nt_fcdim *i, *k;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("k", -1, &k);
    int64_t iv[3] = {0, 5, -1}, tv[6] = {0, 1, 2, 3, 5, 4}, tsz[2] = {3, 2};
    nt_tensor *a = rand2(4, 6), *idx = ints(3, iv), *t = NULL, *tk = NULL, *want = NULL;
    nt_from_buffer(tv, NT_INT64, 2, tsz, NULL, &t);
    nt_bind_spec s1[2] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_TENSOR, .tensor = idx}};
    nt_index i1[2] = {ALL, {.kind = NT_INDEX_TENSOR, .tensor = idx}};
    EXPECT_OK(nt_index_get(a, 2, i1, &want));
    EXPECT(bound_is(a, 2, s1, 1, &i, want));
    nt_tensor_release(want);
    want = NULL;
    nt_bind_spec sk[1] = {{.kind = NT_BIND_DIM, .dim = k}};
    EXPECT_OK(nt_tensor_bind(t, 1, sk, &tk));
    nt_bind_spec s2[2] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_TENSOR, .tensor = tk}};
    nt_index i2[2] = {ALL, {.kind = NT_INDEX_TENSOR, .tensor = t}};
    EXPECT_OK(nt_index_get(a, 2, i2, &want)); /* (4, 3, 2): i, k, the index's dim */
    nt_fcdim *ik[2] = {i, k};
    EXPECT(bound_is(a, 2, s2, 2, ik, want));
    nt_tensor_release(want);
    want = NULL;
    bool mv[6] = {true, false, false, true, true, false};
    int64_t six = 6;
    nt_tensor *mask = NULL;
    nt_from_buffer(mv, NT_BOOL, 1, &six, NULL, &mask);
    nt_bind_spec s3[2] = {{.kind = NT_BIND_DIM, .dim = i},
                          {.kind = NT_BIND_TENSOR, .tensor = mask}};
    nt_index i3[2] = {ALL, {.kind = NT_INDEX_TENSOR, .tensor = mask}};
    EXPECT_OK(nt_index_get(a, 2, i3, &want));
    EXPECT(bound_is(a, 2, s3, 1, &i, want));
    nt_tensor_release(want);
    want = NULL;
    /* z[:, j, idx]: per element z_j[:, idx], (3, 3): the broadcast dims after the kept one */
    nt_fcdim *j;
    nt_fcdim_new("j", -1, &j);
    int64_t zs[3] = {3, 4, 6};
    nt_tensor *z = NULL, *g = NULL;
    nt_rand(3, zs, NT_FLOAT32, NULL, &z);
    nt_bind_spec s4[3] = {{.kind = NT_BIND_SLICE},
                          {.kind = NT_BIND_DIM, .dim = j},
                          {.kind = NT_BIND_TENSOR, .tensor = idx}};
    nt_index i4[3] = {ALL, ALL, {.kind = NT_INDEX_TENSOR, .tensor = idx}};
    nt_dim perm[3] = {1, 0, 2};
    EXPECT_OK(nt_index_get(z, 3, i4, &g));
    EXPECT_OK(nt_permute(g, 3, perm, &want));
    EXPECT(bound_is(z, 3, s4, 1, &j, want));
    nt_tensor *objs[] = {a, idx, t, tk, want, mask, z, g};
    nt_fcdim *ds[] = {i, j, k};
    release_all(objs, sizeof objs / sizeof *objs, ds, 3);
}

static void test_bind_index_tensor_errors(void) {
    nt_fcdim *i;
    nt_fcdim_new("i", -1, &i);
    int64_t bad[2] = {0, 7}, two[2] = {0, 1}, three[3] = {0, 1, 2}, four = 4;
    nt_tensor *a = rand2(4, 6), *out = NULL, *b = ints(2, bad), *t2 = ints(2, two),
              *t3 = ints(3, three), *f = rand2(2, 1), *mask = NULL, *mi = NULL;
    nt_bind_spec s[3] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_TENSOR, .tensor = b}};
    EXPECT_FAIL(nt_tensor_bind(a, 2, s, &out), NT_ERR_INDEX,
                "index 7 is out of bounds for dimension 0 with size 6");
    s[1].tensor = f;
    EXPECT_FAIL(nt_tensor_bind(a, 2, s, &out), NT_ERR_INDEX,
                "tensors used as indices must be long, byte or bool tensors");
    s[0] = (nt_bind_spec){.kind = NT_BIND_TENSOR, .tensor = t2};
    s[1] = (nt_bind_spec){.kind = NT_BIND_TENSOR, .tensor = t3};
    s[2] = (nt_bind_spec){.kind = NT_BIND_NONE};
    nt_tensor *a3 = NULL;
    nt_fcdim *m;
    nt_fcdim_new("m", -1, &m);
    nt_bind_spec s0[1] = {{.kind = NT_BIND_DIM, .dim = m}};
    int64_t sz3[3] = {4, 4, 6};
    nt_rand(3, sz3, NT_FLOAT32, NULL, &a3);
    nt_tensor *a3i = NULL;
    EXPECT_OK(nt_tensor_bind(a3, 1, s0, &a3i)); /* m over a3's first dim: (4, 6) positional */
    EXPECT_FAIL(nt_tensor_bind(a3i, 3, s, &out), NT_ERR_INDEX,
                "shape mismatch: indexing tensors could not be broadcast together with shapes "
                "[2], [3]");
    nt_full(1, &four, nt_scalar_bool(true), NT_BOOL, NULL, &mask);
    s[0] = (nt_bind_spec){.kind = NT_BIND_SLICE};
    s[1] = (nt_bind_spec){.kind = NT_BIND_TENSOR, .tensor = mask};
    EXPECT_FAIL(nt_tensor_bind(a3i, 2, s, &out), NT_ERR_INDEX,
                "The shape of the mask [4] at index 0 does not match the shape of the indexed "
                "tensor [4, 6] at index 1");
    EXPECT_OK(nt_tensor_bind(mask, 1, s0, &mi)); /* a mask over i */
    s[1].tensor = mi;
    EXPECT_ERR(nt_tensor_bind(a3i, 2, s, &out), NT_ERR_NOT_IMPLEMENTED, "bool tensor");
    s[1].tensor = NULL;
    EXPECT_ERR(nt_tensor_bind(a3i, 2, s, &out), NT_ERR_VALUE, "NULL");
    nt_tensor *objs[] = {a, b, t2, t3, f, mask, mi, a3, a3i};
    nt_fcdim *ds[] = {i, m};
    release_all(objs, sizeof objs / sizeof *objs, ds, 2);
}

/* nt_dims_dot: (A[i, k] * B[k, j]).sum(k) as one matrix product, a dim summed on one side
 * only, and bad input. */
static void test_dims_dot(void) {
    nt_fcdim *i, *j, *k;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("j", -1, &j);
    nt_fcdim_new("k", -1, &k);
    nt_tensor *a = rand2(3, 4), *b = rand2(4, 5), *ab = NULL, *bb = NULL, *s = NULL, *r = NULL,
              *want = NULL, *s2 = NULL;
    nt_bind_spec sa[2] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_DIM, .dim = k}};
    nt_bind_spec sb[2] = {{.kind = NT_BIND_DIM, .dim = k}, {.kind = NT_BIND_DIM, .dim = j}};
    EXPECT_OK(nt_tensor_bind(a, 2, sa, &ab));
    EXPECT_OK(nt_tensor_bind(b, 2, sb, &bb));
    EXPECT_OK(nt_dims_dot(ab, bb, 1, &k, &s));
    int counts[2] = {1, 1};
    nt_dim ij[2] = {nt_dim_fc(i), nt_dim_fc(j)};
    EXPECT_OK(nt_tensor_order(s, 2, counts, ij, &r));
    EXPECT_OK(nt_mm(a, b, &want));
    EXPECT(close(r, want));
    nt_fcdim *ik[2] = {i, k};
    EXPECT_OK(nt_dims_dot(ab, bb, 2, ik, &s2)); /* i summed in a only, first */
    EXPECT(nt_tensor_levels(s2, NULL) == 1 && nt_tensor_ndim(s2) == 0);
    EXPECT_ERR(nt_dims_dot(ab, NULL, 1, &k, &s2), NT_ERR_VALUE, "NULL");
    nt_tensor *objs[] = {a, b, ab, bb, s, r, want, s2};
    nt_fcdim *ds[] = {i, j, k};
    release_all(objs, sizeof objs / sizeof *objs, ds, 3);
}

/* A[:, i] (A 2x3) prints (0, i) as functorch.dim's, its dims leading physically; its printed
 * view is A itself; A[:, i][j] prints (j, i); a vmap result (the sum of everything) oldest
 * dim first. */
static void test_print_order(void) {
    nt_fcdim *i = NULL, *j = NULL;
    EXPECT_OK(nt_fcdim_new("i", -1, &i));
    EXPECT_OK(nt_fcdim_new("j", -1, &j));
    nt_tensor *a = rand2(2, 3), *x = NULL, *v = NULL, *y = NULL, *s = NULL;
    nt_bind_spec si[2] = {{.kind = NT_BIND_SLICE}, {.kind = NT_BIND_DIM, .dim = i}};
    nt_bind_spec sj = {.kind = NT_BIND_DIM, .dim = j};
    EXPECT_OK(nt_tensor_bind(a, 2, si, &x));
    nt_fcdim *seq[NT_MAX_DIMS], *lv[NT_MAX_DIMS];
    EXPECT(nt_tensor_print_order(x, seq) == 2 && seq[0] == NULL && seq[1] == i);
    EXPECT(nt_tensor_levels(x, lv) == 1 && lv[0] == i);
    EXPECT_OK(nt_tensor_unlevel(x, &v));
    EXPECT(nt_tensor_ndim(v) == 2 && nt_tensor_sizes(v)[0] == 2 && close(v, a));
    EXPECT_OK(nt_tensor_bind(x, 1, &sj, &y));
    EXPECT(nt_tensor_print_order(y, seq) == 2 && seq[0] == j && seq[1] == i);
    EXPECT(nt_tensor_levels(y, lv) == 2 && lv[0] == i && lv[1] == j);
    EXPECT_OK(nt_sum(y, 0, NULL, false, -1, &s));
    EXPECT(nt_tensor_print_order(s, seq) == 2 && seq[0] == i && seq[1] == j);
    EXPECT(nt_tensor_print_order(a, seq) == 2 && seq[0] == NULL && seq[1] == NULL);
    nt_tensor *objs[] = {a, x, v, y, s};
    for (size_t n = 0; n < sizeof objs / sizeof *objs; n++)
        nt_tensor_release(objs[n]);
    nt_fcdim_release(i);
    nt_fcdim_release(j);
}

/* expand by dims: new dims lead and print first, t's own keep their order; functorch's
 * errors. max over a first-class dim from C (nt_max_dim with nt_dim_fc), and a dim argument
 * that no tensor of the call has. */
static void test_expand_dims_and_max_over_a_dim(void) {
    nt_fcdim *i, *m, *n, *u;
    nt_fcdim_new("i", -1, &i);
    nt_fcdim_new("m", 2, &m);
    nt_fcdim_new("n", 3, &n);
    nt_fcdim_new("u", -1, &u);
    nt_tensor *a = rand2(4, 5), *x = NULL, *e = NULL, *p = NULL, *v = NULL, *ix = NULL,
              *want = NULL, *wix = NULL, *r = NULL;
    nt_bind_spec si[2] = {{.kind = NT_BIND_SLICE}, {.kind = NT_BIND_DIM, .dim = i}};
    EXPECT_OK(nt_tensor_bind(a, 2, si, &x)); /* x = a[:, i]: printed (0, i) */
    EXPECT_OK(nt_tensor_expand_dims(x, 2, (nt_fcdim *[]){n, m}, &e));
    nt_fcdim *seq[NT_MAX_DIMS], *lv[NT_MAX_DIMS];
    EXPECT(nt_tensor_print_order(e, seq) == 4 && seq[0] == n && seq[1] == m && seq[2] == NULL &&
           seq[3] == i);
    EXPECT(nt_tensor_levels(e, lv) == 3 && lv[0] == n && lv[1] == m && lv[2] == i);
    EXPECT(nt_tensor_ndim(e) == 1 && nt_tensor_sizes(e)[0] == 4);
    int counts[3] = {1, 1, 1};
    nt_dim order[3] = {nt_dim_fc(n), nt_dim_fc(m), nt_dim_fc(i)};
    EXPECT_OK(nt_tensor_order(e, 3, counts, order, &p)); /* (3, 2, 5, 4): a repeated */
    EXPECT(nt_tensor_ndim(p) == 4 && nt_tensor_sizes(p)[0] == 3 && nt_tensor_sizes(p)[1] == 2 &&
           nt_tensor_strides(p)[0] == 0 && nt_tensor_strides(p)[1] == 0);
    EXPECT_FAIL(nt_tensor_expand_dims(x, 1, &i, &r), NT_ERR_DIM_BIND,
                "expanding dimension i already exists in tensor with dims");
    EXPECT_FAIL(nt_tensor_expand_dims(a, 2, (nt_fcdim *[]){m, m}, &r), NT_ERR_DIM_BIND,
                "expanding dimension m already exists in tensor with dims");
    EXPECT_FAIL(nt_tensor_expand_dims(a, 1, &u, &r), NT_ERR_VALUE, "dimension u is unbound");
    EXPECT_ERR(nt_tensor_expand_dims(NULL, 1, &m, &r), NT_ERR_VALUE, "NULL");
    /* x.max(i): over the dim, as max(dim) of a over its dim 1 */
    EXPECT_OK(nt_max_dim(x, nt_dim_fc(i), false, &v, &ix));
    EXPECT_OK(nt_max_dim(a, 1, false, &want, &wix));
    EXPECT(nt_tensor_levels(v, NULL) == 0 && close(v, want));
    bool same = false;
    EXPECT(nt_equal(ix, wix, &same) == NT_OK && same);
    EXPECT_FAIL(nt_max_dim(a, nt_dim_fc(n), false, &r, &r), NT_ERR_VALUE,
                "max(): tensor of dimensions () does not contain dim n");
    EXPECT_FAIL(nt_sum(x, 1, (nt_dim[]){nt_dim_fc(u)}, false, -1, &r), NT_ERR_VALUE,
                "sum(): tensor of dimensions (i,) does not contain dim u");
    nt_tensor *objs[] = {a, x, e, p, v, ix, want, wix};
    nt_fcdim *ds[] = {i, m, n, u};
    release_all(objs, sizeof objs / sizeof *objs, ds, 4);
}

int main(void) {
    NT_RUN(test_print_order);
    NT_RUN(test_dims_dot);
    NT_RUN(test_dim_sizes);
    NT_RUN(test_mm_by_dims);
    NT_RUN(test_bind_errors);
    NT_RUN(test_bind_borrowing);
    NT_RUN(test_diag_and_range);
    NT_RUN(test_bind_slices);
    NT_RUN(test_bind_index_tensors);
    NT_RUN(test_bind_index_tensor_errors);
    NT_RUN(test_expand_dims_and_max_over_a_dim);
    return nt_test_summary();
}
