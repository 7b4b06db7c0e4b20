/*
 * status.h — setting the thread-local error that every fallible function reports.
 *
 * Internal code fails with `return nt_fail(NT_ERR_..., "fmt", ...)` or sets the error and
 * jumps to its one cleanup label. The message lives in a fixed thread-local buffer, so
 * reporting never allocates (it works out of memory too).
 */
#ifndef NT_CORE_STATUS_H
#define NT_CORE_STATUS_H

#include "ntensor.h"

/* Records `status` with a printf-style message and returns `status`. */
nt_status nt_fail(nt_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records an out-of-memory failure for `nbytes` and returns NT_ERR_MEMORY. */
nt_status nt_fail_oom(size_t nbytes);

/* PyTorch's TypeError for a missing tensor: "fn(): argument 'arg' must be Tensor, not NULL"
 * (NT_ERR_TYPE). */
nt_status nt_fail_null_tensor(const char *fn, const char *arg);

/* Leaves a warning for the caller (nt_take_warning, oldest first; up to 4 are kept). */
void nt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Propagates a failed status: `NT_TRY(nt_something(...));` */
#define NT_TRY(expr)                                                                               \
    do {                                                                                           \
        nt_status nt_try_status_ = (expr);                                                         \
        if (nt_try_status_ != NT_OK) return nt_try_status_;                                        \
    } while (0)

/* Sets `st` and jumps to `fail` when expr fails: `NT_CHECK(st, nt_x(...));` */
#define NT_CHECK(st, expr)                                                                         \
    do {                                                                                           \
        (st) = (expr);                                                                             \
        if ((st) != NT_OK) goto fail;                                                              \
    } while (0)

#endif
