"""Reference counting of the array type's C entry points (csrc/arraytype/): each is called
10**4 times (10**6 under `-m slow`) after a warm-up, and the traced Python memory, the
process's resident set and the C core's own allocation counters stay flat. A leaked reference
of one small (48-byte) object per call grows the traced memory by 480 KB over 10**4 calls,
beyond the 256 KB allowed; the C core's counters are exact, so a C allocation not freed shows
at any count."""

from __future__ import annotations

import gc
import io
import pickle
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

import stridedarray as sa
from stridedarray._arraytype import NativeMatmul, NativeUfunc, _make_c, _quiet_call, _wrap
from stridedarray._base.construct import _make, _Storage
from stridedarray._matmul.diagnostics import c_alloc_stats

# Process-wide measurements (traced memory, RSS, the C core's allocation counters): another
# thread's calls in the loop would show as growth.
pytestmark = [
    pytest.mark.version_sensitive,  # tests/conftest.py says what each marker means
    pytest.mark.thread_unsafe(reason="measures process-wide memory over a loop"),
]

BASE = np.arange(64.0)
ST = _Storage(BASE)
X = sa.reshape(sa.asarray(BASE), (4, 4, 4))
X6 = sa.reshape(sa.asarray(BASE), (2, 2, 2, 2, 2, 2))  # rank > 4: extents on the heap
RO = sa.asarray(bytes(64))
XI = X[::5]  # a stride beyond the buffer on an axis of extent 1: held as 0 in C
F_ORDER = np.asfortranarray(BASE.reshape(4, 16))
M32 = sa.ones((32, 32))  # 32**3 multiply-adds: above the default gil_release_min_work
I8 = sa.ones((4, 4), dtype=sa.int8)
HUGE_K = sa.ones((1, 1), dtype=sa.int8)._view((1, 2**62), (0, 0), 0)  # 2*M*N*K overflows


BIG = sa.ones(40_000)  # 320 KB: large enough for temporary elision (csrc/arraytype/elide.c)


def _hold_view(a: sa.Array) -> sa.Array:
    a[::2]  # a view made (and dropped): the temporary's storage is shared from then on
    return a


def _add_py(x1: object, x2: object) -> object:
    return NotImplemented


def _in_errstate(f: Callable[[], object]) -> Callable[[], object]:
    """f inside a fresh user error-state block each call: a new outer state every time, so
    the prepared quiet contexts are made and dropped (their table is bounded)."""

    def g() -> object:
        with np.errstate(over="raise"):
            return f()

    return g


def _in_policy_block() -> object:
    with sa.matmul_policy(force="generic"):  # a new policy struct per call
        return X @ X


def _raises(f: Callable[[], object]) -> Callable[[], None]:
    def g() -> None:
        try:
            f()
        except (ValueError, TypeError, BufferError, IndexError):
            pass
        else:  # pragma: no cover
            raise AssertionError("expected an exception")

    return g


ENTRY_POINTS: dict[str, Callable[[], object]] = {
    "_make": lambda: _make(ST, sa.float64, (4, 4), (4, -1), 3),
    "_make rank 6": lambda: _make(ST, sa.float64, (2,) * 6, (32, 16, 8, 4, 2, 1), 0),
    "_make converting": lambda: _make(ST, sa.float64, (np.int64(4),), [np.int32(2)], 1),
    "_make out of bounds": _raises(lambda: _make(ST, sa.float64, (5,), (2**70,), 0)),
    "_make bool": _raises(lambda: _make(ST, sa.float64, (True,), (1,), 0)),
    "_make empty clamp": lambda: _make(ST, sa.float64, (0, 3), (2**70, 1), 2**80),
    "_make with npv": lambda: _make(ST, sa.float64, (64,), (1,), 0, BASE),
    "_make_c": lambda: _make_c(np.empty((3, 4)), sa.float64),
    "_Storage": lambda: _Storage(BASE),
    "_Storage refused": _raises(lambda: _Storage(BASE[::2])),
    "_view + _np": lambda: X._view((4, 4), (1, 4), 0)._np,
    "_view + _c": lambda: X6._view((2,) * 6, (1, 2, 4, 8, 16, 32), 0)._c,
    "too large": _raises(lambda: X._view((2**40, 2**40), (0, 0), 0)._np),
    "getitem": lambda: X[1:3, ::-1, None, 2],
    "getitem out of range": _raises(lambda: X[7]),
    "getitem held as 0": lambda: X[::5]._strides,
    "view fields made on read": lambda: (lambda v: (v._shape, v._strides, v._origin))(X[1:3]),
    "view of a view + _np": lambda: X[1:3][:, ::-1]._np,
    "mT": lambda: X.mT,
    "mT, a stride held as 0": lambda: XI.mT,
    "_make negative extent": _raises(lambda: _make(ST, sa.float64, (-1,), (1,), 0)),
    "readonly": lambda: RO.readonly,
    "memoryview": lambda: memoryview(X[:, ::-1]).tobytes(),
    "bytes": lambda: bytes(X[::2]),
    "memoryview refused": _raises(lambda: io.BytesIO(b"ab").readinto(RO)),
    "pickle": lambda: pickle.loads(pickle.dumps(X[::-1], protocol=5)),
    "x + y": lambda: X + X,
    "_st of a result": lambda: (X + X)._st,
    "view of a result": lambda: (X + X)[1:],
    "x[1:3] + y[1:3]": lambda: X[1:3] + X[1:3],
    "F-order result": lambda: X.mT * X.mT,
    "_wrap F order": lambda: _wrap(F_ORDER),
    "_wrap broadcast": lambda: _wrap(np.broadcast_to(BASE[:4], (3, 4))),
    "x * 2.0": lambda: X * 2.0,
    "x / y quiet": lambda: X / X,
    "elided (x + 0.0) * 2.0": lambda: (BIG + 0.0) * 2.0,
    "elision refused: a view held": lambda: _hold_view(BIG + 0.0) * 2.0,
    "x / y quiet, another error state": _in_errstate(lambda: X / X),
    "_quiet_call": lambda: _quiet_call(np.add.reduce, BASE, axis=0, keepdims=True),
    "_quiet_call error": _raises(lambda: _quiet_call(np.add, BASE, BASE[:3])),
    "exp": lambda: sa.exp(X),
    "operator fallback": lambda: X + 2**60,  # float64 + an int beyond 2**53 is Python
    "x + int": lambda: X + 1,
    "operator error": _raises(lambda: X + sa.ones(3)),
    "x @ y": lambda: X @ X,
    "matmul rank 6": lambda: sa.matmul(X6, X6),
    "x @ y releasing the GIL": lambda: M32 @ M32,
    "x @ y in a policy block": _in_policy_block,
    "x @ y fallback": lambda: X @ I8,  # mixed dtypes: the Python path
    "x @ y shape error": _raises(lambda: X @ sa.ones(3)),
    "x @ y core error": _raises(lambda: HUGE_K @ HUGE_K.mT),
    "NativeUfunc made and freed": lambda: NativeUfunc(np.add, _add_py, "f", "f", 2, False, False),
    "NativeUfunc refused": _raises(lambda: NativeUfunc(np.add, None, "f", "f", 2, False, False)),
    "NativeMatmul refused": _raises(lambda: NativeMatmul(None)),
    "zeros": lambda: sa.zeros((3, 4)),
    "ones": lambda: sa.ones((3, 4)),
    "empty": lambda: sa.empty(5),
    "asarray": lambda: sa.asarray(BASE),
    "asarray of an Array as it is": lambda: sa.asarray(X, dtype=sa.float64, copy=False),
    "reshape view": lambda: sa.reshape(X.mT, (2, 2, 4, 4)),
    "reshape view, copy=False": lambda: sa.reshape(X6, (8, -1), copy=False),
    "reshape view, a stride held as 0": lambda: sa.reshape(XI, (16,)),
    "reshape 0-size": lambda: sa.reshape(X[:, :0], (0, 7)),
    "reshape copy (fallback)": lambda: sa.reshape(X.mT, (64,)),
    "reshape error": _raises(lambda: sa.reshape(X, (5,))),
    "full": lambda: sa.full((3, 4), 1.5),
    "full complex": lambda: sa.full(5, 1 - 2j),
    "full without the GIL": lambda: sa.full(70000, True),
    "full fallback": lambda: sa.full(3, 1.5, dtype=sa.float32),
    "full error": _raises(lambda: sa.full(3, "x")),
    "iter": lambda: iter(X),
    "iterate to the end": lambda: list(X[1]),
    "iter of a 0-d array": _raises(lambda: iter(X[0, 0, 0])),
    "__iter__ method": lambda: sa.Array.__iter__(X),
}


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0  # pragma: no cover


def _check_flat(f: Callable[[], object], n: int) -> None:
    for _ in range(2000):  # warm-up: caches, free lists, interned objects
        f()
    gc.collect()
    tracemalloc.start()
    try:
        rss0 = _rss_kib()
        c0 = c_alloc_stats()
        t0, _ = tracemalloc.get_traced_memory()
        for _ in range(n):
            f()
        gc.collect()
        t1, _ = tracemalloc.get_traced_memory()
        c1 = c_alloc_stats()
        rss1 = _rss_kib()
    finally:
        tracemalloc.stop()
    # One leaked 48-byte object per call would be >= 480 KB over 10**4 calls.
    assert t1 - t0 < 256 * 1024, f"traced memory grew {t1 - t0} bytes over {n} calls"
    assert rss1 - rss0 < 4 * 1024, f"RSS grew {rss1 - rss0} KiB over {n} calls"
    # The C core's pack and scratch buffers: every allocation made in the loop was freed.
    for cat in c0:
        grew = c1[cat]["current"] - c0[cat]["current"]
        made = c1[cat]["allocations"] - c0[cat]["allocations"]
        freed = c1[cat]["frees"] - c0[cat]["frees"]
        assert grew == 0 and made == freed, (
            f"C core {cat} buffers: {made} allocated, {freed} freed, {grew} bytes still held "
            f"after {n} calls"
        )


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_point_does_not_leak(name):
    _check_flat(ENTRY_POINTS[name], 10**4)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_point_does_not_leak_over_a_million_calls(name):
    _check_flat(ENTRY_POINTS[name], 10**6)
