"""The `fft` extension of the Array API (2025.12): every function, through `numpy.fft`.

Transforms run on the zero-copy view `x._np`. The standard asks complex-to-complex transforms
(and irfft/hfft) for complex input and rfft/ihfft for real floating input; NumPy, PyTorch and
JAX also take real, integer and bool input there (as complex or real numbers), so we do too.
Complex input to rfft/ihfft is refused (NumPy would drop the imaginary part). The output
precision matches the input's (float32/complex64 stay single precision; integer and bool input
computes in double precision, NumPy's choice); NumPy >= 2.0's pocketfft keeps float32/complex64,
and we cast explicitly in case a path does not.
"""

from __future__ import annotations

import sys as _sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from . import _pickle
from ._api._common import check_array, check_kind
from ._arraytype import _wrap
from ._base import dtypes as _dtypes
from ._base.arguments import as_int, as_ints, normalize_axes, normalize_axis
from ._base.descriptor import check_size
from ._base.device import CPU_DEVICE
from ._base.dtypes import DType

if TYPE_CHECKING:
    from ._array.array import Array


__all__ = [
    "fft",
    "ifft",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_Norm = Literal["backward", "ortho", "forward"]
_KINDS = {"c": ("biufc", "numeric or bool"), "f": ("biuf", "real-valued")}


def _real_of(x: Array) -> np.dtype:
    return (
        np.dtype(np.float32) if x.dtype.np in (np.float32, np.complex64) else np.dtype(np.float64)
    )


def _complex_of(x: Array) -> np.dtype:
    return (
        np.dtype(np.complex64)
        if x.dtype.np in (np.float32, np.complex64)
        else np.dtype(np.complex128)
    )


def _check(x: Array, name: str, kind: str, norm: str) -> Array:
    """x as an Array (check_array), checked for transform `name`."""
    x = check_array(x, func=f"fft.{name}")
    kinds, what = _KINDS[kind]
    check_kind(x, kinds, f"fft.{name}", what)
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f"fft.{name}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}")
    if x.ndim == 0:
        raise ValueError(f"fft.{name}: x must have rank >= 1, got a 0-d array")
    return x


# Transforms whose output length defaults to 2 * (m - 1) for an input of extent m.
_HERMITIAN_OUT = ("irfft", "hfft", "irfftn")


def _lengths(x: Array, name: str, axes: Sequence[int], sizes: Sequence[int | None]) -> None:
    """ValueError naming the axis when a transform would have no points (NumPy's message
    names neither); ValueError "too large" for a size no array can have."""
    for k, (a, n) in enumerate(zip(axes, sizes, strict=True)):
        if n is None:
            m = x.shape[a]
            last = k == len(axes) - 1
            n = 2 * (m - 1) if name in _HERMITIAN_OUT and last else m
            if n < 1:
                why = (
                    f"the default output length 2 * ({m} - 1) = {n} is empty"
                    if name in _HERMITIAN_OUT and last
                    else "there is nothing to transform"
                )
                raise ValueError(
                    f"fft.{name}: x has extent {m} along axis {a}, so {why}; "
                    "pass a length of at least 1 (n, or s) to zero-pad"
                )
    shape = list(x.shape)
    for a, n in zip(axes, sizes, strict=True):
        if n is not None:
            shape[a] = n
    check_size(tuple(shape), 16, f"fft.{name}: the transform shape")


def _one(fn: Callable, name: str, kind: str, out: Callable) -> Callable:
    def transform(
        x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward"
    ) -> Array:
        x = _check(x, name, kind, norm)
        ax = normalize_axis(axis, x.ndim, func=f"fft.{name}")
        if n is not None:
            n = as_int(n, "n", f"fft.{name}", low=1)
        _lengths(x, name, (ax,), (n,))
        return _wrap(np.asarray(fn(x._np, n=n, axis=ax, norm=norm), dtype=out(x)))

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"One-dimensional {_DOCS[name]} along an axis."
    return transform


def _many(fn: Callable, name: str, kind: str, out: Callable) -> Callable:
    def transform(
        x: Array,
        /,
        *,
        s: Sequence[int] | None = None,
        axes: Sequence[int] | None = None,
        norm: _Norm = "backward",
    ) -> Array:
        x = _check(x, name, kind, norm)
        ax = None if axes is None else list(normalize_axes(axes, x.ndim, "axes", f"fft.{name}"))
        if s is not None:
            s = list(as_ints(s, "s", f"fft.{name}"))
            if ax is None:
                ax = list(range(x.ndim - len(s), x.ndim))
            if len(s) != len(ax):
                raise ValueError(
                    f"fft.{name}: s {tuple(s)} and axes {tuple(ax)} must have the same length"
                )
            if any(k < 1 and k != -1 for k in s):
                raise ValueError(
                    f"fft.{name}: s must contain positive sizes (or -1), got {tuple(s)}"
                )
            # -1 means "the input's extent" along that axis (2023.12).
            s = [x.shape[a] if k == -1 else k for k, a in zip(s, ax, strict=True)]
        _lengths(
            x,
            name,
            range(x.ndim) if ax is None else ax,
            [None] * (x.ndim if ax is None else len(ax)) if s is None else s,
        )
        return _wrap(np.asarray(fn(x._np, s=s, axes=ax, norm=norm), dtype=out(x)))

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"N-dimensional {_DOCS[name]} over the given axes."
    return transform


_DOCS = {
    "fft": "discrete Fourier transform",
    "ifft": "inverse discrete Fourier transform",
    "fftn": "discrete Fourier transform",
    "ifftn": "inverse discrete Fourier transform",
    "rfft": "discrete Fourier transform of real input",
    "irfft": "inverse of rfft (real output)",
    "rfftn": "discrete Fourier transform of real input",
    "irfftn": "inverse of rfftn (real output)",
    "hfft": "discrete Fourier transform of a Hermitian-symmetric signal (real output)",
    "ihfft": "inverse of hfft (real input, complex output)",
}

fft = _one(np.fft.fft, "fft", "c", _complex_of)
ifft = _one(np.fft.ifft, "ifft", "c", _complex_of)
rfft = _one(np.fft.rfft, "rfft", "f", _complex_of)
irfft = _one(np.fft.irfft, "irfft", "c", _real_of)
hfft = _one(np.fft.hfft, "hfft", "c", _real_of)
ihfft = _one(np.fft.ihfft, "ihfft", "f", _complex_of)
fftn = _many(np.fft.fftn, "fftn", "c", _complex_of)
ifftn = _many(np.fft.ifftn, "ifftn", "c", _complex_of)
rfftn = _many(np.fft.rfftn, "rfftn", "f", _complex_of)
irfftn = _many(np.fft.irfftn, "irfftn", "c", _real_of)


def _freq_dtype(dtype: DType | None, device: object, name: str) -> DType:
    if device is not None and device != CPU_DEVICE:
        raise ValueError(f"fft.{name}: device must be None or {CPU_DEVICE!r}, got {device!r}")
    if dtype is None:
        return _dtypes.float64
    dtype = _dtypes.as_dtype(dtype, f"fft.{name}: dtype")
    if dtype.kind != "f":
        raise TypeError(f"fft.{name}: dtype must be a real floating-point dtype, got {dtype!r}")
    return dtype


def _check_n(n: int, name: str) -> int:
    n = as_int(n, "n", f"fft.{name}", low=1)
    check_size((n,), 8, f"fft.{name}: n")
    return n


def fftfreq(
    n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: object = None
) -> Array:
    """Sample frequencies of an n-point transform with sample spacing d."""
    dt = _freq_dtype(dtype, device, "fftfreq")
    return _wrap(np.fft.fftfreq(_check_n(n, "fftfreq"), d=d).astype(dt.np, copy=False))


def rfftfreq(
    n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: object = None
) -> Array:
    """Non-negative sample frequencies of an n-point real transform (n // 2 + 1 of them)."""
    dt = _freq_dtype(dtype, device, "rfftfreq")
    return _wrap(np.fft.rfftfreq(_check_n(n, "rfftfreq"), d=d).astype(dt.np, copy=False))


def _shift(fn: Callable, name: str, x: Array, axes: int | Sequence[int] | None) -> Array:
    x = check_array(x, func=f"fft.{name}")
    ax = None if axes is None else normalize_axes(axes, x.ndim, "axes", f"fft.{name}")
    if x.ndim == 0:
        return x.to_row_major()  # nothing to shift (NumPy's roll fails on 0-d input)
    return _wrap(fn(x._np, axes=ax))


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the centre (along the given axes; all by default)."""
    return _shift(np.fft.fftshift, "fftshift", x, axes)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of fftshift."""
    return _shift(np.fft.ifftshift, "ifftshift", x, axes)


# -- NumPy's spellings say what the standard calls them (stridedarray/_base/numpy_names.py); dir()
# lists the public names only, not this module's imports.
def __getattr__(name: str) -> object:
    from ._base.numpy_names import missing

    raise missing(__name__, name)


def __dir__() -> list[str]:
    return sorted(__all__)


# Named for pickling once the package is complete (this module loads on first use): the
# package's own names first, so a function both export keeps the package's name.
_pickle.publish([_sys.modules[__package__], _sys.modules[__name__]])
