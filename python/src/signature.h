/*
 * signature.h — PyTorch's Python argument parser, once for every function and method of
 * the module: signatures in PyTorch's notation ("sum(Tensor input, IntArrayRef[1]? dim, bool
 * keepdim=False, *, ScalarType? dtype=None)"), parsed once at import with interned keyword
 * names, and a binder that matches a call against one or several overloads and raises every
 * argument error PyTorch raises, with its texts (python_arg_parser.cpp and
 * invalid_arguments.cpp of PyTorch 1.13):
 *
 *   "f() takes 2 positional arguments but 3 were given"
 *   "f() missing 1 required positional arguments: \"other\""
 *   "f() got an unexpected keyword argument 'x'"
 *   "f(): argument 'other' (position 2) must be Tensor, not str"
 *   "f() received an invalid combination of arguments - got (...), but expected one of: ..."
 */
#ifndef NT_PY_SIGNATURE_H
#define NT_PY_SIGNATURE_H

#include "pyntensor.h"

/* PyTorch's parameter types (python_arg_parser.h's ParameterType). */
typedef enum py_type {
    PT_TENSOR,
    PT_SCALAR,
    PT_INT64,
    PT_SYM_INT,
    PT_DOUBLE,
    PT_BOOL,
    PT_INT_LIST,
    PT_SYM_INT_LIST,
    PT_FLOAT_LIST,
    PT_TENSOR_LIST,
    PT_SCALARTYPE,
    PT_LAYOUT,
    PT_DEVICE,
    PT_GENERATOR,
    PT_MEMORY_FORMAT,
    PT_STRING,
    PT_DIMNAME,
    PT_DIMNAME_LIST,
    PT_PYOBJECT,
    PT_SCALAR_LIST,
    PT_STORAGE, /* never given: ntensor has no Storage objects */
} py_type;

typedef struct py_param {
    PyObject *name;        /* interned */
    PyObject *np_names[3]; /* NumPy's names for it (dim: axis, input: x, a, x1, ...) */
    py_type type;
    int size; /* IntArrayRef[N] / DimnameList[N]: a single value is accepted */
    bool allow_none, optional, keyword_only;
    bool numbers_as_tensors; /* add(x, 2): a Python number where a Tensor goes */
    bool dim_names;          /* an int or int list that fills a Dim/Dim[] slot: names (str)
                                are taken where indices are, as everywhere in ntensor */
    bool varargs;        /* "DimnameList *names": every positional argument, as one tuple (Python's
                          *names), whose one Ellipsis ("..." too) C expands */
    nt_arg def_arg;      /* the slot value when a call leaves it out: its default */
    int64_t def_ints[8]; /* the storage of a list default */
    char def_str[24];    /* and of a str one */
    const char *cname;   /* name, UTF-8 (for messages) */
    int slot;            /* the op schema's slot it fills, -1 for none */
} py_param;

typedef struct py_sig {
    char name[48]; /* as it appears in messages ("sum", "add_") */
    nt_op op;      /* the op the signature calls */
    int nparams;
    py_param params[NT_SIG_MAX_PARAMS];
    int min_args, max_pos_args;
    bool deprecated, hidden, extension;
    int out_param;     /* the index of `out`, or -1 */
    int self_slot;     /* methods: the slot `self` fills (-1 for functions) */
    PyObject *text;    /* "(Tensor input, *, torch.dtype dtype)": FunctionSignature::toString */
    PyObject *py_text; /* the parameters as Python writes them ("input, *, dtype=None"), for
                          __text_signature__ and docstrings */
    PyObject *source;  /* the signature's own text, as the op row writes it */
    bool py_valid;     /* whether py_text is valid Python (no required positional parameter
                          after one with a default) */
    nt_arg call_defaults[NT_CALL_MAX_ARGS]; /* the record of a call that gives nothing: the
                                               schema's defaults, with this signature's own */
} py_sig;

/* How a signature text is taken: SIG_SELF binds its first parameter (Tensor input/self) to
 * the method's self; SIG_NO_OUT drops its `out` (in-place forms). */
enum { SIG_SELF = 1, SIG_NO_OUT = 2 };

/* Parses signature text (PyTorch's notation) in the given form; `name` (may be NULL)
 * replaces the signature's name ("abs_" for an in-place form). Slots are matched by name
 * against the op's schema `schema`. Returns 0, or -1 with a Python error. */
int py_sig_init(py_sig *sig, const char *text, size_t len, unsigned form, const char *name,
                nt_op op, const nt_sig *schema);

/* Matches a call against the overloads sigs[0..n) the way PyTorch's PythonArgParser does:
 * the first that fits wins (but one that takes a first-class dim as a dim wins over one that
 * takes it as a Tensor: x.max(i)); with one overload its own error is raised, with several the
 * "invalid combination" text (or, when only one overload's argument count fits, that
 * overload's own error). On success fills vals[] (borrowed, NULL for absent or None) and
 * returns the index of the overload; -1 with a TypeError otherwise. A varargs int list
 * (permute(1, 0)) arrives as a tuple in *owned, which the caller releases after use. */
int py_sigs_bind(py_sig *const *sigs, int n, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames, PyObject **vals, PyObject **owned);

/* The key of a call whose arguments' types alone decide which overload fits and how it
 * binds: positional arguments only, each a tensor, str, int, float, bool, None, or a tuple
 * or list of one of int, str, float or tensors (the key tells a 0-dim tensor of an integer
 * dtype from others). 0 for any other call. */
uint32_t py_args_key(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* Binds such a call to the overload that an earlier call with the same key matched, as
 * py_sigs_bind would without matching again. Returns how many of vals[] it filled (the rest
 * are absent). `pack`: the overload takes every positional argument as parameter 0's list
 * (permute(1, 0)); vals[0] is then args[0] and the caller reads the arguments as the list's
 * items (py_sigs_bind makes a tuple of them). */
int py_sig_bind_known(const py_sig *sig, PyObject *const *args, Py_ssize_t nargs, bool pack,
                      PyObject **vals);

/* py_sigs_bind for a hand-written entry: its PyTorch signatures texts[0..n) (at most 8, in
 * their method form) are parsed into sigs[] on the first call. */
int py_sigs_bind_texts(py_sig *sigs, int n, const char *const *texts, PyObject *const *args,
                       Py_ssize_t nargs, PyObject *kwnames, PyObject **vals, PyObject **owned);

/* The type name PyTorch prints for a parameter type ("tuple of ints", "torch.dtype"). */
const char *py_type_name(py_type t);

#endif
