/**
 * @file
 * ntensor/random.h — random distributions in place, bernoulli, normal, dropout.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_RANDOM_H
#define NTENSOR_RANDOM_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ random ops */
/* In-place distributions on the generator of the "random" section: each keeps t's names,
 * works on any layout (element i in row-major order gets the same value whatever the
 * strides), bumps the storage version and is independent of the thread count. Dtype support
 * and error texts are PyTorch 1.13's (e.g. "\"cauchy_cpu\" not implemented for 'Long'"). */

/** cauchy_(median, sigma), exponential_(lambd >= 0), log_normal_(mean, std > 0): floats. */
NT_API nt_status nt_cauchy_(nt_tensor *t, double median, double sigma);
/** exponential_(lambd): floats. */
NT_API nt_status nt_exponential_(nt_tensor *t, double lambd);
/** log_normal_(mean, std > 0): floats. */
NT_API nt_status nt_log_normal_(nt_tensor *t, double mean, double std);
/** geometric_(p in (0, 1)): trials up to the first success (1, 2, ...); every dtype but bool. */
NT_API nt_status nt_geometric_(nt_tensor *t, double p);
/** bernoulli_(p in [0, 1]): 1 with probability p; every dtype but float16. */
NT_API nt_status nt_bernoulli_(nt_tensor *t, double p);
/** bernoulli_(p tensor): p (float32/float64/bfloat16, values in [0, 1]) expands to t's shape. */
NT_API nt_status nt_bernoulli_tensor_(nt_tensor *t, const nt_tensor *p);
/** torch.bernoulli(input): 1 with probability input[i], input's dtype and names. */
NT_API nt_status nt_bernoulli(const nt_tensor *input, nt_tensor **out);
/** torch.bernoulli(input, p): like input (dtype, shape, names), 1 with probability p. */
NT_API nt_status nt_bernoulli_p(const nt_tensor *input, double p, nt_tensor **out);
/** random_(): integers in [0, 2^mantissa digits] for floats, [0, max] for integer dtypes. */
NT_API nt_status nt_random_(nt_tensor *t);
/** random_(to): [0, to). */
NT_API nt_status nt_random_to_(nt_tensor *t, int64_t to);
/** random_(from, to): [from, *to); `to` NULL: [from, the dtype's max] (from = INT64_MIN then
 * means all 64 bits). Bounds are adjusted and checked as PyTorch does. */
NT_API nt_status nt_random_from_to_(nt_tensor *t, int64_t from, const int64_t *to);
/** Which of PyTorch's precision warnings random_(from, to) deserves on a float dtype: bit 0
 * "from is out of bounds [-(2^d), 2^d]", bit 1 the same for "to - 1"; 0 for none. */
NT_API int nt_random_precision_warnings(nt_dtype dtype, int64_t from, const int64_t *to);
/** torch.normal with tensor arguments: normal(mean, std), normal(mean, std: float) and
 * normal(mean: float, std). The shape is the broadcast of the tensors', the names their
 * unification from the right (PyTorch 1.13 refuses named inputs here), the dtype mean's
 * (std's when mean is a number); std must be >= 0 everywhere. */
NT_API nt_status nt_normal_tensors(const nt_tensor *mean, const nt_tensor *std, nt_tensor **out);
/** normal(mean tensor, std number). */
NT_API nt_status nt_normal_mean_tensor(const nt_tensor *mean, double std, nt_tensor **out);
/** normal(mean number, std tensor). */
NT_API nt_status nt_normal_std_tensor(double mean, const nt_tensor *std, nt_tensor **out);
/** The out= form: mean and std each a tensor or, when NULL, the value beside it. `out` must
 * have the broadcast shape; unnamed, it takes the computed names, named, it must match. */
NT_API nt_status nt_normal_out(nt_tensor *out, const nt_tensor *mean, double mean_value,
                               const nt_tensor *std, double std_value);
/** Dropout: zeroes each element with probability p, scales the rest by 1 / (1 - p), keeps
 * names (and a dense input's strides). !train, p == 0 or no elements: `input` itself (a new
 * reference); p == 1: input * 0. p outside [0, 1] is NT_ERR_VALUE ("dropout probability
 * has to be between 0 and 1, but got 1.5"); other p need bfloat16, float32 or float64. */
NT_API nt_status nt_dropout(nt_tensor *input, double p, bool train, nt_tensor **out);
/** Dropout in place (t written; see nt_dropout). */
NT_API nt_status nt_dropout_(nt_tensor *t, double p, bool train);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_RANDOM_H */
