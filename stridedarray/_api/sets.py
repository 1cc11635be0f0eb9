"""Set functions (Array API chapter "Set Functions"): unique_* and isin.

Every NaN is its own unique value (`equal_nan=False`), as the standard asks; NumPy's
`np.unique` default merges them. Values come back sorted (the standard leaves order open;
sorted output makes results reproducible). Index arrays use int64.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._arraytype import _wrap
from .._base.arguments import as_bool
from ._common import call_names, check_array, operands

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    """values, indices (first occurrences), inverse_indices (shape of x) and counts."""

    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    """values and counts."""

    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    """values and inverse_indices (shape of x)."""

    values: Array
    inverse_indices: Array


def _idx(a: np.ndarray) -> Array:
    return _wrap(a.astype(np.int64, copy=False))


def _unique(x: Array, func: str, **kw: bool) -> Any:
    """np.unique of x's elements: an ndarray, or a tuple of them when a return_* flag is set."""
    x = check_array(x, func=func)
    # NumPy's overloads want literal flags; each caller unpacks the tuple its flags ask for.
    return np.unique(x._np.reshape(-1), equal_nan=False, **kw)  # type: ignore[call-overload]


def unique_all(x: Array, /) -> UniqueAllResult:
    """Unique values with first-occurrence indices, inverse indices and counts."""
    v, i, inv, c = _unique(
        x, "unique_all", return_index=True, return_inverse=True, return_counts=True
    )
    return UniqueAllResult(_wrap(v), _idx(i), _idx(inv.reshape(x.shape)), _idx(c))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """Unique values and how often each occurs."""
    v, c = _unique(x, "unique_counts", return_counts=True)
    return UniqueCountsResult(_wrap(v), _idx(c))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """Unique values and, for each element of x, the index of its value."""
    v, inv = _unique(x, "unique_inverse", return_inverse=True)
    return UniqueInverseResult(_wrap(v), _idx(inv.reshape(x.shape)))


def unique_values(x: Array, /) -> Array:
    """The unique values of x (sorted, every NaN distinct)."""
    return _wrap(_unique(x, "unique_values"))


_ISIN_NAMES = call_names("isin")


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """For each element of x1, whether it equals some element of x2 (or not, with invert)."""
    a, b, dt = operands(x1, x2, _ISIN_NAMES)
    invert = as_bool(invert, "invert", "isin")
    out = np.isin(np.asarray(a, dt.np), np.asarray(b, dt.np), invert=invert)
    return _wrap(np.asarray(out))
