/*
 * op_table.h — the op table (layer L4): what the library knows about each op, one row per
 * op, from the op list include/ntensor/ops.def, and the functions the rows name.
 *
 * A row says what an op is (name, kind, arity, name rule, dtype rule, flags, PyTorch's
 * kernel name for its "not implemented" errors), how it is called (its schema: the slots
 * of nt_call.args; its Python signatures, from which the Python module is generated) and
 * who runs it: `impl`, the function of the op's family that reads the call record, and an
 * optional `check` run first, and its shape rule (`shape`, ops/shape.h: NULL when the rule
 * of its kind applies). Layers key their own tables by the op's id: kernels by op and
 * dtype in src/kernels, the Python binding by the schema.
 */
#ifndef NT_OPS_OP_TABLE_H
#define NT_OPS_OP_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "names/infer.h"
#include "ntensor.h"
#include "ntensor/call.h"
#include "ops/shape.h"

/* How an op's result dtype follows from its inputs'. */
typedef enum nt_dtype_rule {
    NT_DT_SAME,    /* the input's dtype; an out= tensor must have exactly that dtype */
    NT_DT_FLOAT,   /* integers and bool compute in the default float dtype; an out= tensor
                      may be any floating dtype (the result is cast to it) */
    NT_DT_BOOL,    /* a bool result; an out= tensor may have any dtype */
    NT_DT_PROMOTE, /* PyTorch's result_type of the inputs */
} nt_dtype_rule;

typedef nt_status (*nt_op_impl)(nt_call *c);
typedef nt_status (*nt_op_check)(const nt_call *c);

/* How the dispatcher batches an op over first-class dims (dims/batch.c). BY_KIND: from
 * .kind (pointwise: POINTWISE; reductions and scans: by their dim slot; views and splits:
 * SHIFT; joins of a Tensor[]: JOIN; any other: LOOP); the others for rows that need another
 * rule. */
typedef enum nt_batch_rule {
    NT_BATCH_BY_KIND = 0,
    NT_BATCH_POINTWISE, /* elementwise on its tensors (clone, contiguous, dropout, ...) */
    NT_BATCH_MATMUL,    /* the matrix products: vectors and matrices batched through matmul */
    NT_BATCH_NONE,      /* not batched: a clear error (readers of memory: as_strided, item) */
    NT_BATCH_SHIFT,     /* self's dims lead: dim arguments shift past them, a size gets their
                           sizes in front (views, splits, ops on the trailing dims) */
    NT_BATCH_PERMUTE,   /* SHIFT, and the Dim[] slot (a whole permutation) gets them in front */
    NT_BATCH_JOIN,      /* a Tensor[] aligned to the union, the dim shifted (cat) */
    NT_BATCH_STACK,     /* JOIN with a new dim (stack: the dim ranges over one more) */
    NT_BATCH_INDEX,     /* t[...]: full slices over the dims in front of the index */
    NT_BATCH_LOOP,      /* one call per element of the dims, the results stacked (any op) */
    NT_BATCH_PHYSICAL,  /* the call as it is on the tensor with its dims (requires_grad_) */
} nt_batch_rule;

typedef struct nt_op_row {
    const char *name;
    const char *schema;
    const char *python;
    nt_op_kind kind;
    uint8_t arity;
    nt_name_rule names;
    nt_dtype_rule dtypes;
    unsigned flags, extra_flags;
    const char *kernel;
    nt_op_impl impl;
    nt_op_check check;
    nt_op_shape shape;
    uint8_t batch; /* nt_batch_rule: how first-class dims batch the op (dims/batch.c) */
} nt_op_row;

extern const nt_op_row nt_op_rows[NT_OP_COUNT];

/* What a row's schema says of its slots, parsed once (nt_op_slots_of): what each accepts
 * (the dispatcher's check of a record) and where the slots named "dim", "keepdim" and
 * "size" are (the kinds' shape rules). */
typedef struct nt_slot_info {
    int8_t kind;     /* nt_arg_kind, -1: an "Operand" (tensor or scalar) */
    bool allow_none; /* "Type?" or a default */
} nt_slot_info;

typedef struct nt_op_slots {
    bool ok; /* the schema parsed */
    int nslots;
    nt_slot_info slots[NT_CALL_MAX_ARGS];
    unsigned tensor_slots;     /* bit i: slot i may hold a tensor or a list of them */
    unsigned dim_slots;        /* bit i: slot i is a Dim or Dim[] (may hold first-class dims) */
    int8_t dim, keepdim, size; /* the slots of these names, or -1 */
    bool dim_has_default;      /* "Dim dim=-1": dim_default when the slot is not given */
    int64_t dim_default;
} nt_op_slots;

/* The parsed schemas (op_table.c), made on first use. */
extern nt_op_slots nt_op_slots_table[NT_OP_COUNT];
extern _Atomic bool nt_op_slots_ready;
void nt_op_slots_parse(void);

/* The parsed schema of a valid op. Inline: the binding's every call reads it. */
static inline const nt_op_slots *nt_op_slots_of(nt_op op) {
    if (!atomic_load_explicit(&nt_op_slots_ready, memory_order_acquire)) nt_op_slots_parse();
    return &nt_op_slots_table[op];
}

/* The op's row; the caller has checked that op is valid. */
static inline const nt_op_row *nt_op_row_of(nt_op op) {
    return &nt_op_rows[op];
}

/* ---- the functions the rows name, by family ---- */

/* unary.c */
nt_status nt_impl_unary(nt_call *c);
nt_status nt_impl_round_decimals(nt_call *c);
nt_status nt_impl_positive(nt_call *c);
nt_status nt_impl_polygamma(nt_call *c);
nt_status nt_check_neg(const nt_call *c);
nt_status nt_check_relu(const nt_call *c);

/* binary.c, ternary.c: pointwise binary and ternary */
nt_status nt_impl_binary(nt_call *c);
nt_status nt_check_sub(const nt_call *c);
nt_status nt_impl_where(nt_call *c);
nt_status nt_impl_clamp(nt_call *c);
nt_status nt_impl_isclose(nt_call *c);
nt_status nt_impl_threshold(nt_call *c);
nt_status nt_impl_addc(nt_call *c);
nt_status nt_impl_equal(nt_call *c);
nt_status nt_impl_lerp(nt_call *c);

/* end */

/* reduce*.c, scan.c, softmax.c, sort: reductions and scans */
/* reduce.c */
nt_status nt_impl_reduce(nt_call *c);
nt_status nt_impl_moments(nt_call *c);
nt_status nt_impl_extreme_all(nt_call *c);
/* reduce_arg.c */
nt_status nt_impl_extreme_other(nt_call *c);
nt_status nt_impl_extreme_dim(nt_call *c);
nt_status nt_impl_argextreme(nt_call *c);
/* reduce_sort.c */
nt_status nt_impl_median_all(nt_call *c);
nt_status nt_impl_sorted(nt_call *c);
nt_status nt_impl_topk(nt_call *c);
nt_status nt_impl_sort(nt_call *c);
/* scan.c */
nt_status nt_impl_scan(nt_call *c);
nt_status nt_impl_cumextreme(nt_call *c);
/* softmax.c */
nt_status nt_impl_softmax(nt_call *c);

/* end */

/* view.c, copy.c, names: views, names, copies */
nt_status nt_impl_transpose(nt_call *c);
nt_status nt_impl_t(nt_call *c);
nt_status nt_impl_permute(nt_call *c);
nt_status nt_impl_expand(nt_call *c);
nt_status nt_impl_expand_as(nt_call *c);
nt_status nt_impl_squeeze(nt_call *c);
nt_status nt_impl_unsqueeze(nt_call *c);
nt_status nt_impl_select(nt_call *c);
nt_status nt_impl_narrow(nt_call *c);
nt_status nt_impl_view_dtype(nt_call *c);
nt_status nt_impl_view(nt_call *c);
nt_status nt_impl_reshape(nt_call *c);
nt_status nt_impl_as_strided(nt_call *c);
nt_status nt_impl_diagonal(nt_call *c);
nt_status nt_impl_movedim(nt_call *c);
nt_status nt_impl_unfold(nt_call *c);
nt_status nt_impl_is_same_size(nt_call *c);
nt_status nt_impl_rename(nt_call *c);
nt_status nt_impl_rename_map(nt_call *c);
nt_status nt_impl_refine_names(nt_call *c);
nt_status nt_impl_align_to(nt_call *c);
nt_status nt_impl_align_as(nt_call *c);
nt_status nt_impl_flatten(nt_call *c);
nt_status nt_impl_unflatten(nt_call *c);
nt_status nt_impl_copy(nt_call *c);
nt_status nt_impl_contiguous(nt_call *c);
nt_status nt_impl_clone(nt_call *c);

/* end */

/* index.c, index_fill.c, mask.c, join.c, resize.c: indexing, masks, joins */
nt_status nt_impl_index_fill(nt_call *c);
nt_status nt_impl_index(nt_call *c);
nt_status nt_impl_index_put(nt_call *c);
nt_status nt_impl_masked_fill(nt_call *c);
nt_status nt_impl_masked_select(nt_call *c);
nt_status nt_impl_cat(nt_call *c);
nt_status nt_impl_stack(nt_call *c);
nt_status nt_impl_split(nt_call *c);
nt_status nt_impl_resize(nt_call *c);
/* gather.c: the index family */
nt_status nt_impl_gather(nt_call *c);
nt_status nt_impl_scatter(nt_call *c);
nt_status nt_impl_index_select(nt_call *c);
nt_status nt_impl_index_add(nt_call *c);
nt_status nt_impl_take_along_dim(nt_call *c);
/* search.c, mask.c */
nt_status nt_impl_unique(nt_call *c);
nt_status nt_impl_searchsorted(nt_call *c);
nt_status nt_impl_nonzero(nt_call *c);
nt_status nt_impl_masked_scatter(nt_call *c);

/* end */

/* linalg_*.c, pool.c: matrix products and pooling */
nt_status nt_impl_mm(nt_call *c);
nt_status nt_impl_mv(nt_call *c);
nt_status nt_impl_dot(nt_call *c);
nt_status nt_impl_bmm(nt_call *c);
nt_status nt_impl_matmul(nt_call *c);
nt_status nt_impl_addmm(nt_call *c);
nt_status nt_impl_addmv(nt_call *c);
nt_status nt_impl_max_pool(nt_call *c);
nt_status nt_impl_cdist(nt_call *c);
nt_status nt_impl_pdist(nt_call *c);

/* end */

/* factory.c, random*.c, convert: factories, random, conversions */
nt_status nt_impl_empty(nt_call *c);
nt_status nt_impl_zeros(nt_call *c);
nt_status nt_impl_ones(nt_call *c);
nt_status nt_impl_full(nt_call *c);
nt_status nt_impl_arange(nt_call *c);
nt_status nt_impl_empty_like(nt_call *c);
nt_status nt_impl_zeros_like(nt_call *c);
nt_status nt_impl_ones_like(nt_call *c);
nt_status nt_impl_full_like(nt_call *c);
nt_status nt_impl_rand(nt_call *c);
nt_status nt_impl_randn(nt_call *c);
nt_status nt_impl_rand_like(nt_call *c);
nt_status nt_impl_randn_like(nt_call *c);
nt_status nt_impl_normal_sized(nt_call *c);
nt_status nt_impl_uniform_(nt_call *c);
nt_status nt_impl_normal_(nt_call *c);
nt_status nt_impl_cauchy_(nt_call *c);
nt_status nt_impl_exponential_(nt_call *c);
nt_status nt_impl_geometric_(nt_call *c);
nt_status nt_impl_log_normal_(nt_call *c);
nt_status nt_impl_bernoulli_tensor_(nt_call *c);
nt_status nt_impl_bernoulli_(nt_call *c);
nt_status nt_impl_random_(nt_call *c);
nt_status nt_impl_bernoulli(nt_call *c);
nt_status nt_impl_bernoulli_p(nt_call *c);
nt_status nt_impl_normal_tensors(nt_call *c);
nt_status nt_impl_dropout(nt_call *c);
nt_status nt_impl_is_nonzero(nt_call *c);
nt_status nt_impl_fill_(nt_call *c);
nt_status nt_impl_zero_(nt_call *c);
nt_status nt_impl_item(nt_call *c);
nt_status nt_impl_to_dtype(nt_call *c);
nt_status nt_impl_to_method(nt_call *c);
nt_status nt_impl_query(nt_call *c);
nt_status nt_impl_dim_query(nt_call *c);
nt_status nt_impl_type_as(nt_call *c);
nt_status nt_impl_detach(nt_call *c);
nt_status nt_impl_same(nt_call *c);
nt_status nt_impl_requires_grad_(nt_call *c);
nt_status nt_impl_detach_(nt_call *c); /* autograd/grad_ops.c, with requires_grad_ */

/* end */

/* activation.c, layer_norm.c, embedding.c, loss.c, linalg_linear.c: neural-network ops */
nt_status nt_impl_gelu(nt_call *c);
nt_status nt_impl_silu(nt_call *c);
nt_status nt_impl_activation_backward(nt_call *c);
nt_status nt_impl_layer_norm(nt_call *c);
nt_status nt_impl_layer_norm_backward(nt_call *c);
nt_status nt_impl_embedding(nt_call *c);
nt_status nt_impl_embedding_dense_backward(nt_call *c);
nt_status nt_impl_nll_loss(nt_call *c);
nt_status nt_impl_nll_loss_backward(nt_call *c);
nt_status nt_impl_linear(nt_call *c);

/* optim.c: fused optimizer steps */
nt_status nt_impl_fused_sgd(nt_call *c);
nt_status nt_impl_fused_adam(nt_call *c);

/* end */

/* arrange.c, grid.c, norm.c: the shape and factory family (flip, roll, repeat, tile, triu,
 * tril, outer; eye, linspace, logspace) and their shape rules */
nt_status nt_impl_flip(nt_call *c);
nt_status nt_impl_roll(nt_call *c);
nt_status nt_impl_repeat(nt_call *c);
nt_status nt_impl_triangle(nt_call *c);
nt_status nt_impl_outer(nt_call *c);
nt_status nt_impl_eye(nt_call *c);
nt_status nt_impl_linspace(nt_call *c);
nt_status nt_shape_repeat(const nt_call *c, nt_shape *s);
nt_status nt_shape_outer(const nt_call *c, nt_shape *s);
nt_status nt_shape_eye(const nt_call *c, nt_shape *s);
nt_status nt_shape_linspace(const nt_call *c, nt_shape *s);
/* new_*, diag, one_hot, norm (arrange.c, grid.c), randint, randperm (grid.c) */
nt_status nt_impl_new_sized(nt_call *c);
nt_status nt_impl_diag(nt_call *c);
nt_status nt_impl_one_hot(nt_call *c);
nt_status nt_impl_norm(nt_call *c);
nt_status nt_impl_randint(nt_call *c);
nt_status nt_impl_randperm(nt_call *c);
nt_status nt_shape_new_sized(const nt_call *c, nt_shape *s);
nt_status nt_shape_diag(const nt_call *c, nt_shape *s);
nt_status nt_impl_diag_embed(nt_call *c);
nt_status nt_shape_diag_embed(const nt_call *c, nt_shape *s);
nt_status nt_shape_one_hot(const nt_call *c, nt_shape *s);
nt_status nt_shape_randint(const nt_call *c, nt_shape *s);
nt_status nt_shape_randperm(const nt_call *c, nt_shape *s);
/* pad.c: nn.functional.pad */
nt_status nt_impl_pad(nt_call *c);
nt_status nt_shape_pad(const nt_call *c, nt_shape *s);
/* einsum.c */
nt_status nt_impl_einsum(nt_call *c);
nt_status nt_shape_einsum(const nt_call *c, nt_shape *s);
/* arrange.c: repeat_interleave */
nt_status nt_impl_repeat_interleave(nt_call *c);
nt_status nt_shape_repeat_interleave(const nt_call *c, nt_shape *s);

/* end */

#endif
