/* `x @ y` and `matmul(x, y)` in C (docs/array.md, "The array type"): for two Arrays of one
 * numeric dtype, the output shape, the NumPy allocation, the C core's call and the wrapping of
 * the result, without a Python frame or a cffi call.
 *
 * A NativeMatmul is bound in place of the Python function (stridedarray._matmul.product), which it keeps
 * as its fallback: every other call goes there unchanged (mixed dtypes, bool, NumPy operands
 * and the NotImplemented rules, subclasses, keywords), and so does every shape the C path does
 * not take (a 0-d operand, contracted lengths that differ, batch shapes that do not broadcast,
 * an output NumPy cannot allocate), so each error is raised by the Python path with its own
 * message. An error code of the C core goes to the Python `_raise`, which says what it means.
 *
 * The output shape rule lives here once (mm_shape); the Python path asks for it through
 * _matmul_shape and only words the errors.
 *
 * The C core stays the cffi module stridedarray._core: its entry point `sa_matmul_run` is
 * reached through a function pointer the hand-over (arraytype.c, _connect) takes once from the
 * cffi module. cffi's call releases the GIL around every product; here it is released only
 * from `gil_release_min_work` multiply-adds on (a key of the matmul policy, measured by the
 * tuning tool): for a 2x2 product, releasing and taking back the GIL costs more than the
 * product, and no other thread could do much in the time.
 */
#include "arraytype.h"

#include "api/matmul.h"

/* Set by the hand-over (arraytype.c, _connect, through sa_set_matmul); NULL until then, when
 * every call takes the fallback. */
static __typeof__(sa_matmul_run) *run_matmul = NULL;  /* the C core's entry point */
static PyObject *policy_var = NULL;    /* _policy._current: the ContextVar of the policy */
static PyObject *policy_addr = NULL;   /* its value (a cffi `sa_mm_policy *`) -> address */
static PyObject *raise_error = NULL;   /* _matmul._raise(x1, x2, rc) */
/* The last policy object seen and its struct: a policy object changes only when a
 * matmul_policy block starts, so this saves a Python call per product. The reference keeps
 * the struct alive as long as its address is cached. The pair is read and replaced together
 * under cache_lock: a reader whose policy is the cached one takes the struct of that same
 * object, which its own reference (current_policy's *owner) keeps alive after the lock is
 * left, whatever another thread caches next. With the GIL nothing between the check and the
 * read runs Python code, so the lock is compiled only without it (PyMutex, 3.13+, as every
 * free-threaded CPython; docs/array.md, "Free-threaded CPython"). */
static PyObject *cached_policy = NULL;
static const sa_mm_policy *cached_struct = NULL;
#ifdef Py_GIL_DISABLED
static PyMutex cache_lock;  /* zero: unlocked */
#define CACHE_LOCK() PyMutex_Lock(&cache_lock)
#define CACHE_UNLOCK() PyMutex_Unlock(&cache_lock)
#else
#define CACHE_LOCK() ((void)0)
#define CACHE_UNLOCK() ((void)0)
#endif

typedef struct {
    NativeHead head;  /* the fallback: the Python function (same signature) */
} NativeMatmulObject;

/* The Array API matmul output shape: THE implementation of the rule, used by the C path
 * below and, through _matmul_shape, by every Python caller (stridedarray._matmul.product._out_shape).
 * s1 (n1 extents) and s2 (n2 extents) are the operands' shapes; the output's n <= max(n1, n2)
 * extents go to dims. The rule only compares extents (with each other and with 1) and copies
 * them, so a caller may stand for extents beyond int64 with distinct values below -1 (see
 * mod_matmul_shape). Returns MM_OK or the reason the shapes do not multiply, which
 * _matmul._out_shape turns into its message. */
enum { MM_OK = 0, MM_X1_0D = 1, MM_X2_0D = 2, MM_CONTRACTED = 3, MM_BATCH = 4 };

static inline __attribute__((always_inline)) int
mm_shape(int n1, const int64_t *s1, int n2, const int64_t *s2, int *nd, int64_t *dims)
{
    if (n1 == 0) {
        return MM_X1_0D;
    }
    if (n2 == 0) {
        return MM_X2_0D;
    }
    if (s1[n1 - 1] != (n2 == 1 ? s2[0] : s2[n2 - 2])) {
        return MM_CONTRACTED;
    }
    int nb1 = n1 > 2 ? n1 - 2 : 0, nb2 = n2 > 2 ? n2 - 2 : 0;
    int nb = nb1 > nb2 ? nb1 : nb2;
    int n = 0;
    for (int i = 0; i < nb; i++) {
        int64_t e1 = i < nb - nb1 ? 1 : s1[i - (nb - nb1)];
        int64_t e2 = i < nb - nb2 ? 1 : s2[i - (nb - nb2)];
        if (e1 != e2 && e1 != 1 && e2 != 1) {
            return MM_BATCH;
        }
        dims[n++] = e1 == 1 ? e2 : e1;
    }
    if (n1 > 1) {
        dims[n++] = s1[n1 - 2];
    }
    if (n2 > 1) {
        dims[n++] = s2[n2 - 1];
    }
    *nd = n;
    return MM_OK;
}

/* The output's extents, its element count and the product's multiply-adds, all checked: 0
 * when the shapes do not multiply, an extent is beyond int64 (SA_F_HUGE) or the output's
 * byte size would not fit, which the Python path reports. */
static int
out_geometry(const ArrayObject *a, const ArrayObject *b, int *nd, npy_intp *dims,
             int64_t *size, int64_t *work)
{
    if ((a->flags | b->flags) & SA_F_HUGE) {
        return 0;
    }
    int n;
    int64_t ext[SA_MAXDIM];
    if (mm_shape(a->nd, a->cshape, b->nd, b->cshape, &n, ext) != MM_OK) {
        return 0;
    }
    /* As the array constructor counts bytes: zero extents skipped, so an empty output whose
     * other extents overflow goes to the Python path as well. */
    int64_t bytes = sa_descrs[a->code]->elsize, count = 1;
    for (int i = 0; i < n; i++) {
        dims[i] = (npy_intp)ext[i];
        if (ext[i] && __builtin_mul_overflow(bytes, ext[i], &bytes)) {
            return 0;
        }
        count *= ext[i];  /* <= bytes: cannot overflow */
    }
    *nd = n;
    *size = count;
    if (__builtin_mul_overflow(count, a->cshape[a->nd - 1], work)) {
        *work = INT64_MAX;
    }
    return 1;
}

/* One shape argument of _matmul_shape as int64 extents: an extent beyond int64 becomes the
 * stand-in of the first equal one met (in big[], shared by both shapes), -2 - its index, so
 * equal big extents compare equal and none equals 1 or a real extent. 0 on success, -1 with
 * an exception. */
static int
shape_extents(PyObject *shape, const char *name, int64_t *ext, PyObject **big, int *nbig)
{
    if (!PyTuple_Check(shape)) {
        PyErr_Format(PyExc_TypeError, "_matmul_shape: %s must be a tuple of ints, got %.100s",
                     name, Py_TYPE(shape)->tp_name);
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(shape);
    if (n > SA_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "_matmul_shape: %s has %zd axes; at most %d are allowed",
                     name, n, SA_MAXDIM);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(shape, i);
        if (!PyLong_Check(v)) {
            PyErr_Format(PyExc_TypeError, "_matmul_shape: %s must be a tuple of ints, got "
                         "an entry of type %.100s", name, Py_TYPE(v)->tp_name);
            return -1;
        }
        int ovf;
        long long x = PyLong_AsLongLongAndOverflow(v, &ovf);
        if (x == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (!ovf && x >= 0) {
            ext[i] = x;
            continue;
        }
        if (!ovf) {
            PyErr_Format(PyExc_ValueError, "_matmul_shape: %s has a negative extent %lld",
                         name, x);
            return -1;
        }
        int k = 0;
        for (; k < *nbig; k++) {
            int eq = PyObject_RichCompareBool(big[k], v, Py_EQ);
            if (eq < 0) {
                return -1;
            }
            if (eq) {
                break;
            }
        }
        if (k == *nbig) {
            big[(*nbig)++] = v;  /* borrowed: the caller's tuples hold it */
        }
        ext[i] = -2 - k;
    }
    return 0;
}

/* _matmul_shape(s1, s2): the output shape (a tuple) of matmul for operand shapes s1 and s2,
 * or, when they do not multiply, the reason as an int (1: x1 is 0-d, 2: x2 is 0-d, 3: the
 * contracted extents differ, 4: the batch shapes do not broadcast). */
PyObject *
sa_matmul_shape(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_matmul_shape(s1, s2) takes 2 arguments");
        return NULL;
    }
    int64_t s1[SA_MAXDIM], s2[SA_MAXDIM], dims[SA_MAXDIM];
    PyObject *big[2 * SA_MAXDIM];
    int nbig = 0, nd;
    if (shape_extents(args[0], "s1", s1, big, &nbig) < 0
        || shape_extents(args[1], "s2", s2, big, &nbig) < 0) {
        return NULL;
    }
    int rc = mm_shape((int)PyTuple_GET_SIZE(args[0]), s1, (int)PyTuple_GET_SIZE(args[1]), s2,
                      &nd, dims);
    if (rc != MM_OK) {
        return PyLong_FromLong(rc);
    }
    PyObject *out = PyTuple_New(nd);
    if (out == NULL) {
        return NULL;
    }
    for (int i = 0; i < nd; i++) {
        PyObject *v = dims[i] < -1 ? Py_NewRef(big[-2 - dims[i]]) : PyLong_FromLongLong(dims[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    return out;
}

/* The policy struct in effect here (a new reference to its owner in *owner); NULL with an
 * exception, or NULL without one when the ContextVar holds nothing. */
static const sa_mm_policy *
current_policy(PyObject **owner)
{
    PyObject *p;
    if (PyContextVar_Get(policy_var, NULL, &p) < 0) {
        return NULL;
    }
    *owner = p;
    if (p == NULL) {
        return NULL;
    }
    CACHE_LOCK();
    const sa_mm_policy *hit = p == cached_policy ? cached_struct : NULL;
    CACHE_UNLOCK();
    if (hit != NULL) {
        return hit;
    }
    PyObject *addr = PyObject_CallOneArg(policy_addr, p);
    if (addr == NULL) {
        goto fail;
    }
    void *s = PyLong_AsVoidPtr(addr);
    Py_DECREF(addr);
    if (s == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_SystemError, "matmul: the policy has no address");
        }
        goto fail;
    }
    CACHE_LOCK();
    PyObject *old = cached_policy;
    cached_policy = Py_NewRef(p);
    cached_struct = s;
    CACHE_UNLOCK();
    Py_XDECREF(old);  /* outside the lock: a policy's finalizer may run Python code */
    return s;
fail:
    Py_CLEAR(*owner);
    return NULL;
}

/* x1 @ x2 for two exact Arrays of one non-bool dtype: 1 with *out set, 0 when the Python path
 * must take it, -1 with an exception. */
static int
product(PyObject *x1, PyObject *x2, PyObject **out)
{
    if (Py_TYPE(x1) != sa_array_class || Py_TYPE(x2) != sa_array_class) {
        return 0;
    }
    ArrayObject *a = (ArrayObject *)x1, *b = (ArrayObject *)x2;
    int code = a->code;
    if (b->code != code || code == SA_BOOL) {
        return 0;
    }
    int nd;
    npy_intp dims[SA_MAXDIM];
    int64_t size, work;
    if (!out_geometry(a, b, &nd, dims, &size, &work)) {
        return 0;
    }
    const sa_array *da = sa_array_cdesc(a);
    const sa_array *db = da != NULL ? sa_array_cdesc(b) : NULL;
    if (db == NULL) {
        return -1;
    }
    PyArray_Descr *descr = sa_descrs[code];
    Py_INCREF(descr);  /* stolen */
    PyObject *arr = PyArray_Empty(nd, dims, descr, 0);
    if (arr == NULL) {
        /* Out of memory: the Python path's np.empty raises NumPy's own MemoryError. */
        PyErr_Clear();
        return 0;
    }
    PyObject *owner = NULL;
    const sa_mm_policy *pol = current_policy(&owner);
    if (pol == NULL) {
        Py_DECREF(arr);
        return PyErr_Occurred() ? -1 : 0;
    }
    char *data = PyArray_BYTES((PyArrayObject *)arr);
    int rc;
    /* The operands' descriptors and storage, and the policy struct, stay alive: the caller
     * (native_matmul_vectorcall) holds references to the operands and `owner` the struct. */
    if (work >= pol->gil_release_min_work) {
        Py_BEGIN_ALLOW_THREADS
        rc = run_matmul(da, db, code, data, size, pol);
        Py_END_ALLOW_THREADS
    }
    else {
        rc = run_matmul(da, db, code, data, size, pol);
    }
    Py_DECREF(owner);
    if (rc != 0) {
        Py_DECREF(arr);
        PyObject *r = PyObject_CallFunction(raise_error, "OOi", x1, x2, rc);
        if (r != NULL) {
            Py_DECREF(r);
            PyErr_Format(PyExc_SystemError, "matmul: C core error %d was not raised", rc);
        }
        return -1;
    }
    *out = sa_make_c(arr, code);
    Py_DECREF(arr);
    return *out == NULL ? -1 : 1;
}

static PyObject *
native_matmul_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (kwnames == NULL && PyVectorcall_NARGS(nargsf) == 2 && run_matmul != NULL) {
        /* The arguments are borrowed and may be borrowed by a C caller too; reading the
         * policy runs Python code, and the product releases the GIL: a reference of our own
         * keeps each operand, its descriptor and its memory alive until the call returns. */
        PyObject *held[2] = {Py_NewRef(args[0]), Py_NewRef(args[1])};
        PyObject *r;
        int rc = product(held[0], held[1], &r);
        if (rc == 0) {
            r = sa_native_call_fallback(self, held, 2, NULL);
        }
        Py_DECREF(held[0]);
        Py_DECREF(held[1]);
        return rc < 0 ? NULL : r;
    }
    return sa_native_call_fallback(self, args, nargsf, kwnames);
}

static PyObject *
native_matmul_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fallback", NULL};
    PyObject *fallback;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:NativeMatmul", kwlist, &fallback)) {
        return NULL;
    }
    PyObject *fm = sa_native_new(type, fallback, "matmul", native_matmul_vectorcall);
    if (fm != NULL) {
        PyObject_GC_Track(fm);
    }
    return fm;
}

PyTypeObject sa_NativeMatmulType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stridedarray._arraytype.NativeMatmul",
    SA_NATIVE_SLOTS(NativeMatmulObject),
    .tp_new = native_matmul_new,
    .tp_dealloc = sa_native_dealloc,
    .tp_traverse = sa_native_traverse,
};

void
sa_set_matmul(void *run, PyObject *var, PyObject *addr, PyObject *raise)
{
    run_matmul = (__typeof__(sa_matmul_run) *)run;
    Py_XSETREF(policy_var, Py_NewRef(var));
    Py_XSETREF(policy_addr, Py_NewRef(addr));
    Py_XSETREF(raise_error, Py_NewRef(raise));
    CACHE_LOCK();
    PyObject *old = cached_policy;
    cached_policy = NULL;
    cached_struct = NULL;
    CACHE_UNLOCK();
    Py_XDECREF(old);
}
