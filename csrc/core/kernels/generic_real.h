/* Template: the generic matmul kernel for one real dtype on one instruction-set target.
 *
 * Included by kernels/generic_target.h once per (target, dtype) with these macros defined:
 *   SA_T     storage element type (int8_t ... double)
 *   SA_U     arithmetic type: the unsigned type of the same width for integers, so products and
 *            sums wrap modulo 2^bits exactly like NumPy without signed-overflow UB; T for floats
 *   SA_W     the type a scalar product is taken in: SA_U, or unsigned int for SA_U narrower
 *            than int (see SA_SMUL)
 *   SA_IDX   unsigned integer type of the same width (lane indices for shuffles)
 *   SA_FN(x) name of x for this (target, dtype)
 *   SA_VB    bytes per SIMD vector on this target (16, 32 or 64)
 *   SA_MR    rows of the register tile (a power of two)
 *   SA_ATTR  attributes of the inlined helpers (static, always_inline, target(...))
 *   SA_KATTR attributes of the two entry points (static, target(...))
 *   SA_SCRATCH(name, bytes) / SA_SCRATCH_FREE(name)  aligned scratch (stack when small)
 *   SA_MASK512 or SA_MASK256 (optional) use AVX-512 / AVX2 masked loads and stores for the
 *            partial last column panel instead of scalar loops
 * No include guard: it is meant to be included many times.
 *
 * Method (the usual GotoBLAS/BLIS structure, kept small): the output is computed in register
 * tiles of up to SA_MR rows x NR columns (NR = one vector). Operands are copied ("packed") into
 * aligned scratch in the order the tile loop reads them, which turns any signed or step-two
 * layout into unit-stride loads, so the tile loop is the same code for every layout. K is cut
 * in blocks of KC so the B micro-panel (KC x NR) stays in L1; M in blocks of MC so the packed A
 * block stays in L2; N in blocks of NC. A matrix shared by every item of the batch is packed
 * once for the whole call; an A small enough to stay in L1 is not packed at all (the tile reads
 * it through its strides). N == 1 (GEMV, DOT, and GEVM after transposition) uses dot products
 * on rows instead, or column updates (axpy) for a column-major A, since a tile one column wide
 * would waste the vector.
 */

SA_VEC_TYPEDEF(SA_U, SA_VB, SA_FN(vec));
#define SA_NR SA_VEC_NR(SA_U, SA_VB)

/* Products free of undefined behaviour, with no -fwrapv needed. C promotes a scalar operand
 * narrower than int to (signed) int, and a 16-bit product can exceed INT_MAX (65535 * 65535):
 * undefined, and right only under -fwrapv. So a scalar product is taken in SA_W (unsigned int
 * for 8- and 16-bit SA_U, SA_U itself otherwise) and cut back to SA_U, which is the same
 * wrap-around modulo 2^bits as NumPy's; compilers still see a 16-bit multiply when they
 * vectorise it (the high half is dropped). Sums need nothing: two values below 2^16 add
 * without overflow in int, and are cut back to SA_U on assignment. Lanes of a GNU vector are
 * not promoted (their arithmetic is in the lane type), so vector products stay as written,
 * except in the scalar build (SA_GENERIC_SCALAR), where a "vector" is one SA_U. */
#define SA_SMUL(a, b) ((SA_U)((SA_W)(a) * (SA_W)(b)))
#if defined(SA_GENERIC_SCALAR)
#define SA_VMUL(a, b) SA_SMUL(a, b)
#else
#define SA_VMUL(a, b) ((a) * (b))
#endif

/* Load/store one vector from possibly unaligned memory of either signedness. */
SA_ATTR SA_FN(vec) SA_FN(loadu)(const void *p)
{
    SA_FN(vec) v;
    memcpy(&v, p, sizeof v);
    return v;
}

#if defined(SA_MASK512)
/* AVX-512 masked load (zero beyond n) and store of the first n < SA_NR lanes: the edge
 * columns of a tile cost one instruction instead of a scalar loop. Lanes past n are never
 * touched, so this does not read or write outside the operands. */
#define SA_CAN_MASK 1
SA_ATTR __mmask64 SA_FN(mask)(int64_t n)
{
    return n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
}

SA_ATTR SA_FN(vec) SA_FN(load_n)(const SA_T *p, int64_t n)
{
    const __mmask64 m = SA_FN(mask)(n);
    __m512i v;
    if (sizeof(SA_U) == 1) v = _mm512_maskz_loadu_epi8(m, p);
    else if (sizeof(SA_U) == 2) v = _mm512_maskz_loadu_epi16((__mmask32)m, p);
    else if (sizeof(SA_U) == 4) v = _mm512_maskz_loadu_epi32((__mmask16)m, p);
    else v = _mm512_maskz_loadu_epi64((__mmask8)m, p);
    return (SA_FN(vec))v;
}

SA_ATTR void SA_FN(store_n)(SA_T *p, SA_FN(vec) x, int64_t n)
{
    const __mmask64 m = SA_FN(mask)(n);
    const __m512i v = (__m512i)x;
    if (sizeof(SA_U) == 1) _mm512_mask_storeu_epi8(p, m, v);
    else if (sizeof(SA_U) == 2) _mm512_mask_storeu_epi16(p, (__mmask32)m, v);
    else if (sizeof(SA_U) == 4) _mm512_mask_storeu_epi32(p, (__mmask16)m, v);
    else _mm512_mask_storeu_epi64(p, (__mmask8)m, v);
}
#elif defined(SA_MASK256)
/* The AVX2 equivalent (vpmaskmov) exists for 4- and 8-byte lanes only; narrower types keep
 * the scalar edge code (SA_CAN_MASK is a compile-time constant per dtype). */
#define SA_CAN_MASK (sizeof(SA_U) >= 4)
SA_ATTR __m256i SA_FN(mask)(int64_t n)
{
    const __m256i lane = sizeof(SA_U) == 4 ? _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
                                           : _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256i nn = sizeof(SA_U) == 4 ? _mm256_set1_epi32((int)n) : _mm256_set1_epi64x(n);
    return sizeof(SA_U) == 4 ? _mm256_cmpgt_epi32(nn, lane) : _mm256_cmpgt_epi64(nn, lane);
}

SA_ATTR SA_FN(vec) SA_FN(load_n)(const SA_T *p, int64_t n)
{
    const __m256i m = SA_FN(mask)(n);
    __m256i v;
    if (sizeof(SA_U) == 4) v = _mm256_maskload_epi32((const int *)(const void *)p, m);
    else v = _mm256_maskload_epi64((const long long *)(const void *)p, m);
    return (SA_FN(vec))v;
}

SA_ATTR void SA_FN(store_n)(SA_T *p, SA_FN(vec) x, int64_t n)
{
    const __m256i m = SA_FN(mask)(n);
    if (sizeof(SA_U) == 4) _mm256_maskstore_epi32((int *)(void *)p, m, (__m256i)x);
    else _mm256_maskstore_epi64((long long *)(void *)p, m, (__m256i)x);
}
#else
#define SA_CAN_MASK 0
#endif

/* Pack A(0..mc, 0..kc) (a points at its first element; strides rs, cs) into panels of w rows,
 * w = SA_MR while that many rows remain, then 4, 2, 1 for the tail, so no row is padded. The
 * panel starting at row r holds A(r+i, k) at dst[r*kc + k*w + i]. */
SA_ATTR void SA_FN(pack_a)(const SA_T *a, int64_t rs, int64_t cs, int64_t mc, int64_t kc,
                           SA_U *restrict dst)
{
    for (int64_t r = 0; r < mc;) {
        int64_t w = SA_MR;
        while (w > mc - r) w >>= 1;
        const SA_T *ap = a + r * rs;
        SA_U *d = dst + r * kc;
        if (cs == 1 || (cs != 0 && (cs < 0 ? -cs : cs) < (rs < 0 ? -rs : rs))) {
            /* rows are (nearly) contiguous: read along k */
            for (int64_t i = 0; i < w; ++i)
                for (int64_t k = 0; k < kc; ++k) d[k * w + i] = (SA_U)ap[i * rs + k * cs];
        } else {
            for (int64_t k = 0; k < kc; ++k)
                for (int64_t i = 0; i < w; ++i) d[k * w + i] = (SA_U)ap[i * rs + k * cs];
        }
        r += w;
    }
}

/* Pack B(0..kc, 0..nc) into panels of SA_NR columns, zero-padded on the right. The panel
 * starting at column j holds B(k, j+l) at dst[j*kc + k*SA_NR + l]. */
SA_ATTR void SA_FN(pack_b)(const SA_T *b, int64_t rs, int64_t cs, int64_t kc, int64_t nc,
                           SA_U *restrict dst)
{
    const int along_rows = (cs < 0 ? -cs : cs) <= (rs < 0 ? -rs : rs);
    for (int64_t j = 0; j < nc; j += SA_NR) {
        const int64_t n = nc - j < SA_NR ? nc - j : SA_NR;
        const SA_T *bp = b + j * cs;
        SA_U *d = dst + j * kc;
        if (n == SA_NR && cs == 1) {
            for (int64_t k = 0; k < kc; ++k)
                for (int64_t l = 0; l < SA_NR; ++l) d[k * SA_NR + l] = (SA_U)bp[k * rs + l];
        } else if (n == SA_NR && cs == -1) {
            for (int64_t k = 0; k < kc; ++k)
                for (int64_t l = 0; l < SA_NR; ++l) d[k * SA_NR + l] = (SA_U)bp[k * rs - l];
#if defined(SA_MASK512) || defined(SA_MASK256)
        } else if (SA_CAN_MASK && cs == 1) {
            for (int64_t k = 0; k < kc; ++k)
                *(SA_FN(vec) *)(d + k * SA_NR) = SA_FN(load_n)(bp + k * rs, n);
#endif
        } else if (along_rows) {
            /* read each row of the panel along its (smaller) column stride, zero the padding */
            for (int64_t k = 0; k < kc; ++k) {
                SA_U *dk = d + k * SA_NR;
                const SA_T *row = bp + k * rs;
                for (int64_t l = 0; l < n; ++l) dk[l] = (SA_U)row[l * cs];
                for (int64_t l = n; l < SA_NR; ++l) dk[l] = 0;
            }
        } else {
            if (n < SA_NR) memset(d, 0, (size_t)(kc * SA_NR) * sizeof(SA_U));
            for (int64_t l = 0; l < n; ++l)
                for (int64_t k = 0; k < kc; ++k) d[k * SA_NR + l] = (SA_U)bp[k * rs + l * cs];
        }
    }
}

/* SA_FN(pack_a) with A(i, k) at a[i*rs + koff[k]] (a split K: sa_koffsets). */
SA_ATTR void SA_FN(pack_a_ks)(const SA_T *a, int64_t rs, const int64_t *koff, int64_t mc,
                              int64_t kc, SA_U *restrict dst)
{
    for (int64_t r = 0; r < mc;) {
        int64_t w = SA_MR;
        while (w > mc - r) w >>= 1;
        const SA_T *ap = a + r * rs;
        SA_U *d = dst + r * kc;
        if (rs == 1 || rs == -1) {
            for (int64_t k = 0; k < kc; ++k)
                for (int64_t i = 0; i < w; ++i) d[k * w + i] = (SA_U)ap[i * rs + koff[k]];
        } else {
            for (int64_t i = 0; i < w; ++i)
                for (int64_t k = 0; k < kc; ++k) d[k * w + i] = (SA_U)ap[i * rs + koff[k]];
        }
        r += w;
    }
}

/* SA_FN(pack_b) with B(k, j) at b[koff[k] + j*cs] (a split K); `ks` is K's inner stride.
 * When the columns are farther apart than that, each column is read down k (mostly along
 * the inner K axis), as SA_FN(pack_b) does; otherwise each row of the block is read once,
 * across all its panels: a split K's rows can lie far apart (a page or more), and reading
 * them again for every panel would cost a TLB miss each time. */
SA_ATTR void SA_FN(pack_b_ks)(const SA_T *b, const int64_t *koff, int64_t ks, int64_t cs,
                              int64_t kc, int64_t nc, SA_U *restrict dst)
{
    if ((cs < 0 ? -cs : cs) > (ks < 0 ? -ks : ks)) {
        for (int64_t j = 0; j < nc; j += SA_NR) {
            const int64_t n = nc - j < SA_NR ? nc - j : SA_NR;
            const SA_T *bp = b + j * cs;
            SA_U *d = dst + j * kc;
            if (n < SA_NR) memset(d, 0, (size_t)(kc * SA_NR) * sizeof(SA_U));
            for (int64_t l = 0; l < n; ++l)
                for (int64_t k = 0; k < kc; ++k) d[k * SA_NR + l] = (SA_U)bp[koff[k] + l * cs];
        }
        return;
    }
    for (int64_t k = 0; k < kc; ++k) {
        const SA_T *row = b + koff[k];
        for (int64_t j = 0; j < nc; j += SA_NR) {
            const int64_t n = nc - j < SA_NR ? nc - j : SA_NR;
            SA_U *dk = dst + j * kc + k * SA_NR;
            const SA_T *p = row + j * cs;
            if (n == SA_NR && cs == 1) {
                for (int64_t l = 0; l < SA_NR; ++l) dk[l] = (SA_U)p[l];
            } else {
                for (int64_t l = 0; l < n; ++l) dk[l] = (SA_U)p[l * cs];
                for (int64_t l = n; l < SA_NR; ++l) dk[l] = 0;
            }
        }
    }
}

/* Write (or add, when `accumulate`) a w x n register tile to C. */
SA_ATTR void SA_FN(store)(const SA_FN(vec) *acc, int64_t w, SA_T *c, int64_t rs, int64_t cs,
                          int64_t n, int accumulate)
{
    if (n == SA_NR && cs == 1) {
        for (int64_t i = 0; i < w; ++i) {
            SA_FN(vec) v = acc[i];
            if (accumulate) v += SA_FN(loadu)(c + i * rs);
            memcpy(c + i * rs, &v, sizeof v);
        }
        return;
    }
#if defined(SA_MASK512) || defined(SA_MASK256)
    if (SA_CAN_MASK && cs == 1) {
        for (int64_t i = 0; i < w; ++i) {
            SA_FN(vec) v = acc[i];
            if (accumulate) v += SA_FN(load_n)(c + i * rs, n);
            SA_FN(store_n)(c + i * rs, v, n);
        }
        return;
    }
#endif
    /* edge tile or strided C: through a scalar copy of each row, branch hoisted */
    for (int64_t i = 0; i < w; ++i) {
        SA_U row[SA_NR];
        memcpy(row, &acc[i], sizeof row);
        SA_T *p = c + i * rs;
        if (accumulate) {
            for (int64_t l = 0; l < n; ++l) p[l * cs] = (SA_T)((SA_U)p[l * cs] + row[l]);
        } else {
            for (int64_t l = 0; l < n; ++l) p[l * cs] = (SA_T)row[l];
        }
    }
}

/* 64-bit integer products are slow in SIMD (vpmullq is three uops). When every element of both
 * operands lies in the 32-bit range, the product is exactly the 32 x 32 -> 64 signed multiply
 * of the low halves (vpmuldq, one uop), so the tiles take a `narrow` flag, set only after the
 * packed data has been checked (SA_FN(fits32)). Only on AVX-512 for int64/uint64. */
#if defined(SA_MASK512) && defined(SA_NARROW64)
#define SA_HAS_NARROW 1
#define SA_MUL32(s, v) ((SA_FN(vec))_mm512_mul_epi32((__m512i)(v), _mm512_set1_epi64((long long)(s))))
#else
#define SA_HAS_NARROW 0
#define SA_MUL32(s, v) SA_VMUL(s, v)
#endif
#define SA_MULV(s, v) SA_VMUL(s, v)
/* tile flags: add to C instead of storing (later K blocks), and the narrow multiply */
#define SA_ACCUMULATE 1
#define SA_NARROW 2

/* True when every element of p[0..n) (or of the strided M x K matrix a) is in the range where
 * SA_MUL32 is exact: [-2^31, 2^31) for int64, [0, 2^31) for uint64. */
#if SA_HAS_NARROW
#if SA_NARROW64 == 1
#define SA_OUT32(v) (((SA_U)(v) + (SA_U)0x80000000u) >> 32)
#else
#define SA_OUT32(v) ((SA_U)(v) >> 31)
#endif
SA_ATTR int SA_FN(fits32)(const SA_U *p, int64_t n)
{
    SA_U bad = 0;
    for (int64_t i = 0; i < n; ++i) bad |= SA_OUT32(p[i]);
    return bad == 0;
}

SA_ATTR int SA_FN(fits32_strided)(const SA_T *a, int64_t M, int64_t K, int64_t ar, int64_t ak)
{
    SA_U bad = 0;
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k) bad |= SA_OUT32(a[i * ar + k * ak]);
    return bad == 0;
}
#undef SA_OUT32
#else
SA_ATTR int SA_FN(fits32)(const SA_U *p, int64_t n)
{
    (void)p, (void)n;
    return 0;
}

SA_ATTR int SA_FN(fits32_strided)(const SA_T *a, int64_t M, int64_t K, int64_t ar, int64_t ak)
{
    (void)a, (void)M, (void)K, (void)ar, (void)ak;
    return 0;
}
#endif

/* Lanes in reverse order (one permute instruction). */
SA_ATTR SA_FN(vec) SA_FN(reverse)(SA_FN(vec) v)
{
#if defined(SA_GENERIC_SCALAR)
    return v; /* one lane */
#elif defined(__clang__)
    SA_FN(vec) r;
    for (int64_t l = 0; l < SA_NR; ++l) r[l] = v[SA_NR - 1 - l];
    return r;
#else
    typedef SA_IDX ivec __attribute__((vector_size(SA_VB)));
    ivec m;
    for (int64_t l = 0; l < SA_NR; ++l) m[l] = (SA_IDX)(SA_NR - 1 - l);
    return __builtin_shuffle(v, m);
#endif
}

/* The register tile: W rows of packed A times one packed B micro-panel, kc deep. Written once,
 * expanded for W = 8, 4, 2, 1; the W and NR loops are fully unrolled by the compiler and the
 * accumulators live in vector registers. AEL(k, i) is how element A(i, k) is read. */
#define SA_TILE_BODY(W, AEL, BLOAD)                                                             \
    SA_FN(vec) acc[W];                                                                          \
    for (int i = 0; i < W; ++i) acc[i] = (SA_FN(vec)){0};                                       \
    if (SA_HAS_NARROW && (flags & SA_NARROW)) {                                                 \
        for (int64_t k = 0; k < kc; ++k) {                                                      \
            SA_FN(vec) bv = BLOAD(k);                                                           \
            for (int i = 0; i < W; ++i) acc[i] += SA_MUL32(AEL(k, i), bv);                      \
        }                                                                                       \
    } else {                                                                                    \
        for (int64_t k = 0; k < kc; ++k) {                                                      \
            SA_FN(vec) bv = BLOAD(k);                                                           \
            for (int i = 0; i < W; ++i) acc[i] += SA_MULV(AEL(k, i), bv);                       \
        }                                                                                       \
    }                                                                                           \
    SA_FN(store)(acc, W, c, rs, cs, n, flags & SA_ACCUMULATE);

#define SA_REAL_TILE(W)                                                                         \
    SA_ATTR void SA_FN(tile##W)(int64_t kc, const SA_U *restrict ap, const SA_U *restrict bp,   \
                                SA_T *c, int64_t rs, int64_t cs, int64_t n, int flags)          \
    {                                                                                           \
        const int64_t w_ = W;                                                                   \
        SA_TILE_BODY(W, SA_APACKED, SA_BPACKED)                                                 \
    }
#define SA_APACKED(k, i) ap[(k) * w_ + (i)]
/* The same tile reading A in place through its strides (broadcast loads from any address cost
 * the same as from packed memory): used when A is small enough to stay in L1 anyway, where
 * packing it per batch item would cost more than the multiply. */
#define SA_REAL_TILE_DIRECT(W)                                                                  \
    SA_ATTR void SA_FN(dtile##W)(int64_t kc, const SA_T *a, int64_t ar, int64_t ak,             \
                                 const SA_U *restrict bp, SA_T *c, int64_t rs, int64_t cs,      \
                                 int64_t n, int flags)                                          \
    {                                                                                           \
        const SA_T *row[W];                                                                     \
        for (int i = 0; i < W; ++i) row[i] = a + i * ar;                                        \
        SA_TILE_BODY(W, SA_ADIRECT, SA_BPACKED)                                                 \
    }
#define SA_ADIRECT(k, i) ((SA_U)row[i][(k) * ak])
#define SA_BPACKED(k) (*(const SA_FN(vec) *)(bp + (k) * SA_NR))
/* The small-product tile (SA_FN(gemm_small)): A in place as above, and B either packed (bs =
 * SA_NR) or read in place from rows of NR contiguous elements bs apart, forward or, when
 * `brev`, backward (bp then points at the panel's first column, the highest address). */
#define SA_REAL_TILE_SMALL(W)                                                                   \
    SA_ATTR void SA_FN(stile##W)(int64_t kc, const SA_T *a, int64_t ar, int64_t ak,             \
                                 const SA_T *bp, int64_t bs, int brev, SA_T *c, int64_t rs,     \
                                 int64_t cs, int64_t n, int flags)                              \
    {                                                                                           \
        const SA_T *row[W];                                                                     \
        for (int i = 0; i < W; ++i) row[i] = a + i * ar;                                        \
        if (brev) {                                                                             \
            SA_TILE_BODY(W, SA_ADIRECT, SA_BREV)                                                \
        } else {                                                                                \
            SA_TILE_BODY(W, SA_ADIRECT, SA_BFWD)                                                \
        }                                                                                       \
    }
/* The same with B's first n < NR columns read in place forward through masked loads, which
 * touch nothing past them (only where SA_CAN_MASK; a function of its own, so that the tiles
 * above keep their code). */
#define SA_REAL_TILE_MASKED(W)                                                                  \
    SA_ATTR void SA_FN(mtile##W)(int64_t kc, const SA_T *a, int64_t ar, int64_t ak,             \
                                 const SA_T *bp, int64_t bs, SA_T *c, int64_t rs, int64_t cs,   \
                                 int64_t n, int flags)                                          \
    {                                                                                           \
        const SA_T *row[W];                                                                     \
        for (int i = 0; i < W; ++i) row[i] = a + i * ar;                                        \
        SA_TILE_BODY(W, SA_ADIRECT, SA_BFWDN)                                                   \
    }
#define SA_BFWDN(k) SA_FN(load_n)(bp + (k) * bs, n)
#define SA_BFWD(k) SA_FN(loadu)(bp + (k) * bs)
#define SA_BREV(k) SA_FN(reverse)(SA_FN(loadu)(bp + (k) * bs - (SA_NR - 1)))
#if SA_MR >= 8
SA_REAL_TILE(8)
SA_REAL_TILE_DIRECT(8)
#endif
SA_REAL_TILE(4)
SA_REAL_TILE(2)
SA_REAL_TILE(1)
SA_REAL_TILE_DIRECT(4)
SA_REAL_TILE_DIRECT(2)
SA_REAL_TILE_DIRECT(1)
#if SA_MR >= 8
SA_REAL_TILE_SMALL(8)
#endif
SA_REAL_TILE_SMALL(4)
SA_REAL_TILE_SMALL(2)
SA_REAL_TILE_SMALL(1)
#if defined(SA_MASK512) || defined(SA_MASK256)
SA_REAL_TILE_MASKED(4)
SA_REAL_TILE_MASKED(2)
SA_REAL_TILE_MASKED(1)
#endif
#undef SA_REAL_TILE
#undef SA_REAL_TILE_DIRECT
#undef SA_REAL_TILE_SMALL
#undef SA_TILE_BODY
#undef SA_APACKED
#undef SA_ADIRECT
#undef SA_BPACKED
#undef SA_BFWD
#undef SA_BREV
#undef SA_BFWDN
#undef SA_REAL_TILE_MASKED

/* apacked: a is a packed panel of w rows (SA_FN(pack_a)), so the strides are the constants
 * 1 and w and the tile addresses A through one pointer. */
SA_ATTR void SA_FN(stile)(int64_t w, int apacked, int64_t kc, const SA_T *a, int64_t ar,
                          int64_t ak, const SA_T *bp, int64_t bs, int brev, SA_T *c, int64_t rs,
                          int64_t cs, int64_t n, int flags)
{
    switch (w) {
#if SA_MR >= 8
    case 8:
        if (apacked) SA_FN(stile8)(kc, a, 1, 8, bp, bs, brev, c, rs, cs, n, flags);
        else SA_FN(stile8)(kc, a, ar, ak, bp, bs, brev, c, rs, cs, n, flags);
        break;
#endif
    case 4:
        if (apacked) SA_FN(stile4)(kc, a, 1, 4, bp, bs, brev, c, rs, cs, n, flags);
        else SA_FN(stile4)(kc, a, ar, ak, bp, bs, brev, c, rs, cs, n, flags);
        break;
    case 2:
        if (apacked) SA_FN(stile2)(kc, a, 1, 2, bp, bs, brev, c, rs, cs, n, flags);
        else SA_FN(stile2)(kc, a, ar, ak, bp, bs, brev, c, rs, cs, n, flags);
        break;
    default:
        if (apacked) SA_FN(stile1)(kc, a, 1, 1, bp, bs, brev, c, rs, cs, n, flags);
        else SA_FN(stile1)(kc, a, ar, ak, bp, bs, brev, c, rs, cs, n, flags);
        break;
    }
}

#if defined(SA_MASK512) || defined(SA_MASK256)
/* w <= 4 rows of A in place (SA_FN(gemm_tiny)). */
SA_ATTR void SA_FN(mtile)(int64_t w, int64_t kc, const SA_T *a, int64_t ar, int64_t ak,
                          const SA_T *bp, int64_t bs, SA_T *c, int64_t rs, int64_t cs, int64_t n,
                          int flags)
{
    switch (w) {
    case 4: SA_FN(mtile4)(kc, a, ar, ak, bp, bs, c, rs, cs, n, flags); break;
    case 2: SA_FN(mtile2)(kc, a, ar, ak, bp, bs, c, rs, cs, n, flags); break;
    default: SA_FN(mtile1)(kc, a, ar, ak, bp, bs, c, rs, cs, n, flags); break;
    }
}
#endif

SA_ATTR void SA_FN(dtile)(int64_t w, int64_t kc, const SA_T *a, int64_t ar, int64_t ak,
                          const SA_U *bp, SA_T *c, int64_t rs, int64_t cs, int64_t n, int flags)
{
    switch (w) {
#if SA_MR >= 8
    case 8: SA_FN(dtile8)(kc, a, ar, ak, bp, c, rs, cs, n, flags); break;
#endif
    case 4: SA_FN(dtile4)(kc, a, ar, ak, bp, c, rs, cs, n, flags); break;
    case 2: SA_FN(dtile2)(kc, a, ar, ak, bp, c, rs, cs, n, flags); break;
    default: SA_FN(dtile1)(kc, a, ar, ak, bp, c, rs, cs, n, flags); break;
    }
}

SA_ATTR void SA_FN(tile)(int64_t w, int64_t kc, const SA_U *ap, const SA_U *bp, SA_T *c,
                         int64_t rs, int64_t cs, int64_t n, int flags)
{
    switch (w) {
#if SA_MR >= 8
    case 8: SA_FN(tile8)(kc, ap, bp, c, rs, cs, n, flags); break;
#endif
    case 4: SA_FN(tile4)(kc, ap, bp, c, rs, cs, n, flags); break;
    case 2: SA_FN(tile2)(kc, ap, bp, c, rs, cs, n, flags); break;
    default: SA_FN(tile1)(kc, ap, bp, c, rs, cs, n, flags); break;
    }
}

SA_ATTR SA_U SA_FN(hsum)(SA_FN(vec) v)
{
    SA_U s = 0;
    for (int64_t l = 0; l < SA_NR; ++l) s += SA_LANE(v, l);
    return s;
}

/* out[r] = sum_k rows[r*ld + k] * x[k] for 4 rows; one accumulator per row, the x load shared. */
SA_ATTR void SA_FN(dot4)(const SA_T *rows, int64_t ld, const SA_U *x, int64_t K, SA_U *out)
{
    SA_FN(vec) s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    const SA_T *r0 = rows, *r1 = rows + ld, *r2 = rows + 2 * ld, *r3 = rows + 3 * ld;
    int64_t k = 0;
    for (; k + SA_NR <= K; k += SA_NR) {
        SA_FN(vec) xv = SA_FN(loadu)(x + k);
        s0 += SA_VMUL(SA_FN(loadu)(r0 + k), xv);
        s1 += SA_VMUL(SA_FN(loadu)(r1 + k), xv);
        s2 += SA_VMUL(SA_FN(loadu)(r2 + k), xv);
        s3 += SA_VMUL(SA_FN(loadu)(r3 + k), xv);
    }
    SA_U t0 = SA_FN(hsum)(s0), t1 = SA_FN(hsum)(s1), t2 = SA_FN(hsum)(s2), t3 = SA_FN(hsum)(s3);
    for (; k < K; ++k) {
        t0 += SA_SMUL(r0[k], x[k]);
        t1 += SA_SMUL(r1[k], x[k]);
        t2 += SA_SMUL(r2[k], x[k]);
        t3 += SA_SMUL(r3[k], x[k]);
    }
    out[0] = t0, out[1] = t1, out[2] = t2, out[3] = t3;
}

/* sum_k r[k] * x[dir*k] with dir = +1 or -1: a single row, four accumulators; a reversed x is
 * read a vector at a time and its lanes reversed, so a reversed operand needs no copy. */
#define SA_DOT1(name, XLOAD, XAT)                                                               \
    SA_ATTR SA_U SA_FN(name)(const SA_T *r, const SA_U *x, int64_t K)                           \
    {                                                                                           \
        SA_FN(vec) s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};                                      \
        int64_t k = 0;                                                                          \
        for (; k + 4 * SA_NR <= K; k += 4 * SA_NR) {                                            \
            s0 += SA_VMUL(SA_FN(loadu)(r + k), XLOAD(k));                                      \
            s1 += SA_VMUL(SA_FN(loadu)(r + k + SA_NR), XLOAD(k + SA_NR));                      \
            s2 += SA_VMUL(SA_FN(loadu)(r + k + 2 * SA_NR), XLOAD(k + 2 * SA_NR));              \
            s3 += SA_VMUL(SA_FN(loadu)(r + k + 3 * SA_NR), XLOAD(k + 3 * SA_NR));              \
        }                                                                                       \
        for (; k + SA_NR <= K; k += SA_NR) s0 += SA_VMUL(SA_FN(loadu)(r + k), XLOAD(k));   \
        SA_U t = SA_FN(hsum)((s0 + s1) + (s2 + s3));                                            \
        for (; k < K; ++k) t += SA_SMUL(r[k], XAT(k));                                       \
        return t;                                                                               \
    }
#define SA_XF(k) SA_FN(loadu)(x + (k))
#define SA_XFAT(k) x[k]
#define SA_XR(k) SA_FN(reverse)(SA_FN(loadu)(x - (k) - (SA_NR - 1)))
#define SA_XRAT(k) x[-(k)]
SA_DOT1(dot1, SA_XF, SA_XFAT)
SA_DOT1(dot1_rev, SA_XR, SA_XRAT)
#undef SA_XF
#undef SA_XFAT
#undef SA_XR
#undef SA_XRAT
#undef SA_DOT1

/* Copy a strided vector into aligned scratch (this is where a reversed vector becomes forward). */
SA_ATTR void SA_FN(pack_vec)(const SA_T *v, int64_t s, int64_t K, SA_U *restrict dst)
{
    if (s == -1) {
        for (int64_t k = 0; k < K; ++k) dst[k] = (SA_U)v[-k];
    } else {
        for (int64_t k = 0; k < K; ++k) dst[k] = (SA_U)v[k * s];
    }
}

/* N == 1: c(i) = sum_k A(i,k) b(k). The dispatcher has made a_inner >= 0 and, when A is
 * column-major (|a_row| == 1), a_row == 1. */
SA_KATTR int SA_FN(gemv)(const sa_contraction *g, int64_t count, const SA_T *a,
                        const int64_t *a_off, int64_t da, const SA_T *b, const int64_t *b_off,
                        int64_t db, SA_T *c, const int64_t *c_off, int64_t dc, int b_shared)
{
    const int64_t M = g->M, K = g->K;
    const int64_t ar = g->a_row, ak = g->a_inner, bk = g->b_inner, cr = g->c_row;
    /* Column-major A: accumulate whole columns (axpy), y[i] += A(i,k) * x[k], in chunks of
     * rows that stay in L1. Otherwise dot products along rows, gathering 4 rows at a time into
     * scratch when the rows are not contiguous. */
    const int axpy = ak != 1 && ar == 1 && M > 1;
    const int64_t chunk = 2048;
    /* b is used in place when contiguous; a reversed b is read backwards by the dot product
     * when there are too few rows to pay for a copy; otherwise it is packed (once if shared). */
    const int in_place = bk == 1;
    const int backwards = bk == -1 && ak == 1 && M < 4 && !(b_shared && count > 1);
    const int pack_once = !in_place && !backwards && b_shared;
    /* xlen + work elements of scratch (no copy of b when it is read where it is: a long dot
     * product then allocates nothing); with a zero-stride operand K can be any extent, so the
     * size is checked (-3: it does not fit int64_t) */
    int64_t xlen = 0, work = axpy ? (M < chunk ? M : chunk) : 0, nbytes;
    if ((!in_place && !backwards && sa_round_up_size(K, SA_NR, &xlen))
        || (!axpy && ak != 1 && sa_mul_size(4, K, &work)) || sa_add_size(xlen, work, &nbytes)
        || sa_mul_size(nbytes, sizeof(SA_U), &nbytes))
        return -3;
    SA_SCRATCH(buf, (size_t)nbytes);
    if (!buf) return -2;
    SA_U *xbuf = (SA_U *)buf, *w = xbuf + xlen;
    if (pack_once) SA_FN(pack_vec)(b + b_off[0] + db, bk, K, xbuf);
    for (int64_t t = 0; t < count; ++t) {
        const SA_T *at = a + a_off[t] + da;
        SA_T *ct = c + c_off[t] + dc;
        const SA_U *x = xbuf;
        if (in_place || backwards)
            x = (const SA_U *)(b + b_off[t] + db);
        else if (!pack_once)
            SA_FN(pack_vec)(b + b_off[t] + db, bk, K, xbuf);
        if (backwards) {
            for (int64_t i = 0; i < M; ++i) ct[i * cr] = (SA_T)SA_FN(dot1_rev)(at + i * ar, x, K);
            continue;
        }
        if (axpy) {
            for (int64_t i0 = 0; i0 < M; i0 += chunk) {
                int64_t m = M - i0 < chunk ? M - i0 : chunk;
                SA_U *restrict y = w;
                for (int64_t i = 0; i < m; ++i) y[i] = 0;
                int64_t k = 0;
                for (; k + 4 <= K; k += 4) {
                    const SA_T *p0 = at + i0 + k * ak, *p1 = p0 + ak, *p2 = p1 + ak, *p3 = p2 + ak;
                    SA_U x0 = x[k], x1 = x[k + 1], x2 = x[k + 2], x3 = x[k + 3];
                    for (int64_t i = 0; i < m; ++i)
                        y[i] += (SA_SMUL(p0[i], x0) + SA_SMUL(p1[i], x1)) +
                                (SA_SMUL(p2[i], x2) + SA_SMUL(p3[i], x3));
                }
                for (; k < K; ++k) {
                    const SA_T *p0 = at + i0 + k * ak;
                    SA_U x0 = x[k];
                    for (int64_t i = 0; i < m; ++i) y[i] += SA_SMUL(p0[i], x0);
                }
                for (int64_t i = 0; i < m; ++i) ct[(i0 + i) * cr] = (SA_T)y[i];
            }
            continue;
        }
        int64_t i = 0;
        SA_U out[4];
        for (; i + 4 <= M; i += 4) {
            if (ak == 1) {
                SA_FN(dot4)(at + i * ar, ar, x, K, out);
            } else {
                SA_T *rows = (SA_T *)w;
                for (int64_t r = 0; r < 4; ++r)
                    for (int64_t k = 0; k < K; ++k) rows[r * K + k] = at[(i + r) * ar + k * ak];
                SA_FN(dot4)(rows, K, x, K, out);
            }
            for (int64_t r = 0; r < 4; ++r) ct[(i + r) * cr] = (SA_T)out[r];
        }
        for (; i < M; ++i) {
            const SA_T *row = at + i * ar;
            if (ak != 1) {
                SA_T *rows = (SA_T *)w;
                for (int64_t k = 0; k < K; ++k) rows[k] = row[k * ak];
                row = rows;
            }
            ct[i * cr] = (SA_T)SA_FN(dot1)(row, x, K);
        }
    }
    SA_SCRATCH_FREE(buf);
    return 0;
}

#if defined(SA_MASK512) || defined(SA_MASK256)
/* Batches of tiny products (SA_FN(gemm_small) hands them here): at most 4 rows, fewer than
 * half a vector of columns, B's rows contiguous forward. Packing B per item would cost more
 * than the multiply, so B is read in place through masked loads, which touch nothing past its
 * N columns, and A in place through its strides: nothing is packed, and the item loop has no
 * panel bookkeeping. Measured at one thread with AVX-512 kernels on a loaded machine (A/B, best
 * of 50 calls), 20,000 2 x 2 products took 0.45-0.47x and 3 x 3 0.53-0.57x the time they took
 * through SA_FN(gemm_small), 4 x 3 (K = 4) 0.91-0.97x; a wider panel read masked was slower
 * (8 x 8 float32, 8 of 16 lanes: 1.45x), so those keep the packed panel. A function of its
 * own, so that SA_FN(gemm_small)'s loop keeps its code (a masked branch inside it made 8 x 8
 * float32 1.17x slower). */
SA_KATTR SA_NOINLINE int SA_FN(gemm_tiny)(const sa_contraction *g, int64_t count, const SA_T *a,
                                         const int64_t *a_off, int64_t da, const SA_T *b,
                                         const int64_t *b_off, int64_t db, SA_T *c,
                                         const int64_t *c_off, int64_t dc)
{
    const int64_t M = g->M, N = g->N, K = g->K;
    const int64_t ar = g->a_row, ak = g->a_inner, bk = g->b_inner;
    const int64_t cr = g->c_row, cc = g->c_col;
    int a_fits = 0, b_fits = 0;
    for (int64_t t = 0; t < count; ++t) {
        const SA_T *at = a + a_off[t] + da, *bt = b + b_off[t] + db;
        SA_T *ct = c + c_off[t] + dc;
        if (SA_HAS_NARROW && (t == 0 || a_off[t] != a_off[t - 1]))
            a_fits = SA_FN(fits32_strided)(at, M, K, ar, ak);
        if (SA_HAS_NARROW && (t == 0 || b_off[t] != b_off[t - 1]))
            b_fits = SA_FN(fits32_strided)(bt, K, N, bk, 1);
        const int flags = SA_HAS_NARROW && a_fits && b_fits ? SA_NARROW : 0;
        for (int64_t i = 0; i < M;) {
            int64_t w = 4;
            while (w > M - i) w >>= 1;
            SA_FN(mtile)(w, K, at + i * ar, ar, ak, bt, bk, ct + i * cr, cr, cc, N, flags);
            i += w;
        }
    }
    return 0;
}
#endif

/* Small products, every operand in L1 (A and B at most 16 KiB each, K within one block): the
 * blocking loops of SA_FN(gemm) and their bookkeeping cost more than the arithmetic here, so
 * the item loop calls the register tiles directly. A is read in place. B's full column panels
 * are read in place when its rows are contiguous (b_col = +1 or -1, the reversed rows with a
 * lane permute); the rest of B (all of it for other strides, else the last partial panel) is
 * packed, and packed again only when an item's B is not the previous item's (so a shared B,
 * or a run of items sharing one, is packed once); tiny products go to SA_FN(gemm_tiny). A is
 * packed the same way when the first two items share it (a broadcast lhs), and otherwise read
 * in place through its strides. Kept out of line so that its tile loops get the registers to
 * themselves. */
SA_KATTR SA_NOINLINE int SA_FN(gemm_small)(const sa_contraction *g, int64_t count, const SA_T *a,
                              const int64_t *a_off, int64_t da, const SA_T *b,
                              const int64_t *b_off, int64_t db, SA_T *c, const int64_t *c_off,
                              int64_t dc)
{
    const int64_t M = g->M, N = g->N, K = g->K;
    const int64_t ar = g->a_row, ak = g->a_inner, bk = g->b_inner, bc = g->b_col;
    const int64_t cr = g->c_row, cc = g->c_col;
#if defined(SA_MASK512) || defined(SA_MASK256)
    if (SA_CAN_MASK && bc == 1 && M <= 4 && 2 * N < SA_NR)
        return SA_FN(gemm_tiny)(g, count, a, a_off, da, b, b_off, db, c, c_off, dc);
#endif
    /* columns [0, j0) are read in place, [j0, N) from the packed copy */
    const int64_t j0 = bc == 1 || bc == -1 ? N / SA_NR * SA_NR : 0;
    const int64_t packed_len = (N - j0 + SA_NR - 1) / SA_NR * SA_NR * K;
    const int apacked = count > 1 && a_off[1] == a_off[0];
    /* rounded up so the B panels behind it stay 64-byte aligned */
    const int64_t a_len = apacked ? (M * K + 63) / 64 * 64 : 0;
    SA_SCRATCH(buf, (size_t)(a_len + packed_len + 1) * sizeof(SA_U));
    if (!buf) return -2;
    SA_U *abuf = (SA_U *)buf, *bbuf = abuf + a_len;
    int a_fits = 0, b_fits = 0;
    for (int64_t t = 0; t < count; ++t) {
        const SA_T *at = a + a_off[t] + da, *bt = b + b_off[t] + db;
        SA_T *ct = c + c_off[t] + dc;
        if (t == 0 || a_off[t] != a_off[t - 1]) {
            if (apacked) SA_FN(pack_a)(at, ar, ak, M, K, abuf);
            if (SA_HAS_NARROW) a_fits = SA_FN(fits32_strided)(at, M, K, ar, ak);
        }
        if (t == 0 || b_off[t] != b_off[t - 1]) {
            if (j0 < N) SA_FN(pack_b)(bt + j0 * bc, bk, bc, K, N - j0, bbuf);
            if (SA_HAS_NARROW) b_fits = SA_FN(fits32_strided)(bt, K, N, bk, bc);
        }
        const int flags = SA_HAS_NARROW && a_fits && b_fits ? SA_NARROW : 0;
        for (int64_t j = 0; j < N; j += SA_NR) {
            const int64_t n = N - j < SA_NR ? N - j : SA_NR;
            const int in_place = j < j0;
            const SA_T *bp = in_place ? bt + j * bc : (const SA_T *)(bbuf + (j - j0) * K);
            const int64_t bs = in_place ? bk : SA_NR;
            for (int64_t i = 0; i < M;) {
                int64_t w = SA_MR;
                while (w > M - i) w >>= 1;
                SA_T *cp = ct + i * cr + j * cc;
                const SA_T *ap = apacked ? (const SA_T *)(abuf + i * K) : at + i * ar;
                if (in_place && bc == -1)
                    SA_FN(stile)(w, apacked, K, ap, ar, ak, bp, bs, 1, cp, cr, cc, n, flags);
                else
                    SA_FN(stile)(w, apacked, K, ap, ar, ak, bp, bs, 0, cp, cr, cc, n, flags);
                i += w;
            }
        }
    }
    SA_SCRATCH_FREE(buf);
    return 0;
}

/* General M x K @ K x N, N > 1; the dispatcher has made c_col >= 0 and prefers |c_col| == 1. */
SA_KATTR int SA_FN(gemm)(const sa_contraction *g, int64_t count, const SA_T *a,
                        const int64_t *a_off, int64_t da, const SA_T *b, const int64_t *b_off,
                        int64_t db, SA_T *c, const int64_t *c_off, int64_t dc, int a_shared,
                        int b_shared)
{
    const int64_t M = g->M, N = g->N, K = g->K;
    /* A split K (kernels/kernels_internal.h) takes the packed path alone, for any N: the
     * other paths read one K stride. */
    const int ks = sa_k_split(g);
    if (N == 1 && !ks)
        return SA_FN(gemv)(g, count, a, a_off, da, b, b_off, db, c, c_off, dc, b_shared);
    /* Block sizes in elements, from byte budgets: B micro-panel KC*NR in L1 (16 KiB at 64-byte
     * vectors), packed A block MC*KC in L2 (192 KiB), packed B block KC*NC about 1 MiB. */
    enum { KC = 256 };
    int64_t koa[KC], kob[KC]; /* a split K's offsets in the current K block */
    const int64_t MC = (int64_t)(192 * 1024 / (KC * sizeof(SA_U))) / SA_MR * SA_MR;
    const int64_t NC = (int64_t)(1024 * 1024 / (KC * sizeof(SA_U))) / SA_NR * SA_NR;
    int64_t Mp, Np;
    if (sa_round_up_size(M, SA_MR, &Mp) || sa_round_up_size(N, SA_NR, &Np)) return -3;
    /* (the size tests saturate: with zero-stride operands the extents can be anything) */
    if (!ks && K <= KC && sa_mul_sat(sa_mul_sat(M, K), sizeof(SA_T)) <= 16384
        && sa_mul_sat(sa_mul_sat(Np, K), sizeof(SA_U)) <= 16384)
        return SA_FN(gemm_small)(g, count, a, a_off, da, b, b_off, db, c, c_off, dc);
    const int64_t kc_max = K < KC ? K : KC;
    /* A matrix shared by the whole batch is packed once, in full, if it fits the budget. */
    const int64_t full_budget = (int64_t)(4 * 1024 * 1024 / sizeof(SA_U));
    const int full_a = !ks && a_shared && count > 1 && sa_mul_sat(Mp, K) <= full_budget;
    const int full_b = !ks && b_shared && count > 1 && sa_mul_sat(Np, K) <= full_budget;
    /* A that fits in L1 (16 KiB) is read in place rather than packed per item. */
    const int direct_a =
        !ks && !full_a && sa_mul_sat(sa_mul_sat(M, K), sizeof(SA_T)) <= 16384;
    /* rounded up so the B panels behind it stay 64-byte aligned for the vector loads */
    const int64_t a_len =
        direct_a ? 0 : ((full_a ? Mp * K : (Mp < MC ? Mp : MC) * kc_max) + 63) / 64 * 64;
    const int64_t b_len = full_b ? Np * K : (Np < NC ? Np : NC) * kc_max;
    SA_SCRATCH(buf, (size_t)(a_len + b_len) * sizeof(SA_U));
    if (!buf) return -2;
    SA_U *abuf = (SA_U *)buf, *bbuf = abuf + a_len;
    const int64_t ar = g->a_row, ak = g->a_inner, bk = g->b_inner, bc = g->b_col;
    const int64_t cr = g->c_row, cc = g->c_col;
    /* narrow (SA_MUL32) is allowed while both operands were checked to fit 32 bits */
    int a_fits = 0, b_fits = 0;
    if (full_a) {
        SA_FN(pack_a)(a + a_off[0] + da, ar, ak, M, K, abuf);
        if (SA_HAS_NARROW) a_fits = SA_FN(fits32)(abuf, M * K);
    }
    if (full_b) {
        SA_FN(pack_b)(b + b_off[0] + db, bk, bc, K, N, bbuf);
        if (SA_HAS_NARROW) b_fits = SA_FN(fits32)(bbuf, Np * K);
    }
    for (int64_t t = 0; t < count; ++t) {
        const SA_T *at = a + a_off[t] + da, *bt = b + b_off[t] + db;
        SA_T *ct = c + c_off[t] + dc;
        /* an in-place A is checked through its strides (it is at most 16 KiB) */
        if (SA_HAS_NARROW && direct_a) a_fits = SA_FN(fits32_strided)(at, M, K, ar, ak);
        for (int64_t jc = 0; jc < N; jc += NC) {
            const int64_t nc = N - jc < NC ? N - jc : NC;
            for (int64_t pc = 0; pc < K; pc += KC) {
                const int64_t kc = K - pc < KC ? K - pc : KC;
                if (ks) sa_koffsets(g, pc, kc, koa, kob);
                if (!full_b) {
                    if (ks) SA_FN(pack_b_ks)(bt + jc * bc, kob, bk, bc, kc, nc, bbuf);
                    else SA_FN(pack_b)(bt + pc * bk + jc * bc, bk, bc, kc, nc, bbuf);
                    if (SA_HAS_NARROW) b_fits = SA_FN(fits32)(bbuf, (nc + SA_NR - 1) / SA_NR * SA_NR * kc);
                }
                for (int64_t ic = 0; ic < M; ic += MC) {
                    const int64_t mc = M - ic < MC ? M - ic : MC;
                    if (!full_a && !direct_a) {
                        if (ks) SA_FN(pack_a_ks)(at + ic * ar, ar, koa, mc, kc, abuf);
                        else SA_FN(pack_a)(at + ic * ar + pc * ak, ar, ak, mc, kc, abuf);
                        if (SA_HAS_NARROW) a_fits = SA_FN(fits32)(abuf, mc * kc);
                    }
                    const int flags = (pc > 0 ? SA_ACCUMULATE : 0) |
                                      (SA_HAS_NARROW && a_fits && b_fits ? SA_NARROW : 0);
                    for (int64_t jr = jc; jr < jc + nc; jr += SA_NR) {
                        const int64_t n = N - jr < SA_NR ? N - jr : SA_NR;
                        const SA_U *bp = full_b ? bbuf + jr * K + pc * SA_NR : bbuf + (jr - jc) * kc;
                        for (int64_t ir = ic; ir < ic + mc;) {
                            int64_t w = SA_MR;
                            while (w > ic + mc - ir) w >>= 1;
                            SA_T *cp = ct + ir * cr + jr * cc;
                            if (direct_a) {
                                SA_FN(dtile)(w, kc, at + ir * ar + pc * ak, ar, ak, bp, cp, cr, cc,
                                             n, flags);
                            } else {
                                const SA_U *ap =
                                    full_a ? abuf + ir * K + pc * w : abuf + (ir - ic) * kc;
                                SA_FN(tile)(w, kc, ap, bp, cp, cr, cc, n, flags);
                            }
                            ir += w;
                        }
                    }
                }
            }
        }
    }
    SA_SCRATCH_FREE(buf);
    return 0;
}

#undef SA_NR
#undef SA_CAN_MASK
#undef SA_HAS_NARROW
#undef SA_MUL32
#undef SA_MULV
#undef SA_SMUL
#undef SA_VMUL
#undef SA_ACCUMULATE
#undef SA_NARROW

SA_DEFINE_ENTRY(SA_T)
#undef SA_SUF
#undef SA_T
#undef SA_U
#undef SA_W
#undef SA_IDX
#undef SA_NARROW64
