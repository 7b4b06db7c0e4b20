/*
 * derivatives_pointwise.c — backward formulas of the pointwise ops (unary, binary, ternary).
 *
 * Gradients come out in the shape of the broadcast result; the engine sums each back to its
 * input's shape and casts it to the input's dtype. x is the saved input (slot 0), y the saved
 * result, g the result's gradient.
 */
#include <math.h>

#include "core/status.h"
#include "derivatives.h"

#define X nt_node_saved(n, 0)
#define Y nt_node_result(n, 0)
#define G gout[0]

/* gin[0] = g * f, the common shape of a unary formula */
#define UNARY_VJP(NAME, EXPR)                                                                      \
    nt_status NAME(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {                          \
        vj v = VJ_INIT;                                                                            \
        vj *const V = &v;                                                                          \
        (void)V;                                                                                   \
        vj_give(&v, (EXPR), &gin[0]);                                                              \
        return vj_end(&v);                                                                         \
    }

UNARY_VJP(nt_vjp_identity, G)
UNARY_VJP(nt_vjp_zero, vj_scale(V, G, 0.0))
UNARY_VJP(nt_vjp_neg, vj_neg(V, G))
UNARY_VJP(nt_vjp_abs, vj_mul(V, G, vj_un(V, NT_OP_SIGN, X)))
UNARY_VJP(nt_vjp_exp, vj_mul(V, G, Y))
UNARY_VJP(nt_vjp_expm1, vj_mul(V, G, vj_bins(V, NT_BINARY_ADD, Y, 1.0)))
UNARY_VJP(nt_vjp_log, vj_div(V, G, X))
UNARY_VJP(nt_vjp_log2, vj_div(V, G, vj_scale(V, X, M_LN2)))
UNARY_VJP(nt_vjp_log10, vj_div(V, G, vj_scale(V, X, M_LN10)))
UNARY_VJP(nt_vjp_log1p, vj_div(V, G, vj_bins(V, NT_BINARY_ADD, X, 1.0)))
UNARY_VJP(nt_vjp_sqrt, vj_div(V, G, vj_scale(V, Y, 2.0)))
UNARY_VJP(nt_vjp_rsqrt, vj_mul(V, G, vj_scale(V, vj_mul(V, Y, vj_mul(V, Y, Y)), -0.5)))
UNARY_VJP(nt_vjp_reciprocal, vj_mul(V, G, vj_neg(V, vj_mul(V, Y, Y))))
UNARY_VJP(nt_vjp_sin, vj_mul(V, G, vj_un(V, NT_OP_COS, X)))
UNARY_VJP(nt_vjp_cos, vj_mul(V, G, vj_neg(V, vj_un(V, NT_OP_SIN, X))))
UNARY_VJP(nt_vjp_tan, vj_mul(V, G, vj_bins(V, NT_BINARY_ADD, vj_mul(V, Y, Y), 1.0)))
UNARY_VJP(nt_vjp_sinh, vj_mul(V, G, vj_un(V, NT_OP_COSH, X)))
UNARY_VJP(nt_vjp_cosh, vj_mul(V, G, vj_un(V, NT_OP_SINH, X)))
UNARY_VJP(nt_vjp_tanh, vj_mul(V, G, vj_rbins(V, NT_BINARY_SUB, 1.0, vj_mul(V, Y, Y))))
UNARY_VJP(nt_vjp_sigmoid, vj_mul(V, G, vj_mul(V, Y, vj_rbins(V, NT_BINARY_SUB, 1.0, Y))))
UNARY_VJP(nt_vjp_asin,
          vj_div(V, G, vj_un(V, NT_OP_SQRT, vj_rbins(V, NT_BINARY_SUB, 1.0, vj_mul(V, X, X)))))
UNARY_VJP(nt_vjp_acos,
          vj_neg(V, vj_div(V, G,
                           vj_un(V, NT_OP_SQRT, vj_rbins(V, NT_BINARY_SUB, 1.0, vj_mul(V, X, X))))))
UNARY_VJP(nt_vjp_atan, vj_div(V, G, vj_bins(V, NT_BINARY_ADD, vj_mul(V, X, X), 1.0)))
UNARY_VJP(nt_vjp_erf,
          vj_mul(V, G, vj_scale(V, vj_un(V, NT_OP_EXP, vj_neg(V, vj_mul(V, X, X))), M_2_SQRTPI)))
UNARY_VJP(nt_vjp_erfc,
          vj_mul(V, G, vj_scale(V, vj_un(V, NT_OP_EXP, vj_neg(V, vj_mul(V, X, X))), -M_2_SQRTPI)))
UNARY_VJP(nt_vjp_erfinv,
          vj_mul(V, G, vj_scale(V, vj_un(V, NT_OP_EXP, vj_mul(V, Y, Y)), 0.5 / M_2_SQRTPI)))
UNARY_VJP(nt_vjp_relu, vj_where_s(V, vj_bins(V, NT_BINARY_GT, Y, 0.0), G, 0.0))
UNARY_VJP(nt_vjp_lgamma, vj_mul(V, G, vj_un(V, NT_OP_DIGAMMA, X)))

/* d/dx polygamma(k, x) = polygamma(k + 1, x) */
static nt_tensor *polygamma(vj *v, int64_t k, nt_tensor *x) {
    nt_tensor *out = NULL;
    if (!vj_ok(v)) return NULL;
    nt_status st = nt_polygamma(k, x, NULL, false, &out);
    return vj_keep(v, st, out);
}
UNARY_VJP(nt_vjp_digamma, vj_mul(V, G, polygamma(V, 1, X)))
UNARY_VJP(nt_vjp_polygamma, vj_mul(V, G, polygamma(V, n->call.args[1].v.i + 1, X)))

/* ------------------------------------------------------------------ binary */

/* The scalar `alpha` of add/sub (1 when not given). */
static double alpha_of(const nt_node *n, int slot) {
    const nt_arg *a = &n->call.args[slot];
    if (a->kind != NT_ARG_SCALAR) return 1.0;
    return a->v.s.kind == NT_SCALAR_FLOAT ? a->v.s.v.f : (double)a->v.s.v.i;
}

static nt_status add_sub(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, double sign) {
    vj v = VJ_INIT;
    int a = nt_node_input(n, 0), b = nt_node_input(n, 1);
    double alpha = alpha_of(n, 2) * sign;
    if (a >= 0 && nt_node_wants(n, a)) vj_give(&v, G, &gin[a]);
    if (b >= 0 && nt_node_wants(n, b))
        vj_give(&v, alpha == 1.0 ? G : vj_scale(&v, G, alpha), &gin[b]);
    return vj_end(&v);
}
nt_status nt_vjp_add(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return add_sub(n, gout, gin, 1.0);
}
nt_status nt_vjp_sub(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return add_sub(n, gout, gin, -1.0);
}

/* An operand of a binary op: the saved tensor, or its scalar as a double. */
static nt_tensor *operand(const nt_node *n, int slot, double *scalar) {
    const nt_arg *a = &n->call.args[slot];
    if (a->kind == NT_ARG_SCALAR)
        *scalar = a->v.s.kind == NT_SCALAR_FLOAT ? a->v.s.v.f : (double)a->v.s.v.i;
    return nt_node_saved(n, slot);
}

/* g times operand `slot` (a tensor or a scalar) */
static nt_tensor *times(vj *v, const nt_node *n, nt_tensor *g, int slot) {
    double s = 0;
    nt_tensor *t = operand(n, slot, &s);
    return t ? vj_mul(v, g, t) : vj_scale(v, g, s);
}

nt_status nt_vjp_mul(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int a = nt_node_input(n, 0), b = nt_node_input(n, 1);
    if (a >= 0 && nt_node_wants(n, a)) vj_give(&v, times(&v, n, G, 1), &gin[a]);
    if (b >= 0 && nt_node_wants(n, b)) vj_give(&v, times(&v, n, G, 0), &gin[b]);
    return vj_end(&v);
}

nt_status nt_vjp_div(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    if (n->call.args[2].kind == NT_ARG_STR) return nt_vjp_div_rounding(n, gout, gin);
    vj v = VJ_INIT;
    int a = nt_node_input(n, 0), b = nt_node_input(n, 1);
    double sb = 1.0, sa = 1.0;
    nt_tensor *tb = operand(n, 1, &sb), *ta = operand(n, 0, &sa);
    nt_tensor *ga = tb ? vj_div(&v, G, tb) : vj_scale(&v, G, 1.0 / sb);
    if (a >= 0 && nt_node_wants(n, a)) vj_give(&v, ga, &gin[a]);
    if (b >= 0 && nt_node_wants(n, b)) { /* -g a / b^2 = -(g / b) * (a / b) */
        nt_tensor *q = ta ? vj_div(&v, ta, tb) : vj_rbins(&v, NT_BINARY_DIV, sa, tb);
        vj_give(&v, vj_neg(&v, vj_mul(&v, ga, q)), &gin[b]);
    }
    return vj_end(&v);
}

/* div with a rounding mode: a step function, zero gradients */
nt_status nt_vjp_div_rounding(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    for (int slot = 0; slot < 2; slot++) {
        int k = nt_node_input(n, slot);
        if (k >= 0 && nt_node_wants(n, k)) vj_give(&v, vj_scale(&v, G, 0.0), &gin[k]);
    }
    return vj_end(&v);
}

/* floor_divide: PyTorch 1.13 records it and fails in backward; so do we */
nt_status nt_vjp_not_implemented(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return nt_fail(NT_ERR_RUNTIME, "derivative for aten::%s is not implemented",
                   nt_op_name(n->call.op));
}

/* pow(a, b): d/da = b a^(b-1) (0 where b == 0), d/db = a^b log(a) (0 where a == 0, b >= 0) */
nt_status nt_vjp_pow(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int a = nt_node_input(n, 0), b = nt_node_input(n, 1);
    double sa = 0, sb = 0;
    nt_tensor *ta = operand(n, 0, &sa), *tb = operand(n, 1, &sb), *y = Y;
    if (a >= 0 && nt_node_wants(n, a)) {
        nt_tensor *d;
        if (tb) {
            nt_tensor *p = vj_bin(&v, NT_BINARY_POW, ta, vj_bins(&v, NT_BINARY_SUB, tb, 1.0));
            d = vj_where_s(&v, vj_bins(&v, NT_BINARY_EQ, tb, 0.0), vj_mul(&v, tb, p), 0.0);
        } else {
            d = sb == 0.0 ? vj_scale(&v, ta, 0.0)
                          : vj_scale(&v, vj_bins(&v, NT_BINARY_POW, ta, sb - 1.0), sb);
        }
        vj_give(&v, vj_mul(&v, G, d), &gin[a]);
    }
    if (b >= 0 && nt_node_wants(n, b)) {
        nt_tensor *d;
        if (ta) {
            nt_tensor *l = vj_mul(&v, y, vj_un(&v, NT_OP_LOG, ta));
            nt_tensor *zero = vj_bin(&v, NT_BINARY_LOGICAL_AND, vj_bins(&v, NT_BINARY_EQ, ta, 0.0),
                                     vj_bins(&v, NT_BINARY_GE, tb, 0.0));
            d = vj_where_s(&v, zero, l, 0.0);
        } else {
            d = sa == 0.0 ? vj_scale(&v, y, 0.0) : vj_scale(&v, y, log(sa));
        }
        vj_give(&v, vj_mul(&v, G, d), &gin[b]);
    }
    return vj_end(&v);
}

/* atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2) */
nt_status nt_vjp_atan2(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    int a = nt_node_input(n, 0), b = nt_node_input(n, 1);
    double sa = 0, sb = 0;
    nt_tensor *ta = operand(n, 0, &sa), *tb = operand(n, 1, &sb);
    nt_tensor *r2 = vj_add(&v, vj_mul(&v, ta, ta), vj_mul(&v, tb, tb));
    nt_tensor *gr = vj_div(&v, G, r2);
    if (a >= 0 && nt_node_wants(n, a)) vj_give(&v, vj_mul(&v, gr, tb), &gin[a]);
    if (b >= 0 && nt_node_wants(n, b)) vj_give(&v, vj_neg(&v, vj_mul(&v, gr, ta)), &gin[b]);
    return vj_end(&v);
}

/* maximum/minimum: the gradient goes to the chosen operand, split evenly on ties */
static nt_status extremum(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, nt_binary_op wins) {
    vj v = VJ_INIT;
    int a = nt_node_input(n, 0), b = nt_node_input(n, 1);
    nt_tensor *ta = nt_node_saved(n, 0), *tb = nt_node_saved(n, 1);
    nt_tensor *half = vj_scale(&v, G, 0.5);
    nt_tensor *tie = vj_bin(&v, NT_BINARY_EQ, ta, tb);
    nt_tensor *ga = vj_where(&v, tie, half, vj_where_s(&v, vj_bin(&v, wins, ta, tb), G, 0.0));
    if (a >= 0 && nt_node_wants(n, a)) vj_give(&v, ga, &gin[a]);
    if (b >= 0 && nt_node_wants(n, b))
        vj_give(&v, vj_where(&v, tie, half, vj_where_s(&v, vj_bin(&v, wins, tb, ta), G, 0.0)),
                &gin[b]);
    return vj_end(&v);
}
nt_status nt_vjp_maximum(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return extremum(n, gout, gin, NT_BINARY_GT);
}
nt_status nt_vjp_minimum(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return extremum(n, gout, gin, NT_BINARY_LT);
}

/* remainder(a, b) = a - floor(a / b) b; fmod(a, b) = a - trunc(a / b) b */
static nt_status modulo(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, nt_op rounding) {
    vj v = VJ_INIT;
    int a = nt_node_input(n, 0), b = nt_node_input(n, 1);
    double sa = 0, sb = 0;
    nt_tensor *ta = operand(n, 0, &sa), *tb = operand(n, 1, &sb);
    if (a >= 0 && nt_node_wants(n, a)) vj_give(&v, G, &gin[a]);
    if (b >= 0 && nt_node_wants(n, b)) {
        nt_tensor *q = ta ? vj_div(&v, ta, tb) : vj_rbins(&v, NT_BINARY_DIV, sa, tb);
        vj_give(&v, vj_neg(&v, vj_mul(&v, G, vj_un(&v, rounding, q))), &gin[b]);
    }
    return vj_end(&v);
}
nt_status nt_vjp_remainder(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return modulo(n, gout, gin, NT_OP_FLOOR);
}
nt_status nt_vjp_fmod(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return modulo(n, gout, gin, NT_OP_TRUNC);
}

/* ------------------------------------------------------------------ selections */

/* where(cond, a, b) (slots 0, 1, 2) and where_method (self, condition, other: 0, 1, 2) */
static nt_status where_vjp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, int cond_slot,
                           int a_slot, int b_slot) {
    vj v = VJ_INIT;
    nt_tensor *cond = nt_node_saved(n, cond_slot);
    int a = nt_node_input(n, a_slot), b = nt_node_input(n, b_slot);
    if (a >= 0 && nt_node_wants(n, a)) vj_give(&v, vj_where_s(&v, cond, G, 0.0), &gin[a]);
    if (b >= 0 && nt_node_wants(n, b))
        vj_give(&v, vj_where(&v, cond, vj_scale(&v, G, 0.0), G), &gin[b]);
    return vj_end(&v);
}
nt_status nt_vjp_where(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return where_vjp(n, gout, gin, 0, 1, 2);
}
nt_status nt_vjp_where_method(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return where_vjp(n, gout, gin, 1, 0, 2);
}

/* clamp(x, min, max): g where min <= x <= max; a tensor bound gets g where it won */
static nt_tensor *bound_mask(vj *v, nt_tensor *x, const nt_arg *a, nt_binary_op ok) {
    if (a->kind == NT_ARG_NONE) return NULL;
    if (a->kind == NT_ARG_TENSOR) return vj_bin(v, ok, x, a->v.t); /* the saved bound */
    double s = a->v.s.kind == NT_SCALAR_FLOAT ? a->v.s.v.f : (double)a->v.s.v.i;
    return vj_bins(v, ok, x, s);
}
static nt_status clamp_vjp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, int min_slot,
                           int max_slot) {
    vj v = VJ_INIT;
    nt_tensor *x = X;
    const nt_arg none = {.kind = NT_ARG_NONE};
    const nt_arg *lo = min_slot >= 0 ? &n->call.args[min_slot] : &none;
    const nt_arg *hi = max_slot >= 0 ? &n->call.args[max_slot] : &none;
    nt_tensor *above = bound_mask(&v, x, lo, NT_BINARY_GE),
              *below = bound_mask(&v, x, hi, NT_BINARY_LE);
    nt_tensor *inside = above && below ? vj_bin(&v, NT_BINARY_LOGICAL_AND, above, below)
                        : above        ? above
                                       : below;
    int k = nt_node_input(n, 0);
    if (k >= 0 && nt_node_wants(n, k)) vj_give(&v, vj_where_s(&v, inside, G, 0.0), &gin[k]);
    int klo = min_slot >= 0 ? nt_node_input(n, min_slot) : -1;
    int khi = max_slot >= 0 ? nt_node_input(n, max_slot) : -1;
    if (klo >= 0 && nt_node_wants(n, klo)) /* the min bound wins where x < min */
        vj_give(&v, vj_where(&v, above, vj_scale(&v, G, 0.0), G), &gin[klo]);
    if (khi >= 0 && nt_node_wants(n, khi)) { /* the max bound wins where x > max */
        nt_tensor *cut = vj_bin(&v, NT_BINARY_GT, x, nt_node_saved(n, max_slot));
        if (above) cut = vj_bin(&v, NT_BINARY_LOGICAL_AND, cut, above);
        vj_give(&v, vj_where_s(&v, cut, G, 0.0), &gin[khi]);
    }
    return vj_end(&v);
}
nt_status nt_vjp_clamp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return clamp_vjp(n, gout, gin, 1, 2);
}
nt_status nt_vjp_clamp_min(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return clamp_vjp(n, gout, gin, 1, -1);
}
nt_status nt_vjp_clamp_max(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return clamp_vjp(n, gout, gin, -1, 1);
}

/* threshold(x, t, value): g where x > t */
UNARY_VJP(nt_vjp_threshold, vj_where_s(V,
                                       vj_bins(V, NT_BINARY_GT, X,
                                               n->call.args[1].v.s.kind == NT_SCALAR_FLOAT
                                                   ? n->call.args[1].v.s.v.f
                                                   : (double)n->call.args[1].v.s.v.i),
                                       G, 0.0))

/* addcmul(self, t1, t2, value) = self + value t1 t2; addcdiv = self + value t1 / t2 */
static nt_status addc(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, bool divide) {
    vj v = VJ_INIT;
    double value = alpha_of(n, 3);
    nt_tensor *t1 = nt_node_saved(n, 1), *t2 = nt_node_saved(n, 2);
    int s = nt_node_input(n, 0), a = nt_node_input(n, 1), b = nt_node_input(n, 2);
    nt_tensor *gv = vj_scale(&v, G, value);
    if (nt_node_wants(n, s)) vj_give(&v, G, &gin[s]);
    if (nt_node_wants(n, a)) vj_give(&v, divide ? vj_div(&v, gv, t2) : vj_mul(&v, gv, t2), &gin[a]);
    if (nt_node_wants(n, b))
        vj_give(&v,
                divide ? vj_neg(&v, vj_div(&v, vj_mul(&v, gv, t1), vj_mul(&v, t2, t2)))
                       : vj_mul(&v, gv, t1),
                &gin[b]);
    return vj_end(&v);
}
nt_status nt_vjp_addcmul(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return addc(n, gout, gin, false);
}
nt_status nt_vjp_addcdiv(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return addc(n, gout, gin, true);
}

/* lerp(self, end, w) = self + w (end - self) */
nt_status nt_vjp_lerp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    vj v = VJ_INIT;
    double sw = 0;
    nt_tensor *w = operand(n, 2, &sw);
    int s = nt_node_input(n, 0), e = nt_node_input(n, 1), kw = nt_node_input(n, 2);
    nt_tensor *gw = w ? vj_mul(&v, G, w) : vj_scale(&v, G, sw);
    if (nt_node_wants(n, s)) vj_give(&v, vj_sub(&v, G, gw), &gin[s]);
    if (nt_node_wants(n, e)) vj_give(&v, gw, &gin[e]);
    if (kw >= 0 && nt_node_wants(n, kw))
        vj_give(&v, vj_mul(&v, G, vj_sub(&v, nt_node_saved(n, 1), X)), &gin[kw]);
    return vj_end(&v);
}
