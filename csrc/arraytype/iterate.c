/* Iteration over the first axis in C: `iter(x)` yields x[0], ..., x[len(x) - 1]. Array-API
 * clients ask for it on every argument they are handed (SciPy's and scikit-learn's
 * `np.iterable(x)` tests), so it runs no Python frame.
 *
 * Of an array of 2 or more dimensions, the items are the views x[i]. Of a 1-D array they are
 * 0-d arrays, as the standard says, but read-only copies of the elements rather than views:
 * values, as NumPy's scalars are, so they hash (scalar.c) and `set(x)`, `Counter(x)`,
 * `dict.fromkeys(x)` and pandas' `isin(x)` (which takes `list(x)`) work as with NumPy. A view
 * cannot hash: its element changes when the array is written (docs/numpy-users.md). */
#include "arraytype.h"

/* The element i of a 1-D array (the bound method map() calls): its read-only copy. */
static PyObject *
frozen_item(PyObject *self, PyObject *index)
{
    ArrayObject *a = (ArrayObject *)self;
    Py_ssize_t i = PyLong_AsSsize_t(index);
    if (i == -1 && PyErr_Occurred()) {
        return NULL;
    }
    /* range(len(x)) yields only 0 <= i < extent; the origin and the stride keep every such
     * element inside the storage (the constructor checked them). */
    if (i < 0 || (int64_t)i >= a->cshape[0]) {
        PyErr_SetString(PyExc_IndexError, "array index out of range");
        return NULL;
    }
    int64_t off = a->corigin + (int64_t)i * a->cstrides[0];
    const char *base = PyArray_BYTES((PyArrayObject *)a->buf);
    return sa_frozen_element(base + (size_t)off * (size_t)PyDataType_ELSIZE(sa_descrs[a->code]),
                             a->code);
}

static PyMethodDef frozen_item_def = {"_element", frozen_item, METH_O, NULL};

PyObject *
sa_array_iter(PyObject *self)
{
    ArrayObject *a = (ArrayObject *)self;
    if (a->nd == 0) {
        /* At iter(), not at the first next(): as NumPy. */
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    int own_indexing = Py_TYPE(self)->tp_as_mapping != NULL
                       && Py_TYPE(self)->tp_as_mapping->mp_subscript == sa_array_subscript;
    if (own_indexing && a->nd == 1 && !(a->flags & SA_F_HUGE)) {
        PyObject *rng = PyLong_FromLongLong(a->cshape[0]);
        if (rng == NULL) {
            return NULL;
        }
        Py_SETREF(rng, PyObject_CallOneArg((PyObject *)&PyRange_Type, rng));
        if (rng == NULL) {
            return NULL;
        }
        PyObject *item = PyCFunction_New(&frozen_item_def, self);
        if (item == NULL) {
            Py_DECREF(rng);
            return NULL;
        }
        PyObject *it = PyObject_CallFunctionObjArgs((PyObject *)&PyMap_Type, item, rng, NULL);
        Py_DECREF(item);
        Py_DECREF(rng);
        return it;
    }
    if (own_indexing) {
        /* Indexing is the array type's own: the sequence iterator, which reads x[0], x[1], ...
         * through sq_item until the IndexError at len(x) (what the map below yields, without
         * making a bound method and a range). */
        return PySeqIter_New(self);
    }
    /* A subclass with its own __getitem__: exactly len(x) items of it. */
    PyObject *shape = sa_array_shape(a); /* borrowed: its first extent as the exact int */
    if (shape == NULL) {
        return NULL;
    }
    PyObject *rng = PyObject_CallOneArg((PyObject *)&PyRange_Type, PyTuple_GET_ITEM(shape, 0));
    if (rng == NULL) {
        return NULL;
    }
    /* The bound __getitem__ of the object's own class (a subclass may override it). */
    PyObject *getitem = PyObject_GetAttrString(self, "__getitem__");
    if (getitem == NULL) {
        Py_DECREF(rng);
        return NULL;
    }
    PyObject *it = PyObject_CallFunctionObjArgs((PyObject *)&PyMap_Type, getitem, rng, NULL);
    Py_DECREF(getitem);
    Py_DECREF(rng);
    return it;
}

/* The same as a method: Array.__iter__ keeps its docstring (METH_COEXIST in arraytype.c). */
PyObject *
sa_array_iter_method(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    return sa_array_iter(self);
}
