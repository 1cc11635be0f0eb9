/* Operators in C (docs/array.md, "The array type"): `x + y`, `x * 2.0`, `x > 3.0`, `-x`, ...
 * for the common operands, calling NumPy's ufunc on the cached NumPy views under the same
 * quiet floating-point state as the Python path (stridedarray._fpe), and wrapping the result
 * with the one constructor.
 *
 * A FastOp is bound onto Array in place of the Python operator function, which it keeps as its
 * fallback: anything outside the cases below goes there unchanged, so promotion rules, the
 * special-case fix-ups and every error message stay the Python path's. Taken here:
 * - two Arrays of the same dtype;
 * - an Array and an exact Python float, the array float64 or complex128;
 * - an Array and an exact Python int, the array int64 and the int inside int64, or the array
 *   float64 or complex128 and the int inside +-2**53 (as a float: float64 holds it exactly);
 * (these give the array's dtype, and NumPy's weak-scalar rule computes exactly what the Python
 * path's scalar conversion gives), and the result dtype's kind in the function's category.
 * A ufunc that raises (shapes that do not broadcast) is retried on the Python path, which
 * raises the specific error; nothing was written, as no output was given.
 */
#include "arraytype.h"

static PyObject *fpe_var = NULL;     /* NumPy's error-state ContextVar */
static PyObject *fpe_quiet = NULL;   /* dict: outer state -> quiet state (_fpe._QUIET_OF) */
static PyObject *fpe_learn = NULL;   /* _fpe._learn(): makes and records the quiet state */
static PyObject *wrap_fallback = NULL;  /* _array._wrap */
static PyObject *out_kwnames = NULL;    /* ("out",): a ufunc call that writes into an operand */

typedef struct {
    FastCallHead head;   /* the fallback: the Python operator (same signature) */
    PyObject *uf;        /* the ufunc */
    char kinds[8];       /* accepted dtype kinds */
    char loud[8];        /* kinds that need the quiet floating-point state */
    int nargs;           /* 1 or 2 */
    int reflected;       /* x2 is self */
    int via_float64;     /* integer input goes through float64: leave those to Python */
    int elide;           /* an operator whose first operand may take the result (elide.c) */
} FastOpObject;

static const char kind_of[SA_NDTYPES] = {'b', 'i', 'i', 'i', 'i', 'u', 'u', 'u', 'u',
                                         'f', 'f', 'c', 'c'};

/* Wrap a NumPy result: a fresh C-contiguous aligned native array whole, another aligned
 * native layout (F order, transposed or reversed operands) over a window of its memory, and a
 * NumPy scalar (a full reduction's or a 0-d operation's result) as a fresh 0-d array, all in
 * C; the rest (dtypes without a code, byte-swapped or misaligned memory, strides that are not
 * whole elements, ndarray subclasses) by _wrap. */
PyObject *
sa_wrap_result(PyObject *r)
{
    PyObject *scalar = NULL;
    if (!PyArray_CheckExact(r) && PyArray_IsScalar(r, Generic)) {
        /* A copy of its value in a new 0-d array: C-contiguous, aligned, native. */
        scalar = r = PyArray_FromScalar(r, NULL);
        if (r == NULL) {
            return NULL;
        }
    }
    PyObject *w = NULL;
    int code = sa_native_code(r);
    if (code >= 0) {
        if (PyArray_IS_C_CONTIGUOUS((PyArrayObject *)r)) {
            w = sa_make_c(r, code);
            goto done;
        }
        w = sa_make_strided(r, code);
        if (w != NULL || PyErr_Occurred()) {
            goto done;
        }
    }
    if (wrap_fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: no wrap fallback");
        goto done;
    }
    w = PyObject_CallOneArg(wrap_fallback, r);
done:
    Py_XDECREF(scalar);
    return w;
}

/* The quiet floating-point state, two ways.
 *
 * Setting NumPy's error-state variable in the caller's context and resetting it afterwards
 * (what np.errstate does) costs two context-variable writes and a token, about 1,400
 * instructions: a third of a small ufunc call. Entering a context prepared once, whose only
 * variable is NumPy's error state set to the quiet state, and leaving it costs two pointer
 * swaps. A ufunc on numeric NumPy arrays and Python scalars runs no Python code and reads no
 * other context variable, so it computes the same there.
 *
 * A context can be entered by one thread at a time. A ufunc over a large array releases the
 * GIL, so another thread may find the prepared context entered; that call (a large one, where
 * 1,400 instructions do not matter) takes the set-and-reset way instead.
 *
 * Without the GIL (free-threaded CPython) that test is not enough: CPython marks a context
 * entered with a plain field, unlocked, so two threads could both enter one shared context
 * and each leave the other's previous context behind. There every call takes the
 * set-and-reset way, in the caller's own context (docs/array.md, "Free-threaded CPython"). */
#ifdef Py_GIL_DISABLED
#define SHARE_CONTEXTS 0
#else
#define SHARE_CONTEXTS 1
#endif

static PyObject *fpe_contexts = NULL;  /* dict: outer state -> its prepared quiet context */

/* The quiet state for the current outer state `outer` (new reference). */
static PyObject *
quiet_state(PyObject *outer)
{
    PyObject *q;
    int found = sa_dict_get_ref(fpe_quiet, outer, &q);
    return found != 0 ? q : PyObject_CallNoArgs(fpe_learn);
}

/* The prepared context for `outer` (a new reference: the dict may drop it, by its bound
 * below or from another thread, while the caller is inside), made on first use. */
static PyObject *
quiet_context(PyObject *outer)
{
    PyObject *ctx;
    if (sa_dict_get_ref(fpe_contexts, outer, &ctx) != 0) {
        return ctx;  /* found, or NULL with the exception */
    }
    PyObject *q = quiet_state(outer);
    if (q == NULL) {
        return NULL;
    }
    ctx = PyContext_New();
    if (ctx == NULL || PyContext_Enter(ctx) < 0) {
        Py_DECREF(q);
        Py_XDECREF(ctx);
        return NULL;
    }
    PyObject *token = PyContextVar_Set(fpe_var, q);
    Py_DECREF(q);
    Py_XDECREF(token);
    if (PyContext_Exit(ctx) < 0 || token == NULL) {
        Py_DECREF(ctx);
        return NULL;
    }
    /* Outer states made by the user's errstate blocks come and go: keep a bounded few. */
    if (PyDict_GET_SIZE(fpe_contexts) >= 64) {
        PyDict_Clear(fpe_contexts);
    }
    if (PyDict_SetItem(fpe_contexts, outer, ctx) < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    return ctx;
}

/* uf(args) with NumPy's error-state variable set to `q` in the caller's context. */
static PyObject *
call_with_state_set(PyObject *uf, PyObject *const *args, size_t nargsf, PyObject *kwnames,
                    PyObject *q)
{
    PyObject *token = PyContextVar_Set(fpe_var, q);
    if (token == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_Vectorcall(uf, args, nargsf, kwnames);
    /* Reset even when the call failed, keeping its exception. */
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    int rc = PyContextVar_Reset(fpe_var, token);
    Py_DECREF(token);
    if (rc < 0) {
        Py_XDECREF(r);
        Py_XDECREF(et);
        Py_XDECREF(ev);
        Py_XDECREF(tb);
        return NULL;
    }
    PyErr_Restore(et, ev, tb);
    return r;
}

/* uf(args) under the quiet floating-point state (vectorcall arguments). */
static PyObject *
call_quietly(PyObject *uf, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *outer = NULL;
    if (PyContextVar_Get(fpe_var, NULL, &outer) < 0) {
        return NULL;
    }
    if (outer == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "NumPy's error-state variable has no value");
        return NULL;
    }
    PyObject *ctx = NULL;
    if (SHARE_CONTEXTS && (ctx = quiet_context(outer)) == NULL) {
        Py_DECREF(outer);
        return NULL;
    }
    PyObject *r;
    if (ctx != NULL && PyContext_Enter(ctx) == 0) {
        r = PyObject_Vectorcall(uf, args, nargsf, kwnames);
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (PyContext_Exit(ctx) < 0) {
            Py_CLEAR(r);
            Py_XDECREF(et);
            Py_XDECREF(ev);
            Py_XDECREF(tb);
        }
        else {
            PyErr_Restore(et, ev, tb);
        }
    }
    else {  /* entered by another thread (see above), or no shared contexts */
        PyErr_Clear();
        PyObject *q = quiet_state(outer);
        r = q == NULL ? NULL : call_with_state_set(uf, args, nargsf, kwnames, q);
        Py_XDECREF(q);
    }
    Py_XDECREF(ctx);
    Py_DECREF(outer);
    return r;
}

/* Call uf(args) under the quiet floating-point state when `quiet`. */
static PyObject *
call_ufunc(PyObject *uf, PyObject *const *args, Py_ssize_t n, int quiet)
{
    return quiet ? call_quietly(uf, args, n, NULL) : PyObject_Vectorcall(uf, args, n, NULL);
}

/* _quiet_call(f, *args, **kwargs): f(*args, **kwargs) under the quiet floating-point state,
 * for the Python paths (stridedarray._fpe.call). f must be a NumPy ufunc or one of its
 * methods: C code that runs no Python code, as the prepared context holds no other
 * variable. */
PyObject *
sa_quiet_call(PyObject *mod, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n < 1) {
        PyErr_SetString(PyExc_TypeError, "_quiet_call(f, *args, **kwargs) needs f");
        return NULL;
    }
    if (fpe_var == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: _set_fpe was not called");
        return NULL;
    }
    return call_quietly(args[0], args + 1, n - 1, kwnames);
}

static PyObject *
go_fallback(FastOpObject *op, PyObject *const *args, size_t nargsf)
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
        if (code != SA_FLOAT64 && code != SA_COMPLEX128) {
            return 0;
        }
        *out = Py_NewRef(x);
        return 1;
    }
    if (PyLong_CheckExact(x)) {
        if (code != SA_INT64 && code != SA_FLOAT64 && code != SA_COMPLEX128) {
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
        if (code == SA_INT64) {
            *out = Py_NewRef(x);
            return 1;
        }
        /* Into float64 or complex128 the Python path makes it a float64 0-d array: as a
         * Python float it is the same value when float64 holds it exactly, and then takes the
         * float path's (NumPy's weak-scalar) rule. */
        if (v > (1LL << 53) || v < -(1LL << 53)) {
            return 0;
        }
        *out = PyFloat_FromDouble((double)v);
        return *out == NULL ? -1 : 1;
    }
    return 0;
}

static PyObject *
fastop_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FastOpObject *op = (FastOpObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || n != op->nargs) {
        return sa_fastcall_call_fallback(self, args, nargsf, kwnames);
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
    if (quiet && fpe_var == NULL) {
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
    if (elide) {
        /* The result goes into the operand's memory; a failure leaves that temporary, which
         * nothing else sees, half written, so it is not retried on the Python path. */
        PyObject *argv[3] = {ops[0], ops[1], ((ArrayObject *)self_arr)->buf};
        PyObject *res = quiet ? call_quietly(op->uf, argv, 2, out_kwnames)
                              : PyObject_Vectorcall(op->uf, argv, 2, out_kwnames);
        if (res != NULL) {
            Py_DECREF(res);
            sa_note_elided();
            r = Py_NewRef(self_arr);
        }
        goto done;
    }
    PyObject *res = call_ufunc(op->uf, ops, n, quiet);
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
fastop_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((FastOpObject *)self)->uf);
    return sa_fastcall_traverse(self, visit, arg);
}

static void
fastop_dealloc(PyObject *self)
{
    Py_CLEAR(((FastOpObject *)self)->uf);
    sa_fastcall_dealloc(self);
}

static PyObject *
fastop_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ufunc", "fallback", "kinds", "loud", "nargs", "reflected",
                             "via_float64", "elide", NULL};
    PyObject *uf, *fallback;
    const char *kinds, *loud;
    int nargs, reflected, via, elide = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOssipp|$p:FastOp", kwlist, &uf, &fallback,
                                     &kinds, &loud, &nargs, &reflected, &via, &elide)) {
        return NULL;
    }
    /* made by the first FastOp, published once (arraytype.h): threads may make FastOps */
    if (SA_LAZY_LOAD(out_kwnames) == NULL
        && sa_lazy_publish(&out_kwnames, Py_BuildValue("(s)", "out")) == NULL) {
        return NULL;
    }
    if (strlen(kinds) >= 8 || strlen(loud) >= 8 || (nargs != 1 && nargs != 2)
        || (reflected && nargs != 2) || (elide && nargs != 2) || !PyCallable_Check(uf)) {
        PyErr_SetString(PyExc_ValueError, "FastOp: bad arguments");
        return NULL;
    }
    FastOpObject *op =
        (FastOpObject *)sa_fastcall_new(type, fallback, "operator", fastop_vectorcall);
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
    PyObject_GC_Track(op);
    return (PyObject *)op;
}

PyTypeObject sa_FastOpType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype.FastOp",
    SA_FASTCALL_SLOTS(FastOpObject),
    .tp_new = fastop_new,
    .tp_dealloc = fastop_dealloc,
    .tp_traverse = fastop_traverse,
};

PyObject *
sa_set_fpe(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyContextVar_CheckExact(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_set_fpe(contextvar, quiet_states, learn)");
        return NULL;
    }
    Py_XSETREF(fpe_var, Py_NewRef(args[0]));
    Py_XSETREF(fpe_quiet, Py_NewRef(args[1]));
    Py_XSETREF(fpe_learn, Py_NewRef(args[2]));
    Py_XSETREF(fpe_contexts, PyDict_New());
    if (fpe_contexts == NULL) {
        Py_CLEAR(fpe_var);
        return NULL;
    }
    Py_RETURN_NONE;
}

PyObject *
sa_set_wrap_fallback(PyObject *mod, PyObject *func)
{
    Py_XSETREF(wrap_fallback, Py_NewRef(func));
    Py_RETURN_NONE;
}

PyObject *
sa_wrap(PyObject *mod, PyObject *arr)
{
    return sa_wrap_result(arr);
}
