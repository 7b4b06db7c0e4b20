/*
 * iter.c — building and running the strided iterator (see iter.h for the model).
 *
 * Building follows PyTorch's TensorIterator step by step (overlap checks, then shapes,
 * then the layout) so that the same mistakes give the same errors; the layout rules
 * (reorder by stride, coalesce) are TensorIterator's too, with absolute strides because
 * our views may have negative ones.
 */
#include "iter.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/parallel.h"
#include "core/status.h"

/* ------------------------------------------------------------------ shapes */

static void shape_text(int ndim, const int64_t *sizes, char *buf, size_t cap) {
    size_t len = 0;
    int w = snprintf(buf, cap, "[");
    len = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < ndim && len < cap; i++) {
        w = snprintf(buf + len, cap - len, "%s%" PRId64, i ? ", " : "", sizes[i]);
        len += w > 0 ? (size_t)w : 0;
    }
    if (len < cap) snprintf(buf + len, cap - len, "]");
}

/* shape (ndim dims) := broadcast(shape, t), PyTorch's infer_size with `shape` as tensor a. */
static nt_status broadcast_into(int *ndim, int64_t *shape, const nt_tensor *t) {
    int na = *ndim, nb = t->ndim, n = na > nb ? na : nb;
    int64_t result[NT_MAX_DIMS];
    for (int i = n - 1; i >= 0; i--) {
        int offset = n - 1 - i;
        int da = na - 1 - offset, db = nb - 1 - offset;
        int64_t a = da >= 0 ? shape[da] : 1, b = db >= 0 ? t->sizes[db] : 1;
        if (a != b && a != 1 && b != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "The size of tensor a (%" PRId64 ") must match the size of tensor b "
                           "(%" PRId64 ") at non-singleton dimension %d",
                           a, b, i);
        result[i] = a == 1 ? b : a;
    }
    for (int i = 0; i < n; i++)
        shape[i] = result[i];
    *ndim = n;
    return NT_OK;
}

nt_status nt_broadcast_shapes(int n, nt_tensor *const *ts, int *ndim, int64_t *shape) {
    int nd = 0;
    for (int k = 0; k < n; k++)
        NT_TRY(broadcast_into(&nd, shape, ts[k]));
    *ndim = nd;
    return NT_OK;
}

/* ------------------------------------------------------------------ memory overlap */

bool nt_is_non_overlapping_and_dense(const nt_tensor *t) {
    int n = t->ndim;
    if (n == 1) return t->sizes[0] < 2 || t->strides[0] == 1;
    /* Dims sorted by stride (stable), dims of size < 2 last: insertion sort of indices. */
    int perm[NT_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0; j--) {
            int a = perm[j - 1], b = i;
            bool b_first = t->sizes[a] < 2 ? t->sizes[b] >= 2
                                           : t->sizes[b] >= 2 && t->strides[b] < t->strides[a];
            if (!b_first) break;
            perm[j] = perm[j - 1];
        }
        perm[j] = i;
    }
    int64_t require = 1;
    for (int i = 0; i < n; i++) {
        int64_t size = t->sizes[perm[i]];
        if (size < 2) return true;
        if (t->strides[perm[i]] != require) return false;
        /* Only an empty tensor's sizes overflow here (then a size-0 dim ends the loop):
         * wrap around as PyTorch's does rather than overflow. */
        require = (int64_t)((uint64_t)require * (uint64_t)size);
    }
    return true;
}

nt_overlap nt_internal_overlap(const nt_tensor *t) {
    if (nt_is_non_overlapping_and_dense(t)) return NT_OVERLAP_NO;
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] == 0 && t->sizes[i] > 1) return NT_OVERLAP_PARTIAL;
    return NT_OVERLAP_TOO_HARD;
}

nt_overlap nt_overlap_status(const nt_tensor *a, const nt_tensor *b) {
    if (a == b) return NT_OVERLAP_FULL;
    if (a->numel == 0 || b->numel == 0) return NT_OVERLAP_NO;
    if (!nt_is_non_overlapping_and_dense(a) || !nt_is_non_overlapping_and_dense(b))
        return NT_OVERLAP_TOO_HARD;
    if (a->storage->data != b->storage->data) return NT_OVERLAP_NO;
    const char *a_begin = nt_tensor_bytes(a), *b_begin = nt_tensor_bytes(b);
    const char *a_end = a_begin + a->numel * (int64_t)nt_dtype_table[a->dtype].size;
    const char *b_end = b_begin + b->numel * (int64_t)nt_dtype_table[b->dtype].size;
    if (a_begin == b_begin && a_end == b_end) {
        bool same = a->ndim == b->ndim;
        for (int i = 0; same && i < a->ndim; i++)
            same = a->strides[i] == b->strides[i];
        return same ? NT_OVERLAP_FULL : NT_OVERLAP_PARTIAL;
    }
    return a_begin < b_end && b_begin < a_end ? NT_OVERLAP_PARTIAL : NT_OVERLAP_NO;
}

nt_status nt_check_no_internal_overlap(const nt_tensor *t) {
    if (nt_internal_overlap(t) == NT_OVERLAP_PARTIAL)
        return nt_fail(NT_ERR_RUNTIME,
                       "unsupported operation: more than one element of the written-to tensor "
                       "refers to a single memory location. Please clone() the tensor before "
                       "performing the operation.");
    return NT_OK;
}

nt_status nt_check_no_partial_overlap(const nt_tensor *out, const nt_tensor *in) {
    if (nt_overlap_status(out, in) == NT_OVERLAP_PARTIAL)
        return nt_fail(NT_ERR_RUNTIME,
                       "unsupported operation: some elements of the input tensor and the "
                       "written-to tensor refer to a single memory location. Please clone() "
                       "the tensor before performing the operation.");
    return NT_OK;
}

/* The bytes [lo, hi) that t's elements occupy at most (negative strides included). */
static void byte_extent(const nt_tensor *t, const char **lo, const char **hi) {
    int64_t size = (int64_t)nt_dtype_table[t->dtype].size, low = 0, high = 0;
    for (int i = 0; i < t->ndim; i++) {
        int64_t span = (t->sizes[i] - 1) * t->strides[i] * size;
        if (span < 0)
            low += span;
        else
            high += span;
    }
    *lo = nt_tensor_bytes(t) + low;
    *hi = nt_tensor_bytes(t) + high + size;
}

bool nt_extents_overlap(const nt_tensor *a, const nt_tensor *b) {
    if (a->storage->data != b->storage->data || a->numel == 0 || b->numel == 0) return false;
    const char *alo, *ahi, *blo, *bhi;
    byte_extent(a, &alo, &ahi);
    byte_extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* ------------------------------------------------------------------ layout */

static int64_t abs64(int64_t x) {
    return x < 0 ? -x : x;
}

/* TensorIterator's comparison of two dims at positions i (inner) and j (outer) of the
 * current order: 1 if dim i should move outside dim j, -1 if the order is right, 0 if no
 * operand can tell. Broadcast (stride-0) dims say nothing for their operand. */
static int should_swap(const nt_iter *it, const int64_t (*bs)[NT_MAX_DIMS], const int64_t *shape,
                       int d0, int d1) {
    for (int k = 0; k < it->nops; k++) {
        int64_t s0 = abs64(bs[k][d0]), s1 = abs64(bs[k][d1]);
        if (s0 == 0 || s1 == 0) continue;
        if (s0 < s1) return -1;
        if (s0 > s1) return 1;
        if (shape[d0] > shape[d1]) return 1; /* equal strides: the smaller size goes inside */
    }
    return 0;
}

/* Byte strides of every operand over the broadcast shape, then the reordered, coalesced
 * layout. */
static void compute_layout(nt_iter *it, nt_tensor *const *ops) {
    int nd = it->out_ndim;
    int64_t bs[NT_ITER_MAX_OPS][NT_MAX_DIMS]; /* [operand][broadcast dim] */
    for (int k = 0; k < it->nops; k++) {
        it->data[k] = nt_tensor_bytes(ops[k]);
        it->dtypes[k] = ops[k]->dtype;
    }
    if (it->numel == 0) {
        /* Nothing to visit. An empty operand may have any strides (PyTorch accepts huge ones
         * on empty views), which need not fit as byte strides: none is computed, and the
         * layout is the one of a single element, which nt_iter_run never runs. */
        it->ndim = 0;
        it->nperm = 0;
        it->first[0] = 0;
        return;
    }
    for (int k = 0; k < it->nops; k++) {
        const nt_tensor *t = ops[k];
        int64_t size = (int64_t)nt_dtype_table[t->dtype].size;
        /* A non-empty operand spans (size - 1) * stride bytes of its storage along each dim
         * of size > 1, so these products fit. */
        for (int d = 0; d < nd; d++) {
            int td = d - (nd - t->ndim);
            bs[k][d] = td >= 0 && t->sizes[td] != 1 ? t->strides[td] * size : 0;
        }
    }

    /* Dims of size > 1, innermost (last) first, then TensorIterator's insertion sort. */
    int n = 0;
    for (int d = nd - 1; d >= 0; d--)
        if (it->out_shape[d] != 1) it->perm[n++] = d;
    for (int i = 1; i < n; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int c = should_swap(it, (const int64_t(*)[NT_MAX_DIMS])bs, it->out_shape, it->perm[d0],
                                it->perm[d1]);
            if (c > 0) {
                int tmp = it->perm[d0];
                it->perm[d0] = it->perm[d1];
                it->perm[d1] = tmp;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
    it->nperm = n;

    /* Coalesce: dim j joins the current dim when, for every operand, stepping over the
     * whole current dim lands exactly on the next element of dim j. */
    int out = -1;
    for (int i = 0; i < n; i++) {
        int d = it->perm[i];
        bool join = out >= 0;
        for (int k = 0; join && k < it->nops; k++)
            join = it->shape[out] * it->strides[k][out] == bs[k][d];
        if (join) {
            it->shape[out] *= it->out_shape[d];
            continue;
        }
        out++;
        it->first[out] = i;
        it->shape[out] = it->out_shape[d];
        for (int k = 0; k < it->nops; k++)
            it->strides[k][out] = bs[k][d];
    }
    it->ndim = out + 1;
    it->first[it->ndim] = n;
}

nt_status nt_iter_build(nt_iter *it, int nops, nt_tensor *const *ops, const nt_iter_config *cfg) {
    nt_iter_config c = cfg ? *cfg : nt_iter_defaults();
    if (!it || !ops) return nt_fail(NT_ERR_VALUE, "nt_iter_build: NULL argument");
    if (nops < 1 || nops > NT_ITER_MAX_OPS)
        return nt_fail(NT_ERR_VALUE, "an iterator takes 1 to %d operands, got %d", NT_ITER_MAX_OPS,
                       nops);
    if (c.noutputs < 0 || c.noutputs > nops)
        return nt_fail(NT_ERR_VALUE, "an iterator of %d operands cannot have %d outputs", nops,
                       c.noutputs);
    for (int k = 0; k < nops; k++)
        if (!ops[k]) return nt_fail(NT_ERR_TYPE, "expected a tensor as operand %d, got NULL", k);
    it->nops = nops;
    it->noutputs = c.noutputs;

    if (c.check_mem_overlap) {
        for (int o = 0; o < c.noutputs; o++) {
            NT_TRY(nt_check_no_internal_overlap(ops[o]));
            for (int k = c.noutputs; k < nops; k++)
                NT_TRY(nt_check_no_partial_overlap(ops[o], ops[k]));
        }
    }

    NT_TRY(nt_broadcast_shapes(nops, ops, &it->out_ndim, it->out_shape));
    for (int o = 0; o < c.noutputs; o++)
        NT_TRY(nt_check_output_shape(ops[o], it->out_ndim, it->out_shape));
    NT_TRY(nt_shape_check(it->out_ndim, it->out_shape, &it->numel));
    compute_layout(it, ops);
    return NT_OK;
}

nt_status nt_fail_output_shape(const nt_tensor *t, int ndim, const int64_t *shape) {
    char have[512], want[512];
    shape_text(t->ndim, t->sizes, have, sizeof have);
    shape_text(ndim, shape, want, sizeof want);
    return nt_fail(NT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                   have, want);
}

bool nt_iter_is_flat(const nt_iter *it) {
    if (it->ndim > 1) return false;
    for (int k = 0; k < it->nops && it->ndim == 1; k++)
        if (it->strides[k][0] != (int64_t)nt_dtype_table[it->dtypes[k]].size) return false;
    return true;
}

/* ------------------------------------------------------------------ running */

void nt_iter_run_range(const nt_iter *it, int64_t begin, int64_t end, nt_loop2d loop, void *ctx) {
    int nops = it->nops, nd = it->ndim;
    char *ptrs[NT_ITER_MAX_OPS];
    int64_t st[2 * NT_ITER_MAX_OPS];
    if (begin >= end) return;
    if (nd == 0) { /* one element */
        for (int k = 0; k < nops; k++)
            ptrs[k] = it->data[k], st[k] = st[nops + k] = 0;
        loop(ptrs, st, 1, 1, ctx);
        return;
    }
    for (int k = 0; k < nops; k++) {
        st[k] = it->strides[k][0];
        st[nops + k] = nd > 1 ? it->strides[k][1] : 0;
    }
    int64_t counter[NT_MAX_DIMS], rest = begin;
    for (int d = 0; d < nd; d++) {
        counter[d] = rest % it->shape[d];
        rest /= it->shape[d];
    }
    for (int64_t pos = begin; pos < end;) {
        for (int k = 0; k < nops; k++) {
            char *p = it->data[k];
            for (int d = 0; d < nd; d++)
                p += counter[d] * it->strides[k][d];
            ptrs[k] = p;
        }
        /* A block of whole rows when at a row start, else the rest of this row. */
        int64_t n0 = it->shape[0] - counter[0], n1 = 1;
        if (n0 > end - pos) n0 = end - pos;
        if (n0 == it->shape[0] && nd > 1) {
            n1 = it->shape[1] - counter[1];
            if (n1 > (end - pos) / n0) n1 = (end - pos) / n0;
        }
        loop(ptrs, st, n0, n1, ctx);
        pos += n0 * n1;
        int d = n1 > 1 ? 1 : 0;
        counter[d] += n1 > 1 ? n1 : n0;
        for (; d < nd - 1 && counter[d] == it->shape[d]; d++) {
            counter[d] = 0;
            counter[d + 1]++;
        }
    }
}

typedef struct run_ctx {
    const nt_iter *it;
    nt_loop2d loop;
    void *ctx;
} run_ctx;

static void run_chunk(void *p, int64_t begin, int64_t end) {
    const run_ctx *r = p;
    nt_iter_run_range(r->it, begin, end, r->loop, r->ctx);
}

void nt_iter_run(const nt_iter *it, nt_loop2d loop, void *ctx) {
    if (it->numel <= 0) return;
    run_ctx r = {it, loop, ctx};
    nt_parallel_for(0, it->numel, NT_GRAIN_SIZE, run_chunk, &r);
}
