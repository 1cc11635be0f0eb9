/* Temporary elision for the operators (docs/array.md, "What a call costs"): in `(a - m) / s`
 * the result of `a - m` is referenced by nothing but the interpreter's stack while it is
 * divided, so the quotient can be written into its memory instead of into a new array, as
 * NumPy does for its own arrays. On large arrays that saves an allocation and a pass through
 * memory the cache no longer holds.
 *
 * The operand may be reused only when nothing else can see it:
 * - the array object is referenced once, by its caller;
 * - no view of it was ever made (its storage object was never created), and its memory is
 *   one C-contiguous ndarray that owns its data, is writable and is referenced only by the
 *   array itself (no NumPy view, memoryview or DLPack export handed out);
 * - the caller is the interpreter running the operator: a C extension may hold the only
 *   reference to an array it goes on using, and calls the operator with the same reference
 *   count. As NumPy does, the C call stack is walked: every frame between this library and
 *   CPython's evaluation loop must be in CPython itself (the operator dispatch, or a builtin
 *   such as sum() that drops its running value). Where that cannot be established (no glibc
 *   backtrace, symbols not found) nothing is elided.
 * Only floating and complex operands of at least ELIDE_MIN_BYTES take it: their ufunc loops
 * never fail part way, and below that size the walk costs more than the allocation. */
#include "arraytype.h"

#include <string.h>

#if defined(__GLIBC__)
#include <dlfcn.h>
#include <execinfo.h>
#define SA_CAN_WALK_STACK 1
#endif

#define ELIDE_MIN_BYTES (256 * 1024) /* NumPy's threshold, NPY_MIN_ELIDE_BYTES */

static Py_ssize_t elided = 0; /* how many operations reused an operand: tests read it */

#ifdef SA_CAN_WALK_STACK
static int walk_state = 0;  /* 0 unknown, 1 ready, -1 unusable here */
static void *python_base = NULL, *own_base = NULL;

static int
walk_init(void)
{
    Dl_info py, own;
    if (!dladdr((void *)&PyNumber_Add, &py) || !dladdr((void *)&sa_elided_count, &own)
        || py.dli_fbase == NULL || own.dli_fbase == NULL || py.dli_fbase == own.dli_fbase) {
        return -1;
    }
    python_base = py.dli_fbase;
    own_base = own.dli_fbase;
    return 1;
}

/* Return addresses already classified, so that dladdr (a search of the symbol tables) runs
 * once per call site: frames of CPython or this module that are not the evaluation loop,
 * and frames inside the loop. A foreign frame ends the walk and is not kept. */
#define KNOWN_MAX 128
static void *known_through[KNOWN_MAX], *known_loop[KNOWN_MAX];
static int n_through = 0, n_loop = 0;

enum { FOREIGN, THROUGH, LOOP };

static int
classify(void *pc)
{
    for (int i = 0; i < n_loop; i++) {
        if (known_loop[i] == pc) {
            return LOOP;
        }
    }
    for (int i = 0; i < n_through; i++) {
        if (known_through[i] == pc) {
            return THROUGH;
        }
    }
    Dl_info info;
    if (!dladdr(pc, &info)
        || (info.dli_fbase != own_base && info.dli_fbase != python_base)) {
        return FOREIGN;
    }
    if (info.dli_fbase == python_base && info.dli_sname != NULL
        && strcmp(info.dli_sname, "_PyEval_EvalFrameDefault") == 0) {
        if (n_loop < KNOWN_MAX) {
            known_loop[n_loop++] = pc;
        }
        return LOOP;
    }
    if (n_through < KNOWN_MAX) {
        known_through[n_through++] = pc;
    }
    return THROUGH;
}

/* Is every caller between here and CPython's evaluation loop CPython itself or this
 * module? (Called with the GIL held: the tables above need no lock.) */
static int
called_by_the_interpreter(void)
{
    if (walk_state == 0) {
        walk_state = walk_init();
    }
    if (walk_state < 0) {
        return 0;
    }
    void *frames[32];
    int n = backtrace(frames, 32);
    for (int i = 1; i < n; i++) {
        int c = classify(frames[i]);
        if (c != THROUGH) {
            return c == LOOP;
        }
    }
    return 0;
}
#else
static int
called_by_the_interpreter(void)
{
    return 0;
}
#endif

/* May `a` (the operation's first operand, dtype code `code`) receive the result of an
 * operation with `other` (an Array of the same dtype or a Python scalar)? The result has
 * a's dtype; it has a's shape when `other` broadcasts into it. */
int
sa_can_elide(ArrayObject *a, PyObject *other)
{
    if (Py_REFCNT(a) != 1 || a->storage != NULL || a->flags != 0
        || a->corigin != 0 || (a->code != SA_FLOAT32 && a->code != SA_FLOAT64
                               && a->code != SA_COMPLEX64 && a->code != SA_COMPLEX128)) {
        return 0;
    }
    PyObject *buf = a->buf;
    PyArrayObject *b = (PyArrayObject *)buf;
    if (!PyArray_CheckExact(buf) || PyArray_NBYTES(b) < ELIDE_MIN_BYTES
        || (a->npv != NULL && a->npv != buf) || Py_REFCNT(buf) != 1 + (a->npv == buf)
        || PyArray_BASE(b) != NULL
        || !PyArray_CHKFLAGS(b, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_OWNDATA | NPY_ARRAY_WRITEABLE
                                    | NPY_ARRAY_ALIGNED)
        || PyArray_NDIM(b) != a->nd || PyArray_SIZE(b) != a->nbuf) {
        return 0;
    }
    int64_t step = 1;
    for (int k = a->nd - 1; k >= 0; k--) {
        if (PyArray_DIM(b, k) != a->cshape[k] || (a->cshape[k] > 1 && a->cstrides[k] != step)) {
            return 0;
        }
        step *= a->cshape[k];
    }
    if (Py_TYPE(other) == sa_array_class) {
        ArrayObject *o = (ArrayObject *)other;
        if (o->nd > a->nd || (o->flags & SA_F_HUGE)) {
            return 0;
        }
        for (int k = 1; k <= o->nd; k++) {
            int64_t m = o->cshape[o->nd - k];
            if (m != 1 && m != a->cshape[a->nd - k]) {
                return 0;
            }
        }
    }
    return called_by_the_interpreter();
}

void
sa_note_elided(void)
{
    elided++;
}

PyObject *
sa_elided_count(PyObject *mod, PyObject *unused)
{
    return PyLong_FromSsize_t(elided);
}
