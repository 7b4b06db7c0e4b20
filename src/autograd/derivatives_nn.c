/*
 * derivatives_nn.c — backward formulas of the neural-network ops (gelu, silu, layer_norm,
 * embedding, nll_loss, linear): each calls the op's backward op (ntensor/nn.h), or, for
 * linear, the products of its GEMM. Gradients are given unnamed where the engine names them
 * (the input's names), in the result's shape where the engine sums them back (linear's bias).
 */
#include "derivatives.h"

#define G gout[0]

static const char *str_of(const nt_node *n, int slot) {
    const nt_arg *a = &n->call.args[slot];
    return a->kind == NT_ARG_STR ? a->v.str : NULL;
}

static int64_t int_of(const nt_node *n, int slot, int64_t def) {
    const nt_arg *a = &n->call.args[slot];
    return a->kind == NT_ARG_INT ? a->v.i : def;
}

/* gin[input of slot] = the result of a backward op (a new reference, or its failure) */
static void give_step(vj *v, nt_node *n, int slot, nt_status st, nt_tensor *r, nt_tensor **gin) {
    nt_tensor *t = vj_keep(v, st, r);
    int k = nt_node_input(n, slot);
    if (nt_node_wants(n, k)) vj_give(v, t, &gin[k]);
}

/* gelu(self, approximate) */
NT_VJP(nt_vjp_gelu) {
    vj v = VJ_INIT;
    nt_tensor *r = NULL;
    nt_status st = nt_gelu_backward(G, nt_node_saved(n, 0), str_of(n, 1), &r);
    give_step(&v, n, 0, st, r, gin);
    return vj_end(&v);
}

/* silu(self) */
NT_VJP(nt_vjp_silu) {
    vj v = VJ_INIT;
    nt_tensor *r = NULL;
    nt_status st = nt_silu_backward(G, nt_node_saved(n, 0), &r);
    give_step(&v, n, 0, st, r, gin);
    return vj_end(&v);
}

/* layer_norm(input, normalized_shape, weight, bias, eps): layer_norm_backward's three */
NT_VJP(nt_vjp_layer_norm) {
    const nt_arg *shape = &n->call.args[1], *eps = &n->call.args[4];
    nt_tensor *grads[3] = {NULL, NULL, NULL};
    NT_TRY(nt_layer_norm_backward(G, nt_node_saved(n, 0), shape->n, shape->v.ints,
                                  nt_node_saved(n, 2), eps->kind == NT_ARG_FLOAT ? eps->v.f : 1e-5,
                                  grads));
    vj v = VJ_INIT;
    for (int i = 0; i < 3; i++) {
        int slot = i == 0 ? 0 : i + 1; /* input, weight, bias */
        nt_tensor *t = vj_keep(&v, NT_OK, grads[i]);
        int k = nt_node_input(n, slot);
        if (k >= 0 && nt_node_wants(n, k)) vj_give(&v, vj_unnamed(&v, t), &gin[k]);
    }
    return vj_end(&v);
}

/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): the weight's */
NT_VJP(nt_vjp_embedding) {
    vj v = VJ_INIT;
    int k = nt_node_input(n, 0);
    bool scale = n->call.args[3].kind == NT_ARG_BOOL && n->call.args[3].v.b;
    nt_tensor *r = NULL;
    nt_status st = nt_embedding_dense_backward(G, nt_node_saved(n, 1), n->in[k].sizes[0],
                                               int_of(n, 2, -1), scale, &r);
    give_step(&v, n, 0, st, r, gin);
    return vj_end(&v);
}

/* nll_loss / nll_loss_nd(self, target, weight, reduction, ignore_index): the input's (the
 * class weights are not differentiable, as in PyTorch) */
NT_VJP(nt_vjp_nll_loss) {
    int w = nt_node_input(n, 2);
    if (w >= 0 && nt_node_wants(n, w))
        return nt_fail(NT_ERR_NOT_IMPLEMENTED, "the derivative for 'weight' is not implemented.");
    vj v = VJ_INIT;
    nt_tensor *r = NULL;
    nt_status st =
        nt_nll_loss_backward(G, nt_node_saved(n, 0), nt_node_saved(n, 1), nt_node_saved(n, 2),
                             int_of(n, 3, 1), int_of(n, 4, -100), NULL, &r);
    give_step(&v, n, 0, st, r, gin);
    return vj_end(&v);
}

/* linear(input, weight, bias) = input @ weight.T + bias */
NT_VJP(nt_vjp_linear) {
    vj v = VJ_INIT;
    nt_tensor *x = vj_unnamed(&v, nt_node_saved(n, 0)), *w = vj_unnamed(&v, nt_node_saved(n, 1));
    nt_tensor *g = vj_unnamed(&v, G);
    int kx = nt_node_input(n, 0), kw = nt_node_input(n, 1), kb = nt_node_input(n, 2);
    if (!vj_ok(&v)) return vj_end(&v);
    if (w->ndim == 2) {
        /* g (..., O): dx = g @ w; dw = g^T @ x over the flattened leading dims */
        if (nt_node_wants(n, kx)) vj_give(&v, vj_matmul(&v, g, w), &gin[kx]);
        if (nt_node_wants(n, kw)) {
            if (x->ndim == 1) {
                vj_give(&v, vj_mul(&v, vj_unsqueeze(&v, g, 1), vj_unsqueeze(&v, x, 0)), &gin[kw]);
            } else {
                int64_t gs[2] = {w->sizes[0] ? g->numel / w->sizes[0] : 0, w->sizes[0]};
                int64_t xs[2] = {gs[0], w->sizes[1]};
                nt_tensor *g2 = vj_reshape(&v, g, 2, gs), *x2 = vj_reshape(&v, x, 2, xs);
                vj_give(&v, vj_mm(&v, vj_transpose(&v, g2, 0, 1), x2), &gin[kw]);
            }
        }
    } else {
        /* a 1-d weight: out = x @ w, g of x's leading shape; the engine sums dw back */
        nt_tensor *gu = vj_unsqueeze(&v, g, g ? g->ndim : 0);
        if (nt_node_wants(n, kx)) vj_give(&v, vj_mul(&v, gu, w), &gin[kx]);
        if (nt_node_wants(n, kw)) vj_give(&v, vj_mul(&v, gu, x), &gin[kw]);
    }
    if (kb >= 0 && nt_node_wants(n, kb)) vj_give(&v, g, &gin[kb]);
    return vj_end(&v);
}
