/*
 * bench_ops.c — what the operator calls of the per-call list cost from C, on 8x8
 * named float32 tensors: x + y, x.sum('C'), x.abs(), x @ w, softmax(x, 'C'),
 * x.transpose('N', 'C'). The target is 150 ns a call, result allocation included.
 *
 * How it measures: ROUNDS rounds, each timing CALLS calls of every op in turn, and each
 * op's best round. The machine's speed drifts by up to 2x over seconds (a shared host), so
 * interleaving the ops gives each the same chances at a quiet moment, and the best round
 * is the cost of the call itself rather than of the neighbours. It also counts each
 * call's instructions and cycles in its best round (hw_counters.h): the instructions are
 * the library's own cost whatever the host does, and instructions per cycle show what the
 * host left of the core (about 3.9 for empty() on a quiet host, 2.2 on a busy one).
 */
#include "hw_counters.h" /* first: it sets _GNU_SOURCE */

#include "bench_util.h"

#define ROUNDS 60
#define CALLS 5000

enum { ADD, SUM, ABS, MATMUL, SOFTMAX, TRANSPOSE, EMPTY, OPS };

static const char *const labels[OPS] = {
    [ADD] = "x + y",
    [SUM] = "x.sum('C')",
    [ABS] = "x.abs()",
    [MATMUL] = "x @ w",
    [SOFTMAX] = "softmax(x, dim='C')",
    [TRANSPOSE] = "x.transpose('N', 'C')",
    [EMPTY] = "(empty(8, 8) alone, for scale)",
};

typedef struct inputs {
    nt_tensor *x, *y, *w;
    const int64_t *sizes;
    const nt_name *names;
} inputs;

/* One call of `op`, its result released. */
static void call(int op, const inputs *in) {
    const int64_t c_dim = 1;
    nt_tensor *r = NULL;
    switch (op) {
    case ADD:
        check(nt_add(in->x, in->y, &r));
        break;
    case SUM:
        check(nt_sum(in->x, 1, &c_dim, false, -1, &r));
        break;
    case ABS:
        check(nt_abs(in->x, &r));
        break;
    case MATMUL:
        check(nt_matmul(in->x, in->w, &r));
        break;
    case SOFTMAX:
        check(nt_softmax(in->x, c_dim, -1, &r));
        break;
    case TRANSPOSE:
        check(nt_transpose(in->x, 0, 1, &r));
        break;
    default:
        check(nt_empty(2, in->sizes, NT_FLOAT32, in->names, &r));
        break;
    }
    nt_tensor_release(r);
}

int main(void) {
    nt_set_num_threads(2);
    nt_name n[3];
    check(nt_name_intern("N", &n[0]));
    check(nt_name_intern("C", &n[1]));
    check(nt_name_intern("D", &n[2]));
    int64_t sizes[2] = {8, 8};
    inputs in = {.sizes = sizes, .names = n};
    check(nt_rand(2, sizes, NT_FLOAT32, n, &in.x));
    check(nt_rand(2, sizes, NT_FLOAT32, n, &in.y));
    check(nt_rand(2, sizes, NT_FLOAT32, n + 1, &in.w));

    hw_counters hw;
    bool counted = hw_counters_open(&hw);
    double best[OPS], instructions[OPS] = {0}, cycles[OPS] = {0};
    for (int op = 0; op < OPS; op++)
        best[op] = 1e30;
    for (int round = 0; round < ROUNDS; round++) {
        for (int op = 0; op < OPS; op++) {
            hw_reading before = counted ? hw_read(&hw) : (hw_reading){0, 0};
            double start = now();
            for (int i = 0; i < CALLS; i++)
                call(op, &in);
            double per_call = (now() - start) / CALLS;
            if (per_call < best[op]) {
                hw_reading after = counted ? hw_read(&hw) : (hw_reading){0, 0};
                best[op] = per_call;
                instructions[op] = (double)(after.instructions - before.instructions) / CALLS;
                cycles[op] = (double)(after.cycles - before.cycles) / CALLS;
            }
        }
    }
    printf("== per call from C, 8x8 named float32 (target <= 150 ns; best of %d rounds of %d)\n",
           ROUNDS, CALLS);
    printf("   this core's effective clock after the runs: %.2f GHz (nominal 2.25)\n",
           effective_ghz());
    printf("%-36s %11s %5s %8s %6s\n", "", "time", "met", "instr", "IPC");
    for (int op = 0; op < OPS; op++) {
        const char *met = op == EMPTY ? "" : best[op] * 1e9 <= 150 ? "yes" : "NO";
        printf("%-36s %8.1f ns %5s", labels[op], best[op] * 1e9, met);
        if (counted && cycles[op] > 0)
            printf(" %8.0f %6.2f\n", instructions[op], instructions[op] / cycles[op]);
        else
            printf(" %8s %6s\n", "n/a", "n/a");
    }
    if (counted) hw_counters_close(&hw);

    nt_tensor_release(in.x);
    nt_tensor_release(in.y);
    nt_tensor_release(in.w);
    return 0;
}
