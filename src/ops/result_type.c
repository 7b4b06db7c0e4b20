/*
 * result_type.c — PyTorch's result_type: the dtype an op computes in when its operands
 * are tensors of several dtypes and Python scalars (layer L4, shared by every family).
 *
 * Operands fall into three categories, highest first: tensors with dims, zero-dim tensors,
 * and Python scalars ("wrapped numbers": bool -> bool, int -> int64, float -> the default
 * float dtype). Within a category dtypes promote (nt_promote_types); across categories a
 * lower one only counts when it raises the kind (bool < integer < floating):
 *   int32 tensor + 2.5 -> float32, uint8 tensor + int64 0-dim tensor -> uint8,
 *   int32 tensor + float64 0-dim tensor -> float64, bool tensor + 1 -> int64.
 * This is ATen's ResultTypeState / combine_categories.
 */
#include "core/dtype.h"
#include "core/status.h"
#include "core/tensor.h"

#define NO_DTYPE (-1)

static bool is_float(int d) {
    return d != NO_DTYPE && nt_dtype_table[d].kind == NT_KIND_FLOAT;
}

static int promote_skip_undefined(int a, int b) {
    if (a == NO_DTYPE) return b;
    if (b == NO_DTYPE) return a;
    return (int)nt_promote_types((nt_dtype)a, (nt_dtype)b);
}

/* ATen's combine_categories(higher, lower). */
static int combine_categories(int higher, int lower) {
    if (is_float(higher)) return higher;
    if (higher == NT_BOOL || is_float(lower)) return promote_skip_undefined(higher, lower);
    if (higher != NO_DTYPE) return higher;
    return lower;
}

nt_dtype nt_result_type(int ntensors, nt_tensor *const *tensors, int nscalars,
                        const nt_scalar *scalars) {
    int dim = NO_DTYPE, zero = NO_DTYPE, wrapped = NO_DTYPE;
    for (int i = 0; i < ntensors; i++) {
        const nt_tensor *t = tensors[i];
        if (!t) continue;
        if (t->ndim > 0)
            dim = promote_skip_undefined(dim, (int)t->dtype);
        else
            zero = promote_skip_undefined(zero, (int)t->dtype);
    }
    for (int i = 0; i < nscalars; i++)
        wrapped = promote_skip_undefined(wrapped, (int)nt_scalar_dtype(scalars[i]));
    int r = combine_categories(dim, combine_categories(zero, wrapped));
    return r == NO_DTYPE ? nt_default_dtype() : (nt_dtype)r;
}

bool nt_can_cast(nt_dtype from, nt_dtype to) {
    nt_dtype_kind f = nt_dtype_table[from].kind, t = nt_dtype_table[to].kind;
    if (f == NT_KIND_FLOAT && t != NT_KIND_FLOAT) return false;
    if (f != NT_KIND_BOOL && t == NT_KIND_BOOL) return false;
    return true;
}

const char *nt_dtype_torch_name(nt_dtype dtype) {
    static const char *const names[NT_DTYPE_COUNT] = {
        [NT_BOOL] = "Bool",      [NT_UINT8] = "Byte",        [NT_INT8] = "Char",
        [NT_INT16] = "Short",    [NT_INT32] = "Int",         [NT_INT64] = "Long",
        [NT_FLOAT16] = "Half",   [NT_BFLOAT16] = "BFloat16", [NT_FLOAT32] = "Float",
        [NT_FLOAT64] = "Double",
    };
    return nt_dtype_valid((int)dtype) ? names[dtype] : "Undefined";
}
