"""The `linalg` extension of the Array API (2025.12), every function incl. eig and eigvals.

Factorizations and solvers (LAPACK) run in NumPy on the zero-copy views `x._np`; products
(matmul, matrix_power, tensordot, vecdot) run through our C matmul plan; outer is an exact
elementwise product (a K = 1 matmul would turn -0 products into +0). Decompositions
accept floating-point input only: NumPy would silently promote integers to float64, which the
standard leaves undefined. Singular input raises `LinAlgError`, NumPy's own class re-exported,
so `except numpy.linalg.LinAlgError` catches it too.

NaN and infinity are not errors. LAPACK leaves their result unspecified (NumPy's `inv` of a
matrix holding a NaN raises "Singular matrix", `det` returns 0.0, `eigh` returns finite
eigenvalues, `svd` raises "did not converge"), so the functions built on an iterative or
pivoting factorization (det, slogdet, inv, solve, eig, eigvals, eigh, eigvalsh, svd, svdvals,
pinv, and the 2/-2/nuclear matrix norms) give NaN for every output of a matrix that holds a
NaN or an infinity, and the usual result for the other matrices of a stack (`_nonfinite_nan`).
`matrix_rank` of such a matrix raises ValueError (an integer cannot be NaN). Products,
cholesky and qr propagate NaN and infinity by arithmetic and are left as they are.
"""

from __future__ import annotations

import sys as _sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from . import _pickle
from ._api._common import check_array, check_kind, reduce_axes, sum_dtype
from ._api.linalg_functions import tensordot, vecdot
from ._api.manipulation import matrix_transpose
from ._arraytype import _wrap
from ._base import dtypes as _dtypes
from ._base.arguments import as_bool, as_int
from ._base.construct import ArrayBase
from ._base.dtypes import DType

if TYPE_CHECKING:
    from ._array.array import Array


__all__ = [
    "LinAlgError",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]

LinAlgError = np.linalg.LinAlgError


class EighResult(NamedTuple):
    """eigenvalues (ascending, real) and eigenvectors (columns)."""

    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    """eigenvalues and eigenvectors (columns), always complex."""

    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    """Q (orthonormal columns) and R (upper triangular)."""

    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    """sign and natural log of the absolute value of the determinant."""

    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    """U, S (descending singular values) and Vh, with x = U @ diag(S) @ Vh."""

    U: Array
    S: Array
    Vh: Array


def _float_matrix(x: Array, name: str, square: bool = False, arg: str = "x") -> np.ndarray:
    x = check_array(x, arg, func=f"linalg.{name}")
    check_kind(x, "fc", f"linalg.{name}", "floating-point", arg)
    if x.ndim < 2:
        raise ValueError(f"linalg.{name}: {arg} must have rank >= 2, got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"linalg.{name}: {arg} must be (a stack of) square matrices, got shape {x.shape}"
        )
    return x._np


def _bad_matrices(a: np.ndarray) -> np.ndarray | None:
    """Mask over the stack of the matrices holding a NaN or an infinity, or None if none do."""
    fin = np.isfinite(a)  # O(n^2) next to the O(n^3) factorization it guards
    if fin.all():
        return None
    return ~fin.all(axis=(-2, -1))


def _nonfinite_nan(f: Callable[..., Any], a: np.ndarray, *args: Any, **kw: Any) -> Any:
    """f(a, ...) where every output of a matrix holding a NaN or an infinity is NaN.

    LAPACK's result for such input is unspecified (an error, a finite number or garbage), so
    those matrices are replaced by the identity for the call and their outputs overwritten."""
    bad = _bad_matrices(a)
    if bad is None:
        return f(a, *args, **kw)
    clean = a.copy()
    clean[bad] = np.eye(a.shape[-2], a.shape[-1], dtype=a.dtype)
    out = f(clean, *args, **kw)
    many = isinstance(out, tuple)
    fixed = []
    for o in out if many else (out,):
        o = np.array(o)  # a writable copy (0-d for one determinant)
        if o.dtype.kind in "fc":
            o[bad] = np.nan
        fixed.append(o)
    return type(out)(*fixed) if many else fixed[0]


def _complex_of(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex64) if dt in (np.float32, np.complex64) else np.dtype(np.complex128)


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product, planned by the C core (same as `stridedarray.matmul`)."""
    from ._matmul.product import matmul as _mm

    return _mm(x1, x2)


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of a (stack of) Hermitian positive-definite matrix."""
    a = _float_matrix(x, "cholesky", square=True)
    upper = as_bool(upper, "upper", "linalg.cholesky")
    return _wrap(np.linalg.cholesky(a, upper=upper))


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross product of 3-element vectors along an axis (other axes broadcast)."""
    x1 = check_array(x1, "x1", func="linalg.cross")
    x2 = check_array(x2, "x2", func="linalg.cross")
    check_kind(x1, "iufc", "linalg.cross", "numeric", "x1")
    check_kind(x2, "iufc", "linalg.cross", "numeric", "x2")
    dt = _dtypes.promote(x1.dtype, x2.dtype)
    axis = as_int(axis, "axis", "linalg.cross")
    nmin = min(x1.ndim, x2.ndim)
    if not -nmin <= axis < 0 and not (x1.ndim == x2.ndim and 0 <= axis < nmin):
        raise ValueError(
            f"linalg.cross: axis {axis} is out of bounds for shapes {x1.shape} "
            f"and {x2.shape} (use a negative axis)"
        )
    if axis >= 0:
        axis -= x1.ndim
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            f"linalg.cross: axis {axis} must have extent 3 in both inputs, got "
            f"shapes {x1.shape} and {x2.shape}"
        )
    with np.errstate(over="ignore"):
        return _wrap(
            np.cross(x1._np.astype(dt.np, copy=False), x2._np.astype(dt.np, copy=False), axis=axis)
        )


def det(x: Array, /) -> Array:
    """Determinant of a (stack of) square matrix."""
    return _wrap(_nonfinite_nan(np.linalg.det, _float_matrix(x, "det", square=True)))


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The offset diagonal of the last two axes (a view with stride row + column)."""
    return _diagonal(x, offset, "linalg.diagonal")


def _diagonal(x: Array, offset: int, func: str) -> Array:
    x = check_array(x, func=func)
    if x.ndim < 2:
        raise ValueError(f"{func}: x must have rank >= 2, got shape {x.shape}")
    offset = as_int(offset, "offset", func)
    m, n = x.shape[-2:]
    sr, sc = x.strides[-2:]
    origin = x.origin
    if offset >= 0:
        length = max(0, min(m, n - offset))
        if length:
            origin += offset * sc
    else:
        length = max(0, min(m + offset, n))
        if length:
            origin -= offset * sr
    return x._view(x.shape[:-2] + (length,), x.strides[:-2] + (sr + sc,), origin)


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of a Hermitian/symmetric matrix."""
    w, v = _nonfinite_nan(np.linalg.eigh, _float_matrix(x, "eigh", square=True))
    return EighResult(_wrap(w), _wrap(v))


def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues (ascending) of a Hermitian/symmetric matrix."""
    return _wrap(_nonfinite_nan(np.linalg.eigvalsh, _float_matrix(x, "eigvalsh", square=True)))


def eig(x: Array, /) -> EigResult:
    """Eigenvalues and right eigenvectors of a general square matrix (always complex)."""
    a = _float_matrix(x, "eig", square=True)
    w, v = _nonfinite_nan(np.linalg.eig, a)
    # NumPy returns real arrays when every eigenvalue is real; the standard says complex.
    ct = _complex_of(a.dtype)
    return EigResult(_wrap(w.astype(ct, copy=False)), _wrap(v.astype(ct, copy=False)))


def eigvals(x: Array, /) -> Array:
    """Eigenvalues of a general square matrix (always complex)."""
    a = _float_matrix(x, "eigvals", square=True)
    return _wrap(_nonfinite_nan(np.linalg.eigvals, a).astype(_complex_of(a.dtype), copy=False))


def inv(x: Array, /) -> Array:
    """Inverse of a (stack of) square matrix; LinAlgError if singular."""
    return _wrap(_nonfinite_nan(np.linalg.inv, _float_matrix(x, "inv", square=True)))


_MATRIX_ORDS = ("fro", "nuc", 1, 2, -1, -2, np.inf, -np.inf)


def matrix_norm(
    x: Array, /, *, keepdims: bool = False, ord: int | float | Literal["fro", "nuc"] | None = "fro"
) -> Array:  # noqa: A002
    """Matrix norm over the last two axes (Frobenius by default)."""
    a = _float_matrix(x, "matrix_norm")
    keepdims = as_bool(keepdims, "keepdims", "linalg.matrix_norm")
    if isinstance(ord, bool) or ord not in _MATRIX_ORDS:  # True == 1, but is not an order
        raise ValueError(f"linalg.matrix_norm: ord must be one of {_MATRIX_ORDS}, got {ord!r}")
    if ord in ("nuc", 2, -2):  # singular values: LAPACK (see the module docstring)
        r = _nonfinite_nan(np.linalg.matrix_norm, a, ord=ord)
        if keepdims:
            r = np.asarray(r)[..., None, None]
        return _wrap(r)
    with np.errstate(over="ignore", invalid="ignore"):  # |inf + 0j|**2 warns inside NumPy
        return _wrap(np.linalg.matrix_norm(a, keepdims=keepdims, ord=ord))


def matrix_power(x: Array, n: int, /) -> Array:
    """x raised to an integer power by repeated squaring through the matmul core."""
    x = check_array(x, func="linalg.matrix_power")
    check_kind(x, "iufc", "linalg.matrix_power", "numeric")
    n = as_int(n, "n", "linalg.matrix_power")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"linalg.matrix_power: x must be (a stack of) square matrices, got shape {x.shape}"
        )
    if n == 0:
        # a copy: the broadcast view is read-only (and for one matrix already contiguous)
        return _wrap(np.array(np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype.np), x.shape)))
    base = inv(x) if n < 0 else x
    n = abs(n)
    result: Array | None = None
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    assert result is not None  # n >= 1: its highest set bit assigned `result`
    if result is x:
        result = x.to_row_major()  # a new array, never the input itself
    return result


def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Number of singular values above rtol * largest (per matrix in a stack)."""
    a = _float_matrix(x, "matrix_rank")
    if a.size and not np.isfinite(a).all():
        raise ValueError(
            "linalg.matrix_rank: x holds a NaN or an infinity; the rank of such "
            "a matrix is undefined (an integer result cannot be NaN)"
        )
    r = rtol._np if isinstance(rtol, ArrayBase) else rtol
    return _wrap(np.asarray(np.linalg.matrix_rank(a, rtol=r), dtype=np.int64))


def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two vectors: out[i, j] = x1[i] * x2[j]."""
    x1 = check_array(x1, "x1", func="linalg.outer")
    x2 = check_array(x2, "x2", func="linalg.outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"linalg.outer: inputs must be 1-d, got shapes {x1.shape} and {x2.shape}")
    check_kind(x1, "iufc", "linalg.outer", "numeric", "x1")
    check_kind(x2, "iufc", "linalg.outer", "numeric", "x2")
    dt = _dtypes.promote(x1.dtype, x2.dtype).np
    # Not the K = 1 contraction x1[:, None] @ x2[None, :]: a matmul accumulates from +0, so
    # 0 * -1 would come out +0 instead of the exact product -0. NumPy's broadcasting multiply
    # on the two zero-copy views computes each product exactly once.
    with np.errstate(over="ignore", invalid="ignore"):
        return _wrap(
            np.multiply.outer(x1._np.astype(dt, copy=False), x2._np.astype(dt, copy=False))
        )


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Moore-Penrose pseudo-inverse (singular values below rtol * largest are dropped)."""
    a = _float_matrix(x, "pinv")
    if rtol is None:
        # The standard's default: machine epsilon times max(M, N).
        rtol = np.finfo(a.dtype).eps * max(a.shape[-2:])
    r = rtol._np if isinstance(rtol, ArrayBase) else rtol
    return _wrap(_nonfinite_nan(np.linalg.pinv, a, rtol=r).astype(a.dtype, copy=False))


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """QR factorization (reduced or complete)."""
    a = _float_matrix(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = np.linalg.qr(a, mode=mode)
    return QRResult(_wrap(q), _wrap(r))


def slogdet(x: Array, /) -> SlogdetResult:
    """Sign and log of the absolute determinant (stable for large/small determinants)."""
    s, ld = _nonfinite_nan(np.linalg.slogdet, _float_matrix(x, "slogdet", square=True))
    return SlogdetResult(_wrap(s), _wrap(ld))


def _check_solve_shapes(s1: tuple, s2: tuple) -> None:
    """ValueError naming both shapes unless x2 is (M,) or (..., M, K) for x1 of (..., M, M),
    with batch axes that broadcast (NumPy's own message names its internal gufunc)."""
    m = s1[-1]
    why = None
    if len(s2) == 0:
        why = "x2 must have rank >= 1"
    elif len(s2) == 1:
        if s2[0] != m:
            why = f"a 1-d x2 (one vector) must have length {m}"
    elif s2[-2] != m:
        why = f"x2 (a stack of matrices when not 1-d) must have {m} rows, its axis -2"
    else:
        try:
            np.broadcast_shapes(s1[:-2], s2[:-2])
        except ValueError:
            why = f"the batch shapes {s1[:-2]} and {s2[:-2]} do not broadcast"
    if why is not None:
        raise ValueError(
            f"linalg.solve: x2 of shape {s2} does not fit x1 of shape {s1}: {why} "
            f"(x2 is (M,) or (..., M, K) for x1 of (..., M, M))"
        )


def solve(x1: Array, x2: Array, /) -> Array:
    """Solve x1 @ out = x2; x2 is a vector only when it is 1-d (NumPy 2 rule, as the spec)."""
    a = _float_matrix(x1, "solve", square=True, arg="x1")
    x2 = check_array(x2, "x2", func="linalg.solve")
    check_kind(x2, "fc", "linalg.solve", "floating-point", "x2")
    _check_solve_shapes(x1.shape, x2.shape)
    dt = _dtypes.promote(x1.dtype, x2.dtype).np
    a, b = a.astype(dt, copy=False), x2._np.astype(dt, copy=False)
    bad = _bad_matrices(a)
    if bad is None:
        return _wrap(np.linalg.solve(a, b))
    # As _nonfinite_nan, with the mask broadcast over the batch x1 and x2 share.
    clean = a.copy()
    clean[bad] = np.eye(a.shape[-1], dtype=dt)
    out = np.linalg.solve(clean, b)
    out[np.broadcast_to(bad, out.shape[:-1] if b.ndim == 1 else out.shape[:-2])] = np.nan
    return _wrap(out)


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition x = U @ diag(S) @ Vh."""
    full = as_bool(full_matrices, "full_matrices", "linalg.svd")
    u, s, vh = _nonfinite_nan(np.linalg.svd, _float_matrix(x, "svd"), full_matrices=full)
    return SVDResult(_wrap(u), _wrap(s), _wrap(vh))


def svdvals(x: Array, /) -> Array:
    """Singular values, descending."""
    return _wrap(_nonfinite_nan(np.linalg.svd, _float_matrix(x, "svdvals"), compute_uv=False))


def trace(x: Array, /, *, offset: int = 0, dtype: DType | None = None) -> Array:
    """Sum along the offset diagonal of the last two axes."""
    x = check_array(x, func="linalg.trace")
    check_kind(x, "iufc", "linalg.trace", "numeric")
    d = _diagonal(x, offset, "linalg.trace")
    dt = sum_dtype(x, dtype, "linalg.trace")
    return _wrap(np.sum(d._np, axis=-1, dtype=dt.np))


def vector_norm(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,
) -> Array:  # noqa: A002
    """Vector p-norm over the given axes (all axes, flattened, when axis is None)."""
    x = check_array(x, func="linalg.vector_norm")
    check_kind(x, "fc", "linalg.vector_norm", "floating-point")
    axes = reduce_axes(axis, x.ndim, "linalg.vector_norm")
    keepdims = as_bool(keepdims, "keepdims", "linalg.vector_norm")
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise TypeError(
            f"linalg.vector_norm: ord must be an int or a float, got "
            f"{type(ord).__name__} {ord!r:.40}"
        )
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # NumPy's stubs allow axis=None only with keepdims=False; NumPy itself takes both.
        out = np.linalg.vector_norm(
            x._np,
            axis=axes,  # type: ignore[arg-type]
            keepdims=keepdims,
            ord=ord,
        )
    real = np.float32 if x.dtype.np in (np.float32, np.complex64) else np.float64
    return _wrap(np.asarray(out, dtype=real))


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
