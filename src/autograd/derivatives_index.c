/*
 * derivatives_index.c — backward formulas of indexing (t[...], t[...] = v), index_fill,
 * masked_select, and the writes copy_, fill_ and zero_.
 *
 * A gather's gradient is zeros with g added at the positions it read (an index_put_ with
 * accumulate, so repeated indices add up); a write's is g with the written region zeroed for
 * self, and g read at the region for the value. Every step is a public op, so the formulas
 * are recorded themselves under create_graph.
 */
#include "core/status.h"
#include "derivatives.h"
#include "dispatch/dispatch.h"
#include "ops/index.h"

#define G gout[0]

/* ---- t[...] ---- */

typedef enum index_form {
    FORM_ALIAS,
    FORM_SELECT,
    FORM_SLICE,
    FORM_UNSQUEEZE,
    FORM_INDEX
} index_form;

/* What PyTorch's node for t[...] is: an index (a tensor or bool entry) makes IndexBackward0,
 * otherwise the last view op applied (an int or 0-dim integer tensor selects, a slice slices,
 * None unsqueezes), or an alias. */
static index_form form_of(const nt_call *c) {
    nt_index idx[NT_INDEX_MAX_ENTRIES];
    int count;
    bool single;
    if (nt_index_decode(c, idx, &count, &single) != NT_OK) {
        nt_clear_error();
        return FORM_INDEX;
    }
    index_form form = FORM_ALIAS;
    for (int i = 0; i < count; i++) {
        const nt_tensor *t = idx[i].tensor;
        switch (idx[i].kind) {
        case NT_INDEX_INT:
            form = form == FORM_INDEX ? form : FORM_SELECT;
            break;
        case NT_INDEX_SLICE:
            form = form == FORM_INDEX ? form : FORM_SLICE;
            break;
        case NT_INDEX_NONE:
            form = form == FORM_INDEX ? form : FORM_UNSQUEEZE;
            break;
        case NT_INDEX_BOOL:
            form = FORM_INDEX;
            break;
        case NT_INDEX_TENSOR:
            if (t->ndim == 0 && nt_dtype_table[t->dtype].kind == NT_KIND_INT &&
                t->dtype != NT_UINT8)
                form = form == FORM_INDEX ? form : FORM_SELECT;
            else
                form = FORM_INDEX;
            break;
        default:
            break;
        }
    }
    return form;
}

static const nt_vjp_row index_rows[] = {
    [FORM_ALIAS] = {.name = "AliasBackward0", .fn = nt_vjp_index, .saves = 1u << 1},
    [FORM_SELECT] = {.name = "SelectBackward0", .fn = nt_vjp_index, .saves = 1u << 1},
    [FORM_SLICE] = {.name = "SliceBackward0", .fn = nt_vjp_index, .saves = 1u << 1},
    [FORM_UNSQUEEZE] = {.name = "UnsqueezeBackward0", .fn = nt_vjp_index, .saves = 1u << 1},
    [FORM_INDEX] = {.name = "IndexBackward0", .fn = nt_vjp_index, .saves = 1u << 1},
};
const nt_vjp_row *nt_vjp_pick_index(const nt_call *c) {
    return &index_rows[form_of(c)];
}

/* t[...] = v: an index makes IndexPutBackward0; a view written makes PyTorch's CopySlices
 * (PyTorch's masked_fill path for a mask and a number is CopySlices too; IndexPutBackward0
 * here, where a number and a 0-dim tensor are one value) */
static const nt_vjp_row index_put_rows[] = {
    {.name = "CopySlices", .fn = nt_vjp_index_put, .saves = 1u << 1},
    {.name = "IndexPutBackward0", .fn = nt_vjp_index_put, .saves = 1u << 1},
};
const nt_vjp_row *nt_vjp_pick_index_put(const nt_call *c) {
    nt_index idx[NT_INDEX_MAX_ENTRIES];
    int count;
    bool single;
    if (nt_index_decode(c, idx, &count, &single) != NT_OK) {
        nt_clear_error();
        return &index_put_rows[1];
    }
    return &index_put_rows[!nt_index_is_basic(count, idx, single)];
}

/* t[idx]: zeros with g added at idx (repeats add up) */
nt_status nt_vjp_index(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    nt_index idx[NT_INDEX_MAX_ENTRIES];
    int count;
    bool single;
    NT_TRY(nt_index_decode(&n->call, idx, &count, &single));
    vj v = VJ_INIT;
    nt_tmeta unnamed = n->in[0];
    unnamed.names = NULL;
    nt_tensor *whole = vj_zeros(&v, &unnamed), *g = vj_unnamed(&v, G);
    if (whole && g) {
        nt_status st = nt_index_put_(whole, count, idx, g, true);
        if (st != NT_OK) v.st = st;
    }
    vj_give(&v, whole, &gin[0]);
    return vj_end(&v);
}

/* t[idx] = v (accumulate: t[idx] += v): self gets g with the region zeroed (g itself when
 * adding), the value g read at the region, shaped as the value (whose leading ones the write
 * dropped) */
nt_status nt_vjp_index_put(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    nt_index idx[NT_INDEX_MAX_ENTRIES];
    int count;
    bool single;
    NT_TRY(nt_index_decode(&n->call, idx, &count, &single));
    bool accumulate = n->call.args[4].kind == NT_ARG_BOOL && n->call.args[4].v.b;
    int s = nt_node_input(n, 0), val = nt_node_input(n, 3);
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G);
    if (s >= 0 && nt_node_wants(n, s)) {
        if (accumulate) {
            vj_give(&v, g, &gin[s]);
        } else {
            nt_tensor *kept = NULL, *zero = NULL;
            nt_status st = v.st == NT_OK ? nt_clone(g, &kept) : v.st;
            kept = vj_keep(&v, st, kept);
            if (kept) {
                st = nt_zeros(0, NULL, kept->dtype, NULL, &zero);
                zero = vj_keep(&v, st, zero);
            }
            if (zero) {
                st = single && count == 1 ? nt_index_set_(kept, 1, idx, true, zero)
                                          : nt_index_put_(kept, count, idx, zero, false);
                if (st != NT_OK) v.st = st;
            }
            vj_give(&v, kept, &gin[s]);
        }
    }
    if (val >= 0 && nt_node_wants(n, val)) {
        nt_tensor *part = NULL;
        nt_status st = v.st != NT_OK          ? v.st
                       : single && count == 1 ? nt_index_get1(g, idx, &part)
                                              : nt_index_get(g, count, idx, &part);
        part = vj_keep(&v, st, part);
        const nt_tmeta *m = &n->in[val];
        if (part && m->ndim > part->ndim) { /* the value's leading ones back */
            int64_t sizes[NT_MAX_DIMS];
            int lead = m->ndim - part->ndim;
            for (int i = 0; i < m->ndim; i++)
                sizes[i] = i < lead ? 1 : part->sizes[i - lead];
            part = vj_reshape(&v, part, m->ndim, sizes);
        }
        vj_give(&v, part, &gin[val]);
    }
    return vj_end(&v);
}

/* ---- index_fill, masked_select ---- */

/* index_fill(self, dim, index, value): g with the filled entries zeroed; a tensor value gets
 * the sum of g over them (each entry once, however often the index names it) */
nt_status nt_vjp_index_fill(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    int d = 0;
    if (n->in[0].ndim) NT_TRY(nt_ag_resolve_dim(&n->in[0], n->call.args[1].v.dim, &d));
    nt_tensor *index = nt_node_saved(n, 2);
    int s = nt_node_input(n, 0), val = nt_node_input(n, 3);
    vj v = VJ_INIT;
    nt_tensor *g = vj_unnamed(&v, G), *kept = NULL;
    if (g) {
        nt_status st = nt_index_fill(g, d, index, nt_scalar_float(0.0), &kept);
        kept = vj_keep(&v, st, kept);
    }
    if (s >= 0 && nt_node_wants(n, s)) vj_give(&v, kept, &gin[s]);
    if (val >= 0 && nt_node_wants(n, val))
        vj_give(&v, vj_sub(&v, vj_sum(&v, g, 0, NULL, false), vj_sum(&v, kept, 0, NULL, false)),
                &gin[val]);
    return vj_end(&v);
}

/* masked_select(self, mask): zeros of the broadcast shape with g written where the mask is
 * true (the engine sums a broadcast self's gradient back) */
nt_status nt_vjp_masked_select(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    const nt_tmeta *a = &n->in[0], *b = &n->in[1];
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    int64_t shape[NT_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        int ia = i - (nd - a->ndim), ib = i - (nd - b->ndim);
        int64_t sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? b->sizes[ib] : 1;
        shape[i] = sa == 1 ? sb : sa;
    }
    nt_tmeta whole_meta = {.dtype = a->dtype, .ndim = nd, .sizes = shape, .names = NULL};
    vj v = VJ_INIT;
    nt_tensor *whole = vj_zeros(&v, &whole_meta), *g = vj_unnamed(&v, G);
    nt_tensor *mask = vj_expand(&v, nt_node_saved(n, 1), nd, shape);
    if (whole && g && mask) {
        nt_index at = {.kind = NT_INDEX_TENSOR, .tensor = mask};
        nt_status st = nt_index_put_(whole, 1, &at, g, false);
        if (st != NT_OK) v.st = st;
    }
    vj_give(&v, whole, &gin[0]);
    return vj_end(&v);
}

/* ---- writes ---- */

/* copy_(self, src): self's old values are gone (zero gradient); src gets g, which the engine
 * casts to src's dtype and sums over the dims src was broadcast in */
nt_status nt_vjp_copy(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    int s = nt_node_input(n, 0), src = nt_node_input(n, 1);
    vj v = VJ_INIT;
    if (s >= 0 && nt_node_wants(n, s)) vj_give(&v, vj_zeros(&v, &n->in[s]), &gin[s]);
    if (src >= 0 && nt_node_wants(n, src)) vj_give(&v, vj_unnamed(&v, G), &gin[src]);
    return vj_end(&v);
}

/* fill_(self, value), zero_(self): zeros for self; a tensor value gets the sum of g */
nt_status nt_vjp_fill(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    int s = nt_node_input(n, 0), val = n->call.op == NT_OP_FILL_ ? nt_node_input(n, 1) : -1;
    vj v = VJ_INIT;
    if (s >= 0 && nt_node_wants(n, s)) vj_give(&v, vj_zeros(&v, &n->in[s]), &gin[s]);
    if (val >= 0 && nt_node_wants(n, val))
        vj_give(&v, vj_sum(&v, vj_unnamed(&v, G), 0, NULL, false), &gin[val]);
    return vj_end(&v);
}

/* fill_ names its node by its value: FillBackward2 for a number, FillBackward3 for a tensor */
static const nt_vjp_row fill_rows[] = {
    {.name = "FillBackward2", .fn = nt_vjp_fill},
    {.name = "FillBackward3", .fn = nt_vjp_fill},
};
const nt_vjp_row *nt_vjp_pick_fill(const nt_call *c) {
    return &fill_rows[c->args[1].kind == NT_ARG_TENSOR];
}
