"""A speed figure a reader sees is the benchmark's own output, held in one place.

The results pages (docs/benchmarks.md and docs/scale-out.md) include the tables that
`python -m stridedarray.bench --docs docs/generated` writes (and, from the research suites,
`python -m benchmarks --suite overhead --docs docs/generated` and `--dask`). Every other
sentence of the manual or the README that quotes a speed figure ("12x", "12×", "2.4 to 13
times faster", "0.8 times NumPy's time") must quote a number one of those tables holds, exactly
(2.4 matches a cell of 2.40, not one of 2.41); otherwise it says "faster" and links to the
results. So a figure goes stale in one place only: the tables, which the benchmark
regenerates."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RESULTS = (DOCS / "benchmarks.md", DOCS / "scale-out.md")
# The tables themselves are the benchmark's `--docs` output, which the results pages include.
GENERATED = sorted((DOCS / "generated").glob("*.md"))
PAGES = [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]

NUM = r"(?<![\w.,])\d+(?:\.\d+)?(?![\d,])"
# "24x", "1.03x", "12×" (a ratio), but not a shape or product such as "4x4", "64×64", "2 x 2".
RATIO = re.compile(rf"({NUM})\s?[x×](?![\w×])(?!\s?\d)")
# "3 times faster", "1.5 to 2.9 times slower", "1.7-1.8 times NumPy's time": "N times" is a
# speed figure when a comparison follows it, not a count ("forks 20 times").
TIMES = re.compile(
    rf"({NUM})(?:\s*(?:to|-|–)\s*({NUM}))?\s+times\s+(?:faster|slower|as\s+fast|NumPy|the\b)",
    re.I,
)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CELL_NUMBER = re.compile(r"(\d+(?:\.\d+)?)x?")
# Inside a table's text cells: a ratio ("within 1.10x") or a target's bound (">= 0.91").
CELL_FIGURE = re.compile(rf"({NUM})x(?!\w)|>=\s*({NUM})")


def _table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("|")]


def held_figures(text: str) -> set[Decimal]:
    """The numbers a results page's tables hold: ratio cells and the targets' figures."""
    held: set[Decimal] = set()
    for row in _table_rows(text):
        for cell in row.strip().strip("|").split("|"):
            cell = cell.strip()
            whole = CELL_NUMBER.fullmatch(cell)
            if whole:
                held.add(Decimal(whole.group(1)))
                continue
            for m in CELL_FIGURE.finditer(cell):
                held.add(Decimal(m.group(1) or m.group(2)))
    return held


def quoted_figures(text: str, *, skip_tables: bool) -> list[tuple[str, str]]:
    """(figure, its context) for every speed figure in the prose of a page.

    A paragraph is read as one line, so that a figure wrapped across lines is still seen."""
    text = FENCE.sub("", text)
    if skip_tables:
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|"))
    found: list[tuple[str, str]] = []
    for paragraph in re.split(r"\n\s*\n", text):
        prose = " ".join(paragraph.split())
        for m in [*RATIO.finditer(prose), *TIMES.finditer(prose)]:
            context = prose[max(0, m.start() - 50) : m.end() + 30]
            found.extend((g, context) for g in m.groups() if g)
    return found


def unheld(text: str, held: set[Decimal], *, skip_tables: bool = False) -> list[str]:
    return [
        f"{fig!r} in: ...{context}..."
        for fig, context in quoted_figures(text, skip_tables=skip_tables)
        if Decimal(fig) not in held
    ]


@pytest.fixture(scope="module")
def held() -> set[Decimal]:
    figures: set[Decimal] = set()
    for page in (*RESULTS, *GENERATED):
        figures |= held_figures(page.read_text())
    return figures


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_quotes_only_figures_the_results_hold(page: Path, held: set[Decimal]) -> None:
    # The results pages' own tables are the source; their prose is checked like any page's.
    stale = unheld(page.read_text(), held, skip_tables=page in RESULTS)
    assert not stale, (
        f"{page.name} quotes speed figures that the tables of "
        f"{' and '.join(p.name for p in RESULTS)} do not hold; quote a figure from them or "
        "link to them without a number:\n" + "\n".join(stale)
    )


def test_results_pages_hold_figures(held: set[Decimal]) -> None:
    # An empty set would let every figure fail and hide the check's purpose; a table format
    # change that this parser no longer reads shows here.
    assert Decimal("1.00") in held and len(held) > 50


def test_checker_finds_stale_and_accepts_held_figures() -> None:
    held = held_figures(
        "| case | speed-up |\n|---|---:|\n| int S=64 | 24.01x |\n| grid | 2.40 |\n"
        "| target: speed-up >= 0.5 | 1.06 |\n"
    )
    assert held == {Decimal("24.01"), Decimal("2.40"), Decimal("0.5"), Decimal("1.06")}
    stale = (
        "Small products are up to 1.7 times slower. Integers run 6 to 26 times faster, "
        "views 8x NumPy's cost, vectors 2.41x."
    )
    assert [f for f, _ in quoted_figures(stale, skip_tables=False)] == [
        "8",
        "2.41",
        "1.7",
        "6",
        "26",
    ]
    assert len(unheld(stale, held)) == 5
    fine = (
        "Integer products run 24.01x NumPy's speed, vectors 2.4 times faster; a 4x4 array, "
        "64×64 matrices, a 2 x 2 product, forks 20 times, 10 times (what NumPy does)."
    )
    assert unheld(fine, held) == []
