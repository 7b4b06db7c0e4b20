/*
 * vjp.c — the expression helpers of backward formulas (vjp.h).
 */
#include "vjp.h"

#include "core/status.h"

nt_tensor *vj_keep(vj *v, nt_status st, nt_tensor *t) {
    if (v->st != NT_OK) {
        nt_tensor_release(t);
        return NULL;
    }
    if (st != NT_OK) {
        v->st = st;
        return NULL;
    }
    if (v->n == VJ_MAX_TEMPS) {
        nt_tensor_release(t);
        v->st = nt_fail(NT_ERR_RUNTIME, "a backward formula with too many temporaries");
        return NULL;
    }
    v->temps[v->n++] = t;
    return t;
}

void vj_give(vj *v, nt_tensor *t, nt_tensor **slot) {
    if (v->st == NT_OK && t) *slot = nt_tensor_retain(t);
}

nt_status vj_end(vj *v) {
    for (int i = 0; i < v->n; i++)
        nt_tensor_release(v->temps[i]);
    v->n = 0;
    return v->st;
}

/* Each helper: skip when failed, run one public op, keep its result. */
#define VJ_STEP(call)                                                                              \
    nt_tensor *out = NULL;                                                                         \
    if (v->st != NT_OK) return NULL;                                                               \
    nt_status st = (call);                                                                         \
    return vj_keep(v, st, out)

nt_tensor *vj_bin(vj *v, nt_binary_op op, nt_tensor *a, nt_tensor *b) {
    VJ_STEP(nt_binary(op, a, b, &out));
}
nt_tensor *vj_bins(vj *v, nt_binary_op op, nt_tensor *a, double s) {
    VJ_STEP(nt_binary_scalar(op, a, nt_scalar_float(s), &out));
}
nt_tensor *vj_rbins(vj *v, nt_binary_op op, double s, nt_tensor *a) {
    VJ_STEP(nt_binary_rscalar(op, nt_scalar_float(s), a, &out));
}
nt_tensor *vj_mul(vj *v, nt_tensor *a, nt_tensor *b) {
    return vj_bin(v, NT_BINARY_MUL, a, b);
}
nt_tensor *vj_div(vj *v, nt_tensor *a, nt_tensor *b) {
    return vj_bin(v, NT_BINARY_DIV, a, b);
}
nt_tensor *vj_add(vj *v, nt_tensor *a, nt_tensor *b) {
    return vj_bin(v, NT_BINARY_ADD, a, b);
}
nt_tensor *vj_sub(vj *v, nt_tensor *a, nt_tensor *b) {
    return vj_bin(v, NT_BINARY_SUB, a, b);
}
nt_tensor *vj_scale(vj *v, nt_tensor *a, double s) {
    return vj_bins(v, NT_BINARY_MUL, a, s);
}
nt_tensor *vj_neg(vj *v, nt_tensor *a) {
    VJ_STEP(nt_neg(a, &out));
}
nt_tensor *vj_un(vj *v, nt_op op, nt_tensor *a) {
    VJ_STEP(nt_unary(op, a, &out));
}
nt_tensor *vj_where(vj *v, nt_tensor *cond, nt_tensor *a, nt_tensor *b) {
    VJ_STEP(nt_where(cond, nt_operand_tensor(a), nt_operand_tensor(b), NULL, &out));
}
nt_tensor *vj_where_s(vj *v, nt_tensor *cond, nt_tensor *a, double b) {
    VJ_STEP(
        nt_where(cond, nt_operand_tensor(a), nt_operand_scalar(nt_scalar_float(b)), NULL, &out));
}
nt_tensor *vj_to(vj *v, nt_tensor *a, nt_dtype dtype) {
    VJ_STEP(nt_to_dtype(a, dtype, &out));
}
nt_tensor *vj_sum(vj *v, nt_tensor *a, int count, const nt_dim *dims, bool keepdim) {
    VJ_STEP(nt_sum(a, count, dims, keepdim, -1, &out));
}
nt_tensor *vj_unnamed(vj *v, nt_tensor *a) {
    if (a && !a->names) return a;
    VJ_STEP(nt_rename(a, NULL, &out));
}
nt_tensor *vj_reshape(vj *v, nt_tensor *a, int ndim, const int64_t *sizes) {
    a = vj_unnamed(v, a);
    VJ_STEP(nt_reshape(a, ndim, sizes, &out));
}
nt_tensor *vj_expand(vj *v, nt_tensor *a, int ndim, const int64_t *sizes) {
    a = vj_unnamed(v, a);
    VJ_STEP(nt_expand(a, ndim, sizes, &out));
}
nt_tensor *vj_transpose(vj *v, nt_tensor *a, nt_dim d0, nt_dim d1) {
    VJ_STEP(nt_transpose(a, d0, d1, &out));
}
nt_tensor *vj_permute(vj *v, nt_tensor *a, int count, const nt_dim *dims) {
    VJ_STEP(nt_permute(a, count, dims, &out));
}
nt_tensor *vj_unsqueeze(vj *v, nt_tensor *a, int64_t dim) {
    VJ_STEP(nt_unsqueeze(a, dim, &out));
}
nt_tensor *vj_mm(vj *v, nt_tensor *a, nt_tensor *b) {
    VJ_STEP(nt_mm(a, b, &out));
}
nt_tensor *vj_matmul(vj *v, nt_tensor *a, nt_tensor *b) {
    VJ_STEP(nt_matmul(a, b, &out));
}
nt_tensor *vj_zeros(vj *v, const nt_tmeta *m) {
    VJ_STEP(nt_ag_zeros(m, &out));
}

nt_tensor *vj_positions(vj *v, const nt_tmeta *m) {
    int64_t numel = 1;
    for (int i = 0; i < m->ndim; i++)
        numel *= m->sizes[i];
    nt_tensor *flat = NULL;
    if (v->st != NT_OK) return NULL;
    nt_status st =
        nt_arange(nt_scalar_int(0), nt_scalar_int(numel), nt_scalar_int(1), NT_INT64, &flat);
    return vj_reshape(v, vj_keep(v, st, flat), m->ndim, m->sizes);
}

nt_tensor *vj_scatter_at(vj *v, const nt_tmeta *m, nt_tensor *g, nt_tensor *positions,
                         bool accumulate) {
    int64_t numel = 1;
    for (int i = 0; i < m->ndim; i++)
        numel *= m->sizes[i];
    nt_tmeta flat = {.dtype = m->dtype, .ndim = 1, .sizes = &numel, .names = NULL};
    nt_tensor *whole = vj_zeros(v, &flat), *src = vj_unnamed(v, g);
    if (!whole || !src || !positions) return NULL;
    nt_index at = {.kind = NT_INDEX_TENSOR, .tensor = positions};
    nt_status st = nt_index_put_(whole, 1, &at, src, accumulate);
    if (st != NT_OK) {
        v->st = st;
        return NULL;
    }
    return vj_reshape(v, whole, m->ndim, m->sizes);
}

nt_tensor *vj_scatter_part(vj *v, const nt_node *n, const nt_tmeta *m, nt_tensor *g,
                           vj_part_fn part) {
    if (g && nt_ag_requires(g) && nt_ag_grad_mode()) {
        /* with create_graph: a recorded scatter at the part's positions */
        nt_tensor *pos = vj_positions(v, m), *cut = NULL;
        if (!pos) return NULL;
        nt_status st = part(n, pos, &cut);
        nt_tensor *at = vj_keep(v, st, cut);
        return at ? vj_scatter_at(v, m, g, at, false) : NULL;
    }
    nt_tensor *whole = vj_zeros(v, m);
    nt_tensor *cut = NULL;
    if (!whole) return NULL;
    nt_status st = part(n, vj_unnamed(v, whole), &cut);
    if (st == NT_OK && v->st == NT_OK) {
        nt_tensor *src = vj_unnamed(v, g);
        st = src ? nt_copy_(cut, src) : v->st;
    }
    nt_tensor_release(cut);
    if (st != NT_OK && v->st == NT_OK) v->st = st;
    return v->st == NT_OK ? whole : NULL;
}
