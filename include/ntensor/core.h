/**
 * @file
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

/** Marks a public function: exported from the shared library (which is built with hidden
 * visibility), empty for its users. */
#if defined(NT_BUILDING_LIBRARY)
#define NT_API __attribute__((visibility("default")))
#else
#define NT_API
#endif

/** The most dims a tensor may have. */
#define NT_MAX_DIMS 64

/* ------------------------------------------------------------------ errors */

/** The result of every fallible function: NT_OK, or the kind of failure (the Python module
 * raises the exception named beside each). On failure nt_last_error() says why. */
typedef enum nt_status {
    NT_OK = 0,              /**< success */
    NT_ERR_RUNTIME,         /**< the general failure: PyTorch's RuntimeError */
    NT_ERR_INDEX,           /**< a dim or index out of range: IndexError */
    NT_ERR_TYPE,            /**< an argument of the wrong kind: TypeError */
    NT_ERR_VALUE,           /**< an argument of the right kind but a bad value: ValueError */
    NT_ERR_MEMORY,          /**< an allocation failed: MemoryError */
    NT_ERR_NOT_IMPLEMENTED, /**< a valid request this build does not support */
    NT_ERR_DIM_BIND,        /**< a first-class dim bound to two sizes, or sizes that do not fit:
                               functorch.dim's DimensionBindError */
} nt_status;

/** The message of the last failure on this thread ("" if none). */
NT_API const char *nt_last_error(void);
/** The status of the last failure on this thread (NT_OK if none). */
NT_API nt_status nt_last_status(void);
/** Clears this thread's last error (nt_last_error() then gives ""). */
NT_API void nt_clear_error(void);

/** Warnings: a call that succeeds may leave warnings on its thread (PyTorch's UserWarnings,
 * such as an out= tensor resized; up to 4 kept). nt_take_warning returns the oldest and
 * clears it (NULL when there is none; the text stays valid until the thread's next warning). */
NT_API const char *nt_take_warning(void);

/* ------------------------------------------------------------------ threads */

/** The number of threads the calling thread's large operations use (OpenMP's setting by
 * default). */
NT_API int nt_get_num_threads(void);
/** Sets the number of threads the calling thread's later operations use (n >= 1; results do
 * not depend on it). This is OpenMP's omp_set_num_threads: other threads, and threads started
 * later, keep their own setting (OMP_NUM_THREADS by default). */
NT_API void nt_set_num_threads(int n);

/* ------------------------------------------------------------------ dtypes */

/** The element types, PyTorch's: the order is the dtype table's (append-only). */
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
    NT_DTYPE_COUNT /**< the number of dtypes, not a dtype */
} nt_dtype;

/** The size of one element of `dtype` in bytes. */
NT_API size_t nt_dtype_size(nt_dtype dtype);
/** "float32", "int64", "bool", ... (PyTorch's names without the "torch." prefix). */
NT_API const char *nt_dtype_name(nt_dtype dtype);
/** True for float16, bfloat16, float32 and float64. */
NT_API bool nt_dtype_is_floating(nt_dtype dtype);
/** True for the dtypes that hold negative values (the signed integers and the floats). */
NT_API bool nt_dtype_is_signed(nt_dtype dtype);
/** PyTorch's promote_types: the smallest dtype both can be converted to safely. */
NT_API nt_dtype nt_promote_types(nt_dtype a, nt_dtype b);
/** The default floating dtype (float32), used by factories when none is given. */
NT_API nt_dtype nt_default_dtype(void);

/** A Python-like scalar: bool, integer or floating. */
typedef enum nt_scalar_kind { NT_SCALAR_BOOL, NT_SCALAR_INT, NT_SCALAR_FLOAT } nt_scalar_kind;
/** A number passed by value, as Python passes one to PyTorch: its kind decides type promotion
 * (a float scalar makes an integer tensor's result floating). Build one with nt_scalar_bool,
 * nt_scalar_int or nt_scalar_float. */
typedef struct nt_scalar {
    nt_scalar_kind kind; /**< which member of v holds the value */
    /** The value. */
    union {
        bool b;    /**< NT_SCALAR_BOOL */
        int64_t i; /**< NT_SCALAR_INT */
        double f;  /**< NT_SCALAR_FLOAT */
    } v;
} nt_scalar;

/** A bool scalar (Python's True/False). */
static inline nt_scalar nt_scalar_bool(bool b) {
    nt_scalar s;
    s.kind = NT_SCALAR_BOOL;
    s.v.b = b;
    return s;
}
/** An integer scalar (Python's int). */
static inline nt_scalar nt_scalar_int(int64_t i) {
    nt_scalar s;
    s.kind = NT_SCALAR_INT;
    s.v.i = i;
    return s;
}
/** A floating scalar (Python's float). */
static inline nt_scalar nt_scalar_float(double f) {
    nt_scalar s;
    s.kind = NT_SCALAR_FLOAT;
    s.v.f = f;
    return s;
}
/** The dtype PyTorch gives a tensor made from this scalar: bool, int64 or the default. */
NT_API nt_dtype nt_scalar_dtype(nt_scalar s);

/* ------------------------------------------------------------------ names */

/** An interned dimension name (nt_name_intern): comparing two names compares two integers. */
typedef uint32_t nt_name;
/** The unnamed dim (Python's None): a wildcard that matches any name. */
#define NT_NAME_NONE ((nt_name)0)

/** Interns `text` as a dimension name after validating it (a valid identifier that does
 * not start with an underscore). The same text always gives the same id, on every thread.
 * @param text a NUL-terminated UTF-8 string, copied (the caller keeps it)
 * @param[out] out the name's id; untouched on failure
 * @return NT_OK, or NT_ERR_RUNTIME with PyTorch's text for an invalid name */
NT_API nt_status nt_name_intern(const char *text, nt_name *out);
/** Same, for a text of `len` bytes that need not be NUL-terminated. */
NT_API nt_status nt_name_intern_n(const char *text, size_t len, nt_name *out);
/** The text of an interned name; NULL for NT_NAME_NONE or an unknown id. */
NT_API const char *nt_name_str(nt_name name);

/* ------------------------------------------------------------------ storage */

/** A refcounted buffer that tensors view (opaque: reached through its tensors). */
typedef struct nt_storage nt_storage;
/** Called once when the last reference to an external buffer goes away. */
typedef void (*nt_release_fn)(void *ctx, void *data);

/* ------------------------------------------------------------------ tensors */

/** A tensor: a refcounted view (dtype, sizes, strides, offset, names) on a storage. Opaque;
 * every function that returns one through an out-parameter gives a new reference. */
typedef struct nt_tensor nt_tensor;

/** Takes one more reference to `t` (thread-safe: the count is atomic).
 * @return `t` itself, for chaining */
NT_API nt_tensor *nt_tensor_retain(nt_tensor *t);
/** Gives back one reference; the last frees the tensor, and its storage when no other tensor
 * views it. NULL is allowed (nothing happens). */
NT_API void nt_tensor_release(nt_tensor *t);

/** The number of (positional) dims, 0 to NT_MAX_DIMS. */
NT_API int nt_tensor_ndim(const nt_tensor *t);
/** The size of each dim: ndim entries, borrowed (valid while `t` lives and keeps its shape). */
NT_API const int64_t *nt_tensor_sizes(const nt_tensor *t);
/** The stride of each dim in elements: ndim entries, borrowed like nt_tensor_sizes. */
NT_API const int64_t *nt_tensor_strides(const nt_tensor *t);
/** The offset of element [0, ..., 0] from the start of the storage, in elements. */
NT_API int64_t nt_tensor_offset(const nt_tensor *t);
/** The number of elements (the product of the sizes; 1 for a 0-dim tensor). */
NT_API int64_t nt_tensor_numel(const nt_tensor *t);
/** The element type. */
NT_API nt_dtype nt_tensor_dtype(const nt_tensor *t);
/** True when the elements lie in row-major order without gaps (PyTorch's is_contiguous). */
NT_API bool nt_tensor_is_contiguous(const nt_tensor *t);
/** The address of element [0, ..., 0]; for a tensor without elements, whose offset may be
 * anything, the start of its storage. */
NT_API void *nt_tensor_data(const nt_tensor *t);
/** The names, one per dim (borrowed, valid while `t` keeps them), or NULL when the tensor has no
 * named dim. */
NT_API const nt_name *nt_tensor_names(const nt_tensor *t);
/** True when some dim of `t` is named. */
NT_API bool nt_tensor_has_names(const nt_tensor *t);
/** A language binding's object for the tensor (the Python module keeps its wrapper here, so
 * that one tensor is one Python object): NULL until set, never read by the library. The
 * binding clears it before its object goes away. */
NT_API void *nt_tensor_handle(const nt_tensor *t);
/** Sets the binding's object (see nt_tensor_handle); the library never reads or frees it. */
NT_API void nt_tensor_set_handle(nt_tensor *t, void *handle);
/** Gives t the data of src (PyTorch's `t.data = src`, set_data): t views src's storage with
 * src's dtype, sizes, strides, offset and names, and stays the same object (its binding's
 * object, its autograd state). src is unchanged. */
NT_API nt_status nt_tensor_set_data(nt_tensor *t, const nt_tensor *src);
/** True when both tensors view the same storage. */
NT_API bool nt_tensor_shares_storage(const nt_tensor *a, const nt_tensor *b);
/** The storage's version counter, bumped by every in-place write. */
NT_API uint64_t nt_tensor_version(const nt_tensor *t);

/** A dim argument: an index (negative counts from the end, as in PyTorch) or a name, given
 * as nt_dim_name(name). Every function that takes a dim takes either, and resolves it with
 * PyTorch's texts ("Dimension out of range (expected to be in range of [-2, 1], but got
 * 2)", "Name 'X' not found in Tensor['N', 'C']."). A name is encoded in the lowest 2^32
 * values of int64_t, far below any index. */
typedef int64_t nt_dim;
/** The nt_dim of name 0; a name n is NT_DIM_NAME_BASE + n. */
#define NT_DIM_NAME_BASE INT64_MIN
/** A name as a dim argument: nt_sum(t, 1, (nt_dim[]){nt_dim_name(C)}, ...). */
static inline nt_dim nt_dim_name(nt_name name) {
    return NT_DIM_NAME_BASE + (nt_dim)name;
}
/** True when the dim argument `d` holds a name (not an index). */
static inline bool nt_dim_is_name(nt_dim d) {
    return d < NT_DIM_NAME_BASE + ((int64_t)1 << 32);
}
/** The name a dim argument holds (valid when nt_dim_is_name(d)). */
static inline nt_name nt_dim_to_name(nt_dim d) {
    return (nt_name)(d - NT_DIM_NAME_BASE);
}

/** Resolves a dim argument of t into [0, ndim): a wrapped index, or a name's position (a
 * None name: "Please look up dimensions by name, got: name = None."). */
NT_API nt_status nt_tensor_dim(const nt_tensor *t, nt_dim dim, int64_t *out);
/** The same for an index alone: a wrapped index in [-ndim, ndim) becomes [0, ndim). */
NT_API nt_status nt_tensor_wrap_dim(const nt_tensor *t, int64_t dim, int64_t *out);
/** Resolves a name to its dim index ("Name 'X' not found in Tensor['N', 'C']."). */
NT_API nt_status nt_tensor_dim_of(const nt_tensor *t, nt_name name, int64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_CORE_H */
