"""The Array object: created only through functions, read-only descriptor
properties, contiguity flags, creation functions, and __setitem__ with broadcasting."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from standard_names import ARITHMETIC_OPERATORS, COMPARISON_OPERATORS
from strategies import ALL_DTYPES, basic_indices, dtypes, fill, shapes, views

import stridedarray as sa

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means


def test_array_cannot_be_instantiated_directly():
    for args in [(), ([1, 2],), (np.zeros(3),)]:
        with pytest.raises(TypeError, match="asarray"):
            sa.Array(*args)
    assert type(sa.zeros(2)) is sa.Array


@settings(max_examples=150)
@given(views())
def test_properties_describe_the_view(p):
    x, ref = p.x, p.ref
    assert x.shape == ref.shape and isinstance(x.shape, tuple)
    assert all(type(n) is int for n in x.shape) and all(type(s) is int for s in x.strides)
    assert x.ndim == ref.ndim and len(x.strides) == x.ndim
    assert x.size == ref.size and x.dtype.np == ref.dtype
    assert x.device == sa.zeros(1).device
    assert memoryview(x.buffer).nbytes == x.buffer.size * x.dtype.itemsize  # buffer protocol
    if x.size:
        flat = np.asarray(x.buffer).reshape(-1)
        assert flat[x.origin] == ref[(0,) * ref.ndim]  # origin names element (0, ..., 0)
        assert x.is_c_contiguous == ref.flags.c_contiguous
        assert x.is_f_contiguous == ref.flags.f_contiguous
    else:
        assert x.is_c_contiguous and x.is_f_contiguous


def test_properties_are_read_only():
    x = sa.zeros((2, 3))
    for name in [
        "buffer",
        "dtype",
        "shape",
        "strides",
        "origin",
        "ndim",
        "size",
        "device",
        "is_c_contiguous",
        "is_f_contiguous",
    ]:
        getattr(x, name)
        with pytest.raises(AttributeError):
            setattr(x, name, getattr(x, name))
    with pytest.raises(AttributeError):
        x.extra = 1  # slotted: no stray attributes


def test_descriptor_of_a_view():
    x = sa.reshape(sa.arange(24, dtype=sa.int32), (2, 3, 4))
    v = x[1, ::-1, 1::2]
    assert (v.shape, v.strides, v.origin) == ((3, 2), (-4, 2), 12 + 8 + 1)
    assert v.buffer is x.buffer and v.dtype is sa.int32
    assert not v.is_c_contiguous and not v.is_f_contiguous
    assert x.is_c_contiguous and not x.is_f_contiguous and x.mT.mT.is_c_contiguous
    assert sa.permute_dims(x, (2, 1, 0)).is_f_contiguous
    assert sa.zeros((1, 5))[:, ::-1].is_c_contiguous is False


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: d.name)
def test_creation_functions(dt):
    for shape in [(), (0,), (2, 3), 4, (1, 0, 2)]:
        tup = (shape,) if isinstance(shape, int) else shape
        for f, val in [(sa.zeros, 0), (sa.ones, 1)]:
            x = f(shape, dtype=dt)
            assert x.dtype is dt and x.shape == tup and x.is_c_contiguous and x.origin == 0
            np.testing.assert_array_equal(np.asarray(x), np.full(tup, val, dt.np))
        assert sa.empty(shape, dtype=dt).shape == tup
        fv = True if dt.kind == "b" else 3
        np.testing.assert_array_equal(
            np.asarray(sa.full(shape, fv, dtype=dt)), np.full(tup, fv, dt.np)
        )


def test_creation_defaults_and_arange():
    assert sa.zeros(2).dtype is sa.float64 and sa.empty(2).dtype is sa.float64
    assert sa.full(2, True).dtype is sa.bool and sa.full(2, 1).dtype is sa.int64
    assert sa.full(2, 1.0).dtype is sa.float64 and sa.full(2, 1j).dtype is sa.complex128
    assert sa.arange(5).dtype is sa.int64 and sa.arange(0.5, 3).dtype is sa.float64
    np.testing.assert_array_equal(np.asarray(sa.arange(2, 11, 3)), np.arange(2, 11, 3))
    np.testing.assert_array_equal(np.asarray(sa.arange(5, 0, -2)), np.arange(5, 0, -2))
    assert sa.arange(3, dtype=sa.float32).dtype is sa.float32
    with pytest.raises(ValueError, match="arange: step must not be zero"):
        sa.arange(0, 3, 0)


def test_creation_bad_input():
    for bad in ["float16", np.float16, np.dtype("f2"), str, "f16", [1]]:  # docs/dtypes.md
        with pytest.raises(TypeError, match="dtype"):
            sa.zeros(2, dtype=bad)
        with pytest.raises(TypeError, match="dtype"):
            sa.asarray([1.0], dtype=bad)
    with pytest.raises(ValueError, match="negative"):
        sa.ones((2, -1))
    with pytest.raises(TypeError, match="shape"):
        sa.empty((2.0,))
    with pytest.raises(TypeError, match="fill_value"):
        sa.full(2, "x")
    with pytest.raises(ValueError, match="device"):
        sa.zeros(2, device="cuda")
    with pytest.raises(
        TypeError, match="asarray: obj must be an array, a buffer, or a Python bool"
    ):
        sa.asarray(["a", "b"])
    with pytest.raises(
        TypeError, match="asarray: obj must be an array, a buffer, or a Python bool"
    ):
        sa.asarray({1: 2})
    with pytest.raises(OverflowError, match="Python int 300 is out of range for int8"):
        sa.asarray(300, dtype=sa.int8)


PYTHON_TYPE_DTYPES = {
    "zeros": lambda t: sa.zeros(2, dtype=t),
    "ones": lambda t: sa.ones(2, dtype=t),
    "empty": lambda t: sa.empty(2, dtype=t),
    "full": lambda t: sa.full(2, 1, dtype=t),
    "asarray": lambda t: sa.asarray([1, 0], dtype=t),
    "arange": lambda t: sa.arange(2, dtype=t),
    "eye": lambda t: sa.eye(2, dtype=t),
    "zeros_like": lambda t: sa.zeros_like(sa.ones(2), dtype=t),
    "full_like": lambda t: sa.full_like(sa.ones(2), 1, dtype=t),
    "astype": lambda t: sa.astype(sa.ones(2), t),
    "sum": lambda t: sa.sum(sa.ones(2), dtype=t),
}


@pytest.mark.parametrize("func", PYTHON_TYPE_DTYPES.values(), ids=PYTHON_TYPE_DTYPES.keys())
@pytest.mark.parametrize("pytype", [bool, int, float, complex])
def test_python_types_as_dtypes_give_the_default_dtype_of_their_kind(func, pytype):
    # NumPy, PyTorch and JAX accept Python's types as dtype arguments; each gives the default
    # dtype of the kind, and ours are NumPy's on this platform.
    want = {bool: sa.bool, int: sa.int64, float: sa.float64, complex: sa.complex128}[pytype]
    out = func(pytype)
    assert out.dtype is want and out.dtype.np == np.dtype(pytype)


def test_python_float_as_a_frequency_dtype_but_no_other_python_type():
    assert sa.fft.fftfreq(4, dtype=float).dtype is sa.float64
    with pytest.raises(TypeError, match="real floating-point"):
        sa.fft.rfftfreq(4, dtype=int)


def test_asarray_python_objects():
    assert sa.asarray(True).dtype is sa.bool and sa.asarray(2).dtype is sa.int64
    assert sa.asarray(2.0).dtype is sa.float64 and sa.asarray(2j).dtype is sa.complex128
    x = sa.asarray([[1, 2], [3, 4]])
    assert x.shape == (2, 2) and x.dtype is sa.int64
    assert sa.asarray([1.5, 2], dtype=sa.float32).dtype is sa.float32


# -- __setitem__ ---------------------------------------------------------------------------


@settings(max_examples=150)
@given(views(broadcast=False, max_ops=3), st.data())
def test_setitem_basic_with_broadcasting(p, data):
    key = data.draw(basic_indices(p.ref.shape))
    target_shape = p.ref[key].shape if isinstance(p.ref[key], np.ndarray) else ()
    # The value's shape broadcasts to the selection: drop leading axes, squash some to 1.
    k = data.draw(st.integers(0, len(target_shape)))
    vshape = tuple(n if data.draw(st.booleans()) else 1 for n in target_shape[k:])
    use_scalar = data.draw(st.booleans())
    value_np = fill(p.x.dtype, vshape, data.draw(st.integers(0, 2**32 - 1)))
    expected = p.base_np.copy()
    exp_view = _same_view(expected, p)
    if use_scalar:
        scalar = value_np.reshape(-1)[0].item() if value_np.size else 0
        scalar = bool(scalar) if p.x.dtype.kind == "b" else scalar
        exp_view[key] = scalar
        p.x[key] = scalar
    else:
        exp_view[key] = value_np
        p.x[key] = sa.asarray(value_np)
    np.testing.assert_array_equal(p.base_np, expected)  # written through to the source
    np.testing.assert_array_equal(np.asarray(p.x), exp_view)


def _same_view(arr: np.ndarray, p) -> np.ndarray:
    """The view of `arr` that `p.ref` is of `p.base_np` (same offset and strides)."""
    off = p.ref.__array_interface__["data"][0] - p.base_np.__array_interface__["data"][0]
    return np.lib.stride_tricks.as_strided(
        arr.reshape(-1)[off // arr.itemsize :] if arr.size else arr.reshape(-1),
        p.ref.shape,
        p.ref.strides,
    )


def test_setitem_bad_input_leaves_data_unchanged():
    x = sa.reshape(sa.arange(12.0), (3, 4))
    before = np.asarray(x).copy()
    with pytest.raises(ValueError, match="cannot be broadcast to the selection of shape"):
        x[:, 0] = sa.asarray([1.0, 2.0])  # (2,) does not broadcast to (3,)
    with pytest.raises(IndexError, match="axis 0 with size 3"):
        x[3] = 1.0
    with pytest.raises(
        (IndexError, TypeError), match="only integers, slices, '...', None, bools and integer or"
    ):
        x[1.0] = 1.0
    with pytest.raises(
        TypeError, match="value must be an array or a Python or NumPy scalar, got str"
    ):
        x[0] = "a"
    np.testing.assert_array_equal(np.asarray(x), before)


@settings(max_examples=30)
@given(dtypes(), shapes(1, 3, 1, 4))
def test_setitem_through_negative_view(dt, shape):
    base = sa.zeros(shape, dtype=dt)
    rev = sa.flip(base)
    rev[(0,) * len(shape)] = True if dt.kind == "b" else 7
    assert np.asarray(base)[tuple(n - 1 for n in shape)] == (True if dt.kind == "b" else 7)


@pytest.mark.parametrize("dt", [np.float64, np.int32, np.complex128, np.uint16])
def test_misaligned_numpy_results_are_copied_to_aligned_memory(dt):
    # ndarray.view of bytes at an odd address: NumPy hands back misaligned memory; the
    # C core loads elements as their C type, so the wrapper copies it (docs/reliability.md).
    n = 4 * np.dtype(dt).itemsize
    raw = sa.asarray(np.arange(n + 1, dtype=np.uint8))
    x = raw[1:].view(dt)
    assert x.buffer.flags.aligned
    ref = np.arange(n + 1, dtype=np.uint8)[1:].view(dt)
    np.testing.assert_array_equal(np.asarray(x), ref)
    if np.dtype(dt).kind in "fc":
        m = sa.reshape(x, (2, 2))
        np.testing.assert_array_equal(np.asarray(m @ m), ref.reshape(2, 2) @ ref.reshape(2, 2))


# -- operands of the operators: one rule for arithmetic and comparison -----------------------
# Operators take Arrays and Python scalars (the standard's operands); NumPy's arrays and
# scalars are NumPy's to compute (through __array_ufunc__), other libraries' arrays answer
# the reflected operator. A list or tuple is a TypeError saying how to convert it, for == and
# != as for +: never Python's identity fallback, a silent False.
OPERATORS = {**ARITHMETIC_OPERATORS, **COMPARISON_OPERATORS}


@pytest.mark.parametrize("sym", OPERATORS)
@pytest.mark.parametrize("seq", [[1.0, 2.0, 1.0, 1.0], (1.0, 2.0, 1.0, 1.0)])
def test_a_list_operand_is_refused_alike_by_every_operator(sym, seq):
    op = OPERATORS[sym]
    x = sa.ones(4)
    hint = rf"got {type(seq).__name__}; convert it with stridedarray\.asarray\(other\)"
    with pytest.raises(TypeError, match=rf"x {re.escape(sym)} other: .*{hint}"):
        op(x, seq)
    with pytest.raises(TypeError, match=hint):
        op(seq, x)
    # converted, it gives NumPy's answer
    got = op(x, sa.asarray(seq))
    np.testing.assert_array_equal(np.asarray(got), op(np.ones(4), np.asarray(seq)))


@pytest.mark.parametrize("other", [None, "a", object()])
@pytest.mark.parametrize("sym", ["==", "!="])
def test_equality_with_an_unknown_object_is_not_a_silent_bool(sym, other):
    op = OPERATORS[sym]
    x = sa.ones(3)
    with pytest.raises(TypeError, match=rf"x {sym} other: .*got {type(other).__name__}"):
        op(x, other)
    with pytest.raises(TypeError, match=rf"got {type(other).__name__}"):
        op(other, x)


def test_equality_with_numpy_operands_is_numpys_elementwise_answer():
    x = sa.asarray([1.0, 2.0, 3.0])
    n = np.asarray([1.0, 0.0, 3.0])
    for got, expected in [
        (x == n, [True, False, True]),
        (n != x, [False, True, False]),
        (x == np.int64(2), [False, True, False]),
        (np.float32(3) != x, [True, True, False]),
    ]:
        assert type(got) is sa.Array and got.dtype is sa.bool
        np.testing.assert_array_equal(np.asarray(got), expected)


class _ComparesItself:
    def __eq__(self, other):
        return "compared"

    def __ne__(self, other):
        return "compared too"

    __hash__ = None


def test_equality_defers_to_an_object_that_compares_itself():
    x = sa.ones(2)
    assert (x == _ComparesItself()) == "compared"
    assert (x != _ComparesItself()) == "compared too"
    assert (_ComparesItself() == x) == "compared"


def test_arrays_stay_unhashable_and_membership_keeps_numpys_answers():
    with pytest.raises(TypeError, match="unhashable"):
        hash(sa.ones(2))
    x = sa.asarray([1.0, 2.0])
    assert 2 in x and None not in x and "a" not in x
    with pytest.raises(TypeError, match=r"convert it with stridedarray\.asarray"):
        [1.0, 2.0] in x  # noqa: B015


# -- str and NumPy's members ---------------------------------------------------------------
@settings(max_examples=200)
@given(views(full_range=True))
def test_str_is_numpys_str_of_the_same_values(p):
    # every dtype, 0-d, 0-size and views of every kind; NumPy's own printing as the oracle
    assert str(p.x) == str(p.ref) == np.array_str(p.ref)
    assert f"{p.x}" == str(p.ref)  # format() with an empty spec is str(), as NumPy's
    r = repr(p.x)  # the repr stays the informative one
    assert r.startswith("Array(") and f"dtype={p.x.dtype.name}" in r and f"shape={p.x.shape}" in r


def test_print_shows_the_values_and_repr_the_view():
    y = sa.reshape(sa.arange(6), (2, 3))[:, ::-1]
    assert str(y) == "[[2 1 0]\n [5 4 3]]"
    assert repr(y).endswith("dtype=int64, shape=(2, 3), strides=(3, -1), origin=2)")
    assert str(sa.asarray(1.5)) == "1.5" and str(sa.zeros((0, 2))) == "[]"


@settings(max_examples=150)
@given(views())
def test_nbytes_and_itemsize_are_numpys(p):
    assert p.x.itemsize == p.ref.itemsize and type(p.x.itemsize) is int
    assert p.x.nbytes == p.ref.nbytes and type(p.x.nbytes) is int


@settings(max_examples=150)
@given(views(dtype=st.sampled_from([sa.complex64, sa.complex128]), broadcast=False))
def test_real_and_imag_of_complex_are_views_sharing_memory(p):
    for part in ("real", "imag"):
        got, expected = getattr(p.x, part), getattr(p.ref, part)
        assert type(got) is sa.Array and got.dtype.np == expected.dtype
        np.testing.assert_array_equal(np.asarray(got), expected)
        if p.x.size and not p.x.readonly:
            got[...] = 7  # written through the view, as NumPy's
            assert (getattr(p.ref, part) == 7).all()
            assert np.shares_memory(np.asarray(got), np.asarray(p.x))


@settings(max_examples=100)
@given(views(dtype=dtypes([d for d in ALL_DTYPES if d.kind != "c"])))
def test_real_of_a_real_array_is_itself_and_imag_read_only_zeros(p):
    assert p.x.real is p.x
    im = p.x.imag
    np.testing.assert_array_equal(np.asarray(im), p.ref.imag)
    assert im.dtype is p.x.dtype and im.shape == p.x.shape and im.readonly
    if im.size:
        with pytest.raises(ValueError, match="read-only"):
            im[...] = 1
