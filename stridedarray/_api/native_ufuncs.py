"""The operators in C: each of Array's arithmetic, comparison and unary operators whose
function has no special-case fix-up becomes an `_arraytype.NativeUfunc`, which computes the common
operand pairs (two arrays of one dtype; an array and a Python float or int that the array's
dtype takes by the weak-scalar rule) in C under the same quiet floating-point state, and hands
every other call to the Python operator it replaces (csrc/arraytype/operators.c says which)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._arraytype import NativeUfunc
from .._base import dtypes as _dtypes
from .._base import fpe as _fpe

__all__ = ["install"]


def _via_float64(cat: str) -> bool:
    """Integer and bool input of a floating-point function computes in float64 (the rule is
    `_dtypes.INTEGERS_AS_FLOAT64`, shared with the Python functions)."""
    return cat in _dtypes.INTEGERS_AS_FLOAT64


def _square(fname: str, reflected: bool) -> Any:
    """`pow(x, 2)` and `x ** 2` compute square(x), as NumPy's `**` does (the same values)."""
    return np.square if fname == "pow" and not reflected else None


def install(
    binary_rows: dict[str, tuple],
    unary_rows: dict[str, tuple],
    kinds_of: Callable[[str, str], str],
    operators: dict,
    comparisons: dict,
    unary_ops: dict,
    members: dict[str, Any],
    functions: dict[str, Any],
) -> None:
    """Replace Array's operators in `members` (dunder -> the Python operator, which Array's
    class statement assigns) with NativeUfuncs around them, and the element-wise functions in
    `functions` (the namespace's, by name) likewise."""

    def native(
        fname: str, row: tuple, dunder: str, nargs: int, reflected: bool, elide: bool = False
    ) -> None:
        _, cat, uf, fix = row
        fallback = members[dunder]
        if fix is not None or isinstance(fallback, NativeUfunc):
            return
        members[dunder] = NativeUfunc(
            uf,
            fallback,
            kinds_of(fname, cat),
            _fpe.can_warn(fname),
            nargs,
            reflected,
            _via_float64(cat),
            elide=elide,
            square=_square(fname, reflected),
        )

    # An arithmetic operator's result has its operands' dtype, so a temporary first operand
    # can take it (csrc/arraytype/elide.c); a comparison's is bool, and a function call's
    # arguments are not the interpreter's temporaries.
    for stem, fname in operators.items():
        native(fname, binary_rows[fname], f"__{stem}__", 2, False, elide=True)
        native(fname, binary_rows[fname], f"__r{stem}__", 2, True, elide=True)
    for stem, fname in comparisons.items():
        native(fname, binary_rows[fname], f"__{stem}__", 2, False)
    for stem, fname in unary_ops.items():
        native(fname, unary_rows[fname], f"__{stem}__", 1, False)
    # The namespace's functions (`exp(x)`, `add(x1, x2)`): the same C path, the Python function
    # as fallback (inspect.signature and help() follow its __wrapped__).
    for rows, nargs in ((unary_rows, 1), (binary_rows, 2)):
        for fname, (_, cat, uf, fix) in rows.items():
            f = functions[fname]
            if fix is None and not isinstance(f, NativeUfunc):
                functions[fname] = NativeUfunc(
                    uf,
                    f,
                    kinds_of(fname, cat),
                    _fpe.can_warn(fname),
                    nargs,
                    False,
                    _via_float64(cat),
                    square=_square(fname, False),
                )
