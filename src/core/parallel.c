/*
 * parallel.c — nt_parallel_for over OpenMP (or serial when built without it).
 */
#include "parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int nt_get_num_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

void nt_set_num_threads(int n) {
#ifdef _OPENMP
    if (n > 0) omp_set_num_threads(n);
#else
    (void)n;
#endif
}

void nt_parallel_for(int64_t begin, int64_t end, int64_t grain, nt_range_fn fn, void *ctx) {
    int64_t n = end - begin;
    if (n <= 0) return;
    if (grain < 1) grain = 1;
#ifdef _OPENMP
    if (n < 2 * grain) { /* one thread's work: no need to ask OpenMP (a TLS lookup) */
        fn(ctx, begin, end);
        return;
    }
    int64_t threads = nt_get_num_threads();
    if (threads > n / grain) threads = n / grain;
    if (threads > 1 && !omp_in_parallel()) {
#pragma omp parallel num_threads((int)threads)
        {
            int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t chunk = (n + nt - 1) / nt;
            int64_t b = begin + tid * chunk;
            int64_t e = b + chunk < end ? b + chunk : end;
            if (b < e) fn(ctx, b, e);
        }
        return;
    }
#endif
    fn(ctx, begin, end);
}

#ifdef _OPENMP
/* Runs one chunk with this thread's OpenMP thread count set to one (an ICV of the calling
 * thread, so other threads are not affected), then restores it. */
typedef struct leaf_ctx {
    nt_range_fn fn;
    void *ctx;
} leaf_ctx;

static void leaf_chunk(void *p, int64_t begin, int64_t end) {
    const leaf_ctx *l = p;
    int before = omp_get_max_threads();
    omp_set_num_threads(1);
    l->fn(l->ctx, begin, end);
    omp_set_num_threads(before);
}
#endif

void nt_parallel_for_leaf(int64_t begin, int64_t end, int64_t grain, nt_range_fn fn, void *ctx) {
#ifdef _OPENMP
    leaf_ctx l = {fn, ctx};
    nt_parallel_for(begin, end, grain, leaf_chunk, &l);
#else
    nt_parallel_for(begin, end, grain, fn, ctx);
#endif
}
