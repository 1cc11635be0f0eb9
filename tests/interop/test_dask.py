"""stridedarray arrays as Dask chunks (threads scheduler): every operation is checked against
the same graph built on NumPy chunks, and the computed result must be a stridedarray array.
The process-cluster test lives in test_dask_distributed.py."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import stridedarray as sa  # noqa: E402
from stridedarray._interop import dask as _dask  # noqa: E402


@pytest.fixture(autouse=True)
def _threads():
    with dask.config.set(scheduler="threads", num_workers=2):
        yield


BASE = np.arange(1.0, 97.0).reshape(8, 12) / 7.0
INT_BASE = np.arange(96, dtype=np.int64).reshape(8, 12) - 40


def pair(base=BASE, chunks=(3, 5), how="from_array"):
    """The same Dask graph twice: on stridedarray chunks and on NumPy chunks."""
    n = da.from_array(base, chunks=chunks)
    if how == "from_array":
        s = da.from_array(sa.asarray(base), chunks=chunks, asarray=False)
    else:
        s = n.map_blocks(sa.asarray)
    return s, n


def check(s, n, exact=True):
    """Both graphs compute; ours gives a stridedarray array with NumPy's values."""
    assert isinstance(s._meta, sa.Array), type(s._meta)
    got = s.compute()
    want = n.compute()
    assert isinstance(got, sa.Array), type(got)
    assert got.shape == np.shape(want)
    assert np.dtype(got.dtype) == np.asarray(want).dtype
    if exact:
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


HOW = ["from_array", "map_blocks"]


@pytest.mark.parametrize("how", HOW)
def test_meta_is_a_stridedarray_array(how):
    s, _ = pair(how=how)
    assert isinstance(s._meta, sa.Array) and s.dtype == np.float64


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    "op",
    [
        lambda x: x + 1.5,
        lambda x: 2 * x - x**2,
        lambda x: x / (x + 1),
        lambda x: -x,
        lambda x: x > 3,
        lambda x: abs(x - 5),
        lambda x: np.sin(x),
        lambda x: np.exp(x / 10),
        lambda x: np.maximum(x, 4.0),
        lambda x: np.where(x > 5, x, 0.0),
        lambda x: x * x[:, ::-1],
    ],
    ids=["add", "poly", "div", "neg", "gt", "abs", "sin", "exp", "maximum", "where", "rev_mul"],
)
def test_elementwise_functions_and_operators(how, op):
    s, n = pair(how=how)
    check(op(s), op(n))


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "argmax", "argmin", "std"])
def test_reductions(how, axis, name):
    s, n = pair(how=how)
    check(
        getattr(s, name)(axis=axis),
        getattr(n, name)(axis=axis),
        exact=name in ("max", "min", "argmax", "argmin"),
    )


def test_integer_reductions_and_mean():
    s, n = pair(INT_BASE)
    check(s.sum(axis=0), n.sum(axis=0))
    check(s.mean(), n.mean(), exact=False)
    check(s.argmax(axis=1), n.argmax(axis=1))


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    "key",
    [
        np.s_[::-1],
        np.s_[:, ::-2],
        np.s_[1:7:2, ::3],
        np.s_[::-3, 2],
        np.s_[5],
        np.s_[..., ::-1],
        np.s_[None, 2:5],
    ],
)
def test_slicing_reversed_and_step(how, key):
    s, n = pair(how=how)
    check(s[key], n[key])


@pytest.mark.parametrize("how", HOW)
def test_transpose_reshape_concatenate_stack(how):
    s, n = pair(how=how)
    check(s.T, n.T)
    check(da.transpose(s[::-1]), da.transpose(n[::-1]))
    check(s.reshape(4, 2, 12), n.reshape(4, 2, 12))
    check(s.rechunk((8, 12)).reshape(96), n.rechunk((8, 12)).reshape(96))
    check(da.concatenate([s, s[::-1]], axis=1), da.concatenate([n, n[::-1]], axis=1))
    check(da.stack([s, s * 2]), da.stack([n, n * 2]))


B, S = 6, 16


def _batch(seed):
    return np.random.default_rng(seed).standard_normal((B, S, S))


def test_batched_matmul_with_the_batch_axis_chunked():
    shared = np.random.default_rng(0).standard_normal((1, S, S))
    batch = _batch(1)
    s_shared = da.from_array(sa.asarray(shared)[..., ::-1], chunks=(1, S, S), asarray=False)
    s_batch = da.from_array(sa.asarray(batch), chunks=(2, S, S), asarray=False)
    n_shared = da.from_array(shared[..., ::-1], chunks=(1, S, S))
    n_batch = da.from_array(batch, chunks=(2, S, S))
    check(s_shared @ s_batch, n_shared @ n_batch, exact=False)
    check(
        da.matmul(s_batch, s_batch.transpose(0, 2, 1)),
        n_batch @ n_batch.transpose(0, 2, 1),
        exact=False,
    )


def test_matmul_with_k_chunked_sums_partial_products():
    a = np.random.default_rng(2).standard_normal((10, 24))
    b = np.random.default_rng(3).standard_normal((24, 7))
    sa_, na = pair(a, chunks=(5, 8))
    sb, nb = pair(b, chunks=(8, 7))
    check(sa_ @ sb, na @ nb, exact=False)
    check(sa_[:, ::-1] @ sb[::-1], na[:, ::-1] @ nb[::-1], exact=False)
    check(da.tensordot(sa_, sb, axes=1), da.tensordot(na, nb, axes=1), exact=False)
    ia, ib = (INT_BASE[:, :6] % 5), (INT_BASE[:6, :5] % 3)
    sia, nia = pair(ia, chunks=(4, 2))
    sib, nib = pair(ib, chunks=(2, 5))
    check(sia @ sib, nia @ nib)  # integer matmul: exact


def test_mixing_dask_arrays_and_stridedarray_arrays():
    s, n = pair()
    x = sa.asarray(BASE[0])
    check(s + x, n + BASE[0])  # a stridedarray operand joins the Dask graph
    r = x + s
    assert isinstance(r, da.Array)


def test_tokens_are_deterministic_and_value_based():
    from dask.base import tokenize

    x = sa.asarray(BASE)
    assert tokenize(x) == tokenize(x) == tokenize(sa.asarray(BASE.copy()))
    assert tokenize(x) != tokenize(x + 1)
    assert tokenize(x) != tokenize(BASE)  # not the same chunk type, not the same token
    assert tokenize(x[::-1]) == tokenize(sa.asarray(BASE[::-1].copy()))


def test_sizeof_counts_the_elements_window():
    from dask.sizeof import sizeof

    x = sa.asarray(BASE)
    assert sizeof(x) == BASE.nbytes
    assert sizeof(sa.broadcast_to(x[0], (1000, 12))) == 12 * 8  # one copy of the row
    assert sizeof(sa.zeros((1000, 1000))[:2, :3]) == (1000 + 3) * 8  # its window only
    assert sizeof(sa.zeros((0, 3))) == 0


def test_registration_is_done_once_and_through_dask():
    from dask.array.chunk_types import is_valid_chunk_type
    from dask.array.dispatch import tensordot_lookup

    assert _dask._registered
    assert is_valid_chunk_type(sa.Array)
    assert tensordot_lookup.dispatch(sa.Array) is _dask._tensordot


# Each scenario runs in a fresh interpreter: the order of the imports is the point (this
# process covers "stridedarray, then dask.array").
_COMBINE = """
import dask
import numpy as np
r = (da.ones(3, chunks=2) + sa.arange(3.0)).compute(scheduler="sync")
assert isinstance(r, sa.Array), type(r)
assert r.tolist() == [1.0, 2.0, 3.0]
assert not any(type(f).__name__ == "_AfterDaskArray" for f in sys.meta_path)
print("registered")
"""
_ORDERS = {
    "dask first": "import dask.array as da\nimport stridedarray as sa",
    "probe, then import": (
        "import stridedarray as sa\nimport importlib.util\n"
        "assert importlib.util.find_spec('dask.array') is not None\n"
        "import dask.array as da"
    ),
    "probe twice, before and after": (
        "import importlib.util\nimportlib.util.find_spec('dask.array')\n"
        "import stridedarray as sa\nimportlib.util.find_spec('dask.array')\n"
        "importlib.util.find_spec('dask.array')\nimport dask.array as da"
    ),
    "import dask, probe, import": (
        "import dask\nimport stridedarray as sa\nimport importlib.util\n"
        "importlib.util.find_spec('dask.array')\nimport dask.array as da"
    ),
    "loaded from a probed spec": (
        "import stridedarray as sa\nimport importlib.util\n"
        "spec = importlib.util.find_spec('dask.array')\n"
        "da = importlib.util.module_from_spec(spec)\nsys.modules['dask.array'] = da\n"
        "spec.loader.exec_module(da)"
    ),
}


@pytest.mark.parametrize("order", sorted(_ORDERS))
def test_registration_survives_any_import_order(order):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(sa.__file__).resolve().parent.parent)  # the checkout under test
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    )
    code = "import sys\n" + _ORDERS[order] + "\n" + _COMBINE
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0 and "registered" in proc.stdout, proc.stderr[-2000:]
