"""The documentation's examples run: every ```python block with `>>>` prompts in docs/*.md is
a doctest, the blocks of one page sharing their names in order (as a reader pastes them)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(p for p in DOCS.glob("*.md") if ">>> " in p.read_text())


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_examples_in_page_run(page: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    globs: dict = {}
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, globs, f"{page.name}[{i}]", str(page), 0)
        runner.run(test, clear_globs=False)
        globs = test.globs  # DocTest works on a copy: carry the names to the next block
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) in {page.name} failed (see output)"
