"""Data types, promotion and the data type functions (astype, can_cast, finfo, iinfo,
isdtype, result_type)."""

from __future__ import annotations

import dataclasses
import gc
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from standard_names import DTYPE_NAMES
from strategies import views

import stridedarray as sa
from stridedarray._base.dtypes import DTYPES, KIND_OF, promote

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

NAMES = list(DTYPE_NAMES)  # the standard's order, written out in standard_names.py

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


def test_promotion_is_the_standard_table_and_numpys_beyond_it():
    table = _table()
    for a in DTYPES:
        for b in DTYPES:
            if (a, b) in table:
                assert promote(a, b) is table[a, b]
                assert sa.result_type(a, b) is table[a, b]
            else:
                # e.g. int64 + float32, uint64 + int64, bool + int8: undefined by the standard;
                # we give NumPy's answer
                want = np.result_type(a.np, b.np)
                assert promote(a, b).np == want and sa.result_type(a, b).np == want, (a, b)


def test_mixed_kind_promotion_where_numpy_torch_and_jax_agree():
    """The cases all three libraries agree on, spelled out (independent of NumPy's table)."""
    ints = [sa.int8, sa.int16, sa.int32, sa.int64, sa.uint8, sa.uint16, sa.uint32, sa.uint64]
    for d in ints + [sa.float32, sa.float64, sa.complex64, sa.complex128]:
        assert promote(sa.bool, d) is d and promote(d, sa.bool) is d
    for i in ints:
        assert promote(i, sa.float64) is sa.float64
        assert promote(i, sa.complex128) is sa.complex128
    for i in (sa.int8, sa.int16, sa.uint8, sa.uint16):
        assert promote(i, sa.float32) is sa.float32
        assert promote(sa.complex64, i) is sa.complex64


SCALARS = [True, 3, -2, 2.5, 1.5j]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("s", SCALARS, ids=repr)
def test_python_scalars_mix_as_in_numpy(dt, s):
    """A Python scalar with an array: the dtype NumPy 2 (NEP 50) gives, for every dtype."""
    if isinstance(s, int) and not isinstance(s, bool) and s < 0 and dt.kind == "u":
        with pytest.raises(
            OverflowError, match="arrays_and_dtypes: Python int -2 is out of range for"
        ):
            sa.result_type(dt, s)
        return
    want = np.result_type(np.ones(1, dtype=dt.np), s)
    assert sa.result_type(dt, s).np == want
    both_bool = dt.kind == "b" and isinstance(s, bool)
    f, ref = (sa.logical_or, np.logical_or) if both_bool else (sa.multiply, np.multiply)
    for got, expected in (
        (f(sa.ones(2, dtype=dt), s), ref(np.ones(2, dt.np), s)),
        (f(s, sa.ones(2, dtype=dt)), ref(s, np.ones(2, dt.np))),
    ):
        assert got.dtype.np == expected.dtype == want
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_a_python_scalar_alone_takes_its_kinds_default_everywhere():
    # One table (_dtypes.DEFAULT_DTYPE) serves every place a Python scalar or Python's type
    # alone decides a dtype; NumPy on a 64-bit Linux gives the same defaults.
    import enum

    class Level(enum.IntEnum):
        HIGH = 3

    defaults = sa.__array_namespace_info__().default_dtypes()
    for value in (True, 3, Level.HIGH, 2.5, np.float64(2.5), 1.5j):
        want = np.asarray(value).dtype
        t = next(t for t in (bool, int, float, complex) if isinstance(value, t))
        for got in (
            sa.asarray(value).dtype,
            sa.asarray([value, value]).dtype,
            sa.full(2, value).dtype,
            sa.zeros(2, dtype=t).dtype,
        ):
            assert got.np == want, (value, got)
        key = {int: "integral", float: "real floating", complex: "complex floating"}.get(t)
        if key is not None:
            assert defaults[key].np == want
        # The kind's default is also what the scalar takes where its kind wins.
        if t is not bool:
            assert sa.result_type(sa.bool, value).np == want


def test_result_type_with_arrays_and_scalars():
    assert sa.result_type(sa.ones(2, dtype=sa.int8), sa.int16) is sa.int16
    assert sa.result_type(sa.float32, 1, 2.5) is sa.float32
    assert sa.result_type(sa.float32, 1j) is sa.complex64
    assert sa.result_type(sa.complex64, 1.0) is sa.complex64
    assert sa.result_type(sa.uint8, 3) is sa.uint8
    assert sa.result_type(sa.int8, 1.5) is sa.float64
    assert sa.result_type(sa.int64, sa.float64, 1j) is sa.complex128
    with pytest.raises(
        OverflowError, match="arrays_and_dtypes: Python int -1 is out of range for uint8"
    ):
        sa.result_type(sa.uint8, -1)
    with pytest.raises(
        OverflowError, match="arrays_and_dtypes: Python int 9223372036854775808 is out of"
    ):
        sa.result_type(sa.bool, 2**63)  # int with a bool array takes int64, and must fit
    with pytest.raises(ValueError, match="at least one"):
        sa.result_type()
    with pytest.raises(TypeError, match="bool, int8, int16, int32, int64, uint8, uint16, uint32"):
        sa.result_type("float16")


def test_can_cast_follows_promotion():
    table = _table()
    for a in DTYPES:
        for b in DTYPES:
            assert sa.can_cast(a, b) == (table.get((a, b)) is b)
    assert sa.can_cast(sa.ones(1, dtype=sa.int8), sa.int64)
    # cross-kind: undefined by the standard's table, reported False although `promote`
    # gives NumPy's answer for them
    assert not sa.can_cast(sa.int8, sa.float64) and not sa.can_cast(sa.bool, sa.int8)
    with pytest.raises(TypeError, match="from_ must be an Array or name a supported dtype: a"):
        sa.can_cast("int4", sa.int16)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo(name):
    dt = getattr(sa, name)
    real = np.dtype(name).type(0).real.dtype
    ref = np.finfo(real)
    for arg in (dt, sa.ones(1, dtype=dt)):
        fi = sa.finfo(arg)
        assert (fi.bits, fi.eps, fi.max, fi.min, fi.smallest_normal) == (
            ref.bits,
            float(ref.eps),
            float(ref.max),
            float(ref.min),
            float(ref.smallest_normal),
        )
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
    assert sa.isdtype(sa.float64, "real floating") and not sa.isdtype(
        sa.float64, "complex floating"
    )
    with pytest.raises(ValueError, match="category"):
        sa.isdtype(sa.int8, "integer")
    with pytest.raises(TypeError, match="bool, int8, int16, int32, int64, uint8, uint16, uint32"):
        sa.isdtype(np.float16, "real floating")


def _float_to_int_rule(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    """The documented float -> integer conversion (csrc/core/matmul/pack.c), written with NumPy
    operations that are defined for every input: where the truncated value fits `dst` it is NumPy's
    own cast; elsewhere (NaN, infinities, out of range) the x86-64 scalar rule."""
    t = np.trunc(x.astype(np.float64))

    def conv(v, lo, hi, bad):  # truncate to a signed width, `bad` when it does not fit
        ok = (v >= lo) & (v < hi)
        return np.where(ok, np.where(ok, v, 0).astype(np.int64), bad)

    if dst.itemsize <= 2 or dst == np.int32:
        return conv(t, -(2.0**31), 2.0**31, -(2**31)).astype(dst)
    if dst != np.uint64:  # int64, uint32
        return conv(t, -(2.0**63), 2.0**63, -(2**63)).astype(dst)
    high = t >= 2.0**63
    low_bits = conv(np.where(high, t - 2.0**63, t), -(2.0**63), 2.0**63, -(2**63)).view(np.uint64)
    return np.where(high, low_bits ^ np.uint64(2**63), low_bits)


def _expected_astype(ref: np.ndarray, dst: np.dtype) -> np.ndarray:
    if ref.dtype.kind == "f" and dst.kind in "iu":
        return _float_to_int_rule(ref, dst)
    with np.errstate(all="ignore"):
        return ref.astype(dst)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_astype_matches_numpy_on_views(data):
    src = data.draw(st.sampled_from(DTYPES))
    allowed = [d for d in DTYPES if not (src.kind == "c" and d.kind != "c")]
    dst = data.draw(st.sampled_from(allowed))
    pair = data.draw(views(src))
    out = sa.astype(pair.x, dst)
    assert out.dtype is dst and out.shape == pair.ref.shape
    got = np.asarray(out)
    np.testing.assert_array_equal(got, _expected_astype(pair.ref, dst.np))
    if pair.ref.dtype.kind == "f" and dst.kind in "iu":
        # Where the truncated value fits, the rule is plain NumPy: check that directly too.
        info = np.iinfo(dst.np)
        with np.errstate(all="ignore"):
            t = np.trunc(pair.ref.astype(np.float64))
            fits = (t >= float(info.min)) & (t <= float(info.max)) & (t < 2.0**64)
            np.testing.assert_array_equal(got[fits], pair.ref[fits].astype(dst.np))
    # copy=True never aliases; copy=False with the same dtype returns the input
    assert sa.astype(pair.x, src, copy=False) is pair.x
    c = sa.astype(pair.x, src)
    assert c is not pair.x and (c.size == 0 or not np.shares_memory(np.asarray(c), pair.base_np))


# Float -> integer values that C leaves undefined, and what csrc/core/matmul/pack.c defines them to
# be (worked out by hand from the rule in its comment: via int32 or int64, INT_MIN when it does not
# fit, then the low bits).
FLOAT_TO_INT_CASES = [
    ("uint32", -8.11, 2**32 - 8),
    ("uint8", -1.5, 255),
    ("uint16", -8.11, 2**16 - 8),
    ("int16", 70000.0, 4464),
    ("int16", 1e10, 0),
    ("int8", 300.5, 44),
    ("int32", 1e10, -(2**31)),
    ("int32", float("nan"), -(2**31)),
    ("int32", float("-inf"), -(2**31)),
    ("int64", 1e30, -(2**63)),
    ("int64", float("nan"), -(2**63)),
    ("uint32", 2.0**32 + 7, 7),
    ("uint32", float("nan"), 0),
    ("uint64", -8.0, 2**64 - 8),
    ("uint64", 2.0**63, 2**63),
    ("uint64", 2.0**64, 0),
    ("uint64", float("inf"), 0),
    ("uint64", float("-inf"), 2**63),
    ("uint64", float("nan"), 2**63),
    ("uint8", 255.9, 255),
    ("int8", -128.7, -128),
]


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize(("dst", "value", "expected"), FLOAT_TO_INT_CASES)
def test_astype_float_to_int_out_of_range_is_defined(src, dst, value, expected):
    if src == "float32" and value == 2.0**32 + 7:
        expected = 0  # float32 rounds 2**32 + 7 to 2**32, whose low 32 bits are 0
    x = sa.flip(sa.asarray([value, value, value], dtype=getattr(sa, src)))  # a strided run
    with np.errstate(invalid="ignore"):  # the warning: test_numpy_users.py
        out = np.asarray(sa.astype(x, getattr(sa, dst)))
    assert out.tolist() == [expected] * 3


def test_astype_rejects_complex_to_real_and_bad_arguments():
    with pytest.raises(TypeError, match="complex"):
        sa.astype(sa.ones(2, dtype=sa.complex64), sa.float32)
    with pytest.raises(TypeError, match="dtype"):
        sa.astype(sa.ones(2), "float16")
    with pytest.raises(TypeError, match="Array"):
        sa.astype([1.0, 2.0], sa.float32)


# -- cached answers and the hash -------------------------------------------------------------
def test_finfo_and_iinfo_are_one_frozen_object_per_dtype():
    for dt in DTYPES:
        info = sa.finfo if dt.kind in "fc" else sa.iinfo if dt.kind in "iu" else None
        if info is None:
            continue
        first = info(dt)
        assert info(dt) is first and info(sa.zeros(2, dtype=dt)) is first
        with pytest.raises(dataclasses.FrozenInstanceError):
            first.max = 0  # type: ignore[misc]
        assert info(dt).max == first.max


def test_namespace_dtypes_answers_are_fresh_copies():
    info = sa.__array_namespace_info__()
    for kind in (None, "real floating", ("bool", "integral"), "numeric"):
        first = info.dtypes(kind=kind)
        second = info.dtypes(kind=kind)
        assert first == second and first is not second
        first.clear()  # a caller changing its answer changes no one else's
        assert info.dtypes(kind=kind) == second
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind=["bool"])  # type: ignore[arg-type]  # unhashable: still a clear error


def test_dtype_hash_is_the_equal_numpy_dtypes_and_runs_no_python_frame():
    frames = []

    def profile(frame, event, arg):
        if event == "call":
            frames.append(frame.f_code.co_name)

    for dt in DTYPES:
        assert hash(dt) == hash(dt.np) == hash(np.dtype(dt.name))
        assert {dt.np: dt.name}[dt] == dt.name and {dt: dt.name}[dt.np] == dt.name
        # A collection inside the window would run other libraries' gc
        # callbacks (hypothesis registers one) and show their frames.
        collecting = gc.isenabled()
        gc.disable()
        sys.setprofile(profile)
        try:
            hash(dt)
            _ = dt in {sa.float64, sa.int8}
        finally:
            sys.setprofile(None)
            if collecting:
                gc.enable()
    assert frames == []


# --- isdtype and result_type --------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_isdtype_one_category_equals_the_tuple_path(dtype) -> None:
    for kind, members in KIND_OF.items():
        assert sa.isdtype(dtype, kind) is (dtype in members)
        # A 1-tuple takes the general path: the same answer.
        assert sa.isdtype(dtype, (kind,)) is sa.isdtype(dtype, kind)
        # NumPy's own isdtype agrees on every category both have.
        assert sa.isdtype(dtype, kind) == np.isdtype(dtype.np, kind)


def test_isdtype_errors_unchanged() -> None:
    with pytest.raises(ValueError, match="'floating' is neither a dtype category"):
        sa.isdtype(sa.float64, "floating")
    with pytest.raises(TypeError, match="dtype must name a supported dtype"):
        sa.isdtype(np.float16, "real floating")
    with pytest.raises(TypeError, match="dtype must name a supported dtype"):
        sa.isdtype("float16", "real floating")
    # Other spellings of a dtype (docs/dtypes.md) take the general path: the same answer.
    assert sa.isdtype(np.float64, "real floating") is sa.isdtype("f8", "real floating") is True


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("scalar", [2, 2.5, True, 1j, np.float64(2.5)], ids=repr)
def test_result_type_of_an_array_and_a_scalar(dtype, scalar) -> None:
    x = sa.ones(2, dtype=dtype)
    try:
        want = sa.result_type(x.dtype, scalar)  # the dtype argument: the general path
    except TypeError as exc:
        with pytest.raises(TypeError, match=str(exc)[:30]):
            sa.result_type(x, scalar)
        return
    assert sa.result_type(x, scalar) is want
    assert sa.result_type(scalar, x) is want
    # What an operation of the two gives.
    assert (x + scalar).dtype is want


def test_result_type_int_out_of_range_and_bad_arguments() -> None:
    with pytest.raises(
        OverflowError, match="arrays_and_dtypes: Python int 1000 is out of range for int8"
    ):
        sa.result_type(sa.ones(2, dtype=sa.int8), 1000)
    with pytest.raises(TypeError, match="got 'float16'"):
        sa.result_type(sa.ones(2), "float16")
    with pytest.raises(TypeError, match="got <object"):
        sa.result_type(sa.ones(2), object())
    assert sa.result_type(sa.ones(2, dtype=sa.float32), "float64") is sa.float64
    with pytest.raises(ValueError, match="at least one array, dtype or scalar"):
        sa.result_type()
    assert sa.result_type(sa.ones(2, dtype=sa.float32), sa.ones(2, dtype=sa.int64)) is (
        sa.result_type(sa.float32, sa.int64)
    )


@pytest.mark.parametrize(
    "scalars",
    [(1,), (1.5,), (True,), (1j,), (1, 2), (1.0, 2), (True, 1), (True, False), (1j, True)],
)
def test_result_type_of_python_scalars_alone_is_numpys(scalars) -> None:
    # No array or dtype among them: the default dtype of the highest kind, NumPy's answer
    # (xarray asks it of each argument alone).
    assert sa.result_type(*scalars) == np.result_type(*scalars)
    assert sa.result_type(*scalars) in sa.__array_namespace_info__().dtypes().values()
