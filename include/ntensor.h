/*
 * ntensor.h — the public C API of ntensor, a tensor library with named dimensions.
 *
 * Conventions that hold for every function below:
 *  - Fallible functions return nt_status. NT_OK is 0; on any other value nothing was
 *    allocated or changed, and nt_last_error() holds a message (thread-local).
 *  - Results come back through out-parameters; a returned nt_tensor* is a new reference
 *    that the caller releases with nt_tensor_release().
 *  - Sizes, strides, indices and counts are int64_t. A dim argument may be negative
 *    (counted from the end), as in PyTorch.
 *  - Names are interned symbols (nt_name); 0 (NT_NAME_NONE) is the unnamed wildcard.
 *    A `names` array argument has one entry per dim, or is NULL for "all unnamed".
 *  - Views share storage with their base; an in-place op bumps the storage version.
 */
#ifndef NTENSOR_H
#define NTENSOR_H

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
} nt_status;

/* The message of the last failure on this thread ("" if none). */
NT_API const char *nt_last_error(void);
/* The status of the last failure on this thread (NT_OK if none). */
NT_API nt_status nt_last_status(void);
NT_API void nt_clear_error(void);

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
/* The address of element [0, ..., 0]. */
NT_API void *nt_tensor_data(const nt_tensor *t);
/* The names, one per dim, or NULL when the tensor has no named dim. */
NT_API const nt_name *nt_tensor_names(const nt_tensor *t);
NT_API bool nt_tensor_has_names(const nt_tensor *t);
/* True when both tensors view the same storage. */
NT_API bool nt_tensor_shares_storage(const nt_tensor *a, const nt_tensor *b);
/* The storage's version counter, bumped by every in-place write. */
NT_API uint64_t nt_tensor_version(const nt_tensor *t);

/* Resolves a dim argument: a wrapped index in [-ndim, ndim) becomes [0, ndim). */
NT_API nt_status nt_tensor_wrap_dim(const nt_tensor *t, int64_t dim, int64_t *out);
/* Resolves a name to its dim index ("Name 'X' not found in Tensor['N', 'C']."). */
NT_API nt_status nt_tensor_dim_of(const nt_tensor *t, nt_name name, int64_t *out);

/* ------------------------------------------------------------------ factories */
/* `names` may be NULL; `dtype` is the element type (see nt_default_dtype()). */

NT_API nt_status nt_empty(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                          nt_tensor **out);
NT_API nt_status nt_zeros(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                          nt_tensor **out);
NT_API nt_status nt_ones(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                         nt_tensor **out);
NT_API nt_status nt_full(int ndim, const int64_t *sizes, nt_scalar value, nt_dtype dtype,
                         const nt_name *names, nt_tensor **out);
/* The values start, start+step, ... below end (above end for a negative step). */
NT_API nt_status nt_arange(nt_scalar start, nt_scalar end, nt_scalar step, nt_dtype dtype,
                           nt_tensor **out);
/* A copy of `count` contiguous elements of `dtype` at `data`, shaped `sizes`. */
NT_API nt_status nt_from_buffer(const void *data, nt_dtype dtype, int ndim, const int64_t *sizes,
                                const nt_name *names, nt_tensor **out);
/* A tensor over external memory, without a copy. `strides` are in elements (NULL:
 * contiguous); `nbytes` bounds the buffer; `release(ctx, data)` runs when the last view
 * goes away (NULL: the memory is the caller's to keep alive). */
NT_API nt_status nt_from_external(void *data, size_t nbytes, nt_dtype dtype, int ndim,
                                  const int64_t *sizes, const int64_t *strides,
                                  nt_release_fn release, void *ctx, nt_tensor **out);
/* The *_like factories take the shape and names of `like`; dtype -1 keeps its dtype. */
NT_API nt_status nt_empty_like(const nt_tensor *like, int dtype, nt_tensor **out);
NT_API nt_status nt_zeros_like(const nt_tensor *like, int dtype, nt_tensor **out);
NT_API nt_status nt_ones_like(const nt_tensor *like, int dtype, nt_tensor **out);
NT_API nt_status nt_full_like(const nt_tensor *like, nt_scalar value, int dtype,
                              nt_tensor **out);

/* ------------------------------------------------------------------ random */
/* A counter-based generator (Philox 4x32-10): element i of a fill depends only on the
 * seed, the generator's offset and i, so results do not depend on the thread count. */

NT_API void nt_manual_seed(uint64_t seed);
NT_API nt_status nt_rand(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                         nt_tensor **out);
NT_API nt_status nt_randn(int ndim, const int64_t *sizes, nt_dtype dtype, const nt_name *names,
                          nt_tensor **out);
NT_API nt_status nt_rand_like(const nt_tensor *like, int dtype, nt_tensor **out);
NT_API nt_status nt_randn_like(const nt_tensor *like, int dtype, nt_tensor **out);
/* Fills `t` in place: uniform on [low, high), normal(mean, std). */
NT_API nt_status nt_uniform_(nt_tensor *t, double low, double high);
NT_API nt_status nt_normal_(nt_tensor *t, double mean, double std);
/* normal(mean, std) of the given shape (float dtypes only). */
NT_API nt_status nt_normal(double mean, double std, int ndim, const int64_t *sizes,
                           nt_dtype dtype, const nt_name *names, nt_tensor **out);

/* ------------------------------------------------------------------ copy and convert */

/* Copies `src` into `dst`, broadcasting src to dst's shape and converting dtypes. */
NT_API nt_status nt_copy_(nt_tensor *dst, const nt_tensor *src);
NT_API nt_status nt_fill_(nt_tensor *t, nt_scalar value);
NT_API nt_status nt_zero_(nt_tensor *t);
/* A contiguous tensor with the same values: `t` itself (a new reference) if already so. */
NT_API nt_status nt_contiguous(nt_tensor *t, nt_tensor **out);
/* A copy that shares nothing with `t`, laid out like `t` when `t` is dense (the clone of a
 * transpose is a transpose, as in PyTorch), contiguous otherwise. */
NT_API nt_status nt_clone(const nt_tensor *t, nt_tensor **out);
/* `t` converted to `dtype` (names kept, layout as nt_clone's); `t` itself when the dtype
 * already matches. */
NT_API nt_status nt_to_dtype(nt_tensor *t, nt_dtype dtype, nt_tensor **out);
/* Reads a one-element tensor as a scalar of its dtype's kind. */
NT_API nt_status nt_item(const nt_tensor *t, nt_scalar *out);
/* Reads the element at `index` (ndim entries, each non-negative and in range) as double. */
NT_API nt_status nt_get_double(const nt_tensor *t, const int64_t *index, double *out);

/* ------------------------------------------------------------------ names API */

/* A view with the given names (NULL drops them all). */
NT_API nt_status nt_rename(nt_tensor *t, const nt_name *names, nt_tensor **out);
/* Same with an explicit count, which must equal ndim ("Number of names (1) and number of
 * dimensions in tensor (2) do not match. ..."); one None name drops all (rename(None)). */
NT_API nt_status nt_rename_n(nt_tensor *t, int count, const nt_name *names, nt_tensor **out);
/* A view with dims named from[i] renamed to to[i] (to[i] may be none). */
NT_API nt_status nt_rename_map(nt_tensor *t, int count, const nt_name *from, const nt_name *to,
                               nt_tensor **out);
/* The same in place (rename_(**map)). */
NT_API nt_status nt_rename_map_(nt_tensor *t, int count, const nt_name *from, const nt_name *to);
/* Sets the names in place (NULL drops them). */
NT_API nt_status nt_set_names_(nt_tensor *t, const nt_name *names);
/* Same with an explicit count, checked like nt_rename_n. */
NT_API nt_status nt_set_names_n_(nt_tensor *t, int count, const nt_name *names);
/* refine_names / align_to take `count` names; `ellipsis` is the index of the one Ellipsis
 * among those `count` entries (its entry's value is ignored), or -1 for none. So
 * align_to('F', 'E', ...) is count 3, names {F, E, <any>}, ellipsis 2. */
NT_API nt_status nt_refine_names(nt_tensor *t, int count, const nt_name *names, int ellipsis,
                                 nt_tensor **out);
NT_API nt_status nt_align_to(nt_tensor *t, int count, const nt_name *names, int ellipsis,
                             nt_tensor **out);
NT_API nt_status nt_align_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out);
/* Flattens the consecutive dims [start, end] into one named `out_name` (may be none): a
 * view when strides allow, else a copy. start == end only renames that dim. */
NT_API nt_status nt_flatten(nt_tensor *t, int64_t start, int64_t end, nt_name out_name,
                            nt_tensor **out);
/* The positional flatten (Tensor.flatten(start, end)): the merged dim is unnamed, the
 * others keep their names; start == end returns t itself (a new reference). */
NT_API nt_status nt_flatten_dims(nt_tensor *t, int64_t start, int64_t end, nt_tensor **out);
/* Flattens the named, consecutive dims `dims` into one dim named `out_name`. */
NT_API nt_status nt_flatten_names(nt_tensor *t, int count, const nt_name *dims, nt_name out_name,
                                  nt_tensor **out);
/* Splits `dim` into `count` dims of the given sizes (one may be -1) and names (NULL:
 * unnamed, which a named `t` refuses, as PyTorch does; pass none entries instead). */
NT_API nt_status nt_unflatten(nt_tensor *t, int64_t dim, int count, const int64_t *sizes,
                              const nt_name *names, nt_tensor **out);

/* ------------------------------------------------------------------ views */

NT_API nt_status nt_transpose(nt_tensor *t, int64_t dim0, int64_t dim1, nt_tensor **out);
/* transpose(0, 1) for 2-D, identity for 0-D and 1-D. */
NT_API nt_status nt_t(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_permute(nt_tensor *t, int count, const int64_t *dims, nt_tensor **out);
/* Broadcasts to `sizes` (-1 keeps a size); new leading dims are unnamed. */
NT_API nt_status nt_expand(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/* nt_expand to other's sizes. */
NT_API nt_status nt_expand_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out);
/* Drops every size-one dim. */
NT_API nt_status nt_squeeze(nt_tensor *t, nt_tensor **out);
/* Drops `dim` if its size is one (otherwise returns an equal view). */
NT_API nt_status nt_squeeze_dim(nt_tensor *t, int64_t dim, nt_tensor **out);
/* Inserts an unnamed size-one dim at `dim` (in [-ndim-1, ndim]). */
NT_API nt_status nt_unsqueeze(nt_tensor *t, int64_t dim, nt_tensor **out);
NT_API nt_status nt_select(nt_tensor *t, int64_t dim, int64_t index, nt_tensor **out);
NT_API nt_status nt_narrow(nt_tensor *t, int64_t dim, int64_t start, int64_t length,
                           nt_tensor **out);
/* A view with the new shape (one size may be -1); fails if strides do not allow it.
 * Names (view and reshape): a dim the reshape keeps unchanged keeps its name, merged,
 * split and new dims are unnamed (see kept_names in src/ops/view.c). */
NT_API nt_status nt_view(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/* A view when possible, otherwise a contiguous copy. */
NT_API nt_status nt_reshape(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
/* A general, unnamed view of t's storage; `offset` is in elements from the storage's
 * start; strides must be non-negative and the extent must lie inside the storage. */
NT_API nt_status nt_as_strided(nt_tensor *t, int ndim, const int64_t *sizes,
                               const int64_t *strides, int64_t offset, nt_tensor **out);

/* ------------------------------------------------------------------ printing */

/* PyTorch's repr of `t` (e.g. "tensor([1., 2.], names=('N',))") as a new string the caller
 * frees with nt_free(). */
NT_API nt_status nt_format(const nt_tensor *t, char **out);
/* The same, with `count` extra suffixes (e.g. "requires_grad=True", "grad_fn=<MulBackward0>")
 * placed where PyTorch puts them: after size/dtype, before names, wrapped at the linewidth. */
NT_API nt_status nt_format_with_suffixes(const nt_tensor *t, int count,
                                         const char *const *suffixes, char **out);
NT_API void nt_free(void *p);

/* torch.set_printoptions. Process-wide, like PyTorch's; set it before printing, not while
 * another thread prints. */
typedef struct nt_print_options {
    int64_t precision; /* digits after the point: 4; in [0, 1000] */
    double threshold;  /* numel above which output is summarised: 1000 (INFINITY: never) */
    int64_t edgeitems; /* items kept at each end of a summarised dim: 3; >= 0 */
    int64_t linewidth; /* characters per line for wrapping: 80 */
    int sci_mode;      /* -1: chosen from the values (the default), 0: never, 1: always */
} nt_print_options;

/* PyTorch's defaults (profile "default", sci_mode None). */
NT_API nt_print_options nt_default_print_options(void);
NT_API nt_print_options nt_get_print_options(void);
/* Validates and installs `opts` (NT_ERR_VALUE names the bad field; nothing changes then). */
NT_API nt_status nt_set_print_options(const nt_print_options *opts);

/* ------------------------------------------------------------------ pointwise unary */
/* Elementwise functions of one tensor with PyTorch 1.13's dtype rules, values and errors;
 * the result keeps the input's names. Integer and bool inputs of the floating functions
 * (acos ... tanh, exp ... rsqrt, reciprocal, sigmoid, erf, erfc, erfinv, digamma) compute
 * in float32; the other ops keep the input's dtype (logical_not gives bool). Unsupported
 * dtypes fail as PyTorch does ("\"exp_vml_cpu\" not implemented for 'Half'"). An out=
 * tensor must have the input's shape (it is not resized), and the result's dtype for the
 * ops that keep it ("Found dtype Long but expected Int"), a floating dtype for the floating
 * functions, any dtype for logical_not; an unnamed out takes the input's names, a named one
 * must have exactly them. In place, self's dtype must hold the result ("result type Float
 * can't be cast to the desired output type Long"). See docs/decisions_ops_unary.md. */
typedef enum nt_unary_op { /* append-only */
    NT_UNARY_ABS,
    NT_UNARY_ACOS,
    NT_UNARY_ASIN,
    NT_UNARY_ATAN,
    NT_UNARY_CEIL,
    NT_UNARY_FLOOR,
    NT_UNARY_ROUND, /* half to even */
    NT_UNARY_TRUNC,
    NT_UNARY_FRAC,
    NT_UNARY_COS,
    NT_UNARY_COSH,
    NT_UNARY_SIN,
    NT_UNARY_SINH,
    NT_UNARY_TAN,
    NT_UNARY_TANH,
    NT_UNARY_EXP,
    NT_UNARY_EXPM1,
    NT_UNARY_LOG,
    NT_UNARY_LOG2,
    NT_UNARY_LOG10,
    NT_UNARY_LOG1P,
    NT_UNARY_SQRT,
    NT_UNARY_RSQRT,
    NT_UNARY_RECIPROCAL,
    NT_UNARY_NEG, /* also torch.negative */
    NT_UNARY_SIGN,
    NT_UNARY_SIGMOID,
    NT_UNARY_ERF,
    NT_UNARY_ERFC,
    NT_UNARY_ERFINV,
    NT_UNARY_DIGAMMA,
    NT_UNARY_BITWISE_NOT,
    NT_UNARY_LOGICAL_NOT,
    NT_UNARY_RELU, /* nn.functional.relu: max(x, 0), NaN kept */
    NT_UNARY_OP_COUNT
} nt_unary_op;

/* PyTorch's name of the op ("abs", "bitwise_not", ...); NULL for an invalid op. */
NT_API const char *nt_unary_op_name(nt_unary_op op);
/* The general form: writes into `out` when given (out=), into t when `inplace`, else into a
 * new tensor; *result (may be NULL) receives the tensor written, a new reference. */
NT_API nt_status nt_unary_ex(nt_unary_op op, nt_tensor *t, nt_tensor *out, bool inplace,
                             nt_tensor **result);
/* op(t) as a new tensor; in place (t = op(t)); into out. */
NT_API nt_status nt_unary(nt_unary_op op, nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_unary_(nt_unary_op op, nt_tensor *t);
NT_API nt_status nt_unary_out(nt_unary_op op, nt_tensor *t, nt_tensor *out);
/* torch.round(t, decimals=d): rint(t * 10^d) / 10^d (d < 0: rint(t / 10^-d) * 10^-d),
 * floating dtypes only ("\"round_cpu\" not implemented for 'Int'"); forms as nt_unary_ex. */
NT_API nt_status nt_round_decimals(nt_tensor *t, int64_t decimals, nt_tensor *out, bool inplace,
                                   nt_tensor **result);
/* torch.positive: t itself (a new reference); bool fails ("The `+` operator, on a bool
 * tensor is not supported."). */
NT_API nt_status nt_positive(nt_tensor *t, nt_tensor **out);
/* Shorthands for nt_unary(NT_UNARY_..., t, out). */
NT_API nt_status nt_abs(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_neg(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_exp(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_log(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_sqrt(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_tanh(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_sigmoid(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_relu(nt_tensor *t, nt_tensor **out);

/* ------------------------------------------------------------------ memory */

/* Tensor data of 1 MiB and more is mapped with huge pages and, when freed, kept in a cache
 * for reuse by the next request of its size class, up to a bound on the bytes cached (by
 * default 1 GiB or an eighth of physical memory, whichever is less). A block from the cache
 * is not zeroed. Builds with AddressSanitizer cache nothing. See docs/allocator.md. */
typedef struct nt_memory_stats {
    int64_t cached_bytes;  /* bytes held by the cache: freed, kept for reuse */
    int64_t cached_blocks; /* blocks held by the cache */
    int64_t cache_limit;   /* the bound on cached_bytes */
    int64_t active_bytes;  /* bytes of large blocks in use (size classes, not requests) */
    int64_t hits;          /* large requests served from the cache */
    int64_t misses;        /* large requests that mapped new memory */
    int64_t releases;      /* large blocks given back to the OS */
    bool caching;          /* false in sanitizer builds: every block comes from malloc */
} nt_memory_stats;

/* Gives every cached block back to the OS (blocks in use are untouched). */
NT_API void nt_empty_cache(void);
/* Sets the bound on cached bytes (0 disables caching), releasing the oldest cached blocks
 * beyond it at once. NT_ERR_VALUE when `bytes` is negative. */
NT_API nt_status nt_set_cache_limit(int64_t bytes);
NT_API int64_t nt_get_cache_limit(void);
/* A snapshot of the allocator's counters (taken under its lock, so consistent). */
NT_API void nt_get_memory_stats(nt_memory_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_H */
