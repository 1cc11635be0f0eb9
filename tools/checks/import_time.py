"""How long `import stridedarray` takes beside `import numpy`, and where the difference goes.

    python tools/checks/import_time.py            # median of 10 fresh interpreters each
    python tools/checks/import_time.py --runs 20 --top 15

Each run starts a fresh `python -c "import X"` from the repository root (so the checkout's
package is the one imported), NumPy and stridedarray alternating, and reports the median wall
times and their ratio (the interpreter's own start-up included, as a user sees it). Then one
`python -X importtime -c "import stridedarray"` lists the modules it imports beyond NumPy's,
by their own import time. Compile the bytecode first (`python -m compileall -q stridedarray`)
when PYTHONDONTWRITEBYTECODE is set, or the package is compiled on every run and NumPy's is not.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def wall(module: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, cwd=ROOT)
    return time.perf_counter() - t0


def self_times(statement: str) -> dict[str, int]:
    """Module -> its own import time in microseconds, from -X importtime."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    rows = [ln.split("|") for ln in err.splitlines() if ln.startswith("import time:")][1:]
    return {r[-1].strip(): int(r[0].split(":")[1]) for r in rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=10, help="interpreters per module (10)")
    p.add_argument("--top", type=int, default=10, help="modules to list (10)")
    args = p.parse_args()
    times: dict[str, list[float]] = {"numpy": [], "stridedarray": []}
    for _ in range(args.runs):
        for module, got in times.items():
            got.append(wall(module))
    med = {m: statistics.median(v) * 1e3 for m, v in times.items()}
    print(
        f"median of {args.runs}: import numpy {med['numpy']:.1f} ms, import stridedarray "
        f"{med['stridedarray']:.1f} ms, ratio {med['stridedarray'] / med['numpy']:.2f}"
    )
    numpy_alone = set(self_times("import numpy"))
    extra = {k: v for k, v in self_times("import stridedarray").items() if k not in numpy_alone}
    print(
        f"modules beyond NumPy's: {len(extra)}, {sum(extra.values()) / 1e3:.1f} ms of their "
        "own import time; the largest:"
    )
    for name, us in sorted(extra.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {us / 1e3:7.2f} ms  {name}")


if __name__ == "__main__":
    main()
