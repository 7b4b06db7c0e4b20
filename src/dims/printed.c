/*
 * printed.c — where the dims of a result print: functorch.dim's order of "levels".
 *
 * Our physical layout puts a tensor's first-class dims first; functorch.dim keeps a list of
 * levels, first-class and positional dims mixed, that its repr prints and Tensor.dims reads.
 * Each way of making a tensor with dims orders that list its own way: an index reads the
 * tensor's levels in order, replacing each positional dim by what its index entry makes;
 * order() puts the new positional dims where the first positional dim left is; its pointwise
 * ops keep the union of their arguments' levels; its methods that take a dim keep self's
 * levels less the reduced ones; everything else runs under vmap, whose batching rules put
 * the dims first, oldest first. The functions here compute those orders as sequences (see
 * nt_levels_seq), which nt_levels_attach_seq stores with the result's levels.
 */
#include <pthread.h>
#include <string.h>

#include "dims/dims.h"
#include "ops/op_table.h"

/* How many times each dim is read in flat (its own dims, bound ones, index tensors' dims). */
typedef struct use_count {
    int n;
    nt_fcdim *dims[NT_FLAT_MAX];
    int count[NT_FLAT_MAX];
} use_count;

static void count_use(use_count *u, nt_fcdim *d) {
    for (int i = 0; i < u->n; i++)
        if (u->dims[i] == d) {
            u->count[i]++;
            return;
        }
    if (u->n == NT_FLAT_MAX) return;
    u->dims[u->n] = d;
    u->count[u->n++] = 1;
}

static int uses(const use_count *u, const nt_fcdim *d) {
    for (int i = 0; i < u->n; i++)
        if (u->dims[i] == d) return u->count[i];
    return 0;
}

/* A level of functorch's union: a dim, or a positional dim counted from the right (-1 the
 * last), as its broadcasting aligns them. */
typedef struct union_key {
    nt_fcdim *dim;
    int from_right;
} union_key;

static void add_key(union_key *keys, int *n, union_key k) {
    for (int i = 0; i < *n; i++)
        if (keys[i].dim == k.dim && keys[i].from_right == k.from_right) return;
    if (*n < NT_FLAT_MAX) keys[(*n)++] = k;
}

/* t's levels as keys, in the order they print; `mask`: its positional dims as one (a boolean
 * index makes one dim of them). */
static void add_tensor_keys(union_key *keys, int *n, const nt_tensor *t, bool mask) {
    nt_fcdim *seq[NT_MAX_DIMS];
    nt_levels_seq(t, seq);
    int np = t->ndim - nt_tensor_nlevels(t), q = 0;
    if (mask && t->ndim == 0) add_key(keys, n, (union_key){NULL, -1}); /* True: a new dim */
    for (int p = 0; p < t->ndim; p++)
        add_key(keys, n,
                seq[p] ? (union_key){seq[p], 0} : (union_key){NULL, mask ? -1 : -(np - q++)});
}

static bool is_mask(const nt_tensor *t) {
    return t->dtype == NT_BOOL || t->dtype == NT_UINT8;
}

/* How many times each dim is read in flat: the entries' dims and the index tensors' dims. */
static void count_uses(const nt_flat_entry *flat, int n, use_count *u) {
    for (int e = 0; e < n; e++) {
        if (flat[e].dim) count_use(u, flat[e].dim);
        if (!flat[e].tensor) continue;
        nt_fcdim *seq[NT_MAX_DIMS];
        nt_levels_seq(flat[e].tensor, seq);
        for (int p = 0; p < flat[e].tensor->ndim; p++)
            if (seq[p]) count_use(u, seq[p]);
    }
}

int nt_printed_gathered(const nt_flat_entry *flat, int n, nt_fcdim **seq) {
    use_count u = {0};
    count_uses(flat, n, &u);
    nt_fcdim *kept[NT_FLAT_MAX];
    union_key gathered[NT_FLAT_MAX];
    int nkept = 0, ngathered = 0, insert = -1;
    for (int e = 0; e < n; e++) {
        const nt_flat_entry *f = &flat[e];
        if (!f->tensor && (!f->dim || uses(&u, f->dim) == 1)) {
            kept[nkept++] = f->dim; /* a positional dim, or a dim read once: in place */
            continue;
        }
        if (insert == -1)
            insert = nkept;
        else if (insert != nkept)
            insert = 0;
        if (f->dim) add_key(gathered, &ngathered, (union_key){f->dim, 0});
        if (f->tensor) add_tensor_keys(gathered, &ngathered, f->tensor, is_mask(f->tensor));
    }
    if (insert < 0) insert = nkept;
    int len = 0; /* at most NT_FLAT_MAX: more does not fit any tensor, which then prints its
                    dims first */
    for (int e = 0; e <= nkept; e++) {
        for (int k = 0; e == insert && k < ngathered && len < NT_FLAT_MAX; k++)
            seq[len++] = gathered[k].dim;
        if (e < nkept && len < NT_FLAT_MAX) seq[len++] = kept[e];
    }
    return len;
}

int nt_printed_ordered(const nt_tensor *t, const bool *used, int ngroups, nt_fcdim **seq) {
    nt_fcdim *own[NT_MAX_DIMS];
    nt_levels_seq(t, own);
    int len = 0, nl = nt_tensor_nlevels(t), positional = nl;
    bool placed = false;
    for (int p = 0; p < t->ndim; p++) {
        int i = own[p] ? nt_levels_find(t, own[p]) : positional++;
        if (used[i]) continue;
        if (!own[p] && !placed) { /* the ordered dims go before the first positional one left */
            for (int g = 0; g < ngroups; g++)
                seq[len++] = NULL;
            placed = true;
        }
        seq[len++] = own[p];
    }
    for (int g = 0; !placed && g < ngroups; g++)
        seq[len++] = NULL;
    return len;
}

/* ------------------------------------------------------------------ results of ops */

void nt_plan_union(nt_print_plan *plan, const nt_call *c) {
    union_key keys[NT_FLAT_MAX];
    int n = 0;
    for (unsigned m = nt_op_slots_of(c->op)->tensor_slots; m; m &= m - 1) {
        const nt_arg *a = &c->args[__builtin_ctz(m)];
        if (a->kind == NT_ARG_TENSOR) add_tensor_keys(keys, &n, a->v.t, false);
        for (int i = 0; a->kind == NT_ARG_TENSORS && i < a->n; i++)
            add_tensor_keys(keys, &n, a->v.tensors[i], false);
    }
    for (int i = 0; i < n; i++)
        plan->seq[i] = keys[i].dim;
    plan->len = n;
}

void nt_plan_self_less(nt_print_plan *plan, const nt_tensor *self, const bool *gone) {
    nt_fcdim *seq[NT_MAX_DIMS];
    nt_levels_seq(self, seq);
    int nl = nt_tensor_nlevels(self), positional = nl;
    plan->len = 0;
    for (int p = 0; p < self->ndim; p++) {
        int i = seq[p] ? nt_levels_find(self, seq[p]) : positional++;
        if (!gone[i]) plan->seq[plan->len++] = seq[p];
    }
}

void nt_plan_dims_first(nt_print_plan *plan, const nt_tensor *self, int npos) {
    nt_fcdim *seq[NT_MAX_DIMS];
    nt_levels_seq(self, seq);
    plan->len = 0;
    for (int p = 0; p < self->ndim; p++)
        if (seq[p]) plan->seq[plan->len++] = seq[p];
    for (int q = 0; q < npos; q++)
        plan->seq[plan->len++] = NULL;
}

/* How many positional dims of self an index entry takes. */
static int entry_takes(const nt_index *e) {
    if (e->kind == NT_INDEX_INT || e->kind == NT_INDEX_SLICE) return 1;
    if (e->kind != NT_INDEX_TENSOR) return 0;
    return is_mask(e->tensor) ? e->tensor->ndim - nt_tensor_nlevels(e->tensor) : 1;
}

/* The index as functorch reads it, walking self's levels in their printed order: its own dims
 * in place; at each positional dim, the Nones before its entry, then the entry (an int
 * nothing, a slice a positional dim, a tensor a gathering entry; "..." stands for full
 * slices); the trailing Nones last. */
static int index_flat(const nt_tensor *self, int count, const nt_index *idx, nt_flat_entry *flat) {
    nt_fcdim *seq[NT_MAX_DIMS];
    nt_levels_seq(self, seq);
    int np = self->ndim - nt_tensor_nlevels(self), specified = 0;
    for (int k = 0; k < count; k++)
        specified += entry_takes(&idx[k]);
    /* the entries with "..." spelled out as full slices */
    nt_index items[NT_FLAT_MAX];
    int nitems = 0;
    for (int k = 0; k < count && nitems < NT_FLAT_MAX; k++) {
        if (idx[k].kind != NT_INDEX_ELLIPSIS) {
            items[nitems++] = idx[k];
            continue;
        }
        for (int f = 0; f < np - specified && nitems < NT_FLAT_MAX; f++)
            items[nitems++] = (nt_index){.kind = NT_INDEX_SLICE};
    }
    int n = 0, e = 0, skip = 0;
    for (int p = 0; p <= self->ndim && n < NT_FLAT_MAX - 2; p++) {
        if (p < self->ndim && seq[p]) {
            flat[n++] = (nt_flat_entry){.dim = seq[p]};
            continue;
        }
        if (p < self->ndim && skip > 0) { /* taken by a mask of several dims */
            skip--;
            continue;
        }
        for (; e < nitems && n < NT_FLAT_MAX - 2 &&
               (items[e].kind == NT_INDEX_NONE || items[e].kind == NT_INDEX_BOOL);
             e++)
            flat[n++] = (nt_flat_entry){0};
        if (p == self->ndim) break;
        const nt_index *it = e < nitems ? &items[e++] : NULL;
        if (!it || it->kind == NT_INDEX_SLICE) {
            flat[n++] = (nt_flat_entry){0}; /* a slice, or a dim no entry takes */
        } else if (it->kind == NT_INDEX_TENSOR) {
            flat[n++] = (nt_flat_entry){.tensor = it->tensor};
            skip = entry_takes(it) - 1;
        } /* an int: the dim goes */
    }
    return n;
}

void nt_plan_index(nt_print_plan *plan, const nt_tensor *self, int count, const nt_index *idx) {
    nt_flat_entry flat[NT_FLAT_MAX];
    int n = index_flat(self, count, idx, flat);
    plan->len = nt_printed_gathered(flat, n, plan->seq);
}

nt_status nt_levels_attach_plan(nt_tensor *t, int n, nt_fcdim *const *dims,
                                const nt_print_plan *plan) {
    uint8_t at[NT_MAX_DIMS];
    if (plan->len != t->ndim || !nt_levels_at_of_seq(n, dims, plan->len, plan->seq, at))
        nt_levels_at_by_age(n, dims, at);
    return nt_levels_attach_at(t, n, dims, at);
}

/* ------------------------------------------------------------------ which order an op takes */

enum {
    FC_DIM_METHOD = 1, /* functorch.dim wraps the method (its _def): given a dim, the levels
                          stay in place */
    FC_DROPS_DIM = 2,  /* ... and the dim it is given goes (reduce=True) */
    FC_VMAPPED = 4,    /* a pointwise row functorch runs under vmap (not in its pointwise
                          list, and a batching rule that moves the dims first) */
    FC_KEEPS = 8,      /* vmap's rule keeps self's layout (type_as, the *_like factories) */
};

static const struct {
    const char *name;
    uint8_t flags;
} fc_rows[] = {
    {"all", FC_DIM_METHOD | FC_DROPS_DIM},
    {"amax", FC_DIM_METHOD | FC_DROPS_DIM},
    {"amin", FC_DIM_METHOD | FC_DROPS_DIM},
    {"any", FC_DIM_METHOD | FC_DROPS_DIM},
    {"argmax", FC_DIM_METHOD | FC_DROPS_DIM},
    {"argmin", FC_DIM_METHOD | FC_DROPS_DIM},
    {"kthvalue", FC_DIM_METHOD | FC_DROPS_DIM},
    {"logsumexp", FC_DIM_METHOD | FC_DROPS_DIM},
    {"max", FC_DIM_METHOD | FC_DROPS_DIM | FC_VMAPPED},
    {"mean", FC_DIM_METHOD | FC_DROPS_DIM},
    {"median", FC_DIM_METHOD | FC_DROPS_DIM},
    {"min", FC_DIM_METHOD | FC_DROPS_DIM | FC_VMAPPED},
    {"mode", FC_DIM_METHOD | FC_DROPS_DIM},
    {"prod", FC_DIM_METHOD | FC_DROPS_DIM},
    {"std", FC_DIM_METHOD | FC_DROPS_DIM},
    {"sum", FC_DIM_METHOD | FC_DROPS_DIM},
    {"unbind", FC_DIM_METHOD | FC_DROPS_DIM},
    {"var", FC_DIM_METHOD | FC_DROPS_DIM},
    {"argsort", FC_DIM_METHOD},
    {"chunk", FC_DIM_METHOD},
    {"cummax", FC_DIM_METHOD},
    {"cummin", FC_DIM_METHOD},
    {"cumprod", FC_DIM_METHOD},
    {"cumsum", FC_DIM_METHOD},
    {"logcumsumexp", FC_DIM_METHOD},
    {"softmax", FC_DIM_METHOD},
    {"sort", FC_DIM_METHOD},
    {"contiguous", FC_VMAPPED},
    {"gelu_backward", FC_VMAPPED},
    {"silu_backward", FC_VMAPPED},
    {"empty_like", FC_KEEPS},
    {"full_like", FC_KEEPS},
    {"ones_like", FC_KEEPS},
    {"rand_like", FC_KEEPS},
    {"type_as", FC_KEEPS},
    {"zeros_like", FC_KEEPS},
};

static uint8_t fc_flags[NT_OP_COUNT];
static pthread_once_t fc_once = PTHREAD_ONCE_INIT;

static void fc_parse(void) {
    for (int op = 0; op < NT_OP_COUNT; op++)
        for (size_t k = 0; k < sizeof fc_rows / sizeof *fc_rows; k++)
            if (!strcmp(nt_op_rows[op].name, fc_rows[k].name)) fc_flags[op] = fc_rows[k].flags;
}

static unsigned flags_of(nt_op op) {
    pthread_once(&fc_once, fc_parse);
    return fc_flags[op];
}

nt_print_class nt_print_class_of(nt_op op, int rule, bool dim_given) {
    unsigned f = flags_of(op);
    if (f & FC_KEEPS) return NT_PRINT_SELF;
    switch (rule) {
    case NT_BATCH_POINTWISE:
        return f & FC_VMAPPED ? NT_PRINT_VMAP : NT_PRINT_UNION;
    case NT_BATCH_BY_KIND:
    case NT_BATCH_SHIFT:
        return f & FC_DIM_METHOD && dim_given ? NT_PRINT_SELF : NT_PRINT_VMAP;
    case NT_BATCH_PERMUTE:
        return NT_PRINT_PERMUTE;
    case NT_BATCH_INDEX:
        return NT_PRINT_INDEX;
    default:
        return NT_PRINT_VMAP;
    }
}

bool nt_print_drops_dim(nt_op op) {
    return flags_of(op) & FC_DROPS_DIM;
}
