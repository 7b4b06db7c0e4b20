/*
 * storage.h — a refcounted buffer that tensors view.
 *
 * A storage owns its bytes (from nt_alloc_data, or for small tensors inline, in the same
 * allocation as the struct, so that a small tensor costs one malloc in all: see
 * nt_tensor_alloc) or wraps someone else's (NumPy's, the user's) with a release callback. The
 * version counter is bumped by every in-place write so that autograd can tell when a saved tensor
 * changed.
 */
#ifndef NT_CORE_STORAGE_H
#define NT_CORE_STORAGE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ntensor.h"

struct nt_storage {
    _Atomic int64_t refcount;
    void *data;
    size_t nbytes;
    nt_release_fn release; /* NULL: data came from nt_alloc_data */
    void *release_ctx;
    _Atomic uint64_t version;
    bool external;    /* true when data is not ours to free */
    bool inline_data; /* data lives in `block`, after the struct */
    void *block;      /* the malloc block holding this struct: itself, or the tensor made with it */
};

/* Data up to this size is stored inline, except under AddressSanitizer, which should see
 * every data block as an allocation of its own. */
#if defined(__SANITIZE_ADDRESS__)
#define NT_STORAGE_INLINE_BYTES 0
#else
#define NT_STORAGE_INLINE_BYTES 1024
#endif

/* A new storage of `nbytes` owned bytes (uninitialised). */
nt_status nt_storage_new(size_t nbytes, nt_storage **out);
/* Sets up `s`, placed in the malloc block `block` before at least nbytes + NT_ALIGNMENT - 1
 * spare bytes, as an owner of inline data; the storage frees `block` when it dies. */
void nt_storage_init_inline(nt_storage *s, void *block, size_t nbytes);
/* A storage over external memory; release(ctx, data) runs at the end (may be NULL). */
nt_status nt_storage_wrap(void *data, size_t nbytes, nt_release_fn release, void *ctx,
                          nt_storage **out);
/* Grows an owned storage to at least `nbytes`, keeping its bytes (the pointer changes). */
nt_status nt_storage_grow(nt_storage *s, size_t nbytes);
void nt_storage_retain(nt_storage *s);
void nt_storage_release(nt_storage *s);

static inline void nt_storage_bump_version(nt_storage *s) {
    atomic_fetch_add_explicit(&s->version, 1, memory_order_relaxed);
}

#endif
