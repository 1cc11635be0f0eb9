"""Reading with a key, `x[key]`: the Python path of the array type's indexing.

Basic indexing's rule (ints, slices, None and one '...': a view) and its errors live in C
(csrc/arraytype/indexing.c), which takes keys of exact ints, slices, None and Ellipsis itself.
Every other key comes here, to `getitem`, which the hand-over registers with the type: keys whose
integer-likes (NumPy integers, 0-d integer arrays) become ints and go back to the C rule
(`_basic_view`), and advanced keys (integer arrays, boolean masks, with their specific errors),
which NumPy computes on the zero-copy view, returning new arrays.
"""

from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _basic_view, _wrap
from .._base.construct import ArrayBase

if TYPE_CHECKING:
    from .._array.array import Array


__all__: list[str] = []


def _is_int_index(k: Any) -> bool:
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, ArrayBase):
        return k.ndim == 0 and k.dtype.kind in "iu"
    return hasattr(k, "__index__") and not isinstance(k, np.ndarray)


def basic_key(key: Any) -> tuple | None:
    """The key's items with integer-likes (NumPy integers, 0-d integer Arrays) as ints, for
    the C rule; None when the key is not basic (advanced indexing)."""
    items: list[Any] = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, slice) or k is None or k is Ellipsis:
            items.append(k)
        elif _is_int_index(k):
            items.append(operator.index(k))
        else:
            return None
    return tuple(items)


def getitem(self: Array, key: Any) -> Array:
    """`self[key]` for the keys the array type hands over: basic keys give a view."""
    items = basic_key(key)
    if items is None:
        return getitem_advanced(self, key)
    return _basic_view(self, items)


def _numpy_key(a: Array, key: Any) -> Any:
    """Translate an advanced index to NumPy's form, checking what the standard allows:
    ints, slices, Ellipsis, None, Python bools, and integer or boolean Arrays."""
    parts = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    for k in parts:
        if isinstance(k, ArrayBase):
            if k.dtype.kind not in "biu":
                raise IndexError(
                    f"array indices must have an integer or bool dtype, got {k.dtype.name}"
                )
            out.append(k._np)
        elif isinstance(k, np.ndarray) and k.dtype.kind in "biu":
            # A NumPy index array (scikit-learn's cross-validation splits, Dask's arg
            # reductions): NumPy, torch and JAX all accept it, so we do.
            out.append(k)
        elif k is None or k is Ellipsis or isinstance(k, (slice, builtins.bool, np.bool_)):
            out.append(k)
        elif hasattr(k, "__index__") and not isinstance(k, np.ndarray):
            out.append(operator.index(k))
        else:
            what = (
                f"a NumPy array of dtype {k.dtype}"
                if isinstance(k, np.ndarray)
                else type(k).__name__
            )
            if isinstance(k, (list, tuple)):
                # NumPy's fancy indexing with a list: here an index array says it (standard)
                shown = repr(k) if len(repr(k)) <= 40 else "indices"
                what += (
                    f" (index with an array, x[stridedarray.asarray({shown})], "
                    "or use stridedarray.take)"
                )
            raise IndexError(
                f"only integers, slices, '...', None, bools and integer or "
                f"boolean arrays are valid indices; got {what}"
            )
    return tuple(out)


def getitem_advanced(a: Array, key: Any) -> Array:
    """Integer-array and boolean-mask indexing (a new array, computed by NumPy)."""
    return _wrap(a._np[_numpy_key(a, key)])
