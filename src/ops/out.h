/*
 * out.h — the tensors an op writes: a fresh result shaped like an input, and the rules every
 * op applies to an out= tensor, in one place.
 *
 * PyTorch resizes an out= tensor of another shape than the result's: an unnamed one is
 * resized (with a deprecation warning when it had elements), a named one refuses ("Cannot
 * resize named tensor with resize_ or resize_as_ ..."). Its names then follow
 * nt_names_check_out (names/infer.h) and its dtype the op's dtype rule.
 */
#ifndef NT_OPS_OUT_H
#define NT_OPS_OUT_H

#include "ntensor.h"

/* A new tensor like `like` (its sizes, names and, when it is dense, its layout: PyTorch's
 * memory_format=preserve) of dtype `dtype` (-1: like's): what empty_like makes, without the
 * dispatcher, for the ops' own results. */
nt_status nt_result_like(const nt_tensor *like, int dtype, nt_tensor **out);

/* Gives `out` the result's shape as PyTorch's resize_output does: nothing when it has it,
 * else resize_ (contiguous strides, storage grown) with PyTorch's warning (nt_warn) when
 * out had elements; the named-tensor error when out is named. */
nt_status nt_out_resize(nt_tensor *out, int ndim, const int64_t *sizes);

/* copy_ and fill_ of a tensor an op is making (its fresh result, or a view of it), without
 * the dispatcher: values only (src broadcast to dst, converted to its dtype), names left
 * alone, and the version counter too, so that a fresh result starts at version 0 as
 * PyTorch's. */
nt_status nt_copy_values(nt_tensor *dst, const nt_tensor *src);
nt_status nt_fill_values(nt_tensor *t, nt_scalar value);

/* An op's result r delivered: into its out= tensor when the call has one (nt_out_resize, then
 * r's values; r released, out the result), else as result[0]. (arrange.c) */
nt_status nt_out_deliver(nt_call *c, nt_tensor *r);

#endif
