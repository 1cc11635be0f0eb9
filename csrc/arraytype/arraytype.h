/* The array type's private declarations, shared by the files of stridedarray._arraytype
 * (docs/array.md, "The array type"). */
#ifndef SA_ARRAYTYPE_H
#define SA_ARRAYTYPE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h> /* PyMemberDef (in Python.h only from 3.12) */
#include <stdint.h>

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL sa_arraytype_ARRAY_API
#ifndef SA_ARRAYTYPE_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "api/array.h"

/* The storage: a C-contiguous, aligned, native-order NumPy array, one StorageObject shared by
 * an array and every view derived from it. */
typedef struct {
    PyObject_HEAD
    PyObject *arr;        /* the ndarray (strong) */
    Py_ssize_t nbuf;      /* its element count */
    PyObject *weaklist;
} StorageObject;

/* Descriptor flags. */
#define SA_F_ALIASED 1  /* a zero stride on an axis of extent > 1: several indices, one element */
#define SA_F_HUGE 2     /* an extent beyond int64 or more than 2**63-1 bytes: no NumPy view */
#define SA_F_EMPTY 4    /* an extent is 0 */
#define SA_F_INEXACT 8  /* C holds a stride as 0 that is not (no index multiplies it, and it is
                         * beyond what C holds safely): the strides tuple has its value */

#define SA_INLINE_DIMS 4

typedef struct {
    PyObject_HEAD
    /* The storage: its ndarray and element count, held directly. The StorageObject Python
     * sees (`_st`) is made when first asked for or when the array is first viewed (kept when
     * the descriptor came from Python with one), so a C-built array that is never viewed
     * (most results) allocates one object, not two. Views share the parent's. */
    PyObject *buf;        /* the storage's ndarray (strong): checked by storage_check */
    PyObject *storage;    /* its StorageObject, or NULL until `_st` is read */
    Py_ssize_t nbuf;      /* buf's element count */
    PyObject *dtype;      /* the DType object */
    /* The exact Python values: kept when the descriptor came from Python; NULL when it was
     * built in C (made from the C fields when first read: they hold them exactly). */
    PyObject *shape;      /* tuple of exact ints, or NULL */
    PyObject *strides;    /* tuple of exact ints, in elements, or NULL */
    PyObject *origin;     /* exact int, or NULL */
    PyObject *npv;        /* the cached NumPy view, or NULL until asked for */
    PyObject *cd;         /* the cached cffi `sa_array *`, or NULL */
    PyObject *weaklist;
    sa_array *cdesc;      /* the C descriptor cd points to (PyMem), or NULL */
    int nd;
    int code;             /* sa_dtype */
    int flags;            /* SA_F_* */
    int64_t corigin;      /* the origin (fits: checked) */
    int64_t *cshape;      /* nd extents (0 where SA_F_HUGE made one unrepresentable) */
    int64_t *cstrides;    /* nd strides; 0 where no index multiplies a stride beyond nbuf */
    int64_t inl[2 * SA_INLINE_DIMS];
} ArrayObject;

/* Fields of an array filled on first use (storage, shape, strides, origin, npv, cd, cdesc):
 * each goes once from NULL to its final value, kept until the array is freed, so a value read
 * from one stays valid while the reader holds the array (docs/array.md, "Free-threaded
 * CPython"). Two threads may build one at once: the first to publish wins and the other drops
 * its own and takes the winner's. With the GIL a plain check-and-store is atomic (nothing in
 * it runs Python code); without it, a C11 compare-and-swap. SA_LAZY_CAS(field, &seen, v):
 * 1 when `v` was stored, else 0 with `seen` set to the value found. */
#ifdef Py_GIL_DISABLED
#include <stdatomic.h>
#define SA_LAZY_LOAD(field) \
    atomic_load_explicit((_Atomic(__typeof__(field)) *)&(field), memory_order_acquire)
#define SA_LAZY_CAS(field, seen, v) \
    atomic_compare_exchange_strong((_Atomic(__typeof__(field)) *)&(field), (seen), (v))
#else
#define SA_LAZY_LOAD(field) (field)
#define SA_LAZY_CAS(field, seen, v) \
    ((field) == *(seen) ? ((field) = (v), 1) : (*(seen) = (field), 0))
#endif

/* Publish `v` (a new reference, or NULL with an exception) into the lazy field `*field`:
 * returns the field's value (borrowed from the array), `v` or the one published first. */
static inline PyObject *
sa_lazy_publish(PyObject **field, PyObject *v)
{
    PyObject *seen = NULL;
    if (v != NULL && !SA_LAZY_CAS(*field, &seen, v)) {
        Py_DECREF(v);
        return seen;
    }
    return v;
}

/* PyDict_GetItemRef (3.13): a new reference, so another thread's deletion from the dict cannot
 * free the value under us (a borrowed one from PyDict_GetItemWithError could, without the
 * GIL). 1 found, 0 absent (*result NULL), -1 with an exception. */
#if PY_VERSION_HEX < 0x030D0000
static inline int
sa_dict_get_ref(PyObject *d, PyObject *key, PyObject **result)
{
    *result = Py_XNewRef(PyDict_GetItemWithError(d, key));
    return *result != NULL ? 1 : PyErr_Occurred() ? -1 : 0;
}
#else
#define sa_dict_get_ref PyDict_GetItemRef
#endif

/* freelist.c: a new array of the registered class, every field zero, tracked (a freed one
 * when some are kept); its dealloc's last step: 1 when it kept `a` instead of freeing it. The
 * class is judged once, when registered. */
ArrayObject *sa_array_alloc(void);
int sa_freelist_keep(ArrayObject *a);
void sa_freelist_register(PyTypeObject *cls);

extern PyTypeObject sa_StorageType;
/* storage.c: is `arr` usable as storage (a C-contiguous, aligned, native-order ndarray)?
 * 0, or -1 with the TypeError/ValueError that says why; and a new storage object over it. */
int sa_storage_check(PyObject *arr);
PyObject *sa_storage_new(PyObject *arr);
/* A storage object over `arr`, checked before, with the element count recorded then (not
 * read again: whoever holds the ndarray may have assigned its shape or dtype since). */
PyObject *sa_storage_of(PyObject *arr, Py_ssize_t nbuf);
extern PyTypeObject sa_ArrayBaseType;
extern PyTypeObject *sa_array_class;            /* stridedarray.Array */
extern PyObject *sa_dtypes[SA_NDTYPES];         /* the DType objects, by code */
extern PyArray_Descr *sa_descrs[SA_NDTYPES];    /* their NumPy dtypes */
extern signed char sa_code_of_type[NPY_NTYPES_LEGACY];  /* code by NumPy type number, or -1 */

/* The dtype code of an exact ndarray whose memory the constructor can view as it is
 * (aligned, native order, a registered dtype), or -1. */
static inline int
sa_native_code(PyObject *r)
{
    if (!PyArray_CheckExact(r)) {
        return -1;
    }
    PyArrayObject *v = (PyArrayObject *)r;
    PyArray_Descr *d = PyArray_DESCR(v);
    if (!PyArray_ISALIGNED(v) || !PyArray_ISNBO(d->byteorder)) {
        return -1;
    }
    int t = d->type_num;
    return t >= 0 && t < NPY_NTYPES_LEGACY ? sa_code_of_type[t] : -1;
}

/* The same for one the constructor can take whole (C-contiguous too), or -1. */
static inline int
sa_whole_code(PyObject *r)
{
    int code = sa_native_code(r);
    return code >= 0 && PyArray_IS_C_CONTIGUOUS((PyArrayObject *)r) ? code : -1;
}

/* A descriptor as C values, as the constructor checks it. Python input may hold values int64
 * cannot (`wide` set): an extent beyond int64 (big[k]; shape[k] is then 0), a stride beyond
 * it (sovf[k]), the origin beyond it (oovf, its sign). C callers give int64 values and leave
 * `wide` 0: big, sovf and oovf are then not read. */
typedef struct {
    int nd;
    int wide;
    int oovf;
    int64_t origin;
    int64_t shape[SA_MAXDIM];
    int64_t strides[SA_MAXDIM];
    char big[SA_MAXDIM];
    char sovf[SA_MAXDIM];
} sa_desc;

/* construct.c: `_descriptor_ints(shape, strides, origin)`: the descriptor integers from
 * outside (a pickle) as exact ints, each checked: shape in [0, 2**63 - 1], strides and origin
 * in [-(2**63 - 1), 2**63 - 1], the same checks and messages as the constructor's. */
PyObject *sa_descriptor_ints(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
/* construct.c: 0 when a descriptor of `nd` axes fits (at most SA_MAXDIM), else -1 with the
 * ValueError every route past the limit gives. */
int sa_check_rank(Py_ssize_t nd);
/* construct.c: the constructor, from Python values. Steals nothing. */
PyObject *sa_make(PyObject *st, PyObject *dtype, PyObject *shape, PyObject *strides,
                  PyObject *origin, PyObject *npv);
/* A view over the storage of `parent` (same dtype), checked like any descriptor; `npv`, when
 * not NULL, is its NumPy view (the caller made it for exactly this descriptor). */
PyObject *sa_make_view(ArrayObject *parent, const sa_desc *d, PyObject *npv);
/* A descriptor over the whole of a C-contiguous aligned native ndarray of a registered dtype
 * `code` (in bounds by construction); NULL with an exception otherwise. */
PyObject *sa_make_c(PyObject *arr, int code);
/* The one rule for an array over an aligned native ndarray of dtype `code` without a copy
 * (_wrap's, and _array._from_ndarray's through `_window`): a C-contiguous one whole
 * (sa_make_c), an empty one as a new empty array of its shape, any other over a window of
 * its memory (the window as its storage, the ndarray as its NumPy view). NULL without an
 * exception where the rule declines (a stride not a multiple of the item size: the caller
 * copies), NULL with one for an error. */
PyObject *sa_make_strided(PyObject *arr, int code);
/* 1 when writes to the array are refused (read-only storage, or a zero stride making indices
 * alias), else 0. */
int sa_array_readonly(const ArrayObject *a);
/* dlpack.c: `_dlpack`, `_from_exchange`, `_dlpack_live`; and, once in PyInit, the DLPack 1.3
 * exchange table's capsule (`_dlpack_exchange_api`, Array's `__dlpack_c_exchange_api__`). */
PyObject *sa_dlpack_capsule(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *sa_dlpack_from_exchange(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *sa_dlpack_live(PyObject *mod, PyObject *unused);
PyObject *sa_dlpack_init(void);
/* The code of a registered DType object, or -1. */
int sa_dtype_code(PyObject *dtype);
/* The array's StorageObject, made on first use (borrowed; NULL with an exception). */
PyObject *sa_array_storage(ArrayObject *a);
/* The descriptor's shape, strides and origin as Python values (borrowed; NULL with an
 * exception when they had to be made and could not). */
PyObject *sa_array_shape(ArrayObject *a);
PyObject *sa_array_strides(ArrayObject *a);
PyObject *sa_array_origin(ArrayObject *a);
/* The NumPy view of an array (new reference). */
PyObject *sa_array_np(ArrayObject *a);
/* The C core's descriptor of an array (owned by it, made once); NULL with an exception. */
sa_array *sa_array_cdesc(ArrayObject *a);

/* indexing.c */
PyObject *sa_array_subscript(PyObject *self, PyObject *key);
PyObject *sa_array_get_mT(PyObject *self, void *closure);
PyObject *sa_array_get_T(PyObject *self, void *closure);
/* The hand-over's installers (arraytype.c, _connect, checks every value first): each takes
 * its own references and cannot fail. */
void sa_set_getitem_fallback(PyObject *func);
/* _basic_view(x, items): the rule of basic indexing, for the Python path's normalised keys. */
PyObject *sa_basic_view(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
int sa_namespace_flip(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
int sa_namespace_permute_dims(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                              PyObject **out);

/* native.c: the plumbing of the C callables that stand in for a Python function. */
typedef struct {
    PyObject_HEAD
    PyObject *fallback;  /* the Python function: every call the C path does not take */
    PyObject *name;      /* its __name__ */
    vectorcallfunc vectorcall;
    /* Where pickle finds it: the fallback's own until the package sets the public module
     * and name (a str each, never NULL). */
    PyObject *module;
    PyObject *qualname;
} NativeHead;
/* A new object of `type` (whose struct begins with a NativeHead) around `fallback` (checked
 * callable), named as it is (or `default_name`), its own fields zeroed and not yet tracked by
 * the collector: the caller sets them and calls PyObject_GC_Track. NULL with an exception. */
PyObject *sa_native_new(PyTypeObject *type, PyObject *fallback, const char *default_name,
                          vectorcallfunc vectorcall);
PyObject *sa_native_call_fallback(PyObject *self, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames);
PyObject *sa_native_descr_get(PyObject *self, PyObject *obj, PyObject *type);
PyObject *sa_native_repr(PyObject *self);
int sa_native_traverse(PyObject *self, visitproc visit, void *arg);
void sa_native_clear_head(NativeHead *h);
void sa_native_dealloc(PyObject *self);  /* for a type with no fields beyond the head */
extern PyMemberDef sa_native_members[];
extern PyGetSetDef sa_native_getset[];
extern PyMethodDef sa_native_methods[];
/* The slots every such type has; T: its struct, which begins with a NativeHead. */
#define SA_NATIVE_SLOTS(T)                                                                  \
    .tp_basicsize = sizeof(T),                                                                \
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL           \
                | Py_TPFLAGS_METHOD_DESCRIPTOR,                                               \
    .tp_call = PyVectorcall_Call, .tp_vectorcall_offset = offsetof(NativeHead, vectorcall), \
    .tp_descr_get = sa_native_descr_get, .tp_repr = sa_native_repr,                       \
    .tp_members = sa_native_members, .tp_getset = sa_native_getset, .tp_methods = sa_native_methods

/* operators.c: the operator type */
extern PyTypeObject sa_NativeUfuncType;
/* wrap.c: a NumPy result as an array (new reference) */
PyObject *sa_wrap_result(PyObject *r);
void sa_set_wrap_fallback(PyObject *func);
PyObject *sa_wrap(PyObject *mod, PyObject *arr);
/* fpe.c: the quiet floating-point state (the inline call is in fpe.h) */
void sa_set_fpe(PyObject *var, PyObject *quiet, PyObject *learn, PyObject *contexts,
                PyObject *cache_contexts);
PyObject *sa_quiet_call(PyObject *mod, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* elide.c: may the array (the first operand) take the operation's result in place? Asked
 * before the operator takes references of its own to its operands. */
int sa_can_elide(ArrayObject *a, PyObject *other);
void sa_note_elided(void);
PyObject *sa_elided_count(PyObject *mod, PyObject *unused);
PyObject *sa_elision_available(PyObject *mod, PyObject *unused);

/* bufcache.c: the result-buffer cache, a NumPy memory handler (NEP 49). _init once at import;
 * may_install: 1 when the caller's handler is NumPy's default (or ours), 0 when the user set
 * another, -1 with an exception; _set makes ours current in the current context and returns
 * the previous one (new reference), which _restore makes current again (consuming it,
 * keeping any exception set). _handler: our capsule (borrowed). */
#define SA_BUFCACHE_MIN_BYTES (64 * 1024)
int sa_bufcache_init(void);
PyObject *sa_bufcache_handler(void);
int sa_bufcache_may_install(void);
PyObject *sa_bufcache_set(void);
int sa_bufcache_restore(PyObject *old);
PyObject *sa_bufcache_clear(PyObject *mod, PyObject *unused);
PyObject *sa_bufcache_info(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* matmul.c */
extern PyTypeObject sa_NativeMatmulType;
void sa_set_matmul(void *run, PyObject *var, PyObject *addr, PyObject *raise);
PyObject *sa_matmul_shape(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* A shape argument's entries, when it is an exact int (*shape itself: one entry) or an exact
 * tuple of at most SA_MAXDIM entries: 1 with *items and *n set, else 0. The entries are not
 * checked. */
static inline int
sa_shape_entries(PyObject *const *shape, PyObject *const **items, Py_ssize_t *n)
{
    if (PyTuple_CheckExact(*shape)) {
        *items = &PyTuple_GET_ITEM(*shape, 0);
        *n = PyTuple_GET_SIZE(*shape);
    }
    else if (PyLong_CheckExact(*shape)) {
        *items = shape;
        *n = 1;
    }
    else {
        return 0;
    }
    return *n <= SA_MAXDIM;
}

/* Row-major element strides for `shape` (an extent of 0 or 1 counts as 1, so an empty array
 * gets the strides of its other extents); returns the product of the extents above 1 (the
 * element count when none is 0), which the caller knows fits int64. */
static inline int64_t
sa_row_major_strides(int nd, const int64_t *shape, int64_t *strides)
{
    int64_t step = 1;
    for (int k = nd - 1; k >= 0; k--) {
        strides[k] = step;
        step *= shape[k] > 1 ? shape[k] : 1;
    }
    return step;
}

/* scalar.c: an array's one element as a Python scalar: the nb_float, nb_int and nb_index
 * slots, their methods, __complex__ and item. */
PyObject *sa_array_float(PyObject *self);
PyObject *sa_array_int(PyObject *self);
PyObject *sa_array_index(PyObject *self);
PyObject *sa_array_float_method(PyObject *self, PyObject *unused);
PyObject *sa_array_int_method(PyObject *self, PyObject *unused);
PyObject *sa_array_index_method(PyObject *self, PyObject *unused);
PyObject *sa_array_complex(PyObject *self, PyObject *unused);
PyObject *sa_array_item(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames);
/* tp_hash: a 0-d array over immutable memory hashes as its element; any other refuses. */
Py_hash_t sa_array_hash(PyObject *self);
/* A read-only 0-d array holding a copy of the element at `p` (its storage: a bytes object). */
PyObject *sa_frozen_element(const char *p, int code);

/* The NativeFunction type (native.c) and the namespace functions implemented in C that it calls
 * (sa_namespace_*: 1: *out set, 0: take the Python fallback, -1: an exception), in creation.c,
 * reshape.c and indexing.c. */
extern PyTypeObject sa_NativeFunctionType;
/* creation.c: an array over the whole of a caller's ndarray, through a base-class view of it
 * the array owns. */
PyObject *sa_asarray_ndarray(PyObject *arr, int code);
int sa_namespace_asarray(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                         PyObject **out);
int sa_namespace_zeros(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
int sa_namespace_empty(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
int sa_namespace_ones(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
int sa_namespace_full(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
int sa_namespace_arange(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
int sa_namespace_reshape(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                         PyObject **out);
/* reshape.c: the strides that present (nd, shape, strides) as (new_nd, new_shape), both of
 * the same non-zero size, without moving data (NumPy's _attempt_nocopy_reshape): 1 with
 * new_strides filled in, 0 when there is no view. `_reshape_strides(x, shape)` gives it to
 * the Python path. */
int sa_reshape_strides(int nd, const int64_t *shape, const int64_t *strides, int new_nd,
                       const int64_t *new_shape, int64_t *new_strides);
PyObject *sa_reshape_strides_py(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* buffer.c */
extern PyBufferProcs sa_array_as_buffer;

/* iterate.c: iter(x) over the first axis (tp_iter), and the same as the __iter__ method. */
PyObject *sa_array_iter(PyObject *self);
PyObject *sa_array_iter_method(PyObject *self, PyObject *ignored);

#endif
