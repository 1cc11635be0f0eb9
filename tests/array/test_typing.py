"""What type checkers see of Array is what exists at run time.

Array's class statement (stridedarray/_array/array.py) assigns every member by name from the
module that implements it: the operators from the element-wise table and matmul, assignment,
the namespace, NumPy's protocols and NumPy's methods. These tests check that each assignment
is the implementing object itself and that the standard's operators are all there, and check
with mypy (when installed) that user code gets Arrays back from the operators."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import stridedarray as sa
from stridedarray._api import elementwise, info, setitem
from stridedarray._array import array as _array
from stridedarray._arraytype import ArrayBase
from stridedarray._base.operator_table import OPERATORS
from stridedarray._interop import ndarray_methods, numpy_dispatch
from stridedarray._matmul import product

pytestmark = [
    pytest.mark.version_sensitive,
    pytest.mark.install,
]  # tests/conftest.py says what each means


def _assigned_in_class_body() -> set[str]:
    """The names Array's class statement assigns (plain or annotated assignments)."""
    tree = ast.parse(inspect.getsource(_array))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    names = set()
    for node in cls.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _standard_operators() -> set[str]:
    """The standard's operators, from the operator table: each binary one with its reflected
    and in-place forms, and the three of `@`."""
    names = {"__matmul__", "__rmatmul__", "__imatmul__"}
    for row in OPERATORS:
        forms = ("", "r", "i") if row.form == "binary" else ("",)
        names.update(f"__{pre}{row.stem}__" for pre in forms)
    return names


def test_every_operator_is_assigned_by_name_in_the_class_body() -> None:
    assigned = _assigned_in_class_body()
    assert len(_standard_operators()) == 49
    assert _standard_operators() <= assigned, _standard_operators() - assigned


def test_each_member_is_the_object_its_module_implements() -> None:
    members = vars(sa.Array)
    expected = {
        **elementwise.OPERATORS,
        "__matmul__": product.matmul_operator,
        "__rmatmul__": product.rmatmul_operator,
        "__imatmul__": product.imatmul_operator,
        "__setitem__": setitem.__setitem__,
        "__array_namespace__": info.__array_namespace__,
        "__array_ufunc__": numpy_dispatch.__array_ufunc__,
        "__array_function__": numpy_dispatch.__array_function__,
        **ndarray_methods.METHODS,
    }
    assigned = _assigned_in_class_body()
    for name, member in expected.items():
        assert members[name] is member, name
        assert name in assigned, name
    # Defining __eq__ in a class body would set __hash__ to None: the array type's stays.
    assert sa.Array.__hash__ is ArrayBase.__hash__


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
    array = 'note: Revealed type is "stridedarray._array.array.Array"'
    assert lines == [array] * 6 + [
        'note: Revealed type is "Any"',
        'error: "Array" has no attribute "no_such_attribute"  [attr-defined]',
    ], proc.stdout + proc.stderr
