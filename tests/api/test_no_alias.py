"""No silent aliasing: every namespace function returns new memory unless it is a view by design.

The standard leaves copy-or-view to the library (design topic "Copy-view behavior and
mutability"). The project's rule (docs/functions.md, "Views and copies"): the functions in VIEWS
below return views; every other function returns an array that shares no memory with its
inputs, so writing into a result can never change an input. `copy=` arguments are honoured:
copy=None may share, copy=True never does.

The table covers every public function of the namespace, of `linalg`, of `fft` and of
`lib.stride_tricks`
(`test_table_covers_the_namespace` fails when a function is added without a row). Each row
calls the function on fresh inputs; every Array in the result (tuples and named tuples are
searched) must share no memory with any input, and after writing two different values into
it the inputs must hold what they held before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from standard_names import BINARY_CATEGORY, UNARY_CATEGORY

import stridedarray as sa

_CATEGORY_INPUT = {
    "all": "f",
    "numeric": "f",
    "real numeric": "f",
    "floating-point": "f",
    "real floating": "f",
    "complex floating": "c",
    "integer": "i",
    "integer or boolean": "i",
    "boolean": "b",
}


def _input(kind: str, shape: tuple = (2, 3)) -> sa.Array:
    """A fresh array of the kind: f float64, c complex128, i int64, b bool, s square float64."""
    n = math.prod(shape)
    if kind == "s":
        return sa.asarray(np.arange(9.0).reshape(3, 3) + 4 * np.eye(3))  # positive definite-ish
    base = np.arange(1, n + 1).reshape(shape)
    if kind == "f":
        return sa.asarray(base / 7.0)
    if kind == "c":
        return sa.asarray(base / 7.0 + 0.5j)
    if kind == "i":
        return sa.asarray(base.astype(np.int64))
    return sa.asarray(base % 2 == 0)


def _spd() -> sa.Array:
    a = np.arange(9.0).reshape(3, 3)
    return sa.asarray(a @ a.T + 3 * np.eye(3))


# name -> callable building (inputs, call): the inputs are the Arrays the call may alias.
Row = Callable[[], tuple[tuple[sa.Array, ...], Callable[[], Any]]]
ROWS: dict[str, Row] = {}


def _row(name: str, kinds: str, call: Callable[..., Any]) -> None:
    def build(kinds: str = kinds, call: Callable[..., Any] = call):
        xs = tuple(_input(k) for k in kinds)
        return xs, (lambda: call(*xs))

    ROWS[name] = build


for _name, _cat in UNARY_CATEGORY.items():
    _row(_name, _CATEGORY_INPUT[_cat], getattr(sa, _name))
for _name, _cat in BINARY_CATEGORY.items():
    k = _CATEGORY_INPUT[_cat]
    _row(_name, k + k, getattr(sa, _name))
_row("clip", "f", lambda x: sa.clip(x, 0.2, 0.5))

# creation (inputs only where an array goes in)
for _name, _call in [
    ("arange", lambda: sa.arange(5)),
    ("empty", lambda: sa.empty((2, 3))),
    ("eye", lambda: sa.eye(3)),
    ("full", lambda: sa.full((2, 3), 1.5)),
    ("linspace", lambda: sa.linspace(0, 1, 5)),
    ("ones", lambda: sa.ones(3)),
    ("zeros", lambda: sa.zeros(3)),
]:
    _row(_name, "", _call)
_row("asarray", "f", lambda x: sa.asarray(x, copy=True))
_row("empty_like", "f", sa.empty_like)
_row("zeros_like", "f", sa.zeros_like)
_row("ones_like", "f", sa.ones_like)
_row("full_like", "f", lambda x: sa.full_like(x, 2.5))
_row("from_dlpack", "f", lambda x: sa.from_dlpack(x, copy=True))
_row("meshgrid", "ff", lambda x, y: sa.meshgrid(sa.reshape(x, (-1,), copy=True), y[0]))
_row("tril", "f", sa.tril)
_row("triu", "f", sa.triu)

# data types, manipulation, searching, sets, sorting, statistics, utilities
_row("astype", "f", lambda x: sa.astype(x, sa.float64))  # copy=True by default
_row("astype_other_dtype", "f", lambda x: sa.astype(x, sa.float32, copy=False))
_row("concat", "f", lambda x: sa.concat([x]))
_row("concat_none", "f", lambda x: sa.concat([x], axis=None))
_row("stack", "f", lambda x: sa.stack([x]))
_row("repeat", "f", lambda x: sa.repeat(x, 1, axis=0))
_row("roll", "f", lambda x: sa.roll(x, 0))
_row("tile", "f", lambda x: sa.tile(x, (1, 1)))
_row("reshape", "f", lambda x: sa.reshape(x, (3, 2), copy=True))
_row("argmax", "f", sa.argmax)
_row("argmin", "f", sa.argmin)
_row("count_nonzero", "f", sa.count_nonzero)
_row("nonzero", "f", sa.nonzero)
_row("searchsorted", "ff", lambda x, y: sa.searchsorted(sa.reshape(x, (-1,)), y))
_row("where", "bff", sa.where)
_row("where_same", "bf", lambda c, x: sa.where(c, x, x))
_row("isin", "ff", sa.isin)
_row("unique_all", "f", sa.unique_all)
_row("unique_counts", "f", sa.unique_counts)
_row("unique_inverse", "f", sa.unique_inverse)
_row("unique_values", "f", sa.unique_values)
_row("sort", "f", sa.sort)
_row("argsort", "f", sa.argsort)


def _no_axes(f: Callable[..., Any]) -> Callable[[sa.Array], Any]:
    return lambda x: f(x, axis=())


for _name in ("max", "min", "sum", "prod", "mean", "std", "var", "all", "any"):
    _row(_name, "f", getattr(sa, _name))
    _row(_name + "_no_axes", "f", _no_axes(getattr(sa, _name)))
# NumPy's extensions (stridedarray/_api/numpy_extensions.py)
for _name in (
    "nanmax",
    "nanmin",
    "nansum",
    "nanprod",
    "nanmean",
    "nanstd",
    "nanvar",
    "nanmedian",
    "median",
):
    _row(_name, "f", getattr(sa, _name))
    _row(_name + "_no_axes", "f", _no_axes(getattr(sa, _name)))
_row("nanargmax", "f", sa.nanargmax)
_row("nanargmin", "f", sa.nanargmin)
_row("nancumsum", "f", lambda x: sa.nancumsum(x, axis=1))
_row("cumsum", "f", sa.cumsum)
_row("cumprod", "f", sa.cumprod)
_row("quantile", "f", lambda x: sa.quantile(x, [0.5, 0.9], axis=0))
_row("nanquantile", "f", lambda x: sa.nanquantile(x, 0.5))
_row("cumsum_axis", "f", lambda x: sa.cumsum(x, axis=0))
for _mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
    _row("pad_" + _mode, "f", lambda x, m=_mode: sa.pad(x, 0, m))
_row("cumulative_sum", "f", lambda x: sa.cumulative_sum(x, axis=1))
_row("cumulative_prod", "f", lambda x: sa.cumulative_prod(x, axis=1))
_row("cumulative_sum_initial", "f", lambda x: sa.cumulative_sum(x, axis=1, include_initial=True))
_row("diff", "f", sa.diff)
_row("diff_n0", "f", lambda x: sa.diff(x, n=0))
_row("diff_n0_prepend", "ff", lambda x, y: sa.diff(x, n=0, prepend=y))
_row("take", "fi", lambda x, i: sa.take(x, i[0] % 2, axis=0))
_row("take_int", "f", lambda x: sa.take(x, 1, axis=1))  # one index, beyond the standard
_row("take_along_axis", "fi", lambda x, i: sa.take_along_axis(x, i % 2, axis=0))
_row("matmul", "ff", lambda x, y: sa.matmul(x, y.mT))
_row("tensordot", "ff", lambda x, y: sa.tensordot(x, y, axes=0))
_row("tensordot_2", "ff", lambda x, y: sa.tensordot(x, y, axes=2))
_row("einsum", "ff", lambda x, y: sa.einsum("ij,ij->ij", x, y))
_row("einsum_sum", "f", lambda x: sa.einsum("ij->j", x))
_row("vecdot", "ff", sa.vecdot)
_row("gradient", "f", sa.gradient)
_row("gradient_axis", "f", lambda x: sa.gradient(x, 2.0, axis=1, edge_order=2))

# linalg
for _name, _kinds, _call in [
    ("linalg.cholesky", "", lambda: sa.linalg.cholesky(_spd())),
    ("linalg.cross", "ff", sa.linalg.cross),
    ("linalg.det", "s", sa.linalg.det),
    ("linalg.eig", "s", sa.linalg.eig),
    ("linalg.eigh", "s", sa.linalg.eigh),
    ("linalg.eigvals", "s", sa.linalg.eigvals),
    ("linalg.eigvalsh", "s", sa.linalg.eigvalsh),
    ("linalg.inv", "s", sa.linalg.inv),
    ("linalg.matmul", "ff", lambda x, y: sa.linalg.matmul(x, y.mT)),
    ("linalg.matrix_norm", "f", sa.linalg.matrix_norm),
    ("linalg.matrix_power", "s", lambda x: sa.linalg.matrix_power(x, 1)),
    ("linalg.matrix_power_0", "s", lambda x: sa.linalg.matrix_power(x, 0)),
    ("linalg.matrix_rank", "f", sa.linalg.matrix_rank),
    ("linalg.outer", "ff", lambda x, y: sa.linalg.outer(x[0], y[0])),
    ("linalg.pinv", "f", sa.linalg.pinv),
    ("linalg.qr", "f", sa.linalg.qr),
    ("linalg.slogdet", "s", sa.linalg.slogdet),
    ("linalg.solve", "ss", sa.linalg.solve),
    ("linalg.svd", "f", sa.linalg.svd),
    ("linalg.svdvals", "f", sa.linalg.svdvals),
    ("linalg.tensordot", "ff", lambda x, y: sa.linalg.tensordot(x, y, axes=0)),
    ("linalg.trace", "f", sa.linalg.trace),
    ("linalg.vecdot", "ff", sa.linalg.vecdot),
    ("linalg.vector_norm", "f", sa.linalg.vector_norm),
]:
    _row(_name, _kinds, _call)

# fft: every transform on float or complex input, with n equal to the length (no padding)
for _name in ("fft", "ifft", "fftn", "ifftn", "hfft"):
    _row("fft." + _name, "c", getattr(sa.fft, _name))
for _name in ("rfft", "rfftn", "ihfft"):
    _row("fft." + _name, "f", getattr(sa.fft, _name))
_row("fft.irfft", "c", lambda x: sa.fft.irfft(x, n=4))
_row("fft.irfftn", "c", lambda x: sa.fft.irfftn(x, s=(2, 4)))
_row("fft.fftfreq", "", lambda: sa.fft.fftfreq(4))
_row("fft.rfftfreq", "", lambda: sa.fft.rfftfreq(4))
_row("fft.fftshift", "f", sa.fft.fftshift)
_row("fft.ifftshift", "f", sa.fft.ifftshift)
_row("fft.fftshift_no_axes", "f", lambda x: sa.fft.fftshift(x, axes=()))

# Views by design (docs/functions.md, "Views and copies"): a new descriptor over the input's
# storage, and writing through it is writing into the input. Each is checked to BE a view,
# so that this list stays true.
VIEWS: dict[str, Callable[[sa.Array], Any]] = {
    "permute_dims": lambda x: sa.permute_dims(x, (1, 0)),
    "matrix_transpose": sa.matrix_transpose,
    "linalg.matrix_transpose": sa.linalg.matrix_transpose,
    "moveaxis": lambda x: sa.moveaxis(x, 0, 1),  # a permute_dims
    "flip": sa.flip,
    "broadcast_to": lambda x: sa.broadcast_to(x, (4, 2, 3)),
    "broadcast_arrays": lambda x: sa.broadcast_arrays(x, sa.ones((4, 1, 1))),
    "expand_dims": sa.expand_dims,
    "squeeze": lambda x: sa.squeeze(x[:1], axis=0),
    "reshape_view": lambda x: sa.reshape(x, (3, 2)),  # copy=None: a view when strides allow
    "unstack": sa.unstack,  # basic indexing, one index per result
    "linalg.diagonal": sa.linalg.diagonal,  # a view with stride row + column
    "asarray_view": sa.asarray,  # copy=None shares whenever it can (the standard's rule)
    "asarray_copy_false": lambda x: sa.asarray(x, copy=False),
    "astype_copy_false": lambda x: sa.astype(x, sa.float64, copy=False),
    "from_dlpack_view": sa.from_dlpack,  # zero-copy import is the point of DLPack
    "einsum_view": lambda x: sa.einsum("ij->ji", x),  # one operand, nothing summed (NumPy's)
    "lib.stride_tricks.sliding_window_view": lambda x: sa.lib.stride_tricks.sliding_window_view(
        x, 2, axis=1, writeable=True
    ),
}

# Functions whose results are not arrays: nothing to alias.
NOT_ARRAYS = {
    "broadcast_shapes",
    "can_cast",
    "finfo",
    "iinfo",
    "isdtype",
    "result_type",
    "blas_info",
    "einsum_explain",
    "matmul_explain",
    "matmul_policy",
    "get_num_threads",
    "set_num_threads",
}


def _public() -> set[str]:
    names = {
        n
        for n in dir(sa)
        if not n.startswith("_")
        and callable(getattr(sa, n))
        and not isinstance(getattr(sa, n), type)
    }
    names -= {n for n in names if isinstance(getattr(sa, n), sa.bool.__class__)}  # dtypes
    names |= {"linalg." + n for n in sa.linalg.__all__ if n != "LinAlgError"}
    names |= {"fft." + n for n in sa.fft.__all__}
    tricks = sa.lib.stride_tricks  # (its broadcast_* are the namespace's own, covered above)
    names |= {"lib.stride_tricks." + n for n in tricks.__all__ if not hasattr(sa, n)}
    return names


def _covered() -> set[str]:
    # a row "name_variant" covers `name` when `name` is public
    public = _public()
    out = set()
    for key in [*ROWS, *VIEWS, *NOT_ARRAYS]:
        while key not in public and "_" in key:
            key = key.rsplit("_", 1)[0]
        out.add(key)
    return out


def test_table_covers_the_namespace() -> None:
    missing = _public() - _covered()
    assert not missing, f"functions without a row in test_no_alias.py: {sorted(missing)}"


def _arrays(result: Any) -> Iterator[sa.Array]:
    if isinstance(result, sa.Array):
        yield result
    elif isinstance(result, tuple):
        for r in result:
            yield from _arrays(r)


def _sentinels(r: sa.Array) -> tuple[Any, Any]:
    kind = r.dtype.kind
    if kind == "b":
        return True, False
    if kind in "iu":
        return 97, 3
    return -1234.5, 0.125


def _shares(a: sa.Array, b: sa.Array) -> bool:
    return bool(a.size and b.size and np.shares_memory(np.asarray(a), np.asarray(b)))


@pytest.mark.parametrize("name", sorted(ROWS))
def test_result_is_new_memory(name: str) -> None:
    """The result shares no memory with the inputs; writing into it leaves them unchanged."""
    inputs, call = ROWS[name]()
    before = [np.array(np.asarray(x), copy=True) for x in inputs]
    results = list(_arrays(call()))
    assert results, f"{name} returned no array"
    for r in results:
        for i, x in enumerate(inputs):
            assert not _shares(r, x), f"{name}: the result shares memory with input {i}"
        if r.size == 0:
            continue
        for value in _sentinels(r):
            r[...] = value
            for i, (x, b) in enumerate(zip(inputs, before, strict=True)):
                assert np.array_equal(np.asarray(x), b, equal_nan=True), (
                    f"{name}: writing into the result changed input {i}"
                )


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_by_design_are_views(name: str) -> None:
    """The exempt functions really return views (so the exemption list stays honest)."""
    x = _input("f")
    results = list(_arrays(VIEWS[name](x)))
    assert results and _shares(results[0], x)
