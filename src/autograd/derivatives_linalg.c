/*
 * derivatives_linalg.c — backward formulas of the matrix products.
 *
 * For C = A B: dA = dC B^T, dB = A^T dC. matmul's vector cases treat a vector as a one-row
 * (left) or one-column (right) matrix; batch dims broadcast in the product and the engine sums
 * each gradient back to its input's shape. The products run on unnamed tensors.
 */
#include "derivatives.h"

#define G gout[0]

static nt_tensor *mT(vj *v, nt_tensor *t) {
    return vj_transpose(v, vj_unnamed(v, t), -1, -2);
}

/* The gradients of a @ b for tensors of any rank >= 1 (matmul's rules): each only where
 * its pointer is non-NULL (a product not wanted is not computed). */
static void product_grads(vj *v, nt_tensor *a, nt_tensor *b, nt_tensor *g, nt_tensor **ga,
                          nt_tensor **gb) {
    a = vj_unnamed(v, a), b = vj_unnamed(v, b), g = vj_unnamed(v, g);
    if (!vj_ok(v)) return;
    bool va = a->ndim == 1, vb = b->ndim == 1;
    if (va && vb) { /* dot: g is a scalar */
        if (ga) *ga = vj_mul(v, g, b);
        if (gb) *gb = vj_mul(v, g, a);
        return;
    }
    nt_tensor *A = va ? vj_unsqueeze(v, a, 0) : a, *B = vb ? vj_unsqueeze(v, b, 1) : b;
    nt_tensor *Gm = g;
    if (va) Gm = vj_unsqueeze(v, Gm, Gm ? Gm->ndim - 1 : 0); /* (..., 1, m) */
    if (vb) Gm = vj_unsqueeze(v, Gm, Gm ? Gm->ndim : 0);     /* (..., n, 1) */
    if (ga) *ga = vj_matmul(v, Gm, mT(v, B));
    if (!gb) return;
    if (A && Gm && A->ndim >= 3 && b->ndim == 2 && Gm->ndim == A->ndim) {
        /* (batch..., n, m) @ (m, p): the batch folds into the rows, so B's gradient is one
         * (m, rows) @ (rows, p) product rather than a batch of them summed afterwards */
        int64_t rows = A->numel / A->sizes[A->ndim - 1];
        int64_t as[2] = {rows, A->sizes[A->ndim - 1]}, gs[2] = {rows, Gm->sizes[Gm->ndim - 1]};
        *gb = vj_mm(v, mT(v, vj_reshape(v, A, 2, as)), vj_reshape(v, Gm, 2, gs));
        return;
    }
    *gb = vj_matmul(v, mT(v, A), Gm);
    if (vb && *gb) /* (..., m, 1): drop the column dim the vector was given */
        *gb = vj_reshape(v, *gb, (*gb)->ndim - 1, (*gb)->sizes);
}

static nt_status product(nt_node *n, nt_tensor *const *gout, nt_tensor **gin, int sa, int sb,
                         double alpha) {
    vj v = VJ_INIT;
    int a = nt_node_input(n, sa), b = nt_node_input(n, sb);
    nt_tensor *ga = NULL, *gb = NULL, *g = alpha == 1.0 ? G : vj_scale(&v, G, alpha);
    product_grads(&v, nt_node_saved(n, sa), nt_node_saved(n, sb), g,
                  nt_node_wants(n, a) ? &ga : NULL, nt_node_wants(n, b) ? &gb : NULL);
    if (nt_node_wants(n, a)) vj_give(&v, ga, &gin[a]);
    if (nt_node_wants(n, b)) vj_give(&v, gb, &gin[b]);
    return vj_end(&v);
}

/* mm, mv, dot, bmm, matmul(self, other) */
nt_status nt_vjp_matmul(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    return product(n, gout, gin, 0, 1, 1.0);
}

static double scalar_of(const nt_node *n, int slot) {
    const nt_arg *a = &n->call.args[slot];
    if (a->kind != NT_ARG_SCALAR) return 1.0;
    return a->v.s.kind == NT_SCALAR_FLOAT ? a->v.s.v.f : (double)a->v.s.v.i;
}

/* addmm/addmv(self, mat1, mat2, *, beta, alpha) = beta self + alpha mat1 @ mat2 */
nt_status nt_vjp_addmm(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    NT_TRY(product(n, gout, gin, 1, 2, scalar_of(n, 4)));
    int s = nt_node_input(n, 0);
    if (!nt_node_wants(n, s)) return NT_OK;
    vj v = VJ_INIT;
    double beta = scalar_of(n, 3);
    vj_give(&v, beta == 1.0 ? G : vj_scale(&v, G, beta), &gin[s]);
    return vj_end(&v);
}
