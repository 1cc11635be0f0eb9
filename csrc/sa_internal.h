/* Private helpers for the C core: standard includes, the public descriptor, and the
 * X-macro list of element types that kernels are instantiated over. */
#ifndef SA_INTERNAL_H
#define SA_INTERNAL_H

#include <assert.h>
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sa_array.h"
#include "sa_alloc.h"

typedef float _Complex sa_c64;
typedef double _Complex sa_c128;

/* X(code, ctype, suffix) for every dtype. A kernel written once as a macro taking
 * (code, ctype, suffix) is instantiated for all of them with SA_FOR_EACH_DTYPE(KERNEL). */
#define SA_FOR_EACH_REAL_DTYPE(X)                                                          \
    X(SA_BOOL, uint8_t, bool)                                                              \
    X(SA_INT8, int8_t, i8)                                                                 \
    X(SA_INT16, int16_t, i16)                                                              \
    X(SA_INT32, int32_t, i32)                                                              \
    X(SA_INT64, int64_t, i64)                                                              \
    X(SA_UINT8, uint8_t, u8)                                                               \
    X(SA_UINT16, uint16_t, u16)                                                            \
    X(SA_UINT32, uint32_t, u32)                                                            \
    X(SA_UINT64, uint64_t, u64)                                                            \
    X(SA_FLOAT32, float, f32)                                                              \
    X(SA_FLOAT64, double, f64)

#define SA_FOR_EACH_COMPLEX_DTYPE(X)                                                       \
    X(SA_COMPLEX64, sa_c64, c64)                                                           \
    X(SA_COMPLEX128, sa_c128, c128)

#define SA_FOR_EACH_DTYPE(X) SA_FOR_EACH_REAL_DTYPE(X) SA_FOR_EACH_COMPLEX_DTYPE(X)

/* Every heap block of the C core: 64-byte aligned, counted per category (SA_ALLOC_PACK or
 * SA_ALLOC_SCRATCH, see sa_alloc.h), NULL on failure or injected failure. sa_free(NULL) is a
 * no-op. Kernels must handle NULL: fail cleanly, free what they hold, report the error. */
void *sa_alloc(int category, size_t bytes);
void sa_free(void *p);

/* Debug builds (NDEBUG undefined) check every offset a kernel is about to touch. */
#define SA_ASSERT_IN_BUFFER(arr, off) assert((off) >= 0 && (off) < (arr)->nbuf)

/* Smallest and largest element offset reachable through a descriptor (size > 0). */
static inline void sa_offset_range(const sa_array *a, int64_t *lo, int64_t *hi)
{
    int64_t l = a->origin, h = a->origin;
    for (int k = 0; k < a->ndim; ++k) {
        int64_t span = (a->shape[k] - 1) * a->strides[k];
        if (span < 0) l += span; else h += span;
    }
    *lo = l;
    *hi = h;
}

#endif
