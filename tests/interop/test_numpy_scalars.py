"""NumPy scalars (np.int64(1), np.float32(2), np.bool_(True), ...) and 0-d arrays, ours and
NumPy's, are taken wherever a Python scalar is: assignment, full, full_like, the operators and
the element-wise functions. Values as NumPy gives them; a NumPy integer that does not fit the
target dtype raises, as a Python int does (NumPy would wrap it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES as DTYPES
from strategies import dtypes, views

import stridedarray as sa

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

NP_TYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]


@st.composite
def numpy_values(draw):
    """A NumPy scalar of any standard type with a small value (negative ones included)."""
    t = draw(st.sampled_from(NP_TYPES))
    v = draw(st.sampled_from([0, 1, 2, 7, 42, -1, -5]))
    if np.dtype(t).kind == "u":
        v = abs(v)
    elif np.dtype(t).kind == "f":
        v = v + draw(st.sampled_from([0.0, 0.25, 0.5]))
    elif np.dtype(t).kind == "c":
        v = complex(v, draw(st.sampled_from([0.0, 1.5])))
    return t(v)


def _fits(value, npdt) -> bool:
    """Whether NumPy's own conversion of `value` into `npdt` keeps its value (no wrap)."""
    if np.dtype(npdt).kind not in "iu":
        return True
    if value.dtype.kind == "c":
        return False
    info = np.iinfo(npdt)
    return info.min <= int(value.real) <= info.max  # a float truncates toward zero


def _numpy_assign(ref, key, value):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # complex into real: a warning there, an error here
        ref[key] = value


@settings(max_examples=150, deadline=None)
@given(
    views(broadcast=False, max_dims=3),
    numpy_values(),
    st.sampled_from(["scalar", "ours", "numpy 0-d"]),
)
def test_assignment_of_numpy_scalars_and_0d_arrays_matches_numpy(p, value, form):
    if p.ref.size == 0:
        return
    key = (0,) * p.ref.ndim
    v = {"scalar": value, "ours": sa.asarray(value), "numpy 0-d": np.asarray(value)}[form]
    before = p.base_np.copy()
    expected = p.ref.copy()
    refused = (value.dtype.kind == "c" and p.ref.dtype.kind != "c") or (
        form == "scalar" and not _fits(value, p.ref.dtype)
    )
    if refused:
        with pytest.raises((TypeError, OverflowError)):
            p.x[key] = v
        np.testing.assert_array_equal(p.base_np, before)
        return
    if form != "scalar" and not _fits(value, p.ref.dtype):
        return  # an array converts by astype's rule, whose wrap is the C core's business
    _numpy_assign(expected, key, value)
    p.x[key] = v
    np.testing.assert_array_equal(p.ref, expected)


def test_assignment_examples():
    x = sa.zeros(4)
    x[0] = np.int64(1)
    x[1] = np.float32(2.5)
    x[2] = np.bool_(True)
    x[3] = np.asarray(4)
    assert x.tolist() == [1.0, 2.5, 1.0, 4.0]
    b = sa.zeros(2, dtype=sa.bool)
    b[0] = np.bool_(True)
    assert b.tolist() == [True, False]
    u = sa.zeros(2, dtype=sa.uint8)
    with pytest.raises(OverflowError, match="out of range"):
        u[0] = np.int64(300)  # NumPy would store 44
    with pytest.raises(TypeError, match="imaginary|complex"):
        x[0] = np.complex64(1j)
    with pytest.raises(TypeError, match="asarray"):
        x[...] = np.ones(4)  # a NumPy array of rank >= 1: convert it first
    assert u.tolist() == [0, 0] and x.tolist() == [1.0, 2.5, 1.0, 4.0]


@settings(max_examples=100, deadline=None)
@given(numpy_values(), st.sampled_from([None, *DTYPES]), st.booleans())
def test_full_with_a_numpy_scalar_matches_numpy(value, dtype, zero_d):
    fill = np.asarray(value) if zero_d else value
    npdt = None if dtype is None else dtype.np
    if value.dtype.kind == "c" and dtype is not None and dtype.kind != "c":
        with pytest.raises(TypeError, match="complex"):
            sa.full((2, 3), fill, dtype=dtype)
        return
    if not _fits(value, npdt or value.dtype):
        if not zero_d:
            with pytest.raises(OverflowError, match="fill_value"):
                sa.full((2, 3), fill, dtype=dtype)
        return
    got = sa.full((2, 3), fill, dtype=dtype)
    want = np.full((2, 3), fill, dtype=npdt)
    assert got.dtype.np == want.dtype  # the scalar's own dtype by default, as NumPy
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=100, deadline=None)
@given(
    numpy_values(),
    st.sampled_from(DTYPES),
    st.sampled_from([None, *DTYPES]),
    st.sampled_from(["scalar", "ours", "numpy 0-d"]),
)
def test_full_like_with_numpy_scalars_and_0d_arrays_matches_numpy(value, x_dtype, dtype, form):
    x = sa.zeros((2, 3), dtype=x_dtype)
    fill = {"scalar": value, "ours": sa.asarray(value), "numpy 0-d": np.asarray(value)}[form]
    target = dtype or x_dtype  # the dtype argument's or x's, never the fill's
    if value.dtype.kind == "c" and target.kind != "c":
        with pytest.raises(TypeError, match="complex"):
            sa.full_like(x, fill, dtype=dtype)
        return
    if not _fits(value, target.np):
        if form == "scalar":
            with pytest.raises(OverflowError, match="fill_value"):
                sa.full_like(x, fill, dtype=dtype)
        return
    got = sa.full_like(x, fill, dtype=dtype)
    want = np.full_like(
        np.zeros((2, 3), x_dtype.np), np.asarray(value), dtype=None if dtype is None else dtype.np
    )
    assert got.dtype is target
    np.testing.assert_array_equal(np.asarray(got), want)


def test_full_and_full_like_examples():
    assert sa.full(2, np.int64(3)).dtype is sa.int64
    assert sa.full(2, np.float32(2)).dtype is sa.float32
    assert sa.full(2, np.bool_(True)).tolist() == [True, True]
    x = sa.zeros(2)
    assert sa.full_like(x, sa.asarray(2.0)).tolist() == [2.0, 2.0]
    assert sa.full_like(x, np.float32(2)).dtype is sa.float64
    assert sa.full_like(sa.zeros(2, dtype=sa.int8), sa.asarray(3)).dtype is sa.int8
    with pytest.raises(ValueError, match="full_like: fill_value must be a scalar or a 0-d"):
        sa.full_like(x, sa.ones(2))
    with pytest.raises(OverflowError, match="fill_value"):
        sa.full(2, np.int64(300), dtype=sa.uint8)
    with pytest.raises(TypeError, match="fill_value"):
        sa.full_like(x, np.str_("a"))


@settings(max_examples=100, deadline=None)
@given(views(max_dims=3), numpy_values(), st.booleans())
def test_operators_and_functions_with_numpy_scalars_follow_numpy(p, value, zero_d):
    v = np.asarray(value) if zero_d else value
    # np.float64 and np.complex128 are Python floats and complexes: the Python scalar's rule
    # (the array's precision), not NumPy's typed-scalar one.
    v_np = value.item() if type(v) in (np.float64, np.complex128) else v
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = np.multiply(p.ref, v_np)
        except TypeError:
            want = None
        if want is None or want.dtype.kind == "b":
            return  # bool * bool: outside multiply's numeric category here
        got_op = p.x * v
        got_fn = sa.multiply(p.x, v)
        got_eq = sa.equal(v, p.x)
    for got in (got_op, got_fn):
        assert isinstance(got, sa.Array) and got.dtype.np == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(got_eq), np.equal(v_np, p.ref))


def test_clip_takes_numpy_scalar_bounds():
    x = sa.asarray([-3.0, 0.5, 9.0])
    assert sa.clip(x, np.float32(-1), np.int64(1)).tolist() == [-1.0, 0.5, 1.0]


@settings(max_examples=60, deadline=None)
@given(views(dtypes(["integral", "real floating"]), max_dims=2, broadcast=False), numpy_values())
def test_where_searchsorted_result_type_take_numpy_scalars(p, value):
    if value.dtype.kind == "c" or type(value) is np.float64:
        return  # complex: outside searchsorted; np.float64 takes the Python float's rule
    cond = p.ref > 0
    want = np.where(cond, p.ref, value)
    got = sa.where(sa.asarray(cond), p.x, value)
    assert got.dtype.np == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    assert sa.result_type(p.x, value).np == np.result_type(p.ref, value)
    assert sa.result_type(p.x, np.asarray(value)).np == np.result_type(p.ref, np.asarray(value))
    if p.ref.ndim == 1:
        s = np.sort(p.ref)
        got_i = sa.searchsorted(sa.asarray(s), value)
        assert int(got_i) == int(np.searchsorted(s, value))
