/* stridedarray._arraytype: the array's descriptor as a C type (docs/array.md, "The array type").
 *
 * `ArrayBase` holds storage, dtype, shape, signed element strides and origin, validated once by
 * the one constructor, sa_make, and immutable after it: no member can be assigned from Python,
 * so no path (a pickle's BUILD state included) can move a descriptor outside its buffer.
 * `stridedarray.Array` derives from it and adds only Python methods. The type also caches the
 * NumPy view and the C core's `sa_array` descriptor, both built here from the checked fields.
 * The storage type is in storage.c, the constructor in construct.c; this file holds the type's
 * members and the module.
 *
 * Where each rule lives. Each rule has one implementation, here in C; the Python function of
 * the same name takes only what C declines and words the errors C leaves to it:
 * - basic indexing (views and their errors): indexing.c, basic_view (x[key], and
 *   `_basic_view` for stridedarray/_api/getitem.py, which only turns NumPy integers and 0-d integer
 *   arrays into ints); advanced keys go to NumPy from _getitem.py; writing is _setitem.py;
 * - flip and permute_dims views: indexing.c, sa_namespace_flip / sa_namespace_permute_dims;
 * - reshape's view strides: reshape.c, sa_reshape_strides (`_reshape_strides` for Python);
 * - matmul's output shape: matmul.c, mm_shape (`_matmul_shape`; _matmul.py words its codes);
 * - asarray, of an ndarray or of nested lists of Python scalars: creation.c;
 * - the descriptor's integers: construct.c (sa_make; `_descriptor_ints` for unpickling);
 * - which operand pairs the operators take: operators.c; the Python path's conversion of a
 *   pair (every other one): stridedarray/_api/_common.py, operands;
 * - wrapping a NumPy result: wrap.c, sa_wrap_result (its fallback: _base.construct._wrap_py);
 * - an array over an ndarray's memory without a copy (whole, or a window of it): construct.c,
 *   sa_make_strided (`_window` for _array._from_ndarray, which copies what it declines);
 * - an element as a Python scalar (float(), int(), item()): scalar.c;
 * - an array as a DLPack tensor and a DLPack tensor as an array: dlpack.c (`_dlpack` for
 *   _array/dlpack.py's __dlpack__, `_from_exchange` for from_dlpack, and the C exchange table).
 *
 * What the type needs from Python (the array class, the dtypes, the Python paths C falls back
 * to, the quiet floating-point state, the matmul policy, the cffi core) comes in one call,
 * `_connect(table)`, made once by stridedarray/_array/handover.py, which builds the table; mod_connect
 * below lists the entries and where each goes. The cffi core (stridedarray._core) is reached
 * only through that table's `core` entry.
 *
 * One interpreter. The module uses single-phase initialisation (m_size -1) and keeps its
 * state in process-wide statics: static types, the registered class and dtypes, the hand-over's
 * objects. That is deliberate: NumPy, whose C API every file here calls, does not support
 * subinterpreters either (it warns when imported into one), and the cffi core's state (the
 * BLAS threads, the fork guard) is process-wide too, so per-interpreter module state would buy
 * nothing and cost a module-state lookup on every operator call. A subinterpreter with its own
 * GIL therefore refuses to import the module (CPython's rule for single-phase modules); one
 * sharing the main GIL would share this state, and is not supported either.
 *
 * Shared state and threads (docs/array.md, "Free-threaded CPython"). Nothing below relies on
 * the GIL for its soundness, so that the module could declare it does not need it
 * (PyUnstable_Module_SetGIL(m, Py_MOD_GIL_NOT_USED) in PyInit, this being single-phase init)
 * once that can be tested; until then it declares nothing, and a free-threaded CPython
 * enables the GIL when it imports it. The process-wide state of these files:
 * - Set by the hand-over (_connect) while stridedarray is imported, before any other thread
 *   can reach the type (the import lock holds them until the package's import ends):
 *   sa_array_class and the freelist's `reusable`, sa_dtypes, sa_descrs and sa_code_of_type,
 *   cffi_cast and cffi_ctype, wrap.c's wrap_fallback, indexing.c's getitem fallback, fpe.c's
 *   sa_fpe_var, sa_fpe_quiet, sa_fpe_learn, sa_fpe_contexts and sa_fpe_cache_contexts (the
 *   pointers; the dicts lock themselves), matmul.c's run_matmul, policy_var, policy_addr and
 *   raise_error. _connect succeeds once per process and refuses every later call before
 *   reading anything (mod_connect).
 * - Published once, by compare-and-swap without the GIL (arraytype.h, SA_LAZY_CAS):
 *   operators.c's out_kwnames, and each array's lazily built fields.
 * - Under a lock without the GIL: matmul.c's policy cache (cached_policy, cached_struct), and
 *   bufcache.c's list of kept blocks (a pthread mutex; its handler pointers are set once, when
 *   the module is initialised).
 * - Atomic: elide.c's counter of elided operations.
 * - Off without the GIL: freelist.c's free list and its count (FREELIST_MAX is 0 there).
 * - Static types and method tables: made ready in PyInit, read-only after.
 */
#define SA_ARRAYTYPE_MAIN
#include "arraytype.h"


PyTypeObject *sa_array_class = NULL;
PyObject *sa_dtypes[SA_NDTYPES];
PyArray_Descr *sa_descrs[SA_NDTYPES];
/* The lowest code whose NumPy dtype has each built-in type number (int64 and long long are
 * two numbers of one size: only the registered one maps), -1 for the others. */
signed char sa_code_of_type[NPY_NTYPES_LEGACY];
static PyObject *cffi_cast = NULL;      /* ffi.cast */
static PyObject *cffi_ctype = NULL;     /* ffi.typeof("sa_array *") */

/* ---------------------------------------------------------------------------------------- */
/* ArrayBase                                                                                */

static int
array_traverse(ArrayObject *a, visitproc visit, void *arg)
{
    Py_VISIT(a->buf);
    Py_VISIT(a->storage);
    Py_VISIT(a->dtype);
    Py_VISIT(a->npv);
    Py_VISIT(a->cd);
    return 0;
}

static int
array_clear(ArrayObject *a)
{
    /* Only the caches: the descriptor stays whole until the object is freed (a cleared
     * storage would leave a descriptor that points nowhere). */
    Py_CLEAR(a->npv);
    Py_CLEAR(a->cd);
    return 0;
}

static void
array_dealloc(ArrayObject *a)
{
    PyObject_GC_UnTrack(a);
    if (a->weaklist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)a);
    }
    Py_CLEAR(a->buf);
    Py_CLEAR(a->storage);
    Py_CLEAR(a->dtype);
    Py_CLEAR(a->shape);
    Py_CLEAR(a->strides);
    Py_CLEAR(a->origin);
    Py_CLEAR(a->npv);
    Py_CLEAR(a->cd);
    if (a->cdesc != NULL) {
        PyMem_Free(a->cdesc);
        a->cdesc = NULL;
    }
    if (a->cshape != NULL && a->cshape != a->inl) {
        PyMem_Free(a->cshape);
    }
    a->cshape = a->cstrides = NULL;
    if (!sa_freelist_keep(a)) {
        Py_TYPE(a)->tp_free((PyObject *)a);
    }
}

/* The ValueError of a descriptor NumPy and the C core cannot hold: _base.descriptor.check_size's. */
static void
raise_too_large(ArrayObject *a)
{
    PyObject *mod = PyImport_ImportModule("stridedarray._base.descriptor");
    if (mod == NULL) {
        return;
    }
    PyObject *shape = sa_array_shape(a);
    PyObject *its = shape ? PyLong_FromLong((long)sa_descrs[a->code]->elsize) : NULL;
    PyObject *r = its ? PyObject_CallMethod(mod, "check_size", "OO", shape, its) : NULL;
    Py_XDECREF(its);
    Py_DECREF(mod);
    if (r != NULL) {
        Py_DECREF(r);
        PyErr_Format(PyExc_ValueError, "shape %R is too large for an array", shape);
    }
}

int
sa_array_readonly(const ArrayObject *a)
{
    return (a->flags & SA_F_ALIASED) || !PyArray_ISWRITEABLE((PyArrayObject *)a->buf);
}

PyObject *
sa_array_np(ArrayObject *a)
{
    PyObject *known = SA_LAZY_LOAD(a->npv);
    if (known != NULL) {
        return Py_NewRef(known);
    }
    if (a->flags & SA_F_HUGE) {
        raise_too_large(a);
        return NULL;
    }
    PyArrayObject *base = (PyArrayObject *)a->buf;
    /* The element type is the array's registered dtype, not the storage's live one: whoever
     * holds the storage ndarray (x.buffer) can assign its .dtype, and a view of another item
     * size would reach beyond the memory (docs/reliability.md). Its data pointer cannot be
     * assigned; nd <= SA_MAXDIM (the constructor's check). */
    PyArray_Descr *descr = sa_descrs[a->code];
    npy_intp dims[SA_MAXDIM], bstrides[SA_MAXDIM];
    npy_intp its = PyDataType_ELSIZE(descr);
    for (int k = 0; k < a->nd; k++) {
        dims[k] = (npy_intp)a->cshape[k];
        /* |stride| <= nbuf on every multiplied axis: the byte stride fits. */
        bstrides[k] = (a->cshape[k] > 1 && !(a->flags & SA_F_EMPTY)) ? a->cstrides[k] * its : 0;
    }
    Py_INCREF(descr);
    PyObject *v = PyArray_NewFromDescr(
        &PyArray_Type, descr, a->nd, dims, bstrides, PyArray_BYTES(base) + a->corigin * its,
        sa_array_readonly(a) ? 0 : NPY_ARRAY_WRITEABLE, NULL);
    if (v == NULL) {
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)v, Py_NewRef((PyObject *)base)) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    /* another thread may have made one meanwhile: theirs is kept (sa_lazy_publish) */
    return Py_NewRef(sa_lazy_publish(&a->npv, v));
}

static PyObject *
array_get_np(ArrayObject *a, void *closure)
{
    return sa_array_np(a);
}

static PyObject *
array_get_storage(ArrayObject *a, void *closure)
{
    return Py_XNewRef(sa_array_storage(a));
}

static PyObject *
array_get_shape(ArrayObject *a, void *closure)
{
    return Py_XNewRef(sa_array_shape(a));
}

static PyObject *
array_get_strides(ArrayObject *a, void *closure)
{
    return Py_XNewRef(sa_array_strides(a));
}

static PyObject *
array_get_origin(ArrayObject *a, void *closure)
{
    return Py_XNewRef(sa_array_origin(a));
}

static PyObject *
array_get_npv(ArrayObject *a, void *closure)
{
    PyObject *v = SA_LAZY_LOAD(a->npv);
    return Py_NewRef(v != NULL ? v : Py_None);
}

static PyObject *
array_get_readonly(ArrayObject *a, void *closure)
{
    return PyBool_FromLong(sa_array_readonly(a));
}

static PyObject *
array_get_ndim(ArrayObject *a, void *closure)
{
    return PyLong_FromLong(a->nd);
}

/* The C core's descriptor of `a`, in memory it owns (made once); NULL with an exception. */
sa_array *
sa_array_cdesc(ArrayObject *a)
{
    if (a->flags & SA_F_HUGE) {
        raise_too_large(a);
        return NULL;
    }
    sa_array *d = SA_LAZY_LOAD(a->cdesc);
    if (d == NULL) {
        d = PyMem_Calloc(1, sizeof(sa_array));
        if (d == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        d->data = PyArray_BYTES((PyArrayObject *)a->buf);
        d->nbuf = a->nbuf;
        d->origin = a->corigin;
        d->ndim = a->nd;
        d->dtype = a->code;
        for (int k = 0; k < a->nd; k++) {
            d->shape[k] = a->cshape[k];
            d->strides[k] = a->cstrides[k];
        }
        /* published once, like the lazy objects (arraytype.h): a loser frees its copy */
        sa_array *seen = NULL;
        if (!SA_LAZY_CAS(a->cdesc, &seen, d)) {
            PyMem_Free(d);
            d = seen;
        }
    }
    return d;
}

/* The C core's descriptor, as a cffi `sa_array *` into memory this array owns. */
static PyObject *
array_get_c(ArrayObject *a, void *closure)
{
    PyObject *known = SA_LAZY_LOAD(a->cd);
    if (known != NULL) {
        return Py_NewRef(known);
    }
    if (cffi_cast == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "stridedarray._arraytype: the cffi core was not handed over");
        return NULL;
    }
    sa_array *d = sa_array_cdesc(a);
    if (d == NULL) {
        return NULL;
    }
    PyObject *addr = PyLong_FromVoidPtr(d);
    if (addr == NULL) {
        return NULL;
    }
    PyObject *p = PyObject_CallFunctionObjArgs(cffi_cast, cffi_ctype, addr, NULL);
    Py_DECREF(addr);
    if (p == NULL) {
        return NULL;
    }
    return Py_NewRef(sa_lazy_publish(&a->cd, p));
}

static PyObject *
array_view(ArrayObject *a, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "_view(shape, strides, origin) takes 3 arguments");
        return NULL;
    }
    PyObject *st = sa_array_storage(a);
    return st == NULL ? NULL : sa_make(st, a->dtype, args[0], args[1], args[2], NULL);
}

static PyMemberDef array_members[] = {
    {"_dtype", T_OBJECT_EX, offsetof(ArrayObject, dtype), READONLY, "The dtype (read-only)."},
    {NULL},
};

static PyGetSetDef array_getset[] = {
    {"_st", (getter)array_get_storage, NULL, "The storage (read-only).", NULL},
    {"_shape", (getter)array_get_shape, NULL, "The shape (read-only).", NULL},
    {"_strides", (getter)array_get_strides, NULL, "The element strides (read-only).", NULL},
    {"_origin", (getter)array_get_origin, NULL, "The origin (read-only).", NULL},
    {"_np", (getter)array_get_np, NULL, "The zero-copy NumPy view (made once, then cached).",
     NULL},
    {"_npv", (getter)array_get_npv, NULL, "The cached NumPy view, or None.", NULL},
    {"_c", (getter)array_get_c, NULL, "The C core's descriptor (a cffi `sa_array *`).", NULL},
    {"readonly", (getter)array_get_readonly, NULL,
     "True when writes are refused (read-only storage, or a view that repeats elements).\n"
     "\n"
     "The storage is read-only for a view of `bytes` or of a read-only ndarray. A view\n"
     "repeats elements when an axis of extent > 1 has stride 0, as `broadcast_to` makes:\n"
     "one write would land on the same element several times, so it is refused (NumPy's\n"
     "broadcast views are read-only too).\n"
     "\n"
     "Examples\n"
     "--------\n"
     ">>> import numpy as np\n"
     ">>> import stridedarray as sa\n"
     ">>> frozen = np.zeros(3)\n"
     ">>> frozen.flags.writeable = False\n"
     ">>> sa.asarray(frozen).readonly, sa.zeros(3).readonly\n"
     "(True, False)\n"
     ">>> sa.broadcast_to(sa.zeros(3), (2, 3)).readonly\n"
     "True\n", NULL},
    {"ndim", (getter)array_get_ndim, NULL, "Number of axes.", NULL},
    {"mT", sa_array_get_mT, NULL, "Transpose of the last two axes (a view).", NULL},
    {"T", sa_array_get_T, NULL, "Transpose of a 2-D array (a view).", NULL},
    {NULL},
};

static PyMethodDef array_methods[] = {
    {"_view", (PyCFunction)(void (*)(void))array_view, METH_FASTCALL,
     "_view(shape, strides, origin): a bounds-checked descriptor over the same storage."},
    /* METH_COEXIST: this method, with its docstring, stands in the class dict in place of
     * the tp_iter slot's wrapper; iter() still calls tp_iter directly. */
    {"__iter__", (PyCFunction)sa_array_iter_method, METH_NOARGS | METH_COEXIST,
     "__iter__($self, /)\n--\n\n"
     "Iterate over the first axis (TypeError for a 0-d array).\n"
     "\n"
     "The items of an array of 2 or more dimensions are views, x[0], x[1], ...; those of\n"
     "a 1-D array are read-only 0-d copies of its elements, which hash as their values\n"
     "(set(x), dict.fromkeys(x), pandas' isin(x) work as with NumPy).\n"
     "\n"
     "Examples\n"
     "--------\n"
     ">>> import stridedarray as sa\n"
     ">>> x = sa.reshape(sa.arange(6), (3, 2))\n"
     ">>> [row.tolist() for row in x]\n"
     "[[0, 1], [2, 3], [4, 5]]\n"
     ">>> sorted(set(sa.asarray([2, 1, 2])))\n"
     "[Array(1, dtype=int64, shape=()), Array(2, dtype=int64, shape=())]\n"},
    /* The element as a Python scalar (scalar.c); METH_COEXIST as __iter__ above, beside the
     * nb_float, nb_int and nb_index slots. */
    {"__float__", sa_array_float_method, METH_NOARGS | METH_COEXIST,
     "__float__($self, /)\n--\n\nA 0-d real array as a Python float."},
    {"__int__", sa_array_int_method, METH_NOARGS | METH_COEXIST,
     "__int__($self, /)\n--\n\n"
     "A 0-d real array as a Python int (inf -> OverflowError, NaN -> ValueError)."},
    {"__index__", sa_array_index_method, METH_NOARGS | METH_COEXIST,
     "__index__($self, /)\n--\n\nA 0-d integer array as a Python int (for use as an index)."},
    {"__complex__", sa_array_complex, METH_NOARGS,
     "__complex__($self, /)\n--\n\nA 0-d array as a Python complex."},
    {"item", (PyCFunction)(void (*)(void))sa_array_item, METH_FASTCALL | METH_KEYWORDS,
     "item($self, /, *args)\n--\n\n"
     "NumPy's ndarray.item: an element as a Python bool, int, float or complex.\n"
     "\n"
     "Parameters\n"
     "----------\n"
     "*args\n"
     "    None: the element of an array of one element (read in C, without the NumPy\n"
     "    view). A flat index or one index per axis: that element, as\n"
     "    ``numpy.ndarray.item`` gives it from the zero-copy view.\n"
     "\n"
     "Returns\n"
     "-------\n"
     "bool or int or float or complex\n"
     "    The element, of the Python type of the dtype's kind.\n"
     "\n"
     "Raises\n"
     "------\n"
     "ValueError\n"
     "    No argument and an array whose size is not 1 (NumPy's message).\n"
     "\n"
     "See Also\n"
     "--------\n"
     "numpy.ndarray.item\n"
     "\n"
     "Examples\n"
     "--------\n"
     ">>> import stridedarray as sa\n"
     ">>> sa.asarray([[2.5]]).item(), sa.arange(6).item(4)\n"
     "(2.5, 4)\n"},
    {NULL},
};

static PyMappingMethods array_as_mapping = {
    .mp_subscript = sa_array_subscript,
};

/* sq_item: C code that asks "is it a sequence?" (PySequence_Check: pandas, NumPy) sees an
 * array as one, as it did when __getitem__ was a Python method. */
static PyObject *
array_sq_item(PyObject *self, Py_ssize_t i)
{
    PyObject *key = PyLong_FromSsize_t(i);
    if (key == NULL) {
        return NULL;
    }
    PyObject *r = sa_array_subscript(self, key);
    Py_DECREF(key);
    return r;
}

static PyNumberMethods array_as_number = {
    .nb_int = sa_array_int,
    .nb_float = sa_array_float,
    .nb_index = sa_array_index,
};

static PySequenceMethods array_as_sequence = {
    .sq_item = array_sq_item,
};

PyTypeObject sa_ArrayBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype.ArrayBase",
    .tp_doc = "The array's descriptor: storage, dtype, shape, strides, origin (immutable).",
    .tp_basicsize = sizeof(ArrayObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_dealloc = (destructor)array_dealloc,
    .tp_traverse = (traverseproc)array_traverse,
    .tp_clear = (inquiry)array_clear,
    .tp_members = array_members,
    .tp_getset = array_getset,
    .tp_methods = array_methods,
    .tp_weaklistoffset = offsetof(ArrayObject, weaklist),
    .tp_as_buffer = &sa_array_as_buffer,
    .tp_as_mapping = &array_as_mapping,
    .tp_as_sequence = &array_as_sequence,
    .tp_as_number = &array_as_number,
    .tp_iter = sa_array_iter,
    .tp_hash = sa_array_hash,
};

/* ---------------------------------------------------------------------------------------- */
/* Module functions                                                                         */

static PyObject *
mod_make(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 && nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "_make(storage, dtype, shape, strides, origin[, npv]) takes 5 or 6 "
                        "arguments");
        return NULL;
    }
    return sa_make(args[0], args[1], args[2], args[3], args[4], nargs == 6 ? args[5] : NULL);
}

/* The (arr, dtype) arguments of _make_c and _window (`func`): dtype's code, or -1 with a
 * TypeError unless dtype is one of ours and arr an ndarray of it. */
static int
array_and_code(PyObject *const *args, Py_ssize_t nargs, const char *func)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(arr, dtype) takes 2 arguments", func);
        return -1;
    }
    int code = sa_dtype_code(args[1]);
    if (code < 0) {
        PyErr_Format(PyExc_TypeError, "dtype must be a stridedarray dtype, got %R", args[1]);
        return -1;
    }
    if (!PyArray_Check(args[0])
        || !PyArray_EquivTypes(PyArray_DESCR((PyArrayObject *)args[0]), sa_descrs[code])) {
        PyErr_Format(PyExc_TypeError, "%s: arr must be an ndarray of dtype %R", func, args[1]);
        return -1;
    }
    return code;
}

static PyObject *
mod_make_c(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    int code = array_and_code(args, nargs, "_make_c");
    return code < 0 ? NULL : sa_make_c(args[0], code);
}

/* `_window(arr, dtype)`: _array._from_ndarray's view of an ndarray, by sa_make_strided's rule
 * (the one _wrap follows); None where the memory cannot be viewed (misaligned, byte-swapped,
 * or a stride that is not a multiple of the item size), which the caller copies or refuses. */
static PyObject *
mod_window(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    int code = array_and_code(args, nargs, "_window");
    if (code < 0) {
        return NULL;
    }
    PyArrayObject *v = (PyArrayObject *)args[0];
    if (!PyArray_ISALIGNED(v) || !PyArray_ISNBO(PyArray_DESCR(v)->byteorder)) {
        Py_RETURN_NONE;
    }
    PyObject *r = sa_make_strided(args[0], code);
    if (r == NULL && !PyErr_Occurred()) {
        Py_RETURN_NONE;
    }
    return r;
}

/* ---------------------------------------------------------------------------------------- */
/* The hand-over                                                                            */

/* The NumPy type of each dtype code (csrc/core/api/array.h's sa_dtype, _dtypes.DTYPES' order): the
 * C core and every file here size and read elements by code, so the table's dtypes must be
 * exactly these, in this order. */
static const int expected_type[SA_NDTYPES] = {
    NPY_BOOL,   NPY_INT8,   NPY_INT16,   NPY_INT32,     NPY_INT64,      NPY_UINT8, NPY_UINT16,
    NPY_UINT32, NPY_UINT64, NPY_FLOAT32, NPY_FLOAT64,   NPY_COMPLEX64,  NPY_COMPLEX128,
};

/* Everything the hand-over installs, held by this call's own references until it is. */
typedef struct {
    PyObject *v[7];                   /* the table's values, by connect_keys */
    PyObject *dtypes;                 /* a tuple: the dtypes entry, copied once */
    PyArray_Descr *descrs[SA_NDTYPES];
    PyObject *contexts;               /* fpe.c's dicts of prepared contexts: plain, */
    PyObject *cache_contexts;         /* and with the result-buffer cache's handler */
    PyObject *cast, *ctype, *run;     /* take_core's */
    void *run_ptr;
} handover;

static void
handover_clear(handover *h)
{
    for (size_t k = 0; k < sizeof(h->v) / sizeof(h->v[0]); k++) {
        Py_CLEAR(h->v[k]);
    }
    Py_CLEAR(h->dtypes);
    for (int k = 0; k < SA_NDTYPES; k++) {
        Py_CLEAR(h->descrs[k]);
    }
    Py_CLEAR(h->contexts);
    Py_CLEAR(h->cache_contexts);
    Py_CLEAR(h->cast);
    Py_CLEAR(h->ctype);
    Py_CLEAR(h->run);
}

static int
check_array_class(PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &sa_ArrayBaseType)) {
        PyErr_SetString(PyExc_TypeError, "the array class must derive from ArrayBase");
        return -1;
    }
    if (((PyTypeObject *)cls)->tp_basicsize != sa_ArrayBaseType.tp_basicsize) {
        PyErr_SetString(PyExc_TypeError, "the array class must add no slots to ArrayBase");
        return -1;
    }
    return 0;
}

/* The dtypes entry as a tuple of 13 distinct objects whose `np` is, in order, each code's
 * NumPy dtype in native byte order (h->dtypes, h->descrs). Python code runs here (the
 * sequence's iteration, each `np`): it sees only the tuple, which nothing else holds. */
static int
check_dtypes(handover *h, PyObject *seq)
{
    h->dtypes = PySequence_Tuple(seq);
    if (h->dtypes == NULL) {
        return -1;
    }
    if (PyTuple_GET_SIZE(h->dtypes) != SA_NDTYPES) {
        PyErr_Format(PyExc_ValueError, "expected %d dtypes", SA_NDTYPES);
        return -1;
    }
    for (int k = 0; k < SA_NDTYPES; k++) {
        PyObject *dt = PyTuple_GET_ITEM(h->dtypes, k);
        for (int j = 0; j < k; j++) {
            if (PyTuple_GET_ITEM(h->dtypes, j) == dt) {
                PyErr_Format(PyExc_ValueError, "dtypes[%d] is dtypes[%d]: each code needs its "
                             "own dtype", k, j);
                return -1;
            }
        }
        PyObject *np = PyObject_GetAttrString(dt, "np");
        if (np == NULL) {
            return -1;
        }
        int ok = PyArray_DescrConverter(np, &h->descrs[k]);
        Py_DECREF(np);
        if (!ok) {
            return -1;
        }
        PyArray_Descr *want = PyArray_DescrFromType(expected_type[k]);
        if (want == NULL) {
            return -1;
        }
        ok = PyArray_EquivTypes(h->descrs[k], want) && PyArray_ISNBO(h->descrs[k]->byteorder);
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "dtypes[%d] must be NumPy's %S in native byte order "
                         "(csrc/core/api/array.h's order), got %S", k, (PyObject *)want,
                         (PyObject *)h->descrs[k]);
        }
        Py_DECREF(want);
        if (!ok) {
            return -1;
        }
    }
    return 0;
}

/* The cffi core, the one way the array type reaches it: `ffi.cast` and the `sa_array *` ctype
 * for `x._c`, and the address of sa_matmul_run for matmul.c, all taken here once from the
 * module's `ffi` and `lib`. The entry must be the package's own stridedarray._core: C jumps
 * to the address it gives. */
static int
take_core(handover *h, PyObject *core)
{
    /* Looked up, not imported: the package's import loaded it (stridedarray/_matmul/ffi.py) before
     * the hand-over, and the array type imports nothing above the bottom of the package. */
    PyObject *name = PyUnicode_FromString("stridedarray._core");
    PyObject *own = name ? PyImport_GetModule(name) : NULL;
    Py_XDECREF(name);
    if (own == NULL && PyErr_Occurred()) {
        return -1;
    }
    Py_XDECREF(own);  /* sys.modules holds it; only its identity is compared */
    if (own == NULL || core != own) {
        PyErr_SetString(PyExc_TypeError, "_connect(table): core must be the module "
                        "stridedarray._core");
        return -1;
    }
    PyObject *ffi = PyObject_GetAttrString(core, "ffi");
    PyObject *lib = ffi ? PyObject_GetAttrString(core, "lib") : NULL;
    h->cast = lib ? PyObject_GetAttrString(ffi, "cast") : NULL;
    h->ctype = h->cast ? PyObject_CallMethod(ffi, "typeof", "s", "sa_array *") : NULL;
    PyObject *fn = h->ctype ? PyObject_CallMethod(ffi, "addressof", "Os", lib, "sa_matmul_run")
                            : NULL;
    PyObject *uptr = fn ? PyObject_CallFunction(h->cast, "sO", "uintptr_t", fn) : NULL;
    h->run = uptr ? PyNumber_Long(uptr) : NULL;
    Py_XDECREF(ffi);
    Py_XDECREF(lib);
    Py_XDECREF(fn);
    Py_XDECREF(uptr);
    if (h->run == NULL) {
        return -1;
    }
    h->run_ptr = PyLong_AsVoidPtr(h->run);
    if (h->run_ptr == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "_connect: the cffi core gave a NULL entry point");
        }
        return -1;
    }
    return 0;
}

/* The one hand-over from Python (stridedarray/_array/handover.py, called once by the package's
 * __init__ before any array is made): a dict of exactly these entries, each going where the
 * comment says.
 *   array_class  stridedarray.Array, the class C makes arrays of (sa_array_class; freelist.c)
 *   dtypes       the 13 DTypes by code (sa_dtypes, sa_descrs, sa_code_of_type)
 *   wrap         _base.construct._wrap_py, the Python path of wrapping a NumPy result (wrap.c)
 *   getitem      _getitem.getitem, the Python path of `x[key]` (indexing.c)
 *   quiet_state  (ContextVar, quiet states, learn) of _fpe, or None (fpe.c)
 *   matmul       (policy ContextVar, policy -> struct address, _matmul._raise) (matmul.c)
 *   core         the cffi core's module, stridedarray._core (take_core above)
 * The values are kept in process-wide statics (see the top of this file for why this is
 * sound, and why the module is single-phase).
 *
 * What it guarantees (docs/dev/internals.md, "The hand-over from Python to C"): it succeeds once per process, and
 * any later call, or one made while it is under way, is refused before anything is read. The
 * table is checked whole (every entry, each dtype's NumPy type) before anything is installed,
 * so a refused table changes nothing and leaves the hand-over to be made. Every value is held
 * by this call's own reference while Python code can run (a dtypes entry's iteration, its
 * `np` attributes, the core's attributes), so that code cannot free what is installed. The
 * installing itself runs no Python code and cannot fail. */
static const char *const connect_keys[] = {"array_class", "dtypes", "wrap", "getitem",
                                           "quiet_state", "matmul", "core"};
#define N_CONNECT_KEYS (sizeof(connect_keys) / sizeof(connect_keys[0]))

/* 0: not made, 1: under way, 2: made. Claimed by compare-and-swap, so that two threads (or a
 * call from inside the table's Python code) cannot both make it. */
static int connect_state = 0;

static int
check_table(handover *h, PyObject *table)
{
    if (!PyDict_CheckExact(table) || PyDict_GET_SIZE(table) != (Py_ssize_t)N_CONNECT_KEYS) {
        PyErr_Format(PyExc_TypeError, "_connect(table): table must be a dict of the %d entries "
                     "stridedarray/_array/handover.py lists", (int)N_CONNECT_KEYS);
        return -1;
    }
    /* Exact str keys only: looking the entries up then runs no Python code (no __eq__). */
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(table, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            PyErr_SetString(PyExc_TypeError, "_connect(table): the keys must be str");
            return -1;
        }
    }
    for (size_t k = 0; k < N_CONNECT_KEYS; k++) {
        PyObject *got = PyDict_GetItemString(table, connect_keys[k]);
        if (got == NULL) {
            PyErr_Format(PyExc_TypeError, "_connect(table): no entry %s", connect_keys[k]);
            return -1;
        }
        h->v[k] = Py_NewRef(got);  /* ours from here on, whatever happens to the table */
    }
    PyObject *fpe = h->v[4], *mm = h->v[5];
    if ((fpe != Py_None && !(PyTuple_CheckExact(fpe) && PyTuple_GET_SIZE(fpe) == 3))
        || !(PyTuple_CheckExact(mm) && PyTuple_GET_SIZE(mm) == 3)) {
        PyErr_SetString(PyExc_TypeError,
                        "_connect(table): quiet_state must be a 3-tuple or None, matmul a 3-tuple");
        return -1;
    }
    if (fpe != Py_None
        && (!PyContextVar_CheckExact(PyTuple_GET_ITEM(fpe, 0))
            || !PyDict_Check(PyTuple_GET_ITEM(fpe, 1))
            || !PyCallable_Check(PyTuple_GET_ITEM(fpe, 2)))) {
        PyErr_SetString(PyExc_TypeError,
                        "_connect: quiet_state must be (contextvar, quiet_states dict, learn)");
        return -1;
    }
    if (!PyContextVar_CheckExact(PyTuple_GET_ITEM(mm, 0)) || !PyCallable_Check(PyTuple_GET_ITEM(mm, 1))
        || !PyCallable_Check(PyTuple_GET_ITEM(mm, 2))) {
        PyErr_SetString(PyExc_TypeError,
                        "_connect: matmul must be (policy ContextVar, policy_address, raise_)");
        return -1;
    }
    if (!PyCallable_Check(h->v[2]) || !PyCallable_Check(h->v[3])) {
        PyErr_SetString(PyExc_TypeError, "_connect: wrap and getitem must be callable");
        return -1;
    }
    if (check_array_class(h->v[0]) < 0) {
        return -1;
    }
    /* From here on Python code can run; it can reach nothing this call installs. */
    if (check_dtypes(h, h->v[1]) < 0 || take_core(h, h->v[6]) < 0) {
        return -1;
    }
    if (fpe != Py_None && ((h->contexts = PyDict_New()) == NULL
                           || (h->cache_contexts = PyDict_New()) == NULL)) {
        return -1;
    }
    return 0;
}

/* Every value checked: installed, in C only (the statics were all NULL, so no reference is
 * released and no Python code runs). */
static void
install(handover *h)
{
    Py_XSETREF(sa_array_class, (PyTypeObject *)Py_NewRef(h->v[0]));
    sa_freelist_register(sa_array_class);
    for (int k = 0; k < SA_NDTYPES; k++) {
        Py_XSETREF(sa_dtypes[k], Py_NewRef(PyTuple_GET_ITEM(h->dtypes, k)));
        Py_XSETREF(sa_descrs[k], (PyArray_Descr *)Py_NewRef((PyObject *)h->descrs[k]));
    }
    memset(sa_code_of_type, -1, sizeof(sa_code_of_type));
    for (int k = SA_NDTYPES - 1; k >= 0; k--) {
        int t = sa_descrs[k]->type_num;
        if (t >= 0 && t < NPY_NTYPES_LEGACY) {
            sa_code_of_type[t] = (signed char)k;
        }
    }
    sa_set_wrap_fallback(h->v[2]);
    sa_set_getitem_fallback(h->v[3]);
    PyObject *fpe = h->v[4], *mm = h->v[5];
    if (fpe != Py_None) {
        sa_set_fpe(PyTuple_GET_ITEM(fpe, 0), PyTuple_GET_ITEM(fpe, 1), PyTuple_GET_ITEM(fpe, 2),
                   h->contexts, h->cache_contexts);
    }
    Py_XSETREF(cffi_cast, Py_NewRef(h->cast));
    Py_XSETREF(cffi_ctype, Py_NewRef(h->ctype));
    sa_set_matmul(h->run_ptr, PyTuple_GET_ITEM(mm, 0), PyTuple_GET_ITEM(mm, 1),
                  PyTuple_GET_ITEM(mm, 2));
}

static PyObject *
mod_connect(PyObject *mod, PyObject *table)
{
    int seen = 0;
    if (!SA_LAZY_CAS(connect_state, &seen, 1)) {
        PyErr_SetString(PyExc_RuntimeError,
                        seen == 1 ? "_connect: the hand-over is under way; it is made once"
                                  : "_connect: the hand-over was made (importing stridedarray "
                                    "makes it, once per process); a second one is refused");
        return NULL;
    }
    handover h = {0};
    int ok = check_table(&h, table) == 0;
    if (ok) {
        install(&h);
    }
    handover_clear(&h);
    /* a refused table installed nothing: the hand-over is still to be made */
    int done = ok ? 2 : 0;
    int claimed = 1;
    (void)SA_LAZY_CAS(connect_state, &claimed, done);
    if (!ok) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef mod_methods[] = {
    {"_make", (PyCFunction)(void (*)(void))mod_make, METH_FASTCALL,
     "_make(storage, dtype, shape, strides, origin, npv=None): the one validating "
     "constructor."},
    {"_make_c", (PyCFunction)(void (*)(void))mod_make_c, METH_FASTCALL,
     "_make_c(arr, dtype): an array over a whole C-contiguous aligned ndarray."},
    {"_window", (PyCFunction)(void (*)(void))mod_window, METH_FASTCALL,
     "_window(arr, dtype): an array over arr's memory without a copy (whole, or a window of "
     "it), or None where its memory cannot be viewed."},
    {"_wrap", sa_wrap, METH_O,
     "_wrap(result): a NumPy result as an array (fresh C-contiguous ones in C)."},
    {"_elided", sa_elided_count, METH_NOARGS,
     "_elided(): how many operations so far wrote their result into a temporary operand."},
    {"_buffer_cache", (PyCFunction)(void (*)(void))sa_bufcache_info, METH_FASTCALL,
     "_buffer_cache(max_bytes=None): the result-buffer cache's state (held_bytes, blocks, "
     "max_bytes, ...); with max_bytes, set its cap first (0 keeps nothing)."},
    {"_buffer_cache_clear", sa_bufcache_clear, METH_NOARGS,
     "_buffer_cache_clear(): release every block the result-buffer cache holds."},
    {"_elision_available", sa_elision_available, METH_NOARGS,
     "_elision_available(): whether this build can tell a temporary operand (CPython 3.14+)."},
    {"_quiet_call", (PyCFunction)(void (*)(void))sa_quiet_call, METH_FASTCALL | METH_KEYWORDS,
     "_quiet_call(f, *args, **kwargs): a NumPy ufunc (or ufunc method) call under the quiet "
     "floating-point state."},
    {"_dlpack", (PyCFunction)(void (*)(void))sa_dlpack_capsule, METH_FASTCALL,
     "_dlpack(x, versioned, copy): x.__dlpack__()'s capsule (csrc/arraytype/dlpack.c)."},
    {"_from_exchange", (PyCFunction)(void (*)(void))sa_dlpack_from_exchange, METH_FASTCALL,
     "_from_exchange(x, copy): x imported through its type's __dlpack_c_exchange_api__, or "
     "None when the type has none."},
    {"_dlpack_live", sa_dlpack_live, METH_NOARGS,
     "_dlpack_live(): DLPack tensors exported and not yet deleted."},
    {"_connect", mod_connect, METH_O,
     "_connect(table): what the array type needs from Python, handed over once "
     "(stridedarray/_array/handover.py)."},
    {"_basic_view", (PyCFunction)(void (*)(void))sa_basic_view, METH_FASTCALL,
     "_basic_view(x, items): the view of x for a basic key's items (exact ints, slices, None, "
     "Ellipsis), or the key's IndexError."},
    {"_descriptor_ints", (PyCFunction)(void (*)(void))sa_descriptor_ints, METH_FASTCALL,
     "_descriptor_ints(shape, strides, origin): descriptor integers from outside as exact "
     "ints, range-checked."},
    {"_reshape_strides", (PyCFunction)(void (*)(void))sa_reshape_strides_py, METH_FASTCALL,
     "_reshape_strides(x, shape): the strides that view x (non-empty) as `shape` (its size), "
     "or None when there is no view."},
    {"_matmul_shape", (PyCFunction)(void (*)(void))sa_matmul_shape, METH_FASTCALL,
     "_matmul_shape(s1, s2): matmul's output shape, or an int saying why the shapes do not "
     "multiply."},
    {NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "stridedarray._arraytype",
    .m_doc = "The array's descriptor as a C type (docs/array.md).",
    .m_size = -1,
    .m_methods = mod_methods,
};

PyMODINIT_FUNC
PyInit__arraytype(void)
{
    import_array();
    memset(sa_code_of_type, -1, sizeof(sa_code_of_type));  /* until the dtypes are registered */
    if (sa_bufcache_init() < 0) {
        return NULL;
    }
    if (PyType_Ready(&sa_StorageType) < 0 || PyType_Ready(&sa_ArrayBaseType) < 0
        || PyType_Ready(&sa_NativeUfuncType) < 0
        || PyType_Ready(&sa_NativeMatmulType) < 0 || PyType_Ready(&sa_NativeFunctionType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL) {
        return NULL;
    }
    PyObject *exchange = sa_dlpack_init();
    if (PyModule_AddObjectRef(m, "_Storage", (PyObject *)&sa_StorageType) < 0
        || PyModule_AddObjectRef(m, "ArrayBase", (PyObject *)&sa_ArrayBaseType) < 0
        || PyModule_AddObjectRef(m, "NativeUfunc", (PyObject *)&sa_NativeUfuncType) < 0
        || PyModule_AddObjectRef(m, "NativeMatmul", (PyObject *)&sa_NativeMatmulType) < 0
        || PyModule_AddObjectRef(m, "NativeFunction", (PyObject *)&sa_NativeFunctionType) < 0
        || exchange == NULL || PyModule_AddObjectRef(m, "_dlpack_exchange_api", exchange) < 0) {
        Py_XDECREF(exchange);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(exchange);
    return m;
}
