"""stridedarray: Array API arrays as explicit strided views, with a planned matmul core in C.

The namespace is assembled from one module per chapter of the Array API standard; each
module's `__all__` lists exactly the public names it contributes.
"""

# fft, linalg: the extensions; _ndarray_methods binds NumPy's methods onto Array; _dask
# registers Array with Dask.
from . import _dask, _dtypes, _ndarray_methods, fft, linalg  # noqa: F401
from ._array import Array
from ._constants import *  # noqa: F403
from ._creation import *  # noqa: F403
from ._data_type_functions import *  # noqa: F403
from ._dtypes import (
    bool,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._elementwise import *  # noqa: F403
from ._ffi import blas_info
from ._indexing import *  # noqa: F403
from ._info import *  # noqa: F403
from ._linalg_functions import *  # noqa: F403
from ._manipulation import *  # noqa: F403
from ._matmul import *  # noqa: F403
from ._searching import *  # noqa: F403
from ._sets import *  # noqa: F403
from ._sorting import *  # noqa: F403
from ._statistical import *  # noqa: F403
from ._threads import get_num_threads, set_num_threads
from ._utility import *  # noqa: F403

_dask.install()  # registers Array with Dask now or when dask.array is imported

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

del _dask, _dtypes
