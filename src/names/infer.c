/*
 * infer.c — the slow paths of name inference (infer.h): what runs once some input is named.
 *
 * Each function mirrors one routine of PyTorch 1.13's NamedTensorUtils / TensorNames, down
 * to the order of its checks and the operand order in its messages, because those texts
 * are part of the behaviour we reproduce. Everything works on interned ids; strings appear
 * only when an error is formatted. A NULL list reads as all None throughout.
 */
#include "names/infer.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"

/* Room for one formatted name list; the error buffer (1 KiB) truncates longer messages. */
#define LIST_CAP 1024

static inline nt_name name_at(const nt_name *names, int i) {
    return names ? names[i] : NT_NAME_NONE;
}

static bool any_named(const nt_name *names, int n) {
    if (!names) return false;
    for (int i = 0; i < n; i++)
        if (names[i] != NT_NAME_NONE) return true;
    return false;
}

static bool contains(const nt_name *names, int n, nt_name name) {
    if (!names || name == NT_NAME_NONE) return false;
    for (int i = 0; i < n; i++)
        if (names[i] == name) return true;
    return false;
}

/* One name as PyTorch prints a Dimname: 'N' or None. */
static void name_repr(nt_name name, char *buf, size_t cap) {
    const char *s = nt_name_str(name);
    if (s)
        snprintf(buf, cap, "'%s'", s);
    else
        snprintf(buf, cap, "None");
}

/* ------------------------------------------------------------------ unify_from_right */

/* The error paths are kept out of line (and their 1 KiB buffers off the hot frames). */
#define COLD __attribute__((cold, noinline))

COLD static nt_status positional_error(const char *action, nt_name x, nt_name y, const nt_name *a,
                                       int a_ndim, const nt_name *b, int b_ndim) {
    char la[LIST_CAP], lb[LIST_CAP], nx[LIST_CAP], ny[LIST_CAP];
    nt_names_repr(a, a_ndim, la, sizeof la);
    nt_names_repr(b, b_ndim, lb, sizeof lb);
    name_repr(x, nx, sizeof nx);
    name_repr(y, ny, sizeof ny);
    return nt_fail(NT_ERR_RUNTIME,
                   "Error when attempting to %s dims %s and dims %s: dim %s and dim %s are at "
                   "the same position from the right but do not match.",
                   action, la, lb, nx, ny);
}

/* PyTorch's check_for_misalignment failing: `name`, from `names`, was paired with None but
 * appears in `other`. The list holding `name` comes first in the text. */
COLD static nt_status misaligned(const char *action, nt_name name, const nt_name *names, int n,
                                 const nt_name *other, int other_n) {
    char la[LIST_CAP], lb[LIST_CAP], nx[LIST_CAP];
    nt_names_repr(names, n, la, sizeof la);
    nt_names_repr(other, other_n, lb, sizeof lb);
    name_repr(name, nx, sizeof nx);
    return nt_fail(NT_ERR_RUNTIME,
                   "Misaligned dims when attempting to %s dims %s and dims %s: dim %s appears "
                   "in a different position from the right across both lists.",
                   action, la, lb, nx);
}

/* All None, standing in for a NULL list so that the loops below need no NULL tests. */
static const nt_name none_names[NT_MAX_DIMS];

nt_status nt_names_unify_from_right_slow(const char *action, const nt_name *a, int a_ndim,
                                         const nt_name *b, int b_ndim, nt_name *out) {
    const nt_name *pa = a ? a : none_names, *pb = b ? b : none_names;
    /* The common named case, equal lists, has nothing to check. */
    if (a_ndim == b_ndim) {
        int i = 0;
        while (i < a_ndim && pa[i] == pb[i])
            i++;
        if (i == a_ndim) {
            /* a few names: a loop, not a memcpy call */
            for (i = 0; i < a_ndim; i++)
                out[i] = pa[i];
            return NT_OK;
        }
    }
    int n = a_ndim > b_ndim ? a_ndim : b_ndim, overlap = a_ndim < b_ndim ? a_ndim : b_ndim;
    for (int k = 1; k <= overlap; k++) {
        nt_name x = pa[a_ndim - k], y = pb[b_ndim - k];
        if (x == y) { /* (A, A) or (None, None) */
            out[n - k] = x;
        } else if (x != NT_NAME_NONE && y != NT_NAME_NONE) {
            return positional_error(action, x, y, pa, a_ndim, pb, b_ndim);
        } else if (x != NT_NAME_NONE) {
            /* A name paired with None must not sit elsewhere in the other list: the tensors
             * would then be aligned differently from how they broadcast. */
            out[n - k] = x;
            if (contains(pb, b_ndim, x)) return misaligned(action, x, pa, a_ndim, pb, b_ndim);
        } else {
            out[n - k] = y;
            if (contains(pa, a_ndim, y)) return misaligned(action, y, pb, b_ndim, pa, a_ndim);
        }
    }
    /* The longer list's leading names pair with nothing, which counts as None. */
    bool a_longer = a_ndim > b_ndim;
    const nt_name *longer = a_longer ? pa : pb, *shorter = a_longer ? pb : pa;
    int shorter_ndim = overlap;
    for (int i = 0; i < n - overlap; i++) {
        nt_name z = longer[i];
        out[i] = z;
        if (z != NT_NAME_NONE && contains(shorter, shorter_ndim, z))
            return a_longer ? misaligned(action, z, pa, a_ndim, pb, b_ndim)
                            : misaligned(action, z, pb, b_ndim, pa, a_ndim);
    }
    return NT_OK;
}

nt_status nt_names_unify_many(const char *action, int count, const nt_name *const *names,
                              const int *ndims, nt_name out[NT_MAX_DIMS], int *out_ndim,
                              const nt_name **result) {
    bool any = false;
    int n = 0;
    for (int i = 0; i < count; i++) {
        any |= names[i] != NULL;
        if (ndims[i] > n) n = ndims[i];
    }
    *out_ndim = n;
    if (!any) {
        *result = NULL;
        return NT_OK;
    }
    /* PyTorch starts from an empty list and folds: acc = unify(acc, names[i]). The
     * accumulated names are an input of the next step, so they are copied out of `out`. */
    nt_name acc[NT_MAX_DIMS];
    int acc_ndim = 0;
    for (int i = 0; i < count; i++) {
        NT_TRY(nt_names_unify_from_right_slow(action, acc, acc_ndim, names[i], ndims[i], out));
        if (ndims[i] > acc_ndim) acc_ndim = ndims[i];
        memcpy(acc, out, (size_t)acc_ndim * sizeof *acc);
    }
    *result = out;
    return NT_OK;
}

/* ------------------------------------------------------------------ removes dimensions */

const nt_name *nt_names_remove_dims(const nt_name *names, int ndim, uint64_t dims_mask,
                                    bool keepdim, nt_name out[NT_MAX_DIMS], int *out_ndim) {
    int n = 0;
    for (int i = 0; i < ndim; i++) {
        if (keepdim || !(dims_mask >> i & 1u)) {
            if (names) out[n] = names[i];
            n++;
        }
    }
    *out_ndim = n;
    return names ? out : NULL;
}

nt_status nt_dim_list_mask(int ndim, int count, const int64_t *dims, uint64_t *mask) {
    uint64_t m = 0;
    for (int i = 0; i < count; i++) {
        int64_t d;
        NT_TRY(nt_wrap_dim(dims[i], ndim, &d));
        if (m >> d & 1u)
            return nt_fail(NT_ERR_RUNTIME,
                           "dim %" PRId64 " appears multiple times in the list of dims", d);
        m |= (uint64_t)1 << d;
    }
    *mask = m;
    return NT_OK;
}

/* ------------------------------------------------------------------ permutes dimensions */

const nt_name *nt_names_permute(const nt_name *names, int ndim, const int64_t *perm,
                                nt_name out[NT_MAX_DIMS]) {
    if (!names) return NULL;
    for (int i = 0; i < ndim; i++)
        out[i] = names[perm[i]];
    return out;
}

const nt_name *nt_names_transpose(const nt_name *names, int ndim, int64_t dim0, int64_t dim1,
                                  nt_name out[NT_MAX_DIMS]) {
    if (!names) return NULL;
    memcpy(out, names, (size_t)ndim * sizeof *out);
    out[dim0] = names[dim1];
    out[dim1] = names[dim0];
    return out;
}

/* ------------------------------------------------------------------ contracts away dims */

/* PyTorch's TensorName: one name together with the full list it came from, which both
 * the misalignment check and the messages use. */
typedef struct tensor_name {
    nt_name name;
    const nt_name *origin; /* NULL: all None */
    int origin_ndim;
    int index; /* position in origin */
} tensor_name;

static void tensor_name_repr(const tensor_name *t, char *buf, size_t cap) {
    name_repr(t->name, buf, cap);
    size_t len = strlen(buf);
    int w = snprintf(buf + len, cap - len, " (index %d of ", t->index);
    len += w > 0 ? (size_t)w : 0;
    if (len + 1 >= cap) return;
    nt_names_repr(t->origin, t->origin_ndim, buf + len, cap - len);
    len += strlen(buf + len);
    if (len + 1 < cap) memcpy(buf + len, ")", 2);
}

COLD static nt_status cannot_match(const char *op, const tensor_name *named,
                                   const tensor_name *wildcard) {
    char l[LIST_CAP], r[LIST_CAP], nx[LIST_CAP];
    tensor_name_repr(named, l, sizeof l);
    tensor_name_repr(wildcard, r, sizeof r);
    name_repr(named->name, nx, sizeof nx);
    return nt_fail(NT_ERR_RUNTIME,
                   "%s: Cannot match %s with %s because the latter names already have %s. Are "
                   "your tensors misaligned?",
                   op, l, r, nx);
}

COLD static nt_status do_not_match(const char *op, const tensor_name *self,
                                   const tensor_name *other) {
    char l[LIST_CAP], r[LIST_CAP];
    tensor_name_repr(self, l, sizeof l);
    tensor_name_repr(other, r, sizeof r);
    return nt_fail(NT_ERR_RUNTIME, "%s: Expected %s to match %s but they do not match.", op, l, r);
}

COLD static nt_status duplicate_features(const nt_name *a, int a_ndim, const nt_name *b, int b_ndim,
                                         const nt_name *out, int n) {
    char la[LIST_CAP], lb[LIST_CAP], lo[LIST_CAP];
    nt_names_repr(a, a_ndim, la, sizeof la);
    nt_names_repr(b, b_ndim, lb, sizeof lb);
    nt_names_repr(out, n, lo, sizeof lo);
    return nt_fail(NT_ERR_RUNTIME,
                   "Matrix multiplying Tensor%s with Tensor%s would produce output tensor with "
                   "duplicate names %s. Please rename the input tensors with `Tensor.rename` to "
                   "prevent this.",
                   la, lb, lo);
}

/* TensorName::unify: like nt_name_unify, but a name paired with None is looked up in the
 * None side's whole name list (batch and matrix dims alike), and the texts differ. */
static nt_status tensor_name_unify(const char *op, const tensor_name *self,
                                   const tensor_name *other, nt_name *out) {
    if (self->name == other->name) { /* (None, None) or (A, A) */
        *out = self->name;
        return NT_OK;
    }
    if (other->name == NT_NAME_NONE) {
        if (contains(other->origin, other->origin_ndim, self->name))
            return cannot_match(op, self, other);
        *out = self->name;
        return NT_OK;
    }
    if (self->name == NT_NAME_NONE) return tensor_name_unify(op, other, self, out);
    return do_not_match(op, self, other);
}

static int num_batch_dims(int ndim) {
    return ndim > 2 ? ndim - 2 : 0;
}

nt_status nt_names_matmul_slow(const nt_name *a, int a_ndim, const nt_name *b, int b_ndim,
                               nt_name *out, int *out_ndim) {
    if (a_ndim < 1 || b_ndim < 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "both arguments to matmul need to be at least 1D, but they are %dD and "
                       "%dD",
                       a_ndim, b_ndim);
    /* TensorNames::unifyFromRightInplace on the batch dims: the shorter list is padded on
     * the left with the longer one's leading names, unchecked; the rest pair up, a's side
     * as `self` of the unify. */
    tensor_name batch[NT_MAX_DIMS], other[NT_MAX_DIMS];
    int na = num_batch_dims(a_ndim), nb = num_batch_dims(b_ndim);
    for (int i = 0; i < na; i++)
        batch[i] = (tensor_name){name_at(a, i), a, a_ndim, i};
    for (int i = 0; i < nb; i++)
        other[i] = (tensor_name){name_at(b, i), b, b_ndim, i};
    int n = na > nb ? na : nb;
    if (na < nb) {
        int pad = nb - na;
        memmove(batch + pad, batch, (size_t)na * sizeof *batch);
        memcpy(batch, other, (size_t)pad * sizeof *batch);
    }
    for (int i = n - (na < nb ? na : nb); i < n; i++) {
        NT_TRY(tensor_name_unify("matmul", &batch[i], &other[i - (n - nb)], &out[i]));
    }
    for (int i = 0; i < n - (na < nb ? na : nb); i++)
        out[i] = batch[i].name;
    /* The matrix (or vector) part: a vector is contracted away entirely. */
    if (a_ndim >= 2) out[n++] = name_at(a, a_ndim - 2);
    if (b_ndim >= 2) out[n++] = name_at(b, b_ndim - 1);
    *out_ndim = n;
    /* Only the two matrix names must differ: PyTorch lets batch names repeat them. */
    if (a_ndim >= 2 && b_ndim >= 2 && out[n - 2] != NT_NAME_NONE && out[n - 2] == out[n - 1])
        return duplicate_features(a, a_ndim, b, b_ndim, out, n);
    return NT_OK;
}

/* TensorNames::checkUnique's text: "['N' 'C' 'H' 'H']" (names separated by spaces). */
COLD static nt_status duplicate_propagated(const char *op, const tensor_name *all, int n, int i,
                                           int j) {
    char l[LIST_CAP], r[LIST_CAP], lo[LIST_CAP];
    tensor_name_repr(&all[i], l, sizeof l);
    tensor_name_repr(&all[j], r, sizeof r);
    size_t len = 0;
    lo[0] = '\0';
    for (int k = 0; k < n && len + 1 < sizeof lo; k++) {
        char one[64];
        name_repr(all[k].name, one, sizeof one);
        int w = snprintf(lo + len, sizeof lo - len, "%s%s", k ? " " : "", one);
        len += w > 0 ? (size_t)w : 0;
    }
    return nt_fail(NT_ERR_RUNTIME,
                   "%s: Attempted to propagate dims %s and %s to the output, but that would "
                   "create a tensor with duplicate names [%s]. Please rename your inputs with "
                   "Tensor.rename to prevent this.",
                   op, l, r, lo);
}

nt_status nt_names_cdist_slow(const nt_name *a, int a_ndim, const nt_name *b, int b_ndim,
                              nt_name *out, int *out_ndim) {
    /* the batch dims unified from the right as matmul's (with cdist's texts), keeping the
     * TensorName that wins for the messages; then x1[-2] and x2[-2] */
    tensor_name batch[NT_MAX_DIMS + 2], other[NT_MAX_DIMS];
    int na = num_batch_dims(a_ndim), nb = num_batch_dims(b_ndim);
    for (int i = 0; i < na; i++)
        batch[i] = (tensor_name){name_at(a, i), a, a_ndim, i};
    for (int i = 0; i < nb; i++)
        other[i] = (tensor_name){name_at(b, i), b, b_ndim, i};
    int n = na > nb ? na : nb;
    if (na < nb) {
        int pad = nb - na;
        memmove(batch + pad, batch, (size_t)na * sizeof *batch);
        memcpy(batch, other, (size_t)pad * sizeof *batch);
    }
    for (int i = n - (na < nb ? na : nb); i < n; i++) {
        const tensor_name *o = &other[i - (n - nb)];
        nt_name u;
        NT_TRY(tensor_name_unify("cdist", &batch[i], o, &u));
        if (u != batch[i].name) batch[i] = *o;
    }
    batch[n++] = (tensor_name){name_at(a, a_ndim - 2), a, a_ndim, -2};
    batch[n++] = (tensor_name){name_at(b, b_ndim - 2), b, b_ndim, -2};
    for (int i = 0; i < n; i++) {
        if (batch[i].name == NT_NAME_NONE) continue;
        for (int j = i + 1; j < n; j++)
            if (batch[j].name == batch[i].name)
                return duplicate_propagated("cdist", batch, n, i, j);
    }
    for (int i = 0; i < n; i++)
        out[i] = batch[i].name;
    *out_ndim = n;
    return NT_OK;
}

nt_status nt_names_addmm_slow(const nt_name *bias, int bias_ndim, const nt_name *a, int a_ndim,
                              const nt_name *b, int b_ndim, nt_name *out, int *out_ndim) {
    nt_name product[NT_MAX_DIMS];
    int product_ndim;
    NT_TRY(nt_names_matmul_slow(a, a_ndim, b, b_ndim, product, &product_ndim));
    NT_TRY(
        nt_names_unify_from_right_slow("broadcast", product, product_ndim, bias, bias_ndim, out));
    *out_ndim = product_ndim > bias_ndim ? product_ndim : bias_ndim;
    return NT_OK;
}

/* ------------------------------------------------------------------ masks */

COLD static nt_status too_many_dims(const char *op, const nt_name *tensor, int tensor_ndim,
                                    const nt_name *reference, int reference_ndim) {
    char lt[LIST_CAP], lr[LIST_CAP];
    nt_names_repr(tensor, tensor_ndim, lt, sizeof lt);
    nt_names_repr(reference, reference_ndim, lr, sizeof lr);
    return nt_fail(NT_ERR_RUNTIME,
                   "%s: attempted to broadcast Tensor%s to Tensor%s but the number of dims (%d) "
                   "must be less than or equal to the number of dims in the tensor (%d)",
                   op, lt, lr, tensor_ndim, reference_ndim);
}

nt_status nt_names_broadcast_to(const char *op, const nt_name *tensor, int tensor_ndim,
                                const nt_name *reference, int reference_ndim,
                                nt_name out[NT_MAX_DIMS], int *out_ndim, const nt_name **result) {
    *out_ndim = reference_ndim > tensor_ndim ? reference_ndim : tensor_ndim;
    /* PyTorch tests has_names() here, before the rank check, so an explicit all-None list
     * counts as unnamed too (a tensor's own list never is all None). */
    if (!any_named(tensor, tensor_ndim) && !any_named(reference, reference_ndim)) {
        *result = NULL;
        return NT_OK;
    }
    if (reference_ndim < tensor_ndim)
        return too_many_dims(op, tensor, tensor_ndim, reference, reference_ndim);
    NT_TRY(nt_names_unify_from_right_slow("broadcast", reference, reference_ndim, tensor,
                                          tensor_ndim, out));
    *result = out;
    return NT_OK;
}

nt_status nt_names_masked_select_slow(const nt_name *self, int self_ndim, const nt_name *mask,
                                      int mask_ndim) {
    nt_name scratch[NT_MAX_DIMS];
    return nt_names_unify_from_right_slow("broadcast", self, self_ndim, mask, mask_ndim, scratch);
}

/* ------------------------------------------------------------------ out= and in-place */

COLD static nt_status name_mismatch(const nt_name *out_names, int out_ndim, const nt_name *computed,
                                    int ndim) {
    char lo[LIST_CAP], lc[LIST_CAP];
    nt_names_repr(out_names, out_ndim, lo, sizeof lo);
    nt_names_repr(computed, ndim, lc, sizeof lc);
    return nt_fail(NT_ERR_RUNTIME,
                   "Name mismatch: specified out tensor with names %s are not the same as the "
                   "computed output names %s. Please rename the out tensor's dims with "
                   "`Tensor.rename`.",
                   lo, lc);
}

nt_status nt_names_check_out(const nt_name *out_names, int out_ndim, const nt_name *computed,
                             int ndim) {
    if (!any_named(out_names, out_ndim)) return NT_OK; /* unnamed: it takes `computed` */
    bool equal = out_ndim == ndim;
    for (int i = 0; equal && i < ndim; i++)
        equal = out_names[i] == name_at(computed, i);
    return equal ? NT_OK : name_mismatch(out_names, out_ndim, computed, ndim);
}

/* ------------------------------------------------------------------ unsupported ops */

nt_status nt_names_unsupported(const char *op) {
    return nt_fail(NT_ERR_RUNTIME,
                   "%s is not yet supported with named tensors. Please drop names via `tensor = "
                   "tensor.rename(None)`, call the op with an unnamed tensor, and set names on "
                   "the result of the operation.",
                   op);
}
