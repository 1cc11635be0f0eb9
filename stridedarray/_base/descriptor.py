"""The descriptor's arithmetic: the offsets a (shape, strides, origin) reaches.

Plain functions of tuples of Python ints; the array type's constructor (csrc/arraytype/) does
the bounds check of every descriptor in C, and checks the integers of a descriptor from outside
(`_arraytype._descriptor_ints`, for a pickle); these serve the Python code that builds one
(wrapping a strided ndarray, pickling)."""

from __future__ import annotations

__all__ = ["MAX_AXES", "MAX_BYTES", "c_strides", "check_size"]


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


# The most axes an array has, as NumPy's (the C array type's limit).
MAX_AXES = 64

# The largest array, in bytes: NumPy's limit (its sizes are signed 64-bit), which every Array
# meets because it has a zero-copy NumPy view; the C core's offsets are int64 too.
MAX_BYTES = 2**63 - 1


def check_size(shape: tuple[int, ...], itemsize: int, name: str = "shape") -> None:
    """ValueError when a shape cannot describe any array: the product of its non-zero extents
    times the item size does not fit a signed 64-bit integer (NumPy's rule, zero-size too).

    A ValueError, not a MemoryError: no machine could hold it, so the argument is at fault;
    sizes that fit but cannot be allocated here still raise NumPy's MemoryError."""
    n = itemsize
    for s in shape:
        if s:
            n *= s
    if n > MAX_BYTES:
        raise ValueError(
            f"{name} {tuple(shape)} is too large: its non-zero extents times the "
            f"item size ({itemsize} bytes) make {n} bytes, more than an array can "
            "address (2**63 - 1 bytes)"
        )


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major (C order) element strides for a shape."""
    strides = [0] * len(shape)
    step = 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = step
        step *= max(shape[k], 1)
    return tuple(strides)
