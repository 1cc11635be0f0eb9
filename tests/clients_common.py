"""What the client-library tests share: the (3, 4) bases of each kind, the views taken of
them, and the check that a client's result on our arrays equals its result on NumPy's."""

from __future__ import annotations

import numpy as np

import stridedarray as sa

RNG = np.random.default_rng(20261101)
BASE = {  # (3, 4) NumPy bases of each kind; our arrays are built from copies of them
    "float64": RNG.standard_normal((3, 4)),
    "int64": RNG.integers(-50, 50, (3, 4)),
    "bool": RNG.integers(0, 2, (3, 4)).astype(bool),
    "complex128": RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4)),
    "float32": RNG.standard_normal((3, 4)).astype(np.float32),
}
VIEWS = {  # the same view of a (3, 4) base, for NumPy and for stridedarray
    "contiguous": lambda a: a,
    "reversed": lambda a: a[::-1],
    "reversed both": lambda a: a[::-1, ::-1],
    "step": lambda a: a[::2, 1::2],
    "transposed": lambda a: a.T,
}


def pair(kind: str = "float64", view: str = "contiguous") -> tuple[sa.Array, np.ndarray]:
    """(our view, the equal NumPy view) of BASE[kind]; ours has its own buffer."""
    n = BASE[kind]
    return VIEWS[view](sa.asarray(n.copy())), VIEWS[view](n)


def check_same(got, want, *, array_type: type | None = sa.Array) -> None:
    """`got` (from our arrays) equals `want` (from NumPy's) in dtype and values (integers and
    bools exactly), tuples item by item, and each array in `got` is an `array_type`."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            check_same(g, w, array_type=array_type)
        return
    if array_type is not None:
        assert type(got) is array_type, f"expected {array_type.__name__}, got {type(got)}"
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape
    if g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
