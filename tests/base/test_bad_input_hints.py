"""Errors that say what to do: a NumPy array or a list where an Array is needed names the
argument and how to convert it, a list index suggests an index array or take, linalg.solve
names both shapes, and NumPy's floating-point warnings point at the caller's line."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import stridedarray as sa

A = sa.ones(3)
L = [1.0, 1.0, 1.0]

# (call, the message's start naming the function and argument, the argument's name)
NOT_AN_ARRAY = [  # NumPy ndarrays are taken (tests/interop/test_ndarray_arguments.py); lists not
    (lambda: sa.add(A, L), r"add: x2 must be", "x2"),
    (lambda: sa.add(L, A), r"add: x1 must be", "x1"),
    (lambda: sa.exp(L), r"exp: x must be a stridedarray\.Array, got list", "x"),
    (lambda: sa.sum(L), r"x must be a stridedarray\.Array, got list", "x"),
    (lambda: sa.concat([A, L]), r"arrays\[1\] must be a stridedarray\.Array, got list", None),
    (lambda: sa.matmul(L, A), r"matmul: x1 must be a stridedarray\.Array, got list", "x1"),
    (lambda: sa.astype(L, sa.float32), r"astype: x must be a stridedarray\.Array", "x"),
    (lambda: sa.take(L, sa.asarray([0])), r"take: x must be a stridedarray\.Array", "x"),
    (lambda: sa.zeros_like([1.0]), r"x must be a stridedarray\.Array, got list", "x"),
    (lambda: sa.where(sa.asarray([True]), L, 1.0), r"where: at least one of x1, x2", "x1"),
]


@pytest.mark.parametrize("call, start, arg", NOT_AN_ARRAY)
def test_a_non_array_argument_says_how_to_convert_it(call, start, arg):
    convert = rf"stridedarray\.asarray\({arg}\)" if arg else r"stridedarray\.asarray\(arrays\[1\]\)"
    with pytest.raises(TypeError, match=rf"{start}.*; convert it with {convert}$"):
        call()


@pytest.mark.parametrize("key", [[0, 1], ([0, 1],), (0, [1])])
def test_a_list_index_suggests_an_index_array_or_take(key):
    x = sa.reshape(sa.arange(6), (2, 3))
    with pytest.raises(IndexError, match=r"got list \(index with an array, x\[stridedarray\."):
        x[key]
    with pytest.raises(IndexError, match=r"or use stridedarray\.take\)"):
        x[key]
    # what it suggests works, and gives NumPy's answer
    inner = key if isinstance(key, list) else key[-1]
    if isinstance(key, list):
        assert x[sa.asarray(inner)].tolist() == np.arange(6).reshape(2, 3)[inner].tolist()


@pytest.mark.parametrize(
    "s1, s2, why",
    [
        ((3, 3), (4,), r"a 1-d x2 \(one vector\) must have length 3"),
        ((3, 3), (), r"x2 must have rank >= 1"),
        ((3, 3), (4, 2), r"must have 3 rows"),
        ((3, 3), (2, 3), r"must have 3 rows"),
        ((2, 3, 3), (4, 3, 1), r"the batch shapes \(2,\) and \(4,\) do not broadcast"),
    ],
)
def test_solve_names_both_shapes(s1, s2, why):
    x1 = sa.asarray(np.eye(3) + np.zeros(s1))
    x2 = sa.ones(s2)
    with pytest.raises(ValueError):
        np.linalg.solve(np.asarray(x1), np.asarray(x2))  # NumPy refuses these too
    head = re.escape(f"linalg.solve: x2 of shape {s2} does not fit x1 of shape {s1}: ")
    with pytest.raises(ValueError, match=f"{head}.*{why}") as info:
        sa.linalg.solve(x1, x2)
    assert "gufunc" not in str(info.value) and "solve1" not in str(info.value)


@pytest.mark.parametrize("s1, s2", [((2, 3, 3), (3,)), ((2, 3, 3), (1, 3, 2)), ((3, 3), (5, 3, 2))])
def test_solve_still_takes_the_shapes_numpy_takes(s1, s2):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(s1) + 4 * np.eye(3)
    b = rng.standard_normal(s2)
    np.testing.assert_allclose(
        np.asarray(sa.linalg.solve(sa.asarray(a), sa.asarray(b))), np.linalg.solve(a, b)
    )


def _warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(str(w.message), w.filename) for w in caught]


@pytest.mark.parametrize(
    "numpy_call, ours",
    [
        (lambda: np.log(np.asarray([-1.0, 0.0])), lambda: np.log(sa.asarray([-1.0, 0.0]))),
        (
            lambda: np.add.reduce(np.asarray([1e308, 1e308])),
            lambda: np.add.reduce(sa.asarray([1e308, 1e308])),
        ),
        (lambda: np.ones(1) / np.zeros(1), lambda: np.ones(1) / sa.zeros(1)),
        (
            lambda: np.multiply.outer(np.asarray([1e308]), np.asarray([1e308])),
            lambda: np.multiply.outer(sa.asarray([1e308]), sa.asarray([1e308])),
        ),
    ],
)
def test_numpy_warnings_point_at_the_callers_line(numpy_call, ours):
    expected = _warnings_of(numpy_call)
    got = _warnings_of(ours)
    assert expected and got == expected  # NumPy's messages, attributed to this file
    assert all(f == __file__ for _, f in got)


def test_numpy_error_settings_still_apply_to_our_arrays():
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError, match="invalid value"):
        np.log(sa.asarray([-1.0]))
    with np.errstate(all="ignore"):
        assert _warnings_of(lambda: np.log(sa.asarray([-1.0]))) == []
    seen = []
    with np.errstate(invalid="call", call=lambda err, flag: seen.append(err)):
        np.log(sa.asarray([-1.0]))
    assert seen == ["invalid value"]


def test_our_own_functions_do_not_warn():
    assert _warnings_of(lambda: sa.log(sa.asarray([-1.0, 0.0]))) == []
