/* Allocation accounting and fault injection for the C core: public part, seen by Python.
 *
 * Read by cffi's cdef after api/array.h, so: only typedefs, prototypes and integer #defines
 * (no include guards, no includes, no macros with bodies). The allocator itself
 * (sa_alloc / sa_free) is internal and declared in base/alloc_internal.h.
 *
 * Every heap block of the C core comes from sa_alloc(category, bytes) and goes back through
 * sa_free, which keeps per-category counters (thread-safe, atomic) so that tests can check
 * that pack payloads equal the ledger and that nothing is left allocated after a call,
 * including a call that failed. Stack scratch and the output (allocated by NumPy) are not
 * counted.
 */

/* Categories. PACK: operand packs and casts made by the dispatcher (what the ledger's
 * payload_bytes counts). SCRATCH: panels internal to the generic kernels. */
#define SA_ALLOC_PACK 0
#define SA_ALLOC_SCRATCH 1
#define SA_ALLOC_NCATEGORIES 2

/* Counters per category, in this order, at out[category * SA_ALLOC_NFIELDS + field]. Bytes
 * are the sizes requested (not what malloc rounds them to). */
#define SA_ALLOC_CURRENT 0     /* bytes allocated and not yet freed */
#define SA_ALLOC_PEAK 1        /* largest value of CURRENT since load or the last reset */
#define SA_ALLOC_COUNT 2       /* successful allocations */
#define SA_ALLOC_FREES 3       /* frees */
#define SA_ALLOC_NFIELDS 4
#define SA_ALLOC_NSTATS 8      /* SA_ALLOC_NCATEGORIES * SA_ALLOC_NFIELDS */

/* Copy every counter into out[0 .. SA_ALLOC_NSTATS). */
void sa_alloc_stats(int64_t *out);

/* Set each category's peak to its current bytes (start of a measurement). */
void sa_alloc_reset_peak(void);

/* Fault injection for tests: the (n+1)-th allocation from now, in any category and thread,
 * returns NULL (and only that one); n < 0 disarms. */
void sa_alloc_fail_after(int64_t n);
