"""stridedarray: Array API arrays as explicit strided views, with a planned matmul core in C.

The namespace is assembled from one module per chapter of the Array API standard; each
module's `__all__` lists exactly the public names it contributes.
"""

import sys as _sys

# _bind binds the members other modules implement onto Array; _dask registers Array with
# Dask; the chapter modules for their __all__ lists (below). The extensions fft and linalg
# load on first use (`__getattr__` below).
from . import (  # noqa: F401
    _bind,
    _constants,
    _creation,
    _dask,
    _data_type_functions,
    _dtypes,
    _elementwise,
    _handover,
    _indexing_functions,
    _info,
    _linalg_functions,
    _manipulation,
    _matmul,
    _searching,
    _sets,
    _sorting,
    _statistical,
    _utility,
)
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
from ._indexing_functions import *  # noqa: F403
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

# What the array type's C code needs from Python, handed over once (stridedarray/_handover.py).
_handover.connect()
_bind.install(_sys.modules[__name__])  # Array's operators, assignment, NumPy's methods, ...
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
        *_elementwise.__all__,
        *_indexing_functions.__all__,
        *_info.__all__,
        *_linalg_functions.__all__,
        *_manipulation.__all__,
        *_matmul.__all__,
        *_searching.__all__,
        *_sets.__all__,
        *_sorting.__all__,
        *_statistical.__all__,
        *_utility.__all__,
        *(d.name for d in _dtypes.DTYPES),
        "fft",
        "linalg",
        "__array_api_version__",
        "Array",
        "blas_info",
        "get_num_threads",
        "set_num_threads",
    }
)

# Every public callable pickles by reference and copies to itself (docs/reliability.md);
# fft and linalg publish theirs when they load.
_bind.publish([_sys.modules[__name__]])
from . import _pickle  # noqa: E402, F401  (the pickle format's names, Info's among them)

# The extensions load on first use, `sa.linalg` as `import stridedarray.linalg`: most programs
# use neither, and importing them (and NumPy's fft) at start-up cost as much again as the
# rest of the namespace's Python.
_LAZY = ("fft", "linalg")


# Names are looked up here only when they are missing, so this costs nothing otherwise: the lazy
# extensions, then NumPy's spellings (`sa.transpose`, `sa.concatenate`, ...), which say what
# the standard calls them (stridedarray/_numpy_names.py).
def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    from ._numpy_names import missing

    raise missing(__name__, name)


# dir() lists the public names only (fft and linalg among them, loaded or not).
def __dir__() -> list[str]:
    return sorted({*__all__, "__version__", "__array_api_version__"})


del _bind, _dask, _dtypes, _handover, _sys
