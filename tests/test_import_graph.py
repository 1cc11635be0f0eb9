"""The package's module structure: no import cycles, the array type at the bottom, Array's
members bound in one place.

The import graph is read from the source with `ast` (tools/checks/import_graph.py): an edge for
every import of one of the package's modules, at module level or inside a function, and none for
imports under `if TYPE_CHECKING:`, which never run."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import stridedarray as sa

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(sa.__file__).resolve().parent
# The directory a child interpreter starts in, so that it imports the package under test: the
# source tree in a development install, site-packages when the installed wheel is tested (from
# the sdist's tests, whose tree has no built extension).
IMPORTS_FROM = PACKAGE.parent


def _tool() -> Any:
    """tools/checks/import_graph.py, the script that builds the graph and prints the
    measurements."""
    path = ROOT / "tools" / "checks" / "import_graph.py"
    if not path.exists():
        pytest.skip("needs tools/checks/import_graph.py", allow_module_level=True)
    spec = importlib.util.spec_from_file_location("import_graph", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_graph", mod)
    spec.loader.exec_module(mod)
    return mod


ig = _tool()

# The array type and what it is made of: Array's class statement and the modules it takes its
# methods from, with the dtypes, argument checks, operator table and the cffi core they use.
# They import only each other; every other module of the package may import them.
BOTTOM = {
    "_array",
    "_array_convert",
    "_array_dlpack",
    "_array_pickle",
    "_descriptor",
    "_dtypes",
    "_ffi",
    "_operator_table",
    "_validation",
}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return ig.import_graph(PACKAGE)


def test_the_graph_sees_every_module(graph: dict[str, set[str]]) -> None:
    assert set(graph) == {p.stem for p in PACKAGE.glob("*.py")}
    assert {"_array", "_elementwise", "__init__"} <= set(graph)
    assert "_array" in graph["_elementwise"]


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    assert ig.cycles(graph) == []


def test_the_array_type_is_at_the_bottom(graph: dict[str, set[str]]) -> None:
    assert ig.reach(graph, {"_array"}) <= BOTTOM, ig.reach(graph, {"_array"}) - BOTTOM
    for m in BOTTOM:
        assert graph[m] <= BOTTOM, (m, graph[m] - BOTTOM)


def test_the_array_types_c_code_imports_only_the_bottom() -> None:
    sources = sorted((ROOT / "csrc" / "arraytype").glob("*.c"))
    if not sources:
        pytest.skip("needs the C sources (csrc/arraytype/)")
    imports = re.compile(r'PyImport_ImportModule\("stridedarray\.(\w+)"')
    imported = {m for p in sources for m in imports.findall(p.read_text())}
    assert imported <= BOTTOM, imported - BOTTOM


def test_array_is_changed_from_one_place_only() -> None:
    # Only _bind sets attributes on Array after its class statement (one loop over its table).
    assert ig.attribute_setters(PACKAGE) == {"_bind": 1}
    surface = ig.runtime_surface(PACKAGE)
    assert surface["set_later_undeclared"] == []
    assert surface["declared_missing"] == []
    # ... and never replaces what the class statement itself defines.
    from stridedarray import _bind

    tree = ast.parse((PACKAGE / "_array.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    assert not set(_bind.MEMBERS) & ig._class_names(cls.body, False)


def test_the_checker_finds_deferred_cycles_and_skips_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import a, b, c\n")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import b\n"
        "if TYPE_CHECKING:\n"
        "    from .c import C\n"
    )
    (pkg / "b.py").write_text("def f():\n    from .c import g\n    return g\n")
    (pkg / "c.py").write_text(
        "import typing\n"
        "if typing.TYPE_CHECKING:\n"
        "    from . import a\n"
        "def g():\n"
        "    import stridedarray\n"  # another package's name: not an edge
        "    return stridedarray\n"
    )
    g = ig.import_graph(pkg)
    assert g == {"__init__": {"a", "b", "c"}, "a": {"b"}, "b": {"c"}, "c": set()}
    assert ig.cycles(g) == []
    (pkg / "c.py").write_text("def g():\n    from . import a\n    return a\n")
    assert ig.cycles(ig.import_graph(pkg)) == [["a", "b", "c"]]


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
