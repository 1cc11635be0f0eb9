/* Basic indexing, the transposes, flip and permute_dims in C (docs/array.md, "Views"): the one
 * implementation of basic indexing's rule (keys made of ints, slices, None and one Ellipsis)
 * and of its errors (an index out of bounds, too many indices, two ellipses, a result of more
 * than SA_MAXDIM axes). Every view is checked by the one constructor (sa_make_view from C
 * values; sa_make with the exact Python values when a stride is beyond what C holds).
 * `x[key]` takes keys of exact ints, slices, None and Ellipsis here; any other key (NumPy
 * integers, 0-d integer arrays, bools, advanced keys, malformed items) goes to the Python path
 * registered by stridedarray._api.getitem, which turns integer-likes into ints and calls this rule
 * again (`_basic_view`), or indexes with NumPy (advanced keys).
 */
#include "arraytype.h"

static PyObject *getitem_fallback = NULL;  /* _getitem.getitem(x, key) */

static PyObject *
fallback(PyObject *self, PyObject *key)
{
    if (getitem_fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridedarray._arraytype: no indexing fallback");
        return NULL;
    }
    return PyObject_CallFunctionObjArgs(getitem_fallback, self, key, NULL);
}

/* Does the array have an extent beyond int64 (only an array over stride 0 or an empty one,
 * made by the private constructor)? C holds such an extent as 0; -1: error. */
static int
has_big_extent(ArrayObject *a)
{
    if (!(a->flags & SA_F_HUGE) || a->shape == NULL) {
        return 0;  /* built in C (from C values) or no extent beyond NumPy's */
    }
    for (int k = 0; k < a->nd; k++) {
        int ovf;
        long long v = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(a->shape, k), &ovf);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (ovf) {
            return 1;
        }
    }
    return 0;
}

/* The view for key items whose result C computed in `d` but cannot hold exactly: a parent
 * stride C holds as 0 (SA_F_INEXACT), or a stride times a slice's step beyond int64. Such a
 * stride belongs to an axis of extent <= 1 or an empty array, where no index multiplies it,
 * so only the strides tuple shows it: each result stride is made again as the parent's exact
 * stride times the step (1 for an axis kept whole, 0 for a new axis). The items were walked
 * by basic_view (all valid); `used` is the axes they consume, `steps` the slices' steps as
 * basic_view read them, in order. Called off the common path. */
static PyObject *
make_exact_view(ArrayObject *a, const sa_desc *d, PyObject *const *items, Py_ssize_t nitems,
                Py_ssize_t used, const Py_ssize_t *steps)
{
    PyObject *pstrides = sa_array_strides(a), *st = sa_array_storage(a);
    if (pstrides == NULL || st == NULL) {
        return NULL;
    }
    PyObject *shape = PyTuple_New(d->nd), *strides = PyTuple_New(d->nd);
    PyObject *origin = PyLong_FromLongLong(d->origin), *res = NULL;
    if (shape == NULL || strides == NULL || origin == NULL) {
        goto done;
    }
    int nd = a->nd, ax = 0, k = 0, nslice = 0;
    for (Py_ssize_t i = 0; i <= nitems; i++) {
        PyObject *key = i < nitems ? items[i] : NULL;  /* NULL: the axes after the key */
        Py_ssize_t step = 1;
        int take = 0;  /* parent axes kept whole */
        if (key == Py_None) {
            PyObject *zero = PyLong_FromLong(0);
            if (zero == NULL) {
                goto done;
            }
            PyTuple_SET_ITEM(strides, k++, zero);
            continue;
        }
        if (key == NULL) {
            take = nd - ax;
        }
        else if (key == Py_Ellipsis) {
            take = nd - (int)used;
        }
        else if (PyLong_CheckExact(key)) {
            ax++;
            continue;
        }
        else {
            /* The step basic_view read: a slice's __index__ is not asked again (it may
             * answer otherwise the second time). */
            step = steps[nslice++];
            take = 1;
        }
        PyObject *m = PyLong_FromSsize_t(step);
        if (m == NULL) {
            goto done;
        }
        for (int j = 0; j < take; j++) {
            PyObject *sv = PyNumber_Multiply(PyTuple_GET_ITEM(pstrides, ax++), m);
            if (sv == NULL) {
                Py_DECREF(m);
                goto done;
            }
            PyTuple_SET_ITEM(strides, k++, sv);
        }
        Py_DECREF(m);
    }
    if (k != d->nd) {  /* the walk above mirrors basic_view's: cannot happen */
        PyErr_SetString(PyExc_SystemError, "basic indexing: result axes miscounted");
        goto done;
    }
    for (k = 0; k < d->nd; k++) {
        PyObject *n = PyLong_FromLongLong(d->shape[k]);
        if (n == NULL) {
            goto done;
        }
        PyTuple_SET_ITEM(shape, k, n);
    }
    res = sa_make(st, a->dtype, shape, strides, origin, NULL);
done:
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(origin);
    return res;
}

/* The rule: the view of `a` for a key's items. 1 with *out set; 0 when an item is not an
 * exact int, a slice, None or Ellipsis (the caller's Python path decides); -1 with an
 * exception (the messages every path gives: NumPy's words). Inlined into both callers: `x[key]`
 * pays no call for it (the per-call cost of a view, docs/dev/internals.md). */
static inline __attribute__((always_inline)) int
basic_view(ArrayObject *a, PyObject *const *items, Py_ssize_t nitems, PyObject **out)
{
    int nd = a->nd;
    /* used: axes the key consumes (ints and slices); removed: those it drops (ints); added:
     * the new axes (None). The result has nd - removed + added axes: a slice keeps its axis. */
    Py_ssize_t used = 0, removed = 0, added = 0, ellipses = 0;
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *k = items[i];
        if (PyLong_CheckExact(k)) {
            used++;
            removed++;
        }
        else if (PySlice_Check(k)) {
            used++;
        }
        else if (k == Py_None) {
            added++;
        }
        else if (k == Py_Ellipsis) {
            ellipses++;
        }
        else {
            return 0;
        }
    }
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
        return -1;
    }
    if (used > nd) {
        PyErr_Format(PyExc_IndexError, "too many indices: %zd for an array of rank %d", used,
                     nd);
        return -1;
    }
    /* The result's axes are written into sa_desc's SA_MAXDIM-entry arrays below: a rank past
     * the limit is refused before any is written, as NumPy refuses it (docs/reliability.md).
     * The counts are Py_ssize_t, as the key's length is. */
    Py_ssize_t out_rank = nd - removed + added;
    if (out_rank > SA_MAXDIM) {
        PyErr_Format(PyExc_IndexError,
                     "number of dimensions must be within [0, %d], indexing result would have "
                     "%zd",
                     SA_MAXDIM, out_rank);
        return -1;
    }
    int big = (a->flags & SA_F_HUGE) ? has_big_extent(a) : 0;
    if (big) {
        if (big > 0) {
            PyErr_Format(PyExc_IndexError,
                         "cannot index an array with an extent beyond 2**63 - 1 (shape %R); "
                         "index an array of at most 2**63 - 1 elements per axis",
                         a->shape);
        }
        return -1;
    }
    sa_desc d;
    int64_t *shape = d.shape, *strides = d.strides;
    int64_t origin = a->corigin;
    int empty = (a->flags & SA_F_EMPTY) != 0, oflow = 0;
    /* C holds some parent stride as 0 (SA_F_INEXACT): the result's strides come from the
     * exact values (make_exact_view). */
    int exact = (a->flags & SA_F_INEXACT) != 0;
    int ax = 0, out_nd = 0, nslice = 0;
    /* Each slice's step as read here, once (at most `used` <= nd <= SA_MAXDIM slices). */
    Py_ssize_t steps[SA_MAXDIM];
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *k = items[i];
        if (k == Py_None) {
            shape[out_nd] = 1;
            strides[out_nd++] = 0;
            continue;
        }
        if (k == Py_Ellipsis) {
            int m = ax + nd - (int)used;  /* used <= nd */
            for (; ax < m; ax++) {
                shape[out_nd] = a->cshape[ax];
                strides[out_nd++] = a->cstrides[ax];
            }
            continue;
        }
        int64_t n = a->cshape[ax], s = a->cstrides[ax];
        if (PyLong_CheckExact(k)) {
            int ovf;
            long long i0 = PyLong_AsLongLongAndOverflow(k, &ovf);
            if (i0 == -1 && PyErr_Occurred()) {
                return -1;
            }
            long long j = (!ovf && i0 < 0) ? i0 + n : i0;
            if (ovf || j < 0 || j >= n) {
                PyErr_Format(PyExc_IndexError,
                             "index %S is out of bounds for axis %d with size %lld", k, ax,
                             (long long)n);
                return -1;
            }
            /* An offset beyond int64 only in an empty array (whose origin is kept). */
            int64_t off;
            if (__builtin_mul_overflow((int64_t)j, s, &off)
                || __builtin_add_overflow(origin, off, &origin)) {
                oflow = 1;
            }
            ax++;
            continue;
        }
        /* a slice */
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(k, &start, &stop, &step) < 0) {
            return -1;
        }
        steps[nslice++] = step;
        Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)n, &start, &stop, step);
        int64_t ns;
        if (__builtin_mul_overflow(s, (int64_t)step, &ns)) {
            exact = 1;  /* beyond int64: an axis of extent <= 1 (or empty), as Python ints */
            ns = 0;
        }
        if (len) {
            int64_t off;
            if (__builtin_mul_overflow((int64_t)start, s, &off)
                || __builtin_add_overflow(origin, off, &origin)) {
                oflow = 1;
            }
        }
        else {
            empty = 1;
        }
        shape[out_nd] = len;
        strides[out_nd++] = ns;
        ax++;
    }
    for (; ax < nd; ax++) {
        shape[out_nd] = a->cshape[ax];
        strides[out_nd++] = a->cstrides[ax];
    }
    if (oflow && !empty) {
        /* Cannot happen: a non-empty parent's reachable offsets fit int64 (constructor). */
        PyErr_SetString(PyExc_SystemError, "basic indexing: a view's origin beyond int64");
        return -1;
    }
    d.nd = out_nd;
    d.wide = 0;
    d.origin = empty ? a->corigin : origin;
    *out = exact ? make_exact_view(a, &d, items, nitems, used, steps)
                 : sa_make_view(a, &d, NULL);
    return *out == NULL ? -1 : 1;
}

PyObject *
sa_array_subscript(PyObject *self, PyObject *key)
{
    ArrayObject *a = (ArrayObject *)self;
    PyObject *out = NULL;
    int r;
    if (PyTuple_CheckExact(key)) {
        r = basic_view(a, &PyTuple_GET_ITEM(key, 0), PyTuple_GET_SIZE(key), &out);
    }
    else {
        r = basic_view(a, &key, 1, &out);
    }
    if (r < 0) {
        return NULL;
    }
    return r ? out : fallback(self, key);
}

/* _basic_view(x, items): the rule for the Python path, whose key it has normalised (a tuple
 * of exact ints, slices, None and Ellipsis). TypeError for any other item. */
PyObject *
sa_basic_view(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || sa_array_class == NULL || !PyObject_TypeCheck(args[0], sa_array_class)
        || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_basic_view(x, items): an Array and a tuple");
        return NULL;
    }
    PyObject *out = NULL;
    int r = basic_view((ArrayObject *)args[0], &PyTuple_GET_ITEM(args[1], 0),
                       PyTuple_GET_SIZE(args[1]), &out);
    if (r == 0) {
        PyErr_SetString(PyExc_TypeError,
                        "_basic_view: items must be ints, slices, None or Ellipsis");
    }
    return r > 0 ? out : NULL;
}

/* The axis of `a` that axis k of a.mT is: the last two swapped. */
static inline int
mT_axis(int k, int nd)
{
    return k < nd - 2 ? k : (k == nd - 2 ? nd - 1 : nd - 2);
}

PyObject *
sa_array_get_mT(PyObject *self, void *closure)
{
    ArrayObject *a = (ArrayObject *)self;
    int nd = a->nd;
    if (nd < 2) {
        PyErr_Format(PyExc_ValueError, "mT needs an array of rank >= 2, got rank %d", nd);
        return NULL;
    }
    if (a->flags & (SA_F_HUGE | SA_F_INEXACT)) {
        /* C does not hold every extent or stride: permute the exact Python values. */
        PyObject *shape = sa_array_shape(a), *strides = sa_array_strides(a);
        PyObject *origin = sa_array_origin(a), *storage = sa_array_storage(a);
        if (shape == NULL || strides == NULL || origin == NULL || storage == NULL) {
            return NULL;
        }
        PyObject *sh = PyTuple_New(nd), *st = PyTuple_New(nd);
        PyObject *res = NULL;
        if (sh != NULL && st != NULL) {
            for (int k = 0; k < nd; k++) {
                int j = mT_axis(k, nd);
                PyTuple_SET_ITEM(sh, k, Py_NewRef(PyTuple_GET_ITEM(shape, j)));
                PyTuple_SET_ITEM(st, k, Py_NewRef(PyTuple_GET_ITEM(strides, j)));
            }
            res = sa_make(storage, a->dtype, sh, st, origin, NULL);
        }
        Py_XDECREF(sh);
        Py_XDECREF(st);
        return res;
    }
    sa_desc d;
    d.nd = nd;
    d.wide = 0;
    d.origin = a->corigin;
    for (int k = 0; k < nd; k++) {
        int j = mT_axis(k, nd);
        d.shape[k] = a->cshape[j];
        d.strides[k] = a->cstrides[j];
    }
    return sa_make_view(a, &d, NULL);
}

PyObject *
sa_array_get_T(PyObject *self, void *closure)
{
    ArrayObject *a = (ArrayObject *)self;
    if (a->nd != 2) {
        PyErr_Format(PyExc_ValueError,
                     "T is defined for 2-D arrays only (got rank %d); use mT", a->nd);
        return NULL;
    }
    return sa_array_get_mT(self, closure);
}

void
sa_set_getitem_fallback(PyObject *func)
{
    Py_XSETREF(getitem_fallback, Py_NewRef(func));
}

/* The keyword argument `name` of a NativeFunction call when it is the only one (1, *value set), 0
 * when there are none, -1 when there are others (the Python function takes the call). */
static int
only_keyword(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *name,
             PyObject **value)
{
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nkw == 0) {
        return 0;
    }
    if (nkw > 1 || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), name) != 0) {
        return -1;
    }
    *value = args[nargs];
    return 1;
}

/* The array argument of a view function when C holds its descriptor exactly (no extent or
 * stride beyond int64), else NULL (the Python function takes the call). */
static ArrayObject *
plain_array(PyObject *x)
{
    if (sa_array_class == NULL || !PyObject_TypeCheck(x, sa_array_class)) {
        return NULL;
    }
    ArrayObject *a = (ArrayObject *)x;
    return a->flags & (SA_F_HUGE | SA_F_INEXACT) ? NULL : a;
}

/* An axis argument of flip and permute_dims: 1 with *j set when `p` is an exact int in
 * [-nd, nd) (normalised), 0 when the Python path is to take the call (another type, out of
 * range: it raises the specific error), -1 with an exception. */
static int
exact_axis(PyObject *p, int nd, int *j)
{
    if (!PyLong_CheckExact(p)) {
        return 0;
    }
    int ovf;
    long long v = PyLong_AsLongLongAndOverflow(p, &ovf);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (ovf || v < -nd || v >= nd) {
        return 0;
    }
    *j = (int)(v < 0 ? v + nd : v);
    return 1;
}

int
sa_namespace_permute_dims(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                          PyObject **out)
{
    /* permute_dims(x, axes) or permute_dims(x, axes=axes), axes an exact tuple of distinct
     * exact ints in [-nd, nd), one per axis: the axes reordered, every offset the same. */
    PyObject *axes = NULL;
    int kw = only_keyword(args, nargs, kwnames, "axes", &axes);
    if (kw < 0 || nargs + kw != 2) {
        return 0;
    }
    if (!kw) {
        axes = args[1];
    }
    ArrayObject *a = plain_array(args[0]);
    if (a == NULL || !PyTuple_CheckExact(axes) || PyTuple_GET_SIZE(axes) != a->nd) {
        return 0;
    }
    int nd = a->nd;
    uint64_t seen = 0;  /* nd <= SA_MAXDIM = 64 bits */
    sa_desc d;
    for (int k = 0; k < nd; k++) {
        int j, r = exact_axis(PyTuple_GET_ITEM(axes, k), nd, &j);
        if (r <= 0) {
            return r;  /* not an exact int in range: the Python path says which axis is wrong */
        }
        if (seen & ((uint64_t)1 << j)) {
            return 0;  /* not a permutation: the Python path says so */
        }
        seen |= (uint64_t)1 << j;
        d.shape[k] = a->cshape[j];
        d.strides[k] = a->cstrides[j];
    }
    d.nd = nd;
    d.wide = 0;
    d.origin = a->corigin;
    *out = sa_make_view(a, &d, NULL);
    return *out == NULL ? -1 : 1;
}

int
sa_namespace_flip(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    /* flip(x) and flip(x, axis=None or an exact int in [-nd, nd)): each flipped axis's stride
     * negated, the origin moved to its last element (kept in an empty array). */
    PyObject *axis = Py_None;
    if (nargs != 1 || only_keyword(args, nargs, kwnames, "axis", &axis) < 0) {
        return 0;
    }
    ArrayObject *a = plain_array(args[0]);
    if (a == NULL) {
        return 0;
    }
    int nd = a->nd, only = -1;
    if (axis != Py_None) {
        int r = exact_axis(axis, nd, &only);
        if (r <= 0) {
            return r;  /* the Python path raises the axis error */
        }
    }
    int empty = (a->flags & SA_F_EMPTY) != 0;
    sa_desc d;
    int64_t origin = a->corigin;
    for (int k = 0; k < nd; k++) {
        int64_t n = a->cshape[k], s = a->cstrides[k];
        d.shape[k] = n;
        if (only >= 0 && k != only) {
            d.strides[k] = s;
            continue;
        }
        /* (n - 1) * s is the axis's span, inside the parent's offsets (not SA_F_HUGE): no
         * overflow in a non-empty array; checked all the same. */
        int64_t span;
        if (__builtin_sub_overflow((int64_t)0, s, &d.strides[k])
            || (!empty
                && (__builtin_mul_overflow(n - 1, s, &span)
                    || __builtin_add_overflow(origin, span, &origin)))) {
            return 0;
        }
    }
    d.nd = nd;
    d.wide = 0;
    d.origin = origin;
    *out = sa_make_view(a, &d, NULL);
    return *out == NULL ? -1 : 1;
}
