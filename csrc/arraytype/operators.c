/* Operators in C (docs/array.md, "The array type"): `x + y`, `x * 2.0`, `x > 3.0`, `-x`, ...
 * for the common operands, calling NumPy's ufunc on the cached NumPy views under the same
 * quiet floating-point state as the Python path (stridedarray._base.fpe), and wrapping the result
 * with the one constructor.
 *
 * A NativeUfunc is bound onto Array in place of the Python operator function, which it keeps as its
 * fallback: anything outside the cases below goes there unchanged, so promotion rules, the
 * special-case fix-ups and every error message stay the Python path's. Taken here:
 * - two Arrays of the same dtype;
 * - an Array and an exact Python float, the array floating or complex (for float32 and
 *   complex64 a finite float inside float32's range);
 * - an Array and an exact Python int, the array an integer dtype and the int inside its range,
 *   or the array floating or complex and the int one the dtype holds exactly (+-2**53, or
 *   +-2**24 for float32 and complex64), passed as a float;
 * (these give the array's dtype, and NumPy's weak-scalar rule computes exactly what the Python
 * path's scalar conversion gives), and the result dtype's kind in the function's category.
 * A ufunc that raises (shapes that do not broadcast) is retried on the Python path, which
 * raises the specific error; nothing was written, as no output was given.
 *
 * Around a ufunc call whose operands are large, the result-buffer cache (bufcache.c) is
 * NumPy's memory handler, so a result is made in a block a freed result left warm.
 */
#include "fpe.h"

#include <float.h>
#include <math.h>

static PyObject *out_kwnames = NULL;    /* ("out",): a ufunc call that writes into an operand */

typedef struct {
    NativeHead head;   /* the fallback: the Python operator (same signature) */
    PyObject *uf;        /* the ufunc */
    char kinds[8];       /* accepted dtype kinds */
    char loud[8];        /* kinds that need the quiet floating-point state */
    int nargs;           /* 1 or 2 */
    int reflected;       /* x2 is self */
    int via_float64;     /* integer input goes through float64: leave those to Python */
    int elide;           /* an operator whose first operand may take the result (elide.c) */
    PyObject *square;    /* pow only: the square ufunc, for an exponent of exactly 2 */
} NativeUfuncObject;

/* Is x the Python int 2 or the Python float 2.0 (exactly those types)? */
static int
is_two(PyObject *x)
{
    if (PyFloat_CheckExact(x)) {
        return PyFloat_AS_DOUBLE(x) == 2.0;
    }
    if (PyLong_CheckExact(x)) {
        int ovf;
        long v = PyLong_AsLongAndOverflow(x, &ovf);
        return ovf == 0 && v == 2;
    }
    return 0;
}

/* The range of each integer dtype, by code (uint64's upper end is beyond long long: every
 * non-negative long long fits). */
static const long long int_min[SA_UINT64 + 1] = {0, INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN,
                                                 0, 0, 0, 0};
static const long long int_max[SA_UINT64 + 1] = {1, INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX,
                                                 UINT8_MAX, UINT16_MAX, UINT32_MAX, INT64_MAX};

static const char kind_of[SA_NDTYPES] = {'b', 'i', 'i', 'i', 'i', 'u', 'u', 'u', 'u',
                                         'f', 'f', 'c', 'c'};

/* Call uf(args) under the quiet floating-point state when `quiet`. */
static PyObject *
call_ufunc(PyObject *uf, PyObject *const *args, Py_ssize_t n, int quiet, int large)
{
    return quiet ? sa_call_quietly(uf, args, n, NULL, large)
                 : PyObject_Vectorcall(uf, args, n, NULL);
}

static PyObject *
go_fallback(NativeUfuncObject *op, PyObject *const *args, size_t nargsf)
{
    return PyObject_Vectorcall(op->head.fallback, args, PyVectorcall_NARGS(nargsf), NULL);
}

/* The NumPy operand for one operand of an operation of dtype code `code`, or NULL (borrowed
 * semantics: *out gets a new reference; 0 = not a fast case). */
static int
operand(PyObject *x, int code, PyObject **out)
{
    if (Py_TYPE(x) == sa_array_class) {
        ArrayObject *a = (ArrayObject *)x;
        if (a->code != code) {
            return 0;
        }
        *out = sa_array_np(a);
        return *out == NULL ? -1 : 1;
    }
    if (PyFloat_CheckExact(x)) {
        if (code == SA_FLOAT64 || code == SA_COMPLEX128) {
            *out = Py_NewRef(x);
            return 1;
        }
        if (code != SA_FLOAT32 && code != SA_COMPLEX64) {
            return 0;
        }
        /* Into float32 or complex64 the Python path makes it a 0-d array of that dtype (a
         * C cast of the double); NumPy's weak-scalar conversion is the same cast, for every
         * value but a finite one beyond float32's range (the Python path's quiet inf): those
         * stay there. */
        double d = PyFloat_AS_DOUBLE(x);
        if (isfinite(d) && fabs(d) > FLT_MAX) {
            return 0;
        }
        *out = Py_NewRef(x);
        return 1;
    }
    if (PyLong_CheckExact(x)) {
        if (code == SA_BOOL) {
            return 0;
        }
        int ovf;
        long long v = PyLong_AsLongLongAndOverflow(x, &ovf);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (ovf) {
            return 0;  /* the Python path raises the range error (or converts it) */
        }
        if (code <= SA_UINT64) {
            /* Into an integer dtype the Python path checks the range (its OverflowError for
             * an int outside) and passes the int itself: NumPy's weak scalar. */
            if (v < int_min[code] || (code != SA_UINT64 && v > int_max[code])) {
                return 0;
            }
            *out = Py_NewRef(x);
            return 1;
        }
        /* Into a floating or complex dtype the Python path makes it a 0-d array of that
         * dtype: as a Python float it is the same value when the dtype holds it exactly
         * (2**53 for float64, 2**24 for float32), and then takes the float path's rule. */
        long long lim = code == SA_FLOAT32 || code == SA_COMPLEX64 ? 1LL << 24 : 1LL << 53;
        if (v > lim || v < -lim) {
            return 0;
        }
        *out = PyFloat_FromDouble((double)v);
        return *out == NULL ? -1 : 1;
    }
    return 0;
}

/* Is one of the operands an Array of at least the cache's smallest block (the result is as
 * large as its largest operand)? */
static int
large_operand(PyObject *const *args, Py_ssize_t n)
{
    for (Py_ssize_t k = 0; k < n; k++) {
        if (Py_TYPE(args[k]) != sa_array_class) {
            continue;
        }
        ArrayObject *a = (ArrayObject *)args[k];
        if (a->flags & (SA_F_HUGE | SA_F_EMPTY)) {
            continue;
        }
        int64_t size = sa_descrs[a->code]->elsize;
        if (!(a->flags & SA_F_ALIASED) && a->nbuf < SA_BUFCACHE_MIN_BYTES / size) {
            continue;  /* no element twice: no more elements than its storage holds */
        }
        /* Both factors stay below SA_BUFCACHE_MIN_BYTES, so the product cannot overflow. */
        for (int d = 0; d < a->nd && size < SA_BUFCACHE_MIN_BYTES; d++) {
            size = a->cshape[d] >= SA_BUFCACHE_MIN_BYTES ? SA_BUFCACHE_MIN_BYTES
                                                         : size * a->cshape[d];
        }
        if (size >= SA_BUFCACHE_MIN_BYTES) {
            return 1;
        }
    }
    return 0;
}

static PyObject *
ufunc_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    NativeUfuncObject *op = (NativeUfuncObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || n != op->nargs) {
        return sa_native_call_fallback(self, args, nargsf, kwnames);
    }
    PyObject *self_arr = args[0];
    if (Py_TYPE(self_arr) != sa_array_class) {
        return go_fallback(op, args, nargsf);
    }
    int code = ((ArrayObject *)self_arr)->code;
    char kind = kind_of[code];
    if (strchr(op->kinds, kind) == NULL || (op->via_float64 && strchr("biu", kind) != NULL)) {
        return go_fallback(op, args, nargsf);
    }
    int quiet = strchr(op->loud, kind) != NULL;
    if (quiet && sa_fpe_var == NULL) {
        return go_fallback(op, args, nargsf);
    }
    /* Judged before the operands hold references of their own. */
    int elide = op->elide && n == 2 && SA_LAZY_LOAD(out_kwnames) != NULL
                && sa_can_elide((ArrayObject *)self_arr, args[1]);
    /* The arguments are borrowed: the caller may be C code holding them borrowed in turn (a
     * dict value collections.Counter.update adds to), and the ufunc call can run a gc
     * callback or, with the GIL released, another thread that drops the last reference. A
     * reference of our own to each keeps them alive until this call returns: the elided
     * result is the operand itself, and the fallback takes the arguments after the call. */
    PyObject *held[2] = {Py_NewRef(args[0]), n == 2 ? Py_NewRef(args[1]) : NULL};
    args = held;
    PyObject *ops[2] = {NULL, NULL};
    PyObject *r = NULL;
    int rc = operand(self_arr, code, &ops[0]);
    if (rc > 0 && n == 2) {
        rc = operand(args[1], code, &ops[1]);
    }
    if (rc < 0) {
        goto done;
    }
    if (rc == 0) {
        r = go_fallback(op, args, nargsf);
        goto done;
    }
    if (op->reflected) {
        PyObject *t = ops[0];
        ops[0] = ops[1];
        ops[1] = t;
    }
    /* `x ** 2` is square(x), as in NumPy's own `**` (for a complex x only with the int 2:
     * NumPy's `z ** 2.0` takes the power loop, whose values differ in the last bit): the
     * same values, without the general power loop or the conversion of the exponent. */
    PyObject *uf = op->uf;
    Py_ssize_t nuf = n;
    if (op->square != NULL && kind != 'b' && is_two(args[1])
        && (kind != 'c' || PyLong_CheckExact(args[1]))) {
        uf = op->square;
        nuf = 1;
    }
    if (elide) {
        /* The result goes into the operand's memory; a failure leaves that temporary, which
         * nothing else sees, half written, so it is not retried on the Python path. */
        PyObject *buf = ((ArrayObject *)self_arr)->buf;
        PyObject *argv[3] = {ops[0], nuf == 2 ? ops[1] : buf, buf};
        PyObject *res = quiet ? sa_call_quietly(uf, argv, nuf, out_kwnames, 0)
                              : PyObject_Vectorcall(uf, argv, nuf, out_kwnames);
        if (res != NULL) {
            Py_DECREF(res);
            sa_note_elided();
            r = Py_NewRef(self_arr);
        }
        goto done;
    }
    /* The prepared quiet context carries the cache's handler itself (fpe.h); otherwise it
     * is set in the caller's context for this call, when an operand is large enough that
     * the result may come from the cache. */
    PyObject *saved = NULL;
    int large = large_operand(args, n);
    if ((!quiet || !SHARE_CONTEXTS) && large) {
        int may = sa_bufcache_may_install();
        if (may < 0 || (may == 1 && (saved = sa_bufcache_set()) == NULL)) {
            goto done;
        }
    }
    PyObject *res = call_ufunc(uf, ops, nuf, quiet, large);
    if (saved != NULL && sa_bufcache_restore(saved) < 0) {
        Py_CLEAR(res);
        goto done;
    }
    if (res == NULL) {
        if (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();  /* nothing was written: the Python path says what is wrong */
            r = go_fallback(op, args, nargsf);
        }
        goto done;
    }
    r = sa_wrap_result(res);
    Py_DECREF(res);
done:
    Py_XDECREF(ops[0]);
    Py_XDECREF(ops[1]);
    Py_DECREF(held[0]);
    Py_XDECREF(held[1]);
    return r;
}

static int
ufunc_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((NativeUfuncObject *)self)->uf);
    Py_VISIT(((NativeUfuncObject *)self)->square);
    return sa_native_traverse(self, visit, arg);
}

static void
ufunc_dealloc(PyObject *self)
{
    Py_CLEAR(((NativeUfuncObject *)self)->uf);
    Py_CLEAR(((NativeUfuncObject *)self)->square);
    sa_native_dealloc(self);
}

static PyObject *
ufunc_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ufunc", "fallback", "kinds", "loud", "nargs", "reflected",
                             "via_float64", "elide", "square", NULL};
    PyObject *uf, *fallback, *square = NULL;
    const char *kinds, *loud;
    int nargs, reflected, via, elide = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOssipp|$pO:NativeUfunc", kwlist, &uf, &fallback,
                                     &kinds, &loud, &nargs, &reflected, &via, &elide,
                                     &square)) {
        return NULL;
    }
    /* made by the first NativeUfunc, published once (arraytype.h): threads may make NativeUfuncs */
    if (SA_LAZY_LOAD(out_kwnames) == NULL
        && sa_lazy_publish(&out_kwnames, Py_BuildValue("(s)", "out")) == NULL) {
        return NULL;
    }
    if (strlen(kinds) >= 8 || strlen(loud) >= 8 || (nargs != 1 && nargs != 2)
        || (reflected && nargs != 2) || (elide && nargs != 2) || !PyCallable_Check(uf)
        || (square == Py_None ? (square = NULL, 0)
                              : square != NULL && (nargs != 2 || reflected
                                                   || !PyCallable_Check(square)))) {
        PyErr_SetString(PyExc_ValueError, "NativeUfunc: bad arguments");
        return NULL;
    }
    NativeUfuncObject *op =
        (NativeUfuncObject *)sa_native_new(type, fallback, "operator", ufunc_vectorcall);
    if (op == NULL) {
        return NULL;
    }
    op->uf = Py_NewRef(uf);
    strcpy(op->kinds, kinds);
    strcpy(op->loud, loud);
    op->nargs = nargs;
    op->reflected = reflected;
    op->via_float64 = via;
    op->elide = elide;
    op->square = Py_XNewRef(square);
    PyObject_GC_Track(op);
    return (PyObject *)op;
}

PyTypeObject sa_NativeUfuncType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype.NativeUfunc",
    SA_NATIVE_SLOTS(NativeUfuncObject),
    .tp_new = ufunc_new,
    .tp_dealloc = ufunc_dealloc,
    .tp_traverse = ufunc_traverse,
};
