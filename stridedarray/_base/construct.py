"""Arrays built from NumPy memory, for every part of the package: the Python half of
csrc/arraytype/construct.c and wrap.c.

Every array is made in C, by the array type's one constructor (`_arraytype._make`,
`_make_c`, `_wrap`, `_window`), which bounds-checks its descriptor and makes an object of the
class the package handed over. What C declines arrives here: a NumPy result that is not a
native aligned array (`_wrap_py`, which C calls), an ndarray from outside (`_own`,
`_from_ndarray`), a new uninitialised array (`_alloc`). Nothing here imports the array class:
results are built by the C constructors and tested against the C base type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _make as _c_make
from .._arraytype import _make_c, _Storage, _window
from . import dtypes as _dtypes
from .arguments import not_array
from .descriptor import check_size

# ArrayBase, the class every array is an instance of, as the parts below the array object test
# it: at run time the C base type (only stridedarray.Array derives from it, and nothing else can
# make an instance of either), for type checkers the array class, so that a test narrows to its
# members.
if TYPE_CHECKING:
    from .._array.array import Array
    from .._array.array import Array as ArrayBase
    from .dtypes import DType
else:
    from .._arraytype import ArrayBase

__all__ = ["ArrayBase"]


def _make(
    st: _Storage,
    dtype: DType,
    shape: tuple,
    strides: tuple,
    origin: int,
    npv: np.ndarray | None = None,
) -> Array:
    """The one constructor: bounds-check a descriptor and build the Array (in C).

    Every integer goes through operator.index; the reachable offsets are computed with
    overflow-checked arithmetic and must lie in the storage; an empty array's origin is
    clamped to [0, nbuf]. `npv`, when given, is cached as the NumPy view only if it is
    exactly that view."""
    return _c_make(st, dtype, shape, strides, origin, npv)


def _derive(parent: Array, shape: tuple, strides: tuple, origin: int) -> Array:
    """A view over `parent`'s storage, bounds-checked by the one constructor."""
    return parent._view(shape, strides, origin)


_ndarray = np.ndarray
_asarray = np.asarray
_empty = np.empty
_DT_OF_NP = _dtypes._BY_NP.get  # native NumPy dtype -> ours (a non-native one is not a key)


def _wrap_py(arr: np.ndarray | np.generic) -> Array:
    """Wrap a NumPy result, sharing its memory: the Python path of `_wrap`, the one result
    wrapper of every function. `_arraytype._wrap` takes, in C, native aligned ndarrays of any
    layout and NumPy scalars of our dtypes, and hands the rest here: ndarray subclasses,
    misaligned, byte-swapped or unsupported dtypes, strides that are not whole elements."""
    if type(arr) is not _ndarray:
        arr = _asarray(arr)  # a subclass's base-class view (or a scalar C did not take)
    dt = _DT_OF_NP(arr.dtype)
    if dt is not None:
        flags = arr.flags
        if flags.c_contiguous and flags.aligned:
            return _make_c(arr, dt)
    return _wrap_general(arr)


def _wrap_general(arr: np.ndarray) -> Array:
    """`_wrap` for results that are not fresh native C-contiguous aligned arrays."""
    dt = _dtypes.from_numpy_dtype(arr.dtype)  # TypeError for dtypes the standard lacks
    if arr.flags.c_contiguous:
        # Byte-swapped or misaligned: a native aligned copy (the C kernels load elements as
        # their C type).
        return _make_c(np.array(arr, dtype=dt.np, copy=True), dt)
    return _from_ndarray(arr, copy=None)


def _alloc(dtype: DType, shape: tuple) -> Array:
    """A new uninitialised C-contiguous array; memory comes from NumPy's allocator (huge
    pages for large blocks, which matters for big matmul outputs)."""
    try:
        arr = _empty(shape, dtype.np)
    except ValueError:
        check_size(shape, dtype.np.itemsize)  # the specific error for shapes too large
        raise
    return _make_c(arr, dtype)


def _refuse_view(arr: np.ndarray, dt: DType) -> None:
    """The ValueError of asarray(copy=False) for memory the C kernels cannot view, naming
    the one cause that applies (checked in this order)."""
    its = arr.itemsize
    if not arr.dtype.isnative:
        why = f"its byte order is not native ({arr.dtype.str}; {dt.name} is read natively)"
    elif not arr.flags.aligned:
        align, addr = arr.dtype.alignment, arr.__array_interface__["data"][0]
        what = (
            f"its data address {addr:#x} is"
            if addr % align
            else f"its byte strides {arr.strides} are"
        )
        why = f"its memory is not aligned for {dt.name}: {what} not a multiple of {align} bytes"
    else:
        why = f"its byte strides {arr.strides} are not whole multiples of the item size {its}"
    raise ValueError(f"asarray(copy=False): obj cannot be viewed without a copy: {why}")


def _from_ndarray(arr: np.ndarray, copy: bool | None) -> Array:
    """Wrap any ndarray keeping its strides (negative included) when its memory allows.

    `arr` (or a window of it) becomes the array's storage and NumPy view: it must be an
    ndarray only stridedarray holds (a NumPy result, or `_creation._own` of one from outside),
    never the caller's own, whose shape and dtype the caller may assign later."""
    if not copy:
        # The view is C's rule (construct.c, sa_make_strided, the one _wrap follows): the
        # whole of a C-contiguous array, else a window of its memory. It declines memory the
        # C kernels cannot load as their C type; that is copied here, or refused.
        dt = _DT_OF_NP(arr.dtype)
        if dt is not None:
            a = _window(arr, dt)
            if a is not None:
                return a
    dt = _dtypes.from_numpy_dtype(arr.dtype)  # TypeError for a dtype the standard lacks
    if copy is False:
        _refuse_view(arr, dt)
    return _make_c(np.array(arr, dtype=dt.np, order="C", copy=True), dt)


def _own(arr: np.ndarray) -> np.ndarray:
    """A base-class view of `arr` that nobody else holds: the storage an array takes of an
    ndarray that came from outside (the caller's, or what an `__array__`, a DLPack import or a
    NumPy function handed back). It shares arr's memory and has its geometry of now; the
    caller may later assign arr.shape, arr.dtype or arr.strides, and an array must not change
    with them (docs/reliability.md)."""
    return _ndarray_view(arr, np.ndarray)


_ndarray_view = np.ndarray.view


def array_argument(x: Any, name: str = "x", func: str = "") -> Array:
    """An array argument of a namespace function as an Array: an Array itself; a NumPy ndarray
    as an Array over its memory (zero-copy unless its byte order is not native), as JAX's
    functions take them (docs/interop.md, "NumPy arrays as arguments"); anything else, a list
    or another library's array, the TypeError of `not_array`. Callers test for an Array first
    and call this only where that test failed: an Array argument costs nothing more."""
    if isinstance(x, ArrayBase):
        return x
    if isinstance(x, np.ndarray):
        try:
            return numpy_operand(x)
        except TypeError as e:  # a dtype we lack (float16, object, strings): say which argument
            raise TypeError(f"{func + ': ' if func else ''}{name}: {e}") from None
    raise not_array(x, name, func)


def numpy_operand(value: Any) -> Array:
    """A NumPy scalar or ndarray operand as an array of its own dtype, over a view only we hold
    (another thread may assign the caller's shape or dtype meanwhile, docs/reliability.md)."""
    return _from_ndarray(_own(value) if isinstance(value, np.ndarray) else np.asarray(value), None)
