/* The core's thread count (see runtime/threads.c): public part, seen by Python.
 *
 * Read by cffi's cdef, so: only prototypes (no include guards, no includes, no macros). */

/* Threads a matmul or pack started from the calling thread may use now: the process-wide
 * setting, capped by this thread's OpenMP limit (omp_get_max_threads(), which threadpoolctl
 * and OMP_NUM_THREADS set); 1 inside an OpenMP parallel region and on the core's own worker
 * threads. */
int sa_threads_get(void);

/* Set the process-wide thread count (n >= 1; n <= 0 restores the default, the processors
 * this process may use). n >= 1 also becomes the calling thread's OpenMP limit; n <= 0 gives
 * every thread whose limit was set so the limit it had before (each thread at its next call).
 * Returns the previous setting. */
int sa_threads_set(int n);

/* The process-wide setting itself (before the per-thread OpenMP cap). */
int sa_threads_setting(void);

/* The processors this process may use (the default setting): what sa_threads_set_cores
 * gave (stridedarray/_matmul/threads.py counts affinity and a cgroup quota), else the affinity. */
int sa_threads_cores(void);
void sa_threads_set_cores(int n);

/* Worker threads the pool has started (for tests and reports). */
int sa_threads_workers(void);

/* 1 when the core was built with OpenMP, else 0. */
int sa_threads_openmp(void);

/* The address of omp_get_max_threads as the loader bound it for the core (NULL without
 * OpenMP): dladdr names the OpenMP runtime's file from it. */
void *sa_threads_runtime_address(void);
