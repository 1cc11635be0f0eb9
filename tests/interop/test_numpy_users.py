"""What a NumPy user trips over: NumPy's names and arguments that the standard spells
differently (stridedarray/_base/numpy_names.py) say what to write instead; the modules' dir() lists
their public names only; docs/numpy-users.md's table is the map (checked here, so it cannot go
stale)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import stridedarray as sa
from stridedarray._base import numpy_names as names

DOC = Path(__file__).resolve().parents[2] / "docs" / "numpy-users.md"
MODULES = {"stridedarray": sa, "stridedarray.linalg": sa.linalg, "stridedarray.fft": sa.fft}


def _resolve(spelling: str) -> object:
    """The object the first name of a hint's text names ("linalg.vector_norm or ...")."""
    first = re.match(r"[A-Za-z_][\w.]*", spelling)
    assert first, spelling
    obj: object = sa
    for part in first.group(0).split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", sorted(names.FUNCTIONS))
def test_numpy_name_says_the_standard_spelling(name):
    assert name not in sa.__all__ and not hasattr(sa, name)
    assert hasattr(np, name)  # a NumPy name, not a guess
    spelling = names.FUNCTIONS[name]
    _resolve(spelling)  # the replacement exists
    with pytest.raises(AttributeError, match=re.escape(spelling)) as info:
        getattr(sa, name)
    assert f"has no attribute {name!r}" in str(info.value)


@pytest.mark.parametrize("name", sorted(names.LINALG_FUNCTIONS))
def test_numpy_linalg_name_says_the_standard_spelling(name):
    assert not hasattr(sa.linalg, name) and hasattr(np.linalg, name)
    _resolve(names.LINALG_FUNCTIONS[name])
    with pytest.raises(AttributeError, match=re.escape(names.LINALG_FUNCTIONS[name])):
        getattr(sa.linalg, name)


@pytest.mark.parametrize(
    ("module", "name", "fragment"),
    [
        (sa, "trapezoid", "np.trapezoid is not in the Array API standard"),
        (sa.lib, "scimath", "(np.lib.scimath.f(x))"),
        (sa.linalg, "lstsq", "np.linalg.lstsq is not in the Array API standard"),
        (sa.fft, "rfft2", "np.fft.rfft2 is not in the Array API standard"),
        (sa, "no_such_name", "has no attribute 'no_such_name'"),
        (sa, "_private", "has no attribute '_private'"),
    ],
)
def test_other_missing_names(module, name, fragment):
    with pytest.raises(AttributeError, match=re.escape(fragment)):
        getattr(module, name)


def test_the_reported_names_and_arguments():
    x = sa.asarray([1.0, 2.0, 4.0])
    for name, fragment in [
        ("transpose", "permute_dims"),
        ("array", "asarray"),
        ("dot", "matmul"),
        ("concatenate", "concat"),
        ("power", "pow"),
        ("arccos", "acos"),
        ("amax", "max"),
        ("absolute", "abs"),
    ]:
        with pytest.raises(AttributeError, match=f"spelled stridedarray.{fragment}"):
            getattr(sa, name)
    # ddof is NumPy's spelling of correction, accepted beyond the standard (numpy_extensions)
    assert float(sa.std(x, ddof=1)) == pytest.approx(float(np.std(np.asarray(x), ddof=1)))
    with pytest.raises(TypeError, match=r"sum\(\) takes axis, dtype, keepdims by keyword only"):
        sa.sum(x, 0)
    with pytest.raises(TypeError, match=r"write sum\(x, axis=0\)"):
        sa.sum(x, 0)
    with pytest.raises(TypeError, match=r"round\(\) has no argument 'decimals'"):
        sa.round(x, decimals=1)
    with pytest.raises(TypeError, match=r"round\(\) has no argument 'decimals'"):
        sa.round(x, 1)
    with pytest.raises(TypeError, match=r"mean\(\) has no argument 'out'"):
        sa.mean(x, out=x)


@pytest.mark.parametrize("func", sorted(names.POSITIONAL))
def test_positional_axis_names_the_keyword(func):
    f = getattr(sa, func)
    x = sa.reshape(sa.arange(6.0), (2, 3))
    first = [x, x] if func in ("concat", "stack") else x
    with pytest.raises(TypeError, match=rf"{func}\(\) takes .*by keyword only.*axis=0"):
        f(first, 0)
    # The hidden parameters are not in the signature (help(), the API docs).
    sig = inspect.signature(f)
    assert all(p.kind is not p.VAR_POSITIONAL for p in sig.parameters.values())
    assert not set(sig.parameters) & set(names.ARGUMENTS)
    # The keyword spelling still works, and gives NumPy's answer.
    if func not in ("concat", "stack"):
        kw = {"axis": 0}
        got = f(first, **kw)
        ref = {"cumulative_sum": np.cumsum, "cumulative_prod": np.cumprod}.get(
            func, getattr(np, func, None)
        )
        if ref is not None:
            np.testing.assert_allclose(np.asarray(got), ref(np.asarray(x), axis=0))


@pytest.mark.parametrize("argument", sorted(names.ARGUMENTS))
def test_numpy_keywords_are_refused_with_a_hint(argument):
    funcs, _ = names.ARGUMENTS[argument]
    x = sa.asarray([1.0, 2.0])
    for func in funcs:
        with pytest.raises(TypeError, match=rf"{func}\(\) has no argument {argument!r}"):
            getattr(sa, func)(x, **{argument: 1})
        assert argument not in inspect.signature(getattr(sa, func)).parameters


@pytest.mark.parametrize("module", sorted(MODULES))
def test_dir_lists_the_public_names_only(module):
    mod = MODULES[module]
    assert set(dir(mod)) - {"__version__"} == set(mod.__all__)
    for leaked in ("np", "Any", "Callable", "annotations", "Literal", "check_array"):
        assert leaked not in dir(mod)
    # and every listed name is there
    for n in dir(mod):
        getattr(mod, n)


def _doc_table() -> str:
    text = DOC.read_text()
    block = re.search(r"<!-- numpy-names -->\n(.*?)\n<!-- /numpy-names -->", text, re.S)
    assert block, "docs/numpy-users.md has no numpy-names table"
    return block.group(1).strip()


def render_table() -> str:
    """docs/numpy-users.md's table, from the maps."""
    rows = ["| NumPy | The standard (stridedarray) |", "|---|---|"]
    for name, spelling in sorted(names.FUNCTIONS.items()):
        rows.append(f"| `np.{name}` | {spelling} |")
    for name, spelling in sorted(names.LINALG_FUNCTIONS.items()):
        rows.append(f"| `np.linalg.{name}` | {spelling} |")
    for arg, (funcs, hint) in sorted(names.ARGUMENTS.items()):
        shown = ", ".join(funcs)
        rows.append(f"| `{arg}=` ({shown}) | {hint.format(func='f', value=1)} |")
    rows.append(
        "| an axis (or another option) passed positionally, `sum(x, 0)` | by keyword: "
        "`sum(x, axis=0)` (" + ", ".join(sorted(names.POSITIONAL)) + ") |"
    )
    return "\n".join(rows)


def test_the_docs_table_is_the_map():
    assert _doc_table() == render_table(), (
        "docs/numpy-users.md's table differs from stridedarray/_base/numpy_names.py; the table "
        "to paste:\n" + render_table()
    )


def _public_functions():
    for prefix, mod in (("", sa), ("linalg.", sa.linalg), ("fft.", sa.fft)):
        for n in sorted(mod.__all__):
            f = getattr(mod, n)
            if callable(f) and not isinstance(f, type):
                yield prefix + n, f


@pytest.mark.parametrize("name", [n for n, _ in _public_functions()])
def test_a_list_argument_is_named_with_its_function(name):
    """Every "must be a stridedarray.Array" message starts with the function's name (the
    linalg functions that are the namespace's own may use its name: they are one object)."""
    f = dict(_public_functions())[name]
    attempts = ([[1.0, 2.0]], [[[1.0, 0.0], [0.0, 1.0]]] * 2, [[[1.0, 0.0], [0.0, 1.0]]] * 3)
    for args in attempts:
        try:
            f(*args)
        except TypeError as e:
            message = str(e)
            if "must be a stridedarray.Array" in message:
                own = name.rpartition(".")[2]
                aliases = {name, own, "matmul" if own == "matmul_explain" else own}
                assert any(message.startswith(a + ":") for a in aliases), message
                assert "stridedarray.asarray(" in message
                return
            if "positional argument" not in message:
                return
        except Exception:
            return
        else:
            return


_CAST_VALUES = [0.0, -1.5, 300.0, 3e9, -3e9, 2.0**31, -(2.0**31), 1e19, -9.3e18, 2e19, 1e20]
_CAST_VALUES += [np.nan, np.inf, -np.inf, -(2.0**63), 2.0**63]


@pytest.mark.parametrize(
    "to", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
)
@pytest.mark.parametrize("source", ["float32", "float64"])
def test_astype_float_to_int_warns_where_numpy_warns(source, to):
    """NumPy's RuntimeWarning "invalid value encountered in cast", value by value, and its
    np.errstate choices; the values themselves are those docs/dtypes.md states."""
    import warnings

    for v in _CAST_VALUES:
        ref = np.asarray([1.0, v, 2.0], dtype=source)
        with warnings.catch_warnings(record=True) as numpy_warned:
            warnings.simplefilter("always")
            ref.astype(to)
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            sa.astype(sa.asarray(ref), getattr(sa, to))
        assert [str(w.message) for w in ours] == [str(w.message) for w in numpy_warned], v
        assert all(w.category is RuntimeWarning and w.filename == __file__ for w in ours)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError, match="in cast"):
        sa.astype(sa.asarray([np.nan], dtype=getattr(sa, source)), getattr(sa, to))
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("error")
        sa.astype(sa.asarray([np.nan], dtype=getattr(sa, source)), getattr(sa, to))


def test_0d_repr_is_concise_and_views_keep_their_descriptor():
    m = sa.reshape(sa.arange(4.0), (2, 2))
    assert repr(m[1, 1]) == "Array(3., dtype=float64, shape=())"  # a 0-d view: no strides=()
    assert repr([m[0, 0], m[0, 1]]) == (
        "[Array(0., dtype=float64, shape=()), Array(1., dtype=float64, shape=())]"
    )
    assert repr(sa.asarray(True)) == "Array(True, dtype=bool, shape=())"
    assert repr(m[:, ::-1]).endswith("strides=(2, -1), origin=1)")  # views of rank >= 1 do
    assert repr(m[1]).endswith("shape=(2,), strides=(1,), origin=2)")
