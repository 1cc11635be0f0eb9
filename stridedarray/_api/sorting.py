"""Sorting functions (Array API chapter "Sorting Functions"): argsort and sort.

NumPy sorts ascending only. A descending *stable* order is the ascending stable order of the
reversed axis, read backwards, with indices mapped back (i -> n - 1 - i): equal elements then
keep their original relative order, as the standard requires of `stable=True`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .._arraytype import _wrap
from .._base.arguments import as_bool, normalize_axis
from .._base.numpy_names import numpy_arguments, numpy_call
from ._common import check_array, check_kind

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["argsort", "sort"]


def _check(x: Array, axis: int, name: str) -> tuple[Array, int]:
    """x as an Array (check_array) and its normalized axis."""
    x = check_array(x, func=name)
    # NumPy orders complex numbers lexicographically; the standard leaves that undefined.
    check_kind(x, "biuf", name, "real-valued")
    if x.ndim == 0:
        raise ValueError(f"{name}: x must have rank >= 1, got a 0-d array")
    return x, normalize_axis(axis, x.ndim, func=name)


def _argsort_np(a: np.ndarray, axis: int, descending: bool, stable: bool) -> np.ndarray:
    kind: Literal["stable"] | None = "stable" if stable else None
    if not descending:
        return np.argsort(a, axis=axis, kind=kind)
    n = a.shape[axis]
    rev = np.flip(a, axis=axis)
    idx = np.argsort(rev, axis=axis, kind="stable")
    return (n - 1) - np.flip(idx, axis=axis)


@numpy_arguments
def argsort(
    x: Array,
    /,
    *numpy_args: Any,
    axis: int = -1,
    descending: bool = False,
    stable: bool = True,
) -> Array:
    """Indices that sort x along an axis (stable by default; descending optionally)."""
    if numpy_args:
        raise numpy_call("argsort", numpy_args)
    x, ax = _check(x, axis, "argsort")
    descending = as_bool(descending, "descending", "argsort")
    idx = _argsort_np(x._np, ax, descending, as_bool(stable, "stable", "argsort"))
    return _wrap(idx.astype(np.int64, copy=False))


@numpy_arguments
def sort(
    x: Array,
    /,
    *numpy_args: Any,
    axis: int = -1,
    descending: bool = False,
    stable: bool = True,
) -> Array:
    """A sorted copy of x along an axis (ascending by default)."""
    if numpy_args:
        raise numpy_call("sort", numpy_args)
    x, ax = _check(x, axis, "sort")
    descending = as_bool(descending, "descending", "sort")
    stable = as_bool(stable, "stable", "sort")
    out = np.sort(x._np, axis=ax, kind="stable" if stable else None)
    if descending:
        # Sorted values carry no identity, so reversing the ascending result is exact.
        out = np.ascontiguousarray(np.flip(out, axis=ax))
    return _wrap(out)
