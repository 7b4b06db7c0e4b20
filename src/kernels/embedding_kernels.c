/*
 * embedding_kernels.c — row copies and row sums of embedding (embedding_kernels.h).
 */
#include "embedding_kernels.h"

#include <string.h>

void nt_embedding_gather(char *out, const char *table, size_t row_bytes, const void *idx,
                         bool idx64, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; i++)
        memcpy(out + (size_t)i * row_bytes,
               table + (size_t)nt_embedding_index(idx, idx64, i) * row_bytes, row_bytes);
}

#define BACKWARD_ROWS(T)                                                                           \
    do {                                                                                           \
        T *o = out;                                                                                \
        const T *g = grad;                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const int64_t k = nt_embedding_index(idx, idx64, i);                                   \
            if (k == padding_idx) continue;                                                        \
            T *dst = o + k * d;                                                                    \
            const T *src = g + i * d;                                                              \
            if (count) {                                                                           \
                const T scale = (T)1 / (T)count[k];                                                \
                for (int64_t j = 0; j < d; j++)                                                    \
                    dst[j] += src[j] * scale;                                                      \
            } else {                                                                               \
                for (int64_t j = 0; j < d; j++)                                                    \
                    dst[j] += src[j];                                                              \
            }                                                                                      \
        }                                                                                          \
    } while (0)

void nt_embedding_backward_rows(void *out, const void *grad, const void *idx, bool idx64, int64_t n,
                                int64_t d, int64_t padding_idx, const int64_t *count, bool f64) {
    if (f64)
        BACKWARD_ROWS(double);
    else
        BACKWARD_ROWS(float);
}
