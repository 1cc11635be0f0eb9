"""Array's members that the namespace's modules implement, bound onto the class in one table.

`Array` (`_array.py`) declares its whole surface: what it defines, what it takes from the
modules beside it (conversions, pickling, DLPack), and, for type checkers, the signatures of
the members listed here. Their bodies belong to the chapters that define the operations: the
operators to the element-wise table, `@` to matmul, assignment to indexing. Those modules
import `_array`, so `_array` cannot import them; instead the package's `__init__` calls
`install()` once all of them are imported, and this table sets each member on the class.

A member is the implementing object itself, not a wrapper: `x + y` calls the NativeUfunc (C) that
`_elementwise` made, `x @ y` the function (or C callable) `_matmul` exports, with no Python
frame in between. A new member is one line here and one declaration in `Array`'s class body
(an operator: one named assignment in `_operators` and its name in the class body's import from
it); tests/test_import_graph.py keeps the two equal.
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Any

from . import _info, _ndarray_methods, _operators, _setitem
from . import _numpy_dispatch as _nd
from ._array import Array
from ._arraytype import NativeFunction, NativeMatmul, NativeUfunc

__all__: list[str] = []

# name -> the object bound onto Array under that name (one line each; a C callable fits as is).
MEMBERS: dict[str, Any] = {
    # the namespace, and NumPy's function protocols (NEP 13, NEP 18)
    "__array_namespace__": _info.__array_namespace__,
    "__array_ufunc__": _nd.__array_ufunc__,
    "__array_function__": _nd.__array_function__,
    # assignment, `x[key] = value` (reading, `x[key]`, is the array type's own, in C)
    "__setitem__": _setitem.__setitem__,
    # the operators, each the object `_operators` names: arithmetic, bitwise, comparison and
    # unary ones are NativeUfuncs (C) for the common operands, around the Python operators (see
    # _native_ufuncs); `@`, `@=` are _matmul's
    **{name: getattr(_operators, name) for name in _operators.NAMES},
    # NumPy's ndarray methods (sum, astype, reshape, ...) on the zero-copy view
    **_ndarray_methods.METHODS,
}


def install(package: types.ModuleType) -> None:
    """Bind `MEMBERS` onto Array and record `package` (stridedarray) as the namespace arrays
    return from `__array_namespace__`."""
    for name, member in MEMBERS.items():
        setattr(Array, name, member)
    _info.set_namespace(package)


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
    Array's members that are not namespace functions become `stridedarray.Array.<name>`.
    """
    named: set[int] = set()
    for mod in namespaces:
        for name in mod.__all__:
            # vars(), not getattr: a submodule that loads on first use (the package's fft and
            # linalg) is not loaded by naming the package's functions.
            f = vars(mod).get(name)
            if f is None or id(f) in named or not _ours(f):
                continue
            f.__module__ = mod.__name__
            f.__qualname__ = name
            named.add(id(f))
    for name, member in list(vars(Array).items()):
        if id(member) not in named and _ours(member) and member.__module__ != "stridedarray":
            member.__module__ = Array.__module__
            member.__qualname__ = f"Array.{name}"
