"""NumPy's ndarray methods on stridedarray arrays: `x.sum(axis=0)`, `x.astype(np.float32)`,
`x.reshape(2, 3)`, `x.squeeze()` and the rest of the table below.

The standard defines functions, not these methods, but code written for NumPy calls them, and
so do libraries that take any "NumPy-like" array: Dask calls `chunk.sum(...)`,
`chunk.squeeze(...)` and `chunk.astype(...)` on its chunks. Each method is NumPy's own, run on
the array's zero-copy NumPy view, and its result is converted by the rule of NumPy functions
(`_numpy_dispatch`): arrays of standard dtypes come back as stridedarray arrays, views of our
buffer stay views, other results come back as NumPy gives them. In-place methods (`sort`,
`fill`) write into this array's buffer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .numpy_dispatch import _to_numpy, _to_ours

if TYPE_CHECKING:
    from .._array.array import Array


__all__: list[str] = []

# The ndarray methods Dask's chunk code and NumPy-style user code call; all of NumPy's methods
# that compute on values, none of those about memory layout or Python-side state.
NDARRAY_METHODS = (
    "all any argmax argmin argpartition argsort astype clip compress conj conjugate copy "
    "cumprod cumsum diagonal dot fill flatten item max mean min nonzero partition prod "
    "ravel repeat reshape round searchsorted sort squeeze std sum swapaxes take trace "
    "transpose var view"
).split()


def _method(name: str) -> Callable:
    def method(self: Array, *args: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        nkwargs = {k: _to_numpy(v) for k, v in kwargs.items()}
        r = getattr(self._np, name)(*_to_numpy(args), **nkwargs)
        if out is not None and r is nkwargs["out"]:
            return out
        return _to_ours(r)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = _DOC.format(name=name)
    # The method takes what NumPy's takes: show NumPy's signature (help(), the docs, IDEs)
    # rather than the wrapper's (*args, **kwargs). inspect.signature follows __wrapped__ when
    # asked, so NumPy's text signature is parsed then, not for every method at import (that
    # parsing was a fifth of the package's own import time).
    method.__wrapped__ = getattr(np.ndarray, name)  # type: ignore[attr-defined]
    method.__annotations__ = {}  # the wrapper's (*args: Any) would be shown beside NumPy's
    return method


_DOC = """NumPy's ndarray.{name}, computed on the zero-copy view (result as an Array).

Parameters
----------
*args, **kwargs
    The arguments of ``numpy.ndarray.{name}``, whose signature is this method's;
    stridedarray arrays among them (``out=`` included) are passed to NumPy as zero-copy
    views.

Returns
-------
Array or object
    NumPy's result, converted by the rule of NumPy functions: arrays of standard dtypes
    come back as stridedarray arrays (views of this array's buffer stay views), anything
    else as NumPy gives it.

See Also
--------
numpy.ndarray.{name}
"""


# name -> method, assigned in Array's class statement; `item` is the array type's own, in C
# (it reads one element without the NumPy view, and takes NumPy's arguments through it).
METHODS = {name: _method(name) for name in NDARRAY_METHODS if name != "item"}
