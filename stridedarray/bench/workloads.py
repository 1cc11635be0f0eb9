"""The benchmark workloads, as a flat list of cases (docs/benchmark-method.md lists them).

A case builds its operands once, as NumPy arrays with the exact layout under test; the
stridedarray side wraps the very same memory zero-copy (`asarray` keeps the strides), so both
libraries multiply the same values in the same layout. Where a case has a *limit*, it is NumPy
on contiguous copies of the same values: the BLAS bound that packing can at best reach.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Case", "Operands", "all_cases", "GRID_SIZES", "QUICK_SIZES"]

GRID_SIZES = (8, 12, 16, 24, 32, 64, 128, 256)
QUICK_SIZES = (8, 32)
BATCH = 10  # matrices in the batch of a grid cell: a reused operand serves 10 products


@dataclass(frozen=True)
class Operands:
    """The two operands of one case, plus their contiguous copies when the case has a limit."""

    a: np.ndarray
    b: np.ndarray
    limit: tuple[np.ndarray, np.ndarray] | None = None


@dataclass(frozen=True)
class Case:
    """One benchmark cell: a name, the line (config) it belongs to in its group, and a size."""

    name: str
    group: str
    config: str
    size: int
    dtype: str
    make: Callable[[np.random.Generator], Operands]
    # The size measure the vector-role target is stated in (K*N, M*K or K); else size**2.
    work: int = 0


def _rand(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype.startswith("int"):
        return rng.integers(-100, 100, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _strided(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, kind: str) -> np.ndarray:
    """A view of `shape` whose last axis is not BLAS-compatible: reversed or step two."""
    if kind == "rev":
        return _rand(rng, shape, dtype)[..., ::-1]
    if kind == "step2":
        return _rand(rng, shape[:-1] + (2 * shape[-1],), dtype)[..., ::2]
    raise ValueError(f"kind must be 'rev' or 'step2', got {kind!r}")


def _layout(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, kind: str) -> np.ndarray:
    """A BLAS-compatible view of `shape`: C order, F order per matrix, or a padded row stride."""
    if kind == "C":
        return _rand(rng, shape, dtype)
    if kind == "F":
        return _rand(rng, shape[:-2] + (shape[-1], shape[-2]), dtype).swapaxes(-1, -2)
    if kind == "padded":
        return _rand(rng, shape[:-1] + (shape[-1] + 3,), dtype)[..., : shape[-1]]
    raise ValueError(f"kind must be 'C', 'F' or 'padded', got {kind!r}")


def _with_limit(a: np.ndarray, b: np.ndarray) -> Operands:
    return Operands(a, b, (np.ascontiguousarray(a), np.ascontiguousarray(b)))


# Grid shapes: (lhs shape, rhs shape, which operands get the incompatible layout).
_BCAST = {
    "lhs": (lambda s: (1, s, s), lambda s: (BATCH, s, s), (True, False)),
    "rhs": (lambda s: (BATCH, s, s), lambda s: (1, s, s), (False, True)),
    "cross": (lambda s: (2, 1, s, s), lambda s: (1, 5, s, s), (True, True)),
}


def _grid_case(dtype: str, bcast: str, kind: str, s: int) -> Case:
    lshape, rshape, (lbad, rbad) = _BCAST[bcast]

    def make(rng: np.random.Generator) -> Operands:
        a = _strided(rng, lshape(s), dtype, kind) if lbad else _rand(rng, lshape(s), dtype)
        b = _strided(rng, rshape(s), dtype, kind) if rbad else _rand(rng, rshape(s), dtype)
        return _with_limit(a, b)

    short = "f32" if dtype == "float32" else "f64"
    config = f"{short} {bcast} {kind}"
    return Case(f"grid {config} S={s}", "grid", config, s, dtype, make, s * s)


def _blas_case(dtype: str, kind: str, s: int) -> Case:
    def make(rng: np.random.Generator) -> Operands:
        return Operands(
            _layout(rng, (BATCH, s, s), dtype, kind), _layout(rng, (BATCH, s, s), dtype, kind)
        )

    short = "f32" if dtype == "float32" else "f64"
    config = f"{short} {kind}"
    return Case(f"blas {config} S={s}", "blas", config, s, dtype, make, s * s)


def _reused() -> Case:
    """One reversed matrix reused by a batch of 64: packed once, then 64 BLAS products."""

    def make(rng: np.random.Generator) -> Operands:
        return _with_limit(
            rng.standard_normal((1, 256, 256))[:, :, ::-1], rng.standard_normal((64, 256, 256))
        )

    return Case(
        "reused f64 lhs rev (1,256,256)[:,:,::-1] @ (64,256,256)",
        "reused",
        "f64 lhs rev",
        256,
        "float64",
        make,
        256 * 256,
    )


def _vector_cases(sizes: tuple[int, ...], dot_sizes: tuple[int, ...]) -> list[Case]:
    cases = []
    for s in sizes:
        # Batched GEMV, one reversed vector reused by the 10 matrices.
        def gemv(rng: np.random.Generator, s: int = s) -> Operands:
            return Operands(_rand(rng, (BATCH, s, s), "float64"), _rand(rng, (s,), "float64")[::-1])

        # GEVM with reversed matrices: (K,) @ (10,K,N)[..., ::-1].
        def gevm(rng: np.random.Generator, s: int = s) -> Operands:
            return Operands(
                _rand(rng, (s,), "float64"), _rand(rng, (BATCH, s, s), "float64")[..., ::-1]
            )

        cases.append(
            Case(
                f"vector gemv rev-vector S={s}",
                "vector",
                "gemv rev-vector",
                s,
                "float64",
                gemv,
                s * s,
            )
        )
        cases.append(
            Case(
                f"vector gevm rev-matrix S={s}",
                "vector",
                "gevm rev-matrix",
                s,
                "float64",
                gevm,
                s * s,
            )
        )
    for k in dot_sizes:

        def dot(rng: np.random.Generator, k: int = k) -> Operands:
            return Operands(_rand(rng, (k,), "float64")[::-1], _rand(rng, (k,), "float64")[::-1])

        cases.append(Case(f"vector dot rev K={k}", "vector", "dot rev", k, "float64", dot, k))
    return cases


def _int_case(dtype: str, s: int) -> Case:
    def make(rng: np.random.Generator) -> Operands:
        return Operands(_rand(rng, (s, s), dtype), _rand(rng, (s, s), dtype))

    return Case(f"int {dtype} S={s}", "int", dtype, s, dtype, make, s * s)


def _overhead_case(s: int) -> Case:
    def make(rng: np.random.Generator) -> Operands:
        return Operands(_rand(rng, (s, s), "float64"), _rand(rng, (s, s), "float64"))

    return Case(f"overhead f64 {s}x{s}", "overhead", "f64", s, "float64", make, s * s)


def all_cases(quick: bool = False) -> list[Case]:
    """Every case (full), or a CI-sized subset touching every group (quick)."""
    sizes = QUICK_SIZES if quick else GRID_SIZES
    cases: list[Case] = [] if quick else [_reused()]
    for dtype in ("float32", "float64"):
        for bcast in _BCAST:
            for kind in ("rev", "step2"):
                cases += [_grid_case(dtype, bcast, kind, s) for s in sizes]
    for dtype in ("float32", "float64"):
        for kind in ("C", "F", "padded"):
            cases += [_blas_case(dtype, kind, s) for s in sizes]
    if quick:
        cases += _vector_cases((16, 64), (256, 4096))
        cases += [_int_case(d, 16) for d in ("int32", "int64")]
    else:
        cases += _vector_cases((16, 32, 64, 128, 256, 512), (256, 1024, 4096, 16384, 65536))
        cases += [_int_case(d, s) for d in ("int32", "int64") for s in (16, 64, 128, 256)]
    cases += [_overhead_case(s) for s in (2, 8)]
    return cases
