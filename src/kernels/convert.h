/*
 * convert.h — the inner loops that copy, convert and fill elements (layer L3).
 *
 * All are nt_loop2d loops for the iterator (iter.h): they never fail and never allocate.
 * Conversions give exactly PyTorch 1.13's values on x86:
 *   - float -> int64: 64-bit truncation; float -> int32/int16/int8: 32-bit truncation,
 *     then wrap-around; float -> uint8: 64-bit truncation, then wrap-around. NaN and
 *     out-of-range values truncate to the "indefinite" INT64_MIN / INT32_MIN first.
 *   - int -> float16/bfloat16: to float (round to nearest even), then to 16 bits (round to
 *     nearest even) — the double rounding PyTorch does; float64 -> float16/bfloat16 also
 *     goes through float.
 *   - anything -> bool: nonzero (NaN included) is true.
 *   - int -> int: two's complement wrap-around.
 */
#ifndef NT_KERNELS_CONVERT_H
#define NT_KERNELS_CONVERT_H

#include "core/dtype.h"
#include "iter/iter.h"

/* The loop converting operand 1 (of dtype src) into operand 0 (of dtype dst). Same-dtype
 * pairs are plain copies (memcpy when contiguous, cache-blocked when transposed). */
nt_loop2d nt_convert_loop(nt_dtype dst, nt_dtype src);

/* The loop writing one value into operand 0 (of dtype `dtype`): ctx points at that value,
 * already in `dtype`'s representation. */
nt_loop2d nt_fill_loop(nt_dtype dtype);

/* PyTorch's checked conversion of a Python scalar to a dtype (what fill_ and full do):
 * fails with "value cannot be converted to type uint8_t without overflow" when the value
 * is out of the dtype's range (NaN for integers; infinities are fine for floats; negative
 * integers down to -max wrap for unsigned types; bool accepts anything). */
nt_status nt_scalar_check_fits(nt_scalar value, nt_dtype dtype);

#endif
