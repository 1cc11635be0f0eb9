"""In-place operators against NumPy's own `a op= b`: the same values and NumPy's same-kind
casting where both accept the operands, an error where NumPy raises, and on any error the left
operand (and every view of its buffer) unchanged: nothing is half written."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES as DTYPES
from strategies import fill, views

import stridedarray as sa

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

# symbol -> (in-place operator, NumPy ufunc, kinds of result dtype the standard's function
# accepts; written out here, not read from the library)
INPLACE = {
    "+=": (operator.iadd, np.add, "biufc"),  # bool + bool: NumPy's logical or
    "-=": (operator.isub, np.subtract, "iufc"),
    "*=": (operator.imul, np.multiply, "biufc"),  # bool * bool: logical and
    "/=": (operator.itruediv, np.true_divide, "fc"),
    "//=": (operator.ifloordiv, np.floor_divide, "iuf"),
    "%=": (operator.imod, np.remainder, "iuf"),
    "**=": (operator.ipow, np.power, "iufc"),
    "&=": (operator.iand, np.bitwise_and, "biu"),
    "|=": (operator.ior, np.bitwise_or, "biu"),
    "^=": (operator.ixor, np.bitwise_xor, "biu"),
    "<<=": (operator.ilshift, np.left_shift, "iu"),
    ">>=": (operator.irshift, np.right_shift, "iu"),
}
DIVISIONS = ("/=", "//=", "%=")


@st.composite
def right_operands(draw, shape):
    """(our operand, NumPy's operand): an array of any dtype (same, broadcastable or
    incompatible shape), a 0-d array, a NumPy scalar or a Python scalar."""
    how = draw(st.sampled_from(["array", "array", "zero_d", "numpy_scalar", "python"]))
    if how == "python":
        v = draw(
            st.sampled_from([True, False, 0, 1, 2, -1, -3, 300, 2**40, 1.5, -0.5, 2.0, 1j, 1 + 2j])
        )
        return v, v
    dt = draw(st.sampled_from(DTYPES))
    if how == "array":
        kind = draw(st.sampled_from(["same", "broadcast", "bad"]))
        if kind == "same":
            sh = shape
        elif kind == "broadcast":
            keep = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
            sh = tuple(n if k else 1 for n, k in zip(shape, keep, strict=True))
            sh = sh[draw(st.integers(0, len(sh))) :]  # fewer axes broadcast too
        else:
            sh = shape + (2,) if draw(st.booleans()) else (3,) + shape
    else:
        sh = ()
    ref = fill(dt, sh, draw(st.integers(0, 2**32 - 1)))
    if how == "numpy_scalar":
        return ref[()], ref[()]
    return sa.asarray(ref.copy()), ref


def _no_zero(v):
    """The divisor without zeros (integer division by zero is NumPy's choice, not the
    standard's, and not what this test is about)."""
    if isinstance(v, np.ndarray | np.generic):
        v = np.array(v)
        v[v == 0] = 1
        return v
    return 1 if v == 0 else v


@pytest.mark.parametrize("sym", sorted(INPLACE))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_inplace_operator_matches_numpy_or_leaves_x_unchanged(sym, data):
    iop, uf, kinds = INPLACE[sym]
    pair = data.draw(views(st.sampled_from(DTYPES), broadcast=False))
    x, ref = pair.x, pair.ref
    other, other_np = data.draw(right_operands(ref.shape))
    if sym in DIVISIONS:
        other_np = _no_zero(other_np)
        other = (
            sa.asarray(other_np)
            if isinstance(other, sa.Array)
            else (other_np if not isinstance(other, np.ndarray | np.generic) else other_np[()])
        )
    if isinstance(other_np, np.float64 | np.complex128):
        # np.float64 and np.complex128 are Python float and complex (subclasses): taken as
        # Python scalars are, weakly; NumPy 2 types them strongly. Compare with Python's.
        other_np = other_np.item()
    if type(other_np) in (float, complex) and ref.dtype.kind in "fc":
        # The standard converts a Python scalar to the array's dtype before the operation;
        # NumPy may compute in double (remainder of two nearly equal values shows it)
        if type(other_np) is float or ref.dtype.kind == "c":
            other_np = np.asarray(other_np).astype(ref.dtype)[()]
    before = pair.base_np.copy()
    expected = ref.copy()
    try:
        with np.errstate(all="ignore"):
            result_kind = uf(ref, other_np).dtype.kind  # out of place, on a copy below
            iop(expected, other_np)
        numpy_ok = True
    except (TypeError, ValueError, OverflowError):
        numpy_ok = False
    # Our function is stricter than NumPy on kinds only: bit operations on bools mixed with
    # numbers, ...
    ours_ok = numpy_ok and result_kind in kinds
    dt = x.dtype
    event("computed" if ours_ok else "refused")
    if ours_ok:
        with np.errstate(all="raise"):  # nothing may leak a floating-point warning
            out = iop(x, other)
        assert out is x and x.dtype is dt
        if expected.dtype.kind in "fc":
            np.testing.assert_allclose(ref, expected, rtol=4 * np.finfo(expected.dtype).eps, atol=0)
        else:
            np.testing.assert_array_equal(ref, expected)
    else:
        with pytest.raises((TypeError, ValueError, OverflowError)):
            iop(x, other)
        np.testing.assert_array_equal(pair.base_np, before)  # not one element written
        assert x.dtype is dt


def test_integer_power_with_a_negative_exponent_writes_nothing():
    for exponent in (
        sa.asarray([2, 2, -1, 2]),
        -1,
        sa.asarray(-2),
        sa.asarray([2, 2, -1, 2], dtype=sa.int8),
    ):
        for dt in (sa.int64, sa.int32):
            x = sa.asarray([1, 2, 3, 4], dtype=dt)
            view = x[::-1]
            with pytest.raises(ValueError, match="negative"):
                view **= exponent
            assert x.tolist() == [1, 2, 3, 4]
    x = sa.asarray([1, 2, 3, 4], dtype=sa.uint8)
    with pytest.raises(TypeError, match="int16"):  # int8 exponents: an int16 result
        x **= sa.asarray([2, 2, -1, 2], dtype=sa.int8)
    assert x.tolist() == [1, 2, 3, 4]
    x = sa.asarray([1, 2, 3, 4])
    x **= sa.asarray([2, 0, 1, 3])  # non-negative: the direct path still computes
    assert x.tolist() == [1, 1, 3, 64]


def test_same_kind_casting_as_numpy():
    x = sa.zeros(3, dtype=sa.int32)
    x += sa.asarray(1)  # a 0-d int64 operand: int64 result, stored as int32
    assert x.dtype is sa.int32 and x.tolist() == [1, 1, 1]
    x += np.int64(2)
    x -= np.asarray([1, 1, 1], dtype=np.int64)
    assert x.dtype is sa.int32 and x.tolist() == [2, 2, 2]
    f = sa.ones(2, dtype=sa.float32)
    f *= sa.asarray([3.0, 0.5])  # float64 into float32
    assert f.dtype is sa.float32 and f.tolist() == [3.0, 0.5]
    with pytest.raises(TypeError, match="float64.*int32"):
        x += 1.5
    with pytest.raises(TypeError, match="complex128.*float32"):
        f += sa.asarray(1j)
    with pytest.raises(TypeError, match="int16.*uint8"):
        u = sa.ones(2, dtype=sa.uint8)
        u += sa.ones(2, dtype=sa.int8)  # signed into unsigned: not the same kind in NumPy
    assert x.tolist() == [2, 2, 2] and f.tolist() == [3.0, 0.5]


def test_a_read_only_left_operand_is_refused_for_every_operator():
    frozen = np.arange(1, 5, dtype=np.int64)
    frozen.flags.writeable = False
    x = sa.asarray(frozen)
    for sym, (iop, _, _) in INPLACE.items():
        with pytest.raises((ValueError, TypeError)):
            iop(x, 1 if sym != "/=" else 1.0)
    assert frozen.tolist() == [1, 2, 3, 4]
