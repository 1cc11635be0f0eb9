"""tools/checks/mutation-check: its mistakes still apply to the package as it is (each planted text
occurs exactly once), so the tool cannot rot unnoticed; the run itself is slow-marked
(docs/dev/testing.md gives its figures)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tool_scripts import load_tool

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "checks" / "mutation-check"


@pytest.fixture(scope="module")
def tool():
    return load_tool("checks/mutation-check")


def test_every_mutation_applies_once_and_changes_the_source(tool):
    assert len(tool.MUTATIONS) >= 5
    for name, (path, old, new, tests) in tool.MUTATIONS.items():
        source = (ROOT / "stridedarray" / path).read_text()
        assert source.count(old) == 1, f"{name}: update tools/checks/mutation-check"
        assert old != new, name
        assert tests and all((ROOT / t).is_file() for t in tests), name


@pytest.mark.slow
def test_every_mutation_is_caught():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    r = subprocess.run(
        [sys.executable, str(TOOL)], capture_output=True, text=True, env=env, timeout=1800
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SURVIVED" not in r.stdout
