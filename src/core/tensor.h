/*
 * tensor.h — the tensor: a view (dtype, sizes, strides, offset, names) on a storage.
 *
 * Sizes and strides are in elements and live in the same allocation as the struct, and so
 * does room for one name per dim (name_slots), so a tensor is one malloc, named or not. `names`
 * is NULL when no dim is named: that NULL is the only name check on the hot path. When it
 * is set, it has ndim entries and at least one of them is not NT_NAME_NONE.
 */
#ifndef NT_CORE_TENSOR_H
#define NT_CORE_TENSOR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "ntensor.h"
#include "storage.h"

struct nt_tensor {
    _Atomic int64_t refcount;
    nt_storage *storage;
    int64_t offset; /* in elements */
    int64_t numel;
    nt_dtype dtype;
    int ndim;
    bool is_contiguous;
    _Atomic bool borrows;     /* holds no reference on its storage nor on its levels' dims:
                                 whoever made it keeps them alive while its first reference
                                 lives (nt_tensor_bind_borrowing); a retain takes its own */
    _Atomic bool lends;       /* a borrowing view of it was made: a storage it moves off
                                 (nt_tensor_set_data) goes to `retired`, not released */
    nt_name *names;           /* NULL when unnamed, else name_slots */
    nt_name *name_slots;      /* room for the ndim the tensor was made with, in this allocation */
    void *handle;             /* a binding's object for the tensor (the Python wrapper), borrowed */
    struct nt_ag_meta *ag;    /* autograd state (src/autograd/autograd.h), NULL when none */
    struct nt_levels *levels; /* first-class dims (src/dims/dims.h): physical dims 0..n-1 are
                                 levels->dims[0..n-1]; NULL for every ordinary tensor */
    nt_storage *host;         /* NULL, or the inline storage whose block holds this struct, after
                                 nt_tensor_set_data moved the tensor to another storage: released
                                 last, it frees the block */
    struct nt_retired *retired; /* NULL, or the storages a lending tensor moved off, released
                                   when it dies (a view borrowing one may read it till then) */
    int64_t *grown;   /* NULL, or the dims of a tensor resized past the ndim it was made with:
                         NT_MAX_DIMS sizes, strides and names in one allocation it owns */
    int64_t *sizes;   /* = dims */
    int64_t *strides; /* = dims + ndim */
    int64_t dims[];
};

/* Frees t->ag: set by the autograd layer (src/autograd/meta.c), which makes every ag. */
extern void (*nt_tensor_ag_free)(nt_tensor *t);
/* Frees t->levels: set by the dims layer (src/dims/levels.c), which makes every levels. */
extern void (*nt_tensor_levels_free)(nt_tensor *t);
/* Takes references on the dims of a borrowing tensor's levels: set by the dims layer too. */
extern void (*nt_tensor_levels_own)(nt_tensor *t);

/* The number of first-class dims leading t's physical dims (0 for an ordinary tensor). */
static inline int nt_tensor_nlevels(const nt_tensor *t);

/* A new tensor viewing `storage` (which it retains). `names` may be NULL or all-None. The
 * caller guarantees that the view lies inside the storage. */
nt_status nt_tensor_make(nt_storage *storage, nt_dtype dtype, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset, const nt_name *names,
                         nt_tensor **out);

/* A new contiguous tensor with fresh, uninitialised storage. Validates sizes. */
nt_status nt_tensor_alloc(nt_dtype dtype, int ndim, const int64_t *sizes, const nt_name *names,
                          nt_tensor **out);

/* A view of `t` with new sizes/strides/offset/names (same storage and dtype). */
nt_status nt_tensor_view_of(const nt_tensor *t, int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, const nt_name *names,
                            nt_tensor **out);

/* nt_tensor_view_of with `extra` more bytes in the view's own block, aligned for any type,
 * at *extra_at: another layer's data that lives and dies with the tensor (its levels), one
 * allocation for both. A borrowing view (`borrow`) takes no reference on the storage (see
 * nt_tensor.borrows), and t then lends (nt_tensor.lends). */
nt_status nt_tensor_view_with(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                              int64_t offset, const nt_name *names, size_t extra, bool borrow,
                              void **extra_at, nt_tensor **out);

/* Gives t room for `ndim` dims (resize_ past the dims it was made with), keeping its names;
 * sizes and strides are then the caller's to set. */
nt_status nt_tensor_reserve_dims(nt_tensor *t, int ndim);
/* Checks that ndim is in [0, NT_MAX_DIMS] and every size is non-negative, and computes the
 * element count without overflow. */
nt_status nt_shape_check(int ndim, const int64_t *sizes, int64_t *numel);

/* The elements a view (valid sizes, element strides, offset 0) spans from its first
 * element: one past its last element, 0 when it has no element. Refuses negative strides and
 * an extent that overflows int64, with messages that start with `who` ("from_external: ..."). */
nt_status nt_view_extent(const char *who, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t *out);

/* Row-major strides for `sizes`. */
void nt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);

/* PyTorch's definition: strides match row-major order, ignoring dims of size one. */
bool nt_strides_are_contiguous(int ndim, const int64_t *sizes, const int64_t *strides);

/* Replaces the names of `t` in place after checking count and duplicates; NULL or all-None
 * makes it unnamed. */
nt_status nt_tensor_set_names(nt_tensor *t, const nt_name *names);

/* The same without the duplicate check, for the one rule that may repeat a name (matmul's
 * batch names beside its matrix names, as PyTorch allows). */
void nt_tensor_set_names_unchecked(nt_tensor *t, const nt_name *names);

/* Checks a list of `n` names for duplicates (None may repeat), with PyTorch's message. */
nt_status nt_names_check_unique(const nt_name *names, int n);

/* Checks that each of `n` names (n clamped to NT_MAX_DIMS) is None or an interned id: the
 * API edge's check on names a caller gives, since a stray integer would print as garbage
 * ("invalid name id 77 at dim 1", NT_ERR_VALUE). */
nt_status nt_names_check_known(const nt_name *names, int n);

/* Writes "['N', None, 'C']" into buf (always NUL-terminated, truncated to cap). */
void nt_names_repr(const nt_name *names, int n, char *buf, size_t cap);

/* Name i of t, or NT_NAME_NONE. */
static inline nt_name nt_tensor_name_at(const nt_tensor *t, int i) {
    return t->names ? t->names[i] : NT_NAME_NONE;
}

/* Byte address of element [0,...,0]. A tensor without elements has no such element, and
 * its offset may be anything (PyTorch accepts any offset on an empty view, even one whose
 * byte address overflows), so it is never used there: the storage's start stands in. */
static inline char *nt_tensor_bytes(const nt_tensor *t) {
    char *base = (char *)t->storage->data;
    return t->numel == 0 ? base : base + t->offset * (int64_t)nt_dtype_table[t->dtype].size;
}

/* `offset` moved by `steps` strides of `stride` elements (select, narrow, slicing). In a
 * tensor with elements the result addresses one of them, so it fits; an empty tensor may
 * carry strides so large that it would overflow, and since a view of it is empty too and
 * never addressed, `offset` then stays as it is. */
static inline int64_t nt_offset_moved(int64_t offset, int64_t steps, int64_t stride) {
    int64_t delta, moved;
    if (__builtin_mul_overflow(steps, stride, &delta) ||
        __builtin_add_overflow(offset, delta, &moved))
        return offset;
    return moved;
}

/* Wraps `dim` into [0, ndim) for a tensor of `ndim` dims (0-dim tensors accept -1 and 0),
 * with PyTorch's IndexError message. */
nt_status nt_wrap_dim(int64_t dim, int ndim, int64_t *out);

/* The storages a lending tensor moved off (nt_tensor.retired), one reference each. */
struct nt_retired {
    int n;
    nt_storage *storages[];
};

struct nt_levels {
    int n;
    bool in_tensor_block;    /* made with its tensor (nt_tensor_view_with), freed with it */
    struct nt_fcdim *dims[]; /* n dims, then n bytes: where each prints (nt_levels_at) */
};
static inline int nt_tensor_nlevels(const nt_tensor *t) {
    return t->levels ? t->levels->n : 0;
}

#endif
