/* Fork safety of our OpenBLAS (see runtime/fork_guard.c): public part, seen by Python.
 *
 * Read by cffi's cdef, so: only prototypes (no include guards, no includes, no macros). */

/* Register the guard's pthread_atfork handlers (once per process; later calls only return
 * the first result). Must run after OpenBLAS has loaded, so that our prepare handler runs
 * before OpenBLAS's. Returns 0, or pthread_atfork's error code. */
int sa_fork_guard_install(void);

/* BLAS sections in flight in this process right now (0 when no BLAS-routed call runs). */
long sa_fork_guard_active(void);
