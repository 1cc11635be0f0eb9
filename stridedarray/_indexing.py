"""Indexing (Array API chapters "Indexing" and "Indexing Functions").

Basic indexing lives on the Array (it only makes descriptors); this module holds assignment,
the data-dependent forms (integer-array and boolean-mask indexing, which NumPy computes on the
zero-copy view and which return new arrays), and `take` / `take_along_axis`.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from ._array import Array, _wrap
from ._basic_indexing import _basic_index
from ._dtypes import promote, scalar_dtype, scalar_np
from ._validation import normalize_axis

__all__ = ["take", "take_along_axis"]


def _value_for(a: Array, value: Any) -> Any:
    """The NumPy-side value to assign into `a`, after the standard's casting rules:
    assignment never changes `a`'s dtype, so a value must promote to it."""
    if isinstance(value, Array):
        try:
            ok = promote(value.dtype, a.dtype) is a.dtype
        except TypeError:
            ok = False
        if not ok:
            # NumPy casts anything ("unsafe" for setitem); the standard only defines values
            # whose dtype promotes to the destination's, so we refuse the rest.
            raise TypeError(f"value of dtype {value.dtype.name} cannot be assigned into an "
                            f"array of dtype {a.dtype.name} without changing its dtype; "
                            "cast it with astype() first")
        return value._np
    if isinstance(value, (builtins.bool, int, float, complex)):
        if scalar_dtype(a.dtype, value, "value") is not a.dtype:
            raise TypeError(f"value: a Python {type(value).__name__} cannot be assigned into "
                            f"an array of dtype {a.dtype.name}")
        return scalar_np(value, a.dtype)
    raise TypeError(f"value must be an Array or a Python scalar, got {type(value).__name__}")


def _numpy_key(a: Array, key: Any) -> Any:
    """Translate an advanced index to NumPy's form, checking what the standard allows:
    ints, slices, Ellipsis, None, Python bools, and integer or boolean Arrays."""
    parts = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    for k in parts:
        if isinstance(k, Array):
            if k.dtype.kind not in "biu":
                raise IndexError(f"array indices must have an integer or bool dtype, got "
                                 f"{k.dtype.name}")
            out.append(k._np)
        elif k is None or k is Ellipsis or isinstance(k, (slice, builtins.bool)):
            out.append(k)
        elif hasattr(k, "__index__") and not isinstance(k, np.ndarray):
            out.append(operator.index(k))
        else:
            raise IndexError(f"only integers, slices, '...', None, bools and integer or "
                             f"boolean Arrays are valid indices; got {type(k).__name__}")
    return tuple(out)


def setitem(a: Array, key: Any, value: Any) -> None:
    """Assign `value`, broadcast to the selection, into `a` (overlap-safe through NumPy)."""
    v = _value_for(a, value)
    view = _basic_index(a, key)
    try:
        if view is None:
            a._np[_numpy_key(a, key)] = v
        else:
            view._np[...] = v
    except ValueError as e:
        if "could not broadcast" not in str(e):
            raise
        # NumPy's "could not broadcast input array from shape ..." does not name the value.
        sel = view.shape if view is not None else a._np[_numpy_key(a, key)].shape
        raise ValueError(f"value of shape {np.shape(v)} cannot be broadcast to the selection "
                         f"of shape {sel}") from None


def getitem_advanced(a: Array, key: Any) -> Array:
    """Integer-array and boolean-mask indexing (a new array, computed by NumPy)."""
    return _wrap(a._np[_numpy_key(a, key)])


def _check_indices(name: str, x: Any, indices: Any) -> None:
    if not isinstance(x, Array):
        raise TypeError(f"{name}: x must be a stridedarray.Array, got {type(x).__name__}")
    if not isinstance(indices, Array) or indices.dtype.kind not in "iu":
        what = indices.dtype.name if isinstance(indices, Array) else type(indices).__name__
        raise TypeError(f"{name}: indices must be an integer Array, got {what}")


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """Elements of x at `indices` (1-D) along `axis` (optional for 1-D x)."""
    _check_indices("take", x, indices)
    if indices.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, got shape {indices.shape}")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of rank {x.ndim}")
        axis = 0
    ax = normalize_axis(axis, max(x.ndim, 1))
    n = x.shape[ax] if x.ndim else 1
    idx = indices._np
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"take: indices must lie in [-{n}, {n}) for axis {ax} of size {n}")
    return _wrap(np.take(x._np, idx, axis=ax))


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Elements of x at `indices` (same rank as x, broadcast) along `axis`."""
    _check_indices("take_along_axis", x, indices)
    if indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices must have the rank of x ({x.ndim}), got "
                         f"shape {indices.shape}")
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    idx = indices._np
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"take_along_axis: indices must lie in [-{n}, {n}) for axis {ax} "
                         f"of size {n}")
    return _wrap(np.take_along_axis(x._np, idx, axis=ax))
