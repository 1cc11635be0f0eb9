"""What type checkers see of Array matches what exists at run time.

The operators, assignment, the namespace, NumPy's protocols and NumPy's methods are bound onto
Array when the package imports (the one table, `_bind.MEMBERS`); Array's class statement
declares them for type checkers in an `if TYPE_CHECKING:` block (the operators by importing
them from `_operators`). These tests keep the two
lists equal, and check with mypy (when installed) that user code gets Arrays back from the
operators."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import stridedarray as sa
from stridedarray import _array, _bind
from stridedarray._arraytype import ArrayBase

pytestmark = [
    pytest.mark.version_sensitive,
    pytest.mark.install,
]  # tests/conftest.py says what each means


def _declared_for_type_checkers() -> set[str]:
    """Names defined or annotated inside the TYPE_CHECKING block of Array's class statement."""
    tree = ast.parse(inspect.getsource(_array))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    blocks = [
        n
        for n in cls.body
        if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1
    names = set()
    for node in blocks[0].body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):  # the operators, from _operators by name
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def test_declarations_match_what_is_bound() -> None:
    assert _declared_for_type_checkers() == set(_bind.MEMBERS)


def test_everything_declared_exists_on_array() -> None:
    for name in _declared_for_type_checkers():
        assert name in vars(sa.Array), f"{name} is not bound onto Array itself"
        assert vars(sa.Array)[name] is _bind.MEMBERS[name], name
        if name == "__hash__":
            assert sa.Array.__hash__ is None
        else:
            assert callable(getattr(sa.Array, name)), name


def test_indexing_and_the_transposes_are_the_array_types_own() -> None:
    # Read in C, inherited from the array type (typed in _arraytype.pyi), never rebound.
    for name in ("__getitem__", "mT", "T"):
        assert name not in vars(sa.Array), name
        assert getattr(sa.Array, name) is getattr(ArrayBase, name), name


USER_CODE = """\
import stridedarray as sa

x = sa.asarray([[1.0, 2.0], [3.0, 4.0]])
reveal_type(x + 1)
reveal_type(2.0 * x)
reveal_type(x @ x)
reveal_type(x == x)
reveal_type(-x)
reveal_type(x.mT)
reveal_type(x.sum(axis=0))
x += 1
x.no_such_attribute
"""


def test_mypy_sees_the_operators(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    user = tmp_path / "user.py"
    user.write_text(USER_CODE)
    root = Path(sa.__file__).resolve().parent.parent
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-error-summary",
            "--hide-error-context",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--config-file",
            "",
            str(user),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    )
    lines = [
        ln.split(":", 2)[2].strip() for ln in proc.stdout.splitlines() if ln.startswith(str(user))
    ]
    array = 'note: Revealed type is "stridedarray._array.Array"'
    assert lines == [array] * 6 + [
        'note: Revealed type is "Any"',
        'error: "Array" has no attribute "no_such_attribute"  [attr-defined]',
    ], proc.stdout + proc.stderr
