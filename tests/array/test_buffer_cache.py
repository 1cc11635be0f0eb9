"""The result-buffer cache (csrc/arraytype/bufcache.c, docs/array.md "What a call costs"):
large blocks that freed results leave are kept, within a cap, for the next result of about
the same size. What must hold: the cache never holds more than its cap; it empties on
request; a block goes back to it only when NumPy frees the ndarray that owned it, so no array,
view or export anyone still holds is ever given out again; only our own results are made by
it; threads and fork() leave it whole."""

from __future__ import annotations

import functools
import operator
import os
import threading
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridedarray as sa
from stridedarray._arraytype import _buffer_cache, _buffer_cache_clear

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # pragma: no cover - NumPy < 2
    from numpy.core.multiarray import get_handler_name

INFO = _buffer_cache()
MIN = INFO["min_block_bytes"]
N = MIN // 8 * 3  # float64 elements: a result of three of the smallest blocks kept
X_NP = np.arange(N, dtype=np.float64) / 7.0
X = sa.asarray(X_NP)


@pytest.fixture(autouse=True)
def _default_cap():
    """Each test starts empty and leaves the default cap behind."""
    _buffer_cache_clear()
    yield
    _buffer_cache(INFO["max_bytes"])


def _owner(a: sa.Array) -> np.ndarray:
    """The ndarray that owns an array's memory."""
    st = a._st.arr
    while not st.flags.owndata:
        st = st.base
    return st


def test_the_cache_starts_with_a_cap_and_the_documented_fields():
    info = _buffer_cache()
    assert set(info) >= {"held_bytes", "blocks", "max_bytes", "min_block_bytes", "max_blocks"}
    assert info["held_bytes"] == 0 and info["blocks"] == 0
    # 256 MiB (docs/array.md); the sanitizer build keeps nothing unless told to, and says 0
    assert info["max_bytes"] in (256 * 2**20, 0)
    with pytest.raises(ValueError, match="max_bytes"):
        _buffer_cache(-1)
    with pytest.raises(TypeError):
        _buffer_cache("many")


def test_a_chain_reuses_the_blocks_its_temporaries_freed():
    if INFO["max_bytes"] == 0:
        pytest.skip("this build keeps no blocks (the sanitizer build)")
    x64 = sa.asarray(np.arange(N, dtype=np.int64))
    for f in (
        lambda: X * 2 + 1,  # float: the quiet floating-point context carries the handler
        lambda: sa.add(sa.multiply(X, 2), 1),
        lambda: x64 * 2 + 1,  # integers: set around the call itself
        lambda: sa.sum((X - 1.0) ** 2, axis=0),
    ):
        f()
        before = _buffer_cache()["hits"]
        for _ in range(3):
            f()
        assert _buffer_cache()["hits"] >= before + 3
    info = _buffer_cache()
    assert 0 < info["held_bytes"] <= info["max_bytes"]


def test_results_come_from_the_cache_and_numpy_s_own_arrays_do_not():
    r = X * 2.0
    assert get_handler_name(_owner(r)) == "stridedarray_buffer_cache"
    # After the call the caller's handler is NumPy's again: the user's arrays are NumPy's.
    assert get_handler_name() == "default_allocator"
    mine = np.ones(N) * 2.0
    assert get_handler_name(mine) == "default_allocator"
    np.testing.assert_array_equal(np.asarray(r), mine * X_NP)


@settings(max_examples=40)
@given(
    cap_blocks=st.integers(0, 6),
    sizes=st.lists(st.integers(1, 12), min_size=1, max_size=12),
    keep=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_the_cache_never_holds_more_than_its_cap(cap_blocks, sizes, keep):
    cap = cap_blocks * MIN + MIN // 2
    _buffer_cache(cap)
    held = []
    for k, blocks in zip(sizes, keep, strict=False):
        n = blocks * MIN // 8
        a = sa.ones(n) * 3.0  # a result of `blocks` smallest blocks
        b = a + 1.0
        if k:
            held.append(b)
        del a, b
        info = _buffer_cache()
        assert info["held_bytes"] <= cap
        assert info["blocks"] <= info["max_blocks"]
        assert info["blocks"] == 0 or info["held_bytes"] >= info["blocks"] * MIN
    for b in held:
        np.testing.assert_array_equal(np.asarray(b), np.full(b.shape, 4.0))
    _buffer_cache_clear()
    assert _buffer_cache()["held_bytes"] == 0 and _buffer_cache()["blocks"] == 0


def test_a_cap_of_zero_keeps_nothing():
    _buffer_cache(0)
    for _ in range(3):
        X * 2 + 1
    assert _buffer_cache()["held_bytes"] == 0 and _buffer_cache()["blocks"] == 0


def test_clearing_releases_every_block():
    for _ in range(3):
        sa.add(sa.multiply(X, 2), 1)
    _buffer_cache_clear()
    assert _buffer_cache()["held_bytes"] == 0


def _twice() -> sa.Array:
    return X * 2.0  # a fresh result referenced once


# Every way an array, or its memory, stays held after its last name is gone (the round-4
# repros of tests/array/test_elide.py, against the cache): each returns (what is held, how to read
# its values as NumPy sees them now).
def _holders():
    d: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def weakly():
        a = _twice()
        d["k"] = a
        return a, lambda: np.asarray(d["k"])

    def via_dlpack():
        a = _twice()
        return np.from_dlpack(a), np.asarray

    return [
        ("named", lambda: (_twice(), np.asarray)),
        ("numpy view", lambda: (np.asarray(_twice()), np.asarray)),
        ("view", lambda: (_twice()[::-1], lambda v: np.asarray(v)[::-1])),
        ("memoryview", lambda: (memoryview(_twice()), np.asarray)),
        ("dlpack", via_dlpack),
        ("partial", lambda: (functools.partial(operator.add, _twice()), lambda p: p.args[0])),
        ("tuple", lambda: ((_twice(), 1.0), lambda t: np.asarray(t[0]))),
        ("bound method", lambda: (_twice().__mul__, lambda m: np.asarray(m.__self__))),
        ("weak reference", weakly),
    ]


@pytest.mark.parametrize("kind", [k for k, _ in _holders()])
def test_a_held_array_s_memory_is_never_given_to_a_new_result(kind):
    make = dict(_holders())[kind]
    got = make()
    held, read = got
    if kind == "weak reference":
        strong = held  # the weak dictionary's entry lives while this name does
        del held
        held = None
    for _ in range(4):  # results of the same size, which the cache would serve
        z = X + 1.0
        w = sa.subtract(sa.multiply(X, 3.0), 2.0)
        del z, w
    values = np.asarray(read() if kind == "weak reference" else read(held))
    np.testing.assert_array_equal(values, X_NP * 2.0)
    if kind == "weak reference":
        del strong


def test_threads_computing_chains_at_once_get_numpy_s_results():
    _buffer_cache(4 * N * 8)  # a small cap: threads push each other's blocks out
    errors: list = []
    start = threading.Barrier(4)

    def work(k):
        try:
            a_np = X_NP + k
            a = sa.asarray(a_np)
            start.wait()
            for i in range(40):
                r = a * 2 + 1 if i % 2 else sa.subtract(sa.multiply(sa.exp(a / 1e5), a), 1)
                want = a_np * 2 + 1 if i % 2 else np.exp(a_np / 1e5) * a_np - 1
                np.testing.assert_allclose(np.asarray(r), want, rtol=1e-15)
                assert _buffer_cache()["held_bytes"] <= 4 * N * 8
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")
# CPython 3.12+ warns of forking beside threads: forking beside one is what is tested here.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_computes_chains_with_the_inherited_cache():
    for _ in range(2):
        X * 2 + 1  # leave blocks in the cache
    stop = threading.Event()

    def churn():  # another thread inside the cache while the fork happens
        while not stop.is_set():
            sa.add(X, 1.0)

    t = threading.Thread(target=churn)
    t.start()
    try:
        pids = []
        for _ in range(4):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                ok = True
                try:
                    for _ in range(5):
                        ok &= bool(np.array_equal(np.asarray(X * 2 + 1), X_NP * 2 + 1))
                    _buffer_cache_clear()
                    ok &= _buffer_cache()["held_bytes"] == 0
                finally:
                    os._exit(0 if ok else 1)
            pids.append(pid)
        for pid in pids:
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
    finally:
        stop.set()
        t.join()
