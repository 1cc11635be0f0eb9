/* A DLPack 1.3 consumer in C, the way another library's C code reaches an array through
 * `type(x).__dlpack_c_exchange_api__` (tests/array/test_dlpack_c.py builds and drives it).
 *
 * It declares the DLPack structs itself, from DLPack's dlpack.h (1.3), with DLPack's names,
 * and does not include stridedarray's csrc/arraytype/dlpack.h: the layout the array type
 * exports is checked against the specification's, not against its own copy. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

typedef struct { uint32_t major, minor; } DLPackVersion;
typedef struct { int32_t device_type, device_id; } DLDevice; /* DLDeviceType is int32-sized */
typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;
typedef struct {
    DLPackExchangeAPIHeader header;
    int (*managed_tensor_allocator)(DLTensor *, DLManagedTensorVersioned **, void *,
                                    void (*)(void *, const char *, const char *));
    int (*managed_tensor_from_py_object_no_sync)(void *, DLManagedTensorVersioned **);
    int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned *, void **);
    int (*dltensor_from_py_object_no_sync)(void *, DLTensor *);
    int (*current_work_stream)(int32_t, int32_t, void **);
} DLPackExchangeAPI;

/* The table, looked up on the type as DLPack says a consumer does. */
static const DLPackExchangeAPI *
api_of(PyObject *x)
{
    PyObject *cap = PyObject_GetAttrString((PyObject *)Py_TYPE(x), "__dlpack_c_exchange_api__");
    if (cap == NULL) {
        return NULL;
    }
    const DLPackExchangeAPI *api = PyCapsule_GetPointer(cap, "dlpack_exchange_api");
    Py_DECREF(cap);
    return api;
}

static PyObject *
describe_tensor(const DLTensor *t)
{
    PyObject *shape = PyTuple_New(t->ndim), *strides = PyTuple_New(t->ndim);
    if (shape == NULL || strides == NULL) {
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    for (int k = 0; k < t->ndim; k++) {
        PyTuple_SET_ITEM(shape, k, PyLong_FromLongLong(t->shape[k]));
        PyTuple_SET_ITEM(strides, k, PyLong_FromLongLong(t->strides[k]));
    }
    return Py_BuildValue("{s:K,s:(ii),s:i,s:(iii),s:N,s:N,s:K}", "data",
                         (unsigned long long)(uintptr_t)t->data, "device",
                         (int)t->device.device_type, (int)t->device.device_id, "ndim",
                         (int)t->ndim, "dtype", (int)t->dtype.code, (int)t->dtype.bits,
                         (int)t->dtype.lanes, "shape", shape, "strides", strides,
                         "byte_offset", (unsigned long long)t->byte_offset);
}

/* header(x): the table's version and whether each function is present. */
static PyObject *
header(PyObject *self, PyObject *x)
{
    const DLPackExchangeAPI *api = api_of(x);
    if (api == NULL) {
        return NULL;
    }
    return Py_BuildValue("(II)O(iiiii)", api->header.version.major, api->header.version.minor,
                         api->header.prev_api ? Py_True : Py_False,
                         api->managed_tensor_allocator != NULL,
                         api->managed_tensor_from_py_object_no_sync != NULL,
                         api->managed_tensor_to_py_object_no_sync != NULL,
                         api->dltensor_from_py_object_no_sync != NULL,
                         api->current_work_stream != NULL);
}

/* A managed tensor as (description, version, flags, handle); the handle (a capsule without a
 * destructor) goes to delete. */
static PyObject *
hand_over(DLManagedTensorVersioned *t)
{
    PyObject *d = describe_tensor(&t->dl_tensor);
    PyObject *h = PyCapsule_New(t, "test_tensor", NULL);
    if (d == NULL || h == NULL) {
        Py_XDECREF(d);
        Py_XDECREF(h);
        t->deleter(t);
        return NULL;
    }
    return Py_BuildValue("N(II)KN", d, t->version.major, t->version.minor,
                         (unsigned long long)t->flags, h);
}

/* export(x): (description, version, flags, handle) of managed_tensor_from_py_object_no_sync;
 * the handle (a capsule without a destructor) goes to delete_*. */
static PyObject *
export_(PyObject *self, PyObject *x)
{
    const DLPackExchangeAPI *api = api_of(x);
    if (api == NULL) {
        return NULL;
    }
    DLManagedTensorVersioned *t = (DLManagedTensorVersioned *)1; /* must be overwritten */
    if (api->managed_tensor_from_py_object_no_sync(x, &t) != 0) {
        if (t != NULL) {
            PyErr_SetString(PyExc_AssertionError, "a failed export left *out set");
        }
        return NULL;
    }
    return hand_over(t);
}

static DLManagedTensorVersioned *
take(PyObject *h)
{
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(h, "test_tensor");
    if (t != NULL) {
        PyCapsule_SetName(h, "test_tensor_deleted"); /* a second delete_* is refused */
    }
    return t;
}

static void *
run_deleter(void *arg)
{
    DLManagedTensorVersioned *t = arg;
    t->deleter(t);
    return NULL;
}

/* delete(handle, in_thread=False): the deleter, called with the GIL held; or, in_thread, from
 * a thread Python never saw while this thread has released the GIL (DLPack lets a consumer
 * delete from anywhere). */
static PyObject *
delete_(PyObject *self, PyObject *args)
{
    PyObject *h;
    int in_thread = 0;
    if (!PyArg_ParseTuple(args, "O|p", &h, &in_thread)) {
        return NULL;
    }
    DLManagedTensorVersioned *t = take(h);
    if (t == NULL) {
        return NULL;
    }
    if (!in_thread) {
        t->deleter(t);
        Py_RETURN_NONE;
    }
    pthread_t th;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pthread_create(&th, NULL, run_deleter, t);
    if (rc == 0) {
        pthread_join(th, NULL);
    }
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        t->deleter(t);
        PyErr_SetString(PyExc_OSError, "pthread_create failed");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* read_first(handle): the first element's bytes, read through the tensor's data pointer. */
static PyObject *
read_first(PyObject *self, PyObject *h)
{
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(h, "test_tensor");
    if (t == NULL) {
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)t->dl_tensor.data + t->dl_tensor.byte_offset,
                                     (t->dl_tensor.dtype.bits + 7) / 8);
}

/* dltensor(x): dltensor_from_py_object_no_sync into a DLTensor on the stack. */
static PyObject *
dltensor(PyObject *self, PyObject *x)
{
    const DLPackExchangeAPI *api = api_of(x);
    if (api == NULL) {
        return NULL;
    }
    DLTensor t;
    memset(&t, 0xAB, sizeof(t));
    if (api->dltensor_from_py_object_no_sync(x, &t) != 0) {
        return NULL;
    }
    return describe_tensor(&t);
}

/* reimport(x): x exported, then handed back through managed_tensor_to_py_object_no_sync. */
static PyObject *
reimport(PyObject *self, PyObject *x)
{
    const DLPackExchangeAPI *api = api_of(x);
    if (api == NULL) {
        return NULL;
    }
    DLManagedTensorVersioned *t = NULL;
    if (api->managed_tensor_from_py_object_no_sync(x, &t) != 0) {
        return NULL;
    }
    void *out = NULL;
    if (api->managed_tensor_to_py_object_no_sync(t, &out) != 0) {
        return NULL;
    }
    return out;
}

/* A tensor this module makes over a Python buffer (bytes or a writable buffer) it keeps, with
 * a deleter that counts its calls. */
static long foreign_deleted = 0;
typedef struct {
    DLManagedTensorVersioned m;
    Py_buffer view;
    int64_t dims[160]; /* shape, then strides at 80: up to 80 axes, beyond the 64 arrays have */
} Foreign;

static void
foreign_deleter(DLManagedTensorVersioned *self)
{
    Foreign *f = (Foreign *)self;
    PyGILState_STATE st = PyGILState_Ensure();
    foreign_deleted++;
    PyBuffer_Release(&f->view);
    PyGILState_Release(st);
    PyMem_RawFree(f);
}

/* import_foreign(x, buffer, shape, strides or None, (code, bits, lanes), (device_type, id),
 * flags, major, byte_offset, data_is_null): the array x's table makes of such a tensor. */
static PyObject *
import_foreign(PyObject *self, PyObject *args)
{
    PyObject *x, *buf, *shape, *strides;
    int code, bits, lanes, dev, dev_id, null_data;
    unsigned long long flags, byte_offset;
    unsigned int major;
    if (!PyArg_ParseTuple(args, "OOOO(iii)(ii)KIKp", &x, &buf, &shape, &strides, &code, &bits,
                          &lanes, &dev, &dev_id, &flags, &major, &byte_offset, &null_data)) {
        return NULL;
    }
    const DLPackExchangeAPI *api = api_of(x);
    if (api == NULL) {
        return NULL;
    }
    Py_ssize_t nd = PyTuple_Size(shape);
    if (nd < 0 || nd > 80 || (strides != Py_None && PyTuple_Size(strides) != nd)) {
        PyErr_SetString(PyExc_ValueError, "shape and strides: tuples of one length <= 80");
        return NULL;
    }
    Foreign *f = PyMem_RawCalloc(1, sizeof(Foreign));
    if (f == NULL) {
        return PyErr_NoMemory();
    }
    if (PyObject_GetBuffer(buf, &f->view, PyBUF_SIMPLE) < 0) {
        PyMem_RawFree(f);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < nd; k++) {
        f->dims[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, k));
        f->dims[80 + k] = strides == Py_None ? 0 : PyLong_AsLongLong(PyTuple_GET_ITEM(strides, k));
    }
    if (PyErr_Occurred()) {
        PyBuffer_Release(&f->view);
        PyMem_RawFree(f);
        return NULL;
    }
    f->m.version.major = major;
    f->m.version.minor = 3;
    f->m.manager_ctx = NULL;
    f->m.deleter = foreign_deleter;
    f->m.flags = flags;
    f->m.dl_tensor.data = null_data ? NULL : f->view.buf;
    f->m.dl_tensor.device.device_type = dev;
    f->m.dl_tensor.device.device_id = dev_id;
    f->m.dl_tensor.ndim = (int32_t)nd;
    f->m.dl_tensor.dtype.code = (uint8_t)code;
    f->m.dl_tensor.dtype.bits = (uint8_t)bits;
    f->m.dl_tensor.dtype.lanes = (uint16_t)lanes;
    f->m.dl_tensor.shape = f->dims;
    f->m.dl_tensor.strides = strides == Py_None ? NULL : f->dims + 80;
    f->m.dl_tensor.byte_offset = byte_offset;
    void *out = NULL;
    if (api->managed_tensor_to_py_object_no_sync(&f->m, &out) != 0) {
        return NULL; /* the table owned the tensor: its deleter ran */
    }
    return out;
}

static PyObject *
foreign_deleted_count(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(foreign_deleted);
}

static char last_kind[128], last_message[512];

static void
set_error(void *ctx, const char *kind, const char *message)
{
    (*(int *)ctx)++;
    snprintf(last_kind, sizeof(last_kind), "%s", kind);
    snprintf(last_message, sizeof(last_message), "%s", message);
}

/* allocate(x, shape, (code, bits, lanes), device_type, release_gil): the table's allocator;
 * ((description, version, flags, handle), set_error calls), or ("error", kind, message,
 * set_error calls). */
static PyObject *
allocate(PyObject *self, PyObject *args)
{
    PyObject *x, *shape;
    int code, bits, lanes, dev, release;
    if (!PyArg_ParseTuple(args, "OO(iii)ip", &x, &shape, &code, &bits, &lanes, &dev, &release)) {
        return NULL;
    }
    const DLPackExchangeAPI *api = api_of(x);
    if (api == NULL) {
        return NULL;
    }
    int64_t dims[128];
    Py_ssize_t nd = PyTuple_Size(shape);
    if (nd < 0 || nd > 128) {
        PyErr_SetString(PyExc_ValueError, "shape: a tuple of at most 128 ints");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < nd; k++) {
        dims[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, k));
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    DLTensor proto;
    memset(&proto, 0, sizeof(proto));
    proto.device.device_type = dev;
    proto.ndim = (int32_t)nd;
    proto.dtype.code = (uint8_t)code;
    proto.dtype.bits = (uint8_t)bits;
    proto.dtype.lanes = (uint16_t)lanes;
    proto.shape = dims;
    DLManagedTensorVersioned *t = NULL;
    int calls = 0, rc;
    last_kind[0] = last_message[0] = 0;
    if (release) {
        Py_BEGIN_ALLOW_THREADS
        rc = api->managed_tensor_allocator(&proto, &t, &calls, set_error);
        Py_END_ALLOW_THREADS
    }
    else {
        rc = api->managed_tensor_allocator(&proto, &t, &calls, set_error);
    }
    if (rc != 0) {
        if (PyErr_Occurred()) {
            return NULL; /* the allocator must report through SetError only */
        }
        return Py_BuildValue("sssi", "error", last_kind, last_message, calls);
    }
    PyObject *r = hand_over(t);
    return r == NULL ? NULL : Py_BuildValue("Ni", r, calls);
}

/* stream(x, device_type): current_work_stream's (rc, stream address). */
static PyObject *
stream(PyObject *self, PyObject *args)
{
    PyObject *x;
    int dev;
    if (!PyArg_ParseTuple(args, "Oi", &x, &dev)) {
        return NULL;
    }
    const DLPackExchangeAPI *api = api_of(x);
    if (api == NULL) {
        return NULL;
    }
    void *s = (void *)1;
    int rc = api->current_work_stream(dev, 0, &s);
    return Py_BuildValue("iK", rc, (unsigned long long)(uintptr_t)s);
}

static PyMethodDef methods[] = {
    {"header", header, METH_O, NULL},
    {"export", export_, METH_O, NULL},
    {"delete", delete_, METH_VARARGS, NULL},
    {"read_first", read_first, METH_O, NULL},
    {"dltensor", dltensor, METH_O, NULL},
    {"reimport", reimport, METH_O, NULL},
    {"import_foreign", import_foreign, METH_VARARGS, NULL},
    {"foreign_deleted", foreign_deleted_count, METH_NOARGS, NULL},
    {"allocate", allocate, METH_VARARGS, NULL},
    {"stream", stream, METH_VARARGS, NULL},
    {NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "dlpack_consumer", NULL, -1, methods,
};

PyMODINIT_FUNC
PyInit_dlpack_consumer(void)
{
    return PyModule_Create(&moduledef);
}
