"""What names a dtype (docs/dtypes.md, "What names a dtype"): every function taking a dtype
takes the same spellings, and a spelling never changes the result compared with passing our
own dtype object. The oracle is the call with our dtype; the refusals are checked by message."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridedarray as sa
from stridedarray._base.dtypes import DTYPES, DType

PYTHON_TYPES = {bool: sa.bool, int: sa.int64, float: sa.float64, complex: sa.complex128}


def spellings(d: DType) -> list[object]:
    """The ways a caller names dtype d besides d itself, as NumPy names it."""
    npdt = np.dtype(d.name)
    out = [npdt, npdt.type, d.name, npdt.str, npdt.char, npdt.newbyteorder("=")]
    out += [t for t, ours in PYTHON_TYPES.items() if ours is d]
    return out


# Every function taking a dtype, called with dtype D (a lambda of the dtype argument).
X = sa.asarray([[3, 1], [2, 5]], dtype=sa.int16)
V = sa.asarray([1.5, -2.0, 0.0])
CALLS = {
    "asarray": lambda D: sa.asarray([1, 0, 2], dtype=D),
    "asarray_array": lambda D: sa.asarray(V, dtype=D),
    "asarray_ndarray": lambda D: sa.asarray(np.arange(3.0), dtype=D),
    "zeros": lambda D: sa.zeros((2, 3), dtype=D),
    "ones": lambda D: sa.ones(3, dtype=D),
    "empty": lambda D: sa.empty(3, dtype=D),
    "full": lambda D: sa.full(3, True, dtype=D),
    "arange": lambda D: sa.arange(4, dtype=D),
    "linspace": lambda D: sa.linspace(0, 4, 5, dtype=D),
    "eye": lambda D: sa.eye(3, 2, k=-1, dtype=D),
    "empty_like": lambda D: sa.empty_like(X, dtype=D),
    "zeros_like": lambda D: sa.zeros_like(X, dtype=D),
    "ones_like": lambda D: sa.ones_like(X, dtype=D),
    "full_like": lambda D: sa.full_like(X, 1, dtype=D),
    "astype": lambda D: sa.astype(V, D),
    "sum": lambda D: sa.sum(X, axis=0, dtype=D),
    "prod": lambda D: sa.prod(X, dtype=D),
    "cumulative_sum": lambda D: sa.cumulative_sum(X, axis=1, dtype=D),
    "cumulative_prod": lambda D: sa.cumulative_prod(X, axis=1, dtype=D),
    "linalg.trace": lambda D: sa.linalg.trace(X, dtype=D),
    "result_type_first": lambda D: sa.result_type(D, sa.float32),
    "result_type_with_array": lambda D: sa.result_type(X, D, 1.5),
    "can_cast_from": lambda D: sa.can_cast(D, sa.float64),
    "can_cast_to": lambda D: sa.can_cast(sa.int8, D),
    "isdtype": lambda D: sa.isdtype(D, ("integral", "real floating")),
    "isdtype_kind": lambda D: sa.isdtype(sa.float32, D),
    "isdtype_kind_tuple": lambda D: sa.isdtype(sa.int64, ("bool", D)),
    "finfo": lambda D: sa.finfo(D),
    "iinfo": lambda D: sa.iinfo(D),
    "fft.fftfreq": lambda D: sa.fft.fftfreq(4, dtype=D),
    "fft.rfftfreq": lambda D: sa.fft.rfftfreq(4, dtype=D),
}


def outcome(call, dtype):
    """What the call gives: ('ok', result) or ('raises', exception type, message)."""
    try:
        return ("ok", call(dtype))
    except Exception as e:  # noqa: BLE001 - the outcome is compared, whatever it is
        return ("raises", type(e), str(e))


def same(a: object, b: object, empty: bool) -> bool:
    if isinstance(a, sa.Array):
        return (
            isinstance(b, sa.Array)
            and a.dtype is b.dtype
            and a.shape == b.shape
            and (empty or np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
        )
    if isinstance(a, DType):
        return a is b
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(sorted(CALLS)),
    d=st.sampled_from(DTYPES),
    data=st.data(),
)
def test_every_spelling_gives_what_our_dtype_gives(name, d, data):
    spelling = data.draw(st.sampled_from(spellings(d)), label="spelling")
    call = CALLS[name]
    expected, got = outcome(call, d), outcome(call, spelling)
    assert got[0] == expected[0], (got, expected)
    if expected[0] == "ok":
        assert same(expected[1], got[1], empty=name in ("empty", "empty_like")), (got, expected)
        if isinstance(expected[1], sa.Array):
            assert got[1].dtype is d or name.startswith(("sum", "prod", "cum", "linalg"))
    else:
        assert got[1:] == expected[1:]


@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.name)
def test_asarray_of_an_array_of_the_named_dtype_is_the_array(d):
    x = sa.asarray([1, 0], dtype=d)
    for spelling in spellings(d):
        assert sa.asarray(x, dtype=spelling) is x
        assert sa.astype(x, spelling, copy=False) is x


def test_the_spellings_name_the_dtype_numpy_maps_them_to():
    # NumPy's own reading of a name is the oracle for strings and scalar types.
    names = "f d f4 <f8 i8 u1 b B ? F D int float complex bool long intc uint"
    for s in names.split():
        assert sa.zeros(1, dtype=s).dtype == np.dtype(s), s
        assert sa.zeros(1, dtype=s).dtype.name == np.dtype(s).name
    for t in [np.bool_, np.intc, np.longlong, np.ulonglong, np.double, np.single, np.cdouble]:
        assert sa.ones(1, dtype=t).dtype.name == np.dtype(t).name


NON_NATIVE = ">f8" if sys.byteorder == "little" else "<f8"
REFUSED = [
    (np.float16, "float16"),
    (np.dtype("float16"), "float16"),
    ("float16", "float16"),
    ("e", "float16"),
    (np.longdouble, "not one of the supported dtypes"),
    (object, "object"),
    (np.dtype(object), "object"),
    ("datetime64[s]", "datetime64"),
    (np.dtype("m8[s]"), "timedelta64"),
    (np.str_, "str"),
    (np.dtype(NON_NATIVE), "non-native byte order"),
    (NON_NATIVE, "non-native byte order"),
    (np.dtype([("a", "f8")]), "not one of the supported"),
    ("float65", "'float65'"),
    ("Float64", "'Float64'"),
    (b"float64", "b'float64'"),
    (3, "3"),
    (sa.Array, "Array"),
    (np.ndarray, "ndarray"),
    (np.array(1.0), "array"),
    (np.array([1.0]).dtype.type(2.0), "2.0"),
]
TAKES_NONE = {"asarray", "asarray_array", "asarray_ndarray", "zeros", "ones", "empty", "full",
              "arange", "linspace", "eye", "empty_like", "zeros_like", "ones_like", "full_like",
              "sum", "prod", "cumulative_sum", "cumulative_prod", "linalg.trace",
              "fft.fftfreq", "fft.rfftfreq"}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize(("bad", "why"), REFUSED, ids=repr)
def test_what_names_no_supported_dtype_is_refused_naming_the_argument(name, bad, why):
    if name.startswith("result_type") and isinstance(bad, (int, np.ndarray, np.generic)):
        pytest.skip("a scalar or 0-d array is an operand of result_type, not a dtype")
    if name.startswith("isdtype_kind") and isinstance(bad, str):
        # A string in `kind` that is no category is a ValueError, as an unknown category is.
        with pytest.raises(ValueError, match=r"kind: .* is neither a dtype category") as info:
            CALLS[name](bad)
        assert why in str(info.value)
        return
    argument = {
        "can_cast_from": "from_",
        "can_cast_to": "to",
        "finfo": "type",
        "iinfo": "type",
        "isdtype_kind": "kind",
        "isdtype_kind_tuple": "kind",
        "result_type_first": "result_type",
        "result_type_with_array": "result_type",
    }.get(name, "dtype")
    with pytest.raises(TypeError, match=argument) as info:
        CALLS[name](bad)
    message = str(info.value)
    assert why in message
    assert "numpy.dtype('float64')" in message and "'f8'" in message  # what is accepted


def test_refusals_leave_the_input_unchanged():
    x = sa.asarray([1.0, 2.0])
    before = np.asarray(x).copy()
    with pytest.raises(TypeError, match="dtype must name a supported dtype"):
        sa.astype(x, np.float16)
    assert x.dtype is sa.float64 and np.array_equal(np.asarray(x), before)


def test_none_keeps_its_meaning_where_a_function_has_a_default():
    for name in TAKES_NONE:
        assert outcome(CALLS[name], None)[0] == "ok", name
    with pytest.raises(TypeError, match="dtype must name a supported dtype"):
        sa.astype(V, None)
