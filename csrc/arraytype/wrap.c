/* Result wrapping (docs/array.md, "The array type"): a NumPy result as an array, for the
 * operators, matmul and the Python paths (_wrap).
 */
#include "arraytype.h"

static PyObject *wrap_fallback = NULL;  /* _array._wrap */

/* Wrap a NumPy result: a fresh C-contiguous aligned native array whole, another aligned
 * native layout (F order, transposed or reversed operands) over a window of its memory, both
 * in C; the rest by _wrap. */
PyObject *
sa_wrap_result(PyObject *r)
{
    int code = sa_native_code(r);
    if (code >= 0) {
        if (PyArray_IS_C_CONTIGUOUS((PyArrayObject *)r)) {
            return sa_make_c(r, code);
        }
        PyObject *w = sa_make_strided(r, code);
        if (w != NULL || PyErr_Occurred()) {
            return w;
        }
    }
    if (wrap_fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: no wrap fallback");
        return NULL;
    }
    return PyObject_CallOneArg(wrap_fallback, r);
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
