/*
 * signature.c — PyTorch's Python argument parser (see signature.h): signatures parsed once,
 * calls matched against them, and every argument error raised here, with PyTorch 1.13's
 * texts. The algorithm is FunctionSignature::parse and PythonArgParser::raw_parse of
 * python_arg_parser.cpp; the "invalid combination" text is format_invalid_args of
 * invalid_arguments.cpp.
 */
#include "signature.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arglists.h"
#include "generator.h"
#include "interop.h"

/* ------------------------------------------------------------------ types */

static const struct {
    const char *text;
    py_type type;
} type_map[] = {
    {"Tensor", PT_TENSOR},
    {"Scalar", PT_SCALAR},
    {"int64_t", PT_INT64},
    {"SymInt", PT_SYM_INT},
    {"double", PT_DOUBLE},
    {"bool", PT_BOOL},
    {"IntArrayRef", PT_INT_LIST},
    {"SymIntArrayRef", PT_SYM_INT_LIST},
    {"ArrayRef<double>", PT_FLOAT_LIST},
    {"TensorList", PT_TENSOR_LIST},
    {"c10::List<c10::optional<Tensor>>", PT_TENSOR_LIST},
    {"ScalarType", PT_SCALARTYPE},
    {"Layout", PT_LAYOUT},
    {"Device", PT_DEVICE},
    {"Generator", PT_GENERATOR},
    {"MemoryFormat", PT_MEMORY_FORMAT},
    {"std::string", PT_STRING},
    {"c10::string_view", PT_STRING},
    {"Dimname", PT_DIMNAME},
    {"DimnameList", PT_DIMNAME_LIST},
    {"PyObject*", PT_PYOBJECT},
    {"ScalarList", PT_SCALAR_LIST},
    {"Storage", PT_STORAGE},
};

/* The names PyTorch prints for the types, by type. */
static const char *const type_names[] = {
    [PT_TENSOR] = "Tensor",
    [PT_SCALAR] = "Number",
    [PT_INT64] = "int",
    [PT_SYM_INT] = "SymInt",
    [PT_DOUBLE] = "float",
    [PT_BOOL] = "bool",
    [PT_INT_LIST] = "tuple of ints",
    [PT_SYM_INT_LIST] = "tuple of SymInts",
    [PT_FLOAT_LIST] = "tuple of floats",
    [PT_TENSOR_LIST] = "tuple of Tensors",
    [PT_SCALARTYPE] = "torch.dtype",
    [PT_LAYOUT] = "torch.layout",
    [PT_DEVICE] = "torch.device",
    [PT_GENERATOR] = "torch.Generator",
    [PT_MEMORY_FORMAT] = "torch.memory_format",
    [PT_STRING] = "str",
    [PT_DIMNAME] = "name",
    [PT_DIMNAME_LIST] = "tuple of names",
    [PT_PYOBJECT] = "object",
    [PT_SCALAR_LIST] = "tuple of Scalars",
    [PT_STORAGE] = "torch.Storage",
};

const char *py_type_name(py_type t) {
    return type_names[t];
}

/* The functions whose Tensor parameters take Python numbers too (PyTorch's list). */
static bool numbers_as_tensors(const char *name) {
    static const char *const allowed[] = {
        "add",      "add_",         "div",           "div_",         "divide", "divide_",
        "mul",      "mul_",         "multiply",      "multiply_",    "sub",    "sub_",
        "subtract", "subtract_",    "true_divide",   "true_divide_", "to",     "_to_copy",
        "copy_",    "floor_divide", "floor_divide_",
    };
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(allowed[i], name) == 0) return true;
    return false;
}

/* ------------------------------------------------------------------ what an object is */

/* The dtype of a NumPy scalar of a dtype ntensor has, or -1. */
static int numpy_scalar_dtype(PyObject *o) {
    /* the common arguments first: no NumPy lookup for them */
    if (PyLong_Check(o) || PyFloat_Check(o) || PyBool_Check(o) || PyUnicode_Check(o) ||
        o == Py_None || PyTuple_Check(o) || PyList_Check(o) || nt_py_is_tensor(o))
        return -1;
    PyObject *generic = nt_py_numpy_generic_type();
    nt_dtype d;
    if (!generic || !PyObject_TypeCheck(o, (PyTypeObject *)generic)) return -1;
    if (nt_py_numpy_dtype_of(o, &d) == 0) return (int)d;
    PyErr_Clear();
    return -1;
}

static bool is_numpy_scalar(PyObject *o) {
    return numpy_scalar_dtype(o) >= 0;
}

static bool is_numpy_int(PyObject *o) {
    int d = numpy_scalar_dtype(o);
    return d >= 0 && d != NT_BOOL && !nt_dtype_is_floating((nt_dtype)d);
}

/* THPUtils_checkLong: an int (not a bool), or a NumPy integer. */
static bool check_long(PyObject *o) {
    if (PyLong_Check(o)) return !PyBool_Check(o);
    return is_numpy_int(o);
}

/* THPUtils_checkIndex: an int, or anything with __index__ (not a bool). */
static bool check_index(PyObject *o) {
    if (PyBool_Check(o)) return false;
    if (check_long(o)) return true;
    if (nt_py_is_tensor(o) || !PyIndex_Check(o)) return false;
    PyObject *index = PyNumber_Index(o);
    if (!index) {
        PyErr_Clear();
        return false;
    }
    Py_DECREF(index);
    return true;
}

/* THPUtils_checkDouble: a float, an int, or a NumPy scalar. */
static bool check_double(PyObject *o) {
    return PyFloat_Check(o) || PyLong_Check(o) || is_numpy_scalar(o);
}

/* THPUtils_checkScalar. */
static bool check_scalar(PyObject *o) {
    return PyFloat_Check(o) || PyLong_Check(o) || PyComplex_Check(o) || is_numpy_scalar(o);
}

static bool check_dimname(PyObject *o) {
    return o == Py_None || PyUnicode_Check(o);
}

static bool check_dimname_list(PyObject *o) {
    bool tuple = PyTuple_Check(o);
    if (!tuple && !PyList_Check(o)) return false;
    Py_ssize_t n = tuple ? PyTuple_GET_SIZE(o) : PyList_GET_SIZE(o);
    if (n == 0) return true;
    return check_dimname(tuple ? PyTuple_GET_ITEM(o, 0) : PyList_GET_ITEM(o, 0));
}

/* is_int_list: a tuple or list whose first item is an int (empty: yes), or, with a size,
 * one int. */
static bool check_int_list(PyObject *o, int size, bool names) {
    if (PyTuple_Check(o) || PyList_Check(o)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        if (n == 0) return true;
        PyObject *first = PySequence_Fast_GET_ITEM(o, 0);
        return check_index(first) || (names && (PyUnicode_Check(first) || nt_py_is_dim(first)));
    }
    return size > 0 && (check_long(o) || (names && (PyUnicode_Check(o) || nt_py_is_dim(o))));
}

static bool check_tensor_list(PyObject *o) {
    bool tuple = PyTuple_Check(o);
    if (!tuple && !PyList_Check(o)) return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(o, i);
        if (!nt_py_is_tensor(item) && !nt_py_is_delayed(item)) return false;
    }
    return true;
}

static bool check_float_list(PyObject *o) {
    bool tuple = PyTuple_Check(o);
    if (!tuple && !PyList_Check(o)) return false;
    if (PySequence_Fast_GET_SIZE(o) == 0) return true;
    PyObject *first = PySequence_Fast_GET_ITEM(o, 0);
    return check_double(first) || PyComplex_Check(first);
}

/* FunctionParameter::check: whether `o` fits the parameter. */
static bool param_check(const py_param *p, PyObject *o) {
    switch (p->type) {
    case PT_TENSOR:
        if (nt_py_is_tensor(o) || nt_py_is_dim(o) || nt_py_is_delayed(o)) return true;
        return p->numbers_as_tensors && check_scalar(o);
    case PT_SCALAR: /* PyTorch's SCALAR case falls through to COMPLEX and DOUBLE */
        if (check_scalar(o) || PyComplex_Check(o)) return true;
        return check_double(o) || (nt_py_is_tensor(o) && nt_tensor_ndim(nt_py_tensor(o)) == 0);
    case PT_DOUBLE:
        return check_double(o) || (nt_py_is_tensor(o) && nt_tensor_ndim(nt_py_tensor(o)) == 0);
    case PT_INT64:
    case PT_SYM_INT:
        if (check_long(o) || (p->dim_names && (PyUnicode_Check(o) || nt_py_is_dim(o)))) return true;
        if (p->type == PT_SYM_INT && check_index(o)) return true;
        if (nt_py_is_tensor(o)) {
            nt_tensor *t = nt_py_tensor(o);
            nt_dtype d = nt_tensor_dtype(t);
            return nt_tensor_ndim(t) == 0 && d != NT_BOOL && !nt_dtype_is_floating(d);
        }
        return false;
    case PT_DIMNAME:
        return check_dimname(o);
    case PT_DIMNAME_LIST: /* *names may start with its Ellipsis */
        return check_dimname_list(o) || (p->size == 1 && check_dimname(o)) ||
               (p->varargs && PyTuple_GET_SIZE(o) && PyTuple_GET_ITEM(o, 0) == Py_Ellipsis);
    case PT_TENSOR_LIST:
        return check_tensor_list(o);
    case PT_INT_LIST:
    case PT_SYM_INT_LIST:
        return check_int_list(o, p->size, p->dim_names);
    case PT_FLOAT_LIST:
        return check_float_list(o);
    case PT_GENERATOR:
        return PyObject_TypeCheck(o, &NtGenerator_Type);
    case PT_STORAGE: /* no Storage objects */
        return false;
    case PT_BOOL:
        return PyBool_Check(o);
    case PT_PYOBJECT:
        return true;
    case PT_SCALARTYPE:
        return PyObject_TypeCheck(o, &NtDtype_Type) || o == (PyObject *)&PyFloat_Type ||
               o == (PyObject *)&PyLong_Type || o == (PyObject *)&PyBool_Type;
    case PT_LAYOUT:
        return PyObject_TypeCheck(o, &NtLayout_Type); /* ntensor.strided */
    case PT_MEMORY_FORMAT:
        return false;
    case PT_DEVICE:
        return check_long(o) || PyUnicode_Check(o) ||
               PyObject_TypeCheck(o, (PyTypeObject *)nt_py_device_class());
    case PT_STRING:
        return PyUnicode_Check(o);
    case PT_SCALAR_LIST: {
        if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); i++)
            if (!check_scalar(PySequence_Fast_GET_ITEM(o, i))) return false;
        return true;
    }
    }
    return false;
}

/* ------------------------------------------------------------------ parsing signatures */

/* p's default (its text in the signature) as the value of the slot kind it fills (`kind`,
 * an nt_arg_kind; -1 an Operand, which takes a number): a list or a string points into p. */
static void parse_default(py_param *p, const char *text, int kind) {
    if (strcmp(text, "None") == 0) {
        p->allow_none = true;
        return; /* def_arg stays NT_ARG_NONE */
    }
    char *end;
    long long i = strtoll(text, &end, 10);
    double f = strtod(text, NULL);
    int n = 0;
    switch (p->type) {
    case PT_INT64:
    case PT_SYM_INT:
        p->def_arg = kind == NT_ARG_DIM ? nt_arg_dim(i) : nt_arg_int(i);
        break;
    case PT_BOOL:
        p->def_arg = nt_arg_bool(strcmp(text, "True") == 0 || strcmp(text, "true") == 0);
        break;
    case PT_DOUBLE: /* into a Scalar or an Operand slot (normal(mean, std=1)): a number */
        p->def_arg = kind == NT_ARG_SCALAR || kind == -1 ? nt_arg_scalar(nt_scalar_float(f))
                                                         : nt_arg_float(f);
        break;
    case PT_SCALAR:
        p->def_arg =
            nt_arg_scalar(*end == '\0' && end != text ? nt_scalar_int(i) : nt_scalar_float(f));
        break;
    case PT_INT_LIST:
    case PT_SYM_INT_LIST:
        for (const char *q = text + 1; text[0] == '{' && *q && *q != '}' && n < 8; n++) {
            p->def_ints[n] = strtoll(q, &end, 10);
            q = *end == ',' ? end + 1 : end;
        }
        for (; text[0] != '{' && n < p->size && n < 8; n++) /* IntArrayRef[N] v: N times v */
            p->def_ints[n] = i;
        p->def_arg =
            kind == NT_ARG_DIMS ? nt_arg_dims(n, p->def_ints) : nt_arg_ints(n, p->def_ints);
        break;
    case PT_SCALARTYPE:
        p->def_arg = nt_arg_dtype(strcmp(text, "torch.int64") == 0 ? NT_INT64 : -1);
        break;
    case PT_STRING: {
        size_t len = strlen(text);
        if (len >= 2 && (text[0] == '"' || text[0] == '\'')) text++, len -= 2;
        snprintf(p->def_str, sizeof p->def_str, "%.*s", (int)len, text);
        p->def_arg = nt_arg_str(p->def_str);
        break;
    }
    default:
        break;
    }
}

static PyObject *intern(const char *s) {
    return PyUnicode_InternFromString(s);
}

/* NumPy's names for a parameter (python_arg_parser.cpp's numpy_compatibility_arg_names). */
static int set_numpy_names(py_param *p, const char *name) {
    static const struct {
        const char *name, *alias[3];
    } map[] = {
        {"dim", {"axis", NULL, NULL}},
        {"keepdim", {"keepdims", NULL, NULL}},
        {"input", {"x", "a", "x1"}},
        {"other", {"x2", NULL, NULL}},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(map[i].name, name) != 0) continue;
        for (int k = 0; k < 3 && map[i].alias[k]; k++)
            if (!(p->np_names[k] = intern(map[i].alias[k]))) return -1;
    }
    return 0;
}

/* The schema slot named `name` ("input" and "self" are one name), or -1. */
static int find_slot(const nt_sig *schema, const char *name) {
    if (!schema) return -1;
    bool self_like = strcmp(name, "input") == 0 || strcmp(name, "self") == 0;
    for (int i = 0; i < schema->nparams; i++) {
        const char *s = schema->params[i].name;
        if (strcmp(s, name) == 0) return i;
        if (self_like && (strcmp(s, "input") == 0 || strcmp(s, "self") == 0)) return i;
    }
    return -1;
}

/* FunctionSignature::toString: "(Tensor input, *, torch.dtype dtype)". */
static PyObject *sig_text(const py_sig *sig) {
    char buf[1024];
    size_t len = 0;
    bool kw = false;
    len += (size_t)snprintf(buf + len, sizeof buf - len, "(");
    for (int i = 0; i < sig->nparams && len < sizeof buf; i++) {
        const py_param *p = &sig->params[i];
        if (i) len += (size_t)snprintf(buf + len, sizeof buf - len, ", ");
        if (p->keyword_only && !kw) {
            len += (size_t)snprintf(buf + len, sizeof buf - len, "*, ");
            kw = true;
        }
        if (len < sizeof buf)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %s", py_type_name(p->type),
                                    PyUnicode_AsUTF8(p->name));
    }
    if (len < sizeof buf) snprintf(buf + len, sizeof buf - len, ")");
    return PyUnicode_FromString(buf);
}

/* A default as a Python literal that inspect.signature can read: numbers, True/False/None,
 * strings and lists ({0, 1} -> (0, 1)) as written, names PyTorch writes for its own objects
 * (torch.strided, torch.contiguous_format, ...) as None, which means the same here. */
static void py_default(const char *text, char *out, size_t size) {
    char *end;
    if (strcmp(text, "true") == 0 || strcmp(text, "True") == 0) {
        snprintf(out, size, "True");
    } else if (strcmp(text, "false") == 0 || strcmp(text, "False") == 0) {
        snprintf(out, size, "False");
    } else if (text[0] == '"' || text[0] == '\'' || strcmp(text, "None") == 0) {
        snprintf(out, size, "%s", text);
    } else if (text[0] == '{') {
        size_t n = strlen(text);
        snprintf(out, size, "(%.*s%s)", (int)(n > 2 ? n - 2 : 0), text + 1,
                 n > 2 && !strchr(text, ',') ? "," : "");
    } else if ((void)strtod(text, &end), end != text && *end == '\0') {
        snprintf(out, size, "%s", text);
    } else {
        snprintf(out, size, "None");
    }
}

/* The Python form of a parsed signature's parameters, `skip` (the method's self) left out:
 * "input, other, *, alpha=1, out=None"; a varargs list is *name. */
static PyObject *python_params(const nt_sig *parsed, int skip, bool no_out, bool *valid) {
    char buf[1024], def[48];
    size_t len = 0;
    bool star = false, defaults = false;
    *valid = true;
    buf[0] = '\0';
    for (int i = 0; i < parsed->nparams && len < sizeof buf; i++) {
        const nt_param *q = &parsed->params[i];
        if (i == skip || (no_out && strcmp(q->name, "out") == 0)) continue;
        const char *sep = len ? ", " : "";
        if (q->keyword_only && !star) {
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s*", sep);
            sep = ", ";
            star = true;
        }
        static const char *const keywords[] = {"from", "in", "is",  "lambda", "as",  "if",
                                               "and",  "or", "not", "for",    "with"};
        for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
            if (strcmp(q->name, keywords[k]) == 0) *valid = false; /* uniform_(from=0, ...) */
        if (!star && defaults && !q->optional && q->name[0] != '*') *valid = false;
        defaults |= q->optional;
        if (q->name[0] == '*') star = true; /* keyword-only after it without a bare '*' */
        if (len >= sizeof buf) break;
        if (q->optional) py_default(q->default_text, def, sizeof def);
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s%s%s", sep, q->name,
                                q->optional ? "=" : "", q->optional ? def : "");
    }
    return PyUnicode_FromString(buf);
}

int py_sig_init(py_sig *sig, const char *text, size_t len, unsigned form, const char *name,
                nt_op op, const nt_sig *schema) {
    bool method = form & SIG_SELF;
    nt_sig parsed;
    if (nt_sig_parse(text, len, &parsed) != NT_OK) {
        PyErr_Format(PyExc_RuntimeError, "ntensor: bad Python signature: %s", nt_last_error());
        return -1;
    }
    memset(sig, 0, sizeof *sig);
    snprintf(sig->name, sizeof sig->name, "%s", name ? name : parsed.name);
    sig->op = op;
    sig->deprecated = parsed.deprecated;
    sig->hidden = parsed.hidden;
    sig->extension = parsed.extension;
    sig->out_param = -1;
    sig->self_slot = -1;
    bool allow_numbers = numbers_as_tensors(sig->name);
    /* a method drops the function's tensor `input`: first, or after beta in PyTorch's
     * deprecated overloads ("addmm(Scalar beta, Tensor input, Tensor mat1, ...)") */
    int self_param = -1;
    for (int i = 0; method && i < parsed.nparams && i < 2; i++)
        if ((i == 0 || strcmp(parsed.params[0].type, "Scalar") == 0) &&
            strcmp(parsed.params[i].type, "Tensor") == 0 &&
            (strcmp(parsed.params[i].name, "input") == 0 ||
             strcmp(parsed.params[i].name, "self") == 0)) {
            sig->self_slot = find_slot(schema, parsed.params[i].name);
            self_param = i;
            break;
        }
    for (int i = 0; i < parsed.nparams; i++) {
        if (i == self_param) continue;
        const nt_param *q = &parsed.params[i];
        if ((form & SIG_NO_OUT) && strcmp(q->name, "out") == 0) continue;
        py_param *p = &sig->params[sig->nparams];
        size_t t = 0;
        for (; t < sizeof type_map / sizeof type_map[0]; t++)
            if (strcmp(type_map[t].text, q->type) == 0) break;
        if (t == sizeof type_map / sizeof type_map[0]) {
            PyErr_Format(PyExc_RuntimeError, "ntensor: unknown type %s in %.*s", q->type, (int)len,
                         text);
            return -1;
        }
        p->type = type_map[t].type;
        p->size = q->size;
        p->allow_none = q->allow_none;
        p->keyword_only = q->keyword_only;
        p->numbers_as_tensors = allow_numbers;
        p->varargs = q->name[0] == '*';
        const char *pname = q->name + p->varargs;
        if (!(p->name = intern(pname)) || set_numpy_names(p, pname) < 0) return -1;
        if (!(p->cname = PyUnicode_AsUTF8(p->name))) return -1;
        p->slot = find_slot(schema, pname);
        p->optional = q->optional;
        if (q->optional)
            parse_default(p, q->default_text,
                          p->slot < 0 ? NT_ARG_NONE
                          : strcmp(schema->params[p->slot].type, "Operand") == 0
                              ? -1
                              : nt_sig_kind_of(schema->params[p->slot].type));
        p->dim_names = p->slot >= 0 && (p->type == PT_INT64 || p->type == PT_INT_LIST) &&
                       (strcmp(schema->params[p->slot].type, "Dim") == 0 ||
                        strcmp(schema->params[p->slot].type, "Dim[]") == 0);
        if (strcmp(q->name, "out") == 0) sig->out_param = sig->nparams;
        if (!p->optional && !p->varargs) sig->min_args++;
        if (!p->keyword_only) sig->max_pos_args++;
        sig->nparams++;
    }
    sig->text = sig_text(sig);
    sig->py_text =
        sig->text ? python_params(&parsed, self_param, form & SIG_NO_OUT, &sig->py_valid) : NULL;
    sig->source = sig->py_text ? PyUnicode_FromStringAndSize(text, (Py_ssize_t)len) : NULL;
    return sig->source ? 0 : -1;
}

/* ------------------------------------------------------------------ errors */

static void extra_args(const py_sig *sig, Py_ssize_t nargs) {
    if (sig->min_args != sig->max_pos_args)
        PyErr_Format(PyExc_TypeError,
                     "%s() takes from %d to %d positional arguments but %zd were given", sig->name,
                     sig->min_args, sig->max_pos_args, nargs);
    else
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given",
                     sig->name, sig->max_pos_args, sig->max_pos_args == 1 ? "" : "s", nargs,
                     nargs == 1 ? "was" : "were");
}

/* PyTorch 1.13's text, with its plural the wrong way round ("missing 1 required positional
 * arguments"). */
static void missing_args(const py_sig *sig, int idx) {
    char list[512] = "";
    size_t len = 0;
    int missing = 0;
    for (int i = idx; i < sig->nparams && len < sizeof list; i++) {
        if (sig->params[i].optional) continue;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s\"%s\"", missing ? ", " : "",
                                PyUnicode_AsUTF8(sig->params[i].name));
        missing++;
    }
    PyErr_Format(PyExc_TypeError, "%s() missing %d required positional argument%s: %s", sig->name,
                 missing, missing == 1 ? "s" : "", list);
}

static int find_param(const py_sig *sig, PyObject *key) {
    for (int i = 0; i < sig->nparams; i++) {
        if (sig->params[i].varargs) continue; /* *names takes no keyword */
        int eq = PyObject_RichCompareBool(key, sig->params[i].name, Py_EQ);
        if (eq < 0) return -2;
        if (eq) return i;
    }
    return -1;
}

static void extra_kwargs(const py_sig *sig, PyObject *kwnames, Py_ssize_t nargs) {
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int idx = find_param(sig, key);
        if (idx == -2) return;
        if (idx < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", sig->name,
                         key);
            return;
        }
        if (idx < nargs) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", sig->name,
                         key);
            return;
        }
    }
    PyErr_SetString(PyExc_TypeError, "invalid keyword arguments");
}

/* ------------------------------------------------------------------ matching one signature */

/* PyTorch's TensorList check raises at once, whichever overload is tried: "expected Tensor
 * as element 1 in argument 0, but got int". */
static int tensor_list_item_error(PyObject *o, int argnum) {
    if (!PyTuple_Check(o) && !PyList_Check(o)) return 0;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(o); k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(o, k);
        if (!nt_py_is_tensor(item) && !nt_py_is_delayed(item)) {
            PyErr_Format(PyExc_TypeError,
                         "expected Tensor as element %zd in argument %d, but got %s", k, argnum,
                         Py_TYPE(item)->tp_name);
            return -1;
        }
    }
    return 0;
}

/* The value of keyword `name` (or one of its NumPy names) among the call's keywords. */
static PyObject *keyword(const py_param *p, PyObject *const *kwvals, PyObject *kwnames) {
    if (!kwnames) return NULL;
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (int alias = -1; alias < 3; alias++) {
        PyObject *want = alias < 0 ? p->name : p->np_names[alias];
        if (!want) break;
        for (Py_ssize_t k = 0; k < nkw; k++) /* interned: identity first */
            if (PyTuple_GET_ITEM(kwnames, k) == want) return kwvals[k];
        for (Py_ssize_t k = 0; k < nkw; k++)
            if (PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, k), want) == 0) return kwvals[k];
    }
    return NULL;
}

/* FunctionSignature::parse. vals[i] receives the object of parameter i (NULL: absent or
 * None); a varargs int list is passed as the tuple of all positional arguments. Returns 1
 * (match), 0 (no match, nothing raised) or -1 (raised, when `raise`). */
static int bind(const py_sig *sig, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                PyObject **vals, PyObject **varargs, bool raise) {
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *const *kwvals = args + nargs;
    Py_ssize_t remaining = nkw, pos = 0;
    bool varargs_ok =
        sig->max_pos_args == 1 && sig->nparams > 0 &&
        (sig->params[0].type == PT_INT_LIST || sig->params[0].type == PT_SYM_INT_LIST);
    if (nargs > sig->max_pos_args && !varargs_ok && !sig->params[0].varargs) {
        if (raise) extra_args(sig, nargs);
        return raise ? -1 : 0;
    }
    for (int i = 0; i < sig->nparams; i++) {
        const py_param *p = &sig->params[i];
        PyObject *obj = NULL;
        bool is_kw = false;
        if (p->varargs) { /* *names: every positional argument, as one tuple */
            if (!(obj = nt_py_tuple_of(args, nargs))) return -1;
            Py_XSETREF(*varargs, obj);
        } else if (pos < nargs) {
            if (p->keyword_only) {
                if (raise) extra_args(sig, nargs);
                return raise ? -1 : 0;
            }
            obj = args[pos];
        } else if (nkw) {
            obj = keyword(p, kwvals, kwnames);
            is_kw = true;
        }
        if (obj && p->type == PT_TENSOR_LIST && tensor_list_item_error(obj, i) < 0) return -1;
        if ((!obj && p->optional) || (obj == Py_None && p->allow_none)) {
            vals[i] = NULL;
        } else if (!obj) {
            if (raise) missing_args(sig, i);
            return raise ? -1 : 0;
        } else if (param_check(p, obj)) {
            vals[i] = obj;
        } else if (varargs_ok && pos == 0 && !is_kw &&
                   (check_index(obj) || (p->dim_names && PyUnicode_Check(obj)))) {
            /* permute(1, 2, 3) is permute((1, 2, 3)): every positional argument */
            PyObject *tuple = nt_py_tuple_of(args, nargs);
            if (!tuple) return -1;
            Py_XSETREF(*varargs, tuple);
            vals[i] = tuple;
            pos = nargs;
            continue;
        } else {
            if (raise) {
                if (is_kw)
                    PyErr_Format(PyExc_TypeError, "%s(): argument '%U' must be %s, not %s",
                                 sig->name, p->name, py_type_name(p->type), nt_py_type_name(obj));
                else
                    PyErr_Format(PyExc_TypeError,
                                 "%s(): argument '%U' (position %zd) must be %s, not %s", sig->name,
                                 p->name, pos + 1, py_type_name(p->type), nt_py_type_name(obj));
            }
            return raise ? -1 : 0;
        }
        if (p->varargs)
            pos = nargs;
        else if (!is_kw)
            pos++;
        else if (obj)
            remaining--;
    }
    if (remaining > 0) {
        if (raise) extra_kwargs(sig, kwnames, nargs);
        return raise ? -1 : 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ invalid combinations */

/* invalid_arguments.cpp's matching of an argument against a type name: the argument's
 * tp_name must be the name (int and long for int; float, int and long for float). A
 * "tuple of ..." never matches. */
static bool type_matches(const char *type, PyObject *o) {
    const char *have = nt_py_type_name(o);
    if (strcmp(type, "float") == 0)
        return strcmp(have, "float") == 0 || strcmp(have, "int") == 0 || strcmp(have, "long") == 0;
    if (strcmp(type, "int") == 0) return strcmp(have, "int") == 0 || strcmp(have, "long") == 0;
    return strcmp(type, have) == 0;
}

typedef struct text_buf {
    char s[4096];
    size_t n;
} text_buf;

static void put(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text_buf *b, const char *fmt, ...) {
    if (b->n >= sizeof b->s) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    if (w > 0) b->n += (size_t)w;
    if (b->n > sizeof b->s) b->n = sizeof b->s;
}

/* _argDesc: "(int, str, dim=float)", keywords in the call's order; keywords alone keep
 * PyTorch's trailing ", " (it trims the last separator only when there are positionals). */
static void put_args(text_buf *b, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    put(b, "(");
    for (Py_ssize_t i = 0; i < nargs; i++)
        put(b, "%s%s", i ? ", " : "", nt_py_type_name(args[i]));
    for (Py_ssize_t k = 0; k < nkw; k++)
        put(b, "%s%s=%s", nargs || k ? ", " : "", PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k)),
            nt_py_type_name(args[nargs + k]));
    put(b, nargs == 0 && nkw ? ", )" : ")");
}

/* invalid_arguments.cpp parses each signature's text back into arguments, and takes the
 * "*" that marks keyword-only parameters for an argument of its own (named "*"): an
 * option's arguments are its parameters with that marker among them. */
typedef struct option_arg {
    const char *name, *type;
} option_arg;

static int option_args(const py_sig *sig, option_arg *out) {
    int n = 0;
    if (sig->nparams == 0) { /* "()" splits into one empty argument, which nothing matches */
        out[0] = (option_arg){"", ""};
        return 1;
    }
    bool star = false;
    for (int i = 0; i < sig->nparams; i++) {
        if (sig->params[i].keyword_only && !star) {
            out[n++] = (option_arg){"*", "*"};
            star = true;
        }
        out[n++] =
            (option_arg){PyUnicode_AsUTF8(sig->params[i].name), py_type_name(sig->params[i].type)};
    }
    return n;
}

/* Whether the call's argument count fits the option (_argcountMatch; its allowance for an
 * absent out= applies only to texts marked with '#', which toString never writes). */
static bool count_matches(const py_sig *sig, Py_ssize_t nargs, PyObject *kwnames) {
    option_arg opt[2 * NT_SIG_MAX_PARAMS];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    return nargs + nkw == option_args(sig, opt);
}

/* _formattedArgDesc: the arguments with the ones the option rejects between '!'. The
 * argument at position i is checked against the option's argument i, and a keyword at
 * position i is looked up by that argument's name. */
static void put_marked(text_buf *b, const py_sig *sig, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames) {
    option_arg opt[2 * NT_SIG_MAX_PARAMS];
    int nopt = option_args(sig, opt);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    put(b, "(");
    for (Py_ssize_t i = 0; i < nargs + nkw; i++) {
        const option_arg *a = i < nopt ? &opt[i] : NULL;
        PyObject *o = i < nargs ? args[i] : NULL;
        for (Py_ssize_t k = 0; !o && a && k < nkw; k++)
            if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), a->name) == 0)
                o = args[nargs + k];
        if (!o) o = args[i]; /* PyTorch's lookup would fail here; show the argument given */
        bool ok = a && type_matches(a->type, o);
        put(b, "%s%s", i ? ", " : "", ok ? "" : "!");
        if (i >= nargs && a) put(b, "%s=", a->name);
        put(b, "%s", nt_py_type_name(o));
        put(b, "%s", ok ? "" : "!");
    }
    put(b, ")");
}

/* _tryMatchKwargs: the call's keywords the option has no argument for among its last nkw
 * ones. Writes them joined by ", " and returns how many. */
static int put_unmatched_kwargs(text_buf *b, const py_sig *sig, PyObject *kwnames) {
    option_arg opt[2 * NT_SIG_MAX_PARAMS];
    int nopt = option_args(sig, opt);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t start = nopt - nkw;
    if (start < 0) start = 0;
    int count = 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        bool found = false;
        for (Py_ssize_t i = start; i < nopt; i++)
            if (PyUnicode_CompareWithASCIIString(key, opt[i].name) == 0) found = true;
        if (!found) put(b, "%s%s", count++ ? ", " : "", PyUnicode_AsUTF8(key));
    }
    return count;
}

/* format_invalid_args over the visible signatures. */
static void invalid_combination(py_sig *const *sigs, int n, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    text_buf *b = PyMem_Malloc(sizeof *b);
    if (!b) {
        PyErr_NoMemory();
        return;
    }
    b->n = 0;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    const py_sig *visible[64];
    int nv = 0;
    for (int i = 0; i < n && nv < 64; i++)
        if (!sigs[i]->hidden) visible[nv++] = sigs[i];
    put(b, "%s() received an invalid combination of arguments - ", sigs[0]->name);
    if (nv == 1) {
        const py_sig *sig = visible[0];
        text_buf kw = {.n = 0};
        if (nkw && put_unmatched_kwargs(&kw, sig, kwnames) > 0) {
            put(b, "got unrecognized keyword arguments: %s", kw.s);
        } else {
            put(b, "got ");
            if (count_matches(sig, nargs, kwnames))
                put_marked(b, sig, args, nargs, kwnames);
            else
                put_args(b, args, nargs, kwnames);
            put(b, ", but expected %s", PyUnicode_AsUTF8(sig->text));
        }
    } else {
        put(b, "got ");
        put_args(b, args, nargs, kwnames);
        put(b, ", but expected one of:\n");
        for (int i = 0; i < nv; i++) {
            const py_sig *sig = visible[i];
            put(b, " * %s\n", PyUnicode_AsUTF8(sig->text));
            if (!count_matches(sig, nargs, kwnames)) continue;
            text_buf kw = {.n = 0};
            if (nkw && put_unmatched_kwargs(&kw, sig, kwnames) > 0) {
                put(b, "      didn't match because some of the keywords were incorrect: %s\n",
                    kw.s);
            } else {
                put(b, "      didn't match because some of the arguments have invalid types: ");
                put_marked(b, sig, args, nargs, kwnames);
                put(b, "\n");
            }
        }
    }
    PyErr_SetString(PyExc_TypeError, b->s);
    PyMem_Free(b);
}

/* ------------------------------------------------------------------ matching overloads */

/* Whether a bound overload takes a first-class dim where a Tensor goes (the dim as its
 * arange). */
static bool dim_as_tensor(const py_sig *sig, PyObject *const *vals) {
    for (int i = 0; i < sig->nparams; i++)
        if (sig->params[i].type == PT_TENSOR && vals[i] && nt_py_is_dim(vals[i])) return true;
    return false;
}

int py_sigs_bind(py_sig *const *sigs, int n, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames, PyObject **vals, PyObject **owned) {
    PyObject *varargs = NULL;
    int rc;
    *owned = NULL;
    if (n == 1) {
        rc = bind(sigs[0], args, nargs, kwnames, vals, &varargs, true);
        if (rc == 1) {
            *owned = varargs;
            return 0;
        }
        Py_XDECREF(varargs);
        return -1;
    }
    /* A first-class dim fits a Tensor (its arange) and a dim slot: an overload that takes it
     * as a dim wins over an earlier one that takes it as a tensor (x.max(i) reduces over i,
     * as functorch.dim's wrapped methods do, not max(other)); the first such overload stands
     * when none takes it as a dim. */
    int as_tensor = -1;
    for (int i = 0; i < n; i++) {
        rc = bind(sigs[i], args, nargs, kwnames, vals, &varargs, false);
        if (rc < 0) {
            Py_XDECREF(varargs);
            return -1;
        }
        if (rc == 1 && as_tensor < 0 && dim_as_tensor(sigs[i], vals)) {
            as_tensor = i;
            Py_CLEAR(varargs);
            continue;
        }
        if (rc == 1) {
            *owned = varargs;
            return i;
        }
    }
    Py_XDECREF(varargs);
    varargs = NULL;
    if (as_tensor >= 0) {
        rc = bind(sigs[as_tensor], args, nargs, kwnames, vals, &varargs, true);
        if (rc == 1) {
            *owned = varargs;
            return as_tensor;
        }
        Py_XDECREF(varargs);
        return -1;
    }
    /* PyTorch's only signature (the others ntensor's extensions) raises its own error */
    int ntorch = 0, only = -1;
    for (int i = 0; i < n; i++)
        if (!sigs[i]->extension) ntorch++, only = i;
    if (ntorch == 1) {
        varargs = NULL;
        rc = bind(sigs[only], args, nargs, kwnames, vals, &varargs, true);
        Py_XDECREF(varargs);
        if (rc <= 0) return -1;
    }
    /* PythonArgParser::print_error: the one plausible overload raises its own error */
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0, total = nargs + nkw;
    int plausible = -1, count = 0;
    for (int i = 0; i < n; i++)
        if (total >= sigs[i]->min_args && total <= sigs[i]->nparams && !sigs[i]->hidden) {
            plausible = i;
            count++;
        }
    if (count == 1) {
        varargs = NULL;
        rc = bind(sigs[plausible], args, nargs, kwnames, vals, &varargs, true);
        Py_XDECREF(varargs);
        if (rc < 0) return -1;
    }
    invalid_combination(sigs, n, args, nargs, kwnames);
    return -1;
}

/* A tuple or list whose items are all of one kind (param_check reads its first item, or all
 * of them for tensor and number lists): 9 empty, 10 ints, 11 str, 12 tensors, 13 floats. */
static uint32_t seq_code(PyObject *o) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject **items = PySequence_Fast_ITEMS(o);
    if (n == 0) return 9;
    PyTypeObject *type = Py_TYPE(items[0]);
    uint32_t code = type == &PyLong_Type        ? 10
                    : type == &PyUnicode_Type   ? 11
                    : nt_py_is_tensor(items[0]) ? 12
                    : type == &PyFloat_Type     ? 13
                                                : 0;
    for (Py_ssize_t k = 1; code && k < n; k++)
        if (code == 12 ? !nt_py_is_tensor(items[k]) : Py_TYPE(items[k]) != type) code = 0;
    return code;
}

/* What decides whether an argument fits a parameter, for the arguments whose type alone does
 * (param_check): 1 a tensor (2, 3: a 0-dim one of an integer dtype or not), 4 str, 5 int,
 * 6 float, 7 bool, 8 None, 9-13 a sequence (seq_code); 0 anything else (a NumPy scalar, an
 * int subclass, a mixed list). */
static uint32_t arg_code(PyObject *o) {
    if (PyUnicode_CheckExact(o)) return 4; /* the exact types first: no walk of a type's bases */
    if (PyLong_CheckExact(o)) return 5;
    if (PyFloat_CheckExact(o)) return 6;
    if (PyBool_Check(o)) return 7;
    if (o == Py_None) return 8;
    if (PyTuple_CheckExact(o) || PyList_CheckExact(o)) return seq_code(o);
    if (!nt_py_is_tensor(o)) return 0;
    nt_tensor *t = nt_py_tensor(o);
    nt_dtype d = nt_tensor_dtype(t);
    return nt_tensor_ndim(t) ? 1 : d != NT_BOOL && !nt_dtype_is_floating(d) ? 2 : 3;
}

uint32_t py_args_key(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (kwnames || nargs > 6) return 0;
    uint32_t key = (uint32_t)nargs + 1;
    for (Py_ssize_t k = 0; k < nargs; k++) {
        uint32_t code = arg_code(args[k]);
        if (!code) return 0;
        key |= code << (3 + 4 * k);
    }
    return key;
}

int py_sig_bind_known(const py_sig *sig, PyObject *const *args, Py_ssize_t nargs, bool pack,
                      PyObject **vals) {
    if (pack) { /* the caller reads the arguments as parameter 0's items */
        vals[0] = args[0];
        return 1;
    }
    for (int i = 0; i < nargs; i++) /* bind's outcome: positional i is parameter i */
        vals[i] = args[i] != Py_None || !sig->params[i].allow_none ? args[i] : NULL;
    return (int)nargs;
}

int py_sigs_bind_texts(py_sig *sigs, int n, const char *const *texts, PyObject *const *args,
                       Py_ssize_t nargs, PyObject *kwnames, PyObject **vals, PyObject **owned) {
    py_sig *list[8];
    for (int i = 0; i < n && i < 8; i++) { /* no op, no schema: the entry converts by hand */
        if (!sigs[i].text &&
            py_sig_init(&sigs[i], texts[i], strlen(texts[i]), 0, NULL, (nt_op)0, NULL) < 0)
            return -1;
        list[i] = &sigs[i];
    }
    return py_sigs_bind(list, n < 8 ? n : 8, args, nargs, kwnames, vals, owned);
}
