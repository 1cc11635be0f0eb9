/* What the generic matmul kernels share: the entry-point type, the per-target tables, the
 * name-pasting macros and the scratch memory helpers.
 *
 * The kernels are compiled once per instruction-set target, each target in a translation unit
 * of its own (kernels/generic_avx512.c, kernels/generic_avx2.c, kernels/generic_base.c), so that
 * the targets build in parallel and a change to one rebuilds only that one. Each of those
 * files includes this header, defines the target macros and includes kernels/generic_target.h,
 * which defines the target's table. kernels/generic.c (geometry and the run-time choice of target)
 * reads the tables through the declarations below.
 */
#ifndef SA_GENERIC_COMMON_H
#define SA_GENERIC_COMMON_H

#include <stdlib.h>

#include "kernels/kernels_internal.h"

/* The kernels are written on GCC/Clang vector extensions (a vector type, element-wise
 * arithmetic on it, lane subscripts). A compiler without them (MSVC) gets the scalar path: the
 * same templates with a one-element "vector" that is the element type itself, so every vector
 * loop becomes a plain scalar loop, the baseline target only and no run-time choice
 * (docs/dev/platforms.md, "Platforms and ports"). -DSA_GENERIC_SCALAR forces that path on GCC or
 * Clang, which is how it is tested (tools/checks/generic-scalar-check). */
#if !defined(__GNUC__) && !defined(SA_GENERIC_SCALAR)
#define SA_GENERIC_SCALAR 1
#endif

#if (defined(__x86_64__) || defined(__i386__)) && !defined(SA_GENERIC_SCALAR)
#define SA_X86 1
#include <immintrin.h>
#endif

/* The vector type of element type T and VB bytes, and lane l of a vector v. */
#if defined(SA_GENERIC_SCALAR)
#define SA_VEC_TYPEDEF(T, VB, name) typedef T name
#define SA_VEC_NR(T, VB) ((int64_t)1)
#define SA_LANE(v, l) (v)
#else
#define SA_VEC_TYPEDEF(T, VB, name) typedef T name __attribute__((vector_size(VB)))
#define SA_VEC_NR(T, VB) ((int64_t)((VB) / (int)sizeof(T)))
#define SA_LANE(v, l) (v)[l]
#endif

/* Inlining hints; only GCC and Clang spell them this way, other compilers choose alone. */
#if defined(__GNUC__)
#define SA_ALWAYS_INLINE __attribute__((always_inline))
#define SA_NOINLINE __attribute__((noinline))
#else
#define SA_ALWAYS_INLINE
#define SA_NOINLINE
#endif

#define SA_CAT2_(a, b) a##_##b
#define SA_CAT2(a, b) SA_CAT2_(a, b)
#define SA_CAT3_(a, b, c) a##_##b##_##c
#define SA_CAT3(a, b, c) SA_CAT3_(a, b, c)

typedef int (*sa_generic_entry)(const sa_contraction *g, int64_t count, const char *a,
                                const int64_t *a_off, int64_t da, const char *b,
                                const int64_t *b_off, int64_t db, char *c, const int64_t *c_off,
                                int64_t dc, int a_shared, int b_shared);

/* One table per target, indexed by sa_dtype (bool's slot is empty). */
#if defined(SA_X86)
extern const sa_generic_entry sa_generic_table_avx512[SA_NDTYPES];
extern const sa_generic_entry sa_generic_table_avx2[SA_NDTYPES];
#endif
extern const sa_generic_entry sa_generic_table_base[SA_NDTYPES];

/* Scratch for packed panels: on the stack when small (the S = 8..16 batches that are
 * dominated by per-call cost), otherwise 64-byte aligned heap memory. */
#define SA_STACK_SCRATCH 16384
#define SA_SCRATCH(name, bytes)                                                                 \
    _Alignas(64) char name##_stack[SA_STACK_SCRATCH];                                           \
    const size_t name##_bytes = (bytes);                                                        \
    void *name = name##_bytes <= SA_STACK_SCRATCH ? (void *)name##_stack                        \
                                                  : sa_scratch_alloc(name##_bytes)
#define SA_SCRATCH_FREE(name)                                                                   \
    do {                                                                                        \
        if (name != (void *)name##_stack) sa_scratch_free(name);                               \
    } while (0)

/* Heap scratch comes from the core's allocator (base/alloc.c): 64-byte aligned, counted as
 * SA_ALLOC_SCRATCH, NULL on failure (the kernels then return -2 before touching anything). */
static inline void *sa_scratch_alloc(size_t bytes)
{
    return sa_alloc(SA_ALLOC_SCRATCH, bytes);
}

static inline void sa_scratch_free(void *p)
{
    sa_free(p);
}

/* A split K (kernels/kernels_internal.h): the element offsets in A and in B of the kc values
 * of k from pc on, k = k1*K2 + k2, counted up without a division per element. The kernels'
 * packs read k through these tables instead of a stride, so their packed panels, and the
 * tiles that read them, are the same as for one K axis. */
static inline void sa_koffsets(const sa_contraction *g, int64_t pc, int64_t kc, int64_t *koa,
                               int64_t *kob)
{
    int64_t k1 = pc / g->K2, k2 = pc % g->K2;
    int64_t oa = k1 * g->a_outer + k2 * g->a_inner, ob = k1 * g->b_outer + k2 * g->b_inner;
    for (int64_t k = 0; k < kc; ++k) {
        koa[k] = oa;
        kob[k] = ob;
        if (++k2 == g->K2) {
            k2 = 0, ++k1;
            oa = k1 * g->a_outer, ob = k1 * g->b_outer;
        } else {
            oa += g->a_inner, ob += g->b_inner;
        }
    }
}

#endif
