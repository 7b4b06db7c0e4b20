/*
 * embedding.c — embedding (rows of a 2-D table gathered by integer indices of any shape) and
 * embedding_dense_backward (the table's gradient: grad_output's rows summed by index), layer
 * L4; kernels in kernels/embedding_kernels.c.
 *
 * Names (PyTorch refuses named tensors here): embedding's result has the indices' names, then
 * the weight's last name (the feature dim); the backward's result (num_weights, d) has None
 * and grad_output's last name. Indices out of range raise PyTorch's IndexError, "index out of
 * range in self", checked before anything is written (the backward too, where PyTorch reads
 * out of bounds).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "kernels/embedding_kernels.h"
#include "ops/nn.h"

/* PyTorch's legacy type names, which checkScalarTypes prints ("torch.FloatTensor"). */
static const char *const legacy_name[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "BoolTensor",      [NT_UINT8] = "ByteTensor",        [NT_INT8] = "CharTensor",
    [NT_INT16] = "ShortTensor",    [NT_INT32] = "IntTensor",         [NT_INT64] = "LongTensor",
    [NT_FLOAT16] = "HalfTensor",   [NT_BFLOAT16] = "BFloat16Tensor", [NT_FLOAT32] = "FloatTensor",
    [NT_FLOAT64] = "DoubleTensor",
};

static nt_status check_indices(const nt_tensor *indices, int pos, const char *fn) {
    if (indices->dtype != NT_INT64 && indices->dtype != NT_INT32)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected tensor for argument #%d 'indices' to have one of the following "
                       "scalar types: Long, Int; but got torch.%s instead (while checking "
                       "arguments for %s)",
                       pos, legacy_name[indices->dtype], fn);
    return NT_OK;
}

/* Every index in [0, rows): PyTorch's index_select error otherwise. */
static nt_status check_range(const nt_tensor *idx, int64_t rows) {
    const void *p = nt_tensor_bytes(idx);
    bool idx64 = idx->dtype == NT_INT64;
    for (int64_t i = 0; i < idx->numel; i++) {
        int64_t k = nt_embedding_index(p, idx64, i);
        if (k < 0 || k >= rows) return nt_fail(NT_ERR_INDEX, "index out of range in self");
    }
    return NT_OK;
}

/* The result's names into buf (NULL when neither input is named). */
static nt_status result_names(const nt_tensor *indices, nt_name last, nt_name *buf,
                              const nt_name **names) {
    *names = NULL;
    if (!indices->names && last == NT_NAME_NONE) return NT_OK;
    for (int i = 0; i < indices->ndim; i++)
        buf[i] = nt_tensor_name_at(indices, i);
    buf[indices->ndim] = last;
    NT_TRY(nt_names_check_unique(buf, indices->ndim + 1));
    *names = buf;
    return NT_OK;
}

static nt_status embedding_shape(const nt_tensor *weight, const nt_tensor *indices, nt_shape *s) {
    if (weight->ndim != 2) return nt_fail(NT_ERR_RUNTIME, "'weight' must be 2-D");
    NT_TRY(check_indices(indices, 1, "embedding"));
    if (indices->ndim + 1 > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "embedding(): indices have too many dims");
    nt_shape_set(s, indices->ndim, indices->sizes);
    s->sizes[s->ndim++] = weight->sizes[1];
    return NT_OK;
}

typedef struct gather_job {
    char *out;
    const char *table;
    size_t row_bytes;
    const void *idx;
    bool idx64;
} gather_job;

static void gather_task(void *ctx, int64_t b, int64_t e) {
    const gather_job *j = ctx;
    nt_embedding_gather(j->out, j->table, j->row_bytes, j->idx, j->idx64, b, e);
}

static nt_status embedding(nt_tensor *weight, nt_tensor *indices, nt_tensor **result) {
    if (!weight) return nt_fail_null_tensor("embedding", "weight");
    if (!indices) return nt_fail_null_tensor("embedding", "indices");
    nt_shape s;
    NT_TRY(embedding_shape(weight, indices, &s));
    nt_name buf[NT_MAX_DIMS];
    const nt_name *names;
    NT_TRY(result_names(indices, nt_tensor_name_at(weight, 1), buf, &names));
    NT_TRY(check_range(indices, weight->sizes[0]));
    nt_tensor *w = NULL, *idx = NULL, *out = NULL;
    nt_status st;
    NT_CHECK(st, nt_contiguous(weight, &w));
    NT_CHECK(st, nt_contiguous(indices, &idx));
    NT_CHECK(st, nt_tensor_alloc(weight->dtype, s.ndim, s.sizes, names, &out));
    gather_job j = {.out = nt_tensor_bytes(out),
                    .table = nt_tensor_bytes(w),
                    .row_bytes = (size_t)weight->sizes[1] * nt_dtype_table[weight->dtype].size,
                    .idx = nt_tensor_bytes(idx),
                    .idx64 = idx->dtype == NT_INT64};
    if (j.row_bytes > 0)
        nt_parallel_for(0, idx->numel, NT_GRAIN_SIZE / (int64_t)(j.row_bytes / 4 + 1) + 1,
                        gather_task, &j);
    *result = out;
    out = NULL;
fail:
    nt_tensor_release(w);
    nt_tensor_release(idx);
    nt_tensor_release(out);
    return st;
}

/* ------------------------------------------------------------------ backward */

static nt_status backward_shape(const nt_tensor *grad, const nt_tensor *indices,
                                int64_t num_weights, nt_shape *s) {
    NT_TRY(check_indices(indices, 2, "embedding_backward"));
    int64_t d = grad->ndim ? grad->sizes[grad->ndim - 1] : 1;
    if (grad->numel != indices->numel * d)
        return nt_fail(NT_ERR_RUNTIME,
                       "shape '[%" PRId64 ", %" PRId64 "]' is invalid for input of size %" PRId64,
                       indices->numel, d, grad->numel);
    if (num_weights < 0)
        return nt_fail(NT_ERR_RUNTIME,
                       "Trying to create tensor with negative dimension %" PRId64 ": [%" PRId64
                       ", %" PRId64 "]",
                       num_weights, num_weights, d);
    int64_t sizes[2] = {num_weights, d};
    nt_shape_set(s, 2, sizes);
    return NT_OK;
}

static nt_status embedding_dense_backward(nt_tensor *grad, nt_tensor *indices, int64_t num_weights,
                                          int64_t padding_idx, bool scale_grad_by_freq,
                                          nt_tensor **result) {
    if (!grad) return nt_fail_null_tensor("embedding_dense_backward", "grad_output");
    if (!indices) return nt_fail_null_tensor("embedding_dense_backward", "indices");
    nt_shape s;
    NT_TRY(backward_shape(grad, indices, num_weights, &s));
    NT_TRY(check_range(indices, num_weights));
    nt_name names[2] = {NT_NAME_NONE,
                        grad->ndim ? nt_tensor_name_at(grad, grad->ndim - 1) : NT_NAME_NONE};
    nt_dtype dtype = grad->dtype,
             compute = dtype == NT_FLOAT32 || dtype == NT_BFLOAT16 || dtype == NT_FLOAT16
                           ? NT_FLOAT32
                           : NT_FLOAT64;
    nt_tensor *g = NULL, *idx = NULL, *sum = NULL, *out = NULL;
    int64_t *count = NULL;
    nt_status st;
    if (dtype != compute) {
        nt_tensor *c;
        NT_CHECK(st, nt_to_dtype(grad, compute, &c));
        st = nt_contiguous(c, &g);
        nt_tensor_release(c);
        if (st != NT_OK) goto fail;
    } else {
        NT_CHECK(st, nt_contiguous(grad, &g));
    }
    NT_CHECK(st, nt_contiguous(indices, &idx));
    NT_CHECK(st, nt_tensor_alloc(compute, 2, s.sizes, names[1] ? names : NULL, &sum));
    NT_CHECK(st, nt_zero_(sum));
    bool idx64 = idx->dtype == NT_INT64;
    if (scale_grad_by_freq && num_weights > 0) {
        count = calloc((size_t)num_weights, sizeof *count);
        if (!count) {
            st = nt_fail_oom((size_t)num_weights * sizeof *count);
            goto fail;
        }
        for (int64_t i = 0; i < idx->numel; i++)
            count[nt_embedding_index(nt_tensor_bytes(idx), idx64, i)]++;
    }
    nt_embedding_backward_rows(nt_tensor_bytes(sum), nt_tensor_bytes(g), nt_tensor_bytes(idx),
                               idx64, idx->numel, s.sizes[1], padding_idx, count,
                               compute == NT_FLOAT64);
    if (dtype != compute) {
        NT_CHECK(st, nt_to_dtype(sum, dtype, &out));
    } else {
        out = sum;
        sum = NULL;
    }
    *result = out;
    st = NT_OK;
fail:
    free(count);
    nt_tensor_release(g);
    nt_tensor_release(idx);
    nt_tensor_release(sum);
    return st;
}

/* ------------------------------------------------------------------ the rows' functions */

static int64_t int_arg(const nt_call *c, int i, int64_t def) {
    return c->args[i].kind == NT_ARG_INT ? c->args[i].v.i : def;
}

/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): the last three only
 * matter to the backward */
nt_status nt_impl_embedding(nt_call *c) {
    return embedding(nt_call_tensor(c, 0), nt_call_tensor(c, 1), &c->result[0]);
}

/* embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
 * scale_grad_by_freq) */
nt_status nt_impl_embedding_dense_backward(nt_call *c) {
    bool scale = c->args[4].kind == NT_ARG_BOOL && c->args[4].v.b;
    return embedding_dense_backward(nt_call_tensor(c, 0), nt_call_tensor(c, 1), int_arg(c, 2, 0),
                                    int_arg(c, 3, -1), scale, &c->result[0]);
}

nt_status nt_shape_embedding(const nt_call *c, nt_shape *s) {
    return embedding_shape(nt_call_tensor(c, 0), nt_call_tensor(c, 1), s);
}

nt_status nt_shape_embedding_dense_backward(const nt_call *c, nt_shape *s) {
    return backward_shape(nt_call_tensor(c, 0), nt_call_tensor(c, 1), int_arg(c, 2, 0), s);
}

/* ------------------------------------------------------------------ public API */

nt_status nt_embedding(nt_tensor *weight, nt_tensor *indices, nt_tensor **out) {
    if (!out) return nt_fail(NT_ERR_VALUE, "embedding(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_EMBEDDING);
    c.args[0] = nt_arg_tensor(weight);
    c.args[1] = nt_arg_tensor(indices);
    c.args[2] = nt_arg_int(-1);
    c.args[3] = nt_arg_bool(false);
    c.args[4] = nt_arg_bool(false);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}

nt_status nt_embedding_dense_backward(nt_tensor *grad_output, nt_tensor *indices,
                                      int64_t num_weights, int64_t padding_idx,
                                      bool scale_grad_by_freq, nt_tensor **out) {
    if (!out)
        return nt_fail(NT_ERR_VALUE, "embedding_dense_backward(): the output pointer is NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_EMBEDDING_DENSE_BACKWARD);
    c.args[0] = nt_arg_tensor(grad_output);
    c.args[1] = nt_arg_tensor(indices);
    c.args[2] = nt_arg_int(num_weights);
    c.args[3] = nt_arg_int(padding_idx);
    c.args[4] = nt_arg_bool(scale_grad_by_freq);
    nt_status st = nt_dispatch(&c);
    if (st == NT_OK) *out = c.result[0];
    return st;
}
