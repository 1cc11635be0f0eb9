"""The documentation's examples run, and the pages carry no development history.

Every ```python block with `>>>` prompts in docs/*.md is a doctest, the blocks of one page
sharing their names in order (as a reader pastes them). A ```python block without prompts is
at least compiled. The Examples sections of the public docstrings (what the API reference
shows) run too. Examples run under the shipped matmul policy, so the routes they show are
those a fresh install takes, whatever policy file this machine has."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import numpy as np
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


def _public_objects() -> list[tuple[str, object]]:
    """Every public function and class of the namespace, its extensions and Array's members."""
    found = []
    for module in ("stridedarray", "stridedarray.linalg", "stridedarray.fft"):
        mod = importlib.import_module(module)
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        found += [(f"{module}.{n}", getattr(mod, n)) for n in names
                  if callable(getattr(mod, n))]
    found += [(f"stridedarray.Array.{n}", getattr(sa.Array, n)) for n in dir(sa.Array)
              if not n.startswith("_") or n in ("__getitem__", "__setitem__", "__matmul__")]
    return found


def test_docstring_examples_run() -> None:
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    with sa.matmul_policy(**DEFAULT_POLICY):
        for name, obj in _public_objects():
            defined_in = getattr(getattr(obj, "fget", obj), "__module__", None) or ""
            if not defined_in.startswith("stridedarray"):
                continue  # re-exported from NumPy (LinAlgError): NumPy's examples
            for test in finder.find(obj, name, globs={"np": np, "sa": sa, "stridedarray": sa}):
                runner.run(test)
    result = runner.summarize(verbose=False)
    if result.attempted == 0:
        pytest.skip("no public docstring has an example yet")
    assert result.failed == 0, f"{result.failed} docstring example(s) failed (see output)"


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
