"""scikit-learn (with and without array-API dispatch) and SciPy's array-API paths on
stridedarray arrays, each checked against the same calls on NumPy arrays with the same values.

Both are skipped when not installed (`pip install -e ".[test,clients]"`). SciPy and
scikit-learn dispatch need SCIPY_ARRAY_API=1 before SciPy is imported; tests/conftest.py sets
it. Strict xfails marked "open:" are uses that stridedarray still refuses where the standard
leaves the behaviour open.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from clients_common import check_same

import stridedarray as sa


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
        pytest.fail(
            "SciPy was imported before SCIPY_ARRAY_API=1 was set, so its array-API "
            "support is off; set SCIPY_ARRAY_API=1 in the environment"
        )


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
    return (
        sa.asarray(X.copy())[::-1, ::-1],
        sa.asarray(y.copy())[::-1],
        sa.asarray(c.copy())[::-1],
    )


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
    "PCA": lambda X, y, c: abs(
        _mod("sklearn.decomposition").PCA(3, svd_solver="full").fit_transform(X)
    ),
    "StandardScaler": lambda X, y, c: _pre().StandardScaler().fit_transform(X[:, ::2]),
    "MinMaxScaler": lambda X, y, c: _pre().MinMaxScaler().fit_transform(X),
    "Normalizer": lambda X, y, c: _pre().Normalizer().fit_transform(X.T),
    "LabelEncoder": lambda X, y, c: _pre().LabelEncoder().fit_transform(c[::2]),
    "LDA": lambda X, y, c: (
        _mod("sklearn.discriminant_analysis")
        .LinearDiscriminantAnalysis()
        .fit(X, c)
        .predict_proba(X)
    ),
    "LogisticRegression": lambda X, y, c: _lm().LogisticRegression().fit(X, c).predict_proba(X),
    "RidgeClassifier": lambda X, y, c: _lm().RidgeClassifier(solver="svd").fit(X, c).predict(X),
    "GaussianNB": lambda X, y, c: (
        _mod("sklearn.naive_bayes").GaussianNB().fit(X, c).predict_proba(X)
    ),
    "pairwise_distances": lambda X, y, c: _metrics().pairwise_distances(X[:5], X[5:9]),
    "confusion_matrix": lambda X, y, c: _metrics().confusion_matrix(c, c[::-1]),
    "accuracy, f1, r2, mse": lambda X, y, c: (
        _metrics().accuracy_score(c, c[::-1]),
        _metrics().f1_score(c, c[::-1]),
        _metrics().r2_score(y, y[::-1]),
        _metrics().mean_squared_error(y, y * 0.5),
    ),
    "train_test_split": lambda X, y, c: tuple(
        _mod("sklearn.model_selection").train_test_split(X, y, random_state=0)
    ),
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
        _sp("stats").gmean(p),
        _sp("stats").hmean(p),
        _sp("stats").pmean(p, 2.5),
    ),
    "stats.variation, sem": lambda a, b, p: (
        _sp("stats").variation(p),
        _sp("stats").sem(a, axis=0),
    ),
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
        _int(a, [1, 2]), _int(a, [1, 1]), b[:2]
    ),
    # SciPy's iterative methods call full() with 0-d arrays as fill_value.
    "differentiate.derivative": lambda a, b, p: _sp("differentiate").derivative(_ns(a).exp, p).df,
    "optimize.elementwise.find_root": lambda a, b, p: (
        _sp("optimize.elementwise")
        .find_root(lambda z, c: z * z - c, (p[:3] * 0, p[:3] + 1), args=(p[:3],))
        .x
    ),
    "signal.freqz int coefficients": pytest.param(
        lambda a, b, p: _sp("signal").freqz(_int(a, [1, 2]), worN=8)
    ),
    # SciPy passes Python's bool as a dtype (zeros(..., dtype=bool)).
    "integrate.tanhsinh": lambda a, b, p: (
        _sp("integrate").tanhsinh(_ns(a).exp, p[:3] * 0, p[:3]).integral
    ),
    "special.softmax of integers": pytest.param(
        lambda a, b, p: _sp("special").softmax(_int(a, [1, 2, 3]))
    ),
}


@pytest.mark.parametrize("func", SCIPY.values(), ids=SCIPY.keys())
def test_scipy_array_api_returns_our_arrays_equal_to_numpy(array_api_env, func):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback or conversion warnings on our arrays
        got = func(*_scipy_args(sa))
    want = func(*_scipy_args(np))
    check_same(
        tuple(got) if isinstance(got, tuple) else got,
        tuple(want) if isinstance(want, tuple) else want,
    )
