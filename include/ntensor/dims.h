/**
 * @file
 * ntensor/dims.h — first-class dimensions (functorch.dim's model, in C).
 *
 * A first-class dim (nt_fcdim) is a refcounted object with a name and a size that binds once.
 * A tensor with first-class dims is an ordinary tensor whose leading physical dims are those
 * dims (its "levels"); its positional dims follow. Positional queries of the public API
 * (nt_tensor_ndim, nt_tensor_sizes, nt_tensor_strides, nt_tensor_names) describe the
 * positional dims only; nt_tensor_levels lists the first-class ones.
 *
 * Every op of the op table accepts tensors with levels: the dispatcher aligns the union of
 * the arguments' dims (stride-0 views, no copies), runs the positional op (views, joins and
 * indexing with their dim and size arguments moved past the union; other ops once per
 * element of the union, the results stacked), and gives the result the dims that remain
 * (implicit batching). Where an op takes a dim, a first-class dim goes as nt_dim_fc(d).
 * In-place forms need self to have every dim of the call; out= tensors need the result's
 * dims and shape. as_strided, item and is_nonzero refuse tensors with levels
 * (NT_ERR_NOT_IMPLEMENTED naming the op).
 *
 * The type is nt_fcdim, not nt_dim: nt_dim is the library's dim argument (an index or a name,
 * ntensor/core.h), which also encodes a first-class dim (nt_dim_fc). Part of the public C API;
 * include <ntensor.h>.
 */
#ifndef NTENSOR_DIMS_H
#define NTENSOR_DIMS_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A first-class dim: opaque and refcounted (nt_fcdim_new, nt_fcdim_retain, nt_fcdim_release). */
typedef struct nt_fcdim nt_fcdim;

/** A new dim named `name` (copied; at most 63 bytes used) of `size` (-1: unbound, else >= 0),
 * with one reference. */
NT_API nt_status nt_fcdim_new(const char *name, int64_t size, nt_fcdim **out);
/** Takes one more reference to `d`. */
NT_API void nt_fcdim_retain(nt_fcdim *d);
/** Gives back one reference; the last frees the dim. NULL is allowed. */
NT_API void nt_fcdim_release(nt_fcdim *d);
/** A binding's object for the dim (the Python Dim), borrowed: NULL until set; the binding
 * clears it before its object goes away, so one dim is one object. */
NT_API void *nt_fcdim_handle(const nt_fcdim *d);
/** Sets the binding's object (see nt_fcdim_handle). */
NT_API void nt_fcdim_set_handle(nt_fcdim *d, void *handle);
/** Its name, valid while d lives. */
NT_API const char *nt_fcdim_name(const nt_fcdim *d);
/** Its size, or -1 while unbound. */
NT_API int64_t nt_fcdim_size(const nt_fcdim *d);
/** True once the dim has a size. */
NT_API bool nt_fcdim_is_bound(const nt_fcdim *d);
/** Binds d to `size`. Binding again to the same size is a no-op; to another, NT_ERR_DIM_BIND
 * "Dim 'i' previously bound to a dimension of size 3 cannot bind to a dimension of size 4";
 * a negative size NT_ERR_VALUE. */
NT_API nt_status nt_fcdim_set_size(nt_fcdim *d, int64_t size);
/** Its size where one is needed: NT_ERR_VALUE "dimension i is unbound" while unbound. */
NT_API nt_status nt_fcdim_get_size(const nt_fcdim *d, int64_t *out);

/** A first-class dim as a dim argument (nt_dim) of any op: sum(t, 1, &nt_dim_fc(i), ...).
 * The pointer is tagged into the range between names (the lowest 2^32 values) and indices:
 * user-space pointers are below 2^62 on every 64-bit platform. The dim must outlive the call. */
#define NT_DIM_FC_BASE (INT64_MIN + ((int64_t)1 << 32))
/** The dim `d` as a dim argument (the tagging above). */
static inline nt_dim nt_dim_fc(const nt_fcdim *d) {
    return NT_DIM_FC_BASE + (int64_t)(intptr_t)d;
}
/** True when the dim argument `d` holds a first-class dim. */
static inline bool nt_dim_is_fc(nt_dim d) {
    return d >= NT_DIM_FC_BASE && d < INT64_MIN + ((int64_t)1 << 62);
}
/** The first-class dim a dim argument holds (borrowed; valid when nt_dim_is_fc(d)). */
static inline nt_fcdim *nt_dim_to_fc(nt_dim d) {
    return (nt_fcdim *)(intptr_t)(d - NT_DIM_FC_BASE);
}

/** The first-class dims of t, in their physical order: their count (0 for an ordinary
 * tensor), and when `dims` is not NULL, the dims themselves (borrowed; room for
 * NT_MAX_DIMS). */
NT_API int nt_tensor_levels(const nt_tensor *t, nt_fcdim **dims);

/** The order t's dims print in (functorch.dim's level order: the order dims were bound in
 * among the positional dims, or what functorch's vmap makes of an op's result; Python's repr
 * and Tensor.dims follow it): seq[p] is the first-class dim printed at position p, or NULL
 * where a positional dim prints (the positional dims print in their order). Returns the
 * number of entries, the positional and first-class dims together; `seq` (room for
 * NT_MAX_DIMS, borrowed dims) may be NULL. */
NT_API int nt_tensor_print_order(const nt_tensor *t, nt_fcdim **seq);

/** One entry of an index that binds dims (t[i, (j, k), 1:3, 0, ..., None, idx]). */
typedef enum nt_bind_kind {
    NT_BIND_DIM,      /**< a dim: binds one positional dim */
    NT_BIND_PACK,     /**< a pack of dims splitting one positional dim (one unsized dim inferred) */
    NT_BIND_SLICE,    /**< a slice start:stop:step (step 0: the full slice ':'): keeps one
                         positional dim, a view */
    NT_BIND_INT,      /**< an index: selects in one positional dim */
    NT_BIND_ELLIPSIS, /**< '...': keeps the positional dims no other entry takes */
    NT_BIND_NONE,     /**< None: a new positional dim of size one */
    NT_BIND_TENSOR,   /**< an index tensor: int64 (with or without positional dims and
                         first-class dims: a dim expression i - 1, input[batch, seq], a plain
                         tensor, t[k]) gathers in one positional dim; bool or uint8 without
                         first-class dims is a mask over as many positional dims as it has
                         (0-dim: True or False, a new dim) */
} nt_bind_kind;

/** One index entry for nt_tensor_bind; `kind` says which other fields are read. A
 * zero-initialised spec of kind NT_BIND_SLICE is the full slice ':'. */
typedef struct nt_bind_spec {
    /** What the entry is. */
    nt_bind_kind kind;
    int n;                 /**< PACK: the number of dims */
    nt_fcdim *dim;         /**< DIM */
    nt_fcdim *const *pack; /**< PACK */
    int64_t index;         /**< INT (negative counts from the end) */
    nt_tensor *tensor;     /**< TENSOR */
    /** @{ */
    /** SLICE: Python's start, stop (NT_SLICE_END of ntensor/index.h: to the end) and step
     * (> 0), clamped to the dim as Python and PyTorch clamp them; step 0 is the full slice
     * ':' (start and stop unread). */
    int64_t start, stop, step;
    /** @} */
} nt_bind_spec;

/** t indexed by `n` specs: PyTorch's indexing of the positional dims, run per element of the
 * first-class dims involved. Without tensor specs the result is a view of t whose dims bound
 * here (and t's own) lead, then the positional dims kept (sliced), in order (they print
 * where they were bound: nt_tensor_print_order); a dim bound
 * twice (here or in t) takes the diagonal; unbound dims take their sizes. With tensor specs
 * it is a gather (a new tensor) whose dims are the union of the view's and the index
 * tensors' (the index tensors' coming where the first tensor spec is: functorch's order),
 * and whose positional dims are those of PyTorch's indexing on each element of that union:
 * the index tensors' positional dims broadcast from the right and go where the first of
 * them is when no slice, None or '...' that keeps a dim sits between them, else first; an
 * index tensor without positional dims selects, as an int does.
 *
 * Errors as functorch.dim's: "at least 3 indices were supplied but the tensor only has 2
 * dimensions" (NT_ERR_VALUE; a mask counts its dims), the pack's size errors and rebinding
 * (NT_ERR_DIM_BIND). PyTorch's for the rest: "step must be greater than zero"
 * (NT_ERR_VALUE); NT_ERR_INDEX for "index 5 is out of bounds for dimension 0 with size 3"
 * (the dimension of an index tensor counts the tensor specs, a mask as its dims), "shape
 * mismatch: indexing tensors could not be broadcast together with shapes [2], [3]",
 * "tensors used as indices must be long, byte or bool tensors", "The shape of the mask [4]
 * at index 0 does not match the shape of the indexed tensor [4, 6] at index 1" (the
 * positional dims after binding). A bool scalar (a 0-dim bool or uint8 tensor: Python's True
 * and False) is PyTorch's: a new positional dim of size one, indexed by [0] or [] (size 0),
 * taking no dim of t. A mask with first-class dims (its count of true elements could differ
 * along them) is NT_ERR_NOT_IMPLEMENTED. Recorded by autograd (a view, or an index).
 * @param t the tensor (borrowed; a view shares its storage)
 * @param n the number of specs
 * @param specs the index entries; their dims and tensors are borrowed
 * @param[out] out the view or the gathered tensor, a new reference */
NT_API nt_status nt_tensor_bind(nt_tensor *t, int n, const nt_bind_spec *specs, nt_tensor **out);

/** nt_tensor_bind of n dims (t[i, k]) for a binding that calls it per index, as a language
 * binding's indexing does: when the dims are distinct and bind every dim of t, which has no
 * first-class dims and records nothing, the view borrows: it takes no reference on t's
 * storage nor on the dims, and the caller keeps t and the dims alive for as long as the
 * view's first reference lives (the Python module keeps them with the result's object). A
 * retain (nt_tensor_retain) makes the view take its own references, so every other holder
 * is an owner as usual; t moved to another storage meanwhile (nt_tensor_set_data) keeps the
 * one it lent until it dies. Otherwise it is nt_tensor_bind's view. Two locked instructions
 * and the dims' counts fewer per call.
 * @param t the tensor (borrowed, see above)
 * @param n the number of dims
 * @param dims n dims (borrowed, see above)
 * @param[out] out the view, a new reference */
NT_API nt_status nt_tensor_bind_borrowing(nt_tensor *t, int n, nt_fcdim *const *dims,
                                          nt_tensor **out);

/** t[specs] = value, in place (functorch.dim's __setitem__): for each element of the union U of
 * the dims involved (t's, the index's, the index tensors'), PyTorch's positional assignment
 * t_e[index_e] = value_e, written into t's storage (views of t see it). The specs are read and
 * their dims bound as nt_tensor_bind reads them (its errors first); `value` (its dtype
 * converted to t's) may have any of U's dims, the others broadcast, and its positional dims
 * broadcast from the right to those of t[specs] (one element's). Errors as functorch 1.13's:
 * NT_ERR_DIM_BIND "rhs of setitem contains dimension k which is not in the dimension on the
 * left ((i, -1))" (the left side's dims and positional dims as functorch prints them), and
 * "rhs contains too many dimensions (1) compared to indexed value (2)" (its numbers: the left
 * side's positional dims, then value's); a size that does not broadcast, NT_ERR_RUNTIME "The
 * size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 2" (the
 * dimension counted in the printed left side), or with tensor specs "shape mismatch: value
 * tensor of shape [3, 4] cannot be broadcast to indexing result of shape [2, 3, 3]" (PyTorch's
 * index_put_ text, shapes laid out [U, positional]). A position written by several elements
 * of U (an index tensor with a dim t lacks) takes one of their values, as index_put_ does. One
 * index_put_ on t: autograd records it (a leaf that requires grad refuses: "a leaf Variable
 * that requires grad is being used in an in-place operation."), the version grows by one.
 * @param t the tensor written (borrowed)
 * @param n the number of specs
 * @param specs the index entries (see nt_tensor_bind); their dims and tensors are borrowed
 * @param value the value (borrowed; a 0-dim tensor for a number) */
NT_API nt_status nt_tensor_bind_set_(nt_tensor *t, int n, const nt_bind_spec *specs,
                                     const nt_tensor *value);
/** nt_tensor_bind_set_ with a number, converted to t's dtype with PyTorch's overflow check. */
NT_API nt_status nt_tensor_bind_set_scalar_(nt_tensor *t, int n, const nt_bind_spec *specs,
                                            nt_scalar value);

/** t with the dims of `ngroups` groups placed first as positional dims, in order: group g
 * holds counts[g] entries of `dims`, each a first-class dim (nt_dim_fc) or a positional index
 * of t; a group of several is flattened into one dim (a view when possible, else a copy).
 * The other positional dims follow; the other first-class dims stay. Ordering all of t's
 * dims gives an ordinary tensor. "tensor of dimensions (i, j) does not contain dim k or it
 * was specified twice" (NT_ERR_VALUE). */
NT_API nt_status nt_tensor_order(nt_tensor *t, int ngroups, const int *counts, const nt_dim *dims,
                                 nt_tensor **out);

/** The dim as a tensor: int64 values 0 .. size-1 whose only dim is d (d must be bound). */
NT_API nt_status nt_fcdim_tensor(nt_fcdim *d, nt_tensor **out);

/** t's values with every first-class dim made a positional dim, in the order t prints
 * (nt_tensor_print_order; an ordinary view: what printing shows). */
NT_API nt_status nt_tensor_unlevel(nt_tensor *t, nt_tensor **out);

/** t.expand(*dims) of functorch.dim: t repeated along `n` new first-class dims (a view, stride
 * 0), which lead and print first, in the order given, before t's levels in their order (its
 * positional dims unchanged). Errors as functorch 1.13's: a dim t already has, or one given
 * twice, is NT_ERR_DIM_BIND "expanding dimension i already exists in tensor with dims"; an
 * unbound dim NT_ERR_VALUE "dimension i is unbound". Recorded by autograd (a view). */
NT_API nt_status nt_tensor_expand_dims(nt_tensor *t, int n, nt_fcdim *const *dims, nt_tensor **out);

/** (a * b).sum(sum_dims) for tensors with first-class dims and no positional dims, computed
 * as one batched matrix product: the dims of both that are not summed are the batch, a's
 * others the rows, b's others the columns, the summed dims of both the contraction (a summed
 * dim of one only is summed there first). The result's levels are (batch, rows, columns).
 * Tensors of two dtypes, or with positional dims, take the product and the sum as they are.
 * Every sum dim must be a dim of a or b ("... does not contain dim k", NT_ERR_VALUE). */
NT_API nt_status nt_dims_dot(nt_tensor *a, nt_tensor *b, int nsum, nt_fcdim *const *sum_dims,
                             nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_DIMS_H */
