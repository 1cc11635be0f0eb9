"""The per-call fast paths keep behaviour: which calls may skip the quiet floating-point state,
that the quiet state restores the caller's, that Python scalars handed to NumPy as they are
give the bits of the 0-d-array path, and that the per-call benchmark suites run end to end.
No timing assertions."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridedarray as sa
from stridedarray import _fpe
from stridedarray._dtypes import scalar_np, scalar_operand
from stridedarray._elementwise import _BINARY, _K, _UNARY

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e308, -1e308, 5e-324, 3e38, 1e-45]


def _special(dtype: str) -> np.ndarray:
    """Zeros, ones, halves, infinities, NaN, the extremes and subnormals of `dtype` (for a
    complex dtype every pair of them as real and imaginary parts)."""
    real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    with np.errstate(all="ignore"):
        v = np.array(_SPECIAL).astype(real)
    if dtype == real:
        return v
    re, im = np.meshgrid(v, v)
    out = np.empty(re.size, dtype)
    out.real, out.imag = re.ravel(), im.ravel()
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_calls_said_never_to_warn_set_no_flag_on_special_values(dtype: str) -> None:
    # What _fpe.can_warn promises: with errstate(all="raise"), NumPy raises on any flag.
    a = _special(dtype)
    b = a[::-1].copy()
    # Each function on the dtypes its category admits (complex comparisons, which do set the
    # invalid flag on NaN, are refused before NumPy runs).
    rows = [(n, c, uf, 1) for n, c, uf, _ in _UNARY] + [(n, c, uf, 2) for n, c, uf, _ in _BINARY]
    checked = 0
    for name, cat, uf, arity in rows:
        if _fpe.can_warn(name) or not isinstance(uf, np.ufunc) or a.dtype.kind not in _K[cat]:
            continue
        try:
            with np.errstate(all="ignore"):
                (uf(a) if arity == 1 else uf(a, b))
        except TypeError:
            continue  # no loop for this dtype (bit operations on floats)
        with np.errstate(all="raise"):
            uf(a) if arity == 1 else uf(a, b)  # FloatingPointError would fail the test
        checked += 1
    assert checked >= 7


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool"])
def test_integer_operands_warn_only_through_division(dtype: str) -> None:
    info = np.iinfo(dtype) if dtype != "bool" else None
    vals = [0, 1] if info is None else [0, 1, -1 if info.min < 0 else 2, info.min, info.max]
    a = np.array(vals, dtype=dtype)
    b = a[::-1].copy()
    checked = []
    for name, cat, uf, _ in _BINARY:
        if (
            "i" in _fpe.can_warn(name)
            or not isinstance(uf, np.ufunc)
            or a.dtype.kind not in _K[cat]
        ):
            continue
        try:
            with np.errstate(all="ignore"):
                uf(a, b)
        except (TypeError, ValueError):  # no loop, or negative integer powers
            continue
        with np.errstate(all="raise"):  # FloatingPointError would fail the test
            uf(a, b)
        checked.append(name)
    # The table must not filter empty: these functions take such operands.
    wanted = {"equal", "logical_and", "bitwise_and"} if dtype == "bool" else {"add", "multiply"}
    assert wanted <= set(checked), checked


def test_quiet_state_is_silent_and_restores_the_callers() -> None:
    x = sa.asarray([1e308, 0.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = np.asarray((x * 10.0) / sa.asarray([1.0, 0.0, 0.0]))
        assert r[0] == np.inf and np.isnan(r[1]) and r[2] == -np.inf
        np.asarray(sa.log(x))
        np.asarray(sa.sum(sa.asarray([1e308, 1e308])))
        np.asarray(sa.mean(sa.asarray([1e308, 1e308], dtype=sa.float64)))
    before = np.geterr()
    with np.errstate(all="raise", under="ignore"):
        np.asarray(x * 10.0)  # quiet inside our call ...
        # (NumPy's own error and message)
        with pytest.raises(FloatingPointError, match="divide by zero"):
            np.ones(1) / 0.0  # ... and the caller's state is back after it
        assert np.geterr()["divide"] == "raise" and np.geterr()["under"] == "ignore"
    assert np.geterr() == before


def test_quiet_state_per_thread() -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with np.errstate(divide="raise"):
                for _ in range(200):
                    np.asarray(sa.asarray([1.0]) / 0.0)
                with pytest.raises(FloatingPointError, match="divide by zero"):
                    np.ones(1) / 0.0
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# The same calls as the two tests above, in a child whose NumPy lacks the private names
# stridedarray._fpe uses (numpy._core.umath._extobj_contextvar): the module then falls back
# to np.errstate, and the C operators to the Python path for the calls that need the quiet
# state. NumPy bound the name for itself at its own import, so removing it from umath
# afterwards changes only what stridedarray finds.
_WITHOUT_PRIVATE_NUMPY = """
import threading, warnings
import numpy as np
from numpy._core import umath
del umath._extobj_contextvar
import stridedarray as sa
from stridedarray import _fpe
assert _fpe._cv is None, "the fallback was not taken"
warnings.simplefilter("error")
a, b = np.array([1e308, 0.0, -1.0]), np.array([1.0, 0.0, 0.0])
with np.errstate(all="ignore"):
    want = [(a * 10.0) / b, np.log(a), np.sum(np.array([1e308, 1e308])), a / 0.0]
x, y = sa.asarray(a), sa.asarray(b)
got = [(x * 10.0) / y, sa.log(x), sa.sum(sa.asarray([1e308, 1e308])), sa.divide(x, 0.0)]
for w, g in zip(want, got):
    np.testing.assert_array_equal(np.asarray(g), w)
before = np.geterr()
tok = _fpe.enter()
np.ones(1) / 0.0  # quiet between enter and leave
_fpe.leave(tok)
assert np.geterr() == before, (np.geterr(), before)
assert _fpe.call(np.divide, np.ones(1), 0.0)[0] == np.inf
with np.errstate(all="raise", under="ignore"):
    np.asarray(x * 10.0)
    try:
        np.ones(1) / 0.0
    except FloatingPointError:
        pass
    else:
        raise AssertionError("the caller's error state was not restored")
    assert np.geterr()["divide"] == "raise" and np.geterr()["under"] == "ignore"
errors = []
def work():
    try:
        with np.errstate(divide="raise"):
            for _ in range(50):
                np.asarray(sa.asarray([1.0]) / 0.0)
            try:
                np.ones(1) / 0.0
            except FloatingPointError:
                return
            errors.append("the thread's error state was not restored")
    except BaseException as e:
        errors.append(repr(e))
ths = [threading.Thread(target=work) for _ in range(4)]
for t in ths:
    t.start()
for t in ths:
    t.join()
assert not errors, errors
print("ok")
"""


def test_quiet_state_without_numpys_private_names() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PRIVATE_NUMPY],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok"]


_DT = st.sampled_from(
    [
        "bool",
        "int8",
        "uint8",
        "int32",
        "int64",
        "uint64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    dtype=_DT,
    value=st.one_of(
        st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True)
    ),
)
def test_scalar_operand_gives_the_bits_of_a_0d_array(dtype: str, value: object) -> None:
    dt = getattr(sa, dtype)
    a = np.array([0, 1, 2], dtype=dtype) if dtype != "bool" else np.array([True, False])
    if isinstance(value, bool) != (dtype == "bool"):
        return
    if isinstance(value, float) and dt.kind not in "fc":
        return
    if isinstance(value, int) and dt.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            return
    try:
        ref_operand = scalar_np(value, dt)
    except OverflowError:
        return  # a Python int beyond float range: refused either way
    ours = scalar_operand(value, dt)
    ops = [np.add, np.multiply, np.equal] if dtype != "bool" else [np.logical_and, np.equal]
    for uf in ops:
        with np.errstate(all="ignore"):
            ref, got = uf(a, ref_operand), uf(a, ours)
        assert got.dtype == ref.dtype
        assert got.tobytes() == ref.tobytes()


def test_operator_and_function_share_one_body() -> None:
    x = sa.asarray([1.0, 2.0])
    assert x.__add__(np.ones(2)) is NotImplemented
    assert x.__radd__("a") is NotImplemented
    assert x.__matmul__(np.ones(2)) is NotImplemented
    with pytest.raises(TypeError, match="x2 must be an Array"):
        sa.add(x, "a")
    with pytest.raises(TypeError, match="matmul: x2 must be a stridedarray.Array"):
        sa.matmul(x, np.ones(2))
    assert float(2.0 - x[0]) == 1.0 and float(x @ x) == 5.0
    assert sa.matmul.__name__ == "matmul" and sa.add.__name__ == "add"


def _run_suite(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stridedarray.bench", "--no-progress", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_overhead_suite_quick(tmp_path: Path) -> None:
    proc = _run_suite(["--suite", "overhead", "--quick", "--out", str(tmp_path)])
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "overhead.md").read_text()
    for family in (
        "elementwise binary",
        "reduction",
        "where",
        "indexing and views",
        "creation",
        "asarray",
        "matmul small",
        "matmul batched",
    ):
        assert f"| {family} |" in text
    assert "## Targets" in text and "differs from NumPy" not in text
    with open(tmp_path / "overhead.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["variant"] for r in rows} >= {"numpy", "stridedarray"}
    assert all(float(r["seconds_per_call"]) > 0 for r in rows)
    data = json.loads((tmp_path / "overhead.json").read_text())
    assert all(c["stridedarray"] > 0 for c in data["cases"])
    if (tmp_path / "overhead.png").exists():
        assert (tmp_path / "overhead.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_clients_suite_quick(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    proc = _run_suite(
        [
            "--suite",
            "clients",
            "--quick",
            "--filter",
            "zscore|StandardScaler",
            "--out",
            str(tmp_path),
        ]
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "clients.json").read_text())
    names = {w["workload"] for w in data["workloads"]}
    assert names == {"zscore(axis=0)", "StandardScaler fit_transform"}
    generic = "numpy (generic path)"
    for w in data["workloads"]:
        assert "stridedarray" not in w["errors"] and "stridedarray" not in w["mismatch"]
        assert generic not in w["errors"] and generic not in w["mismatch"]
        assert w["stridedarray"] > 0 and w["numpy"] > 0 and w[generic] > 0
        assert w["speedup_generic"] == pytest.approx(w[generic] / w["stridedarray"])
    assert [t["bound"] for t in data["targets"]] == pytest.approx([1 / 1.15, 1 / 1.10])
    assert "same-path NumPy" in data["targets"][1]["target"]
    text = (tmp_path / "clients.md").read_text()
    head = next(ln for ln in text.splitlines() if ln.startswith("| workload |"))
    assert "| NumPy generic path |" in head and "| speed-up vs generic path |" in head
    assert "within 1.10x of the same-path NumPy" in text and "## Targets" in text
    assert "| NumPy generic path |" in proc.stdout  # the printed table
    with open(tmp_path / "clients.csv", newline="") as f:
        variants = {r["variant"] for r in csv.DictReader(f)}
    assert {generic, generic + " cpu", "numpy", "stridedarray"} <= variants


def test_suite_list_and_bad_filter() -> None:
    proc = _run_suite(["--suite", "overhead", "--list"])
    assert proc.returncode == 0 and "x + y [4x4]" in proc.stdout
    proc = _run_suite(["--suite", "overhead", "--filter", "(["])
    assert proc.returncode != 0 and "regular expression" in proc.stderr


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex64"])
def test_repeated_products_with_new_storage_origins_and_strides(dtype: str) -> None:
    # The C core's plan cache keys on rank, shape, strides, dtypes and policy; storage and
    # origin change between calls and must be taken from each call's operands.
    rng = np.random.default_rng(7)
    base = [
        (rng.integers(-9, 9, (6, 5, 7)) + (1j if dtype.startswith("c") else 0)).astype(dtype)
        for _ in range(3)
    ]
    views = [
        lambda b: b[1:5, 0, :4],
        lambda b: b[0:4, 1, 1:5],
        lambda b: b[1:5, 2, 3:],
        lambda b: b[:4, 0, ::-1][:, :4],
        lambda b: b[::-1][:4, 3, :4],
    ]
    rhs = [lambda b: b[:4, :3, 0], lambda b: b[1:5, 1:4, 2], lambda b: b[2:, :3, 6][:4]]
    for _ in range(3):  # every (layout, storage) pair again: cache hits with new pointers
        for v in views:
            for w in rhs:
                for bl, br in ((base[0], base[1]), (base[2], base[0])):
                    a, b = v(bl), w(br)
                    got = np.asarray(sa.asarray(a) @ sa.asarray(b))
                    np.testing.assert_allclose(got, a @ b, rtol=1e-6)
                    batch = np.asarray(sa.asarray(bl[:3, :4, :5]) @ sa.asarray(br[:3, :5, :2]))
                    np.testing.assert_allclose(batch, bl[:3, :4, :5] @ br[:3, :5, :2], rtol=1e-6)


def test_repeated_products_follow_the_policy_in_force() -> None:
    # Same operands under another policy: the plan is not reused across policies. A reversed
    # lhs reused over a batch runs generic by default at this size and packs once when
    # pack_blas is forced, which the C allocation counters show.
    from stridedarray._diagnostics import c_alloc_stats

    rng = np.random.default_rng(5)
    an, bn = rng.standard_normal((1, 8, 8))[..., ::-1], rng.standard_normal((4, 8, 8))
    a, b = sa.asarray(an), sa.asarray(bn)

    def packs() -> int:
        return c_alloc_stats()["pack"]["allocations"]

    for _ in range(2):
        before = packs()
        np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
        assert packs() == before and sa.matmul_explain(a, b)["route"] == "generic"
        with sa.matmul_policy(force="pack_blas"):
            np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
            np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
            assert packs() == before + 2
        np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
        assert packs() == before + 2


def test_plan_cache_is_per_thread() -> None:
    errors: list[BaseException] = []
    rng = np.random.default_rng(3)
    mats = [rng.standard_normal((8, 8)) for _ in range(4)]

    def work(k: int) -> None:
        try:
            x, y = mats[k], mats[(k + 1) % 4][:, ::-1]
            sx, sy = sa.asarray(x), sa.asarray(y)
            for _ in range(300):
                np.testing.assert_allclose(np.asarray(sx @ sy), x @ y, rtol=1e-12)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
