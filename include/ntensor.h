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
/* The address of element [0, ..., 0]; for a tensor without elements, whose offset may be
 * anything, the start of its storage. */
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
 * start; strides must be non-negative and the extent must lie inside the storage, except
 * for a view without elements, which may have any non-negative strides and offset (as in
 * PyTorch). */
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

/* ------------------------------------------------------------------ indexing and joining */
/* Names: an int-indexed dim loses its name, a sliced dim keeps it, a new (None/True/False)
 * dim is unnamed, and the dims an advanced (tensor) index produces are unnamed. */

typedef enum nt_index_kind {
    NT_INDEX_INT,      /* `i`: selects (removes) the dim */
    NT_INDEX_SLICE,    /* start:stop:step (Python's clamping; step must be > 0) */
    NT_INDEX_NONE,     /* a new size-one dim */
    NT_INDEX_ELLIPSIS, /* as many full slices as needed */
    NT_INDEX_BOOL,     /* Python True/False: a new size-one dim indexed by [0] or [] */
    NT_INDEX_TENSOR,   /* an int64, uint8 or bool tensor (advanced indexing) */
} nt_index_kind;

/* One entry of an index tuple. For a slice, NT_SLICE_END as stop means "to the end". */
typedef struct nt_index {
    nt_index_kind kind;
    int64_t i;                  /* INT: the index; BOOL: 0 or 1 */
    int64_t start, stop, step;  /* SLICE */
    const nt_tensor *tensor;    /* TENSOR (borrowed) */
} nt_index;
#define NT_SLICE_END INT64_MAX

/* t[idx_0, ..., idx_{count-1}] (PyTorch's tuple indexing): a view when no tensor index is
 * given, otherwise a gather (a new tensor). */
NT_API nt_status nt_index_get(nt_tensor *t, int count, const nt_index *idx, nt_tensor **out);
/* t[idx] with one index that is not a tuple (PyTorch's single-index fast paths and texts). */
NT_API nt_status nt_index_get1(nt_tensor *t, const nt_index *idx, nt_tensor **out);
/* t[idx...] = value: `value` broadcasts to the indexed shape (leading size-one dims of value
 * are dropped first); tensor indices scatter (value must then have t's dtype). `single` is
 * true for a non-tuple index. Bumps the version. */
NT_API nt_status nt_index_set_(nt_tensor *t, int count, const nt_index *idx, bool single,
                               const nt_tensor *value);
/* The same with a scalar value (converted to t's dtype with PyTorch's overflow check). */
NT_API nt_status nt_index_set_scalar_(nt_tensor *t, int count, const nt_index *idx, bool single,
                                      nt_scalar value);

/* index_fill: the entries `index` (a 0-d or 1-d int64 tensor) along `dim` set to value.
 * The _tensor forms take a 0-dim value tensor. Names are kept. */
NT_API nt_status nt_index_fill(nt_tensor *t, int64_t dim, const nt_tensor *index, nt_scalar value,
                               nt_tensor **out);
NT_API nt_status nt_index_fill_(nt_tensor *t, int64_t dim, const nt_tensor *index,
                                nt_scalar value);
NT_API nt_status nt_index_fill_tensor(nt_tensor *t, int64_t dim, const nt_tensor *index,
                                      const nt_tensor *value, nt_tensor **out);
NT_API nt_status nt_index_fill_tensor_(nt_tensor *t, int64_t dim, const nt_tensor *index,
                                       const nt_tensor *value);

/* masked_fill: value where `mask` (bool; broadcast) is true. The out-of-place result has the
 * broadcast shape of mask and t; the in-place form writes only where the mask is true. */
NT_API nt_status nt_masked_fill(nt_tensor *t, const nt_tensor *mask, nt_scalar value,
                                nt_tensor **out);
NT_API nt_status nt_masked_fill_(nt_tensor *t, const nt_tensor *mask, nt_scalar value);
/* The same with a 0-dim value tensor. */
NT_API nt_status nt_masked_fill_tensor(nt_tensor *t, const nt_tensor *mask,
                                       const nt_tensor *value, nt_tensor **out);
NT_API nt_status nt_masked_fill_tensor_(nt_tensor *t, const nt_tensor *mask,
                                        const nt_tensor *value);
/* The elements of t (broadcast with mask) where mask is true, as an unnamed 1-d tensor. */
NT_API nt_status nt_masked_select(nt_tensor *t, const nt_tensor *mask, nt_tensor **out);

/* torch.cat along `dim` (dtypes promoted, names unified; legacy 1-d empty tensors skipped).
 * `out` may be NULL (a new tensor in *result) or an existing tensor that is resized and
 * written: then *result is a new reference to it, or, when out has fewer dims than the
 * result, a new tensor over out's resized storage (see nt_resize). */
NT_API nt_status nt_cat(int count, nt_tensor *const *tensors, int64_t dim, nt_tensor *out,
                        nt_tensor **result);
/* torch.stack: cat of the tensors each unsqueezed at `dim` (the new dim is unnamed). */
NT_API nt_status nt_stack(int count, nt_tensor *const *tensors, int64_t dim, nt_tensor *out,
                          nt_tensor **result);
/* split / split_with_sizes / chunk / unbind: views, returned as a new array of *count
 * tensors; release them all and the array with nt_tensors_release. */
NT_API nt_status nt_split(nt_tensor *t, int64_t split_size, int64_t dim, nt_tensor ***out,
                          int64_t *count);
NT_API nt_status nt_split_with_sizes(nt_tensor *t, int nsizes, const int64_t *sizes, int64_t dim,
                                     nt_tensor ***out, int64_t *count);
NT_API nt_status nt_chunk(nt_tensor *t, int64_t chunks, int64_t dim, nt_tensor ***out,
                          int64_t *count);
NT_API nt_status nt_unbind(nt_tensor *t, int64_t dim, nt_tensor ***out, int64_t *count);
/* Releases `count` tensors and the array that holds them (NULL is allowed). */
NT_API void nt_tensors_release(nt_tensor **tensors, int64_t count);

/* resize_: contiguous strides for the new shape, storage grown (data prefix kept) when too
 * small; the same shape leaves t untouched. A named t only accepts its own shape. */
NT_API nt_status nt_resize_(nt_tensor *t, int ndim, const int64_t *sizes);
/* resize_ to template's shape; then template's names as for an out= tensor. */
NT_API nt_status nt_resize_as_(nt_tensor *t, const nt_tensor *the_template);
/* resize_ that may need a new tensor object: a tensor's dims live in its own allocation,
 * so nt_resize_ fails (NT_ERR_NOT_IMPLEMENTED) for more dims than t has; these return t
 * itself (a new reference) when done in place, else a new tensor over t's resized storage. */
NT_API nt_status nt_resize(nt_tensor *t, int ndim, const int64_t *sizes, nt_tensor **out);
NT_API nt_status nt_resize_as(nt_tensor *t, const nt_tensor *the_template, nt_tensor **out);

/* ------------------------------------------------------------------ pointwise binary */
/* Broadcasting binary ops with PyTorch 1.13's type promotion, values and errors; names
 * unify from the right (an in-place op gives self the unified names; a named out= must
 * match them exactly). See docs/decisions_ops_binary.md. */

/* PyTorch's result_type: tensors with dims outrank zero-dim tensors, which outrank
 * scalars; a lower category only counts when it raises the kind (bool < int < float). */
NT_API nt_dtype nt_result_type(int ntensors, nt_tensor *const *tensors, int nscalars,
                               const nt_scalar *scalars);
/* PyTorch's can_cast: false for floating -> integral/bool and for non-bool -> bool. */
NT_API bool nt_can_cast(nt_dtype from, nt_dtype to);
/* PyTorch's scalar-type name for error texts: "Bool", "Byte", "Long", "Half", "Float"... */
NT_API const char *nt_dtype_torch_name(nt_dtype dtype);

/* The ops (append-only). DIV is true division (integers give float32); DIV_TRUNC and
 * DIV_FLOOR are div's rounding modes (DIV_FLOOR is floor_divide, `//`); REMAINDER is
 * Python's `%`. Comparisons and logical ops give bool tensors. */
typedef enum nt_binary_op {
    NT_BINARY_ADD,
    NT_BINARY_SUB,
    NT_BINARY_MUL,
    NT_BINARY_DIV,
    NT_BINARY_DIV_TRUNC,
    NT_BINARY_DIV_FLOOR,
    NT_BINARY_REMAINDER,
    NT_BINARY_POW,
    NT_BINARY_ATAN2,
    NT_BINARY_MAXIMUM,
    NT_BINARY_MINIMUM,
    NT_BINARY_EQ,
    NT_BINARY_NE,
    NT_BINARY_LT,
    NT_BINARY_LE,
    NT_BINARY_GT,
    NT_BINARY_GE,
    NT_BINARY_BITWISE_AND,
    NT_BINARY_BITWISE_OR,
    NT_BINARY_BITWISE_XOR,
    NT_BINARY_LOGICAL_AND,
    NT_BINARY_LOGICAL_OR,
    NT_BINARY_LOGICAL_XOR,
    NT_BINARY_OP_COUNT
} nt_binary_op;

/* PyTorch's name of the op ("add", "floor_divide", ...). */
NT_API const char *nt_binary_op_name(nt_binary_op op);

/* One operand: a tensor, or (tensor NULL) a Python-like scalar of the lowest category. */
typedef struct nt_operand {
    nt_tensor *tensor;
    nt_scalar scalar;
} nt_operand;
static inline nt_operand nt_operand_tensor(nt_tensor *t) {
    nt_operand o;
    o.tensor = t;
    o.scalar = nt_scalar_int(0);
    return o;
}
static inline nt_operand nt_operand_scalar(nt_scalar s) {
    nt_operand o;
    o.tensor = NULL;
    o.scalar = s;
    return o;
}

/* The general form of `a op b`; at least one operand is a tensor. alpha (add/sub only,
 * NULL = 1) scales b. Writes into `out` when given (out=), into a's tensor when `inplace`,
 * else into a new tensor; *result (may be NULL) receives the tensor written, a new
 * reference. */
NT_API nt_status nt_binary_ex(nt_binary_op op, nt_operand a, nt_operand b, const nt_scalar *alpha,
                              nt_tensor *out, bool inplace, nt_tensor **result);
/* a op b, a op scalar, scalar op b (reflected: 2 - x), and out=. */
NT_API nt_status nt_binary(nt_binary_op op, nt_tensor *a, nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_binary_scalar(nt_binary_op op, nt_tensor *a, nt_scalar b, nt_tensor **out);
NT_API nt_status nt_binary_rscalar(nt_binary_op op, nt_scalar a, nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_binary_out(nt_binary_op op, nt_tensor *a, nt_tensor *b, nt_tensor *out);
/* In place: self = self op other ("result type Float can't be cast to the desired output
 * type Long" when the result does not fit self's dtype). */
NT_API nt_status nt_binary_(nt_binary_op op, nt_tensor *self, nt_tensor *other);
NT_API nt_status nt_binary_scalar_(nt_binary_op op, nt_tensor *self, nt_scalar other);
/* Shorthands: a + b, a - b, a * b, a / b (true division). */
NT_API nt_status nt_add(nt_tensor *a, nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_sub(nt_tensor *a, nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_mul(nt_tensor *a, nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_div(nt_tensor *a, nt_tensor *b, nt_tensor **out);

/* where(cond, a, b): a where cond (bool or uint8) is true, else b; a and b may be scalars.
 * Names unify over the three inputs (PyTorch 1.13 refuses named tensors here). */
NT_API nt_status nt_where(nt_tensor *cond, nt_operand a, nt_operand b, nt_tensor *out,
                          nt_tensor **result);
/* clamp with optional bounds (NULL = none; at least one); scalar bounds keep t's names,
 * tensor bounds broadcast and unify. Same out/inplace/result rules as nt_binary_ex. */
NT_API nt_status nt_clamp(nt_tensor *t, const nt_operand *min, const nt_operand *max,
                          nt_tensor *out, bool inplace, nt_tensor **result);
/* |a - b| <= atol + rtol * |b| (or equal; NaNs equal when equal_nan), a bool tensor with
 * unified names; a and b must have the same dtype. allclose reduces it to one bool. */
NT_API nt_status nt_isclose(nt_tensor *a, nt_tensor *b, double rtol, double atol, bool equal_nan,
                            nt_tensor **out);
NT_API nt_status nt_allclose(nt_tensor *a, nt_tensor *b, double rtol, double atol,
                             bool equal_nan, bool *out);

/* ------------------------------------------------------------------ reductions */
/* Reductions, scans and softmax. A reduction over `count` dims `dims` (each in [-ndim,
 * ndim), no repeats) removes them, or keeps them with size one when `keepdim`; count 0
 * reduces every dim (PyTorch's dim=None and dim=[]). Names follow "removes dimensions".
 * `dtype` -1 takes PyTorch's result dtype (integer and bool sums/products give int64);
 * another dtype converts the input first. Float sums are pairwise over fixed blocks: the
 * result never depends on the thread count. Resolve names to dims with nt_dims_from_names. */

/* dims[i] := the index of the dim named names[i] ("Name 'X' not found in Tensor[...]."). */
NT_API nt_status nt_dims_from_names(const nt_tensor *t, int count, const nt_name *names,
                                    int64_t *dims);

NT_API nt_status nt_sum(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                        nt_tensor **out);
/* Float dtypes only (or a float `dtype`), like PyTorch. */
NT_API nt_status nt_mean(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                         nt_tensor **out);
NT_API nt_status nt_prod(nt_tensor *t, int count, const int64_t *dims, bool keepdim, int dtype,
                         nt_tensor **out);
/* Sum of squared deviations / max(0, N - correction) (correction 1: unbiased); float only. */
NT_API nt_status nt_var(nt_tensor *t, int count, const int64_t *dims, double correction,
                        bool keepdim, nt_tensor **out);
NT_API nt_status nt_std(nt_tensor *t, int count, const int64_t *dims, double correction,
                        bool keepdim, nt_tensor **out);
NT_API nt_status nt_var_mean(nt_tensor *t, int count, const int64_t *dims, double correction,
                             bool keepdim, nt_tensor **var, nt_tensor **mean);
NT_API nt_status nt_std_mean(nt_tensor *t, int count, const int64_t *dims, double correction,
                             bool keepdim, nt_tensor **std, nt_tensor **mean);
/* log(sum(exp(x))), stable; integer inputs give the default float dtype. */
NT_API nt_status nt_logsumexp(nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                              nt_tensor **out);
/* Bool results (uint8 for uint8 inputs, as PyTorch 1.13). */
NT_API nt_status nt_all(nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                        nt_tensor **out);
NT_API nt_status nt_any(nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                        nt_tensor **out);
/* Largest / smallest values (NaN propagates), in t's dtype. */
NT_API nt_status nt_amax(nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                         nt_tensor **out);
NT_API nt_status nt_amin(nt_tensor *t, int count, const int64_t *dims, bool keepdim,
                         nt_tensor **out);
/* max() / min() of every element: a 0-dim tensor; fails for an empty t. */
NT_API nt_status nt_max_all(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_min_all(nt_tensor *t, nt_tensor **out);

/* The reductions above as one enum, for the out= form. */
typedef enum nt_reduction {
    NT_REDUCE_SUM = 0,
    NT_REDUCE_MEAN,
    NT_REDUCE_PROD,
    NT_REDUCE_VAR,
    NT_REDUCE_STD,
    NT_REDUCE_LOGSUMEXP,
    NT_REDUCE_ALL,
    NT_REDUCE_ANY,
    NT_REDUCE_AMAX,
    NT_REDUCE_AMIN,
} nt_reduction;
/* Writes the reduction into `out` (out=): it must have the result's shape (it is not
 * resized); its dtype may differ (the result converts); an unnamed out takes the computed
 * names, a named one must have exactly them. `correction` is for var/std only. */
NT_API nt_status nt_reduce_out(nt_reduction op, nt_tensor *t, int count, const int64_t *dims,
                               bool keepdim, int dtype, double correction, nt_tensor *out);

/* max(dim) / min(dim): values and int64 indices (the first extreme; a NaN wins). */
NT_API nt_status nt_max_dim(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor **values,
                            nt_tensor **indices);
NT_API nt_status nt_min_dim(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor **values,
                            nt_tensor **indices);
NT_API nt_status nt_max_dim_out(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor *values,
                                nt_tensor *indices);
NT_API nt_status nt_min_dim_out(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor *values,
                                nt_tensor *indices);
/* Index of the max (min) along *dim, or in the flattened tensor when dim is NULL. */
NT_API nt_status nt_argmax(nt_tensor *t, const int64_t *dim, bool keepdim, nt_tensor **out);
NT_API nt_status nt_argmin(nt_tensor *t, const int64_t *dim, bool keepdim, nt_tensor **out);

/* Order statistics along `dim` (values in t's dtype, int64 indices). median is the lower
 * median; a NaN makes median NaN (index of the first NaN); kthvalue is the k-th smallest
 * (1-based; NaN counts as largest); mode is the most frequent value (the smallest among
 * ties, with its last index). nt_median_all reduces every element to a 0-dim tensor. */
NT_API nt_status nt_median_all(nt_tensor *t, nt_tensor **out);
NT_API nt_status nt_median_dim(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor **values,
                               nt_tensor **indices);
NT_API nt_status nt_kthvalue(nt_tensor *t, int64_t k, int64_t dim, bool keepdim,
                             nt_tensor **values, nt_tensor **indices);
NT_API nt_status nt_mode(nt_tensor *t, int64_t dim, bool keepdim, nt_tensor **values,
                         nt_tensor **indices);
/* The k largest (smallest) along `dim`, sorted when `sorted`; the dim keeps its name (its
 * size becomes k). NaN counts as the largest value. */
NT_API nt_status nt_topk(nt_tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
                         nt_tensor **values, nt_tensor **indices);

/* Running sum / product along `dim`, names kept; integer and bool inputs give int64 unless
 * `dtype` (-1: default) says otherwise. The _out forms write into `out` (out= rules). */
NT_API nt_status nt_cumsum(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out);
NT_API nt_status nt_cumprod(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out);
NT_API nt_status nt_cumsum_out(nt_tensor *t, int64_t dim, int dtype, nt_tensor *out);
NT_API nt_status nt_cumprod_out(nt_tensor *t, int64_t dim, int dtype, nt_tensor *out);

/* softmax / log_softmax along `dim` (names kept); float32, float64 and bfloat16 inputs, or
 * any input with a float `dtype` (-1: none) to convert it to first. */
NT_API nt_status nt_softmax(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out);
NT_API nt_status nt_log_softmax(nt_tensor *t, int64_t dim, int dtype, nt_tensor **out);

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
/* torch.round(t, decimals=d): rint(t * 10^d) / 10^d (d < 0: rint(t / 10^-d) * 10^-d) in
 * t's type, floating dtypes only, d = 0 included ("\"round_cpu\" not implemented for 'Int'");
 * forms as nt_unary_ex. */
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

/* ------------------------------------------------------------------ random ops */
/* In-place distributions on the generator of the "random" section: each keeps t's names,
 * works on any layout (element i in row-major order gets the same value whatever the
 * strides), bumps the storage version and is independent of the thread count. Dtype support
 * and error texts are PyTorch 1.13's (e.g. "\"cauchy_cpu\" not implemented for 'Long'"). */

/* cauchy_(median, sigma), exponential_(lambd >= 0), log_normal_(mean, std > 0): floats. */
NT_API nt_status nt_cauchy_(nt_tensor *t, double median, double sigma);
NT_API nt_status nt_exponential_(nt_tensor *t, double lambd);
NT_API nt_status nt_log_normal_(nt_tensor *t, double mean, double std);
/* geometric_(p in (0, 1)): trials up to the first success (1, 2, ...); every dtype but bool. */
NT_API nt_status nt_geometric_(nt_tensor *t, double p);
/* bernoulli_(p in [0, 1]): 1 with probability p; every dtype but float16. */
NT_API nt_status nt_bernoulli_(nt_tensor *t, double p);
/* bernoulli_(p tensor): p (float32/float64/bfloat16, values in [0, 1]) expands to t's shape. */
NT_API nt_status nt_bernoulli_tensor_(nt_tensor *t, const nt_tensor *p);
/* torch.bernoulli(input): 1 with probability input[i], input's dtype and names. */
NT_API nt_status nt_bernoulli(const nt_tensor *input, nt_tensor **out);
/* torch.bernoulli(input, p): like input (dtype, shape, names), 1 with probability p. */
NT_API nt_status nt_bernoulli_p(const nt_tensor *input, double p, nt_tensor **out);
/* random_(): integers in [0, 2^mantissa digits] for floats, [0, max] for integer dtypes. */
NT_API nt_status nt_random_(nt_tensor *t);
/* random_(to): [0, to). */
NT_API nt_status nt_random_to_(nt_tensor *t, int64_t to);
/* random_(from, to): [from, *to); `to` NULL: [from, the dtype's max] (from = INT64_MIN then
 * means all 64 bits). Bounds are adjusted and checked as PyTorch does. */
NT_API nt_status nt_random_from_to_(nt_tensor *t, int64_t from, const int64_t *to);
/* Which of PyTorch's precision warnings random_(from, to) deserves on a float dtype: bit 0
 * "from is out of bounds [-(2^d), 2^d]", bit 1 the same for "to - 1"; 0 for none. */
NT_API int nt_random_precision_warnings(nt_dtype dtype, int64_t from, const int64_t *to);
/* torch.normal with tensor arguments: normal(mean, std), normal(mean, std: float) and
 * normal(mean: float, std). The shape is the broadcast of the tensors', the names their
 * unification from the right (PyTorch 1.13 refuses named inputs here), the dtype mean's
 * (std's when mean is a number); std must be >= 0 everywhere. */
NT_API nt_status nt_normal_tensors(const nt_tensor *mean, const nt_tensor *std, nt_tensor **out);
NT_API nt_status nt_normal_mean_tensor(const nt_tensor *mean, double std, nt_tensor **out);
NT_API nt_status nt_normal_std_tensor(double mean, const nt_tensor *std, nt_tensor **out);
/* The out= form: mean and std each a tensor or, when NULL, the value beside it. `out` must
 * have the broadcast shape; unnamed, it takes the computed names, named, it must match. */
NT_API nt_status nt_normal_out(nt_tensor *out, const nt_tensor *mean, double mean_value,
                               const nt_tensor *std, double std_value);
/* Dropout: zeroes each element with probability p, scales the rest by 1 / (1 - p), keeps
 * names (and a dense input's strides). !train, p == 0 or no elements: `input` itself (a new
 * reference); p == 1: input * 0. p outside [0, 1] is NT_ERR_VALUE ("dropout probability
 * has to be between 0 and 1, but got 1.5"); other p need bfloat16, float32 or float64. */
NT_API nt_status nt_dropout(nt_tensor *input, double p, bool train, nt_tensor **out);
NT_API nt_status nt_dropout_(nt_tensor *t, double p, bool train);

/* ------------------------------------------------------------------ matrix products */
/* PyTorch 1.13's mm, mv, dot, bmm, matmul, addmm, addmv: float32/float64 through CBLAS
 * (OpenBLAS), the integer dtypes and bfloat16 through our own loops (bool and float16 fail
 * as in PyTorch: "\"addmm_impl_cpu_\" not implemented for 'Half'"). Names contract away
 * dims (mm: (a[-2], b[-1]); matmul: batch dims unified); dot's result is unnamed. The _out
 * forms write into `out`, which must already have the result's shape (it is not resized)
 * and the result's dtype; an unnamed out takes the computed names, a named one must match
 * them (checked only when some input is named, except bmm, as PyTorch does). */
NT_API nt_status nt_mm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_mm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* Matrix (n x m) times vector (m). */
NT_API nt_status nt_mv(const nt_tensor *mat, const nt_tensor *vec, nt_tensor **out);
NT_API nt_status nt_mv_out(nt_tensor *out, const nt_tensor *mat, const nt_tensor *vec);
/* Inner product of two 1-d tensors of one dtype: a 0-dim tensor. */
NT_API nt_status nt_dot(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_dot_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* Batched mm of (B, n, m) and (B, m, p); the result has b's dtype. */
NT_API nt_status nt_bmm(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_bmm_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* torch.matmul: dot, mv, mm, or a batched product with broadcast batch dims (x @ y). */
NT_API nt_status nt_matmul(const nt_tensor *a, const nt_tensor *b, nt_tensor **out);
NT_API nt_status nt_matmul_out(nt_tensor *out, const nt_tensor *a, const nt_tensor *b);
/* beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape; beta 0
 * ignores self (NaN included). Integer dtypes truncate beta and alpha, as PyTorch does. */
NT_API nt_status nt_addmm(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2,
                          nt_scalar beta, nt_scalar alpha, nt_tensor **out);
NT_API nt_status nt_addmm_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat1,
                              const nt_tensor *mat2, nt_scalar beta, nt_scalar alpha);
/* In place: self must have the product's shape and dtype; it takes the computed names. */
NT_API nt_status nt_addmm_(nt_tensor *self, const nt_tensor *mat1, const nt_tensor *mat2,
                           nt_scalar beta, nt_scalar alpha);
/* beta * self + alpha * (mat @ vec); the result has vec's dtype. */
NT_API nt_status nt_addmv(nt_tensor *self, const nt_tensor *mat, const nt_tensor *vec,
                          nt_scalar beta, nt_scalar alpha, nt_tensor **out);
NT_API nt_status nt_addmv_out(nt_tensor *out, nt_tensor *self, const nt_tensor *mat,
                              const nt_tensor *vec, nt_scalar beta, nt_scalar alpha);
NT_API nt_status nt_addmv_(nt_tensor *self, const nt_tensor *mat, const nt_tensor *vec,
                           nt_scalar beta, nt_scalar alpha);

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
