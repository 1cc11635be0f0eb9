/* Ordered dispatch with clean decline for the planned matmul, and sa_matmul()
 * (docs/matmul.md, "How a route is chosen").
 *
 * Backends, in a fixed order: direct BLAS, pack-once BLAS, generic, reference. Each has a
 * type stage (NO / MAYBE / YES for the dtype and role) and a runtime stage that either
 * accepts or returns a decline reason. The runtime stage only reads the plan and the policy:
 * a decline has written, allocated and packed nothing. Selection happens once, before the
 * batch traversal; after acceptance the backend owns the operation and a failure is
 * terminal. A YES backend that declines is an internal error, not a fallback.
 */
#include "matmul/matmul_internal.h"
#include "runtime/threads_internal.h"

/* The generic kernels, sa_generic_matmul and sa_generic_matmul_threads, are declared in
 * kernels/kernels_internal.h (through matmul/matmul_internal.h) and defined in
 * kernels/generic.c. */

typedef struct {
    int pack_lhs, pack_rhs;
} mm_sel;

static int is_empty(const sa_mm_explain *f)
{
    return f->C == 0 || f->M == 0 || f->N == 0 || f->K == 0;
}

static int type_verdict(int backend, const sa_mm_explain *f)
{
    int numeric = f->dtype > SA_BOOL && f->dtype < SA_NDTYPES;
    switch (backend) {
    case SA_MM_BLAS: return mm_blas_dtype_ok(f->dtype) ? SA_MM_MAYBE : SA_MM_NO;
    /* DOT has nothing reused to pack (docs/matmul.md, "Reuse, and the copy made once"). */
    case SA_MM_PACK_BLAS:
        return mm_blas_dtype_ok(f->dtype) && f->role != SA_MM_DOT ? SA_MM_MAYBE : SA_MM_NO;
    default: return numeric ? SA_MM_YES : SA_MM_NO;
    }
}

static int64_t min3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Direct BLAS: every operand viewable as it is, and the workload past the crossover. The
 * crossover is checked first: it is cheaper than the layout, and small products (the
 * overhead-bound ones) stop there. */
static int try_blas(const mm_plan *p, const sa_mm_policy *pol, int forced)
{
    const sa_mm_explain *f = &p->f;
    if (!pol->blas_enabled) return SA_MM_DECLINE_UNAVAILABLE;
    if (is_empty(f)) return SA_MM_DECLINE_EMPTY;
    int ok = 1;
    if (!forced) switch (f->role) {
    case SA_MM_DOT: ok = f->K >= pol->dot_blas_min_k; break;
    case SA_MM_GEMM:
        /* A batch pays BLAS's fixed cost per product, the generic kernel's once. */
        ok = min3(f->M, f->N, f->K) >= (f->C > 1 ? pol->gemm_batch_blas_min : pol->gemm_blas_min);
        break;
    case SA_MM_GEMV:
        ok = f->C == 1 ? (f->M < f->K ? f->M : f->K) >= pol->gemv_blas_min
                       : sa_mul_sat(f->M, f->K) >= pol->batched_vec_blas_min_elems;
        break;
    default: { /* GEVM */
        int dense = (f->rhs_col == 1 && f->rhs_inner == f->N)
                    || (f->rhs_inner == 1 && f->rhs_col == f->K);
        if (f->C > 1) ok = sa_mul_sat(f->K, f->N) >= pol->batched_vec_blas_min_elems;
        else if (dense) ok = sa_mul_sat(f->K, f->N) >= pol->gevm_compact_min_kn;
        else ok = (f->K < f->N ? f->K : f->N) >= pol->gevm_blas_min;
        break;
    }
    }
    if (!ok) return SA_MM_DECLINE_BELOW_CROSSOVER;
    return mm_blas_layout(p, NULL, NULL);
}

/* Pack-once BLAS: pack each operand BLAS cannot view, once per supplied matrix, but only
 * when shape broadcasting reuses it and it has no physical zero batch stride. GEMV/GEVM
 * pack only a reused vector (the matrix is the batch, never reused there). */
static int try_pack_blas(const mm_plan *p, const sa_mm_policy *pol, int forced, mm_sel *sel)
{
    const sa_mm_explain *f = &p->f;
    if (!pol->blas_enabled) return SA_MM_DECLINE_UNAVAILABLE;
    if (is_empty(f)) return SA_MM_DECLINE_EMPTY;
    /* GEMM below the packing crossover stops before the layout check (the cheap test first;
     * it is what small products hit). */
    if (f->role == SA_MM_GEMM && !forced
        && (min3(f->M, f->N, f->K) < pol->gemm_pack_min
            || (f->C > 1 && min3(f->M, f->N, f->K) < pol->gemm_batch_blas_min)))
        return SA_MM_DECLINE_BELOW_CROSSOVER;
    int bl = 0, br = 0;
    int r = mm_blas_layout(p, &bl, &br);
    if (r == SA_MM_DECLINE_TOO_LARGE) return r;
    if (!bl && !br) return r == SA_MM_ACCEPTED ? SA_MM_DECLINE_NOTHING_TO_PACK : r;
    if (f->role == SA_MM_GEMM) {
        if ((bl && f->lhs_zero_bstride) || (br && f->rhs_zero_bstride))
            return SA_MM_DECLINE_PHYSICAL_ZERO_STRIDE;
        if ((bl && !f->lhs_reused) || (br && !f->rhs_reused)) return SA_MM_DECLINE_NOT_REUSED;
    } else {
        int mat_bad = f->role == SA_MM_GEMV ? bl : br;
        int vec_reused = f->role == SA_MM_GEMV ? f->rhs_reused : f->lhs_reused;
        if (mat_bad) return SA_MM_DECLINE_LAYOUT;
        if (!vec_reused) return SA_MM_DECLINE_NOT_REUSED;
        int64_t elems = f->role == SA_MM_GEMV ? sa_mul_sat(f->M, f->K) : sa_mul_sat(f->K, f->N);
        int64_t out_total = p->out_nbuf; /* C * M * N, which the planner checked */
        int ok = elems >= pol->vec_pack_always_min_elems
                 || (elems >= pol->vec_pack_cond_min_elems
                     && f->C >= pol->vec_pack_cond_min_batch)
                 || (elems >= pol->vec_pack_floor_min_elems
                     && out_total >= pol->vec_pack_floor_min_out);
        if (!forced && !ok) return SA_MM_DECLINE_BELOW_CROSSOVER;
    }
    sel->pack_lhs = bl;
    sel->pack_rhs = br;
    return SA_MM_ACCEPTED;
}

/* ---- execution ------------------------------------------------------------------------ */

typedef int (*kernel_fn)(int, const sa_contraction *, int64_t, const char *, const int64_t *,
                         const char *, const int64_t *, char *, const int64_t *);
typedef struct {
    kernel_fn kernel;
    sa_contraction g;
    int threads; /* > 1: the optimized kernel on that many threads */
} generic_ctx;

static int generic_chunk(void *ctx, const mm_plan *p, int64_t n, const int64_t *ao,
                         const int64_t *bo, const int64_t *co)
{
    generic_ctx *c = (generic_ctx *)ctx;
    int r = c->threads > 1 ? sa_generic_matmul_threads(c->threads, p->f.dtype, &c->g, n, p->lhs,
                                                       ao, p->rhs, bo, p->out, co)
                           : c->kernel(p->f.dtype, &c->g, n, p->lhs, ao, p->rhs, bo, p->out, co);
    return r == 0 ? 0 : r == -2 ? SA_MM_ERR_NOMEM : r == -3 ? SA_MM_ERR_OVERFLOW : SA_MM_ERR_DTYPE;
}

static int run_generic(const mm_plan *p, kernel_fn kernel, int threads)
{
    const sa_mm_explain *f = &p->f;
    generic_ctx c = {kernel,
                     {f->M, f->N, f->K, f->lhs_row, f->lhs_inner, f->rhs_inner, f->rhs_col,
                      f->out_row, f->out_col, f->K2, f->lhs_outer, f->rhs_outer},
                     threads};
    if (threads >= 2 && f->C >= threads) {
        /* a batch: the threads share out runs of whole items, each kernel call on one */
        c.threads = 1;
        return mm_for_each_chunk_threads(p, threads, generic_chunk, &c);
    }
    return mm_for_each_chunk(p, generic_chunk, &c); /* one product: bands of it */
}

/* Threads the chosen route runs on: the core's setting when the product has enough work
 * (policy parallel_min_work), else 1. The reference kernel is the plain serial baseline. The
 * BLAS routes split the work themselves only while our OpenBLAS runs one thread per call (its
 * default here, see stridedarray/_matmul/threads.py): the core's pool on top of OpenBLAS's own
 * would put two threads on each core. */
static int route_threads(const mm_plan *run, int chosen, const sa_mm_policy *pol)
{
    const sa_mm_explain *f = &run->f;
    if (chosen == SA_MM_REFERENCE || is_empty(f)) return 1;
    const int blas = chosen == SA_MM_BLAS || chosen == SA_MM_PACK_BLAS;
    if (blas && !mm_blas_splits(run)) return 1;
    int n = sa_threads_for(sa_work4(f->C, f->M, f->N, f->K), pol->parallel_min_work);
    if (blas && n > mm_blas_parts(run)) n = (int)mm_blas_parts(run);
    return n;
}

/* The element count of a descriptor; -1 if it does not fit int64_t (a zero extent anywhere
 * makes it 0, whatever the others). */
static int64_t size_of(const sa_array *x)
{
    int64_t n = 1;
    int ovf = 0;
    for (int k = 0; k < x->ndim; ++k) {
        if (x->shape[k] == 0) return 0;
        ovf |= sa_mul_size(n, x->shape[k], &n);
    }
    return ovf ? -1 : n;
}

/* A row-major descriptor over `buf` for `src`'s shape, in `dtype`. Axes listed in `zero`
 * keep a stride of 0 (they were packed with extent 1). */
static void row_major_desc(const sa_array *src, const sa_array *packed_shape, char *buf,
                           int dtype, sa_array *dst)
{
    *dst = *src;
    dst->data = buf;
    dst->origin = 0;
    dst->dtype = dtype;
    dst->nbuf = size_of(packed_shape); /* checked by pack_operand */
    int64_t step = 1;
    for (int k = src->ndim - 1; k >= 0; --k) {
        dst->strides[k] = packed_shape->shape[k] == 1 ? 0 : step;
        step *= packed_shape->shape[k];
    }
}

/* Copy `src` row-major into fresh storage, cast to `dtype` on the way (one pass). A batch
 * axis with a physical zero stride is packed once (extent 1) and keeps stride 0, so a
 * broadcast_to operand is not expanded. Returns the storage (NULL if plan_only or empty),
 * *err set on failure; fills *dst and adds the payload to the ledger. */
static char *pack_operand(const sa_array *src, int is_vec, int dtype, int plan_only,
                          sa_array *dst, sa_mm_explain *f, int *err)
{
    sa_array once = *src;
    int core = is_vec ? 1 : 2;
    int64_t mats = 1;
    int ovf = 0;
    for (int k = 0; k < src->ndim - core; ++k) {
        if (once.shape[k] > 1 && once.strides[k] == 0) once.shape[k] = 1;
        ovf |= sa_mul_size(mats, once.shape[k], &mats);
    }
    /* The packed elements, their bytes in the new dtype and the ledger's new total: a cast to
     * a wider dtype can take a representable operand past int64_t. */
    int64_t n = size_of(&once), bytes = 0, payload = 0;
    char *buf = NULL;
    if (ovf || n < 0 || sa_mul_size(n, sa_itemsize(dtype), &bytes)
        || sa_add_size(f->payload_bytes, bytes, &payload)) {
        *err = SA_MM_ERR_OVERFLOW;
        return NULL;
    }
    if (!plan_only && n > 0) {
        buf = (char *)sa_alloc(SA_ALLOC_PACK, (size_t)bytes);
        if (buf == NULL) {
            *err = SA_MM_ERR_NOMEM;
            return NULL;
        }
        if (sa_to_row_major(&once, buf, dtype) != 0) {
            sa_free(buf);
            *err = SA_MM_ERR_DTYPE;
            return NULL;
        }
    }
    row_major_desc(src, &once, buf, dtype, dst);
    f->payload_bytes = payload;
    f->packed_matrices += n > 0 ? mats : 0; /* at most the packs' elements: no overflow */
    return buf;
}

static void record(sa_mm_explain *ex, const mm_plan *p)
{
    if (ex) *ex = p->f;
}

/* Run the selected backend: `run` is the plan it executes (the packed one for pack-once),
 * `p` the plan on the caller's operands. */
static int execute(const mm_plan *run, const mm_plan *p, int chosen, const sa_mm_policy *pol)
{
    /* An empty output has nothing to write, whatever K is. (Only a non-empty output with
     * K == 0 goes on, to be filled with zeros: an empty one may still have a batch count near
     * 2**63, and looping over it doing nothing would not end.) */
    if (p->f.C == 0 || p->f.M == 0 || p->f.N == 0) return SA_MM_OK;
    const int threads = sa_team_begin(route_threads(run, chosen, pol));
    int r;
    switch (chosen) {
    case SA_MM_BLAS:
    case SA_MM_PACK_BLAS:
        sa_blas_enter(); /* fork safety: a fork waits for this call (runtime/fork_guard.c) */
        r = mm_blas_execute(run, threads);
        sa_blas_leave();
        break;
    case SA_MM_GENERIC:
        r = run_generic(p, sa_generic_matmul, threads);
        break;
    default: r = run_generic(p, sa_generic_matmul_ref, 1); break;
    }
    sa_team_end(threads);
    return r;
}

/* Ordered dispatch: fills the verdicts and outcomes of p's record and returns the backend
 * that accepted (sel: what pack-once BLAS packs), or SA_MM_ERR_INTERNAL. */
static int select_route(mm_plan *p, const sa_mm_policy *pol, mm_sel *sel)
{
    int chosen = -1, force = (int)pol->force, forced_failed = 0;
    for (int b = 0; b < SA_MM_NBACKENDS; ++b) {
        int tv = type_verdict(b, &p->f);
        p->f.type_verdict[b] = tv;
        if (chosen >= 0) {
            p->f.outcome[b] = SA_MM_NOT_TRIED;
            continue;
        }
        /* Forcing tries one backend alone with its crossovers off; if it cannot take the
         * operation, the generic route (always correct) still does. */
        if (force >= 0 && b != force && !(forced_failed && b == SA_MM_GENERIC)) {
            p->f.outcome[b] = SA_MM_SKIPPED_FORCED;
            continue;
        }
        if (tv == SA_MM_NO) {
            p->f.outcome[b] = SA_MM_SKIPPED_TYPE;
            forced_failed |= b == force;
            continue;
        }
        int o;
        if (b == SA_MM_BLAS) o = try_blas(p, pol, b == force);
        else if (b == SA_MM_PACK_BLAS) o = try_pack_blas(p, pol, b == force, sel);
        else o = SA_MM_ACCEPTED; /* generic and reference are total over numeric dtypes */
        p->f.outcome[b] = o;
        if (o == SA_MM_ACCEPTED) chosen = b;
        else if (tv == SA_MM_YES) return SA_MM_ERR_INTERNAL; /* a YES backend declined */
        else forced_failed |= b == force;
    }
    return chosen < 0 ? SA_MM_ERR_INTERNAL : chosen;
}

int sa_matmul(const sa_array *lhs, const sa_array *rhs, int out_dtype, char *out,
              int64_t out_nbuf, const sa_mm_policy *pol, sa_mm_explain *ex, int plan_only)
{
    if (out_dtype <= SA_BOOL || out_dtype >= SA_NDTYPES) return SA_MM_ERR_DTYPE;
    SA_ASSERT_DESCRIPTOR(lhs);
    SA_ASSERT_DESCRIPTOR(rhs);
    if (!plan_only && ex == NULL) {
        /* A repeated product (same shapes, strides, dtypes and policy) skips planning and
         * selection: the plan depends on nothing else (matmul/plan.c, plan cache). */
        int route;
        const mm_plan *c = mm_plan_cache_get(lhs, rhs, out_dtype, out, pol, &route);
        if (c) {
            if (c->out_nbuf > out_nbuf) return SA_MM_ERR_OUTPUT;
            return execute(c, c, route, pol);
        }
    }
    mm_plan p;
    int r = mm_plan_make(lhs, rhs, out_dtype, out, &p);
    if (r) return r;
    if (!plan_only) {
        if (p.out_nbuf > out_nbuf) return SA_MM_ERR_OUTPUT;
        /* A flop count beyond int64_t is beyond any run (2^63 flops is months at a TFLOP/s)
         * and only zero-stride operands can ask for it: refused here, before anything is
         * allocated, so the outcome is the same on every route. matmul_explain still reports
         * the plan, with the exact count. */
        if (p.f.flops_hi || p.f.flops_lo > (uint64_t)INT64_MAX) return SA_MM_ERR_OVERFLOW;
    }

    /* Promotion: an operand in another dtype is cast while it is packed row-major, then the
     * plan is rebuilt on the converted storage. This is part of the operation's semantics,
     * so it happens before dispatch (which therefore sees one dtype). */
    sa_array ca, cb;
    char *cast_a = NULL, *cast_b = NULL, *pk_a = NULL, *pk_b = NULL;
    int64_t payload = 0, npacked = 0;
    int cast_l = lhs->dtype != out_dtype, cast_r = rhs->dtype != out_dtype;
    /* An empty product reads neither operand, so nothing is cast (a broadcast operand with a
     * huge extent would otherwise be copied, or refused, for nothing). */
    if (is_empty(&p.f)) cast_l = cast_r = 0;
    if (cast_l || cast_r) {
        int err = 0;
        if (cast_l) cast_a = pack_operand(lhs, p.lhs_vec, out_dtype, plan_only, &ca, &p.f, &err);
        if (!err && cast_r)
            cast_b = pack_operand(rhs, p.rhs_vec, out_dtype, plan_only, &cb, &p.f, &err);
        if (err) {
            sa_free(cast_a);
            return err;
        }
        payload = p.f.payload_bytes;
        npacked = p.f.packed_matrices;
        lhs = cast_l ? &ca : lhs;
        rhs = cast_r ? &cb : rhs;
        r = mm_plan_make(lhs, rhs, out_dtype, out, &p);
        p.f.payload_bytes = payload;
        p.f.packed_matrices = npacked;
        if (r) goto done;
    }
    p.f.pack_lhs = cast_l ? 2 : 0;
    p.f.pack_rhs = cast_r ? 2 : 0;

    /* Ordered dispatch: selection happens once, here. */
    mm_sel sel = {0, 0};
    int chosen = select_route(&p, pol, &sel);
    if (chosen < 0) {
        r = chosen;
        goto done;
    }
    p.f.route = chosen;

    /* The packs the selection implies (counted in the ledger before they are made; in plan
     * only mode only the descriptors are built). */
    sa_array pa, pb;
    const sa_array *A = lhs, *B = rhs;
    mm_plan q;
    const mm_plan *run = &p; /* the plan the backend executes */
    if (chosen == SA_MM_PACK_BLAS) {
        int err = 0;
        sa_mm_explain *f = &p.f;
        if (sel.pack_lhs) {
            pk_a = pack_operand(lhs, p.lhs_vec, out_dtype, plan_only, &pa, f, &err);
            f->pack_lhs = 1;
            A = &pa;
        }
        if (!err && sel.pack_rhs) {
            pk_b = pack_operand(rhs, p.rhs_vec, out_dtype, plan_only, &pb, f, &err);
            f->pack_rhs = 1;
            B = &pb;
        }
        if (err) {
            r = err; /* terminal: the backend owned the operation */
            goto done;
        }
        /* The values are the same, the storage is not: rebuild the plan on it. */
        r = mm_plan_make(A, B, out_dtype, out, &q);
        if (r == SA_MM_OK && mm_blas_layout(&q, NULL, NULL) != SA_MM_ACCEPTED)
            r = SA_MM_ERR_INTERNAL;
        if (r) goto done;
        run = &q;
    }
    if (chosen == SA_MM_BLAS || chosen == SA_MM_PACK_BLAS)
        p.f.blas_calls = mm_blas_calls(run);
    p.f.threads = route_threads(run, chosen, pol);
    record(ex, &p);
    if (plan_only) {
        r = SA_MM_OK;
        goto done;
    }
    /* Remember plans that run on the caller's operands as they are (no cast, no pack). */
    if (ex == NULL && run == &p && !cast_l && !cast_r)
        mm_plan_cache_put(lhs, rhs, out_dtype, pol, &p, chosen);
    r = execute(run, &p, chosen, pol);
done:
    sa_free(cast_a);
    sa_free(cast_b);
    sa_free(pk_a);
    sa_free(pk_b);
    return r;
}

int sa_matmul_run(const sa_array *lhs, const sa_array *rhs, int out_dtype, char *out,
                  int64_t out_nbuf, const sa_mm_policy *pol)
{
    return sa_matmul(lhs, rhs, out_dtype, out, out_nbuf, pol, NULL, 0);
}

int sa_matmul_ksplit(const sa_array *lhs, const sa_array *rhs, int out_dtype, char *out,
                     int64_t out_nbuf, const sa_mm_policy *pol, sa_mm_explain *ex, int plan_only)
{
    if (out_dtype <= SA_BOOL || out_dtype >= SA_NDTYPES) return SA_MM_ERR_DTYPE;
    SA_ASSERT_DESCRIPTOR(lhs);
    SA_ASSERT_DESCRIPTOR(rhs);
    const int na = lhs->ndim, nb = rhs->ndim;
    if (na < 3 || nb < 3 || na > SA_MAXDIM || nb > SA_MAXDIM) return SA_MM_ERR_RANK;
    if (lhs->dtype != out_dtype || rhs->dtype != out_dtype) return SA_MM_ERR_DTYPE;
    const int64_t K1 = lhs->shape[na - 2], K2 = lhs->shape[na - 1];
    if (rhs->shape[nb - 3] != K1 || rhs->shape[nb - 2] != K2) return SA_MM_ERR_CORE_SHAPE;
    int64_t K;
    if (sa_mul_size(K1, K2, &K)) return SA_MM_ERR_OVERFLOW;
    /* The plan is made on (batch..., M, K) @ (batch..., K, N) descriptors with K's inner
     * stride: everything it reads but K's strides is the operands' own (the descriptors are
     * never read as arrays: K's outer strides go in the record). An axis of extent 0 or 1
     * leaves one K axis (K2 == 1 takes the outer stride), and the descriptors are then the
     * operands' views. */
    sa_array a = *lhs, b = *rhs;
    a.ndim = na - 1;
    a.shape[na - 2] = K;
    a.strides[na - 2] = K2 == 1 ? lhs->strides[na - 2] : lhs->strides[na - 1];
    b.ndim = nb - 1;
    b.shape[nb - 3] = K;
    b.strides[nb - 3] = K2 == 1 ? rhs->strides[nb - 3] : rhs->strides[nb - 2];
    b.shape[nb - 2] = rhs->shape[nb - 1];
    b.strides[nb - 2] = rhs->strides[nb - 1];
    /* One K axis after all: the descriptors are views of the operands, an ordinary product */
    if (K1 <= 1 || K2 <= 1)
        return sa_matmul(&a, &b, out_dtype, out, out_nbuf, pol, ex, plan_only);
    mm_plan p;
    int r = mm_plan_make(&a, &b, out_dtype, out, &p);
    if (r) return r;
    p.f.K2 = K2;
    p.f.lhs_outer = lhs->strides[na - 2];
    p.f.rhs_outer = rhs->strides[nb - 3];
    if (!plan_only) {
        if (p.out_nbuf > out_nbuf) return SA_MM_ERR_OUTPUT;
        if (p.f.flops_hi || p.f.flops_lo > (uint64_t)INT64_MAX) return SA_MM_ERR_OVERFLOW;
    }
    mm_sel sel = {0, 0};
    const int chosen = select_route(&p, pol, &sel);
    if (chosen < 0) return chosen;
    /* both BLAS routes decline a split K (mm_blas_layout): a kernel of ours runs it */
    if (chosen == SA_MM_BLAS || chosen == SA_MM_PACK_BLAS) return SA_MM_ERR_INTERNAL;
    p.f.route = chosen;
    p.f.threads = route_threads(&p, chosen, pol);
    record(ex, &p);
    if (plan_only) return SA_MM_OK;
    return execute(&p, &p, chosen, pol);
}
