"""The package's module structure, measured: the import graph, its cycles, and who binds
Array's attributes.

    python tools/checks/import_graph.py [--package DIR]

The import graph has one node per module of the package (stridedarray/*.py, the extension
stubs not counted; each subpackage, bench/, is measured as a graph of its own) and an edge
A -> B for every `from . import B`, `from .B import ...` or `import stridedarray.B` in A, at
module level or inside a function (a deferred import still ties A to B); `import stridedarray`
is an edge to the package's `__init__`; imports under `if TYPE_CHECKING:` are left out (they
never run). It prints the strongly connected components of more than one module (the
import cycles), the modules the array type's own modules reach, how many of Array's class
attributes are set from outside the modules that define the type, and whether `__all__`
and `from stridedarray import *` agree. Nothing asserts: tests/test_import_graph.py does.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parents[2] / "stridedarray"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, modules: set[str], package: str) -> set[str]:
    """The modules of `package` that `module` imports anywhere but under TYPE_CHECKING."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:  # from . import x, y
                out.update(a.name for a in node.names if a.name in modules)
            elif node.level == 1 and node.module:  # from .x import y
                out.add(node.module.split(".")[0])
            elif node.level == 0 and node.module == package:
                # from stridedarray import x: the package, or its module x
                out.update(a.name if a.name in modules else "__init__" for a in node.names)
            elif node.level == 0 and node.module and node.module.startswith(package + "."):
                out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == package:  # the package itself: its __init__
                    out.add("__init__")
                elif a.name.startswith(package + "."):
                    out.add(a.name.split(".")[1])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    out.discard(module)
    return out & modules


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module name (the file's stem; the package's __init__ is "__init__") -> the modules
    it imports, deferred imports included, TYPE_CHECKING imports not."""
    files = {p.stem: p for p in sorted(package.glob("*.py"))}
    modules = set(files)
    return {
        m: _imports(ast.parse(p.read_text(), str(p)), m, modules, package.name)
        for m, p in files.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(out)


def reach(graph: dict[str, set[str]], start: set[str]) -> set[str]:
    """Every module `start` imports, directly or not (start included)."""
    seen = set(start)
    todo = list(start)
    while todo:
        for w in graph[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def attribute_setters(package: Path = PACKAGE) -> dict[str, int]:
    """Module -> how many statements in it set an attribute on `Array` or call
    setattr(Array, ...) (a loop counts once): the ways Array's surface is changed from
    outside its class body."""
    counts: dict[str, int] = {}
    for p in sorted(package.glob("*.py")):
        n = 0
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                n += sum(
                    isinstance(t, ast.Attribute)
                    and isinstance(t.value, ast.Name)
                    and t.value.id == "Array"
                    for t in targets
                )
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == "Array"
            ):
                n += 1
        if n:
            counts[p.stem] = n
    return counts


def _class_names(body: list[ast.stmt], type_checking: bool) -> set[str]:
    """Names a class body defines at run time, or (type_checking) declares only for type
    checkers, under `if TYPE_CHECKING:`."""
    out: set[str] = set()
    for node in body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            if type_checking:
                out |= _class_names(node.body, False)
            continue
        if type_checking:
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            out.update(alias.asname or alias.name for alias in node.names)
    return out


def runtime_surface(package: Path = PACKAGE) -> dict[str, Any]:
    """What the class statement of Array makes, declares, and what is set on it afterwards
    (imports stridedarray)."""
    import stridedarray as sa

    tree = ast.parse((package / "_array.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    in_body = _class_names(cls.body, False)
    declared = _class_names(cls.body, True)
    implicit = {"__module__", "__qualname__", "__doc__", "__slots__", "__firstlineno__"}
    implicit.add("__annotations__")  # made by any annotation in the body, even unexecuted
    attrs = set(vars(sa.Array)) - {"__static_attributes__"}
    later = attrs - in_body - implicit
    return {
        "attributes": len(attrs),
        "in_class_body": len(attrs & in_body),
        "set_later": len(later),
        "set_later_declared": len(later & declared),
        "set_later_undeclared": sorted(later - declared),
        "declared_missing": sorted(declared - attrs),
    }


def star_names() -> tuple[list[str] | None, set[str]]:
    import stridedarray as sa

    ns: dict = {}
    exec("from stridedarray import *", ns)  # noqa: S102
    return getattr(sa, "__all__", None), set(ns) - {"__builtins__"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--package", type=Path, default=PACKAGE)
    args = ap.parse_args()
    graph = import_graph(args.package)
    print(f"modules: {len(graph)}, import edges: {sum(map(len, graph.values()))}")
    cyc = cycles(graph)
    print(f"import cycles (strongly connected components): {len(cyc)}")
    for c in cyc:
        print(f"  {len(c)} modules: {' '.join(c)}")
    print(f"the array type's module (_array) reaches: {' '.join(sorted(reach(graph, {'_array'})))}")
    for sub in sorted(d for d in args.package.iterdir() if (d / "__init__.py").exists()):
        # a subpackage (bench/) is a graph of its own: its modules import each other by
        # relative imports, and the package's modules only from outside
        sub_graph = import_graph(sub)
        sub_cyc = cycles(sub_graph)
        print(
            f"{sub.name}/: modules: {len(sub_graph)}, import edges: "
            f"{sum(map(len, sub_graph.values()))}, import cycles: {len(sub_cyc)}"
        )
        for c in sub_cyc:
            print(f"  {len(c)} modules: {' '.join(c)}")
    setters = attribute_setters(args.package)
    print(f"statements setting attributes on Array, by module: {setters or 'none'}")
    surf = runtime_surface(args.package)
    print(
        f"Array's class attributes: {surf['attributes']}; made by its class statement: "
        f"{surf['in_class_body']}; set on it afterwards: {surf['set_later']}, of which "
        f"declared in the class statement (for type checkers): {surf['set_later_declared']}"
    )
    if surf["set_later_undeclared"] or surf["declared_missing"]:
        print(
            f"  undeclared: {surf['set_later_undeclared']}; declared, missing: "
            f"{surf['declared_missing']}"
        )
    all_, star = star_names()
    if all_ is None:
        print("stridedarray.__all__: missing")
    else:
        print(
            f"stridedarray.__all__: {len(all_)} names, sorted={all_ == sorted(all_)}, "
            f"unique={len(set(all_)) == len(all_)}; `import *` gives {len(star)} names, "
            f"equal={star == set(all_)}"
        )


if __name__ == "__main__":
    main()
