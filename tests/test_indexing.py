"""Indexing: integer-array and boolean-mask getitem, __setitem__ with broadcasting and the
casting rules, take and take_along_axis — differential against NumPy over random views."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import basic_indices, views

import stridedarray as sa

SETTINGS = settings(max_examples=25, deadline=None)


@SETTINGS
@given(pair=views(), data=st.data())
def test_integer_array_indexing_matches_numpy(pair, data):
    ref = pair.ref
    if ref.ndim == 0:
        return
    keys = []
    for n in ref.shape[: data.draw(st.integers(1, ref.ndim))]:
        if n == 0:
            return
        idx = np.asarray(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)))
        keys.append(idx)
    # broadcastable index arrays: give all the length of the first
    keys = [np.resize(k, keys[0].shape) for k in keys]
    out = pair.x[tuple(sa.asarray(k) for k in keys)]
    np.testing.assert_array_equal(np.asarray(out), ref[tuple(keys)])


@SETTINGS
@given(pair=views(), seed=st.integers(0, 1000))
def test_boolean_mask_indexing_matches_numpy(pair, seed):
    rng = np.random.default_rng(seed)
    mask = rng.integers(0, 2, size=pair.ref.shape).astype(bool)
    out = pair.x[sa.asarray(mask)]
    np.testing.assert_array_equal(np.asarray(out), pair.ref[mask])
    if pair.ref.ndim:
        m0 = rng.integers(0, 2, size=pair.ref.shape[:1]).astype(bool)  # leading axis only
        np.testing.assert_array_equal(np.asarray(pair.x[sa.asarray(m0)]), pair.ref[m0])
        np.testing.assert_array_equal(np.asarray(pair.x[..., sa.asarray(m0[:0].any())]),
                                      pair.ref[..., m0[:0].any()])


def test_index_errors():
    x = sa.asarray([[0, 1, 2], [3, 4, 5]])
    with pytest.raises(IndexError):
        x[sa.asarray([2])]
    with pytest.raises(IndexError, match="bounds"):
        x[5]
    with pytest.raises(IndexError, match="integer or bool"):
        x[sa.asarray([0.0])]
    with pytest.raises(IndexError):
        x["a"]
    with pytest.raises(IndexError):
        x[0, 0, 0]


@SETTINGS
@given(pair=views(broadcast=False), data=st.data())
def test_setitem_basic_with_broadcast_values(pair, data):
    key = data.draw(basic_indices(pair.ref.shape))
    target_shape = pair.ref[key].shape
    tail = target_shape[len(target_shape) - data.draw(st.integers(0, len(target_shape))):]
    val = (np.arange(int(np.prod(tail)), dtype=np.int64) % 2).astype(pair.ref.dtype)
    val = val.reshape(tail)
    before = pair.ref.copy()
    before[key] = val
    pair.x[key] = sa.asarray(val)
    np.testing.assert_array_equal(pair.ref, before)


@SETTINGS
@given(pair=views(broadcast=False), seed=st.integers(0, 1000))
def test_setitem_mask_and_integer_arrays(pair, seed):
    mask = np.random.default_rng(seed).integers(0, 2, size=pair.ref.shape).astype(bool)
    expected = pair.ref.copy()
    fill = True if pair.ref.dtype.kind == "b" else 1
    expected[mask] = fill
    pair.x[sa.asarray(mask)] = fill
    np.testing.assert_array_equal(pair.ref, expected)
    if pair.ref.ndim and pair.ref.shape[0]:
        idx = np.asarray([0, -1])
        expected[idx] = expected[0]
        pair.x[sa.asarray(idx)] = pair.x[0]
        np.testing.assert_array_equal(pair.ref, expected)


def test_setitem_casting_rules():
    x = sa.zeros(3, dtype=sa.int16)
    x[0] = sa.asarray(5, dtype=sa.int8)  # promotes to int16: allowed
    x[1] = 7
    assert list(np.asarray(x)) == [5, 7, 0]
    with pytest.raises(TypeError, match="int32"):
        x[0] = sa.asarray(1, dtype=sa.int32)  # would need a narrowing cast
    with pytest.raises(TypeError):
        x[0] = 1.5
    with pytest.raises(OverflowError):
        x[0] = 2**20
    with pytest.raises(TypeError):
        sa.zeros(2)[0] = 1j
    with pytest.raises(TypeError, match="value"):
        x[0] = "a"
    f = sa.zeros(2, dtype=sa.float32)
    f[0] = 2  # int into float: allowed
    assert float(f[0]) == 2.0
    assert list(np.asarray(x)) == [5, 7, 0]  # failed assignments left it unchanged


@SETTINGS
@given(pair=views(), data=st.data())
def test_take_matches_numpy(pair, data):
    ref = pair.ref
    if ref.ndim == 0:
        return
    axis = data.draw(st.integers(-ref.ndim, ref.ndim - 1))
    n = ref.shape[axis]
    values = st.lists(st.integers(-n, n - 1), max_size=5) if n else st.just([])
    idx = np.asarray(data.draw(values), dtype=np.int64)
    out = sa.take(pair.x, sa.asarray(idx), axis=axis)
    np.testing.assert_array_equal(np.asarray(out), np.take(ref, idx, axis=axis))
    if ref.ndim == 1:
        np.testing.assert_array_equal(np.asarray(sa.take(pair.x, sa.asarray(idx))),
                                      np.take(ref, idx))


@SETTINGS
@given(pair=views(), data=st.data())
def test_take_along_axis_matches_numpy(pair, data):
    ref = pair.ref
    if ref.ndim == 0 or 0 in ref.shape:
        return
    axis = data.draw(st.integers(-ref.ndim, ref.ndim - 1))
    n = ref.shape[axis]
    shape = list(ref.shape)
    shape[axis] = data.draw(st.integers(0, 4))
    idx = np.random.default_rng(data.draw(st.integers(0, 99))).integers(-n, n, size=shape)
    out = sa.take_along_axis(pair.x, sa.asarray(idx), axis=axis)
    np.testing.assert_array_equal(np.asarray(out), np.take_along_axis(ref, idx, axis=axis))


def test_take_errors():
    x = sa.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="axis"):
        sa.take(x, sa.asarray([0]))
    with pytest.raises(IndexError, match="indices"):
        sa.take(x, sa.asarray([2]), axis=0)
    with pytest.raises(TypeError, match="integer"):
        sa.take(x, sa.asarray([0.0]), axis=0)
    with pytest.raises(IndexError, match="indices"):
        sa.take_along_axis(x, sa.asarray([[5]]), axis=1)
    with pytest.raises(ValueError, match="rank"):
        sa.take_along_axis(x, sa.asarray([0]), axis=1)
