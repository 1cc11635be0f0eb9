"""The array object: a descriptor (storage, dtype, shape, signed element strides, origin).

Every descriptor is validated once, in `_make`: all reachable element offsets must lie
inside the storage. Views build new descriptors over the same storage and never copy.
Computation that NumPy does well runs on `x._np`, a zero-copy NumPy view of the descriptor.

Array's class statement declares the type's whole surface (the comment at its top says where
each part is implemented). This module and those it imports (_array_convert, _array_pickle,
_array_dlpack, _descriptor, _dtypes, _validation, _ffi) are the bottom of the package: none
of them imports another of its modules, even inside a function, so every module can import
Array. The members implemented higher up are bound onto the class by `_bind`, in one table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from . import _array_convert as _convert
from . import _array_dlpack, _array_pickle, _dtypes
from ._array_convert import CPU_DEVICE, Device
from ._arraytype import ArrayBase, _make_c, _window
from ._arraytype import _make as _c_make
from ._arraytype import _Storage as _Storage
from ._arraytype import _wrap as _wrap  # the one result wrapper (its Python path: _wrap_py)
from ._dtypes import DType
from ._ffi import ffi, lib
from ._validation import check_size

__all__ = ["Array", "Device", "CPU_DEVICE"]


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


_Operand: TypeAlias = "Array | bool | int | float | complex"  # the operators' `other`

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


class Array(ArrayBase):
    """A strided view over a buffer. Create arrays with `asarray`, `zeros`, `empty`, ...

    An array is a descriptor: its `buffer`, `dtype`, `shape`, signed `strides` counted in
    elements, and `origin`, the element offset of index (0, ..., 0) in the buffer. Slicing,
    transposing, reversing and broadcasting make new descriptors over the same buffer, never
    copies. Beyond the Array API standard's members it offers NumPy's conversion protocols
    (``numpy.asarray(x)`` shares memory), `tolist`, `to_row_major`, and NumPy's ndarray
    methods (``x.sum(axis=0)``, ``x.astype(numpy.float32)``, ...).

    Calling the class raises `TypeError`: arrays are made by the creation functions. The
    dtypes are the standard's (bool, the signed and unsigned integers of 8 to 64 bits,
    float32, float64, complex64, complex128); operators promote as :doc:`/dtypes` says, and
    bad operands raise `TypeError` or `ValueError` naming the argument and what was expected.

    See Also
    --------
    asarray : Wrap existing memory (NumPy arrays, buffers, DLPack producers) as an Array.
    Array.to_row_major : A C-contiguous copy.

    Notes
    -----
    The guide: :doc:`/array` (the descriptor, views, the bounds rule) and :doc:`/interop`
    (NumPy and the PyData libraries).

    Examples
    --------
    >>> import stridedarray as sa
    >>> x = sa.reshape(sa.arange(6), (2, 3))
    >>> y = x[:, ::-1]                      # a view: same buffer, a negative stride
    >>> y
    Array([[2, 1, 0],
           [5, 4, 3]], dtype=int64, shape=(2, 3), strides=(3, -1), origin=2)
    >>> y.buffer is x.buffer
    True
    >>> y.sum(axis=0).tolist()              # NumPy's method, on the zero-copy view
    [7, 5, 3]
    """

    # Its permanent name, whatever module defines it (as numpy.ndarray's is numpy): pickles
    # of the class and its methods name `stridedarray.Array` (stridedarray/_pickle.py).
    __module__ = "stridedarray"

    # The class's whole surface is declared in this class statement, in four parts:
    # - from the array type, ArrayBase (csrc/arraytype/, typed in _arraytype.pyi): the
    #   descriptor (_st, _dtype, _shape, _strides, _origin) and its caches (_np and _npv, the
    #   NumPy view; _c, the C core's descriptor), all read-only; `ndim`, `readonly`, reading
    #   with a key (`x[key]`), `mT`, `T`, the buffer protocol and `_view`, the one constructor
    #   of views;
    # - defined here: the descriptor's public properties, contiguity, `to_row_major`,
    #   `__array_interface__` and `__repr__`;
    # - taken from the modules beside this one, which import nothing above it: conversions to
    #   Python and NumPy (_array_convert), pickling and copying (_array_pickle), DLPack
    #   (_array_dlpack);
    # - bound at package import from the modules that implement them (the table in _bind.py),
    #   and declared for type checkers at the end: the operators, assignment, the namespace,
    #   NumPy's function protocols and NumPy's ndarray methods.
    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Array:
        raise TypeError(
            "stridedarray.Array is not created directly; use asarray, empty, zeros, ones, "
            "full or arange"
        )

    # -- descriptor ------------------------------------------------------------------------
    @property
    def buffer(self) -> np.ndarray:
        """The storage this array views: a C-contiguous ndarray, shared by all its views.

        `origin` and `strides` locate the elements in it (as if flattened).

        Examples
        --------
        >>> import stridedarray as sa
        >>> sa.arange(4)[::-1].buffer
        array([0, 1, 2, 3])
        """
        return self._st.arr

    @property
    def dtype(self) -> DType:
        """Data type of the elements."""
        return self._dtype

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent of each axis."""
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Signed step between neighbours along each axis, in elements (not bytes).

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.zeros((2, 3))
        >>> x.strides, x.mT.strides, x[:, ::-2].strides
        ((3, 1), (1, 3), (3, -2))
        """
        return self._strides

    @property
    def origin(self) -> int:
        """Element offset within `buffer` of the element at index (0, ..., 0).

        Examples
        --------
        >>> import stridedarray as sa
        >>> sa.arange(10)[7:2:-1].origin    # the view starts at element 7 of the buffer
        7
        """
        return self._origin

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for s in self._shape:
            n *= s
        return n

    # NumPy's ndarray members a NumPy user reaches for, with NumPy's meaning.
    @property
    def itemsize(self) -> int:
        """Bytes per element (NumPy's `ndarray.itemsize`).

        Examples
        --------
        >>> import stridedarray as sa
        >>> sa.zeros(3, dtype=sa.float32).itemsize
        4
        """
        return self._dtype.np.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes the elements take, `size * itemsize` (NumPy's `ndarray.nbytes`).

        Not the buffer's size, which a view's may exceed.

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.zeros(10)
        >>> x.nbytes, x[::2].nbytes, x[::2].buffer.nbytes
        (80, 40, 80)
        """
        return self.size * self._dtype.np.itemsize

    @property
    def real(self) -> Array:
        """The real parts, as NumPy's `ndarray.real` gives them.

        For a complex array a view sharing its memory (writing into it writes the array); for
        any other dtype the array itself.

        Examples
        --------
        >>> import stridedarray as sa
        >>> z = sa.asarray([1 + 2j, 3 - 4j])
        >>> z.real
        Array([1., 3.], dtype=float64, shape=(2,), strides=(2,), origin=0)
        >>> z.real[0] = 5.0
        >>> z
        Array([5.+2.j, 3.-4.j], dtype=complex128, shape=(2,))
        """
        if self._dtype.kind != "c":
            return self
        return _from_ndarray(self._np.real, None)

    @property
    def imag(self) -> Array:
        """The imaginary parts, as NumPy's `ndarray.imag` gives them.

        For a complex array a view sharing its memory; for any other dtype a new read-only
        array of zeros of the array's dtype (there is nothing to write into).

        Examples
        --------
        >>> import stridedarray as sa
        >>> sa.asarray([1 + 2j, 3 - 4j]).imag
        Array([ 2., -4.], dtype=float64, shape=(2,), strides=(2,), origin=0)
        >>> sa.asarray([1.0, 2.0]).imag.readonly
        True
        """
        if self._dtype.kind == "c":
            return _from_ndarray(self._np.imag, None)
        zeros = np.zeros(self._shape, self._dtype.np)
        zeros.flags.writeable = False
        return _make_c(zeros, self._dtype)

    def __str__(self) -> str:
        """The values as NumPy's `str` shows them, for `print(x)`.

        `repr` adds the dtype, the shape and, for a view, its strides and origin.

        Examples
        --------
        >>> import stridedarray as sa
        >>> print(sa.arange(6)[4::-2])
        [4 2 0]
        """
        return str(self._np)

    @property
    def device(self) -> Device:
        """The device holding the data (always the CPU)."""
        return CPU_DEVICE

    def _contiguous(self, order: str) -> bool:
        if 0 in self._shape:
            return True
        pairs: Iterable[tuple[int, int]] = zip(self._shape, self._strides, strict=True)
        pairs = reversed(list(pairs)) if order == "C" else pairs
        step = 1
        for n, s in pairs:
            if n != 1:
                if s != step:
                    return False
                step *= n
        return True

    @property
    def is_c_contiguous(self) -> bool:
        """True when elements are laid out in row-major order with no gaps.

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.zeros((2, 3))
        >>> x.is_c_contiguous, x.mT.is_c_contiguous, x[:, :2].is_c_contiguous
        (True, False, False)
        """
        return self._contiguous("C")

    @property
    def is_f_contiguous(self) -> bool:
        """True when elements are laid out in column-major order with no gaps.

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.zeros((2, 3))
        >>> x.is_f_contiguous, x.mT.is_f_contiguous
        (False, True)
        """
        return self._contiguous("F")

    def to_row_major(self) -> Array:
        """A C-contiguous copy, made by the C core walking the signed strides once.

        Returns
        -------
        Array
            A new array with its own writable buffer, row-major strides and origin 0,
            holding the same values (always a copy, also of a contiguous array).

        Examples
        --------
        >>> import stridedarray as sa
        >>> y = sa.reshape(sa.arange(6), (2, 3))[:, ::-1]
        >>> z = y.to_row_major()
        >>> z.strides, z.origin, z.buffer is y.buffer
        ((3, 1), 0, False)
        >>> z.tolist()
        [[2, 1, 0], [5, 4, 3]]
        """
        return self._pack(self._dtype)

    def _pack(self, dtype: DType, shape: tuple | None = None) -> Array:
        """Row-major copy converted to `dtype` in the same pass (the pack-once primitive),
        with the row-major `shape` of the same size if given (reshape's copy)."""
        try:
            out = _empty(self._shape, dtype.np)
        except ValueError:
            check_size(self._shape, dtype.np.itemsize)
            raise
        if out.size:
            if lib.sa_to_row_major(self._c, ffi.from_buffer(out), dtype.code) != 0:
                out[...] = self._np  # pairs the C core declines (e.g. to bool): NumPy casts
        return _make_c(out if shape is None else out.reshape(shape), dtype)

    @property
    def __array_interface__(self) -> dict:
        """NumPy's array interface: `numpy.asarray(x)` shares this array's memory.

        Examples
        --------
        >>> import numpy as np
        >>> import stridedarray as sa
        >>> y = sa.arange(4)[::-1]
        >>> np.asarray(y), np.shares_memory(np.asarray(y), y.buffer)
        (array([3, 2, 1, 0]), True)
        """
        return self._np.__array_interface__

    def __repr__(self) -> str:
        """Values, dtype and shape; for a view also its strides and origin.

        A 0-d array shows its value, dtype and shape only: it has no strides, and a list of
        elements (`[x[0], x[1]]`) stays readable.

        Examples
        --------
        >>> import stridedarray as sa
        >>> sa.asarray([1.0, 2.0])
        Array([1., 2.], dtype=float64, shape=(2,))
        >>> sa.arange(6)[4::-2]
        Array([4, 2, 0], dtype=int64, shape=(3,), strides=(-2,), origin=4)
        >>> sa.arange(6)[4]
        Array(4, dtype=int64, shape=())
        """
        body = np.array2string(self._np, separator=", ", prefix="Array(")
        extra = f", shape={self._shape}"
        if self._shape and not (
            self.is_c_contiguous and self._origin == 0 and self._st.arr.size == self.size
        ):
            extra += f", strides={self._strides}, origin={self._origin}"
        return f"Array({body}, dtype={self._dtype.name}{extra})"

    # -- conversions: the device, Python scalars, sequences, lists, NumPy (_array_convert) --
    to_device = _convert.to_device
    __bool__ = _convert.__bool__
    # __float__, __int__, __index__, __complex__ and item: the array type's own, in C
    # (csrc/arraytype/scalar.c)
    __format__ = _convert.__format__
    __len__ = _convert.__len__
    # __iter__: the array type's own (csrc/arraytype/iterate.c): a 1-D array yields read-only
    # 0-d copies of its elements, which hash as their values; __hash__ (csrc/arraytype/
    # scalar.c) refuses every other array, as NumPy's ndarray (docs/numpy-users.md).
    __contains__ = _convert.__contains__
    tolist = _convert.tolist
    __array__ = _convert.__array__
    __dask_tokenize__ = _convert.__dask_tokenize__
    # Dask's tensordot picks the chunk with the highest priority to choose the implementation:
    # above ndarray's 0, so a product with a NumPy chunk runs on ours.
    __array_priority__ = 10.0

    # -- pickling and copying (_array_pickle) -------------------------------------------------
    __reduce_ex__ = _array_pickle.__reduce_ex__
    __setstate__ = _array_pickle.__setstate__
    __copy__ = _array_pickle.__copy__
    __deepcopy__ = _array_pickle.__deepcopy__

    # -- DLPack (_array_dlpack) -----------------------------------------------------------------
    __dlpack__ = _array_dlpack.__dlpack__
    __dlpack_device__ = _array_dlpack.__dlpack_device__

    # -- bound at package import (_bind.MEMBERS), as type checkers see them ------------------
    if TYPE_CHECKING:
        # the namespace (_info) and NumPy's function protocols (_numpy_dispatch)
        def __array_namespace__(self, /, *, api_version: str | None = None) -> Any: ...
        def __array_ufunc__(
            self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any
        ) -> Any: ...
        def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any: ...
        # assignment (_setitem)
        def __setitem__(self, key: Any, value: Any, /) -> None: ...

        # The operators, as `_operators` names them (go to definition lands there, on the object
        # `_bind` sets): arithmetic, bitwise, comparison and unary ones from _elementwise, `@`
        # from _matmul. Comparisons are element-wise, as the standard says: an Array, not a bool.
        from ._operators import (
            __abs__,
            __add__,
            __and__,
            __eq__,
            __floordiv__,
            __ge__,
            __gt__,
            __iadd__,
            __iand__,
            __ifloordiv__,
            __ilshift__,
            __imatmul__,
            __imod__,
            __imul__,
            __invert__,
            __ior__,
            __ipow__,
            __irshift__,
            __isub__,
            __itruediv__,
            __ixor__,
            __le__,
            __lshift__,
            __lt__,
            __matmul__,
            __mod__,
            __mul__,
            __ne__,
            __neg__,
            __or__,
            __pos__,
            __pow__,
            __radd__,
            __rand__,
            __rfloordiv__,
            __rlshift__,
            __rmatmul__,
            __rmod__,
            __rmul__,
            __ror__,
            __rpow__,
            __rrshift__,
            __rshift__,
            __rsub__,
            __rtruediv__,
            __rxor__,
            __sub__,
            __truediv__,
            __xor__,
        )

        # NumPy's methods (_ndarray_methods): an Array or what NumPy returns (_numpy_dispatch).
        all: Callable[..., Any]
        any: Callable[..., Any]
        argmax: Callable[..., Any]
        argmin: Callable[..., Any]
        argpartition: Callable[..., Any]
        argsort: Callable[..., Any]
        astype: Callable[..., Any]
        clip: Callable[..., Any]
        compress: Callable[..., Any]
        conj: Callable[..., Any]
        conjugate: Callable[..., Any]
        copy: Callable[..., Any]
        cumprod: Callable[..., Any]
        cumsum: Callable[..., Any]
        diagonal: Callable[..., Any]
        dot: Callable[..., Any]
        fill: Callable[..., Any]
        flatten: Callable[..., Any]
        max: Callable[..., Any]
        mean: Callable[..., Any]
        min: Callable[..., Any]
        nonzero: Callable[..., Any]
        partition: Callable[..., Any]
        prod: Callable[..., Any]
        ravel: Callable[..., Any]
        repeat: Callable[..., Any]
        reshape: Callable[..., Any]
        round: Callable[..., Any]
        searchsorted: Callable[..., Any]
        sort: Callable[..., Any]
        squeeze: Callable[..., Any]
        std: Callable[..., Any]
        sum: Callable[..., Any]
        swapaxes: Callable[..., Any]
        take: Callable[..., Any]
        trace: Callable[..., Any]
        transpose: Callable[..., Any]
        var: Callable[..., Any]
        view: Callable[..., Any]
