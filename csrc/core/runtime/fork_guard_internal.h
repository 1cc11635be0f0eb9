/* Fork safety of our OpenBLAS: the internal part (not read by cffi). See runtime/fork_guard.c. */
#ifndef SA_FORK_GUARD_INTERNAL_H
#define SA_FORK_GUARD_INTERNAL_H

#include "api/fork_guard.h"

/* Bracket every section of C code that calls into BLAS. The section must not call back into
 * Python or need the GIL (a fork waits for it with the GIL held). Nesting is allowed (the
 * inner pair is a no-op). */
void sa_blas_enter(void);
void sa_blas_leave(void);

#endif
