/* ThreadSanitizer harness of the C core's threaded paths (tools/checks/tsan/run builds and runs
 * it).
 *
 * Every product runs through sa_matmul, the entry point `@` uses, on 1 thread and on 2, 3
 * and 4, with parallel_min_work = 0 so that every split happens: the generic kernel over the
 * batch, in row bands and in column bands (every dtype family); the BLAS routes over the
 * batch and in column or row bands (GEMM, GEMV, GEVM); pack-once BLAS (the pack, then the
 * batch); casts while packing; and a large pack (sa_to_row_major) in bands. The results on
 * several threads must equal the one-thread results bit for bit (the BLAS bands call the
 * same OpenBLAS kernels on the same data, and the generic kernel never splits K). The
 * generic products are also compared with the reference kernel (force = reference, a plain
 * loop): the data are small integers or multiples of 1/8 and every sum fits the mantissa,
 * so every summation order gives the same bits. That is what checks a build of the generic
 * kernels on another instruction set or on the scalar path (tools/platforms/cross-aarch64,
 * tools/checks/generic-scalar-check), where the thread comparisons alone would not see a wrong
 * kernel.
 * Exits 0 when every comparison holds; TSan's own reports make it exit 66.
 */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/array.h"
#include "api/alloc.h"
#include "api/matmul.h"
#include "api/threads.h"

static int failures, checks;

/* Integers (which wrap exactly), or multiples of 1/8 (imaginary parts 1/32) of at most 12.5:
 * every product and sum the harness makes is exact in float32 and float64, in any order. */
static void fill(char *p, int64_t n, int dtype, unsigned seed)
{
    srand(seed);
    for (int64_t i = 0; i < n; ++i) {
        double v = (double)(rand() % 201 - 100) / 8.0;
        switch (dtype) {
        case SA_INT32: ((int32_t *)p)[i] = (int32_t)(rand() % 201 - 100); break;
        case SA_INT64: ((int64_t *)p)[i] = (int64_t)rand() * 2654435761LL; break;
        case SA_INT8: ((int8_t *)p)[i] = (int8_t)rand(); break;
        case SA_FLOAT32: ((float *)p)[i] = (float)v; break;
        case SA_FLOAT64: ((double *)p)[i] = v; break;
        case SA_COMPLEX128: ((double _Complex *)p)[i] = v + I * (v / 4); break;
        default: abort();
        }
    }
}

/* A view of `ndim` axes over fresh storage of `nbuf` elements. */
static sa_array view(int dtype, int64_t nbuf, int64_t origin, int ndim, const int64_t *shape,
                     const int64_t *strides, unsigned seed)
{
    sa_array a;
    memset(&a, 0, sizeof a);
    a.data = malloc((size_t)nbuf * (size_t)sa_itemsize(dtype));
    fill(a.data, nbuf, dtype, seed);
    a.nbuf = nbuf;
    a.origin = origin;
    a.ndim = ndim;
    a.dtype = dtype;
    memcpy(a.shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(a.strides, strides, (size_t)ndim * sizeof *strides);
    return a;
}

static sa_mm_policy policy(int force)
{
    sa_mm_policy p = {.dot_blas_min_k = 8, .gemm_blas_min = 2, .gemm_batch_blas_min = 2, .gemm_pack_min = 32,
                      .gevm_compact_min_kn = 1, /* GEVM of a dense matrix on BLAS */ .gevm_blas_min = 1024,
                      .gemv_blas_min = 384, .batched_vec_blas_min_elems = 1024,
                      .vec_pack_always_min_elems = 65536, .vec_pack_cond_min_elems = 9216,
                      .vec_pack_cond_min_batch = 16, .vec_pack_floor_min_elems = 9216,
                      .vec_pack_floor_min_out = 128, .blas_enabled = 1,
                      .parallel_min_work = 0, .force = force};
    return p;
}

static void product(const char *name, const sa_array *a, const sa_array *b, int out_dtype,
                    int64_t out_n, int force, int want_route)
{
    const int64_t bytes = out_n * sa_itemsize(out_dtype);
    char *ref = calloc(1, (size_t)bytes), *out = calloc(1, (size_t)bytes);
    sa_mm_policy pol = policy(force);
    sa_mm_explain ex;
    sa_threads_set(1);
    int rc = sa_matmul(a, b, out_dtype, ref, out_n, &pol, &ex, 0);
    if (rc != SA_MM_OK || ex.route != want_route) {
        printf("FAIL %s: rc %d route %d (wanted %d)\n", name, rc, ex.route, want_route);
        ++failures;
    }
    if (want_route == SA_MM_GENERIC) {
        char *oracle = calloc(1, (size_t)bytes);
        sa_mm_policy ref_pol = policy(SA_MM_REFERENCE);
        rc = sa_matmul(a, b, out_dtype, oracle, out_n, &ref_pol, &ex, 0);
        ++checks;
        if (rc != SA_MM_OK || ex.route != SA_MM_REFERENCE || memcmp(oracle, ref, (size_t)bytes)) {
            printf("FAIL %s: differs from the reference kernel (rc %d, route %d)\n", name, rc,
                   ex.route);
            ++failures;
        }
        free(oracle);
    }
    for (int t = 2; t <= 4; ++t) {
        sa_threads_set(t);
        memset(out, 0xA5, (size_t)bytes);
        rc = sa_matmul(a, b, out_dtype, out, out_n, &pol, &ex, 0);
        ++checks;
        if (rc != SA_MM_OK || ex.threads < 2 || memcmp(out, ref, (size_t)bytes) != 0) {
            printf("FAIL %s on %d threads: rc %d, %d thread(s) used, %s\n", name, t, rc,
                   ex.threads, memcmp(out, ref, (size_t)bytes) ? "results differ" : "");
            ++failures;
        }
    }
    free(ref);
    free(out);
}

int main(void)
{
    enum { G = SA_MM_GENERIC, B = SA_MM_BLAS, P = SA_MM_PACK_BLAS };
    /* generic, batch over threads: int64 (7,40,33) reversed rows @ (7,33,65) */
    {
        int64_t s1[] = {7, 40, 33}, t1[] = {40 * 33, -33, 1};
        int64_t s2[] = {7, 33, 65}, t2[] = {33 * 65, 65, 1};
        sa_array a = view(SA_INT64, 7 * 40 * 33, 39 * 33, 3, s1, t1, 1);
        sa_array b = view(SA_INT64, 7 * 33 * 65, 0, 3, s2, t2, 2);
        product("generic int64 batch", &a, &b, SA_INT64, 7 * 40 * 65, G, G);
    }
    /* generic, row bands: int32 130x70 (step two) @ 70x200 (reversed columns) */
    {
        int64_t s1[] = {130, 70}, t1[] = {140, 2}, s2[] = {70, 200}, t2[] = {200, -1};
        sa_array a = view(SA_INT32, 130 * 140, 0, 2, s1, t1, 3);
        sa_array b = view(SA_INT32, 70 * 200, 199, 2, s2, t2, 4);
        product("generic int32 rows", &a, &b, SA_INT32, 130 * 200, G, G);
    }
    /* generic, column bands: float32 5x300 @ 300x200 transposed */
    {
        int64_t s1[] = {5, 300}, t1[] = {300, 1}, s2[] = {300, 200}, t2[] = {1, 300};
        sa_array a = view(SA_FLOAT32, 5 * 300, 0, 2, s1, t1, 5);
        sa_array b = view(SA_FLOAT32, 300 * 200, 0, 2, s2, t2, 6);
        product("generic float32 columns", &a, &b, SA_FLOAT32, 5 * 200, G, G);
    }
    /* generic, N == 1 row bands: complex128 GEMV 100x50 (reversed) @ 50 */
    {
        int64_t s1[] = {100, 50}, t1[] = {50, -1}, s2[] = {50}, t2[] = {1};
        sa_array a = view(SA_COMPLEX128, 100 * 50, 49, 2, s1, t1, 7);
        sa_array b = view(SA_COMPLEX128, 50, 0, 1, s2, t2, 8);
        product("generic complex128 gemv", &a, &b, SA_COMPLEX128, 100, G, G);
    }
    /* generic with a cast while packing: int8 @ int32 -> int32, batch of 4 */
    {
        int64_t s1[] = {4, 30, 20}, t1[] = {600, 20, 1}, s2[] = {20, 90}, t2[] = {90, 1};
        sa_array a = view(SA_INT8, 4 * 600, 0, 3, s1, t1, 9);
        sa_array b = view(SA_INT32, 20 * 90, 0, 2, s2, t2, 10);
        product("generic cast int8->int32", &a, &b, SA_INT32, 4 * 30 * 90, G, G);
    }
    /* BLAS, batch over threads: float64 (10,64,64) @ (10,64,64) */
    {
        int64_t s[] = {10, 64, 64}, t[] = {4096, 64, 1};
        sa_array a = view(SA_FLOAT64, 40960, 0, 3, s, t, 11);
        sa_array b = view(SA_FLOAT64, 40960, 0, 3, s, t, 12);
        product("blas float64 batch", &a, &b, SA_FLOAT64, 40960, -1, B);
    }
    /* BLAS, column bands (matmul/blas.c: bands of a product large enough, 3 here): float64
     * 200x300 @ 300x400 */
    {
        int64_t s1[] = {200, 300}, t1[] = {300, 1}, s2[] = {300, 400}, t2[] = {400, 1};
        sa_array a = view(SA_FLOAT64, 60000, 0, 2, s1, t1, 13);
        sa_array b = view(SA_FLOAT64, 120000, 0, 2, s2, t2, 14);
        product("blas float64 columns", &a, &b, SA_FLOAT64, 200 * 400, -1, B);
    }
    /* BLAS, row bands: float64 GEMV 1024x1024 @ 1024; GEVM 1024 @ 1024x1024 (column bands) */
    {
        int64_t s1[] = {1024, 1024}, t1[] = {1024, 1}, s2[] = {1024}, t2[] = {1};
        sa_array a = view(SA_FLOAT64, 1 << 20, 0, 2, s1, t1, 15);
        sa_array v = view(SA_FLOAT64, 1024, 0, 1, s2, t2, 16);
        product("blas float64 gemv", &a, &v, SA_FLOAT64, 1024, -1, B);
        product("blas float64 gevm", &v, &a, SA_FLOAT64, 1024, -1, B);
    }
    /* pack-once BLAS: (1,96,96)[..., ::-1] @ (8,96,96) */
    {
        int64_t s1[] = {1, 96, 96}, t1[] = {0, 96, -1}, s2[] = {8, 96, 96}, t2[] = {9216, 96, 1};
        sa_array a = view(SA_FLOAT64, 9216, 95, 3, s1, t1, 17);
        sa_array b = view(SA_FLOAT64, 8 * 9216, 0, 3, s2, t2, 18);
        product("pack_blas float64", &a, &b, SA_FLOAT64, 8 * 9216, -1, P);
    }
    /* Many jobs back to back on the pool, so that workers arrive late, find a job ended or
     * replaced, and race the next one's publication: float64 (24,20,20) @ (24,20,20) on the
     * generic route, 300 times on 2-4 threads, each result checked. */
    {
        int64_t s[] = {24, 20, 20}, t[] = {400, 20, 1};
        sa_array a = view(SA_FLOAT64, 9600, 0, 3, s, t, 21);
        sa_array b = view(SA_FLOAT64, 9600, 0, 3, s, t, 22);
        double *ref = calloc(9600, sizeof(double)), *out = calloc(9600, sizeof(double));
        sa_mm_policy pol = policy(SA_MM_GENERIC);
        sa_threads_set(1);
        sa_matmul(&a, &b, SA_FLOAT64, (char *)ref, 9600, &pol, NULL, 0);
        int bad = 0;
        for (int it = 0; it < 300; ++it) {
            sa_threads_set(2 + it % 3);
            memset(out, 0, 9600 * sizeof(double));
            if (sa_matmul(&a, &b, SA_FLOAT64, (char *)out, 9600, &pol, NULL, 0) != SA_MM_OK
                || memcmp(out, ref, 9600 * sizeof(double)))
                ++bad;
        }
        ++checks;
        if (bad) {
            printf("FAIL back-to-back jobs: %d of 300 differ\n", bad);
            ++failures;
        }
        free(ref);
        free(out);
    }
    /* a pack large enough to run in bands: a 600x600 float64 view, reversed rows */
    {
        int64_t s[] = {600, 600}, t[] = {-600, 1};
        sa_array a = view(SA_FLOAT64, 360000, 599 * 600, 2, s, t, 19);
        double *ref = malloc(360000 * sizeof(double)), *out = malloc(360000 * sizeof(double));
        sa_threads_set(1);
        sa_to_row_major(&a, ref, SA_FLOAT64);
        for (int th = 2; th <= 4; ++th) {
            sa_threads_set(th);
            sa_to_row_major(&a, out, SA_FLOAT64);
            ++checks;
            if (memcmp(out, ref, 360000 * sizeof(double))) {
                printf("FAIL pack on %d threads\n", th);
                ++failures;
            }
        }
        free(ref);
        free(out);
    }
    printf("%d comparisons, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
