"""NumPy's names and arguments that the standard spells differently: what to write instead.

Code written for NumPy reaches for `transpose`, `concatenate`, `round(x, 2)` or
`sum(x, 0)`; Python's bare errors ("module has no attribute", "takes 1 positional argument")
do not say that the function exists under another name. Two tables say it:

- `FUNCTIONS`: a NumPy function (or type) name -> the standard's spelling, read by the
  modules' `__getattr__` (stridedarray, linalg, fft) when a name is missing. A NumPy name
  outside the table that NumPy has gets the generic hint: NumPy's function takes
  stridedarray arrays (docs/numpy-users.md). No public name is added: `dir()` is unchanged.
- `ARGUMENTS`: a NumPy keyword -> the standard's; and an axis (or another keyword-only
  argument) given positionally. The functions that check them take NumPy's spellings as
  hidden parameters (`*numpy_args`, `out=NUMPY`, ...), which `numpy_arguments` leaves out of
  their signature; a call that passes one raises `numpy_call`'s TypeError. A hidden parameter
  costs a function call nothing measurable, where a wrapper catching the binding error would
  add a Python frame to every call.

docs/numpy-users.md's table is these tables (tests/interop/test_numpy_users.py checks it).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .._array.array import Array

__all__: list[str] = []

# NumPy's name -> the standard's spelling (in stridedarray, unless the text says otherwise).
FUNCTIONS: dict[str, str] = {
    "absolute": "abs",
    "amax": "max",
    "amin": "min",
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctan2": "atan2",
    "arctanh": "atanh",
    "around": "round",
    "array": "asarray (copy=True to copy)",
    "asanyarray": "asarray",
    "ascontiguousarray": "asarray(x, copy=True)",
    "bitwise_not": "bitwise_invert",
    "concatenate": "concat",
    "conjugate": "conj",
    "copy": "asarray(x, copy=True)",
    "dot": "matmul (or x1 @ x2), vecdot or tensordot",
    "fliplr": "flip(x, axis=1)",
    "flipud": "flip(x, axis=0)",
    "hstack": "concat (or stack)",
    "inner": "vecdot",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "mod": "remainder",
    "ndarray": "Array",
    "outer": "linalg.outer",
    "power": "pow",
    "ravel": "reshape(x, (-1,))",
    "right_shift": "bitwise_right_shift",
    "rint": "round",
    "swapaxes": "permute_dims (or moveaxis)",
    "trace": "linalg.trace",
    "transpose": "permute_dims (any order of axes) or matrix_transpose (the last two)",
    "true_divide": "divide",
    "unique": "unique_values, unique_counts, unique_inverse or unique_all",
    "vstack": "concat (or stack)",
}

# In stridedarray.linalg (NumPy's numpy.linalg names).
LINALG_FUNCTIONS: dict[str, str] = {
    "norm": "linalg.vector_norm or linalg.matrix_norm",
    "multi_dot": "matmul, one product at a time",
}

# NumPy's keyword -> (the functions that refuse it with a hint, what to write instead).
ARGUMENTS: dict[str, tuple[tuple[str, ...], str]] = {
    "decimals": (
        ("round",),
        "none (it rounds to integers): round(x * 10**d) / 10**d, or np.round(x, d)",
    ),
    "out": (
        ("sum", "prod", "mean", "std", "var", "max", "min"),
        "none (results are new arrays): assign one where it goes, y[...] = {func}(x)",
    ),
}
# NumPy's positional arguments -> the standard's keyword-only ones, by function.
POSITIONAL: dict[str, tuple[str, ...]] = {
    "sum": ("axis", "dtype", "keepdims"),
    "prod": ("axis", "dtype", "keepdims"),
    "mean": ("axis", "keepdims"),
    "std": ("axis", "correction", "keepdims"),
    "var": ("axis", "correction", "keepdims"),
    "max": ("axis", "keepdims"),
    "min": ("axis", "keepdims"),
    "cumulative_sum": ("axis", "dtype", "include_initial"),
    "cumulative_prod": ("axis", "dtype", "include_initial"),
    "all": ("axis", "keepdims"),
    "any": ("axis", "keepdims"),
    "argmax": ("axis", "keepdims"),
    "argmin": ("axis", "keepdims"),
    "sort": ("axis", "descending", "stable"),
    "argsort": ("axis", "descending", "stable"),
    "concat": ("axis",),
    "stack": ("axis",),
}


class _NumPyOnly:
    """The default of a hidden parameter: the caller did not pass NumPy's argument."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NUMPY"


NUMPY: Any = _NumPyOnly()

_F = TypeVar("_F", bound=Callable[..., Any])


def numpy_arguments(f: _F) -> _F:
    """Give `f` its standard signature: without `*numpy_args` and the parameters whose default
    is `NUMPY` (help(), inspect and the API docs show only the standard's parameters)."""
    sig = inspect.signature(f)
    params = [
        p
        for p in sig.parameters.values()
        if p.kind is not p.VAR_POSITIONAL and p.default is not NUMPY
    ]
    f.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return f


def numpy_call(func: str, positional: tuple, **numpy: Any) -> TypeError:
    """The TypeError for a call in NumPy's spelling: extra positional arguments (the standard
    takes `POSITIONAL[func]` by keyword only) or NumPy's keywords (`numpy`: NUMPY where the
    call did not pass them)."""
    for name, value in numpy.items():
        if value is not NUMPY:
            hint = ARGUMENTS[name][1].format(func=func, value=value)
            return TypeError(
                f"{func}() has no argument {name!r} (NumPy's); the standard's is {hint}"
            )
    keywords = POSITIONAL[func]
    first = "arrays" if func in ("concat", "stack") else "x"
    shown = ", ".join(f"{k}={v!r}" for k, v in zip(keywords, positional, strict=False))
    more = "s" if len(positional) > 1 else ""
    return TypeError(
        f"{func}() takes {', '.join(keywords)} by keyword only (the standard's signature), "
        f"got {len(positional)} more positional argument{more}; write {func}({first}, {shown})"
    )


def missing(module: str, name: str) -> AttributeError:
    """The AttributeError for `module.name`: with NumPy's spelling's replacement, or the
    generic hint where NumPy has the name and the standard does not."""
    message = f"module {module!r} has no attribute {name!r}"
    if name.startswith("_"):
        return AttributeError(message)
    import numpy as np

    sub = module.removeprefix("stridedarray").lstrip(".")  # "", "linalg", "lib.stride_tricks"
    table = LINALG_FUNCTIONS if sub == "linalg" else {} if sub else FUNCTIONS
    numpy_module: Any = np
    for part in sub.split(".") if sub else ():
        numpy_module = getattr(numpy_module, part, None)
    if name in table:
        return AttributeError(
            f"{message}; NumPy's {name} is spelled stridedarray.{table[name]} in the Array API "
            "standard (docs/numpy-users.md)"
        )
    if numpy_module is not None and hasattr(numpy_module, name):
        np_name = f"np.{sub + '.' if sub else ''}{name}"
        # a NumPy module (np.lib.scimath): its functions are what one calls
        call = f"{np_name}(x)" if callable(getattr(numpy_module, name)) else f"{np_name}.f(x)"
        return AttributeError(
            f"{message}: {np_name} is not in the Array API standard; NumPy's function takes "
            f"stridedarray arrays and returns them ({call}), or convert with "
            "x.tolist() or np.asarray(x) (docs/numpy-users.md)"
        )
    return AttributeError(message)


def round_without_decimals(f: Callable[..., Any]) -> Callable[..., Any]:
    """The element-wise `round` (`f`) refusing NumPy's `decimals` with a hint. It is the
    NativeUfunc's Python fallback, so the C path of round(x) does not run it."""

    def round(x: Array, /, *numpy_args: Any, decimals: Any = NUMPY) -> Array:  # noqa: A001
        if numpy_args or decimals is not NUMPY:
            raise numpy_call("round", (), decimals=numpy_args[0] if numpy_args else decimals)
        return f(x)

    round.__doc__ = f.__doc__
    return numpy_arguments(round)
