"""The benchmark CLI end to end (--quick) and its workload definitions. No timing assertions."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import itertools
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from bench_common import run_suite, thread_counts_restored  # noqa: F401 (an autouse fixture)

import stridedarray as sa
from stridedarray.bench import machine, report
from stridedarray.bench.cli import select_cases
from stridedarray.bench.machine import busy_warning, header_lines
from stridedarray.bench.report import CSV_FIELDS, fmt_time
from stridedarray.bench.workloads import GRID_SIZES, all_cases


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("bench")
    docs = out / "docs" / "generated"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "stridedarray.bench",
            "--quick",
            "--out",
            str(out),
            "--no-progress",
            "--docs",
            str(docs),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def _table_rows(text: str) -> list[list[str]]:
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln]
    header, body = rows[0], rows[1:]
    assert header.split("|")[1].strip() == "case"
    return [[cell.strip() for cell in ln.strip("|").split("|")] for ln in body]


def test_quick_table_has_every_case_with_a_route(quick_run: tuple[Path, str]) -> None:
    out, stdout = quick_run
    text = (out / "results.md").read_text()
    assert "numpy_blas" in text and "stridedarray_blas" in text and "OPENBLAS_CORETYPE" in text
    table = text.split("## Targets")[0]
    rows = _table_rows(table)
    names = [c.name for c in all_cases(quick=True)]
    assert [r[0] for r in rows] == names
    for row in rows:
        assert len(row) == 7
        assert row[6], f"case {row[0]} reports no route"
        assert row[1] != "-", f"case {row[0]} has no NumPy time"
    assert names[0] in stdout


def test_quick_csv_parses_with_raw_samples(quick_run: tuple[Path, str]) -> None:
    out, _ = quick_run
    with open(out / "samples-1thread.csv", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == CSV_FIELDS
        rows = list(reader)
    cases = {c.name for c in all_cases(quick=True)}
    assert {r["case"] for r in rows} == cases
    assert {r["variant"] for r in rows} >= {"numpy"}
    for r in rows:
        assert float(r["seconds_per_call"]) > 0
        assert int(r["inner"]) >= 1
        assert r["route"]


def test_quick_json_and_png(quick_run: tuple[Path, str]) -> None:
    out, _ = quick_run
    data = json.loads((out / "results-1thread.json").read_text())
    assert data["threads"] == 1
    assert len(data["cases"]) == len(all_cases(quick=True))
    assert all(c["route"] for c in data["cases"])
    png = (out / "ratios-1thread.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = pytest.importorskip("matplotlib.image").imread(out / "ratios-1thread.png")
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100


def test_quick_json_carries_speedups_and_the_targets(quick_run: tuple[Path, str]) -> None:
    out, stdout = quick_run
    data = json.loads((out / "results-1thread.json").read_text())
    for c in data["cases"]:  # one direction: NumPy time / stridedarray time, > 1 is faster
        assert c["speedup"] == pytest.approx(c["numpy"] / c["stridedarray"])
        if c["limit"] is not None and c["limit"] == c["limit"]:
            assert c["limit_speedup"] == pytest.approx(c["limit"] / c["stridedarray"])
    speedups = {c["case"]: (c["speedup"], c["limit_speedup"]) for c in data["cases"]}
    # every target the quick workload has cells for, and the grid's median at one thread
    assert len(data["targets"]) == 7
    for t in data["targets"]:
        assert t["met_cells"] <= t["cells"] and t["met"] == (t["met_cells"] == t["cells"])
        assert t["target"] in stdout  # the summary printed is the table in the JSON
        if t["target"].startswith("1 thread: grid median"):
            continue  # one value for the whole grid, not a cell's
        worst = speedups[t["worst_cell"]]
        assert t["worst"] in (pytest.approx(worst[0]), pytest.approx(worst[1]))
    assert "sa/" not in (out / "results.md").read_text()


def test_quick_run_writes_the_docs_tables_and_plot(quick_run: tuple[Path, str]) -> None:
    """--docs: the tables docs/benchmarks.md includes, from the same results as results.json,
    and the plot beside the pages."""
    out, _ = quick_run
    docs = out / "docs" / "generated"
    data = json.loads((out / "results-1thread.json").read_text())
    targets = (docs / "matmul-1thread-targets.md").read_text()
    assert targets.startswith("Measured on ") and "load average" in targets
    for t in data["targets"]:
        assert f"| {t['target']} | {t['met_cells']}/{t['cells']} | {t['worst']:.2f} |" in targets
    grid = _pivot_cells((docs / "matmul-1thread-grid.md").read_text())
    limit = _pivot_cells((docs / "matmul-1thread-grid-limit.md").read_text())
    for c in data["cases"]:
        if c["group"] == "grid":
            assert grid[(c["config"], c["size"])] == f"{c['speedup']:.2f}"
            assert limit[(c["config"], c["size"])] == f"{c['limit_speedup']:.2f}"
    others = _table_rows((docs / "matmul-1thread-others.md").read_text())
    assert [r[0] for r in others] == [
        c["case"] for c in data["cases"] if c["group"] not in ("grid", "blas")
    ]
    assert (out / "docs" / "benchmarks-1thread.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _pivot_cells(text: str) -> dict[tuple[str, int], str]:
    lines = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    sizes = [int(h.removeprefix("S=")) for h in head[1:]]
    cells = {}
    for ln in lines[1:]:
        row = [c.strip() for c in ln.strip("|").split("|")]
        cells.update({(row[0], s): v for s, v in zip(sizes, row[1:], strict=True)})
    return cells


def test_busy_machine_warning() -> None:
    info = {"cores": 2, "load_average": "0.40 0.50 0.60"}
    assert busy_warning(info, 1) is None
    assert busy_warning({**info, "load_average_at_end": "1.90 1.00 0.70"}, 1) is None  # ours
    warning = busy_warning({**info, "load_average_at_end": "2.30 1.00 0.70"}, 1)
    assert warning and "busy" in warning and "2 cores" in warning
    busy = {**info, "load_average": "7.80 6.00 5.00"}
    warning = busy_warning(busy, 1)
    assert warning and "7.80" in warning
    assert f"**{warning}**" in header_lines(busy, 1)
    assert not any("WARNING" in line for line in header_lines(info, 1))


def test_header_without_threadpoolctl_says_so_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine, "_numpy_controllers", lambda: None)
    text = machine.machine_info()["numpy_blas"]
    assert "threadpoolctl is not installed" in text and "?" not in text


def test_full_workload_is_the_issue_grid() -> None:
    cases = all_cases(quick=False)
    grid = [c for c in cases if c.group == "grid"]
    assert len(grid) == 96
    assert {c.size for c in grid} == set(GRID_SIZES)
    assert len({c.name for c in cases}) == len(cases)
    assert [c.group for c in cases].count("reused") == 1
    assert {c.size for c in cases if c.group == "int"} == {16, 64, 128, 256}
    assert {c.size for c in cases if c.group == "overhead"} == {2, 8}


@pytest.mark.parametrize(
    "name, layout",
    [
        ("grid f64 lhs rev S=8", ((1, 8, 8), (0, 8, -1), None)),
        ("grid f32 rhs step2 S=12", ((10, 12, 12), (144, 12, 1), (1, 12, 12))),
        ("grid f64 cross rev S=16", ((2, 1, 16, 16), None, (1, 5, 16, 16))),
    ],
)
def test_grid_layouts(name: str, layout: tuple) -> None:
    case = next(c for c in all_cases(quick=False) if c.name == name)
    ops = case.make(np.random.default_rng(1))
    lshape, lstrides, rshape = layout
    if lshape:
        assert ops.a.shape == lshape
    if lstrides:
        item = ops.a.itemsize
        assert tuple(s // item for s in ops.a.strides)[1:] == lstrides[1:]
    if rshape:
        assert ops.b.shape == rshape
    # The incompatible operand is not contiguous, the limit copies are, with the same values.
    assert not (ops.a.flags.c_contiguous and ops.b.flags.c_contiguous)
    assert ops.limit is not None
    assert all(x.flags.c_contiguous for x in ops.limit)
    np.testing.assert_array_equal(ops.limit[0], ops.a)
    np.testing.assert_array_equal(ops.limit[1], ops.b)


def test_filter_and_bad_filter() -> None:
    assert all("int64" in c.name for c in select_cases(False, "int64"))
    assert len(select_cases(False, "^grid f32 lhs rev")) == len(GRID_SIZES)
    with pytest.raises(SystemExit, match="not a valid regular expression"):
        select_cases(False, "([")


def test_bad_threads_exits_cleanly(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "stridedarray.bench", "--threads", "0", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and "--threads" in proc.stderr


def test_fmt_time() -> None:
    assert fmt_time(1.5e-3) == "1.5 ms"
    assert fmt_time(2e-6) == "2 us"
    assert fmt_time(7e-7) == "700 ns"
    assert fmt_time(float("nan")) == "-"


def test_tune_writes_a_policy_file_the_library_loads(tmp_path: Path) -> None:
    from stridedarray import tune
    from stridedarray._matmul import policy as _policy

    out = tmp_path / "policy.json"
    raw = tmp_path / "raw.json"
    assert (
        tune.main(
            [
                "--quick",
                "--only",
                "dot_blas_min_k",
                "--rounds",
                "1",
                "--out",
                str(out),
                "--raw",
                str(raw),
            ],
            probe=lambda: tune.Load(others=0.0, cpus=2),  # a quiet machine, whatever the load
        )
        == 0
    )
    table = _policy.load_policy_file(out)
    assert set(table) == set(_policy.DEFAULT_POLICY)
    data = json.loads(raw.read_text())
    sweep = data["sweeps"][0]
    assert sweep["key"] == "dot_blas_min_k" and sweep["points"] and sweep["rounds"]
    assert table["dot_blas_min_k"] == sweep["crossover"]
    # every other key keeps the value in force
    current = _policy.current_policy()
    assert all(table[k] == current[k] for k in table if k != "dot_blas_min_k")


def test_tune_combine_takes_the_larger_crossover() -> None:
    from stridedarray.tune import combine

    got = combine(
        [
            {"key": "gemm_blas_min", "crossover": 4},
            {"key": "gemm_blas_min", "crossover": 6},
            {"key": "vec_pack_cond_min_elems", "crossover": 1024},
        ]
    )
    assert got == {
        "gemm_blas_min": 6,
        "vec_pack_cond_min_elems": 1024,
        "vec_pack_cond_min_batch": 16,
        "vec_pack_floor_min_elems": 1024,
    }


def test_tune_crossover_rule() -> None:
    from stridedarray.tune import crossover

    sizes = [2, 4, 8, 16, 32, 64]
    assert crossover(sizes, [0.5, 0.8, 1.2, 1.3, 1.5, 1.6]) == 8
    assert crossover(sizes, [0.5, 0.8, 1.2, 1.3, 0.95, 1.6]) == 8  # one noisy point above
    assert crossover(sizes, [0.5, 1.05, 0.8, 0.7, 1.3, 1.6]) == 32  # an early lucky point
    assert crossover(sizes, [0.5, 0.5, 0.6, 0.7, 0.8, 0.9]) == 128  # never: off here
    assert crossover(sizes, [0.98] * 6) == 2  # ties go to BLAS


def test_tune_joint_threshold_balances_workloads() -> None:
    from stridedarray.tune import joint_threshold

    def pts(ratios: list[float]) -> list[dict]:
        return [{"value": v, "ratio": r} for v, r in zip([8, 16, 32, 64], ratios, strict=True)]

    # BLAS clearly ahead from 16 on one workload, from 32 on the other, slightly: 16 costs less
    assert joint_threshold([pts([0.8, 1.5, 1.5, 1.5]), pts([0.8, 0.95, 1.5, 1.5])]) == 16
    assert joint_threshold([pts([0.5, 0.5, 0.5, 0.5])]) == 128


def test_multi_thread_run_times_int_gemm_on_one_thread_too_and_judges_the_targets() -> None:
    """At 2 threads an int GEMM cell at S >= 128 also has a one-thread variant (the scaling
    target), the core's setting is what it was afterwards, and the targets table has the
    multi-thread rows; at 1 thread it has the grid-median row instead."""
    import stridedarray as sa
    from stridedarray.bench.report import targets
    from stridedarray.bench.runner import QUICK, run_case

    cases = {c.name: c for c in all_cases()}
    before = sa.set_num_threads(2)
    try:
        r = run_case(cases["int int32 S=128"], QUICK, np.random.default_rng(0))
        small = run_case(cases["int int32 S=64"], QUICK, np.random.default_rng(0))
        assert sa._matmul.ffi.lib.sa_threads_setting() == 2
    finally:
        sa.set_num_threads(before)
    assert r.correct and set(r.samples) == {"numpy", "stridedarray", "stridedarray_1t"}
    assert r.scaling > 0 and "stridedarray_1t" not in small.samples
    names = {t["target"]: t for t in targets([r, small], threads=2)}
    assert names["threads: int GEMM S>=128 scales >= 1.7x from 1 thread"]["cells"] == 1
    assert not any(n.startswith("1 thread") for n in names)
    grid = run_case(cases["grid f64 lhs rev S=8"], QUICK, np.random.default_rng(0))
    one = {t["target"] for t in targets([grid], threads=1)}
    assert "1 thread: grid median speed-up >= 1.10" in one
    assert not any(n.startswith("threads:") for n in one)


def test_settled_sampling_groups_libraries_and_pauses_at_each_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 2+ threads, samples of one library never follow the other's without the pause, and
    every variant still gets a sample per repeat."""
    import timeit

    from stridedarray.bench import sampling

    log: list[str] = []
    monkeypatch.setattr(sampling.time, "sleep", lambda s: log.append(f"sleep {s}"))

    def timer(name: str) -> timeit.Timer:
        return timeit.Timer(lambda: log.append(name))

    names = ["numpy", "stridedarray", "limit", "stridedarray_1t"]
    budget = sampling.Budget(
        target_s=1e-9, min_repeats=4, max_repeats=4, case_budget_s=0, settle_s=0.25
    )
    inner, samples = sampling.sample({n: timer(n) for n in names}, budget)
    assert inner == 1 and all(len(samples[n]) == 4 for n in names)
    sampled = log[log.index("sleep 0.25") - 1 :]  # from the first timed sample on
    for before, after in itertools.pairwise(sampled):
        if "sleep" not in before and "sleep" not in after:
            assert sampling._library(before) == sampling._library(after), (before, after)
    # one library change per repeat: the groups swap order every repeat
    assert sampled.count("sleep 0.25") == 4
    # with warm_s, the variant after a pause first runs untimed: its name at least twice
    log.clear()
    warm = sampling.Budget(1e-9, 2, 2, 0, settle_s=0.25, warm_s=1e-3)
    sampling.sample({n: timer(n) for n in names}, warm)
    after_pause = [i + 1 for i, e in enumerate(log) if e == "sleep 0.25"]
    assert after_pause and all(log[i] == log[i + 1] == log[i + 2] for i in after_pause)
    # without settle_s: no pause, the plain rotation
    log.clear()
    sampling.sample({n: timer(n) for n in names}, sampling.Budget(1e-9, 2, 2, 0))
    assert not any("sleep" in e for e in log)
    # blocks (--quick at 2+ threads): NumPy's pool's samples, one pause, then ours
    log.clear()
    blocks = sampling.Budget(1e-9, 3, 3, 0, settle_s=0.25, blocks=True)
    inner, samples = sampling.sample({n: timer(n) for n in names}, blocks)
    assert all(len(samples[n]) == 3 for n in names)
    sampled = log[-(3 * 4 + 1) :]  # the timed samples and the one pause
    assert sampled.count("sleep 0.25") == 1
    cut = sampled.index("sleep 0.25")
    assert {sampling._library(e) for e in sampled[:cut]} == {"numpy"}
    assert {sampling._library(e) for e in sampled[cut + 1 :]} == {"stridedarray"}


# --- the one writer -----------------------------------------------------------------------


def test_writer_formats(tmp_path: Path) -> None:
    """One writer for every mode: the Markdown text as given, a CSV with the header and the
    rows, JSON keeping NaN and writing other objects as strings, the plot only when asked
    (and saying when it could not draw), the docs fragments only with a docs directory."""
    assert report.markdown_table(["a", "b"], "lr", [[1, "x"], ["y", 2.5]]) == [
        "| a | b |",
        "|---|---:|",
        "| 1 | x |",
        "| y | 2.5 |",
    ]
    with pytest.raises(ValueError, match="align has 1 letters for 2 columns"):
        report.markdown_table(["a", "b"], "l", [])
    names = {"md": "t.md", "csv": "t.csv", "json": "t.json", "png": "t.png"}
    payload = {"x": math.nan, "path": Path("p")}
    written = report.write_outputs(
        tmp_path / "out",
        names,
        "# title\n",
        ["case", "seconds"],
        iter([["a", "1e-06"], ["b", "2e-06"]]),
        payload,
        lambda path: False,  # as without matplotlib
        {"t-table.md": "| a |\n"},
        None,
    )
    assert written[-1] == "(no plot: matplotlib not installed)"
    assert (tmp_path / "out" / "t.md").read_text() == "# title\n"
    with open(tmp_path / "out" / "t.csv", newline="") as f:
        assert list(csv.reader(f)) == [["case", "seconds"], ["a", "1e-06"], ["b", "2e-06"]]
    data = json.loads((tmp_path / "out" / "t.json").read_text())
    assert math.isnan(data["x"]) and data["path"] == "p"
    assert (
        not (tmp_path / "out" / "t-table.md").exists() and not (tmp_path / "out" / "t.png").exists()
    )
    report.write_outputs(
        tmp_path / "out", names, "", ["a"], [], {}, None, {"t-table.md": "| a |\n"}, tmp_path / "d"
    )
    assert (tmp_path / "d" / "t-table.md").read_text() == "| a |\n"


def test_exit_status_names_the_failed_cases(capsys: pytest.CaptureFixture[str]) -> None:
    assert report.exit_status([]) == 0
    assert report.exit_status([f"c{i}" for i in range(7)]) == 1
    err = capsys.readouterr().err
    assert "7 case(s) differ from NumPy or failed: c0, c1, c2, c3, c4, ..." in err


def test_plot_marks_a_busy_machine_on_the_figure() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from stridedarray.bench.plot import ratio_figure

    rows = [
        {"group": "grid", "config": f"{dt} lhs rev", "size": s, "ratio": 1.2}
        for dt in ("f32", "f64")
        for s in (8, 16)
    ]
    info = {"cores": 2, "load_average": "7.5 7 7"}
    warning = busy_warning(info, 1)
    busy, quiet = ratio_figure(rows, "t", 2, warning), ratio_figure(rows, "t", 2, None)
    try:
        texts = [t.get_text() for t in busy.findobj(match=lambda a: hasattr(a, "get_text"))]
        assert any("MEASURED ON A BUSY MACHINE" in t and "7.50" in t for t in texts)
        quiet_texts = [t.get_text() for t in quiet.findobj(match=lambda a: hasattr(a, "get_text"))]
        assert not any("BUSY" in t for t in quiet_texts)
        # a panel per dtype: the grid's float64 and float32 lines are not drawn together
        titles = [ax.get_title() for ax in busy.axes]
        assert titles == [
            "float64, non-BLAS layouts reused by a batch of 10",
            "float32, non-BLAS layouts reused by a batch of 10",
        ]
        assert all(len(ax.lines) == 1 + 1 for ax in busy.axes)  # one config and the 1x line
    finally:
        plt.close(busy)
        plt.close(quiet)


def _run_suite(args: list[str]) -> subprocess.CompletedProcess:
    return run_suite("stridedarray.bench", args)


def test_suite_list_and_bad_filter() -> None:
    proc = _run_suite(["--suite", "expressions", "--list"])
    assert proc.returncode == 0 and "x * 2 + 1 [10x10 float64]" in proc.stdout
    proc = _run_suite(["--suite", "expressions", "--filter", "(["])
    assert proc.returncode != 0 and "regular expression" in proc.stderr


# -- default threads, --load, --pause, kernels (issue 36) ---------------------------------
def test_quick_run_is_at_the_default_threads_and_at_one(quick_run: tuple[Path, str]) -> None:
    """Without --threads the run is at each library's default, then at 1 thread; results.md
    holds both runs' tables."""
    out, _ = quick_run
    n = machine.default_threads()
    runs = [n, 1] if n > 1 else [1]
    text = (out / "results.md").read_text()
    for threads in runs:
        label = machine.thread_label(threads)
        data = json.loads((out / f"results-{label}.json").read_text())
        assert data["threads"] == threads
        assert f"# stridedarray vs NumPy matmul, {threads} BLAS thread(s)" in text
        assert (out / f"samples-{label}.csv").exists() and (out / f"ratios-{label}.png").exists()
    first = json.loads((out / f"results-{machine.thread_label(runs[0])}.json").read_text())
    assert first["machine"]["threads"] == f"{runs[0]} (each library's default)"
    assert "blas_kernels" in first["machine"] and "load_processes" not in first["machine"]


def test_thread_counts_default_then_one_each_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from stridedarray.bench import cli

    monkeypatch.setattr(cli, "default_threads", lambda: 4)
    assert cli.thread_counts(None) == [None, 1]
    assert cli.thread_counts([2, 2, 1]) == [2, 1]
    assert cli.thread_counts([4, None]) == [4]  # the default is 4 threads: timed once
    monkeypatch.setattr(cli, "default_threads", lambda: 1)
    assert cli.thread_counts(None) == [None]  # a one-processor machine: one run


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--threads", "x"], "--threads"),
        (["--load", "-1"], "--load"),
        (["--pause", "-5"], "--pause"),
        (["--pause", "nan"], "--pause"),
        (["--suite", "expressions", "--pause", "10"], "--pause times the products"),
    ],
)
def test_bad_run_options_exit_naming_the_option(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from stridedarray.bench import cli

    with pytest.raises(SystemExit) as exc:
        cli.main([*args, "--out", str(tmp_path)])
    assert message in (str(exc.value.code) + capsys.readouterr().err)


def _spinning(pid: int) -> bool:
    from stridedarray.bench.load import running

    return running(pid)


def test_load_processes_run_during_the_block_and_stop_after() -> None:
    from stridedarray.bench.load import busy_processes

    with busy_processes(2, ramp_s=0.0) as pids:
        assert len(pids) == 2 and all(_spinning(p) for p in pids)
    assert not any(_spinning(p) for p in pids)


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_load_processes_stop_on_an_error_or_ctrl_c(error: type[BaseException]) -> None:
    from stridedarray.bench.load import busy_processes

    seen: list[int] = []
    with pytest.raises(error), busy_processes(1, ramp_s=0.0) as pids:
        seen += pids
        raise error()
    assert seen and not _spinning(seen[0])


def test_load_processes_stop_when_the_benchmark_is_terminated_or_killed() -> None:
    """SIGTERM: the benchmark stops its busy processes on the way out; SIGKILL (no way out):
    each busy process notices that its parent is gone and ends."""
    import os
    import signal
    import time

    code = (
        "import sys, time\n"
        "from stridedarray.bench.load import busy_processes\n"
        "with busy_processes(1, ramp_s=0.0) as pids:\n"
        "    print(pids[0], flush=True)\n"
        "    time.sleep(60)\n"
    )
    # Started where the package under test is imported from (the source tree, or
    # site-packages when the installed wheel is tested from the sdist's unbuilt tree).
    imports_from = Path(sa.__file__).resolve().parents[1]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        proc = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=imports_from
        )
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        assert _spinning(child)
        os.kill(proc.pid, sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30  # a bound on the wait, not a timing assertion
        while _spinning(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _spinning(child), f"busy process left running after {sig!r}"


def test_load_is_recorded_and_its_processes_stopped_even_when_a_case_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from stridedarray.bench import cli, load

    started: list[int] = []
    real = load.busy_processes

    @contextlib.contextmanager
    def recording(k: int, ramp_s: float = 0.0) -> Iterator[list[int]]:
        with real(k, ramp_s=0.0) as pids:
            started.extend(pids)
            yield pids

    monkeypatch.setattr(cli, "busy_processes", recording)
    one = ["--quick", "--no-progress", "--filter", "^overhead f64 2x2$", "--threads", "1"]
    assert cli.main([*one, "--load", "1", "--out", str(tmp_path / "ok")]) == 0
    data = json.loads((tmp_path / "ok" / "results-1thread.json").read_text())
    assert data["machine"]["load_processes"] == 1
    assert "load_processes: 1" in (tmp_path / "ok" / "results.md").read_text()
    assert len(started) == 1 and not _spinning(started[0])

    def broken(*args: object) -> None:
        raise RuntimeError("a case failed")

    monkeypatch.setattr(cli, "run_case", broken)
    with pytest.raises(RuntimeError, match="a case failed"):
        cli.main([*one, "--load", "2", "--out", str(tmp_path / "bad")])
    assert len(started) == 3 and not any(_spinning(p) for p in started)


def test_busy_warning_leaves_out_the_runs_own_load_processes() -> None:
    info = {"cores": 2, "load_average": "2.10 1.0 1.0", "load_processes": 2}
    assert busy_warning(info, threads=1) is None  # the two busy processes were asked for
    assert busy_warning({**info, "load_processes": 0}, threads=1) is not None


def test_pause_times_single_products_after_the_pause(tmp_path: Path) -> None:
    from stridedarray.bench import cli

    one = ["--quick", "--no-progress", "--filter", "^overhead f64 2x2$", "--threads", "1"]
    docs = tmp_path / "docs" / "generated"
    assert cli.main([*one, "--pause", "2", "--out", str(tmp_path), "--docs", str(docs)]) == 0
    data = json.loads((tmp_path / "results-1thread.json").read_text())
    case = data["cases"][0]
    assert case["stridedarray_pause"] > 0 and case["numpy_pause"] > 0
    assert case["pause_ratio"] == pytest.approx(case["stridedarray_pause"] / case["stridedarray"])
    assert data["machine"]["pause_ms"] == 2
    names = {t["target"] for t in data["targets"]}
    assert any(n.startswith("after a pause: median") for n in names)
    assert any(n.startswith("after a pause: p90") for n in names)
    with open(tmp_path / "samples-1thread.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["variant"].endswith("_pause")]
    assert {r["variant"] for r in rows} == {"numpy_pause", "stridedarray_pause"}
    assert len(rows) == 2 * 3 and all(r["inner"] == "1" for r in rows)  # 3 per library, quick
    assert "## After a pause of 2" in (tmp_path / "results-1thread.md").read_text()
    pause = (docs / "matmul-1thread-pause2ms-pause.md").read_text()
    assert "overhead f64 2x2" in pause
    assert not (docs / "matmul-1thread-targets.md").exists()  # the quiet run's are not touched


def test_blas_kernels_say_whether_openblas_coretype_chose_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    forced = machine.blas_kernels()
    assert "forced by OPENBLAS_CORETYPE=Haswell" in forced and "stridedarray " in forced
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    assert "native: OPENBLAS_CORETYPE unset" in machine.blas_kernels()
    # the docs tables of the two runs get different names
    env = {"OPENBLAS_CORETYPE": "Haswell"}
    assert report.run_tag({"env": env}) == "-haswell"
    assert report.run_tag({"env": {"OPENBLAS_CORETYPE": "(unset)"}}) == ""
    assert report.run_tag({"env": env, "load_processes": 2}) == "-haswell-load2"


# -- the expression suite ------------------------------------------------------------------
def test_expression_suite_covers_the_issues_chains_sizes_and_dtypes() -> None:
    from stridedarray.bench import expressions as ex

    assert [e.name for e in ex.EXPRESSIONS] == [
        "x * 2 + 1",
        "exp(x) * x - 1",
        "sum((x - m) ** 2, axis=0)",
        "x[::-1] * 2 + 1",
        "(x - m) / s",
        "x * y + x * x - y",
    ]
    sizes = sorted({r * c for r, c in ex.SHAPES})
    assert sizes[0] == 10**2 and sizes[-1] == 10**7 and (300, 300) in ex.SHAPES
    assert (1000, 1000) in ex.SHAPES and (2000, 1500) in ex.SHAPES
    by_name = {e.name: set(e.dtypes) for e in ex.EXPRESSIONS}
    every = {"float32", "float64", "int64", "complex128"}
    assert by_name["x * 2 + 1"] == by_name["x * y + x * x - y"] == every
    # exp and true division are not defined for integers by the standard
    assert by_name["exp(x) * x - 1"] == by_name["(x - m) / s"] == every - {"int64"}
    quick = ex.cases(quick=True)
    assert quick and {c.shape for c in quick} < set(ex.SHAPES)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex128"])
def test_expression_forms_agree_with_numpy_on_their_operands(dtype: str) -> None:
    """Both forms, evaluated by NumPy on the suite's operands, are the same expression (so a
    mismatch flags the library, not the suite)."""
    from stridedarray.bench import expressions as ex

    ops = ex.operands((6, 5), dtype, np.random.default_rng(1))
    for e in ex.EXPRESSIONS:
        if dtype in e.dtypes:
            a = eval(e.operator, {"xp": np, **ops})  # noqa: S307
            b = eval(e.function, {"xp": np, **ops})  # noqa: S307
            assert a.dtype == np.dtype(dtype) and ex.check(b, a), e.name


def test_expression_check_refuses_a_wrong_result() -> None:
    from stridedarray.bench.expressions import check

    x = np.random.default_rng(0).standard_normal((4, 3))
    assert check(x.copy(), x)
    assert not check(x * (1 + 1e-9), x)  # far beyond rounding
    assert not check(x.astype(np.float32), x)  # dtype
    assert not check(x[:3], x)  # shape
    i = np.arange(12).reshape(4, 3)
    assert check(i.copy(), i) and not check(i + (i == 5), i)  # one integer off by one


def test_expression_suite_quick_writes_its_outputs(tmp_path: Path) -> None:
    from stridedarray.bench import cli

    docs = tmp_path / "generated"
    args = ["--suite", "expressions", "--quick", "--no-progress", "--threads", "1"]
    args += ["--filter", r"^x \* 2 \+ 1 \[10x10", "--out", str(tmp_path), "--docs", str(docs)]
    assert cli.main(args) == 0
    data = json.loads((tmp_path / "expressions.json").read_text())
    assert [c["dtype"] for c in data["cases"]] == ["float32", "float64", "int64", "complex128"]
    for c in data["cases"]:
        for form in ("numpy", "numpy_func", "stridedarray", "stridedarray_func"):
            assert c[form] > 0
        # the ratio is a time ratio against NumPy's operator form
        assert c["ratio_operator"] == pytest.approx(c["stridedarray"] / c["numpy"])
        assert c["ratio_function"] == pytest.approx(c["stridedarray_func"] / c["numpy"])
        assert not c["mismatch"] and not c["errors"]
    assert len(data["targets"]) == 2
    table = (docs / "expressions.md").read_text()
    assert "`x * 2 + 1`" in table and "same as NumPy" in table
    assert (docs / "expressions-targets.md").read_text().startswith("Measured on ")
    with open(tmp_path / "expressions.csv", newline="") as f:
        variants = {r["variant"] for r in csv.DictReader(f)}
    assert variants == {"numpy", "numpy_func", "stridedarray", "stridedarray_func"}


def test_expression_suite_exits_1_on_a_wrong_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from stridedarray.bench import cli

    monkeypatch.setattr(sa, "add", sa.subtract)  # ours in function form now computes x*2 - 1
    args = ["--suite", "expressions", "--quick", "--no-progress", "--threads", "1"]
    args += ["--filter", r"^x \* 2 \+ 1 \[10x10 float64", "--out", str(tmp_path)]
    assert cli.main(args) == 1
    captured = capsys.readouterr()
    assert "differ from NumPy" in captured.err and "x * 2 + 1 [10x10 float64]" in captured.err
    data = json.loads((tmp_path / "expressions.json").read_text())
    assert data["cases"][0]["mismatch"] == ["stridedarray_func"]
    assert "stridedarray_func differs from NumPy" in (tmp_path / "expressions.md").read_text()


def test_a_run_at_several_threads_keeps_the_two_pools_apart(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """At 2+ threads (the default threads on a multi-core machine), quick or not, the sampler
    takes one library's samples together with a settle pause between the libraries; at one
    thread it interleaves freely."""
    from stridedarray.bench import cli, runner

    budgets: dict[int, list] = {}
    monkeypatch.setattr(cli, "numpy_idle_spin", lambda settle_s: "not measured")

    def record(case, budget, rng):  # type: ignore[no-untyped-def]
        budgets.setdefault(sa.get_num_threads(), []).append(budget)
        return runner.run_case(case, dataclasses.replace(budget, settle_s=0.0, warm_s=0.0), rng)

    monkeypatch.setattr(cli, "run_case", record)
    one = ["--no-progress", "--filter", "^overhead f64 2x2$", "--out", str(tmp_path)]
    for quick in ([], ["--quick"]):
        budgets.clear()
        assert cli.main([*one, *quick, "--threads", "2", "--threads", "1"]) == 0
        assert budgets[2][0].settle_s > 0 and budgets[1][0].settle_s == 0


# -- the contraction suite -----------------------------------------------------------------
def test_contraction_suite_covers_the_published_cliffs_networks_and_orders() -> None:
    from stridedarray.bench import contractions as ct

    names = " ".join(c.name for c in ct.CASES)
    for issue in ("numpy#11940", "opt_einsum#143", "pytorch#57121", "numpy#32111"):
        assert issue in names
    networks = [c for c in ct.CASES if c.group == "network"]
    assert {len(c.operands) for c in networks} >= {3, 4, 5, 6}
    assert any(not c.contiguous or any(o.store for o in c.operands) for c in networks)
    family = [c for c in ct.CASES if c.family == "abc"]
    stores = {c.operands[0].store for c in family if c.operands[0].store}
    assert len(stores) == 6  # every axis order of the left operand
    assert any(o.flip for c in family for o in c.operands)
    assert any(o.step2 for c in family for o in c.operands)


def test_contraction_operands_have_the_layouts_they_name() -> None:
    from stridedarray.bench import contractions as ct

    case = ct.Case(
        "t",
        "order",
        "abc,cbd->ad",
        (ct.Operand((4, 3, 2), (2, 0, 1), flip=(1,)), ct.Operand((2, 3, 5), step2=(2,))),
    )
    a, b = ct.build(case, np.random.default_rng(0))
    assert a.shape == (4, 3, 2) and b.shape == (2, 3, 5)
    item = a.itemsize
    # stored c, a, b: c outermost; b reversed
    assert a.strides == (3 * item, -1 * item, 12 * item)
    assert b.strides[2] == 2 * item  # every second element
    same = ct.Case("s", "cliff", "ij,ij->", (ct.Operand((2, 2)), ct.Operand((2, 2), same_as=0)))
    x, y = ct.build(same, np.random.default_rng(0))
    assert x is y


def test_contraction_check_refuses_a_wrong_result() -> None:
    from stridedarray.bench import contractions as ct

    case = ct.Case("t", "cliff", "ij,jk->ik", (ct.Operand((3, 4)), ct.Operand((4, 2))))
    ops = ct.build(case, np.random.default_rng(0))
    expected = np.einsum(case.subscripts, *ops)
    assert ct.check(expected.copy(), expected, ops, case)
    assert not ct.check(expected * (1 + 1e-6), expected, ops, case)
    assert not ct.check(expected[:2], expected, ops, case)


def test_contraction_suite_quick_writes_its_outputs(tmp_path: Path) -> None:
    from stridedarray.bench import cli

    docs = tmp_path / "generated"
    args = ["--suite", "contractions", "--quick", "--no-progress", "--threads", "1"]
    args += ["--filter", "opt_einsum#143: ikj|abc,cbd->ad C order", "--out", str(tmp_path)]
    assert cli.main([*args, "--docs", str(docs)]) == 0
    data = json.loads((tmp_path / "contractions.json").read_text())
    assert len(data["cases"]) >= 2
    for c in data["cases"]:
        assert c["stridedarray"] > 0 and c["numpy"] > 0
        assert not c["mismatch"] and not c["errors"]
        assert c["peak_bytes"]["stridedarray"] > 0 and c["peak_bytes"]["numpy"] > 0
        others = [c[v] for v in ("numpy", "opt_einsum") if v in c and c[v] == c[v]]
        assert c["ratio"] == pytest.approx(c["stridedarray"] / min(others))
    assert {t["target"].split(":")[0] for t in data["targets"]} >= {
        "cliff and network cases",
        "any axis order or view",
        "peak memory of a call <= NumPy's",
    }
    assert (docs / "contractions-targets.md").read_text().startswith("Measured on ")


def test_contraction_suite_exits_1_on_a_wrong_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from stridedarray.bench import cli

    real = sa.einsum
    monkeypatch.setattr(sa, "einsum", lambda s, *ops: real(s, *ops) + 1)
    args = ["--suite", "contractions", "--quick", "--no-progress", "--threads", "1"]
    args += ["--filter", "opt_einsum#143: ikj", "--out", str(tmp_path)]
    assert cli.main(args) == 1
    data = json.loads((tmp_path / "contractions.json").read_text())
    assert data["cases"][0]["mismatch"] == ["stridedarray"]
