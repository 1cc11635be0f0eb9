/* The C core's allocator: 64-byte aligned blocks with a header, per-category counters and
 * fault injection (public part in api/alloc.h, internal part in base/alloc_internal.h).
 *
 * Only the malloc'd paths pay for the accounting (a few relaxed atomic adds next to a malloc
 * of kilobytes at least); the small-product paths allocate nothing and never get here.
 */
#include <stdlib.h>

#include "base/alloc_internal.h"
#include "base/array_internal.h"

/* The header sits just below the aligned block: the pointer malloc returned (to free it), the
 * requested size and the category (so that sa_free knows what to subtract). */
typedef struct {
    void *raw;
    size_t bytes;
    int category;
} sa_block_header;

#define SA_ALIGN 64
/* raw .. block: at least one header, rounded to the alignment, plus up to SA_ALIGN - 1 bytes
 * of alignment slack. */
#define SA_HEADER_ROOM ((sizeof(sa_block_header) + SA_ALIGN - 1) / SA_ALIGN * SA_ALIGN)

static int64_t stats[SA_ALLOC_NSTATS];
static int64_t fail_in = -1; /* allocations left before the injected failure; -1: disarmed */

#define STAT(cat, field) (&stats[(cat) * SA_ALLOC_NFIELDS + (field)])

/* 1 if this allocation is the one the fault injection fails. A CAS loop so that, with several
 * threads allocating, exactly one allocation fails. */
static int injected_failure(void)
{
    int64_t v = __atomic_load_n(&fail_in, __ATOMIC_RELAXED);
    while (v >= 0) {
        int64_t next = v == 0 ? -1 : v - 1;
        if (__atomic_compare_exchange_n(&fail_in, &v, next, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return v == 0;
    }
    return 0;
}

void *sa_alloc(int category, size_t bytes)
{
    assert(category >= 0 && category < SA_ALLOC_NCATEGORIES);
    if (bytes > SIZE_MAX - SA_HEADER_ROOM - SA_ALIGN) return NULL;
    if (injected_failure()) return NULL;
    char *raw = malloc(bytes + SA_HEADER_ROOM + SA_ALIGN);
    if (!raw) return NULL;
    char *p = raw + SA_HEADER_ROOM + (SA_ALIGN - (uintptr_t)raw % SA_ALIGN) % SA_ALIGN;
    sa_block_header h = {raw, bytes, category};
    memcpy(p - sizeof h, &h, sizeof h);
    int64_t cur = __atomic_add_fetch(STAT(category, SA_ALLOC_CURRENT), (int64_t)bytes,
                                     __ATOMIC_RELAXED);
    __atomic_add_fetch(STAT(category, SA_ALLOC_COUNT), 1, __ATOMIC_RELAXED);
    int64_t peak = __atomic_load_n(STAT(category, SA_ALLOC_PEAK), __ATOMIC_RELAXED);
    while (cur > peak && !__atomic_compare_exchange_n(STAT(category, SA_ALLOC_PEAK), &peak, cur,
                                                       1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return p;
}

void sa_free(void *p)
{
    if (!p) return;
    sa_block_header h;
    memcpy(&h, (char *)p - sizeof h, sizeof h);
    assert(h.category >= 0 && h.category < SA_ALLOC_NCATEGORIES);
    __atomic_sub_fetch(STAT(h.category, SA_ALLOC_CURRENT), (int64_t)h.bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(STAT(h.category, SA_ALLOC_FREES), 1, __ATOMIC_RELAXED);
    free(h.raw);
}

void sa_alloc_stats(int64_t *out)
{
    for (int i = 0; i < SA_ALLOC_NSTATS; ++i) out[i] = __atomic_load_n(&stats[i], __ATOMIC_RELAXED);
}

void sa_alloc_reset_peak(void)
{
    for (int c = 0; c < SA_ALLOC_NCATEGORIES; ++c)
        __atomic_store_n(STAT(c, SA_ALLOC_PEAK),
                         __atomic_load_n(STAT(c, SA_ALLOC_CURRENT), __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
}

void sa_alloc_fail_after(int64_t n)
{
    __atomic_store_n(&fail_in, n < 0 ? -1 : n, __ATOMIC_RELAXED);
}
