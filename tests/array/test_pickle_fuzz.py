"""A pickle fuzzer: hostile reconstructor arguments, forged BUILD states, every protocol (0 to 5)
and out-of-band buffers of any size, alignment and mutability.

Every drawn pickle either loads into an array whose elements are exactly those its arguments
describe (computed here from the payload's bytes with NumPy, independently of the library's
checks), or is refused with `pickle.UnpicklingError`; nothing else may happen (no other
exception, no read outside the payload: tools/checks/sanitize runs this file under
AddressSanitizer). The CI budget runs with the suite; the large budget is marked slow."""

from __future__ import annotations

import copy
import pickle
import pickletools
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import views

import stridedarray as sa

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means

_FUZZ = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
_NAMES = [d.name for d in sa.__array_namespace_info__().dtypes().values()]


class _Reduce:
    """Pickles as a call of `func` with `args`, the form of a forged array pickle."""

    def __init__(self, func: Any, args: tuple) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> tuple:
        return self.func, self.args


_EDGE_INTS = [
    0,
    1,
    -1,
    2,
    3,
    7,
    16,
    17,
    2**31,
    2**32 + 1,
    2**61 + 2,
    2**62,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    2**64 + 1,
    2**70,
    -(2**70),
]
ints = st.one_of(st.sampled_from(_EDGE_INTS), st.integers(-40, 40))
# What a hostile pickle can put where an integer belongs: ints, NumPy integers (whose
# arithmetic wraps), bools, floats, strings, None.
int_like = st.one_of(
    ints,
    ints.filter(lambda v: -(2**63) <= v < 2**63).map(np.int64),
    st.integers(0, 2**64 - 1).map(np.uint64),
    st.booleans(),
    st.floats(allow_nan=True),
    st.just("3"),
    st.none(),
)
int_tuples = st.one_of(
    st.lists(int_like, max_size=5).map(tuple),
    st.lists(ints, max_size=5).map(tuple),
    st.lists(ints, max_size=3),
    int_like,
)
# In-band payloads; out-of-band ones are drawn in hostile_pickles (any size, misaligned,
# read-only).
payloads = st.one_of(
    st.binary(max_size=80),
    st.binary(max_size=80).map(bytearray),
    st.binary(max_size=80).map(lambda b: pickle.PickleBuffer(bytearray(b))),
    st.just(12345),
    st.none(),
    st.just("abc"),
)
states = st.one_of(
    st.dictionaries(
        st.sampled_from(["_shape", "_strides", "_origin", "_st", "_npv", "_dtype", "x"]),
        int_tuples,
        max_size=3,
    ),
    st.tuples(
        st.none(),
        st.dictionaries(st.sampled_from(["_shape", "_strides", "_origin"]), int_tuples, max_size=3),
    ),
    int_like,
)


@st.composite
def hostile_pickles(draw) -> tuple[bytes, list | None]:
    """(pickle bytes, out-of-band buffers or None) built from a real array's pickle."""
    p = draw(views(max_side=4))
    protocol = draw(st.integers(0, 5))
    func, args = p.x.__reduce_ex__(protocol)
    args = list(args)
    for _ in range(draw(st.integers(0, 3))):  # replace some arguments
        k = draw(st.integers(0, 5))
        args[k] = draw(
            [
                payloads,
                st.one_of(st.sampled_from(_NAMES), st.text(max_size=8), int_like),
                int_tuples,
                int_tuples,
                int_like,
                st.one_of(st.booleans(), int_like),
            ][k]
        )
    if protocol < 5 and isinstance(args[0], pickle.PickleBuffer):
        args[0] = bytes(args[0].raw())  # only protocol 5 pickles a PickleBuffer
    if len(args) and draw(st.booleans()) and draw(st.integers(0, 4)) == 0:
        args = args[: draw(st.integers(0, 5))]  # too few arguments
    buffers: list | None = None
    if protocol == 5 and isinstance(args[0] if args else None, pickle.PickleBuffer):
        oob: list = []
        data = pickle.dumps(_Reduce(func, tuple(args)), protocol=5, buffer_callback=oob.append)
        raw = bytes(oob[0].raw()) if oob else b""
        cut = draw(st.integers(0, len(raw)))
        shift = draw(st.integers(0, 7))
        kind = draw(st.sampled_from(["same", "cut", "misaligned", "readonly"]))
        if kind == "cut":
            raw = raw[:cut]
        mem = bytearray(shift + len(raw))
        mem[shift:] = raw
        buf: Any = memoryview(mem)[shift:] if kind == "misaligned" else bytearray(raw)
        buffers = [bytes(buf) if kind == "readonly" else buf] * len(oob)
    else:
        data = pickle.dumps(_Reduce(func, tuple(args)), protocol=protocol)
    if draw(st.integers(0, 3)) == 0:  # a forged state after the reconstructor's call
        data = pickletools.optimize(data)
        state = pickletools.optimize(pickle.dumps(draw(states), protocol=2))[2:-1]
        data = data[:-1] + state + pickle.BUILD + pickle.STOP
    return data, buffers


def _expected(y: sa.Array) -> np.ndarray | None:
    """The elements y's descriptor names in its buffer, computed with NumPy from the buffer's
    bytes (None when the descriptor reaches outside them: then loading it was a bug)."""
    buf = np.asarray(y.buffer).reshape(-1)
    if 0 in y.shape:
        return np.zeros(y.shape, buf.dtype)
    lo = hi = y.origin
    for n, s in zip(y.shape, y.strides, strict=True):
        lo += min(0, (n - 1) * s)
        hi += max(0, (n - 1) * s)
    if lo < 0 or hi >= buf.size:
        return None
    its = buf.itemsize
    strides = [s * its if n > 1 else 0 for n, s in zip(y.shape, y.strides, strict=True)]
    return np.lib.stride_tricks.as_strided(buf[y.origin :], y.shape, strides)


def _check(case: tuple[bytes, list | None]) -> None:
    data, buffers = case
    try:
        y = pickle.loads(data, buffers=buffers)
    except pickle.UnpicklingError:
        return
    except TypeError as e:  # the reconstructor called with the wrong number of arguments
        assert "array()" in str(e) and "argument" in str(e), e
        return
    assert isinstance(y, sa.Array)
    assert all(type(v) is int for v in y.shape + y.strides + (y.origin,))
    assert y.buffer.flags.aligned
    ref = _expected(y)
    assert ref is not None, (y.shape, y.strides, y.origin, y.buffer.size)
    if y.size > 10**5:  # a huge broadcast: its descriptor is checked, its elements are not
        return
    np.testing.assert_array_equal(np.asarray(y), ref)
    np.testing.assert_array_equal(np.asarray(y.to_row_major()), ref)
    np.testing.assert_array_equal(np.asarray(copy.deepcopy(y)), ref)
    if y.ndim >= 1 and y.dtype.kind in "fc":  # through the C core's pack and BLAS routes
        m = y if y.ndim >= 2 else y[None]
        np.testing.assert_allclose(
            np.asarray(m @ m.mT),
            ref.reshape(m.shape) @ np.swapaxes(ref.reshape(m.shape), -1, -2),
            rtol=1e-5,
        )


@settings(_FUZZ, max_examples=300)
@given(hostile_pickles())
def test_hostile_pickles_load_exactly_or_are_refused(case):
    _check(case)


@pytest.mark.slow
@settings(_FUZZ, max_examples=20000)
@given(hostile_pickles())
def test_hostile_pickles_load_exactly_or_are_refused_slow(case):
    _check(case)
