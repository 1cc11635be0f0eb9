/* Result wrapping (docs/array.md, "The array type"): a NumPy result as an array, for the
 * operators, matmul and the Python paths (_wrap).
 */
#include "arraytype.h"

static PyObject *wrap_fallback = NULL;  /* _base.construct._wrap_py, handed over by _connect */

/* Wrap a NumPy result: a fresh C-contiguous aligned native array whole, another aligned
 * native layout (F order, transposed or reversed operands) over a window of its memory, and a
 * NumPy scalar (a full reduction's or a 0-d operation's result) as a fresh 0-d array, all in
 * C; the rest (dtypes without a code, byte-swapped or misaligned memory, strides that are not
 * whole elements, ndarray subclasses) by _base.construct._wrap_py. */
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
        /* sa_make_strided's rule; its first case (the most common result) without the call */
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

void
sa_set_wrap_fallback(PyObject *func)
{
    Py_XSETREF(wrap_fallback, Py_NewRef(func));
}

PyObject *
sa_wrap(PyObject *mod, PyObject *arr)
{
    return sa_wrap_result(arr);
}
