"""NumPy's functions and keywords beyond the standard (stridedarray/_api/numpy_extensions.py,
docs/functions.md "Beyond the standard"): differential against NumPy's function of the same
name over random views (negative, step-two, zero strides, transposed, 0 and 1 extents), every
dtype each takes and NaN-laden floating-point input; quiet where NumPy warns; bad input."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import dtype_list, views

import stridedarray as sa

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

SETTINGS = settings(max_examples=40, deadline=None)
NUMERIC = dtype_list(["bool", "numeric"])
REAL = dtype_list(["bool", "integral", "real floating"])
FLOATING = dtype_list("real floating")


def _acc(dt) -> np.dtype:
    """sum's accumulator: bool and signed -> int64, unsigned -> uint64, floats keep."""
    return {"i": np.dtype(np.int64), "u": np.dtype(np.uint64), "b": np.dtype(np.int64)}.get(
        dt.kind, dt.np
    )


@st.composite
def nan_views(draw, dtypes):
    """A ViewPair whose floating-point buffer holds NaN at random places (all of it at times),
    written into the shared buffer before the views read it."""
    p = draw(views(st.sampled_from(dtypes)))
    if p.x.dtype.kind in "fc" and p.base_np.size:
        share = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        p.base_np[rng.random(p.base_np.shape) < share] = np.nan
    return p


def _axes(data, nd: int):
    if not nd:
        return data.draw(st.sampled_from([None, ()]))
    return data.draw(
        st.none()
        | st.integers(-nd, nd - 1)
        | st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple)
    )


def _quiet(f, *args, **kwargs):
    """f(...) with every warning an error: the extensions are as quiet as the standard's
    reductions, where NumPy warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return f(*args, **kwargs)


def _numpy(f, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _same(out: sa.Array, expected) -> None:
    expected = np.asarray(expected)
    assert isinstance(out, sa.Array)
    assert out.dtype.np == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    rtol = 1e-4 if expected.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(np.asarray(out), expected, rtol=rtol, atol=1e-4, equal_nan=True)


def _empty_reduction(shape, axis) -> bool:
    if axis is None:
        return 0 in shape
    axes = (axis,) if isinstance(axis, int) else axis
    return any(shape[a] == 0 for a in axes)


# -- the nan-reductions -----------------------------------------------------------------------


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["nansum", "nanprod"]))
def test_nansum_nanprod(data, name):
    p = data.draw(nan_views(NUMERIC))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    got = _quiet(getattr(sa, name), p.x, axis=axis, keepdims=keep)
    ref = _numpy(getattr(np, name), p.ref, axis=axis, dtype=_acc(p.x.dtype), keepdims=keep)
    _same(got, ref)
    if p.x.dtype.kind not in "fc":  # no NaN to ignore: the standard function's answer
        std = getattr(sa, name.removeprefix("nan"))(p.x, axis=axis, keepdims=keep)
        assert np.array_equal(np.asarray(got), np.asarray(std))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["nansum", "nanprod", "nanmean"]))
def test_dtype_argument(data, name):
    p = data.draw(nan_views(dtype_list(["integral", "real floating"])))
    dt = data.draw(st.sampled_from(dtype_list("floating-point")))
    axis = _axes(data, p.ref.ndim)
    got = _quiet(getattr(sa, name), p.x, axis=axis, dtype=dt)
    _same(got, _numpy(getattr(np, name), p.ref, axis=axis, dtype=dt.np))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["nanmax", "nanmin"]))
def test_nanmax_nanmin(data, name):
    p = data.draw(nan_views(REAL))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    if _empty_reduction(p.ref.shape, axis if axis != () else None) and axis != ():
        with pytest.raises(ValueError, match=rf"{name}: zero-size reduction"):
            getattr(sa, name)(p.x, axis=axis, keepdims=keep)
        return
    got = _quiet(getattr(sa, name), p.x, axis=axis, keepdims=keep)
    _same(got, _numpy(getattr(np, name), p.ref, axis=axis, keepdims=keep))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["nanmean", "nanmedian", "nanvar", "nanstd"]))
def test_nanmean_nanmedian_nanvar_nanstd(data, name):
    kinds = ["bool", "integral", "real floating"] + (["complex floating"] * (name == "nanmean"))
    p = data.draw(nan_views(dtype_list(kinds)))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    kwargs = {"axis": axis, "keepdims": keep}
    if name in ("nanvar", "nanstd"):
        kwargs["ddof"] = data.draw(st.sampled_from([0, 1, 2.5]))
    # integers and bool in float64, as mean, std and var
    ref = p.ref if p.x.dtype.kind in "fc" else p.ref.astype(np.float64)
    got = _quiet(getattr(sa, name), p.x, **kwargs)
    _same(got, _numpy(getattr(np, name), ref, **kwargs))
    if name in ("nanvar", "nanstd"):
        kwargs["correction"] = kwargs.pop("ddof")
        _same(getattr(sa, name)(p.x, **kwargs), np.asarray(got))
        dt = data.draw(st.sampled_from(FLOATING))
        kwargs["ddof"] = kwargs.pop("correction")
        got = _quiet(getattr(sa, name), p.x, dtype=dt, **kwargs)
        _same(got, _numpy(getattr(np, name), ref, dtype=dt.np, **kwargs))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["nanargmax", "nanargmin"]))
def test_nanargmax_nanargmin(data, name):
    p = data.draw(nan_views(REAL))
    nd = p.ref.ndim
    axis = data.draw(st.none() | st.integers(-nd, nd - 1)) if nd else None
    keep = data.draw(st.booleans())
    try:
        ref = _numpy(getattr(np, name), p.ref, axis=axis, keepdims=keep)
    except ValueError:  # an all-NaN slice, or an empty one
        with pytest.raises(ValueError, match=rf"{name}: .*(all NaN|empty)"):
            getattr(sa, name)(p.x, axis=axis, keepdims=keep)
        return
    got = _quiet(getattr(sa, name), p.x, axis=axis, keepdims=keep)
    _same(got, np.asarray(ref, dtype=np.int64))


def test_all_nan_slices_are_nan_without_warnings():
    x = sa.asarray([[np.nan, np.nan], [1.0, np.nan]])
    for name in ("nanmax", "nanmin", "nanmean", "nanmedian", "nanvar", "nanstd"):
        got = np.asarray(_quiet(getattr(sa, name), x, axis=1))
        assert np.isnan(got[0]) and not np.isnan(got[1]), name
    assert _quiet(sa.nansum, x, axis=1).tolist() == [0.0, 1.0]
    assert _quiet(sa.nanprod, x, axis=1).tolist() == [1.0, 1.0]
    empty = sa.zeros((0, 3))
    assert np.isnan(np.asarray(_quiet(sa.nanmean, empty, axis=0))).all()
    with pytest.raises(ValueError, match="a slice of x along axis 1 is all NaN"):
        sa.nanargmax(x, axis=1)
    with pytest.raises(ValueError, match="nanargmin: x is all NaN"):
        sa.nanargmin(sa.asarray([np.nan]))


# -- nancumsum, cumsum --------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_nancumsum(data):
    p = data.draw(nan_views(NUMERIC))
    nd = p.ref.ndim
    if nd == 0:
        with pytest.raises(ValueError, match="rank >= 1"):
            sa.nancumsum(p.x)
        return
    axis = data.draw(st.integers(-nd, nd - 1))
    initial = data.draw(st.booleans())
    got = _quiet(sa.nancumsum, p.x, axis=axis, include_initial=initial)
    ref = _numpy(np.nancumsum, p.ref, axis=axis, dtype=_acc(p.x.dtype))
    if initial:
        shape = list(ref.shape)
        shape[axis] = 1
        ref = np.concatenate([np.zeros(shape, ref.dtype), ref], axis=axis)
    _same(got, ref)


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["cumsum", "cumprod"]))
def test_cumsum_cumprod_as_numpy(data, name):
    p = data.draw(views(st.sampled_from(NUMERIC)))
    nd = p.ref.ndim
    axis = data.draw(st.none() | st.integers(-nd, nd - 1)) if nd else None
    ours, theirs = getattr(sa, name), getattr(np, name)
    got = _quiet(ours, p.x, axis)
    _same(got, _numpy(theirs, p.ref, axis=axis, dtype=_acc(p.x.dtype)))
    dt = data.draw(st.sampled_from(dtype_list("floating-point")))
    _same(ours(p.x, axis=axis, dtype=dt), _numpy(theirs, p.ref, axis=axis, dtype=dt.np))


def test_cumsum_differs_from_cumulative_sum_where_documented():
    x = sa.reshape(sa.arange(6), (2, 3))
    assert sa.cumsum(x).shape == (6,)
    with pytest.raises(ValueError, match="axis is required"):
        sa.cumulative_sum(x)
    assert sa.cumsum(sa.asarray(5)).tolist() == [5]
    assert (
        inspect.signature(sa.cumsum).parameters["axis"].kind
        is inspect.Parameter.POSITIONAL_OR_KEYWORD
    )


# -- pad ------------------------------------------------------------------------------------


@st.composite
def _pad_widths(draw, nd: int):
    n = st.integers(0, 3)
    form = draw(st.sampled_from(["int", "pair", "per-axis"]))
    if form == "int":
        return draw(n)
    if form == "pair":
        return (draw(n), draw(n))
    return tuple((draw(n), draw(n)) for _ in range(nd))


@SETTINGS
@given(data=st.data(), mode=st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
def test_pad_as_numpy(data, mode):
    p = data.draw(views(st.sampled_from(dtype_list())))
    widths = data.draw(_pad_widths(p.ref.ndim))
    if p.ref.ndim == 0:  # nothing to pad: a copy (NumPy refuses the empty per-axis form)
        got = sa.pad(p.x, widths, mode)
        _same(got, p.ref)
        assert not np.shares_memory(np.asarray(got), p.base_np)
        return
    if mode == "constant":
        value = data.draw(
            st.sampled_from([0, 1, True]) if p.x.dtype.kind == "b" else st.integers(0, 9)
        )
        got = sa.pad(p.x, widths, constant_values=value)
        _same(got, np.pad(p.ref, widths, constant_values=value))
        return
    expanded = np.broadcast_to(np.asarray(widths), (p.ref.ndim, 2))
    if any(n == 0 and expanded[k].any() for k, n in enumerate(p.ref.shape)):
        with pytest.raises(ValueError, match=rf"pad: mode '{mode}' cannot extend axis"):
            sa.pad(p.x, widths, mode)
        return
    got = sa.pad(p.x, widths, mode)
    _same(got, np.pad(p.ref, widths, mode=mode))
    assert not np.shares_memory(np.asarray(got), p.base_np)


def test_pad_constant_values_per_axis_and_kinds():
    x = sa.reshape(sa.arange(4.0), (2, 2))
    got = sa.pad(x, ((1, 0), (0, 1)), constant_values=((7, 8), (9, np.nan)))
    ref = np.pad(
        np.arange(4.0).reshape(2, 2), ((1, 0), (0, 1)), constant_values=((7, 8), (9, np.nan))
    )
    _same(got, ref)
    assert sa.pad(sa.asarray([1, 2], dtype=sa.int8), 1, constant_values=-128).dtype == sa.int8
    assert sa.pad(sa.asarray([True]), 1).tolist() == [False, True, False]


# -- keywords of standard functions ---------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_mean_dtype(data):
    p = data.draw(views(st.sampled_from(NUMERIC)))
    kinds = "complex floating" if p.x.dtype.kind == "c" else "floating-point"
    dt = data.draw(st.sampled_from(dtype_list(kinds)))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    got = _quiet(sa.mean, p.x, axis=axis, keepdims=keep, dtype=dt)
    _same(got, _numpy(np.mean, p.ref, axis=axis, keepdims=keep, dtype=dt.np))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["std", "var"]))
def test_std_var_ddof_is_correction(data, name):
    p = data.draw(views(st.sampled_from(FLOATING)))
    axis, ddof = _axes(data, p.ref.ndim), data.draw(st.sampled_from([0, 1, 1.5, np.int64(2)]))
    got = _quiet(getattr(sa, name), p.x, axis=axis, ddof=ddof)
    _same(got, _numpy(getattr(np, name), p.ref, axis=axis, ddof=ddof))
    _same(getattr(sa, name)(p.x, axis=axis, correction=ddof), np.asarray(got))


@SETTINGS
@given(data=st.data())
def test_diff_scalar_prepend_append(data):
    p = data.draw(views(st.sampled_from(dtype_list(["integral", "floating-point"])), max_side=4))
    nd = p.ref.ndim
    if nd == 0:
        return
    axis = data.draw(st.integers(-nd, nd - 1))
    kind = p.x.dtype.kind
    py = (
        data.draw(st.integers(0, 9)) if kind in "iu" else data.draw(st.sampled_from([0.5, 3, -2.0]))
    )
    npy = p.x.dtype.np.type(4)  # a NumPy scalar of x's dtype
    for pre, app in ((py, None), (None, py), (npy, py), (py, npy)):
        got = sa.diff(p.x, axis=axis, prepend=pre, append=app)
        kw = {k: v for k, v in (("prepend", pre), ("append", app)) if v is not None}
        _same(
            got, np.diff(p.ref, axis=axis, **{k: np.asarray(v, p.ref.dtype) for k, v in kw.items()})
        )


def test_diff_scalar_dtype_rules():
    i = sa.asarray([1, 5], dtype=sa.int32)
    assert sa.diff(i, append=9).dtype == sa.int32
    with pytest.raises(TypeError, match="diff: append must have dtype int32, got float64"):
        sa.diff(i, append=1.5)
    with pytest.raises(TypeError, match="diff: prepend must have dtype int32, got int64"):
        sa.diff(i, prepend=np.int64(1))
    with pytest.raises(
        OverflowError, match="diff: append: Python int 300 is out of range for int8"
    ):
        sa.diff(sa.asarray([1], dtype=sa.int8), append=300)
    with pytest.raises(TypeError, match="diff: append must be a stridedarray.Array, got str"):
        sa.diff(i, append="1")


@SETTINGS
@given(data=st.data())
def test_full_like_shape_and_squeeze_without_axis(data):
    p = data.draw(views(st.sampled_from(dtype_list())))
    shape = data.draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
    got = sa.full_like(p.x, 1, shape=shape)
    _same(got, np.full_like(p.ref, 1, shape=shape))
    sq = sa.squeeze(p.x)
    _same(sq, np.squeeze(p.ref))
    if sq.size:
        assert np.shares_memory(np.asarray(sq), p.base_np)  # a view, as squeeze(axis=) is


@SETTINGS
@given(data=st.data())
def test_take_one_integer_as_numpy(data):
    p = data.draw(views(st.sampled_from(dtype_list())))
    nd = p.ref.ndim
    if nd == 0 or 0 in p.ref.shape:
        return
    axis = data.draw(st.integers(-nd, nd - 1))
    n = p.ref.shape[axis]
    i = data.draw(st.integers(-n, n - 1))
    index = data.draw(st.sampled_from([i, np.int64(i), np.uint8(i % n)]))
    got = sa.take(p.x, index, axis=axis)
    _same(got, np.take(p.ref, index, axis=axis))
    if nd == 1:
        _same(sa.take(p.x, index), np.take(p.ref, index))
    with pytest.raises(IndexError, match=rf"take: index {n} is out of range for axis"):
        sa.take(p.x, n, axis=axis)


# -- Array.base -------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_base_is_the_buffer_as_an_array(data):
    p = data.draw(views(st.sampled_from(dtype_list())))
    assert p.base_x.base is None
    b = p.x.base
    if b is None:  # only the array that is exactly its buffer, row-major
        assert p.x.shape == p.x.buffer.shape and p.x.origin == 0 and p.x.is_c_contiguous
        return
    assert b.base is None and b.buffer is p.x.buffer and b.dtype == p.x.dtype
    assert np.array_equal(np.asarray(b), p.base_np.reshape(b.shape))
    assert not b.size or np.shares_memory(np.asarray(b), p.base_np)


def test_base_for_cubeds_broadcast_trick():
    """Cubed's test_broadcast_trick: one element's memory behind a broadcast (10, 10) array."""
    b = sa.broadcast_to(sa.ones((), dtype=sa.int8), (10, 10))
    assert b.nbytes == 100 and b.base.nbytes == 1
    assert sa.zeros(3).base is None and sa.arange(6)[::2].base.shape == (6,)


# -- signatures and bad input -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "counterpart"),
    [
        ("nansum", "sum"),
        ("nanprod", "prod"),
        ("nanmax", "max"),
        ("nanmin", "min"),
        ("nanargmax", "argmax"),
        ("nanargmin", "argmin"),
        ("nancumsum", "cumulative_sum"),
        ("nanvar", "var"),
        ("nanstd", "std"),
        ("nanmean", "mean"),
    ],
)
def test_signatures_are_their_counterparts(name, counterpart):
    ours = {
        k: (p.kind, p.default) for k, p in inspect.signature(getattr(sa, name)).parameters.items()
    }
    theirs = inspect.signature(getattr(sa, counterpart)).parameters
    if name in ("nanvar", "nanstd"):  # NumPy's dtype too: xarray passes it (dtype=None)
        assert ours.pop("dtype") == (inspect.Parameter.KEYWORD_ONLY, None)
    assert ours == {k: (p.kind, p.default) for k, p in theirs.items()}


BAD = [
    (lambda: sa.nansum([1.0]), TypeError, r"nansum: x must be a stridedarray.Array, got list"),
    (lambda: sa.nanmax(sa.asarray([1j])), TypeError, r"nanmax: x must have a real-valued"),
    (lambda: sa.nanvar(sa.asarray([1j])), TypeError, r"nanvar: x must have a real floating"),
    (lambda: sa.nanmedian(sa.asarray([1j])), TypeError, r"nanmedian: x must have a real"),
    (lambda: sa.nanmean(sa.ones(2), axis=2), ValueError, r"nanmean: axis 2 is out of bounds"),
    (lambda: sa.nansum(sa.ones(2), keepdims="no"), TypeError, r"nansum: keepdims must be"),
    (lambda: sa.nansum(sa.ones(2), dtype="f8x"), TypeError, r"nansum: dtype must name"),
    (lambda: sa.nanmax(sa.zeros((0, 2)), axis=0), ValueError, r"nanmax: zero-size reduction"),
    (lambda: sa.nanargmax(sa.zeros(0)), ValueError, r"nanargmax: x of shape \(0,\) is empty"),
    (lambda: sa.nanargmin(sa.ones(2), axis=(0,)), TypeError, r"nanargmin: axis must be an integer"),
    (lambda: sa.nancumsum(sa.ones((2, 2))), ValueError, r"nancumsum: axis is required"),
    (
        lambda: sa.nanstd(sa.ones(2), correction=1, ddof=1),
        TypeError,
        r"nanstd: give correction or ddof",
    ),
    (
        lambda: sa.std(sa.ones(2), correction=0.0, ddof=1),
        TypeError,
        r"std: give correction or ddof",
    ),
    (lambda: sa.var(sa.ones(2), ddof=-1), ValueError, r"var: correction must be >= 0"),
    (lambda: sa.var(sa.ones(2), ddof="1"), TypeError, r"var: correction must be an int or float"),
    (
        lambda: sa.mean(sa.ones(2), dtype=sa.int64),
        TypeError,
        r"mean: dtype must be a floating-point dtype",
    ),
    (
        lambda: sa.mean(sa.asarray([1j]), dtype=sa.float64),
        TypeError,
        r"complex floating-point dtype",
    ),
    (
        lambda: sa.nanmean(sa.ones(2), dtype=sa.int8),
        TypeError,
        r"nanmean: dtype must be a floating",
    ),
    (
        lambda: sa.nanvar(sa.ones(2), dtype=sa.complex64),
        TypeError,
        r"nanvar: dtype must be a real floating-point",
    ),
    (lambda: sa.cumsum(sa.ones(2), 1), ValueError, r"cumsum: axis 1 is out of bounds"),
    (lambda: sa.cumsum([1]), TypeError, r"cumsum: x must be a stridedarray.Array"),
    (lambda: sa.pad(sa.ones(2), 1, "median"), ValueError, r"pad: mode must be one of"),
    (lambda: sa.take(sa.ones((2, 2)), 0), ValueError, r"take: axis is required"),
    (lambda: sa.take(sa.ones(2), True), TypeError, r"take: indices must be an integer, not"),
    (lambda: sa.take(sa.ones(2), 1.0), TypeError, r"take: indices must be an integer Array"),
    (lambda: sa.pad(sa.ones(2), -1), ValueError, r"pad: pad_width must not be negative"),
    (lambda: sa.pad(sa.ones(2), 1.5), TypeError, r"pad: pad_width must be integers"),
    (
        lambda: sa.pad(sa.ones((2, 2)), ((1, 1),) * 3),
        ValueError,
        r"one pair for each of x's 2 axes",
    ),
    (
        lambda: sa.pad(sa.ones(2, dtype=sa.int64), 1, constant_values=0.5),
        TypeError,
        r"cannot fill an array of dtype int64",
    ),
    (
        lambda: sa.pad(sa.ones(2, dtype=sa.uint8), 1, constant_values=256),
        OverflowError,
        r"out of range for uint8",
    ),
    (lambda: sa.pad(sa.zeros(0), 1, "wrap"), ValueError, r"cannot extend axis 0 of extent 0"),
    (
        lambda: sa.full_like(sa.ones(2), 1, shape=(-1,)),
        ValueError,
        r"full_like: shape must not contain negative",
    ),
    (lambda: sa.squeeze(sa.ones((1, 2)), axis=1), ValueError, r"cannot squeeze axis 1"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_refuses_bad_input(i):
    call, exc, match = BAD[i]
    with pytest.raises(exc, match=match):
        call()


def test_inputs_unchanged():
    base = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
    x = sa.asarray(base.copy())[:, ::-1]
    before = np.asarray(x).copy()
    for f in (sa.nansum, sa.nanmean, sa.nanmedian, sa.nanvar, sa.nanmax):
        f(x, axis=1)
    sa.nancumsum(x, axis=1)
    sa.pad(x, 1, "reflect")
    np.testing.assert_array_equal(np.asarray(x), before)


# -- median, quantile, nanquantile, cumprod ----------------------------------------------------


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["median", "quantile", "nanquantile"]))
def test_median_and_quantiles_as_numpy(data, name):
    p = data.draw(nan_views(REAL))
    axis, keep = _axes(data, p.ref.ndim), data.draw(st.booleans())
    ref = p.ref if p.x.dtype.kind == "f" else p.ref.astype(np.float64)
    if name == "median":
        args, kwargs = (), {"axis": axis, "keepdims": keep}
    else:
        q = data.draw(st.sampled_from([0.0, 0.25, 1.0, [0.1, 0.5, 0.9], []]))
        method = data.draw(st.sampled_from(["linear", "lower", "nearest", "hazen"]))
        args = (np.asarray(q, dtype=ref.dtype),)
        kwargs = {"axis": axis, "keepdims": keep, "method": method}
    got = _quiet(getattr(sa, name), p.x, *args, **kwargs)
    reduced = range(ref.ndim) if axis is None else [a % ref.ndim for a in np.atleast_1d(axis)]
    if ref.size == 0 and axis != ():
        # empty slices: NaN, or no slice: empty (NumPy's quantile raises on the first, its
        # nanquantile drops q's axis, its median fails on some shapes of both), in the shape
        # of the reduction, q's axes first
        left = [
            1 if a in reduced else n for a, n in enumerate(ref.shape) if keep or a not in reduced
        ]
        shape = tuple(np.shape(args[0]) if args else ()) + tuple(left)
        assert got.shape == shape and np.isnan(np.asarray(got)).all()
        return
    if ref.size == 0 and axis == ():  # nothing reduced: x itself (NumPy fails on it)
        assert got.size == 0
        return
    expected = _numpy(getattr(np, name), ref, *args, **kwargs)
    _same(got, np.asarray(expected, dtype=ref.dtype))


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: sa.quantile(sa.ones(3), 1.5), ValueError, r"quantile: q must lie in \[0, 1\]"),
        (lambda: sa.quantile(sa.ones(3), "a"), TypeError, "quantile: q must be a real number"),
        (lambda: sa.quantile(sa.ones(3), 0.5, method="x"), ValueError, "method must be one of"),
        (lambda: sa.nanquantile(sa.asarray([1j]), 0.5), TypeError, "nanquantile: x must"),
        (lambda: sa.median(sa.asarray([1j])), TypeError, "median: x must have a real"),
    ],
)
def test_median_quantile_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# -- gradient ------------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data(), edge_order=st.sampled_from([1, 2]))
def test_gradient_as_numpy(data, edge_order):
    p = data.draw(views(st.sampled_from(dtype_list("numeric"))))
    nd = p.ref.ndim
    axis = data.draw(
        st.none()
        | st.integers(-nd, nd - 1)
        | st.lists(st.integers(0, nd - 1), unique=True, min_size=1, max_size=nd).map(tuple)
        if nd
        else st.none()
    )
    axes = tuple(range(nd)) if axis is None else (axis % nd,) if isinstance(axis, int) else axis
    spacing_kind = data.draw(st.sampled_from(["none", "scalar", "each"]))
    ours_args, np_args = [], []
    if spacing_kind == "scalar":
        h = data.draw(st.floats(0.25, 4.0))
        ours_args, np_args = [h], [h]
    elif spacing_kind == "each":
        for ax in axes:
            if data.draw(st.booleans()):  # coordinates: increasing, uneven
                n = p.ref.shape[ax]
                steps = data.draw(st.lists(st.floats(0.5, 2.0), min_size=n, max_size=n))
                coords = np.cumsum(np.asarray(steps, dtype=np.float64))
                ours_args.append(sa.asarray(coords)[::-1][::-1])  # a view of it
                np_args.append(coords)
            else:
                ours_args.append(2)
                np_args.append(2)
    if any(p.ref.shape[ax] < edge_order + 1 for ax in axes):
        with pytest.raises(ValueError, match=r"gradient: axis \d+ has \d+ samples"):
            sa.gradient(p.x, *ours_args, axis=axis, edge_order=edge_order)
        return
    got = _quiet(sa.gradient, p.x, *ours_args, axis=axis, edge_order=edge_order)
    expected = _numpy(np.gradient, p.ref, *np_args, axis=axis, edge_order=edge_order)
    if isinstance(expected, np.ndarray):
        _same(got, expected)
    else:
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _same(g, e)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: sa.gradient(sa.asarray([True, False])), TypeError, "gradient: f must have a"),
        (lambda: sa.gradient([1.0, 2.0]), TypeError, "gradient: f must be a stridedarray"),
        (lambda: sa.gradient(sa.ones(3), edge_order=3), ValueError, "edge_order must be 1 or 2"),
        (lambda: sa.gradient(sa.ones(3), edge_order=1.0), TypeError, "edge_order must be an"),
        (lambda: sa.gradient(sa.ones((3, 3)), 1, 2, 3), TypeError, "one spacing for each of"),
        (
            lambda: sa.gradient(sa.ones(3), sa.ones(2)),
            ValueError,
            r"varargs\[0\] must be a number or the 3 coordinates",
        ),
        (lambda: sa.gradient(sa.ones(3), "a"), ValueError, r"varargs\[0\] must be a number"),
        (lambda: sa.gradient(sa.ones(3), axis=1), ValueError, "axis 1 is out of bounds"),
        (lambda: sa.gradient(sa.ones((2, 2)), axis=(0, 0)), ValueError, "repeated axes"),
        (lambda: sa.gradient(sa.ones(2), edge_order=2), ValueError, "axis 0 has 2 samples"),
    ],
)
def test_gradient_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
