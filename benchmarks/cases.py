"""The cases of the per-call suite, shared by the timing (overhead.py) and the instruction
counts (callgrind.py).

Every case of `--suite overhead` is one statement written against an array namespace `xp`,
run as it is with NumPy, stridedarray and array-api-strict on the same values: `calls` lists
them, `operands` makes their values, `namespace_globals` binds them for one library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import stridedarray as sa
from stridedarray.bench.options import Options

__all__ = [
    "BATCH_SIZES",
    "Call",
    "LabOptions",
    "SHAPES",
    "calls",
    "namespace_globals",
    "namespaces",
    "operands",
    "operands_size",
    "torch_namespace",
]


@dataclass(frozen=True)
class LabOptions(Options):
    """The package's per-call options and the research suites' own."""

    callgrind: bool = False  # --suite overhead only


SHAPES = {16: (4, 4), 1000: (25, 40)}  # element count -> shape of x and y
BATCH_SIZES = (8, 12, 16, 24)


@dataclass(frozen=True)
class Call:
    """One timed statement: its family, the element count of its operands, how to check it."""

    name: str
    family: str
    size: int
    stmt: str
    check: str = "exact"  # "exact" (bit-identical to NumPy), "close" (matmul) or "shape"


# family, statement, check: each row is run at every size in SHAPES.
_SIZED = [
    ("elementwise unary", "xp.exp(x)", "exact"),
    ("elementwise unary", "xp.sqrt(p)", "exact"),
    ("elementwise unary", "xp.abs(x)", "exact"),
    ("elementwise unary", "-x", "exact"),
    ("elementwise unary", "xp.isnan(x)", "exact"),
    ("elementwise binary", "x + y", "exact"),
    ("elementwise binary", "xp.multiply(x, y)", "exact"),
    ("elementwise binary", "x / y", "exact"),
    ("elementwise binary", "x < y", "exact"),
    ("elementwise binary", "xp.maximum(x, y)", "exact"),
    ("elementwise scalar", "x * 2.0", "exact"),
    ("elementwise scalar", "x + 1", "exact"),
    ("elementwise scalar", "2.0 - x", "exact"),
    ("elementwise scalar", "x > 0.5", "exact"),
    ("reduction", "xp.sum(x)", "exact"),
    ("reduction", "xp.sum(x, axis=0)", "exact"),
    ("reduction", "xp.mean(x)", "exact"),
    ("reduction", "xp.mean(x, axis=0)", "exact"),
    ("reduction", "xp.max(x)", "exact"),
    ("reduction", "xp.max(x, axis=0)", "exact"),
    ("reduction", "xp.argmax(x)", "exact"),
    ("reduction", "xp.argmax(x, axis=0)", "exact"),
    ("where", "xp.where(c, x, y)", "exact"),
    ("where", "xp.where(x > 0.5, x, y)", "exact"),
    ("indexing and views", "x[1:3, ::-1]", "exact"),
    ("indexing and views", "x[0]", "exact"),
    ("indexing and views", "x[..., None]", "exact"),
    ("indexing and views", "x.mT", "exact"),
    ("indexing and views", "xp.permute_dims(x, (1, 0))", "exact"),
    ("indexing and views", "xp.flip(x, axis=0)", "exact"),
    ("indexing and views", "xp.reshape(xt, split)", "exact"),
    ("indexing and views", "xp.expand_dims(x, axis=0)", "exact"),
    ("indexing and views", "x[1:3]", "exact"),
    ("view then op", "x[1:3] + y[1:3]", "exact"),
    ("view then op", "x.mT * y.mT", "exact"),
    ("creation", "xp.zeros(shape)", "exact"),
    ("creation", "xp.ones(shape)", "exact"),
    ("creation", "xp.empty(shape)", "shape"),
    ("creation", "xp.full(shape, 1.5)", "exact"),
    ("creation", "xp.arange(nf)", "exact"),
    ("creation", "xp.zeros_like(x)", "exact"),
    ("asarray", "xp.asarray(src)", "exact"),
]


# The conversions between Python values and arrays a user's code makes on small arrays (a
# short list in, a scalar out, a small range): (name, statement) at the 4x4 operands, where
# `x1` is a 1-element array. The list is built inside the statement, by every library alike.
_CONVERSIONS = [
    ("xp.asarray([1.0, 2.0, 3.0])", "xp.asarray([1.0, 2.0, 3.0])"),
    ("float(x[0, 0]) [4x4]", "float(x[0, 0])"),
    ("x1.item() [(1,)]", "x1.item()"),
    ("xp.arange(16)", "xp.arange(16)"),
]


def calls(quick: bool = False) -> list[Call]:
    """Every case: the sized families at each size, the conversions, then matmul (2x2, 8x8,
    batched S < 32)."""
    sizes = (16,) if quick else tuple(SHAPES)
    out = [
        Call(f"{stmt} [{'x'.join(map(str, SHAPES[n]))}]", fam, n, stmt, chk)
        for n in sizes
        for fam, stmt, chk in _SIZED
    ]
    out += [Call(name, "conversions", 16, stmt) for name, stmt in _CONVERSIONS]
    out.append(Call("a2 @ b2 [2x2]", "matmul small", 4, "a2 @ b2", "close"))
    out.append(Call("a8 @ b8 [8x8]", "matmul small", 64, "a8 @ b8", "close"))
    for s in BATCH_SIZES[:1] if quick else BATCH_SIZES:
        out.append(
            Call(
                f"A{s} @ B{s} [(10,{s},{s})]", "matmul batched", 10 * s * s, f"A{s} @ B{s}", "close"
            )
        )
    return out


def operands(size: int, rng: np.random.Generator) -> dict[str, Any]:
    """The NumPy operands every statement of one size may use (same values for every library)."""
    shape = SHAPES.get(size, (4, 4))
    x = rng.standard_normal(shape)
    y = rng.standard_normal(shape) + 2.0  # away from 0: x / y is finite
    ops: dict[str, Any] = {
        "x": x,
        "y": y,
        "p": np.abs(x),
        "c": x > 0,
        "xt": x.T,
        "a2": rng.standard_normal((2, 2)),
        "b2": rng.standard_normal((2, 2)),
        "a8": rng.standard_normal((8, 8)),
        "b8": rng.standard_normal((8, 8)),
        "x1": rng.standard_normal(1),
    }
    for s in BATCH_SIZES:
        ops[f"A{s}"] = rng.standard_normal((10, s, s))
        ops[f"B{s}"] = rng.standard_normal((10, s, s))
    # Constants (not arrays): a shape, a reshape of the transposed view that splits its first
    # axis (always a view), a float count for arange, and an ndarray for asarray.
    n0, n1 = shape[1], shape[0]
    split = (2, n0 // 2, n1) if n0 % 2 == 0 else (1, n0, n1)
    return {"ops": ops, "shape": shape, "split": split, "nf": float(size), "src": x.copy()}


def namespaces() -> dict[str, Any]:
    libs: dict[str, Any] = {"numpy": np, "stridedarray": sa}
    try:
        import array_api_strict

        libs["array-api-strict"] = array_api_strict
    except ImportError:
        pass
    return libs


def torch_namespace() -> Any:
    """PyTorch's Array API namespace (array_api_compat's wrapper when installed), or None:
    counted under callgrind only (--callgrind), when it is installed."""
    try:
        import torch  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    try:
        from array_api_compat import torch as compat  # type: ignore[import-not-found, unused-ignore]

        return compat
    except ImportError:
        return torch


def namespace_globals(xp: Any, base: dict[str, Any]) -> dict[str, Any]:
    g = {
        "xp": xp,
        "shape": base["shape"],
        "split": base["split"],
        "nf": base["nf"],
        "src": base["src"],
    }
    for k, v in base["ops"].items():
        g[k] = v if xp is np else xp.asarray(v)
    return g


def operands_size(call: Call) -> int:
    """The key of `operands` a case runs on: its element count for the sized families, the
    4x4 operands for matmul and the conversions (which bring their own operands)."""
    return call.size if call.size in SHAPES else 16
