"""The command-line tools (`python -m stridedarray`, `stridedarray-bench`, `stridedarray-tune`):
exit status, flags, --version, program names, output paths checked before measuring, no
measurement lost to a failed write, XDG_CONFIG_HOME, output into a closed pipe, and a plot
whose axes can be read.

Workloads are tiny (one benchmark case, a two-size tuning sweep); no timing assertions."""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import stridedarray as sa
from stridedarray import tune
from stridedarray._matmul import policy as _policy
from stridedarray.bench import cli as bench_cli

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

ROOT = Path(__file__).resolve().parents[2]
ONE_CASE = ["--quick", "--no-progress", "--filter", "^overhead f64 2x2$"]
ONE_KEY = ["--quick", "--only", "dot_blas_min_k", "--rounds", "1"]


@pytest.fixture(autouse=True)
def _quiet_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tuning tool sees a quiet machine whatever the real load (tests/matmul/test_tune.py fakes
    a busy one)."""
    monkeypatch.setattr(tune, "probe_load", lambda: tune.Load(others=0.0, cpus=2))


@pytest.fixture
def small_sweeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dot_blas_min_k sweep at two sizes only: a real measurement, in milliseconds."""
    small = [
        dataclasses.replace(s, sizes=(8, 256)) for s in tune.SWEEPS if s.key == "dot_blas_min_k"
    ]
    monkeypatch.setattr(tune, "SWEEPS", small)


@pytest.fixture
def config_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """XDG_CONFIG_HOME in tmp_path, STRIDEDARRAY_POLICY unset: nothing touches ~/.config."""
    monkeypatch.delenv("STRIDEDARRAY_POLICY", raising=False)
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def _no_measuring(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("tune measured although an output path was unusable")

    monkeypatch.setattr(tune, "measure_sweep", fail)


# -- exit status --------------------------------------------------------------------------
def test_bench_exits_1_when_a_result_differs_from_numpy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench_cli.main([*ONE_CASE, "--out", str(tmp_path / "ok")]) == 0
    correct = sa.Array.__matmul__

    def off_by_one(a: sa.Array, b: sa.Array) -> sa.Array:
        return correct(a, b) + 1

    monkeypatch.setattr(sa.Array, "__matmul__", off_by_one)
    assert bench_cli.main([*ONE_CASE, "--out", str(tmp_path / "bad")]) == 1
    err = capsys.readouterr().err
    assert "differ from NumPy" in err and "overhead f64 2x2" in err
    # The outputs are still written, with the case marked incorrect.
    data = json.loads((tmp_path / "bad" / "results-1thread.json").read_text())
    assert [c["correct"] for c in data["cases"]] == [False]


def test_bench_refuses_a_file_as_output_directory_before_running(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("")
    with pytest.raises(SystemExit, match="--out: .* is a file"):
        bench_cli.main([*ONE_CASE, "--out", str(target)])


# -- --version and program names ----------------------------------------------------------
@pytest.mark.parametrize("module", ["stridedarray", "stridedarray.bench", "stridedarray.tune"])
def test_version(module: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"python -m {module} (stridedarray {sa.__version__})"


@pytest.mark.parametrize(
    "script, main",
    [("stridedarray-bench", "stridedarray.bench.cli"), ("stridedarray-tune", "stridedarray.tune")],
)
def test_usage_line_names_the_console_script(script: str, main: str) -> None:
    # A console script runs main() with argv[0] set to the script's path.
    code = (
        f"import sys; sys.argv = ['/opt/bin/{script}', '--help']; "
        f"from {main} import main; raise SystemExit(main())"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {script} ")
    module = main.removesuffix(".cli")
    proc = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120
    )
    assert proc.stdout.startswith(f"usage: python -m {module} ")


def test_main_module_takes_help_and_refuses_unknown_flags() -> None:
    """`python -m stridedarray` parses its flags: --help describes it and runs no demo, an
    unknown flag is a usage error (exit 2) naming it."""
    proc = subprocess.run(
        [sys.executable, "-m", "stridedarray", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: python -m stridedarray ")
    assert "demo" in proc.stdout and "max |stridedarray" not in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "stridedarray", "--bogus"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == "" and "unrecognized arguments: --bogus" in proc.stderr


def test_console_scripts_are_declared_and_resolve() -> None:
    tomllib = pytest.importorskip("tomllib")
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not run from a source tree")
    scripts = tomllib.loads(pyproject.read_text())["project"]["scripts"]
    assert scripts == {
        "stridedarray-bench": "stridedarray.bench.cli:main",
        "stridedarray-tune": "stridedarray.tune:main",
    }
    for target in scripts.values():
        module, attr = target.split(":")
        assert callable(getattr(importlib.import_module(module), attr))


@pytest.mark.parametrize("script", ["stridedarray-bench", "stridedarray-tune"])
def test_installed_console_script(script: str) -> None:
    path = Path(sys.executable).parent / script
    if not path.exists():
        pytest.skip(f"{script} is not installed beside this Python")
    proc = subprocess.run([str(path), "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {script} ")


# -- a closed pipe ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["stridedarray"],
        ["stridedarray.bench", "--list"],
        ["stridedarray.bench", "--help"],
        ["stridedarray.tune", "--help"],
    ],
    ids=["demo", "bench --list", "bench --help", "tune --help"],
)
def test_output_into_a_closed_pipe_ends_cleanly(args: list[str]) -> None:
    """`stridedarray-bench --list | head -1`, `python -m stridedarray | head -1`: the reader
    is gone before the output is."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


# -- tune: output paths checked before measuring ------------------------------------------
def test_tune_refuses_a_directory_as_out_before_measuring(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _no_measuring(monkeypatch)
    with pytest.raises(SystemExit, match=r"--out: .* is a directory; give a file path"):
        tune.main([*ONE_KEY, "--out", str(tmp_path)])


@pytest.mark.parametrize("option", ["--out", "--raw"])
def test_tune_refuses_a_path_under_a_file_before_measuring(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, option: str
) -> None:
    _no_measuring(monkeypatch)
    (tmp_path / "plain").write_text("")
    target = tmp_path / "plain" / "sub" / "x.json"
    with pytest.raises(SystemExit, match=f"{option}: cannot write .*plain is not a directory"):
        tune.main([*ONE_KEY, "--out", str(tmp_path / "p.json"), option, str(target)])


def test_tune_creates_missing_parents_of_raw_and_out(small_sweeps: None, tmp_path: Path) -> None:
    raw, out = tmp_path / "a" / "b" / "raw.json", tmp_path / "c" / "d" / "policy.json"
    assert tune.main([*ONE_KEY, "--raw", str(raw), "--out", str(out)]) == 0
    table = _policy.load_policy_file(out)
    sweep = json.loads(raw.read_text())["sweeps"][0]
    assert table["dot_blas_min_k"] == sweep["crossover"]


@pytest.mark.parametrize("option", ["--out", "--raw"])
def test_tune_saves_elsewhere_when_writing_fails_after_measuring(
    small_sweeps: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
) -> None:
    # The paths are fine when checked; while measuring, a file appears where the output's
    # directory was to be created, so the write fails after the measurement.
    paths = {"--out": tmp_path / "p" / "policy.json", "--raw": tmp_path / "r" / "raw.json"}
    blocked = paths[option]
    measure = tune.measure_sweep

    def measure_then_block(*args: object, **kwargs: object) -> dict:
        result = measure(*args, **kwargs)  # type: ignore[arg-type]
        blocked.parent.write_text("not a directory")
        return result

    monkeypatch.setattr(tune, "measure_sweep", measure_then_block)
    fallback_dir = tmp_path / "tmp"
    fallback_dir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(fallback_dir))
    assert tune.main([*ONE_KEY, "--out", str(paths["--out"]), "--raw", str(paths["--raw"])]) == 1
    err = capsys.readouterr().err
    saved = list(fallback_dir.iterdir())
    assert len(saved) == 1
    assert f"{option}: could not write {blocked}" in err and str(saved[0]) in err
    # What was saved is the measurement the other output (written where asked) also holds.
    if option == "--out":
        table = _policy.load_policy_file(saved[0])  # a policy file the library can load
        assert table == json.loads(paths["--raw"].read_text())["policy"]
    else:
        raw = json.loads(saved[0].read_text())
        assert raw["sweeps"][0]["key"] == "dot_blas_min_k"
        assert raw["policy"] == _policy.load_policy_file(paths["--out"])


# -- tune and the library agree on the user's policy file ---------------------------------
def test_user_policy_path_follows_xdg_config_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("STRIDEDARRAY_POLICY", raising=False)
    default = Path.home() / ".config" / "stridedarray" / "policy.json"
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert _policy.user_policy_path() == default
    for relative_or_empty in ("", "relative/dir"):  # the XDG spec: ignored
        monkeypatch.setenv("XDG_CONFIG_HOME", relative_or_empty)
        assert _policy.user_policy_path() == default
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert _policy.user_policy_path() == tmp_path / "stridedarray" / "policy.json"
    assert tune.policy_path() == _policy.user_policy_path()
    monkeypatch.setenv("STRIDEDARRAY_POLICY", str(tmp_path / "elsewhere.json"))
    assert tune.policy_path() == tmp_path / "elsewhere.json"


def test_tune_writes_the_file_the_library_loads(small_sweeps: None, config_home: Path) -> None:
    assert tune.main(ONE_KEY) == 0
    written = config_home / "stridedarray" / "policy.json"
    table = json.loads(written.read_text())
    assert set(table) == set(_policy.DEFAULT_POLICY)
    # A value no default has, so the check below sees this file and nothing else.
    table["gemm_pack_min"] = 77
    written.write_text(json.dumps(table))
    code = (
        "import json, stridedarray._matmul.policy as p; "
        "print(p.policy_path()); print(json.dumps(p.current_policy()))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stderr
    path, policy = proc.stdout.splitlines()
    assert Path(path) == written
    assert json.loads(policy)["gemm_pack_min"] == 77


# -- the plot's axes ----------------------------------------------------------------------
@given(st.floats(1e-6, 1e6), st.floats(1e-6, 1e6))
def test_ratio_ticks_bracket_the_data(a: float, b: float) -> None:
    from stridedarray.bench.plot import ratio_ticks

    lo, hi = min(a, b), max(a, b)
    ticks = ratio_ticks(lo, hi)
    assert 1.0 in ticks and ticks == sorted(set(ticks))
    assert 3 <= len(ticks) <= 16
    assert ticks[0] / 1.05 <= lo and hi <= ticks[-1] * 1.05


@pytest.mark.parametrize("columns", [2, 1])
def test_plot_labels_every_measured_size_and_ratio_gridlines(columns: int) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from stridedarray.bench.plot import ratio_figure

    sizes = (8, 12, 32, 256)
    rows = [
        {
            "group": "grid",
            "config": f"f64 lhs {kind}",
            "size": s,
            "ratio": 0.6 + 0.1 * i + (0.05 if kind == "rev" else 0),
        }
        for kind in ("rev", "step2")
        for i, s in enumerate(sizes)
    ]
    rows += [
        {"group": "blas", "config": "f64 C", "size": s, "ratio": 0.9 + 0.03 * i}
        for i, s in enumerate(sizes)
    ]
    rows.append({"group": "blas", "config": "f64 F", "size": 64, "ratio": math.nan})
    fig = ratio_figure(rows, "test", columns)
    try:
        fig.canvas.draw()
        for ax in fig.axes:
            assert [t.get_text() for t in ax.get_xticklabels()] == [str(s) for s in sizes]
            labels = [t.get_text() for t in ax.get_yticklabels()]
            values = [float(v) for v in labels]  # every gridline is labelled with its ratio
            assert len(values) >= 3 and "1" in labels
            drawn = [y for line in ax.lines[:-1] for y in line.get_ydata()]
            assert min(values) / 1.05 <= min(drawn) and max(drawn) <= max(values) * 1.05
    finally:
        plt.close(fig)


def test_tune_says_how_to_load_a_file_written_elsewhere(
    small_sweeps: None, config_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert tune.main(ONE_KEY) == 0
    out = capsys.readouterr().out
    assert "stridedarray loads it at import" in out and "not the file" not in out
    elsewhere = tmp_path / "mine.json"
    assert tune.main([*ONE_KEY, "--out", str(elsewhere)]) == 0
    out = capsys.readouterr().out
    assert "loads it at import" not in out
    assert f"set STRIDEDARRAY_POLICY={elsewhere.resolve()}" in out
    # What the message says works: the library then loads that file.
    table = json.loads(elsewhere.read_text())
    table["gemm_pack_min"] = 77
    elsewhere.write_text(json.dumps(table))
    code = "import stridedarray._matmul.policy as p; print(p.current_policy()['gemm_pack_min'])"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "STRIDEDARRAY_POLICY": str(elsewhere)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "77"


# -- what `python -m stridedarray` reports ----------------------------------------------------
def test_main_module_reports_the_threads_once() -> None:
    """One line says how many threads the core uses and how BLAS calls relate to them; the
    BLAS line does not give a second, different count."""
    proc = subprocess.run(
        [sys.executable, "-m", "stridedarray"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.split("\ndemo:", 1)[0].splitlines()
    about_threads = [line for line in header if "thread" in line]
    assert len(about_threads) == 1, header
    # the count a fresh process has (this one's may have been changed by other tests)
    fresh = subprocess.run(
        [sys.executable, "-c", "import stridedarray as sa; print(sa.get_num_threads())"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert about_threads[0].startswith(f"threads: {int(fresh.stdout)} (")
    assert "per call" not in proc.stdout


def test_threads_line_when_openblas_has_its_own_threads() -> None:
    from stridedarray.__main__ import threads_line

    line = threads_line(2, 4, "libgomp.so.1")
    assert line.startswith("threads: 2 (BLAS calls run on OpenBLAS's own 4 instead")
    assert threads_line(2, 1, "x").startswith("threads: 2 (the C core splits products")
