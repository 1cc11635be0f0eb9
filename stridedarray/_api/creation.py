"""Creation functions (Array API chapter "Creation Functions")."""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .._arraytype import NativeFunction, _from_exchange, _make_c, _wrap
from .._base import dtypes as _dtypes
from .._base.arguments import as_bool, as_int, normalize_shape
from .._base.construct import _DT_OF_NP, ArrayBase, _alloc, _from_ndarray, _own
from .._base.descriptor import check_size
from .._base.device import CPU_DEVICE, Device
from .._base.dtypes import DType
from ._common import check_array as _check_array

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]


def _check_device(device: Any) -> None:
    if device is not None and device != CPU_DEVICE:
        raise ValueError(f"unsupported device {device!r}; stridedarray has only {CPU_DEVICE!r}")


def _check_dtype(dtype: Any, name: str = "dtype") -> DType | None:
    if dtype is None or isinstance(dtype, DType):
        return dtype
    return _dtypes.as_dtype(dtype, name)


def asarray(
    obj: Any,
    /,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
    copy: bool | None = None,
) -> Array:
    """Convert an object to an Array, sharing memory whenever `copy` allows.

    Parameters
    ----------
    obj : Array, NumPy array, buffer, DLPack producer, Python scalar or nested sequence
        What to convert. An Array or a NumPy array keeps its layout (strides, negative ones
        too): the result is a view of the same memory. An object with the buffer protocol
        (``bytes``, ``bytearray``, ``memoryview``, ``array.array``) or a DLPack producer (a
        CPU tensor of another library) is wrapped without a copy; read-only memory gives a
        read-only array. Python scalars and nested sequences of them are copied.
    dtype : DType, optional
        The result's dtype. None: the source's, or for Python values the default of their
        kind (bool, int64, float64, complex128). A NumPy dtype or scalar type, a dtype name or
        Python's ``bool``, ``int``, ``float`` and ``complex`` name one too
        (:doc:`/dtypes`, "What names a dtype"). Another dtype than the source's converts,
        which copies.
    device : optional
        None or the CPU device, the only one.
    copy : bool, optional
        True: always copy. False: never; raise `ValueError` when a copy is needed (a dtype
        change, a Python sequence, unaligned or byte-swapped memory). None (the default): copy
        only when needed.

    Returns
    -------
    Array
        A view of `obj`'s memory when no copy was made, else a new C-contiguous array.

    Raises
    ------
    TypeError
        `obj` is of a type that cannot be converted, or `dtype` is not a dtype of the standard.
    ValueError
        ``copy=False`` when a copy is needed (the message names the cause), a ragged nested
        sequence, or a device other than the CPU.
    OverflowError
        A Python int that does not fit int64 (or the requested integer dtype).

    See Also
    --------
    from_dlpack : Import a DLPack producer.
    Array.to_row_major : A C-contiguous copy of an array.

    Notes
    -----
    :doc:`/array` ("Memory from elsewhere") has the rules for memory from other libraries,
    :doc:`/dtypes` the dtype rules.

    Examples
    --------
    >>> import numpy as np
    >>> import stridedarray as sa
    >>> n = np.arange(6.0).reshape(2, 3)
    >>> x = sa.asarray(n[:, ::-1])        # a view of n's memory, its strides kept
    >>> x
    Array([[2., 1., 0.],
           [5., 4., 3.]], dtype=float64, shape=(2, 3), strides=(3, -1), origin=2)
    >>> n[0, 0] = 10.0
    >>> float(x[0, 2])                    # the same memory
    10.0
    >>> sa.asarray([1, 2, 3]).dtype, sa.asarray([1, 2.5]).dtype
    (stridedarray.int64, stridedarray.float64)
    >>> sa.asarray(n, dtype=sa.float32, copy=False)
    Traceback (most recent call last):
        ...
    ValueError: asarray(copy=False) cannot convert float64 to float32 without a copy
    """
    # The common conversions (an Array as it is, a whole C-contiguous aligned ndarray, Python
    # scalars and lists of them) are the array type's (csrc/arraytype/creation.c); this is
    # the rest, and every error.
    _check_device(device)
    dtype = _check_dtype(dtype)
    if copy is not None and copy.__class__ is not bool:
        copy = as_bool(copy, "copy", "asarray", none=True)
    if isinstance(obj, ArrayBase):
        if dtype is not None and dtype is not obj.dtype:
            if copy is False:
                raise ValueError(
                    f"asarray(copy=False) cannot convert {obj.dtype.name} to "
                    f"{dtype.name} without a copy"
                )
            return obj._pack(dtype)
        return obj.to_row_major() if copy else obj
    if isinstance(obj, np.ndarray):
        # The array keeps a base-class view of obj, not obj: the caller may assign obj.shape,
        # obj.dtype or obj.strides later, and the array must not change with them
        # (docs/reliability.md); the view shares obj's memory and has its geometry of now.
        arr = np.ndarray.view(obj, np.ndarray)
    elif isinstance(obj, np.generic):
        arr = np.asarray(obj)
    elif hasattr(obj, "__dlpack__"):
        # A DLPack producer (e.g. another library's tensor): import it without a copy, unless
        # it describes its memory by an array interface too (read here once, and used).
        iface_view = _interface_view(obj)
        if iface_view is not None:
            arr = iface_view
        else:
            arr = _import_dlpack(obj, copy, "asarray")
            if copy:
                copy = None  # the import already copied
    else:
        try:
            view = memoryview(obj)
        except TypeError:
            view = None
        except ValueError as e:  # a released memoryview (or an exporter that refuses)
            raise ValueError(f"asarray: obj cannot export its memory: {e}") from None
        if view is not None:
            arr = np.asarray(view)
        elif (iview := _interface_view(obj)) is not None:
            arr = iview  # a view of the producer's memory, as a buffer's
        else:
            if copy is False:
                raise ValueError(
                    f"asarray(copy=False) cannot wrap a {type(obj).__name__} without copying it"
                )
            arr = _from_python(obj, dtype)
            copy = None  # already an array of ours (a copy, or _own of what __array__ gave)
    if dtype is not None and arr.dtype != dtype.np:
        if copy is False:
            raise ValueError(
                f"asarray(copy=False) cannot convert {arr.dtype} to {dtype.name} without a copy"
            )
        _dtypes.from_numpy_dtype(arr.dtype)  # reject unsupported sources before casting
        with np.errstate(invalid="ignore", over="ignore"):  # as astype: NaN -> int is quiet
            arr = arr.astype(dtype.np)
        copy = None
    return _from_ndarray(arr, copy)


_NUMBER = (bool, int, float, complex, np.bool_, np.number)


class _InterfaceOf:
    """Hands NumPy one `__array_interface__` dict: the plain one `_interface_view` made."""

    def __init__(self, iface: dict) -> None:
        self.__array_interface__ = iface


def _index_tuple(v: Any, key: str) -> tuple[int, ...]:
    """An interface's shape or strides as a tuple of Python ints, each entry read once."""
    if not isinstance(v, tuple):
        raise TypeError(
            f"asarray: obj's __array_interface__[{key!r}] must be a tuple, got {type(v).__name__}"
        )
    return tuple([operator.index(n) for n in v])


_ABSENT = object()


def _interface_view(obj: Any) -> np.ndarray | None:
    """The ndarray that `obj.__array_interface__` describes, or None when obj has none.

    The interface is read once, and what is checked is what is used: its dict is copied and
    every value NumPy would read (shape and strides entries, offset, the pointer, the `data`
    buffer's export) is made a plain value here, once. NumPy then builds its view from that
    copy, so an `__index__` that answers 2 and then 65536, or a buffer that exports 16 bytes
    and then 8, cannot make the array differ from what was checked. A view over a buffer must
    lie inside it (NumPy does not check: shape `()`, typestr `'<f8'` and 6 bytes of data give
    an array reading 2 bytes past the buffer); a raw pointer's extent is the producer's word,
    as it is for NumPy."""
    if getattr(type(obj), "__array_struct__", None) is not None:
        return None  # NumPy reads that first: a pointer, the producer's word
    iface = getattr(obj, "__array_interface__", _ABSENT)
    if iface is _ABSENT:
        return None
    if not isinstance(iface, dict):
        # (None too: NumPy would read the attribute again, and could get a dict then)
        raise ValueError(
            f"asarray: obj's __array_interface__ must be a dict, got {type(iface).__name__}"
        )
    raw = dict.copy(iface)  # the dict's own entries, as NumPy reads them (no overridden get)
    plain: dict[str, Any] = {"version": 3}
    for key in ("typestr", "descr", "mask"):
        if key in raw:
            plain[key] = raw[key]
    if "shape" in raw:
        plain["shape"] = _index_tuple(raw["shape"], "shape")
    if raw.get("strides") is not None:
        plain["strides"] = _index_tuple(raw["strides"], "strides")
    data = raw.get("data")
    buf = None
    if isinstance(data, tuple):
        if len(data) != 2:
            raise TypeError(
                "asarray: obj's __array_interface__['data'] must be a buffer or a "
                f"(pointer, read_only) pair, got a tuple of {len(data)} items"
            )
        plain["data"] = (operator.index(data[0]), bool(data[1]))
    else:
        # The buffer (obj's own for data None) exported once; NumPy views this export.
        try:
            buf = np.frombuffer(memoryview(obj if data is None else data), np.uint8)
        except (TypeError, ValueError, BufferError) as e:
            which = "obj" if data is None else "its 'data'"
            raise TypeError(
                f"asarray: obj's __array_interface__ gives no pointer and {which} cannot "
                f"export a contiguous buffer: {e}"
            ) from None
        plain["data"] = buf
        if "offset" in raw:
            plain["offset"] = operator.index(raw["offset"])
    view = np.asarray(_InterfaceOf(plain))
    if buf is not None and view.size:
        lo, hi = np.lib.array_utils.byte_bounds(view)
        start = buf.ctypes.data
        if lo < start or hi > start + buf.size:
            raise ValueError(
                f"asarray: obj's __array_interface__ describes {view.dtype} elements of shape "
                f"{view.shape} at byte {lo - start} to {hi - start} of its data buffer, which "
                f"holds {buf.size} bytes; give a shape, strides and offset that fit the buffer"
            )
    return view


_TOO_DEEP = (
    "asarray: obj is nested more than 64 levels deep (or contains itself); arrays have at "
    "most 64 dimensions"
)


def _frozen(obj: Any, path: set[int] | None = None) -> Any:
    """`obj` with every list and tuple in it (exact types) copied into a new tuple, holding
    each item, and every item with an `__array_interface__` replaced by the view
    `_interface_view` checked.

    NumPy reads a list's items without holding them while it converts: an element whose
    `__len__`, `__float__` or `__index__` clears or grows that list makes it read freed
    objects (NumPy 2.4 crashes). What it is given now cannot change: only the copies' items
    are read, and they stay alive. A list that contains itself raises here: NumPy would walk
    its every path to 64 levels (5 references to itself: 5**64 visits). An element's
    `__array_interface__` is read here once, and its extent checked, as asarray's own."""
    t = type(obj)
    if t is not list and t is not tuple:
        return obj
    items = tuple(obj)  # an exact list or tuple: no Python code runs
    nested = False
    for v in items:
        tv = type(v)
        if tv is list or tv is tuple:
            nested = True
        elif tv not in _PLAIN_LEAVES:
            break
    else:
        if not nested:
            return items
    path = set() if path is None else path
    if id(obj) in path or len(path) > 64:
        raise ValueError(_TOO_DEEP)
    path.add(id(obj))
    out = tuple([_frozen(v, path) if type(v) in (list, tuple) else _leaf(v) for v in items])
    path.discard(id(obj))
    return out


# Leaves NumPy converts by value, with no interface to read.
_PLAIN_LEAVES = frozenset({bool, int, float, complex, str, bytes, type(None)})


def _leaf(v: Any) -> Any:
    """A sequence's element as NumPy is to read it: one with an `__array_interface__` as the
    view that describes, read once and checked (NumPy would read the interface itself,
    unchecked)."""
    if type(v) in _PLAIN_LEAVES or isinstance(v, (np.ndarray, np.generic)):
        return v
    view = _interface_view(v)
    return v if view is None else view


def _from_python(obj: Any, dtype: DType | None) -> np.ndarray:
    """A fresh ndarray from a Python scalar or nested sequence, with the standard's defaults
    (or, from an object's `__array__`, a view of what it returned that only we hold)."""
    obj = _frozen(obj)
    default = _dtypes.default_dtype(obj)
    target = dtype or default
    try:
        if target is not None:
            if target.kind in "iu" and isinstance(obj, int) and not isinstance(obj, bool):
                info = np.iinfo(target.np)
                if not info.min <= obj <= info.max:
                    raise OverflowError(f"Python int {obj} is out of range for {target.name}")
            return _own_result(np.asarray(obj, dtype=target.np), obj)
        arr = _own_result(np.asarray(obj), obj)
        if arr.dtype == np.uint64:
            # NumPy infers uint64 for ints in [2**63, 2**64); the standard's default is int64.
            raise OverflowError(
                "Python int out of range for the default integer dtype int64; "
                "pass dtype=uint64 explicitly"
            )
    except OverflowError as e:
        raise OverflowError(str(e)) from None
    except ValueError as e:
        # NumPy's wording ("setting an array element with a sequence...") names neither the
        # argument nor the fault; these are the two structural ones.
        msg = str(e)
        if "inhomogeneous" in msg:
            raise ValueError(
                f"asarray: obj is a ragged nested sequence (sublists of one level "
                f"differ in length or mix scalars and sequences): {msg}"
            ) from None
        if "maximum number of dimension" in msg:
            raise ValueError(_TOO_DEEP) from None
        into = target.name if target else "an array"
        raise ValueError(f"asarray: cannot convert obj to {into}: {msg}") from None
    if arr.dtype == object or arr.dtype.kind not in "biufc":
        bad = [v for v in arr.flat if not isinstance(v, _NUMBER)] if arr.dtype == object else []
        if arr.dtype == object and not bad:
            # Only numbers, yet NumPy fell back to object: an int beyond 64 bits.
            raise OverflowError("Python int out of range for the default integer dtype int64")
        what = (
            type(bad[0]).__name__
            if bad
            else {"U": "str", "S": "bytes"}.get(arr.dtype.kind, str(arr.dtype))
        )
        where = "" if arr.ndim == 0 else f"a {type(obj).__name__} containing "
        raise TypeError(
            f"asarray: obj must be an array, a buffer, or a Python bool, int, float "
            f"or complex (or nested sequences of them); got {where}{what}"
        )
    return arr


def _own_result(arr: np.ndarray, obj: Any) -> np.ndarray:
    """NumPy's conversion `arr` of `obj`, as storage an array may take: a sequence or a
    scalar was copied into a new ndarray; anything else (an `__array__`, which may hand back
    an ndarray its owner keeps) gives a view only we hold."""
    if type(obj) is tuple or type(obj) in _PLAIN_LEAVES:
        return arr
    return _own(arr)


def _check_fill(value: Any, dtype: DType) -> None:
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(
            f"fill_value must be a Python or NumPy bool, int, float or complex, or "
            f"a 0-d array, got {type(value).__name__}"
        )
    if dtype.kind in "iu" and isinstance(value, int) and not isinstance(value, bool):
        _dtypes.check_int_range(value, dtype, "fill_value")
    if dtype.kind in "iu" and isinstance(value, float):
        _dtypes.float_as_int(value, dtype, "fill_value", "fill")  # assignment's rule
    if dtype.kind != "c" and isinstance(value, complex):
        raise TypeError(f"fill_value: a complex value cannot fill a {dtype.name} array")


def _filled(shape: Any, dtype: DType, value: Any) -> Array:
    _check_fill(value, dtype)
    a = _alloc(dtype, normalize_shape(shape))
    a._np.fill(_dtypes.scalar_operand(value, dtype))
    return a


def empty(
    shape: int | tuple[int, ...], *, dtype: DType | None = None, device: Device | None = None
) -> Array:
    """An uninitialised array of the given shape (default dtype float64)."""
    if device is not None:
        _check_device(device)
    dt = _dtypes.float64 if dtype is None else _check_dtype(dtype) or _dtypes.float64
    return _alloc(dt, normalize_shape(shape))


def zeros(
    shape: int | tuple[int, ...], *, dtype: DType | None = None, device: Device | None = None
) -> Array:
    """An array of zeros (default dtype float64)."""
    if device is not None:
        _check_device(device)
    dt = _dtypes.float64 if dtype is None else _check_dtype(dtype) or _dtypes.float64
    shape = normalize_shape(shape)
    # Zero of every dtype is all-zero bytes: NumPy's calloc-backed zeros, no fill pass.
    try:
        return _make_c(np.zeros(shape, dt.np), dt)
    except ValueError:
        check_size(shape, dt.np.itemsize)  # the specific error for shapes too large
        raise


def ones(
    shape: int | tuple[int, ...], *, dtype: DType | None = None, device: Device | None = None
) -> Array:
    """An array of ones (default dtype float64)."""
    _check_device(device)
    return _filled(shape, _check_dtype(dtype) or _dtypes.float64, 1)


def full(
    shape: int | tuple[int, ...],
    fill_value: bool | int | float | complex,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
) -> Array:
    """An array filled with `fill_value` (dtype inferred from it by default)."""
    _check_device(device)
    return _full("full", normalize_shape(shape), fill_value, _check_dtype(dtype))


def _full(func: str, shape: tuple[int, ...], fill_value: Any, dtype: DType | None) -> Array:
    """`full`'s body, for `full_like` too (`func` names the caller in errors).

    The standard asks for a Python scalar; NumPy, torch and JAX also take a NumPy scalar and
    a 0-d array, and so do we. A 0-d array (ours or NumPy's) gives its dtype as the default
    and its value converted by `astype`'s rule; a NumPy scalar gives its dtype as the default
    and fills as the Python scalar of its value (an integer that does not fit raises)."""
    if isinstance(fill_value, np.ndarray):
        fill_value = _from_ndarray(_own(fill_value), None)
    if isinstance(fill_value, ArrayBase):
        if fill_value.ndim != 0:
            raise ValueError(
                f"{func}: fill_value must be a scalar or a 0-d array, got an "
                f"array of shape {fill_value.shape}"
            )
        target = dtype or fill_value.dtype
        if fill_value.dtype.kind == "c" and target.kind != "c":
            raise TypeError(f"{func}: a complex fill_value cannot fill a {target.name} array")
        a = _alloc(target, shape)
        a._np.fill(fill_value._pack(target)._np)
        return a
    if isinstance(fill_value, np.generic) and dtype is None:
        dtype = _DT_OF_NP(fill_value.dtype)  # None for a dtype we lack: the value's kind
    value = _dtypes.python_scalar(fill_value)
    dt = dtype or _dtypes.default_dtype(value)
    if dt is None:
        raise TypeError(
            f"{func}: fill_value must be a Python or NumPy bool, int, float or "
            f"complex, or a 0-d array; got {type(fill_value).__name__}"
        )
    return _filled(shape, dt, value)


def arange(
    start: int | float | Array,
    /,
    stop: int | float | Array | None = None,
    step: int | float | Array = 1,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
) -> Array:
    """Evenly spaced values in [start, stop) (int64 for integer bounds, float64 otherwise)."""
    if device is not None:
        _check_device(device)
    dt = _check_dtype(dtype)
    # C takes the bounds alone (creation.c, sa_namespace_arange); a call naming its dtype comes
    # here, with exact ints and finite floats as its usual bounds: one class test each before
    # _arange_bound's checks.
    if start.__class__ is not int and not (start.__class__ is float and math.isfinite(start)):
        start = _arange_bound(start, "start")
    if step.__class__ is not int and not (step.__class__ is float and math.isfinite(step)):
        step = _arange_bound(step, "step")
    if stop is None:
        start, stop = 0, start
    elif stop.__class__ is not int and not (stop.__class__ is float and math.isfinite(stop)):
        stop = _arange_bound(stop, "stop")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if dt is None:  # the default dtype of the bounds' kind: int64 for ints, else float64
        ints = type(start) is int and type(stop) is int and type(step) is int
        dt = _dtypes.DEFAULT_DTYPE[int if ints else float]
    try:
        return _wrap(np.arange(start, stop, step, dtype=dt.np))
    except ValueError:
        n = max(0, math.ceil((stop - start) / step))
        check_size((n,), dt.np.itemsize, f"arange({start}, {stop}, {step}): the length")
        raise


def _arange_bound(v: Any, name: str) -> int | float:
    """An arange bound (not an exact int or finite float) as a Python int or a finite float;
    TypeError/ValueError naming it."""
    if isinstance(v, ArrayBase):
        # A 0-d array stands for its value (array-api-strict, NumPy, PyTorch and JAX all take
        # one): the bound is then the Python number NumPy would see.
        if v.ndim != 0:
            raise TypeError(
                f"arange: {name} must be a 0-d array, an int or a float, got an "
                f"array of shape {v.shape}"
            )
        v = v._np[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(
            f"arange: {name} must be an int or a float, got {type(v).__name__} {v!r:.40}"
        )
    v = int(v) if isinstance(v, (int, np.integer)) else float(v)
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"arange: {name} must be finite, got {v}")
    return v


def empty_like(x: Array, /, *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """An uninitialised array with the shape (and by default the dtype) of x."""
    x = _check_array(x, func="empty_like")
    _check_device(device)
    return _alloc(_check_dtype(dtype) or x.dtype, x.shape)


def zeros_like(x: Array, /, *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """Zeros with the shape (and by default the dtype) of x."""
    x = _check_array(x, func="zeros_like")
    _check_device(device)
    return _filled(x.shape, _check_dtype(dtype) or x.dtype, 0)


def ones_like(x: Array, /, *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """Ones with the shape (and by default the dtype) of x."""
    x = _check_array(x, func="ones_like")
    _check_device(device)
    return _filled(x.shape, _check_dtype(dtype) or x.dtype, 1)


def full_like(
    x: Array,
    /,
    fill_value: bool | int | float | complex,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
    shape: int | tuple[int, ...] | None = None,
) -> Array:
    """`fill_value` everywhere, with the shape (and by default the dtype) of x.

    `shape`, beyond the standard (NumPy's): the result's shape in place of x's."""
    x = _check_array(x, func="full_like")
    _check_device(device)
    dims = x.shape if shape is None else normalize_shape(shape, "shape", "full_like")
    return _full("full_like", dims, fill_value, _check_dtype(dtype) or x.dtype)


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: DType | None = None,
    device: Device | None = None,
) -> Array:
    """A 2-D array with ones on the k-th diagonal and zeros elsewhere."""
    _check_device(device)
    dt = _check_dtype(dtype) or _dtypes.float64
    rows = as_int(n_rows, "n_rows", "eye", low=0)
    cols = rows if n_cols is None else as_int(n_cols, "n_cols", "eye", low=0)
    k = as_int(k, "k", "eye")
    check_size((rows, cols), dt.np.itemsize, "eye: (n_rows, n_cols)")
    # A diagonal beyond the matrix is all zeros: clamp k (NumPy needs it to fit a C long).
    return _wrap(np.eye(rows, cols, k=max(-rows, min(k, cols)), dtype=dt.np))


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
    endpoint: bool = True,
) -> Array:
    """`num` evenly spaced values from start to stop (float64, or complex128 for complex)."""
    _check_device(device)
    dt = _check_dtype(dtype)
    cplx = isinstance(start, complex) or isinstance(stop, complex)
    if dt is None:
        dt = _dtypes.complex128 if cplx else _dtypes.float64
    elif cplx and dt.kind != "c":
        raise TypeError(f"linspace: complex bounds need a complex dtype, got {dt.name}")
    # An integer (or bool) dtype: the standard asks for floating point, NumPy computes in
    # float64 and rounds toward -inf (SciPy relies on it); we give NumPy's values.
    n = as_int(num, "num", "linspace", low=0)
    check_size((n,), dt.np.itemsize, "linspace: num")
    endpoint = as_bool(endpoint, "endpoint", "linspace")
    return _wrap(np.linspace(start, stop, n, endpoint=endpoint, dtype=dt.np))


def meshgrid(*arrays: Array, indexing: Literal["xy", "ij"] = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from 1-D coordinate vectors ("xy" Cartesian or "ij" matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    arrays = tuple(_check_array(a, f"arrays[{i}]", func="meshgrid") for i, a in enumerate(arrays))
    for i, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"meshgrid: arrays[{i}] must be 1-D, got shape {a.shape}")
        if a.dtype is not arrays[0].dtype:
            raise TypeError(
                f"meshgrid: all arrays must share one dtype; arrays[0] is "
                f"{arrays[0].dtype.name}, arrays[{i}] is {a.dtype.name}"
            )
    return tuple(_wrap(g) for g in np.meshgrid(*(a._np for a in arrays), indexing=indexing))


def _tri(name: str, f: Any, x: Array, k: int) -> Array:
    x = _check_array(x, func=name)
    if x.ndim < 2:
        raise ValueError(f"{name}: x must have rank >= 2, got shape {x.shape}")
    k = as_int(k, "k", name)
    m, n = x.shape[-2:]
    # Diagonals beyond the matrix select all or nothing: clamp k (NumPy needs a C long).
    return _wrap(f(x._np, k=max(-m - 1, min(k, n + 1))))


def tril(x: Array, /, *, k: int = 0) -> Array:
    """Copy of x with elements above the k-th diagonal of each matrix zeroed."""
    return _tri("tril", np.tril, x, k)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """Copy of x with elements below the k-th diagonal of each matrix zeroed."""
    return _tri("triu", np.triu, x, k)


def from_dlpack(x: Any, /, *, device: Device | None = None, copy: bool | None = None) -> Array:
    """Import any DLPack producer, sharing memory unless `copy=True`: through its type's
    DLPack 1.3 C exchange API (`__dlpack_c_exchange_api__`) when it has one, else through
    `x.__dlpack__()` (DLPack 1.0 when the producer supports it)."""
    _check_device(device)
    if not hasattr(x, "__dlpack__"):
        raise AttributeError(f"from_dlpack: x must implement __dlpack__, got {type(x).__name__}")
    copy = as_bool(copy, "copy", "from_dlpack", none=True)
    fast = _from_exchange(x, copy)
    if fast is not None:
        return fast
    arr = _import_dlpack(x, copy, "from_dlpack")
    return _from_ndarray(arr, copy=None)


class _Producer:
    """`x` as NumPy's from_dlpack sees it, keeping what x.__dlpack__() returned, so that an
    import NumPy refuses can be explained by what was given."""

    __slots__ = ("x", "returned")

    def __init__(self, x: Any) -> None:
        self.x = x
        self.returned: list[Any] = []

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        cap = self.x.__dlpack__(*args, **kwargs)
        self.returned.append(cap)
        return cap

    def __dlpack_device__(self) -> Any:
        return self.x.__dlpack_device__()


_CAPSULE_NAMES = ("dltensor", "dltensor_versioned")
_USED_NAMES = ("used_dltensor", "used_dltensor_versioned")  # NumPy renames what it imports


def _capsule_name(cap: Any) -> str | None:
    """The name of a PyCapsule (None when it has none)."""
    import ctypes

    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    name = get_name(cap)
    return None if name is None else name.decode("utf-8", "replace")


def _import_dlpack(x: Any, copy: bool | None, func: str) -> np.ndarray:
    """np.from_dlpack(x), with NumPy's capsule error put in terms of the argument: what
    x.__dlpack__() returned and what is accepted."""
    producer = _Producer(x)
    try:
        # NumPy makes a new ndarray of the capsule; _own keeps that true whatever it returns.
        return _own(np.from_dlpack(producer, copy=copy))
    except ValueError as e:
        if "PyCapsule" not in str(e) or not producer.returned:
            raise
        cap = producer.returned[-1]
        what = f"{type(x).__name__}.__dlpack__()"
        accepted = "a DLPack capsule is a PyCapsule named 'dltensor' or 'dltensor_versioned'"
        if type(cap).__name__ != "PyCapsule":
            raise ValueError(
                f"{func}: {what} returned an object of type {type(cap).__name__}, not a "
                f"DLPack capsule ({accepted})"
            ) from None
        name = _capsule_name(cap)
        if name in _USED_NAMES:
            # A producer that hands out the same capsule twice: the first import renamed it.
            raise ValueError(
                f"{func}: the capsule that {what} returned was consumed already (it is named "
                f"{name!r}; a capsule can be imported once, so ask the producer for a new one)"
            ) from None
        if name not in _CAPSULE_NAMES:
            raise ValueError(
                f"{func}: {what} returned "
                f"{'an unnamed capsule' if name is None else f'a capsule named {name!r}'}, "
                f"not a DLPack capsule ({accepted})"
            ) from None
        raise ValueError(
            f"{func}: the capsule that {what} returned cannot be imported: {e}"
        ) from None


# `asarray` of an Array, a whole ndarray or Python scalars and lists of them,
# `zeros(shape)`, `ones(shape)` and `empty(shape)` with no other argument, `full(shape,
# fill_value)` with a Python scalar and `arange` of Python ints and floats run in C
# (csrc/arraytype/creation.c); every other call takes the functions above, their fallback.
# (Each name is bound to its NativeFunction, which type checkers call with the function's
# signature: _arraytype.pyi.)
asarray = NativeFunction(asarray, "asarray")
zeros = NativeFunction(zeros, "zeros")
ones = NativeFunction(ones, "ones")
empty = NativeFunction(empty, "empty")
full = NativeFunction(full, "full")
arange = NativeFunction(arange, "arange")
