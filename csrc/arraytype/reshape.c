/* `reshape(x, shape)` in C (docs/array.md, "What a call costs"): the view of an array in a new
 * shape when its strides allow one, checked by the one constructor (sa_make_view). Every other
 * call (a copy, copy=True, a shape that is not an exact tuple of ints, a size mismatch and
 * every other error) is left to the Python function, which gives the copies and the messages.
 */
#include "arraytype.h"

#include "base/checked_internal.h"

int
sa_reshape_strides(int nd, const int64_t *shape, const int64_t *strides, int new_nd,
                   const int64_t *new_shape, int64_t *new_strides)
{
    /* The old axes of extent > 1 (an extent-1 axis moves nothing, whatever its stride). */
    int64_t on[SA_MAXDIM], os[SA_MAXDIM];
    int m = 0;
    for (int k = 0; k < nd; k++) {
        if (shape[k] != 1) {
            on[m] = shape[k];
            os[m++] = strides[k];
        }
    }
    for (int k = 0; k < new_nd; k++) {
        new_strides[k] = 0;
    }
    int oi = 0, ni = 0;
    while (oi < m && ni < new_nd) {
        /* The smallest groups old[oi:oj], new[ni:nj] with the same element count. The sizes
         * are equal, so every partial product is at most the size (no overflow), and a group
         * ends before either list does; the index checks only guard the arrays. */
        int oj = oi + 1, nj = ni + 1;
        int64_t op = on[oi], np_ = new_shape[ni];
        while (op != np_) {
            if (np_ < op) {
                if (nj >= new_nd || sa_mul_size(np_, new_shape[nj++], &np_)) {
                    return 0;
                }
            }
            else if (oj >= m || sa_mul_size(op, on[oj++], &op)) {
                return 0;
            }
        }
        /* The old group must be one strided run: each stride the next one's times its extent
         * (a product beyond int64 equals no stride). */
        for (int k = oi; k < oj - 1; k++) {
            int64_t run;
            if (sa_mul_size(on[k + 1], os[k + 1], &run) || os[k] != run) {
                return 0;
            }
        }
        new_strides[nj - 1] = os[oj - 1];
        for (int k = nj - 1; k > ni; k--) {
            if (sa_mul_size(new_strides[k], new_shape[k], &new_strides[k - 1])) {
                return 0;
            }
        }
        oi = oj;
        ni = nj;
    }
    return 1;
}

/* `shape` as C extents when it is an exact int or an exact tuple of at most 64 exact ints,
 * each non-negative or one of them -1 (its index in *infer, else -1); else 0. */
static int
plain_reshape_shape(PyObject *shape, int *nd, int64_t *dims, int *infer)
{
    PyObject *const *items;
    Py_ssize_t n;
    if (!sa_shape_entries(&shape, &items, &n)) {
        return 0;
    }
    *infer = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!PyLong_CheckExact(items[k])) {
            return 0;
        }
        int ovf;
        long long v = PyLong_AsLongLongAndOverflow(items[k], &ovf);
        if (ovf || v < -1 || (v == -1 && *infer >= 0)) {
            return 0;  /* beyond int64 or negative: the Python path says what is wrong */
        }
        if (v == -1) {
            *infer = (int)k;
        }
        dims[k] = v;
    }
    *nd = (int)n;
    return 1;
}

int
sa_namespace_reshape(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    /* reshape(x, shape) and reshape(x, shape, copy=None or False): a view, when there is
     * one. copy=True always copies, so its call overhead does not matter. */
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs != 2 || nkw > 1) {
        return 0;
    }
    if (nkw == 1) {
        PyObject *copy = args[2];
        if ((copy != Py_None && copy != Py_False)
            || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "copy") != 0) {
            return 0;
        }
    }
    if (sa_array_class == NULL || !PyObject_TypeCheck(args[0], sa_array_class)) {
        return 0;
    }
    ArrayObject *a = (ArrayObject *)args[0];
    if (a->flags & SA_F_HUGE) {
        return 0;  /* an extent beyond int64: Python's integers hold it */
    }
    sa_desc d;
    int infer;
    if (!plain_reshape_shape(args[1], &d.nd, d.shape, &infer)) {
        return 0;
    }
    /* Sizes: x's fits int64 (not SA_F_HUGE); the new shape's must match it. */
    int64_t size = 1, known = 1;
    for (int k = 0; k < a->nd; k++) {
        if (sa_mul_size(size, a->cshape[k], &size)) {
            return 0;
        }
    }
    for (int k = 0; k < d.nd; k++) {
        if (k != infer && sa_mul_size(known, d.shape[k], &known)) {
            return 0;
        }
    }
    if (infer >= 0) {
        if (known == 0 || size % known) {
            return 0;
        }
        d.shape[infer] = size / known;
    }
    else if (known != size) {
        return 0;
    }
    /* The new shape must describe an array that can exist (check_size's rule: its non-zero
     * extents times the item size fit int64), a zero-size one too. */
    int64_t bytes = PyArray_ITEMSIZE((PyArrayObject *)a->buf);
    for (int k = 0; k < d.nd; k++) {
        if (d.shape[k] && sa_mul_size(bytes, d.shape[k], &bytes)) {
            return 0;
        }
    }
    d.wide = 0;
    d.origin = a->corigin;
    if (size == 0) {
        /* Nothing is reached: row-major strides (each fits, by the byte check above). */
        sa_row_major_strides(d.nd, d.shape, d.strides);
    }
    else if (!sa_reshape_strides(a->nd, a->cshape, a->cstrides, d.nd, d.shape, d.strides)) {
        return 0;  /* no view: the Python path copies, or raises for copy=False */
    }
    *out = sa_make_view(a, &d, NULL);
    return *out == NULL ? -1 : 1;
}

PyObject *
sa_reshape_strides_py(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    /* The Python path (reshape's other calls, tensordot's merge of axes) has checked the new
     * shape against x's size; what it gives is checked again here, as C values. */
    if (nargs != 2 || sa_array_class == NULL || !PyObject_TypeCheck(args[0], sa_array_class)) {
        PyErr_SetString(PyExc_TypeError, "_reshape_strides(x, shape): x must be an Array");
        return NULL;
    }
    ArrayObject *a = (ArrayObject *)args[0];
    int nd, infer;
    int64_t dims[SA_MAXDIM], strides[SA_MAXDIM];
    if (PyTuple_Check(args[1]) && sa_check_rank(PyTuple_GET_SIZE(args[1])) < 0) {
        return NULL;  /* the rank limit's ValueError, as the constructor gives it */
    }
    if (!plain_reshape_shape(args[1], &nd, dims, &infer) || infer >= 0) {
        PyErr_SetString(PyExc_TypeError,
                        "_reshape_strides: shape must be a tuple of at most 64 ints in "
                        "[0, 2**63 - 1]");
        return NULL;
    }
    int64_t size = 1, new_size = 1;
    int huge = (a->flags & SA_F_HUGE) != 0;
    for (int k = 0; k < a->nd && !huge; k++) {
        huge = sa_mul_size(size, a->cshape[k], &size);
    }
    for (int k = 0; k < nd && !huge; k++) {
        huge = sa_mul_size(new_size, dims[k], &new_size);
    }
    if (huge || size != new_size || size == 0) {
        PyErr_Format(PyExc_ValueError,
                     "_reshape_strides: x (not empty, at most 2**63 - 1 bytes) and shape must "
                     "have the same size");
        return NULL;
    }
    if (!sa_reshape_strides(a->nd, a->cshape, a->cstrides, nd, dims, strides)) {
        Py_RETURN_NONE;
    }
    PyObject *t = PyTuple_New(nd);
    for (int k = 0; t != NULL && k < nd; k++) {
        PyObject *v = PyLong_FromLongLong(strides[k]);
        if (v == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}
