/*
 * ternary.c — the pointwise ops beyond a plain binary op (layer L4): where (and the method
 * t.where), clamp / clamp_min / clamp_max, threshold, addcmul / addcdiv and lerp. Each reads
 * its call record (its row of ops.def names it) and runs the shared steps of
 * pointwise_steps.h in PyTorch's order: its own checks -> names (unified over its tensors)
 * -> broadcast -> result type -> the written tensor's checks -> kernel lookup
 * (kernels/binary_kernels.h) -> scalar parameters converted -> allocate -> iterate. The
 * public functions only fill a call and go through the dispatcher.
 */
#include <math.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "kernels/binary_kernels.h"
#include "kernels/convert.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/out.h"
#include "ops/pointwise_steps.h"

/* ------------------------------------------------------------------ where */

/* A zero-dim tensor holding scalar s as dtype. */
static nt_status scalar_tensor(nt_scalar s, nt_dtype dtype, nt_tensor **out) {
    NT_TRY(nt_tensor_alloc(dtype, 0, NULL, NULL, out));
    nt_store_scalar(nt_tensor_bytes(*out), dtype, s);
    return NT_OK;
}

/* Operand o as a tensor of dtype written into target (scalars become zero-dim tensors). */
static nt_status operand_as_tensor(const nt_operand *o, nt_dtype dtype, const nt_tensor *target,
                                   nt_pw_prepared *p) {
    if (o->tensor) return nt_pw_prepare_tensor(o->tensor, dtype, target, p);
    NT_TRY(scalar_tensor(o->scalar, dtype, &p->tensor));
    p->owned = true;
    return NT_OK;
}

static nt_status where_run(nt_tensor *cond, nt_operand a, nt_operand b, nt_tensor *out,
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
    NT_TRY(nt_pw_broadcast_of(3, all, &bndim, shape));
    if (out) NT_TRY(nt_pw_check_target(out, true, bndim, shape, names, ndim, dtype));

    nt_pw_prepared pa = {0}, pb = {0}, pc = {0};
    nt_tensor *res = NULL, *target = out;
    nt_status st = NT_OK;
    NT_CHECK(st, nt_pw_prepare_tensor(cond, cond->dtype, out, &pc));
    NT_CHECK(st, operand_as_tensor(&a, dtype, out, &pa));
    NT_CHECK(st, operand_as_tensor(&b, dtype, out, &pb));
    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(dtype, bndim, shape, names, &res));
        target = res;
    }
    nt_tensor *iops[4] = {NULL, pc.tensor, pa.tensor, pb.tensor};
    NT_CHECK(st, nt_pw_run_into(target, dtype, 4, iops, nt_where_loop(cond->dtype, dtype), NULL));
    NT_CHECK(st, nt_pw_hand_back(target, &res, names, result));
fail:
    nt_tensor_release(res);
    nt_pw_prepared_release(&pa);
    nt_pw_prepared_release(&pb);
    nt_pw_prepared_release(&pc);
    return st;
}

/* where(condition, self, other); the method t.where(condition, other) has self first. */
nt_status nt_impl_where(nt_call *c) {
    bool method = c->op == NT_OP_WHERE_METHOD;
    const nt_arg *cond = &c->args[method ? 1 : 0], *self = &c->args[method ? 0 : 1];
    return where_run(cond->kind == NT_ARG_TENSOR ? cond->v.t : NULL, nt_pw_operand_of(self),
                     nt_pw_operand_of(&c->args[2]), c->out[0], &c->result[0]);
}

nt_status nt_where(nt_tensor *cond, nt_operand a, nt_operand b, nt_tensor *out,
                   nt_tensor **result) {
    nt_call c;
    nt_call_init(&c, NT_OP_WHERE);
    c.out[0] = out;
    c.args[0] = nt_arg_tensor(cond);
    c.args[1] = nt_pw_operand_arg(a);
    c.args[2] = nt_pw_operand_arg(b);
    return nt_pw_finish(nt_dispatch(&c), &c, result);
}

/* ------------------------------------------------------------------ clamp */

/* The C++ type names PyTorch's scalar clamp_ uses in its cast error. */
static const char *cpp_type_name(nt_dtype d) {
    static const char *const names[NT_DTYPE_COUNT] = {
        [NT_BOOL] = "bool",         [NT_UINT8] = "unsigned char",
        [NT_INT8] = "signed char",  [NT_INT16] = "short int",
        [NT_INT32] = "int",         [NT_INT64] = "long int",
        [NT_FLOAT16] = "c10::Half", [NT_BFLOAT16] = "c10::BFloat16",
        [NT_FLOAT32] = "float",     [NT_FLOAT64] = "double",
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
    if (inplace) NT_TRY(nt_names_check_out(t->names, t->ndim, t->names, t->ndim));
    if (inplace && !nt_can_cast(dtype, t->dtype))
        return nt_fail(NT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                       nt_dtype_torch_name(dtype), cpp_type_name(t->dtype));
    if (out && out->dtype != dtype)
        return nt_fail(NT_ERR_RUNTIME, "Found dtype %s but expected %s",
                       nt_dtype_torch_name(out->dtype), nt_dtype_torch_name(dtype));
    if (out) {
        NT_TRY(nt_out_resize(out, t->ndim, t->sizes));
        NT_TRY(nt_names_check_out(out->names, out->ndim, t->names, t->ndim));
    }
    if (inplace) dtype = t->dtype;
    int which = (min ? 1 : 0) | (max ? 2 : 0);
    nt_loop2d loop = nt_clamp_scalar_loop(dtype, which);
    static const char *const kernel[4] = {NULL, "clamp_min_cpu", "clamp_max_scalar_cpu",
                                          "clamp_scalar_cpu"};
    if (!loop) return nt_pw_not_implemented(kernel[which], dtype);
    if (min) NT_TRY(nt_scalar_check_fits(*min, dtype));
    if (max) NT_TRY(nt_scalar_check_fits(*max, dtype));
    bool nan_bound = which == 3 && ((min->kind == NT_SCALAR_FLOAT && isnan(min->v.f)) ||
                                    (max->kind == NT_SCALAR_FLOAT && isnan(max->v.f)));

    nt_pw_prepared px = {0};
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
        NT_CHECK(st, nt_pw_prepare_tensor(t, dtype, target, &px));
        nt_tensor *iops[2] = {NULL, px.tensor};
        NT_CHECK(st, nt_pw_run_into(target, dtype, 2, iops, loop, &bounds));
    }
    NT_CHECK(st, nt_pw_hand_back(target, &res, t->names, result));
fail:
    nt_tensor_release(res);
    nt_pw_prepared_release(&px);
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
    NT_TRY(nt_pw_broadcast_of(3, tensors, &bndim, shape));
    if (target) NT_TRY(nt_pw_check_target(target, !inplace, bndim, shape, names, ndim, dtype));
    nt_loop2d loop = NULL;
    const nt_binary_loops *two = NULL;
    if (min && max) {
        loop = nt_clamp_tensor_loop(dtype);
        if (!loop) return nt_pw_not_implemented("clamp_cpu", dtype);
    } else {
        two = nt_binary_kernel(min ? NT_OP_MAXIMUM : NT_OP_MINIMUM, dtype);
    }

    nt_pw_prepared px = {0}, plo = {0}, phi = {0};
    nt_tensor *res = NULL;
    nt_status st = NT_OK;
    NT_CHECK(st, nt_pw_prepare_tensor(t, dtype, target, &px));
    if (min) NT_CHECK(st, operand_as_tensor(min, dtype, target, &plo));
    if (max) NT_CHECK(st, operand_as_tensor(max, dtype, target, &phi));
    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(dtype, bndim, shape, names, &res));
        target = res;
    }
    if (loop) {
        nt_tensor *iops[4] = {NULL, px.tensor, plo.tensor, phi.tensor};
        NT_CHECK(st, nt_pw_run_into(target, dtype, 4, iops, loop, NULL));
    } else {
        nt_tensor *iops[3] = {NULL, px.tensor, min ? plo.tensor : phi.tensor};
        NT_CHECK(st, nt_pw_run_into(target, dtype, 3, iops, two->tt, NULL));
    }
    NT_CHECK(st, nt_pw_hand_back(target, &res, names, result));
fail:
    nt_tensor_release(res);
    nt_pw_prepared_release(&px);
    nt_pw_prepared_release(&plo);
    nt_pw_prepared_release(&phi);
    return st;
}

/* clamp(self, min, max); clamp_min(self, min); clamp_max(self, max). */
nt_status nt_impl_clamp(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor(nt_op_row_of(c->op)->name, "input");
    const nt_arg *lo = &c->args[1], *hi = &c->args[2];
    if (c->op == NT_OP_CLAMP_MAX) {
        hi = lo;
        lo = NULL;
    } else if (c->op == NT_OP_CLAMP_MIN) {
        hi = NULL;
    }
    nt_operand min, max;
    const nt_operand *pmin = NULL, *pmax = NULL;
    if (lo && lo->kind != NT_ARG_NONE) min = nt_pw_operand_of(lo), pmin = &min;
    if (hi && hi->kind != NT_ARG_NONE) max = nt_pw_operand_of(hi), pmax = &max;
    if (!pmin && !pmax)
        return nt_fail(NT_ERR_RUNTIME,
                       "torch.clamp: At least one of 'min' or 'max' must not be None");
    if ((pmin && pmin->tensor) || (pmax && pmax->tensor))
        return clamp_tensors(t, pmin, pmax, c->out[0], c->inplace, &c->result[0]);
    return clamp_scalars(t, pmin ? &pmin->scalar : NULL, pmax ? &pmax->scalar : NULL, c->out[0],
                         c->inplace, &c->result[0]);
}

nt_status nt_clamp(nt_tensor *t, const nt_operand *min, const nt_operand *max, nt_tensor *out,
                   bool inplace, nt_tensor **result) {
    if (!t) return nt_fail_null_tensor("clamp", "input");
    if (inplace && out)
        return nt_fail(NT_ERR_VALUE, "clamp_(): an in-place op takes no out tensor");
    nt_call c;
    nt_call_init(&c, NT_OP_CLAMP);
    c.inplace = inplace;
    c.out[0] = out;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = min ? nt_pw_operand_arg(*min) : nt_arg_none();
    c.args[2] = max ? nt_pw_operand_arg(*max) : nt_arg_none();
    return nt_pw_finish(nt_dispatch(&c), &c, result);
}

/* ------------------------------------------------------------------ threshold */

/* A scalar as a kernel parameter of dtype, converted as PyTorch's Scalar::to<scalar_t>
 * (bfloat16 rounded to it). */
static nt_kparam param_of(nt_dtype dtype, nt_scalar s) {
    nt_kparam p = nt_kparam_make(dtype, s);
    if (dtype == NT_BFLOAT16) p.f = nt_bf16_to_f32(nt_f32_to_bf16(p.f));
    return p;
}

/* Runs a one-input loop with ctx on t into the written tensor (or a new one, t's names),
 * in dtype `dtype`. */
static nt_status run_keep_names(nt_call *c, nt_tensor *t, nt_dtype dtype, nt_loop2d loop,
                                void *ctx) {
    nt_tensor *target = c->inplace ? t : c->out[0], *res = NULL;
    nt_pw_prepared px = {0};
    nt_status st = NT_OK;
    if (!target) {
        NT_TRY(nt_tensor_alloc(dtype, t->ndim, t->sizes, t->names, &res));
        target = res;
    }
    NT_CHECK(st, nt_pw_prepare_tensor(t, dtype, target, &px));
    nt_tensor *iops[2] = {NULL, px.tensor};
    NT_CHECK(st, nt_pw_run_into(target, dtype, 2, iops, loop, ctx));
    if (target != res) NT_CHECK(st, nt_pw_name_target(target, t->names));
    c->result[0] = res ? res : nt_tensor_retain(target);
    res = NULL;
fail:
    nt_tensor_release(res);
    nt_pw_prepared_release(&px);
    return st;
}

/* threshold(self, threshold, value): in self's dtype, names kept. */
nt_status nt_impl_threshold(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("threshold", "input");
    nt_dtype dtype = t->dtype;
    nt_tensor *target = c->inplace ? t : c->out[0];
    if (target)
        NT_TRY(
            nt_pw_check_target(target, !c->inplace, t->ndim, t->sizes, t->names, t->ndim, dtype));
    nt_loop2d loop = nt_threshold_loop(dtype);
    if (!loop) return nt_pw_not_implemented(nt_op_row_of(c->op)->kernel, dtype);
    nt_scalar th = c->args[1].v.s, value = c->args[2].v.s;
    NT_TRY(nt_scalar_check_fits(th, dtype));
    NT_TRY(nt_scalar_check_fits(value, dtype));
    nt_threshold_params p = {param_of(dtype, th), param_of(dtype, value)};
    return run_keep_names(c, t, dtype, loop, &p);
}

nt_status nt_threshold(nt_tensor *t, nt_scalar threshold, nt_scalar value, nt_tensor *out,
                       bool inplace, nt_tensor **result) {
    if (inplace && out)
        return nt_fail(NT_ERR_VALUE, "threshold_(): an in-place op takes no out tensor");
    nt_call c;
    nt_call_init(&c, NT_OP_THRESHOLD);
    c.inplace = inplace;
    c.out[0] = out;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_scalar(threshold);
    c.args[2] = nt_arg_scalar(value);
    return nt_pw_finish(nt_dispatch(&c), &c, result);
}

/* ------------------------------------------------------------------ addcmul, addcdiv */

static bool integral(nt_dtype d) {
    return nt_dtype_table[d].kind != NT_KIND_FLOAT;
}

/* addcmul / addcdiv(self, tensor1, tensor2, value): PyTorch's result_type of the three,
 * names unified over them. */
nt_status nt_impl_addc(nt_call *c) {
    const nt_op_row *row = nt_op_row_of(c->op);
    bool div = c->op == NT_OP_ADDCDIV;
    nt_tensor *ts[3] = {nt_call_tensor(c, 0), nt_call_tensor(c, 1), nt_call_tensor(c, 2)};
    static const char *const argnames[3] = {"input", "tensor1", "tensor2"};
    for (int k = 0; k < 3; k++)
        if (!ts[k]) return nt_fail_null_tensor(row->name, argnames[k]);
    nt_scalar value = c->args[3].kind == NT_ARG_SCALAR ? c->args[3].v.s : nt_scalar_int(1);
    if (div && integral(ts[1]->dtype) && integral(ts[2]->dtype))
        return nt_fail(
            NT_ERR_RUNTIME,
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
    nt_dtype dtype = nt_result_type(3, ts, 0, NULL);
    const nt_name *lists[3] = {ts[0]->names, ts[1]->names, ts[2]->names};
    int ndims[3] = {ts[0]->ndim, ts[1]->ndim, ts[2]->ndim};
    nt_name name_buf[NT_MAX_DIMS];
    const nt_name *names;
    int ndim;
    NT_TRY(nt_names_unify_many("broadcast", 3, lists, ndims, name_buf, &ndim, &names));
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(nt_pw_broadcast_of(3, ts, &bndim, shape));
    nt_tensor *target = c->inplace ? ts[0] : c->out[0];
    if (target) NT_TRY(nt_pw_check_target(target, !c->inplace, bndim, shape, names, ndim, dtype));
    nt_loop2d loop = div ? nt_addcdiv_loop(dtype) : nt_addcmul_loop(dtype);
    if (!loop) return nt_pw_not_implemented(row->kernel, dtype);
    NT_TRY(nt_scalar_check_fits(value, dtype));
    nt_kparam v = param_of(dtype, value);

    nt_pw_prepared p[3] = {{0}, {0}, {0}};
    nt_tensor *res = NULL;
    nt_status st = NT_OK;
    for (int k = 0; k < 3; k++)
        NT_CHECK(st, nt_pw_prepare_tensor(ts[k], dtype, target, &p[k]));
    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(dtype, bndim, shape, names, &res));
        target = res;
    }
    nt_tensor *iops[4] = {NULL, p[0].tensor, p[1].tensor, p[2].tensor};
    NT_CHECK(st, nt_pw_run_into(target, dtype, 4, iops, loop, &v));
    if (target != res) NT_CHECK(st, nt_pw_name_target(target, names));
    c->result[0] = res ? res : nt_tensor_retain(target);
    res = NULL;
fail:
    nt_tensor_release(res);
    for (int k = 0; k < 3; k++)
        nt_pw_prepared_release(&p[k]);
    return st;
}

static nt_status addc(nt_op op, nt_tensor *self, nt_tensor *t1, nt_tensor *t2, nt_scalar value,
                      nt_tensor *out, bool inplace, nt_tensor **result) {
    if (inplace && out)
        return nt_fail(NT_ERR_VALUE, "%s_(): an in-place op takes no out tensor",
                       nt_op_rows[op].name);
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.out[0] = out;
    c.args[0] = nt_arg_tensor(self);
    c.args[1] = nt_arg_tensor(t1);
    c.args[2] = nt_arg_tensor(t2);
    c.args[3] = nt_arg_scalar(value);
    return nt_pw_finish(nt_dispatch(&c), &c, result);
}

nt_status nt_addcmul(nt_tensor *self, nt_tensor *t1, nt_tensor *t2, nt_scalar value, nt_tensor *out,
                     bool inplace, nt_tensor **result) {
    return addc(NT_OP_ADDCMUL, self, t1, t2, value, out, inplace, result);
}

nt_status nt_addcdiv(nt_tensor *self, nt_tensor *t1, nt_tensor *t2, nt_scalar value, nt_tensor *out,
                     bool inplace, nt_tensor **result) {
    return addc(NT_OP_ADDCDIV, self, t1, t2, value, out, inplace, result);
}

/* ------------------------------------------------------------------ lerp */

/* lerp(self, end, weight): self, end (and a tensor weight) of one floating dtype, names
 * unified over the tensors (PyTorch 1.13 refuses named tensors here). */
nt_status nt_impl_lerp(nt_call *c) {
    nt_tensor *self = nt_call_tensor(c, 0), *end = nt_call_tensor(c, 1);
    if (!self || !end) return nt_fail_null_tensor("lerp", self ? "end" : "input");
    nt_tensor *w = nt_call_tensor(c, 2);
    if (end->dtype != self->dtype)
        return nt_fail(NT_ERR_RUNTIME, "expected dtype %s for `end` but got dtype %s",
                       cpp_type_name(self->dtype), cpp_type_name(end->dtype));
    if (w && w->dtype != self->dtype)
        return nt_fail(NT_ERR_RUNTIME, "expected dtype %s for `weight` but got dtype %s",
                       cpp_type_name(self->dtype), cpp_type_name(w->dtype));
    nt_tensor *ts[3] = {self, end, w};
    const nt_name *lists[3] = {self->names, end->names, w ? w->names : NULL};
    int ndims[3] = {self->ndim, end->ndim, w ? w->ndim : 0};
    nt_name name_buf[NT_MAX_DIMS];
    const nt_name *names;
    int ndim;
    NT_TRY(nt_names_unify_many("broadcast", w ? 3 : 2, lists, ndims, name_buf, &ndim, &names));
    int64_t shape[NT_MAX_DIMS];
    int bndim;
    NT_TRY(nt_pw_broadcast_of(3, ts, &bndim, shape));
    nt_dtype dtype = self->dtype;
    nt_tensor *target = c->inplace ? self : c->out[0];
    if (target) NT_TRY(nt_pw_check_target(target, !c->inplace, bndim, shape, names, ndim, dtype));
    nt_loop2d loop = nt_lerp_loop(dtype, w != NULL);
    if (!loop) return nt_pw_not_implemented(w ? "lerp_kernel_tensor" : "lerp_kernel_scalar", dtype);
    nt_kparam weight;
    if (!w) weight = param_of(dtype, c->args[2].v.s);

    nt_pw_prepared p[3] = {{0}, {0}, {0}};
    nt_tensor *res = NULL;
    nt_status st = NT_OK;
    for (int k = 0; k < (w ? 3 : 2); k++)
        NT_CHECK(st, nt_pw_prepare_tensor(ts[k], dtype, target, &p[k]));
    if (!target) {
        NT_CHECK(st, nt_tensor_alloc(dtype, bndim, shape, names, &res));
        target = res;
    }
    nt_tensor *iops[4] = {NULL, p[0].tensor, p[1].tensor, p[2].tensor};
    nt_binary_ctx ctx = {NULL, &weight};
    NT_CHECK(st, nt_pw_run_into(target, dtype, w ? 4 : 3, iops, loop, w ? NULL : (void *)&ctx));
    if (target != res) NT_CHECK(st, nt_pw_name_target(target, names));
    c->result[0] = res ? res : nt_tensor_retain(target);
    res = NULL;
fail:
    nt_tensor_release(res);
    for (int k = 0; k < 3; k++)
        nt_pw_prepared_release(&p[k]);
    return st;
}

nt_status nt_lerp(nt_tensor *self, nt_tensor *end, nt_operand weight, nt_tensor *out, bool inplace,
                  nt_tensor **result) {
    if (inplace && out) return nt_fail(NT_ERR_VALUE, "lerp_(): an in-place op takes no out tensor");
    nt_call c;
    nt_call_init(&c, NT_OP_LERP);
    c.inplace = inplace;
    c.out[0] = out;
    c.args[0] = nt_arg_tensor(self);
    c.args[1] = nt_arg_tensor(end);
    c.args[2] = nt_pw_operand_arg(weight);
    return nt_pw_finish(nt_dispatch(&c), &c, result);
}
