"""The research suites of benchmarks/ (not installed): the per-call overhead and its
instruction counts under callgrind, the clients suite, the Dask and Cubed scale-out, and the
command line `python -m benchmarks` that runs them. No timing assertions.

They need the repository's checkout (the `checkout` marker; tests/conftest.py puts its root on
sys.path): each test imports benchmarks/ when it runs, so that collecting this module against
an installed wheel, where they are skipped, needs nothing of the checkout.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from bench_common import run_suite, thread_counts_restored  # noqa: F401 (an autouse fixture)

from stridedarray.bench import report

pytestmark = [pytest.mark.checkout]  # tests/conftest.py says what each means

ROOT = Path(__file__).resolve().parents[2]
_HAS_CUBED = importlib.util.find_spec("cubed") is not None  # as cubed_scaling.available()


def _run_suite(args: list[str]) -> subprocess.CompletedProcess:
    return run_suite("benchmarks", args, cwd=ROOT)


def test_dask_scale_out_bench_writes_its_table_csv_json_and_plot(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--dask",
            "--quick",
            "--dask-batch",
            "8",
            "--dask-chunk",
            "4",
            "--dask-size",
            "16",
            "--out",
            str(tmp_path),
            "--docs",
            str(tmp_path / "docs"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    rows = _dask_rows((tmp_path / "dask.md").read_text())
    assert [(r[0], r[1]) for r in rows] == [
        ("numpy", "1"),
        ("numpy", "2"),
        ("stridedarray", "1"),
        ("stridedarray", "2"),
    ]
    assert all(r[2] == "2" and r[3] != "-" and r[6].endswith("x") for r in rows)
    with open(tmp_path / "dask.csv") as f:
        samples = list(csv.DictReader(f))
    assert len(samples) == 2 * 2 * 2 and all(float(s["seconds"]) > 0 for s in samples)
    summary = json.loads((tmp_path / "dask.json").read_text())
    assert summary["params"] == {"batch": 8, "chunk": 4, "size": 16, "repeats": 2}
    for row in summary["rows"]:  # the spread is that of the CSV's runs
        mine = [
            float(s["seconds"])
            for s in samples
            if s["library"] == row["library"] and int(s["workers"]) == row["workers"]
        ]
        assert (row["min_s"], row["max_s"]) == (min(mine), max(mine))
        assert row["median_s"] == pytest.approx(float(np.median(mine)))
    # every worker reported its thread counts: one thread for every pool
    workers = [w for ws in summary["workers"].values() for w in ws]
    assert len(workers) == 1 + 2
    for w in workers:
        assert w["stridedarray_threads"] == 1 and w["stridedarray_blas_threads_per_call"] == 1
        assert w["env"]["OPENBLAS_NUM_THREADS"] == "1"
        assert all(p.endswith(": 1") for p in w["blas_pools"])
    assert (tmp_path / "dask.png").stat().st_size > 0
    fragment = (tmp_path / "docs" / "dask.md").read_text()
    assert fragment.startswith("Dask scale-out: (1,16,16)[..., ::-1] @ (8,16,16), chunks of 4.")
    assert "Measured on " in fragment and "| library | workers |" in fragment
    # without cubed (this interpreter) the Cubed variant says why it did not run
    if not _HAS_CUBED:
        assert "Cubed variant skipped" in proc.stdout


def _dask_rows(text: str) -> list[list[str]]:
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln]
    assert rows[0].split("|")[1].strip() == "library"
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in rows[1:]]


def test_dask_scale_out_bench_refuses_a_product_that_differs_from_numpy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    from benchmarks import dask_scaling
    from benchmarks.scale_out import Params

    real = dask_scaling.workload

    def off_by_one(library: str, rhs: object, size: int, seed: int = 0) -> object:
        graph = real(library, rhs, size, seed)
        return graph + 1.0 if library == "stridedarray" else graph

    monkeypatch.setattr(dask_scaling, "workload", off_by_one)
    pinned = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    environ = {k: os.environ.get(k) for k in pinned}
    with pytest.raises(dask_scaling.ResultMismatch, match="stridedarray chunks sum to"):
        dask_scaling.run(tmp_path, Params(batch=4, chunk=2, size=8, repeats=1), workers=(1,))
    assert not (tmp_path / "dask.md").exists()
    # The workers' one-thread pins stay theirs: distributed writes a cluster's env into this
    # process's os.environ, which every process started later would inherit.
    assert {k: os.environ.get(k) for k in pinned} == environ


def _overhead_outcomes() -> list:
    from benchmarks.overhead import Call, Outcome

    a = Outcome(Call("x + y [4x4]", "elementwise binary", 16, "x + y"))
    a.samples = {"numpy": [4e-7], "stridedarray": [6e-7]}
    a.instructions = {"numpy": 3600.0, "stridedarray": 6300.0}
    b = Outcome(Call("xp.asarray(src) [4x4]", "asarray", 16, "xp.asarray(src)"))
    b.samples = {"numpy": [5e-8], "stridedarray": [2e-7]}
    b.instructions = {"numpy": 550.0, "stridedarray": 1350.0, "torch": 900.0}
    return [a, b]


def test_overhead_tables_carry_instruction_counts(tmp_path: Path) -> None:
    from benchmarks import overhead

    outcomes = _overhead_outcomes()
    text = overhead.markdown(outcomes, {"callgrind": "1000 calls"}, ["numpy", "stridedarray"])
    assert "| NumPy instr | stridedarray instr | torch instr | instr / NumPy's |" in text
    assert "| 3,600 | 6,300 | - | 1.75x |" in text
    assert "| 550 | 1,350 | 900 | 2.45x |" in text
    assert "## Instruction targets (callgrind)" in text
    assert "| asarray(ndarray): at most 2x | 0/1 | 2.45x | `xp.asarray(src) [4x4]` | NO |" in text
    report.write_outputs(
        tmp_path,
        {"md": "o.md", "csv": "o.csv", "json": "o.json", "png": "o.png"},
        text,
        overhead.CSV_FIELDS,
        overhead.csv_rows(outcomes),
        overhead.summary(outcomes, {}, ["numpy", "stridedarray"]),
    )
    with open(tmp_path / "o.csv", newline="") as f:
        rows = {(r["case"], r["variant"]): r for r in csv.DictReader(f)}
    assert rows[("x + y [4x4]", "stridedarray")]["instructions_per_call"] == "6300.0"
    data = json.loads((tmp_path / "o.json").read_text())
    assert data["cases"][0]["instructions"] == {"numpy": 3600.0, "stridedarray": 6300.0}
    assert data["cases"][1]["instruction_ratio"] == pytest.approx(1350 / 550)
    assert [t["met"] for t in data["instruction_targets"]] == [True, False]
    # without counts: no instruction columns, empty CSV field, null in JSON
    for o in outcomes:
        o.instructions = {}
    assert "instr" not in overhead.markdown(outcomes, {}, ["numpy", "stridedarray"])


def test_callgrind_is_for_the_overhead_suite_only() -> None:
    for args in (["--callgrind"], ["--suite", "clients", "--callgrind"]):
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks", *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert proc.returncode != 0 and "--suite overhead only" in proc.stderr


@pytest.mark.slow  # about 30-60 s: every library's child imports under valgrind
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_overhead_suite_counts_instructions_under_callgrind(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--suite",
            "overhead",
            "--quick",
            "--callgrind",
            "--no-progress",
            "--filter",
            r"^x \+ y",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "overhead.json").read_text())
    (case,) = data["cases"]
    counts = case["instructions"]
    # NumPy's x + y on 4x4 float64 is a few thousand instructions; ours is in C too.
    assert 1000 < counts["numpy"] < 20000 and 1000 < counts["stridedarray"] < 40000
    assert case["instruction_ratio"] == pytest.approx(counts["stridedarray"] / counts["numpy"])
    assert "instr / NumPy's" in (tmp_path / "overhead.md").read_text()


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.slow
def test_callgrind_measure_reports_a_missing_call() -> None:
    from benchmarks.callgrind import measure

    got = measure(["numpy"], [("-x", 16), ("xp.nothing(x)", 16)], seed=0, n=50)
    assert isinstance(got["numpy"][0], float) and got["numpy"][0] > 100
    assert "AttributeError" in str(got["numpy"][1])


def test_overhead_suite_has_the_small_conversions_next_to_numpy() -> None:
    """asarray of a short list, float() of an element, item() of a 1-element array and an
    integer arange, checked against NumPy's result and timed beside it; they, flip,
    permute_dims and the float arange at 4x4 are judged by the 1.5x target."""
    from benchmarks import overhead
    from benchmarks.cases import calls, namespaces, operands
    from stridedarray.bench.sampling import Budget

    conv = [c for c in calls(quick=True) if c.family == "conversions"]
    assert [c.stmt for c in conv] == [
        "xp.asarray([1.0, 2.0, 3.0])",
        "float(x[0, 0])",
        "x1.item()",
        "xp.arange(16)",
    ]
    base = operands(16, np.random.default_rng(0))
    libs = {k: v for k, v in namespaces().items() if k in ("numpy", "stridedarray")}
    outcomes = [overhead.run_call(c, libs, base, Budget.quick()) for c in conv]
    for o in outcomes:
        assert not o.mismatch and not o.errors, (o.call.name, o.mismatch, o.errors)
        assert o.speedup() > 0
    judged = [t for t in overhead.targets(outcomes) if t["target"].startswith("conversions")]
    assert judged and judged[0]["cases"] == 4
    names = {c.name for c in calls(quick=True)}
    for name in ("xp.flip(x, axis=0) [4x4]", "xp.permute_dims(x, (1, 0)) [4x4]"):
        assert name in names  # the target's other cases exist under these names
    (target,) = [t for t in overhead.TARGETS if t[0].startswith("conversions")]
    assert set(target[1]) - {"conversions"} <= names


def test_a_wrong_conversion_is_reported_as_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The conversions are checked against NumPy's result like every other case."""
    from benchmarks import overhead
    from benchmarks.cases import Call, operands
    from stridedarray.bench.sampling import Budget

    class Wrong:
        def __getattr__(self, name: str) -> object:
            import stridedarray as sa

            if name == "asarray":
                return lambda v: sa.asarray(v)[::-1]
            return getattr(sa, name)

    call = Call("xp.asarray([1.0, 2.0, 3.0])", "conversions", 16, "xp.asarray([1.0, 2.0, 3.0])")
    base = operands(16, np.random.default_rng(0))
    out = overhead.run_call(call, {"numpy": np, "stridedarray": Wrong()}, base, Budget.quick())
    assert out.mismatch == ["stridedarray"] and out.failed()


def test_cubed_variant_skips_with_a_message_without_cubed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks import cubed_scaling
    from benchmarks.scale_out import Params

    monkeypatch.setattr(cubed_scaling, "available", lambda: False)
    rows = cubed_scaling.run(tmp_path, Params(batch=4, chunk=2, size=8, repeats=1), (1,))
    assert rows == []
    assert "Cubed variant skipped: cubed is not importable" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # about 2-4 minutes: Cubed's processes executor starts a pool per run
@pytest.mark.skipif(not _HAS_CUBED, reason="cubed is not installed (Python >= 3.12)")
def test_cubed_variant_runs_both_backends_on_the_processes_executor(tmp_path: Path) -> None:
    from benchmarks import cubed_scaling
    from benchmarks.scale_out import Params

    rows = cubed_scaling.run(
        tmp_path, Params(batch=4, chunk=2, size=8, repeats=1), (1, 2), docs_dir=tmp_path / "d"
    )
    assert {(r["workload"], r["library"], r["workers"]) for r in rows} == {
        (w, lib, n)
        for w in cubed_scaling.WORKLOADS
        for lib in ("numpy", "stridedarray")
        for n in (1, 2)
    }
    summary = json.loads((tmp_path / "cubed.json").read_text())
    for w in (w for ws in summary["workers"].values() for w in ws):
        assert w["stridedarray_threads"] == 1 and w["env"]["OPENBLAS_NUM_THREADS"] == "1"
    assert "| workload | library | workers |" in (tmp_path / "d" / "cubed.md").read_text()


def test_each_shared_piece_is_imported_from_one_module() -> None:
    """The installed benchmark and the research suites import their shared pieces from one
    module each (the options, the overhead cases); their cycles are the import contracts'
    (tests/project/test_architecture.py)."""
    grimp = pytest.importorskip("grimp", reason="needs grimp (import-linter, the dev extra)")
    graph = grimp.build_graph("stridedarray", "benchmarks")
    assert graph.direct_import_exists(
        importer="stridedarray.bench.expressions", imported="stridedarray.bench.options"
    )
    assert graph.direct_import_exists(importer="benchmarks.callgrind", imported="benchmarks.cases")
    assert not graph.direct_import_exists(
        importer="benchmarks.callgrind", imported="benchmarks.overhead"
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
