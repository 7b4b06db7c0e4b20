/*
 * infer.h — name inference: the rules of the spec's name_inference_rules.md, on interned
 * name ids, for the operators to call before they run their kernels.
 *
 * Conventions shared by every function here:
 *  - An input name list is `const nt_name *` with one entry per dim, or NULL for "unnamed"
 *    (all None), exactly like nt_tensor.names. NT_NAME_NONE (0) is the None wildcard.
 *  - Results go into a caller buffer `nt_name out[NT_MAX_DIMS]` that must not alias an
 *    input. `*result` (or the return value) is then `out`, or NULL when no input was named:
 *    name inference did not run and the result is unnamed. The NULL tests that decide this
 *    are inline below, so an op on unnamed tensors pays one pointer test per input.
 *  - A non-NULL result may hold only None entries (('N', None).sum('N') gives (None,)).
 *    That still counts as "inference ran", which matters for out= (nt_names_check_out).
 *  - Errors are NT_ERR_RUNTIME with PyTorch 1.13's texts, operands in PyTorch's order.
 *
 * The out-of-line *_slow functions do the work when some input is named; they accept
 * NULL lists (read as all None) and may be called directly.
 */
#ifndef NT_NAMES_INFER_H
#define NT_NAMES_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "ntensor.h"

/* The rule families of operator_coverage.md, for op tables. Append-only. */
typedef enum nt_name_rule {
    NT_NAME_RULE_NONE = 0, /* no inference: the op returns no tensor or an unnamed one */
    NT_NAME_RULE_KEEP,     /* keeps input names */
    NT_NAME_RULE_REMOVE,   /* removes dimensions: nt_names_remove_dims */
    NT_NAME_RULE_UNIFY,    /* unifies names from inputs: nt_names_unify_from_right / _many */
    NT_NAME_RULE_PERMUTE,  /* permutes dimensions: nt_names_permute / _transpose */
    NT_NAME_RULE_CONTRACT, /* contracts away dims: nt_names_matmul / nt_names_addmm */
    NT_NAME_RULE_FACTORY,  /* factory functions: names come from the caller */
    NT_NAME_RULE_MASK,     /* aligns mask up to input, then unifies: nt_names_masked_* */
    NT_NAME_RULE_OUT,      /* out= and in-place variants (copy_): nt_names_check_out */
    NT_NAME_RULE_COUNT
} nt_name_rule;

/* ------------------------------------------------------------------ match and unify */

/* Two names match when they are equal or at least one is None. */
static inline bool nt_name_match(nt_name a, nt_name b) {
    return a == b || a == NT_NAME_NONE || b == NT_NAME_NONE;
}

/* The more specific of two names that match (the caller checked nt_name_match). */
static inline nt_name nt_name_unify(nt_name a, nt_name b) {
    return a != NT_NAME_NONE ? a : b;
}

/* ------------------------------------------------------------------ unifies names */

/* "Unifies names from inputs" (PyTorch's unify_from_right) for `action` ("broadcast",
 * "cat"): pairs names from the right; a pair must match, and a name paired with None must
 * not appear anywhere in the other list. out gets max(a_ndim, b_ndim) names. */
nt_status nt_names_unify_from_right_slow(const char *action, const nt_name *a, int a_ndim,
                                         const nt_name *b, int b_ndim, nt_name *out);

/* Binary broadcasting ops (add, mul, eq, pow, atan2, ...): names of `a op b`. */
static inline nt_status nt_names_unify_from_right(const nt_name *a, int a_ndim, const nt_name *b,
                                                  int b_ndim, nt_name out[NT_MAX_DIMS],
                                                  int *out_ndim, const nt_name **result) {
    *out_ndim = a_ndim > b_ndim ? a_ndim : b_ndim;
    if (!a && !b) {
        *result = NULL;
        return NT_OK;
    }
    *result = out;
    return nt_names_unify_from_right_slow("broadcast", a, a_ndim, b, b_ndim, out);
}

/* The same rule folded left to right over `count` lists, the accumulated names always
 * first in messages: TensorIterator's rule for ops with more inputs, and torch.cat's with
 * action "cat". Ranks may differ (the result has the largest); cat checks its ranks and
 * zero-dim inputs itself, before names, as PyTorch does. */
nt_status nt_names_unify_many(const char *action, int count, const nt_name *const *names,
                              const int *ndims, nt_name out[NT_MAX_DIMS], int *out_ndim,
                              const nt_name **result);

/* ------------------------------------------------------------------ removes dimensions */

/* Names after reducing (or selecting, squeezing, unbinding) the dims set in `dims_mask`
 * (bit d = dim d): the same names with keepdim, else those dims left out. A full
 * reduction is every bit set. Returns `out`, or NULL when `names` is NULL. */
const nt_name *nt_names_remove_dims(const nt_name *names, int ndim, uint64_t dims_mask,
                                    bool keepdim, nt_name out[NT_MAX_DIMS], int *out_ndim);

/* The bit mask of a list of dims (each wrapped as PyTorch does) for nt_names_remove_dims;
 * a repeated dim fails with "dim 0 appears multiple times in the list of dims". */
nt_status nt_dim_list_mask(int ndim, int count, const int64_t *dims, uint64_t *mask);

/* ------------------------------------------------------------------ permutes dimensions */

/* out[i] = names[perm[i]] for a valid permutation. Returns `out`, or NULL for NULL names. */
const nt_name *nt_names_permute(const nt_name *names, int ndim, const int64_t *perm,
                                nt_name out[NT_MAX_DIMS]);

/* transpose(dim0, dim1) with both dims already wrapped; t() is transpose(0, 1). */
const nt_name *nt_names_transpose(const nt_name *names, int ndim, int64_t dim0, int64_t dim1,
                                  nt_name out[NT_MAX_DIMS]);

/* ------------------------------------------------------------------ contracts away dims */

/* PyTorch's compute_matmul_outnames, shared by mm, mv, bmm and matmul (dot has no
 * inference: its result is a 0-dim tensor). The batch dims (all but the last two of a
 * tensor with more than two) are unified from the right with matmul's own texts ("matmul:
 * Expected 'A' (index 0 of ['A', 'B', 'C']) to match ..."; a name paired with None must
 * not appear in the None side's full name list). Then a[-2] is appended if a has two or
 * more dims, and b[-1] if b does; the last two must not be the same name. out gets
 * max(batch dims) + (a_ndim >= 2) + (b_ndim >= 2) names. */
nt_status nt_names_matmul_slow(const nt_name *a, int a_ndim, const nt_name *b, int b_ndim,
                               nt_name *out, int *out_ndim);

static inline nt_status nt_names_matmul(const nt_name *a, int a_ndim, const nt_name *b, int b_ndim,
                                        nt_name out[NT_MAX_DIMS], int *out_ndim,
                                        const nt_name **result) {
    if (!a && !b) {
        int batch_a = a_ndim > 2 ? a_ndim - 2 : 0, batch_b = b_ndim > 2 ? b_ndim - 2 : 0;
        *out_ndim = (batch_a > batch_b ? batch_a : batch_b) + (a_ndim >= 2) + (b_ndim >= 2);
        *result = NULL;
        return NT_OK;
    }
    *result = out;
    return nt_names_matmul_slow(a, a_ndim, b, b_ndim, out, out_ndim);
}

/* PyTorch's compute_cdist_outnames for cdist(x1, x2) (both at least 2-d; run when either is
 * named): the batch dims unified from the right with "cdist: ..." texts, then x1[-2] and
 * x2[-2]; every non-None name must then be unique ("cdist: Attempted to propagate dims
 * ..."). out gets max(batch dims) + 2 names. */
nt_status nt_names_cdist_slow(const nt_name *a, int a_ndim, const nt_name *b, int b_ndim,
                              nt_name *out, int *out_ndim);

/* addmm(bias, a, b) and addmv(bias, mat, vec) (and their in-place forms): the matmul
 * names of (a, b), then unified ("broadcast") with the bias names, the product's first. */
nt_status nt_names_addmm_slow(const nt_name *bias, int bias_ndim, const nt_name *a, int a_ndim,
                              const nt_name *b, int b_ndim, nt_name *out, int *out_ndim);

static inline nt_status nt_names_addmm(const nt_name *bias, int bias_ndim, const nt_name *a,
                                       int a_ndim, const nt_name *b, int b_ndim,
                                       nt_name out[NT_MAX_DIMS], int *out_ndim,
                                       const nt_name **result) {
    if (!bias && !a && !b) {
        int product = (a_ndim >= 2) + (b_ndim >= 2);
        *out_ndim = bias_ndim > product ? bias_ndim : product;
        *result = NULL;
        return NT_OK;
    }
    *result = out;
    return nt_names_addmm_slow(bias, bias_ndim, a, a_ndim, b, b_ndim, out, out_ndim);
}

/* ------------------------------------------------------------------ masks */

/* PyTorch's broadcast_to_outnames(tensor, reference, op): `tensor` may have no more dims
 * than `reference` ("masked_fill: attempted to broadcast Tensor['N', 'C'] to Tensor['C']
 * but the number of dims (2) must be ..."); then unify_from_right(reference, tensor). */
nt_status nt_names_broadcast_to(const char *op, const nt_name *tensor, int tensor_ndim,
                                const nt_name *reference, int reference_ndim,
                                nt_name out[NT_MAX_DIMS], int *out_ndim, const nt_name **result);

/* masked_fill(self, mask, value): the mask is aligned up to self. */
static inline nt_status nt_names_masked_fill(const nt_name *self, int self_ndim,
                                             const nt_name *mask, int mask_ndim,
                                             nt_name out[NT_MAX_DIMS], int *out_ndim,
                                             const nt_name **result) {
    if (!self && !mask) {
        *out_ndim = self_ndim > mask_ndim ? self_ndim : mask_ndim;
        *result = NULL;
        return NT_OK;
    }
    return nt_names_broadcast_to("masked_fill", mask, mask_ndim, self, self_ndim, out, out_ndim,
                                 result);
}

/* self.masked_fill_(mask, value): PyTorch 1.13 aligns self up to the mask here (so a mask
 * with fewer dims than a named self fails); the caller then applies nt_names_check_out to
 * self's names, as for any in-place op. */
static inline nt_status nt_names_masked_fill_(const nt_name *self, int self_ndim,
                                              const nt_name *mask, int mask_ndim,
                                              nt_name out[NT_MAX_DIMS], int *out_ndim,
                                              const nt_name **result) {
    if (!self && !mask) {
        *out_ndim = self_ndim > mask_ndim ? self_ndim : mask_ndim;
        *result = NULL;
        return NT_OK;
    }
    return nt_names_broadcast_to("masked_fill_", self, self_ndim, mask, mask_ndim, out, out_ndim,
                                 result);
}

/* masked_select(self, mask): names are checked as for self + mask; the 1-dim result is
 * always unnamed, so there is nothing to return. */
nt_status nt_names_masked_select_slow(const nt_name *self, int self_ndim, const nt_name *mask,
                                      int mask_ndim);

static inline nt_status nt_names_masked_select(const nt_name *self, int self_ndim,
                                               const nt_name *mask, int mask_ndim) {
    if (!self && !mask) return NT_OK;
    return nt_names_masked_select_slow(self, self_ndim, mask, mask_ndim);
}

/* ------------------------------------------------------------------ out= and in-place */

/* The names an out= tensor or an in-place op's self may have: an unnamed one (out_names
 * NULL or all None) takes the computed names, so nothing is checked (the caller sets them);
 * a named one must equal `computed` (NULL: all None) exactly, otherwise "Name mismatch:
 * specified out tensor with names ['N', None] are not the same as the computed output names
 * ['N', 'C']. Please rename the out tensor's dims with `Tensor.rename`."
 *
 * When no input was named (computed NULL), PyTorch still checks a named out for the ops it
 * runs through TensorIterator (pointwise, binary, reductions) and bmm, so those call this
 * anyway; mm, mv, matmul, addmm, addmv, cat, masked_select and dot skip it then. */
nt_status nt_names_check_out(const nt_name *out_names, int out_ndim, const nt_name *computed,
                             int ndim);

/* ------------------------------------------------------------------ unsupported ops */

/* The error of an op that does not accept named inputs, `op` in PyTorch's schema spelling
 * ("aten::where.self", "aten::permute"): "aten::permute is not yet supported with named
 * tensors. Please drop names via `tensor = tensor.rename(None)`, call the op with an
 * unnamed tensor, and set names on the result of the operation." */
nt_status nt_names_unsupported(const char *op);

#endif
