/*
 * loss_kernels.c — nll_loss's loops (loss_kernels.h), by element type through loads and
 * stores of doubles (a loss reads one element per target, so the type test costs little).
 */
#include "loss_kernels.h"

#include "core/half.h"

static inline double load(nt_dtype dt, const void *p, int64_t i) {
    switch (dt) {
    case NT_FLOAT32:
        return ((const float *)p)[i];
    case NT_BFLOAT16:
        return nt_bf16_to_f32(((const nt_bfloat16 *)p)[i]);
    default:
        return ((const double *)p)[i];
    }
}

/* stores v rounded once to the element type (float32 first for bfloat16, as its float
 * arithmetic does) */
static inline void store(nt_dtype dt, void *p, int64_t i, double v) {
    switch (dt) {
    case NT_FLOAT32:
        ((float *)p)[i] = (float)v;
        break;
    case NT_BFLOAT16:
        ((nt_bfloat16 *)p)[i] = nt_f32_to_bf16((float)v);
        break;
    default:
        ((double *)p)[i] = v;
        break;
    }
}

/* w[t] as the element type computes it */
static inline double weight_of(const nt_nll_args *a, int64_t t) {
    return a->weight ? load(a->dtype, a->weight, t) : 1.0;
}

void nt_nll_none_kernel(const nt_nll_args *a, void *out) {
    for (int64_t n = 0; n < a->n; n++)
        for (int64_t s = 0; s < a->s; s++) {
            const int64_t i = n * a->s + s, t = nt_nll_target(a, i);
            double v = 0;
            if (t != a->ignore_index) {
                /* one rounding of the product in the element type, as PyTorch's */
                double x = load(a->dtype, a->input, (n * a->c + t) * a->s + s);
                v = a->dtype == NT_FLOAT64 ? -x * weight_of(a, t)
                                           : (double)(float)(-x * weight_of(a, t));
            }
            store(a->dtype, out, i, v);
        }
}

void nt_nll_sums_kernel(const nt_nll_args *a, double *loss, double *total_weight) {
    double l = 0, tw = 0;
    for (int64_t n = 0; n < a->n; n++)
        for (int64_t s = 0; s < a->s; s++) {
            const int64_t i = n * a->s + s, t = nt_nll_target(a, i);
            if (t == a->ignore_index) continue;
            const double w = weight_of(a, t);
            l -= load(a->dtype, a->input, (n * a->c + t) * a->s + s) * w;
            tw += w;
        }
    *loss = l;
    *total_weight = tw;
}

void nt_nll_backward_kernel(const nt_nll_args *a, void *grad_input, const void *grad,
                            bool per_element, double scale) {
    for (int64_t n = 0; n < a->n; n++)
        for (int64_t s = 0; s < a->s; s++) {
            const int64_t i = n * a->s + s, t = nt_nll_target(a, i);
            if (t == a->ignore_index) continue;
            const double g = per_element ? load(a->dtype, grad, i) : scale;
            store(a->dtype, grad_input, (n * a->c + t) * a->s + s, -weight_of(a, t) * g);
        }
}
