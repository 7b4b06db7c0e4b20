/*
 * bench_ops.c — what the operator calls of the per-call list cost from C, on 8x8
 * named float32 tensors: x + y, x.sum('C'), x.abs(), x @ w, softmax(x, 'C'),
 * x.transpose('N', 'C'). The target is 150 ns a call, result allocation included.
 */
#include "bench_util.h"

/* The best of 5 runs of 0.1 s each: ns per call of `body`, which makes one tensor r_. */
#define TIME_PER_CALL(label, body)                                                              \
    do {                                                                                        \
        double best = 1e30;                                                                     \
        for (int run_ = 0; run_ < 5; run_++) {                                                  \
            long calls = 0;                                                                     \
            double start = now(), elapsed;                                                      \
            do {                                                                                \
                for (int rep_ = 0; rep_ < 1000; rep_++) {                                       \
                    nt_tensor *r_ = NULL;                                                       \
                    check(body);                                                                \
                    nt_tensor_release(r_);                                                      \
                }                                                                               \
                calls += 1000;                                                                  \
            } while ((elapsed = now() - start) < 0.1);                                          \
            if (elapsed / (double)calls < best) best = elapsed / (double)calls;                 \
        }                                                                                       \
        printf("%-36s %8.1f ns  %s\n", label, best * 1e9, best * 1e9 <= 150 ? "yes" : "NO");    \
    } while (0)

int main(void) {
    nt_set_num_threads(2);
    nt_name n[3];
    check(nt_name_intern("N", &n[0]));
    check(nt_name_intern("C", &n[1]));
    check(nt_name_intern("D", &n[2]));
    int64_t sizes[2] = {8, 8};
    nt_tensor *x, *y, *w;
    check(nt_rand(2, sizes, NT_FLOAT32, n, &x));
    check(nt_rand(2, sizes, NT_FLOAT32, n, &y));
    check(nt_rand(2, sizes, NT_FLOAT32, n + 1, &w));
    int64_t c_dim = 1;

    printf("== per call from C, 8x8 named float32 (target <= 150 ns)\n");
    TIME_PER_CALL("x + y", nt_add(x, y, &r_));
    TIME_PER_CALL("x.sum('C')", nt_sum(x, 1, &c_dim, false, -1, &r_));
    TIME_PER_CALL("x.abs()", nt_abs(x, &r_));
    TIME_PER_CALL("x @ w", nt_matmul(x, w, &r_));
    TIME_PER_CALL("softmax(x, dim='C')", nt_softmax(x, c_dim, -1, &r_));
    TIME_PER_CALL("x.transpose('N', 'C')", nt_transpose(x, 0, 1, &r_));
    TIME_PER_CALL("(empty(8, 8) alone, for scale)", nt_empty(2, sizes, NT_FLOAT32, n, &r_));

    nt_tensor_release(x);
    nt_tensor_release(y);
    nt_tensor_release(w);
    return 0;
}
