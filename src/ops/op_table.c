/*
 * op_table.c — the op table: include/ntensor/ops.def expanded into rows, and the public
 * queries on it (ntensor/call.h).
 */
#include "op_table.h"

#include "core/status.h"

const nt_op_row nt_op_rows[NT_OP_COUNT] = {
#define NT_OP(id, ...) [NT_OP_##id] = {__VA_ARGS__},
#include "ntensor/ops.def"
#undef NT_OP
};

/* Every id has a row with a name, a schema and a function: a row left out of the list
 * (a gap in the designated initializers) would be all zeros. */
_Static_assert(sizeof nt_op_rows / sizeof nt_op_rows[0] == NT_OP_COUNT,
               "one row per op of ntensor/ops.def");

static bool valid(nt_op op) {
    return (unsigned)op < NT_OP_COUNT;
}

const char *nt_op_name(nt_op op) {
    return valid(op) ? nt_op_rows[op].name : NULL;
}

const char *nt_op_schema(nt_op op) {
    return valid(op) ? nt_op_rows[op].schema : NULL;
}

const char *nt_op_python(nt_op op) {
    return valid(op) && nt_op_rows[op].python ? nt_op_rows[op].python : "";
}

unsigned nt_op_flags(nt_op op) {
    return valid(op) ? nt_op_rows[op].flags | nt_op_rows[op].extra_flags : 0;
}

nt_op_kind nt_op_kind_of(nt_op op) {
    return valid(op) ? nt_op_rows[op].kind : NT_OPK_OTHER;
}
