/*
 * gather_kernels.h — the rows of gather, scatter, index_select, index_add and take_along_dim
 * (layer L3), for ops/gather.c.
 *
 * The op walks its index tensor's shape in rows; a row is n elements of three operands at
 * byte steps: p[0] the tensor written, p[1] the tensor read, p[2] the int64 index. One side
 * is "indexed": the element k of the row is at p[side] + k * step[side] + idx[k] * jump
 * there (jump: that tensor's byte stride along the op's dim). Gathers index the read side,
 * scatters the written one. Indices are checked before any row runs, so kernels never fail
 * and never allocate.
 */
#ifndef NT_KERNELS_GATHER_KERNELS_H
#define NT_KERNELS_GATHER_KERNELS_H

#include <stdint.h>

#include "core/dtype.h"

/* What a scatter does with the element it reaches. */
typedef enum nt_scatter_mode {
    NT_SCATTER_SET,
    NT_SCATTER_ADD,
    NT_SCATTER_MUL,
    NT_SCATTER_MODE_COUNT
} nt_scatter_mode;

typedef struct nt_gather_row {
    char *p[3];
    int64_t step[3]; /* bytes */
    int64_t n;
    int64_t jump; /* bytes per index unit on the indexed side */
} nt_gather_row;

typedef void (*nt_gather_row_fn)(const nt_gather_row *r);

/* out[k] = in[k + idx[k] * jump] (elements of `esize` bytes); never NULL for 1, 2, 4, 8. */
nt_gather_row_fn nt_gather_kernel(size_t esize);
/* out[k + idx[k] * jump] (=, +=, *=) in[k], in dtype `dtype`; NULL where the dtype has no
 * such kernel. */
nt_gather_row_fn nt_scatter_kernel(nt_scatter_mode mode, nt_dtype dtype);

#endif
