"""The array type (docs/array.md, "The array type"): the descriptor lives in a C type, is
built by one validating constructor and cannot be changed from Python afterwards."""

from __future__ import annotations

import pickle
import pickletools

import numpy as np
import pytest

import stridedarray as sa
from stridedarray import _array
from stridedarray._array import _make, _Storage
from stridedarray._arraytype import ArrayBase

FIELDS = (
    "_st",
    "_dtype",
    "_shape",
    "_strides",
    "_origin",
    "_np",
    "_npv",
    "_c",
    "readonly",
    "ndim",
    "shape",
    "strides",
    "origin",
    "dtype",
    "buffer",
)


@pytest.mark.parametrize("name", FIELDS)
def test_descriptor_fields_cannot_be_assigned_or_deleted(name):
    x = sa.arange(4.0)[::-1]
    before = (x._shape, x._strides, x._origin, x.tolist())
    with pytest.raises(AttributeError):
        setattr(x, name, (10**6,))
    with pytest.raises(AttributeError):
        object.__setattr__(x, name, 5)  # not even past Array's own __setattr__
    with pytest.raises(AttributeError):
        delattr(x, name)
    assert (x._shape, x._strides, x._origin, x.tolist()) == before


def test_arrays_have_no_instance_dict():
    x = sa.zeros(2)
    assert not hasattr(x, "__dict__")
    with pytest.raises(AttributeError):
        x.anything = 1


def _build_pickle(state: object) -> bytes:
    """A pickle of a real array followed by a BUILD opcode with `state` (hand-made)."""
    body = pickle.dumps(sa.arange(4.0), protocol=2)
    assert body.endswith(b".")
    return body[:-1] + pickle.dumps(state, protocol=2)[2:-1] + pickle.BUILD + b"."


@pytest.mark.parametrize(
    "state",
    [
        {"_shape": (10**6,), "_strides": (1,), "_origin": 0},
        (None, {"_origin": 5}),
        (None, {"_st": None}),
    ],
)
def test_a_crafted_pickle_with_build_state_cannot_change_the_descriptor(state):
    data = _build_pickle(state)
    assert any(op.name == "BUILD" for op, _, _ in pickletools.genops(data))
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(data)
    # and even with Array's own refusal out of the way, the fields are read-only
    x = sa.arange(4.0)
    with pytest.raises(AttributeError):
        for k, v in (state if isinstance(state, dict) else state[1]).items():
            object.__setattr__(x, k, v)


def test_the_type_cannot_be_instantiated_directly():
    with pytest.raises(TypeError):
        sa.Array()
    with pytest.raises(TypeError):
        ArrayBase()


def test_array_derives_from_the_c_type_and_adds_no_fields():
    assert issubclass(sa.Array, ArrayBase)
    assert sa.Array.__basicsize__ == ArrayBase.__basicsize__
    assert sa.Array.__slots__ == ()


ST = "st = _Storage(np.arange(4.0))"


@pytest.mark.parametrize(
    "args, exc, match",
    [
        ((np.arange(4.0), sa.float64, (4,), (1,), 0), TypeError, "must be a _Storage"),
        (("st", "float64", (4,), (1,), 0), TypeError, "must be a stridedarray dtype"),
        (("st", sa.float32, (4,), (1,), 0), ValueError, "does not match its storage"),
        (("st", sa.float64, 4, (1,), 0), TypeError, "shape must be a tuple"),
        (("st", sa.float64, (4,), (1,), 1.0), TypeError, "origin must be an integer"),
        (("st", sa.float64, (True,), (1,), 0), TypeError, "not bools"),
        (("st", sa.float64, (4,), (1,), True), TypeError, "not a bool"),
        (("st", sa.float64, (2.0,), (1,), 0), TypeError, "must hold integers"),
        (
            ("st", sa.float64, (np.int64(2**61 + 2),), (np.int64(8),), 0),
            ValueError,
            "out of bounds",
        ),  # wraps in int64 arithmetic: converted and checked exactly
        (("st", sa.float64, (np.uint64(2**64 - 1),), (0,), 0), ValueError, "outside"),
        (("st", sa.float64, (4,), (1,), np.uint64(2**63)), ValueError, "64-bit range"),
        (("st", sa.float64, (5,), (1,), 0), ValueError, "out of bounds"),
        (("st", sa.float64, (2,), (2**70,), 0), ValueError, "out of bounds"),
        (("st", sa.float64, (2,), (-(2**70),), 3), ValueError, "out of bounds"),
        (("st", sa.float64, (1,), (1,), 2**70), ValueError, "out of bounds"),
        (("st", sa.float64, (2**62, 2**62), (2**62, 2**62), 0), ValueError, "out of bounds"),
        (("st", sa.float64, (-1,), (1,), 0), ValueError, "negative extent"),
        (("st", sa.float64, (1,) * 65, (0,) * 65, 0), ValueError, "64 dimensions"),
        (("st", sa.float64, (2,), (1, 1), 0), ValueError, "but strides"),
    ],
)
def test_the_constructor_refuses_bad_descriptors(args, exc, match):
    st = _Storage(np.arange(4.0))
    args = tuple(st if isinstance(a, str) and a == "st" else a for a in args)
    with pytest.raises(exc, match=match):
        _make(*args)


def test_the_constructor_converts_and_clamps():
    st = _Storage(np.arange(4.0))
    x = _make(st, sa.float64, (np.int32(2),), [np.int64(-1)], np.int8(3))
    assert x.shape == (2,) and x.strides == (-1,) and x.origin == 3
    assert all(type(v) is int for v in (*x.shape, *x.strides, x.origin))
    assert x.tolist() == [3.0, 2.0]
    # empty arrays: anything goes for strides, the origin is clamped into [0, nbuf]
    for origin, clamped in ((-5, 0), (99, 4), (2**80, 4), (-(2**80), 0), (2, 2)):
        e = _make(st, sa.float64, (0, 3), (2**70, -(2**70)), origin)
        assert e.origin == clamped and e.size == 0 and np.asarray(e).shape == (0, 3)
    # an extent-1 axis multiplies nothing: its stride may be anything
    y = _make(st, sa.float64, (1, 2), (2**80, 1), 1)
    assert y.tolist() == [[1.0, 2.0]] and y._np.strides[1] == 8
    # a broadcast beyond int64 is a valid descriptor; using it says it is too large
    h = _make(st, sa.float64, (2**64,), (0,), 0)
    with pytest.raises(ValueError, match="too large"):
        _ = h._np


@pytest.mark.parametrize(
    "arr, match",
    [
        (np.arange(8.0)[::2], "C-contiguous"),
        (np.arange(4.0).astype(">f8"), "native byte order"),
        (np.frombuffer(bytearray(33), dtype=np.uint8)[1:].view(np.float64), "aligned"),
        ([1.0, 2.0], "numpy.ndarray"),
    ],
)
def test_storage_refuses_memory_the_c_core_cannot_load(arr, match):
    with pytest.raises((TypeError, ValueError), match=match):
        _Storage(arr)


def test_storage_fields_are_read_only():
    st = _Storage(np.arange(4.0))
    with pytest.raises(AttributeError):
        st.nbuf = 10**6
    with pytest.raises(AttributeError):
        st.arr = np.arange(10**3.0)


def test_the_cached_numpy_view_is_the_descriptor_and_honours_read_only():
    base = np.arange(12.0)
    x = sa.asarray(base)
    v = sa.reshape(x, (3, 4))[::-1, 1::2]
    n = v._np
    assert v._np is n  # cached
    np.testing.assert_array_equal(n, base.reshape(3, 4)[::-1, 1::2])
    assert n.base is x.buffer or n.base is base
    assert n.flags.writeable
    b = sa.broadcast_to(x[:4], (3, 4))
    assert not b._np.flags.writeable and b.readonly
    # a NumPy array handed to the constructor is cached only if it is exactly the view
    st = x._st
    y = _make(st, sa.float64, (3,), (2,), 1, base[1:7:2])
    assert y._npv is not None and np.shares_memory(y._npv, base)
    z = _make(st, sa.float64, (3,), (2,), 1, base[0:6:2])  # another view: not cached
    assert z._npv is None and z.tolist() == [1.0, 3.0, 5.0]


def test_the_c_descriptor_matches_the_fields():
    x = sa.reshape(sa.arange(24.0), (2, 3, 4))[:, ::-1, 1::2]
    d = x._c
    assert x._c is d
    assert (d.ndim, d.origin, d.nbuf) == (3, x.origin, 24)
    assert list(d.shape[0:3]) == list(x.shape) and list(d.strides[0:3]) == list(x.strides)


def test_no_module_builds_an_array_by_hand():
    # Every Array comes from the one constructor: no module allocates one and sets fields.
    import pathlib
    import re

    pkg = pathlib.Path(_array.__file__).parent
    pat = re.compile(
        r"object\.__new__\(Array\)|_new\(Array\)|Array(Base)?\.__new__\(|__class__ = |"
        r"\._(st|shape|strides|origin|dtype|npv|cd) = "
    )
    hits = [
        f"{p.name}:{i}"
        for p in pkg.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if pat.search(line)
    ]
    assert not hits


def test_no_way_around_the_constructor():
    # Every allocation of an array outside the constructor is refused by the type itself.
    import copyreg

    from stridedarray._arraytype import ArrayBase

    attempts = (
        lambda: object.__new__(sa.Array),
        lambda: ArrayBase.__new__(sa.Array),
        lambda: copyreg._reconstructor(sa.Array, object, None),  # pickle's protocol 0/1 path
        lambda: copyreg.__newobj__(sa.Array),  # pickle's NEWOBJ
        lambda: sa.Array(),
    )
    for make in attempts:
        with pytest.raises(TypeError):
            make()


def test_c_code_sees_a_sequence_with_a_length():
    # PySequence_Check is how pandas (is_scalar) and others tell a collection from a scalar.
    import ctypes

    check = ctypes.pythonapi.PySequence_Check
    check.argtypes = [ctypes.py_object]
    x = sa.arange(4.0)
    assert check(x) == 1
    get = ctypes.pythonapi.PySequence_GetItem
    get.argtypes = [ctypes.py_object, ctypes.c_ssize_t]
    get.restype = ctypes.py_object
    assert float(get(x, 2)) == 2.0 and float(get(x, -1)) == 3.0
