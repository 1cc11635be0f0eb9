"""The package's layers, as the import contracts in pyproject.toml state them
(docs/dev/architecture.md, "Import layers"): `lint-imports` keeps them, and a planted import
that crosses a layer breaks them; the array type's C code imports only the bottom layer;
`import stridedarray` imports nothing heavy, and the extensions load on first use.

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

ROOT = Path(__file__).resolve().parents[2]
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


# The directory a child interpreter starts in, so that it imports the package under test: the
# source tree in a development install, site-packages when the installed wheel is tested.
IMPORTS_FROM = PACKAGE.parent


def _imported_by(statement: str) -> set[str]:
    """The modules a fresh interpreter imports to run `statement`, as `-X importtime` lists
    them (the interpreter's own start-up included)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        cwd=IMPORTS_FROM,
        timeout=120,
        check=True,
    )
    rows = [ln.split("|") for ln in proc.stderr.splitlines() if ln.startswith("import time:")]
    return {r[-1].strip() for r in rows[1:]}  # rows[0] is the header


# What `import stridedarray` may import beyond what `import numpy` does, besides its own
# modules: cffi's backend (the matmul core) and dataclasses (finfo/iinfo; with copy and, on
# 3.11, copy's probe of Jython's org.python.core).
# Everything else (json, subprocess, ctypes.util, the fft and linalg extensions, NumPy's fft,
# the tuning tool, the benchmark, Dask) is imported when first used, not at start-up.
STARTUP_EXTRA = {
    "__future__",  # the modules' `from __future__ import annotations`: a few names
    "collections.abc",  # on 3.14 an alias module of _collections_abc, which is loaded already
    "_cffi_backend",
    "dataclasses",
    "copy",
    "org",
    "org.python",
    "org.python.core",
}


def test_import_imports_nothing_heavy_at_start_up() -> None:
    numpy_alone = _imported_by("import numpy")
    ours = _imported_by("import stridedarray")
    extra = {m for m in ours - numpy_alone if m.split(".")[0] != "stridedarray"}
    assert extra <= STARTUP_EXTRA, f"import stridedarray now also imports {extra - STARTUP_EXTRA}"
    lazy = {"stridedarray.fft", "stridedarray.linalg", "stridedarray.tune", "stridedarray.bench"}
    assert not ours & lazy
    assert "numpy" in ours and "stridedarray._arraytype" in ours  # the parse saw the imports


def test_lazy_extensions_are_attributes_and_pickle_by_reference() -> None:
    """`sa.linalg` and `sa.fft` load on first use, in a fresh interpreter, and their
    functions then pickle by reference like the package's."""
    code = (
        "import pickle, sys, stridedarray as sa\n"
        "assert 'stridedarray.linalg' not in sys.modules\n"
        "old = sa.ones(1).__array_namespace__(api_version='2023.12')  # a copy: loads them\n"
        "assert old.linalg is sys.modules['stridedarray.linalg'] and old.fft is sa.fft\n"
        "f = sa.linalg.vector_norm\n"
        "assert pickle.loads(pickle.dumps(f)) is f, f.__module__\n"
        "assert pickle.loads(pickle.dumps(sa.fft.fft)) is sa.fft.fft\n"
        "assert {'fft', 'linalg'} <= set(dir(sa)) and sa.fft is sys.modules['stridedarray.fft']\n"
        "from stridedarray import *\n"
        "print(sa.linalg.vector_norm.__module__, sa.fft.fft.__qualname__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=IMPORTS_FROM, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["stridedarray.linalg", "fft"]
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        sa.nonexistent  # noqa: B018
