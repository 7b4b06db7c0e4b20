/*
 * dlpack.c — nt_to_dlpack and nt_from_dlpack: tensors shared with other libraries through
 * DLPack (<dlpack/dlpack.h>, version 0.6 as Debian packages it) without a copy.
 *
 * Export: a DLManagedTensor in one allocation with its shape and strides, holding a view of
 * the tensor (so its storage) until the consumer calls the deleter. Import: the DLTensor is
 * checked (device, dtype, rank, sizes, strides, alignment) and wrapped with nt_from_external,
 * whose release callback calls the producer's deleter. A DLPack tensor has no room for names.
 * DLPack 1.x's versioned struct (ntensor/dlpack_versioned.h) carries the same DLTensor, a
 * version and flags.
 */
#include <dlpack/dlpack.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include "ntensor/dlpack_versioned.h"

#include "core/status.h"
#include "core/tensor.h"

/* DLPack's (code, bits) of each dtype; bool has none in DLPack 0.6 (kDLBool came in 0.8). */
static const struct {
    uint8_t code, bits;
} dl_types[NT_DTYPE_COUNT] = {
    [NT_BOOL] = {0, 0},
    [NT_UINT8] = {kDLUInt, 8},
    [NT_INT8] = {kDLInt, 8},
    [NT_INT16] = {kDLInt, 16},
    [NT_INT32] = {kDLInt, 32},
    [NT_INT64] = {kDLInt, 64},
    [NT_FLOAT16] = {kDLFloat, 16},
    [NT_BFLOAT16] = {kDLBfloat, 16},
    [NT_FLOAT32] = {kDLFloat, 32},
    [NT_FLOAT64] = {kDLFloat, 64},
};

/* An exported tensor: the DLManagedTensor first (or the versioned struct, by its offset),
 * then what they point to. */
typedef struct exported {
    DLManagedTensor managed;
    nt_dlpack_versioned versioned;
    nt_tensor *view; /* keeps the storage alive */
    int64_t dims[];  /* shape, then strides */
} exported;

static void exported_deleter(DLManagedTensor *m) {
    exported *e = (exported *)m; /* managed is the first member */
    nt_tensor_release(e->view);
    free(e);
}

static void exported_versioned_deleter(nt_dlpack_versioned *v) {
    exported_deleter(&((exported *)((char *)v - offsetof(exported, versioned)))->managed);
}

/* t as an exported block whose managed.dl_tensor describes it */
static nt_status export_tensor(nt_tensor *t, exported **out) {
    if (!t) return nt_fail_null_tensor("to_dlpack", "tensor");
    if (!out) return nt_fail(NT_ERR_VALUE, "to_dlpack: out is NULL");
    if (nt_requires_grad(t))
        return nt_fail(NT_ERR_RUNTIME, "Can't export tensors that require gradient, use "
                                       "tensor.detach()");
    if (t->dtype == NT_BOOL) return nt_fail(NT_ERR_RUNTIME, "Bool type is not supported by dlpack");
    int ndim = t->ndim;
    exported *e = malloc(sizeof *e + 2 * (size_t)ndim * sizeof(int64_t));
    if (!e) return nt_fail_oom(sizeof *e);
    nt_status st = nt_tensor_view_of(t, ndim, t->sizes, t->strides, t->offset, NULL, &e->view);
    if (st != NT_OK) {
        free(e);
        return st;
    }
    for (int i = 0; i < ndim; i++) {
        e->dims[i] = t->sizes[i];
        e->dims[ndim + i] = t->strides[i];
    }
    e->managed = (DLManagedTensor){
        .dl_tensor = {.data = nt_tensor_data(t),
                      .device = {.device_type = kDLCPU, .device_id = 0},
                      .ndim = ndim,
                      .dtype = {.code = dl_types[t->dtype].code,
                                .bits = dl_types[t->dtype].bits,
                                .lanes = 1},
                      .shape = e->dims,
                      .strides = e->dims + ndim,
                      .byte_offset = 0},
        .manager_ctx = e,
        .deleter = exported_deleter,
    };
    *out = e;
    return NT_OK;
}

nt_status nt_to_dlpack(nt_tensor *t, DLManagedTensor **out) {
    exported *e = NULL;
    NT_TRY(export_tensor(t, &e));
    *out = &e->managed;
    return NT_OK;
}

nt_status nt_to_dlpack_versioned(nt_tensor *t, bool copied, nt_dlpack_versioned **out) {
    exported *e = NULL;
    NT_TRY(export_tensor(t, &e));
    e->versioned = (nt_dlpack_versioned){
        .version = {.major = 1, .minor = 0},
        .manager_ctx = e,
        .deleter = exported_versioned_deleter,
        .flags = copied ? NT_DLPACK_FLAG_IS_COPIED : 0,
        .dl_tensor = e->managed.dl_tensor,
    };
    *out = &e->versioned;
    return NT_OK;
}

/* The release callbacks of an imported tensor's storage. */
static void call_deleter(void *ctx, void *data) {
    DLManagedTensor *m = ctx;
    if (m->deleter) m->deleter(m);
}

static void call_versioned_deleter(void *ctx, void *data) {
    nt_dlpack_versioned *m = ctx;
    if (m->deleter) m->deleter(m);
}

static const char *device_name(int type) {
    static const char *const names[] = {
        [kDLCPU] = "kDLCPU",
        [kDLCUDA] = "kDLCUDA",
        [kDLCUDAHost] = "kDLCUDAHost",
        [kDLOpenCL] = "kDLOpenCL",
        [kDLVulkan] = "kDLVulkan",
        [kDLMetal] = "kDLMetal",
        [kDLVPI] = "kDLVPI",
        [kDLROCM] = "kDLROCM",
        [kDLROCMHost] = "kDLROCMHost",
        [kDLExtDev] = "kDLExtDev",
        [kDLCUDAManaged] = "kDLCUDAManaged",
    };
    if (type >= 0 && type < (int)(sizeof names / sizeof names[0]) && names[type])
        return names[type];
    return "an unknown device";
}

/* The tensor viewing dl's memory, whose storage calls release(ctx) when it dies. */
static nt_status import_tensor(const DLTensor *dl, void (*release)(void *, void *), void *ctx,
                               nt_tensor **out) {
    if (dl->device.device_type != kDLCPU)
        return nt_fail(NT_ERR_RUNTIME,
                       "from_dlpack: the tensor is on %s (device type %d, id %d); ntensor "
                       "imports CPU memory only",
                       device_name((int)dl->device.device_type), (int)dl->device.device_type,
                       dl->device.device_id);
    int dtype = -1;
    for (int d = 0; d < NT_DTYPE_COUNT; d++)
        if (dl_types[d].bits && dl_types[d].code == dl->dtype.code &&
            dl_types[d].bits == dl->dtype.bits)
            dtype = d;
    if (dtype < 0 || dl->dtype.lanes != 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "from_dlpack: unsupported dtype (code %u, %u bits, %u lanes); ntensor "
                       "imports int8/16/32/64, uint8, float16/32/64 and bfloat16 with 1 lane",
                       dl->dtype.code, dl->dtype.bits, dl->dtype.lanes);
    if (dl->ndim < 0 || dl->ndim > NT_MAX_DIMS)
        return nt_fail(NT_ERR_RUNTIME, "from_dlpack: %d dims (ntensor has at most %d)", dl->ndim,
                       NT_MAX_DIMS);
    if (dl->ndim > 0 && !dl->shape)
        return nt_fail(NT_ERR_RUNTIME, "from_dlpack: the shape is NULL");
    int64_t contiguous[NT_MAX_DIMS];
    const int64_t *strides = dl->strides;
    int64_t numel;
    NT_TRY(nt_shape_check(dl->ndim, dl->shape, &numel));
    if (!strides) { /* NULL: compact row-major, as DLPack says */
        nt_contiguous_strides(dl->ndim, dl->shape, contiguous);
        strides = contiguous;
    }
    int64_t span, nbytes;
    NT_TRY(nt_view_extent("from_dlpack", dl->ndim, dl->shape, strides, &span));
    if (__builtin_mul_overflow(span, (int64_t)nt_dtype_size((nt_dtype)dtype), &nbytes))
        return nt_fail(NT_ERR_VALUE, "from_dlpack: the view's extent overflows int64");
    char *data = (char *)dl->data + dl->byte_offset;
    if (numel > 0 && !dl->data) return nt_fail(NT_ERR_RUNTIME, "from_dlpack: the data is NULL");
    return nt_from_external(numel > 0 ? data : NULL, (size_t)nbytes, (nt_dtype)dtype, dl->ndim,
                            dl->shape, strides, release, ctx, out);
}

nt_status nt_from_dlpack(DLManagedTensor *managed, nt_tensor **out) {
    if (!managed) return nt_fail(NT_ERR_VALUE, "from_dlpack: the DLManagedTensor is NULL");
    if (!out) return nt_fail(NT_ERR_VALUE, "from_dlpack: out is NULL");
    return import_tensor(&managed->dl_tensor, call_deleter, managed, out);
}

nt_status nt_from_dlpack_versioned(nt_dlpack_versioned *managed, nt_tensor **out) {
    if (!managed) return nt_fail(NT_ERR_VALUE, "from_dlpack: the versioned tensor is NULL");
    if (!out) return nt_fail(NT_ERR_VALUE, "from_dlpack: out is NULL");
    if (managed->version.major != 1)
        return nt_fail(NT_ERR_RUNTIME,
                       "from_dlpack: DLPack version %u.%u is not supported (ntensor reads 1.x)",
                       (unsigned)managed->version.major, (unsigned)managed->version.minor);
    if (managed->flags & NT_DLPACK_FLAG_READ_ONLY)
        return nt_fail(NT_ERR_RUNTIME, "from_dlpack: the tensor is read-only, and ntensor "
                                       "tensors are writable; copy it first");
    return import_tensor(&managed->dl_tensor, call_versioned_deleter, managed, out);
}
