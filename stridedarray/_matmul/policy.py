"""The matmul policy table: every crossover constant of the route selector, in one place.

The table is mirrored field for field by the C struct `sa_mm_policy` (csrc/core/api/matmul.h) and
passed read-only to every matmul call, so the C core holds no mutable global state.

The shipped values were measured on the project's reference machine (2 cores, x86-64) by
`python -m stridedarray.tune` (raw data in docs/benchmark-method.md, "The policy's
crossovers"). The tuning tool re-measures them on any machine and writes a JSON
file `{"key": int, ...}` with the keys of `DEFAULT_POLICY`. At import the file named by the
environment variable `STRIDEDARRAY_POLICY` is loaded, else the user's file
`$XDG_CONFIG_HOME/stridedarray/policy.json` (`~/.config/stridedarray/policy.json` when
XDG_CONFIG_HOME is unset) when it exists; the tuning tool writes to the same place. Missing
keys keep their defaults; a file that cannot be used (unreadable, not JSON, a value of the
wrong type or outside its key's range, ...) is reported with a warning and ignored as a whole:
the policy file never makes `import stridedarray` fail.

`matmul_policy(force=None, **thresholds)` changes the policy for a block of code. It is a
contextvars-based context manager, so threads and async tasks do not see each other's changes.
"""

from __future__ import annotations

import contextvars
import os
import stat
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .._base.arguments import as_int
from .ffi import ffi, lib

if TYPE_CHECKING:  # pathlib only where a caller asks for a Path: import reads plain strings
    from pathlib import Path

__all__ = [
    "DEFAULT_POLICY",
    "BACKENDS",
    "matmul_policy",
    "current_policy",
    "load_policy_file",
    "policy_path",
    "user_policy_path",
]

# key -> value measured on the reference machine. Keys are stable: the tuning tool and the
# JSON policy file use them.
DEFAULT_POLICY: dict[str, int] = {
    "dot_blas_min_k": 8,  # DOT direct BLAS when K >= this
    "gemm_blas_min": 2,  # GEMM direct BLAS when min(M, N, K) >= this
    "gemm_batch_blas_min": 48,  # batched GEMM (C >= 2): the same; set below per kernel set
    "gemm_pack_min": 32,  # GEMM pack-once BLAS when min(M, N, K) >= this
    "gevm_compact_min_kn": 524288,  # unbatched GEVM, dense matrix: K*N >= this
    "gevm_blas_min": 1024,  # unbatched GEVM, padded matrix: min(K, N) >= this
    "gemv_blas_min": 384,  # unbatched GEMV: min(M, K) >= this
    "batched_vec_blas_min_elems": 1024,  # batched GEMV/GEVM direct: matrix elements >= this
    "vec_pack_always_min_elems": 65536,  # reused non-positive-stride vector: pack when the
    "vec_pack_cond_min_elems": 9216,  #   matrix has >= always elements, or >= cond elements
    "vec_pack_cond_min_batch": 16,  #   and batch >= cond_batch, or >= floor elements and
    "vec_pack_floor_min_elems": 9216,  #   output elements >= floor_out
    "vec_pack_floor_min_out": 128,
    "blas_enabled": 1,  # 0: both BLAS backends decline "unavailable"
    # A product of fewer multiply-adds (C*M*N*K) runs on one thread; above it, every thread
    # gets at least half this much (csrc/core/runtime/threads.c). Measured here (best of 15 x 50
    # calls, default threads over one thread): ten 32 x 32 products (327,680) 1.02-1.18x,
    # ten 40 x 40 or twenty 32 x 32 (640,000-655,360) 0.83-1.05x, forty 32 x 32 0.62-0.69x.
    "parallel_min_work": 1 << 19,
    # `x @ y` and matmul release the GIL for a product of at least this many multiply-adds
    # (C*M*N*K) and hold it below, where releasing and taking it back costs more than another
    # thread could gain (csrc/arraytype/matmul.c). Measured here (stridedarray.tune, two
    # threads multiplying at once): 48**3; below it holding was 5-15% faster.
    "gil_release_min_work": 110592,
}

# The range of every key, checked in one place (`_checked`) for the file and for matmul_policy.
# The C struct holds int64_t fields; the two switches are 0 or 1.
_INT64_MAX = 2**63 - 1
_SWITCHES = ("blas_enabled",)
RANGES: dict[str, tuple[int, int]] = {
    k: (0, 1) if k in _SWITCHES else (0, _INT64_MAX) for k in DEFAULT_POLICY
}

_MAX_FILE_BYTES = 1 << 16

# Backends in dispatch order; the index is the C backend code (SA_MM_BLAS, ...).
# OpenBLAS kernel sets with AVX-512 GEMM kernels (its core names, lower case).
_AVX512_KERNELS = frozenset({"skylakex", "cooperlake", "sapphirerapids"})


def _batch_blas_min() -> int:
    """`gemm_batch_blas_min` for the OpenBLAS kernels this process loaded.

    A batch pays BLAS's fixed cost per product (argument checks, buffer set-up, packing),
    the generic kernel's once per call. Measured on the reference machine at one thread
    (batches of S x S float32 and float64 products, each route forced; docs/matmul.md,
    "Batches of small products"): with AVX-512 kernels BLAS is faster from
    S = 12 (0.72-0.98 of the generic time), with AVX2 kernels the generic kernel is faster
    up to S = 40 (BLAS 1.17-2.8x slower at S = 8-40, even at 48-64). Other kernel sets were
    not measured and take the AVX2 value.
    """
    try:
        core = ffi.string(lib.scipy_openblas_get_corename()).decode().lower()
    except Exception:  # noqa: BLE001 - a report, never a reason to fail import
        return DEFAULT_POLICY["gemm_batch_blas_min"]
    return 12 if core in _AVX512_KERNELS else 48


DEFAULT_POLICY["gemm_batch_blas_min"] = _batch_blas_min()

BACKENDS: tuple[str, ...] = ("blas", "pack_blas", "generic", "reference")


def _user_policy_file() -> str:
    """The user's policy file, present or not: $XDG_CONFIG_HOME/stridedarray/policy.json, with
    ~/.config for XDG_CONFIG_HOME when that is unset, empty or relative (as the XDG spec says)."""
    config = os.environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(config):
        base = config
    else:
        home = os.path.expanduser("~")
        if home == "~":  # no $HOME and no password entry: as Path.home() says then
            raise RuntimeError("Could not determine home directory.")
        base = os.path.join(home, ".config")
    return os.path.join(base, "stridedarray", "policy.json")


def _policy_file() -> str | None:
    """The policy file loaded at import: $STRIDEDARRAY_POLICY, else the user file if present."""
    env = os.environ.get("STRIDEDARRAY_POLICY")
    if env:
        return env
    user = _user_policy_file()
    return user if os.path.isfile(user) else None


def user_policy_path() -> Path:
    """The user's policy file as a Path, present or not (see `_user_policy_file`)."""
    from pathlib import Path

    return Path(_user_policy_file())


def policy_path() -> Path | None:
    """The policy file loaded at import as a Path, or None when there is none."""
    from pathlib import Path

    found = _policy_file()
    return None if found is None else Path(found)


def _checked(values: Mapping[str, object], where: str) -> dict[str, int]:
    """Validate threshold values: known keys, integers (not bools) in each key's range.

    ValueError for every fault (unknown key, wrong type, out of range), naming the key."""
    out: dict[str, int] = {}
    for k, v in values.items():
        if k not in DEFAULT_POLICY:
            raise ValueError(
                f"{where}: unknown policy key {k!r}; expected one of {', '.join(DEFAULT_POLICY)}"
            )
        lo, hi = RANGES[k]
        what = "0 or 1" if hi == 1 else "a non-negative int (at most 2**63 - 1)"
        try:
            out[k] = as_int(v, f"policy value for {k!r}", where, lo, hi)
        except (TypeError, ValueError):
            shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:37] + "..."
            raise ValueError(
                f"{where}: policy value for {k!r} must be {what}, got {type(v).__name__} {shown}"
            ) from None
    return out


def load_policy_file(path: str | os.PathLike) -> dict[str, int]:
    """Read a JSON policy file and return the full table (defaults for missing keys).

    OSError when it cannot be read, ValueError for anything else wrong with it."""
    # Only a regular file of modest size: a FIFO would block the import and a device such as
    # /dev/zero would never end (the tuning tool writes a few hundred bytes).
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path}: not a regular file")
    with open(path, "rb") as fh:
        raw = fh.read(_MAX_FILE_BYTES + 1)
    if len(raw) > _MAX_FILE_BYTES:
        raise ValueError(
            f"{path}: larger than {_MAX_FILE_BYTES} bytes; a policy file is a small JSON object"
        )
    try:
        import json  # here, not at import: only a policy file needs it

        data = json.loads(raw.decode("utf-8"))
    except RecursionError:  # nesting deeper than the parser's recursion limit
        raise ValueError(f"{path}: the JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError(
            f'{path}: a policy file holds a JSON object {{"key": int, ...}}, '
            f"got {type(data).__name__}"
        )
    return {**DEFAULT_POLICY, **_checked(data, str(path))}


def _initial() -> dict[str, int]:
    """The table at import: the policy file's, or the defaults when there is none or it
    cannot be used. Never raises: whatever is wrong with the file (or with finding it) is a
    warning, and import goes on with the defaults."""
    path = None
    try:
        path = _policy_file()
        if path is None:
            return dict(DEFAULT_POLICY)
        return load_policy_file(path)
    except Exception as exc:  # import must not fail because of this file
        where = "" if path is None else f" {path}"
        warnings.warn(
            f"stridedarray: ignoring matmul policy file{where}: {type(exc).__name__}: {exc}",
            RuntimeWarning,
            stacklevel=2,
        )
        return dict(DEFAULT_POLICY)


def _struct(values: Mapping[str, int], force: int) -> Any:
    return ffi.new("sa_mm_policy *", {**values, "force": force})


_BASE = _initial()
# The C struct handed to sa_matmul; a new one per matmul_policy block, never mutated (so a
# shared default is safe, and get() stays a single lookup on the hot path).
_current = contextvars.ContextVar("stridedarray_matmul_policy", default=_struct(_BASE, -1))  # noqa: B039


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
        (``stridedarray._matmul.policy.DEFAULT_POLICY``, documented in docs/matmul.md), e.g.
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
        `force` is not a backend name, a threshold key is unknown, or a value is not an
        int in its key's range (0 to 2**63 - 1; 0 or 1 for the switches).

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
