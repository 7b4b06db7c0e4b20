/**
 * @file
 * ntensor/call.h — every operator by number: the op list, what the library knows about each
 * op, and one generic entry point that calls any op from a call record.
 *
 * Every public operator function (nt_abs, nt_sum, ...) fills an nt_call and passes it to
 * nt_call_op, the one dispatcher: language bindings (the Python module is one) call ops the
 * same way, from the op's schema alone. A schema is PyTorch's notation for the op's C-level
 * arguments, the slots of nt_call.args in order, e.g.
 *
 *     sum(Tensor self, Dim[]? dim=None, bool keepdim=False, ScalarType? dtype=None) -> Tensor
 *
 * and an op's Python signatures are PyTorch 1.13's own (nt_op_python), whose parameters map
 * to the slots by name ("input" is "self"). Part of the public C API; include <ntensor.h>.
 */
#ifndef NTENSOR_CALL_H
#define NTENSOR_CALL_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The ops, one id each, in the order of ntensor/ops.def (append-only: ids never change). */
typedef enum nt_op {
/** Expands each row of ntensor/ops.def to its id, NT_OP_<ID> (defined for this enum only). */
#define NT_OP(id, ...) NT_OP_##id,
#include "ntensor/ops.def"
#undef NT_OP
    NT_OP_COUNT
} nt_op;

/** What kind of value an argument slot holds (the schema's type). */
typedef enum nt_arg_kind {
    NT_ARG_NONE = 0, /**< not given, or None: the op's default */
    NT_ARG_TENSOR,   /**< Tensor */
    NT_ARG_SCALAR,   /**< Scalar: a Python-like number */
    NT_ARG_INT,      /**< int */
    NT_ARG_FLOAT,    /**< float */
    NT_ARG_BOOL,     /**< bool */
    NT_ARG_DTYPE,    /**< ScalarType */
    NT_ARG_DIM,      /**< Dim: an index or a name (nt_dim) */
    NT_ARG_DIMS,     /**< Dim[]: a list of them */
    NT_ARG_INTS,     /**< int[]: sizes, strides */
    NT_ARG_NAMES,    /**< Dimname[]: names, with at most one Ellipsis (`ellipsis`, else -1) */
    NT_ARG_TENSORS,  /**< Tensor[] */
    NT_ARG_STR,      /**< str */
} nt_arg_kind;

/** One argument. Lists are borrowed: the caller keeps them alive during the call. */
typedef struct nt_arg {
    /** What the argument holds: the member of v to read. */
    nt_arg_kind kind;
    int32_t n;        /**< the length of a list */
    int32_t ellipsis; /**< NAMES: the index of the Ellipsis among the n entries, or -1 */
    /** The value, in the member that kind names (lists borrowed). */
    union {
        nt_tensor *t;
        nt_scalar s;
        int64_t i;
        double f;
        bool b;
        nt_dtype dtype;
        nt_dim dim;
        const nt_dim *dims;
        const int64_t *ints;
        const nt_name *names;
        nt_tensor *const *tensors;
        const char *str;
    } v;
} nt_arg;

/** The most argument slots a schema has. */
#define NT_CALL_MAX_ARGS 12

/** A call of one op. Fill op, args (every slot of the schema, in order: NT_ARG_NONE takes the
 * schema's default), out (out= tensors, or NULL) and inplace (the op's in-place form, self
 * written: only for ops with NT_OPF_INPLACE); nt_call_op fills the results. */
typedef struct nt_call {
    /** The op to call. */
    nt_op op;
    /** Run the op's in-place form (self written; ops with NT_OPF_INPLACE only). */
    bool inplace;
    /** out= tensors (borrowed), or NULL: one for most ops, two for (values, indices) pairs. */
    nt_tensor *out[2];
    /** The arguments, one per schema slot, in order. */
    nt_arg args[NT_CALL_MAX_ARGS];
    /** results, by the schema's return type: Tensor -> result[0]; (Tensor, Tensor) ->
     * result[0..1]; Tensor[] -> list/nlist (release with nt_tensors_release), or result[0]
     * alone where the op says so (nonzero without as_tuple, unique without extras); bool and
     * Scalar -> value. Tensors are new references (the out= or in-place tensor itself, a new
     * reference, for those forms). */
    nt_tensor *result[2];
    /** Tensor[] results: an array of nlist new references (release with nt_tensors_release). */
    nt_tensor **list;
    /** The length of list. */
    int64_t nlist;
    /** bool and Scalar results. */
    nt_scalar value;
} nt_call;

/** Calls c->op with the record's arguments (checked against the op's schema first).
 * @param c the call: op, args, out and inplace filled by the caller (tensors borrowed)
 * @return NT_OK with the results in c->result, c->list or c->value (new references); on
 *         failure nothing is returned and nt_last_error() says why */
NT_API nt_status nt_call_op(nt_call *c);
/** The same without checking the record against the op's schema: for a binding that builds
 * its records from the schema itself (the Python module does), whose calls are well-formed
 * by construction. A malformed record is undefined behaviour. */
NT_API nt_status nt_call_run(nt_call *c);
/** The work of a well-formed record: the largest element count among its tensor slots, a
 * tensor list counting all its tensors' elements. A binding weighs it to run a call without
 * its interpreter lock. */
NT_API int64_t nt_call_numel(const nt_call *c);

/** Argument constructors. Each writes its union member once and nothing else of the union:
 * a record assembled by overlapping writes (zero 8 bytes, then store 4 into them) is kept
 * in memory by the compiler and read back by the struct copy as one wide load that the CPU
 * cannot forward from the narrower store, a stall of about 15 cycles on every call. */
#define NT_ARG_(KIND, N, ELLIPSIS, MEMBER, VALUE)                                                  \
    do {                                                                                           \
        a.kind = (KIND);                                                                           \
        a.n = (N);                                                                                 \
        a.ellipsis = (ELLIPSIS);                                                                   \
        a.v.MEMBER = (VALUE);                                                                      \
    } while (0)
/** An absent argument: the schema's default. */
static inline nt_arg nt_arg_none(void) {
    nt_arg a;
    NT_ARG_(NT_ARG_NONE, 0, -1, i, 0);
    return a;
}
/** A Tensor argument (borrowed); NULL is None. */
static inline nt_arg nt_arg_tensor(nt_tensor *t) {
    nt_arg a;
    NT_ARG_(t ? NT_ARG_TENSOR : NT_ARG_NONE, 0, -1, t, t);
    return a;
}
/** A Scalar argument. */
static inline nt_arg nt_arg_scalar(nt_scalar s) {
    nt_arg a;
    NT_ARG_(NT_ARG_SCALAR, 0, -1, s, s);
    return a;
}
/** An int argument. */
static inline nt_arg nt_arg_int(int64_t i) {
    nt_arg a;
    NT_ARG_(NT_ARG_INT, 0, -1, i, i);
    return a;
}
/** A float argument. */
static inline nt_arg nt_arg_float(double f) {
    nt_arg a;
    NT_ARG_(NT_ARG_FLOAT, 0, -1, f, f);
    return a;
}
/** A bool argument. */
static inline nt_arg nt_arg_bool(bool b) {
    nt_arg a;
    NT_ARG_(NT_ARG_BOOL, 0, -1, b, b);
    return a;
}
/** dtype -1 is "none" (the op's default). */
static inline nt_arg nt_arg_dtype(int dtype) {
    nt_arg a; /**< without branches, which would merge two records through memory */
    NT_ARG_(dtype >= 0 ? NT_ARG_DTYPE : NT_ARG_NONE, 0, -1, dtype,
            (nt_dtype)(dtype >= 0 ? dtype : 0));
    return a;
}
/** A Dim argument: an index, a name (nt_dim_name) or a first-class dim (nt_dim_fc). */
static inline nt_arg nt_arg_dim(nt_dim d) {
    nt_arg a;
    NT_ARG_(NT_ARG_DIM, 0, -1, dim, d);
    return a;
}
/** A Dim[] argument of n dims (borrowed). */
static inline nt_arg nt_arg_dims(int n, const nt_dim *dims) {
    nt_arg a;
    NT_ARG_(NT_ARG_DIMS, n, -1, dims, dims);
    return a;
}
/** An int[] argument of n values (borrowed). */
static inline nt_arg nt_arg_ints(int n, const int64_t *ints) {
    nt_arg a;
    NT_ARG_(NT_ARG_INTS, n, -1, ints, ints);
    return a;
}
/** A Dimname[] argument of n names (borrowed), the Ellipsis at index `ellipsis` or -1. */
static inline nt_arg nt_arg_names(int n, const nt_name *names, int ellipsis) {
    nt_arg a;
    NT_ARG_(NT_ARG_NAMES, n, ellipsis, names, names);
    return a;
}
/** A Tensor[] argument of n tensors (borrowed). */
static inline nt_arg nt_arg_tensors(int n, nt_tensor *const *tensors) {
    nt_arg a;
    NT_ARG_(NT_ARG_TENSORS, n, -1, tensors, tensors);
    return a;
}
/** A str argument (borrowed); NULL is None. */
static inline nt_arg nt_arg_str(const char *s) {
    nt_arg a;
    NT_ARG_(s ? NT_ARG_STR : NT_ARG_NONE, 0, -1, str, s);
    return a;
}
#undef NT_ARG_

/* ------------------------------------------------------------------ what each op is */

/** Flags of an op (nt_op_flags). */
enum {
    NT_OPF_FUNCTION = 1u << 0, /**< a module function: torch.name(input, ...) */
    NT_OPF_METHOD = 1u << 1,   /**< a Tensor method: t.name(...) */
    NT_OPF_INPLACE = 1u << 2,  /**< an in-place form: t.name_(...) */
    NT_OPF_OUT = 1u << 3,      /**< an out= form */
    NT_OPF_NO_GRAD = 1u << 4,  /**< not differentiable (integer or boolean results, random) */
    NT_OPF_INPLACE_FUNCTION = 1u << 5, /**< a module function of the in-place form: torch.name_ */
    NT_OPF_METADATA = 1u << 6, /**< its in-place form changes metadata only (rename_, detach_,
                                  resize_): the version stays, autograd records nothing */
};

/** The kinds of op (nt_op_kind), which say how an op treats its tensor arguments. */
typedef enum nt_op_kind {
    NT_OPK_POINTWISE, /**< elementwise over broadcast inputs */
    NT_OPK_REDUCE,    /**< removes (or keeps as size one) the dims it reduces */
    NT_OPK_SCAN,      /**< along one dim, shape kept */
    NT_OPK_CONTRACT,  /**< matrix products */
    NT_OPK_VIEW,      /**< a view of its input: new sizes, strides and names, no data */
    NT_OPK_INDEX,     /**< gathers or scatters by indices or masks */
    NT_OPK_JOIN,      /**< joins or splits tensors */
    NT_OPK_FACTORY,   /**< makes a tensor from sizes and values */
    NT_OPK_RANDOM,    /**< draws random numbers */
    NT_OPK_NAMES,     /**< changes names only */
    NT_OPK_OTHER,
} nt_op_kind;

/* ------------------------------------------------------------------ signatures */

/** One parameter of a schema or Python signature, "Type[N]? name=default". */
typedef struct nt_param {
    /** The parameter's name. */
    char name[32];
    char type[32];     /**< as written, without [N] and '?': "Tensor", "int[]", "Dimname", ... */
    int size;          /**< N of "IntArrayRef[N]" (a single value broadcasts), else 0 */
    bool allow_none;   /**< "Type?", or a default of None */
    bool optional;     /**< has a default */
    bool keyword_only; /**< after "*" */
    /** The default as written ("False", "None", "-1"), or "". */
    char default_text[32];
} nt_param;

/** The most parameters a signature has. */
#define NT_SIG_MAX_PARAMS 16

/** A parsed signature: "name(params) -> returns", with PyTorch's "|deprecated" and "|hidden"
 * suffixes, and ntensor's "|ntensor" (an extension: hidden, and unseen by PyTorch's errors). */
typedef struct nt_sig {
    /** The function's name. */
    char name[48];
    /** The number of parameters. */
    int nparams;
    /** The parameters, in order. */
    nt_param params[NT_SIG_MAX_PARAMS];
    char returns[64]; /**< "" when the text has no "->" */
    /** @{ */
    /** Its "|deprecated", "|hidden" and "|ntensor" suffixes. */
    bool deprecated, hidden, extension;
    /** @} */
} nt_sig;

/** Parses `len` bytes of signature text (NT_ERR_VALUE with the reason when malformed). */
NT_API nt_status nt_sig_parse(const char *text, size_t len, nt_sig *out);

/** The argument kind a schema type takes ("Operand": a tensor or a number, as a binary op's
 * other operand), or -1 for an unknown type. */
NT_API int nt_sig_kind_of(const char *type);
/** The value a schema parameter takes when a call gives none: its default as an argument of
 * its kind (a bool, int, dim, float or number; "Operand" a number), NT_ARG_NONE when it has
 * no default, a None one, or one of a list kind. */
NT_API nt_arg nt_sig_default(const nt_param *p);

/* ------------------------------------------------------------------ op facts */

/** The op's name ("add"); NULL for an invalid op. */
NT_API const char *nt_op_name(nt_op op);
/** Its schema (see the top of this file). */
NT_API const char *nt_op_schema(nt_op op);
/** Its Python signatures, PyTorch 1.13's, one per line; each begins with the op's Python
 * name and, for module functions, takes the tensor first ("sum(Tensor input, *, ScalarType?
 * dtype=None)"); a Tensor method takes the same without that first parameter. */
NT_API const char *nt_op_python(nt_op op);
/** The op's NT_OPF_* flags (0 for an invalid op). */
NT_API unsigned nt_op_flags(nt_op op);
/** The op's kind. */
NT_API nt_op_kind nt_op_kind_of(nt_op op);

/* ------------------------------------------------------------------ result shapes */

/** How an op's result shape is known (nt_op_shape_rule). */
typedef enum nt_shape_rule {
    NT_SHAPE_BY_KIND,        /**< the rule of its kind, read from its schema: pointwise ops
                                broadcast their tensors; reductions remove their dims (or keep
                                them as size one); scans, names ops, *_like factories and
                                in-place fills keep the input's shape; sized factories make
                                their size */
    NT_SHAPE_BY_FUNCTION,    /**< a rule of its own (views, joins, products, pooling, ...) */
    NT_SHAPE_DATA_DEPENDENT, /**< known only from the elements' values (masked_select) */
    NT_SHAPE_NO_TENSOR,      /**< the op returns no tensor (item, equal, numel, ...) */
} nt_shape_rule;

/** The op's kind of shape rule (NT_SHAPE_NO_TENSOR for an invalid op). */
NT_API nt_shape_rule nt_op_shape_rule(nt_op op);

/** The shape the call's result would have, computed from the record alone: the op is not run
 * and nothing is allocated. `sizes` receives up to NT_MAX_DIMS entries. The record is checked
 * as nt_call_op checks it; arguments that cannot make a shape (shapes that do not broadcast,
 * a dim out of range, a bad size) give the op's own error and text. A call the rule accepts
 * may still fail for reasons beyond shapes (a dtype, an index's value), but a call that
 * succeeds has this shape. In-place calls (c->inplace) and out= calls give the shape of the
 * tensor they return.
 * Results of several tensors: (values, indices) pairs (max(dim), topk, cummax, var_mean,
 * max_pool*_with_indices) have one shape, this one. A list (split, chunk, unbind): the shape
 * of its first tensor; nt_op_result_list_shape gives the length and each entry's shape.
 * Ops whose result shape depends on the data (NT_SHAPE_DATA_DEPENDENT) and ops with no
 * tensor result (NT_SHAPE_NO_TENSOR) fail with NT_ERR_RUNTIME and a message saying so. */
NT_API nt_status nt_op_result_shape(const nt_call *c, int *ndim, int64_t *sizes);

/** For an op that returns a list: its length into *count (may be NULL) and the shape of its
 * entry `index` (0 <= index < count; an empty list's entry 0 is the shape an entry would
 * have). For other ops, *count is 1 and index must be 0. */
NT_API nt_status nt_op_result_list_shape(const nt_call *c, int64_t index, int64_t *count, int *ndim,
                                         int64_t *sizes);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_CALL_H */
