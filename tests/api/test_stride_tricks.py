"""`stridedarray.lib.stride_tricks` (NumPy's `numpy.lib.stride_tricks`): `sliding_window_view`
against NumPy's function by name over random views of every dtype (negative, step-two, zero
strides, transposed, 0 and 1 extents), random windows and axes (repeated ones too); it copies
nothing, is read-only unless asked, and refuses bad input by name."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import views

import stridedarray as sa
from stridedarray.lib.stride_tricks import sliding_window_view

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

np_swv = np.lib.stride_tricks.sliding_window_view


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_sliding_window_view_as_numpy(data):
    p = data.draw(views())
    nd = p.ref.ndim
    if nd and data.draw(st.booleans()):
        axis = tuple(data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=3)))
        left = list(p.ref.shape)
        window = []
        for a in axis:  # each window fits what the earlier ones on its axis left
            w = data.draw(st.integers(0, left[a]))
            left[a] -= w - 1
            window.append(w)
        arg_axis: object = axis if len(axis) > 1 or data.draw(st.booleans()) else axis[0]
        arg_window: object = tuple(window) if arg_axis is axis else window[0]
    else:
        arg_axis = None
        arg_window = tuple(data.draw(st.integers(0, n)) for n in p.ref.shape)
    writeable = data.draw(st.booleans())
    got = sliding_window_view(p.x, arg_window, arg_axis, writeable=writeable)
    expected = np_swv(p.ref, arg_window, arg_axis)
    assert isinstance(got, sa.Array) and got.dtype == p.x.dtype
    assert got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)
    # a view of x's memory, not a copy; read-only unless asked (and x writable)
    assert got.buffer.ctypes.data == p.x.buffer.ctypes.data
    assert got.buffer.nbytes == p.x.buffer.nbytes
    if not writeable:
        assert got.readonly
    elif got.size:  # (an empty view has nothing to write)
        assert got.readonly == p.x.readonly


def test_windows_share_memory_and_writes_show_through():
    x = sa.zeros(6)
    v = sliding_window_view(x, 3)
    assert v.readonly and v.strides == (1, 1) and v.origin == 0
    with pytest.raises(ValueError, match="read-only"):
        v[0, 0] = 1.0
    x[2] = 7.0  # the windows see writes to x
    np.testing.assert_array_equal(np.asarray(v)[:, :], np_swv(np.asarray(x), 3))
    w = sliding_window_view(x, 3, writeable=True)
    w[1, 2] = 5.0  # element 3 of x, in windows 1, 2 and 3
    assert float(x[3]) == 5.0 and float(w[3, 0]) == 5.0
    frozen = sa.asarray(np.frombuffer(b"\0" * 32, dtype=np.float64))
    assert sliding_window_view(frozen, 2, writeable=True).readonly  # x's memory is read-only


def test_windows_of_a_reversed_step_two_view():
    base = np.arange(24.0).reshape(4, 6)
    x = sa.asarray(base)[::-1, ::2]
    got = sliding_window_view(x, (2, 2))
    assert got.strides == (-6, 2, -6, 2) and got.shape == (3, 2, 2, 2)
    np.testing.assert_array_equal(np.asarray(got), np_swv(base[::-1, ::2], (2, 2)))
    assert sa.sum(sliding_window_view(sa.arange(10.0)[::-2], 2), axis=-1).tolist() == [
        16.0,
        12.0,
        8.0,
        4.0,
    ]


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((sa.ones(3), -1), {}, ValueError, "window_shape must not contain negative"),
        ((sa.ones(3), 4), {}, ValueError, r"the window \(4\) is larger than axis 0"),
        ((sa.ones((3, 3)), 2), {}, ValueError, "with axis=None, window_shape needs one entry"),
        ((sa.ones((3, 3)), (2, 2)), {"axis": 0}, ValueError, "window_shape has 2 entries"),
        ((sa.ones(3), 2), {"axis": 1}, ValueError, "axis 1 is out of bounds"),
        ((sa.ones(3), 2.0), {}, TypeError, "window_shape must be an integer"),
        ((sa.ones(3), (2.0,)), {}, TypeError, r"window_shape\[0\] must be an integer"),
        ((sa.ones(3), 2), {"writeable": "yes"}, TypeError, "writeable must be True or False"),
        (([1.0, 2.0], 1), {}, TypeError, "sliding_window_view: x must be a stridedarray"),
        ((sa.ones((1,) * 40), (1,) * 40), {}, ValueError, "the view would have 80 axes"),
        ((sa.ones(4), (3, 3)), {"axis": (0, 0)}, ValueError, r"the window \(3\) is larger"),
    ],
)
def test_sliding_window_view_bad_input(args, kwargs, exc, match):
    before = np.asarray(args[0]).copy() if isinstance(args[0], sa.Array) else None
    with pytest.raises(exc, match=match):
        sliding_window_view(*args, **kwargs)
    if before is not None:
        np.testing.assert_array_equal(np.asarray(args[0]), before)


def test_the_module_is_numpys_layout_and_first_class():
    assert sa.lib.stride_tricks.sliding_window_view is sliding_window_view
    assert sa.lib.stride_tricks.broadcast_to is sa.broadcast_to
    assert sliding_window_view.__module__ == "stridedarray.lib.stride_tricks"
    assert sliding_window_view.__qualname__ == "sliding_window_view"
    assert pickle.loads(pickle.dumps(sliding_window_view)) is sliding_window_view
    assert pickle.loads(pickle.dumps(sa.broadcast_to)) is sa.broadcast_to
    assert dir(sa.lib) == ["stride_tricks"]
    with pytest.raises(AttributeError, match="as_strided': NumPy's places a view by byte"):
        sa.lib.stride_tricks.as_strided  # noqa: B018
    v = sliding_window_view(sa.arange(4.0), 2)
    w = pickle.loads(pickle.dumps(v))
    np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    assert w.readonly
