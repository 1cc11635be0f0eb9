/* Temporary elision for the operators (docs/array.md, "What a call costs"): in `(a - m) / s`
 * the result of `a - m` is referenced by nothing but the interpreter's stack while it is
 * divided, so the quotient can be written into its memory instead of into a new array, as
 * NumPy does for its own arrays. On large arrays that saves an allocation and a pass through
 * memory the cache no longer holds.
 *
 * A reference count of 1 never proves a temporary: C code may hold the only reference to an
 * array it goes on using and call the operator with it borrowed (functools.partial's stored
 * arguments, the tuple of `operator.add(*pair)`, itertools.starmap's tuples, a bound method's
 * self, a dict value that collections.Counter.update adds to), and from CPython 3.14 a named
 * local is pushed onto the stack without a reference of its own. The operand may be reused
 * only when all of these hold:
 * - the interpreter says the object is a temporary: it is referenced once, and that reference
 *   is a strong one on the stack of the frame running (CPython 3.14's
 *   PyUnstable_Object_IsUniqueReferencedTemporary, which looks at the stack itself);
 * - no weak reference to it exists (a WeakValueDictionary can hand it out again);
 * - no view of it was ever made (its storage object was never created), and its memory is
 *   one C-contiguous ndarray that owns its data, is writable and is referenced only by the
 *   array itself (no NumPy view, memoryview or DLPack export handed out).
 * Before 3.14 the interpreter has no such test, and no rule built from the reference count and
 * a walk of the C stack refuses every borrowed caller (a C function that tail-calls the
 * operator leaves no frame to see), so nothing is elided there.
 * Only floating and complex operands of at least ELIDE_MIN_BYTES take it: their ufunc loops
 * never fail part way, and below that size the allocation saved is not worth the test. */
#include "arraytype.h"

#include <stdatomic.h>

#define ELIDE_MIN_BYTES (256 * 1024) /* NumPy's threshold, NPY_MIN_ELIDE_BYTES */

/* How many operations reused an operand (tests read it). Atomic, so that it stays exact when
 * threads run operators at once without the GIL (free-threaded CPython); it is the file's only
 * state, so nothing here needs the GIL. */
static atomic_llong elided = 0;

/* Is the interpreter's own test available, and does it call `a` a temporary? */
static int
is_temporary(ArrayObject *a)
{
#if PY_VERSION_HEX >= 0x030E0000
    return PyUnstable_Object_IsUniqueReferencedTemporary((PyObject *)a);
#else
    (void)a;
    return 0;
#endif
}

PyObject *
sa_elision_available(PyObject *mod, PyObject *unused)
{
    return PyBool_FromLong(PY_VERSION_HEX >= 0x030E0000);
}

/* May `a` (the operation's first operand, dtype code `code`) receive the result of an
 * operation with `other` (an Array of the same dtype or a Python scalar)? The result has
 * a's dtype; it has a's shape when `other` broadcasts into it. Called before the operator
 * takes references of its own to its operands. */
int
sa_can_elide(ArrayObject *a, PyObject *other)
{
    if (PY_VERSION_HEX < 0x030E0000 || Py_REFCNT(a) != 1 || a->weaklist != NULL
        || a->storage != NULL || a->flags != 0 || a->corigin != 0
        || (a->code != SA_FLOAT32 && a->code != SA_FLOAT64 && a->code != SA_COMPLEX64
            && a->code != SA_COMPLEX128)) {
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
    return is_temporary(a);
}

void
sa_note_elided(void)
{
    atomic_fetch_add_explicit(&elided, 1, memory_order_relaxed);
}

PyObject *
sa_elided_count(PyObject *mod, PyObject *unused)
{
    return PyLong_FromLongLong(atomic_load_explicit(&elided, memory_order_relaxed));
}
