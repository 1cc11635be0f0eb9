"""Packing: `to_row_major` and `_pack(dtype)` over random views (negative,
step, zero strides) equal numpy.ascontiguousarray / astype, for every dtype pair."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES, views

import stridedarray as sa
from stridedarray._matmul.ffi import ffi, lib

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means


def c_accepts(src: sa.DType, dst: sa.DType) -> bool:
    """The pairs csrc/core/matmul/pack.c implements (others are cast through NumPy by `_pack`)."""
    if dst.kind == "b" and src.kind != "b":
        return False  # "nonzero" is not a C cast for floats in (0, 1)
    return not (src.kind == "c" and dst.kind != "c")


@settings(max_examples=300)
@given(views(max_dims=4, max_side=6))
def test_to_row_major_equals_ascontiguousarray(p):
    out = p.x.to_row_major()
    # ascontiguousarray turns 0-d into shape (1,); the reshape undoes that quirk only.
    expected = np.ascontiguousarray(p.ref).reshape(p.ref.shape)
    got = np.asarray(out)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    assert out.is_c_contiguous and out.origin == 0
    assert out.buffer is not p.x.buffer
    assert not np.shares_memory(got, p.base_np)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@settings(max_examples=300)
@given(views(max_dims=3, max_side=5), st.sampled_from(ALL_DTYPES))
def test_pack_with_cast_equals_numpy_astype(p, dst):
    src = p.x.dtype
    if src.kind in "if" and dst.kind == "u":
        # C leaves negative float -> unsigned undefined; pack non-negative values for it.
        np.abs(p.base_np, out=p.base_np)
    out = p.x._pack(dst)
    expected = np.ascontiguousarray(p.ref).reshape(p.ref.shape).astype(dst.np)
    assert out.dtype is dst and out.is_c_contiguous
    np.testing.assert_array_equal(np.asarray(out), expected)


@pytest.mark.parametrize("src", ALL_DTYPES, ids=lambda d: d.name)
def test_c_routine_accepts_the_documented_pairs(src):
    x = sa.asarray(np.ones((2, 3), src.np))[::-1, ::2]
    for dst in ALL_DTYPES:
        out = np.zeros(x.shape, dst.np)
        rc = lib.sa_to_row_major(x._c, ffi.from_buffer(out), dst.code)
        assert rc == (0 if c_accepts(src, dst) else -1), (src, dst)
        if rc == 0:
            np.testing.assert_array_equal(out, np.ones(x.shape, dst.np))
    assert lib.sa_to_row_major(x._c, ffi.from_buffer(np.zeros(4)), 99) == -1


def test_itemsize_table():
    for d in ALL_DTYPES:
        assert lib.sa_itemsize(d.code) == d.itemsize
    assert lib.sa_itemsize(-1) == 0 and lib.sa_itemsize(len(ALL_DTYPES)) == 0


def test_pack_edge_layouts():
    base = np.arange(24.0).reshape(2, 3, 4)
    x = sa.asarray(base)
    cases = [
        (x[..., ::-1], base[..., ::-1]),
        (sa.broadcast_to(x[:, :1, :1], (2, 5, 3)), np.broadcast_to(base[:, :1, :1], (2, 5, 3))),
        (x[1, 2, 3], base[1, 2, 3]),  # 0-d
        (x[:, :0], base[:, :0]),
        (sa.permute_dims(x, (2, 0, 1))[::-3, ::-1], np.transpose(base, (2, 0, 1))[::-3, ::-1]),
        (sa.reshape(x, (24,))[::5], base.reshape(24)[::5]),
    ]
    for v, ref in cases:
        np.testing.assert_array_equal(np.asarray(v.to_row_major()), np.ascontiguousarray(ref))


def test_bool_targets_mean_nonzero():
    x = sa.asarray(np.array([0.0, 0.25, -0.5, 3.0]))[::-1]
    np.testing.assert_array_equal(np.asarray(x._pack(sa.bool)), [True, True, True, False])
    z = sa.asarray(np.array([0j, 0.5j]))
    np.testing.assert_array_equal(np.asarray(z._pack(sa.bool)), [False, True])
