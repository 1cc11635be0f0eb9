/* The planned matmul core: public API seen by Python through cffi.
 *
 * Read by cffi's cdef after api/array.h, so: only typedefs, prototypes and integer #defines
 * (no include guards, no includes, no macros with bodies).
 *
 * One call, sa_matmul(), plans the contraction, selects a backend once (ordered dispatch
 * with clean decline), and executes the whole batch. With `plan_only` set it stops after
 * selection and only fills the explain record: `matmul_explain` and `@` share this code.
 */

/* Roles, all normalized to one contraction M x K @ K x N. */
#define SA_MM_DOT 0
#define SA_MM_GEVM 1
#define SA_MM_GEMV 2
#define SA_MM_GEMM 3

/* Backends in dispatch order. */
#define SA_MM_BLAS 0
#define SA_MM_PACK_BLAS 1
#define SA_MM_GENERIC 2
#define SA_MM_REFERENCE 3
#define SA_MM_NBACKENDS 4

/* Type-stage verdicts. */
#define SA_MM_NO 0
#define SA_MM_MAYBE 1
#define SA_MM_YES 2

/* Runtime outcomes recorded per backend (0 = accepted). */
#define SA_MM_ACCEPTED 0
#define SA_MM_DECLINE_LAYOUT 1
#define SA_MM_DECLINE_BELOW_CROSSOVER 2
#define SA_MM_DECLINE_NOT_REUSED 3
#define SA_MM_DECLINE_PHYSICAL_ZERO_STRIDE 4
#define SA_MM_DECLINE_TOO_LARGE 5
#define SA_MM_DECLINE_UNAVAILABLE 6
#define SA_MM_DECLINE_EMPTY 7
#define SA_MM_DECLINE_NOTHING_TO_PACK 8
#define SA_MM_SKIPPED_TYPE 9
#define SA_MM_SKIPPED_FORCED 10
#define SA_MM_NOT_TRIED 11

/* Return codes of sa_matmul. */
#define SA_MM_OK 0
#define SA_MM_ERR_RANK -1
#define SA_MM_ERR_CORE_SHAPE -2
#define SA_MM_ERR_BATCH_SHAPE -3
#define SA_MM_ERR_DTYPE -4
#define SA_MM_ERR_OUTPUT -5
#define SA_MM_ERR_NOMEM -6
#define SA_MM_ERR_INTERNAL -7
#define SA_MM_ERR_OVERFLOW -8  /* a size, byte count or the work does not fit 64 bits */

/* Every crossover constant, one field per key of stridedarray._matmul.policy.DEFAULT_POLICY.
 * Read-only during a call: the C core holds no mutable global state. */
typedef struct {
    int64_t dot_blas_min_k;             /* DOT direct BLAS when K >= this */
    int64_t gemm_blas_min;              /* GEMM direct BLAS when min(M,N,K) >= this */
    int64_t gemm_batch_blas_min;        /* the same for a batch of two or more products */
    int64_t gemm_pack_min;              /* GEMM pack-once when min(M,N,K) >= this */
    int64_t gevm_compact_min_kn;        /* unbatched GEVM, dense matrix: K*N >= this */
    int64_t gevm_blas_min;              /* unbatched GEVM, other layouts: min(K,N) >= this */
    int64_t gemv_blas_min;              /* unbatched GEMV: min(M,K) >= this */
    int64_t batched_vec_blas_min_elems; /* batched GEMV/GEVM direct: matrix elements >= this */
    int64_t vec_pack_always_min_elems;  /* reused bad vector: pack when matrix elems >= this */
    int64_t vec_pack_cond_min_elems;    /* ... or matrix elems >= this and */
    int64_t vec_pack_cond_min_batch;    /*     batch count >= this */
    int64_t vec_pack_floor_min_elems;   /* ... or matrix elems >= this and */
    int64_t vec_pack_floor_min_out;     /*     total output elements >= this */
    int64_t blas_enabled;               /* 0 makes both BLAS backends decline "unavailable" */
    int64_t parallel_min_work;          /* a call of fewer multiply-adds runs on one thread */
    int64_t gil_release_min_work;       /* `@` releases the GIL from this many multiply-adds on
                                           (read by the array type, csrc/arraytype/matmul.c) */
    int64_t force;                      /* -1, or the backend to try alone (thresholds off) */
} sa_mm_policy;

/* Facts of one plan (what explain shows) plus the selection made on them. */
typedef struct {
    int32_t role;
    int32_t dtype;                    /* computation and output dtype */
    int64_t M, N, K;
    int32_t nbatch;                   /* rank of the batch domain */
    int64_t batch_shape[SA_MAXDIM];
    int64_t out_bstrides[SA_MAXDIM];  /* mapped batch strides, elements */
    int64_t lhs_bstrides[SA_MAXDIM];
    int64_t rhs_bstrides[SA_MAXDIM];
    int64_t lhs_row, lhs_inner;       /* core strides, signed, of the planned operands */
    int64_t rhs_inner, rhs_col;
    int64_t out_row, out_col;
    int64_t K2;                       /* sa_matmul_ksplit: K = (K / K2) x K2, k2 the inner */
    int64_t lhs_outer, rhs_outer;     /* index; the K1 strides. 0, 0, 0 when K is one axis */
    int32_t lhs_reused, rhs_reused;   /* shape broadcasting reuses a supplied matrix */
    int32_t lhs_zero_bstride, rhs_zero_bstride; /* a physical 0 batch stride, extent > 1 */
    int64_t C, U_lhs, U_rhs;          /* contractions; supplied matrices visited */
    /* selection and ledger */
    int32_t route;                    /* backend that accepted */
    int32_t pack_lhs, pack_rhs;       /* 1 = packed for layout, 2 = cast while packing */
    int64_t payload_bytes;
    uint64_t flops_lo, flops_hi;      /* the exact flop count, flops_hi * 2^64 + flops_lo */
    int64_t blas_calls;
    int64_t packed_matrices;          /* supplied matrices (or vectors) packed */
    int32_t type_verdict[SA_MM_NBACKENDS];
    int32_t outcome[SA_MM_NBACKENDS];
    int32_t threads;                  /* threads the route runs on (the core's setting, or 1) */
} sa_mm_explain;

/* out = lhs @ rhs. `out` is C-contiguous storage of `out_nbuf` elements of `out_dtype`, with
 * the Array API output shape (batch..., M if lhs is a matrix, N if rhs is a matrix).
 * Operands whose dtype differs from out_dtype are cast while packing. `ex` may be NULL.
 * plan_only != 0: plan and select, fill `ex`, touch no data (out may be NULL).
 * Returns SA_MM_OK or a negative SA_MM_ERR_* code: SA_MM_ERR_OVERFLOW when the output's byte
 * size, a pack's or a kernel scratch's size, or (when computing) the flop count does not fit
 * in int64_t. */
int sa_matmul(const sa_array *lhs, const sa_array *rhs, int out_dtype, char *out,
              int64_t out_nbuf, const sa_mm_policy *pol, sa_mm_explain *ex, int plan_only);

/* The hot path of `@`: sa_matmul(lhs, rhs, out_dtype, out, out_nbuf, pol, NULL, 0), with two
 * arguments fewer to convert per call. */
int sa_matmul_run(const sa_array *lhs, const sa_array *rhs, int out_dtype, char *out,
                  int64_t out_nbuf, const sa_mm_policy *pol);

/* out = lhs @ rhs with the contracted dimension made of two strided axes: lhs has shape
 * (batch..., M, K1, K2), rhs (batch..., K1, K2, N), out the C-contiguous (batch..., M, N),
 * lhs[..., i, k1, k2] * rhs[..., k1, k2, j] summed over k1 and k2. Both operands in out_dtype
 * (no cast). The BLAS routes decline it (they read one K stride; explain says "declined:
 * layout"), the generic and reference kernels read it in place. Not kept in the plan cache.
 * Returns as sa_matmul; SA_MM_ERR_RANK for an operand of rank < 3, SA_MM_ERR_CORE_SHAPE when
 * K1 or K2 differ, SA_MM_ERR_DTYPE for an operand not in out_dtype. */
int sa_matmul_ksplit(const sa_array *lhs, const sa_array *rhs, int out_dtype, char *out,
                     int64_t out_nbuf, const sa_mm_policy *pol, sa_mm_explain *ex, int plan_only);
