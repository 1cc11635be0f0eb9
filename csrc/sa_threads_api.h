/* The core's thread count (see sa_threads.c): public part, seen by Python.
 *
 * Read by cffi's cdef, so: only prototypes (no include guards, no includes, no macros). */

/* Threads a matmul or pack started from the calling thread may use now: the process-wide
 * setting, capped by this thread's OpenMP limit (omp_get_max_threads(), which threadpoolctl
 * and OMP_NUM_THREADS set); 1 inside an OpenMP parallel region, in a child forked after the
 * core ran threads, and in a build without OpenMP. */
int sa_threads_get(void);

/* Set the process-wide thread count (n >= 1; n <= 0 restores the default, the processors
 * this process may run on). n >= 1 also becomes the calling thread's OpenMP limit.
 * Returns the previous setting. */
int sa_threads_set(int n);

/* The process-wide setting itself (before the per-thread OpenMP cap). */
int sa_threads_setting(void);

/* The processors this process may run on (the default setting). */
int sa_threads_cores(void);

/* 1 when the core was built with OpenMP, else 0. */
int sa_threads_openmp(void);

/* The address of omp_get_max_threads as the loader bound it for the core (NULL without
 * OpenMP): dladdr names the OpenMP runtime's file from it. */
void *sa_threads_runtime_address(void);
