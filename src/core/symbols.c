/*
 * symbols.c — interned dimension names.
 *
 * A name's text is validated and stored once; afterwards a name is a uint32 id and every
 * comparison is an integer compare. Ids are never freed. Lookups by text take a mutex (they
 * happen at the API edge only); the text of an id is read without a lock from a table of
 * fixed-size chunks that never moves once written.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "tensor.h"

#define CHUNK_BITS 10
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 4096u /* room for 4M distinct names */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *_Atomic *chunks[MAX_CHUNKS]; /* id -> text */
static _Atomic uint32_t count = 1;              /* id 0 is NT_NAME_NONE; ids are given in order */

static uint32_t *slots;    /* open-addressing hash table of ids, 0 = empty */
static uint32_t slot_mask; /* capacity - 1 */

static uint64_t hash_text(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static const char *text_of(uint32_t id) {
    return chunks[id >> CHUNK_BITS][id & (CHUNK_SIZE - 1)];
}

static bool same_text(const char *stored, const char *s, size_t n) {
    return strncmp(stored, s, n) == 0 && stored[n] == '\0';
}

static nt_status grow_slots(void) {
    uint32_t capacity = slots ? (slot_mask + 1) * 2 : 1024;
    uint32_t *fresh = calloc(capacity, sizeof *fresh);
    if (!fresh) return nt_fail_oom(capacity * sizeof *fresh);
    for (uint32_t id = 1; id < count; id++) {
        const char *t = text_of(id);
        uint32_t i = (uint32_t)hash_text(t, strlen(t)) & (capacity - 1);
        while (fresh[i])
            i = (i + 1) & (capacity - 1);
        fresh[i] = id;
    }
    free(slots);
    slots = fresh;
    slot_mask = capacity - 1;
    return NT_OK;
}

static bool is_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* The spec: a valid identifier (letters, digits, underscore, not starting with a digit)
 * that does not start with an underscore. */
static nt_status validate(const char *s, size_t n) {
    bool ok = n > 0 && (is_alpha(s[0]) || s[0] == '_');
    for (size_t i = 1; ok && i < n; i++)
        ok = is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_';
    if (!ok)
        return nt_fail(NT_ERR_RUNTIME,
                       "Invalid name: a valid identifier contains only digits, alphabetical "
                       "characters, and/or underscore and starts with a non-digit. got: '%.*s'.",
                       (int)(n > 200 ? 200 : n), s);
    if (s[0] == '_')
        return nt_fail(NT_ERR_RUNTIME,
                       "Invalid name: a dimension name may not start with an underscore. "
                       "got: '%.*s'.",
                       (int)(n > 200 ? 200 : n), s);
    return NT_OK;
}

nt_status nt_name_intern_n(const char *text, size_t len, nt_name *out) {
    if (!text || !out) return nt_fail(NT_ERR_VALUE, "nt_name_intern: NULL argument");
    NT_TRY(validate(text, len));
    nt_status st = NT_OK;
    pthread_mutex_lock(&lock);
    if (!slots && (st = grow_slots()) != NT_OK) goto done;
    uint32_t i = (uint32_t)hash_text(text, len) & slot_mask;
    for (; slots[i]; i = (i + 1) & slot_mask) {
        if (same_text(text_of(slots[i]), text, len)) {
            *out = slots[i];
            goto done;
        }
    }
    if (count >= CHUNK_SIZE * MAX_CHUNKS) {
        st = nt_fail(NT_ERR_RUNTIME, "too many distinct dimension names");
        goto done;
    }
    uint32_t chunk = count >> CHUNK_BITS;
    if (!chunks[chunk] && !(chunks[chunk] = calloc(CHUNK_SIZE, sizeof(char *)))) {
        st = nt_fail_oom(CHUNK_SIZE * sizeof(char *));
        goto done;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        st = nt_fail_oom(len + 1);
        goto done;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    uint32_t id = count;
    chunks[chunk][id & (CHUNK_SIZE - 1)] = copy;
    atomic_store_explicit(&count, id + 1, memory_order_release); /* after its text */
    slots[i] = id;
    *out = id;
    if ((count - 1) * 2 > slot_mask) st = grow_slots(); /* keep the load under one half */
done:
    pthread_mutex_unlock(&lock);
    return st;
}

nt_status nt_name_intern(const char *text, nt_name *out) {
    if (!text) return nt_fail(NT_ERR_VALUE, "nt_name_intern: NULL argument");
    return nt_name_intern_n(text, strlen(text), out);
}

const char *nt_name_str(nt_name name) {
    if (name == NT_NAME_NONE || (name >> CHUNK_BITS) >= MAX_CHUNKS) return NULL;
    const char *_Atomic *chunk = chunks[name >> CHUNK_BITS];
    return chunk ? chunk[name & (CHUNK_SIZE - 1)] : NULL;
}

nt_status nt_names_check_known(const nt_name *names, int n) {
    /* the ids below count are the interned ones: one load, no lookup per name */
    uint32_t known = atomic_load_explicit(&count, memory_order_acquire);
    for (int i = 0; names && i < n && i < NT_MAX_DIMS; i++)
        if (names[i] >= known)
            return nt_fail(NT_ERR_VALUE, "invalid name id %" PRIu32 " at dim %d", names[i], i);
    return NT_OK;
}
