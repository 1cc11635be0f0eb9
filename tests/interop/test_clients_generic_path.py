"""The clients suite's "numpy (generic path)" variant (benchmarks/generic_path.py):
inside `generic_path()` scikit-learn and SciPy do not recognise NumPy arrays as NumPy and take
the branch they take for stridedarray, with NumPy's own functions; outside it nothing changed.

Skipped without scikit-learn or SciPy; SciPy's array-API support needs SCIPY_ARRAY_API=1
before SciPy is imported (tests/conftest.py sets it). The suite is in the repository's
benchmarks/, not installed: each test imports it when it runs (tests/project/test_benchmarks_lab.py
says why), and is skipped against an installed wheel.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any
from unittest import mock

import numpy as np
import pytest

from stridedarray.bench.sampling import Budget

pytestmark = [pytest.mark.checkout]  # tests/conftest.py says what each means

_TINY = Budget(target_s=1e-4, min_repeats=2, max_repeats=2, case_budget_s=0.01, case_cap_s=0.2)


@pytest.fixture(scope="module")
def sklearn():
    return pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def scipy():
    scipy = pytest.importorskip("scipy")
    if os.environ.get("SCIPY_ARRAY_API") != "1":
        pytest.skip("SCIPY_ARRAY_API is not 1 (tests/conftest.py sets it unless it is set)")
    return scipy


@pytest.fixture(scope="module")
def clients() -> ModuleType:
    from benchmarks import clients

    return clients


@pytest.fixture(scope="module")
def data(clients: ModuleType) -> dict[str, np.ndarray]:
    return clients._data(np.random.default_rng(0))


@pytest.fixture(scope="module")
def nan_data(data) -> dict[str, np.ndarray]:
    d = {**data, "X": data["X"].copy()}
    d["X"][3, 4] = np.nan  # MinMaxScaler ignores NaN: the nan-aware min and max matter
    return d


def _workload(name: str) -> Any:
    from benchmarks import clients

    (w,) = [w for w in clients.workloads() if w.name.startswith(name)]
    return w


def test_sklearn_namespace_is_not_numpy_inside_and_is_again_after(sklearn) -> None:
    from sklearn.externals.array_api_compat import is_numpy_namespace
    from sklearn.externals.array_api_compat import numpy as np_compat
    from sklearn.utils._array_api import _is_numpy_namespace, get_namespace

    from benchmarks.generic_path import NAME, generic_path

    x = np.ones(3)
    with sklearn.config_context(array_api_dispatch=True):
        with generic_path():
            xp, _ = get_namespace(x)
            assert xp.__name__ == NAME and xp is not np_compat
            assert not _is_numpy_namespace(xp) and not is_numpy_namespace(xp)
            # The same function objects as the NumPy namespace's: no layer in between.
            assert xp.sum is np_compat.sum and xp.linalg is np_compat.linalg
            assert type(xp.asarray(x)) is np.ndarray
        xp, _ = get_namespace(x)
        assert xp is np_compat and _is_numpy_namespace(xp)


def test_scipy_namespace_is_not_numpy_inside_and_is_again_after(scipy) -> None:
    from scipy._lib._array_api import array_namespace, is_numpy, np_compat

    from benchmarks.generic_path import NAME, generic_path

    x = np.ones(3)
    with generic_path():
        xp = array_namespace(x)
        assert xp.__name__ == NAME and not is_numpy(xp)
        assert xp.exp is np_compat.exp
    assert array_namespace(x) is np_compat and is_numpy(array_namespace(x))


def test_generic_path_restores_after_an_exception(sklearn, scipy) -> None:
    from scipy._lib._array_api import array_namespace, np_compat

    from benchmarks.generic_path import generic_path

    with pytest.raises(ZeroDivisionError), generic_path():
        assert array_namespace(np.ones(2)) is not np_compat
        1 / 0  # noqa: B018
    assert array_namespace(np.ones(2)) is np_compat


def test_minmax_scaler_takes_the_generic_branch_with_numpy_results(
    sklearn, scipy, nan_data
) -> None:
    # scikit-learn's _nanmin/_nanmax call numpy.nanmin/nanmax for a NumPy namespace and
    # isnan/where/min/all/any for any other.
    from benchmarks.generic_path import generic_path

    w = _workload("MinMaxScaler")
    with (
        mock.patch("numpy.nanmin", wraps=np.nanmin) as nanmin,
        mock.patch("numpy.nanmax", wraps=np.nanmax) as nanmax,
    ):
        want = np.asarray(w.f(np, nan_data))
        assert nanmin.call_count > 0 and nanmax.call_count > 0  # plain NumPy: the shortcut
        nanmin.reset_mock()
        nanmax.reset_mock()
        with generic_path():
            got = w.f(np, nan_data)
        assert nanmin.call_count == 0 and nanmax.call_count == 0
    assert type(got) is np.ndarray
    assert np.isnan(want).sum() == 1
    np.testing.assert_array_equal(got, want)  # NaN where NumPy has NaN


def test_fftconvolve_uses_the_namespace_fft_with_numpy_results(scipy, data) -> None:
    # SciPy's FFT serves NumPy arrays itself and hands any other namespace to its xp.fft:
    # under the generic path that is numpy.fft.
    from benchmarks.generic_path import generic_path

    w = _workload("fftconvolve")
    with mock.patch("numpy.fft.rfftn", wraps=np.fft.rfftn) as rfftn:
        want = np.asarray(w.f(np, data))
        assert rfftn.call_count == 0
        with generic_path():
            got = w.f(np, data)
        assert rfftn.call_count > 0
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_run_workload_times_the_generic_path_and_compares_it(sklearn, scipy, data, clients) -> None:
    from benchmarks.generic_path import GenericPathTimer

    w = _workload("MinMaxScaler")
    libs = {"numpy": np, clients.GENERIC: np}
    out = clients.run_workload(w, libs, data, _TINY)
    assert not out.errors and not out.mismatch
    assert out.samples[clients.GENERIC] and out.samples[clients.GENERIC + " cpu"]
    assert out.generic_speedup("numpy") > 0
    # The timed calls run inside generic_path too (GenericPathTimer), not only the check.
    with mock.patch("numpy.nanmin", wraps=np.nanmin) as nanmin:
        clients.run_workload(w, {clients.GENERIC: np}, data, _TINY)
        assert nanmin.call_count == 0
        GenericPathTimer(lambda: w.f(np, data)).timeit(2)
        assert nanmin.call_count == 0
        clients.run_workload(w, {"numpy": np}, data, _TINY)
        assert nanmin.call_count > 0
