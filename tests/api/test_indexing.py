"""Indexing: integer-array and boolean-mask getitem, __setitem__ with broadcasting and the
casting rules, take and take_along_axis — differential against NumPy over random views."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES as DTYPES
from strategies import basic_indices, views

import stridedarray as sa

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

SETTINGS = settings(max_examples=25, deadline=None)


@SETTINGS
@given(pair=views(), data=st.data())
def test_integer_array_indexing_matches_numpy(pair, data):
    ref = pair.ref
    if ref.ndim == 0:
        return
    keys = []
    for n in ref.shape[: data.draw(st.integers(1, ref.ndim))]:
        if n == 0:
            return
        idx = np.asarray(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)))
        keys.append(idx)
    # broadcastable index arrays: give all the length of the first
    keys = [np.resize(k, keys[0].shape) for k in keys]
    out = pair.x[tuple(sa.asarray(k) for k in keys)]
    np.testing.assert_array_equal(np.asarray(out), ref[tuple(keys)])


@SETTINGS
@given(pair=views(), seed=st.integers(0, 1000))
def test_boolean_mask_indexing_matches_numpy(pair, seed):
    rng = np.random.default_rng(seed)
    mask = rng.integers(0, 2, size=pair.ref.shape).astype(bool)
    out = pair.x[sa.asarray(mask)]
    np.testing.assert_array_equal(np.asarray(out), pair.ref[mask])
    if pair.ref.ndim:
        m0 = rng.integers(0, 2, size=pair.ref.shape[:1]).astype(bool)  # leading axis only
        np.testing.assert_array_equal(np.asarray(pair.x[sa.asarray(m0)]), pair.ref[m0])
        np.testing.assert_array_equal(
            np.asarray(pair.x[..., sa.asarray(m0[:0].any())]), pair.ref[..., m0[:0].any()]
        )


def test_index_errors():
    x = sa.asarray([[0, 1, 2], [3, 4, 5]])
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        x[sa.asarray([2])]
    with pytest.raises(IndexError, match="bounds"):
        x[5]
    with pytest.raises(IndexError, match="integer or bool"):
        x[sa.asarray([0.0])]
    with pytest.raises(
        IndexError, match="only integers, slices, '...', None, bools and integer or"
    ):
        x["a"]
    with pytest.raises(IndexError, match="too many indices: 3 for an array of rank 2"):
        x[0, 0, 0]


@SETTINGS
@given(pair=views(broadcast=False), data=st.data())
def test_setitem_basic_with_broadcast_values(pair, data):
    key = data.draw(basic_indices(pair.ref.shape))
    target_shape = pair.ref[key].shape
    tail = target_shape[len(target_shape) - data.draw(st.integers(0, len(target_shape))) :]
    val = (np.arange(int(np.prod(tail)), dtype=np.int64) % 2).astype(pair.ref.dtype)
    val = val.reshape(tail)
    before = pair.ref.copy()
    before[key] = val
    pair.x[key] = sa.asarray(val)
    np.testing.assert_array_equal(pair.ref, before)


@SETTINGS
@given(pair=views(broadcast=False), seed=st.integers(0, 1000))
def test_setitem_mask_and_integer_arrays(pair, seed):
    mask = np.random.default_rng(seed).integers(0, 2, size=pair.ref.shape).astype(bool)
    expected = pair.ref.copy()
    fill = True if pair.ref.dtype.kind == "b" else 1
    expected[mask] = fill
    pair.x[sa.asarray(mask)] = fill
    np.testing.assert_array_equal(pair.ref, expected)
    if pair.ref.ndim and pair.ref.shape[0]:
        idx = np.asarray([0, -1])
        expected[idx] = expected[0]
        pair.x[sa.asarray(idx)] = pair.x[0]
        np.testing.assert_array_equal(pair.ref, expected)


def test_setitem_casting_rules():
    x = sa.zeros(3, dtype=sa.int16)
    x[0] = sa.asarray(5, dtype=sa.int8)  # promotes to int16: the standard's case
    x[1] = 7
    assert list(np.asarray(x)) == [5, 7, 0]
    with pytest.raises(OverflowError, match="value: Python int 1048576 is out of range for int16"):
        x[0] = 2**20
    with pytest.raises(TypeError, match="complex"):
        sa.zeros(2)[0] = 1j
    with pytest.raises(TypeError, match="imaginary"):
        sa.zeros(2)[:] = sa.ones(2, dtype=sa.complex64)
    with pytest.raises(ValueError, match="NaN"):
        x[0] = float("nan")
    with pytest.raises(
        OverflowError, match="value: inf cannot be assigned into an array of dtype int16"
    ):
        x[0] = float("inf")
    with pytest.raises(OverflowError, match="int16"):
        x[0] = 40000.0
    with pytest.raises(TypeError, match="value"):
        x[0] = "a"
    f = sa.zeros(2, dtype=sa.float32)
    f[0] = 2  # int into float: allowed
    assert float(f[0]) == 2.0
    assert list(np.asarray(x)) == [5, 7, 0]  # failed assignments left it unchanged


REAL = [d for d in DTYPES if d.kind != "c"]


@pytest.mark.parametrize("dest", REAL, ids=lambda d: d.name)
@pytest.mark.parametrize("src", DTYPES[:11], ids=lambda d: d.name)
def test_setitem_of_another_dtype_casts_as_numpy_does(dest, src):
    """A value of a dtype that does not promote to the destination's is cast, as NumPy, torch
    and JAX do (values that every dtype holds, so the cast is exact in each)."""
    values = np.asarray([0, 1, 3, 0, 1, 2]).astype(src.np)
    x, ref = sa.zeros(8, dtype=dest), np.zeros(8, dtype=dest.np)
    x[1:7] = sa.asarray(values)
    ref[1:7] = values
    x[::-3] = sa.asarray(values[:3])
    ref[::-3] = values[:3]
    np.testing.assert_array_equal(np.asarray(x), ref)


@pytest.mark.parametrize("dest", [sa.int8, sa.uint8, sa.int64, sa.bool], ids=lambda d: d.name)
@pytest.mark.parametrize("value", [1.9, -1.9, 0.0, 127.5, 3.0, -0.5])
def test_setitem_python_float_into_integer_truncates_as_numpy(dest, value):
    x, ref = sa.zeros(2, dtype=dest), np.zeros(2, dtype=dest.np)
    try:
        ref[0] = value
    except OverflowError:
        with pytest.raises(OverflowError, match="value: Python int -1 is out of range for uint8"):
            x[0] = value
        return
    x[0] = value
    np.testing.assert_array_equal(np.asarray(x), ref)


@SETTINGS
@given(pair=views(), data=st.data())
def test_take_matches_numpy(pair, data):
    ref = pair.ref
    if ref.ndim == 0:
        return
    axis = data.draw(st.integers(-ref.ndim, ref.ndim - 1))
    n = ref.shape[axis]
    values = st.lists(st.integers(-n, n - 1), max_size=5) if n else st.just([])
    idx = np.asarray(data.draw(values), dtype=np.int64)
    out = sa.take(pair.x, sa.asarray(idx), axis=axis)
    np.testing.assert_array_equal(np.asarray(out), np.take(ref, idx, axis=axis))
    if ref.ndim == 1:
        np.testing.assert_array_equal(
            np.asarray(sa.take(pair.x, sa.asarray(idx))), np.take(ref, idx)
        )


@SETTINGS
@given(pair=views(), data=st.data())
def test_take_along_axis_matches_numpy(pair, data):
    ref = pair.ref
    if ref.ndim == 0 or 0 in ref.shape:
        return
    axis = data.draw(st.integers(-ref.ndim, ref.ndim - 1))
    n = ref.shape[axis]
    shape = list(ref.shape)
    shape[axis] = data.draw(st.integers(0, 4))
    idx = np.random.default_rng(data.draw(st.integers(0, 99))).integers(-n, n, size=shape)
    out = sa.take_along_axis(pair.x, sa.asarray(idx), axis=axis)
    np.testing.assert_array_equal(np.asarray(out), np.take_along_axis(ref, idx, axis=axis))


def test_take_errors():
    x = sa.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="axis"):
        sa.take(x, sa.asarray([0]))
    with pytest.raises(IndexError, match="indices"):
        sa.take(x, sa.asarray([2]), axis=0)
    with pytest.raises(TypeError, match="integer"):
        sa.take(x, sa.asarray([0.0]), axis=0)
    with pytest.raises(IndexError, match="indices"):
        sa.take_along_axis(x, sa.asarray([[5]]), axis=1)
    with pytest.raises(ValueError, match="rank"):
        sa.take_along_axis(x, sa.asarray([0]), axis=1)


@SETTINGS
@given(pair=views(), data=st.data())
def test_numpy_index_arrays_index_as_in_numpy(pair, data):
    """NumPy integer and bool arrays as indices (scikit-learn's cross-validation splits, Dask's
    arg reductions): NumPy, torch and JAX accept them, so we give NumPy's answer."""
    ref = pair.ref
    if ref.ndim == 0:
        return
    n = ref.shape[0]
    idt = np.dtype(data.draw(st.sampled_from([np.int64, np.int32, np.uint8])))
    low = 0 if idt.kind == "u" else -n
    ints = np.asarray(
        data.draw(st.lists(st.integers(low, n - 1), max_size=4) if n else st.just([])), dtype=idt
    )
    mask = np.asarray(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    for key in (ints, mask, (ints, Ellipsis), (Ellipsis, np.int64(0)) if ref.shape[-1] else mask):
        got, want = pair.x[key], ref[key]
        assert isinstance(got, sa.Array)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.dtype.np == want.dtype
    before = pair.base_np.copy()
    with pytest.raises(IndexError, match="float64"):
        pair.x[np.asarray([0.5])]
    np.testing.assert_array_equal(pair.base_np, before)


# -- the rank limit: a basic key whose result has more than 64 axes is refused as NumPy refuses
# it (IndexError), on the C path (exact ints, slices, None, '...') and on the Python path (NumPy
# integers in the key), and never writes past the 64-axis descriptor (docs/reliability.md).
def _limit_case(data):
    """(NumPy base array, key) with a result rank near 64: small extents, few above 1."""
    r = data.draw(st.integers(0, 64), label="rank")
    big = data.draw(st.sets(st.integers(0, max(r - 1, 0)), max_size=min(r, 3)), label="big axes")
    shape = tuple(3 if k in big else 1 for k in range(r))
    base = np.arange(float(np.prod(shape, dtype=np.int64))).reshape(shape)
    n_int = data.draw(st.integers(0, min(r + 1, 64)), label="ints")
    n_slice = data.draw(st.integers(0, max(r - n_int + 1, 0)), label="slices")
    target = data.draw(
        st.sampled_from([64, 63, 65, 64, 62, 66, 60, 68]), label="result rank aimed at"
    )
    n_none = max(0, target - (r - n_int))
    ellipsis = data.draw(st.sampled_from([0, 0, 1, 1, 2]), label="ellipses")
    as_np_int = data.draw(st.booleans(), label="NumPy integers (the Python path)")
    items = []
    for _ in range(n_int):
        i = data.draw(st.sampled_from([0, 0, 0, -1, -1, 0, 1, -3]))  # most axes have extent 1
        items.append(np.int64(i) if as_np_int else i)
    for _ in range(n_slice):
        start = data.draw(st.none() | st.integers(-4, 4))
        stop = data.draw(st.none() | st.integers(-4, 4))
        step = data.draw(st.none() | st.sampled_from([-2, -1, 1, 2]))
        items.append(slice(start, stop, step))
    items += [None] * n_none + [Ellipsis] * ellipsis
    key = tuple(data.draw(st.permutations(items), label="key"))
    # NumPy refuses keys of more than 128 entries whatever they give ("too many indices");
    # this library refuses only what it cannot hold. Compared here below that length.
    assume(len(key) <= 128)
    return base, key


@settings(max_examples=300, deadline=None)
@given(data=st.data(), reverse=st.booleans())
def test_keys_near_the_rank_limit_match_numpy(data, reverse):
    base, key = _limit_case(data)
    if reverse and base.ndim:
        base = base[::-1]  # a negative stride on axis 0: the strided view is indexed
    x = sa.asarray(base)
    try:
        expected = base[key]
    except IndexError:
        with pytest.raises(IndexError):
            x[key]
        return
    got = x[key]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_slices_keep_their_axis_in_the_rank_count():
    X = sa.asarray(np.arange(30.0).reshape(2, 3, 5))
    key = (slice(None),) * 3 + (None,) * 62  # 65 axes: refused, the strides left intact
    with pytest.raises(IndexError, match=r"within \[0, 64\], indexing result would have 65"):
        X[key]
    with pytest.raises(IndexError, match="would have 65"):
        X[(np.int64(0),) + key[1:] + (None,)]  # the Python path counts the same way
    assert X.strides == (15, 5, 1)
    ok = X[key[:-1]]
    assert ok.shape == (2, 3, 5) + (1,) * 61 and ok.strides[:3] == (15, 5, 1)
    # Far past the limit (64 axes kept, 64 added): refused before the descriptor is written.
    y = sa.reshape(sa.arange(1.0), (1,) * 64)
    with pytest.raises(IndexError, match="would have 128"):
        y[(slice(None),) * 64 + (None,) * 64]
    assert y[(0,) * 64 + (None,) * 64].shape == (1,) * 64


@pytest.mark.parametrize(
    "make",
    [
        lambda m, a: m.reshape(a, (1,) * 65),
        lambda m, a: m.expand_dims(a, axis=0),
        lambda m, a: m.broadcast_to(a, (1,) * 65),
        lambda m, a: m.zeros((1,) * 65),
    ],
    ids=["reshape", "expand_dims", "broadcast_to", "zeros"],
)
def test_other_routes_past_64_axes_raise_valueerror_as_numpy(make):
    # The same limit on the routes that are not indexing: NumPy's ValueError, ours names it.
    with pytest.raises(ValueError):
        make(np, np.ones((1,) * 64))
    with pytest.raises(ValueError, match="64 dimensions"):
        make(sa, sa.reshape(sa.arange(1.0), (1,) * 64))


# -- basic indexing's one rule (csrc/arraytype/indexing.c) serves both paths: keys of exact ints
# go to it directly, keys with NumPy integers or 0-d integer Arrays through the Python path,
# which turns them into ints and calls the same rule; assignment finds its selection the same
# way. Differential against NumPy over random views (0-size, negative, step-two and zero
# strides), with the key's ints drawn in several spellings.
_INT_SPELLINGS = ["int", "np.int64", "np.uint8", "np.intp", "0-d int64 Array", "0-d uint16 Array"]


def _spell(k, how):
    if type(k) is not int or how == "int":
        return k
    if how.startswith("0-d"):
        dt = sa.int64 if "int64" in how else sa.uint16
        return sa.asarray(k, dtype=dt) if k >= 0 or dt is sa.int64 else k
    t = {"np.int64": np.int64, "np.uint8": np.uint8, "np.intp": np.intp}[how]
    return t(k) if k >= 0 or t is not np.uint8 else np.int64(k)


def _numpy_view(ref, key):
    got = ref[key]
    if not isinstance(got, np.ndarray):  # NumPy's scalar for a full int key: the 0-d view
        got = ref[(*key, ...) if isinstance(key, tuple) else (key, ...)]
    return got


@settings(max_examples=200, deadline=None)
@given(pair=views(), data=st.data())
def test_basic_keys_in_every_int_spelling_match_numpy(pair, data):
    x, ref = pair.x, pair.ref
    key = data.draw(basic_indices(ref.shape, allow_none=ref.ndim < 6))
    how = data.draw(st.lists(st.sampled_from(_INT_SPELLINGS), min_size=8, max_size=8))
    if isinstance(key, tuple):
        spelled = tuple(_spell(k, how[i % 8]) for i, k in enumerate(key))
    else:
        spelled = _spell(key, how[0])
    expected = _numpy_view(ref, key)
    got = x[spelled]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)
    if expected.size:
        # The view's strides and first element are NumPy's (in elements, extent-1 axes aside).
        its = expected.itemsize
        for n, s, sb in zip(got.shape, got.strides, expected.strides, strict=True):
            assert n <= 1 or s * its == sb
        if np.shares_memory(pair.base_np, np.asarray(pair.base_x)):
            # the same memory: the view starts at NumPy's first element (its origin)
            addr = np.asarray(got).__array_interface__["data"][0]
            assert addr == expected.__array_interface__["data"][0]
    assert got[...]._st is x._st  # a view over the same storage, on both paths


@settings(max_examples=100, deadline=None)
@given(pair=views(broadcast=False), data=st.data())
def test_setitem_with_basic_keys_in_every_int_spelling_matches_numpy(pair, data):
    x, ref = pair.x, pair.ref
    key = data.draw(basic_indices(ref.shape, allow_none=ref.ndim < 6))
    how = data.draw(st.sampled_from(_INT_SPELLINGS))
    spelled = tuple(_spell(k, how) for k in key) if isinstance(key, tuple) else _spell(key, how)
    value = np.asarray(7).astype(ref.dtype)
    ref[key] = value
    x[spelled] = sa.asarray(value)
    np.testing.assert_array_equal(np.asarray(pair.base_x), pair.base_np)


@pytest.mark.parametrize("how", _INT_SPELLINGS)
def test_basic_key_errors_are_the_same_in_every_int_spelling(how):
    x = sa.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        x[_spell(2, how)]
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 3"):
        x[_spell(0, how), _spell(5, how)]
    with pytest.raises(IndexError, match="too many indices: 3 for an array of rank 2"):
        x[_spell(0, how), 0, _spell(0, how)]
    with pytest.raises(IndexError, match=r"single ellipsis \('...'\)"):
        x[..., _spell(0, how), ...]
    with pytest.raises(IndexError, match=r"within \[0, 64\], indexing result would have 65"):
        x[(_spell(0, how),) + (None,) * 64]
    # Over 64 items in the key itself, the result's rank within the limit: the same result.
    y = sa.reshape(sa.arange(1.0), (1,) * 64)
    k = (_spell(0, how),) * 64 + (None,) * 3
    assert y[k].shape == (1, 1, 1)


@settings(max_examples=100, deadline=None)
@given(
    step=st.sampled_from([5, 2**40, 2**62, -(2**62), 2**63 - 1, -(2**63 - 1), 2**70]),
    shape=st.sampled_from([(4,), (1, 3), (3, 1), (0, 2), (1, 1, 2)]),
    data=st.data(),
)
def test_views_of_strides_beyond_int64_match_numpy_values(step, shape, data):
    # A slice step beyond the buffer on an axis of extent <= 1 gives a stride C holds as 0;
    # views of that view take the same rule, the exact strides carried as Python ints.
    base = np.arange(float(np.prod(shape))).reshape(shape)
    x = sa.asarray(base)[slice(None, None, step), ...]
    ref = base[slice(None, None, step), ...]
    key = data.draw(basic_indices(ref.shape))
    how = data.draw(st.sampled_from(_INT_SPELLINGS))
    spelled = tuple(_spell(k, how) for k in key) if isinstance(key, tuple) else _spell(key, how)
    got, expected = x[spelled], _numpy_view(ref, key)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)
    # The first axis's stride is held exactly: the parent's times each step taken.
    if isinstance(key, slice) and key.step is not None:
        assert got._strides[0] == x._strides[0] * key.step
    elif key is Ellipsis or key == ():
        assert got._strides == x._strides


class _StepThatChanges:
    """A slice bound whose `__index__` answers 1 the first time and -1 after."""

    def __init__(self):
        self.reads = 0

    def __index__(self):
        self.reads += 1
        return 1 if self.reads == 1 else -1


@pytest.mark.parametrize("write", [False, True])
def test_a_slice_step_is_read_once_on_the_exact_strides_path(write):
    # Reliability 5, finding 4: views of a parent whose stride C holds inexactly re-read the
    # slice's step to make their exact strides; a step answering 1 and then -1 gave x2's row
    # reversed with the origin of step 1, reaching the parent's row before x2's.
    base = np.arange(12.0).reshape(3, 4)
    x = sa.asarray(base.copy())
    x2 = x[2:, :][:: 2**62]  # shape (1, 4): a stride beyond the buffer
    step = _StepThatChanges()
    v = x2[:, ::step]
    assert step.reads == 1
    np.testing.assert_array_equal(np.asarray(v), base[2:, :])
    assert v.strides[1] == 1
    if write:
        v[...] = -1.0
        expected = base.copy()
        expected[2] = -1.0
        np.testing.assert_array_equal(np.asarray(x), expected)  # nothing outside x2 changed


def test_an_extent_beyond_int64_is_refused_by_name():
    # Only the private constructor makes such an array (a broadcast beyond NumPy's reach);
    # indexing it says why, on both paths, instead of computing with extents C cannot hold.
    from stridedarray._base.construct import _make, _Storage

    h = _make(_Storage(np.arange(4.0)), sa.float64, (2**64,), (0,), 0)
    for key in (0, np.int64(0), slice(1, 3), (Ellipsis, None)):
        with pytest.raises(
            IndexError, match=r"extent beyond 2\*\*63 - 1 \(shape \(18446744073709551616,\)\)"
        ):
            h[key]


# --- assignment of a Python float -------------------------------------------------------------

_FLOATS = [0.0, -0.0, 2.5, -1e300, 1e300, 3.4e38, 5e-324, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("value", _FLOATS, ids=repr)
def test_assigning_a_python_float_equals_numpy_and_the_general_path(dtype, value) -> None:
    ref = np.arange(6.0).reshape(2, 3).astype(dtype)
    mask = np.array([[True, False, True], [False, False, True]])
    with np.errstate(over="ignore"):
        ref[mask] = value
        ref[1, 0] = value
    x = sa.asarray(np.arange(6.0).reshape(2, 3).astype(dtype))
    x[sa.asarray(mask)] = value
    x[1, 0] = value
    # np.float64 is a float subclass: the general path, with the same rule.
    y = sa.asarray(np.arange(6.0).reshape(2, 3).astype(dtype))
    y[sa.asarray(mask)] = np.float64(value)
    y[1, 0] = np.float64(value)
    np.testing.assert_array_equal(np.asarray(x), ref)
    np.testing.assert_array_equal(np.asarray(y), ref)


def test_assigning_a_python_float_elsewhere_keeps_its_errors() -> None:
    x = sa.zeros(3, dtype=sa.int32)
    with pytest.raises(ValueError, match="NaN cannot be assigned"):
        x[0] = math.nan
    x[0] = 2.7  # truncates, as NumPy
    assert int(x[0]) == 2
    ro = sa.broadcast_to(sa.ones(1), (3,))
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = 1.0
