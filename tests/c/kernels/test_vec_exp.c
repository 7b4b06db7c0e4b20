/*
 * test_vec_exp.c — the inlined float32 exp of kernels/vec_exp.h against double exp: its
 * worst error over a sweep of the float range, and its special values.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/vec_exp.h"
#include "nt_test.h"

/* |got - exact| in units of the float ulp at `exact` (subnormal ulps below FLT_MIN). */
static double ulps(float got, double exact) {
    if (exact > 3.4028235677973366e38) return got == INFINITY ? 0 : INFINITY; /* rounds up */
    int e;
    frexp(exact, &e);
    double ulp = ldexp(1.0, e - 24);
    if (ulp < ldexp(1.0, -149)) ulp = ldexp(1.0, -149);
    return fabs((double)got - exact) / ulp;
}

__attribute__((target("avx2,fma"))) static float exp1(float x) {
    float out[8];
    _mm256_storeu_ps(out, nt_expf8(_mm256_set1_ps(x)));
    return out[0];
}

__attribute__((target("avx2,fma"))) static void test_within_one_ulp_over_the_range(void) {
    /* every 1009th float in [-110, 90] and the 7 after it: 17.8 million points, every
     * exponent */
    double worst = 0;
    float worst_x = 0;
    for (uint64_t b = 0; b <= UINT32_MAX; b += 1009) {
        uint32_t bits = (uint32_t)b;
        float x;
        memcpy(&x, &bits, sizeof x);
        if (!(x > -110.0f && x < 90.0f)) continue;
        float in[8], out[8];
        for (int l = 0; l < 8; l++) { /* the lanes are independent: x and its 7 successors */
            uint32_t lane_bits = bits + (uint32_t)l;
            memcpy(&in[l], &lane_bits, sizeof in[l]);
        }
        _mm256_storeu_ps(out, nt_expf8(_mm256_loadu_ps(in)));
        for (int l = 0; l < 8; l++) {
            double err = ulps(out[l], exp((double)in[l]));
            if (err > worst) worst = err, worst_x = in[l];
        }
    }
    if (worst > 1.05) fprintf(stderr, "  worst error %.3f ulp at %.9g\n", worst, worst_x);
    EXPECT(worst <= 1.05);
}

__attribute__((target("avx2,fma"))) static void test_special_values(void) {
    EXPECT(exp1(0.0f) == 1.0f);
    EXPECT(exp1(-0.0f) == 1.0f);
    EXPECT(exp1(-INFINITY) == 0.0f);
    EXPECT(exp1(INFINITY) == INFINITY);
    EXPECT(isnan(exp1(NAN)));
    EXPECT(exp1(88.72284f) == INFINITY);                        /* just past FLT_MAX */
    EXPECT(ulps(exp1(88.72283f), exp((double)88.72283f)) <= 1); /* just below it */
    EXPECT(exp1(-103.972f) == 1.4013e-45f);                     /* the smallest subnormal */
    EXPECT(exp1(-104.0f) == 0.0f);
    EXPECT(ulps(exp1(-100.0f), exp(-100.0)) <= 1); /* a subnormal result, rounded once */
    EXPECT(ulps(exp1(1.0f), exp(1.0)) <= 1);
}

int main(void) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("no AVX2/FMA here: nothing to test\n");
        return 0;
    }
    NT_RUN(test_within_one_ulp_over_the_range);
    NT_RUN(test_special_values);
    return nt_test_summary();
}
