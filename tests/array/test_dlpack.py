"""DLPack 1.0: __dlpack__ (stream, max_version, dl_device, copy), __dlpack_device__ and
from_dlpack (device, copy), round trips with NumPy over random views and every dtype."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import views

import stridedarray as sa
from stridedarray._base.device import CPU_DEVICE

pytestmark = [pytest.mark.c_core, pytest.mark.version_sensitive]  # tests/conftest.py says what

SETTINGS = settings(max_examples=25, deadline=None)


def test_dlpack_device():
    assert sa.ones(2).__dlpack_device__() == (1, 0)


@SETTINGS
@given(pair=views())
def test_numpy_imports_our_views_zero_copy(pair):
    y = np.from_dlpack(pair.x)
    np.testing.assert_array_equal(y, pair.ref)
    if pair.ref.size:
        assert np.shares_memory(y, pair.base_np)
    c = np.from_dlpack(pair.x, copy=True)
    np.testing.assert_array_equal(c, pair.ref)
    assert not np.shares_memory(c, pair.base_np)


@SETTINGS
@given(pair=views())
def test_from_dlpack_round_trip(pair):
    y = sa.from_dlpack(pair.ref)
    np.testing.assert_array_equal(np.asarray(y), pair.ref)
    z = sa.from_dlpack(pair.x, copy=True, device=CPU_DEVICE)
    np.testing.assert_array_equal(np.asarray(z), pair.ref)
    assert pair.ref.size == 0 or not np.shares_memory(np.asarray(z), pair.base_np)
    w = sa.from_dlpack(pair.x, copy=False)
    assert pair.ref.size == 0 or np.shares_memory(np.asarray(w), pair.base_np)


@pytest.mark.parametrize("max_version", [None, (0, 8), (1, 0), (2, 0)])
@pytest.mark.parametrize("copy", [None, True, False])
def test_dunder_dlpack_arguments(max_version, copy):
    x = sa.asarray([[1.0, 2.0], [3.0, 4.0]])[:, ::-1]
    cap = x.__dlpack__(max_version=max_version, dl_device=(1, 0), copy=copy)
    versioned = max_version is not None and max_version[0] >= 1
    assert ("dltensor_versioned" in repr(cap)) == versioned


def test_dunder_dlpack_rejections():
    x = sa.ones(2)
    with pytest.raises(BufferError, match="dl_device"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(ValueError, match="stream"):
        x.__dlpack__(stream=1)
    with pytest.raises(ValueError, match="device"):
        sa.from_dlpack(np.ones(2), device="cuda")
    with pytest.raises(AttributeError, match="__dlpack__"):
        sa.from_dlpack([1, 2])


def test_read_only_arrays_export_a_copy_to_legacy_consumers():
    ro = sa.asarray(b"\x01\x02\x03")
    assert ro.readonly
    cap = ro.__dlpack__()
    assert "dltensor" in repr(cap)
    np.testing.assert_array_equal(np.from_dlpack(ro), [1, 2, 3])


class _Producer:
    """A producer whose __dlpack__ returns `out`, whatever it is."""

    def __init__(self, out):
        self.out = out

    def __dlpack__(self, **kwargs):
        return self.out

    def __dlpack_device__(self):
        return (1, 0)


def _capsule(name):
    """A PyCapsule over 8 bytes (kept alive by the returned tuple) named `name` (bytes)."""
    import ctypes

    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    mem = ctypes.create_string_buffer(8)
    return new(ctypes.addressof(mem), name, None), mem


@pytest.mark.parametrize("func", [sa.from_dlpack, sa.asarray])
def test_from_dlpack_says_what_was_given(func):
    name = func.__name__
    accepted = r"a DLPack capsule is a PyCapsule named 'dltensor' or 'dltensor_versioned'"
    for out, what in [(42, "an object of type int"), ("cap", "an object of type str")]:
        with pytest.raises(
            ValueError,
            match=rf"^{name}: _Producer.__dlpack__\(\) returned {what}, "
            rf"not a DLPack capsule \({accepted}\)$",
        ):
            func(_Producer(out))
    cap, _mem = _capsule(b"not_dltensor")
    with pytest.raises(
        ValueError, match=r"returned a capsule named 'not_dltensor', not a DLPack"
    ) as e:
        func(_Producer(cap))
    assert "consumed" not in str(e.value)
    cap, _mem = _capsule(None)
    with pytest.raises(ValueError, match=r"returned an unnamed capsule, not a DLPack capsule"):
        func(_Producer(cap))
    # A used capsule (NumPy renames the capsules it imports), of either DLPack version.
    for kw, used in [({}, "used_dltensor"), ({"max_version": (1, 0)}, "used_dltensor_versioned")]:
        cap = np.arange(3.0).__dlpack__(**kw)
        np.from_dlpack(_Producer(cap))
        with pytest.raises(
            ValueError,
            match=rf"was consumed already \(it is named '{used}'; .*ask the producer for a new one",
        ):
            func(_Producer(cap))
