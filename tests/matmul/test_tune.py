"""`stridedarray-tune` refuses to write a policy measured on a busy machine.

The load probe is injected (`tune.main(argv, probe=...)`), so these tests fake a busy or a
quiet machine and never depend on the real load."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from stridedarray import tune
from stridedarray._matmul import policy as _policy

ONE_KEY = ["--quick", "--only", "dot_blas_min_k", "--rounds", "1"]
BATCH_KEY = ["--quick", "--only", "gemm_batch_blas_min", "--rounds", "1"]
QUIET = tune.Load(others=0.0, cpus=2, load_average=0.1)
BUSY = tune.Load(others=3.0, cpus=2, load_average=3.9)


@pytest.fixture
def small_sweeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dot_blas_min_k sweep at two sizes only: a real measurement, in milliseconds."""
    small = [
        dataclasses.replace(s, sizes=(8, 256)) for s in tune.SWEEPS if s.key == "dot_blas_min_k"
    ]
    monkeypatch.setattr(tune, "SWEEPS", small)


def _probes(*loads: tune.Load) -> Callable[[], tune.Load]:
    """A probe that answers `loads` in turn (before measuring, after measuring)."""
    answers = iter(loads)
    return lambda: next(answers)


@pytest.mark.parametrize("keys", [ONE_KEY, BATCH_KEY], ids=["single", "batch"])
def test_refuses_before_measuring_on_a_busy_machine(
    keys: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("tune measured on a busy machine")

    monkeypatch.setattr(tune, "measure_sweep", fail)
    out = tmp_path / "policy.json"
    with pytest.raises(SystemExit) as exc:
        tune.main([*keys, "--out", str(out)], probe=_probes(BUSY))
    msg = str(exc.value.code)
    # what was seen, and how to override
    assert "busy" in msg and "3 runnable thread(s) of other processes" in msg
    assert "2 CPU(s)" in msg and "load average 3.90" in msg and "--allow-busy" in msg
    assert not out.exists()


def test_proceeds_on_a_quiet_machine(small_sweeps: None, tmp_path: Path) -> None:
    out, raw = tmp_path / "policy.json", tmp_path / "raw.json"
    assert tune.main([*ONE_KEY, "--out", str(out), "--raw", str(raw)], _probes(QUIET, QUIET)) == 0
    table = _policy.load_policy_file(out)
    data = json.loads(raw.read_text())
    assert table["dot_blas_min_k"] == data["sweeps"][0]["crossover"]
    assert data["load"]["before"] == QUIET.describe() == data["load"]["after"]


def test_does_not_write_when_the_machine_became_busy_while_measuring(
    small_sweeps: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, raw = tmp_path / "policy.json", tmp_path / "raw.json"
    status = tune.main([*ONE_KEY, "--out", str(out), "--raw", str(raw)], _probes(QUIET, BUSY))
    assert status == 1 and not out.exists()
    err = capsys.readouterr().err
    assert f"not writing {out}" in err and "after measuring" in err and "--allow-busy" in err
    assert json.loads(raw.read_text())["load"]["after"] == BUSY.describe()  # the data is kept


def test_allow_busy_writes_with_a_warning(
    small_sweeps: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "policy.json"
    assert tune.main([*ONE_KEY, "--allow-busy", "--out", str(out)], _probes(BUSY, BUSY)) == 0
    assert _policy.load_policy_file(out)
    assert "warning: 3 runnable thread(s)" in capsys.readouterr().err


def test_dry_run_measures_on_a_busy_machine_and_warns(
    small_sweeps: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert tune.main([*ONE_KEY, "--dry-run"], _probes(BUSY, QUIET)) == 0
    captured = capsys.readouterr()
    assert "dot_blas_min_k" in captured.out and "the machine is busy" in captured.err


@pytest.mark.parametrize(
    ("others", "cpus", "busy"),
    [(0, 2, False), (1, 2, True), (3, 8, False), (4, 8, True), (0, 1, False), (1, 1, True)],
)
def test_busy_means_half_the_usable_cpus_taken(others: int, cpus: int, busy: bool) -> None:
    assert tune.Load(float(others), cpus).busy is busy


def test_an_unreadable_load_counts_as_quiet_and_says_so() -> None:
    unknown = tune.Load(math.nan, 2, source="nothing")
    assert not unknown.busy and "could not be read" in unknown.describe()


def test_probe_reads_this_machine() -> None:
    """The real probe returns a count (whatever the load) and the CPUs of the affinity mask."""
    load = tune.probe_load(samples=3, interval_s=0.001)
    assert load.cpus == (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    )
    assert load.others >= 0 or math.isnan(load.others)


def test_usable_cpus_follow_a_cgroup_quota(tmp_path: Path) -> None:
    """A quota of 1.5 CPUs counts as 2, "max" as no cap; never above the affinity mask."""
    mask = tune.usable_cpus(cgroup_root=str(tmp_path / "none"))
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert tune.usable_cpus(cgroup_root=str(tmp_path)) == min(mask, 2)
    (tmp_path / "cpu.max").write_text("50000 100000\n")
    assert tune.usable_cpus(cgroup_root=str(tmp_path)) == 1
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert tune.usable_cpus(cgroup_root=str(tmp_path)) == mask


def test_gemm_sweeps_measure_what_the_selector_tells_apart() -> None:
    """gemm_blas_min is swept on single products (C = 1), gemm_batch_blas_min on batches
    (C >= 2, hundreds of products at small S), and at every size both routes can be forced."""
    import stridedarray as sa

    keys = {sw.key for sw in tune.SWEEPS}
    assert {"gemm_blas_min", "gemm_batch_blas_min"} <= keys
    for sw in tune.SWEEPS:
        if sw.key not in ("gemm_blas_min", "gemm_batch_blas_min"):
            continue
        for s in sw.sizes:
            x, y = sw.build(s)
            a, b = sa.asarray(x), sa.asarray(y)
            explained = sa.matmul_explain(a, b)
            assert explained["M"] == explained["N"] == explained["K"] == sw.value(s) == s
            if sw.key == "gemm_blas_min":
                assert explained["C"] == 1, (sw.what, s)
            else:
                assert explained["C"] >= (1000 if s <= 16 else 2), (sw.what, s)
            for route in (sw.fast, sw.slow):
                with sa.matmul_policy(force=route):
                    assert sa.matmul_explain(a, b)["route"] == route


def _faked_times(blas_from: int) -> Callable[..., dict[str, float]]:
    """A stand-in for `tune._time` (nothing is timed): the generic route is twice as fast as
    BLAS below S = blas_from and half as fast from it on. The size is read from the sampled
    product's operands."""

    def fake(samplers: dict[str, Callable[[int], float]], *args: object) -> dict[str, float]:
        s = fake.size  # type: ignore[attr-defined]
        return {"blas": 1.0, "generic": 2.0 if s >= blas_from else 0.5}

    fake.size = 0  # type: ignore[attr-defined]
    return fake


@pytest.fixture
def faked_batch_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gemm_batch_blas_min sweeps with BLAS faster from S = 24, by a faked timer."""
    fake = _faked_times(24)
    sweeps = []
    for sw in tune.SWEEPS:
        if sw.key == "gemm_batch_blas_min":
            build = sw.build

            def sized(s: int, build: Callable = build) -> tuple:
                fake.size = s  # type: ignore[attr-defined]
                return build(min(s, 8))  # small operands: nothing here is timed

            sweeps.append(dataclasses.replace(sw, build=sized))
    assert len(sweeps) == 2
    monkeypatch.setattr(tune, "SWEEPS", sweeps)
    monkeypatch.setattr(tune, "_time", fake)


def test_batch_sweep_writes_its_crossover_and_keeps_gemm_blas_min(
    faked_batch_timer: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, raw = tmp_path / "policy.json", tmp_path / "raw.json"
    assert tune.main([*BATCH_KEY, "--out", str(out), "--raw", str(raw)], _probes(QUIET, QUIET)) == 0
    table = _policy.load_policy_file(out)
    assert table["gemm_batch_blas_min"] == 24
    assert table["gemm_blas_min"] == _policy.current_policy()["gemm_blas_min"]  # not swept
    data = json.loads(raw.read_text())
    assert [r["key"] for r in data["sweeps"]] == ["gemm_batch_blas_min"] * 2
    assert data["measured"] == {"gemm_batch_blas_min": 24}
    assert "gemm_batch_blas_min" in capsys.readouterr().out


def test_batch_sweep_not_written_when_the_machine_became_busy(
    faked_batch_timer: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "policy.json"
    assert tune.main([*BATCH_KEY, "--out", str(out)], _probes(QUIET, BUSY)) == 1
    assert not out.exists() and f"not writing {out}" in capsys.readouterr().err
    assert tune.main([*BATCH_KEY, "--allow-busy", "--out", str(out)], _probes(QUIET, BUSY)) == 0
    assert _policy.load_policy_file(out)["gemm_batch_blas_min"] == 24
