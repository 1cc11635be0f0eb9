"""The PyData client libraries on stridedarray arrays, each checked against the same calls on
NumPy arrays holding the same values: pandas, matplotlib (Agg pixels), xarray, pydata/sparse,
and DLPack export to PyTorch and JAX (scikit-learn and SciPy: test_clients_learn.py).

Each library is skipped when it is not installed (`pip install -e ".[test,clients]"` brings all
but PyTorch and JAX). Our arrays are mostly reversed, step or transposed views, so the clients
meet real strides.

PyTorch is never handed a negative-stride DLPack tensor in this process: torch.from_dlpack
(also torch.asarray, torch.tensor, torch.as_tensor) aborts the interpreter on one (PyTorch's
bug, not catchable). Our negative-stride export is checked with NumPy as the consumer.
"""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
from clients_common import BASE, VIEWS, check_same, pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import views

import stridedarray as sa


# -- pandas -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pd():
    return pytest.importorskip("pandas")


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("kind", BASE)
def test_pandas_dataframe_and_series_from_views(pd, kind, view):
    x, n = pair(kind, view)
    pd.testing.assert_frame_equal(pd.DataFrame(x), pd.DataFrame(n))
    pd.testing.assert_frame_equal(
        pd.DataFrame(x, columns=list("pqrs")[: n.shape[1]]),
        pd.DataFrame(n, columns=list("pqrs")[: n.shape[1]]),
    )
    pd.testing.assert_series_equal(pd.Series(x[0]), pd.Series(n[0]))
    pd.testing.assert_series_equal(pd.Series(x[:, -1], name="c"), pd.Series(n[:, -1], name="c"))
    pd.testing.assert_index_equal(pd.Index(x[-1]), pd.Index(n[-1]))


def test_pandas_copy_true_detaches_the_series(pd):
    x, n = pair("float64", "reversed")
    s = pd.Series(x[:, 0], copy=True)
    x[0, 0] = 1e6  # pandas holds NumPy memory of its own: a later write does not reach it
    pd.testing.assert_series_equal(s, pd.Series(n[:, 0]))
    assert type(s.to_numpy()) is np.ndarray


def test_pandas_dict_of_arrays(pd):
    cols = {k: pair(k, "reversed") for k in BASE}
    got = pd.DataFrame({k: x[:, 1] for k, (x, _) in cols.items()})
    want = pd.DataFrame({k: n[:, 1] for k, (_, n) in cols.items()})
    pd.testing.assert_frame_equal(got, want)
    assert [str(d) for d in got.dtypes] == list(BASE)


def _assigned(pd, f, b, c):
    df = pd.DataFrame({"a": [1, 2, 3]})
    df["f"] = f[:, 0][::-1]
    df["b"] = b[:, 2]
    df["c"] = c[:, 3]
    df[["p", "q"]] = f[::-1, 1:3]
    return df.assign(r=f[:, 1][::-1])


def test_pandas_column_assignment(pd):
    pairs = [pair(k) for k in ("float64", "bool", "complex128")]
    pd.testing.assert_frame_equal(
        _assigned(pd, *(x for x, _ in pairs)), _assigned(pd, *(n for _, n in pairs))
    )


def test_pandas_series_arithmetic_with_our_array(pd):
    x, n = pair("float64", "reversed")
    s = pd.Series(BASE["float64"][0])
    pd.testing.assert_series_equal(s + x[0], s + n[0])
    pd.testing.assert_series_equal(s * x[1], s * n[1])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(views(dtype=st.sampled_from([sa.int64, sa.float64, sa.bool, sa.uint8]), max_dims=1))
def test_pandas_isin_our_array_matches_numpy(pd, v):
    """isin takes list(values): the elements iteration yields must hash as their values (a
    0-d view did not, and pandas' hash table then found only the values that hash to 0)."""
    if v.ref.ndim != 1:
        return
    for comps in ([0.0, 6.0, 12.0, 1.0, 255.0], [0, 1, 2, 3, 7], [True, False]):
        s = pd.Series(comps)
        pd.testing.assert_series_equal(s.isin(v.x), s.isin(v.ref))
        pd.testing.assert_index_equal(
            pd.Index(comps)[pd.Index(comps).isin(v.x)], pd.Index(comps)[pd.Index(comps).isin(v.ref)]
        )


def test_pandas_isin_the_reported_case(pd):
    s = pd.Series([0.0, 6.0, 12.0, 18.0])
    assert s.isin(sa.asarray([0.0, 6.0])).tolist() == [True, True, False, False]


# -- matplotlib ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def render():
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    def draw(plot, xp):
        """RGBA pixels of a figure drawn by `plot(ax, xp)`; no pyplot, no global backend."""
        fig = Figure(figsize=(2.0, 1.6), dpi=40)
        canvas = FigureCanvasAgg(fig)
        plot(fig.add_subplot(), xp)
        canvas.draw()
        return np.asarray(canvas.buffer_rgba()).copy()

    return draw


def _t(xp):  # the data every plot draws from, in namespace xp
    return xp.asarray(np.linspace(0.0, 6.0, 24)), xp.asarray(np.sin(np.linspace(0, 6, 24)))


PLOTS = {
    "plot": lambda ax, xp: ax.plot(_t(xp)[0], _t(xp)[1][::-1], "o-"),
    "plot 2-D columns": lambda ax, xp: ax.plot(xp.asarray(BASE["float64"].copy()).T[::-1]),
    "scatter": lambda ax, xp: ax.scatter(
        _t(xp)[0][::2], _t(xp)[1][::-2], c=_t(xp)[1][::2], s=_t(xp)[0][::2] * 10
    ),
    "hist": lambda ax, xp: ax.hist(_t(xp)[1][::-1], bins=7, weights=_t(xp)[0][::-1]),
    "errorbar": lambda ax, xp: ax.errorbar(
        _t(xp)[0][::3], _t(xp)[1][::3], yerr=_t(xp)[0][::3] / 20, xerr=abs(_t(xp)[1][::-3]) / 5
    ),
    "imshow": lambda ax, xp: ax.imshow(xp.asarray(BASE["float64"].copy())[::-1, ::-1]),
    "fill_between": lambda ax, xp: ax.fill_between(_t(xp)[0], _t(xp)[1], _t(xp)[1][::-1]),
    "contourf": lambda ax, xp: ax.contourf(xp.asarray(BASE["float64"].copy())[:, ::-1]),
    "bar": lambda ax, xp: ax.bar(_t(xp)[0][:4], _t(xp)[1][:4]),  # int bottom + float heights
}


@pytest.mark.parametrize("plot", PLOTS.values(), ids=PLOTS.keys())
def test_matplotlib_agg_pixels_equal_numpy(render, plot):
    want = render(plot, np)
    assert not np.array_equal(want, render(lambda ax, xp: None, np)), "nothing was drawn"
    np.testing.assert_array_equal(render(plot, sa), want)


def test_matplotlib_hist_counts():
    Figure = pytest.importorskip("matplotlib.figure").Figure
    got = Figure().add_subplot().hist(_t(sa)[1][::-1], bins=5)
    want = Figure().add_subplot().hist(_t(np)[1][::-1], bins=5)
    check_same(got[:2], want[:2], array_type=None)


# -- xarray -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xr():
    return pytest.importorskip("xarray")


def _das(xr, kind="float64", view="reversed"):
    x, n = pair(kind, view)
    return xr.DataArray(x, dims=("a", "b")), xr.DataArray(n, dims=("a", "b"))


def check_xr(xr, got, want, exact=False):
    """An xarray result on our data equals the NumPy-backed one and still holds our arrays."""
    for v in got.data_vars.values() if isinstance(got, xr.Dataset) else [got]:
        assert isinstance(v.data, sa.Array), type(v.data)
    g = got.as_numpy()
    if exact:
        xr.testing.assert_identical(g, want)
    else:
        xr.testing.assert_allclose(g, want, rtol=1e-12)
    for name in got.data_vars if isinstance(got, xr.Dataset) else [None]:
        gv, wv = (got, want) if name is None else (got[name], want[name])
        assert gv.dtype == wv.dtype


XR_BINARY = {  # f(da, other_numpy_data, numpy_dataarray_of_the_same_kind)
    "da + ndarray": lambda da, n, dn: da + n,
    "ndarray * da": lambda da, n, dn: n * da,
    "da - numpy DataArray": lambda da, n, dn: da - dn,
    "da / 2": lambda da, n, dn: da / 2,
    "2.5 ** da": lambda da, n, dn: 2.5**da,
    "-da + 1": lambda da, n, dn: -da + 1,
    "da > ndarray": lambda da, n, dn: da > n,
    "abs(da)": lambda da, n, dn: abs(da),
    "np.sin(da)": lambda da, n, dn: np.sin(da),
}


@pytest.mark.parametrize("op", XR_BINARY.values(), ids=XR_BINARY.keys())
def test_xarray_arithmetic_with_numpy_and_python_operands(xr, op):
    da, dn = _das(xr)
    other = BASE["float64"][:, ::-1].copy()
    check_xr(xr, op(da, other, dn), op(dn, other, dn))


XR_REDUCE = {
    "sum": lambda d: d.sum(),
    "sum a": lambda d: d.sum("a"),
    "mean b": lambda d: d.mean("b"),
    "std a": lambda d: d.std("a"),
    "var ddof": lambda d: d.var("b", ddof=1),
    "min": lambda d: d.min("a"),
    "max": lambda d: d.max(),
    "prod": lambda d: d.prod("b"),
    "median": lambda d: d.median("a"),
    "cumsum": lambda d: d.cumsum("b"),
    "argmax": lambda d: d.argmax("b"),
    "argmin": lambda d: d.argmin("a"),
    "any": lambda d: (d > 0).any("a"),
    "all": lambda d: (d > -5).all("b"),
    "count": lambda d: d.count("a"),  # sums a bool mask
}


@pytest.mark.parametrize("reduce", XR_REDUCE.values(), ids=XR_REDUCE.keys())
def test_xarray_reductions(xr, reduce):
    da, dn = _das(xr)
    check_xr(xr, reduce(da), reduce(dn))


XR_SELECT = {
    "isel slices": lambda d, xr: d.isel(a=slice(None, None, -1), b=slice(1, None, 2)),
    "isel int": lambda d, xr: d.isel(a=1),
    "isel list": lambda d, xr: d.isel(b=[0, 2]),  # xarray indexes with NumPy int arrays
    "transpose": lambda d, xr: d.transpose("b", "a"),
    ".T then isel": lambda d, xr: d.T.isel(b=-1),
    "concat": lambda d, xr: xr.concat([d, d[::-1]], dim="a"),
    "concat new dim": lambda d, xr: xr.concat([d, 2 * d], dim="c"),
    "where with array": lambda d, xr: d.where(d > 0, d * 0),
    "xr.where": lambda d, xr: xr.where(d > 0, d, -d),
    "assign_coords, sel slice": lambda d, xr: d.assign_coords(b=np.arange(4.0)).sel(
        b=slice(1.0, 3.0)
    ),
    "sel list": lambda d, xr: d.assign_coords(b=np.arange(4.0)).sel(b=[1.0, 3.0]),
}


@pytest.mark.parametrize("select", XR_SELECT.values(), ids=XR_SELECT.keys())
def test_xarray_selection_transpose_concat(xr, select):
    da, dn = _das(xr)
    check_xr(xr, select(da, xr), select(dn, xr), exact=True)


XR_MISSING = {  # xarray promotes with maybe_promote, which takes only NumPy dtypes
    "where(cond)": lambda d: d.where(abs(d) > 0.5),
    "where(cond, scalar)": lambda d: d.where(abs(d) > 0.5, 0.5),
    "where then fillna": lambda d: d.where(abs(d) > 0.5).fillna(-1),
    "reindex with new labels": lambda d: d.assign_coords(a=[0, 1, 2]).reindex(a=[2, 0, 7]),
}


@pytest.mark.parametrize("kind", ["float64", "float32", "int64", "bool", "complex128"])
@pytest.mark.parametrize("op", XR_MISSING.values(), ids=XR_MISSING.keys())
def test_xarray_missing_values_promote_as_for_numpy(xr, op, kind):
    da, dn = _das(xr, kind)
    check_xr(xr, op(da), op(dn), exact=True)


XR_DOT = {
    "matrix, vector": lambda xr, d, v, m: xr.dot(d, v),
    "matrix, matrix.T": lambda xr, d, v, m: xr.dot(d, d.T),
    "matrix, matrix over b": lambda xr, d, v, m: xr.dot(d, m),
    "vector, matrix": lambda xr, d, v, m: xr.dot(v, d),
    "operator @": lambda xr, d, v, m: d @ m,
    "DataArray.dot": lambda xr, d, v, m: v.dot(d),
}


@pytest.mark.parametrize("dot", XR_DOT.values(), ids=XR_DOT.keys())
def test_xarray_dot(xr, dot):
    # xarray contracts with opt_einsum when it is installed, else with xp.einsum, which
    # the standard (and so stridedarray) does not have.
    pytest.importorskip("opt_einsum")

    def build(xp):
        base = xp.asarray(BASE["float64"].copy())
        d = xr.DataArray(base[::-1], dims=("a", "b"))
        v = xr.DataArray(base[1][::-1], dims="b")
        m = xr.DataArray(xp.reshape(xp.asarray(np.arange(8.0)), (4, 2))[::-1], dims=("b", "c"))
        return dot(xr, d, v, m)

    check_xr(xr, build(sa), build(np))


def test_xarray_mixes_numpy_backed_data_into_namespace_calls(xr):
    # xarray hands the NumPy data of the other operand to our namespace functions, which take
    # ndarrays (docs/interop.md, "NumPy arrays as arguments").
    pytest.importorskip("opt_einsum")
    da, dn = _das(xr)
    m = xr.DataArray(BASE["float64"].T[::-1].copy(), dims=("b", "c"))
    check_xr(xr, xr.dot(da, m), xr.dot(dn, m))
    check_xr(xr, xr.where(da > 0, da, dn.data * 2), xr.where(dn > 0, dn, dn.data * 2), exact=True)


def _datasets(xr):
    out = []
    for xp in (sa, np):
        v = xp.asarray(BASE["float64"].copy())[::-1]
        w = xp.asarray(np.asarray([3, 1, 4, 1], dtype=np.int32))[::-1]
        out.append(
            xr.Dataset(
                {"v": (("a", "b"), v), "w": ("b", w)},
                coords={"b": np.arange(4.0)},
                attrs={"title": "t"},
            )
        )
    return out


def test_xarray_dataset_round_trips(xr):
    ds, dn = _datasets(xr)
    check_xr(xr, ds, dn, exact=True)
    check_xr(xr, pickle.loads(pickle.dumps(ds)), dn, exact=True)
    back = xr.Dataset.from_dict(ds.to_dict())
    xr.testing.assert_identical(back, dn)
    xr.testing.assert_identical(
        xr.Dataset.from_dataframe(ds.to_dataframe()), xr.Dataset.from_dataframe(dn.to_dataframe())
    )
    check_xr(
        xr, ds.isel(b=slice(None, None, -1)).sum("b"), dn.isel(b=slice(None, None, -1)).sum("b")
    )


def test_xarray_dataset_netcdf_round_trip(xr):
    pytest.importorskip("scipy")  # xarray's netCDF-3 engine, writing to bytes
    ds, dn = _datasets(xr)
    raw = ds.to_netcdf()
    assert raw == dn.to_netcdf()
    xr.testing.assert_identical(xr.open_dataset(io.BytesIO(bytes(raw))).load(), dn)


# -- pydata/sparse ------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["coo", "gcxs"])
@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("kind", ["float64", "int64", "bool", "complex128"])
def test_sparse_asarray(kind, view, fmt):
    sparse = pytest.importorskip("sparse")
    base = np.where(BASE["float64"] > 0.3, BASE[kind], 0).astype(BASE[kind].dtype)
    x, n = VIEWS[view](sa.asarray(base.copy())), VIEWS[view](base)  # with a few zeros
    got, want = sparse.asarray(x, format=fmt), sparse.asarray(n, format=fmt)
    assert type(got) is type(want) and got.dtype == want.dtype and got.nnz == want.nnz
    np.testing.assert_array_equal(got.todense(), n)


# -- DLPack: PyTorch and JAX --------------------------------------------------------------------
POSITIVE_VIEWS = {k: v for k, v in VIEWS.items() if "reversed" not in k}


def _torch_safe(x: sa.Array) -> sa.Array:
    """Refuse (AssertionError, not an abort) to hand torch a negative-stride tensor."""
    assert min(x.strides, default=0) >= 0, "torch aborts on negative DLPack strides"
    return x


@pytest.mark.parametrize("view", POSITIVE_VIEWS)
@pytest.mark.parametrize("kind", BASE)
def test_torch_from_dlpack_shares_memory(kind, view):
    torch = pytest.importorskip("torch")
    x, n = pair(kind, view)
    for imported in (torch.from_dlpack(_torch_safe(x)), torch.asarray(_torch_safe(x))):
        assert tuple(imported.shape) == n.shape and imported.stride() == x.strides
        np.testing.assert_array_equal(imported.numpy(), n)
        assert imported.data_ptr() == np.asarray(x).ctypes.data
    imported[0, 0] = imported[1, 1]  # a write through torch is seen by our array
    assert x[0, 0] == x[1, 1]


@settings(max_examples=40, suppress_health_check=[HealthCheck.filter_too_much])
@given(pair=views(max_ops=4).filter(lambda p: min(p.x.strides, default=0) >= 0))
def test_torch_from_dlpack_random_positive_stride_views(pair):
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(_torch_safe(pair.x))
    assert tuple(t.shape) == pair.ref.shape
    np.testing.assert_array_equal(t.numpy(), pair.ref)


def test_negative_stride_export_with_numpy_as_consumer():
    x = sa.reshape(sa.arange(12.0), (3, 4))[::-1, ::-2]
    y = np.from_dlpack(x)
    assert y.strides == (-32, -16) and np.shares_memory(y, np.asarray(x))
    np.testing.assert_array_equal(y, np.arange(12.0).reshape(3, 4)[::-1, ::-2])


def test_torch_gets_a_negative_stride_view_through_a_copy():
    torch = pytest.importorskip("torch")
    x, n = pair("float64", "reversed both")
    c = sa.asarray(x, copy=True)  # row-major: the documented way past torch's bug
    np.testing.assert_array_equal(torch.from_dlpack(_torch_safe(c)).numpy(), n)


@settings(max_examples=40)
@given(pair=views(max_ops=4, broadcast=False))
def test_from_dlpack_of_torch_tensors_goes_through_torchs_exchange_table(pair):
    torch = pytest.importorskip("torch")
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        pytest.skip("this torch has no DLPack C exchange API")
    # torch's own tensor over NumPy memory (torch has no negative strides)
    t = torch.from_numpy(np.array(pair.ref, order="C", copy=True))
    if pair.ref.ndim >= 2:
        t = t.mT
    a = sa.from_dlpack(t)  # C: torch's managed_tensor_from_py_object_no_sync, our import
    assert a.shape == tuple(t.shape)
    if t.numel():  # strides where an index multiplies them
        moved = [k for k, n in enumerate(a.shape) if n > 1]
        assert [a.strides[k] for k in moved] == [t.stride()[k] for k in moved]
    np.testing.assert_array_equal(np.asarray(a), t.numpy())
    if t.numel():
        assert np.shares_memory(np.asarray(a), t.numpy())
    c = sa.from_dlpack(t, copy=True)
    assert t.numel() == 0 or not np.shares_memory(np.asarray(c), t.numpy())


@pytest.fixture(scope="module")
def jnp():
    pytest.importorskip("jax")
    import jax.numpy

    return jax.numpy


def _jax_or_error(jnp, obj):
    """JAX's import of `obj`, or the type of the exception JAX raises (it refuses
    non-compact strides)."""
    try:
        return jnp.from_dlpack(obj)
    except Exception as e:
        return type(e)


def _check_jax(jnp, x: sa.Array) -> None:
    """JAX imports `x` as it imports NumPy's view of the same memory and strides. JAX asks
    for an unversioned capsule, which cannot say "read-only": NumPy then refuses to export,
    we export a copy, so a read-only array is compared with NumPy's copy of it."""
    n = np.asarray(x)
    got, want = _jax_or_error(jnp, x), _jax_or_error(jnp, n if n.flags.writeable else n.copy())
    if isinstance(want, type):
        assert got is want
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("kind", BASE)
def test_jax_from_dlpack_matches_numpy(jnp, kind, view):
    x, n = pair(kind, view)
    if view in ("contiguous", "transposed"):
        np.testing.assert_array_equal(
            np.asarray(jnp.from_dlpack(x)), n.astype(jnp.from_dlpack(n).dtype)
        )
    _check_jax(jnp, x)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)), np.asarray(jnp.asarray(n)))


@settings(max_examples=40)
@given(pair=views(max_ops=4))
def test_jax_from_dlpack_random_views_match_numpy(jnp, pair):
    _check_jax(jnp, pair.x)
