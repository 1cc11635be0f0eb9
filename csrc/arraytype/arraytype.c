/* stridedarray._arraytype: the array's descriptor as a C type (docs/array.md, "The array type").
 *
 * `ArrayBase` holds storage, dtype, shape, signed element strides and origin, validated once by
 * the one constructor, sa_make, and immutable after it: no member can be assigned from Python,
 * so no path (a pickle's BUILD state included) can move a descriptor outside its buffer.
 * `stridedarray.Array` derives from it and adds only Python methods. The type also caches the
 * NumPy view and the C core's `sa_array` descriptor, both built here from the checked fields.
 */
#define SA_ARRAYTYPE_MAIN
#include "arraytype.h"

#include <assert.h>
#include <structmember.h>

PyTypeObject *sa_array_class = NULL;
PyObject *sa_dtypes[SA_NDTYPES];
PyArray_Descr *sa_descrs[SA_NDTYPES];
/* The lowest code whose NumPy dtype has each built-in type number (int64 and long long are
 * two numbers of one size: only the registered one maps), -1 for the others. */
signed char sa_code_of_type[NPY_NTYPES_LEGACY];
static PyObject *cffi_cast = NULL;      /* ffi.cast */
static PyObject *cffi_ctype = NULL;     /* ffi.typeof("sa_array *") */
static PyObject *zero = NULL;           /* the int 0 */

/* ---------------------------------------------------------------------------------------- */
/* Storage                                                                                  */

static int
storage_check(PyObject *arr)
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

static PyObject *
storage_new_from(PyObject *arr)
{
    if (storage_check(arr) < 0) {
        return NULL;
    }
    StorageObject *s = PyObject_GC_New(StorageObject, &sa_StorageType);
    if (s == NULL) {
        return NULL;
    }
    s->arr = Py_NewRef(arr);
    s->nbuf = PyArray_SIZE((PyArrayObject *)arr);
    s->weaklist = NULL;
    PyObject_GC_Track(s);
    return (PyObject *)s;
}

static PyObject *
storage_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *arr;
    static char *kwlist[] = {"arr", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:_Storage", kwlist, &arr)) {
        return NULL;
    }
    return storage_new_from(arr);
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

/* ---------------------------------------------------------------------------------------- */
/* The constructor                                                                          */

int
sa_dtype_code(PyObject *dtype)
{
    for (int k = 0; k < SA_NDTYPES; k++) {
        if (sa_dtypes[k] == dtype) {
            return k;
        }
    }
    return -1;
}

/* Is the Python int `v` inside [low, 2**63 - 1] (low = 0 or -(2**63 - 1))? -1: error. */
static int
in_int64_range(PyObject *v, int nonneg)
{
    int ovf;
    long long x = PyLong_AsLongLongAndOverflow(v, &ovf);
    if (x == -1 && PyErr_Occurred()) {
        return -1;
    }
    return !ovf && x >= (nonneg ? 0 : -INT64_MAX);
}

/* One descriptor integer that is not an exact int: bools refused, anything else through
 * operator.index and range-checked (NumPy integers would make bounds arithmetic wrap).
 * `what` names the field for the messages; a new reference, or NULL. */
static PyObject *
index_value(PyObject *v, const char *what, int nonneg)
{
    if (PyBool_Check(v)) {
        PyErr_Format(PyExc_TypeError, "descriptor %s must hold integers, not bools", what);
        return NULL;
    }
    PyObject *iv = PyNumber_Index(v);
    if (iv == NULL) {
        PyErr_Format(PyExc_TypeError, "descriptor %s must hold integers, got %.100s %.40R",
                     what, Py_TYPE(v)->tp_name, v);
        return NULL;
    }
    int ok = in_int64_range(iv, nonneg);
    if (ok <= 0) {
        if (ok == 0) {
            PyErr_Format(PyExc_ValueError, "descriptor %s entry %S is outside [%s, 2**63 - 1]",
                         what, iv, nonneg ? "0" : "-(2**63 - 1)");
        }
        Py_DECREF(iv);
        return NULL;
    }
    return iv;
}

/* `t` as a tuple of exact ints (a new reference). Exact ints are kept as they are (an extent
 * beyond int64 with stride 0 is a valid broadcast); anything else goes through index_value. */
static PyObject *
index_tuple(PyObject *t, const char *what, int nonneg)
{
    PyObject *seq;
    if (PyTuple_CheckExact(t)) {
        seq = Py_NewRef(t);
    }
    else if (PyList_Check(t) || PyTuple_Check(t)) {
        seq = PySequence_Tuple(t);
        if (seq == NULL) {
            return NULL;
        }
    }
    else {
        PyErr_Format(PyExc_TypeError, "descriptor %s must be a tuple of integers, got %.100s",
                     what, Py_TYPE(t)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(seq, i);
        if (PyLong_CheckExact(v)) {
            if (out != NULL) {
                PyTuple_SET_ITEM(out, i, Py_NewRef(v));
            }
            continue;
        }
        PyObject *iv = index_value(v, what, nonneg);
        if (iv == NULL) {
            Py_XDECREF(out);
            Py_DECREF(seq);
            return NULL;
        }
        if (out == NULL) {
            out = PyTuple_New(n);
            if (out == NULL) {
                Py_DECREF(iv);
                Py_DECREF(seq);
                return NULL;
            }
            for (Py_ssize_t j = 0; j < i; j++) {
                PyTuple_SET_ITEM(out, j, Py_NewRef(PyTuple_GET_ITEM(seq, j)));
            }
        }
        PyTuple_SET_ITEM(out, i, iv);
    }
    if (out == NULL) {
        return seq;
    }
    Py_DECREF(seq);
    return out;
}

/* The out-of-bounds error, its offsets computed with Python ints (any size). */
static void
raise_out_of_bounds(PyObject *shape, PyObject *strides, PyObject *origin, Py_ssize_t nbuf)
{
    PyObject *lo = Py_NewRef(origin), *hi = Py_NewRef(origin), *one = PyLong_FromLong(1);
    if (one == NULL) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(shape); k++) {
        PyObject *n1 = PyNumber_Subtract(PyTuple_GET_ITEM(shape, k), one);
        if (n1 == NULL) {
            goto done;
        }
        PyObject *span = PyNumber_Multiply(n1, PyTuple_GET_ITEM(strides, k));
        Py_DECREF(n1);
        if (span == NULL) {
            goto done;
        }
        int neg = PyObject_RichCompareBool(span, zero, Py_LT);
        PyObject **end = neg ? &lo : &hi;
        PyObject *moved = PyNumber_Add(*end, span);
        Py_DECREF(span);
        if (moved == NULL || neg < 0) {
            Py_XDECREF(moved);
            goto done;
        }
        Py_SETREF(*end, moved);
    }
    PyErr_Format(PyExc_ValueError,
                 "descriptor out of bounds: shape %R, strides %R, origin %R reach element "
                 "offsets [%S, %S] of a buffer of %zd elements",
                 shape, strides, origin, lo, hi, nbuf);
done:
    Py_XDECREF(one);
    Py_DECREF(lo);
    Py_DECREF(hi);
}

#ifndef NDEBUG
/* Debug builds: the invariant, recomputed from the C fields. */
static void
assert_invariant(const ArrayObject *a)
{
    assert(a->nd >= 0 && a->nd <= SA_MAXDIM);
    assert(PyArray_IS_C_CONTIGUOUS((PyArrayObject *)a->buf));
    assert(a->nbuf == PyArray_SIZE((PyArrayObject *)a->buf));
    assert(a->storage == NULL || (((StorageObject *)a->storage)->arr == a->buf
                                  && ((StorageObject *)a->storage)->nbuf == a->nbuf));
    assert(a->shape == NULL || PyTuple_GET_SIZE(a->shape) == a->nd);
    assert(a->strides == NULL || PyTuple_GET_SIZE(a->strides) == a->nd);
    assert(a->strides != NULL || !(a->flags & SA_F_INEXACT));
    if (a->flags & SA_F_EMPTY) {
        assert(a->corigin >= 0 && a->corigin <= a->nbuf);
        return;
    }
    int64_t lo = a->corigin, hi = a->corigin;
    for (int k = 0; k < a->nd; k++) {
        if (a->cstrides[k] == 0 || a->cshape[k] <= 1) {
            continue;
        }
        int64_t span = (a->cshape[k] - 1) * a->cstrides[k];
        if (span < 0) {
            lo += span;
        }
        else {
            hi += span;
        }
    }
    assert(lo >= 0 && hi < a->nbuf);
}
#else
#define assert_invariant(a) ((void)0)
#endif

/* Is `npv` exactly the NumPy view of `a` (so it may be cached as such)? */
static int
npv_matches(const ArrayObject *a, PyObject *npv)
{
    if (!PyArray_CheckExact(npv) || (a->flags & SA_F_HUGE)) {
        return 0;
    }
    PyArrayObject *v = (PyArrayObject *)npv;
    PyArrayObject *base = (PyArrayObject *)a->buf;
    if (PyArray_NDIM(v) != a->nd || !PyArray_EquivTypes(PyArray_DESCR(v), PyArray_DESCR(base))
        || !PyArray_ISALIGNED(v)) {
        return 0;
    }
    if ((a->flags & SA_F_ALIASED || !PyArray_ISWRITEABLE(base)) && PyArray_ISWRITEABLE(v)) {
        return 0;
    }
    int64_t its = PyArray_ITEMSIZE(base);
    for (int k = 0; k < a->nd; k++) {
        if (PyArray_DIM(v, k) != a->cshape[k]) {
            return 0;
        }
        if (a->cshape[k] > 1 && PyArray_STRIDE(v, k) != a->cstrides[k] * its) {
            return 0;
        }
    }
    return (a->flags & SA_F_EMPTY)
           || PyArray_BYTES(v) == PyArray_BYTES(base) + a->corigin * its;
}

/* A tuple of `n` C integers (a new reference). */
static PyObject *
int_tuple(int n, const int64_t *v)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t != NULL && k < n; k++) {
        PyObject *i = PyLong_FromLongLong(v[k]);
        if (i == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, i);
    }
    return t;
}

/* The descriptor's tuples, made from the C fields the first time they are asked for when the
 * descriptor was built in C (which holds them exactly: see SA_F_INEXACT). Borrowed. */
PyObject *
sa_array_storage(ArrayObject *a)
{
    if (a->storage == NULL) {
        a->storage = storage_new_from(a->buf);  /* checked when the array was made */
    }
    return a->storage;
}

PyObject *
sa_array_shape(ArrayObject *a)
{
    if (a->shape == NULL) {
        a->shape = int_tuple(a->nd, a->cshape);
    }
    return a->shape;
}

PyObject *
sa_array_strides(ArrayObject *a)
{
    if (a->strides == NULL) {
        a->strides = int_tuple(a->nd, a->cstrides);
    }
    return a->strides;
}

PyObject *
sa_array_origin(ArrayObject *a)
{
    if (a->origin == NULL) {
        a->origin = PyLong_FromLongLong(a->corigin);
    }
    return a->origin;
}

/* The check every descriptor passes, on every path, and the object it makes (docs/array.md,
 * "The array type"). `d` holds the descriptor as C values; `shape`, `strides` and `origin`
 * (stolen, each may be NULL) are its exact Python values when it came from Python, which
 * are kept: they may hold what int64 cannot (`d->wide`). A descriptor built in C keeps none
 * and its tuples are made from the checked C fields when first read, except the strides when
 * C must hold one of them as 0 (SA_F_INEXACT): they are made here, from `d`.
 * `buf` and `nbuf`: the storage's ndarray (checked by storage_check) and its element count;
 * `storage`: its StorageObject when there is one already (borrowed; may be NULL).
 * `npv`: a NumPy view to cache when it matches the descriptor (`npv_known`: it does by
 * construction). */
static PyObject *
construct(PyObject *buf, Py_ssize_t nbuf_, PyObject *storage, PyObject *dtype, int code,
          const sa_desc *d, PyObject *shape, PyObject *strides, PyObject *origin, PyObject *npv,
          int npv_known)
{
    int nd = d->nd;
    ArrayObject *a = NULL;
    if (sa_array_class == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: Array is not registered");
        goto fail;
    }
    assert(nd >= 0 && nd <= SA_MAXDIM);
    a = (ArrayObject *)sa_array_class->tp_alloc(sa_array_class, 0);
    if (a == NULL) {
        goto fail;
    }
    a->nd = nd;
    a->code = code;
    if (nd <= SA_INLINE_DIMS) {
        a->cshape = a->inl;
        a->cstrides = a->inl + SA_INLINE_DIMS;
    }
    else {
        /* nd <= SA_MAXDIM: the size cannot overflow */
        a->cshape = PyMem_Malloc(2 * (size_t)nd * sizeof(int64_t));
        if (a->cshape == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        a->cstrides = a->cshape + nd;
    }
    /* Extents: exact values or flagged beyond int64 (`big`), negative ones refused. */
    int flags = 0;
    for (int k = 0; k < nd; k++) {
        int big = d->wide && d->big[k];
        if (d->shape[k] < 0) {
            if (shape == NULL) {
                shape = int_tuple(nd, d->shape);
            }
            if (shape != NULL) {
                PyErr_Format(PyExc_ValueError, "descriptor has a negative extent: shape %R",
                             shape);
            }
            goto fail;
        }
        a->cshape[k] = d->shape[k];
        if (!big && d->shape[k] == 0) {
            flags |= SA_F_EMPTY;
        }
    }
    /* Strides and the reachable offsets, overflow-checked (an overflow is beyond any buffer,
     * so out of bounds, unless the array is empty). */
    int64_t nbuf = nbuf_;
    int64_t org = d->origin;
    int oob = d->wide && d->oovf;
    int64_t lo = org, hi = org;
    for (int k = 0; k < nd; k++) {
        int64_t sv = d->strides[k], n = a->cshape[k];
        int big = d->wide && d->big[k], sovf = d->wide && d->sovf[k];
        int multiplies = !(flags & SA_F_EMPTY) && (big || n > 1);
        if (!multiplies) {
            /* No index multiplies this stride: keep it only when C can hold it safely. */
            if (sovf || sv > nbuf || sv < -nbuf) {
                a->cstrides[k] = 0;
                flags |= SA_F_INEXACT;
            }
            else {
                a->cstrides[k] = sv;
            }
            continue;
        }
        if (sovf) {
            oob = 1;
            a->cstrides[k] = 0;
            continue;
        }
        a->cstrides[k] = sv;
        if (sv == 0) {
            flags |= SA_F_ALIASED;
            continue;
        }
        if (big) {
            oob = 1;
            continue;
        }
        int64_t span;
        if (__builtin_mul_overflow(n - 1, sv, &span)) {
            oob = 1;
            continue;
        }
        if (span < 0 ? __builtin_add_overflow(lo, span, &lo)
                     : __builtin_add_overflow(hi, span, &hi)) {
            oob = 1;
        }
    }
    if (flags & SA_F_EMPTY) {
        /* Never dereferenced; the origin stays inside [0, nbuf] so it names the storage. */
        int below = d->wide && d->oovf ? d->oovf < 0 : org < 0;
        if (below || (d->wide && d->oovf) || org > nbuf) {
            org = below ? 0 : nbuf;
            Py_CLEAR(origin);  /* made from the C field when read */
        }
    }
    else if (oob || lo < 0 || hi >= nbuf) {
        if (shape == NULL) {
            shape = int_tuple(nd, d->shape);
        }
        if (strides == NULL) {
            strides = int_tuple(nd, d->strides);
        }
        if (origin == NULL) {
            origin = PyLong_FromLongLong(org);
        }
        if (shape != NULL && strides != NULL && origin != NULL) {
            raise_out_of_bounds(shape, strides, origin, nbuf);
        }
        goto fail;
    }
    if ((flags & SA_F_INEXACT) && strides == NULL) {
        strides = int_tuple(nd, d->strides);  /* the exact values C does not keep */
        if (strides == NULL) {
            goto fail;
        }
    }
    /* Can NumPy and the C core hold it (every extent in int64, at most 2**63-1 bytes)? */
    int64_t bytes = PyArray_ITEMSIZE((PyArrayObject *)buf);
    for (int k = 0; k < nd; k++) {
        if (d->wide && d->big[k]) {
            flags |= SA_F_HUGE;
        }
        else if (a->cshape[k] && __builtin_mul_overflow(bytes, a->cshape[k], &bytes)) {
            flags |= SA_F_HUGE;
        }
    }
    a->flags = flags;
    a->corigin = org;
    a->buf = Py_NewRef(buf);
    a->nbuf = nbuf_;
    a->storage = Py_XNewRef(storage);
    a->dtype = Py_NewRef(dtype);
    a->shape = shape;
    a->strides = strides;
    a->origin = origin;
    assert_invariant(a);
    if (npv != NULL && npv != Py_None && (npv_known || npv_matches(a, npv))) {
        a->npv = Py_NewRef(npv);
    }
    return (PyObject *)a;
fail:
    Py_XDECREF(a);  /* its fields are still NULL: the dealloc frees the extents only */
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(origin);
    return NULL;
}

PyObject *
sa_make(PyObject *st, PyObject *dtype, PyObject *shape_in, PyObject *strides_in,
        PyObject *origin_in, PyObject *npv)
{
    if (sa_array_class == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: Array is not registered");
        return NULL;
    }
    if (Py_TYPE(st) != &sa_StorageType) {
        PyErr_Format(PyExc_TypeError, "descriptor storage must be a _Storage, got %.100s",
                     Py_TYPE(st)->tp_name);
        return NULL;
    }
    int code = sa_dtype_code(dtype);
    if (code < 0) {
        PyErr_Format(PyExc_TypeError, "descriptor dtype must be a stridedarray dtype, got %R",
                     dtype);
        return NULL;
    }
    StorageObject *s = (StorageObject *)st;
    PyArray_Descr *sd = PyArray_DESCR((PyArrayObject *)s->arr);
    if (sd != sa_descrs[code] && !PyArray_EquivTypes(sd, sa_descrs[code])) {
        PyErr_Format(PyExc_ValueError, "descriptor dtype %R does not match its storage's %R",
                     dtype, (PyObject *)sd);
        return NULL;
    }
    PyObject *shape = NULL, *strides = NULL, *origin = NULL;
    shape = index_tuple(shape_in, "shape", 1);
    if (shape == NULL) {
        return NULL;
    }
    strides = index_tuple(strides_in, "strides", 0);
    if (strides == NULL) {
        goto fail;
    }
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    if (nd != PyTuple_GET_SIZE(strides)) {
        PyErr_Format(PyExc_ValueError, "descriptor has shape %R but strides %R", shape, strides);
        goto fail;
    }
    if (nd > SA_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "arrays have at most 64 dimensions, got %zd", nd);
        goto fail;
    }
    if (PyLong_CheckExact(origin_in)) {
        origin = Py_NewRef(origin_in);
    }
    else {
        if (PyBool_Check(origin_in)) {
            PyErr_SetString(PyExc_TypeError, "descriptor origin must be an integer, not a bool");
            goto fail;
        }
        origin = PyNumber_Index(origin_in);
        if (origin == NULL) {
            PyErr_Format(PyExc_TypeError, "descriptor origin must be an integer, got %.100s",
                         Py_TYPE(origin_in)->tp_name);
            goto fail;
        }
        int ok = in_int64_range(origin, 0);
        if (ok <= 0) {
            if (ok == 0) {
                PyErr_Format(PyExc_ValueError,
                             "descriptor origin %S is outside the signed 64-bit range", origin);
            }
            goto fail;
        }
    }
    /* The Python ints as C values, those beyond int64 flagged (exact ints may be any size). */
    sa_desc d;
    d.nd = (int)nd;
    d.wide = 0;
    for (Py_ssize_t k = 0; k < nd; k++) {
        int ovf;
        long long n = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(shape, k), &ovf);
        if (n == -1 && PyErr_Occurred()) {
            goto fail;
        }
        if (ovf < 0) {
            n = -1;  /* refused as negative */
        }
        d.big[k] = ovf > 0;
        d.shape[k] = ovf > 0 ? 0 : n;
        long long sv = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(strides, k), &ovf);
        if (sv == -1 && PyErr_Occurred()) {
            goto fail;
        }
        d.sovf[k] = ovf != 0;
        d.strides[k] = ovf ? 0 : sv;
        d.wide |= d.big[k] | d.sovf[k];
    }
    int ovf;
    long long org = PyLong_AsLongLongAndOverflow(origin, &ovf);
    if (org == -1 && PyErr_Occurred()) {
        goto fail;
    }
    d.origin = ovf ? 0 : org;
    d.oovf = ovf;
    d.wide |= ovf != 0;
    return construct(s->arr, s->nbuf, st, dtype, code, &d, shape, strides, origin, npv, 0);
fail:
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(origin);
    return NULL;
}

PyObject *
sa_make_view(ArrayObject *parent, const sa_desc *d, PyObject *npv)
{
    /* Views share their parent's StorageObject, made now if the parent has none yet (once
     * per array that is viewed): every array derived from one array has the same `_st`. */
    PyObject *st = sa_array_storage(parent);
    if (st == NULL) {
        return NULL;
    }
    return construct(parent->buf, parent->nbuf, st, parent->dtype, parent->code, d, NULL, NULL,
                     NULL, npv, 1);
}

PyObject *
sa_make_c(PyObject *arr, int code)
{
    if (storage_check(arr) < 0) {
        return NULL;
    }
    PyArrayObject *v = (PyArrayObject *)arr;
    sa_desc d;
    d.nd = PyArray_NDIM(v);
    d.wide = 0;
    d.origin = 0;
    int64_t step = 1;
    for (int k = d.nd - 1; k >= 0; k--) {
        npy_intp n = PyArray_DIM(v, k);
        d.shape[k] = n;
        d.strides[k] = step;
        step *= n > 1 ? n : 1;  /* <= the element count: cannot overflow */
    }
    /* The whole of an exact ndarray is its own NumPy view (a subclass is not cached). */
    return construct(arr, PyArray_SIZE(v), NULL, sa_dtypes[code], code, &d, NULL, NULL, NULL,
                     PyArray_CheckExact(arr) ? arr : NULL, 1);
}

PyObject *
sa_make_strided(PyObject *arr, int code)
{
    PyArrayObject *v = (PyArrayObject *)arr;
    npy_intp its = PyArray_ITEMSIZE(v);
    if (PyArray_SIZE(v) == 0) {
        return NULL;  /* the Python path gives it an empty storage of its own */
    }
    sa_desc d;
    d.nd = PyArray_NDIM(v);
    d.wide = 0;
    /* The element offsets it reaches, [lo, hi] from its data pointer: its memory exists, so
     * the byte spans fit npy_intp. Strides of axes of extent 1 are 0, as in Python. */
    npy_intp lo = 0, hi = 0;
    for (int k = 0; k < d.nd; k++) {
        npy_intp n = PyArray_DIM(v, k), s = PyArray_STRIDE(v, k);
        d.shape[k] = n;
        d.strides[k] = 0;
        if (n > 1) {
            if (s % its) {
                return NULL;  /* a copy is needed: the Python path makes it */
            }
            d.strides[k] = s / its;
            npy_intp span = (n - 1) * (s / its);
            if (span < 0) {
                lo += span;
            }
            else {
                hi += span;
            }
        }
    }
    d.origin = -lo;
    /* The window: a 1-D C-contiguous view of elements lo..hi, as writable as `arr`. */
    npy_intp len = hi - lo + 1;
    PyArray_Descr *descr = PyArray_DESCR(v);
    Py_INCREF(descr);
    PyObject *flat = PyArray_NewFromDescr(
        &PyArray_Type, descr, 1, &len, &its, PyArray_BYTES(v) + lo * its,
        PyArray_ISWRITEABLE(v) ? NPY_ARRAY_WRITEABLE : 0, NULL);
    if (flat == NULL) {
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)flat, Py_NewRef(arr)) < 0) {
        Py_DECREF(flat);
        return NULL;
    }
    /* `arr` is cached as the NumPy view when it matches (not a writable one that repeats
     * elements: the array is read-only then). */
    PyObject *res = storage_check(flat) < 0
                        ? NULL
                        : construct(flat, len, NULL, sa_dtypes[code], code, &d, NULL, NULL,
                                    NULL, arr, 0);
    Py_DECREF(flat);
    return res;
}

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
    Py_TYPE(a)->tp_free((PyObject *)a);
}

/* The ValueError of a descriptor NumPy and the C core cannot hold: _validation.check_size's. */
static void
raise_too_large(ArrayObject *a)
{
    PyObject *mod = PyImport_ImportModule("stridedarray._validation");
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

static int
array_readonly_c(const ArrayObject *a)
{
    return (a->flags & SA_F_ALIASED)
           || !PyArray_ISWRITEABLE((PyArrayObject *)a->buf);
}

PyObject *
sa_array_np(ArrayObject *a)
{
    if (a->npv != NULL) {
        return Py_NewRef(a->npv);
    }
    if (a->flags & SA_F_HUGE) {
        raise_too_large(a);
        return NULL;
    }
    PyArrayObject *base = (PyArrayObject *)a->buf;
    npy_intp dims[SA_MAXDIM], bstrides[SA_MAXDIM];
    npy_intp its = PyArray_ITEMSIZE(base);
    for (int k = 0; k < a->nd; k++) {
        dims[k] = (npy_intp)a->cshape[k];
        /* |stride| <= nbuf on every multiplied axis: the byte stride fits. */
        bstrides[k] = (a->cshape[k] > 1 && !(a->flags & SA_F_EMPTY)) ? a->cstrides[k] * its : 0;
    }
    PyArray_Descr *descr = PyArray_DESCR(base);
    Py_INCREF(descr);
    PyObject *v = PyArray_NewFromDescr(
        &PyArray_Type, descr, a->nd, dims, bstrides, PyArray_BYTES(base) + a->corigin * its,
        array_readonly_c(a) ? 0 : NPY_ARRAY_WRITEABLE, NULL);
    if (v == NULL) {
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)v, Py_NewRef((PyObject *)base)) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    a->npv = Py_NewRef(v);
    return v;
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
    return Py_NewRef(a->npv != NULL ? a->npv : Py_None);
}

static PyObject *
array_get_readonly(ArrayObject *a, void *closure)
{
    return PyBool_FromLong(array_readonly_c(a));
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
    sa_array *d = a->cdesc;
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
        a->cdesc = d;
    }
    return d;
}

/* The C core's descriptor, as a cffi `sa_array *` into memory this array owns. */
static PyObject *
array_get_c(ArrayObject *a, void *closure)
{
    if (a->cd != NULL) {
        return Py_NewRef(a->cd);
    }
    if (cffi_cast == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: cffi is not registered");
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
    a->cd = Py_NewRef(p);
    return p;
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

static PyObject *
mod_make_c(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_make_c(arr, dtype) takes 2 arguments");
        return NULL;
    }
    int code = sa_dtype_code(args[1]);
    if (code < 0) {
        PyErr_Format(PyExc_TypeError, "dtype must be a stridedarray dtype, got %R", args[1]);
        return NULL;
    }
    if (!PyArray_Check(args[0])
        || !PyArray_EquivTypes(PyArray_DESCR((PyArrayObject *)args[0]), sa_descrs[code])) {
        PyErr_Format(PyExc_TypeError, "_make_c: arr must be an ndarray of dtype %R", args[1]);
        return NULL;
    }
    return sa_make_c(args[0], code);
}

static PyObject *
mod_set_array_class(PyObject *mod, PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &sa_ArrayBaseType)) {
        PyErr_SetString(PyExc_TypeError, "the array class must derive from ArrayBase");
        return NULL;
    }
    if (((PyTypeObject *)cls)->tp_basicsize != sa_ArrayBaseType.tp_basicsize) {
        PyErr_SetString(PyExc_TypeError, "the array class must add no slots to ArrayBase");
        return NULL;
    }
    Py_XSETREF(sa_array_class, (PyTypeObject *)Py_NewRef(cls));
    Py_RETURN_NONE;
}

static PyObject *
mod_register_dtypes(PyObject *mod, PyObject *seq)
{
    PyObject *fast = PySequence_Fast(seq, "dtypes must be a sequence");
    if (fast == NULL) {
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(fast) != SA_NDTYPES) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "expected %d dtypes", SA_NDTYPES);
        return NULL;
    }
    for (int k = 0; k < SA_NDTYPES; k++) {
        PyObject *dt = PySequence_Fast_GET_ITEM(fast, k);
        PyObject *np = PyObject_GetAttrString(dt, "np");
        PyArray_Descr *d = NULL;
        if (np == NULL || !PyArray_DescrConverter(np, &d)) {
            Py_XDECREF(np);
            Py_DECREF(fast);
            return NULL;
        }
        Py_DECREF(np);
        Py_XSETREF(sa_dtypes[k], Py_NewRef(dt));
        Py_XSETREF(sa_descrs[k], d);
    }
    Py_DECREF(fast);
    memset(sa_code_of_type, -1, sizeof(sa_code_of_type));
    for (int k = SA_NDTYPES - 1; k >= 0; k--) {
        int t = sa_descrs[k]->type_num;
        if (t >= 0 && t < NPY_NTYPES_LEGACY) {
            sa_code_of_type[t] = (signed char)k;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *
mod_set_cffi(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_set_cffi(cast, ctype) takes 2 arguments");
        return NULL;
    }
    Py_XSETREF(cffi_cast, Py_NewRef(args[0]));
    Py_XSETREF(cffi_ctype, Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

static PyMethodDef mod_methods[] = {
    {"_make", (PyCFunction)(void (*)(void))mod_make, METH_FASTCALL,
     "_make(storage, dtype, shape, strides, origin, npv=None): the one validating "
     "constructor."},
    {"_make_c", (PyCFunction)(void (*)(void))mod_make_c, METH_FASTCALL,
     "_make_c(arr, dtype): an array over a whole C-contiguous aligned ndarray."},
    {"_set_array_class", mod_set_array_class, METH_O, "Register stridedarray.Array."},
    {"_wrap", sa_wrap, METH_O,
     "_wrap(result): a NumPy result as an array (fresh C-contiguous ones in C)."},
    {"_view_ndarray", sa_view_ndarray, METH_O,
     "_view_ndarray(arr): an array over a whole C-contiguous aligned native ndarray, or None."},
    {"_set_wrap_fallback", sa_set_wrap_fallback, METH_O,
     "Register the Python path of _wrap (results C does not take)."},
    {"_set_fpe", (PyCFunction)(void (*)(void))sa_set_fpe, METH_FASTCALL,
     "Register NumPy's error-state ContextVar, the quiet states and their maker."},
    {"_set_getitem_fallback", sa_set_getitem_fallback, METH_O,
     "Register the Python path of indexing (keys the C path does not take)."},
    {"_register_dtypes", mod_register_dtypes, METH_O, "Register the 13 DTypes, by code."},
    {"_set_cffi", (PyCFunction)(void (*)(void))mod_set_cffi, METH_FASTCALL,
     "Register ffi.cast and the `sa_array *` ctype."},
    {"_set_matmul", (PyCFunction)(void (*)(void))sa_set_matmul, METH_FASTCALL,
     "Register the C core's matmul entry point, the policy ContextVar and the error path."},
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
    zero = PyLong_FromLong(0);
    if (zero == NULL) {
        return NULL;
    }
    if (PyType_Ready(&sa_StorageType) < 0 || PyType_Ready(&sa_ArrayBaseType) < 0
        || PyType_Ready(&sa_FastOpType) < 0 || PyType_Ready(&sa_FastCreateType) < 0
        || PyType_Ready(&sa_FastMatmulType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "_Storage", (PyObject *)&sa_StorageType) < 0
        || PyModule_AddObjectRef(m, "ArrayBase", (PyObject *)&sa_ArrayBaseType) < 0
        || PyModule_AddObjectRef(m, "FastOp", (PyObject *)&sa_FastOpType) < 0
        || PyModule_AddObjectRef(m, "FastCreate", (PyObject *)&sa_FastCreateType) < 0
        || PyModule_AddObjectRef(m, "FastMatmul", (PyObject *)&sa_FastMatmulType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
