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
 * Stalls: a parallel region ends when its slowest thread does. On a machine with more runnable
 * threads than cores, a worker that is not scheduled (or is woken late) holds the caller for a
 * scheduler time slice, milliseconds, where the product itself takes microseconds (measured on
 * the 2-core reference machine under load: 2-thread products of 0.05-1 ms took 3-35 ms, every
 * call). The stall guard watches each region: when the caller spends more than twice its own
 * share of the work plus 0.2 ms starting the team and waiting for it, every call runs on one thread for a
 * spell (50 ms, doubling while stalls repeat, at most 2 s), then threads are tried again; a
 * region without a stall ends the doubling. On a quiet machine nothing changes.
 *
 * Fork: GCC's OpenMP runtime (libgomp) keeps its worker pool across fork() but the workers do
 * not exist in the child, so a child that enters a parallel region after its parent ran one
 * waits for them forever. The child handler therefore makes every call of the child run on
 * one thread (the regions are then skipped, not entered with one thread), when the parent had
 * run a region. A child of a process that never ran one keeps its threads.
 */
#include "sa_threads.h"

#include <stdatomic.h>
#include <time.h>

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

int64_t sa_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static _Atomic int64_t backoff_until; /* clock value before which calls use one thread */
static _Atomic int64_t backoff_len;   /* the current spell's length (0: no recent stall) */
static _Atomic int64_t stalls;        /* stalls seen */
static atomic_int guard_off;          /* the guard is switched off */

int sa_threads_set_guard(int on)
{
    return !atomic_exchange(&guard_off, !on);
}

#define SA_STALL_SLACK_NS 200000
#define SA_BACKOFF_FIRST_NS 50000000
#define SA_BACKOFF_MAX_NS 2000000000

void sa_threads_note_region(int64_t own_ns, int64_t wait_ns)
{
    if (atomic_load_explicit(&guard_off, memory_order_relaxed)) return;
    if (wait_ns > 2 * own_ns + SA_STALL_SLACK_NS) {
        atomic_fetch_add(&stalls, 1);
        int64_t len = atomic_load(&backoff_len);
        len = len ? (len < SA_BACKOFF_MAX_NS / 2 ? 2 * len : SA_BACKOFF_MAX_NS)
                  : SA_BACKOFF_FIRST_NS;
        atomic_store(&backoff_len, len);
        atomic_store(&backoff_until, sa_clock_ns() + len);
    } else if (atomic_load(&backoff_len)) {
        atomic_store(&backoff_len, 0);
    }
}

int64_t sa_threads_stalls(void)
{
    return atomic_load(&stalls);
}

int64_t sa_threads_backoff_ns(void)
{
    int64_t left = atomic_load(&backoff_until) - sa_clock_ns();
    return left > 0 ? left : 0;
}

int sa_team_begin(int want)
{
    if (want < 2) return want < 1 ? 1 : want;
    if (atomic_load(&backoff_until) > 0 && !atomic_load(&guard_off)
        && sa_threads_backoff_ns() > 0)
        return 1;
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
