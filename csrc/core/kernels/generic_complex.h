/* Template: the generic matmul kernel for one complex dtype on one instruction-set target.
 *
 * Included by kernels/generic_target.h once per (target, complex dtype) with SA_R (the real
 * component type), SA_FN, SA_VB, SA_MRC (rows of the register tile), SA_ATTR, SA_KATTR,
 * SA_SCRATCH and SA_SCRATCH_FREE defined; see kernels/generic_real.h for the method. A complex
 * element is two SA_R (re, im), so element offset e is SA_R index 2e.
 *
 * Packing splits real and imaginary parts into separate vectors, so the product
 * (ar*br - ai*bi, ar*bi + ai*br) is four plain vector multiply-adds with no shuffles. It is
 * written out rather than left to C99 complex multiplication, whose Annex G NaN/infinity
 * recovery is a slow library call.
 */

SA_VEC_TYPEDEF(SA_R, SA_VB, SA_FN(vec));
#define SA_NR SA_VEC_NR(SA_R, SA_VB)

/* Panels of w rows (SA_MRC, then 4, 2, 1); the panel at row r holds, for each k, w real parts
 * then w imaginary parts at dst[2*(r*kc + k*w)]. A(i, k) is at a[i*rs + k*cs], or with a
 * split K (kernels/kernels_internal.h) at a[i*rs + koff[k]] (koff from sa_koffsets; NULL
 * for one K axis, a constant once inlined). */
SA_ATTR void SA_FN(pack_a)(const SA_R *a, int64_t rs, int64_t cs, const int64_t *koff,
                           int64_t mc, int64_t kc, SA_R *restrict dst)
{
    for (int64_t r = 0; r < mc;) {
        int64_t w = SA_MRC;
        while (w > mc - r) w >>= 1;
        const SA_R *ap = a + 2 * r * rs;
        SA_R *d = dst + 2 * r * kc;
        for (int64_t k = 0; k < kc; ++k) {
            const SA_R *col = ap + 2 * (koff ? koff[k] : k * cs);
            for (int64_t i = 0; i < w; ++i) {
                const SA_R *e = col + 2 * i * rs;
                d[2 * k * w + i] = e[0];
                d[2 * k * w + w + i] = e[1];
            }
        }
        r += w;
    }
}

/* Panels of SA_NR columns, zero-padded: for each k, SA_NR real parts then SA_NR imaginary. */
SA_ATTR void SA_FN(pack_b)(const SA_R *b, int64_t rs, int64_t cs, int64_t kc, int64_t nc,
                           SA_R *restrict dst)
{
    for (int64_t j = 0; j < nc; j += SA_NR) {
        int64_t n = nc - j < SA_NR ? nc - j : SA_NR;
        const SA_R *bp = b + 2 * j * cs;
        SA_R *d = dst + 2 * j * kc;
        if (n < SA_NR) memset(d, 0, (size_t)(2 * kc * SA_NR) * sizeof(SA_R));
        for (int64_t k = 0; k < kc; ++k)
            for (int64_t l = 0; l < n; ++l) {
                const SA_R *e = bp + 2 * (k * rs + l * cs);
                d[2 * k * SA_NR + l] = e[0];
                d[2 * k * SA_NR + SA_NR + l] = e[1];
            }
    }
}

/* SA_FN(pack_b) for a split K, B(k, j) at b[koff[k] + j*cs]: each row of the block read once,
 * across all its panels (see the real kernel's). */
SA_ATTR void SA_FN(pack_b_ks)(const SA_R *b, const int64_t *koff, int64_t cs, int64_t kc,
                              int64_t nc, SA_R *restrict dst)
{
    for (int64_t k = 0; k < kc; ++k)
        for (int64_t j = 0; j < nc; j += SA_NR) {
            int64_t n = nc - j < SA_NR ? nc - j : SA_NR;
            const SA_R *bp = b + 2 * (koff[k] + j * cs);
            SA_R *d = dst + 2 * (j * kc + k * SA_NR);
            for (int64_t l = 0; l < n; ++l) {
                d[l] = bp[2 * l * cs];
                d[SA_NR + l] = bp[2 * l * cs + 1];
            }
            for (int64_t l = n; l < SA_NR; ++l) d[l] = d[SA_NR + l] = 0;
        }
}

SA_ATTR void SA_FN(store)(const SA_FN(vec) *re, const SA_FN(vec) *im, int64_t w, SA_R *c,
                          int64_t rs, int64_t cs, int64_t n, int accumulate)
{
    for (int64_t i = 0; i < w; ++i)
        for (int64_t l = 0; l < n; ++l) {
            SA_R *p = c + 2 * (i * rs + l * cs);
            if (accumulate) {
                p[0] += SA_LANE(re[i], l);
                p[1] += SA_LANE(im[i], l);
            } else {
                p[0] = SA_LANE(re[i], l);
                p[1] = SA_LANE(im[i], l);
            }
        }
}

#define SA_COMPLEX_TILE(W)                                                                      \
    SA_ATTR void SA_FN(tile##W)(int64_t kc, const SA_R *restrict ap, const SA_R *restrict bp,   \
                                SA_R *c, int64_t rs, int64_t cs, int64_t n, int accumulate)     \
    {                                                                                           \
        SA_FN(vec) re[W], im[W];                                                                \
        for (int i = 0; i < W; ++i) re[i] = im[i] = (SA_FN(vec)){0};                            \
        for (int64_t k = 0; k < kc; ++k) {                                                      \
            SA_FN(vec) br = *(const SA_FN(vec) *)(bp + 2 * k * SA_NR);                          \
            SA_FN(vec) bi = *(const SA_FN(vec) *)(bp + 2 * k * SA_NR + SA_NR);                  \
            for (int i = 0; i < W; ++i) {                                                       \
                SA_R xr = ap[2 * k * W + i], xi = ap[2 * k * W + W + i];                        \
                re[i] += xr * br;                                                               \
                re[i] -= xi * bi;                                                               \
                im[i] += xr * bi;                                                               \
                im[i] += xi * br;                                                               \
            }                                                                                   \
        }                                                                                       \
        SA_FN(store)(re, im, W, c, rs, cs, n, accumulate);                                      \
    }
#if SA_MRC >= 4
SA_COMPLEX_TILE(4)
#endif
SA_COMPLEX_TILE(2)
SA_COMPLEX_TILE(1)
#undef SA_COMPLEX_TILE

SA_ATTR void SA_FN(tile)(int64_t w, int64_t kc, const SA_R *ap, const SA_R *bp, SA_R *c,
                         int64_t rs, int64_t cs, int64_t n, int accumulate)
{
    switch (w) {
#if SA_MRC >= 4
    case 4: SA_FN(tile4)(kc, ap, bp, c, rs, cs, n, accumulate); break;
#endif
    case 2: SA_FN(tile2)(kc, ap, bp, c, rs, cs, n, accumulate); break;
    default: SA_FN(tile1)(kc, ap, bp, c, rs, cs, n, accumulate); break;
    }
}

/* Split a strided complex vector into re[0..K), im[0..K) (padded with zeros to a vector). */
SA_ATTR void SA_FN(split)(const SA_R *v, int64_t s, int64_t K, int64_t Kp, SA_R *restrict re,
                          SA_R *restrict im)
{
    for (int64_t k = 0; k < K; ++k) {
        re[k] = v[2 * k * s];
        im[k] = v[2 * k * s + 1];
    }
    for (int64_t k = K; k < Kp; ++k) re[k] = im[k] = 0;
}

/* N == 1: each row of A is split into scratch and dotted with the split vector b. */
SA_KATTR int SA_FN(gemv)(const sa_contraction *g, int64_t count, const SA_R *a,
                         const int64_t *a_off, int64_t da, const SA_R *b, const int64_t *b_off,
                         int64_t db, SA_R *c, const int64_t *c_off, int64_t dc, int b_shared)
{
    const int64_t M = g->M, K = g->K;
    /* four vectors of Kp; with a zero-stride operand K can be any extent (-3: too large) */
    int64_t Kp, nbytes;
    if (sa_round_up_size(K, SA_NR, &Kp) || sa_mul_size(Kp, 4 * sizeof(SA_R), &nbytes)) return -3;
    SA_SCRATCH(buf, (size_t)nbytes);
    if (!buf) return -2;
    SA_R *xr = (SA_R *)buf, *xi = xr + Kp, *rr = xi + Kp, *ri = rr + Kp;
    if (b_shared) SA_FN(split)(b + 2 * (b_off[0] + db), g->b_inner, K, Kp, xr, xi);
    for (int64_t t = 0; t < count; ++t) {
        const SA_R *at = a + 2 * (a_off[t] + da);
        SA_R *ct = c + 2 * (c_off[t] + dc);
        if (!b_shared) SA_FN(split)(b + 2 * (b_off[t] + db), g->b_inner, K, Kp, xr, xi);
        for (int64_t i = 0; i < M; ++i) {
            SA_FN(split)(at + 2 * i * g->a_row, g->a_inner, K, Kp, rr, ri);
            SA_FN(vec) sr0 = {0}, sr1 = {0}, si0 = {0}, si1 = {0};
            for (int64_t k = 0; k < Kp; k += SA_NR) {
                SA_FN(vec) ar = *(const SA_FN(vec) *)(rr + k), ai = *(const SA_FN(vec) *)(ri + k);
                SA_FN(vec) br = *(const SA_FN(vec) *)(xr + k), bi = *(const SA_FN(vec) *)(xi + k);
                sr0 += ar * br;
                sr1 += ai * bi;
                si0 += ar * bi;
                si1 += ai * br;
            }
            SA_R tr = 0, ti = 0;
            for (int64_t l = 0; l < SA_NR; ++l) {
                tr += SA_LANE(sr0, l) - SA_LANE(sr1, l);
                ti += SA_LANE(si0, l) + SA_LANE(si1, l);
            }
            ct[2 * i * g->c_row] = tr;
            ct[2 * i * g->c_row + 1] = ti;
        }
    }
    SA_SCRATCH_FREE(buf);
    return 0;
}

SA_KATTR int SA_FN(gemm)(const sa_contraction *g, int64_t count, const SA_R *a,
                         const int64_t *a_off, int64_t da, const SA_R *b, const int64_t *b_off,
                         int64_t db, SA_R *c, const int64_t *c_off, int64_t dc, int a_shared,
                         int b_shared)
{
    const int64_t M = g->M, N = g->N, K = g->K;
    /* a split K takes the packed path alone, for any N (gemv reads one K stride) */
    const int ks = sa_k_split(g);
    if (N == 1 && !ks)
        return SA_FN(gemv)(g, count, a, a_off, da, b, b_off, db, c, c_off, dc, b_shared);
    /* Same budgets as the real kernel, counted in complex elements (2 SA_R each). */
    enum { KC = 128 };
    int64_t koa[KC], kob[KC]; /* a split K's offsets in the current K block */
    const int64_t MC = (int64_t)(192 * 1024 / (2 * KC * sizeof(SA_R))) / SA_MRC * SA_MRC;
    const int64_t NC = (int64_t)(1024 * 1024 / (2 * KC * sizeof(SA_R))) / SA_NR * SA_NR;
    int64_t Mp, Np;
    if (sa_round_up_size(M, SA_MRC, &Mp) || sa_round_up_size(N, SA_NR, &Np)) return -3;
    const int64_t kc_max = K < KC ? K : KC;
    const int64_t full_budget = (int64_t)(4 * 1024 * 1024 / (2 * sizeof(SA_R)));
    /* (saturated: with zero-stride operands the extents can be anything) */
    const int full_a = !ks && a_shared && count > 1 && sa_mul_sat(Mp, K) <= full_budget;
    const int full_b = !ks && b_shared && count > 1 && sa_mul_sat(Np, K) <= full_budget;
    /* rounded up so the B panels behind it stay 64-byte aligned for the vector loads */
    const int64_t a_len = ((full_a ? Mp * K : (Mp < MC ? Mp : MC) * kc_max) + 63) / 64 * 64;
    const int64_t b_len = full_b ? Np * K : (Np < NC ? Np : NC) * kc_max;
    SA_SCRATCH(buf, (size_t)(2 * (a_len + b_len)) * sizeof(SA_R));
    if (!buf) return -2;
    SA_R *abuf = (SA_R *)buf, *bbuf = abuf + 2 * a_len;
    const int64_t ar = g->a_row, ak = g->a_inner, bk = g->b_inner, bc = g->b_col;
    const int64_t cr = g->c_row, cc = g->c_col;
    if (full_a) SA_FN(pack_a)(a + 2 * (a_off[0] + da), ar, ak, NULL, M, K, abuf);
    if (full_b) SA_FN(pack_b)(b + 2 * (b_off[0] + db), bk, bc, K, N, bbuf);
    for (int64_t t = 0; t < count; ++t) {
        const SA_R *at = a + 2 * (a_off[t] + da), *bt = b + 2 * (b_off[t] + db);
        SA_R *ct = c + 2 * (c_off[t] + dc);
        for (int64_t jc = 0; jc < N; jc += NC) {
            const int64_t nc = N - jc < NC ? N - jc : NC;
            for (int64_t pc = 0; pc < K; pc += KC) {
                const int64_t kc = K - pc < KC ? K - pc : KC;
                if (ks) sa_koffsets(g, pc, kc, koa, kob);
                if (ks) SA_FN(pack_b_ks)(bt + 2 * jc * bc, kob, bc, kc, nc, bbuf);
                else if (!full_b)
                    SA_FN(pack_b)(bt + 2 * (pc * bk + jc * bc), bk, bc, kc, nc, bbuf);
                for (int64_t ic = 0; ic < M; ic += MC) {
                    const int64_t mc = M - ic < MC ? M - ic : MC;
                    if (ks) SA_FN(pack_a)(at + 2 * ic * ar, ar, 0, koa, mc, kc, abuf);
                    else if (!full_a)
                        SA_FN(pack_a)(at + 2 * (ic * ar + pc * ak), ar, ak, NULL, mc, kc, abuf);
                    for (int64_t jr = jc; jr < jc + nc; jr += SA_NR) {
                        const int64_t n = N - jr < SA_NR ? N - jr : SA_NR;
                        const SA_R *bp = bbuf + 2 * (full_b ? jr * K + pc * SA_NR : (jr - jc) * kc);
                        for (int64_t ir = ic; ir < ic + mc;) {
                            int64_t w = SA_MRC;
                            while (w > ic + mc - ir) w >>= 1;
                            const SA_R *ap = abuf + 2 * (full_a ? ir * K + pc * w : (ir - ic) * kc);
                            SA_FN(tile)(w, kc, ap, bp, ct + 2 * (ir * cr + jr * cc), cr, cc, n,
                                        pc > 0);
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

SA_DEFINE_ENTRY(SA_R)
#undef SA_SUF
#undef SA_R
