/*
 * ntensor/core.h — the core types: status and errors, threads, dtypes and scalars, interned names,
 * tensors and their accessors.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_CORE_H
#define NTENSOR_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(NT_BUILDING_LIBRARY)
#define NT_API __attribute__((visibility("default")))
#else
#define NT_API
#endif

#define NT_MAX_DIMS 64

/* ------------------------------------------------------------------ errors */

typedef enum nt_status {
    NT_OK = 0,
    NT_ERR_RUNTIME,         /* the general failure: PyTorch's RuntimeError */
    NT_ERR_INDEX,           /* a dim or index out of range: IndexError */
    NT_ERR_TYPE,            /* an argument of the wrong kind: TypeError */
    NT_ERR_VALUE,           /* an argument of the right kind but a bad value: ValueError */
    NT_ERR_MEMORY,          /* an allocation failed: MemoryError */
    NT_ERR_NOT_IMPLEMENTED, /* a valid request this build does not support */
    NT_ERR_DIM_BIND,        /* a first-class dim bound to two sizes, or sizes that do not fit:
                               functorch.dim's DimensionBindError */
} nt_status;

/* The message of the last failure on this thread ("" if none). */
NT_API const char *nt_last_error(void);
/* The status of the last failure on this thread (NT_OK if none). */
NT_API nt_status nt_last_status(void);
NT_API void nt_clear_error(void);

/* Warnings: a call that succeeds may leave warnings on its thread (PyTorch's UserWarnings,
 * such as an out= tensor resized; up to 4 kept). nt_take_warning returns the oldest and
 * clears it (NULL when there is none; the text stays valid until the thread's next warning). */
NT_API const char *nt_take_warning(void);

/* ------------------------------------------------------------------ threads */

/* The number of threads large operations use (OpenMP's setting by default). */
NT_API int nt_get_num_threads(void);
NT_API void nt_set_num_threads(int n);

/* ------------------------------------------------------------------ dtypes */

typedef enum nt_dtype {
    NT_BOOL = 0,
    NT_UINT8,
    NT_INT8,
    NT_INT16,
    NT_INT32,
    NT_INT64,
    NT_FLOAT16,
    NT_BFLOAT16,
    NT_FLOAT32,
    NT_FLOAT64,
    NT_DTYPE_COUNT
} nt_dtype;

NT_API size_t nt_dtype_size(nt_dtype dtype);
/* "float32", "int64", "bool", ... (PyTorch's names without the "torch." prefix). */
NT_API const char *nt_dtype_name(nt_dtype dtype);
NT_API bool nt_dtype_is_floating(nt_dtype dtype);
NT_API bool nt_dtype_is_signed(nt_dtype dtype);
/* PyTorch's promote_types: the smallest dtype both can be converted to safely. */
NT_API nt_dtype nt_promote_types(nt_dtype a, nt_dtype b);
/* The default floating dtype (float32), used by factories when none is given. */
NT_API nt_dtype nt_default_dtype(void);

/* A Python-like scalar: bool, integer or floating. */
typedef enum nt_scalar_kind { NT_SCALAR_BOOL, NT_SCALAR_INT, NT_SCALAR_FLOAT } nt_scalar_kind;
typedef struct nt_scalar {
    nt_scalar_kind kind;
    union {
        bool b;
        int64_t i;
        double f;
    } v;
} nt_scalar;

static inline nt_scalar nt_scalar_bool(bool b) {
    nt_scalar s;
    s.kind = NT_SCALAR_BOOL;
    s.v.b = b;
    return s;
}
static inline nt_scalar nt_scalar_int(int64_t i) {
    nt_scalar s;
    s.kind = NT_SCALAR_INT;
    s.v.i = i;
    return s;
}
static inline nt_scalar nt_scalar_float(double f) {
    nt_scalar s;
    s.kind = NT_SCALAR_FLOAT;
    s.v.f = f;
    return s;
}
/* The dtype PyTorch gives a tensor made from this scalar: bool, int64 or the default. */
NT_API nt_dtype nt_scalar_dtype(nt_scalar s);

/* ------------------------------------------------------------------ names */

typedef uint32_t nt_name;
#define NT_NAME_NONE ((nt_name)0)

/* Interns `text` as a dimension name after validating it (a valid identifier that does
 * not start with an underscore). The same text always gives the same id. */
NT_API nt_status nt_name_intern(const char *text, nt_name *out);
/* Same, for a text of `len` bytes that need not be NUL-terminated. */
NT_API nt_status nt_name_intern_n(const char *text, size_t len, nt_name *out);
/* The text of an interned name; NULL for NT_NAME_NONE or an unknown id. */
NT_API const char *nt_name_str(nt_name name);

/* ------------------------------------------------------------------ storage */

typedef struct nt_storage nt_storage;
/* Called once when the last reference to an external buffer goes away. */
typedef void (*nt_release_fn)(void *ctx, void *data);

/* ------------------------------------------------------------------ tensors */

typedef struct nt_tensor nt_tensor;

NT_API nt_tensor *nt_tensor_retain(nt_tensor *t);
NT_API void nt_tensor_release(nt_tensor *t); /* NULL is allowed */

NT_API int nt_tensor_ndim(const nt_tensor *t);
NT_API const int64_t *nt_tensor_sizes(const nt_tensor *t);
NT_API const int64_t *nt_tensor_strides(const nt_tensor *t);
NT_API int64_t nt_tensor_offset(const nt_tensor *t); /* in elements */
NT_API int64_t nt_tensor_numel(const nt_tensor *t);
NT_API nt_dtype nt_tensor_dtype(const nt_tensor *t);
NT_API bool nt_tensor_is_contiguous(const nt_tensor *t);
/* The address of element [0, ..., 0]; for a tensor without elements, whose offset may be
 * anything, the start of its storage. */
NT_API void *nt_tensor_data(const nt_tensor *t);
/* The names, one per dim, or NULL when the tensor has no named dim. */
NT_API const nt_name *nt_tensor_names(const nt_tensor *t);
NT_API bool nt_tensor_has_names(const nt_tensor *t);
/* A language binding's object for the tensor (the Python module keeps its wrapper here, so
 * that one tensor is one Python object): NULL until set, never read by the library. The
 * binding clears it before its object goes away. */
NT_API void *nt_tensor_handle(const nt_tensor *t);
NT_API void nt_tensor_set_handle(nt_tensor *t, void *handle);
/* Gives t the data of src (PyTorch's `t.data = src`, set_data): t views src's storage with
 * src's dtype, sizes, strides, offset and names, and stays the same object (its binding's
 * object, its autograd state). src is unchanged. */
NT_API nt_status nt_tensor_set_data(nt_tensor *t, const nt_tensor *src);
/* True when both tensors view the same storage. */
NT_API bool nt_tensor_shares_storage(const nt_tensor *a, const nt_tensor *b);
/* The storage's version counter, bumped by every in-place write. */
NT_API uint64_t nt_tensor_version(const nt_tensor *t);

/* A dim argument: an index (negative counts from the end, as in PyTorch) or a name, given
 * as nt_dim_name(name). Every function that takes a dim takes either, and resolves it with
 * PyTorch's texts ("Dimension out of range (expected to be in range of [-2, 1], but got
 * 2)", "Name 'X' not found in Tensor['N', 'C']."). A name is encoded in the lowest 2^32
 * values of int64_t, far below any index. */
typedef int64_t nt_dim;
#define NT_DIM_NAME_BASE INT64_MIN
static inline nt_dim nt_dim_name(nt_name name) {
    return NT_DIM_NAME_BASE + (nt_dim)name;
}
static inline bool nt_dim_is_name(nt_dim d) {
    return d < NT_DIM_NAME_BASE + ((int64_t)1 << 32);
}
static inline nt_name nt_dim_to_name(nt_dim d) {
    return (nt_name)(d - NT_DIM_NAME_BASE);
}

/* Resolves a dim argument of t into [0, ndim): a wrapped index, or a name's position (a
 * None name: "Please look up dimensions by name, got: name = None."). */
NT_API nt_status nt_tensor_dim(const nt_tensor *t, nt_dim dim, int64_t *out);
/* The same for an index alone: a wrapped index in [-ndim, ndim) becomes [0, ndim). */
NT_API nt_status nt_tensor_wrap_dim(const nt_tensor *t, int64_t dim, int64_t *out);
/* Resolves a name to its dim index ("Name 'X' not found in Tensor['N', 'C']."). */
NT_API nt_status nt_tensor_dim_of(const nt_tensor *t, nt_name name, int64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_CORE_H */
