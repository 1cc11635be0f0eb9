/* The one validating constructor of ArrayBase (docs/array.md, "The array type"): every array,
 * from Python (sa_make: views, pickles, copies, DLPack) or from C (sa_make_c, sa_make_view,
 * sa_make_strided: results and views built from checked parents), passes the same bounds and
 * flags check on C values before it exists, and nothing can change its descriptor afterwards. */
#include "arraytype.h"

#include <assert.h>

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

/* `t` as a tuple of exact ints (a new reference). Anything but an exact int goes through
 * index_value; exact ints are kept as they are (an extent beyond int64 with stride 0 is a
 * valid broadcast), or with `strict` range-checked too (a pickle holds none beyond int64). */
static PyObject *
index_tuple(PyObject *t, const char *what, int nonneg, int strict)
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
        if (PyLong_CheckExact(v) && !strict) {
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

/* The origin as an exact int (a new reference): exact ints kept (any size) unless `strict`,
 * bools refused, anything else through operator.index, range-checked. */
static PyObject *
index_origin(PyObject *origin_in, int strict)
{
    if (PyLong_CheckExact(origin_in) && !strict) {
        return Py_NewRef(origin_in);
    }
    if (PyBool_Check(origin_in)) {
        PyErr_SetString(PyExc_TypeError, "descriptor origin must be an integer, not a bool");
        return NULL;
    }
    PyObject *origin = PyNumber_Index(origin_in);
    if (origin == NULL) {
        PyErr_Format(PyExc_TypeError, "descriptor origin must be an integer, got %.100s",
                     Py_TYPE(origin_in)->tp_name);
        return NULL;
    }
    int ok = in_int64_range(origin, 0);
    if (ok <= 0) {
        if (ok == 0) {
            PyErr_Format(PyExc_ValueError,
                         "descriptor origin %S is outside the signed 64-bit range", origin);
        }
        Py_DECREF(origin);
        return NULL;
    }
    return origin;
}

PyObject *
sa_descriptor_ints(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "_descriptor_ints(shape, strides, origin)");
        return NULL;
    }
    PyObject *shape = index_tuple(args[0], "shape", 1, 1);
    PyObject *strides = shape == NULL ? NULL : index_tuple(args[1], "strides", 0, 1);
    PyObject *origin = strides == NULL ? NULL : index_origin(args[2], 1);
    PyObject *res = origin == NULL ? NULL : PyTuple_Pack(3, shape, strides, origin);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(origin);
    return res;
}

/* The out-of-bounds error, its offsets computed with Python ints (any size). */
static void
raise_out_of_bounds(PyObject *shape, PyObject *strides, PyObject *origin, Py_ssize_t nbuf)
{
    PyObject *lo = Py_NewRef(origin), *hi = Py_NewRef(origin), *one = PyLong_FromLong(1);
    PyObject *zero = PyLong_FromLong(0);
    if (one == NULL || zero == NULL) {
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
    Py_XDECREF(zero);
    Py_DECREF(lo);
    Py_DECREF(hi);
}

#ifndef NDEBUG
/* Debug builds: the invariant, recomputed from the C fields. */
static void
assert_invariant(const ArrayObject *a)
{
    /* The storage ndarray's own shape and flags are not compared: whoever holds it
     * (x.buffer) may assign them after the check; what counts is nbuf, recorded then. */
    assert(a->nd >= 0 && a->nd <= SA_MAXDIM);
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
    /* The array's registered dtype, not the storage's live one (see sa_array_np). */
    PyArray_Descr *descr = sa_descrs[a->code];
    if (PyArray_NDIM(v) != a->nd || !PyArray_EquivTypes(PyArray_DESCR(v), descr)
        || !PyArray_ISALIGNED(v)) {
        return 0;
    }
    if ((a->flags & SA_F_ALIASED || !PyArray_ISWRITEABLE(base)) && PyArray_ISWRITEABLE(v)) {
        return 0;
    }
    int64_t its = PyDataType_ELSIZE(descr);
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
 * descriptor was built in C (which holds them exactly: see SA_F_INEXACT). Borrowed: published
 * once (sa_lazy_publish), so two threads asking at once get one object and nothing leaks. */
PyObject *
sa_array_storage(ArrayObject *a)
{
    PyObject *st = SA_LAZY_LOAD(a->storage);
    if (st == NULL) {
        /* checked when the array was made; its element count as recorded then */
        st = sa_lazy_publish(&a->storage, sa_storage_of(a->buf, a->nbuf));
    }
    return st;
}

PyObject *
sa_array_shape(ArrayObject *a)
{
    PyObject *t = SA_LAZY_LOAD(a->shape);
    return t != NULL ? t : sa_lazy_publish(&a->shape, int_tuple(a->nd, a->cshape));
}

PyObject *
sa_array_strides(ArrayObject *a)
{
    PyObject *t = SA_LAZY_LOAD(a->strides);
    return t != NULL ? t : sa_lazy_publish(&a->strides, int_tuple(a->nd, a->cstrides));
}

PyObject *
sa_array_origin(ArrayObject *a)
{
    PyObject *o = SA_LAZY_LOAD(a->origin);
    return o != NULL ? o : sa_lazy_publish(&a->origin, PyLong_FromLongLong(a->corigin));
}

/* 0 when a descriptor of `nd` axes fits sa_desc and sa_array (SA_MAXDIM entries each), else
 * -1 with the ValueError: checked before any writer fills one of their arrays. */
int
sa_check_rank(Py_ssize_t nd)
{
    if (nd < 0 || nd > SA_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "arrays have at most %d dimensions, got %zd", SA_MAXDIM,
                     nd);
        return -1;
    }
    return 0;
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
    /* Every array's rank fits the C core's descriptor (sa_array's SA_MAXDIM-entry arrays,
     * filled from this one by sa_array_cdesc) and NumPy's: a caller that built a longer
     * descriptor gets this error, in every build (docs/reliability.md). */
    if (sa_check_rank(nd) < 0) {
        goto fail;
    }
    a = sa_array_alloc();
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
    /* Extents: exact values or flagged beyond int64 (`big`), negative ones refused. Can
     * NumPy and the C core hold the array (every extent in int64, at most 2**63-1 bytes)? */
    int flags = 0;
    int64_t bytes = PyDataType_ELSIZE(sa_descrs[code]);  /* the storage's is assignable */
    for (int k = 0; k < nd; k++) {
        int big = d->wide && d->big[k];
        if (big || (d->shape[k] && __builtin_mul_overflow(bytes, d->shape[k], &bytes))) {
            flags |= SA_F_HUGE;
        }
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
    shape = index_tuple(shape_in, "shape", 1, 0);
    if (shape == NULL) {
        return NULL;
    }
    strides = index_tuple(strides_in, "strides", 0, 0);
    if (strides == NULL) {
        goto fail;
    }
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    if (nd != PyTuple_GET_SIZE(strides)) {
        PyErr_Format(PyExc_ValueError, "descriptor has shape %R but strides %R", shape, strides);
        goto fail;
    }
    if (sa_check_rank(nd) < 0) {
        goto fail;
    }
    origin = index_origin(origin_in, 0);
    if (origin == NULL) {
        goto fail;
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
    if (sa_storage_check(arr) < 0) {
        return NULL;
    }
    PyArrayObject *v = (PyArrayObject *)arr;
    if (sa_check_rank(PyArray_NDIM(v)) < 0) {  /* NumPy's own limit is the same today */
        return NULL;
    }
    sa_desc d;
    d.nd = PyArray_NDIM(v);
    d.wide = 0;
    d.origin = 0;
    int empty = 0;
    for (int k = 0; k < d.nd; k++) {
        d.shape[k] = PyArray_DIM(v, k);
        empty |= d.shape[k] == 0;
    }
    /* An ndarray's extents: no overflow. */
    int64_t size = sa_row_major_strides(d.nd, d.shape, d.strides);
    if (empty) {
        size = 0;
    }
    /* The whole of an exact ndarray is its own NumPy view (a subclass is not cached). */
    return construct(arr, size, NULL, sa_dtypes[code], code, &d, NULL, NULL, NULL,
                     PyArray_CheckExact(arr) ? arr : NULL, 1);
}

PyObject *
sa_make_strided(PyObject *arr, int code)
{
    PyArrayObject *v = (PyArrayObject *)arr;
    npy_intp its = PyArray_ITEMSIZE(v);
    if (PyArray_IS_C_CONTIGUOUS(v)) {
        return sa_make_c(arr, code);
    }
    if (sa_check_rank(PyArray_NDIM(v)) < 0) {
        return NULL;
    }
    if (PyArray_SIZE(v) == 0) {
        /* No element to view: a new empty array of its shape (no memory to keep alive). */
        PyArray_Descr *descr = sa_descrs[code];
        Py_INCREF(descr); /* stolen */
        PyObject *e = PyArray_Empty(PyArray_NDIM(v), PyArray_DIMS(v), descr, 0);
        if (e == NULL) {
            return NULL;
        }
        PyObject *res = sa_make_c(e, code);
        Py_DECREF(e);
        return res;
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
                return NULL;  /* declined: the elements cannot be counted; the caller copies */
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
    PyObject *res = sa_storage_check(flat) < 0
                        ? NULL
                        : construct(flat, len, NULL, sa_dtypes[code], code, &d, NULL, NULL,
                                    NULL, arr, 0);
    Py_DECREF(flat);
    return res;
}
