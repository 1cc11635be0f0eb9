/* DLPack in C (docs/interop.md, "DLPack"): an array as a DLPack tensor and a DLPack tensor as
 * an array, for both of DLPack's routes.
 *
 * - `x.__dlpack__()` (stridedarray/_array/dlpack.py checks its arguments) calls `_dlpack`,
 *   which makes the capsule here: "dltensor_versioned" (DLPack 1.x) or the legacy "dltensor".
 * - `__dlpack_c_exchange_api__` (DLPack 1.3), the capsule "dlpack_exchange_api" that Array's
 *   class statement holds: a table of C functions another library's C code calls without a
 *   Python frame. Its export, `managed_tensor_from_py_object_no_sync`, is the same function as
 *   `__dlpack__`'s (export_array), so both routes describe an array alike; its import,
 *   `managed_tensor_to_py_object_no_sync`, is the same as `from_dlpack`'s for a producer whose
 *   type has the table (`_from_exchange`, import_tensor).
 *
 * What an export describes: the element at index (0, ..., 0) as `data` (byte_offset 0; NULL
 * for an array of no element, as DLPack 1.3 asks), the extents, and the strides in elements as
 * the array has them: negative ones included (DLPack does not forbid them; NumPy's exporter and
 * importer pass them through the same way). The tensor holds a reference to the array, which
 * holds its storage, so the memory lives until the consumer calls the deleter, exactly once.
 * A read-only array (read-only storage, or a zero stride making indices alias) carries
 * DLPACK_FLAG_BITMASK_READ_ONLY; the legacy format has no flags, so a legacy export of one is a
 * copy (NumPy refuses it instead). The deleter may be called from any thread, with or without
 * the GIL: it takes the GIL to drop the array, and frees its block with the raw allocator.
 */
#include "arraytype.h"
#include "dlpack.h"

#include <stdatomic.h>
#include <string.h>

#define CAPSULE_VERSIONED "dltensor_versioned"
#define CAPSULE_LEGACY "dltensor"
#define CAPSULE_API "dlpack_exchange_api"
#define CAPSULE_IMPORTED "stridedarray.dlpack_import"

/* Tensors exported and not yet deleted (`_dlpack_live()`: the tests' count of deleter calls). */
static atomic_llong live_exports = 0;

/* One exported tensor: the managed struct, then its shape and strides (2 * ndim int64). */
typedef struct {
    union {
        sa_dl_versioned v;
        sa_dl_managed l;
    } m;
    int64_t dims[];
} export_block;

/* ---------------------------------------------------------------------------------------- */
/* dtypes                                                                                   */

static sa_dl_dtype
dl_dtype_of(int code)
{
    sa_dl_dtype t;
    t.bits = (uint8_t)(8 * PyDataType_ELSIZE(sa_descrs[code]));
    t.lanes = 1;
    switch (code) {
    case SA_BOOL: t.code = SA_DL_BOOL; break;
    case SA_INT8: case SA_INT16: case SA_INT32: case SA_INT64: t.code = SA_DL_INT; break;
    case SA_UINT8: case SA_UINT16: case SA_UINT32: case SA_UINT64: t.code = SA_DL_UINT; break;
    case SA_FLOAT32: case SA_FLOAT64: t.code = SA_DL_FLOAT; break;
    default: t.code = SA_DL_COMPLEX; break;
    }
    return t;
}

/* The dtype code of a DLPack dtype, or -1. */
static int
code_of_dl_dtype(sa_dl_dtype t)
{
    if (t.lanes != 1) {
        return -1;
    }
    for (int code = 0; code < SA_NDTYPES; code++) {
        sa_dl_dtype c = dl_dtype_of(code);
        if (c.code == t.code && c.bits == t.bits) {
            return code;
        }
    }
    return -1;
}

/* The attribute's name, interned by sa_dlpack_init. */
static PyObject *exchange_name = NULL;

/* ---------------------------------------------------------------------------------------- */
/* Export                                                                                   */

/* Fill `t` for array `a`, with shape and strides stored at `shape` and `strides` (or, when
 * both are NULL, pointing at the array's own extents and element strides, which are int64 as
 * DLPack's are). 0, or -1 with BufferError for an array DLPack cannot describe. */
static int
fill_tensor(ArrayObject *a, sa_dl_tensor *t, int64_t *shape, int64_t *strides)
{
    if (a->flags & SA_F_HUGE) {
        PyErr_SetString(PyExc_BufferError,
                        "DLPack: an extent of this array is beyond int64, which DLPack's shape "
                        "cannot hold");
        return -1;
    }
    npy_intp its = PyDataType_ELSIZE(sa_descrs[a->code]);
    t->data = (a->flags & SA_F_EMPTY)
                  ? NULL
                  : PyArray_BYTES((PyArrayObject *)a->buf) + a->corigin * its;
    t->device.device_type = SA_DL_CPU;
    t->device.device_id = 0;
    t->ndim = a->nd;
    t->dtype = dl_dtype_of(a->code);
    t->byte_offset = 0;
    if (shape == NULL) {
        t->shape = a->cshape;
        t->strides = a->cstrides;
        return 0;
    }
    for (int k = 0; k < a->nd; k++) {
        shape[k] = a->cshape[k];
        strides[k] = a->cstrides[k];
    }
    t->shape = a->nd ? shape : NULL;
    t->strides = a->nd ? strides : NULL;
    return 0;
}

/* Drop the array a tensor held: from any thread, with or without the GIL. At interpreter
 * shutdown the reference is left (the objects are being torn down; taking the GIL then would
 * hang), as NumPy's deleter does. */
static void
release_owner(PyObject *owner)
{
#if PY_VERSION_HEX >= 0x030D0000
    int finalizing = Py_IsFinalizing();
#else
    int finalizing = _Py_IsFinalizing();
#endif
    if (owner != NULL && Py_IsInitialized() && !finalizing) {
        PyGILState_STATE st = PyGILState_Ensure();
        Py_DECREF(owner);
        PyGILState_Release(st);
    }
    atomic_fetch_sub_explicit(&live_exports, 1, memory_order_relaxed);
}

static void
versioned_deleter(sa_dl_versioned *self)
{
    if (self != NULL) {
        release_owner((PyObject *)self->manager_ctx);
        PyMem_RawFree(self);
    }
}

static void
legacy_deleter(sa_dl_managed *self)
{
    if (self != NULL) {
        release_owner((PyObject *)self->manager_ctx);
        PyMem_RawFree(self);
    }
}

/* A new managed tensor of `a` (versioned with `flags`, or legacy), holding a reference to
 * `a`; NULL with an exception. The one export: __dlpack__ and the exchange table both call it. */
static void *
export_array(ArrayObject *a, int versioned, uint64_t flags)
{
    export_block *b = PyMem_RawMalloc(sizeof(export_block) + 2 * (size_t)a->nd * sizeof(int64_t));
    if (b == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    sa_dl_tensor *t = versioned ? &b->m.v.dl_tensor : &b->m.l.dl_tensor;
    if (fill_tensor(a, t, b->dims, b->dims + a->nd) < 0) {
        PyMem_RawFree(b);
        return NULL;
    }
    if (versioned) {
        b->m.v.version.major = SA_DLPACK_MAJOR;
        b->m.v.version.minor = SA_DLPACK_MINOR;
        b->m.v.manager_ctx = Py_NewRef((PyObject *)a);
        b->m.v.deleter = versioned_deleter;
        b->m.v.flags = flags;
    }
    else {
        b->m.l.manager_ctx = Py_NewRef((PyObject *)a);
        b->m.l.deleter = legacy_deleter;
    }
    atomic_fetch_add_explicit(&live_exports, 1, memory_order_relaxed);
    return b;
}

/* A C-contiguous copy of `a` (a new array), NULL with an exception. */
static PyObject *
copy_array(ArrayObject *a)
{
    PyObject *v = sa_array_np(a);
    if (v == NULL) {
        return NULL;
    }
    PyObject *c = PyArray_NewCopy((PyArrayObject *)v, NPY_CORDER);
    Py_DECREF(v);
    if (c == NULL) {
        return NULL;
    }
    PyObject *r = sa_make_c(c, a->code);
    Py_DECREF(c);
    return r;
}

/* An unconsumed capsule's destructor: a consumer renames the capsule it imports ("used_..."),
 * so a capsule still under its own name owns its tensor. */
static void
capsule_destructor(PyObject *cap)
{
    int versioned = PyCapsule_IsValid(cap, CAPSULE_VERSIONED);
    if (!versioned && !PyCapsule_IsValid(cap, CAPSULE_LEGACY)) {
        return;
    }
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    void *p = PyCapsule_GetPointer(cap, versioned ? CAPSULE_VERSIONED : CAPSULE_LEGACY);
    if (versioned) {
        versioned_deleter((sa_dl_versioned *)p);
    }
    else {
        legacy_deleter((sa_dl_managed *)p);
    }
    PyErr_Restore(et, ev, tb);
}

/* `_dlpack(x, versioned, copy)`: x.__dlpack__()'s capsule (dlpack.py checked the arguments):
 * copy True exports a C-contiguous copy (IS_COPIED), copy None a copy only where the legacy
 * format cannot say the array is read-only, copy False never. */
PyObject *
sa_dlpack_capsule(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyObject_TypeCheck(args[0], &sa_ArrayBaseType)
        || (args[2] != Py_None && !PyBool_Check(args[2]))) {
        PyErr_SetString(PyExc_TypeError, "_dlpack(x, versioned, copy): an array, a bool and "
                                         "None or a bool");
        return NULL;
    }
    ArrayObject *a = (ArrayObject *)args[0];
    int versioned = PyObject_IsTrue(args[1]);
    if (versioned < 0) {
        return NULL;
    }
    int ro = sa_array_readonly(a);
    PyObject *copy = args[2];
    if (copy == Py_False && ro && !versioned) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__: this array is read-only and the legacy (unversioned) DLPack "
                        "format cannot say so: pass max_version=(1, 0) or more, or allow a copy "
                        "(copy=None or True)");
        return NULL;
    }
    int copied = copy == Py_True || (copy == Py_None && ro && !versioned);
    PyObject *src = copied ? copy_array(a) : Py_NewRef((PyObject *)a);
    if (src == NULL) {
        return NULL;
    }
    uint64_t flags = copied ? SA_DL_FLAG_IS_COPIED : ro ? SA_DL_FLAG_READ_ONLY : 0;
    void *t = export_array((ArrayObject *)src, versioned, flags);
    Py_DECREF(src);
    if (t == NULL) {
        return NULL;
    }
    PyObject *cap = PyCapsule_New(t, versioned ? CAPSULE_VERSIONED : CAPSULE_LEGACY,
                                  capsule_destructor);
    if (cap == NULL) {
        if (versioned) {
            versioned_deleter((sa_dl_versioned *)t);
        }
        else {
            legacy_deleter((sa_dl_managed *)t);
        }
    }
    return cap;
}

/* ---------------------------------------------------------------------------------------- */
/* Import                                                                                   */

static void
imported_destructor(PyObject *cap)
{
    sa_dl_versioned *t = PyCapsule_GetPointer(cap, CAPSULE_IMPORTED);
    if (t != NULL && t->deleter != NULL) {
        t->deleter(t);
    }
}

/* Device types whose memory the CPU reads as it is. */
static int
host_readable(int32_t device_type)
{
    return device_type == SA_DL_CPU || device_type == SA_DL_CUDA_HOST
           || device_type == SA_DL_ROCM_HOST || device_type == SA_DL_CUDA_MANAGED;
}

/* An array of the tensor `t`, whose ownership it takes (its deleter runs when the array's
 * memory is no longer used, or at once on an error). `copy`: 1 always copies, 0 copies only
 * memory an array cannot view (misaligned), -1 never (BufferError instead). NULL with an
 * exception. `func` names the caller in the messages. */
static PyObject *
import_tensor(sa_dl_versioned *t, int copy, const char *func)
{
    if (t == NULL) {
        PyErr_Format(PyExc_ValueError, "%s: the producer gave a NULL DLPack tensor", func);
        return NULL;
    }
    if (t->version.major != SA_DLPACK_MAJOR) {
        /* DLPack: on another major version only the deleter may be read. */
        unsigned major = t->version.major;
        if (t->deleter != NULL) {
            t->deleter(t);
        }
        PyErr_Format(PyExc_BufferError,
                     "%s: the tensor is DLPack %u.x; this reads DLPack %d.x", func, major,
                     SA_DLPACK_MAJOR);
        return NULL;
    }
    /* From here the owner capsule runs the deleter, whatever happens. */
    PyObject *owner = PyCapsule_New(t, CAPSULE_IMPORTED, imported_destructor);
    if (owner == NULL) {
        if (t->deleter != NULL) {
            t->deleter(t);
        }
        return NULL;
    }
    const sa_dl_tensor *dl = &t->dl_tensor;
    PyObject *arr = NULL, *res = NULL;
    if (!host_readable(dl->device.device_type)) {
        PyErr_Format(PyExc_BufferError,
                     "%s: the tensor is on DLPack device (%d, %d); stridedarray reads CPU "
                     "memory (device type 1, or pinned/managed host memory: 3, 11, 13)",
                     func, (int)dl->device.device_type, (int)dl->device.device_id);
        goto done;
    }
    if (dl->ndim < 0 || dl->ndim > SA_MAXDIM) {
        PyErr_Format(PyExc_BufferError, "%s: the tensor has %d dimensions; arrays have 0 to %d",
                     func, (int)dl->ndim, SA_MAXDIM);
        goto done;
    }
    int code = code_of_dl_dtype(dl->dtype);
    if (code < 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: the tensor's DLPack dtype (code %d, %d bits, %d lanes) is not one of "
                     "stridedarray's dtypes (bool, int8-64, uint8-64, float32/64, "
                     "complex64/128, one lane)",
                     func, (int)dl->dtype.code, (int)dl->dtype.bits, (int)dl->dtype.lanes);
        goto done;
    }
    int nd = dl->ndim;
    if (nd > 0 && dl->shape == NULL) {
        PyErr_Format(PyExc_BufferError, "%s: the tensor has %d dimensions and no shape", func,
                     nd);
        goto done;
    }
    PyArray_Descr *descr = sa_descrs[code];
    npy_intp its = PyDataType_ELSIZE(descr);
    npy_intp dims[SA_MAXDIM], bstrides[SA_MAXDIM];
    int empty = 0;
    for (int k = 0; k < nd; k++) {
        if (dl->shape[k] < 0) {
            PyErr_Format(PyExc_BufferError, "%s: the tensor's extent %lld (axis %d) is negative",
                         func, (long long)dl->shape[k], k);
            goto done;
        }
        dims[k] = (npy_intp)dl->shape[k];
        empty |= dims[k] == 0;
    }
    if (dl->strides == NULL) {
        /* Before DLPack 1.2 NULL strides meant C-contiguous; NumPy checks the size below. */
        npy_intp s = its;
        for (int k = nd - 1; k >= 0; k--) {
            bstrides[k] = s;
            if (dims[k] > 1 && s > NPY_MAX_INTP / dims[k]) {
                PyErr_Format(PyExc_BufferError, "%s: the tensor's shape is too large for memory",
                             func);
                goto done;
            }
            s *= dims[k] > 0 ? dims[k] : 1;
        }
    }
    else {
        for (int k = 0; k < nd; k++) {
            int64_t s = dl->strides[k];
            if (s > INT64_MAX / its || s < -(INT64_MAX / its)) {
                PyErr_Format(PyExc_BufferError,
                             "%s: the tensor's stride %lld (axis %d) is beyond what memory "
                             "holds", func, (long long)s, k);
                goto done;
            }
            bstrides[k] = (npy_intp)(s * its);
        }
    }
    if (empty) {
        /* No element: a new empty array; the tensor is released now. */
        Py_INCREF(descr);
        arr = PyArray_Empty(nd, dims, descr, 0);
        res = arr ? sa_make_c(arr, code) : NULL;
        goto done;
    }
    char *data = (char *)dl->data;
    if (data == NULL) {
        PyErr_Format(PyExc_BufferError, "%s: the tensor has elements and a NULL data pointer",
                     func);
        goto done;
    }
    data += dl->byte_offset;
    int writeable = !(t->flags & SA_DL_FLAG_READ_ONLY);
    Py_INCREF(descr);
    arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, bstrides, data,
                               writeable ? NPY_ARRAY_WRITEABLE : 0, NULL);
    if (arr == NULL) {
        goto done;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, Py_NewRef(owner)) < 0) {
        goto done;
    }
    if (copy != 1 && PyArray_ISALIGNED((PyArrayObject *)arr)) {
        res = sa_make_strided(arr, code);
        if (res != NULL || PyErr_Occurred()) {
            goto done;
        }
    }
    if (copy == -1) {
        PyErr_Format(PyExc_BufferError,
                     "%s: copy=False, but the tensor's memory is not aligned to its item size "
                     "(%zd bytes), which an array needs: pass copy=None to copy it",
                     func, (Py_ssize_t)its);
        goto done;
    }
    PyObject *c = PyArray_NewCopy((PyArrayObject *)arr, NPY_CORDER);
    res = c ? sa_make_c(c, code) : NULL;
    Py_XDECREF(c);
done:
    Py_XDECREF(arr);
    Py_DECREF(owner);
    return res;
}

/* The exchange table of `type`, when it has one this reads (DLPack 1.x, walking the chain of
 * older tables a newer major version offers); NULL otherwise, without an exception. */
static const sa_dl_exchange_api *
exchange_api_of(PyTypeObject *type)
{
    /* Looked up without raising AttributeError when the type has none (NumPy's arrays): the
     * miss is from_dlpack's common case and an exception would cost more than the import. */
    PyObject *cap = NULL, *name = exchange_name;
#if PY_VERSION_HEX >= 0x030D0000
    int found = PyObject_GetOptionalAttr((PyObject *)type, name, &cap);
#else
    int found = _PyObject_LookupAttr((PyObject *)type, name, &cap);
#endif
    if (found <= 0) {
        PyErr_Clear();
        return NULL;
    }
    const sa_dl_exchange_header *h = NULL;
    if (PyCapsule_IsValid(cap, CAPSULE_API)) {
        h = PyCapsule_GetPointer(cap, CAPSULE_API);
    }
    /* The table lives as long as the process (DLPack's rule), not only the capsule. */
    Py_DECREF(cap);
    while (h != NULL && h->version.major > SA_DLPACK_MAJOR) {
        h = h->prev_api;
    }
    if (h == NULL || h->version.major != SA_DLPACK_MAJOR) {
        return NULL;
    }
    return (const sa_dl_exchange_api *)h;
}

/* `_from_exchange(x, copy)`: from_dlpack's route for a producer whose type has the exchange
 * table: the array, or None when the type has no table this reads (from_dlpack then calls
 * x.__dlpack__()). */
PyObject *
sa_dlpack_from_exchange(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || (args[1] != Py_None && !PyBool_Check(args[1]))) {
        PyErr_SetString(PyExc_TypeError, "_from_exchange(x, copy): copy None or a bool");
        return NULL;
    }
    const sa_dl_exchange_api *api = exchange_api_of(Py_TYPE(args[0]));
    if (api == NULL || api->managed_tensor_from_py_object_no_sync == NULL) {
        Py_RETURN_NONE;
    }
    sa_dl_versioned *t = NULL;
    if (api->managed_tensor_from_py_object_no_sync(args[0], &t) != 0) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_BufferError,
                         "from_dlpack: %s's DLPack exchange API failed without saying why",
                         Py_TYPE(args[0])->tp_name);
        }
        return NULL;
    }
    int copy = args[1] == Py_True ? 1 : args[1] == Py_False ? -1 : 0;
    return import_tensor(t, copy, "from_dlpack");
}

/* ---------------------------------------------------------------------------------------- */
/* The exchange table (DLPack 1.3)                                                          */

static int
check_array(void *obj)
{
    if (obj == NULL || !PyObject_TypeCheck((PyObject *)obj, &sa_ArrayBaseType)) {
        PyErr_Format(PyExc_TypeError,
                     "stridedarray's DLPack exchange API takes a stridedarray.Array, got %s",
                     obj == NULL ? "NULL" : Py_TYPE((PyObject *)obj)->tp_name);
        return -1;
    }
    return 0;
}

static int
api_managed_from_object(void *obj, sa_dl_versioned **out)
{
    *out = NULL;
    if (check_array(obj) < 0) {
        return -1;
    }
    ArrayObject *a = (ArrayObject *)obj;
    *out = export_array(a, 1, sa_array_readonly(a) ? SA_DL_FLAG_READ_ONLY : 0);
    return *out == NULL ? -1 : 0;
}

static int
api_dltensor_from_object(void *obj, sa_dl_tensor *out)
{
    if (check_array(obj) < 0) {
        return -1;
    }
    ArrayObject *a = (ArrayObject *)obj;
    if (sa_array_readonly(a)) {
        /* A bare DLTensor has no flags: a consumer could not know not to write. */
        PyErr_SetString(PyExc_BufferError,
                        "DLPack: this array is read-only and a DLTensor cannot say so: use "
                        "managed_tensor_from_py_object_no_sync, which flags it");
        return -1;
    }
    return fill_tensor(a, out, NULL, NULL);
}

static int
api_managed_to_object(sa_dl_versioned *t, void **out)
{
    PyObject *r = import_tensor(t, 0, "DLPack exchange API");
    *out = r;
    return r == NULL ? -1 : 0;
}

/* Report the pending Python exception through a consumer's SetError (clearing it). */
static void
report_error(void *error_ctx, void (*set_error)(void *, const char *, const char *))
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyErr_NormalizeException(&et, &ev, &tb);
    PyObject *msg = ev ? PyObject_Str(ev) : NULL;
    const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
    if (text == NULL) {
        PyErr_Clear();
        text = "allocation failed";
    }
    const char *kind = et ? ((PyTypeObject *)et)->tp_name : "RuntimeError";
    if (set_error != NULL) {
        set_error(error_ctx, kind, text);
    }
    Py_XDECREF(msg);
    Py_XDECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(tb);
}

/* A new C-contiguous array of the prototype's dtype and shape, exported. May be called without
 * the GIL (DLPack lets SetError need it), so it takes it. */
static int
api_allocator(sa_dl_tensor *proto, sa_dl_versioned **out, void *error_ctx,
              void (*set_error)(void *, const char *, const char *))
{
    PyGILState_STATE st = PyGILState_Ensure();
    *out = NULL;
    int code = -1;
    if (proto == NULL) {
        PyErr_SetString(PyExc_ValueError, "DLPack allocator: the prototype is NULL");
    }
    else if (proto->device.device_type != SA_DL_CPU) {
        PyErr_Format(PyExc_BufferError,
                     "DLPack allocator: stridedarray allocates on the CPU (device type 1), not "
                     "device type %d", (int)proto->device.device_type);
    }
    else if ((code = code_of_dl_dtype(proto->dtype)) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "DLPack allocator: DLPack dtype (code %d, %d bits, %d lanes) is not one of "
                     "stridedarray's dtypes", (int)proto->dtype.code, (int)proto->dtype.bits,
                     (int)proto->dtype.lanes);
    }
    else if (sa_check_rank(proto->ndim) == 0) {
        npy_intp dims[SA_MAXDIM];
        int ok = proto->ndim == 0 || proto->shape != NULL;
        for (int k = 0; ok && k < proto->ndim; k++) {
            ok = proto->shape[k] >= 0;
            dims[k] = (npy_intp)proto->shape[k];
        }
        if (!ok) {
            PyErr_SetString(PyExc_ValueError,
                            "DLPack allocator: the prototype's shape is NULL or has a negative "
                            "extent");
        }
        else {
            Py_INCREF(sa_descrs[code]);
            PyObject *e = PyArray_Empty(proto->ndim, dims, sa_descrs[code], 0);
            PyObject *r = e ? sa_make_c(e, code) : NULL;
            Py_XDECREF(e);
            if (r != NULL) {
                *out = export_array((ArrayObject *)r, 1, 0);
                Py_DECREF(r);
            }
        }
    }
    int rc = 0;
    if (*out == NULL) {
        report_error(error_ctx, set_error);
        rc = -1;
    }
    PyGILState_Release(st);
    return rc;
}

/* The CPU has no streams: DLPack's dummy for a CPU-only library, NULL for any device. */
static int
api_current_work_stream(int32_t device_type, int32_t device_id, void **out)
{
    (void)device_type;
    (void)device_id;
    if (out != NULL) {
        *out = NULL;
    }
    return 0;
}

/* Lives as long as the process, as DLPack requires of the table. */
static const sa_dl_exchange_api exchange_api = {
    .header = {.version = {SA_DLPACK_MAJOR, SA_DLPACK_MINOR}, .prev_api = NULL},
    .managed_tensor_allocator = api_allocator,
    .managed_tensor_from_py_object_no_sync = api_managed_from_object,
    .managed_tensor_to_py_object_no_sync = api_managed_to_object,
    .dltensor_from_py_object_no_sync = api_dltensor_from_object,
    .current_work_stream = api_current_work_stream,
};

PyObject *
sa_dlpack_init(void)
{
    exchange_name = PyUnicode_InternFromString("__dlpack_c_exchange_api__");
    if (exchange_name == NULL) {
        return NULL;
    }
    return PyCapsule_New((void *)&exchange_api, CAPSULE_API, NULL);
}

PyObject *
sa_dlpack_live(PyObject *mod, PyObject *unused)
{
    return PyLong_FromLongLong(atomic_load_explicit(&live_exports, memory_order_relaxed));
}
