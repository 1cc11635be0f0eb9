"""The names stridedarray's pickles refer to (docs/reliability.md, "What a pickle may contain").

A pickle records, as a module and a name, where to find what rebuilds an object. Every
pickle of stridedarray's names one of these, and nothing else of the package:
- the public names: functions as `stridedarray.add` or `stridedarray.linalg.inv`, Array's
  methods as `stridedarray.Array.__add__`, the class as `stridedarray.Array`; `finfo` and
  `iinfo` results as calls of `stridedarray.finfo` and `stridedarray.iinfo`;
- the names below, for what has no public name of its own: an array, a dtype, the device,
  the namespace information object (and its class, whose methods pickle as
  `stridedarray._pickle.Info.<name>`), a function of an older version's namespace.

This module stays where it is and these names keep their arguments, whatever else moves, so
that a pickle written by one version of stridedarray loads in a later one;
tests/array/test_pickle_compat.py loads pickles committed with the tests. The rebuilders live beside
what they rebuild, which imports nothing of this module (the package's import order); here
each gets its permanent name. Each checks what it is given (a pickle is data from elsewhere)
and raises pickle.UnpicklingError naming what is wrong.
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Any

from ._api.info import Info, _unpickle_function, _unpickle_info
from ._array.pickling import rebuild as _rebuild
from ._arraytype import ArrayBase, NativeFunction, NativeMatmul, NativeUfunc
from ._base.device import _unpickle_device
from ._base.dtypes import _unpickle_dtype

__all__ = [
    "Info",
    "array",
    "device",
    "dtype",
    "namespace_info",
    "publish",
    "versioned_function",
]


def _named(f: Any, name: str) -> Any:
    f.__module__, f.__qualname__, f.__name__ = __name__, name, name
    return f


array = _named(_rebuild, "array")  # (data, dtype name, shape, strides, origin, read-only)
dtype = _named(_unpickle_dtype, "dtype")  # (name,): stridedarray.float64 for "float64"
device = _named(_unpickle_device, "device")  # (): CPU_DEVICE
namespace_info = _named(_unpickle_info, "namespace_info")  # (API version,)
versioned_function = _named(_unpickle_function, "versioned_function")  # (API version, name)

# The class of the namespace information object has no public name: it and its methods pickle
# by reference to it here.
Info.__module__ = __name__
for _method in vars(Info).values():
    if callable(_method) and hasattr(_method, "__qualname__"):
        _method.__module__ = __name__


# The C callables that stand in for Python functions (csrc/arraytype/native.c): their
# `__module__` and `__qualname__` start as their Python function's and are set here.
_NATIVE_TYPES = (NativeUfunc, NativeFunction, NativeMatmul)


def _ours(f: Any) -> bool:
    """A callable of stridedarray's own: a C callable, or a Python function of the package."""
    return isinstance(f, _NATIVE_TYPES) or (
        isinstance(f, types.FunctionType) and f.__module__.split(".")[0] == "stridedarray"
    )


def publish(namespaces: Iterable[types.ModuleType]) -> None:
    """Give every public callable its public name, which pickle and copy resolve back to it.

    A function of the namespace pickles by reference, as `__module__`.`__qualname__`: the
    public module and name where it is first found in `namespaces` (`stridedarray.add`,
    `stridedarray.linalg.inv`, as NumPy's are `numpy.add`), whichever private module
    implements it, so that a pickle does not depend on where the code lives
    (stridedarray/_pickle.py). Its source stays findable (`inspect` reads the code object).
    The members of a public array class (`stridedarray.Array`) that are not namespace
    functions become `stridedarray.Array.<name>`.
    """
    named: set[int] = set()
    classes = []
    # The array class: the one class the C base type has (stridedarray.Array), named here
    # without importing it (only the array object and __init__ import the class).
    (array_class,) = ArrayBase.__subclasses__()
    for mod in namespaces:
        for name in mod.__all__:
            # vars(), not getattr: a submodule that loads on first use (the package's fft and
            # linalg) is not loaded by naming the package's functions.
            f = vars(mod).get(name)
            if isinstance(f, type) and issubclass(f, ArrayBase):
                classes.append(f)
            if f is None or id(f) in named or not _ours(f):
                continue
            f.__module__ = mod.__name__
            f.__qualname__ = name
            named.add(id(f))
            # typing.get_type_hints(f) evaluates f's annotations in the globals of the module
            # that implements it, where the parts below the array object name the array class
            # for type checkers only (`if TYPE_CHECKING:`): give those globals the name, so
            # that `-> Array` resolves (einx takes get_type_hints(xp.asarray)["return"] for
            # the namespace's array type). The modules' code does not use it.
            implementation = getattr(f, "__wrapped__", f)
            if isinstance(implementation, types.FunctionType):
                implementation.__globals__.setdefault("Array", array_class)
    for cls in classes:
        for name, member in list(vars(cls).items()):
            if id(member) not in named and _ours(member) and member.__module__ != "stridedarray":
                member.__module__ = cls.__module__
                member.__qualname__ = f"{cls.__qualname__}.{name}"
