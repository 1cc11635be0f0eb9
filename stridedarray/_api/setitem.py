"""Writing with a key, `x[key] = value` (Array API chapter "Indexing"): `Array.__setitem__`,
assigned in Array's class statement.

The selection is found as reading finds it (`_getitem`: a basic key's view from the array
type's C rule, an advanced key through NumPy); the value is cast to the array's dtype and
NumPy writes it.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _basic_view
from .._base.arguments import convert_hint
from .._base.construct import ArrayBase, _from_ndarray, _own
from .._base.dtypes import float_as_int, python_scalar, scalar_dtype, scalar_np
from .getitem import _numpy_key, basic_key

if TYPE_CHECKING:
    from .._array.array import Array


__all__: list[str] = []


def _value_for(a: Array, value: Any) -> Any:
    """The NumPy-side value to assign into `a`, cast to `a`'s dtype.

    Assignment never changes `a`'s dtype. The standard defines it for values whose dtype
    promotes to `a`'s; for the rest (a float into an integer array, an int into a bool array)
    it is silent, and NumPy, torch and JAX all cast the value, so we do too: a Python float
    truncates toward zero as NumPy's does (NaN, infinity or a value out of range raise, as in
    NumPy), an Array converts by `astype`'s rule. A complex value into a real array would
    drop its imaginary part, which NumPy only warns about; we refuse it. A NumPy scalar
    assigns as the Python scalar of its value (an integer that does not fit raises, where
    NumPy would wrap it), a 0-d NumPy array as the equal 0-d Array."""
    dt = a._dtype
    if type(value) is float and dt.kind in "fc":
        # A Python float into a floating array (clients' `x[mask] = nan`): it takes the
        # array's dtype (scalar_dtype's rule for these kinds), so no check can fail.
        return scalar_np(value, dt)
    if isinstance(value, np.ndarray):
        if value.ndim:
            raise TypeError(
                f"value must be an Array or a scalar, got a NumPy array of shape "
                f"{value.shape}; convert it with stridedarray.asarray"
            )
        # A 0-d NumPy array assigns as ours does, as it was given: over a view only we hold,
        # since the key's __index__ runs later and may assign the caller's dtype or shape.
        value = _from_ndarray(_own(value), None)
    else:
        value = python_scalar(value)  # a NumPy scalar assigns as its Python value does
    if isinstance(value, ArrayBase):
        if value.dtype is dt:
            return value._np
        if value.dtype.kind == "c" and dt.kind != "c":
            raise TypeError(
                f"value of dtype {value.dtype.name} cannot be assigned into an "
                f"array of dtype {dt.name}: it would drop the imaginary part; "
                "take real(value) first"
            )
        return value._pack(dt)._np
    if isinstance(value, (builtins.bool, int, float, complex)):
        if scalar_dtype(dt, value, "value") is dt:
            return scalar_np(value, dt)
        if isinstance(value, complex):
            raise TypeError(
                f"value: a Python complex cannot be assigned into an array of "
                f"dtype {dt.name}; take its real part first"
            )
        if dt.kind == "b":
            return np.asarray(builtins.bool(value))
        # A Python float into an integer array.
        return scalar_np(float_as_int(value, dt, "value", "be assigned into"), dt)
    hint = f"; {convert_hint('value')}" if isinstance(value, (list, tuple)) else ""
    raise TypeError(
        f"x[key] = value: value must be an array or a Python or NumPy scalar, got "
        f"{type(value).__name__}{hint}"
    )


def _readonly_reason(x: Array) -> str:
    """The message of a refused write to read-only `x`, naming the cause."""
    if not x._st.arr.flags.writeable:
        return "assignment destination is read-only (a view of read-only memory)"
    axis = next(
        k for k, (n, s) in enumerate(zip(x._shape, x._strides, strict=True)) if s == 0 and n > 1
    )
    return (
        f"assignment destination is read-only: this view repeats elements (axis {axis} of "
        f"extent {x._shape[axis]} has stride 0, as broadcast_to makes), so a write would "
        "land on one element several times; write to a copy (x.to_row_major()) instead"
    )


def __setitem__(self: Array, key: Any, value: Any) -> None:
    """Assign `value` (broadcast) to the selected elements."""
    if self.readonly:
        raise ValueError(_readonly_reason(self))
    setitem(self, key, value)


def setitem(a: Array, key: Any, value: Any) -> None:
    """Assign `value`, broadcast to the selection, into `a` (overlap-safe through NumPy)."""
    v = _value_for(a, value)
    items = basic_key(key)
    view = None if items is None else _basic_view(a, items)
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
        raise ValueError(
            f"value of shape {np.shape(v)} cannot be broadcast to the selection of shape {sel}"
        ) from None
