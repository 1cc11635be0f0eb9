"""einsum and einsum_explain: contractions planned pairwise on the matmul core, over views.

The planner records a program once per layout (`_program`: `_Run` records views, sums,
copies, casts and products over registers, on symbolic arrays that hold only shape, strides
and origin); `_replay` runs it on the operands. `einsum` replays it; `einsum_explain` replays
it with every arithmetic step replaced by an uninitialised array of the shape the step gives
and each product by the matmul core's `matmul_explain`, so the report describes exactly the
calls einsum makes, and computes nothing.

How an einsum runs (docs/matmul.md, "Contractions"):

1. Each operand on its own, by views only: a repeated label is a diagonal (one axis whose
   stride is the sum of the repeated axes' strides); an axis of extent 1 is dropped (it
   broadcasts, and the output's view puts it back where the output has it). A label no other
   operand and not the output has is summed away at once (NumPy's sum on the view, the one
   reduction that is not a product).
2. The order of pairwise contractions comes from `_matmul.contraction_path` (optimal for up to
   eight operands, greedy beyond).
3. Each pair is ONE call of the matmul core: the labels both operands have and the result keeps
   are batch axes, the labels only one has are its free axes, the labels both have and the
   result drops are contracted. The free axes merge into M (and N), the contracted ones into K,
   each in the operand's own memory order, as strided views: no transposition is copied. The
   core then reads the views as they are (the generic kernel, or BLAS where the layout allows)
   or packs an operand once where it is reused across the batch. Free axes that do not merge
   with the rest become batch axes of extent 1 in the other operand (broadcast: that operand
   is reused). When no joint order makes the contracted axes one strided run in both, K may
   be two strided axes (an outer and an inner group of labels, each one run in both: the
   core's split-K product, which its generic kernel reads in place), or an operand is copied
   (NumPy's copy, in the joint order whose copies cost least); `_copy_plan` weighs the two.
   A pair with nothing to contract is an element-wise product (NumPy's multiply, broadcast).
4. The result's axes are permuted (a view) into the output's order.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _wrap
from .._base import dtypes as _dtypes
from .._base import fpe as _fpe
from .._base.construct import ArrayBase
from .._base.descriptor import MAX_AXES as _MAX_AXES
from .._matmul import contraction_path as _cp
from .._matmul.product import matmul, matmul_explain, matmul_ksplit, matmul_ksplit_explain
from ._common import check_array

if TYPE_CHECKING:
    from .._array.array import Array
    from .._base.dtypes import DType

__all__ = ["einsum", "einsum_explain"]  # contract_labels: for tensordot and vecdot


def _run_of(x: _Sym, axes: Sequence[int]) -> tuple[int, int] | None:
    """(extent, stride) of one axis that walks `x`'s `axes` in this order (the first
    outermost), or None when they are not one strided run. Extent-1 axes fit anywhere."""
    ext = math.prod(x.shape[a] for a in axes)
    if ext == 0:
        return 0, 0
    live = [a for a in axes if x.shape[a] != 1]
    if not live:
        return ext, 0
    for a, b in zip(live, live[1:], strict=False):
        if x.strides[a] != x.strides[b] * x.shape[b]:
            return None
    return ext, x.strides[live[-1]]


def _memory_order(x: _Sym, axes: Sequence[int]) -> list[int]:
    """`axes` from the largest stride to the smallest (ties keep their order)."""
    return sorted(axes, key=lambda a: -abs(x.strides[a]))


def _longest_run(x: _Sym, axes: list[int]) -> int:
    """How many of `axes` (from the end) make one strided run: those become M or N; the ones
    before them become batch axes."""
    k = len(axes)
    while k > 0 and _run_of(x, axes[k - 1 :]) is not None:
        k -= 1
    return len(axes) - k


class _Sym:
    """An array as the planner sees it while recording: where its memory comes from (`reg`,
    a register of the program: an operand or a step's result), and its shape, strides and
    origin relative to that register's origin. Nothing here is ever read or written."""

    __slots__ = ("reg", "shape", "strides", "origin")

    def __init__(self, reg: int, shape: tuple, strides: tuple, origin: int) -> None:
        self.reg = reg
        self.shape = shape
        self.strides = strides
        self.origin = origin

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _view(self, shape: tuple, strides: tuple, origin: int) -> _Sym:
        return _Sym(self.reg, tuple(shape), tuple(strides), origin)

    def spec(self) -> tuple[int, tuple, tuple, int]:
        return (self.reg, self.shape, self.strides, self.origin)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast shape of two shapes the planner made compatible (any number of axes:
    NumPy's broadcast_shapes stops at 32)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(y if x == 1 else x for x, y in zip(a, b, strict=True))


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, s = [], 1
    for n in reversed(shape):
        strides.append(s)
        s *= max(n, 1)
    return tuple(reversed(strides))


class _Run:
    """Records one einsum's program: the views and the steps (sums, copies, casts, products)
    over registers. Every step's result is a fresh C-ordered array, so the layout of every
    intermediate, and with it every decision, follows from the operands' shapes and strides
    alone: the program is made once per layout and replayed (`_replay`)."""

    def __init__(self, n_inputs: int, dtype: DType) -> None:
        self.dtype = dtype
        self.ops: list[tuple[Any, ...]] = []
        self.steps: list[dict[str, Any]] = []
        self.n_regs = n_inputs

    def _result(self, shape: tuple[int, ...]) -> _Sym:
        self.n_regs += 1
        return _Sym(self.n_regs - 1, tuple(shape), _c_strides(tuple(shape)), 0)

    def sum_axes(self, x: _Sym, axes: tuple[int, ...], labels: str) -> _Sym:
        shape = tuple(n for k, n in enumerate(x.shape) if k not in axes)
        self.steps.append(
            {
                "op": "sum",
                "labels": labels,
                "summed": "".join(labels[a] for a in axes),
                "shape": x.shape,
                "out_shape": shape,
                "flops": x.size,
            }
        )
        out = self._result(shape)
        self.ops.append(("sum", x.spec(), axes, out.reg))
        return out

    def copy(self, x: _Sym, perm: tuple[int, ...], why: str) -> _Sym:
        shape = tuple(x.shape[p] for p in perm)
        self.steps.append({"op": "copy", "shape": x.shape, "out_shape": shape, "why": why})
        out = self._result(shape)
        self.ops.append(("copy", x.spec(), perm, out.reg))
        return out

    def cast(self, x: _Sym) -> _Sym:
        self.steps.append({"op": "cast", "shape": x.shape, "dtype": self.dtype.name})
        out = self._result(x.shape)
        self.ops.append(("cast", x.spec(), None, out.reg))
        return out

    def matmul(self, a: _Sym, b: _Sym, step: dict[str, Any], k_axes: int = 1) -> _Sym:
        """a [..., M, K] @ b [..., K, N]; with k_axes == 2, K is two axes in both
        ([..., M, K1, K2] and [..., K1, K2, N]: the core's split-K product)."""
        batch = _broadcast(a.shape[: -1 - k_axes], b.shape[: -1 - k_axes])
        out = self._result((*batch, a.shape[-1 - k_axes], b.shape[-1]))
        kind = "matmul" if k_axes == 1 else "matmul_ksplit"
        self.ops.append((kind, a.spec(), b.spec(), out.reg, len(self.steps) - 1))
        return out

    def multiply(self, a: _Sym, b: _Sym, step: dict[str, Any]) -> _Sym:
        shape = _broadcast(a.shape, b.shape)
        step.update(route="multiply", flops=math.prod(shape))
        out = self._result(shape)
        self.ops.append(("multiply", a.spec(), b.spec(), out.reg))
        return out

    def bool_counts(self, x: _Sym) -> _Sym:
        """bool einsum computes in int64 (a count of true products); each step's count goes
        back to 0 or 1, so that a chain of steps cannot wrap around to 0."""
        out = self._result(x.shape)
        self.ops.append(("nonzero", x.spec(), None, out.reg))
        return out


class _Program:
    """What `_Run` recorded: the ops, the steps' facts, the result's view, the plan."""

    __slots__ = ("ops", "steps", "n_regs", "final", "plan", "out", "dtype", "quiet")

    def __init__(self, run: _Run, final: _Sym, plan: _cp.Plan, out: str) -> None:
        self.ops = tuple(run.ops)
        self.steps = run.steps
        self.n_regs = run.n_regs
        self.final = final.spec()
        self.plan = plan
        self.out = out
        self.dtype = run.dtype
        # NumPy's floating-point state matters only to the steps NumPy computes (the matmul
        # core sets no flag NumPy reads)
        self.quiet = any(op[0] in ("multiply", "sum", "cast") for op in self.ops)


def _replay(prog: _Program, operands: Sequence[Array], explain: bool) -> tuple[Array, list]:
    """Run a program on the operands (`explain`: every step's result an uninitialised array,
    each product described by `matmul_explain` instead of computed). Returns the result and,
    when explaining, the steps' facts with each product's route."""
    regs: list[Any] = list(operands) + [None] * (prog.n_regs - len(operands))
    npdt = prog.dtype.np
    steps = [dict(s) for s in prog.steps] if explain else []

    def view(spec: tuple[int, tuple, tuple, int]) -> Array:
        reg, shape, strides, origin = spec
        base = regs[reg]
        if origin == 0 and shape == base.shape and strides == base.strides:
            return base
        return base._view(shape, strides, base.origin + origin)

    token = _fpe.enter() if prog.quiet else None
    try:
        for op in prog.ops:
            kind = op[0]
            if kind in ("matmul", "matmul_ksplit"):
                a, b = view(op[1]), view(op[2])
                split = kind == "matmul_ksplit"
                if explain:
                    e = (matmul_ksplit_explain if split else matmul_explain)(a, b)
                    steps[op[4]].update(
                        route=e["route"],
                        packed=e["packed"],
                        M=e["M"],
                        N=e["N"],
                        K=e["K"],
                        batch_shape=e["batch_shape"],
                        flops=e["flops"],
                        matmul=e,
                    )
                    regs[op[3]] = _wrap(np.empty(e["out_shape"], dtype=npdt))
                else:
                    r = (matmul_ksplit if split else matmul)(a, b)
                    # the program reads every result as C-ordered from origin 0 (matmul
                    # allocates its output so; checked, as the views below rely on it)
                    regs[op[3]] = r if r.origin == 0 and r.is_c_contiguous else r.to_row_major()
                continue
            x = view(op[1])
            if kind == "multiply":
                y = view(op[2])
                out = np.empty(_broadcast(x.shape, y.shape), dtype=npdt)
                if not explain:
                    np.multiply(x._np, y._np, out=out)
            elif kind == "sum":
                shape = tuple(n for k, n in enumerate(x.shape) if k not in op[2])
                out = np.empty(shape, dtype=npdt)
                if not explain:
                    np.add.reduce(x._np, axis=op[2], dtype=npdt, out=out)
            elif kind == "copy":
                out = (
                    np.ascontiguousarray(np.transpose(x._np, op[2]))
                    if not explain
                    else (np.empty(tuple(x.shape[p] for p in op[2]), dtype=npdt))
                )
            elif kind == "cast":
                out = x._np.astype(npdt, order="C") if not explain else np.empty(x.shape, npdt)
            else:  # "nonzero"
                out = np.not_equal(x._np, 0).astype(npdt, order="C")
            regs[op[3]] = _wrap(out)
        reg, shape, strides, origin = prog.final
        if reg < len(operands):  # a view of an operand: a new array object, as NumPy's
            return regs[reg]._view(shape, strides, regs[reg].origin + origin), steps
        return view(prog.final), steps
    finally:
        if token is not None:
            _fpe.leave(token)


def _view(x: _Sym, axes: list[tuple[int, int]]) -> _Sym:
    """A view of x: the given (extent, stride) axes, same origin."""
    return x._view(tuple(e for e, _ in axes), tuple(s for _, s in axes), x.origin)


def contract_pair(
    run: _Run, a: _Sym, la: str, b: _Sym, lb: str, keep: frozenset[str]
) -> tuple[_Sym, str]:
    """Contract a (labels la) with b (labels lb), keeping the labels in `keep`: one matmul
    call over views (or a broadcast multiply when nothing is contracted). Returns the result
    and its labels. Each operand's labels are distinct, and a label both have has one extent
    in both (einsum and tensordot see to it)."""
    sb, sa = set(lb), set(la)
    # a label only one operand has and nothing keeps: summed first (einsum does this before
    # planning; kept here so that the pair step is correct on its own)
    for x_is_a in (True, False):
        x, lx, other = (a, la, sb) if x_is_a else (b, lb, sa)
        drop = tuple(k for k, c in enumerate(lx) if c not in other and c not in keep)
        if drop:
            x = run.sum_axes(x, drop, lx)
            lx = "".join(c for k, c in enumerate(lx) if k not in drop)
            if x_is_a:
                a, la, sa = x, lx, set(lx)
            else:
                b, lb, sb = x, lx, set(lx)
    batch = [c for c in la if c in sb and c in keep]
    con = [c for c in la if c in sb and c not in keep]
    fa = [c for c in la if c not in sb]
    fb = [c for c in lb if c not in sa]
    step: dict[str, Any] = {
        "op": "contract",
        "labels": (la, lb),
        "shapes": (a.shape, b.shape),
        "batch": "".join(batch),
        "contracted": "".join(con),
        "k_split": None,
    }
    ia = {c: k for k, c in enumerate(la)}
    ib = {c: k for k, c in enumerate(lb)}
    # A sum does not care in which direction it runs: a contracted axis the larger operand
    # walks backwards is turned around in both, so that reversed views merge into K.
    big_is_a = a.size >= b.size
    for c in con:
        if (a.strides[ia[c]] if big_is_a else b.strides[ib[c]]) < 0:
            a, b = _flip(a, ia[c]), _flip(b, ib[c])
    bat_a = _memory_order(a, [ia[c] for c in batch])
    batch = [la[k] for k in bat_a]
    if not con:
        # an outer or element-wise product: broadcast the two views against each other
        fa_ax = [ia[c] for c in fa]
        fb_ax = [ib[c] for c in fb]
        va = _view(
            a,
            [(a.shape[k], a.strides[k]) for k in bat_a + fa_ax] + [(1, 0)] * len(fb_ax),
        )
        vb = _view(
            b,
            [(b.shape[ib[c]], b.strides[ib[c]]) for c in batch]
            + [(1, 0)] * len(fa_ax)
            + [(b.shape[k], b.strides[k]) for k in fb_ax],
        )
        run.steps.append(step)
        out = run.multiply(va, vb, step)
        labels = "".join(batch + fa + fb)
        step["out_labels"] = labels
        return out, labels
    # K: the contracted axes as one run in both, in a's memory order or else b's; failing
    # both, the smaller operand is copied so that it follows the other's order
    k_order: list[str] | None = None
    for order in (
        [la[k] for k in _memory_order(a, [ia[c] for c in con])],
        [lb[k] for k in _memory_order(b, [ib[c] for c in con])],
    ):
        if (
            _run_of(a, [ia[c] for c in order]) is not None
            and _run_of(b, [ib[c] for c in order]) is not None
        ):
            k_order = order
            break
    k_split = 0  # > 0: K is two axes, k_order[:k_split] (outer) and k_order[k_split:]
    if k_order is None:
        # No joint order makes the contracted axes one run in both. Either some operand is
        # copied, or K is read as two strided axes (an outer and an inner group of labels,
        # each one run in both operands; the generic kernel reads them in place), or both (an
        # operand whose groups are not runs is copied, and the other read split). Of each
        # operand's memory order, whole or cut in two, take the plan whose copies move the
        # fewest weighted bytes (`_copy_plan`; on a tie, one K axis: BLAS can take it).
        best = None
        for order in (
            [la[k] for k in _memory_order(a, [ia[c] for c in con])],
            [lb[k] for k in _memory_order(b, [ib[c] for c in con])],
        ):
            for cut in range(len(order)):
                pa = _copy_plan(a, la, order, batch, cut)
                pb = _copy_plan(b, lb, order, batch, cut)
                cost = (pa[0] if pa else 0) + (pb[0] if pb else 0)
                if best is None or cost < best[0]:
                    best = (cost, order, cut, pa, pb)
        assert best is not None
        _, k_order, k_split, pa, pb = best
        why = (
            "its contracted axes are not one strided run in the joint order"
            if not k_split
            else f"its contracted axes are not the two strided runs "
            f"{''.join(k_order[:k_split])}|{''.join(k_order[k_split:])}"
        )
        if pa is not None:
            a, la, ia = _copy(run, a, la, pa[1], why)
        if pb is not None:
            b, lb, ib = _copy(run, b, lb, pb[1], why)
        bat_a = [ia[c] for c in batch]
    fa_ord = [la[k] for k in _memory_order(a, [ia[c] for c in fa])]
    fb_ord = [lb[k] for k in _memory_order(b, [ib[c] for c in fb])]
    na = _longest_run(a, [ia[c] for c in fa_ord])
    nb = _longest_run(b, [ib[c] for c in fb_ord])
    fa_pre, fa_run = fa_ord[: len(fa_ord) - na], fa_ord[len(fa_ord) - na :]
    fb_pre, fb_run = fb_ord[: len(fb_ord) - nb], fb_ord[len(fb_ord) - nb :]
    m_axis = _run_of(a, [ia[c] for c in fa_run]) or (1, 0)
    n_axis = _run_of(b, [ib[c] for c in fb_run]) or (1, 0)
    groups = [k_order[:k_split], k_order[k_split:]] if k_split else [k_order]
    ka, kb = _runs(a, ia, groups), _runs(b, ib, groups)
    n_axes = len(batch) + len(fa_pre) + len(fb_pre) + 1 + len(groups)
    if n_axes > _MAX_AXES:
        raise ValueError(
            f"einsum: a pairwise step takes a product of {n_axes} axes ({len(batch)} batch "
            f"axes), and arrays have at most {_MAX_AXES}; reshape some batch axes into one first"
        )
    va = _view(
        a,
        [(a.shape[ia[c]], a.strides[ia[c]]) for c in batch]
        + [(a.shape[ia[c]], a.strides[ia[c]]) for c in fa_pre]
        + [(1, 0)] * len(fb_pre)
        + [m_axis, *ka],
    )
    vb = _view(
        b,
        [(b.shape[ib[c]], b.strides[ib[c]]) for c in batch]
        + [(1, 0)] * len(fa_pre)
        + [(b.shape[ib[c]], b.strides[ib[c]]) for c in fb_pre]
        + [*kb, n_axis],
    )
    if k_split:
        step["k_split"] = tuple("".join(g) for g in groups)
    run.steps.append(step)
    out = run.matmul(va, vb, step, len(groups))
    # (batch, fa_pre, fb_pre, M, N), C-contiguous: split M and N back into their axes
    shape = (
        out.shape[:-2]
        + tuple(a.shape[ia[c]] for c in fa_run)
        + tuple(b.shape[ib[c]] for c in fb_run)
    )
    strides, s = [], 1
    for n in reversed(shape):
        strides.append(s)
        s *= max(n, 1)
    out = out._view(shape, tuple(reversed(strides)), out.origin)
    labels = "".join(batch + fa_pre + fb_pre + fa_run + fb_run)
    step["out_labels"] = labels
    return out, labels


def _runs(x: _Sym, ix: dict[str, int], groups: list[list[str]]) -> list[tuple[int, int]]:
    """(extent, stride) of each group of x's labels, each one run (the plan made them so)."""
    out = []
    for g in groups:
        r = _run_of(x, [ix[c] for c in g])
        assert r is not None
        out.append(r)
    return out


def _flip(x: _Sym, axis: int) -> _Sym:
    """x with `axis` reversed (a view)."""
    n, s = x.shape[axis], x.strides[axis]
    strides = x.strides[:axis] + (-s,) + x.strides[axis + 1 :]
    return x._view(x.shape, strides, x.origin + (n - 1) * s if n else x.origin)


def _copy_plan(
    x: _Sym, lx: str, k_order: list[str], batch: list[str], cut: int = 0
) -> tuple[int, tuple[int, ...]] | None:
    """None when x's contracted axes are one run in `k_order` (with `cut` > 0: when
    k_order[:cut] and k_order[cut:] are one run each); else the cost and the axis
    order of copying x to C order: its batch axes first, then its free axes (in its memory
    order) and the contracted ones (in `k_order`), in whichever block order copies cheaper.
    A copy's cost is x's size weighted by how far apart the source's elements are along the
    copy's innermost axis (1 when the source's own innermost axis stays innermost)."""
    ix = {c: k for k, c in enumerate(lx)}
    con = [ix[c] for c in k_order]
    if cut == 0 and _run_of(x, con) is not None:
        return None
    if cut and _run_of(x, con[:cut]) is not None and _run_of(x, con[cut:]) is not None:
        return None
    bat = [ix[c] for c in batch if c in ix]
    free = _memory_order(x, [k for k, c in enumerate(lx) if c not in k_order and c not in batch])
    best: tuple[int, tuple[int, ...]] | None = None
    for perm in (tuple(bat + free + con), tuple(bat + con + free)):
        live = [k for k in perm if x.shape[k] > 1]
        step = abs(x.strides[live[-1]]) if live else 1
        cost = x.size * (1 if step == 1 else 2 if step <= 64 else 4)
        if best is None or cost < best[0]:
            best = (cost, perm)
    return best


def _copy(
    run: _Run, x: _Sym, lx: str, perm: tuple[int, ...], why: str
) -> tuple[_Sym, str, dict[str, int]]:
    """x copied to C order with its axes in the order `perm`."""
    labels = "".join(lx[p] for p in perm)
    y = run.copy(x, perm, why)
    return y, labels, {c: k for k, c in enumerate(labels)}


def _prepare(
    run: _Run, x: _Sym, dt_in: DType, lab: str, extents: dict[str, int], needed: frozenset[str]
) -> tuple[_Sym, str]:
    """One operand on its own: its diagonals and broadcast axes as views, its own labels
    summed away, its dtype the computation's."""
    axes: list[tuple[int, int]] = []
    labels: list[str] = []
    for n, s, c in zip(x.shape, x.strides, lab, strict=True):
        if c in labels:  # a repeated label: the diagonal walks both axes at once
            k = labels.index(c)
            axes[k] = (n, axes[k][1] + s)
        elif n == 1:
            continue  # broadcasts (or is 1 everywhere): the output's view puts it back
        else:
            axes.append((n, s))
            labels.append(c)
    if len(labels) != len(lab) or axes != list(zip(x.shape, x.strides, strict=True)):
        x = _view(x, axes)
    if dt_in is not run.dtype:
        x = run.cast(x)
    lx = "".join(labels)
    drop = tuple(k for k, c in enumerate(lx) if c not in needed)
    if drop:
        x = run.sum_axes(x, drop, lx)
        lx = "".join(c for k, c in enumerate(lx) if k not in drop)
    return x, lx


def _how(optimize: Any) -> Any:
    """`optimize` as a hashable key: True, "greedy", "optimal", or a path as a tuple."""
    if isinstance(optimize, (list, tuple)):
        try:
            return tuple(p if isinstance(p, str) else tuple(p) for p in optimize)
        except TypeError:
            raise ValueError(
                f"einsum: optimize's path must list pairs of positions (['einsum_path', "
                f"(0, 1), ...]), got {optimize!r}"
            ) from None
    how = {True: True, False: True, "greedy": "greedy", "optimal": "optimal"}.get(optimize)
    if how is None or isinstance(optimize, (int, float)) and not isinstance(optimize, bool):
        raise ValueError(
            f"einsum: optimize must be True, False, 'greedy', 'optimal' or a path "
            f"(['einsum_path', (0, 1), ...]), got {optimize!r}"
        )
    return how


@functools.lru_cache(maxsize=256)
def _program(
    labels: tuple[str, ...],
    out: str,
    layouts: tuple[_Layout, ...],
    dtype: DType,
    how: Any,
) -> _Program:
    """The program for operands of these labels and layouts (shape, strides, dtype), in
    `dtype` (bool: counted in int64): made once per layout, then replayed."""
    extents: dict[str, int] = {}
    for lab, (shape, _, _) in zip(labels, layouts, strict=True):
        for c, n in zip(lab, shape, strict=True):
            if extents.get(c, 1) == 1:
                extents[c] = n
    run = _Run(len(labels), dtype if dtype.kind != "b" else _dtypes.by_name("int64"))
    live: list[tuple[_Sym, str]] = []
    for k, (lab, (shape, strides, dt_in)) in enumerate(zip(labels, layouts, strict=True)):
        others = frozenset(out).union(*(labels[j] for j in range(len(labels)) if j != k))
        live.append(_prepare(run, _Sym(k, shape, strides, 0), dt_in, lab, extents, others))
    if isinstance(how, tuple):
        path = _cp.check_path(how, len(live))
        sets = [frozenset(lab) for _, lab in live]
        plan = _cp.Plan(path, _cp.path_cost(sets, frozenset(out), extents, path), "given")
    else:
        ext_key = tuple(sorted((c, extents[c]) for lab in labels for c in set(lab)))
        plan = _cp.plan(tuple(lab for _, lab in live), out, ext_key, how)
    for i, j in plan.path:
        (a, la), (b, lb) = live[i], live[j]
        rest = [t for k, t in enumerate(live) if k not in (i, j)]
        keep = frozenset(out).union(*(lab for _, lab in rest))
        x, lx = contract_pair(run, a, la, b, lb, keep)
        if dtype.kind == "b":
            x = run.bool_counts(x)
        live = rest + [(x, lx)]
    ((x, lx),) = live
    drop = tuple(k for k, c in enumerate(lx) if c not in out)
    if drop:  # only a single operand gets here with labels to drop: _prepare summed them
        x = run.sum_axes(x, drop, lx)
        lx = "".join(c for k, c in enumerate(lx) if k not in drop)
    # the output's order; an output label no operand still has is an extent-1 broadcast one
    final = [(x.shape[lx.index(c)], x.strides[lx.index(c)]) if c in lx else (1, 0) for c in out]
    return _Program(run, _view(x, final), plan, out)


_Layout = tuple[tuple[int, ...], tuple[int, ...], "DType"]


def _layouts(operands: Sequence[Array]) -> tuple[_Layout, ...]:
    return tuple((x.shape, x.strides, x._dtype) for x in operands)


def _finish(out: Array, dt: DType) -> Array:
    if dt.kind == "b":
        return _wrap(out._np != 0)
    if out._dtype is not dt:
        return _wrap(out._np.astype(dt.np))
    return out


def contract_labels(
    dtype: DType, operands: Sequence[Array], labels: Sequence[str], out: str
) -> Array:
    """The planner for callers that label axes themselves (tensordot, vecdot): each operand's
    labels distinct, a label's extents equal or 1 (broadcast); the result has the labels
    `out`, in that order, in `dtype` (bool: counted in int64)."""
    prog = _program(tuple(labels), out, _layouts(operands), dtype, True)
    res, _ = _replay(prog, operands, False)
    return _finish(res, dtype)


def _einsum_program(text: str, ops: Sequence[Array], dt: DType, optimize: Any) -> _Program:
    labels, out, _ = _cp.parse(text, tuple(x.shape for x in ops))
    return _program(labels, out, _layouts(ops), dt, _how(optimize))


def _operands_of(func: str, subscripts: Any, operands: tuple[Any, ...]) -> tuple[str, list[Any]]:
    if isinstance(subscripts, str):
        return subscripts, list(operands)
    if isinstance(subscripts, (ArrayBase, np.ndarray)):  # NumPy's sublist form
        return _cp.from_sublists((subscripts, *operands))
    raise TypeError(
        f"{func}: subscripts must be a str such as 'ij,jk->ik' (or the sublist form "
        f"{func}(x, [0, 1], y, [1, 2])), got {type(subscripts).__name__}"
    )


def _setup(
    func: str, subscripts: Any, operands: tuple[Any, ...], dtype: Any
) -> tuple[str, list[Array], DType]:
    text, ops = _operands_of(func, subscripts, operands)
    if not ops:
        raise ValueError(f"{func}: at least one operand is needed")
    ops = [check_array(x, f"operands[{k}]", func=func) for k, x in enumerate(ops)]
    if dtype is None:
        dt = ops[0]._dtype
        for x in ops[1:]:
            dt = _dtypes.promote(dt, x._dtype)
    else:
        dt = _dtypes.as_dtype(dtype)
    return text, ops, dt


def einsum(subscripts: Any, /, *operands: Any, dtype: Any = None, optimize: Any = True) -> Array:
    """Einstein summation over the operands, NumPy's grammar, planned on the matmul core.

    Parameters
    ----------
    subscripts : str
        One term of labels (letters ``a-z``, ``A-Z``, at most one ``...``) per operand,
        separated by ``,``, then optionally ``->`` and the output's labels. Without ``->`` the
        output is the broadcast axes (``...``) then every label that appears once, in
        alphabetical order (upper case first), as in NumPy. A label repeated in one term takes
        a diagonal; a label left out of the output is summed over. NumPy's second form,
        ``einsum(x, [0, 1], y, [1, 2], [0, 2])``, is accepted too.
    *operands : Array
        The arrays. An axis of extent 1 broadcasts against the same label's extent elsewhere.
    dtype : dtype, optional
        The dtype to compute and return in; by default the operands' promoted dtype. bool
        operands give bool: a logical OR over the logical ANDs.
    optimize : {True, False, "optimal", "greedy"} or path, optional
        The order of pairwise contractions. True (the default) and False: the cheapest order
        for up to eight operands, the cheapest of three greedy orders beyond (this function
        always contracts pairwise; False is accepted for NumPy's sake). "optimal" and
        "greedy" force one search; a path in NumPy's format (``["einsum_path", (0, 1),
        ...]``, as `numpy.einsum_path` returns) is followed as given.

    Returns
    -------
    Array
        The result. With one operand and nothing summed (a transposition or a diagonal,
        ``einsum("ii->i", a)``), a view of it, as in NumPy; otherwise a new array, possibly a
        strided view of one (its axes in the order the last contraction left them).

    Raises
    ------
    TypeError
        An operand is not an array.
    ValueError
        The subscripts are malformed, do not match the operands' ranks, or give one label
        extents that differ (other than 1); `optimize` is not one of the above.

    See Also
    --------
    einsum_explain : The path, each step's route, packs and FLOPs, without computing.
    tensordot, vecdot, matmul

    Notes
    -----
    An extension beyond the standard, with NumPy's semantics (``numpy.einsum``). Integer
    results wrap around as NumPy's do. The guide's :doc:`/matmul` ("Contractions") describes
    the plan.

    Examples
    --------
    >>> import stridedarray as sa
    >>> a = sa.reshape(sa.arange(6.0), (2, 3))
    >>> sa.einsum("ij,kj->ik", a, a)
    Array([[ 5., 14.],
           [14., 50.]], dtype=float64, shape=(2, 2))
    >>> sa.einsum("ii->i", sa.reshape(sa.arange(9), (3, 3)))  # a view: the diagonal's stride
    Array([0, 4, 8], dtype=int64, shape=(3,), strides=(4,), origin=0)
    """
    text, ops, dt = _setup("einsum", subscripts, operands, dtype)
    prog = _einsum_program(text, ops, dt, optimize)
    out, _ = _replay(prog, ops, False)
    return _finish(out, dt)


class EinsumExplain(Mapping[str, Any]):
    """How an einsum would run: its contraction order and each step's route.

    Returned by `einsum_explain`; not created directly. ``print`` it to read it, index it
    (``e["path"]``) or take ``to_dict()``; it is a read-only mapping.

    The keys: ``subscripts`` (as given), ``output`` (the output's labels; the axes an ellipsis
    covers are Greek letters from alpha on), ``path`` (NumPy's format: a pair of positions per
    step among the operands left, the result appended), ``search`` ("optimal", "greedy",
    "given" or "single"), ``cost`` (the path's cost as opt_einsum counts it: per pair, the
    product of all its labels' extents, twice that when a label is summed away), ``flops``
    (every step's, as the matmul core counts them: two per multiply-add; one per element of a
    sum or an element-wise product), ``dtype``, ``out_shape``, and ``steps``: one dict per
    step, in order, with ``op`` ("contract", "sum", "copy" or "cast"). A contraction names its
    operands' ``labels`` and ``shapes``, the ``batch`` and ``contracted`` labels,
    ``out_labels``, its ``route`` ("multiply" when nothing is contracted, else the matmul
    core's route), ``k_split`` (None, or the outer and inner groups of contracted labels
    when K is read as two strided axes in place of a copy, e.g. ``("lj", "k")``),
    ``packed``, ``M``, ``N``, ``K``, ``batch_shape``, ``flops`` and
    ``matmul`` (the matmul core's whole report, a `MatmulExplain`).

    Examples
    --------
    >>> import stridedarray as sa
    >>> e = sa.einsum_explain("ij,jk,kl->il", sa.ones((8, 500)), sa.ones((500, 500)),
    ...                       sa.ones((500, 2)))
    >>> e["path"], e["search"]
    ([(1, 2), (0, 1)], 'optimal')
    >>> [(s["M"], s["N"], s["K"]) for s in e["steps"]]
    [(500, 2, 500), (8, 2, 500)]
    """

    __slots__ = ("_facts",)

    def __init__(self, facts: dict[str, Any]) -> None:
        self._facts = facts

    def __getitem__(self, key: str) -> Any:
        return self._facts[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._facts)

    def __len__(self) -> int:
        return len(self._facts)

    def to_dict(self) -> dict[str, Any]:
        """Every fact, as a plain dict.

        Returns
        -------
        dict
            The keys the class's docstring lists.

        Examples
        --------
        >>> import stridedarray as sa
        >>> sorted(sa.einsum_explain("ii", sa.ones((3, 3))).to_dict())[:4]
        ['cost', 'dtype', 'flops', 'out_shape']
        """
        return dict(self._facts)

    def __repr__(self) -> str:
        return f"<EinsumExplain {self._facts['subscripts']!r}: {len(self._facts['steps'])} steps>"

    def __str__(self) -> str:
        f = self._facts
        lines = [
            f"einsum {f['subscripts']!r} -> {f['out_shape']} {f['dtype']}",
            f"  path ({f['search']}): {f['path']}   cost {f['cost']:,}   flops {f['flops']:,}",
        ]
        for k, s in enumerate(f["steps"], 1):
            if s["op"] == "contract":
                la, lb = s["labels"]
                line = f"  {k}. {la},{lb}->{s['out_labels']}  {s['shapes'][0]} x {s['shapes'][1]}"
                if s["route"] == "multiply":
                    line += "  multiply (nothing contracted)"
                else:
                    line += (
                        f"  matmul batch {s['batch_shape']} M={s['M']} N={s['N']} K={s['K']}"
                        f"  route {s['route']}"
                    )
                    if s["k_split"]:
                        line += f", K read as two axes {'|'.join(s['k_split'])}"
                    if s["packed"]:
                        line += f", packs {', '.join(s['packed'])}"
                lines.append(line + f"  flops {s['flops']:,}")
            elif s["op"] == "sum":
                lines.append(f"  {k}. sum over {s['summed']!r} of {s['labels']!r} {s['shape']}")
            elif s["op"] == "copy":
                lines.append(f"  {k}. copy {s['shape']}: {s['why']}")
            else:
                lines.append(f"  {k}. cast {s['shape']} to {s['dtype']}")
        return "\n".join(lines)


def einsum_explain(
    subscripts: Any, /, *operands: Any, dtype: Any = None, optimize: Any = True
) -> EinsumExplain:
    """How `einsum` would run: the contraction order, each step's route, packs and FLOPs.

    The plan is einsum's own: each contraction's entry holds the matmul core's
    `matmul_explain` of the views einsum would hand it. Nothing is computed: each step's result
    stands as an uninitialised array of its shape.

    Parameters
    ----------
    subscripts, *operands, dtype, optimize
        As for `einsum`.

    Returns
    -------
    EinsumExplain
        The report: ``print`` it to read it, index it (``e["path"]``) or take
        ``e.to_dict()``. Its docstring lists every key.

    Raises
    ------
    TypeError, ValueError
        As `einsum` would.

    See Also
    --------
    einsum, matmul_explain

    Examples
    --------
    >>> import stridedarray as sa
    >>> a = sa.ones((64, 32, 16))
    >>> e = sa.einsum_explain("ikj,kjl->il", a[:, ::-1], sa.ones((32, 16, 8)))
    >>> e["path"], [s["op"] for s in e["steps"]]
    ([(0, 1)], ['contract'])
    >>> e["steps"][-1]["K"], e["steps"][-1]["k_split"]
    (512, ('k', 'j'))
    """
    text, ops, dt = _setup("einsum_explain", subscripts, operands, dtype)
    prog = _einsum_program(text, ops, dt, optimize)
    out, steps = _replay(prog, ops, True)
    plan, labels = prog.plan, prog.out
    flops = sum(int(s.get("flops", 0)) for s in steps)
    return EinsumExplain(
        {
            "subscripts": text,
            "output": labels,
            "path": list(plan.path),
            "search": plan.kind,
            "cost": plan.cost,
            "flops": flops,
            "dtype": dt.name,
            "out_shape": out.shape,
            "steps": steps,
        }
    )
