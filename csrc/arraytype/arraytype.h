/* The array type's private declarations, shared by the files of stridedarray._arraytype
 * (docs/array.md, "The array type"). */
#ifndef SA_ARRAYTYPE_H
#define SA_ARRAYTYPE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL sa_arraytype_ARRAY_API
#ifndef SA_ARRAYTYPE_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "../sa_array.h"

/* The storage: a C-contiguous, aligned, native-order NumPy array shared by every view of it. */
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

#define SA_INLINE_DIMS 4

typedef struct {
    PyObject_HEAD
    PyObject *st;         /* StorageObject */
    PyObject *dtype;      /* the DType object */
    PyObject *shape;      /* tuple of exact ints */
    PyObject *strides;    /* tuple of exact ints, in elements */
    PyObject *origin;     /* exact int */
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

extern PyTypeObject sa_StorageType;
extern PyTypeObject sa_ArrayBaseType;
extern PyTypeObject *sa_array_class;            /* stridedarray.Array */
extern PyObject *sa_dtypes[SA_NDTYPES];         /* the DType objects, by code */
extern PyArray_Descr *sa_descrs[SA_NDTYPES];    /* their NumPy dtypes */

/* The one validating constructor (see arraytype.c). Steals nothing. */
PyObject *sa_make(PyObject *st, PyObject *dtype, PyObject *shape, PyObject *strides,
                  PyObject *origin, PyObject *npv);
/* A descriptor over the whole of a C-contiguous aligned native ndarray of a registered dtype
 * `code` (in bounds by construction); NULL with an exception otherwise. */
PyObject *sa_make_c(PyObject *arr, int code);
/* The code of a registered DType object, or -1. */
int sa_dtype_code(PyObject *dtype);
/* The NumPy view of an array (new reference). */
PyObject *sa_array_np(ArrayObject *a);
/* The C core's descriptor of an array (owned by it, made once); NULL with an exception. */
sa_array *sa_array_cdesc(ArrayObject *a);

/* indexing.c */
PyObject *sa_array_subscript(PyObject *self, PyObject *key);
PyObject *sa_array_get_mT(PyObject *self, void *closure);
PyObject *sa_array_get_T(PyObject *self, void *closure);
PyObject *sa_set_getitem_fallback(PyObject *mod, PyObject *func);

/* fastops.c */
extern PyTypeObject sa_FastOpType;
extern PyTypeObject sa_FastCreateType;
PyObject *sa_wrap_result(PyObject *r);
PyObject *sa_set_fpe(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *sa_set_wrap_fallback(PyObject *mod, PyObject *func);
PyObject *sa_wrap(PyObject *mod, PyObject *arr);
PyObject *sa_view_ndarray(PyObject *mod, PyObject *arr);
int sa_whole_code(PyObject *arr);

/* matmul.c */
extern PyTypeObject sa_FastMatmulType;
PyObject *sa_set_matmul(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* buffer.c */
extern PyBufferProcs sa_array_as_buffer;

#endif
