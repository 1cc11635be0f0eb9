/* The quiet floating-point state (fpe.c), shared by the operators (operators.c) and the Python
 * paths' `_quiet_call`. The functions below are inline because an operator enters and leaves
 * the state on every call: inlined, they cost it no call. */
#ifndef SA_FPE_H
#define SA_FPE_H

#include "arraytype.h"

/* The ufunc object's layout only (ntypes, nargs, types), read by plain_call below; none of
 * the ufunc C API is called, so it is not imported. */
#define NO_IMPORT_UFUNC
#define PY_UFUNC_UNIQUE_SYMBOL sa_arraytype_UFUNC_API
#include <numpy/ufuncobject.h>

/* Set by the hand-over (arraytype.c, _connect), NULL until then. */
extern PyObject *sa_fpe_var;       /* NumPy's error-state ContextVar */
extern PyObject *sa_fpe_quiet;     /* dict: outer state -> quiet state (_fpe._QUIET_OF) */
extern PyObject *sa_fpe_learn;     /* _fpe._learn(): makes and records the quiet state */
extern PyObject *sa_fpe_contexts;  /* dict: outer state -> its prepared quiet context */
extern PyObject *sa_fpe_cache_contexts;  /* the same, with the result-buffer cache's handler */

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

extern PyObject *sa_fpe_ufunc_type; /* type(numpy.add), looked up on first use */

/* The caller's Python code never runs inside the shared quiet context (docs/reliability.md):
 * it cannot see the caller's context variables there, and a np.seterr it made would become
 * every later quiet call's state. So only a call that runs no Python code may enter it: a
 * NumPy ufunc (or a method of one) that has a loop not over Python objects (np.frompyfunc's
 * calls Python for each element), on exact ndarrays of numbers, exact Python and NumPy
 * numbers, None, strings, dtypes of numbers and exact tuples of these. Anything else (an
 * object whose __index__ or __bool__ answers keepdims=, a subclass, an object array) takes
 * the set-and-reset way, in the caller's own context. */
static inline int
plain_value(PyObject *v, int depth)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyArray_Type) {
        int tn = PyArray_TYPE((PyArrayObject *)v);
        return PyTypeNum_ISNUMBER(tn) || tn == NPY_BOOL;
    }
    if (v == Py_None || t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type
        || t == &PyComplex_Type || t == &PyUnicode_Type) {
        return 1;
    }
    if (PyArray_DescrCheck(v)) {
        int tn = ((PyArray_Descr *)v)->type_num;
        return PyTypeNum_ISNUMBER(tn) || tn == NPY_BOOL;
    }
    if (PyArray_IsScalar(v, Number) || PyArray_IsScalar(v, Bool)) {
        return !(t->tp_flags & Py_TPFLAGS_HEAPTYPE); /* NumPy's own, not a Python subclass */
    }
    if (t == &PyTuple_Type && depth == 0) {
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(v); k++) {
            if (!plain_value(PyTuple_GET_ITEM(v, k), 1)) {
                return 0;
            }
        }
        return 1;
    }
    return 0;
}

/* 1 when uf(args) runs no Python code (the rule above), 0 when it may, -1 with an error. */
static inline int
plain_call(PyObject *uf, PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    PyObject *ut = SA_LAZY_LOAD(sa_fpe_ufunc_type);
    if (ut == NULL) {
        PyObject *np = PyImport_ImportModule("numpy");
        if (np == NULL) {
            return -1;
        }
        PyObject *add = PyObject_GetAttrString(np, "add");
        Py_DECREF(np);
        if (add == NULL) {
            return -1;
        }
        /* kept for the process, as NumPy's module is; the first to publish wins */
        ut = sa_lazy_publish(&sa_fpe_ufunc_type, Py_NewRef((PyObject *)Py_TYPE(add)));
        Py_DECREF(add);
    }
    PyObject *self = PyCFunction_Check(uf) ? PyCFunction_GET_SELF(uf) : uf;
    if (self == NULL || Py_TYPE(self) != (PyTypeObject *)ut) {
        return 0;
    }
    PyUFuncObject *u = (PyUFuncObject *)self;
    if (u->ntypes > 0) {
        int numeric = 0;
        for (int i = 0; i < u->ntypes && !numeric; i++) {
            numeric = 1;
            for (int j = 0; j < u->nargs; j++) {
                numeric &= u->types[i * u->nargs + j] != NPY_OBJECT;
            }
        }
        if (!numeric) {
            return 0;
        }
    }
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < n + nkw; k++) {
        if (!plain_value(args[k], 0)) {
            return 0;
        }
    }
    return 1;
}

/* The quiet state for the current outer state `outer` (new reference). */
static inline PyObject *
quiet_state(PyObject *outer)
{
    PyObject *q;
    int found = sa_dict_get_ref(sa_fpe_quiet, outer, &q);
    return found != 0 ? q : PyObject_CallNoArgs(sa_fpe_learn);
}

/* The prepared context for `outer` (a new reference: the dict may drop it, by its bound
 * below or from another thread, while the caller is inside), made on first use; with `cache`,
 * the one that also makes the result-buffer cache NumPy's memory handler (bufcache.c). */
static inline PyObject *
quiet_context(PyObject *outer, int cache)
{
    PyObject *ctx;
    PyObject *contexts = cache ? sa_fpe_cache_contexts : sa_fpe_contexts;
    if (sa_dict_get_ref(contexts, outer, &ctx) != 0) {
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
    PyObject *token = PyContextVar_Set(sa_fpe_var, q);
    Py_DECREF(q);
    Py_XDECREF(token);
    /* and the cache as NumPy's memory handler: calls enter that context only while the
     * caller's handler is NumPy's default one */
    PyObject *old = token == NULL || !cache ? NULL : PyDataMem_SetHandler(sa_bufcache_handler());
    Py_XDECREF(old);
    if (PyContext_Exit(ctx) < 0 || token == NULL || (cache && old == NULL)) {
        Py_DECREF(ctx);
        return NULL;
    }
    /* Outer states made by the user's errstate blocks come and go: keep a bounded few. */
    if (PyDict_GET_SIZE(contexts) >= 64) {
        PyDict_Clear(contexts);
    }
    if (PyDict_SetItem(contexts, outer, ctx) < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    return ctx;
}

/* uf(args) with NumPy's error-state variable set to `q` in the caller's context. */
static inline PyObject *
call_with_state_set(PyObject *uf, PyObject *const *args, size_t nargsf, PyObject *kwnames,
                    PyObject *q)
{
    PyObject *token = PyContextVar_Set(sa_fpe_var, q);
    if (token == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_Vectorcall(uf, args, nargsf, kwnames);
    /* Reset even when the call failed, keeping its exception. */
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    int rc = PyContextVar_Reset(sa_fpe_var, token);
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

/* uf(args) under the quiet floating-point state (vectorcall arguments). `large`: the result
 * may be large enough for the result-buffer cache; only then is the caller's memory handler
 * read (about 140 instructions) and the cache's context entered, and a handler the user set
 * is kept by calling in the caller's own context. */
static inline PyObject *
sa_call_quietly(PyObject *uf, PyObject *const *args, size_t nargsf, PyObject *kwnames,
                int large)
{
    PyObject *outer = NULL;
    if (PyContextVar_Get(sa_fpe_var, NULL, &outer) < 0) {
        return NULL;
    }
    if (outer == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "NumPy's error-state variable has no value");
        return NULL;
    }
    PyObject *ctx = NULL;
    /* plain: the call runs no Python code, so it may enter a shared context (see above);
     * cache: 1 for the cache's context, 0 where a memory handler the user set stays in force
     * (the caller's own context), and never for a call that may run the user's code */
    int plain = SHARE_CONTEXTS ? plain_call(uf, args, PyVectorcall_NARGS(nargsf), kwnames) : 0;
    int cache = plain > 0 && large ? sa_bufcache_may_install() : 0;
    if (plain < 0 || cache < 0
        || (plain && (!large || cache == 1) && (ctx = quiet_context(outer, cache)) == NULL)) {
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
    else {  /* entered by another thread (see above), no shared contexts, not plain, or a
             * memory handler the user set */
        PyErr_Clear();
        PyObject *q = quiet_state(outer);
        r = q == NULL ? NULL : call_with_state_set(uf, args, nargsf, kwnames, q);
        Py_XDECREF(q);
    }
    Py_XDECREF(ctx);
    Py_DECREF(outer);
    return r;
}

#endif
