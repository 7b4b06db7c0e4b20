/*
 * gather.h — what the gather family (gather.c) gives the other index ops (sort.c): a gather
 * into a result of the index's shape, indices already checked.
 */
#ifndef NT_OPS_GATHER_H
#define NT_OPS_GATHER_H

#include "core/tensor.h"

/* r[..] = t[.., index[..], ..] along dim d: r has index's shape and t's dtype; every index
 * is in [0, t.size(d)) and index.size(i) <= t.size(i) for i != d (checked by the caller). */
nt_status nt_gather_into(nt_tensor *r, const nt_tensor *t, int64_t d, const nt_tensor *index);

#endif
