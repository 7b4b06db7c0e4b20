/*
 * consumer.c — a program that uses an installed ntensor, as a user's would: built by
 * tests/install/run.sh four ways (pkg-config shared and static, CMake's ntensor::ntensor and
 * ntensor::ntensor_static). It makes named tensors, multiplies them (the GEMM) and takes an
 * exp (SLEEF), checks the values, names and version, and exits non-zero on any mismatch.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <ntensor.h>

static int failures;

static void check(nt_status st, const char *what) {
    if (st != NT_OK) {
        fprintf(stderr, "consumer: %s failed: %s\n", what, nt_last_error());
        failures++;
    }
}

static void expect_close(float got, double want, const char *what) {
    if (!(fabs(got - want) <= 1e-6 * fabs(want) + 1e-6)) {
        fprintf(stderr, "consumer: %s is %.9g, expected %.9g\n", what, got, want);
        failures++;
    }
}

int main(void) {
    nt_name N, C, D;
    check(nt_name_intern("N", &N), "nt_name_intern");
    check(nt_name_intern("C", &C), "nt_name_intern");
    check(nt_name_intern("D", &D), "nt_name_intern");
    if (failures) return 1;

    /* a = arange(6.).reshape(2, 3).refine_names('N', 'C'); b = ones(3, 4, names=('C', 'D')) */
    nt_tensor *flat = NULL, *a2 = NULL, *a = NULL, *b = NULL, *c = NULL, *e = NULL;
    int64_t a_sizes[2] = {2, 3}, b_sizes[2] = {3, 4};
    nt_name nc[2] = {N, C}, cd[2] = {C, D};
    check(nt_arange(nt_scalar_float(0), nt_scalar_float(6), nt_scalar_float(1), NT_FLOAT32, &flat),
          "nt_arange");
    if (!failures) check(nt_reshape(flat, 2, a_sizes, &a2), "nt_reshape");
    if (!failures) check(nt_refine_names(a2, 2, nc, -1, &a), "nt_refine_names");
    if (!failures) check(nt_ones(2, b_sizes, NT_FLOAT32, cd, &b), "nt_ones");
    if (!failures) check(nt_matmul(a, b, &c), "nt_matmul"); /* [N, D]: row sums 3 and 12 */
    if (!failures) check(nt_exp(a, &e), "nt_exp");
    if (failures) goto done;

    const nt_name *names = nt_tensor_names(c);
    if (nt_tensor_ndim(c) != 2 || nt_tensor_sizes(c)[0] != 2 || nt_tensor_sizes(c)[1] != 4 ||
        !names || names[0] != N || names[1] != D) {
        fprintf(stderr, "consumer: a @ b is not a [N=2, D=4] tensor\n");
        failures++;
        goto done;
    }
    const float *cv = nt_tensor_data(c), *ev = nt_tensor_data(e);
    for (int j = 0; j < 4; j++) {
        expect_close(cv[j], 3.0, "(a @ b)[0, j]");
        expect_close(cv[4 + j], 12.0, "(a @ b)[1, j]");
    }
    for (int i = 0; i < 6; i++)
        expect_close(ev[i], exp((double)i), "exp(a)");
    if (strcmp(nt_version(), NT_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: nt_version() %s, header %s\n", nt_version(), NT_VERSION_STRING);
        failures++;
    }
    if (!failures)
        printf("consumer: ntensor %s: (a @ b) names (%s, %s), values and exp ok\n", nt_version(),
               nt_name_str(names[0]), nt_name_str(names[1]));
done:
    nt_tensor_release(e);
    nt_tensor_release(c);
    nt_tensor_release(b);
    nt_tensor_release(a);
    nt_tensor_release(a2);
    nt_tensor_release(flat);
    return failures ? 1 : 0;
}
