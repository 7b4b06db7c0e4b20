/*
 * storage.c — creation and refcounting of storages.
 */
#include "storage.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "small_alloc.h"
#include "status.h"

static void init_owned(nt_storage *s, size_t nbytes) {
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->nbytes = nbytes;
    s->release = NULL;
    s->release_ctx = NULL;
    s->external = false;
}

void nt_storage_init_inline(nt_storage *s, void *block, size_t nbytes) {
    /* the data at the first 64-byte boundary after the struct (an aligned allocation of the
     * block would cost several times more) */
    uintptr_t after = (uintptr_t)(s + 1);
    s->data = (void *)((after + NT_ALIGNMENT - 1) & ~(uintptr_t)(NT_ALIGNMENT - 1));
    s->inline_data = true;
    s->block = block;
    init_owned(s, nbytes);
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
        s->data = nt_alloc_data(nbytes);
        if (!s->data) {
            nt_small_free(s);
            return nt_fail_oom(nbytes);
        }
        s->inline_data = false;
        s->block = s;
        init_owned(s, nbytes);
    }
    *out = s;
    return NT_OK;
}

nt_status nt_storage_wrap(void *data, size_t nbytes, nt_release_fn release, void *ctx,
                          nt_storage **out) {
    nt_storage *s = nt_small_alloc(sizeof *s);
    if (!s) return nt_fail_oom(sizeof *s);
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->data = data;
    s->nbytes = nbytes;
    s->release = release;
    s->release_ctx = ctx;
    s->external = true;
    s->inline_data = false;
    s->block = s;
    *out = s;
    return NT_OK;
}

nt_status nt_storage_grow(nt_storage *s, size_t nbytes) {
    if (s->external) return nt_fail(NT_ERR_RUNTIME, "Trying to resize storage that is not resizable");
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
    atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void nt_storage_release(nt_storage *s) {
    if (!s) return;
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    if (!s->external && !s->inline_data)
        nt_free_data(s->data, s->nbytes);
    else if (s->release)
        s->release(s->release_ctx, s->data);
    nt_small_free(s->block);
}
