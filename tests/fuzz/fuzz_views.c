/*
 * fuzz_views.c — libFuzzer harness for tensor creation and views.
 *
 * The input is a small byte-code program: each op takes its opcode, its operand slots and
 * its arguments (sizes, strides, offsets, dims, dtypes, names) from the next input bytes,
 * so that libFuzzer can grow chains of views of views. Ops: nt_empty / nt_zeros /
 * nt_from_buffer, as_strided, view, reshape, permute, expand, narrow, select, squeeze,
 * squeeze_dim, unsqueeze, flatten (positional and named), unflatten, rename, rename_n,
 * set_names_, refine_names, align_to, transpose, t, split, split_with_sizes, chunk, unbind,
 * contiguous and clone.
 *
 * After each successful op the result is checked: sane metadata, every element readable
 * with nt_get_double and equal in a contiguous copy, and, for a view of a buffer this
 * harness filled, that its elements lie inside that buffer and hold the values stored at
 * the offsets its offset and strides name.
 */
#include "fuzz_input.h"

#define NSLOTS 8
#define NROOTS 16
#define MAX_OPS 64
#define NNAMES 6

static nt_name known_names[NNAMES];

/* A tensor this harness made, whose storage its views share: `n` elements, holding
 * pattern(k) at element k when `patterned`. */
typedef struct root {
    nt_tensor *t;
    int64_t n;
    bool patterned;
} root;

typedef struct state {
    nt_tensor *slot[NSLOTS];
    root roots[NROOTS];
    int nroots;
} state;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fz_init_trace();
    static const char *texts[NNAMES] = {"N", "C", "H", "W", "features", "batch"};
    for (int i = 0; i < NNAMES; i++)
        if (nt_name_intern(texts[i], &known_names[i]) != NT_OK) abort();
    return 0;
}

/* The value the harness stores at element k of a buffer: small integers, exact in every
 * dtype (bool holds k's parity). */
static double pattern(int64_t k, nt_dtype dtype) {
    return dtype == NT_BOOL ? (double)(k & 1) : (double)(k % 61);
}

/* Writes pattern(k) as `dtype` at p. */
static void store_pattern(char *p, nt_dtype dtype, int64_t k) {
    int v = (int)pattern(k, dtype);
    switch (dtype) {
    case NT_BOOL:
    case NT_UINT8:
    case NT_INT8:
        *p = (char)v;
        break;
    case NT_INT16:
        *(int16_t *)p = (int16_t)v;
        break;
    case NT_INT32:
        *(int32_t *)p = v;
        break;
    case NT_INT64:
        *(int64_t *)p = v;
        break;
    case NT_FLOAT32:
        *(float *)p = (float)v;
        break;
    case NT_FLOAT64:
        *(double *)p = v;
        break;
    case NT_BFLOAT16: {
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        *(uint16_t *)p = (uint16_t)(bits >> 16); /* exact: v has at most 6 significant bits */
        break;
    }
    case NT_FLOAT16: {
        uint16_t bits = 0;
        if (v > 0) {
            int e = 31 - __builtin_clz((unsigned)v); /* v = 2^e * 1.m */
            bits = (uint16_t)(((e + 15) << 10) | (((unsigned)v << (10 - e)) & 0x3FF));
        }
        *(uint16_t *)p = bits;
        break;
    }
    default:
        break;
    }
}

/* Names for `ndim` dims: NULL (unnamed), or known names, None, a repeated name or an id
 * that was never interned. Returns a heap array of exactly ndim entries. */
static nt_name *fuzz_names(fz_input *in, int ndim, bool *given) {
    *given = fz_u8(in) & 1;
    nt_name *names = fz_array(ndim, sizeof *names);
    for (int i = 0; i < ndim && i < FZ_MAX_ARRAY; i++) {
        uint8_t b = fz_u8(in);
        names[i] = b < 0xF0 ? (b % 4 == 0 ? NT_NAME_NONE : known_names[b % NNAMES])
                            : (nt_name)(0x00FFFFF0u + b); /* never interned */
    }
    return names;
}

/* ------------------------------------------------------------------ checks */

static const root *root_of(const state *s, const nt_tensor *t) {
    for (int i = 0; i < s->nroots; i++)
        if (nt_tensor_shares_storage(s->roots[i].t, t)) return &s->roots[i];
    return NULL;
}

/* Remembers a tensor with fresh storage of its own (created, or copied by an op) of n
 * elements (-1: as many as t has, when that tells: t contiguous at offset 0). */
static void add_root(state *s, nt_tensor *t, int64_t n, bool patterned) {
    if (s->nroots == NROOTS || root_of(s, t)) return;
    if (n < 0 && (!nt_tensor_is_contiguous(t) || nt_tensor_offset(t) != 0)) return;
    s->roots[s->nroots++] = (root){nt_tensor_retain(t), n < 0 ? nt_tensor_numel(t) : n, patterned};
}

/* A view of a root: every element it can address lies inside the root's buffer, and
 * holds the pattern of its storage offset. */
static void check_against_root(const state *s, const nt_tensor *t) {
    const root *r = root_of(s, t);
    int nd = nt_tensor_ndim(t);
    if (!r || nt_tensor_numel(t) == 0) return;
    const int64_t *sizes = nt_tensor_sizes(t), *strides = nt_tensor_strides(t);
    __int128 lo = nt_tensor_offset(t), hi = lo;
    for (int d = 0; d < nd; d++) {
        __int128 span = (__int128)(sizes[d] - 1) * strides[d];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    FZ_ASSERT(lo >= 0 && hi < r->n);
    if (!r->patterned || nt_tensor_numel(t) > FZ_READ_ELEMS) return;
    int64_t idx[NT_MAX_DIMS] = {0};
    do {
        int64_t k = nt_tensor_offset(t);
        for (int d = 0; d < nd; d++)
            k += idx[d] * strides[d];
        FZ_ASSERT(fz_get(t, idx) == pattern(k, nt_tensor_dtype(t)));
    } while (fz_next_index(nd, sizes, idx));
}

/* Ops that keep the row-major order of the elements (view, reshape, flatten, ...): the
 * result reads the same sequence as its input. */
static void check_same_sequence(nt_tensor *a, nt_tensor *b) {
    FZ_ASSERT(nt_tensor_numel(a) == nt_tensor_numel(b));
    if (nt_tensor_numel(a) == 0 || nt_tensor_numel(a) > FZ_READ_ELEMS) return;
    int64_t ia[NT_MAX_DIMS] = {0}, ib[NT_MAX_DIMS] = {0};
    do {
        FZ_ASSERT(fz_same_double(fz_get(a, ia), fz_get(b, ib)));
        fz_next_index(nt_tensor_ndim(b), nt_tensor_sizes(b), ib);
    } while (fz_next_index(nt_tensor_ndim(a), nt_tensor_sizes(a), ia));
}

/* Checks a new result and stores it in slot `dst` (the slot's old tensor is released). */
static void keep(state *s, int dst, nt_tensor *t) {
    fz_check_tensor(t);
    check_against_root(s, t);
    nt_tensor_release(s->slot[dst]);
    s->slot[dst] = t;
}

/* ------------------------------------------------------------------ ops */

/* nt_empty, nt_zeros or nt_from_buffer (filled with the pattern) of a fuzzed shape. */
static void op_create(state *s, fz_input *in, int dst) {
    int kind = fz_u8(in) % 3;
    nt_dtype dtype = fz_dtype(in);
    int nd = fz_ndim(in);
    int64_t *sizes = fz_ints(in, nd);
    bool named;
    nt_name *names = fuzz_names(in, nd, &named);
    bool valid_dtype = (int)dtype >= 0 && dtype < NT_DTYPE_COUNT;
    bool valid_ndim = nd >= 0 && nd <= NT_MAX_DIMS;
    int64_t numel = valid_ndim ? fz_numel(nd, sizes) : -1;
    int64_t size = valid_dtype ? (int64_t)nt_dtype_size(dtype) : 1;
    fz_budget budget = fz_budget_for(numel, size);
    if (!valid_dtype || !valid_ndim) budget = FZ_MUST_FAIL;
    if (budget == FZ_SKIP) goto done;
    nt_tensor *t = NULL;
    bool ok;
    if (kind == 0) {
        ok = FZ_OK(nt_empty(nd, sizes, dtype, named ? names : NULL, &t));
    } else if (kind == 1) {
        ok = FZ_OK(nt_zeros(nd, sizes, dtype, named ? names : NULL, &t));
    } else {
        /* a request that must fail gets a one-byte buffer: reading it would be a finding */
        int64_t n = budget == FZ_MUST_FAIL ? 0 : numel;
        char *buf = malloc((size_t)(n * size) + 1);
        for (int64_t k = 0; k < n; k++)
            store_pattern(buf + k * size, dtype, k);
        ok = FZ_OK(nt_from_buffer(buf, dtype, nd, sizes, named ? names : NULL, &t));
        free(buf);
    }
    if (budget == FZ_MUST_FAIL) FZ_ASSERT(!ok);
    if (ok) {
        FZ_ASSERT(nt_tensor_dtype(t) == dtype && nt_tensor_numel(t) == numel);
        add_root(s, t, -1, kind == 2);
        keep(s, dst, t);
    }
done:
    free(sizes);
    free(names);
}

static void free_buffer(void *ctx, void *data) {
    free(ctx);
}

/* nt_from_external over a buffer of fuzzed size (filled with the pattern), with fuzzed
 * sizes and strides (NULL: contiguous), sometimes misaligned: the library must refuse any
 * view that reaches past the buffer. */
static void op_external(state *s, fz_input *in, int dst) {
    nt_dtype dtype = fz_dtype(in);
    int nd = fz_ndim(in);
    int64_t *sizes = fz_ints(in, nd), *strides = fz_ints(in, nd);
    bool contiguous = fz_bool(in), misaligned = fz_u8(in) >= 0xF0;
    size_t nbytes = (size_t)fz_u8(in) * 8;
    bool valid_dtype = (int)dtype >= 0 && dtype < NT_DTYPE_COUNT;
    int64_t size = valid_dtype ? (int64_t)nt_dtype_size(dtype) : 1;
    char *buf = malloc(nbytes + 1);
    for (int64_t k = 0; valid_dtype && (k + 1) * size <= (int64_t)nbytes; k++)
        store_pattern(buf + k * size, dtype, k);
    char *data = buf + (misaligned ? 1 : 0);
    size_t usable = nbytes - (misaligned && nbytes ? 1 : 0);
    nt_tensor *t = NULL;
    if (FZ_OK(nt_from_external(data, usable, dtype, nd, sizes, contiguous ? NULL : strides,
                               free_buffer, buf, &t))) {
        FZ_ASSERT(!misaligned || size == 1 || nt_tensor_numel(t) == 0 || usable == 0);
        add_root(s, t, (int64_t)(usable / (size_t)size), !misaligned);
        keep(s, dst, t);
    } else {
        free(buf); /* refused: the buffer is still ours */
    }
    free(sizes);
    free(strides);
}

/* A permutation of n dims from the input (Fisher-Yates), or, rarely, any dims. */
static int64_t *fuzz_perm(fz_input *in, int n) {
    if (fz_u8(in) >= 0xF0) return fz_ints(in, n);
    int64_t *dims = fz_array(n, sizeof *dims);
    int len = n < 0 ? 0 : n > FZ_MAX_ARRAY ? FZ_MAX_ARRAY : n;
    for (int i = 0; i < len; i++)
        dims[i] = i;
    for (int i = len - 1; i > 0; i--) {
        int j = fz_u8(in) % (i + 1);
        int64_t tmp = dims[i];
        dims[i] = dims[j];
        dims[j] = tmp;
    }
    return dims;
}

/* The expand target: t's dims each kept (-1), kept as is, or a fuzzed size, with up to
 * two new leading dims (or, rarely, a fuzzed count). */
static int64_t *fuzz_expand_sizes(fz_input *in, const nt_tensor *t, int *ndim) {
    int nd = nt_tensor_ndim(t);
    uint8_t b = fz_u8(in);
    *ndim = b < 0xF0 ? nd + b % 3 : fz_ndim(in);
    int64_t *sizes = fz_array(*ndim, sizeof *sizes);
    for (int i = 0; i < *ndim && i < FZ_MAX_ARRAY; i++) {
        int d = nd - (*ndim - i);
        uint8_t c = fz_u8(in);
        sizes[i] = c < 0x40 ? -1 : c < 0x80 && d >= 0 ? nt_tensor_sizes(t)[d] : fz_int(in);
    }
    return sizes;
}

/* The data bytes an op that may copy would allocate for t: within budget or not. */
static bool may_copy(const nt_tensor *t) {
    return fz_budget_for(nt_tensor_numel(t), (int64_t)nt_dtype_size(nt_tensor_dtype(t))) == FZ_CALL;
}

/* split, split_with_sizes, chunk or unbind; checks every part, keeps one. */
static void op_split(state *s, fz_input *in, nt_tensor *t, int dst) {
    int kind = fz_u8(in) % 4;
    int64_t dim = fz_int(in), arg = fz_int(in);
    int nd = nt_tensor_ndim(t);
    /* How many parts the call makes, so that a list too long to hold is not asked for. The
     * dim may be a name's encoding (nt_dim_name): resolved as the library resolves it. */
    int64_t d = -1;
    if (nt_tensor_dim(t, dim, &d) != NT_OK) d = -1;
    int64_t size = d >= 0 && d < nd ? nt_tensor_sizes(t)[d] : 0;
    int64_t parts = 0; /* what the library computes (0 when the call fails anyway) */
    if (kind == 0 && arg > 0) parts = size == 0 ? 1 : (size - 1) / arg + 1;
    if (kind == 2 && arg > 0) parts = size == 0 ? arg : (size - 1) / ((size - 1) / arg + 1) + 1;
    if (kind == 3) parts = size;
    /* The library refuses more than 2^32 parts; fewer than that but more than a few
     * thousand would only measure the machine's memory. */
    bool must_fail = parts > ((int64_t)1 << 32);
    if (parts > 4096 && !must_fail) return;
    nt_tensor **list = NULL;
    int64_t count = 0;
    bool ok;
    if (kind == 0) {
        ok = FZ_OK(nt_split(t, arg, dim, &list, &count));
    } else if (kind == 1) {
        int n = fz_u8(in) < 0xF0 ? fz_u8(in) % 6 : fz_ndim(in);
        int64_t *sizes = fz_ints(in, n);
        ok = FZ_OK(nt_split_with_sizes(t, n, sizes, dim, &list, &count));
        free(sizes);
    } else if (kind == 2) {
        ok = FZ_OK(nt_chunk(t, arg, dim, &list, &count));
    } else {
        ok = FZ_OK(nt_unbind(t, dim, &list, &count));
    }
    if (must_fail) FZ_ASSERT(!ok);
    if (!ok) return;
    FZ_ASSERT(count >= 0 && (count == 0 || list));
    int64_t total = 0;
    for (int64_t i = 0; i < count; i++) {
        fz_check_tensor(list[i]);
        check_against_root(s, list[i]);
        total += kind == 3 ? 1 : nt_tensor_sizes(list[i])[d];
    }
    FZ_ASSERT(total == size);
    int64_t pick = fz_u8(in);
    if (count > 0) keep(s, dst, nt_tensor_retain(list[pick % count]));
    nt_tensors_release(list, count);
}

/* One op: reads the opcode, the source and destination slots and the arguments. */
static void run_op(state *s, fz_input *in) {
    uint8_t op = fz_u8(in) % 26;
    int src = fz_u8(in) % NSLOTS, dst = fz_u8(in) % NSLOTS;
    nt_tensor *t = s->slot[src], *r = NULL;
    if (op == 0 || !t) {
        if (fz_u8(in) % 4)
            op_create(s, in, dst);
        else
            op_external(s, in, dst);
        return;
    }
    int nd = nt_tensor_ndim(t);
    bool ok = false, same_sequence = false;
    switch (op) {
    case 1: {
        int n = fz_ndim(in);
        int64_t *sizes = fz_ints(in, n), *strides = fz_ints(in, n), offset = fz_int(in);
        ok = FZ_OK(nt_as_strided(t, n, sizes, strides, offset, &r));
        free(sizes);
        free(strides);
        break;
    }
    case 2:
    case 3: {
        int n = fz_ndim(in);
        int64_t *sizes = fz_ints(in, n);
        if (op == 2)
            ok = FZ_OK(nt_view(t, n, sizes, &r));
        else if (may_copy(t))
            ok = FZ_OK(nt_reshape(t, n, sizes, &r));
        same_sequence = true;
        free(sizes);
        break;
    }
    case 4: {
        int n = fz_u8(in) < 0xF0 ? nd : fz_ndim(in);
        int64_t *dims = fuzz_perm(in, n);
        ok = FZ_OK(nt_permute(t, n, dims, &r));
        free(dims);
        break;
    }
    case 5: {
        int n;
        int64_t *sizes = fuzz_expand_sizes(in, t, &n);
        ok = FZ_OK(nt_expand(t, n, sizes, &r));
        free(sizes);
        break;
    }
    case 6: {
        int64_t dim = fz_int(in), start = fz_int(in), length = fz_int(in);
        ok = FZ_OK(nt_narrow(t, dim, start, length, &r));
        break;
    }
    case 7: {
        int64_t dim = fz_int(in), index = fz_int(in);
        ok = FZ_OK(nt_select(t, dim, index, &r));
        break;
    }
    case 8:
        ok = FZ_OK(nt_squeeze(t, &r));
        same_sequence = true;
        break;
    case 9:
        ok = FZ_OK(nt_squeeze_dim(t, fz_int(in), &r));
        same_sequence = true;
        break;
    case 10:
        ok = FZ_OK(nt_unsqueeze(t, fz_int(in), &r));
        same_sequence = true;
        break;
    case 11: {
        int64_t start = fz_int(in), end = fz_int(in);
        if (may_copy(t)) ok = FZ_OK(nt_flatten_dims(t, start, end, &r));
        same_sequence = true;
        break;
    }
    case 12: {
        int64_t start = fz_int(in), end = fz_int(in);
        bool named;
        nt_name *name = fuzz_names(in, 1, &named);
        if (may_copy(t)) ok = FZ_OK(nt_flatten(t, start, end, name[0], &r));
        same_sequence = true;
        free(name);
        break;
    }
    case 13: {
        int count = fz_u8(in) % 4;
        bool named;
        nt_name *dims = fuzz_names(in, count, &named), *out_name = fuzz_names(in, 1, &named);
        if (may_copy(t)) ok = FZ_OK(nt_flatten_names(t, count, dims, out_name[0], &r));
        same_sequence = true;
        free(dims);
        free(out_name);
        break;
    }
    case 14: {
        int64_t dim = fz_int(in);
        int count = fz_u8(in) % 5;
        int64_t *sizes = fz_ints(in, count);
        bool named;
        nt_name *names = fuzz_names(in, count, &named);
        ok = FZ_OK(nt_unflatten(t, dim, count, sizes, named ? names : NULL, &r));
        same_sequence = true;
        free(sizes);
        free(names);
        break;
    }
    case 15: {
        bool named;
        nt_name *names = fuzz_names(in, nd, &named);
        ok = FZ_OK(nt_rename(t, named ? names : NULL, &r));
        same_sequence = true;
        free(names);
        break;
    }
    case 16: {
        int count = fz_u8(in) < 0xE0 ? nd : fz_ndim(in);
        bool named;
        nt_name *names = fuzz_names(in, count, &named);
        ok = FZ_OK(nt_rename_n(t, count, named ? names : NULL, &r));
        same_sequence = true;
        free(names);
        break;
    }
    case 17: {
        /* in place on the slot's tensor (other slots may be views of the same storage,
         * never the same tensor object, except after a retain: then both see the names) */
        int count = fz_u8(in) < 0xE0 ? nd : fz_ndim(in);
        bool named;
        nt_name *names = fuzz_names(in, count, &named);
        if (FZ_OK(nt_set_names_n_(t, count, named ? names : NULL))) fz_check_meta(t);
        free(names);
        break;
    }
    case 18:
    case 19: {
        int count = fz_u8(in) % 6;
        int ellipsis = (int)(fz_u8(in) % 8) - 2;
        bool named;
        nt_name *names = fuzz_names(in, count, &named);
        if (op == 18)
            ok = FZ_OK(nt_refine_names(t, count, names, ellipsis, &r));
        else
            ok = FZ_OK(nt_align_to(t, count, names, ellipsis, &r));
        same_sequence = op == 18;
        free(names);
        break;
    }
    case 20: {
        int64_t d0 = fz_int(in), d1 = fz_int(in);
        ok = FZ_OK(nt_transpose(t, d0, d1, &r));
        break;
    }
    case 21:
        ok = FZ_OK(nt_t(t, &r));
        break;
    case 22:
        op_split(s, in, t, dst);
        break;
    case 23:
        if (may_copy(t)) ok = FZ_OK(nt_contiguous(t, &r));
        same_sequence = true;
        break;
    case 24:
        if (may_copy(t)) ok = FZ_OK(nt_clone(t, &r));
        same_sequence = true;
        break;
    default: {
        nt_tensor *other = s->slot[fz_u8(in) % NSLOTS];
        if (other && fz_bool(in))
            ok = FZ_OK(nt_expand_as(t, other, &r));
        else if (other)
            ok = FZ_OK(nt_align_as(t, other, &r));
        break;
    }
    }
    if (!ok) return;
    if (same_sequence) check_same_sequence(t, r);
    if (!nt_tensor_shares_storage(t, r)) add_root(s, r, -1, false); /* a copy: fresh storage */
    keep(s, dst, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_input in = {data, size};
    state s = {0};
    for (int i = 0; i < MAX_OPS && in.n > 0; i++)
        run_op(&s, &in);
    for (int i = 0; i < NSLOTS; i++)
        nt_tensor_release(s.slot[i]);
    for (int i = 0; i < s.nroots; i++)
        nt_tensor_release(s.roots[i].t);
    return 0;
}
