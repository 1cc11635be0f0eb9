/* What NativeUfunc, NativeFunction and NativeMatmul share: each is a C callable bound in place of a
 * Python function, which it keeps as its fallback for every call its C path does not take.
 * The fallback also gives it its name, `__doc__`, `__signature__`, `__annotations__` and
 * `__wrapped__` (so help(), inspect.signature and typing.get_type_hints describe the Python
 * function), and it binds as a method when
 * it is a class attribute (Array's operators), without a bound-method object on the fast
 * calls (Py_TPFLAGS_METHOD_DESCRIPTOR). Like a Python function it pickles by reference, as
 * `__module__`.`__qualname__`, and copies to itself: the package sets those two to the public
 * name (stridedarray/_bind.py, docs/reliability.md), so a namespace function travels to
 * worker processes (multiprocessing, Dask). Each type's struct begins with a NativeHead
 * and its PyTypeObject with SA_NATIVE_SLOTS (arraytype.h). */
#include "arraytype.h"

#include <string.h>

/* obj.attr when it is a str, else `otherwise` as a str (NULL: a NULL result with no
 * exception set); NULL with an exception on a memory error. */
static PyObject *
native_str_attr(PyObject *obj, const char *attr, const char *otherwise)
{
    PyObject *v = PyObject_GetAttrString(obj, attr);
    if (v != NULL && PyUnicode_Check(v)) {
        return v;
    }
    Py_XDECREF(v);
    if (v == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return NULL;
        }
        PyErr_Clear();
    }
    return otherwise == NULL ? NULL : PyUnicode_FromString(otherwise);
}

PyObject *
sa_native_new(PyTypeObject *type, PyObject *fallback, const char *default_name,
                vectorcallfunc vectorcall)
{
    if (!PyCallable_Check(fallback)) {
        PyErr_Format(PyExc_TypeError, "%s: the fallback must be callable", type->tp_name);
        return NULL;
    }
    NativeHead *h = PyObject_GC_New(NativeHead, type); /* type->tp_basicsize bytes */
    if (h == NULL) {
        return NULL;
    }
    /* The type's own fields after the head start zeroed (NULL references). */
    memset((char *)h + sizeof(NativeHead), 0, (size_t)type->tp_basicsize - sizeof(NativeHead));
    h->fallback = Py_NewRef(fallback);
    h->vectorcall = vectorcall;
    h->name = NULL;
    h->module = NULL;
    h->qualname = NULL;
    h->name = native_str_attr(fallback, "__name__", default_name);
    if (h->name == NULL) {
        goto fail;
    }
    h->module = native_str_attr(fallback, "__module__", "stridedarray");
    if (h->module == NULL) {
        goto fail;
    }
    h->qualname = native_str_attr(fallback, "__qualname__", NULL);
    if (h->qualname == NULL) {
        if (PyErr_Occurred()) {
            goto fail;
        }
        h->qualname = Py_NewRef(h->name);
    }
    return (PyObject *)h;
fail:
    sa_native_clear_head(h);
    PyObject_GC_Del(h);
    return NULL;
}

PyObject *
sa_native_call_fallback(PyObject *self, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames)
{
    return PyObject_Vectorcall(((NativeHead *)self)->fallback, args, nargsf, kwnames);
}

/* Named as a function written in C is: <built-in function stridedarray.add>, so a log or an
 * error message that prints one says which function it is. */
PyObject *
sa_native_repr(PyObject *self)
{
    NativeHead *h = (NativeHead *)self;
    return PyUnicode_FromFormat("<built-in function %U.%U>", h->module, h->qualname);
}

PyObject *
sa_native_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

int
sa_native_traverse(PyObject *self, visitproc visit, void *arg)
{
    NativeHead *h = (NativeHead *)self;
    Py_VISIT(h->fallback);
    Py_VISIT(h->name);
    Py_VISIT(h->module);
    Py_VISIT(h->qualname);
    return 0;
}

void
sa_native_clear_head(NativeHead *h)
{
    Py_CLEAR(h->fallback);
    Py_CLEAR(h->name);
    Py_CLEAR(h->module);
    Py_CLEAR(h->qualname);
}

void
sa_native_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    sa_native_clear_head((NativeHead *)self);
    PyObject_GC_Del(self);
}

static PyObject *
native_get_doc(PyObject *self, void *closure)
{
    return PyObject_GetAttrString(((NativeHead *)self)->fallback, "__doc__");
}

/* The fallback's annotations, so typing.get_type_hints reads them as a function's (it refuses
 * an object without `__annotations__`; einx asks it for the return type of `asarray`). It
 * evaluates them in the fallback's module globals, found through `__wrapped__`, where
 * stridedarray/_pickle.py's publish makes `Array` resolve. */
static PyObject *
native_get_annotations(PyObject *self, void *closure)
{
    return PyObject_GetAttrString(((NativeHead *)self)->fallback, "__annotations__");
}

/* The fallback's signature, so inspect.signature reads it without following __wrapped__;
 * None (inspect's "no signature") when the fallback has none it can read. */
static PyObject *
native_get_signature(PyObject *self, void *closure)
{
    PyObject *inspect = PyImport_ImportModule("inspect");
    if (inspect == NULL) {
        return NULL;
    }
    PyObject *sig =
        PyObject_CallMethod(inspect, "signature", "O", ((NativeHead *)self)->fallback);
    Py_DECREF(inspect);
    if (sig == NULL && (PyErr_ExceptionMatches(PyExc_ValueError)
                        || PyErr_ExceptionMatches(PyExc_TypeError))) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return sig;
}

/* `__module__` and `__qualname__`: the name pickle and copy resolve, settable to a str (the
 * package sets the public one, stridedarray/_bind.py). The offset of the field is the
 * closure. */
static PyObject *
native_get_str(PyObject *self, void *closure)
{
    return Py_NewRef(*(PyObject **)((char *)self + (size_t)closure));
}

static int
native_set_str(PyObject *self, PyObject *value, void *closure)
{
    if (value == NULL || !PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be set to a str, not %.80s",
                     closure == (void *)offsetof(NativeHead, module) ? "__module__"
                                                                         : "__qualname__",
                     value == NULL ? "deleted" : Py_TYPE(value)->tp_name);
        return -1;
    }
    Py_SETREF(*(PyObject **)((char *)self + (size_t)closure), Py_NewRef(value));
    return 0;
}

/* Pickled by reference, as a function is: the name that `__module__` resolves to this object
 * (pickle checks it does, and raises PicklingError otherwise). copy.copy and copy.deepcopy
 * return the object itself for such a name. */
static PyObject *
native_reduce(PyObject *self, PyObject *unused)
{
    return Py_NewRef(((NativeHead *)self)->qualname);
}

PyMemberDef sa_native_members[] = {
    {"__name__", T_OBJECT, offsetof(NativeHead, name), READONLY},
    {"__wrapped__", T_OBJECT, offsetof(NativeHead, fallback), READONLY},
    {NULL},
};

PyGetSetDef sa_native_getset[] = {
    {"__doc__", native_get_doc, NULL, NULL, NULL},
    {"__signature__", native_get_signature, NULL, NULL, NULL},
    {"__annotations__", native_get_annotations, NULL, NULL, NULL},
    {"__module__", native_get_str, native_set_str, NULL,
     (void *)offsetof(NativeHead, module)},
    {"__qualname__", native_get_str, native_set_str, NULL,
     (void *)offsetof(NativeHead, qualname)},
    {NULL},
};

PyMethodDef sa_native_methods[] = {
    {"__reduce__", native_reduce, METH_NOARGS, NULL},
    {NULL},
};

/* ---------------------------------------------------------------------------------------- */
/* NativeFunction: a namespace function with a C body for its common call (creation.c, reshape.c,
 * indexing.c).
 * A body returns 1 with *out set, 0 to hand the call to the Python function, -1 with an
 * exception. */

typedef int (*function_body)(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                             PyObject **out);

/* The namespace functions implemented in C: the name of each (the `kind` that _creation.py and
 * _manipulation.py pass to NativeFunction(fallback, kind)) and its C implementation, which the
 * NativeFunction installed in the namespace calls before its Python function. */
static const struct {
    const char *kind;
    function_body body;
} function_kinds[] = {
    {"asarray", sa_namespace_asarray},
    {"zeros", sa_namespace_zeros},
    {"ones", sa_namespace_ones},
    {"empty", sa_namespace_empty},
    {"full", sa_namespace_full},
    {"arange", sa_namespace_arange},
    {"reshape", sa_namespace_reshape},
    {"flip", sa_namespace_flip},
    {"permute_dims", sa_namespace_permute_dims},
};

typedef struct {
    NativeHead head;
    function_body body;
} NativeFunctionObject;

static PyObject *
function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *out = NULL;
    int r = ((NativeFunctionObject *)self)->body(args, PyVectorcall_NARGS(nargsf), kwnames, &out);
    if (r != 0) {
        return r > 0 ? out : NULL;
    }
    return sa_native_call_fallback(self, args, nargsf, kwnames);
}

static PyObject *
function_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fallback", "kind", NULL};
    PyObject *fallback;
    const char *kind;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Os:NativeFunction", kwlist, &fallback, &kind)) {
        return NULL;
    }
    function_body body = NULL;
    for (size_t k = 0; k < sizeof(function_kinds) / sizeof(function_kinds[0]); k++) {
        if (strcmp(kind, function_kinds[k].kind) == 0) {
            body = function_kinds[k].body;
        }
    }
    if (body == NULL) {
        /* `kind` as parsed: it may have come by keyword, and then `args` holds one item. */
        PyErr_Format(PyExc_ValueError, "NativeFunction: no C body for '%.40s'", kind);
        return NULL;
    }
    NativeFunctionObject *fp =
        (NativeFunctionObject *)sa_native_new(type, fallback, kind, function_vectorcall);
    if (fp == NULL) {
        return NULL;
    }
    fp->body = body;
    PyObject_GC_Track(fp);
    return (PyObject *)fp;
}

PyTypeObject sa_NativeFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype.NativeFunction",
    SA_NATIVE_SLOTS(NativeFunctionObject),
    .tp_new = function_new,
    .tp_dealloc = sa_native_dealloc,
    .tp_traverse = sa_native_traverse,
};
