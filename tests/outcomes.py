"""Comparing a C path with the Python function it stands in for: what each call did (its
result, or its exception and message) and whether two arrays have one descriptor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def outcome(f: Callable[[], Any]) -> tuple:
    """("ok", result), or ("raises", exception type, message)."""
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the exception type and message are compared
        return ("raises", type(e), str(e))
    return ("ok", r)


def assert_same_descriptor(a: Any, b: Any) -> None:
    """a and b have the same shape, strides, origin, dtype and read-only flag."""
    assert (a.shape, a.strides, a.origin, a.dtype, a.readonly) == (
        b.shape,
        b.strides,
        b.origin,
        b.dtype,
        b.readonly,
    )
