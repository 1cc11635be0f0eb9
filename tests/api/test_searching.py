"""Searching, sorting and set functions: differential against NumPy over random views and every
accepted dtype (0-size included), Python scalars, empty-input and bad-input behaviour."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES, dtype_list, fill, numpy_promote, views

import stridedarray as sa
from stridedarray._base.arguments import AxisError

SETTINGS = settings(max_examples=40, deadline=None)
REAL = dtype_list(["bool", "integral", "real floating"])


def _same(out: sa.Array, expected) -> None:
    expected = np.asarray(expected)
    assert out.dtype.np == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    np.testing.assert_array_equal(np.asarray(out), expected)


def _axis(data, nd: int):
    return data.draw(st.none() | st.integers(-nd, nd - 1)) if nd else None


@SETTINGS
@given(data=st.data())
def test_argmax_argmin(data):
    p = data.draw(views(st.sampled_from(REAL)))
    axis = _axis(data, p.ref.ndim)
    keep = data.draw(st.booleans())
    reduced = p.ref.size if axis is None else p.ref.shape[axis]
    for f, ref in ((sa.argmax, np.argmax), (sa.argmin, np.argmin)):
        # NumPy's rule: only a searched extent of 0 has no answer; a (0, 4) array along
        # axis 1 gives shape (0,)
        if reduced == 0:
            with pytest.raises(ValueError, match="so there is no extremum"):
                f(p.x, axis=axis, keepdims=keep)
            continue
        _same(
            f(p.x, axis=axis, keepdims=keep),
            np.asarray(ref(p.ref, axis=axis, keepdims=keep), dtype=np.int64),
        )


@SETTINGS
@given(data=st.data())
def test_count_nonzero_and_nonzero(data):
    p = data.draw(views())
    nd = p.ref.ndim
    axes = (
        data.draw(
            st.none()
            | st.lists(st.integers(0, max(nd - 1, 0)), unique=True, max_size=nd).map(tuple)
        )
        if nd
        else None
    )
    keep = data.draw(st.booleans())
    _same(
        sa.count_nonzero(p.x, axis=axes, keepdims=keep),
        np.asarray(
            np.count_nonzero(
                p.ref, axis=axes if axes is not None else tuple(range(nd)), keepdims=keep
            ),
            dtype=np.int64,
        ),
    )
    if nd == 0:
        with pytest.raises(ValueError, match="0-d"):
            sa.nonzero(p.x)
        return
    out = sa.nonzero(p.x)
    assert isinstance(out, tuple) and len(out) == nd
    for a, e in zip(out, np.nonzero(p.ref), strict=True):
        _same(a, e.astype(np.int64))


@SETTINGS
@given(data=st.data())
def test_where_promotes_and_takes_scalars(data):
    d1, d2 = data.draw(st.sampled_from(ALL_DTYPES)), data.draw(st.sampled_from(ALL_DTYPES))
    c = data.draw(views(sa.bool, max_dims=3))
    x1 = fill(d1, c.ref.shape[-1:], 1)
    x2 = fill(d2, (), 2)
    try:
        dt = numpy_promote(d1, d2)
    except TypeError:
        with pytest.raises(TypeError):
            sa.where(c.x, sa.asarray(x1), sa.asarray(x2))
        return
    _same(
        sa.where(c.x, sa.asarray(x1), sa.asarray(x2)),
        np.where(c.ref, x1.astype(dt.np), x2.astype(dt.np)),
    )
    scalar = {"b": True, "i": 3, "u": 3, "f": 1.5, "c": 1j}[d1.kind]
    _same(sa.where(c.x, scalar, sa.asarray(x1)), np.where(c.ref, np.asarray(scalar, d1.np), x1))


def test_where_rejects_non_bool_condition_and_two_scalars():
    with pytest.raises(TypeError, match="bool"):
        sa.where(sa.asarray([1, 0]), 1, 2)
    with pytest.raises(TypeError, match="at least one"):
        sa.where(sa.asarray([True]), 1, 2)
    # a float scalar with an int array: undefined by the standard, float64 as in NumPy
    r = sa.where(sa.asarray([True, False]), sa.asarray([1, 2]), 1.5)
    assert r.dtype is sa.float64 and np.asarray(r).tolist() == [1.0, 1.5]


@SETTINGS
@given(data=st.data())
def test_searchsorted(data):
    dt = data.draw(st.sampled_from(dtype_list(["integral", "real floating"])))
    raw = np.unique(fill(dt, (data.draw(st.integers(0, 12)),), data.draw(st.integers(0, 99))))
    step = data.draw(st.sampled_from([1, -1]))
    x1_np = raw if step == 1 else raw[::-1]
    sorter = None if step == 1 else sa.asarray(np.argsort(x1_np, kind="stable"))
    x2_np = fill(dt, (data.draw(st.integers(0, 5)),), 7)
    side = data.draw(st.sampled_from(["left", "right"]))
    out = sa.searchsorted(sa.asarray(x1_np), sa.asarray(x2_np), side=side, sorter=sorter)
    s = None if sorter is None else np.asarray(sorter)
    _same(out, np.searchsorted(x1_np, x2_np, side=side, sorter=s).astype(np.int64))
    v = 3 if dt.kind in "iu" else 2.5
    _same(
        sa.searchsorted(sa.asarray(x1_np), v, side=side, sorter=sorter),
        np.asarray(np.searchsorted(x1_np, v, side=side, sorter=s), dtype=np.int64),
    )


def test_searchsorted_bad_input():
    with pytest.raises(ValueError, match="1-d"):
        sa.searchsorted(sa.zeros((2, 2)), sa.zeros(1))
    with pytest.raises(ValueError, match="side"):
        sa.searchsorted(sa.zeros(2), sa.zeros(1), side="middle")


@SETTINGS
@given(data=st.data())
def test_sort_and_argsort(data):
    p = data.draw(views(st.sampled_from(REAL), max_dims=3))
    if p.ref.ndim == 0:
        with pytest.raises(ValueError, match="sort: x must have rank >= 1, got a 0-d array"):
            sa.sort(p.x)
        return
    # few distinct values, so ties (and stability) matter
    axis = data.draw(st.integers(-p.ref.ndim, p.ref.ndim - 1))
    desc = data.draw(st.booleans())
    x_np = p.ref
    idx = sa.argsort(p.x, axis=axis, descending=desc, stable=True)
    if desc:
        key = -x_np.astype(np.float64) if x_np.dtype.kind != "b" else ~x_np
        expected = np.argsort(key, axis=axis, kind="stable")
    else:
        expected = np.argsort(x_np, axis=axis, kind="stable")
    _same(idx, expected.astype(np.int64))
    out = sa.sort(p.x, axis=axis, descending=desc, stable=data.draw(st.booleans()))
    exp = np.sort(x_np, axis=axis)
    _same(out, np.flip(exp, axis=axis) if desc else exp)


def test_sort_rejects_complex_and_bad_axis():
    with pytest.raises(TypeError, match="real-valued"):
        sa.sort(sa.asarray([1j]))
    with pytest.raises(AxisError, match="axis 1 .* rank 1"):
        sa.argsort(sa.asarray([1.0]), axis=1)


@SETTINGS
@given(data=st.data())
def test_unique_functions(data):
    p = data.draw(views(max_dims=3))
    x_np = p.ref.copy()
    if x_np.dtype.kind == "f" and x_np.size:
        x_np.reshape(-1)[0] = np.nan  # NaNs are distinct
        x_np.reshape(-1)[-1] = np.nan
        x = sa.asarray(x_np)
    else:
        x = p.x
    v, i, inv, c = np.unique(
        x_np.reshape(-1),
        return_index=True,
        return_inverse=True,
        return_counts=True,
        equal_nan=False,
    )
    out = sa.unique_all(x)
    _same(out.values, v)
    _same(out.indices, i.astype(np.int64))
    _same(out.inverse_indices, inv.reshape(x_np.shape).astype(np.int64))
    _same(out.counts, c.astype(np.int64))
    _same(sa.unique_values(x), v)
    uc = sa.unique_counts(x)
    _same(uc.values, v)
    _same(uc.counts, c.astype(np.int64))
    ui = sa.unique_inverse(x)
    _same(ui.inverse_indices, inv.reshape(x_np.shape).astype(np.int64))
    if x_np.dtype.kind == "f" and x_np.size:
        assert int(np.isnan(np.asarray(out.values)).sum()) == int(np.isnan(x_np).sum())


@SETTINGS
@given(data=st.data())
def test_isin(data):
    ints = dtype_list("integral")
    d1, d2 = data.draw(st.sampled_from(ints)), data.draw(st.sampled_from(ints))
    p = data.draw(views(d1, max_dims=3))
    x2_np = fill(d2, (data.draw(st.integers(0, 6)),), 3)
    inv = data.draw(st.booleans())
    _same(sa.isin(p.x, sa.asarray(x2_np), invert=inv), np.isin(p.ref, x2_np, invert=inv))
    _same(sa.isin(p.x, 3, invert=inv), np.isin(p.ref, 3, invert=inv))
    _same(sa.isin(3, sa.asarray(x2_np)), np.asarray(np.isin(3, x2_np)))


# `where` and `isin` take an operand pair by the element-wise functions' one conversion
# (stridedarray/_api/_common.py): a Python scalar is weak, a NumPy scalar or 0-d array has its own
# dtype, as in NumPy's `where` and `isin`; a Python int outside the array's dtype is refused, as
# NumPy's ufuncs refuse it (its `where` and `isin` wrap it around instead).
_PAIR_OTHERS = [True, 3, -1, 300, 1.5, 1j, np.int16(5), np.float32(2.5), np.array(7, np.uint8)]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "float32", "complex64"])
@pytest.mark.parametrize("other", _PAIR_OTHERS, ids=repr)
def test_where_and_isin_take_an_operand_pair_as_the_elementwise_functions(dtype, other):
    x_np, c_np = np.array([1, 0, 1], dtype=dtype), np.array([True, False, True])
    x, c = sa.asarray(x_np), sa.asarray(c_np)
    try:
        np.add(x_np, other)
    except OverflowError:
        for call, arg in [
            (lambda: sa.where(c, x, other), "where(x2)"),
            (lambda: sa.where(c, other, x), "where(x1)"),
            (lambda: sa.isin(x, other), "isin(x2)"),
            (lambda: sa.add(x, other), "x2"),
        ]:
            with pytest.raises(OverflowError, match=re.escape(f"{arg}: Python int {other} ")):
                call()
        return
    _same(sa.where(c, x, other), np.where(c_np, x_np, other))
    _same(sa.where(c, other, x), np.where(c_np, other, x_np))
    _same(sa.isin(x, other), np.isin(x_np, other))
    _same(sa.isin(other, x), np.asarray(np.isin(other, x_np)))
