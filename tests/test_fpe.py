"""The quiet floating-point state (stridedarray/_fpe.py): on the supported NumPy versions it is
the fast path built on NumPy's private error-state names, and a NumPy that lacks them fails
here by name instead of making every call quietly slower. The fallback that a NumPy without
them would take (np.errstate) gives the same values and leaks no warning."""

from __future__ import annotations

import contextvars
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import stridedarray as sa
from stridedarray import _arraytype, _fpe

# What _fpe.py takes from NumPy privately (its `from numpy._core import umath` block).
PRIVATE = ("_extobj_contextvar", "_make_extobj")


@pytest.mark.parametrize("name", PRIVATE)
def test_numpys_private_names_of_the_quiet_path_exist(name):
    from numpy._core import umath

    assert hasattr(umath, name), (
        f"NumPy {np.__version__} has no numpy._core.umath.{name}: stridedarray's quiet "
        "floating-point state falls back to np.errstate (slower on every call); "
        "update stridedarray/_fpe.py for this NumPy"
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
        "from stridedarray import _fpe\n"
        "assert _fpe._cv is None and _fpe.call.__module__ == 'stridedarray._fpe'\n"
    )
    fast = _run(
        "from stridedarray import _fpe, _arraytype\n"
        "assert _fpe._cv is not None and _fpe.call is _arraytype._quiet_call\n"
    )
    assert fallback == fast
    assert fast[1] == "True"
    # and the values are NumPy's own, computed quietly
    with np.errstate(all="ignore"):
        f = np.array([1.0, -1.0, 0.0])
        want = repr((f / 0.0).tolist())
    assert fast[0].startswith("[" + want)
