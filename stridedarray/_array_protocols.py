"""The array object's protocols that are not about layout: namespace and device, conversion
to Python scalars, lists and NumPy, the sequence protocol, pickling and copying, NumPy's
function protocols (NEP 13/18, in `_numpy_dispatch`), and DLPack export. Array inherits
them from this mixin."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeAlias

import numpy as np

from ._validation import as_int

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from ._array import Array, _Storage
    from ._dtypes import DType

    _Operand: TypeAlias = Array | bool | int | float | complex  # the operators' `other`

__all__ = ["Device", "CPU_DEVICE"]


# NumPy's messages first (code matches them), then which array it was.
_AMBIGUOUS_MANY = (
    "The truth value of an array with more than one element is ambiguous. Use "
    "a.any() or a.all() (bool() of an array of shape {})"
)
_AMBIGUOUS_EMPTY = (
    "The truth value of an empty array is ambiguous. Use `array.size > 0` to "
    "check that an array is not empty."
)


class Device:
    """The one device stridedarray computes on: host memory."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "CPU_DEVICE"

    def __eq__(self, other: object) -> bool:
        # The string "cpu" names this device too, as torch spells it (to_device("cpu")).
        return isinstance(other, Device) or (isinstance(other, str) and other == "cpu")

    def __hash__(self) -> int:
        return hash("cpu")  # equal objects hash alike: "cpu" == CPU_DEVICE


CPU_DEVICE = Device()

# Every published version of the standard, as NumPy and array-api-strict accept them. One
# before 2025.12 gets a namespace whose `__array_api_version__` is that version and whose
# sequences of arrays are lists (`_info.namespace_for`); every other answer is 2025.12's, a
# superset that code written for an older version runs on (the few answers that changed
# since, such as the dtype of sum of float32 before 2023.12, follow the newer version).
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
_NAMESPACE: list = []  # the default namespace (the stridedarray package), once asked for
_DL_CPU = 1  # kDLCPU in DLPack's DLDeviceType


class _ArrayProtocols:
    """Mixin for Array: namespace, device, Python scalar conversion, DLPack."""

    __slots__ = ()

    if TYPE_CHECKING:
        # What the methods below read of Array (_array.py; the descriptor fields are the
        # array type's, read-only), declared for type checkers.
        @property
        def _st(self) -> _Storage: ...
        @property
        def _dtype(self) -> DType: ...
        @property
        def _shape(self) -> tuple[int, ...]: ...
        @property
        def _strides(self) -> tuple[int, ...]: ...
        @property
        def _origin(self) -> int: ...

        @property
        def _np(self) -> np.ndarray: ...
        @property
        def ndim(self) -> int: ...
        @property
        def readonly(self) -> bool: ...
        def __getitem__(self, key: Any, /) -> Array: ...
        def to_row_major(self) -> Array: ...

    # -- namespace, device, conversion to Python scalars ---------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The stridedarray namespace; api_version may be None or any published version
        ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")."""
        if api_version is None and _NAMESPACE:  # array-API code asks on every call
            return _NAMESPACE[0]
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(
                f"api_version must be None or one of {_API_VERSIONS}, got {api_version!r}"
            )
        from ._info import namespace_for

        # Per request: an older version gets its own namespace object; nothing global changes.
        ns = namespace_for(api_version)
        if api_version is None:
            _NAMESPACE.append(ns)  # the package itself: found without an import from now on
        return ns

    def to_device(self, device: Device | str, /, *, stream: Any = None) -> Self:
        """This array on `device` (only the CPU exists, also spelled "cpu"; returns self)."""
        if device != CPU_DEVICE:
            raise ValueError(f"device must be {CPU_DEVICE!r} or 'cpu', got {device!r}")
        if stream is not None:
            raise ValueError("stream must be None on the CPU device")
        return self

    def _scalar(self, what: str) -> Any:
        if self.ndim != 0:
            raise TypeError(
                f"only 0-d arrays can be converted to Python {what}; this array "
                f"has shape {self._shape}"
            )
        return self._np[()]

    def __bool__(self) -> bool:
        """Truth value of an array of one element (complex: real or imaginary part non-zero)."""
        if self._shape:
            # NumPy's rule, which code written for it (SciPy's) relies on: any array of one
            # element has the truth value of that element; any other size is ambiguous.
            n = self._np.size
            if n != 1:
                raise ValueError(
                    _AMBIGUOUS_EMPTY if n == 0 else _AMBIGUOUS_MANY.format(self._shape)
                )
            return bool(self._np.reshape(-1)[0])
        return bool(self._np[()])

    def __int__(self) -> int:
        """A 0-d real array as a Python int (inf -> OverflowError, NaN -> ValueError)."""
        v = self._scalar("int")
        if self._dtype.kind == "c":
            raise TypeError("int() of a complex array is not defined; take real() first")
        return int(v)

    def __index__(self) -> int:
        """A 0-d integer array as a Python int (for use as an index)."""
        if self._dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, got {self._dtype.name}")
        return int(self._scalar("int"))

    def __float__(self) -> float:
        """A 0-d real array as a Python float."""
        v = self._scalar("float")
        if self._dtype.kind == "c":
            raise TypeError("float() of a complex array is not defined; take real() first")
        return float(v)

    def __complex__(self) -> complex:
        """A 0-d array as a Python complex."""
        return complex(self._scalar("complex"))

    def __format__(self, spec: str) -> str:
        """format(x, spec): a 0-d array formats as its Python scalar, others with "" only.

        As NumPy: an empty spec gives ``str(x)`` for any array.

        Raises
        ------
        TypeError
            A non-empty `spec` for an array that is not 0-d.

        Examples
        --------
        >>> import stridedarray as sa
        >>> f"{sa.asarray(3.14159):.2f}"
        '3.14'
        """
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(
                f"format spec {spec!r} applies to 0-d arrays only; this array "
                f"has shape {self._shape}"
            )
        return format(self._np.item(), spec)

    # -- Python sequences and lists ------------------------------------------------------------
    def __len__(self) -> int:
        """Extent of the first axis (TypeError for a 0-d array, as NumPy).

        Examples
        --------
        >>> import stridedarray as sa
        >>> len(sa.zeros((4, 2)))
        4
        """
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __iter__(self) -> Iterator[Array]:
        """Iterate over the first axis, yielding views (TypeError for a 0-d array).

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.reshape(sa.arange(6), (3, 2))
        >>> [row.tolist() for row in x]
        [[0, 1], [2, 3], [4, 5]]
        """
        if not self._shape:
            raise TypeError("iteration over a 0-d array")  # at iter(), not at the first next()
        return map(self.__getitem__, range(self._shape[0]))

    def __contains__(self, value: object, /) -> bool:
        """`value in x`: whether any element equals `value` (NumPy's rule, any rank).

        Examples
        --------
        >>> import stridedarray as sa
        >>> x = sa.reshape(sa.arange(6.0), (2, 3))
        >>> 4.0 in x, 7 in x
        (True, False)
        """
        # Without this, Python would iterate over the first axis and ask bool() of each row.
        try:
            eq = self == value
        except OverflowError:
            if isinstance(value, int):  # beyond the dtype's range: equal to no element
                return False
            raise
        if isinstance(eq, bool):  # neither side compares with `value`: Python's identity
            return eq
        np_eq = getattr(eq, "_np", None)  # ours; another library's result: NumPy's any
        return bool(np_eq.any() if np_eq is not None else np.any(eq))

    def tolist(self) -> Any:
        """The elements as nested Python lists of Python scalars (a scalar for 0-d).

        Returns
        -------
        list or bool or int or float or complex
            Nested lists with one level per axis, in index order whatever the strides.

        Examples
        --------
        >>> import stridedarray as sa
        >>> sa.reshape(sa.arange(4), (2, 2)).mT.tolist()
        [[0, 2], [1, 3]]
        >>> sa.asarray(2.5).tolist()
        2.5
        """
        return self._np.tolist()

    # -- NumPy conversion and function protocols --------------------------------------------------
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy's conversion protocol: the zero-copy NumPy view, or a copy when asked or needed.

        Parameters
        ----------
        dtype : numpy dtype or None, optional
            The dtype wanted; None keeps the array's own.
        copy : bool or None, optional
            True: always a copy. False: never; ValueError when `dtype` needs one. None:
            a copy only when `dtype` needs one.

        Returns
        -------
        numpy.ndarray
            Without a copy, a view of this array's buffer with the same strides.

        Raises
        ------
        ValueError
            ``copy=False`` with a `dtype` that needs a conversion.

        Examples
        --------
        >>> import numpy as np
        >>> import stridedarray as sa
        >>> x = sa.arange(3)
        >>> v = np.asarray(x)                     # calls x.__array__()
        >>> v[0] = 7                              # writes into x's buffer
        >>> x.tolist(), np.asarray(x, dtype=np.float32)
        ([7, 1, 2], array([7., 1., 2.], dtype=float32))
        """
        v = self._np
        if dtype is not None and np.dtype(dtype) != v.dtype:
            if copy is False:
                raise ValueError(
                    f"__array__(copy=False): converting {self._dtype.name} to "
                    f"{np.dtype(dtype)} needs a copy"
                )
            return v.astype(dtype)
        return v.copy() if copy else v

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NEP 13: NumPy ufuncs on stridedarray arrays (rule in `_numpy_dispatch`).

        The ufunc runs on zero-copy NumPy views of the operands; results of standard dtypes
        come back as stridedarray arrays. docs/interop.md gives the whole rule.

        Examples
        --------
        >>> import numpy as np
        >>> import stridedarray as sa
        >>> np.sqrt(sa.asarray([1.0, 4.0]))
        Array([1., 2.], dtype=float64, shape=(2,))
        """
        from ._numpy_dispatch import array_ufunc

        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """NEP 18: NumPy functions on stridedarray arrays (rule in `_numpy_dispatch`).

        NumPy's implementation runs on zero-copy views; arrays of standard dtypes in the
        result come back as stridedarray arrays (docs/interop.md).

        Examples
        --------
        >>> import numpy as np
        >>> import stridedarray as sa
        >>> np.concatenate([sa.arange(2), sa.arange(3)])
        Array([0, 1, 0, 1, 2], dtype=int64, shape=(5,))
        """
        from ._numpy_dispatch import array_function

        return array_function(func, types, args, kwargs)

    # Dask's tensordot picks the chunk with the highest priority to choose the implementation:
    # above ndarray's 0, so a product with a NumPy chunk runs on ours.
    __array_priority__ = 10.0

    def __dask_tokenize__(self) -> tuple:
        """Dask's token: the token of the zero-copy NumPy view, tagged as a stridedarray chunk.

        Equal dtype, shape and values give equal tokens across the layouts Dask's NumPy
        tokenizer treats alike (it keys column-major arrays apart, for NumPy's arrays too);
        an ndarray with the same values gets another token (the chunk types differ).

        Examples
        --------
        >>> import numpy as np
        >>> from dask.base import tokenize
        >>> import stridedarray as sa
        >>> x = sa.reshape(sa.arange(4.0), (2, 2))
        >>> r = x[:, ::-1].to_row_major()[:, ::-1]    # the same values, a reversed layout
        >>> tokenize(x) == tokenize(r), tokenize(x) == tokenize(np.asarray(x))
        (True, False)
        """
        from dask.base import normalize_token

        return ("stridedarray.Array", normalize_token(self._np))

    # -- pickling and copying --------------------------------------------------------------------
    def __reduce_ex__(self, protocol: Any) -> tuple:
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
        # (self is an Array, this mixin's one subclass.)
        payload, strides, origin = _payload(self)  # type: ignore[arg-type]
        # (NumPy's stubs declare ndarray.__buffer__ on Python >= 3.12 only; 3.11 has the C API.)
        data: Any = (
            pickle.PickleBuffer(payload)  # type: ignore[arg-type]
            if protocol >= 5
            else payload.tobytes()
        )
        return (
            _rebuild,
            (
                data,
                self._dtype.name,
                self._shape,
                strides,
                origin,
                not self._st.arr.flags.writeable,
            ),
        )

    def __setstate__(self, state: Any) -> None:
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

    def __copy__(self) -> Array:
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

    def __deepcopy__(self, memo: dict) -> Array:
        """copy.deepcopy: the same as copy.copy (elements are plain numbers).

        Examples
        --------
        >>> import copy
        >>> import stridedarray as sa
        >>> copy.deepcopy(sa.arange(3)[::-1]).strides
        (1,)
        """
        return self.to_row_major()

    # -- DLPack ---------------------------------------------------------------------------------
    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """Export as a DLPack capsule (versioned DLPack 1.0 when max_version allows it).

        NumPy's exporter is used on the zero-copy view, so strides (negative included) are
        exported as they are."""
        if stream is not None:
            raise ValueError("stream must be None for CPU arrays")
        if dl_device is not None:
            device = _int_pair(dl_device, "dl_device", "(device_type, device_id)")
            if device != (_DL_CPU, 0):
                raise BufferError(
                    f"dl_device {device} is not supported; only the CPU ({_DL_CPU}, 0) is"
                )
        kw: dict[str, Any] = {}
        if max_version is not None:
            major, minor = _int_pair(max_version, "max_version", "(major, minor)")
            # Versions beyond a C int mean "any version up to this": NumPy reads a C long.
            kw["max_version"] = (min(major, 2**31 - 1), min(minor, 2**31 - 1))
        if copy is not None:
            kw["copy"] = copy
        arr = self._np
        if not arr.flags.writeable and copy is None and (max_version is None or max_version[0] < 1):
            # Legacy (unversioned) capsules have no read-only flag; NumPy refuses to export,
            # so give the consumer a private copy.
            kw["copy"] = True
        return arr.__dlpack__(**kw)

    def __dlpack_device__(self) -> tuple[int, int]:
        """The DLPack device: (kDLCPU, 0)."""
        return (_DL_CPU, 0)

    # -- operators and NumPy's methods, as type checkers see them -----------------------------
    if TYPE_CHECKING:
        # Bound onto Array when the package imports: the operators by _elementwise and
        # _matmul (as the standard's functions, with `other` an array or a Python scalar),
        # NumPy's ndarray methods by _ndarray_methods, indexing and the transposes by
        # _basic_indexing. Nothing here exists at run time.
        def __getitem__(self, key: Any, /) -> Array: ...
        @property
        def mT(self) -> Array: ...
        @property
        def T(self) -> Array: ...
        def __add__(self, other: _Operand, /) -> Array: ...
        def __radd__(self, other: _Operand, /) -> Array: ...
        def __iadd__(self, other: _Operand, /) -> Array: ...
        def __sub__(self, other: _Operand, /) -> Array: ...
        def __rsub__(self, other: _Operand, /) -> Array: ...
        def __isub__(self, other: _Operand, /) -> Array: ...
        def __mul__(self, other: _Operand, /) -> Array: ...
        def __rmul__(self, other: _Operand, /) -> Array: ...
        def __imul__(self, other: _Operand, /) -> Array: ...
        def __truediv__(self, other: _Operand, /) -> Array: ...
        def __rtruediv__(self, other: _Operand, /) -> Array: ...
        def __itruediv__(self, other: _Operand, /) -> Array: ...
        def __floordiv__(self, other: _Operand, /) -> Array: ...
        def __rfloordiv__(self, other: _Operand, /) -> Array: ...
        def __ifloordiv__(self, other: _Operand, /) -> Array: ...
        def __mod__(self, other: _Operand, /) -> Array: ...
        def __rmod__(self, other: _Operand, /) -> Array: ...
        def __imod__(self, other: _Operand, /) -> Array: ...
        def __pow__(self, other: _Operand, /) -> Array: ...
        def __rpow__(self, other: _Operand, /) -> Array: ...
        def __ipow__(self, other: _Operand, /) -> Array: ...
        def __and__(self, other: _Operand, /) -> Array: ...
        def __rand__(self, other: _Operand, /) -> Array: ...
        def __iand__(self, other: _Operand, /) -> Array: ...
        def __or__(self, other: _Operand, /) -> Array: ...
        def __ror__(self, other: _Operand, /) -> Array: ...
        def __ior__(self, other: _Operand, /) -> Array: ...
        def __xor__(self, other: _Operand, /) -> Array: ...
        def __rxor__(self, other: _Operand, /) -> Array: ...
        def __ixor__(self, other: _Operand, /) -> Array: ...
        def __lshift__(self, other: _Operand, /) -> Array: ...
        def __rlshift__(self, other: _Operand, /) -> Array: ...
        def __ilshift__(self, other: _Operand, /) -> Array: ...
        def __rshift__(self, other: _Operand, /) -> Array: ...
        def __rrshift__(self, other: _Operand, /) -> Array: ...
        def __irshift__(self, other: _Operand, /) -> Array: ...
        def __matmul__(self, other: _Operand, /) -> Array: ...
        def __rmatmul__(self, other: _Operand, /) -> Array: ...
        def __imatmul__(self, other: _Operand, /) -> Array: ...
        # Element-wise, as the standard says: an Array, not a bool (NumPy's stubs alike).
        def __eq__(self, other: _Operand, /) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: _Operand, /) -> Array: ...  # type: ignore[override]
        def __lt__(self, other: _Operand, /) -> Array: ...
        def __le__(self, other: _Operand, /) -> Array: ...
        def __gt__(self, other: _Operand, /) -> Array: ...
        def __ge__(self, other: _Operand, /) -> Array: ...
        def __neg__(self, /) -> Array: ...
        def __pos__(self, /) -> Array: ...
        def __abs__(self, /) -> Array: ...
        def __invert__(self, /) -> Array: ...

        __hash__: ClassVar[None]  # type: ignore[assignment]  # unhashable, as NumPy's
        # NumPy's methods: the result is an Array or what NumPy returns (see _numpy_dispatch).
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
        item: Callable[..., Any]
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


def _int_pair(value: Any, name: str, what: str) -> tuple[int, int]:
    """A DLPack pair argument as two ints; TypeError naming it otherwise (checked before any
    conversion, so a huge iterable or a float is refused without being walked)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(
            f"__dlpack__: {name} must be None or a {what} tuple of two ints, got "
            f"{type(value).__name__} {value!r:.40}"
        )
    return (
        as_int(value[0], f"{name}[0]", "__dlpack__"),
        as_int(value[1], f"{name}[1]", "__dlpack__"),
    )


def _payload(x: Array) -> tuple[np.ndarray, tuple, int]:
    """The memory a pickle of `x` carries, and x's strides and origin within it.

    When x reaches every element of the window of the buffer it spans (a dense block,
    transposed, reversed or repeated by zero strides), the payload is that window and the
    layout survives the round trip; otherwise (a step, a column of a table, a corner) x's
    elements are packed row-major, so a pickle never carries an element x does not show
    (nor uninitialised memory between them); a repeated axis is packed once and keeps its
    zero stride. Empty arrays ship nothing."""
    from ._array import _bounded_strides, _fills_window, _offset_range

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


def _rebuild(
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
    from . import _dtypes
    from ._array import _descriptor_ints, _make, _Storage

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
