/* A stand-in for the part of GCC's OpenMP runtime (libgomp) the C core uses, for the
 * ThreadSanitizer harness only (tools/tsan/run).
 *
 * libgomp is not built with -fsanitize=thread, so TSan cannot see the synchronization of its
 * fork (workers start after the caller's writes) and join (the caller continues after the
 * workers' writes), and reports those as races. This stand-in implements the same calls
 * with plain pthread_create and pthread_join, which TSan intercepts: the happens-before edges
 * of a parallel region are exactly those of OpenMP's fork and join, and every report left is
 * a race between threads inside a region. GCC compiles `#pragma omp parallel` into
 * GOMP_parallel(outlined_fn, data, num_threads, flags) and the static schedule of
 * `omp for` into arithmetic on omp_get_thread_num()/omp_get_num_threads(); the barrier a
 * worksharing loop may end with is GOMP_barrier.
 */
#include <pthread.h>
#include <stdlib.h>

static int max_threads = 4;
static __thread int tid = 0, nth = 1;
static pthread_barrier_t barrier; /* the team's (one team at a time in the harness) */

int omp_get_thread_num(void) { return tid; }
int omp_get_num_threads(void) { return nth; }
int omp_in_parallel(void) { return nth > 1; }
int omp_get_max_threads(void) { return max_threads; }
int omp_get_num_procs(void) { return 4; }
void omp_set_num_threads(int n) { max_threads = n > 0 ? n : 1; }

typedef struct {
    void (*fn)(void *);
    void *data;
    int id, n;
} member;

static void *run(void *arg)
{
    member *m = (member *)arg;
    tid = m->id;
    nth = m->n;
    m->fn(m->data);
    return NULL;
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    (void)flags;
    int n = num_threads ? (int)num_threads : max_threads;
    member *ms = calloc((size_t)n, sizeof *ms);
    pthread_t *ts = calloc((size_t)n, sizeof *ts);
    if (!ms || !ts) abort();
    pthread_barrier_init(&barrier, NULL, (unsigned)n);
    for (int i = 0; i < n; ++i) ms[i] = (member){fn, data, i, n};
    for (int i = 1; i < n; ++i)
        if (pthread_create(&ts[i], NULL, run, &ms[i])) abort();
    int old_tid = tid, old_nth = nth;
    run(&ms[0]);
    for (int i = 1; i < n; ++i) pthread_join(ts[i], NULL);
    tid = old_tid, nth = old_nth;
    pthread_barrier_destroy(&barrier);
    free(ms);
    free(ts);
}

void GOMP_barrier(void)
{
    if (nth > 1) pthread_barrier_wait(&barrier);
}
