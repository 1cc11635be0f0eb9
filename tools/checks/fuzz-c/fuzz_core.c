/* libFuzzer target of the C matmul core, without Python (tools/checks/fuzz-c/run builds and runs
 * it).
 *
 * Each input decodes to one call of the core's entry points on descriptors that obey the
 * contract Python keeps (api/array.h: every reachable element inside the buffer; an empty view's
 * origin in [0, nbuf]; the strides of extent-1 axes never applied, so they may be anything):
 *   - sa_matmul / sa_matmul_run (plan, dispatch, packs, casts while packing, every kernel):
 *     operands of every dtype pair and output dtype, 1 to 3 core axes and up to 62 batch axes,
 *     broadcast batches, permuted, padded, step-two, negative and zero strides, wild strides on
 *     extent-1 axes, integers at their extremes (the 16-bit values whose product passes
 *     INT_MAX among them), a policy with fuzzed crossovers or a forced backend, through the
 *     explain record, the plan cache (the same call twice, with another output buffer) or the
 *     `@` entry point, and with an allocation failing at a fuzzed point. The oracle is the
 *     reference kernel (csrc/core/kernels/reference.c, force = reference) on the same operands:
 *     the return codes must agree and, when the call succeeds, every output element (integers
 *     bit for bit; floats compared with ==, their values exact in any summation order: small
 *     multiples of 1/8). Every cell of the output must be written.
 *   - plan only (matmul_explain) with extents up to 2^63 - 1 on zero-stride axes: the planner's
 *     size and flop arithmetic at its limits; nothing is computed.
 *   - sa_matmul_ksplit (a K of two strided axes, einsum's) on such views, against the
 *     reference kernel through sa_matmul on row-major copies with K merged.
 *   - sa_to_row_major (the pack) of any view to any dtype, against a plain element loop where
 *     the conversion is C's own (same dtype, integer and real widening or narrowing of values
 *     in range, real to complex).
 * After every call the core's allocations must all be freed (sa_alloc_stats). A mismatch
 * prints the call and aborts; ASan and UBSan (-fno-sanitize-recover) abort on their reports.
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

/* ---- the input, read a byte at a time (zeros once it runs out) ------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n;
    uint64_t rng; /* element values once the input is used up: xorshift from its hash */
} reader;

static unsigned rd(reader *r)
{
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

static unsigned pick(reader *r, unsigned k) { return rd(r) % k; }

static uint64_t rnd(reader *r)
{
    if (r->n >= 8) {
        uint64_t v;
        memcpy(&v, r->p, 8);
        r->p += 8;
        r->n -= 8;
        return v;
    }
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return r->rng;
}

static int is_int(int dt) { return dt >= SA_INT8 && dt <= SA_UINT64; }
static int is_float(int dt) { return dt == SA_FLOAT32 || dt == SA_FLOAT64; }
static int is_complex(int dt) { return dt == SA_COMPLEX64 || dt == SA_COMPLEX128; }
static int is_signed(int dt) { return dt >= SA_INT8 && dt <= SA_INT64; }

/* ---- element values ------------------------------------------------------------------ */

/* Bit patterns cut to the integer's width: 0, 1, -1 / the maximum, the signed minimum and its
 * neighbours, half the range, and 34250 and 64640 (16 bits: their product passes INT_MAX). */
static const uint64_t EDGES[] = {
    0, 1, ~(uint64_t)0, 2, ~(uint64_t)0 - 1, 34250, 64640, 0xB504, 0xB504F334u,
    0xB504F333F9DE6484u, 0x7F, 0x80, 0x81, 0x7FFF, 0x8000, 0x8001, 0x7FFFFFFF, 0x80000000u,
    0x80000001u, 0x7FFFFFFFFFFFFFFFu, 0x8000000000000000u, 0x8000000000000001u, 0xFF, 0xFFFF,
    0xFFFFFFFFu,
};
#define NEDGES (sizeof(EDGES) / sizeof(EDGES[0]))

/* Element i of a buffer of dtype dt. `small`: integers in [-100, 100] ([0, 100] unsigned: an
 * operand cast to a floating output, whose sums must stay exact). Floats are multiples of 1/8
 * in [-16, 16]. */
static void put(char *base, int dt, int64_t i, reader *r, int small)
{
    uint64_t v = rnd(r);
    int sz = sa_itemsize(dt);
    char *p = base + i * sz;
    if (dt == SA_BOOL) {
        *(uint8_t *)p = (uint8_t)(v & 1);
    } else if (is_int(dt)) {
        uint64_t bits;
        if (small && is_signed(dt)) bits = (uint64_t)(int64_t)((int)(v % 201) - 100);
        else if (small) bits = v % 101; /* not -k: 2^64 - k would make the sums inexact */
        else if ((v & 3) != 0) bits = EDGES[(v >> 8) % NEDGES];
        else bits = v >> 2;
        if (!small && is_signed(dt) && ((v >> 16) & 1) == 0 && sz < 8)
            bits = ((v >> 24) & 1) ? bits | ((uint64_t)1 << (8 * sz - 1)) : bits;
        memcpy(p, &bits, (size_t)sz); /* little-endian: the low bytes */
    } else {
        double re = (double)(int8_t)(v & 0xFF) / 8.0, im = (double)(int8_t)(v >> 8) / 8.0;
        switch (dt) {
        case SA_FLOAT32: *(float *)p = (float)re; break;
        case SA_FLOAT64: *(double *)p = re; break;
        case SA_COMPLEX64: ((float *)p)[0] = (float)re, ((float *)p)[1] = (float)im; break;
        default: ((double *)p)[0] = re, ((double *)p)[1] = im; break;
        }
    }
}

/* ---- views --------------------------------------------------------------------------- */

static const int64_t EXTENTS[] = {0, 1, 1, 2, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 40, 65};
#define NEXTENTS (sizeof(EXTENTS) / sizeof(EXTENTS[0]))
static const int64_t WILD[] = {0, 1, -1, INT64_MAX, -INT64_MAX, INT64_MAX / 2, 1 << 30};
#define NWILD (sizeof(WILD) / sizeof(WILD[0]))
#define MAX_ELEMS (1 << 14) /* per operand: each input stays fast */

typedef struct {
    sa_array a;
    char *mem;
} view;

/* A view of `shape` over its own buffer, laid out by the input: axes in a permuted physical
 * order, padded, step two or three, some reversed, some broadcast (stride 0), with wild
 * strides on extent-1 axes and slack before and after. Every element of the buffer is set.
 * `huge`: extents may pass the buffer (zero strides only), for plan-only calls. */
static void make_view(reader *r, view *v, int dt, int ndim, const int64_t *shape, int small)
{
    memset(v, 0, sizeof *v);
    sa_array *a = &v->a;
    a->dtype = dt;
    a->ndim = ndim;
    int perm[SA_MAXDIM];
    for (int k = 0; k < ndim; ++k) perm[k] = k;
    for (int k = ndim - 1; k > 0; --k) { /* Fisher-Yates, mostly the identity */
        if (pick(r, 4) == 0) {
            int j = (int)pick(r, (unsigned)k + 1), t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
        }
    }
    int empty = 0;
    for (int k = 0; k < ndim; ++k) empty |= shape[k] == 0;
    int64_t step = 1 + pick(r, 3), lo = 0, hi = 0;
    for (int q = ndim - 1; q >= 0; --q) { /* the innermost physical axis first */
        int k = perm[q];
        a->shape[k] = shape[k];
        unsigned how = rd(r);
        int64_t s;
        if (shape[k] == 1) {
            s = (how & 7) == 0 ? WILD[(how >> 3) % NWILD] : step;
        } else if ((how & 15) == 0 || shape[k] > MAX_ELEMS) {
            s = 0; /* broadcast */
        } else {
            s = (how & 48) == 0 ? -step : step;
            step = step * shape[k] + (int64_t)pick(r, 3); /* a padded next axis */
        }
        a->strides[k] = s;
        if (!empty && shape[k] > 1) {
            if (s < 0) lo += s * (shape[k] - 1);
            else hi += s * (shape[k] - 1);
        }
    }
    int64_t before = pick(r, 3), after = pick(r, 3);
    if (empty) {
        a->nbuf = before + after;
        a->origin = pick(r, 2) ? a->nbuf : before; /* an empty view's origin may be nbuf */
    } else {
        a->origin = before - lo;
        a->nbuf = a->origin + hi + 1 + after;
    }
    int sz = sa_itemsize(dt);
    v->mem = malloc((size_t)(a->nbuf > 0 ? a->nbuf : 1) * (size_t)sz);
    for (int64_t i = 0; i < a->nbuf; ++i) put(v->mem, dt, i, r, small);
    a->data = v->mem;
}

static int64_t elems(const int64_t *shape, int ndim)
{
    int64_t n = 1;
    for (int k = 0; k < ndim; ++k) {
        if (shape[k] != 0 && n > INT64_MAX / shape[k]) return INT64_MAX;
        n *= shape[k];
    }
    return n;
}

/* ---- checks -------------------------------------------------------------------------- */

static void describe(const char *what, const sa_array *x)
{
    fprintf(stderr, "  %s: dtype %d ndim %d nbuf %lld origin %lld shape/strides", what, x->dtype,
            x->ndim, (long long)x->nbuf, (long long)x->origin);
    for (int k = 0; k < x->ndim; ++k)
        fprintf(stderr, " %lld/%lld", (long long)x->shape[k], (long long)x->strides[k]);
    fprintf(stderr, "\n");
}

static void fail(const char *why, const sa_array *x, const sa_array *y, int out_dtype)
{
    fprintf(stderr, "fuzz_core: %s\n", why);
    if (x) describe("lhs/src", x);
    if (y) describe("rhs", y);
    fprintf(stderr, "  out dtype %d\n", out_dtype);
    abort();
}

static void check_no_leak(const sa_array *x, const sa_array *y, int dt)
{
    int64_t st[SA_ALLOC_NSTATS];
    sa_alloc_stats(st);
    for (int c = 0; c < SA_ALLOC_NCATEGORIES; ++c)
        if (st[c * SA_ALLOC_NFIELDS + SA_ALLOC_CURRENT] != 0)
            fail("the core left memory allocated after the call", x, y, dt);
}

/* Output element i of `got` equals `want`'s: bit for bit for integers, == for floats (the
 * values are exact, so only the sign of a zero may differ between summation orders). */
static int same(const char *got, const char *want, int dt, int64_t i)
{
    switch (dt) {
    case SA_FLOAT32: return ((const float *)got)[i] == ((const float *)want)[i];
    case SA_FLOAT64: return ((const double *)got)[i] == ((const double *)want)[i];
    case SA_COMPLEX64:
        return ((const float *)got)[2 * i] == ((const float *)want)[2 * i] &&
               ((const float *)got)[2 * i + 1] == ((const float *)want)[2 * i + 1];
    case SA_COMPLEX128:
        return ((const double *)got)[2 * i] == ((const double *)want)[2 * i] &&
               ((const double *)got)[2 * i + 1] == ((const double *)want)[2 * i + 1];
    default: {
        int sz = sa_itemsize(dt);
        return memcmp(got + i * sz, want + i * sz, (size_t)sz) == 0;
    }
    }
}

static sa_mm_policy base_policy(int64_t force)
{
    sa_mm_policy p = {.dot_blas_min_k = 32, .gemm_blas_min = 24, .gemm_pack_min = 64,
                      .gevm_compact_min_kn = 4096, .gevm_blas_min = 96, .gemv_blas_min = 96,
                      .batched_vec_blas_min_elems = 4096, .vec_pack_always_min_elems = 65536,
                      .vec_pack_cond_min_elems = 9216, .vec_pack_cond_min_batch = 16,
                      .vec_pack_floor_min_elems = 9216, .vec_pack_floor_min_out = 128,
                      .blas_enabled = 1, .parallel_min_work = INT64_MAX,
                      .gil_release_min_work = INT64_MAX, .force = force};
    return p;
}

static const int64_t CROSSOVERS[] = {0, 1, 2, 3, 8, 32, 1024, INT64_MAX};

static sa_mm_policy fuzzed_policy(reader *r)
{
    unsigned how = pick(r, 6);
    if (how >= 2) return base_policy(how == 2 ? -1 : (int64_t)(how - 3)); /* BLAS/PACK/GENERIC */
    sa_mm_policy p = base_policy(-1);
    int64_t *fields[] = {&p.dot_blas_min_k, &p.gemm_blas_min, &p.gemm_pack_min,
                         &p.gevm_compact_min_kn, &p.gevm_blas_min, &p.gemv_blas_min,
                         &p.batched_vec_blas_min_elems, &p.vec_pack_always_min_elems,
                         &p.vec_pack_cond_min_elems, &p.vec_pack_cond_min_batch,
                         &p.vec_pack_floor_min_elems, &p.vec_pack_floor_min_out};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k)
        *fields[k] = CROSSOVERS[pick(r, sizeof CROSSOVERS / sizeof CROSSOVERS[0])];
    p.blas_enabled = pick(r, 4) != 0;
    return p;
}

/* ---- sa_matmul ----------------------------------------------------------------------- */

static void fuzz_matmul(reader *r, int plan_huge)
{
    int dl = (int)pick(r, SA_NDTYPES), dr = pick(r, 2) ? dl : (int)pick(r, SA_NDTYPES);
    int dout = pick(r, 2) ? (dl > SA_BOOL ? dl : SA_INT32) : (int)pick(r, SA_NDTYPES + 1);
    /* core axes: 1 (a vector) or 2; batch axes: usually 0-2, sometimes up to 62 */
    int cl = 1 + (int)pick(r, 2), cr = 1 + (int)pick(r, 2);
    int nb = pick(r, 8) == 0 ? (int)pick(r, SA_MAXDIM - 1) : (int)pick(r, 3);
    int64_t M = EXTENTS[pick(r, NEXTENTS)], K = EXTENTS[pick(r, NEXTENTS)];
    int64_t N = EXTENTS[pick(r, NEXTENTS)];
    if (plan_huge) { /* extents at the edge of int64 on some axes (zero strides: no memory) */
        static const int64_t BIG[] = {(int64_t)1 << 31, ((int64_t)1 << 32) + 1, (int64_t)1 << 62,
                                      INT64_MAX, INT64_MAX / 3};
        if (pick(r, 2)) M = BIG[pick(r, 5)];
        if (pick(r, 2)) K = BIG[pick(r, 5)];
        if (pick(r, 2)) N = BIG[pick(r, 5)];
    }
    int64_t sl[SA_MAXDIM], sr[SA_MAXDIM];
    int bl = nb - (int)pick(r, 2) * (nb > 0), br = nb - (int)pick(r, 2) * (nb > 0);
    if (bl + cl > SA_MAXDIM) bl = SA_MAXDIM - cl;
    if (br + cr > SA_MAXDIM) br = SA_MAXDIM - cr;
    for (int k = 0; k < nb; ++k) {
        int64_t e = nb > 4 ? 1 + (pick(r, 8) == 0) : 1 + (int64_t)pick(r, 3);
        if (plan_huge && pick(r, 4) == 0) e = INT64_MAX / 2;
        /* each side's batch axes are the last ones of the batch: broadcast 1s sometimes */
        if (k >= nb - bl) sl[k - (nb - bl)] = pick(r, 4) == 0 ? 1 : e;
        if (k >= nb - br) sr[k - (nb - br)] = pick(r, 4) == 0 ? 1 : e;
    }
    if (cl == 2) sl[bl] = M, sl[bl + 1] = K;
    else sl[bl] = K;
    int64_t K2 = pick(r, 16) == 0 ? EXTENTS[pick(r, NEXTENTS)] : K; /* sometimes mismatched */
    if (cr == 2) sr[br] = K2, sr[br + 1] = N;
    else sr[br] = K2;
    int nl = bl + cl, nr = br + cr;
    if (!plan_huge) { /* each operand, the output and the work stay small */
        int64_t out = (cl == 2 ? M : 1) * (cr == 2 ? N : 1);
        for (int k = 0; k < nb && out <= MAX_ELEMS; ++k) {
            int64_t el = k >= nb - bl ? sl[k - (nb - bl)] : 1;
            int64_t er = k >= nb - br ? sr[k - (nb - br)] : 1;
            out *= el > er ? el : er;
        }
        if (elems(sl, nl) > MAX_ELEMS || elems(sr, nr) > MAX_ELEMS || out > MAX_ELEMS
            || out * (K + 1) > 16 * MAX_ELEMS)
            return;
    }
    int small_l = is_float(dout) || is_complex(dout), small_r = small_l;
    view vl, vr;
    make_view(r, &vl, dl, nl, sl, small_l);
    make_view(r, &vr, dr, nr, sr, small_r);
    sa_mm_policy ref_pol = base_policy(SA_MM_REFERENCE), pol = fuzzed_policy(r);
    sa_mm_explain ex;
    int rc_plan = sa_matmul(&vl.a, &vr.a, dout, NULL, 0, &pol, &ex, 1);
    check_no_leak(&vl.a, &vr.a, dout);
    if (plan_huge || rc_plan != SA_MM_OK) {
        /* a plan refused is refused the same way when the call would compute */
        if (!plan_huge) {
            char dummy[16];
            int rc = sa_matmul(&vl.a, &vr.a, dout, dummy, 0, &pol, NULL, 0);
            if (rc != rc_plan) fail("the call and its plan disagree on the error", &vl.a,
                                    &vr.a, dout);
            check_no_leak(&vl.a, &vr.a, dout);
        }
        free(vl.mem), free(vr.mem);
        return;
    }
    int64_t need = ex.C * ex.M * ex.N;
    unsigned room = pick(r, 16);
    int64_t out_n = room == 0 && need > 0 ? need - 1 : need + (room == 1);
    int sz = sa_itemsize(dout);
    size_t bytes = (size_t)(out_n > 0 ? out_n : 1) * (size_t)sz;
    char *want = malloc(bytes), *got = malloc(bytes);
    memset(want, 0x5A, bytes);
    memset(got, 0xA5, bytes); /* another pattern: a cell neither call writes differs */
    sa_mm_explain rex;
    int rc_ref = sa_matmul(&vl.a, &vr.a, dout, want, out_n, &ref_pol, &rex, 0);
    check_no_leak(&vl.a, &vr.a, dout);
    unsigned entry = pick(r, 3);
    int64_t fail_at = pick(r, 8) == 0 ? (int64_t)pick(r, 4) : -1;
    sa_alloc_fail_after(fail_at);
    int rc;
    if (entry == 0) {
        rc = sa_matmul(&vl.a, &vr.a, dout, got, out_n, &pol, &ex, 0);
    } else if (entry == 1) { /* the plan cache: once to fill it, once from it */
        char *first = malloc(bytes);
        rc = sa_matmul(&vl.a, &vr.a, dout, first, out_n, &pol, NULL, 0);
        int rc2 = sa_matmul(&vl.a, &vr.a, dout, got, out_n, &pol, NULL, 0);
        if (rc == SA_MM_OK && rc2 == SA_MM_OK)
            for (int64_t i = 0; i < need; ++i)
                if (!same(first, got, dout, i)) fail("the cached plan gave another result",
                                                     &vl.a, &vr.a, dout);
        if (rc == SA_MM_OK) rc = rc2;
        free(first);
    } else {
        rc = sa_matmul_run(&vl.a, &vr.a, dout, got, out_n, &pol);
    }
    sa_alloc_fail_after(-1);
    check_no_leak(&vl.a, &vr.a, dout);
    if (fail_at >= 0 && rc == SA_MM_ERR_NOMEM) {
        /* a failed allocation may end any route; it must leave nothing behind (checked) */
    } else if (rc != rc_ref) {
        char why[96];
        snprintf(why, sizeof why, "return code %d, the reference kernel's %d (entry %u)", rc,
                 rc_ref, entry);
        fail(why, &vl.a, &vr.a, dout);
    } else if (rc == SA_MM_OK) {
        for (int64_t i = 0; i < need; ++i) {
            if (!same(got, want, dout, i)) {
                char why[128];
                snprintf(why, sizeof why, "output element %lld differs from the reference "
                         "kernel's (route %d, entry %u)", (long long)i, ex.route, entry);
                fail(why, &vl.a, &vr.a, dout);
            }
        }
    }
    free(want), free(got), free(vl.mem), free(vr.mem);
}

/* ---- sa_matmul_ksplit ---------------------------------------------------------------- */

/* The product over a K of two strided axes: lhs (batch..., M, K1, K2), rhs (batch..., K1,
 * K2, N), one dtype (sometimes another, or a mismatched K1, K2 or rank: refused), a fuzzed
 * policy (a forced BLAS route declines). The oracle is the reference kernel through
 * sa_matmul on row-major copies of both operands (sa_to_row_major) read as (..., M, K1*K2)
 * and (..., K1*K2, N): the return codes agree on valid shapes, and every output element. */
static void fuzz_ksplit(reader *r)
{
    int dt = 1 + (int)pick(r, SA_NDTYPES - 1); /* numeric */
    int dl = pick(r, 16) == 0 ? (int)pick(r, SA_NDTYPES) : dt;
    int nb = (int)pick(r, 3);
    int64_t M = EXTENTS[pick(r, NEXTENTS)], N = EXTENTS[pick(r, NEXTENTS)];
    int64_t K1 = EXTENTS[pick(r, NEXTENTS)], K2 = EXTENTS[pick(r, NEXTENTS)];
    int64_t sl[SA_MAXDIM], sr[SA_MAXDIM];
    for (int k = 0; k < nb; ++k) {
        int64_t e = 1 + (int64_t)pick(r, 3);
        sl[k] = pick(r, 4) == 0 ? 1 : e;
        sr[k] = pick(r, 4) == 0 ? 1 : e;
    }
    sl[nb] = M, sl[nb + 1] = K1, sl[nb + 2] = K2;
    sr[nb] = pick(r, 16) == 0 ? EXTENTS[pick(r, NEXTENTS)] : K1; /* sometimes mismatched */
    sr[nb + 1] = K2, sr[nb + 2] = N;
    const int n = nb + 3;
    int64_t out = M * N;
    for (int k = 0; k < nb; ++k) out *= sl[k] > sr[k] ? sl[k] : sr[k];
    if (elems(sl, n) > MAX_ELEMS || elems(sr, n) > MAX_ELEMS || out > MAX_ELEMS
        || out * (K1 * K2 + 1) > 16 * MAX_ELEMS)
        return;
    int small = is_float(dt) || is_complex(dt);
    /* exact in any summation order: a complex product's real part sums 2 x 100 x 100 per k,
     * which float32 holds exactly only while K1 x K2 x 20000 < 2^24 */
    if ((dt == SA_FLOAT32 || dt == SA_COMPLEX64) && K1 * K2 > 800) return;
    view vl, vr;
    make_view(r, &vl, dl, n, sl, small);
    make_view(r, &vr, dt, n, sr, small);
    sa_mm_policy ref_pol = base_policy(SA_MM_REFERENCE), pol = fuzzed_policy(r);
    sa_mm_explain ex;
    const int sz = sa_itemsize(dt);
    const size_t bytes = (size_t)(out > 0 ? out : 1) * (size_t)sz;
    char *got = malloc(bytes), *want = malloc(bytes);
    memset(got, 0xA5, bytes);
    memset(want, 0x5A, bytes);
    int rc_plan = sa_matmul_ksplit(&vl.a, &vr.a, dt, NULL, 0, &pol, &ex, 1);
    int rc = sa_matmul_ksplit(&vl.a, &vr.a, dt, got, out, &pol, NULL, 0);
    check_no_leak(&vl.a, &vr.a, dt);
    if (rc != rc_plan) fail("ksplit: the call and its plan disagree", &vl.a, &vr.a, dt);
    if (dl != dt || sr[nb] != K1) { /* refused: the dtype, else K1 */
        if (rc != (dl != dt ? SA_MM_ERR_DTYPE : SA_MM_ERR_CORE_SHAPE))
            fail("ksplit: a bad operand was not refused as such", &vl.a, &vr.a, dt);
        free(got), free(want), free(vl.mem), free(vr.mem);
        return;
    }
    /* the oracle: row-major copies, K merged, the reference kernel */
    view cl = vl, cr = vr;
    cl.mem = malloc((size_t)(elems(sl, n) > 0 ? elems(sl, n) : 1) * (size_t)sz);
    cr.mem = malloc((size_t)(elems(sr, n) > 0 ? elems(sr, n) : 1) * (size_t)sz);
    if (sa_to_row_major(&vl.a, cl.mem, dt) || sa_to_row_major(&vr.a, cr.mem, dt))
        fail("ksplit: the oracle's copy failed", &vl.a, &vr.a, dt);
    sa_array *a = &cl.a, *b = &cr.a;
    a->data = cl.mem, b->data = cr.mem;
    a->origin = b->origin = 0;
    a->nbuf = elems(sl, n), b->nbuf = elems(sr, n);
    a->ndim = b->ndim = n - 1;
    a->shape[nb + 1] = K1 * K2, b->shape[nb] = K1 * K2, b->shape[nb + 1] = N;
    for (int x = 0; x < 2; ++x) { /* row-major strides of (batch..., M, K) / (..., K, N) */
        sa_array *d = x ? b : a;
        int64_t st = 1;
        for (int k = d->ndim - 1; k >= 0; --k) {
            d->strides[k] = st;
            st *= d->shape[k] ? d->shape[k] : 1;
        }
    }
    int rc_ref = sa_matmul(a, b, dt, want, out, &ref_pol, NULL, 0);
    check_no_leak(&vl.a, &vr.a, dt);
    if (rc != rc_ref) {
        char why[96];
        snprintf(why, sizeof why, "ksplit: return code %d, the reference's %d", rc, rc_ref);
        fail(why, &vl.a, &vr.a, dt);
    }
    if (rc == SA_MM_OK)
        for (int64_t i = 0; i < out; ++i)
            if (!same(got, want, dt, i)) fail("ksplit: an output element differs from the "
                                              "reference's", &vl.a, &vr.a, dt);
    free(got), free(want), free(vl.mem), free(vr.mem), free(cl.mem), free(cr.mem);
}

/* ---- sa_to_row_major ----------------------------------------------------------------- */

/* Element `off` of src as the oracle reads it. */
static void read_elem(const sa_array *s, int64_t off, int64_t *iv, uint64_t *uv, double *re,
                      double *im)
{
    const char *p = s->data + off * sa_itemsize(s->dtype);
    *im = 0;
    switch (s->dtype) {
    case SA_BOOL: *iv = *(const uint8_t *)p != 0; break;
    case SA_INT8: *iv = *(const int8_t *)p; break;
    case SA_INT16: *iv = *(const int16_t *)p; break;
    case SA_INT32: *iv = *(const int32_t *)p; break;
    case SA_INT64: *iv = *(const int64_t *)p; break;
    case SA_UINT8: *iv = *(const uint8_t *)p; break;
    case SA_UINT16: *iv = *(const uint16_t *)p; break;
    case SA_UINT32: *iv = *(const uint32_t *)p; break;
    case SA_UINT64: *uv = *(const uint64_t *)p; *iv = (int64_t)*uv; break;
    case SA_FLOAT32: *re = *(const float *)p; break;
    case SA_FLOAT64: *re = *(const double *)p; break;
    case SA_COMPLEX64: *re = ((const float *)p)[0], *im = ((const float *)p)[1]; break;
    default: *re = ((const double *)p)[0], *im = ((const double *)p)[1]; break;
    }
    if (s->dtype != SA_UINT64) *uv = (uint64_t)*iv;
    if (s->dtype <= SA_UINT64) *re = s->dtype == SA_UINT64 ? (double)*uv : (double)*iv;
}

/* The element C's conversion gives, where the oracle knows it (else 0): integers (and bool)
 * to integers of any width, anything real to floats, real or complex to complex, and the
 * small floats used here to integers. */
static int convert(const sa_array *s, int64_t off, int dt, char *out)
{
    int64_t iv = 0;
    uint64_t uv = 0;
    double re = 0, im = 0;
    read_elem(s, off, &iv, &uv, &re, &im);
    int src = s->dtype;
    if (dt == SA_BOOL || (is_complex(src) && !is_complex(dt))) return 0;
    if (is_float(src) && is_int(dt)) uv = (uint64_t)(int64_t)re; /* |re| <= 16 */
    if (is_int(dt)) {
        memcpy(out, &uv, (size_t)sa_itemsize(dt)); /* the low bytes: C's wrap-around */
        return 1;
    }
    /* integer sources convert from the integer itself (int64 to float rounds once) */
    switch (dt) {
    case SA_FLOAT32:
        *(float *)out = src == SA_UINT64 ? (float)uv : src <= SA_UINT32 ? (float)iv : (float)re;
        return 1;
    case SA_FLOAT64:
        *(double *)out = src == SA_UINT64 ? (double)uv : src <= SA_UINT32 ? (double)iv : re;
        return 1;
    case SA_COMPLEX64:
        ((float *)out)[0] = src == SA_UINT64 ? (float)uv : src <= SA_UINT32 ? (float)iv
                                                                             : (float)re;
        ((float *)out)[1] = (float)im;
        return 1;
    default:
        ((double *)out)[0] = src == SA_UINT64 ? (double)uv : src <= SA_UINT32 ? (double)iv : re;
        ((double *)out)[1] = im;
        return 1;
    }
}

static void fuzz_pack(reader *r)
{
    int ds = (int)pick(r, SA_NDTYPES), dd = pick(r, 2) ? ds : (int)pick(r, SA_NDTYPES);
    int ndim = pick(r, 8) == 0 ? (int)pick(r, SA_MAXDIM + 1) : (int)pick(r, 5);
    int64_t shape[SA_MAXDIM];
    for (int k = 0; k < ndim; ++k)
        shape[k] = ndim > 6 ? 1 + (pick(r, 8) == 0) : EXTENTS[pick(r, NEXTENTS)];
    int64_t n = elems(shape, ndim);
    if (n > MAX_ELEMS) return;
    view v;
    make_view(r, &v, ds, ndim, shape, 0);
    int sz = sa_itemsize(dd);
    size_t bytes = (size_t)(n > 0 ? n : 1) * (size_t)sz;
    char *got = malloc(bytes), *want = malloc((size_t)sz);
    memset(got, 0xA5, bytes);
    int rc = sa_to_row_major(&v.a, got, dd);
    check_no_leak(&v.a, NULL, dd);
    if (rc == 0) {
        int64_t idx[SA_MAXDIM] = {0};
        for (int64_t i = 0; i < n; ++i) {
            int64_t off = v.a.origin;
            for (int k = 0; k < ndim; ++k)
                if (v.a.shape[k] > 1) off += idx[k] * v.a.strides[k];
            if (convert(&v.a, off, dd, want) && !same(got + i * sz, want, dd, 0)) {
                char why[96];
                snprintf(why, sizeof why, "pack element %lld differs from C's conversion",
                         (long long)i);
                fail(why, &v.a, NULL, dd);
            }
            for (int k = ndim - 1; k >= 0; --k) { /* the next index, row-major */
                if (++idx[k] < v.a.shape[k]) break;
                idx[k] = 0;
            }
        }
    }
    free(got), free(want), free(v.mem);
}

/* ---- entry --------------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a of the input: the values after its end */
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211u;
    reader r = {data, size, h | 1};
    unsigned what = pick(&r, 8);
    if (what < 5) fuzz_matmul(&r, 0);
    else if (what == 5) fuzz_matmul(&r, 1);
    else if (what == 7 && pick(&r, 2)) fuzz_ksplit(&r);
    else fuzz_pack(&r);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    sa_threads_set(1);
    return 0;
}
