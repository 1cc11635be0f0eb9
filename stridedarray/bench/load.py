"""`--load K`: K busy processes beside the measurement, as other work on a shared machine.

Each is a child Python process spinning on a CPU. They start before the first case (and run
for a moment before it, so the scheduler sees them) and stop after the last, whatever ends
the run: an error, Ctrl-C or SIGTERM (turned into SystemExit while they run). A child also
stops by itself when its parent is gone (it watches its parent's id), so even a killed
benchmark leaves none behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["busy_processes", "SPIN"]

# The child: spin until the parent exits (its parent id then changes to init's or a
# subreaper's). The parent's id comes as an argument, not from the child's first getppid():
# a parent killed while the child starts up would otherwise be missed. The check costs nothing
# beside the spin.
SPIN = (
    "import os, sys\n"
    "parent = int(sys.argv[1])\n"
    "while os.getppid() == parent:\n"
    "    for _ in range(200_000):\n"
    "        pass\n"
)


@contextmanager
def busy_processes(k: int, ramp_s: float = 0.2) -> Iterator[list[int]]:
    """Run `k` spinning child processes for the duration of the block; yields their ids."""
    if k < 0:
        raise ValueError(f"--load must be >= 0, got {k}")
    procs: list[subprocess.Popen] = []
    previous = None
    if k and threading.current_thread() is threading.main_thread():

        def _terminate(signum: int, frame: FrameType | None) -> None:
            raise SystemExit(128 + signum)

        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        for _ in range(k):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", SPIN, str(os.getpid())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        if k:
            time.sleep(ramp_s)
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def running(pid: int) -> bool:
    """Is process `pid` still there (and not a zombie)?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
