"""Linear algebra functions of the main namespace: tensordot and vecdot.

(`matmul` comes from `_matmul`, `matrix_transpose` from `_manipulation`.)

Both are one pair step of einsum's planner (`_api/einsum.py`, `contract_labels`): labelled
axes, rearranged with views only into one batched contraction `(..., M, K) @ (..., K, N)` and
handed to the C matmul plan, so a layout BLAS cannot take is packed once by the core rather
than copied here. The only copies: the conjugate of a complex `x1` in vecdot, an operand whose
dtype differs from the result's, and, in tensordot with several contracted axes, the smaller
operand when no joint order of those axes is one strided run in both (then no single-K view
exists). bool operands are counted in int64 and give bool, as NumPy's tensordot does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._arraytype import _wrap
from .._base import dtypes as _dtypes
from .._base.arguments import as_int, normalize_axis
from ._common import check_array, check_kind
from .einsum import contract_labels

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["tensordot", "vecdot"]


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


def _labels(n: int, start: int = 0) -> str:
    """n distinct one-character labels (the planner's currency; never the grammar's letters)."""
    return "".join(chr(0x100 + start + k) for k in range(n))


def tensordot(
    x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> Array:
    """Contract x1 and x2 over the given axes (the generalized matrix product)."""
    x1 = check_array(x1, "x1", func="tensordot")
    x2 = check_array(x2, "x2", func="tensordot")
    check_kind(x1, "biufc", "tensordot", "numeric or bool", "x1")
    check_kind(x2, "biufc", "tensordot", "numeric or bool", "x2")
    dt = _dtypes.promote(x1._dtype, x2._dtype)
    c1, c2 = _tensordot_axes(x1, x2, axes)
    for a, b in zip(c1, c2, strict=True):
        if x1.shape[a] != x2.shape[b]:
            raise ValueError(
                f"tensordot: contracted axis {a} of x1 (extent {x1.shape[a]}) and "
                f"axis {b} of x2 (extent {x2.shape[b]}) differ; shapes {x1.shape} "
                f"and {x2.shape}"
            )
    # One pair step of einsum's planner: x2's contracted axes take x1's labels.
    l1 = _labels(x1.ndim)
    l2 = list(_labels(x2.ndim, x1.ndim))
    for a, b in zip(c1, c2, strict=True):
        l2[b] = l1[a]
    free = "".join(c for k, c in enumerate(l1) if k not in c1) + "".join(
        c for k, c in enumerate(l2) if k not in c2
    )
    return contract_labels(dt, (x1, x2), (l1, "".join(l2)), free)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along an axis, conjugating x1 when complex; batch axes broadcast."""
    x1 = check_array(x1, "x1", func="vecdot")
    x2 = check_array(x2, "x2", func="vecdot")
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
    if x1._dtype.kind == "c":
        x1 = _wrap(np.conj(x1._np))  # the one copy: BLAS dot/gemm has no conjugate-only mode
    # One pair step of einsum's planner: the contracted axis is K; the other axes are batch
    # axes, right-aligned without it, that broadcast (an extent of 1 drops out).
    nb = max(x1.ndim, x2.ndim) - 1
    batch = _labels(nb)
    k = _labels(1, nb)
    l1, l2 = _vecdot_labels(x1.ndim, ax, batch, k), _vecdot_labels(x2.ndim, ax, batch, k)
    ext1 = dict(zip(l1, x1.shape, strict=True))
    for c2, n2 in zip(l2, x2.shape, strict=True):
        n1 = ext1.get(c2, 1)
        if c2 != k and n1 != n2 and n1 != 1 and n2 != 1:
            raise ValueError(
                f"vecdot: the batch shapes of x1 {x1.shape} and x2 {x2.shape} (without the "
                f"contracted axis {axis}) do not broadcast"
            )
    return contract_labels(_dtypes.promote(x1._dtype, x2._dtype), (x1, x2), (l1, l2), batch)


def _vecdot_labels(ndim: int, ax: int, batch: str, k: str) -> str:
    """The labels of an operand of `ndim` axes whose axis `ax` (negative) is contracted: the
    others right-aligned with the batch labels."""
    pos = ndim + ax
    others = batch[len(batch) - (ndim - 1) :] if ndim > 1 else ""
    return others[:pos] + k + others[pos:]
