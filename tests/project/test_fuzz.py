"""Fuzz suite: random descriptors, differential against NumPy.

Every test is one body run under two budgets: the CI variant (100-250 examples each, 1,150 in
all) and a `@pytest.mark.slow` variant (23,000 in all; `pytest -m slow tests/project/test_fuzz.py`).
The strategies are in tests/fuzz_strategies.py: descriptors made by the private constructor
`_make` over a C-contiguous buffer with ranks 0-5, extents 0 and 1, signed strides with zeros and
overlaps, wild strides on extent-1 axes and random origins; `broadcast_to` views; the view chains
of tests/strategies.py. Every read-only operation is also checked to leave its inputs' bytes
unchanged. Nothing here depends on timing, so the slow suite runs under the sanitizer build too.

Writes through a destination whose own elements alias (zero or overlapping strides): allowed,
as NumPy allows it for `as_strided(..., writeable=True)` views. Which of the values aimed at one
address lands there is order-dependent, so `test_setitem` checks only what is well defined:
nothing outside the destination's address set changes, and every address in it holds one of the
values assigned to it (all of them equal to the scalar when the value is a scalar).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from math import prod
from pathlib import Path

import numpy as np
import pytest
from fuzz_strategies import (
    MAX_BYTES,
    Fuzzed,
    HugeCase,
    addresses,
    bad_descriptors,
    descriptors,
    huge_matmul_cases,
    matmul_cases,
    numpy_addresses,
    offset_span,
    operands,
    reuse_cases,
    view_chain,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES as DTYPES
from strategies import basic_indices, views

import stridedarray as sa
from stridedarray._base.construct import _make, _Storage

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means

_FUZZ = settings(
    deadline=None,
    derandomize=False,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)


def both_budgets(strategy: st.SearchStrategy, ci: int, slow: int) -> Callable:
    """Make a (CI, slow) pair of hypothesis tests from one body taking one drawn case."""

    def make(body: Callable) -> tuple[Callable, Callable]:
        fast = settings(_FUZZ, max_examples=ci)(given(strategy)(body))
        long = pytest.mark.slow(settings(_FUZZ, max_examples=slow)(given(strategy)(body)))
        return fast, long

    return make


def snapshot(*bases: np.ndarray) -> list[bytes]:
    """The bytes of each buffer, to show that an operation did not write its inputs."""
    return [b.tobytes() for b in bases]


def same_values(got: np.ndarray, expected: np.ndarray) -> None:
    """Equal shape, dtype and values (NaN equal to NaN)."""
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# -- descriptors, to_row_major and _pack ------------------------------------------------------


def _pack_targets(f: Fuzzed) -> list:
    """Destination dtypes whose C cast from f's values is defined (C leaves a float to integer
    conversion undefined for negative-to-unsigned, out-of-range and non-finite values)."""
    src = f.x.dtype
    if src.kind not in "fc":
        return list(DTYPES)
    v = np.asarray(f.ref)
    finite = bool(np.isfinite(v).all())
    nonneg = finite and bool((v.real >= 0).all())
    return [d for d in DTYPES if d.kind not in "iu" or (finite and (d.kind == "i" or nonneg))]


def _is_buffer_of(buf: np.ndarray, base: np.ndarray) -> bool:
    """`buf` is `base`, or the view of it that asarray keeps (the same memory, start and
    length): no copy was made."""
    if buf is base:
        return True
    start = buf.__array_interface__["data"][0]
    return start == base.__array_interface__["data"][0] and buf.nbytes == base.nbytes


@st.composite
def _descriptor_cases(draw) -> tuple:
    f = draw(operands())
    return f, draw(st.sampled_from(_pack_targets(f)))


def _check_descriptor(case: tuple) -> None:
    f, dst = case
    x, ref, base = f.x, f.ref, f.base
    before = snapshot(base)
    # the descriptor is in bounds and means what NumPy means
    assert _is_buffer_of(x.buffer, base)
    if x.size:
        lo, hi = offset_span(x.shape, x.strides)
        assert 0 <= x.origin + lo and x.origin + hi < base.size
        assert np.shares_memory(np.asarray(x), base)
    else:
        assert 0 <= x.origin <= base.size
    np.testing.assert_array_equal(addresses(x), numpy_addresses(ref, base))
    same_values(np.asarray(x), ref)
    # rebuilding it through the validating constructor gives the same array
    same_values(np.asarray(x._view(x.shape, x.strides, x.origin)), ref)
    # interop both ways: asarray keeps NumPy's strides (zero-copy), DLPack exports ours
    y = sa.asarray(ref)
    same_values(np.asarray(y), ref)
    np.testing.assert_array_equal(numpy_addresses(np.asarray(y), base), numpy_addresses(ref, base))
    same_values(np.from_dlpack(x), ref)
    # to_row_major: a C-contiguous copy that shares nothing with the input
    out = x.to_row_major()
    got = np.asarray(out)
    same_values(got, np.ascontiguousarray(ref).reshape(ref.shape))
    assert out.is_c_contiguous and out.origin == 0 and got.flags.c_contiguous
    assert not np.shares_memory(got, base)
    # _pack: the same with a cast; equal to NumPy's astype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        expected = np.ascontiguousarray(ref).reshape(ref.shape).astype(dst.np)
        packed = x._pack(dst)
    same_values(np.asarray(packed), expected)
    assert packed.dtype is dst and packed.is_c_contiguous
    assert not np.shares_memory(np.asarray(packed), base)
    assert snapshot(base) == before


test_descriptors, test_descriptors_slow = both_budgets(_descriptor_cases(), 200, 4000)(
    _check_descriptor
)


def _check_bad_descriptor(case: tuple) -> None:
    base, dt, shape, strides, origin = case
    before = snapshot(base)
    why = "negative extent" if any(n < 0 for n in shape) else "out of bounds"
    with pytest.raises(ValueError, match=why):
        _make(_Storage(base), dt, shape, strides, origin)
    if base.size:  # the same descriptor asked of an existing array over the buffer
        x = _make(_Storage(base), dt, (base.size,), (1,), 0)
        with pytest.raises(ValueError, match=why):
            x._view(shape, strides, origin)
    with pytest.raises(ValueError, match="but strides"):  # rank mismatch
        _make(_Storage(base), dt, shape, strides + (1,), origin)
    assert snapshot(base) == before


@pytest.mark.parametrize(
    "shape, strides, origin",
    [
        ((-3,), (-1,), 0),  # reached [0, 4] of 10 elements: was accepted
        ((-1, 4), (0, 1), 2),
        ((4, -2), (1, -1), 5),
        ((2, 0, -1), (1, 1, 1), 0),  # a negative extent after a zero one (the scan stopped there)
        ((0, 3, -5, 1), (0, 0, 0, 0), 0),
    ],
)
def test_negative_extent_is_refused(shape: tuple, strides: tuple, origin: int) -> None:
    """Regression (found by the bad stream): _make accepted a descriptor with a negative
    extent whose span happened to land inside the buffer, and it reached the C core (a dot
    product with K = -3 "succeeded" with -6 FLOPs in its ledger)."""
    base = np.arange(10.0)
    with pytest.raises(ValueError, match="negative extent"):
        _make(_Storage(base), sa.float64, shape, strides, origin)
    with pytest.raises(ValueError, match="negative extent"):
        sa.asarray(base)._view(shape, strides, origin)
    np.testing.assert_array_equal(base, np.arange(10.0))


test_bad_descriptors, test_bad_descriptors_slow = both_budgets(bad_descriptors(), 200, 3000)(
    _check_bad_descriptor
)


# -- matmul and matmul_explain ----------------------------------------------------------------

_POLICIES = (  # the shipped policy, each backend forced, BLAS off, every threshold at 0
    {},
    {},
    {"force": "blas"},
    {"force": "pack_blas"},
    {"force": "pack_blas"},
    {"force": "generic"},
    {"force": "reference"},
    {"blas_enabled": 0},
    {"gemm_blas_min": 0, "gemm_pack_min": 0},
    {
        k: 0
        for k in (
            "dot_blas_min_k",
            "gemm_blas_min",
            "gemm_pack_min",
            "gevm_compact_min_kn",
            "gevm_blas_min",
            "gemv_blas_min",
            "batched_vec_blas_min_elems",
            "vec_pack_always_min_elems",
        )
    },
)
_REUSE_POLICIES = ({}, {"force": "pack_blas"}, {"force": "pack_blas"}, _POLICIES[-1])
_EPS = {"float32": 2.0**-23, "float64": 2.0**-52, "complex64": 2.0**-23, "complex128": 2.0**-52}


def _expected_product(a: np.ndarray, b: np.ndarray, dt) -> np.ndarray:
    """NumPy's product after casting both to the Array API promoted dtype (integers wrap)."""
    with np.errstate(all="ignore"):
        return np.matmul(a.astype(dt.np), b.astype(dt.np))


def _magnitude(v: np.ndarray) -> float:
    """Largest finite |value| (per real part for complex), 1 for none."""
    parts = np.abs(
        np.concatenate(
            [v.real.ravel(), v.imag.ravel()]
            if v.dtype.kind == "c"
            else [v.ravel().astype(np.float64)]
        )
    )
    parts = parts[np.isfinite(parts)]
    return float(parts.max()) if parts.size and parts.max() > 0 else 1.0


def _close(got: np.ndarray, expected: np.ndarray, k: int, dt, scale: float) -> None:
    """Floats: NaN/inf at the same places, finite values within K * eps * scale (scale: the
    largest product of operand magnitudes; values are small, so sums are well conditioned)."""
    assert got.shape == expected.shape and got.dtype == expected.dtype
    parts = (lambda z: (z.real, z.imag)) if dt.kind == "c" else (lambda z: (z,))
    tol = 16 * (k + 1) * _EPS[dt.name]
    for g, e in zip(parts(got), parts(expected), strict=True):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(e))
        np.testing.assert_array_equal(np.where(np.isinf(g), g, 0), np.where(np.isinf(e), e, 0))
        fin = np.isfinite(e)
        np.testing.assert_allclose(g[fin], e[fin], rtol=tol, atol=4 * tol * scale)


def _packed_elements(shape: tuple, strides: tuple, vec: bool) -> tuple[int, int]:
    """(elements, matrices) a pack of this operand copies: a batch axis with a physical zero
    stride is packed once (docs/matmul.md)."""
    core = 1 if vec else 2
    mats = 1
    for n, s in zip(shape[:-core], strides[:-core], strict=True):
        mats *= 1 if (n > 1 and s == 0) else n
    n = mats * prod(shape[-core:])
    return n, (mats if n else 0)


def _check_plan_facts(d: dict, x1: sa.Array, x2: sa.Array, dt, batch: tuple) -> None:
    """Batch domain, mapped and core strides, reuse and zero-stride flags, from the operands'
    own descriptors (docs/matmul.md, "The plan"). Extent-1 axes never move, so their strides
    are not checked; a cast operand is a row-major copy, so its strides are not either."""
    assert d["batch_shape"] == batch
    nb = len(batch)
    mapped = d["mapped_strides"]
    assert all(len(mapped[k]) == nb for k in ("out", "lhs", "rhs"))
    for name, x, vec in (("lhs", x1, x1.ndim == 1), ("rhs", x2, x2.ndim == 1)):
        own = x.shape[:-2] if not vec else ()
        own_st = x.strides[:-2] if not vec else ()
        pad = nb - len(own)
        ext = (1,) * pad + own
        st_ = (0,) * pad + own_st
        if prod(batch):
            reused = any(b > 1 and e == 1 for b, e in zip(batch, ext, strict=True))
            assert d[f"{name}_reused"] == reused, name
        if not x.size:
            continue  # an empty array's strides mean nothing
        # (a cast copy keeps a physical zero batch stride: broadcast_to is not expanded)
        zero = any(e > 1 and s_ == 0 for e, s_ in zip(own, own_st, strict=True))
        assert d[f"{name}_zero_batch_stride"] == zero, name
        if x.dtype is not dt:
            continue  # a cast copy is row-major: its strides are not the operand's
        for j in range(nb):
            if batch[j] > 1:
                assert mapped[name][j] == (st_[j] if ext[j] > 1 else 0), (name, j, mapped)
        core = d[f"{name}_core_strides"]
        if vec:
            inner = core[1] if name == "lhs" else core[0]
            assert x.shape[0] <= 1 or inner == x.strides[0], (name, core)
        else:
            for n, s_, c in zip(x.shape[-2:], x.strides[-2:], core, strict=True):
                assert n <= 1 or c == s_, (name, core)
    if prod(d["out_shape"]):  # the output is a fresh C-contiguous array
        shape = tuple(d["out_shape"])  # C order: each stride is the product of later extents
        out_strides = [prod(shape[j + 1 :]) for j in range(len(shape))]
        for j in range(nb):
            if batch[j] > 1:
                assert mapped["out"][j] == out_strides[j], (j, mapped)


def _check_explain(x1: sa.Array, x2: sa.Array, dt, out_shape: tuple, policy: dict) -> None:
    d = sa.matmul_explain(x1, x2).to_dict()
    s1, s2 = x1.shape, x2.shape
    vec1, vec2 = len(s1) == 1, len(s2) == 1
    role = {
        (True, True): "DOT",
        (True, False): "GEVM",
        (False, True): "GEMV",
        (False, False): "GEMM",
    }[vec1, vec2]
    assert d["role"] == role and d["dtype"] == dt.name
    assert d["out_shape"] == out_shape
    M = 1 if vec1 else s1[-2]
    N = 1 if vec2 else s2[-1]
    K = s1[-1]
    assert (d["M"], d["N"], d["K"]) == (M, N, K)
    batch = out_shape[: len(out_shape) - (not vec1) - (not vec2)]
    C = prod(batch)
    assert d["C"] == C and prod(d["batch_shape"]) == C
    # supplied matrices visited: the operand's own batch extents (none when the domain is empty)
    assert d["U_lhs"] == (prod(s1[:-2]) if C else 0)
    assert d["U_rhs"] == (prod(s2[:-2]) if C else 0)
    assert d["flops"] == (8 if dt.kind == "c" else 2) * C * M * N * K
    _check_plan_facts(d, x1, x2, dt, batch)
    # the route is a known backend, it accepted, and those after it were not tried
    names = [v["backend"] for v in d["verdicts"]]
    assert names == ["blas", "pack_blas", "generic", "reference"]
    route = names.index(d["route"])
    assert d["verdicts"][route]["outcome"] == "accepted"
    assert all(v["outcome"] == "not tried" for v in d["verdicts"][route + 1 :])
    assert all(v["outcome"] != "accepted" for v in d["verdicts"][:route])
    event(
        f"{role} route {d['route']}" + (f" packed {'+'.join(d['packed'])}" if d["packed"] else "")
    )
    if dt.kind in "iu":
        assert d["route"] in ("generic", "reference")
    if d["route"] == "reference":
        assert policy.get("force") == "reference"
    if d["route"] in ("generic", "reference") or not C * M * N * K:
        assert d["blas_calls"] == 0
    else:  # one call per contraction
        assert d["blas_calls"] == C
    # packed payload: each packed operand's elements times the itemsize; 0 when nothing is.
    # An empty product (C, M, N or K zero) reads no operand, so nothing is cast for it.
    cast = set(d["cast"])
    assert cast == (
        {n for n, x in (("lhs", x1), ("rhs", x2)) if x.dtype is not dt} if C * M * N * K else set()
    )
    if d["route"] != "pack_blas":
        assert set(d["packed"]) == cast
    elems = mats = 0
    for name, x, vec in (("lhs", x1, vec1), ("rhs", x2, vec2)):
        if name in d["packed"]:
            n, m = _packed_elements(x.shape, x.strides, vec)
            elems, mats = elems + n, mats + m
    assert d["payload_bytes"] == elems * dt.itemsize, (d["payload_bytes"], elems)
    assert d["packed_matrices"] == mats
    if not d["packed"]:
        assert d["payload_bytes"] == 0 and d["packed_matrices"] == 0


@st.composite
def _matmul_draw(draw) -> tuple:
    if draw(st.integers(0, 3)) == 0:  # aimed at pack_blas, which random layouts rarely reach
        return draw(reuse_cases()), draw(st.sampled_from(_REUSE_POLICIES))
    return draw(matmul_cases(big=draw(st.integers(0, 9)) == 0)), draw(st.sampled_from(_POLICIES))


def _check_matmul(case: tuple) -> None:
    mc, policy = case
    a, b, dt = mc
    before = snapshot(a.base, b.base)
    if dt is None:  # a bool operand: matmul has no bool dtype
        with pytest.raises(TypeError, match="has dtype bool; matmul needs a numeric dtype"):
            a.x @ b.x
        with pytest.raises(TypeError, match="has dtype bool; matmul needs a numeric dtype"):
            sa.matmul_explain(a.x, b.x)
        assert snapshot(a.base, b.base) == before
        return
    expected = _expected_product(np.asarray(a.ref), np.asarray(b.ref), dt)
    with sa.matmul_policy(**policy):
        _check_explain(a.x, b.x, dt, expected.shape, policy)
        assert snapshot(a.base, b.base) == before  # explaining does not touch the inputs
        out = a.x @ b.x
    got = np.asarray(out)
    assert out.dtype is dt and out.is_c_contiguous
    assert not np.shares_memory(got, a.base) and not np.shares_memory(got, b.base)
    if dt.kind in "iu":
        same_values(got, expected)
    else:
        scale = _magnitude(np.asarray(a.ref)) * _magnitude(np.asarray(b.ref))
        _close(got, expected, a.x.shape[-1], dt, scale)
    assert snapshot(a.base, b.base) == before
    if out.shape == a.x.shape and a.x.dtype is dt and a.base.flags.writeable:
        _check_imatmul(a, b, got, policy)


def _check_imatmul(a: Fuzzed, b: Fuzzed, product: np.ndarray, policy: dict) -> None:
    """`x1 @= x2` writes the product (the same bits as `x1 @ x2`) at x1's addresses and
    nothing else, also when x2 shares x1's buffer (the product is made before the write)."""
    addr = addresses(a.x).ravel()
    if len(np.unique(addr)) < addr.size:
        return  # a self-aliasing x1 (see test_setitem for writes through those)
    base = a.base.reshape(-1)
    expected = base.copy()
    expected[addr] = product.ravel()
    x1 = a.x
    with sa.matmul_policy(**policy):
        x1 @= b.x
    assert x1 is a.x
    event("x1 @= x1" if b is a else "x1 @= x2" + (" sharing a buffer" if b.base is a.base else ""))
    np.testing.assert_array_equal(base.view(np.uint8), expected.view(np.uint8))


test_matmul, test_matmul_slow = both_budgets(_matmul_draw(), 250, 6000)(_check_matmul)


# -- matmul over huge zero-stride operands ----------------------------------------------------

_OVERFLOW = "work size overflows 64-bit arithmetic"


@st.composite
def _huge_draw(draw) -> tuple:
    return draw(huge_matmul_cases()), draw(st.sampled_from(_POLICIES))


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two compatible shapes, in Python ints: NumPy's broadcast_shapes raises
    when the result's size passes its intp, which these extents do on purpose."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    assert all(x == y or 1 in (x, y) for x, y in zip(a, b, strict=True)), (a, b)
    return tuple(y if x == 1 else x for x, y in zip(a, b, strict=True))


def _check_huge_matmul(case: tuple) -> None:
    """Extents up to 2**62 behind zero strides: the product computes when there is nothing to
    multiply (an empty output, or K == 0), and otherwise raises the clear ValueError (the
    output's size or the flop count beyond int64), on every route; the explain report gives
    the exact flop count; nothing is written. The outcome is worked out here from the shapes."""
    hc, policy = case
    x1, x2, dt = hc.x1, hc.x2, hc.dtype
    assert isinstance(hc, HugeCase)
    before = snapshot(*hc.bases)
    s1, s2 = x1.shape, x2.shape
    vec1, vec2 = len(s1) == 1, len(s2) == 1
    M, N, K = (1 if vec1 else s1[-2]), (1 if vec2 else s2[-1]), s1[-1]
    batch = _broadcast(s1[:-2], s2[:-2])
    out_shape = batch + (() if vec1 else (M,)) + (() if vec2 else (N,))
    C = prod(batch)
    flops = (8 if dt.kind == "c" else 2) * C * M * N * K
    event(f"huge: {hc.kind}")
    with sa.matmul_policy(**policy):
        if prod([e for e in out_shape if e]) * dt.itemsize > MAX_BYTES:
            event("huge: output too large")
            with pytest.raises(ValueError, match="too large"):
                x1 @ x2
            with pytest.raises(ValueError, match=_OVERFLOW):
                sa.matmul_explain(x1, x2)
            assert snapshot(*hc.bases) == before
            return
        # what explain reports: the cast packs (none for an empty product) and the exact count
        cast = [(x, v) for x, v in ((x1, vec1), (x2, vec2)) if x.dtype is not dt]
        payload = sum(_packed_elements(x.shape, x.strides, v)[0] for x, v in cast) * dt.itemsize
        if C * M * N * K and payload > MAX_BYTES:
            event("huge: cast pack too large")
            with pytest.raises(ValueError, match=_OVERFLOW):
                sa.matmul_explain(x1, x2)
        else:
            d = sa.matmul_explain(x1, x2).to_dict()
            assert (d["M"], d["N"], d["K"], d["C"]) == (M, N, K, C)
            assert d["out_shape"] == out_shape and d["flops"] == flops
            if not C * M * N * K:
                assert d["cast"] == () and d["payload_bytes"] == 0
        if C * M * N == 0 or K == 0:
            event("huge: computes")
            out = x1 @ x2
            assert out.shape == out_shape and out.dtype is dt
            same_values(np.asarray(out), np.zeros(out_shape, dt.np))
        else:
            assert flops > MAX_BYTES, "the strategy drew a representable but huge product"
            event("huge: flops beyond int64")
            with pytest.raises(ValueError, match=_OVERFLOW):
                x1 @ x2
    assert snapshot(*hc.bases) == before


test_huge_matmul, test_huge_matmul_slow = both_budgets(_huge_draw(), 100, 2000)(_check_huge_matmul)


_EMPTY_HUGE_BATCH = """
import stridedarray as sa
x1 = sa.broadcast_to(sa.ones((1, 1, 0, 0), dtype=sa.int8), (4157779869, 2147483648, 0, 0))
x2 = sa.ones((0, 0), dtype=sa.int8)
for force in ("generic", "pack_blas", "reference", None):
    with sa.matmul_policy(force=force):
        assert (x1 @ x2).shape == (4157779869, 2147483648, 0, 0)
print("ok")
"""


def test_an_empty_output_with_a_huge_batch_returns_at_once():
    # M = N = K = 0 under a batch of ~2**63 items: nothing to write, so nothing is looped
    # over (the hypothesis case above found it looping over the batch for ever). In a child
    # with a timeout, so a regression fails the test instead of hanging the suite.
    root = str(Path(sa.__file__).resolve().parent.parent)  # the child imports this checkout
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    )
    r = subprocess.run(
        [sys.executable, "-c", _EMPTY_HUGE_BATCH],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


# -- views ------------------------------------------------------------------------------------


@st.composite
def _view_cases(draw) -> tuple:
    f = draw(operands())
    xv, refv, ops = draw(view_chain(f.x, f.ref, f.base))
    return f, xv, refv, ops


def _check_views(case: tuple) -> None:
    f, xv, refv, ops = case
    before = snapshot(f.base)
    for op in ops:
        if op[0] == "reshape" and len(op) > 2:
            event(f"reshape: {op[2]}")
            # NumPy viewing a reshape we copy would be a missed view (docs: reshape is a view
            # "when strides allow"); values where only we view are checked at that step
            assert op[2] != "numpy views", op
            if op[2] == "numpy copies":
                same_values(np.asarray(op[4]), op[3])
                assert _is_buffer_of(op[4].buffer, f.base)
    assert _is_buffer_of(xv.buffer, f.base)  # a view never copies
    same_values(np.asarray(xv), refv)
    np.testing.assert_array_equal(addresses(xv), numpy_addresses(refv, f.base))
    if xv.size:
        lo, hi = offset_span(xv.shape, xv.strides)
        assert 0 <= xv.origin + lo and xv.origin + hi < f.base.size
        assert np.shares_memory(np.asarray(xv), f.base)
    else:  # an empty view's origin still names the storage (docs/array.md)
        assert 0 <= xv.origin <= f.base.size
    assert snapshot(f.base) == before


test_views, test_views_slow = both_budgets(_view_cases(), 200, 4000)(_check_views)


# -- __setitem__ ------------------------------------------------------------------------------


def _scalar_for(draw, dt) -> object:
    """A Python scalar the standard lets us assign into dtype dt."""
    if dt.kind == "b":
        return draw(st.booleans())
    if dt.kind in "iu":
        info = np.iinfo(dt.np)
        return draw(st.integers(int(info.min), int(info.max)))
    choices = [st.integers(-100, 100), st.floats(allow_nan=True, width=32)]
    if dt.kind == "c":
        choices.append(st.complex_numbers(max_magnitude=1e6))
    return draw(st.one_of(choices))


def rebase(ref: np.ndarray, base: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The NumPy view of `new` at the addresses `ref` has in `base`."""
    its = base.itemsize
    start = (ref.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // its
    flat = new.reshape(-1)  # a views() base may have any shape; it is C-contiguous
    return np.lib.stride_tricks.as_strided(
        flat[min(start, flat.size) :], ref.shape, ref.strides, writeable=True
    )


@st.composite
def _setitem_cases(draw) -> tuple:
    dt = draw(st.sampled_from(DTYPES))
    readonly = draw(st.integers(0, 9)) == 7  # not 0: hypothesis favours the minimum
    source = draw(st.sampled_from(["desc", "random", "broadcast", "views"]))
    if readonly:
        dest = draw(descriptors(dt, readonly=True))
    elif source in ("desc", "random"):
        # random strides: zero and overlapping ones make self-aliasing destinations
        dest = draw(descriptors(dt, layout="overlap" if source == "random" else None))
    elif source == "broadcast":  # broadcast_to views: read-only unless they repeat nothing
        f = draw(descriptors(dt, max_rank=4))
        lead = tuple(draw(st.lists(st.integers(0, 3), max_size=1)))
        target = lead + tuple(draw(st.integers(0, 3)) if n == 1 else n for n in f.x.shape)
        ref = np.lib.stride_tricks.as_strided(
            f.ref, target, np.broadcast_to(f.ref, target).strides, writeable=True
        )
        dest = Fuzzed(sa.broadcast_to(f.x, target), ref, f.base, f.desc + (target,))
    else:
        p = draw(views(dt, max_dims=4, max_side=4, broadcast=False))
        dest = Fuzzed(p.x, p.ref, p.base_np, ("views",) + p.ops)
    key = draw(basic_indices(dest.ref.shape))
    k = key if isinstance(key, tuple) else (key,)
    sel = dest.ref[(*k, Ellipsis) if Ellipsis not in k else k]
    how = draw(st.sampled_from(["overlap", "array", "flip", "scalar"]))
    if how == "scalar":
        return dest, key, how, _scalar_for(draw, dt), None
    if how == "flip":
        return dest, key, how, sa.flip(dest.x[key]), np.flip(sel) if sel.ndim else sel
    # a value broadcastable to the selection: a suffix of its shape, some extents set to 1
    nb = draw(st.integers(0, sel.ndim))
    vshape = tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in sel.shape[sel.ndim - nb :])
    if how == "overlap":  # another descriptor over the destination's own buffer
        v = draw(descriptors(dt, shape=vshape, base=dest.base))
    else:
        vdt = draw(st.sampled_from(DTYPES)) if draw(st.integers(0, 3)) == 0 else dt
        v = draw(descriptors(vdt, shape=vshape))
    return dest, key, how, v.x, v.ref


def _check_setitem(case: tuple) -> None:
    dest, key, how, value, vref = case
    base = dest.base.reshape(-1)  # a flat view (a views() base may have any shape)
    before = base.copy()
    x = dest.x
    # A non-empty view with a zero stride on an axis of extent > 1 repeats elements: it is
    # read-only, as NumPy's broadcast views are (docs/reliability.md).
    repeats = x.size > 0 and any(s == 0 and n > 1 for n, s in zip(x.shape, x.strides, strict=True))
    if not base.flags.writeable or repeats:
        with pytest.raises(ValueError, match="read-only"):
            dest.x[key] = value
        assert base.tobytes() == before.tobytes()
        return
    dt = dest.x.dtype
    if isinstance(value, sa.Array) and value.dtype.kind == "c" and dt.kind != "c":
        # Another dtype is cast into the destination's, except complex into real.
        with pytest.raises(TypeError, match="would drop the imaginary part"):
            dest.x[key] = value
        assert base.tobytes() == before.tobytes()
        return
    # NumPy on a copy of the buffer: the same view (and value view, if it shares the buffer)
    expected = before.copy()
    k = key if isinstance(key, tuple) else (key,)
    k = (*k, Ellipsis) if Ellipsis not in k else k
    ref_dest = rebase(dest.ref, base, expected)[k]
    if vref is not None and np.shares_memory(vref, base):
        vnp = rebase(vref, base, expected)
    else:
        vnp = vref if vref is not None else value
    sel_addr = addresses(dest.x[key]).ravel()
    aliased = len(np.unique(sel_addr)) < sel_addr.size
    event(f"value {how}" + (", aliasing destination" if aliased else ""))
    # what each selected element is aimed at, read before any write
    aimed = (
        np.broadcast_to(
            np.asarray(vnp).astype(dt.np) if vref is not None else np.asarray(value, dtype=dt.np),
            ref_dest.shape,
        )
        .ravel()
        .copy()
    )
    if not aliased:
        ref_dest[...] = vnp
    dest.x[key] = value
    if not aliased:
        np.testing.assert_array_equal(base.view(np.uint8), expected.view(np.uint8))
        return
    # an aliasing destination: outside its address set nothing changed; inside, each
    # address holds one of the values aimed at it
    outside = np.ones(base.size, bool)
    outside[sel_addr] = False
    assert base[outside].tobytes() == before[outside].tobytes()
    for addr in np.unique(sel_addr):
        got = base[addr : addr + 1].tobytes()
        assert got in {aimed[i : i + 1].tobytes() for i in np.flatnonzero(sel_addr == addr)}


test_setitem, test_setitem_slow = both_budgets(_setitem_cases(), 200, 4000)(_check_setitem)
