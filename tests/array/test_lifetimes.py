"""Lifetimes: views keep their storage alive, results do not keep inputs.

A view holds its `_Storage`, which holds the exporter's memory (the NumPy array, bytes,
bytearray, memoryview or array.array handed to `asarray`). Deleting the base Array, the
exporter and every other reference must leave the view readable with the same values; once the
view goes too, the exporter must be freed (its weakref dies after gc.collect()). Copies
(`to_row_major`, `_pack`, `matmul`) must not keep their inputs, and exports (DLPack capsules,
`numpy.asarray(x)`) must keep the storage they share. Packed C temporaries are freed after every
matmul, also one that fails part-way (fault injection through stridedarray._matmul.diagnostics).

Each test reads values after the owners are gone and after `_churn` has reused freed memory, so
a dangling pointer shows up as wrong values here and as a report under the sanitizer build
(tools/checks/sanitize runs this file). Nothing here depends on timing.
"""

from __future__ import annotations

import array
import gc
import sys
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import NUMERIC_DTYPES, basic_indices, fill

import stridedarray as sa
from stridedarray._matmul import diagnostics as diag

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means


@contextmanager
def gc_off() -> Iterator[None]:
    """Automatic collection off, so an object in a cycle dies exactly at gc.collect()."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _dead(*refs: weakref.ref) -> bool:
    """True when every referent is gone after a full collection."""
    gc.collect()
    return all(r() is None for r in refs)


def _alive(*refs: weakref.ref) -> bool:
    """True when every referent survives a full collection."""
    gc.collect()
    return all(r() is not None for r in refs)


def _churn(nbytes: int = 1 << 16) -> None:
    """Allocate and scribble over recently freed memory, so a view left pointing at freed
    storage would read the sentinel (and ASan would report the read)."""
    junk = [np.full(max(nbytes // 8, 16) + k, -7777.0) for k in range(16)]
    junk += [bytearray(b"\xa5" * (nbytes + k)) for k in range(16)]
    del junk


def _check_values(v: sa.Array, expected: np.ndarray) -> None:
    """The view reads `expected` through every path: NumPy view, C pack, a C matmul."""
    np.testing.assert_array_equal(np.asarray(v), expected)
    np.testing.assert_array_equal(np.asarray(v.to_row_major()), expected)
    if v.ndim == 2 and v.dtype in NUMERIC_DTYPES:
        ones = sa.ones((v.shape[1], 1), dtype=v.dtype)
        np.testing.assert_array_equal(
            np.asarray(v @ ones), expected @ np.ones((v.shape[1], 1), expected.dtype)
        )


def _owning(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """A fresh C-contiguous array that owns its memory, with distinct values."""
    a = np.arange(int(np.prod(shape))).astype(dtype).reshape(shape).copy()
    assert a.base is None
    return a


# -- NumPy exporters ---------------------------------------------------------------------------
# (name, make the owner, derive the array handed to asarray from it)
# The owners own their memory (`base is None`): NumPy collapses a view's base to the array
# that owns the memory, so a weakref to an intermediate view (e.g. `arange(..).reshape(..)`)
# says nothing about the memory.
NUMPY_SOURCES = [
    ("c-contiguous", lambda: _owning((6, 8), np.float64), lambda o: o),
    ("reversed", lambda: _owning((6, 8), np.float64), lambda o: o[::-1, ::-1]),
    ("step-two", lambda: _owning((12, 8), np.int32), lambda o: o[::2, 1::2]),
    ("fortran", lambda: np.asfortranarray(_owning((6, 8), np.float32)), lambda o: o),
    ("transposed complex", lambda: _owning((6, 8), np.complex128) * (1 + 2j), lambda o: o.T),
    ("read-only", lambda: _owning((6, 8), np.int64), lambda o: o),
]


@pytest.mark.parametrize("name,make,derive", NUMPY_SOURCES, ids=[s[0] for s in NUMPY_SOURCES])
def test_view_keeps_numpy_exporter_alive(name, make, derive):
    owner = make()
    assert owner.base is None
    if name == "read-only":
        owner.flags.writeable = False
    src = derive(owner)
    x = sa.asarray(src)
    # slice of transpose of flip, then a step-two slice: a chain of four views
    v = sa.flip(x, axis=0).T[1:, ::-2]
    expected = np.flip(src, axis=0).T[1:, ::-2].copy()
    refs = (weakref.ref(owner), weakref.ref(x._st), weakref.ref(x._st.arr))
    del owner, src, x
    assert _alive(*refs), "a live view must keep its storage and the exporter"
    _churn()
    _check_values(v, expected)
    del v
    assert _dead(*refs), "the exporter must be freed with its last view"


# -- a random chain of views over a fresh exporter ----------------------------------------------
def _step(data: st.DataObject, x: sa.Array, ref: np.ndarray) -> tuple[sa.Array, np.ndarray]:
    """Apply one random view operation to both the Array and the NumPy reference."""
    nd = ref.ndim
    kind = data.draw(
        st.sampled_from(["index", "flip", "permute", "mT", "expand", "squeeze", "broadcast"])
    )
    if kind == "index":
        key = data.draw(basic_indices(ref.shape, allow_none=nd < 5))
        r = ref[key]
        if not isinstance(r, np.ndarray):  # NumPy copies a selected scalar; keep the 0-d view
            r = ref[(*key, ...) if isinstance(key, tuple) else (key, ...)]
        return x[key], r
    if kind == "flip" and nd:
        axis = data.draw(st.none() | st.integers(-nd, nd - 1))
        return sa.flip(x, axis=axis), np.flip(ref, axis=axis)
    if kind == "permute":
        perm = tuple(data.draw(st.permutations(range(nd))))
        return sa.permute_dims(x, perm), np.transpose(ref, perm)
    if kind == "mT" and nd >= 2:
        return x.mT, np.swapaxes(ref, -1, -2)
    if kind == "expand" and nd < 5:
        axis = data.draw(st.integers(-nd - 1, nd))
        return sa.expand_dims(x, axis=axis), np.expand_dims(ref, axis)
    if kind == "squeeze" and 1 in ref.shape:
        axis = ref.shape.index(1)
        return sa.squeeze(x, axis=axis), np.squeeze(ref, axis=axis)
    if kind == "broadcast" and nd < 5:
        target = (data.draw(st.integers(0, 3)),) + tuple(
            data.draw(st.integers(1, 3)) if n == 1 else n for n in ref.shape
        )
        return sa.broadcast_to(x, target), np.broadcast_to(ref, target)
    return x, ref


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    dt=st.sampled_from(NUMERIC_DTYPES),
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple),
    seed=st.integers(0, 2**32 - 1),
    nops=st.integers(1, 6),
)
def test_random_view_chain_outlives_everything(data, dt, shape, seed, nops):
    """Views make no reference cycles: with automatic gc off and no gc.collect(), the
    exporter lives exactly as long as the last view of the chain (reference counting alone
    frees it). That also keeps this test fast in a large process, where a full collection
    per example costs tens of milliseconds."""
    with gc_off():
        owner = fill(dt, shape, seed)
        x = sa.asarray(owner)
        ref = owner.copy()  # the reference chain runs on a private copy
        v = x
        for _ in range(nops):
            v, ref = _step(data, v, ref)
        expected = ref.copy()
        del ref
        # The ndarray that owns the memory: asarray keeps a view of `owner` of its own (as
        # owner.view() would, it refers to the memory's owner, not to a view in between).
        root = owner
        while isinstance(root.base, np.ndarray):
            root = root.base
        wr = weakref.ref(root)
        del owner, x, root  # intermediate views were rebound away already
        assert wr() is not None
        _churn()
        np.testing.assert_array_equal(np.asarray(v), expected)
        np.testing.assert_array_equal(np.asarray(v.to_row_major()), expected)
        del v
        assert wr() is None, "the exporter must be freed with its last view, without gc"


# -- non-NumPy buffer exporters --------------------------------------------------------------------
class WeakBytearray(bytearray):
    """A bytearray that can be weakly referenced (the builtin cannot)."""


def _f64_bytes(n: int) -> bytes:
    return array.array("d", [float(k) for k in range(n)]).tobytes()


# (name, make the exporter, dtype asarray gives it)
BUFFER_SOURCES = [
    ("bytearray", lambda: WeakBytearray(_f64_bytes(24)), np.uint8),
    ("memoryview", lambda: memoryview(WeakBytearray(_f64_bytes(24))).cast("d", (4, 6)), np.float64),
    ("array.array", lambda: array.array("i", range(24)), np.int32),
]


@pytest.mark.parametrize("name,make,npdt", BUFFER_SOURCES, ids=[s[0] for s in BUFFER_SOURCES])
def test_view_keeps_buffer_exporter_alive(name, make, npdt):
    src = make()
    x = sa.asarray(src)
    assert x.dtype.np == np.dtype(npdt)
    v = sa.flip(x, axis=-1)[1::2]
    expected = np.flip(np.array(src, dtype=npdt), axis=-1)[1::2].copy()
    # A memoryview's memory belongs to the object under it (`.obj`); NumPy's view holds the
    # shared buffer, not the memoryview object, so the owner is what must stay alive.
    owner = src.obj if isinstance(src, memoryview) else src
    refs = [weakref.ref(owner), weakref.ref(x._st)]
    del owner
    del src, x
    assert _alive(*refs)
    _churn()
    np.testing.assert_array_equal(np.asarray(v), expected)
    np.testing.assert_array_equal(np.asarray(v.to_row_major()), expected)
    del v
    assert _dead(*refs)


def test_view_keeps_bytes_alive():
    """bytes cannot be weakly referenced: its reference count shows who holds it."""
    src = _f64_bytes(12)
    base = sys.getrefcount(src)
    x = sa.asarray(src)
    v = sa.reshape(x, (12, 8))[::-1, 0]  # the lowest byte of each float64, reversed
    expected = np.frombuffer(src, np.uint8).reshape(12, 8)[::-1, 0].copy()
    wr = weakref.ref(x._st)
    del x
    gc.collect()
    assert sys.getrefcount(src) > base and wr() is not None
    assert v.readonly
    _churn()
    np.testing.assert_array_equal(np.asarray(v), expected)
    del v
    assert _dead(wr)
    assert sys.getrefcount(src) == base, "the last view must release the bytes"


# -- copies do not keep their inputs ------------------------------------------------------------
def _owners(*arrays: np.ndarray) -> tuple[list[sa.Array], list[weakref.ref]]:
    return [sa.asarray(a) for a in arrays], [weakref.ref(a) for a in arrays]


COPIES = [
    ("to_row_major", lambda a: a[::-1, ::2].to_row_major()),
    ("_pack (cast)", lambda a: a.T[::-1]._pack(sa.float32)),
    ("asarray copy", lambda a: sa.asarray(a[1:], copy=True)),
    ("astype", lambda a: sa.astype(a.mT, sa.complex128)),
]


@pytest.mark.parametrize("name,op", COPIES, ids=[c[0] for c in COPIES])
def test_copies_do_not_keep_input_alive(name, op):
    owner = _owning((6, 8), np.float64)
    expected = np.asarray(op(sa.asarray(owner.copy())))
    (x,), (wr,) = _owners(owner)
    y = op(x)
    del owner, x
    assert _dead(wr), f"{name} result must not hold its input's storage"
    _churn()
    np.testing.assert_array_equal(np.asarray(y), expected)


# (name, lhs, rhs, forced route or None): every route, pack-once and casts
MATMUL_CASES = [
    ("blas", lambda: np.arange(64.0).reshape(8, 8), lambda: np.ones((8, 8)), "blas"),
    (
        "pack-once reversed lhs reused",
        lambda: np.arange(3 * 40 * 40.0).reshape(1, 120, 40)[:, ::-3],
        lambda: np.arange(5 * 40 * 40.0).reshape(5, 40, 40),
        "pack_blas",
    ),
    (
        "cross broadcasting",
        lambda: np.arange(2 * 64 * 64.0).reshape(2, 1, 64, 64)[..., ::-1],
        lambda: np.arange(3 * 64 * 64.0).reshape(1, 3, 64, 64)[:, :, ::-1],
        "pack_blas",
    ),
    (
        "generic int64",
        lambda: np.arange(36).reshape(6, 6)[::-1],
        lambda: np.arange(36).reshape(6, 6).T,
        "generic",
    ),
    (
        "mixed dtypes (cast)",
        lambda: np.arange(60, dtype=np.float32).reshape(6, 10)[:, ::-1],
        lambda: np.arange(50.0).reshape(10, 5),
        None,
    ),
    (
        "reference int8 @ uint8",
        lambda: np.arange(20, dtype=np.int8).reshape(4, 5),
        lambda: np.arange(15, dtype=np.uint8).reshape(5, 3),
        "reference",
    ),
]


@pytest.mark.parametrize("name,mk1,mk2,force", MATMUL_CASES, ids=[c[0] for c in MATMUL_CASES])
def test_matmul_result_does_not_keep_inputs_alive(name, mk1, mk2, force):
    a, b = mk1(), mk2()
    base_a = a if a.base is None else a.base
    base_b = b if b.base is None else b.base
    dt = sa.result_type(sa.asarray(a), sa.asarray(b)).np
    expected = np.matmul(a.astype(dt), b.astype(dt))
    x1, x2 = sa.asarray(a), sa.asarray(b)
    wrs = [weakref.ref(base_a), weakref.ref(base_b), weakref.ref(x1._st), weakref.ref(x2._st)]
    with sa.matmul_policy(force=force):
        z = x1 @ x2
    del a, b, base_a, base_b, x1, x2
    assert _dead(*wrs), "a matmul result must not hold its operands' storage"
    _churn()
    np.testing.assert_array_equal(np.asarray(z), expected)


# -- exports keep the storage they share -----------------------------------------------------------
@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_dlpack_capsule_keeps_storage_alive(max_version):
    owner = _owning((5, 8), np.float64)
    x = sa.asarray(owner)
    v = x[::-1, 1::3]
    cap = v.__dlpack__(max_version=max_version)
    # The capsule holds NumPy's view of the memory, not our _Storage wrapper: what it must
    # keep alive is the memory's owner.
    refs = (weakref.ref(owner),)
    del owner, x, v
    assert _alive(*refs), "an unconsumed capsule must keep the memory"
    del cap  # never consumed: its deleter releases the storage
    assert _dead(*refs)


def test_numpy_from_dlpack_keeps_storage_alive():
    owner = _owning((5, 8), np.float64)
    x = sa.asarray(owner)
    y = np.from_dlpack(x.mT[::-1])
    expected = owner.T[::-1].copy()
    refs = (weakref.ref(owner),)  # the memory's owner (see the capsule test)
    del owner, x
    assert _alive(*refs)
    _churn()
    np.testing.assert_array_equal(y, expected)
    del y
    assert _dead(*refs)


def test_from_dlpack_import_keeps_producer_alive():
    owner = _owning((5, 8), np.float64)
    y = sa.from_dlpack(owner[::-1, ::2])
    expected = owner[::-1, ::2].copy()
    wr = weakref.ref(owner)
    del owner
    assert _alive(wr)
    _churn()
    _check_values(y, expected)
    del y
    assert _dead(wr)


def test_numpy_asarray_keeps_storage_alive():
    owner = _owning((5, 8), np.float64)
    x = sa.asarray(owner)
    v = sa.flip(x)[:, ::2]
    n = np.asarray(v)
    expected = np.flip(owner)[:, ::2].copy()
    refs = (weakref.ref(owner), weakref.ref(x._st), weakref.ref(v))
    del owner, x, v
    assert _alive(*refs), "numpy.asarray(x) must keep x (and its storage) alive"
    _churn()
    np.testing.assert_array_equal(n, expected)
    del n
    assert _dead(*refs)


# -- reference cycles ----------------------------------------------------------------------------
class _Holder:
    """An object in a reference cycle with itself, holding a view."""

    def __init__(self, view: sa.Array) -> None:
        self.view = view
        self.me = self


def test_view_in_reference_cycle_collected_by_gc():
    with gc_off():
        owner = _owning((5, 6), np.float64)
        x = sa.asarray(owner)
        v = x.T[::-1]
        expected = owner.T[::-1].copy()
        lst: list = [v]
        lst.append(lst)  # the list refers to itself
        holder = _Holder(v[1:])
        refs = (weakref.ref(owner), weakref.ref(x._st), weakref.ref(v))
        del owner, x, v
        np.testing.assert_array_equal(np.asarray(lst[0]), expected)
        del lst, holder
        # Only the cycles hold the storage now, and automatic collection is off.
        assert all(r() is not None for r in refs)
        gc.collect()
        assert all(r() is None for r in refs), "gc must collect views held only by cycles"


# -- packed temporaries are freed, also when the call fails ---------------------------------------


def _ints(shape: tuple[int, ...], dtype: type, seed: int) -> sa.Array:
    return sa.asarray(np.random.default_rng(seed).integers(-100, 100, shape).astype(dtype))


def _floats(shape: tuple[int, ...], dtype: type, seed: int) -> sa.Array:
    return sa.asarray(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


# (name, forced route, operands): calls that allocate in C (packs, casts, generic scratch).
ALLOCATING = [
    (
        "pack_blas reversed lhs reused",
        "pack_blas",
        lambda: (
            _floats((1, 48, 48), np.float64, 0)[..., ::-1],
            _floats((6, 48, 48), np.float64, 1),
        ),
    ),
    (
        "pack_blas cross broadcasting",
        "pack_blas",
        lambda: (
            _floats((2, 1, 40, 40), np.float32, 2)[..., ::-1],
            _floats((1, 3, 40, 40), np.float32, 3)[..., ::-1, :],
        ),
    ),
    (
        "pack_blas reused reversed vector",
        "pack_blas",
        lambda: (_floats((8, 64, 64), np.float64, 4), _floats((64,), np.float64, 5)[::-1]),
    ),
    (
        "cast f32 @ f64",
        None,
        lambda: (_floats((3, 40, 30), np.float32, 6), _floats((30, 20), np.float64, 7)[::-1]),
    ),
    (
        "generic int8 @ uint8: two casts and heap scratch",
        "generic",
        lambda: (_ints((3, 64, 96), np.int8, 8)[..., ::-1], _ints((96, 80), np.uint8, 9)),
    ),
    (
        "generic f64 heap scratch",
        "generic",
        lambda: (_floats((96, 128), np.float64, 10)[::-1], _floats((128, 112), np.float64, 11)),
    ),
]


def _expected(x1: sa.Array, x2: sa.Array) -> np.ndarray:
    dt = sa.result_type(x1, x2).np
    return np.matmul(np.asarray(x1).astype(dt), np.asarray(x2).astype(dt))


def _c_counts() -> dict[str, dict[str, int]]:
    return diag.c_alloc_stats()


def _assert_balanced(before: dict, after: dict) -> None:
    """Every C block allocated since `before` was freed."""
    for cat in ("pack", "scratch"):
        b, a = before[cat], after[cat]
        assert a["current"] == b["current"], (cat, before, after)
        assert a["allocations"] - b["allocations"] == a["frees"] - b["frees"], (cat, b, a)


@pytest.mark.thread_unsafe(
    reason="compares the C core's process-wide allocation counters before and after; other "
    "threads' calls allocate in between"
)
def test_packed_temporaries_freed_after_many_calls():
    calls = [(force, *mk()) for _, force, mk in ALLOCATING]
    expected = [_expected(x1, x2) for _, x1, x2 in calls]
    s0 = _c_counts()
    for _ in range(30):
        for (force, x1, x2), want in zip(calls, expected, strict=True):
            with sa.matmul_policy(force=force):
                z = x1 @ x2
            np.testing.assert_allclose(np.asarray(z), want, rtol=1e-5, atol=1e-5)
    s1 = _c_counts()
    _assert_balanced(s0, s1)
    assert s1["pack"]["allocations"] - s0["pack"]["allocations"] >= 30 * len(calls) - 30
    assert s1["scratch"]["allocations"] > s0["scratch"]["allocations"]


@pytest.mark.thread_unsafe(
    reason="fail_c_alloc_after arms one process-wide failure: another thread's allocation "
    "could take it"
)
@pytest.mark.parametrize("name,force,make", ALLOCATING, ids=[c[0] for c in ALLOCATING])
def test_failed_allocation_frees_everything(name, force, make):
    """The k-th C allocation of the call fails, for every k the call reaches: MemoryError,
    nothing leaked, inputs unchanged, and the next identical call gives NumPy's result."""
    x1, x2 = make()
    want = _expected(x1, x2)
    in1, in2 = np.asarray(x1).copy(), np.asarray(x2).copy()
    s0 = _c_counts()
    with sa.matmul_policy(force=force):
        x1 @ x2
    s1 = _c_counts()
    needed = sum(s1[c]["allocations"] - s0[c]["allocations"] for c in ("pack", "scratch"))
    assert needed >= 1, f"{name}: the call allocates nothing in C"
    for k in range(min(needed, 3)):  # k = 0, 1, 2 where the call makes that many
        before = _c_counts()
        with diag.fail_c_alloc_after(k), sa.matmul_policy(force=force):
            with pytest.raises(
                MemoryError, match="matmul: out of memory packing operands or kernel scratch for"
            ):
                x1 @ x2
        _churn()
        _assert_balanced(before, _c_counts())
        np.testing.assert_array_equal(np.asarray(x1), in1)
        np.testing.assert_array_equal(np.asarray(x2), in2)
        with sa.matmul_policy(force=force):
            z = x1 @ x2
        np.testing.assert_allclose(np.asarray(z), want, rtol=1e-5, atol=1e-5)
    # the injection is disarmed after its block, also after an error inside it
    with (
        pytest.raises(
            MemoryError, match="matmul: out of memory packing operands or kernel scratch for"
        ),
        diag.fail_c_alloc_after(0),
        sa.matmul_policy(force=force),
    ):
        x1 @ x2
    with sa.matmul_policy(force=force):
        np.testing.assert_allclose(np.asarray(x1 @ x2), want, rtol=1e-5, atol=1e-5)


# -- the exporter cannot pull the memory from under a live view -----------------------------------
def _tracing() -> bool:
    """Whether a tracer or monitoring tool (coverage, a debugger) is active. NumPy's resize
    refuses an array with more references than its caller's, and under a tracer the traced
    frames hold more, so resize cannot tell there that no view is left."""
    if sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and any(monitoring.get_tool(i) is not None for i in range(6))


def test_exporter_cannot_resize_or_release_under_a_view():
    """While a view lives, the exporter's memory stays exported: resizing a bytearray,
    array.array or NumPy owner is refused (a realloc would leave the view dangling), and
    releasing the memoryview handed to asarray leaves the view's own export intact."""
    ba = WeakBytearray(_f64_bytes(8))
    x = sa.asarray(ba)[::-2]
    expected = np.frombuffer(bytes(ba), np.uint8)[::-2].copy()
    with pytest.raises(BufferError):
        ba.extend(b"\0" * 4096)
    arr = array.array("d", range(8))
    y = sa.flip(sa.asarray(arr))
    with pytest.raises(BufferError):
        arr.extend(range(4096))
    owner = _owning((16,), np.float64)
    z = sa.asarray(owner)[::-1]
    with pytest.raises(ValueError):
        owner.resize(4096)
    src = WeakBytearray(_f64_bytes(8))
    m = memoryview(src).cast("d")
    w = sa.asarray(m)[1::3]
    m.release()  # releases this memoryview only; asarray holds its own export
    with pytest.raises(BufferError):
        src.extend(b"\0" * 4096)
    wr = weakref.ref(src)
    del src, m
    _churn()
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.0)[::-1])
    np.testing.assert_array_equal(np.asarray(z), np.arange(16.0)[::-1])
    np.testing.assert_array_equal(np.asarray(w), np.arange(8.0)[1::3])
    del x, y, z
    gc.collect()
    ba.extend(b"\0" * 8)  # the last views are gone: the exporters are free again
    arr.extend(range(8))
    if not _tracing():
        owner.resize(32)
    del w
    assert _dead(wr)
