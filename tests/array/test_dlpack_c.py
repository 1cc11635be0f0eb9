"""DLPack 1.3's C exchange API, `type(x).__dlpack_c_exchange_api__`, driven from C: a consumer
module (dlpack_consumer.c, beside this file, compiled here with the interpreter's compiler)
looks the table up on the type and calls each function, as another library's C code does.
The tensors it sees are checked against NumPy's view of the same memory; the lifetimes by the
array type's count of live exports, weak references and the consumer's own deleter count."""

from __future__ import annotations

import gc
import os
import shlex
import subprocess
import sys
import sysconfig
import threading
import weakref
from importlib.machinery import ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import views

import stridedarray as sa
from stridedarray import _arraytype

pytestmark = [pytest.mark.c_core, pytest.mark.version_sensitive]  # tests/conftest.py says what

SETTINGS = settings(max_examples=60, deadline=None)
READ_ONLY, IS_COPIED = 1, 2  # DLPACK_FLAG_BITMASK_*
# DLDataTypeCode by NumPy's kind: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLComplex 5, kDLBool 6.
DL_CODE = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


@pytest.fixture(scope="module")
def c(tmp_path_factory):
    """The consumer module, compiled for this interpreter."""
    if sys.platform == "win32":
        pytest.skip("the C consumer is built with a Unix compiler line (cc -shared)")
    src = Path(__file__).with_name("dlpack_consumer.c")
    out = (
        tmp_path_factory.mktemp("dlpack_c")
        / f"dlpack_consumer{sysconfig.get_config_var('EXT_SUFFIX')}"
    )
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    cmd = [
        *cc,
        "-shared",
        "-fPIC",
        "-O1",
        "-g",
        "-Wall",
        "-Werror",
        "-pthread",
        f"-I{sysconfig.get_paths()['include']}",
        str(src),
        "-o",
        str(out),
    ]
    # the compiler without the sanitizer runtime tools/checks/sanitize preloads into the tests
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if done.returncode:
        pytest.fail(f"compiling {src.name} failed:\n{' '.join(cmd)}\n{done.stderr}")
    loader = ExtensionFileLoader("dlpack_consumer", str(out))
    spec = spec_from_loader("dlpack_consumer", loader)
    assert spec is not None
    mod = module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def _expected(ref: np.ndarray) -> dict:
    """The tensor DLPack describes for the NumPy array `ref` (an independent description of
    the same memory): strides compared where an index multiplies them."""
    its = ref.itemsize
    return {
        "data": ref.ctypes.data if ref.size else 0,
        "device": (1, 0),
        "ndim": ref.ndim,
        "dtype": (DL_CODE[ref.dtype.kind], 8 * its, 1),
        "shape": ref.shape,
        "byte_offset": 0,
    }


def _multiplied(desc: dict, ref: np.ndarray) -> tuple[tuple, tuple]:
    """The strides (tensor's, NumPy's in elements) of the axes an index multiplies."""
    if ref.size == 0:
        return (), ()
    keep = [k for k, n in enumerate(ref.shape) if n > 1]
    return (
        tuple(desc["strides"][k] for k in keep),
        tuple(ref.strides[k] // ref.itemsize for k in keep),
    )


def test_the_table_is_on_the_type(c):
    assert type(sa.ones(2)).__dlpack_c_exchange_api__ is sa.Array.__dlpack_c_exchange_api__
    assert "dlpack_exchange_api" in repr(sa.Array.__dlpack_c_exchange_api__)
    # DLPack 1.3, no older table chained, every function present
    assert c.header(sa.ones(2)) == ((1, 3), False, (1, 1, 1, 1, 1))


@SETTINGS
@given(pair=views())
def test_export_describes_the_view(c, pair):
    live = _arraytype._dlpack_live()
    desc, version, flags, handle = c.export(pair.x)
    assert {k: desc[k] for k in _expected(pair.ref)} == _expected(pair.ref)
    ours, numpys = _multiplied(desc, pair.ref)
    assert ours == numpys  # negative, zero (broadcast) and permuted strides as they are
    assert version == (1, 3)
    # read-only where indices alias one element (a zero stride on an axis of extent > 1, in
    # an array with elements); NumPy's broadcast_to marks every result read-only, so its flag
    # is not the oracle
    steps = zip(pair.ref.shape, pair.ref.strides, strict=True)
    aliased = pair.ref.size > 0 and any(n > 1 and s == 0 for n, s in steps)
    assert flags == (READ_ONLY if aliased else 0)
    if pair.ref.size:
        assert c.read_first(handle) == pair.ref[(0,) * pair.ref.ndim].tobytes()
    assert _arraytype._dlpack_live() == live + 1
    c.delete(handle)
    assert _arraytype._dlpack_live() == live


@SETTINGS
@given(pair=views(broadcast=False))
def test_dltensor_is_the_same_description(c, pair):
    if not pair.ref.flags.writeable:  # a read-only storage: refused, see below
        return
    live = _arraytype._dlpack_live()
    desc = c.dltensor(pair.x)
    assert {k: desc[k] for k in _expected(pair.ref)} == _expected(pair.ref)
    assert _multiplied(desc, pair.ref)[0] == _multiplied(desc, pair.ref)[1]
    assert _arraytype._dlpack_live() == live  # nothing allocated, nothing to delete


def test_dltensor_refuses_read_only_arrays(c):
    # a bare DLTensor has no read-only flag, so a consumer could not know not to write
    for x in (sa.asarray(b"abc"), sa.broadcast_to(sa.ones(3), (2, 3))):
        with pytest.raises(BufferError, match="read-only.*managed_tensor_from_py_object"):
            c.dltensor(x)


@pytest.mark.parametrize("in_thread", [False, True])
def test_the_tensor_keeps_the_array_alive_until_deleted_once(c, in_thread):
    live = _arraytype._dlpack_live()
    x = sa.arange(5.0)[::-1]
    ref = weakref.ref(x)
    _, _, _, handle = c.export(x)
    del x
    gc.collect()
    assert ref() is not None  # the tensor holds the array, which holds its memory
    assert c.read_first(handle) == np.float64(4.0).tobytes()
    c.delete(handle, in_thread)  # in_thread: from another thread, without the GIL
    gc.collect()
    assert ref() is None
    assert _arraytype._dlpack_live() == live
    with pytest.raises(ValueError):  # the handle is spent: the test cannot delete twice
        c.delete(handle)


@pytest.mark.parametrize(
    "x",
    [
        sa.asarray(3.5),  # 0-d
        sa.zeros((0, 3)),  # no element: data is NULL
        sa.reshape(sa.arange(6), (2, 3))[:, ::-2],  # negative and step-two
        sa.reshape(sa.ones(1), (1,) * 64),  # the most axes an array has
        sa.asarray(b"\x01\x02"),  # read-only storage
    ],
    ids=["0-d", "0-size", "negative", "64-axes", "read-only"],
)
def test_edge_arrays_round_trip_through_the_table(c, x):
    live = _arraytype._dlpack_live()
    y = c.reimport(x)  # exported, then imported by managed_tensor_to_py_object_no_sync
    assert type(y) is sa.Array
    assert y.shape == x.shape and y.dtype == x.dtype and y.readonly == x.readonly
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    if x.size:
        assert np.shares_memory(np.asarray(y), np.asarray(x))
    assert _arraytype._dlpack_live() == live + (1 if x.size else 0)
    del y
    gc.collect()
    assert _arraytype._dlpack_live() == live


def test_import_of_a_foreign_tensor_views_its_memory(c):
    buf = bytearray(np.arange(12, dtype=np.int32).tobytes())
    base = np.frombuffer(buf, dtype=np.int32)
    deleted = c.foreign_deleted()
    # a (3, 2) view reversed on its first axis, starting at element 10 (byte offset 40)
    y = c.import_foreign(sa.ones(1), buf, (3, 2), (-4, 1), (0, 32, 1), (1, 0), 0, 1, 40, False)
    want = np.lib.stride_tricks.as_strided(base[10:], (3, 2), (-16, 4))
    np.testing.assert_array_equal(np.asarray(y), want)
    assert not y.readonly
    y[0, 0] = 99  # writes reach the producer's memory
    assert base[10] == 99
    view = y[1:]
    del y
    gc.collect()
    assert c.foreign_deleted() == deleted  # a view still uses the memory
    del view
    gc.collect()
    assert c.foreign_deleted() == deleted + 1


@SETTINGS
@given(pair=views())
def test_import_views_the_producers_memory_as_numpy_does(c, pair):
    # The C consumer describes NumPy's view `ref` of base_np's buffer as a DLPack tensor and
    # hands it to the table's import: the array must read what NumPy reads, in place.
    ref, base = pair.ref, pair.base_np
    its = ref.itemsize
    offset = ref.ctypes.data - base.ctypes.data if ref.size else 0
    strides = tuple(s // its for s in ref.strides)
    dtype = (DL_CODE[ref.dtype.kind], 8 * its, 1)
    deleted = c.foreign_deleted()
    y = c.import_foreign(sa.ones(1), base, ref.shape, strides, dtype, (1, 0), 0, 1, offset, 0)
    assert y.shape == ref.shape and y.dtype.name == ref.dtype.name
    np.testing.assert_array_equal(np.asarray(y), ref)
    if ref.size:
        assert np.shares_memory(np.asarray(y), base)
    aliased = ref.size > 0 and any(
        n > 1 and s == 0 for n, s in zip(ref.shape, strides, strict=True)
    )
    assert y.readonly == aliased
    del y
    gc.collect()
    assert c.foreign_deleted() == deleted + 1


def test_import_flags_and_layouts(c):
    x = sa.ones(1)
    d0 = c.foreign_deleted()
    ro = c.import_foreign(x, b"\x01\x00\x01", (3,), (1,), (6, 8, 1), (1, 0), READ_ONLY, 1, 0, 0)
    assert ro.readonly and ro.dtype == sa.bool and ro.tolist() == [True, False, True]
    # NULL strides: C-contiguous (DLPack before 1.2)
    cc = c.import_foreign(x, np.arange(6.0).tobytes(), (2, 3), None, (2, 64, 1), (1, 0), 0, 1, 0, 0)
    assert cc.tolist() == [[0, 1, 2], [3, 4, 5]]
    # no element and a NULL data pointer: an empty array; the tensor is released at once
    e = c.import_foreign(x, b"", (0, 4), (4, 1), (2, 32, 1), (1, 0), 0, 1, 0, 1)
    assert e.shape == (0, 4) and e.dtype == sa.float32
    # pinned host memory is CPU memory
    h = c.import_foreign(x, b"\x05", (), None, (1, 8, 1), (3, 0), 0, 1, 0, 0)
    assert h.shape == () and int(h) == 5
    # misaligned memory (byte offset 1 into float64s) is copied
    raw = bytes(1) + np.arange(3.0).tobytes()
    m = c.import_foreign(x, raw, (3,), (1,), (2, 64, 1), (1, 0), 0, 1, 1, 0)
    assert m.tolist() == [0.0, 1.0, 2.0]
    del ro, cc, e, h, m
    gc.collect()
    assert c.foreign_deleted() == d0 + 5


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (((2,), (1,), (2, 64, 1), (2, 0), 0, 1, 0, 0), r"device \(2, 0\)"),
        (((2,), (1,), (4, 16, 1), (1, 0), 0, 1, 0, 0), r"dtype \(code 4, 16 bits"),
        (((2,), (1,), (2, 32, 2), (1, 0), 0, 1, 0, 0), r"2 lanes"),
        (((2,), (1,), (2, 64, 1), (1, 0), 0, 2, 0, 0), r"DLPack 2\.x"),
        (((1,) * 65, (0,) * 65, (2, 64, 1), (1, 0), 0, 1, 0, 0), "65 dimensions"),
        (((-1,), (1,), (2, 64, 1), (1, 0), 0, 1, 0, 0), "negative"),
        (((2,), (1,), (2, 64, 1), (1, 0), 0, 1, 0, 1), "NULL data pointer"),
        (((2,), (2**62,), (2, 64, 1), (1, 0), 0, 1, 0, 0), "stride"),
    ],
    ids=["cuda", "bfloat16", "lanes", "major-2", "65-axes", "negative-extent", "null", "stride"],
)
def test_import_errors_release_the_tensor_once(c, args, match):
    deleted = c.foreign_deleted()
    with pytest.raises(BufferError, match=match):
        c.import_foreign(sa.ones(1), bytearray(16), *args)
    assert c.foreign_deleted() == deleted + 1


@pytest.mark.parametrize("release_gil", [False, True])
def test_allocator(c, release_gil):
    live = _arraytype._dlpack_live()
    (desc, version, flags, handle), calls = c.allocate(
        sa.ones(1), (2, 3), (2, 64, 1), 1, release_gil
    )
    assert (desc["shape"], desc["strides"], desc["dtype"]) == ((2, 3), (3, 1), (2, 64, 1))
    assert desc["data"] != 0 and version == (1, 3) and flags == 0 and calls == 0
    c.delete(handle)
    assert _arraytype._dlpack_live() == live


@pytest.mark.parametrize(
    ("shape", "dtype", "device", "kind", "match"),
    [
        ((2,), (2, 64, 1), 2, "BufferError", "device type 2"),
        ((2,), (2, 16, 1), 1, "TypeError", "code 2, 16 bits"),
        ((1,) * 65, (2, 64, 1), 1, "ValueError", "at most 64 dimensions"),
        ((-2,), (2, 64, 1), 1, "ValueError", "negative extent"),
    ],
)
def test_allocator_reports_through_set_error(c, shape, dtype, device, kind, match):
    res = c.allocate(sa.ones(1), shape, dtype, device, True)
    assert res[:2] == ("error", kind) and match in res[2] and res[3] == 1


def test_current_work_stream_is_null_on_every_device(c):
    assert c.stream(sa.ones(1), 1) == (0, 0)
    assert c.stream(sa.ones(1), 2) == (0, 0)  # a CPU library's dummy, as DLPack allows


def test_exports_from_many_threads(c):
    live = _arraytype._dlpack_live()
    xs = [sa.arange(float(n + 1))[::-1] for n in range(4)]
    errors: list[BaseException] = []

    def work(x):
        try:
            for k in range(300):
                desc, _, _, handle = c.export(x)
                assert desc["shape"] == x.shape
                c.delete(handle, k % 3 == 0)
                y = c.reimport(x)
                assert y.shape == x.shape
        except BaseException as e:  # noqa: BLE001 (handed to the main thread)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(x,)) for x in xs for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    gc.collect()
    assert _arraytype._dlpack_live() == live


def test_the_table_refuses_other_objects(c):
    # the consumer found the table on Array but hands it a NumPy array
    class Fake:
        __dlpack_c_exchange_api__ = sa.Array.__dlpack_c_exchange_api__

    with pytest.raises(TypeError, match="takes a stridedarray.Array, got Fake"):
        c.export(Fake())
    with pytest.raises(TypeError, match="got Fake"):
        c.dltensor(Fake())


def test_from_dlpack_uses_a_producers_table(c):
    # Array's own table: the import goes through C, zero-copy, and counts one live tensor
    x = sa.reshape(sa.arange(6.0), (2, 3)).mT
    live = _arraytype._dlpack_live()
    y = sa.from_dlpack(x)
    assert _arraytype._dlpack_live() == live + 1
    assert np.shares_memory(np.asarray(y), np.asarray(x)) and y.shape == (3, 2)
    z = sa.from_dlpack(x, copy=True)
    assert not np.shares_memory(np.asarray(z), np.asarray(x))
    np.testing.assert_array_equal(np.asarray(z), np.asarray(x))
    del y, z
    gc.collect()
    assert _arraytype._dlpack_live() == live


def test_legacy_export_of_a_read_only_array(c):
    ro = sa.asarray(b"\x01\x02")
    with pytest.raises(BufferError, match="read-only.*max_version"):
        ro.__dlpack__(copy=False)
    assert np.from_dlpack(ro).tolist() == [1, 2]  # a copy: the legacy format has no flag
    v = np.from_dlpack(ro, copy=False)  # NumPy asks for DLPack 1.x: the flag says read-only
    assert not v.flags.writeable and np.shares_memory(v, np.asarray(ro))


@pytest.mark.parametrize(
    "table",
    [42, None, np.float64(1.0), memoryview(b"x")],
    ids=["int", "None", "numpy-scalar", "memoryview"],
)
def test_from_dlpack_falls_back_to_dunder_dlpack_without_a_table_it_reads(table):
    # a type whose attribute is not a "dlpack_exchange_api" capsule: x.__dlpack__() is used
    class Producer:
        __dlpack_c_exchange_api__ = table

        def __init__(self, n):
            self.n = n

        def __dlpack__(self, **kwargs):
            return self.n.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.n.__dlpack_device__()

    n = np.arange(6.0).reshape(2, 3)[:, ::-1]
    y = sa.from_dlpack(Producer(n))
    assert y.strides == (3, -1) and np.shares_memory(np.asarray(y), n)
