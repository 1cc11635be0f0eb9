/* The core's one thread-count setting, and the rules that keep threads safe.
 *
 * One process-wide number says how many threads a matmul (generic kernel, BLAS batches and
 * split products, packing) may use; it defaults to the processors this process may run on.
 * A call made from a given thread uses min(setting, omp_get_max_threads()) threads: the
 * OpenMP limit of the calling thread is what threadpoolctl's threadpool_limits and the
 * OMP_NUM_THREADS variable set, so both reach the core without knowing about it.
 *
 * Threads never nest: a call made inside an OpenMP parallel region (ours or a caller's) runs
 * on one thread. And one team at a time: while one call holds a team, a call made meanwhile
 * from another thread runs on one thread (sa_team_begin), so N Python threads multiplying at
 * once use at most N + setting - 1 threads, not N * setting.
 *
 * Busy machines: a parallel region ends when its slowest thread does. On a machine with more
 * runnable threads than cores, a worker that is not scheduled holds the caller for a scheduler
 * time slice, milliseconds, where the product itself takes microseconds. The thread count
 * decided here depends only on the setting, the OpenMP limit and the work, never on timings,
 * so a call splits the same way on a quiet and on a busy machine; where other work keeps the
 * cores busy, set_num_threads(1) or a higher policy parallel_min_work is the remedy
 * (docs/tuning.md, "BLAS threads").
 *
 * Fork: GCC's OpenMP runtime (libgomp) keeps its worker pool across fork() but the workers do
 * not exist in the child, so a child that enters a parallel region after its parent ran one
 * waits for them forever. The child handler therefore makes every call of the child run on
 * one thread (the regions are then skipped, not entered with one thread), when the parent had
 * run a region. A child of a process that never ran one keeps its threads.
 */
#include "sa_threads.h"

#include <stdatomic.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static atomic_int setting;   /* 0: the default (processors) */
static atomic_int started;   /* a parallel region has run in this process */
static atomic_int forked;    /* this process is a fork child of one that had run a region */

int sa_threads_cores(void)
{
#ifdef _OPENMP
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

int sa_threads_openmp(void)
{
#ifdef _OPENMP
    return 1;
#else
    return 0;
#endif
}

void *sa_threads_runtime_address(void)
{
#ifdef _OPENMP
    return (void *)&omp_get_max_threads;
#else
    return NULL;
#endif
}

int sa_threads_setting(void)
{
    int n = atomic_load(&setting);
    return n > 0 ? n : sa_threads_cores();
}

int sa_threads_set(int n)
{
    int before = sa_threads_setting();
    atomic_store(&setting, n > 0 ? n : 0);
#ifdef _OPENMP
    /* An explicit count also becomes the calling thread's OpenMP limit (what
     * OMP_NUM_THREADS or threadpoolctl had set for it), so that it takes effect here. */
    if (n > 0) omp_set_num_threads(n);
#endif
    return before;
}

int sa_threads_get(void)
{
#ifdef _OPENMP
    if (atomic_load(&forked) || omp_in_parallel()) return 1;
    int n = sa_threads_setting(), cap = omp_get_max_threads();
    return n < cap ? n : cap;
#else
    return 1;
#endif
}

int sa_threads_for(int64_t work, int64_t min_work)
{
    if (work < min_work || work <= 1) return 1;
    int n = sa_threads_get();
    if (n <= 1) return 1;
    int64_t most = min_work > 1 ? work / (min_work / 2 > 0 ? min_work / 2 : 1) : work;
    return most < n ? (int)(most > 1 ? most : 1) : n;
}

static atomic_int team_held; /* a call of the core holds a team of threads */

int sa_team_begin(int want)
{
    if (want < 2) return want < 1 ? 1 : want;
    int free_ = 0;
    return atomic_compare_exchange_strong(&team_held, &free_, 1) ? want : 1;
}

void sa_team_end(int got)
{
    if (got >= 2) atomic_store(&team_held, 0);
}

void sa_threads_started(void)
{
    if (!atomic_load_explicit(&started, memory_order_relaxed))
        atomic_store(&started, 1);
}

void sa_threads_forked_child(void)
{
    if (atomic_load(&started)) atomic_store(&forked, 1);
}
