/**
 * @file
 * ntensor/pointwise.h — the pointwise ops: binary (with broadcasting and type promotion), where,
 * clamp, isclose, and unary.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_POINTWISE_H
#define NTENSOR_POINTWISE_H

#include "ntensor/call.h"
#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ pointwise binary */
/* (clamp_min and clamp_max are nt_clamp with one bound; through the op table they are
 * NT_OP_CLAMP_MIN and NT_OP_CLAMP_MAX.) */
/* Broadcasting binary ops with PyTorch 1.13's type promotion, values and errors; names
 * unify from the right (an in-place op gives self the unified names; a named out= must
 * match them exactly). See docs/decisions_ops_binary.md. */

/** PyTorch's result_type: tensors with dims outrank zero-dim tensors, which outrank
 * scalars; a lower category only counts when it raises the kind (bool < int < float). */
NT_API nt_dtype nt_result_type(int ntensors, nt_tensor *const *tensors, int nscalars,
                               const nt_scalar *scalars);
/** PyTorch's can_cast: false for floating -> integral/bool and for non-bool -> bool. */
NT_API bool nt_can_cast(nt_dtype from, nt_dtype to);
/** PyTorch's scalar-type name for error texts: "Bool", "Byte", "Long", "Half", "Float"... */
NT_API const char *nt_dtype_torch_name(nt_dtype dtype);

/** The binary ops are ops of the op list (ntensor/call.h): NT_OP_ADD ... NT_OP_LOGICAL_XOR,
 * NT_OP_FMOD (C's remainder), NT_OP_BITWISE_LEFT_SHIFT, NT_OP_BITWISE_RIGHT_SHIFT.
 * DIV is true division (integers give float32); DIV_TRUNC and FLOOR_DIVIDE are div's
 * rounding modes (FLOOR_DIVIDE is `//`); REMAINDER is Python's `%`. Comparisons and
 * logical ops give bool tensors. NT_BINARY_* are their former names. */
typedef nt_op nt_binary_op;
#define NT_BINARY_ADD NT_OP_ADD                                 /**< former name */
#define NT_BINARY_SUB NT_OP_SUB                                 /**< former name */
#define NT_BINARY_MUL NT_OP_MUL                                 /**< former name */
#define NT_BINARY_DIV NT_OP_DIV                                 /**< former name */
#define NT_BINARY_DIV_TRUNC NT_OP_DIV_TRUNC                     /**< former name */
#define NT_BINARY_DIV_FLOOR NT_OP_FLOOR_DIVIDE                  /**< former name */
#define NT_BINARY_REMAINDER NT_OP_REMAINDER                     /**< former name */
#define NT_BINARY_POW NT_OP_POW                                 /**< former name */
#define NT_BINARY_ATAN2 NT_OP_ATAN2                             /**< former name */
#define NT_BINARY_MAXIMUM NT_OP_MAXIMUM                         /**< former name */
#define NT_BINARY_MINIMUM NT_OP_MINIMUM                         /**< former name */
#define NT_BINARY_EQ NT_OP_EQ                                   /**< former name */
#define NT_BINARY_NE NT_OP_NE                                   /**< former name */
#define NT_BINARY_LT NT_OP_LT                                   /**< former name */
#define NT_BINARY_LE NT_OP_LE                                   /**< former name */
#define NT_BINARY_GT NT_OP_GT                                   /**< former name */
#define NT_BINARY_GE NT_OP_GE                                   /**< former name */
#define NT_BINARY_BITWISE_AND NT_OP_BITWISE_AND                 /**< former name */
#define NT_BINARY_BITWISE_OR NT_OP_BITWISE_OR                   /**< former name */
#define NT_BINARY_BITWISE_XOR NT_OP_BITWISE_XOR                 /**< former name */
#define NT_BINARY_LOGICAL_AND NT_OP_LOGICAL_AND                 /**< former name */
#define NT_BINARY_LOGICAL_OR NT_OP_LOGICAL_OR                   /**< former name */
#define NT_BINARY_LOGICAL_XOR NT_OP_LOGICAL_XOR                 /**< former name */
#define NT_BINARY_FMOD NT_OP_FMOD                               /**< former name */
#define NT_BINARY_BITWISE_LEFT_SHIFT NT_OP_BITWISE_LEFT_SHIFT   /**< former name */
#define NT_BINARY_BITWISE_RIGHT_SHIFT NT_OP_BITWISE_RIGHT_SHIFT /**< former name */
#define NT_BINARY_OP_COUNT NT_OP_COUNT /**< ops that are not binary ops are refused */

/** PyTorch's name of the op ("add", "floor_divide", ...). */
NT_API const char *nt_binary_op_name(nt_binary_op op);

/** One operand: a tensor, or (tensor NULL) a Python-like scalar of the lowest category. */
typedef struct nt_operand {
    nt_tensor *tensor; /**< the tensor (borrowed), or NULL for the scalar */
    nt_scalar scalar;  /**< the scalar, read when tensor is NULL */
} nt_operand;
/** A tensor operand (borrowed). */
static inline nt_operand nt_operand_tensor(nt_tensor *t) {
    nt_operand o;
    o.tensor = t;
    o.scalar = nt_scalar_int(0);
    return o;
}
/** A scalar operand. */
static inline nt_operand nt_operand_scalar(nt_scalar s) {
    nt_operand o;
    o.tensor = NULL;
    o.scalar = s;
    return o;
}

/** The general form of `a op b`; at least one operand is a tensor. alpha (add/sub only,
 * NULL = 1) scales b. Writes into `out` when given (out=: resized as PyTorch does), into
 * a's tensor when `inplace`, else into a new tensor; *result (may be NULL) receives the
 * tensor written, a new reference.
 * @param op a binary op (NT_OP_ADD ... ; others fail with NT_ERR_VALUE)
 * @param a,b the operands (tensors borrowed)
 * @param alpha NULL, or the multiplier of b (add and sub only)
 * @param out NULL, or the out= tensor (borrowed), resized and written
 * @param inplace write into a's tensor (self op= b)
 * @param[out] result NULL, or receives the tensor written (a new reference)
 * @return NT_OK; NT_ERR_RUNTIME for shapes or names that do not broadcast, or a result type
 *         that cannot be cast to the out= or in-place dtype */
NT_API nt_status nt_binary_ex(nt_binary_op op, nt_operand a, nt_operand b, const nt_scalar *alpha,
                              nt_tensor *out, bool inplace, nt_tensor **result);
/** a op b, a op scalar, scalar op b (reflected: 2 - x), and out=. */
NT_API nt_status nt_binary(nt_binary_op op, nt_tensor *a, nt_tensor *b, nt_tensor **out);
/** a op scalar, as a new tensor. */
NT_API nt_status nt_binary_scalar(nt_binary_op op, nt_tensor *a, nt_scalar b, nt_tensor **out);
/** scalar op b (reflected: 2 - x), as a new tensor. */
NT_API nt_status nt_binary_rscalar(nt_binary_op op, nt_scalar a, nt_tensor *b, nt_tensor **out);
/** a op b into `out` (out=: resized as PyTorch does). */
NT_API nt_status nt_binary_out(nt_binary_op op, nt_tensor *a, nt_tensor *b, nt_tensor *out);
/** In place: self = self op other ("result type Float can't be cast to the desired output
 * type Long" when the result does not fit self's dtype). */
NT_API nt_status nt_binary_(nt_binary_op op, nt_tensor *self, nt_tensor *other);
/** In place: self = self op scalar. */
NT_API nt_status nt_binary_scalar_(nt_binary_op op, nt_tensor *self, nt_scalar other);
/** Shorthands: a + b, a - b, a * b, a / b (true division). */
NT_API nt_status nt_add(nt_tensor *a, nt_tensor *b, nt_tensor **out);
/** a - b. */
NT_API nt_status nt_sub(nt_tensor *a, nt_tensor *b, nt_tensor **out);
/** a * b. */
NT_API nt_status nt_mul(nt_tensor *a, nt_tensor *b, nt_tensor **out);
/** a / b (true division: integers give float32). */
NT_API nt_status nt_div(nt_tensor *a, nt_tensor *b, nt_tensor **out);

/** where(cond, a, b): a where cond (bool or uint8) is true, else b; a and b may be scalars.
 * Names unify over the three inputs (PyTorch 1.13 refuses named tensors here). */
NT_API nt_status nt_where(nt_tensor *cond, nt_operand a, nt_operand b, nt_tensor *out,
                          nt_tensor **result);
/** clamp with optional bounds (NULL = none; at least one); scalar bounds keep t's names,
 * tensor bounds broadcast and unify. Same out/inplace/result rules as nt_binary_ex. */
NT_API nt_status nt_clamp(nt_tensor *t, const nt_operand *min, const nt_operand *max,
                          nt_tensor *out, bool inplace, nt_tensor **result);
/** |a - b| <= atol + rtol * |b| (or equal; NaNs equal when equal_nan), a bool tensor with
 * unified names; a and b must have the same dtype. allclose reduces it to one bool. */
NT_API nt_status nt_isclose(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                            nt_tensor **out);
/** allclose: whether nt_isclose holds everywhere, into *out. */
NT_API nt_status nt_allclose(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                             bool *out);
/** lerp(self, end, weight): self + weight * (end - self) (PyTorch's formula), weight a tensor
 * or a number; self, end and a tensor weight share one floating dtype (bfloat16, float32,
 * float64); names unify over the tensors. Same out/inplace/result rules as nt_binary_ex. */
NT_API nt_status nt_lerp(nt_tensor *self, nt_tensor *end, nt_operand weight, nt_tensor *out,
                         bool inplace, nt_tensor **result);
/** torch.equal: true when a and b have the same names and sizes and equal elements (compared
 * in their promoted dtype; NaN is not equal to itself). */
NT_API nt_status nt_equal(nt_tensor *a, nt_tensor *b, bool *out);
/** threshold(t, threshold, value): t where t > threshold, else value, in t's dtype, names
 * kept ("\"threshold_cpu\" not implemented for 'Bool'"). Same out/inplace/result rules as
 * nt_binary_ex. */
NT_API nt_status nt_threshold(nt_tensor *t, nt_scalar threshold, nt_scalar value, nt_tensor *out,
                              bool inplace, nt_tensor **result);
/** addcmul: self + value * t1 * t2; addcdiv: self + value * t1 / t2 (floating t1 or t2 only);
 * the result type of the three tensors, names unified over them. Same out/inplace/result
 * rules as nt_binary_ex. */
NT_API nt_status nt_addcmul(nt_tensor *self, nt_tensor *t1, nt_tensor *t2, nt_scalar value,
                            nt_tensor *out, bool inplace, nt_tensor **result);
/** addcdiv: self + value * t1 / t2 (see nt_addcmul). */
NT_API nt_status nt_addcdiv(nt_tensor *self, nt_tensor *t1, nt_tensor *t2, nt_scalar value,
                            nt_tensor *out, bool inplace, nt_tensor **result);

/* ------------------------------------------------------------------ pointwise unary */
/* Elementwise functions of one tensor with PyTorch 1.13's dtype rules, values and errors;
 * the result keeps the input's names. Integer and bool inputs of the floating functions
 * (acos ... tanh, exp ... rsqrt, reciprocal, sigmoid, erf, erfc, erfinv, digamma) compute
 * in float32; the other ops keep the input's dtype (logical_not gives bool). Unsupported
 * dtypes fail as PyTorch does ("\"exp_vml_cpu\" not implemented for 'Half'"). An out=
 * tensor must have the input's shape (it is not resized), and the result's dtype for the
 * ops that keep it ("Found dtype Long but expected Int"), a floating dtype for the floating
 * functions, any dtype for logical_not; an unnamed out takes the input's names, a named one
 * must have exactly them. In place, self's dtype must hold the result ("result type Float
 * can't be cast to the desired output type Long"). See docs/decisions_ops_unary.md. */
/* The unary ops are NT_OP_ABS ... NT_OP_RELU of ntensor/call.h (round: half to even; neg is
 * also torch.negative; relu is nn.functional.relu, max(x, 0) with NaN kept), and
 * NT_OP_ISNAN, NT_OP_ISINF, NT_OP_ISFINITE (bool results, no out= or in-place form),
 * NT_OP_LGAMMA. */

/** The general form: writes into `out` when given (out=), into t when `inplace`, else into a
 * new tensor; *result (may be NULL) receives the tensor written, a new reference. */
NT_API nt_status nt_unary_ex(nt_op op, nt_tensor *t, nt_tensor *out, bool inplace,
                             nt_tensor **result);
/** op(t) as a new tensor; in place (t = op(t)); into out. */
NT_API nt_status nt_unary(nt_op op, nt_tensor *t, nt_tensor **out);
/** op(t) in place (t = op(t)). */
NT_API nt_status nt_unary_(nt_op op, nt_tensor *t);
/** op(t) into `out`. */
NT_API nt_status nt_unary_out(nt_op op, nt_tensor *t, nt_tensor *out);
/** torch.round(t, decimals=d): rint(t * 10^d) / 10^d (d < 0: rint(t / 10^-d) * 10^-d) in
 * t's type, floating dtypes only, d = 0 included ("\"round_cpu\" not implemented for 'Int'");
 * forms as nt_unary_ex. */
NT_API nt_status nt_round_decimals(nt_tensor *t, int64_t decimals, nt_tensor *out, bool inplace,
                                   nt_tensor **result);
/** torch.polygamma(n, t): the n-th derivative of digamma (n = 0: digamma), in floating
 * point ("polygamma(n, x) does not support negative n."); forms as nt_unary_ex. */
NT_API nt_status nt_polygamma(int64_t n, nt_tensor *t, nt_tensor *out, bool inplace,
                              nt_tensor **result);
/** torch.positive: t itself (a new reference); bool fails ("The `+` operator, on a bool
 * tensor is not supported."). */
NT_API nt_status nt_positive(nt_tensor *t, nt_tensor **out);
/** Shorthands for nt_unary(NT_OP_..., t, out). */
NT_API nt_status nt_abs(nt_tensor *t, nt_tensor **out);
/** -t. */
NT_API nt_status nt_neg(nt_tensor *t, nt_tensor **out);
/** exp(t). */
NT_API nt_status nt_exp(nt_tensor *t, nt_tensor **out);
/** The natural logarithm of t. */
NT_API nt_status nt_log(nt_tensor *t, nt_tensor **out);
/** sqrt(t). */
NT_API nt_status nt_sqrt(nt_tensor *t, nt_tensor **out);
/** tanh(t). */
NT_API nt_status nt_tanh(nt_tensor *t, nt_tensor **out);
/** 1 / (1 + exp(-t)). */
NT_API nt_status nt_sigmoid(nt_tensor *t, nt_tensor **out);
/** max(t, 0), NaN kept (nn.functional.relu). */
NT_API nt_status nt_relu(nt_tensor *t, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_POINTWISE_H */
