/*
 * storage.c — creation and refcounting of storages.
 */
#include "storage.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "refcount.h"
#include "small_alloc.h"
#include "status.h"

/* Every field of a fresh storage (refcount 1, version 0) that frees `block` at its end. */
static void init_storage(nt_storage *s, void *block, void *data, size_t nbytes, bool inline_data,
                         bool external, nt_release_fn release, void *release_ctx) {
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->data = data;
    s->nbytes = nbytes;
    s->release = release;
    s->release_ctx = release_ctx;
    s->external = external;
    s->inline_data = inline_data;
    s->block = block;
}

void nt_storage_init_inline(nt_storage *s, void *block, size_t nbytes) {
    /* the data at the first 64-byte boundary after the struct (an aligned allocation of the
     * block would cost several times more) */
    uintptr_t after = (uintptr_t)(s + 1);
    void *data = (void *)((after + NT_ALIGNMENT - 1) & ~(uintptr_t)(NT_ALIGNMENT - 1));
    init_storage(s, block, data, nbytes, true, false, NULL, NULL);
}

nt_status nt_storage_new(size_t nbytes, nt_storage **out) {
    nt_storage *s;
    if (nbytes <= NT_STORAGE_INLINE_BYTES) {
        size_t bytes = sizeof *s + NT_ALIGNMENT - 1 + nbytes;
        s = nt_small_alloc(bytes);
        if (!s) return nt_fail_oom(bytes);
        nt_storage_init_inline(s, s, nbytes);
    } else {
        s = nt_small_alloc(sizeof *s);
        if (!s) return nt_fail_oom(sizeof *s);
        void *data = nt_alloc_data(nbytes);
        if (!data) {
            nt_small_free(s);
            return nt_fail_oom(nbytes);
        }
        init_storage(s, s, data, nbytes, false, false, NULL, NULL);
    }
    *out = s;
    return NT_OK;
}

nt_status nt_storage_wrap(void *data, size_t nbytes, nt_release_fn release, void *ctx,
                          nt_storage **out) {
    nt_storage *s = nt_small_alloc(sizeof *s);
    if (!s) return nt_fail_oom(sizeof *s);
    init_storage(s, s, data, nbytes, false, true, release, ctx);
    *out = s;
    return NT_OK;
}

nt_status nt_storage_grow(nt_storage *s, size_t nbytes) {
    if (s->external)
        return nt_fail(NT_ERR_RUNTIME, "Trying to resize storage that is not resizable");
    if (nbytes <= s->nbytes) return NT_OK;
    void *data = nt_alloc_data(nbytes);
    if (!data) return nt_fail_oom(nbytes);
    memcpy(data, s->data, s->nbytes);
    if (!s->inline_data) nt_free_data(s->data, s->nbytes);
    s->data = data;
    s->nbytes = nbytes;
    s->inline_data = false;
    return NT_OK;
}

void nt_storage_retain(nt_storage *s) {
    nt_ref_add(&s->refcount);
}

void nt_storage_release(nt_storage *s) {
    if (!s) return;
    if (!nt_ref_drop(&s->refcount)) return;
    if (!s->external && !s->inline_data)
        nt_free_data(s->data, s->nbytes);
    else if (s->release)
        s->release(s->release_ctx, s->data);
    nt_small_free(s->block);
}
