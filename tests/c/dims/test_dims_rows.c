/*
 * test_dims_rows.c — every row of the op table batches over first-class dims or says why:
 * the rows that refuse tensors with dims (NT_BATCH_NONE) are exactly the readers of memory
 * or of one element, listed here; and the rules beyond pointwise ones (SHIFT, JOIN, INDEX,
 * LOOP, in place) from C, against the same ops on the positional tensor.
 */
#include <string.h>

#include "nt_test.h"
#include "ntensor/index.h"
#include "ops/op_table.h"

static const char *const refusing[] = {"as_strided", "is_nonzero", "item"};

static bool is_refusing(const char *name) {
    for (size_t i = 0; i < sizeof refusing / sizeof *refusing; i++)
        if (strcmp(refusing[i], name) == 0) return true;
    return false;
}

/* A row taking a tensor refuses dims only if it is listed; rows without tensors (factories)
 * never see dims. */
static void test_refusing_rows_are_listed(void) {
    int refused = 0;
    for (int op = 0; op < NT_OP_COUNT; op++) {
        const nt_op_row *row = &nt_op_rows[op];
        bool takes_tensor = nt_op_slots_of((nt_op)op)->tensor_slots != 0;
        bool none = row->batch == NT_BATCH_NONE;
        if (none) refused++;
        if (none && (!takes_tensor || !is_refusing(row->name)))
            fprintf(stderr, "  op %s refuses dims and is not listed\n", row->name);
        EXPECT(!none || (takes_tensor && is_refusing(row->name)));
    }
    EXPECT(refused == (int)(sizeof refusing / sizeof *refusing));
}

static bool same(nt_tensor *a, nt_tensor *b) {
    bool r = false;
    return nt_equal(a, b, &r) == NT_OK && r;
}

/* x = A[i] for A 2x3x4: views, a join, an index, a loop op and an in-place op give A's
 * positional results per element; t.order(i) brings i back in front. */
static void test_rules_from_c(void) {
    nt_fcdim *i = NULL;
    EXPECT_OK(nt_fcdim_new("i", -1, &i));
    int64_t s3[3] = {2, 3, 4};
    nt_tensor *a = NULL, *x = NULL, *r = NULL, *o = NULL, *want = NULL;
    EXPECT_OK(nt_arange(nt_scalar_int(0), nt_scalar_int(24), nt_scalar_int(1), NT_FLOAT32, &a));
    nt_tensor *a3 = NULL;
    EXPECT_OK(nt_view(a, 3, s3, &a3));
    nt_bind_spec spec = {.kind = NT_BIND_DIM, .dim = i};
    EXPECT_OK(nt_tensor_bind(a3, 1, &spec, &x));
    int counts[1] = {1};
    nt_dim id = nt_dim_fc(i);

    /* SHIFT: transpose(0, 1) of the positional 3x4 is transpose(1, 2) of A */
    EXPECT_OK(nt_transpose(x, 0, 1, &r));
    EXPECT(nt_tensor_ndim(r) == 2 && nt_tensor_sizes(r)[0] == 4);
    EXPECT_OK(nt_tensor_order(r, 1, counts, &id, &o));
    EXPECT_OK(nt_transpose(a3, 1, 2, &want));
    EXPECT(same(o, want));
    nt_tensor_release(r), nt_tensor_release(o), nt_tensor_release(want);

    /* a dim out of the positional range is PyTorch's error, not a dim of the levels */
    EXPECT_ERR(nt_transpose(x, 0, 2, &r), NT_ERR_INDEX, "Dimension out of range");
    /* and a failing view's text counts the positional dims (3x4), as the op on one example */
    int64_t too_few[1] = {4}, numel[1] = {7};
    EXPECT_ERR(nt_expand(x, 1, too_few, &r), NT_ERR_RUNTIME,
               "the number of sizes provided (1) must be greater or equal to the number of "
               "dimensions in the tensor (2)");
    EXPECT_ERR(nt_reshape(x, 1, numel, &r), NT_ERR_RUNTIME,
               "shape '[7]' is invalid for input of size 12");

    /* JOIN: cat on positional dim 1 is cat on A's dim 2 */
    nt_tensor *two[2] = {x, x}, *atwo[2] = {a3, a3};
    EXPECT_OK(nt_cat(2, two, 1, NULL, &r));
    EXPECT_OK(nt_tensor_order(r, 1, counts, &id, &o));
    EXPECT_OK(nt_cat(2, atwo, 2, NULL, &want));
    EXPECT(same(o, want));
    nt_tensor_release(r), nt_tensor_release(o), nt_tensor_release(want);

    /* INDEX: x[1] is A[:, 1] */
    nt_index one = {.kind = NT_INDEX_INT, .i = 1};
    nt_index full[2] = {{.kind = NT_INDEX_SLICE, .start = 0, .stop = NT_SLICE_END, .step = 1},
                        {.kind = NT_INDEX_INT, .i = 1}};
    EXPECT_OK(nt_index_get1(x, &one, &r));
    EXPECT_OK(nt_tensor_order(r, 1, counts, &id, &o));
    EXPECT_OK(nt_index_get(a3, 2, full, &want));
    EXPECT(same(o, want));
    nt_tensor_release(r), nt_tensor_release(o), nt_tensor_release(want);

    /* LOOP: max() of every positional dim, per element of i */
    nt_dim d12[2] = {1, 2};
    EXPECT_OK(nt_max_all(x, &r));
    EXPECT(nt_tensor_ndim(r) == 0 && nt_tensor_levels(r, NULL) == 1);
    EXPECT_OK(nt_tensor_order(r, 1, counts, &id, &o));
    EXPECT_OK(nt_amax(a3, 2, d12, false, &want));
    EXPECT(same(o, want));
    nt_tensor_release(r), nt_tensor_release(o), nt_tensor_release(want);

    /* in place (fill_: the loop rule) through the views: A itself is written, one version
     * more */
    uint64_t v = nt_tensor_version(a3);
    EXPECT_OK(nt_fill_(x, nt_scalar_float(5)));
    EXPECT(nt_tensor_version(a3) == v + 1);
    EXPECT_OK(nt_full(3, s3, nt_scalar_float(5), NT_FLOAT32, NULL, &want));
    EXPECT(same(a3, want));
    nt_tensor_release(want);
    nt_tensor *objs[] = {a, a3, x};
    for (size_t n = 0; n < sizeof objs / sizeof *objs; n++)
        nt_tensor_release(objs[n]);
    nt_fcdim_release(i);
}

int main(void) {
    NT_RUN(test_refusing_rows_are_listed);
    NT_RUN(test_rules_from_c);
    return nt_test_summary();
}
