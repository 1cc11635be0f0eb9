"""Indexing (Array API chapter "Indexing" and "Indexing Functions").

Basic indexing lives on the Array (it only makes descriptors); this module holds assignment
and the data-dependent forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, _basic_index

__all__: list[str] = []


def _value_for(a: Array, value: Any) -> Any:
    """The NumPy-side value to assign into `a` (an Array's zero-copy view, or the scalar)."""
    if isinstance(value, Array):
        return value._np
    if isinstance(value, (bool, int, float, complex)):
        return value
    raise TypeError(
        f"value must be an Array or a Python scalar, got {type(value).__name__}"
    )


def setitem(a: Array, key: Any, value: Any) -> None:
    """Assign `value`, broadcast to the selection, into `a` (overlap-safe through NumPy)."""
    basic = _basic_index(a, key)
    if basic is None:
        raise IndexError(f"unsupported index for assignment: {key!r}")
    a._view(*basic)._np[...] = _value_for(a, value)


def getitem_advanced(a: Array, key: Any) -> Array:
    """Integer-array and boolean-mask indexing."""
    raise IndexError(
        f"only integers, slices, '...', None and integer arrays are valid indices; got {key!r}"
    )
