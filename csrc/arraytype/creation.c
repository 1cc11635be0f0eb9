/* Creation in C (docs/array.md, "What a call costs"), the NativeFunction bodies of the plainest
 * calls:
 * - `asarray(ndarray)` of a whole C-contiguous aligned native ndarray: an array over it, and
 *   `asarray(x)` of one of our arrays asked for as it is: x;
 * - `zeros(shape)`, `ones(shape)` and `empty(shape)`: float64, the default;
 * - `full(shape, fill_value)`: an exact Python bool, int, float or complex fills a new array
 *   of its default dtype (bool, int64, float64, complex128).
 * Every other call (a dtype or device given, another object or fill value, an int beyond
 * int64, a shape that is not an exact int or tuple of them, and every error) is left to the
 * Python function, which gives the checks and the messages.
 */
#include "arraytype.h"

#include "../sa_checked.h"

/* A fill of this many elements or more runs without the GIL (NumPy's fill releases it too). */
#define FILL_NOGIL_MIN 65536

/* `shape` as C extents when it is an exact non-negative int or an exact tuple of at most 64
 * of them whose array of `itemsize`-byte elements fits 2**63-1 bytes; else 0. */
static int
plain_shape(PyObject *shape, int64_t itemsize, int *nd, npy_intp *dims)
{
    PyObject *const *items;
    Py_ssize_t n;
    if (!sa_shape_entries(&shape, &items, &n)) {
        return 0;
    }
    int64_t bytes = itemsize;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!PyLong_CheckExact(items[k])) {
            return 0;
        }
        int ovf;
        long long v = PyLong_AsLongLongAndOverflow(items[k], &ovf);
        if (ovf || v < 0 || (v && sa_mul_size(bytes, (int64_t)v, &bytes))) {
            return 0;
        }
        dims[k] = (npy_intp)v;
    }
    *nd = (int)n;
    return 1;
}

/* asarray(x) of one of our arrays asked for as it is (dtype None or its own, copy None or
 * False, device None): x itself. Clients convert every argument, often naming its dtype. */
static int
array_as_it_is(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k), *v = args[nargs + k];
        int ok;
        if (PyUnicode_CompareWithASCIIString(name, "dtype") == 0) {
            ok = v == Py_None || v == ((ArrayObject *)args[0])->dtype;
        }
        else if (PyUnicode_CompareWithASCIIString(name, "copy") == 0) {
            ok = v == Py_None || v == Py_False;
        }
        else if (PyUnicode_CompareWithASCIIString(name, "device") == 0) {
            ok = v == Py_None;
        }
        else {
            ok = 0; /* another keyword: the Python function names it */
        }
        if (!ok) {
            return 0;
        }
    }
    *out = Py_NewRef(args[0]);
    return 1;
}

/* An array over the whole of the caller's ndarray `arr` (sa_whole_code gave `code`). Its
 * storage and NumPy view are a base-class view of `arr` made here, not `arr`: the caller may
 * later assign arr.shape, arr.dtype or arr.strides, and the array's meaning must not follow
 * (docs/reliability.md). The view shares arr's memory (np.shares_memory, copy=False) and has
 * its geometry of this moment, as NumPy's own `arr.view()` does. */
PyObject *
sa_asarray_ndarray(PyObject *arr, int code)
{
    PyObject *own = PyArray_View((PyArrayObject *)arr, NULL, &PyArray_Type);
    if (own == NULL) {
        return NULL;
    }
    PyObject *res = sa_make_c(own, code);
    Py_DECREF(own);
    return res;
}

int
sa_fast_asarray(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    if (nargs == 1 && Py_TYPE(args[0]) == sa_array_class) {
        return array_as_it_is(args, nargs, kwnames, out);
    }
    int code = nargs == 1 && kwnames == NULL ? sa_whole_code(args[0]) : -1;
    if (code < 0) {
        return 0;
    }
    *out = sa_asarray_ndarray(args[0], code);
    return *out == NULL ? -1 : 1;
}

/* _view_ndarray(arr): asarray's common case from Python, an array over a whole ndarray it can
 * view as it is (through sa_asarray_ndarray), else None. */
PyObject *
sa_asarray_view(PyObject *mod, PyObject *arr)
{
    int code = sa_whole_code(arr);
    if (code < 0) {
        Py_RETURN_NONE;
    }
    return sa_asarray_ndarray(arr, code);
}

/* zeros(shape) (zero = 1) or empty(shape) of the default float64. */
static int
zeros_or_empty(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out,
               int zero)
{
    PyArray_Descr *d = sa_descrs[SA_FLOAT64];
    int nd;
    npy_intp dims[SA_MAXDIM];
    if (nargs != 1 || kwnames != NULL || d == NULL
        || !plain_shape(args[0], PyDataType_ELSIZE(d), &nd, dims)) {
        return 0;
    }
    Py_INCREF(d);  /* stolen */
    PyObject *arr = zero ? PyArray_Zeros(nd, dims, d, 0) : PyArray_Empty(nd, dims, d, 0);
    if (arr == NULL) {
        PyErr_Clear();  /* the Python path raises its own error */
        return 0;
    }
    *out = sa_make_c(arr, SA_FLOAT64);
    Py_DECREF(arr);
    return *out == NULL ? -1 : 1;
}

int
sa_fast_zeros(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    return zeros_or_empty(args, nargs, kwnames, out, 1);
}

int
sa_fast_empty(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    return zeros_or_empty(args, nargs, kwnames, out, 0);
}

/* A new array of `shape` and dtype `code` (bool, int64, float64 or complex128) filled with
 * ival (bool, int64) or cval (float64 from its real part, complex128): 1 with *out set, 0
 * when the shape is not plain or NumPy refuses it (the Python path says why), -1. */
static int
filled(PyObject *shape, int code, long long ival, Py_complex cval, PyObject **out)
{
    PyArray_Descr *descr = sa_descrs[code];
    if (descr == NULL) {
        return 0;  /* dtypes not registered yet */
    }
    int nd;
    npy_intp dims[SA_MAXDIM];
    if (!plain_shape(shape, PyDataType_ELSIZE(descr), &nd, dims)) {
        return 0;
    }
    Py_INCREF(descr);  /* stolen */
    PyObject *arr = PyArray_Empty(nd, dims, descr, 0);
    if (arr == NULL) {
        PyErr_Clear();  /* the Python path raises its own error */
        return 0;
    }
    /* A fresh C-contiguous aligned array of n elements of the dtype's C type. */
    npy_intp n = PyArray_SIZE((PyArrayObject *)arr);
    void *data = PyArray_DATA((PyArrayObject *)arr);
    PyThreadState *ts = n >= FILL_NOGIL_MIN ? PyEval_SaveThread() : NULL;
    switch (code) {
    case SA_BOOL:
        memset(data, (int)ival, (size_t)n);
        break;
    case SA_INT64: {
        int64_t *p = data;
        for (npy_intp i = 0; i < n; i++) {
            p[i] = (int64_t)ival;
        }
        break;
    }
    case SA_FLOAT64: {
        double *p = data;
        for (npy_intp i = 0; i < n; i++) {
            p[i] = cval.real;
        }
        break;
    }
    default: {  /* SA_COMPLEX128: (real, imaginary) pairs of doubles */
        double *p = data;
        for (npy_intp i = 0; i < n; i++) {
            p[2 * i] = cval.real;
            p[2 * i + 1] = cval.imag;
        }
        break;
    }
    }
    if (ts != NULL) {
        PyEval_RestoreThread(ts);
    }
    *out = sa_make_c(arr, code);
    Py_DECREF(arr);
    return *out == NULL ? -1 : 1;
}

int
sa_fast_ones(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    Py_complex one = {1.0, 0.0};
    return nargs == 1 && kwnames == NULL ? filled(args[0], SA_FLOAT64, 0, one, out) : 0;
}

int
sa_fast_full(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    if (nargs != 2 || kwnames != NULL) {
        return 0;
    }
    /* The fill value and its default dtype (bool before int: bool is an int subclass). */
    PyObject *value = args[1];
    int code;
    long long ival = 0;
    Py_complex cval = {0.0, 0.0};
    if (PyFloat_CheckExact(value)) {
        code = SA_FLOAT64;
        cval.real = PyFloat_AS_DOUBLE(value);
    }
    else if (PyBool_Check(value)) {
        code = SA_BOOL;
        ival = value == Py_True;
    }
    else if (PyLong_CheckExact(value)) {
        code = SA_INT64;
        int ovf;
        ival = PyLong_AsLongLongAndOverflow(value, &ovf);
        if (ovf) {
            return 0;  /* beyond int64: the Python path raises its OverflowError */
        }
    }
    else if (PyComplex_CheckExact(value)) {
        code = SA_COMPLEX128;
        cval = PyComplex_AsCComplex(value);
    }
    else {
        return 0;
    }
    return filled(args[0], code, ival, cval, out);
}
