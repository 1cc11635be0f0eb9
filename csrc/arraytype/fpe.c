/* The quiet floating-point state (docs/array.md, "The array type"): NumPy ufunc calls with
 * floating-point warnings off, as stridedarray._base.fpe gives the Python paths, for the operators
 * (operators.c) and for the Python paths' own ufunc calls (_quiet_call). Only calls that
 * run no Python code enter the shared quiet context (fpe.h, plain_call); the others set the
 * quiet state in the caller's own context.
 */
#include "fpe.h"

PyObject *sa_fpe_var = NULL;
PyObject *sa_fpe_quiet = NULL;
PyObject *sa_fpe_learn = NULL;
PyObject *sa_fpe_contexts = NULL;
PyObject *sa_fpe_ufunc_type = NULL;
PyObject *sa_fpe_cache_contexts = NULL;

/* _quiet_call(f, *args, **kwargs): f(*args, **kwargs) under the quiet floating-point state,
 * for the Python paths (stridedarray._base.fpe.call). f is meant to be a NumPy ufunc or one of
 * its methods; a call that could run Python code (another callable, an argument of another
 * type) runs in the caller's own context with the quiet state set (fpe.h, plain_call). */
PyObject *
sa_quiet_call(PyObject *mod, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n < 1) {
        PyErr_SetString(PyExc_TypeError, "_quiet_call(f, *args, **kwargs) needs f");
        return NULL;
    }
    if (sa_fpe_var == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "stridedarray._arraytype: no quiet floating-point state was handed over");
        return NULL;
    }
    return sa_call_quietly(args[0], args + 1, n - 1, kwnames, 1);
}

void
sa_set_fpe(PyObject *var, PyObject *quiet, PyObject *learn, PyObject *contexts,
           PyObject *cache_contexts)
{
    Py_XSETREF(sa_fpe_var, Py_NewRef(var));
    Py_XSETREF(sa_fpe_quiet, Py_NewRef(quiet));
    Py_XSETREF(sa_fpe_learn, Py_NewRef(learn));
    Py_XSETREF(sa_fpe_contexts, Py_NewRef(contexts));
    Py_XSETREF(sa_fpe_cache_contexts, Py_NewRef(cache_contexts));
}
