/* Checked size arithmetic for the C core.
 *
 * Every product or sum that makes a size (an element or byte count, a scratch or pack length,
 * a batch count, an output stride) goes through these helpers. Descriptors can claim huge
 * extents without memory behind them (a broadcast view has zero strides), so a product of two
 * valid extents may not fit in 64 bits; wrapped, it would become a small allocation that the
 * kernel then overruns. A helper that reports an overflow makes its caller refuse the product
 * (SA_MM_ERR_OVERFLOW in sa_matmul, -3 from a generic kernel), which Python raises as a
 * ValueError (docs/reliability.md).
 *
 * Sizes are int64_t and never negative, so a checked result always fits size_t as well.
 * Not read by cffi.
 */
#ifndef SA_CHECKED_INTERNAL_H
#define SA_CHECKED_INTERNAL_H

#include <stdint.h>

/* *out = a * b; returns 1 when the exact product does not fit int64_t (*out is then unusable). */
static inline int sa_mul_size(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

/* *out = a + b; returns 1 when the exact sum does not fit int64_t. */
static inline int sa_add_size(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

/* *out = n rounded up to a multiple of m (n >= 0, m > 0); returns 1 on overflow. */
static inline int sa_round_up_size(int64_t n, int64_t m, int64_t *out)
{
    int64_t t;
    if (sa_add_size(n, m - 1, &t)) return 1;
    *out = t / m * m;
    return 0;
}

/* a * b (both >= 0), saturated at INT64_MAX: for comparisons against a threshold or a
 * budget, where "too large to represent" and "larger than the budget" mean the same. */
static inline int64_t sa_mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Exact operation counts (the plan's flops) in 128 bits: every product whose output's byte
 * size fits int64_t has a count below 2^127 (matmul_explain's `flops`, docs/matmul.md). */
__extension__ typedef unsigned __int128 sa_u128;

/* *out = a * b in 128 bits; returns 1 on overflow (then *out is UINT128 max, saturated). */
static inline int sa_mul_u128(sa_u128 a, sa_u128 b, sa_u128 *out)
{
    if (__builtin_mul_overflow(a, b, out)) {
        *out = ~(sa_u128)0;
        return 1;
    }
    return 0;
}

#endif
