"""The documentation's examples run, and the pages carry no development history.

Every ```python block with `>>>` prompts in docs/*.md is a doctest, the blocks of one page
sharing their names in order (as a reader pastes them). A ```python block without prompts is
at least compiled. The examples run under the shipped matmul policy, so the routes they show
are those a fresh install takes, whatever policy file this machine has. The Examples of the
docstrings of the public API the Array API standard does not define (numpydoc-style) run too."""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import re
import types
from pathlib import Path

import pytest

import stridedarray as sa
from stridedarray import Array
from stridedarray._api import numpy_extensions
from stridedarray._api.einsum import EinsumExplain
from stridedarray._interop.ndarray_methods import NDARRAY_METHODS
from stridedarray._matmul.policy import DEFAULT_POLICY
from stridedarray._matmul.product import MatmulExplain

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

DOCS = Path(__file__).resolve().parents[2] / "docs"
# The user guide's pages and the developer guide's (docs/dev/), not the benchmark's table
# fragments (generated/) or a build's output (_build/).
PAGES = sorted(
    p
    for p in DOCS.rglob("*.md")
    if not any(part == "generated" or part.startswith("_") for part in p.relative_to(DOCS).parts)
)
EXAMPLE_PAGES = [p for p in PAGES if ">>> " in p.read_text()]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# Optional libraries whose examples run only where they are installed: a block that names one
# is skipped without it (Cubed needs a newer Python than stridedarray's floor; PyTorch is not a
# test dependency).
OPTIONAL = ("cubed", "torch")


def _page(p: Path) -> str:
    """A page's name as the tests show it: its path under docs/ (`array.md`, `dev/testing.md`)."""
    return p.relative_to(DOCS).as_posix()


def _runnable(block: str) -> bool:
    return all(
        importlib.util.find_spec(m) is not None for m in OPTIONAL if re.search(rf"\b{m}\b", block)
    )


# Pages a reader starts from: each must show runnable examples.
MUST_HAVE_EXAMPLES = {
    "index.md",
    "quickstart.md",
    "array.md",
    "matmul.md",
    "tuning.md",
    "interop.md",
    "dtypes.md",
    "functions.md",
    "conformance.md",
    "scale-out.md",
    "dev/architecture.md",
}


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=[_page(p) for p in EXAMPLE_PAGES])
def test_examples_in_page_run(page: Path) -> None:
    blocks = BLOCK.findall(page.read_text())
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    globs: dict = {}
    with sa.matmul_policy(**DEFAULT_POLICY):
        for i, block in enumerate(blocks):
            if not _runnable(block):
                continue
            test = parser.get_doctest(block, globs, f"{_page(page)}[{i}]", str(page), 0)
            runner.run(test, clear_globs=False)
            globs = test.globs  # DocTest works on a copy: carry the names to the next block
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) in {_page(page)} failed (see output)"


@pytest.mark.parametrize("page", PAGES, ids=[_page(p) for p in PAGES])
def test_code_without_prompts_compiles(page: Path) -> None:
    for i, block in enumerate(BLOCK.findall(page.read_text())):
        if ">>> " not in block:
            compile(block, f"{_page(page)}[{i}]", "exec")


def test_readme_usage_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    readme = DOCS.parent / "README.md"
    if not readme.is_file():
        pytest.skip("no README.md beside the tests")
    usage = readme.read_text().split("## Usage", 1)[1].split("\n## ", 1)[0]
    code = BLOCK.findall(usage)[0]
    printed = re.search(r"^```text\n(.*?)^```", usage, re.S | re.M)
    assert printed, "the usage example shows what it prints"
    with sa.matmul_policy(**DEFAULT_POLICY):
        exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == printed.group(1)


def test_guides_have_examples() -> None:
    missing = MUST_HAVE_EXAMPLES - {_page(p) for p in EXAMPLE_PAGES}
    assert not missing, f"pages without runnable examples: {sorted(missing)}"


# What a development log says and a user guide does not: issue numbers, commit hashes,
# sessions, earlier attempts and how things were. History belongs in CHANGELOG.md
# (docs/changelog.md).
HISTORY = re.compile(
    r"\bissues?\s+#?\d+|\((this|last|previous)\s+session|"
    r"\b(this|last|previous|that)\s+session\b|\bthe\s+previous\s+(try|attempt)\b|"
    r"\bthe\s+seed\b|\bseed's\b|\bno\s+longer\b|\bpredates\b|"
    r"(?<!\bis )(?<!\bare )(?<!\bbe )\bused\s+to\b|"
    r"\bbefore\s+(the|its|their)\s+fix\b|"
    r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b",
    re.I,
)


GUIDES = [p for p in PAGES if _page(p) != "changelog.md"]


@pytest.mark.parametrize("page", GUIDES, ids=[_page(p) for p in GUIDES])
def test_page_has_no_development_history(page: Path) -> None:
    hits = [m.group(0) for m in HISTORY.finditer(page.read_text())]
    assert not hits, f"{_page(page)} reads like a development log: {hits}"


# -- docstrings of the public API the Array API standard does not define ---------------------
# Their docstrings are numpydoc-style (the standard's own functions keep a one-line summary;
# the docs link them to the standard). Each entry: the sections its docstring must have.
_P, _R, _E = "Parameters", "Returns", "Examples"
DOCUMENTED: dict[str, tuple[object, tuple[str, ...]]] = {
    "matmul_explain": (sa.matmul_explain, (_P, _R, "Raises", _E)),
    "matmul_policy": (sa.matmul_policy, (_P, "Yields", "Raises", _E)),
    "blas_info": (sa.blas_info, (_R, _E)),
    "get_num_threads": (sa.get_num_threads, (_R, _E)),
    "set_num_threads": (sa.set_num_threads, (_P, _R, "Raises", _E)),
    "einsum": (sa.einsum, (_P, _R, "Raises", _E)),
    "einsum_explain": (sa.einsum_explain, (_P, _R, "Raises", _E)),
    "EinsumExplain": (EinsumExplain, (_E,)),
    "EinsumExplain.to_dict": (EinsumExplain.to_dict, (_R, _E)),
    # NumPy's functions beyond the standard (stridedarray/_api/numpy_extensions.py)
    **{name: (getattr(sa, name), (_P, _R, _E)) for name in numpy_extensions.__all__},
    "MatmulExplain": (MatmulExplain, (_E,)),
    "MatmulExplain.to_dict": (MatmulExplain.to_dict, (_R, _E)),
    "Array": (Array, (_E,)),
    "Array.to_row_major": (Array.to_row_major, (_R, _E)),
    "Array.tolist": (Array.tolist, (_R, _E)),
    "Array.__array__": (Array.__array__, (_P, _R, "Raises", _E)),
    **{
        f"Array.{name}": (getattr(Array, name), (_E,))
        for name in (
            "buffer",
            "strides",
            "origin",
            "readonly",
            "is_c_contiguous",
            "is_f_contiguous",
            "__array_interface__",
            "__numpy_dtype__",
            "__array_ufunc__",
            "__array_function__",
            "__repr__",
            "__str__",
            "itemsize",
            "nbytes",
            "base",
            "real",
            "imag",
            "__format__",
            "__len__",
            "__contains__",
            "__iter__",
            "__reduce_ex__",
            "__setstate__",
            "__copy__",
            "__deepcopy__",
            "__dask_tokenize__",
        )
    },
}
# NumPy's methods share one generated docstring that points to NumPy's own.
NUMPY_METHOD_SECTIONS = (_P, _R, "See Also")

# The standard's array object (2025.12): attributes, methods and operators.
_STANDARD_ARRAY = {
    "dtype",
    "device",
    "mT",
    "ndim",
    "shape",
    "size",
    "T",
    "to_device",
    "__array_namespace__",
    "__bool__",
    "__complex__",
    "__float__",
    "__index__",
    "__int__",
    "__dlpack__",
    "__dlpack_device__",
    "__dlpack_c_exchange_api__",  # the 2026.12 draft's; docs/api/array.rst words it
    "__getitem__",
    "__setitem__",
    "__abs__",
    "__neg__",
    "__pos__",
    "__invert__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    *(
        f"__{p}{op}__"
        for op in (
            "add",
            "sub",
            "mul",
            "truediv",
            "floordiv",
            "mod",
            "pow",
            "matmul",
            "and",
            "or",
            "xor",
            "lshift",
            "rshift",
        )
        for p in ("", "r", "i")
    ),
}
# Class plumbing, not API: Python's own hooks and a data attribute.
_NOT_API = {
    "__slots__",
    "__module__",
    "__doc__",
    "__weakref__",
    "__new__",
    "__hash__",
    "__annotations__",
    "__qualname__",
    "__array_priority__",
    "__firstlineno__",
    "__static_attributes__",
    # The C type's buffer slot, exposed as a method on Python >= 3.12 (docs/array.md).
    "__buffer__",
}


def _docstring(obj: object) -> str:
    return inspect.getdoc(obj) or ""


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_docstring_examples_run(name: str) -> None:
    obj, _ = DOCUMENTED[name]
    if name == "Array.__dask_tokenize__":
        pytest.importorskip("dask")
    test = doctest.DocTestParser().get_doctest(_docstring(obj), {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, f"{name} has no example"
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed (see output)"


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_docstring_is_numpydoc(name: str) -> None:
    obj, sections = DOCUMENTED[name]
    doc = _docstring(obj)
    summary, _, rest = doc.partition("\n")
    assert summary.strip() and (not rest or rest.startswith("\n")), "a one-line summary first"
    for section in sections:
        assert f"\n{section}\n{'-' * len(section)}\n" in doc, f"{name}: no {section} section"


def test_numpy_methods_docstrings_point_to_numpy() -> None:
    for name in NDARRAY_METHODS:
        doc = _docstring(getattr(Array, name))
        for section in NUMPY_METHOD_SECTIONS:
            assert f"\n{section}\n{'-' * len(section)}\n" in doc, (name, section)
        assert f"numpy.ndarray.{name}" in doc


def test_numpy_methods_show_numpys_signatures() -> None:
    import numpy as np

    compared = 0
    for name in NDARRAY_METHODS:
        try:
            theirs = inspect.signature(getattr(np.ndarray, name))
        except ValueError:  # this NumPy has no text signature for it: nothing to show
            continue
        ours = inspect.signature(getattr(Array, name))
        assert ours == theirs, (name, str(ours))
        compared += 1
    if not compared:
        pytest.skip("this NumPy's ndarray methods carry no signatures")


# Reference pages of standard functions that carry stridedarray's choices in full (numpydoc
# sections, examples that run): the planned product and the conversion of other memory.
REFERENCE: dict[str, tuple[object, tuple[str, ...]]] = {
    "matmul": (sa.matmul, (_P, _R, "Raises", "See Also", "Notes", _E)),
    "asarray": (sa.asarray, (_P, _R, "Raises", "See Also", "Notes", _E)),
    "matmul_explain": (sa.matmul_explain, (_P, _R, "Raises", "See Also", "Notes", _E)),
    "Array": (Array, ("See Also", "Notes", _E)),
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_reference_docstrings_are_complete_and_run(name: str) -> None:
    obj, sections = REFERENCE[name]
    doc = _docstring(obj)
    for section in sections:
        assert f"\n{section}\n{'-' * len(section)}\n" in doc, f"{name}: no {section} section"
    assert ":doc:`/" in doc, f"{name}: no link to the guide"
    test = doctest.DocTestParser().get_doctest(doc, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    with sa.matmul_policy(**DEFAULT_POLICY):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"{name}: see the output"


def test_every_non_standard_array_member_is_documented() -> None:
    from stridedarray._arraytype import ArrayBase

    members = {
        n
        for cls in (Array, ArrayBase)
        for n in vars(cls)
        if not n.startswith("_") or (n.startswith("__") and n.endswith("__"))
    }
    extra = members - _STANDARD_ARRAY - _NOT_API - set(NDARRAY_METHODS)
    assert extra == {n.removeprefix("Array.") for n in DOCUMENTED if n.startswith("Array.")}


def test_every_non_standard_namespace_name_is_documented() -> None:
    strict = pytest.importorskip("array_api_strict")
    # Submodules (fft, linalg, and bench or tune once imported) are not names of the API.
    names = {
        n
        for n in dir(sa)
        if not n.startswith("_") and not isinstance(getattr(sa, n), types.ModuleType)
    }
    documented = {n for n in DOCUMENTED if "." not in n} - {"MatmulExplain", "EinsumExplain"}
    assert names - set(dir(strict)) == documented
