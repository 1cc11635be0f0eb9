/* The strided array descriptor shared by Python and the C core.
 *
 * This header is read by cffi's cdef, so it holds only typedefs, prototypes and integer
 * #defines: no include guards, no includes, no macros with bodies.
 */

#define SA_MAXDIM 64

/* Array API dtypes, in the order of stridedarray._base.dtypes.DTYPES. */
typedef enum {
    SA_BOOL = 0,
    SA_INT8, SA_INT16, SA_INT32, SA_INT64,
    SA_UINT8, SA_UINT16, SA_UINT32, SA_UINT64,
    SA_FLOAT32, SA_FLOAT64,
    SA_COMPLEX64, SA_COMPLEX128,
    SA_NDTYPES
} sa_dtype;

/* A strided view: element (i_0..i_{n-1}) lives at
 *   data + itemsize * (origin + sum_k i_k * strides[k]).
 * `data` is the start of the storage and `nbuf` its length in elements; every reachable
 * offset lies in [0, nbuf): the array type's one constructor (csrc/arraytype/construct.c)
 * checks it before the array exists, and the C core relies on it. */
typedef struct {
    char *data;
    int64_t nbuf;
    int64_t origin;
    int32_t ndim;
    int32_t dtype;
    int64_t shape[SA_MAXDIM];
    int64_t strides[SA_MAXDIM];
} sa_array;

/* Bytes per element of a dtype; 0 for an unknown code. */
int sa_itemsize(int dtype);

/* Copy `src` into the C-contiguous storage `dst` (same shape), converting from src->dtype
 * to `dst_dtype` when they differ (numeric casts as C does them; bool becomes 0/1).
 * Returns 0, or -1 for an unsupported dtype pair (or an element count beyond int64_t). */
int sa_to_row_major(const sa_array *src, void *dst, int dst_dtype);
