"""The package's layers, as the import contracts in pyproject.toml state them
(docs/dev/architecture.md, "Import layers"): `lint-imports` keeps them, and a planted import
that crosses a layer breaks them; the array type's C code imports only the bottom layer.

The contracts read the source (grimp): imports at module level and inside functions count,
those under `if TYPE_CHECKING:` do not, as they never run."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import stridedarray as sa

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(sa.__file__).resolve().parent
CONFIG = ROOT / "pyproject.toml"


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` with the contracts of `root`/pyproject.toml, on the source under `root`
    (first on the path, so that the copy in a scratch directory is the one read)."""
    pytest.importorskip("importlinter", reason="needs import-linter (the dev extra)")
    code = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", code, str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _needs_checkout() -> None:
    if not (CONFIG.is_file() and (ROOT / "stridedarray").resolve() == PACKAGE):
        pytest.skip("needs the repository's checkout: the contracts are in its pyproject.toml")


def test_the_import_contracts_hold() -> None:
    _needs_checkout()
    r = _lint_imports(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 kept, 0 broken" in r.stdout, r.stdout


@pytest.mark.parametrize(
    ("module", "planted", "contract"),
    [
        # a chapter that imports the array class breaks both the layers and the class's rule
        ("_api/sets.py", "from .._array import array", "The parts in layers"),
        ("_matmul/policy.py", "from .._api import creation", "The parts in layers"),
        ("linalg.py", "from ._array.array import Array", "Only the array object"),
        ("bench/report.py", "import benchmarks.cases", "Nothing installed imports"),
        ("_api/getitem.py", "from . import setitem", "No import cycles"),
    ],
)
def test_a_planted_import_breaks_its_contract(
    tmp_path: Path, module: str, planted: str, contract: str
) -> None:
    _needs_checkout()
    shutil.copy(CONFIG, tmp_path / "pyproject.toml")
    for name in ("stridedarray", "benchmarks"):
        shutil.copytree(
            ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("*.so", "__pycache__")
        )
    target = tmp_path / "stridedarray" / module
    target.write_text(target.read_text() + f"\n\ndef _planted() -> None:\n    {planted}\n")
    r = _lint_imports(tmp_path)
    assert r.returncode != 0, r.stdout
    broken = [line for line in r.stdout.splitlines() if line.endswith(" BROKEN")]
    assert any(line.startswith(contract) for line in broken), r.stdout


def test_the_array_types_c_code_imports_only_the_bottom_layer() -> None:
    # What else C needs from Python is handed over once (_array/handover.py); an import from C
    # of a module above _base would tie the array type to it before the package is whole.
    src = ROOT / "csrc" / "arraytype"
    if not src.is_dir():
        pytest.skip("needs the repository's checkout (csrc/)")
    found = {
        m
        for p in src.glob("*.c")
        for m in re.findall(r'PyImport_ImportModule\("(stridedarray[\w.]*)"', p.read_text())
    }
    assert found, "the pattern no longer finds the C imports"
    assert all(m.startswith("stridedarray._base.") for m in found), found
