"""Special cases where the standard and NumPy disagree, fixed after NumPy computes.

Each fix-up takes the NumPy operands and NumPy's result and returns the result with the
standard's values patched in. Fixes only touch float/complex inputs, and only build masks,
so integer paths cost nothing.
"""

from __future__ import annotations

import numpy as np


def expm1(a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Complex expm1 special cases."""
    return r


def tanh(a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Complex tanh special cases."""
    return r


def sign(a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """sign special cases."""
    return r


def floor_divide(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:
    """floor_divide with infinities and zeros."""
    return r


def remainder(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:
    """remainder special cases."""
    return r


def pow(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:  # noqa: A001
    """pow special cases."""
    return r
