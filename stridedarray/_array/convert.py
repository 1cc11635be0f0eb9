"""Array's conversions: the device, Python scalars (`bool(x)` and `format(x, spec)`; `float`,
`int`, `complex` and `item` are the array type's own, in C),
the sequence protocol (`len`, `in`; iteration is the array type's own, in C), lists
(`tolist`) and NumPy (`__array__`, Dask's token).

Plain functions of an Array, which the class statement in `array.py` takes as its methods
(`__bool__ = _convert.__bool__`): they read only the descriptor and the zero-copy NumPy
view."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._base.device import CPU_DEVICE, Device

if TYPE_CHECKING:
    from .array import Array

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


def to_device(self: Array, device: Device | str, /, *, stream: Any = None) -> Array:
    """This array on `device` (only the CPU exists, also spelled "cpu"; returns self)."""
    if device != CPU_DEVICE:
        raise ValueError(f"device must be {CPU_DEVICE!r} or 'cpu', got {device!r}")
    if stream is not None:
        raise ValueError("stream must be None on the CPU device")
    return self


def __bool__(self: Array) -> bool:
    """Truth value of an array of one element (complex: real or imaginary part non-zero)."""
    if self._shape:
        # NumPy's rule, which code written for it (SciPy's) relies on: any array of one
        # element has the truth value of that element; any other size is ambiguous.
        n = self._np.size
        if n != 1:
            raise ValueError(_AMBIGUOUS_EMPTY if n == 0 else _AMBIGUOUS_MANY.format(self._shape))
        return bool(self._np.reshape(-1)[0])
    return bool(self._np[()])


def __format__(self: Array, spec: str) -> str:
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
            f"format spec {spec!r} applies to 0-d arrays only; this array has shape "
            f"{self._shape}: format its elements, e.g. [format(v, {spec!r}) for v in x.tolist()]"
        )
    return format(self._np.item(), spec)


# -- Python sequences and lists ---------------------------------------------------------------
def __len__(self: Array) -> int:
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


def __contains__(self: Array, value: object, /) -> bool:
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
    except TypeError:
        # `==` refuses an operand neither side compares with (None, a string): it equals
        # no element, as in NumPy. A list or tuple is refused as `==` refuses it.
        if isinstance(value, (list, tuple)):
            raise
        return False
    if isinstance(eq, bool):  # `value`'s own __eq__ answered with a Python bool
        return eq
    np_eq = getattr(eq, "_np", None)  # ours; another library's result: NumPy's any
    return bool(np_eq.any() if np_eq is not None else np.any(eq))


def tolist(self: Array) -> Any:
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


# -- NumPy -----------------------------------------------------------------------------------
def __array__(self: Array, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
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
    # Not the cached view itself but a new one of it: the caller may assign the result's
    # .shape or .dtype, and this array's own view must not change with them
    # (docs/reliability.md).
    return v.copy() if copy else v.view()


def __dask_tokenize__(self: Array) -> tuple:
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
