"""The matmul policy table: every crossover constant of the route selector, in one place.

The table is mirrored field for field by the C struct `sa_mm_policy` (csrc/sa_matmul.h) and
passed read-only to every matmul call, so the C core holds no mutable global state.

The shipped values were measured on the project's reference machine (2 cores, x86-64) by
`python -m stridedarray.tune`, which replaced the seed's Apple M1/Accelerate values (raw data
in docs/benchmarks.md). The tuning tool re-measures them on any machine and writes a JSON
file `{"key": int, ...}` with the keys of `DEFAULT_POLICY`. At import the file named by the
environment variable `STRIDEDARRAY_POLICY` is loaded, else the user's file
`$XDG_CONFIG_HOME/stridedarray/policy.json` (`~/.config/stridedarray/policy.json` when
XDG_CONFIG_HOME is unset) when it exists; the tuning tool writes to the same place. Missing
keys keep their defaults; a file that cannot be used is reported with a warning and ignored
as a whole.

`matmul_policy(force=None, **thresholds)` changes the policy for a block of code. It is a
contextvars-based context manager, so threads and async tasks do not see each other's changes.
"""

from __future__ import annotations

import contextvars
import json
import os
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ._ffi import ffi

__all__ = ["DEFAULT_POLICY", "BACKENDS", "matmul_policy", "current_policy", "load_policy_file",
           "policy_path", "user_policy_path"]

# key -> value measured on the reference machine. Keys are stable: the tuning tool and the
# JSON policy file use them.
DEFAULT_POLICY: dict[str, int] = {
    "dot_blas_min_k": 8,               # DOT direct BLAS when K >= this
    "gemm_blas_min": 2,                # GEMM direct BLAS when min(M, N, K) >= this
    "gemm_pack_min": 32,               # GEMM pack-once BLAS when min(M, N, K) >= this
    "gevm_compact_min_kn": 524288,     # unbatched GEVM, dense matrix: K*N >= this
    "gevm_blas_min": 1024,             # unbatched GEVM, padded matrix: min(K, N) >= this
    "gemv_blas_min": 384,              # unbatched GEMV: min(M, K) >= this
    "batched_vec_blas_min_elems": 1024,  # batched GEMV/GEVM direct: matrix elements >= this
    "vec_pack_always_min_elems": 65536,  # reused non-positive-stride vector: pack when the
    "vec_pack_cond_min_elems": 9216,    #   matrix has >= always elements, or >= cond elements
    "vec_pack_cond_min_batch": 16,      #   and batch >= cond_batch, or >= floor elements and
    "vec_pack_floor_min_elems": 9216,   #   output elements >= floor_out
    "vec_pack_floor_min_out": 128,
    "blas_enabled": 1,                 # 0: both BLAS backends decline "unavailable"
    # 1: a uniform GEMM batch is ONE ?gemm_batch_strided call (only while OpenBLAS runs one
    # thread). Off by default: measured here at one thread it was no faster than one ?gemm per
    # matrix (1.0-1.3x slower for S = 4..48); kept as a switch for the tuning tool.
    "gemm_batch_strided": 0,
}

# Backends in dispatch order; the index is the C backend code (SA_MM_BLAS, ...).
BACKENDS: tuple[str, ...] = ("blas", "pack_blas", "generic", "reference")


def user_policy_path() -> Path:
    """The user's policy file, present or not: $XDG_CONFIG_HOME/stridedarray/policy.json, with
    ~/.config for XDG_CONFIG_HOME when that is unset, empty or relative (as the XDG spec says)."""
    config = os.environ.get("XDG_CONFIG_HOME", "")
    base = Path(config) if os.path.isabs(config) else Path.home() / ".config"
    return base / "stridedarray" / "policy.json"


def policy_path() -> Path | None:
    """The policy file loaded at import: $STRIDEDARRAY_POLICY, else the user file if present."""
    env = os.environ.get("STRIDEDARRAY_POLICY")
    if env:
        return Path(env)
    user = user_policy_path()
    return user if user.is_file() else None


def _checked(values: Mapping[str, object], where: str) -> dict[str, int]:
    """Validate threshold values: known keys, non-negative ints (not bools)."""
    out: dict[str, int] = {}
    for k, v in values.items():
        if k not in DEFAULT_POLICY:
            raise ValueError(f"{where}: unknown policy key {k!r}; expected one of "
                             f"{', '.join(DEFAULT_POLICY)}")
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{where}: policy value for {k!r} must be a non-negative int, "
                             f"got {v!r}")
        out[k] = v
    return out


def load_policy_file(path: str | os.PathLike) -> dict[str, int]:
    """Read a JSON policy file and return the full table (defaults for missing keys)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a policy file holds a JSON object {{\"key\": int, ...}}, "
                         f"got {type(data).__name__}")
    return {**DEFAULT_POLICY, **_checked(data, str(path))}


def _initial() -> dict[str, int]:
    path = policy_path()
    if path is None:
        return dict(DEFAULT_POLICY)
    try:
        return load_policy_file(path)
    except (OSError, ValueError) as exc:
        warnings.warn(f"stridedarray: ignoring matmul policy file {path}: {exc}",
                      RuntimeWarning, stacklevel=2)
        return dict(DEFAULT_POLICY)


def _struct(values: Mapping[str, int], force: int) -> Any:
    return ffi.new("sa_mm_policy *", {**values, "force": force})


_BASE = _initial()
# The C struct handed to sa_matmul; a new one per matmul_policy block, never mutated (so a
# shared default is safe, and get() stays a single lookup on the hot path).
_current = contextvars.ContextVar(
    "stridedarray_matmul_policy", default=_struct(_BASE, -1))  # noqa: B039


def current_policy() -> dict[str, Any]:
    """The policy in effect here: every threshold, plus `force` (a backend name or None)."""
    p = _current.get()
    d: dict[str, Any] = {k: int(getattr(p, k)) for k in DEFAULT_POLICY}
    d["force"] = BACKENDS[p.force] if p.force >= 0 else None
    return d


@contextmanager
def matmul_policy(force: str | None = None, **thresholds: int) -> Iterator[dict]:
    """Within the block, force a matmul backend by name and/or change crossover thresholds.

    A context manager. The change applies to the current thread or asyncio task only (it is
    kept in a `contextvars.ContextVar`), blocks nest, and leaving the block restores the
    policy that was in effect before.

    Parameters
    ----------
    force : {None, "blas", "pack_blas", "generic", "reference"}, optional
        Run every matmul of the block on this backend, tried alone with its crossover
        thresholds off. When its layout rules still decline (e.g. direct BLAS on a
        reversed view), the generic kernel computes the product; `matmul_explain` shows the
        decline. None (the default) keeps the backend choice of the enclosing block.
    **thresholds : int
        New values for crossover constants, by their keys in the policy table
        (``stridedarray._policy.DEFAULT_POLICY``, documented in docs/matmul.md), e.g.
        ``gemm_blas_min=16``: direct BLAS for GEMM when min(M, N, K) >= 16. Non-negative
        ints; keys not given keep their values in force.

    Yields
    ------
    dict
        The policy in effect inside the block: every threshold, and ``"force"`` (a backend
        name or None).

    Raises
    ------
    ValueError
        `force` is not a backend name, a threshold key is unknown, or a value is not a
        non-negative int.

    See Also
    --------
    matmul_explain : The route a product takes under the policy in effect.

    Examples
    --------
    >>> import stridedarray as sa
    >>> a, b = sa.ones((10, 32, 32)), sa.ones((10, 32, 32))
    >>> with sa.matmul_policy(force="generic") as policy:
    ...     c = a @ b                                 # computed by the generic kernel
    ...     route = sa.matmul_explain(a, b)["route"]
    >>> route, policy["force"]
    ('generic', 'generic')
    >>> with sa.matmul_policy(gemm_blas_min=64) as policy:
    ...     policy["gemm_blas_min"]
    64
    >>> with sa.matmul_policy(colour=1):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: matmul_policy: unknown policy key 'colour'...
    """
    if force is not None and force not in BACKENDS:
        raise ValueError(f"force must be None or one of {BACKENDS}, got {force!r}")
    values = {k: int(getattr(_current.get(), k)) for k in DEFAULT_POLICY}
    values.update(_checked(thresholds, "matmul_policy"))
    code = BACKENDS.index(force) if force is not None else int(_current.get().force)
    token = _current.set(_struct(values, code))
    try:
        yield current_policy()
    finally:
        _current.reset(token)
