/* What FastOp, FastPath and FastMatmul share: each is a C callable bound in place of a
 * Python function, which it keeps as its fallback for every call its C path does not take.
 * The fallback also gives it its name, `__doc__` and `__wrapped__` (so help() and
 * inspect.signature describe the Python function), and it binds as a method when it is a
 * class attribute (Array's operators), without a bound-method object on the fast calls
 * (Py_TPFLAGS_METHOD_DESCRIPTOR). Each type's struct begins with a FastCallHead and its
 * PyTypeObject with SA_FASTCALL_SLOTS (arraytype.h). */
#include "arraytype.h"

#include <string.h>

PyObject *
sa_fastcall_new(PyTypeObject *type, PyObject *fallback, const char *default_name,
                vectorcallfunc vectorcall)
{
    if (!PyCallable_Check(fallback)) {
        PyErr_Format(PyExc_TypeError, "%s: the fallback must be callable", type->tp_name);
        return NULL;
    }
    FastCallHead *h = PyObject_GC_New(FastCallHead, type); /* type->tp_basicsize bytes */
    if (h == NULL) {
        return NULL;
    }
    /* The type's own fields after the head start zeroed (NULL references). */
    memset((char *)h + sizeof(FastCallHead), 0, (size_t)type->tp_basicsize - sizeof(FastCallHead));
    h->fallback = Py_NewRef(fallback);
    h->vectorcall = vectorcall;
    h->name = PyObject_GetAttrString(fallback, "__name__");
    if (h->name == NULL) {
        PyErr_Clear();
        h->name = PyUnicode_FromString(default_name);
        if (h->name == NULL) {
            Py_DECREF(h->fallback);
            PyObject_GC_Del(h);
            return NULL;
        }
    }
    return (PyObject *)h;
}

PyObject *
sa_fastcall_call_fallback(PyObject *self, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames)
{
    return PyObject_Vectorcall(((FastCallHead *)self)->fallback, args, nargsf, kwnames);
}

PyObject *
sa_fastcall_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

int
sa_fastcall_traverse(PyObject *self, visitproc visit, void *arg)
{
    FastCallHead *h = (FastCallHead *)self;
    Py_VISIT(h->fallback);
    Py_VISIT(h->name);
    return 0;
}

void
sa_fastcall_clear_head(FastCallHead *h)
{
    Py_CLEAR(h->fallback);
    Py_CLEAR(h->name);
}

void
sa_fastcall_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    sa_fastcall_clear_head((FastCallHead *)self);
    PyObject_GC_Del(self);
}

static PyObject *
fastcall_get_doc(PyObject *self, void *closure)
{
    return PyObject_GetAttrString(((FastCallHead *)self)->fallback, "__doc__");
}

PyMemberDef sa_fastcall_members[] = {
    {"__name__", T_OBJECT, offsetof(FastCallHead, name), READONLY},
    {"__wrapped__", T_OBJECT, offsetof(FastCallHead, fallback), READONLY},
    {NULL},
};

PyGetSetDef sa_fastcall_getset[] = {
    {"__doc__", fastcall_get_doc, NULL, NULL, NULL},
    {NULL},
};

/* ---------------------------------------------------------------------------------------- */
/* FastPath: a namespace function with a C body for its common call (creation.c, reshape.c).
 * A body returns 1 with *out set, 0 to hand the call to the Python function, -1 with an
 * exception. */

typedef int (*fastpath_body)(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                             PyObject **out);

static const struct {
    const char *kind;
    fastpath_body body;
} fastpath_kinds[] = {
    {"asarray", sa_fast_asarray}, {"zeros", sa_fast_zeros}, {"ones", sa_fast_ones},
    {"empty", sa_fast_empty},     {"full", sa_fast_full},   {"reshape", sa_fast_reshape},
};

typedef struct {
    FastCallHead head;
    fastpath_body body;
} FastPathObject;

static PyObject *
fastpath_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *out = NULL;
    int r = ((FastPathObject *)self)->body(args, PyVectorcall_NARGS(nargsf), kwnames, &out);
    if (r != 0) {
        return r > 0 ? out : NULL;
    }
    return sa_fastcall_call_fallback(self, args, nargsf, kwnames);
}

static PyObject *
fastpath_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fallback", "kind", NULL};
    PyObject *fallback;
    const char *kind;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Os:FastPath", kwlist, &fallback, &kind)) {
        return NULL;
    }
    fastpath_body body = NULL;
    for (size_t k = 0; k < sizeof(fastpath_kinds) / sizeof(fastpath_kinds[0]); k++) {
        if (strcmp(kind, fastpath_kinds[k].kind) == 0) {
            body = fastpath_kinds[k].body;
        }
    }
    if (body == NULL) {
        PyErr_Format(PyExc_ValueError, "FastPath: no C body for %.40R", PyTuple_GET_ITEM(args, 1));
        return NULL;
    }
    FastPathObject *fp =
        (FastPathObject *)sa_fastcall_new(type, fallback, kind, fastpath_vectorcall);
    if (fp == NULL) {
        return NULL;
    }
    fp->body = body;
    PyObject_GC_Track(fp);
    return (PyObject *)fp;
}

PyTypeObject sa_FastPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype.FastPath",
    SA_FASTCALL_SLOTS(FastPathObject),
    .tp_new = fastpath_new,
    .tp_dealloc = sa_fastcall_dealloc,
    .tp_traverse = sa_fastcall_traverse,
};
