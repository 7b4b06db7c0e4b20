/*
 * gather.h — what the gather family (gather.c) gives the other index ops (search.c): a
 * gather into a result of the index's shape, indices already checked, and a shape's text.
 */
#ifndef NT_OPS_GATHER_H
#define NT_OPS_GATHER_H

#include "core/tensor.h"

/* r[..] = t[.., index[..], ..] along dim d: r has index's shape and t's dtype; every index
 * is in [0, t.size(d)) and index.size(i) <= t.size(i) for i != d (checked by the caller). */
nt_status nt_gather_into(nt_tensor *r, const nt_tensor *t, int64_t d, const nt_tensor *index);

/* t's sizes as PyTorch prints them in messages, "[3, 4]", into buf (returned). */
const char *nt_shape_text(const nt_tensor *t, char *buf, size_t cap);

#endif
