"""Pickling and copying an Array: `__reduce_ex__` ships the elements the view reaches and
nothing else, `rebuild` checks every field of a pickle before the one constructor builds the
array from it, and `copy.copy`/`copy.deepcopy` make row-major copies.

Plain functions of an Array, which the class statement in `_array.py` takes as its methods."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _descriptor_ints, _make, _Storage
from .._base import dtypes as _dtypes
from .._base.descriptor import _bounded_strides, _fills_window, _offset_range

if TYPE_CHECKING:
    from .array import Array

__all__: list[str] = []


def __reduce_ex__(self: Array, protocol: Any) -> tuple:
    """Pickle the elements this array reaches and nothing else (rule in `_payload`).

    Protocol 5 ships the payload as an out-of-band buffer when the pickler takes one.
    The layout (transposed, reversed and zero strides) survives the round trip when the
    view reaches every element of the window of the buffer it spans; a view that skips
    elements (a step, a column of a table) is packed row-major first, as NumPy pickles
    a non-contiguous array, so a pickle never carries elements the view does not show.

    Examples
    --------
    >>> import pickle
    >>> import stridedarray as sa
    >>> y = sa.arange(6)[::-1]
    >>> z = pickle.loads(pickle.dumps(y))
    >>> z.tolist(), z.strides
    ([5, 4, 3, 2, 1, 0], (-1,))
    """
    payload, strides, origin = _payload(self)
    # (NumPy's stubs declare ndarray.__buffer__ on Python >= 3.12 only; 3.11 has the C API.)
    data: Any = (
        pickle.PickleBuffer(payload)  # type: ignore[arg-type]
        if protocol >= 5
        else payload.tobytes()
    )
    return (
        rebuild,  # stridedarray._pickle.array, its permanent name
        (
            data,
            self._dtype.name,
            self._shape,
            strides,
            origin,
            not self._st.arr.flags.writeable,
        ),
    )


def __setstate__(self: Array, state: Any) -> None:
    """Refuse any pickle state: arrays are rebuilt only by their checked reconstructor.

    So no pickle can set an array's shape, strides or origin after the bounds check; the
    pickles stridedarray writes carry no state.

    Raises
    ------
    pickle.UnpicklingError
        Always.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.zeros(2).__setstate__({"_origin": 5})
    Traceback (most recent call last):
    ...
    _pickle.UnpicklingError: stridedarray.Array takes no pickle state: ...
    """
    raise pickle.UnpicklingError(
        "stridedarray.Array takes no pickle state: this pickle tries to set an array's "
        "fields after it was built (not a pickle stridedarray writes); refused"
    )


def __copy__(self: Array) -> Array:
    """copy.copy: a new row-major array with its own (writable) memory, as NumPy's.

    Examples
    --------
    >>> import copy
    >>> import stridedarray as sa
    >>> y = sa.arange(3)[::-1]
    >>> c = copy.copy(y)
    >>> c.tolist(), c.strides, c.buffer is y.buffer
    ([2, 1, 0], (1,), False)
    """
    return self.to_row_major()


def __deepcopy__(self: Array, memo: dict) -> Array:
    """copy.deepcopy: the same as copy.copy (elements are plain numbers).

    Examples
    --------
    >>> import copy
    >>> import stridedarray as sa
    >>> copy.deepcopy(sa.arange(3)[::-1]).strides
    (1,)
    """
    return self.to_row_major()


def _payload(x: Array) -> tuple[np.ndarray, tuple, int]:
    """The memory a pickle of `x` carries, and x's strides and origin within it.

    When x reaches every element of the window of the buffer it spans (a dense block,
    transposed, reversed or repeated by zero strides), the payload is that window and the
    layout survives the round trip; otherwise (a step, a column of a table, a corner) x's
    elements are packed row-major, so a pickle never carries an element x does not show
    (nor uninitialised memory between them); a repeated axis is packed once and keeps its
    zero stride. Empty arrays ship nothing."""
    st = x._st
    flat = st.arr.reshape(-1)  # the storage is C-contiguous: a view
    if x.size == 0:
        return flat[:0], tuple(0 for _ in x._shape), 0
    if _fills_window(x._shape, x._strides):
        lo, hi = _offset_range(x._shape, x._strides, x._origin)
        # Strides no index multiplies may exceed 64 bits; the payload carries them bounded.
        return (flat[lo : hi + 1], _bounded_strides(x._shape, x._strides, st.nbuf), x._origin - lo)
    # Pack the elements once each: a repeated axis (stride 0) is packed at extent 1 and keeps
    # its zero stride, so a broadcast view stays a (read-only) broadcast of fewer elements.
    rep = [n > 1 and s == 0 for n, s in zip(x._shape, x._strides, strict=True)]
    packed = x[tuple(slice(0, 1) if r else slice(None) for r in rep)].to_row_major()
    strides = tuple(0 if r else s for r, s in zip(rep, packed._strides, strict=True))
    return packed._st.arr.reshape(-1), strides, 0


def rebuild(
    data: Any, dtype_name: str, shape: tuple, strides: tuple, origin: int, readonly: bool
) -> Array:
    """Unpickle an array: a descriptor over the payload's memory, shared when the unpickler
    hands a writable out-of-band buffer (copied when misaligned for the dtype, or read-only
    for an array that was writable).

    Every argument is checked before a descriptor exists (a pickle is data from elsewhere):
    anything a pickle of stridedarray's cannot hold raises pickle.UnpicklingError naming it,
    and the descriptor then passes the same bounds check as every other array."""
    try:
        return _rebuild_checked(data, dtype_name, shape, strides, origin, readonly)
    except (TypeError, ValueError, OverflowError) as e:
        raise pickle.UnpicklingError(f"not a valid stridedarray.Array pickle: {e}") from e


def _rebuild_checked(
    data: Any, dtype_name: Any, shape: Any, strides: Any, origin: Any, readonly: Any
) -> Array:
    if not isinstance(dtype_name, str):
        raise TypeError(f"the dtype name must be a str, got {type(dtype_name).__name__}")
    if readonly.__class__ is not bool:
        raise TypeError(f"the read-only flag must be a bool, got {type(readonly).__name__}")
    shape, strides, origin = _descriptor_ints(shape, strides, origin)
    if len(shape) != len(strides):
        raise ValueError(f"shape {shape} and strides {strides} differ in length")
    try:
        dt = _dtypes.by_name(dtype_name)
    except KeyError:
        raise ValueError(f"unknown dtype name {dtype_name!r:.40}") from None
    arr = np.frombuffer(data, dtype=dt.np)  # TypeError unless a buffer, ValueError if ragged
    if not arr.flags.aligned or (not readonly and not arr.flags.writeable):
        # The C kernels load elements as their C type; a writable array stays writable even
        # when its bytes arrive in immutable memory (protocols < 5 carry them as `bytes`).
        arr = arr.copy()
    if readonly and arr.flags.writeable:
        arr.flags.writeable = False
    return _make(_Storage(arr), dt, shape, strides, origin)
