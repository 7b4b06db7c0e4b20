/*
 * fuzz_input.h — what the libFuzzer harnesses of tests/fuzz share: reading arguments from
 * the fuzz input, the contract every API call must keep, and the invariants every tensor
 * must satisfy.
 *
 * The contract: a call returns NT_OK with a sane result, or an error status with a
 * non-empty nt_last_error() message (and nt_last_status() equal to it). Anything else, a
 * crash, a sanitizer report or a leak, is a finding; the harnesses abort() on a broken
 * contract so that libFuzzer saves the input.
 *
 * Memory: one input must stay within a few MiB. The harnesses check the element count
 * (and so the bytes) a call will allocate before making it: small requests are made,
 * absurd ones (beyond FZ_ABSURD_BYTES, which no machine can serve) are made too and must
 * fail cleanly, and the ones between are skipped, since they would only measure the
 * machine's memory.
 */
#ifndef NT_FUZZ_INPUT_H
#define NT_FUZZ_INPUT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntensor.h"

/* The most bytes one tensor the harnesses create may hold. */
#define FZ_MAX_BYTES ((int64_t)1 << 20)
/* Elements read back one by one after each op (more would only slow the fuzzer). */
#define FZ_READ_ELEMS ((int64_t)1 << 10)
/* A data request at least this big can never be served: the library must refuse it. */
#define FZ_ABSURD_BYTES ((int64_t)1 << 41)

/* ------------------------------------------------------------------ reading the input */

typedef struct fz_input {
    const uint8_t *p;
    size_t n;
} fz_input;

/* The next byte, or 0 once the input is used up (so every op still gets arguments). */
static inline uint8_t fz_u8(fz_input *in) {
    if (in->n == 0) return 0;
    in->n--;
    return *in->p++;
}

static inline bool fz_bool(fz_input *in) {
    return fz_u8(in) & 1;
}

static inline uint64_t fz_u64(fz_input *in) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)fz_u8(in) << (8 * i);
    return v;
}

/* The values where size, stride and offset arithmetic breaks. */
static const int64_t fz_edges[16] = {
    -1,
    INT64_MAX,
    INT64_MIN,
    INT64_MAX - 1,
    (int64_t)1 << 62,
    ((int64_t)1 << 62) + 1,
    -((int64_t)1 << 62),
    (int64_t)1 << 32,
    ((int64_t)1 << 31) - 1,
    (int64_t)1 << 31,
    (int64_t)1 << 40,
    (int64_t)1 << 20,
    INT64_MAX / 2,
    (int64_t)3037000500, /* just above the square root of INT64_MAX */
    4096,
    -2,
};

/* A size, stride, index or offset: mostly a small size (0..7), sometimes a small signed
 * value, an edge value, or any 64-bit value. */
static inline int64_t fz_int(fz_input *in) {
    uint8_t b = fz_u8(in);
    if (b < 0xB0) return b % 8;
    if (b < 0xE0) return (int64_t)(b - 0xB0) - 24; /* -24 .. 23 */
    if (b < 0xF0) return fz_edges[b & 0xF];
    return (int64_t)fz_u64(in);
}

/* A dim count: mostly 0..4, sometimes the limits around NT_MAX_DIMS or a negative one. */
static inline int fz_ndim(fz_input *in) {
    static const int edges[8] = {-1, 63, 64, 65, 5, 6, INT32_MIN, 200};
    uint8_t b = fz_u8(in);
    return b < 0xF0 ? b % 5 : edges[b & 7];
}

/* A dtype: mostly valid, sometimes not (the library must refuse those). */
static inline nt_dtype fz_dtype(fz_input *in) {
    uint8_t b = fz_u8(in);
    if (b < 0xF8) return (nt_dtype)(b % NT_DTYPE_COUNT);
    static const int bad[8] = {-1, NT_DTYPE_COUNT, NT_DTYPE_COUNT + 1, 255, 1000, INT32_MIN, -2,
                               64};
    return (nt_dtype)bad[b & 7];
}

/* The most entries of an argument array (fz_ndim's counts are below it). */
#define FZ_MAX_ARRAY 256

/* A heap array for n entries (n clamped to [0, FZ_MAX_ARRAY]) of `size` bytes each: exactly
 * sized, so that a read past the count the library was given shows up under
 * AddressSanitizer. */
static inline void *fz_array(int n, size_t size) {
    n = n < 0 ? 0 : n > FZ_MAX_ARRAY ? FZ_MAX_ARRAY : n;
    void *p = malloc((size_t)n * size + 1);
    if (!p) abort();
    return p;
}

/* A heap array of n fuzzed ints (see fz_array). */
static inline int64_t *fz_ints(fz_input *in, int n) {
    int64_t *v = fz_array(n, sizeof *v);
    for (int i = 0; i < n && i < FZ_MAX_ARRAY; i++)
        v[i] = fz_int(in);
    return v;
}

/* A Python-like scalar of any kind, floats including NaN, infinities and huge values. */
static inline nt_scalar fz_scalar(fz_input *in) {
    static const double floats[8] = {0.0, -0.0, 1.5, -2.25, INFINITY, -INFINITY, 1e300, 3e-310};
    uint8_t b = fz_u8(in);
    switch (b % 4) {
    case 0:
        return nt_scalar_bool(b & 4);
    case 1:
        return nt_scalar_int(fz_int(in));
    case 2:
        return nt_scalar_float(b & 0x80 ? NAN : floats[(b >> 2) & 7]);
    default: {
        uint64_t bits = fz_u64(in);
        double d;
        memcpy(&d, &bits, sizeof d);
        return nt_scalar_float(d);
    }
    }
}

/* ------------------------------------------------------------------ the call contract */

/* With NT_FUZZ_TRACE set in the environment, the harnesses print each call and result:
 * running one saved input that way shows the call sequence that reproduces a finding. */
static bool fz_trace;

static inline void fz_init_trace(void) {
    fz_trace = getenv("NT_FUZZ_TRACE") != NULL;
}

/* True for NT_OK; for an error, checks the contract (aborting when it is broken) and
 * returns false. Call nt_clear_error() before the call: FZ_OK does both. */
static inline bool fz_status_ok(nt_status st, const char *what) {
    if (fz_trace) fprintf(stderr, "%s -> %d %s\n", what, (int)st, st ? nt_last_error() : "");
    if (st == NT_OK) return true;
    if (st < NT_ERR_RUNTIME || st > NT_ERR_NOT_IMPLEMENTED || nt_last_error()[0] == '\0' ||
        nt_last_status() != st) {
        fprintf(stderr, "contract broken: %s returned status %d, last status %d, message '%s'\n",
                what, (int)st, (int)nt_last_status(), nt_last_error());
        abort();
    }
    return false;
}
#define FZ_OK(call) (nt_clear_error(), fz_status_ok((call), #call))

/* Aborts with a message: an invariant does not hold. */
#define FZ_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* What to do with a request for `count` items of `size` bytes (count < 0: it overflowed). */
typedef enum fz_budget { FZ_SKIP, FZ_CALL, FZ_MUST_FAIL } fz_budget;

static inline fz_budget fz_budget_for(int64_t count, int64_t size) {
    int64_t bytes;
    if (count < 0 || __builtin_mul_overflow(count, size, &bytes)) return FZ_MUST_FAIL;
    if (bytes <= FZ_MAX_BYTES) return FZ_CALL;
    return bytes >= FZ_ABSURD_BYTES ? FZ_MUST_FAIL : FZ_SKIP;
}

/* The element count of a shape: -1 for a negative size or a product that overflows
 * (a zero size makes any shape empty). */
static inline int64_t fz_numel(int ndim, const int64_t *sizes) {
    int64_t n = 1;
    bool overflow = false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) return -1;
        if (sizes[i] == 0) return 0;
        overflow |= __builtin_mul_overflow(n, sizes[i], &n);
    }
    return overflow ? -1 : n;
}

/* ------------------------------------------------------------------ tensor invariants */

static inline bool fz_same_double(double a, double b) {
    return a == b || (isnan(a) && isnan(b));
}

/* Advances a row-major multi-index over `sizes`; false after the last one. */
static inline bool fz_next_index(int ndim, const int64_t *sizes, int64_t *idx) {
    for (int d = ndim - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* Element `idx` of t, which must be readable. */
static inline double fz_get(const nt_tensor *t, const int64_t *idx) {
    double v = 0;
    FZ_ASSERT(FZ_OK(nt_get_double(t, idx, &v)));
    return v;
}

/* Prints t's metadata (tracing only). */
static inline void fz_describe(const char *what, const nt_tensor *t) {
    if (!fz_trace) return;
    int nd = nt_tensor_ndim(t);
    fprintf(stderr, "  %s: %s sizes [", what, nt_dtype_name(nt_tensor_dtype(t)));
    for (int i = 0; i < nd; i++)
        fprintf(stderr, "%s%lld", i ? ", " : "", (long long)nt_tensor_sizes(t)[i]);
    fprintf(stderr, "] strides [");
    for (int i = 0; i < nd; i++)
        fprintf(stderr, "%s%lld", i ? ", " : "", (long long)nt_tensor_strides(t)[i]);
    fprintf(stderr, "] offset %lld names", (long long)nt_tensor_offset(t));
    for (int i = 0; i < nd; i++) {
        const char *s = nt_tensor_names(t) ? nt_name_str(nt_tensor_names(t)[i]) : "-";
        fprintf(stderr, " %s", s ? s : nt_tensor_names(t)[i] ? "<bad id>" : "None");
    }
    fprintf(stderr, "\n");
}

/* The metadata of t is sane: dims in range, sizes non-negative, numel their product,
 * dtype valid, names either absent or one known (or None) name per dim with one named. */
static inline void fz_check_meta(const nt_tensor *t) {
    FZ_ASSERT(t != NULL);
    int nd = nt_tensor_ndim(t);
    FZ_ASSERT(nd >= 0 && nd <= NT_MAX_DIMS);
    const int64_t *sizes = nt_tensor_sizes(t);
    int64_t numel = fz_numel(nd, sizes);
    FZ_ASSERT(numel >= 0 && numel == nt_tensor_numel(t));
    int dt = (int)nt_tensor_dtype(t);
    FZ_ASSERT(dt >= 0 && dt < NT_DTYPE_COUNT);
    const nt_name *names = nt_tensor_names(t);
    FZ_ASSERT(nt_tensor_has_names(t) == (names != NULL));
    if (names) {
        bool any = false;
        for (int i = 0; i < nd; i++) {
            FZ_ASSERT(names[i] == NT_NAME_NONE || nt_name_str(names[i]) != NULL);
            any |= names[i] != NT_NAME_NONE;
        }
        FZ_ASSERT(any);
    }
    (void)nt_tensor_data(t); /* the address of element 0 exists for any tensor */
}

/* Reads every element of t (when there are few enough) and checks that a contiguous copy
 * holds the same values; for an empty t, that reading element 0 fails cleanly. */
static inline void fz_check_values(nt_tensor *t) {
    int nd = nt_tensor_ndim(t);
    int64_t numel = nt_tensor_numel(t);
    int64_t idx[NT_MAX_DIMS] = {0};
    if (numel == 0) {
        double v;
        FZ_ASSERT(!FZ_OK(nt_get_double(t, idx, &v)));
    }
    if (numel > FZ_READ_ELEMS) return;
    nt_tensor *c = NULL;
    FZ_ASSERT(FZ_OK(nt_contiguous(t, &c)));
    FZ_ASSERT(nt_tensor_is_contiguous(c) && nt_tensor_ndim(c) == nd &&
              nt_tensor_numel(c) == numel && nt_tensor_dtype(c) == nt_tensor_dtype(t));
    for (int d = 0; d < nd; d++)
        FZ_ASSERT(nt_tensor_sizes(c)[d] == nt_tensor_sizes(t)[d]);
    if (numel > 0) {
        do {
            FZ_ASSERT(fz_same_double(fz_get(t, idx), fz_get(c, idx)));
        } while (fz_next_index(nd, nt_tensor_sizes(t), idx));
    }
    nt_tensor_release(c);
}

static inline void fz_check_tensor(nt_tensor *t) {
    fz_describe("result", t);
    fz_check_meta(t);
    fz_check_values(t);
}

/* Checks a string the library returned (nt_format) and frees it. */
static inline void fz_check_text(char *text) {
    FZ_ASSERT(text != NULL);
    FZ_ASSERT(strlen(text) > 0);
    nt_free(text);
}

#endif
