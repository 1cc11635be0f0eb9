"""Data types, promotion and the data type functions (astype, can_cast, finfo, iinfo,
isdtype, result_type)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import views

import stridedarray as sa
from stridedarray._dtypes import DTYPES, promote

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]

# The standard's promotion table, written out independently of _dtypes (rows: "a b -> c").
STANDARD_TABLE = """
int8 int16 int16; int8 int32 int32; int8 int64 int64; int16 int32 int32; int16 int64 int64
int32 int64 int64; uint8 uint16 uint16; uint8 uint32 uint32; uint8 uint64 uint64
uint16 uint32 uint32; uint16 uint64 uint64; uint32 uint64 uint64; int8 uint8 int16
int8 uint16 int32; int8 uint32 int64; int16 uint8 int16; int16 uint16 int32; int16 uint32 int64
int32 uint8 int32; int32 uint16 int32; int32 uint32 int64; int64 uint8 int64; int64 uint16 int64
int64 uint32 int64; float32 float64 float64; float32 complex64 complex64
float32 complex128 complex128; float64 complex64 complex128; float64 complex128 complex128
complex64 complex128 complex128
"""


def _table():
    out = {}
    for row in STANDARD_TABLE.replace("\n", ";").split(";"):
        if row.strip():
            a, b, c = (getattr(sa, n) for n in row.split())
            out[a, b] = out[b, a] = c
    for d in DTYPES:
        out[d, d] = d
    return out


def test_the_13_dtypes_exist_and_compare_by_identity():
    assert [getattr(sa, n).name for n in NAMES] == NAMES
    assert sa.float64 == sa.float64 and sa.float64 != sa.float32
    assert sa.float64 != "float64"  # unlike NumPy dtypes


def test_promotion_is_the_standard_table_and_undefined_pairs_raise():
    table = _table()
    for a in DTYPES:
        for b in DTYPES:
            if (a, b) in table:
                assert promote(a, b) is table[a, b]
                assert sa.result_type(a, b) is table[a, b]
            else:
                # e.g. int64 + float32, uint64 + int64, bool + int8: NumPy promotes these
                with pytest.raises(TypeError, match="promotion"):
                    promote(a, b)


def test_result_type_with_arrays_and_scalars():
    assert sa.result_type(sa.ones(2, dtype=sa.int8), sa.int16) is sa.int16
    assert sa.result_type(sa.float32, 1, 2.5) is sa.float32
    assert sa.result_type(sa.float32, 1j) is sa.complex64
    assert sa.result_type(sa.complex64, 1.0) is sa.complex64
    assert sa.result_type(sa.uint8, 3) is sa.uint8
    with pytest.raises(OverflowError):
        sa.result_type(sa.uint8, -1)
    with pytest.raises(TypeError):
        sa.result_type(sa.int8, 1.5)
    with pytest.raises(ValueError, match="at least one"):
        sa.result_type(1, 2)
    with pytest.raises(TypeError):
        sa.result_type("float64")


def test_can_cast_follows_promotion():
    table = _table()
    for a in DTYPES:
        for b in DTYPES:
            assert sa.can_cast(a, b) == (table.get((a, b)) is b)
    assert sa.can_cast(sa.ones(1, dtype=sa.int8), sa.int64)
    assert not sa.can_cast(sa.int8, sa.float64)  # cross-kind: undefined, reported False
    with pytest.raises(TypeError):
        sa.can_cast("int8", sa.int16)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo(name):
    dt = getattr(sa, name)
    real = np.dtype(name).type(0).real.dtype
    ref = np.finfo(real)
    for arg in (dt, sa.ones(1, dtype=dt)):
        fi = sa.finfo(arg)
        assert (fi.bits, fi.eps, fi.max, fi.min, fi.smallest_normal) == (
            ref.bits, float(ref.eps), float(ref.max), float(ref.min), float(ref.smallest_normal))
        assert all(type(v) is float for v in (fi.eps, fi.max, fi.min, fi.smallest_normal))
        assert fi.dtype.np == real
    with pytest.raises(TypeError, match="floating"):
        sa.finfo(sa.int8)


@pytest.mark.parametrize("name", NAMES[1:9])
def test_iinfo(name):
    dt = getattr(sa, name)
    ref = np.iinfo(name)
    ii = sa.iinfo(sa.zeros(1, dtype=dt))
    assert (ii.bits, ii.min, ii.max, ii.dtype) == (ref.bits, ref.min, ref.max, dt)
    assert type(ii.min) is int and type(ii.max) is int
    with pytest.raises(TypeError, match="integer"):
        sa.iinfo(sa.float32)


def test_isdtype():
    assert sa.isdtype(sa.int8, "signed integer") and not sa.isdtype(sa.uint8, "signed integer")
    assert sa.isdtype(sa.uint8, "integral") and sa.isdtype(sa.complex64, "numeric")
    assert not sa.isdtype(sa.bool, "numeric")
    assert sa.isdtype(sa.float32, ("bool", sa.float32))
    assert sa.isdtype(sa.float64, "real floating") and not sa.isdtype(sa.float64,
                                                                      "complex floating")
    with pytest.raises(ValueError, match="category"):
        sa.isdtype(sa.int8, "integer")
    with pytest.raises(TypeError):
        sa.isdtype(np.int8, "integral")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_astype_matches_numpy_on_views(data):
    src = data.draw(st.sampled_from(DTYPES))
    allowed = [d for d in DTYPES if not (src.kind == "c" and d.kind != "c")]
    dst = data.draw(st.sampled_from(allowed))
    pair = data.draw(views(src))
    out = sa.astype(pair.x, dst)
    assert out.dtype is dst and out.shape == pair.ref.shape
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(np.asarray(out), pair.ref.astype(dst.np))
    # copy=True never aliases; copy=False with the same dtype returns the input
    assert sa.astype(pair.x, src, copy=False) is pair.x
    c = sa.astype(pair.x, src)
    assert c is not pair.x and (c.size == 0 or not np.shares_memory(np.asarray(c),
                                                                   pair.base_np))


def test_astype_rejects_complex_to_real_and_bad_arguments():
    with pytest.raises(TypeError, match="complex"):
        sa.astype(sa.ones(2, dtype=sa.complex64), sa.float32)
    with pytest.raises(TypeError, match="dtype"):
        sa.astype(sa.ones(2), "float32")
    with pytest.raises(TypeError, match="Array"):
        sa.astype(np.ones(2), sa.float32)
