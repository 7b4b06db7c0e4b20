/*
 * names.h — small helpers for working with dimension names, shared by the names API
 * (names_api.c, flatten.c), the views (ops/view.c) and the layers above (the Python
 * module, name inference of other ops).
 *
 * They format names and shapes the way PyTorch prints them in its messages, resolve names
 * to dim indices, and expose the one internal view builder that takes explicit result
 * names (flatten and unflatten name their results themselves).
 */
#ifndef NT_NAMES_NAMES_H
#define NT_NAMES_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"
#include "ops/shape.h"

/* The index of `name` among t's names, or -1. NT_NAME_NONE is never found. */
static inline int nt_names_find(const nt_tensor *t, nt_name name) {
    if (name == NT_NAME_NONE || !t->names) return -1;
    for (int i = 0; i < t->ndim; i++)
        if (t->names[i] == name) return i;
    return -1;
}

/* True when every dim of t is named. */
static inline bool nt_names_all_named(const nt_tensor *t) {
    if (!t->names) return t->ndim == 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->names[i] == NT_NAME_NONE) return false;
    return true;
}

/* Resolves `count` names to dim indices of t, in order. A name that t lacks fails with
 * "Name 'X' not found in Tensor['N', 'C']." (PyTorch's dimname_to_position). */
nt_status nt_names_resolve_dims(const nt_tensor *t, int count, const nt_name *names,
                                int64_t *dims_out);

/* Writes names as Python prints a tuple of them: "('N', None)", "('N',)", "()". */
void nt_names_tuple_repr(const nt_name *names, int n, char *buf, size_t cap);

/* Writes "['N', None]" like nt_names_repr but leaving out entry `skip` (-1: none). */
void nt_names_repr_skip(const nt_name *names, int n, int skip, char *buf, size_t cap);

/* Writes an int list as PyTorch prints an IntArrayRef: "[2, 3]", "[]". */
void nt_ints_repr(const int64_t *v, int n, char *buf, size_t cap);

/* Why nt_infer_size failed, for callers that rewrite its message (unflatten). */
typedef enum nt_infer_failure {
    NT_INFER_OK = 0,
    NT_INFER_TWO_UNKNOWN, /* "only one dimension can be inferred" */
    NT_INFER_BAD_SIZE,    /* "invalid shape dimension -2" */
    NT_INFER_AMBIGUOUS,   /* a -1 beside a zero size: any value would do */
    NT_INFER_MISMATCH,    /* "shape '[5]' is invalid for input of size 6" */
} nt_infer_failure;

/* PyTorch's infer_size: `shape` (at most one -1) resolved against `numel` into `out`.
 * On failure sets the error and, if `why` is not NULL, the kind of failure. */
nt_status nt_infer_size(int ndim, const int64_t *shape, int64_t numel, int64_t *out,
                        nt_infer_failure *why);

/* view/reshape of t to `sizes` (already inferred: no -1) with the given result names
 * (NULL: unnamed; not checked for duplicates). With allow_copy, falls back to a contiguous
 * copy when the strides cannot express the shape; otherwise that is view's error. */
nt_status nt_view_named(nt_tensor *t, int ndim, const int64_t *sizes, const nt_name *names,
                        bool allow_copy, nt_view_dest out);

#endif
