"""Reusable hypothesis strategies for stridedarray tests (import them from any test file).

    from strategies import dtypes, shapes, arrays, views, basic_indices

* `dtypes(allowed)`        one stridedarray dtype from a set (DTypes, names or categories).
* `shapes(...)`            a shape tuple, 0-size extents included by default.
* `arrays(dtype, shape)`   a (stridedarray Array, NumPy array) pair, C-contiguous, sharing memory.
* `views(dtype, ...)`      a `ViewPair`: an Array and the equal NumPy array, both produced by
                           the same random chain of views (negative and step-two slices, integer
                           indices, None, flips, transposes, permute_dims, broadcast_to with zero
                           strides, expand_dims, squeeze, reshape-as-view) from one base buffer,
                           sharing memory with it. `pair.ops` describes the chain for failures.
* `basic_indices(shape)`   a basic index key (ints, slices of any step, ..., None) for a shape.
* `reshape_targets(size)`  a shape of `size` elements for reshape (extent-1 axes, 0-d, one -1).

Values come from a seeded NumPy generator rather than element-wise hypothesis draws: it is much
faster and the seed still shrinks. Values are small (|v| <= 50 for integers and floats) so that
other helpers can do arithmetic without overflow noise; pass `full_range=True` for extremes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st
from standard_names import CATEGORIES, DTYPE_NAMES

import stridedarray as sa
from stridedarray._base.dtypes import DType

__all__ = [
    "ALL_DTYPES",
    "NUMERIC_DTYPES",
    "ViewPair",
    "dtypes",
    "shapes",
    "fill",
    "arrays",
    "views",
    "basic_indices",
    "reshape_targets",
    "dtype_list",
    "numpy_promote",
]

# The dtypes and their categories from the standard's lists (standard_names), not from the
# package's own tables, so that a wrong table in the package cannot shape its tests.
DTYPES: tuple[DType, ...] = tuple(getattr(sa, n) for n in DTYPE_NAMES)
ALL_DTYPES: tuple[DType, ...] = DTYPES
NUMERIC_DTYPES: tuple[DType, ...] = tuple(d for d in DTYPES if d.kind != "b")


def dtype_list(allowed: Iterable[DType | str] | DType | str | None = None) -> list[DType]:
    """Resolve dtypes, dtype names, or category names ('numeric', 'real floating', ...)."""
    if allowed is None:
        return list(DTYPES)
    if isinstance(allowed, (DType, str)):
        allowed = [allowed]
    out: list[DType] = []
    for a in allowed:
        if isinstance(a, DType):
            group = [a]
        elif a in CATEGORIES:
            group = [d for d in DTYPES if d.name in CATEGORIES[a]]
        else:
            group = [d for d in DTYPES if d.name == a]
            if not group:
                raise ValueError(f"unknown dtype or category {a!r}")
        out.extend(d for d in group if d not in out)
    return out


def numpy_promote(a: DType, b: DType) -> DType:
    """The dtype of an operation on arrays of dtypes a and b, as NumPy computes it: the
    standard's table where it has one, and the answer the package promises (NumPy's) where
    the standard leaves a pair undefined."""
    return getattr(sa, np.result_type(np.dtype(a.name), np.dtype(b.name)).name)


def dtypes(allowed: Iterable[DType | str] | DType | str | None = None) -> st.SearchStrategy:
    """One dtype among `allowed` (default: all 13 Array API dtypes)."""
    return st.sampled_from(dtype_list(allowed))


def shapes(
    min_dims: int = 0,
    max_dims: int = 4,
    min_side: int = 0,
    max_side: int = 5,
) -> st.SearchStrategy:
    """A shape tuple; 0-size extents are included unless min_side >= 1."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(
        tuple
    )


def fill(
    dtype: DType,
    shape: tuple[int, ...],
    seed: int,
    full_range: bool = False,
) -> np.ndarray:
    """A fresh C-contiguous NumPy array of `dtype` with seeded random values."""
    rng = np.random.default_rng(seed)
    npdt = dtype.np
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(npdt)
    if dtype.kind in "iu":
        info = np.iinfo(npdt)
        lo, hi = (
            (int(info.min), int(info.max))
            if full_range
            else (max(int(info.min), -50), min(int(info.max), 50))
        )
        return rng.integers(lo, hi, size=shape, dtype=npdt, endpoint=True)
    scale = 1e30 if full_range and dtype.bits >= 64 else 50.0
    vals = rng.uniform(-scale, scale, size=shape)
    if dtype.kind == "c":
        vals = vals + 1j * rng.uniform(-scale, scale, size=shape)
    # np.array, not ascontiguousarray: the latter turns a 0-d result into shape (1,).
    return np.array(vals, dtype=npdt, order="C").reshape(shape)


@st.composite
def arrays(
    draw,
    dtype: DType | st.SearchStrategy | None = None,
    shape: tuple[int, ...] | st.SearchStrategy | None = None,
    full_range: bool = False,
):
    """A (stridedarray Array, NumPy array) pair over the same C-contiguous memory."""
    dt = (
        draw(dtypes())
        if dtype is None
        else (draw(dtype) if isinstance(dtype, st.SearchStrategy) else dtype)
    )
    sh = (
        draw(shapes())
        if shape is None
        else (draw(shape) if isinstance(shape, st.SearchStrategy) else tuple(shape))
    )
    ref = fill(dt, sh, draw(st.integers(0, 2**32 - 1)), full_range)
    return sa.asarray(ref), ref


class ViewPair(NamedTuple):
    """An Array `x` and NumPy array `ref` with equal shape and values, made by the same chain
    of views from `base_x` / `base_np` (which share one buffer)."""

    x: sa.Array
    ref: np.ndarray
    base_x: sa.Array
    base_np: np.ndarray
    ops: tuple[str, ...]


@st.composite
def _slice(draw, n: int) -> slice:
    """A slice for an axis of extent n: any start/stop (also out of range), steps +-1, +-2, +-3."""
    bound = n + 2
    start = draw(st.none() | st.integers(-bound, bound))
    stop = draw(st.none() | st.integers(-bound, bound))
    step = draw(st.sampled_from([None, 1, -1, 2, -2, 3, -3]))
    return slice(start, stop, step)


@st.composite
def basic_indices(
    draw,
    shape: tuple[int, ...],
    allow_none: bool = True,
    allow_ellipsis: bool = True,
    allow_int: bool = True,
):
    """A basic index key for `shape`: per-axis ints/slices, optional '...' and None."""
    ndim = len(shape)
    n_used = draw(st.integers(0, ndim))
    use_ellipsis = allow_ellipsis and draw(st.booleans())
    if use_ellipsis:
        n_front = draw(st.integers(0, n_used))
        axes = list(range(n_front)) + list(range(ndim - (n_used - n_front), ndim))
    else:
        axes = list(range(n_used))
    parts: list = []
    for ax in axes:
        n = shape[ax]
        if allow_int and n > 0 and draw(st.integers(0, 3)) == 0:
            parts.append(draw(st.integers(-n, n - 1)))
        else:
            parts.append(draw(_slice(n)))
    if use_ellipsis:
        parts.insert(n_front, Ellipsis)
    if allow_none:
        for _ in range(draw(st.integers(0, 2))):
            parts.insert(draw(st.integers(0, len(parts))), None)
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]  # a bare key, not a 1-tuple
    return tuple(parts)


def _factor_shapes(size: int, ndim_max: int) -> st.SearchStrategy:
    """Shapes whose product is `size` (for reshape targets)."""
    if size == 0:
        return st.sampled_from([(0,), (0, 3), (2, 0), (1, 0, 1)])
    divisors = [d for d in range(1, size + 1) if size % d == 0]

    @st.composite
    def build(draw):
        rest, out = size, []
        for _ in range(draw(st.integers(0, ndim_max - 1))):
            d = draw(st.sampled_from([d for d in divisors if rest % d == 0]))
            out.append(d)
            rest //= d
        out.append(rest)
        return tuple(draw(st.permutations(out)))

    return build()


@st.composite
def reshape_targets(draw, size: int, max_dims: int = 4) -> tuple[int, ...]:
    """A shape of `size` elements as reshape takes it: extent-1 axes inserted anywhere, () for
    one element, and sometimes one extent given as -1 (where the others' product is not 0)."""
    if size == 1 and draw(st.integers(0, 3)) == 0:
        return ()
    target = list(draw(_factor_shapes(size, max_dims)))
    for _ in range(draw(st.integers(0, 2))):
        target.insert(draw(st.integers(0, len(target))), 1)
    k = draw(st.integers(0, len(target) - 1))
    others = 1
    for n in target[:k] + target[k + 1 :]:
        others *= n
    if others and draw(st.booleans()):
        target[k] = -1
    return tuple(target)


@st.composite
def views(
    draw,
    dtype: DType | st.SearchStrategy | None = None,
    max_ops: int = 5,
    max_dims: int = 4,
    max_side: int = 5,
    broadcast: bool = True,
    full_range: bool = False,
) -> ViewPair:
    """A random chain of views over one buffer, applied to both an Array and a NumPy array.

    `broadcast=False` leaves out broadcast_to (zero strides), so the result is writable
    without aliasing; every other view kind stays in."""
    dt = (
        draw(dtypes())
        if dtype is None
        else (draw(dtype) if isinstance(dtype, st.SearchStrategy) else dtype)
    )
    shape = draw(shapes(0, max_dims, 0, max_side))
    base_np = fill(dt, shape, draw(st.integers(0, 2**32 - 1)), full_range)
    base_x = sa.asarray(base_np)
    x, ref, ops = base_x, base_np, []
    kinds = ["index", "flip", "permute", "mT", "expand", "squeeze", "reshape"]
    if broadcast:
        kinds.append("broadcast")
    for _ in range(draw(st.integers(0, max_ops))):
        kind = draw(st.sampled_from(kinds))
        nd = ref.ndim
        if kind == "index":
            key = draw(basic_indices(ref.shape, allow_none=nd < 6))
            new_ref = ref[key]
            if not isinstance(new_ref, np.ndarray):
                # NumPy returns a scalar copy when ints select one element; a trailing
                # Ellipsis gives the 0-d view instead.
                new_ref = ref[(*key, ...) if isinstance(key, tuple) else (key, ...)]
            x, ref = x[key], new_ref
            ops.append(f"[{key!r}]")
        elif kind == "flip":
            axis = draw(
                st.none()
                | (st.integers(-nd, nd - 1) if nd else st.none())
                | st.lists(st.integers(0, max(nd - 1, 0)), unique=True, max_size=nd).map(tuple)
            )
            # np.flip of a 0-d array returns a scalar copy; flipping no axes is the identity.
            x, ref = sa.flip(x, axis=axis), (np.flip(ref, axis=axis) if nd else ref[...])
            ops.append(f"flip(axis={axis!r})")
        elif kind == "permute":
            perm = tuple(draw(st.permutations(range(nd))))
            x, ref = sa.permute_dims(x, perm), np.transpose(ref, perm)
            ops.append(f"permute_dims({perm})")
        elif kind == "mT" and nd >= 2:
            x, ref = x.mT, np.swapaxes(ref, -1, -2)
            ops.append(".mT")
        elif kind == "expand" and nd < 6:
            axis = draw(st.integers(-nd - 1, nd))
            x, ref = sa.expand_dims(x, axis=axis), np.expand_dims(ref, axis)
            ops.append(f"expand_dims(axis={axis})")
        elif kind == "squeeze":
            ones = [k for k, n in enumerate(ref.shape) if n == 1]
            if ones:
                axes = tuple(draw(st.lists(st.sampled_from(ones), min_size=1, unique=True)))
                x, ref = sa.squeeze(x, axis=axes), np.squeeze(ref, axis=axes)
                ops.append(f"squeeze(axis={axes})")
        elif kind == "reshape":
            target = draw(_factor_shapes(ref.size, 4))
            try:
                new_ref = ref.reshape(target, copy=False)
            except ValueError:
                continue  # NumPy needs a copy for this one: not a view, so not in the chain
            x, ref = sa.reshape(x, target, copy=False), new_ref
            ops.append(f"reshape({target})")
        elif kind == "broadcast" and nd < 6:
            lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
            tail = tuple(draw(st.integers(0, 3)) if n == 1 else n for n in ref.shape)
            target = lead + tail
            x, ref = sa.broadcast_to(x, target), np.broadcast_to(ref, target)
            ops.append(f"broadcast_to({target})")
    return ViewPair(x, ref, base_x, base_np, tuple(ops))
