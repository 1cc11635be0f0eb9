"""Statistical and utility functions: differential against NumPy over random views and every
accepted dtype (0-size included), the standard's result dtypes, empty input, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import DTYPES, arrays, dtype_list, dtypes, fill, views

import stridedarray as sa
from stridedarray._base.arguments import AxisError

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

SETTINGS = settings(max_examples=40, deadline=None)
NUMERIC = dtype_list("numeric")
REAL = dtype_list(["bool", "integral", "real floating"])
FLOAT = dtype_list("real floating")


def _acc(dt) -> np.dtype:
    """The standard's accumulator: signed -> int64, unsigned -> uint64, floats keep."""
    return {"i": np.dtype(np.int64), "u": np.dtype(np.uint64), "b": np.dtype(np.int64)}.get(
        dt.kind, dt.np
    )


def _close(out: sa.Array, expected) -> None:
    expected = np.asarray(expected)
    assert out.dtype.np == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    rtol = 1e-4 if expected.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(np.asarray(out), expected, rtol=rtol, atol=1e-4, equal_nan=True)


def _axes(data, nd: int):
    if not nd:
        return None
    return data.draw(
        st.none()
        | st.integers(-nd, nd - 1)
        | st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple)
    )


@SETTINGS
@given(data=st.data())
def test_sum_prod(data):
    p = data.draw(views(st.sampled_from(NUMERIC)))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    acc = _acc(p.x.dtype)
    with np.errstate(all="ignore"):
        _close(
            sa.sum(p.x, axis=axis, keepdims=keep),
            np.sum(p.ref, axis=axis, dtype=acc, keepdims=keep),
        )
        _close(
            sa.prod(p.x, axis=axis, keepdims=keep),
            np.prod(p.ref, axis=axis, dtype=acc, keepdims=keep),
        )
        _close(
            sa.sum(p.x, axis=axis, dtype=sa.complex128),
            np.sum(p.ref, axis=axis, dtype=np.complex128),
        )


@SETTINGS
@given(data=st.data())
def test_max_min(data):
    p = data.draw(views(st.sampled_from(REAL)))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    for f, ref in ((sa.max, np.max), (sa.min, np.min)):
        try:
            expected = ref(p.ref, axis=axis, keepdims=keep)
        except ValueError:
            with pytest.raises(ValueError, match="zero-size"):
                f(p.x, axis=axis, keepdims=keep)
            continue
        _close(f(p.x, axis=axis, keepdims=keep), expected)


@SETTINGS
@given(data=st.data())
def test_mean_std_var(data):
    p = data.draw(views(st.sampled_from(FLOAT)))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    corr = data.draw(st.sampled_from([0, 1, 0.5]))
    with np.errstate(all="ignore"), _nowarn():
        _close(sa.mean(p.x, axis=axis, keepdims=keep), np.mean(p.ref, axis=axis, keepdims=keep))
        _close(
            sa.std(p.x, axis=axis, correction=corr, keepdims=keep),
            np.std(p.ref, axis=axis, ddof=corr, keepdims=keep),
        )
        _close(
            sa.var(p.x, axis=axis, correction=corr, keepdims=keep),
            np.var(p.ref, axis=axis, ddof=corr, keepdims=keep),
        )


@SETTINGS
@given(data=st.data())
def test_mean_std_var_of_integers_and_bools_compute_in_float64_as_numpy(data):
    """NumPy's mean, std and var of bool and integer input are float64 (so are SciPy's
    statistics of integer samples): the same values and dtype, any view, any axes."""
    p = data.draw(views(st.sampled_from(dtype_list(["bool", "integral"]))))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    corr = data.draw(st.sampled_from([0, 1, 0.5]))
    before = p.base_np.copy()
    with np.errstate(all="ignore"), _nowarn():
        _close(sa.mean(p.x, axis=axis, keepdims=keep), np.mean(p.ref, axis=axis, keepdims=keep))
        _close(
            sa.std(p.x, axis=axis, correction=corr, keepdims=keep),
            np.std(p.ref, axis=axis, ddof=corr, keepdims=keep),
        )
        _close(
            sa.var(p.x, axis=axis, correction=corr, keepdims=keep),
            np.var(p.ref, axis=axis, ddof=corr, keepdims=keep),
        )
    np.testing.assert_array_equal(p.base_np, before)


class _nowarn:
    """NumPy's references warn on empty slices; ours must not (checked separately)."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_empty_mean_is_nan_without_warning(recwarn):
    assert np.isnan(float(sa.mean(sa.zeros((0,)))))
    assert np.isnan(float(sa.var(sa.zeros((3,)), correction=3)))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@SETTINGS
@given(data=st.data())
def test_cumulative(data):
    p = data.draw(views(st.sampled_from(NUMERIC), max_dims=3))
    nd = p.ref.ndim
    if nd == 0:
        with pytest.raises(
            ValueError, match="cumulative_sum: x must have rank >= 1, got a 0-d array"
        ):
            sa.cumulative_sum(p.x)
        return
    axis = data.draw(st.integers(-nd, nd - 1))
    init = data.draw(st.booleans())
    acc = _acc(p.x.dtype)
    with np.errstate(all="ignore"):
        _close(
            sa.cumulative_sum(p.x, axis=axis, include_initial=init),
            np.cumulative_sum(p.ref, axis=axis, dtype=acc, include_initial=init),
        )
        _close(
            sa.cumulative_prod(p.x, axis=axis, include_initial=init),
            np.cumulative_prod(p.ref, axis=axis, dtype=acc, include_initial=init),
        )
    if nd > 1:
        with pytest.raises(ValueError, match="axis is required"):
            sa.cumulative_sum(p.x)


@SETTINGS
@given(data=st.data())
def test_all_any_diff(data):
    p = data.draw(views())
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    _close(sa.all(p.x, axis=axis, keepdims=keep), np.all(p.ref, axis=axis, keepdims=keep))
    _close(sa.any(p.x, axis=axis, keepdims=keep), np.any(p.ref, axis=axis, keepdims=keep))
    nd = p.ref.ndim
    if nd == 0 or p.x.dtype.kind == "b":
        with pytest.raises((ValueError, TypeError), match="diff: x must have"):
            sa.diff(p.x)
        return
    ax = data.draw(st.integers(-nd, nd - 1))
    n = data.draw(st.integers(0, 3))
    shape = list(p.ref.shape)
    shape[ax] = 2
    extra = fill(p.x.dtype, tuple(shape), 4)
    with np.errstate(all="ignore"):
        _close(sa.diff(p.x, axis=ax, n=n), np.diff(p.ref, axis=ax, n=n))
        # n = 0: the standard's result has M + N1 + N2 - n elements along the axis, the
        # concatenation; NumPy returns x alone (ignoring prepend and append).
        want = (
            np.concatenate([extra, p.ref, extra], axis=ax)
            if n == 0
            else np.diff(p.ref, axis=ax, n=n, prepend=extra, append=extra)
        )
        _close(
            sa.diff(p.x, axis=ax, n=n, prepend=sa.asarray(extra), append=sa.asarray(extra)), want
        )


def test_bad_input():
    x = sa.asarray([[1.0, 2.0]])
    with pytest.raises(AxisError, match="axis 2 .* rank 2"):
        sa.sum(x, axis=2)
    with pytest.raises(TypeError, match="real floating"):
        sa.std(sa.asarray([1j]))
    with pytest.raises(TypeError, match="real-valued"):
        sa.max(sa.asarray([1j]))
    with pytest.raises(ValueError, match="zero-size"):
        sa.max(sa.zeros((0, 3)))
    with pytest.raises(TypeError, match="dtype float64"):
        sa.diff(x, prepend=sa.asarray([[1]]))
    with pytest.raises(ValueError, match="correction"):
        sa.var(x, correction=-1)


@pytest.mark.parametrize("name", ["sum", "prod", "cumulative_sum", "cumulative_prod"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_sums_and_products_of_bool_count_as_numpy(name, data):
    """The standard asks for numeric input; NumPy, PyTorch and JAX add and multiply bools as
    integers in the default integer dtype, and so do we."""
    p = data.draw(views(sa.bool, max_dims=3))
    if name.startswith("cumulative") and p.ref.ndim != 1:
        return  # (an axis is required above rank 1)
    got, want = getattr(sa, name)(p.x), getattr(np, name)(p.ref)
    assert got.dtype is sa.int64 and want.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(got), want)


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
    with pytest.raises(TypeError, match="x must be a stridedarray.Array, got list"):
        getattr(sa, func)([1.0, 1.0, 1.0])
    with pytest.raises(AxisError, match=f"{func}: axis 2 is out of bounds for an array of rank 2"):
        getattr(sa, func)(sa.ones((2, 3)), axis=2)
    with pytest.raises(Exception, match="out of bounds"):
        getattr(sa, func)(sa.asarray(1.0), axis=0)


# --- full reductions and their 0-d results ------------------------------------------------


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
