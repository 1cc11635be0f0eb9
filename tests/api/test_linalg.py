"""tensordot/vecdot and the linalg extension: differential against NumPy over random views and
dtypes; products go through the matmul core; LinAlgError re-exported; bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import dtype_list, fill, numpy_promote, views

import stridedarray as sa
from stridedarray import linalg as la

SETTINGS = settings(max_examples=30, deadline=None)
NUMERIC = dtype_list("numeric")
FLOAT = dtype_list(["real floating", "complex floating"])


def _close(out: sa.Array, expected, rtol: float | None = None) -> None:
    expected = np.asarray(expected)
    assert out.dtype.np == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    if rtol is None:
        rtol = 1e-3 if expected.dtype in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(np.asarray(out), expected, rtol=rtol, atol=rtol * 10)


@st.composite
def _tensordot_case(draw):
    d1, d2 = draw(st.sampled_from(NUMERIC)), draw(st.sampled_from(NUMERIC))
    p = draw(views(d1, max_dims=4, max_side=4))
    nd = p.ref.ndim
    n = draw(st.integers(0, nd))
    c1 = draw(st.permutations(range(nd)))[:n]
    free2 = draw(st.lists(st.integers(0, 4), max_size=2))
    shape2 = [p.ref.shape[a] for a in c1] + free2
    order = draw(st.permutations(range(len(shape2))))
    shape2 = [shape2[k] for k in order]
    c2 = [order.index(k) for k in range(n)]
    b = fill(d2, tuple(shape2), draw(st.integers(0, 99)))
    if draw(st.booleans()) and b.ndim:
        b = np.flip(b, axis=0)  # a negative-stride second operand
    axes = (list(c1), c2) if draw(st.booleans()) or n == 0 else n
    if isinstance(axes, int) and (list(c1) != list(range(nd - n, nd)) or c2 != list(range(n))):
        axes = (list(c1), c2)
    return p, b, axes


@SETTINGS
@given(case=_tensordot_case())
def test_tensordot_matches_numpy(case):
    p, b_np, axes = case
    try:
        dt = numpy_promote(p.x.dtype, sa.asarray(b_np).dtype)
    except TypeError:
        with pytest.raises(TypeError):
            sa.tensordot(p.x, sa.asarray(b_np), axes=axes)
        return
    out = sa.tensordot(p.x, sa.asarray(b_np), axes=axes)
    with np.errstate(all="ignore"):
        expected = np.tensordot(p.ref.astype(dt.np), b_np.astype(dt.np), axes=axes)
    _close(out, expected)


@SETTINGS
@given(data=st.data())
def test_vecdot_conjugates_x1_and_broadcasts(data):
    d1, d2 = data.draw(st.sampled_from(NUMERIC)), data.draw(st.sampled_from(NUMERIC))
    p = data.draw(views(d1, max_dims=3))
    if p.ref.ndim == 0:
        return
    axis = data.draw(st.integers(-p.ref.ndim, -1))
    shape2 = tuple(
        data.draw(st.sampled_from([1, n])) if k != p.ref.ndim + axis else n
        for k, n in enumerate(p.ref.shape)
    )
    b_np = fill(d2, shape2, 5)
    try:
        dt = numpy_promote(d1, d2)
    except TypeError:
        return
    out = sa.vecdot(p.x, sa.asarray(b_np), axis=axis)
    with np.errstate(all="ignore"):
        expected = np.vecdot(p.ref.astype(dt.np), b_np.astype(dt.np), axis=axis)
    _close(out, expected)
    _close(la.vecdot(p.x, sa.asarray(b_np), axis=axis), expected)


def test_vecdot_conj_and_bad_axis():
    x1, x2 = sa.asarray([1j, 2j, 3j]), sa.asarray([1, 2j, 3])
    assert complex(sa.vecdot(x1, x2)) == 4 - 10j
    with pytest.raises(ValueError, match="contracted axis"):
        sa.vecdot(sa.zeros((2, 3)), sa.zeros((2, 1)))
    with pytest.raises(ValueError, match="differ"):
        sa.tensordot(sa.zeros((2, 3)), sa.zeros((4, 3)), axes=([0], [0]))


@SETTINGS
@given(data=st.data())
def test_matrix_power(data):
    dt = data.draw(st.sampled_from(FLOAT))
    n = data.draw(st.integers(1, 4))
    a = fill(dt, (data.draw(st.integers(0, 2)), n, n), 3) / 50
    a = a + 3 * np.eye(n, dtype=dt.np)  # well conditioned, so inverses are stable
    k = data.draw(st.integers(-3, 5))
    _close(la.matrix_power(sa.asarray(a), k), np.linalg.matrix_power(a, k), rtol=1e-3)


def test_linalg_error_is_numpys():
    assert la.LinAlgError is np.linalg.LinAlgError
    with pytest.raises(la.LinAlgError):
        la.inv(sa.zeros((2, 2)))
    with pytest.raises(la.LinAlgError):
        la.solve(sa.zeros((2, 2)), sa.ones(2))


def _spd(dt, batch, n, seed):
    a = fill(dt, batch + (n, n), seed) / 50
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n, dtype=dt.np)


@SETTINGS
@given(data=st.data())
def test_decompositions_match_numpy(data):
    dt = data.draw(st.sampled_from(FLOAT))
    n = data.draw(st.integers(1, 4))
    batch = tuple(data.draw(st.lists(st.integers(1, 2), max_size=2)))
    a = _spd(dt, batch, n, data.draw(st.integers(0, 99)))
    x = sa.asarray(a)
    if data.draw(st.booleans()):  # a transposed (F-ordered) view
        x = sa.asarray(np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2))
    _close(la.cholesky(x), np.linalg.cholesky(a))
    _close(la.cholesky(x, upper=True), np.linalg.cholesky(a, upper=True))
    _close(la.det(x), np.linalg.det(a), rtol=1e-3)
    _close(la.inv(x), np.linalg.inv(a), rtol=1e-3)
    _close(la.eigvalsh(x), np.linalg.eigvalsh(a), rtol=1e-3)
    w = la.eigvals(x)
    assert w.dtype.kind == "c"
    np.testing.assert_allclose(
        np.sort_complex(np.asarray(w)),
        np.sort_complex(np.linalg.eigvals(a).astype(w.dtype.np)),
        rtol=1e-3,
        atol=1e-3,
    )
    ev = la.eig(x)
    assert ev.eigenvalues.dtype.kind == "c" and ev.eigenvectors.dtype.kind == "c"
    s = la.slogdet(x)
    es = np.linalg.slogdet(a)
    _close(s.sign, es.sign, rtol=1e-3)
    _close(s.logabsdet, es.logabsdet, rtol=1e-3)
    b = fill(dt, batch + (n,), 1)
    _close(la.solve(x, sa.asarray(b[..., :, None])), np.linalg.solve(a, b[..., :, None]), rtol=1e-3)
    _close(la.svdvals(x), np.linalg.svd(a, compute_uv=False), rtol=1e-3)
    u, sv, vh = la.svd(x, full_matrices=False)
    recon = np.asarray(u) * np.asarray(sv)[..., None, :] @ np.asarray(vh)
    np.testing.assert_allclose(recon, a, rtol=1e-3, atol=1e-3)
    q, r = la.qr(x)
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, rtol=1e-3, atol=1e-3)
    _close(la.pinv(x), np.linalg.pinv(a), rtol=1e-3)
    _close(la.matrix_rank(x), np.linalg.matrix_rank(a).astype(np.int64))
    for o in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        _close(la.matrix_norm(x, ord=o), np.linalg.matrix_norm(a, ord=o), rtol=1e-3)


@SETTINGS
@given(data=st.data())
def test_diagonal_is_a_view_and_trace(data):
    p = data.draw(views(st.sampled_from(NUMERIC), max_dims=4))
    if p.ref.ndim < 2:
        with pytest.raises(ValueError, match="rank >= 2"):
            la.diagonal(p.x)
        return
    k = data.draw(st.integers(-5, 5))
    d = la.diagonal(p.x, offset=k)
    np.testing.assert_array_equal(np.asarray(d), np.diagonal(p.ref, k, -2, -1))
    assert d.buffer is p.x.buffer
    acc = {"i": np.int64, "u": np.uint64}.get(p.x.dtype.kind, p.x.dtype.np)
    with np.errstate(all="ignore"):
        expected = np.trace(p.ref, k, -2, -1, dtype=acc)
    _close(la.trace(p.x, offset=k), np.asarray(expected, dtype=acc))


@SETTINGS
@given(data=st.data())
def test_vector_norm_cross_outer(data):
    p = data.draw(views(st.sampled_from(FLOAT), max_dims=3))
    nd = p.ref.ndim
    axis = data.draw(st.none() | st.integers(-nd, nd - 1)) if nd else None
    o = data.draw(st.sampled_from([2, 1, 0, np.inf, -np.inf, 3, -1]))
    if o in (-1, -np.inf) and p.ref.size == 0:
        return  # NumPy's reduction of an empty axis without identity
    with np.errstate(all="ignore"):
        expected = np.linalg.vector_norm(p.ref, axis=axis, ord=o)
    _close(la.vector_norm(p.x, axis=axis, ord=o), expected, rtol=1e-3)
    a, b = fill(p.x.dtype, (2, 3), 1), fill(p.x.dtype, (3,), 2)
    _close(la.cross(sa.asarray(a), sa.asarray(b)), np.cross(a, b))
    with pytest.raises(ValueError, match="extent 3"):
        la.cross(sa.zeros((2,)), sa.zeros((2,)))
    v = sa.asarray(np.array([0.0, -1.0], dtype=p.x.dtype.np))
    out = la.outer(v, v)
    np.testing.assert_array_equal(
        np.signbit(np.asarray(out).real),
        np.signbit(np.multiply.outer(np.asarray(v), np.asarray(v)).real),
    )


def test_decompositions_reject_integers_and_non_square():
    with pytest.raises(TypeError, match="floating"):
        la.inv(sa.asarray([[1, 0], [0, 1]]))
    with pytest.raises(ValueError, match="square"):
        la.det(sa.zeros((2, 3)))
    with pytest.raises(ValueError, match="rank >= 2"):
        la.svd(sa.zeros(3))


@pytest.mark.parametrize("layout", ["contiguous", "reversed", "transposed", "step2"])
def test_tensordot_and_vecdot_hand_views_to_the_core(monkeypatch, layout):
    """The operands reaching the matmul core are views of the inputs (no copies here), so an
    awkward layout is packed once by the core rather than copied per batch item. A copy is
    made only when several contracted axes cannot be merged into one strided K axis."""
    import stridedarray._api.einsum as mm  # the planner's one call of the matmul core

    seen = []

    def spy(real):
        def call(a, b):
            seen.append((a, b))
            return real(a, b)

        return call

    # (matmul_ksplit: the product over two strided K axes, which reads both operands in place)
    monkeypatch.setattr(mm, "matmul", spy(mm.matmul))
    monkeypatch.setattr(mm, "matmul_ksplit", spy(mm.matmul_ksplit))
    base = fill(sa.float64, (4, 6, 5), 1)
    a_np = {
        "contiguous": base,
        "reversed": base[::-1, :, ::-1],
        "transposed": np.swapaxes(base, 0, 2),
        "step2": base[:, ::2, :],
    }[layout]
    a = sa.asarray(a_np)
    # one contracted axis (always one strided K axis), free axes on both sides
    b_np = fill(sa.float64, (a_np.shape[-1], 3, 2), 2)
    b = sa.asarray(b_np)
    _close(sa.tensordot(a, b, axes=1), np.tensordot(a_np, b_np, axes=1))
    v_np = fill(sa.float64, a_np.shape[-1:], 3)
    _close(sa.vecdot(a, sa.asarray(v_np)), np.vecdot(a_np, v_np))
    _close(
        sa.tensordot(a, sa.asarray(v_np), axes=([2], [0])),
        np.tensordot(a_np, v_np, axes=([2], [0])),
    )
    for x, _ in seen:
        assert x.buffer is a.buffer  # x1 reached the core as a view, whatever its strides
    assert seen[0][1].buffer is b.buffer
    # two contracted axes: a view whenever x1's pair is one strided run in some order, and
    # both views when K is read as two axes (always possible with two contracted axes)
    seen.clear()
    c_np = fill(sa.float64, a_np.shape[1:] + (3,), 4)
    c = sa.asarray(c_np)
    _close(sa.tensordot(a, c, axes=2), np.tensordot(a_np, c_np, axes=2))
    if layout in ("contiguous", "transposed"):
        assert seen[0][0].buffer is a.buffer
    if layout == "transposed":
        assert seen[0][1].buffer is c.buffer
