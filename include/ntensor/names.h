/**
 * @file
 * ntensor/names.h — the named-dimension API: rename, refine_names, align_to/as, flatten, unflatten.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_NAMES_H
#define NTENSOR_NAMES_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ names API */

/** Whether a tensor named `have` (n names; NULL: unnamed) may take a result named `want` (m
 * names), as an out= tensor must: an unnamed one may, a named one must carry exactly those
 * names (PyTorch's "Name mismatch: specified out tensor with names ..." otherwise). */
NT_API nt_status nt_names_check_result(const nt_name *have, int n, const nt_name *want, int m);
/** Whether `count` names fit a tensor of `ndim` dims, with PyTorch's message ("Number of
 * names (1) and number of dimensions in tensor (2) do not match. Attempted to create a
 * tensor with names ['A']"), and are valid and distinct. */
NT_API nt_status nt_names_check_for(int ndim, int count, const nt_name *names);

/** A view with the given names (NULL drops them all). */
NT_API nt_status nt_rename(nt_tensor *t, const nt_name *names, nt_tensor **out);
/** Same with an explicit count, which must equal ndim ("Number of names (1) and number of
 * dimensions in tensor (2) do not match. ..."); one None name drops all (rename(None)). */
NT_API nt_status nt_rename_n(nt_tensor *t, int count, const nt_name *names, nt_tensor **out);
/** A view with dims named from[i] renamed to to[i] (to[i] may be none). */
NT_API nt_status nt_rename_map(nt_tensor *t, int count, const nt_name *from, const nt_name *to,
                               nt_tensor **out);
/** The same in place (rename_(**map)). */
NT_API nt_status nt_rename_map_(nt_tensor *t, int count, const nt_name *from, const nt_name *to);
/** Sets the names in place (NULL drops them). */
NT_API nt_status nt_set_names_(nt_tensor *t, const nt_name *names);
/** Same with an explicit count, checked like nt_rename_n. */
NT_API nt_status nt_set_names_n_(nt_tensor *t, int count, const nt_name *names);
/** refine_names / align_to take `count` names; `ellipsis` is the index of the one Ellipsis
 * among those `count` entries (its entry's value is ignored), or -1 for none. So
 * align_to('F', 'E', ...) is count 3, names {F, E, anything}, ellipsis 2. refine_names expands
 * it as PyTorch's Python code does (a slice of t's names), align_to to the dims the order
 * does not mention. */
NT_API nt_status nt_refine_names(nt_tensor *t, int count, const nt_name *names, int ellipsis,
                                 nt_tensor **out);
/** align_to: a view of t with its dims permuted to the order of `names` (see above), a size-one dim
 * added for each name t lacks; t's dims must all be named unless an Ellipsis covers them. */
NT_API nt_status nt_align_to(nt_tensor *t, int count, const nt_name *names, int ellipsis,
                             nt_tensor **out);
/** align_as: nt_align_to with other's names. */
NT_API nt_status nt_align_as(nt_tensor *t, const nt_tensor *other, nt_tensor **out);
/** Flattens the consecutive dims [start, end] (indices or names) into one named `out_name`
 * (may be none): a view when strides allow, else a copy. start == end only renames that dim. */
NT_API nt_status nt_flatten(nt_tensor *t, nt_dim start, nt_dim end, nt_name out_name,
                            nt_tensor **out);
/** The positional flatten (Tensor.flatten(start, end)): the merged dim is unnamed, the
 * others keep their names; start == end returns t itself (a new reference). */
NT_API nt_status nt_flatten_dims(nt_tensor *t, nt_dim start, nt_dim end, nt_tensor **out);
/** Flattens the named, consecutive dims `dims` into one dim named `out_name`. */
NT_API nt_status nt_flatten_names(nt_tensor *t, int count, const nt_name *dims, nt_name out_name,
                                  nt_tensor **out);
/** Splits `dim` into `count` dims of the given sizes (one may be -1) and names (NULL:
 * unnamed, which a named `t` refuses, as PyTorch does; pass none entries instead). */
NT_API nt_status nt_unflatten(nt_tensor *t, nt_dim dim, int count, const int64_t *sizes,
                              const nt_name *names, nt_tensor **out);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_NAMES_H */
