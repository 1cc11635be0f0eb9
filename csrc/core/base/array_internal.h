/* The descriptor's internal part (not read by cffi), which every file of the core includes:
 * standard includes, the public descriptor (api/array.h), the allocator and checked size
 * arithmetic, the X-macro list of element types that kernels are instantiated over, and the
 * descriptor's debug checks. */
#ifndef SA_ARRAY_INTERNAL_H
#define SA_ARRAY_INTERNAL_H

#include <assert.h>
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api/array.h"
#include "base/alloc_internal.h"
#include "base/checked_internal.h"

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

/* Debug builds (NDEBUG undefined) check every offset a kernel is about to touch. */
#define SA_ASSERT_IN_BUFFER(arr, off) assert((off) >= 0 && (off) < (arr)->nbuf)

/* Alignment of a dtype's element type, the C type the kernels read its elements as. */
static inline int sa_alignof(int dtype)
{
    switch (dtype) {
#define SA_ALIGN_CASE(code, ctype, sfx) case code: return (int)_Alignof(ctype);
        SA_FOR_EACH_DTYPE(SA_ALIGN_CASE)
#undef SA_ALIGN_CASE
    default: return 1;
    }
}

/* Debug builds check every descriptor where it enters the C core (sa_matmul,
 * sa_to_row_major): well formed, every reachable element in [0, nbuf) (SA_ASSERT_IN_BUFFER on
 * the lowest and highest offset), and its first element, data + origin, aligned for the dtype.
 * Python validates all of this; the asserts catch a path that skipped it. */
#ifdef NDEBUG
#define SA_ASSERT_DESCRIPTOR(arr) ((void)0)
#else
#define SA_ASSERT_DESCRIPTOR(arr) sa_assert_descriptor(arr)
static inline void sa_assert_descriptor(const sa_array *a)
{
    assert(a->dtype >= 0 && a->dtype < SA_NDTYPES);
    assert(a->ndim >= 0 && a->ndim <= SA_MAXDIM);
    assert(a->nbuf >= 0);
    int empty = 0;
    for (int k = 0; k < a->ndim; ++k) {
        assert(a->shape[k] >= 0);
        empty |= a->shape[k] == 0;
    }
    if (empty) { /* nothing is reached; an empty view's origin may be nbuf (docs/array.md) */
        assert(a->origin >= 0 && a->origin <= a->nbuf);
        return;
    }
    int64_t lo = a->origin, hi = a->origin, span;
    for (int k = 0; k < a->ndim; ++k) {
        if (a->shape[k] == 1) continue; /* its stride is never applied */
        int bad = sa_mul_size(a->shape[k] - 1, a->strides[k], &span);
        assert(!bad);
        bad = span < 0 ? sa_add_size(lo, span, &lo) : sa_add_size(hi, span, &hi);
        assert(!bad);
        (void)bad;
    }
    SA_ASSERT_IN_BUFFER(a, lo);
    SA_ASSERT_IN_BUFFER(a, hi);
    assert(((uintptr_t)a->data + (uintptr_t)a->origin * (uintptr_t)sa_itemsize(a->dtype))
               % (uintptr_t)sa_alignof(a->dtype) == 0);
}
#endif

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
