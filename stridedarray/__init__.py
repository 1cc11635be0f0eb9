"""stridedarray: Array API arrays as explicit strided views, with a planned matmul core in C.

The namespace is assembled from one module per chapter of the Array API standard; each
module's `__all__` lists exactly the public names it contributes.
"""

import sys as _sys

# The chapter modules for their __all__ lists (below); the array class, whose class statement
# assigns every member from the modules that implement them; Dask's registrations. The
# extensions fft and linalg, and NumPy's lib, load on first use (`__getattr__` below).
from . import _pickle
from ._api import constants as _constants
from ._api import creation as _creation
from ._api import data_type_functions as _data_type_functions
from ._api import einsum as _einsum
from ._api import elementwise as _elementwise
from ._api import indexing_functions as _indexing_functions
from ._api import info as _info
from ._api import linalg_functions as _linalg_functions
from ._api import manipulation as _manipulation
from ._api import numpy_extensions as _numpy_extensions
from ._api import searching as _searching
from ._api import sets as _sets
from ._api import sorting as _sorting
from ._api import statistical as _statistical
from ._api import utility as _utility
from ._api.constants import *  # noqa: F403
from ._api.creation import *  # noqa: F403
from ._api.data_type_functions import *  # noqa: F403
from ._api.einsum import *  # noqa: F403
from ._api.elementwise import *  # noqa: F403
from ._api.indexing_functions import *  # noqa: F403
from ._api.info import *  # noqa: F403
from ._api.linalg_functions import *  # noqa: F403
from ._api.manipulation import *  # noqa: F403
from ._api.numpy_extensions import *  # noqa: F403
from ._api.searching import *  # noqa: F403
from ._api.sets import *  # noqa: F403
from ._api.sorting import *  # noqa: F403
from ._api.statistical import *  # noqa: F403
from ._api.utility import *  # noqa: F403
from ._array import handover as _handover
from ._array.array import Array
from ._base import dtypes as _dtypes
from ._base.dtypes import (
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
from ._interop import dask as _dask
from ._matmul import product as _product
from ._matmul.ffi import blas_info
from ._matmul.product import *  # noqa: F403
from ._matmul.threads import get_num_threads, set_num_threads

# What the array type's C code needs from Python, handed over once (_array/handover.py).
_handover.connect()
_info.set_namespace(_sys.modules[__name__])  # what `x.__array_namespace__()` returns
_dask.install()  # registers Array with Dask now or when dask.array is imported

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

# Exactly the public names: the standard's (each chapter module's `__all__`, the data types,
# the extensions and the version), the array type and stridedarray's own functions
# (docs/api/index.rst). `from stridedarray import *` imports these and nothing else.
__all__ = sorted(
    {
        *_constants.__all__,
        *_creation.__all__,
        *_data_type_functions.__all__,
        *_einsum.__all__,
        *_elementwise.__all__,
        *_indexing_functions.__all__,
        *_info.__all__,
        *_linalg_functions.__all__,
        *_manipulation.__all__,
        *_numpy_extensions.__all__,
        *_product.__all__,
        *_searching.__all__,
        *_sets.__all__,
        *_sorting.__all__,
        *_statistical.__all__,
        *_utility.__all__,
        *(d.name for d in _dtypes.DTYPES),
        "fft",
        "lib",
        "linalg",
        "__array_api_version__",
        "Array",
        "blas_info",
        "get_num_threads",
        "set_num_threads",
    }
)

# Every public callable pickles by reference and copies to itself (docs/reliability.md);
# fft, lib and linalg publish theirs when they load.
_pickle.publish([_sys.modules[__name__]])

# The extensions load on first use, `sa.linalg` as `import stridedarray.linalg`: most programs
# use neither, and importing them (and NumPy's fft) at start-up cost as much again as the
# rest of the namespace's Python.
_LAZY = ("fft", "lib", "linalg")


# Names are looked up here only when they are missing, so this costs nothing otherwise: the lazy
# extensions, then NumPy's spellings (`sa.transpose`, `sa.concatenate`, ...), which say what
# the standard calls them (stridedarray/_base/numpy_names.py).
def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    from ._base.numpy_names import missing

    raise missing(__name__, name)


# dir() lists the public names only (fft, lib and linalg among them, loaded or not).
def __dir__() -> list[str]:
    return sorted({*__all__, "__version__", "__array_api_version__"})


# `_pickle` stays bound: pickles name its functions as `stridedarray._pickle.dtype`, ..., and
# dill (Cubed's serializer) finds a function's module as an attribute of its package; without
# it dill copies the function's code instead, and the copy lacks its module's globals.
del _dask, _dtypes, _handover, _sys
