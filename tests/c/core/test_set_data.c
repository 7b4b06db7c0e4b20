/*
 * test_set_data.c — nt_tensor_set_data (t.data = src): t takes src's storage and geometry,
 * and a small tensor whose struct shares its block with its inline storage releases that
 * storage last, whichever of it, its old views and its new data dies first.
 */
#include "core/tensor.h"
#include "nt_test.h"

static void test_takes_storage_dtype_shape_and_names(void) {
    nt_tensor *t = NULL, *src = NULL;
    nt_name names[2] = {N("rows"), N("cols")};
    EXPECT_OK(nt_ones(1, (int64_t[]){3}, NT_FLOAT32, NULL, &t));
    EXPECT_OK(nt_zeros(2, (int64_t[]){2, 5}, NT_FLOAT64, names, &src));
    EXPECT_OK(nt_tensor_set_data(t, src));
    EXPECT(t->storage == src->storage && t->dtype == NT_FLOAT64 && t->ndim == 2);
    EXPECT(t->sizes[0] == 2 && t->sizes[1] == 5 && t->strides[0] == 5 && t->strides[1] == 1);
    EXPECT(t->numel == 10 && t->is_contiguous && t->offset == 0);
    EXPECT(t->names && t->names[0] == names[0] && t->names[1] == names[1]);
    EXPECT(nt_tensor_data(t) == nt_tensor_data(src));
    nt_tensor_release(t);
    nt_tensor_release(src);
}

/* More dims than the struct was made with: the dims move to the grown block. */
static void test_grows_past_the_dims_it_was_made_with(void) {
    nt_tensor *t = NULL, *src = NULL;
    EXPECT_OK(nt_ones(0, NULL, NT_FLOAT32, NULL, &t));
    EXPECT_OK(nt_zeros(4, (int64_t[]){1, 2, 3, 4}, NT_FLOAT32, NULL, &src));
    EXPECT_OK(nt_tensor_set_data(t, src));
    EXPECT(t->ndim == 4 && t->sizes[3] == 4 && t->strides[0] == 24 && t->numel == 24);
    nt_tensor_release(src);
    nt_tensor_release(t);
}

/* t hosts its inline storage, a view keeps that storage; t dies first, then the view. */
static void test_host_outlived_by_a_view_of_its_old_storage(void) {
    nt_tensor *t = NULL, *view = NULL, *src = NULL;
    EXPECT_OK(nt_full(1, (int64_t[]){4}, nt_scalar_float(2.0), NT_FLOAT32, NULL, &t));
    bool one_block = NT_STORAGE_INLINE_BYTES > 0; /* small: one block (not under ASan) */
    EXPECT((t->storage->block == t) == one_block);
    EXPECT_OK(nt_select(t, 0, 1, &view));
    EXPECT_OK(nt_zeros(1, (int64_t[]){4}, NT_FLOAT32, NULL, &src));
    EXPECT_OK(nt_tensor_set_data(t, src));
    EXPECT((t->host != NULL) == one_block);
    nt_tensor_release(t);
    EXPECT(*(float *)nt_tensor_data(view) == 2.0f); /* the old storage is alive */
    nt_tensor_release(view);
    nt_tensor_release(src);
}

/* Set twice, back to its own storage: every reference is dropped once. */
static void test_set_back_to_its_own_storage(void) {
    nt_tensor *t = NULL, *alias = NULL, *src = NULL;
    EXPECT_OK(nt_ones(1, (int64_t[]){2}, NT_FLOAT32, NULL, &t));
    EXPECT_OK(nt_rename(t, NULL, &alias));
    EXPECT_OK(nt_zeros(1, (int64_t[]){2}, NT_FLOAT32, NULL, &src));
    EXPECT_OK(nt_tensor_set_data(t, src));
    EXPECT_OK(nt_tensor_set_data(t, alias));
    EXPECT_OK(nt_tensor_set_data(t, t)); /* itself: nothing changes */
    EXPECT(t->storage == alias->storage);
    EXPECT(t->host == (NT_STORAGE_INLINE_BYTES > 0 ? t->storage : NULL));
    nt_tensor_release(src);
    nt_tensor_release(alias);
    EXPECT(*(float *)nt_tensor_data(t) == 1.0f);
    nt_tensor_release(t);
}

int main(void) {
    NT_RUN(test_takes_storage_dtype_shape_and_names);
    NT_RUN(test_grows_past_the_dims_it_was_made_with);
    NT_RUN(test_host_outlived_by_a_view_of_its_old_storage);
    NT_RUN(test_set_back_to_its_own_storage);
    return nt_test_summary();
}
