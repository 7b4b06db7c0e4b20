/*
 * levels.c — the first-class dims a tensor carries (nt_tensor.levels): attaching them,
 * freeing them with the tensor, the flag the dispatcher reads, views that autograd records,
 * and the views that only change levels (unlevel, expand by dims).
 */
#include <stdlib.h>
#include <string.h>

#include "core/small_alloc.h"
#include "core/status.h"
#include "dims/dims.h"
#include "dispatch/dispatch.h"
#include "ntensor/call.h"
#include "ntensor/index.h"

/* A flag, not a count of the tensors alive with levels: a count would cost two locked
 * instructions per binding (made and freed), more than the dispatcher's check it saves. */
_Atomic bool nt_levels_made;

static void levels_free(nt_tensor *t) {
    struct nt_levels *lv = t->levels;
    t->levels = NULL;
    if (!atomic_load_explicit(&t->borrows, memory_order_relaxed))
        nt_fcdims_release(lv->dims, lv->n);
    if (!lv->in_tensor_block) nt_small_free(lv);
}

static void levels_own(nt_tensor *t) {
    nt_fcdims_retain(t->levels->dims, t->levels->n);
}

/* The bytes of a levels block: n dims, then where each prints (nt_levels_at). */
static size_t levels_bytes(int n) {
    return sizeof(struct nt_levels) + (size_t)n * (sizeof(nt_fcdim *) + 1);
}

/* Fills in the levels block lv of t, retaining the dims; level i prints at at[i] (NULL:
 * first, in order). */
static void levels_init(nt_tensor *t, struct nt_levels *lv, bool in_tensor_block, int n,
                        nt_fcdim *const *dims, const uint8_t *at) {
    lv->n = n;
    lv->in_tensor_block = in_tensor_block;
    uint8_t *place = (uint8_t *)(lv->dims + n);
    for (int i = 0; i < n; i++) { /* one loop: a few dims do not pay a memcpy call */
        lv->dims[i] = dims[i];
        place[i] = at ? at[i] : (uint8_t)i;
    }
    if (!atomic_load_explicit(&t->borrows, memory_order_relaxed)) nt_fcdims_retain(dims, n);
    nt_tensor_levels_free = levels_free;
    nt_tensor_levels_own = levels_own;
    t->levels = lv;
    if (!atomic_load_explicit(&nt_levels_made, memory_order_relaxed))
        atomic_store_explicit(&nt_levels_made, true, memory_order_relaxed);
}

nt_status nt_levels_attach_at(nt_tensor *t, int n, nt_fcdim *const *dims, const uint8_t *at) {
    if (n == 0) return NT_OK;
    struct nt_levels *lv = nt_small_alloc(levels_bytes(n));
    if (!lv) return nt_fail_oom(levels_bytes(n));
    levels_init(t, lv, false, n, dims, at);
    return NT_OK;
}

nt_status nt_levels_attach(nt_tensor *t, int n, nt_fcdim *const *dims) {
    return nt_levels_attach_at(t, n, dims, NULL);
}

void nt_levels_seq(const nt_tensor *t, nt_fcdim **seq) {
    for (int p = 0; p < t->ndim; p++)
        seq[p] = NULL;
    int n = nt_tensor_nlevels(t);
    const uint8_t *at = n ? nt_levels_at(t->levels) : NULL;
    for (int i = 0; i < n; i++)
        seq[at[i]] = t->levels->dims[i];
}

bool nt_levels_at_of_seq(int n, nt_fcdim *const *dims, int len, nt_fcdim *const *seq, uint8_t *at) {
    for (int i = 0; i < n; i++) {
        int p = 0;
        while (p < len && seq[p] != dims[i])
            p++;
        if (p == len) return false;
        at[i] = (uint8_t)p;
    }
    return true;
}

nt_status nt_levels_attach_seq(nt_tensor *t, int n, nt_fcdim *const *dims, int len,
                               nt_fcdim *const *seq) {
    uint8_t at[NT_MAX_DIMS];
    bool ok = len == t->ndim && nt_levels_at_of_seq(n, dims, len, seq, at);
    return nt_levels_attach_at(t, n, dims, ok ? at : NULL);
}

void nt_levels_at_by_age(int n, nt_fcdim *const *dims, uint8_t *at) {
    for (int i = 0; i < n; i++) {
        int rank = 0;
        for (int k = 0; k < n; k++)
            rank += dims[k]->serial < dims[i]->serial;
        at[i] = (uint8_t)rank;
    }
}

int nt_tensor_print_order(const nt_tensor *t, nt_fcdim **seq) {
    if (!t) return 0;
    if (seq) nt_levels_seq(t, seq);
    return t->ndim;
}

int nt_levels_find(const nt_tensor *t, const nt_fcdim *d) {
    for (int i = 0; i < nt_tensor_nlevels(t); i++)
        if (t->levels->dims[i] == d) return i;
    return -1;
}

int nt_tensor_levels(const nt_tensor *t, nt_fcdim **dims) {
    int n = nt_tensor_nlevels(t);
    for (int i = 0; dims && i < n; i++)
        dims[i] = t->levels->dims[i];
    return n;
}

nt_status nt_dims_view(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                       int64_t offset, const nt_name *names, nt_tensor **out) {
    if (!t->ag) return nt_tensor_view_of(t, ndim, sizes, strides, offset, names, out);
    /* as_strided, run past the levels step (t's levels are this layer's to read) */
    nt_call c;
    nt_call_init(&c, NT_OP_AS_STRIDED);
    const nt_arg given[4] = {nt_arg_tensor(t), nt_arg_ints(ndim, sizes), nt_arg_ints(ndim, strides),
                             nt_arg_int(offset)};
    for (int i = 0; i < NT_CALL_MAX_ARGS; i++)
        c.args[i] = i < 4 ? given[i] : nt_arg_none();
    NT_TRY(nt_dispatch_row(&c, nt_op_row_of(NT_OP_AS_STRIDED)));
    *out = c.result[0];
    if (names) nt_tensor_set_names_unchecked(*out, names);
    return NT_OK;
}

nt_status nt_levels_view(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset, const nt_name *names, int n, nt_fcdim *const *dims,
                         const uint8_t *at, nt_tensor **out) {
    nt_tensor *v = NULL;
    if (t->ag || n == 0) { /* recorded: autograd makes the view, the levels come after */
        NT_TRY(nt_dims_view(t, ndim, sizes, strides, offset, names, &v));
        nt_status st = nt_levels_attach_at(v, n, dims, at);
        if (st != NT_OK) {
            nt_tensor_release(v);
            return st;
        }
        *out = v;
        return NT_OK;
    }
    void *block;
    NT_TRY(nt_tensor_view_with(t, ndim, sizes, strides, offset, names, levels_bytes(n), false,
                               &block, &v));
    levels_init(v, block, true, n, dims, at);
    *out = v;
    return NT_OK;
}

nt_status nt_levels_view_borrowing(nt_tensor *t, int n, nt_fcdim *const *dims, nt_tensor **out) {
    if (t->ag)
        return nt_levels_view(t, n, t->sizes, t->strides, t->offset, NULL, n, dims, NULL, out);
    void *block;
    NT_TRY(nt_tensor_view_with(t, n, t->sizes, t->strides, t->offset, NULL, levels_bytes(n), true,
                               &block, out));
    levels_init(*out, block, true, n, dims, NULL);
    return NT_OK;
}

nt_status nt_tensor_unlevel(nt_tensor *t, nt_tensor **out) {
    if (!t || !out) return nt_fail(NT_ERR_VALUE, "nt_tensor_unlevel: NULL argument");
    nt_fcdim *seq[NT_MAX_DIMS];
    nt_levels_seq(t, seq);
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS] = {0};
    for (int p = 0, next = nt_tensor_nlevels(t); p < t->ndim; p++) {
        int i = seq[p] ? nt_levels_find(t, seq[p]) : next++;
        sizes[p] = t->sizes[i];
        strides[p] = t->strides[i];
        names[p] = nt_tensor_name_at(t, i);
    }
    return nt_dims_view(t, t->ndim, sizes, strides, t->offset, t->names ? names : NULL, out);
}

nt_status nt_tensor_expand_dims(nt_tensor *t, int n, nt_fcdim *const *dims, nt_tensor **out) {
    if (!t || !out || n < 0 || (n > 0 && !dims))
        return nt_fail(NT_ERR_VALUE, "nt_tensor_expand_dims: NULL argument");
    int nl = nt_tensor_nlevels(t), ndim = n + t->ndim;
    nt_fcdim *all[NT_MAX_DIMS];
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS] = {0};
    uint8_t at[NT_MAX_DIMS];
    for (int k = 0; k < n; k++) { /* functorch's checks, in its order: a dim new here, bound */
        bool seen = !dims[k] || nt_levels_find(t, dims[k]) >= 0;
        for (int j = 0; j < k && !seen; j++)
            seen = dims[j] == dims[k];
        if (!dims[k]) return nt_fail(NT_ERR_VALUE, "nt_tensor_expand_dims: NULL dim");
        if (seen)
            return nt_fail(NT_ERR_DIM_BIND,
                           "expanding dimension %s already exists in tensor "
                           "with dims",
                           dims[k]->name);
        NT_TRY(nt_fcdim_get_size(dims[k], &sizes[k]));
    }
    NT_TRY(nt_dims_check_rank(ndim));
    /* [new dims (stride 0), t's physical dims]; the new dims print first, then t's order */
    const uint8_t *t_at = nl ? nt_levels_at(t->levels) : NULL;
    for (int k = 0; k < n; k++) {
        all[k] = dims[k];
        strides[k] = 0;
        at[k] = (uint8_t)k;
    }
    for (int i = 0; i < t->ndim; i++) {
        sizes[n + i] = t->sizes[i];
        strides[n + i] = t->strides[i];
        names[n + i] = nt_tensor_name_at(t, i);
    }
    for (int i = 0; i < nl; i++) {
        all[n + i] = t->levels->dims[i];
        at[n + i] = (uint8_t)(n + t_at[i]);
    }
    return nt_levels_view(t, ndim, sizes, strides, t->offset, t->names ? names : NULL, n + nl, all,
                          at, out);
}

int nt_dims_union_find(const nt_dim_union *u, const nt_fcdim *d) {
    for (int i = 0; i < u->n; i++)
        if (u->dims[i] == d) return i;
    return -1;
}

nt_status nt_dims_union_add(nt_dim_union *u, const nt_tensor *t) {
    for (int i = 0; i < nt_tensor_nlevels(t); i++) {
        nt_fcdim *d = t->levels->dims[i];
        if (nt_dims_union_find(u, d) >= 0) continue;
        if (u->n == NT_MAX_DIMS)
            return nt_fail(NT_ERR_RUNTIME, "more than %d first-class dims in one call",
                           NT_MAX_DIMS);
        u->dims[u->n++] = d;
    }
    return NT_OK;
}

nt_status nt_dims_check_rank(int ndim) {
    if (ndim <= NT_MAX_DIMS) return NT_OK;
    return nt_fail(NT_ERR_RUNTIME,
                   "a tensor with first-class dims would have %d dims, more than %d", ndim,
                   NT_MAX_DIMS);
}

void nt_call_results_clear(nt_call *c) {
    nt_tensor_release(c->result[0]);
    nt_tensor_release(c->result[1]);
    c->result[0] = c->result[1] = NULL;
    nt_tensors_release(c->list, c->nlist);
    c->list = NULL;
    c->nlist = 0;
}

/* t as an ordinary view laid out [union..., `before` ones, t's positional dims, `after`
 * ones]: t's own dims at their strides, the union's others at stride 0. */
nt_status nt_dims_align(nt_tensor *t, const nt_dim_union *u, int before, int after,
                        nt_tensor **out) {
    int nl = nt_tensor_nlevels(t), np = t->ndim - nl;
    int ndim = u->n + before + np + after;
    NT_TRY(nt_dims_check_rank(ndim));
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name names[NT_MAX_DIMS] = {0};
    int k = 0;
    for (int i = 0; i < u->n; i++, k++) {
        int at = nt_levels_find(t, u->dims[i]);
        sizes[k] = u->dims[i]->size;
        strides[k] = at >= 0 ? t->strides[at] : 0;
    }
    for (int i = 0; i < before; i++, k++)
        sizes[k] = 1, strides[k] = 0;
    for (int i = nl; i < t->ndim; i++, k++) {
        sizes[k] = t->sizes[i];
        strides[k] = t->strides[i];
        names[k] = nt_tensor_name_at(t, i);
    }
    for (int i = 0; i < after; i++, k++)
        sizes[k] = 1, strides[k] = 0;
    return nt_dims_view(t, ndim, sizes, strides, t->offset, t->names ? names : NULL, out);
}
