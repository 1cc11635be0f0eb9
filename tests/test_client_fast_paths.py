"""The fast paths taken for array-API clients' common calls (SciPy's and scikit-learn's generic
code: reshape(x, (-1,)), any() of a 0-d flag, asarray of our own array, isdtype with one
category, result_type of an array and a Python scalar) give what the general paths give, and
NumPy's values; bad input still raises the general path's specific errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import DTYPES, arrays, dtypes, views

import stridedarray as sa
from stridedarray._dtypes import KIND_OF
from stridedarray._validation import AxisError

# --- reshape with one -1 ---------------------------------------------------------------------


def _minus_one_targets(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """(-1,), and each 2-d split of the size with the -1 on either side."""
    size = math.prod(shape)
    out: list[tuple[int, ...]] = [(-1,)]
    for d in range(1, size + 1):
        if size % d == 0:
            out += [(d, -1), (-1, d), (1, d, -1)]
    return out


@settings(max_examples=150, deadline=None)
@given(views(max_ops=4), st.data())
def test_reshape_with_minus_one_equals_numpy(v, data) -> None:
    targets = _minus_one_targets(v.ref.shape)
    target = data.draw(st.sampled_from(targets))
    got = sa.reshape(v.x, target)
    want = np.reshape(v.ref, target)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    # A view exactly when NumPy can make one (the memory is shared with the base then).
    if np.shares_memory(want, v.base_np) and want.size > 1:
        assert got.buffer is v.base_x.buffer


@given(arrays(shape=st.tuples(st.integers(1, 4), st.integers(1, 4))))
def test_flatten_is_a_view_of_a_contiguous_array(pair) -> None:
    x, ref = pair
    flat = sa.reshape(x, (-1,))
    assert flat.shape == (ref.size,)
    assert flat.buffer is x.buffer
    np.testing.assert_array_equal(np.asarray(flat), ref.reshape(-1))


@pytest.mark.parametrize(
    ("shape", "error", "message"),
    [
        ((-1, -1), ValueError, "may contain at most one -1"),
        ((4, -1), ValueError, "cannot reshape an array of size 6 into shape (4, -1)"),
        ((-2, 3), ValueError, "has a negative extent"),
        ((0, -1), ValueError, "cannot reshape an array of size 6 into shape (0, -1)"),
        ((2.0, -1), TypeError, "shape[0] must be an integer"),
        ((True, -1), TypeError, "shape[0] must be an integer"),
        ((-1.0,), TypeError, "shape[0] must be an integer"),
    ],
)
def test_reshape_minus_one_errors_unchanged(shape, error, message) -> None:
    x = sa.reshape(sa.arange(6.0), (2, 3))
    with pytest.raises(error, match=re.escape(message)):
        sa.reshape(x, shape)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0, 2)])
@pytest.mark.parametrize("target", [(-1,), (0, -1), (3, -1), (-1, 2)])
def test_reshape_minus_one_of_an_empty_array_as_numpy(shape, target) -> None:
    # An empty array takes the general path: NumPy's answer, or its refusal (0 * -1).
    x = sa.zeros(shape)
    try:
        want = np.zeros(shape).reshape(target)
    except ValueError:
        with pytest.raises(ValueError, match="cannot reshape"):
            sa.reshape(x, target)
    else:
        assert sa.reshape(x, target).shape == want.shape


def test_reshape_minus_one_copy_false_still_refuses() -> None:
    x = sa.reshape(sa.arange(6.0), (2, 3)).mT  # not viewable as one run
    with pytest.raises(ValueError, match="cannot be viewed"):
        sa.reshape(x, (-1,), copy=False)
    np.testing.assert_array_equal(
        np.asarray(sa.reshape(x, (-1,))), np.arange(6.0).reshape(2, 3).T.reshape(-1)
    )


# --- any / all ------------------------------------------------------------------------------

_ZERO_D_VALUES = [0, 1, -1, 0.0, -0.0, 0.5, math.nan, math.inf, -math.inf, 1e-320]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("value", _ZERO_D_VALUES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_any_all_of_a_0d_array_equal_numpy(dtype, value, keepdims) -> None:
    with np.errstate(invalid="ignore", over="ignore"):
        ref = np.asarray(value).astype(dtype.np)
    x = sa.asarray(ref)
    for func in ("any", "all"):
        got = getattr(sa, func)(x, keepdims=keepdims)
        want = getattr(np, func)(ref, keepdims=keepdims)
        assert got.dtype is sa.bool and got.shape == ()
        assert bool(got) == bool(want), (func, dtype, value)


@pytest.mark.parametrize("value", [complex(0, 0), complex(0, 1), complex(math.nan, 0)])
def test_any_all_of_a_0d_complex_equal_numpy(value) -> None:
    ref = np.asarray(value)
    assert bool(sa.any(sa.asarray(ref))) == bool(np.any(ref))
    assert bool(sa.all(sa.asarray(ref))) == bool(np.all(ref))


def test_any_of_a_0d_array_is_a_new_array() -> None:
    flag = sa.asarray(True)
    r = sa.any(flag)
    assert r is not flag and r.buffer is not flag.buffer


@settings(max_examples=100, deadline=None)
@given(views(max_ops=4), st.data())
def test_any_all_along_axes_equal_numpy(v, data) -> None:
    nd = v.ref.ndim
    axis = data.draw(st.none() | (st.integers(-nd, nd - 1) if nd else st.none()))
    keepdims = data.draw(st.booleans())
    for func in ("any", "all"):
        got = getattr(sa, func)(v.x, axis=axis, keepdims=keepdims)
        want = getattr(np, func)(v.ref, axis=axis, keepdims=keepdims)
        assert got.dtype is sa.bool
        assert got.shape == np.shape(want)
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("func", ["any", "all"])
def test_any_all_errors_unchanged(func) -> None:
    with pytest.raises(TypeError, match="x must be a stridedarray.Array, got ndarray"):
        getattr(sa, func)(np.ones(3))
    with pytest.raises(AxisError, match=f"{func}: axis 2 is out of bounds for an array of rank 2"):
        getattr(sa, func)(sa.ones((2, 3)), axis=2)
    with pytest.raises(Exception, match="out of bounds"):
        getattr(sa, func)(sa.asarray(1.0), axis=0)


# --- asarray of an Array --------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(views(max_ops=3))
def test_asarray_of_an_array_as_it_is_returns_it(v) -> None:
    x = v.x
    for kwargs in ({}, {"dtype": None}, {"copy": None}, {"copy": False}, {"dtype": x.dtype}):
        assert sa.asarray(x, **kwargs) is x
    assert sa.asarray(x, device=x.device) is x
    c = sa.asarray(x, copy=True)
    assert c is not x and c.buffer is not x.buffer
    np.testing.assert_array_equal(np.asarray(c), v.ref)


@given(arrays(dtype=dtypes(["int32", "float32"]), shape=st.just((3,))))
def test_asarray_of_an_array_to_another_dtype_converts(pair) -> None:
    x, ref = pair
    y = sa.asarray(x, dtype=sa.float64)
    assert y.dtype is sa.float64 and y is not x
    np.testing.assert_array_equal(np.asarray(y), ref.astype(np.float64))
    with pytest.raises(ValueError, match="without a copy"):
        sa.asarray(x, dtype=sa.float64, copy=False)


def test_asarray_of_an_array_bad_device_still_raises() -> None:
    with pytest.raises(ValueError, match="unsupported device"):
        sa.asarray(sa.ones(2), device="gpu")


# --- isdtype and result_type --------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_isdtype_one_category_equals_the_tuple_path(dtype) -> None:
    for kind, members in KIND_OF.items():
        assert sa.isdtype(dtype, kind) is (dtype in members)
        # A 1-tuple takes the general path: the same answer.
        assert sa.isdtype(dtype, (kind,)) is sa.isdtype(dtype, kind)
        # NumPy's own isdtype agrees on every category both have.
        assert sa.isdtype(dtype, kind) == np.isdtype(dtype.np, kind)


def test_isdtype_errors_unchanged() -> None:
    with pytest.raises(ValueError, match="'floating' is neither a dtype category"):
        sa.isdtype(sa.float64, "floating")
    with pytest.raises(TypeError, match="dtype must name a supported dtype"):
        sa.isdtype(np.float16, "real floating")
    with pytest.raises(TypeError, match="dtype must name a supported dtype"):
        sa.isdtype("float16", "real floating")
    # Other spellings of a dtype (docs/dtypes.md) take the general path: the same answer.
    assert sa.isdtype(np.float64, "real floating") is sa.isdtype("f8", "real floating") is True


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("scalar", [2, 2.5, True, 1j, np.float64(2.5)], ids=repr)
def test_result_type_of_an_array_and_a_scalar(dtype, scalar) -> None:
    x = sa.ones(2, dtype=dtype)
    try:
        want = sa.result_type(x.dtype, scalar)  # the dtype argument: the general path
    except TypeError as exc:
        with pytest.raises(TypeError, match=str(exc)[:30]):
            sa.result_type(x, scalar)
        return
    assert sa.result_type(x, scalar) is want
    assert sa.result_type(scalar, x) is want
    # What an operation of the two gives.
    assert (x + scalar).dtype is want


def test_result_type_int_out_of_range_and_bad_arguments() -> None:
    with pytest.raises(
        OverflowError, match="arrays_and_dtypes: Python int 1000 is out of range for int8"
    ):
        sa.result_type(sa.ones(2, dtype=sa.int8), 1000)
    with pytest.raises(TypeError, match="got 'float16'"):
        sa.result_type(sa.ones(2), "float16")
    with pytest.raises(TypeError, match="got <object"):
        sa.result_type(sa.ones(2), object())
    assert sa.result_type(sa.ones(2, dtype=sa.float32), "float64") is sa.float64
    with pytest.raises(ValueError, match="at least one array or dtype"):
        sa.result_type(1.0, 2)
    assert sa.result_type(sa.ones(2, dtype=sa.float32), sa.ones(2, dtype=sa.int64)) is (
        sa.result_type(sa.float32, sa.int64)
    )


# --- assignment of a Python float -------------------------------------------------------------

_FLOATS = [0.0, -0.0, 2.5, -1e300, 1e300, 3.4e38, 5e-324, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("value", _FLOATS, ids=repr)
def test_assigning_a_python_float_equals_numpy_and_the_general_path(dtype, value) -> None:
    ref = np.arange(6.0).reshape(2, 3).astype(dtype)
    mask = np.array([[True, False, True], [False, False, True]])
    with np.errstate(over="ignore"):
        ref[mask] = value
        ref[1, 0] = value
    x = sa.asarray(np.arange(6.0).reshape(2, 3).astype(dtype))
    x[sa.asarray(mask)] = value
    x[1, 0] = value
    # np.float64 is a float subclass: the general path, with the same rule.
    y = sa.asarray(np.arange(6.0).reshape(2, 3).astype(dtype))
    y[sa.asarray(mask)] = np.float64(value)
    y[1, 0] = np.float64(value)
    np.testing.assert_array_equal(np.asarray(x), ref)
    np.testing.assert_array_equal(np.asarray(y), ref)


def test_assigning_a_python_float_elsewhere_keeps_its_errors() -> None:
    x = sa.zeros(3, dtype=sa.int32)
    with pytest.raises(ValueError, match="NaN cannot be assigned"):
        x[0] = math.nan
    x[0] = 2.7  # truncates, as NumPy
    assert int(x[0]) == 2
    ro = sa.broadcast_to(sa.ones(1), (3,))
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = 1.0


# --- iteration (csrc/arraytype/iterate.c) ---------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(views(max_ops=4))
def test_iteration_yields_the_views_along_the_first_axis(v) -> None:
    if v.ref.ndim == 0:
        with pytest.raises(TypeError, match="iteration over a 0-d array"):
            iter(v.x)
        assert not np.iterable(v.x)
        return
    rows = list(v.x)
    assert len(rows) == v.ref.shape[0] == len(v.x)
    for k, (row, want) in enumerate(zip(rows, v.ref, strict=True)):
        assert type(row) is sa.Array and row.shape == want.shape
        np.testing.assert_array_equal(np.asarray(row), want)
        assert row.buffer is v.x.buffer  # a view, as x[k]
        np.testing.assert_array_equal(np.asarray(row), np.asarray(v.x[k]))
    assert np.iterable(v.x)


def test_an_exhausted_iterator_stays_exhausted() -> None:
    it = iter(sa.arange(2))
    assert [int(a) for a in it] == [0, 1]
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_iter_method_is_documented_and_callable() -> None:
    assert "Examples" in (sa.Array.__iter__.__doc__ or "")
    x = sa.reshape(sa.arange(6), (3, 2))
    assert [r.tolist() for r in sa.Array.__iter__(x)] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        sa.Array.__iter__(sa.asarray(1))


# --- wrapping a NumPy scalar result ---------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_wrapping_a_numpy_scalar_gives_the_0d_array(dtype) -> None:
    from stridedarray._array import _wrap_py
    from stridedarray._arraytype import _wrap

    value = np.ones((), dtype=dtype.np)[()]  # a NumPy scalar of the dtype
    assert isinstance(value, np.generic)
    for wrap in (_wrap, _wrap_py):
        w = wrap(value)
        assert type(w) is sa.Array and w.dtype is dtype and w.shape == ()
        assert w._np == value
        assert w.buffer.flags.writeable  # its own fresh memory


@pytest.mark.parametrize("value", [np.float16(1.5), np.str_("a"), np.datetime64("2020-01-01")])
def test_wrapping_a_numpy_scalar_of_an_unsupported_dtype_raises(value) -> None:
    from stridedarray._array import _wrap_py
    from stridedarray._arraytype import _wrap

    for wrap in (_wrap, _wrap_py):
        with pytest.raises(
            TypeError, match="bool, int8, int16, int32, int64, uint8, uint16, uint32"
        ):
            wrap(value)
        with pytest.raises(
            TypeError, match="bool, int8, int16, int32, int64, uint8, uint16, uint32"
        ):
            wrap(np.asarray(value))


@given(arrays(dtype=dtypes(["float32", "float64", "int64", "complex128"])))
def test_full_reductions_and_0d_results_equal_numpy(pair) -> None:
    x, ref = pair
    if ref.size == 0:
        return
    for func in ("max", "min", "sum"):
        if func in ("max", "min") and ref.dtype.kind == "c":
            continue
        got = getattr(sa, func)(x)
        assert got.shape == ()
        np.testing.assert_array_equal(np.asarray(got), getattr(np, func)(ref))
    zero_d = sa.max(x) if ref.dtype.kind != "c" else sa.sum(x)
    np.testing.assert_array_equal(np.asarray(sa.isnan(zero_d)), np.isnan(np.asarray(zero_d)))
