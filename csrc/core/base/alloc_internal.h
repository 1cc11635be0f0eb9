/* The C core's allocator: the internal part (not read by cffi). See base/alloc.c; the counters
 * and fault injection Python reads are in api/alloc.h. */
#ifndef SA_ALLOC_INTERNAL_H
#define SA_ALLOC_INTERNAL_H

#include <stddef.h>

#include "api/alloc.h"

/* Every heap block of the C core: 64-byte aligned, counted per category (SA_ALLOC_PACK or
 * SA_ALLOC_SCRATCH, see api/alloc.h), NULL on failure or injected failure. sa_free(NULL) is a
 * no-op. Kernels must handle NULL: fail cleanly, free what they hold, report the error. */
void *sa_alloc(int category, size_t bytes);
void sa_free(void *p);

#endif
