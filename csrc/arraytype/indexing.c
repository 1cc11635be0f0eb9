/* Basic indexing and the transposes in C (docs/array.md, "Views"): keys made of exact ints,
 * slices, None and one Ellipsis, and `.mT` / `.T`. Every view is checked by the one
 * constructor (sa_make_view, from the C values here; sa_make where Python keeps the exact
 * values). Anything else (NumPy integers, 0-d arrays, bools, advanced keys,
 * malformed keys and their specific errors, strides beyond 64 bits) goes to the Python path
 * registered by stridedarray._basic_indexing, which gives today's results and messages.
 */
#include "arraytype.h"

static PyObject *getitem_fallback = NULL;  /* _basic_indexing.getitem_general(x, key) */

static PyObject *
fallback(PyObject *self, PyObject *key)
{
    if (getitem_fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: no indexing fallback");
        return NULL;
    }
    return PyObject_CallFunctionObjArgs(getitem_fallback, self, key, NULL);
}

/* 1: the key's items are all handled here (filled in), 0: take the fallback, -1: error. */
static int
fast_view(ArrayObject *a, PyObject *const *items, Py_ssize_t nitems, PyObject **out)
{
    int nd = a->nd;
    if (a->flags & SA_F_HUGE) {
        return 0;
    }
    /* The parent's strides must be its exact values (a stride no index uses may exceed
     * int64 in Python; C holds 0 for it): else the Python path keeps them exactly. */
    /* used: axes the key consumes (ints and slices); removed: those it drops (ints); added:
     * the new axes (None). The result has nd - removed + added axes: a slice keeps its axis. */
    Py_ssize_t used = 0, removed = 0, added = 0, ellipses = 0;
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *k = items[i];
        if (PyLong_CheckExact(k)) {
            used++;
            removed++;
        }
        else if (PySlice_Check(k)) {
            used++;
        }
        else if (k == Py_None) {
            added++;
        }
        else if (k == Py_Ellipsis) {
            ellipses++;
        }
        else {
            return 0;
        }
    }
    if (used > nd || ellipses > 1) {
        return 0;  /* the Python path raises the specific error */
    }
    /* The result's axes are written into sa_desc's SA_MAXDIM-entry arrays below: a rank past
     * the limit is refused before any is written, as NumPy refuses it (docs/reliability.md).
     * The counts are Py_ssize_t, as the key's length is. */
    Py_ssize_t out_rank = nd - removed + added;
    if (out_rank > SA_MAXDIM) {
        PyErr_Format(PyExc_IndexError,
                     "number of dimensions must be within [0, %d], indexing result would have "
                     "%zd",
                     SA_MAXDIM, out_rank);
        return -1;
    }
    sa_desc d;
    int64_t *shape = d.shape, *strides = d.strides;
    int64_t origin = a->corigin;
    int empty = (a->flags & SA_F_EMPTY) != 0;
    int ax = 0, out_nd = 0;
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *k = items[i];
        if (k == Py_None) {
            shape[out_nd] = 1;
            strides[out_nd++] = 0;
            continue;
        }
        if (k == Py_Ellipsis) {
            int m = ax + nd - (int)used;  /* used <= nd */
            for (; ax < m; ax++) {
                shape[out_nd] = a->cshape[ax];
                strides[out_nd++] = a->cstrides[ax];
            }
            continue;
        }
        int64_t n = a->cshape[ax], s = a->cstrides[ax];
        if (PyLong_CheckExact(k)) {
            int ovf;
            long long i0 = PyLong_AsLongLongAndOverflow(k, &ovf);
            if (i0 == -1 && PyErr_Occurred()) {
                return -1;
            }
            long long j = (!ovf && i0 < 0) ? i0 + n : i0;
            if (ovf || j < 0 || j >= n) {
                PyErr_Format(PyExc_IndexError,
                             "index %S is out of bounds for axis %d with size %lld", k, ax,
                             (long long)n);
                return -1;
            }
            int64_t d;
            if (__builtin_mul_overflow((int64_t)j, s, &d)
                || __builtin_add_overflow(origin, d, &origin)) {
                return 0;
            }
            ax++;
            continue;
        }
        /* a slice */
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(k, &start, &stop, &step) < 0) {
            return -1;
        }
        Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)n, &start, &stop, step);
        int64_t ns;
        if (__builtin_mul_overflow(s, (int64_t)step, &ns)) {
            return 0;
        }
        if (len) {
            int64_t d;
            if (__builtin_mul_overflow((int64_t)start, s, &d)
                || __builtin_add_overflow(origin, d, &origin)) {
                return 0;
            }
        }
        else {
            empty = 1;
        }
        shape[out_nd] = len;
        strides[out_nd++] = ns;
        ax++;
    }
    for (; ax < nd; ax++) {
        shape[out_nd] = a->cshape[ax];
        strides[out_nd++] = a->cstrides[ax];
    }
    d.nd = out_nd;
    d.wide = 0;
    d.origin = empty ? a->corigin : origin;
    *out = sa_make_view(a, &d, NULL);
    return *out == NULL ? -1 : 1;
}

PyObject *
sa_array_subscript(PyObject *self, PyObject *key)
{
    ArrayObject *a = (ArrayObject *)self;
    PyObject *out = NULL;
    int r;
    if (a->flags & SA_F_INEXACT) {  /* C holds a stride as 0: Python keeps it exactly */
        return fallback(self, key);
    }
    if (PyTuple_CheckExact(key)) {
        r = fast_view(a, &PyTuple_GET_ITEM(key, 0), PyTuple_GET_SIZE(key), &out);
    }
    else {
        r = fast_view(a, &key, 1, &out);
    }
    if (r < 0) {
        return NULL;
    }
    return r ? out : fallback(self, key);
}

/* The axis of `a` that axis k of a.mT is: the last two swapped. */
static inline int
mT_axis(int k, int nd)
{
    return k < nd - 2 ? k : (k == nd - 2 ? nd - 1 : nd - 2);
}

PyObject *
sa_array_get_mT(PyObject *self, void *closure)
{
    ArrayObject *a = (ArrayObject *)self;
    int nd = a->nd;
    if (nd < 2) {
        PyErr_Format(PyExc_ValueError, "mT needs an array of rank >= 2, got rank %d", nd);
        return NULL;
    }
    if (a->flags & (SA_F_HUGE | SA_F_INEXACT)) {
        /* C does not hold every extent or stride: permute the exact Python values. */
        PyObject *shape = sa_array_shape(a), *strides = sa_array_strides(a);
        PyObject *origin = sa_array_origin(a), *storage = sa_array_storage(a);
        if (shape == NULL || strides == NULL || origin == NULL || storage == NULL) {
            return NULL;
        }
        PyObject *sh = PyTuple_New(nd), *st = PyTuple_New(nd);
        PyObject *res = NULL;
        if (sh != NULL && st != NULL) {
            for (int k = 0; k < nd; k++) {
                int j = mT_axis(k, nd);
                PyTuple_SET_ITEM(sh, k, Py_NewRef(PyTuple_GET_ITEM(shape, j)));
                PyTuple_SET_ITEM(st, k, Py_NewRef(PyTuple_GET_ITEM(strides, j)));
            }
            res = sa_make(storage, a->dtype, sh, st, origin, NULL);
        }
        Py_XDECREF(sh);
        Py_XDECREF(st);
        return res;
    }
    sa_desc d;
    d.nd = nd;
    d.wide = 0;
    d.origin = a->corigin;
    for (int k = 0; k < nd; k++) {
        int j = mT_axis(k, nd);
        d.shape[k] = a->cshape[j];
        d.strides[k] = a->cstrides[j];
    }
    return sa_make_view(a, &d, NULL);
}

PyObject *
sa_array_get_T(PyObject *self, void *closure)
{
    ArrayObject *a = (ArrayObject *)self;
    if (a->nd != 2) {
        PyErr_Format(PyExc_ValueError,
                     "T is defined for 2-D arrays only (got rank %d); use mT", a->nd);
        return NULL;
    }
    return sa_array_get_mT(self, closure);
}

PyObject *
sa_set_getitem_fallback(PyObject *mod, PyObject *func)
{
    if (!PyCallable_Check(func)) {
        PyErr_SetString(PyExc_TypeError, "the indexing fallback must be callable");
        return NULL;
    }
    Py_XSETREF(getitem_fallback, Py_NewRef(func));
    Py_RETURN_NONE;
}
