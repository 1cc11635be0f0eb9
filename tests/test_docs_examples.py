"""The documentation's examples run, and the pages carry no development history.

Every ```python block with `>>>` prompts in docs/*.md is a doctest, the blocks of one page
sharing their names in order (as a reader pastes them). A ```python block without prompts is
at least compiled. The examples run under the shipped matmul policy, so the routes they show
are those a fresh install takes, whatever policy file this machine has."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import stridedarray as sa
from stridedarray._policy import DEFAULT_POLICY

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.glob("*.md"))
EXAMPLE_PAGES = [p for p in PAGES if ">>> " in p.read_text()]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# Pages a reader starts from: each must show runnable examples.
MUST_HAVE_EXAMPLES = {"index.md", "quickstart.md", "array.md", "matmul.md", "tuning.md",
                      "interop.md", "namespace.md", "namespace-part2.md", "scale-out.md"}


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=[p.name for p in EXAMPLE_PAGES])
def test_examples_in_page_run(page: Path) -> None:
    blocks = BLOCK.findall(page.read_text())
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    globs: dict = {}
    with sa.matmul_policy(**DEFAULT_POLICY):
        for i, block in enumerate(blocks):
            test = parser.get_doctest(block, globs, f"{page.name}[{i}]", str(page), 0)
            runner.run(test, clear_globs=False)
            globs = test.globs  # DocTest works on a copy: carry the names to the next block
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) in {page.name} failed (see output)"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_code_without_prompts_compiles(page: Path) -> None:
    for i, block in enumerate(BLOCK.findall(page.read_text())):
        if ">>> " not in block:
            compile(block, f"{page.name}[{i}]", "exec")


def test_guides_have_examples() -> None:
    missing = MUST_HAVE_EXAMPLES - {p.name for p in EXAMPLE_PAGES}
    assert not missing, f"pages without runnable examples: {sorted(missing)}"


# What a development log says and a user guide does not: issue numbers, commit hashes,
# sessions and earlier attempts. History belongs in CHANGELOG.md (docs/changelog.md).
HISTORY = re.compile(r"\bissues?\s+#?\d+|\((this|last|previous)\s+session|"
                     r"\b(this|last|previous|that)\s+session\b|\bthe\s+previous\s+(try|attempt)\b|"
                     r"\bthe\s+seed\b|\bseed's\b|"
                     r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b", re.I)


GUIDES = [p for p in PAGES if p.name != "changelog.md"]


@pytest.mark.parametrize("page", GUIDES, ids=[p.name for p in GUIDES])
def test_page_has_no_development_history(page: Path) -> None:
    hits = [m.group(0) for m in HISTORY.finditer(page.read_text())]
    assert not hits, f"{page.name} reads like a development log: {hits}"
