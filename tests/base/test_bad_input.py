"""The bad-input table: every row of tests/bad_input_cases.py, run in a child.

Each case runs in a subprocess, so a segfault or abort is reported as a crash of that case
(with the signal and the child's stderr) instead of killing pytest. To stay fast the cases are
batched: one child runs many cases and prints a START marker before each and a RESULT line after
it; when a child dies, the case that started without a result is the one that crashed, and the
cases after it are run again in a fresh child. In the child, every case

1. builds its inputs (`setup`), and snapshots every input it bound: an Array's descriptor and
   the bytes of its whole storage, a NumPy array's flags and the bytes of its root base, the
   contents of bytes/bytearray/memoryview sources and of lists and tuples;
2. makes the call, checking the exception type and that its message contains the fragment
   (case-insensitive), or for rows that must not raise, runs the row's check on the result;
3. snapshots the same objects again and requires them unchanged.

Run one case by hand: `python tests/base/test_bad_input.py CASE_ID` (prints its result).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, the shared modules

from bad_input_cases import CASES, Case  # noqa: E402

_BY_ID = {c.id: c for c in CASES}
_START, _RESULT = "@@START ", "@@RESULT "
_WORKERS = 2  # the reference machine has 2 cores
_BATCH_TIMEOUT = 120.0  # seconds for one child; a hang is reported against the running case


# -- the checks rows call (HELPERS) ----------------------------------------------------------
def ieee_operands(s1: tuple, s2: tuple, dtype: str, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Operands with non-zero finite values and one planted NaN or infinity (see `kind`)."""
    rng = np.random.default_rng(len(s1) * 7 + len(s2) + sum(s1) + sum(s2))

    def make(shape: tuple) -> np.ndarray:
        x = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.uniform(0.5, 2.0, shape)
        return x.astype(dtype)

    a, b = make(s1), make(s2)
    first = (0,) * a.ndim  # a[..., 0, 0]: row 0, inner index 0 of the first matrix
    if kind == "nan":
        a[first] = np.nan
        b[(0,) * (b.ndim - 1) + (-1,)] = np.nan  # and one in b's last column
    elif kind == "inf":
        a[first] = np.inf
        b[(0,) * (b.ndim - 2) + (-1, -1) if b.ndim > 1 else (-1,)] = -np.inf
    elif kind == "inf0":
        a[first] = np.inf
        if b.ndim == 1:
            b[0] = 0
        else:
            b[..., 0, :] = 0  # the inner index the infinity meets: inf * 0
    return a, b


def ieee_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """matmul by element-wise products and sums in double precision (the IEEE reference)."""
    wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(b) else np.float64
    a2 = a.astype(wide)[..., None, :] if a.ndim == 1 else a.astype(wide)
    b2 = b.astype(wide)[..., :, None] if b.ndim == 1 else b.astype(wide)
    with np.errstate(all="ignore"):
        r = (a2[..., :, :, None] * b2[..., None, :, :]).sum(axis=-2)
    if a.ndim == 1:
        r = r[..., 0, :]
    if b.ndim == 1:
        r = r[..., 0]
    return r


def ieee_same(r: Any, ref: np.ndarray, bound: Any = None, nan_exact: bool = True) -> None:
    """AssertionError unless `r` has `ref`'s NaN/inf pattern and close finite values."""
    got = np.asarray(r._np if hasattr(r, "_np") else r)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if got.dtype.kind == "c":
        fin_got = np.isfinite(got.real) & np.isfinite(got.imag)
        fin_ref = np.isfinite(ref.real) & np.isfinite(ref.imag)
        assert np.array_equal(fin_got, fin_ref), f"non-finite outputs differ:\n{got}\n{ref}"
        if nan_exact:
            nan_got = np.isnan(got.real) | np.isnan(got.imag)
            nan_ref = np.isnan(ref.real) | np.isnan(ref.imag)
            assert np.array_equal(nan_got, nan_ref), f"NaN outputs differ:\n{got}\n{ref}"
    elif got.dtype.kind == "f":
        assert np.array_equal(np.isnan(got), np.isnan(ref)), f"NaN differ:\n{got}\n{ref}"
        assert np.array_equal(np.isposinf(got), np.isposinf(ref)), f"+inf:\n{got}\n{ref}"
        assert np.array_equal(np.isneginf(got), np.isneginf(ref)), f"-inf:\n{got}\n{ref}"
        fin_ref = np.isfinite(ref)
    if got.dtype.kind not in "fc":
        assert np.array_equal(got, ref), f"values differ:\n{got}\n{ref}"
        return
    eps = np.finfo(got.dtype).eps
    scale = np.abs(ref) if bound is None else np.asarray(bound)
    with np.errstate(all="ignore"):
        err = np.abs(got - ref)
    ok = err[fin_ref] <= 64 * eps * (scale[fin_ref] + 1.0)
    assert ok.all(), f"finite values differ:\n{got}\n{ref}"


def ieee_check_matmul(r: Any, a: np.ndarray, b: np.ndarray, kind: str) -> None:
    """`r` (a matmul result) against the IEEE reference for operands `a`, `b`."""
    fa = np.where(np.isfinite(a), np.abs(a), 0)
    fb = np.where(np.isfinite(b), np.abs(b), 0)
    bound = np.abs(ieee_matmul(fa, fb))
    complex_inf = np.iscomplexobj(a) and kind != "nan"
    ieee_same(r, ieee_matmul(a, b), bound, nan_exact=not complex_inf)


def ieee_stack(dtype: str, kind: str, n: int = 4) -> np.ndarray:
    """Three Hermitian positive-definite n x n matrices; matrix 1 holds a NaN or an infinity."""
    rng = np.random.default_rng(n)
    x = rng.uniform(-1.0, 1.0, (3, n, n))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1.0, 1.0, (3, n, n))
    x = ((x + np.conj(np.swapaxes(x, -1, -2))) / 2 + n * np.eye(n)).astype(dtype)
    x[1, 0, 0] = np.nan if kind == "nan" else np.inf
    return x


def lapack_check(r: Any, ref: Any, x: np.ndarray) -> None:
    """Every output of matrix 1 is NaN; matrices 0 and 2 give NumPy's `ref(m, keep)` on them."""
    keep = [0, 2]
    outs = r if isinstance(r, tuple) else (r,)
    want = ref(x[keep], keep)
    wants = want if isinstance(want, tuple) else (want,)
    assert len(outs) == len(wants)
    rtol = 1e-4 if x.dtype in (np.float32, np.complex64) else 1e-9
    for o, w in zip(outs, wants, strict=True):
        o = np.asarray(o._np)
        assert np.isnan(o[1]).all(), f"matrix 1 (non-finite) gave {o[1]}"
        np.testing.assert_allclose(o[keep], w, rtol=rtol, atol=rtol)


# Names the rows' code can use besides `sa`.
HELPERS: dict[str, Any] = {
    "np": np,
    "ieee_operands": ieee_operands,
    "ieee_matmul": ieee_matmul,
    "ieee_same": ieee_same,
    "ieee_check_matmul": ieee_check_matmul,
    "ieee_stack": ieee_stack,
    "lapack_check": lapack_check,
}


# -- child side --------------------------------------------------------------------------------
def _root(a: Any) -> Any:
    """The ndarray at the bottom of a NumPy base chain (the memory a view borrows)."""
    while isinstance(getattr(a, "base", None), np.ndarray):
        a = a.base
    return a


def _state(v: Any) -> Any:
    """What must not change about one input, or None when `v` is not an input we track."""
    import stridedarray as sa

    if isinstance(v, sa.Array):
        st = v._st.arr  # the whole storage (a flat window for strided NumPy sources)
        return ("Array", v.dtype.name, v.shape, v.strides, v.origin, st.tobytes())
    if isinstance(v, np.ndarray):
        root = _root(v)
        body = root.tobytes() if root.nbytes <= 1 << 24 else None
        return ("ndarray", v.dtype.str, v.shape, v.strides, v.flags.writeable, body)
    if isinstance(v, (bytes, bytearray)):
        return (type(v).__name__, bytes(v))
    if isinstance(v, (list, tuple)):  # nested Python sources (repr copes with self-nesting)
        return (type(v).__name__, repr(v))
    if isinstance(v, memoryview):
        try:
            return ("memoryview", v.tobytes())
        except ValueError:
            return ("memoryview", "released")
    return None


def _snapshot(objs: dict[str, Any]) -> dict[str, Any]:
    """The state of every tracked input, by name (taken of the same objects before and after)."""
    return {k: s for k, v in objs.items() if (s := _state(v)) is not None}


def run_case(case: Case) -> dict[str, Any]:
    """Run one case in this process; {"ok": bool, "detail": str}."""
    import stridedarray as sa

    ns: dict[str, Any] = {"sa": sa, **HELPERS}
    try:
        exec(case.setup, ns)
    except Exception:
        return {"ok": False, "detail": "setup failed:\n" + traceback.format_exc()}
    inputs = {k: v for k, v in ns.items() if not k.startswith("_") and k not in HELPERS}
    before = _snapshot(inputs)
    err: BaseException | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(case.call, ns)
        except Exception as e:  # noqa: BLE001 - every exception is a result to check
            err = e
    problems: list[str] = []
    if case.exc is None:
        if err is not None:
            problems.append(
                "expected no exception, got " + "".join(traceback.format_exception(err))
            )
        elif case.check:
            try:
                exec(case.check, ns)
            except Exception:
                problems.append("check failed:\n" + traceback.format_exc())
    elif err is None:
        problems.append(f"expected {case.exc_name} matching {case.match!r}, nothing raised")
    elif not isinstance(err, case.exc):
        problems.append(
            f"expected {case.exc_name} matching {case.match!r}, got "
            + "".join(traceback.format_exception(err))
        )
    elif case.match.lower() not in str(err).lower():
        problems.append(f"{type(err).__name__} message {str(err)!r} lacks {case.match!r}")
    if caught and not case.warns:
        problems.append(
            "warnings during the call: "
            + "; ".join(f"{w.category.__name__}: {w.message}" for w in caught)
        )
    after = _snapshot(inputs)
    for k, s in before.items():
        if after.get(k) != s:
            problems.append(f"input {k!r} changed: {s!r:.200} -> {after.get(k)!r:.200}")
    return {"ok": not problems, "detail": "\n".join(problems)}


def child_main(ids: list[str]) -> None:
    """Run the named cases in order, printing a START marker before and a RESULT after each."""
    out = sys.stdout
    for cid in ids:
        out.write(_START + cid + "\n")
        out.flush()
        try:
            res = run_case(_BY_ID[cid])
        except Exception:  # the runner itself failed: report it against this case
            res = {"ok": False, "detail": "runner error:\n" + traceback.format_exc()}
        res["id"] = cid
        out.write(_RESULT + json.dumps(res) + "\n")
        out.flush()


# -- parent side -------------------------------------------------------------------------------
def _describe_death(rc: int) -> str:
    if rc < 0:
        try:
            return f"killed by signal {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exited with status {rc}"


def _child_env() -> dict[str, str]:
    """The environment for a child: it imports the stridedarray this process imports (the
    checkout under test, not whatever copy the interpreter's site-packages points to)."""
    import stridedarray

    env = os.environ.copy()
    root = str(Path(stridedarray.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _run_batch(ids: list[str]) -> dict[str, dict]:
    """Run `ids` in children; a crash names its case and the rest are run in a new child."""
    results: dict[str, dict] = {}
    todo = list(ids)
    env = _child_env()
    while todo:
        proc = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", __file__, "--child", *todo],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parent,
            env=env,
        )
        try:
            out, err = proc.communicate(timeout=_BATCH_TIMEOUT)
            death = _describe_death(proc.returncode)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            death = f"hung (killed after {_BATCH_TIMEOUT:.0f} s)"
        running = None
        for line in out.splitlines():
            if line.startswith(_START):
                running = line[len(_START) :]
            elif line.startswith(_RESULT):
                res = json.loads(line[len(_RESULT) :])
                results[res["id"]] = res
                running = None
        if running is None and all(i in results for i in todo):
            break
        if running is None and not any(i in results for i in todo):
            # died before its first marker (at import): every case would; fail them all once
            for i in todo:
                results[i] = {
                    "ok": False,
                    "detail": f"CRASH: the child {death} before running "
                    f"any case; its stderr:\n{err[-4000:]}",
                }
            break
        if running is None:  # died between two cases
            running = next(i for i in todo if i not in results)
        results[running] = {
            "ok": False,
            "detail": f"CRASH: the child {death} while running "
            f"this case; its stderr:\n{err[-4000:]}",
        }
        todo = todo[todo.index(running) + 1 :]
    return results


def _run_all(ids: list[str]) -> dict[str, dict]:
    """Split `ids` over _WORKERS children running concurrently."""
    from concurrent.futures import ThreadPoolExecutor

    chunks = [ids[k::_WORKERS] for k in range(_WORKERS)]
    results: dict[str, dict] = {}
    with ThreadPoolExecutor(_WORKERS) as pool:
        for part in pool.map(_run_batch, [c for c in chunks if c]):
            results.update(part)
    return results


@pytest.fixture(scope="module")
def bad_input_results(request: pytest.FixtureRequest) -> dict[str, dict]:
    """Results of the selected cases (all of them unless -k narrowed the selection)."""
    wanted = [
        item.callspec.params["case_id"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_bad_input" and hasattr(item, "callspec")
    ]
    return _run_all(wanted or list(_BY_ID))


@pytest.mark.parametrize("case_id", list(_BY_ID))
def test_bad_input(case_id: str, bad_input_results: dict[str, dict]) -> None:
    """One row of the bad-input table: the expected exception (or result), inputs unchanged."""
    res = bad_input_results[case_id]
    if not res["ok"]:
        case = _BY_ID[case_id]
        pytest.fail(
            f"case {case_id}\n  setup: {case.setup!r}\n  call:  {case.call!r}\n{res['detail']}",
            pytrace=False,
        )


def test_children_import_the_stridedarray_under_test() -> None:
    """A child runs the same tree as this process (not an editable install elsewhere)."""
    import stridedarray

    r = subprocess.run(
        [sys.executable, "-c", "import stridedarray; print(stridedarray.__file__)"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent,
        env=_child_env(),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).resolve() == Path(stridedarray.__file__).resolve()


def test_table_ids_unique() -> None:
    """Every row has its own id (a duplicate would silently shadow a row)."""
    assert len(_BY_ID) == len(CASES)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2:])
    else:
        for cid, res in _run_all(sys.argv[1:] or list(_BY_ID)).items():
            print(cid, "ok" if res["ok"] else "FAIL\n" + res["detail"])
