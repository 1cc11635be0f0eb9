"""Manipulation functions (moveaxis, unstack, concat, stack, repeat, roll, tile, the broadcast
functions, expand_dims, permute_dims): differential against NumPy over random views and dtypes,
views where the strides allow, list/tuple results per requested API version, bad input.
reshape's tests are in test_views.py."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES, fill, numpy_promote, views

import stridedarray as sa
from stridedarray._base.arguments import AxisError

SETTINGS = settings(max_examples=40, deadline=None)


def _same(out: sa.Array, expected: np.ndarray) -> None:
    expected = np.asarray(expected)
    assert out.dtype.np == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    np.testing.assert_array_equal(np.asarray(out), expected)


def _shares(a: sa.Array, b: sa.Array) -> bool:
    return a.buffer is b.buffer


@SETTINGS
@given(data=st.data())
def test_moveaxis_is_a_view(data):
    p = data.draw(views(max_dims=4))
    nd = p.ref.ndim
    if nd == 0:
        return
    src = data.draw(
        st.lists(st.integers(-nd, nd - 1), unique_by=lambda a: a % nd, min_size=1, max_size=nd)
    )
    dst = data.draw(
        st.lists(
            st.integers(-nd, nd - 1),
            unique_by=lambda a: a % nd,
            min_size=len(src),
            max_size=len(src),
        )
    )
    out = sa.moveaxis(p.x, tuple(src), tuple(dst))
    _same(out, np.moveaxis(p.ref, src, dst))
    assert _shares(out, p.x)


@SETTINGS
@given(data=st.data())
def test_unstack_gives_views(data):
    p = data.draw(views(max_dims=4))
    if p.ref.ndim == 0:
        with pytest.raises(ValueError, match="unstack: x must have rank >= 1, got a 0-d array"):
            sa.unstack(p.x)
        return
    axis = data.draw(st.integers(-p.ref.ndim, p.ref.ndim - 1))
    parts = sa.unstack(p.x, axis=axis)
    assert isinstance(parts, tuple)
    expected = [np.take(p.ref, i, axis=axis) for i in range(p.ref.shape[axis])]
    assert len(parts) == len(expected)
    for a, e in zip(parts, expected, strict=True):
        _same(a, e)
        assert _shares(a, p.x)


@SETTINGS
@given(data=st.data())
def test_concat_and_stack_promote_like_the_standard(data):
    d1 = data.draw(st.sampled_from(ALL_DTYPES))
    d2 = data.draw(st.sampled_from(ALL_DTYPES))
    p1 = data.draw(views(d1, max_dims=3))
    shape = p1.ref.shape
    nd = len(shape)
    try:
        dt = numpy_promote(d1, d2)
    except TypeError:
        b = sa.asarray(fill(d2, shape, 1))
        with pytest.raises(TypeError):
            sa.concat([p1.x, b], axis=None)
        return
    # stack: same shape, any layout for the second operand
    b_np = fill(d2, shape, 7)
    b = sa.asarray(b_np)
    axis = data.draw(st.integers(-nd - 1, nd))
    _same(sa.stack((p1.x, b), axis=axis), np.stack([p1.ref, b_np], axis=axis).astype(dt.np))
    # concat along an axis: the other extent may differ on that axis only
    if nd:
        ax = data.draw(st.integers(-nd, nd - 1))
        other = list(shape)
        other[ax] = data.draw(st.integers(0, 3))
        c_np = fill(d2, tuple(other), 3)
        c = sa.asarray(c_np)
        _same(sa.concat([p1.x, c], axis=ax), np.concatenate([p1.ref, c_np], axis=ax, dtype=dt.np))
    _same(
        sa.concat([p1.x, b], axis=None),
        np.concatenate([p1.ref.reshape(-1), b_np.reshape(-1)], dtype=dt.np),
    )


def test_concat_stack_shape_mismatch_names_shapes():
    a, b = sa.zeros((2, 3)), sa.zeros((2, 4))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 4\)"):
        sa.concat([a, b], axis=0)
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 4\)"):
        sa.stack([a, b])
    _same(sa.concat([a, b], axis=1), np.zeros((2, 7)))
    with pytest.raises(AxisError, match="axis 2 .* rank 2"):
        sa.concat([a, a], axis=2)


@SETTINGS
@given(data=st.data())
def test_repeat_roll_tile(data):
    p = data.draw(views(max_dims=3))
    nd = p.ref.ndim
    before = p.base_np.copy()
    r = data.draw(st.integers(0, 3))
    _same(sa.repeat(p.x, r), np.repeat(p.ref.reshape(-1), r))
    if nd:
        ax = data.draw(st.integers(-nd, nd - 1))
        reps = fill(sa.int64, (p.ref.shape[ax],), 5) % 4
        reps = np.abs(reps)
        _same(sa.repeat(p.x, sa.asarray(reps), axis=ax), np.repeat(p.ref, reps, axis=ax))
        shift = data.draw(st.integers(-7, 7))
        _same(sa.roll(p.x, shift, axis=ax), np.roll(p.ref, shift, axis=ax))
        axes = tuple(range(nd))
        shifts = tuple(data.draw(st.integers(-4, 4)) for _ in axes)
        _same(sa.roll(p.x, shifts, axis=axes), np.roll(p.ref, shifts, axis=axes))
    _same(sa.roll(p.x, 3), np.roll(p.ref, 3))
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4)))
    out = sa.tile(p.x, reps)
    _same(out, np.tile(p.ref, reps))
    assert not np.shares_memory(np.asarray(out), p.base_np)
    np.testing.assert_array_equal(p.base_np, before)


@SETTINGS
@given(data=st.data())
def test_broadcast_arrays_and_shapes(data):
    p = data.draw(views(max_dims=3))
    shape = p.ref.shape
    other = tuple(data.draw(st.sampled_from([1, n])) for n in shape)
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    q_np = fill(sa.float64, lead + other, 2)
    q = sa.asarray(q_np)
    expected = np.broadcast_arrays(p.ref, q_np)
    out = sa.broadcast_arrays(p.x, q)
    for a, e in zip(out, expected, strict=True):
        _same(a, e)
    assert _shares(out[0], p.x) and _shares(out[1], q)
    assert sa.broadcast_shapes(shape, lead + other) == np.broadcast_shapes(shape, lead + other)
    assert sa.broadcast_shapes() == ()


def test_broadcast_shapes_errors():
    with pytest.raises(ValueError, match="not broadcast compatible"):
        sa.broadcast_shapes((2, 3), (4,))


def _numpy_outcome(f, *args):
    """NumPy's result, or the exception it raises (its type and message are the reference)."""
    try:
        return f(*args)
    except (ValueError, IndexError, TypeError) as e:
        return e


def _matches_numpys_error(f, want, *args):
    """f(*args) raises an error of NumPy's kind whose message contains NumPy's message."""
    kinds = tuple(k for k in (ValueError, IndexError, TypeError) if isinstance(want, k))
    with pytest.raises(kinds, match=re.escape(str(want))) as got:
        f(*args)
    assert all(isinstance(got.value, k) for k in kinds)


_SHAPES = st.lists(
    st.lists(st.sampled_from([0, 1, 2, 3]), max_size=3).map(tuple), min_size=1, max_size=4
)
_NEGATIVE = st.lists(
    st.lists(st.sampled_from([-1, 0, 1, 2]), max_size=3).map(tuple), min_size=1, max_size=3
)


@SETTINGS
@given(shapes=_SHAPES)
def test_broadcast_errors_carry_numpys_message(shapes):
    """SciPy's tests match NumPy's wording ("shape mismatch: objects cannot be broadcast to a
    single shape.  Mismatch is between arg i ... and arg j ..."): the same arguments named."""
    want = _numpy_outcome(np.broadcast_shapes, *shapes)
    arrays = [sa.zeros(s) for s in shapes]
    if isinstance(want, Exception):
        _matches_numpys_error(sa.broadcast_shapes, want, *shapes)
        _matches_numpys_error(sa.broadcast_arrays, want, *arrays)
    else:
        assert sa.broadcast_shapes(*shapes) == want
        assert all(a.shape == want for a in sa.broadcast_arrays(*arrays))


@SETTINGS
@given(shapes=_NEGATIVE)
def test_broadcast_shapes_refuses_negative_extents_as_numpy(shapes):
    want = _numpy_outcome(np.broadcast_shapes, *shapes)
    if isinstance(want, Exception):
        _matches_numpys_error(sa.broadcast_shapes, want, *shapes)
    else:
        assert sa.broadcast_shapes(*shapes) == want


_AXES = st.integers(-4, 4) | st.lists(st.integers(-4, 4), max_size=3)


@SETTINGS
@given(ndim=st.integers(0, 3), source=_AXES, destination=_AXES)
def test_moveaxis_errors_carry_numpys_message(ndim, source, destination):
    """NumPy's AxisError wording ("source: axis 3 is out of bounds for array of dimension 1",
    as SciPy's tests match it), and its repeated-axis and length messages."""
    ref = np.zeros((2,) * ndim)
    want = _numpy_outcome(np.moveaxis, ref, source, destination)
    if isinstance(want, Exception):
        _matches_numpys_error(sa.moveaxis, want, sa.asarray(ref), source, destination)
        if isinstance(want, np.exceptions.AxisError):
            with pytest.raises(AxisError):
                sa.moveaxis(sa.asarray(ref), source, destination)
    else:
        assert sa.moveaxis(sa.asarray(ref), source, destination).shape == want.shape


@pytest.mark.parametrize("version", ["2023.12", "2024.12", "2025.12"])
def test_sequence_types_follow_requested_version(version):
    x = sa.asarray([1.0, 2.0])
    ns = x.__array_namespace__(api_version=version)
    try:
        out = ns.broadcast_arrays(x, x)
        assert type(out) is (list if version < "2025.12" else tuple)
        assert type(ns.unstack(x)) is tuple  # a tuple in every version
    finally:
        x.__array_namespace__(api_version="2025.12")


def test_expand_dims_tuple_and_permute_negative():
    a = np.arange(6).reshape(2, 3)
    x = sa.asarray(a)
    _same(sa.expand_dims(x, axis=(0, -1)), np.expand_dims(a, (0, -1)))
    _same(sa.permute_dims(x, (-1, -2)), a.T)
    with pytest.raises(AxisError, match="axis 3 .* rank 3"):
        sa.expand_dims(x, axis=3)
    with pytest.raises(AxisError, match="rank 2"):
        sa.moveaxis(x, 2, 0)
    with pytest.raises(ValueError):
        sa.moveaxis(x, (0, 1), (0,))
