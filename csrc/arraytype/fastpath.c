/* Namespace functions with a C path for their common call (docs/array.md, "What a call
 * costs"): a FastPath is called like the Python function it wraps; its C body (reshape.c,
 * fill.c) takes the calls it can and the Python function, its fallback, every other one
 * (other arguments, other objects, and every error, whose message Python gives).
 * inspect.signature and help() follow its __wrapped__. */
#include "arraytype.h"

#include <structmember.h>

/* The bodies, by kind: 1 with *out set, 0 to take the fallback, -1 with an exception. */
typedef int (*fastpath_body)(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                             PyObject **out);

static const fastpath_body bodies[] = {sa_fast_reshape, sa_fast_full};
#define NKINDS ((int)(sizeof(bodies) / sizeof(bodies[0])))

typedef struct {
    PyObject_HEAD
    PyObject *fallback;
    PyObject *name;
    fastpath_body body;
    vectorcallfunc vectorcall;
} FastPathObject;

static PyObject *
fastpath_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FastPathObject *fp = (FastPathObject *)self;
    PyObject *out = NULL;
    int r = fp->body(args, PyVectorcall_NARGS(nargsf), kwnames, &out);
    if (r != 0) {
        return r > 0 ? out : NULL;
    }
    return PyObject_Vectorcall(fp->fallback, args, nargsf, kwnames);
}

static PyObject *
fastpath_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fallback", "kind", NULL};
    PyObject *fallback;
    int kind;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oi:FastPath", kwlist, &fallback, &kind)) {
        return NULL;
    }
    if (kind < 0 || kind >= NKINDS || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_ValueError, "FastPath: bad arguments");
        return NULL;
    }
    FastPathObject *fp = PyObject_GC_New(FastPathObject, type);
    if (fp == NULL) {
        return NULL;
    }
    fp->fallback = Py_NewRef(fallback);
    fp->name = PyObject_GetAttrString(fallback, "__name__");
    if (fp->name == NULL) {
        PyErr_Clear();
        fp->name = PyUnicode_FromString("fastpath");
    }
    fp->body = bodies[kind];
    fp->vectorcall = fastpath_vectorcall;
    PyObject_GC_Track(fp);
    return (PyObject *)fp;
}

static int
fastpath_traverse(FastPathObject *fp, visitproc visit, void *arg)
{
    Py_VISIT(fp->fallback);
    Py_VISIT(fp->name);
    return 0;
}

static void
fastpath_dealloc(FastPathObject *fp)
{
    PyObject_GC_UnTrack(fp);
    Py_CLEAR(fp->fallback);
    Py_CLEAR(fp->name);
    PyObject_GC_Del(fp);
}

static PyObject *
fastpath_get_doc(FastPathObject *fp, void *closure)
{
    return PyObject_GetAttrString(fp->fallback, "__doc__");
}

static PyMemberDef fastpath_members[] = {
    {"__name__", T_OBJECT, offsetof(FastPathObject, name), READONLY},
    {"__wrapped__", T_OBJECT, offsetof(FastPathObject, fallback), READONLY},
    {NULL},
};

static PyGetSetDef fastpath_getset[] = {
    {"__doc__", (getter)fastpath_get_doc, NULL, NULL, NULL},
    {NULL},
};

PyTypeObject sa_FastPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype.FastPath",
    .tp_basicsize = sizeof(FastPathObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = fastpath_new,
    .tp_dealloc = (destructor)fastpath_dealloc,
    .tp_traverse = (traverseproc)fastpath_traverse,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(FastPathObject, vectorcall),
    .tp_members = fastpath_members,
    .tp_getset = fastpath_getset,
};
