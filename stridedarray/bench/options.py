"""What a per-call suite reads from the command line (`Options`) and the `--filter` rule every
suite shares (`select`, `chosen`): `--suite expressions` here, and the research suites of the
repository's `benchmarks/` folder, which import them from here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Options", "chosen", "select"]


@dataclass(frozen=True)
class Options:
    """The command line's options a per-call suite reads."""

    out: Path
    quick: bool = False
    pattern: str | None = None  # --filter
    threads: int | None = 1  # None: each library's default
    seed: int = 0
    list_only: bool = False
    progress: bool = True
    docs: Path | None = None


def chosen(items: list, opts: Options, what: str, *fields: str) -> list | None:
    """The items `--filter` keeps (see `select`); None after printing their names for
    `--list`; SystemExit when the filter keeps none."""
    selected = select(items, opts.pattern, *fields)
    if opts.list_only:
        print("\n".join(it.name for it in selected))
        return None
    if not selected:
        raise SystemExit(f"--filter {opts.pattern!r} matches no {what} (see --list)")
    return selected


def select(items: list, pattern: str | None, *fields: str) -> list:
    """The items with a `fields` attribute matching the `--filter` regex (case-insensitive),
    all of them without one; SystemExit naming `--filter` for an invalid expression."""
    if not pattern:
        return items
    try:
        rx = re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise SystemExit(f"--filter: not a valid regular expression: {exc}") from None
    return [it for it in items if any(rx.search(getattr(it, f)) for f in fields)]
