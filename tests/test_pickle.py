"""Pickling and copying: every view round-trips with dtype, shape and values; the layout is
kept when the view is dense in its buffer window and packed row-major otherwise; protocol 5
ships the payload out of band (zero-copy in the same process); a small view of a large buffer
ships only its own elements; read-only arrays stay read-only."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import views

import stridedarray as sa
from stridedarray._array import _offset_range


def _same(a: sa.Array, ref: np.ndarray) -> None:
    assert isinstance(a, sa.Array)
    assert a.dtype.np == ref.dtype and a.shape == ref.shape
    np.testing.assert_array_equal(np.asarray(a), ref)


def _dense(x: sa.Array) -> bool:
    """The window rule of the docs: layout kept when the window is at most 2x the size."""
    if x.size == 0:
        return False
    lo, hi = _offset_range(x.shape, x.strides, x.origin)
    return hi - lo + 1 <= 2 * x.size


@settings(max_examples=200)
@given(views(), st.sampled_from([2, 4, 5]))
def test_pickle_round_trip_of_any_view(p, protocol):
    x = p.x
    y = pickle.loads(pickle.dumps(x, protocol=protocol))
    _same(y, p.ref)
    if _dense(x):
        assert y.strides == x.strides  # negative, step, zero strides survive
        lo, _ = _offset_range(x.shape, x.strides, x.origin)
        assert y.origin == x.origin - lo
    elif x.size:
        assert y.is_c_contiguous and y.origin == 0
    assert y.buffer.size <= max(2 * x.size, 1)  # never more than the elements' window
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
