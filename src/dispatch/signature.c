/*
 * signature.c — parsing PyTorch's signature notation (nt_sig_parse, ntensor/call.h):
 *
 *     name(Type name, Type? name=default, *, Type[N] name=default) -> Returns|deprecated
 *
 * for the op schemas of the op table and for the Python signatures the Python module binds.
 * Parameters are separated by ", " (defaults such as {1,2} hold no space, as in PyTorch's
 * native_functions.yaml). Parsing never allocates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "ntensor/call.h"

/* Copies [b, e) into dst (cap bytes) or fails. */
static nt_status copy_text(char *dst, size_t cap, const char *b, const char *e, const char *what,
                           const char *text, size_t len) {
    size_t n = (size_t)(e - b);
    if (n >= cap) return nt_fail(NT_ERR_VALUE, "signature %.*s: %s too long", (int)len, text, what);
    memcpy(dst, b, n);
    dst[n] = '\0';
    return NT_OK;
}

/* One "Type[N]? name=default" between b and e. */
static nt_status parse_param(const char *b, const char *e, bool kwonly, nt_param *p,
                             const char *text, size_t len) {
    memset(p, 0, sizeof *p);
    p->keyword_only = kwonly;
    const char *space = memchr(b, ' ', (size_t)(e - b));
    if (!space)
        return nt_fail(NT_ERR_VALUE, "signature %.*s: parameter without a type", (int)len, text);
    const char *te = space;
    if (te > b && te[-1] == '?') {
        p->allow_none = true;
        te--;
    }
    if (te > b && te[-1] == ']') {
        const char *open = te - 1;
        while (open > b && *open != '[')
            open--;
        if (open + 2 < te) { /* "[N]": a size; "[]" stays part of the type ("int[]") */
            int n = 0;
            for (const char *q = open + 1; q < te - 1; q++) {
                if (*q < '0' || *q > '9')
                    return nt_fail(NT_ERR_VALUE, "signature %.*s: bad size", (int)len, text);
                n = n * 10 + (*q - '0');
            }
            p->size = n;
            te = open;
        }
    }
    NT_TRY(copy_text(p->type, sizeof p->type, b, te, "type", text, len));
    const char *nb = space + 1, *eq = memchr(nb, '=', (size_t)(e - nb));
    NT_TRY(copy_text(p->name, sizeof p->name, nb, eq ? eq : e, "name", text, len));
    if (eq) {
        p->optional = true;
        NT_TRY(copy_text(p->default_text, sizeof p->default_text, eq + 1, e, "default", text, len));
        if (strcmp(p->default_text, "None") == 0) p->allow_none = true;
    }
    if (!p->name[0]) return nt_fail(NT_ERR_VALUE, "signature %.*s: empty name", (int)len, text);
    return NT_OK;
}

nt_status nt_sig_parse(const char *text, size_t len, nt_sig *out) {
    if (!text || !out) return nt_fail(NT_ERR_VALUE, "nt_sig_parse(): NULL argument");
    memset(out, 0, sizeof *out);
    const char *end = text + len, *open = memchr(text, '(', len);
    if (!open) return nt_fail(NT_ERR_VALUE, "signature %.*s: missing '('", (int)len, text);
    NT_TRY(copy_text(out->name, sizeof out->name, text, open, "name", text, len));
    /* the matching ')' (defaults hold no parentheses) */
    const char *close = memchr(open, ')', (size_t)(end - open));
    if (!close) return nt_fail(NT_ERR_VALUE, "signature %.*s: missing ')'", (int)len, text);
    bool kwonly = false;
    for (const char *b = open + 1; b < close;) {
        const char *e = b;
        while (e + 1 < close && !(e[0] == ',' && e[1] == ' '))
            e++;
        if (e + 1 >= close) e = close;
        if (e - b == 1 && *b == '*') {
            kwonly = true;
        } else {
            if (out->nparams == NT_SIG_MAX_PARAMS)
                return nt_fail(NT_ERR_VALUE, "signature %.*s: too many parameters", (int)len, text);
            NT_TRY(parse_param(b, e, kwonly, &out->params[out->nparams++], text, len));
        }
        b = e < close ? e + 2 : close;
    }
    const char *rest = close + 1;
    const char *bar = memchr(rest, '|', (size_t)(end - rest));
    const char *rend = bar ? bar : end;
    const char *arrow = NULL;
    for (const char *q = rest; q + 1 < rend; q++)
        if (q[0] == '-' && q[1] == '>') arrow = q;
    if (arrow) {
        const char *rb = arrow + 2;
        while (rb < rend && *rb == ' ')
            rb++;
        NT_TRY(copy_text(out->returns, sizeof out->returns, rb, rend, "return type", text, len));
    }
    if (bar) {
        out->deprecated = end - bar == 11 && memcmp(bar, "|deprecated", 11) == 0;
        /* "|ntensor": a form of ntensor's own (names where PyTorch 1.13 takes none): hidden
         * from PyTorch's error texts, as if the op had only PyTorch's */
        out->extension = end - bar == 8 && memcmp(bar, "|ntensor", 8) == 0;
        out->hidden =
            out->deprecated || out->extension || (end - bar == 7 && memcmp(bar, "|hidden", 7) == 0);
    }
    return NT_OK;
}

/* The schema types and the argument kind each takes. */
static const struct {
    const char *type;
    int kind;
} kinds[] = {
    {"Tensor", NT_ARG_TENSOR},   {"Scalar", NT_ARG_SCALAR},    {"int", NT_ARG_INT},
    {"float", NT_ARG_FLOAT},     {"bool", NT_ARG_BOOL},        {"ScalarType", NT_ARG_DTYPE},
    {"Dim", NT_ARG_DIM},         {"Dim[]", NT_ARG_DIMS},       {"int[]", NT_ARG_INTS},
    {"Dimname[]", NT_ARG_NAMES}, {"Tensor[]", NT_ARG_TENSORS}, {"str", NT_ARG_STR},
    {"Operand", NT_ARG_TENSOR},
};

int nt_sig_kind_of(const char *type) {
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].type, type) == 0) return kinds[i].kind;
    return -1;
}

nt_arg nt_sig_default(const nt_param *p) {
    const char *d = p->default_text;
    if (!p->optional || strcmp(d, "None") == 0) return nt_arg_none();
    char *end;
    long long i = strtoll(d, &end, 10);
    switch (strcmp(p->type, "Operand") == 0 ? NT_ARG_SCALAR : nt_sig_kind_of(p->type)) {
    case NT_ARG_BOOL:
        return nt_arg_bool(strcmp(d, "True") == 0);
    case NT_ARG_INT:
        return nt_arg_int(i);
    case NT_ARG_DIM:
        return nt_arg_dim(i);
    case NT_ARG_FLOAT:
        return nt_arg_float(strtod(d, NULL));
    case NT_ARG_SCALAR: /* a number: an int when the text is one */
        return nt_arg_scalar(*end == '\0' ? nt_scalar_int(i) : nt_scalar_float(strtod(d, NULL)));
    default:
        return nt_arg_none();
    }
}
