/*
 * test_vjp_table.c — the vjp table covers the op list: every op is either marked not
 * differentiable (NT_OPF_NO_GRAD, or a bool result) or has a backward formula (or a composite
 * form) and a node name; and no non-differentiable op has a formula.
 */
#include "autograd/autograd.h"
#include "nt_test.h"

static bool differentiable(nt_op op) {
    const nt_op_row *row = nt_op_row_of(op);
    return !((row->flags | row->extra_flags) & NT_OPF_NO_GRAD) && row->dtypes != NT_DT_BOOL;
}

static void test_every_differentiable_op_has_a_formula(void) {
    int missing = 0;
    for (int op = 0; op < NT_OP_COUNT; op++) {
        const nt_vjp_row *v = &nt_vjp_rows[op];
        bool has = v->fn || v->composite;
        if (differentiable((nt_op)op) && (!has || !v->name)) {
            fprintf(stderr, "  op %d (%s): differentiable, no backward formula\n", op,
                    nt_op_name((nt_op)op));
            missing++;
        }
        if (!differentiable((nt_op)op) && has) {
            fprintf(stderr, "  op %d (%s): not differentiable, but has a formula\n", op,
                    nt_op_name((nt_op)op));
            missing++;
        }
    }
    EXPECT(missing == 0);
}

int main(void) {
    NT_RUN(test_every_differentiable_op_has_a_formula);
    return nt_test_summary();
}
