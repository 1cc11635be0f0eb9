"""Static tools reach Array's operators themselves: each operator of the standard is one named
assignment in `stridedarray/_operators.py`, Array's class body imports it from there by name,
and that named object is what Array has at run time. So "go to definition" (jedi, pyright, an
IDE) on `x.__add__` lands on the object Python calls, not on a declaration-only stub."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stridedarray as sa

PACKAGE = Path(sa.__file__).resolve().parent

# The array object's operators in the standard (2025.12, "Array object"): arithmetic, array,
# bitwise and comparison operators, with the reflected and in-place forms of the binary ones.
_BINARY = [
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
    "and", "or", "xor", "lshift", "rshift",
]  # fmt: skip
_COMPARISON = ["lt", "le", "gt", "ge", "eq", "ne"]
_UNARY = ["neg", "pos", "abs", "invert"]
STANDARD_OPERATORS = sorted(
    [f"__{p}{s}__" for s in _BINARY for p in ("", "r", "i")]
    + [f"__{s}__" for s in _COMPARISON + _UNARY]
)


def _module_assignments(path: Path) -> dict[str, int]:
    """Names a module assigns at its top level (plain or annotated), with their line."""
    out: dict[str, int] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign):
            out.update((t.id, node.lineno) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            if isinstance(node.target, ast.Name):
                out[node.target.id] = node.lineno
    return out


def _class_imports_from_operators() -> set[str]:
    """Names Array's class body (in its TYPE_CHECKING block) imports from `._operators`."""
    tree = ast.parse((PACKAGE / "_array.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    names: set[str] = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module == "_operators":
            for alias in node.names:
                assert alias.asname in (None, alias.name), alias.asname  # same name, followable
                names.add(alias.name)
    return names


def test_every_operator_is_assigned_by_name_in_operators_module() -> None:
    assigned = _module_assignments(PACKAGE / "_operators.py")
    missing = [n for n in STANDARD_OPERATORS if n not in assigned]
    assert missing == []


def test_the_class_body_imports_every_operator_from_operators_module() -> None:
    assert _class_imports_from_operators() == set(STANDARD_OPERATORS)


def test_the_named_object_is_what_array_calls() -> None:
    # The object a static tool reaches is the very one bound on Array (no wrapper in between):
    # `x + y` runs it.
    from stridedarray import _operators

    for name in STANDARD_OPERATORS:
        assert vars(sa.Array)[name] is getattr(_operators, name), name
        assert getattr(_operators, name).__doc__, name


@pytest.mark.parametrize(
    "expr",
    [
        "x.__add__",
        "sa.ones(3).__add__",
        "x.__radd__",
        "x.__iadd__",
        "x.__eq__",
        "x.__neg__",
        "x.__matmul__",
    ],
)
def test_jedi_goes_to_the_operator(expr: str, tmp_path: Path) -> None:
    jedi = pytest.importorskip("jedi")
    code = f"import stridedarray as sa\nx = sa.ones(3)\n{expr}\n"
    script = jedi.Script(code, path=str(tmp_path / "user.py"))
    (d,) = script.goto(3, len(expr) - 2, follow_imports=True)
    name = expr.rsplit(".", 1)[1]
    assert Path(str(d.module_path)).resolve() == PACKAGE / "_operators.py"
    assert d.name == name
    assert d.line == _module_assignments(PACKAGE / "_operators.py")[name]
