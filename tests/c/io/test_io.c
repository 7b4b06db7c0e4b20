/*
 * test_io.c — nt_save / nt_load (safetensors with names) and nt_to_dlpack / nt_from_dlpack:
 * round trips of values, dtypes, shapes and names; a file written by hand from the format's
 * specification; hostile files refused with clear errors; DLPack sharing memory both ways,
 * its deleter called exactly once, and the refused cases.
 */
#include <dlpack/dlpack.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/tensor.h"
#include "nt_test.h"
#include "ntensor/dlpack_versioned.h"

static char path[64];

static nt_tensor *arange_as(int64_t n, nt_dtype dtype) {
    nt_tensor *a = NULL, *b = NULL;
    EXPECT_OK(nt_arange(nt_scalar_int(0), nt_scalar_int(n), nt_scalar_int(1), NT_INT64, &a));
    EXPECT_OK(nt_to_dtype(a, dtype, &b));
    nt_tensor_release(a);
    return b;
}

static bool same_values(nt_tensor *a, nt_tensor *b) {
    bool eq = false;
    return nt_equal(a, b, &eq) == NT_OK && eq;
}

/* ------------------------------------------------------------------ safetensors */

static void test_save_load_round_trip_keeps_values_dtypes_shapes_names(void) {
    nt_tensor *x = arange_as(6, NT_FLOAT32), *xv = NULL, *xt = NULL;
    int64_t s23[2] = {2, 3};
    EXPECT_OK(nt_view(x, 2, s23, &xv));
    EXPECT_OK(nt_t(xv, &xt)); /* not contiguous: saved in its logical order */
    nt_name names[2] = {N("C"), NT_NAME_NONE};
    EXPECT_OK(nt_set_names_(xt, names));
    nt_tensor *b = arange_as(5, NT_BOOL), *h = arange_as(4, NT_BFLOAT16),
              *i = arange_as(3, NT_INT16);
    nt_tensor *s = NULL, *e = NULL;
    EXPECT_OK(nt_full(0, NULL, nt_scalar_float(2.5), NT_FLOAT64, NULL, &s));
    int64_t z[2] = {0, 4};
    EXPECT_OK(nt_empty(2, z, NT_UINT8, NULL, &e));
    const char *keys[6] = {"xt", "b", "h", "i", "s", "e"};
    nt_tensor *ts[6] = {xt, b, h, i, s, e};
    EXPECT_OK(nt_save(path, 6, keys, ts));

    int64_t n = 0;
    char **k = NULL;
    nt_tensor **got = NULL;
    EXPECT_OK(nt_load(path, &n, &k, &got));
    EXPECT(n == 6 && k != NULL);
    for (int j = 0; k && j < 6 && j < n; j++) {
        EXPECT(!strcmp(k[j], keys[j]));
        EXPECT(nt_tensor_dtype(got[j]) == nt_tensor_dtype(ts[j]));
        EXPECT(nt_tensor_ndim(got[j]) == nt_tensor_ndim(ts[j]));
        EXPECT(nt_tensor_is_contiguous(got[j]));
        EXPECT(same_values(got[j], ts[j]));
    }
    if (n == 6) {
        const nt_name *gn = nt_tensor_names(got[0]);
        EXPECT(gn && gn[0] == N("C") && gn[1] == NT_NAME_NONE);
        EXPECT(nt_tensor_names(got[1]) == NULL);
        EXPECT(nt_tensor_sizes(got[5])[0] == 0 && nt_tensor_sizes(got[5])[1] == 4);
    }
    nt_load_free(n, k, got);
    for (int j = 0; j < 6; j++)
        nt_tensor_release(ts[j]);
    nt_tensor_release(x);
    nt_tensor_release(xv);
}

static void test_one_tensor_saved_without_key_loads_without_keys(void) {
    nt_tensor *x = arange_as(3, NT_INT64);
    EXPECT_OK(nt_save(path, 1, NULL, &x));
    int64_t n = 0;
    char **k = (char **)1;
    nt_tensor **got = NULL;
    EXPECT_OK(nt_load(path, &n, &k, &got));
    EXPECT(n == 1 && k == NULL && got && same_values(got[0], x));
    nt_load_free(n, k, got);
    nt_tensor_release(x);
}

static void test_save_refuses_bad_arguments(void) {
    nt_tensor *x = arange_as(3, NT_INT64);
    nt_tensor *two[2] = {x, x};
    const char *dup[2] = {"a", "a"}, *meta[1] = {"__metadata__"};
    EXPECT_ERR(nt_save(path, 2, dup, two), NT_ERR_VALUE, "the key 'a' is given twice");
    EXPECT_ERR(nt_save(path, 1, meta, two), NT_ERR_VALUE, "reserved");
    EXPECT_ERR(nt_save(path, 2, NULL, two), NT_ERR_VALUE, "keys may be NULL only");
    EXPECT_ERR(nt_save("/nonexistent/dir/x", 1, NULL, two), NT_ERR_RUNTIME, "cannot open");
    nt_tensor_release(x);
}

/* A file made byte by byte from the format's description, as another writer would. */
static void test_loads_a_file_written_from_the_specification(void) {
    const char header[] =
        "{\"w\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[0,4]},"
        "\"__metadata__\":{\"format\":\"pt\",\"ntensor.names.w\":\"[\\\"N\\\"]\"}}";
    size_t hl = sizeof header - 1;
    unsigned char buf[256] = {0};
    for (int j = 0; j < 8; j++)
        buf[j] = (unsigned char)((uint64_t)hl >> (8 * j));
    memcpy(buf + 8, header, hl);
    unsigned char data[4] = {0x01, 0x00, 0xff, 0xff}; /* 1, -1 little-endian */
    memcpy(buf + 8 + hl, data, 4);
    int64_t n = 0;
    char **k = NULL;
    nt_tensor **got = NULL;
    EXPECT_OK(nt_load_buffer(buf, 8 + hl + 4, &n, &k, &got));
    EXPECT(n == 1 && k && !strcmp(k[0], "w"));
    if (n == 1) {
        const int16_t *v = nt_tensor_data(got[0]);
        EXPECT(nt_tensor_dtype(got[0]) == NT_INT16 && v[0] == 1 && v[1] == -1);
        EXPECT(nt_tensor_names(got[0]) && nt_tensor_names(got[0])[0] == N("N"));
    }
    nt_load_free(n, k, got);
}

/* Loads `header` followed by `data_len` zero bytes, expecting a refusal naming `text`. */
static void expect_refused(const char *header, size_t data_len, const char *text) {
    size_t hl = strlen(header);
    unsigned char *buf = calloc(1, 8 + hl + data_len);
    for (int j = 0; j < 8; j++)
        buf[j] = (unsigned char)((uint64_t)hl >> (8 * j));
    memcpy(buf + 8, header, hl);
    int64_t n = 0;
    char **k = NULL;
    nt_tensor **got = NULL;
    EXPECT_ERR(nt_load_buffer(buf, 8 + hl + data_len, &n, &k, &got), NT_ERR_VALUE, text);
    if (strstr(nt_last_error(), text) == NULL) fprintf(stderr, "    for header %s\n", header);
    free(buf);
}

static void test_load_refuses_hostile_files(void) {
    int64_t n = 0;
    char **k = NULL;
    nt_tensor **got = NULL;
    unsigned char shortfile[4] = {0};
    EXPECT_ERR(nt_load_buffer(shortfile, 4, &n, &k, &got), NT_ERR_VALUE, "fewer than the 8");
    unsigned char huge[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '{', '}'};
    EXPECT_ERR(nt_load_buffer(huge, 16, &n, &k, &got), NT_ERR_VALUE, "does not fit");
    expect_refused("[1, 2]", 0, "not a JSON object");
    expect_refused("{\"a\": ", 0, "not a JSON object");
    expect_refused("{} x", 0, "bytes follow its JSON header");
    expect_refused("{\"a\": 1}", 0, "is not an object");
    expect_refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1]}}", 4, "needs a string");
    expect_refused("{\"a\": {\"dtype\": \"C64\", \"shape\": [1], \"data_offsets\": [0, 8]}}", 8,
                   "has dtype \"C64\"");
    expect_refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}", 4,
                   "other than a size");
    expect_refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1.5], \"data_offsets\": [0, 4]}}", 4,
                   "other than a size");
    expect_refused("{\"a\": {\"dtype\": \"F64\", \"shape\": [4294967296, 4294967296], "
                   "\"data_offsets\": [0, 8]}}",
                   8, "overflows");
    expect_refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0]}}", 4,
                   "not two offsets");
    expect_refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 0]}}", 4,
                   "outside the file");
    expect_refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 8]}}", 4,
                   "outside the file");
    expect_refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 4]}}", 4,
                   "need 8");
    expect_refused("{\"a\": {\"dtype\": \"U8\", \"shape\": [2], \"data_offsets\": [0, 2]},"
                   "\"b\": {\"dtype\": \"U8\", \"shape\": [2], \"data_offsets\": [1, 3]}}",
                   3, "overlaps");
    expect_refused("{\"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [1, 2]}}", 2,
                   "a gap opens");
    expect_refused("{\"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [0, 1]}}", 2,
                   "bytes of data follow");
    expect_refused("{\"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [0, 1]},"
                   "\"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [1, 2]}}",
                   2, "appears twice");
    const char *entry = "\"a\": {\"dtype\": \"U8\", \"shape\": [1, 1], \"data_offsets\": [0, 1]}";
    char header[512];
    const char *bad_meta[][2] = {
        {"\"__metadata__\": []", "__metadata__ is not an object"},
        {"\"__metadata__\": {\"x\": 1}", "is not a string"},
        {"\"__metadata__\": {\"ntensor.names.b\": \"[]\"}", "which the file does not hold"},
        {"\"__metadata__\": {\"ntensor.names.a\": \"[\\\"N\\\"]\"}", "not a JSON list of 2"},
        {"\"__metadata__\": {\"ntensor.names.a\": \"{\"}", "not a JSON list of 2"},
        {"\"__metadata__\": {\"ntensor.names.a\": \"[\\\"N\\\", 3]\"}", "other than a name"},
        {"\"__metadata__\": {\"ntensor.names.a\": \"[\\\"N\\\", \\\"N\\\"]\"}", "duplicate"},
        {"\"__metadata__\": {\"ntensor.names.a\": \"[\\\"_x\\\", null]\"}", "_x"},
        {"\"__metadata__\": {\"ntensor.object\": \"dict\"}", "must be \"tensor\""},
    };
    for (size_t j = 0; j < sizeof bad_meta / sizeof bad_meta[0]; j++) {
        snprintf(header, sizeof header, "{%s, %s}", entry, bad_meta[j][0]);
        expect_refused(header, 1, bad_meta[j][1]);
    }
    EXPECT_ERR(nt_load("/nonexistent/file", &n, &k, &got), NT_ERR_RUNTIME, "cannot open");
}

static void test_load_makes_bool_bytes_zero_or_one(void) {
    const char header[] = "{\"b\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[0,3]}}";
    size_t hl = sizeof header - 1;
    unsigned char buf[128] = {0};
    for (int j = 0; j < 8; j++)
        buf[j] = (unsigned char)((uint64_t)hl >> (8 * j));
    memcpy(buf + 8, header, hl);
    buf[8 + hl] = 0, buf[8 + hl + 1] = 7, buf[8 + hl + 2] = 1;
    int64_t n = 0;
    char **k = NULL;
    nt_tensor **got = NULL;
    EXPECT_OK(nt_load_buffer(buf, 8 + hl + 3, &n, &k, &got));
    if (n == 1) {
        const unsigned char *v = nt_tensor_data(got[0]);
        EXPECT(v[0] == 0 && v[1] == 1 && v[2] == 1);
    }
    nt_load_free(n, k, got);
}

static void test_no_tensors_and_not_a_file(void) {
    EXPECT_OK(nt_save(path, 0, (const char *const[]){NULL}, NULL));
    int64_t n = -1;
    char **k = NULL;
    nt_tensor **got = NULL;
    EXPECT_OK(nt_load(path, &n, &k, &got));
    EXPECT(n == 0 && k != NULL);
    nt_load_free(n, k, got);
    EXPECT_ERR(nt_load("/tmp", &n, &k, &got), NT_ERR_RUNTIME, "not a regular file");
    EXPECT_ERR(nt_load(path, NULL, &k, &got), NT_ERR_VALUE, "output pointer is NULL");
}

/* ------------------------------------------------------------------ DLPack */

static int deleted;
static void count_deleter(DLManagedTensor *m) {
    deleted++;
}

static void test_dlpack_round_trip_shares_memory_and_deletes_once(void) {
    nt_tensor *x = arange_as(6, NT_FLOAT32), *xv = NULL, *xt = NULL, *back = NULL;
    int64_t s23[2] = {2, 3};
    EXPECT_OK(nt_view(x, 2, s23, &xv));
    EXPECT_OK(nt_t(xv, &xt));
    DLManagedTensor *m = NULL;
    EXPECT_OK(nt_to_dlpack(xt, &m));
    EXPECT(m && m->dl_tensor.ndim == 2 && m->dl_tensor.shape[0] == 3 &&
           m->dl_tensor.strides[0] == 1 && m->dl_tensor.strides[1] == 3 &&
           m->dl_tensor.dtype.code == kDLFloat && m->dl_tensor.dtype.bits == 32 &&
           m->dl_tensor.device.device_type == kDLCPU && m->dl_tensor.data == nt_tensor_data(xt));
    EXPECT_OK(nt_from_dlpack(m, &back));
    EXPECT(back && nt_tensor_data(back) == nt_tensor_data(xt) && nt_tensor_strides(back)[1] == 3);
    nt_tensor_release(xt);
    nt_tensor_release(xv);
    nt_tensor_release(x);
    EXPECT(nt_tensor_dtype(back) == NT_FLOAT32 && ((float *)nt_tensor_data(back))[1] == 1.0f);
    nt_tensor_release(back); /* frees the export through its deleter (ASan checks) */
}

static void test_from_dlpack_checks_and_owns_the_tensor(void) {
    float data[8] = {0};
    int64_t shape[1] = {4}, neg[1] = {-1};
    DLManagedTensor m = {.dl_tensor = {.data = data,
                                       .device = {kDLCPU, 0},
                                       .ndim = 1,
                                       .dtype = {kDLFloat, 32, 1},
                                       .shape = shape,
                                       .strides = NULL,
                                       .byte_offset = 4},
                         .deleter = count_deleter};
    nt_tensor *t = NULL;
    deleted = 0;
    m.dl_tensor.device.device_type = kDLCUDA;
    EXPECT_ERR(nt_from_dlpack(&m, &t), NT_ERR_RUNTIME, "on kDLCUDA");
    m.dl_tensor.device.device_type = kDLCPU;
    m.dl_tensor.dtype = (DLDataType){kDLUInt, 16, 1};
    EXPECT_ERR(nt_from_dlpack(&m, &t), NT_ERR_RUNTIME, "unsupported dtype (code 1, 16 bits");
    m.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 4};
    EXPECT_ERR(nt_from_dlpack(&m, &t), NT_ERR_RUNTIME, "4 lanes");
    m.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 1};
    m.dl_tensor.strides = neg;
    EXPECT_ERR(nt_from_dlpack(&m, &t), NT_ERR_VALUE, "negative strides are not supported");
    m.dl_tensor.strides = NULL;
    m.dl_tensor.ndim = 65;
    EXPECT_ERR(nt_from_dlpack(&m, &t), NT_ERR_RUNTIME, "65 dims");
    m.dl_tensor.ndim = 1;
    m.dl_tensor.byte_offset = 2;
    EXPECT_ERR(nt_from_dlpack(&m, &t), NT_ERR_VALUE, "not aligned");
    EXPECT(deleted == 0); /* refused: still the caller's */
    m.dl_tensor.byte_offset = 4;
    EXPECT_OK(nt_from_dlpack(&m, &t));
    EXPECT(t && nt_tensor_data(t) == (void *)(data + 1) && nt_tensor_sizes(t)[0] == 4);
    nt_tensor *v = NULL;
    EXPECT_OK(nt_select(t, 0, 1, &v));
    nt_tensor_release(t);
    EXPECT(deleted == 0); /* a view still holds the memory */
    nt_tensor_release(v);
    EXPECT(deleted == 1);
}

/* DLPack 1.x's versioned struct: version 1.0, the copied flag as asked, a round trip that
 * shares memory; a read-only tensor and a major version other than 1 refused (left to the
 * caller, who deletes them). */
static void test_dlpack_versioned(void) {
    nt_tensor *x = arange_as(6, NT_FLOAT64), *back = NULL;
    nt_dlpack_versioned *m = NULL;
    EXPECT_OK(nt_to_dlpack_versioned(x, true, &m));
    EXPECT(m && m->version.major == 1 && m->version.minor == 0 &&
           m->flags == NT_DLPACK_FLAG_IS_COPIED && m->dl_tensor.ndim == 1 &&
           m->dl_tensor.shape[0] == 6 && m->dl_tensor.dtype.bits == 64 &&
           m->dl_tensor.data == nt_tensor_data(x));
    EXPECT_OK(nt_from_dlpack_versioned(m, &back));
    EXPECT(back && nt_tensor_data(back) == nt_tensor_data(x) && same_values(back, x));
    nt_tensor_release(back);
    EXPECT_OK(nt_to_dlpack_versioned(x, false, &m));
    EXPECT(m->flags == 0);
    m->flags |= NT_DLPACK_FLAG_READ_ONLY;
    EXPECT_ERR(nt_from_dlpack_versioned(m, &back), NT_ERR_RUNTIME, "read-only");
    m->flags = 0;
    m->version.major = 2;
    EXPECT_ERR(nt_from_dlpack_versioned(m, &back), NT_ERR_RUNTIME, "version 2.0");
    m->deleter(m);
    EXPECT_ERR(nt_from_dlpack_versioned(NULL, &back), NT_ERR_VALUE, "NULL");
    nt_tensor_release(x);
}

static void test_to_dlpack_refuses_bool_and_requires_grad(void) {
    nt_tensor *b = arange_as(2, NT_BOOL), *f = arange_as(2, NT_FLOAT32);
    DLManagedTensor *m = NULL;
    EXPECT_FAIL(nt_to_dlpack(b, &m), NT_ERR_RUNTIME, "Bool type is not supported by dlpack");
    EXPECT_OK(nt_set_requires_grad(f, true));
    EXPECT_FAIL(nt_to_dlpack(f, &m), NT_ERR_RUNTIME,
                "Can't export tensors that require gradient, use tensor.detach()");
    nt_tensor_release(b);
    nt_tensor_release(f);
}

int main(void) {
    snprintf(path, sizeof path, "/tmp/nt_test_io_%d.safetensors", (int)getpid());
    NT_RUN(test_save_load_round_trip_keeps_values_dtypes_shapes_names);
    NT_RUN(test_one_tensor_saved_without_key_loads_without_keys);
    NT_RUN(test_save_refuses_bad_arguments);
    NT_RUN(test_loads_a_file_written_from_the_specification);
    NT_RUN(test_load_refuses_hostile_files);
    NT_RUN(test_load_makes_bool_bytes_zero_or_one);
    NT_RUN(test_no_tensors_and_not_a_file);
    NT_RUN(test_dlpack_round_trip_shares_memory_and_deletes_once);
    NT_RUN(test_from_dlpack_checks_and_owns_the_tensor);
    NT_RUN(test_to_dlpack_refuses_bool_and_requires_grad);
    NT_RUN(test_dlpack_versioned);
    unlink(path);
    return nt_test_summary();
}
