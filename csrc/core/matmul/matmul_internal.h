/* Internal interfaces between the matmul planner, dispatcher and BLAS executor.
 * Not read by cffi. */
#ifndef SA_MATMUL_INTERNAL_H
#define SA_MATMUL_INTERNAL_H

#include "base/array_internal.h"
#include "kernels/kernels_internal.h"
#include "api/matmul.h"
#include "runtime/fork_guard_internal.h"

/* A plan: the facts the selector reads (in `f`, the same record explain returns) plus the
 * base pointers of the planned operands. Element offsets are from the base pointers and
 * include each operand's origin. */
typedef struct {
    sa_mm_explain f;
    const char *lhs, *rhs;
    char *out;
    int64_t lhs_origin, rhs_origin;
    int64_t lhs_nbuf, rhs_nbuf, out_nbuf; /* element counts, for debug bounds asserts */
    int lhs_vec, rhs_vec;
} mm_plan;

/* Build the plan for lhs @ rhs writing C-contiguous `out` (may be NULL when planning only).
 * Only shapes, strides and dtypes are read. Returns SA_MM_OK or SA_MM_ERR_*. */
int mm_plan_make(const sa_array *lhs, const sa_array *rhs, int out_dtype, char *out,
                 mm_plan *p);

/* Plan cache (per thread): a plan depends only on the operands' ranks, shapes, strides and
 * dtypes, the output dtype and the policy, so a repeated product reuses it with the new
 * base pointers. mm_plan_cache_get returns the cached plan with lhs/rhs/out and the
 * origins set (and the route selected for it), or NULL; mm_plan_cache_put remembers a plan
 * whose route runs on the operands as they are. Operands of rank <= MM_CACHE_MAXDIM only. */
#define MM_CACHE_SLOTS 4
#define MM_CACHE_MAXDIM 4
const mm_plan *mm_plan_cache_get(const sa_array *lhs, const sa_array *rhs, int out_dtype,
                                 char *out, const sa_mm_policy *pol, int *route);
void mm_plan_cache_put(const sa_array *lhs, const sa_array *rhs, int out_dtype,
                       const sa_mm_policy *pol, const mm_plan *p, int route);

/* The batch domain with extent-1 axes dropped and chaining axes merged: writes extents and
 * the three mapped strides (outermost first), returns the number of axes left. */
int mm_batch_coalesce(const mm_plan *p, int64_t *ext, int64_t *sa_, int64_t *sb, int64_t *sc);

/* Visit the batch in chunks: fn(ctx, n, a_off, b_off, c_off) for n <= MM_CHUNK contractions
 * at a time. Stops at and returns the first non-zero return of fn. */
#define MM_CHUNK 256
typedef int (*mm_chunk_fn)(void *ctx, const mm_plan *p, int64_t n, const int64_t *a_off,
                           const int64_t *b_off, const int64_t *c_off);
int mm_for_each_chunk(const mm_plan *p, mm_chunk_fn fn, void *ctx);
/* The same over up to `threads` threads (sa_parallel): the batch in runs of whole items,
 * claimed by whichever thread is ready; fn must then run each call on one thread. Returns a
 * non-zero return of fn (the others' work still runs). */
#define MM_ITEMS_WORK ((int64_t)1 << 18)
int mm_for_each_chunk_threads(const mm_plan *p, int threads, mm_chunk_fn fn, void *ctx);

/* BLAS side. mm_blas_layout: can every operand of this plan be handed to BLAS as it is?
 * Returns SA_MM_ACCEPTED or a decline reason; sets *bad_lhs / *bad_rhs (may be NULL) for
 * the operands whose layout is the obstacle. No side effects. */
int mm_blas_dtype_ok(int dtype);
int mm_blas_layout(const mm_plan *p, int *bad_lhs, int *bad_rhs);
/* Number of BLAS calls the plan takes: one per product of the batch (0 for an empty one). */
int64_t mm_blas_calls(const mm_plan *p);
/* The parts the BLAS routes can share out over threads: the bands of each product (a
 * function of its shape, matmul/blas.c) or else the batch items. */
int64_t mm_blas_parts(const mm_plan *p);
/* Can the BLAS routes split this plan over our own threads? Only while our OpenBLAS runs
 * one thread per call, and not for DOT. */
int mm_blas_splits(const mm_plan *p);
/* Run the whole batch of a plan that mm_blas_layout accepted, on up to `threads` threads
 * (each BLAS call single-threaded). Returns 0. */
int mm_blas_execute(const mm_plan *p, int threads);

#endif
