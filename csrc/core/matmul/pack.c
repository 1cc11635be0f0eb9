/* Packing: copy a strided view into row-major storage, walking the signed strides once.
 * This is the primitive pack-once matmul relies on, and it casts while it copies so that an
 * operand needing a dtype promotion is not copied twice. */
#include "base/array_internal.h"
#include "runtime/threads_internal.h"


/* A pack of fewer bytes runs on one thread: copying is memory-bound, and a second thread
 * pays only when each copies well beyond its L2 cache. */
#define SA_PACK_PARALLEL_MIN_BYTES ((int64_t)1 << 20)

/* Merge adjacent axes whose strides chain (stride[k] == stride[k+1] * shape[k+1]) and drop
 * extent-1 axes, so the innermost loop is as long as the layout allows. Returns the new
 * rank; shape/strides are written to the output arrays (outermost first). */
static int coalesce(const sa_array *a, int64_t *shape, int64_t *strides)
{
    int n = 0;
    int64_t step;
    for (int k = 0; k < a->ndim; ++k) {
        if (a->shape[k] == 1) continue;
        /* (a step that does not fit int64_t chains with no stride) */
        if (n > 0 && !sa_mul_size(a->strides[k], a->shape[k], &step) && strides[n - 1] == step) {
            shape[n - 1] *= a->shape[k]; /* a factor of the size, checked by the caller */
            strides[n - 1] = a->strides[k];
        } else {
            shape[n] = a->shape[k];
            strides[n] = a->strides[k];
            ++n;
        }
    }
    if (n == 0) { shape[0] = 1; strides[0] = 0; n = 1; }
    return n;
}

/* Float -> integer conversion, defined for every input.
 *
 * C leaves a float-to-integer cast undefined when the truncated value does not fit (NaN, the
 * infinities, anything out of range), and GCC's vectorized loops then give whatever the
 * instruction they picked gives. NumPy's own results for such values differ between its
 * contiguous (SIMD) and strided loops, so there is no single answer to copy. The rule here is
 * spelled out and UB-free; it is what the x86-64 scalar conversions give, which is what NumPy's
 * strided loops give for all but uint32:
 *   - int8/int16/uint8/uint16/int32: truncate to int32 (NaN and values outside int32 give
 *     INT32_MIN), then keep the low bits (two's complement wrap);
 *   - int64 and uint32: truncate to int64 (NaN and values outside int64 give INT64_MIN), then
 *     keep the low bits;
 *   - uint64: values >= 2^63 are taken as 2^63 + the int64 conversion of x - 2^63 (so 2^64 and
 *     above wrap to 0), everything else (NaN included) as the int64 conversion.
 * Values whose truncation fits the destination convert exactly as C says. */
static inline int32_t sa_f2int32(double x)
{
    return x > -2147483649.0 && x < 2147483648.0 ? (int32_t)x : INT32_MIN;
}

static inline int64_t sa_f2int64(double x)
{
    return x >= -9223372036854775808.0 && x < 9223372036854775808.0 ? (int64_t)x : INT64_MIN;
}

static inline uint64_t sa_f2uint64(double x)
{
    if (x >= 9223372036854775808.0)
        return (uint64_t)sa_f2int64(x - 9223372036854775808.0) ^ ((uint64_t)1 << 63);
    return (uint64_t)sa_f2int64(x);
}

/* SA_FROM_FLOAT_<dst>(x): a double converted to the destination type by the rule above; a
 * floating destination is a plain C conversion (always defined). The bool one is named only
 * by the bool->bool loop, in the floating branch of SA_CONVERT that its uint8_t source never
 * takes (every _Generic branch must still compile): there is no loop from another dtype to
 * bool (see SA_PACK_TO_NUMERIC). */
#define SA_FROM_FLOAT_bool(x) ((uint8_t)((x) != 0))
#define SA_FROM_FLOAT_i8(x) ((int8_t)(uint8_t)(uint32_t)sa_f2int32(x))
#define SA_FROM_FLOAT_i16(x) ((int16_t)(uint16_t)(uint32_t)sa_f2int32(x))
#define SA_FROM_FLOAT_i32(x) sa_f2int32(x)
#define SA_FROM_FLOAT_i64(x) sa_f2int64(x)
#define SA_FROM_FLOAT_u8(x) ((uint8_t)(uint32_t)sa_f2int32(x))
#define SA_FROM_FLOAT_u16(x) ((uint16_t)(uint32_t)sa_f2int32(x))
#define SA_FROM_FLOAT_u32(x) ((uint32_t)(uint64_t)sa_f2int64(x))
#define SA_FROM_FLOAT_u64(x) sa_f2uint64(x)
#define SA_FROM_FLOAT_f32(x) ((float)(x))
#define SA_FROM_FLOAT_f64(x) ((double)(x))
#define SA_FROM_FLOAT_c64(x) ((sa_c64)(x))
#define SA_FROM_FLOAT_c128(x) ((sa_c128)(x))

/* One element converted from the source to the destination type: real floating sources go
 * through SA_FROM_FLOAT_<dst>; every other pair is a C conversion that is always defined. Only
 * the selected _Generic branch is evaluated. A float source gives the same result through
 * double (the conversion to double is exact). */
#define SA_CONVERT(dtype_, dsfx, v)                                                        \
    _Generic((v), float: SA_FROM_FLOAT_##dsfx((double)(v)),                                \
                  double: SA_FROM_FLOAT_##dsfx((double)(v)),                               \
                  default: (dtype_)(v))

/* The copy loops are built for AVX2 and AVX-512 too, picked at load time by the CPU (GCC's
 * function multiversioning): a reversed run is loads plus lane shuffles, twice or four times
 * as wide there as in the baseline SSE2 build. No compiler flag is involved. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__ELF__) &&     \
    !defined(__SANITIZE_THREAD__)
/* (Only on ELF: target_clones dispatches through an ifunc, which Windows' PE format lacks, so
 * MinGW-w64 builds the baseline loops; docs/dev/platforms.md. Not under ThreadSanitizer: an
 * instrumented ifunc resolver runs before TSan's runtime is ready and crashes the program;
 * tools/checks/tsan/run checks the baseline copy loops.) */
#define SA_PACK_TARGETS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SA_PACK_TARGETS
#endif

/* One copy loop per (source type, destination type): the odometer over outer axes is shared
 * code, the innermost run is a typed strided loop the compiler can unroll. */
#define SA_PACK_DEF(dcode, dtype_, dsfx, scode, stype_, ssfx)                               \
    SA_PACK_TARGETS static void pack_##ssfx##_to_##dsfx(const sa_array *src, int n, const int64_t *shape,  \
                                        const int64_t *strides, void *dst_)                \
    {                                                                                      \
        const stype_ *s = (const stype_ *)src->data;                                       \
        dtype_ *d = (dtype_ *)dst_;                                                        \
        int64_t idx[SA_MAXDIM] = {0};                                                      \
        int64_t off = src->origin;                                                         \
        int64_t inner = shape[n - 1], istr = strides[n - 1];                               \
        for (;;) {                                                                         \
            SA_ASSERT_IN_BUFFER(src, off);                                                 \
            SA_ASSERT_IN_BUFFER(src, off + (inner - 1) * istr);                            \
            const stype_ *p = s + off;                                                     \
            /* Unit, reversed and step-two runs get their own loops: with a constant       \
             * stride the compiler vectorizes them (loads plus lane shuffles). The general \
             * stride is a gather it does not vectorize. */                                 \
            if (istr == 1)                                                                 \
                for (int64_t i = 0; i < inner; ++i)                                        \
                    d[i] = SA_CONVERT(dtype_, dsfx, p[i]);                                 \
            else if (istr == -1)                                                           \
                for (int64_t i = 0; i < inner; ++i)                                        \
                    d[i] = SA_CONVERT(dtype_, dsfx, p[-i]);                                \
            else if (istr == 2)                                                            \
                for (int64_t i = 0; i < inner; ++i)                                        \
                    d[i] = SA_CONVERT(dtype_, dsfx, p[2 * i]);                             \
            else                                                                           \
                for (int64_t i = 0; i < inner; ++i)                                        \
                    d[i] = SA_CONVERT(dtype_, dsfx, p[i * istr]);                          \
            d += inner;                                                                    \
            int k = n - 2;                                                                 \
            for (; k >= 0; --k) {                                                          \
                off += strides[k];                                                         \
                if (++idx[k] < shape[k]) break;                                            \
                off -= strides[k] * shape[k];                                              \
                idx[k] = 0;                                                                \
            }                                                                              \
            if (k < 0) return;                                                             \
        }                                                                                  \
    }

/* Instantiate bool->bool, every real->numeric and every complex->complex pair. Casting to
 * bool must mean "nonzero", which a plain C cast of a float does not give for values in
 * (0,1), so there is no loop from another dtype to bool: the caller casts through NumPy. */
#define SA_PACK_TO_NUMERIC(scode, stype_, ssfx)                                            \
    SA_PACK_DEF(SA_INT8, int8_t, i8, scode, stype_, ssfx)                                  \
    SA_PACK_DEF(SA_INT16, int16_t, i16, scode, stype_, ssfx)                               \
    SA_PACK_DEF(SA_INT32, int32_t, i32, scode, stype_, ssfx)                               \
    SA_PACK_DEF(SA_INT64, int64_t, i64, scode, stype_, ssfx)                               \
    SA_PACK_DEF(SA_UINT8, uint8_t, u8, scode, stype_, ssfx)                                \
    SA_PACK_DEF(SA_UINT16, uint16_t, u16, scode, stype_, ssfx)                             \
    SA_PACK_DEF(SA_UINT32, uint32_t, u32, scode, stype_, ssfx)                             \
    SA_PACK_DEF(SA_UINT64, uint64_t, u64, scode, stype_, ssfx)                             \
    SA_PACK_DEF(SA_FLOAT32, float, f32, scode, stype_, ssfx)                               \
    SA_PACK_DEF(SA_FLOAT64, double, f64, scode, stype_, ssfx)                              \
    SA_PACK_DEF(SA_COMPLEX64, sa_c64, c64, scode, stype_, ssfx)                            \
    SA_PACK_DEF(SA_COMPLEX128, sa_c128, c128, scode, stype_, ssfx)
#define SA_PACK_FROM_COMPLEX(scode, stype_, ssfx)                                          \
    SA_PACK_DEF(SA_COMPLEX64, sa_c64, c64, scode, stype_, ssfx)                            \
    SA_PACK_DEF(SA_COMPLEX128, sa_c128, c128, scode, stype_, ssfx)

SA_PACK_DEF(SA_BOOL, uint8_t, bool, SA_BOOL, uint8_t, bool)
SA_FOR_EACH_REAL_DTYPE(SA_PACK_TO_NUMERIC)
SA_FOR_EACH_COMPLEX_DTYPE(SA_PACK_FROM_COMPLEX)

typedef void (*pack_fn)(const sa_array *, int, const int64_t *, const int64_t *, void *);

static pack_fn lookup(int scode, int dcode)
{
    /* To bool only from bool (see SA_PACK_TO_NUMERIC); for the other pairs the caller gets
     * -1 and casts through NumPy. */
    if (dcode == SA_BOOL) return scode == SA_BOOL ? pack_bool_to_bool : NULL;
#define SA_DST_CASE(dcode_, dtype_, dsfx, ssfx) \
    case dcode_: return pack_##ssfx##_to_##dsfx;
#define SA_SRC_REAL(scode_, stype_, ssfx)                                                  \
    case scode_:                                                                           \
        switch (dcode) {                                                                   \
            SA_DST_CASE(SA_INT8, int8_t, i8, ssfx)                                         \
            SA_DST_CASE(SA_INT16, int16_t, i16, ssfx)                                      \
            SA_DST_CASE(SA_INT32, int32_t, i32, ssfx)                                      \
            SA_DST_CASE(SA_INT64, int64_t, i64, ssfx)                                      \
            SA_DST_CASE(SA_UINT8, uint8_t, u8, ssfx)                                       \
            SA_DST_CASE(SA_UINT16, uint16_t, u16, ssfx)                                    \
            SA_DST_CASE(SA_UINT32, uint32_t, u32, ssfx)                                    \
            SA_DST_CASE(SA_UINT64, uint64_t, u64, ssfx)                                    \
            SA_DST_CASE(SA_FLOAT32, float, f32, ssfx)                                      \
            SA_DST_CASE(SA_FLOAT64, double, f64, ssfx)                                     \
            SA_DST_CASE(SA_COMPLEX64, sa_c64, c64, ssfx)                                   \
            SA_DST_CASE(SA_COMPLEX128, sa_c128, c128, ssfx)                                \
            default: return NULL;                                                          \
        }
#define SA_SRC_COMPLEX(scode_, stype_, ssfx)                                               \
    case scode_:                                                                           \
        switch (dcode) {                                                                   \
            SA_DST_CASE(SA_COMPLEX64, sa_c64, c64, ssfx)                                   \
            SA_DST_CASE(SA_COMPLEX128, sa_c128, c128, ssfx)                                \
            default: return NULL;                                                          \
        }
    switch (scode) {
        SA_FOR_EACH_REAL_DTYPE(SA_SRC_REAL)
        SA_FOR_EACH_COMPLEX_DTYPE(SA_SRC_COMPLEX)
    default: return NULL;
    }
#undef SA_DST_CASE
#undef SA_SRC_REAL
#undef SA_SRC_COMPLEX
}

typedef struct {
    pack_fn fn;
    const sa_array *src;
    int n;
    const int64_t *shape, *strides;
    char *dst;
    int64_t row_bytes; /* bytes of dst per index of the outermost axis */
    int64_t nchunks;
} pack_job;

static void pack_part(void *ctx, int64_t k)
{
    const pack_job *j = (const pack_job *)ctx;
    const int64_t lo = j->shape[0] * k / j->nchunks, hi = j->shape[0] * (k + 1) / j->nchunks;
    if (hi <= lo) return;
    sa_array part = *j->src;
    int64_t pshape[SA_MAXDIM];
    memcpy(pshape, j->shape, sizeof pshape);
    part.origin += lo * j->strides[0];
    pshape[0] = hi - lo;
    j->fn(&part, j->n, pshape, j->strides, j->dst + lo * j->row_bytes);
}

int sa_to_row_major(const sa_array *src, void *dst, int dst_dtype)
{
    SA_ASSERT_DESCRIPTOR(src);
    pack_fn fn = lookup(src->dtype, dst_dtype);
    if (fn == NULL) return -1;
    int64_t size = 1;
    for (int k = 0; k < src->ndim; ++k) {
        if (src->shape[k] == 0) return 0;
        /* dst holds `size` elements, so the size fits; a descriptor claiming more is refused */
        if (sa_mul_size(size, src->shape[k], &size)) return -1;
    }
    int64_t shape[SA_MAXDIM], strides[SA_MAXDIM];
    int n = coalesce(src, shape, strides);
    const int64_t dsize = sa_itemsize(dst_dtype);
    int nt = sa_threads_for(sa_work4(size, dsize, 1, 1), SA_PACK_PARALLEL_MIN_BYTES);
    if (nt > shape[0]) nt = (int)shape[0];
    nt = sa_team_begin(nt);
    if (nt < 2) {
        fn(src, n, shape, strides, dst);
        return 0;
    }
    /* Each chunk copies a band of the outermost (coalesced) axis into its own part of dst;
     * a few per thread, so that a worker arriving late still finds some. */
    pack_job j = {fn, src, n, shape, strides, (char *)dst, size / shape[0] * dsize, 0};
    j.nchunks = 4 * (int64_t)nt < shape[0] ? 4 * (int64_t)nt : shape[0];
    sa_parallel(nt, j.nchunks, pack_part, &j);
    sa_team_end(nt);
    return 0;
}
