/* The matmul plan (facts, no actions): role, M/N/K, the batch domain with one mapped stride
 * per operand and axis, signed core strides, reuse flags and the ledger counts; plus the
 * batch traversal (a domain and a cursor advancing all three offsets together). */
#include "matmul/matmul_internal.h"

#include <stdatomic.h>

#include "runtime/threads_internal.h"

/* The per-call part of a plan: the operands' storage, origins and buffer sizes and the output
 * pointer. Set by mm_plan_make and again on a plan-cache hit, whose cached geometry (shapes,
 * strides, route) is the same for the new descriptors but whose storage is not. */
static void bind_operands(mm_plan *p, const sa_array *a, const sa_array *b, char *out)
{
    p->lhs = a->data;
    p->rhs = b->data;
    p->out = out;
    p->lhs_origin = a->origin;
    p->rhs_origin = b->origin;
    p->lhs_nbuf = a->nbuf;
    p->rhs_nbuf = b->nbuf;
}

int mm_plan_make(const sa_array *a, const sa_array *b, int out_dtype, char *out, mm_plan *p)
{
    sa_mm_explain *f = &p->f;
    /* Zero the scalar facts only: the per-axis arrays are written up to nbatch below, and
     * clearing the whole record (2 KiB) was a visible share of a 2x2 product's time. */
    memset(f, 0, offsetof(sa_mm_explain, batch_shape));
    memset(&f->lhs_row, 0, sizeof *f - offsetof(sa_mm_explain, lhs_row));
    if (a->ndim < 1 || b->ndim < 1) return SA_MM_ERR_RANK;
    int na = a->ndim, nb = b->ndim;
    int lv = na == 1, rv = nb == 1;
    int64_t K = a->shape[na - 1];
    int64_t Kb = rv ? b->shape[0] : b->shape[nb - 2];
    if (K != Kb) return SA_MM_ERR_CORE_SHAPE;
    f->role = lv ? (rv ? SA_MM_DOT : SA_MM_GEVM) : (rv ? SA_MM_GEMV : SA_MM_GEMM);
    f->dtype = out_dtype;
    f->M = lv ? 1 : a->shape[na - 2];
    f->N = rv ? 1 : b->shape[nb - 1];
    f->K = K;
    /* Core strides are used as they are (signed); an absent axis (vector operand) has
     * extent 1, so its stride is never applied. */
    f->lhs_inner = a->strides[na - 1];
    f->lhs_row = lv ? 0 : a->strides[na - 2];
    f->rhs_inner = rv ? b->strides[0] : b->strides[nb - 2];
    f->rhs_col = rv ? 0 : b->strides[nb - 1];
    /* The output is C-contiguous: core (M, N) without the axes a vector operand lacks. */
    f->out_col = 1;
    f->out_row = rv ? 1 : f->N;

    /* Batch axes align from the right; the plan never expands an operand. */
    int bla = lv ? 0 : na - 2, blb = rv ? 0 : nb - 2;
    int nbat = bla > blb ? bla : blb;
    f->nbatch = nbat;
    int64_t C = 1, Ua = 1, Ub = 1;
    /* The output's element count over its non-zero extents (NumPy's rule for an array's size,
     * which Python applies too): times the item size it must fit int64_t, and then so do the
     * output's strides, its element count and the contraction count below. */
    int64_t out_nz = 1;
    int ovf = 0;
    for (int d = 0; d < nbat; ++d) {
        int ia = d - (nbat - bla), ib = d - (nbat - blb);
        int64_t ea = ia >= 0 ? a->shape[ia] : 1, sa_ = ia >= 0 ? a->strides[ia] : 0;
        int64_t eb = ib >= 0 ? b->shape[ib] : 1, sb = ib >= 0 ? b->strides[ib] : 0;
        int64_t ext;
        if (ea == eb || eb == 1) ext = ea;
        else if (ea == 1) ext = eb;
        else return SA_MM_ERR_BATCH_SHAPE;
        f->batch_shape[d] = ext;
        f->lhs_bstrides[d] = f->rhs_bstrides[d] = 0;
        /* Extent equal to the domain's: the operand's own stride. Extent 1 against a larger
         * domain: mapped stride 0, the supplied matrix is reused (shape broadcasting). That
         * zero is the plan's; a physical zero stride on an axis of extent > 1 is a different
         * fact (many logical indices alias one storage) and is recorded separately. */
        if (ea == ext) f->lhs_bstrides[d] = ext > 1 ? sa_ : 0;
        else if (ext > 1) f->lhs_reused = 1;
        if (eb == ext) f->rhs_bstrides[d] = ext > 1 ? sb : 0;
        else if (ext > 1) f->rhs_reused = 1;
        if (ea > 1 && sa_ == 0) f->lhs_zero_bstride = 1;
        if (eb > 1 && sb == 0) f->rhs_zero_bstride = 1;
        ovf |= sa_mul_size(C, ext, &C);
        ovf |= sa_mul_size(Ua, ea, &Ua);
        ovf |= sa_mul_size(Ub, eb, &Ub);
        if (ext) ovf |= sa_mul_size(out_nz, ext, &out_nz);
    }
    if (f->M) ovf |= sa_mul_size(out_nz, f->M, &out_nz);
    if (f->N) ovf |= sa_mul_size(out_nz, f->N, &out_nz);
    int64_t out_bytes;
    ovf |= sa_mul_size(out_nz, sa_itemsize(out_dtype), &out_bytes);
    if (ovf) return SA_MM_ERR_OVERFLOW;
    /* C-contiguous output batch strides, innermost first (each at most out_nz: no overflow). */
    int64_t step = f->M * f->N;
    for (int d = nbat - 1; d >= 0; --d) {
        f->out_bstrides[d] = f->batch_shape[d] > 1 ? step : 0;
        step *= f->batch_shape[d];
    }
    /* A vector operand has no batch axes: in a batched GEMV/GEVM every contraction reuses it. */
    if (lv && C > 1) f->lhs_reused = 1;
    if (rv && C > 1) f->rhs_reused = 1;
    f->C = C;
    f->U_lhs = C ? Ua : 0;
    f->U_rhs = C ? Ub : 0;
    /* The exact count, in 128 bits: C * M * N fits int64_t (checked above) and K does, so
     * the product of the four and 8 is below 2^127. */
    sa_u128 flops = (out_dtype == SA_COMPLEX64 || out_dtype == SA_COMPLEX128) ? 8 : 2;
    sa_mul_u128(flops, (sa_u128)(C * f->M * f->N), &flops);
    sa_mul_u128(flops, (sa_u128)f->K, &flops);
    f->flops_lo = (uint64_t)flops;
    f->flops_hi = (uint64_t)(flops >> 64);
    f->route = -1;

    bind_operands(p, a, b, out);
    p->out_nbuf = C * f->M * f->N;
    p->lhs_vec = lv;
    p->rhs_vec = rv;
    return SA_MM_OK;
}

/* ---- plan cache ---------------------------------------------------------------------- */

typedef struct {
    int32_t ndim, dtype;
    int64_t shape[MM_CACHE_MAXDIM], strides[MM_CACHE_MAXDIM];
} mm_key;

typedef struct {
    int used, route;
    int32_t out_dtype;
    mm_key a, b;
    sa_mm_policy pol;
    mm_plan plan;
} mm_cache_entry;

/* Per thread: no lock, and the GIL is released during the call. A few KiB per thread. */
static _Thread_local mm_cache_entry mm_cache[MM_CACHE_SLOTS];
static _Thread_local int mm_cache_next;

static int key_matches(const mm_key *k, const sa_array *x)
{
    if (k->ndim != x->ndim || k->dtype != x->dtype) return 0;
    for (int i = 0; i < x->ndim; ++i)
        if (k->shape[i] != x->shape[i] || k->strides[i] != x->strides[i]) return 0;
    return 1;
}

static void key_set(mm_key *k, const sa_array *x)
{
    k->ndim = x->ndim;
    k->dtype = x->dtype;
    for (int i = 0; i < x->ndim; ++i) {
        k->shape[i] = x->shape[i];
        k->strides[i] = x->strides[i];
    }
}

const mm_plan *mm_plan_cache_get(const sa_array *a, const sa_array *b, int out_dtype,
                                 char *out, const sa_mm_policy *pol, int *route)
{
    if (a->ndim > MM_CACHE_MAXDIM || b->ndim > MM_CACHE_MAXDIM) return NULL;
    for (int s = 0; s < MM_CACHE_SLOTS; ++s) {
        mm_cache_entry *e = &mm_cache[s];
        if (!e->used || e->out_dtype != out_dtype || !key_matches(&e->a, a)
            || !key_matches(&e->b, b) || memcmp(&e->pol, pol, sizeof *pol) != 0)
            continue;
        mm_plan *p = &e->plan;
        bind_operands(p, a, b, out); /* the same geometry over the new storage */
        *route = e->route;
        return p;
    }
    return NULL;
}

void mm_plan_cache_put(const sa_array *a, const sa_array *b, int out_dtype,
                       const sa_mm_policy *pol, const mm_plan *p, int route)
{
    if (a->ndim > MM_CACHE_MAXDIM || b->ndim > MM_CACHE_MAXDIM) return;
    mm_cache_entry *e = &mm_cache[mm_cache_next];
    mm_cache_next = (mm_cache_next + 1) % MM_CACHE_SLOTS;
    e->used = 1;
    e->route = route;
    e->out_dtype = out_dtype;
    key_set(&e->a, a);
    key_set(&e->b, b);
    e->pol = *pol;
    /* The scalar facts and the first nbatch entries of each per-axis array are all that the
     * executors read: copying the 2 KiB record whole would cost more than planning. */
    mm_plan *q = &e->plan;
    memcpy(&q->f, &p->f, offsetof(sa_mm_explain, batch_shape));
    int nb = p->f.nbatch;
    memcpy(q->f.batch_shape, p->f.batch_shape, (size_t)nb * sizeof(int64_t));
    memcpy(q->f.out_bstrides, p->f.out_bstrides, (size_t)nb * sizeof(int64_t));
    memcpy(q->f.lhs_bstrides, p->f.lhs_bstrides, (size_t)nb * sizeof(int64_t));
    memcpy(q->f.rhs_bstrides, p->f.rhs_bstrides, (size_t)nb * sizeof(int64_t));
    memcpy(&q->f.lhs_row, &p->f.lhs_row, sizeof q->f - offsetof(sa_mm_explain, lhs_row));
    q->out_nbuf = p->out_nbuf;
    q->lhs_vec = p->lhs_vec;
    q->rhs_vec = p->rhs_vec;
}

/* Axis d (stride s, extent e) chains into the axis outside it (stride outer): outer == s * e.
 * A product that does not fit int64_t equals no stride. */
static int chains(int64_t outer, int64_t s, int64_t e)
{
    int64_t t;
    return !sa_mul_size(s, e, &t) && outer == t;
}

int mm_batch_coalesce(const mm_plan *p, int64_t *ext, int64_t *sa_, int64_t *sb, int64_t *sc)
{
    const sa_mm_explain *f = &p->f;
    /* Drop extent-1 axes and merge neighbours whose three mapped strides all chain, so the
     * innermost loop is as long as the layout allows. */
    int n = 0;
    for (int d = 0; d < f->nbatch; ++d) {
        int64_t e = f->batch_shape[d];
        if (e == 1) continue;
        if (n > 0 && chains(sa_[n - 1], f->lhs_bstrides[d], e)
            && chains(sb[n - 1], f->rhs_bstrides[d], e) && chains(sc[n - 1], f->out_bstrides[d], e)) {
            ext[n - 1] *= e; /* a factor of C, which fits */
            sa_[n - 1] = f->lhs_bstrides[d];
            sb[n - 1] = f->rhs_bstrides[d];
            sc[n - 1] = f->out_bstrides[d];
            continue;
        }
        ext[n] = e;
        sa_[n] = f->lhs_bstrides[d];
        sb[n] = f->rhs_bstrides[d];
        sc[n] = f->out_bstrides[d];
        ++n;
    }
    return n;
}

#ifndef NDEBUG
/* Debug builds: the eight corners of a box of three axes (extents e, strides s) at `off` lie
 * in [0, nbuf) (bounds are validated in Python; this catches a planner that broke them). A
 * matrix is a box with an axis of extent 1; a split K (sa_matmul_ksplit) gives A the axes
 * M, K1, K2 and B the axes K1, K2, N. */
static void assert_corners(int64_t off, const int64_t e[3], const int64_t s[3], int64_t nbuf)
{
    if (e[0] == 0 || e[1] == 0 || e[2] == 0) return;
    for (int c = 0; c < 8; ++c) {
        int64_t o = off;
        for (int d = 0; d < 3; ++d)
            if (c >> d & 1) o += (e[d] - 1) * s[d];
        assert(o >= 0 && o < nbuf);
        (void)o;
    }
}
#endif

/* Items [lo, hi) of the batch, in order, MM_CHUNK at a time. */
static int for_range(const mm_plan *p, int64_t lo, int64_t hi, mm_chunk_fn fn, void *ctx)
{
    const sa_mm_explain *f = &p->f;
    int64_t ext[SA_MAXDIM], sa_[SA_MAXDIM], sb[SA_MAXDIM], sc[SA_MAXDIM];
    int n = mm_batch_coalesce(p, ext, sa_, sb, sc);
    int64_t ao[MM_CHUNK], bo[MM_CHUNK], co[MM_CHUNK];
    int64_t idx[SA_MAXDIM] = {0};
    int64_t oa = p->lhs_origin, ob = p->rhs_origin, oc = 0;
    /* the cursor at item lo: its multi-index, innermost axis fastest */
    for (int64_t k = n - 1, rest = lo; k >= 0 && rest > 0; --k) {
        idx[k] = rest % ext[k];
        rest /= ext[k];
        oa += idx[k] * sa_[k];
        ob += idx[k] * sb[k];
        oc += idx[k] * sc[k];
    }
    int64_t left = hi - lo;
    while (left > 0) {
        int64_t m = 0;
        while (m < MM_CHUNK && left > 0) {
            ao[m] = oa;
            bo[m] = ob;
            co[m] = oc;
            ++m;
            --left;
            /* advance the cursor: all three offsets move together */
            for (int k = n - 1; k >= 0; --k) {
                oa += sa_[k];
                ob += sb[k];
                oc += sc[k];
                if (++idx[k] < ext[k]) break;
                oa -= sa_[k] * ext[k];
                ob -= sb[k] * ext[k];
                oc -= sc[k] * ext[k];
                idx[k] = 0;
            }
        }
#ifndef NDEBUG
        const int64_t K2 = f->K2 ? f->K2 : f->K, K1 = f->K2 ? f->K / f->K2 : 1;
        const int64_t ae[3] = {f->M, K1, K2}, as[3] = {f->lhs_row, f->lhs_outer, f->lhs_inner};
        const int64_t be[3] = {K1, K2, f->N}, bs[3] = {f->rhs_outer, f->rhs_inner, f->rhs_col};
        const int64_t ce[3] = {f->M, f->N, 1}, cs[3] = {f->out_row, f->out_col, 0};
        for (int64_t t = 0; t < m; ++t) {
            assert_corners(ao[t], ae, as, p->lhs_nbuf);
            assert_corners(bo[t], be, bs, p->rhs_nbuf);
            assert_corners(co[t], ce, cs, p->out_nbuf);
        }
#else
        (void)f;
#endif
        int r = fn(ctx, p, m, ao, bo, co);
        if (r) return r;
    }
    return 0;
}

int mm_for_each_chunk(const mm_plan *p, mm_chunk_fn fn, void *ctx)
{
    if (p->f.C == 0) return 0;
    return for_range(p, 0, p->f.C, fn, ctx);
}

typedef struct {
    const mm_plan *p;
    mm_chunk_fn fn;
    void *ctx;
    int64_t nchunks;
    atomic_int rc;
} batch_job;

static void batch_part(void *ctx, int64_t k)
{
    batch_job *j = (batch_job *)ctx;
    const int64_t C = j->p->f.C;
    /* (C * k fits: k < nchunks <= C, and C * nchunks is checked by the caller) */
    int r = for_range(j->p, C * k / j->nchunks, C * (k + 1) / j->nchunks, j->fn, j->ctx);
    if (r) atomic_store(&j->rc, r);
}

int mm_for_each_chunk_threads(const mm_plan *p, int threads, mm_chunk_fn fn, void *ctx)
{
    const sa_mm_explain *f = &p->f;
    if (f->C == 0) return 0;
    /* Runs of items of about MM_ITEMS_WORK multiply-adds each (tens of microseconds), at
     * least four per thread, so that a worker that comes late still finds work and the
     * caller, its own share done, waits for one short run at most. Shorter runs cost more
     * than they save: with 2^16 a batch of 2,000 16 x 16 BLAS products took 10% longer at 2
     * threads than at 1 on a loaded machine (no free core), with 2^18 the same. */
    int64_t per = sa_work4(1, f->M, f->N, f->K);
    int64_t nch = per > 0 ? sa_work4(f->C, per, 1, 1) / MM_ITEMS_WORK : f->C;
    int64_t t;
    if (nch < 4 * (int64_t)threads) nch = 4 * (int64_t)threads;
    if (nch > f->C) nch = f->C;
    if (threads < 2 || nch < 2 || sa_mul_size(f->C, nch, &t)) return mm_for_each_chunk(p, fn, ctx);
    batch_job j = {p, fn, ctx, nch, 0};
    sa_parallel(threads, nch, batch_part, &j);
    return atomic_load(&j.rc);
}
