"""Descriptor fuzzing strategies: random strided descriptors over one base buffer.

    from fuzz_strategies import descriptors, bad_descriptors, operands, matmul_cases, ...

* `descriptors(...)`      a `Fuzzed` pair: an Array made by the private constructor `_make` over a
                          C-contiguous base buffer, and the equal NumPy array made by
                          `as_strided` on the same buffer (byte strides = element strides *
                          itemsize, offset by the origin). Ranks 0-5, extents 0 and 1, signed
                          strides with zeros and overlaps, wild strides on extent-1 axes, random
                          origins; always inside the buffer.
* `bad_descriptors(...)`  (base, dtype, shape, strides, origin) reaching outside the buffer.
* `operands(...)`         any of: a fuzzed descriptor, a `broadcast_to` of one, a chain of views
                          from tests/strategies.py `views()`.
* `view_chain(...)`       random views applied to an (Array, ndarray) pair in lockstep.
* `matmul_cases(...)`     two operands of matmul-compatible shapes (every role, broadcast batch
                          dims, K = 0, 0-size batches) over fuzzed descriptors, dtype pairs.
* `huge_matmul_cases(...)` matmul operands made by `broadcast_to` with extents up to 2**62 (zero
                          strides, no memory behind them): empty products, products whose flop
                          count exceeds int64, outputs whose size exceeds int64.
* `addresses(...)`        element offsets of every logical element, from our descriptor and
                          from NumPy's, to compare views address by address.

Values: `kind` "small" (|v| <= 4; floats non-integral, 0.25 <= |v| <= 2), "full" (integers
over their whole range: exercises wraparound), "edge" (small integers with a few at the edges
of the 32-bit and the dtype's range), "special" (floats as "small" plus NaN and +-inf;
complex NaN only), "nan" (NaN only). Special buffers have no zeros, because BLAS may skip a zero
times inf, which IEEE says is NaN: the bad-input table covers that, this suite does not.
"""

from __future__ import annotations

from math import prod
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st
from strategies import ALL_DTYPES as DTYPES
from strategies import basic_indices, numpy_promote, views

import stridedarray as sa
from stridedarray._array.array import Array
from stridedarray._base.construct import _make, _Storage
from stridedarray._base.dtypes import DType

NUMERIC = tuple(d for d in DTYPES if d.kind != "b")
EDGES = (
    0,
    1,
    -1,
    2**31 - 1,
    -(2**31),
    2**31,
    -(2**31) - 1,
    2**32 - 1,
    2**32,
    127,
    -128,
    255,
    2**15,
    -(2**15) - 1,
    2**16 - 1,
)
BLAS_DTYPES = tuple(d for d in DTYPES if d.kind in "fc")
# Strides an extent-1 axis may carry: it never moves, so any value is legal (also beyond int32).
# Beyond int64 too: repeated x[::2] of a length-1 axis doubles its stride without bound.
WILD_STRIDES = (
    0,
    1,
    -1,
    7,
    -7,
    1000,
    -1000,
    2**31 + 1,
    -(2**31) - 1,
    2**40,
    -(2**40),
    2**63 - 1,
    -(2**63),
    2**70,
    -(2**70),
)


class Fuzzed(NamedTuple):
    """An Array `x` and the NumPy array `ref` over the same `base` buffer (same values,
    same element addresses). `desc` is (shape, strides, origin, nbuf) for failure reports."""

    x: Array
    ref: np.ndarray
    base: np.ndarray
    desc: tuple


def values(dtype: DType, n: int, seed: int, kind: str = "small") -> np.ndarray:
    """A 1-D C-contiguous buffer of n elements of `dtype` (see the module doc for `kind`)."""
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype.np)
        lo, hi = (
            (int(info.min), int(info.max))
            if kind == "full"
            else (max(int(info.min), -4), min(int(info.max), 4))
        )
        v = rng.integers(lo, hi, n, dtype=dtype.np, endpoint=True)
        if kind == "edge" and n:
            # small values with a few at the edges of the 32-bit range (the generic kernel
            # multiplies 64-bit integers 32 x 32 -> 64 only when every element fits) and of
            # the dtype's own range
            edges = [
                e
                for e in EDGES
                + (int(info.min), int(info.max), int(info.min) + 1, int(info.max) - 1)
                if info.min <= e <= info.max
            ]
            pick = rng.integers(0, n, rng.integers(1, max(2, n // 4), endpoint=True))
            v[pick] = rng.choice(np.array(edges, dtype=dtype.np), len(pick))
        return v
    v = rng.uniform(0.25, 2.0, n) * rng.choice([-1.0, 1.0], n)
    if dtype.kind == "c":
        v = v + 1j * rng.uniform(0.25, 2.0, n) * rng.choice([-1.0, 1.0], n)
    if kind in ("special", "nan") and n:
        pick = rng.integers(0, n, max(1, n // 8))
        # complex: NaN only (in the real part). C99 Annex G leaves complex products with
        # infinities to the implementation, and NumPy itself differs by layout: its BLAS dot of
        # two (-inf+0j) vectors is nan+nanj, its strided loop inf+nanj.
        nan_only = dtype.kind == "c" or kind == "nan"
        v[pick] = rng.choice([np.nan] if nan_only else [np.nan, np.inf, -np.inf], len(pick))
    return v.astype(dtype.np)


def offset_span(shape: tuple, strides: tuple) -> tuple[int, int]:
    """Lowest and highest element offset relative to the origin (0, 0 for an empty shape)."""
    lo = hi = 0
    if 0 in shape:
        return 0, 0
    for n, s in zip(shape, strides, strict=True):
        d = (n - 1) * s
        lo, hi = (lo + d, hi) if d < 0 else (lo, hi + d)
    return lo, hi


def numpy_view(base: np.ndarray, shape: tuple, strides: tuple, origin: int) -> np.ndarray:
    """The NumPy array a descriptor means: as_strided on base, offset by origin."""
    its = base.itemsize
    flat = base.reshape(-1)  # C-contiguous, so a view (a views() base may have any shape)
    start = flat[min(origin, flat.size) :]
    # an extent-1 axis never moves: NumPy gets stride 0 there (its strides are int64)
    return np.lib.stride_tricks.as_strided(
        start,
        shape=shape,
        strides=tuple(s * its if n != 1 else 0 for n, s in zip(shape, strides, strict=True)),
        writeable=True,
    )


@st.composite
def strides_for(draw, shape: tuple, max_abs: int = 6, mode: str | None = None) -> tuple:
    """Signed element strides for `shape`: a dense layout (any axis order, signs, padding,
    step two), a BLAS-friendly one (row-major batch, C or F matrix, padded leading dimension)
    or fully random (zeros and overlaps included); wild values on extent-1 axes."""
    nd = len(shape)
    if mode is None:
        mode = draw(st.sampled_from(["dense", "random", "blas"]))
    if mode == "blas":
        # row-major batch, the last two axes C or F ordered, a padded leading dimension: what
        # direct BLAS (and its one-call strided batch) can take as it is
        order = list(range(nd))
        if nd >= 2 and draw(st.booleans()):
            order[-2:] = order[-1], order[-2]
        out = [0] * nd
        step = 1
        for i, ax in enumerate(reversed(order)):
            out[ax] = step
            step *= shape[ax] + (draw(st.integers(0, 2)) if i == 0 else 0)
    elif mode == "dense":
        order = draw(st.permutations(range(nd)))
        out = [0] * nd
        step = draw(st.sampled_from([1, 1, 1, 2]))
        for ax in reversed(order):
            out[ax] = step * draw(st.sampled_from([1, 1, -1]))
            step *= shape[ax] + draw(st.sampled_from([0, 0, 0, 1, 2]))
    else:  # "random"; "overlap" keeps strides within +-1, so elements alias most of the time
        lim = 1 if mode == "overlap" else max_abs
        out = [draw(st.integers(-lim, lim)) for _ in range(nd)]
    for k in range(nd):
        if shape[k] == 1 and draw(st.integers(0, 3)) == 0:
            out[k] = draw(st.sampled_from(WILD_STRIDES))
    return tuple(out)


def _extents(max_side: int, min_side: int = 0) -> st.SearchStrategy:
    # Per axis: 0 about 1 time in 16 (at rank 5 a quarter of the shapes are still empty), 1
    # about 1 in 5, else 2..max_side. The first choice is the one hypothesis favours: 2.
    table = [2] + [n for n in range(min_side, max_side + 1) if n >= 2] * 3 + [1] * 4 + [0]
    return st.sampled_from([n for n in table if n >= min_side])


@st.composite
def fuzz_shapes(
    draw,
    min_rank: int = 0,
    max_rank: int = 5,
    max_side: int = 4,
    max_size: int = 600,
    min_side: int = 0,
) -> tuple:
    """A shape of rank min_rank..max_rank whose element count stays below max_size."""
    # the rank drawn first (a list strategy favours short lists: rank 0 was over a quarter of
    # the draws); hypothesis favours the first choice, so that is a middle rank
    ranks = sorted(range(min_rank, max_rank + 1), key=lambda r: abs(r - 2.4))
    rank = draw(st.sampled_from(ranks))
    shape = tuple(draw(_extents(max_side, min_side)) for _ in range(rank))
    if rank and draw(st.integers(0, 7)) == 5:
        # now and then a long last axis: the copy loops' vectorized runs (8-64 lanes)
        shape = shape[:-1] + (draw(st.integers(5, 70)),)
    size = 1
    out = []
    for n in shape:  # clip, keeping the rank, so the product stays bounded
        n = min(n, max(max_size // max(size, 1), 1))
        size *= max(n, 1)
        out.append(n)
    return tuple(out)


@st.composite
def descriptors(
    draw,
    dtype: DType | st.SearchStrategy | None = None,
    shape: tuple | None = None,
    kind: str | None = None,
    base: np.ndarray | None = None,
    readonly: bool = False,
    max_rank: int = 5,
    max_side: int = 4,
    layout: str | None = None,
) -> Fuzzed:
    """A valid random descriptor (see the module doc). `base` shares an existing buffer when it
    is large enough for the drawn layout (else a fresh buffer is made); `layout` forces one
    mode of `strides_for` ("dense", "random", "overlap", "blas")."""
    if isinstance(dtype, st.SearchStrategy):
        dtype = draw(dtype)
    dt = dtype if dtype is not None else draw(st.sampled_from(DTYPES))
    shape = draw(fuzz_shapes(max_rank=max_rank, max_side=max_side)) if shape is None else shape
    strides = draw(strides_for(shape, mode=layout))
    lo, hi = offset_span(shape, strides)
    if base is not None and 0 not in shape and hi - lo + 1 > base.size:
        base = None  # the shared buffer is too small for this layout: use a fresh one
    if base is None:
        empty = 0 in shape
        need = 0 if empty else hi - lo + 1
        nbuf = need + draw(st.integers(0, 3))
        if kind is None:
            kind = draw(st.sampled_from(["small", "small", "full", "edge", "special"]))
        base = values(dt, nbuf, draw(st.integers(0, 2**32 - 1)), kind)
        if readonly:
            base.setflags(write=False)
    nbuf = base.size
    if 0 in shape:
        origin = draw(st.integers(0, nbuf))
    else:
        first, last = -lo, nbuf - 1 - hi  # the origins that keep [lo, hi] inside the buffer
        origin = draw(st.integers(first, last))
    x = _make(_Storage(base), dt, shape, strides, origin)
    return Fuzzed(x, numpy_view(base, shape, strides, origin), base, (shape, strides, origin, nbuf))


@st.composite
def bad_descriptors(draw) -> tuple:
    """(base, dtype, shape, strides, origin): a non-empty descriptor with at least one
    reachable element outside the buffer (before its start or past its end), or (one case in
    five) a descriptor with a negative extent somewhere, any origin."""
    dt = draw(st.sampled_from(DTYPES))
    if draw(st.integers(0, 4)) == 0:
        shape = list(draw(fuzz_shapes(min_rank=1, max_rank=5, max_side=4)))
        shape[draw(st.integers(0, len(shape) - 1))] = draw(st.integers(-(2**40), -1))
        strides = tuple(draw(st.integers(-6, 6)) for _ in shape)
        nbuf = draw(st.integers(0, 40))
        return values(dt, nbuf, 0), dt, tuple(shape), strides, draw(st.integers(-2, nbuf + 2))
    shape = draw(fuzz_shapes(max_rank=5, max_side=4, min_side=1))
    strides = draw(strides_for(shape))
    lo, hi = offset_span(shape, strides)
    nbuf = draw(st.integers(0, hi - lo + 4))
    miss = draw(st.integers(1, 2**40 if draw(st.booleans()) else 5))
    if nbuf < hi - lo + 1 and draw(st.booleans()):
        origin = draw(st.integers(min(-lo, nbuf) - 5, max(-lo, nbuf) + 5))  # any origin fails
    elif draw(st.booleans()):
        origin = -lo - miss  # reaches below offset 0
    else:
        origin = nbuf - 1 - hi + miss  # reaches past the end
    return values(dt, nbuf, 0), dt, shape, strides, origin


def addresses(x: Array) -> np.ndarray:
    """Element offset (in the storage) of every logical element, from our descriptor."""
    off = np.full(x.shape, x.origin, dtype=np.int64)
    for k, (n, s) in enumerate(zip(x.shape, x.strides, strict=True)):
        idx = np.arange(n, dtype=np.int64) * (s if n > 1 else 0)
        off = off + idx.reshape((n,) + (1,) * (x.ndim - k - 1))
    return off


def numpy_addresses(ref: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Element offset (in `base`) of every logical element of a NumPy view of `base`."""
    its = base.itemsize
    start = ref.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    off = np.full(ref.shape, start // its, dtype=np.int64)
    for k, (n, s) in enumerate(zip(ref.shape, ref.strides, strict=True)):
        idx = np.arange(n, dtype=np.int64) * (s // its if n > 1 else 0)
        off = off + idx.reshape((n,) + (1,) * (ref.ndim - k - 1))
    return off


@st.composite
def view_chain(
    draw, x: Array, ref: np.ndarray, base: np.ndarray, max_ops: int = 4, broadcast: bool = True
) -> tuple[Array, np.ndarray, tuple]:
    """Random views (basic index, permute_dims, flip, reshape, broadcast_to, mT, expand_dims,
    squeeze) applied to x and ref (a view of `base`) in lockstep; returns both results and the
    operations. A reshape op is ("reshape", shape) when both sides viewed; ("reshape", shape,
    "copy" or "numpy views") when we could not view; ("reshape", shape, "numpy copies", values,
    view) when only we viewed: then `values` is NumPy's (copied) result and `view` ours, for
    the test to compare."""
    ops = []
    kinds = ["index", "permute", "flip", "reshape", "mT", "expand", "squeeze"] + (
        ["broadcast"] if broadcast else []
    )
    for _ in range(draw(st.integers(0, max_ops))):
        kind = draw(st.sampled_from(kinds))
        nd = ref.ndim
        if kind == "index":
            key = draw(basic_indices(ref.shape, allow_none=nd < 5))
            k = key if isinstance(key, tuple) else (key,)
            x, ref = x[key], ref[(*k, Ellipsis) if Ellipsis not in k else k]
        elif kind == "permute":
            key = tuple(draw(st.permutations(range(nd))))
            x, ref = sa.permute_dims(x, key), np.transpose(ref, key)
        elif kind == "flip":
            key = draw(
                st.none()
                | st.lists(st.integers(0, max(nd - 1, 0)), unique=True, max_size=nd).map(tuple)
            )
            x, ref = sa.flip(x, axis=key), (np.flip(ref, axis=key) if nd else ref[...])
        elif kind == "mT" and nd >= 2:
            key = None
            x, ref = x.mT, np.swapaxes(ref, -1, -2)
        elif kind == "reshape":
            key = draw(st.sampled_from(_reshape_targets(ref.shape)))
            try:
                new_ref = ref.reshape(key, copy=False)
            except ValueError:
                new_ref = None  # NumPy needs a copy
            try:
                new_x = sa.reshape(x, key, copy=False)
            except ValueError:
                # we need a copy too (NumPy viewing what we cannot is reported by the test)
                ops.append(("reshape", key, "copy" if new_ref is None else "numpy views"))
                continue
            if new_ref is None:
                # we view what NumPy copies (e.g. across a zero or overlapping stride): the
                # values must still be the reshape's, and the chain goes on from our view
                ops.append(("reshape", key, "numpy copies", ref.reshape(key), new_x))
                new_ref = numpy_view(base, new_x.shape, new_x.strides, new_x.origin)
            x, ref = new_x, new_ref
        elif kind == "expand" and nd < 6:
            key = draw(st.integers(-nd - 1, nd))
            x, ref = sa.expand_dims(x, axis=key), np.expand_dims(ref, key)
        elif kind == "squeeze" and 1 in ref.shape:
            ones = [k for k, n in enumerate(ref.shape) if n == 1]
            key = tuple(draw(st.lists(st.sampled_from(ones), min_size=1, unique=True)))
            x, ref = sa.squeeze(x, axis=key), np.squeeze(ref, axis=key)
        elif kind == "broadcast" and nd < 5:
            lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
            key = lead + tuple(draw(st.integers(0, 3)) if n == 1 else n for n in ref.shape)
            x, ref = sa.broadcast_to(x, key), np.broadcast_to(ref, key)
        else:
            continue
        ops.append((kind, key))
    return x, ref, tuple(ops)


def _reshape_targets(shape: tuple) -> list[tuple]:
    """A few shapes with the same element count: flat, split, merged, extent-1 axes added."""
    size = int(np.prod(shape, dtype=np.int64))
    out = [(size,), shape + (1,), (1,) + shape]
    if len(shape) >= 2:
        out.append(shape[:-2] + (shape[-2] * shape[-1],))
        out.append((shape[0] * shape[1],) + shape[2:])
    for d in (2, 3):
        if size and size % d == 0:
            out.append((d, size // d))
    if size == 0:
        out += [(0,), (0, 2), (3, 0)]
    return [t for t in out if len(t) <= 6]


def broadcast_fuzzed(f: Fuzzed, target: tuple) -> Fuzzed:
    """`broadcast_to(f, target)` on both sides, recorded in the description."""
    return Fuzzed(
        sa.broadcast_to(f.x, target),
        np.broadcast_to(f.ref, target),
        f.base,
        f.desc + (("broadcast_to", target),),
    )


@st.composite
def operands(draw, dtype: DType | None = None, broadcast: bool = True) -> Fuzzed:
    """One of: a fuzzed descriptor, broadcast_to of one, or a strategies.views() chain (then
    `base` is that chain's base buffer)."""
    dt = dtype if dtype is not None else draw(st.sampled_from(DTYPES))
    source = draw(
        st.sampled_from(
            ["desc", "desc", "broadcast", "views"] if broadcast else ["desc", "desc", "views"]
        )
    )
    if source == "views":
        p = draw(views(dt, max_dims=4, max_side=4, broadcast=broadcast))
        return Fuzzed(p.x, p.ref, p.base_np, ("views",) + p.ops)
    f = draw(descriptors(dt, max_rank=4 if source == "broadcast" else 5))
    if source == "desc":
        return f
    lead = tuple(draw(st.lists(st.integers(0, 3), max_size=1)))
    target = lead + tuple(draw(st.integers(0, 3)) if n == 1 else n for n in f.x.shape)
    return broadcast_fuzzed(f, target)


class MatmulCase(NamedTuple):
    """Two operands for `x1 @ x2` (their bases may be one buffer) and the promoted dtype (None
    for a bool operand: matmul must raise TypeError)."""

    a: Fuzzed
    b: Fuzzed
    dtype: DType | None


@st.composite
def reuse_cases(draw) -> MatmulCase:
    """What the pack_blas route is for: a floating operand BLAS cannot read as it is
    (a dense layout with an axis reversed or read with step two) shared by a whole batch of the
    other operand, at sizes either side of the pack crossovers. Sometimes a mixed float pair
    (the shared operand is cast while it is packed), sometimes the shared operand is a vector."""
    d1 = draw(st.sampled_from(BLAS_DTYPES))
    d2 = d1 if draw(st.integers(0, 3)) else draw(st.sampled_from(BLAS_DTYPES))
    m, n, k = (draw(st.integers(1, 12)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(2, 4), min_size=1, max_size=2)))
    shared_lhs = draw(st.booleans())
    vec = draw(st.integers(0, 3)) == 0
    s_shared = ((k,) if vec else (m, k)) if shared_lhs else ((k,) if vec else (k, n))
    s_batched = batch + ((k, n) if shared_lhs else (m, k))
    # (a vector read with step two is fine for BLAS, a reversed one is not)
    odd = draw(st.sampled_from(["flip last"] if vec else ["flip last", "flip first", "step two"]))
    drawn_shape = s_shared[:-1] + (2 * s_shared[-1] - 1,) if odd == "step two" else s_shared
    shared = draw(
        descriptors(d1 if shared_lhs else d2, shape=drawn_shape, kind="small", layout="dense")
    )
    key = {
        "flip last": (..., slice(None, None, -1)),
        "flip first": (slice(None, None, -1),),
        "step two": (..., slice(None, None, 2)),
    }[odd]
    shared = Fuzzed(shared.x[key], shared.ref[key], shared.base, shared.desc + ((odd,),))
    if not vec and draw(st.integers(0, 3)) == 0:
        # the shared matrix under a broadcast batch axis (physical zero strides)
        shared = broadcast_fuzzed(shared, batch[-1:] + s_shared)
    other = draw(
        descriptors(
            d2 if shared_lhs else d1,
            shape=s_batched,
            kind="small",
            layout=draw(st.sampled_from(["blas", "blas", "blas", "dense"])),
        )
    )
    a, b = (shared, other) if shared_lhs else (other, shared)
    return MatmulCase(a, b, numpy_promote(a.x.dtype, b.x.dtype))


@st.composite
def matmul_cases(draw, big: bool = False) -> MatmulCase:
    """Operands of compatible shapes for every role: 1-D/2-D/batched, batch dims that
    broadcast (extent 1 against n, 0-size batches), K = 0; dtype pairs (mostly equal, some
    mixed, rarely bool). `big` allows core extents up to 40 (BLAS crossovers), sometimes one up to
    600 (the generic kernel's blocks)."""
    # half the draws are BLAS dtypes, so the BLAS routes are reached often enough
    d1 = draw(st.sampled_from(NUMERIC) | st.sampled_from(BLAS_DTYPES))
    roll = draw(st.integers(0, 19))
    if roll == 0:
        d1, d2 = draw(st.sampled_from([(sa.bool, d1), (d1, sa.bool)]))
    elif roll < 7:
        # often a mixed-kind pair, which the standard leaves undefined and we promote as NumPy
        d2 = draw(st.sampled_from(NUMERIC))
    else:
        d2 = d1
    # a zero extent in 1 of ~16 draws per dimension (an empty product takes no route)
    side = st.integers(0, 40) if big else st.sampled_from([0] + [1, 2, 3, 4, 5] * 3)
    m, n, k = draw(side), draw(side), draw(side)
    if big and draw(st.booleans()):
        # one long dimension: crosses the generic kernel's K, M and N blocks (KC = 256, MC and
        # NC a few hundred) while the product stays cheap
        which = draw(st.integers(0, 2))
        long = draw(st.integers(41, 600))
        m, n, k = (long if which == i else v for i, v in enumerate((m, n, k)))
    vec1, vec2 = draw(st.integers(0, 4)) == 0, draw(st.integers(0, 4)) == 0
    domain = tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 2, 3, 3]), max_size=1 if big else 3)))

    def batch_of() -> tuple:
        nb = draw(st.integers(0, len(domain)))
        return tuple(e if draw(st.integers(0, 2)) else 1 for e in domain[len(domain) - nb :])

    s1 = (k,) if vec1 else batch_of() + (m, k)
    s2 = (k,) if vec2 else batch_of() + (k, n)
    a = None
    both = draw(st.sampled_from(["small", "full", "special", "edge"]))
    if d1.kind not in "fc" or d2.kind not in "fc":
        both = both if both in ("full", "edge") else "small"
    if both == "special" and draw(st.booleans()):
        both = "small"
    if both == "special" and "c" in (d1.kind, d2.kind):
        both = "nan"  # a real inf cast to complex meets the same Annex G freedom (see values)
    if draw(st.integers(0, 4)) == 0:
        # an lhs from a tests/strategies.py views() chain (its shape decides K and the batch)
        p = draw(views(d1, max_dims=4, max_side=4))
        if p.ref.ndim:
            a = Fuzzed(p.x, p.ref, p.base_np, ("views",) + p.ops)
            s1, k = p.ref.shape, p.ref.shape[-1]
            b1 = s1[:-2]
            s2 = (
                (k,)
                if vec2
                else tuple(
                    draw(st.sampled_from([1, e]))
                    for e in b1[len(b1) - draw(st.integers(0, len(b1))) :]
                )
                + (k, n)
            )
            both = "small"
    if a is None:
        a = draw(descriptors(d1, shape=s1, kind=both))
    s1 = a.ref.shape
    if d1 is d2 and len(s1) >= 2 and s1[-1] == s1[-2] and draw(st.integers(0, 7)) == 3:
        b = a  # x @ x (and x @= x): one square operand on both sides
    elif d1 is d2 and draw(st.integers(0, 3)) == 0:
        # the rhs over the lhs's buffer (aliasing inputs), when it fits
        b = draw(descriptors(d2, shape=s2, base=a.base))
    else:
        b = draw(descriptors(d2, shape=s2, kind=both))
    if draw(st.integers(0, 5)) == 0 and len(s1) >= 2 and (vec2 or len(s1) >= len(s2)):
        # a broadcast_to lhs: physical zero strides on a new leading batch axis (which the
        # rhs, with fewer batch axes, broadcasts against)
        a = broadcast_fuzzed(a, (draw(st.integers(0, 3)),) + s1)
    return MatmulCase(a, b, numpy_promote(d1, d2) if sa.bool not in (d1, d2) else None)


# -- huge zero-stride operands ----------------------------------------------------------------

MAX_BYTES = 2**63 - 1  # the largest array, in bytes (NumPy's limit)


def _nonzero_bytes(shape: tuple, itemsize: int) -> int:
    """The product of the non-zero extents times the item size (NumPy's size rule)."""
    return prod([e for e in shape if e]) * itemsize


class HugeCase(NamedTuple):
    """`x1 @ x2` over broadcast (stride-0) operands with extents up to 2**62. `kind` is what the
    draw aimed at ("empty", "work", "zeros" or "output"); the test derives the outcome from the
    shapes itself. `bases` are the small buffers behind the operands."""

    x1: Array
    x2: Array
    bases: tuple
    dtype: DType
    kind: str


def _huge(low: int = 2**31) -> st.SearchStrategy:
    """An extent only a zero stride can give: `low` .. 2**62, often a round value."""
    round_ = [
        e for e in (2**62, 2**62 - 1, 3 * 2**60, 2**61, 2**48, 2**40, 2**32, 2**31) if e >= low
    ]
    return st.sampled_from(round_) | st.integers(low, 2**62)


def _broadcast_operand(draw, dt: DType, shape: tuple) -> tuple[Array, np.ndarray]:
    """broadcast_to(base, shape) where base has extent 1 on every axis longer than 8 (and on a
    few short ones): small values, zero strides on the broadcast axes; sometimes the last two
    axes are drawn swapped and transposed back (column-major core strides)."""
    swap = len(shape) >= 2 and draw(st.integers(0, 3)) == 0
    if swap:
        shape = shape[:-2] + (shape[-1], shape[-2])
    base_shape = tuple(e if e <= 8 and draw(st.integers(0, 2)) else min(e, 1) for e in shape)
    base = values(dt, prod(base_shape), draw(st.integers(0, 2**32 - 1))).reshape(base_shape)
    x = sa.broadcast_to(sa.asarray(base), shape)
    return (x.mT if swap else x), base


@st.composite
def huge_matmul_cases(draw) -> HugeCase:
    """Broadcast operands with huge extents, for products that must either compute (an empty
    output, or K == 0) or raise the clear error (the flop count or the output's size beyond
    int64). Never a representable but huge product: that would just run for years. Kinds:

    * "empty": an output extent (a batch axis, M or N) is 0, the others and K anything;
    * "work": a small non-empty output and K so large that 2*C*M*N*K (8*... complex) > 2**63 - 1
      while both operands stay representable (when no such K exists: the largest K with M or N
      made 0, "empty", or for two vectors K == 0, "zeros");
    * "output": M and N huge, so the output's size exceeds int64."""
    d1 = draw(st.sampled_from(NUMERIC))
    d2 = d1 if draw(st.integers(0, 3)) else draw(st.sampled_from(NUMERIC))
    dt = numpy_promote(d1, d2)
    kind = draw(st.sampled_from(["empty", "work", "output"]))
    vec1 = kind != "output" and draw(st.integers(0, 3)) == 0
    vec2 = kind != "output" and draw(st.integers(0, 3)) == 0
    if kind == "empty" and vec1 and vec2:
        vec2 = False  # a DOT's output is 0-d, never empty
    small = st.integers(1, 8) if kind == "work" else st.integers(0, 3)
    any_ext = st.sampled_from([0, 1, 2, 3]) | _huge()
    ext = any_ext if kind == "empty" else small
    domain = [draw(ext) for _ in range(draw(st.integers(0, 2)))] if not (vec1 and vec2) else []
    # (an "output" kind's M * N is at least 2**64, so the halving below keeps it too large)
    m = 1 if vec1 else draw(_huge(2**32) if kind == "output" else ext)
    n = 1 if vec2 else draw(_huge(2**32) if kind == "output" else ext)
    k = draw(any_ext if kind == "empty" else small)

    def batch_of() -> list:
        nb = draw(st.integers(0, len(domain)))
        return [e if draw(st.integers(0, 2)) else 1 for e in domain[len(domain) - nb :]]

    bat1 = [] if vec1 else batch_of()
    bat2 = [] if vec2 else batch_of()
    if kind == "empty":  # zero M, N or an output batch axis (in each operand that has it)
        nb = max(len(bat1), len(bat2))
        slot = draw(
            st.sampled_from(
                ["m"] * (not vec1) + ["n"] * (not vec2) + [f"b{i}" for i in range(1, nb + 1)]
            )
        )
        if slot == "m":
            m = 0
        elif slot == "n":
            n = 0
        else:
            for bat in (bat1, bat2):
                if len(bat) >= int(slot[1:]):
                    bat[-int(slot[1:])] = 0
    if kind == "work":
        per = 8 if dt.kind == "c" else 2
        # per * N > lhs itemsize and per * M > rhs itemsize make such a K exist for matrices
        m = m if vec1 else max(m, d2.itemsize // per + 1)
        n = n if vec2 else max(n, d1.itemsize // per + 1)
        c = prod(np.broadcast_shapes(tuple(bat1), tuple(bat2)))
        lo = -(-(2**63) // (per * c * m * n))  # the least K with per*C*M*N*K > 2**63 - 1
        hi = min(
            2**62,
            MAX_BYTES // (d1.itemsize * prod(bat1) * m),
            MAX_BYTES // (d2.itemsize * prod(bat2) * n),
        )
        if lo <= hi:
            k = draw(st.sampled_from([lo, hi]) | st.integers(lo, hi))
        elif not (vec1 and vec2):  # (a vector of a wide dtype is too long first): empty it
            k, kind = hi, "empty"
            m, n = (0, n) if not vec1 else (m, 0)
        else:
            k, kind = 0, "zeros"

    def shapes() -> tuple[tuple, tuple]:
        return (
            tuple(bat1) + (() if vec1 else (m,)) + (k,),
            tuple(bat2) + (k,) + (() if vec2 else (n,)),
        )

    # Halve the largest extents until both operands are representable (they share K and the
    # batch axes, so the shapes are rebuilt from the shared values each time).
    while True:
        s1, s2 = shapes()
        over = [s for s, d in ((s1, d1), (s2, d2)) if _nonzero_bytes(s, d.itemsize) > MAX_BYTES]
        if not over:
            break
        big = max(over[0])
        if k == big:
            k //= 2
        elif m == big:
            m //= 2
        elif n == big:
            n //= 2
        for bat in (bat1, bat2):
            for i, e in enumerate(bat):
                if e == big:
                    bat[i] = e // 2
    x1, base1 = _broadcast_operand(draw, d1, s1)
    x2, base2 = _broadcast_operand(draw, d2, s2)
    return HugeCase(x1, x2, (base1, base2), dt, kind)
