/* Fork safety for our OpenBLAS: no BLAS call of ours is in flight when a process forks.
 *
 * The hazard: OpenBLAS registers a pthread_atfork "prepare" handler (blas_thread_shutdown_)
 * that tells its worker threads to exit and joins them. When another thread is inside a
 * threaded BLAS call at that moment, that call hands the workers new work after the exit
 * request was posted; a worker then does the work and goes back to sleep instead of exiting,
 * and the join in the forking thread never returns (seen here: a fork racing a 128 x 128
 * dgemm in a second thread hung the parent within the first few forks). The forking thread
 * holds the GIL throughout, so every other Python thread stops too.
 *
 * The guard: every BLAS-using section of the C core runs between sa_blas_enter() and
 * sa_blas_leave(), which count the sections in flight. Our own prepare handler, registered
 * with pthread_atfork AFTER OpenBLAS's (OpenBLAS registers in its library constructor, which
 * runs before our extension is loaded, and sa_fork_guard_install() is called once when the
 * extension is imported), runs BEFORE OpenBLAS's because prepare handlers run in reverse
 * registration order. It raises `pending`, which makes new sections wait, and waits until
 * the sections in flight have finished. OpenBLAS's handler then finds its workers idle. The
 * parent handler lowers `pending` and wakes the waiters; the child handler resets the guard
 * (the child has one thread, none of it in BLAS). OpenBLAS restarts its workers on the next
 * call in either process, so the child can use BLAS (tests/matmul/test_fork.py checks it).
 *
 * Why a C pthread_atfork handler and not os.register_at_fork(before=...): Python's hooks run
 * only for os.fork(), while OpenBLAS's handler, and therefore the race, runs for every fork()
 * in the process, including those made by C code (subprocess falls back to fork() for some
 * arguments, and other extensions fork). A C handler runs exactly when OpenBLAS's does.
 *
 * Why waiting here cannot deadlock: the forking thread holds the GIL while it waits (os.fork
 * does), so a section must never need the GIL. Sections are C code between cffi's release
 * and reacquisition of the GIL that never call back into Python, and they take no lock the
 * forking thread holds (glibc takes its malloc locks after the prepare handlers have run).
 * Sections do not nest (sa_matmul takes the guard once, around the BLAS execution); a
 * thread-local depth makes an inner enter a no-op anyway, because an inner enter that waited
 * for `pending` while its outer section counted as in flight would wait forever.
 *
 * Cost: two atomic read-modify-writes and two loads per BLAS-routed matmul; the mutex and
 * condition variables are touched only while a fork is pending. Forks are serialized by
 * fork_lock, held from prepare to the parent handler.
 */
#include "runtime/fork_guard_internal.h"
#include "runtime/threads_internal.h"

#ifndef _WIN32
#include <pthread.h>
#include <stdatomic.h>

static atomic_long active;        /* BLAS sections in flight */
static atomic_int pending;        /* a fork is waiting for `active` to reach 0 */
static _Thread_local int depth;   /* this thread's nesting of sections */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;      /* guards the waits below */
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;     /* active fell to 0 */
static pthread_cond_t resumed = PTHREAD_COND_INITIALIZER;     /* pending fell to 0 */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER; /* one fork at a time */

/* The memory orders are sequentially consistent on purpose: enter/leave increment or
 * decrement `active` and then read `pending`, the prepare handler sets `pending` and then
 * reads `active`; in the single total order one side always sees the other's write, so a
 * section is either waited for or waits itself, and the wake-up of a fork is never lost
 * (the broadcast is made under `lock`, which the waiter holds from its check to its wait). */
void sa_blas_enter(void)
{
    if (depth++) return;
    for (;;) {
        atomic_fetch_add(&active, 1);
        if (!atomic_load(&pending)) return;
        /* A fork is waiting for the sections in flight: step back until it is done. */
        pthread_mutex_lock(&lock);
        if (atomic_fetch_sub(&active, 1) == 1) pthread_cond_broadcast(&drained);
        while (atomic_load(&pending)) pthread_cond_wait(&resumed, &lock);
        pthread_mutex_unlock(&lock);
    }
}

void sa_blas_leave(void)
{
    if (--depth) return;
    if (atomic_fetch_sub(&active, 1) == 1 && atomic_load(&pending)) {
        pthread_mutex_lock(&lock);
        pthread_cond_broadcast(&drained);
        pthread_mutex_unlock(&lock);
    }
}

static void prepare(void)
{
    pthread_mutex_lock(&fork_lock);
    if (depth) return; /* cannot happen (no Python runs inside a section); never self-wait */
    pthread_mutex_lock(&lock);
    atomic_store(&pending, 1);
    while (atomic_load(&active) > 0) pthread_cond_wait(&drained, &lock);
    pthread_mutex_unlock(&lock);
}

static void parent(void)
{
    pthread_mutex_lock(&lock);
    atomic_store(&pending, 0);
    pthread_cond_broadcast(&resumed);
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&fork_lock);
}

static void child(void)
{
    /* Only this thread exists now. Another thread may have held `lock` at the fork (while
     * stepping back) and the condition variables may record waiters that are gone: make
     * everything afresh rather than unlock state this thread does not own. */
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&drained, NULL);
    pthread_cond_init(&resumed, NULL);
    pthread_mutex_init(&fork_lock, NULL);
    atomic_store(&active, 0);
    atomic_store(&pending, 0);
    sa_threads_forked_child(); /* our pool's workers are gone: start afresh */
}

static pthread_once_t installed = PTHREAD_ONCE_INIT;
static int install_rc = -1;

static void install(void)
{
    install_rc = pthread_atfork(prepare, parent, child);
}

int sa_fork_guard_install(void)
{
    pthread_once(&installed, install);
    return install_rc;
}

long sa_fork_guard_active(void)
{
    return atomic_load(&active);
}

#else /* Windows has no fork: nothing to guard. */
void sa_blas_enter(void) {}
void sa_blas_leave(void) {}
int sa_fork_guard_install(void) { return 0; }
long sa_fork_guard_active(void) { return 0; }
#endif
