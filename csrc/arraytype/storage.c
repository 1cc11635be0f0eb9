/* The storage: the C-contiguous, aligned, native-order ndarray an array views, shared by every
 * view of it (docs/array.md, "The array type"). The checks here are what lets the C core load
 * elements as their C type. */
#include "arraytype.h"


int
sa_storage_check(PyObject *arr)
{
    if (!PyArray_Check(arr)) {
        PyErr_Format(PyExc_TypeError, "storage must be a numpy.ndarray, got %.100s",
                     Py_TYPE(arr)->tp_name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)arr;
    if (!PyArray_IS_C_CONTIGUOUS(a)) {
        PyErr_SetString(PyExc_ValueError, "storage must be a C-contiguous ndarray");
        return -1;
    }
    if (!PyArray_ISALIGNED(a) || !PyArray_ISNBO(PyArray_DESCR(a)->byteorder)) {
        PyErr_SetString(PyExc_ValueError,
                        "storage must be aligned and in native byte order (the C core loads "
                        "elements as their C type)");
        return -1;
    }
    return 0;
}

PyObject *
sa_storage_of(PyObject *arr, Py_ssize_t nbuf)
{
    StorageObject *s = PyObject_GC_New(StorageObject, &sa_StorageType);
    if (s == NULL) {
        return NULL;
    }
    s->arr = Py_NewRef(arr);
    s->nbuf = nbuf;
    s->weaklist = NULL;
    PyObject_GC_Track(s);
    return (PyObject *)s;
}

PyObject *
sa_storage_new(PyObject *arr)
{
    if (sa_storage_check(arr) < 0) {
        return NULL;
    }
    return sa_storage_of(arr, PyArray_SIZE((PyArrayObject *)arr));
}

static PyObject *
storage_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *arr;
    static char *kwlist[] = {"arr", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:_Storage", kwlist, &arr)) {
        return NULL;
    }
    return sa_storage_new(arr);
}

static int
storage_traverse(StorageObject *s, visitproc visit, void *arg)
{
    Py_VISIT(s->arr);
    return 0;
}

static int
storage_clear(StorageObject *s)
{
    Py_CLEAR(s->arr);
    return 0;
}

static void
storage_dealloc(StorageObject *s)
{
    PyObject_GC_UnTrack(s);
    if (s->weaklist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)s);
    }
    Py_CLEAR(s->arr);
    PyObject_GC_Del(s);
}

static PyMemberDef storage_members[] = {
    {"arr", T_OBJECT_EX, offsetof(StorageObject, arr), READONLY,
     "The C-contiguous ndarray holding the elements."},
    {"nbuf", T_PYSSIZET, offsetof(StorageObject, nbuf), READONLY, "Its element count."},
    {NULL},
};

PyTypeObject sa_StorageType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype._Storage",
    .tp_doc = "The memory an array views: a C-contiguous aligned ndarray, shared by views.",
    .tp_basicsize = sizeof(StorageObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = storage_tp_new,
    .tp_dealloc = (destructor)storage_dealloc,
    .tp_traverse = (traverseproc)storage_traverse,
    .tp_clear = (inquiry)storage_clear,
    .tp_members = storage_members,
    .tp_weaklistoffset = offsetof(StorageObject, weaklist),
};
