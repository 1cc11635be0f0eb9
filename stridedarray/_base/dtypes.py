"""Data types (Array API chapter "Data Types") and the type promotion table.

Each dtype is a namespace object (`stridedarray.float64`) carrying the NumPy dtype used for
storage and computation and the code the C core knows it by. Promotion follows the standard's
table. Where the standard leaves a promotion undefined (bool with numbers, integers with
floating point, uint64 with signed integers) we give NumPy's answer rather than raising: the
standard leaves these to the library, NumPy, torch and JAX all promote them, and code written
against any of them (SciPy, scikit-learn, Dask) relies on it. `can_cast` keeps to the
standard's table alone (docs/interop.md, "Where the standard is silent").
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from .arguments import convert_hint

builtins_bool = builtins.bool

__all__ = [
    "DType",
    "DTYPES",
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "from_numpy_dtype",
    "promote",
    "promote_standard",
    "KIND_OF",
    "DEFAULT_DTYPE",
    "default_dtype",
    "python_type",
    "scalar_dtype",
    "check_int_range",
    "float_as_int",
    "scalar_np",
    "scalar_operand",
    "as_dtype",
    "dtype_named",
    "refused",
    "ACCEPTED",
    "INTEGERS_AS_FLOAT64",
]


class DType:
    """An Array API data type: a name, its NumPy storage dtype and its C core code."""

    __slots__ = ("name", "np", "code", "kind", "bits", "_hash", "_npclass")

    def __init__(self, name: str, code: int, kind: str, bits: int) -> None:
        self.name = name
        self.np = np.dtype(name)
        self._hash = hash(self.np).__index__  # see __hash__
        self._npclass = type(self.np)  # see __class__
        self.code = code
        # kind: "b" bool, "i" signed, "u" unsigned, "f" real floating, "c" complex floating
        self.kind = kind
        self.bits = bits

    # NumPy's protocol for a dtype-like object (NumPy >= 2.4): np.dtype(sa.float64) and every
    # `dtype=` argument of NumPy's read it first. `.dtype` below is the older spelling, which
    # NumPy 2.3 reads, and pandas and Dask still do.
    __numpy_dtype__ = property(operator.attrgetter("np"), doc="The NumPy dtype.")

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype (NumPy 2.3 reads this attribute where 2.4 reads __numpy_dtype__)."""
        return self.np

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.np.itemsize

    def __repr__(self) -> str:
        return f"stridedarray.{self.name}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _unpickle_dtype, (self.name,)  # stridedarray._pickle.dtype

    def __eq__(self, other: object) -> builtins_bool:
        """Among our dtypes, identity (the standard's rule: a dtype equals only itself). A NumPy
        dtype or scalar type compares as NumPy's dtypes do (`x.dtype == np.float64`, as NumPy
        code and Dask write it); strings never compare equal (`float64 == "float64"` is
        False, unlike NumPy)."""
        if isinstance(other, DType):
            return self is other
        if isinstance(other, np.dtype) or (
            isinstance(other, type) and issubclass(other, np.generic)
        ):
            return self.np == other
        return NotImplemented

    def __ne__(self, other: object) -> builtins_bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    # The hash of the NumPy dtype it equals (equal objects hash equal: a dict keyed by NumPy
    # dtypes finds ours). Clients hash dtypes on every call (scikit-learn's dtype checks), so
    # the hash runs no Python frame: hash() reads this property, whose getter (attrgetter) and
    # the bound `int.__index__` it returns are both C. An identity hash would be cheaper still
    # but would break the equality with NumPy dtypes above.
    __hash__ = property(operator.attrgetter("_hash"))

    # `isinstance(sa.float64, np.dtype)` is True: isinstance falls back to an object's
    # `__class__` where its type is not a subclass, and ours is NumPy's dtype class of the same
    # dtype (numpy.dtypes.Float64DType). Libraries that accept "a NumPy dtype" by that test
    # (xarray's maybe_promote and isdtype, pandas) then take ours, and read it through the
    # attributes below and `.dtype`. `type(sa.float64)` is still DType, so our own exact-type
    # tests use type() or isinstance(), never `.__class__`. A C getter (attrgetter), no frame.
    __class__ = property(operator.attrgetter("_npclass"))


# NumPy's dtype attributes (`type`, `char`, `str`, `byteorder`, `fields`, `newbyteorder`, ...)
# read through from the NumPy dtype: libraries that hold our dtype where they expect NumPy's
# (Dask reads its chunks' dtype, pandas and xarray inspect it) find what they look for. They
# are properties made from np.dtype's own list, not a `__getattr__`: a class with
# `__getattr__` makes CPython look up every attribute of its instances the slow way
# (`dt.kind`, `dt.np` run on every call of every function).
def _numpy_dtype_attribute(name: str) -> property:
    def get(self: DType) -> object:
        return getattr(self.np, name)

    get.__name__ = name
    get.__doc__ = f"The NumPy dtype's `{name}`."
    return property(get)


for _name in dir(np.dtype):
    if not _name.startswith("_") and not hasattr(DType, _name):
        setattr(DType, _name, _numpy_dtype_attribute(_name))
del _name


# Functions of a floating-point category given bool or integer input: the standard asks for
# floating input; NumPy, PyTorch and JAX all compute in floating point instead (SciPy's
# softmax of integers and its statistics of integer samples rely on it). They differ in the
# precision (NumPy float16/32/64 by width, float64 for mean, std and var; PyTorch and JAX
# float32); we take float64, the default floating dtype, for every width and every such
# function, element-wise (exp, sqrt, reciprocal, atan2, ...) and statistical (mean, std, var).
INTEGERS_AS_FLOAT64 = frozenset({"floating-point", "real floating"})


# The order matches the C enum sa_dtype in csrc/core/api/array.h.
_TABLE = [
    ("bool", "b", 8),
    ("int8", "i", 8),
    ("int16", "i", 16),
    ("int32", "i", 32),
    ("int64", "i", 64),
    ("uint8", "u", 8),
    ("uint16", "u", 16),
    ("uint32", "u", 32),
    ("uint64", "u", 64),
    ("float32", "f", 32),
    ("float64", "f", 64),
    ("complex64", "c", 64),
    ("complex128", "c", 128),
]
DTYPES: tuple[DType, ...] = tuple(DType(n, i, k, b) for i, (n, k, b) in enumerate(_TABLE))
_BY_NAME = {d.name: d for d in DTYPES}
_BY_NP = {d.np: d for d in DTYPES}
# The standard's default dtype of each Python scalar type: the one table of it. A Python
# scalar alone takes it (`asarray(1.5)`, `full(2, 7)`), and so does its kind where it wins
# beside an array (`scalar_dtype`); Python's own types as dtype arguments name it
# (`zeros(3, dtype=bool)`, as SciPy writes it: NumPy, PyTorch and JAX all take them so);
# `default_dtypes()` reports it. (C's creation fast paths, csrc/arraytype/creation.c, take
# only calls whose result has these dtypes.)
DEFAULT_DTYPE: dict[type, DType] = {
    builtins.bool: _BY_NAME["bool"],
    int: _BY_NAME["int64"],
    float: _BY_NAME["float64"],
    complex: _BY_NAME["complex128"],
}
ACCEPTED = (
    "a stridedarray dtype (stridedarray.float64), a NumPy dtype or scalar type of one "
    "(numpy.dtype('float64'), numpy.float64), a name NumPy gives one ('float64', 'f8'), "
    "or one of Python's bool, int, float, complex"
)


def dtype_named(dtype: object) -> DType | None:
    """Which of our dtypes `dtype` names (docs/dtypes.md, "What names a dtype"), or None."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, type):
        d = DEFAULT_DTYPE.get(dtype)
        if d is not None:
            return d
        if not issubclass(dtype, np.generic):
            return None
    elif not isinstance(dtype, str | np.dtype):
        # Nothing else: np.dtype() would also read a `.dtype` attribute, a list of fields, ...
        return None
    try:
        npdt = np.dtype(dtype)
    except (TypeError, ValueError):
        return None
    # A native dtype of ours only: a non-native byte order (">f8") or a structured, object,
    # float16 or datetime dtype is not one of ours; _BY_NP keys are the native dtypes.
    return _BY_NP.get(npdt) if npdt.fields is None else None


def as_dtype(dtype: object, what: str = "dtype") -> DType:
    """A dtype argument as one of ours, by the one rule every function taking a dtype uses
    (docs/dtypes.md, "What names a dtype"); TypeError naming `what` for anything else."""
    if isinstance(dtype, DType):  # not dtype.__class__: see DType.__class__
        return dtype
    d = dtype_named(dtype)
    if d is None:
        raise TypeError(f"{what} must name a supported dtype: {ACCEPTED}; got {refused(dtype)}")
    return d


def refused(dtype: object) -> str:
    """What the refusal message says the argument was, with why where NumPy knows the dtype."""
    npdt = None
    if isinstance(dtype, np.dtype):
        npdt = dtype
    elif isinstance(dtype, str) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        try:
            npdt = np.dtype(dtype)
        except (TypeError, ValueError):
            pass
    if npdt is None:
        return repr(dtype)
    if not npdt.isnative:
        why = "a non-native byte order; arrays are stored in the native one"
    else:
        why = f"not one of the supported dtypes ({', '.join(d.name for d in DTYPES)})"
    return f"{dtype!r} (NumPy's {npdt}: {why})"


bool = _BY_NAME["bool"]  # noqa: A001 - the standard names it so
int8, int16, int32, int64 = (_BY_NAME[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_BY_NAME[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = _BY_NAME["float32"], _BY_NAME["float64"]
complex64, complex128 = _BY_NAME["complex64"], _BY_NAME["complex128"]

# Dtype categories of the standard, as used by isdtype() and function signatures.
KIND_OF = {
    "bool": frozenset({bool}),
    "signed integer": frozenset({int8, int16, int32, int64}),
    "unsigned integer": frozenset({uint8, uint16, uint32, uint64}),
    "real floating": frozenset({float32, float64}),
    "complex floating": frozenset({complex64, complex128}),
}
KIND_OF["integral"] = KIND_OF["signed integer"] | KIND_OF["unsigned integer"]
KIND_OF["numeric"] = KIND_OF["integral"] | KIND_OF["real floating"] | KIND_OF["complex floating"]


def _unpickle_dtype(name: str) -> DType:
    """The dtype a pickle names, itself (stridedarray._pickle.dtype)."""
    import pickle

    dt = _BY_NAME.get(name) if name.__class__ is str else None
    if dt is None:
        raise pickle.UnpicklingError(f"not a stridedarray dtype name: {name!r:.40}")
    return dt


def by_name(name: str) -> DType:
    """The dtype called `name` ("float64", ...)."""
    return _BY_NAME[name]


def from_numpy_dtype(npdt: np.dtype) -> DType:
    """The stridedarray dtype for a NumPy dtype; TypeError if the standard has no such dtype."""
    d = _BY_NP.get(npdt)
    if d is None:
        if npdt.byteorder not in "=|" and npdt.newbyteorder("=") in _BY_NP:
            return _BY_NP[npdt.newbyteorder("=")]
        raise TypeError(
            f"unsupported dtype {npdt}: stridedarray supports only the Array API dtypes "
            f"({', '.join(d.name for d in DTYPES)})"
        )
    return d


def _float_of_bits(bits: int) -> DType:
    return float32 if bits <= 32 else float64


def _promote_pair(a: DType, b: DType) -> DType | None:
    """The standard's promotion of two dtypes, or None where it leaves the result undefined."""
    if a is b:
        return a
    ka, kb = a.kind, b.kind
    if ka == "b" or kb == "b":
        return None  # bool promotes only with bool
    if ka in "iu" and kb in "iu":
        if ka == kb:
            return a if a.bits >= b.bits else b
        s, u = (a, b) if ka == "i" else (b, a)
        bits = max(s.bits, 2 * u.bits)
        return {8: int8, 16: int16, 32: int32, 64: int64}.get(bits)  # u64 with signed: None
    if ka in "fc" and kb in "fc":
        # precision of the real component: float32/complex64 -> 32, float64/complex128 -> 64
        pa = a.bits if ka == "f" else a.bits // 2
        pb = b.bits if kb == "f" else b.bits // 2
        p = max(pa, pb)
        if "c" in (ka, kb):
            return complex64 if p == 32 else complex128
        return _float_of_bits(p)
    return None  # integer with floating: undefined by the standard


def _promote_beyond_standard(a: DType, b: DType) -> DType:
    """NumPy's promotion of a pair the standard leaves undefined. For bool with a number, and
    for an integer with float64/complex128 or with a float32/complex64 wider than the integer's
    values need, NumPy, torch and JAX agree. They differ on int32/int64/uint32/uint64 with
    float32 (torch and JAX: float32; NumPy: float64) and we follow NumPy, whose functions our
    arrays also meet through __array_ufunc__, so `x + y` and `np.add(x, y)` agree."""
    return _BY_NP[np.promote_types(a.np, b.np)]


_STANDARD_PROMOTION = {(a, b): _promote_pair(a, b) for a in DTYPES for b in DTYPES}
_PROMOTION = {
    pair: r if r is not None else _promote_beyond_standard(*pair)
    for pair, r in _STANDARD_PROMOTION.items()
}


def promote(a: DType, b: DType) -> DType:
    """The result dtype of an operation on arrays of dtypes a and b: the standard's table,
    and NumPy's answer for the mixed-kind pairs the standard leaves undefined."""
    return _PROMOTION[a, b]


def promote_standard(a: DType, b: DType) -> DType | None:
    """The standard's own promotion of a and b, or None where the standard leaves it undefined
    (can_cast answers by this table only)."""
    return _STANDARD_PROMOTION[a, b]


# (min, max) of each integer dtype, indexed by its code (a DType hashes in Python: slower).
_INT_RANGE: list[tuple[int, int] | None] = [
    (int(np.iinfo(d.np).min), int(np.iinfo(d.np).max)) if d.kind in "iu" else None for d in DTYPES
]


def check_int_range(value: int, dt: DType, name: str = "value") -> None:
    """OverflowError when a Python int does not fit the integer dtype `dt`."""
    bounds = _INT_RANGE[dt.code]
    if bounds is not None and bounds[0] <= value <= bounds[1]:
        return
    info = np.iinfo(dt.np)
    if not info.min <= value <= info.max:
        raise OverflowError(
            f"{name}: Python int {value} is out of range for {dt.name} [{info.min}, {info.max}]"
        )


def float_as_int(value: float, dt: DType, name: str, into: str) -> int:
    """A Python float stored into the integer dtype `dt` (assignment and fill): truncated
    toward zero, as NumPy's assignment does; what has no integer value raises, as in NumPy:
    ValueError for NaN, OverflowError for an infinity or a value beyond `dt`'s range. The
    errors name the argument and the act: "`name`: NaN cannot `into` an array of dtype ..."."""
    if value != value:
        raise ValueError(f"{name}: NaN cannot {into} an array of dtype {dt.name}")
    if value == _INF or value == -_INF:
        raise OverflowError(f"{name}: {value} cannot {into} an array of dtype {dt.name}")
    iv = int(value)
    check_int_range(iv, dt, name)
    return iv


_INF = float("inf")


def python_type(value: object) -> type | None:
    """Which of Python's bool, int, float and complex `value` is (a subclass, such as
    np.float64 or an IntEnum, counts as the type it derives from), or None."""
    t = type(value)
    if t in DEFAULT_DTYPE:  # bool is never subclassed: a bool is caught here
        return t
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, complex):
        return complex
    return None


def default_dtype(value: object) -> DType | None:
    """The default dtype of a Python scalar's type (`DEFAULT_DTYPE`), or None for another
    object."""
    t = python_type(value)
    return None if t is None else DEFAULT_DTYPE[t]


# The array kinds beside which a Python scalar takes the array's dtype: the standard (2024.12)
# defines bool with bool arrays, int with numeric arrays, float with floating arrays and
# complex with complex arrays. A complex with a real floating array gives the complex dtype of
# the array's precision. The rest the standard leaves unspecified; NumPy, torch and JAX agree
# on the kind of the result (the scalar's kind wins), and we take the default dtype of that
# kind, as NumPy does: int with a bool array gives int64, float with a bool or integer array
# float64, complex with a bool or integer array complex128.
_KEEPS_ARRAY_DTYPE = {builtins_bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def _scalar_result(t: type, dt: DType) -> DType:
    if dt.kind in _KEEPS_ARRAY_DTYPE[t]:
        return dt
    if t is complex and dt.kind == "f":
        return complex64 if dt is float32 else complex128
    return DEFAULT_DTYPE[t]


# Python scalar type -> the dtype of its mix with an array of each dtype, by dtype code.
_SCALAR_RESULT = {t: tuple(_scalar_result(t, dt) for dt in DTYPES) for t in DEFAULT_DTYPE}


def scalar_dtype(dt: DType, value: object, name: str = "scalar") -> DType:
    """The dtype a Python scalar takes when combined with an array of dtype `dt`: the array's
    dtype where the standard says so (a Python int must then fit an integer dtype), else the
    default dtype of the scalar's kind (`_SCALAR_RESULT`)."""
    t = type(value)
    row = _SCALAR_RESULT.get(t)
    if row is None:  # a subclass (np.float64, an IntEnum), or not a Python scalar
        base = python_type(value)
        if base is None:
            raise TypeError(
                f"{name} must be an Array, a Python bool, int, float or complex, or a "
                f"NumPy scalar, got {type(value).__name__}; {convert_hint(name)}"
            )
        t, row = base, _SCALAR_RESULT[base]
    r = row[dt.code]
    if t is int and r.kind in "iu":
        check_int_range(value, r, name)  # type: ignore[arg-type]
    return r


def numpy_value(x: object) -> builtins_bool:
    """Whether `x` is a NumPy scalar or a 0-d ndarray of a kind the standard has, which an
    operand slot takes as a 0-d array of its own dtype (NumPy's rule: its scalars are typed,
    not weak as Python's are). np.float64 and np.complex128 are not: they are Python floats
    and complexes, and take the Python scalar's rule."""
    if isinstance(x, np.ndarray):
        return x.ndim == 0 and x.dtype.kind in "biufc"
    return (
        isinstance(x, np.generic)
        and not isinstance(x, float | complex)
        and (x.dtype.kind in "biufc")
    )


def python_scalar(value: object) -> object:
    """A NumPy scalar (np.int64(3), np.float32(2.5), np.bool_(True)) as the Python scalar of
    the same value, so that it follows the Python scalar's rules wherever one is taken (a
    value that does not fit the target dtype raises); anything else unchanged. np.float64 and
    np.complex128 are Python floats and complexes already."""
    if (
        isinstance(value, np.generic)
        and value.dtype.kind in "biufc"
        and not isinstance(value, float | complex)
    ):
        return value.item()
    return value


def scalar_np(value: object, dt: DType) -> np.ndarray:
    """A Python scalar as a 0-d NumPy array of dtype `dt`. A float beyond float32's range
    becomes +-inf, the IEEE answer, without NumPy's overflow warning."""
    if dt is float32 or dt is complex64:
        with np.errstate(over="ignore"):
            return np.asarray(value, dtype=dt.np)
    return np.asarray(value, dtype=dt.np)


def scalar_operand(value: object, dt: DType) -> object:
    """A Python scalar as a NumPy operand of dtype `dt` (an array's): the scalar itself where
    NumPy's own weak-scalar conversion gives exactly `scalar_np`'s value (a bool into bool,
    an int into an integer dtype after the caller's range check, a float into float64 or
    complex128), which saves making a 0-d array per call; else `scalar_np(value, dt)`
    (float32/complex64 take inf beyond their range quietly; int subclasses, ints into floats)."""
    t = type(value)
    if t is float:
        if dt is float64 or dt is complex128:
            return value
    elif t is int:
        if dt.kind in "iu":
            return value
    elif t is builtins_bool and dt.kind == "b":
        return value
    return scalar_np(value, dt)
