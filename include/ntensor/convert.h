/**
 * @file
 * ntensor/convert.h — copies and conversions: copy_, fill_, contiguous, clone, to(dtype), item.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_CONVERT_H
#define NTENSOR_CONVERT_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ copy and convert */

/** Copies `src` into `dst`, broadcasting src to dst's shape and converting dtypes. */
NT_API nt_status nt_copy_(nt_tensor *dst, const nt_tensor *src);
/** Sets every element of `t` to `value` (converted with PyTorch's overflow check); bumps the
 * version. */
NT_API nt_status nt_fill_(nt_tensor *t, nt_scalar value);
/** Sets every element of `t` to zero; bumps the version. */
NT_API nt_status nt_zero_(nt_tensor *t);
/** A contiguous tensor with the same values: `t` itself (a new reference) if already so. */
NT_API nt_status nt_contiguous(nt_tensor *t, nt_tensor **out);
/** A copy that shares nothing with `t`, laid out like `t` when `t` is dense (the clone of a
 * transpose is a transpose, as in PyTorch), contiguous otherwise. */
NT_API nt_status nt_clone(const nt_tensor *t, nt_tensor **out);
/** `t` converted to `dtype` (names kept, layout as nt_clone's); `t` itself when the dtype
 * already matches. */
NT_API nt_status nt_to_dtype(nt_tensor *t, nt_dtype dtype, nt_tensor **out);
/** Reads a one-element tensor as a scalar of its dtype's kind. */
NT_API nt_status nt_item(const nt_tensor *t, nt_scalar *out);
/** The truth of a one-element tensor (bool(t)): PyTorch's errors for no or several values. */
NT_API nt_status nt_is_nonzero(const nt_tensor *t, bool *out);
/** One element of dtype `dtype` at p, as a scalar (bool, int64 or double), and a scalar
 * stored at p as that dtype (converted as a cast does): for bindings that walk a tensor's
 * data themselves (tolist, building a tensor from nested lists). */
NT_API nt_scalar nt_scalar_load(const void *p, nt_dtype dtype);
/** Stores `value` at `p` as `dtype` (converted as a cast does). */
NT_API void nt_scalar_store(void *p, nt_dtype dtype, nt_scalar value);
/** Whether `value` converts to `dtype` without overflow, as PyTorch's checked_convert decides
 * (NaN never fits an integer dtype; negative integers down to -max wrap for unsigned ones;
 * infinities fit floating dtypes; anything fits bool). */
NT_API bool nt_scalar_fits(nt_scalar value, nt_dtype dtype);
/** Reads the element at `index` (ndim entries, each non-negative and in range) as double. */
NT_API nt_status nt_get_double(const nt_tensor *t, const int64_t *index, double *out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_CONVERT_H */
