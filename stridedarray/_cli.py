"""What the command-line tools (`stridedarray-bench`, `stridedarray-tune`) share: the program
name in usage lines, `--version`, checking an output path before minutes of measuring, and
output into a pipe whose reader has gone (`stridedarray-bench --list | head`).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TextIO

_P = ParamSpec("_P")

__all__ = ["prog_name", "add_version", "emit", "exits_cleanly_on_closed_pipe", "check_output_file"]


def prog_name(module: str) -> str:
    """The command as the user typed it: a console script's own name (`stridedarray-bench`),
    or `python -m <module>` when run as a module (argv[0] is then the module's file)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if not name or name.endswith(".py") or name.startswith("-"):
        return f"python -m {module}"
    return name


def add_version(parser: argparse.ArgumentParser) -> None:
    """A `--version` option printing the stridedarray version."""
    import stridedarray

    parser.add_argument(
        "--version", action="version", version=f"%(prog)s (stridedarray {stridedarray.__version__})"
    )


def _discard(stream: TextIO) -> None:
    """Point the stream's file descriptor at the null device: later writes, and the flush
    at interpreter exit, then succeed silently instead of raising BrokenPipeError again."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (e.g. captured by a test)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def emit(text: str = "", file: TextIO | None = None) -> None:
    """print(text) that a closed pipe cannot interrupt: once the reader has gone, the rest of
    the output is dropped and the program goes on (files still get written, the exit status
    still says how the run went)."""
    stream = sys.stdout if file is None else file
    try:
        print(text, file=stream)
        stream.flush()
    except BrokenPipeError:
        _discard(stream)


def exits_cleanly_on_closed_pipe(main: Callable[_P, int]) -> Callable[_P, int]:
    """Wrap a CLI's main so that output into a closed pipe ends without a traceback (argparse's
    --help and --version print by themselves; the CLIs' own output goes through `emit`)."""

    @functools.wraps(main)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> int:
        try:
            return main(*args, **kwargs)
        except BrokenPipeError:  # output printed without `emit`: the run stopped there
            _discard(sys.stdout)
            return 1
        finally:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                _discard(sys.stdout)

    return run


def check_output_file(path: Path, option: str) -> None:
    """Exit with a message naming `option` when `path` cannot become a file (a directory is
    there, or a parent is a file or not writable); missing parent directories are fine (they
    are created on writing). Run before measuring, so no measurement is lost to a bad path."""
    if path.is_dir():
        raise SystemExit(
            f"{option}: {path} is a directory; give a file path, e.g. {path / 'policy.json'}"
        )
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise SystemExit(f"{option}: cannot write {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SystemExit(f"{option}: cannot write {path}: no permission to write in {parent}")
    if path.exists() and not os.access(path, os.W_OK):
        raise SystemExit(f"{option}: cannot write {path}: the file is not writable")
