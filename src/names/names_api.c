/*
 * names_api.c — the named-dimension API: rename (positional and by map), set_names_,
 * refine_names, align_to and align_as; and the name helpers declared in names.h.
 *
 * All of these return views: the result shares t's storage and differs only in names
 * (rename, refine_names) or in a permutation plus size-one dims (align_to, align_as). The
 * checks and messages follow PyTorch 1.13, except where the spec is stricter: align_to and
 * align_as need every dim of the input named, with or without an Ellipsis.
 *
 * They are op-table ops (rows RENAME, RENAME_MAP, REFINE_NAMES, ALIGN_TO, ALIGN_AS): the
 * nt_impl_* functions read the call record, the public functions go through nt_dispatch.
 * The one Ellipsis of rename and refine_names arrives as an index into the names
 * (NT_ARG_NAMES) and is expanded here as PyTorch's Python code does (expand_ellipsis).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "dispatch/dispatch.h"
#include "names/names.h"

/* ------------------------------------------------------------------ helpers (names.h) */

/* Appends printf output at *len, never past cap (buf stays NUL-terminated). */
static void append(char *buf, size_t cap, size_t *len, const char *fmt, const char *s) {
    if (*len >= cap) return;
    int w = snprintf(buf + *len, cap - *len, fmt, s);
    if (w > 0) *len += (size_t)w;
}

static void append_name(char *buf, size_t cap, size_t *len, const char *sep, nt_name name) {
    const char *s = nt_name_str(name);
    append(buf, cap, len, "%s", sep);
    if (s)
        append(buf, cap, len, "'%s'", s);
    else
        append(buf, cap, len, "%s", "None");
}

void nt_names_tuple_repr(const nt_name *names, int n, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    append(buf, cap, &len, "%s", "(");
    for (int i = 0; i < n; i++)
        append_name(buf, cap, &len, i ? ", " : "", names[i]);
    append(buf, cap, &len, "%s", n == 1 ? ",)" : ")");
}

void nt_names_repr_skip(const nt_name *names, int n, int skip, char *buf, size_t cap) {
    size_t len = 0;
    bool first = true;
    buf[0] = '\0';
    append(buf, cap, &len, "%s", "[");
    for (int i = 0; i < n; i++) {
        if (i == skip) continue;
        append_name(buf, cap, &len, first ? "" : ", ", names[i]);
        first = false;
    }
    append(buf, cap, &len, "%s", "]");
}

void nt_ints_repr(const int64_t *v, int n, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    append(buf, cap, &len, "%s", "[");
    for (int i = 0; i < n && len < cap; i++) {
        int w = snprintf(buf + len, cap - len, "%s%" PRId64, i ? ", " : "", v[i]);
        if (w > 0) len += (size_t)w;
    }
    append(buf, cap, &len, "%s", "]");
}

nt_status nt_names_resolve_dims(const nt_tensor *t, int count, const nt_name *names,
                                int64_t *dims_out) {
    for (int i = 0; i < count; i++)
        NT_TRY(nt_tensor_dim_of(t, names[i], &dims_out[i]));
    return NT_OK;
}

nt_status nt_names_check_for(int ndim, int count, const nt_name *names) {
    if (count != ndim) {
        char text[512];
        nt_names_repr(names, count < 0 ? 0 : count, text, sizeof text);
        return nt_fail(NT_ERR_RUNTIME,
                       "Number of names (%d) and number of dimensions in tensor (%d) do not "
                       "match. Attempted to create a tensor with names %s",
                       count, ndim, text);
    }
    NT_TRY(nt_names_check_known(names, count));
    return nt_names_check_unique(names, count);
}

/* t's names, all None when t is unnamed. */
static void names_of(const nt_tensor *t, nt_name *names) {
    for (int i = 0; i < t->ndim; i++)
        names[i] = nt_tensor_name_at(t, i);
}

/* An alias of t (same sizes, strides, offset) with other names (NULL: unnamed). */
static nt_status alias_with_names(nt_tensor *t, const nt_name *names, nt_tensor **out) {
    return nt_tensor_view_of(t, t->ndim, t->sizes, t->strides, t->offset, names, out);
}

/* ------------------------------------------------------------------ rename */

/* Expands the Ellipsis at `ellipsis` (-1: none) of names[0..count) with t's names as
 * PyTorch's Python code does (rename, refine_names: the slice names[pre : ndim - post] with
 * Python's rules, so a negative end counts from the back and the expansion can be
 * non-empty even when the counts do not match). Writes at most 3 * NT_MAX_DIMS names. */
static nt_status expand_ellipsis(const char *api, const nt_tensor *t, int count,
                                 const nt_name *names, int ellipsis, nt_name *out, int *n_out) {
    if (count < 0 || ellipsis < -1 || ellipsis >= count)
        return nt_fail(NT_ERR_VALUE, "%s: invalid Ellipsis position %d among %d names", api,
                       ellipsis, count);
    if (count > 2 * NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "%s: too many names (%d)", api, count);
    int pre = ellipsis >= 0 ? ellipsis : count;
    int post = ellipsis >= 0 ? count - ellipsis - 1 : 0;
    int start = 0, stop = 0;
    if (ellipsis >= 0) {
        start = pre < t->ndim ? pre : t->ndim;
        stop = t->ndim - post;
        if (stop < 0) stop += t->ndim;
        if (stop < start) stop = start;
    }
    int n = 0;
    for (int i = 0; i < pre; i++)
        out[n++] = names[i];
    for (int i = start; i < stop; i++)
        out[n++] = nt_tensor_name_at(t, i);
    for (int i = 0; i < post; i++)
        out[n++] = names[ellipsis + 1 + i];
    *n_out = n;
    return NT_OK;
}

/* rename(names) and rename_(names): NT_ARG_NONE drops every name; a list (with at most
 * one Ellipsis) must name every dim. */
nt_status nt_impl_rename(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor(c->inplace ? "rename_" : "rename", "self");
    const nt_arg *a = &c->args[1];
    nt_name buf[3 * NT_MAX_DIMS];
    const nt_name *names = NULL;
    if (a->kind == NT_ARG_NAMES) {
        int n;
        NT_TRY(expand_ellipsis(c->inplace ? "rename_" : "rename", t, a->n, a->v.names, a->ellipsis,
                               buf, &n));
        NT_TRY(nt_names_check_for(t->ndim, n, buf));
        names = buf;
    }
    if (c->inplace) {
        NT_TRY(nt_tensor_set_names(t, names));
        c->result[0] = nt_tensor_retain(t);
        return NT_OK;
    }
    return alias_with_names(t, names, &c->result[0]);
}

/* A call of op `op` on t with a names slot (NULL: none), in place or not. */
static nt_status names_call(nt_op op, nt_tensor *t, int count, const nt_name *names, int ellipsis,
                            bool inplace, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = inplace;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = names ? nt_arg_names(count, names, ellipsis) : nt_arg_none();
    NT_TRY(nt_dispatch(&c));
    if (out)
        *out = c.result[0];
    else
        nt_tensor_release(c.result[0]);
    return NT_OK;
}

nt_status nt_rename(nt_tensor *t, const nt_name *names, nt_tensor **out) {
    return names_call(NT_OP_RENAME, t, t ? t->ndim : 0, names, -1, false, out);
}

nt_status nt_rename_n(nt_tensor *t, int count, const nt_name *names, nt_tensor **out) {
    /* Python's rename(None) drops every name, whatever the number of dims */
    if (names && count == 1 && names[0] == NT_NAME_NONE) names = NULL;
    return names_call(NT_OP_RENAME, t, count, names, -1, false, out);
}

nt_status nt_set_names_(nt_tensor *t, const nt_name *names) {
    return names_call(NT_OP_RENAME, t, t ? t->ndim : 0, names, -1, true, NULL);
}

nt_status nt_set_names_n_(nt_tensor *t, int count, const nt_name *names) {
    return names_call(NT_OP_RENAME, t, count, names, -1, true, NULL);
}

/* The names t would have after renaming from[i] to to[i]. Like PyTorch's Python
 * rename(**map), each from[i] is looked up among t's original names, so a later pair
 * naming the same dim wins. `api` ("rename" or "rename_") starts the message. */
static nt_status renamed_names(const nt_tensor *t, int count, const nt_name *from,
                               const nt_name *to, const char *api, nt_name *names) {
    if (count < 0) return nt_fail(NT_ERR_VALUE, "%s: negative number of names (%d)", api, count);
    names_of(t, names);
    for (int i = 0; i < count; i++) {
        int d = nt_names_find(t, from[i]);
        if (d < 0) {
            char dims[512];
            const char *old = nt_name_str(from[i]), *new_text = nt_name_str(to[i]);
            old = old ? old : "None";
            nt_names_tuple_repr(names, t->ndim, dims, sizeof dims);
            return nt_fail(NT_ERR_RUNTIME,
                           "%s: Tried to rename dim '%s' to dim %s in Tensor[%s] but dim '%s' "
                           "does not exist",
                           api, old, new_text ? new_text : "None", dims, old);
        }
        names[d] = to[i];
    }
    NT_TRY(nt_names_check_known(names, t->ndim));
    return nt_names_check_unique(names, t->ndim);
}

/* rename(**map), rename_(**map): slot 1 the old names, slot 2 the new ones. */
nt_status nt_impl_rename_map(nt_call *c) {
    const char *api = c->inplace ? "rename_" : "rename";
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor(api, "self");
    const nt_arg *from = &c->args[1], *to = &c->args[2];
    if (from->n != to->n)
        return nt_fail(NT_ERR_VALUE, "%s: %d names to rename but %d new names", api, from->n,
                       to->n);
    nt_name names[NT_MAX_DIMS];
    NT_TRY(renamed_names(t, from->n, from->v.names, to->v.names, api, names));
    if (c->inplace) {
        NT_TRY(nt_tensor_set_names(t, names));
        c->result[0] = nt_tensor_retain(t);
        return NT_OK;
    }
    return alias_with_names(t, names, &c->result[0]);
}

static nt_status rename_map_call(nt_tensor *t, int count, const nt_name *from, const nt_name *to,
                                 bool inplace, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_RENAME_MAP);
    c.inplace = inplace;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_names(count, from, -1);
    c.args[2] = nt_arg_names(count, to, -1);
    NT_TRY(nt_dispatch(&c));
    if (out)
        *out = c.result[0];
    else
        nt_tensor_release(c.result[0]);
    return NT_OK;
}

nt_status nt_rename_map(nt_tensor *t, int count, const nt_name *from, const nt_name *to,
                        nt_tensor **out) {
    return rename_map_call(t, count, from, to, false, out);
}

nt_status nt_rename_map_(nt_tensor *t, int count, const nt_name *from, const nt_name *to) {
    return rename_map_call(t, count, from, to, true, NULL);
}

/* ------------------------------------------------------------------ refine_names */

/* Checks the Ellipsis position of align_to: -1, or one of the `count` entries of names
 * (whose value is then ignored). */
static nt_status check_ellipsis(const char *api, int count, int ellipsis) {
    if (count < 0 || ellipsis < -1 || ellipsis >= count)
        return nt_fail(NT_ERR_VALUE, "%s: invalid Ellipsis position %d among %d names", api,
                       ellipsis, count);
    return NT_OK;
}

nt_status nt_impl_refine_names(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (!t) return nt_fail_null_tensor("refine_names", "self");
    const nt_arg *a = &c->args[1];
    nt_name refined[3 * NT_MAX_DIMS];
    int n;
    NT_TRY(expand_ellipsis("refine_names", t, a->n, a->v.names, a->ellipsis, refined, &n));
    char have[512], want[512];
    if (n != t->ndim) {
        nt_names_repr(t->names, t->ndim, have, sizeof have);
        nt_names_repr(refined, n, want, sizeof want);
        return nt_fail(NT_ERR_RUNTIME,
                       "refine_names: cannot coerce Tensor%s to Tensor%s because they have a "
                       "different number of dims (%d and %d respectively).",
                       have, want, t->ndim, n);
    }
    NT_TRY(nt_names_check_known(refined, t->ndim));
    NT_TRY(nt_names_check_unique(refined, t->ndim));
    for (int i = 0; i < t->ndim; i++) {
        nt_name self = nt_tensor_name_at(t, i);
        if (self == refined[i] || self == NT_NAME_NONE) continue;
        nt_names_repr(t->names, t->ndim, have, sizeof have);
        nt_names_repr(refined, t->ndim, want, sizeof want);
        const char *to = nt_name_str(refined[i]);
        if (!to)
            return nt_fail(NT_ERR_RUNTIME,
                           "refine_names: cannot coerce Tensor%s to Tensor%s because '%s' is "
                           "more specific than None at index %d",
                           have, want, nt_name_str(self), i);
        return nt_fail(NT_ERR_RUNTIME,
                       "refine_names: cannot coerce Tensor%s to Tensor%s because '%s' is "
                       "different from '%s' at index %d",
                       have, want, nt_name_str(self), to, i);
    }
    return alias_with_names(t, refined, &c->result[0]);
}

nt_status nt_refine_names(nt_tensor *t, int count, const nt_name *names, int ellipsis,
                          nt_tensor **out) {
    return names_call(NT_OP_REFINE_NAMES, t, count, names, ellipsis, false, out);
}

/* ------------------------------------------------------------------ align_to, align_as */

static nt_status fail_unnamed(const nt_tensor *t, int index) {
    char have[512];
    nt_names_repr(t->names, t->ndim, have, sizeof have);
    return nt_fail(NT_ERR_RUNTIME,
                   "align_to: All input dims must be named. Found unnamed dim at index %d of "
                   "Tensor%s",
                   index, have);
}

static nt_status check_out_dims(int ndim) {
    if (ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "number of dimensions must be in [0, %d], got %d",
                       NT_MAX_DIMS, ndim);
    return NT_OK;
}

/* align_to without an Ellipsis (and align_as): the result has one dim per entry of
 * `order`; t's dims go where their names are, every other entry (None included) is a new
 * size-one dim. The messages are PyTorch's, which prints `order` twice. */
static nt_status align_to_order(nt_tensor *t, int count, const nt_name *order, nt_view_dest out) {
    NT_TRY(check_out_dims(count));
    NT_TRY(nt_names_check_known(order, count));
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    for (int i = 0; i < count; i++)
        sizes[i] = 1, strides[i] = 0;
    for (int d = 0; d < t->ndim; d++) {
        nt_name name = nt_tensor_name_at(t, d);
        if (name == NT_NAME_NONE) return fail_unnamed(t, d);
        int at = 0;
        while (at < count && order[at] != name)
            at++;
        if (at == count) {
            char want[512];
            nt_names_repr(order, count, want, sizeof want);
            return nt_fail(NT_ERR_RUNTIME,
                           "align_to: Cannot find dim '%s' from Tensor%s in desired alignment "
                           "%s.",
                           nt_name_str(name), want, want);
        }
        sizes[at] = t->sizes[d];
        strides[at] = t->strides[d];
    }
    NT_TRY(nt_names_check_unique(order, count));
    return nt_view_deliver(t, count, sizes, strides, t->offset, order, out);
}

static nt_status align_to(nt_tensor *t, int count, const nt_name *names, int ellipsis,
                          nt_view_dest out) {
    NT_TRY(check_ellipsis("align_to", count, ellipsis));
    if (ellipsis < 0) return align_to_order(t, count, names, out);
    /* PyTorch lets an Ellipsis carry unnamed dims along; the spec does not. */
    for (int d = 0; d < t->ndim; d++)
        if (nt_tensor_name_at(t, d) == NT_NAME_NONE) return fail_unnamed(t, d);
    /* Where each name of the order (the entries but the Ellipsis) is in t, or -1. */
    int found_at[NT_MAX_DIMS];
    bool mentioned[NT_MAX_DIMS] = {false};
    int mentioned_count = 0, order_count = count - 1;
    NT_TRY(check_out_dims(order_count));
    for (int k = 0; k < order_count; k++) {
        nt_name name = names[k < ellipsis ? k : k + 1];
        if (name == NT_NAME_NONE) {
            char want[512];
            nt_names_repr_skip(names, count, ellipsis, want, sizeof want);
            return nt_fail(NT_ERR_RUNTIME,
                           "align_to: the desired order of dimensions cannot contain a None "
                           "name, got %s",
                           want);
        }
        found_at[k] = nt_names_find(t, name);
        if (found_at[k] >= 0 && !mentioned[found_at[k]]) {
            mentioned[found_at[k]] = true;
            mentioned_count++;
        }
    }
    int expand_to = t->ndim - mentioned_count; /* dims the Ellipsis stands for */
    int ndim = expand_to + order_count;
    NT_TRY(check_out_dims(ndim));
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
    nt_name out_names[NT_MAX_DIMS];
    for (int k = 0; k < order_count; k++) {
        int at = k < ellipsis ? k : k + expand_to;
        int d = found_at[k];
        sizes[at] = d >= 0 ? t->sizes[d] : 1;
        strides[at] = d >= 0 ? t->strides[d] : 0;
        out_names[at] = names[k < ellipsis ? k : k + 1];
    }
    for (int d = 0, at = ellipsis; d < t->ndim; d++) {
        if (mentioned[d]) continue;
        sizes[at] = t->sizes[d];
        strides[at] = t->strides[d];
        out_names[at++] = t->names[d];
    }
    NT_TRY(nt_names_check_known(out_names, ndim));
    NT_TRY(nt_names_check_unique(out_names, ndim));
    return nt_view_deliver(t, ndim, sizes, strides, t->offset, out_names, out);
}

/* align_to(names) and align_as(other): the view (the impl) or its shape (the shape rule) */
static nt_status align_call(const nt_call *c, nt_view_dest d) {
    nt_tensor *t = nt_call_tensor(c, 0);
    if (c->op == NT_OP_ALIGN_TO) {
        if (!t) return nt_fail_null_tensor("align_to", "self");
        const nt_arg *a = &c->args[1];
        return align_to(t, a->n, a->v.names, a->ellipsis, d);
    }
    nt_tensor *other = nt_call_tensor(c, 1);
    if (!t) return nt_fail_null_tensor("align_as", "self");
    if (!other) return nt_fail_null_tensor("align_as", "other");
    nt_name order[NT_MAX_DIMS];
    names_of(other, order);
    return align_to_order(t, other->ndim, order, d);
}

nt_status nt_impl_align_to(nt_call *c) {
    return align_call(c, nt_view_to(&c->result[0]));
}

nt_status nt_impl_align_as(nt_call *c) {
    return align_call(c, nt_view_to(&c->result[0]));
}

nt_status nt_shape_align_to(const nt_call *c, nt_shape *s) {
    return align_call(c, nt_view_shape(s));
}

nt_status nt_align_to(nt_tensor *t, int count, const nt_name *names, int ellipsis,
                      nt_tensor **out) {
    return names_call(NT_OP_ALIGN_TO, t, count, names, ellipsis, false, out);
}

nt_status nt_align_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_ALIGN_AS);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_tensor((nt_tensor *)other);
    NT_TRY(nt_dispatch(&c));
    *out = c.result[0];
    return NT_OK;
}

nt_status nt_names_check_result(const nt_name *have, int n, const nt_name *want, int m) {
    return nt_names_check_out(have, n, want, m);
}
