/*
 * autograd.h — the autograd layer (L5): a tensor's autograd state, the graph's nodes, the
 * backward formulas' table and the dispatcher's recording hook.
 *
 * A tensor's `ag` is NULL until autograd concerns it (it requires grad, has a grad or hooks);
 * nt_ag_live counts the tensors whose `ag` says they require grad, so that the dispatcher's one
 * test when autograd is unused is a load of that count (dispatch.h).
 *
 * A node is one recorded call: its vjp row, a copy of the call record (scalars, dims and lists
 * owned by the node; its tensor slots hold the saved tensors or NULL), and per input (tensor
 * slots in order, lists expanded: "flat inputs") an edge to where its gradient goes and the
 * input's metadata (dtype, sizes, names), per output its metadata. The engine (engine.c) gives a
 * vjp the gradients of the outputs and takes the gradients of the inputs; it casts each to its
 * input's dtype, sums a broadcast gradient back to the input's shape and names it as the input.
 */
#ifndef NT_AUTOGRAD_AUTOGRAD_H
#define NT_AUTOGRAD_AUTOGRAD_H

#include <stdatomic.h>

#include "core/tensor.h"
#include "ntensor/autograd.h"
#include "ops/op_table.h"

typedef struct nt_node nt_node;

/* A gradient hook on a tensor (a leaf's, in its ag; a non-leaf's, on its node by output). An
 * entry with no fn (id 0) marks where a retained output's gradient is kept: at the entry, or
 * after all hooks when `late` (nt_retain_grad). */
typedef struct nt_hook {
    struct nt_hook *next;
    int64_t id;
    int output_nr;
    bool late;
    nt_grad_hook fn;
    void *ctx;
    void (*free_ctx)(void *);
} nt_hook;

typedef struct nt_ag_meta {
    bool requires_grad;
    bool retains_grad;
    int output_nr;    /* which output of grad_fn this tensor is */
    nt_node *grad_fn; /* owned; NULL for a leaf */
    nt_tensor *grad;  /* owned */
    nt_tensor *base;  /* owned: the tensor this one is a recorded view of (never a view) */
    nt_hook *hooks;   /* a leaf's hooks */
} nt_ag_meta;

/* The number of live tensors that require grad (leaves and recorded results). */
extern _Atomic int64_t nt_ag_live;

/* Where an input's gradient goes: a node's output `nr`, or a leaf's grad (retained). Neither:
 * the input does not require grad. */
typedef struct nt_edge {
    nt_node *node;
    int nr;
    nt_tensor *leaf;
} nt_edge;

/* The metadata of a node's input or output. */
typedef struct nt_tmeta {
    nt_dtype dtype;
    int ndim;
    int64_t *sizes; /* in the node's allocation */
    nt_name *names; /* the same; NULL when unnamed */
} nt_tmeta;

/* A backward formula: gout[j] is the gradient of output j (zeros where none arrived; NULL for
 * an output that is not differentiable); it writes gin[k], a new reference or NULL, for each
 * flat input k with nt_node_wants(n, k). Written with the public ops. */
typedef nt_status (*nt_vjp_fn)(nt_node *n, nt_tensor *const *gout, nt_tensor **gin);

/* What the autograd layer knows about an op: its node's name, its formula and what the formula
 * reads (saved when recorded): input slots by bit, the results. */
typedef struct nt_vjp_row {
    const char *name;
    nt_vjp_fn fn;
    unsigned saves;
    bool saves_result;
    /* instead of a node: the op run as the recorded ops it is made of (dropout: a mask, then a
     * product), with grad mode on */
    nt_status (*composite)(nt_call *c);
    /* the node's name for a call without its dim argument (slot 1 None), where PyTorch's
     * overloads name it apart: x.sum() is SumBackward0, x.sum(0) SumBackward1 */
    const char *name_all;
    /* the formula reads input 0's geometry (nt_node_geometry): as_strided */
    bool geometry;
    /* a row of its own for this call (PyTorch names the node by the form called: t[0] is
     * SelectBackward0, t[1:] SliceBackward0), else NULL */
    const struct nt_vjp_row *(*pick)(const nt_call *c);
} nt_vjp_row;

/* The table, by op id (derivatives*.c); rows of NT_OPF_NO_GRAD ops are empty. */
extern const nt_vjp_row nt_vjp_rows[NT_OP_COUNT];

struct nt_node {
    _Atomic int64_t refcount;
    const nt_vjp_row *vjp;
    nt_call call; /* the recorded call: tensor slots hold saved tensors or NULL */
    int ninputs, noutputs;
    nt_edge *edges;                 /* [ninputs] */
    nt_tmeta *in, *out;             /* [ninputs], [noutputs] */
    int *slot_of;                   /* [ninputs]: the call slot of flat input k */
    int8_t first[NT_CALL_MAX_ARGS]; /* the flat index of each tensor slot's first input, or -1 */
    nt_tensor **saved;              /* [ninputs]: saved inputs (retained) or NULL */
    uint64_t *saved_version;
    nt_tensor **saved_out; /* [noutputs]: saved results (autograd-free aliases) or NULL */
    uint64_t *saved_out_version;
    bool had_saved, freed; /* saved tensors were recorded / were released by a backward pass */
    nt_hook *hooks;        /* hooks of the node's outputs (non-leaf tensors) */
    nt_tensor **retained;  /* [noutputs]: weak: outputs that retain their grad, or NULL */
    void *lists;           /* the call's lists and strings, owned */
    void *extra;           /* a special node's own data (copy_slices.c), freed with free_extra */
    void (*free_extra)(void *);
    /* engine scratch, valid during one backward pass */
    int deps, index;
    bool needed, seen;
    nt_tensor **buf;  /* [noutputs] gradients gathered for the outputs */
    void *outs_block; /* the outputs' metadata, allocated when the outputs exist */
};

/* ---- ag state (meta.c) ---- */

/* t's ag, made on first need; NULL when out of memory (error set). */
nt_ag_meta *nt_ag_meta_of(nt_tensor *t);
/* Frees t's ag (from nt_tensor_release). */
void nt_ag_meta_free(nt_tensor *t);
static inline bool nt_ag_requires(const nt_tensor *t) {
    return t->ag && t->ag->requires_grad;
}
/* Gives t (a result of node n, output nr) its history; t then requires grad. */
nt_status nt_ag_set_history(nt_tensor *t, nt_node *n, int nr);
/* Cuts t from its history and its base: a leaf that does not require grad (detach_). */
void nt_ag_detach(nt_tensor *t);
/* Checks that a gradient's names unify with its tensor's, with an error naming both. */
nt_status nt_ag_check_grad_names(const nt_tensor *grad, const nt_name *names, int ndim,
                                 const char *what);
/* PyTorch's legacy type name: "torch.FloatTensor". */
const char *nt_ag_type_name(nt_dtype dtype);
/* Thread-local grad mode. */
bool nt_ag_grad_mode(void);

/* ---- nodes (node.c) ---- */

nt_node *nt_node_retain(nt_node *n);
void nt_node_release(nt_node *n);
/* A node for `ninputs` flat inputs `inputs` (NULL entries: not tensors), with no call record
 * (a special node's, or before the recorder fills it); edges and input metadata are filled. */
nt_node *nt_node_alloc(const nt_vjp_row *vjp, int ninputs, nt_tensor *const *inputs);
/* The node's name, as PyTorch prints grad_fn.name(). */
const char *nt_node_name(const nt_node *n);
/* Whether the formula must compute the gradient of flat input k. */
static inline bool nt_node_wants(const nt_node *n, int k) {
    return n->edges[k].node || n->edges[k].leaf;
}
/* Flat input index of the tensor in call slot `slot` (its first, for a list). */
static inline int nt_node_input(const nt_node *n, int slot) {
    return n->first[slot];
}
/* The saved input in slot `slot` / the saved result j. */
nt_tensor *nt_node_saved(const nt_node *n, int slot);
nt_tensor *nt_node_result(const nt_node *n, int j);
/* Fills an edge for tensor t (which may not require grad). */
void nt_edge_of(nt_tensor *t, nt_edge *e);
/* Records the outputs' metadata (noutputs of them, NULL entries for no output). */
nt_status nt_node_set_outputs(nt_node *n, int noutputs, nt_tensor *const *outs);

/* ---- recording (record.c) ---- */

/* The dispatcher's autograd path: taken when some tensor requires grad (nt_ag_live > 0). */
nt_status nt_dispatch_grad(nt_call *c, const nt_op_row *row);

/* ---- special nodes (copy_slices.c) ---- */

/* A tensor's layout in its storage: what as_strided's formula reads of its input. */
typedef struct nt_ag_geom {
    int ndim;
    int64_t offset;
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
} nt_ag_geom;
/* Keeps t's geometry in n (its extra), before the op runs; the formula reads it back. */
nt_status nt_node_save_geometry(nt_node *n, const nt_tensor *t);
const nt_ag_geom *nt_node_geometry(const nt_node *n);

/* After in-place op `inner` wrote `view`, a recorded view of `base`: base's history becomes a
 * node that computes base's gradient around the written region, and view's history a view of
 * it. */
nt_status nt_ag_rebase_view(nt_tensor *view, nt_node *inner);

/* ---- engine helpers (engine.c) ---- */

/* Makes g fit input meta m: cast to its dtype, summed over broadcast dims, named as it. */
nt_status nt_ag_fit(nt_tensor *g, const nt_tmeta *m, nt_tensor **out);
/* Runs n's formula on the outputs' gradients `given` (NULL entries: none arrived; zeros are
 * made), after checking that its saved tensors are alive and unmodified. */
nt_status nt_node_apply(nt_node *n, nt_tensor *const *given, nt_tensor **gin);
/* Zeros of meta m. */
nt_status nt_ag_zeros(const nt_tmeta *m, nt_tensor **out);

#endif
