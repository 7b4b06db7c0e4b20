/*
 * dims.c — first-class dims from C: a matrix product written as functorch.dim's
 *     i, j, k = dims(3); r = (A[i, k] * B[k, j]).sum(k).order(i, j)
 * checked against nt_mm. Every call returns a status; the message says why on failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ntensor.h>

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if ((expr) != NT_OK) {                                                                     \
            fprintf(stderr, "%s failed: %s\n", #expr, nt_last_error());                            \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(void) {
    nt_fcdim *i, *j, *k;
    CHECK(nt_fcdim_new("i", -1, &i));
    CHECK(nt_fcdim_new("j", -1, &j));
    CHECK(nt_fcdim_new("k", -1, &k));
    int64_t sa[2] = {3, 4}, sb[2] = {4, 5};
    nt_tensor *a, *b, *ab, *bb, *prod, *sum, *r, *want;
    CHECK(nt_rand(2, sa, NT_FLOAT32, NULL, &a));
    CHECK(nt_rand(2, sb, NT_FLOAT32, NULL, &b));

    /* A[i, k], B[k, j]: views whose dims are first-class; i, k and j take their sizes */
    nt_bind_spec bind_a[2] = {{.kind = NT_BIND_DIM, .dim = i}, {.kind = NT_BIND_DIM, .dim = k}};
    nt_bind_spec bind_b[2] = {{.kind = NT_BIND_DIM, .dim = k}, {.kind = NT_BIND_DIM, .dim = j}};
    CHECK(nt_tensor_bind(a, 2, bind_a, &ab));
    CHECK(nt_tensor_bind(b, 2, bind_b, &bb));

    /* the product is batched over (i, k, j); the sum takes k as its dim argument */
    CHECK(nt_mul(ab, bb, &prod));
    nt_dim kd = nt_dim_fc(k);
    CHECK(nt_sum(prod, 1, &kd, false, -1, &sum));

    /* back to positional dims, i first */
    int counts[2] = {1, 1};
    nt_dim order[2] = {nt_dim_fc(i), nt_dim_fc(j)};
    CHECK(nt_tensor_order(sum, 2, counts, order, &r));
    CHECK(nt_mm(a, b, &want));
    bool same = false;
    CHECK(nt_allclose(r, want, 1e-5, 1e-6, false, &same));
    char *text = NULL;
    CHECK(nt_format(r, &text));
    printf("(A[i, k] * B[k, j]).sum(k).order(i, j) =\n%s\nequals mm(A, B): %s\n", text,
           same ? "yes" : "no");
    nt_free(text);
    nt_tensor *all[] = {a, b, ab, bb, prod, sum, r, want};
    for (size_t n = 0; n < sizeof all / sizeof *all; n++)
        nt_tensor_release(all[n]);
    nt_fcdim_release(i);
    nt_fcdim_release(j);
    nt_fcdim_release(k);
    return same ? 0 : 1;
}
