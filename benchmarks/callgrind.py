"""Instructions per call under valgrind's callgrind, for `--suite overhead --callgrind`.

Times move with the load of a shared machine; the count of executed instructions does not. Each
library runs in a child process under `valgrind --tool=callgrind`, which collects only inside
`itertools.starmap`'s next function (`--toggle-collect=starmap_next`), so the interpreter's
start, the imports and the operands' set-up are not counted. For every case the child runs the
statement N times as the body of a function called by `itertools.starmap`, after an empty
function the same way; the count per call is (statement loop - empty loop) / N. The statement
is the function's body, not a returned value: freeing its result is counted too. Callgrind
writes one dump per loop (`--dump-before=itertools_starmap`: each new starmap object closes the
previous loop's count), which the parent reads back.
"""

from __future__ import annotations

import collections
import itertools
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["available", "measure"]

CALLS = 1000  # calls of a statement per count
WARMUP = 20  # calls before counting: CPython 3.11+ specialises a function's bytecode by then
_TOTALS = re.compile(r"^totals:\s+(\d+)", re.MULTILINE)


def available() -> bool:
    """Is valgrind on PATH?"""
    return shutil.which("valgrind") is not None


def _loop(f: object, n: int) -> None:
    # maxlen=0: each result (None) is dropped at once; the starmap object is what callgrind
    # collects inside and dumps before.
    collections.deque(itertools.starmap(f, itertools.repeat((), n)), maxlen=0)  # type: ignore[arg-type]


def child(argv: Sequence[str]) -> None:
    """In the valgrind child: argv = [library, seed, n, cases as JSON [[statement, size], ...]].
    Runs the empty loop and the statement's loop for each case, in order (two dumps per case),
    and prints a JSON list: per case, null or the statement's error."""
    import numpy as np

    from .cases import namespace_globals, namespaces, operands, torch_namespace

    lib, seed, n, cases = argv[0], int(argv[1]), int(argv[2]), json.loads(argv[3])
    xp = torch_namespace() if lib == "torch" else namespaces()[lib]
    bases: dict[int, dict] = {}
    errors: list[str | None] = []

    def empty() -> None:
        pass

    for stmt, size in cases:
        if size not in bases:
            bases[size] = operands(size, np.random.default_rng(seed))
        g = namespace_globals(xp, bases[size])
        exec(f"def _case():\n    {stmt}\n", g)  # noqa: S102 - the suite's own statements
        f = g["_case"]
        try:
            for _ in range(WARMUP):
                f()
        except Exception as exc:  # the library lacks the call: two empty loops keep the order
            errors.append(f"{type(exc).__name__}: {exc}")
            f = empty
        else:
            errors.append(None)
        for _ in range(WARMUP):
            empty()
        _loop(empty, n)
        _loop(f, n)
    _loop(empty, 0)  # closes the last loop's dump
    print(json.dumps(errors))


def _start(
    lib: str, cases: list[tuple[str, int]], seed: int, n: int, out: Path
) -> subprocess.Popen:
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--toggle-collect=starmap_next",
        "--dump-before=itertools_starmap",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-c",
        "import sys; from benchmarks.callgrind import child; child(sys.argv[1:])",
        lib,
        str(seed),
        str(n),
        json.dumps(cases),
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _totals(out: Path) -> list[int]:
    """The instruction count of each numbered dump, in order."""
    dumps = sorted(out.parent.glob(out.name + ".*"), key=lambda p: int(p.suffix[1:]))
    counts = []
    for p in dumps:
        m = _TOTALS.search(p.read_text())
        counts.append(int(m.group(1)) if m else 0)
    return counts


def measure(
    libs: Sequence[str], cases: list[tuple[str, int]], seed: int, n: int = CALLS
) -> dict[str, list[float | str]]:
    """Per library, per case: instructions per call (a float), or a string saying why there
    is none (the library's error for the statement). All libraries' children run at once
    (the counts do not depend on the load). RuntimeError when valgrind fails or the
    interpreter has no symbol for starmap's functions (a stripped build: nothing collected)."""
    result: dict[str, list[float | str]] = {}
    with tempfile.TemporaryDirectory(prefix="stridedarray-callgrind-") as tmp:
        procs = {
            lib: _start(lib, cases, seed, n, Path(tmp) / f"{k}.out") for k, lib in enumerate(libs)
        }
        for k, (lib, proc) in enumerate(procs.items()):
            stdout, stderr = proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError(f"callgrind run of {lib} failed:\n{stderr[-2000:]}")
            errors = json.loads(stdout.strip().splitlines()[-1])
            counts = _totals(Path(tmp) / f"{k}.out")
            # dump 1: before the first loop (nothing collected); then two per case.
            if len(counts) < 1 + 2 * len(cases) or not any(counts):
                raise RuntimeError(
                    f"callgrind run of {lib}: {len(counts)} dumps for {len(cases)} cases "
                    "(is the interpreter stripped of its symbols?)"
                )
            row: list[float | str] = []
            for i, err in enumerate(errors):
                empty, full = counts[1 + 2 * i], counts[2 + 2 * i]
                row.append(err if err is not None else (full - empty) / n)
            result[lib] = row
    return result
