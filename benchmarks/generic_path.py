"""NumPy through a client's generic (non-NumPy) array-API path: the clients suite's
"numpy (generic path)" variant.

scikit-learn and SciPy take shortcuts for NumPy: scikit-learn's `_nanmin` calls `numpy.nanmin`
for a NumPy namespace and `isnan`/`where`/`min`/`all`/`any` for any other, SciPy's
`fftconvolve` uses SciPy's own FFT for NumPy and `xp.fft` otherwise. A stridedarray run always
takes the generic branch, so beside plain NumPy it pays both its own cost and the cost of that
branch. This variant runs the generic branch on NumPy arrays, with NumPy's own functions.

How the clients recognise NumPy. Both decide by the name of the namespace the arrays resolve
to, not by looking at the arrays again: scikit-learn's `_is_numpy_namespace(xp)` is
`xp.__name__ in {"numpy", "sklearn.externals.array_api_compat.numpy"}`; SciPy's `is_numpy`,
and the `is_numpy_namespace` that array-api-compat and array-api-extra use, is `xp.__name__ in
{"numpy", "<vendored array_api_compat>.numpy"}`. The namespace comes from array-api-compat's
`array_namespace` (scikit-learn's `get_namespace`), which maps `numpy.ndarray` and its
subclasses to the package's `numpy` submodule (`from .. import numpy`, cached per class), and
from SciPy's own `array_namespace`, which returns its module global `np_compat` for
`ndarray` (subclasses included) without asking array-api-compat. So an ndarray subclass with its
own `__array_namespace__` is still NumPy to both, and a wrapper type that is not an ndarray
would add a Python layer to every call (array-api-strict is that column already).

What this module does instead, inside `generic_path()` only: each library's vendored
`array_api_compat.numpy` is replaced, where the namespace lookup reads it, by a module object
holding the same attributes (the same function objects, so the same per-call cost) under a
name that no predicate recognises, "benchmarks.numpy_generic". The arrays stay
`numpy.ndarray`; every namespace-based is-NumPy test then says no, and the client runs the code
it runs for stridedarray. The lookup caches are cleared on entry and exit, so nothing outside
the block sees the renamed namespace. What still sees NumPy: tests of the array's type
(`isinstance(x, numpy.ndarray)`, array-api-compat's `is_numpy_array`, `is_lazy_array`,
`is_writeable_array`, `device`), which stridedarray's arrays fail: docs/benchmark-method.md
lists where the suite's workloads meet them.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import timeit
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["NAME", "GenericPathTimer", "generic_path", "namespaces"]

NAME = "benchmarks.numpy_generic"
# The vendored array-api-compat of each client: (the packages it may be vendored as, tried in
# order, and the module whose `_cls_to_namespace` caches the class -> namespace lookup).
_COMPAT = {
    "scikit-learn": (("sklearn.externals.array_api_compat",), "common._helpers"),
    # SciPy >= 1.17 vendors it as scipy._external.array_api_compat.
    "scipy": (
        ("scipy._external.array_api_compat", "scipy._lib.array_api_compat"),
        "common._helpers",
    ),
}
# SciPy's array_namespace returns this module's global `np_compat` for NumPy arrays.
_SCIPY_OVERRIDE = "scipy._lib._array_api_override"
_SKIP = {"__name__", "__spec__", "__loader__", "__package__", "__file__", "__path__", "__cached__"}


def _rename(mod: types.ModuleType) -> types.ModuleType:
    """A module object with `mod`'s attributes (the same objects) under NAME."""
    ns = types.ModuleType(NAME, mod.__doc__)
    for k, v in vars(mod).items():
        if k not in _SKIP:
            setattr(ns, k, v)
    return ns


@functools.cache
def _vendored() -> dict[str, tuple[str, types.ModuleType]]:
    """Per installed client library: the package its array-api-compat is vendored as, and
    that package's `numpy` namespace renamed (made once: the same object in every block)."""
    found: dict[str, tuple[str, types.ModuleType]] = {}
    for lib, (packages, _) in _COMPAT.items():
        for pkg in packages:
            try:
                compat = importlib.import_module(pkg)
                importlib.import_module(pkg + ".numpy")
            except ImportError:
                continue
            found[lib] = (pkg, _rename(compat.numpy))
            break
    return found


def namespaces() -> dict[str, types.ModuleType]:
    """The renamed namespace per client library (scikit-learn, SciPy) that is installed: its
    vendored `array_api_compat.numpy` under NAME."""
    return {lib: ns for lib, (_, ns) in _vendored().items()}


def _helpers(lib: str) -> types.ModuleType:
    """The vendored module of `lib` that holds the `_cls_to_namespace` cache."""
    pkg, _ = _vendored()[lib]
    return importlib.import_module(f"{pkg}.{_COMPAT[lib][1]}")


def _targets() -> list[tuple[Any, str, Any]]:
    """(object, attribute, renamed namespace) for every place the lookup reads. RuntimeError
    when an installed client has none of them (another layout than this module knows: the
    variant would silently be plain NumPy)."""
    out: list[tuple[Any, str, Any]] = []
    for lib, (pkg, ns) in _vendored().items():
        if not hasattr(_helpers(lib), "_cls_to_namespace"):
            raise RuntimeError(f"{pkg} has no _cls_to_namespace: unknown array-api-compat")
        out.append((importlib.import_module(pkg), "numpy", ns))
        if lib == "scipy":
            override = importlib.import_module(_SCIPY_OVERRIDE)
            if not hasattr(override, "np_compat"):
                raise RuntimeError(f"{_SCIPY_OVERRIDE} has no np_compat: unknown SciPy layout")
            out.append((override, "np_compat", ns))
    return out


def _clear_caches() -> None:
    for lib in _vendored():
        _helpers(lib)._cls_to_namespace.cache_clear()


@contextlib.contextmanager
def generic_path() -> Iterator[None]:
    """Inside the block, NumPy arrays resolve to a namespace that scikit-learn and SciPy do not
    recognise as NumPy (the same functions under NAME): the clients take their generic path."""
    targets = _targets()
    saved = [(obj, attr, getattr(obj, attr)) for obj, attr, _ in targets]
    try:
        for obj, attr, ns in targets:
            setattr(obj, attr, ns)
        _clear_caches()
        yield
    finally:
        for obj, attr, old in saved:
            setattr(obj, attr, old)
        _clear_caches()


class GenericPathTimer(timeit.Timer):
    """A `timeit.Timer` whose every `timeit(number)` runs inside `generic_path()`: the swap
    and its restoration stay outside the timed loop."""

    def timeit(self, number: int = 1_000_000) -> float:  # timeit.default_number
        with generic_path():
            return super().timeit(number)
