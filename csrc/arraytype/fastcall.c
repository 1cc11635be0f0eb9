/* What FastOp, FastCreate and FastMatmul share: each is a C callable bound in place of a
 * Python function, which it keeps as its fallback for every call its C path does not take.
 * The fallback also gives it its name, `__doc__` and `__wrapped__` (so help() and
 * inspect.signature describe the Python function), and it binds as a method when it is a
 * class attribute (Array's operators), without a bound-method object on the fast calls
 * (Py_TPFLAGS_METHOD_DESCRIPTOR). Each type's struct begins with a FastCallHead and its
 * PyTypeObject with SA_FASTCALL_SLOTS (arraytype.h). */
#include "arraytype.h"

int
sa_fastcall_init(FastCallHead *h, PyObject *fallback, const char *default_name,
                 vectorcallfunc vectorcall)
{
    if (!PyCallable_Check(fallback)) {
        PyErr_Format(PyExc_TypeError, "%s: the fallback must be callable", Py_TYPE(h)->tp_name);
        return -1;
    }
    h->fallback = Py_NewRef(fallback);
    h->name = PyObject_GetAttrString(fallback, "__name__");
    if (h->name == NULL) {
        PyErr_Clear();
        h->name = PyUnicode_FromString(default_name);
        if (h->name == NULL) {
            return -1;
        }
    }
    h->vectorcall = vectorcall;
    return 0;
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
