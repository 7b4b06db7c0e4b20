/*
 * tensor.c — creating, refcounting and describing tensors; names stored on them.
 */
#include "tensor.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "refcount.h"
#include "small_alloc.h"
#include "status.h"

nt_status nt_view_extent(const char *who, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t *out) {
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (strides[i] < 0)
            return nt_fail(NT_ERR_VALUE,
                           "%s: negative strides are not supported (stride %" PRId64 " at dim %d)",
                           who, strides[i], i);
        empty |= sizes[i] == 0;
    }
    if (empty) {
        *out = 0;
        return NT_OK;
    }
    /* The last element sits at sum((size - 1) * stride); the view needs one past it. */
    int64_t last = 0, span;
    for (int i = 0; i < ndim; i++) {
        int64_t step;
        if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) ||
            __builtin_add_overflow(last, step, &last))
            return nt_fail(NT_ERR_VALUE, "%s: the view's extent overflows int64", who);
    }
    if (__builtin_add_overflow(last, 1, &span))
        return nt_fail(NT_ERR_VALUE, "%s: the view's extent overflows int64", who);
    *out = span;
    return NT_OK;
}

nt_status nt_shape_check(int ndim, const int64_t *sizes, int64_t *numel) {
    if (ndim < 0 || ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    int64_t n = 1;
    bool overflow = false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            char text[256];
            int len = 0;
            for (int j = 0; j < ndim && len < (int)sizeof text - 24; j++)
                len += snprintf(text + len, sizeof text - (size_t)len, "%s%" PRId64, j ? ", " : "",
                                sizes[j]);
            return nt_fail(NT_ERR_RUNTIME,
                           "Trying to create tensor with negative dimension %" PRId64 ": [%s]",
                           sizes[i], text);
        }
        if (!overflow && __builtin_mul_overflow(n, sizes[i], &n)) overflow = true;
    }
    for (int i = 0; i < ndim; i++)
        if (sizes[i] == 0) overflow = false, n = 0; /* an empty shape never overflows */
    if (overflow) return nt_fail(NT_ERR_RUNTIME, "the number of elements overflows int64");
    *numel = n;
    return NT_OK;
}

void nt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        /* Only an empty tensor (never addressed) can overflow here: saturate, no UB. */
        if (__builtin_mul_overflow(s, sizes[i] > 1 ? sizes[i] : 1, &s)) s = INT64_MAX;
    }
}

bool nt_strides_are_contiguous(int ndim, const int64_t *sizes, const int64_t *strides) {
    /* An empty tensor is contiguous whatever its strides (PyTorch's rule), and only its
     * sizes can multiply past int64 below. */
    for (int i = 0; i < ndim; i++)
        if (sizes[i] == 0) return true;
    int64_t expected = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        if (sizes[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= sizes[i];
    }
    return true;
}

static bool any_named(const nt_name *names, int n) {
    if (!names) return false;
    for (int i = 0; i < n; i++)
        if (names[i] != NT_NAME_NONE) return true;
    return false;
}

void nt_names_repr(const nt_name *names, int n, char *buf, size_t cap) {
    size_t len = 0;
    int w = snprintf(buf, cap, "[");
    len = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < n && len < cap; i++) {
        const char *s = names ? nt_name_str(names[i]) : NULL;
        if (s)
            w = snprintf(buf + len, cap - len, "%s'%s'", i ? ", " : "", s);
        else
            w = snprintf(buf + len, cap - len, "%sNone", i ? ", " : "");
        len += w > 0 ? (size_t)w : 0;
    }
    if (len < cap) snprintf(buf + len, cap - len, "]");
}

nt_status nt_names_check_unique(const nt_name *names, int n) {
    for (int i = 0; i < n; i++) {
        if (names[i] == NT_NAME_NONE) continue;
        for (int j = i + 1; j < n; j++) {
            if (names[j] == names[i]) {
                char text[512];
                nt_names_repr(names, n, text, sizeof text);
                return nt_fail(NT_ERR_RUNTIME,
                               "Cannot construct a tensor with duplicate names. Got names: %s.",
                               text);
            }
        }
    }
    return NT_OK;
}

/* The bytes of a tensor struct with room for ndim sizes, strides and names, rounded up so
 * that a storage struct may follow it in the same block. */
static size_t tensor_bytes(int ndim) {
    size_t bytes =
        sizeof(nt_tensor) + 2 * (size_t)ndim * sizeof(int64_t) + (size_t)ndim * sizeof(nt_name);
    return (bytes + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
}

/* Fills in the tensor at `t` (tensor_bytes(ndim) bytes), which takes over one reference to
 * `storage`, all but its sizes, strides, numel and contiguity. */
static void tensor_init(nt_tensor *t, nt_storage *storage, nt_dtype dtype, int ndim, int64_t offset,
                        const nt_name *names) {
    t->name_slots = (nt_name *)(t->dims + 2 * ndim);
    t->names = NULL;
    if (any_named(names, ndim)) {
        t->names = t->name_slots;
        for (int i = 0; i < ndim; i++) /* a loop: a few names do not pay a memcpy call */
            t->names[i] = names[i];
    }
    atomic_init(&t->refcount, 1);
    atomic_init(&t->borrows, false);
    atomic_init(&t->lends, false);
    t->retired = NULL;
    t->storage = storage;
    t->offset = offset;
    t->dtype = dtype;
    t->ndim = ndim;
    t->handle = NULL;
    t->ag = NULL;
    t->levels = NULL;
    t->host = NULL;
    t->grown = NULL;
    t->sizes = t->dims;
    t->strides = t->dims + ndim;
}

/* nt_tensor_make with `extra` more bytes at the end of the tensor's block, borrowing the
 * storage or not; `same` is NULL or a tensor with these sizes and strides, whose element
 * count and contiguity are then copied. */
static nt_status tensor_make(nt_storage *storage, nt_dtype dtype, int ndim, const int64_t *sizes,
                             const int64_t *strides, int64_t offset, const nt_name *names,
                             size_t extra, bool borrow, const nt_tensor *same, nt_tensor **out) {
    size_t bytes = tensor_bytes(ndim) + extra;
    nt_tensor *t = nt_small_alloc(bytes);
    if (!t) return nt_fail_oom(bytes);
    if (!borrow) nt_storage_retain(storage);
    tensor_init(t, storage, dtype, ndim, offset, names);
    if (borrow) atomic_store_explicit(&t->borrows, true, memory_order_relaxed);
    *out = t;
    if (same) {
        for (int i = 0; i < ndim; i++) {
            t->sizes[i] = sizes[i];
            t->strides[i] = strides[i];
        }
        t->numel = same->numel;
        t->is_contiguous = same->is_contiguous;
        return NT_OK;
    }
    int64_t numel = 1;
    bool empty = false; /* an empty shape may hold sizes whose product overflows */
    for (int i = 0; i < ndim; i++) {
        t->sizes[i] = sizes[i];
        t->strides[i] = strides[i];
        empty |= sizes[i] == 0;
        if (!empty && __builtin_mul_overflow(numel, sizes[i], &numel)) numel = INT64_MAX;
    }
    t->numel = empty ? 0 : numel;
    t->is_contiguous = nt_strides_are_contiguous(ndim, sizes, strides);
    return NT_OK;
}

nt_status nt_tensor_make(nt_storage *storage, nt_dtype dtype, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset, const nt_name *names,
                         nt_tensor **out) {
    return tensor_make(storage, dtype, ndim, sizes, strides, offset, names, 0, false, NULL, out);
}

nt_status nt_tensor_alloc(nt_dtype dtype, int ndim, const int64_t *sizes, const nt_name *names,
                          nt_tensor **out) {
    if (!nt_dtype_valid((int)dtype)) return nt_fail(NT_ERR_TYPE, "invalid dtype %d", (int)dtype);
    /* One pass for the usual shape (valid rank, no negative size, no overflow); anything
     * else gets nt_shape_check's verdict and message. */
    int64_t numel = 1;
    bool unusual = ndim < 0 || ndim > NT_MAX_DIMS;
    for (int i = 0; i < (unusual ? 0 : ndim); i++)
        unusual |= (sizes[i] < 0) | __builtin_mul_overflow(numel, sizes[i], &numel);
    if (unusual) NT_TRY(nt_shape_check(ndim, sizes, &numel));
    if (names) {
        NT_TRY(nt_names_check_unique(names, ndim));
    }
    size_t nbytes;
    if (__builtin_mul_overflow((size_t)numel, nt_dtype_table[dtype].size, &nbytes))
        return nt_fail(NT_ERR_RUNTIME, "the tensor's byte size overflows");
    if (nbytes <= NT_STORAGE_INLINE_BYTES) {
        /* One block for the tensor, its storage and the data: the storage frees the block
         * when it dies, which may be after the tensor if views of it live on. */
        size_t head = tensor_bytes(ndim);
        size_t bytes = head + sizeof(nt_storage) + NT_ALIGNMENT - 1 + nbytes;
        nt_tensor *t = nt_small_alloc(bytes);
        if (!t) return nt_fail_oom(bytes);
        nt_storage *storage = (nt_storage *)((char *)t + head);
        nt_storage_init_inline(storage, t, nbytes);
        tensor_init(t, storage, dtype, ndim, 0, names);
        for (int i = 0; i < ndim; i++)
            t->sizes[i] = sizes[i];
        nt_contiguous_strides(ndim, sizes, t->strides);
        t->numel = numel;
        t->is_contiguous = true;
        *out = t;
        return NT_OK;
    }
    int64_t strides[NT_MAX_DIMS];
    nt_contiguous_strides(ndim, sizes, strides);
    nt_storage *storage;
    NT_TRY(nt_storage_new(nbytes, &storage));
    nt_status st = nt_tensor_make(storage, dtype, ndim, sizes, strides, 0, names, out);
    nt_storage_release(storage); /* the tensor holds its own reference */
    return st;
}

nt_status nt_tensor_view_of(const nt_tensor *t, int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, const nt_name *names,
                            nt_tensor **out) {
    return nt_tensor_make(t->storage, t->dtype, ndim, sizes, strides, offset, names, out);
}

nt_status nt_tensor_view_with(nt_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                              int64_t offset, const nt_name *names, size_t extra, bool borrow,
                              void **extra_at, nt_tensor **out) {
    if (borrow && !atomic_load_explicit(&t->lends, memory_order_relaxed))
        atomic_store_explicit(&t->lends, true, memory_order_relaxed);
    bool same = ndim == t->ndim && sizes == t->sizes && strides == t->strides;
    NT_TRY(tensor_make(t->storage, t->dtype, ndim, sizes, strides, offset, names, extra, borrow,
                       same ? t : NULL, out));
    *extra_at = (char *)*out + tensor_bytes(ndim);
    return NT_OK;
}

void nt_tensor_set_names_unchecked(nt_tensor *t, const nt_name *names) {
    if (!any_named(names, t->ndim)) {
        t->names = NULL;
        return;
    }
    memmove(t->name_slots, names, (size_t)t->ndim * sizeof *names);
    t->names = t->name_slots;
}

nt_status nt_tensor_set_names(nt_tensor *t, const nt_name *names) {
    if (any_named(names, t->ndim)) NT_TRY(nt_names_check_unique(names, t->ndim));
    nt_tensor_set_names_unchecked(t, names);
    return NT_OK;
}

nt_status nt_wrap_dim(int64_t dim, int ndim, int64_t *out) {
    int64_t n = ndim > 0 ? ndim : 1; /* a 0-dim tensor accepts -1 and 0 */
    if (dim < -n || dim >= n)
        return nt_fail(NT_ERR_INDEX,
                       "Dimension out of range (expected to be in range of [%" PRId64 ", %" PRId64
                       "], but got %" PRId64 ")",
                       -n, n - 1, dim);
    *out = dim < 0 ? dim + n : dim;
    return NT_OK;
}

/* ---- the public accessors ---- */

/* A borrowing tensor takes its own references (once, whichever thread comes first): its
 * maker's guarantee covers only its first reference. */
static void tensor_own(nt_tensor *t) {
    if (!atomic_exchange_explicit(&t->borrows, false, memory_order_relaxed)) return;
    nt_storage_retain(t->storage);
    if (t->levels) nt_tensor_levels_own(t);
}

nt_tensor *nt_tensor_retain(nt_tensor *t) {
    if (__builtin_expect(atomic_load_explicit(&t->borrows, memory_order_relaxed), 0)) tensor_own(t);
    nt_ref_add(&t->refcount);
    return t;
}

void nt_tensor_release(nt_tensor *t) {
    if (!t) return;
    if (!nt_ref_drop(&t->refcount)) return;
    nt_storage *host = t->host;                                /* see nt_tensor_set_data */
    bool storage_holds_block = host || t->storage->block == t; /* see nt_tensor_alloc */
    bool borrows = atomic_load_explicit(&t->borrows, memory_order_relaxed);
    if (__builtin_expect(t->ag != NULL, 0)) nt_tensor_ag_free(t);
    if (__builtin_expect(t->levels != NULL, 0)) nt_tensor_levels_free(t); /* reads borrows */
    if (t->grown)
        free(t->grown); /* before the storage, which may free the tensor's block;
                         * tested first: free(NULL) is still a call into libc */
    if (__builtin_expect(t->retired != NULL, 0)) {
        for (int i = 0; i < t->retired->n; i++)
            nt_storage_release(t->retired->storages[i]);
        free(t->retired);
    }
    if (!borrows) nt_storage_release(t->storage);
    if (__builtin_expect(host != NULL, 0)) nt_storage_release(host); /* frees the block */
    if (!storage_holds_block) nt_small_free(t);
}

void (*nt_tensor_ag_free)(nt_tensor *t);
void (*nt_tensor_levels_free)(nt_tensor *t);
void (*nt_tensor_levels_own)(nt_tensor *t);

/* PyTorch's set_data. A small tensor's struct may share its malloc block with its inline
 * storage (nt_tensor_alloc), which frees the block when it dies: a tensor moved off that
 * storage keeps its reference as `host` and drops it last, so neither outlives the block. */
/* Keeps t's reference to its storage in t->retired until t dies. */
static nt_status retire_storage(nt_tensor *t) {
    int n = t->retired ? t->retired->n : 0;
    struct nt_retired *r = realloc(t->retired, sizeof *r + (size_t)(n + 1) * sizeof *r->storages);
    if (!r) return nt_fail_oom(sizeof *r + (size_t)(n + 1) * sizeof *r->storages);
    r->storages[n] = t->storage;
    r->n = n + 1;
    t->retired = r;
    return NT_OK;
}

/* PyTorch's set_data. A small tensor's struct may share its malloc block with its inline
 * storage (nt_tensor_alloc), which frees the block when it dies: a tensor moved off that
 * storage keeps its reference as `host` and drops it last, so neither outlives the block. A
 * tensor that lent its storage to a borrowing view (nt_tensor_bind_borrowing) keeps its
 * reference until it dies too: the view's lender keeps the tensor alive, not the storage. */
nt_status nt_tensor_set_data(nt_tensor *t, const nt_tensor *src) {
    if (t == src) return NT_OK;
    NT_TRY(nt_tensor_reserve_dims(t, src->ndim));
    bool inline_block = t->storage->block == t && !t->host;
    bool lent = !inline_block && atomic_load_explicit(&t->lends, memory_order_relaxed);
    if (lent) NT_TRY(retire_storage(t)); /* its reference becomes the retired list's */
    tensor_own(t);                       /* it drops its storage below */
    nt_storage_retain(src->storage);
    if (inline_block)
        t->host = t->storage; /* its reference becomes the host's */
    else if (!lent)
        nt_storage_release(t->storage);
    t->storage = src->storage;
    t->dtype = src->dtype;
    t->sizes = t->grown ? t->grown : t->dims;
    t->strides = t->grown ? t->grown + NT_MAX_DIMS : t->dims + src->ndim;
    memcpy(t->sizes, src->sizes, (size_t)src->ndim * sizeof *t->sizes);
    memcpy(t->strides, src->strides, (size_t)src->ndim * sizeof *t->strides);
    t->ndim = src->ndim;
    t->offset = src->offset;
    t->numel = src->numel;
    t->is_contiguous = src->is_contiguous;
    nt_tensor_set_names_unchecked(t, src->names);
    return NT_OK;
}

nt_status nt_tensor_reserve_dims(nt_tensor *t, int ndim) {
    int capacity = t->grown ? NT_MAX_DIMS : (int)((int64_t *)t->name_slots - t->dims) / 2;
    if (ndim <= capacity) return NT_OK;
    int64_t *grown = malloc(NT_MAX_DIMS * (2 * sizeof(int64_t) + sizeof(nt_name)));
    if (!grown) return nt_fail(NT_ERR_MEMORY, "out of memory");
    nt_name *slots = (nt_name *)(grown + 2 * NT_MAX_DIMS);
    if (t->names) memcpy(slots, t->names, (size_t)t->ndim * sizeof *slots);
    t->name_slots = slots;
    if (t->names) t->names = slots;
    t->grown = grown;
    return NT_OK;
}

/* The positional queries skip the first-class dims that lead a tensor with levels
 * (ntensor/dims.h). */
int nt_tensor_ndim(const nt_tensor *t) {
    return t->ndim - nt_tensor_nlevels(t);
}
const int64_t *nt_tensor_sizes(const nt_tensor *t) {
    return t->sizes + nt_tensor_nlevels(t);
}
const int64_t *nt_tensor_strides(const nt_tensor *t) {
    return t->strides + nt_tensor_nlevels(t);
}
int64_t nt_tensor_offset(const nt_tensor *t) {
    return t->offset;
}
int64_t nt_tensor_numel(const nt_tensor *t) {
    return t->numel;
}
nt_dtype nt_tensor_dtype(const nt_tensor *t) {
    return t->dtype;
}
bool nt_tensor_is_contiguous(const nt_tensor *t) {
    return t->is_contiguous;
}
void *nt_tensor_data(const nt_tensor *t) {
    return nt_tensor_bytes(t);
}
const nt_name *nt_tensor_names(const nt_tensor *t) {
    return t->names ? t->names + nt_tensor_nlevels(t) : NULL;
}
bool nt_tensor_has_names(const nt_tensor *t) {
    return t->names != NULL;
}
void *nt_tensor_handle(const nt_tensor *t) {
    return t->handle;
}
void nt_tensor_set_handle(nt_tensor *t, void *handle) {
    t->handle = handle;
}
uint64_t nt_tensor_version(const nt_tensor *t) {
    return atomic_load_explicit(&t->storage->version, memory_order_relaxed);
}

bool nt_tensor_shares_storage(const nt_tensor *a, const nt_tensor *b) {
    return a->storage == b->storage;
}

nt_status nt_tensor_wrap_dim(const nt_tensor *t, int64_t dim, int64_t *out) {
    return nt_wrap_dim(dim, t->ndim, out);
}

/* The index of `name` among t's names, or -1. */
static int name_index(const nt_tensor *t, nt_name name) {
    for (int i = 0; name != NT_NAME_NONE && t->names && i < t->ndim; i++)
        if (t->names[i] == name) return i;
    return -1;
}

static nt_status name_not_found(const nt_tensor *t, nt_name name) {
    char text[512];
    nt_names_repr(t->names, t->ndim, text, sizeof text);
    const char *s = nt_name_str(name);
    return nt_fail(NT_ERR_RUNTIME, "Name '%s' not found in Tensor%s.", s ? s : "None", text);
}

nt_status nt_tensor_dim(const nt_tensor *t, nt_dim dim, int64_t *out) {
    if (!nt_dim_is_name(dim)) return nt_wrap_dim(dim, t->ndim, out);
    nt_name name = nt_dim_to_name(dim);
    if (name == NT_NAME_NONE)
        return nt_fail(NT_ERR_RUNTIME, "Please look up dimensions by name, got: name = None.");
    int i = name_index(t, name); /* found: a name of t, known (checked when t got it) */
    if (i >= 0) {
        *out = i;
        return NT_OK;
    }
    NT_TRY(nt_names_check_known(&name, 1));
    return name_not_found(t, name);
}

nt_status nt_tensor_dim_of(const nt_tensor *t, nt_name name, int64_t *out) {
    int i = name_index(t, name);
    if (i < 0) return name_not_found(t, name);
    *out = i;
    return NT_OK;
}

void nt_free(void *p) {
    free(p);
}
