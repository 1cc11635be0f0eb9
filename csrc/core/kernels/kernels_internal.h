/* Internal kernel interface between the matmul dispatcher and the generic (non-BLAS)
 * strided matmul kernels. Not read by cffi: it may use include guards and macros. */
#ifndef SA_KERNELS_INTERNAL_H
#define SA_KERNELS_INTERNAL_H

#include "base/array_internal.h"

/* One contraction geometry, element strides, all signed.
 *
 * K may be two strided axes (a split K, from sa_matmul_ksplit): with 0 < K2 < K (K2 dividing
 * K), k = k1*K2 + k2 and A(i,k) = a[i*a_row + k1*a_outer + k2*a_inner], B(k,j) likewise with
 * b_outer and b_inner. K2 == 0 (what an initializer that stops at c_col leaves) or K2 == K:
 * K is one axis and the outer strides are not read. */
typedef struct {
    int64_t M, N, K;
    int64_t a_row, a_inner;   /* A(i,k) = a[i*a_row + k*a_inner] */
    int64_t b_inner, b_col;   /* B(k,j) = b[k*b_inner + j*b_col] */
    int64_t c_row, c_col;     /* C(i,j) = c[i*c_row + j*c_col]   */
    int64_t K2, a_outer, b_outer; /* the split K, see above */
} sa_contraction;

/* Is K two axes in g? (K2 == 0 or K2 == K: one axis.) */
static inline int sa_k_split(const sa_contraction *g)
{
    return g->K2 > 0 && g->K2 < g->K;
}

/* count contractions; item t uses matrices at element offsets a_off[t], b_off[t], c_off[t] from
 * the base pointers a, b, c (all three have the same dtype). K == 0 writes zeros; M, N or count 0
 * do nothing. Returns 0, -1 for an unsupported dtype (bool), -2 if scratch allocation failed, -3
 * if the scratch size does not fit int64_t (zero-stride operands can have any extent). */
int sa_generic_matmul(int dtype, const sa_contraction *g, int64_t count,
                      const char *a, const int64_t *a_off,
                      const char *b, const int64_t *b_off,
                      char *c, const int64_t *c_off);

/* The same on up to `nthreads` threads (kernels/generic.c says how the work is split; the
 * result is the same bit for bit as on one thread). */
int sa_generic_matmul_threads(int nthreads, int dtype, const sa_contraction *g, int64_t count,
                              const char *a, const int64_t *a_off,
                              const char *b, const int64_t *b_off,
                              char *c, const int64_t *c_off);

/* The reference kernel (kernels/reference.c): plain loops, every numeric dtype; the semantic
 * baseline. */
int sa_generic_matmul_ref(int dtype, const sa_contraction *g, int64_t count,
                          const char *a, const int64_t *a_off,
                          const char *b, const int64_t *b_off,
                          char *c, const int64_t *c_off);

#endif
