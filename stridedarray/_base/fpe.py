"""Floating-point warnings: the one place that decides when NumPy's must be silenced, and how.

The standard has no floating-point exceptions: inf and nan are the answers (1/0, inf - inf,
overflow), and a RuntimeWarning leaking from inside the library is noise (an error under
`-W error`). NumPy checks the FPU flags after each ufunc loop and, when one is set, looks up
the error state of the current context (`np.errstate`) and warns. Without a set flag nothing
happens, so only calls that can set one need the quiet state.

Which calls can: `can_warn(name)` gives the operand kinds for which function `name` can.
Comparisons, bit and logical operations, sign manipulation and copies never set a flag; on
integer and bool operands nothing but integer division by zero does (NumPy reports it as a
divide warning).

How: `np.errstate(all="ignore")` builds its state on every entry; as a decorator that costs
about 0.7 us per call, twice a small ufunc. The quiet state is the same object each time for
a given outer state, so it is made once per outer state (`_quiet_of`) and entered by setting
NumPy's error-state context variable directly: `enter()` / `leave(token)`, about 0.15 us,
around any code. A single ufunc call goes cheaper still through `call(uf, *args, **kwargs)`:
C enters a context prepared once per outer state that holds only the quiet state, and leaves
it (csrc/arraytype/fpe.c, which the C operators share).
This uses NumPy's private `_extobj_contextvar` and `_make_extobj` (NumPy >= 2.0); if a NumPy
lacks them, the same functions fall back to `np.errstate`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arraytype import _quiet_call

__all__ = ["call", "can_warn", "enter", "leave"]

# Functions whose NumPy loops never set floating-point flags, whatever the values.
_NEVER = frozenset(
    "equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor "
    "logical_not bitwise_and bitwise_or bitwise_xor bitwise_invert bitwise_left_shift "
    "bitwise_right_shift isnan isinf isfinite signbit copysign real imag conj positive "
    "negative".split()
)
# Integer (and bool) operands set a flag only through division by zero.
_INTEGER_DIVISION = frozenset({"divide", "floor_divide", "remainder"})


def can_warn(name: str) -> str:
    """The dtype kinds for which `name` can set a floating-point flag in NumPy ("" if none)."""
    if name in _NEVER:
        return ""
    if name in _INTEGER_DIVISION:
        return "biufc"
    return "fc"


try:
    from numpy._core import umath as _umath

    _cv: Any = _umath._extobj_contextvar
    _make_extobj: Any = _umath._make_extobj
except (ImportError, AttributeError):  # pragma: no cover - a NumPy without the private names
    _cv = None

if _cv is not None:
    _get = _cv.get
    _set = _cv.set
    leave = _cv.reset
    _QUIET_OF: dict[Any, Any] = {}  # outer error state -> the same with all="ignore"

    def _quiet_of(outer: Any) -> Any:
        # Called with `outer` current, so _make_extobj keeps its other settings (buffer
        # size, error callback) as np.errstate would.
        q = _make_extobj(all="ignore")
        if len(_QUIET_OF) >= 64:  # outer states made by user errstate blocks come and go
            _QUIET_OF.clear()
        _QUIET_OF[outer] = q
        return q

    def enter() -> Any:
        """Silence NumPy's floating-point warnings until `leave(token)`; returns the token."""
        outer = _get()
        q = _QUIET_OF.get(outer)
        return _set(q if q is not None else _quiet_of(outer))

    def _learn() -> Any:
        return _quiet_of(_get())

    # What the array type's C code needs to enter the quiet state itself (_handover).
    NATIVE_STATE: tuple | None = (_cv, _QUIET_OF, _learn)
    call: Any = _quiet_call

else:  # pragma: no cover

    def enter() -> Any:
        """Silence NumPy's floating-point warnings until `leave(token)`; returns the token."""
        ctx = np.errstate(all="ignore")
        ctx.__enter__()
        return ctx

    def leave(token: Any) -> None:
        """Restore the error state saved by `enter`."""
        token.__exit__(None, None, None)

    def call(uf: Any, /, *args: Any, **kwargs: Any) -> Any:
        """uf(*args, **kwargs) (a NumPy ufunc or ufunc method) with its warnings silenced."""
        with np.errstate(all="ignore"):
            return uf(*args, **kwargs)

    NATIVE_STATE = None  # C leaves the calls that need the quiet state to Python
