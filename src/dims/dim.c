/*
 * dim.c — the first-class dim object (ntensor/dims.h): a name, a size that binds once, a
 * reference count, and its cached arange (the dim used as a tensor, without levels: a
 * range holding its dim would be a cycle).
 *
 * Every view that binds dims retains them and drops them when it dies: per call (A[i, k],
 * made and freed), that was one locked instruction per dim each way, most of a binding's
 * time. So a thread defers the references it drops: it keeps a few (dim, count) pairs, and
 * a retain by the same thread takes one of them back instead of counting up. A deferred
 * reference is still counted, so the dim lives on while it is held: deferring only delays
 * a free, never hastens one. They are counted down when the thread's table is full (the
 * oldest), when the thread exits, and at the process's exit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/refcount.h"
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
    /* from now on the dispatcher looks for dims: a dim argument of a call without them */
    if (!atomic_load_explicit(&nt_levels_made, memory_order_relaxed))
        atomic_store_explicit(&nt_levels_made, true, memory_order_relaxed);
    if (!name) name = "d";
    size_t len = strnlen(name, sizeof d->name - 1); /* no snprintf: dims() is per call */
    memcpy(d->name, name, len);
    d->name[len] = '\0';
    *out = d;
    return NT_OK;
}

static void fcdim_drop(nt_fcdim *d, int64_t n) {
    if (n > 1) atomic_fetch_sub_explicit(&d->refcount, n - 1, memory_order_acq_rel);
    if (!nt_ref_drop(&d->refcount)) return;
    nt_tensor_release(d->range);
    free(d);
}

#define DEFERRED_DIMS 8

typedef struct deferred {
    int count;
    bool registered; /* with the exit destructor and atexit */
    nt_fcdim *dims[DEFERRED_DIMS];
    int64_t refs[DEFERRED_DIMS]; /* references to dims[i] held, not counted down (> 0) */
} deferred;

static _Thread_local deferred held;

static void drop_held(void *unused) {
    (void)unused;
    while (held.count > 0) {
        held.count--;
        fcdim_drop(held.dims[held.count], held.refs[held.count]);
    }
}

static void drop_held_at_exit(void) {
    drop_held(NULL);
}

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_made;

static void make_exit_key(void) {
    exit_key_made = pthread_key_create(&exit_key, drop_held) == 0 && atexit(drop_held_at_exit) == 0;
}

/* Whether the thread's held references will be dropped when it exits (else none are held). */
static bool register_thread(deferred *h) {
    pthread_once(&exit_key_once, make_exit_key);
    h->registered = exit_key_made && pthread_setspecific(exit_key, h) == 0;
    return h->registered;
}

/* Takes back one reference to d that this thread holds (h), or counts one up. */
static void retain_one(deferred *h, nt_fcdim *d) {
    for (int i = 0; i < h->count; i++)
        if (h->dims[i] == d) {
            if (--h->refs[i] == 0) { /* the last one held: its slot goes */
                h->count--;
                h->dims[i] = h->dims[h->count];
                h->refs[i] = h->refs[h->count];
            }
            return;
        }
    nt_ref_add(&d->refcount);
}

/* Holds one reference to d that this thread drops (h), making room by dropping the oldest. */
static void release_one(deferred *h, nt_fcdim *d) {
    for (int i = 0; i < h->count; i++)
        if (h->dims[i] == d) {
            h->refs[i]++;
            return;
        }
    if (!h->registered && !register_thread(h)) {
        fcdim_drop(d, 1);
        return;
    }
    if (h->count == DEFERRED_DIMS) {
        nt_fcdim *old = h->dims[0];
        int64_t n = h->refs[0];
        memmove(h->dims, h->dims + 1, (DEFERRED_DIMS - 1) * sizeof *h->dims);
        memmove(h->refs, h->refs + 1, (DEFERRED_DIMS - 1) * sizeof *h->refs);
        h->count--;
        fcdim_drop(old, n);
    }
    h->dims[h->count] = d;
    h->refs[h->count++] = 1;
}

/* The thread's table, its address taken once per call (in a shared library each use of a
 * thread-local is a call to __tls_get_addr). */
static inline deferred *my_held(void) {
    deferred *h = &held;
    __asm__("" : "+r"(h));
    return h;
}

void nt_fcdims_retain(nt_fcdim *const *dims, int n) {
    deferred *h = my_held();
    for (int i = 0; i < n; i++)
        retain_one(h, dims[i]);
}

void nt_fcdims_release(nt_fcdim *const *dims, int n) {
    deferred *h = my_held();
    for (int i = 0; i < n; i++)
        release_one(h, dims[i]);
}

void nt_fcdim_retain(nt_fcdim *d) {
    if (d) nt_fcdims_retain(&d, 1);
}

void nt_fcdim_release(nt_fcdim *d) {
    if (d) nt_fcdims_release(&d, 1);
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
