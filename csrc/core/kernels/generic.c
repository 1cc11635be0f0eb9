/* The generic matmul route: any signed strides, every numeric dtype, always correct.
 *
 * sa_generic_matmul (declared in kernels/kernels_internal.h) normalizes the geometry
 * (independent of dtype), notices operands shared by the whole batch, and calls the kernel for
 * the dtype on the best instruction set this CPU has. The kernels themselves are templates
 * (kernels/generic_real.h, kernels/generic_complex.h) instantiated per dtype by
 * kernels/generic_target.h, once per target, each target in a file of its own: AVX-512 (64-byte
 * vectors, kernels/generic_avx512.c), AVX2+FMA (32-byte, kernels/generic_avx2.c) and the
 * baseline (16-byte, SSE2 on x86-64, kernels/generic_base.c).
 * The build uses no special compiler flags; the targets are per-function attributes and the
 * choice is made at run time from the CPU's feature bits (read-only state).
 */
#include "kernels/generic_common.h"
#include "runtime/threads_internal.h"

#include <stdatomic.h>

static const sa_generic_entry *sa_generic_pick(void)
{
#if defined(SA_GENERIC_TARGET) && defined(SA_X86)
    /* Build-time override so the narrower targets can be tested on an AVX-512 machine
     * (-DSA_GENERIC_TARGET=1 for AVX2, 2 for the baseline). */
    return SA_GENERIC_TARGET == 1 ? sa_generic_table_avx2 : sa_generic_table_base;
#endif
#if defined(SA_X86) /* (not in the scalar build, kernels/generic_common.h) */
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("fma"))
        return sa_generic_table_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return sa_generic_table_avx2;
#endif
    return sa_generic_table_base;
}

static int sa_all_equal(const int64_t *off, int64_t count)
{
    for (int64_t t = 1; t < count; ++t)
        if (off[t] != off[0]) return 0;
    return 1;
}

/* Run the kernel on up to `nthreads` threads (sa_parallel). Every chunk runs the same kernel
 * on a part of the output: a contiguous run of the batch items when there are at least as
 * many items as threads, else a band of C's rows (of the normalized geometry) or, when rows
 * are too few, a band of its columns. The contraction over K is never split, and each output
 * element is computed by the same code on the same operands as on one thread, so the result
 * is the same bit for bit, whatever the chunks and whichever thread runs them. Band edges are
 * multiples of 8 rows (the row-group sizes of the tiles and of the N == 1 dot products start
 * afresh at a band's first row, so they must line up with one thread's groups) or of 64
 * columns (a column panel is at most 64 wide, and no band but the last is narrower than 64,
 * so none becomes the N == 1 case).
 *
 * Chunks: about four per thread, so that a worker that joins late still finds work and the
 * caller, done with its own, waits for one short chunk at most; a row band is at least 32
 * rows where the rows allow (each band packs its own copy of B's panels). */
typedef struct {
    sa_generic_entry fn;
    const sa_contraction *h;
    int how; /* 0 items, 1 rows, 2 columns */
    int64_t extent, align, nchunks, count;
    const char *a, *b;
    char *c;
    const int64_t *a_off, *b_off, *c_off;
    int64_t da, db, dc;
    int a_shared, b_shared;
    atomic_int rc;
} generic_job;

static void generic_part(void *ctx, int64_t k)
{
    generic_job *j = (generic_job *)ctx;
    const sa_contraction *h = j->h;
    /* band [lo, hi) of `extent`, edges rounded down to `align`, the last one at extent */
    const int64_t lo = j->extent * k / j->nchunks / j->align * j->align;
    const int64_t hi =
        k == j->nchunks - 1 ? j->extent : j->extent * (k + 1) / j->nchunks / j->align * j->align;
    if (hi <= lo) return;
    sa_contraction part = *h;
    int r;
    if (j->how == 0) {
        r = j->fn(h, hi - lo, j->a, j->a_off + lo, j->da, j->b, j->b_off + lo, j->db, j->c,
                  j->c_off + lo, j->dc, j->a_shared, j->b_shared);
    } else if (j->how == 1) {
        part.M = hi - lo;
        r = j->fn(&part, j->count, j->a, j->a_off, j->da + lo * h->a_row, j->b, j->b_off, j->db,
                  j->c, j->c_off, j->dc + lo * h->c_row, j->a_shared, j->b_shared);
    } else {
        part.N = hi - lo;
        r = j->fn(&part, j->count, j->a, j->a_off, j->da, j->b, j->b_off, j->db + lo * h->b_col,
                  j->c, j->c_off, j->dc + lo * h->c_col, j->a_shared, j->b_shared);
    }
    if (r != 0) atomic_store(&j->rc, r); /* a failure (no memory, size overflow) is reported */
}

static int sa_generic_split(sa_generic_entry fn, int nthreads, const sa_contraction *h,
                            int64_t count, const char *a, const int64_t *a_off, int64_t da,
                            const char *b, const int64_t *b_off, int64_t db, char *c,
                            const int64_t *c_off, int64_t dc, int a_shared, int b_shared)
{
    int how;
    int64_t extent, align, per = 1;
    if (count >= nthreads) {
        how = 0, extent = count, align = 1;
    } else if (h->N == 1 || h->M >= 8 * (int64_t)nthreads || h->M >= h->N) {
        how = 1, extent = h->M, align = 8, per = 4;
    } else {
        how = 2, extent = h->N, align = 64;
    }
    const int64_t parts = extent / align;
    int64_t nch = 4 * (int64_t)nthreads;
    if (nch > parts / per) nch = parts / per;
    if (nch < nthreads) nch = nthreads;
    if (nch > parts) nch = parts;
    if (nch < 2)
        return fn(h, count, a, a_off, da, b, b_off, db, c, c_off, dc, a_shared, b_shared);
    generic_job j = {fn, h, how, extent, align, nch, count, a, b, c, a_off, b_off, c_off,
                     da, db, dc, a_shared, b_shared, 0};
    sa_parallel(nthreads, nch, generic_part, &j);
    return atomic_load(&j.rc);
}

int sa_generic_matmul_threads(int nthreads, int dtype, const sa_contraction *g, int64_t count,
                              const char *a, const int64_t *a_off,
                              const char *b, const int64_t *b_off,
                              char *c, const int64_t *c_off)
{
    if (dtype <= SA_BOOL || dtype >= SA_NDTYPES) return -1;
    if (g->M <= 0 || g->N <= 0 || count <= 0) return 0;
    const int64_t size = sa_itemsize(dtype);
    if (g->K <= 0) {
        /* All-zero bits is zero for every numeric dtype. */
        for (int64_t t = 0; t < count; ++t)
            for (int64_t i = 0; i < g->M; ++i)
                for (int64_t j = 0; j < g->N; ++j)
                    memset(c + (c_off[t] + i * g->c_row + j * g->c_col) * size, 0, (size_t)size);
        return 0;
    }
    sa_contraction h = *g;
    int64_t da = 0, db = 0, dc = 0;
    /* A split K (kernels/kernels_internal.h) that is one axis after all (K2 == 1, or outer
     * strides that continue the inner ones in both operands) is made one, so that the paths
     * that read a single K stride take it; a split one takes the packed path. */
    if (!sa_k_split(&h)) {
        h.K2 = 0;
    } else if (h.K % h.K2 != 0) {
        return -1;
    } else if (h.K2 == 1) {
        h.K2 = 0, h.a_inner = h.a_outer, h.b_inner = h.b_outer;
    } else if (h.a_outer == h.a_inner * h.K2 && h.b_outer == h.b_inner * h.K2) {
        h.K2 = 0;
    }
    /* Transpose (C^T = B^T A^T) so that a vector operand is always B (N == 1), and otherwise so
     * that C's rows are the contiguous direction the register tile stores along. */
    if ((h.M == 1 && h.N > 1) ||
        (h.M > 1 && h.N > 1 && h.c_col != 1 && h.c_col != -1 && (h.c_row == 1 || h.c_row == -1))) {
        sa_contraction t = {h.N,     h.M,       h.K,       h.b_col, h.b_inner, h.a_inner,
                            h.a_row, h.c_col,   h.c_row,   h.K2,    h.b_outer, h.a_outer};
        h = t;
        const char *p = a;
        a = b;
        b = p;
        const int64_t *o = a_off;
        a_off = b_off;
        b_off = o;
    }
    /* Reversing an axis of the index space changes nothing but the visiting order; do it where
     * it turns a negative stride positive: N so C's rows run forward; for N == 1, K so A's rows
     * read forward (b is packed anyway), and M so a column-major A reads forward. */
    if (h.N > 1 && h.c_col < 0) {
        db += (h.N - 1) * h.b_col, h.b_col = -h.b_col;
        dc += (h.N - 1) * h.c_col, h.c_col = -h.c_col;
    }
    if (h.N == 1 && h.a_inner < 0 && !h.K2) {
        da += (h.K - 1) * h.a_inner, h.a_inner = -h.a_inner;
        db += (h.K - 1) * h.b_inner, h.b_inner = -h.b_inner;
    }
    if (h.N == 1 && h.a_inner != 1 && h.a_row == -1) {
        da += (h.M - 1) * h.a_row, h.a_row = 1;
        dc += (h.M - 1) * h.c_row, h.c_row = -h.c_row;
    }
    const int a_shared = count > 1 && sa_all_equal(a_off, count);
    const int b_shared = count > 1 && sa_all_equal(b_off, count);
    const sa_generic_entry fn = sa_generic_pick()[dtype];
    if (nthreads > 1)
        return sa_generic_split(fn, nthreads, &h, count, a, a_off, da, b, b_off, db, c, c_off, dc,
                                a_shared, b_shared);
    return fn(&h, count, a, a_off, da, b, b_off, db, c, c_off, dc, a_shared, b_shared);
}

int sa_generic_matmul(int dtype, const sa_contraction *g, int64_t count,
                      const char *a, const int64_t *a_off,
                      const char *b, const int64_t *b_off,
                      char *c, const int64_t *c_off)
{
    return sa_generic_matmul_threads(1, dtype, g, count, a, a_off, b, b_off, c, c_off);
}
