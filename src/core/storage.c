/*
 * storage.c — creation and refcounting of storages.
 */
#include "storage.h"

#include <stdlib.h>

#include "alloc.h"
#include "status.h"

nt_status nt_storage_new(size_t nbytes, nt_storage **out) {
    nt_storage *s = malloc(sizeof *s);
    if (!s) return nt_fail_oom(sizeof *s);
    s->data = nt_alloc_data(nbytes);
    if (!s->data) {
        free(s);
        return nt_fail_oom(nbytes);
    }
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->nbytes = nbytes;
    s->release = NULL;
    s->release_ctx = NULL;
    s->external = false;
    *out = s;
    return NT_OK;
}

nt_status nt_storage_wrap(void *data, size_t nbytes, nt_release_fn release, void *ctx,
                          nt_storage **out) {
    nt_storage *s = malloc(sizeof *s);
    if (!s) return nt_fail_oom(sizeof *s);
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->data = data;
    s->nbytes = nbytes;
    s->release = release;
    s->release_ctx = ctx;
    s->external = true;
    *out = s;
    return NT_OK;
}

void nt_storage_retain(nt_storage *s) {
    atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void nt_storage_release(nt_storage *s) {
    if (!s) return;
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    if (!s->external)
        nt_free_data(s->data, s->nbytes);
    else if (s->release)
        s->release(s->release_ctx, s->data);
    free(s);
}
