/*
 * gather.c — gather, scatter (a src tensor or a value, reduce="add"/"multiply"),
 * scatter_add, index_select, index_add and take_along_dim (layer L4).
 *
 * Each op walks the shape of the tensor that drives it (the index for gather and scatter,
 * the result for index_select, the source for index_add) in rows of kernels/gather_kernels.c.
 * The walk splits the dims other than the op's dim among threads and runs the op's dim in
 * order inside each piece, so two elements that reach one destination always meet in the
 * same thread in the same order: scatter_add and index_add on floats give one result
 * whatever the thread count. Indices are checked before anything is written.
 *
 * Names (docs/decisions_ops_everyday.md, "Index family"): gather and take_along_dim unify
 * their input's and index's names dim by dim; the scatters, index_add and index_select keep
 * self's names. PyTorch 1.13 refuses named tensors in all of them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "dispatch/dispatch.h"
#include "gather.h"
#include "kernels/gather_kernels.h"
#include "ops/out.h"
#include "reduce.h"

/* ------------------------------------------------------------------ the walk */

/* A walk over a shape with three operands (written, read, index) at byte strides: the op's
 * dim `d` runs in order inside a piece, the other dims but the innermost are split. */
typedef struct walk {
    int nouter;
    int64_t osize[NT_MAX_DIMS], ostride[3][NT_MAX_DIMS];
    int64_t dsize, dstride[3];
    nt_gather_row row;
    nt_gather_row_fn fn;
} walk;

/* strides[s][i]: operand s's byte stride along dim i of the shape (ndim >= 1) */
static void walk_build(walk *w, int ndim, const int64_t *sizes, int64_t strides[3][NT_MAX_DIMS],
                       int d, char *const base[3], int64_t jump, nt_gather_row_fn fn) {
    int inner = ndim - 1;
    w->nouter = 0;
    w->dsize = 1;
    for (int s = 0; s < 3; s++) {
        w->row.p[s] = base[s];
        w->row.step[s] = strides[s][inner];
        w->dstride[s] = 0;
    }
    w->row.n = sizes[inner];
    w->row.jump = jump;
    w->fn = fn;
    for (int i = 0; i < inner; i++) {
        if (i == d) {
            w->dsize = sizes[i];
            for (int s = 0; s < 3; s++)
                w->dstride[s] = strides[s][i];
            continue;
        }
        w->osize[w->nouter] = sizes[i];
        for (int s = 0; s < 3; s++)
            w->ostride[s][w->nouter] = strides[s][i];
        w->nouter++;
    }
}

static void walk_task(void *ctx, int64_t b, int64_t e) {
    const walk *w = ctx;
    for (int64_t o = b; o < e; o++) {
        nt_gather_row r = w->row;
        int64_t rest = o;
        for (int i = w->nouter - 1; i >= 0; i--) {
            int64_t c = rest % w->osize[i];
            rest /= w->osize[i];
            for (int s = 0; s < 3; s++)
                r.p[s] += c * w->ostride[s][i];
        }
        for (int64_t j = 0; j < w->dsize; j++) {
            w->fn(&r);
            for (int s = 0; s < 3; s++)
                r.p[s] += w->dstride[s];
        }
    }
}

static void walk_run(walk *w) {
    int64_t count = 1;
    for (int i = 0; i < w->nouter; i++)
        count *= w->osize[i];
    int64_t per = w->dsize * w->row.n;
    if (count == 0 || per == 0) return;
    nt_parallel_for(0, count, NT_GRAIN_SIZE / per + 1, walk_task, w);
}

/* t's sizes and byte strides as a shape of at least one dim (a 0-dim tensor: one element) */
static int shape_of(const nt_tensor *t, int64_t *sizes, int64_t *strides) {
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size;
    if (t->ndim == 0) {
        sizes[0] = 1;
        strides[0] = 0;
        return 1;
    }
    for (int i = 0; i < t->ndim; i++) {
        sizes[i] = t->sizes[i];
        strides[i] = t->sizes[i] == 1 ? 0 : t->strides[i] * esize;
    }
    return t->ndim;
}

/* t's byte strides over a shape of `ndim` dims (t has that many, or is 0-dim) */
static void strides_of(const nt_tensor *t, int ndim, int64_t *strides) {
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size;
    for (int i = 0; i < ndim; i++)
        strides[i] = t->ndim == 0 ? 0 : t->strides[i] * esize;
}

/* Runs fn over the shape of `shape`: operand s is ops[s] at base[s] (ops[1] NULL: a value at
 * base[1], stride 0), the index ops[2] with its own strides, or (`along`, a 0- or 1-d index)
 * its stride along d only; the operand `indexed` reaches along d by the index instead. */
static void index_walk(const nt_tensor *shape, const nt_tensor *const ops[3], char *const base[3],
                       bool along, int64_t d, int indexed, nt_gather_row_fn fn) {
    int64_t sizes[NT_MAX_DIMS], st[3][NT_MAX_DIMS], unused[NT_MAX_DIMS];
    int nd = shape_of(shape, sizes, unused);
    for (int s = 0; s < 3; s++) {
        if (s == 2 && along)
            for (int i = 0; i < nd; i++)
                st[2][i] =
                    i == d && ops[2]->ndim ? ops[2]->strides[0] * (int64_t)sizeof(int64_t) : 0;
        else if (ops[s])
            strides_of(ops[s], nd, st[s]);
        else
            memset(st[s], 0, sizeof st[s]);
    }
    int64_t jump = st[indexed][d];
    st[indexed][d] = 0;
    walk w;
    walk_build(&w, nd, sizes, st, (int)d, base, jump, fn);
    walk_run(&w);
}

/* The first index (in row-major order) outside [0, size), into *bad. */
static bool first_bad_index(const nt_tensor *index, int64_t size, int64_t *bad) {
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS], at[NT_MAX_DIMS] = {0};
    int nd = shape_of(index, sizes, strides);
    if (index->numel == 0) return false;
    const char *p = nt_tensor_bytes(index);
    for (;;) {
        for (int64_t k = 0; k < sizes[nd - 1]; k++) {
            int64_t v = *(const int64_t *)(p + k * strides[nd - 1]);
            if (v < 0 || v >= size) {
                *bad = v;
                return true;
            }
        }
        int i = nd - 2;
        for (; i >= 0; i--) {
            p += strides[i];
            if (++at[i] < sizes[i]) break;
            p -= at[i] * strides[i];
            at[i] = 0;
        }
        if (i < 0) return false;
    }
}

static nt_status out_of_bounds(const nt_tensor *index, int64_t d, int64_t size) {
    int64_t bad;
    if (!first_bad_index(index, size, &bad)) return NT_OK;
    return nt_fail(NT_ERR_RUNTIME,
                   "index %" PRId64 " is out of bounds for dimension %" PRId64
                   " with size %" PRId64,
                   bad, d, size);
}

const char *nt_shape_text(const nt_tensor *t, char *buf, size_t cap) {
    size_t at = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < t->ndim && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%" PRId64, i ? ", " : "", t->sizes[i]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
    return buf;
}

static int64_t size_at(const nt_tensor *t, int i) {
    return t->ndim ? t->sizes[i] : 1;
}

static int rank(const nt_tensor *t) {
    return t->ndim ? t->ndim : 1;
}

/* r (a fresh result) as the call's result, or copied into its out= tensor */
static nt_status deliver(nt_call *c, nt_tensor *r) {
    nt_tensor *out = c->out[0];
    if (!out) {
        c->result[0] = r;
        return NT_OK;
    }
    nt_status st = NT_OK;
    if (out->dtype != r->dtype) NT_CHECK(st, nt_red_check_out_dtype(out, r->dtype));
    NT_CHECK(st, nt_out_resize(out, r->ndim, r->sizes));
    NT_CHECK(st, nt_copy_values(out, r));
    if (r->names && !out->names) NT_CHECK(st, nt_tensor_set_names(out, r->names));
    c->result[0] = nt_tensor_retain(out);
fail:
    nt_tensor_release(r);
    return st;
}

static nt_status resolve_dim(const nt_tensor *t, nt_dim dim, int64_t *d) {
    NT_TRY(nt_tensor_dim(t, dim, d));
    if (t->ndim == 0) *d = 0;
    return NT_OK;
}

/* ------------------------------------------------------------------ gather */

nt_status nt_gather_into(nt_tensor *r, const nt_tensor *t, int64_t d, const nt_tensor *index) {
    if (index->numel == 0) return NT_OK;
    const nt_tensor *ops[3] = {r, t, index};
    char *base[3] = {nt_tensor_bytes(r), nt_tensor_bytes(t), nt_tensor_bytes(index)};
    index_walk(index, ops, base, false, d, 1, nt_gather_kernel(nt_dtype_table[t->dtype].size));
    return NT_OK;
}

/* PyTorch's gather_shape_check */
static nt_status gather_shapes(const nt_tensor *t, int64_t d, const nt_tensor *index) {
    if (rank(index) != rank(t))
        return nt_fail(NT_ERR_RUNTIME,
                       "Index tensor must have the same number of dimensions as input tensor");
    for (int i = 0; i < index->ndim; i++)
        if (i != d && index->sizes[i] > size_at(t, i)) {
            char a[256], b[256];
            return nt_fail(NT_ERR_RUNTIME,
                           "Size does not match at dimension %d expected index %s to be smaller "
                           "than self %s apart from dimension %" PRId64,
                           i, nt_shape_text(index, a, sizeof a), nt_shape_text(t, b, sizeof b), d);
        }
    return NT_OK;
}

nt_status nt_impl_gather(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *index = nt_call_tensor(c, 2);
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[1].v.dim, &d));
    if (index->dtype != NT_INT64)
        return nt_fail(NT_ERR_RUNTIME, "gather(): Expected dtype int64 for index");
    NT_TRY(gather_shapes(t, d, index));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names = NULL;
    int nd;
    if (index->ndim == t->ndim)
        NT_TRY(nt_names_unify_from_right(t->names, t->ndim, index->names, index->ndim, buf, &nd,
                                         &names));
    NT_TRY(out_of_bounds(index, d, size_at(t, (int)d)));
    nt_tensor *r = NULL;
    NT_TRY(nt_tensor_alloc(t->dtype, index->ndim, index->sizes, names, &r));
    nt_gather_into(r, t, d, index);
    return deliver(c, r);
}

/* ------------------------------------------------------------------ scatter, scatter_add */

/* The mode a reduce= string names (NULL: a plain scatter). */
static nt_status reduce_mode(const char *reduce, nt_scatter_mode *mode) {
    if (!reduce)
        *mode = NT_SCATTER_SET;
    else if (strcmp(reduce, "add") == 0)
        *mode = NT_SCATTER_ADD;
    else if (strcmp(reduce, "multiply") == 0)
        *mode = NT_SCATTER_MUL;
    else
        return nt_fail(NT_ERR_RUNTIME, "reduce argument must be either add or multiply.");
    return NT_OK;
}

/* PyTorch's scatter_shape_check */
static nt_status scatter_shapes(const nt_tensor *t, int64_t d, const nt_tensor *index,
                                const nt_tensor *src) {
    if (rank(index) != rank(t))
        return nt_fail(NT_ERR_RUNTIME,
                       "Index tensor must have the same number of dimensions as self tensor");
    if (src && rank(index) != rank(src))
        return nt_fail(NT_ERR_RUNTIME,
                       "Index tensor must have the same number of dimensions as src tensor");
    bool fits_self = true, fits_src = true;
    for (int i = 0; i < index->ndim; i++) {
        if (i != d && index->sizes[i] > size_at(t, i)) fits_self = false;
        if (src && index->sizes[i] > size_at(src, i)) fits_src = false;
    }
    char a[256], b[256], s[256];
    if (!fits_src)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected index %s to be smaller than self %s apart from dimension %" PRId64
                       " and to be smaller size than src %s",
                       nt_shape_text(index, a, sizeof a), nt_shape_text(t, b, sizeof b), d,
                       nt_shape_text(src, s, sizeof s));
    if (!fits_self)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected index %s to be smaller than self %s apart from dimension %" PRId64,
                       nt_shape_text(index, a, sizeof a), nt_shape_text(t, b, sizeof b), d);
    return NT_OK;
}

/* self (already holding its values) scattered into: src's elements or `value` */
static nt_status scatter_into(nt_tensor *self, int64_t d, const nt_tensor *index,
                              const nt_tensor *src, nt_scalar value, nt_scatter_mode mode) {
    if (index->numel == 0) return NT_OK;
    nt_gather_row_fn fn = nt_scatter_kernel(mode, self->dtype);
    if (!fn)
        return nt_fail(NT_ERR_RUNTIME, "\"scatter\" not implemented for '%s'",
                       nt_dtype_torch_name(self->dtype));
    uint64_t element = 0;
    if (!src) nt_store_scalar(&element, self->dtype, value);
    const nt_tensor *ops[3] = {self, src, index};
    char *base[3] = {nt_tensor_bytes(self), src ? nt_tensor_bytes(src) : (char *)&element,
                     nt_tensor_bytes(index)};
    index_walk(index, ops, base, false, d, 0, fn);
    return NT_OK;
}

/* The tensor a scatter writes: self (in place), out= (given self's values), or a clone. */
static nt_status scatter_target(nt_call *c, nt_tensor *t, nt_tensor **w) {
    if (c->inplace) {
        *w = nt_tensor_retain(t);
        return NT_OK;
    }
    if (!c->out[0]) return nt_clone(t, w);
    nt_tensor *out = c->out[0];
    if (out->dtype != t->dtype) NT_TRY(nt_red_check_out_dtype(out, t->dtype));
    NT_TRY(nt_out_resize(out, t->ndim, t->sizes));
    NT_TRY(nt_copy_values(out, t));
    *w = nt_tensor_retain(out);
    return NT_OK;
}

/* scatter(self, dim, index, src|value, reduce=None) and scatter_add(self, dim, index, src) */
nt_status nt_impl_scatter(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *index = nt_call_tensor(c, 2), *src = nt_call_tensor(c, 3);
    const char *fname = "scatter"; /* scatter_add's texts too, as PyTorch's */
    nt_scatter_mode mode = NT_SCATTER_ADD;
    if (c->op != NT_OP_SCATTER_ADD) {
        const nt_arg *r = &c->args[4];
        NT_TRY(reduce_mode(r->kind == NT_ARG_STR ? r->v.str : NULL, &mode));
    }
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[1].v.dim, &d));
    if (index->dtype != NT_INT64)
        return nt_fail(NT_ERR_RUNTIME, "%s(): Expected dtype int64 for index", fname);
    if (src && src->dtype != t->dtype)
        return nt_fail(NT_ERR_RUNTIME, "%s(): Expected self.dtype to be equal to src.dtype", fname);
    NT_TRY(scatter_shapes(t, d, index, src));
    NT_TRY(out_of_bounds(index, d, size_at(t, (int)d)));
    nt_tensor *w = NULL;
    NT_TRY(scatter_target(c, t, &w));
    nt_scalar value = c->args[3].kind == NT_ARG_SCALAR ? c->args[3].v.s : nt_scalar_int(0);
    nt_status st = scatter_into(w, d, index, src, value, mode);
    if (st != NT_OK) {
        nt_tensor_release(w);
        return st;
    }
    c->result[0] = w;
    return NT_OK;
}

/* ------------------------------------------------------------------ index_select, index_add */

/* index (int32 or int64, 0- or 1-dim) as int64; PyTorch's texts of index_select (select)
 * or index_add_ */
static nt_status long_index(bool select, nt_tensor *index, nt_tensor **out) {
    if (index->ndim > 1) {
        if (select)
            return nt_fail(NT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
        char buf[256];
        return nt_fail(NT_ERR_INDEX,
                       "index_add_(): Index is supposed to be a vector, but got dim: %d with type: "
                       "%s and size: %s",
                       index->ndim, nt_dtype_legacy_name(index->dtype),
                       nt_shape_text(index, buf, sizeof buf));
    }
    if (index->dtype != NT_INT64 && index->dtype != NT_INT32) {
        if (select)
            return nt_fail(NT_ERR_RUNTIME,
                           "index_select(): Expected dtype int32 or int64 for index");
        return nt_fail(NT_ERR_RUNTIME,
                       "index_add_(): Expected dtype int32/int64 for index but got: %s",
                       nt_dtype_legacy_name(index->dtype));
    }
    if (index->dtype == NT_INT64) {
        *out = nt_tensor_retain(index);
        return NT_OK;
    }
    return nt_to_dtype(index, NT_INT64, out);
}

nt_status nt_impl_index_select(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *given = nt_call_tensor(c, 2), *index = NULL;
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[1].v.dim, &d));
    NT_TRY(long_index(true, given, &index));
    int64_t size = size_at(t, (int)d), bad, sizes[NT_MAX_DIMS];
    nt_tensor *r = NULL;
    nt_status st = NT_OK;
    if (first_bad_index(index, size, &bad)) {
        st = nt_fail(NT_ERR_RUNTIME,
                     "INDICES element is out of DATA bounds, id=%" PRId64 " axis_dim=%" PRId64, bad,
                     size);
        goto fail;
    }
    int nd = t->ndim;
    for (int i = 0; i < nd; i++)
        sizes[i] = i == d ? index->numel : t->sizes[i];
    NT_CHECK(st, nt_tensor_alloc(t->dtype, nd, sizes, t->names, &r));
    if (r->numel > 0) {
        const nt_tensor *ops[3] = {r, t, index};
        char *base[3] = {nt_tensor_bytes(r), nt_tensor_bytes(t), nt_tensor_bytes(index)};
        index_walk(r, ops, base, true, d, 1, nt_gather_kernel(nt_dtype_table[t->dtype].size));
    }
    nt_tensor_release(index);
    return deliver(c, r);
fail:
    nt_tensor_release(index);
    return st;
}

/* index_add(self, dim, index, source, alpha=1) and index_add_ */
nt_status nt_impl_index_add(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *given = nt_call_tensor(c, 2),
              *source = nt_call_tensor(c, 3), *index = NULL, *scaled = NULL, *w = NULL;
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[1].v.dim, &d));
    NT_TRY(long_index(false, given, &index));
    nt_status st = NT_OK;
    int64_t count = index->numel, bad;
    if (source->ndim && d >= source->ndim) {
        st = nt_fail(NT_ERR_RUNTIME,
                     "index_add_(): Indexing dim %" PRId64
                     " is out of bounds of the source tensor with dim %d",
                     d, source->ndim);
        goto fail;
    }
    if (count != (source->ndim ? source->sizes[d] : 1)) {
        st = nt_fail(NT_ERR_RUNTIME,
                     "index_add_(): Number of indices (%" PRId64
                     ") should be equal to source.size(dim): (%" PRId64 "), for dim: %" PRId64,
                     count, source->ndim ? source->sizes[d] : 1, d);
        goto fail;
    }
    if (source->dtype != t->dtype) {
        st = nt_fail(NT_ERR_RUNTIME,
                     "index_add_(): self (%s) and source (%s) must have the same scalar type",
                     nt_dtype_legacy_name(t->dtype), nt_dtype_legacy_name(source->dtype));
        goto fail;
    }
    for (int i = 0; i < source->ndim; i++)
        if (i != d && (source->ndim != t->ndim || source->sizes[i] != t->sizes[i])) {
            st = source->ndim == t->ndim
                     ? nt_fail(NT_ERR_RUNTIME,
                               "The size of tensor a (%" PRId64 ") must match the size of tensor b "
                               "(%" PRId64 ") at non-singleton dimension %d",
                               t->sizes[i], source->sizes[i], i)
                     : nt_fail(NT_ERR_RUNTIME,
                               "index_add_(): Source/destination tensor must have same slice "
                               "shapes.");
            goto fail;
        }
    if (first_bad_index(index, size_at(t, (int)d), &bad)) {
        st = nt_fail(NT_ERR_INDEX, "index out of range in self");
        goto fail;
    }
    nt_scalar alpha = c->args[4].kind == NT_ARG_SCALAR ? c->args[4].v.s : nt_scalar_int(1);
    const nt_tensor *add = source;
    if (!(alpha.kind == NT_SCALAR_INT && alpha.v.i == 1)) {
        NT_CHECK(st, nt_binary_scalar(NT_BINARY_MUL, source, alpha, &scaled));
        add = scaled;
    }
    NT_CHECK(st, scatter_target(c, t, &w));
    if (add->numel > 0) {
        const nt_tensor *ops[3] = {w, add, index};
        char *base[3] = {nt_tensor_bytes(w), nt_tensor_bytes(add), nt_tensor_bytes(index)};
        index_walk(add, ops, base, true, d, 0, nt_scatter_kernel(NT_SCATTER_ADD, w->dtype));
    }
    c->result[0] = w;
    w = NULL;
fail:
    nt_tensor_release(index);
    nt_tensor_release(scaled);
    nt_tensor_release(w);
    return st;
}

/* ------------------------------------------------------------------ take_along_dim */

nt_status nt_impl_take_along_dim(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0), *index = nt_call_tensor(c, 1);
    nt_tensor *a = NULL, *b = NULL, *r = NULL;
    nt_status st = NT_OK;
    if (index->dtype != NT_INT64)
        return nt_fail(NT_ERR_RUNTIME,
                       "torch.take_along_dim(): dtype of indices should be Long but got %s",
                       nt_dtype_legacy_name(index->dtype));
    if (c->args[2].kind != NT_ARG_DIM) { /* over the flattened input: an unnamed 1-d result */
        int64_t n = t->numel, m = index->numel;
        nt_tensor *u = NULL;
        NT_CHECK(st, nt_rename(t, NULL, &u));
        st = nt_reshape(u, 1, &n, &a);
        nt_tensor_release(u);
        if (st != NT_OK) goto fail;
        NT_CHECK(st, nt_rename(index, NULL, &u));
        st = nt_reshape(u, 1, &m, &b);
        nt_tensor_release(u);
        if (st != NT_OK) goto fail;
        NT_CHECK(st, out_of_bounds(b, 0, n));
        NT_CHECK(st, nt_tensor_alloc(t->dtype, 1, &m, NULL, &r));
        nt_gather_into(r, a, 0, b);
        nt_tensor_release(a);
        nt_tensor_release(b);
        return deliver(c, r);
    }
    if (t->ndim != index->ndim)
        return nt_fail(NT_ERR_RUNTIME,
                       "torch.take_along_dim(): input and indices should have the same number of "
                       "dimensions, but got %d dimensions for input, and %d dimensions for indices",
                       t->ndim, index->ndim);
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[2].v.dim, &d));
    int nd = t->ndim;
    int64_t sa[NT_MAX_DIMS], sb[NT_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        int64_t x = t->sizes[i], y = index->sizes[i];
        if (i != d && x != y && x != 1 && y != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "The size of tensor a (%" PRId64
                           ") must match the size of tensor b (%" PRId64
                           ") at non-singleton dimension %d",
                           x, y, i);
        int64_t both = x == 1 ? y : x;
        sa[i] = i == d ? x : both;
        sb[i] = i == d ? y : both;
    }
    NT_CHECK(st, nt_expand(t, nd, sa, &a));
    NT_CHECK(st, nt_expand(index, nd, sb, &b));
    {
        nt_name buf[NT_MAX_DIMS];
        const nt_name *names = NULL;
        int on;
        NT_CHECK(st, nt_names_unify_from_right(t->names, nd, index->names, nd, buf, &on, &names));
        NT_CHECK(st, gather_shapes(a, d, b));
        NT_CHECK(st, out_of_bounds(b, d, size_at(a, (int)d)));
        NT_CHECK(st, nt_tensor_alloc(t->dtype, nd, sb, names, &r));
        nt_gather_into(r, a, d, b);
    }
    nt_tensor_release(a);
    nt_tensor_release(b);
    return deliver(c, r);
fail:
    nt_tensor_release(a);
    nt_tensor_release(b);
    return st;
}

/* ------------------------------------------------------------------ shape rules */

nt_status nt_shape_gather(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0), *index = nt_call_tensor(c, 2);
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[1].v.dim, &d));
    NT_TRY(gather_shapes(t, d, index));
    nt_shape_of_tensor(s, index);
    return NT_OK;
}

nt_status nt_shape_index_select(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0), *index = nt_call_tensor(c, 2);
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[1].v.dim, &d));
    if (index->ndim > 1)
        return nt_fail(NT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
    nt_shape_of_tensor(s, t);
    if (t->ndim) s->sizes[d] = index->numel;
    return NT_OK;
}

nt_status nt_shape_take_along_dim(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0), *index = nt_call_tensor(c, 1);
    if (c->args[2].kind != NT_ARG_DIM) {
        nt_shape_set(s, 1, &index->numel);
        return NT_OK;
    }
    int64_t d;
    NT_TRY(resolve_dim(t, c->args[2].v.dim, &d));
    if (t->ndim != index->ndim) return nt_fail(NT_ERR_RUNTIME, "take_along_dim(): ranks differ");
    nt_shape_of_tensor(s, index);
    for (int i = 0; i < t->ndim; i++)
        if (i != d && index->sizes[i] == 1) s->sizes[i] = t->sizes[i];
    return NT_OK;
}

/* ------------------------------------------------------------------ the public functions */

/* runs op(self, dim, index, extra, tail) in place (out NULL) or into *out */
static nt_status index_call(nt_op op, nt_tensor *t, nt_dim dim, const nt_tensor *index,
                            nt_arg extra, nt_arg tail, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = out == NULL;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_dim(dim);
    c.args[2] = nt_arg_tensor((nt_tensor *)index);
    c.args[3] = extra;
    c.args[4] = tail;
    NT_TRY(nt_call_op(&c));
    if (out)
        *out = c.result[0];
    else
        nt_tensor_release(c.result[0]);
    return NT_OK;
}

nt_status nt_gather(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "gather(): the output pointer is NULL");
    return index_call(NT_OP_GATHER, t, dim, index, nt_arg_bool(false), nt_arg_none(), out);
}

nt_status nt_scatter(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *src,
                     const char *reduce, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "scatter(): the output pointer is NULL");
    return index_call(NT_OP_SCATTER, t, dim, index, nt_arg_tensor((nt_tensor *)src),
                      nt_arg_str(reduce), out);
}

nt_status nt_scatter_(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *src,
                      const char *reduce) {
    return index_call(NT_OP_SCATTER, t, dim, index, nt_arg_tensor((nt_tensor *)src),
                      nt_arg_str(reduce), NULL);
}

nt_status nt_scatter_value(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_scalar value,
                           const char *reduce, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "scatter(): the output pointer is NULL");
    return index_call(NT_OP_SCATTER_VALUE, t, dim, index, nt_arg_scalar(value), nt_arg_str(reduce),
                      out);
}

nt_status nt_scatter_value_(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_scalar value,
                            const char *reduce) {
    return index_call(NT_OP_SCATTER_VALUE, t, dim, index, nt_arg_scalar(value), nt_arg_str(reduce),
                      NULL);
}

nt_status nt_scatter_add(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *src,
                         nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "scatter_add(): the output pointer is NULL");
    return index_call(NT_OP_SCATTER_ADD, t, dim, index, nt_arg_tensor((nt_tensor *)src),
                      nt_arg_none(), out);
}

nt_status nt_scatter_add_(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *src) {
    return index_call(NT_OP_SCATTER_ADD, t, dim, index, nt_arg_tensor((nt_tensor *)src),
                      nt_arg_none(), NULL);
}

nt_status nt_index_select(nt_tensor *t, nt_dim dim, const nt_tensor *index, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "index_select(): the output pointer is NULL");
    return index_call(NT_OP_INDEX_SELECT, t, dim, index, nt_arg_none(), nt_arg_none(), out);
}

nt_status nt_index_add(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *source,
                       nt_scalar alpha, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "index_add(): the output pointer is NULL");
    return index_call(NT_OP_INDEX_ADD, t, dim, index, nt_arg_tensor((nt_tensor *)source),
                      nt_arg_scalar(alpha), out);
}

nt_status nt_index_add_(nt_tensor *t, nt_dim dim, const nt_tensor *index, const nt_tensor *source,
                        nt_scalar alpha) {
    return index_call(NT_OP_INDEX_ADD, t, dim, index, nt_arg_tensor((nt_tensor *)source),
                      nt_arg_scalar(alpha), NULL);
}

nt_status nt_take_along_dim(nt_tensor *t, const nt_tensor *indices, const nt_dim *dim,
                            nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "take_along_dim(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_TAKE_ALONG_DIM);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)indices);
    c.args[2] = dim ? nt_arg_dim(*dim) : nt_arg_none();
    NT_TRY(nt_call_op(&c));
    *out = c.result[0];
    return NT_OK;
}
