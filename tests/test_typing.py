"""What type checkers see of Array matches what exists at run time.

The operators and NumPy's methods are bound onto Array when the package imports
(_elementwise, _matmul, _ndarray_methods); `_ArrayProtocols` declares them for type checkers
in an `if TYPE_CHECKING:` block. These tests keep the two lists equal, and check with mypy
(when installed) that user code gets Arrays back from the operators."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import stridedarray as sa
from stridedarray import _array_protocols, _basic_indexing, _elementwise
from stridedarray._arraytype import ArrayBase
from stridedarray._ndarray_methods import NDARRAY_METHODS


def _declared_for_type_checkers() -> set[str]:
    """Names defined or annotated inside the TYPE_CHECKING blocks of _ArrayProtocols, except
    the first block (Array's own fields and views, which the mixin reads)."""
    tree = ast.parse(inspect.getsource(_array_protocols))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_ArrayProtocols")
    blocks = [
        n
        for n in cls.body
        if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING"
    ]
    assert len(blocks) == 2
    names = set()
    for node in blocks[1].body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _bound_at_import() -> set[str]:
    binary = [f"__{p}{d}__" for d in (*_elementwise._OPERATORS, "matmul") for p in ("", "r", "i")]
    compare = [f"__{d}__" for d in _elementwise._COMPARISONS]
    unary = [f"__{d}__" for d in _elementwise._UNARY_OPERATORS]
    return {*binary, *compare, *unary, "__hash__", *NDARRAY_METHODS, *_basic_indexing.BOUND}


def test_declarations_match_what_is_bound() -> None:
    assert _declared_for_type_checkers() == _bound_at_import()


def test_everything_declared_exists_on_array() -> None:
    for name in _declared_for_type_checkers():
        if name == "__hash__":
            assert sa.Array.__hash__ is None
        elif name in ("mT", "T"):  # the array type's getters (C), bound onto Array
            assert vars(sa.Array)[name] is vars(ArrayBase)[name], name
        else:
            assert callable(getattr(sa.Array, name)), name
            assert name in vars(sa.Array), f"{name} is not bound onto Array itself"


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
