"""Comparing a C path with the Python function it stands in for: what each call did (its
result, or its exception and message), whether two arrays have one descriptor, whether two
calls did the same, and a spy that counts the calls a C path leaves to its Python function."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np


def outcome(f: Callable[[], Any]) -> tuple:
    """("ok", result), or ("raises", exception type, message)."""
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the exception type and message are compared
        return ("raises", type(e), str(e))
    return ("ok", r)


def quiet_outcome(f: Callable[[], Any]) -> tuple:
    """("ok", result), or ("raises", exception type), with every warning made an error: a
    floating-point warning that leaks out of the call is an outcome of its own."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            r = f()
        except Exception as e:  # noqa: BLE001 - the exception type is compared
            return ("raises", type(e))
    return ("ok", r)


def assert_same_result(a, b) -> None:
    """Two quiet_outcome()s: the same exception type, or arrays of one dtype and shape with
    equal values."""
    assert a[0] == b[0], (a, b)
    if a[0] == "raises":
        assert a[1] is b[1], (a, b)
        return
    x, y = a[1], b[1]
    assert x.dtype == y.dtype and x.shape == y.shape
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def assert_same_descriptor(a: Any, b: Any) -> None:
    """a and b have the same shape, strides, origin, dtype and read-only flag."""
    assert (a.shape, a.strides, a.origin, a.dtype, a.readonly) == (
        b.shape,
        b.strides,
        b.origin,
        b.dtype,
        b.readonly,
    )


def assert_same_outcome(fast, slow, parent=None) -> None:
    """Both raised the same exception with the same message, or made equal arrays (descriptor,
    bytes, read-only flag; and both share `parent`'s buffer or neither does)."""
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "raises":
        assert fast[1:] == slow[1:]
        return
    a, b = fast[1], slow[1]
    assert_same_descriptor(a, b)
    if a.size <= 10**6:  # (the huge broadcast views have the equal descriptors checked above)
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()  # NaN and -0.0 bit for bit
    if parent is not None:
        assert (a.buffer is parent.buffer) == (b.buffer is parent.buffer)


class Spy:
    """A Python function that counts its calls: as a NativeFunction's fallback it counts the calls
    the C path did not take."""

    def __init__(self, f):
        self.f = f
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.f(*args, **kwargs)
