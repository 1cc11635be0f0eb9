"""Linear algebra functions of the main namespace: tensordot and vecdot.

(`matmul` comes from `_matmul`, `matrix_transpose` from `_manipulation`.)

Both are rearranged, with views only, into one batched contraction `(..., M, K) @ (..., K, N)`
and handed to the C matmul plan, so a layout BLAS cannot take is packed once by the core
rather than copied here. The only copies made in this module: the conjugate of a complex `x1`
in vecdot, and, in tensordot with several contracted axes, the smaller operand when no joint
order of those axes is one strided run in both (then no single-K view exists).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._arraytype import _reshape_strides, _wrap
from .._base import dtypes as _dtypes
from .._base.arguments import as_int, normalize_axis
from ._common import check_array, check_kind
from .manipulation import matrix_transpose, moveaxis, permute_dims, reshape

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["tensordot", "vecdot"]


def _matmul(a: Array, b: Array) -> Array:
    from .._matmul.product import matmul

    return matmul(a, b)


def _merge(x: Array, n_lead: int) -> Array | None:
    """x with its first `n_lead` axes merged into one (a view), or None if no view exists."""
    new_shape = (math.prod(x.shape[:n_lead]),) + x.shape[n_lead:]
    if x.size == 0:
        return reshape(x, new_shape)
    strides = _reshape_strides(x, new_shape)
    return None if strides is None else x._view(new_shape, strides, x.origin)


def _tensordot_axes(x1: Array, x2: Array, axes: int | tuple) -> tuple[tuple, tuple]:
    if not isinstance(axes, (tuple, list)):
        axes = as_int(axes, "axes", "tensordot")
        if axes < 0:
            raise ValueError(f"tensordot: axes must be non-negative, got {axes}")
        if axes > x1.ndim or axes > x2.ndim:
            raise ValueError(
                f"tensordot: axes={axes} exceeds the rank of x1 ({x1.ndim}) or x2 ({x2.ndim})"
            )
        return tuple(range(x1.ndim - axes, x1.ndim)), tuple(range(axes))
    if not (isinstance(axes, (tuple, list)) and len(axes) == 2):
        raise TypeError(f"tensordot: axes must be an int or a pair of axis sequences, got {axes!r}")
    a1, a2 = (tuple(a) if isinstance(a, Sequence) else (a,) for a in axes)
    if len(a1) != len(a2):
        raise ValueError(f"tensordot: axes {a1} and {a2} must have the same length")
    n1 = tuple(normalize_axis(a, x1.ndim, "axes[0]", "tensordot") for a in a1)
    n2 = tuple(normalize_axis(a, x2.ndim, "axes[1]", "tensordot") for a in a2)
    if len(set(n1)) != len(n1) or len(set(n2)) != len(n2):
        raise ValueError(f"tensordot: repeated axes in {axes}")
    return n1, n2


def tensordot(
    x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> Array:
    """Contract x1 and x2 over the given axes (the generalized matrix product)."""
    check_array(x1, "x1", func="tensordot")
    check_array(x2, "x2", func="tensordot")
    check_kind(x1, "iufc", "tensordot", "numeric", "x1")
    check_kind(x2, "iufc", "tensordot", "numeric", "x2")
    _dtypes.promote(x1.dtype, x2.dtype)
    c1, c2 = _tensordot_axes(x1, x2, axes)
    for a, b in zip(c1, c2, strict=True):
        if x1.shape[a] != x2.shape[b]:
            raise ValueError(
                f"tensordot: contracted axis {a} of x1 (extent {x1.shape[a]}) and "
                f"axis {b} of x2 (extent {x2.shape[b]}) differ; shapes {x1.shape} "
                f"and {x2.shape}"
            )
    f1 = [k for k in range(x1.ndim) if k not in c1]
    f2 = [k for k in range(x2.ndim) if k not in c2]
    fs1 = tuple(x1.shape[k] for k in f1)
    fs2 = tuple(x2.shape[k] for k in f2)
    # Contracted axes become one K axis. Any joint order of the pairs is valid: try the given
    # one, then each operand's memory order. If no order merges both, keep the larger operand
    # a view and pack the other to row-major once (the contracted axes of an operand that is
    # not one strided run have no single-axis view at all).
    n = len(c1)
    orders = [
        list(range(n)),
        sorted(range(n), key=lambda i: -abs(x1.strides[c1[i]])),
        sorted(range(n), key=lambda i: -abs(x2.strides[c2[i]])),
    ]
    best: tuple[Array, Array, Array | None, Array | None] | None = None
    best_score = 0
    for order in orders:
        p1 = permute_dims(x1, tuple([c1[i] for i in order] + f1))
        p2 = permute_dims(x2, tuple([c2[i] for i in order] + f2))
        k1, k2 = _merge(p1, n), _merge(p2, n)
        if k1 is not None and k2 is not None:
            best = (p1, p2, k1, k2)
            break
        score = (x1.size if k1 is not None else 0) + (x2.size if k2 is not None else 0)
        if best is None or score > best_score:
            best, best_score = (p1, p2, k1, k2), score
    assert best is not None  # `orders` is not empty
    p1, p2, k1, k2 = best
    if k1 is None:
        k1 = reshape(p1, (math.prod(p1.shape[:n]),) + fs1)
    if k2 is None:
        k2 = reshape(p2, (math.prod(p2.shape[:n]),) + fs2)
    # k1: (K, *fs1), k2: (K, *fs2). When each side's free axes merge into one strided axis
    # (the common case), this is a single (M, K) @ (K, N) product whose C-ordered output is
    # viewed as (*fs1, *fs2).
    if len(fs1) > 1 or len(fs2) > 1:
        m1 = _merge(permute_dims(k1, tuple(range(1, len(fs1) + 1)) + (0,)), len(fs1))
        m2 = _merge(moveaxis(k2, 0, -1), len(fs2))
        if m1 is not None and m2 is not None:
            out = _matmul(m1, matrix_transpose(m2))
            return reshape(out, fs1 + fs2)
    # Otherwise all free axes but the last of x1's and x2's become batch
    # axes that broadcast against each other (extent-1 views), the last ones are M and N.
    n1, n2 = len(fs1), len(fs2)
    m_shape = fs1[-1:] or (1,)
    n_shape = fs2[-1:] or (1,)
    a = permute_dims(k1, tuple(range(1, n1 + 1)) + (0,)) if n1 else k1
    if not n1:
        a = a._view((1, a.shape[0]), (0, a.strides[0]), a.origin)
    b = k2
    if n2:
        b = moveaxis(b, 0, -2)
    else:
        b = b._view((b.shape[0], 1), (b.strides[0], 0), b.origin)
    # a: (*fs1[:-1], M, K) -> (*fs1[:-1], 1 x (n2-1), M, K)
    nb1, nb2 = max(n1 - 1, 0), max(n2 - 1, 0)
    a = a._view(
        a.shape[:nb1] + (1,) * nb2 + a.shape[nb1:],
        a.strides[:nb1] + (0,) * nb2 + a.strides[nb1:],
        a.origin,
    )
    b = b._view((1,) * nb1 + b.shape, (0,) * nb1 + b.strides, b.origin)
    out = _matmul(a, b)  # (*fs1[:-1], *fs2[:-1], M, N)
    perm = tuple(range(nb1)) + (nb1 + nb2,) + tuple(range(nb1, nb1 + nb2)) + (nb1 + nb2 + 1,)
    out = permute_dims(out, perm)  # (*fs1[:-1], M, *fs2[:-1], N)
    shape = fs1[:-1] + m_shape + fs2[:-1] + n_shape
    assert out.shape == shape
    # drop the extent-1 M or N axis made up for an operand without free axes
    idx = tuple(
        0 if (k == nb1 and not n1) or (k == len(shape) - 1 and not n2) else slice(None)
        for k in range(len(shape))
    )
    return out[idx]


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along an axis, conjugating x1 when complex; batch axes broadcast."""
    check_array(x1, "x1", func="vecdot")
    check_array(x2, "x2", func="vecdot")
    check_kind(x1, "iufc", "vecdot", "numeric", "x1")
    check_kind(x2, "iufc", "vecdot", "numeric", "x2")
    _dtypes.promote(x1.dtype, x2.dtype)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(
            f"vecdot: inputs must have rank >= 1, got shapes {x1.shape} and {x2.shape}"
        )
    nmin = min(x1.ndim, x2.ndim)
    axis = as_int(axis, "axis", "vecdot")
    if axis >= 0:
        # The standard (2023.12) asks for negative axes; a non-negative one is unambiguous
        # only when both ranks agree.
        if x1.ndim != x2.ndim:
            raise ValueError(
                f"vecdot: axis {axis} must be negative when ranks differ ({x1.ndim} and {x2.ndim})"
            )
        axis -= x1.ndim
    ax = normalize_axis(axis, nmin, func="vecdot") - nmin  # negative, counted from the end of both
    if x1.shape[ax] != x2.shape[ax]:
        raise ValueError(
            f"vecdot: the contracted axis {axis} has extent {x1.shape[ax]} in x1 "
            f"(shape {x1.shape}) and {x2.shape[ax]} in x2 (shape {x2.shape})"
        )
    if x1.dtype.kind == "c":
        x1 = _wrap(np.conj(x1._np))  # the one copy: BLAS dot/gemm has no conjugate-only mode
    a = moveaxis(x1, ax, -1)
    b = moveaxis(x2, ax, -1)
    a = a._view(
        a.shape[:-1] + (1,) + a.shape[-1:], a.strides[:-1] + (0,) + a.strides[-1:], a.origin
    )
    b = b._view(b.shape + (1,), b.strides + (0,), b.origin)
    return _matmul(a, b)[..., 0, 0]
