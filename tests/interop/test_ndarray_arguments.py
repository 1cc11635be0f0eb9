"""Namespace functions take NumPy ndarrays wherever they take an array, as JAX's functions do
(docs/interop.md, "NumPy arrays as arguments"): the same result as for the equal Array, as an
Array, zero-copy; lists and other non-arrays are still refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from standard_names import UNARY_CATEGORY
from strategies import views

import stridedarray as sa

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

# name -> call(a, b): `a` is the array under test, `b` an Array of the same values (a second
# operand); every call is made once with a = the Array and once with a = the ndarray.
CALLS = {
    **{name: (lambda f: lambda a, b: f(a))(getattr(sa, name)) for name in UNARY_CATEGORY},
    "add(a, b)": lambda a, b: sa.add(a, b),
    "add(b, a)": lambda a, b: sa.add(b, a),
    "add(a, a)": lambda a, b: sa.add(a, a),
    "multiply(a, 2)": lambda a, b: sa.multiply(a, 2),
    "less(1, a)": lambda a, b: sa.less(1, a),
    "atan2(a, b)": lambda a, b: sa.atan2(a, b),
    "where(b > 0, a, 0)": lambda a, b: sa.where(sa.astype(b, sa.bool), a, 0),
    "where(a != 0, b, b)": lambda a, b: sa.where(np.asarray(a != 0), b, b),  # NumPy's or ours
    "sum": lambda a, b: sa.sum(a),
    "prod axis 0": lambda a, b: sa.prod(a, axis=0) if np.ndim(a) else sa.prod(a),
    "max": lambda a, b: sa.max(a),
    "mean": lambda a, b: sa.mean(a),
    "std": lambda a, b: sa.std(a),
    "all": lambda a, b: sa.all(a),
    "any": lambda a, b: sa.any(a, keepdims=True),
    "argmax": lambda a, b: sa.argmax(a),
    "cumulative_sum": lambda a, b: sa.cumulative_sum(sa.reshape(a, (-1,))),
    "sort": lambda a, b: sa.sort(a),
    "argsort": lambda a, b: sa.argsort(a),
    "flip": lambda a, b: sa.flip(a),
    "permute_dims": lambda a, b: sa.permute_dims(a, tuple(range(np.ndim(a)))[::-1]),
    "reshape": lambda a, b: sa.reshape(a, (-1,)),
    "expand_dims": lambda a, b: sa.expand_dims(a, axis=0),
    "broadcast_to": lambda a, b: sa.broadcast_to(a, (2, *np.shape(a))),
    "roll": lambda a, b: sa.roll(a, 1),
    "concat": lambda a, b: sa.concat([b, a], axis=None),
    "stack": lambda a, b: sa.stack([a, b]),
    "unique_values": lambda a, b: sa.unique_values(a),
    "zeros_like": lambda a, b: sa.zeros_like(a),
    "astype": lambda a, b: sa.astype(a, sa.complex128),
    "take": lambda a, b: sa.take(sa.reshape(a, (-1,)), np.asarray([0, -1])),
    "isin": lambda a, b: sa.isin(a, b),
    "tensordot": lambda a, b: sa.tensordot(a, b, axes=np.ndim(a)),
    "einsum": lambda a, b: sa.einsum("...,...->...", a, b),
    "matmul": lambda a, b: sa.matmul(sa.reshape(a, (1, -1)), sa.reshape(b, (-1, 1))),
    "vecdot": lambda a, b: sa.vecdot(a, b) if np.ndim(a) else sa.multiply(a, b),
    "matrix_transpose": lambda a, b: sa.matrix_transpose(sa.reshape(a, (1, -1))),
    "linalg.vector_norm": lambda a, b: sa.linalg.vector_norm(a),
    "fft.fft": lambda a, b: sa.fft.fft(sa.reshape(a, (-1,))),
    "result_type": lambda a, b: sa.asarray(0, dtype=sa.result_type(a, sa.int8)),
}


def _outcome(call, a, b):
    try:
        r = call(a, b)
    except Exception as e:  # noqa: BLE001 - the same exception is required of both
        return type(e)
    return [np.asarray(v) for v in r] if isinstance(r, tuple) else np.asarray(r)


@settings(max_examples=60, deadline=None)
@given(p=views())
@pytest.mark.parametrize("name", CALLS)
def test_an_ndarray_argument_gives_what_the_equal_array_gives(name, p):
    call = CALLS[name]
    want = _outcome(call, p.x, p.x)
    try:
        got_raw = call(p.ref, p.x)
    except Exception as e:  # noqa: BLE001
        assert isinstance(want, type) and isinstance(e, want), (name, e)
        return
    assert not isinstance(want, type), (name, want)
    got = [np.asarray(v) for v in got_raw] if isinstance(got_raw, tuple) else np.asarray(got_raw)
    for r in got_raw if isinstance(got_raw, tuple) else (got_raw,):
        assert isinstance(r, sa.Array), type(r)
    for g, w in zip(got, want, strict=True) if isinstance(got, list) else ((got, want),):
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.dtype.kind in "fc":
            # NumPy's loops for a view and for its wrapped twin may differ in the last bit
            # (SIMD or not, by stride and alignment: float32 sinh)
            rtol = 4 * np.finfo(g.dtype).eps
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


def test_views_of_an_ndarray_are_zero_copy():
    n = np.arange(24.0).reshape(2, 3, 4)[:, ::-1, ::2]
    for r in (
        sa.flip(n),
        sa.permute_dims(n, (2, 0, 1)),
        sa.expand_dims(n, axis=0),
        sa.broadcast_to(n, (2, *n.shape)),
    ):
        assert np.shares_memory(np.asarray(r), n)


@pytest.mark.parametrize(
    "call",
    [
        lambda v: sa.sin(v),
        lambda v: sa.sum(v),
        lambda v: sa.add(v, v),
        lambda v: sa.tensordot(v, v, axes=1),
        lambda v: sa.matmul(v, v),
        lambda v: sa.reshape(v, (-1,)),
        lambda v: sa.concat([v, v]),
        lambda v: sa.astype(v, sa.float32),
        lambda v: sa.sort(v),
        lambda v: sa.fft.fft(v),
    ],
)
def test_lists_are_still_refused_and_unsupported_ndarrays_name_the_argument(call):
    with pytest.raises(TypeError, match="must be"):
        call([1.0, 2.0])
    with pytest.raises(TypeError, match=r"(x|x1|arrays\[0\]): unsupported dtype float16"):
        call(np.ones(2, dtype=np.float16))


def test_operators_leave_ndarrays_to_numpy():
    # Unchanged: `x @= n` and `x += n` are the operators' business, not the functions'.
    x, n = sa.ones((2, 2)), np.ones((2, 2))
    assert isinstance(x + n, sa.Array) and isinstance(n + x, sa.Array)
    assert isinstance(x @ n, sa.Array) and isinstance(n @ x, sa.Array)
