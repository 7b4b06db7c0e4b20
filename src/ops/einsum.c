/*
 * einsum.c — torch.einsum(equation, tensors) (layer L4), and our named form
 * (docs/decisions_ops_everyday.md).
 *
 * The equation is PyTorch's: a term of subscript letters [a-zA-Z] per operand, separated by
 * commas, and optionally "->" and the output's letters (without it: the letters that appear
 * once, in alphabetical order). A "..." in a term stands for the dims its letters leave; the
 * ellipses of all operands broadcast right-aligned, and without "->" lead the output. The named
 * form writes each term as space-separated names
 * ('N C, C D -> N D'); an operand whose dims are all named then has its dims taken by name,
 * in any order, and the result is named by the output's names.
 *
 * Lowered as torch.einsum lowers it: a letter repeated in one term takes the diagonal; a
 * letter of one operand only that the output lacks is summed away; then the operands are
 * contracted left to right, each pair by one bmm: both permuted to (batch, own, contracted)
 * and (batch, contracted, own), size-one dims expanded, reshaped to three dims. Written with
 * public ops, so autograd records them (the row is composite).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "factory_call.h"
#include "op_table.h"

#define EIN_MAX_OPS 32
#define EIN_MAX_LABELS NT_MAX_DIMS

typedef struct ein_term {
    int n;
    int ell; /* while parsing: where the term's "..." is (-1: none) */
    int label[NT_MAX_DIMS];
} ein_term;

typedef struct ein {
    const char *eq; /* the equation (for error texts) */
    bool named;
    int nlabels, nops;
    int ell_base, nell; /* labels ell_base.. stand for the ellipsis' dims, right-aligned */
    nt_name names[EIN_MAX_LABELS]; /* the named form's labels */
    char letters[EIN_MAX_LABELS];  /* the letter form's */
    ein_term in[EIN_MAX_OPS], out;
} ein;

/* The label id of `text[0..len)`, added when new */
static nt_status label_of(ein *e, const char *text, size_t len, int *id) {
    if (!e->named && !isalpha((unsigned char)text[0]))
        return nt_fail(NT_ERR_RUNTIME,
                       "einsum(): invalid subscript given at index %d in the equation string, "
                       "subscripts must be in [a-zA-Z]",
                       (int)(text - e->eq));
    nt_name name = NT_NAME_NONE;
    if (e->named) NT_TRY(nt_name_intern_n(text, len, &name));
    for (int i = 0; i < e->nlabels; i++)
        if (e->named ? e->names[i] == name : e->letters[i] == text[0]) {
            *id = i;
            return NT_OK;
        }
    if (e->nlabels == EIN_MAX_LABELS)
        return nt_fail(NT_ERR_RUNTIME, "einsum(): more than %d subscripts", EIN_MAX_LABELS);
    e->names[e->nlabels] = name;
    e->letters[e->nlabels] = text[0];
    *id = e->nlabels++;
    return NT_OK;
}

/* Label l as written: a name, or its letter */
static const char *label_text(ein *e, int l) {
    static _Thread_local char letter[2];
    if (e->named) return nt_name_str(e->names[l]);
    letter[0] = e->letters[l];
    return letter;
}

/* The labels of one term, [s, end): words (named form) or letters, and where its ellipsis
 * is; `op` is the operand's index, -1 for the output (in error texts) */
static nt_status parse_term(ein *e, const char *s, const char *end, int op, ein_term *t) {
    t->n = 0;
    t->ell = -1;
    while (s < end) {
        if (isspace((unsigned char)*s)) {
            s++;
            continue;
        }
        if (*s == '.') {
            if (t->ell >= 0)
                return op < 0 ? nt_fail(NT_ERR_RUNTIME, "einsum(): found '.' for output but an "
                                                        "ellipsis (...) was already found")
                              : nt_fail(NT_ERR_RUNTIME,
                                        "einsum(): found '.' for operand %d for which an "
                                        "ellipsis was already found",
                                        op);
            if (end - s < 3 || strncmp(s, "...", 3) != 0)
                return op < 0 ? nt_fail(NT_ERR_RUNTIME, "einsum(): found '.' for output that is "
                                                        "not part of any ellipsis (...)")
                              : nt_fail(NT_ERR_RUNTIME,
                                        "einsum(): found '.' for operand %d that is not part of "
                                        "any ellipsis",
                                        op);
            t->ell = t->n;
            s += 3;
            continue;
        }
        size_t len = 1;
        while (e->named && s + len < end && !isspace((unsigned char)s[len]))
            len++;
        if (t->n == NT_MAX_DIMS) return nt_fail(NT_ERR_RUNTIME, "einsum(): too many subscripts");
        NT_TRY(label_of(e, s, len, &t->label[t->n++]));
        s += len;
    }
    return NT_OK;
}

/* The named form: some term has two words, and some word is longer than a letter or some
 * operand is named (else the spaces are PyTorch's, which it allows between letters) */
static bool named_form(const char *eq, int nops, nt_tensor *const *tensors) {
    bool two_words = false, long_word = false, named = false;
    for (const char *p = eq; *p; p++) {
        bool word = !isspace((unsigned char)*p) && !strchr(",->.", *p);
        bool prev = p > eq && !isspace((unsigned char)p[-1]) && !strchr(",->.", p[-1]);
        long_word |= word && prev;
        if (word && !prev && p > eq && isspace((unsigned char)p[-1])) {
            const char *q = p - 1; /* two words of one term: a word before the spaces */
            while (q > eq && isspace((unsigned char)*q))
                q--;
            two_words |= !isspace((unsigned char)*q) && !strchr(",>.", *q);
        }
    }
    for (int i = 0; i < nops; i++)
        named |= tensors[i]->names != NULL;
    return two_words && (long_word || named);
}

/* The labels ell_base + nell - k .. ell_base + nell - 1 (the last k ellipsis dims) put where
 * the term's "..." was */
static nt_status insert_ellipsis(ein_term *t, int first, int k) {
    if (t->n + k > NT_MAX_DIMS) return nt_fail(NT_ERR_RUNTIME, "einsum(): too many subscripts");
    memmove(t->label + t->ell + k, t->label + t->ell, (size_t)(t->n - t->ell) * sizeof(int));
    for (int j = 0; j < k; j++)
        t->label[t->ell + j] = first + j;
    t->n += k;
    return NT_OK;
}

/* Each operand's "..." stands for the dims its letters leave; those of all operands
 * broadcast right-aligned, as labels of their own after the letters' */
static nt_status expand_ellipses(ein *e, nt_tensor *const *tensors) {
    int most = 0;
    for (int i = 0; i < e->nops; i++) {
        int k = tensors[i]->ndim - e->in[i].n;
        if (e->in[i].ell < 0) continue;
        if (k < 0)
            return nt_fail(NT_ERR_RUNTIME,
                           "einsum(): the number of subscripts in the equation (%d) is more than "
                           "the number of dimensions (%d) for operand %d",
                           e->in[i].n, tensors[i]->ndim, i);
        if (k > most) most = k;
    }
    if (e->nlabels + most > EIN_MAX_LABELS)
        return nt_fail(NT_ERR_RUNTIME, "einsum(): more than %d subscripts", EIN_MAX_LABELS);
    e->ell_base = e->nlabels;
    e->nell = most;
    for (int k = 0; k < most; k++, e->nlabels++)
        e->names[e->nlabels] = NT_NAME_NONE, e->letters[e->nlabels] = '.';
    for (int i = 0; i < e->nops; i++)
        if (e->in[i].ell >= 0) {
            int k = tensors[i]->ndim - e->in[i].n;
            NT_TRY(insert_ellipsis(&e->in[i], e->ell_base + most - k, k));
        }
    return NT_OK;
}

static bool is_ellipsis(const ein *e, int l) {
    return l >= e->ell_base && l < e->ell_base + e->nell;
}

static nt_status parse(const char *eq, int nops, nt_tensor *const *tensors, ein *e) {
    memset(e, 0, sizeof *e);
    e->eq = eq;
    e->named = named_form(eq, nops, tensors);
    const char *arrow = strstr(eq, "->"), *lhs_end = arrow ? arrow : eq + strlen(eq);
    const char *s = eq;
    int k = 0;
    for (;;) {
        const char *comma = memchr(s, ',', (size_t)(lhs_end - s));
        const char *end = comma ? comma : lhs_end;
        if (k == nops)
            return nt_fail(NT_ERR_RUNTIME, "einsum(): fewer operands were provided than specified "
                                           "in the equation");
        if (k == EIN_MAX_OPS)
            return nt_fail(NT_ERR_RUNTIME, "einsum(): at most %d operands", EIN_MAX_OPS);
        NT_TRY(parse_term(e, s, end, k, &e->in[k]));
        k++;
        if (!comma) break;
        s = comma + 1;
    }
    if (k < nops)
        return nt_fail(NT_ERR_RUNTIME, "einsum(): more operands were provided than specified in "
                                       "the equation");
    e->nops = nops;
    NT_TRY(expand_ellipses(e, tensors));
    int count[EIN_MAX_LABELS] = {0};
    for (int i = 0; i < nops; i++)
        for (int j = 0; j < e->in[i].n; j++)
            count[e->in[i].label[j]]++;
    if (arrow) {
        int before = e->nlabels;
        NT_TRY(parse_term(e, arrow + 2, arrow + strlen(arrow), -1, &e->out));
        if (e->out.ell >= 0) NT_TRY(insert_ellipsis(&e->out, e->ell_base, e->nell));
        for (int j = 0; j < e->out.n; j++) {
            int l = e->out.label[j];
            if (l >= before)
                return nt_fail(NT_ERR_RUNTIME,
                               "einsum(): output subscript %s does not appear in the equation "
                               "for any input operand",
                               label_text(e, l));
            for (int i = 0; i < j; i++)
                if (e->out.label[i] == l)
                    return nt_fail(NT_ERR_RUNTIME,
                                   "einsum(): output subscript %s appears more than once in the "
                                   "output",
                                   label_text(e, l));
        }
        return NT_OK;
    }
    /* implicit output: the ellipsis' dims, then the labels that appear once, sorted */
    for (int j = 0; j < e->nell; j++)
        e->out.label[e->out.n++] = e->ell_base + j;
    for (int l = 0; l < e->ell_base; l++)
        if (count[l] == 1) e->out.label[e->out.n++] = l;
    for (int i = e->nell + 1; i < e->out.n; i++)
        for (int j = i; j > e->nell; j--) {
            int a = e->out.label[j - 1], b = e->out.label[j];
            bool swap = e->named ? strcmp(nt_name_str(e->names[a]), nt_name_str(e->names[b])) > 0
                                 : e->letters[a] > e->letters[b];
            if (!swap) break;
            e->out.label[j - 1] = b, e->out.label[j] = a;
        }
    return NT_OK;
}

/* ------------------------------------------------------------------ the operands */

typedef struct operand {
    nt_tensor *t; /* owned, unnamed */
    ein_term lab;
} operand;

static void operands_release(operand *ops, int n) {
    for (int i = 0; i < n; i++)
        nt_tensor_release(ops[i].t);
}

/* o.t replaced by *next (a new reference, read after the step ran), or the failure */
static nt_status replace(operand *o, nt_status st, nt_tensor **next) {
    if (st != NT_OK) return st;
    nt_tensor_release(o->t);
    o->t = *next;
    return NT_OK;
}

/* Operand i as an unnamed tensor whose dims follow its term: a named operand's dims by name
 * in the named form; its term's count checked */
static nt_status operand_init(const ein *e, int i, nt_tensor *t, operand *o) {
    o->lab = e->in[i];
    o->t = NULL;
    if (o->lab.n != t->ndim)
        return nt_fail(NT_ERR_RUNTIME,
                       "einsum(): the number of subscripts in the equation (%d) does not match "
                       "the number of dimensions (%d) for operand %d and no ellipsis was given",
                       o->lab.n, t->ndim, i);
    bool by_name = e->named && t->names;
    for (int d = 0; by_name && d < t->ndim; d++)
        by_name = t->names[d] != NT_NAME_NONE && !is_ellipsis(e, o->lab.label[d]);
    nt_tensor *view = NULL;
    nt_status st = NT_OK;
    if (by_name) {
        nt_dim dims[NT_MAX_DIMS];
        for (int d = 0; d < t->ndim; d++)
            dims[d] = nt_dim_name(e->names[o->lab.label[d]]);
        st = nt_permute(t, t->ndim, dims, &view);
    }
    if (st == NT_OK) st = nt_rename(view ? view : t, NULL, &o->t);
    nt_tensor_release(view);
    return st;
}

/* A label repeated in the operand's term: the diagonal, until each appears once */
static nt_status take_diagonals(const ein *e, int i, operand *o) {
    for (int p = 0; p < o->lab.n; p++)
        for (int q = p + 1; q < o->lab.n; q++) {
            if (o->lab.label[p] != o->lab.label[q]) continue;
            if (o->t->sizes[p] != o->t->sizes[q])
                return nt_fail(NT_ERR_RUNTIME,
                               "einsum(): subscript %s is repeated for operand %d but the sizes "
                               "don't match, %" PRId64 " != %" PRId64,
                               label_text((ein *)e, o->lab.label[p]), i, o->t->sizes[q],
                               o->t->sizes[p]);
            nt_tensor *d = NULL;
            NT_TRY(replace(o, nt_diagonal(o->t, 0, p, q, &d), &d));
            int l = o->lab.label[p], n = 0;
            for (int k = 0; k < o->lab.n; k++)
                if (k != p && k != q) o->lab.label[n++] = o->lab.label[k];
            o->lab.label[n++] = l;
            o->lab.n = n;
            q = p; /* look again from p */
        }
    return NT_OK;
}

static bool has(const ein_term *t, int l) {
    for (int i = 0; i < t->n; i++)
        if (t->label[i] == l) return true;
    return false;
}

/* Sums away the operand's labels that `keep` does not hold */
static nt_status sum_unkept(operand *o, const bool *keep) {
    nt_dim dims[NT_MAX_DIMS];
    int n = 0, m = 0;
    for (int d = 0; d < o->lab.n; d++)
        if (!keep[o->lab.label[d]])
            dims[n++] = d;
        else
            o->lab.label[m++] = o->lab.label[d];
    if (n == 0) return NT_OK;
    o->lab.n = m;
    nt_tensor *s = NULL;
    return replace(o, nt_sum(o->t, n, dims, false, -1, &s), &s);
}

/* the size of label l in the operand (1 when absent) */
static int64_t size_of(const operand *o, int l) {
    for (int d = 0; d < o->lab.n; d++)
        if (o->lab.label[d] == l) return o->t->sizes[d];
    return 1;
}

/* o viewed as (groups[0], groups[1], groups[2]) of labels, each dim expanded to `sizes`,
 * reshaped to three dims (their products) */
static nt_status as_three(operand *o, const int *order, int n, const int *split,
                          const int64_t *sizes, nt_tensor **out) {
    nt_dim perm[NT_MAX_DIMS];
    int64_t full[NT_MAX_DIMS], three[3] = {1, 1, 1};
    for (int k = 0; k < n; k++) {
        perm[k] = -1;
        for (int d = 0; d < o->lab.n; d++)
            if (o->lab.label[d] == order[k]) perm[k] = d;
        full[k] = sizes[order[k]];
        three[k < split[0] ? 0 : k < split[1] ? 1 : 2] *= full[k];
    }
    /* absent labels: size-one dims, added at the end and moved into place */
    nt_tensor *cur = nt_tensor_retain(o->t), *next = NULL;
    int ndim = o->lab.n;
    nt_status st = NT_OK;
    for (int k = 0; k < n && st == NT_OK; k++)
        if (perm[k] < 0) {
            st = nt_unsqueeze(cur, ndim, &next);
            nt_tensor_release(cur);
            cur = next;
            perm[k] = ndim++;
        }
    if (st == NT_OK) st = nt_permute(cur, n, perm, &next);
    nt_tensor_release(cur);
    cur = st == NT_OK ? next : NULL;
    if (st == NT_OK) st = nt_expand(cur, n, full, &next);
    nt_tensor_release(cur);
    cur = st == NT_OK ? next : NULL;
    if (st == NT_OK) st = nt_reshape(cur, 3, three, out);
    nt_tensor_release(cur);
    return st;
}

/* a and b contracted into a (b released): batch labels (both, kept), a's own, the contracted
 * (both, not kept), b's own */
static nt_status contract(operand *a, operand *b, const bool *keep, int nlabels) {
    bool keep_a[EIN_MAX_LABELS], keep_b[EIN_MAX_LABELS];
    for (int l = 0; l < nlabels; l++) {
        keep_a[l] = keep[l] || has(&b->lab, l);
        keep_b[l] = keep[l] || has(&a->lab, l);
    }
    NT_TRY(sum_unkept(a, keep_a));
    NT_TRY(sum_unkept(b, keep_b));
    int batch[NT_MAX_DIMS], left[NT_MAX_DIMS], con[NT_MAX_DIMS], right[NT_MAX_DIMS];
    int nb = 0, nl = 0, nc = 0, nr = 0;
    int64_t sizes[EIN_MAX_LABELS];
    for (int l = 0; l < nlabels; l++) {
        bool in_a = has(&a->lab, l), in_b = has(&b->lab, l);
        int64_t sa = size_of(a, l), sb = size_of(b, l);
        if (in_a && in_b && sa != sb && sa != 1 && sb != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "einsum(): operands do not broadcast: a subscript has sizes %" PRId64
                           " and %" PRId64,
                           sa, sb);
        sizes[l] = sa > sb ? sa : sb;
        if (in_a && in_b && keep[l])
            batch[nb++] = l;
        else if (in_a && in_b)
            con[nc++] = l;
        else if (in_a)
            left[nl++] = l;
        else if (in_b)
            right[nr++] = l;
    }
    int order_a[NT_MAX_DIMS], order_b[NT_MAX_DIMS], n = 0;
    for (int k = 0; k < nb; k++)
        order_a[n] = order_b[n] = batch[k], n++;
    int na = n, nbb = n;
    for (int k = 0; k < nl; k++)
        order_a[na++] = left[k];
    for (int k = 0; k < nc; k++)
        order_a[na++] = con[k], order_b[nbb++] = con[k];
    for (int k = 0; k < nr; k++)
        order_b[nbb++] = right[k];
    int split_a[2] = {nb, nb + nl}, split_b[2] = {nb, nb + nc};
    nt_tensor *a3 = NULL, *b3 = NULL, *r = NULL;
    nt_status st = as_three(a, order_a, na, split_a, sizes, &a3);
    if (st == NT_OK) st = as_three(b, order_b, nbb, split_b, sizes, &b3);
    if (st == NT_OK) st = nt_bmm(a3, b3, &r);
    int64_t shape[NT_MAX_DIMS];
    int n_out = 0;
    ein_term lab = {.n = 0, .ell = -1};
    for (int k = 0; k < nb; k++)
        lab.label[lab.n++] = batch[k];
    for (int k = 0; k < nl; k++)
        lab.label[lab.n++] = left[k];
    for (int k = 0; k < nr; k++)
        lab.label[lab.n++] = right[k];
    for (int k = 0; k < lab.n; k++)
        shape[n_out++] = sizes[lab.label[k]];
    nt_tensor *shaped = NULL;
    if (st == NT_OK) st = nt_reshape(r, n_out, shape, &shaped);
    nt_tensor_release(a3);
    nt_tensor_release(b3);
    nt_tensor_release(r);
    if (st != NT_OK) return st;
    nt_tensor_release(a->t);
    a->t = shaped;
    a->lab = lab;
    return NT_OK;
}

/* ------------------------------------------------------------------ the op */

static nt_status einsum_parse(const nt_call *c, ein *e) {
    if (c->args[1].n == 0)
        return nt_fail(NT_ERR_RUNTIME, "einsum(): must provide at least one operand");
    return parse(c->args[0].v.str, c->args[1].n, c->args[1].v.tensors, e);
}

nt_status nt_shape_einsum(const nt_call *c, nt_shape *s) {
    ein e;
    NT_TRY(einsum_parse(c, &e));
    int64_t sizes[EIN_MAX_LABELS];
    for (int l = 0; l < e.nlabels; l++)
        sizes[l] = 1;
    for (int i = 0; i < e.nops; i++) {
        const nt_tensor *t = c->args[1].v.tensors[i];
        if (e.in[i].n != t->ndim)
            return nt_fail(NT_ERR_RUNTIME, "einsum(): the number of subscripts does not match");
        for (int d = 0; d < t->ndim; d++)
            if (t->sizes[d] != 1) sizes[e.in[i].label[d]] = t->sizes[d];
    }
    s->ndim = e.out.n;
    for (int k = 0; k < e.out.n; k++)
        s->sizes[k] = sizes[e.out.label[k]];
    return NT_OK;
}

/* The operands contracted left to right into ops[0], then summed to the output's labels and
 * permuted into their order */
static nt_status evaluate(const ein *e, operand *ops) {
    bool keep[EIN_MAX_LABELS];
    for (int i = 1; i < e->nops; i++) {
        for (int l = 0; l < e->nlabels; l++)
            keep[l] = has(&e->out, l);
        for (int j = i + 1; j < e->nops; j++)
            for (int d = 0; d < ops[j].lab.n; d++)
                keep[ops[j].lab.label[d]] = true;
        NT_TRY(contract(&ops[0], &ops[i], keep, e->nlabels));
    }
    for (int l = 0; l < e->nlabels; l++)
        keep[l] = has(&e->out, l);
    NT_TRY(sum_unkept(&ops[0], keep));
    nt_dim perm[NT_MAX_DIMS];
    for (int k = 0; k < e->out.n; k++)
        for (int d = 0; d < ops[0].lab.n; d++)
            if (ops[0].lab.label[d] == e->out.label[k]) perm[k] = d;
    nt_tensor *p = NULL;
    return replace(&ops[0], nt_permute(ops[0].t, e->out.n, perm, &p), &p);
}

nt_status nt_impl_einsum(nt_call *c) {
    ein e;
    NT_TRY(einsum_parse(c, &e));
    operand ops[EIN_MAX_OPS];
    int made = 0;
    nt_status st = NT_OK;
    int64_t seen[EIN_MAX_LABELS];
    for (int l = 0; l < e.nlabels; l++)
        seen[l] = 1;
    for (int i = 0; i < e.nops && st == NT_OK; i++, made++) {
        st = operand_init(&e, i, c->args[1].v.tensors[i], &ops[i]);
        for (int d = 0; st == NT_OK && d < ops[i].lab.n; d++) { /* before the diagonals move dims */
            int l = ops[i].lab.label[d];
            int64_t size = ops[i].t->sizes[d];
            if (is_ellipsis(&e, l) && size != 1 && seen[l] != 1 && size != seen[l])
                st = nt_fail(NT_ERR_RUNTIME,
                             "einsum(): dimension %d covered by ellipsis in operand %d"
                             "has size %" PRId64 " which does not broadcast with previously seen "
                             "ellipsis with size %" PRId64 " for the respective dimension",
                             d, i, size, seen[l]);
            else if (is_ellipsis(&e, l) && size != 1)
                seen[l] = size;
        }
        if (st == NT_OK) st = take_diagonals(&e, i, &ops[i]);
        for (int d = 0; st == NT_OK && d < ops[i].lab.n; d++) {
            int l = ops[i].lab.label[d];
            int64_t size = ops[i].t->sizes[d];
            if (size != 1 && seen[l] != 1 && size != seen[l])
                st = nt_fail(NT_ERR_RUNTIME,
                             "einsum(): subscript %s has size %" PRId64 " for operand %d which "
                             "does not broadcast with previously seen size %" PRId64,
                             label_text(&e, l), size, i, seen[l]);
            else if (size != 1)
                seen[l] = size;
        }
    }
    if (st == NT_OK) st = evaluate(&e, ops);
    if (st == NT_OK && e.named) {
        nt_name names[NT_MAX_DIMS];
        for (int k = 0; k < e.out.n; k++)
            names[k] = e.names[e.out.label[k]];
        st = nt_rename(ops[0].t, names, &c->result[0]);
    } else if (st == NT_OK) {
        c->result[0] = nt_tensor_retain(ops[0].t);
    }
    operands_release(ops, made);
    return st;
}

nt_status nt_einsum(const char *equation, int count, nt_tensor *const *tensors, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_EINSUM);
    c.args[0] = nt_arg_str(equation);
    c.args[1] = nt_arg_tensors(count, tensors);
    return nt_dispatch_result(&c, out);
}
