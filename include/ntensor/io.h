/**
 * @file
 * ntensor/io.h — exchange and persistence: tensors saved to and loaded from safetensors
 * files (with their names), and shared without a copy through DLPack.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 * docs/io.md describes the file format, the checks made on a file that is read, and the
 * DLPack rules.
 */
#ifndef NTENSOR_IO_H
#define NTENSOR_IO_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ safetensors */

/** Saves `n` tensors to `path` in the safetensors format: an 8-byte little-endian header
 * length, a JSON header (per tensor its dtype "F32", "BF16", ..., its shape and the byte
 * range of its data; names of named tensors under "__metadata__"), then each tensor's values,
 * contiguous and little-endian, in the order given. Any safetensors reader loads the values;
 * ntensor's loader also restores the names.
 *
 * `keys` are the tensors' keys (distinct, non-empty, not "__metadata__"). `keys` may be NULL
 * when n == 1: the file then holds one tensor without a key, which nt_load reports with
 * *keys == NULL. The file is replaced if it exists. */
NT_API nt_status nt_save(const char *path, int64_t n, const char *const *keys,
                         nt_tensor *const *tensors);

/** Loads the tensors of the safetensors file at `path`, in the order of their data in the
 * file, with the names saved by nt_save. The file is treated as hostile: its header length,
 * JSON, dtypes, shapes, byte ranges (in the file, matching each tensor's size, covering the
 * data without gaps or overlaps), keys and names are checked before use, and a file that
 * fails a check is refused with NT_ERR_VALUE and a message saying which check.
 *
 * On success *n is the number of tensors, *tensors an array of n new tensors (contiguous,
 * each with storage of its own) and *keys an array of n keys, or NULL for a file of one
 * tensor saved without a key. Release all of it with nt_load_free.
 * @param path the file to read
 * @param[out] n the number of tensors
 * @param[out] keys a new array of n new strings, or NULL (see above)
 * @param[out] tensors a new array of n new references
 * @return NT_OK; NT_ERR_VALUE when the file fails a check (its message says which),
 *         another status when it cannot be read or memory runs out; on failure nothing is
 *         returned */
NT_API nt_status nt_load(const char *path, int64_t *n, char ***keys, nt_tensor ***tensors);

/** The same for a safetensors file already in memory (`size` bytes at `data`). */
NT_API nt_status nt_load_buffer(const void *data, size_t size, int64_t *n, char ***keys,
                                nt_tensor ***tensors);

/** Releases what nt_load or nt_load_buffer gave: each tensor, the keys and both arrays (any
 * of them may be NULL). */
NT_API void nt_load_free(int64_t n, char **keys, nt_tensor **tensors);

/* ------------------------------------------------------------------ DLPack */

/** DLPack's structs (<dlpack/dlpack.h>, Debian's libdlpack-dev, DLPack 0.6); include that
 * header to read them. */
struct DLManagedTensor;

/** DLPack 1.x's versioned managed tensor (DLManagedTensorVersioned), which Debian's header
 * (0.6) does not have: defined in ntensor/dlpack_versioned.h (include it to read one). */
struct nt_dlpack_versioned;

/** Exports `t` as a DLPack tensor sharing its memory: on the CPU, with t's dtype, sizes,
 * strides (in elements) and data pointer (byte_offset 0). The DLManagedTensor keeps t's
 * memory alive until its deleter is called (by whoever consumed it). Names cannot ride in a
 * DLPack tensor and are dropped. Refused: bool tensors (DLPack 0.6 has no bool type), and
 * tensors that require grad ("Can't export tensors that require gradient, use
 * tensor.detach()"). */
NT_API nt_status nt_to_dlpack(nt_tensor *t, struct DLManagedTensor **out);

/** Imports a DLPack tensor without a copy: the new tensor views its memory. On success the
 * tensor owns `managed` and calls its deleter when its memory's last view goes away; on
 * failure `managed` is untouched and still the caller's. Refused with a clear message: a
 * device other than the CPU, a dtype ntensor does not have (or lanes other than 1), more
 * than 64 dims, negative sizes or strides, data not aligned to its elements, and sizes or
 * strides whose extent overflows. NULL strides mean contiguous. */
NT_API nt_status nt_from_dlpack(struct DLManagedTensor *managed, nt_tensor **out);

/** nt_to_dlpack as DLPack 1.x's versioned struct (version 1.0): the same tensor; `copied`
 * sets the is-copied flag (the caller exported a copy it made). Bool tensors are
 * refused as in nt_to_dlpack. */
NT_API nt_status nt_to_dlpack_versioned(nt_tensor *t, bool copied,
                                        struct nt_dlpack_versioned **out);

/** nt_from_dlpack of DLPack 1.x's versioned struct, with the same ownership rules. Refused
 * besides: a major version other than 1, and the read-only flag (an ntensor tensor is
 * writable: copy the memory first). */
NT_API nt_status nt_from_dlpack_versioned(struct nt_dlpack_versioned *managed, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_IO_H */
