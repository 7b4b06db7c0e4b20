/*
 * shape.c — the public shape query (ntensor/call.h: nt_op_result_shape): a call record is
 * checked as nt_call_op checks it, then its row's shape rule (ops/shape.h) runs on it. The
 * op itself never runs; this is the shape inference that first-class dims and autograd
 * build on.
 */
#include <string.h>

#include "core/status.h"
#include "dispatch.h"

nt_shape_rule nt_op_shape_rule(nt_op op) {
    if ((unsigned)op >= NT_OP_COUNT) return NT_SHAPE_NO_TENSOR;
    nt_op_shape own = nt_op_row_of(op)->shape;
    if (own == nt_shape_no_tensor) return NT_SHAPE_NO_TENSOR;
    if (own == nt_shape_data_dependent) return NT_SHAPE_DATA_DEPENDENT;
    return own ? NT_SHAPE_BY_FUNCTION : NT_SHAPE_BY_KIND;
}

nt_status nt_op_result_list_shape(const nt_call *c, int64_t index, int64_t *count, int *ndim,
                                  int64_t *sizes) {
    if (!ndim || !sizes) return nt_fail(NT_ERR_VALUE, "nt_op_result_shape(): NULL ndim or sizes");
    NT_TRY(nt_call_check(c));
    nt_op_shape rule = nt_shape_rule_of(c->op);
    if (!rule) /* the op table's test keeps every row with a rule */
        return nt_fail(NT_ERR_RUNTIME, "%s: the op has no shape rule", nt_op_name(c->op));
    nt_shape s;
    s.ndim = 0;
    s.index = index;
    s.count = 1;
    NT_TRY(rule(c, &s));
    if (index < 0 || (index >= s.count && !(index == 0 && s.count == 0)))
        return nt_fail(NT_ERR_INDEX, "%s: result %lld asked for, of %lld", nt_op_name(c->op),
                       (long long)index, (long long)s.count);
    *ndim = s.ndim;
    memcpy(sizes, s.sizes, (size_t)s.ndim * sizeof *sizes);
    if (count) *count = s.count;
    return NT_OK;
}

nt_status nt_op_result_shape(const nt_call *c, int *ndim, int64_t *sizes) {
    return nt_op_result_list_shape(c, 0, NULL, ndim, sizes);
}
