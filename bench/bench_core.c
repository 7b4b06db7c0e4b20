/*
 * bench_core.c — per-call cost of the named-dimension API and factories from C, and the
 * bandwidth of conversions and copies. The Python runner (bench_core.py) compares with
 * PyTorch; this program shows what the C core costs without Python around it.
 */
#include "bench_util.h"

/* Runs `body` (which makes one tensor) until 0.2 s pass; returns ns per call. */
#define TIME_PER_CALL(label, body)                                                                 \
    do {                                                                                           \
        long calls = 0;                                                                            \
        double start = now(), elapsed;                                                             \
        do {                                                                                       \
            for (int rep_ = 0; rep_ < 1000; rep_++) {                                              \
                nt_tensor *r_ = NULL;                                                              \
                check(body);                                                                       \
                nt_tensor_release(r_);                                                             \
            }                                                                                      \
            calls += 1000;                                                                         \
        } while ((elapsed = now() - start) < 0.2);                                                 \
        printf("%-44s %8.1f ns\n", label, elapsed / (double)calls * 1e9);                          \
    } while (0)

/* Runs `body` until 0.5 s pass; prints GB/s for `bytes` moved per call. */
#define TIME_BANDWIDTH(label, bytes, body)                                                         \
    do {                                                                                           \
        long calls = 0;                                                                            \
        double start = now(), elapsed;                                                             \
        do {                                                                                       \
            nt_tensor *r_ = NULL;                                                                  \
            check(body);                                                                           \
            nt_tensor_release(r_);                                                                 \
            calls++;                                                                               \
        } while ((elapsed = now() - start) < 0.5);                                                 \
        printf("%-44s %8.2f GB/s\n", label, (double)(bytes) * (double)calls / elapsed / 1e9);      \
    } while (0)

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    nt_set_num_threads(threads);
    nt_name n[6];
    const char *texts[6] = {"N", "C", "H", "W", "F", "batch"};
    for (int i = 0; i < 6; i++)
        check(nt_name_intern(texts[i], &n[i]));
    int64_t sizes[4] = {2, 3, 4, 5}, small[2] = {2, 3};
    nt_tensor *x, *flat, *unnamed;
    check(nt_zeros(4, sizes, NT_FLOAT32, n, &x));
    check(nt_rename(x, NULL, &unnamed));
    check(nt_flatten_names(x, 3, n + 1, n[4], &flat));
    int64_t parts[3] = {3, 4, 5};
    nt_name from[1] = {n[0]}, to[1] = {n[5]}, w_first[2] = {n[3], NT_NAME_NONE};

    printf("== per call, from C (threads=%d)\n", threads);
    TIME_PER_CALL("zeros(2, 3, names=('N','C'))", nt_zeros(2, small, NT_FLOAT32, n, &r_));
    TIME_PER_CALL("full((2, 3), 1.5, names=('N','C'))",
                  nt_full(2, small, nt_scalar_float(1.5), NT_FLOAT32, n, &r_));
    TIME_PER_CALL("rename(N='batch')", nt_rename_map(x, 1, from, to, &r_));
    TIME_PER_CALL("rename(None)", nt_rename(x, NULL, &r_));
    TIME_PER_CALL("refine_names('N','C','H','W')", nt_refine_names(unnamed, 4, n, -1, &r_));
    TIME_PER_CALL("align_to('W', ...)", nt_align_to(x, 2, w_first, 1, &r_));
    TIME_PER_CALL("flatten(['C','H','W'], 'F')", nt_flatten_names(x, 3, n + 1, n[4], &r_));
    TIME_PER_CALL("unflatten('F', C=3, H=4, W=5)", nt_unflatten(flat, 1, 3, parts, n + 1, &r_));
    TIME_PER_CALL("transpose(0, 1)", nt_transpose(x, 0, 1, &r_));

    printf("== bandwidth, 2^24 elements (threads=%d)\n", threads);
    int64_t big[1] = {1 << 24}, square[2] = {4096, 4096};
    nt_tensor *f32, *i64, *m, *mt;
    check(nt_rand(1, big, NT_FLOAT32, NULL, &f32));
    check(nt_to_dtype(f32, NT_INT64, &i64));
    check(nt_rand(2, square, NT_FLOAT32, NULL, &m));
    check(nt_t(m, &mt));
    const double n24 = (double)(1 << 24);
    TIME_BANDWIDTH("float32 -> float16", n24 * 6, nt_to_dtype(f32, NT_FLOAT16, &r_));
    TIME_BANDWIDTH("float32 -> float64", n24 * 12, nt_to_dtype(f32, NT_FLOAT64, &r_));
    TIME_BANDWIDTH("float32 -> bfloat16", n24 * 6, nt_to_dtype(f32, NT_BFLOAT16, &r_));
    TIME_BANDWIDTH("int64 -> float32", n24 * 12, nt_to_dtype(i64, NT_FLOAT32, &r_));
    TIME_BANDWIDTH("clone (float32)", n24 * 8, nt_clone(m, &r_));
    TIME_BANDWIDTH("t().contiguous() (float32)", n24 * 8, nt_contiguous(mt, &r_));

    nt_tensor *all[] = {x, flat, unnamed, f32, i64, m, mt};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        nt_tensor_release(all[i]);
    return 0;
}
