"""Special cases where the standard and NumPy disagree, fixed after NumPy computes.

Each fix-up takes the NumPy operands and NumPy's result and returns the result with the
standard's values patched in. Fixes only touch float/complex inputs, and only build masks,
so integer paths cost nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _patch(r: np.ndarray, mask: np.ndarray, real: Any, imag: Any) -> np.ndarray:
    """r with the complex value real + imag*j where mask holds (real/imag broadcast)."""
    if not mask.any():
        return r
    r = np.array(r, copy=True)
    rr, ri = r.real, r.imag  # writable views into the copy
    rr[mask] = np.broadcast_to(real, r.shape)[mask]
    ri[mask] = np.broadcast_to(imag, r.shape)[mask]
    return r


def expm1(a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Complex expm1 where an infinite or NaN real part meets a zero or non-finite imaginary
    part: NumPy's exp(z) - 1 evaluates inf*0 and inf*nan there, the standard gives values."""
    if a.dtype.kind != "c":
        return r
    re, im = a.real, a.imag
    zero_im = im == 0
    finite_im = np.isfinite(im)
    r = _patch(r, (re == np.inf) & zero_im, np.inf, im)  # +inf + 0j -> +inf + 0j
    r = _patch(r, (re == -np.inf) & ~finite_im, -1.0, 0.0)  # -inf + (inf|nan)j -> -1 + 0j
    r = _patch(r, (re == np.inf) & ~finite_im, np.inf, np.nan)  # +inf + (inf|nan)j -> inf + nanj
    r = _patch(r, np.isnan(re) & zero_im, np.nan, im)  # nan + 0j -> nan + 0j
    return _patch(r, (re == 0) & zero_im, 0.0, im)  # +-0 + 0j -> 0 + 0j


def tanh(a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Complex tanh with an infinite real part is +-1 + 0j (sign of the zero follows the
    imaginary part); NumPy can return NaN or a wrongly signed zero there."""
    if a.dtype.kind != "c":
        return r
    re, im = a.real, a.imag
    zero = np.where(np.isfinite(im), np.copysign(0.0, im), 0.0)
    return _patch(r, np.isinf(re), np.sign(re), zero)


def floor_divide(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Real floor_divide with an infinite operand is floor(x1 / x2) by the standard
    (inf // 2 is inf, -1 // inf is -0); NumPy's fmod-based loop gives NaN and -1 there."""
    if r.dtype.kind != "f":
        return r
    m = np.isinf(a) | np.isinf(b)
    if not m.any():
        return r
    return np.where(m, np.floor(np.divide(a, b)), r)
