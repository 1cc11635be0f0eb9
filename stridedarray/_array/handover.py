"""What the array type (C, `stridedarray._arraytype`) needs from Python, handed over in one call.

The array type is compiled from csrc/arraytype/ and imported before the Python modules that
define the array class, the dtypes and the Python paths its C code falls back to. It cannot
import them itself (they import it), so once they are imported the package calls `connect()`
once, which gives C everything in one table, `table()`. csrc/arraytype/arraytype.c (`_connect`)
checks the whole table before it installs any entry, says where each goes, and refuses any
later call.

Nothing else hands C a Python object at import, and C reaches the cffi core (`stridedarray._core`,
the matmul core and its `sa_array` descriptor) only through the table's `core` entry.
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .._api import getitem as _getitem
from .._arraytype import _connect
from .._base import construct as _construct
from .._base import dtypes as _dtypes
from .._base import fpe as _fpe
from .._matmul import product as _product
from .._matmul.policy import _current
from .array import Array

__all__ = ["connect", "table"]


def table() -> dict[str, Any]:
    """The entries C takes, by name (arraytype.c's `_connect` lists what each is for)."""
    return {
        # the class C makes arrays of, and the 13 DTypes by code (their NumPy dtypes)
        "array_class": Array,
        "dtypes": _dtypes.DTYPES,
        # the Python paths of what C declines: wrapping a NumPy result, reading `x[key]`
        "wrap": _construct._wrap_py,
        "getitem": _getitem.getitem,
        # the quiet floating-point state (_fpe): NumPy's error-state ContextVar, the quiet
        # state of each outer state and its maker; None where NumPy lacks the private names
        # it uses (C then leaves those ufunc calls to Python)
        "quiet_state": _fpe.NATIVE_STATE,
        # matmul: the policy ContextVar, a policy struct's address, the error path
        "matmul": (_current, _product._policy_address, _product._raise),
        # the cffi core, the one way C reaches it: `ffi.cast` for `x._c` and the address of
        # its matmul entry point, both taken once here
        "core": _core,
    }


def connect(**replace: Any) -> None:
    """Hand `table()` to the array type, with the entries in `replace` instead of its own.

    The package's __init__ calls it once, before any array is made. The hand-over is made once
    per process: a second call raises RuntimeError and changes nothing (docs/dev/internals.md,
    "The hand-over from Python to C"); tests/array/test_handover.py makes a first one of its own in
    a child process.
    """
    _connect({**table(), **replace})
