"""Matrix multiplication (`matmul`, `@`), planned and executed in one call into the C core.

The Python side is thin on purpose: check the operands, promote the dtypes, work out the output
shape, allocate the output through NumPy's allocator, and make ONE call to `sa_matmul`, which
plans the contraction, selects a backend once (direct BLAS, pack-once BLAS, generic) and runs
the whole batch with the GIL released. `matmul_explain` makes the same call with `plan_only`
set and returns what the planner and selector decided. See docs/matmul.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from math import prod
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import NativeMatmul, _make_c, _matmul_shape
from .._base import dtypes as _dtypes
from .._base.arguments import not_array
from .._base.construct import ArrayBase, array_argument, numpy_operand
from .._base.descriptor import check_size
from .._base.operator_table import doc as operator_doc
from .ffi import ffi, lib
from .policy import DEFAULT_POLICY, _current, current_policy, matmul_policy

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["matmul", "matmul_explain", "matmul_policy"]

_ROLES = ("DOT", "GEVM", "GEMV", "GEMM")
_BACKENDS = ("blas", "pack_blas", "generic", "reference")
_VERDICTS = ("NO", "MAYBE", "YES")
_OUTCOMES = (
    "accepted",
    "declined: layout",
    "declined: below crossover",
    "declined: not reused",
    "declined: physical zero stride",
    "declined: too large",
    "declined: unavailable",
    "declined: empty",
    "declined: nothing to pack",
    "skipped: type",
    "skipped: forced",
    "not tried",
)


def _check_operands(x1: Any, x2: Any) -> Any:
    """TypeError unless both are Arrays of numeric dtypes; the promoted dtype otherwise."""
    for name, x in (("x1", x1), ("x2", x2)):
        if not isinstance(x, ArrayBase):
            raise not_array(x, name, "matmul")
    for name, x in (("x1", x1), ("x2", x2)):
        if x._dtype.kind == "b":
            raise TypeError(f"matmul: {name} has dtype bool; matmul needs a numeric dtype")
    return _dtypes.promote(x1._dtype, x2._dtype)


def _out_shape(s1: tuple, s2: tuple) -> tuple:
    """The Array API output shape of matmul; ValueError naming the shapes on a mismatch.

    The rule is the C path's own (`_arraytype._matmul_shape`, csrc/arraytype/matmul.c); this
    module only words its refusals (`_shape_error`)."""
    r = _matmul_shape(s1, s2)
    if isinstance(r, tuple):
        return r
    raise _shape_error(s1, s2, r)


def _shape_error(s1: tuple, s2: tuple, why: int) -> ValueError:
    """The error for shapes that do not multiply; `why` is `_matmul_shape`'s reason."""
    if why == 1 or why == 2:
        return ValueError(
            f"matmul: {'x1' if why == 1 else 'x2'} is 0-d; both operands must have at least "
            f"one dimension, got shapes {s1} and {s2} (use multiply for 0-d arrays)"
        )
    if why == 3:
        k2 = s2[0] if len(s2) == 1 else s2[-2]
        return ValueError(
            f"matmul: contracted dimensions differ: x1 shape {s1} has {s1[-1]} "
            f"columns, x2 shape {s2} has {k2} rows"
        )
    return ValueError(
        f"matmul: batch shapes {s1[:-2]} (of x1 {s1}) and {s2[:-2]} (of x2 {s2}) do not broadcast"
    )


def _raise(x1: Array, x2: Array, rc: int) -> None:
    """The C core refused: raise the specific Python error."""
    # Python validated shapes and dtypes already, so a code here is out of memory, a size
    # beyond 64 bits, or a broken invariant.
    if rc == lib.SA_MM_ERR_NOMEM:
        # the C core could not allocate an operand pack/cast or the generic kernel's scratch
        # (it freed what it held; see stridedarray._matmul.diagnostics for the counters)
        raise MemoryError(
            f"matmul: out of memory packing operands or kernel scratch for "
            f"{x1._shape} @ {x2._shape}"
        )
    if rc == lib.SA_MM_ERR_OVERFLOW:
        # A ValueError, as for any shape whose size does not fit int64: no machine could run
        # it, so the operands are at fault (docs/reliability.md). Only zero-stride operands
        # get here: the output, a pack, a kernel's scratch or the flop count is too large.
        s1, s2 = x1._shape, x2._shape
        m = s1[-2] if len(s1) > 1 else 1
        n = s2[-1] if len(s2) > 1 else 1
        raise ValueError(
            f"matmul: the product's work size overflows 64-bit arithmetic "
            f"(M={m}, N={n}, K={s1[-1]}) for {s1} @ {s2} "
            f"({x1._dtype.name}, {x2._dtype.name})"
        )
    raise RuntimeError(
        f"matmul: C core error {rc} for shapes {x1._shape} @ {x2._shape} "
        f"({x1._dtype.name}, {x2._dtype.name})"
    )


def _defers(other: Any) -> bool:
    """Whether `x @ other` is left to `other` (NotImplemented): a non-Array operand that
    implements the reflected product or opts out of NumPy's ufuncs (`__array_ufunc__ =
    None`, NEP 13's way to say "my operators handle arrays"), as the other operators do."""
    t = type(other)
    return not isinstance(other, ArrayBase) and (
        getattr(t, "__rmatmul__", None) is not None or getattr(t, "__array_ufunc__", False) is None
    )


def _make_matmul(operator: bool) -> Any:
    """`matmul`, or (operator=True) `Array.__matmul__`: one body, so `x1 @ x2` runs one Python
    frame. The operator returns NotImplemented for a NumPy x2, so NumPy's operator takes it
    and the product reaches Array.__array_ufunc__ (one rule for NumPy operands in both
    orders); the function raises TypeError for it."""

    def matmul(x1: Array, x2: Array, /) -> Array:
        """Matrix product per the Array API: batched, broadcasting, planned in the C core."""
        # What C's NativeMatmul declines (mixed dtypes, other operands, every error): validate,
        # allocate, one call into the C core.
        if (
            operator
            and not isinstance(x2, ArrayBase)
            and (isinstance(x2, np.ndarray | np.generic) or _defers(x2))
        ):
            return NotImplemented
        if not operator and not (isinstance(x1, ArrayBase) and isinstance(x2, ArrayBase)):
            # The function takes NumPy ndarrays (docs/interop.md); the operator leaves them to
            # NumPy's operator (above).
            x1, x2 = array_argument(x1, "x1", "matmul"), array_argument(x2, "x2", "matmul")
        dt = _check_operands(x1, x2)
        s1, s2 = x1._shape, x2._shape
        shape = _out_shape(s1, s2)
        try:
            arr = np.empty(shape, dt.np)
        except ValueError:  # NumPy refuses sizes beyond int64: say which shape, in our words
            check_size(shape, dt.np.itemsize, f"matmul: the output shape of {s1} @ {s2},")
            raise
        rc = lib.sa_matmul_run(
            x1._c, x2._c, dt.code, ffi.from_buffer(arr), prod(shape), _current.get()
        )
        if rc:
            _raise(x1, x2, rc)
        return _make_c(arr, dt)

    return matmul


matmul = _make_matmul(False)
matmul.__qualname__ = "matmul"
matmul.__doc__ = """Matrix product per the Array API: batched, broadcasting, planned in the C core.

The C core plans the whole product before it computes: it reads each operand's role (a dot
product, a vector times matrices, matrices times a vector, matrices times matrices), maps the
broadcast batch axes without expanding them, and picks one route for the whole batch: direct
BLAS, one copy of an operand that the batch reuses followed by BLAS, or its own kernel for any
strides and every numeric dtype. ``x1 @ x2`` is the same call; `matmul_explain` reports the
plan without computing.

Parameters
----------
x1 : Array
    The left operand: a numeric dtype, at least one dimension, any strides. A 1-d `x1` of
    shape ``(K,)`` is a row vector, removed from the result.
x2 : Array
    The right operand, likewise; a 1-d `x2` of shape ``(K,)`` is a column vector. The last axis
    of `x1` and the second-to-last (or only) axis of `x2` have the same length K; the axes
    before the last two (the batch) broadcast against each other.

Returns
-------
Array
    A new C-contiguous array of shape ``(*batch, M, N)``, without M or N for a vector operand
    (two vectors give a 0-d array). Its dtype is the promoted dtype of `x1` and `x2`: the
    standard's table, and for the mixed kinds it leaves open what NumPy does (int8 with
    float32 gives float32). Integer products wrap around modulo 2**bits, as NumPy's do;
    K = 0 gives zeros.

Raises
------
TypeError
    An operand is not a stridedarray Array (a NumPy array, a list or a scalar: convert it with
    `asarray`, or call ``numpy.matmul``), or has dtype bool.
ValueError
    An operand is 0-d, the contracted lengths differ, or the batch shapes do not broadcast.
MemoryError
    The output, or a copy the chosen route makes, cannot be allocated.

See Also
--------
matmul_explain : Which route the product takes and why, without computing it.
matmul_policy : Force a route, or change the crossovers, within a block.
tensordot, vecdot : Contractions computed by the same planned product.

Notes
-----
The guide: :doc:`/matmul` (the routes, the copy made once, reading `matmul_explain`),
:doc:`/tuning` (the crossovers) and :doc:`/benchmarks` (against NumPy).

Examples
--------
>>> import stridedarray as sa
>>> a = sa.reshape(sa.arange(6.0), (2, 3))
>>> sa.matmul(a, sa.ones((3, 2)))
Array([[ 3.,  3.],
       [12., 12.]], dtype=float64, shape=(2, 2))

Views of any strides, broadcast batches, vectors and integers:

>>> shared = sa.ones((1, 64, 64))[..., ::-1]      # reversed columns: a view
>>> (shared @ sa.ones((16, 64, 64))).shape        # the view is reused by 16 products
(16, 64, 64)
>>> sa.ones(3) @ sa.ones(3)
Array(3., dtype=float64, shape=())
>>> sa.asarray([[100]], dtype=sa.int8) @ sa.asarray([[2]], dtype=sa.int8)   # wraps
Array([[-56]], dtype=int8, shape=(1, 1))
>>> sa.matmul(sa.ones(3), sa.ones(4))
Traceback (most recent call last):
    ...
ValueError: matmul: contracted dimensions differ: x1 shape (3,) has 3 columns, ...
"""
matmul_operator = _make_matmul(True)
matmul_operator.__name__ = matmul_operator.__qualname__ = "__matmul__"
matmul_operator.__doc__ = operator_doc("__matmul__")


def rmatmul_operator(x2: Array, x1: Any) -> Any:
    """`x1 @ x2` reached through x2.__rmatmul__: NotImplemented for a non-array x1."""
    if not isinstance(x1, ArrayBase):
        return NotImplemented
    return matmul(x1, x2)


def imatmul_operator(x1: Array, x2: Any) -> Array:
    """`x1 @= x2`: the product written into x1; ValueError if its shape or dtype would change.

    The product is computed into fresh storage first and then copied, because x1 may alias
    either operand (reading it while writing it would corrupt the result)."""
    if isinstance(x2, np.ndarray | np.generic):
        x2 = numpy_operand(x2)  # in place, as the other operators: over a view only we hold
    elif _defers(x2):
        return NotImplemented  # Python then tries x1 @ x2, which x2's __rmatmul__ answers
    if not isinstance(x2, ArrayBase):
        _check_operands(x1, x2)
    if x1.readonly:
        raise ValueError("matmul: x1 @= x2 needs a writable x1; x1 is a view of read-only memory")
    dt = _check_operands(x1, x2)
    shape = _out_shape(x1._shape, x2._shape)
    if shape != x1._shape:
        raise ValueError(
            f"matmul: x1 @= x2 would change x1's shape from {x1._shape} to "
            f"{shape}; in-place matmul needs x2 square (K == N)"
        )
    if dt is not x1._dtype:
        raise ValueError(
            f"matmul: x1 @= x2 would change x1's dtype from {x1._dtype.name} to {dt.name}"
        )
    res = matmul(x1, x2)
    x1._np[...] = res._np  # same shape and dtype, checked above: a plain copy into x1's view
    return x1


class MatmulExplain(Mapping[str, Any]):
    """What the planner and selector decided for one matmul (from the C core itself).

    Returned by `matmul_explain`; not created directly. ``str()`` (and ``print``) gives a
    readable report, ``x[key]`` one fact, ``to_dict()`` all of them. It is a read-only
    mapping: ``key in x``, ``len(x)``, ``keys()``, ``items()``, iteration, and ``==`` with a
    dict of the same facts work as for a dict.

    The keys: ``role`` ("DOT", "GEVM", "GEMV" or "GEMM"), ``dtype`` (of the computation),
    ``lhs_shape``, ``rhs_shape``, ``out_shape``, ``M``, ``N``, ``K``, ``batch_shape``,
    ``route`` (the backend that runs the product: "blas", "pack_blas", "generic" or
    "reference"), ``packed`` and ``cast`` (the operands packed to row-major once, and those
    converted while packing), ``C`` (contractions), ``U_lhs``, ``U_rhs`` (distinct operand
    matrices) and ``R_lhs``, ``R_rhs`` (their reuse, C / U), ``payload_bytes`` and
    ``packed_matrices`` (what packing copies), ``flops`` (exact at any size: the C core counts
    in 128 bits), ``blas_calls``, ``threads`` (the threads the route runs on when called from
    this thread now), ``verdicts``
    (per backend, in dispatch order: its type-stage verdict and its outcome),
    ``mapped_strides``, ``lhs_core_strides``, ``rhs_core_strides``, ``out_core_strides``,
    ``k_split`` (None, or for a contracted dimension read as two strided axes by einsum: its
    ``K1`` and ``K2`` and each operand's (outer, inner) ``lhs_strides`` and ``rhs_strides``),
    ``lhs_reused``, ``rhs_reused``, ``lhs_zero_batch_stride``, ``rhs_zero_batch_stride``,
    and ``policy`` (a forced backend and the thresholds that differed from the defaults
    when the selection ran; empty under the defaults). docs/matmul.md explains each.

    Examples
    --------
    >>> import stridedarray as sa
    >>> e = sa.matmul_explain(sa.ones((2, 3, 4)), sa.ones((4, 5)))
    >>> e["role"], e["M"], e["N"], e["K"], e["batch_shape"], e["out_shape"]
    ('GEMM', 3, 5, 4, (2,), (2, 3, 5))
    >>> [v["backend"] for v in e["verdicts"]]
    ['blas', 'pack_blas', 'generic', 'reference']
    >>> e.to_dict()["flops"] == 2 * 2 * 3 * 5 * 4
    True
    >>> "flops" in e, len(e) == len(e.to_dict()), e == e.to_dict()
    (True, True, True)
    """

    __slots__ = ("_d",)

    def __init__(self, d: dict) -> None:
        self._d = d

    def to_dict(self) -> dict:
        """The facts, selection and ledger as a plain dict (a copy).

        Returns
        -------
        dict
            Every key of the report (see the class docstring); changing it changes nothing
            here.

        Examples
        --------
        >>> import stridedarray as sa
        >>> d = sa.matmul_explain(sa.ones(8), sa.ones(8)).to_dict()
        >>> d["role"], d["K"], d["out_shape"]
        ('DOT', 8, ())
        """
        return dict(self._d)

    def __getitem__(self, key: str) -> Any:
        """One fact of the report by key (KeyError for an unknown key)."""
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        """The keys, in the report's order."""
        return iter(self._d)

    def __len__(self) -> int:
        """The number of facts."""
        return len(self._d)

    def __repr__(self) -> str:
        """The report as ``MatmulExplain({...})``, every key and value."""
        return f"MatmulExplain({self._d!r})"

    def __str__(self) -> str:
        """The report for reading: facts, each backend's verdict, route, ledger, policy."""
        d = self._d
        r = d["mapped_strides"]
        lines = [
            f"matmul {d['lhs_shape']} @ {d['rhs_shape']} -> {d['out_shape']} "
            f"({d['dtype']}): {d['role']}, M={d['M']} N={d['N']} K={d['K']}",
            f"  batch domain {d['batch_shape']}: C={d['C']} contractions, "
            f"U_lhs={d['U_lhs']} (reuse {d['R_lhs']:g}), U_rhs={d['U_rhs']} "
            f"(reuse {d['R_rhs']:g})",
            f"  mapped batch strides: out {r['out']}, lhs {r['lhs']}, rhs {r['rhs']}",
            f"  core strides: lhs (row {d['lhs_core_strides'][0]}, inner "
            f"{d['lhs_core_strides'][1]}), rhs (inner {d['rhs_core_strides'][0]}, column "
            f"{d['rhs_core_strides'][1]})",
            f"  lhs: reused={d['lhs_reused']} physical zero batch stride="
            f"{d['lhs_zero_batch_stride']}; rhs: reused={d['rhs_reused']} physical zero "
            f"batch stride={d['rhs_zero_batch_stride']}",
            "  backends (in order):",
        ]
        if d["k_split"]:
            k = d["k_split"]
            lines.insert(
                4,
                f"  K split: K1={k['K1']} x K2={k['K2']}, lhs strides (outer, inner) "
                f"{k['lhs_strides']}, rhs {k['rhs_strides']}",
            )
        for v in d["verdicts"]:
            lines.append(f"    {v['backend']:<10} type {v['type']:<5} -> {v['outcome']}")
        packed = ", ".join(d["packed"]) or "nothing"
        cast = f" (cast while packing: {', '.join(d['cast'])})" if d["cast"] else ""
        lines.append(
            f"  route: {d['route']}; packed: {packed}{cast}; "
            f"{d['packed_matrices']} matrices, payload {d['payload_bytes']} bytes"
        )
        lines.append(
            f"  ledger: {d['blas_calls']} BLAS calls, {d['flops']:,} FLOPs, "
            f"{d['threads']} thread(s)"
        )
        if d["policy"]:
            changed = ", ".join(f"{k}={v}" for k, v in d["policy"].items())
            lines.append(f"  policy (differs from the defaults): {changed}")
        return "\n".join(lines)


def matmul_explain(x1: Array, x2: Array, /) -> MatmulExplain:
    """How `x1 @ x2` would run: plan facts, each backend's verdict, the route and its ledger.

    The C core plans the product exactly as `matmul` does, under the policy in effect here
    (see `matmul_policy`), and reports its decisions instead of computing: nothing is packed,
    allocated for the output or multiplied.

    Parameters
    ----------
    x1, x2 : Array
        The operands, as for `matmul`: numeric dtypes, at least one dimension each, the
        last axis of `x1` as long as the contracted axis of `x2`, broadcastable batch axes.

    Returns
    -------
    MatmulExplain
        The report: ``print`` it to read it, index it (``e["route"]``) or take
        ``e.to_dict()``. Its docstring lists every key.

    Raises
    ------
    TypeError
        An operand is not an Array, or has dtype bool.
    ValueError
        The shapes do not multiply (a 0-d operand, contracted dimensions that differ, batch
        shapes that do not broadcast), or the output or a dtype-conversion copy would be
        larger than 2**63 - 1 bytes ("work size overflows 64-bit arithmetic").

    See Also
    --------
    matmul : The product itself.
    matmul_policy : Force a backend, or change the crossover thresholds, within a block.

    Notes
    -----
    The operands' dtypes promote as for `matmul`; an operand whose dtype differs from the
    result's is converted while it is copied (``e["cast"]``). The guide's :doc:`/matmul`
    ("Reading matmul_explain") explains every line of the report, with a worked example.

    ``flops`` is exact at any size, a Python int counted in 128 bits by the C core (not
    saturated): a product of more than 2**63 - 1 operations is still described here, while
    `matmul` refuses to run it with a ValueError (docs/reliability.md).

    Examples
    --------
    A reversed view has no BLAS layout: packed once to row-major, it can still use BLAS.

    >>> import stridedarray as sa
    >>> lhs = sa.ones((1, 64, 64))[:, :, ::-1]   # strides (4096, 64, -1)
    >>> rhs = sa.ones((16, 64, 64))
    >>> e = sa.matmul_explain(lhs, rhs)
    >>> e["role"], e["batch_shape"], e["C"], e["U_lhs"]   # the lhs serves all 16 products
    ('GEMM', (16,), 16, 1)

    Forcing a backend switches its crossover thresholds off, so the answers below do not
    depend on the policy table: direct BLAS declines the layout (the generic kernel then
    runs the product), pack-once BLAS packs the lhs once.

    >>> with sa.matmul_policy(force="blas"):
    ...     e = sa.matmul_explain(lhs, rhs)
    >>> e["verdicts"][0]["outcome"], e["route"]
    ('declined: layout', 'generic')
    >>> with sa.matmul_policy(force="pack_blas"):
    ...     e = sa.matmul_explain(lhs, rhs)
    >>> e["route"], e["packed"], e["payload_bytes"], e["blas_calls"]
    ('pack_blas', ('lhs',), 32768, 16)
    >>> with sa.matmul_policy(force="generic"):
    ...     print(sa.matmul_explain(lhs, rhs))  # doctest: +ELLIPSIS
    matmul (1, 64, 64) @ (16, 64, 64) -> (16, 64, 64) (float64): GEMM, M=64 N=64 K=64
    ...
      route: generic; packed: nothing; 0 matrices, payload 0 bytes
      ledger: 0 BLAS calls, 8,388,608 FLOPs, ... thread(s)
    ...
    """
    x1, x2 = array_argument(x1, "x1", "matmul"), array_argument(x2, "x2", "matmul")
    dt = _check_operands(x1, x2)
    shape = _out_shape(x1._shape, x2._shape)
    ex = ffi.new("sa_mm_explain *")
    rc = lib.sa_matmul(x1._c, x2._c, dt.code, ffi.NULL, 0, _current.get(), ex, 1)
    if rc:
        _raise(x1, x2, rc)
    return _report(ex, dt, x1._shape, x2._shape, shape)


def _report(ex: Any, dt: Any, s1: tuple, s2: tuple, shape: tuple) -> MatmulExplain:
    """The MatmulExplain of a filled `sa_mm_explain` record."""
    nb = ex.nbatch
    C, Ul, Ur = ex.C, ex.U_lhs, ex.U_rhs
    packed = tuple(n for n, f in (("lhs", ex.pack_lhs), ("rhs", ex.pack_rhs)) if f)
    cast = tuple(n for n, f in (("lhs", ex.pack_lhs), ("rhs", ex.pack_rhs)) if f == 2)
    d = {
        "role": _ROLES[ex.role],
        "dtype": dt.name,
        "lhs_shape": s1,
        "rhs_shape": s2,
        "out_shape": shape,
        "M": ex.M,
        "N": ex.N,
        "K": ex.K,
        "batch_shape": tuple(ex.batch_shape[0:nb]),
        "route": _BACKENDS[ex.route],
        "packed": packed,
        "cast": cast,
        "C": C,
        "U_lhs": Ul,
        "U_rhs": Ur,
        "R_lhs": C / Ul if Ul else 0.0,
        "R_rhs": C / Ur if Ur else 0.0,
        "payload_bytes": ex.payload_bytes,
        "packed_matrices": ex.packed_matrices,
        "flops": ex.flops_hi << 64 | ex.flops_lo,
        "blas_calls": ex.blas_calls,
        "threads": ex.threads,
        "verdicts": tuple(
            {
                "backend": _BACKENDS[b],
                "type": _VERDICTS[ex.type_verdict[b]],
                "outcome": _OUTCOMES[ex.outcome[b]],
            }
            for b in range(len(_BACKENDS))
        ),
        "mapped_strides": {
            "out": tuple(ex.out_bstrides[0:nb]),
            "lhs": tuple(ex.lhs_bstrides[0:nb]),
            "rhs": tuple(ex.rhs_bstrides[0:nb]),
        },
        "lhs_core_strides": (ex.lhs_row, ex.lhs_inner),
        "rhs_core_strides": (ex.rhs_inner, ex.rhs_col),
        "out_core_strides": (ex.out_row, ex.out_col),
        "k_split": (
            {
                "K1": ex.K // ex.K2,
                "K2": ex.K2,
                "lhs_strides": (ex.lhs_outer, ex.lhs_inner),
                "rhs_strides": (ex.rhs_outer, ex.rhs_inner),
            }
            if ex.K2
            else None
        ),
        "lhs_reused": bool(ex.lhs_reused),
        "rhs_reused": bool(ex.rhs_reused),
        "lhs_zero_batch_stride": bool(ex.lhs_zero_bstride),
        "rhs_zero_batch_stride": bool(ex.rhs_zero_bstride),
        # the policy the selection ran under: a forced backend and thresholds off default
        "policy": {k: v for k, v in current_policy().items() if v != DEFAULT_POLICY.get(k, None)},
    }
    return MatmulExplain(d)


# `x @ y` and `matmul(x, y)` of two Arrays of one numeric dtype run in C (NativeMatmul,
# csrc/arraytype/matmul.c): the array type calls the C core's entry point through its address,
# with the policy struct of the ContextVar `_current` (both handed over by _handover).
# Every other call, and every error, takes the Python functions above, their fallback.
def _policy_address(policy: Any) -> int:
    """The address of a policy's C struct (a cffi `sa_mm_policy *`), for the array type."""
    return int(ffi.cast("uintptr_t", policy))


# (Type checkers call a NativeMatmul with its function's signature: _arraytype.pyi.
# rmatmul_operator and imatmul_operator call `matmul`, so they take the C path too;
# Array's class statement assigns the operators.)
matmul = NativeMatmul(matmul)
matmul_operator = NativeMatmul(matmul_operator)


def matmul_ksplit(x1: Array, x2: Array, /) -> Array:
    """The product over a contracted dimension made of two strided axes (einsum's): `x1` of
    shape ``(*batch, M, K1, K2)`` and `x2` of ``(*batch, K1, K2, N)``, both of one numeric
    dtype; the result is ``(*batch, M, N)``, summed over both K axes, each operand read where it
    lies (the C core's `sa_matmul_ksplit`: the generic kernel, never BLAS). Private: the
    planner checks shapes and dtypes, so a refusal here is a broken invariant or the memory."""
    shape, dt = _ksplit_shape(x1, x2)
    arr = np.empty(shape, dt.np)
    rc = lib.sa_matmul_ksplit(
        x1._c, x2._c, dt.code, ffi.from_buffer(arr), prod(shape), _current.get(), ffi.NULL, 0
    )
    if rc:
        _raise(x1, x2, rc)
    return _make_c(arr, dt)


def matmul_ksplit_explain(x1: Array, x2: Array, /) -> MatmulExplain:
    """`matmul_explain` for `matmul_ksplit`: the plan, computing nothing. Its ``K`` is
    K1 * K2 and ``k_split`` says how the two axes are read."""
    shape, dt = _ksplit_shape(x1, x2)
    ex = ffi.new("sa_mm_explain *")
    rc = lib.sa_matmul_ksplit(x1._c, x2._c, dt.code, ffi.NULL, 0, _current.get(), ex, 1)
    if rc:
        _raise(x1, x2, rc)
    return _report(ex, dt, x1._shape, x2._shape, shape)


def _ksplit_shape(x1: Array, x2: Array) -> tuple[tuple, Any]:
    """The output shape and dtype of `matmul_ksplit` (the C core refuses the rest)."""
    s1, s2 = x1._shape, x2._shape
    if len(s1) < 3 or len(s2) < 3 or s1[-2:] != s2[-3:-1] or x1._dtype is not x2._dtype:
        raise ValueError(
            f"matmul_ksplit: operands {s1} and {s2} ({x1._dtype.name}, {x2._dtype.name}) "
            "are not (*batch, M, K1, K2) and (*batch, K1, K2, N) of one dtype"
        )
    k = s1[-2] * s1[-1]
    return _out_shape(s1[:-2] + (k,), s2[:-3] + (k, s2[-1])), x1._dtype
