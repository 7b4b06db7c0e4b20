/*
 * test_op_table.c — walks every row of the op table (include/ntensor/ops.def): each op has
 * a name, a kind, a function that runs it, a schema and Python signatures that parse, flags
 * that agree with its signatures, a loop for at least one dtype where its family keeps
 * loops by op id, and a shape rule (its kind's, its own, or a marker; test_shape_rules.c
 * checks each against the op).
 */
#include <stdint.h>
#include <string.h>

#include "kernels/unary_kernels.h"
#include "nt_test.h"
#include "ops/op_table.h"

static bool has_loop(const nt_loop2d *loops) {
    for (int d = 0; d < NT_DTYPE_COUNT; d++)
        if (loops[d]) return true;
    return false;
}

/* Every row is filled in: name, kind, impl, a schema that parses within the call record. */
static void test_every_row_is_complete(void) {
    for (int op = 0; op < NT_OP_COUNT; op++) {
        const nt_op_row *row = &nt_op_rows[op];
        EXPECT(row->name && row->name[0]);
        EXPECT(strcmp(nt_op_name((nt_op)op), row->name) == 0);
        EXPECT(row->impl != NULL);
        EXPECT((unsigned)row->kind <= NT_OPK_OTHER);
        nt_sig sig;
        EXPECT(row->schema && nt_sig_parse(row->schema, strlen(row->schema), &sig) == NT_OK);
        if (!row->schema) continue;
        EXPECT(sig.nparams <= NT_CALL_MAX_ARGS);
        /* an op with only an in-place form (resize_) has the in-place name in its schema */
        size_t n = strlen(row->name);
        bool named = strcmp(sig.name, row->name) == 0 ||
                     (strncmp(sig.name, row->name, n) == 0 && strcmp(sig.name + n, "_") == 0);
        EXPECT(named);
        if (!named) fprintf(stderr, "  op %s: schema of %s\n", row->name, sig.name);
        for (int i = 0; i < sig.nparams; i++)
            EXPECT(strcmp(sig.params[i].type, "Operand") == 0 ||
                   nt_sig_kind_of(sig.params[i].type) >= 0);
        if (nt_last_status() != NT_OK) fprintf(stderr, "  op %s: %s\n", row->name, nt_last_error());
    }
}

/* The Python signatures parse; an op with out= has an out parameter in its function form
 * (an op without signatures has a hand-written Python entry). */
static void test_python_signatures_agree_with_flags(void) {
    for (int op = 0; op < NT_OP_COUNT; op++) {
        const nt_op_row *row = &nt_op_rows[op];
        unsigned flags = row->flags | row->extra_flags;
        if (!(flags & (NT_OPF_FUNCTION | NT_OPF_METHOD))) continue;
        const char *py = nt_op_python((nt_op)op);
        /* no signature: no Python entry (rename's **rename_map becomes rename's names) */
        bool any_out = false;
        for (const char *line = py; *line;) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            nt_sig sig;
            nt_status st = nt_sig_parse(line, len, &sig);
            EXPECT(st == NT_OK);
            if (st != NT_OK) fprintf(stderr, "  op %s: %.*s\n", row->name, (int)len, line);
            for (int i = 0; st == NT_OK && i < sig.nparams; i++)
                any_out |= strcmp(sig.params[i].name, "out") == 0;
            line = end ? end + 1 : line + len;
        }
        if ((flags & NT_OPF_OUT) && py[0]) EXPECT(any_out);
    }
}

/* Ops of a family that keeps loops by op id have a loop for at least one dtype. */
static void test_every_pointwise_op_has_a_loop(void) {
    for (int op = 0; op < NT_OP_COUNT; op++)
        if (nt_op_rows[op].impl == nt_impl_unary) {
            EXPECT(has_loop(nt_unary_loops[op]));
            if (!has_loop(nt_unary_loops[op])) fprintf(stderr, "  op %s\n", nt_op_rows[op].name);
        }
}

/* Every row has a shape rule: its kind's, its own function, or a marker; the marker "no
 * tensor result" exactly on the rows whose schema returns no tensor. */
static void test_every_row_has_a_shape_rule(void) {
    for (int op = 0; op < NT_OP_COUNT; op++) {
        const nt_op_row *row = &nt_op_rows[op];
        EXPECT(nt_shape_rule_of((nt_op)op) != NULL);
        bool by_kind = nt_op_shape_rule((nt_op)op) == NT_SHAPE_BY_KIND;
        EXPECT(by_kind == (row->shape == NULL));
        EXPECT(!by_kind || nt_shape_rule_of_kind(row->kind) != NULL);
        nt_sig sig;
        if (nt_sig_parse(row->schema, strlen(row->schema), &sig) != NT_OK) continue;
        bool tensor_result = strstr(sig.returns, "Tensor") != NULL;
        bool marked = nt_op_shape_rule((nt_op)op) == NT_SHAPE_NO_TENSOR;
        EXPECT(tensor_result != marked);
        if (nt_shape_rule_of((nt_op)op) == NULL || tensor_result == marked)
            fprintf(stderr, "  op %d %s: shape rule\n", op, row->name);
    }
    EXPECT(nt_op_shape_rule(NT_OP_MASKED_SELECT) == NT_SHAPE_DATA_DEPENDENT);
    EXPECT(nt_op_shape_rule(NT_OP_ADD) == NT_SHAPE_BY_KIND);
    EXPECT(nt_op_shape_rule(NT_OP_MATMUL) == NT_SHAPE_BY_FUNCTION);
    EXPECT(nt_op_shape_rule((nt_op)NT_OP_COUNT) == NT_SHAPE_NO_TENSOR);
}

/* The public queries refuse ids outside the list. */
static void test_queries_refuse_invalid_ids(void) {
    EXPECT(nt_op_name((nt_op)NT_OP_COUNT) == NULL);
    EXPECT(nt_op_name((nt_op)-1) == NULL);
    EXPECT(nt_op_flags((nt_op)NT_OP_COUNT) == 0);
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = (nt_op)NT_OP_COUNT;
    EXPECT_ERR(nt_call_op(&c), NT_ERR_VALUE, "invalid op");
}

/* A schema parameter's default as the argument a call that leaves it out takes. */
static void test_schema_defaults_are_arguments(void) {
    const char *text = "f(Tensor self, Scalar alpha=1, float rtol=1e-05, bool b=True, Dim dim=-1, "
                       "int n=3, Operand other=2.5, int[] sizes=[], int? k=None, Scalar s)";
    nt_sig sig;
    EXPECT_OK(nt_sig_parse(text, strlen(text), &sig));
    nt_arg a[10];
    for (int i = 0; i < 10; i++)
        a[i] = nt_sig_default(&sig.params[i]);
    EXPECT(a[0].kind == NT_ARG_NONE && a[9].kind == NT_ARG_NONE); /* no default */
    EXPECT(a[1].kind == NT_ARG_SCALAR && a[1].v.s.kind == NT_SCALAR_INT && a[1].v.s.v.i == 1);
    EXPECT(a[2].kind == NT_ARG_FLOAT && a[2].v.f == 1e-05);
    EXPECT(a[3].kind == NT_ARG_BOOL && a[3].v.b);
    EXPECT(a[4].kind == NT_ARG_DIM && a[4].v.dim == -1);
    EXPECT(a[5].kind == NT_ARG_INT && a[5].v.i == 3);
    EXPECT(a[6].kind == NT_ARG_SCALAR && a[6].v.s.kind == NT_SCALAR_FLOAT && a[6].v.s.v.f == 2.5);
    EXPECT(a[7].kind == NT_ARG_NONE && a[8].kind == NT_ARG_NONE); /* a list; None */
}

/* size(dim), stride(dim): one dim's, by index or name; PyTorch's error on a 0-dim tensor. */
static void test_size_and_stride_rows(void) {
    int64_t sizes[2] = {2, 3};
    nt_tensor *t = NULL, *s = NULL;
    nt_name names[2] = {NT_NAME_NONE, NT_NAME_NONE};
    EXPECT_OK(nt_name_intern("C", &names[1]));
    EXPECT_OK(nt_zeros(2, sizes, NT_FLOAT32, names, &t));
    EXPECT_OK(nt_zeros(0, NULL, NT_FLOAT32, NULL, &s));
    if (!t || !s) return;
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = NT_OP_SIZE;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(-2);
    EXPECT_OK(nt_call_op(&c));
    EXPECT(c.value.kind == NT_SCALAR_INT && c.value.v.i == 2);
    c.op = NT_OP_STRIDE;
    c.args[1] = nt_arg_dim(nt_dim_name(names[1]));
    EXPECT_OK(nt_call_op(&c));
    EXPECT(c.value.v.i == 1);
    c.args[0] = nt_arg_tensor(s);
    c.args[1] = nt_arg_dim(-1);
    EXPECT_ERR(nt_call_op(&c), NT_ERR_INDEX,
               "Dimension specified as -1 but tensor has no dimensions");
    nt_tensor_release(t);
    nt_tensor_release(s);
}

/* nt_call_numel: the largest tensor slot, a list counting all its tensors; other slots none */
static void test_call_numel(void) {
    int64_t big[2] = {4, 5}, small[1] = {3};
    nt_tensor *a = NULL, *b = NULL;
    EXPECT_OK(nt_zeros(2, big, NT_FLOAT32, NULL, &a));
    EXPECT_OK(nt_zeros(1, small, NT_FLOAT32, NULL, &b));
    if (!a || !b) return;
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = NT_OP_ADD;
    c.args[0] = nt_arg_tensor(b);
    c.args[1] = nt_arg_tensor(a);
    c.args[2] = nt_arg_none();
    EXPECT(nt_call_numel(&c) == 20);
    c.args[1] = nt_arg_scalar(nt_scalar_int(2));
    EXPECT(nt_call_numel(&c) == 3);
    nt_tensor *list[3] = {a, b, a};
    c.op = NT_OP_CAT;
    c.args[0] = nt_arg_tensors(3, list);
    c.args[1] = nt_arg_dim(0);
    EXPECT(nt_call_numel(&c) == 43);
    nt_tensor_release(a);
    nt_tensor_release(b);
}

/* A slot left empty where the schema has a default takes that default (isclose's rtol) */
static void test_empty_slots_take_defaults(void) {
    int64_t n[1] = {1};
    nt_tensor *a = NULL, *b = NULL;
    EXPECT_OK(nt_full(1, n, nt_scalar_float(1.0), NT_FLOAT64, NULL, &a));
    EXPECT_OK(nt_full(1, n, nt_scalar_float(1.0 + 5e-6), NT_FLOAT64, NULL, &b));
    if (!a || !b) return;
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = NT_OP_ALLCLOSE;
    c.args[0] = nt_arg_tensor(a);
    c.args[1] = nt_arg_tensor(b);
    for (int i = 2; i < 5; i++)
        c.args[i] = nt_arg_none();
    EXPECT_OK(nt_call_op(&c));
    EXPECT(c.value.kind == NT_SCALAR_BOOL && c.value.v.b); /* within rtol=1e-05 */
    nt_tensor_release(a);
    nt_tensor_release(b);
}

int main(void) {
    NT_RUN(test_every_row_is_complete);
    NT_RUN(test_python_signatures_agree_with_flags);
    NT_RUN(test_every_pointwise_op_has_a_loop);
    NT_RUN(test_every_row_has_a_shape_rule);
    NT_RUN(test_queries_refuse_invalid_ids);
    NT_RUN(test_schema_defaults_are_arguments);
    NT_RUN(test_size_and_stride_rows);
    NT_RUN(test_call_numel);
    NT_RUN(test_empty_slots_take_defaults);
    return nt_test_summary();
}
