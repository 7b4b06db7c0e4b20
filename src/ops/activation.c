/*
 * activation.c — gelu and silu (layer L4: unary.c's runner with the loops of
 * kernels/activation_kernels.c, names kept) and their backward ops gelu_backward and
 * silu_backward: grad_output * f'(self), the two broadcast, their names unified and their
 * dtypes promoted, as aten's structured binary kernels do.
 */
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "iter/iter.h"
#include "kernels/activation_kernels.h"
#include "names/infer.h"
#include "ops/nn.h"
#include "ops/out.h"

nt_status nt_gelu_approximate(const char *s, int *out) {
    if (!s || strcmp(s, "none") == 0)
        *out = 0;
    else if (strcmp(s, "tanh") == 0)
        *out = 1;
    else
        return nt_fail(NT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
    return NT_OK;
}

static const char *str_arg(const nt_call *c, int i) {
    return c->args[i].kind == NT_ARG_STR ? c->args[i].v.str : NULL;
}

nt_status nt_impl_gelu(nt_call *c) {
    int approximate = 0;
    NT_TRY(nt_gelu_approximate(str_arg(c, 1), &approximate));
    return nt_unary_run(nt_op_row_of(c->op), nt_gelu_loops[approximate], nt_call_tensor(c, 0),
                        c->out[0], NULL, &c->result[0]);
}

nt_status nt_impl_silu(nt_call *c) {
    return nt_unary_run(nt_op_row_of(c->op), nt_silu_loops, nt_call_tensor(c, 0), c->out[0], NULL,
                        &c->result[0]);
}

/* gelu_backward(grad_output, self, approximate) and silu_backward(grad_output, self) */
nt_status nt_impl_activation_backward(nt_call *c) {
    const nt_op_row *row = nt_op_row_of(c->op);
    nt_tensor *dy = nt_call_tensor(c, 0), *x = nt_call_tensor(c, 1);
    if (!dy) return nt_fail_null_tensor(row->name, "grad_output");
    if (!x) return nt_fail_null_tensor(row->name, "self");
    const nt_loop2d *loops = nt_silu_backward_loops;
    if (c->op == NT_OP_GELU_BACKWARD) {
        int approximate = 0;
        NT_TRY(nt_gelu_approximate(str_arg(c, 2), &approximate));
        loops = nt_gelu_backward_loops[approximate];
    }
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    int nd;
    NT_TRY(nt_names_unify_from_right(dy->names, dy->ndim, x->names, x->ndim, buf, &nd, &names));
    nt_dtype dtype = nt_promote_types(dy->dtype, x->dtype);
    if (!loops[dtype])
        return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", row->kernel,
                       nt_dtype_torch_name(dtype));
    nt_tensor *ops[3] = {NULL, dy, x}, *cdy = NULL, *cx = NULL, *result = NULL;
    nt_status st;
    if (dy->dtype != dtype) {
        NT_CHECK(st, nt_to_dtype(dy, dtype, &cdy));
        ops[1] = cdy;
    }
    if (x->dtype != dtype) {
        NT_CHECK(st, nt_to_dtype(x, dtype, &cx));
        ops[2] = cx;
    }
    int ndim;
    int64_t shape[NT_MAX_DIMS];
    NT_CHECK(st, nt_broadcast_shapes(2, ops + 1, &ndim, shape));
    NT_CHECK(st, nt_tensor_alloc(dtype, ndim, shape, names, &result));
    ops[0] = result;
    nt_iter it;
    nt_iter_config cfg = nt_iter_defaults();
    cfg.check_mem_overlap = false; /* result is fresh */
    NT_CHECK(st, nt_iter_build(&it, 3, ops, &cfg));
    nt_iter_run(&it, loops[dtype], NULL);
    c->result[0] = result;
    result = NULL;
fail:
    nt_tensor_release(cdy);
    nt_tensor_release(cx);
    nt_tensor_release(result);
    return st;
}

/* ------------------------------------------------------------------ public API */

static nt_status call1(nt_op op, nt_tensor *a, nt_tensor *b, nt_arg extra, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", nt_op_name(op));
    nt_call c;
    nt_call_init(&c, op);
    int i = 0;
    c.args[i++] = nt_arg_tensor(a);
    if (b) c.args[i++] = nt_arg_tensor(b);
    c.args[i] = extra;
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}

nt_status nt_gelu(nt_tensor *t, const char *approximate, nt_tensor **out) {
    return call1(NT_OP_GELU, t, NULL, nt_arg_str(approximate), out);
}

nt_status nt_gelu_backward(nt_tensor *grad_output, nt_tensor *self, const char *approximate,
                           nt_tensor **out) {
    if (!self) return nt_fail_null_tensor("gelu_backward", "self");
    return call1(NT_OP_GELU_BACKWARD, grad_output, self, nt_arg_str(approximate), out);
}

nt_status nt_silu(nt_tensor *t, nt_tensor **out) {
    return call1(NT_OP_SILU, t, NULL, nt_arg_none(), out);
}

nt_status nt_silu_backward(nt_tensor *grad_output, nt_tensor *self, nt_tensor **out) {
    if (!self) return nt_fail_null_tensor("silu_backward", "self");
    return call1(NT_OP_SILU_BACKWARD, grad_output, self, nt_arg_none(), out);
}
