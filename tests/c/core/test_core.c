/*
 * test_core.c — status, dtypes, promotion, symbols and tensor metadata.
 */
#include "core/tensor.h"
#include "nt_test.h"

static void test_promotion_matches_pytorch(void) {
    EXPECT(nt_promote_types(NT_UINT8, NT_INT8) == NT_INT16);
    EXPECT(nt_promote_types(NT_UINT8, NT_INT32) == NT_INT32);
    EXPECT(nt_promote_types(NT_BOOL, NT_UINT8) == NT_UINT8);
    EXPECT(nt_promote_types(NT_FLOAT16, NT_BFLOAT16) == NT_FLOAT32);
    EXPECT(nt_promote_types(NT_INT64, NT_FLOAT16) == NT_FLOAT16);
    EXPECT(nt_promote_types(NT_FLOAT32, NT_FLOAT64) == NT_FLOAT64);
    EXPECT(nt_promote_types(NT_INT16, NT_INT64) == NT_INT64);
    EXPECT(nt_promote_types(NT_BFLOAT16, NT_FLOAT32) == NT_FLOAT32);
}

static void test_names_intern_to_same_id(void) {
    nt_name a, b, c;
    EXPECT_OK(nt_name_intern("batch", &a));
    EXPECT_OK(nt_name_intern("batch", &b));
    EXPECT_OK(nt_name_intern("channel", &c));
    EXPECT(a == b && a != c && a != NT_NAME_NONE);
    EXPECT(strcmp(nt_name_str(a), "batch") == 0);
    EXPECT(nt_name_str(NT_NAME_NONE) == NULL);
}

static void test_many_names_survive_table_growth(void) {
    char text[32];
    nt_name ids[3000];
    for (int i = 0; i < 3000; i++) {
        snprintf(text, sizeof text, "n%d", i);
        EXPECT_OK(nt_name_intern(text, &ids[i]));
    }
    for (int i = 0; i < 3000; i++) {
        snprintf(text, sizeof text, "n%d", i);
        nt_name again;
        EXPECT_OK(nt_name_intern(text, &again));
        EXPECT(again == ids[i]);
        EXPECT(strcmp(nt_name_str(ids[i]), text) == 0);
    }
}

static void test_invalid_names_are_rejected(void) {
    nt_name n;
    EXPECT_ERR(nt_name_intern("1N", &n), NT_ERR_RUNTIME, "Invalid name: a valid identifier");
    EXPECT_ERR(nt_name_intern("", &n), NT_ERR_RUNTIME, "got: ''");
    EXPECT_ERR(nt_name_intern("a-b", &n), NT_ERR_RUNTIME, "got: 'a-b'");
    EXPECT_ERR(nt_name_intern("_x", &n), NT_ERR_RUNTIME, "may not start with an underscore");
    EXPECT_OK(nt_name_intern("x_1", &n));
}

static void test_alloc_checks_shapes(void) {
    nt_tensor *t = NULL;
    int64_t bad[2] = {2, -1};
    EXPECT_ERR(nt_tensor_alloc(NT_FLOAT32, 2, bad, NULL, &t), NT_ERR_RUNTIME,
               "Trying to create tensor with negative dimension -1: [2, -1]");
    int64_t huge[3] = {INT64_MAX / 2, 4, 1};
    EXPECT_ERR(nt_tensor_alloc(NT_FLOAT32, 3, huge, NULL, &t), NT_ERR_RUNTIME, "overflow");
    int64_t empty[3] = {INT64_MAX / 2, 4, 0};
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT32, 3, empty, NULL, &t));
    EXPECT(t && t->numel == 0);
    nt_tensor_release(t);
    EXPECT_ERR(nt_tensor_alloc(NT_FLOAT32, 65, empty, NULL, &t), NT_ERR_RUNTIME, "[0, 64]");
}

static void test_alloc_sets_contiguous_metadata(void) {
    nt_tensor *t = NULL;
    int64_t sizes[3] = {2, 3, 4};
    nt_name names[3] = {N("N"), NT_NAME_NONE, N("C")};
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT64, 3, sizes, names, &t));
    EXPECT(t->strides[0] == 12 && t->strides[1] == 4 && t->strides[2] == 1);
    EXPECT(t->numel == 24 && t->is_contiguous);
    EXPECT(((uintptr_t)nt_tensor_data(t) & 63) == 0);
    EXPECT(nt_tensor_has_names(t) && nt_tensor_names(t)[0] == N("N"));
    int64_t dim = -1;
    EXPECT_OK(nt_tensor_dim_of(t, N("C"), &dim));
    EXPECT(dim == 2);
    EXPECT_ERR(nt_tensor_dim_of(t, N("X"), &dim), NT_ERR_RUNTIME,
               "Name 'X' not found in Tensor['N', None, 'C'].");
    nt_tensor_release(t);
}

static void test_all_none_names_mean_unnamed(void) {
    nt_tensor *t = NULL;
    int64_t sizes[2] = {2, 3};
    nt_name names[2] = {NT_NAME_NONE, NT_NAME_NONE};
    EXPECT_OK(nt_tensor_alloc(NT_FLOAT32, 2, sizes, names, &t));
    EXPECT(!nt_tensor_has_names(t));
    nt_tensor_release(t);
}

static void test_duplicate_names_are_rejected(void) {
    nt_tensor *t = NULL;
    int64_t sizes[2] = {2, 3};
    nt_name names[2] = {N("N"), N("N")};
    EXPECT_ERR(nt_tensor_alloc(NT_FLOAT32, 2, sizes, names, &t), NT_ERR_RUNTIME,
               "Cannot construct a tensor with duplicate names. Got names: ['N', 'N'].");
    EXPECT(t == NULL);
}

static void test_wrap_dim(void) {
    int64_t d;
    EXPECT_OK(nt_wrap_dim(-1, 3, &d));
    EXPECT(d == 2);
    EXPECT_ERR(nt_wrap_dim(3, 3, &d), NT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    EXPECT_OK(nt_wrap_dim(-1, 0, &d));
    EXPECT(d == 0);
}

int main(void) {
    NT_RUN(test_promotion_matches_pytorch);
    NT_RUN(test_names_intern_to_same_id);
    NT_RUN(test_many_names_survive_table_growth);
    NT_RUN(test_invalid_names_are_rejected);
    NT_RUN(test_alloc_checks_shapes);
    NT_RUN(test_alloc_sets_contiguous_metadata);
    NT_RUN(test_all_none_names_mean_unnamed);
    NT_RUN(test_duplicate_names_are_rejected);
    NT_RUN(test_wrap_dim);
    return nt_test_summary();
}
