/**
 * @file
 * ntensor/print.h — printing: PyTorch's repr and print options.
 *
 * Part of the public C API; include <ntensor.h> for all of it (its conventions hold here).
 */
#ifndef NTENSOR_PRINT_H
#define NTENSOR_PRINT_H

#include "ntensor/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ printing */

/** PyTorch's repr of `t` (e.g. "tensor([1., 2.], names=('N',))"), as print(t) shows it.
 * @param t the tensor (borrowed)
 * @param[out] out a new NUL-terminated string, which the caller frees with nt_free() */
NT_API nt_status nt_format(const nt_tensor *t, char **out);
/** The same, with `count` extra suffixes (e.g. "requires_grad=True", "grad_fn=<MulBackward0>")
 * placed where PyTorch puts them: after size/dtype, before names, wrapped at the linewidth. */
NT_API nt_status nt_format_with_suffixes(const nt_tensor *t, int count, const char *const *suffixes,
                                         char **out);
/** The same with another prefix than "tensor(": PyTorch prints a Tensor subclass as
 * "Name(...)", its rows laid out under that prefix. */
NT_API nt_status nt_format_as(const nt_tensor *t, const char *prefix, int count,
                              const char *const *suffixes, char **out);
/** Frees a string the library allocated (nt_format); NULL is allowed. */
NT_API void nt_free(void *p);

/** torch.set_printoptions. Process-wide, like PyTorch's; set it before printing, not while
 * another thread prints. */
typedef struct nt_print_options {
    int64_t precision; /**< digits after the point: 4; in [0, 1000] */
    double threshold;  /**< numel above which output is summarised: 1000 (INFINITY: never) */
    int64_t edgeitems; /**< items kept at each end of a summarised dim: 3; >= 0 */
    int64_t linewidth; /**< characters per line for wrapping: 80 */
    int sci_mode;      /**< -1: chosen from the values (the default), 0: never, 1: always */
} nt_print_options;

/** PyTorch's defaults (profile "default", sci_mode None). */
NT_API nt_print_options nt_default_print_options(void);
/** The options in force. */
NT_API nt_print_options nt_get_print_options(void);
/** torch.set_printoptions(profile=...): "default", "short" (precision 2, edgeitems 2) or
 * "full" (no threshold) sets the precision, threshold, edgeitems and linewidth of *opts;
 * any other name changes nothing, as in PyTorch. */
NT_API void nt_print_profile(const char *profile, nt_print_options *opts);
/** Validates and installs `opts` (NT_ERR_VALUE names the bad field; nothing changes then). */
NT_API nt_status nt_set_print_options(const nt_print_options *opts);

#ifdef __cplusplus
}
#endif
#endif /* NTENSOR_PRINT_H */
