/*
 * dtype.c — the dtype table and PyTorch's type promotion.
 */
#include "dtype.h"

const nt_dtype_info nt_dtype_table[NT_DTYPE_COUNT] = {
    [NT_BOOL] = {"bool", 1, NT_KIND_BOOL, false},
    [NT_UINT8] = {"uint8", 1, NT_KIND_INT, false},
    [NT_INT8] = {"int8", 1, NT_KIND_INT, true},
    [NT_INT16] = {"int16", 2, NT_KIND_INT, true},
    [NT_INT32] = {"int32", 4, NT_KIND_INT, true},
    [NT_INT64] = {"int64", 8, NT_KIND_INT, true},
    [NT_FLOAT16] = {"float16", 2, NT_KIND_FLOAT, true},
    [NT_BFLOAT16] = {"bfloat16", 2, NT_KIND_FLOAT, true},
    [NT_FLOAT32] = {"float32", 4, NT_KIND_FLOAT, true},
    [NT_FLOAT64] = {"float64", 8, NT_KIND_FLOAT, true},
};

size_t nt_dtype_size(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? nt_dtype_table[dtype].size : 0;
}

const char *nt_dtype_name(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) ? nt_dtype_table[dtype].name : "invalid";
}

bool nt_dtype_is_floating(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) && nt_dtype_table[dtype].kind == NT_KIND_FLOAT;
}

bool nt_dtype_is_signed(nt_dtype dtype) {
    return nt_dtype_valid((int)dtype) && nt_dtype_table[dtype].is_signed;
}

nt_dtype nt_default_dtype(void) {
    return NT_FLOAT32;
}

/* PyTorch's promote_types. Within a kind the wider type wins, with three exceptions:
 * uint8 with a signed integer needs at least int16, float16 with bfloat16 meets at float32,
 * and bool yields to anything. A float always wins over an integer. */
nt_dtype nt_promote_types(nt_dtype a, nt_dtype b) {
    if (a == b) return a;
    const nt_dtype_info *ia = &nt_dtype_table[a], *ib = &nt_dtype_table[b];
    if (ia->kind == NT_KIND_BOOL) return b;
    if (ib->kind == NT_KIND_BOOL) return a;
    if (ia->kind != ib->kind) return ia->kind == NT_KIND_FLOAT ? a : b;
    if (ia->kind == NT_KIND_FLOAT) {
        if ((a == NT_FLOAT16 && b == NT_BFLOAT16) || (a == NT_BFLOAT16 && b == NT_FLOAT16))
            return NT_FLOAT32;
        return a > b ? a : b; /* enum order: float16, bfloat16, float32, float64 */
    }
    if (a == NT_UINT8 || b == NT_UINT8) {
        nt_dtype other = a == NT_UINT8 ? b : a;
        return other == NT_INT8 ? NT_INT16 : other;
    }
    return a > b ? a : b; /* int8 < int16 < int32 < int64 */
}

nt_dtype nt_scalar_dtype(nt_scalar s) {
    switch (s.kind) {
    case NT_SCALAR_BOOL:
        return NT_BOOL;
    case NT_SCALAR_INT:
        return NT_INT64;
    default:
        return nt_default_dtype();
    }
}

const char *nt_dtype_legacy_name(nt_dtype dtype) {
    static const char *const names[NT_DTYPE_COUNT] = {
        [NT_BOOL] = "Bool",      [NT_UINT8] = "Byte",        [NT_INT8] = "Char",
        [NT_INT16] = "Short",    [NT_INT32] = "Int",         [NT_INT64] = "Long",
        [NT_FLOAT16] = "Half",   [NT_BFLOAT16] = "BFloat16", [NT_FLOAT32] = "Float",
        [NT_FLOAT64] = "Double",
    };
    return names[dtype];
}
