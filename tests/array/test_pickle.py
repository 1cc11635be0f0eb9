"""Pickling and copying: every view round-trips with dtype, shape and values; the layout is
kept when the view is dense in its buffer window and packed row-major otherwise; protocol 5
ships the payload out of band (zero-copy in the same process); a small view of a large buffer
ships only its own elements; read-only arrays stay read-only."""

from __future__ import annotations

import copy
import pickle
import pickletools
import struct
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import views

import stridedarray as sa

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means


def _same(a: sa.Array, ref: np.ndarray) -> None:
    assert isinstance(a, sa.Array)
    assert a.dtype.np == ref.dtype and a.shape == ref.shape
    np.testing.assert_array_equal(np.asarray(a), ref)


def _reached(x: sa.Array) -> np.ndarray:
    """Every buffer offset x reaches, enumerated index by index (not the library's rule)."""
    offsets = np.full(x.shape, x.origin, dtype=object)
    for axis, (n, s) in enumerate(zip(x.shape, x.strides, strict=True)):
        shape = [1] * x.ndim
        shape[axis] = n
        offsets = offsets + np.arange(n, dtype=object).reshape(shape) * s
    return np.unique(offsets.astype(np.int64)) if x.size else np.zeros(0, np.int64)


def _dense(x: sa.Array) -> bool:
    """The rule of the docs: the layout is kept when x reaches every element of its window."""
    if x.size == 0:
        return False
    reached = _reached(x)
    return len(reached) == reached[-1] - reached[0] + 1


@settings(max_examples=200)
@given(views(), st.sampled_from([2, 4, 5]))
def test_pickle_round_trip_of_any_view(p, protocol):
    x = p.x
    y = pickle.loads(pickle.dumps(x, protocol=protocol))
    _same(y, p.ref)
    if _dense(x):
        # negative and zero strides survive (those of extent-1 axes may be bounded)
        assert all(a == b for n, a, b in zip(x.shape, y.strides, x.strides, strict=True) if n > 1)
        assert y.origin == x.origin - _reached(x)[0]
    elif x.size:  # packed row-major; repeated (zero-stride) axes packed once
        kept = [n for n, s in zip(x.shape, x.strides, strict=True) if not (n > 1 and s == 0)]
        assert y.origin == 0 and y.buffer.size == int(np.prod(kept))
    assert y.buffer.size <= x.size  # never an element the view does not show
    assert y.readonly == x.readonly


@settings(max_examples=100)
@given(views(broadcast=False))
def test_out_of_band_pickle_shares_memory_in_process(p):
    x = p.x
    bufs: list = []
    data = pickle.dumps(x, protocol=5, buffer_callback=bufs.append)
    assert len(bufs) == 1
    y = pickle.loads(data, buffers=bufs)
    _same(y, p.ref)
    if _dense(x) and x.size:
        assert np.shares_memory(np.asarray(y), p.base_np)  # zero-copy
    assert len(data) < 400  # the elements travel out of band, not inside the pickle


@settings(max_examples=100)
@given(views())
def test_copy_and_deepcopy_are_independent_row_major_copies(p):
    for c in (copy.copy(p.x), copy.deepcopy(p.x), copy.deepcopy([p.x])[0]):
        _same(c, p.ref)
        assert c.is_c_contiguous and not c.readonly
        if p.ref.size:
            assert not np.shares_memory(np.asarray(c), p.base_np)


def test_small_view_of_a_large_buffer_ships_only_its_elements():
    big = sa.zeros((2000, 2000))  # 32 MB
    for view in (big[:3, :4], big[::100, ::100], big[5, ::-7], big[:, 3]):
        data = pickle.dumps(view, protocol=5)
        assert len(data) < 2 * view.size * 8 + 400
        _same(pickle.loads(data), np.asarray(view))


def test_broadcast_view_ships_one_element_and_stays_a_broadcast():
    b = sa.broadcast_to(sa.asarray([1.5]), (1000, 1000))
    data = pickle.dumps(b)
    assert len(data) < 400
    y = pickle.loads(data)
    assert y.strides == (0, 0) and y.buffer.size == 1
    _same(y, np.full((1000, 1000), 1.5))


def test_arrays_that_went_through_the_c_core_pickle():
    a = sa.reshape(sa.arange(12.0), (3, 4))
    r = a[::-1] @ a.T  # descriptors and cffi buffers made and cached on a and r
    a.to_row_major()
    for obj in (a, r, a[::-1]):
        _same(pickle.loads(pickle.dumps(obj)), np.asarray(obj))


def test_read_only_arrays_stay_read_only():
    x = sa.asarray(bytes(range(8)))  # a view of immutable memory
    assert x.readonly
    for proto in (2, 5):
        y = pickle.loads(pickle.dumps(x, protocol=proto))
        assert y.readonly
        with pytest.raises(ValueError, match="read-only"):
            y[0] = 1
    w = pickle.loads(pickle.dumps(sa.ones(3), protocol=5))
    w[0] = 7.0  # writable arrays come back writable
    assert float(w[0]) == 7.0


def test_zero_d_empty_and_every_dtype():
    for dt in sa.__array_namespace_info__().dtypes().values():
        for x in (sa.ones((), dtype=dt), sa.ones((0, 3), dtype=dt), sa.ones((2, 3), dtype=dt)):
            y = pickle.loads(pickle.dumps(x))
            _same(y, np.asarray(x))
            assert y.dtype is dt


def test_misaligned_out_of_band_buffer_is_copied_into_aligned_memory():
    x = sa.arange(4.0)
    bufs: list = []
    data = pickle.dumps(x, protocol=5, buffer_callback=bufs.append)
    raw = bytearray(1 + 32)
    raw[1:] = bytes(bufs[0].raw())
    y = pickle.loads(data, buffers=[memoryview(raw)[1:]])  # starts at an odd address
    assert y.buffer.flags.aligned
    _same(y, np.arange(4.0))


def _reverse_and_sum(x: sa.Array) -> tuple[sa.Array, float]:
    return x[::-1], float(sa.sum(x))


def test_arrays_travel_between_processes():
    x = sa.reshape(sa.arange(6.0), (2, 3))[:, ::-1]
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        rev, total = pool.submit(_reverse_and_sum, x).result(timeout=120)
    _same(rev, np.arange(6.0).reshape(2, 3)[::-1, ::-1])
    assert total == 15.0


def test_a_pickle_carries_only_the_views_elements():
    table = sa.asarray([[1.0, -1.0], [2.0, -2.0], [3.0, -3.0]])
    col = table[:, 0]
    data = pickle.dumps(col, protocol=2)
    assert struct.pack("<d", -1.0) not in data  # column 1 does not travel with column 0
    _same(pickle.loads(data), np.array([1.0, 2.0, 3.0]))
    secret = sa.asarray(np.full(64, 7.25))
    step = secret[::2]
    bufs: list = []
    pickle.dumps(step, protocol=5, buffer_callback=bufs.append)
    assert sum(memoryview(b).nbytes for b in bufs) == 32 * 8


def test_broadcast_views_are_read_only_and_say_why():
    base = sa.zeros(3)
    b = sa.broadcast_to(base, (4, 3))
    assert b.readonly and not base.readonly
    with pytest.raises(ValueError, match="repeats elements"):
        b[0, 0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        b += 1.0
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(b)[0, 0] = 1.0
    assert np.asarray(base).tolist() == [0.0, 0.0, 0.0]
    assert not b[0].readonly  # one row repeats nothing
    y = pickle.loads(pickle.dumps(b))
    assert y.readonly and y.strides == (0, 1)
    # NumPy's writable zero-stride views become read-only here too.
    arr = np.lib.stride_tricks.as_strided(np.zeros(3), (2, 3), (0, 8))
    assert sa.asarray(arr).readonly


def _forged(state: object) -> bytes:
    """A pickle that calls the library's own reconstructor, then a BUILD with `state`."""
    good = pickletools.optimize(pickle.dumps(sa.arange(2.0), protocol=2))
    assert good.endswith(pickle.REDUCE + pickle.STOP)
    body = pickletools.optimize(pickle.dumps(state, protocol=2))[2:-1]  # no PROTO, no STOP
    return good[:-1] + body + pickle.BUILD + pickle.STOP


@pytest.mark.parametrize(
    "state",
    [
        (None, {"_shape": (10**6,), "_strides": (1,), "_origin": 0}),
        {"_origin": 5},
        (None, {"_origin": -3}),
    ],
)
def test_pickle_state_cannot_set_an_arrays_fields(state):
    with pytest.raises(pickle.UnpicklingError, match="takes no pickle state"):
        pickle.loads(_forged(state))


def _rebuild_args(x: sa.Array) -> tuple:
    func, args = x.__reduce_ex__(2)
    assert (func.__module__, func.__name__) == ("stridedarray._pickle", "array")
    return func, args


@pytest.mark.parametrize(
    "change",
    [
        {2: (np.int64(2**61 + 2),)},  # wraps in int64 arithmetic
        {2: (np.int64(2**61 + 2),), 3: (np.int64(8),)},
        {2: (2**64,)},  # beyond the 64-bit range
        {2: (-1,)},
        {2: (True,)},
        {2: (2.0,)},
        {2: "ab"},
        {3: (1, 1)},  # ranks differ
        {4: np.int64(2**63 - 1)},
        {4: 1.5},
        {1: "float128"},
        {1: 3},
        {5: 1},  # read-only flag not a bool
        {0: 12345},  # not a buffer
        {0: b"123"},  # not a whole number of elements
        {2: (17,)},  # out of bounds
    ],
)
def test_hostile_reconstructor_arguments_are_refused(change):
    func, args = _rebuild_args(sa.arange(16.0))
    args = list(args)
    for k, v in change.items():
        args[k] = v
    with pytest.raises(pickle.UnpicklingError, match="not a valid stridedarray.Array pickle"):
        func(*args)


def test_numpy_integers_in_a_descriptor_become_python_ints():
    func, args = _rebuild_args(sa.arange(16.0))
    y = func(
        args[0], args[1], (np.int64(4), np.int32(4)), (np.int64(4), np.int8(1)), np.int64(0), False
    )
    assert all(type(v) is int for v in y.shape + y.strides + (y.origin,))
    _same(y, np.arange(16.0).reshape(4, 4))


def test_the_pickle_formats_module_is_an_attribute_of_the_package():
    """dill (Cubed's serializer) pickles a function by reference only where
    `getattr(__import__(package, fromlist=[name]), name)` finds its module: without it, dill
    copies the reconstructors' code (`stridedarray._pickle.dtype`, ...), whose copies lack
    their module's globals and fail when loaded."""
    import sys

    module = __import__("stridedarray", None, None, ["_pickle"])._pickle
    assert module is sys.modules["stridedarray._pickle"]
    for x in (sa.float64, sa.arange(3)[::-1], sa.asarray(1.5).device):
        func = x.__reduce_ex__(2)[0]
        assert getattr(module, func.__qualname__) is func


def test_pickles_through_dill():
    dill = pytest.importorskip("dill")
    for x in (sa.float64, sa.sum, sa.nansum):
        assert dill.loads(dill.dumps(x)) is x
    y = dill.loads(dill.dumps(sa.arange(4.0)[::-2]))
    assert y.tolist() == [3.0, 1.0]
