"""The PyData client libraries on stridedarray arrays, each checked against the same calls on
NumPy arrays holding the same values: pandas, matplotlib (Agg pixels), xarray, scikit-learn
(with and without array-API dispatch), SciPy's array-API paths, pydata/sparse, and DLPack
export to PyTorch and JAX.

Each library is skipped when it is not installed (`pip install -e ".[test,clients]"` brings all
but PyTorch and JAX). Our arrays are mostly reversed, step or transposed views, so the clients
meet real strides. SciPy and scikit-learn dispatch need SCIPY_ARRAY_API=1 before SciPy is
imported; tests/conftest.py sets it. Strict xfails marked "open:" are uses that stridedarray
still refuses where the standard leaves the behaviour open.

PyTorch is never handed a negative-stride DLPack tensor in this process: torch.from_dlpack
(also torch.asarray, torch.tensor, torch.as_tensor) aborts the interpreter on one (PyTorch's
bug, not catchable). Our negative-stride export is checked with NumPy as the consumer.
"""

from __future__ import annotations

import io
import os
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import views

import stridedarray as sa

RNG = np.random.default_rng(20261101)
BASE = {  # (3, 4) NumPy bases of each kind; our arrays are built from copies of them
    "float64": RNG.standard_normal((3, 4)),
    "int64": RNG.integers(-50, 50, (3, 4)),
    "bool": RNG.integers(0, 2, (3, 4)).astype(bool),
    "complex128": RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4)),
    "float32": RNG.standard_normal((3, 4)).astype(np.float32),
}
VIEWS = {  # the same view of a (3, 4) base, for NumPy and for stridedarray
    "contiguous": lambda a: a,
    "reversed": lambda a: a[::-1],
    "reversed both": lambda a: a[::-1, ::-1],
    "step": lambda a: a[::2, 1::2],
    "transposed": lambda a: a.T,
}


def pair(kind: str = "float64", view: str = "contiguous") -> tuple[sa.Array, np.ndarray]:
    """(our view, the equal NumPy view) of BASE[kind]; ours has its own buffer."""
    n = BASE[kind]
    return VIEWS[view](sa.asarray(n.copy())), VIEWS[view](n)


def check_same(got, want, *, array_type: type | None = sa.Array) -> None:
    """`got` (from our arrays) equals `want` (from NumPy's) in dtype and values (integers and
    bools exactly), tuples item by item, and each array in `got` is an `array_type`."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            check_same(g, w, array_type=array_type)
        return
    if array_type is not None:
        assert type(got) is array_type, f"expected {array_type.__name__}, got {type(got)}"
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape
    if g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


# -- pandas -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pd():
    return pytest.importorskip("pandas")


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("kind", BASE)
def test_pandas_dataframe_and_series_from_views(pd, kind, view):
    x, n = pair(kind, view)
    pd.testing.assert_frame_equal(pd.DataFrame(x), pd.DataFrame(n))
    pd.testing.assert_frame_equal(pd.DataFrame(x, columns=list("pqrs")[:n.shape[1]]),
                                  pd.DataFrame(n, columns=list("pqrs")[:n.shape[1]]))
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
    pd.testing.assert_frame_equal(_assigned(pd, *(x for x, _ in pairs)),
                                  _assigned(pd, *(n for _, n in pairs)))


def test_pandas_series_arithmetic_with_our_array(pd):
    x, n = pair("float64", "reversed")
    s = pd.Series(BASE["float64"][0])
    pd.testing.assert_series_equal(s + x[0], s + n[0])
    pd.testing.assert_series_equal(s * x[1], s * n[1])


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
    "scatter": lambda ax, xp: ax.scatter(_t(xp)[0][::2], _t(xp)[1][::-2],
                                         c=_t(xp)[1][::2], s=_t(xp)[0][::2] * 10),
    "hist": lambda ax, xp: ax.hist(_t(xp)[1][::-1], bins=7, weights=_t(xp)[0][::-1]),
    "errorbar": lambda ax, xp: ax.errorbar(_t(xp)[0][::3], _t(xp)[1][::3],
                                           yerr=_t(xp)[0][::3] / 20, xerr=abs(_t(xp)[1][::-3]) / 5),
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
    for v in (got.data_vars.values() if isinstance(got, xr.Dataset) else [got]):
        assert isinstance(v.data, sa.Array), type(v.data)
    g = got.as_numpy()
    if exact:
        xr.testing.assert_identical(g, want)
    else:
        xr.testing.assert_allclose(g, want, rtol=1e-12)
    for name in (got.data_vars if isinstance(got, xr.Dataset) else [None]):
        gv, wv = (got, want) if name is None else (got[name], want[name])
        assert gv.dtype == wv.dtype


XR_BINARY = {  # f(da, other_numpy_data, numpy_dataarray_of_the_same_kind)
    "da + ndarray": lambda da, n, dn: da + n,
    "ndarray * da": lambda da, n, dn: n * da,
    "da - numpy DataArray": lambda da, n, dn: da - dn,
    "da / 2": lambda da, n, dn: da / 2,
    "2.5 ** da": lambda da, n, dn: 2.5 ** da,
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
    "sum": lambda d: d.sum(), "sum a": lambda d: d.sum("a"), "mean b": lambda d: d.mean("b"),
    "std a": lambda d: d.std("a"), "var ddof": lambda d: d.var("b", ddof=1),
    "min": lambda d: d.min("a"), "max": lambda d: d.max(), "prod": lambda d: d.prod("b"),
    "median": lambda d: d.median("a"), "cumsum": lambda d: d.cumsum("b"),
    "argmax": lambda d: d.argmax("b"), "argmin": lambda d: d.argmin("a"),
    "any": lambda d: (d > 0).any("a"), "all": lambda d: (d > -5).all("b"),
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
        b=slice(1.0, 3.0)),
    "sel list": lambda d, xr: d.assign_coords(b=np.arange(4.0)).sel(b=[1.0, 3.0]),
}


@pytest.mark.parametrize("select", XR_SELECT.values(), ids=XR_SELECT.keys())
def test_xarray_selection_transpose_concat(xr, select):
    da, dn = _das(xr)
    check_xr(xr, select(da, xr), select(dn, xr), exact=True)


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


def _datasets(xr):
    out = []
    for xp in (sa, np):
        v = xp.asarray(BASE["float64"].copy())[::-1]
        w = xp.asarray(np.asarray([3, 1, 4, 1], dtype=np.int32))[::-1]
        out.append(xr.Dataset({"v": (("a", "b"), v), "w": ("b", w)},
                              coords={"b": np.arange(4.0)}, attrs={"title": "t"}))
    return out


def test_xarray_dataset_round_trips(xr):
    ds, dn = _datasets(xr)
    check_xr(xr, ds, dn, exact=True)
    check_xr(xr, pickle.loads(pickle.dumps(ds)), dn, exact=True)
    back = xr.Dataset.from_dict(ds.to_dict())
    xr.testing.assert_identical(back, dn)
    xr.testing.assert_identical(xr.Dataset.from_dataframe(ds.to_dataframe()),
                                xr.Dataset.from_dataframe(dn.to_dataframe()))
    check_xr(xr, ds.isel(b=slice(None, None, -1)).sum("b"), dn.isel(b=slice(None, None, -1))
             .sum("b"))


def test_xarray_dataset_netcdf_round_trip(xr):
    pytest.importorskip("scipy")  # xarray's netCDF-3 engine, writing to bytes
    ds, dn = _datasets(xr)
    raw = ds.to_netcdf()
    assert raw == dn.to_netcdf()
    xr.testing.assert_identical(xr.open_dataset(io.BytesIO(bytes(raw))).load(), dn)


# -- scikit-learn -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sklearn():
    return pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def array_api_env():
    """SciPy with array-API support: SCIPY_ARRAY_API=1 must be set before SciPy is imported."""
    pytest.importorskip("scipy")
    if os.environ.get("SCIPY_ARRAY_API") != "1":
        pytest.skip("SCIPY_ARRAY_API is not 1 (tests/conftest.py sets it unless it is set)")
    from scipy.special import logsumexp

    if not isinstance(logsumexp(sa.ones(2)), sa.Array):
        pytest.fail("SciPy was imported before SCIPY_ARRAY_API=1 was set, so its array-API "
                    "support is off; set SCIPY_ARRAY_API=1 in the environment")


def _learn_data():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((40, 6))
    y = X @ rng.standard_normal(6) + 0.1 * rng.standard_normal(40)
    c = (y > np.median(y)).astype(np.int64)
    return X, y, c


def _learn_args(xp):
    """(X, y, labels) in namespace xp; ours are reversed / step views of fresh buffers."""
    X, y, c = _learn_data()
    if xp is np:
        return X[::-1, ::-1], y[::-1], c[::-1]
    return (sa.asarray(X.copy())[::-1, ::-1], sa.asarray(y.copy())[::-1],
            sa.asarray(c.copy())[::-1])


def _mod(name: str):
    """A client module, imported when a test runs (the test has skipped if it is absent)."""
    import importlib

    return importlib.import_module(name)


def _lm():
    return _mod("sklearn.linear_model")


def _pre():
    return _mod("sklearn.preprocessing")


def _metrics():
    return _mod("sklearn.metrics")


ESTIMATORS = {
    "Ridge": lambda X, y, c: _lm().Ridge(alpha=0.5, solver="svd").fit(X, y).predict(X),
    "Ridge coef": lambda X, y, c: _lm().Ridge(alpha=2.0, solver="svd").fit(X, y).coef_,
    "PCA": lambda X, y, c: abs(_mod("sklearn.decomposition").PCA(3, svd_solver="full")
                               .fit_transform(X)),
    "StandardScaler": lambda X, y, c: _pre().StandardScaler().fit_transform(X[:, ::2]),
    "MinMaxScaler": lambda X, y, c: _pre().MinMaxScaler().fit_transform(X),
    "Normalizer": lambda X, y, c: _pre().Normalizer().fit_transform(X.T),
    "LabelEncoder": lambda X, y, c: _pre().LabelEncoder().fit_transform(c[::2]),
    "LDA": lambda X, y, c: _mod("sklearn.discriminant_analysis")
    .LinearDiscriminantAnalysis().fit(X, c).predict_proba(X),
    "LogisticRegression": lambda X, y, c: _lm().LogisticRegression().fit(X, c)
    .predict_proba(X),
    "RidgeClassifier": lambda X, y, c: _lm().RidgeClassifier(solver="svd").fit(X, c)
    .predict(X),
    "GaussianNB": lambda X, y, c: _mod("sklearn.naive_bayes").GaussianNB().fit(X, c)
    .predict_proba(X),
    "pairwise_distances": lambda X, y, c: _metrics().pairwise_distances(X[:5], X[5:9]),
    "confusion_matrix": lambda X, y, c: _metrics().confusion_matrix(c, c[::-1]),
    "accuracy, f1, r2, mse": lambda X, y, c: (
        _metrics().accuracy_score(c, c[::-1]), _metrics().f1_score(c, c[::-1]),
        _metrics().r2_score(y, y[::-1]), _metrics().mean_squared_error(y, y * 0.5)),
    "train_test_split": lambda X, y, c: tuple(
        _mod("sklearn.model_selection").train_test_split(X, y, random_state=0)),
}


def _check_learn(got, want, array_type):
    if isinstance(want, tuple) and not isinstance(want[0], np.ndarray):  # Python floats
        np.testing.assert_allclose(got, want, rtol=1e-10)
    else:
        check_same(got, want, array_type=array_type)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_sklearn_without_dispatch_gives_numpy_results(sklearn, name):
    # scikit-learn's NumPy path converts inputs with np.asarray; splitting keeps the type.
    array_type = None if name == "train_test_split" else np.ndarray
    with sklearn.config_context(array_api_dispatch=False):
        got = ESTIMATORS[name](*_learn_args(sa))
    _check_learn(got, ESTIMATORS[name](*_learn_args(np)), array_type)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_sklearn_with_array_api_dispatch_gives_our_arrays(sklearn, array_api_env, name):
    with sklearn.config_context(array_api_dispatch=True):
        got = ESTIMATORS[name](*_learn_args(sa))
        want = ESTIMATORS[name](*_learn_args(np))
    _check_learn(got, want, sa.Array)


def test_sklearn_cross_validation_without_dispatch(sklearn):
    # The splits index X with NumPy integer arrays.
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_score

    got = cross_val_score(Ridge(), *_learn_args(sa)[:2], cv=3)
    np.testing.assert_allclose(got, cross_val_score(Ridge(), *_learn_args(np)[:2], cv=3))


def test_sklearn_cross_validation_with_dispatch(sklearn, array_api_env):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_score

    with sklearn.config_context(array_api_dispatch=True):
        got = cross_val_score(Ridge(solver="svd"), *_learn_args(sa)[:2], cv=3)
        want = cross_val_score(Ridge(solver="svd"), *_learn_args(np)[:2], cv=3)
    np.testing.assert_allclose(got, want, rtol=1e-10)


# -- SciPy --------------------------------------------------------------------------------------
def _scipy_args(xp):
    rng = np.random.default_rng(11)
    a, b, p = rng.standard_normal((6, 5)), rng.standard_normal(16), rng.uniform(0.1, 3.0, 8)
    if xp is np:
        return a[::-1], b[::-1], p[::-1]
    return sa.asarray(a.copy())[::-1], sa.asarray(b.copy())[::-1], sa.asarray(p.copy())[::-1]


def _sp(module: str):
    return _mod(f"scipy.{module}")


def _ns(like):
    return sa if isinstance(like, sa.Array) else np


def _int(like, values):
    return _ns(like).asarray(np.asarray(values, dtype=np.int64))


SCIPY = {
    "special.erf": lambda a, b, p: _sp("special").erf(a[:, ::2]),
    "special.gammaln": lambda a, b, p: _sp("special").gammaln(p),
    "special.expit": lambda a, b, p: _sp("special").expit(a.T),
    "special.softmax": lambda a, b, p: _sp("special").softmax(a, axis=1),
    "special.log_softmax": lambda a, b, p: _sp("special").log_softmax(a, axis=0),
    "special.logsumexp": lambda a, b, p: _sp("special").logsumexp(a, b=a * a, axis=0),
    "special.xlogy": lambda a, b, p: _sp("special").xlogy(p, p[::-1]),
    "special.entr": lambda a, b, p: _sp("special").entr(p),
    "special.ndtri": lambda a, b, p: _sp("special").ndtri(p / 4),
    "special.betainc": lambda a, b, p: _sp("special").betainc(p, p[::-1], p / 4),
    "stats.zscore": lambda a, b, p: _sp("stats").zscore(a, axis=0),
    "stats.skew, kurtosis": lambda a, b, p: (_sp("stats").skew(b), _sp("stats").kurtosis(b)),
    "stats.moment": lambda a, b, p: _sp("stats").moment(a, order=3, axis=1),
    "stats.gmean, hmean, pmean": lambda a, b, p: (
        _sp("stats").gmean(p), _sp("stats").hmean(p), _sp("stats").pmean(p, 2.5)),
    "stats.variation, sem": lambda a, b, p: (_sp("stats").variation(p),
                                            _sp("stats").sem(a, axis=0)),
    "stats.ttest_ind": lambda a, b, p: tuple(_sp("stats").ttest_ind(b[:8], b[8:])),
    "stats.pearsonr": lambda a, b, p: tuple(_sp("stats").pearsonr(b[:8], p)),
    "stats.entropy": lambda a, b, p: _sp("stats").entropy(p),
    "stats.rankdata": lambda a, b, p: _sp("stats").rankdata(b),
    "stats.quantile": lambda a, b, p: _sp("stats").quantile(b, 0.3),
    "signal.convolve": lambda a, b, p: _sp("signal").convolve(b, p),
    "signal.fftconvolve": lambda a, b, p: _sp("signal").fftconvolve(b, p[::2]),
    "signal.correlate": lambda a, b, p: _sp("signal").correlate(b, p),
    "signal.lfilter": lambda a, b, p: _sp("signal").lfilter(p[:3], p[3:5], b),
    "signal.filtfilt": lambda a, b, p: _sp("signal").filtfilt(p[:3], p[3:6], b),
    "signal.lfiltic": lambda a, b, p: _sp("signal").lfiltic(p[:3], p[3:5], b[:2]),
    "signal.detrend": lambda a, b, p: _sp("signal").detrend(b),
    "signal.hilbert": lambda a, b, p: _sp("signal").hilbert(b),
    "signal.savgol_filter": lambda a, b, p: _sp("signal").savgol_filter(b, 5, 2),
    "signal.freqz": lambda a, b, p: _sp("signal").freqz(p[:3], p[3:5], worN=8),
    "fft.fft": lambda a, b, p: _sp("fft").fft(b),
    "fft.rfft, irfft": lambda a, b, p: _sp("fft").irfft(_sp("fft").rfft(b[::2])),
    "fft.fft2": lambda a, b, p: _sp("fft").fft2(a.T),
    "fft.ifftn": lambda a, b, p: _sp("fft").ifftn(a),
    "fft.dct, idct": lambda a, b, p: (_sp("fft").dct(b), _sp("fft").idct(b, type=2)),
    "fft.fftshift": lambda a, b, p: _sp("fft").fftshift(a, axes=1),
    # SciPy promotes integer coefficients with float arrays (mixed-kind promotion).
    "signal.lfiltic int coefficients": lambda a, b, p: _sp("signal").lfiltic(
        _int(a, [1, 2]), _int(a, [1, 1]), b[:2]),
    # SciPy's iterative methods call full() with 0-d arrays as fill_value.
    "differentiate.derivative": lambda a, b, p: _sp("differentiate").derivative(
        _ns(a).exp, p).df,
    "optimize.elementwise.find_root": lambda a, b, p: _sp("optimize.elementwise").find_root(
        lambda z, c: z * z - c, (p[:3] * 0, p[:3] + 1), args=(p[:3],)).x,
    "signal.freqz int coefficients": pytest.param(
        lambda a, b, p: _sp("signal").freqz(_int(a, [1, 2]), worN=8)),
    # SciPy passes Python's bool as a dtype (zeros(..., dtype=bool)).
    "integrate.tanhsinh": lambda a, b, p: _sp("integrate").tanhsinh(
        _ns(a).exp, p[:3] * 0, p[:3]).integral,
    "special.softmax of integers": pytest.param(
        lambda a, b, p: _sp("special").softmax(_int(a, [1, 2, 3]))),
}


@pytest.mark.parametrize("func", SCIPY.values(), ids=SCIPY.keys())
def test_scipy_array_api_returns_our_arrays_equal_to_numpy(array_api_env, func):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback or conversion warnings on our arrays
        got = func(*_scipy_args(sa))
    want = func(*_scipy_args(np))
    check_same(tuple(got) if isinstance(got, tuple) else got,
               tuple(want) if isinstance(want, tuple) else want)


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
        np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(x)),
                                      n.astype(jnp.from_dlpack(n).dtype))
    _check_jax(jnp, x)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)), np.asarray(jnp.asarray(n)))


@settings(max_examples=40)
@given(pair=views(max_ops=4))
def test_jax_from_dlpack_random_views_match_numpy(jnp, pair):
    _check_jax(jnp, pair.x)
