/*
 * dot.c — a product of tensors with first-class dims summed over shared dims, as one
 * batched matrix product (functorch.dim's dot): the dims are grouped into batch (both, kept),
 * rows (a only), columns (b only) and contracted (both, summed); each operand is viewed as
 * [batch, rows, contracted] / [batch, contracted, columns] (reshaped: a view when its strides
 * allow), one bmm runs, and its result is viewed as [batch..., rows..., columns...] with those
 * dims as its levels. Each group keeps the order the dims print in (a's, then b's), as
 * functorch's result does.
 */
#include <string.h>

#include "core/status.h"
#include "dims/dims.h"
#include "ntensor/linalg.h"
#include "ntensor/pointwise.h"
#include "ntensor/reduce.h"
#include "ntensor/views.h"

static bool in_list(nt_fcdim *const *list, int n, const nt_fcdim *d) {
    for (int i = 0; i < n; i++)
        if (list[i] == d) return true;
    return false;
}

/* t's levels `dims` (in that order) as one [prod(g0), prod(g1), prod(g2)] tensor, the groups
 * being the counts of dims in order; without batch dims (g0 empty) [prod(g1), prod(g2)], for
 * mm, which runs a single product faster than bmm. A view when each group's strides merge
 * (always for groups of one dim), else a reshape. */
static nt_status grouped(nt_tensor *t, nt_fcdim *const *dims, const int *counts, nt_tensor **out) {
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS], shape[3], merged[3];
    bool mergeable = true;
    int n = 0;
    for (int g = 0; g < 3; g++) {
        shape[g] = 1;
        merged[g] = 0;
        for (int k = 0; k < counts[g]; k++, n++) {
            int at = nt_levels_find(t, dims[n]);
            sizes[n] = t->sizes[at];
            strides[n] = t->strides[at];
            if (shape[g] > 1 && sizes[n] > 1 && merged[g] != strides[n] * sizes[n])
                mergeable = false;
            if (sizes[n] > 1 || shape[g] == 1) merged[g] = strides[n];
            shape[g] *= sizes[n];
        }
    }
    bool batched = counts[0] > 0;
    if (mergeable)
        return nt_dims_view(t, batched ? 3 : 2, batched ? shape : shape + 1,
                            batched ? merged : merged + 1, t->offset, NULL, out);
    nt_tensor *v = NULL;
    NT_TRY(nt_dims_view(t, n, sizes, strides, t->offset, NULL, &v));
    nt_status st = nt_reshape(v, batched ? 3 : 2, batched ? shape : shape + 1, out);
    nt_tensor_release(v);
    return st;
}

static nt_status fallback(nt_tensor *a, nt_tensor *b, int nsum, nt_fcdim *const *sum_dims,
                          nt_tensor **out) {
    nt_dim d[NT_MAX_DIMS];
    for (int i = 0; i < nsum; i++)
        d[i] = nt_dim_fc(sum_dims[i]);
    nt_tensor *p = NULL;
    NT_TRY(nt_mul(a, b, &p));
    nt_status st = nt_sum(p, nsum, d, false, -1, out);
    nt_tensor_release(p);
    return st;
}

nt_status nt_dims_dot(nt_tensor *a, nt_tensor *b, int nsum, nt_fcdim *const *sum_dims,
                      nt_tensor **out) {
    if (!a || !b || !out || nsum < 1 || nsum > NT_MAX_DIMS || !sum_dims)
        return nt_fail(NT_ERR_VALUE, "nt_dims_dot: NULL or bad argument");
    int na = nt_tensor_nlevels(a), nb = nt_tensor_nlevels(b);
    for (int i = 0; i < nsum; i++)
        if (!sum_dims[i] ||
            (nt_levels_find(a, sum_dims[i]) < 0 && nt_levels_find(b, sum_dims[i]) < 0))
            return fallback(a, b, nsum, sum_dims, out); /* the sum's own error */
    if (a->ndim != na || b->ndim != nb || a->dtype != b->dtype || na == 0 || nb == 0)
        return fallback(a, b, nsum, sum_dims, out);
    /* a summed dim of one operand only: summed there first */
    for (int pass = 0; pass < 2; pass++) {
        nt_tensor *x = pass ? b : a, *y = pass ? a : b;
        nt_dim only[NT_MAX_DIMS];
        int n = 0;
        for (int i = 0; i < nsum; i++)
            if (nt_levels_find(x, sum_dims[i]) >= 0 && nt_levels_find(y, sum_dims[i]) < 0)
                only[n++] = nt_dim_fc(sum_dims[i]);
        if (n == 0) continue;
        nt_tensor *s = NULL;
        NT_TRY(nt_sum(x, n, only, false, -1, &s));
        nt_fcdim *rest[NT_MAX_DIMS];
        int m = 0;
        for (int i = 0; i < nsum; i++)
            if (nt_levels_find(s, sum_dims[i]) >= 0 || nt_levels_find(y, sum_dims[i]) >= 0)
                rest[m++] = sum_dims[i];
        nt_status st = m ? nt_dims_dot(pass ? a : s, pass ? s : b, m, rest, out)
                         : nt_mul(pass ? a : s, pass ? s : b, out);
        nt_tensor_release(s);
        return st;
    }
    nt_fcdim *ad[NT_MAX_DIMS], *bd[NT_MAX_DIMS], *res[NT_MAX_DIMS];
    int counts_a[3] = {0, 0, 0}, counts_b[3] = {0, 0, 0};
    int nbatch = 0, nrows = 0, ncols = 0, nk = 0;
    nt_fcdim *batch[NT_MAX_DIMS], *rows[NT_MAX_DIMS], *cols[NT_MAX_DIMS], *kd[NT_MAX_DIMS];
    nt_fcdim *a_order[NT_MAX_DIMS], *b_order[NT_MAX_DIMS]; /* the dims as they print */
    nt_levels_seq(a, a_order);
    nt_levels_seq(b, b_order);
    for (int i = 0; i < na; i++) {
        nt_fcdim *d = a_order[i];
        bool summed = in_list(sum_dims, nsum, d), shared = nt_levels_find(b, d) >= 0;
        if (summed)
            kd[nk++] = d;
        else if (shared)
            batch[nbatch++] = d;
        else
            rows[nrows++] = d;
    }
    for (int i = 0; i < nb; i++) {
        nt_fcdim *d = b_order[i];
        if (!in_list(sum_dims, nsum, d) && nt_levels_find(a, d) < 0) cols[ncols++] = d;
    }
    int n = 0;
    memcpy(ad + n, batch, (size_t)nbatch * sizeof *ad), n += nbatch;
    memcpy(ad + n, rows, (size_t)nrows * sizeof *ad), n += nrows;
    memcpy(ad + n, kd, (size_t)nk * sizeof *ad);
    counts_a[0] = nbatch, counts_a[1] = nrows, counts_a[2] = nk;
    n = 0;
    memcpy(bd + n, batch, (size_t)nbatch * sizeof *bd), n += nbatch;
    memcpy(bd + n, kd, (size_t)nk * sizeof *bd), n += nk;
    memcpy(bd + n, cols, (size_t)ncols * sizeof *bd);
    counts_b[0] = nbatch, counts_b[1] = nk, counts_b[2] = ncols;
    nt_tensor *x = NULL, *y = NULL, *p = NULL, *r = NULL;
    nt_status st = grouped(a, ad, counts_a, &x);
    if (st == NT_OK) st = grouped(b, bd, counts_b, &y);
    if (st == NT_OK) st = nbatch ? nt_bmm(x, y, &p) : nt_mm(x, y, &p);
    int64_t sizes[NT_MAX_DIMS];
    int nres = 0;
    for (int i = 0; i < nbatch; i++)
        res[nres] = batch[i], sizes[nres++] = batch[i]->size;
    for (int i = 0; i < nrows; i++)
        res[nres] = rows[i], sizes[nres++] = rows[i]->size;
    for (int i = 0; i < ncols; i++)
        res[nres] = cols[i], sizes[nres++] = cols[i]->size;
    /* p, a fresh [batch, rows, columns], as [batch..., rows..., columns...]: a view */
    int64_t strides[NT_MAX_DIMS];
    int64_t step = 1;
    for (int i = nres - 1; i >= 0; i--)
        strides[i] = step, step *= sizes[i];
    if (st == NT_OK)
        st = nt_tensor_is_contiguous(p) ? nt_dims_view(p, nres, sizes, strides, p->offset, NULL, &r)
                                        : nt_reshape(p, nres, sizes, &r);
    if (st == NT_OK) st = nt_levels_attach(r, nres, res);
    nt_tensor_release(x);
    nt_tensor_release(y);
    nt_tensor_release(p);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}
