/* The core's one thread-count setting, its pool of worker threads, and the rules that keep
 * threads safe (docs/matmul.md, "Threads").
 *
 * One process-wide number says how many threads a matmul (generic kernel, BLAS batches and
 * split products, packing) may use; it defaults to the processors this process may use
 * (stridedarray/_matmul/threads.py counts them: affinity and a cgroup cpu.max quota). A call made
 * from a given thread uses min(setting, omp_get_max_threads()) threads: the OpenMP limit of
 * the calling thread is what threadpoolctl's threadpool_limits and the OMP_NUM_THREADS
 * variable set, so both reach the core without knowing about it. The core links GCC's OpenMP
 * runtime for that limit only: it runs no OpenMP parallel region.
 *
 * No call waits for a thread that did no work. An OpenMP parallel region ends when its
 * slowest member arrives, so a product made after a pause waited for sleeping workers, one
 * made right after NumPy's threaded BLAS for workers spinning on the other core, and on a
 * busy machine a scheduler tick (4 ms) for a descheduled one, where the product itself takes
 * tens of microseconds. Here a job is cut into chunks (bands of the output, or runs of the
 * batch) claimed one at a time from an atomic counter. The calling thread publishes the job,
 * wakes the pool without waiting for it, and claims chunks from the start itself; a worker
 * that is ready claims chunks too, and one that arrives late finds none left and goes back
 * to sleep. The caller then waits only for chunks a worker has claimed and is running, at
 * most one chunk each, a fraction of the product. So at worst the caller does everything
 * alone: default threads are never much slower than one thread.
 *
 * The job slot: `state` packs the job's generation (high 32 bits) with the next unclaimed
 * chunk (low 32 bits); `slots` packs the generation with how many more workers may join (the
 * thread count the call was given, minus the caller). A worker claims a slot, then chunks,
 * each by compare-and-swap on the word with the generation it read, so a claim on a job
 * that has ended (or been replaced) fails instead of taking a chunk of another job. The
 * job's function, context and chunk count are written before its generation is published
 * (release) and read after it was seen (acquire); a worker reads them again only after a
 * successful claim, when the job cannot end before that chunk is done. One job at a time:
 * sa_team_begin grants a team to one call, others run on one thread; sa_parallel also takes
 * the slot itself (job_busy) and runs a job on the calling thread alone if it is taken.
 *
 * Where a woken worker runs (Linux): before a worker goes to sleep it moves itself off the
 * processor the last job's caller ran on (its affinity: the processors it started with, less
 * that one, when any is left). Woken, it then starts on another processor at once instead of
 * queueing behind its caller, which it may not preempt (SCHED_BATCH, below) and which keeps
 * its processor for the whole call. On a 2-processor VM after 50 ms of sleep, a SCHED_BATCH
 * worker ran a median 834 us after the wake-up without this and 99 us with it (a C test of
 * the wake-up alone, another process loading the machine); on the idle machine a 256 x 256
 * float64 product made 50 ms after the last one took 0.53-0.59 ms at two threads instead of
 * 0.94-0.97 (512 x 512: 3.3 ms instead of 6.0). The system call costs the worker, before it
 * sleeps, not the caller, and is made only when the caller's processor changed. Workers are
 * named "sa-worker" (top, ps, debuggers).
 *
 * Workers sleep on a condition variable between jobs and never spin: the threads of a
 * process share its processor time (Linux's autogroups), so on a busy machine a spinning
 * worker takes it from the caller. (Measured on a loaded machine, 20,000 3x3 products at 2
 * threads: with 50 us of spinning after each job a quarter of the calls took 2-12 ms where
 * one thread took 0.5 ms; without it, the 2-thread and 1-thread times matched.) The caller
 * waits for claimed chunks by spinning briefly, then yielding the processor in a loop: it
 * never blocks, since a thread that blocks on a busy machine waits a time slice to run
 * again.
 *
 * Threads never nest: a call made inside an OpenMP parallel region (a caller's) or on one of
 * our workers runs on one thread.
 *
 * Results do not depend on the thread count: chunks split the output (rows, columns, batch
 * items), never the contraction over K, and every output element is computed by the same
 * code on the same operands whichever thread runs its chunk.
 *
 * Fork: a child has only the forking thread. The child handler (called from
 * runtime/fork_guard.c's pthread_atfork handler) forgets the parent's workers and team and
 * makes the pool afresh; the child starts new workers when it first needs them. The forking
 * thread holds the GIL, so it is never inside a job of its own at the fork.
 *
 * Exit: a destructor stops and joins the workers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "runtime/threads_internal.h"

#include <stdatomic.h>
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <pthread.h>
#include <sched.h> /* sched_yield; MinGW-w64's winpthreads has it too */
#ifndef _WIN32
#include <unistd.h>
#endif

static atomic_int setting; /* 0: the default (cores) */
static atomic_int cores;   /* 0: not counted yet (sa_threads_set_cores) */

/* Per thread: a limit we set (sa_threads_set) and the thread's OpenMP limit before it, with
 * the reset generation it belongs to: set_num_threads(None) from any thread bumps
 * `reset_gen`, and each thread puts its own OpenMP limit back when it next asks. */
static atomic_int reset_gen;
static _Thread_local int ov_set, ov_prev, ov_gen, ov_active;
static _Thread_local int in_worker; /* this thread is one of our workers */

static int default_cores(void)
{
#if defined(_WIN32)
    return 1;
#elif defined(__linux__)
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) == 0) {
        int n = CPU_COUNT(&s);
        if (n > 0) return n;
    }
    long m = sysconf(_SC_NPROCESSORS_ONLN);
    return m > 0 ? (int)(m < SA_POOL_MAX + 1 ? m : SA_POOL_MAX + 1) : 1;
#else
    long m = sysconf(_SC_NPROCESSORS_ONLN);
    return m > 0 ? (int)(m < SA_POOL_MAX + 1 ? m : SA_POOL_MAX + 1) : 1;
#endif
}

int sa_threads_cores(void)
{
    int n = atomic_load(&cores);
    if (n > 0) return n;
    n = default_cores();
    int zero = 0;
    atomic_compare_exchange_strong(&cores, &zero, n);
    return atomic_load(&cores);
}

void sa_threads_set_cores(int n)
{
    atomic_store(&cores, n > 0 ? (n < SA_POOL_MAX + 1 ? n : SA_POOL_MAX + 1) : 0);
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

#ifdef _OPENMP
/* Undo this thread's override of its OpenMP limit once set_num_threads(None) has run
 * (anywhere) since, unless something else (threadpoolctl) has changed the limit meanwhile. */
static void restore_openmp_limit(void)
{
    if (!ov_active || atomic_load(&reset_gen) == ov_gen) return;
    if (omp_get_max_threads() == ov_set) omp_set_num_threads(ov_prev);
    ov_active = 0;
}
#endif

int sa_threads_set(int n)
{
    int before = sa_threads_setting();
    atomic_store(&setting, n > 0 ? n : 0);
#ifdef _OPENMP
    if (n > 0) {
        /* An explicit count also becomes the calling thread's OpenMP limit (what
         * OMP_NUM_THREADS or threadpoolctl had set for it), so that it takes effect here;
         * the limit it replaced comes back at the next reset. */
        restore_openmp_limit();
        if (!ov_active) ov_prev = omp_get_max_threads();
        ov_active = 1;
        ov_set = n;
        ov_gen = atomic_load(&reset_gen);
        omp_set_num_threads(n);
    } else {
        atomic_fetch_add(&reset_gen, 1);
        restore_openmp_limit();
    }
#endif
    return before;
}

int sa_threads_get(void)
{
    if (in_worker) return 1;
#ifdef _OPENMP
    if (omp_in_parallel()) return 1;
    restore_openmp_limit();
    int n = sa_threads_setting(), cap = omp_get_max_threads();
    n = n < cap ? n : cap;
#else
    int n = sa_threads_setting();
#endif
    return n < SA_POOL_MAX + 1 ? n : SA_POOL_MAX + 1;
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

/* ---- the pool ------------------------------------------------------------------------- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Pause instructions before the caller yields while a worker finishes a chunk (a pause is
 * 40-140 cycles on current x86). */
#define SPIN_BEFORE_WAIT 2000

#define GEN(s) ((uint32_t)((s) >> 32))
#define LOW(s) ((uint32_t)(s))

static _Atomic uint64_t state;         /* generation << 32 | next chunk */
static _Atomic uint64_t slots;         /* generation << 32 | workers that may still join */
static _Atomic(sa_task_fn) job_fn;
static _Atomic(void *) job_ctx;
static atomic_uint job_n;              /* chunks of the current job */
static atomic_uint job_done;           /* chunks done by workers */
static uint32_t generation;            /* written only by the job_busy holder */
static atomic_int job_busy;            /* a job is in the slot */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static uint64_t wake_seq;              /* guarded by pool_lock: bumped per job */
static int sleepers;                   /* guarded by pool_lock */
static int stopping;                   /* guarded by pool_lock */
static int nworkers;                   /* guarded by pool_lock */
static pthread_t workers[SA_POOL_MAX];
static atomic_int pool_size;           /* nworkers, readable without the lock */
#if defined(__linux__)
static atomic_int caller_cpu = -1;     /* the processor the last job's caller ran on */
#endif

/* Claim one chunk of generation `gen`; -1 when the job has none left or has ended. */
static int64_t claim(uint32_t gen, uint32_t n)
{
    uint64_t s = atomic_load_explicit(&state, memory_order_acquire);
    for (;;) {
        if (GEN(s) != gen || LOW(s) >= n) return -1;
        if (atomic_compare_exchange_weak_explicit(&state, &s, s + 1, memory_order_acq_rel,
                                                  memory_order_acquire))
            return (int64_t)LOW(s);
    }
}

/* Join generation `gen` if a slot is free, and run chunks until none is left. */
static void help(uint32_t gen)
{
    uint64_t s = atomic_load_explicit(&slots, memory_order_acquire);
    for (;;) {
        if (GEN(s) != gen || LOW(s) == 0) return;
        if (atomic_compare_exchange_weak_explicit(&slots, &s, s - 1, memory_order_acq_rel,
                                                  memory_order_acquire))
            break;
    }
    /* job_n may already belong to a later job; then claim() fails on the generation. */
    const uint32_t n = atomic_load_explicit(&job_n, memory_order_acquire);
    int64_t i;
    while ((i = claim(gen, n)) >= 0) {
        /* The job cannot end before this chunk is counted done: its fields are stable. */
        sa_task_fn fn = atomic_load_explicit(&job_fn, memory_order_relaxed);
        void *ctx = atomic_load_explicit(&job_ctx, memory_order_relaxed);
        fn(ctx, i);
        atomic_fetch_add_explicit(&job_done, 1, memory_order_release);
    }
}

#if defined(__linux__)
/* Keep this worker off processor `cpu` (see the top of the file): run it on `allowed` (the
 * processors it started with) less `cpu`, or on all of `allowed` when nothing is left. */
static void steer_off(const cpu_set_t *allowed, int cpu)
{
    cpu_set_t set = *allowed;
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_CLR(cpu, &set);
    if (CPU_COUNT(&set) == 0) set = *allowed;
    (void)sched_setaffinity(0, sizeof set, &set); /* best effort: placement, not correctness */
}
#endif

static void *worker_main(void *arg)
{
    (void)arg;
    in_worker = 1;
#ifdef SCHED_BATCH
    /* A woken worker must not take the processor from the caller that woke it (Linux's
     * wake-up preemption): measured on a busy machine, the caller then sat descheduled for
     * 2-18 ms while the worker did all the work. SCHED_BATCH threads never preempt on
     * waking; they run in their turn. The price: a worker woken after an idle spell was
     * often queued on the caller's own processor and ran only when the scheduler moved it
     * (measured on a 2-processor VM after 50 ms of sleep: 0.7-0.8 ms to run, against
     * 25 us for a normal thread, which then preempted its caller); hence the move off the
     * caller's processor before sleeping (steer_off, and the top of the file). */
    struct sched_param sp = {0};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
#endif
#if defined(__linux__)
    /* A name for top, ps and debuggers (and the tests that find the pool's threads). */
    pthread_setname_np(pthread_self(), "sa-worker");
    cpu_set_t allowed;
    const int can_steer = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
    int steered_off = -1;
#endif
    uint32_t seen = GEN(atomic_load_explicit(&state, memory_order_acquire));
    uint64_t seq;
    pthread_mutex_lock(&pool_lock);
    seq = wake_seq;
    pthread_mutex_unlock(&pool_lock);
    for (;;) {
        uint32_t g = GEN(atomic_load_explicit(&state, memory_order_acquire));
        if (g != seen) {
            seen = g;
            help(g);
            continue;
        }
#if defined(__linux__)
        const int cpu = atomic_load_explicit(&caller_cpu, memory_order_relaxed);
        if (can_steer && cpu >= 0 && cpu != steered_off) {
            steer_off(&allowed, cpu);
            steered_off = cpu;
        }
#endif
        pthread_mutex_lock(&pool_lock);
        ++sleepers;
        while (wake_seq == seq && !stopping) pthread_cond_wait(&pool_wake, &pool_lock);
        --sleepers;
        seq = wake_seq;
        int stop = stopping;
        pthread_mutex_unlock(&pool_lock);
        if (stop) return NULL;
    }
}

/* Start workers until there are `want` (best effort: a thread that cannot start is not
 * needed, the caller does the work). */
static void grow(int want)
{
    if (want > SA_POOL_MAX) want = SA_POOL_MAX;
    if (atomic_load_explicit(&pool_size, memory_order_acquire) >= want) return;
    pthread_mutex_lock(&pool_lock);
    while (nworkers < want && !stopping) {
        int rc = pthread_create(&workers[nworkers], NULL, worker_main, NULL);
        if (rc != 0) break;
        ++nworkers;
    }
    atomic_store_explicit(&pool_size, nworkers, memory_order_release);
    pthread_mutex_unlock(&pool_lock);
}

void sa_parallel(int threads, int64_t nchunks, sa_task_fn fn, void *ctx)
{
    if (nchunks <= 0) return;
    if (threads < 2 || nchunks < 2 || in_worker || nchunks > (int64_t)UINT32_MAX / 2) {
        for (int64_t i = 0; i < nchunks; ++i) fn(ctx, i);
        return;
    }
    /* One job in the slot at a time. Callers hold a team (sa_team_begin), so this never
     * fails for them; it keeps a caller that does not from corrupting another's job. */
    int idle = 0;
    if (!atomic_compare_exchange_strong(&job_busy, &idle, 1)) {
        for (int64_t i = 0; i < nchunks; ++i) fn(ctx, i);
        return;
    }
    int helpers = threads - 1;
    if (helpers > nchunks - 1) helpers = (int)(nchunks - 1);
    grow(helpers);
    const uint32_t n = (uint32_t)nchunks;
    const uint32_t gen = ++generation; /* only the job_busy holder writes it */
    atomic_store_explicit(&job_fn, fn, memory_order_relaxed);
    atomic_store_explicit(&job_ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&job_n, n, memory_order_relaxed);
    atomic_store_explicit(&job_done, 0, memory_order_relaxed);
    atomic_store_explicit(&slots, (uint64_t)gen << 32 | (uint32_t)helpers, memory_order_release);
    atomic_store(&state, (uint64_t)gen << 32); /* publishes the fields above */
#if defined(__linux__)
    atomic_store_explicit(&caller_cpu, sched_getcpu(), memory_order_relaxed);
#endif
    /* Wake sleeping workers; never wait for them. */
    pthread_mutex_lock(&pool_lock);
    ++wake_seq;
    if (sleepers > 0) {
        if (helpers >= sleepers) pthread_cond_broadcast(&pool_wake);
        else
            for (int k = 0; k < helpers; ++k) pthread_cond_signal(&pool_wake);
    }
    pthread_mutex_unlock(&pool_lock);
    /* The caller's share: chunks from the start, until none is left. */
    uint32_t mine = 0;
    int64_t i;
    while ((i = claim(gen, n)) >= 0) {
        fn(ctx, i);
        ++mine;
    }
    /* No worker may join from here on (a late one finds neither a slot nor a chunk). */
    atomic_store_explicit(&slots, (uint64_t)gen << 32, memory_order_release);
    /* Wait for the chunks workers claimed and are running, without giving up the processor:
     * on a busy machine a thread that blocks waits a scheduler time slice (milliseconds) to
     * run again, far longer than a chunk. So spin, then yield while waiting. */
    const uint32_t theirs = n - mine;
    for (int spin = 0; atomic_load_explicit(&job_done, memory_order_acquire) != theirs;) {
        if (spin < SPIN_BEFORE_WAIT) {
            cpu_relax();
            ++spin;
        } else {
            sched_yield();
        }
    }
    atomic_store(&job_busy, 0);
}

int sa_threads_workers(void)
{
    return atomic_load(&pool_size);
}

void sa_threads_forked_child(void)
{
    /* Only the forking thread exists: the workers, and any team another thread held, are
     * gone. Make the pool afresh (not unlock state this thread does not own). */
    pthread_mutex_init(&pool_lock, NULL);
    pthread_cond_init(&pool_wake, NULL);
    nworkers = 0;
    sleepers = 0;
    stopping = 0;
    atomic_store(&pool_size, 0);
    atomic_store(&team_held, 0);
    atomic_store(&job_busy, 0);
    /* a new generation, so that nothing of the parent's job can be claimed */
    atomic_store(&slots, (uint64_t)(++generation) << 32);
    atomic_store(&state, (uint64_t)generation << 32);
}

#if defined(__GNUC__)
__attribute__((destructor)) static void stop_pool(void)
{
    pthread_mutex_lock(&pool_lock);
    stopping = 1;
    pthread_cond_broadcast(&pool_wake);
    int n = nworkers;
    pthread_mutex_unlock(&pool_lock);
    for (int k = 0; k < n; ++k) pthread_join(workers[k], NULL);
    pthread_mutex_lock(&pool_lock);
    nworkers = 0;
    atomic_store(&pool_size, 0);
    pthread_mutex_unlock(&pool_lock);
}
#endif
