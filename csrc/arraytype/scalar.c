/* An array's one element as a Python scalar (docs/functions.md, "Creation and conversion"):
 * `float(x)`, `int(x)`, `complex(x)`, `operator.index(x)` of a 0-d array and `x.item()` of an
 * array of one element, read from the storage in C. NumPy's element types are not made on the
 * way: float(np.float64) is cheap because np.float64 is a float, while an array would go
 * through its NumPy view and a NumPy scalar first.
 *
 * The rules (and their messages) live here only:
 * - float(), int(), complex() and index() need a 0-d array (TypeError naming the shape);
 * - float() and int() of a complex array raise TypeError (take real() first);
 * - index() takes an integer array only;
 * - int() of NaN raises ValueError and of an infinity OverflowError (Python's own, through
 *   PyLong_FromDouble, as int(numpy.float64) does);
 * - item() with no argument: the element of an array of one element, of the Python type of
 *   its kind (bool, int, float, complex); ValueError for another size, as NumPy's. With
 *   arguments it is NumPy's item on the array's NumPy view.
 */
#include "arraytype.h"

#include <math.h>
#include <string.h>

/* The address of the element at index (0, ..., 0): the origin's. Only for an array that has
 * an element (not SA_F_EMPTY): the constructor checked the origin inside the storage. */
static const char *
first_element(ArrayObject *a)
{
    /* The registered dtype's item size, not the storage's live one (see sa_array_np). */
    const char *base = PyArray_BYTES((PyArrayObject *)a->buf);
    return base + (size_t)a->corigin * (size_t)PyDataType_ELSIZE(sa_descrs[a->code]);
}

/* The element at `p` of dtype `code` as Python's bool, int, float or complex. */
static PyObject *
element_object(const char *p, int code)
{
    switch (code) {
    case SA_BOOL:
        return PyBool_FromLong(*(const npy_bool *)p != 0);
    case SA_INT8:
        return PyLong_FromLong(*(const int8_t *)p);
    case SA_INT16:
        return PyLong_FromLong(*(const int16_t *)p);
    case SA_INT32:
        return PyLong_FromLong(*(const int32_t *)p);
    case SA_INT64:
        return PyLong_FromLongLong(*(const int64_t *)p);
    case SA_UINT8:
        return PyLong_FromUnsignedLong(*(const uint8_t *)p);
    case SA_UINT16:
        return PyLong_FromUnsignedLong(*(const uint16_t *)p);
    case SA_UINT32:
        return PyLong_FromUnsignedLong(*(const uint32_t *)p);
    case SA_UINT64:
        return PyLong_FromUnsignedLongLong(*(const uint64_t *)p);
    case SA_FLOAT32:
        return PyFloat_FromDouble((double)*(const float *)p);
    case SA_FLOAT64:
        return PyFloat_FromDouble(*(const double *)p);
    case SA_COMPLEX64: {
        const float *c = (const float *)p;
        return PyComplex_FromDoubles((double)c[0], (double)c[1]);
    }
    case SA_COMPLEX128: {
        const double *c = (const double *)p;
        return PyComplex_FromDoubles(c[0], c[1]);
    }
    default:
        PyErr_Format(PyExc_SystemError, "stridedarray: unknown dtype code %d", code);
        return NULL;
    }
}

static int
is_complex(int code)
{
    return code == SA_COMPLEX64 || code == SA_COMPLEX128;
}

static int
is_integer(int code)
{
    return code >= SA_INT8 && code <= SA_UINT64;
}

/* The element of a 0-d array, or NULL with the TypeError converting to Python `what`. */
static PyObject *
zero_d_element(ArrayObject *a, const char *what)
{
    if (a->nd != 0) {
        PyObject *shape = sa_array_shape(a);
        if (shape != NULL) {
            PyErr_Format(PyExc_TypeError,
                         "only 0-d arrays can be converted to Python %s; this array has "
                         "shape %R: index one element (x[i]), or take x.tolist() for "
                         "Python numbers",
                         what, shape);
        }
        return NULL;
    }
    return element_object(first_element(a), a->code);
}

static PyObject *
not_complex(ArrayObject *a, const char *func)
{
    PyErr_Format(PyExc_TypeError, "%s() of a complex array is not defined; take real() first",
                 func);
    return NULL;
}

PyObject *
sa_array_float(PyObject *self)
{
    ArrayObject *a = (ArrayObject *)self;
    if (is_complex(a->code) && a->nd == 0) {
        return not_complex(a, "float");
    }
    PyObject *v = zero_d_element(a, "float");
    if (v == NULL || PyFloat_CheckExact(v)) {
        return v;
    }
    /* bool or int: Python's float(int), correctly rounded */
    Py_SETREF(v, PyNumber_Float(v));
    return v;
}

PyObject *
sa_array_int(PyObject *self)
{
    ArrayObject *a = (ArrayObject *)self;
    if (is_complex(a->code) && a->nd == 0) {
        return not_complex(a, "int");
    }
    PyObject *v = zero_d_element(a, "int");
    if (v == NULL || PyLong_CheckExact(v)) {
        return v;
    }
    if (PyFloat_CheckExact(v)) {
        /* NaN: ValueError, an infinity: OverflowError (Python's messages) */
        Py_SETREF(v, PyLong_FromDouble(PyFloat_AS_DOUBLE(v)));
        return v;
    }
    Py_SETREF(v, PyNumber_Long(v));  /* bool: 0 or 1 as an exact int */
    return v;
}

PyObject *
sa_array_index(PyObject *self)
{
    ArrayObject *a = (ArrayObject *)self;
    if (!is_integer(a->code)) {
        PyObject *name = PyObject_GetAttrString(a->dtype, "name");
        if (name != NULL) {
            PyErr_Format(PyExc_TypeError, "only integer arrays can be used as an index, got %S",
                         name);
            Py_DECREF(name);
        }
        return NULL;
    }
    return zero_d_element(a, "int");
}

PyObject *
sa_array_complex(PyObject *self, PyObject *unused)
{
    PyObject *v = zero_d_element((ArrayObject *)self, "complex");
    if (v == NULL || PyComplex_CheckExact(v)) {
        return v;
    }
    double re = PyFloat_CheckExact(v) ? PyFloat_AS_DOUBLE(v) : PyLong_AsDouble(v);
    Py_DECREF(v);
    if (re == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    return PyComplex_FromDoubles(re, 0.0);
}

/* item(): the one element; item(*args, **kwargs): NumPy's item on the NumPy view. */
PyObject *
sa_array_item(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    ArrayObject *a = (ArrayObject *)self;
    if (nargs == 0 && kwnames == NULL && !(a->flags & (SA_F_EMPTY | SA_F_HUGE))) {
        int one = 1;
        for (int k = 0; k < a->nd; k++) {
            one &= a->cshape[k] == 1;
        }
        if (one) {
            return element_object(first_element(a), a->code);
        }
    }
    PyObject *npv = PyObject_GetAttrString(self, "_np");
    if (npv == NULL) {
        return NULL;
    }
    PyObject *meth = PyObject_GetAttrString(npv, "item");
    Py_DECREF(npv);
    if (meth == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_Vectorcall(meth, args, (size_t)nargs, kwnames);
    Py_DECREF(meth);
    return r;
}

/* The methods beside the slots (METH_COEXIST in arraytype.c), for their docstrings. */
PyObject *
sa_array_float_method(PyObject *self, PyObject *unused)
{
    return sa_array_float(self);
}

PyObject *
sa_array_int_method(PyObject *self, PyObject *unused)
{
    return sa_array_int(self);
}

PyObject *
sa_array_index_method(PyObject *self, PyObject *unused)
{
    return sa_array_index(self);
}

/* The storage of an array whose memory nobody can write: a read-only ndarray whose base is a
 * bytes object (NumPy refuses to make such an ndarray writable again). */
static int
immutable_memory(ArrayObject *a)
{
    PyArrayObject *buf = (PyArrayObject *)a->buf;
    PyObject *base = PyArray_BASE(buf);
    return !PyArray_ISWRITEABLE(buf) && base != NULL && PyBytes_CheckExact(base);
}

/* hash(x). Arrays compare element-wise and are mutable, so, as NumPy's ndarray, they do not
 * hash; the exception is a 0-d array over immutable memory (the elements that iterating a
 * 1-D array yields), which is a value, as NumPy's scalars are, and hashes as its element so
 * that e == e.item() and hash(e) == hash(e.item()) agree. A NaN hashes by identity, as
 * Python's float NaN does (one NaN object equals no other). A read-only view of writable
 * memory is not a value: its owner can change it while it is a key. */
Py_hash_t
sa_array_hash(PyObject *self)
{
    ArrayObject *a = (ArrayObject *)self;
    if (a->nd == 0 && immutable_memory(a)) {
        PyObject *v = element_object(first_element(a), a->code);
        if (v == NULL) {
            return -1;
        }
        int nan = (PyFloat_CheckExact(v) && isnan(PyFloat_AS_DOUBLE(v)))
                  || (PyComplex_CheckExact(v)
                      && (isnan(PyComplex_RealAsDouble(v)) || isnan(PyComplex_ImagAsDouble(v))));
        Py_hash_t h = nan ? PyBaseObject_Type.tp_hash(self) : PyObject_Hash(v);
        Py_DECREF(v);
        return h;
    }
    PyErr_SetString(PyExc_TypeError,
                    "unhashable type: 'Array': arrays are mutable (as NumPy's ndarray), so they "
                    "cannot be set members or dict keys; use Python values, x.tolist() or, "
                    "for one element, x.item() (the elements that iterating a 1-D array "
                    "yields are read-only copies, and hash)");
    return -1;
}

PyObject *
sa_frozen_element(const char *p, int code)
{
    PyArray_Descr *descr = sa_descrs[code];
    npy_intp its = PyDataType_ELSIZE(descr);
    PyObject *bytes = PyBytes_FromStringAndSize(p, (Py_ssize_t)its);
    if (bytes == NULL) {
        return NULL;
    }
    if ((uintptr_t)PyBytes_AS_STRING(bytes) % (uintptr_t)PyDataType_ALIGNMENT(descr)) {
        /* A CPython whose bytes data is not aligned for the dtype (today's are 16-aligned
         * or 8-aligned): a read-only copy in NumPy's memory; it reads the same, it just does
         * not hash (immutable_memory wants bytes). */
        Py_DECREF(bytes);
        Py_INCREF(descr);
        PyObject *own = PyArray_NewFromDescr(&PyArray_Type, descr, 0, NULL, NULL, NULL, 0, NULL);
        if (own == NULL) {
            return NULL;
        }
        memcpy(PyArray_BYTES((PyArrayObject *)own), p, (size_t)its);
        PyArray_CLEARFLAGS((PyArrayObject *)own, NPY_ARRAY_WRITEABLE);
        PyObject *r = sa_make_c(own, code);
        Py_DECREF(own);
        return r;
    }
    Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, 0, NULL, NULL,
                                         PyBytes_AS_STRING(bytes), 0 /* read-only */, NULL);
    if (arr == NULL) {
        Py_DECREF(bytes);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, bytes) < 0) { /* steals bytes */
        Py_DECREF(arr);
        return NULL;
    }
    PyObject *r = sa_make_c(arr, code);
    Py_DECREF(arr);
    return r;
}
