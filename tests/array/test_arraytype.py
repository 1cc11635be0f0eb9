"""The array type (docs/array.md, "The array type"): the descriptor lives in a C type, is
built by one validating constructor and cannot be changed from Python afterwards; iteration
(csrc/arraytype/iterate.c) and the wrapping of NumPy results (scalars included)."""

from __future__ import annotations

import math
import pickle
import pickletools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import DTYPES, arrays, basic_indices, shapes, views

import stridedarray as sa
from stridedarray._arraytype import ArrayBase
from stridedarray._base.construct import _make, _Storage

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

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
    with pytest.raises(
        pickle.UnpicklingError, match="stridedarray.Array takes no pickle state: this pickle tries"
    ):
        pickle.loads(data)
    # and even with Array's own refusal out of the way, the fields are read-only
    x = sa.arange(4.0)
    with pytest.raises(AttributeError):
        for k, v in (state if isinstance(state, dict) else state[1]).items():
            object.__setattr__(x, k, v)


def test_the_type_cannot_be_instantiated_directly():
    with pytest.raises(TypeError, match="stridedarray.Array is not created directly; use asarray"):
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


_DESCRIPTOR_INTS = st.one_of(
    st.integers(-(2**64), 2**64),
    st.sampled_from([0, 1, -1, 2**63 - 1, 2**63, -(2**63) + 1, -(2**63), True, False]),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.integers(0, 2**64 - 1).map(np.uint64),
    st.integers(-(2**31), 2**31 - 1).map(np.int32),
    st.sampled_from([1.0, np.float64(2.0), "3", None]),
)


def _expected_int(v, low):
    """The rule for one descriptor integer from outside, spelled out (the oracle): bools and
    non-integers refused (TypeError), integers by their value, within [low, 2**63 - 1]."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        return TypeError
    return int(v) if low <= int(v) <= 2**63 - 1 else ValueError


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_DESCRIPTOR_INTS, max_size=4),
    st.lists(_DESCRIPTOR_INTS, max_size=4),
    _DESCRIPTOR_INTS,
    st.booleans(),
)
def test_descriptor_ints_from_a_pickle_follow_the_rule(shape, strides, origin, as_list):
    # The one check of descriptor integers (the constructor's, in C) serves the unpickler:
    # every entry converted exactly or refused, exact ints beyond int64 refused too.
    from stridedarray._arraytype import _descriptor_ints

    want = (
        [_expected_int(v, 0) for v in shape],
        [_expected_int(v, -(2**63 - 1)) for v in strides],
        _expected_int(origin, -(2**63 - 1)),
    )
    first_error = next((w for w in [*want[0], *want[1], want[2]] if isinstance(w, type)), None)
    shape_in, strides_in = (shape, strides) if as_list else (tuple(shape), tuple(strides))
    if first_error is not None:
        with pytest.raises(first_error, match="descriptor (shape|strides|origin)"):
            _descriptor_ints(shape_in, strides_in, origin)
        return
    got = _descriptor_ints(shape_in, strides_in, origin)
    assert got == (tuple(want[0]), tuple(want[1]), want[2])
    assert all(type(v) is int for v in (*got[0], *got[1], got[2]))


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
    # Every Array comes from the one constructor: no module allocates one and sets fields,
    # or sets an object's class (`obj.__class__ = ...`; DType's class attribute is not that).
    import pathlib
    import re

    pkg = pathlib.Path(sa.__file__).parent
    pat = re.compile(
        r"object\.__new__\(Array\)|_new\(Array\)|Array(Base)?\.__new__\(|\.__class__ = |"
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


# --- Descriptors built in C (views, wrapped results) against the Python path ---------------


def _descriptor(x: sa.Array) -> tuple:
    """Everything the constructor decides, and the memory the storage covers."""
    st = x._st.arr
    return (
        x._shape,
        x._strides,
        x._origin,
        x.dtype,
        x.readonly,
        st.__array_interface__["data"][0],
        st.size,
        st.flags.writeable,
    )


def _check_c_built(fast: sa.Array, slow: sa.Array) -> None:
    """`fast` (built in C) is the descriptor the Python path built, the Python-facing
    constructor remakes it from its values, and its NumPy view has its values and flags."""
    assert _descriptor(fast) == _descriptor(slow)
    again = _make(fast._st, fast.dtype, fast._shape, fast._strides, fast._origin)
    assert _descriptor(again) == _descriptor(fast)
    v = np.asarray(fast)
    assert v.flags.writeable == (not fast.readonly)
    np.testing.assert_array_equal(v, np.asarray(slow))
    assert v.shape == fast.shape
    if fast.size:
        its = v.itemsize
        for n, s, sb in zip(fast.shape, fast._strides, v.strides, strict=True):
            assert n <= 1 or s * its == sb


def _numpy_descriptor(x: sa.Array, key) -> tuple:
    """NumPy's view of x for a basic key, as (shape, strides, origin) in x's storage: the
    oracle of the C rule (origin None for an empty result, whose origin NumPy does not fix)."""
    v = np.asarray(x)[key]
    if not isinstance(v, np.ndarray):
        v = np.asarray(x)[(*key, ...) if isinstance(key, tuple) else (key, ...)]
    its = v.itemsize
    start = x._st.arr.__array_interface__["data"][0]
    origin = (v.__array_interface__["data"][0] - start) // its if v.size else None
    return v.shape, tuple(s // its for s in v.strides), origin


def _check_numpy_view(fast: sa.Array, x: sa.Array, key) -> None:
    """`fast` (x[key], built by C's rule) is NumPy's view of x for `key`: shape, the strides
    of the axes an index moves along, and origin (non-empty); the constructor remakes it."""
    shape, strides, origin = _numpy_descriptor(x, key)
    assert fast.shape == shape
    if fast.size:
        assert fast._origin == origin
        for n, s, s_np in zip(shape, fast._strides, strides, strict=True):
            assert n <= 1 or s == s_np
    again = _make(fast._st, fast.dtype, fast._shape, fast._strides, fast._origin)
    assert _descriptor(again) == _descriptor(fast)
    v = np.asarray(fast)
    assert v.flags.writeable == (not fast.readonly)
    np.testing.assert_array_equal(v, np.asarray(x)[key])


@settings(max_examples=300, deadline=None)
@given(views(), st.data(), st.booleans())
def test_c_views_equal_numpys(p, data, frozen):
    x = p.x
    if frozen:  # the same layout over read-only storage
        ro = p.base_np.copy()
        ro.flags.writeable = False
        x = _make(_Storage(ro.reshape(-1)), x.dtype, x._shape, x._strides, x._origin)
    key = data.draw(basic_indices(x.shape, allow_none=x.ndim < 6))
    view = x[key]
    _check_numpy_view(view, x, key)
    # a view of the view, and the transposes, from C values too
    key2 = data.draw(basic_indices(view.shape, allow_none=view.ndim < 6))
    _check_numpy_view(view[key2], view, key2)
    if view.ndim >= 2:
        t = view.mT
        slow = _make(view._st, view.dtype, *_swap_last(view), view._origin)
        _check_c_built(t, slow)
        np.testing.assert_array_equal(np.asarray(t), np.swapaxes(np.asarray(view), -1, -2))


def _swap_last(x: sa.Array) -> tuple[tuple, tuple]:
    sh, sd = list(x._shape), list(x._strides)
    sh[-2:], sd[-2:] = sh[:-3:-1], sd[:-3:-1]
    return tuple(sh), tuple(sd)


@pytest.mark.parametrize("step", [5, 2**40, 2**62, -(2**62), 2**63 - 1, -(2**63 - 1)])
@pytest.mark.parametrize("shape", [(4,), (1, 3), (3, 1), (0, 2)])
def test_c_views_with_strides_c_holds_as_zero_keep_them_exactly(step, shape):
    # A step beyond the buffer on an axis of extent <= 1 is held as 0 in C; the strides
    # tuple keeps its value, and views of it (the same rule, the exact strides carried as
    # Python ints) and its .mT agree with NumPy.
    x = sa.reshape(sa.arange(float(math.prod(shape))), shape)
    key = (slice(None, None, step), ...)
    v = x[key]
    _check_numpy_view(v, x, key)
    if v.size:
        assert v._strides[0] == x._strides[0] * step
    back = (Ellipsis, slice(None, None, -1))
    w = v[back]
    _check_numpy_view(w, v, back)
    assert w._strides == v._strides[:-1] + (-v._strides[-1],)
    if v.ndim >= 2:
        _check_c_built(v.mT, _make(v._st, v.dtype, *_swap_last(v), v._origin))


def _layouts(a: np.ndarray, draw) -> np.ndarray:
    """A NumPy layout of `a`'s memory: permuted, reversed, stepped, broadcast or read-only."""
    kind = draw(st.sampled_from(["permute", "reverse", "step", "broadcast", "frozen", "F"]))
    if kind == "permute":
        return a.transpose(draw(st.permutations(range(a.ndim))))
    if kind == "reverse":
        return a[(..., *(slice(None, None, draw(st.sampled_from([1, -1]))) for _ in a.shape))]
    if kind == "step":
        return a[(..., *(slice(None, None, draw(st.sampled_from([1, 2, -2]))) for _ in a.shape))]
    if kind == "broadcast":
        return np.broadcast_to(a, (draw(st.integers(0, 3)), *a.shape))
    if kind == "frozen":
        b = a.T
        b.flags.writeable = False
        return b
    return np.asfortranarray(a)


def _numpy_window(arr: np.ndarray) -> tuple:
    """The oracle of an array over `arr`'s memory, from NumPy's own description of it: shape,
    element strides (0 on axes of extent 1 or 0, which no index moves along), the address of
    element (0, ..., 0), and how many elements the storage must span (0 for an empty array)."""
    its = arr.itemsize
    strides = tuple(s // its if n > 1 else 0 for n, s in zip(arr.shape, arr.strides, strict=True))
    span = sum(abs(s) * (n - 1) for n, s in zip(arr.shape, strides, strict=True))
    return arr.shape, strides, arr.__array_interface__["data"][0], span + 1 if arr.size else 0


def _check_window(x: sa.Array, arr: np.ndarray) -> None:
    shape, strides, first, nbuf = _numpy_window(arr)
    assert x.shape == shape and x._st.nbuf == nbuf
    if arr.size:
        assert all(
            n <= 1 or s == s_np for n, s, s_np in zip(shape, x._strides, strides, strict=True)
        )
        its = arr.itemsize
        assert x._st.arr.__array_interface__["data"][0] + x._origin * its == first
        assert np.shares_memory(np.asarray(x), arr)
    np.testing.assert_array_equal(np.asarray(x), arr)
    repeats = arr.size and any(n > 1 and s == 0 for n, s in zip(shape, strides, strict=True))
    assert x.readonly == (not arr.flags.writeable or repeats)
    assert np.asarray(x).flags.writeable == (not x.readonly)


@settings(max_examples=300, deadline=None)
@given(arrays(shape=shapes(0, 4)), st.data())
def test_wrapping_other_layouts_views_numpys_memory(pair, data):
    # One C rule (construct.c, sa_make_strided) views a native ndarray of any layout: for
    # results (_wrap) and for asarray's ndarrays (_from_ndarray, through _window).
    from stridedarray._arraytype import _wrap
    from stridedarray._base.construct import _from_ndarray

    arr = _layouts(pair[1], data.draw)
    for x in (_wrap(arr), _from_ndarray(arr, None)):
        _check_window(x, arr)
        again = _make(x._st, x.dtype, x._shape, x._strides, x._origin)
        assert _descriptor(again) == _descriptor(x)


def test_the_window_declines_memory_it_cannot_view():
    # _window views what C's kernels can load; the rest is None, which _from_ndarray copies
    # (or refuses under copy=False, naming the cause).
    from stridedarray._arraytype import _window

    raw = np.zeros(41, np.uint8)
    misaligned = raw[1:].view(np.float64)
    swapped = np.arange(4.0).astype(">f8")
    odd = np.lib.stride_tricks.as_strided(np.zeros(8), shape=(3,), strides=(12,))
    inner = np.zeros((4, 3), np.int16).view(np.uint8)[:, ::2].view(np.int8)  # 2-byte stride
    for arr in (misaligned, swapped, odd):
        if arr.dtype.isnative:  # (a byte-swapped dtype is not ours: _from_ndarray copies it)
            assert _window(arr, sa.float64) is None
        y = sa.asarray(arr)
        np.testing.assert_array_equal(np.asarray(y), arr)
        assert not np.shares_memory(np.asarray(y), arr)
        with pytest.raises(ValueError, match="cannot be viewed without a copy"):
            sa.asarray(arr, copy=False)
    x = _window(inner, sa.int8)  # whole-element strides of a 1-byte dtype: a window
    _check_window(x, inner)
    longlong = np.arange(6, dtype=np.longlong).reshape(2, 3)[:, ::-1]  # int64's other name
    _check_window(_window(longlong, sa.int64), longlong)
    for arr in (np.zeros(3, np.float32), swapped):
        with pytest.raises(TypeError, match="_window: arr must be an ndarray of dtype"):
            _window(arr, sa.int32 if arr.dtype.isnative else sa.float64)


def test_the_storage_object_is_made_on_demand_and_shared_by_views():
    # An array made in C holds its storage's ndarray; the _Storage Python sees is made when
    # first read or when the array is first viewed, and every view derived from it shares it.
    src = np.arange(12.0).reshape(3, 4)
    x = sa.asarray(src)
    v = x[1:]
    w = v.mT[::-1]
    u = x._view((2,), (1,), 0)
    assert x._st is v._st is w._st is u._st
    # Not src itself but a view of it asarray made (src's shape and dtype stay the caller's).
    assert x._st.arr is not src and np.shares_memory(x._st.arr, src) and x._st.nbuf == 12
    r = x + x  # a result, never viewed
    st0 = r._st
    assert r._st is st0 and st0.arr is r._npv and r[0]._st is st0
    y = sa.asarray(src)  # another array over the same memory: a storage of its own, as before
    assert y._st is not x._st and y._st.arr is not x._st.arr and np.shares_memory(y._st.arr, src)
    f = x.mT * x.mT  # F order: a window of the result's memory
    assert f._st.arr.ndim == 1 and f._st.nbuf == 12 and np.shares_memory(f._st.arr, f._npv)


# The hand-over's table, its checks and its once-per-process rule: tests/array/test_handover.py.


# --- iteration (csrc/arraytype/iterate.c) ---------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(views(max_ops=4))
def test_iteration_yields_the_items_along_the_first_axis(v) -> None:
    """Views of a 2-D or higher array; read-only copies of a 1-D array's elements (values
    that hash, as NumPy's scalars, and no longer follow the array)."""
    if v.ref.ndim == 0:
        with pytest.raises(TypeError, match="iteration over a 0-d array"):
            iter(v.x)
        assert not np.iterable(v.x)
        return
    rows = list(v.x)
    assert len(rows) == v.ref.shape[0] == len(v.x)
    for k, (row, want) in enumerate(zip(rows, v.ref, strict=True)):
        assert type(row) is sa.Array and row.shape == want.shape
        np.testing.assert_array_equal(np.asarray(row), want)
        np.testing.assert_array_equal(np.asarray(row), np.asarray(v.x[k]))
        if v.ref.ndim > 1:
            assert row.buffer is v.x.buffer  # a view, as x[k]
        else:
            assert row.readonly and row.buffer is not v.x.buffer
            value = want.item()
            if value == value:  # not NaN
                assert hash(row) == hash(value) and {row: 1}[value] == 1
    assert np.iterable(v.x)


def test_iterated_elements_are_copies_and_views_do_not_hash() -> None:
    x = sa.asarray([1.0, 2.0])
    first = next(iter(x))
    x[0] = 5.0
    assert float(first) == 1.0  # a value taken at next(), not a view
    with pytest.raises(ValueError, match="read-only"):
        first[...] = 3.0
    for unhashable in (x, x[0], sa.asarray(1.0), sa.reshape(x, (1, 2))[0]):
        with pytest.raises(TypeError, match=r"unhashable type: 'Array'.*x\.tolist\(\)"):
            hash(unhashable)
    # A read-only view of memory its owner can write is not a value either (as NumPy's).
    frozen = np.ones(2)[:1]
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="unhashable"):
        hash(sa.asarray(frozen)[0])
    nan = next(iter(sa.asarray([np.nan])))
    assert hash(nan) == hash(nan)  # by identity, as a float NaN


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_set_counter_and_dict_keys_of_a_1d_array_match_numpy(dtype) -> None:
    import collections

    ref = np.asarray([1, 0, 1, 1], dtype=dtype.np)
    x = sa.asarray(ref)
    assert set(x) == set(ref.tolist()) and set(ref) == set(x)
    assert collections.Counter(x) == collections.Counter(ref.tolist())
    assert list(dict.fromkeys(x)) == list(dict.fromkeys(ref.tolist()))


def test_an_exhausted_iterator_stays_exhausted() -> None:
    it = iter(sa.arange(2))
    assert [int(a) for a in it] == [0, 1]
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_iter_method_is_documented_and_callable() -> None:
    assert "Examples" in (sa.Array.__iter__.__doc__ or "")
    x = sa.reshape(sa.arange(6), (3, 2))
    assert [r.tolist() for r in sa.Array.__iter__(x)] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        sa.Array.__iter__(sa.asarray(1))


# --- wrapping a NumPy scalar result ---------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_wrapping_a_numpy_scalar_gives_the_0d_array(dtype) -> None:
    from stridedarray._arraytype import _wrap
    from stridedarray._base.construct import _wrap_py

    value = np.ones((), dtype=dtype.np)[()]  # a NumPy scalar of the dtype
    assert isinstance(value, np.generic)
    for wrap in (_wrap, _wrap_py):
        w = wrap(value)
        assert type(w) is sa.Array and w.dtype is dtype and w.shape == ()
        assert w._np == value
        assert w.buffer.flags.writeable  # its own fresh memory


@pytest.mark.parametrize("value", [np.float16(1.5), np.str_("a"), np.datetime64("2020-01-01")])
def test_wrapping_a_numpy_scalar_of_an_unsupported_dtype_raises(value) -> None:
    from stridedarray._arraytype import _wrap
    from stridedarray._base.construct import _wrap_py

    for wrap in (_wrap, _wrap_py):
        with pytest.raises(
            TypeError, match="bool, int8, int16, int32, int64, uint8, uint16, uint32"
        ):
            wrap(value)
        with pytest.raises(
            TypeError, match="bool, int8, int16, int32, int64, uint8, uint16, uint32"
        ):
            wrap(np.asarray(value))
