"""reshape and full in C (csrc/arraytype/reshape.c and creation.c, wrapped by NativeFunction)
against their Python functions: the same results (shape, strides, origin, bytes, read-only flag,
shared buffer) and the same errors with the same messages; and which calls each C path takes
itself (the others reach the Python function)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from outcomes import assert_same_descriptor, outcome
from strategies import reshape_targets, views

import stridedarray as sa
from stridedarray._arraytype import NativeFunction

RESHAPE_PY = sa.reshape.__wrapped__
FULL_PY = sa.full.__wrapped__
ABSENT = object()  # copy not passed at all


def _same(fast, slow, parent=None) -> None:
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


class _Spy:
    """A Python function that counts its calls: as a NativeFunction's fallback it counts the calls
    the C path did not take."""

    def __init__(self, f):
        self.f = f
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.f(*args, **kwargs)


def _reshape_args(x, target, copy):
    return (x, target), ({} if copy is ABSENT else {"copy": copy})


def test_the_namespace_functions_are_fast_paths_with_their_python_signature():
    import inspect

    for f in (sa.reshape, sa.full):
        assert type(f) is NativeFunction
        assert f.__doc__ == f.__wrapped__.__doc__ and f.__name__ == f.__wrapped__.__name__
        assert str(inspect.signature(f)) == str(inspect.signature(f.__wrapped__))


# -- reshape ----------------------------------------------------------------------------------
_BAD_TARGETS = st.one_of(
    st.lists(st.integers(-3, 13), max_size=4).map(tuple),
    st.lists(st.integers(-1, 13), max_size=3),  # a list: the Python path takes it
    st.integers(-2, 13),
    st.sampled_from([(np.int64(2), -1), (2.0, -1), (True, -1), (2**64, 0), (0, 2**63), None]),
)


@settings(max_examples=300, deadline=None)
@given(views(max_ops=4), st.data())
def test_reshape_in_c_matches_the_python_path(p, data):
    target = data.draw(reshape_targets(p.ref.size) | _BAD_TARGETS, label="target")
    copy = data.draw(st.sampled_from([ABSENT, None, False, True, 0]), label="copy")
    args, kwargs = _reshape_args(p.x, target, copy)
    fast = outcome(lambda: sa.reshape(*args, **kwargs))
    slow = outcome(lambda: RESHAPE_PY(*args, **kwargs))
    _same(fast, slow, p.x)


@settings(max_examples=200, deadline=None)
@given(views(max_ops=4), st.data())
def test_reshape_in_c_takes_every_view_and_nothing_else(p, data):
    """copy None (passed or not) or False and a target NumPy can view: C makes the view; a
    copy, copy=True, and a shape that is not a tuple of ints go to the Python function."""
    target = data.draw(reshape_targets(p.ref.size), label="target")
    try:
        view = p.ref.reshape(target, copy=False) is not None
    except ValueError:
        view = False
    for copy in (ABSENT, None, False, True):
        spy = _Spy(RESHAPE_PY)
        args, kwargs = _reshape_args(p.x, target, copy)
        outcome(lambda: NativeFunction(spy, "reshape")(*args, **kwargs))  # noqa: B023
        assert spy.calls == (0 if view and copy is not True else 1), (p.ops, target, copy)
    for other in (list(target), target + (np.int64(1),)):
        spy = _Spy(RESHAPE_PY)
        NativeFunction(spy, "reshape")(p.x, other)
        assert spy.calls == 1


_I8 = sa.ones((1, 1), dtype=sa.int8)
_X = sa.reshape(sa.arange(64.0), (4, 4, 4))


@pytest.mark.parametrize(
    "x, target",
    [
        (_I8._view((1, 2**62), (0, 0), 0), (2**62,)),  # a broadcast of 2**62 elements: a view
        (_I8._view((1, 2**62), (0, 0), 0), (2**31, -1)),
        (_I8._view((2**40, 2**40), (0, 0), 0), (-1,)),  # 2**80 elements: the Python path
        (sa.ones((1, 1))._view((1, 2**62), (0, 0), 0), (2**62,)),  # 2**65 bytes
        (_X[::5], (4, 4)),  # a stride beyond the buffer on an extent-1 axis (held as 0 in C)
        (_X[::5], (16, 1)),
        (_X[:, :0], (0, 2**62)),  # empty, but no such shape can exist
        (_X[:, :0], (0, 2**40)),
        (_X[:, :0], (-1, 2**40)),
        (_X.mT, (4, -1, 2)),
        (_X.mT, (2,) * 6),
        (_X.mT, (1,) * 64 + (64,)),
        (sa.asarray(2.5), (1,) * 64),
        (sa.asarray(2.5), (1,) * 65),
        (_X, (4, -1, -1)),
        (_X, (-2, -32)),
        (_X, (0, -1)),
        (_X, (65,)),
        (_X, 64),
        (np.arange(4.0), (2, 2)),
    ],
)
def test_reshape_edge_cases_in_c_match_the_python_path(x, target):
    for copy in (ABSENT, None, False):
        args, kwargs = _reshape_args(x, target, copy)
        fast = outcome(lambda: sa.reshape(*args, **kwargs))  # noqa: B023
        _same(fast, outcome(lambda: RESHAPE_PY(*args, **kwargs)), x)  # noqa: B023


def test_reshape_keywords_the_c_path_leaves_to_python():
    for kwargs in ({"shape": (16, 4)}, {"copy": None, "order": "C"}, {"copy": 1}):
        fast = outcome(lambda: sa.reshape(_X, **kwargs))  # noqa: B023
        _same(fast, outcome(lambda: RESHAPE_PY(_X, **kwargs)), _X)  # noqa: B023
    _same(
        outcome(lambda: sa.reshape(_X, (64,), None)), outcome(lambda: RESHAPE_PY(_X, (64,), None))
    )


# -- full -------------------------------------------------------------------------------------
FILL_VALUES = [
    1.5,
    -0.0,
    math.nan,
    -math.inf,
    True,
    False,
    0,
    -7,
    2**63 - 1,
    -(2**63),
    2**63,  # beyond int64: OverflowError
    -(2**63) - 1,
    1 + 2j,
    complex(math.nan, -0.0),
    np.float64(2.5),
    np.int8(-3),
    np.bool_(True),
    sa.asarray(2.0),
    "x",
    None,
    [1.0],
]
SHAPES = [(), 0, 3, (2, 3), (0, 5), (1,) * 64, (1,) * 65, (-1,), (2**62, 2**62), (True,), 2.0]
SHAPES += [[2, 3], (np.int64(2),), (2**31, 2**31, 0)]


@pytest.mark.parametrize("shape", SHAPES, ids=repr)
@pytest.mark.parametrize("value", FILL_VALUES, ids=repr)
def test_full_in_c_matches_the_python_path(shape, value):
    _same(outcome(lambda: sa.full(shape, value)), outcome(lambda: FULL_PY(shape, value)))


@pytest.mark.parametrize("value", [1.5, -0.0, True, False, 0, 2**63 - 1, -(2**63), 1 - 1j])
@pytest.mark.parametrize("shape", [(), 0, 7, (2, 3), (0, 4), (300, 300)], ids=repr)
def test_full_in_c_takes_python_scalars_with_a_plain_shape(value, shape):
    """C fills (a (300, 300) array without the GIL), NumPy agrees; other calls go to Python."""
    spy = _Spy(FULL_PY)
    got = NativeFunction(spy, "full")(shape, value)
    assert spy.calls == 0
    want = np.full(shape, value)
    assert got.dtype.np == want.dtype and got.shape == want.shape and not got.readonly
    assert np.asarray(got).tobytes() == want.tobytes()
    for args, kwargs in [
        ((shape, value), {"dtype": sa.complex128}),
        ((shape, value), {"device": None}),
        ((list(np.shape(want)), value), {}),
        ((shape, np.asarray(value)[()]), {}),
    ]:
        spy = _Spy(FULL_PY)
        NativeFunction(spy, "full")(*args, **kwargs)
        assert spy.calls == 1, (args, kwargs)


@pytest.mark.parametrize(
    ("kwargs", "in_c"),
    [
        ({}, True),
        ({"dtype": None, "copy": None, "device": None}, True),
        ({"dtype": sa.float64, "copy": False}, True),
        ({"dtype": sa.float32}, False),  # a conversion
        ({"copy": True}, False),  # a copy
        ({"copy": 0}, False),  # not the bool False: the Python function judges it
        ({"device": sa.ones(1).device}, False),
        ({"dtype": "float64"}, False),  # refused by the Python function
        ({"bogus": None}, False),
    ],
)
def test_asarray_of_an_array_as_it_is_returns_it_in_c(kwargs, in_c):
    x = sa.ones((3, 2))[:, ::-1]
    spy = _Spy(sa.asarray.__wrapped__)
    fast, slow = (
        outcome(lambda: NativeFunction(spy, "asarray")(x, **kwargs)),
        outcome(lambda: sa.asarray.__wrapped__(x, **kwargs)),
    )
    assert spy.calls == (0 if in_c else 1)
    assert fast[0] == slow[0]
    if fast[0] == "ok":
        assert (fast[1] is x) == (slow[1] is x)
        assert fast[1].dtype == slow[1].dtype
    else:
        assert fast[1:] == slow[1:]  # the same exception type and message
