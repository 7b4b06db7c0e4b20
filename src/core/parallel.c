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
