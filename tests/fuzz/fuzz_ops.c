/*
 * fuzz_ops.c — libFuzzer harness for the iterator-driven operators.
 *
 * The input is a byte-code program over a few tensor slots. Tensors are made with
 * nt_from_buffer from input bytes (any dtype, so floats hold NaNs, infinities and
 * subnormals, and bool tensors hold arbitrary bytes, not only 0 and 1), then reshaped into
 * other layouts by as_strided, expand, transpose, select, narrow, permute and unsqueeze.
 * The ops: copy_, binary (every nt_binary_op, scalars, alpha, out=, in place), unary,
 * the reductions (sum ... amin, reduce_out, var/std, max_dim, argmax, kthvalue, topk,
 * mode, median), cumsum/cumprod, softmax, cat/stack, the matrix products, where, clamp,
 * masked_fill/masked_select, indexing with every nt_index kind (get and set), resize_,
 * conversions, nt_format under fuzzed print options, and any op of the op table through the
 * generic entry nt_call_op, its slots filled by the kinds its schema names, its result's
 * shape predicted first by nt_op_result_shape (which must never crash, and must be right
 * about every call that succeeds).
 *
 * Each op's result is checked (sane metadata, every element readable, a contiguous copy
 * equal) and goes into a slot, so ops chain. Inputs to ops are kept small and the result's
 * element count is estimated before each call, so that one input stays within a few MiB.
 */
#include "fuzz_input.h"

#define NSLOTS 6
#define MAX_OPS 40
/* Tensors with more elements (expanded views can have many) are not fed to ops. */
#define MAX_INPUT_ELEMS 4096
/* The most elements an op may be asked to produce. */
#define MAX_RESULT_ELEMS ((int64_t)1 << 17)

typedef struct state {
    nt_tensor *slot[NSLOTS];
} state;

/* Every op's schema, parsed once (the slots op_call fills). */
static nt_sig schemas[NT_OP_COUNT];
static bool schema_ok[NT_OP_COUNT];
/* The ops of the binary and unary families (their typed entries refuse the others). */
static nt_op binary_ops[NT_OP_COUNT], unary_ops[NT_OP_COUNT];
static int nbinary, nunary;
static nt_name name_n, name_c;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fz_init_trace();
    nt_name_intern("N", &name_n);
    nt_name_intern("C", &name_c);
    for (int op = 0; op < NT_OP_COUNT; op++) {
        const char *text = nt_op_schema((nt_op)op);
        schema_ok[op] = nt_sig_parse(text, strlen(text), &schemas[op]) == NT_OK;
        if (!schema_ok[op] || nt_op_kind_of((nt_op)op) != NT_OPK_POINTWISE) continue;
        const nt_sig *sig = &schemas[op];
        if (sig->nparams >= 2 && strcmp(sig->params[1].type, "Operand") == 0)
            binary_ops[nbinary++] = (nt_op)op;
        else if (sig->nparams == 1)
            unary_ops[nunary++] = (nt_op)op;
    }
    nt_clear_error();
    return 0;
}

/* ------------------------------------------------------------------ helpers */

/* The tensor in the slot named by the next byte, if it is small enough for an op. */
static nt_tensor *pick(state *s, fz_input *in) {
    nt_tensor *t = s->slot[fz_u8(in) % NSLOTS];
    return t && nt_tensor_numel(t) <= MAX_INPUT_ELEMS ? t : NULL;
}

/* A tensor for an out= argument: as pick, and not at an offset so large that resizing it
 * (PyTorch's out= rule keeps the offset) would ask for more memory than a fuzz run has. */
static nt_tensor *pick_out(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in);
    return t && nt_tensor_offset(t) <= MAX_RESULT_ELEMS ? t : NULL;
}

/* Checks a result and stores it in the slot named by the next byte. */
static void keep(state *s, fz_input *in, nt_tensor *t) {
    fz_check_tensor(t);
    int dst = fz_u8(in) % NSLOTS;
    nt_tensor_release(s->slot[dst]);
    s->slot[dst] = t;
}

/* The element count of the broadcast of n shapes (mismatches ignored: the call fails on
 * them), saturated at INT64_MAX. */
static int64_t broadcast_numel(int n, nt_tensor *const *ts) {
    int nd = 0;
    for (int k = 0; k < n; k++)
        if (ts[k] && nt_tensor_ndim(ts[k]) > nd) nd = nt_tensor_ndim(ts[k]);
    int64_t total = 1;
    for (int d = 0; d < nd; d++) {
        int64_t size = 1;
        for (int k = 0; k < n; k++) {
            if (!ts[k]) continue;
            int td = d - (nd - nt_tensor_ndim(ts[k]));
            int64_t sz = td >= 0 ? nt_tensor_sizes(ts[k])[td] : 1;
            if (sz != 1) size = sz;
        }
        if (size == 0) return 0;
        if (__builtin_mul_overflow(total, size, &total)) total = INT64_MAX;
    }
    return total;
}

static bool small_result(int64_t numel) {
    return numel >= 0 && numel <= MAX_RESULT_ELEMS;
}

/* A tensor or a scalar operand. */
static nt_operand fuzz_operand(state *s, fz_input *in) {
    nt_tensor *t = fz_u8(in) % 4 ? pick(s, in) : NULL;
    return t ? nt_operand_tensor(t) : nt_operand_scalar(fz_scalar(in));
}

/* A dim list of 0..3 entries (or, rarely, a bad count): a heap array of `*count`. */
static int64_t *fuzz_dims(fz_input *in, int *count) {
    uint8_t b = fz_u8(in);
    *count = b < 0xF0 ? b % 4 : (b & 1 ? -1 : 65);
    return fz_ints(in, *count);
}

/* A dtype argument of the reductions and scans: -1 (default) most of the time. */
static int fuzz_dtype_arg(fz_input *in) {
    return fz_u8(in) < 0xC0 ? -1 : (int)fz_dtype(in);
}

/* ------------------------------------------------------------------ making tensors */

/* A tensor of a small fuzzed shape holding the next input bytes as its elements. */
static void op_create(state *s, fz_input *in) {
    nt_dtype dtype = (nt_dtype)(fz_u8(in) % NT_DTYPE_COUNT);
    int nd = fz_u8(in) % 5;
    int64_t sizes[4];
    for (int i = 0; i < nd; i++)
        sizes[i] = fz_u8(in) % 6;
    size_t esize = nt_dtype_size(dtype);
    size_t nbytes = (size_t)fz_numel(nd, sizes) * esize;
    char *buf = calloc(nbytes + 1, 1);
    size_t have = in->n < nbytes ? in->n : nbytes;
    memcpy(buf, in->p, have); /* bytes past the input's end stay zero */
    in->p += have, in->n -= have;
    nt_tensor *t = NULL;
    if (FZ_OK(nt_from_buffer(buf, dtype, nd, sizes, NULL, &t))) keep(s, in, t);
    free(buf);
}

/* Another layout of a slot's tensor: a view the library checks (or refuses). */
static void op_view(state *s, fz_input *in) {
    nt_tensor *t = s->slot[fz_u8(in) % NSLOTS], *r = NULL;
    if (!t) return;
    int nd = nt_tensor_ndim(t);
    bool ok = false;
    switch (fz_u8(in) % 7) {
    case 0: {
        /* small views inside the storage, or (when some size is 0) any strides and offset:
         * PyTorch accepts those on empty views, and every op must cope with them */
        int n = fz_u8(in) % 5;
        int64_t sizes[4], strides[4];
        bool wild = fz_u8(in) >= 0xC0;
        for (int i = 0; i < n; i++) {
            sizes[i] = fz_u8(in) % 6;
            strides[i] = wild ? fz_edges[fz_u8(in) & 0xF] : fz_u8(in) % 7;
        }
        if (wild && n > 0) sizes[fz_u8(in) % n] = 0;
        int64_t offset = wild ? fz_edges[fz_u8(in) & 0xF] : fz_u8(in) % 8;
        ok = FZ_OK(nt_as_strided(t, n, sizes, strides, offset, &r));
        break;
    }
    case 1: {
        int n = nd + fz_u8(in) % 2;
        int64_t sizes[NT_MAX_DIMS];
        if (n > NT_MAX_DIMS) return;
        for (int i = 0; i < n; i++) {
            int d = i - (n - nd);
            sizes[i] = d >= 0 && nt_tensor_sizes(t)[d] != 1 ? -1 : fz_u8(in) % 6;
        }
        ok = FZ_OK(nt_expand(t, n, sizes, &r));
        break;
    }
    case 2: {
        int64_t d0 = fz_int(in), d1 = fz_int(in);
        ok = FZ_OK(nt_transpose(t, d0, d1, &r));
        break;
    }
    case 3: {
        int64_t dim = fz_int(in), index = fz_int(in);
        ok = FZ_OK(nt_select(t, dim, index, &r));
        break;
    }
    case 4: {
        int64_t dim = fz_int(in), start = fz_int(in), length = fz_int(in);
        ok = FZ_OK(nt_narrow(t, dim, start, length, &r));
        break;
    }
    case 5: {
        int64_t dims[NT_MAX_DIMS];
        for (int i = 0; i < nd; i++)
            dims[i] = i;
        for (int i = nd - 1; i > 0; i--) {
            int j = fz_u8(in) % (i + 1);
            int64_t tmp = dims[i];
            dims[i] = dims[j], dims[j] = tmp;
        }
        ok = FZ_OK(nt_permute(t, nd, dims, &r));
        break;
    }
    default:
        ok = FZ_OK(nt_unsqueeze(t, fz_int(in), &r));
        break;
    }
    if (ok) keep(s, in, r);
}

/* ------------------------------------------------------------------ pointwise */

static void op_copy(state *s, fz_input *in) {
    nt_tensor *dst = pick(s, in), *src = pick(s, in);
    if (!dst || !src) return;
    if (FZ_OK(nt_copy_(dst, src))) fz_check_tensor(dst);
}

static void op_binary(state *s, fz_input *in) {
    /* mostly the family's ops; now and then any id, which must be refused */
    nt_binary_op op = fz_u8(in) % 16 ? binary_ops[fz_u8(in) % nbinary]
                                     : (nt_binary_op)(fz_u8(in) % (NT_OP_COUNT + 1));
    nt_operand a = fuzz_operand(s, in), b = fuzz_operand(s, in);
    nt_scalar alpha = fz_scalar(in);
    bool use_alpha = fz_u8(in) % 4 == 0;
    nt_tensor *out = fz_u8(in) % 4 == 0 ? pick_out(s, in) : NULL;
    bool inplace = fz_u8(in) % 4 == 0;
    nt_tensor *ts[3] = {a.tensor, b.tensor, out};
    if (!small_result(broadcast_numel(3, ts))) return;
    nt_tensor *r = NULL;
    if (!FZ_OK(nt_binary_ex(op, a, b, use_alpha ? &alpha : NULL, out, inplace, &r))) return;
    keep(s, in, r);
}

static void op_unary(state *s, fz_input *in) {
    nt_op op =
        fz_u8(in) % 16 ? unary_ops[fz_u8(in) % nunary] : (nt_op)(fz_u8(in) % (NT_OP_COUNT + 1));
    nt_tensor *t = pick(s, in), *out = fz_u8(in) % 4 == 0 ? pick_out(s, in) : NULL, *r = NULL;
    bool inplace = fz_u8(in) % 4 == 0;
    if (!t) return;
    bool ok = fz_u8(in) % 8 ? FZ_OK(nt_unary_ex(op, t, out, inplace, &r))
                            : FZ_OK(nt_round_decimals(t, fz_int(in), out, inplace, &r));
    if (ok) keep(s, in, r);
}

static void op_where(state *s, fz_input *in) {
    nt_tensor *cond = pick(s, in), *out = fz_u8(in) % 4 == 0 ? pick_out(s, in) : NULL, *r = NULL;
    nt_operand a = fuzz_operand(s, in), b = fuzz_operand(s, in);
    nt_tensor *ts[4] = {cond, a.tensor, b.tensor, out};
    if (!cond || !small_result(broadcast_numel(4, ts))) return;
    if (FZ_OK(nt_where(cond, a, b, out, &r))) keep(s, in, r);
}

static void op_clamp(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in), *out = fz_u8(in) % 4 == 0 ? pick_out(s, in) : NULL, *r = NULL;
    nt_operand lo = fuzz_operand(s, in), hi = fuzz_operand(s, in);
    uint8_t which = fz_u8(in);
    bool inplace = fz_u8(in) % 4 == 0;
    nt_tensor *ts[4] = {t, which & 1 ? lo.tensor : NULL, which & 2 ? hi.tensor : NULL, out};
    if (!t || !small_result(broadcast_numel(4, ts))) return;
    if (FZ_OK(nt_clamp(t, which & 1 ? &lo : NULL, which & 2 ? &hi : NULL, out, inplace, &r)))
        keep(s, in, r);
}

static void op_mask(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in), *mask = pick(s, in), *value = pick(s, in), *r = NULL;
    nt_scalar v = fz_scalar(in);
    nt_tensor *ts[2] = {t, mask};
    if (!t || !mask || !small_result(broadcast_numel(2, ts))) return;
    switch (fz_u8(in) % 5) {
    case 0:
        if (FZ_OK(nt_masked_fill(t, mask, v, &r))) keep(s, in, r);
        break;
    case 1:
        if (FZ_OK(nt_masked_fill_(t, mask, v))) fz_check_tensor(t);
        break;
    case 2:
        if (value && FZ_OK(nt_masked_fill_tensor(t, mask, value, &r))) keep(s, in, r);
        break;
    case 3:
        if (value && FZ_OK(nt_masked_fill_tensor_(t, mask, value))) fz_check_tensor(t);
        break;
    default:
        if (FZ_OK(nt_masked_select(t, mask, &r))) keep(s, in, r);
        break;
    }
}

/* ------------------------------------------------------------------ reductions */

static void op_reduce(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in), *r = NULL;
    int count, dtype = fuzz_dtype_arg(in), which = fz_u8(in) % 11;
    int64_t *dims = fuzz_dims(in, &count);
    bool keepdim = fz_bool(in);
    double correction = (double)(fz_u8(in) % 4) - 1;
    if (!t) goto done;
    bool ok;
    switch (which) {
    case 0:
        ok = FZ_OK(nt_sum(t, count, dims, keepdim, dtype, &r));
        break;
    case 1:
        ok = FZ_OK(nt_mean(t, count, dims, keepdim, dtype, &r));
        break;
    case 2:
        ok = FZ_OK(nt_prod(t, count, dims, keepdim, dtype, &r));
        break;
    case 3:
        ok = FZ_OK(nt_var(t, count, dims, correction, keepdim, &r));
        break;
    case 4:
        ok = FZ_OK(nt_std(t, count, dims, correction, keepdim, &r));
        break;
    case 5:
        ok = FZ_OK(nt_logsumexp(t, count, dims, keepdim, &r));
        break;
    case 6:
        ok = FZ_OK(nt_all(t, count, dims, keepdim, &r));
        break;
    case 7:
        ok = FZ_OK(nt_any(t, count, dims, keepdim, &r));
        break;
    case 8:
        ok = FZ_OK(nt_amax(t, count, dims, keepdim, &r));
        break;
    case 9:
        ok = FZ_OK(nt_amin(t, count, dims, keepdim, &r));
        break;
    default: {
        nt_tensor *out = pick_out(s, in);
        nt_op op = (nt_op)(NT_OP_SUM + fz_u8(in) % 11);
        ok = out && FZ_OK(nt_reduce_out(op, t, count, dims, keepdim, dtype, correction, out));
        if (ok) r = nt_tensor_retain(out);
        break;
    }
    }
    if (ok) keep(s, in, r);
done:
    free(dims);
}

/* The ops that give values and indices (or one of them) along one dim. */
static void op_reduce_dim(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in), *v = NULL, *i = NULL;
    int64_t dim = fz_int(in), k = fz_int(in);
    bool keepdim = fz_bool(in), flag = fz_bool(in);
    if (!t) return;
    bool ok;
    switch (fz_u8(in) % 9) {
    case 0:
        ok = FZ_OK(nt_max_dim(t, dim, keepdim, &v, &i));
        break;
    case 1:
        ok = FZ_OK(nt_min_dim(t, dim, keepdim, &v, &i));
        break;
    case 2:
        ok = FZ_OK(nt_argmax(t, flag ? &dim : NULL, keepdim, &i));
        break;
    case 3:
        ok = FZ_OK(nt_argmin(t, flag ? &dim : NULL, keepdim, &i));
        break;
    case 4:
        ok = FZ_OK(nt_kthvalue(t, k, dim, keepdim, &v, &i));
        break;
    case 5:
        ok = FZ_OK(nt_topk(t, k, dim, flag, keepdim, &v, &i));
        break;
    case 6:
        ok = FZ_OK(nt_mode(t, dim, keepdim, &v, &i));
        break;
    case 7:
        ok = FZ_OK(nt_median_dim(t, dim, keepdim, &v, &i));
        break;
    default:
        ok = flag ? FZ_OK(nt_max_all(t, &v)) : FZ_OK(nt_median_all(t, &v));
        break;
    }
    if (!ok) return;
    if (i) {
        FZ_ASSERT(nt_tensor_dtype(i) == NT_INT64);
        keep(s, in, i);
    }
    if (v) keep(s, in, v);
}

static void op_scan(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in), *r = NULL;
    int64_t dim = fz_int(in);
    int dtype = fuzz_dtype_arg(in), which = fz_u8(in) % 4;
    if (!t) return;
    bool ok = which == 0   ? FZ_OK(nt_cumsum(t, dim, dtype, &r))
              : which == 1 ? FZ_OK(nt_cumprod(t, dim, dtype, &r))
              : which == 2 ? FZ_OK(nt_softmax(t, dim, dtype, &r))
                           : FZ_OK(nt_log_softmax(t, dim, dtype, &r));
    if (ok) keep(s, in, r);
}

/* ------------------------------------------------------------------ joins, products */

static void op_join(state *s, fz_input *in) {
    int count = fz_u8(in) % 5;
    nt_tensor *ts[4] = {NULL}, *r = NULL;
    for (int i = 0; i < count; i++)
        if (!(ts[i] = pick(s, in))) return;
    int64_t dim = fz_int(in);
    nt_tensor *out = fz_u8(in) % 4 == 0 ? pick_out(s, in) : NULL;
    /* cat resizes out=, keeping its offset: its storage may grow to offset + numel elements
     * (a view with no elements may sit at any offset) */
    int64_t need = 0;
    for (int i = 0; i < count; i++)
        need += nt_tensor_numel(ts[i]);
    if (out && (__builtin_add_overflow(need, nt_tensor_offset(out), &need) ||
                fz_budget_for(need, (int64_t)nt_dtype_size(nt_tensor_dtype(out))) != FZ_CALL))
        out = NULL;
    for (int i = 0; i < count; i++)
        fz_describe("input", ts[i]);
    if (out) fz_describe("out", out);
    if (fz_bool(in)) {
        if (FZ_OK(nt_cat(count, ts, dim, out, &r))) keep(s, in, r);
    } else {
        if (FZ_OK(nt_stack(count, ts, dim, out, &r))) keep(s, in, r);
    }
}

/* An upper bound on a matrix product's element count: batch dims broadcast, times a's
 * rows and b's columns. */
static int64_t product_numel(const nt_tensor *a, const nt_tensor *b) {
    int na = nt_tensor_ndim(a), nb = nt_tensor_ndim(b);
    int64_t rows = na >= 2 ? nt_tensor_sizes(a)[na - 2] : 1;
    int64_t cols = nb >= 2 ? nt_tensor_sizes(b)[nb - 1] : 1;
    nt_tensor *batch[2] = {(nt_tensor *)a, (nt_tensor *)b};
    int64_t n = broadcast_numel(2, batch), total;
    if (__builtin_mul_overflow(n, rows, &total) || __builtin_mul_overflow(total, cols, &total))
        return INT64_MAX;
    return total;
}

static void op_matmul(state *s, fz_input *in) {
    nt_tensor *a = pick(s, in), *b = pick(s, in), *c = pick(s, in), *r = NULL;
    int which = fz_u8(in) % 6;
    nt_scalar beta = fz_scalar(in), alpha = fz_scalar(in);
    if (!a || !b || !small_result(product_numel(a, b))) return;
    bool ok;
    switch (which) {
    case 0:
        ok = FZ_OK(nt_mm(a, b, &r));
        break;
    case 1:
        ok = FZ_OK(nt_matmul(a, b, &r));
        break;
    case 2:
        ok = FZ_OK(nt_bmm(a, b, &r));
        break;
    case 3:
        ok = FZ_OK(nt_mv(a, b, &r));
        break;
    case 4:
        ok = FZ_OK(nt_dot(a, b, &r));
        break;
    default:
        if (!c || !small_result(nt_tensor_numel(c))) return;
        ok = FZ_OK(nt_addmm(c, a, b, beta, alpha, &r));
        break;
    }
    if (ok) keep(s, in, r);
}

/* ------------------------------------------------------------------ indexing */

/* Reads `count` index entries; returns an upper bound on the elements a gather makes. */
static int64_t fuzz_index(state *s, fz_input *in, const nt_tensor *t, int count, nt_index *idx) {
    nt_tensor *tensors[NT_MAX_DIMS];
    int ntensors = 0;
    for (int i = 0; i < count; i++) {
        nt_index *x = &idx[i];
        memset(x, 0, sizeof *x);
        uint8_t kind = fz_u8(in) % 7;
        x->kind = kind == 6 ? (nt_index_kind)99 : (nt_index_kind)kind;
        switch (kind) {
        case NT_INDEX_INT:
            x->i = fz_int(in);
            break;
        case NT_INDEX_SLICE:
            x->start = fz_int(in);
            x->stop = fz_u8(in) & 1 ? NT_SLICE_END : fz_int(in);
            x->step = fz_u8(in) < 0xF0 ? 1 + fz_u8(in) % 3 : fz_int(in);
            break;
        case NT_INDEX_BOOL:
            x->i = fz_u8(in) < 0xF0 ? fz_bool(in) : fz_int(in);
            break;
        case NT_INDEX_TENSOR:
            x->tensor = pick(s, in);
            if (x->tensor && nt_tensor_numel(x->tensor) > 64) x->tensor = NULL;
            if (x->tensor) tensors[ntensors++] = (nt_tensor *)x->tensor;
            break;
        default:
            break;
        }
    }
    /* A gather has at most (broadcast index shape) x (t's elements) elements; a bool mask
     * gives at most its element count of positions. */
    int64_t positions = 1, bound;
    for (int i = 0; i < ntensors; i++) {
        int64_t n = nt_tensor_numel(tensors[i]);
        positions = n > positions ? n : positions;
    }
    if (ntensors > 1)
        positions = broadcast_numel(ntensors, tensors) > positions
                        ? broadcast_numel(ntensors, tensors)
                        : positions;
    if (__builtin_mul_overflow(positions, nt_tensor_numel(t) + 1, &bound)) return INT64_MAX;
    return bound;
}

static void op_index(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in), *value = pick(s, in), *r = NULL;
    int count = fz_u8(in) % 5;
    nt_index idx[4];
    if (!t) return;
    int64_t bound = fuzz_index(s, in, t, count, idx);
    nt_scalar v = fz_scalar(in);
    bool single = fz_bool(in);
    if (!small_result(bound)) return;
    switch (fz_u8(in) % 4) {
    case 0:
        if (FZ_OK(nt_index_get(t, count, idx, &r))) keep(s, in, r);
        break;
    case 1:
        if (count >= 1 && FZ_OK(nt_index_get1(t, idx, &r))) keep(s, in, r);
        break;
    case 2:
        if (value && FZ_OK(nt_index_set_(t, count, idx, single, value))) fz_check_tensor(t);
        break;
    default:
        if (FZ_OK(nt_index_set_scalar_(t, count, idx, single, v))) fz_check_tensor(t);
        break;
    }
}

/* ------------------------------------------------------------------ the rest */

static void op_convert(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in), *r = NULL;
    nt_dtype dtype = fz_dtype(in);
    nt_scalar v = fz_scalar(in);
    if (!t) return;
    switch (fz_u8(in) % 5) {
    case 0:
        if (FZ_OK(nt_to_dtype(t, dtype, &r))) keep(s, in, r);
        break;
    case 1:
        if (FZ_OK(nt_clone(t, &r))) keep(s, in, r);
        break;
    case 2:
        if (FZ_OK(nt_fill_(t, v))) fz_check_tensor(t);
        break;
    case 3: {
        nt_tensor *other = pick(s, in);
        bool same = false;
        if (other && FZ_OK(nt_allclose(t, other, 1e-5, 1e-8, fz_bool(in), &same))) {
            nt_tensor *ts[2] = {t, other};
            if (small_result(broadcast_numel(2, ts)) &&
                FZ_OK(nt_isclose(t, other, 1e-5, 1e-8, false, &r)))
                keep(s, in, r);
        }
        break;
    }
    default: {
        /* resize_ keeps the offset: the storage it may grow to is offset + numel elements */
        int n = fz_u8(in) % 4;
        int64_t sizes[3];
        for (int i = 0; i < n; i++)
            sizes[i] = fz_u8(in) % 6;
        int64_t need, numel = fz_numel(n, sizes);
        if (__builtin_add_overflow(nt_tensor_offset(t), numel, &need)) need = -1;
        fz_budget budget = fz_budget_for(need, (int64_t)nt_dtype_size(nt_tensor_dtype(t)));
        if (numel > 0 && budget == FZ_SKIP) return; /* an empty shape needs no storage */
        bool ok = FZ_OK(nt_resize_(t, n, sizes));
        if (numel > 0 && budget == FZ_MUST_FAIL) FZ_ASSERT(!ok);
        if (ok) fz_check_tensor(t);
        break;
    }
    }
}

/* nt_format, sometimes under fuzzed print options (restored afterwards). */
static void op_format(state *s, fz_input *in) {
    nt_tensor *t = pick(s, in);
    char *text = NULL;
    if (!t) return;
    bool custom = fz_u8(in) % 4 == 0;
    if (custom) {
        nt_print_options o = nt_default_print_options();
        o.precision = fz_u8(in) < 0xF0 ? fz_u8(in) % 12 : fz_int(in);
        o.threshold = fz_u8(in) % 2 ? INFINITY : (double)(fz_u8(in) % 20);
        o.edgeitems = fz_u8(in) < 0xF0 ? fz_u8(in) % 5 : fz_int(in);
        o.linewidth = fz_u8(in) < 0xF0 ? fz_u8(in) % 100 : fz_int(in);
        o.sci_mode = (int)(fz_u8(in) % 4) - 1;
        FZ_OK(nt_set_print_options(&o));
    }
    if (FZ_OK(nt_format(t, &text))) fz_check_text(text);
    if (custom) {
        nt_print_options o = nt_default_print_options();
        FZ_ASSERT(FZ_OK(nt_set_print_options(&o)));
    }
}

/* What nt_op_result_shape said about a call before it ran: the first result's shape, and
 * for a list its length and the shapes of its first entries. */
#define PREDICTED_ENTRIES 4
typedef struct predicted {
    bool ok;
    int64_t count;
    int ndim[PREDICTED_ENTRIES];
    int64_t sizes[PREDICTED_ENTRIES][NT_MAX_DIMS];
} predicted;

static void predict(const nt_call *c, predicted *p) {
    p->count = 0;
    p->ok = FZ_OK(nt_op_result_list_shape(c, 0, &p->count, &p->ndim[0], p->sizes[0]));
    for (int64_t k = 1; p->ok && k < p->count && k < PREDICTED_ENTRIES; k++)
        FZ_ASSERT(FZ_OK(nt_op_result_list_shape(c, k, NULL, &p->ndim[k], p->sizes[k])));
}

static bool has_shape(const nt_tensor *t, int ndim, const int64_t *sizes) {
    if (nt_tensor_ndim(t) != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (nt_tensor_sizes(t)[d] != sizes[d]) return false;
    return true;
}

/* After a successful call: the rule's answer matches every tensor returned. */
static void check_predicted(const nt_call *c, const predicted *p) {
    nt_shape_rule rule = nt_op_shape_rule(c->op);
    if (rule == NT_SHAPE_NO_TENSOR || rule == NT_SHAPE_DATA_DEPENDENT) {
        FZ_ASSERT(!p->ok);
        return;
    }
    if (!p->ok)
        fprintf(stderr, "shape rule of %s refused a call that succeeded\n", nt_op_name(c->op));
    FZ_ASSERT(p->ok);
    bool same = true;
    if (c->list || c->nlist) {
        same = p->count == c->nlist;
        for (int64_t k = 0; same && k < c->nlist && k < PREDICTED_ENTRIES; k++)
            same = has_shape(c->list[k], p->ndim[k], p->sizes[k]);
    } else {
        for (int k = 0; k < 2; k++)
            if (c->result[k]) same = same && has_shape(c->result[k], p->ndim[0], p->sizes[0]);
    }
    if (!same) {
        fprintf(stderr, "shape rule of %s: predicted %d dims [", nt_op_name(c->op), p->ndim[0]);
        for (int d = 0; d < p->ndim[0]; d++)
            fprintf(stderr, "%s%lld", d ? ", " : "", (long long)p->sizes[0][d]);
        fprintf(stderr, "], count %lld\n", (long long)p->count);
        if (c->result[0]) fz_describe("result", c->result[0]);
        if (c->nlist) fz_describe("list[0]", c->list[0]);
    }
    FZ_ASSERT(same);
}

/* Whether every element of t lies in [-MAX_INPUT_VALUE, MAX_INPUT_VALUE] (NaN does too). */
#define MAX_INPUT_VALUE 256
static bool small_values(const nt_tensor *t) {
    if (!t || nt_tensor_numel(t) == 0) return true;
    int64_t idx[NT_MAX_DIMS] = {0};
    do {
        if (fabs(fz_get(t, idx)) > MAX_INPUT_VALUE) return false;
    } while (fz_next_index(nt_tensor_ndim(t), nt_tensor_sizes(t), idx));
    return true;
}

/* A data-dependent op's result size comes from its inputs' values (repeat_interleave's from
 * its repeats, bincount's from the largest): it runs when they are small, so that at most 256
 * elements repeated or counted up to 256 times stay within MAX_RESULT_ELEMS. */
static bool small_inputs(const nt_call *c) {
    for (int i = 0; i < NT_CALL_MAX_ARGS; i++) {
        const nt_arg *a = &c->args[i];
        if (a->kind == NT_ARG_TENSOR && !small_values(a->v.t)) return false;
        for (int j = 0; a->kind == NT_ARG_TENSORS && j < a->n; j++)
            if (!small_values(a->v.tensors[j])) return false;
    }
    return true;
}

/* Any op of the table through nt_call_op: each slot gets a value of its schema's kind (or
 * none), small ints so that no op is asked for much memory, tensors of few elements. */
static void op_call(state *s, fz_input *in) {
    nt_op op = (nt_op)(((unsigned)fz_u8(in) << 8 | fz_u8(in)) % NT_OP_COUNT);
    if (!schema_ok[op]) return;
    nt_op_kind kind = nt_op_kind_of(op);
    const nt_sig *sig = &schemas[op];
    static const char *const strs[] = {"floor", "trunc", "none", "mean", "x"};
    nt_dim dims[NT_CALL_MAX_ARGS][4];
    nt_name names[NT_CALL_MAX_ARGS][4];
    nt_tensor *lists[NT_CALL_MAX_ARGS][3];
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = op;
    unsigned flags = nt_op_flags(op);
    for (int i = 0; i < sig->nparams; i++) {
        int k = nt_sig_kind_of(sig->params[i].type);
        bool operand = strcmp(sig->params[i].type, "Operand") == 0;
        nt_tensor *t = NULL;
        int n = fz_u8(in) % 4;
        if (fz_u8(in) % 8 == 0) { /* left out: the default, or a refusal */
            c.args[i] = nt_arg_none();
            continue;
        }
        if (operand) k = fz_bool(in) ? NT_ARG_TENSOR : NT_ARG_SCALAR;
        switch (k) {
        case NT_ARG_TENSOR:
            t = pick(s, in);
            if (t && nt_tensor_numel(t) > 256) t = NULL;
            c.args[i] = nt_arg_tensor(t);
            break;
        case NT_ARG_SCALAR:
            c.args[i] = nt_arg_scalar(fz_scalar(in));
            break;
        case NT_ARG_INT:
        case NT_ARG_DIM:
            c.args[i] = k == NT_ARG_INT ? nt_arg_int((int)(fz_u8(in) % 9) - 4)
                                        : nt_arg_dim((int)(fz_u8(in) % 9) - 4);
            break;
        case NT_ARG_FLOAT:
            c.args[i] = nt_arg_float((double)(int8_t)fz_u8(in) / 16);
            break;
        case NT_ARG_BOOL:
            c.args[i] = nt_arg_bool(fz_bool(in));
            break;
        case NT_ARG_DTYPE:
            c.args[i] = nt_arg_dtype((int)fz_dtype(in));
            break;
        case NT_ARG_DIMS:
        case NT_ARG_INTS:
            for (int j = 0; j < n; j++)
                dims[i][j] = (int)(fz_u8(in) % 9) - 4;
            c.args[i] = k == NT_ARG_DIMS ? nt_arg_dims(n, dims[i]) : nt_arg_ints(n, dims[i]);
            break;
        case NT_ARG_NAMES:
            for (int j = 0; j < n; j++)
                names[i][j] = fz_u8(in) % 3 ? (fz_bool(in) ? name_n : name_c) : 0;
            c.args[i] =
                nt_arg_names(n, names[i], fz_u8(in) % 4 == 0 ? (int)(fz_u8(in) % 4) - 1 : -1);
            break;
        case NT_ARG_TENSORS:
            for (int j = 0; j < n; j++) {
                lists[i][j] = pick(s, in);
                if (!lists[i][j] || nt_tensor_numel(lists[i][j]) > 256) n = j;
            }
            c.args[i] = nt_arg_tensors(n > 3 ? 3 : n, lists[i]);
            break;
        case NT_ARG_STR:
            c.args[i] = nt_arg_str(strs[fz_u8(in) % 5]);
            break;
        default:
            c.args[i] = nt_arg_none();
            break;
        }
    }
    if ((flags & NT_OPF_INPLACE) && fz_u8(in) % 4 == 0) c.inplace = true;
    if ((flags & NT_OPF_OUT) && !c.inplace && fz_u8(in) % 4 == 0) c.out[0] = pick_out(s, in);
    if (fz_trace) {
        fprintf(stderr, "op_call %s (inplace %d)\n", nt_op_name(op), (int)c.inplace);
        for (int i = 0; i < sig->nparams; i++)
            if (c.args[i].kind == NT_ARG_TENSOR) fz_describe("  slot", c.args[i].v.t);
        if (c.out[0]) fz_describe("  out", c.out[0]);
    }
    /* the shape query first (an in-place op changes its input): it must not crash on any
     * record, and an op that succeeds must have returned the shapes it predicted */
    predicted p;
    predict(&c, &p);
    /* a result's size may come from the input's values (arange's from its numbers,
     * repeat_interleave's from its repeats): an op runs when its shape rule says the result
     * is small, and a factory only then */
    bool small = p.ok && small_result(fz_numel(p.ndim[0], p.sizes[0]));
    if (p.ok ? !small : kind == NT_OPK_FACTORY || kind == NT_OPK_RANDOM) return;
    if (nt_op_shape_rule(op) == NT_SHAPE_DATA_DEPENDENT && !small_inputs(&c)) return;
    if (!FZ_OK(nt_call_op(&c))) return;
    check_predicted(&c, &p);
    for (int k = 0; k < 2; k++)
        if (c.result[k]) keep(s, in, c.result[k]);
    for (int64_t k = 0; k < c.nlist; k++)
        fz_check_tensor(c.list[k]);
    nt_tensors_release(c.list, c.nlist);
}

static void run_op(state *s, fz_input *in) {
    switch (fz_u8(in) % 20) {
    case 18:
    case 19:
        op_call(s, in);
        break;
    case 0:
    case 1:
        op_create(s, in);
        break;
    case 2:
    case 3:
        op_view(s, in);
        break;
    case 4:
        op_copy(s, in);
        break;
    case 5:
        op_binary(s, in);
        break;
    case 6:
        op_unary(s, in);
        break;
    case 7:
        op_where(s, in);
        break;
    case 8:
        op_clamp(s, in);
        break;
    case 9:
        op_mask(s, in);
        break;
    case 10:
        op_reduce(s, in);
        break;
    case 11:
        op_reduce_dim(s, in);
        break;
    case 12:
        op_scan(s, in);
        break;
    case 13:
        op_join(s, in);
        break;
    case 14:
        op_matmul(s, in);
        break;
    case 15:
        op_index(s, in);
        break;
    case 16:
        op_convert(s, in);
        break;
    default:
        op_format(s, in);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_input in = {data, size};
    state s = {{NULL}};
    for (int i = 0; i < MAX_OPS && in.n > 0; i++)
        run_op(&s, &in);
    for (int i = 0; i < NSLOTS; i++)
        nt_tensor_release(s.slot[i]);
    return 0;
}
