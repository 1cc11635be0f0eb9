"""Freed arrays kept for reuse (csrc/arraytype/freelist.c): an array made from a kept object
is as new (no field, cache or weak reference of the one before), tracked by the collector, and
the class's reference count balances however many arrays are made and freed at once."""

from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import stridedarray as sa

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means


def _churn(batch: int) -> None:
    held = [sa.asarray(np.full((2, 3), float(k))) for k in range(batch)]
    for k, a in enumerate(held):
        assert np.asarray(a).tolist() == [[float(k)] * 3] * 2
    del held


def test_the_class_reference_count_balances_over_made_and_freed_arrays():
    _churn(8)
    before = sys.getrefcount(sa.Array)
    for batch in (1, 3, 16, 17, 100):  # within, at and beyond the number of kept objects
        for _ in range(20):
            _churn(batch)
    after = sys.getrefcount(sa.Array)  # not inside the assert: pytest's rewrite holds a ref
    assert after == before


def test_an_array_made_after_others_were_freed_has_nothing_of_theirs():
    for _ in range(50):
        old = sa.reshape(sa.arange(12, dtype=sa.int16), (3, 4))[::-1, 1::2]
        np.asarray(old)  # caches its NumPy view
        old.__array_interface__  # noqa: B018
        ref = weakref.ref(old)
        del old
        assert ref() is None
        new = sa.ones((5,), dtype=sa.float32)
        assert (new.shape, new._strides, new._origin, new.dtype) == ((5,), (1,), 0, sa.float32)
        assert np.asarray(new).tolist() == [1.0] * 5
        assert weakref.ref(new)() is new
        assert gc.is_tracked(new)


def test_arrays_kept_across_a_collection_stay_whole():
    views = [sa.arange(6.0)[k % 3 :: 2] for k in range(40)]
    del views[::2]
    gc.collect()
    for k, v in zip(range(1, 40, 2), views, strict=True):
        assert np.asarray(v).tolist() == np.arange(6.0)[k % 3 :: 2].tolist()


def _count_finalized(cls: type, make) -> list[int]:
    """Give `cls` a __del__ counting its calls; free 5 arrays made by `make`, three times
    over (the later rounds made from freed ones); the counts after each round."""
    calls: list[int] = []
    cls.__del__ = lambda self: calls.append(1)  # type: ignore[attr-defined]
    try:
        counts = []
        for _ in range(3):
            held = [make() for _ in range(5)]
            del held
            counts.append(len(calls))
        return counts
    finally:
        del cls.__del__  # type: ignore[attr-defined]


def test_a_del_method_given_to_the_class_later_runs_for_every_freed_array():
    _churn(20)  # the list holds freed arrays from before __del__ existed
    assert _count_finalized(sa.Array, lambda: sa.zeros(3)) == [5, 10, 15]


# A registered subclass (with and without an instance dict, its __del__): test_handover.py.
