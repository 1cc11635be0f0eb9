/* Template: instantiates the generic kernels for every numeric dtype on one target.
 *
 * Included once per target, by that target's file (kernels/generic_<target>.c), with SA_PRE
 * (name prefix), SA_TGT (a target attribute or nothing), SA_VB (vector bytes), SA_MR and SA_MRC
 * (register-tile rows for real and complex dtypes) defined. Defines the table
 * SA_CAT2(sa_generic_table, SA_PRE) of type-erased entry points indexed by sa_dtype (declared
 * in kernels/generic_common.h). No include guard.
 *
 * Each dtype block defines the template parameters (SA_SUF name suffix, SA_T/SA_U element and
 * unsigned arithmetic types, SA_W the type of a scalar product, SA_IDX, SA_NARROW64; SA_R for
 * complex) and includes the template,
 * which defines the dtype's entry point and undefines its parameters at its end.
 */

#if defined(__GNUC__) && !defined(__clang__)
/* Keep GCC from turning the short edge loops of the packing and store code (n < one vector,
 * run once per row) into memcpy/memset library calls: the call costs more than the copy. */
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

/* The tile and packing helpers are forced inline into each dtype's kernel: that is what makes
 * the register tile stay in registers. The sanitizer build (build_ffi.py) leaves inlining to
 * GCC instead: the forced form makes every instrumented kernel one huge function, and GCC then
 * spends minutes on this file; the memory accesses checked are the same either way. */
#ifdef SA_SANITIZE_BUILD
#define SA_ATTR static inline SA_TGT
#else
#define SA_ATTR static inline SA_ALWAYS_INLINE SA_TGT
#endif
#define SA_KATTR static SA_TGT
#define SA_FN(x) SA_CAT3(x, SA_PRE, SA_SUF)

/* Type-erased entry: casts the byte pointers to the element type and runs the kernel. */
#define SA_DEFINE_ENTRY(elem)                                                                   \
    SA_KATTR int SA_FN(entry)(const sa_contraction *g, int64_t count, const char *a,            \
                              const int64_t *a_off, int64_t da, const char *b,                  \
                              const int64_t *b_off, int64_t db, char *c, const int64_t *c_off,  \
                              int64_t dc, int a_shared, int b_shared)                           \
    {                                                                                           \
        return SA_FN(gemm)(g, count, (const elem *)(const void *)a, a_off, da,                  \
                           (const elem *)(const void *)b, b_off, db, (elem *)(void *)c, c_off,  \
                           dc, a_shared, b_shared);                                             \
    }

/* Unsigned 8-, 16- and 32-bit products use the signed kernels of the same width: the kernels
 * compute in the unsigned type SA_U, so int8 and uint8 operands with the same bits give the
 * same bits (sums and products modulo 2^8), and so on. Sharing them leaves a quarter less code
 * to compile. The 64-bit kernels differ (the 32-bit multiply they take when operands fit is
 * signed for int64, unsigned for uint64), so uint64 has its own. */
#define SA_SUF i8
#define SA_W unsigned int
#define SA_IDX uint8_t
#define SA_T int8_t
#define SA_U uint8_t
#include "kernels/generic_real.h"
#define SA_SUF i16
#define SA_W unsigned int
#define SA_IDX uint16_t
#define SA_T int16_t
#define SA_U uint16_t
#include "kernels/generic_real.h"
#define SA_SUF i32
#define SA_W uint32_t
#define SA_IDX uint32_t
#define SA_T int32_t
#define SA_U uint32_t
#include "kernels/generic_real.h"
#define SA_SUF i64
#define SA_W uint64_t
#define SA_NARROW64 1
#define SA_IDX uint64_t
#define SA_T int64_t
#define SA_U uint64_t
#include "kernels/generic_real.h"
#define SA_SUF u64
#define SA_W uint64_t
#define SA_NARROW64 2
#define SA_IDX uint64_t
#define SA_T uint64_t
#define SA_U uint64_t
#include "kernels/generic_real.h"
#define SA_SUF f32
#define SA_W float
#define SA_IDX uint32_t
#define SA_T float
#define SA_U float
#include "kernels/generic_real.h"
#define SA_SUF f64
#define SA_W double
#define SA_IDX uint64_t
#define SA_T double
#define SA_U double
#include "kernels/generic_real.h"
#define SA_SUF c64
#define SA_R float
#include "kernels/generic_complex.h"
#define SA_SUF c128
#define SA_R double
#include "kernels/generic_complex.h"

const sa_generic_entry SA_CAT2(sa_generic_table, SA_PRE)[SA_NDTYPES] = {
    [SA_INT8] = SA_CAT3(entry, SA_PRE, i8),       [SA_INT16] = SA_CAT3(entry, SA_PRE, i16),
    [SA_INT32] = SA_CAT3(entry, SA_PRE, i32),     [SA_INT64] = SA_CAT3(entry, SA_PRE, i64),
    [SA_UINT8] = SA_CAT3(entry, SA_PRE, i8),      [SA_UINT16] = SA_CAT3(entry, SA_PRE, i16),
    [SA_UINT32] = SA_CAT3(entry, SA_PRE, i32),    [SA_UINT64] = SA_CAT3(entry, SA_PRE, u64),
    [SA_FLOAT32] = SA_CAT3(entry, SA_PRE, f32),   [SA_FLOAT64] = SA_CAT3(entry, SA_PRE, f64),
    [SA_COMPLEX64] = SA_CAT3(entry, SA_PRE, c64), [SA_COMPLEX128] = SA_CAT3(entry, SA_PRE, c128),
};

#undef SA_DEFINE_ENTRY
#undef SA_ATTR
#undef SA_KATTR
#undef SA_FN
