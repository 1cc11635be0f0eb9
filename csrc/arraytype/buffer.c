/* The buffer protocol of the array type (docs/array.md, "The buffer protocol"): memoryview(x)
 * on every supported Python (3.11 has no __buffer__), with the array's shape, signed byte
 * strides and NumPy's format character for its dtype.
 *
 * The export is the cached NumPy view's own, so format, strides and the consumer's contiguity
 * requests behave exactly as NumPy's; `view->obj` is then the array itself, which holds that
 * view for its whole life. A read-only array (read-only storage, or several indices aliasing
 * one element) refuses PyBUF_WRITABLE with BufferError.
 */
#include "arraytype.h"

static int
array_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    ArrayObject *a = (ArrayObject *)self;
    if (flags & PyBUF_WRITABLE) {
        if (a->flags & SA_F_ALIASED) {
            PyErr_SetString(PyExc_BufferError,
                            "a writable buffer was requested but this array is read-only: a "
                            "zero stride makes several indices one element (a broadcast view)");
            view->obj = NULL;
            return -1;
        }
        if (!PyArray_ISWRITEABLE((PyArrayObject *)a->buf)) {
            PyErr_SetString(PyExc_BufferError,
                            "a writable buffer was requested but this array is read-only: its "
                            "storage is read-only");
            view->obj = NULL;
            return -1;
        }
    }
    PyObject *v = sa_array_np(a);
    if (v == NULL) {
        view->obj = NULL;
        return -1;
    }
    PyBufferProcs *pb = Py_TYPE(v)->tp_as_buffer;
    int rc = pb->bf_getbuffer(v, view, flags);
    if (rc == 0 && pb->bf_releasebuffer == NULL) {
        /* Nothing to release on NumPy's side: the exporter the consumer sees is the array,
         * which keeps the NumPy view (and so the memory and NumPy's buffer info) alive. */
        Py_SETREF(view->obj, Py_NewRef(self));
    }
    Py_DECREF(v);
    return rc;
}

PyBufferProcs sa_array_as_buffer = {
    .bf_getbuffer = array_getbuffer,
    .bf_releasebuffer = NULL,
};
