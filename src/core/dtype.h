/*
 * dtype.h — the one list of dtypes (an X-macro) and the table that describes each.
 *
 * NT_DTYPES(X) calls X(ENUM, name, ctype) once per dtype; kernels stamp their typed loops
 * from it, so a new dtype is a new row here and nowhere else.
 */
#ifndef NT_CORE_DTYPE_H
#define NT_CORE_DTYPE_H

#include <stdbool.h>

#include "half.h"
#include "ntensor.h"

#define NT_DTYPES(X)                                                                               \
    X(NT_BOOL, bool, nt_bool)                                                                      \
    X(NT_UINT8, uint8, uint8_t)                                                                    \
    X(NT_INT8, int8, int8_t)                                                                       \
    X(NT_INT16, int16, int16_t)                                                                    \
    X(NT_INT32, int32, int32_t)                                                                    \
    X(NT_INT64, int64, int64_t)                                                                    \
    X(NT_FLOAT16, float16, nt_float16)                                                             \
    X(NT_BFLOAT16, bfloat16, nt_bfloat16)                                                          \
    X(NT_FLOAT32, float32, float)                                                                  \
    X(NT_FLOAT64, float64, double)

/* The storage of a bool element: one byte, read as true when it is not zero (a buffer
 * from NumPy, the user or uninitialised memory may hold any byte; reading such a byte as
 * C's _Bool is undefined behaviour), written as 0 or 1. NumPy and PyTorch read it so. */
typedef uint8_t nt_bool;

typedef enum nt_dtype_kind { NT_KIND_BOOL, NT_KIND_INT, NT_KIND_FLOAT } nt_dtype_kind;

typedef struct nt_dtype_info {
    const char *name;   /* "float32" */
    size_t size;        /* bytes per element */
    nt_dtype_kind kind; /* bool, integer or floating */
    bool is_signed;
} nt_dtype_info;

extern const nt_dtype_info nt_dtype_table[NT_DTYPE_COUNT];

static inline bool nt_dtype_valid(int dtype) {
    return dtype >= 0 && dtype < NT_DTYPE_COUNT;
}

/* The legacy type name PyTorch's messages print ("Float" of torch.FloatTensor). */
const char *nt_dtype_legacy_name(nt_dtype dtype);

#endif
