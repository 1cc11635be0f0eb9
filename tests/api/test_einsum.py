"""einsum and einsum_explain: differential against numpy.einsum over random subscripts (repeated
labels, ellipses, implicit and explicit outputs, broadcast extents of 1), views (reversed,
step-two, transposed, broadcast), every dtype and extents of 0 and 1; the contraction order
against opt_einsum's; views for diagonals; bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import dtype_list, fill, numpy_promote

import stridedarray as sa
from stridedarray._matmul import contraction_path as cp

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means

SETTINGS = settings(max_examples=150, deadline=None)
ALL = dtype_list()
LABELS = "abcdeA"


@st.composite
def _operand(draw, dtype, shape: tuple[int, ...]):
    """An (Array, ndarray) pair of this shape over one buffer, through random views: stored
    in another axis order, every second element, reversed axes, a broadcast axis."""
    nd = len(shape)
    order = draw(st.permutations(range(nd))) if nd else []
    step = [draw(st.sampled_from([1, 1, 2])) for _ in range(nd)]
    bcast = [draw(st.booleans()) and draw(st.booleans()) for _ in range(nd)]
    stored = tuple(1 if bcast[k] else shape[k] * step[k] for k in order)
    base = fill(dtype, stored, draw(st.integers(0, 2**32 - 1)))
    x, ref = sa.asarray(base), base
    key = tuple(slice(None, None, 1 if bcast[k] else step[k]) for k in order)
    x, ref = x[key], ref[key]
    inv = tuple(order.index(k) for k in range(nd))
    x, ref = sa.permute_dims(x, inv), np.transpose(ref, inv)
    for k in range(nd):
        if draw(st.booleans()) and draw(st.booleans()):
            x, ref = sa.flip(x, axis=k), np.flip(ref, axis=k)
    x, ref = sa.broadcast_to(x, shape), np.broadcast_to(ref, shape)
    return x, ref


@st.composite
def einsum_cases(draw, max_operands: int = 4):
    """(subscripts, [(Array, ndarray)], dtype) for one random einsum NumPy accepts."""
    extent = {c: draw(st.sampled_from([0, 1, 1, 2, 3, 4])) for c in LABELS}
    n_ops = draw(st.integers(1, max_operands))
    use_ell = draw(st.booleans()) and draw(st.booleans())
    ell_shape = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    terms, shapes = [], []
    for _ in range(n_ops):
        labs = draw(st.lists(st.sampled_from(LABELS), max_size=4))
        shape = [extent[c] for c in labs]
        # a label of extent 1 in one operand broadcasts against a longer one elsewhere
        shape = [1 if n and draw(st.integers(0, 9)) == 0 else n for n in shape]
        # a repeated label keeps one extent within its operand
        for k, c in enumerate(labs):
            shape[k] = shape[labs.index(c)]
        term = "".join(labs)
        if use_ell and draw(st.booleans()):
            k = draw(st.integers(0, len(ell_shape)))
            at = draw(st.integers(0, len(labs)))
            term = term[:at] + "..." + term[at:]
            shape = shape[:at] + list(ell_shape[len(ell_shape) - k :]) + shape[at:]
        terms.append(term)
        shapes.append(tuple(shape))
    text = ",".join(terms)
    if draw(st.booleans()):
        present = sorted({c for t in terms for c in t if c != "."})
        chosen = draw(st.lists(st.sampled_from(present), unique=True)) if present else []
        out = "".join(draw(st.permutations(chosen)))
        if any("..." in t for t in terms):
            at = draw(st.integers(0, len(out)))
            out = out[:at] + "..." + out[at:]
        text += "->" + out
    dts = [draw(st.sampled_from(ALL))]
    for _ in range(n_ops - 1):
        dts.append(dts[0] if draw(st.booleans()) else draw(st.sampled_from(ALL)))
    ops = [draw(_operand(dt, shape)) for dt, shape in zip(dts, shapes, strict=True)]
    return text, ops


def _expected(text, refs, dt):
    with np.errstate(all="ignore"):
        return np.einsum(text, *[r.astype(dt.np) for r in refs])


def _assert_einsum_equal(out, expected, text, refs, dt):
    assert out.dtype == dt
    assert out.shape == expected.shape, (text, out.shape, expected.shape)
    got = np.asarray(out)
    if dt.kind in "biu":
        np.testing.assert_array_equal(got, expected, err_msg=text)
        return
    # a bound on the rounding: the same sums over the absolute values
    with np.errstate(all="ignore"):
        scale = np.einsum(text, *[np.abs(r).astype(np.float64) for r in refs])
    eps = np.finfo(dt.np).eps
    n = max([1] + [r.size for r in refs])
    np.testing.assert_array_less(np.abs(got - expected), 8 * n * eps * (scale + 1), err_msg=text)


@SETTINGS
@given(case=einsum_cases())
def test_einsum_matches_numpy(case):
    text, ops = case
    xs, refs = [x for x, _ in ops], [r for _, r in ops]
    dt = xs[0].dtype
    try:
        for x in xs[1:]:
            dt = numpy_promote(dt, x.dtype)
    except TypeError:
        event("no common dtype")
        return  # covered by test_mixed_kinds_promote_as_the_namespace
    try:
        expected = _expected(text, refs, dt)
    except ValueError as e:
        with pytest.raises(ValueError):
            sa.einsum(text, *xs)
        event(f"refused as by NumPy: {str(e)[:40]}")
        return
    before = [np.array(r, copy=True) for r in refs]
    out = sa.einsum(text, *xs)
    _assert_einsum_equal(out, expected, text, refs, dt)
    event(f"compared: {len(xs)} operand(s)")
    for r, b in zip(refs, before, strict=True):
        np.testing.assert_array_equal(r, b)  # the operands are unchanged
    e = sa.einsum_explain(text, *xs)
    assert e["out_shape"] == out.shape


@settings(max_examples=60, deadline=None)
@given(case=einsum_cases(max_operands=3), greedy=st.booleans())
def test_every_search_gives_the_same_result(case, greedy):
    text, ops = case
    xs = [x for x, _ in ops]
    if len({x.dtype for x in xs}) > 1 or any(x.dtype.kind in "fc" for x in xs):
        return  # exact comparison: one integer or bool dtype
    try:
        ref = sa.einsum(text, *xs, optimize="optimal")
    except ValueError:
        return
    other = sa.einsum(text, *xs, optimize="greedy" if greedy else False)
    np.testing.assert_array_equal(np.asarray(other), np.asarray(ref))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
def test_integers_wrap_around_as_numpy(dtype):
    a = np.full((3, 40), 100, dtype=dtype)
    b = np.full((40, 2), 3, dtype=dtype)
    out = sa.einsum("ij,jk->ik", sa.asarray(a), sa.asarray(b))
    np.testing.assert_array_equal(np.asarray(out), np.einsum("ij,jk->ik", a, b))
    assert out.dtype == getattr(sa, dtype)


def test_bool_is_or_of_ands():
    a = np.array([[True, False], [False, False]])
    b = np.array([[True, True], [True, False]])
    out = sa.einsum("ij,jk->ik", sa.asarray(a), sa.asarray(b))
    assert out.dtype == sa.bool
    np.testing.assert_array_equal(np.asarray(out), np.einsum("ij,jk->ik", a, b))
    # a chain: each step's count of true products goes back to 0 or 1
    rng = np.random.default_rng(3)
    ops = [rng.random((6, 6)) < 0.3 for _ in range(4)]
    chain = sa.einsum("ij,jk,kl,lm->im", *map(sa.asarray, ops))
    assert chain.dtype == sa.bool
    np.testing.assert_array_equal(np.asarray(chain), np.einsum("ij,jk,kl,lm->im", *ops))


def test_mixed_kinds_promote_as_the_namespace():
    i = sa.asarray([1, 2], dtype=sa.int32)
    f = sa.asarray([0.5, 0.25], dtype=sa.float32)
    out = sa.einsum("i,i->", i, f)
    assert out.dtype == sa.result_type(i, f)
    assert float(out) == 1.0
    assert sa.einsum("i,i->", i, f, dtype=sa.float64).dtype == sa.float64


def test_diagonal_and_transpose_are_views_as_in_numpy():
    a = sa.reshape(sa.arange(9.0), (3, 3))
    d = sa.einsum("ii->i", a)
    t = sa.einsum("ij->ji", a)
    a[1, 1] = 40.0
    assert float(d[1]) == 40.0 and float(t[1, 1]) == 40.0
    np.testing.assert_array_equal(np.asarray(sa.einsum("ii", a)), np.trace(np.asarray(a)))


def test_sublist_form_as_numpy():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    out = sa.einsum(sa.asarray(a), [0, 1], sa.asarray(b), [1, 2], [0, 2])
    np.testing.assert_array_equal(np.asarray(out), np.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    out = sa.einsum(sa.asarray(a), [Ellipsis, 1], sa.asarray(b), [1, 2])
    np.testing.assert_array_equal(np.asarray(out), np.einsum(a, [Ellipsis, 1], b, [1, 2]))


def test_a_path_numpy_gives_is_followed():
    rng = np.random.default_rng(1)
    ops = [rng.standard_normal(s) for s in ((4, 5), (5, 6), (6, 3))]
    path, _ = np.einsum_path("ij,jk,kl->il", *ops, optimize="optimal")
    e = sa.einsum_explain("ij,jk,kl->il", *map(sa.asarray, ops), optimize=path)
    assert e["search"] == "given" and e["path"] == [tuple(p) for p in path[1:]]
    out = sa.einsum("ij,jk,kl->il", *map(sa.asarray, ops), optimize=path)
    np.testing.assert_allclose(np.asarray(out), np.einsum("ij,jk,kl->il", *ops))


@st.composite
def _networks(draw):
    """Random tensor networks of 3 to 10 operands: each label in two operands or in one and
    the output, extents 2 to 6."""
    n = draw(st.integers(3, 10))
    labels = "abcdefghijklmnopqrstuvwxyz"[: draw(st.integers(n, 14))]
    terms: list[set[str]] = [set() for _ in range(n)]
    out = []
    for c in labels:
        k = draw(st.integers(0, n - 1))
        terms[k].add(c)
        if draw(st.integers(0, 4)) == 0:
            out.append(c)
        else:
            j = draw(st.integers(0, n - 1).filter(lambda j, k=k: j != k))
            terms[j].add(c)
    sizes = {c: draw(st.integers(2, 6)) for c in labels}
    return [sorted(t) for t in terms], out, sizes


def _opt_einsum_greedy(net):
    """opt_einsum's greedy path of a network, and its cost (opt_einsum counts as we do)."""
    oe = pytest.importorskip("opt_einsum")
    terms, out, sizes = net
    text = ",".join("".join(t) for t in terms) + "->" + "".join(out)
    shapes = [tuple(sizes[c] for c in t) for t in terms]
    path, info = oe.contract_path(text, *shapes, shapes=True, optimize="greedy")
    return [tuple(p) for p in path], info.opt_cost


@settings(max_examples=60, deadline=None)
@given(net=_networks())
def test_the_order_is_never_costlier_than_opt_einsums_greedy(net):
    terms, out, sizes = net
    path, cost = _opt_einsum_greedy(net)
    ours = cp.plan(
        tuple("".join(t) for t in terms), "".join(out), tuple(sorted(sizes.items())), True
    )
    assert ours.cost <= cost, (net, ours.path, path)


@settings(max_examples=200, deadline=None)
@given(net=_networks())
def test_the_greedy_port_is_opt_einsums_greedy(net):
    # the third greedy candidate is opt_einsum's own rule: the same path, step for step
    terms, out, sizes = net
    path, _ = _opt_einsum_greedy(net)
    sets = [frozenset(t) for t in terms]
    assert cp._opt_einsum_greedy(sets, frozenset(out), dict(sizes)) == path


def test_optimal_beats_numpy_on_its_published_bad_path():
    # numpy#32111: einsum_path's choice for a chain where the cheap order contracts the
    # small end first
    shapes = [(2, 1000), (1000, 1000), (1000, 1000), (1000, 2)]
    e = sa.einsum_explain("ab,bc,cd,de->ae", *[sa.empty(s) for s in shapes])
    assert e["path"][0] in ((0, 1), (2, 3))  # starts from an end, never the big middle pair
    assert e["cost"] == min(
        cp.path_cost(
            [frozenset(t) for t in ("ab", "bc", "cd", "de")],
            frozenset("ae"),
            dict(zip("abcde", (2, 1000, 1000, 1000, 2), strict=True)),
            p,
        )
        for p in ([(0, 1), (0, 1), (0, 1)], [(2, 3), (1, 2), (0, 1)], [(0, 1), (1, 2), (0, 1)])
    )


def test_explain_reads_as_the_run():
    a = sa.ones((64, 32, 16))[:, ::-1]
    b = sa.ones((32, 16, 8))
    e = sa.einsum_explain("ikj,kjl->il", a, b)
    (step,) = [s for s in e["steps"] if s["op"] == "contract"]
    assert (step["M"], step["N"], step["K"]) == (64, 8, 512)
    assert step["matmul"]["route"] == step["route"]
    assert e["flops"] == 2 * 64 * 8 * 512  # a multiply and an add per term
    text = str(e)
    assert "ikj,kjl->il" in text and "route" in text
    assert dict(e) == e.to_dict()


@pytest.mark.parametrize(
    ("args", "exc", "match"),
    [
        (("ij,jk", sa.ones((2, 3))), ValueError, "name 2 operand"),
        (("ij", sa.ones((2, 3, 4))), ValueError, "has 3 axes"),
        (("i1", sa.ones((2, 3))), ValueError, "holds '1'"),
        (("ij->ii", sa.ones((2, 3))), ValueError, "repeat label 'i'"),
        (("ij->k", sa.ones((2, 3))), ValueError, "label 'k' is in no operand"),
        (("i,i", sa.ones(2), sa.ones(3)), ValueError, "extent 2 in one operand and 3"),
        (("ii", sa.ones((2, 3))), ValueError, "repeats label 'i'"),
        (("i...->i", sa.ones((2, 3))), ValueError, "no '...'"),
        (("i->i->i", sa.ones(2)), ValueError, "one '->'"),
        (("i", [1, 2]), TypeError, r"operands\[0\]"),
        ((), ValueError, "at least one operand"),
    ],
)
def test_bad_input_names_what_is_wrong(args, exc, match):
    if not args:
        args = ("",)
    with pytest.raises(exc, match=match):
        sa.einsum(*args)


def test_bad_optimize_is_named():
    with pytest.raises(ValueError, match="optimize must be"):
        sa.einsum("i", sa.ones(2), optimize="fast")
    with pytest.raises(ValueError, match="optimize's"):
        sa.einsum("i,i", sa.ones(2), sa.ones(2), optimize=[(0, 0)])


def test_a_program_is_made_once_per_layout_and_replayed():
    from stridedarray._api import einsum as impl

    a = sa.reshape(sa.arange(12.0), (3, 4))
    b = sa.reshape(sa.arange(20.0), (4, 5))
    first = sa.einsum("ij,jk->ik", a, b)
    info = impl._program.cache_info()
    again = sa.einsum("ij,jk->ik", sa.asarray(np.asarray(a) + 1), b)  # same layout
    assert impl._program.cache_info().hits == info.hits + 1
    np.testing.assert_array_equal(np.asarray(first), np.asarray(a) @ np.asarray(b))
    np.testing.assert_array_equal(np.asarray(again), (np.asarray(a) + 1) @ np.asarray(b))
    # another layout (a reversed view) is another program, and right
    rev = sa.einsum("ij,jk->ik", a[:, ::-1], b)
    assert impl._program.cache_info().misses >= info.misses + 1
    np.testing.assert_array_equal(np.asarray(rev), np.asarray(a)[:, ::-1] @ np.asarray(b))


def test_public_objects():
    for f in (sa.einsum, sa.einsum_explain):
        assert f.__module__ == "stridedarray"
        assert pickle.loads(pickle.dumps(f)) is f
        assert f.__doc__


def test_many_axes():
    # extent-1 axes drop out of every step (and come back in the output's view)
    ones = sa.ones((1,) * 63 + (2,))
    assert sa.einsum("...i,...i->...", ones, ones).shape == (1,) * 63
    # a step that would need more than 64 axes is refused by name, not by the array type
    empty = sa.zeros((0,) * 63 + (3,))
    with pytest.raises(ValueError, match="einsum: a pairwise step takes a product of 65 axes"):
        sa.einsum("...i,...i->...", empty, empty)


@pytest.mark.parametrize("subscripts", [123, b"i", None])
def test_subscripts_of_another_type_are_named(subscripts):
    with pytest.raises(TypeError, match="subscripts must be a str"):
        sa.einsum(subscripts, sa.ones(2))


def _steps(e, op):
    return [s for s in e["steps"] if s["op"] == op]


def test_contracted_axes_in_two_runs_are_read_in_place():
    """pytorch#57121's `ijkl,ljmk->im`: B's contracted axes are two runs (l, j and k) and A's
    one, in another order. B (ten times A's size) is read in place with K as two strided
    axes, A alone is copied; the result is NumPy's."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 5, 6, 3))
    b = rng.standard_normal((3, 5, 40, 6))
    x, y = sa.asarray(a), sa.asarray(b)
    e = sa.einsum_explain("ijkl,ljmk->im", x, y)
    assert [s["shape"] for s in _steps(e, "copy")] == [(4, 5, 6, 3)]  # A, not B
    (step,) = _steps(e, "contract")
    assert step["k_split"] == ("lj", "k") and step["route"] == "generic"
    assert step["matmul"]["k_split"]["K1"] == 15 and step["matmul"]["k_split"]["K2"] == 6
    assert "K read as two axes lj|k" in str(e)
    got = sa.einsum("ijkl,ljmk->im", x, y)
    np.testing.assert_allclose(np.asarray(got), np.einsum("ijkl,ljmk->im", a, b), rtol=1e-12)


def test_two_contracted_axes_are_never_copied():
    """Two contracted labels are two single axes: whatever the storage orders, no copy."""
    rng = np.random.default_rng(6)
    for perm in ((1, 0, 2), (0, 2, 1), (2, 0, 1)):
        a = np.transpose(
            rng.standard_normal(tuple(np.array((9, 5, 4))[list(perm)])), np.argsort(perm)
        )
        b = rng.standard_normal((4, 5, 7))[::-1, :, ::2]
        x, y = sa.asarray(a), sa.asarray(b)
        e = sa.einsum_explain("abc,cbd->ad", x, y)
        assert _steps(e, "copy") == [], perm
        got = sa.einsum("abc,cbd->ad", x, y)
        np.testing.assert_allclose(
            np.asarray(got), np.einsum("abc,cbd->ad", a, b), rtol=1e-12, atol=1e-12
        )


def test_three_runs_are_still_copied():
    """`ijkl,mlkj->im`: B walks A's contracted axes backwards; no cut of them makes two runs
    in both, so the smaller operand is copied, as before."""
    e = sa.einsum_explain("ijkl,mlkj->im", sa.ones((4, 5, 6, 3)), sa.ones((7, 3, 6, 5)))
    assert [s["shape"] for s in _steps(e, "copy")] == [(4, 5, 6, 3)]
    assert _steps(e, "contract")[0]["k_split"] is None


@st.composite
def split_cases(draw):
    """Two operands whose contracted labels (two or three) are stored in random orders, with
    batch and free labels, through random views (`_operand`), every dtype."""
    text = draw(
        st.sampled_from(
            ["abc,cbd->ad", "ijkl,ljmk->im", "ijkl,kmjl->im", "zabc,zcbd->zad", "abcd,dcbe->ae"]
        )
    )
    extent = {c: draw(st.sampled_from([0, 1, 2, 3, 5])) for c in set(text) - set(",->")}
    dt = draw(st.sampled_from(ALL))
    terms = text.split("->")[0].split(",")
    ops = [draw(_operand(dt, tuple(extent[c] for c in t))) for t in terms]
    return text, ops


@settings(max_examples=200, deadline=None)
@given(case=split_cases())
def test_split_contractions_match_numpy(case):
    text, ops = case
    xs, refs = [x for x, _ in ops], [r for _, r in ops]
    dt = xs[0].dtype
    expected = _expected(text, refs, dt)
    out = sa.einsum(text, *xs)
    _assert_einsum_equal(out, expected, text, refs, dt)
    split = [s["k_split"] for s in _steps(sa.einsum_explain(text, *xs), "contract")]
    event(f"K read as two axes: {any(split)}")
