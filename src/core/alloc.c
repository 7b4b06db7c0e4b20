/*
 * alloc.c — aligned allocation of tensor data.
 */
#include "alloc.h"

#include <stdlib.h>

void *nt_alloc_data(size_t nbytes) {
    size_t rounded = (nbytes + NT_ALIGNMENT - 1) & ~(size_t)(NT_ALIGNMENT - 1);
    if (rounded < nbytes) return NULL; /* overflow */
    if (rounded == 0) rounded = NT_ALIGNMENT;
    return aligned_alloc(NT_ALIGNMENT, rounded);
}

void nt_free_data(void *p, size_t nbytes) {
    (void)nbytes;
    free(p);
}
