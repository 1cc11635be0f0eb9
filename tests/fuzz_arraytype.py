"""Coverage-guided fuzz targets for the native array type (csrc/arraytype/), run with atheris.

    python tests/fuzz_arraytype.py TARGET [libFuzzer options] [corpus dirs]

is what `tools/checks/fuzz` runs, under the sanitizer build (docs/dev/testing.md, "How the C type
is checked: the fuzzer"); a saved input is replayed by passing its file instead of a corpus
directory. TARGET is one of

* `index`    `__getitem__` / `__setitem__` with keys of up to 128 entries: ints from the int64
             edges and beyond, slices with extreme bounds and steps, None, ..., bools, NumPy
             integers, 0-d arrays and small integer arrays, on arrays of every dtype and view
             kind; the result (and the array after a write) must equal NumPy's on the same key.
* `asarray`  `asarray` / `from_dlpack` of hostile producers: `__array_interface__` dicts with
             wrong shapes, strides, typestrs, offsets and buffers, memoryviews of bytes,
             bytearray and array.array cast to odd formats and sliced, DLPack producers whose
             `__dlpack__` / `__dlpack_device__` lie or fail; a result must equal NumPy's reading
             of the same producer.
* `ops`      operators (binary, reflected, in-place, unary, comparisons, conversions) between
             arrays of every dtype and view kind and Python scalars, NumPy scalars, ndarrays and
             lists; same-dtype arithmetic must equal NumPy's.
* `reshape`  `reshape` with -1, zeros, huge and negative extents and every `copy`; a result must
             equal NumPy's reshape.
* `lists`    `asarray` of Python scalars and nested lists and tuples of them (the array type's
             own parser, csrc/arraytype/creation.c): bools, ints at and beyond the int64 edges,
             floats with NaN, infinities and -0.0, complex, subclasses of int and float, NumPy
             scalars, ragged and self-containing lists, elements whose conversion mutates the
             list, with and without `dtype`/`copy`; a result of plain Python scalars must equal
             NumPy's conversion of the same object.
* `pickle`   `pickle.loads` of mutated pickles of arrays (every protocol), through an unpickler
             that only resolves the globals the unmutated pickle named.
* `matmul`   integer `@` (every width, signed and unsigned) of values at the edges of their
             range (the minimum, the maximum and their neighbours, -1, half the range, the 16-bit
             pair 34250 and 64640 whose product passes INT_MAX), as GEMM, GEMV, GEVM and DOT
             with batches, transposed, reversed and step-two operands, on the route the policy
             picks, the generic kernel or the reference one; the result must equal NumPy's, which
             wraps modulo 2**bits. The C-level fuzzer (tools/checks/fuzz-c) drives the same kernels
             without Python.

The fuzzer's bytes are decoded with `atheris.FuzzedDataProvider`. An exception of a documented
kind (`ALLOWED`) is a refusal and fine; a crash, a sanitizer report, any other exception or a
value that differs from NumPy's is a finding: atheris stops and saves the input.

Keys make up to `STRIDEDARRAY_FUZZ_MAX_AXES` (default 128) result axes, past the 64-axis limit, so
that the refusal of too many axes is fuzzed too.
"""

from __future__ import annotations

import array
import ctypes
import operator
import os
import pickle
import pickletools
import struct
import sys
import warnings
from typing import Any

import numpy as np

ALLOWED: tuple[type[BaseException], ...] = (
    TypeError,
    ValueError,
    IndexError,
    OverflowError,
    MemoryError,
    BufferError,
    ZeroDivisionError,
)
# pickle.loads of mutated bytes fails inside the pickle machinery in its own ways too.
PICKLE_ALLOWED = ALLOWED + (
    pickle.UnpicklingError,
    EOFError,
    KeyError,
    AttributeError,
    struct.error,
    UnicodeDecodeError,
    LookupError,  # a mutated codec name in a protocol 0-2 pickle of bytes
    RecursionError,
)
MAX_AXES = int(os.environ.get("STRIDEDARRAY_FUZZ_MAX_AXES", "128"))

EDGE_INTS = [
    0, 1, -1, 2, -2, 3, 5, -5, 7, 2**31 - 1, 2**31, 2**32 + 1, 2**62, 2**63 - 2, 2**63 - 1,
    2**63, -(2**63) + 1, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 2**64 + 1, 2**70, -(2**70),
    10**30,
]  # fmt: skip
SMALL_INTS = list(range(-6, 7))
FLOATS = [0.0, -0.0, 1.5, -2.5, float("inf"), float("-inf"), float("nan"), 1e300, 5e-324, 2.0**63]

sa: Any = None  # stridedarray, imported under the instrumentation by main()
ARRAY: Any = None
DTYPES: list[Any] = []


def _setup_namespace() -> None:
    global sa, ARRAY, DTYPES
    import stridedarray

    sa = stridedarray
    ARRAY = type(sa.asarray(0))
    DTYPES = list(sa.__array_namespace_info__().dtypes().values())


# ------------------------------------------------------------------ shared decoders


def pick_int(fdp: Any) -> int:
    kind = fdp.ConsumeIntInRange(0, 3)
    if kind == 0:
        return fdp.PickValueInList(EDGE_INTS)
    if kind == 1:
        return fdp.ConsumeInt(9)  # up to +-2**71
    return fdp.PickValueInList(SMALL_INTS)


def make_values(fdp: Any, npdt: np.dtype, size: int) -> np.ndarray:
    """`size` values of `npdt`: an arange (distinct positions, for indexing) or raw fuzzed
    bytes (NaNs, extremes)."""
    if fdp.ConsumeBool() or size == 0:
        vals = np.arange(size) % 100
        return vals.astype(npdt)
    raw = fdp.ConsumeBytes(size * npdt.itemsize)
    raw = raw + bytes(size * npdt.itemsize - len(raw))
    if npdt.kind == "b":
        return np.frombuffer(raw, np.uint8).astype(bool)
    return np.frombuffer(raw, npdt).copy()


def make_pair(fdp: Any, max_ndim: int = 4, dtype: Any = None) -> tuple[Any, np.ndarray, bool]:
    """An Array and the equal ndarray, made by the same chain of views from equal bases;
    the flag says whether writing through the view is well defined (no broadcast view)."""
    dt = dtype if dtype is not None else fdp.PickValueInList(DTYPES)
    npdt = np.dtype(dt.name)
    ndim = fdp.ConsumeIntInRange(0, max_ndim)
    shape = tuple(fdp.ConsumeIntInRange(0, 5) for _ in range(ndim))
    base = make_values(fdp, npdt, int(np.prod(shape, dtype=np.int64))).reshape(shape)
    x, ref = sa.asarray(base.copy()), base.copy()
    writable = True
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        op = fdp.ConsumeIntInRange(0, 5)
        if op == 0 and ref.ndim:  # strided slice, maybe reversed
            axis = fdp.ConsumeIntInRange(0, ref.ndim - 1)
            step = fdp.PickValueInList([-3, -2, -1, 2, 3])
            key = (slice(None),) * axis + (slice(fdp.ConsumeIntInRange(-3, 3), None, step),)
            x, ref = x[key], ref[key]
        elif op == 1:  # transpose
            x, ref = sa.permute_dims(x, tuple(range(ref.ndim))[::-1]), ref.T
        elif op == 2 and ref.ndim < 6:  # broadcast with zero strides
            shp = (fdp.ConsumeIntInRange(0, 3),) + ref.shape
            x, ref = sa.broadcast_to(x, shp), np.broadcast_to(ref, shp)
            writable = False
        elif op == 3 and ref.ndim < 6:  # new axis
            axis = fdp.ConsumeIntInRange(0, ref.ndim)
            x, ref = sa.expand_dims(x, axis=axis), np.expand_dims(ref, axis)
        elif op == 4 and ref.ndim and ref.shape[0]:  # integer index
            i = fdp.ConsumeIntInRange(-ref.shape[0], ref.shape[0] - 1)
            x, ref = x[i], ref[i]
        elif op == 5 and ref.ndim:  # contiguous sub-slice
            x, ref = x[1:], ref[1:]
    return x, ref, writable


def to_numpy(x: Any) -> np.ndarray:
    return np.asarray(x)


def check_equal(got: Any, want: Any, what: str) -> None:
    g = np.asarray(got)
    w = np.asarray(want)
    if g.shape != w.shape:
        raise AssertionError(f"{what}: shape {g.shape} != NumPy's {w.shape}")
    if g.dtype != w.dtype:
        raise AssertionError(f"{what}: dtype {g.dtype} != NumPy's {w.dtype}")
    np.testing.assert_array_equal(g, w, err_msg=what, strict=True)


# ------------------------------------------------------------------ index


def make_key(fdp: Any, ndim: int) -> tuple[list[Any], list[Any]]:
    """A key for an array of `ndim` axes as (the stridedarray key, the same key for NumPy)."""
    n = (
        fdp.ConsumeIntInRange(0, 128)
        if fdp.ConsumeIntInRange(0, 7) == 0
        else fdp.ConsumeIntInRange(0, 6)
    )
    key: list[Any] = []
    ref: list[Any] = []
    axes = ndim  # result axes so far, an upper bound
    for _ in range(n):
        kind = fdp.ConsumeIntInRange(0, 11)
        if kind <= 2:
            v = pick_int(fdp)
            key.append(v), ref.append(v)
        elif kind <= 5:
            parts = []
            for _ in range(3):
                c = fdp.ConsumeIntInRange(0, 2)
                parts.append(None if c == 0 else pick_int(fdp))
            s = slice(*parts)
            key.append(s), ref.append(s)
        elif kind == 6:
            if axes >= MAX_AXES:
                continue  # see STRIDEDARRAY_FUZZ_MAX_AXES in the module docstring
            axes += 1
            key.append(None), ref.append(None)
        elif kind == 7:
            key.append(...), ref.append(...)
        elif kind == 8:
            if axes >= MAX_AXES:
                continue
            axes += 1
            b = fdp.ConsumeBool()
            key.append(b), ref.append(b)
        elif kind == 9:  # 0-d array: an integer or a boolean
            if fdp.ConsumeBool():
                v = fdp.ConsumeIntInRange(-8, 8)
                dt = fdp.PickValueInList([d for d in DTYPES if d.kind in "iu"])
                if dt.kind == "u":
                    v = abs(v)
                npv = np.asarray(v, dtype=dt.name)
            else:
                if axes >= MAX_AXES:
                    continue
                axes += 1
                npv = np.asarray(fdp.ConsumeBool())
            key.append(sa.asarray(npv)), ref.append(npv)
        elif kind == 10:  # NumPy integer scalar
            v = fdp.ConsumeIntInRange(-(2**63), 2**63 - 1)
            t = fdp.PickValueInList([np.int64, np.int32, np.int8, np.uint8])
            npv = t(v % 100 - 50 if v % 3 and t is not np.uint8 else v % 7)
            key.append(npv), ref.append(npv)
        else:  # small integer array
            vals = np.asarray(
                [fdp.ConsumeIntInRange(-6, 6) for _ in range(fdp.ConsumeIntInRange(0, 4))], np.int64
            )
            key.append(sa.asarray(vals)), ref.append(vals)
    return key, ref


def _as_key(parts: list[Any], form: int) -> Any:
    if form == 0 or len(parts) != 1:
        return tuple(parts)
    return parts[0]  # a bare entry, not a 1-tuple


def target_index(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    x, ref, writable = make_pair(fdp)
    key, nkey = make_key(fdp, ref.ndim)
    form = fdp.ConsumeIntInRange(0, 1)
    k, nk = _as_key(key, form), _as_key(nkey, form)
    if fdp.ConsumeBool():
        try:
            got = x[k]
        except ALLOWED:
            return
        try:
            want = ref[nk]
        except Exception:
            return  # stricter-than-NumPy and NumPy-only refusals are not compared
        check_equal(got, want, f"x[{k!r}]")
        return
    if not writable:
        try:
            x[k] = 0
        except ALLOWED:
            pass
        return
    # a write: the value is a scalar of the array's kind or an array of its dtype
    npdt = ref.dtype
    if fdp.ConsumeBool():
        if npdt.kind == "b":
            value: Any = fdp.ConsumeBool()
        elif npdt.kind in "iu":
            info = np.iinfo(npdt)
            value = fdp.ConsumeIntInRange(int(info.min), int(info.max))
        elif npdt.kind == "f":
            value = fdp.PickValueInList(FLOATS) if fdp.ConsumeBool() else fdp.ConsumeRegularFloat()
        else:
            value = complex(fdp.PickValueInList(FLOATS), fdp.ConsumeRegularFloat())
        nvalue = value
    else:
        shp = tuple(fdp.ConsumeIntInRange(0, 3) for _ in range(fdp.ConsumeIntInRange(0, 2)))
        nvalue = make_values(fdp, npdt, int(np.prod(shp, dtype=np.int64))).reshape(shp)
        value = sa.asarray(nvalue.copy())
    base_x, base_ref = x, ref.copy()
    try:
        x[k] = value
    except ALLOWED:
        return
    try:
        base_ref[nk] = nvalue
    except Exception:
        return
    check_equal(base_x, base_ref, f"x[{k!r}] = {value!r}")


# ------------------------------------------------------------------ asarray


TYPESTRS = [
    # No "|O": object pointers made from fuzzed bytes crash any reader, NumPy included.
    "<i4", "<f8", "|b1", "|u1", "<c16", ">i4", ">f8", "<f2", "<i8", "|V8", "|V0", "<U2", "|S3",
    "<m8[s]", "<M8[D]", "<f3", "xyz", "", "<i0", "<i4\x00", "|b1" * 40,
]  # fmt: skip
FORMATS = ["B", "b", "h", "H", "i", "I", "l", "L", "q", "Q", "f", "d", "?", "e", "c", "n", "N", "P"]


VERBOSE = os.environ.get("STRIDEDARRAY_FUZZ_VERBOSE", "") == "1"


def show(text: str) -> None:
    """With STRIDEDARRAY_FUZZ_VERBOSE=1 (a replay), print the call an input decodes to."""
    if VERBOSE:
        print("call:", text, file=sys.stderr, flush=True)


def describe(obj: Any) -> str:
    try:
        return _describe(obj)
    except Exception as e:
        return f"<{type(obj).__name__}, not printable: {e}>"


def _describe(obj: Any) -> str:
    if isinstance(obj, _Interface):
        return f"<__array_interface__ {obj._iface!r}>"
    if isinstance(obj, memoryview):
        fmt, shape, strides = obj.format, obj.shape, obj.strides
        return f"<memoryview format={fmt!r} shape={shape} strides={strides} of {obj.obj!r}>"
    return repr(obj)


class _ProducerError(Exception):
    """Raised by a hostile producer's own methods; passing it on is correct."""


class _Interface:
    def __init__(self, iface: Any, later: Any = None) -> None:
        self._iface, self._later, self._reads = iface, later, 0
        # A producer that answers otherwise on a second reading: NumPy's own reading of it
        # is no oracle (asarray must read it once; what it keeps must still be readable).
        self.fickle = later is not None

    @property
    def __array_interface__(self) -> Any:
        self._reads += 1
        if isinstance(self._iface, BaseException):
            raise self._iface
        return self._iface if self._later is None or self._reads == 1 else self._later


class _Fickle:
    """An integer entry that answers `first` on its first reading and `later` after."""

    def __init__(self, first: int, later: Any) -> None:
        self.first, self.later, self.reads = first, later, 0

    def __index__(self) -> int:
        self.reads += 1
        if self.reads == 1:
            return self.first
        if isinstance(self.later, BaseException):
            raise self.later
        return self.later

    def __repr__(self) -> str:
        return f"_Fickle({self.first}, {self.later!r})"


class _DLPackProducer:
    def __init__(self, capsule_fn: Any, device: Any) -> None:
        self._capsule_fn, self._device = capsule_fn, device

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._capsule_fn(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        if isinstance(self._device, BaseException):
            raise self._device
        return self._device


def _shape_and_strides(fdp: Any) -> tuple[Any, Any]:
    nd = fdp.ConsumeIntInRange(0, 4)
    shape: Any = tuple(
        fdp.ConsumeIntInRange(0, 4) if fdp.ConsumeIntInRange(0, 7) else pick_int(fdp)
        for _ in range(nd)
    )
    strides: Any = None
    if fdp.ConsumeBool():
        strides = tuple(
            fdp.ConsumeIntInRange(-16, 16) if fdp.ConsumeIntInRange(0, 5) else pick_int(fdp)
            for _ in range(nd + (fdp.ConsumeIntInRange(0, 7) == 0))
        )
    if fdp.ConsumeIntInRange(0, 15) == 0:
        shape = fdp.PickValueInList([None, [2, 3], "3", (2.0,), (np.int64(2),), 5])
    return shape, strides


def _fits(shape: Any, strides: Any, typestr: str, offset: int, nbytes: int) -> bool:
    """Whether an honest consumer reading this view stays inside `nbytes` (a raw pointer
    cannot be checked by anyone, so the harness only hands out raw pointers that fit)."""
    try:
        item = np.dtype(typestr).itemsize
        shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in shape):
            return False
        if strides is None:
            strides = tuple(
                int(np.prod(shape[i + 1 :], dtype=object)) * item for i in range(len(shape))
            )
        if len(strides) != len(shape):
            return False
    except Exception:
        return False
    if any(n == 0 for n in shape):
        return 0 <= offset <= nbytes
    lo = offset + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides, strict=True))
    hi = offset + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides, strict=True)) + item
    return 0 <= lo and hi <= nbytes


def make_producer(fdp: Any, keep: list[Any]) -> Any:
    kind = fdp.ConsumeIntInRange(0, 5)
    nbytes = fdp.ConsumeIntInRange(0, 64)
    backing = bytearray(fdp.ConsumeBytes(nbytes).ljust(nbytes, b"\x01"))
    keep.append(backing)
    if kind <= 1:  # __array_interface__
        shape, strides = _shape_and_strides(fdp)
        typestr = fdp.PickValueInList(TYPESTRS)
        offset = fdp.ConsumeIntInRange(0, 16) if fdp.ConsumeBool() else 0
        iface: dict[str, Any] = {
            "shape": shape,
            "typestr": typestr,
            "version": fdp.PickValueInList([3, 3, 2, 0, "3"]),
        }
        if strides is not None:
            iface["strides"] = strides
        form = fdp.ConsumeIntInRange(0, 4)
        buf = np.frombuffer(backing, np.uint8) if nbytes else np.zeros(1, np.uint8)
        keep.append(buf)
        if form == 0 and _fits(shape, strides, typestr, offset, nbytes):
            iface["data"] = (buf.ctypes.data + offset, fdp.ConsumeBool())
        elif form == 1:
            iface["data"] = bytes(backing) if fdp.ConsumeBool() else backing
            if offset:
                iface["offset"] = offset
        elif form == 2:
            iface["data"] = fdp.PickValueInList(
                [None, (None, True), (0, False), "x", (1, 2, 3), (2**70, True)]
            )
            if iface["data"] not in (None,) and _fits(shape, strides, typestr, 0, 0) is False:
                iface["shape"] = (0,)
        elif form == 3:
            iface["data"] = memoryview(backing)[:: fdp.PickValueInList([1, 2, -1])]
        else:
            iface.pop("shape")
        # (a descr may change the item size, which _fits did not see: not with a raw pointer)
        if fdp.ConsumeIntInRange(0, 7) == 0 and not isinstance(iface.get("data"), tuple):
            iface["descr"] = fdp.PickValueInList(
                [[("", "<i4")], [("a", "<f8"), ("b", "|u1")], "junk", [("x",)]]
            )
        if fdp.ConsumeIntInRange(0, 15) == 0:
            iface["mask"] = None
        payload: Any = iface
        if fdp.ConsumeIntInRange(0, 15) == 0:
            payload = fdp.PickValueInList([None, 3, [], _ProducerError("lying producer")])
        # Reliability 5, finding 1: a producer whose second reading differs (entries that grow
        # or raise, or a bigger dict from the property); only with a buffer, whose extent is
        # checked (a raw pointer's is the producer's word).
        fickle = fdp.ConsumeIntInRange(0, 7)
        if fickle <= 1 and isinstance(payload, dict) and not isinstance(iface.get("data"), tuple):
            grow: Any = fdp.PickValueInList([4096, 2**20, -4096, _ProducerError("second")])
            if fickle == 0:
                for key in ("shape", "strides"):
                    if isinstance(iface.get(key), tuple):
                        iface[key] = tuple(
                            _Fickle(v, grow if isinstance(grow, BaseException) else v * grow + 1)
                            if type(v) is int
                            else v
                            for v in iface[key]
                        )
                return _Interface(iface, later=iface)
            bigger = dict(iface, shape=(4096,) * max(1, len(iface.get("shape") or ())))
            bigger.pop("strides", None)
            return _Interface(iface, later=bigger)
        return _Interface(payload)
    if kind <= 3:  # a memoryview, cast and sliced
        src: Any = backing if fdp.ConsumeBool() else bytes(backing)
        if fdp.ConsumeIntInRange(0, 3) == 0:
            code = fdp.PickValueInList(["b", "B", "h", "i", "l", "q", "f", "d", "u"])
            size = array.array(code).itemsize
            src = array.array(code, bytes(backing[: len(backing) // size * size]))
        mv = memoryview(src)
        fmt = fdp.PickValueInList(FORMATS)
        try:
            mv = mv.cast("B").cast(fmt)
            if fdp.ConsumeBool() and len(mv):
                n = len(mv)
                rows = fdp.ConsumeIntInRange(1, n)
                if n % rows == 0:
                    mv = mv.cast("B").cast(fmt, (rows, n // rows))
            if fdp.ConsumeBool():
                mv = mv[
                    fdp.ConsumeIntInRange(-4, 4) : fdp.ConsumeIntInRange(
                        -4, 40
                    ) : fdp.PickValueInList([1, 2, 3, -1, -2])
                ]
        except ALLOWED:
            pass
        return mv
    if kind == 4:  # ctypes arrays and structures: PEP 3118 formats with fields, endianness
        ct = fdp.PickValueInList(
            [ctypes.c_int16, ctypes.c_double, ctypes.c_bool, ctypes.c_char, ctypes.c_uint64]
        )
        arr_t = ct * fdp.ConsumeIntInRange(0, 4)
        if fdp.ConsumeBool():
            arr_t = arr_t * fdp.ConsumeIntInRange(0, 3)
        return arr_t()
    # DLPack
    inner, _, _ = make_pair(fdp, max_ndim=3)
    nd = to_numpy(inner)
    keep.append(nd)
    how = fdp.ConsumeIntInRange(0, 6)
    if how == 0:
        return nd
    if how == 1:
        return inner
    used: list[Any] = []

    def capsule(*args: Any, **kwargs: Any) -> Any:
        if how == 2:
            return nd.__dlpack__(*args, **kwargs)
        if how == 3:  # the same capsule every call (a consumed one is renamed)
            if not used:
                used.append(nd.__dlpack__())
            return used[0]
        if how == 4:
            return fdp.PickValueInList([None, 3, b"dltensor", nd])
        if how == 5:
            raise fdp.PickValueInList([_ProducerError("no"), BufferError("no"), TypeError("no")])
        return nd.__dlpack__()  # ignores the requested version and copy

    device = fdp.PickValueInList(
        [
            (1, 0),
            (1, 0),
            (1, 0),
            (2, 0),
            (1,),
            (1, 2**70),
            "cpu",
            None,
            (13, 0),
            _ProducerError("x"),
        ]
    )
    return _DLPackProducer(capsule, device)


def target_asarray(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    keep: list[Any] = []
    obj = make_producer(fdp, keep)
    kwargs: dict[str, Any] = {}
    if fdp.ConsumeIntInRange(0, 3) == 0:
        kwargs["dtype"] = fdp.PickValueInList(DTYPES)
    if fdp.ConsumeBool():
        kwargs["copy"] = fdp.PickValueInList([None, True, False])
    fn = sa.from_dlpack if fdp.ConsumeIntInRange(0, 3) == 0 else sa.asarray
    if fn is sa.from_dlpack:
        kwargs.pop("dtype", None)
    if VERBOSE:  # describing is not free, and repr can fail (array.array("u") of bad code points)
        show(f"{fn.__name__}({describe(obj)}, **{kwargs!r})")
    try:
        got = fn(obj, **kwargs)
    except ALLOWED:
        return
    except AttributeError as e:
        if fn is sa.from_dlpack and "__dlpack__" in str(e):
            return  # the standard's exception for an object that is no DLPack producer
        raise
    except _ProducerError:
        return  # the producer's own exception, passed on
    np.asarray(got).tobytes()  # every element readable
    if kwargs or fn is sa.from_dlpack or getattr(obj, "fickle", False):
        return
    check_like_numpy_asarray(got, obj)


# ------------------------------------------------------------------ lists


class _FuzzInt(int):
    """An int subclass: not the exact type, so the C parser leaves it to NumPy."""


class _FuzzFloat(float):
    pass


class ListMutator:
    """A list element whose conversion to a number clears, grows or rewrites the list holding
    it (`how` 0, 1, 2): a conversion must neither crash nor read freed items (NumPy 2.4, given
    such a list, reads freed items). ListMutatorSequence does the same as a sequence."""

    def __init__(self, victim: list, how: int) -> None:
        self.victim, self.how = victim, how

    def _hit(self) -> None:
        if self.how == 0:
            self.victim.clear()
        elif self.how == 1:
            self.victim.extend([1.0] * 8)
        elif self.victim:
            self.victim[0] = [[]]

    def __float__(self) -> float:
        self._hit()
        return 1.5

    def __index__(self) -> int:
        self._hit()
        return 1

    def __int__(self) -> int:
        self._hit()
        return 1

    def __complex__(self) -> complex:
        self._hit()
        return 1j


class ListMutatorSequence(ListMutator):
    """A ListMutator that is also a sequence of length 1, which changes the list through
    __len__ and __getitem__ too."""

    def __len__(self) -> int:
        self._hit()
        return 1

    def __getitem__(self, i: int) -> float:
        self._hit()
        if i:
            raise IndexError(i)
        return 2.0


_EDGE_INTS = [0, 1, -1, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, 10**400]
_EDGE_FLOATS = [0.0, -0.0, 1.5, float("nan"), float("inf"), -float("inf"), 1e308, 5e-324]


def check_like_numpy_asarray(got: Any, obj: Any) -> None:
    """`got`, our asarray of `obj`, holds what NumPy's asarray of it holds, where NumPy makes
    an array of one of our dtypes of it (copied to native byte order: docs/array.md)."""
    try:
        want = np.asarray(obj)
    except Exception:
        return
    if want.dtype == object or want.dtype.name not in {d.name for d in DTYPES}:
        return
    want = want.astype(want.dtype.newbyteorder("="))
    check_equal(got, want, f"asarray({obj!r})")


def make_leaf(fdp: Any, plain: list[bool], holder: list) -> Any:
    kind = fdp.ConsumeIntInRange(0, 11)
    if kind == 0:
        return fdp.ConsumeBool()
    if kind == 1:
        return fdp.PickValueInList(_EDGE_INTS)
    if kind == 2:
        return fdp.ConsumeIntInRange(-(2**63), 2**63 - 1)
    if kind == 3:
        return fdp.PickValueInList(_EDGE_FLOATS)
    if kind == 4:
        return fdp.ConsumeRegularFloat()
    if kind == 5:
        return complex(fdp.PickValueInList(_EDGE_FLOATS), fdp.ConsumeRegularFloat())
    plain[0] = False
    if kind == 6:
        return _FuzzInt(fdp.PickValueInList(_EDGE_INTS))
    if kind == 7:
        return _FuzzFloat(fdp.PickValueInList(_EDGE_FLOATS))
    if kind == 8:
        return fdp.PickValueInList(NP_SCALARS)(1)
    if kind == 9:
        return ListMutatorSequence(holder, fdp.ConsumeIntInRange(0, 2))
    if kind == 10:
        return fdp.PickValueInList([None, "1", b"1", object()])
    return holder  # the list contains itself


def make_nested(fdp: Any, plain: list[bool], depth: int = 0) -> Any:
    """Nested lists and tuples, rectangular unless the input says otherwise."""
    if depth >= 4 or fdp.ConsumeIntInRange(0, 3) == 0:
        return make_leaf(fdp, plain, [])
    n = fdp.ConsumeIntInRange(0, 5)
    out: list = []
    ragged = fdp.ConsumeIntInRange(0, 15) == 0
    template = None
    for _ in range(n):
        if template is None or ragged:
            item = make_nested(fdp, plain, depth + 1)
            template = item
        else:
            item = _same_shape(fdp, template, plain, out, depth + 1)
        out.append(item)
    return tuple(out) if fdp.ConsumeIntInRange(0, 3) == 0 else out


def _same_shape(fdp: Any, template: Any, plain: list[bool], holder: list, depth: int = 0) -> Any:
    # (depth-capped: a template may be a list that contains itself)
    if isinstance(template, (list, tuple)) and depth < 4:
        items = [_same_shape(fdp, t, plain, holder, depth + 1) for t in template]
        return tuple(items) if isinstance(template, tuple) else items
    return make_leaf(fdp, plain, holder)


def target_lists(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    plain = [True]
    obj = make_nested(fdp, plain)
    kwargs: dict[str, Any] = {}
    if fdp.ConsumeIntInRange(0, 2) == 0:
        kwargs["dtype"] = fdp.PickValueInList(DTYPES)
    if fdp.ConsumeIntInRange(0, 3) == 0:
        kwargs["copy"] = fdp.PickValueInList([None, True, False])
    if VERBOSE:
        show(f"asarray({describe(obj)}, **{kwargs!r})")
    try:
        got = sa.asarray(obj, **kwargs)
    except ALLOWED:
        return
    np.asarray(got).tobytes()  # every element readable
    if not plain[0] or kwargs.get("dtype") is not None:
        return
    check_like_numpy_asarray(got, obj)


# ------------------------------------------------------------------ ops


BINARY = [
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
    operator.pow, operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift,
    operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge, operator.matmul,
    divmod,
]  # fmt: skip
INPLACE = [
    operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
    operator.imod, operator.ipow, operator.iand, operator.ior, operator.ixor, operator.ilshift,
    operator.irshift, operator.imatmul,
]  # fmt: skip
UNARY = [
    operator.neg,
    operator.pos,
    operator.invert,
    abs,
    bool,
    int,
    float,
    complex,
    operator.index,
    len,
    repr,
]
COMPARED = {operator.add, operator.sub, operator.mul, operator.eq, operator.lt, operator.ne}
NP_SCALARS = [
    np.int8,
    np.uint8,
    np.int16,
    np.int64,
    np.uint64,
    np.float32,
    np.float64,
    np.complex64,
    np.bool_,
]


def make_operand(fdp: Any) -> Any:
    kind = fdp.ConsumeIntInRange(0, 6)
    if kind <= 2:
        return make_pair(fdp, max_ndim=3)[0]
    if kind == 3:
        c = fdp.ConsumeIntInRange(0, 3)
        if c == 0:
            return pick_int(fdp)
        if c == 1:
            return fdp.PickValueInList(FLOATS)
        if c == 2:
            return complex(fdp.PickValueInList(FLOATS), fdp.ConsumeRegularFloat())
        return fdp.ConsumeBool()
    if kind == 4:
        t = fdp.PickValueInList(NP_SCALARS)
        try:
            return t(
                fdp.ConsumeIntInRange(-300, 300)
                if t not in (np.uint8, np.uint64)
                else fdp.ConsumeIntInRange(0, 300)
            )
        except ALLOWED:
            return t(0)
    if kind == 5:
        return to_numpy(make_pair(fdp, max_ndim=3)[0]).copy()
    n = fdp.ConsumeIntInRange(0, 4)
    return [fdp.PickValueInList([1, -2, 2.5, True, 2**70, None]) for _ in range(n)]


def target_ops(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    choice = fdp.ConsumeIntInRange(0, 3)
    a = make_pair(fdp, max_ndim=3)[0]
    if choice == 0:
        fn = fdp.PickValueInList(UNARY)
        try:
            fn(a)
        except ALLOWED:
            pass
        return
    if choice == 1:  # same dtype, both arrays: compared with NumPy
        x, xr, _ = make_pair(fdp, max_ndim=2, dtype=a.dtype)
        fn = fdp.PickValueInList(sorted(COMPARED, key=lambda f: f.__name__))
        try:
            got = fn(a, x)
        except ALLOWED:
            return
        with np.errstate(all="ignore"):
            try:
                want = fn(to_numpy(a), xr)
            except Exception:
                return
        check_equal(got, want, f"{fn.__name__}({a!r}, {x!r})")
        return
    b = make_operand(fdp)
    if fdp.ConsumeBool():
        a, b = b, a  # reflected
    fn = fdp.PickValueInList(INPLACE if choice == 2 else BINARY)
    try:
        out = fn(a, b)
    except ALLOWED:
        return
    for o in out if isinstance(out, tuple) else (out,):
        if isinstance(o, ARRAY):
            np.asarray(o).tobytes()  # every element readable


# ------------------------------------------------------------------ reshape


def target_reshape(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    x, ref, _ = make_pair(fdp)
    n = fdp.ConsumeIntInRange(0, 8)
    shape: Any = tuple(
        fdp.ConsumeIntInRange(-1, 6) if fdp.ConsumeIntInRange(0, 3) else pick_int(fdp)
        for _ in range(n)
    )
    if fdp.ConsumeIntInRange(0, 15) == 0:
        shape = fdp.PickValueInList([pick_int(fdp), [2, -1], (np.int64(-1),), (1.0,), None, "3"])
    copy = fdp.PickValueInList([None, True, False])
    try:
        got = sa.reshape(x, shape, copy=copy)
    except ALLOWED:
        return
    try:
        want = np.reshape(ref, shape)
    except Exception:
        return
    check_equal(got, want, f"reshape(x, {shape!r}, copy={copy})")


# ------------------------------------------------------------------ pickle


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, allowed: set[tuple[str, str]]) -> None:
        import io

        super().__init__(io.BytesIO(data))
        self._allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        # A mutated pickle may name any callable; only those of the original pickle resolve.
        if (module, name) not in self._allowed:
            raise pickle.UnpicklingError(f"global {module}.{name} not allowed here")
        return super().find_class(module, name)


def _globals_of(blob: bytes) -> set[tuple[str, str]]:
    out = set()
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(blob):
        if isinstance(arg, str):
            strings.append(arg)
        if op.name == "GLOBAL":
            mod, name = arg.split(" ", 1)
            out.add((mod, name))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            out.add((strings[-2], strings[-1]))
    return out


_MEMO_OPS = {"PUT", "BINPUT", "LONG_BINPUT"}


def _huge_memo(blob: bytes) -> bool:
    """Whether a memo index is large: CPython's unpickler sizes its memo table by the largest
    index it is given (a 4-byte index asks for gigabytes), which is the interpreter's doing."""
    try:
        for op, arg, _ in pickletools.genops(blob):
            if op.name in _MEMO_OPS and int(arg) > 10**5:
                return True
    except Exception:
        pass  # the unpickler stops at the same malformed opcode
    return False


def target_pickle(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    x, _, _ = make_pair(fdp)
    protocol = fdp.ConsumeIntInRange(0, 5)
    buffers: list[Any] = []
    if protocol == 5 and fdp.ConsumeBool():
        blob = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    else:
        blob = pickle.dumps(x, protocol=protocol)
    allowed = _globals_of(blob)
    b = bytearray(blob)
    for _ in range(fdp.ConsumeIntInRange(0, 6)):
        if not b:
            break
        op = fdp.ConsumeIntInRange(0, 3)
        pos = fdp.ConsumeIntInRange(0, len(b) - 1)
        if op == 0:
            b[pos] = fdp.ConsumeIntInRange(0, 255)
        elif op == 1:
            b[pos:pos] = fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 9))
        elif op == 2:
            del b[pos : pos + fdp.ConsumeIntInRange(1, 9)]
        else:
            b[pos : pos + 8] = struct.pack("<q", pick_int(fdp) % 2**64 - 2**63)
    bufs: list[Any] = [pickle.PickleBuffer(memoryview(bytes(bytes(buf.raw())))) for buf in buffers]
    if buffers and fdp.ConsumeBool():
        bufs = [memoryview(fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64)))] + bufs[1:]
    if _huge_memo(bytes(b)):
        return
    try:
        up = _Unpickler(bytes(b), allowed)
        if bufs:
            up = pickle.Unpickler.__new__(_Unpickler)
            import io

            pickle.Unpickler.__init__(up, io.BytesIO(bytes(b)), buffers=bufs)
            up._allowed = allowed
        out = up.load()
    except PICKLE_ALLOWED:
        return
    if isinstance(out, ARRAY):
        np.asarray(out).tobytes()  # every element readable


# ------------------------------------------------------------------ matmul

INT_MATMUL_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _edge_values(npdt: np.dtype) -> np.ndarray:
    info = np.iinfo(npdt)
    vals = {int(info.min), int(info.min) + 1, int(info.max), int(info.max) - 1, 0, 1}
    vals.add(int(info.max) // 2 + 1)
    if info.bits == 16:  # 34250 * 64640 passes INT_MAX
        vals |= {int(np.array(34250).astype(npdt)), int(np.array(64640).astype(npdt))}
    if info.min < 0:
        vals.add(-1)
    return np.array(sorted(vals), dtype=npdt)


def _int_operand(fdp: Any, npdt: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Values at the edges (or raw bytes), in a layout the input picks."""
    edges = _edge_values(npdt)
    big = (*shape[:-1], 2 * shape[-1]) if shape else shape
    size = int(np.prod(big, dtype=np.int64))
    picks = np.frombuffer(fdp.ConsumeBytes(size).ljust(size, b"\0"), np.uint8)
    vals = edges[picks % len(edges)]
    if fdp.ConsumeBool():  # some raw values among the edges
        raw = make_values(fdp, npdt, size)
        vals = np.where(picks % 3 == 0, raw, vals)
    base = vals.astype(npdt).reshape(big)
    layout = fdp.ConsumeIntInRange(0, 3)
    if not shape:
        return base
    if layout == 0:  # step two along the last axis
        return base[..., ::2]
    if layout == 1:  # reversed
        return base[..., ::-1][..., : shape[-1]]
    if layout == 2 and len(shape) >= 2:  # column-major
        return np.swapaxes(np.swapaxes(base[..., : shape[-1]], -1, -2).copy(), -1, -2)
    return base[..., : shape[-1]]


def target_matmul(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    npdt = np.dtype(fdp.PickValueInList(INT_MATMUL_DTYPES))
    role = fdp.ConsumeIntInRange(0, 3)  # GEMM, GEMV, GEVM, DOT
    m, n, k = (fdp.ConsumeIntInRange(0, 40) for _ in range(3))
    batch = fdp.PickValueInList([(), (), (2,), (3, 1)])
    a_shape = (*batch, m, k) if role in (0, 1) else (k,)
    b_shape = (k, n) if role in (0, 2) else (k,)
    a = _int_operand(fdp, npdt, a_shape)
    b = _int_operand(fdp, npdt, b_shape)
    force = fdp.PickValueInList([None, "generic", "reference"])
    x, y = sa.asarray(a), sa.asarray(b)
    show(f"{npdt} {a.shape}{a.strides} @ {b.shape}{b.strides} force={force}")
    if force is None:
        got = x @ y
    else:
        with sa.matmul_policy(force=force):
            got = x @ y
    check_equal(got, np.matmul(a, b), f"{npdt} {a.shape} @ {b.shape} (force={force})")
    check_equal(x, a, "the left operand after @")
    check_equal(y, b, "the right operand after @")


TARGETS = {
    "index": target_index,
    "asarray": target_asarray,
    "ops": target_ops,
    "reshape": target_reshape,
    "pickle": target_pickle,
    "lists": target_lists,
    "matmul": target_matmul,
}


def main() -> None:
    global atheris
    import atheris  # the `fuzz` extra; tools/checks/fuzz installs it into its scratch venv

    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options] [corpus dirs]")
    name = sys.argv.pop(1)
    with atheris.instrument_imports(include=["stridedarray"]):
        _setup_namespace()
    target = TARGETS[name]
    # The harness's own branches (which entry kind, which view) guide the fuzzer too.
    for fname, fn in list(globals().items()):
        if (
            callable(fn)
            and getattr(fn, "__module__", None) == __name__
            and type(fn).__name__ == "function"
        ):
            globals()[fname] = atheris.instrument_func(fn)
    target = TARGETS[name] = globals()[target.__name__]
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


atheris: Any = None

if __name__ == "__main__":
    main()
