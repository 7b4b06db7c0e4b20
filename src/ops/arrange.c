/*
 * arrange.c — ops that rearrange a tensor's elements or keep part of them (layer L4): flip,
 * roll, repeat, tile, repeat_interleave, triu, tril, outer, diag, diag_embed, one_hot, and the
 * T / mT views (docs/decisions_ops_everyday.md).
 *
 * flip is a copy through a view with the flipped dims' strides negated (one strided copy,
 * run by the iterator's threads); triu / tril copy the input and zero each row's dropped part
 * (memset on contiguous rows, threads over rows). Both have backward formulas of their own.
 * The others are written with public ops: roll is two narrows joined by cat per dim, repeat
 * an expand of a view with a size-one dim before each dim, reshaped, outer a broadcast
 * product. Autograd records them as those ops (their rows in derivatives.c are composite),
 * so their gradients are the ops' own; diag_embed (zeros with the input copied onto a diagonal
 * view) has its formula, the gradient's diagonal.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "core/storage.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "factory_call.h"
#include "names/names.h"
#include "op_table.h"
#include "out.h"

nt_status nt_out_deliver(nt_call *c, nt_tensor *r) {
    nt_tensor *out = c->out[0];
    if (!out) {
        c->result[0] = r;
        return NT_OK;
    }
    nt_status st = nt_out_resize(out, r->ndim, r->sizes);
    if (st == NT_OK) st = nt_copy_values(out, r);
    nt_tensor_release(r);
    if (st == NT_OK) c->result[0] = nt_tensor_retain(out);
    return st;
}

/* dims (indices or names) of t as a bit mask, each once ("dim 0 appears multiple times in
 * the list of dims") */
static nt_status dim_mask(const nt_tensor *t, int count, const nt_dim *dims, uint64_t *mask) {
    *mask = 0;
    for (int i = 0; i < count; i++) {
        int64_t d;
        NT_TRY(nt_tensor_dim(t, dims[i], &d));
        if (*mask >> d & 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "dim %" PRId64 " appears multiple times in the list of dims", d);
        *mask |= 1ull << d;
    }
    return NT_OK;
}

/* ------------------------------------------------------------------ flip */

nt_status nt_impl_flip(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *v = NULL, *r = NULL;
    uint64_t mask;
    NT_TRY(dim_mask(t, c->args[1].n, c->args[1].v.dims, &mask));
    int64_t strides[NT_MAX_DIMS], offset = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        strides[d] = t->strides[d];
        if ((mask >> d & 1) && t->sizes[d] > 1) {
            offset += (t->sizes[d] - 1) * t->strides[d];
            strides[d] = -t->strides[d];
        }
    }
    nt_status st = nt_tensor_view_of(t, t->ndim, t->sizes, strides, offset, t->names, &v);
    if (st == NT_OK) st = nt_tensor_alloc(t->dtype, t->ndim, t->sizes, t->names, &r);
    if (st == NT_OK) st = nt_copy_values(r, v);
    nt_tensor_release(v);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    c->result[0] = r;
    return NT_OK;
}

/* ------------------------------------------------------------------ roll */

/* t rolled by `shift` along dim d: its last `shift` entries first */
static nt_status roll_dim(nt_tensor *t, int64_t d, int64_t shift, nt_tensor **out) {
    int64_t size = t->sizes[d];
    int64_t s = size > 0 ? ((shift % size) + size) % size : 0;
    if (s == 0) return nt_clone(t, out);
    nt_tensor *parts[2] = {NULL, NULL};
    nt_status st = nt_narrow(t, d, size - s, s, &parts[0]);
    if (st == NT_OK) st = nt_narrow(t, d, 0, size - s, &parts[1]);
    if (st == NT_OK) st = nt_cat(2, parts, d, NULL, out);
    nt_tensor_release(parts[0]);
    nt_tensor_release(parts[1]);
    return st;
}

static nt_status roll(nt_tensor *t, int nshifts, const int64_t *shifts, int ndims,
                      const nt_dim *dims, nt_tensor **out) {
    if (ndims == 0 && nshifts == 1) { /* the flattened tensor, rolled, then shaped back */
        int64_t n = t->numel;
        nt_tensor *plain = NULL, *flat = NULL, *rolled = NULL, *shaped = NULL;
        nt_status st = nt_rename(t, NULL, &plain); /* reshape keeps no names */
        if (st == NT_OK) st = nt_reshape(plain, 1, &n, &flat);
        if (st == NT_OK) st = roll_dim(flat, 0, shifts[0], &rolled);
        if (st == NT_OK) st = nt_reshape(rolled, t->ndim, t->sizes, &shaped);
        if (st == NT_OK && t->names)
            st = nt_rename(shaped, t->names, out);
        else if (st == NT_OK)
            *out = nt_tensor_retain(shaped);
        nt_tensor_release(plain);
        nt_tensor_release(flat);
        nt_tensor_release(rolled);
        nt_tensor_release(shaped);
        return st;
    }
    if (nshifts != ndims || ndims == 0)
        return nt_fail(NT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d",
                       nshifts, ndims);
    if (t->ndim == 0) { /* PyTorch wraps no dim of a scalar here, -1 and 0 included */
        int64_t d;
        if (nt_dim_is_name(dims[0])) NT_TRY(nt_tensor_dim(t, dims[0], &d));
        return nt_fail(NT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                       (long long)dims[0]);
    }
    nt_tensor *cur = nt_tensor_retain(t);
    for (int i = 0; i < ndims; i++) {
        int64_t d;
        nt_tensor *next = NULL;
        nt_status st = nt_tensor_dim(t, dims[i], &d);
        if (st == NT_OK) st = roll_dim(cur, d, shifts[i], &next);
        nt_tensor_release(cur);
        if (st != NT_OK) return st;
        cur = next;
    }
    *out = cur;
    return NT_OK;
}

nt_status nt_impl_roll(nt_call *c) {
    const nt_arg *s = &c->args[1], *d = &c->args[2];
    int ndims = d->kind == NT_ARG_DIMS ? d->n : 0;
    return roll(nt_call_tensor(c, 0), s->n, s->v.ints, ndims, ndims ? d->v.dims : NULL,
                &c->result[0]);
}

/* ------------------------------------------------------------------ repeat, tile */

/* The counts of a repeat (tile: padded with leading ones to t's ndim) into reps[*n] */
static nt_status repeat_counts(const nt_call *c, const nt_tensor *t, int64_t *reps, int *n) {
    const nt_arg *a = &c->args[1];
    int lead = c->op == NT_OP_TILE && a->n < t->ndim ? t->ndim - a->n : 0;
    *n = a->n + lead;
    if (*n < t->ndim)
        return nt_fail(NT_ERR_RUNTIME, "Number of dimensions of repeat dims can not be smaller "
                                       "than number of dimensions of tensor");
    if (2 * *n > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "repeat: %d counts, at most %d are supported", *n,
                       NT_MAX_DIMS / 2);
    int64_t sizes[NT_MAX_DIMS];
    for (int i = 0; i < *n; i++) {
        reps[i] = i < lead ? 1 : a->v.ints[i - lead];
        sizes[i] = reps[i] * (i < *n - t->ndim ? 1 : t->sizes[i - (*n - t->ndim)]);
    }
    for (int i = 0; i < *n; i++)
        if (sizes[i] < 0) {
            char text[512];
            nt_ints_repr(sizes, *n, text, sizeof text);
            return nt_fail(NT_ERR_RUNTIME,
                           "Trying to create tensor with negative dimension %" PRId64 ": %s",
                           sizes[i], text);
        }
    return NT_OK;
}

nt_status nt_shape_repeat(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    int64_t reps[NT_MAX_DIMS];
    int n;
    NT_TRY(repeat_counts(c, t, reps, &n));
    s->ndim = n;
    for (int i = 0; i < n; i++)
        s->sizes[i] = reps[i] * (i < n - t->ndim ? 1 : t->sizes[i - (n - t->ndim)]);
    return NT_OK;
}

/* t seen as (1, x0, 1, x1, ...) with the leading ones padded, expanded to (r0, x0, r1, x1,
 * ...), reshaped (a copy) to (r0 x0, r1 x1, ...); names: t's, the new leading dims None */
nt_status nt_impl_repeat(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    int64_t reps[NT_MAX_DIMS], pair[NT_MAX_DIMS], wide[NT_MAX_DIMS], sizes[NT_MAX_DIMS];
    int n;
    NT_TRY(repeat_counts(c, t, reps, &n));
    int lead = n - t->ndim;
    for (int i = 0; i < n; i++) {
        int64_t x = i < lead ? 1 : t->sizes[i - lead];
        pair[2 * i] = 1, pair[2 * i + 1] = x;
        wide[2 * i] = reps[i], wide[2 * i + 1] = x;
        sizes[i] = reps[i] * x;
    }
    nt_tensor *plain = NULL, *paired = NULL, *expanded = NULL, *r = NULL;
    nt_status st = nt_rename(t, NULL, &plain); /* reshape keeps no names */
    if (st == NT_OK) st = nt_reshape(plain, 2 * n, pair, &paired);
    if (st == NT_OK) st = nt_expand(paired, 2 * n, wide, &expanded);
    if (st == NT_OK) st = nt_reshape(expanded, n, sizes, &r);
    if (st == NT_OK && t->names) {
        nt_name names[NT_MAX_DIMS];
        for (int i = 0; i < n; i++)
            names[i] = i < lead ? NT_NAME_NONE : t->names[i - lead];
        nt_tensor *named = NULL;
        st = nt_rename(r, names, &named);
        nt_tensor_release(r);
        r = named;
    }
    nt_tensor_release(plain);
    nt_tensor_release(paired);
    nt_tensor_release(expanded);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    c->result[0] = r;
    return NT_OK;
}

/* ------------------------------------------------------------------ triu, tril */

/* col - row of a (rows, cols) matrix, int64 */
static nt_status offsets(int64_t rows, int64_t cols, nt_tensor **diff) {
    nt_tensor *row = NULL, *col = NULL, *row2 = NULL;
    int64_t shape[2] = {rows, 1};
    nt_status st =
        nt_arange(nt_scalar_int(0), nt_scalar_int(rows), nt_scalar_int(1), NT_INT64, &row);
    if (st == NT_OK)
        st = nt_arange(nt_scalar_int(0), nt_scalar_int(cols), nt_scalar_int(1), NT_INT64, &col);
    if (st == NT_OK) st = nt_reshape(row, 2, shape, &row2);
    if (st == NT_OK) st = nt_sub(col, row2, diff);
    nt_tensor_release(row);
    nt_tensor_release(col);
    nt_tensor_release(row2);
    return st;
}

/* Where col - row `op` k (a bool mask): diag's matrix is where it is == k */
static nt_status diagonal_mask(int64_t rows, int64_t cols, nt_binary_op op, int64_t k,
                               nt_tensor **mask) {
    nt_tensor *diff = NULL;
    nt_status st = offsets(rows, cols, &diff);
    if (st == NT_OK) st = nt_binary_scalar(op, diff, nt_scalar_int(k), mask);
    nt_tensor_release(diff);
    return st;
}

/* Zeroes the part of each row of t's last two dims that triu / tril drops: row i keeps
 * columns [i + k, cols) (upper) or [0, i + k + 1); rows split across threads */
typedef struct triangle_job {
    nt_tensor *t;
    int64_t rows, cols, k;
    bool upper;
} triangle_job;

static void triangle_range(void *ctx, int64_t begin, int64_t end) {
    const triangle_job *j = ctx;
    const nt_tensor *t = j->t;
    int nd = t->ndim;
    size_t el = nt_dtype_table[t->dtype].size;
    for (int64_t row = begin; row < end; row++) {
        int64_t i = row % j->rows, rest = row / j->rows,
                offset = t->offset + i * t->strides[nd - 2];
        for (int d = nd - 3; d >= 0; d--) {
            offset += rest % t->sizes[d] * t->strides[d];
            rest /= t->sizes[d];
        }
        int64_t lo = j->upper ? 0 : i + j->k + 1, hi = j->upper ? i + j->k : j->cols;
        lo = lo < 0 ? 0 : lo > j->cols ? j->cols : lo;
        hi = hi < 0 ? 0 : hi > j->cols ? j->cols : hi;
        char *p = (char *)t->storage->data + (size_t)offset * el;
        int64_t step = t->strides[nd - 1];
        if (step == 1 && hi > lo) /* zero bits are 0 in every dtype */
            memset(p + (size_t)lo * el, 0, (size_t)(hi - lo) * el);
        else
            for (int64_t col = lo; col < hi; col++)
                memset(p + (size_t)(col * step) * el, 0, el);
    }
}

/* t, or a copy of t (a new contiguous tensor, its names), with the triangle zeroed */
nt_status nt_impl_triangle(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *r = NULL;
    int64_t diagonal = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0, d;
    if (t->ndim == 0) /* PyTorch's IndexErrors */
        return nt_fail(NT_ERR_INDEX, "Dimension specified as -2 but tensor has no dimensions");
    if (t->ndim < 2) NT_TRY(nt_wrap_dim(-2, t->ndim, &d));
    if (!c->inplace) {
        NT_TRY(nt_tensor_alloc(t->dtype, t->ndim, t->sizes, t->names, &r));
        nt_status st = nt_copy_values(r, t);
        if (st != NT_OK) {
            nt_tensor_release(r);
            return st;
        }
    }
    triangle_job j = {.t = r ? r : t,
                      .rows = t->sizes[t->ndim - 2],
                      .cols = t->sizes[t->ndim - 1],
                      .k = diagonal,
                      .upper = c->op == NT_OP_TRIU};
    int64_t nrows = j.cols ? t->numel / j.cols : 0;
    nt_parallel_for(0, nrows, NT_GRAIN_SIZE / (j.cols ? j.cols : 1) + 1, triangle_range, &j);
    if (r) return nt_out_deliver(c, r);
    c->result[0] = nt_tensor_retain(t);
    return NT_OK;
}

/* ------------------------------------------------------------------ outer */

static nt_status outer_check(const nt_tensor *a, const nt_tensor *b) {
    if (a->ndim != 1)
        return nt_fail(NT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %d-D", a->ndim);
    if (b->ndim != 1)
        return nt_fail(NT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %d-D", b->ndim);
    return NT_OK;
}

nt_status nt_shape_outer(const nt_call *c, nt_shape *s) {
    const nt_tensor *a = nt_call_tensor(c, 0), *b = nt_call_tensor(c, 1);
    NT_TRY(outer_check(a, b));
    s->ndim = 2;
    s->sizes[0] = a->sizes[0];
    s->sizes[1] = b->sizes[0];
    return NT_OK;
}

nt_status nt_impl_outer(nt_call *c) {
    nt_tensor *a = nt_call_tensor(c, 0), *b = nt_call_tensor(c, 1), *column = NULL, *r = NULL;
    NT_TRY(outer_check(a, b));
    nt_status st = nt_unsqueeze(a, 1, &column);
    if (st == NT_OK) st = nt_mul(column, b, &r);
    nt_tensor_release(column);
    return st == NT_OK ? nt_out_deliver(c, r) : st;
}

/* ------------------------------------------------------------------ diag */

static nt_status diag_check(const nt_tensor *t) {
    if (t->ndim != 1 && t->ndim != 2) return nt_fail(NT_ERR_RUNTIME, "matrix or a vector expected");
    return NT_OK;
}

/* the length of a (rows, cols) matrix's diagonal `k` */
static int64_t diagonal_length(int64_t rows, int64_t cols, int64_t k) {
    int64_t n = k >= 0 ? (rows < cols - k ? rows : cols - k) : (rows + k < cols ? rows + k : cols);
    return n > 0 ? n : 0;
}

nt_status nt_shape_diag(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    int64_t k = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0;
    NT_TRY(diag_check(t));
    if (t->ndim == 2) {
        s->ndim = 1;
        s->sizes[0] = diagonal_length(t->sizes[0], t->sizes[1], k);
        return NT_OK;
    }
    s->ndim = 2;
    s->sizes[0] = s->sizes[1] = t->sizes[0] + (k < 0 ? -k : k);
    return NT_OK;
}

/* diag's and diag_embed's end: the temporaries plain and d go, and r is the result, or goes
 * too after a failure */
static nt_status diag_done(nt_call *c, nt_status st, nt_tensor *plain, nt_tensor *d, nt_tensor *r) {
    nt_tensor_release(plain);
    nt_tensor_release(d);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    return nt_out_deliver(c, r);
}

/* a vector v: the matrix (col - row == k) times v padded with |k| zeros, v's entry i
 * broadcast along row i (k >= 0) or column i (k < 0), so that autograd records a cat and a
 * mul; a matrix: its diagonal view, cloned */
nt_status nt_impl_diag(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *plain = NULL, *d = NULL, *r = NULL;
    int64_t k = c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : 0;
    NT_TRY(diag_check(t));
    nt_status st = nt_rename(t, NULL, &plain);
    if (st == NT_OK && t->ndim == 1) {
        int64_t pad = k < 0 ? -k : k, n = t->sizes[0] + pad;
        nt_tensor *zeros = NULL, *padded = NULL, *line = NULL, *mask = NULL, *eye = NULL;
        st = nt_zeros(1, &pad, t->dtype, NULL, &zeros);
        if (st == NT_OK) st = nt_cat(2, (nt_tensor *[]){plain, zeros}, 0, NULL, &padded);
        if (st == NT_OK && k >= 0) st = nt_unsqueeze(padded, 1, &line);
        if (st == NT_OK && k < 0) line = nt_tensor_retain(padded);
        if (st == NT_OK) st = diagonal_mask(n, n, NT_BINARY_EQ, k, &mask);
        if (st == NT_OK) st = nt_to_dtype(mask, t->dtype, &eye);
        if (st == NT_OK) st = nt_mul(eye, line, &r);
        nt_tensor_release(zeros);
        nt_tensor_release(padded);
        nt_tensor_release(line);
        nt_tensor_release(mask);
        nt_tensor_release(eye);
    } else if (st == NT_OK) {
        st = nt_diagonal(plain, k, 0, 1, &d);
        if (st == NT_OK) st = nt_clone(d, &r);
    }
    return diag_done(c, st, plain, d, r);
}

/* ------------------------------------------------------------------ diag_embed */

/* diag_embed's dims of the result (t's rank + 1), wrapped, with PyTorch's texts: the given
 * values in "cannot be identical" */
static nt_status diag_embed_dims(const nt_tensor *t, int64_t dim1, int64_t dim2, int64_t *d1,
                                 int64_t *d2) {
    if (t->ndim >= NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "diag_embed: the result would have more than %d dims",
                       NT_MAX_DIMS);
    NT_TRY(nt_wrap_dim(dim1, t->ndim + 1, d1));
    NT_TRY(nt_wrap_dim(dim2, t->ndim + 1, d2));
    if (*d1 == *d2)
        return nt_fail(NT_ERR_RUNTIME,
                       "diagonal dimensions cannot be identical %" PRId64 ", %" PRId64, dim1, dim2);
    return NT_OK;
}

/* t's dims but the last, with two of |offset| + t's last size inserted at dims d1 and d2 */
nt_status nt_shape_diag_embed(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    int64_t offset = c->args[1].v.i, d1, d2, n;
    NT_TRY(diag_embed_dims(t, c->args[2].v.i, c->args[3].v.i, &d1, &d2));
    if (offset == INT64_MIN ||
        __builtin_add_overflow(t->sizes[t->ndim - 1], offset < 0 ? -offset : offset, &n))
        return nt_fail(NT_ERR_RUNTIME, "diag_embed: the offset %" PRId64 " is too large", offset);
    s->ndim = t->ndim + 1;
    for (int i = 0, k = 0; i < s->ndim; i++)
        s->sizes[i] = i == d1 || i == d2 ? n : t->sizes[k++];
    return nt_shape_check(s->ndim, s->sizes, &(int64_t){0});
}

/* zeros with t written on the diagonal (offset, d1, d2) of each plane: t's last dim runs
 * along it, its other dims fill the result's other dims in order and keep their names
 * (PyTorch refuses named tensors); the two new dims are unnamed */
nt_status nt_impl_diag_embed(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *plain = NULL, *r = NULL, *d = NULL;
    int64_t offset = c->args[1].v.i, d1, d2;
    nt_shape s;
    NT_TRY(nt_shape_diag_embed(c, &s));
    NT_TRY(diag_embed_dims(t, c->args[2].v.i, c->args[3].v.i, &d1, &d2));
    nt_status st = nt_rename(t, NULL, &plain);
    if (st == NT_OK) st = nt_zeros(s.ndim, s.sizes, t->dtype, NULL, &r);
    if (st == NT_OK) st = nt_diagonal(r, offset, d1, d2, &d);
    if (st == NT_OK) st = nt_copy_(d, plain);
    if (st == NT_OK && t->names) {
        nt_name names[NT_MAX_DIMS];
        for (int i = 0, k = 0; i < s.ndim; i++)
            names[i] = i == d1 || i == d2 ? NT_NAME_NONE : t->names[k++];
        nt_tensor_set_names_unchecked(r, names);
    }
    return diag_done(c, st, plain, d, r);
}

/* ------------------------------------------------------------------ one_hot */

/* The class count of one_hot(t, num_classes), with PyTorch's checks in its order */
static nt_status one_hot_classes(nt_tensor *t, int64_t num_classes, int64_t *classes) {
    if (t->dtype != NT_INT64)
        return nt_fail(NT_ERR_RUNTIME, "one_hot is only applicable to index tensor.");
    *classes = num_classes;
    if (t->numel == 0) {
        if (num_classes == -1)
            return nt_fail(NT_ERR_RUNTIME,
                           "Can not infer total number of classes from empty tensor.");
        return NT_OK;
    }
    nt_tensor *lo = NULL, *hi = NULL;
    nt_status st = nt_min_all(t, &lo);
    if (st == NT_OK) st = nt_max_all(t, &hi);
    int64_t min = st == NT_OK ? nt_load_scalar(nt_tensor_bytes(lo), NT_INT64).v.i : 0;
    int64_t max = st == NT_OK ? nt_load_scalar(nt_tensor_bytes(hi), NT_INT64).v.i : 0;
    nt_tensor_release(lo);
    nt_tensor_release(hi);
    if (st != NT_OK) return st;
    if (min < 0) return nt_fail(NT_ERR_RUNTIME, "Class values must be non-negative.");
    if (num_classes == -1)
        *classes = max + 1;
    else if (max >= num_classes)
        return nt_fail(NT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
    return NT_OK;
}

nt_status nt_shape_one_hot(const nt_call *c, nt_shape *s) {
    nt_tensor *t = nt_call_tensor(c, 0);
    int64_t classes = 0;
    NT_TRY(one_hot_classes(t, c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : -1, &classes));
    if (t->ndim + 1 > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "one_hot: at most %d dims", NT_MAX_DIMS - 1);
    nt_shape_of_tensor(s, t);
    s->sizes[s->ndim++] = classes;
    return NT_OK;
}

/* t[..., None] == arange(classes), as int64: t's names and an unnamed last dim */
nt_status nt_impl_one_hot(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *column = NULL, *range = NULL, *hot = NULL;
    int64_t classes = 0;
    NT_TRY(one_hot_classes(t, c->args[1].kind == NT_ARG_INT ? c->args[1].v.i : -1, &classes));
    nt_status st = nt_unsqueeze(t, t->ndim, &column);
    if (st == NT_OK)
        st =
            nt_arange(nt_scalar_int(0), nt_scalar_int(classes), nt_scalar_int(1), NT_INT64, &range);
    if (st == NT_OK) st = nt_binary(NT_BINARY_EQ, column, range, &hot);
    if (st == NT_OK) st = nt_to_dtype(hot, NT_INT64, &c->result[0]);
    nt_tensor_release(column);
    nt_tensor_release(range);
    nt_tensor_release(hot);
    return st;
}

/* ------------------------------------------------------------------ repeat_interleave */

/* The counts of a tensor of repeats (int32 or int64, 0-d or 1-d) as int64 values in *values
 * (a new contiguous tensor), checked as PyTorch checks them */
static nt_status interleave_counts(nt_tensor *repeats, nt_tensor **values) {
    if (repeats->dtype != NT_INT64 && repeats->dtype != NT_INT32)
        return nt_fail(NT_ERR_RUNTIME, "\"repeat_interleave_cpu\" not implemented for '%s'",
                       nt_dtype_torch_name(repeats->dtype));
    if (repeats->ndim > 1) return nt_fail(NT_ERR_RUNTIME, "repeats must be 0-dim or 1-dim tensor");
    nt_tensor *wide = NULL, *flat = NULL;
    int64_t n = repeats->numel;
    nt_status st = nt_to_dtype(repeats, NT_INT64, &wide);
    if (st == NT_OK) st = nt_reshape(wide, 1, &n, &flat);
    if (st == NT_OK) st = nt_contiguous(flat, values);
    nt_tensor_release(wide);
    nt_tensor_release(flat);
    if (st != NT_OK) return st;
    const int64_t *v = (const int64_t *)nt_tensor_bytes(*values);
    for (int64_t i = 0; i < n; i++)
        if (v[i] < 0) {
            nt_tensor_release(*values);
            *values = NULL;
            return nt_fail(NT_ERR_RUNTIME, "repeats can not be negative");
        }
    return NT_OK;
}

/* x (dim d) with each entry repeated r times: a size-r dim after d, expanded, merged */
static nt_status interleave_uniform(nt_tensor *x, int64_t d, int64_t r, nt_tensor **out) {
    int64_t sizes[NT_MAX_DIMS], merged[NT_MAX_DIMS];
    nt_tensor *col = NULL, *wide = NULL;
    for (int k = 0, j = 0; k < x->ndim; k++) {
        sizes[j++] = x->sizes[k];
        merged[k] = x->sizes[k] * (k == d ? r : 1);
        if (k == d) sizes[j++] = r;
    }
    nt_status st = nt_unsqueeze(x, d + 1, &col);
    if (st == NT_OK) st = nt_expand(col, x->ndim + 1, sizes, &wide);
    if (st == NT_OK) st = nt_reshape(wide, x->ndim, merged, out);
    nt_tensor_release(col);
    nt_tensor_release(wide);
    return st;
}

/* x's entries along d, entry i repeated counts[i] times: one index_select of the indices
 * 0 .. n-1, each written counts[i] times (PyTorch's way) */
static nt_status interleave_counted(nt_tensor *x, int64_t d, const int64_t *counts,
                                    nt_tensor **out) {
    int64_t n = x->sizes[d], total = 0;
    for (int64_t i = 0; i < n; i++)
        if (__builtin_add_overflow(total, counts[i], &total))
            return nt_fail(NT_ERR_RUNTIME, "repeat_interleave: the output size overflows");
    nt_tensor *index = NULL;
    NT_TRY(nt_tensor_alloc(NT_INT64, 1, &total, NULL, &index));
    int64_t *p = (int64_t *)nt_tensor_bytes(index);
    for (int64_t i = 0, k = 0; i < n; i++)
        for (int64_t r = 0; r < counts[i]; r++)
            p[k++] = i;
    nt_status st = nt_index_select(x, d, index, out);
    nt_tensor_release(index);
    return st;
}

/* The dim repeated: slot 2's (none: 0 of the flattened input, *flat its new reference) */
static nt_status interleave_dim(const nt_call *c, nt_tensor *t, nt_tensor **x, int64_t *d) {
    if (c->args[2].kind != NT_ARG_DIM) {
        int64_t n = t->numel;
        nt_tensor *plain = NULL;
        *d = 0;
        nt_status st = nt_rename(t, NULL, &plain);
        if (st == NT_OK) st = nt_reshape(plain, 1, &n, x);
        nt_tensor_release(plain);
        return st;
    }
    NT_TRY(nt_tensor_dim(t, c->args[2].v.dim, d));
    *x = nt_tensor_retain(t);
    return NT_OK;
}

nt_status nt_shape_repeat_interleave(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    int64_t r = c->args[1].v.i, d = 0;
    if (r < 0) return nt_fail(NT_ERR_RUNTIME, "repeats can not be negative");
    if (c->args[2].kind != NT_ARG_DIM) {
        s->ndim = 1;
        s->sizes[0] = t->numel * r;
        return NT_OK;
    }
    NT_TRY(nt_tensor_dim(t, c->args[2].v.dim, &d));
    nt_shape_of_tensor(s, t);
    if (s->ndim > 0) s->sizes[d] *= r;
    return NT_OK;
}

nt_status nt_impl_repeat_interleave(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *counts = NULL, *x = NULL, *names_from = NULL;
    int64_t d = 0, r = -1;
    nt_status st = NT_OK;
    if (c->op == NT_OP_REPEAT_INTERLEAVE) {
        r = c->args[1].v.i;
        if (r < 0) return nt_fail(NT_ERR_RUNTIME, "repeats can not be negative");
    } else {
        NT_TRY(interleave_counts(c->op == NT_OP_REPEAT_INTERLEAVE_SELF ? t : nt_call_tensor(c, 1),
                                 &counts));
    }
    if (c->op == NT_OP_REPEAT_INTERLEAVE_SELF) /* the indices, each repeated by its count */
        st = nt_arange(nt_scalar_int(0), nt_scalar_int(counts->numel), nt_scalar_int(1), t->dtype,
                       &x);
    else
        st = interleave_dim(c, t, &x, &d);
    if (st == NT_OK && c->op != NT_OP_REPEAT_INTERLEAVE_SELF && c->args[2].kind == NT_ARG_DIM)
        names_from = t;
    if (st == NT_OK && counts && counts->numel == 1) r = *(const int64_t *)nt_tensor_bytes(counts);
    if (st == NT_OK && r < 0 && x->ndim > 0 && counts->numel != x->sizes[d])
        st = nt_fail(NT_ERR_RUNTIME, "repeats must have the same size as input along dim");
    nt_tensor *plain = NULL, *r_out = NULL;
    if (st == NT_OK) st = nt_rename(x, NULL, &plain); /* reshape keeps no names */
    if (st == NT_OK && x->ndim == 0) /* a 0-d input: as a 1-d one (PyTorch's flatten) */
        st = nt_fail(NT_ERR_RUNTIME, "repeat_interleave: a 0-dim input needs dim=None");
    if (st == NT_OK)
        st = r >= 0
                 ? interleave_uniform(plain, d, r, &r_out)
                 : interleave_counted(plain, d, (const int64_t *)nt_tensor_bytes(counts), &r_out);
    if (st == NT_OK && names_from && names_from->names)
        st = nt_rename(r_out, names_from->names, &c->result[0]);
    else if (st == NT_OK)
        c->result[0] = nt_tensor_retain(r_out);
    nt_tensor_release(r_out);
    nt_tensor_release(plain);
    nt_tensor_release(x);
    nt_tensor_release(counts);
    return st;
}

nt_status nt_repeat_interleave(nt_tensor *t, int64_t repeats, bool has_dim, nt_dim dim,
                               nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_REPEAT_INTERLEAVE);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(repeats);
    c.args[2] = has_dim ? nt_arg_dim(dim) : nt_arg_none();
    c.args[3] = nt_arg_none();
    return nt_dispatch_result(&c, out);
}

/* ------------------------------------------------------------------ T, mT (permute, transpose) */

nt_status nt_numpy_T(nt_tensor *t, nt_tensor **out) {
    static atomic_bool warned;
    if (!t) return nt_fail_null_tensor("T", "self");
    int ndim = nt_tensor_ndim(t); /* positional: a tensor with first-class dims has more */
    if (ndim == 2) return nt_transpose(t, 0, 1, out);
    if (ndim != 0 && !atomic_exchange(&warned, true))
        nt_warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
                "to reverse the dimensions of a tensor.");
    nt_dim dims[NT_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        dims[i] = ndim - 1 - i;
    return nt_permute(t, ndim, dims, out);
}

nt_status nt_matrix_T(nt_tensor *t, nt_tensor **out) {
    if (!t) return nt_fail_null_tensor("mT", "self");
    if (nt_tensor_ndim(t) < 2)
        return nt_fail(NT_ERR_RUNTIME,
                       "tensor.mT is only supported on matrices or batches of matrices. Got %d-D "
                       "tensor.",
                       nt_tensor_ndim(t));
    return nt_transpose(t, -2, -1, out);
}

/* ------------------------------------------------------------------ the public functions */

nt_status nt_flip(nt_tensor *t, int count, const nt_dim *dims, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_FLIP);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dims(count, dims);
    return nt_dispatch_result(&c, out);
}

nt_status nt_roll(nt_tensor *t, int nshifts, const int64_t *shifts, int ndims, const nt_dim *dims,
                  nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_ROLL);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(nshifts, shifts);
    c.args[2] = ndims > 0 ? nt_arg_dims(ndims, dims) : nt_arg_none();
    return nt_dispatch_result(&c, out);
}

static nt_status counts_call(nt_op op, nt_tensor *t, int count, const int64_t *counts,
                             nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(count, counts);
    return nt_dispatch_result(&c, out);
}

nt_status nt_repeat(nt_tensor *t, int count, const int64_t *repeats, nt_tensor **out) {
    return counts_call(NT_OP_REPEAT, t, count, repeats, out);
}

nt_status nt_tile(nt_tensor *t, int count, const int64_t *dims, nt_tensor **out) {
    return counts_call(NT_OP_TILE, t, count, dims, out);
}

static nt_status triangle_call(nt_op op, nt_tensor *t, int64_t diagonal, bool inplace,
                               nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(diagonal);
    return nt_dispatch_result(&c, out);
}

nt_status nt_triu(nt_tensor *t, int64_t diagonal, nt_tensor **out) {
    return triangle_call(NT_OP_TRIU, t, diagonal, false, out);
}

nt_status nt_tril(nt_tensor *t, int64_t diagonal, nt_tensor **out) {
    return triangle_call(NT_OP_TRIL, t, diagonal, false, out);
}

nt_status nt_triu_(nt_tensor *t, int64_t diagonal) {
    return triangle_call(NT_OP_TRIU, t, diagonal, true, NULL);
}

nt_status nt_tril_(nt_tensor *t, int64_t diagonal) {
    return triangle_call(NT_OP_TRIL, t, diagonal, true, NULL);
}

nt_status nt_outer(nt_tensor *a, nt_tensor *b, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_OUTER);
    c.args[0] = nt_arg_tensor(a);
    c.args[1] = nt_arg_tensor(b);
    return nt_dispatch_result(&c, out);
}

nt_status nt_diag(nt_tensor *t, int64_t diagonal, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_DIAG);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(diagonal);
    return nt_dispatch_result(&c, out);
}

nt_status nt_diag_embed(nt_tensor *t, int64_t offset, int64_t dim1, int64_t dim2, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_DIAG_EMBED);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(offset);
    c.args[2] = nt_arg_int(dim1);
    c.args[3] = nt_arg_int(dim2);
    return nt_dispatch_result(&c, out);
}

nt_status nt_one_hot(nt_tensor *t, int64_t num_classes, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_ONE_HOT);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(num_classes);
    return nt_dispatch_result(&c, out);
}
