/*
 * fuzz_load.c — libFuzzer harness for the safetensors loader (src/io/safetensors.c).
 *
 * The input is the whole file: nt_load_buffer reads it as a hostile file would be read. A
 * refusal must come with NT_ERR_VALUE (or NT_ERR_MEMORY) and a message, and leave nothing
 * behind (LeakSanitizer). An accepted file must give tensors that keep the loader's promises:
 * contiguous, their bytes inside what the file holds, BOOL bytes 0 or 1, names unique; every
 * byte of every tensor is read (AddressSanitizer checks the bounds), and each tensor that
 * DLPack can carry makes the round trip nt_to_dlpack -> nt_from_dlpack onto the same memory.
 */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntensor.h"

static void fail(const char *what) {
    fprintf(stderr, "fuzz_load: broken promise: %s (last error: %s)\n", what, nt_last_error());
    abort();
}

/* The promises an accepted tensor keeps. */
static void check_tensor(nt_tensor *t, size_t file_size) {
    int ndim = nt_tensor_ndim(t);
    nt_dtype dtype = nt_tensor_dtype(t);
    if (ndim < 0 || ndim > NT_MAX_DIMS) fail("ndim out of range");
    if (!nt_tensor_is_contiguous(t)) fail("a loaded tensor is not contiguous");
    size_t nbytes = (size_t)nt_tensor_numel(t) * nt_dtype_size(dtype);
    if (nbytes > file_size) fail("a tensor holds more bytes than the file");
    const unsigned char *p = nt_tensor_data(t);
    unsigned sum = 0;
    for (size_t i = 0; i < nbytes; i++) {
        sum += p[i];
        if (dtype == NT_BOOL && p[i] > 1) fail("a BOOL byte other than 0 or 1");
    }
    (void)sum;
    const nt_name *names = nt_tensor_names(t);
    for (int i = 0; names && i < ndim; i++) {
        if (names[i] != NT_NAME_NONE && !nt_name_str(names[i])) fail("an unknown name");
        for (int j = i + 1; j < ndim; j++)
            if (names[i] != NT_NAME_NONE && names[i] == names[j]) fail("a name twice");
    }
    struct DLManagedTensor *m = NULL;
    nt_status st = nt_to_dlpack(t, &m);
    if (dtype == NT_BOOL) {
        if (st == NT_OK) fail("a bool tensor exported through DLPack");
        return;
    }
    if (st != NT_OK) fail("nt_to_dlpack refused a loaded tensor");
    nt_tensor *back = NULL;
    if (nt_from_dlpack(m, &back) != NT_OK) {
        m->deleter(m);
        fail("nt_from_dlpack refused what nt_to_dlpack made");
    }
    if (nt_tensor_numel(back) != nt_tensor_numel(t) ||
        (nbytes && nt_tensor_data(back) != nt_tensor_data(t)))
        fail("the DLPack round trip changed the tensor");
    nt_tensor_release(back);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    int64_t n = -1;
    char **keys = NULL;
    nt_tensor **tensors = NULL;
    nt_status st = nt_load_buffer(data, size, &n, &keys, &tensors);
    if (st != NT_OK) {
        if (st != NT_ERR_VALUE && st != NT_ERR_MEMORY && st != NT_ERR_RUNTIME)
            fail("an unexpected status");
        if (!nt_last_error()[0]) fail("a refusal without a message");
        if (tensors || keys) fail("a refusal that handed out results");
        return 0;
    }
    if (n < 0 || (n > 0 && !tensors)) fail("a bad count");
    for (int64_t i = 0; i < n; i++) {
        if (!tensors[i]) fail("a NULL tensor");
        if (keys && !keys[i]) fail("a NULL key");
        check_tensor(tensors[i], size);
    }
    if (!keys && n != 1) fail("no keys for a file that is not one tensor");
    nt_load_free(n, keys, tensors);
    return 0;
}
