/* Iteration over the first axis in C: `iter(x)` yields x[0], ..., x[len(x) - 1], the views of
 * x along its first axis. Array-API clients ask for it on every argument they are
 * handed (SciPy's and scikit-learn's `np.iterable(x)` tests), so it runs no Python frame. */
#include "arraytype.h"

PyObject *
sa_array_iter(PyObject *self)
{
    ArrayObject *a = (ArrayObject *)self;
    if (a->nd == 0) {
        /* At iter(), not at the first next(): as NumPy. */
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    if (Py_TYPE(self)->tp_as_mapping != NULL
        && Py_TYPE(self)->tp_as_mapping->mp_subscript == sa_array_subscript) {
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
