/*
 * safetensors.c — nt_save and nt_load: tensors with their names in the safetensors format.
 *
 * The format (https://github.com/huggingface/safetensors, "Format"): an unsigned 64-bit
 * little-endian N, N bytes of a JSON object (padded with spaces), then the data. The object
 * maps each key to {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]} (byte
 * offsets into the data), and "__metadata__" to a map of strings. ntensor stores there the
 * names of each named tensor ("ntensor.names.<key>": "[\"N\", null]", a JSON list as a
 * string) and marks a file of one tensor saved without a key ("ntensor.object": "tensor").
 *
 * The loader treats the file as hostile (docs/io.md lists the checks): nothing from the file
 * is used before it is checked, and the JSON is parsed by cJSON, never by hand.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/status.h"
#include "core/tensor.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "safetensors data is little-endian; a big-endian build would swap bytes");

/* The safetensors reference implementation's bound on the header (MAX_HEADER_SIZE). */
#define HEADER_MAX 100000000u
/* Offsets and sizes in the header are JSON numbers, which cJSON reads as doubles: exact up
 * to 2^53. */
#define JSON_INT_MAX 9007199254740992.0
#define NAMES_PREFIX "ntensor.names."
#define OBJECT_KEY "ntensor.object"

/* The safetensors dtype code of each ntensor dtype (all of ntensor's have one). */
static const char *const dtype_codes[NT_DTYPE_COUNT] = {
    [NT_BOOL] = "BOOL",   [NT_UINT8] = "U8",    [NT_INT8] = "I8",     [NT_INT16] = "I16",
    [NT_INT32] = "I32",   [NT_INT64] = "I64",   [NT_FLOAT16] = "F16", [NT_BFLOAT16] = "BF16",
    [NT_FLOAT32] = "F32", [NT_FLOAT64] = "F64",
};

/* ------------------------------------------------------------------ writing */

/* Writes all `n` bytes at `p` to fd. */
static nt_status write_all(int fd, const char *path, const void *p, size_t n) {
    const char *c = p;
    while (n > 0) {
        size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        ssize_t w = write(fd, c, chunk);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return nt_fail(NT_ERR_RUNTIME, "save: writing '%s' failed: %s", path,
                           w < 0 ? strerror(errno) : "no progress");
        c += w;
        n -= (size_t)w;
    }
    return NT_OK;
}

/* The metadata entry "ntensor.names.<key>": the tensor's names as a JSON list. */
static nt_status add_names(cJSON *meta, const char *key, const nt_tensor *t) {
    cJSON *list = cJSON_CreateArray();
    char *text = NULL;
    char *entry = NULL;
    nt_status st = NT_OK;
    if (!list) goto oom;
    for (int i = 0; i < t->ndim; i++) {
        const char *s = nt_name_str(t->names[i]);
        cJSON *item = s ? cJSON_CreateString(s) : cJSON_CreateNull();
        if (!item || !cJSON_AddItemToArray(list, item)) {
            cJSON_Delete(item);
            goto oom;
        }
    }
    size_t len = strlen(NAMES_PREFIX) + strlen(key) + 1;
    if (!(text = cJSON_PrintUnformatted(list)) || !(entry = malloc(len))) goto oom;
    snprintf(entry, len, "%s%s", NAMES_PREFIX, key);
    if (!cJSON_AddStringToObject(meta, entry, text)) goto oom;
    goto done;
oom:
    st = nt_fail(NT_ERR_MEMORY, "save: out of memory building the header");
done:
    free(entry);
    cJSON_free(text);
    cJSON_Delete(list);
    return st;
}

/* One tensor's header entry: dtype, shape and its bytes [begin, end). */
static cJSON *tensor_entry(const nt_tensor *t, uint64_t begin, uint64_t end) {
    cJSON *e = cJSON_CreateObject(), *shape = cJSON_CreateArray(), *offsets = cJSON_CreateArray();
    char num[32];
    bool ok = e && shape && offsets && cJSON_AddStringToObject(e, "dtype", dtype_codes[t->dtype]);
    for (int i = 0; ok && i < t->ndim; i++) {
        snprintf(num, sizeof num, "%" PRId64, t->sizes[i]); /* exact, not through a double */
        cJSON *item = cJSON_CreateRaw(num);
        ok = item && cJSON_AddItemToArray(shape, item);
        if (!ok) cJSON_Delete(item);
    }
    for (int i = 0; ok && i < 2; i++) {
        snprintf(num, sizeof num, "%" PRIu64, i == 0 ? begin : end);
        cJSON *item = cJSON_CreateRaw(num);
        ok = item && cJSON_AddItemToArray(offsets, item);
        if (!ok) cJSON_Delete(item);
    }
    if (ok && cJSON_AddItemToObject(e, "shape", shape)) {
        shape = NULL;
        if (cJSON_AddItemToObject(e, "data_offsets", offsets)) return e;
    }
    cJSON_Delete(shape);
    cJSON_Delete(offsets);
    cJSON_Delete(e);
    return NULL;
}

/* The header: the JSON object padded with spaces so that the data starts 8-byte aligned. */
static nt_status build_header(int64_t n, const char *const *keys, nt_tensor *const *tensors,
                              char **out, size_t *out_len) {
    nt_status st = NT_OK;
    cJSON *root = cJSON_CreateObject(), *meta = cJSON_CreateObject();
    char *text = NULL;
    if (!root || !meta) goto oom;
    if (!keys && !cJSON_AddStringToObject(meta, OBJECT_KEY, "tensor")) goto oom;
    uint64_t offset = 0;
    for (int64_t i = 0; i < n; i++) {
        const nt_tensor *t = tensors[i];
        const char *key = keys ? keys[i] : "tensor";
        uint64_t nbytes = (uint64_t)t->numel * nt_dtype_size(t->dtype);
        cJSON *e = tensor_entry(t, offset, offset + nbytes);
        if (!e || !cJSON_AddItemToObject(root, key, e)) {
            cJSON_Delete(e);
            goto oom;
        }
        offset += nbytes;
        if (t->names) NT_CHECK(st, add_names(meta, key, t));
    }
    if (cJSON_GetArraySize(meta) > 0) {
        if (!cJSON_AddItemToObject(root, "__metadata__", meta)) goto oom;
        meta = NULL;
    }
    if (!(text = cJSON_PrintUnformatted(root))) goto oom;
    size_t len = strlen(text), padded = (len + 7) & ~(size_t)7;
    char *header = malloc(padded);
    if (!header) goto oom;
    memcpy(header, text, len);
    memset(header + len, ' ', padded - len);
    *out = header;
    *out_len = padded;
    goto done;
oom:
    st = nt_fail(NT_ERR_MEMORY, "save: out of memory building the header");
fail:
done:
    cJSON_free(text);
    cJSON_Delete(meta);
    cJSON_Delete(root);
    return st;
}

/* The checks on nt_save's arguments, before the file is touched. */
static nt_status check_save_args(const char *path, int64_t n, const char *const *keys,
                                 nt_tensor *const *tensors) {
    if (!path) return nt_fail(NT_ERR_VALUE, "save: path is NULL");
    if (n < 0) return nt_fail(NT_ERR_VALUE, "save: n is negative (%" PRId64 ")", n);
    if (n > 0 && !tensors) return nt_fail(NT_ERR_VALUE, "save: tensors is NULL");
    if (!keys && n != 1)
        return nt_fail(NT_ERR_VALUE, "save: keys may be NULL only for one tensor (n = %" PRId64 ")",
                       n);
    uint64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!tensors[i]) return nt_fail(NT_ERR_VALUE, "save: tensor %" PRId64 " is NULL", i);
        total += (uint64_t)tensors[i]->numel * nt_dtype_size(tensors[i]->dtype);
        if (total > (uint64_t)JSON_INT_MAX)
            return nt_fail(NT_ERR_VALUE, "save: the tensors hold more than 2^53 bytes");
        if (!keys) continue;
        if (!keys[i] || !keys[i][0])
            return nt_fail(NT_ERR_VALUE, "save: key %" PRId64 " is empty", i);
        if (!strcmp(keys[i], "__metadata__"))
            return nt_fail(NT_ERR_VALUE, "save: the key '__metadata__' is reserved by the format");
        for (int64_t j = 0; j < i; j++)
            if (!strcmp(keys[i], keys[j]))
                return nt_fail(NT_ERR_VALUE, "save: the key '%s' is given twice", keys[i]);
    }
    return NT_OK;
}

nt_status nt_save(const char *path, int64_t n, const char *const *keys, nt_tensor *const *tensors) {
    NT_TRY(check_save_args(path, n, keys, tensors));
    char *header = NULL;
    size_t header_len = 0;
    NT_TRY(build_header(n, keys, tensors, &header, &header_len));
    nt_status st = NT_OK;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        st = nt_fail(NT_ERR_RUNTIME, "save: cannot open '%s' for writing: %s", path,
                     strerror(errno));
        goto fail;
    }
    unsigned char len_bytes[8];
    for (int i = 0; i < 8; i++)
        len_bytes[i] = (unsigned char)((uint64_t)header_len >> (8 * i));
    NT_CHECK(st, write_all(fd, path, len_bytes, 8));
    NT_CHECK(st, write_all(fd, path, header, header_len));
    for (int64_t i = 0; i < n; i++) {
        nt_tensor *t = tensors[i], *dense = NULL;
        if (t->numel == 0) continue;
        if (!t->is_contiguous) { /* a contiguous copy, not recorded by autograd */
            bool was = nt_set_grad_enabled(false);
            st = nt_contiguous(t, &dense);
            nt_set_grad_enabled(was);
            if (st != NT_OK) goto fail;
        }
        const nt_tensor *src = dense ? dense : t;
        st = write_all(fd, path, nt_tensor_data(src),
                       (size_t)src->numel * nt_dtype_size(src->dtype));
        nt_tensor_release(dense);
        if (st != NT_OK) goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        st = nt_fail(NT_ERR_RUNTIME, "save: writing '%s' failed: %s", path, strerror(errno));
        goto fail;
    }
    fd = -1;
fail:
    if (fd >= 0) close(fd);
    free(header);
    return st;
}

/* ------------------------------------------------------------------ reading */

/* Where the bytes come from: a file (read with pread) or a buffer in memory. */
typedef struct source {
    const char *label; /* for messages: the path, or "buffer" */
    int fd;
    const unsigned char *mem;
    uint64_t size;
} source;

static nt_status source_read(const source *s, uint64_t offset, void *dst, size_t n) {
    if (s->mem) {
        memcpy(dst, s->mem + offset, n);
        return NT_OK;
    }
    char *c = dst;
    while (n > 0) {
        size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        ssize_t r = pread(s->fd, c, chunk, (off_t)offset);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return nt_fail(NT_ERR_RUNTIME, "load: reading '%s' failed: %s", s->label,
                           r < 0 ? strerror(errno) : "the file is shorter than it was");
        c += r;
        n -= (size_t)r;
        offset += (uint64_t)r;
    }
    return NT_OK;
}

/* One tensor of the header, checked. */
typedef struct entry {
    const char *key;
    const cJSON *shape;
    nt_dtype dtype;
    int ndim;
    uint64_t begin, end;
    const char *names; /* the metadata's JSON list, or NULL */
} entry;

/* A JSON number that is an integer in [0, 2^53]. */
static bool json_uint(const cJSON *item, uint64_t *out) {
    if (!cJSON_IsNumber(item)) return false;
    double v = item->valuedouble;
    if (!(v >= 0 && v <= JSON_INT_MAX) || v != (double)(uint64_t)v) return false;
    *out = (uint64_t)v;
    return true;
}

#define BAD(...) nt_fail(NT_ERR_VALUE, __VA_ARGS__)

/* Reads and checks one tensor's entry: known dtype, a shape of at most 64 non-negative
 * sizes whose byte count fits, and data_offsets [begin, end] inside the data that match
 * the byte count. */
static nt_status check_entry(const source *s, const cJSON *item, uint64_t data_len, entry *e) {
    const char *key = item->string;
    if (!cJSON_IsObject(item))
        return BAD("load: '%s' is not a safetensors file: the entry of '%s' is not an object",
                   s->label, key);
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
    const cJSON *offsets = cJSON_GetObjectItemCaseSensitive(item, "data_offsets");
    if (!cJSON_IsString(dtype) || !cJSON_IsArray(shape) || !cJSON_IsArray(offsets))
        return BAD("load: '%s': the entry of '%s' needs a string \"dtype\" and lists \"shape\" "
                   "and \"data_offsets\"",
                   s->label, key);
    int d = -1;
    for (int i = 0; i < NT_DTYPE_COUNT; i++)
        if (!strcmp(dtype->valuestring, dtype_codes[i])) d = i;
    if (d < 0)
        return BAD("load: '%s': tensor '%s' has dtype \"%.32s\", which ntensor does not have "
                   "(it has BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64)",
                   s->label, key, dtype->valuestring);
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > NT_MAX_DIMS)
        return BAD("load: '%s': tensor '%s' has %d dims (at most %d)", s->label, key, ndim,
                   NT_MAX_DIMS);
    uint64_t nbytes = nt_dtype_size((nt_dtype)d), size;
    const cJSON *dim;
    cJSON_ArrayForEach(dim, shape) {
        if (!json_uint(dim, &size))
            return BAD("load: '%s': the shape of tensor '%s' holds something other than a size "
                       "in [0, 2^53]",
                       s->label, key);
        if (__builtin_mul_overflow(nbytes, size, &nbytes) || nbytes > (uint64_t)JSON_INT_MAX)
            return BAD("load: '%s': the shape of tensor '%s' overflows", s->label, key);
    }
    uint64_t begin, end;
    if (cJSON_GetArraySize(offsets) != 2 || !json_uint(offsets->child, &begin) ||
        !json_uint(offsets->child->next, &end))
        return BAD("load: '%s': the data_offsets of tensor '%s' are not two offsets in "
                   "[0, 2^53]",
                   s->label, key);
    if (begin > end || end > data_len)
        return BAD("load: '%s': tensor '%s' has data_offsets [%" PRIu64 ", %" PRIu64
                   "], outside the file's %" PRIu64 " bytes of data",
                   s->label, key, begin, end, data_len);
    if (end - begin != nbytes)
        return BAD("load: '%s': tensor '%s' has %" PRIu64 " bytes of data but its shape and "
                   "dtype %s need %" PRIu64,
                   s->label, key, end - begin, dtype_codes[d], nbytes);
    *e = (entry){
        .key = key, .shape = shape, .dtype = (nt_dtype)d, .ndim = ndim, .begin = begin, .end = end};
    return NT_OK;
}

static int by_offsets(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

static int by_key(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int entries_by_key(const void *a, const void *b) {
    return strcmp((*(const entry *const *)a)->key, (*(const entry *const *)b)->key);
}

/* bsearch's comparison of a key with an entry (by_name is sorted by entries_by_key). */
static int entry_by_key(const void *key, const void *e) {
    return strcmp(*(const char *const *)key, (*(const entry *const *)e)->key);
}

/* The keys are distinct (cJSON keeps both of a repeated key; a dict would drop one). */
static nt_status check_distinct_keys(const source *s, const cJSON *root, int count) {
    const char **keys = malloc((size_t)(count > 0 ? count : 1) * sizeof *keys);
    if (!keys) return nt_fail_oom((size_t)count * sizeof *keys);
    int i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, root) keys[i++] = item->string;
    qsort(keys, (size_t)count, sizeof *keys, by_key);
    nt_status st = NT_OK;
    for (i = 1; i < count; i++)
        if (!strcmp(keys[i - 1], keys[i])) {
            st = BAD("load: '%s': the key '%s' appears twice in the header", s->label, keys[i]);
            break;
        }
    free(keys);
    return st;
}

/* The metadata: a map of strings. Names entries must name a tensor of the file; the object
 * marker must say "tensor" and come with exactly one tensor. Other entries are the user's. */
static nt_status check_metadata(const source *s, const cJSON *meta, entry **by_name, int count,
                                bool *single) {
    const cJSON *item;
    size_t prefix = strlen(NAMES_PREFIX);
    cJSON_ArrayForEach(item, meta) {
        if (!cJSON_IsString(item))
            return BAD("load: '%s': the metadata entry '%s' is not a string", s->label,
                       item->string);
        if (!strcmp(item->string, OBJECT_KEY)) {
            if (strcmp(item->valuestring, "tensor") || count != 1)
                return BAD("load: '%s': the metadata entry '" OBJECT_KEY
                           "' must be \"tensor\", in a file of one tensor",
                           s->label);
            *single = true;
        }
        if (strncmp(item->string, NAMES_PREFIX, prefix) != 0) continue;
        const char *key = item->string + prefix;
        entry **found = bsearch(&key, by_name, (size_t)count, sizeof *by_name, entry_by_key);
        if (!found)
            return BAD("load: '%s': the metadata gives names to '%s', which the file does not "
                       "hold",
                       s->label, key);
        (*found)->names = item->valuestring;
    }
    return NT_OK;
}

/* The names of a tensor from its metadata entry: a JSON list of ndim names or nulls, each a
 * valid name, no name twice (nt_tensor_set_names). */
static nt_status apply_names(const source *s, const entry *e, nt_tensor *t) {
    cJSON *list = cJSON_Parse(e->names);
    nt_name names[NT_MAX_DIMS];
    nt_status st = NT_OK;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != e->ndim) {
        st = BAD("load: '%s': the names of tensor '%s' are not a JSON list of %d names", s->label,
                 e->key, e->ndim);
        goto done;
    }
    int i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list) {
        if (cJSON_IsNull(item)) {
            names[i++] = NT_NAME_NONE;
            continue;
        }
        if (!cJSON_IsString(item)) {
            st = BAD("load: '%s': the names of tensor '%s' hold something other than a name or "
                     "null",
                     s->label, e->key);
            goto done;
        }
        if ((st = nt_name_intern(item->valuestring, &names[i++])) != NT_OK) goto refused;
    }
    if ((st = nt_tensor_set_names(t, names)) == NT_OK) goto done;
refused : { /* an invalid or repeated name: the names layer's text, with where it came from */
    char why[256];
    snprintf(why, sizeof why, "%s", nt_last_error());
    st = BAD("load: '%s': the names of tensor '%s': %s", s->label, e->key, why);
}
done:
    cJSON_Delete(list);
    return st;
}

/* A new tensor for a checked entry, its bytes read from the source; a BOOL tensor's bytes
 * become 0 or 1 (a C bool holding another value is undefined behaviour). */
static nt_status make_tensor(const source *s, const entry *e, uint64_t data_start,
                             nt_tensor **out) {
    int64_t sizes[NT_MAX_DIMS];
    int i = 0;
    const cJSON *dim;
    cJSON_ArrayForEach(dim, e->shape) sizes[i++] = (int64_t)dim->valuedouble;
    nt_tensor *t = NULL;
    nt_status st;
    NT_TRY(nt_empty(e->ndim, sizes, e->dtype, NULL, &t));
    size_t nbytes = (size_t)(e->end - e->begin);
    if (nbytes) NT_CHECK(st, source_read(s, data_start + e->begin, nt_tensor_data(t), nbytes));
    if (e->dtype == NT_BOOL) {
        unsigned char *b = nt_tensor_data(t);
        for (size_t k = 0; k < nbytes; k++)
            b[k] = b[k] != 0;
    }
    if (e->names) NT_CHECK(st, apply_names(s, e, t));
    *out = t;
    return NT_OK;
fail:
    nt_tensor_release(t);
    return st;
}

/* Reads the header from the source, checks all of it, then makes the tensors. */
static nt_status load_source(const source *s, int64_t *n_out, char ***keys_out,
                             nt_tensor ***tensors_out) {
    unsigned char len_bytes[8];
    if (s->size < 8)
        return BAD("load: '%s' is not a safetensors file: %" PRIu64
                   " bytes, fewer than the 8 of the header length",
                   s->label, s->size);
    NT_TRY(source_read(s, 0, len_bytes, 8));
    uint64_t header_len = 0;
    for (int i = 0; i < 8; i++)
        header_len |= (uint64_t)len_bytes[i] << (8 * i);
    if (header_len > s->size - 8 || header_len > HEADER_MAX)
        return BAD("load: '%s' is not a safetensors file: a header of %" PRIu64
                   " bytes does not fit (%" PRIu64 " bytes follow; at most %u allowed)",
                   s->label, header_len, s->size - 8, HEADER_MAX);
    uint64_t data_start = 8 + header_len, data_len = s->size - data_start;

    nt_status st = NT_OK;
    char *header = malloc(header_len ? (size_t)header_len : 1);
    cJSON *root = NULL;
    entry *entries = NULL, **by_name = NULL;
    nt_tensor **tensors = NULL;
    char **keys = NULL;
    int count = 0, made = 0;
    if (!header) return nt_fail_oom((size_t)header_len);
    NT_CHECK(st, source_read(s, 8, header, (size_t)header_len));
    const char *end = NULL;
    root = cJSON_ParseWithLengthOpts(header, (size_t)header_len, &end, 0);
    if (!cJSON_IsObject(root)) {
        st = BAD("load: '%s' is not a safetensors file: its header is not a JSON object", s->label);
        goto fail;
    }
    for (; end < header + header_len; end++)
        if (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') {
            st =
                BAD("load: '%s' is not a safetensors file: bytes follow its JSON header", s->label);
            goto fail;
        }
    int items = cJSON_GetArraySize(root);
    NT_CHECK(st, check_distinct_keys(s, root, items));
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "__metadata__"), *item;
    if (meta && !cJSON_IsObject(meta)) {
        st = BAD("load: '%s': its __metadata__ is not an object", s->label);
        goto fail;
    }
    if (!(entries = calloc((size_t)(items > 0 ? items : 1), sizeof *entries))) {
        st = nt_fail_oom((size_t)items * sizeof *entries);
        goto fail;
    }
    cJSON_ArrayForEach(item, root) {
        if (item == meta) continue;
        NT_CHECK(st, check_entry(s, item, data_len, &entries[count]));
        count++;
    }
    /* The data must be the tensors' bytes, back to back, and nothing else. */
    qsort(entries, (size_t)count, sizeof *entries, by_offsets);
    uint64_t covered = 0;
    for (int i = 0; i < count; i++) {
        if (entries[i].begin != covered) {
            st = BAD("load: '%s': tensor '%s' starts at byte %" PRIu64 " of the data, where %s"
                     " byte %" PRIu64,
                     s->label, entries[i].key, entries[i].begin,
                     entries[i].begin < covered ? "it overlaps the tensor before it, ending at"
                                                : "a gap opens after",
                     covered);
            goto fail;
        }
        covered = entries[i].end;
    }
    if (covered != data_len) {
        st = BAD("load: '%s': the tensors hold %" PRIu64 " bytes but %" PRIu64
                 " bytes of data follow the header",
                 s->label, covered, data_len);
        goto fail;
    }
    bool single = false;
    if (meta) {
        if (!(by_name = malloc((size_t)(count > 0 ? count : 1) * sizeof *by_name))) {
            st = nt_fail_oom((size_t)count * sizeof *by_name);
            goto fail;
        }
        for (int i = 0; i < count; i++)
            by_name[i] = &entries[i];
        qsort(by_name, (size_t)count, sizeof *by_name, entries_by_key);
        NT_CHECK(st, check_metadata(s, meta, by_name, count, &single));
    }

    tensors = calloc((size_t)(count > 0 ? count : 1), sizeof *tensors);
    if (!tensors) {
        st = nt_fail_oom((size_t)count * sizeof *tensors);
        goto fail;
    }
    if (!single) {
        size_t bytes = (size_t)count * sizeof *keys;
        for (int i = 0; i < count; i++)
            bytes += strlen(entries[i].key) + 1;
        if (!(keys = malloc(bytes > 0 ? bytes : 1))) {
            st = nt_fail_oom(bytes);
            goto fail;
        }
        char *text = (char *)(keys + count); /* the strings after the pointers, one block */
        for (int i = 0; i < count; i++) {
            size_t len = strlen(entries[i].key) + 1;
            memcpy(text, entries[i].key, len);
            keys[i] = text;
            text += len;
        }
    }
    for (; made < count; made++)
        NT_CHECK(st, make_tensor(s, &entries[made], data_start, &tensors[made]));
    *n_out = count;
    *keys_out = keys;
    *tensors_out = tensors;
    keys = NULL;
    tensors = NULL;
fail:
    nt_load_free(made, keys, tensors);
    free(by_name);
    free(entries);
    cJSON_Delete(root);
    free(header);
    return st;
}

static nt_status check_load_outs(int64_t *n, char ***keys, nt_tensor ***tensors) {
    if (!n || !keys || !tensors) return nt_fail(NT_ERR_VALUE, "load: an output pointer is NULL");
    return NT_OK;
}

nt_status nt_load(const char *path, int64_t *n, char ***keys, nt_tensor ***tensors) {
    NT_TRY(check_load_outs(n, keys, tensors));
    if (!path) return nt_fail(NT_ERR_VALUE, "load: path is NULL");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nt_fail(NT_ERR_RUNTIME, "load: cannot open '%s': %s", path, strerror(errno));
    struct stat info;
    nt_status st;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
        st = nt_fail(NT_ERR_RUNTIME, "load: '%s' is not a regular file", path);
    else
        st = load_source(&(source){.label = path, .fd = fd, .size = (uint64_t)info.st_size}, n,
                         keys, tensors);
    close(fd);
    return st;
}

nt_status nt_load_buffer(const void *data, size_t size, int64_t *n, char ***keys,
                         nt_tensor ***tensors) {
    NT_TRY(check_load_outs(n, keys, tensors));
    if (!data && size) return nt_fail(NT_ERR_VALUE, "load: data is NULL");
    static const unsigned char nothing[1];
    return load_source(
        &(source){.label = "buffer", .fd = -1, .mem = data ? data : nothing, .size = size}, n, keys,
        tensors);
}

void nt_load_free(int64_t n, char **keys, nt_tensor **tensors) {
    if (tensors)
        for (int64_t i = 0; i < n; i++)
            nt_tensor_release(tensors[i]);
    free(tensors);
    free(keys);
}
