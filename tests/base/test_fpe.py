"""The quiet floating-point state (stridedarray/_base/fpe.py): on the supported NumPy versions it is
the fast path built on NumPy's private error-state names, and a NumPy that lacks them fails
here by name instead of making every call quietly slower. The fallback that a NumPy without
them would take (np.errstate) gives the same values and leaks no warning. Which calls may skip
the quiet state (_fpe.can_warn), and that the state is silent, per thread and restores the
caller's, around the C operators and ufuncs too."""

from __future__ import annotations

import contextvars
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import stridedarray as sa
from stridedarray import _arraytype
from stridedarray._api.elementwise import _BINARY, _K, _UNARY
from stridedarray._arraytype import _quiet_call
from stridedarray._base import fpe as _fpe

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means

# What _base/fpe.py takes from NumPy privately (its `from numpy._core import umath` block).
PRIVATE = ("_extobj_contextvar", "_make_extobj")


@pytest.mark.parametrize("name", PRIVATE)
def test_numpys_private_names_of_the_quiet_path_exist(name):
    from numpy._core import umath

    assert hasattr(umath, name), (
        f"NumPy {np.__version__} has no numpy._core.umath.{name}: stridedarray's quiet "
        "floating-point state falls back to np.errstate (slower on every call); "
        "update stridedarray/_base/fpe.py for this NumPy"
    )
    assert isinstance(umath._extobj_contextvar, contextvars.ContextVar)
    assert callable(umath._make_extobj)


def test_the_fast_quiet_path_is_in_use():
    from numpy._core import umath

    assert _fpe._cv is umath._extobj_contextvar
    assert _fpe.call is _arraytype._quiet_call  # the C entry, not the np.errstate one
    before = np.geterr()
    tok = _fpe.enter()
    try:
        assert set(np.geterr().values()) == {"ignore"}
    finally:
        _fpe.leave(tok)
    assert np.geterr() == before


def test_the_c_operators_enter_the_quiet_state_through_numpys_context_variable():
    from numpy._core import umath

    x = sa.asarray([1.0, -1.0, 0.0])
    # a new outer error state: the C operator learns its quiet state through _fpe (which only
    # the fast path records), and the user's "raise" does not reach the division by zero
    with np.errstate(divide="raise", invalid="raise"):
        outer = umath._extobj_contextvar.get()
        assert outer not in _fpe._QUIET_OF
        r = x / 0.0
        assert outer in _fpe._QUIET_OF
        assert np.geterr()["divide"] == "raise"
    assert np.asarray(r).tolist()[:2] == [np.inf, -np.inf] and np.isnan(np.asarray(r)[2])


# Values that set floating-point flags in NumPy, in the operators, the element-wise functions
# (C and Python paths) and the reductions; each printed as its repr.
_CASES = textwrap.dedent(
    """
    import numpy as np
    import stridedarray as sa
    f = sa.asarray([1.0, -1.0, 0.0])
    i = sa.asarray([1, 2, 0])
    big = sa.asarray([1e308, 1e308])
    results = [
        f / 0.0, f / sa.zeros(3), 1.0 / f, f // 0.0, f % 0.0, i // 0, i % 0, i / 0,
        sa.exp(sa.asarray([1000.0])), sa.log(f), sa.sqrt(f), sa.divide(f, f),
        big * 10.0, big + big, sa.sum(big), sa.mean(big), sa.prod(big), sa.std(big),
        sa.pow(f, -1.0), sa.asarray([1e-308], dtype=sa.float32) * 1.0,
        sa.atan2(f, sa.zeros(3)), sa.cumulative_sum(big),
    ]
    with np.errstate(all="raise"):  # a caller's state does not reach inside the library
        results.append(f / 0.0)
        results.append(sa.sum(big))
        after = np.geterr()
    print(repr([np.asarray(r).tolist() for r in results]))
    print(after == {"divide": "raise", "over": "raise", "under": "raise", "invalid": "raise"})
    """
)


def _run(prelude: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", prelude + _CASES],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_the_fallback_without_numpys_private_names_gives_the_same_values():
    # NumPy imported first, then the two names removed from numpy._core.umath (NumPy itself
    # took its references at import): stridedarray then imports as it would on a NumPy that
    # lacks them. -W error: any warning leaking from either path fails the child.
    fallback = _run(
        "from numpy._core import umath\n"
        "del umath._extobj_contextvar, umath._make_extobj\n"
        "from stridedarray._base import fpe as _fpe\n"
        "assert _fpe._cv is None and _fpe.call.__module__ == 'stridedarray._base.fpe'\n"
    )
    fast = _run(
        "from stridedarray import _arraytype\n"
        "from stridedarray._base import fpe as _fpe\n"
        "assert _fpe._cv is not None and _fpe.call is _arraytype._quiet_call\n"
    )
    assert fallback == fast
    assert fast[1] == "True"
    # and the values are NumPy's own, computed quietly
    with np.errstate(all="ignore"):
        f = np.array([1.0, -1.0, 0.0])
        want = repr((f / 0.0).tolist())
    assert fast[0].startswith("[" + want)


_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e308, -1e308, 5e-324, 3e38, 1e-45]


def _special(dtype: str) -> np.ndarray:
    """Zeros, ones, halves, infinities, NaN, the extremes and subnormals of `dtype` (for a
    complex dtype every pair of them as real and imaginary parts)."""
    real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    with np.errstate(all="ignore"):
        v = np.array(_SPECIAL).astype(real)
    if dtype == real:
        return v
    re, im = np.meshgrid(v, v)
    out = np.empty(re.size, dtype)
    out.real, out.imag = re.ravel(), im.ravel()
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_calls_said_never_to_warn_set_no_flag_on_special_values(dtype: str) -> None:
    # What _fpe.can_warn promises: with errstate(all="raise"), NumPy raises on any flag.
    a = _special(dtype)
    b = a[::-1].copy()
    # Each function on the dtypes its category admits (complex comparisons, which do set the
    # invalid flag on NaN, are refused before NumPy runs).
    rows = [(n, c, uf, 1) for n, c, uf, _ in _UNARY] + [(n, c, uf, 2) for n, c, uf, _ in _BINARY]
    checked = 0
    for name, cat, uf, arity in rows:
        if _fpe.can_warn(name) or not isinstance(uf, np.ufunc) or a.dtype.kind not in _K[cat]:
            continue
        try:
            with np.errstate(all="ignore"):
                (uf(a) if arity == 1 else uf(a, b))
        except TypeError:
            continue  # no loop for this dtype (bit operations on floats)
        with np.errstate(all="raise"):
            uf(a) if arity == 1 else uf(a, b)  # FloatingPointError would fail the test
        checked += 1
    assert checked >= 7


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool"])
def test_integer_operands_warn_only_through_division(dtype: str) -> None:
    info = np.iinfo(dtype) if dtype != "bool" else None
    vals = [0, 1] if info is None else [0, 1, -1 if info.min < 0 else 2, info.min, info.max]
    a = np.array(vals, dtype=dtype)
    b = a[::-1].copy()
    checked = []
    for name, cat, uf, _ in _BINARY:
        if (
            "i" in _fpe.can_warn(name)
            or not isinstance(uf, np.ufunc)
            or a.dtype.kind not in _K[cat]
        ):
            continue
        try:
            with np.errstate(all="ignore"):
                uf(a, b)
        except (TypeError, ValueError):  # no loop, or negative integer powers
            continue
        with np.errstate(all="raise"):  # FloatingPointError would fail the test
            uf(a, b)
        checked.append(name)
    # The table must not filter empty: these functions take such operands.
    wanted = {"equal", "logical_and", "bitwise_and"} if dtype == "bool" else {"add", "multiply"}
    assert wanted <= set(checked), checked


def test_quiet_state_is_silent_and_restores_the_callers() -> None:
    x = sa.asarray([1e308, 0.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = np.asarray((x * 10.0) / sa.asarray([1.0, 0.0, 0.0]))
        assert r[0] == np.inf and np.isnan(r[1]) and r[2] == -np.inf
        np.asarray(sa.log(x))
        np.asarray(sa.sum(sa.asarray([1e308, 1e308])))
        np.asarray(sa.mean(sa.asarray([1e308, 1e308], dtype=sa.float64)))
    before = np.geterr()
    with np.errstate(all="raise", under="ignore"):
        np.asarray(x * 10.0)  # quiet inside our call ...
        # (NumPy's own error and message)
        with pytest.raises(FloatingPointError, match="divide by zero"):
            np.ones(1) / 0.0  # ... and the caller's state is back after it
        assert np.geterr()["divide"] == "raise" and np.geterr()["under"] == "ignore"
    assert np.geterr() == before


class _KeepdimsThatSetsErrors:
    """A keepdims whose truth runs the caller's Python code: it records a context variable
    and sets NumPy's error state to raise."""

    def __init__(self, var: contextvars.ContextVar) -> None:
        self.var, self.seen = var, []

    def __bool__(self) -> bool:
        self.seen.append(self.var.get("not the caller's context"))
        np.seterr(all="raise")
        return True

    def __index__(self) -> int:
        return int(self.__bool__())


class _AxisThatSetsErrors(_KeepdimsThatSetsErrors):
    """The same code, run by an axis's __index__ (axis 0)."""

    def __index__(self) -> int:
        self.__bool__()
        return 0


def test_the_callers_code_never_runs_inside_the_shared_quiet_context() -> None:
    # Reliability 5, finding 4: sum(x, keepdims=K()) ran K's code inside the thread's shared
    # quiet context: it could not see the caller's context variables, and its np.seterr
    # became the state of every later quiet call there (x / 0.0 raised from then on).
    # keepdims now takes bools only, so K's code does not run at all; an axis is read through
    # its __index__, which runs in the caller's own context: it sees the caller's variables,
    # and its np.seterr is the caller's own state, not that of the later quiet calls. An
    # error state of its own keeps a failure here from reaching other tests.
    var: contextvars.ContextVar = contextvars.ContextVar("caller")
    x = sa.asarray([1.0, 2.0])
    with np.errstate(divide="warn", over="warn", invalid="warn", under="ignore"):
        outer = np.geterr()
        token = var.set("the caller's")
        k = _KeepdimsThatSetsErrors(var)
        with pytest.raises(TypeError, match="sum: keepdims must be True or False"):
            sa.sum(x, keepdims=k)
        assert k.seen == [] and np.geterr() == outer
        a = _AxisThatSetsErrors(var)
        np.testing.assert_array_equal(np.asarray(sa.sum(x, axis=a)), 3.0)
        var.reset(token)
        assert a.seen and set(a.seen) == {"the caller's"}
        assert np.geterr()["divide"] == "raise"  # K's seterr, made in the caller's context
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(2):
                r = np.asarray(x / 0.0)
                assert np.isinf(r).all()
                assert np.isnan(float(sa.sum(sa.asarray([np.inf, -np.inf]))))


def test_quiet_call_enters_the_shared_context_only_for_numpys_ufuncs_on_numbers() -> None:
    # The private _quiet_call is reachable from Python: a callable that is not a ufunc, an
    # object array (its loop calls Python) and np.frompyfunc's ufuncs run in the caller's
    # context, where they see its variables, with the quiet state set.
    var: contextvars.ContextVar = contextvars.ContextVar("caller")
    token = var.set("the caller's")
    try:
        seen: list = []

        def f(*args):
            seen.append(var.get("not the caller's context"))
            return np.geterr()["divide"]

        class Obj:
            def __add__(self, other):
                seen.append(var.get("not the caller's context"))
                return self

        assert _fpe.call(f, 1.0) == "ignore"
        _fpe.call(np.frompyfunc(f, 1, 1), np.ones(2))
        _fpe.call(np.add, np.array([Obj()], dtype=object), 1)
        assert seen == ["the caller's"] * 4
    finally:
        var.reset(token)


def test_quiet_state_per_thread() -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with np.errstate(divide="raise"):
                for _ in range(200):
                    np.asarray(sa.asarray([1.0]) / 0.0)
                with pytest.raises(FloatingPointError, match="divide by zero"):
                    np.ones(1) / 0.0
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# The same calls as the two tests above, in a child whose NumPy lacks the private names
# stridedarray._base.fpe uses (numpy._core.umath._extobj_contextvar): the module then falls back
# to np.errstate, and the C operators to the Python path for the calls that need the quiet
# state. NumPy bound the name for itself at its own import, so removing it from umath
# afterwards changes only what stridedarray finds.
_WITHOUT_PRIVATE_NUMPY = """
import threading, warnings
import numpy as np
from numpy._core import umath
del umath._extobj_contextvar
import stridedarray as sa
from stridedarray._base import fpe as _fpe
assert _fpe._cv is None, "the fallback was not taken"
warnings.simplefilter("error")
a, b = np.array([1e308, 0.0, -1.0]), np.array([1.0, 0.0, 0.0])
with np.errstate(all="ignore"):
    want = [(a * 10.0) / b, np.log(a), np.sum(np.array([1e308, 1e308])), a / 0.0]
x, y = sa.asarray(a), sa.asarray(b)
got = [(x * 10.0) / y, sa.log(x), sa.sum(sa.asarray([1e308, 1e308])), sa.divide(x, 0.0)]
for w, g in zip(want, got):
    np.testing.assert_array_equal(np.asarray(g), w)
before = np.geterr()
tok = _fpe.enter()
np.ones(1) / 0.0  # quiet between enter and leave
_fpe.leave(tok)
assert np.geterr() == before, (np.geterr(), before)
assert _fpe.call(np.divide, np.ones(1), 0.0)[0] == np.inf
with np.errstate(all="raise", under="ignore"):
    np.asarray(x * 10.0)
    try:
        np.ones(1) / 0.0
    except FloatingPointError:
        pass
    else:
        raise AssertionError("the caller's error state was not restored")
    assert np.geterr()["divide"] == "raise" and np.geterr()["under"] == "ignore"
errors = []
def work():
    try:
        with np.errstate(divide="raise"):
            for _ in range(50):
                np.asarray(sa.asarray([1.0]) / 0.0)
            try:
                np.ones(1) / 0.0
            except FloatingPointError:
                return
            errors.append("the thread's error state was not restored")
    except BaseException as e:
        errors.append(repr(e))
ths = [threading.Thread(target=work) for _ in range(4)]
for t in ths:
    t.start()
for t in ths:
    t.join()
assert not errors, errors
print("ok")
"""


def test_quiet_state_without_numpys_private_names() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PRIVATE_NUMPY],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok"]


# -- the quiet state around the C operators and ufuncs -----------------------------------------
# Written beside the C operators' tests, whose module is marked version_sensitive: each keeps
# that marker, so that CI's runs on every Python (tests/conftest.py) still select them.


@pytest.mark.version_sensitive
def test_the_quiet_state_is_restored_after_an_error():
    before = np.geterr()
    x = sa.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(np.asarray(x / 0.0)[0])
        with pytest.raises(ValueError, match="extents must be equal or 1, aligned from the right"):
            x / sa.ones(2)
    assert np.geterr() == before
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            np.ones(1) / 0.0  # the user's own state still applies outside our calls
        np.asarray(x / 0.0)  # and ours stays quiet inside it


@pytest.mark.version_sensitive
def test_the_quiet_state_keeps_the_users_other_settings_and_context():
    # The quiet state is made from the user's: only the warnings change, and the caller's own
    # context variables are untouched by the prepared context the ufunc runs in.
    var: contextvars.ContextVar[str] = contextvars.ContextVar("user", default="outer")
    token = var.set("mine")
    x = sa.asarray([1.0, -1.0, 0.0])
    with np.errstate(divide="raise", over="warn"), np.errstate(invalid="raise"):
        setting = np.geterr()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(3):  # the first call prepares the context, the rest reuse it
                r = np.asarray(x / 0.0)
                assert np.array_equal(r, [np.inf, -np.inf, np.nan], equal_nan=True)
                assert np.isnan(np.asarray(sa.log(x))[1])
                assert np.asarray(sa.sum(sa.asarray([1e308, 1e308]))) == np.inf
        assert np.geterr() == setting
        assert var.get() == "mine"
        with pytest.raises(FloatingPointError):
            np.ones(1) / 0.0
    var.reset(token)


@pytest.mark.version_sensitive
def test_the_quiet_state_under_threads():
    # A ufunc over a large array releases the GIL, so two threads can be inside the prepared
    # context's call at once: the second takes the set-and-reset way. Every call stays quiet
    # and right, and every thread's own error state is its own afterwards.
    n = 2_000_000  # large enough that the threads overlap inside the ufunc (measured)
    x = sa.asarray(np.linspace(-1.0, 1.0, n))
    zero = sa.zeros(n)
    with np.errstate(all="ignore"):
        expected = np.linspace(-1.0, 1.0, n) / np.zeros(n)
    failures: list[BaseException] = []

    def work(raise_outside: bool) -> None:
        try:
            for _ in range(8):  # one outer state, so one prepared context for all threads
                assert np.array_equal(np.asarray(x / zero), expected, equal_nan=True)
                assert np.array_equal(np.asarray(x / 0.0), expected, equal_nan=True)
                assert np.isnan(np.asarray(sa.sum(x / zero)))
            with np.errstate(divide="raise" if raise_outside else "warn"):
                assert np.array_equal(np.asarray(x / zero), expected, equal_nan=True)
                with pytest.raises(FloatingPointError if raise_outside else RuntimeWarning):
                    np.ones(1) / 0.0
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            failures.append(e)

    # The warning filters are process-wide: set once here, not per thread.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        threads = [threading.Thread(target=work, args=(k % 2 == 0,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []


@pytest.mark.version_sensitive
def test_quiet_call_runs_a_ufunc_method_quietly_and_passes_keywords():
    a = np.array([[1e308, 1.0], [1e308, -1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = _fpe.call(np.add.reduce, a, axis=0, keepdims=True)
        assert r.shape == (1, 2) and r[0, 0] == np.inf
        assert np.isnan(_fpe.call(np.divide, 0.0, np.zeros(1))[0])
    with pytest.raises(TypeError):
        _fpe.call(np.add.reduce, a, bogus=1)
    with pytest.raises(TypeError, match="needs f"):
        _quiet_call()
