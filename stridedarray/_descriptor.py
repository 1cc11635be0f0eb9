"""The descriptor's arithmetic: the offsets a (shape, strides, origin) reaches, and the
checks of descriptor integers that come from outside (a pickle).

Plain functions of tuples of Python ints; the array type's constructor (csrc/arraytype/) does
the bounds check of every descriptor in C, and these serve the Python code that builds one
(wrapping a strided ndarray, pickling)."""

from __future__ import annotations

import operator
from typing import Any


def _offset_range(shape: tuple[int, ...], strides: tuple[int, ...], origin: int) -> tuple[int, int]:
    """Smallest and largest reachable element offset of a non-empty descriptor."""
    lo = hi = origin
    for n, s in zip(shape, strides, strict=True):
        span = (n - 1) * s
        if span < 0:
            lo += span
        else:
            hi += span
    return lo, hi


def _bounded_strides(shape: tuple, strides: tuple, nbuf: int) -> tuple:
    """The strides with those no index multiplies (an extent-1 axis's, and all of an empty
    array's) set to 0 when they are larger than the buffer. Such strides can be anything
    (slicing an extent-1 axis with a step again and again multiplies its stride; _make does
    not bound them), beyond int64 or NumPy's reach, and C's stride arithmetic (negating a
    stride, reversing an axis) would overflow on e.g. -2**63. Every other stride is at most
    the buffer's size once the descriptor passed _make, and is kept: the BLAS layout checks
    read strides as NumPy does."""
    if 0 in shape:
        return tuple(0 if abs(s) > nbuf else s for s in strides)
    return tuple(0 if n == 1 and abs(s) > nbuf else s for n, s in zip(shape, strides, strict=True))


def _fills_window(shape: tuple, strides: tuple) -> bool:
    """True when a non-empty descriptor reaches every element of its offset window [lo, hi].

    That holds when its axes of extent > 1 and non-zero stride, ordered by |stride|, nest
    exactly: the smallest |stride| is 1 and each next one is the previous times its extent
    (any transpose or reversal of a dense block). Step and overlapping views skip or repeat."""
    axes = sorted((abs(s), n) for n, s in zip(shape, strides, strict=True) if n > 1 and s)
    step = 1
    for s, n in axes:
        if s != step:
            return False
        step *= n
    return True


_INT64_MAX = 2**63 - 1


def _descriptor_ints(shape: Any, strides: Any, origin: Any) -> tuple[tuple, tuple, int]:
    """Shape, strides and origin as exact Python ints (by `operator.index`), range-checked.

    Descriptors hold Python ints only: NumPy integers would make the bounds arithmetic wrap
    (an extent of np.int64(2**61 + 2) times a stride passes a check it should fail). Extents
    lie in [0, 2**63 - 1]; strides and the origin fit a signed 64-bit integer."""
    out = []
    for name, values in (("shape", shape), ("strides", strides)):
        if not isinstance(values, (tuple, list)):
            raise TypeError(
                f"descriptor {name} must be a tuple of integers, got {type(values).__name__}"
            )
        ints = []
        for v in values:
            if isinstance(v, bool):
                raise TypeError(f"descriptor {name} must hold integers, not bools: {values!r}")
            try:
                v = operator.index(v)
            except TypeError:
                raise TypeError(
                    f"descriptor {name} must hold integers, got {type(v).__name__} {v!r:.40}"
                ) from None
            low = 0 if name == "shape" else -_INT64_MAX
            if not low <= v <= _INT64_MAX:
                raise ValueError(f"descriptor {name} entry {v} is outside [{low}, 2**63 - 1]")
            ints.append(v)
        out.append(tuple(ints))
    if isinstance(origin, bool):
        raise TypeError("descriptor origin must be an integer, not a bool")
    try:
        origin = operator.index(origin)
    except TypeError:
        raise TypeError(
            f"descriptor origin must be an integer, got {type(origin).__name__}"
        ) from None
    if not -_INT64_MAX <= origin <= _INT64_MAX:
        raise ValueError(f"descriptor origin {origin} is outside the signed 64-bit range")
    return out[0], out[1], origin
