/*
 * status.c — the thread-local error message behind nt_last_error(), and the warnings behind
 * nt_take_warning() (oldest first).
 */
#include "status.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

static _Thread_local char error_text[1024];
static _Thread_local nt_status error_status = NT_OK;

nt_status nt_fail(nt_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(error_text, sizeof error_text, fmt, args);
    va_end(args);
    error_status = status;
    return status;
}

nt_status nt_fail_oom(size_t nbytes) {
    return nt_fail(NT_ERR_MEMORY, "out of memory: failed to allocate %zu bytes", nbytes);
}

nt_status nt_fail_null_tensor(const char *fn, const char *arg) {
    return nt_fail(NT_ERR_TYPE, "%s(): argument '%s' must be Tensor, not NULL", fn, arg);
}

const char *nt_last_error(void) {
    return error_text;
}

nt_status nt_last_status(void) {
    return error_status;
}

void nt_clear_error(void) {
    error_text[0] = '\0';
    error_status = NT_OK;
}

/* A short queue: random_ may leave two warnings in one call; a fifth drops the oldest. */
enum { WARNINGS = 4 };
static _Thread_local char warning_text[WARNINGS][1024];
static _Thread_local int warning_first, warning_count;
/* Whether any thread ever warned: until then nt_take_warning touches no thread-local
 * storage (a TLS access from a shared library is a call). */
static _Atomic bool any_warning;

void nt_warn(const char *fmt, ...) {
    if (warning_count == WARNINGS) {
        warning_first = (warning_first + 1) % WARNINGS;
        warning_count--;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(warning_text[(warning_first + warning_count) % WARNINGS], sizeof warning_text[0], fmt,
              args);
    va_end(args);
    warning_count++;
    atomic_store_explicit(&any_warning, true, memory_order_relaxed);
}

const char *nt_take_warning(void) {
    if (!atomic_load_explicit(&any_warning, memory_order_relaxed) || !warning_count) return NULL;
    const char *w = warning_text[warning_first];
    warning_first = (warning_first + 1) % WARNINGS;
    warning_count--;
    return w;
}
