/* The core's thread count: the internal part (not read by cffi). See runtime/threads.c. */
#ifndef SA_THREADS_INTERNAL_H
#define SA_THREADS_INTERNAL_H

#include <stdint.h>

#include "api/threads.h"

/* Threads for a job of `work` units (multiply-adds, or bytes for a pack): 1 when work is
 * below `min_work`, else sa_threads_get(), capped so that every thread gets at least
 * min_work / 2 units (a thread woken for less costs more than it saves). */
int sa_threads_for(int64_t work, int64_t min_work);

/* One team at a time: a call that wants `want` >= 2 threads gets them only while no other
 * call of the core holds a team, else 1 (so Python threads that multiply at once, e.g. a
 * Dask threaded scheduler, do not multiply the threads beyond the cores). Returns the
 * threads to use; pass the same value to sa_team_end. Never blocks. */
int sa_team_begin(int want);
void sa_team_end(int got);

/* The most workers the pool starts (a call uses at most SA_POOL_MAX + 1 threads). */
#define SA_POOL_MAX 255

/* Run fn(ctx, i) for every chunk i in [0, nchunks): the calling thread claims chunks from
 * the start, and up to threads - 1 pool workers that are ready claim the others; returns
 * when every chunk has run. The caller never waits for a worker that claimed nothing. The
 * chunks must be independent (different parts of the output). Call only while holding a
 * team (sa_team_begin returned `threads` >= 2); with threads < 2, inside a worker, or for
 * one chunk, it runs every chunk on the calling thread, in order. */
typedef void (*sa_task_fn)(void *ctx, int64_t chunk);
void sa_parallel(int threads, int64_t nchunks, sa_task_fn fn, void *ctx);

/* pthread_atfork child handler (runtime/fork_guard.c calls it): forget the parent's workers. */
void sa_threads_forked_child(void);

/* a*b*c*d for non-negative factors, saturating at INT64_MAX (a work estimate, not a size). */
static inline int64_t sa_work4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r)
        || __builtin_mul_overflow(r, d, &r))
        return INT64_MAX;
    return r;
}

#endif
