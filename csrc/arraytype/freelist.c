/* A few freed arrays kept for reuse.
 *
 * Almost every call makes one array and frees one (a result, a temporary, a view): through
 * the interpreter's allocator that costs over 100 instructions per array (under callgrind,
 * `asarray(ndarray)` takes 970 with the list and 1,079 without), and more when the array is
 * the only live object of its size class (the allocator then sets up and releases a whole
 * pool every time). CPython keeps its floats, tuples and frames the same way. Only the exact
 * registered class is kept (a user's subclass may add state), up to FREELIST_MAX objects,
 * their references all released, and handed out only as that class.
 *
 * An object is kept only while its class has no finalizer (no tp_finalize or tp_del: a
 * `__del__` assigned to the class at any time sets them, so this is asked at each free) and
 * the collector's "finalized" bit is clear on it. That bit, set when a finalizer ran, stays
 * with the memory: a reused object carrying it would never have its finalizer called again.
 * So every kept object has it clear, and a class given a `__del__` later finalizes every
 * array it frees.
 *
 * Off in the sanitizer build, so that AddressSanitizer sees every array's memory freed and
 * reports any use after free, and in a free-threaded build, where the list would need a lock.
 */
#include "arraytype.h"

#include <stddef.h>

#if defined(SA_SANITIZE_BUILD) || defined(Py_GIL_DISABLED)
#define FREELIST_MAX 0
#else
#define FREELIST_MAX 16
#endif

static ArrayObject *freelist[FREELIST_MAX > 0 ? FREELIST_MAX : 1];
static int nfree = 0;
/* The class every kept object was allocated for: the list serves only it. An object's memory
 * is laid out for its class (a class with an instance dict has a pre-header before it), so an
 * object kept for one class must never be handed out as another's. */
static PyTypeObject *kept_for = NULL;
/* Is the registered class one whose objects are this struct and nothing else (no instance
 * dict, our weak-reference list)? Decided when the class is registered. */
static int reusable = 0;

void
sa_freelist_register(PyTypeObject *cls)
{
    /* The hand-over registers a class once per process (arraytype.c); should that ever
     * change, the objects kept for the old class go back to its allocator. */
    while (nfree > 0) {
        kept_for->tp_free((PyObject *)freelist[--nfree]);
    }
    kept_for = cls;
    reusable = FREELIST_MAX > 0 && cls->tp_basicsize == (Py_ssize_t)sizeof(ArrayObject)
               && cls->tp_itemsize == 0 && cls->tp_dictoffset == 0
               && cls->tp_weaklistoffset == (Py_ssize_t)offsetof(ArrayObject, weaklist)
#ifdef Py_TPFLAGS_MANAGED_DICT
               && !(cls->tp_flags & Py_TPFLAGS_MANAGED_DICT)
#endif
#ifdef Py_TPFLAGS_MANAGED_WEAKREF
               && !(cls->tp_flags & Py_TPFLAGS_MANAGED_WEAKREF)
#endif
#ifdef Py_TPFLAGS_PREHEADER
               && !(cls->tp_flags & Py_TPFLAGS_PREHEADER)
#endif
        ;
}

ArrayObject *
sa_array_alloc(void)
{
    if (nfree == 0 || kept_for != sa_array_class) {
        return (ArrayObject *)sa_array_class->tp_alloc(sa_array_class, 0);
    }
    ArrayObject *a = freelist[--nfree];
    /* As tp_alloc leaves it: every field zero, the type's reference taken, tracked. */
    memset((char *)a + sizeof(PyObject), 0, sizeof(ArrayObject) - sizeof(PyObject));
    PyObject_Init((PyObject *)a, sa_array_class);
    PyObject_GC_Track(a);
    return a;
}

int
sa_freelist_keep(ArrayObject *a)
{
    PyTypeObject *t = Py_TYPE(a);
    if (!reusable || nfree >= FREELIST_MAX || t != sa_array_class || t != kept_for
        || t->tp_finalize != NULL || t->tp_del != NULL
        || PyObject_GC_IsFinalized((PyObject *)a)) {
        return 0;
    }
    freelist[nfree++] = a;
    return 1;
}
