"""The names stridedarray's pickles refer to (docs/reliability.md, "What a pickle may contain").

A pickle records, as a module and a name, where to find what rebuilds an object. Every
pickle of stridedarray's names one of these, and nothing else of the package:
- the public names: functions as `stridedarray.add` or `stridedarray.linalg.inv`, Array's
  methods as `stridedarray.Array.__add__`, the class as `stridedarray.Array`; `finfo` and
  `iinfo` results as calls of `stridedarray.finfo` and `stridedarray.iinfo`;
- the names below, for what has no public name of its own: an array, a dtype, the device,
  the namespace information object (and its class, whose methods pickle as
  `stridedarray._pickle.Info.<name>`), a function of an older version's namespace.

This module stays where it is and these names keep their arguments, whatever else moves, so
that a pickle written by one version of stridedarray loads in a later one;
tests/test_pickle_compat.py loads pickles committed with the tests. The rebuilders live beside
what they rebuild, which imports nothing of this module (the package's import order); here
each gets its permanent name. Each checks what it is given (a pickle is data from elsewhere)
and raises pickle.UnpicklingError naming what is wrong.
"""

from __future__ import annotations

from typing import Any

from ._array_convert import _unpickle_device
from ._array_pickle import rebuild as _rebuild
from ._dtypes import _unpickle_dtype
from ._info import Info, _unpickle_function, _unpickle_info

__all__ = ["Info", "array", "device", "dtype", "namespace_info", "versioned_function"]


def _named(f: Any, name: str) -> Any:
    f.__module__, f.__qualname__, f.__name__ = __name__, name, name
    return f


array = _named(_rebuild, "array")  # (data, dtype name, shape, strides, origin, read-only)
dtype = _named(_unpickle_dtype, "dtype")  # (name,): stridedarray.float64 for "float64"
device = _named(_unpickle_device, "device")  # (): CPU_DEVICE
namespace_info = _named(_unpickle_info, "namespace_info")  # (API version,)
versioned_function = _named(_unpickle_function, "versioned_function")  # (API version, name)

# The class of the namespace information object has no public name: it and its methods pickle
# by reference to it here.
Info.__module__ = __name__
for _method in vars(Info).values():
    if callable(_method) and hasattr(_method, "__qualname__"):
        _method.__module__ = __name__
