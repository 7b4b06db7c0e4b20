/*
 * copy.c — moving values between tensors and dtypes: copy_, contiguous, clone, to(dtype)
 * and single-element reads (layer L4; fill_, zero_ and item are in fill.c).
 *
 * Each op validates, allocates its result if it has one, builds an iterator and runs a
 * loop from kernels/convert.c. Names are not checked here (copy_'s name rule belongs to
 * the names layer); results that are new tensors keep the input's names.
 */
#include <inttypes.h>

#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "iter/iter.h"
#include "kernels/convert.h"

static nt_status null_out(const char *fn) {
    return nt_fail(NT_ERR_VALUE, "%s(): the output pointer is NULL", fn);
}

/* Converts src into dst, whose shapes the iterator checks (src broadcasts to dst). */
static nt_status convert_into(nt_tensor *dst, const nt_tensor *src, bool check_overlap) {
    nt_tensor *ops[2] = {dst, (nt_tensor *)src};
    nt_iter_config cfg = nt_iter_defaults();
    cfg.check_mem_overlap = check_overlap;
    nt_iter it;
    NT_TRY(nt_iter_build(&it, 2, ops, &cfg));
    nt_iter_run(&it, nt_convert_loop(dst->dtype, src->dtype), NULL);
    return NT_OK;
}

/* A fresh tensor like t (names kept) holding t's values as `dtype`: contiguous, or with
 * `keep_layout` laid out like t when t is dense (PyTorch's memory_format=preserve, which
 * clone() and to() use: the clone of a transpose is a transpose). */
static nt_status converted_copy(const nt_tensor *t, nt_dtype dtype, bool keep_layout,
                                nt_tensor **out) {
    nt_tensor *r = NULL;
    if (keep_layout)
        NT_TRY(nt_empty_like(t, (int)dtype, &r));
    else
        NT_TRY(nt_tensor_alloc(dtype, t->ndim, t->sizes, t->names, &r));
    nt_status st = convert_into(r, t, false);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}

/* True when the layout reads and writes each element at the same address with the same
 * element size: an in-place conversion that cannot corrupt itself. */
static bool same_elements(const nt_iter *it) {
    if (it->data[0] != it->data[1]) return false;
    if (nt_dtype_table[it->dtypes[0]].size != nt_dtype_table[it->dtypes[1]].size) return false;
    for (int d = 0; d < it->ndim; d++)
        if (it->strides[0][d] != it->strides[1][d]) return false;
    return true;
}

nt_status nt_copy_(nt_tensor *dst, const nt_tensor *src) {
    if (!dst) return nt_fail_null_tensor("copy_", "self");
    if (!src) return nt_fail_null_tensor("copy_", "src");
    nt_status st = NT_OK;
    nt_tensor *tmp = NULL;
    if (dst != src) {
        /* PyTorch's checks and errors first (overlap it can detect, then shapes). */
        nt_tensor *ops[2] = {dst, (nt_tensor *)src};
        nt_iter it;
        NT_CHECK(st, nt_iter_build(&it, 2, ops, NULL));
        /* Overlap it lets pass (non-dense views) is made safe by reading a private copy. */
        if (nt_extents_overlap(dst, src) && !same_elements(&it)) {
            NT_CHECK(st, converted_copy(src, src->dtype, false, &tmp));
            ops[1] = tmp;
            nt_iter_config cfg = nt_iter_defaults();
            cfg.check_mem_overlap = false;
            NT_CHECK(st, nt_iter_build(&it, 2, ops, &cfg));
        }
        nt_iter_run(&it, nt_convert_loop(dst->dtype, src->dtype), NULL);
    }
    nt_storage_bump_version(dst->storage);
fail:
    nt_tensor_release(tmp);
    return st;
}

nt_status nt_contiguous(nt_tensor *t, nt_tensor **out) {
    if (!t) return nt_fail_null_tensor("contiguous", "self");
    if (!out) return null_out("contiguous");
    if (t->is_contiguous) {
        *out = nt_tensor_retain(t);
        return NT_OK;
    }
    return converted_copy(t, t->dtype, false, out);
}

nt_status nt_clone(const nt_tensor *t, nt_tensor **out) {
    if (!t) return nt_fail_null_tensor("clone", "self");
    if (!out) return null_out("clone");
    return converted_copy(t, t->dtype, true, out);
}

/* to(dtype) (the public function and the conversion methods are in to_dtype.c) */
nt_status nt_impl_to_dtype(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    nt_dtype dtype = c->args[1].v.dtype;
    if (!t) return nt_fail_null_tensor("to", "self");
    if (!nt_dtype_valid((int)dtype)) return nt_fail(NT_ERR_TYPE, "invalid dtype %d", (int)dtype);
    if (t->dtype == dtype) {
        c->result[0] = nt_tensor_retain(t);
        return NT_OK;
    }
    return converted_copy(t, dtype, true, &c->result[0]);
}

nt_status nt_get_double(const nt_tensor *t, const int64_t *index, double *out) {
    if (!t) return nt_fail_null_tensor("get_double", "self");
    if (!out) return null_out("get_double");
    if (!index && t->ndim > 0) return nt_fail(NT_ERR_VALUE, "get_double(): the index is NULL");
    int64_t offset = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (index[d] < 0 || index[d] >= t->sizes[d])
            return nt_fail(NT_ERR_INDEX,
                           "index %" PRId64 " is out of bounds for dimension %d with size %" PRId64,
                           index[d], d, t->sizes[d]);
        offset += index[d] * t->strides[d];
    }
    const char *p = nt_tensor_bytes(t) + offset * (int64_t)nt_dtype_table[t->dtype].size;
    *out = nt_load_double(p, t->dtype);
    return NT_OK;
}
