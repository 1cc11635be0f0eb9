/* The DLPack 1.3 ABI the array type exports and imports (docs/interop.md, "DLPack"): the
 * structs and constants of DLPack's dlpack.h that dlpack.c uses, written out here so that the
 * build needs no copy of that header. Their layouts are DLPack's ABI and must not change: a
 * consumer built against dlpack.h reads these structs field by field. */
#ifndef SA_DLPACK_H
#define SA_DLPACK_H

#include <stdint.h>

#define SA_DLPACK_MAJOR 1
#define SA_DLPACK_MINOR 3

/* DLDeviceType: the CPU, and the host memories a CPU reads directly (pinned CUDA and ROCm
 * memory, CUDA managed memory), which NumPy's importer accepts too. */
enum { SA_DL_CPU = 1, SA_DL_CUDA_HOST = 3, SA_DL_ROCM_HOST = 11, SA_DL_CUDA_MANAGED = 13 };

/* DLDataTypeCode */
enum { SA_DL_INT = 0, SA_DL_UINT = 1, SA_DL_FLOAT = 2, SA_DL_COMPLEX = 5, SA_DL_BOOL = 6 };

/* DLManagedTensorVersioned.flags */
#define SA_DL_FLAG_READ_ONLY ((uint64_t)1)
#define SA_DL_FLAG_IS_COPIED ((uint64_t)2)

typedef struct {
    uint32_t major;
    uint32_t minor;
} sa_dl_version;

typedef struct {
    int32_t device_type; /* DLDeviceType, an int32_t-sized enum */
    int32_t device_id;
} sa_dl_device;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} sa_dl_dtype;

/* DLTensor: strides in elements; since DLPack 1.2 never NULL when ndim > 0. */
typedef struct {
    void *data;
    sa_dl_device device;
    int32_t ndim;
    sa_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} sa_dl_tensor;

/* DLManagedTensor: the legacy (unversioned) form, capsule "dltensor". */
typedef struct sa_dl_managed {
    sa_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct sa_dl_managed *self);
} sa_dl_managed;

/* DLManagedTensorVersioned: capsule "dltensor_versioned". */
typedef struct sa_dl_versioned {
    sa_dl_version version;
    void *manager_ctx;
    void (*deleter)(struct sa_dl_versioned *self);
    uint64_t flags;
    sa_dl_tensor dl_tensor;
} sa_dl_versioned;

/* DLPackExchangeAPI, found as the PyCapsule named "dlpack_exchange_api" in the type's
 * `__dlpack_c_exchange_api__`. */
typedef struct sa_dl_exchange_header {
    sa_dl_version version;
    struct sa_dl_exchange_header *prev_api;
} sa_dl_exchange_header;

typedef struct {
    sa_dl_exchange_header header;
    int (*managed_tensor_allocator)(sa_dl_tensor *prototype, sa_dl_versioned **out,
                                    void *error_ctx,
                                    void (*set_error)(void *error_ctx, const char *kind,
                                                      const char *message));
    int (*managed_tensor_from_py_object_no_sync)(void *py_object, sa_dl_versioned **out);
    int (*managed_tensor_to_py_object_no_sync)(sa_dl_versioned *tensor, void **out_py_object);
    int (*dltensor_from_py_object_no_sync)(void *py_object, sa_dl_tensor *out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_stream);
} sa_dl_exchange_api;

#endif
