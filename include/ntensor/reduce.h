/**
 * @file
 * ntensor/reduce.h — reductions, scans and softmax.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_REDUCE_H
#define NTENSOR_REDUCE_H

#include "ntensor/call.h"
#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ reductions */
/* Reductions, scans and softmax. Every dim argument is an nt_dim: an index (negative counts
 * from the end) or a name (nt_dim_name), resolved with PyTorch's texts. A reduction over
 * `count` dims `dims` (no repeats) removes them, or keeps them with size one when
 * `keepdim`; count 0 reduces every dim (PyTorch's dim=None and dim=[]). Names follow
 * "removes dimensions". `dtype` -1 takes PyTorch's result dtype (integer and bool
 * sums/products give int64); another dtype converts the input first. Float sums are
 * pairwise over fixed blocks: the result never depends on the thread count. Each function
 * is one op of the op table (ntensor/call.h): nt_call_op runs the same with its out= form. */

/** dims[i] := the index of the dim named names[i] ("Name 'X' not found in Tensor[...]."). */
NT_API nt_status nt_dims_from_names(const nt_tensor *t, int count, const nt_name *names,
                                    int64_t *dims);

/** The sum over `dims` (see above), e.g. x.sum((0, 'C')) is
 * nt_sum(x, 2, (nt_dim[]){0, nt_dim_name(C)}, false, -1, &out).
 * @param t the tensor (borrowed)
 * @param count the number of dims; 0 sums every element
 * @param dims count dims: indices, names (nt_dim_name) or first-class dims (nt_dim_fc)
 * @param keepdim keep the reduced dims with size one
 * @param dtype -1 for PyTorch's result dtype, else the dtype to sum in
 * @param[out] out the sum, a new reference
 * @return NT_OK; NT_ERR_INDEX for a dim out of range, NT_ERR_RUNTIME for an unknown name or a
 *         repeated dim */
NT_API nt_status nt_sum(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, int dtype,
                        nt_tensor **out);
/** Float dtypes only (or a float `dtype`), like PyTorch. */
NT_API nt_status nt_mean(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, int dtype,
                         nt_tensor **out);
/** The product over `dims`. */
NT_API nt_status nt_prod(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, int dtype,
                         nt_tensor **out);
/** Sum of squared deviations / max(0, N - correction) (correction 1: unbiased); float only. */
NT_API nt_status nt_var(nt_tensor *t, int count, const nt_dim *dims, double correction,
                        bool keepdim, nt_tensor **out);
/** The square root of nt_var. */
NT_API nt_status nt_std(nt_tensor *t, int count, const nt_dim *dims, double correction,
                        bool keepdim, nt_tensor **out);
/** var and mean in one pass: two new references, *var and *mean. */
NT_API nt_status nt_var_mean(nt_tensor *t, int count, const nt_dim *dims, double correction,
                             bool keepdim, nt_tensor **var, nt_tensor **mean);
/** std and mean in one pass: two new references, *std and *mean. */
NT_API nt_status nt_std_mean(nt_tensor *t, int count, const nt_dim *dims, double correction,
                             bool keepdim, nt_tensor **std, nt_tensor **mean);
/** log(sum(exp(x))), stable; integer inputs give the default float dtype. */
NT_API nt_status nt_logsumexp(nt_tensor *t, int count, const nt_dim *dims, bool keepdim,
                              nt_tensor **out);
/** Bool results (uint8 for uint8 inputs, as PyTorch 1.13). */
NT_API nt_status nt_all(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, nt_tensor **out);
/** Whether any element over `dims` is non-zero (see nt_all for the dtype). */
NT_API nt_status nt_any(nt_tensor *t, int count, const nt_dim *dims, bool keepdim, nt_tensor **out);
/** Largest / smallest values (NaN propagates), in t's dtype. */
NT_API nt_status nt_amax(nt_tensor *t, int count, const nt_dim *dims, bool keepdim,
                         nt_tensor **out);
/** The smallest values over `dims` (see nt_amax). */
NT_API nt_status nt_amin(nt_tensor *t, int count, const nt_dim *dims, bool keepdim,
                         nt_tensor **out);
/** max() / min() of every element: a 0-dim tensor; fails for an empty t. */
NT_API nt_status nt_max_all(nt_tensor *t, nt_tensor **out);
/** min() of every element (see nt_max_all). */
NT_API nt_status nt_min_all(nt_tensor *t, nt_tensor **out);

/** The out= form of the reductions above, `op` one of NT_OP_SUM, _MEAN, _PROD, _VAR, _STD,
 * _LOGSUMEXP, _ALL, _ANY, _AMAX, _AMIN: an out of another shape is resized as PyTorch does
 * (ops/out.h); its dtype may differ (the result converts); an unnamed out takes the
 * computed names, a named one must have exactly them. `correction` is for var/std only. */
NT_API nt_status nt_reduce_out(nt_op op, nt_tensor *t, int count, const nt_dim *dims, bool keepdim,
                               int dtype, double correction, nt_tensor *out);

/** max(dim) / min(dim): values and int64 indices (the first extreme; a NaN wins). */
NT_API nt_status nt_max_dim(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values,
                            nt_tensor **indices);
/** min(dim): values and int64 indices (see nt_max_dim). */
NT_API nt_status nt_min_dim(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values,
                            nt_tensor **indices);
/** max(dim) into the out= tensors `values` and `indices`. */
NT_API nt_status nt_max_dim_out(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor *values,
                                nt_tensor *indices);
/** min(dim) into the out= tensors `values` and `indices`. */
NT_API nt_status nt_min_dim_out(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor *values,
                                nt_tensor *indices);
/** Index of the max (min) along *dim, or in the flattened tensor when dim is NULL. */
NT_API nt_status nt_argmax(nt_tensor *t, const nt_dim *dim, bool keepdim, nt_tensor **out);
/** Index of the min along *dim (see nt_argmax). */
NT_API nt_status nt_argmin(nt_tensor *t, const nt_dim *dim, bool keepdim, nt_tensor **out);

/** Order statistics along `dim` (values in t's dtype, int64 indices). median is the lower
 * median; a NaN makes median NaN (index of the first NaN); kthvalue is the k-th smallest
 * (1-based; NaN counts as largest); mode is the most frequent value (the smallest among
 * ties, with its last index). nt_median_all reduces every element to a 0-dim tensor. */
NT_API nt_status nt_median_all(nt_tensor *t, nt_tensor **out);
/** median(dim): the lower median along dim and its index. */
NT_API nt_status nt_median_dim(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values,
                               nt_tensor **indices);
/** kthvalue: the k-th smallest along dim (1-based) and its index. */
NT_API nt_status nt_kthvalue(nt_tensor *t, int64_t k, nt_dim dim, bool keepdim, nt_tensor **values,
                             nt_tensor **indices);
/** mode: the most frequent value along dim and its index. */
NT_API nt_status nt_mode(nt_tensor *t, nt_dim dim, bool keepdim, nt_tensor **values,
                         nt_tensor **indices);
/** The k largest (smallest) along `dim`, sorted when `sorted`; the dim keeps its name (its
 * size becomes k). NaN counts as the largest value. */
NT_API nt_status nt_topk(nt_tensor *t, int64_t k, nt_dim dim, bool largest, bool sorted,
                         nt_tensor **values, nt_tensor **indices);
/** sort: t's values along dim in ascending (descending) order, NaN above every number, and
 * their int64 indices; always stable (equal values keep their order), so `stable` changes
 * nothing. argsort: the indices alone. Names kept. */
NT_API nt_status nt_sort(nt_tensor *t, nt_dim dim, bool descending, bool stable, nt_tensor **values,
                         nt_tensor **indices);
/** argsort: the indices nt_sort gives, alone. */
NT_API nt_status nt_argsort(nt_tensor *t, nt_dim dim, bool descending, bool stable,
                            nt_tensor **out);

/** Running sum / product along `dim`, names kept; integer and bool inputs give int64 unless
 * `dtype` (-1: default) says otherwise. The _out forms write into `out` (out= rules). */
NT_API nt_status nt_cumsum(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out);
/** Running product along `dim` (see nt_cumsum). */
NT_API nt_status nt_cumprod(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out);
/** cumsum into `out`. */
NT_API nt_status nt_cumsum_out(nt_tensor *t, nt_dim dim, int dtype, nt_tensor *out);
/** cumprod into `out`. */
NT_API nt_status nt_cumprod_out(nt_tensor *t, nt_dim dim, int dtype, nt_tensor *out);
/** Running maximum / minimum along `dim` with the index where it was reached (the last of
 * equal values; a NaN stays once met, at its first index), names kept. */
NT_API nt_status nt_cummax(nt_tensor *t, nt_dim dim, nt_tensor **values, nt_tensor **indices);
/** Running minimum along `dim` with its index (see nt_cummax). */
NT_API nt_status nt_cummin(nt_tensor *t, nt_dim dim, nt_tensor **values, nt_tensor **indices);
/** log(cumsum(exp(x))) along `dim`, stable; float inputs only (PyTorch's kernel has no
 * integer types), names kept. */
NT_API nt_status nt_logcumsumexp(nt_tensor *t, nt_dim dim, nt_tensor **out);

/** softmax / log_softmax along `dim` (names kept); float32, float64 and bfloat16 inputs, or
 * any input with a float `dtype` (-1: none) to convert it to first. */
NT_API nt_status nt_softmax(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out);
/** log_softmax along `dim` (see nt_softmax). */
NT_API nt_status nt_log_softmax(nt_tensor *t, nt_dim dim, int dtype, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_REDUCE_H */
