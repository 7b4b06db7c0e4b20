/*
 * storage.h — a refcounted buffer that tensors view.
 *
 * A storage owns its bytes (from nt_alloc_data) or wraps someone else's (NumPy's, the
 * user's) with a release callback. The version counter is bumped by every in-place write so
 * that autograd can tell when a saved tensor changed.
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
    bool external; /* true when data is not ours to free */
};

/* A new storage of `nbytes` owned bytes (uninitialised). */
nt_status nt_storage_new(size_t nbytes, nt_storage **out);
/* A storage over external memory; release(ctx, data) runs at the end (may be NULL). */
nt_status nt_storage_wrap(void *data, size_t nbytes, nt_release_fn release, void *ctx,
                          nt_storage **out);
void nt_storage_retain(nt_storage *s);
void nt_storage_release(nt_storage *s);

static inline void nt_storage_bump_version(nt_storage *s) {
    atomic_fetch_add_explicit(&s->version, 1, memory_order_relaxed);
}

#endif
