/**
 * @file
 * ntensor/factory.h — tensors made from nothing: empty, zeros, ones, full, arange, from a buffer,
 * random fills.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_FACTORY_H
#define NTENSOR_FACTORY_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ factories */
/* `names` may be NULL; `dtype` is the element type (see nt_default_dtype()). */

/** A new tensor of `ndim` dims of the given sizes, contiguous, its elements not initialised
 * (torch.empty).
 * @param ndim the number of dims, 0 to NT_MAX_DIMS
 * @param sizes ndim sizes, each >= 0 (may be NULL when ndim is 0)
 * @param dtype the element type
 * @param names ndim names, or NULL for an unnamed tensor
 * @param[out] out the tensor: a new reference, which the caller releases with
 *             nt_tensor_release; untouched on failure
 * @return NT_OK, or the failure's status (a negative size, invalid or repeated names, too
 *         many elements, no memory) with nt_last_error() saying which */
NT_API nt_status nt_empty(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                          nt_tensor **out);
/** A new tensor of zeros (torch.zeros); arguments and ownership as nt_empty's. */
NT_API nt_status nt_zeros(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                          nt_tensor **out);
/** A new tensor of ones (torch.ones); arguments and ownership as nt_empty's. */
NT_API nt_status nt_ones(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                         nt_tensor **out);
/** A new tensor with every element `value` converted to `dtype` (torch.full); arguments and
 * ownership as nt_empty's. */
NT_API nt_status nt_full(int ndim, const int64_t *sizes, nt_scalar value, nt_dtype dtype,
                         const nt_name *names, nt_tensor **out);
/** The values start, start+step, ... below end (above end for a negative step). */
NT_API nt_status nt_arange(nt_scalar start, nt_scalar end, nt_scalar step, nt_dtype dtype,
                           nt_tensor **out);
/** A new tensor holding a copy of the contiguous elements of `dtype` at `data` (as many as the
 * product of `sizes`), shaped `sizes` and named `names` (may be NULL). */
NT_API nt_status nt_from_buffer(const void *data, nt_dtype dtype, int ndim, const int64_t *sizes,
                                const nt_name *names, nt_tensor **out);
/** A tensor over external memory, without a copy. `strides` are in elements (NULL:
 * contiguous); `nbytes` bounds the buffer; `release(ctx, data)` runs when the last view
 * goes away (NULL: the memory is the caller's to keep alive). On failure the memory stays the
 * caller's: release is not called. */
NT_API nt_status nt_from_external(void *data, size_t nbytes, nt_dtype dtype, int ndim,
                                  const int64_t *sizes, const int64_t *strides,
                                  nt_release_fn release, void *ctx, nt_tensor **out);
/** The *_like factories take the shape and names of `like`; dtype -1 keeps its dtype. */
NT_API nt_status nt_empty_like(const nt_tensor *like, int dtype, nt_tensor **out);
/** zeros_like: a new tensor of zeros with like's shape and names. */
NT_API nt_status nt_zeros_like(const nt_tensor *like, int dtype, nt_tensor **out);
/** ones_like: a new tensor of ones with like's shape and names. */
NT_API nt_status nt_ones_like(const nt_tensor *like, int dtype, nt_tensor **out);
/** full_like: a new tensor of `value` with like's shape and names. */
NT_API nt_status nt_full_like(const nt_tensor *like, nt_scalar value, int dtype, nt_tensor **out);

/* ------------------------------------------------------------------ random */
/* A counter-based generator (Philox 4x32-10): element i of a fill depends only on the
 * seed, the generator's offset and i, so results do not depend on the thread count. */

/** Seeds the process-wide generator (torch.manual_seed) and resets its offset. */
NT_API void nt_manual_seed(uint64_t seed);
/** Uniform values on [0, 1) (torch.rand); arguments and ownership as nt_empty's; floating dtypes
 * only. */
NT_API nt_status nt_rand(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                         nt_tensor **out);
/** Standard normal values (torch.randn); arguments and ownership as nt_empty's; floating dtypes
 * only. */
NT_API nt_status nt_randn(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                          nt_tensor **out);
/** rand_like: uniform values on [0, 1) with like's shape and names (dtype -1: like's). */
NT_API nt_status nt_rand_like(const nt_tensor *like, int dtype, nt_tensor **out);
/** randn_like: standard normal values with like's shape and names (dtype -1: like's). */
NT_API nt_status nt_randn_like(const nt_tensor *like, int dtype, nt_tensor **out);
/** Fills `t` in place: uniform on [low, high), normal(mean, std). */
NT_API nt_status nt_uniform_(nt_tensor *t, double low, double high);
/** Fills `t` in place with normal(mean, std) values; bumps the version. */
NT_API nt_status nt_normal_(nt_tensor *t, double mean, double std);
/** normal(mean, std) of the given shape (float dtypes only). */
NT_API nt_status nt_normal(double mean, double std, int ndim, const int64_t *sizes, nt_dtype dtype,
                           const nt_name *names, nt_tensor **out);

/** eye(n, m): ones on the diagonal of an n x m matrix (m < 0: m = n); linspace: `steps`
 * values from start to end evenly spaced; logspace: base raised to them. dtype -1: the
 * default dtype; names NULL or two (eye) / one name. (src/ops/grid.c) */
NT_API nt_status nt_eye(int64_t n, int64_t m, int dtype, const nt_name *names, nt_tensor **out);
/** torch.linspace: `steps` values from start to end, evenly spaced (see above). */
NT_API nt_status nt_linspace(nt_scalar start, nt_scalar end, int64_t steps, int dtype,
                             const nt_name *names, nt_tensor **out);
/** torch.logspace: base raised to the values of nt_linspace(start, end, steps). */
NT_API nt_status nt_logspace(nt_scalar start, nt_scalar end, int64_t steps, double base, int dtype,
                             const nt_name *names, nt_tensor **out);
/** t.new_zeros(size) and its kin: op NT_OP_NEW_EMPTY, _ZEROS, _ONES or _FULL (value), dtype -1:
 * t's; unnamed. randint: integers in [low, high) (dtype -1: int64); randperm: 0 .. n-1 in a
 * random order (dtype -1: int64). */
NT_API nt_status nt_new_sized(int op, nt_tensor *t, int ndim, const int64_t *sizes, nt_scalar value,
                              int dtype, nt_tensor **out);
/** torch.randint: integers in [low, high) of the given sizes (dtype -1: int64), unnamed. */
NT_API nt_status nt_randint(int64_t low, int64_t high, int ndim, const int64_t *sizes, int dtype,
                            nt_tensor **out);
/** torch.randperm: 0 .. n-1 in a random order (dtype -1: int64), unnamed. */
NT_API nt_status nt_randperm(int64_t n, int dtype, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_FACTORY_H */
