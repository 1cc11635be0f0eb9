"""NumPy and buffer-protocol interop: zero-copy both ways, strides kept
(negative too), dtype from the buffer format, read-only sources stay read-only, and foreign
strides that are not whole elements copy (copy=None) or raise (copy=False)."""

from __future__ import annotations

import array
import ctypes

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import ALL_DTYPES, fill, views

import stridedarray as sa

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means


def shares(x: sa.Array, other) -> bool:
    return np.shares_memory(np.asarray(x), np.asarray(other))


@settings(max_examples=150)
@given(views())
def test_asarray_of_strided_ndarray_keeps_strides_and_memory(p):
    x = sa.asarray(p.ref)
    np.testing.assert_array_equal(np.asarray(x), p.ref)
    assert x.shape == p.ref.shape and x.dtype.np == p.ref.dtype
    if p.ref.size:
        assert shares(x, p.ref)
        for n, s, s_ref in zip(p.ref.shape, x.strides, p.ref.strides, strict=True):
            if n > 1:
                assert s * p.ref.itemsize == s_ref  # negative strides kept, not normalised
    c = sa.asarray(p.ref, copy=True)
    assert not (p.ref.size and shares(c, p.ref))
    np.testing.assert_array_equal(np.asarray(c), p.ref)


@settings(max_examples=100)
@given(views(broadcast=False))
def test_numpy_asarray_of_array_shares_memory_both_ways(p):
    n = np.asarray(p.x)
    assert n.shape == p.x.shape and n.dtype == p.x.dtype.np
    if not p.ref.size:
        return
    assert np.shares_memory(n, p.base_np)
    assert n.__array_interface__["data"][0] == p.x.__array_interface__["data"][0]
    # Writes through NumPy are seen by the Array and the other way round.
    v = p.ref.ravel()[0]
    n[(0,) * n.ndim] = not v if n.dtype == np.bool_ else v + 1
    assert np.asarray(p.x)[(0,) * n.ndim] == n[(0,) * n.ndim]
    p.x[(0,) * n.ndim] = v.item()  # a Python scalar written through the Array
    assert n[(0,) * n.ndim] == v


def test_negative_strides_both_ways():
    base = np.arange(24.0).reshape(4, 6)
    n = base[::-1, ::-2]
    x = sa.asarray(n)
    assert x.strides == (-6, -2) and x.origin == x.buffer.size - 1
    back = np.asarray(x)
    assert back.strides == n.strides and np.shares_memory(back, base)
    x[0, 0] = 100.0
    assert base[3, 5] == 100.0


@pytest.mark.parametrize(
    "obj, dtype",
    [
        (b"abc", sa.uint8),
        (bytearray(b"abcd"), sa.uint8),
        (memoryview(b"xy"), sa.uint8),
        (array.array("d", [1.5, 2.5]), sa.float64),
        (array.array("f", [1.5]), sa.float32),
        (array.array("b", [-1, 2]), sa.int8),
        (array.array("B", [1, 2]), sa.uint8),
        (array.array("h", [1]), sa.int16),
        (array.array("H", [1]), sa.uint16),
        (array.array("i", [1]), sa.int32),
        (array.array("I", [1]), sa.uint32),
        (array.array("q", [1, -2]), sa.int64),
        (array.array("Q", [1]), sa.uint64),
        (array.array("l", [7]), sa.int64),
        ((ctypes.c_double * 3)(1, 2, 3), sa.float64),
        ((ctypes.c_int16 * 2)(1, 2), sa.int16),
    ],
)
def test_buffer_protocol_objects_share_memory_with_format_dtype(obj, dtype):
    x = sa.asarray(obj)
    assert x.dtype is dtype
    expected = np.frombuffer(obj, dtype=dtype.np)
    np.testing.assert_array_equal(np.asarray(x), expected)
    assert np.shares_memory(np.asarray(x), np.asarray(memoryview(obj)))
    assert x.readonly == memoryview(obj).readonly


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: d.name)
def test_memoryview_format_of_every_dtype(dt):
    n = fill(dt, (2, 3), 1)
    x = sa.asarray(memoryview(n))
    assert x.dtype is dt and x.shape == (2, 3)
    assert shares(x, n)
    x2 = sa.asarray(memoryview(n)[::-1])  # a strided memoryview keeps its strides
    assert x2.strides == (-3, 1) and shares(x2, n)


def test_bytearray_writes_through():
    b = bytearray(4)
    x = sa.asarray(b)
    x[1] = 7
    x[2:] = 9
    assert bytes(b) == b"\x00\x07\x09\x09"


def test_read_only_sources_give_read_only_arrays():
    ro = np.arange(6.0)
    ro.flags.writeable = False
    for src in [
        b"abcd",
        memoryview(bytearray(4)).toreadonly(),
        ro,
        np.broadcast_to(np.arange(3.0), (2, 3)),
    ]:
        x = sa.asarray(src)
        before = np.asarray(x).copy()
        assert x.readonly
        for v in (x, x[::-1], sa.flip(x), x[..., None]):
            assert v.readonly
            with pytest.raises(ValueError, match="read-only"):
                v[...] = 1
            with pytest.raises(ValueError):
                np.asarray(v)[...] = 1  # NumPy sees the read-only flag too
        np.testing.assert_array_equal(np.asarray(x), before)
    assert not sa.zeros(3).readonly
    # A copy of read-only data is writable.
    c = sa.asarray(b"ab", copy=True)
    assert not c.readonly
    c[0] = 1


def test_foreign_strides_not_multiple_of_itemsize():
    s = np.zeros(5, dtype=[("a", "<i4"), ("b", "<f8")])
    s["b"] = np.arange(5.0)
    field = s["b"]  # byte stride 12, item size 8
    x = sa.asarray(field)
    assert not shares(x, s) and x.is_c_contiguous
    np.testing.assert_array_equal(np.asarray(x), np.arange(5.0))
    for src in (field, memoryview(field)):
        with pytest.raises(ValueError, match="multiple"):
            sa.asarray(src, copy=False)
    # One element: the stride is never used, but the field sits at byte 4, which is not
    # aligned for float64, so a view is still refused.
    with pytest.raises(ValueError, match="aligned"):
        sa.asarray(field[:1], copy=False)


@pytest.mark.parametrize("dtype", ["<i4", "<f8", "<c16"])
def test_unaligned_memory_copies(dtype):
    raw = bytearray(8 * 17)
    n = np.frombuffer(raw, dtype=dtype, offset=1, count=(len(raw) - 1) // np.dtype(dtype).itemsize)
    assert not n.flags.aligned
    x = sa.asarray(n)
    assert not shares(x, n) and x.is_c_contiguous
    np.testing.assert_array_equal(np.asarray(x), n)
    with pytest.raises(ValueError, match="aligned"):
        sa.asarray(n, copy=False)


def test_non_native_byte_order_copies():
    n = np.arange(4, dtype=">f8")
    x = sa.asarray(n)
    assert x.dtype is sa.float64 and not shares(x, n)
    np.testing.assert_array_equal(np.asarray(x), np.arange(4.0))
    with pytest.raises(ValueError, match="obj cannot be viewed without a copy: its byte order is"):
        sa.asarray(n, copy=False)


# A buffer of characters: typecode "w" (UCS-4) where the array module has it (Python 3.13 and
# later), which deprecates "u" (wchar_t) and removes it in 3.16.
_CHARS = "w" if "w" in array.typecodes else "u"


@pytest.mark.parametrize(
    "src",
    [
        np.zeros(3, np.float16),
        np.array(["a"]),
        np.zeros(2, object),
        array.array(_CHARS, "ab"),
        np.zeros(2, np.longdouble),
        np.zeros(2, "M8[s]"),
    ],
)
def test_unsupported_dtype_is_type_error(src):
    with pytest.raises(TypeError, match="dtype"):
        sa.asarray(src)


def test_copy_false_with_dtype_change_raises():
    with pytest.raises(ValueError, match="cannot convert int64 to float64 without a copy"):
        sa.asarray(np.arange(3), dtype=sa.float64, copy=False)
    with pytest.raises(ValueError, match="cannot convert int64 to float64 without a copy"):
        sa.asarray(sa.arange(3), dtype=sa.float64, copy=False)
    with pytest.raises(ValueError, match="cannot wrap a list without copying it"):
        sa.asarray([1, 2], copy=False)
    y = sa.asarray(np.arange(3), dtype=sa.float64)
    assert y.dtype is sa.float64


def test_asarray_of_array():
    x = sa.arange(6)[::-1]
    assert sa.asarray(x) is x
    c = sa.asarray(x, copy=True)
    assert c.buffer is not x.buffer and c.is_c_contiguous
    np.testing.assert_array_equal(np.asarray(c), np.arange(6)[::-1])
    f = sa.asarray(x, dtype=sa.float32)
    assert f.dtype is sa.float32
    np.testing.assert_array_equal(np.asarray(f), np.arange(6.0)[::-1])


def test_buffer_keeps_storage_alive():
    x = sa.asarray(bytearray(b"hello"))[1:]
    import gc

    gc.collect()
    assert bytes(np.asarray(x)) == b"ello"
    assert memoryview(x.buffer).nbytes == 5


# -- the buffer protocol: memoryview(x), on every supported Python (the array type's own) ------
@settings(max_examples=150)
@given(views())
def test_memoryview_of_any_view_shares_memory_with_its_layout(p):
    m = memoryview(p.x)
    assert m.format == memoryview(np.ascontiguousarray(p.ref)).format  # NumPy's own format code
    assert m.shape == p.ref.shape and m.ndim == p.ref.ndim
    assert m.itemsize == p.ref.itemsize
    # byte strides: ours in elements times the item size, negative and zero ones kept (an axis
    # of extent 1, or any axis of an empty array, is never stepped, so its stride is free)
    if p.ref.size:
        for n, got, ours in zip(p.ref.shape, m.strides, p.x.strides, strict=True):
            assert n == 1 or got == ours * p.ref.itemsize
    assert m.readonly == (not np.asarray(p.x).flags.writeable)
    back = np.asarray(m)
    np.testing.assert_array_equal(back, p.ref)
    if p.ref.size:
        assert np.shares_memory(back, np.asarray(p.x))


def test_memoryview_writes_through_and_read_only_stays_read_only():
    x = sa.reshape(sa.arange(6.0), (2, 3))[:, ::-2]
    m = memoryview(x)
    assert not m.readonly and not m.c_contiguous and m.contiguous is False
    np.asarray(m)[0, 0] = 42.0
    assert float(x[0, 0]) == 42.0
    ro = sa.asarray(bytes(16)[:], dtype=sa.uint8)
    assert memoryview(ro).readonly
    with pytest.raises((TypeError, BufferError), match="writable"):
        __import__("ctypes").c_char.from_buffer(ro)  # asks for a writable buffer
    assert memoryview(sa.asarray(3.5)).shape == () and memoryview(sa.asarray(3.5))[()] == 3.5


def test_memoryview_works_on_every_python():
    # The buffer protocol is the array type's own (bf_getbuffer), so Python 3.11, which has
    # no __buffer__, exports it too; tests/array/test_buffer.py checks every layout and dtype.
    x = sa.arange(3.0)
    assert memoryview(x).tolist() == [0.0, 1.0, 2.0]
    assert memoryview(x[::-1]).tolist() == [2.0, 1.0, 0.0]
