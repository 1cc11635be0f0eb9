/* The reference matmul kernel: a plain signed-stride loop, one dot product per output cell,
 * written once and instantiated per dtype. It is deliberately simple: it is the semantic
 * baseline that the optimized generic kernel and the BLAS routes are tested against (force it
 * with matmul_policy(force="reference"); docs/matmul.md, "Routes"). */
#include "kernels/kernels_internal.h"

/* The k loop, k = k1*K2 + k2 in order, with ka and kb the element offsets of A(., k) and
 * B(k, .): two nested loops, so that a split K (kernels/kernels_internal.h) is read through
 * its outer and inner strides; one axis is the outer loop run once. */
#define REF_K_LOOP(g, ka, kb)                                                              \
    for (int64_t k2n_ = sa_k_split(g) ? (g)->K2 : (g)->K, k1_ = 0,                         \
                 k1n_ = k2n_ ? (g)->K / k2n_ : 0;                                          \
         k1_ < k1n_; ++k1_)                                                                \
        for (int64_t k2_ = 0, ka = k1_ * (sa_k_split(g) ? (g)->a_outer : 0),               \
                     kb = k1_ * (sa_k_split(g) ? (g)->b_outer : 0);                        \
             k2_ < k2n_; ++k2_, ka += (g)->a_inner, kb += (g)->b_inner)

/* Integer products wrap modulo 2^bits like NumPy's: accumulate in uint64_t (well defined
 * wrap-around; the low bits of a ring sum do not depend on where one wraps) and truncate. */
#define REF_INT(code, ctype, sfx)                                                          \
    static void ref_##sfx(const sa_contraction *g, const ctype *a, const ctype *b,         \
                          ctype *c)                                                        \
    {                                                                                      \
        for (int64_t i = 0; i < g->M; ++i)                                                 \
            for (int64_t j = 0; j < g->N; ++j) {                                           \
                uint64_t acc = 0;                                                          \
                const ctype *pa = a + i * g->a_row, *pb = b + j * g->b_col;                \
                REF_K_LOOP(g, ka, kb)                                                      \
                    acc += (uint64_t)(int64_t)pa[ka] * (uint64_t)(int64_t)pb[kb];          \
                c[i * g->c_row + j * g->c_col] = (ctype)acc;                               \
            }                                                                              \
    }

#define REF_FLOAT(code, ctype, sfx)                                                        \
    static void ref_##sfx(const sa_contraction *g, const ctype *a, const ctype *b,         \
                          ctype *c)                                                        \
    {                                                                                      \
        for (int64_t i = 0; i < g->M; ++i)                                                 \
            for (int64_t j = 0; j < g->N; ++j) {                                           \
                ctype acc = 0;                                                             \
                const ctype *pa = a + i * g->a_row, *pb = b + j * g->b_col;                \
                REF_K_LOOP(g, ka, kb)                                                      \
                    acc += pa[ka] * pb[kb];                                                \
                c[i * g->c_row + j * g->c_col] = acc;                                      \
            }                                                                              \
    }

/* Complex numbers as (re, im) pairs of `rtype`, multiplied by the textbook formula: C's
 * `_Complex` product goes through Annex G's slow inf/nan recovery, which NumPy's does not. */
#define REF_COMPLEX(sfx, rtype)                                                            \
    static void ref_##sfx(const sa_contraction *g, const rtype *a, const rtype *b,         \
                          rtype *c)                                                        \
    {                                                                                      \
        for (int64_t i = 0; i < g->M; ++i)                                                 \
            for (int64_t j = 0; j < g->N; ++j) {                                           \
                rtype re = 0, im = 0;                                                      \
                const rtype *pa = a + 2 * i * g->a_row, *pb = b + 2 * j * g->b_col;        \
                REF_K_LOOP(g, ka, kb) {                                                    \
                    const rtype *x = pa + 2 * ka, *y = pb + 2 * kb;                        \
                    re += x[0] * y[0] - x[1] * y[1];                                       \
                    im += x[0] * y[1] + x[1] * y[0];                                       \
                }                                                                          \
                rtype *z = c + 2 * (i * g->c_row + j * g->c_col);                          \
                z[0] = re;                                                                 \
                z[1] = im;                                                                 \
            }                                                                              \
    }

REF_INT(SA_INT8, int8_t, i8)
REF_INT(SA_INT16, int16_t, i16)
REF_INT(SA_INT32, int32_t, i32)
REF_INT(SA_INT64, int64_t, i64)
REF_INT(SA_UINT8, uint8_t, u8)
REF_INT(SA_UINT16, uint16_t, u16)
REF_INT(SA_UINT32, uint32_t, u32)
REF_INT(SA_UINT64, uint64_t, u64)
REF_FLOAT(SA_FLOAT32, float, f32)
REF_FLOAT(SA_FLOAT64, double, f64)
REF_COMPLEX(c64, float)
REF_COMPLEX(c128, double)

int sa_generic_matmul_ref(int dtype, const sa_contraction *g, int64_t count,
                          const char *a, const int64_t *a_off,
                          const char *b, const int64_t *b_off,
                          char *c, const int64_t *c_off)
{
    switch (dtype) {
#define REF_CASE(code, ctype, sfx)                                                         \
    case code:                                                                             \
        for (int64_t t = 0; t < count; ++t)                                                \
            ref_##sfx(g, (const ctype *)a + a_off[t], (const ctype *)b + b_off[t],         \
                      (ctype *)c + c_off[t]);                                              \
        return 0;
        REF_CASE(SA_INT8, int8_t, i8)
        REF_CASE(SA_INT16, int16_t, i16)
        REF_CASE(SA_INT32, int32_t, i32)
        REF_CASE(SA_INT64, int64_t, i64)
        REF_CASE(SA_UINT8, uint8_t, u8)
        REF_CASE(SA_UINT16, uint16_t, u16)
        REF_CASE(SA_UINT32, uint32_t, u32)
        REF_CASE(SA_UINT64, uint64_t, u64)
        REF_CASE(SA_FLOAT32, float, f32)
        REF_CASE(SA_FLOAT64, double, f64)
#undef REF_CASE
    case SA_COMPLEX64:
        for (int64_t t = 0; t < count; ++t)
            ref_c64(g, (const float *)a + 2 * a_off[t], (const float *)b + 2 * b_off[t],
                    (float *)c + 2 * c_off[t]);
        return 0;
    case SA_COMPLEX128:
        for (int64_t t = 0; t < count; ++t)
            ref_c128(g, (const double *)a + 2 * a_off[t], (const double *)b + 2 * b_off[t],
                     (double *)c + 2 * c_off[t]);
        return 0;
    default:
        return -1;
    }
}
