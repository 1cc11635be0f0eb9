"""The buffer protocol of the array type (docs/array.md, "The buffer protocol"): memoryview(x)
on every supported Python (3.11 included, which has no __buffer__), for every dtype and view
layout, against NumPy's answers for the same views built by NumPy."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES, views

import stridedarray as sa

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

PyBUF_WRITABLE = 0x0001
PyBUF_FULL = 0x011D  # PyBUF_INDIRECT | PyBUF_WRITABLE | PyBUF_FORMAT


def _get_buffer(obj: object, flags: int) -> None:
    """PyObject_GetBuffer(obj, flags) from C, then PyBuffer_Release: raises what it raises."""
    view = (ctypes.c_char * 256)()  # larger than any Py_buffer
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    get.restype = ctypes.c_int
    get(obj, ctypes.addressof(view), flags)  # pythonapi raises the exception it sets
    release = ctypes.pythonapi.PyBuffer_Release
    release.argtypes = [ctypes.c_void_p]
    release.restype = None
    release(ctypes.addressof(view))


def _outcome(f):
    try:
        return ("ok", f())
    except Exception as e:  # noqa: BLE001 - the exception type is the answer compared
        return ("raises", type(e))


def _check(x: sa.Array, ref: np.ndarray, base_writeable: bool = True) -> None:
    m = memoryview(x)
    assert m.obj is x
    assert m.format == memoryview(ref).format  # NumPy's format character for the dtype
    assert m.itemsize == ref.itemsize and m.ndim == ref.ndim and m.shape == ref.shape
    if ref.size:
        # signed byte strides: ours in elements times the item size (extent-1 axes are free)
        for n, got, ours in zip(ref.shape, m.strides, x.strides, strict=True):
            assert n == 1 or got == ours * ref.itemsize
    # read-only: read-only memory, or a view that repeats elements (NumPy's broadcast_to
    # result is read-only even when it repeats nothing, e.g. shape () to (); ours is not)
    repeats = ref.size > 0 and any(
        n > 1 and s == 0 for n, s in zip(x.shape, x.strides, strict=True)
    )
    assert m.readonly == (repeats or not base_writeable)
    back = np.asarray(m)
    assert back.dtype == ref.dtype
    np.testing.assert_array_equal(back, ref)
    # bytes(x) as bytes(ndarray): a 0-d integer array is taken as a count (__index__)
    assert _outcome(lambda: bytes(x)) == _outcome(lambda: bytes(ref))
    assert m.tobytes() == ref.tobytes()
    if ref.size:
        assert np.shares_memory(back, ref)
    m.release()


@settings(max_examples=300, deadline=None)
@given(views(st.sampled_from(ALL_DTYPES)))
def test_memoryview_of_every_view_and_dtype_is_numpys(p):
    # views(): negative and step slices, ints, None, flips, transposes, broadcast_to (zero
    # strides, read-only), expand_dims, squeeze, reshape, 0-d and empty, views of views.
    _check(p.x, p.ref, p.base_np.flags.writeable)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize(
    "make",
    [
        ("reversed", lambda a: a[::-1], lambda n: n[::-1]),
        ("step", lambda a: a[1::2], lambda n: n[1::2]),
        ("transposed", lambda a: sa.reshape(a, (3, 4)).mT, lambda n: n.reshape(3, 4).T),
        (
            "broadcast",
            lambda a: sa.broadcast_to(a[:4], (3, 4)),
            lambda n: np.broadcast_to(n[:4], (3, 4)),
        ),
        ("zero-d", lambda a: a[5], lambda n: n[5, ...]),
        ("empty", lambda a: a[3:3], lambda n: n[3:3]),
        ("empty 2-d", lambda a: sa.reshape(a, (3, 4))[:, 4:], lambda n: n.reshape(3, 4)[:, 4:]),
    ],
    ids=lambda m: m[0],
)
def test_memoryview_layouts(dt, make):
    base = np.arange(12).astype(dt.np)
    _, ours, numpys = make
    _check(ours(sa.asarray(base)), numpys(base))
    frozen = base.copy()
    frozen.flags.writeable = False
    _check(ours(sa.asarray(frozen)), numpys(frozen), base_writeable=False)


def test_read_only_arrays_refuse_a_writable_buffer():
    ro = sa.asarray(bytes(16), dtype=sa.uint8)
    assert memoryview(ro).readonly
    with pytest.raises(BufferError, match="storage is read-only"):
        _get_buffer(ro, PyBUF_FULL)
    bc = sa.broadcast_to(sa.zeros(1), (3,))
    assert memoryview(bc).readonly
    with pytest.raises(BufferError, match="zero stride"):
        _get_buffer(bc, PyBUF_WRITABLE)
    w = sa.zeros(3)
    _get_buffer(w, PyBUF_FULL)  # a writable array exports a writable buffer
    m = memoryview(w)
    assert not m.readonly
    m[1] = 5.0
    assert w.tolist() == [0.0, 5.0, 0.0]


def test_contiguity_requests_follow_numpy():
    # A consumer asking for contiguous bytes (PyBUF_SIMPLE) of a strided view gets NumPy's
    # own refusal, as for the NumPy view.
    x = sa.arange(6.0)[::2]
    with pytest.raises(ValueError, match="not C-contiguous"):
        _get_buffer(np.arange(6.0)[::2], 0)
    with pytest.raises(ValueError, match="not C-contiguous"):
        _get_buffer(x, 0)
    _get_buffer(sa.arange(6.0), 0)


def test_exports_keep_the_memory_alive():
    import gc

    x = sa.arange(4.0)[::-1]
    m = memoryview(x)
    del x
    gc.collect()
    assert m.tolist() == [3.0, 2.0, 1.0, 0.0]


def test_huge_broadcast_says_too_large():
    v = sa.asarray(np.arange(4.0))._view((2**40, 2**40), (0, 0), 0)
    with pytest.raises(ValueError, match="too large"):
        memoryview(v)
