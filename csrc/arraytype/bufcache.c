/* The result-buffer cache (docs/array.md, "What a call costs"): large blocks that results
 * freed, kept warm for the next result of about the same size.
 *
 * In `x * 2 + 1` the temporary `x * 2` is freed as soon as `+ 1` has read it, and the next
 * evaluation allocates the same sizes again. glibc returns blocks of that size to the system
 * (an unmapped chunk, a trimmed heap top) and the next result faults every page in again,
 * zeroed by the kernel: on a 300x300 float64 chain that is 95% of the time. NumPy avoids it
 * only in the operator form, by writing into its own temporaries. Keeping the freed blocks
 * here makes both spellings, `x * 2 + 1` and `add(multiply(x, 2), 1)`, reuse warm memory.
 *
 * It is a NumPy memory handler (NEP 49). The operators install it only around their own ufunc
 * calls, in the prepared quiet context (fpe.h) or in the caller's context for that call,
 * and only while the caller's handler is NumPy's default one: the user's own NumPy
 * allocations, and a handler the user set, are left as they are. Every block carries a
 * header with its size; what the cache does not keep goes to NumPy's default handler (its
 * small-block cache, its huge-page advice), so an array made under this handler frees
 * correctly whoever ends up holding it. Only blocks of at least CACHE_MIN_BYTES are kept:
 * malloc serves smaller ones from its free lists without a system call.
 *
 * The bound: at most CACHE_SLOTS blocks and `max_bytes` bytes (the oldest go first to make
 * room; a block larger than the cap is never kept); nothing is kept, and everything held is
 * released, while the system's available memory (/proc/meminfo's MemAvailable, read at most
 * every PRESSURE_PERIOD_NS) is under an eighth of its total. _buffer_cache(max_bytes=...)
 * sets the cap (0 keeps nothing) and _buffer_cache_clear() releases everything now.
 *
 * A pthread mutex guards the list: blocks are freed by whichever thread drops an array,
 * with or without the GIL (free-threaded CPython). fork() waits for it (pthread_atfork), so
 * the child inherits a whole list and a free lock; the blocks it inherits are its own.
 * The sanitizer build keeps nothing, so that AddressSanitizer sees every block freed. */
#include "arraytype.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HDR 16                               /* keeps the data 16-byte aligned, as malloc's */
#define CACHE_MIN_BYTES SA_BUFCACHE_MIN_BYTES
#define CACHE_SLOTS 16
#define PRESSURE_PERIOD_NS 500000000LL
#ifdef SA_SANITIZE_BUILD
#define DEFAULT_MAX_BYTES 0
#else
#define DEFAULT_MAX_BYTES ((size_t)256 << 20)
#endif

typedef struct {
    char *data;  /* the block's data (after its header) */
    size_t cap;  /* its size */
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot slots[CACHE_SLOTS];  /* oldest first */
static int nslots = 0;
static size_t held = 0;
static size_t max_bytes = DEFAULT_MAX_BYTES;
static long long next_check = 0;  /* monotonic ns of the next memory-pressure check */
static int pressure = 0;
static long long hits = 0, misses = 0;

static PyDataMem_Handler *np_default = NULL;  /* NumPy's default handler */
static PyObject *handler_capsule = NULL;       /* ours */
static PyObject *default_capsule = NULL;       /* NumPy's (borrowed from NumPy) */

static size_t
size_of(const char *data)
{
    size_t cap;
    memcpy(&cap, data - HDR, sizeof cap);
    return cap;
}

static void *
with_header(char *raw, size_t size)
{
    if (raw == NULL) {
        return NULL;
    }
    memcpy(raw, &size, sizeof size);
    return raw + HDR;
}

static void
release(char *data)
{
    size_t cap = size_of(data);
    np_default->allocator.free(np_default->allocator.ctx, data - HDR, cap + HDR);
}

/* The smallest kept block of at least `size` bytes and at most a quarter more, the most
 * recently freed of those (the likeliest still in the CPU caches), or NULL. */
static char *
take(size_t size)
{
    char *found = NULL;
    pthread_mutex_lock(&lock);
    int best = -1;
    for (int k = 0; k < nslots; k++) {
        if (slots[k].cap >= size && slots[k].cap - size <= size / 4
            && (best < 0 || slots[k].cap <= slots[best].cap)) {
            best = k;
        }
    }
    if (best >= 0) {
        found = slots[best].data;
        held -= slots[best].cap;
        memmove(&slots[best], &slots[best + 1], (size_t)(nslots - best - 1) * sizeof(slot));
        nslots--;
        hits++;
    }
    else {
        misses++;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static long long
now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* MemAvailable < MemTotal / 8 (Linux); 0 where /proc/meminfo cannot be read. Plain system
 * calls: it may run in any thread, without the GIL. */
static int
under_pressure(void)
{
    char text[4096];
    int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    text[n] = '\0';
    const char *t = strstr(text, "MemTotal:"), *a = strstr(text, "MemAvailable:");
    if (t == NULL || a == NULL) {
        return 0;
    }
    long long total = atoll(t + 9), avail = atoll(a + 13);
    return total > 0 && avail < total / 8;
}

/* Take `data` (of `cap` bytes) into the cache: 1, or 0 when it is not kept. Blocks pushed
 * out to make room go to `out` (at most CACHE_SLOTS), freed by the caller after the lock. */
static int
keep(char *data, size_t cap, char **out, int *nout)
{
    int kept = 0;
    pthread_mutex_lock(&lock);
    long long t = now_ns();
    if (t >= next_check) {
        next_check = t + PRESSURE_PERIOD_NS;
        pressure = under_pressure();
    }
    size_t cap_now = pressure ? 0 : max_bytes;
    if (cap <= cap_now) {
        while (nslots > 0 && (nslots == CACHE_SLOTS || held + cap > cap_now)) {
            out[(*nout)++] = slots[0].data;
            held -= slots[0].cap;
            memmove(&slots[0], &slots[1], (size_t)(nslots - 1) * sizeof(slot));
            nslots--;
        }
        slots[nslots++] = (slot){data, cap};
        held += cap;
        kept = 1;
    }
    else if (pressure) {
        while (nslots > 0) {
            out[(*nout)++] = slots[--nslots].data;
        }
        held = 0;
    }
    pthread_mutex_unlock(&lock);
    return kept;
}

static void *
cache_malloc(void *ctx, size_t size)
{
    if (size >= CACHE_MIN_BYTES) {
        char *p = take(size);
        if (p != NULL) {
            return p;
        }
    }
    if (size > SIZE_MAX - HDR) {
        return NULL;
    }
    return with_header(np_default->allocator.malloc(np_default->allocator.ctx, size + HDR), size);
}

static void *
cache_calloc(void *ctx, size_t nelem, size_t elsize)
{
    if (elsize != 0 && nelem > (SIZE_MAX - HDR) / elsize) {
        return NULL;
    }
    size_t size = nelem * elsize;
    return with_header(np_default->allocator.calloc(np_default->allocator.ctx, 1, size + HDR),
                       size);
}

static void *
cache_realloc(void *ctx, void *ptr, size_t size)
{
    if (ptr == NULL) {
        return cache_malloc(ctx, size);
    }
    if (size > SIZE_MAX - HDR) {
        return NULL;
    }
    char *raw = (char *)ptr - HDR;
    return with_header(np_default->allocator.realloc(np_default->allocator.ctx, raw, size + HDR),
                       size);
}

/* `size` is NumPy's idea of the size; the header's is the one allocated. */
static void
cache_free(void *ctx, void *ptr, size_t size)
{
    if (ptr == NULL) {
        return;
    }
    size_t cap = size_of(ptr);
    char *out[CACHE_SLOTS + 1];
    int nout = 0;
    if (cap < CACHE_MIN_BYTES || !keep(ptr, cap, out, &nout)) {
        release(ptr);
    }
    for (int k = 0; k < nout; k++) {
        release(out[k]);
    }
}

static PyDataMem_Handler handler = {
    "stridedarray_buffer_cache",
    1,
    {NULL, cache_malloc, cache_calloc, cache_realloc, cache_free},
};

/* fork() while no other thread is inside: the child's copy of the list is whole, and it
 * starts with the lock free. */
static void
before_fork(void)
{
    pthread_mutex_lock(&lock);
}

static void
after_fork(void)
{
    pthread_mutex_unlock(&lock);
}

int
sa_bufcache_init(void)
{
    default_capsule = PyDataMem_DefaultHandler;
    np_default = (PyDataMem_Handler *)PyCapsule_GetPointer(default_capsule, "mem_handler");
    if (np_default == NULL) {
        return -1;
    }
    handler_capsule = PyCapsule_New(&handler, "mem_handler", NULL);
    if (handler_capsule == NULL) {
        return -1;
    }
    if (pthread_atfork(before_fork, after_fork, after_fork) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray: pthread_atfork failed");
        return -1;
    }
    return 0;
}

PyObject *
sa_bufcache_handler(void)
{
    return handler_capsule;
}

int
sa_bufcache_may_install(void)
{
    PyObject *h = PyDataMem_GetHandler();
    if (h == NULL) {
        return -1;
    }
    int ok = h == default_capsule || h == handler_capsule;
    Py_DECREF(h);
    return ok;
}

PyObject *
sa_bufcache_set(void)
{
    return PyDataMem_SetHandler(handler_capsule);
}

int
sa_bufcache_restore(PyObject *old)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyObject *ours = PyDataMem_SetHandler(old);
    Py_DECREF(old);
    if (ours == NULL) {
        Py_XDECREF(et);
        Py_XDECREF(ev);
        Py_XDECREF(tb);
        return -1;
    }
    Py_DECREF(ours);
    PyErr_Restore(et, ev, tb);
    return 0;
}

/* Free everything held (outside the lock: NumPy's free may take its own). */
static void
clear_all(void)
{
    char *out[CACHE_SLOTS];
    pthread_mutex_lock(&lock);
    int n = nslots;
    for (int k = 0; k < n; k++) {
        out[k] = slots[k].data;
    }
    nslots = 0;
    held = 0;
    pthread_mutex_unlock(&lock);
    for (int k = 0; k < n; k++) {
        release(out[k]);
    }
}

PyObject *
sa_bufcache_clear(PyObject *mod, PyObject *unused)
{
    clear_all();
    Py_RETURN_NONE;
}

/* _buffer_cache(max_bytes=None): the cache's state as a dict; with max_bytes, set the cap
 * first (releasing what is held). */
PyObject *
sa_bufcache_info(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "_buffer_cache(max_bytes=None) takes one argument");
        return NULL;
    }
    if (nargs == 1 && args[0] != Py_None) {
        Py_ssize_t v = PyNumber_AsSsize_t(args[0], PyExc_OverflowError);
        if (v == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (v < 0) {
            PyErr_SetString(PyExc_ValueError, "_buffer_cache: max_bytes must be >= 0");
            return NULL;
        }
        pthread_mutex_lock(&lock);
        max_bytes = (size_t)v;
        pthread_mutex_unlock(&lock);
        clear_all();
    }
    pthread_mutex_lock(&lock);
    size_t h = held, m = max_bytes;
    int n = nslots, p = pressure;
    long long hi = hits, mi = misses;
    pthread_mutex_unlock(&lock);
    return Py_BuildValue("{s:n,s:i,s:n,s:n,s:L,s:L,s:O,s:i}", "held_bytes", (Py_ssize_t)h,
                         "blocks", n, "max_bytes", (Py_ssize_t)m, "min_block_bytes",
                         (Py_ssize_t)CACHE_MIN_BYTES, "hits", hi, "misses", mi,
                         "under_pressure", p ? Py_True : Py_False, "max_blocks", CACHE_SLOTS);
}
