"""Namespace identity, versions, inspection (__array_namespace_info__), constants, device,
and __repr__."""

from __future__ import annotations

import math
import pickle
import types
from pathlib import Path

import numpy as np
import pytest
from standard_names import DTYPE_NAMES, STANDARD

import stridedarray as sa
from stridedarray._base.device import CPU_DEVICE


def test_version_and_namespace():
    x = sa.ones(2)
    assert sa.__array_api_version__ == "2025.12"
    assert x.__array_namespace__() is sa
    for v in ("2025.12", "2023.12", "2024.12", "2022.12", "2021.12"):
        assert x.__array_namespace__(api_version=v).__array_api_version__ == v
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="2020.12")


def test_the_draft_version_is_accepted_with_a_warning():
    x = sa.ones(2)
    with pytest.warns(UserWarning, match=r"2026\.12 is a draft.*__dlpack_c_exchange_api__") as w:
        ns = x.__array_namespace__(api_version="2026.12")
    assert w[0].filename == __file__  # the warning points at the caller
    assert ns.__array_api_version__ == "2026.12" and ns is not sa
    assert sa.__array_api_version__ == "2025.12"  # the package answers as the published one
    info = ns.__array_namespace_info__()
    assert (
        info.devices() == (CPU_DEVICE,) and info.dtypes() == sa.__array_namespace_info__().dtypes()
    )
    assert isinstance(ns.meshgrid(sa.ones(2), sa.ones(3)), tuple)
    assert ns.add is sa.add
    # its inspection function pickles by reference to the draft namespace's
    assert pickle.loads(pickle.dumps(ns.__array_namespace_info__)) is ns.__array_namespace_info__
    # the draft's one addition so far: the C exchange table on the array type
    assert "dlpack_exchange_api" in repr(type(ns.ones(2)).__dlpack_c_exchange_api__)
    with pytest.warns(UserWarning, match="draft"):  # on every request, not once per process
        assert x.__array_namespace__(api_version="2026.12") is ns


def test_older_versions_follow_their_own_rules():
    x = sa.ones(2)
    ns = x.__array_namespace__(api_version="2024.12")
    assert ns.__array_api_version__ == "2024.12"
    assert isinstance(ns.__array_namespace_info__().devices(), list)  # a tuple from 2025.12
    assert isinstance(ns.meshgrid(sa.ones(2), sa.ones(3)), list)
    assert ns.add is sa.add and ns.float64 is sa.float64
    # the request is per call: the package keeps answering as 2025.12
    assert isinstance(sa.__array_namespace_info__().devices(), tuple)
    assert isinstance(sa.meshgrid(sa.ones(2), sa.ones(3)), tuple)


def test_info():
    info = sa.__array_namespace_info__()
    caps = info.capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}
    assert info.default_device() is CPU_DEVICE and info.devices() == (CPU_DEVICE,)
    assert info.default_dtypes() == {
        "real floating": sa.float64,
        "complex floating": sa.complex128,
        "integral": sa.int64,
        "indexing": sa.int64,
    }
    assert list(info.dtypes()) == list(DTYPE_NAMES)
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind=("bool", "complex floating"))) == [
        "bool",
        "complex64",
        "complex128",
    ]
    assert set(info.dtypes(kind="numeric")) == set(info.dtypes()) - {"bool"}
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="integer")
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="cuda")


def test_constants():
    assert sa.e == math.e and sa.pi == math.pi and sa.inf == math.inf
    assert math.isnan(sa.nan) and sa.newaxis is None
    assert all(type(c) is float for c in (sa.e, sa.pi, sa.inf, sa.nan))
    assert sa.ones((2, 3))[:, sa.newaxis].shape == (2, 1, 3)


def test_device_and_to_device():
    x = sa.ones(2)
    assert x.device == CPU_DEVICE
    assert x.to_device(CPU_DEVICE) is x
    with pytest.raises(ValueError, match="device"):
        x.to_device("cuda")


def test_repr_shows_dtype_shape_and_view_layout():
    base = sa.asarray(np.arange(6.0).reshape(2, 3))
    assert "dtype=float64, shape=(2, 3)" in repr(base) and "strides" not in repr(base)
    v = base[:, ::-2]
    r = repr(v)
    assert "strides=(3, -2)" in r and "origin=2" in r
    assert "shape=(0, 3)" in repr(sa.zeros((0, 3)))


# stridedarray's own public names beside the standard's (docs/api/index.rst lists them).
EXTRAS = {
    "Array",
    "blas_info",
    "einsum",
    "einsum_explain",
    "matmul_explain",
    "matmul_policy",
    "get_num_threads",
    "set_num_threads",
    # NumPy's functions beyond the standard (stridedarray/_api/numpy_extensions.py)
    "cumprod",
    "cumsum",
    "gradient",
    "lib",  # NumPy's lib.stride_tricks (stridedarray/lib/)
    "median",
    "nanargmax",
    "nanargmin",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "pad",
    "quantile",
}


def test_all_lists_exactly_the_standard_names_and_our_documented_extras():
    assert len(sa.__all__) == len(set(sa.__all__))
    assert set(sa.__all__) == STANDARD | EXTRAS
    api = (Path(__file__).resolve().parents[2] / "docs" / "api" / "index.rst").read_text()
    for name in EXTRAS - {"Array"}:
        assert f"``{name}``" in api, name
    # Every other public attribute is a subpackage imported on use (bench, tune), not a name
    # of the namespace.
    public = {
        n
        for n in dir(sa)
        if not n.startswith("_")
        and not (isinstance(getattr(sa, n), types.ModuleType) and n not in sa.__all__)
    }
    assert public <= set(sa.__all__), public - set(sa.__all__)


def test_all_is_sorted_and_every_name_resolves():
    assert sa.__all__ == sorted(sa.__all__)
    missing = object()
    for name in sa.__all__:  # (newaxis is None)
        assert getattr(sa, name, missing) is not missing, name
    # Every name of the standard's namespace that stridedarray implements is exported (all
    # of them: 2025.12 has no optional names outside the extensions).
    assert {n for n in STANDARD if hasattr(sa, n)} <= set(sa.__all__)


def test_import_star_imports_exactly_all():
    ns: dict = {}
    exec("from stridedarray import *", ns)  # noqa: S102 - the statement under test
    assert set(ns) - {"__builtins__"} == set(sa.__all__)
