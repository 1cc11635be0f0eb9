"""Utility functions (Array API chapter "Utility Functions"): all, any, diff.

Also the small shared helpers of the part-2 chapters (argument checks, reductions), so each
chapter words errors alike; an operand pair (arrays and scalars mixed) converts in `_common.py`.
Computation runs in NumPy on the zero-copy view `x._np`; results are wrapped with `_wrap`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _wrap
from .._base.arguments import as_bool, as_int, normalize_axis, not_array
from .._base.construct import ArrayBase, numpy_operand
from .._base.dtypes import numpy_value, python_type, scalar_dtype, scalar_np
from .._base.numpy_names import numpy_arguments, numpy_call
from ._common import check_array, reduce_axes

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["all", "any", "diff"]


# What np.all/np.any run for an ndarray (numpy/_core/fromnumeric.py, _wrapreduction_any_all),
# without their Python layer: clients call any() on every 0-d flag they test.
_TRUTH_REDUCE: dict[str, Any] = {"all": np.logical_and.reduce, "any": np.logical_or.reduce}


def _truth_reduction(name: str, x: Array, axis: Any, keepdims: bool) -> Array:
    """all(x) or any(x) (`name`) along `axis`."""
    if not isinstance(x, ArrayBase):
        x = check_array(x, func=name)
    if keepdims.__class__ is not bool:
        keepdims = as_bool(keepdims, "keepdims", name)
    if not x._shape and axis is None:
        # One 0-d flag (clients test them one at a time): its truth value is the answer, and
        # the reduction machinery costs several times more.
        return _wrap(np.array(bool(x._np)))
    axes = None if axis is None else reduce_axes(axis, len(x._shape), name)
    return _wrap(_TRUTH_REDUCE[name](x._np, axes, bool, None, keepdims=keepdims))


@numpy_arguments
def all(
    x: Array,
    /,
    *numpy_args: Any,
    axis: int | tuple[int, ...] | None = None,  # noqa: A001
    keepdims: bool = False,
) -> Array:
    """Test whether all elements along the axes are true (non-zero)."""
    if numpy_args:
        raise numpy_call("all", numpy_args)
    return _truth_reduction("all", x, axis, keepdims)


@numpy_arguments
def any(
    x: Array,
    /,
    *numpy_args: Any,
    axis: int | tuple[int, ...] | None = None,  # noqa: A001
    keepdims: bool = False,
) -> Array:
    """Test whether any element along the axes is true (non-zero)."""
    if numpy_args:
        raise numpy_call("any", numpy_args)
    return _truth_reduction("any", x, axis, keepdims)


def _scalar_array(value: Any, x: Array, name: str) -> Array:
    """diff's `prepend` or `append` given as a scalar (beyond the standard, as NumPy takes
    it): a Python scalar takes x's dtype by the scalar rules (`_dtypes.scalar_dtype`: an int
    must fit it); a NumPy scalar or 0-d ndarray is a 0-d array of its own dtype (NumPy's
    rule, docs/functions.md, "NumPy operands"), which must then be x's."""
    if numpy_value(value):
        return numpy_operand(value)
    if python_type(value) is None:
        raise not_array(value, name, "diff")
    dt = scalar_dtype(x.dtype, value, f"diff: {name}")
    return _wrap(scalar_np(value, dt))


def diff(
    x: Array,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: Array | bool | int | float | complex | None = None,
    append: Array | bool | int | float | complex | None = None,
) -> Array:
    """The n-th forward difference along an axis (with optional prepend/append arrays).

    Beyond the standard, as in NumPy, `prepend` and `append` may be scalars: each is then one
    slice of x's shape along the axis."""
    x = check_array(x, func="diff")
    if x.ndim == 0:
        raise ValueError("diff: x must have rank >= 1, got a 0-d array")
    ax = normalize_axis(axis, x.ndim, func="diff")
    n = as_int(n, "n", "diff", low=0)
    parts = []
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is not None:
            if not isinstance(extra, ArrayBase):
                # an ndarray of rank >= 1 is an array argument; a 0-d one is a NumPy scalar
                extra = (
                    check_array(extra, name, func="diff")
                    if isinstance(extra, np.ndarray) and extra.ndim
                    else _scalar_array(extra, x, name)
                )
            if extra.dtype is not x.dtype:
                # NumPy would promote silently; the standard asks for x's dtype.
                raise TypeError(
                    f"diff: {name} must have dtype {x.dtype.name}, got {extra.dtype.name}"
                )
            e = extra._np
            if e.ndim == 0:  # NumPy's rule: a 0-d value is one slice along the axis
                e = np.broadcast_to(e, x.shape[:ax] + (1,) + x.shape[ax + 1 :])
            parts.append(e)
    if x.dtype.kind == "b":
        # NumPy's boolean diff is XOR; the standard's difference is numeric only.
        raise TypeError("diff: x must have a numeric data type, got bool")
    a = x._np
    if parts:
        seq = [parts[0], a, *parts[1:]] if prepend is not None else [a, *parts]
        try:
            a = np.concatenate(seq, axis=ax)
        except ValueError as e:
            raise ValueError(
                f"diff: prepend and append must have the shape of x {x.shape} "
                f"except along axis {ax}: {e}"
            ) from None
        if n == 0:
            return _wrap(a)  # the concatenation is a new array
    if n == 0:
        # The zeroth difference is x, as a new array: NumPy returns x itself, and a result
        # that shares x's memory is a view the user did not ask for.
        return x.to_row_major()
    # Beyond the length of the axis the result is empty; NumPy would loop n times to get there.
    return _wrap(np.diff(a, n=min(n, a.shape[ax]), axis=ax))
