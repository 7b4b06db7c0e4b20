/*
 * dims.c — first-class dims in Python (ntensor.dim): the Dim type over nt_fcdim, binding by
 * indexing (t[i, (j, k), :]), Tensor.dims, Tensor.order, Tensor.expand by dims, the printed
 * form of a tensor with dims, and the conversions the argument parser uses where a Dim goes as a
 * dim or a tensor. The semantics are the C library's (src/dims/); this file only converts.
 */
#include "bindings.h"
#include "pyntensor.h"

typedef struct {
    PyObject_HEAD nt_fcdim *d; /* owned */
    PyObject *range;           /* the dim as a Tensor, made on first use, or NULL */
} NtDimObject;

static PyTypeObject NtDim_Type;
PyObject *nt_py_dimension_bind_error;

int nt_py_is_dim(PyObject *o) {
    return PyObject_TypeCheck(o, &NtDim_Type);
}

nt_fcdim *nt_py_fcdim(PyObject *o) {
    return ((NtDimObject *)o)->d;
}

nt_dim nt_py_dim_arg(PyObject *o) {
    return nt_dim_fc(((NtDimObject *)o)->d);
}

/* The Python Dim of d: its object while that lives, else a new one (one dim, one object). */
static PyObject *wrap_dim(nt_fcdim *d) {
    PyObject *h = nt_fcdim_handle(d);
    if (h) return Py_NewRef(h);
    NtDimObject *o = PyObject_New(NtDimObject, &NtDim_Type);
    if (!o) return NULL;
    nt_fcdim_retain(d);
    o->d = d;
    o->range = NULL;
    nt_fcdim_set_handle(d, o);
    return (PyObject *)o;
}

/* The dim as a Tensor (borrowed: kept by the Dim), or NULL with ValueError while unbound. */
PyObject *nt_py_dim_tensor(PyObject *o) {
    NtDimObject *self = (NtDimObject *)o;
    if (self->range) return self->range;
    nt_tensor *t = NULL;
    nt_status st = nt_fcdim_tensor(self->d, &t);
    if (st != NT_OK) return nt_py_raise(st);
    self->range = nt_py_wrap(t);
    return self->range;
}

static void dim_dealloc(PyObject *o) {
    NtDimObject *self = (NtDimObject *)o;
    Py_CLEAR(self->range);
    if (nt_fcdim_handle(self->d) == o) nt_fcdim_set_handle(self->d, NULL);
    nt_fcdim_release(self->d);
    Py_TYPE(o)->tp_free(o);
}

static PyObject *dim_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"name", "size", NULL};
    const char *name = NULL;
    PyObject *size = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|O", kwlist, &name, &size)) return NULL;
    int64_t n = -1;
    if (size != Py_None && nt_py_int64_from_object(size, &n, "size") < 0) return NULL;
    nt_fcdim *d = NULL;
    nt_status st = nt_fcdim_new(name, n, &d);
    if (st != NT_OK) return nt_py_raise(st);
    NtDimObject *o = (NtDimObject *)type->tp_alloc(type, 0);
    if (!o) {
        nt_fcdim_release(d);
        return NULL;
    }
    o->d = d;
    o->range = NULL;
    nt_fcdim_set_handle(d, o);
    return (PyObject *)o;
}

static PyObject *dim_repr(PyObject *o) {
    return PyUnicode_FromString(nt_fcdim_name(((NtDimObject *)o)->d));
}

static PyObject *dim_get_size(PyObject *o, void *closure) {
    int64_t n;
    nt_status st = nt_fcdim_get_size(((NtDimObject *)o)->d, &n);
    return st == NT_OK ? PyLong_FromLongLong(n) : nt_py_raise(st);
}

static int dim_set_size(PyObject *o, PyObject *value, void *closure) {
    int64_t n;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete a Dim's size");
        return -1;
    }
    if (nt_py_int64_from_object(value, &n, "size") < 0) return -1;
    nt_status st = nt_fcdim_set_size(((NtDimObject *)o)->d, n);
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

static PyObject *dim_get_is_bound(PyObject *o, void *closure) {
    return PyBool_FromLong(nt_fcdim_is_bound(((NtDimObject *)o)->d));
}

static PyObject *dim_get_dims(PyObject *o, void *closure) {
    return PyTuple_Pack(1, o);
}

static PyGetSetDef dim_getset[] = {
    {"size", dim_get_size, dim_set_size, "The dim's size (binds once).", NULL},
    {"is_bound", dim_get_is_bound, NULL, "Whether the dim has a size.", NULL},
    {"dims", dim_get_dims, NULL, "(self,): a dim used as a tensor has itself as its dim.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- a Dim used as a tensor: arithmetic and comparisons on its arange ---- */

static PyObject *as_operand(PyObject *o) {
    return nt_py_is_dim(o) ? nt_py_dim_tensor(o) : o;
}

#define DIM_BINARY(NAME, CALL)                                                                     \
    static PyObject *dim_##NAME(PyObject *a, PyObject *b) {                                        \
        PyObject *x = as_operand(a), *y = x ? as_operand(b) : NULL;                                \
        return y ? CALL(x, y) : NULL;                                                              \
    }
DIM_BINARY(add, PyNumber_Add)
DIM_BINARY(sub, PyNumber_Subtract)
DIM_BINARY(mul, PyNumber_Multiply)
DIM_BINARY(truediv, PyNumber_TrueDivide)
DIM_BINARY(floordiv, PyNumber_FloorDivide)
DIM_BINARY(mod, PyNumber_Remainder)
#undef DIM_BINARY

static PyObject *dim_pow(PyObject *a, PyObject *b, PyObject *c) {
    PyObject *x = as_operand(a), *y = x ? as_operand(b) : NULL;
    return y ? PyNumber_Power(x, y, c) : NULL;
}

static PyObject *dim_neg(PyObject *a) {
    PyObject *x = as_operand(a);
    return x ? PyNumber_Negative(x) : NULL;
}

static PyObject *dim_richcompare(PyObject *a, PyObject *b, int op) {
    PyObject *x = as_operand(a), *y = x ? as_operand(b) : NULL;
    return y ? PyObject_RichCompare(x, y, op) : NULL;
}

static Py_hash_t dim_hash(PyObject *o) {
    return _Py_HashPointer(((NtDimObject *)o)->d);
}

static PyObject *dim_getattr(PyObject *o, PyObject *name) {
    PyObject *r = PyObject_GenericGetAttr(o, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    PyErr_Clear(); /* a Tensor attribute: the dim as a tensor's (i.order(i), i.float()) */
    PyObject *t = nt_py_dim_tensor(o);
    return t ? PyObject_GetAttr(t, name) : NULL;
}

static PyNumberMethods dim_number = {
    .nb_add = dim_add,
    .nb_subtract = dim_sub,
    .nb_multiply = dim_mul,
    .nb_true_divide = dim_truediv,
    .nb_floor_divide = dim_floordiv,
    .nb_remainder = dim_mod,
    .nb_power = dim_pow,
    .nb_negative = dim_neg,
};

static PyTypeObject NtDim_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ntensor._C.Dim",
    .tp_basicsize = sizeof(NtDimObject),
    .tp_dealloc = dim_dealloc,
    .tp_repr = dim_repr,
    .tp_hash = dim_hash,
    .tp_getattro = dim_getattr,
    .tp_as_number = &dim_number,
    .tp_richcompare = dim_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Dim(name, size=None): a first-class dimension.",
    .tp_getset = dim_getset,
    .tp_new = dim_new,
};

/* ---- binding by indexing ---- */

static bool is_pack(PyObject *o) {
    if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!nt_py_is_dim(PySequence_Fast_GET_ITEM(o, i))) return false;
    return n > 0;
}

/* A dim expression (a tensor with dims and no positional dims) binds; an index tensor with
 * positional dims too binds beside a dim or a pack, else takes the ordinary path, batched by
 * the dispatcher (t[idx] per element of the dims, as functorch's index tensors). */
static bool has_levels(PyObject *o) {
    return nt_py_is_tensor(o) && nt_tensor_levels(nt_py_tensor(o), NULL) > 0 &&
           nt_tensor_ndim(nt_py_tensor(o)) == 0;
}

int nt_py_index_has_dims(PyObject *index) {
    if (!PyTuple_Check(index)) return nt_py_is_dim(index) || has_levels(index);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(index); i++) {
        PyObject *o = PyTuple_GET_ITEM(index, i);
        if (nt_py_is_dim(o) || is_pack(o) || has_levels(o)) return 1;
    }
    return 0;
}

/* Whether o holds dims: a Dim, a pack, a tensor with levels. */
static bool holds_dims(PyObject *o) {
    return nt_py_is_dim(o) || is_pack(o) ||
           (nt_py_is_tensor(o) && nt_tensor_levels(nt_py_tensor(o), NULL) > 0);
}

int nt_py_setitem_has_dims(PyObject *self, PyObject *index, PyObject *value) {
    if (nt_tensor_levels(nt_py_tensor(self), NULL) || nt_py_is_dim(value) ||
        nt_py_is_delayed(value) ||
        (nt_py_is_tensor(value) && nt_tensor_levels(nt_py_tensor(value), NULL)))
        return 1;
    if (nt_py_is_dim(index) || (nt_py_is_tensor(index) && holds_dims(index))) return 1;
    for (Py_ssize_t i = 0; PyTuple_Check(index) && i < PyTuple_GET_SIZE(index); i++)
        if (holds_dims(PyTuple_GET_ITEM(index, i))) return 1;
    return 0;
}

int nt_py_levels_index_fits(PyObject *self, PyObject *index) {
    const nt_tensor *t = nt_py_tensor(self);
    if (!nt_tensor_levels(t, NULL)) return 0;
    PyObject *one[1] = {index};
    PyObject *const *items = PyTuple_Check(index) ? &PyTuple_GET_ITEM(index, 0) : one;
    Py_ssize_t n = PyTuple_Check(index) ? PyTuple_GET_SIZE(index) : 1, used = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        used += items[i] != Py_None && items[i] != Py_Ellipsis;
    if (used <= nt_tensor_ndim(t)) return 0;
    PyErr_Format(PyExc_ValueError,
                 "at least %zd indices were supplied but the tensor only has %d dimensions", used,
                 nt_tensor_ndim(t));
    return -1;
}

static bool full_slice(PyObject *o) {
    PySliceObject *s = (PySliceObject *)o;
    return PySlice_Check(o) && s->start == Py_None && s->stop == Py_None && s->step == Py_None;
}

/* An index entry that is not a dim, a pack, an int or ':', read as PyTorch's indexing reads
 * it: a list becomes an index tensor, True and False 0-dim bool tensors (which
 * nt_tensor_bind refuses), each a new reference in *owned (else NULL, also on failure). */
static int bind_entry(PyObject *o, nt_bind_spec *s, nt_tensor **owned) {
    nt_index ix;
    if (nt_py_index_entry(o, &ix, owned) < 0) return -1;
    static const nt_bind_kind kinds[] = {
        [NT_INDEX_INT] = NT_BIND_INT,     [NT_INDEX_SLICE] = NT_BIND_SLICE,
        [NT_INDEX_NONE] = NT_BIND_NONE,   [NT_INDEX_ELLIPSIS] = NT_BIND_ELLIPSIS,
        [NT_INDEX_BOOL] = NT_BIND_TENSOR, [NT_INDEX_TENSOR] = NT_BIND_TENSOR,
    };
    s->kind = kinds[ix.kind];
    s->index = ix.i;
    s->start = ix.start;
    s->stop = ix.stop;
    s->step = ix.step;
    s->tensor = (nt_tensor *)ix.tensor;
    if (ix.kind != NT_INDEX_BOOL) return 0;
    nt_tensor *b = NULL;
    nt_status st = nt_full(0, NULL, nt_scalar_bool(ix.i != 0), NT_BOOL, NULL, &b);
    s->tensor = *owned = b;
    return st == NT_OK ? 0 : nt_py_raise_int(st);
}

/* An index read as binding specs: dims, packs, slices, ints, ..., None, index tensors and
 * lists (tensors made from lists and bools owned in owned[0 .. *nowned - 1], to release also
 * on failure). */
typedef struct index_specs {
    int n, npack, nowned;
    nt_bind_spec specs[NT_MAX_DIMS];
    nt_fcdim *packs[NT_MAX_DIMS * 4];
    nt_tensor *owned[NT_MAX_DIMS];
} index_specs;

static void specs_free(index_specs *x) {
    for (int i = 0; i < x->nowned; i++)
        nt_tensor_release(x->owned[i]);
    x->nowned = 0;
}

static int read_specs(PyObject *index, index_specs *x) {
    PyObject *one[1] = {index};
    PyObject *const *items = PyTuple_Check(index) ? &PyTuple_GET_ITEM(index, 0) : one;
    Py_ssize_t n = PyTuple_Check(index) ? PyTuple_GET_SIZE(index) : 1;
    x->n = x->npack = x->nowned = 0;
    if (n > NT_MAX_DIMS) {
        PyErr_SetString(PyExc_IndexError, "too many indices for tensor");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = items[i];
        nt_bind_spec *s = &x->specs[i];
        memset(s, 0, sizeof *s);
        if (nt_py_is_dim(o)) {
            s->kind = NT_BIND_DIM;
            s->dim = ((NtDimObject *)o)->d;
        } else if (is_pack(o)) {
            Py_ssize_t k = PySequence_Fast_GET_SIZE(o);
            if (x->npack + k > NT_MAX_DIMS * 4) {
                PyErr_SetString(PyExc_ValueError, "too many dims in packs");
                return -1;
            }
            s->kind = NT_BIND_PACK;
            s->n = (int)k;
            s->pack = &x->packs[x->npack];
            for (Py_ssize_t j = 0; j < k; j++)
                x->packs[x->npack++] = ((NtDimObject *)PySequence_Fast_GET_ITEM(o, j))->d;
        } else if (full_slice(o)) {
            s->kind = NT_BIND_SLICE;
        } else if (PyLong_Check(o) && !PyBool_Check(o)) {
            s->kind = NT_BIND_INT;
            if (nt_py_int64_from_object(o, &s->index, "index") < 0) return -1;
        } else {
            int rc = bind_entry(o, s, &x->owned[x->nowned]);
            x->nowned += x->owned[x->nowned] != NULL;
            if (rc < 0) return -1;
        }
    }
    x->n = (int)n;
    return 0;
}

/* t[i, k]: an index of n dims only. The view may borrow t's storage and the dims
 * (nt_tensor_bind_borrowing): its object keeps t and the index (a tuple, or the one dim),
 * which hold them, until it has dropped the view. */
static PyObject *bind_dims(PyObject *self, PyObject *index, int n, nt_fcdim *const *dims) {
    nt_tensor *out = NULL;
    nt_status st = nt_tensor_bind_borrowing(nt_py_tensor(self), n, dims, &out);
    NtTensorObject *result = (NtTensorObject *)nt_py_result(st, out);
    if (result && !result->lenders[0]) {
        Py_INCREF(self);
        Py_INCREF(index);
        result->lenders[0] = self;
        result->lenders[1] = index;
    }
    return (PyObject *)result;
}

/* t[index] for an index with dims. */
PyObject *nt_py_dims_getitem(PyObject *self, PyObject *index) {
    PyObject *one[1] = {index};
    PyObject *const *items = PyTuple_Check(index) ? &PyTuple_GET_ITEM(index, 0) : one;
    Py_ssize_t n = PyTuple_Check(index) ? PyTuple_GET_SIZE(index) : 1;
    nt_fcdim *dims[NT_MAX_DIMS];
    int ndims = 0;
    for (; ndims < n && ndims < NT_MAX_DIMS && nt_py_is_dim(items[ndims]); ndims++)
        dims[ndims] = ((NtDimObject *)items[ndims])->d;
    if (ndims == n) return bind_dims(self, index, ndims, dims);
    index_specs x;
    PyObject *result = NULL;
    if (read_specs(index, &x) == 0) {
        nt_tensor *out = NULL;
        nt_status st = nt_tensor_bind(nt_py_tensor(self), x.n, x.specs, &out);
        result = nt_py_result(st, out);
    }
    specs_free(&x);
    return result;
}

/* t[index] = value where the index, t or value has dims (functorch's __setitem__): value a
 * Tensor (or a delayed product, or a Dim: its arange) or a number (t's dtype). */
int nt_py_dims_setitem(PyObject *self, PyObject *index, PyObject *value) {
    nt_tensor *t = nt_py_tensor(self), *v = NULL;
    nt_scalar s;
    if (nt_py_is_dim(value)) {
        if (!nt_fcdim_is_bound(((NtDimObject *)value)->d)) { /* the index may bind it */
            index_specs x;
            nt_tensor *bound = NULL;
            int rc = read_specs(index, &x);
            nt_status st = rc == 0 ? nt_tensor_bind(t, x.n, x.specs, &bound) : NT_OK;
            if (st != NT_OK) rc = nt_py_raise_int(st);
            nt_tensor_release(bound);
            specs_free(&x);
            if (rc < 0) return -1;
        }
        PyObject *r = nt_py_dim_tensor(value);
        if (!r) return -1;
        v = nt_tensor_retain(nt_py_tensor(r));
    } else if (nt_py_is_delayed(value)) {
        PyObject *r = nt_py_delayed_value(value);
        if (!r) return -1;
        v = nt_tensor_retain(nt_py_tensor(r));
    } else if (nt_py_is_tensor(value)) {
        v = nt_tensor_retain(nt_py_tensor(value));
    } else if (nt_py_setitem_scalar(value, t, &s) < 0) {
        return -1;
    }
    index_specs x;
    int rc = read_specs(index, &x);
    if (rc == 0) {
        nt_status st = v ? nt_tensor_bind_set_(t, x.n, x.specs, v)
                         : nt_tensor_bind_set_scalar_(t, x.n, x.specs, s);
        rc = st == NT_OK ? 0 : nt_py_raise_int(st);
    }
    specs_free(&x);
    nt_tensor_release(v);
    return rc;
}

/* ---- Tensor.dims, Tensor.order, the printed form ---- */

/* Tensor.dims: its first-class dims in the order they print (functorch's). */
PyObject *nt_py_get_dims(PyObject *self, void *closure) {
    nt_fcdim *seq[NT_MAX_DIMS];
    int len = nt_tensor_print_order(nt_py_tensor(self), seq);
    int n = nt_tensor_levels(nt_py_tensor(self), NULL);
    PyObject *r = PyTuple_New(n);
    for (int p = 0, i = 0; r && p < len; p++) {
        if (!seq[p]) continue;
        PyObject *d = wrap_dim(seq[p]);
        if (!d) {
            Py_CLEAR(r);
            break;
        }
        PyTuple_SET_ITEM(r, i++, d);
    }
    return r;
}

/* Tensor._levels: functorch.dim's list of levels, the dims and the positional dims (as negative
 * ints, -1 the last) in the order they print. */
PyObject *nt_py_get_levels(PyObject *self, void *closure) {
    nt_fcdim *seq[NT_MAX_DIMS];
    const nt_tensor *t = nt_py_tensor(self);
    int n = nt_tensor_print_order(t, seq), left = nt_tensor_ndim(t);
    PyObject *r = PyTuple_New(n);
    for (int p = 0; r && p < n; p++) {
        PyObject *l = seq[p] ? wrap_dim(seq[p]) : PyLong_FromLong(-left--);
        if (!l) {
            Py_CLEAR(r);
            break;
        }
        PyTuple_SET_ITEM(r, p, l);
    }
    return r;
}

/* One order() argument: a dim, an int, or a tuple/list of them (one group). */
static int order_entry(PyObject *o, nt_dim *out) {
    if (nt_py_is_dim(o)) {
        *out = nt_py_dim_arg(o);
        return 0;
    }
    return nt_py_int64_from_object(o, out, "dim");
}

static PyObject *tensor_order(PyObject *self, PyObject *args) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    int counts[NT_MAX_DIMS];
    nt_dim dims[NT_MAX_DIMS];
    int total = 0;
    if (n > NT_MAX_DIMS) {
        PyErr_SetString(PyExc_ValueError, "order(): too many dims");
        return NULL;
    }
    for (Py_ssize_t g = 0; g < n; g++) {
        PyObject *o = PyTuple_GET_ITEM(args, g);
        if (PyTuple_Check(o) || PyList_Check(o)) {
            Py_ssize_t k = PySequence_Fast_GET_SIZE(o);
            if (k == 0 || total + k > NT_MAX_DIMS) {
                PyErr_SetString(PyExc_ValueError, "order(): a group needs 1 to 64 dims");
                return NULL;
            }
            for (Py_ssize_t j = 0; j < k; j++)
                if (order_entry(PySequence_Fast_GET_ITEM(o, j), &dims[total++]) < 0) return NULL;
            counts[g] = (int)k;
        } else {
            if (total >= NT_MAX_DIMS || order_entry(o, &dims[total++]) < 0) return NULL;
            counts[g] = 1;
        }
    }
    nt_tensor *out = NULL;
    nt_status st = nt_tensor_order(nt_py_tensor(self), (int)n, counts, dims, &out);
    return nt_py_result(st, out);
}

/* functorch.dim's text: the tensor's values in the order its dims print, then
 * "with dims=(0, i) sizes=(3, 4)" (positional dims by their index). */
PyObject *nt_py_dims_repr(PyObject *self) {
    nt_tensor *t = nt_py_tensor(self), *plain = NULL;
    nt_status st = nt_tensor_unlevel(t, &plain);
    if (st != NT_OK) return nt_py_raise(st);
    PyObject *p = nt_py_wrap(plain);
    PyObject *text = p ? PyObject_Repr(p) : NULL;
    Py_XDECREF(p);
    if (!text) return NULL;
    nt_fcdim *seq[NT_MAX_DIMS];
    int n = nt_tensor_print_order(t, seq), next = 0;
    const int64_t *sizes_p = nt_tensor_sizes(t);
    PyObject *parts = PyList_New(0), *sizes = PyList_New(0);
    for (int i = 0; parts && sizes && i < n; i++) {
        int64_t size = seq[i] ? nt_fcdim_size(seq[i]) : sizes_p[next];
        PyObject *s = seq[i] ? PyUnicode_FromString(nt_fcdim_name(seq[i]))
                             : PyUnicode_FromFormat("%d", next++);
        PyObject *z = PyUnicode_FromFormat("%lld", (long long)size);
        if (!s || !z || PyList_Append(parts, s) < 0 || PyList_Append(sizes, z) < 0) Py_CLEAR(parts);
        Py_XDECREF(s);
        Py_XDECREF(z);
    }
    PyObject *r = NULL;
    if (parts && sizes) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *a = sep ? PyUnicode_Join(sep, parts) : NULL;
        PyObject *b = sep ? PyUnicode_Join(sep, sizes) : NULL;
        if (a && b)
            r = PyUnicode_FromFormat("%U\nwith dims=(%U%s) sizes=(%U%s)", text, a,
                                     n == 1 ? "," : "", b, n == 1 ? "," : "");
        Py_XDECREF(sep);
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
    Py_XDECREF(parts);
    Py_XDECREF(sizes);
    Py_DECREF(text);
    return r;
}

int nt_py_refuse_levels(const nt_tensor *t, const char *what) {
    if (!nt_tensor_levels(t, NULL)) return 0;
    PyErr_Format(PyExc_ValueError,
                 "%s: the tensor has first-class dims (ntensor.dim); order() them first", what);
    return -1;
}

/* ---- dims(): the package's entry, in C for its per-call cost ---- */

static PyObject *names_reader; /* ntensor.dim._read_names(frame, n), set by _dims_setup */

/* Decoded call sites: (code, f_lasti, n) -> names tuple, () when unreadable. A small
 * direct-mapped cache keyed by the code object's address (held, so it is not reused) and
 * not by a dict: hashing a code object hashes its constants on every call. */
typedef struct {
    PyObject *code, *names;
    int lasti;
    Py_ssize_t n;
} name_site;
static name_site name_sites[256];

/* The caller's variable names for n dims (n < 0: as many as assigned; a call site is
 * decoded once), or NULL without an error when they cannot be read. */
static PyObject *guess_names(Py_ssize_t n) {
    PyFrameObject *frame = PyEval_GetFrame(); /* borrowed: the caller (a C call has none) */
    if (!frame || !names_reader) return NULL;
    PyCodeObject *code = PyFrame_GetCode(frame);
#if PY_VERSION_HEX >= 0x030B0000
    int lasti = PyFrame_GetLasti(frame);
#else
    PyObject *f_lasti = PyObject_GetAttrString((PyObject *)frame, "f_lasti");
    int lasti = f_lasti ? (int)PyLong_AsLong(f_lasti) : -1;
    Py_XDECREF(f_lasti);
#endif
    size_t h = ((uintptr_t)code >> 4) ^ ((size_t)lasti * 2654435761u) ^ (size_t)n;
    name_site *site = &name_sites[(h ^ (h >> 8)) & 255];
    PyObject *names = NULL;
    if (site->code == (PyObject *)code && site->lasti == lasti && site->n == n) {
        names = Py_NewRef(site->names);
        Py_DECREF(code);
        return names;
    }
    PyObject *count = n < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(n);
    names =
        count ? PyObject_CallFunctionObjArgs(names_reader, (PyObject *)frame, count, NULL) : NULL;
    Py_XDECREF(count);
    if (names && !PyTuple_Check(names)) Py_SETREF(names, PyTuple_New(0));
    if (names) {
        Py_XSETREF(site->code, (PyObject *)code);
        Py_XSETREF(site->names, Py_NewRef(names));
        site->lasti = lasti;
        site->n = n;
    } else {
        Py_DECREF(code);
    }
    PyErr_Clear(); /* never raise: the fallback names d0, d1, ... are fine */
    return names;
}

/* "d<k>" into buf (24 bytes), without snprintf's per-call cost. */
static void fallback_name(char *buf, Py_ssize_t k) {
    char digits[20];
    int n = 0;
    do
        digits[n++] = (char)('0' + k % 10);
    while ((k /= 10) > 0);
    *buf++ = 'd';
    while (n > 0)
        *buf++ = digits[--n];
    *buf = '\0';
}

/* dims(n=None, sizes=None): n new dims (one dim itself), named after the variables they
 * are assigned to, else d0, d1, ...; dims('i j k') names them. */
static PyObject *py_dims(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    PyObject *n = Py_None, *sizes = Py_None, *explicit = NULL, *guessed = NULL, *list = NULL;
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "dims() takes at most 2 arguments (%zd given)", nargs);
        return NULL;
    }
    if (nargs > 0) n = args[0];
    if (nargs > 1) sizes = args[1];
    for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k), *value = args[nargs + k];
        int slot = PyUnicode_CompareWithASCIIString(key, "n") == 0       ? 0
                   : PyUnicode_CompareWithASCIIString(key, "sizes") == 0 ? 1
                                                                         : -1;
        if (slot >= 0 && slot < nargs) {
            PyErr_Format(PyExc_TypeError, "dims() got multiple values for argument '%U'", key);
            return NULL;
        }
        if (slot == 0) {
            n = value;
        } else if (slot == 1) {
            sizes = value;
        } else {
            PyErr_Format(PyExc_TypeError, "dims() got an unexpected keyword argument '%U'", key);
            return NULL;
        }
    }
    if (PyUnicode_Check(n)) { /* explicit names: "i j k" or "i, j, k" */
        PyObject *comma = PyUnicode_FromString(","), *space = PyUnicode_FromString(" ");
        PyObject *text = comma && space ? PyUnicode_Replace(n, comma, space, -1) : NULL;
        explicit = text ? PyUnicode_Split(text, NULL, -1) : NULL;
        Py_XDECREF(comma);
        Py_XDECREF(space);
        Py_XDECREF(text);
        if (!explicit) return NULL;
    }
    if (sizes != Py_None && !(list = PySequence_Fast(sizes, "sizes must be a sequence"))) {
        Py_XDECREF(explicit);
        return NULL;
    }
    Py_ssize_t count = explicit ? PyList_GET_SIZE(explicit) : -1;
    if (count < 0 && n != Py_None) {
        count = PyLong_AsSsize_t(n);
        if (count == -1 && PyErr_Occurred()) goto fail;
    }
    if (list && count >= 0 && count != PySequence_Fast_GET_SIZE(list)) {
        PyErr_Format(PyExc_ValueError, "expected %zd sizes but found %zd sizes", count,
                     PySequence_Fast_GET_SIZE(list));
        goto fail;
    }
    if (list && count < 0) count = PySequence_Fast_GET_SIZE(list);
    PyObject *names = explicit;
    if (!names) {
        guessed = guess_names(count);
        if (guessed && count < 0) count = PyTuple_GET_SIZE(guessed);
        if (guessed && PyTuple_GET_SIZE(guessed) == count) names = guessed;
    }
    if (count < 0) count = 1;
    if (count > 1 << 16) {
        PyErr_SetString(PyExc_ValueError, "dims(): too many dims");
        goto fail;
    }
    PyObject *result = PyTuple_New(count);
    for (Py_ssize_t k = 0; result && k < count; k++) {
        char fallback[24];
        fallback_name(fallback, k);
        const char *name = names ? PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(names, k)) : fallback;
        int64_t size = -1;
        PyObject *s = list ? PySequence_Fast_GET_ITEM(list, k) : Py_None;
        nt_fcdim *d = NULL;
        nt_status st = NT_OK;
        if (!name || (s != Py_None && nt_py_int64_from_object(s, &size, "size") < 0) ||
            (st = nt_fcdim_new(name, size, &d)) != NT_OK) {
            if (st != NT_OK) nt_py_raise(st);
            Py_CLEAR(result);
            break;
        }
        NtDimObject *o = PyObject_New(NtDimObject, &NtDim_Type);
        if (!o) {
            nt_fcdim_release(d);
            Py_CLEAR(result);
            break;
        }
        o->d = d;
        o->range = NULL;
        nt_fcdim_set_handle(d, o);
        PyTuple_SET_ITEM(result, k, (PyObject *)o);
    }
    Py_XDECREF(explicit);
    Py_XDECREF(guessed);
    Py_XDECREF(list);
    if (result && count == 1) {
        PyObject *one = Py_NewRef(PyTuple_GET_ITEM(result, 0));
        Py_DECREF(result);
        return one;
    }
    return result;
fail:
    Py_XDECREF(explicit);
    Py_XDECREF(list);
    return NULL;
}

static PyObject *py_dims_setup(PyObject *module, PyObject *reader) {
    Py_XSETREF(names_reader, Py_NewRef(reader));
    Py_RETURN_NONE;
}

static PyObject *index_hook; /* ntensor.dim._index(t, dims, indices), set by _index_setup */

static PyObject *py_index_setup(PyObject *module, PyObject *fn) {
    Py_XSETREF(index_hook, Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* t.order(*dims)[indices]: dims a dim or an int, a tuple of them (each a group of its own) or a
 * list (one group, flattened); indices one index entry or a tuple of them. */
static PyObject *index_by_order(PyObject *self, PyObject *dims, PyObject *indices) {
    PyObject *groups = PyTuple_Check(dims) ? Py_NewRef(dims) : PyTuple_Pack(1, dims);
    PyObject *ordered = groups ? tensor_order(self, groups) : NULL;
    Py_XDECREF(groups);
    PyObject *r = ordered ? PyObject_GetItem(ordered, indices) : NULL;
    Py_XDECREF(ordered);
    return r;
}

/* t.index(dims, indices), functorch's: ntensor.dim._index once the package has set it (each
 * listed level indexed in its place, as functorch's), else index_by_order. */
static PyObject *tensor_index(PyObject *self, PyObject *args) {
    PyObject *dims, *indices;
    if (!PyArg_ParseTuple(args, "OO:index", &dims, &indices)) return NULL;
    if (index_hook) return PyObject_CallFunctionObjArgs(index_hook, self, dims, indices, NULL);
    return index_by_order(self, dims, indices);
}

static PyObject *py_index_by_order(PyObject *module, PyObject *args) {
    PyObject *t, *dims, *indices;
    if (!PyArg_ParseTuple(args, "O!OO:_index_by_order", &NtTensor_Type, &t, &dims, &indices))
        return NULL;
    return index_by_order(t, dims, indices);
}

/* t.expand(*sizes): functorch.dim's front of the generated method (bindings.c; replaced here,
 * METH_COEXIST). Dims as the only arguments (or one tuple or list of them) are new first-class
 * dims t is repeated along (nt_tensor_expand_dims); anything else is PyTorch's expand. */
static PyObject *tensor_expand(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static fastcall_fn fn;
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    if (nargs == 1 && (PyTuple_Check(args[0]) || PyList_Check(args[0]))) {
        items = PySequence_Fast_ITEMS(args[0]);
        n = PySequence_Fast_GET_SIZE(args[0]);
    }
    bool all_dims = !kwnames && n > 0 && n <= NT_MAX_DIMS;
    for (Py_ssize_t k = 0; all_dims && k < n; k++)
        all_dims = nt_py_is_dim(items[k]);
    if (!all_dims) return nt_py_call_generated(&fn, "expand", self, args, nargs, kwnames);
    nt_fcdim *dims[NT_MAX_DIMS];
    for (Py_ssize_t k = 0; k < n; k++)
        dims[k] = nt_py_fcdim(items[k]);
    nt_tensor *out = NULL;
    nt_status st = nt_tensor_expand_dims(nt_py_tensor(self), (int)n, dims, &out);
    return nt_py_result(st, out);
}

PyMethodDef nt_py_module_dims_functions[] = {
    {"_dims", (PyCFunction)(void (*)(void))py_dims, METH_FASTCALL | METH_KEYWORDS,
     "dims(n=None, sizes=None): new first-class dims"},
    {"_dims_setup", py_dims_setup, METH_O, "the reader of variable names dims() uses"},
    {"_index_setup", py_index_setup, METH_O, "the function Tensor.index calls"},
    {"_index_by_order", py_index_by_order, METH_VARARGS,
     "_index_by_order(t, dims, indices): t.order(*dims)[indices]"},
    {NULL, NULL, 0, NULL},
};

PyMethodDef nt_py_tensor_dims_methods[] = {
    {"expand", (PyCFunction)(void (*)(void))tensor_expand,
     METH_FASTCALL | METH_KEYWORDS | METH_COEXIST,
     "expand(*sizes): a view repeated along new size-one or leading dims; expand(*dims) with "
     "first-class dims: repeated along those new dims"},
    {"order", tensor_order, METH_VARARGS,
     "order(*dims): the dims (tuples flatten) placed first as positional dims"},
    {"index", tensor_index, METH_VARARGS,
     "index(dims, indices): each of the dims indexed in its place (functorch.dim's Tensor.index)"},
    {NULL, NULL, 0, NULL},
};

int nt_py_dims_init(PyObject *module) {
    if (PyType_Ready(&NtDim_Type) < 0) return -1;
    Py_INCREF(&NtDim_Type);
    if (PyModule_AddObject(module, "Dim", (PyObject *)&NtDim_Type) < 0) return -1;
    nt_py_dimension_bind_error =
        PyErr_NewException("ntensor.dim.DimensionBindError", PyExc_Exception, NULL);
    if (!nt_py_dimension_bind_error) return -1;
    Py_INCREF(nt_py_dimension_bind_error);
    return PyModule_AddObject(module, "DimensionBindError", nt_py_dimension_bind_error);
}
