/*
 * refcount.h — the atomic reference counts of tensors, storages, dims and graph nodes.
 *
 * Dropping the last reference needs no locked instruction: while a thread holds the only
 * reference, no other thread can add or drop one, and an acquire load that reads 1 orders
 * the thread after every earlier dropper's release (c10's intrusive_ptr does the same). A
 * view made and freed per call (t[i, k], a slice) so pays one locked instruction fewer.
 */
#ifndef NT_CORE_REFCOUNT_H
#define NT_CORE_REFCOUNT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

static inline void nt_ref_add(_Atomic int64_t *count) {
    atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
}

/* Drops one reference; true when it was the last (the object is then the caller's to free). */
static inline bool nt_ref_drop(_Atomic int64_t *count) {
    return atomic_load_explicit(count, memory_order_acquire) == 1 ||
           atomic_fetch_sub_explicit(count, 1, memory_order_acq_rel) == 1;
}

#endif
