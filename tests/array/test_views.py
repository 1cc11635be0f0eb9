"""Views: random chains of views equal NumPy's and share memory; every view
function against NumPy; reshape view vs copy (all of reshape's tests: with -1, and in C against
its Python function); bad input; no out-of-bounds descriptor."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from outcomes import Spy as _Spy
from outcomes import assert_same_outcome as _same
from outcomes import outcome
from strategies import (
    ALL_DTYPES,
    arrays,
    basic_indices,
    dtypes,
    fill,
    reshape_targets,
    shapes,
    views,
)

import stridedarray as sa
from stridedarray._arraytype import NativeFunction
from stridedarray._base.construct import _make

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means


def _offset_bounds(x: sa.Array) -> tuple[int, int]:
    """The smallest and largest buffer offset x reaches, over every index enumerated (Python
    ints: not the package's formula, and no overflow)."""
    offsets = [
        x.origin + sum(i * s for i, s in zip(index, x.strides, strict=True))
        for index in itertools.product(*map(range, x.shape))
    ]
    return min(offsets), max(offsets)


def assert_in_bounds(x: sa.Array) -> None:
    """The descriptor invariant: every reachable element lies inside the buffer."""
    if x.size:
        lo, hi = _offset_bounds(x)
        assert 0 <= lo <= hi < x.buffer.size, (x.shape, x.strides, x.origin, x.buffer.size)


def assert_same_view(x: sa.Array, ref: np.ndarray) -> None:
    """Equal shape and values; the same element strides on axes of extent > 1 (non-empty)."""
    got = np.asarray(x)
    assert got.shape == ref.shape == x.shape
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)
    its = ref.itemsize
    for n, s_x, s_ref in zip(ref.shape, x.strides, ref.strides, strict=True):
        if n > 1 and ref.size:
            assert s_x * its == s_ref
    assert_in_bounds(x)


def _bump(a: np.ndarray) -> None:
    """Change every element of a writable array in place."""
    if a.dtype == np.bool_:
        np.logical_not(a, out=a)
    else:
        a += 1


@settings(max_examples=300)
@given(views())
def test_view_chain_matches_numpy_and_shares_memory(p):
    assert_same_view(p.x, p.ref)
    assert p.x.buffer is p.base_x.buffer, p.ops
    if p.ref.size:
        assert np.shares_memory(np.asarray(p.x), p.base_np), p.ops
    # Sharing is real: a write to the source shows through both views.
    _bump(p.base_np)
    np.testing.assert_array_equal(np.asarray(p.x), p.ref, err_msg=str(p.ops))


@settings(max_examples=200)
@given(views(broadcast=False, max_ops=3), st.data())
def test_basic_indexing_of_random_views(p, data):
    key = data.draw(basic_indices(p.ref.shape))
    assert_same_view(p.x[key], p.ref[key])


def test_basic_indexing_forms():
    n = np.arange(60.0).reshape(3, 4, 5)
    x = sa.asarray(n)
    for key in [
        0,
        -1,
        (1, 2),
        (1, 2, 3),
        slice(None),
        slice(None, None, -1),
        (..., 1),
        (None, 1),
        (1, None, ..., None, -2),
        (slice(3, 0, -2), ..., slice(1, None, 2)),
        (..., None),
        (),
        Ellipsis,
        (slice(10, 20),),
        (slice(-10, -20, -1),),
        np.int64(2),
        (np.int32(-1), slice(np.int16(1), None)),
    ]:
        assert_same_view(x[key], n[key])
    z = sa.asarray(np.float32(3.5))
    assert z[()].shape == () and z[...].shape == () and z[None].shape == (1,)


@settings(max_examples=60)
@given(arrays(shape=shapes(0, 4)), st.data())
def test_flip(pair, data):
    x, n = pair
    nd = n.ndim
    axis = data.draw(
        st.none()
        | (st.integers(-nd, nd - 1) if nd else st.none())
        | st.lists(st.integers(0, max(nd - 1, 0)), unique=True, max_size=nd).map(tuple)
    )
    assert_same_view(sa.flip(x, axis=axis), np.flip(n, axis=axis))


@settings(max_examples=60)
@given(arrays(shape=shapes(0, 5)), st.data())
def test_permute_and_transposes(pair, data):
    x, n = pair
    perm = tuple(data.draw(st.permutations(range(n.ndim))))
    assert_same_view(sa.permute_dims(x, perm), np.transpose(n, perm))
    neg = tuple(p - n.ndim for p in perm)
    assert_same_view(sa.permute_dims(x, neg), np.transpose(n, perm))
    if n.ndim >= 2:
        assert_same_view(x.mT, np.swapaxes(n, -1, -2))
        assert_same_view(sa.matrix_transpose(x), np.swapaxes(n, -1, -2))
    if n.ndim == 2:
        assert_same_view(x.T, n.T)


@settings(max_examples=80)
@given(arrays(shape=shapes(0, 3)), st.data())
def test_broadcast_to(pair, data):
    x, n = pair
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    target = lead + tuple(data.draw(st.integers(0, 3)) if k == 1 else k for k in n.shape)
    y = sa.broadcast_to(x, target)
    assert_same_view(y, np.broadcast_to(n, target))
    for k, (m, s) in enumerate(zip(target, y.strides, strict=True)):
        if k < len(lead) or (n.shape[k - len(lead)] == 1 and m != 1):
            assert s == 0  # a broadcast axis repeats one element: physical stride 0


@settings(max_examples=60)
@given(arrays(shape=shapes(0, 4)), st.data())
def test_expand_dims_and_squeeze(pair, data):
    x, n = pair
    axis = data.draw(st.integers(-n.ndim - 1, n.ndim))
    e = sa.expand_dims(x, axis=axis)
    assert_same_view(e, np.expand_dims(n, axis))
    assert_same_view(sa.squeeze(e, axis=axis), n)
    k = data.draw(st.integers(1, 2))
    axes = tuple(
        data.draw(st.lists(st.integers(0, n.ndim + k - 1), min_size=k, max_size=k, unique=True))
    )
    assert_same_view(sa.expand_dims(x, axis=axes), np.expand_dims(n, axes))


@settings(max_examples=150)
@given(views(max_ops=3), st.data())
def test_reshape_view_or_copy(p, data):
    size = p.ref.size
    dims = data.draw(
        st.lists(
            st.sampled_from([d for d in range(1, 13) if size % d == 0] if size else [0, 1, 2, 3]),
            max_size=3,
        )
    )
    rest = size
    for d in dims:
        rest = rest // d if d else rest
    target = tuple(dims) + ((rest,) if size else (0,))
    if np.prod(target, dtype=np.int64) != size:
        target = (size,)
    try:
        expect_view = p.ref.reshape(target, copy=False)
    except ValueError:
        expect_view = None
    y = sa.reshape(p.x, target)
    np.testing.assert_array_equal(np.asarray(y), p.ref.reshape(target))
    assert_in_bounds(y)
    if expect_view is not None:
        assert y.buffer is p.x.buffer  # strides allow it: a view
        assert_same_view(sa.reshape(p.x, target, copy=False), expect_view)
    else:
        assert y.buffer is not p.x.buffer and y.is_c_contiguous
        with pytest.raises(ValueError, match="copy=False"):
            sa.reshape(p.x, target, copy=False)
    c = sa.reshape(p.x, target, copy=True)
    assert c.buffer is not p.x.buffer
    np.testing.assert_array_equal(np.asarray(c), p.ref.reshape(target))
    if size:
        assert_same_view(sa.reshape(p.x, (-1,)), p.ref.reshape(-1))


@settings(max_examples=300, deadline=None)
@given(views(dtypes(), max_ops=4), st.data())
def test_reshape_matches_numpy_in_every_copy_mode(p, data):
    """Values and shape as NumPy's, for every dtype and random views (negative, step, zero
    strides, transposed, 0-size, 0-d), targets with -1 and extent-1 axes: a view of the same
    buffer with NumPy's strides exactly when NumPy has one (copy None or False), else a copy
    (None) or a ValueError (False); copy=True never shares."""
    target = data.draw(reshape_targets(p.ref.size), label="target")
    want = p.ref.reshape(target)
    try:
        want_view = p.ref.reshape(target, copy=False)
    except ValueError:
        want_view = None
    for copy in (None, False, True):
        if copy is False and want_view is None:
            with pytest.raises(ValueError, match=r"reshape\(copy=False\): an array of shape"):
                sa.reshape(p.x, target, copy=False)
            continue
        y = sa.reshape(p.x, target, copy=copy)
        assert y.dtype is p.x.dtype and y.shape == want.shape
        np.testing.assert_array_equal(np.asarray(y), want)
        if copy is True or want_view is None:
            assert y.buffer is not p.x.buffer and y.is_c_contiguous and not y.readonly
        else:
            assert y.buffer is p.x.buffer, p.ops
            assert y.readonly == p.x.readonly  # a view repeats elements exactly when x does
            assert_same_view(y, want_view)


@pytest.mark.parametrize(
    "make, target, view",
    [
        (lambda: sa.broadcast_to(sa.arange(4.0), (3, 4)), (12,), False),
        (lambda: sa.broadcast_to(sa.arange(4.0), (3, 4)), (3, 2, 2), True),
        (lambda: sa.broadcast_to(sa.ones(1), (3, 4)), (2, 6), True),
        (lambda: sa.broadcast_to(sa.ones(1), (3, 4)).mT, (-1,), True),
        (lambda: sa.flip(sa.reshape(sa.arange(12.0), (3, 4))), (12,), True),
        (lambda: sa.flip(sa.reshape(sa.arange(12.0), (3, 4)), axis=0), (12,), False),
        (lambda: sa.reshape(sa.arange(24.0), (4, 6))[::2, ::-3], (2, 2, 1), True),
        (lambda: sa.reshape(sa.arange(24.0), (4, 6))[::2, ::-3], (4,), False),
        (lambda: sa.asarray(3.5), (1, 1), True),
        (lambda: sa.asarray(3.5), (), True),
        (lambda: sa.reshape(sa.arange(3.0), (3, 1))[1:2], (), True),
        (lambda: sa.zeros((0, 3))[:, ::-1], (3, 0, 2), True),
        (lambda: sa.zeros((0, 3)).mT, (-1, 2), True),
    ],
)
def test_reshape_of_special_views(make, target, view):
    """Zero strides (broadcast), reversed, step, 0-d and 0-size parents: NumPy's values and
    its answer to "is there a view"."""
    x = make()
    ref = np.asarray(x)
    y = sa.reshape(x, target)
    np.testing.assert_array_equal(np.asarray(y), ref.reshape(target))
    assert (y.buffer is x.buffer) == view
    if view:
        assert_same_view(sa.reshape(x, target, copy=False), ref.reshape(target, copy=False))
        assert y.readonly == x.readonly
    else:
        with pytest.raises(ValueError, match="cannot be viewed"):
            sa.reshape(x, target, copy=False)
        with pytest.raises(ValueError):
            ref.reshape(target, copy=False)


def test_reshape_bad_input():
    x = sa.zeros((3, 4))
    with pytest.raises(ValueError, match="12"):
        sa.reshape(x, (5,))
    with pytest.raises(ValueError, match="-1"):
        sa.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="has a negative extent"):
        sa.reshape(x, (-2, -6))
    with pytest.raises(ValueError, match="cannot reshape an array of size 12 into shape"):
        sa.reshape(x, (0, -1))
    with pytest.raises(TypeError, match="must be an integer, got float 2.0"):
        sa.reshape(x, (2.0, 6))


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, axis, size",
    [
        (3, 0, 3),
        (-4, 0, 3),
        ((0, 4), 1, 4),
        ((0, -5), 1, 4),
        ((..., 7), 1, 4),
        ((None, 2, 9), 1, 4),
        ((10**30,), 0, 3),
    ],
)
def test_out_of_range_index_names_axis_and_size(key, axis, size):
    x = sa.zeros((3, 4))
    with pytest.raises(IndexError, match=f"axis {axis} with size {size}"):
        x[key]


@pytest.mark.parametrize("key", [1.0, "a", (0, 1.5), {1}, (slice(None), "x"), b"0"])
def test_wrong_index_type(key):
    with pytest.raises(
        (IndexError, TypeError), match="only integers, slices, '...', None, bools and integer or"
    ):
        sa.zeros((3, 4))[key]


@pytest.mark.parametrize("key", [(0, 0, 0), (..., ...), (0, ..., 0, 0)])
def test_too_many_indices_or_ellipses(key):
    with pytest.raises(IndexError):
        sa.zeros((3, 4))[key]


def test_slice_with_bad_parts():
    x = sa.zeros((3, 4))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    with pytest.raises(TypeError):
        x[1.5:]
    with pytest.raises(IndexError, match="too many indices: 1 for an array of rank 0"):
        sa.asarray(1.0)[0]


@pytest.mark.parametrize(
    "src, target",
    [
        ((3, 4), (3, 5)),
        ((3, 4), (4,)),
        ((3, 1), (2, 4, 3)),
        ((2,), (0,)),
        ((1, 4), (-1, 4)),
        ((3,), (3, 3, 2)),
    ],
)
def test_broadcast_to_bad_shape_names_both(src, target):
    with pytest.raises(ValueError, match="cannot broadcast an array of shape") as e:
        sa.broadcast_to(sa.zeros(src), target)
    msg = str(e.value)
    assert str(src) in msg and str(target) in msg


def test_view_functions_bad_axes():
    x = sa.zeros((2, 1, 3))
    with pytest.raises((ValueError, IndexError), match="permute_dims: axes contains repeated axes"):
        sa.permute_dims(x, (0, 0, 1))
    with pytest.raises(ValueError, match="must be a permutation of range"):
        sa.permute_dims(x, (0, 1))
    with pytest.raises(
        IndexError, match="permute_dims: axes 3 is out of bounds for an array of rank 3"
    ):
        sa.permute_dims(x, (0, 1, 3))
    with pytest.raises(ValueError, match="extent"):
        sa.squeeze(x, axis=0)
    with pytest.raises(IndexError, match="squeeze: axis 3 is out of bounds for an array of rank 3"):
        sa.squeeze(x, axis=3)
    with pytest.raises(
        IndexError, match="expand_dims: axis 4 is out of bounds for an array of rank 4"
    ):
        sa.expand_dims(x, axis=4)
    with pytest.raises(IndexError, match="flip: axis -4 is out of bounds for an array of rank 3"):
        sa.flip(x, axis=-4)
    with pytest.raises(ValueError, match="flip: axis contains repeated axes"):
        sa.flip(x, axis=(0, 0))
    with pytest.raises(ValueError, match="mT needs an array of rank >= 2, got rank 1"):
        _ = x[0, 0].mT
    with pytest.raises(ValueError, match="T is defined for 2-D arrays only"):
        _ = x.T
    for f in (sa.flip, sa.matrix_transpose):
        with pytest.raises(TypeError, match="x must be a stridedarray.Array, got list"):
            f([[0.0, 0.0], [0.0, 0.0]])


def test_rank_limit():
    with pytest.raises(ValueError, match="64"):
        sa.reshape(sa.zeros(1), (1,) * 65)
    with pytest.raises(ValueError, match="arrays have at most 64 dimensions, got 65"):
        sa.expand_dims(sa.zeros((1,) * 64), axis=0)
    with pytest.raises(ValueError, match="64"):
        sa.broadcast_to(sa.zeros(1), (1,) * 65)


# -- never an out-of-bounds descriptor -----------------------------------------------------


def test_the_one_constructor_rejects_out_of_bounds():
    x = sa.arange(10)
    st_, dt = x._st, x.dtype
    for shape, strides, origin in [
        ((11,), (1,), 0),
        ((10,), (1,), 1),
        ((2,), (-1,), 0),
        ((5,), (3,), 0),
        ((1,), (1,), -1),
        ((1,), (0,), 10),
        ((2, 3), (5, 3), 0),
        ((3, 2), (-4, 1), 7),
    ]:
        with pytest.raises(ValueError, match="out of bounds"):
            _make(st_, dt, shape, strides, origin)
    # Empty views are never dereferenced; their origin is kept inside [0, nbuf].
    e = _make(st_, dt, (0, 3), (100, -100), 10**9)
    assert 0 <= e.origin <= 10


@settings(max_examples=200)
@given(
    views(max_ops=3),
    st.lists(st.integers(-(10**12), 10**12) | st.none(), min_size=3, max_size=3),
    st.integers(-3, 3).filter(bool),
)
def test_extreme_slices_stay_in_bounds(p, parts, step):
    if not p.ref.ndim:
        return
    key = slice(parts[0], parts[1], step)
    assert_same_view(p.x[key], p.ref[key])
    i = parts[2] or 0
    if -p.ref.shape[0] <= i < p.ref.shape[0]:
        assert_same_view(p.x[i], p.ref[i])
    else:
        with pytest.raises(IndexError, match="is out of bounds for axis 0 with size"):
            p.x[i]


def test_empty_views_keep_origin_inside_buffer():
    x = sa.arange(12)
    for v in [
        x[12:],
        x[:0],
        x[5:5],
        x[::-1][12:],
        sa.reshape(x, (3, 4))[:, 4:],
        sa.flip(sa.reshape(x, (3, 4))[3:], axis=0),
        sa.broadcast_to(x[:1], (0, 5)),
    ]:
        assert v.size == 0 and 0 <= v.origin <= x.buffer.size
        assert v.to_row_major().size == 0 and np.asarray(v).size == 0


@settings(max_examples=40)
@given(dtypes(ALL_DTYPES), shapes(1, 3, 1, 4), st.integers(0, 2**32 - 1))
def test_views_of_foreign_strided_arrays_stay_in_bounds(dt, shape, seed):
    # Overlapping and reversed foreign layouts through asarray, then every view kind.
    base = fill(dt, (30,), seed)
    its = base.itemsize
    strides = tuple(((-1) ** k) * (k + 1) * its for k in range(len(shape)))
    span = sum((n - 1) * abs(s) // its for n, s in zip(shape, strides, strict=True))
    if span >= 30:
        return
    start = sum((n - 1) * (-s) // its for n, s in zip(shape, strides, strict=True) if s < 0)
    n = np.lib.stride_tricks.as_strided(base[start:], shape, strides)
    x = sa.asarray(n)
    assert np.shares_memory(np.asarray(x), base)
    assert_same_view(x, n)
    assert_same_view(sa.flip(x), np.flip(n))
    assert_same_view(x[::-2], n[::-2])
    assert_same_view(sa.permute_dims(x, tuple(reversed(range(x.ndim)))), n.T)


def test_huge_broadcast_views_raise_instead_of_crashing():
    # Element counts (times the item size) beyond int64 are refused when the view is made,
    # as NumPy refuses them (the bad-input table, tests/bad_input_cases.py, has every row).
    for shape in ((2**62, 4), (2**64,)):
        with pytest.raises(ValueError, match="too large"):
            sa.broadcast_to(sa.zeros(1), shape)


@settings(max_examples=200, deadline=None)
@given(views(dtypes(), max_ops=4), st.data())
def test_reshape_with_a_target_of_numpy_ints_or_a_list_matches_numpy(p, data):
    """A target C does not take as it is (NumPy integers, a list) goes through the Python path,
    which uses the same view-stride rule (csrc/arraytype/reshape.c): a view with NumPy's
    strides exactly when NumPy has one, else a copy (None) or a ValueError (False)."""
    target = data.draw(reshape_targets(p.ref.size), label="target")
    spelling = data.draw(st.sampled_from(["np.int64", "np.int32", "list"]), label="spelling")
    if spelling == "list":
        spelled = list(target)
    else:
        t = np.int64 if spelling == "np.int64" else np.int32
        spelled = tuple(t(n) for n in target)
    want = p.ref.reshape(target)
    try:
        want_view = p.ref.reshape(target, copy=False)
    except ValueError:
        want_view = None
    for copy in (None, False):
        if copy is False and want_view is None:
            with pytest.raises(ValueError, match=r"reshape\(copy=False\): an array of shape"):
                sa.reshape(p.x, spelled, copy=False)
            continue
        y = sa.reshape(p.x, spelled, copy=copy)
        assert y.shape == want.shape
        np.testing.assert_array_equal(np.asarray(y), want)
        if want_view is None:
            assert y.buffer is not p.x.buffer and y.is_c_contiguous
        else:
            assert y.buffer is p.x.buffer, p.ops
            assert_same_view(y, want_view)


@settings(max_examples=150, deadline=None)
@given(views(max_ops=4), st.data())
def test_flip_and_permute_dims_in_c_and_in_python_match_numpy(p, data):
    """flip (axis None or an int) and permute_dims (a tuple of ints) are made in C; the Python
    functions behind them take every other argument. Both, on random views (0-size, negative,
    step and zero strides), give NumPy's view."""
    x, n = p.x, p.ref
    nd = n.ndim
    axis = data.draw(st.none() | (st.integers(-nd, nd - 1) if nd else st.none()), label="axis")
    want = np.flip(n, axis=axis) if nd else n[...]
    for flip in (sa.flip, sa.flip.__wrapped__):
        got = flip(x, axis=axis)
        assert_same_view(got, want)
        assert got.buffer is x.buffer and got.readonly == x.readonly
    perm = tuple(data.draw(st.permutations(range(nd)), label="perm"))
    perm = tuple(q - nd if data.draw(st.booleans()) else q for q in perm)
    for permute in (sa.permute_dims, sa.permute_dims.__wrapped__):
        got = permute(x, perm)
        assert_same_view(got, np.transpose(n, perm))
        assert got.buffer is x.buffer and got.readonly == x.readonly
        assert_same_view(permute(x, axes=perm), np.transpose(n, perm))
    if nd:
        with pytest.raises(ValueError, match="permutation"):
            sa.permute_dims(x, perm[:-1])
        with pytest.raises((ValueError, IndexError), match="axis"):
            sa.flip(x, axis=nd)


# -- reshape in C (csrc/arraytype/reshape.c, wrapped by NativeFunction) against its Python
# function: the same results (shape, strides, origin, bytes, read-only flag, shared buffer) and
# the same errors with the same messages; and which calls the C path takes itself.
RESHAPE_PY = sa.reshape.__wrapped__
ABSENT = object()  # copy not passed at all


def _reshape_args(x, target, copy):
    return (x, target), ({} if copy is ABSENT else {"copy": copy})


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
        ([0.0, 1.0, 2.0, 3.0], (2, 2)),  # not an array (an ndarray is taken, as an array)
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


# --- reshape with one -1 ---------------------------------------------------------------------


def _minus_one_targets(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """(-1,), and each 2-d split of the size with the -1 on either side."""
    size = math.prod(shape)
    out: list[tuple[int, ...]] = [(-1,)]
    for d in range(1, size + 1):
        if size % d == 0:
            out += [(d, -1), (-1, d), (1, d, -1)]
    return out


@settings(max_examples=150, deadline=None)
@given(views(max_ops=4), st.data())
def test_reshape_with_minus_one_equals_numpy(v, data) -> None:
    targets = _minus_one_targets(v.ref.shape)
    target = data.draw(st.sampled_from(targets))
    got = sa.reshape(v.x, target)
    want = np.reshape(v.ref, target)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    # A view exactly when NumPy can make one (the memory is shared with the base then).
    if np.shares_memory(want, v.base_np) and want.size > 1:
        assert got.buffer is v.base_x.buffer


@given(arrays(shape=st.tuples(st.integers(1, 4), st.integers(1, 4))))
def test_flatten_is_a_view_of_a_contiguous_array(pair) -> None:
    x, ref = pair
    flat = sa.reshape(x, (-1,))
    assert flat.shape == (ref.size,)
    assert flat.buffer is x.buffer
    np.testing.assert_array_equal(np.asarray(flat), ref.reshape(-1))


@pytest.mark.parametrize(
    ("shape", "error", "message"),
    [
        ((-1, -1), ValueError, "may contain at most one -1"),
        ((4, -1), ValueError, "cannot reshape an array of size 6 into shape (4, -1)"),
        ((-2, 3), ValueError, "has a negative extent"),
        ((0, -1), ValueError, "cannot reshape an array of size 6 into shape (0, -1)"),
        ((2.0, -1), TypeError, "shape[0] must be an integer"),
        ((True, -1), TypeError, "shape[0] must be an integer"),
        ((-1.0,), TypeError, "shape[0] must be an integer"),
    ],
)
def test_reshape_minus_one_errors_unchanged(shape, error, message) -> None:
    x = sa.reshape(sa.arange(6.0), (2, 3))
    with pytest.raises(error, match=re.escape(message)):
        sa.reshape(x, shape)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0, 2)])
@pytest.mark.parametrize("target", [(-1,), (0, -1), (3, -1), (-1, 2)])
def test_reshape_minus_one_of_an_empty_array_as_numpy(shape, target) -> None:
    # An empty array takes the general path: NumPy's answer, or its refusal (0 * -1).
    x = sa.zeros(shape)
    try:
        want = np.zeros(shape).reshape(target)
    except ValueError:
        with pytest.raises(ValueError, match="cannot reshape"):
            sa.reshape(x, target)
    else:
        assert sa.reshape(x, target).shape == want.shape


def test_reshape_minus_one_copy_false_still_refuses() -> None:
    x = sa.reshape(sa.arange(6.0), (2, 3)).mT  # not viewable as one run
    with pytest.raises(ValueError, match="cannot be viewed"):
        sa.reshape(x, (-1,), copy=False)
    np.testing.assert_array_equal(
        np.asarray(sa.reshape(x, (-1,))), np.arange(6.0).reshape(2, 3).T.reshape(-1)
    )


class _Counted:
    """An integer argument whose every reading is counted (`__index__` and `__bool__`)."""

    def __init__(self, value):
        self.value, self.reads = value, 0

    def __index__(self):
        self.reads += 1
        return self.value

    def __bool__(self):
        self.reads += 1
        return bool(self.value)


# (call, the integer arguments it takes, NumPy's answer): each argument is a _Counted.
_ONCE = {
    "x[a:b:c]": (lambda x, a, b, c: x[a:b:c], (1, 3, 1), lambda n: n[1:3:1]),
    "x[:, ::c]": (lambda x, c: x[:, ::c], (-1,), lambda n: n[:, ::-1]),
    "x[i, np.int64]": (lambda x, i: x[i, np.int64(1)], (1,), lambda n: n[1, 1, ...]),
    "inexact x[::c]": (
        lambda x, c: x[:1][:: 2**62][:, ::c],
        (-1,),
        lambda n: n[:1, ::-1],
    ),
    "permute_dims": (
        lambda x, a, b: sa.permute_dims(x, (a, b)),
        (1, 0),
        lambda n: n.T,
    ),
    "flip": (lambda x, a: sa.flip(x, axis=a), (1,), lambda n: n[:, ::-1]),
    "reshape": (lambda x, a, b: sa.reshape(x, (a, b)), (4, 3), lambda n: n.reshape(4, 3)),
    "expand_dims": (lambda x, a: sa.expand_dims(x, axis=a), (0,), lambda n: n[None]),
    "squeeze": (lambda x, a: sa.squeeze(x[:1], axis=a), (0,), lambda n: n[0]),
    "moveaxis": (lambda x, a, b: sa.moveaxis(x, a, b), (0, 1), lambda n: n.T),
    "take": (lambda x, a: sa.take(x, sa.asarray([0]), axis=a), (1,), lambda n: n[:, :1]),
    # (keepdims takes bools only: no code of the caller's is read there)
    "sum axis": (lambda x, a: sa.sum(x, axis=a), (1,), lambda n: n.sum(1)),
    "max axis": (lambda x, a: sa.max(x, axis=a), (0,), lambda n: n.max(0)),
    "tril": (lambda x, k: sa.tril(x, k=k), (1,), lambda n: np.tril(n, 1)),
    "roll": (lambda x, s: sa.roll(x, s, axis=1), (1,), lambda n: np.roll(n, 1, axis=1)),
}


@pytest.mark.parametrize("name", _ONCE)
@pytest.mark.parametrize("write", [False, True])
def test_every_integer_argument_is_read_once(name, write):
    # Reliability 5: a value read twice may answer differently the second time (a slice's
    # step answered 1 then -1 on the exact-strides path: the view reached outside its parent).
    call, values, want = _ONCE[name]
    ref = np.arange(12.0).reshape(3, 4)
    x = sa.asarray(ref.copy())
    args = [_Counted(v) for v in values]
    got = call(x, *args)
    assert [a.reads for a in args] == [1] * len(args)
    np.testing.assert_array_equal(np.asarray(got), want(ref))
    if write and name.startswith(("x[", "inexact")):
        args = [_Counted(v) for v in values]
        key_view = call(x, *args)
        key_view[...] = -1.0
        expected = ref.copy()
        want(expected)[...] = -1.0
        np.testing.assert_array_equal(np.asarray(x), expected)
