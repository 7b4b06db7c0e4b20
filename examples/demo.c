/*
 * demo.c — a tour of ntensor's C API: named factories, printing, rename, refine_names,
 * align_to, flatten/unflatten and views, with errors handled as values.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ntensor.h"

/* Prints a tensor with a label; exits on failure (a demo, not a library). */
static void show(const char *label, const nt_tensor *t) {
    char *text = NULL;
    if (nt_format(t, &text) != NT_OK) {
        fprintf(stderr, "format failed: %s\n", nt_last_error());
        exit(1);
    }
    printf("%s\n%s\n\n", label, text);
    nt_free(text);
}

static void check(nt_status st) {
    if (st != NT_OK) {
        fprintf(stderr, "error: %s\n", nt_last_error());
        exit(1);
    }
}

static nt_name name(const char *text) {
    nt_name n;
    check(nt_name_intern(text, &n));
    return n;
}

int main(void) {
    nt_name N = name("N"), C = name("C"), H = name("H"), W = name("W");

    /* torch.zeros(2, 3, names=('N', 'C')) */
    int64_t sizes2[2] = {2, 3};
    nt_name nc[2] = {N, C};
    nt_tensor *zeros;
    check(nt_zeros(2, sizes2, NT_FLOAT32, nc, &zeros));
    show("zeros(2, 3, names=('N', 'C')):", zeros);

    /* imgs = torch.arange(24.).reshape(1, 2, 3, 4).refine_names('N', 'C', 'H', 'W') */
    nt_tensor *flat, *imgs4, *imgs;
    check(
        nt_arange(nt_scalar_float(0), nt_scalar_float(24), nt_scalar_float(1), NT_FLOAT32, &flat));
    int64_t sizes4[4] = {1, 2, 3, 4};
    check(nt_reshape(flat, 4, sizes4, &imgs4));
    nt_name nchw[4] = {N, C, H, W};
    check(nt_refine_names(imgs4, 4, nchw, -1, &imgs));
    show("imgs:", imgs);

    /* imgs.rename(H='height', W='width') */
    nt_name from[2] = {H, W}, to[2] = {name("height"), name("width")};
    nt_tensor *renamed;
    check(nt_rename_map(imgs, 2, from, to, &renamed));
    show("imgs.rename(H='height', W='width'):", renamed);

    /* imgs.align_to('W', ...) */
    nt_tensor *aligned;
    nt_name w_first[2] = {W, NT_NAME_NONE};
    check(nt_align_to(imgs, 2, w_first, 1, &aligned));
    show("imgs.align_to('W', ...):", aligned);

    /* imgs.flatten(['C', 'H', 'W'], 'features') and back with unflatten */
    nt_tensor *flattened, *unflattened;
    nt_name chw[3] = {C, H, W};
    check(nt_flatten_names(imgs, 3, chw, name("features"), &flattened));
    show("imgs.flatten(['C', 'H', 'W'], 'features'):", flattened);
    int64_t parts[3] = {2, 3, -1};
    check(nt_unflatten(flattened, 1, 3, parts, chw, &unflattened));
    show("unflatten('features', (('C', 2), ('H', 3), ('W', -1))):", unflattened);

    /* Errors are values: refining 'W' to 'width' fails with PyTorch's message. */
    nt_name wrong[4] = {N, C, H, name("width")};
    nt_tensor *never = NULL;
    if (nt_refine_names(imgs, 4, wrong, -1, &never) != NT_OK)
        printf("refine_names('N', 'C', 'H', 'width') failed as expected:\n  %s\n", nt_last_error());

    nt_tensor *all[] = {zeros, flat, imgs4, imgs, renamed, aligned, flattened, unflattened};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        nt_tensor_release(all[i]);
    return 0;
}
