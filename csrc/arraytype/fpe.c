/* The quiet floating-point state (docs/array.md, "The array type"): NumPy ufunc calls with
 * floating-point warnings off, as stridedarray._fpe gives the Python paths, for the operators
 * (operators.c) and for the Python paths' own ufunc calls (_quiet_call).
 */
#include "fpe.h"

PyObject *sa_fpe_var = NULL;
PyObject *sa_fpe_quiet = NULL;
PyObject *sa_fpe_learn = NULL;
PyObject *sa_fpe_contexts = NULL;

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
    if (sa_fpe_var == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "stridedarray._arraytype: no quiet floating-point state was handed over");
        return NULL;
    }
    return sa_call_quietly(args[0], args + 1, n - 1, kwnames);
}

void
sa_set_fpe(PyObject *var, PyObject *quiet, PyObject *learn, PyObject *contexts)
{
    Py_XSETREF(sa_fpe_var, Py_NewRef(var));
    Py_XSETREF(sa_fpe_quiet, Py_NewRef(quiet));
    Py_XSETREF(sa_fpe_learn, Py_NewRef(learn));
    Py_XSETREF(sa_fpe_contexts, Py_NewRef(contexts));
}
