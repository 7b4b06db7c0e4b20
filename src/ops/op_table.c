/*
 * op_table.c — the op table: include/ntensor/ops.def expanded into rows, their schemas
 * parsed once, and the public queries on it (ntensor/call.h).
 */
#include "op_table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------------ parsed schemas */

nt_op_slots nt_op_slots_table[NT_OP_COUNT];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;
_Atomic bool nt_op_slots_ready;

static void parse_one(const char *text, nt_op_slots *r) {
    r->dim = r->keepdim = r->size = -1;
    nt_sig sig;
    if (!text || nt_sig_parse(text, strlen(text), &sig) != NT_OK || sig.nparams > NT_CALL_MAX_ARGS)
        return;
    r->nslots = sig.nparams;
    r->ok = true;
    for (int i = 0; i < sig.nparams; i++) {
        const nt_param *p = &sig.params[i];
        bool operand = strcmp(p->type, "Operand") == 0;
        int kind = nt_sig_kind_of(p->type);
        if (kind < 0) r->ok = false;
        r->slots[i].kind = (int8_t)(operand ? -1 : kind);
        r->slots[i].allow_none = p->allow_none || p->optional;
        if (operand || kind == NT_ARG_TENSOR || kind == NT_ARG_TENSORS) r->tensor_slots |= 1u << i;
        if (kind == NT_ARG_DIM || kind == NT_ARG_DIMS) r->dim_slots |= 1u << i;
        if (strcmp(p->name, "dim") == 0) {
            char *end;
            long long v = strtoll(p->default_text, &end, 10);
            r->dim = (int8_t)i;
            r->dim_has_default = p->optional && end != p->default_text && *end == '\0';
            r->dim_default = v;
        } else if (strcmp(p->name, "keepdim") == 0) {
            r->keepdim = (int8_t)i;
        } else if (strcmp(p->name, "size") == 0) {
            r->size = (int8_t)i;
        }
    }
}

static void parse_all(void) {
    for (int op = 0; op < NT_OP_COUNT; op++)
        parse_one(nt_op_rows[op].schema, &nt_op_slots_table[op]);
    nt_clear_error();
    atomic_store_explicit(&nt_op_slots_ready, true, memory_order_release);
}

void nt_op_slots_parse(void) {
    pthread_once(&slots_once, parse_all);
}
