/*
 * reduce_shared.c — what the reduction files share (reduce.h): PyTorch's "not implemented"
 * error, the out= handling of an op's result, and the plan that splits a tensor's dims into kept
 * and reduced ones.
 */
#include "reduce.h"

#include "core/status.h"
#include "iter/iter.h"
#include "names/infer.h"
#include "names/names.h"
#include "ops/out.h"

/* ------------------------------------------------------------------ shared helpers */

nt_status nt_red_not_implemented(const char *kernel, nt_dtype dtype) {
    return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                   nt_dtype_torch_name(dtype));
}

void nt_red_out_shape(const nt_tensor *t, uint64_t mask, bool keepdim, int *ndim, int64_t *sizes) {
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (!(mask >> d & 1u))
            sizes[n++] = t->sizes[d];
        else if (keepdim)
            sizes[n++] = 1;
    }
    *ndim = n;
}

nt_status nt_red_prepare(nt_tensor *into, const nt_tensor *input, nt_dtype dtype, int ndim,
                         const int64_t *sizes, const nt_name *names, nt_tensor **result) {
    if (!into) return nt_tensor_alloc(dtype, ndim, sizes, names, result);
    NT_TRY(nt_out_resize(into, ndim, sizes));
    NT_TRY(nt_names_check_out(into->names, into->ndim, names, ndim));
    NT_TRY(nt_check_no_internal_overlap(into));
    if (into->dtype == dtype && !(input && nt_extents_overlap(into, input))) {
        *result = nt_tensor_retain(into);
        return NT_OK;
    }
    return nt_tensor_alloc(dtype, ndim, sizes, NULL, result);
}

/* c10's name of a dtype ("float", "long int"), as PyTorch's out= dtype errors print it. */
static const char *const cpp_names[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "bool",         [NT_UINT8] = "unsigned char",
    [NT_INT8] = "signed char",  [NT_INT16] = "short int",
    [NT_INT32] = "int",         [NT_INT64] = "long int",
    [NT_FLOAT16] = "c10::Half", [NT_BFLOAT16] = "c10::BFloat16",
    [NT_FLOAT32] = "float",     [NT_FLOAT64] = "double",
};

nt_status nt_red_check_out_dtype(const nt_tensor *out, nt_dtype want) {
    if (out->dtype == want) return NT_OK;
    return nt_fail(NT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                   cpp_names[want], cpp_names[out->dtype]);
}

nt_status nt_red_dims(const nt_tensor *t, int count, const nt_dim *dims, int64_t *out) {
    if (count < 0) return nt_fail(NT_ERR_VALUE, "a negative number of dims (%d)", count);
    if (count > 0 && !dims)
        return nt_fail(NT_ERR_VALUE, "%d dims given but the dims pointer is NULL", count);
    if (count > NT_MAX_DIMS) return nt_fail(NT_ERR_VALUE, "too many dims (%d)", count);
    for (int i = 0; i < count; i++) {
        if (nt_dim_is_name(dims[i]))
            NT_TRY(nt_tensor_dim(t, dims[i], &out[i]));
        else
            out[i] = dims[i];
    }
    return NT_OK;
}

nt_status nt_red_dim(const nt_tensor *t, nt_dim dim, int64_t *out) {
    return nt_tensor_dim(t, dim, out);
}

nt_status nt_red_results(nt_status st, nt_call *c, nt_tensor **a, nt_tensor **b) {
    if (st != NT_OK) return st;
    if (a)
        *a = c->result[0];
    else
        nt_tensor_release(c->result[0]);
    if (b)
        *b = c->result[1];
    else
        nt_tensor_release(c->result[1]);
    return NT_OK;
}

nt_status nt_red_finish(nt_status st, nt_tensor *into, nt_tensor *result, const nt_name *names,
                        nt_tensor **out) {
    if (st == NT_OK && into) {
        if (result != into) st = nt_copy_(into, result);
        if (st == NT_OK && names && !into->names) st = nt_tensor_set_names(into, names);
        if (st == NT_OK) nt_storage_bump_version(into->storage);
    }
    if (st == NT_OK && out) {
        *out = into ? nt_tensor_retain(into) : result;
        if (into) nt_tensor_release(result);
        return NT_OK;
    }
    nt_tensor_release(result);
    return st;
}

/* ------------------------------------------------------------------ the plan */

/* Sorts n dims (sizes s, strides a, b, c: b and c may be NULL) by |a| and coalesces. */
static int sort_coalesce(int n, int64_t *s, int64_t *a, int64_t *b, int64_t *c) {
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && nt_red_abs64(a[j]) < nt_red_abs64(a[j - 1]); j--) {
            int64_t t;
            t = s[j], s[j] = s[j - 1], s[j - 1] = t;
            t = a[j], a[j] = a[j - 1], a[j - 1] = t;
            if (b) t = b[j], b[j] = b[j - 1], b[j - 1] = t;
            if (c) t = c[j], c[j] = c[j - 1], c[j - 1] = t;
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && s[m - 1] * a[m - 1] == a[i] && (!b || s[m - 1] * b[m - 1] == b[i]) &&
            (!c || s[m - 1] * c[m - 1] == c[i])) {
            s[m - 1] *= s[i];
            continue;
        }
        s[m] = s[i], a[m] = a[i];
        if (b) b[m] = b[i];
        if (c) c[m] = c[i];
        m++;
    }
    return m;
}

/* The plan of reducing the trailing dims of a contiguous tensor into a contiguous output
 * (sum over 'C' of [N, C]): one kept and one reduced dim, as the general build would give
 * too when both hold more than one element, without its sorting. False for other cases. */
static bool plan_packed(nt_red_plan *p, const nt_tensor *t, uint64_t mask, const nt_tensor *out,
                        const nt_tensor *out2) {
    if (!t->is_contiguous || out2 || (out && !out->is_contiguous) || t->ndim >= 64 || t->numel == 0)
        return false;
    uint64_t all = ((uint64_t)1 << t->ndim) - 1;
    if (mask == 0 || mask == all || ((mask + (mask & -mask)) & all) != 0) return false;
    int64_t nout = 1, nred = 1;
    for (int d = 0; d < t->ndim; d++)
        *(mask >> d & 1u ? &nred : &nout) *= t->sizes[d];
    if (nout <= 1 || nred <= 1) return false;
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size;
    p->nk = p->nr = 1;
    p->nout = p->ks[0] = nout;
    p->nred = p->rs[0] = nred;
    p->kin[0] = nred * esize;
    /* out's kept dims lead it whether the reduced ones are gone, size one or (softmax,
     * scans) whole: the last one's stride steps from output to output */
    int last_kept = __builtin_ctzll(mask) - 1;
    p->kout[0] = out ? out->strides[last_kept] * (int64_t)nt_dtype_table[out->dtype].size : 0;
    p->kout2[0] = 0;
    p->rin[0] = esize;
    p->in = nt_tensor_bytes(t);
    p->out = out ? nt_tensor_bytes(out) : NULL;
    p->out2 = NULL;
    return true;
}

/* a * b for element counts: 0 once b is 0, else saturated at INT64_MAX, since an empty
 * tensor's sizes may multiply past int64 before its 0 is reached. */
static int64_t count_mul(int64_t a, int64_t b) {
    int64_t r;
    if (a == 0 || b == 0) return 0;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

void nt_red_plan_build(nt_red_plan *p, const nt_tensor *t, uint64_t mask, bool keepdim,
                       const nt_tensor *out, const nt_tensor *out2) {
    if (plan_packed(p, t, mask, out, out2)) return;
    int64_t esize = (int64_t)nt_dtype_table[t->dtype].size;
    int64_t o1 = out ? (int64_t)nt_dtype_table[out->dtype].size : 0;
    int64_t o2 = out2 ? (int64_t)nt_dtype_table[out2->dtype].size : 0;
    p->nk = p->nr = 0;
    p->nout = p->nred = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (mask >> d & 1u)
            p->nred = count_mul(p->nred, t->sizes[d]);
        else
            p->nout = count_mul(p->nout, t->sizes[d]);
    }
    p->in = nt_tensor_bytes(t);
    p->out = out ? nt_tensor_bytes(out) : NULL;
    p->out2 = out2 ? nt_tensor_bytes(out2) : NULL;
    /* No output: nothing runs, and the strides (an empty tensor may have any) are left
     * alone. With outputs but an empty input (nred == 0), only the outputs are addressed:
     * no reduced dim is walked and the input's byte strides, which may not fit, count as
     * 0. Otherwise every operand is non-empty and its byte strides fit. */
    if (p->nout == 0) return;
    bool empty = t->numel == 0;
    int j = 0; /* the output dim of input dim d */
    for (int d = 0; d < t->ndim; d++) {
        bool reduced = mask >> d & 1u;
        int64_t size = t->sizes[d];
        if (reduced) {
            if (size != 1 && !empty) {
                p->rs[p->nr] = size;
                p->rin[p->nr++] = t->strides[d] * esize;
            }
            if (keepdim) j++;
            continue;
        }
        if (size != 1) {
            p->ks[p->nk] = size;
            p->kin[p->nk] = empty ? 0 : t->strides[d] * esize;
            p->kout[p->nk] = out ? out->strides[j] * o1 : 0;
            p->kout2[p->nk++] = out2 ? out2->strides[j] * o2 : 0;
        }
        j++;
    }
    p->nk = sort_coalesce(p->nk, p->ks, p->kin, p->kout, p->kout2);
    p->nr = sort_coalesce(p->nr, p->rs, p->rin, NULL, NULL);
}

void nt_red_plan_offsets(const nt_red_plan *p, int64_t o, int64_t *in, int64_t *out,
                         int64_t *out2) {
    int64_t a = 0, b = 0, c = 0;
    for (int d = 0; d < p->nk; d++) {
        /* the outermost dim takes what is left, without a division (~40 cycles): a plan
         * with one kept dim, the usual case, divides nothing */
        int64_t i = o;
        if (d + 1 < p->nk) {
            i = o % p->ks[d];
            o /= p->ks[d];
        }
        a += i * p->kin[d];
        b += i * p->kout[d];
        c += i * p->kout2[d];
    }
    *in = a;
    *out = b;
    if (out2) *out2 = c;
}
