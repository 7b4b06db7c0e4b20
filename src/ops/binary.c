/*
 * binary.c — the pointwise binary ops (layer L4): add, sub, mul, div (three rounding
 * modes), remainder, fmod, pow, atan2, maximum/minimum, comparisons, bitwise, shift and
 * logical ops, with tensor or scalar operands, alpha, out= and in-place forms; isclose,
 * allclose and equal; and the steps every pointwise op with several operands shares
 * (pointwise_steps.h; ternary.c holds where, clamp, threshold, addcmul/addcdiv, lerp).
 * What each op is (name, dtype rule, PyTorch's kernel name) is its row of the op table
 * (ops.def); the nt_impl_* functions here read the call record, and the public functions
 * only fill one and go through the dispatcher.
 *
 * Every op runs the same steps, in PyTorch 1.13's order so the same mistake gives the same
 * error: op-specific argument checks -> names (unify from the right; an out or in-place
 * self must match) -> broadcast -> result type (nt_result_type) and can-cast of the
 * output -> kernel lookup by compute dtype -> data checks (integer division by zero) ->
 * allocate -> iterate. Python scalars are never materialised: they travel to the loop in
 * its ctx as one element of the compute dtype. Tensors of another dtype than the compute
 * dtype are converted first (zero-dim ones read as scalars); an output of another dtype
 * than the result gets it through a temporary and copy_.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "iter/iter.h"
#include "kernels/binary_kernels.h"
#include "kernels/convert.h"
#include "kernels/reduce_kernels.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/out.h"
#include "ops/pointwise_steps.h"

/* ------------------------------------------------------------------ op facts */

static bool is_binary(nt_op op) {
    return (unsigned)op < NT_OP_COUNT && nt_op_rows[op].impl == nt_impl_binary;
}

/* Integer division and remainder by zero are PyTorch's "ZeroDivisionError". */
static bool divides_integers(nt_op op) {
    return op == NT_OP_DIV_TRUNC || op == NT_OP_FLOOR_DIVIDE || op == NT_OP_REMAINDER ||
           op == NT_OP_FMOD;
}

const char *nt_binary_op_name(nt_binary_op op) {
    return is_binary(op) ? nt_op_rows[op].name : "unknown";
}

nt_status nt_pw_not_implemented(const char *kernel, nt_dtype dtype) {
    return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                   nt_dtype_torch_name(dtype));
}

static nt_status cannot_cast(nt_dtype from, nt_dtype to) {
    return nt_fail(NT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                   nt_dtype_torch_name(from), nt_dtype_torch_name(to));
}

static bool scalar_is_one(nt_scalar s) {
    switch (s.kind) {
    case NT_SCALAR_BOOL:
        return s.v.b;
    case NT_SCALAR_INT:
        return s.v.i == 1;
    default:
        return s.v.f == 1.0;
    }
}

static nt_scalar scalar_negate(nt_scalar s) {
    if (s.kind == NT_SCALAR_FLOAT) return nt_scalar_float(-s.v.f);
    int64_t i = s.kind == NT_SCALAR_BOOL ? (int64_t)s.v.b : s.v.i;
    return nt_scalar_int((int64_t)(0u - (uint64_t)i));
}

/* ------------------------------------------------------------------ shared steps */

void nt_pw_prepared_release(nt_pw_prepared *p) {
    if (p->owned) nt_tensor_release(p->tensor);
    p->tensor = NULL;
    p->owned = false;
}

/* A tensor `t` read as `dtype` for writing into `target`: itself when it already is that
 * dtype and cannot be corrupted by the writes, else a converted private copy. */
nt_status nt_pw_prepare_tensor(nt_tensor *t, nt_dtype dtype, const nt_tensor *target,
                               nt_pw_prepared *p) {
    bool alias = target && t != target && nt_extents_overlap(t, target);
    if (alias && t->dtype == dtype && nt_overlap_status(t, target) == NT_OVERLAP_FULL)
        alias = false; /* same elements in the same order: in-place safe */
    if (t->dtype == dtype && !alias) {
        p->tensor = t;
        p->owned = false;
        return NT_OK;
    }
    NT_TRY(nt_tensor_alloc(dtype, t->ndim, t->sizes, NULL, &p->tensor));
    p->owned = true;
    nt_tensor *ops[2] = {p->tensor, t};
    nt_iter it;
    nt_status st = nt_iter_build(&it, 2, ops, NULL);
    if (st != NT_OK) {
        nt_pw_prepared_release(p);
        return st;
    }
    nt_iter_run(&it, nt_convert_loop(dtype, t->dtype), NULL);
    return NT_OK;
}

static void prepare_scalar(nt_scalar s, nt_dtype dtype, nt_pw_prepared *p) {
    p->tensor = NULL;
    p->owned = false;
    memset(p->element, 0, sizeof p->element);
    nt_store_scalar(p->element, dtype, s);
}

/* Checks the tensor an op writes against the result, in PyTorch's order. An out= tensor
 * (is_out): castability, then its shape (resized to the broadcast shape bndim/shape, out.h),
 * then its names (PyTorch checks a named out even when no input is named). An in-place
 * self: its shape (never resized), names, castability. */
nt_status nt_pw_check_target(nt_tensor *target, bool is_out, int bndim, const int64_t *shape,
                             const nt_name *names, int ndim, nt_dtype result) {
    if (is_out) {
        if (!nt_can_cast(result, target->dtype)) return cannot_cast(result, target->dtype);
        NT_TRY(nt_out_resize(target, bndim, shape));
        return nt_names_check_out(target->names, target->ndim, names, ndim);
    }
    NT_TRY(nt_check_output_shape(target, bndim, shape));
    NT_TRY(nt_names_check_out(target->names, target->ndim, names, ndim));
    if (!nt_can_cast(result, target->dtype)) return cannot_cast(result, target->dtype);
    return NT_OK;
}

/* Gives an unnamed target the computed names (an in-place self or an out= tensor). */
nt_status nt_pw_name_target(nt_tensor *target, const nt_name *names) {
    if (!names || target->names) return NT_OK;
    return nt_tensor_set_names(target, names);
}

nt_status nt_pw_hand_back(nt_tensor *target, nt_tensor **fresh, const nt_name *names,
                          nt_tensor **result) {
    if (target != *fresh) NT_TRY(nt_pw_name_target(target, names));
    *result = *fresh ? *fresh : nt_tensor_retain(target);
    *fresh = NULL;
    return NT_OK;
}

/* Runs `loop` over ops[0..nops) (ops[0] the output) with ctx; when the target's dtype
 * differs from the loop's output dtype, through a temporary of shape (ndim, shape). */
nt_status nt_pw_run_into(nt_tensor *target, nt_dtype loop_out, int nops, nt_tensor **ops,
                         nt_loop2d loop, void *ctx) {
    nt_tensor *tmp = NULL;
    nt_status st = NT_OK;
    if (target->dtype != loop_out) {
        NT_TRY(nt_tensor_alloc(loop_out, target->ndim, target->sizes, NULL, &tmp));
        ops[0] = tmp;
    } else {
        ops[0] = target;
    }
    nt_iter it;
    NT_CHECK(st, nt_iter_build(&it, nops, ops, NULL));
    if (tmp) {
        nt_iter_run(&it, loop, ctx);
        NT_CHECK(st, nt_copy_(target, tmp));
    } else {
        nt_iter_run(&it, loop, ctx);
    }
fail:
    nt_tensor_release(tmp);
    return st;
}

/* The broadcast shape of up to four optional tensors. */
nt_status nt_pw_broadcast_of(int n, nt_tensor *const *ts, int *ndim, int64_t *shape) {
    nt_tensor *present[4];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (ts[i]) present[k++] = ts[i];
    return nt_broadcast_shapes(k, present, ndim, shape);
}

/* ------------------------------------------------------------------ binary ops */

/* PyTorch's sub_check, before anything else (the row's check). */
nt_status nt_check_sub(const nt_call *c) {
    const nt_arg *a = &c->args[0], *b = &c->args[1];
    bool ab = a->kind == NT_ARG_TENSOR ? a->v.t->dtype == NT_BOOL : a->v.s.kind == NT_SCALAR_BOOL;
    bool bb = b->kind == NT_ARG_TENSOR ? b->v.t->dtype == NT_BOOL : b->v.s.kind == NT_SCALAR_BOOL;
    if (ab && bb)
        return nt_fail(NT_ERR_RUNTIME,
                       "Subtraction, the `-` operator, with two bool tensors is not "
                       "supported. Use the `^` or `logical_xor()` operator instead.");
    if (ab || bb)
        return nt_fail(NT_ERR_RUNTIME,
                       "Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` "
                       "operator instead.");
    return NT_OK;
}

/* PyTorch's integer-pow check. */
static nt_status pow_check(nt_op op, const nt_operand *b, nt_dtype common) {
    if (op == NT_OP_POW && !b->tensor && b->scalar.kind == NT_SCALAR_INT && b->scalar.v.i < 0 &&
        nt_dtype_table[common].kind != NT_KIND_FLOAT)
        return nt_fail(NT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    return NT_OK;
}

/* PyTorch's alpha_check. */
static nt_status alpha_check(nt_dtype dtype, nt_scalar alpha) {
    if (alpha.kind == NT_SCALAR_BOOL && dtype != NT_BOOL)
        return nt_fail(NT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    if (alpha.kind == NT_SCALAR_FLOAT && nt_dtype_table[dtype].kind != NT_KIND_FLOAT)
        return nt_fail(NT_ERR_RUNTIME,
                       "For integral input tensors, argument alpha must not be a floating point "
                       "number.");
    return NT_OK;
}

/* ------------------------------------------------------------------ the fast path */

typedef struct flat_run {
    nt_loop2d loop;
    char *data[3];
    int64_t size[3];
} flat_run;

static void flat_chunk(void *p, int64_t begin, int64_t end) {
    const flat_run *r = p;
    char *data[3] = {r->data[0] + begin * r->size[0], r->data[1] + begin * r->size[1],
                     r->data[2] + begin * r->size[2]};
    int64_t st[6] = {r->size[0], r->size[1], r->size[2], 0, 0, 0};
    r->loop(data, st, end - begin, 1, NULL);
}

static bool same_names(const nt_tensor *a, const nt_tensor *b) {
    if (!a->names || !b->names) return a->names == b->names;
    return memcmp(a->names, b->names, (size_t)a->ndim * sizeof *a->names) == 0;
}

/* The common case, a op b on two contiguous tensors of one shape, dtype and names, into a
 * new tensor: no promotion, no broadcasting, nothing to check but the kernel's existence;
 * one flat loop, split across threads when large. Returns false (touching nothing) when the
 * case does not apply, so the general path runs and reports any error. */
static bool fast_binary(const nt_op_row *row, nt_op op, const nt_tensor *a, const nt_tensor *b,
                        nt_tensor **result, nt_status *st) {
    if (a->dtype != b->dtype || !a->is_contiguous || !b->is_contiguous || a->ndim != b->ndim ||
        divides_integers(op) || !same_names(a, b))
        return false;
    if (row->dtypes == NT_DT_FLOAT && nt_dtype_table[a->dtype].kind != NT_KIND_FLOAT) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d]) return false;
    const nt_binary_loops *loops = nt_binary_kernel(op, a->dtype);
    if (!loops) return false;
    nt_dtype rd = row->dtypes == NT_DT_BOOL ? NT_BOOL : a->dtype;
    nt_tensor *res;
    *st = nt_tensor_alloc(rd, a->ndim, a->sizes, a->names, &res);
    if (*st != NT_OK) return true;
    flat_run r = {loops->tt,
                  {nt_tensor_bytes(res), nt_tensor_bytes(a), nt_tensor_bytes(b)},
                  {(int64_t)nt_dtype_table[rd].size, (int64_t)nt_dtype_table[a->dtype].size,
                   (int64_t)nt_dtype_table[a->dtype].size}};
    if (a->numel < NT_GRAIN_SIZE)
        flat_chunk(&r, 0, a->numel);
    else
        nt_parallel_for(0, a->numel, NT_GRAIN_SIZE, flat_chunk, &r);
    *result = res;
    return true;
}

/* a op b (alpha: add/sub's, NULL when 1) into out, into a in place, or into a new tensor
 * (*result). */
static nt_status binary_run(nt_op op, nt_operand a, nt_operand b, const nt_scalar *alpha,
                            nt_tensor *out, bool inplace, nt_tensor **result) {
    const nt_op_row *row = nt_op_row_of(op);
    if (!a.tensor && !b.tensor)
        return nt_fail(NT_ERR_TYPE, "%s(): expected at least one tensor operand", row->name);
    if (inplace && !a.tensor)
        return nt_fail(NT_ERR_TYPE, "%s_(): self must be a tensor", row->name);
    nt_tensor *target = inplace ? a.tensor : out;

    /* The compute dtype and the result dtype. */
    nt_tensor *tensors[2] = {a.tensor, b.tensor};
    nt_scalar scalars[2] = {{0}, {0}};
    int nscalars = 0;
    if (!a.tensor) scalars[nscalars++] = a.scalar;
    if (!b.tensor) scalars[nscalars++] = b.scalar;
    nt_dtype common = nt_result_type(2, tensors, nscalars, scalars);
    if (row->dtypes == NT_DT_FLOAT && nt_dtype_table[common].kind != NT_KIND_FLOAT)
        common = nt_default_dtype();
    nt_dtype res_dtype = row->dtypes == NT_DT_BOOL ? NT_BOOL : common;
    NT_TRY(pow_check(op, &b, common));

    /* Names, then shapes. */
    nt_name name_buf[NT_MAX_DIMS];
    const nt_name *names;
    int ndim;
    NT_TRY(nt_names_unify_from_right(
        a.tensor ? a.tensor->names : NULL, a.tensor ? a.tensor->ndim : 0,
        b.tensor ? b.tensor->names : NULL, b.tensor ? b.tensor->ndim : 0, name_buf, &ndim, &names));
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(nt_pw_broadcast_of(2, tensors, &bndim, shape));
    if (target) NT_TRY(nt_pw_check_target(target, !inplace, bndim, shape, names, ndim, res_dtype));

    /* alpha, kernels. */
    bool use_alpha = false;
    nt_kparam alpha_param;
    if (alpha && (op == NT_OP_ADD || op == NT_OP_SUB)) {
        NT_TRY(alpha_check(common, *alpha));
        if (!scalar_is_one(*alpha)) {
            use_alpha = true;
            alpha_param = nt_kparam_make(common, op == NT_OP_SUB ? scalar_negate(*alpha) : *alpha);
        }
    }
    const nt_binary_loops *loops =
        use_alpha ? nt_binary_add_alpha_kernel(common) : nt_binary_kernel(op, common);
    if (!loops) return nt_pw_not_implemented(row->kernel, common);

    /* Operands in the compute dtype: zero-dim tensors of another dtype become scalars. */
    nt_pw_prepared pa = {0}, pb = {0};
    nt_status st = NT_OK;
    nt_tensor *res = NULL;
    /* A zero-dim tensor of another dtype is read as a scalar, unless it is the in-place
     * self or the other operand is (or becomes) a scalar: one tensor must remain. */
    bool scal_a = a.tensor && a.tensor->ndim == 0 && a.tensor->dtype != common && !inplace;
    bool scal_b = b.tensor && b.tensor->ndim == 0 && b.tensor->dtype != common;
    if (scal_b && (!a.tensor || scal_a)) scal_b = false;
    if (scal_a && !b.tensor) scal_a = false;
    if (scal_a && scal_b) scal_a = false;
    if (!a.tensor)
        prepare_scalar(a.scalar, common, &pa);
    else if (scal_a)
        prepare_scalar(nt_load_scalar(nt_tensor_bytes(a.tensor), a.tensor->dtype), common, &pa);
    else
        NT_CHECK(st, nt_pw_prepare_tensor(a.tensor, common, target, &pa));
    if (!b.tensor)
        prepare_scalar(b.scalar, common, &pb);
    else if (scal_b)
        prepare_scalar(nt_load_scalar(nt_tensor_bytes(b.tensor), b.tensor->dtype), common, &pb);
    else
        NT_CHECK(st, nt_pw_prepare_tensor(b.tensor, common, target, &pb));

    /* Integer division by zero. */
    if (divides_integers(op) && nt_dtype_table[common].kind != NT_KIND_FLOAT) {
        bool zero = pb.tensor ? nt_any_zero(pb.tensor) : nt_load_double(pb.element, common) == 0;
        if (zero) {
            st = nt_fail(NT_ERR_RUNTIME, "ZeroDivisionError");
            goto fail;
        }
    }

    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(res_dtype, bndim, shape, names, &res));
        target = res;
    }

    nt_binary_ctx ctx = {NULL, use_alpha ? (const void *)&alpha_param : NULL};
    nt_tensor *iops[3];
    int nops;
    nt_loop2d loop;
    nt_dtype loop_out = row->dtypes == NT_DT_BOOL ? NT_BOOL : common;
    if (pa.tensor && pb.tensor) {
        iops[1] = pa.tensor;
        iops[2] = pb.tensor;
        nops = 3;
        loop = loops->tt;
    } else if (pa.tensor) {
        iops[1] = pa.tensor;
        nops = 2;
        ctx.scalar = pb.element;
        loop = loops->ts;
        if (op == NT_OP_POW) {
            nt_loop2d special =
                nt_pow_scalar_special_loop(common, nt_load_double(pb.element, common));
            if (special) loop = special;
        }
    } else {
        iops[1] = pb.tensor;
        nops = 2;
        ctx.scalar = pa.element;
        loop = loops->st;
    }
    NT_CHECK(st, nt_pw_run_into(target, loop_out, nops, iops, loop, &ctx));
    NT_CHECK(st, nt_pw_hand_back(target, &res, names, result));
fail:
    nt_tensor_release(res);
    nt_pw_prepared_release(&pa);
    nt_pw_prepared_release(&pb);
    return st;
}

/* A call slot as an operand. */
nt_operand nt_pw_operand_of(const nt_arg *a) {
    return a->kind == NT_ARG_TENSOR ? nt_operand_tensor(a->v.t) : nt_operand_scalar(a->v.s);
}

/* The binary ops: (self, other) and, for add and sub, alpha; for div, rounding_mode. */
nt_status nt_impl_binary(nt_call *c) {
    nt_op op = c->op;
    const nt_arg *x = &c->args[0], *y = &c->args[1], *extra = &c->args[2];
    const nt_scalar *alpha = NULL;
    /* an int alpha of 1 (the default) passes alpha_check and changes nothing */
    if ((op == NT_OP_ADD || op == NT_OP_SUB) && extra->kind == NT_ARG_SCALAR &&
        !(extra->v.s.kind == NT_SCALAR_INT && extra->v.s.v.i == 1))
        alpha = &extra->v.s;
    /* tensor op tensor into a new tensor, without alpha or rounding mode: the common case */
    if (x->kind == NT_ARG_TENSOR && y->kind == NT_ARG_TENSOR && !c->out[0] && !c->inplace &&
        !alpha && !(op == NT_OP_DIV && extra->kind == NT_ARG_STR)) {
        nt_status st;
        if (fast_binary(nt_op_row_of(op), op, x->v.t, y->v.t, &c->result[0], &st)) return st;
    }
    if (op == NT_OP_DIV && c->args[2].kind == NT_ARG_STR) {
        const char *mode = c->args[2].v.str;
        if (strcmp(mode, "trunc") == 0)
            op = NT_OP_DIV_TRUNC;
        else if (strcmp(mode, "floor") == 0)
            op = NT_OP_FLOOR_DIVIDE;
        else
            return nt_fail(NT_ERR_RUNTIME,
                           "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           "but found '%s'",
                           mode);
    }
    return binary_run(op, nt_pw_operand_of(&c->args[0]), nt_pw_operand_of(&c->args[1]), alpha,
                      c->out[0], c->inplace, &c->result[0]);
}

nt_arg nt_pw_operand_arg(nt_operand o) {
    return o.tensor ? nt_arg_tensor(o.tensor) : nt_arg_scalar(o.scalar);
}

/* Hands back the call's result (NULL: released) after a dispatch. */
nt_status nt_pw_finish(nt_status st, nt_call *c, nt_tensor **result) {
    if (st != NT_OK) return st;
    if (result)
        *result = c->result[0];
    else
        nt_tensor_release(c->result[0]);
    return NT_OK;
}

nt_status nt_binary_ex(nt_binary_op op, nt_operand a, nt_operand b, const nt_scalar *alpha,
                       nt_tensor *out, bool inplace, nt_tensor **result) {
    if (!is_binary(op)) return nt_fail(NT_ERR_VALUE, "binary op: unknown op %d", (int)op);
    if (inplace && out)
        return nt_fail(NT_ERR_VALUE, "%s_(): an in-place op takes no out tensor",
                       nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.out[0] = out;
    c.args[0] = nt_pw_operand_arg(a);
    c.args[1] = nt_pw_operand_arg(b);
    c.args[2] = alpha ? nt_arg_scalar(*alpha) : nt_arg_none();
    return nt_pw_finish(nt_dispatch(&c), &c, result);
}

/* A tensor slot, written field by field (the per-call path: no temporary to copy). */
static inline void set_tensor(nt_arg *a, nt_tensor *t) {
    a->kind = NT_ARG_TENSOR;
    a->v.t = t;
}

nt_status nt_binary(nt_binary_op op, nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    if (!a || !b || !out) return nt_fail(NT_ERR_TYPE, "%s(): NULL argument", nt_binary_op_name(op));
    if (!is_binary(op)) return nt_fail(NT_ERR_VALUE, "binary op: unknown op %d", (int)op);
    nt_call c;
    nt_call_init(&c, op);
    set_tensor(&c.args[0], a);
    set_tensor(&c.args[1], b);
    c.args[2].kind = NT_ARG_NONE;
    return nt_pw_finish(nt_dispatch(&c), &c, out);
}

nt_status nt_binary_scalar(nt_binary_op op, nt_tensor *a, nt_scalar b, nt_tensor **out) {
    if (!a || !out) return nt_fail(NT_ERR_TYPE, "%s(): NULL argument", nt_binary_op_name(op));
    return nt_binary_ex(op, nt_operand_tensor(a), nt_operand_scalar(b), NULL, NULL, false, out);
}

nt_status nt_binary_rscalar(nt_binary_op op, nt_scalar a, nt_tensor *b, nt_tensor **out) {
    if (!b || !out) return nt_fail(NT_ERR_TYPE, "%s(): NULL argument", nt_binary_op_name(op));
    return nt_binary_ex(op, nt_operand_scalar(a), nt_operand_tensor(b), NULL, NULL, false, out);
}

nt_status nt_binary_out(nt_binary_op op, nt_tensor *a, nt_tensor *b, nt_tensor *out) {
    if (!a || !b || !out) return nt_fail(NT_ERR_TYPE, "%s(): NULL argument", nt_binary_op_name(op));
    return nt_binary_ex(op, nt_operand_tensor(a), nt_operand_tensor(b), NULL, out, false, NULL);
}

nt_status nt_binary_(nt_binary_op op, nt_tensor *self, nt_tensor *other) {
    if (!self || !other) return nt_fail(NT_ERR_TYPE, "%s_(): NULL argument", nt_binary_op_name(op));
    return nt_binary_ex(op, nt_operand_tensor(self), nt_operand_tensor(other), NULL, NULL, true,
                        NULL);
}

nt_status nt_binary_scalar_(nt_binary_op op, nt_tensor *self, nt_scalar other) {
    if (!self) return nt_fail(NT_ERR_TYPE, "%s_(): NULL argument", nt_binary_op_name(op));
    return nt_binary_ex(op, nt_operand_tensor(self), nt_operand_scalar(other), NULL, NULL, true,
                        NULL);
}

nt_status nt_add(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    return nt_binary(NT_OP_ADD, a, b, out);
}
nt_status nt_sub(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    return nt_binary(NT_OP_SUB, a, b, out);
}
nt_status nt_mul(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    return nt_binary(NT_OP_MUL, a, b, out);
}
nt_status nt_div(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    return nt_binary(NT_OP_DIV, a, b, out);
}

/* ------------------------------------------------------------------ isclose, allclose */

/* Whether every element of a fresh, contiguous bool tensor is true: all()'s kernel over its
 * bytes (allclose, equal). */
static bool all_true(const nt_tensor *t) {
    const nt_red_kernel *k = nt_red_kernel_for(NT_RED_ALL, NT_BOOL);
    uint8_t acc;
    k->init(&acc, 1);
    if (t->numel) k->run(&acc, nt_tensor_bytes(t), t->numel, 1);
    return acc != 0;
}

static nt_status isclose_run(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                             nt_tensor **out) {
    if (!a || !b) return nt_fail(NT_ERR_TYPE, "isclose(): NULL argument");
    if (a->dtype != b->dtype)
        return nt_fail(NT_ERR_RUNTIME, "%s did not match %s", nt_dtype_torch_name(a->dtype),
                       nt_dtype_torch_name(b->dtype));
    if (!(rtol >= 0))
        return nt_fail(NT_ERR_RUNTIME, "rtol must be greater than or equal to zero, but got %.17g",
                       rtol);
    if (!(atol >= 0))
        return nt_fail(NT_ERR_RUNTIME, "atol must be greater than or equal to zero, but got %.17g",
                       atol);
    nt_name name_buf[NT_MAX_DIMS];
    const nt_name *names;
    int ndim;
    NT_TRY(
        nt_names_unify_from_right(a->names, a->ndim, b->names, b->ndim, name_buf, &ndim, &names));
    nt_tensor *ts[2] = {a, b};
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(nt_broadcast_shapes(2, ts, &bndim, shape));
    nt_tensor *res = NULL;
    NT_TRY(nt_tensor_alloc(NT_BOOL, bndim, shape, names, &res));
    nt_isclose_params p = {rtol, atol, equal_nan};
    nt_binary_ctx ctx = {NULL, &p};
    nt_tensor *iops[3] = {NULL, a, b};
    nt_status st = nt_pw_run_into(res, NT_BOOL, 3, iops, nt_isclose_loop(a->dtype), &ctx);
    if (st != NT_OK) {
        nt_tensor_release(res);
        return st;
    }
    *out = res;
    return NT_OK;
}

/* isclose(self, other, rtol, atol, equal_nan) -> Tensor; allclose: the same -> bool. */
nt_status nt_impl_isclose(nt_call *c) {
    /* a slot left empty (nt_call_op accepts that for a parameter with a default): the
     * schema's default, rtol=1e-05, atol=1e-08, equal_nan=False */
    double rtol = c->args[2].kind == NT_ARG_FLOAT ? c->args[2].v.f : 1e-05;
    double atol = c->args[3].kind == NT_ARG_FLOAT ? c->args[3].v.f : 1e-08;
    bool equal_nan = c->args[4].kind == NT_ARG_BOOL && c->args[4].v.b;
    nt_tensor *close = NULL;
    NT_TRY(isclose_run(nt_call_tensor(c, 0), nt_call_tensor(c, 1), rtol, atol, equal_nan, &close));
    if (c->op == NT_OP_ISCLOSE) {
        c->result[0] = close;
        return NT_OK;
    }
    c->value = nt_scalar_bool(all_true(close));
    nt_tensor_release(close);
    return NT_OK;
}

static void close_call(nt_call *c, nt_op op, nt_tensor *a, nt_tensor *b, double rtol, double atol,
                       bool equal_nan) {
    nt_call_init(c, op);
    c->args[0] = nt_arg_tensor(a);
    c->args[1] = nt_arg_tensor(b);
    c->args[2] = nt_arg_float(rtol);
    c->args[3] = nt_arg_float(atol);
    c->args[4] = nt_arg_bool(equal_nan);
}

nt_status nt_isclose(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                     nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_TYPE, "isclose(): NULL argument");
    nt_call c;
    close_call(&c, NT_OP_ISCLOSE, a, b, rtol, atol, equal_nan);
    NT_TRY(nt_dispatch(&c));
    *out = c.result[0];
    return NT_OK;
}

nt_status nt_allclose(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                      bool *out) {
    if (!out) return nt_fail(NT_ERR_TYPE, "allclose(): NULL argument");
    nt_call c;
    close_call(&c, NT_OP_ALLCLOSE, a, b, rtol, atol, equal_nan);
    NT_TRY(nt_dispatch(&c));
    *out = c.value.v.b;
    return NT_OK;
}

/* ------------------------------------------------------------------ equal */

/* equal(self, other) -> bool, PyTorch 1.13's: false when the names or the sizes differ,
 * else whether every pair of elements is equal in the promoted dtype (NaN is not). */
nt_status nt_impl_equal(nt_call *c) {
    nt_tensor *a = nt_call_tensor(c, 0), *b = nt_call_tensor(c, 1);
    if (!a || !b) return nt_fail_null_tensor("equal", a ? "other" : "input");
    bool same = a->ndim == b->ndim && same_names(a, b);
    for (int d = 0; same && d < a->ndim; d++)
        same = a->sizes[d] == b->sizes[d];
    c->value = nt_scalar_bool(false);
    if (!same) return NT_OK;
    nt_tensor *eq = NULL;
    NT_TRY(
        binary_run(NT_OP_EQ, nt_operand_tensor(a), nt_operand_tensor(b), NULL, NULL, false, &eq));
    c->value = nt_scalar_bool(all_true(eq));
    nt_tensor_release(eq);
    return NT_OK;
}

nt_status nt_equal(nt_tensor *a, nt_tensor *b, bool *out) {
    if (!out) return nt_fail(NT_ERR_TYPE, "equal(): NULL argument");
    nt_call c;
    nt_call_init(&c, NT_OP_EQUAL);
    c.args[0] = nt_arg_tensor(a);
    c.args[1] = nt_arg_tensor(b);
    NT_TRY(nt_dispatch(&c));
    *out = c.value.v.b;
    return NT_OK;
}
