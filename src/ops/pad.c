/*
 * pad.c — nn.functional.pad(input, pad, mode, value) (layer L4): PyTorch 1.13's at::pad, its
 * modes constant (any number of trailing dims, negative pads crop), reflect, replicate and
 * circular (the last 1, 2 or 3 dims of a batched or unbatched input), with its checks and
 * texts (docs/decisions_ops_everyday.md).
 *
 * Written with public ops, one dim at a time from the last: the dim is cut to its cropped
 * part (negative pads) and joined by one cat to its two borders, which are constants (full),
 * mirrored slices (flip of a narrow), repeated edges (expand of a one-wide narrow) or the
 * far ends (narrow). Autograd records those ops (the row is composite), names follow cat's
 * rule: the input's are kept.
 *
 * When nothing is recorded, reflect, replicate and circular pads write the result once
 * instead: the input copied into its interior, then each dim's borders copied from the
 * result itself (small copies), so the input is read once and not joined dim by dim.
 */
#include <inttypes.h>
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "factory_call.h"
#include "names/names.h"
#include "ntensor/autograd.h"
#include "op_table.h"

typedef enum pad_mode { PAD_CONSTANT, PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR } pad_mode;
static const char *const pad_mode_names[] = {"constant", "reflect", "replicate", "circular"};

typedef struct pad_args {
    pad_mode mode;
    int n;              /* entries of pad */
    const int64_t *pad; /* (left, right) of the last dim, then of the one before, ... */
    double value;
} pad_args;

/* The mode, the value and the pad list's checks, in at::pad's order */
static nt_status pad_check(const nt_call *c, const nt_tensor *t, pad_args *a) {
    a->n = c->args[1].n;
    a->pad = c->args[1].v.ints;
    if (a->n % 2) return nt_fail(NT_ERR_RUNTIME, "Padding length must be divisible by 2");
    if (a->n / 2 > t->ndim) return nt_fail(NT_ERR_RUNTIME, "Padding length too large");
    const char *mode = c->args[2].kind == NT_ARG_STR ? c->args[2].v.str : "constant";
    int m = 0;
    while (m < 4 && strcmp(mode, pad_mode_names[m]) != 0)
        m++;
    if (m == 4) return nt_fail(NT_ERR_NOT_IMPLEMENTED, "Unrecognised padding mode %s", mode);
    a->mode = (pad_mode)m;
    bool given = c->args[3].kind == NT_ARG_FLOAT;
    a->value = given ? c->args[3].v.f : 0.0;
    if (a->mode == PAD_CONSTANT) return NT_OK;
    if (given && a->value != 0.0)
        return nt_fail(NT_ERR_RUNTIME, "Padding mode \"%s\" doesn't take in value argument",
                       pad_mode_names[m]);
    int dims = a->n / 2;
    if (dims < 1 || dims > 3 || t->ndim < dims + 1 || t->ndim > dims + 2)
        return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                       "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for "
                       "now");
    if (a->mode == PAD_CIRCULAR && a->n + 4 != 2 * t->ndim) /* _pad_circular: batched only */
        return nt_fail(NT_ERR_RUNTIME, "Invalid padding size, expected %d but got %d",
                       2 * (t->ndim - 2), a->n);
    for (int i = 0; i < dims; i++) {
        int d = t->ndim - 1 - i;
        int64_t l = a->pad[2 * i], r = a->pad[2 * i + 1], size = t->sizes[d];
        if (a->mode == PAD_REFLECT && (l >= size || r >= size)) {
            char sizes[512];
            nt_ints_repr(t->sizes, t->ndim, sizes, sizeof sizes);
            return nt_fail(NT_ERR_RUNTIME,
                           "Argument #4: Padding size should be less than the corresponding "
                           "input dimension, but got: padding (%" PRId64 ", %" PRId64
                           ") at dimension %d of input %s",
                           l, r, d, sizes);
        }
        if (a->mode == PAD_CIRCULAR && (l > size || r > size))
            return nt_fail(NT_ERR_RUNTIME, "Padding value causes wrapping around more than once.");
        if (l < 0 || r < 0) /* PyTorch crops; here only the constant mode does */
            return nt_fail(NT_ERR_NOT_IMPLEMENTED,
                           "negative padding is not supported in %s mode (ntensor)",
                           pad_mode_names[m]);
    }
    return NT_OK;
}

/* The padded (or cropped) size of dim d, checked as constant_pad_nd checks it */
static nt_status padded_size(const nt_tensor *t, int d, int64_t l, int64_t r, int64_t *out) {
    *out = t->sizes[d] + l + r;
    if (*out < 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "The input size %" PRId64 ", plus negative padding %" PRId64 " and %" PRId64
                       " resulted in a negative output size, which is invalid. "
                       "Check dimension %d of your input.",
                       t->sizes[d], l, r, d);
    return NT_OK;
}

nt_status nt_shape_pad(const nt_call *c, nt_shape *s) {
    const nt_tensor *t = nt_call_tensor(c, 0);
    pad_args a;
    NT_TRY(pad_check(c, t, &a));
    nt_shape_of_tensor(s, t);
    for (int i = 0; i < a.n / 2; i++) {
        int d = t->ndim - 1 - i;
        NT_TRY(padded_size(t, d, a.pad[2 * i], a.pad[2 * i + 1], &s->sizes[d]));
    }
    return NT_OK;
}

/* One border of `count` entries along d: the side's (right: at the end) */
static nt_status border(nt_tensor *x, int d, int64_t count, bool right, const pad_args *a,
                        nt_tensor **out) {
    int64_t size = x->sizes[d];
    nt_tensor *slice = NULL;
    nt_status st = NT_OK;
    switch (a->mode) {
    case PAD_CONSTANT: {
        int64_t sizes[NT_MAX_DIMS];
        memcpy(sizes, x->sizes, (size_t)x->ndim * sizeof *sizes);
        sizes[d] = count;
        return nt_full(x->ndim, sizes, nt_scalar_float(a->value), x->dtype, NULL, out);
    }
    case PAD_REFLECT:
        st = nt_narrow(x, d, right ? size - 1 - count : 1, count, &slice);
        if (st == NT_OK) st = nt_flip(slice, 1, &(nt_dim){d}, out);
        break;
    case PAD_REPLICATE: {
        int64_t sizes[NT_MAX_DIMS];
        memcpy(sizes, x->sizes, (size_t)x->ndim * sizeof *sizes);
        sizes[d] = count;
        st = nt_narrow(x, d, right ? size - 1 : 0, 1, &slice);
        if (st == NT_OK) st = nt_expand(slice, x->ndim, sizes, out);
        break;
    }
    case PAD_CIRCULAR:
        return nt_narrow(x, d, right ? 0 : size - count, count, out);
    }
    nt_tensor_release(slice);
    return st;
}

/* x padded along d by (l, r): cropped first where a side is negative */
static nt_status pad_dim(nt_tensor *x, int d, int64_t l, int64_t r, const pad_args *a,
                         nt_tensor **out) {
    int64_t size;
    NT_TRY(padded_size(x, d, l, r, &size));
    nt_tensor *core = NULL, *parts[3] = {NULL, NULL, NULL};
    int64_t from = l < 0 ? -l : 0, keep = x->sizes[d] - from - (r < 0 ? -r : 0);
    nt_status st = nt_narrow(x, d, from, keep, &core);
    int n = 0;
    if (st == NT_OK && l > 0) st = border(core, d, l, false, a, &parts[n++]);
    if (st == NT_OK) parts[n++] = nt_tensor_retain(core);
    if (st == NT_OK && r > 0) st = border(core, d, r, true, a, &parts[n++]);
    if (st == NT_OK) st = n == 1 ? nt_clone(core, out) : nt_cat(n, parts, d, NULL, out);
    nt_tensor_release(core);
    for (int i = 0; i < 3; i++)
        nt_tensor_release(parts[i]);
    return st;
}

/* dst[...] = src[...] along views: the borders of one dim, read from the result itself */
static nt_status copy_part(nt_tensor *slab, int d, int64_t at, int64_t count, nt_tensor *src) {
    nt_tensor *dst = NULL;
    nt_status st = nt_narrow(slab, d, at, count, &dst);
    if (st == NT_OK) st = nt_copy_(dst, src);
    nt_tensor_release(dst);
    return st;
}

/* One border of dim d in the slab (the result with the dims not padded yet cut to their
 * interior): `count` entries at `at`, from the interior [l, l + size) */
static nt_status fill_border(nt_tensor *slab, int d, int64_t l, int64_t size, int64_t count,
                             bool right, pad_mode mode) {
    if (count == 0) return NT_OK;
    int64_t at = right ? l + size : 0;
    nt_tensor *part = NULL, *src = NULL;
    nt_status st = NT_OK;
    if (mode == PAD_REFLECT) {
        st = nt_narrow(slab, d, right ? l + size - 1 - count : l + 1, count, &part);
        if (st == NT_OK) st = nt_flip(part, 1, &(nt_dim){d}, &src);
    } else if (mode == PAD_REPLICATE) {
        st = nt_narrow(slab, d, right ? l + size - 1 : l, 1, &part);
        int64_t sizes[NT_MAX_DIMS];
        memcpy(sizes, slab->sizes, (size_t)slab->ndim * sizeof *sizes);
        sizes[d] = count;
        if (st == NT_OK) st = nt_expand(part, slab->ndim, sizes, &src);
    } else { /* circular: the far end */
        st = nt_narrow(slab, d, right ? l : l + size - count, count, &src);
    }
    if (st == NT_OK) st = copy_part(slab, d, at, count, src);
    nt_tensor_release(part);
    nt_tensor_release(src);
    return st;
}

/* The non-constant modes written once (nothing recorded): see the file's comment */
static nt_status pad_in_place(nt_tensor *t, const pad_args *a, nt_tensor **out) {
    int dims = a->n / 2;
    int64_t sizes[NT_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    for (int i = 0; i < dims; i++)
        sizes[t->ndim - 1 - i] += a->pad[2 * i] + a->pad[2 * i + 1];
    nt_tensor *r = NULL, *slab = NULL;
    NT_TRY(nt_empty(t->ndim, sizes, t->dtype, t->names, &r));
    nt_status st = NT_OK;
    /* the interior, then dims from the last: each one's slab spans the dims padded before it
     * in full and the others' interior, so corners come from borders already written */
    nt_tensor *inner = nt_tensor_retain(r);
    for (int i = 0; i < dims && st == NT_OK; i++) {
        int d = t->ndim - 1 - i;
        nt_tensor *next = NULL;
        st = nt_narrow(inner, d, a->pad[2 * i], t->sizes[d], &next);
        nt_tensor_release(inner);
        inner = next;
    }
    if (st == NT_OK) st = nt_copy_(inner, t);
    nt_tensor_release(inner);
    for (int i = 0; i < dims && st == NT_OK; i++) {
        int d = t->ndim - 1 - i;
        slab = nt_tensor_retain(r);
        for (int j = i + 1; j < dims && st == NT_OK; j++) {
            int e = t->ndim - 1 - j;
            nt_tensor *next = NULL;
            st = nt_narrow(slab, e, a->pad[2 * j], t->sizes[e], &next);
            nt_tensor_release(slab);
            slab = next;
        }
        int64_t l = a->pad[2 * i], rr = a->pad[2 * i + 1], size = t->sizes[d];
        if (st == NT_OK) st = fill_border(slab, d, l, size, l, false, a->mode);
        if (st == NT_OK) st = fill_border(slab, d, l, size, rr, true, a->mode);
        nt_tensor_release(slab);
    }
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}

nt_status nt_impl_pad(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    pad_args a;
    NT_TRY(pad_check(c, t, &a));
    if (a.n == 0) return nt_clone(t, &c->result[0]); /* a copy, as PyTorch's */
    if (a.mode != PAD_CONSTANT && !(nt_is_grad_enabled() && nt_requires_grad(t)))
        return pad_in_place(t, &a, &c->result[0]);
    nt_tensor *cur = nt_tensor_retain(t);
    for (int i = 0; i < a.n / 2; i++) {
        nt_tensor *next = NULL;
        nt_status st = pad_dim(cur, t->ndim - 1 - i, a.pad[2 * i], a.pad[2 * i + 1], &a, &next);
        nt_tensor_release(cur);
        if (st != NT_OK) return st;
        cur = next;
    }
    c->result[0] = cur;
    return NT_OK;
}

nt_status nt_pad(nt_tensor *t, int count, const int64_t *pad, const char *mode, double value,
                 nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_PAD);
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_ints(count, pad);
    c.args[2] = nt_arg_str(mode);
    c.args[3] = nt_arg_float(value);
    return nt_dispatch_result(&c, out);
}
