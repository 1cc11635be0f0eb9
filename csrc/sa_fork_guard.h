/* Fork safety of our OpenBLAS: the internal part (not read by cffi). See sa_fork_guard.c. */
#ifndef SA_FORK_GUARD_H
#define SA_FORK_GUARD_H

#include "sa_fork_guard_api.h"

/* Bracket every section of C code that calls into BLAS. The section must not call back into
 * Python or need the GIL (a fork waits for it with the GIL held). Nesting is allowed (the
 * inner pair is a no-op). */
void sa_blas_enter(void);
void sa_blas_leave(void);

#endif
