/*
 * format.c — a tensor's repr, byte for byte what PyTorch 1.13 prints on CPU.
 *
 * This is torch/_tensor_str.py rewritten in C, and it follows that file's structure so the
 * two can be read side by side:
 *  - the formatter (_Formatter) looks at the elements that will be printed and picks a
 *    mode: integers, floats that are all integral ("1.", "2."), fixed point ("%.4f") or
 *    scientific ("%.4e"), and one column width shared by every element;
 *  - vector_str / tensor_str (_vector_str / _tensor_str_with_formatter) nest the brackets,
 *    wrap rows at the linewidth and summarise long dims with "...";
 *  - add_suffixes (_add_suffixes) appends ", dtype=...", ", names=(...)" and any suffix the
 *    caller passes (requires_grad, grad_fn), moving one to a new line when it would pass
 *    the linewidth.
 * Elements are read one at a time through their strides (any offset, negative or zero
 * strides), so printing depends on nothing but the tensor's metadata.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"

/* ------------------------------------------------------------------ options */

#define NT_PRINT_MAX_PRECISION 1000

static nt_print_options g_print_options = {4, 1000.0, 3, 80, -1};

nt_print_options nt_default_print_options(void) {
    nt_print_options o = {4, 1000.0, 3, 80, -1};
    return o;
}

void nt_print_profile(const char *profile, nt_print_options *opts) {
    static const struct {
        const char *name;
        nt_print_options o; /* its precision, threshold, edgeitems and linewidth */
    } profiles[] = {{"default", {4, 1000.0, 3, 80, -1}},
                    {"short", {2, 1000.0, 2, 80, -1}},
                    {"full", {4, INFINITY, 3, 80, -1}}};
    for (size_t i = 0; profile && opts && i < sizeof profiles / sizeof *profiles; i++)
        if (strcmp(profile, profiles[i].name) == 0) {
            int sci_mode = opts->sci_mode;
            *opts = profiles[i].o;
            opts->sci_mode = sci_mode;
        }
}

nt_print_options nt_get_print_options(void) {
    return g_print_options;
}

nt_status nt_set_print_options(const nt_print_options *opts) {
    if (!opts) return nt_fail(NT_ERR_VALUE, "print options must not be NULL");
    if (opts->precision < 0 || opts->precision > NT_PRINT_MAX_PRECISION)
        return nt_fail(NT_ERR_VALUE, "precision must be in [0, %d], got %" PRId64,
                       NT_PRINT_MAX_PRECISION, opts->precision);
    if (opts->edgeitems < 0)
        return nt_fail(NT_ERR_VALUE, "edgeitems must be non-negative, got %" PRId64,
                       opts->edgeitems);
    if (opts->sci_mode < -1 || opts->sci_mode > 1)
        return nt_fail(NT_ERR_VALUE, "sci_mode must be -1 (auto), 0 or 1, got %d", opts->sci_mode);
    g_print_options = *opts;
    return NT_OK;
}

/* ------------------------------------------------------------------ growable string */

/* A string that grows as it is appended to. The first failed allocation makes it sticky
 * "failed": later appends do nothing, and the caller checks once at the end. */
typedef struct strbuf {
    char *data;
    size_t len, cap;
    bool failed;
} strbuf;

static bool sb_reserve(strbuf *b, size_t extra) {
    if (b->failed) return false;
    if (extra > SIZE_MAX - b->len - 1) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + extra + 1; /* room for the NUL */
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *data = realloc(b->data, cap);
    if (!data) {
        b->failed = true;
        return false;
    }
    b->data = data;
    b->cap = cap;
    return true;
}

static void sb_append(strbuf *b, const char *s, size_t n) {
    if (!sb_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void sb_puts(strbuf *b, const char *s) {
    sb_append(b, s, strlen(s));
}

static void sb_repeat(strbuf *b, char c, int64_t n) {
    if (n <= 0 || !sb_reserve(b, (size_t)n)) return;
    memset(b->data + b->len, c, (size_t)n);
    b->len += (size_t)n;
    b->data[b->len] = '\0';
}

/* Appends the printf-formatted text, right-aligned in `width` columns (as Python pads);
 * width 0 appends it as is. */
__attribute__((format(printf, 3, 4))) static void sb_printf_padded(strbuf *b, int64_t width,
                                                                   const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    sb_repeat(b, ' ', width - n);
    if (!sb_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The length printf would produce. */
__attribute__((format(printf, 1, 2))) static int64_t printed_len(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    return n > 0 ? n : 0;
}

/* ------------------------------------------------------------------ walking the elements */

typedef struct formatter {
    bool floating; /* the dtype is floating (float16/bfloat16 print as float32) */
    bool int_mode; /* every nonzero finite value is integral: print "3." */
    bool sci_mode; /* print "%.{precision}e" */
    int64_t width; /* the column width every element is padded to */
    int precision;
} formatter;

typedef struct printer {
    const nt_tensor *t;
    const char *base; /* element [0, ..., 0] */
    int64_t esize;    /* bytes per element */
    bool summarize;   /* numel > threshold: long dims show edgeitems at each end */
    nt_print_options opts;
    formatter fmt;
    strbuf out;
} printer;

/* The printed index ranges of dim `d`: the whole dim, or its first and last edgeitems.
 * Python's `self[-0:]` is the whole vector, hence the innermost dim's tail with
 * edgeitems 0. Returns the number of ranges (1 or 2); [lo, hi) pairs go to r. */
static int printed_ranges(const printer *p, int d, int64_t r[2][2]) {
    int64_t n = p->t->sizes[d], e = p->opts.edgeitems;
    if (!p->summarize || n - e <= e) { /* n <= 2 * e, which may overflow */
        r[0][0] = 0, r[0][1] = n;
        return 1;
    }
    r[0][0] = 0, r[0][1] = e;
    r[1][0] = (d == p->t->ndim - 1 && e == 0) ? 0 : n - e, r[1][1] = n;
    return 2;
}

static const char *element_at(const printer *p, const char *ptr, int d, int64_t i) {
    return ptr + i * p->t->strides[d] * p->esize;
}

typedef void (*element_fn)(void *state, double value, int64_t ivalue);

/* Calls fn on every printed element in order: the elements _Formatter sees (it is given
 * get_summarized_data(self), which keeps exactly the printed ones). */
static void visit_printed(const printer *p, int d, const char *ptr, element_fn fn, void *state) {
    const nt_tensor *t = p->t;
    if (d == t->ndim) {
        if (nt_dtype_table[t->dtype].kind == NT_KIND_FLOAT)
            fn(state, nt_load_double(ptr, t->dtype), 0);
        else {
            nt_scalar s = nt_load_scalar(ptr, t->dtype);
            fn(state, 0.0, s.kind == NT_SCALAR_BOOL ? (int64_t)s.v.b : s.v.i);
        }
        return;
    }
    int64_t r[2][2];
    int nr = printed_ranges(p, d, r);
    for (int k = 0; k < nr; k++)
        for (int64_t i = r[k][0]; i < r[k][1]; i++)
            visit_printed(p, d + 1, element_at(p, ptr, d, i), fn, state);
}

/* ------------------------------------------------------------------ the formatter */

typedef struct float_stats {
    int64_t count; /* nonzero finite values */
    double min_abs, max_abs;
    bool int_mode;
} float_stats;

static void collect_stats(void *state, double v, int64_t iv) {
    (void)iv;
    float_stats *s = state;
    if (!isfinite(v) || v == 0.0) return;
    double a = fabs(v);
    if (s->count == 0 || a < s->min_abs) s->min_abs = a;
    if (s->count == 0 || a > s->max_abs) s->max_abs = a;
    if (v != ceil(v)) s->int_mode = false;
    s->count++;
}

static void widen_float(void *state, double v, int64_t iv) {
    (void)iv;
    formatter *f = state;
    if (!isfinite(v) || v == 0.0) return;
    int64_t w;
    if (f->sci_mode)
        w = printed_len("%.*e", f->precision, v);
    else if (f->int_mode)
        w = printed_len("%.0f", v) + 1; /* the trailing "." */
    else
        w = printed_len("%.*f", f->precision, v);
    if (w > f->width) f->width = w;
}

static bool is_bool(const printer *p) {
    return p->t->dtype == NT_BOOL;
}

static void widen_int(void *state, double v, int64_t iv) {
    (void)v;
    printer *p = state;
    int64_t w = is_bool(p) ? (iv ? 4 : 5) : printed_len("%" PRId64, iv);
    if (w > p->fmt.width) p->fmt.width = w;
}

/* _Formatter.__init__: the mode and the column width, from the printed elements. */
static void formatter_init(printer *p) {
    formatter *f = &p->fmt;
    f->floating = nt_dtype_table[p->t->dtype].kind == NT_KIND_FLOAT;
    f->int_mode = true;
    f->sci_mode = false;
    f->width = 1;
    f->precision = (int)p->opts.precision;
    if (!f->floating) {
        visit_printed(p, 0, p->base, widen_int, p);
    } else {
        float_stats s = {0, 0.0, 0.0, true};
        visit_printed(p, 0, p->base, collect_stats, &s);
        /* PyTorch returns here, before the sci_mode option is applied. */
        if (s.count == 0) return;
        f->int_mode = s.int_mode;
        bool wide = s.max_abs / s.min_abs > 1000.0 || s.max_abs > 1.0e8;
        f->sci_mode = f->int_mode ? wide : (wide || s.min_abs < 1.0e-4);
        visit_printed(p, 0, p->base, widen_float, f);
    }
    if (p->opts.sci_mode >= 0) f->sci_mode = p->opts.sci_mode == 1;
}

/* _Formatter.format: one element, padded to the column width. Python never prints the
 * sign of a NaN, where C would print "-nan". */
static void format_element(printer *p, const char *ptr) {
    const formatter *f = &p->fmt;
    strbuf *b = &p->out;
    nt_dtype dtype = p->t->dtype;
    if (!f->floating) {
        nt_scalar s = nt_load_scalar(ptr, dtype);
        if (s.kind == NT_SCALAR_BOOL)
            sb_printf_padded(b, f->width, "%s", s.v.b ? "True" : "False");
        else
            sb_printf_padded(b, f->width, "%" PRId64, s.v.i);
        return;
    }
    double v = nt_load_double(ptr, dtype);
    if (isnan(v))
        sb_printf_padded(b, f->width, "nan");
    else if (f->sci_mode)
        sb_printf_padded(b, f->width, "%.*e", f->precision, v);
    else if (f->int_mode && isinf(v))
        sb_printf_padded(b, f->width, "%.0f", v);
    else if (f->int_mode) /* "3." marks a floating tensor whose values are all integral */
        sb_printf_padded(b, f->width, "%.0f.", v);
    else
        sb_printf_padded(b, f->width, "%.*f", f->precision, v);
}

/* ------------------------------------------------------------------ layout */

/* Python's floor division for a positive divisor. */
static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Starts item `item` of a row: ", " between items, a new indented line every per_line. */
static void row_separator(printer *p, int64_t item, int64_t per_line, int64_t indent) {
    if (item == 0) return;
    if (item % per_line == 0) {
        sb_puts(&p->out, ",\n");
        sb_repeat(&p->out, ' ', indent + 1);
    } else {
        sb_puts(&p->out, ", ");
    }
}

/* _vector_str: one innermost row, wrapped so a line holds as many columns as fit. */
static void vector_str(printer *p, const char *ptr, int64_t indent) {
    int d = p->t->ndim - 1;
    int64_t room; /* any linewidth is accepted, INT64_MIN included */
    if (__builtin_sub_overflow(p->opts.linewidth, indent, &room)) room = INT64_MIN;
    int64_t per_line = floor_div(room, p->fmt.width + 2);
    if (per_line < 1) per_line = 1;
    int64_t r[2][2];
    int nr = printed_ranges(p, d, r);
    int64_t item = 0;
    sb_puts(&p->out, "[");
    for (int k = 0; k < nr; k++) {
        if (k) { /* the " ..." between the two ends is one more item of the row */
            row_separator(p, item++, per_line, indent);
            sb_puts(&p->out, " ...");
        }
        for (int64_t i = r[k][0]; i < r[k][1]; i++) {
            row_separator(p, item++, per_line, indent);
            format_element(p, element_at(p, ptr, d, i));
        }
    }
    sb_puts(&p->out, "]");
}

/* Between two sub-tensors: a comma, one newline per dim they have, the indentation. */
static void slice_separator(printer *p, int64_t slice, int rest, int64_t indent) {
    if (slice == 0) return;
    sb_puts(&p->out, ",");
    sb_repeat(&p->out, '\n', rest - 1);
    sb_repeat(&p->out, ' ', indent + 1);
}

/* _tensor_str_with_formatter: the sub-tensor whose first dim is `d`. */
static void tensor_str(printer *p, int d, const char *ptr, int64_t indent) {
    int rest = p->t->ndim - d;
    if (rest == 0) {
        format_element(p, ptr);
        return;
    }
    if (rest == 1) {
        vector_str(p, ptr, indent);
        return;
    }
    int64_t r[2][2];
    int nr = printed_ranges(p, d, r);
    int64_t slice = 0;
    sb_puts(&p->out, "[");
    for (int k = 0; k < nr; k++) {
        if (k) { /* the "..." slice */
            slice_separator(p, slice++, rest, indent);
            sb_puts(&p->out, "...");
        }
        for (int64_t i = r[k][0]; i < r[k][1]; i++) {
            slice_separator(p, slice++, rest, indent);
            tensor_str(p, d + 1, element_at(p, ptr, d, i), indent + 1);
        }
    }
    sb_puts(&p->out, "]");
}

/* ------------------------------------------------------------------ suffixes */

/* Python's str(tuple(shape)): "(0, 3)", "(0,)", "()". */
static void append_size_tuple(strbuf *b, const nt_tensor *t) {
    sb_puts(b, "size=(");
    for (int i = 0; i < t->ndim; i++)
        sb_printf_padded(b, 0, "%s%" PRId64, i ? ", " : "", t->sizes[i]);
    sb_puts(b, t->ndim == 1 ? ",)" : ")");
}

/* "names=('N', None)": the repr of tensor.names, a tuple. */
static void append_names_tuple(strbuf *b, const nt_tensor *t) {
    sb_puts(b, "names=(");
    for (int i = 0; i < t->ndim; i++) {
        const char *s = nt_name_str(t->names[i]);
        if (i) sb_puts(b, ", ");
        if (s) {
            sb_puts(b, "'");
            sb_puts(b, s);
            sb_puts(b, "'");
        } else {
            sb_puts(b, "None");
        }
    }
    sb_puts(b, t->ndim == 1 ? ",)" : ")");
}

/* _add_suffixes: each suffix follows ", " unless the line would pass the linewidth, then it
 * starts a new line indented under the first bracket. PyTorch's line length is the real
 * one plus 2 at first and exact after a break; kept as is, since it decides the breaks. */
static void add_suffixes(strbuf *b, const char *const *suffixes, int count, int64_t indent,
                         int64_t linewidth) {
    if (b->failed) return;
    const char *nl = strrchr(b->data, '\n');
    int64_t last_line_len = (int64_t)(nl ? b->data + b->len - nl : (ptrdiff_t)b->len + 1) + 1;
    for (int i = 0; i < count; i++) {
        int64_t n = (int64_t)strlen(suffixes[i]);
        if (last_line_len + n + 2 > linewidth) {
            sb_puts(b, ",\n");
            sb_repeat(b, ' ', indent);
            last_line_len = indent + n;
        } else {
            sb_puts(b, ", ");
            last_line_len += n + 2;
        }
        sb_puts(b, suffixes[i]);
    }
    sb_puts(b, ")");
}

/* ------------------------------------------------------------------ entry points */

nt_status nt_format_with_suffixes(const nt_tensor *t, int count, const char *const *suffixes,
                                  char **out) {
    return nt_format_as(t, "tensor(", count, suffixes, out);
}

nt_status nt_format_as(const nt_tensor *t, const char *prefix, int count,
                       const char *const *suffixes, char **out) {
    if (!t || !out || !prefix)
        return nt_fail(NT_ERR_VALUE, "nt_format: tensor, prefix and out must not be NULL");
    if (count < 0 || (count > 0 && !suffixes))
        return nt_fail(NT_ERR_VALUE, "nt_format: bad suffix list");
    for (int i = 0; i < count; i++)
        if (!suffixes[i]) return nt_fail(NT_ERR_VALUE, "nt_format: suffix %d is NULL", i);

    nt_status st = NT_OK;
    printer p = {0};
    strbuf size = {0}, dtype = {0}, names = {0};
    const char **list = NULL;
    p.t = t;
    p.base = nt_tensor_data(t);
    p.esize = (int64_t)nt_dtype_table[t->dtype].size;
    p.opts = g_print_options;
    p.summarize = (double)t->numel > p.opts.threshold;
    const int64_t indent = (int64_t)strlen(prefix);

    /* Our suffixes, in PyTorch's order: size, dtype, (the caller's), names. An empty tensor
     * shows its dtype unless it is the default, since no element hints at it. */
    nt_dtype dt = t->dtype;
    bool show_dtype = t->numel == 0 ? dt != nt_default_dtype()
                                    : dt != nt_default_dtype() && dt != NT_INT64 && dt != NT_BOOL;
    if (t->numel == 0 && t->ndim != 1) append_size_tuple(&size, t);
    if (show_dtype) sb_printf_padded(&dtype, 0, "dtype=torch.%s", nt_dtype_table[dt].name);
    if (t->names) append_names_tuple(&names, t);
    if (size.failed || dtype.failed || names.failed) goto oom;

    list = malloc(((size_t)count + 3) * sizeof *list);
    if (!list) goto oom;
    int n = 0;
    if (size.len) list[n++] = size.data;
    if (dtype.len) list[n++] = dtype.data;
    for (int i = 0; i < count; i++)
        list[n++] = suffixes[i];
    if (names.len) list[n++] = names.data;

    sb_puts(&p.out, prefix);
    if (t->numel == 0) {
        sb_puts(&p.out, "[]");
    } else {
        if (p.summarize && t->ndim >= 2 && p.opts.edgeitems == 0) {
            /* PyTorch's get_summarized_data stacks an empty list of slices here. */
            st = nt_fail(NT_ERR_RUNTIME, "stack expects a non-empty TensorList");
            goto fail;
        }
        formatter_init(&p);
        tensor_str(&p, 0, p.base, indent);
    }
    add_suffixes(&p.out, list, n, indent, p.opts.linewidth);
    if (p.out.failed) goto oom;
    *out = p.out.data;
    p.out.data = NULL;
    goto done;
oom:
    st = nt_fail(NT_ERR_MEMORY, "out of memory while formatting a tensor");
fail:
    free(p.out.data);
done:
    free(list);
    free(size.data);
    free(dtype.data);
    free(names.data);
    return st;
}

nt_status nt_format(const nt_tensor *t, char **out) {
    return nt_format_with_suffixes(t, 0, NULL, out);
}
