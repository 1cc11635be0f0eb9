/* Direct CBLAS execution of a plan: the matrix-view predicate and the per-role vector rules
 * (docs/matmul.md, "What BLAS can read"), and the calls (?gemm, ?gemv, ?dot / ?dotu_sub) over
 * the batch. */
#include <cblas.h>

#include "matmul/matmul_internal.h"
#include "runtime/threads_internal.h"


/* blasint in scipy-openblas32 is 32-bit: every dimension, leading dimension and increment
 * handed to BLAS must fit. */
#define BLAS_MAX 2147483647LL

int mm_blas_dtype_ok(int dtype)
{
    return dtype == SA_FLOAT32 || dtype == SA_FLOAT64 || dtype == SA_COMPLEX64
           || dtype == SA_COMPLEX128;
}

typedef struct {
    int ok;
    int trans; /* 0: row-major rows x cols with ld; 1: the memory is cols x rows row-major */
    int64_t ld;
} mat_view;

/* A rows x cols matrix with signed strides (rs, cs) is BLAS-viewable when one axis has unit
 * stride and the other a valid leading dimension (padding allowed). Negative, step-two or
 * doubly strided views are not. An axis of extent 1 never moves, so its stride is free. */
static mat_view view_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs)
{
    mat_view v = {0, 0, 0};
    int64_t c1 = cols > 1 ? cols : 1, r1 = rows > 1 ? rows : 1;
    if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= c1)) {
        v.ok = 1;
        v.ld = rows <= 1 ? c1 : rs;
    } else if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= r1)) {
        v.ok = 1;
        v.trans = 1;
        v.ld = cols <= 1 ? r1 : cs;
    }
    return v;
}

static int fits(int64_t x) { return x >= -BLAS_MAX && x <= BLAS_MAX; }

/* Vector rules per role (docs/matmul.md, "What BLAS can read"): DOT takes both strides +1 or
 * both -1; GEMV/GEVM take a positive stride. */
int mm_blas_layout(const mm_plan *p, int *bad_lhs, int *bad_rhs)
{
    const sa_mm_explain *f = &p->f;
    int bl = 0, br = 0;
    /* A split K (sa_matmul_ksplit) has no BLAS view, and no operand is to blame: packing one
     * would not make it one (the descriptors merge K over memory that is not one run). */
    if (f->K2) {
        if (bad_lhs) *bad_lhs = 0;
        if (bad_rhs) *bad_rhs = 0;
        return SA_MM_DECLINE_LAYOUT;
    }
    if (!fits(f->M) || !fits(f->N) || !fits(f->K)) return SA_MM_DECLINE_TOO_LARGE;
    switch (f->role) {
    case SA_MM_DOT: {
        int64_t x = f->lhs_inner, y = f->rhs_inner;
        int same = (x == 1 && y == 1) || (x == -1 && y == -1);
        if (!same && f->K > 1) bl = br = 1;
        break;
    }
    case SA_MM_GEMV: {
        mat_view a = view_of(f->M, f->K, f->lhs_row, f->lhs_inner);
        bl = !a.ok || !fits(a.ld);
        br = !(f->rhs_inner > 0 || f->K <= 1) || !fits(f->rhs_inner);
        break;
    }
    case SA_MM_GEVM: {
        mat_view b = view_of(f->K, f->N, f->rhs_inner, f->rhs_col);
        br = !b.ok || !fits(b.ld);
        bl = !(f->lhs_inner > 0 || f->K <= 1) || !fits(f->lhs_inner);
        break;
    }
    default: {
        mat_view a = view_of(f->M, f->K, f->lhs_row, f->lhs_inner);
        mat_view b = view_of(f->K, f->N, f->rhs_inner, f->rhs_col);
        bl = !a.ok || !fits(a.ld);
        br = !b.ok || !fits(b.ld);
        break;
    }
    }
    if (bad_lhs) *bad_lhs = bl;
    if (bad_rhs) *bad_rhs = br;
    /* The output is always C-contiguous (allocated by the caller); check it anyway. */
    mat_view c = view_of(f->M, f->N, f->out_row, f->out_col);
    if (!c.ok || c.trans || !fits(c.ld)) return SA_MM_DECLINE_LAYOUT;
    return (bl || br) ? SA_MM_DECLINE_LAYOUT : SA_MM_ACCEPTED;
}

/* One BLAS call per contraction, the kind of call fixed before the loop. */
typedef struct {
    int role;
    mat_view a, b;
    int64_t ldc;
    int64_t inc_a, inc_b; /* vector increments (1 when K <= 1: the stride never applies) */
    int threads;          /* our threads for the batch (each BLAS call runs one) */
    int bands;            /* >= 2: each product is computed in this many bands */
    int kbands;           /* >= 2: the one product is summed over K in this many parts */
} blas_geo;

static const float one_c64[2] = {1.0f, 0.0f}, zero_c64[2] = {0.0f, 0.0f};
static const double one_c128[2] = {1.0, 0.0}, zero_c128[2] = {0.0, 0.0};

/* The split dimension of a role: GEMM and GEVM split C's columns, GEMV its rows (a band of
 * output elements is a smaller BLAS call of the same kind); DOT has one output element. */
static int64_t split_extent(const sa_mm_explain *f)
{
    switch (f->role) {
    case SA_MM_GEMV: return f->M;
    case SA_MM_DOT: return 1;
    default: return f->N;
    }
}

/* Bands. OpenBLAS's result for an element depends on the shape of the call that computes it
 * (its small-matrix kernels take some shapes and not others, and edge tiles sum in another
 * order), so a band of a product can differ in the last bits from the same columns computed
 * as part of the whole product: measured here with both the AVX2 and the AVX-512 kernel sets,
 * for bands of any width. Splitting a product into bands over threads would make the result
 * depend on the thread count. So the bands are a function of the product's shape alone: a
 * product of at least BLAS_BAND_MIN_WORK(_VEC) multiply-adds in a batch of fewer than
 * BLAS_BAND_MAX_ITEMS is computed in bands of at least BLAS_BAND_MIN_WIDTH columns (rows
 * for GEMV), on one thread as on many; the threads share the bands out. Larger batches split
 * over their items, each a whole call. The extra cost at one thread is one more packing of
 * the other operand per band. */
#define BLAS_BAND 16 /* band edges: whole cache lines of the output */
#define BLAS_BAND_MIN_WORK ((int64_t)1 << 22)     /* GEMM; GEMV and GEVM: the line below */
#define BLAS_BAND_MIN_WORK_VEC ((int64_t)1 << 20) /* (memory-bound: 8 MiB of float64) */
#define BLAS_BAND_MIN_WIDTH 128
#define BLAS_BAND_MAX_ITEMS 8

static int blas_bands(const sa_mm_explain *f)
{
    if (f->role == SA_MM_DOT || f->C >= BLAS_BAND_MAX_ITEMS) return 1;
    const int64_t least = f->role == SA_MM_GEMM ? BLAS_BAND_MIN_WORK : BLAS_BAND_MIN_WORK_VEC;
    if (sa_work4(1, f->M, f->N, f->K) < least) return 1;
    /* 2 to 4 bands (each one more packing of the other operand: about 3-7% at one thread,
     * measured at S = 256-1024), up to 16 for very wide products. */
    const int64_t ext = split_extent(f);
    int64_t b = ext / BLAS_BAND_MIN_WIDTH, wide = ext / 512;
    b = b > 4 ? 4 : b;
    b = wide > b ? (wide > 16 ? 16 : wide) : b;
    return b < 2 ? 1 : (int)b;
}

/* K parts. A product too narrow for column bands (an output of fewer than 2 x 128 columns)
 * but deep (opt_einsum#143's 128 x 128 output over K = 4096, a dot product of a million
 * elements) would otherwise run on one thread. It is summed instead in K parts, each a BLAS
 * call over a slice of K into an output of its own (the first into C), and the parts are then
 * added into C in their order. The parts are a function of the product's shape alone, so the
 * result is the same on one thread as on many, as for column bands; it differs from one BLAS
 * call over all of K only by the order of the sums. The extra cost at one thread is the other
 * parts' outputs: at most BLAS_KBAND_MAX_OUT elements each, written once and read once,
 * against at least BLAS_BAND_MIN_WORK multiply-adds (a dot product: one element). GEMV and
 * GEVM have an output of M or N elements to band already. */
#define BLAS_KBAND_MIN_DEPTH 512                 /* GEMM: each part at least this deep */
#define BLAS_KBAND_MIN_DEPTH_DOT ((int64_t)1 << 16) /* DOT: 512 KiB of float64 per operand */
#define BLAS_KBAND_MAX_OUT ((int64_t)1 << 16)     /* GEMM: M x N at most (512 KiB float64) */
/* Two parts: the second thread of a two-core machine, for one more output of memory (a part
 * per thread beyond would cost an output each, for machines the parts cannot follow). */
#define BLAS_KBANDS_MAX 2

static int blas_kbands(const sa_mm_explain *f)
{
    if (f->C != 1 || blas_bands(f) >= 2) return 1;
    int64_t b;
    if (f->role == SA_MM_GEMM) {
        /* (M and N fit 32 bits here, mm_blas_layout: the product cannot overflow) */
        if (sa_work4(1, f->M, f->N, f->K) < BLAS_BAND_MIN_WORK || f->M * f->N > BLAS_KBAND_MAX_OUT)
            return 1;
        b = f->K / BLAS_KBAND_MIN_DEPTH;
    } else if (f->role == SA_MM_DOT) {
        b = f->K / BLAS_KBAND_MIN_DEPTH_DOT;
    } else {
        return 1;
    }
    return b < 2 ? 1 : b > BLAS_KBANDS_MAX ? BLAS_KBANDS_MAX : (int)b;
}

/* DOT with both vectors reversed (the layout rule admits both +1 or both -1): the products
 * pair the same elements when both are walked forward from their lowest addresses, and BLAS's
 * fast kernels are the unit-increment ones (a negative increment takes OpenBLAS's scalar
 * loop). Only the summation order changes. */
#define DOT_FORWARD(K, a, ia, b, ib)                                                       \
    if (ia < 0 && ib < 0) {                                                                \
        a += (K - 1) * ia;                                                                 \
        b += (K - 1) * ib;                                                                 \
        ia = -ia;                                                                          \
        ib = -ib;                                                                          \
    }

static void dot_s(blasint K, const float *a, int64_t ia, const float *b, int64_t ib, float *c)
{
    DOT_FORWARD(K, a, ia, b, ib)
    *c = scipy_cblas_sdot(K, a, (blasint)ia, b, (blasint)ib);
}
static void dot_d(blasint K, const double *a, int64_t ia, const double *b, int64_t ib,
                  double *c)
{
    DOT_FORWARD(K, a, ia, b, ib)
    *c = scipy_cblas_ddot(K, a, (blasint)ia, b, (blasint)ib);
}
static void dot_c(blasint K, const sa_c64 *a, int64_t ia, const sa_c64 *b, int64_t ib,
                  sa_c64 *c)
{
    DOT_FORWARD(K, a, ia, b, ib)
    scipy_cblas_cdotu_sub(K, a, (blasint)ia, b, (blasint)ib, c);
}
static void dot_z(blasint K, const sa_c128 *a, int64_t ia, const sa_c128 *b, int64_t ib,
                  sa_c128 *c)
{
    DOT_FORWARD(K, a, ia, b, ib)
    scipy_cblas_zdotu_sub(K, a, (blasint)ia, b, (blasint)ib, c);
}

/* X(pfx, ctype, ONE, ZERO): the four BLAS dtypes with how alpha/beta are passed.
 * item_<pfx> computes band [lo, hi) of the split dimension of one contraction (all of it
 * for DOT); chunk_<pfx> runs n contractions, over the batch on `threads` threads when there
 * are enough items, else each product in bands. */
#define BLAS_GEMM_CHUNK(pfx, ctype, ONE, ZERO)                                             \
    static void item_##pfx(const blas_geo *g, const sa_mm_explain *f, const ctype *a,      \
                           const ctype *b, ctype *c, int64_t lo, int64_t hi)               \
    {                                                                                      \
        blasint M = (blasint)f->M, N = (blasint)f->N, K = (blasint)f->K;                   \
        switch (g->role) {                                                                 \
        case SA_MM_GEMM:                                                                   \
            b += lo * (g->b.trans ? g->b.ld : 1);                                          \
            scipy_cblas_##pfx##gemm(CblasRowMajor, g->a.trans ? CblasTrans : CblasNoTrans, \
                                    g->b.trans ? CblasTrans : CblasNoTrans, M,             \
                                    (blasint)(hi - lo), K, ONE, a, (blasint)g->a.ld, b,    \
                                    (blasint)g->b.ld, ZERO, c + lo, (blasint)g->ldc);      \
            break;                                                                         \
        case SA_MM_GEMV: /* y(M) = A x */                                                  \
            a += lo * (g->a.trans ? 1 : g->a.ld);                                          \
            M = (blasint)(hi - lo);                                                        \
            if (!g->a.trans)                                                               \
                scipy_cblas_##pfx##gemv(CblasRowMajor, CblasNoTrans, M, K, ONE, a,         \
                                        (blasint)g->a.ld, b, (blasint)g->inc_b, ZERO,      \
                                        c + lo, 1);                                        \
            else                                                                           \
                scipy_cblas_##pfx##gemv(CblasRowMajor, CblasTrans, K, M, ONE, a,           \
                                        (blasint)g->a.ld, b, (blasint)g->inc_b, ZERO,      \
                                        c + lo, 1);                                        \
            break;                                                                         \
        case SA_MM_GEVM: /* y(N) = B^T x */                                                \
            b += lo * (g->b.trans ? g->b.ld : 1);                                          \
            N = (blasint)(hi - lo);                                                        \
            if (!g->b.trans)                                                               \
                scipy_cblas_##pfx##gemv(CblasRowMajor, CblasTrans, K, N, ONE, b,           \
                                        (blasint)g->b.ld, a, (blasint)g->inc_a, ZERO,      \
                                        c + lo, 1);                                        \
            else                                                                           \
                scipy_cblas_##pfx##gemv(CblasRowMajor, CblasNoTrans, N, K, ONE, b,         \
                                        (blasint)g->b.ld, a, (blasint)g->inc_a, ZERO,      \
                                        c + lo, 1);                                        \
            break;                                                                         \
        default:                                                                           \
            dot_##pfx(K, a, g->inc_a, b, g->inc_b, c);                                     \
            break;                                                                         \
        }                                                                                  \
    }                                                                                      \
    typedef struct {                                                                       \
        const blas_geo *g;                                                                 \
        const sa_mm_explain *f;                                                            \
        const ctype *A, *B;                                                                \
        ctype *C;                                                                          \
        const int64_t *ao, *bo, *co;                                                       \
        int64_t n, ext;                                                                    \
        int by_item;                                                                       \
        int64_t nchunks;                                                                   \
    } blas_job_##pfx;                                                                      \
    /* chunk k: a run of the items, or a band of every item (edges on BLAS_BAND) */        \
    static void part_##pfx(void *ctx, int64_t k)                                           \
    {                                                                                      \
        const blas_job_##pfx *j = (const blas_job_##pfx *)ctx;                             \
        if (j->by_item) {                                                                  \
            const int64_t t0 = j->n * k / j->nchunks, t1 = j->n * (k + 1) / j->nchunks;    \
            for (int64_t t = t0; t < t1; ++t)                                              \
                item_##pfx(j->g, j->f, j->A + j->ao[t], j->B + j->bo[t], j->C + j->co[t],  \
                           0, j->ext);                                                     \
        } else {                                                                           \
            const int64_t lo = j->ext * k / j->nchunks / BLAS_BAND * BLAS_BAND;            \
            const int64_t hi = k == j->nchunks - 1                                         \
                                   ? j->ext                                                \
                                   : j->ext * (k + 1) / j->nchunks / BLAS_BAND * BLAS_BAND; \
            if (hi > lo)                                                                   \
                for (int64_t t = 0; t < j->n; ++t)                                         \
                    item_##pfx(j->g, j->f, j->A + j->ao[t], j->B + j->bo[t],               \
                               j->C + j->co[t], lo, hi);                                   \
        }                                                                                  \
    }                                                                                      \
    /* K part k of the one product: GEMM into C (part 0) or its own M x N scratch, DOT into \
     * one element; over K slice [k0, k1) of both operands. */                             \
    typedef struct {                                                                       \
        const blas_geo *g;                                                                 \
        const sa_mm_explain *f;                                                            \
        const ctype *a, *b;                                                                \
        ctype *c, *parts;                                                                  \
    } blas_kjob_##pfx;                                                                     \
    static void kpart_##pfx(void *ctx, int64_t k)                                          \
    {                                                                                      \
        const blas_kjob_##pfx *j = (const blas_kjob_##pfx *)ctx;                           \
        const blas_geo *g = j->g;                                                          \
        const sa_mm_explain *f = j->f;                                                     \
        const int64_t k0 = f->K * k / g->kbands, k1 = f->K * (k + 1) / g->kbands;          \
        if (f->role == SA_MM_DOT) {                                                        \
            ctype *c = k == 0 ? j->c : j->parts + (k - 1);                                 \
            dot_##pfx((blasint)(k1 - k0), j->a + k0 * g->inc_a, g->inc_a,                  \
                      j->b + k0 * g->inc_b, g->inc_b, c);                                  \
            return;                                                                        \
        }                                                                                  \
        ctype *c = k == 0 ? j->c : j->parts + (k - 1) * f->M * f->N;                       \
        const int64_t ldc = k == 0 ? g->ldc : f->N;                                        \
        scipy_cblas_##pfx##gemm(CblasRowMajor, g->a.trans ? CblasTrans : CblasNoTrans,     \
                                g->b.trans ? CblasTrans : CblasNoTrans, (blasint)f->M,     \
                                (blasint)f->N, (blasint)(k1 - k0), ONE,                    \
                                j->a + k0 * (g->a.trans ? g->a.ld : 1), (blasint)g->a.ld,  \
                                j->b + k0 * (g->b.trans ? 1 : g->b.ld), (blasint)g->b.ld,  \
                                ZERO, c, (blasint)ldc);                                    \
    }                                                                                      \
    static int kbands_##pfx(const blas_geo *g, const sa_mm_explain *f, const ctype *a,     \
                            const ctype *b, ctype *c)                                      \
    {                                                                                      \
        const int64_t mn = f->role == SA_MM_DOT ? 1 : f->M * f->N;                         \
        ctype *parts =                                                                     \
            (ctype *)sa_alloc(SA_ALLOC_SCRATCH, (size_t)((g->kbands - 1) * mn) * sizeof(ctype)); \
        if (!parts) return SA_MM_ERR_NOMEM;                                                \
        blas_kjob_##pfx j = {g, f, a, b, c, parts};                                        \
        sa_parallel(g->threads, g->kbands, kpart_##pfx, &j);                               \
        const int64_t rows = f->role == SA_MM_DOT ? 1 : f->M, cols = mn / rows;            \
        for (int k = 1; k < g->kbands; ++k) /* part by part, in order (see blas_kbands) */ \
            for (int64_t i = 0; i < rows; ++i)                                             \
                for (int64_t l = 0; l < cols; ++l)                                         \
                    c[i * g->ldc + l] += parts[(k - 1) * mn + i * cols + l];               \
        sa_free(parts);                                                                    \
        return 0;                                                                          \
    }                                                                                      \
    static int chunk_##pfx(void *ctx, const mm_plan *p, int64_t n, const int64_t *ao,      \
                           const int64_t *bo, const int64_t *co)                           \
    {                                                                                      \
        const blas_geo *g = (const blas_geo *)ctx;                                         \
        const sa_mm_explain *f = &p->f;                                                    \
        const ctype *A = (const ctype *)p->lhs, *B = (const ctype *)p->rhs;                \
        ctype *Cm = (ctype *)p->out;                                                       \
        if (g->kbands >= 2 && n == 1) /* (kbands: a batch of one) */                       \
            return kbands_##pfx(g, f, A + ao[0], B + bo[0], Cm + co[0]);                   \
        const int64_t ext = split_extent(f);                                               \
        const int by_item = g->bands < 2;                                                  \
        if (by_item && (g->threads < 2 || n < 2)) {                                        \
            for (int64_t t = 0; t < n; ++t)                                                \
                item_##pfx(g, f, A + ao[t], B + bo[t], Cm + co[t], 0, ext);                \
            return 0;                                                                      \
        }                                                                                  \
        blas_job_##pfx j = {g, f, A, B, Cm, ao, bo, co, n, ext, by_item, 0};                \
        if (by_item) j.nchunks = 4 * (int64_t)g->threads < n ? 4 * (int64_t)g->threads : n; \
        else j.nchunks = g->bands; /* the same bands on any number of threads */           \
        sa_parallel(g->threads, j.nchunks, part_##pfx, &j);                               \
        return 0;                                                                          \
    }

BLAS_GEMM_CHUNK(s, float, 1.0f, 0.0f)
BLAS_GEMM_CHUNK(d, double, 1.0, 0.0)
BLAS_GEMM_CHUNK(c, sa_c64, one_c64, zero_c64)
BLAS_GEMM_CHUNK(z, sa_c128, one_c128, zero_c128)

int64_t mm_blas_calls(const mm_plan *p)
{
    if (p->f.C == 0 || p->f.M == 0 || p->f.N == 0 || p->f.K == 0) return 0;
    return p->f.C;
}

int mm_blas_splits(const mm_plan *p)
{
    return (p->f.role != SA_MM_DOT || blas_kbands(&p->f) >= 2)
           && scipy_openblas_get_num_threads() == 1;
}

int64_t mm_blas_parts(const mm_plan *p)
{
    int b = blas_bands(&p->f), kb = blas_kbands(&p->f);
    return b >= 2 ? b : kb >= 2 ? kb : p->f.C;
}

int mm_blas_execute(const mm_plan *p, int threads)
{
    const sa_mm_explain *f = &p->f;
    blas_geo g;
    g.role = f->role;
    g.a = view_of(f->M, f->K, f->lhs_row, f->lhs_inner);
    g.b = view_of(f->K, f->N, f->rhs_inner, f->rhs_col);
    g.ldc = f->M <= 1 ? (f->N > 1 ? f->N : 1) : f->out_row;
    g.inc_a = f->K <= 1 ? 1 : f->lhs_inner;
    g.inc_b = f->K <= 1 ? 1 : f->rhs_inner;
    g.threads = threads;
    /* (while OpenBLAS runs its own threads, each product is one call, as before) */
    const int splits = mm_blas_splits(p);
    g.bands = splits ? blas_bands(f) : 1;
    g.kbands = splits ? blas_kbands(f) : 1;
    /* Without bands the threads share out whole items of the batch (each call on one). */
    const int items = g.bands < 2 && g.kbands < 2 && threads >= 2;
    if (items) g.threads = 1;
    mm_chunk_fn fn;
    switch (f->dtype) {
    case SA_FLOAT32: fn = chunk_s; break;
    case SA_FLOAT64: fn = chunk_d; break;
    case SA_COMPLEX64: fn = chunk_c; break;
    case SA_COMPLEX128: fn = chunk_z; break;
    default: return SA_MM_ERR_INTERNAL;
    }
    return items ? mm_for_each_chunk_threads(p, threads, fn, &g) : mm_for_each_chunk(p, fn, &g);
}
