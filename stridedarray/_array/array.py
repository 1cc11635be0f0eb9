"""The array object, `Array`: the class statement that declares and assigns its whole surface.

An array is a descriptor (storage, dtype, shape, signed element strides, origin) held by the
array type, `ArrayBase` (C, csrc/arraytype/), which validates every descriptor in its one
constructor; views build new descriptors over the same storage and never copy. Computation
that NumPy does well runs on `x._np`, a zero-copy NumPy view of the descriptor.

This is the one module that imports the array class at run time. The parts below it (the
standard's chapters in `_api`, matmul in `_matmul`, NumPy's protocols in `_interop`, what
they share in `_base`) test their arguments against the C base type and build their results
with the C constructors, so this module can import them: every member below is assigned by
name, from the module that implements it, and "go to definition" lands on it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeAlias

import numpy as np

from .._api import elementwise as _elementwise
from .._api import info as _info
from .._api import setitem as _setitem
from .._arraytype import ArrayBase, _make_c
from .._base.construct import _empty, _from_ndarray
from .._base.descriptor import c_strides as _c_strides
from .._base.descriptor import check_size
from .._base.device import CPU_DEVICE, Device
from .._base.dtypes import DType
from .._interop import ndarray_methods as _methods
from .._interop import numpy_dispatch as _numpy_dispatch
from .._matmul import product as _product
from .._matmul.ffi import ffi, lib
from . import convert as _convert
from . import dlpack as _dlpack
from . import pickling as _pickling

__all__ = ["Array"]

_Operand: TypeAlias = "Array | bool | int | float | complex"  # the operators' `other`


# An operator's signature, as the standard's: `self` an Array, `other` an array or a Python
# scalar, the result an Array (Python's NotImplemented protocol aside). Written as the
# descriptor a function is, so that `__add__: _Binary = ...` in the class body makes
# `x.__add__` (and `x + y`) the bound method to type checkers too.
class _Binary(Protocol):
    def __call__(self, x: Array, other: _Operand, /) -> Array: ...
    def __get__(self, x: Array, owner: Any, /) -> Callable[[_Operand], Array]: ...


class _Unary(Protocol):
    def __call__(self, x: Array, /) -> Array: ...
    def __get__(self, x: Array, owner: Any, /) -> Callable[[], Array]: ...


_OPS = _elementwise.OPERATORS  # dunder -> the operator (most are NativeUfuncs, in C)
_NP = _methods.METHODS  # name -> NumPy's ndarray method on the zero-copy view


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

    # The class's whole surface is in this class statement:
    # - from the array type, ArrayBase (csrc/arraytype/, typed in _arraytype.pyi): the
    #   descriptor (_st, _dtype, _shape, _strides, _origin) and its caches (_np and _npv, the
    #   NumPy view; _c, the C core's descriptor), all read-only; `ndim`, `readonly`, reading
    #   with a key (`x[key]`), `mT`, `T`, the buffer protocol and `_view`, the one constructor
    #   of views;
    # - defined here: the descriptor's public properties, contiguity, `to_row_major`,
    #   `__array_interface__` and `__repr__`;
    # - assigned by name below, from the modules that implement them: conversions, pickling
    #   and DLPack (beside this module), the operators (_api/elementwise.py and
    #   _matmul/product.py), assignment, the namespace, NumPy's protocols and methods.
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

    # NumPy's protocol for "the dtype of this object" (NumPy >= 2.4): np.dtype(x),
    # np.zeros(3, dtype=x) and np.result_type(x) read it. Without it NumPy reads `x.dtype`,
    # and refuses it there because ours is not an instance of NumPy's dtype type
    # (docs/dtypes.md, "NumPy's dtype or ours"). A C getter: no Python frame.
    __numpy_dtype__ = property(
        operator.attrgetter("_dtype.np"),
        doc="""The NumPy dtype of the elements, for NumPy's `np.dtype(x)`.

        NumPy 2.4 and later read it in `np.dtype(x)`, `np.result_type(x)` and `dtype=x`.

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.ones(3, dtype=sa.int16)
        >>> x.dtype, x.__numpy_dtype__
        (stridedarray.int16, dtype('int16'))
        """,
    )

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
    def base(self) -> Array | None:
        """The array whose memory this one views, or None (NumPy's `ndarray.base`).

        The memory is `buffer`, and `base` is `buffer` as an Array (row-major, in the buffer's
        shape, sharing it). It is None for the array that is exactly that, as an array made by
        `zeros`, `asarray` or an operator is: nothing tells it apart from the array that made
        the buffer. Any other array over the buffer (a slice, a reshape, a transpose, a
        broadcast) is a view whose `base` is that array, so `x.base.base` is None.

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.arange(6)
        >>> x.base is None
        True
        >>> v = sa.reshape(x, (2, 3))[:, ::-1]
        >>> v.base
        Array([0, 1, 2, 3, 4, 5], dtype=int64, shape=(6,))
        >>> v.base.buffer is x.buffer, v.base.base is None
        (True, True)
        >>> b = sa.broadcast_to(sa.ones((), dtype=sa.int8), (10, 10))   # one element's memory
        >>> b.nbytes, b.base.nbytes
        (100, 1)
        """
        shape = self._st.arr.shape
        if self._origin == 0 and self._shape == shape and self.is_c_contiguous:
            return None
        return self._view(shape, _c_strides(shape), 0)

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

    # -- conversions: the device, Python scalars, sequences, lists, NumPy (convert.py) --
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

    # -- pickling and copying (pickling.py) -------------------------------------------------
    __reduce_ex__ = _pickling.__reduce_ex__
    __setstate__ = _pickling.__setstate__
    __copy__ = _pickling.__copy__
    __deepcopy__ = _pickling.__deepcopy__

    # -- DLPack (dlpack.py) -----------------------------------------------------------------
    __dlpack__ = _dlpack.__dlpack__
    __dlpack_device__ = _dlpack.__dlpack_device__
    __dlpack_c_exchange_api__ = _dlpack.__dlpack_c_exchange_api__

    # -- the operators: the element-wise table's (_api/elementwise.py), `@` matmul's --------
    # Arithmetic and bitwise: `x op y`, the reflected `y op x`, the in-place `x op= y`.
    __add__: _Binary = _OPS["__add__"]
    __radd__: _Binary = _OPS["__radd__"]
    __iadd__: _Binary = _OPS["__iadd__"]
    __sub__: _Binary = _OPS["__sub__"]
    __rsub__: _Binary = _OPS["__rsub__"]
    __isub__: _Binary = _OPS["__isub__"]
    __mul__: _Binary = _OPS["__mul__"]
    __rmul__: _Binary = _OPS["__rmul__"]
    __imul__: _Binary = _OPS["__imul__"]
    __truediv__: _Binary = _OPS["__truediv__"]
    __rtruediv__: _Binary = _OPS["__rtruediv__"]
    __itruediv__: _Binary = _OPS["__itruediv__"]
    __floordiv__: _Binary = _OPS["__floordiv__"]
    __rfloordiv__: _Binary = _OPS["__rfloordiv__"]
    __ifloordiv__: _Binary = _OPS["__ifloordiv__"]
    __mod__: _Binary = _OPS["__mod__"]
    __rmod__: _Binary = _OPS["__rmod__"]
    __imod__: _Binary = _OPS["__imod__"]
    __pow__: _Binary = _OPS["__pow__"]
    __rpow__: _Binary = _OPS["__rpow__"]
    __ipow__: _Binary = _OPS["__ipow__"]
    __and__: _Binary = _OPS["__and__"]
    __rand__: _Binary = _OPS["__rand__"]
    __iand__: _Binary = _OPS["__iand__"]
    __or__: _Binary = _OPS["__or__"]
    __ror__: _Binary = _OPS["__ror__"]
    __ior__: _Binary = _OPS["__ior__"]
    __xor__: _Binary = _OPS["__xor__"]
    __rxor__: _Binary = _OPS["__rxor__"]
    __ixor__: _Binary = _OPS["__ixor__"]
    __lshift__: _Binary = _OPS["__lshift__"]
    __rlshift__: _Binary = _OPS["__rlshift__"]
    __ilshift__: _Binary = _OPS["__ilshift__"]
    __rshift__: _Binary = _OPS["__rshift__"]
    __rrshift__: _Binary = _OPS["__rrshift__"]
    __irshift__: _Binary = _OPS["__irshift__"]
    # Comparisons, element-wise as the standard says: an Array of bool, not a bool.
    __lt__: _Binary = _OPS["__lt__"]
    __le__: _Binary = _OPS["__le__"]
    __gt__: _Binary = _OPS["__gt__"]
    __ge__: _Binary = _OPS["__ge__"]
    # (object's own == and != return a bool; the standard's return arrays: typed as such.)
    __eq__: _Binary = _OPS["__eq__"]  # type: ignore[assignment]
    __ne__: _Binary = _OPS["__ne__"]  # type: ignore[assignment]
    # Defining __eq__ in a class body sets __hash__ to None; the array type's own hash stays
    # (csrc/arraytype/scalar.c: a 0-d array hashes as its value, any other refuses, as NumPy's).
    __hash__ = ArrayBase.__hash__
    # Unary: `-x`, `+x`, `abs(x)`, `~x`.
    __neg__: _Unary = _OPS["__neg__"]
    __pos__: _Unary = _OPS["__pos__"]
    __abs__: _Unary = _OPS["__abs__"]
    __invert__: _Unary = _OPS["__invert__"]
    # The matrix product: `x @ y`, `y @ x`, `x @= y` (_matmul/product.py).
    __matmul__: _Binary = _product.matmul_operator
    __rmatmul__: _Binary = _product.rmatmul_operator
    __imatmul__: _Binary = _product.imatmul_operator

    # -- assignment, `x[key] = value` (reading, `x[key]`, is the array type's own, in C) -----
    __setitem__ = _setitem.__setitem__

    # -- the namespace (_api/info.py) and NumPy's function protocols, NEP 13 and NEP 18 ----
    __array_namespace__ = _info.__array_namespace__
    __array_ufunc__ = _numpy_dispatch.__array_ufunc__
    __array_function__ = _numpy_dispatch.__array_function__

    # -- NumPy's ndarray methods on the zero-copy view (_interop/ndarray_methods.py); `item`
    # is the array type's own, in C.
    all = _NP["all"]
    any = _NP["any"]
    argmax = _NP["argmax"]
    argmin = _NP["argmin"]
    argpartition = _NP["argpartition"]
    argsort = _NP["argsort"]
    astype = _NP["astype"]
    clip = _NP["clip"]
    compress = _NP["compress"]
    conj = _NP["conj"]
    conjugate = _NP["conjugate"]
    copy = _NP["copy"]
    cumprod = _NP["cumprod"]
    cumsum = _NP["cumsum"]
    diagonal = _NP["diagonal"]
    dot = _NP["dot"]
    fill = _NP["fill"]
    flatten = _NP["flatten"]
    max = _NP["max"]
    mean = _NP["mean"]
    min = _NP["min"]
    nonzero = _NP["nonzero"]
    partition = _NP["partition"]
    prod = _NP["prod"]
    ravel = _NP["ravel"]
    repeat = _NP["repeat"]
    reshape = _NP["reshape"]
    round = _NP["round"]
    searchsorted = _NP["searchsorted"]
    sort = _NP["sort"]
    squeeze = _NP["squeeze"]
    std = _NP["std"]
    sum = _NP["sum"]
    swapaxes = _NP["swapaxes"]
    take = _NP["take"]
    trace = _NP["trace"]
    transpose = _NP["transpose"]
    var = _NP["var"]
    view = _NP["view"]
