"""The generic matmul kernel (csrc/core/kernels/generic.c), forced through the public API.

Every test runs `stridedarray.matmul` inside `matmul_policy(force="generic")` and compares with
NumPy on the same values and the same layouts: every numeric dtype, C/F/padded/reversed/step-two/
doubly strided/zero-stride operands, the four roles, batch broadcasting (a shared operand is
packed once by the kernel), empty and unit dimensions, sizes that cross the kernel's register
tile (8 rows x one vector) and cache blocks (K = 256 per block, N = 512 float64 columns), and
integer products that overflow (they must wrap exactly like NumPy's).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from standard_names import DTYPE_NAMES

import stridedarray as sa

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means

DTYPES = list(DTYPE_NAMES[1:])  # every numeric dtype
LAYOUTS = ["C", "F", "padded", "rev_inner", "rev_outer", "step2", "both", "zero_inner"]
EPS = {"float32": 1.2e-7, "complex64": 1.2e-7, "float64": 2.3e-16, "complex128": 2.3e-16}


def _values(rng: np.random.Generator, shape: tuple, dtype: str) -> np.ndarray:
    """Random values; integers over their full range so that products overflow and wrap."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _operand(rng: np.random.Generator, shape: tuple, dtype: str, layout: str) -> np.ndarray:
    """A NumPy view with logical `shape` whose last one or two axes have the given layout."""
    *lead, last = shape
    if layout == "zero_inner":  # physical zero stride along the last axis
        return np.broadcast_to(_values(rng, (*lead, 1), dtype), shape)
    if len(shape) == 1 and layout in ("F", "rev_outer", "both"):
        layout = {"F": "rev_inner", "rev_outer": "rev_inner", "both": "step2"}[layout]
    if layout == "C":
        return _values(rng, shape, dtype)
    if layout == "padded":
        return _values(rng, (*lead, last + 3), dtype)[..., :last]
    if layout == "rev_inner":
        return _values(rng, shape, dtype)[..., ::-1]
    if layout == "step2":
        return _values(rng, (*lead, 2 * last), dtype)[..., ::2]
    rows = lead[-1]
    if layout == "F":
        return np.swapaxes(_values(rng, (*lead[:-1], last, rows), dtype), -1, -2)
    if layout == "rev_outer":
        return _values(rng, shape, dtype)[..., ::-1, :]
    assert layout == "both"
    return _values(rng, (*lead[:-1], 2 * rows, 3 * last), dtype)[..., ::-2, ::3]


def _check(a: np.ndarray, b: np.ndarray) -> None:
    """Generic-route matmul of the two views equals NumPy's (exactly for integers)."""
    x, y = sa.asarray(a), sa.asarray(b)
    with sa.matmul_policy(force="generic"):
        assert sa.matmul_explain(x, y).to_dict()["route"] == "generic"
        out = np.asarray(sa.matmul(x, y))
    with np.errstate(all="ignore"):
        ref = np.matmul(a, b)
    assert out.shape == ref.shape and out.dtype == ref.dtype
    if ref.dtype.kind in "iu":
        np.testing.assert_array_equal(out, ref)
    else:
        k = a.shape[-1]
        scale = max(1.0, float(np.abs(a).max(initial=0)) * float(np.abs(b).max(initial=0)))
        tol = 8 * max(k, 1) * EPS[ref.dtype.name] * scale
        np.testing.assert_allclose(out, ref, rtol=0, atol=tol)
    # inputs untouched
    assert np.array_equal(np.asarray(x), a) and np.array_equal(np.asarray(y), b)


@settings(max_examples=150)
@given(
    dtype=st.sampled_from(DTYPES),
    role=st.sampled_from(["GEMM", "GEMV", "GEVM", "DOT"]),
    mnk=st.tuples(*[st.sampled_from([0, 1, 2, 3, 5, 7, 8, 9, 12, 16, 17, 33])] * 3),
    batch=st.sampled_from([None, (3,), "lhs", "rhs", (2, 1, "x"), "zero"]),
    layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
    seed=st.integers(0, 2**32 - 1),
)
def test_generic_matches_numpy(dtype, role, mnk, batch, layouts, seed):
    """Random roles, shapes, batch broadcasting and layouts against NumPy."""
    rng = np.random.default_rng(seed)
    m, n, k = mnk
    ba = bb = ()
    if batch == (3,):
        ba = bb = (3,)
    elif batch == "lhs":  # lhs shared by the batch: packed once
        ba, bb = (1,), (4,)
    elif batch == "rhs":
        ba, bb = (4,), (1,)
    elif batch == (2, 1, "x"):  # cross broadcasting
        ba, bb = (2, 1), (1, 3)
    sa_shape = (k,) if role in ("GEVM", "DOT") else (*ba, m, k)
    sb_shape = (k,) if role in ("GEMV", "DOT") else (*bb, k, n)
    a = _operand(rng, sa_shape, dtype, layouts[0])
    b = _operand(rng, sb_shape, dtype, layouts[1])
    if batch == "zero" and role == "GEMM":  # physical zero batch stride
        a = np.broadcast_to(a, (3, *a.shape))
    _check(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_every_layout(dtype):
    """All layout pairs at a size with full and partial register tiles."""
    rng = np.random.default_rng(1)
    for la in LAYOUTS:
        for lb in LAYOUTS:
            _check(_operand(rng, (2, 11, 19), dtype, la), _operand(rng, (2, 19, 21), dtype, lb))


@pytest.mark.parametrize(
    "m,n,k",
    [
        (9, 3, 257),
        (3, 520, 5),
        (1, 70, 300),
        (70, 1, 300),
        (1, 1, 1000),
        (17, 65, 513),
        (100, 9, 3),
        (0, 5, 5),
        (5, 0, 5),
        (5, 5, 0),
    ],
)
@pytest.mark.parametrize("dtype", ["int8", "int64", "float32", "float64", "complex128"])
def test_block_boundaries(m, n, k, dtype):
    """Sizes crossing the K block (256), the float64 M and N blocks (96, 512), vector lengths."""
    rng = np.random.default_rng(m * 1000 + n + k)
    for la, lb in [("C", "C"), ("rev_inner", "F"), ("step2", "rev_outer")]:
        _check(_operand(rng, (m, k), dtype, la), _operand(rng, (k, n), dtype, lb))


def test_int8_blocks():
    """int8 blocks: M block 768 rows, N block 4096 columns (64 lanes per vector)."""
    rng = np.random.default_rng(5)
    _check(_operand(rng, (800, 3), "int8", "rev_inner"), _operand(rng, (3, 70), "int8", "C"))
    _check(_operand(rng, (2, 3), "int8", "C"), _operand(rng, (3, 4100), "int8", "step2"))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint64"])
def test_integer_wraparound(dtype):
    """Products and sums overflow: the result wraps modulo 2**bits exactly like NumPy."""
    info = np.iinfo(dtype)
    a = np.full((4, 40), info.max, dtype)[:, ::-1]
    b = np.full((40, 5), info.max if info.min == 0 else info.min, dtype)
    _check(a, b)
    _check(a[0], b)  # GEVM
    _check(a, b[:, 0])  # GEMV
    _check(a[0], b[:, 0])  # DOT


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
@pytest.mark.parametrize("shape", [(9, 13, 17), (40, 300, 70)])
def test_int64_32bit_range(dtype, shape):
    """64-bit integers that all fit 32 bits take a faster multiply: exact at the range edges,
    and one element outside the range (in A, or in B) switches back to the full multiply."""
    m, k, n = shape
    rng = np.random.default_rng(11)
    lo, hi = (-(2**31), 2**31 - 1) if dtype == "int64" else (0, 2**31 - 1)
    a = rng.integers(lo, hi, (m, k), endpoint=True).astype(dtype)
    b = rng.integers(lo, hi, (k, n), endpoint=True).astype(dtype)
    a[0, 0], a[-1, -1], b[0, -1] = lo, hi, lo
    _check(a, b)
    _check(a[:, ::-1], b[::-1].T.copy().T)
    for big in (hi + 1, np.iinfo(dtype).max):
        a2 = a.copy()
        a2[m // 2, k // 2] = big
        _check(a2, b)
        b2 = b.copy()
        b2[k - 1, n - 1] = big
        _check(a, b2)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
@pytest.mark.parametrize("s", [8, 12, 16, 24])
def test_shared_operand_grid(dtype, s):
    """The benchmark grid's shapes: LHS, RHS and cross broadcasting with reversed/step-two."""
    rng = np.random.default_rng(s)
    _check(_operand(rng, (1, s, s), dtype, "rev_inner"), _operand(rng, (10, s, s), dtype, "C"))
    _check(_operand(rng, (10, s, s), dtype, "C"), _operand(rng, (1, s, s), dtype, "step2"))
    _check(
        _operand(rng, (2, 1, s, s), dtype, "rev_inner"),
        _operand(rng, (1, 5, s, s), dtype, "rev_inner"),
    )


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int16"])
def test_vector_roles_reversed(dtype):
    """Batched GEMV with a reversed vector, GEVM with a reversed matrix, DOT with reversed."""
    rng = np.random.default_rng(7)
    v = _operand(rng, (130,), dtype, "rev_inner")
    _check(_operand(rng, (3, 20, 130), dtype, "C"), v)
    _check(_operand(rng, (3, 20, 130), dtype, "F"), v)
    _check(v, _operand(rng, (2, 130, 33), dtype, "rev_inner"))
    _check(v, _operand(rng, (2, 130, 33), dtype, "rev_outer"))
    _check(v, _operand(rng, (130,), dtype, "C"))
    _check(v, _operand(rng, (130,), dtype, "rev_inner"))
    _check(_operand(rng, (130,), dtype, "step2"), v)


def test_output_written_through_strided_destination():
    """`@=` into a reversed, transposed view writes through its strides (c_row/c_col signs)."""
    rng = np.random.default_rng(3)
    base = _values(rng, (9, 9), "float64")
    a = _values(rng, (9, 9), "float64")[::-1].T
    ref = base[::-1, ::-1].T @ a
    x = sa.asarray(base.copy())
    y = sa.asarray(a)
    view = x[::-1, ::-1].mT
    with sa.matmul_policy(force="generic"):
        view @= y
    np.testing.assert_allclose(np.asarray(x)[::-1, ::-1].T, ref, atol=1e-12)


# The integer kernels multiply in unsigned types (csrc/core/kernels/generic_real.h, SA_SMUL): a
# 16-bit product promoted to int can pass INT_MAX (34250 * 64640 as uint16), undefined behaviour
# that only -fwrapv used to hide. These values reach every path of the kernel with it: the register
# tile, the row dot products and their scalar tails (K not a multiple of the vector), the
# column updates of a column-major matrix, reversed vectors; under tools/checks/sanitize (UBSan) an
# overflow is a report.
_EXTREMES = {
    dt: sorted(
        {
            int(np.iinfo(dt).min),
            int(np.iinfo(dt).min) + 1,
            int(np.iinfo(dt).max) - 1,
            int(np.iinfo(dt).max),
            0,
            1,
            int(np.iinfo(dt).max) // 2 + 1,
            *(
                [int(np.array(34250).astype(dt)), int(np.array(64640).astype(dt))]
                if np.iinfo(dt).bits == 16
                else []
            ),
            *([-1] if np.iinfo(dt).min < 0 else []),
        }
    )
    for dt in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
}


def _extreme(rng: np.random.Generator, shape: tuple, dtype: str) -> np.ndarray:
    return rng.choice(np.array(_EXTREMES[dtype], dtype=dtype), size=shape)


@pytest.mark.parametrize("dtype", list(_EXTREMES))
@pytest.mark.parametrize("k", [1, 3, 7, 17, 33, 70])
def test_integer_extremes_on_every_path(dtype, k):
    rng = np.random.default_rng(k)
    a = _extreme(rng, (9, k), dtype)
    b = _extreme(rng, (k, 5), dtype)
    x = _extreme(rng, (k,), dtype)
    _check(a, b)  # tiles
    _check(a, x)  # GEMV: dot4, then dot1 for the last row, with scalar tails
    _check(np.asfortranarray(a), x)  # GEMV on a column-major matrix: column updates
    _check(a, x[::-1].copy()[::-1])  # a reversed vector: dot1_rev
    _check(x, b)  # GEVM
    _check(x, x[::-1])  # DOT
    _check(np.stack([a, a[::-1]]), x)  # batched GEMV


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_the_16_bit_product_past_int_max_wraps_like_numpy(dtype):
    # 34250 * 64640 = 2,213,920,000 > INT_MAX: the values, in every tail position.
    for k in range(1, 40):
        a = np.full((5, k), 34250, np.uint16).astype(dtype)
        x = np.full(k, 64640, np.uint16).astype(dtype)
        _check(a, x)
        _check(np.asfortranarray(a), x)
        _check(x, a.T)


@settings(max_examples=100)
@given(
    dtype=st.sampled_from(list(_EXTREMES)),
    mnk=st.tuples(*[st.integers(1, 40)] * 3),
    role=st.sampled_from(["GEMM", "GEMV", "GEVM", "DOT"]),
    layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
    seed=st.integers(0, 2**32 - 1),
)
def test_integer_extremes_match_numpy(dtype, mnk, role, layouts, seed):
    rng = np.random.default_rng(seed)
    m, n, k = mnk
    sa_shape = (k,) if role in ("GEVM", "DOT") else (m, k)
    sb_shape = (k,) if role in ("GEMV", "DOT") else (k, n)
    a = _operand(rng, sa_shape, dtype, layouts[0])
    b = _operand(rng, sb_shape, dtype, layouts[1])
    # the same layouts, every element replaced by an extreme value
    a = a.copy() if layouts[0] == "zero_inner" else a
    b = b.copy() if layouts[1] == "zero_inner" else b
    a[...] = _extreme(rng, a.shape, dtype)
    b[...] = _extreme(rng, b.shape, dtype)
    _check(a, b)


def _before_guard_page(shape: tuple, dtype: str, rng: np.random.Generator):
    """A C-contiguous array of `shape` whose last element ends where a PROT_NONE page begins,
    with the mapping that holds it (keep it alive while the array is used)."""
    import ctypes
    import mmap

    page = mmap.PAGESIZE
    dt = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dt.itemsize
    span = -(-nbytes // page) * page
    m = mmap.mmap(-1, span + page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    prot_none = 0
    assert libc.mprotect(base + span, page, prot_none) == 0, ctypes.get_errno()
    arr = np.frombuffer(m, dtype=dt, count=nbytes // dt.itemsize, offset=span - nbytes)
    arr = arr.reshape(shape)
    arr[...] = _values(rng, shape, dtype)
    return arr, m


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_getaffinity"), reason="Linux mmap")
@pytest.mark.parametrize("dtype", DTYPES)
def test_small_batch_reads_nothing_past_a_partial_panel(dtype):
    """Small batched products read B's last, partial column panel in place with masked loads
    (csrc/core/kernels/generic_real.h, gemm_small): with B's last row ending at a PROT_NONE page,
    a full vector load there would fault. Every N from 1 to 17 crosses a panel edge for every vector
    width; the result must be NumPy's."""
    rng = np.random.default_rng(7)
    for n in range(1, 18):
        for m, k in ((3, 3), (5, 2), (1, 4)):
            b, mapping = _before_guard_page((6, k, n), dtype, rng)
            a = _values(rng, (6, m, k), dtype)
            _check(a, b)
            del b
            mapping.close()
