"""NumPy's function protocols on stridedarray arrays: NEP 13 (`__array_ufunc__`) and NEP 18
(`__array_function__`).

The rule, one for every NumPy entry point (`np.<ufunc>(x)`, `np.<function>(x)`, `ndarray op x`
and `x op ndarray`): NumPy computes what it computes on the arrays' zero-copy NumPy views, with
NumPy's own type promotion, warnings and errors, and the array results come back as
stridedarray arrays. An ndarray result of a dtype the standard has is wrapped without a copy (a
view NumPy returns stays a view of our buffer); a NumPy scalar becomes a 0-d array; tuples and
lists (`np.divmod`, `np.linalg.eigh`, `np.split`) are converted item by item; anything else
(Python scalars, NumPy dtypes, arrays of dtypes outside the standard such as float16, strings
or datetimes) comes back as NumPy gives it, except from the `*_like` creation functions, which
promise an array of their argument's kind and raise TypeError for such a dtype. Results
written into `out=` arguments are those arguments themselves. One exception to "NumPy
computes": `np.matmul` (and so `ndarray @ x`) of two arrays of one numeric dtype runs
stridedarray's planned matmul, so that libraries that
call NumPy's matmul on array chunks (Dask) reach the C core.

This is the choice CuPy, sparse and Dask arrays made: code written for NumPy keeps working on
our arrays and keeps our type. Objects of other libraries that take part in these protocols
(Dask or xarray arrays, pandas objects) are deferred to (NotImplemented), as NEP 13/18 ask.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _wrap
from .._base.construct import ArrayBase
from .._base.dtypes import from_numpy_dtype

if TYPE_CHECKING:
    from .._array.array import Array


_own: Any = np.ndarray.view  # _own(r): r's base-class view (r is an exact ndarray here)

__all__: list[str] = []  # Array's two methods below, assigned in its class statement

# Types we convert ourselves; any other argument type that defines the protocol is deferred to.
_OURS = (ArrayBase, np.ndarray, np.generic)


def _foreign(objs: Any, protocol: str) -> bool:
    """True when an argument belongs to another library implementing `protocol`."""
    return any(
        getattr(type(o), protocol, None) is not None and not isinstance(o, _OURS) for o in objs
    )


# Lists nested deeper than this are NumPy's to refuse (it allows 64 dimensions); the bound
# also keeps a pathological argument from exhausting Python's recursion limit here.
_MAX_NESTING = 66


def _to_numpy(obj: Any, active: list | None = None) -> Any:
    """`obj` with every Array, also inside lists and tuples, replaced by its NumPy view.

    A list that contains itself (``r = []; r.append(r)``) raises ValueError, as NumPy's own
    conversion does, instead of recursing until RecursionError."""
    if isinstance(obj, ArrayBase):
        return obj._np
    t = type(obj)
    if t is list or t is tuple:
        if active is None:
            active = []
        elif any(o is obj for o in active):
            raise ValueError(
                "an argument is a list that contains itself; a self-referencing "
                "sequence cannot be converted to an array"
            )
        elif len(active) >= _MAX_NESTING:
            return obj
        active.append(obj)
        try:
            return t(_to_numpy(o, active) for o in obj)
        finally:
            active.pop()
    return obj


def _readonly(obj: Any) -> bool:
    """Whether `obj`, a target NumPy would write into, refuses writes."""
    if isinstance(obj, ArrayBase):
        return obj.readonly  # also covers views the Array marks read-only (broadcasts)
    return isinstance(obj, np.ndarray) and not obj.flags.writeable


def _check_targets(ufunc: np.ufunc, method: str, inputs: tuple, outs: tuple) -> None:
    """ValueError, before anything is written, when a target of `ufunc.method` is read-only:
    every `out=` array, and for `at` the array updated in place (NumPy's `at` writes into a
    read-only array without checking)."""
    targets = outs + inputs[:1] if method == "at" else outs
    name = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    for i, t in enumerate(targets):
        if _readonly(t):
            what = (
                "the first argument of at()"
                if i >= len(outs)
                else ("out" if len(outs) == 1 else f"out[{i}]")
            )
            raise ValueError(
                f"{name}: {what} is read-only (a view of "
                "read-only memory, or a broadcast view); nothing was written"
            )


def _supported(npdt: np.dtype) -> bool:
    try:
        from_numpy_dtype(npdt)
    except TypeError:
        return False
    return True


def _to_ours(r: Any) -> Any:
    """NumPy's result with its arrays and scalars of standard dtypes as stridedarray arrays.

    An ndarray result becomes an array over a view of it that only we hold, never over the
    ndarray itself: NumPy may hand back an argument as it is (`np.asarray(a, like=x)`,
    `np.atleast_1d(x, a)`, an `__array__` that returns its own ndarray), and its owner may
    later assign its shape or dtype (docs/reliability.md)."""
    t = type(r)
    if t is np.ndarray:
        return _wrap(_own(r)) if _supported(r.dtype) else r
    if isinstance(r, np.generic):
        return _wrap(r) if _supported(r.dtype) else r
    if t is list:
        return [_to_ours(o) for o in r]
    if isinstance(r, tuple):
        items = [_to_ours(o) for o in r]
        return t(*items) if hasattr(r, "_fields") else t(items)  # namedtuples keep their type
    return r


def _matmul_operands(inputs: tuple) -> tuple[Array, Array] | None:
    """Both operands of np.matmul as Arrays when stridedarray's matmul computes the product:
    arrays (or ndarrays) of one numeric dtype, each of rank >= 1."""
    if len(inputs) != 2:
        return None
    from .._api.creation import asarray

    ops = []
    for x in inputs:
        if isinstance(x, np.ndarray):
            if not _supported(x.dtype):
                return None
            x = asarray(x)
        elif not isinstance(x, ArrayBase):
            return None
        if x.ndim == 0:
            return None
        ops.append(x)
    a, b = ops
    if a.dtype is not b.dtype or a.dtype.kind == "b":
        return None
    return a, b


# NumPy's floating-point warnings ("invalid value encountered in log") are raised from inside
# the ufunc, so Python attributes them to the line that called it: ours, here. While a ufunc
# runs for a caller, each of NumPy's error kinds set to "warn" is set to "call" instead, with
# a callback that issues the same warning at the first frame outside this package (the
# user's `np.log(x)`). Other settings ("raise", "ignore", a user's "call" or "log") are left
# as they are. The state is made once per outer state and ufunc and entered by setting
# NumPy's error-state context variable, as _fpe does.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_caller(message: str, category: type[Warning] = RuntimeWarning) -> None:
    """warnings.warn attributed to the nearest frame outside the stridedarray package."""
    if sys.version_info >= (3, 12):
        warnings.warn(message, category, skip_file_prefixes=(_PACKAGE_DIR,))
        return
    level = 2  # the frame that called this function
    f: Any = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f, level = f.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


class _Reporter:
    """NumPy's error callback for one operation name: the warning NumPy would give."""

    __slots__ = ("where",)

    def __init__(self, where: str) -> None:
        self.where = where

    def __call__(self, err: str, flag: int) -> None:
        warn_at_caller(f"{err} encountered in {self.where}", RuntimeWarning)


try:
    from numpy._core import umath as _umath

    _errstate_var: Any = _umath._extobj_contextvar
    _make_extobj: Any = _umath._make_extobj
except (ImportError, AttributeError):  # pragma: no cover - a NumPy without the private names
    _errstate_var = None

# outer error state -> {operation name -> the state to run it in, or None to keep the outer}
_REDIRECTS: dict[Any, dict[str, Any]] = {}
_NAMED_BY_METHOD = frozenset({"reduce", "accumulate", "reduceat"})  # NumPy's own wording


def _redirect(outer: Any, where: str) -> Any:
    """The error state to run `where` in (called with `outer` current), or None to keep it."""
    errs = np.geterr()
    modes = set(errs.values())
    state = None
    if "warn" in modes and not modes & {"call", "log"}:
        calls = {k: ("call" if v == "warn" else v) for k, v in errs.items()}
        state = _make_extobj(call=_Reporter(where), **calls)
    if len(_REDIRECTS) >= 64:  # outer states made by user errstate blocks come and go
        _REDIRECTS.clear()
    _REDIRECTS.setdefault(outer, {})[where] = state
    return state


def _run_ufunc(ufunc: np.ufunc, method: str, args: tuple, kwargs: dict) -> Any:
    """getattr(ufunc, method)(*args, **kwargs), its warnings attributed to the caller."""
    if method == "__call__":
        f, where = ufunc, ufunc.__name__
    else:
        f = getattr(ufunc, method)
        where = method if method in _NAMED_BY_METHOD else ufunc.__name__
    if _errstate_var is None:  # pragma: no cover
        return f(*args, **kwargs)
    outer = _errstate_var.get()
    states = _REDIRECTS.get(outer)
    state = states.get(where, _redirect) if states is not None else _redirect
    if state is _redirect:  # not seen yet with this outer state
        state = _redirect(outer, where)
    if state is None:
        return f(*args, **kwargs)
    token = _errstate_var.set(state)
    try:
        return f(*args, **kwargs)
    finally:
        _errstate_var.reset(token)


def __array_ufunc__(self: Array, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """NEP 13: NumPy ufuncs on stridedarray arrays (rule in `_numpy_dispatch`).

    The ufunc runs on zero-copy NumPy views of the operands; results of standard dtypes
    come back as stridedarray arrays. docs/interop.md gives the whole rule.

    Examples
    --------
    >>> import numpy as np
    >>> import stridedarray as sa
    >>> np.sqrt(sa.asarray([1.0, 4.0]))
    Array([1., 2.], dtype=float64, shape=(2,))
    """
    out = kwargs.get("out")
    outs = () if out is None else out if isinstance(out, tuple) else (out,)
    where = kwargs.get("where")
    if (
        _foreign(inputs, "__array_ufunc__")
        or _foreign(outs, "__array_ufunc__")
        or (where is not None and _foreign((where,), "__array_ufunc__"))
    ):
        return NotImplemented
    if ufunc is np.matmul and method == "__call__" and not kwargs:
        ops = _matmul_operands(inputs)
        if ops is not None:
            from .._matmul.product import matmul

            return matmul(*ops)
    _check_targets(ufunc, method, inputs, outs)
    nin = tuple(_to_numpy(x) for x in inputs)
    if kwargs:
        # Every keyword (out=, where=, ...) as NumPy views: an Array left in one would send
        # NumPy back to this override, over and over.
        kwargs = {k: _to_numpy(v) for k, v in kwargs.items()}
    # _run_ufunc inlined for the common case, a call (a Python frame is a visible share)
    if method == "__call__" and _errstate_var is not None:
        outer = _errstate_var.get()
        states = _REDIRECTS.get(outer)
        where = ufunc.__name__
        state = states.get(where, _redirect) if states is not None else _redirect
        if state is _redirect:  # not seen yet with this outer state
            state = _redirect(outer, where)
        if state is None:
            r = ufunc(*nin, **kwargs)
        else:
            token = _errstate_var.set(state)
            try:
                r = ufunc(*nin, **kwargs)
            finally:
                _errstate_var.reset(token)
    else:
        r = _run_ufunc(ufunc, method, nin, kwargs)
    if out is not None:
        # NumPy returns the out arrays: give back the caller's own objects (and NumPy's new
        # result, converted, where an output was left None: out=(None, y)).
        if method == "at":
            return None
        if len(outs) == 1:
            return outs[0] if outs[0] is not None else _to_ours(r)
        return tuple(o if o is not None else _to_ours(ri) for o, ri in zip(outs, r, strict=True))
    return _to_ours(r)


def __array_function__(self: Array, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    """NEP 18: NumPy functions on stridedarray arrays (rule in `_numpy_dispatch`).

    NumPy's implementation runs on zero-copy views; arrays of standard dtypes in the
    result come back as stridedarray arrays (docs/interop.md).

    Examples
    --------
    >>> import numpy as np
    >>> import stridedarray as sa
    >>> np.concatenate([sa.arange(2), sa.arange(3)])
    Array([0, 1, 0, 1, 2], dtype=int64, shape=(5,))
    """
    for t in types:
        if not issubclass(t, _OURS):
            return NotImplemented
    impl = getattr(func, "_implementation", func)  # skips a second round of dispatch
    out = kwargs.get("out")
    nkwargs = {k: _to_numpy(v) for k, v in kwargs.items()}
    r = impl(*_to_numpy(args), **nkwargs)
    if out is not None and r is nkwargs["out"]:
        return out
    if func in _LIKE and not _supported(r.dtype):
        # np.empty_like(x, ...) promises an array of x's kind; we cannot hold this dtype.
        raise TypeError(
            f"numpy.{func.__name__}: stridedarray arrays cannot hold dtype "
            f"{r.dtype}; call it on numpy.asarray(x) for a NumPy array"
        )
    return _to_ours(r)


# Functions that make a new array of their argument's kind: a dtype outside the standard
# raises TypeError instead of silently returning an ndarray (as CuPy does; Dask relies on it
# to choose its dict-based path for arg reductions).
_LIKE = frozenset({np.empty_like, np.zeros_like, np.ones_like, np.full_like})
