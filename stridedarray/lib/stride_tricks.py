"""`stridedarray.lib.stride_tricks`: NumPy's `numpy.lib.stride_tricks` for strided views.

`sliding_window_view` is a view whose window axes repeat the strides of the axes they slide
along: no element is copied, as in NumPy. NumPy's `as_strided` is not here: it places a view
by byte strides that nothing checks, where every stridedarray view stays inside its buffer
(`sliding_window_view`, `broadcast_to` and slicing make the views it is used for). The
standard's `broadcast_to`, `broadcast_arrays` and `broadcast_shapes` are here too, where NumPy
has them, as the same functions as the namespace's.
"""

from __future__ import annotations

import sys as _sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import _pickle
from .._api._common import check_array
from .._api.manipulation import broadcast_arrays, broadcast_shapes, broadcast_to
from .._arraytype import _make_c
from .._base.arguments import as_bool, as_int, as_ints, normalize_axis
from .._base.descriptor import MAX_AXES as _MAX_AXES

if TYPE_CHECKING:
    from .._array.array import Array

__all__ = ["broadcast_arrays", "broadcast_shapes", "broadcast_to", "sliding_window_view"]


def sliding_window_view(
    x: Array,
    /,
    window_shape: int | Sequence[int],
    axis: int | Sequence[int] | None = None,
    *,
    subok: bool = False,
    writeable: bool = False,
) -> Array:
    """A view of every window of `window_shape` sliding over `x` (NumPy's
    `numpy.lib.stride_tricks.sliding_window_view`).

    Each axis in `axis` shrinks to the number of positions the window takes along it
    (`n - w + 1`), and the window's own axes follow x's, in the order of `axis`. No element is
    copied: a window axis has the stride of the axis it slides along, so windows overlap in
    memory. An axis may be named more than once; its windows then nest, as in NumPy.

    Parameters
    ----------
    x : Array
        The array to take windows of (any dtype, any view of its buffer).
    window_shape : int or sequence of ints
        The window's extent along each axis in `axis`; each at most that axis's extent.
    axis : int, sequence of ints or None
        The axes the window slides along; None (the default) means every axis, and then
        `window_shape` has one entry per axis of `x`.
    subok : bool
        NumPy's keyword for ndarray subclasses; accepted, and without effect here.
    writeable : bool
        False (the default): the view is read-only, since a write through one window would
        change the others. True: the view writes to `x`'s memory when `x` can be written;
        neighbouring windows then share elements, and a write lands in all of them.

    Returns
    -------
    Array
        The view, of rank `x.ndim + len(window_shape)`.

    Examples
    --------
    >>> import numpy as np
    >>> import stridedarray as sa
    >>> from stridedarray.lib.stride_tricks import sliding_window_view
    >>> x = sa.arange(5)
    >>> v = sliding_window_view(x, 3)
    >>> v
    Array([[0, 1, 2],
           [1, 2, 3],
           [2, 3, 4]], dtype=int64, shape=(3, 3), strides=(1, 1), origin=0)
    >>> v.readonly, np.shares_memory(v.buffer, x.buffer)   # read-only, and no copy
    (True, True)
    >>> sa.sum(sliding_window_view(sa.arange(10.0)[::-2], 2), axis=-1)  # moving sums
    Array([16., 12.,  8.,  4.], dtype=float64, shape=(4,))
    """
    func = "sliding_window_view"
    x = check_array(x, func=func)
    if isinstance(window_shape, Sequence) and not isinstance(window_shape, (str, bytes)):
        window = as_ints(window_shape, "window_shape", func)
    else:
        window = (as_int(window_shape, "window_shape", func),)
    as_bool(subok, "subok", func)
    writeable = as_bool(writeable, "writeable", func)
    if any(w < 0 for w in window):
        raise ValueError(f"{func}: window_shape must not contain negative values, got {window}")
    if axis is None:
        if len(window) != x.ndim:
            raise ValueError(
                f"{func}: with axis=None, window_shape needs one entry for each of x's "
                f"{x.ndim} axes, got {len(window)} ({window}); or name the axes with axis="
            )
        axes = tuple(range(x.ndim))
    else:
        seq = axis if isinstance(axis, Sequence) else (axis,)
        # repeated axes are allowed (nested windows), so each is normalized on its own
        axes = tuple(
            normalize_axis(a, x.ndim, f"axis[{i}]" if seq is axis else "axis", func)
            for i, a in enumerate(seq)
        )
        if len(axes) != len(window):
            raise ValueError(
                f"{func}: window_shape has {len(window)} entries and axis {len(axes)}; give "
                "one window extent for each axis"
            )
    if x.ndim + len(window) > _MAX_AXES:
        raise ValueError(
            f"{func}: the view would have {x.ndim + len(window)} axes, and arrays have at most "
            f"{_MAX_AXES}"
        )
    shape = list(x.shape)
    for ax, w in zip(axes, window, strict=True):
        if w > shape[ax]:
            raise ValueError(
                f"{func}: the window ({w}) is larger than axis {ax} "
                f"({shape[ax]} positions left of extent {x.shape[ax]})"
            )
        shape[ax] -= w - 1
    strides = x.strides + tuple(x.strides[ax] for ax in axes)
    base = x
    if not writeable and x._st.arr.flags.writeable:
        # the same memory through a read-only ndarray, as NumPy's view is read-only
        ro = x._st.arr.view()
        ro.flags.writeable = False
        base = _make_c(ro, x.dtype)
    return base._view(tuple(shape) + window, strides, x.origin)


def __getattr__(name: str) -> object:
    if name == "as_strided":
        raise AttributeError(
            f"module {__name__!r} has no attribute 'as_strided': NumPy's places a view by byte "
            "strides that nothing checks, where every stridedarray view stays inside its "
            "buffer; sliding_window_view, broadcast_to and slicing make the views it is used for"
        )
    from .._base.numpy_names import missing

    raise missing(__name__, name)


def __dir__() -> list[str]:
    return sorted(__all__)


# Named for pickling once the package is complete (this module loads on first use): the
# package's own names first, so that `broadcast_to` keeps its name `stridedarray.broadcast_to`.
_pickle.publish([_sys.modules["stridedarray"], _sys.modules[__name__]])
