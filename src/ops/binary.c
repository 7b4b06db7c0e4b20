/*
 * binary.c — the pointwise binary ops (layer L4): add, sub, mul, div (three rounding
 * modes), remainder, pow, atan2, maximum/minimum, comparisons, bitwise and logical ops,
 * with tensor or scalar operands, alpha, out= and in-place forms; and where, clamp,
 * isclose and allclose.
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
#include "iter/iter.h"
#include "kernels/binary_kernels.h"
#include "kernels/convert.h"
#include "names/infer.h"
#include "names/names.h"

/* ------------------------------------------------------------------ op descriptions */

enum {
    BOOL_OUT = 1,      /* result is bool (comparisons, logical ops) */
    FLOAT_RESULT = 2,  /* integral inputs compute in the default float dtype (div, atan2) */
    INT_DIV = 4,       /* integer division by zero is PyTorch's "ZeroDivisionError" */
};

typedef struct op_info {
    const char *name;   /* PyTorch's op name */
    const char *kernel; /* the name in "... not implemented for 'Bool'" */
    unsigned flags;
} op_info;

static const op_info ops_info[NT_BINARY_OP_COUNT] = {
    [NT_BINARY_ADD] = {"add", "add_cpu", 0},
    [NT_BINARY_SUB] = {"sub", "sub_cpu", 0},
    [NT_BINARY_MUL] = {"mul", "mul_cpu", 0},
    [NT_BINARY_DIV] = {"div", "div_true_cpu", FLOAT_RESULT},
    [NT_BINARY_DIV_TRUNC] = {"div", "div_trunc_cpu", INT_DIV},
    [NT_BINARY_DIV_FLOOR] = {"floor_divide", "div_floor_cpu", INT_DIV},
    [NT_BINARY_REMAINDER] = {"remainder", "remainder_cpu", INT_DIV},
    [NT_BINARY_POW] = {"pow", "pow", 0},
    [NT_BINARY_ATAN2] = {"atan2", "atan2_cpu", FLOAT_RESULT},
    [NT_BINARY_MAXIMUM] = {"maximum", "maximum_cpu", 0},
    [NT_BINARY_MINIMUM] = {"minimum", "minimum_cpu", 0},
    [NT_BINARY_EQ] = {"eq", "eq_cpu", BOOL_OUT},
    [NT_BINARY_NE] = {"ne", "ne_cpu", BOOL_OUT},
    [NT_BINARY_LT] = {"lt", "lt_cpu", BOOL_OUT},
    [NT_BINARY_LE] = {"le", "le_cpu", BOOL_OUT},
    [NT_BINARY_GT] = {"gt", "gt_cpu", BOOL_OUT},
    [NT_BINARY_GE] = {"ge", "ge_cpu", BOOL_OUT},
    [NT_BINARY_BITWISE_AND] = {"bitwise_and", "bitwise_and_cpu", 0},
    [NT_BINARY_BITWISE_OR] = {"bitwise_or", "bitwise_or_cpu", 0},
    [NT_BINARY_BITWISE_XOR] = {"bitwise_xor", "bitwise_xor_cpu", 0},
    [NT_BINARY_LOGICAL_AND] = {"logical_and", "logical_and_cpu", BOOL_OUT},
    [NT_BINARY_LOGICAL_OR] = {"logical_or", "logical_or_cpu", BOOL_OUT},
    [NT_BINARY_LOGICAL_XOR] = {"logical_xor", "logical_xor_cpu", BOOL_OUT},
};

const char *nt_binary_op_name(nt_binary_op op) {
    return (unsigned)op < NT_BINARY_OP_COUNT ? ops_info[op].name : "unknown";
}

static nt_status not_implemented(const char *kernel, nt_dtype dtype) {
    return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                   nt_dtype_torch_name(dtype));
}

static nt_status cannot_cast(nt_dtype from, nt_dtype to) {
    return nt_fail(NT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                   nt_dtype_torch_name(from), nt_dtype_torch_name(to));
}

static nt_dtype operand_dtype(const nt_operand *o) {
    return o->tensor ? o->tensor->dtype : nt_scalar_dtype(o->scalar);
}

static bool scalar_is_one(nt_scalar s) {
    switch (s.kind) {
    case NT_SCALAR_BOOL: return s.v.b;
    case NT_SCALAR_INT: return s.v.i == 1;
    default: return s.v.f == 1.0;
    }
}

static nt_scalar scalar_negate(nt_scalar s) {
    if (s.kind == NT_SCALAR_FLOAT) return nt_scalar_float(-s.v.f);
    int64_t i = s.kind == NT_SCALAR_BOOL ? (int64_t)s.v.b : s.v.i;
    return nt_scalar_int((int64_t)(0u - (uint64_t)i));
}

/* ------------------------------------------------------------------ shared steps */

/* An operand prepared for the loop: a tensor of the compute dtype (owned: released by the
 * caller), or a scalar element of the compute dtype. */
typedef struct prepared {
    nt_tensor *tensor; /* NULL: scalar */
    bool owned;
    uint64_t element[2]; /* the scalar as one element of the compute dtype (16 aligned bytes) */
} prepared;

static void prepared_release(prepared *p) {
    if (p->owned) nt_tensor_release(p->tensor);
    p->tensor = NULL;
    p->owned = false;
}

/* A tensor `t` read as `dtype` for writing into `target`: itself when it already is that
 * dtype and cannot be corrupted by the writes, else a converted private copy. */
static nt_status prepare_tensor(nt_tensor *t, nt_dtype dtype, const nt_tensor *target,
                                prepared *p) {
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
        prepared_release(p);
        return st;
    }
    nt_iter_run(&it, nt_convert_loop(dtype, t->dtype), NULL);
    return NT_OK;
}

static void prepare_scalar(nt_scalar s, nt_dtype dtype, prepared *p) {
    p->tensor = NULL;
    p->owned = false;
    memset(p->element, 0, sizeof p->element);
    nt_store_scalar(p->element, dtype, s);
}

/* Checks the tensor an op writes (an out= tensor or an in-place self) against the result:
 * its shape (the broadcast shape, bndim/shape; it is not resized), names (PyTorch checks a
 * named out even when no input is named), castability. */
static nt_status check_target(const nt_tensor *target, int bndim, const int64_t *shape,
                              const nt_name *names, int ndim, nt_dtype result) {
    bool same = target->ndim == bndim;
    for (int d = 0; same && d < bndim; d++)
        same = target->sizes[d] == shape[d];
    if (!same) {
        char have[512], want[512];
        nt_ints_repr(target->sizes, target->ndim, have, sizeof have);
        nt_ints_repr(shape, bndim, want, sizeof want);
        return nt_fail(NT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                       have, want);
    }
    NT_TRY(nt_names_check_out(target->names, target->ndim, names, ndim));
    if (!nt_can_cast(result, target->dtype)) return cannot_cast(result, target->dtype);
    return NT_OK;
}

/* Gives an unnamed target the computed names (an in-place self or an out= tensor). */
static nt_status name_target(nt_tensor *target, const nt_name *names) {
    if (!names || target->names) return NT_OK;
    return nt_tensor_set_names(target, names);
}

/* Runs `loop` over ops[0..nops) (ops[0] the output) with ctx; when the target's dtype
 * differs from the loop's output dtype, through a temporary of shape (ndim, shape). */
static nt_status run_into(nt_tensor *target, nt_dtype loop_out, int nops, nt_tensor **ops,
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
        nt_storage_bump_version(target->storage);
    }
fail:
    nt_tensor_release(tmp);
    return st;
}

/* The broadcast shape of up to four optional tensors. */
static nt_status broadcast_of(int n, nt_tensor *const *ts, int *ndim, int64_t *shape) {
    nt_tensor *present[4];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (ts[i]) present[k++] = ts[i];
    return nt_broadcast_shapes(k, present, ndim, shape);
}

/* ------------------------------------------------------------------ binary ops */

/* PyTorch's sub_check and the integer-pow check, before anything else. */
static nt_status pre_checks(nt_binary_op op, const nt_operand *a, const nt_operand *b,
                            nt_dtype common) {
    if (op == NT_BINARY_SUB) {
        bool ab = operand_dtype(a) == NT_BOOL, bb = operand_dtype(b) == NT_BOOL;
        if (ab && bb)
            return nt_fail(NT_ERR_RUNTIME,
                           "Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.");
        if (ab || bb)
            return nt_fail(NT_ERR_RUNTIME,
                           "Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.");
    }
    if (op == NT_BINARY_POW && !b->tensor && b->scalar.kind == NT_SCALAR_INT && b->scalar.v.i < 0 &&
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
static bool fast_binary(nt_binary_op op, const nt_tensor *a, const nt_tensor *b,
                        nt_tensor **result, nt_status *st) {
    const op_info *info = &ops_info[op];
    if (a->dtype != b->dtype || !a->is_contiguous || !b->is_contiguous || a->ndim != b->ndim ||
        (info->flags & INT_DIV) || !same_names(a, b))
        return false;
    if ((info->flags & FLOAT_RESULT) && nt_dtype_table[a->dtype].kind != NT_KIND_FLOAT) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d]) return false;
    const nt_binary_loops *loops = nt_binary_kernel(op, a->dtype);
    if (!loops) return false;
    nt_dtype rd = (info->flags & BOOL_OUT) ? NT_BOOL : a->dtype;
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

nt_status nt_binary_ex(nt_binary_op op, nt_operand a, nt_operand b, const nt_scalar *alpha,
                       nt_tensor *out, bool inplace, nt_tensor **result) {
    if (a.tensor && b.tensor && !out && !inplace && !alpha && result &&
        (unsigned)op < NT_BINARY_OP_COUNT) {
        nt_status st;
        if (fast_binary(op, a.tensor, b.tensor, result, &st)) return st;
    }
    if ((unsigned)op >= NT_BINARY_OP_COUNT)
        return nt_fail(NT_ERR_VALUE, "binary op: unknown op %d", (int)op);
    const op_info *info = &ops_info[op];
    if (!a.tensor && !b.tensor)
        return nt_fail(NT_ERR_TYPE, "%s(): expected at least one tensor operand", info->name);
    if (inplace && !a.tensor)
        return nt_fail(NT_ERR_TYPE, "%s_(): self must be a tensor", info->name);
    if (inplace && out)
        return nt_fail(NT_ERR_VALUE, "%s_(): an in-place op takes no out tensor", info->name);
    nt_tensor *target = inplace ? a.tensor : out;

    /* The compute dtype and the result dtype. */
    nt_tensor *tensors[2] = {a.tensor, b.tensor};
    nt_scalar scalars[2] = {{0}, {0}};
    int nscalars = 0;
    if (!a.tensor) scalars[nscalars++] = a.scalar;
    if (!b.tensor) scalars[nscalars++] = b.scalar;
    nt_dtype common = nt_result_type(2, tensors, nscalars, scalars);
    if ((info->flags & FLOAT_RESULT) && nt_dtype_table[common].kind != NT_KIND_FLOAT)
        common = nt_default_dtype();
    nt_dtype res_dtype = (info->flags & BOOL_OUT) ? NT_BOOL : common;
    NT_TRY(pre_checks(op, &a, &b, common));

    /* Names, then shapes. */
    nt_name name_buf[NT_MAX_DIMS];
    const nt_name *names;
    int ndim;
    NT_TRY(nt_names_unify_from_right(a.tensor ? a.tensor->names : NULL,
                                     a.tensor ? a.tensor->ndim : 0,
                                     b.tensor ? b.tensor->names : NULL,
                                     b.tensor ? b.tensor->ndim : 0, name_buf, &ndim, &names));
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(broadcast_of(2, tensors, &bndim, shape));
    if (target) NT_TRY(check_target(target, bndim, shape, names, ndim, res_dtype));

    /* alpha, kernels. */
    bool use_alpha = false;
    nt_kparam alpha_param;
    if (alpha && (op == NT_BINARY_ADD || op == NT_BINARY_SUB)) {
        NT_TRY(alpha_check(common, *alpha));
        if (!scalar_is_one(*alpha)) {
            use_alpha = true;
            alpha_param =
                nt_kparam_make(common, op == NT_BINARY_SUB ? scalar_negate(*alpha) : *alpha);
        }
    }
    const nt_binary_loops *loops = use_alpha ? nt_binary_add_alpha_kernel(common)
                                             : nt_binary_kernel(op, common);
    if (!loops) return not_implemented(info->kernel, common);

    /* Operands in the compute dtype: zero-dim tensors of another dtype become scalars. */
    prepared pa = {0}, pb = {0};
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
        NT_CHECK(st, prepare_tensor(a.tensor, common, target, &pa));
    if (!b.tensor)
        prepare_scalar(b.scalar, common, &pb);
    else if (scal_b)
        prepare_scalar(nt_load_scalar(nt_tensor_bytes(b.tensor), b.tensor->dtype), common, &pb);
    else
        NT_CHECK(st, prepare_tensor(b.tensor, common, target, &pb));

    /* Integer division by zero. */
    if ((info->flags & INT_DIV) && nt_dtype_table[common].kind != NT_KIND_FLOAT) {
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
    nt_dtype loop_out = (info->flags & BOOL_OUT) ? NT_BOOL : common;
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
        if (op == NT_BINARY_POW) {
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
    NT_CHECK(st, run_into(target, loop_out, nops, iops, loop, &ctx));
    if (target != res) NT_CHECK(st, name_target(target, names));
    if (result) *result = res ? res : nt_tensor_retain(target);
    res = NULL;
fail:
    nt_tensor_release(res);
    prepared_release(&pa);
    prepared_release(&pb);
    return st;
}

nt_status nt_binary(nt_binary_op op, nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    if (!a || !b || !out) return nt_fail(NT_ERR_TYPE, "%s(): NULL argument", nt_binary_op_name(op));
    return nt_binary_ex(op, nt_operand_tensor(a), nt_operand_tensor(b), NULL, NULL, false, out);
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
    return nt_binary(NT_BINARY_ADD, a, b, out);
}
nt_status nt_sub(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    return nt_binary(NT_BINARY_SUB, a, b, out);
}
nt_status nt_mul(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    return nt_binary(NT_BINARY_MUL, a, b, out);
}
nt_status nt_div(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    return nt_binary(NT_BINARY_DIV, a, b, out);
}

/* ------------------------------------------------------------------ where */

/* A zero-dim tensor holding scalar s as dtype. */
static nt_status scalar_tensor(nt_scalar s, nt_dtype dtype, nt_tensor **out) {
    NT_TRY(nt_tensor_alloc(dtype, 0, NULL, NULL, out));
    nt_store_scalar(nt_tensor_bytes(*out), dtype, s);
    return NT_OK;
}

/* Operand o as a tensor of dtype written into target (scalars become zero-dim tensors). */
static nt_status operand_as_tensor(const nt_operand *o, nt_dtype dtype, const nt_tensor *target,
                                   prepared *p) {
    if (o->tensor) return prepare_tensor(o->tensor, dtype, target, p);
    NT_TRY(scalar_tensor(o->scalar, dtype, &p->tensor));
    p->owned = true;
    return NT_OK;
}

nt_status nt_where(nt_tensor *cond, nt_operand a, nt_operand b, nt_tensor *out,
                   nt_tensor **result) {
    if (!cond) return nt_fail_null_tensor("where", "condition");
    if (cond->dtype != NT_BOOL && cond->dtype != NT_UINT8)
        return nt_fail(NT_ERR_RUNTIME,
                       "where expected condition to be a boolean tensor, but got a tensor with "
                       "dtype %s",
                       nt_dtype_torch_name(cond->dtype));
    nt_tensor *tensors[2] = {a.tensor, b.tensor};
    nt_scalar scalars[2] = {{0}, {0}};
    int nscalars = 0;
    if (!a.tensor) scalars[nscalars++] = a.scalar;
    if (!b.tensor) scalars[nscalars++] = b.scalar;
    nt_dtype dtype = nt_result_type(2, tensors, nscalars, scalars);

    const nt_name *lists[3] = {cond->names, a.tensor ? a.tensor->names : NULL,
                               b.tensor ? b.tensor->names : NULL};
    int ndims[3] = {cond->ndim, a.tensor ? a.tensor->ndim : 0, b.tensor ? b.tensor->ndim : 0};
    nt_name name_buf[NT_MAX_DIMS];
    const nt_name *names;
    int ndim;
    NT_TRY(nt_names_unify_many("broadcast", 3, lists, ndims, name_buf, &ndim, &names));
    nt_tensor *all[3] = {cond, a.tensor, b.tensor};
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(broadcast_of(3, all, &bndim, shape));
    if (out) NT_TRY(check_target(out, bndim, shape, names, ndim, dtype));

    prepared pa = {0}, pb = {0}, pc = {0};
    nt_tensor *res = NULL, *target = out;
    nt_status st = NT_OK;
    NT_CHECK(st, prepare_tensor(cond, cond->dtype, out, &pc));
    NT_CHECK(st, operand_as_tensor(&a, dtype, out, &pa));
    NT_CHECK(st, operand_as_tensor(&b, dtype, out, &pb));
    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(dtype, bndim, shape, names, &res));
        target = res;
    }
    nt_tensor *iops[4] = {NULL, pc.tensor, pa.tensor, pb.tensor};
    NT_CHECK(st, run_into(target, dtype, 4, iops, nt_where_loop(cond->dtype, dtype), NULL));
    if (target != res) NT_CHECK(st, name_target(target, names));
    if (result) *result = res ? res : nt_tensor_retain(target);
    res = NULL;
fail:
    nt_tensor_release(res);
    prepared_release(&pa);
    prepared_release(&pb);
    prepared_release(&pc);
    return st;
}

/* ------------------------------------------------------------------ clamp */

/* The C++ type names PyTorch's scalar clamp_ uses in its cast error. */
static const char *cpp_type_name(nt_dtype d) {
    static const char *const names[NT_DTYPE_COUNT] = {
        [NT_BOOL] = "bool",       [NT_UINT8] = "unsigned char", [NT_INT8] = "signed char",
        [NT_INT16] = "short int",     [NT_INT32] = "int",           [NT_INT64] = "long int",
        [NT_FLOAT16] = "c10::Half", [NT_BFLOAT16] = "c10::BFloat16", [NT_FLOAT32] = "float",
        [NT_FLOAT64] = "double",
    };
    return names[d];
}

static nt_status clamp_scalars(nt_tensor *t, const nt_scalar *min, const nt_scalar *max,
                               nt_tensor *out, bool inplace, nt_tensor **result) {
    nt_scalar scalars[2] = {{0}, {0}};
    int n = 0;
    if (min) scalars[n++] = *min;
    if (max) scalars[n++] = *max;
    nt_dtype dtype = nt_result_type(1, &t, n, scalars);
    nt_tensor *target = inplace ? t : out;
    if (target) NT_TRY(nt_names_check_out(target->names, target->ndim, t->names, t->ndim));
    if (inplace && !nt_can_cast(dtype, t->dtype))
        return nt_fail(NT_ERR_RUNTIME,
                       "result type %s can't be cast to the desired output type %s",
                       nt_dtype_torch_name(dtype), cpp_type_name(t->dtype));
    if (out && out->dtype != dtype)
        return nt_fail(NT_ERR_RUNTIME, "Found dtype %s but expected %s",
                       nt_dtype_torch_name(out->dtype), nt_dtype_torch_name(dtype));
    if (inplace) dtype = t->dtype;
    int which = (min ? 1 : 0) | (max ? 2 : 0);
    nt_loop2d loop = nt_clamp_scalar_loop(dtype, which);
    static const char *const kernel[4] = {NULL, "clamp_min_cpu", "clamp_max_scalar_cpu",
                                          "clamp_scalar_cpu"};
    if (!loop) return not_implemented(kernel[which], dtype);
    if (min) NT_TRY(nt_scalar_check_fits(*min, dtype));
    if (max) NT_TRY(nt_scalar_check_fits(*max, dtype));
    bool nan_bound = which == 3 && ((min->kind == NT_SCALAR_FLOAT && isnan(min->v.f)) ||
                                    (max->kind == NT_SCALAR_FLOAT && isnan(max->v.f)));

    prepared px = {0};
    nt_tensor *res = NULL;
    nt_status st = NT_OK;
    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(dtype, t->ndim, t->sizes, t->names, &res));
        target = res;
    }
    if (nan_bound) {
        NT_CHECK(st, nt_fill_(target, nt_scalar_float(NAN)));
    } else {
        nt_clamp_bounds bounds;
        memset(&bounds, 0, sizeof bounds);
        if (min) bounds.lo = nt_kparam_make(dtype, *min);
        if (max) bounds.hi = nt_kparam_make(dtype, *max);
        NT_CHECK(st, prepare_tensor(t, dtype, target, &px));
        nt_tensor *iops[2] = {NULL, px.tensor};
        NT_CHECK(st, run_into(target, dtype, 2, iops, loop, &bounds));
    }
    if (target != res) NT_CHECK(st, name_target(target, t->names));
    if (result) *result = res ? res : nt_tensor_retain(target);
    res = NULL;
fail:
    nt_tensor_release(res);
    prepared_release(&px);
    return st;
}

static nt_status clamp_tensors(nt_tensor *t, const nt_operand *min, const nt_operand *max,
                               nt_tensor *out, bool inplace, nt_tensor **result) {
    nt_tensor *tensors[3] = {t, min ? min->tensor : NULL, max ? max->tensor : NULL};
    nt_scalar scalars[2] = {{0}, {0}};
    int ns = 0;
    if (min && !min->tensor) scalars[ns++] = min->scalar;
    if (max && !max->tensor) scalars[ns++] = max->scalar;
    nt_dtype dtype = nt_result_type(3, tensors, ns, scalars);
    nt_tensor *target = inplace ? t : out;

    const nt_name *lists[3];
    int ndims[3], nl = 0;
    for (int k = 0; k < 3; k++)
        if (tensors[k]) lists[nl] = tensors[k]->names, ndims[nl++] = tensors[k]->ndim;
    nt_name name_buf[NT_MAX_DIMS];
    const nt_name *names;
    int ndim;
    NT_TRY(nt_names_unify_many("broadcast", nl, lists, ndims, name_buf, &ndim, &names));
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(broadcast_of(3, tensors, &bndim, shape));
    if (target) NT_TRY(check_target(target, bndim, shape, names, ndim, dtype));
    nt_loop2d loop = NULL;
    const nt_binary_loops *two = NULL;
    if (min && max) {
        loop = nt_clamp_tensor_loop(dtype);
        if (!loop) return not_implemented("clamp_cpu", dtype);
    } else {
        two = nt_binary_kernel(min ? NT_BINARY_MAXIMUM : NT_BINARY_MINIMUM, dtype);
    }

    prepared px = {0}, plo = {0}, phi = {0};
    nt_tensor *res = NULL;
    nt_status st = NT_OK;
    NT_CHECK(st, prepare_tensor(t, dtype, target, &px));
    if (min) NT_CHECK(st, operand_as_tensor(min, dtype, target, &plo));
    if (max) NT_CHECK(st, operand_as_tensor(max, dtype, target, &phi));
    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(dtype, bndim, shape, names, &res));
        target = res;
    }
    if (loop) {
        nt_tensor *iops[4] = {NULL, px.tensor, plo.tensor, phi.tensor};
        NT_CHECK(st, run_into(target, dtype, 4, iops, loop, NULL));
    } else {
        nt_tensor *iops[3] = {NULL, px.tensor, min ? plo.tensor : phi.tensor};
        NT_CHECK(st, run_into(target, dtype, 3, iops, two->tt, NULL));
    }
    if (target != res) NT_CHECK(st, name_target(target, names));
    if (result) *result = res ? res : nt_tensor_retain(target);
    res = NULL;
fail:
    nt_tensor_release(res);
    prepared_release(&px);
    prepared_release(&plo);
    prepared_release(&phi);
    return st;
}

nt_status nt_clamp(nt_tensor *t, const nt_operand *min, const nt_operand *max, nt_tensor *out,
                   bool inplace, nt_tensor **result) {
    if (!t) return nt_fail_null_tensor("clamp", "input");
    if (inplace && out)
        return nt_fail(NT_ERR_VALUE, "clamp_(): an in-place op takes no out tensor");
    if (!min && !max)
        return nt_fail(NT_ERR_RUNTIME,
                       "torch.clamp: At least one of 'min' or 'max' must not be None");
    if ((min && min->tensor) || (max && max->tensor))
        return clamp_tensors(t, min, max, out, inplace, result);
    return clamp_scalars(t, min ? &min->scalar : NULL, max ? &max->scalar : NULL, out, inplace,
                         result);
}

/* ------------------------------------------------------------------ isclose, allclose */

nt_status nt_isclose(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                     nt_tensor **out) {
    if (!a || !b || !out) return nt_fail(NT_ERR_TYPE, "isclose(): NULL argument");
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
    NT_TRY(nt_names_unify_from_right(a->names, a->ndim, b->names, b->ndim, name_buf, &ndim,
                                     &names));
    nt_tensor *ts[2] = {a, b};
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(nt_broadcast_shapes(2, ts, &bndim, shape));
    nt_tensor *res = NULL;
    NT_TRY(nt_tensor_alloc(NT_BOOL, bndim, shape, names, &res));
    nt_isclose_params p = {rtol, atol, equal_nan};
    nt_binary_ctx ctx = {NULL, &p};
    nt_tensor *iops[3] = {NULL, a, b};
    nt_status st = run_into(res, NT_BOOL, 3, iops, nt_isclose_loop(a->dtype), &ctx);
    if (st != NT_OK) {
        nt_tensor_release(res);
        return st;
    }
    *out = res;
    return NT_OK;
}

nt_status nt_allclose(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                      bool *out) {
    if (!out) return nt_fail(NT_ERR_TYPE, "allclose(): NULL argument");
    nt_tensor *close = NULL;
    NT_TRY(nt_isclose(a, b, rtol, atol, equal_nan, &close));
    const nt_bool *v = (const nt_bool *)nt_tensor_bytes(close); /* fresh and contiguous */
    bool all = true;
    for (int64_t i = 0; i < close->numel && all; i++)
        all = v[i] != 0;
    nt_tensor_release(close);
    *out = all;
    return NT_OK;
}
