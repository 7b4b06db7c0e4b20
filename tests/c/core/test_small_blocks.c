/*
 * test_small_blocks.c — the blocks small tensors live in: the per-thread free lists
 * (core/small_alloc.c), one-block tensors whose storage outlives them through a view, and
 * blocks freed on another thread or left in a thread's list when it exits.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/small_alloc.h"
#include "core/storage.h"
#include "core/tensor.h"
#include "nt_test.h"

static void test_blocks_are_aligned_writable_and_distinct(void) {
    size_t sizes[] = {0, 1, 100, 240, 241, 500, 1000, 2000, 5000, 100000};
    enum { COUNT = sizeof sizes / sizeof *sizes };
    unsigned char *blocks[COUNT];
    for (int i = 0; i < COUNT; i++) {
        blocks[i] = nt_small_alloc(sizes[i]);
        EXPECT(blocks[i] != NULL);
        EXPECT((uintptr_t)blocks[i] % _Alignof(max_align_t) == 0);
        memset(blocks[i], i + 1, sizes[i]);
    }
    for (int i = 0; i < COUNT; i++)
        for (size_t b = 0; b < sizes[i]; b++)
            if (blocks[i][b] != (unsigned char)(i + 1)) {
                EXPECT(blocks[i][b] == (unsigned char)(i + 1));
                break;
            }
    for (int i = 0; i < COUNT; i++)
        nt_small_free(blocks[i]);
    nt_small_free(NULL);
    EXPECT(nt_small_alloc(SIZE_MAX - 8) == NULL);
}

static void test_many_blocks_outlive_the_lists(void) {
    /* more blocks of one class than a thread keeps: the rest go back to malloc */
    enum { MANY = 200 };
    void *blocks[MANY];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < MANY; i++) {
            blocks[i] = nt_small_alloc(300);
            EXPECT(blocks[i] != NULL);
            memset(blocks[i], round, 300);
        }
        for (int i = 0; i < MANY; i++)
            nt_small_free(blocks[i]);
    }
}

static void test_view_outlives_its_one_block_tensor(void) {
    int64_t sizes[2] = {4, 4};
    nt_tensor *t, *row;
    EXPECT_OK(nt_arange(nt_scalar_int(0), nt_scalar_int(16), nt_scalar_int(1), NT_FLOAT32, &t));
    nt_tensor *m;
    EXPECT_OK(nt_view(t, 2, sizes, &m));
    nt_tensor_release(t);
    EXPECT_OK(nt_select(m, 0, 2, &row));
    nt_tensor_release(m); /* the block now lives on through row's storage alone */
    const float *p = nt_tensor_data(row);
    for (int i = 0; i < 4; i++)
        EXPECT(p[i] == (float)(8 + i));
    nt_tensor_release(row);
}

static void test_resized_one_block_tensor_keeps_its_values(void) {
    nt_tensor *t;
    EXPECT_OK(nt_arange(nt_scalar_int(0), nt_scalar_int(8), nt_scalar_int(1), NT_INT64, &t));
    int64_t big[1] = {4096}; /* past the inline bytes: the data moves, the block stays */
    EXPECT_OK(nt_resize_(t, 1, big));
    const int64_t *p = nt_tensor_data(t);
    for (int i = 0; i < 8; i++)
        EXPECT(p[i] == i);
    nt_tensor_release(t);
}

typedef struct handoff {
    void *blocks[64];
    nt_tensor *tensors[16];
} handoff;

static void *make_on_thread(void *arg) {
    handoff *h = arg;
    for (int i = 0; i < 64; i++)
        h->blocks[i] = nt_small_alloc((size_t)(i * 37) % 1500);
    int64_t sizes[2] = {3, 5};
    for (int i = 0; i < 16; i++)
        if (nt_ones(2, sizes, NT_FLOAT64, NULL, &h->tensors[i]) != NT_OK) h->tensors[i] = NULL;
    /* and some left in this thread's lists when it exits */
    for (int i = 0; i < 20; i++)
        nt_small_free(nt_small_alloc(200));
    return NULL;
}

static void test_blocks_freed_on_another_thread(void) {
    for (int round = 0; round < 4; round++) {
        handoff h;
        pthread_t th;
        EXPECT(pthread_create(&th, NULL, make_on_thread, &h) == 0);
        EXPECT(pthread_join(th, NULL) == 0);
        for (int i = 0; i < 16; i++) {
            EXPECT(h.tensors[i] != NULL);
            if (!h.tensors[i]) continue;
            const double *p = nt_tensor_data(h.tensors[i]);
            EXPECT(p[0] == 1.0 && p[14] == 1.0);
            nt_tensor_release(h.tensors[i]);
        }
        for (int i = 0; i < 64; i++)
            nt_small_free(h.blocks[i]);
    }
}

int main(void) {
    NT_RUN(test_blocks_are_aligned_writable_and_distinct);
    NT_RUN(test_many_blocks_outlive_the_lists);
    NT_RUN(test_view_outlives_its_one_block_tensor);
    NT_RUN(test_resized_one_block_tensor_keeps_its_values);
    NT_RUN(test_blocks_freed_on_another_thread);
    return nt_test_summary();
}
