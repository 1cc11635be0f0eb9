"""Every public callable is a first-class Python object, as a Python function is: it pickles by
reference to itself under every protocol, copies and deep-copies to itself, carries
`__module__`, `__qualname__` and `__name__` that import back to it, a docstring and a signature
that `inspect` reads; so it travels to worker processes (multiprocessing, Dask). The C
callables (NativeUfunc, NativeFunction, NativeMatmul) are held to the same rule as the Python
functions.
The namespace inspection object's methods and Array's members likewise."""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import pickle
import types
import typing
from multiprocessing import get_context

import numpy as np
import pytest

import stridedarray as sa
from stridedarray import fft, linalg
from stridedarray._api.info import Info
from stridedarray._arraytype import ArrayBase, NativeFunction, NativeMatmul, NativeUfunc

_FAST = (NativeUfunc, NativeFunction, NativeMatmul)


def _public_callables() -> dict[str, object]:
    """`module.name` -> object, for every callable (not a class) in the public `__all__`s and
    the methods of the `__array_namespace_info__()` object's class."""
    found: dict[str, object] = {}
    for mod in (sa, linalg, fft):
        for name in mod.__all__:
            f = getattr(mod, name)
            if callable(f) and not isinstance(f, type):
                found[f"{mod.__name__}.{name}"] = f
    for name, f in vars(Info).items():
        if isinstance(f, types.FunctionType) and not name.startswith("_"):
            found[f"Info.{name}"] = f
    return found


PUBLIC = _public_callables()


def _resolve(f: object) -> object:
    obj: object = importlib.import_module(f.__module__)  # type: ignore[attr-defined]
    for part in f.__qualname__.split("."):  # type: ignore[attr-defined]
        obj = getattr(obj, part)
    return obj


def test_the_walk_covers_the_c_callables():
    # the namespace's C callables are among those walked (the element-wise functions, the
    # creation functions with a C path, reshape, matmul), so the tests below check them
    kinds = {type(f) for f in PUBLIC.values()}
    assert set(_FAST) <= kinds
    for name in ("add", "exp", "asarray", "zeros", "ones", "empty", "full", "reshape", "matmul"):
        assert isinstance(getattr(sa, name), _FAST), name
    assert sum(isinstance(f, _FAST) for f in PUBLIC.values()) >= 70 and len(PUBLIC) > 150


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_pickles_by_reference_to_itself(name):
    f = PUBLIC[name]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        data = pickle.dumps(f, protocol=protocol)
        assert pickle.loads(data) is f, protocol
        # by reference: the pickle names the function, it does not carry its body
        assert len(data) < 200, (protocol, len(data))


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_copies_to_itself(name):
    f = PUBLIC[name]
    assert copy.copy(f) is f
    assert copy.deepcopy(f) is f
    held = copy.deepcopy([f, {"k": f}, (f,)])
    assert held[0] is f and held[1]["k"] is f and held[2][0] is f


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_names_import_back_to_itself(name):
    f = PUBLIC[name]
    assert isinstance(f.__module__, str) and isinstance(f.__qualname__, str)
    assert isinstance(f.__name__, str) and f.__name__ == f.__qualname__.rpartition(".")[2]
    assert _resolve(f) is f
    assert f.__module__.startswith("stridedarray")


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_has_a_docstring_and_a_signature(name):
    f = PUBLIC[name]
    assert isinstance(f.__doc__, str) and f.__doc__.strip()
    sig = inspect.signature(f)
    assert isinstance(sig, inspect.Signature)


@pytest.mark.parametrize("name", sorted(n for n in PUBLIC if not n.startswith("Info.")))
def test_type_hints_resolve(name):
    # typing.get_type_hints reads every public function's annotations, `Array` resolved to the
    # class (einx asks it for the return type of `asarray`), C callables' as their Python's.
    f = PUBLIC[name]
    hints = typing.get_type_hints(f)
    assert "return" in hints and not any(isinstance(h, str) for h in hints.values())
    if isinstance(f, _FAST):
        assert f.__annotations__ == f.__wrapped__.__annotations__


def test_asarray_is_annotated_to_return_the_array_class():
    assert typing.get_type_hints(sa.asarray)["return"] is sa.Array
    assert typing.get_type_hints(linalg.inv) == {"x": sa.Array, "return": sa.Array}


@pytest.mark.parametrize(
    "name", sorted(n for n, f in PUBLIC.items() if isinstance(f, _FAST)), ids=str
)
def test_c_callables_carry_their_python_functions_identity(name):
    f = PUBLIC[name]
    py = f.__wrapped__
    assert isinstance(py, types.FunctionType)
    # the public module and name (as numpy.add is), the Python function's name, doc, signature
    mod, _, public = name.rpartition(".")
    assert (f.__module__, f.__qualname__, f.__name__) == (mod, public, public)
    assert f.__doc__ == py.__doc__
    assert inspect.signature(f) == inspect.signature(py)
    # read without following __wrapped__ (its own __signature__)
    assert inspect.signature(f, follow_wrapped=False) == inspect.signature(py)
    assert f.__signature__ == inspect.signature(py)


@pytest.mark.parametrize(
    "name", sorted(n for n, f in PUBLIC.items() if isinstance(f, _FAST)), ids=str
)
def test_c_callables_repr_names_them(name):
    # as a builtin's does (repr(len) is "<built-in function len>"): logs and engines that
    # print a function (Cubed's error messages) say which one it is
    assert repr(PUBLIC[name]) == f"<built-in function {name}>"


def test_namespace_names_are_the_public_ones():
    assert (sa.add.__module__, sa.add.__qualname__) == ("stridedarray", "add")
    assert (sa.asarray.__module__, sa.asarray.__qualname__) == ("stridedarray", "asarray")
    assert (sa.matmul.__module__, sa.matmul.__qualname__) == ("stridedarray", "matmul")
    # linalg's functions are its own (linalg.matmul is a Python function beside sa.matmul)
    assert (linalg.matmul.__module__, linalg.matmul.__qualname__) == (
        "stridedarray.linalg",
        "matmul",
    )
    assert pickle.loads(pickle.dumps(linalg.matmul)) is linalg.matmul


def test_module_and_qualname_take_only_str():
    f = sa.add
    with pytest.raises(TypeError, match="__module__ must be set to a str"):
        f.__module__ = 1  # type: ignore[assignment]
    with pytest.raises(TypeError, match="__qualname__ must be set to a str"):
        del f.__qualname__
    assert (f.__module__, f.__qualname__) == ("stridedarray", "add")


def _identity(x):
    return x


def test_a_c_callable_whose_name_does_not_resolve_refuses_to_pickle():
    # an object made outside the namespace has its Python function's name, which names
    # that function: pickle says so instead of pickling something else
    f = NativeFunction(_identity, "asarray")
    assert (f.__module__, f.__qualname__, f.__name__) == (__name__, "_identity", "_identity")
    with pytest.raises(pickle.PicklingError, match="Can't pickle <built-in function"):
        pickle.dumps(f)


def _array_members() -> dict[str, object]:
    """Array's members that are functions or C callables (its own, bound and NumPy's methods),
    as the class holds them."""
    out = {}
    for name in dir(sa.Array):
        raw = inspect.getattr_static(sa.Array, name)
        if isinstance(raw, (types.FunctionType, *_FAST)):
            out[name] = getattr(sa.Array, name)
    return out


MEMBERS = _array_members()


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_array_members_pickle_and_copy_to_themselves(name):
    f = MEMBERS[name]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(f, protocol=protocol)) is f, protocol
    assert copy.copy(f) is f and copy.deepcopy(f) is f
    assert _resolve(f) is f
    inspect.signature(f)
    if not name.startswith("_") or name.endswith("__"):  # every public member has one
        assert isinstance(f.__doc__, str) and f.__doc__.strip()


def test_array_members_include_the_c_operators():
    assert isinstance(inspect.getattr_static(sa.Array, "__add__"), NativeUfunc)
    assert isinstance(inspect.getattr_static(sa.Array, "__matmul__"), NativeMatmul)
    assert sa.Array.__add__.__qualname__ == "Array.__add__"
    assert "__add__" in MEMBERS and "__matmul__" in MEMBERS and "sum" in MEMBERS


def test_c_methods_of_the_array_type_pickle():
    # methods defined by the C type itself (method descriptors) pickle as Python's own do
    for name, raw in vars(ArrayBase).items():
        if type(raw).__name__ == "method_descriptor":
            f = getattr(sa.Array, name)
            assert pickle.loads(pickle.dumps(f)) == f, name


def test_bound_methods_of_the_info_object_pickle():
    info = sa.__array_namespace_info__()
    for name in ("capabilities", "default_device", "devices", "default_dtypes", "dtypes"):
        m = pickle.loads(pickle.dumps(getattr(info, name)))
        assert m.__func__ is getattr(Info, name)
        assert m() == getattr(info, name)()


def test_bound_methods_of_arrays_pickle():
    x = sa.asarray([1.0, 2.0])
    for m in (x.__add__, x.sum):
        m2 = pickle.loads(pickle.dumps(m))
        assert m2.__func__ is m.__func__
    np.testing.assert_array_equal(
        np.asarray(pickle.loads(pickle.dumps(x.__add__))(x)), np.array([2.0, 4.0])
    )


def _square_via(f, x):
    return f(x, x)


def test_pool_map_of_asarray_in_spawned_processes():
    rows = [[1.0, 2.0], [3.0, -4.0], [0.5, 0.25]]
    with get_context("spawn").Pool(2) as pool:
        got = pool.map(sa.asarray, rows)
        summed = pool.map(sa.sum, got)
    for g, r in zip(got, rows, strict=True):
        assert isinstance(g, sa.Array)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(r))
    assert [float(s) for s in summed] == [float(np.sum(r)) for r in rows]


def test_partial_of_a_c_callable_runs_in_a_spawned_process():
    x = sa.asarray([1.0, 2.0, 3.0])
    task = functools.partial(sa.add, x)
    assert pickle.loads(pickle.dumps(task)).func is sa.add
    with get_context("spawn").Pool(1) as pool:
        (got,) = pool.map(task, [sa.asarray([10.0, 20.0, 30.0])])
        (prod,) = pool.starmap(_square_via, [(sa.matmul, sa.asarray([[1.0, 2.0], [3.0, 4.0]]))])
    np.testing.assert_array_equal(np.asarray(got), np.array([11.0, 22.0, 33.0]))
    np.testing.assert_array_equal(np.asarray(prod), np.array([[7.0, 10.0], [15.0, 22.0]]))


@pytest.mark.parametrize("version", ["2021.12", "2022.12", "2023.12", "2024.12"])
def test_older_namespaces_functions_pickle_and_copy_to_themselves(version):
    # an older version's namespace has functions of its own (its inspection object, and list
    # results before 2025.12); code written for it hands them to other processes too
    ns = sa.ones(1).__array_namespace__(api_version=version)
    for name in ("__array_namespace_info__", "meshgrid", "broadcast_arrays"):
        f = getattr(ns, name)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(f, protocol)) is f
        assert copy.copy(f) is f and copy.deepcopy(f) is f
        assert f.__name__ == name and f.__doc__ == getattr(sa, name).__doc__
        assert inspect.signature(f) == inspect.signature(getattr(sa, name))
    # and they still answer as that version does
    assert ns.__array_namespace_info__() is ns.__array_namespace_info__()
    a, b = ns.broadcast_arrays(sa.ones((2, 1)), sa.ones(3))
    assert type(ns.broadcast_arrays(a, b)) is list and a.shape == b.shape == (2, 3)
    x, y = ns.meshgrid(sa.arange(2), sa.arange(3))
    np.testing.assert_array_equal(np.asarray(x), np.meshgrid(np.arange(2), np.arange(3))[0])
