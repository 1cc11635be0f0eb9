/* A stand-in for the part of GCC's OpenMP runtime (libgomp) the C core uses, for the
 * ThreadSanitizer harness only (tools/checks/tsan/run).
 *
 * The core runs its threads on a pool of its own (csrc/core/runtime/threads.c: pthreads and C11
 * atomics, which TSan sees) and links libgomp only for the OpenMP thread limit of the
 * calling thread (omp_get_max_threads, which threadpoolctl and OMP_NUM_THREADS set) and
 * omp_in_parallel. libgomp is not built with -fsanitize=thread; these few calls are defined
 * here instead, per thread as in libgomp, so that the harness links no uninstrumented
 * threading code at all.
 */
static __thread int max_threads = 4, max_threads_set = 0;

int omp_in_parallel(void) { return 0; }
int omp_get_max_threads(void) { return max_threads_set ? max_threads : 4; }
int omp_get_num_procs(void) { return 4; }
void omp_set_num_threads(int n)
{
    max_threads = n > 0 ? n : 1;
    max_threads_set = 1;
}
