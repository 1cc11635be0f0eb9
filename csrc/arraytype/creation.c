/* Creation in C (docs/array.md, "What a call costs"), the NativeFunction bodies of the plainest
 * calls:
 * - `asarray(x)`: one of our arrays asked for as it is (x), a whole C-contiguous aligned
 *   native ndarray (an array over it), a Python scalar or nested lists and tuples of them
 *   (a new array of the standard's default dtype for their kinds);
 * - `zeros(shape)`, `ones(shape)` and `empty(shape)`: float64, the default;
 * - `full(shape, fill_value)`: an exact Python bool, int, float or complex fills a new array
 *   of its default dtype (bool, int64, float64, complex128).
 * These are the rules' one implementation. Every other call (another dtype or device, another
 * object or fill value, an int beyond int64, a shape that is not an exact int or tuple of
 * them, and every error) is left to the Python function, which gives the checks and the
 * messages.
 */
#include "arraytype.h"

#include "base/checked_internal.h"

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

/* asarray's keywords as C takes them: dtype (None or a DType object: *dtype, NULL for None),
 * copy (None, False or True exactly: *copy -1, 0, 1) and device None. 0 for another keyword
 * or value (the CPU device by name, a truthy copy, a dtype spelled otherwise): the Python
 * function decides, and names what is wrong. */
static int
asarray_keywords(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **dtype,
                 int *copy)
{
    *dtype = NULL;
    *copy = -1;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k), *v = args[nargs + k];
        if (PyUnicode_CompareWithASCIIString(name, "dtype") == 0) {
            *dtype = v == Py_None ? NULL : v;
        }
        else if (PyUnicode_CompareWithASCIIString(name, "copy") == 0) {
            if (v != Py_None && v != Py_False && v != Py_True) {
                return 0;
            }
            *copy = v == Py_None ? -1 : v == Py_True;
        }
        else if (PyUnicode_CompareWithASCIIString(name, "device") != 0 || v != Py_None) {
            return 0;
        }
    }
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

/* The kinds of Python scalar, in the standard's order for a sequence that mixes them
 * (bool < int < float < complex), and the default dtype of each. */
enum { K_NONE = -1, K_BOOL, K_INT, K_FLOAT, K_COMPLEX };
static const int code_of_kind[] = {SA_BOOL, SA_INT64, SA_FLOAT64, SA_COMPLEX128};

/* The kind of an exact Python bool, int inside int64, float or complex; K_NONE for anything
 * else. Only exact types: reading them runs no Python code (no __float__ or __index__ of a
 * subclass), so the nested lists cannot change between the two passes below. */
static int
scalar_kind(PyObject *v)
{
    if (PyFloat_CheckExact(v)) {
        return K_FLOAT;
    }
    if (PyBool_Check(v)) {
        return K_BOOL;
    }
    if (PyLong_CheckExact(v)) {
        int ovf;
        (void)PyLong_AsLongLongAndOverflow(v, &ovf);
        /* beyond int64: the Python path raises OverflowError, or NumPy converts it to float */
        return ovf ? K_NONE : K_INT;
    }
    if (PyComplex_CheckExact(v)) {
        return K_COMPLEX;
    }
    return K_NONE;
}

static int
is_seq(PyObject *o)
{
    return PyList_CheckExact(o) || PyTuple_CheckExact(o);
}

/* Pass 1 over nested exact lists and tuples at `depth` of `nd` with extents `dims`: 1 when
 * every sequence has its level's extent and every leaf is a scalar scalar_kind takes (the
 * widest kind seen raised into *kind), else 0 (ragged, too deep, another type: the Python
 * path raises or converts). */
static int
scan(PyObject *o, int depth, int nd, const npy_intp *dims, int *kind)
{
    if (depth == nd) {
        int k = scalar_kind(o);
        if (k == K_NONE) {
            return 0;
        }
        *kind = k > *kind ? k : *kind;
        return 1;
    }
    if (!is_seq(o) || PySequence_Fast_GET_SIZE(o) != dims[depth]) {
        return 0;
    }
    PyObject **items = PySequence_Fast_ITEMS(o);
    for (npy_intp i = 0; i < dims[depth]; i++) {
        if (!scan(items[i], depth + 1, nd, dims, kind)) {
            return 0;
        }
    }
    return 1;
}

/* Pass 2: the leaves in C order into `*p` as dtype `code` (from the kind pass 1 found, or a
 * wider one asked for), advancing *p. The shape is checked again, so a structure that
 * changed gives 0, never a write past the buffer; -1 with an exception. */
static int
fill_leaves(PyObject *o, int depth, int nd, const npy_intp *dims, int code, char **p)
{
    if (depth < nd) {
        if (!is_seq(o) || PySequence_Fast_GET_SIZE(o) != dims[depth]) {
            return 0;
        }
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (npy_intp i = 0; i < dims[depth]; i++) {
            int r = fill_leaves(items[i], depth + 1, nd, dims, code, p);
            if (r <= 0) {
                return r;
            }
        }
        return 1;
    }
    int k = scalar_kind(o);
    if (k == K_NONE || code_of_kind[k] > code) {
        return 0;
    }
    switch (code) {
    case SA_BOOL:
        *(npy_bool *)*p = o == Py_True;
        *p += sizeof(npy_bool);
        return 1;
    case SA_INT64: {
        long long v = PyLong_AsLongLong(o); /* bool or int inside int64 (scalar_kind) */
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        *(int64_t *)*p = (int64_t)v;
        *p += sizeof(int64_t);
        return 1;
    }
    default: {
        /* SA_FLOAT64, SA_COMPLEX128: an int as Python's float(int) (correctly rounded) */
        double re, im = 0.0;
        if (k == K_COMPLEX) {
            Py_complex c = ((PyComplexObject *)o)->cval;
            re = c.real;
            im = c.imag;
        }
        else if (k == K_FLOAT) {
            re = PyFloat_AS_DOUBLE(o);
        }
        else {
            re = PyLong_AsDouble(o);
            if (re == -1.0 && PyErr_Occurred()) {
                return -1;
            }
        }
        double *d = (double *)*p;
        d[0] = re;
        if (code == SA_COMPLEX128) {
            d[1] = im;
        }
        *p += code == SA_COMPLEX128 ? 2 * sizeof(double) : sizeof(double);
        return 1;
    }
    }
}

/* asarray(obj) of an exact Python bool, int, float or complex, or of nested exact lists and
 * tuples of them (dtype None or the default dtype of a kind at least as wide as the values':
 * bool, int64, float64, complex128): a new C-contiguous array filled here. 1 with *out set,
 * 0 for everything else (the Python path converts it through NumPy and gives the errors),
 * -1 with an exception. */
static int
from_python(PyObject *obj, PyObject *dtype, PyObject **out)
{
#ifdef Py_GIL_DISABLED
    /* Without the GIL another thread may resize a list between the passes, and its borrowed
     * items are not safe to read: NumPy's conversion (which locks) does it. */
    if (is_seq(obj)) {
        return 0;
    }
#endif
    int nd = 0;
    npy_intp dims[SA_MAXDIM];
    int64_t count = 1;
    /* The shape from the first element of each level; a self-containing list or one nested
     * beyond 64 levels is left to the Python path's error. */
    for (PyObject *o = obj; is_seq(o);) {
        if (nd == SA_MAXDIM) {
            return 0;
        }
        Py_ssize_t len = PySequence_Fast_GET_SIZE(o);
        /* 16 bytes, the widest element: the buffer's size fits int64 (checked) */
        if (sa_mul_size(count, (int64_t)len, &count) || count > INT64_MAX / 16) {
            return 0;
        }
        dims[nd++] = (npy_intp)len;
        if (len == 0) {
            break;
        }
        o = PySequence_Fast_GET_ITEM(o, 0);
    }
    int kind = K_NONE;
    if (!scan(obj, 0, nd, dims, &kind)) {
        return 0;
    }
    int code = code_of_kind[kind == K_NONE ? K_FLOAT : kind]; /* empty: float64, as NumPy's */
    if (dtype != NULL) {
        int asked = -1;
        for (int k = K_BOOL; k <= K_COMPLEX; k++) {
            if (dtype == sa_dtypes[code_of_kind[k]] && (kind == K_NONE || k >= kind)) {
                asked = code_of_kind[k];
            }
        }
        if (asked < 0) {
            return 0;  /* another dtype, or narrower than the values: the Python path casts */
        }
        code = asked;
    }
    PyArray_Descr *descr = sa_descrs[code];
    if (descr == NULL) {
        return 0;  /* dtypes not registered yet */
    }
    Py_INCREF(descr); /* stolen */
    PyObject *arr = PyArray_Empty(nd, dims, descr, 0);
    if (arr == NULL) {
        return -1;
    }
    char *p = PyArray_BYTES((PyArrayObject *)arr);
    int r = fill_leaves(obj, 0, nd, dims, code, &p);
    if (r <= 0) {
        Py_DECREF(arr);
        return r;
    }
    *out = sa_make_c(arr, code);
    Py_DECREF(arr);
    return *out == NULL ? -1 : 1;
}

/* asarray(obj, dtype=, device=, copy=) where C takes it:
 * - one of our arrays asked for as it is (dtype None or its own, copy None or False): obj
 *   itself (clients convert every argument, often naming its dtype);
 * - a whole C-contiguous aligned native ndarray of a registered dtype (dtype None or its own,
 *   copy None or False): an array over it (sa_asarray_ndarray);
 * - Python scalars and nested lists of them (copy None or True: a new array either way), as
 *   from_python says.
 * Everything else is the Python function's: the other conversions and every error. */
int
sa_namespace_asarray(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    PyObject *dtype;
    int copy;
    if (nargs != 1 || !asarray_keywords(args, nargs, kwnames, &dtype, &copy)) {
        return 0;
    }
    PyObject *obj = args[0];
    if (Py_TYPE(obj) == sa_array_class) {
        if (copy == 1 || (dtype != NULL && dtype != ((ArrayObject *)obj)->dtype)) {
            return 0;
        }
        *out = Py_NewRef(obj);
        return 1;
    }
    int code = sa_whole_code(obj);
    if (code >= 0) {
        if (copy == 1 || (dtype != NULL && dtype != sa_dtypes[code])) {
            return 0;
        }
        *out = sa_asarray_ndarray(obj, code);
        return *out == NULL ? -1 : 1;
    }
    if (copy == 0) {
        return 0;  /* a Python value cannot be wrapped without a copy: the Python error */
    }
    return from_python(obj, dtype, out);
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
sa_namespace_zeros(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    return zeros_or_empty(args, nargs, kwnames, out, 1);
}

int
sa_namespace_empty(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
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
sa_namespace_ones(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    Py_complex one = {1.0, 0.0};
    return nargs == 1 && kwnames == NULL ? filled(args[0], SA_FLOAT64, 0, one, out) : 0;
}

int
sa_namespace_full(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
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

/* arange(start[, stop[, step]]) of exact Python ints (int64) or ints and finite floats
 * (float64), no keyword: NumPy's arange with that dtype, its result wrapped whole. A zero
 * step, a length NumPy refuses and every other call are the Python function's. */
static PyObject *np_arange = NULL; /* numpy.arange, looked up on first use */
static PyObject *dtype_kw = NULL;  /* ("dtype",) */

static int
arange_bound(PyObject *v, int *ints)
{
    if (PyLong_CheckExact(v)) {
        return 1;
    }
    if (PyFloat_CheckExact(v) && isfinite(PyFloat_AS_DOUBLE(v))) {
        *ints = 0;
        return 1;
    }
    return 0;
}

int
sa_namespace_arange(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    if (nargs < 1 || nargs > 3 || kwnames != NULL) {
        return 0;
    }
    int ints = 1;
    for (Py_ssize_t k = 0; k < nargs; k++) {
        if (!arange_bound(args[k], &ints)) {
            return 0;
        }
    }
    if (nargs == 3) {
        int zero = PyObject_Not(args[2]);
        if (zero != 0) {
            return zero < 0 ? -1 : 0; /* a zero step: the Python function's ValueError */
        }
    }
    int code = ints ? SA_INT64 : SA_FLOAT64;
    PyArray_Descr *descr = sa_descrs[code];
    if (descr == NULL) {
        return 0;
    }
    PyObject *arange = SA_LAZY_LOAD(np_arange), *kw = SA_LAZY_LOAD(dtype_kw);
    if (arange == NULL || kw == NULL) {
        /* kept for the process, as NumPy's module is; the first to publish wins */
        PyObject *np = PyImport_ImportModule("numpy");
        if (np == NULL) {
            return -1;
        }
        arange = sa_lazy_publish(&np_arange, PyObject_GetAttrString(np, "arange"));
        Py_DECREF(np);
        kw = sa_lazy_publish(&dtype_kw, Py_BuildValue("(s)", "dtype"));
        if (arange == NULL || kw == NULL) {
            return -1;
        }
    }
    /* np.arange(*args, dtype=descr) */
    PyObject *call[4];
    for (Py_ssize_t k = 0; k < nargs; k++) {
        call[k] = args[k];
    }
    call[nargs] = (PyObject *)descr;
    PyObject *arr = PyObject_Vectorcall(arange, call, (size_t)nargs, kw);
    if (arr == NULL) {
        PyErr_Clear(); /* a length too large and the like: the Python path says why */
        return 0;
    }
    int c = sa_native_code(arr);
    if (c != code || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)arr)) {
        Py_DECREF(arr);
        return 0;
    }
    *out = sa_make_c(arr, code);
    Py_DECREF(arr);
    return *out == NULL ? -1 : 1;
}
