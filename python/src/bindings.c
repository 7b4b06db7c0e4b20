/*
 * bindings.c — the module functions and Tensor methods generated from the op table: for
 * every op (ntensor/call.h) its Python entries — torch.name(input, ...), t.name(...),
 * t.name_(...) and out= — are made at import from the op's flags and PyTorch's Python
 * signatures (nt_op_python). A call is parsed by signature.c, its arguments converted into
 * an nt_call by the op's schema (nt_op_schema), run by nt_call_op (the GIL released for
 * large work) and its results wrapped by the schema's return type.
 *
 * Ops that share a Python name are one entry with all their signatures, in op order
 * (torch.max: max(), max(other), max(dim)); the in-place and out= forms return the very
 * object written; an op's lines may give it several names (neg, negative; div, divide,
 * true_divide), each its own entry. Each entry has a small C trampoline that passes the
 * entry's number to the one invoke function.
 */
#include "bindings.h"

#include <string.h>

#include "arglists.h"
#include "docs.h"
#include "generator.h"
#include "interop.h"
#include "signature.h"
#include "subclass.h"

/* The forms of an op: torch.name, t.name, t.name_, torch.name_. */
typedef enum bind_mode {
    MODE_FUNCTION,
    MODE_METHOD,
    MODE_INPLACE,
    MODE_INPLACE_FUNCTION,
    MODE_COUNT
} bind_mode;

static const unsigned mode_flag[MODE_COUNT] = {NT_OPF_FUNCTION, NT_OPF_METHOD, NT_OPF_INPLACE,
                                               NT_OPF_INPLACE_FUNCTION};

/* How an op returns (its schema's return type): a tensor; two, as a named struct sequence
 * ("(Tensor values, Tensor indices)": torch.return_types.<name>) or a plain tuple
 * ("(Tensor, Tensor)"); a list; a bool; a number; nothing. */
typedef enum ret_kind {
    RET_TENSOR,
    RET_PAIR,
    RET_TUPLE,
    RET_LIST,
    RET_BOOL,
    RET_SCALAR,
    RET_NONE
} ret_kind;

/* What the binding knows of an op's schema. */
typedef struct op_info {
    int nslots;
    nt_arg defaults[NT_CALL_MAX_ARGS]; /* the slots' values when a call gives none */
    int slot_kind[NT_CALL_MAX_ARGS];   /* nt_arg_kind, -1 for Operand */
    ret_kind ret;
    PyTypeObject *pair_type;     /* RET_PAIR: torch.return_types.<name> */
    PyTypeObject *pair_out_type; /* and of its out= form: torch.return_types.<name>_out */
} op_info;

/* One Python entry: a name in one mode and every signature it accepts. */
typedef struct group {
    char name[48];
    bind_mode mode;
    int nsigs;
    py_sig *sigs[16];
    uint32_t memo_key[4]; /* the last argument keys (py_args_key) and the overloads they */
    signed char memo_sig[4], memo_next; /* matched: a call with a known key binds at once */
    int bare;      /* the overload a call without arguments binds, with all parameters absent
                      (found at import by binding one), or -1: it packs or fails, bind it */
    PyObject *doc; /* the entry's docstring (group_doc), kept for the life of the module */
} group;

static op_info infos[NT_OP_COUNT];
/* Every entry, by number: entry i is called through trampoline i (see "trampolines"). */
#define MAX_GROUPS 1000
static group *all_groups[MAX_GROUPS];

/* ------------------------------------------------------------------ schemas */

static ret_kind return_kind(const char *r) {
    if (!r[0] || strncmp(r, "Tensor", 6) == 0)
        return strcmp(r, "Tensor[]") == 0 ? RET_LIST : RET_TENSOR;
    if (r[0] == '(') { /* named fields ("(Tensor values, ...") make a struct sequence */
        const char *comma = strchr(r, ',');
        return comma && memchr(r, ' ', (size_t)(comma - r)) ? RET_PAIR : RET_TUPLE;
    }
    if (strcmp(r, "bool") == 0) return RET_BOOL;
    if (strcmp(r, "Scalar") == 0) return RET_SCALAR;
    if (strcmp(r, "None") == 0) return RET_NONE;
    return RET_TENSOR;
}

static PyStructSequence_Field pair_fields[] = {
    {"values", "the values"}, {"indices", "their indices along the dim"}, {NULL, NULL}};

/* PyTorch's repr: "torch.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))". */
static PyObject *pair_repr(PyObject *self) {
    return PyUnicode_FromFormat("%s(\nvalues=%R,\nindices=%R)", Py_TYPE(self)->tp_name,
                                PyStructSequence_GET_ITEM(self, 0),
                                PyStructSequence_GET_ITEM(self, 1));
}

/* torch.return_types.<name>, made once per name and kept in `types` (a dict). */
static PyTypeObject *pair_type(const char *name, PyObject *types) {
    PyObject *existing = PyDict_GetItemString(types, name);
    if (existing) return (PyTypeObject *)existing;
    char *qualname = PyMem_Malloc(80);
    if (!qualname) return (PyTypeObject *)PyErr_NoMemory();
    snprintf(qualname, 80, "torch.return_types.%s", name); /* lives as long as the type */
    PyStructSequence_Desc desc = {qualname, NULL, pair_fields, 2};
    PyTypeObject *type = PyStructSequence_NewType(&desc);
    if (!type) return NULL;
    type->tp_repr = pair_repr;
    if (PyDict_SetItemString(types, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return NULL;
    }
    Py_DECREF(type); /* the dict holds it for the life of the module */
    return type;
}

static int init_info(nt_op op, PyObject *return_types, nt_sig *schema) {
    const char *text = nt_op_schema(op);
    if (nt_sig_parse(text, strlen(text), schema) != NT_OK) {
        PyErr_Format(PyExc_RuntimeError, "ntensor: op %s: %s", nt_op_name(op), nt_last_error());
        return -1;
    }
    op_info *info = &infos[op];
    info->nslots = schema->nparams;
    for (int i = 0; i < schema->nparams; i++) {
        const nt_param *p = &schema->params[i];
        int kind = strcmp(p->type, "Operand") == 0 ? -1 : nt_sig_kind_of(p->type);
        info->slot_kind[i] = kind;
        info->defaults[i] = nt_sig_default(p);
    }
    info->ret = return_kind(schema->returns);
    if (info->ret == RET_PAIR && !(info->pair_type = pair_type(schema->name, return_types)))
        return -1;
    if (info->ret == RET_PAIR && (nt_op_flags(op) & NT_OPF_OUT)) {
        char out_name[64];
        snprintf(out_name, sizeof out_name, "%s_out", schema->name);
        if (!(info->pair_out_type = pair_type(out_name, return_types))) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ groups */

/* The group of `name` in `mode`, made on first use (the first op of a name owns it). */
static group *group_for(const char *name, bind_mode mode, group **all, int *ngroups) {
    for (int i = 0; i < *ngroups; i++)
        if (all[i]->mode == mode && strcmp(all[i]->name, name) == 0) return all[i];
    group *g = PyMem_Calloc(1, sizeof *g);
    if (!g) return (group *)PyErr_NoMemory();
    snprintf(g->name, sizeof g->name, "%s", name);
    g->mode = mode;
    all[(*ngroups)++] = g;
    return g;
}

static int list_buffers(const py_sig *sig);
#define LIST_BUFFERS 4 /* the most a signature takes (list_buffers: diagonal's named form) */

/* Adds the op's Python signatures to the group of each form it has. */
static int add_op(nt_op op, const nt_sig *schema, group **all, int *ngroups) {
    unsigned flags = nt_op_flags(op);
    const char *py = nt_op_python(op);
    for (const char *line = py; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *paren = memchr(line, '(', len);
        char name[48];
        snprintf(name, sizeof name, "%.*s", paren ? (int)(paren - line) : 0, line);
        for (int m = 0; m < MODE_COUNT; m++) {
            if (!(flags & mode_flag[m])) continue;
            bool inplace = m == MODE_INPLACE || m == MODE_INPLACE_FUNCTION;
            char gname[48];
            snprintf(gname, sizeof gname, inplace ? "%s_" : "%s", name);
            group *g = group_for(gname, (bind_mode)m, all, ngroups);
            if (!g) return -1;
            if (g->nsigs == 16) {
                PyErr_Format(PyExc_RuntimeError, "ntensor: too many overloads of %s", gname);
                return -1;
            }
            py_sig *sig = PyMem_Calloc(1, sizeof *sig);
            if (!sig) return PyErr_NoMemory(), -1;
            /* a method is the function's signature without its tensor (an op with only
             * torch.name_ too: resize_as_), an in-place form has no out=; a method-only
             * op's signature is written as the method's */
            unsigned form = 0;
            if ((m == MODE_METHOD || m == MODE_INPLACE) &&
                (flags & (NT_OPF_FUNCTION | NT_OPF_INPLACE_FUNCTION)))
                form |= SIG_SELF;
            if (m != MODE_FUNCTION) form |= SIG_NO_OUT;
            if (py_sig_init(sig, line, len, form, gname, op, schema) < 0) return -1;
            /* a function's line that does not take the tensor first ("pow(Scalar self,
             * Tensor exponent)") has no method form */
            if ((form & SIG_SELF) && sig->self_slot < 0) {
                Py_XDECREF(sig->text);
                PyMem_Free(sig);
                continue;
            }
            if (list_buffers(sig) > LIST_BUFFERS) {
                PyErr_Format(PyExc_RuntimeError, "ntensor: %s takes too many lists", gname);
                return -1;
            }
            memcpy(sig->call_defaults, infos[op].defaults, sizeof sig->call_defaults);
            for (int i = 0; i < sig->nparams; i++)
                if (sig->params[i].slot >= 0 && i != sig->out_param)
                    sig->call_defaults[sig->params[i].slot] = sig->params[i].def_arg;
            g->sigs[g->nsigs++] = sig;
        }
        line = end ? end + 1 : line + len;
    }
    return 0;
}

/* ------------------------------------------------------------------ converting arguments */

/* Storage for the lists of one call, on the caller's stack (a heap block per call cost
 * more than a view itself); `heap` has bit i set when slot i's tensors[i] or ints[i] were
 * allocated (nothing else is read, so nothing needs clearing). */
typedef struct call_lists {
    uint32_t heap;
    int used;                /* buffers handed out (take) */
    PyObject *const *packed; /* a remembered varargs overload (view(2, 3)): the positional */
    Py_ssize_t npacked;      /* arguments, parameter 0's list, read in place of a tuple */
    nt_tensor **tensors[NT_SIG_MAX_PARAMS];
    int64_t *ints[NT_SIG_MAX_PARAMS];           /* int lists longer than NT_MAX_DIMS */
    int64_t buffers[LIST_BUFFERS][NT_MAX_DIMS]; /* the dims, ints or names of list parameters
                                                   (a small frame: a call touches few lines) */
} call_lists;

/* A buffer for one list of the call. */
static void *take(call_lists *l) {
    return l->buffers[l->used++];
}

/* The buffers a signature's conversion takes (convert: a names list given for dims takes
 * two). */
static int list_buffers(const py_sig *sig) {
    static const int takes[PT_STORAGE + 1] = {
        [PT_INT_LIST] = 1, [PT_SYM_INT_LIST] = 1, [PT_INT64] = 1,
        [PT_SYM_INT] = 1,  [PT_DIMNAME] = 1,      [PT_DIMNAME_LIST] = 2};
    int n = 0;
    for (int i = 0; i < sig->nparams; i++)
        n += takes[sig->params[i].type];
    return n;
}

/* The items of list parameter i: a tuple's or a list's, or the call's positional arguments
 * (l->packed); NULL for a single value (IntArrayRef[N] takes one for all). */
static PyObject *const *items_of(const call_lists *l, int i, PyObject *o, Py_ssize_t *len) {
    static PyObject *const no_items[1];
    if (l && i == 0 && l->packed) return *len = l->npacked, l->packed;
    if (!PyTuple_Check(o) && !PyList_Check(o)) return NULL;
    *len = PySequence_Fast_GET_SIZE(o);
    return *len ? PySequence_Fast_ITEMS(o) : no_items; /* an empty list's items are NULL */
}

/* PyTorch's text for a list item of the wrong type (pos counts from 1). */
static int bad_list_item(const py_sig *sig, const py_param *p, PyObject *item, Py_ssize_t pos) {
    PyErr_Format(PyExc_TypeError,
                 "%s(): argument '%U' must be %s, but found element of type %s at pos %zd",
                 sig->name, p->name, py_type_name(p->type), Py_TYPE(item)->tp_name, pos);
    return -1;
}

static int int_list(const py_sig *sig, const py_param *p, PyObject *o, PyObject *const *items,
                    Py_ssize_t len, int64_t *out, int *n, int64_t **longer) {
    if (!items) {
        int64_t v;
        if (nt_py_int64_from_object(o, &v, p->cname) < 0) return -1;
        for (*n = 0; *n < (p->size > 0 ? p->size : 1); (*n)++)
            out[*n] = v;
        return 0;
    }
    if (len > NT_MAX_DIMS) {
        if (!longer || len > INT32_MAX) {
            PyErr_Format(PyExc_RuntimeError, "%s(): too many dims (%zd)", sig->name, len);
            return -1;
        }
        if (!(*longer = out = PyMem_Malloc((size_t)len * sizeof *out))) return PyErr_NoMemory(), -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = items[i];
        if (!PyLong_CheckExact(item) && (PyBool_Check(item) || PyFloat_Check(item) ||
                                         !PyIndex_Check(item) || nt_py_is_tensor(item)))
            return bad_list_item(sig, p, item, i + 1);
        if (nt_py_int64_from_object(item, &out[i], p->cname) < 0) return -1;
    }
    *n = (int)len;
    return 0;
}

/* A Dim[] list: ints and names (str), or one of them for IntArrayRef[N]. */
static int dim_list(const py_sig *sig, const py_param *p, PyObject *o, PyObject *const *items,
                    Py_ssize_t len, nt_dim *out, int *n) {
    bool seq = items != NULL;
    if (!seq) items = &o, len = 1;
    if (len > NT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "%s(): too many dims (%zd)", sig->name, len);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = items[i];
        bool name_list = i > 0 && PyUnicode_Check(items[0]);
        if (nt_py_is_dim(item)) {
            out[i] = nt_py_dim_arg(item);
            continue;
        }
        if (PyUnicode_Check(item) || (item == Py_None && name_list)) {
            nt_name name;
            if (nt_py_name_from_object(item, &name) < 0) return -1;
            out[i] = nt_dim_name(name); /* None: "Please look up dimensions by name" */
            continue;
        }
        if (!PyLong_CheckExact(item) && (PyBool_Check(item) || PyFloat_Check(item) ||
                                         !PyIndex_Check(item) || nt_py_is_tensor(item)))
            return bad_list_item(sig, p, item, i + 1);
        if (nt_py_int64_from_object(item, &out[i], p->cname) < 0) return -1;
    }
    if (!seq) /* IntArrayRef[N]: one value for all */
        for (int k = 1; k < (p->size > 0 ? p->size : 1); k++)
            out[k] = out[0];
    *n = seq ? (int)len : (p->size > 0 ? p->size : 1);
    return 0;
}

/* A name list (a sequence, or one name for DimnameList[1]); of *names, the one Ellipsis
 * (its index in *ellipsis, else -1) is a placeholder that C expands. */
static int name_list(const py_sig *sig, const py_param *p, PyObject *o, PyObject *const *items,
                     Py_ssize_t len, nt_name *out, int *n, int *ellipsis) {
    *ellipsis = -1;
    if (!items) {
        *n = 1;
        return nt_py_name_from_object(o, &out[0]);
    }
    if (p->varargs && (*ellipsis = nt_py_find_ellipsis(sig->name, items, len)) == -2) return -1;
    return nt_py_names_from_items(items, len, out, n, *ellipsis);
}

static void release_lists(call_lists *l) {
    for (int i = 0; l->heap; i++, l->heap >>= 1)
        if (l->heap & 1) {
            PyMem_Free(l->tensors[i]);
            PyMem_Free(l->ints[i]);
        }
}

/* One given value `o` of parameter p into slot kind `kind`. */
static int convert(const py_sig *sig, int i, PyObject *o, int kind, call_lists *l, nt_arg *a) {
    const py_param *p = &sig->params[i];
    switch (p->type) {
    case PT_TENSOR:
        if (nt_py_is_tensor(o)) {
            *a = nt_arg_tensor(nt_py_tensor(o));
            return 0;
        }
        if (nt_py_is_dim(o)) { /* a first-class dim as a tensor: its arange */
            PyObject *t = nt_py_dim_tensor(o);
            if (!t) return -1;
            *a = nt_arg_tensor(nt_py_tensor(t));
            return 0;
        }
        if (nt_py_is_delayed(o)) { /* a delayed product (ntensor.dim): its value */
            PyObject *t = nt_py_delayed_value(o);
            if (!t) return -1;
            *a = nt_arg_tensor(nt_py_tensor(t));
            return 0;
        }
        /* a Python number where a Tensor goes (add(x, 2)) */
        a->kind = NT_ARG_SCALAR;
        return nt_py_number(o, &a->v.s);
    case PT_SCALAR:
    case PT_DOUBLE:
        if (kind == NT_ARG_FLOAT) {
            double f = PyFloat_AsDouble(o);
            if (f == -1.0 && PyErr_Occurred()) return -1;
            *a = nt_arg_float(f);
            return 0;
        }
        *a = nt_arg_scalar(nt_scalar_int(0));
        return nt_py_number(o, &a->v.s);
    case PT_INT64:
    case PT_SYM_INT: {
        int64_t v;
        if (p->dim_names && PyUnicode_Check(o)) { /* a name where a dim index goes */
            nt_name name;
            if (nt_py_name_from_object(o, &name) < 0) return -1;
            v = nt_dim_name(name);
        } else if (p->dim_names && nt_py_is_dim(o)) { /* a first-class dim */
            v = nt_py_dim_arg(o);
        } else if (nt_py_is_tensor(o)) {
            nt_scalar s;
            nt_status st = nt_item(nt_py_tensor(o), &s);
            if (st != NT_OK) return nt_py_raise_int(st);
            v = s.v.i;
        } else if (nt_py_int64_from_object(o, &v, p->cname) < 0) {
            return -1;
        }
        if (kind == NT_ARG_DIMS) { /* prod(dim) into a Dim[] slot */
            nt_dim *d = take(l);
            d[0] = v;
            *a = nt_arg_dims(1, d);
            return 0;
        }
        *a = kind == NT_ARG_DIM ? nt_arg_dim(v) : nt_arg_int(v);
        return 0;
    }
    case PT_BOOL:
        *a = nt_arg_bool(o == Py_True);
        return 0;
    case PT_INT_LIST:
    case PT_SYM_INT_LIST: {
        int n;
        Py_ssize_t len = 0;
        PyObject *const *items = items_of(l, i, o, &len);
        nt_dim *d = take(l);
        if (p->dim_names && kind == NT_ARG_DIMS) {
            if (dim_list(sig, p, o, items, len, d, &n) < 0) return -1;
            *a = nt_arg_dims(n, d);
            return 0;
        }
        l->tensors[i] = NULL;
        l->ints[i] = NULL;
        int rc = int_list(sig, p, o, items, len, (int64_t *)d, &n,
                          kind == NT_ARG_INTS ? &l->ints[i] : NULL);
        if (l->ints[i]) l->heap |= 1u << i;
        if (rc < 0) return -1;
        *a = kind == NT_ARG_DIMS ? nt_arg_dims(n, d)
                                 : nt_arg_ints(n, l->ints[i] ? l->ints[i] : (const int64_t *)d);
        return 0;
    }
    case PT_DIMNAME: {
        nt_name name;
        if (nt_py_name_from_object(o, &name) < 0) return -1;
        if (kind == NT_ARG_NAMES) {
            nt_name *names = take(l);
            names[0] = name;
            *a = nt_arg_names(1, names, -1);
        } else if (kind == NT_ARG_DIMS) { /* all('C') into a Dim[] slot */
            nt_dim *d = take(l);
            d[0] = nt_dim_name(name);
            *a = nt_arg_dims(1, d);
        } else {
            *a = nt_arg_dim(nt_dim_name(name));
        }
        return 0;
    }
    case PT_DIMNAME_LIST: {
        int n, ellipsis;
        Py_ssize_t len = 0;
        PyObject *const *items = items_of(l, i, o, &len);
        nt_name *names = take(l);
        if (name_list(sig, p, o, items, len, names, &n, &ellipsis) < 0) return -1;
        if (kind == NT_ARG_NAMES) {
            *a = nt_arg_names(n, names, ellipsis);
            return 0;
        }
        nt_dim *d = take(l);
        for (int k = 0; k < n; k++)
            d[k] = nt_dim_name(names[k]);
        *a = kind == NT_ARG_DIM && n == 1 ? nt_arg_dim(d[0]) : nt_arg_dims(n, d);
        return 0;
    }
    case PT_TENSOR_LIST: {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        l->ints[i] = NULL;
        l->tensors[i] = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(nt_tensor *));
        if (!l->tensors[i]) return PyErr_NoMemory(), -1;
        l->heap |= 1u << i;
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *t = PySequence_Fast_GET_ITEM(o, k);
            if (nt_py_is_delayed(t) && !(t = nt_py_delayed_value(t))) return -1;
            l->tensors[i][k] = nt_py_tensor(t);
        }
        *a = nt_arg_tensors((int)n, l->tensors[i]);
        return 0;
    }
    case PT_SCALARTYPE: {
        nt_dtype d;
        if (nt_py_dtype_from_object(o, NT_FLOAT32, &d) < 0) return -1;
        *a = nt_arg_dtype((int)d);
        return 0;
    }
    case PT_STRING:
        if (kind == NT_ARG_DIM) { /* a str where the schema takes a Dim: a name */
            nt_name name;
            if (nt_py_name_from_object(o, &name) < 0) return -1;
            *a = nt_arg_dim(nt_dim_name(name));
            return 0;
        }
        *a = nt_arg_str(PyUnicode_AsUTF8(o));
        return a->v.str ? 0 : -1;
    case PT_DEVICE:
        *a = nt_arg_none();
        return nt_py_check_device(o);
    default:
        *a = nt_arg_none();
        return 0;
    }
}

/* ------------------------------------------------------------------ calling */

/* requires_grad=True of a factory (*grad set: the result is marked) and pin_memory=True
 * (factories.c's error); other bool parameters without a slot pass. */
static int factory_flag(const py_param *p, int *grad) {
    int unused;
    if (PyUnicode_CompareWithASCIIString(p->name, "requires_grad") == 0) *grad = 1;
    if (PyUnicode_CompareWithASCIIString(p->name, "pin_memory") == 0)
        return nt_py_factory_flags(NULL, Py_True, &unused);
    return 0;
}

/* (values, indices) as a struct sequence of `type`, or a plain tuple. */
static PyObject *pair_result(nt_call *c, PyTypeObject *type) {
    PyObject *r = type ? PyStructSequence_New(type) : PyTuple_New(2); /* NULL: a plain tuple */
    PyObject *v = nt_py_wrap(c->result[0]), *ix = nt_py_wrap(c->result[1]);
    if (!r || !v || !ix) {
        Py_XDECREF(r);
        Py_XDECREF(v);
        Py_XDECREF(ix);
        return NULL;
    }
    PyTuple_SET_ITEM(r, 0, v); /* a struct sequence is a tuple */
    PyTuple_SET_ITEM(r, 1, ix);
    return r;
}

/* The Python result of a call that succeeded. */
static PyObject *wrap_results(nt_call *c, const op_info *info, PyObject *self, PyObject *out) {
    if (out && info->ret == RET_PAIR) /* out=(values, indices): PyTorch's <name>_out */
        return pair_result(c, info->pair_out_type);
    if (self || out) { /* in place or out=: the object written */
        PyObject *obj = self ? self : out;
        for (int k = 0; k < 2; k++)
            nt_tensor_release(c->result[k]);
        Py_INCREF(obj);
        return obj;
    }
    switch (info->ret) {
    case RET_PAIR:
        return pair_result(c, info->pair_type);
    case RET_TUPLE:
        return pair_result(c, NULL);
    case RET_LIST: { /* each tensor wrapped into the tuple, or (after a failure) released */
        if (!c->list && c->result[0]) /* a list op that answered with one tensor */
            return nt_py_wrap(c->result[0]);
        PyObject *tuple = PyTuple_New(c->nlist), *item;
        for (int64_t k = 0; k < c->nlist; k++)
            if (!tuple)
                nt_tensor_release(c->list[k]);
            else if ((item = nt_py_wrap(c->list[k]))) /* which releases it on failure */
                PyTuple_SET_ITEM(tuple, k, item);
            else
                Py_CLEAR(tuple);
        nt_free(c->list);
        return tuple;
    }
    case RET_BOOL:
        return PyBool_FromLong(c->value.v.b);
    case RET_SCALAR:
        return nt_py_scalar_to_object(c->value);
    case RET_NONE:
        Py_RETURN_NONE;
    default:
        return nt_py_wrap(c->result[0]);
    }
}

/* PyTorch's warning for a deprecated overload (add(input, alpha, other)): once per process,
 * as its TORCH_WARN_ONCE. */
static int warn_deprecated(const group *g, const py_sig *sig) {
    static bool warned;
    if (warned) return 0;
    warned = true;
    PyObject *msg = PyUnicode_FromFormat("This overload of %s is deprecated:\n\t%s%U", sig->name,
                                         sig->name, sig->text);
    int n = 0;
    for (int i = 0; msg && i < g->nsigs; i++) {
        const py_sig *other = g->sigs[i];
        if (other->deprecated || other->hidden) continue;
        PyObject *line = PyUnicode_FromFormat(
            "%U%s\n\t%s%U", msg,
            n++ ? "" : "\nConsider using one of the following signatures instead:", other->name,
            other->text);
        Py_SETREF(msg, line);
    }
    if (!msg) return -1;
    int rc = PyErr_WarnEx(PyExc_UserWarning, PyUnicode_AsUTF8(msg), 1);
    Py_DECREF(msg);
    return rc;
}

/* The overload of g a call matches, its values in vals[0..*nvals) (the rest absent): bound
 * from the memo when a call with the same argument types came before, else matched and
 * remembered. -1 with a TypeError. */
static int match(group *g, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                 PyObject **vals, PyObject **owned, int *nvals, call_lists *l) {
    uint32_t key = py_args_key(args, nargs, kwnames);
    for (int m = 0; key && m < 4; m++) /* bit 0: the arguments went into one tuple, vals[0] */
        if (g->memo_key[m] == key) {
            int which = g->memo_sig[m];
            *nvals = py_sig_bind_known(g->sigs[which >> 1], args, nargs, which & 1, vals);
            if (which & 1) l->packed = args, l->npacked = nargs; /* read in place of a tuple */
            return which >> 1;
        }
    int which = py_sigs_bind((py_sig *const *)g->sigs, g->nsigs, args, nargs, kwnames, vals, owned);
    if (which < 0) return -1;
    *nvals = g->sigs[which]->nparams;
    if (key && (!*owned || (vals[0] == *owned && nargs > 0))) { /* packed: read args[0..) */
        g->memo_key[g->memo_next] = key;
        g->memo_sig[g->memo_next] = (signed char)(which << 1 | (*owned != NULL));
        g->memo_next = (signed char)((g->memo_next + 1) % 4);
    }
    return which;
}

static bool is_function(const group *g);

/* A call with an instance of the Tensor subclass `sub` among its tensors: its
 * __torch_function__'s policy (NT_PY_SUB_PLAIN or NT_PY_SUB_KEEP: run the op), or -1 when an
 * override ran instead (*result its answer, NULL after an error). */
static int subclass_call(const group *g, PyObject *owner, PyTypeObject *sub, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames, PyObject **result) {
    PyObject *override;
    int policy = nt_py_subclass_policy(sub, &override);
    if (policy != NT_PY_SUB_OVERRIDE) return policy; /* -1 with an error: *result is NULL */
    bool function = is_function(g);
    PyObject *func = PyObject_GetAttrString(function ? owner : (PyObject *)&NtTensor_Type, g->name);
    if (func)
        *result = nt_py_call_torch_function(override, sub, func, function ? NULL : owner, args,
                                            nargs, kwnames);
    Py_XDECREF(func);
    return -1;
}

static PyObject *invoke(int entry, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames) {
    group *g = all_groups[entry];
    bind_mode mode = g->mode;
    PyObject *owner = self; /* the module, or the tensor of a method */
    if (mode == MODE_FUNCTION || mode == MODE_INPLACE_FUNCTION) self = NULL; /* the module */
    PyTypeObject *sub = self ? nt_py_pick_subclass(NULL, self) : NULL;       /* a Tensor subclass */
    PyObject *vals[NT_SIG_MAX_PARAMS], *owned = NULL;
    call_lists lists; /* only these fields are read before they are written */
    lists.heap = 0, lists.used = 0, lists.packed = NULL;
    int which = 0, nvals = 0;
    if (!nargs && !kwnames && g->bare >= 0) /* t.abs(), t.float(): nothing to match */
        which = g->bare;
    else if ((which = match(g, args, nargs, kwnames, vals, &owned, &nvals, &lists)) < 0)
        return NULL;
    const py_sig *sig = g->sigs[which];
    const op_info *info = &infos[sig->op];
    nt_call c;
    c.op = sig->op;
    c.inplace = mode == MODE_INPLACE || mode == MODE_INPLACE_FUNCTION;
    c.out[0] = c.out[1] = NULL;
    /* the first four slots as a fixed size (a few vector moves; a copy of nslots would be a
     * memcpy call, of all twelve a `rep movs`), the rest when there are more */
    memcpy(c.args, sig->call_defaults, 4 * sizeof c.args[0]);
    if (info->nslots > 4)
        memcpy(c.args + 4, sig->call_defaults + 4, (size_t)(info->nslots - 4) * sizeof c.args[0]);
    if (self) c.args[sig->self_slot >= 0 ? sig->self_slot : 0] = nt_arg_tensor(nt_py_tensor(self));
    PyObject *out_obj = NULL;
    PyObject *result = NULL;
    int grad = 0;             /* requires_grad=True */
    nt_generator *gen = NULL; /* generator= */
    if (sig->deprecated && warn_deprecated(g, sig) < 0) goto done;
    for (int i = 0; i < nvals; i++) {
        const py_param *p = &sig->params[i];
        if (i == sig->out_param) {
            if (!vals[i]) continue;
            if (p->type == PT_TENSOR_LIST) {
                for (Py_ssize_t k = 0; k < 2 && k < PySequence_Fast_GET_SIZE(vals[i]); k++)
                    c.out[k] = nt_py_tensor(PySequence_Fast_GET_ITEM(vals[i], k));
            } else {
                c.out[0] = nt_py_tensor(vals[i]);
            }
            out_obj = vals[i];
            continue;
        }
        if (!vals[i]) continue;        /* left out, or None: the signature's default */
        if (p->type == PT_GENERATOR) { /* generator=: the op draws from it */
            gen = nt_py_generator_of(vals[i]);
            continue;
        }
        nt_arg unused, *a = p->slot >= 0 ? &c.args[p->slot] : &unused; /* written in place */
        int kind = p->slot >= 0 ? info->slot_kind[p->slot] : NT_ARG_NONE;
        if (p->slot < 0 && p->type == PT_BOOL && vals[i] == Py_True && factory_flag(p, &grad) < 0)
            goto done;
        if (convert(sig, i, vals[i], kind, &lists, a) < 0) goto done;
        if (a->kind == NT_ARG_TENSOR) sub = nt_py_pick_subclass(sub, vals[i]);
        for (int k = 0; a->kind == NT_ARG_TENSORS && k < a->n; k++)
            sub = nt_py_pick_subclass(sub, PySequence_Fast_GET_ITEM(vals[i], k));
        /* torch.name_(input): the input is the object written */
        if (mode == MODE_INPLACE_FUNCTION && !self && a->kind == NT_ARG_TENSOR && p->slot == 0)
            self = vals[i];
    }
    int policy = NT_PY_SUB_PLAIN;
    if (sub && (policy = subclass_call(g, owner, sub, args, nargs, kwnames, &result)) < 0)
        goto done; /* an override answered (or failed) */
    nt_status st;
    nt_generator *before = gen ? nt_use_generator(gen) : NULL;
    /* the record is made from the op's schema: no need to check it again (nt_call_op) */
    if (nt_call_numel(&c) > NT_PY_NOGIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS st = nt_call_run(&c);
        Py_END_ALLOW_THREADS
    } else {
        st = nt_call_run(&c);
    }
    if (gen) nt_use_generator(before);
    if (st != NT_OK) {
        nt_py_raise(st);
        goto done;
    }
    result = wrap_results(&c, info, c.inplace ? self : NULL, out_obj);
    result = nt_py_requires_grad(result, grad);
    if (policy == NT_PY_SUB_KEEP && !c.inplace && !out_obj)
        result = nt_py_keep_subclass(result, sub);
    if (result && nt_py_warn_pending() < 0) Py_CLEAR(result);
done:
    release_lists(&lists);
    Py_XDECREF(owned);
    return result;
}

/* ------------------------------------------------------------------ trampolines */

/* One C entry point per Python entry (a name in one form: torch.div, torch.divide, t.div_,
 * ...), each passing its number to invoke, which finds the entry's signatures: MAX_GROUPS
 * of them, stamped by the preprocessor (ALL_ENTRIES makes entries 0..999). The tr0_ forms
 * take no arguments (METH_NOARGS). */
// clang-format off
#define T1(p) T(p##0) T(p##1) T(p##2) T(p##3) T(p##4) T(p##5) T(p##6) T(p##7) T(p##8) T(p##9)
#define T2(p) T1(p##0) T1(p##1) T1(p##2) T1(p##3) T1(p##4) T1(p##5) T1(p##6) T1(p##7) T1(p##8) T1(p##9)
#define ALL_ENTRIES T2(0) T2(1) T2(2) T2(3) T2(4) T2(5) T2(6) T2(7) T2(8) T2(9)

#define T(i)                                                                                   \
    static PyObject *tr_##i(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) {      \
        return invoke(1##i - 1000, s, a, n, k);                                                \
    }                                                                                          \
    static PyObject *tr0_##i(PyObject *s, PyObject *unused) {                                  \
        (void)unused;                                                                          \
        return invoke(1##i - 1000, s, NULL, 0, NULL);                                          \
    }
ALL_ENTRIES
#undef T

typedef PyObject *(*noargs_fn)(PyObject *, PyObject *);

#define T(i) tr_##i,
static const fastcall_fn fastcall_fns[MAX_GROUPS] = {ALL_ENTRIES};
#undef T
#define T(i) tr0_##i,
static const noargs_fn noargs_fns[MAX_GROUPS] = {ALL_ENTRIES};
#undef T
#undef ALL_ENTRIES
#undef T1
#undef T2
// clang-format on

/* ------------------------------------------------------------------ the tables */

static PyMethodDef *method_table, *function_table;

/* A method with one signature of no parameters takes none, like PyTorch's METH_NOARGS
 * methods ("Tensor.abs() takes no arguments (1 given)"). */
static bool takes_nothing(const group *g) {
    return (g->mode == MODE_METHOD || g->mode == MODE_INPLACE) && g->nsigs == 1 &&
           g->sigs[0]->nparams == 0;
}

static bool is_function(const group *g) {
    return g->mode == MODE_FUNCTION || g->mode == MODE_INPLACE_FUNCTION;
}

/* The docstring of an entry, with its __text_signature__ first ("add(input, other, *,
 * alpha=1, out=None)\n--\n\n"; a method's starts "$self, /"): the one signature its visible
 * overloads share, else (*args, **kwargs). Then the summary (op_docs.def; an in-place form
 * without one is "In-place version of name()") and every visible overload, as Python writes
 * it. */
static PyObject *group_doc(const group *g) {
    bool method = !is_function(g);
    const py_sig *shown[16] = {NULL};
    int n = 0;
    for (int i = 0; i < g->nsigs; i++)
        if (!g->sigs[i]->hidden && !g->sigs[i]->deprecated) shown[n++] = g->sigs[i];
    for (int i = 0; !n && i < g->nsigs; i++) /* ntensor's own entries are hidden overloads */
        shown[n++] = g->sigs[i];
    bool one = shown[0]->py_valid;
    for (int i = 1; one && i < n; i++)
        one = PyUnicode_Compare(shown[i]->py_text, shown[0]->py_text) == 0;
    PyObject *params = one ? Py_NewRef(shown[0]->py_text) : PyUnicode_FromString("*args, **kwargs");
    if (!params) return NULL;
    const char *self = !method ? "" : PyUnicode_GET_LENGTH(params) ? "$self, /, " : "$self, /";
    char fallback[96];
    const char *summary = nt_py_op_doc(method, g->name);
    size_t len = strlen(g->name);
    if (!summary) {
        if (len > 1 && g->name[len - 1] == '_')
            snprintf(fallback, sizeof fallback, "In-place version of %.*s().", (int)(len - 1),
                     g->name);
        else
            snprintf(fallback, sizeof fallback, "ntensor's %s (no PyTorch namesake).",
                     nt_op_name(shown[0]->op));
        summary = fallback;
    }
    PyObject *doc = PyUnicode_FromFormat("%s(%s%U)\n--\n\n%s\n", g->name, self, params, summary);
    Py_DECREF(params);
    for (int i = 0; doc && i < n; i++) { /* the Python forms, each once */
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = PyUnicode_Compare(shown[k]->py_text, shown[i]->py_text) == 0;
        if (!seen)
            Py_SETREF(doc, PyUnicode_FromFormat("%U\n%s%s(%U)", doc, method ? "Tensor." : "",
                                                g->name, shown[i]->py_text));
    }
    if (doc && n > 1) /* overloads differ by their types: PyTorch's notation tells them apart */
        Py_SETREF(doc, PyUnicode_FromFormat("%U\n\nOverloads (PyTorch's notation):", doc));
    for (int i = 0; doc && n > 1 && i < n; i++)
        Py_SETREF(doc, PyUnicode_FromFormat("%U\n    %U", doc, shown[i]->source));
    return doc;
}

int nt_py_bindings_init(PyObject *module) {
    PyObject *return_types = PyDict_New();
    if (!return_types) return -1;
    group **all = PyMem_Calloc((size_t)NT_OP_COUNT * MODE_COUNT, sizeof *all);
    nt_sig *schema = PyMem_Malloc(sizeof *schema);
    int ngroups = 0, rc = -1;
    if (!all || !schema) {
        PyErr_NoMemory();
        goto done;
    }
    for (int op = 0; op < NT_OP_COUNT; op++)
        if (init_info((nt_op)op, return_types, schema) < 0 ||
            add_op((nt_op)op, schema, all, &ngroups) < 0)
            goto done;
    int nmethods = 0, nfunctions = 0;
    for (int i = 0; i < ngroups; i++)
        if (all[i]->nsigs) *(is_function(all[i]) ? &nfunctions : &nmethods) += 1;
    method_table = PyMem_Calloc((size_t)nmethods + 1, sizeof *method_table);
    function_table = PyMem_Calloc((size_t)nfunctions + 1, sizeof *function_table);
    if (!method_table || !function_table) {
        PyErr_NoMemory();
        goto done;
    }
    int im = 0, jf = 0, entry = 0;
    for (int i = 0; i < ngroups; i++) {
        group *g = all[i];
        if (!g->nsigs) continue; /* every line of it was a function's only */
        if (entry == MAX_GROUPS) {
            PyErr_SetString(PyExc_RuntimeError, "ntensor: more Python entries than trampolines");
            goto done;
        }
        all_groups[entry] = g;
        PyObject *vals[NT_SIG_MAX_PARAMS], *owned;
        g->bare = py_sigs_bind(g->sigs, g->nsigs, NULL, 0, NULL, vals, &owned);
        for (int k = 0; g->bare >= 0 && k < g->sigs[g->bare]->nparams; k++)
            if (vals[k]) g->bare = -1;
        Py_XDECREF(owned);
        PyErr_Clear();
        if (!(g->doc = group_doc(g))) goto done;
        PyMethodDef def = {g->name, NULL, 0, PyUnicode_AsUTF8(g->doc)};
        if (takes_nothing(g)) {
            def.ml_meth = (PyCFunction)(void (*)(void))noargs_fns[entry];
            def.ml_flags = METH_NOARGS;
        } else {
            def.ml_meth = (PyCFunction)(void (*)(void))fastcall_fns[entry];
            def.ml_flags = METH_FASTCALL | METH_KEYWORDS;
        }
        entry++;
        if (is_function(g))
            function_table[jf++] = def;
        else
            method_table[im++] = def;
    }
    if (PyModule_AddFunctions(module, function_table) < 0) goto done;
    if (PyModule_AddObject(module, "_return_types", return_types) < 0) goto done;
    return_types = NULL;
    rc = 0;
done:
    Py_XDECREF(return_types);
    PyMem_Free(all);
    PyMem_Free(schema);
    return rc;
}

/* _C._binding_table(): every generated entry as (name, kind, ((signature text, hidden,
 * deprecated, op schema, numbers taken for tensors), ...)) in entry order, kind "function",
 * "method", "inplace" (t.name_) or "inplace_function" (torch.name_): what scripts/gen_stubs.py
 * makes the type stubs from, so they come from the same rows the entries do. */
PyObject *nt_py_binding_table(PyObject *module, PyObject *unused) {
    static const char *const kinds[MODE_COUNT] = {"function", "method", "inplace",
                                                  "inplace_function"};
    PyObject *list = PyList_New(0);
    for (int e = 0; list && e < MAX_GROUPS && all_groups[e]; e++) {
        const group *g = all_groups[e];
        PyObject *sigs = PyTuple_New(g->nsigs), *row = NULL;
        for (int i = 0; sigs && i < g->nsigs; i++) {
            const py_sig *sig = g->sigs[i];
            bool numbers = sig->nparams && sig->params[0].numbers_as_tensors;
            PyObject *item = Py_BuildValue("(OOOsO)", sig->source, sig->hidden ? Py_True : Py_False,
                                           sig->deprecated ? Py_True : Py_False,
                                           nt_op_schema(sig->op), numbers ? Py_True : Py_False);
            if (!item)
                Py_CLEAR(sigs);
            else
                PyTuple_SET_ITEM(sigs, i, item);
        }
        if (sigs) row = Py_BuildValue("(ssN)", g->name, kinds[g->mode], sigs);
        if (!row || PyList_Append(list, row) < 0) Py_CLEAR(list);
        Py_XDECREF(row);
    }
    return list;
}

PyMethodDef *nt_py_bindings_methods(void) {
    return method_table;
}

PyObject *nt_py_call_generated(fastcall_fn *fn, const char *name, PyObject *self,
                               PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    for (PyMethodDef *m = method_table; !*fn && m->ml_name; m++)
        if (strcmp(m->ml_name, name) == 0) *fn = (fastcall_fn)(void (*)(void))m->ml_meth;
    return (*fn)(self, args, nargs, kwnames);
}

int py_int_list(const py_sig *sig, const py_param *p, PyObject *o, int64_t *out, int *n,
                int64_t **longer) {
    Py_ssize_t len = 0; /* int_list stays static: convert inlines it */
    PyObject *const *items = items_of(NULL, 0, o, &len);
    return int_list(sig, p, o, items, len, out, n, longer);
}
