/*
 * dim.c — the first-class dim object (ntensor/dims.h): a name, a size that binds once, a
 * reference count, and its cached arange (the dim used as a tensor, without levels: a
 * range holding its dim would be a cycle).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "dims/dims.h"

static _Atomic uint64_t dims_made; /* the serial of the next dim */

nt_status nt_fcdim_new(const char *name, int64_t size, nt_fcdim **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "nt_fcdim_new: NULL out");
    if (size < -1)
        return nt_fail(NT_ERR_VALUE, "Dim size must be non-negative, got %lld", (long long)size);
    nt_fcdim *d = malloc(sizeof *d);
    if (!d) return nt_fail_oom(sizeof *d);
    atomic_init(&d->refcount, 1);
    d->size = size;
    d->range = NULL;
    d->handle = NULL;
    d->serial = atomic_fetch_add_explicit(&dims_made, 1, memory_order_relaxed);
    if (!name) name = "d";
    size_t len = strnlen(name, sizeof d->name - 1); /* no snprintf: dims() is per call */
    memcpy(d->name, name, len);
    d->name[len] = '\0';
    *out = d;
    return NT_OK;
}

void nt_fcdim_retain(nt_fcdim *d) {
    if (d) atomic_fetch_add_explicit(&d->refcount, 1, memory_order_relaxed);
}

void nt_fcdim_release(nt_fcdim *d) {
    if (!d || atomic_fetch_sub_explicit(&d->refcount, 1, memory_order_acq_rel) != 1) return;
    nt_tensor_release(d->range);
    free(d);
}

void *nt_fcdim_handle(const nt_fcdim *d) {
    return d->handle;
}

void nt_fcdim_set_handle(nt_fcdim *d, void *handle) {
    d->handle = handle;
}

const char *nt_fcdim_name(const nt_fcdim *d) {
    return d->name;
}

int64_t nt_fcdim_size(const nt_fcdim *d) {
    return d->size;
}

bool nt_fcdim_is_bound(const nt_fcdim *d) {
    return d->size >= 0;
}

nt_status nt_fcdim_set_size(nt_fcdim *d, int64_t size) {
    if (size < 0)
        return nt_fail(NT_ERR_VALUE, "Dim '%s' cannot bind to a negative size %lld", d->name,
                       (long long)size);
    if (d->size >= 0 && d->size != size)
        return nt_fail(NT_ERR_DIM_BIND,
                       "Dim '%s' previously bound to a dimension of size %lld cannot bind to a "
                       "dimension of size %lld",
                       d->name, (long long)d->size, (long long)size);
    d->size = size;
    return NT_OK;
}

nt_status nt_fcdim_get_size(const nt_fcdim *d, int64_t *out) {
    if (d->size < 0) return nt_fail(NT_ERR_VALUE, "dimension %s is unbound", d->name);
    *out = d->size;
    return NT_OK;
}

void nt_dims_repr(nt_fcdim *const *dims, int n, char *buf, size_t cap) {
    size_t at = 0;
    at += (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", i ? ", " : "", dims[i]->name);
    if (at < cap) snprintf(buf + at, cap - at, n == 1 ? ",)" : ")");
}
