/*
 * fuzz_names.c — libFuzzer harness for dimension names.
 *
 * The input is a byte-code program. One op interns a name from the next input bytes with
 * nt_name_intern_n and nt_name_intern (any length, embedded NULs, bytes that are not UTF-8)
 * and checks the verdict against the rule (a letter or '_' then letters, digits and '_',
 * not starting with '_'), and, for a valid name, that the same text always gives the same
 * id and nt_name_str gives the text back. The other ops use the interned names (beside
 * None and an id that was never interned) in nt_zeros(..., names), rename, rename_n,
 * rename_map, set_names_, refine_names, align_to, align_as, flatten_names, unflatten,
 * nt_dims_from_names, nt_tensor_dim_of, nt_sum over named dims and nt_format, checking
 * that results carry known, unique names and that each resolved dim has the name asked for.
 */
#include "fuzz_input.h"

#define NSLOTS 4
#define MAX_OPS 48
#define MAX_NAMES 16
/* Never interned: the library must refuse it wherever a name is given. */
#define BOGUS_NAME ((nt_name)0x00FFFFFFu)

typedef struct state {
    nt_name names[MAX_NAMES]; /* [0] None, [1] BOGUS_NAME, then interned ones */
    int nnames;
    nt_tensor *slot[NSLOTS];
} state;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fz_init_trace();
    return 0;
}

/* A name from the state's list (None and the bogus id included). */
static nt_name pick_name(const state *s, fz_input *in) {
    return s->names[fz_u8(in) % s->nnames];
}

/* A heap array of n names picked from the list (see fz_array). */
static nt_name *pick_names(const state *s, fz_input *in, int n) {
    nt_name *names = fz_array(n, sizeof *names);
    for (int i = 0; i < n && i < FZ_MAX_ARRAY; i++)
        names[i] = pick_name(s, in);
    return names;
}

/* The spec's rule for a dimension name. */
static bool valid_name(const char *text, size_t len) {
    if (len == 0) return false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool digit = c >= '0' && c <= '9';
        if (!(alpha || c == '_' || (digit && i > 0))) return false;
    }
    return text[0] != '_';
}

/* The checks every tensor result passes: sane metadata and names unique (None aside). */
static void check_names(const nt_tensor *t) {
    fz_describe("result", t);
    fz_check_meta(t);
    const nt_name *names = nt_tensor_names(t);
    int nd = nt_tensor_ndim(t);
    for (int i = 0; names && i < nd; i++)
        for (int j = i + 1; j < nd; j++)
            FZ_ASSERT(names[i] == NT_NAME_NONE || names[i] != names[j]);
}

static void keep(state *s, fz_input *in, nt_tensor *t) {
    check_names(t);
    int dst = fz_u8(in) % NSLOTS;
    nt_tensor_release(s->slot[dst]);
    s->slot[dst] = t;
}

/* ------------------------------------------------------------------ ops */

/* Interns the next `len` input bytes, both with an explicit length and NUL-terminated. */
static void op_intern(state *s, fz_input *in) {
    uint8_t b = fz_u8(in);
    size_t len = b < 0xF0 ? b % 24 : (size_t)fz_u8(in) << 4 | (b & 0xF);
    if (len > in->n) len = in->n;
    char *text = malloc(len + 1); /* exactly sized: the library must not read past len */
    memcpy(text, in->p, len);
    in->p += len, in->n -= len;
    nt_name id = NT_NAME_NONE;
    bool ok = FZ_OK(nt_name_intern_n(text, len, &id));
    FZ_ASSERT(ok == valid_name(text, len));
    if (ok) {
        const char *back = nt_name_str(id);
        FZ_ASSERT(id != NT_NAME_NONE && back && strlen(back) == len && !memcmp(back, text, len));
        nt_name again = NT_NAME_NONE;
        FZ_ASSERT(FZ_OK(nt_name_intern_n(back, len, &again)) && again == id);
        if (s->nnames < MAX_NAMES) s->names[s->nnames++] = id;
    }
    /* The NUL-terminated form sees the text up to its first NUL. */
    char *cstr = malloc(len + 1);
    memcpy(cstr, text, len);
    cstr[len] = '\0';
    nt_name cid = NT_NAME_NONE;
    bool cok = FZ_OK(nt_name_intern(cstr, &cid));
    FZ_ASSERT(cok == valid_name(cstr, strlen(cstr)));
    FZ_ASSERT(!ok || !cok || cid == id);
    free(cstr);
    free(text);
}

static void op_zeros(state *s, fz_input *in) {
    int nd = fz_u8(in) % 6;
    int64_t sizes[5];
    for (int i = 0; i < nd; i++)
        sizes[i] = fz_u8(in) % 4;
    nt_name *names = pick_names(s, in, nd);
    bool named = fz_u8(in) % 4 != 0;
    nt_tensor *t = NULL;
    if (FZ_OK(nt_zeros(nd, sizes, NT_FLOAT32, named ? names : NULL, &t))) keep(s, in, t);
    free(names);
}

/* The ops that make a renamed view or set names in place. */
static void op_rename(state *s, fz_input *in, nt_tensor *t) {
    int nd = nt_tensor_ndim(t);
    int count = fz_u8(in) < 0xE0 ? nd : fz_u8(in) % 8;
    nt_name *names = pick_names(s, in, count), *to = pick_names(s, in, count);
    nt_tensor *r = NULL;
    switch (fz_u8(in) % 5) {
    case 0:
        if (count == nd && FZ_OK(nt_rename(t, fz_bool(in) ? names : NULL, &r))) keep(s, in, r);
        break;
    case 1:
        if (FZ_OK(nt_rename_n(t, count, names, &r))) keep(s, in, r);
        break;
    case 2:
        if (FZ_OK(nt_rename_map(t, count, names, to, &r))) keep(s, in, r);
        break;
    case 3:
        if (FZ_OK(nt_rename_map_(t, count, names, to))) check_names(t);
        break;
    default:
        if (FZ_OK(nt_set_names_n_(t, count, names))) check_names(t);
        break;
    }
    free(names);
    free(to);
}

static void op_refine_align(state *s, fz_input *in, nt_tensor *t) {
    int count = fz_u8(in) % 7;
    int ellipsis = (int)(fz_u8(in) % 9) - 2;
    nt_name *names = pick_names(s, in, count);
    nt_tensor *r = NULL, *other = s->slot[fz_u8(in) % NSLOTS];
    switch (fz_u8(in) % 3) {
    case 0:
        if (FZ_OK(nt_refine_names(t, count, names, ellipsis, &r))) keep(s, in, r);
        break;
    case 1:
        if (FZ_OK(nt_align_to(t, count, names, ellipsis, &r))) keep(s, in, r);
        break;
    default:
        if (other && FZ_OK(nt_align_as(t, other, &r))) keep(s, in, r);
        break;
    }
    free(names);
}

static void op_flatten(state *s, fz_input *in, nt_tensor *t) {
    int count = fz_u8(in) % 5;
    nt_name *dims = pick_names(s, in, count);
    nt_name out_name = pick_name(s, in);
    nt_tensor *r = NULL;
    if (fz_bool(in)) {
        if (FZ_OK(nt_flatten_names(t, count, dims, out_name, &r))) keep(s, in, r);
    } else {
        /* unflatten dim into `count` dims of the given sizes and names */
        int64_t dim = fz_int(in), sizes[4];
        for (int i = 0; i < count; i++)
            sizes[i] = (int64_t)(fz_u8(in) % 5) - 1;
        if (FZ_OK(nt_unflatten(t, dim, count, sizes, dims, &r))) keep(s, in, r);
    }
    free(dims);
}

/* Names resolved to dims: each dim found has the name asked for; then a sum over them. */
static void op_resolve(state *s, fz_input *in, nt_tensor *t) {
    int count = fz_u8(in) % 4;
    nt_name *names = pick_names(s, in, count);
    int64_t *dims = fz_array(count, sizeof *dims);
    const nt_name *have = nt_tensor_names(t);
    int64_t one = -1;
    if (count > 0 && FZ_OK(nt_tensor_dim_of(t, names[0], &one)))
        FZ_ASSERT(one >= 0 && one < nt_tensor_ndim(t) && have[one] == names[0]);
    if (FZ_OK(nt_dims_from_names(t, count, names, dims))) {
        for (int i = 0; i < count; i++) {
            FZ_ASSERT(dims[i] >= 0 && dims[i] < nt_tensor_ndim(t));
            FZ_ASSERT(have && have[dims[i]] == names[i] && names[i] != NT_NAME_NONE);
        }
        nt_tensor *r = NULL; /* keep() may release t: it comes last */
        if (FZ_OK(nt_sum(t, count, dims, fz_bool(in), -1, &r))) keep(s, in, r);
    }
    free(names);
    free(dims);
}

/* nt_format prints every name of a named tensor. */
static void op_format(nt_tensor *t) {
    char *text = NULL;
    if (!FZ_OK(nt_format(t, &text))) return;
    const nt_name *names = nt_tensor_names(t);
    for (int i = 0; names && i < nt_tensor_ndim(t); i++) {
        const char *name = nt_name_str(names[i]);
        char quoted[300];
        if (!name) continue;
        snprintf(quoted, sizeof quoted, "'%s'", name);
        FZ_ASSERT(strstr(text, strlen(quoted) < sizeof quoted - 1 ? quoted : name));
    }
    fz_check_text(text);
}

static void run_op(state *s, fz_input *in) {
    uint8_t op = fz_u8(in) % 8;
    nt_tensor *t = s->slot[fz_u8(in) % NSLOTS];
    if (op == 0) {
        op_intern(s, in);
        return;
    }
    if (op == 1 || !t) {
        op_zeros(s, in);
        return;
    }
    switch (op) {
    case 2:
        op_rename(s, in, t);
        break;
    case 3:
        op_refine_align(s, in, t);
        break;
    case 4:
        op_flatten(s, in, t);
        break;
    case 5:
        op_resolve(s, in, t);
        break;
    case 6:
        op_format(t);
        break;
    default:
        op_intern(s, in);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_input in = {data, size};
    state s = {.names = {NT_NAME_NONE, BOGUS_NAME}, .nnames = 2};
    for (int i = 0; i < MAX_OPS && in.n > 0; i++)
        run_op(&s, &in);
    for (int i = 0; i < NSLOTS; i++)
        nt_tensor_release(s.slot[i]);
    return 0;
}
