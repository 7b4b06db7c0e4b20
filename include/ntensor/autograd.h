/**
 * @file
 * ntensor/autograd.h — reverse-mode automatic differentiation with named gradients.
 *
 * A floating-point tensor may require grad. While grad mode is on (the default; per thread),
 * every op with an input that requires grad records a node of the graph: the op's call record,
 * what its backward formula needs (saved tensors, checked against in-place changes through the
 * storage's version counter) and edges to the nodes or leaves of its inputs. nt_backward walks
 * the graph from some outputs back to the leaves and accumulates into each leaf's grad, which
 * carries the leaf's names; nt_autograd_grad returns the gradients instead. Backward formulas are
 * written with the library's own ops, so with create_graph they are recorded too (higher-order
 * gradients).
 *
 * When no tensor requires grad, none of this costs more than one load per op. Part of the public
 * C API; include <ntensor.h>.
 */
#ifndef NTENSOR_AUTOGRAD_H
#define NTENSOR_AUTOGRAD_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- grad mode (thread-local) ---- */

/** Whether ops record the graph on this thread (true unless disabled or in inference mode). */
NT_API bool nt_is_grad_enabled(void);
/** Turns recording on or off for this thread; returns the previous setting of this flag (which
 * inference mode does not change). */
NT_API bool nt_set_grad_enabled(bool enabled);
/** Inference mode: recording off, as with grad disabled (PyTorch's inference_mode). Returns the
 * previous setting. */
NT_API bool nt_set_inference_mode(bool enabled);
/** Whether inference mode is on for this thread. */
NT_API bool nt_is_inference_mode_enabled(void);

/* ---- a tensor's autograd state ---- */

/* NULL tensors: the functions that return a status fail with NT_ERR_TYPE; the queries answer
 * false (nt_is_leaf: true), NULL or 0. */

/** Whether t requires grad: a leaf marked so, or the result of a recorded op. */
NT_API bool nt_requires_grad(const nt_tensor *t);
/** Marks a leaf (or unmarks it). Only floating-point tensors can require grad; a non-leaf
 * cannot be unmarked (PyTorch's texts). */
NT_API nt_status nt_set_requires_grad(nt_tensor *t, bool requires_grad);
/** Whether t is a leaf: it does not require grad, or it was marked by the user. */
NT_API bool nt_is_leaf(const nt_tensor *t);
/** t's accumulated gradient (a new reference), or NULL. */
NT_API nt_tensor *nt_grad(const nt_tensor *t);
/** Sets (or with NULL clears) t's gradient: same dtype and size as t, names that unify with t's
 * (the gradient then carries t's names). The tensor is kept, not copied, as PyTorch does. */
NT_API nt_status nt_set_grad(nt_tensor *t, nt_tensor *grad);
/** Makes a non-leaf keep its gradient in nt_grad during backward (no-op on a leaf). */
NT_API nt_status nt_retain_grad(nt_tensor *t);
/** Whether nt_retain_grad was called on the non-leaf `t`. */
NT_API bool nt_retains_grad(const nt_tensor *t);
/** The name of the node that produced t ("AddBackward0", as PyTorch prints it), or NULL for a
 * leaf or a tensor that does not require grad. */
NT_API const char *nt_grad_fn_name(const nt_tensor *t);

/** A node of the graph (PyTorch's grad_fn), refcounted. A node's inputs lead to the
 * nodes their gradients go to: nt_grad_fn_next gives input i's node (a new reference, and *nr
 * the output of it) or, for a leaf input, NULL and the leaf in *leaf (a new reference); both
 * NULL for an input that does not require grad. */
typedef struct nt_node nt_grad_fn;
/** The node that produced `t`: a new reference (release with nt_grad_fn_release), or NULL for a
 * leaf or a tensor that does not require grad. */
NT_API nt_grad_fn *nt_tensor_grad_fn(const nt_tensor *t);
/** Gives back a reference to a node. NULL is allowed. */
NT_API void nt_grad_fn_release(nt_grad_fn *fn);
/** The node's name ("MulBackward0"), valid while the node lives. */
NT_API const char *nt_grad_fn_name_of(const nt_grad_fn *fn);
/** The number of the node's inputs (PyTorch's len(next_functions)). */
NT_API int nt_grad_fn_num_next(const nt_grad_fn *fn);
/** Input `i` of the node (see above): its node as a new reference with *nr the output index in it,
 * or NULL with the leaf (a new reference) in *leaf; both NULL when input i needs no gradient. */
NT_API nt_grad_fn *nt_grad_fn_next(const nt_grad_fn *fn, int i, int *nr, nt_tensor **leaf);

/** A gradient hook: called with the gradient flowing into t during backward; it may leave
 * *replacement NULL (keep the gradient) or set a new reference that replaces it (its names must
 * unify with t's). A failing hook stops the backward pass with its status. */
typedef nt_status (*nt_grad_hook)(void *ctx, nt_tensor *grad, nt_tensor **replacement);
/** Registers a hook on a tensor that requires grad; *id identifies it for nt_remove_hook.
 * free_ctx (may be NULL) runs on ctx when the hook is removed or its tensor's graph dies. */
NT_API nt_status nt_register_hook(nt_tensor *t, nt_grad_hook hook, void *ctx,
                                  void (*free_ctx)(void *ctx), int64_t *id);
/** Removes hook `id` of t; false when t has no such hook (already removed). */
NT_API bool nt_remove_hook(nt_tensor *t, int64_t id);

/* ---- running backward ---- */

/** Accumulates d(sum of outputs[i] * grads[i]) / d(leaf) into the grad of every leaf the
 * outputs depend on (only into `inputs` when ninputs > 0). grads may be NULL, or have NULL
 * entries, for outputs with one element (a gradient of 1). Without retain_graph the graph's
 * saved tensors are freed; with create_graph the backward pass is itself recorded.
 * @param n the number of outputs
 * @param outputs n tensors that require grad (borrowed)
 * @param grads NULL, or n gradients (borrowed; NULL entries for one-element outputs), each of
 *        its output's shape and with names that match the output's
 * @param retain_graph keep the graph (and its saved tensors) for another backward pass
 * @param create_graph record the backward pass itself (for higher derivatives)
 * @param ninputs 0 for every leaf, or the number of `inputs`
 * @param inputs the leaves (or non-leaves) whose grad receives the result (borrowed)
 * @return NT_OK; NT_ERR_RUNTIME with PyTorch's text for an output that does not require grad,
 *         a graph already freed, a saved tensor modified in place, or a gradient whose shape
 *         or names do not match */
NT_API nt_status nt_backward(int n, nt_tensor *const *outputs, nt_tensor *const *grads,
                             bool retain_graph, bool create_graph, int ninputs,
                             nt_tensor *const *inputs);
/** The gradients of the outputs with respect to each of `inputs` (new references, in
 * grads_out[0..ninputs)), without touching any grad. An input the outputs do not depend on is an
 * error unless allow_unused (then its entry is NULL).
 * @param n,outputs,grads the outputs and their gradients, as for nt_backward
 * @param ninputs,inputs the tensors to differentiate with respect to (borrowed)
 * @param retain_graph,create_graph as for nt_backward
 * @param allow_unused give NULL for an input the outputs do not depend on, instead of failing
 * @param[out] grads_out room for ninputs tensors: new references, each released by the caller
 *             with nt_tensor_release (NULL entries allowed); untouched on failure */
NT_API nt_status nt_autograd_grad(int n, nt_tensor *const *outputs, nt_tensor *const *grads,
                                  int ninputs, nt_tensor *const *inputs, bool retain_graph,
                                  bool create_graph, bool allow_unused, nt_tensor **grads_out);

#ifdef __cplusplus
}
#endif

#endif
