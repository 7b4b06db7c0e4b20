/**
 * @file dlpack_versioned.h
 * @brief DLPack 1.x's versioned managed tensor, for nt_to_dlpack_versioned and
 * nt_from_dlpack_versioned (ntensor/io.h).
 *
 * Debian's libdlpack-dev ships DLPack 0.6, which predates DLManagedTensorVersioned; this is
 * its DLPack 1.0 layout (whose DLTensor is 0.6's), under ntensor's names so that it never
 * clashes with a newer <dlpack/dlpack.h>. Not included by ntensor.h: it needs
 * <dlpack/dlpack.h>.
 */
#ifndef NTENSOR_DLPACK_VERSIONED_H
#define NTENSOR_DLPACK_VERSIONED_H

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** DLPack 1.x's DLPackVersion. */
typedef struct nt_dlpack_version {
    uint32_t major; /**< 1 for DLPack 1.x */
    uint32_t minor; /**< the minor version */
} nt_dlpack_version;

/** DLPack 1.x's DLManagedTensorVersioned: what a "dltensor_versioned" capsule holds. */
typedef struct nt_dlpack_versioned {
    nt_dlpack_version version; /**< the producer's DLPack version */
    void *manager_ctx;         /**< the producer's context */
    /** Called once by the consumer when it no longer needs the memory (may be NULL). */
    void (*deleter)(struct nt_dlpack_versioned *self);
    uint64_t flags;     /**< NT_DLPACK_FLAG_READ_ONLY, NT_DLPACK_FLAG_IS_COPIED */
    DLTensor dl_tensor; /**< the tensor */
} nt_dlpack_versioned;

/** DLPack 1.x flag: the consumer must not write the memory. */
#define NT_DLPACK_FLAG_READ_ONLY ((uint64_t)1)
/** DLPack 1.x flag: the producer copied the data for this export. */
#define NT_DLPACK_FLAG_IS_COPIED ((uint64_t)2)

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_DLPACK_VERSIONED_H */
